# jusText 3.0.2 over a core tree (trafila/justext/core.py): ParagraphMaker's
# lxml.sax event walk and the handler's state machine in one nogil pass over
# the C document, with normalize_whitespace done on the UTF-8 bytes, making
# the MadeParagraph objects of the kept paragraphs; then classify_paragraphs
# and revise_paragraph_classification as C loops over those paragraphs.

from libc.stdlib cimport calloc
from cpython.unicode cimport Py_UNICODE_ISSPACE, PyUnicode_FromKindAndData, PyUnicode_4BYTE_KIND

cdef extern from "Python.h":
    # the interpreter's own whitespace (str.split/strip/isspace and re's \s), without the GIL
    bint _jt_isspace "Py_UNICODE_ISSPACE" (Py_UCS4 ch) noexcept nogil


cdef inline Py_UCS4 _cp_at(const uchar* s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t* width) noexcept nogil:
    """The code point starting at byte ``i`` (the arenas hold valid UTF-8; a
    truncated sequence counts as one byte)."""
    cdef uchar c = s[i]
    if c < 0x80:
        width[0] = 1
        return c
    if c >= 0xF0 and i + 3 < n:
        width[0] = 4
        return ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F)
    if c >= 0xE0 and i + 2 < n:
        width[0] = 3
        return ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
    if c >= 0xC0 and i + 1 < n:
        width[0] = 2
        return ((c & 0x1F) << 6) | (s[i + 1] & 0x3F)
    width[0] = 1
    return c


# -- the ParagraphMaker walk over the node arrays ----------------------------------------
# One nogil pass: jusText's PathInfo (dom path and xpath with per-parent child
# counters) as byte buffers with an undo log, the handler's state machine, and
# each paragraph's text nodes and text as UTF-8; the Python objects are made
# after, for the paragraphs that are kept only.

cdef enum:
    JT_PARA = 1      # name in PARAGRAPH_TAGS
    JT_BR = 2
    JT_A = 4
    JT_NS = 8        # "{uri}local": the Python walk (local_name) takes it
    JT_OK = 0
    JT_FALLBACK = -1


cdef struct JtFrame:
    int32_t dom_len      # the path buffers' lengths before this element's step
    int32_t xp_len
    int32_t undo_start   # undo records of this element's own children's counters
    int32_t frame        # this element's counter frame


cdef struct JtUndo:
    int32_t nid
    int32_t val
    int32_t frame


cdef struct JtPar:
    int32_t path_off     # dom path then xpath, in JtWalk.paths
    int32_t dom_len
    int32_t xp_len
    int32_t piece_first  # into JtWalk.piece_end
    int32_t piece_count
    int32_t pieces_off   # the pieces' bytes start, in JtWalk.pieces
    int32_t text_off     # the paragraph text, in JtWalk.texts
    int32_t text_len
    int64_t text_cps
    int64_t links
    int64_t tags
    bint real


cdef struct JtWalk:
    DocData* d
    uint8_t* nflags
    int32_t n_ids
    int32_t* cnt_val
    int32_t* cnt_frame
    JtFrame* stack
    int32_t depth
    int32_t cap_stack
    JtUndo* undo
    int32_t n_undo
    int32_t cap_undo
    int32_t serial
    Buf dom
    Buf xp
    Buf paths
    Buf pieces
    Buf texts
    int32_t* piece_end
    int32_t n_pieces
    int32_t cap_pieces
    JtPar* pars
    int32_t n_pars
    int32_t cap_pars
    JtPar cur
    bint link
    bint br
    int err


cdef void _jt_free(JtWalk* w) noexcept nogil:
    free(w.nflags)
    free(w.cnt_val)
    free(w.cnt_frame)
    free(w.stack)
    free(w.undo)
    free(w.piece_end)
    free(w.pars)
    buf_free(&w.dom)
    buf_free(&w.xp)
    buf_free(&w.paths)
    buf_free(&w.pieces)
    buf_free(&w.texts)


cdef bint _jt_digits(Buf* b, int32_t v, int* err) noexcept nogil:
    cdef uchar tmp[12]
    cdef int k = 12
    if v == 0:
        k -= 1
        tmp[k] = 48
    while v > 0:
        k -= 1
        tmp[k] = <uchar>(48 + v % 10)
        v //= 10
    return buf_append(b, tmp + k, 12 - k, err)


cdef bint _jt_text_of(JtWalk* w, JtPar* p) noexcept nogil:
    """The paragraph text: normalize_whitespace("".join(pieces).strip()) into w.texts."""
    cdef const uchar* s
    cdef Py_ssize_t n, i = 0, cw = 0
    cdef Py_UCS4 cp
    cdef bint started = False, in_run = False, run_break = False
    cdef uchar* o
    cdef Py_ssize_t out = 0
    cdef int64_t cps = 0
    n = w.pieces.len - p.pieces_off
    if not buf_reserve(&w.texts, n, &w.err):
        return False
    s = w.pieces.data + p.pieces_off
    o = w.texts.data + w.texts.len
    while i < n:
        cp = _cp_at(s, n, i, &cw)
        if _jt_isspace(cp):
            if started:
                if not in_run:
                    in_run = True
                    run_break = False
                if cp == 10 or cp == 13:
                    run_break = True
            i += cw
            continue
        if in_run:
            o[out] = 10 if run_break else 32
            out += 1
            cps += 1
            in_run = False
        started = True
        memcpy(o + out, s + i, <size_t>cw)
        out += cw
        cps += 1
        i += cw
    p.text_off = <int32_t>w.texts.len
    p.text_len = <int32_t>out
    p.text_cps = cps
    w.texts.len += out
    return True


cdef bint _jt_new_paragraph(JtWalk* w) noexcept nogil:
    """_start_new_paragraph: keep the current paragraph if it has real text, open the next one."""
    cdef JtPar* p = &w.cur
    if p.real:
        if not _jt_text_of(w, p):
            return False
        if not grow_array(<void**>&w.pars, &w.cap_pars, w.n_pars + 1, sizeof(JtPar), &w.err):
            return False
        w.pars[w.n_pars] = p[0]
        w.n_pars += 1
    else:
        # dropped: its path snapshot and its pieces (only <br> spaces) are given back
        w.paths.len = p.path_off
        w.pieces.len = p.pieces_off
        w.n_pieces = p.piece_first
    p.path_off = <int32_t>w.paths.len
    p.dom_len = <int32_t>w.dom.len
    p.xp_len = <int32_t>w.xp.len
    if w.xp.len == 0:
        # PathInfo.xpath with no steps is "/"
        p.xp_len = 1
        if not buf_append(&w.paths, w.dom.data, w.dom.len, &w.err):
            return False
        if not buf_append(&w.paths, <const uchar*>b"/", 1, &w.err):
            return False
    else:
        if not buf_append(&w.paths, w.dom.data, w.dom.len, &w.err):
            return False
        if not buf_append(&w.paths, w.xp.data, w.xp.len, &w.err):
            return False
    p.piece_first = w.n_pieces
    p.piece_count = 0
    p.pieces_off = <int32_t>w.pieces.len
    p.links = 0
    p.tags = 0
    p.real = False
    return True


cdef bint _jt_piece_end(JtWalk* w) noexcept nogil:
    if not grow_array(<void**>&w.piece_end, &w.cap_pieces, w.n_pieces + 1, sizeof(int32_t), &w.err):
        return False
    w.piece_end[w.n_pieces] = <int32_t>w.pieces.len
    w.n_pieces += 1
    w.cur.piece_count += 1
    return True


cdef bint _jt_characters(JtWalk* w, const uchar* s, Py_ssize_t n) noexcept nogil:
    """The handler's characters(): a non-blank string, whitespace-normalised, is a text node."""
    cdef Py_ssize_t i = 0, cw = 0, start, out = 0
    cdef int64_t cps = 0
    cdef Py_UCS4 cp
    cdef bint blank = True, in_run = False, run_break = False
    cdef uchar* o
    if n <= 0:
        return True
    if not buf_reserve(&w.pieces, n, &w.err):
        return False
    start = w.pieces.len
    o = w.pieces.data + start
    while i < n:
        cp = _cp_at(s, n, i, &cw)
        if _jt_isspace(cp):
            if not in_run:
                in_run = True
                run_break = False
            if cp == 10 or cp == 13:
                run_break = True
        else:
            if in_run:
                o[out] = 10 if run_break else 32
                out += 1
                cps += 1
                in_run = False
            blank = False
            memcpy(o + out, s + i, <size_t>cw)
            out += cw
            cps += 1
        i += cw
    if blank:
        return True
    if in_run:
        o[out] = 10 if run_break else 32
        out += 1
        cps += 1
    w.pieces.len = start + out
    if not _jt_piece_end(w):
        return False
    w.cur.real = True
    if w.link:
        w.cur.links += cps
    w.br = False
    return True


cdef bint _jt_start(JtWalk* w, int32_t nid) noexcept nogil:
    cdef int32_t parent_frame = w.stack[w.depth - 1].frame if w.depth > 0 else 0
    cdef int32_t order
    cdef const uchar* name
    cdef Py_ssize_t name_len
    cdef uint8_t fl = w.nflags[nid]
    cdef JtFrame* f
    # the parent's counter for this name (PathInfo.append)
    if w.cnt_frame[nid] == parent_frame:
        order = w.cnt_val[nid] + 1
    else:
        if not grow_array(<void**>&w.undo, &w.cap_undo, w.n_undo + 1, sizeof(JtUndo), &w.err):
            return False
        w.undo[w.n_undo].nid = nid
        w.undo[w.n_undo].val = w.cnt_val[nid]
        w.undo[w.n_undo].frame = w.cnt_frame[nid]
        w.n_undo += 1
        w.cnt_frame[nid] = parent_frame
        order = 1
    w.cnt_val[nid] = order
    if not grow_array(<void**>&w.stack, &w.cap_stack, w.depth + 1, sizeof(JtFrame), &w.err):
        return False
    f = &w.stack[w.depth]
    f.dom_len = <int32_t>w.dom.len
    f.xp_len = <int32_t>w.xp.len
    f.undo_start = w.n_undo
    w.serial += 1
    f.frame = w.serial
    name = name_bytes(w.d, nid, &name_len)
    if w.depth > 0:
        if not buf_append(&w.dom, <const uchar*>b".", 1, &w.err):
            return False
    if not buf_append(&w.dom, name, name_len, &w.err):
        return False
    if not buf_append(&w.xp, <const uchar*>b"/", 1, &w.err):
        return False
    if not buf_append(&w.xp, name, name_len, &w.err):
        return False
    if not buf_append(&w.xp, <const uchar*>b"[", 1, &w.err):
        return False
    if not _jt_digits(&w.xp, order, &w.err):
        return False
    if not buf_append(&w.xp, <const uchar*>b"]", 1, &w.err):
        return False
    w.depth += 1
    # the handler's startElementNS
    if (fl & JT_PARA) or ((fl & JT_BR) and w.br):
        if fl & JT_BR:
            # <br><br> separates paragraphs and is not counted as a tag of one
            w.cur.tags -= 1
        return _jt_new_paragraph(w)
    w.br = (fl & JT_BR) != 0
    if w.br:
        if not buf_append(&w.pieces, <const uchar*>b" ", 1, &w.err):
            return False
        if not _jt_piece_end(w):
            return False
    elif fl & JT_A:
        w.link = True
    w.cur.tags += 1
    return True


cdef bint _jt_end(JtWalk* w, int32_t nid) noexcept nogil:
    cdef JtFrame* f
    cdef JtUndo* u
    cdef uint8_t fl = w.nflags[nid]
    w.depth -= 1
    f = &w.stack[w.depth]
    while w.n_undo > f.undo_start:
        w.n_undo -= 1
        u = &w.undo[w.n_undo]
        w.cnt_val[u.nid] = u.val
        w.cnt_frame[u.nid] = u.frame
    w.dom.len = f.dom_len
    w.xp.len = f.xp_len
    if fl & JT_PARA:
        if not _jt_new_paragraph(w):
            return False
    if fl & JT_A:
        w.link = False
    return True


cdef int _jt_walk(JtWalk* w, int32_t top) noexcept nogil:
    """lxml.sax's order from ``top``: start, text, children, end, tail (the top's tail too)."""
    cdef DocData* d = w.d
    cdef int32_t i = top, nid
    cdef Node* nd
    if not _jt_new_paragraph(w):
        return ERR_MEMORY
    while True:
        nd = &d.nodes[i]
        nid = nd.tag
        if nid < 0 or nid >= w.n_ids or (w.nflags[nid] & JT_NS):
            return JT_FALLBACK
        if not _jt_start(w, nid):
            return ERR_MEMORY
        if nd.text_off >= 0 and nd.text_len > 0:
            if not _jt_characters(w, d.text.data + nd.text_off, nd.text_len):
                return ERR_MEMORY
        if nd.first >= 0:
            i = nd.first
            continue
        while True:
            nd = &d.nodes[i]
            if not _jt_end(w, nd.tag):
                return ERR_MEMORY
            if nd.tail_off >= 0 and nd.tail_len > 0:
                if not _jt_characters(w, d.text.data + nd.tail_off, nd.tail_len):
                    return ERR_MEMORY
            if i == top:
                if not _jt_new_paragraph(w):
                    return ERR_MEMORY
                return JT_OK
            if nd.next >= 0:
                i = nd.next
                break
            i = nd.parent


cdef object _jt_run(CElement root, frozenset paragraph_tags, type cls):
    """The walk, then per kept paragraph a ``cls`` (jusText's MadeParagraph) with its
    fields or, with cls None, the parts tuple; NotImplemented for a tree the Python walk must take."""
    cdef CDocument doc = root.doc
    cdef JtWalk w
    cdef int32_t top = root.idx, k, j
    cdef int rc
    cdef JtPar* p
    cdef list out, nodes
    cdef int32_t prev
    doc._check(top)
    for name in paragraph_tags:
        if type(name) is not str:
            return NotImplemented
    memset(&w, 0, sizeof(JtWalk))
    try:
        rc = _jt_walk_root(doc, top, paragraph_tags, &w)
        if rc == JT_FALLBACK:
            return NotImplemented
        out = []
        for k in range(w.n_pars):
            p = &w.pars[k]
            nodes = []
            prev = p.pieces_off
            for j in range(p.piece_first, p.piece_first + p.piece_count):
                nodes.append(utf8_str(w.pieces.data + prev, w.piece_end[j] - prev))
                prev = w.piece_end[j]
            dom = utf8_str(w.paths.data + p.path_off, p.dom_len)
            xpath = utf8_str(w.paths.data + p.path_off + p.dom_len, p.xp_len)
            if cls is None:
                out.append((dom, xpath, nodes, p.links, p.tags))
                continue
            # MadeParagraph.from_parts's fields, without its call
            par = cls.__new__(cls)
            par.dom_path = dom
            par.xpath = xpath
            par.text_nodes = nodes
            par.chars_count_in_links = p.links
            par.tags_count = p.tags
            par.class_type = ""
            par._text = utf8_str(w.texts.data + p.text_off, p.text_len)
            out.append(par)
        return out
    finally:
        _jt_free(&w)


cdef bint _jt_walk_alloc(JtWalk* w, DocData* d) noexcept nogil:
    """The walk's per-name arrays for ``d`` (``w`` zeroed by the caller, freed by it with
    _jt_free), namespaced names flagged; False without memory."""
    cdef int32_t k
    cdef const uchar* nm
    cdef Py_ssize_t nm_len
    w.d = d
    w.n_ids = N_KNOWN + d.n_names
    w.nflags = NULL if alloc_fails() else <uint8_t*>calloc(<size_t>w.n_ids, 1)
    w.cnt_val = NULL if alloc_fails() else <int32_t*>calloc(<size_t>w.n_ids, sizeof(int32_t))
    w.cnt_frame = NULL if alloc_fails() else <int32_t*>malloc(<size_t>w.n_ids * sizeof(int32_t))
    if w.nflags == NULL or w.cnt_val == NULL or w.cnt_frame == NULL:
        return False
    for k in range(w.n_ids):
        w.cnt_frame[k] = -1
        nm = name_bytes(d, k, &nm_len)
        if nm_len > 0 and nm[0] == 123:  # "{"
            w.nflags[k] |= JT_NS
    return True


cdef int _jt_walk_root(CDocument doc, int32_t top, frozenset paragraph_tags, JtWalk* wp) except -2:
    """Set up ``wp`` (zeroed by the caller, freed by it) and run the walk of
    ``top``; JT_OK, or JT_FALLBACK for a tree the Python walk must take."""
    cdef DocData* d = &doc.d
    cdef int32_t nid
    cdef int rc
    cdef JtWalk* w = wp
    if not _jt_walk_alloc(w, d):
        raise MemoryError()
    for name in paragraph_tags:
        nid = _lookup(doc, name)
        if 0 <= nid < w.n_ids:
            w.nflags[nid] |= JT_PARA
    nid = _lookup(doc, "br")
    if 0 <= nid < w.n_ids:
        w.nflags[nid] |= JT_BR
    nid = _lookup(doc, "a")
    if 0 <= nid < w.n_ids:
        w.nflags[nid] |= JT_A
    with nogil:
        rc = _jt_walk(w, top)
    if rc == JT_FALLBACK:
        return JT_FALLBACK
    if rc != JT_OK or w.err:
        _raise_doc_error_code(w.err if w.err else ERR_MEMORY)
    return JT_OK


def justext_paragraph_parts(CElement root not None, frozenset paragraph_tags):
    """``ParagraphMaker.make_paragraphs(root)``'s paragraphs as parts, in
    order: (dom_path, xpath, text_nodes, chars_count_in_links, tags_count);
    NotImplemented when a tag is namespaced (the Python walk's local names)."""
    return _jt_run(root, paragraph_tags, None)


# upstream: justext.core.ParagraphMaker.make_paragraphs
def justext_paragraphs(CElement root not None, frozenset paragraph_tags, type cls):
    """``ParagraphMaker.make_paragraphs(root)``: per paragraph, in order, a ``cls()``
    made by ``cls.__new__`` with dom_path, xpath, text_nodes, chars_count_in_links,
    tags_count, class_type ("") and ``_text`` (jusText's paragraph text of those
    nodes) set; NotImplemented as justext_paragraph_parts."""
    return _jt_run(root, paragraph_tags, cls)


# upstream: justext.paragraph.Paragraph.stopwords_density
def stopwords_density(str text, frozenset stopwords):
    """jusText's ``Paragraph.stopwords_density``: the share of ``text.split()``'s words
    whose ``lower()`` is a stopword (0 for no words). The words and their lower case are
    str's own methods; only the generator and the sum leave Python."""
    cdef list words = text.split()
    cdef Py_ssize_t n = len(words), k = 0
    cdef object word
    if n == 0:
        return 0
    for word in words:
        if (<str>word).lower() in stopwords:
            k += 1
    # k and n are exact as doubles (< 2**53): one IEEE division is Python's int / int
    return <double>k / <double>n


def jt_paragraph_text(list text_nodes):
    """``normalize_whitespace("".join(text_nodes).strip())``, jusText's paragraph text, in
    one pass: the ends' whitespace dropped, each inner run of Python whitespace
    (Py_UNICODE_ISSPACE, which is both ``str.strip()``'s and ``re``'s ``\\s``) made "\\n"
    when it holds a "\\n" or "\\r", else " ". (Normalising first and stripping after gives
    the same string: an end run becomes one character, which the strip drops.)"""
    cdef Py_ssize_t total = 0, out_len = 0
    cdef object node
    cdef Py_UCS4 ch
    cdef Py_UCS4* buf
    cdef bint started = False, in_run = False, run_break = False
    for node in text_nodes:
        if type(node) is not str:
            raise TypeError("text nodes are str")
        total += len(<str>node)
    if total == 0:
        return ""
    buf = <Py_UCS4*>malloc(<size_t>total * sizeof(Py_UCS4))
    if buf == NULL:
        raise MemoryError()
    try:
        for node in text_nodes:
            for ch in <str>node:
                if Py_UNICODE_ISSPACE(ch):
                    if started:
                        if not in_run:
                            in_run = True
                            run_break = False
                        if ch == 10 or ch == 13:
                            run_break = True
                    continue
                if in_run:
                    buf[out_len] = 10 if run_break else 32
                    out_len += 1
                    in_run = False
                started = True
                buf[out_len] = ch
                out_len += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, out_len)
    finally:
        free(buf)


# -- classify_paragraphs and revise_paragraph_classification -----------------------------
# Over the paragraphs ParagraphMaker's C path made (exactly MadeParagraph, so
# ``text`` is ``_text`` and ``len(p)`` its length): the same decisions in C,
# the results written back as the Python loops write them. Anything else (a
# field of another type, a missing one) returns NotImplemented before any
# write and the Python loop runs (and raises where it raises).
#
# Stopwords: ``word.lower() in stoplist`` for each word of ``text.split()``.
# A word of ASCII characters has an ASCII lower case, looked up in a C table of
# the stoplist's ASCII entries (built once per stoplist object; used only when
# every entry is an exact str, so equality is plain byte equality); any other
# word is sliced, lowered and looked up by Python itself.

cdef extern from "Python.h":
    bint _jt_is_ascii "PyUnicode_IS_ASCII" (object o)

from libc.stdint cimport int8_t
from cpython.unicode cimport PyUnicode_READ, PyUnicode_Substring

cdef enum:
    JT_SHORT = 0
    JT_NEARGOOD = 1
    JT_GOOD = 2
    JT_BAD = 3
    JT_OTHER = 4
    JT_WORD_MAX = 64


cdef inline uint64_t _jt_hash(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef uint64_t h = 14695981039346656037u
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * 1099511628211u
    return h | 1


@cython.final
cdef class _JtStopTable:
    cdef uint64_t* hashes    # 0: empty slot
    cdef int32_t* offs
    cdef int32_t* lens
    cdef Buf blob
    cdef Py_ssize_t mask
    cdef bint exact          # every entry an exact str: the table can answer for ASCII words
    cdef object stoplist     # kept alive: the cache is keyed by its id

    def __dealloc__(self):
        free(self.hashes)
        free(self.offs)
        free(self.lens)
        buf_free(&self.blob)

    cdef bint contains(self, const uchar* s, Py_ssize_t n) noexcept nogil:
        cdef uint64_t h = _jt_hash(s, n)
        cdef Py_ssize_t slot = <Py_ssize_t>(h & <uint64_t>self.mask)
        while self.hashes[slot] != 0:
            if (self.hashes[slot] == h and self.lens[slot] == n
                    and memcmp(self.blob.data + self.offs[slot], s, <size_t>n) == 0):
                return True
            slot = (slot + 1) & self.mask
        return False


cdef _JtStopTable _jt_build_table(frozenset stoplist):
    cdef _JtStopTable t = _JtStopTable.__new__(_JtStopTable)
    cdef Py_ssize_t cap = 16, slot, n
    cdef const uchar* s
    cdef uint64_t h
    cdef int err = 0
    t.stoplist = stoplist
    t.exact = True
    for word in stoplist:
        if type(word) is not str:
            t.exact = False
            return t
    while cap < 2 * len(stoplist) + 2:
        cap *= 2
    t.hashes = NULL if alloc_fails() else <uint64_t*>calloc(<size_t>cap, sizeof(uint64_t))
    t.offs = NULL if alloc_fails() else <int32_t*>malloc(<size_t>cap * sizeof(int32_t))
    t.lens = NULL if alloc_fails() else <int32_t*>malloc(<size_t>cap * sizeof(int32_t))
    if t.hashes == NULL or t.offs == NULL or t.lens == NULL:
        raise MemoryError()
    t.mask = cap - 1
    for word in stoplist:
        if not _jt_is_ascii(word):
            continue
        s = <const uchar*>PyUnicode_DATA(word)
        n = PyUnicode_GET_LENGTH(word)
        if n > JT_WORD_MAX:
            continue  # longer words go to Python anyway
        h = _jt_hash(s, n)
        slot = <Py_ssize_t>(h & <uint64_t>t.mask)
        while t.hashes[slot] != 0:
            slot = (slot + 1) & t.mask
        t.hashes[slot] = h
        t.offs[slot] = <int32_t>t.blob.len
        t.lens[slot] = <int32_t>n
        if not buf_append(&t.blob, s, n, &err):
            _raise_doc_error_code(err)
    return t


cdef dict _JT_TABLES = {}


cdef _JtStopTable _jt_table(frozenset stoplist):
    cdef _JtStopTable t = _JT_TABLES.get(id(stoplist))
    if t is not None and t.stoplist is stoplist:
        return t
    t = _jt_build_table(stoplist)
    if len(_JT_TABLES) >= 16:
        _JT_TABLES.clear()
    _JT_TABLES[id(stoplist)] = t
    return t


cdef object _jt_density(str text, _JtStopTable tab, frozenset stoplist):
    """Paragraph.stopwords_density: 0 for no words, else stopwords / words (a float)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i = 0, start, wl, k, words = 0, stops = 0
    cdef Py_UCS4 ch
    cdef bint ascii
    cdef uchar low[JT_WORD_MAX]
    while True:
        while i < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
            i += 1
        if i >= n:
            break
        start = i
        ascii = True
        while i < n:
            ch = PyUnicode_READ(kind, data, i)
            if Py_UNICODE_ISSPACE(ch):
                break
            if ch >= 128:
                ascii = False
            i += 1
        words += 1
        wl = i - start
        if ascii and tab.exact and wl <= JT_WORD_MAX:
            for k in range(wl):
                low[k] = _ascii_lower(<uchar>PyUnicode_READ(kind, data, start + k))
            if tab.contains(low, wl):
                stops += 1
        elif PyUnicode_Substring(text, start, i).lower() in stoplist:
            stops += 1
    if words == 0:
        return 0
    # exact as doubles (< 2**53): one IEEE division is Python's int / int
    return <double>stops / <double>words


def stopwords_density_table(str text, frozenset stopwords):
    """The classifier's stopwords_density (the C table path), for the tests."""
    return _jt_density(text, _jt_table(stopwords), stopwords)


cdef inline bint _jt_exact_num(object x):
    # a float, or an int a double holds exactly: comparisons in C are Python's
    if type(x) is float:
        return True
    if type(x) is int or type(x) is bool:
        return -9007199254740992 <= x <= 9007199254740992
    return False


# upstream: justext.core.classify_paragraphs
def jt_classify(list paragraphs, frozenset stoplist, type made, object heading_search, object length_low,
                object length_high, object stopwords_low, object stopwords_high, object max_link_density,
                object no_headings):
    """classify_paragraphs over MadeParagraph objects; NotImplemented (nothing written)
    when some paragraph or parameter is not what the C loop handles."""
    cdef Py_ssize_t n = len(paragraphs), i, length
    cdef int c
    cdef list texts = [], doms = [], results
    cdef int64_t* links
    cdef double low, high, swl, swh, mld
    cdef str text, dom
    cdef object lk, density
    cdef _JtStopTable tab
    for x in (length_low, length_high, stopwords_low, stopwords_high, max_link_density):
        if not _jt_exact_num(x):
            return NotImplemented
    if type(no_headings) is not bool:
        return NotImplemented
    low, high, swl, swh, mld = length_low, length_high, stopwords_low, stopwords_high, max_link_density
    links = <int64_t*>malloc(<size_t>(n + 1) * sizeof(int64_t)) if not alloc_fails() else NULL
    if links == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            p = paragraphs[i]
            if type(p) is not made:
                return NotImplemented
            try:
                text = p._text
                dom = p.dom_path
                lk = p.chars_count_in_links
            except (AttributeError, TypeError):
                return NotImplemented
            if type(text) is not str or type(dom) is not str or type(lk) is not int:
                return NotImplemented
            if not (-9007199254740992 <= lk <= 9007199254740992):
                return NotImplemented
            links[i] = lk
            texts.append(text)
            doms.append(dom)
        tab = _jt_table(stoplist)
        results = []
        for i in range(n):
            text = texts[i]
            dom = doms[i]
            length = len(text)
            c = _jt_cf_code(links[i], length, "\xa9" in text or "&copy" in text, "select" in dom, low, mld)
            if c == JT_OTHER:
                density = _jt_density(text, tab, stoplist)
                c = _jt_density_code(density, length, high, swl, swh)
            cls = ("short", "neargood", "good", "bad")[c]
            heading = False if no_headings else bool(heading_search(dom))
            results.append((heading, cls))
        for i in range(n):
            p = paragraphs[i]
            p.heading, p.cf_class = results[i]
        return None
    finally:
        free(links)


cdef inline int _jt_code(object c):
    if type(c) is not str:
        return -1
    if c == "short":
        return JT_SHORT
    if c == "neargood":
        return JT_NEARGOOD
    if c == "good":
        return JT_GOOD
    if c == "bad":
        return JT_BAD
    return JT_OTHER


cdef inline int _jt_neighbour(const int8_t* cur, Py_ssize_t n, Py_ssize_t i, bint ignore_neargood,
                              int inc) noexcept nogil:
    cdef int c
    cdef Py_ssize_t boundary = -1 if inc < 0 else n
    while i + inc != boundary:
        i += inc
        c = cur[i]
        if c == JT_GOOD or c == JT_BAD:
            return c
        if c == JT_NEARGOOD and not ignore_neargood:
            return c
    return JT_BAD


cdef inline bint _jt_good_within(const int8_t* cur, const int64_t* lens, Py_ssize_t n, Py_ssize_t i,
                                 double max_distance) noexcept nogil:
    cdef Py_ssize_t j = i + 1
    cdef int64_t distance = 0
    while j < n and <double>distance <= max_distance:
        if cur[j] == JT_GOOD:
            return True
        distance += lens[j]
        j += 1
    return False


cdef void _jt_revise_codes(int8_t* cur, const int8_t* cf, const int8_t* head, int8_t* new, const int64_t* lens,
                           Py_ssize_t n, double mhd) noexcept nogil:
    """revise_paragraph_classification on class codes: ``cf`` the context-free classes,
    ``head`` the heading flags, ``lens`` the lengths, ``cur`` the class_type codes before
    (pass one's look-ahead reads them) and after; ``new`` scratch of ``n``."""
    cdef Py_ssize_t i
    cdef int prev_n, next_n
    # good headings
    for i in range(n):
        cur[i] = cf[i]
        if head[i] and cur[i] == JT_SHORT and _jt_good_within(cur, lens, n, i, mhd):
            cur[i] = JT_NEARGOOD
    # short paragraphs from their neighbours, applied after
    for i in range(n):
        new[i] = -1
        if cur[i] != JT_SHORT:
            continue
        prev_n = _jt_neighbour(cur, n, i, True, -1)
        next_n = _jt_neighbour(cur, n, i, True, 1)
        if prev_n == JT_GOOD and next_n == JT_GOOD:
            new[i] = JT_GOOD
        elif prev_n == JT_BAD and next_n == JT_BAD:
            new[i] = JT_BAD
        elif ((prev_n == JT_BAD and _jt_neighbour(cur, n, i, False, -1) == JT_NEARGOOD)
              or (next_n == JT_BAD and _jt_neighbour(cur, n, i, False, 1) == JT_NEARGOOD)):
            new[i] = JT_GOOD
        else:
            new[i] = JT_BAD
    for i in range(n):
        if new[i] >= 0:
            cur[i] = new[i]
    # neargood, in place and in order
    for i in range(n):
        if cur[i] != JT_NEARGOOD:
            continue
        prev_n = _jt_neighbour(cur, n, i, True, -1)
        next_n = _jt_neighbour(cur, n, i, True, 1)
        cur[i] = JT_BAD if (prev_n == JT_BAD and next_n == JT_BAD) else JT_GOOD
    # more good headings
    for i in range(n):
        if head[i] and cur[i] == JT_BAD and cf[i] != JT_BAD and _jt_good_within(cur, lens, n, i, mhd):
            cur[i] = JT_GOOD


cdef inline int _jt_cf_code(int64_t links, int64_t length, bint copyright, bint select, double low,
                            double mld) noexcept nogil:
    """classify_paragraphs' tests before the stopword density: the class code, or JT_OTHER
    when the density decides (then _jt_density_code)."""
    cdef double ld = (<double>links / <double>length) if length else 0.0
    if ld > mld:
        return JT_BAD
    if copyright or select:
        return JT_BAD
    if length < low:
        return JT_BAD if links > 0 else JT_SHORT
    return JT_OTHER


cdef inline int _jt_density_code(double dens, int64_t length, double high, double swl, double swh) noexcept nogil:
    if dens >= swh:
        return JT_GOOD if length > high else JT_NEARGOOD
    if dens >= swl:
        return JT_NEARGOOD
    return JT_BAD


# upstream: justext.core.revise_paragraph_classification
def jt_revise(list paragraphs, type made, object max_heading_distance):
    """revise_paragraph_classification over MadeParagraph objects; NotImplemented
    (nothing written) as jt_classify."""
    cdef Py_ssize_t n = len(paragraphs), i
    cdef int8_t* cur
    cdef int8_t* cf
    cdef int8_t* head
    cdef int8_t* new
    cdef int64_t* lens
    cdef int c
    cdef double mhd
    cdef str text
    if not _jt_exact_num(max_heading_distance):
        return NotImplemented
    mhd = max_heading_distance
    cur = <int8_t*>malloc(<size_t>(n + 1) * 4) if not alloc_fails() else NULL
    lens = <int64_t*>malloc(<size_t>(n + 1) * sizeof(int64_t)) if not alloc_fails() else NULL
    if cur == NULL or lens == NULL:
        free(cur)
        free(lens)
        raise MemoryError()
    cf = cur + (n + 1)
    head = cf + (n + 1)
    new = head + (n + 1)
    try:
        for i in range(n):
            p = paragraphs[i]
            if type(p) is not made:
                return NotImplemented
            try:
                text = p._text
                c = _jt_code(p.cf_class)
                if c < 0 or c == JT_OTHER:
                    return NotImplemented
                cf[i] = c
                hd = p.heading
                c = _jt_code(p.class_type)  # the old class: pass one's look-ahead sees it
                if c < 0:
                    return NotImplemented
                cur[i] = c
            except (AttributeError, TypeError):
                return NotImplemented
            if type(hd) is not bool:
                return NotImplemented
            head[i] = hd is True
            lens[i] = len(text)
        with nogil:
            _jt_revise_codes(cur, cf, head, new, lens, n, mhd)
        for i in range(n):
            c = cur[i]
            paragraphs[i].class_type = ("short", "neargood", "good", "bad")[c]
        return None
    finally:
        free(cur)
        free(lens)


# -- try_justext's jusText run in one call ------------------------------------------------------------
# make_paragraphs, classify_paragraphs and revise_paragraph_classification
# over the walk's paragraph records, without the MadeParagraph objects: per
# paragraph only its text as a str (its length, the copyright and stopword
# tests need it) and, when headings count, its dom path for the caller's
# HEADINGS_PATTERN.search; the classes are int8 codes as in jt_revise. A
# fresh paragraph's class_type is "" (JT_OTHER), which revise's first pass
# sees ahead of the paragraph it is at, as the Python loop does.

cdef inline bint _jt_has_select(const uchar* s, Py_ssize_t n) noexcept nogil:
    """``"select" in dom_path`` on its UTF-8 bytes (a substring of the bytes is one of the str)."""
    cdef Py_ssize_t i
    for i in range(n - 5):
        if (s[i] == 115 and s[i + 1] == 101 and s[i + 2] == 108 and s[i + 3] == 101
                and s[i + 4] == 99 and s[i + 5] == 116):
            return True
    return False


def justext_good_texts(CElement root not None, frozenset paragraph_tags, frozenset stoplist, object heading_search,
                       object length_low, object length_high, object stopwords_low, object stopwords_high,
                       object max_link_density, object no_headings, object max_heading_distance):
    """The texts of the paragraphs that ``ParagraphMaker.make_paragraphs(root)``,
    ``classify_paragraphs(paragraphs, stoplist, length_low, length_high,
    stopwords_low, stopwords_high, max_link_density, no_headings)`` (``stoplist``
    already through define_stoplist) and ``revise_paragraph_classification(paragraphs,
    max_heading_distance)`` leave "good" (not is_boilerplate), in order.
    NotImplemented (nothing done) where justext_paragraphs, jt_classify or
    jt_revise would give NotImplemented."""
    cdef CDocument doc = root.doc
    cdef JtWalk w
    cdef JtPar* p
    cdef int rc, c
    cdef Py_ssize_t n, i, length
    cdef int8_t* cur = NULL
    cdef int8_t* cf
    cdef int8_t* head
    cdef int8_t* new
    cdef int64_t* lens = NULL
    cdef double low, high, swl, swh, mld, mhd
    cdef list texts = []
    cdef list good = []
    cdef str text
    cdef _JtStopTable tab
    cdef bint headings
    doc._check(root.idx)
    for x in (length_low, length_high, stopwords_low, stopwords_high, max_link_density, max_heading_distance):
        if not _jt_exact_num(x):
            return NotImplemented
    if type(no_headings) is not bool:
        return NotImplemented
    for name in paragraph_tags:
        if type(name) is not str:
            return NotImplemented
    low, high, swl, swh, mld = length_low, length_high, stopwords_low, stopwords_high, max_link_density
    mhd = max_heading_distance
    headings = no_headings is False
    memset(&w, 0, sizeof(JtWalk))
    try:
        rc = _jt_walk_root(doc, root.idx, paragraph_tags, &w)
        if rc == JT_FALLBACK:
            return NotImplemented
        n = w.n_pars
        cur = <int8_t*>malloc(<size_t>(n + 1) * 4) if not alloc_fails() else NULL
        lens = <int64_t*>malloc(<size_t>(n + 1) * sizeof(int64_t)) if not alloc_fails() else NULL
        if cur == NULL or lens == NULL:
            raise MemoryError()
        cf = cur + (n + 1)
        head = cf + (n + 1)
        new = head + (n + 1)
        tab = _jt_table(stoplist)
        # classify_paragraphs
        for i in range(n):
            p = &w.pars[i]
            text = utf8_str(w.texts.data + p.text_off, p.text_len)
            texts.append(text)
            length = len(text)
            lens[i] = length
            if p.links > 9007199254740992 or p.links < 0:
                return NotImplemented
            c = _jt_cf_code(p.links, length, "\xa9" in text or "&copy" in text,
                            _jt_has_select(w.paths.data + p.path_off, p.dom_len), low, mld)
            if c == JT_OTHER:
                density = _jt_density(text, tab, stoplist)
                c = _jt_density_code(density, length, high, swl, swh)
            cf[i] = c
            head[i] = bool(heading_search(utf8_str(w.paths.data + p.path_off, p.dom_len))) if headings else False
            cur[i] = JT_OTHER  # class_type "" before the revision
        with nogil:
            _jt_revise_codes(cur, cf, head, new, lens, n, mhd)
        for i in range(n):
            if cur[i] == JT_GOOD:
                good.append(texts[i])
        return good
    finally:
        free(cur)
        free(lens)
        _jt_free(&w)
