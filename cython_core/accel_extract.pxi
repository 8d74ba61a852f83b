# Accelerators for 2.3.1's main extractor (trafila/v2_3_1/main_extractor.py
# and htmlprocessing.py's handle_textnode / process_node) on the core's trees.
# Each gives exactly what the reference code gives on the same tree;
# tests/test_core_accel_extract.py runs both on copies of the same subtrees.
#
# trim(s) is ``" ".join(s.split()).strip()`` ('' for None): computed on the
# UTF-8 slices of the text arena with the whitespace set of
# accel_readability.pxi (_ascii_space, _ws_len). A trimmed slot that needs
# no inner change points into the old slice (the arena is append-only);
# otherwise the collapsed bytes are appended to the arena.
#
# lxml's setters refuse some characters (xmlchars.xml_text): whenever a value
# the reference would write fails that check, the accelerator changes nothing
# and returns NotImplemented, and the caller runs the reference code (which
# raises where it raises).

from libc.string cimport strlen

cdef extern from "Python.h":
    bint _ex_isalnum "Py_UNICODE_ISALNUM"(Py_UCS4 ch) nogil


cdef struct Slot:
    int32_t off      # -1: None
    int32_t len


cdef inline Slot _slot_of(DocData* d, int32_t i, bint tail) noexcept nogil:
    cdef Slot s
    if tail:
        s.off = d.nodes[i].tail_off
        s.len = d.nodes[i].tail_len
    else:
        s.off = d.nodes[i].text_off
        s.len = d.nodes[i].text_len
    if s.off < 0:
        s.len = 0
    return s


cdef inline void _put_slot(DocData* d, int32_t i, bint tail, Slot s) noexcept nogil:
    if tail:
        d.nodes[i].tail_off = s.off
        d.nodes[i].tail_len = s.len if s.off >= 0 else 0
    else:
        d.nodes[i].text_off = s.off
        d.nodes[i].text_len = s.len if s.off >= 0 else 0


cdef inline bint _slot_truthy(Slot s) noexcept nogil:
    return s.off >= 0 and s.len > 0


cdef inline int _space_at(const uchar* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """The byte length of the whitespace character at s[i], 0 when it is none."""
    cdef uchar c = s[i]
    if c < 0x80:
        return 1 if _ascii_space(c) else 0
    return _ws_len(s, i, n)


cdef int _trim_slot(DocData* d, Slot src, Slot* out) noexcept nogil:
    """``trim(value) or None`` of the slot into ``*out``: 1 done, -1 out of memory."""
    cdef const uchar* s
    cdef Py_ssize_t n = src.len, i, start, end, k, w, j
    cdef bint simple = True, pending
    cdef uchar* o
    out.off = -1
    out.len = 0
    if src.off < 0 or n == 0:
        return 1
    s = d.text.data + src.off
    # first and last non-whitespace characters
    start = 0
    while start < n:
        w = _space_at(s, start, n)
        if w == 0:
            break
        start += w
    if start >= n:
        return 1
    end = start
    i = start
    while i < n:
        w = _space_at(s, i, n)
        if w == 0:
            i += 1
            end = i
            continue
        # a whitespace run inside: simple when it is one ASCII space followed by a non-space
        j = i + w
        if not (w == 1 and s[i] == 32):
            simple = False
        while j < n:
            k = _space_at(s, j, n)
            if k == 0:
                break
            simple = False
            j += k
        if j >= n:
            break  # trailing whitespace
        i = j
    if simple:
        out.off = src.off + <int32_t>start
        out.len = <int32_t>(end - start)
        return 1
    # collapse into the arena (reserved first: the data may move)
    if not buf_reserve(&d.text, end - start, &d.error):
        return -1
    s = d.text.data + src.off
    o = d.text.data + d.text.len
    k = 0
    pending = False
    i = start
    while i < end:
        w = _space_at(s, i, end)
        if w:
            pending = True
            i += w
            continue
        if pending:
            o[k] = 32
            k += 1
            pending = False
        o[k] = s[i]
        k += 1
        i += 1
    out.off = <int32_t>d.text.len
    out.len = <int32_t>k
    d.text.len += k
    return 1


cdef inline bint _slot_ok(DocData* d, Slot s) noexcept nogil:
    return s.off < 0 or _utf8_xml_ok(d.text.data + s.off, s.len)


cdef inline Py_ssize_t _utf8_step(const uchar* s, Py_ssize_t i, Py_ssize_t n, Py_UCS4* cp) noexcept nogil:
    """The code point at s[i] (valid UTF-8 assumed, truncation guarded) and its byte length."""
    cdef uchar c = s[i]
    if c < 0x80:
        cp[0] = c
        return 1
    if c < 0xE0 and i + 1 < n:
        cp[0] = ((c & 0x1F) << 6) | (s[i + 1] & 0x3F)
        return 2
    if c < 0xF0 and i + 2 < n:
        cp[0] = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
        return 3
    if i + 3 < n:
        cp[0] = ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F)
        return 4
    cp[0] = 0xFFFD
    return 1


cdef bint _filter_candidate(const uchar* s, Py_ssize_t n) noexcept nogil:
    """Whether RE_FILTER (``\\W*(Drucken|...|More on this.{,8}$)$``, re.I) can
    match the one-line string s: its alternatives start with a letter and
    match at most 20 code points to the end, so everything before the first
    word character (\\w: str.isalnum() or '_') is the \\W* run and what
    follows it is 2 to 20 code points long."""
    cdef Py_ssize_t i = 0, w, rest = 0
    cdef Py_UCS4 cp
    cdef bint found = False
    while i < n:
        w = _utf8_step(s, i, n, &cp)
        if not found:
            if cp == 95 or _ex_isalnum(cp):
                found = True
                rest = 1
        else:
            rest += 1
            if rest > 20:
                return False
        i += w
    return found and rest >= 2


cdef inline int32_t _name_id(DocData* d, const char* name) noexcept nogil:
    return dom_lookup_name(d, <const uchar*>name, <Py_ssize_t>strlen(name))


cdef inline bint _is_tag(DocData* d, int32_t i, int32_t nid) noexcept nogil:
    return nid >= 0 and d.nodes[i].tag == nid


cdef bint _textfilter_match(CDocument doc, Slot t, object filter_match) except -1:
    """``any(map(RE_FILTER.match, t.splitlines()))`` for a trimmed, non-empty
    value (one line: every line break is whitespace)."""
    if not _filter_candidate(doc.d.text.data + t.off, t.len):
        return False
    return filter_match(slice_str(&doc.d.text, t.off, t.len)) is not None


def extract_process_node(CElement el, filter_match):
    """2.3.1's htmlprocessing.process_node without deduplication on a core
    element: the element or None, as the reference gives; NotImplemented
    (nothing changed) when a value to write holds a character lxml refuses."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t i = el.idx
    cdef Slot text, tail, t, tl
    cdef int r
    doc._check(i)
    if _is_tag(d, i, _name_id(d, "done")):
        return None
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    if d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail):
        return None
    r = _trim_slot(d, text, &t)
    if r > 0:
        r = _trim_slot(d, tail, &tl)
    if r < 0:
        _raise_doc_error(doc)
    if not _slot_ok(d, t) or not _slot_ok(d, tl):
        return NotImplemented
    _put_slot(d, i, False, t)
    _put_slot(d, i, True, tl)
    if not _is_tag(d, i, _name_id(d, "lb")) and t.off < 0 and tl.off >= 0 and d.nodes[i].first < 0:
        _put_slot(d, i, False, tl)
        tl.off = -1
        tl.len = 0
        _put_slot(d, i, True, tl)
        t = _slot_of(d, i, False)
    if t.off >= 0 or tl.off >= 0:
        # textfilter: the text, or the tail when there is no text (both trimmed: non-empty)
        if _textfilter_match(doc, t if t.off >= 0 else tl, filter_match):
            return None
    return el


cdef bint _separates_inline(DocData* d, int32_t i) noexcept nogil:
    "xml.separates_inline: an lb followed by an inline (carried) element."
    cdef int32_t nxt, tag
    if not _is_tag(d, i, _name_id(d, "lb")):
        return False
    nxt = d.nodes[i].next
    if nxt < 0:
        return False
    tag = d.nodes[nxt].tag
    return (_is_tag(d, nxt, _name_id(d, "hi")) or _is_tag(d, nxt, _name_id(d, "ref"))
            or _is_tag(d, nxt, _name_id(d, "del")) or _is_tag(d, nxt, _name_id(d, "code"))
            or _is_tag(d, nxt, _name_id(d, "graphic")))


def extract_handle_textnode(CElement el, bint comments_fix, bint preserve_spaces, textfilter):
    """2.3.1's htmlprocessing.handle_textnode without deduplication on a core
    element that is no <graphic>: the element or None; NotImplemented
    (nothing changed) for a <graphic> and when a value to write holds a
    character lxml refuses. ``textfilter`` is the reference function, called
    (as the reference does) when the element is left without text."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t i = el.idx
    cdef Slot text, tail, t, tl
    cdef bint is_lb
    cdef int r = 1
    doc._check(i)
    if _is_tag(d, i, _name_id(d, "graphic")):
        return NotImplemented
    if _is_tag(d, i, _name_id(d, "done")):
        return None
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    is_lb = _is_tag(d, i, _name_id(d, "lb"))
    if (d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail)
            and (comments_fix or not _separates_inline(d, i))):
        return None
    if not comments_fix and is_lb:
        if not preserve_spaces:
            if _trim_slot(d, tail, &tl) < 0:
                _raise_doc_error(doc)
            if not _slot_ok(d, tl):
                return NotImplemented
            _put_slot(d, i, True, tl)
        return el
    if not _slot_truthy(text) and d.nodes[i].first < 0:
        # elem.text, elem.tail = xml_text(elem.tail), "", then the text trimmed (the tail '' stays)
        if not _slot_ok(d, tail):
            return NotImplemented
        t = tail
        if not preserve_spaces:
            if _trim_slot(d, tail, &t) < 0:
                _raise_doc_error(doc)
        _put_slot(d, i, False, t)
        if not dom_set_slot(d, i, True, NULL, 0, False):
            _raise_doc_error(doc)
        if comments_fix and is_lb:
            d.nodes[i].tag = _intern(doc, "p")
    elif not preserve_spaces:
        tl = tail
        r = _trim_slot(d, text, &t)
        if r > 0 and _slot_truthy(tail):
            r = _trim_slot(d, tail, &tl)
        if r < 0:
            _raise_doc_error(doc)
        if not _slot_ok(d, t) or not _slot_ok(d, tl):
            return NotImplemented
        _put_slot(d, i, False, t)
        _put_slot(d, i, True, tl)
    t = _slot_of(d, i, False)
    if not _slot_truthy(t):
        if textfilter(el):
            return None
    return el


# -- text of a subtree (main_extractor._elem_text, is_text_element) ---------------------

cdef struct ExCollapse:
    uchar* out       # NULL: only count
    Py_ssize_t len   # bytes written (or that would be)
    bint pending     # a whitespace run since the last word character
    bint started     # a word character was seen


cdef inline void _ex_collapse_feed(ExCollapse* c, const uchar* s, Py_ssize_t n) noexcept nogil:
    """Feed s[:n] to ``" ".join(text.split())`` of the concatenation."""
    cdef Py_ssize_t i = 0, w
    while i < n:
        w = _space_at(s, i, n)
        if w:
            c.pending = True
            i += w
            continue
        if c.pending and c.started:
            if c.out != NULL:
                c.out[c.len] = 32
            c.len += 1
        c.pending = False
        c.started = True
        if c.out != NULL:
            c.out[c.len] = s[i]
        c.len += 1
        i += 1


cdef void _ex_collapse_subtree(DocData* d, int32_t top, ExCollapse* c) noexcept nogil:
    """``"".join(el.itertext())`` (text of top, then each descendant's text and
    tail in document order; not top's tail) fed to the collapse."""
    cdef int32_t s = top
    cdef Node* nd
    if d.nodes[top].text_off >= 0:
        _ex_collapse_feed(c, d.text.data + d.nodes[top].text_off, d.nodes[top].text_len)
    while True:
        if d.nodes[s].first >= 0:
            s = d.nodes[s].first
            nd = &d.nodes[s]
            if nd.text_off >= 0:
                _ex_collapse_feed(c, d.text.data + nd.text_off, nd.text_len)
            continue
        while True:
            if s == top:
                return
            nd = &d.nodes[s]
            if nd.tail_off >= 0:
                _ex_collapse_feed(c, d.text.data + nd.tail_off, nd.tail_len)
            if nd.next >= 0:
                s = nd.next
                nd = &d.nodes[s]
                if nd.text_off >= 0:
                    _ex_collapse_feed(c, d.text.data + nd.text_off, nd.text_len)
                break
            s = nd.parent


def extract_elem_text(CElement el):
    """main_extractor._elem_text: ``trim("".join(el.itertext()))``."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef ExCollapse c
    cdef object res
    doc._check(el.idx)
    c.out = NULL
    c.len = 0
    c.pending = False
    c.started = False
    _ex_collapse_subtree(d, el.idx, &c)
    if c.len == 0:
        return ""
    c.out = NULL if alloc_fails() else <uchar*>malloc(<size_t>c.len)
    if c.out == NULL:
        raise MemoryError("out of memory")
    c.len = 0
    c.pending = False
    c.started = False
    _ex_collapse_subtree(d, el.idx, &c)
    try:
        res = utf8_str(c.out, c.len)
    finally:
        free(c.out)
    return res


def extract_has_text(CElement el):
    """main_extractor.is_text_element on an element: a non-whitespace
    character in ``"".join(el.itertext())``."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef ExCollapse c
    doc._check(el.idx)
    c.out = NULL
    c.len = 0
    c.pending = False
    c.started = False
    _ex_collapse_subtree(d, el.idx, &c)
    return c.started


def extract_root_is(CElement el, CElement root):
    """``root_of(el) is root``: the topmost ancestor of ``el`` is ``root``."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t i = el.idx
    if root.doc is not doc:
        return False
    doc._check(i)
    while d.nodes[i].parent >= 0:
        i = d.nodes[i].parent
    return i == root.idx
