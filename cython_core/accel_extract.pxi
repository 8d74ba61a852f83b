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


cdef inline int32_t _name_id(DocData* d, const char* name) noexcept nogil:
    return dom_lookup_name(d, <const uchar*>name, <Py_ssize_t>strlen(name))


cdef inline bint _is_tag(DocData* d, int32_t i, int32_t nid) noexcept nogil:
    return nid >= 0 and d.nodes[i].tag == nid


cdef inline bint _ex_textfilter(DocData* d, int32_t i) noexcept nogil:
    """text.textfilter(element) on node ``i`` as it stands: nogil_text.pxi's exact twin over
    the text and tail slots (the arena is valid UTF-8: what slice_str would decode)."""
    cdef Slot t = _slot_of(d, i, False)
    cdef Slot tl = _slot_of(d, i, True)
    return textfilter_utf8(d.text.data + (t.off if t.off >= 0 else 0), t.len, t.off < 0,
                           d.text.data + (tl.off if tl.off >= 0 else 0), tl.len, tl.off < 0) == 1


cdef int _ex_process_node(CDocument doc, int32_t i) except -1:
    """process_node without deduplication on node ``i``: 1 the node is
    returned, 0 None, 2 NotImplemented (nothing changed)."""
    cdef DocData* d = &doc.d
    cdef Slot text, tail, t, tl
    cdef int r
    if _is_tag(d, i, _name_id(d, "done")):
        return 0
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    if d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail):
        return 0
    r = _trim_slot(d, text, &t)
    if r > 0:
        r = _trim_slot(d, tail, &tl)
    if r < 0:
        _raise_doc_error(doc)
    if not _slot_ok(d, t) or not _slot_ok(d, tl):
        return 2
    _put_slot(d, i, False, t)
    _put_slot(d, i, True, tl)
    if not _is_tag(d, i, _name_id(d, "lb")) and t.off < 0 and tl.off >= 0 and d.nodes[i].first < 0:
        _put_slot(d, i, False, tl)
        tl.off = -1
        tl.len = 0
        _put_slot(d, i, True, tl)
        t = _slot_of(d, i, False)
    if (t.off >= 0 or tl.off >= 0) and _ex_textfilter(d, i):
        return 0
    return 1


# upstream: trafilatura.htmlprocessing.process_node
def extract_process_node(CElement el not None, filter_match):
    """2.3.1's htmlprocessing.process_node without deduplication on a core
    element: the element or None, as the reference gives; NotImplemented
    (nothing changed) when a value to write holds a character lxml refuses.
    ``filter_match`` is RE_FILTER.match, taken for the callers' sake: the
    filter is nogil_text.pxi's exact twin."""
    cdef CDocument doc = el.doc
    cdef int r
    doc._check(el.idx)
    r = _ex_process_node(doc, el.idx)
    if r == 2:
        return NotImplemented
    return el if r == 1 else None


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


# upstream: trafilatura.htmlprocessing.handle_textnode
def extract_handle_textnode(CElement el not None, bint comments_fix, bint preserve_spaces, textfilter):
    """2.3.1's htmlprocessing.handle_textnode without deduplication on a core
    element that is no <graphic>: the element or None; NotImplemented
    (nothing changed) for a <graphic> and when a value to write holds a
    character lxml refuses. ``textfilter`` (text.textfilter) is not called:
    its exact twin decides when the element is left without text."""
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
    if not _slot_truthy(t) and _ex_textfilter(d, i):
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
    cdef Py_ssize_t i = 0, w, j
    while i < n:
        if 0x20 < s[i] < 0x80:
            # a run of ASCII word characters (no ASCII whitespace is above 0x20) in one copy
            j = i + 1
            while j < n and 0x20 < s[j] < 0x80:
                j += 1
            if c.pending and c.started:
                if c.out != NULL:
                    c.out[c.len] = 32
                c.len += 1
            c.pending = False
            c.started = True
            if c.out != NULL:
                memcpy(c.out + c.len, s + i, <size_t>(j - i))
            c.len += j - i
            i = j
            continue
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


cdef int _ex_collapse_piece(void* c, const uchar* s, int32_t n) noexcept nogil:
    _ex_collapse_feed(<ExCollapse*>c, s, n)
    return NS_OK


cdef void _ex_collapse_subtree(DocData* d, int32_t top, ExCollapse* c) noexcept nogil:
    """``"".join(el.itertext())`` (text of top, then each descendant's text and
    tail in document order; not top's tail) fed to the collapse."""
    ng_itertext_pieces(d, top, _ex_collapse_piece, c)


# upstream: trafilatura.main_extractor._elem_text
def extract_elem_text(CElement el not None):
    """main_extractor._elem_text: ``trim("".join(el.itertext()))`` (ng_elem_text)."""
    cdef CDocument doc = el.doc
    cdef NgStr out
    cdef int r
    doc._check(el.idx)
    ngs_init(&out)
    r = ng_elem_text(&doc.d, el.idx, &out)
    try:
        if r != NS_OK:
            raise MemoryError("out of memory")
        return utf8_str(out.p, out.n) if out.n else ""
    finally:
        ngs_free(&out)


# upstream: trafilatura.main_extractor.is_text_element
def extract_has_text(CElement el not None):
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


def extract_root_is(CElement el not None, CElement root not None):
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


# -- handle_paragraphs: a <p> whose children are all leaves of inline tags ----------------

cdef enum:
    PK_OTHER = 0
    PK_DONE = 1
    PK_LB = 2
    PK_CONSUMING = 3   # hi, ref, del: KEEP_ATTRS copied
    PK_CODE = 4
    # allowed-tag bits (the tag is in potential_tags)
    PA_HI = 1
    PA_REF = 2
    PA_DEL = 4
    PA_LB = 8
    PA_CODE = 16


cdef struct ParaChild:
    int32_t node
    int kind
    bint moved        # text <- tail, tail <- ''
    bint kept         # handle_textnode gave the child itself
    Slot text         # the text and tail the new sub-element copies
    Slot tail


cdef inline bint _name_is(DocData* d, int32_t nid, const char* s) noexcept nogil:
    cdef Py_ssize_t n, m = <Py_ssize_t>strlen(s)
    cdef const uchar* b
    if nid < 0:
        return False
    b = name_bytes(d, nid, &n)
    return n == m and memcmp(b, s, <size_t>n) == 0


cdef bint _keep_attr(DocData* d, int32_t nid) noexcept nogil:
    "main_extractor.KEEP_ATTRS"
    return (_name_is(d, nid, "rend") or _name_is(d, nid, "role") or _name_is(d, nid, "target")
            or _name_is(d, nid, "src") or _name_is(d, nid, "alt") or _name_is(d, nid, "title"))


cdef int _para_kind(DocData* d, int32_t tag, int allowed) noexcept nogil:
    if _name_is(d, tag, "done"):
        return PK_DONE
    if _name_is(d, tag, "lb"):
        return PK_LB if allowed & PA_LB else PK_OTHER
    if _name_is(d, tag, "hi"):
        return PK_CONSUMING if allowed & PA_HI else PK_OTHER
    if _name_is(d, tag, "ref"):
        return PK_CONSUMING if allowed & PA_REF else PK_OTHER
    if _name_is(d, tag, "del"):
        return PK_CONSUMING if allowed & PA_DEL else PK_OTHER
    if _name_is(d, tag, "code"):
        return PK_CODE if allowed & PA_CODE else PK_OTHER
    return PK_OTHER


cdef inline bint _slot_blank(DocData* d, Slot s) noexcept nogil:
    """not text_chars_test(value): None, '' or only whitespace."""
    cdef Py_ssize_t i = 0, w
    cdef const uchar* b
    if s.off < 0 or s.len == 0:
        return True
    b = d.text.data + s.off
    while i < s.len:
        w = _space_at(b, i, s.len)
        if w == 0:
            return False
        i += w
    return True


cdef int _copy_slot(DocData* src, Slot s, DocData* dst, int32_t i, bint tail) noexcept nogil:
    if s.off < 0:
        return 1 if dom_set_slot(dst, i, tail, NULL, 0, True) else -1
    return 1 if dom_set_slot(dst, i, tail, src.text.data + s.off, s.len, False) else -1


# upstream: trafilatura.main_extractor.handle_paragraphs
def extract_paragraph(CElement el not None, CElement out not None, int allowed, textfilter):
    """main_extractor.handle_paragraphs without deduplication for a <p> with
    children that are all childless lb/hi/ref/del/code (each in potential_tags,
    as ``allowed`` bits say) or done elements, ``out`` being the new
    Element(element.tag): True when the reference returns ``out`` (filled),
    False when it returns None, NotImplemented (nothing changed) for any other
    paragraph or when a value to write holds a character lxml refuses."""
    cdef CDocument doc = el.doc, odoc = out.doc
    cdef DocData* d = &doc.d
    cdef DocData* od = &odoc.d
    cdef int32_t p = el.idx, c, nxt, k, j, nid, sub, last, done_id
    cdef int n = 0, kind
    cdef Slot ptext, ptail, t, tl
    cdef bint p_kept = False
    cdef ParaChild* kids = NULL
    cdef Attr* a
    cdef Attr at
    cdef Py_ssize_t nb
    cdef const uchar* vb
    doc._check(p)
    odoc._check(out.idx)
    if (odoc is doc or d.nodes[p].first < 0 or not _name_is(d, d.nodes[p].tag, "p")
            or od.nodes[out.idx].first >= 0 or od.nodes[out.idx].text_off >= 0):
        return NotImplemented
    c = d.nodes[p].first
    while c >= 0:
        if d.nodes[c].first >= 0 or _para_kind(d, d.nodes[c].tag, allowed) == PK_OTHER:
            return NotImplemented
        n += 1
        c = d.nodes[c].next
    # the paragraph itself: handle_textnode(p, comments_fix=False, preserve_spaces=True)
    ptext = _slot_of(d, p, False)
    ptail = _slot_of(d, p, True)
    if _slot_truthy(ptext):
        if not _slot_ok(d, ptext):
            return NotImplemented
        p_kept = True
    elif ptext.off < 0 and not _slot_blank(d, ptail):
        # textfilter reads the tail (the text is None)
        p_kept = not _ex_textfilter(d, p)
    kids = NULL if alloc_fails() else <ParaChild*>malloc(<size_t>n * sizeof(ParaChild))
    if kids == NULL:
        raise MemoryError("out of memory")
    try:
        # every check first: nothing changes when one fails
        c = d.nodes[p].first
        k = 0
        while c >= 0:
            kind = _para_kind(d, d.nodes[c].tag, allowed)
            kids[k].node = c
            kids[k].kind = kind
            kids[k].moved = False
            kids[k].kept = False
            t = _slot_of(d, c, False)
            tl = _slot_of(d, c, True)
            if kind == PK_DONE:
                pass
            elif not _slot_truthy(t) and not _slot_truthy(tl) and not (
                    kind == PK_LB and _separates_inline(d, c)):
                pass
            elif kind == PK_LB:
                kids[k].kept = True
            else:
                if not _slot_truthy(t):
                    if not _slot_ok(d, tl):
                        return NotImplemented
                    kids[k].moved = True
                    t = tl
                    tl.off = 0
                    tl.len = 0
                kids[k].kept = _slot_truthy(t)
            if kids[k].kept:
                if not _slot_ok(d, t) or not _slot_ok(d, tl):
                    return NotImplemented
                if kind == PK_CONSUMING:
                    for j in range(d.nodes[c].attr_count):
                        a = &d.attrs[d.nodes[c].attr_start + j]
                        if _keep_attr(d, a.name):
                            if a.kind != AV_VALUE or not _utf8_xml_ok(d.vals.data + a.val_off, a.val_len):
                                return NotImplemented
            kids[k].text = t
            kids[k].tail = tl
            k += 1
            c = d.nodes[c].next
        # the reference's changes, in its order
        done_id = _intern(doc, "done")
        d.nodes[p].tag = done_id
        if p_kept:
            # " ".join(filter(None, (None, p.text))): the text, or '' when it is None
            if _slot_truthy(ptext):
                if _copy_slot(d, ptext, od, out.idx, False) < 0:
                    _raise_doc_error(odoc)
            elif not dom_set_slot(od, out.idx, False, NULL, 0, False):
                _raise_doc_error(odoc)
        for k in range(n):
            c = kids[k].node
            if kids[k].moved:
                _put_slot(d, c, False, kids[k].text)
                if not dom_set_slot(d, c, True, NULL, 0, False):
                    _raise_doc_error(doc)
                kids[k].tail = _slot_of(d, c, True)
            if kids[k].kept:
                nid = dom_map_name(d, d.nodes[c].tag, od)
                if nid < 0:
                    _raise_doc_error(odoc)
                sub = dom_new_node(od, nid, out.idx)
                if sub < 0:
                    _raise_doc_error(odoc)
                if kids[k].kind == PK_CONSUMING:
                    for j in range(d.nodes[c].attr_count):
                        at = d.attrs[d.nodes[c].attr_start + j]
                        if _keep_attr(d, at.name):
                            nid = dom_map_name(d, at.name, od)
                            if nid < 0 or not dom_attr_set(od, sub, nid, AV_VALUE, d.vals.data + at.val_off, at.val_len):
                                _raise_doc_error(odoc)
                if _copy_slot(d, kids[k].text, od, sub, False) < 0 or _copy_slot(d, kids[k].tail, od, sub, True) < 0:
                    _raise_doc_error(odoc)
            d.nodes[c].tag = done_id
    finally:
        free(kids)
    last = od.nodes[out.idx].last
    if last >= 0:
        if _name_is(od, od.nodes[last].tag, "lb") and od.nodes[last].tail_off < 0:
            unlink_node(od, last)
        return True
    return not _slot_blank(od, _slot_of(od, out.idx, False))


def extract_desc_tags(CElement el not None):
    """``{e.tag for e in desc_list(el)}``: the names of the descendants (a set of str)."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t top = el.idx, i, nid, total
    cdef uint8_t* seen
    cdef set out = set()
    doc._check(top)
    total = N_KNOWN + d.n_names
    seen = NULL if alloc_fails() else <uint8_t*>malloc(<size_t>total + 1)
    if seen == NULL:
        raise MemoryError("out of memory")
    try:
        memset(seen, 0, <size_t>total + 1)
        i = d.nodes[top].first
        while i >= 0:
            nid = d.nodes[i].tag
            if 0 <= nid < total and not seen[nid]:
                seen[nid] = 1
                out.add(doc.name_str(nid))
            if d.nodes[i].first >= 0:
                i = d.nodes[i].first
                continue
            while i != top and d.nodes[i].next < 0:
                i = d.nodes[i].parent
            if i == top:
                break
            i = d.nodes[i].next
    finally:
        free(seen)
    return out


def extract_mark_done(CElement el not None, bint inclusive):
    """``for child in iter_live(el, "*", inclusive=inclusive): child.tag = "done"``:
    renaming changes no link, so the live walk meets every descendant."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t top = el.idx, i, done_id
    doc._check(top)
    done_id = _intern(doc, "done")
    if inclusive:
        d.nodes[top].tag = done_id
    i = d.nodes[top].first
    while i >= 0:
        d.nodes[i].tag = done_id
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != top and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == top:
            break
        i = d.nodes[i].next


# -- handle_table: rows, spans and leaf cells in C; other cells through _fill_cell ------------

cdef enum:
    _MAX_TABLE_SPAN = 100


cdef int _ex_span(DocData* d, int32_t i, int32_t nid, int32_t* out) noexcept nogil:
    """main_extractor._span: 1 with the value in ``*out``; 0 when the value
    holds a non-ASCII character (str.isdecimal() of Unicode digits: left to Python)."""
    cdef int32_t k
    cdef Attr* a
    cdef const uchar* v
    cdef Py_ssize_t j
    cdef int32_t val = 0
    out[0] = 1
    if nid < 0:
        return 1
    k = dom_attr_find(d, i, nid)
    if k < 0:
        return 1
    a = &d.attrs[k]
    if a.kind != AV_VALUE:
        return 1   # '' or the attribute's own name: not decimal
    if a.val_len == 0:
        return 1
    v = d.vals.data + a.val_off
    for j in range(a.val_len):
        if v[j] >= 0x80:
            return 0
    for j in range(a.val_len):
        if v[j] < 48 or v[j] > 57:
            return 1
    for j in range(a.val_len):
        val = val * 10 + (v[j] - 48)
        if val > _MAX_TABLE_SPAN:
            val = _MAX_TABLE_SPAN   # min(int(value), 100), without overflow
    out[0] = val
    return 1


cdef struct ExTable:
    int32_t* cells     # source cells in row order
    int32_t* spans     # colspan, rowspan per cell
    int32_t* row_start # index into cells per row (n_rows + 1 entries)
    int32_t n_cells
    int32_t n_rows
    int32_t* rs        # the rowspan map: remaining rows per column (0: none)
    int32_t rs_cap


cdef bint _rs_set(ExTable* tb, int32_t col, int32_t val) noexcept nogil:
    cdef int32_t cap
    cdef int32_t* p
    if col >= tb.rs_cap:
        cap = tb.rs_cap * 2 if tb.rs_cap > 0 else 64
        while cap <= col:
            cap *= 2
        p = NULL if alloc_fails() else <int32_t*>realloc(tb.rs, <size_t>cap * sizeof(int32_t))
        if p == NULL:
            return False
        memset(p + tb.rs_cap, 0, <size_t>(cap - tb.rs_cap) * sizeof(int32_t))
        tb.rs = p
        tb.rs_cap = cap
    tb.rs[col] = val
    return True


cdef inline int32_t _rs_get(ExTable* tb, int32_t col) noexcept nogil:
    return tb.rs[col] if 0 <= col < tb.rs_cap else 0


cdef int32_t _ex_new_cell(DocData* od, int32_t row, int32_t cell_id, int32_t role_id, bint header) noexcept nogil:
    "define_cell_type(header) appended to row: the node, -1 out of memory."
    cdef int32_t c = dom_new_node(od, cell_id, row)
    if c < 0:
        return -1
    if header and not dom_attr_set(od, c, role_id, AV_VALUE, <const uchar*>"head", 4):
        return -1
    return c


cdef bint _ex_flush_phantoms(DocData* od, ExTable* tb, int32_t row, int32_t* ncols,
                             int32_t cell_id, int32_t role_id) noexcept nogil:
    "_flush_rowspan_phantoms"
    while _rs_get(tb, ncols[0]) > 0:
        if _ex_new_cell(od, row, cell_id, role_id, False) < 0:
            return False
        tb.rs[ncols[0]] -= 1
        ncols[0] += 1
    return True


# upstream: trafilatura.main_extractor.handle_table
def extract_table(CElement table not None, CElement out not None, filter_match, fill):
    """main_extractor.handle_table after its strip_tags, ``out`` being the new
    Element("table"): True when the reference returns ``out`` (filled),
    False when it returns None; NotImplemented (nothing changed) for a table
    with a caption or a non-ASCII colspan/rowspan. A childless cell runs
    process_node in C when ``filter_match`` (RE_FILTER.match) is given (no
    deduplication), any other cell goes to ``fill(new_cell, cell)``
    (_fill_cell), in the reference's order."""
    cdef CDocument doc = table.doc, odoc = out.doc
    cdef DocData* d = &doc.d
    cdef DocData* od = &odoc.d
    cdef int32_t t = table.idx, c, cc, tag, k, j, r, row, newc, ncols, colspan, rowspan, col
    cdef int32_t td_id, th_id, tr_id, caption_id, table_id, colspan_id, rowspan_id
    cdef int32_t done_id, row_id, cell_id, role_id, max_cols = 0, sum_cols, x
    cdef int32_t n_cells = 0, n_rows = 1
    cdef bint header_emitted = False, row_has_th, is_header, keep
    cdef int pr
    cdef ExTable tb
    doc._check(t)
    odoc._check(out.idx)
    if odoc is doc or od.nodes[out.idx].first >= 0:
        return NotImplemented
    td_id = _name_id(d, "td")
    th_id = _name_id(d, "th")
    tr_id = _name_id(d, "tr")
    caption_id = _name_id(d, "caption")
    colspan_id = _name_id(d, "colspan")
    rowspan_id = _name_id(d, "rowspan")
    # the checks and sizes first: nothing changes when one fails
    c = d.nodes[t].first
    while c >= 0:
        tag = d.nodes[c].tag
        if _is_tag(d, c, caption_id):
            return NotImplemented
        if _is_tag(d, c, tr_id):
            n_rows += 1
            cc = d.nodes[c].first
            while cc >= 0:
                if _is_tag(d, cc, td_id) or _is_tag(d, cc, th_id):
                    if not _ex_span(d, cc, colspan_id, &x) or not _ex_span(d, cc, rowspan_id, &x):
                        return NotImplemented
                    n_cells += 1
                cc = d.nodes[cc].next
        elif _is_tag(d, c, td_id) or _is_tag(d, c, th_id):
            if not _ex_span(d, c, colspan_id, &x) or not _ex_span(d, c, rowspan_id, &x):
                return NotImplemented
            n_cells += 1
        c = d.nodes[c].next
    done_id = _intern(doc, "done")
    table_id = _name_id(d, "table")
    row_id = _intern(odoc, "row")
    cell_id = _intern(odoc, "cell")
    role_id = _intern(odoc, "role")
    tb.cells = NULL
    tb.spans = NULL
    tb.row_start = NULL
    tb.rs = NULL
    tb.rs_cap = 0
    tb.n_cells = 0
    tb.n_rows = 1
    if not alloc_fails():
        tb.cells = <int32_t*>malloc(<size_t>(n_cells + 1) * sizeof(int32_t))
        tb.spans = <int32_t*>malloc(<size_t>(2 * n_cells + 2) * sizeof(int32_t))
        tb.row_start = <int32_t*>malloc(<size_t>(n_rows + 1) * sizeof(int32_t))
    try:
        if tb.cells == NULL or tb.spans == NULL or tb.row_start == NULL:
            raise MemoryError("out of memory")
        # rows of cells (an orphan cell joins the current row), max_cols, the "done" marks
        tb.row_start[0] = 0
        c = d.nodes[t].first
        while c >= 0:
            if _is_tag(d, c, tr_id):
                tb.row_start[tb.n_rows] = tb.n_cells
                tb.n_rows += 1
                sum_cols = 0
                cc = d.nodes[c].first
                while cc >= 0:
                    if _is_tag(d, cc, td_id) or _is_tag(d, cc, th_id):
                        tb.cells[tb.n_cells] = cc
                        _ex_span(d, cc, colspan_id, &tb.spans[2 * tb.n_cells])
                        _ex_span(d, cc, rowspan_id, &tb.spans[2 * tb.n_cells + 1])
                        sum_cols += tb.spans[2 * tb.n_cells]
                        tb.n_cells += 1
                    cc = d.nodes[cc].next
                if sum_cols > max_cols:
                    max_cols = sum_cols
                d.nodes[c].tag = done_id
            elif _is_tag(d, c, td_id) or _is_tag(d, c, th_id):
                tb.cells[tb.n_cells] = c
                _ex_span(d, c, colspan_id, &tb.spans[2 * tb.n_cells])
                _ex_span(d, c, rowspan_id, &tb.spans[2 * tb.n_cells + 1])
                tb.n_cells += 1
            elif not _is_tag(d, c, table_id):
                d.nodes[c].tag = done_id
            c = d.nodes[c].next
        tb.row_start[tb.n_rows] = tb.n_cells
        if max_cols > _MAX_TABLE_SPAN:
            max_cols = _MAX_TABLE_SPAN
        # the rows (no captions)
        for r in range(tb.n_rows):
            row = dom_new_node(od, row_id, -1)
            if row < 0:
                _raise_doc_error(odoc)
            ncols = 0
            row_has_th = False
            for k in range(tb.row_start[r], tb.row_start[r + 1]):
                c = tb.cells[k]
                is_header = _is_tag(d, c, th_id) and not header_emitted
                row_has_th = row_has_th or is_header
                if not _ex_flush_phantoms(od, &tb, row, &ncols, cell_id, role_id):
                    _raise_doc_error(odoc)
                newc = _ex_new_cell(od, row, cell_id, role_id, is_header)
                if newc < 0:
                    _raise_doc_error(odoc)
                colspan = tb.spans[2 * k]
                rowspan = tb.spans[2 * k + 1]
                if rowspan > 1:
                    for col in range(ncols, ncols + colspan):
                        if not _rs_set(&tb, col, rowspan - 1):
                            raise MemoryError("out of memory")
                ncols += 1
                pr = 2
                if filter_match is not None and d.nodes[c].first < 0:
                    pr = _ex_process_node(doc, c)
                    if pr == 1:
                        if (_copy_slot(d, _slot_of(d, c, False), od, newc, False) < 0
                                or _copy_slot(d, _slot_of(d, c, True), od, newc, True) < 0):
                            _raise_doc_error(odoc)
                if pr == 2:
                    fill(_proxy(odoc, newc), _proxy(doc, c))
                for j in range(colspan - 1):
                    if _ex_new_cell(od, row, cell_id, role_id, is_header) < 0:
                        _raise_doc_error(odoc)
                    ncols += 1
                d.nodes[c].tag = done_id
            # _finalize_row
            if not _ex_flush_phantoms(od, &tb, row, &ncols, cell_id, role_id):
                _raise_doc_error(odoc)
            while ncols < max_cols:
                if _ex_new_cell(od, row, cell_id, role_id, False) < 0:
                    _raise_doc_error(odoc)
                ncols += 1
            keep = False
            cc = od.nodes[row].first
            while cc >= 0:
                if (od.nodes[cc].text_off >= 0 and od.nodes[cc].text_len > 0) or od.nodes[cc].first >= 0:
                    keep = True
                    break
                cc = od.nodes[cc].next
            if keep:
                dom_link_before(od, out.idx, row, -1)
            header_emitted = header_emitted or row_has_th
    finally:
        free(tb.cells)
        free(tb.spans)
        free(tb.row_start)
        free(tb.rs)
    return od.nodes[out.idx].first >= 0


def extract_dispatched(CElement top not None, object names, bint skip_divs, bint skip_graphics):
    """``core.descendants(top, names)`` for _extract's main loop, less the
    elements whose handle_textelem call is None with no change whatever
    happens before (_sq_dispatched): with ``skip_divs`` ("div" not in
    potential_tags) the divs whose class holds no "w3-code"
    (handle_other_elements: None; a handler may rename a later div "done",
    also None, and none changes its class), with ``skip_graphics``
    ("graphic" not in potential_tags) the graphics (None, and no handler
    renames one but to "done"). None (the caller walks) when ``names`` holds
    a name of the document that is none of the extraction's (NG_*)."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef NgCtx c
    cdef NsVec found
    cdef uint64_t tags = 0
    cdef Py_ssize_t j
    cdef int r
    cdef list out = []
    doc._check(top.idx)
    for name in names:
        k = _NG_INDEX.get(name)
        if k is not None:
            tags |= ng_bit(k)
        elif _lookup(doc, name) >= 0:
            return None
    nsv_init(&found)
    with nogil:
        r = ng_view(&c, d)
        if r == NS_OK:
            r = _sq_dispatched(&c, top.idx, skip_divs, skip_graphics, &found, tags)
        ng_free(&c)
    try:
        if r != NS_OK:
            raise MemoryError("out of memory")
        for j in range(found.len):
            out.append(_proxy(doc, found.data[j]))
    finally:
        nsv_free(&found)
    return out


# -- extract_content's last passes ----------------------------------------------------------

# upstream: trafilatura.main_extractor.extract_content
def extract_drop_repeats(CElement body not None, Py_ssize_t min_length):
    """extract_content's adjacent-duplicate pass (_sq_drop_repeats): each child
    of ``body`` whose _elem_text is non-empty, longer than ``min_length`` code
    points and equal to the previous kept child's is removed with its tail
    (delete_element(el, keep_tail=False))."""
    cdef CDocument doc = body.doc
    cdef int r
    doc._check(body.idx)
    with nogil:
        r = _sq_drop_repeats(&doc.d, body.idx, min_length)
    if r != NS_OK:
        raise MemoryError("out of memory")


# upstream: trafilatura.main_extractor.extract_content
def extract_lb_tails(CElement body not None):
    """extract_content's last pass (_sq_lb_tails): the tail of each <lb> in
    ``body`` (and ``body`` itself) that is whitespace only (not empty) is set
    to None unless an ancestor is a <code> or <pre> (renaming or tails change
    no link: a static walk meets what the live one meets)."""
    cdef CDocument doc = body.doc
    cdef NgCtx c
    cdef int r
    doc._check(body.idx)
    with nogil:
        r = ng_view(&c, &doc.d)
        if r == NS_OK and c.name[NG_LB] >= 0:
            _sq_lb_tails(&c, body.idx)
        ng_free(&c)
    if r != NS_OK:
        raise MemoryError("out of memory")


# -- _extract's main loop ----------------------------------------------------------------

cdef inline bint _ex_root_is(CElement el, CElement root):
    cdef DocData* d
    cdef int32_t i
    if el.doc is not root.doc:
        return False
    d = &el.doc.d
    i = el.idx
    while d.nodes[i].parent >= 0:
        i = d.nodes[i].parent
    return i == root.idx


# upstream: trafilatura.main_extractor._extract
def extract_main_loop(list subelems, CElement body not None, filter_match, step):
    """_extract's loop over ``subelems`` into ``body`` (result_body) without
    deduplication: an element already in ``body`` is skipped; a childless
    <p>, <head> or <lb> (handle_paragraphs / handle_titles / handle_textelem's
    lb case: process_node, then the append) is done here, a "done" element
    skipped (step would change nothing); every other element
    goes to ``step(elem)``, the reference loop's body, in order (also when a
    value to write holds a character lxml refuses: the reference then runs)."""
    cdef CElement el
    cdef CDocument doc, bdoc = body.doc
    cdef DocData* d
    cdef DocData* bd = &bdoc.d
    cdef int32_t i, p_id, head_id, lb_id, new
    cdef int r
    cdef ExCollapse c
    cdef Slot tl
    bdoc._check(body.idx)
    for obj in subelems:
        el = <CElement?>obj
        if _ex_root_is(el, body):
            continue
        doc = el.doc
        d = &doc.d
        i = el.idx
        doc._check(i)
        if filter_match is not None and _is_tag(d, i, _name_id(d, "done")):
            # handle_textelem: None (handle_other_elements), and "done" is no rebuilt block
            continue
        if filter_match is not None and d.nodes[i].first < 0:
            p_id = _name_id(d, "p")
            head_id = _name_id(d, "head")
            lb_id = _name_id(d, "lb")
            if _is_tag(d, i, p_id) or _is_tag(d, i, head_id):
                r = _ex_process_node(doc, i)
                if r == 1 and _is_tag(d, i, head_id):
                    # is_text_element(title)
                    c.out = NULL
                    c.len = 0
                    c.pending = False
                    c.started = False
                    _ex_collapse_subtree(d, i, &c)
                    if not c.started:
                        r = 0
                if r == 1:
                    if _is_ancestor_or_self(el, body):
                        raise ValueError("cannot append parent to itself")
                    _move(body, el, -1)
                    continue
                if r == 0:
                    continue
            elif _is_tag(d, i, lb_id):
                if _slot_blank(d, _slot_of(d, i, True)):
                    continue   # handle_textelem: None
                r = _ex_process_node(doc, i)
                if r == 0:
                    continue
                if r == 1:
                    # Element("p") with the trimmed tail as its text, appended; the lb marked done
                    tl = _slot_of(d, i, True)
                    new = dom_new_node(bd, _intern(bdoc, "p"), body.idx)
                    if new < 0:
                        _raise_doc_error(bdoc)
                    if _copy_slot(d, tl, bd, new, False) < 0:
                        _raise_doc_error(bdoc)
                    d.nodes[i].tag = _intern(doc, "done")
                    continue
        step(el)


cdef bint _ex_keep_attrs_ok(DocData* d, int32_t i) noexcept nogil:
    """Every KEEP_ATTRS attribute of ``i`` has a written value lxml accepts."""
    cdef int32_t j
    cdef Attr* a
    for j in range(d.nodes[i].attr_count):
        a = &d.attrs[d.nodes[i].attr_start + j]
        if _keep_attr(d, a.name):
            if a.kind != AV_VALUE or not _utf8_xml_ok(d.vals.data + a.val_off, a.val_len):
                return False
    return True


cdef int32_t _ex_newelem(DocData* d, int32_t i, int32_t tag, bint attrs, Slot text, Slot tail,
                         DocData* od, int32_t parent) noexcept nogil:
    """define_newelem without carried children: a new last child of ``parent``
    in ``od`` named ``tag`` (an id of ``od``), with copies of the text and tail
    slots of ``d`` and, with ``attrs``, of the KEEP_ATTRS attributes of ``i``
    (checked before): the node, -1 out of memory."""
    cdef int32_t sub, j, nid
    cdef Attr at
    sub = dom_new_node(od, tag, parent)
    if sub < 0:
        return -1
    if attrs:
        for j in range(d.nodes[i].attr_count):
            at = d.attrs[d.nodes[i].attr_start + j]
            if _keep_attr(d, at.name):
                nid = dom_map_name(d, at.name, od)
                if nid < 0 or not dom_attr_set(od, sub, nid, AV_VALUE, d.vals.data + at.val_off, at.val_len):
                    return -1
    if _copy_slot(d, text, od, sub, False) < 0 or _copy_slot(d, tail, od, sub, True) < 0:
        return -1
    return sub


cdef int _ex_cell_child(CElement node, CDocument ndoc, int32_t new_idx) except -1:
    """_fill_cell_child (no deduplication, potential tags holding "div") for
    the cases done in C: a <lb> (handle_textelem's lb case), a childless <p>
    (process_node), a childless <head> (handle_titles), a childless <div>
    whose class holds no "w3-code" (handle_other_elements) and an element of
    any tag handle_textelem gives None for without a change; each followed
    by define_newelem into the new cell and the "done" mark. 1 done, 0 not
    one of these cases or a value lxml refuses (nothing changed: the
    reference runs)."""
    cdef CDocument doc = node.doc
    cdef DocData* d = &doc.d
    cdef DocData* od = &ndoc.d
    cdef int32_t i = node.idx, tag, k, sub
    cdef int r
    cdef Attr* a
    cdef ExCollapse c
    cdef Slot none_slot, t, tl
    cdef object res
    if ndoc is doc:
        return 0
    none_slot.off = -1
    none_slot.len = 0
    tag = d.nodes[i].tag
    if (_is_tag(d, i, _name_id(d, "td")) or _is_tag(d, i, _name_id(d, "th"))
            or _is_tag(d, i, _name_id(d, "hi")) or _is_tag(d, i, _name_id(d, "ref"))
            or _is_tag(d, i, _name_id(d, "del")) or _is_tag(d, i, _name_id(d, "list"))
            or _is_tag(d, i, _name_id(d, "code")) or _is_tag(d, i, _name_id(d, "quote"))
            or _is_tag(d, i, _name_id(d, "table")) or _is_tag(d, i, _name_id(d, "graphic"))):
        return 0
    if _is_tag(d, i, _name_id(d, "lb")):
        if not _slot_blank(d, _slot_of(d, i, True)):
            r = _ex_process_node(doc, i)
            if r == 2:
                return 0
            if r == 1:
                # Element("p") with the lb's trimmed tail as its text
                if _ex_newelem(d, i, _intern(ndoc, "p"), False, _slot_of(d, i, True), none_slot, od, new_idx) < 0:
                    _raise_doc_error(ndoc)
    elif _is_tag(d, i, _name_id(d, "p")) or _is_tag(d, i, _name_id(d, "head")):
        if d.nodes[i].first >= 0 or not _ex_keep_attrs_ok(d, i):
            return 0
        r = _ex_process_node(doc, i)
        if r == 2:
            return 0
        if r == 1 and _is_tag(d, i, _name_id(d, "head")):
            # is_text_element(title)
            c.out = NULL
            c.len = 0
            c.pending = False
            c.started = False
            _ex_collapse_subtree(d, i, &c)
            if not c.started:
                r = 0
        if r == 1:
            k = dom_map_name(d, d.nodes[i].tag, od)
            if k < 0 or _ex_newelem(d, i, k, True, _slot_of(d, i, False), _slot_of(d, i, True), od, new_idx) < 0:
                _raise_doc_error(ndoc)
    elif _is_tag(d, i, _name_id(d, "div")):
        if d.nodes[i].first >= 0:
            return 0
        k = dom_attr_find(d, i, _name_id(d, "class")) if _name_id(d, "class") >= 0 else -1
        if k >= 0:
            a = &d.attrs[k]
            if a.kind == AV_VALUE and _contains_bytes(d.vals.data + a.val_off, a.val_len,
                                                      <const uchar*>"w3-code", 7, False):
                return 0
        # define_newelem writes both values as they are: both checked first
        if not _slot_ok(d, _slot_of(d, i, False)) or not _slot_ok(d, _slot_of(d, i, True)):
            return 0
        res = extract_handle_textnode(node, False, True, None)
        if res is NotImplemented:
            return 0
        doc = node.doc
        d = &doc.d
        i = node.idx
        if res is not None and not _slot_blank(d, _slot_of(d, i, False)):
            # processed_element.attrib.clear(); tag "p" (then "done" below)
            d.nodes[i].attr_count = 0
            if _ex_newelem(d, i, _intern(ndoc, "p"), False, _slot_of(d, i, False), _slot_of(d, i, True),
                           &ndoc.d, new_idx) < 0:
                _raise_doc_error(ndoc)
    # any other tag: handle_other_elements gives None, define_newelem does nothing
    doc.d.nodes[i].tag = _intern(doc, "done")
    return 1


# upstream: trafilatura.main_extractor._fill_cell
def extract_cell_walk(CElement cell not None, CElement new not None, object nested, nested_table, other,
                      filter_match=None, textfilter=None):
    """_fill_cell's walk over the descendants of a td/th with children (the
    live walk of iter_live(cell, inclusive=False): the next node is found, and
    held as a proxy, when the current one is handed out): "done" elements are
    skipped; elements of nested tables (``nested``, a set) too, after
    ``nested_table(child)`` for a <table>; an lb separating inline elements
    with a whitespace-only tail gives an <lb> in ``new`` and is marked done;
    every other element goes to ``other(child)``, in order; with
    ``filter_match`` (RE_FILTER.match, given when there is no deduplication)
    the children _ex_cell_child does are done here instead (``textfilter`` is
    not called: the filters are nogil_text.pxi's twins)."""
    cdef CDocument ndoc = new.doc, doc
    cdef DocData* d
    cdef CElement node
    cdef object cur
    cdef int32_t i, top, lb_new = -1
    cdef bint check_nested = nested is not None and len(nested) > 0
    cell.doc._check(cell.idx)
    ndoc._check(new.idx)
    doc = cell.doc
    i = dom_traverse_next(&doc.d, cell.idx, cell.idx)
    cur = _proxy(doc, i)
    while cur is not None:
        node = <CElement>cur
        doc = node.doc
        d = &doc.d
        top = cell.idx if cell.doc is doc else -2
        i = dom_traverse_next(d, node.idx, top)
        cur = _proxy(doc, i)
        i = node.idx
        if _is_tag(d, i, _name_id(d, "done")):
            continue
        if check_nested and node in nested:
            if _is_tag(d, i, _name_id(d, "table")):
                nested_table(node)
            continue
        if _separates_inline(d, i) and _slot_blank(d, _slot_of(d, i, True)):
            if lb_new < 0:
                lb_new = _intern(ndoc, "lb")
            if dom_new_node(&ndoc.d, lb_new, new.idx) < 0:
                _raise_doc_error(ndoc)
            d.nodes[i].tag = _intern(doc, "done")
            continue
        if filter_match is not None and _ex_cell_child(node, ndoc, new.idx):
            continue
        other(node)


# -- extract_comments' loop ---------------------------------------------------------------

# upstream: trafilatura.main_extractor.extract_comments
def extract_comments_loop(list elems, CElement body not None, object potential_tags, textfilter, step):
    """extract_comments' loop over the snapshot ``elems`` without
    deduplication: an element whose tag (read when its turn comes: it may
    have moved into ``body`` with an ancestor) is in ``potential_tags`` goes
    through handle_textnode(comments_fix=True) in C, its attributes cleared
    and appended to ``body`` when kept; when the C version declines
    (NotImplemented, nothing changed) ``step(elem)`` runs the reference loop
    body instead."""
    cdef CElement el
    cdef CDocument doc, cached = None
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n = 0
    cdef int32_t cached_names = -1
    cdef object res
    body.doc._check(body.idx)
    for obj in elems:
        el = <CElement?>obj
        doc = el.doc
        doc._check(el.idx)
        # the ids of potential_tags in this document (again when it interned new names)
        if doc is not cached or doc.d.n_names != cached_names:
            n = _name_ids(doc, potential_tags, ids)
            cached = doc
            cached_names = doc.d.n_names
        if n < 0:
            step(el)   # more names than the id set holds: the reference body
            continue
        if not _id_in(doc.d.nodes[el.idx].tag, ids, n):
            continue
        res = extract_handle_textnode(el, True, False, textfilter)
        if res is NotImplemented:
            step(el)
            continue
        if res is None:
            continue
        doc = el.doc   # handle_textnode does not move it, but read again
        doc.d.nodes[el.idx].attr_count = 0
        if _is_ancestor_or_self(el, body):
            raise ValueError("cannot append parent to itself")
        _move(body, el, -1)


# -- extract_content's snapshot of the source order ---------------------------------------

@cython.final
cdef class ExOrder:
    """``[tree, *desc_list(tree)]`` as node indices of the tree's document
    (no proxies): extract_content reads the tags of those nodes after the
    main pass. The main pass moves a node out of the document only into
    result_body (directly or inside a new element appended there) and renames
    no node once moved, so the old copy left in the document keeps the tag
    the moved one has."""
    cdef CDocument doc
    cdef int32_t* idx
    cdef Py_ssize_t n

    def __dealloc__(self):
        free(self.idx)


def extract_order_snapshot(CElement tree not None):
    """The ExOrder of ``tree`` (its subtree in document order, ``tree`` first)."""
    cdef CDocument doc = tree.doc
    cdef DocData* d = &doc.d
    cdef ExOrder o = ExOrder.__new__(ExOrder)
    cdef int32_t top = tree.idx, i
    cdef Py_ssize_t n = 0
    doc._check(top)
    o.doc = doc
    i = top
    while i >= 0:
        n += 1
        i = dom_preorder_next(d, i, top)
    o.idx = NULL if alloc_fails() else <int32_t*>malloc(<size_t>n * sizeof(int32_t))
    if o.idx == NULL:
        raise MemoryError("out of memory")
    o.n = 0
    i = top
    while i >= 0 and o.n < n:
        o.idx[o.n] = i
        o.n += 1
        i = dom_preorder_next(d, i, top)
    return o


def extract_consumed(ExOrder order, CElement backup not None):
    """``{twin for elem, twin in zip(order, [backup, *desc_list(backup)]) if
    elem.tag == "done"}`` with the snapshot's nodes read now."""
    cdef CDocument doc = order.doc, bdoc = backup.doc
    cdef DocData* d = &doc.d
    cdef DocData* bd = &bdoc.d
    cdef int32_t top = backup.idx, j, done_id
    cdef Py_ssize_t k = 0
    cdef set out = set()
    bdoc._check(top)
    done_id = _name_id(d, "done")
    if done_id < 0:
        return out
    j = top
    while j >= 0 and k < order.n:
        if 0 <= order.idx[k] < d.n_nodes and d.nodes[order.idx[k]].tag == done_id:
            out.add(_proxy(bdoc, j))
        k += 1
        j = dom_preorder_next(bd, j, top)
    return out


# -- define_newelem ------------------------------------------------------------------------

cdef enum:
    _EX_NEWELEM_DEPTH = 64


cdef inline bint _ex_carried(DocData* d, int32_t tag) noexcept nogil:
    "INLINE_CARRIED | {'lb'}"
    return (_name_is(d, tag, "hi") or _name_is(d, tag, "ref") or _name_is(d, tag, "del")
            or _name_is(d, tag, "code") or _name_is(d, tag, "graphic") or _name_is(d, tag, "lb"))


cdef bint _ex_simple_name(DocData* d, int32_t tag) noexcept nogil:
    """A name check_tag_name accepts for sure: ASCII, [A-Za-z_][A-Za-z0-9_.-]*."""
    cdef Py_ssize_t n, k
    cdef const uchar* b
    cdef uchar ch
    if tag < 0:
        return False
    b = name_bytes(d, tag, &n)
    if n == 0:
        return False
    for k in range(n):
        ch = b[k]
        if (65 <= ch <= 90) or (97 <= ch <= 122) or ch == 95:
            continue
        if k > 0 and ((48 <= ch <= 57) or ch == 45 or ch == 46):
            continue
        return False
    return True


cdef bint _ex_newelem_ok(DocData* d, int32_t i, bint keep, int depth) noexcept nogil:
    """Every value define_newelem writes for ``i`` (and, with ``keep``, its
    carried children) is one lxml accepts, the tags are plain names and the
    nesting is shallow."""
    cdef int32_t c
    if depth > _EX_NEWELEM_DEPTH or not _ex_simple_name(d, d.nodes[i].tag):
        return False
    if not _slot_ok(d, _slot_of(d, i, False)) or not _slot_ok(d, _slot_of(d, i, True)):
        return False
    if not _ex_keep_attrs_ok(d, i):
        return False
    if keep:
        c = d.nodes[i].first
        while c >= 0:
            if _ex_carried(d, d.nodes[c].tag) and not _ex_newelem_ok(d, c, True, depth + 1):
                return False
            c = d.nodes[c].next
    return True


cdef int32_t _ex_newelem_copy(DocData* d, int32_t i, DocData* od, int32_t parent, bint keep,
                              int32_t done_id) noexcept nogil:
    """define_newelem(i, parent, keep) once _ex_newelem_ok said yes: the new node, -1 out of memory."""
    cdef int32_t k, sub, c, s
    k = dom_map_name(d, d.nodes[i].tag, od)
    if k < 0:
        return -1
    sub = _ex_newelem(d, i, k, True, _slot_of(d, i, False), _slot_of(d, i, True), od, parent)
    if sub < 0 or not keep:
        return sub
    c = d.nodes[i].first
    while c >= 0:
        if _ex_carried(d, d.nodes[c].tag):
            if _ex_newelem_copy(d, c, od, sub, True, done_id) < 0:
                return -1
            # for carried in iter_live(c, "*"): carried.tag = "done" (renames change no link)
            s = c
            while s >= 0:
                d.nodes[s].tag = done_id
                s = dom_preorder_next(d, s, c)
        c = d.nodes[c].next
    return sub


# upstream: trafilatura.main_extractor.define_newelem
def extract_define_newelem(CElement processed not None, CElement orig not None, bint keep_children):
    """main_extractor.define_newelem(processed, orig, keep_children) for
    elements of two documents: True when done, False (nothing changed) when
    a tag is not a plain name, a value holds a character lxml refuses, an
    attribute to copy has no written value or the carried nesting is deep."""
    cdef CDocument doc = processed.doc, odoc = orig.doc
    cdef DocData* d = &doc.d
    cdef DocData* od = &odoc.d
    cdef int32_t done_id
    doc._check(processed.idx)
    odoc._check(orig.idx)
    if odoc is doc or not _ex_newelem_ok(d, processed.idx, keep_children, 0):
        return False
    done_id = _intern(doc, "done")
    if _ex_newelem_copy(d, processed.idx, od, orig.idx, keep_children, done_id) < 0:
        _raise_doc_error(odoc)
    return True


# -- handle_other_elements ------------------------------------------------------------------

# upstream: trafilatura.main_extractor.handle_other_elements
def extract_other_elements(CElement el not None, bint div_potential, textfilter):
    """main_extractor.handle_other_elements without deduplication: the element
    (a div with text, renamed "p", its attributes cleared) or None;
    NotImplemented (nothing changed) for a div whose class holds "w3-code"
    (handle_code_blocks) and when handle_textnode's C version declines."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t i = el.idx, k, class_id
    cdef Attr* a
    cdef object res
    doc._check(i)
    if not _is_tag(d, i, _name_id(d, "div")):
        return None
    class_id = _name_id(d, "class")
    k = dom_attr_find(d, i, class_id) if class_id >= 0 else -1
    if k >= 0:
        a = &d.attrs[k]
        if a.kind == AV_VALUE and _contains_bytes(d.vals.data + a.val_off, a.val_len,
                                                  <const uchar*>"w3-code", 7, False):
            return NotImplemented
    if not div_potential:
        return None
    res = extract_handle_textnode(el, False, True, textfilter)
    if res is None or res is NotImplemented:
        return res
    doc = el.doc
    d = &doc.d
    i = el.idx
    if _slot_blank(d, _slot_of(d, i, False)):
        return None
    d.nodes[i].attr_count = 0
    d.nodes[i].tag = _intern(doc, "p")
    return el
