# 2.3.1's external.justext_rescue without the GIL, over NgCtx (nogil_frame.pxi).
#
# justext_rescue(tree, options) = try_justext(basic_cleaning(tree), url, lang) and the trimmed
# " ".join of the result's itertext. Here basic_cleaning is nogil_baseline.pxi's
# (_ngb_basic_cleaning, the exact predicate: nothing resolved per document), jusText's
# ParagraphMaker walk is accel_justext.pxi's (_jt_walk over a JtWalk whose name flags are looked
# up without the GIL), classify_paragraphs is _jt_cf_code / _jt_density_code with the stopword
# density computed on the UTF-8 paragraph text (below), and revise_paragraph_classification is
# _jt_revise_codes. trafilatura's parameters: classify (50, 150, 0.1, 0.2, 0.25, no headings),
# revise 150.
#
# The stopword density: ``text.split()``'s words (Python whitespace, Py_UNICODE_ISSPACE), each
# ``word.lower()`` looked up in the stoplist. str.lower is the running interpreter's full lower
# case: per code point its simple mapping (Py_UNICODE_TOLOWER), except U+0130 (full mapping
# "i\u0307") and U+03A3, whose lower case depends on its neighbours (Final_Sigma). For a word
# holding capital sigmas, both lower cases of each are tried: when every variant gives the same
# answer that is the answer, else NEED_PYTHON (NGJT_SIGMA).
#
# NEED_PYTHON, by cause (NGJT_* below): a basic_cleaning deletion whose joined tail lxml's setter
# would check (ng_delete), a namespaced tag (the Python walk takes local names), a capital sigma
# the density cannot decide, a good paragraph text lxml refuses (xml_text raises outside
# try_justext, out of the whole extraction).

from libc.stdint cimport uintptr_t

cdef extern from "Python.h":
    Py_UCS4 _ngjt_tolower "Py_UNICODE_TOLOWER" (Py_UCS4 ch) noexcept nogil


cdef enum:
    NGJT_NONE = 0
    NGJT_JOIN = 1            # basic_cleaning: a tail join lxml's setter checks
    NGJT_NAMESPACE = 2       # a namespaced tag: the Python sax walk
    NGJT_SIGMA = 3           # a word's capital sigma decides whether it is a stopword
    NGJT_XML_TEXT = 4        # a good paragraph's text lxml refuses
    NGJT_N_CAUSES

NGJT_CAUSES = ("none", "join", "namespace", "sigma", "xml-text")

# jusText's PARAGRAPH_TAGS
cdef const char* _NGJT_PARA_NAMES[33]
_NGJT_PARA_NAMES[:] = [b"body", b"blockquote", b"caption", b"center", b"col", b"colgroup", b"dd", b"div",
                       b"dl", b"dt", b"fieldset", b"form", b"legend", b"optgroup", b"option", b"p", b"pre",
                       b"table", b"td", b"textarea", b"tfoot", b"th", b"thead", b"tr", b"ul", b"li", b"h1",
                       b"h2", b"h3", b"h4", b"h5", b"h6", b"br"]
cdef enum:
    _NGJT_N_PARA = 32        # the names above before "br"


cdef struct NgJtStoplist:
    uint64_t* hashes         # open addressing (_jt_hash: never 0); 0 an empty slot
    int32_t* offs
    int32_t* lens
    uchar* blob              # the words' UTF-8, back to back
    Py_ssize_t mask
    Py_ssize_t max_len       # the longest word's UTF-8 length


cdef bint _ngjt_contains(const NgJtStoplist* sl, const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef uint64_t h
    cdef Py_ssize_t slot
    if n > sl.max_len:
        return False
    h = _jt_hash(s, n)
    slot = <Py_ssize_t>(h & <uint64_t>sl.mask)
    while sl.hashes[slot] != 0:
        if sl.hashes[slot] == h and sl.lens[slot] == n and memcmp(sl.blob + sl.offs[slot], s, <size_t>n) == 0:
            return True
        slot = (slot + 1) & sl.mask
    return False


cdef dict _NGJT_BY_LANGUAGE = {}     # target_language -> address of its NgJtStoplist
cdef dict _NGJT_BY_SET = {}          # id(stoplist) -> (stoplist, address): languages sharing a list


cdef NgJtStoplist* _ngjt_build(frozenset words) except NULL:
    cdef NgJtStoplist* sl
    cdef Py_ssize_t cap = 16, total = 0, n, slot, off = 0
    cdef const char* s
    cdef uint64_t h
    cdef list enc = []
    for word in words:
        if type(word) is not str:
            raise TypeError("a stoplist word is no str")
        b = (<str>word).encode("utf-8")
        enc.append(b)
        total += len(b)
    while cap < 2 * len(enc) + 2:
        cap *= 2
    sl = <NgJtStoplist*>calloc(1, sizeof(NgJtStoplist))
    if sl == NULL:
        raise MemoryError()
    sl.hashes = <uint64_t*>calloc(<size_t>cap, sizeof(uint64_t))
    sl.offs = <int32_t*>malloc(<size_t>cap * sizeof(int32_t))
    sl.lens = <int32_t*>malloc(<size_t>cap * sizeof(int32_t))
    sl.blob = <uchar*>malloc(<size_t>total + 1)
    if sl.hashes == NULL or sl.offs == NULL or sl.lens == NULL or sl.blob == NULL or total > 0x7FFFFFFF:
        free(sl.hashes)
        free(sl.offs)
        free(sl.lens)
        free(sl.blob)
        free(sl)
        raise MemoryError()
    sl.mask = cap - 1
    for b in enc:
        s = <bytes>b
        n = len(<bytes>b)
        memcpy(sl.blob + off, s, <size_t>n)
        h = _jt_hash(sl.blob + off, n)
        slot = <Py_ssize_t>(h & <uint64_t>sl.mask)
        while sl.hashes[slot] != 0:
            slot = (slot + 1) & sl.mask
        sl.hashes[slot] = h
        sl.offs[slot] = <int32_t>off
        sl.lens[slot] = <int32_t>n
        if n > sl.max_len:
            sl.max_len = n
        off += n
    return sl


# upstream: trafilatura.external.try_justext
cdef const NgJtStoplist* ng_jt_stoplist(object target_language) except NULL:
    """try_justext's stoplist: define_stoplist(external.choose_stoplist(target_language)) as a C
    table, built once per language (and per list) in the process and never freed. With the GIL."""
    cdef NgJtStoplist* sl
    addr = _NGJT_BY_LANGUAGE.get(target_language)
    if addr is not None:
        return <NgJtStoplist*><uintptr_t>addr
    from trafila.v2_3_1.external import choose_stoplist
    from trafila.justext import define_stoplist
    words = define_stoplist(choose_stoplist(target_language))
    if type(words) is not frozenset:
        words = frozenset(words)
    known = _NGJT_BY_SET.get(id(words))
    if known is not None and known[0] is words:
        addr = known[1]
    else:
        sl = _ngjt_build(words)
        addr = <uintptr_t>sl
        _NGJT_BY_SET[id(words)] = (words, addr)
    _NGJT_BY_LANGUAGE[target_language] = addr
    return <NgJtStoplist*><uintptr_t>addr


cdef dict _NGJT_BY_LANGUAGE_111 = {}  # target_language -> address (1.11.0's choice of list)


# upstream: trafilatura.external.try_justext
cdef const NgJtStoplist* ng111_jt_stoplist(object target_language) except NULL:
    """1.11.0's try_justext stoplist as a C table: jusText's list of
    ``JUSTEXT_LANGUAGES[target_language]`` when it has one, else the union of every list (the
    pickled tuple, set-equal to it), lower-cased as classify_paragraphs does. With the GIL."""
    cdef NgJtStoplist* sl
    addr = _NGJT_BY_LANGUAGE_111.get(target_language)
    if addr is not None:
        return <NgJtStoplist*><uintptr_t>addr
    from trafila.v1_11_0.settings import JUSTEXT_LANGUAGES
    from trafila.justext import all_stoplists, define_stoplist, get_stoplist
    if target_language is not None and target_language in JUSTEXT_LANGUAGES:
        words = get_stoplist(JUSTEXT_LANGUAGES[target_language])
    else:
        words = all_stoplists()
    words = define_stoplist(words)
    if type(words) is not frozenset:
        words = frozenset(words)
    known = _NGJT_BY_SET.get(id(words))
    if known is not None and known[0] is words:
        addr = known[1]
    else:
        sl = _ngjt_build(words)
        addr = <uintptr_t>sl
        _NGJT_BY_SET[id(words)] = (words, addr)
    _NGJT_BY_LANGUAGE_111[target_language] = addr
    return <NgJtStoplist*><uintptr_t>addr


# -- the stopword density ------------------------------------------------------------------

cdef inline bint _ngjt_put_cp(Buf* b, uint32_t cp, int* err) noexcept nogil:
    "``cp`` as UTF-8 (a surrogate as its three bytes: no stoplist word holds one)."
    cdef uchar u[4]
    cdef Py_ssize_t n
    if cp < 0x80:
        u[0] = <uchar>cp
        n = 1
    elif cp < 0x800:
        u[0] = <uchar>(0xC0 | (cp >> 6))
        u[1] = <uchar>(0x80 | (cp & 0x3F))
        n = 2
    elif cp < 0x10000:
        u[0] = <uchar>(0xE0 | (cp >> 12))
        u[1] = <uchar>(0x80 | ((cp >> 6) & 0x3F))
        u[2] = <uchar>(0x80 | (cp & 0x3F))
        n = 3
    else:
        u[0] = <uchar>(0xF0 | (cp >> 18))
        u[1] = <uchar>(0x80 | ((cp >> 12) & 0x3F))
        u[2] = <uchar>(0x80 | ((cp >> 6) & 0x3F))
        u[3] = <uchar>(0x80 | (cp & 0x3F))
        n = 4
    return buf_append(b, u, n, err)


cdef enum:
    _NGJT_MAX_SIGMAS = 4     # undecided sigmas whose variants are tried: 2 ** this


cdef inline int _ngjt_case_class(uint32_t cp) noexcept nogil:
    """For Final_Sigma: 1 surely cased and not case-ignorable (ASCII, Latin-1 and Greek letters),
    2 surely case-ignorable and not cased ('.', ':', apostrophes, middle dots), 0 surely neither
    (digits, common punctuation), -1 not known here."""
    if (65 <= cp <= 90 or 97 <= cp <= 122 or 0xC0 <= cp <= 0xD6 or 0xD8 <= cp <= 0xF6 or 0xF8 <= cp <= 0xFF
            or cp == 0x386 or 0x388 <= cp <= 0x38A or cp == 0x38C or 0x38E <= cp <= 0x3A1
            or 0x3A3 <= cp <= 0x3CE):
        return 1
    if cp == 0x2E or cp == 0x3A or cp == 0x27 or cp == 0xB7 or cp == 0x387 or cp == 0x2019:
        return 2
    if (48 <= cp <= 57 or cp == 0x2C or cp == 0x3B or cp == 0x21 or cp == 0x3F or cp == 0x28 or cp == 0x29
            or cp == 0x22 or cp == 0xAB or cp == 0xBB or cp == 0x2D):
        return 0
    return -1


cdef int _ngjt_sigma_form(const uchar* s, Py_ssize_t n, Py_ssize_t at, Py_ssize_t after) noexcept nogil:
    """str.lower's form of the capital sigma at bytes [at, after) of the word ``s[:n]``: 0x83
    (sigma), 0x82 (final sigma: a cased letter before it, none after, case-ignorables skipped),
    -1 where a neighbour's class is not known here."""
    cdef Py_ssize_t i = at, j, cw = 0
    cdef int cls = 0
    # backwards: the last character not case-ignorable
    while i > 0:
        j = i - 1
        while j > 0 and (s[j] & 0xC0) == 0x80:
            j -= 1
        cls = _ngjt_case_class(<uint32_t>_cp_at(s, n, j, &cw))
        i = j
        if cls != 2:
            break
    if i == at or cls == 2:
        return 0x83          # nothing before it, or only case-ignorables
    if cls == -1:
        return -1
    if cls == 0:
        return 0x83
    # cased before it: final unless a cased character follows
    i = after
    while i < n:
        cls = _ngjt_case_class(<uint32_t>_cp_at(s, n, i, &cw))
        i += cw
        if cls != 2:
            if cls == -1:
                return -1
            return 0x83 if cls == 1 else 0x82
    return 0x82


cdef int _ngjt_lower(const uchar* s, Py_ssize_t n, Buf* low, Py_ssize_t* sig, int* n_sig, int* err) noexcept nogil:
    """``word.lower()`` of the UTF-8 word ``s[:n]`` into ``low``: the byte offsets of the sigmas
    whose form is not known here in ``sig`` (written as U+03C3), at most _NGJT_MAX_SIGMAS of them.
    0, -1 too many undecided sigmas, -2 without memory."""
    cdef Py_ssize_t i = 0, cw = 0
    cdef Py_UCS4 cp
    cdef int form
    low.len = 0
    n_sig[0] = 0
    while i < n:
        cp = _cp_at(s, n, i, &cw)
        i += cw
        if cp < 0x80:
            if not buf_append(low, <const uchar*>&s[i - cw], 1, err):
                return -2
            if 65 <= cp <= 90:
                low.data[low.len - 1] += 32
            continue
        if cp == 0x130:
            # its full lower case: "i" and COMBINING DOT ABOVE
            if not buf_append(low, <const uchar*>b"i\xcc\x87", 3, err):
                return -2
            continue
        if cp == 0x3A3:
            form = _ngjt_sigma_form(s, n, i - cw, i)
            if form < 0:
                if n_sig[0] == _NGJT_MAX_SIGMAS:
                    return -1
                sig[n_sig[0]] = low.len + 1      # the second byte: 0x83 sigma, 0x82 final sigma
                n_sig[0] += 1
                form = 0x83
            if not buf_append(low, <const uchar*>b"\xcf\x83", 2, err):
                return -2
            low.data[low.len - 1] = <uchar>form
            continue
        if not _ngjt_put_cp(low, <uint32_t>_ngjt_tolower(cp), err):
            return -2
    return 0


cdef int _ngjt_is_stopword(const NgJtStoplist* sl, const uchar* s, Py_ssize_t n, Buf* low, int* err) noexcept nogil:
    """``word.lower() in stoplist`` for the word ``s[:n]`` (UTF-8): 1, 0, -1 undecided (capital
    sigmas whose form is not known here and whose forms disagree), -2 without memory."""
    cdef Py_ssize_t sig[_NGJT_MAX_SIGMAS]
    cdef int n_sig = 0, k, mask, r
    cdef bint yes = False, no = False
    r = _ngjt_lower(s, n, low, sig, &n_sig, err)
    if r < 0:
        return r
    if n_sig == 0 or low.len > sl.max_len:
        return 1 if _ngjt_contains(sl, low.data, low.len) else 0
    for mask in range(1 << n_sig):
        for k in range(n_sig):
            low.data[sig[k]] = 0x82 if (mask >> k) & 1 else 0x83
        if _ngjt_contains(sl, low.data, low.len):
            yes = True
        else:
            no = True
    if yes and no:
        return -1
    return 1 if yes else 0


cdef int _ngjt_density(const NgJtStoplist* sl, const uchar* s, Py_ssize_t n, Buf* low, double* out,
                       int* err) noexcept nogil:
    """Paragraph.stopwords_density of the text ``s[:n]``: NS_OK (``out`` set), NS_NEED_PYTHON
    (a sigma undecided), NS_ERROR."""
    cdef Py_ssize_t i = 0, cw = 0, start
    cdef int64_t words = 0, stops = 0
    cdef int r
    while True:
        while i < n and _jt_isspace(_cp_at(s, n, i, &cw)):
            i += cw
        if i >= n:
            break
        start = i
        while i < n and not _jt_isspace(_cp_at(s, n, i, &cw)):
            i += cw
        words += 1
        r = _ngjt_is_stopword(sl, s + start, i - start, low, err)
        if r == -2:
            return NS_ERROR
        if r == -1:
            return NS_NEED_PYTHON
        stops += r
    # exact as doubles: one IEEE division is Python's int / int
    out[0] = (<double>stops / <double>words) if words else 0.0
    return NS_OK


cdef inline bint _ngjt_copyright(const uchar* s, Py_ssize_t n) noexcept nogil:
    """``"\\xa9" in text or "&copy" in text`` on the UTF-8 (0xC2 only ever leads a character)."""
    cdef Py_ssize_t i
    for i in range(n):
        if s[i] == 0xC2 and i + 1 < n and s[i + 1] == 0xA9:
            return True
        if s[i] == 38 and i + 4 < n and memcmp(s + i + 1, <const uchar*>b"copy", 4) == 0:
            return True
    return False


# -- the stage --------------------------------------------------------------------------------

cdef int _ngjt_try_justext(NgCtx* c, const NgJtStoplist* sl, int32_t tree, int32_t* body_out, Buf* text,
                           Py_ssize_t* text_len, int* cause) noexcept nogil:
    """try_justext(tree) and the result's trimmed text (see ng_justext_rescue)."""
    cdef DocData* d = c.d
    cdef JtWalk w
    cdef JtPar* p
    cdef Buf low
    cdef int st = NS_OK, rc, k, code
    cdef int err = 0
    cdef int32_t nid, body, pe
    cdef Py_ssize_t n, i, tn
    cdef int8_t* cur = NULL
    cdef int8_t* cf
    cdef int8_t* head
    cdef int8_t* new
    cdef int64_t* lens = NULL
    cdef double dens
    cdef const uchar* s
    # the release's parameters: 2.3.1 classify (50, 150, 0.1, 0.2, 0.25), revise 150;
    # 1.11.0's custom_justext (50, 200, 0.1, 0.2, 0.2), revise 200
    cdef int64_t length_high = 200 if c.o.release == NG_REL_111 else 150
    cdef double max_link_density = 0.2 if c.o.release == NG_REL_111 else 0.25
    memset(&w, 0, sizeof(JtWalk))
    memset(&low, 0, sizeof(Buf))
    while True:          # one pass; break with st set
        if not _jt_walk_alloc(&w, d):
            st = NS_ERROR
            break
        for k in range(_NGJT_N_PARA + 1):
            nid = dom_lookup_name(d, <const uchar*>_NGJT_PARA_NAMES[k], <Py_ssize_t>strlen(_NGJT_PARA_NAMES[k]))
            if 0 <= nid < w.n_ids:
                w.nflags[nid] |= JT_PARA if k < _NGJT_N_PARA else JT_BR
        nid = c.name[NG_A]
        if 0 <= nid < w.n_ids:
            w.nflags[nid] |= JT_A
        rc = _jt_walk(&w, tree)
        if rc == JT_FALLBACK:
            st = NS_NEED_PYTHON
            cause[0] = NGJT_NAMESPACE
            break
        if rc != JT_OK or w.err:
            err = w.err
            st = NS_ERROR
            break
        # classify_paragraphs (no headings)
        n = w.n_pars
        cur = NULL if alloc_fails() else <int8_t*>malloc(<size_t>(n + 1) * 4)
        lens = NULL if alloc_fails() else <int64_t*>malloc(<size_t>(n + 1) * sizeof(int64_t))
        if cur == NULL or lens == NULL:
            st = NS_ERROR
            break
        cf = cur + (n + 1)
        head = cf + (n + 1)
        new = head + (n + 1)
        for i in range(n):
            p = &w.pars[i]
            s = w.texts.data + p.text_off
            lens[i] = p.text_cps
            code = _jt_cf_code(p.links, p.text_cps, _ngjt_copyright(s, p.text_len),
                               _jt_has_select(w.paths.data + p.path_off, p.dom_len), 50, max_link_density)
            if code == JT_OTHER:
                st = _ngjt_density(sl, s, p.text_len, &low, &dens, &err)
                if st != NS_OK:
                    break
                code = _jt_density_code(dens, p.text_cps, length_high, 0.1, 0.2)
            cf[i] = <int8_t>code
            head[i] = 0
            cur[i] = JT_OTHER        # class_type "" before the revision
        if st == NS_NEED_PYTHON:
            cause[0] = NGJT_SIGMA
        if st != NS_OK:
            break
        _jt_revise_codes(cur, cf, head, new, lens, n, length_high)
        # the body: a <p> per good paragraph; its text trim(" ".join(body.itertext()))
        body = ng_new_element(c, NG_BODY, -1)
        if body < 0:
            st = NS_ERROR
            break
        for i in range(n):
            if cur[i] != JT_GOOD:
                continue
            p = &w.pars[i]
            s = w.texts.data + p.text_off
            pe = ng_new_element(c, NG_P, body)
            if pe < 0:
                st = NS_ERROR
                break
            st = ng_set_slot(d, pe, False, s, p.text_len, False)
            if st != NS_OK:
                if st == NS_NEED_PYTHON:
                    cause[0] = NGJT_XML_TEXT
                break
        if st != NS_OK:
            break
        tn = ng_trim_itertext(d, body, True, False, NULL)
        if tn > 0:
            if not buf_reserve(text, tn, &err):
                st = NS_ERROR
                break
            text.len = ng_trim_itertext(d, body, True, False, text.data)
        body_out[0] = body
        text_len[0] = ngs_code_points(text.data, text.len)
        break
    if st == NS_ERROR and d.error == 0:
        d.error = err if err else ERR_MEMORY
    free(cur)
    free(lens)
    buf_free(&low)
    _jt_free(&w)
    return st


cdef int _ngjt_justext_rescue(NgCtx* c, const NgJtStoplist* sl, int32_t tree, int32_t* body_out, Buf* text,
                              Py_ssize_t* text_len, int* cause) noexcept nogil:
    "ng_justext_rescue with the cause of a NEED_PYTHON (NGJT_*)."
    cdef NgbNames nm
    cdef int st, bcause = 0
    body_out[0] = -1
    text_len[0] = 0
    text.len = 0
    cause[0] = NGJT_NONE
    if _ngb_names(c, &nm) != NS_OK:
        if c.d.error == 0:
            c.d.error = ERR_MEMORY
        return NS_ERROR
    st = _ngb_basic_cleaning(c.d, &nm, NULL, tree, &bcause)
    free(nm.flags)
    if st == NS_NEED_PYTHON:
        cause[0] = NGJT_JOIN
    elif st == NS_OK:
        st = _ngjt_try_justext(c, sl, tree, body_out, text, text_len, cause)
    if st == NS_ERROR and c.d.error == 0:
        c.d.error = ERR_MEMORY
    if st != NS_OK:
        body_out[0] = -1
        text_len[0] = 0
        text.len = 0
    return st


cdef int ng_justext_rescue(NgCtx* c, const NgJtStoplist* sl, int32_t tree, int32_t* body_out,
                           Buf* text, Py_ssize_t* text_len) noexcept nogil:
    """external.justext_rescue(tree, options) with ``sl`` = ng_jt_stoplist(options.lang):
    basic_cleaning on ``tree`` in place (the caller's copy), then try_justext; ``body_out`` the
    new detached <body> (a <p> per good paragraph), ``text`` its trimmed " ".join(itertext()) as
    UTF-8 (the caller's buffer, overwritten), ``text_len`` its length in code points.
    NS_OK / NS_NEED_PYTHON / NS_ERROR (the tree may be half cleaned then: the caller drops it)."""
    cdef int cause = 0
    return _ngjt_justext_rescue(c, sl, tree, body_out, text, text_len, &cause)


# -- with the GIL: the test hooks (tests/test_core_nogil_justext.py) ---------------------------

def nogil_justext_rescue(CElement tree not None, object target_language, list why=None):
    """ng_justext_rescue on ``tree`` (mutated in place, as the reference's basic_cleaning does)
    with the stoplist of ``target_language``: (body, text, length), or None for NEED_PYTHON (its
    cause, a name of NGJT_CAUSES, appended to ``why``); MemoryError for NS_ERROR."""
    cdef CDocument doc = tree.doc
    cdef const NgJtStoplist* sl = ng_jt_stoplist(target_language)
    cdef NgCtx c
    cdef Buf text
    cdef int32_t body = -1, idx = tree.idx
    cdef Py_ssize_t length = 0
    cdef int r, cause = NGJT_NONE
    doc._check(idx)
    memset(&text, 0, sizeof(Buf))
    try:
        with nogil:
            r = ng_init(&c, &doc.d)
            if r == NS_OK:
                r = _ngjt_justext_rescue(&c, sl, idx, &body, &text, &length, &cause)
            ng_free(&c)
        if r == NS_ERROR:
            _raise_doc_error(doc)
        if r != NS_OK:
            if why is not None:
                why.append(NGJT_CAUSES[cause])
            return None
        return (_proxy(doc, body), PyUnicode_DecodeUTF8(<const char*>text.data, text.len, NULL), length)
    finally:
        buf_free(&text)


def nogil_jt_stopword(str word, object target_language):
    """``word.lower() in stoplist`` by _ngjt_is_stopword (tests): True, False, or None (undecided)."""
    cdef const NgJtStoplist* sl = ng_jt_stoplist(target_language)
    cdef bytes b = word.encode("utf-8", "surrogatepass")
    cdef Buf low
    cdef int r, err = 0
    memset(&low, 0, sizeof(Buf))
    try:
        r = _ngjt_is_stopword(sl, <const uchar*><const char*>b, len(b), &low, &err)
        if r == -2:
            raise MemoryError()
        return None if r == -1 else r == 1
    finally:
        buf_free(&low)


def nogil_jt_lower(str word):
    """``word.lower()`` as _ngjt_is_stopword makes it, or None where a capital sigma's form is
    not known here (tests)."""
    cdef bytes b = word.encode("utf-8", "surrogatepass")
    cdef Py_ssize_t sig[_NGJT_MAX_SIGMAS]
    cdef int n_sig = 0, r, err = 0
    cdef Buf low
    memset(&low, 0, sizeof(Buf))
    try:
        r = _ngjt_lower(<const uchar*><const char*>b, len(b), &low, sig, &n_sig, &err)
        if r == -2:
            raise MemoryError()
        if r == -1 or n_sig:
            return None
        return low.data[:low.len].decode("utf-8", "surrogatepass") if low.len else ""
    finally:
        buf_free(&low)


def nogil_justext_tables():
    "jusText's PARAGRAPH_TAGS as the stage has them (tests)."
    cdef int k
    return frozenset(_NGJT_PARA_NAMES[k].decode() for k in range(_NGJT_N_PARA))
