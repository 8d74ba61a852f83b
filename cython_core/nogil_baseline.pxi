# 2.3.1's baseline.baseline and len(baseline.html2txt)
# without the GIL, over NgCtx (nogil_frame.pxi).
#
# Both run on the raw tree as core.py hands it (an element: load_html returns it, and baseline
# and html2txt work on copy_tree(tree)). Here the copy is made inside the same document
# (ng_copy_subtree: a detached subtree), basic_cleaning deletes from it (basic_clean_xpath's
# selection by ns_select, resolved with the GIL by the caller, or by the exact predicate below
# where the Matcher cannot decide; each match through ng_delete), and the text walks read it. The source tree is never written; what baseline returns (a new
# <body> with <p> children) is made of detached nodes of the same document.
#
# The spaced text of ``_spaced_text_readonly`` (block_text, html2txt): every text and tail of
# the subtree in document order, the root's tail left out; a slot of a block element
# (_BLOCK_ELEMS) is ``xml_text(" " + remove_control_characters(s))`` (" " for None or ''), any
# other slot as it is; then ``" ".join(all.split())``. The feed is accel_baseline.pxi's
# (_bl_feed: the collapse; _bl_feed_printables: remove_control_characters with the running
# interpreter's Py_UNICODE_ISPRINTABLE / Py_UNICODE_ISSPACE, the functions str.isprintable and
# str.isspace call per character). xml_text raises on the refused characters
# remove_control_characters keeps: \x0b, \x0c, \x1c-\x1f (whitespace to Python); all the other
# refused ones (C0 controls, U+FFFE, U+FFFF, surrogates) are neither printable nor whitespace
# and are dropped before the check. So a block slot holding one of those bytes is the
# reference's ValueError: NEED_PYTHON.
#
# NEED_PYTHON, by cause (NGB_* below): the JSON strategies (an ld+json script whose text
# _JSON_HOOKS_RE finds, a div with id "data-preloaded": json.loads, html.unescape and a fragment
# parse decide what comes out), a deletion whose joined tail lxml's setter would check
# (ng_delete), a block slot xml_text refuses (above), a text ng_set_slot refuses (cannot happen:
# every text written has been through remove_control_characters and the whitespace collapse or
# trim). The refused characters never come out of load_html (it strips them from a str), so on
# its trees the JSON causes are the only ones.
#
# Entry points: ng_baseline / ng_html2txt_len decide basic_clean by the exact predicate alone
# (nothing resolved with the GIL); ng_baseline_sel / ng_html2txt_len_sel take basic_clean's
# NSel (from _ngb_resolve_clean, with the GIL: the frame has no place for per-document
# resolved selectors) and use ns_select first. Both give the same results (tested).

from libc.string cimport memchr as _ngb_memchr


cdef enum:
    NGB_NONE = 0
    NGB_JSON_LD = 1          # a script type=application/ld+json whose text holds a _JSON_HOOKS literal
    NGB_PRELOADED = 2        # a div with id 'data-preloaded' (_discourse_texts)
    NGB_SELECT = 3           # (no longer given: _ngb_select_noise decides where the Matcher cannot)
    NGB_JOIN = 4             # delete_element: a tail join lxml's setter checks
    NGB_XML_TEXT = 5         # block_text: xml_text would raise on a block slot
    NGB_SET = 6              # a result text ng_set_slot refuses
    NGB_NO_MATCHER = 7       # (the resolve, with the GIL) basic_clean has no exact matcher
    NGB_N_CAUSES

NGB_CAUSES = ("none", "json-ld", "data-preloaded", "select", "join", "xml-text", "set-slot", "no-matcher")

cdef enum:
    _NGB_BLOCK = 1           # name flags: in _BLOCK_ELEMS
    _NGB_SCRAPED = 2         # in baseline's scraped_tags

# baseline.py's _BLOCK_ELEMS and scraped_tags
cdef const char* _NGB_BLOCK_NAMES[34]
_NGB_BLOCK_NAMES[:] = [b"address", b"article", b"aside", b"blockquote", b"br", b"dd", b"div", b"dl", b"dt",
                       b"figcaption", b"figure", b"footer", b"form", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6",
                       b"header", b"hr", b"li", b"main", b"nav", b"ol", b"p", b"pre", b"section", b"summary",
                       b"table", b"td", b"th", b"tr", b"ul"]
cdef const char* _NGB_SCRAPED_NAMES[6]
_NGB_SCRAPED_NAMES[:] = [b"blockquote", b"code", b"p", b"pre", b"q", b"quote"]
# _JSON_HOOKS: _JSON_TEXT_KEYS, recipeInstructions, acceptedAnswer, the quoted type names
cdef const char* _NGB_HOOKS[7]
_NGB_HOOKS[:] = [b"articleBody", b"reviewBody", b"recipeInstructions", b"acceptedAnswer", b'"Product"',
                 b'"VideoObject"', b'"HowTo"']
# xpaths._BASIC_TAGS
cdef const char* _NGB_BASIC_TAGS[7]
_NGB_BASIC_TAGS[:] = [b"aside", b"fencedframe", b"footer", b"script", b"style", b"svg", b"template"]
cdef const char* _NGB_LD_JSON = b"application/ld+json"
cdef const char* _NGB_PRELOADED_ID = b"data-preloaded"

cdef enum:
    _NGB_MIN_CONTENT = 100           # baseline._MIN_CONTENT_LENGTH
    _NGB_MIN_DUPLICATE = 50          # settings.MIN_DUPLICATE_LENGTH
    _NGB_SCAN_CAP = 200000           # settings.DEDUPE_SCAN_CAP


cdef struct NgbNames:
    uint8_t* flags           # per name id: _NGB_BLOCK | _NGB_SCRAPED
    int32_t nb
    int32_t article
    int32_t body
    int32_t script
    int32_t div
    int32_t a_type           # attribute names (-1: the document never saw them)
    int32_t a_id
    int32_t a_class
    int32_t basic[7]         # _BASIC_TAGS (-1: unseen)


cdef struct NgbSpans:
    Py_ssize_t* data         # (offset, length) pairs
    Py_ssize_t len           # pairs
    Py_ssize_t cap


cdef inline int32_t _ngb_name(DocData* d, const char* s) noexcept nogil:
    return dom_lookup_name(d, <const uchar*>s, <Py_ssize_t>strlen(s))


cdef int _ngb_names(NgCtx* c, NgbNames* nm) noexcept nogil:
    "The name ids baseline reads (looked up, nothing interned): NS_OK or NS_ERROR."
    cdef DocData* d = c.d
    cdef int k
    cdef int32_t nid
    memset(nm, 0, sizeof(NgbNames))
    nm.nb = N_KNOWN + d.n_names
    if alloc_fails():
        return NS_ERROR
    nm.flags = <uint8_t*>calloc(<size_t>nm.nb + 1, 1)
    if nm.flags == NULL:
        return NS_ERROR
    for k in range(34):
        nid = _ngb_name(d, _NGB_BLOCK_NAMES[k])
        if 0 <= nid < nm.nb:
            nm.flags[nid] |= _NGB_BLOCK
    for k in range(6):
        nid = _ngb_name(d, _NGB_SCRAPED_NAMES[k])
        if 0 <= nid < nm.nb:
            nm.flags[nid] |= _NGB_SCRAPED
    nm.article = c.name[NG_ARTICLE]
    nm.body = c.name[NG_BODY]
    nm.div = c.name[NG_DIV]
    nm.script = _ngb_name(d, b"script")
    nm.a_type = _ngb_name(d, b"type")
    nm.a_id = _ngb_name(d, b"id")
    nm.a_class = _ngb_name(d, b"class")
    for k in range(7):
        nm.basic[k] = _ngb_name(d, _NGB_BASIC_TAGS[k])
    return NS_OK


cdef inline uint8_t _ngb_flags(const NgbNames* nm, DocData* d, int32_t i) noexcept nogil:
    cdef int32_t t = d.nodes[i].tag
    return nm.flags[t] if 0 <= t < nm.nb else 0


cdef int _ngb_span_push(NgbSpans* v, Py_ssize_t off, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t cap
    cdef Py_ssize_t* p
    if v.len == v.cap:
        cap = 16 if v.cap == 0 else 2 * v.cap
        if alloc_fails():
            return -1
        p = <Py_ssize_t*>realloc(v.data, <size_t>cap * 2 * sizeof(Py_ssize_t))
        if p == NULL:
            return -1
        v.data = p
        v.cap = cap
    v.data[2 * v.len] = off
    v.data[2 * v.len + 1] = n
    v.len += 1
    return 0


cdef bint _ngb_contains(const uchar* h, Py_ssize_t hn, const uchar* s, Py_ssize_t n) noexcept nogil:
    """``s in h`` for UTF-8 slices (valid UTF-8 is self-synchronizing: a byte match is a
    code point match)."""
    cdef const uchar* p = h
    cdef const uchar* end
    if n == 0:
        return True
    if n > hn:
        return False
    end = h + (hn - n)       # the last start that fits
    while p <= end:
        p = <const uchar*>_ngb_memchr(p, s[0], <size_t>(end - p + 1))
        if p == NULL:
            return False
        if memcmp(p, s, <size_t>n) == 0:
            return True
        p += 1
    return False


cdef bint _ngb_rcc_into(Buf* out, const uchar* s, Py_ssize_t n, int* err) noexcept nogil:
    """Append ``remove_control_characters(s)``: each character kept when it is printable or
    whitespace (the interpreter's own predicates). False without memory."""
    cdef Py_ssize_t i = 0, start = 0, w = 1
    cdef Py_UCS4 cp
    cdef uchar b
    while i < n:
        b = s[i]
        if b < 0x80:
            w = 1
            if not (_BL_SCAN[b] & 2):
                i += 1
                continue
        else:
            cp = _cp_at(s, n, i, &w)
            if _bl_isprintable(cp) or _bl_isspace(cp):
                i += w
                continue
        if not buf_append(out, s + start, i - start, err):
            return False
        i += w
        start = i
    return buf_append(out, s + start, n - start, err)


# -- the spaced text (block_text / _spaced_text_readonly) --------------------------------

cdef int _ngb_piece(Collapse* col, DocData* d, int32_t off, int32_t n, bint block) noexcept nogil:
    "One text or tail slot into the collapse: NS_OK, or NS_NEED_PYTHON where xml_text raises."
    cdef const uchar* s
    cdef uint8_t scan
    if block:
        _bl_feed(col, <const uchar*>b" ", 1)
    if off < 0 or n <= 0:
        return NS_OK
    s = d.text.data + off
    if not block:
        _bl_feed(col, s, n)
        return NS_OK
    scan = _bl_scan(s, n)
    if scan == 0:
        _bl_feed(col, s, n)
    elif scan & 1:
        return NS_NEED_PYTHON
    elif not (scan & 4):
        _bl_feed_ascii_printables(col, s, n)
    else:
        _bl_feed_printables(col, s, n)
    return NS_OK


cdef int _ngb_block_text(DocData* d, const NgbNames* nm, int32_t top, Collapse* col) noexcept nogil:
    """``_spaced_text_readonly(top)`` appended to ``col`` (start it empty, pending False): NS_OK,
    NS_NEED_PYTHON (xml_text would raise: a block slot with \\x0b, \\x0c or \\x1c-\\x1f, the
    root's tail included, which upstream writes and text_content leaves out) or NS_ERROR
    (col.err set)."""
    cdef int32_t s = top, k
    cdef int st
    cdef Node* nd = &d.nodes[top]
    if ((_ngb_flags(nm, d, top) & _NGB_BLOCK) and nd.tail_off >= 0 and nd.tail_len > 0
            and _xml_refused_after_rcc(d.text.data + nd.tail_off, nd.tail_len)):
        return NS_NEED_PYTHON
    st = _ngb_piece(col, d, nd.text_off, nd.text_len, _ngb_flags(nm, d, top) & _NGB_BLOCK)
    while st == NS_OK and not col.err:
        k = d.nodes[s].first
        if k >= 0:
            s = k
            st = _ngb_piece(col, d, d.nodes[s].text_off, d.nodes[s].text_len, _ngb_flags(nm, d, s) & _NGB_BLOCK)
            continue
        # leave s and its ancestors (their tails) up to the next sibling
        while s != top:
            st = _ngb_piece(col, d, d.nodes[s].tail_off, d.nodes[s].tail_len, _ngb_flags(nm, d, s) & _NGB_BLOCK)
            if st != NS_OK:
                break
            if d.nodes[s].next >= 0:
                s = d.nodes[s].next
                st = _ngb_piece(col, d, d.nodes[s].text_off, d.nodes[s].text_len,
                                _ngb_flags(nm, d, s) & _NGB_BLOCK)
                break
            s = d.nodes[s].parent
        if s == top:
            break
    if col.err:
        return NS_ERROR
    return st


cdef inline void _ngb_col_reset(Collapse* col) noexcept nogil:
    col.out.len = 0
    col.pending = False


cdef inline int32_t _ngb_skip(DocData* d, int32_t i, int32_t top) noexcept nogil:
    "The node after ``i``'s subtree in ``top``'s document order (-1 at its end)."
    while i != top:
        if d.nodes[i].next >= 0:
            return d.nodes[i].next
        i = d.nodes[i].parent
    return -1


# -- the steps of baseline ------------------------------------------------------------

cdef int _ngb_json_hooks(DocData* d, const NgbNames* nm, int32_t root, int* cause) noexcept nogil:
    """_collect_json_content would have something to parse: an ld+json script whose text
    _JSON_HOOKS_RE finds (ASCII literals: a byte search is exact), or a div whose id is
    'data-preloaded'. NS_NEED_PYTHON (with its cause) or NS_OK."""
    cdef int32_t i = d.nodes[root].first, t
    cdef const uchar* v = NULL
    cdef Py_ssize_t n = 0
    cdef int k
    cdef Node* nd
    if nm.script < 0 and nm.div < 0:
        return NS_OK
    while i >= 0:
        t = d.nodes[i].tag
        if t == nm.script and nm.script >= 0:
            if _ni_value(d, i, nm.a_type, &v, &n) == 1 and n == 19 and memcmp(v, _NGB_LD_JSON, 19) == 0:
                nd = &d.nodes[i]
                if nd.text_off >= 0 and nd.text_len > 0:
                    for k in range(7):
                        if _ngb_contains(d.text.data + nd.text_off, nd.text_len, <const uchar*>_NGB_HOOKS[k],
                                         <Py_ssize_t>strlen(_NGB_HOOKS[k])):
                            cause[0] = NGB_JSON_LD
                            return NS_NEED_PYTHON
        elif t == nm.div:
            if _ni_value(d, i, nm.a_id, &v, &n) == 1 and n == 14 and memcmp(v, _NGB_PRELOADED_ID, 14) == 0:
                cause[0] = NGB_PRELOADED
                return NS_NEED_PYTHON
        i = dom_preorder_next(d, i, root)
    return NS_OK


# -- basic_clean's predicate, exact (the fallback where ns_select's matcher answers -1) -------
# xpaths._is_basic_noise: a _BASIC_TAGS tag; a div whose first of @class/@id (source order)
# contains 'footer'; or _COOKIE_CONSENT (re.IGNORECASE) found in @class or in @id. The
# Matcher leaves non-ASCII values under re.I to Python (a page with a class like
# 'toc-Cheografía': 2% of the corpus pages). The pattern is ASCII letters, '-' and '_'; under
# re.IGNORECASE a value's code point cp matches the letter l when sre's lowercase of cp
# (Py_UNICODE_TOLOWER) is l, or is U+0131 for l = 'i' or U+017F for l = 's' (sre's extra
# cases: nogil_text.pxi's _nt_ignorecase_eq), and '-' / '_' only match themselves. So each
# code point folds to one byte (that letter, '-', '_', another ASCII byte, or 0 for a code
# point no pattern character matches) and the search runs on the bytes.

cdef const char* _NGB_COOKIE_TAILS[7]
_NGB_COOKIE_TAILS[:] = [b"banner", b"bar", b"consent", b"law", b"notice", b"policy", b"description"]
cdef const char* _NGB_CONSENT_TAILS[3]
_NGB_CONSENT_TAILS[:] = [b"banner", b"manager", b"sdk"]
cdef const char* _NGB_PLAIN[4]
_NGB_PLAIN[:] = [b"borlabs", b"cookiebot", b"cmplz", b"onetrust"]


cdef inline uchar _ngb_fold(Py_UCS4 cp) noexcept nogil:
    cdef Py_UCS4 lo
    cdef uint32_t v = <uint32_t>cp
    if v < 0x80:
        return <uchar>(v + 32) if 65 <= v <= 90 else <uchar>v
    lo = _nt_tolower(cp)
    if lo < 0x80:
        return <uchar>lo
    if lo == 0x131:
        return 105
    if lo == 0x17F:
        return 115
    return 0


cdef inline Py_ssize_t _ngb_lit(const uchar* f, Py_ssize_t m, Py_ssize_t p, const char* lit) noexcept nogil:
    "The end of ``lit`` matched at f[p], or -1."
    cdef Py_ssize_t k = 0
    while lit[k] != 0:
        if p + k >= m or f[p + k] != <uchar>lit[k]:
            return -1
        k += 1
    return p + k


cdef inline bint _ngb_sep(const uchar* f, Py_ssize_t m, Py_ssize_t p) noexcept nogil:
    return p < m and (f[p] == 45 or f[p] == 95)


cdef bint _ngb_any_at(const uchar* f, Py_ssize_t m, Py_ssize_t p, const char** lits, int n) noexcept nogil:
    cdef int k
    for k in range(n):
        if _ngb_lit(f, m, p, lits[k]) >= 0:
            return True
    return False


cdef bint _ngb_cookie_at(const uchar* f, Py_ssize_t m, Py_ssize_t p) noexcept nogil:
    "One of _COOKIE_CONSENT's alternatives matches at f[p]."
    cdef Py_ssize_t e
    cdef uchar c0 = f[p]
    # every alternative starts with one of c n b o m: most positions end here
    if c0 != 99 and c0 != 110 and c0 != 98 and c0 != 111 and c0 != 109:
        return False
    # cookie[-_]?(?:banner|bar|consent|law|notice|policy|description)
    e = _ngb_lit(f, m, p, b"cookie")
    if e >= 0:
        if _ngb_any_at(f, m, e, _NGB_COOKIE_TAILS, 7):
            return True
        if _ngb_sep(f, m, e) and _ngb_any_at(f, m, e + 1, _NGB_COOKIE_TAILS, 7):
            return True
    # notice[-_]{0,2}cookie
    e = _ngb_lit(f, m, p, b"notice")
    if e >= 0:
        if _ngb_lit(f, m, e, b"cookie") >= 0:
            return True
        if _ngb_sep(f, m, e):
            if _ngb_lit(f, m, e + 1, b"cookie") >= 0:
                return True
            if _ngb_sep(f, m, e + 1) and _ngb_lit(f, m, e + 2, b"cookie") >= 0:
                return True
    # consent[-_]?(?:banner|manager|sdk)
    e = _ngb_lit(f, m, p, b"consent")
    if e >= 0:
        if _ngb_any_at(f, m, e, _NGB_CONSENT_TAILS, 3):
            return True
        if _ngb_sep(f, m, e) and _ngb_any_at(f, m, e + 1, _NGB_CONSENT_TAILS, 3):
            return True
    # borlabs|cookiebot|cmplz|onetrust
    if _ngb_any_at(f, m, p, _NGB_PLAIN, 4):
        return True
    # moove[-_]?gdpr
    e = _ngb_lit(f, m, p, b"moove")
    if e >= 0:
        if _ngb_lit(f, m, e, b"gdpr") >= 0:
            return True
        if _ngb_sep(f, m, e) and _ngb_lit(f, m, e + 1, b"gdpr") >= 0:
            return True
    return False


cdef int _ngb_cookie_search(const uchar* v, Py_ssize_t n, Buf* scratch) noexcept nogil:
    "bool(_COOKIE_CONSENT(value)) for a UTF-8 value: 1, 0, or -1 without memory."
    cdef Py_ssize_t i = 0, m = 0, p
    cdef Py_UCS4 cp
    cdef int err = 0
    scratch.len = 0
    if n < 5:                # the shortest alternative: cmplz (one code point folds to one byte)
        return 0
    if not buf_reserve(scratch, n, &err):
        return -1
    while i < n:
        i += _nt_decode(v, i, n, &cp)
        scratch.data[m] = _ngb_fold(cp)
        m += 1
    for p in range(m):
        if _ngb_cookie_at(scratch.data, m, p):
            return 1
    return 0


cdef inline int _ngb_attr(DocData* d, int32_t k, const uchar** v, Py_ssize_t* n) noexcept nogil:
    """Attribute entry ``k``'s value as XPath reads it: 1 and the bytes (a valueless attribute:
    ''), or -3 for a boolean attribute whose value is its own name (the caller knows it)."""
    cdef Attr* a = &d.attrs[k]
    if a.kind == AV_VALUE:
        v[0] = d.vals.data + a.val_off
        n[0] = a.val_len
        return 1
    if a.kind == AV_OWN_NAME:
        return -3
    v[0] = NULL
    n[0] = 0
    return 1


cdef int _ngb_basic_noise(DocData* d, const NgbNames* nm, int32_t i, Buf* scratch) noexcept nogil:
    "xpaths._is_basic_noise(i): 1, 0, or -1 without memory."
    cdef int32_t t = d.nodes[i].tag, k, nid
    cdef const uchar* v = NULL
    cdef Py_ssize_t n = 0
    cdef int r, j
    cdef Node* nd = &d.nodes[i]
    for j in range(7):
        if nm.basic[j] >= 0 and t == nm.basic[j]:
            return 1
    if t == nm.div:
        # the first of @class/@id in source order ('' when neither)
        for k in range(nd.attr_start, nd.attr_start + nd.attr_count):
            nid = d.attrs[k].name
            if nid >= 0 and (nid == nm.a_class or nid == nm.a_id):
                # a boolean one reads as its own name, 'class' or 'id': no 'footer' in it
                if _ngb_attr(d, k, &v, &n) == 1 and _ngb_contains(v, n, <const uchar*>b"footer", 6):
                    return 1
                break
    for j in range(2):
        nid = nm.a_class if j == 0 else nm.a_id
        if nid < 0:
            continue
        k = dom_attr_find(d, i, nid)
        if k < 0:
            continue
        # missing: ''; a boolean one: 'class' / 'id', which the pattern does not find either
        if _ngb_attr(d, k, &v, &n) != 1:
            continue
        r = _ngb_cookie_search(v, n, scratch)
        if r != 0:
            return r
    return 0


cdef int _ngb_select_noise(DocData* d, const NgbNames* nm, int32_t top, NsVec* out) noexcept nogil:
    "basic_clean_xpath(top) by _ngb_basic_noise: NS_OK or NS_ERROR."
    cdef Buf scratch
    cdef int32_t i = d.nodes[top].first
    cdef int r, st = NS_OK
    memset(&scratch, 0, sizeof(Buf))
    while i >= 0:
        r = _ngb_basic_noise(d, nm, i, &scratch)
        if r < 0 or (r == 1 and nsv_push(out, i) < 0):
            st = NS_ERROR
            break
        i = dom_preorder_next(d, i, top)
    buf_free(&scratch)
    return st


cdef int _ngb_basic_cleaning(DocData* d, const NgbNames* nm, const NSel* clean, int32_t top,
                             int* cause) noexcept nogil:
    """basic_cleaning(top): every basic_clean_xpath match, in document order, deleted with its
    tail kept. The selection is ns_select's with ``clean``; without it (NULL), or where its
    matcher answers -1, _ngb_select_noise's."""
    cdef NsVec v
    cdef int st = NS_NEED_PYTHON
    cdef Py_ssize_t k
    nsv_init(&v)
    if clean != NULL:
        st = ns_select(d, top, clean, &v)
    if st == NS_NEED_PYTHON:
        v.len = 0
        st = _ngb_select_noise(d, nm, top, &v)
    k = 0
    while st == NS_OK and k < v.len:
        st = ng_delete(d, v.data[k], True)
        if st == NS_NEED_PYTHON:
            cause[0] = NGB_JOIN
        k += 1
    nsv_free(&v)
    return st


cdef int _ngb_build(NgCtx* c, const NgbSpans* sp, Buf* text, int32_t* body, int* cause) noexcept nogil:
    "The result body: a <body> with one <p> per span of ``text``."
    cdef int32_t b, p
    cdef Py_ssize_t k
    cdef int st
    b = ng_new_element(c, NG_BODY, -1)
    if b < 0:
        return NS_ERROR
    for k in range(sp.len):
        p = ng_new_element(c, NG_P, b)
        if p < 0:
            return NS_ERROR
        st = ng_set_slot(c.d, p, False, text.data + sp.data[2 * k], sp.data[2 * k + 1], False)
        if st != NS_OK:
            if st == NS_NEED_PYTHON:
                cause[0] = NGB_SET
            return st
    body[0] = b
    return NS_OK


cdef int _ngb_add(Buf* text, Py_ssize_t* text_cps, NgbSpans* sp, Buf* t, Py_ssize_t t_cps, bint dedupe,
                  int* err) noexcept nogil:
    """_build_body's step for one text already through remove_control_characters: kept when
    not empty (and, with ``dedupe``, short, past the scan cap or not in the text so far), then
    joined with "\\n". 0, or -1 without memory."""
    if t.len == 0:
        return 0
    if dedupe and not (t_cps <= _NGB_MIN_DUPLICATE or text_cps[0] > _NGB_SCAN_CAP
                       or not _ngb_contains(text.data, text.len, t.data, t.len)):
        return 0
    if text.len > 0:
        if not buf_append(text, <const uchar*>b"\n", 1, err):
            return -1
        text_cps[0] += 1
    if _ngb_span_push(sp, text.len, t.len) < 0:
        err[0] = ERR_MEMORY
        return -1
    if not buf_append(text, t.data, t.len, err):
        return -1
    text_cps[0] += t_cps
    return 0


cdef int _ngb_baseline(NgCtx* c, const NSel* clean, int32_t root, int32_t* body, Buf* text,
                       Py_ssize_t* length, int* cause) noexcept nogil:
    "ng_baseline with the cause of a NEED_PYTHON (NGB_*)."
    cdef DocData* d = c.d
    cdef NgbNames nm
    cdef Collapse col, piece
    cdef Buf t, arts
    cdef NgbSpans sp, art
    cdef int32_t tree, i, b, p
    cdef int st = NS_OK
    cdef Py_ssize_t k, text_cps = 0, cps, max_len
    cdef double cutoff
    cdef int err = 0
    body[0] = -1
    length[0] = 0
    cause[0] = NGB_NONE
    text.len = 0
    memset(&col, 0, sizeof(Collapse))
    memset(&piece, 0, sizeof(Collapse))
    memset(&t, 0, sizeof(Buf))
    memset(&arts, 0, sizeof(Buf))
    memset(&sp, 0, sizeof(NgbSpans))
    memset(&art, 0, sizeof(NgbSpans))
    if _ngb_names(c, &nm) != NS_OK:
        return NS_ERROR
    while True:          # one pass; break with st set
        # JSON first (read off the source: the copy has the same content)
        st = _ngb_json_hooks(d, &nm, root, cause)
        if st != NS_OK:
            break
        # tree = copy_tree(tree) (its tail too), then basic_cleaning
        tree = ng_copy_subtree(d, root, True)
        if tree < 0:
            st = NS_ERROR
            break
        st = _ngb_basic_cleaning(d, &nm, clean, tree, cause)
        if st != NS_OK:
            break

        # articles: the outermost <article>s (the copy's root has no ancestor), each
        # block_text longer than 100; kept: those at least a fifth of the longest
        max_len = 0
        i = -1 if d.nodes[tree].tag == nm.article else d.nodes[tree].first
        while i >= 0:
            if d.nodes[i].tag != nm.article:
                i = dom_preorder_next(d, i, tree)
                continue
            _ngb_col_reset(&col)
            st = _ngb_block_text(d, &nm, i, &col)
            if st != NS_OK:
                if st == NS_NEED_PYTHON:
                    cause[0] = NGB_XML_TEXT
                break
            cps = ngs_code_points(col.out.data, col.out.len)
            if cps > _NGB_MIN_CONTENT:
                # two spans per article: (offset, bytes) in arts, then (code points, 0)
                if _ngb_span_push(&art, arts.len, col.out.len) < 0 or _ngb_span_push(&art, cps, 0) < 0:
                    st = NS_ERROR
                    break
                if not buf_append(&arts, col.out.data, col.out.len, &err):
                    st = NS_ERROR
                    break
                if cps > max_len:
                    max_len = cps
            i = _ngb_skip(d, i, tree)
        if st != NS_OK:
            break
        if art.len:
            cutoff = <double>max_len / 5.0
            text.len = 0
            text_cps = 0
            sp.len = 0
            k = 0
            while k < art.len:       # k: the article's first span
                if <double>art.data[2 * k + 2] >= cutoff:
                    t.len = 0
                    if not _ngb_rcc_into(&t, arts.data + art.data[2 * k], art.data[2 * k + 1], &err):
                        st = NS_ERROR
                        break
                    if _ngb_add(text, &text_cps, &sp, &t, ngs_code_points(t.data, t.len), False, &err) < 0:
                        st = NS_ERROR
                        break
                k += 2
            if st != NS_OK:
                break
            if text_cps > _NGB_MIN_CONTENT:
                st = _ngb_build(c, &sp, text, body, cause)
                length[0] = text_cps
                break

        # paragraphs: the outermost blockquote/code/p/pre/q/quote, the copy's root included
        text.len = 0
        text_cps = 0
        sp.len = 0
        i = tree
        while i >= 0:
            if not (_ngb_flags(&nm, d, i) & _NGB_SCRAPED):
                i = dom_preorder_next(d, i, tree)
                continue
            _ngb_col_reset(&col)
            st = _ngb_block_text(d, &nm, i, &col)
            if st != NS_OK:
                if st == NS_NEED_PYTHON:
                    cause[0] = NGB_XML_TEXT
                break
            t.len = 0
            if not _ngb_rcc_into(&t, col.out.data, col.out.len, &err):
                st = NS_ERROR
                break
            if _ngb_add(text, &text_cps, &sp, &t, ngs_code_points(t.data, t.len), True, &err) < 0:
                st = NS_ERROR
                break
            i = -1 if i == tree else _ngb_skip(d, i, tree)
        if st != NS_OK:
            break
        if text_cps > _NGB_MIN_CONTENT:
            st = _ngb_build(c, &sp, text, body, cause)
            length[0] = text_cps
            break

        # the JSON teasers: none here. The body's text: its itertext pieces trimmed, the empty
        # ones left out, joined with "\n", through remove_control_characters
        text.len = 0
        sp.len = 0
        b = ng_new_element(c, NG_BODY, -1)
        if b < 0:
            st = NS_ERROR
            break
        i = d.nodes[tree].first
        while i >= 0 and d.nodes[i].tag != nm.body:
            i = dom_preorder_next(d, i, tree)
        if i < 0:
            body[0] = b
            length[0] = 0
            break
        t.len = 0
        st = _ngb_itertext_trimmed(d, i, &piece, &t)
        if st != NS_OK:
            break
        if not _ngb_rcc_into(text, t.data, t.len, &err):
            st = NS_ERROR
            break
        p = ng_new_element(c, NG_P, b)
        if p < 0:
            st = NS_ERROR
            break
        st = ng_set_slot(d, p, False, text.data, text.len, False)
        if st != NS_OK:
            if st == NS_NEED_PYTHON:
                cause[0] = NGB_SET
            break
        body[0] = b
        length[0] = ngs_code_points(text.data, text.len)
        break
    if st == NS_ERROR and d.error == 0:
        d.error = ERR_MEMORY
        if col.err:
            d.error = col.err
        elif piece.err:
            d.error = piece.err
        elif err:
            d.error = err
    free(nm.flags)
    buf_free(&col.out)
    buf_free(&piece.out)
    buf_free(&t)
    buf_free(&arts)
    free(sp.data)
    free(art.data)
    if st != NS_OK:
        body[0] = -1
        length[0] = 0
    return st


cdef int _ngb_trim_piece(Collapse* piece, DocData* d, int32_t off, int32_t n, Buf* out, bint* first) noexcept nogil:
    "trim(slot) appended to ``out`` after a \"\\n\" (none before the first) when not empty."
    if off < 0 or n <= 0:
        return NS_OK
    _ngb_col_reset(piece)
    _bl_feed(piece, d.text.data + off, n)
    if piece.err:
        return NS_ERROR
    if piece.out.len == 0:
        return NS_OK
    if not first[0] and not buf_append(out, <const uchar*>b"\n", 1, &piece.err):
        return NS_ERROR
    first[0] = False
    if not buf_append(out, piece.out.data, piece.out.len, &piece.err):
        return NS_ERROR
    return NS_OK


cdef int _ngb_itertext_trimmed(DocData* d, int32_t top, Collapse* piece, Buf* out) noexcept nogil:
    """``"\\n".join(t for e in top.itertext() if (t := trim(e)))`` (top's own tail left out)."""
    cdef int32_t s = top
    cdef int st
    cdef bint first = True
    st = _ngb_trim_piece(piece, d, d.nodes[top].text_off, d.nodes[top].text_len, out, &first)
    while st == NS_OK:
        if d.nodes[s].first >= 0:
            s = d.nodes[s].first
            st = _ngb_trim_piece(piece, d, d.nodes[s].text_off, d.nodes[s].text_len, out, &first)
            continue
        while s != top:
            st = _ngb_trim_piece(piece, d, d.nodes[s].tail_off, d.nodes[s].tail_len, out, &first)
            if st != NS_OK:
                break
            if d.nodes[s].next >= 0:
                s = d.nodes[s].next
                st = _ngb_trim_piece(piece, d, d.nodes[s].text_off, d.nodes[s].text_len, out, &first)
                break
            s = d.nodes[s].parent
        if s == top:
            break
    return st


cdef int ng_baseline(NgCtx* c, int32_t root, int32_t* body, Buf* text, Py_ssize_t* length) noexcept nogil:
    """baseline.baseline(root) for a tree element (so on its copy): ``body`` the result's
    <body> (detached, same document), ``text`` its text as UTF-8 (the caller's buffer,
    overwritten), ``length`` len(text) in code points. NS_OK / NS_NEED_PYTHON / NS_ERROR; the
    source tree is left as it was in every case. basic_clean is decided by _ngb_basic_noise
    (exact; nothing to resolve)."""
    cdef int cause = 0
    return _ngb_baseline(c, NULL, root, body, text, length, &cause)


# upstream: trafilatura.baseline.baseline
cdef int ng_baseline_sel(NgCtx* c, const NSel* clean, int32_t root, int32_t* body, Buf* text,
                         Py_ssize_t* length) noexcept nogil:
    """ng_baseline with basic_clean selected by ns_select (``clean``: basic_clean_xpath resolved
    for this document by _ngb_resolve_clean, with the GIL), _ngb_basic_noise where its Matcher
    answers -1. The same results."""
    cdef int cause = 0
    return _ngb_baseline(c, clean, root, body, text, length, &cause)


cdef int _ngb_html2txt_len(NgCtx* c, const NSel* clean, int32_t root, bint do_clean, Py_ssize_t* out,
                           int* cause) noexcept nogil:
    "ng_html2txt_len with the cause of a NEED_PYTHON (NGB_*)."
    cdef DocData* d = c.d
    cdef NgbNames nm
    cdef Collapse col
    cdef int32_t top, copy
    cdef int st
    out[0] = 0
    cause[0] = NGB_NONE
    memset(&col, 0, sizeof(Collapse))
    if _ngb_names(c, &nm) != NS_OK:
        return NS_ERROR
    # the first <body> below the root, else the root itself (an element: is_elem)
    top = d.nodes[root].first
    while top >= 0 and d.nodes[top].tag != nm.body:
        top = dom_preorder_next(d, top, root)
    if top < 0:
        top = root
    copy = ng_copy_subtree(d, top, True)
    if copy < 0:
        st = NS_ERROR
    elif do_clean:
        st = _ngb_basic_cleaning(d, &nm, clean, copy, cause)
    else:
        st = NS_OK
    if st == NS_OK:
        st = _ngb_block_text(d, &nm, copy, &col)
        if st == NS_NEED_PYTHON:
            cause[0] = NGB_XML_TEXT
        elif st == NS_OK:
            out[0] = ngs_code_points(col.out.data, col.out.len)
    if st == NS_ERROR and d.error == 0:
        d.error = col.err if col.err else ERR_MEMORY
    free(nm.flags)
    buf_free(&col.out)
    return st


# upstream: trafilatura.baseline.html2txt
cdef int ng_html2txt_len(NgCtx* c, int32_t root, bint clean, Py_ssize_t* out) noexcept nogil:
    """len(baseline.html2txt(root, clean)) for a tree element ``root`` (basic_cleaning when
    ``clean``, on a copy: the tree is left as it was); basic_clean as in ng_baseline."""
    cdef int cause = 0
    return _ngb_html2txt_len(c, NULL, root, clean, out, &cause)


# upstream: trafilatura.baseline.html2txt
cdef int ng_html2txt_len_sel(NgCtx* c, const NSel* sel, int32_t root, bint clean, Py_ssize_t* out) noexcept nogil:
    "ng_html2txt_len with basic_clean selected as in ng_baseline_sel."
    cdef int cause = 0
    return _ngb_html2txt_len(c, sel, root, clean, out, &cause)


# -- with the GIL: the resolve, and the test wrappers (tests/test_core_nogil_baseline.py) --

cdef object _ngb_resolve_clean(CDocument doc, NSel* out):
    """basic_clean_xpath resolved for ``doc`` into ``out``: the (Matcher, Prefilter) to keep
    alive while ``out`` is used, or None when the predicate has no exact matcher."""
    from trafila import xpathlib
    from trafila.v2_3_1 import xpaths as X
    import trafila._core as core
    m = xpathlib.compiled_matcher(core, X._is_basic_noise)
    if m is None:
        return None
    pf = xpathlib.compiled_prefilter(core, X._is_basic_noise)
    if _ns_resolve(doc, None, m, pf, NS_ALL, out) != NS_OK:
        return None
    return (m, pf)


def nogil_baseline(CElement root not None, list why=None, bint select=True):
    """ng_baseline_sel (``select``: basic_clean by ns_select first) or ng_baseline on ``root``'s
    document: (body, text, length), or None for NEED_PYTHON (its cause, a name of NGB_CAUSES,
    appended to ``why``); MemoryError for NS_ERROR."""
    cdef CDocument doc = root.doc
    cdef NgCtx c
    cdef NSel* s
    cdef Buf text
    cdef int32_t body = -1, idx = root.idx
    cdef Py_ssize_t length = 0
    cdef int r = NS_OK, cause = NGB_NONE
    doc._check(idx)
    memset(&text, 0, sizeof(Buf))
    s = <NSel*>malloc(sizeof(NSel))
    if s == NULL:
        raise MemoryError("out of memory")
    try:
        keep = _ngb_resolve_clean(doc, s) if select else ()
        if keep is None:
            r = NS_NEED_PYTHON
            cause = NGB_NO_MATCHER
        else:
            with nogil:
                r = ng_init(&c, &doc.d)
                if r == NS_OK:
                    r = _ngb_baseline(&c, s if select else NULL, idx, &body, &text, &length, &cause)
                ng_free(&c)
        if r == NS_ERROR:
            _raise_doc_error(doc)
        if r != NS_OK:
            if why is not None:
                why.append(NGB_CAUSES[cause])
            return None
        return (_proxy(doc, body), PyUnicode_DecodeUTF8(<const char*>text.data, text.len, NULL), length)
    finally:
        buf_free(&text)
        free(s)


def nogil_html2txt_len(CElement root not None, bint clean=True, list why=None, bint select=True):
    """ng_html2txt_len_sel (``select``) or ng_html2txt_len on ``root``'s document: the length,
    or None for NEED_PYTHON (its cause appended to ``why``); MemoryError for NS_ERROR."""
    cdef CDocument doc = root.doc
    cdef NgCtx c
    cdef NSel* s
    cdef int32_t idx = root.idx
    cdef Py_ssize_t n = 0
    cdef int r = NS_OK, cause = NGB_NONE
    doc._check(idx)
    s = <NSel*>malloc(sizeof(NSel))
    if s == NULL:
        raise MemoryError("out of memory")
    try:
        keep = _ngb_resolve_clean(doc, s) if select else ()
        if keep is None:
            r = NS_NEED_PYTHON
            cause = NGB_NO_MATCHER
        else:
            with nogil:
                r = ng_init(&c, &doc.d)
                if r == NS_OK:
                    r = _ngb_html2txt_len(&c, s if select else NULL, idx, clean, &n, &cause)
                ng_free(&c)
        if r == NS_ERROR:
            _raise_doc_error(doc)
        if r != NS_OK:
            if why is not None:
                why.append(NGB_CAUSES[cause])
            return None
        return n
    finally:
        free(s)


def nogil_baseline_tables():
    """The C tables (tests): (_BLOCK_ELEMS names, scraped_tags names, _JSON_HOOKS literals, the
    length constants)."""
    cdef int k
    return (tuple(_NGB_BLOCK_NAMES[k].decode() for k in range(34)),
            tuple(_NGB_SCRAPED_NAMES[k].decode() for k in range(6)),
            tuple(_NGB_HOOKS[k].decode() for k in range(7)),
            {"min_content": _NGB_MIN_CONTENT, "min_duplicate": _NGB_MIN_DUPLICATE, "scan_cap": _NGB_SCAN_CAP})


def nogil_basic_noise(CElement el not None):
    """_ngb_basic_noise on ``el`` (tests): xpaths._is_basic_noise(el)."""
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef NgbNames nm
    cdef Buf scratch
    cdef int r
    doc._check(el.idx)
    memset(&scratch, 0, sizeof(Buf))
    memset(&nm, 0, sizeof(NgbNames))
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = _ngb_names(&c, &nm)
        if r == NS_OK:
            r = _ngb_basic_noise(&doc.d, &nm, el.idx, &scratch)
            if r < 0:
                r = NS_ERROR
            else:
                r = 10 + r
        ng_free(&c)
        free(nm.flags)
        buf_free(&scratch)
    if r < 10:
        _raise_doc_error(doc)
    return r == 11
