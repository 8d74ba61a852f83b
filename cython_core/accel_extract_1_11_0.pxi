# Accelerators for 1.11.0's main extractor (trafila/v1_11_0/main_extractor.py
# and htmlprocessing.py's handle_textnode / process_node) on the core's trees.
# Each gives exactly what the reference code gives on the same tree;
# tests/test_core_accel_extract_1_11_0.py runs both on copies of the same subtrees.
#
# 1.11.0's trim(s) is ``" ".join(s.split()).strip()`` for a str and None for
# None: a value of only whitespace becomes '' (2.3.1's ``trim(s) or None``
# makes it None). The trimming itself is accel_extract.pxi's _trim_slot.
#
# As in accel_extract.pxi: whenever a value the reference would write holds a
# character lxml refuses, the accelerator changes nothing and returns
# NotImplemented, and the caller runs the reference code (which raises where
# it raises). Deduplication is never done here: the callers take the
# reference path when options.dedup is set.


cdef inline int _trim111(DocData* d, Slot src, Slot* out) noexcept nogil:
    """1.11.0's ``trim(value)``: None stays None, whitespace only gives ''.
    1 done, -1 out of memory."""
    cdef int r
    if src.off < 0:
        out.off = -1
        out.len = 0
        return 1
    r = _trim_slot(d, src, out)
    if r > 0 and out.off < 0:
        # '' (an empty slice at a valid offset)
        out.off = src.off
        out.len = 0
    return r


cdef int _ex111_process_node(CDocument doc, int32_t i) except -1:
    """1.11.0's process_node without deduplication on node ``i``: 1 the node
    is returned, 0 None, 2 NotImplemented (nothing changed)."""
    cdef DocData* d = &doc.d
    cdef Slot text, tail, t, tl
    cdef int r
    if _is_tag(d, i, _name_id(d, "done")):
        return 0
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    if d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail):
        return 0
    r = _trim111(d, text, &t)
    if r > 0:
        r = _trim111(d, tail, &tl)
    if r < 0:
        _raise_doc_error(doc)
    if not _slot_ok(d, t) or not _slot_ok(d, tl):
        return 2
    _put_slot(d, i, False, t)
    _put_slot(d, i, True, tl)
    # no test on the children in 1.11.0: the tail moves up whenever there is no text
    if not _is_tag(d, i, _name_id(d, "lb")) and not _slot_truthy(t) and _slot_truthy(tl):
        t = tl
        tl.off = -1
        tl.len = 0
        _put_slot(d, i, False, t)
        _put_slot(d, i, True, tl)
    if (_slot_truthy(t) or _slot_truthy(tl)) and _ex_textfilter(d, i):
        return 0
    return 1


# upstream: trafilatura.htmlprocessing.process_node
def ex111_process_node(CElement el not None, filter_match):
    """1.11.0's htmlprocessing.process_node without deduplication on a core
    element: the element or None; NotImplemented (nothing changed) when a
    value to write holds a character lxml refuses. ``filter_match`` is
    RE_FILTER.match, taken for the callers' sake: 1.11.0 filters with the same
    text.textfilter/RE_FILTER as 2.3.1, decided by nogil_text.pxi's twin."""
    cdef CDocument doc = el.doc
    cdef int r
    doc._check(el.idx)
    r = _ex111_process_node(doc, el.idx)
    if r == 2:
        return NotImplemented
    return el if r == 1 else None


# upstream: trafilatura.htmlprocessing.handle_textnode
def ex111_handle_textnode(CElement el not None, bint comments_fix, bint preserve_spaces, textfilter):
    """1.11.0's htmlprocessing.handle_textnode without deduplication on a
    core element: the element or None; NotImplemented (nothing changed) when
    a value to write holds a character lxml refuses. ``textfilter``
    (text.textfilter) is not called: its exact twin decides when the element
    is left without text."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t i = el.idx
    cdef Slot text, tail, t, tl
    cdef bint is_lb
    cdef int r = 1
    doc._check(i)
    if _is_tag(d, i, _name_id(d, "done")):
        return None
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    if d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail):
        return None
    is_lb = _is_tag(d, i, _name_id(d, "lb"))
    if not comments_fix and is_lb:
        if not preserve_spaces:
            if _trim111(d, tail, &tl) < 0:
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
            if _trim111(d, tail, &t) < 0:
                _raise_doc_error(doc)
        _put_slot(d, i, False, t)
        if not dom_set_slot(d, i, True, NULL, 0, False):
            _raise_doc_error(doc)
        if comments_fix and is_lb:
            d.nodes[i].tag = _intern(doc, "p")
    elif not preserve_spaces:
        tl = tail
        r = _trim111(d, text, &t)
        if r > 0 and _slot_truthy(tail):
            r = _trim111(d, tail, &tl)
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


# upstream: trafilatura.main_extractor.handle_table
def ex111_table_max_cols(CElement table not None):
    """handle_table's widest row: ``max(sum(int(td.get("colspan", 1)) for td
    in tr.iter("td", "th")) for tr in table.iter("tr"))`` (0 without rows);
    NotImplemented when a colspan is not plain ASCII digits (int() is left
    to the reference, which may raise)."""
    cdef CDocument doc = table.doc
    cdef DocData* d = &doc.d
    cdef int32_t top = table.idx, i, j, k, tr_id, td_id, th_id, cs_id
    cdef int64_t best = 0, row, v
    cdef Attr* a
    cdef const uchar* b
    cdef int32_t m, q
    doc._check(top)
    tr_id = _name_id(d, "tr")
    td_id = _name_id(d, "td")
    th_id = _name_id(d, "th")
    cs_id = _name_id(d, "colspan")
    if tr_id < 0:
        return 0
    i = top
    while i >= 0:
        if d.nodes[i].tag == tr_id:
            row = 0
            # the cells below this row (nested ones included), in document order
            j = d.nodes[i].first
            while j >= 0:
                if (td_id >= 0 and d.nodes[j].tag == td_id) or (th_id >= 0 and d.nodes[j].tag == th_id):
                    k = dom_attr_find(d, j, cs_id) if cs_id >= 0 else -1
                    if k < 0:
                        v = 1
                    else:
                        a = &d.attrs[k]
                        if a.kind != AV_VALUE or a.val_len < 1 or a.val_len > 9:
                            return NotImplemented
                        b = d.vals.data + a.val_off
                        v = 0
                        m = a.val_len
                        for q in range(m):
                            if b[q] < 48 or b[q] > 57:
                                return NotImplemented
                            v = v * 10 + (b[q] - 48)
                    row += v
                if d.nodes[j].first >= 0:
                    j = d.nodes[j].first
                    continue
                while j != i and d.nodes[j].next < 0:
                    j = d.nodes[j].parent
                if j == i:
                    break
                j = d.nodes[j].next
            if row > best:
                best = row
        # next node of the walk below table (table itself included)
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != top and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == top:
            break
        i = d.nodes[i].next
    return best


# -- handle_paragraphs: a <p> whose children are all leaves -------------------------------

cdef enum:
    P1_SKIP = 0      # not in potential_tags (and not done): left alone
    P1_DONE = 1
    P1_LB = 2
    P1_HI = 3
    P1_REF = 4
    P1_OTHER = 5     # any other potential tag: copied without attributes


cdef struct Para1Child:
    int32_t node
    int kind
    bint moved        # text <- tail, tail <- ''
    bint kept         # handle_textnode gave the child itself
    Slot text         # the text and tail the new sub-element copies
    Slot tail
    int32_t attr      # the attribute copied (rend of hi, target of ref), -1 none


cdef inline bint _attr_ok(DocData* d, int32_t k) noexcept nogil:
    "xml_attr_value(value) of a stored attribute: a written value lxml accepts."
    cdef Attr* a = &d.attrs[k]
    return a.kind == AV_VALUE and _utf8_xml_ok(d.vals.data + a.val_off, a.val_len)


# upstream: trafilatura.main_extractor.handle_paragraphs
def ex111_paragraph(CElement el not None, CElement out not None, object potential_tags, textfilter):
    """1.11.0's main_extractor.handle_paragraphs without deduplication, after
    its ``element.attrib.clear()``, for a <p> (in potential_tags) whose children
    are all childless and none a <p>; ``out`` is the new Element(element.tag):
    True when the reference returns ``out`` (filled), False when it returns
    None, NotImplemented (nothing changed) for any other paragraph or when a
    value to write holds a character lxml refuses (or a <hi> has no rend:
    the reference raises)."""
    cdef CDocument doc = el.doc, odoc = out.doc
    cdef DocData* d = &doc.d
    cdef DocData* od = &odoc.d
    cdef int32_t p = el.idx, c, k, nid, sub, last, done_id, p_id, lb_id, hi_id, ref_id, rend_id, target_id
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n = 0, nids, kind
    cdef Slot ptext, t, tl
    cdef bint p_kept = False
    cdef Para1Child* kids = NULL
    cdef Attr at
    doc._check(p)
    odoc._check(out.idx)
    p_id = _name_id(d, "p")
    if (odoc is doc or d.nodes[p].first < 0 or p_id < 0 or d.nodes[p].tag != p_id
            or od.nodes[out.idx].first >= 0 or od.nodes[out.idx].text_off >= 0):
        return NotImplemented
    if not isinstance(potential_tags, (set, frozenset)) or "p" not in potential_tags:
        return NotImplemented
    nids = _name_ids(doc, potential_tags, ids)
    if nids < 0:
        return NotImplemented
    done_id = _name_id(d, "done")
    lb_id = _name_id(d, "lb")
    hi_id = _name_id(d, "hi")
    ref_id = _name_id(d, "ref")
    rend_id = _name_id(d, "rend")
    target_id = _name_id(d, "target")
    c = d.nodes[p].first
    while c >= 0:
        if d.nodes[c].first >= 0 or d.nodes[c].tag == p_id:
            return NotImplemented
        n += 1
        c = d.nodes[c].next
    # the paragraph itself: handle_textnode(p, comments_fix=False, preserve_spaces=True)
    ptext = _slot_of(d, p, False)
    if _slot_truthy(ptext):
        if not _slot_ok(d, ptext):
            return NotImplemented
        p_kept = True
    elif ptext.off < 0:
        # textfilter reads the tail (nothing changes)
        p_kept = not _ex_textfilter(d, p)
    kids = NULL if alloc_fails() else <Para1Child*>malloc(<size_t>n * sizeof(Para1Child))
    if kids == NULL:
        raise MemoryError("out of memory")
    try:
        # every check first: nothing changes when one fails
        c = d.nodes[p].first
        k = 0
        while c >= 0:
            if done_id >= 0 and d.nodes[c].tag == done_id:
                kind = P1_DONE
            elif not _id_in(d.nodes[c].tag, ids, nids):
                kind = P1_SKIP
            elif lb_id >= 0 and d.nodes[c].tag == lb_id:
                kind = P1_LB
            elif hi_id >= 0 and d.nodes[c].tag == hi_id:
                kind = P1_HI
            elif ref_id >= 0 and d.nodes[c].tag == ref_id:
                kind = P1_REF
            else:
                kind = P1_OTHER
            kids[k].node = c
            kids[k].kind = kind
            kids[k].moved = False
            kids[k].kept = False
            kids[k].attr = -1
            t = _slot_of(d, c, False)
            tl = _slot_of(d, c, True)
            if kind == P1_SKIP or kind == P1_DONE:
                pass
            elif not _slot_truthy(t) and not _slot_truthy(tl):
                pass
            elif kind == P1_LB:
                kids[k].kept = True
            else:
                if not _slot_truthy(t):
                    if not _slot_ok(d, tl):
                        return NotImplemented
                    kids[k].moved = True
                    t = tl
                    tl.off = 0
                    tl.len = 0
                kids[k].kept = True
            if kids[k].kept:
                if not _slot_ok(d, t) or not _slot_ok(d, tl):
                    return NotImplemented
                if kind == P1_HI:
                    kids[k].attr = dom_attr_find(d, c, rend_id) if rend_id >= 0 else -1
                    if kids[k].attr < 0 or not _attr_ok(d, kids[k].attr):
                        return NotImplemented
                elif kind == P1_REF:
                    kids[k].attr = dom_attr_find(d, c, target_id) if target_id >= 0 else -1
                    if kids[k].attr >= 0 and not _attr_ok(d, kids[k].attr):
                        return NotImplemented
            kids[k].text = t
            kids[k].tail = tl
            k += 1
            c = d.nodes[c].next
        # the reference's changes, in its order
        done_id = _intern(doc, "done")
        d.nodes[p].tag = done_id
        if p_kept and ptext.off >= 0:
            if _copy_slot(d, ptext, od, out.idx, False) < 0:
                _raise_doc_error(odoc)
        for k in range(n):
            c = kids[k].node
            if kids[k].kind == P1_SKIP:
                continue
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
                if kids[k].attr >= 0:
                    at = d.attrs[kids[k].attr]
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
    return _slot_truthy(_slot_of(od, out.idx, False))


# -- _extract's //p//text() test ------------------------------------------------------------

cdef void _p_stats_subtree(DocData* d, int32_t top, int64_t* count, int64_t* length) noexcept nogil:
    "The text of ``top`` and the text and tail of each descendant: how many are not None, their length."
    cdef int32_t s = top
    cdef Node* nd = &d.nodes[top]
    if nd.text_off >= 0:
        count[0] += 1
        length[0] += ngs_code_points(d.text.data + nd.text_off, nd.text_len)
    s = nd.first
    while s >= 0:
        nd = &d.nodes[s]
        if nd.text_off >= 0:
            count[0] += 1
            length[0] += ngs_code_points(d.text.data + nd.text_off, nd.text_len)
        if nd.tail_off >= 0:
            count[0] += 1
            length[0] += ngs_code_points(d.text.data + nd.tail_off, nd.tail_len)
        if nd.first >= 0:
            s = nd.first
            continue
        while s != top and d.nodes[s].next < 0:
            s = d.nodes[s].parent
        if s == top:
            break
        s = d.nodes[s].next


def ex111_p_text_stats(roots):
    """main_extractor._p_text_nodes(el) summed up, ``roots`` being
    root_of_document(el): (how many text nodes, the length of their
    concatenation in code points). Each outermost <p> (and its top-level
    elements that are one) counts its text and its descendants' texts and
    tails; a <p> inside it is not counted again."""
    cdef CElement top
    cdef CDocument doc
    cdef DocData* d
    cdef int32_t r, i, p_id
    cdef int64_t count = 0, length = 0
    for top in roots:
        doc = top.doc
        d = &doc.d
        r = top.idx
        doc._check(r)
        p_id = _name_id(d, "p")
        if p_id < 0:
            continue
        # the walk from r, r included; below a <p> only that <p>'s own walk
        i = r
        while True:
            if d.nodes[i].tag == p_id:
                _p_stats_subtree(d, i, &count, &length)
            elif d.nodes[i].first >= 0:
                i = d.nodes[i].first
                continue
            while i != r and d.nodes[i].next < 0:
                i = d.nodes[i].parent
            if i == r:
                break
            i = d.nodes[i].next
    return count, length


# -- handle_table's live walks, without the elements they only mark done -------------------

@cython.final
cdef class _SkipWalk:
    """``iterdescendants()`` of an element (the core's live walk, lxml's: the
    next node is found when the current one is handed out), where the loop
    body of an element whose tag is not in ``names`` would only be
    ``el.tag = "done"``: those are renamed here and not handed out (renaming
    changes no link, so the walk meets the same nodes)."""
    cdef object cur         # CElement or None: the next node, found when the last one was handed out
    cdef CElement top
    cdef tuple names
    cdef CDocument ids_doc  # the document the ids below belong to
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n_ids
    cdef int32_t done_id

    def __iter__(self):
        return self

    def __next__(self):
        cdef CElement node = self.cur
        cdef CDocument doc
        cdef DocData* d
        cdef int32_t i, nxt, top
        if node is None:
            raise StopIteration
        doc = node.doc
        d = &doc.d
        if self.ids_doc is not doc:
            self.n_ids = _name_ids(doc, self.names, self.ids)
            if self.n_ids < 0:
                raise ValueError("too many names")
            self.done_id = _intern(doc, "done")
            self.ids_doc = doc
        # a node moved into another document walks on there without a top (as _Walk does)
        top = self.top.idx if self.top.doc is doc else -2
        i = node.idx
        doc._check(i)
        while True:
            nxt = dom_traverse_next(d, i, top)
            if _id_in(d.nodes[i].tag, self.ids, self.n_ids):
                self.cur = _proxy(doc, nxt)
                return _proxy(doc, i)
            d.nodes[i].tag = self.done_id
            if nxt < 0:
                self.cur = None
                raise StopIteration
            i = nxt


def ex111_skip_walk(CElement top not None, names):
    """The descendants of ``top`` a loop ``for el in top.iterdescendants(): ...;
    el.tag = "done"`` does more with (tag in ``names``, at most MAX_NAME_SET),
    the others renamed "done" as the walk passes them (see _SkipWalk)."""
    cdef _SkipWalk w = _SkipWalk.__new__(_SkipWalk)
    cdef CDocument doc = top.doc
    doc._check(top.idx)
    w.top = top
    w.names = tuple(names)
    if len(w.names) > MAX_NAME_SET:
        raise ValueError("too many names")
    w.ids_doc = None
    w.cur = _proxy(doc, dom_traverse_next(&doc.d, top.idx, top.idx))
    return w


# -- the elements handle_textelem acts on -----------------------------------------------------

cdef bint _has_bytes(const uchar* s, Py_ssize_t n, const char* lit) noexcept nogil:
    cdef Py_ssize_t m = <Py_ssize_t>strlen(lit), i
    if m == 0:
        return True
    i = 0
    while i + m <= n:
        if s[i] == <uchar>lit[0] and memcmp(s + i, lit, <size_t>m) == 0:
            return True
        i += 1
    return False


def ex111_text_elements(CElement top not None, names, bint plain_divs):
    """``core.descendants(top, names)`` (a snapshot in document order, ``names``
    including "div"), less the divs handle_textelem gives None for without a
    change when ``plain_divs`` is False (div not in potential_tags): those
    whose class does not contain "w3-code" (a class of another kind than a
    written value is kept: the reference decides)."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n
    cdef int32_t root = top.idx, i, div_id, class_id, k
    cdef Attr* a
    cdef list out = []
    doc._check(root)
    if not isinstance(names, (set, frozenset, tuple, list)):
        names = tuple(names)
    n = _name_ids(doc, names, ids)
    if n < 0:
        raise ValueError("too many names")
    if n == 0:
        return out
    div_id = _name_id(d, "div")
    class_id = _name_id(d, "class")
    i = d.nodes[root].first
    while i >= 0:
        if _id_in(d.nodes[i].tag, ids, n):
            if plain_divs or div_id < 0 or d.nodes[i].tag != div_id:
                out.append(_proxy(doc, i))
            else:
                k = dom_attr_find(d, i, class_id) if class_id >= 0 else -1
                if k >= 0:
                    a = &d.attrs[k]
                    if a.kind != AV_VALUE or _has_bytes(d.vals.data + a.val_off, a.val_len, "w3-code"):
                        out.append(_proxy(doc, i))
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            break
        i = d.nodes[i].next
    return out


# -- handle_table's loop: rows and childless cells in C ------------------------------------

cdef struct _T111Ids:
    int32_t tr
    int32_t td
    int32_t th
    int32_t table
    int32_t done


cdef int _t111_ids(CDocument doc, _T111Ids* ids) except -1:
    "The ids the walk tests in ``doc`` (done interned: the walk writes it)."
    ids.tr = _name_id(&doc.d, "tr")
    ids.td = _name_id(&doc.d, "td")
    ids.th = _name_id(&doc.d, "th")
    ids.table = _name_id(&doc.d, "table")
    ids.done = _intern(doc, "done")
    return 0


cdef int _t111_link_row(CDocument odoc, int32_t out, int32_t row, object span) except -1:
    "newtable.append(newrow) for a row that is not the last: with its span attribute."
    cdef DocData* od = &odoc.d
    cdef bytes b
    if span is not None:
        b = (<str>span).encode("utf-8")
        if not dom_attr_set(od, row, _intern(odoc, "span"), AV_VALUE, <const uchar*><const char*>b, len(b)):
            _raise_doc_error(odoc)
    dom_link_before(od, out, row, -1)
    return 0


# upstream: trafilatura.main_extractor.handle_table
def ex111_table(CElement table not None, CElement out not None, object span, filter_match, fill, leaf):
    """1.11.0's handle_table from its ``seen_header_row = False`` on, without
    deduplication, ``out`` being the new Element("table") and ``span`` the
    rows' span value (str(max_cols), or None when max_cols <= 1): True when
    the reference returns ``out`` (filled), False when it returns None. The
    live walk over the table's descendants is the core's (the next node
    found when the current one is handed out, as _SkipWalk); a childless
    cell runs process_node in C (``leaf(cell, new_cell)`` when a value to
    write holds a character lxml refuses), a cell with children goes to
    ``fill(cell, new_cell)`` (the reference's branch), in the reference's
    order; the walk then goes on from the node it had found, wherever the
    callback left it."""
    cdef CDocument doc = table.doc, odoc = out.doc, ndoc
    cdef DocData* d = &doc.d
    cdef DocData* od = &odoc.d
    cdef int32_t i, nxt, top, row, cell, row_id, cell_id, role_id
    cdef bint seen_header_row = False, seen_header = False, is_header
    cdef int r
    cdef _T111Ids ids
    cdef CElement sp, np
    cdef object nproxy
    cdef int32_t cached_names
    doc._check(table.idx)
    odoc._check(out.idx)
    if odoc is doc or od.nodes[out.idx].first >= 0:
        return NotImplemented
    if span is not None and not isinstance(span, str):
        return NotImplemented
    _t111_ids(doc, &ids)
    row_id = _intern(odoc, "row")
    cell_id = _intern(odoc, "cell")
    role_id = _intern(odoc, "role")
    row = dom_new_node(od, row_id, -1)
    if row < 0:
        _raise_doc_error(odoc)
    i = dom_traverse_next(d, table.idx, table.idx)
    cached_names = d.n_names
    while i >= 0:
        if d.n_names != cached_names:
            # a name the walk tests may have come into the document meanwhile
            _t111_ids(doc, &ids)
            cached_names = d.n_names
        top = table.idx if table.doc is doc else -2
        nxt = dom_traverse_next(d, i, top)
        tag = d.nodes[i].tag
        if _is_tag(d, i, ids.tr):
            if od.nodes[row].first >= 0:
                _t111_link_row(odoc, out.idx, row, span)
                row = dom_new_node(od, row_id, -1)
                if row < 0:
                    _raise_doc_error(odoc)
                seen_header_row = seen_header_row or seen_header
        elif _is_tag(d, i, ids.td) or _is_tag(d, i, ids.th):
            is_header = _is_tag(d, i, ids.th) and not seen_header_row
            seen_header = seen_header or is_header
            cell = dom_new_node(od, cell_id, -1)
            if cell < 0 or (is_header and not dom_attr_set(od, cell, role_id, AV_VALUE, <const uchar*>"head", 4)):
                _raise_doc_error(odoc)
            if d.nodes[i].first < 0:
                r = _ex111_process_node(doc, i)
                if r == 1:
                    if (_copy_slot(d, _slot_of(d, i, False), od, cell, False) < 0
                            or _copy_slot(d, _slot_of(d, i, True), od, cell, True) < 0):
                        _raise_doc_error(odoc)
                elif r == 2:
                    leaf(_proxy(doc, i), _proxy(odoc, cell))
                if _slot_truthy(_slot_of(od, cell, False)) or od.nodes[cell].first >= 0:
                    dom_link_before(od, row, cell, -1)
                d.nodes[i].tag = ids.done
            else:
                # the reference code runs; the walk goes on from the node found before it
                sp = <CElement>_proxy(doc, i)
                nproxy = _proxy(doc, nxt)
                fill(sp, _proxy(odoc, cell))
                if _slot_truthy(_slot_of(od, cell, False)) or od.nodes[cell].first >= 0:
                    dom_link_before(od, row, cell, -1)
                # subelement.tag = "done", wherever the cell is now
                sp.doc._check(sp.idx)
                sp.doc.d.nodes[sp.idx].tag = _intern(sp.doc, "done")
                if nproxy is None:
                    break
                np = <CElement>nproxy
                ndoc = np.doc
                if ndoc is not doc:
                    doc = ndoc
                    d = &doc.d
                    _t111_ids(doc, &ids)
                    cached_names = d.n_names
                doc._check(np.idx)
                i = np.idx
                continue
            i = nxt
            continue
        elif _is_tag(d, i, ids.table):
            # a nested table ends this one (1.11.0)
            break
        d.nodes[i].tag = ids.done
        i = nxt
    # newrow.attrib.pop("span"): the last row has none
    if od.nodes[row].first >= 0:
        dom_link_before(od, out.idx, row, -1)
    return od.nodes[out.idx].first >= 0


# -- extract_comments' loop ----------------------------------------------------------------

# upstream: trafilatura.main_extractor.extract_comments
def ex111_comments_loop(list elems, CElement body not None, object potential_tags, textfilter, step):
    """1.11.0's extract_comments loop over the snapshot ``elems`` without
    deduplication (process_comments_node, then the append): an element
    whose tag, read when its turn comes, is in ``potential_tags`` runs
    ex111_handle_textnode(comments_fix=True); when kept its attributes are
    cleared and it is appended to ``body`` (moved, with its subtree: the
    later snapshot entries inside it are then read in ``body``'s document).
    When the C version declines (NotImplemented, nothing changed) or the
    names do not fit the id set, ``step(el)`` runs the reference body."""
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
        if doc is not cached or doc.d.n_names != cached_names:
            n = _name_ids(doc, potential_tags, ids)
            cached = doc
            cached_names = doc.d.n_names
        if n < 0:
            step(el)
            continue
        if not _id_in(doc.d.nodes[el.idx].tag, ids, n):
            continue
        res = ex111_handle_textnode(el, True, False, textfilter)
        if res is NotImplemented:
            step(el)
            continue
        if res is None:
            continue
        # processed_element.attrib.clear(), then comments_body.append(processed_element)
        doc = el.doc
        doc._check(el.idx)
        doc.d.nodes[el.idx].attr_count = 0
        if _is_ancestor_or_self(el, body):
            raise ValueError("cannot append parent to itself")
        _move(body, el, -1)


# -- handle_textelem over a list of elements ---------------------------------------------------

# upstream: trafilatura.main_extractor.handle_textelem
def ex111_textelem_loop(list elems, object potential_tags, filter_match, textfilter, new_p, step, body):
    """``[handle_textelem(e, potential_tags, options) for e in elems]`` without
    deduplication (_extract: ``body`` None, the list is returned), or
    recover_wild_text's loop appending each result to ``body`` as it comes
    (None returned). Each element's tag is read when its turn comes. Done
    here: "done" (None), <p> (attrib.clear(), then process_node in C when
    childless, else ex111_paragraph into ``new_p()``), <lb> (its tail
    tested, process_node in C, a ``new_p()`` holding the tail); every other
    element, and any case the C versions decline (nothing changed but the
    idempotent attrib.clear()), goes to ``step(e)`` (handle_textelem)."""
    cdef CElement el
    cdef CElement out
    cdef CDocument doc
    cdef DocData* d
    cdef int32_t i
    cdef int r
    cdef list results = [] if body is None else None
    cdef object res, kept
    for obj in elems:
        el = <CElement?>obj
        doc = el.doc
        d = &doc.d
        i = el.idx
        doc._check(i)
        if _is_tag(d, i, _name_id(d, "done")):
            res = None
        elif _is_tag(d, i, _name_id(d, "p")):
            # handle_paragraphs: element.attrib.clear() first
            d.nodes[i].attr_count = 0
            if d.nodes[i].first < 0:
                r = _ex111_process_node(doc, i)
                res = el if r == 1 else None
                if r == 2:
                    res = step(el)
            else:
                out = <CElement?>new_p()
                kept = ex111_paragraph(el, out, potential_tags, textfilter)
                if kept is NotImplemented:
                    res = step(el)
                else:
                    res = out if kept else None
        elif _is_tag(d, i, _name_id(d, "lb")):
            if _slot_blank(d, _slot_of(d, i, True)):
                res = None
            else:
                r = _ex111_process_node(doc, i)
                if r == 2:
                    res = step(el)
                elif r == 0:
                    res = None
                else:
                    # Element("p") with xml_text(element.tail) (checked by process_node)
                    out = <CElement?>new_p()
                    out.doc._check(out.idx)
                    if out.doc is doc:
                        raise ValueError("new_p() must make an element of a new document")
                    d = &doc.d
                    if _copy_slot(d, _slot_of(d, i, True), &out.doc.d, out.idx, False) < 0:
                        _raise_doc_error(out.doc)
                    res = out
        else:
            res = step(el)
        if body is None:
            results.append(res)
        elif res is not None:
            body.append(res)
    return results


# -- handle_table's cell with children ------------------------------------------------------

cdef bint _plain_name(DocData* d, int32_t nid) noexcept nogil:
    "A name of ASCII letters only (check_xml_tag accepts it as it is)."
    cdef Py_ssize_t n, k
    cdef const uchar* s
    if nid < 0:
        return False
    s = name_bytes(d, nid, &n)
    if s == NULL or n < 1:
        return False
    for k in range(n):
        if not ((s[k] >= 65 and s[k] <= 90) or (s[k] >= 97 and s[k] <= 122)):
            return False
    return True


cdef int _define_newelem111(object processed, CElement new, define_newelem) except -1:
    """define_newelem(processed, new): a SubElement of ``new`` with the tag,
    text and tail of ``processed``; the reference function when a value or
    the tag would need its checks."""
    cdef CElement p
    cdef DocData* pd
    cdef DocData* od
    cdef Slot t, tl
    cdef int32_t nid, sub
    if processed is None:
        return 0
    if not isinstance(processed, CElement) or (<CElement>processed).doc is new.doc:
        # (one document: a copy within one arena is left to the reference)
        define_newelem(processed, new)
        return 0
    p = <CElement>processed
    p.doc._check(p.idx)
    new.doc._check(new.idx)
    pd = &p.doc.d
    od = &new.doc.d
    t = _slot_of(pd, p.idx, False)
    tl = _slot_of(pd, p.idx, True)
    if not _plain_name(pd, pd.nodes[p.idx].tag) or not _slot_ok(pd, t) or not _slot_ok(pd, tl):
        define_newelem(processed, new)
        return 0
    nid = dom_map_name(pd, pd.nodes[p.idx].tag, od)
    if nid < 0:
        _raise_doc_error(new.doc)
    sub = dom_new_node(od, nid, new.idx)
    if sub < 0:
        _raise_doc_error(new.doc)
    if _copy_slot(pd, t, od, sub, False) < 0 or _copy_slot(pd, tl, od, sub, True) < 0:
        _raise_doc_error(new.doc)
    return 0


cdef struct _C111Ids:
    int32_t td
    int32_t th
    int32_t hi
    int32_t done
    int32_t cell
    int n
    int32_t names[MAX_NAME_SET]


cdef int _c111_ids(CDocument doc, tuple names, _C111Ids* ids) except -1:
    ids.td = _name_id(&doc.d, "td")
    ids.th = _name_id(&doc.d, "th")
    ids.hi = _name_id(&doc.d, "hi")
    ids.done = _intern(doc, "done")
    ids.cell = _intern(doc, "cell")
    ids.n = _name_ids(doc, names, ids.names)
    if ids.n < 0:
        raise ValueError("too many names")
    return 0


# upstream: trafilatura.main_extractor._fill_cell
def ex111_fill_cell(CElement sub not None, CElement new not None, tuple names, textfilter, textnode, other, define_newelem):
    """_fill_cell's reference branch without deduplication (``new`` the new
    cell): its text and tail copied, the cell marked done, then the live walk
    of ``ex111_skip_walk(sub, names)``: a td/th (renamed "cell") or hi runs
    ex111_handle_textnode(comments_fix=True, preserve_spaces=True) here
    (``textnode(child)`` when it declines), any other element handed out
    ``other(child)`` (the list / handle_textelem branches); the result goes
    through define_newelem (in C when no check is needed) and the child is
    marked done. After a Python call the walk goes on from the node it had
    found, wherever that is now. NotImplemented (nothing changed) when the
    cell's text or tail needs xml_text's check."""
    cdef CDocument doc = sub.doc, odoc = new.doc
    cdef DocData* d = &doc.d
    cdef DocData* od = &odoc.d
    cdef int32_t i, nxt, top
    cdef Slot t, tl
    cdef _C111Ids ids
    cdef CElement cp, np
    cdef object nproxy, res
    cdef bint called
    cdef int32_t cached_names
    doc._check(sub.idx)
    odoc._check(new.idx)
    if len(names) > MAX_NAME_SET:
        raise ValueError("too many names")
    t = _slot_of(d, sub.idx, False)
    tl = _slot_of(d, sub.idx, True)
    if not _slot_ok(d, t) or not _slot_ok(d, tl):
        return NotImplemented
    if odoc is doc:
        return NotImplemented
    if _copy_slot(d, t, od, new.idx, False) < 0 or _copy_slot(d, tl, od, new.idx, True) < 0:
        _raise_doc_error(odoc)
    _c111_ids(doc, names, &ids)
    d.nodes[sub.idx].tag = ids.done
    i = dom_traverse_next(d, sub.idx, sub.idx)
    cached_names = d.n_names
    while i >= 0:
        if d.n_names != cached_names:
            # a name the walk tests may have come into the document meanwhile
            _c111_ids(doc, names, &ids)
            cached_names = d.n_names
        top = sub.idx if sub.doc is doc else -2
        nxt = dom_traverse_next(d, i, top)
        if not _id_in(d.nodes[i].tag, ids.names, ids.n):
            d.nodes[i].tag = ids.done
            i = nxt
            continue
        cp = <CElement>_proxy(doc, i)
        if _is_tag(d, i, ids.td) or _is_tag(d, i, ids.th) or _is_tag(d, i, ids.hi):
            if not _is_tag(d, i, ids.hi):
                d.nodes[i].tag = ids.cell
            res = ex111_handle_textnode(cp, True, True, textfilter)
            if res is NotImplemented:
                res = textnode(cp)
            called = False
            nproxy = None
        else:
            nproxy = _proxy(doc, nxt)
            res = other(cp)
            called = True
        _define_newelem111(res, new, define_newelem)
        # child.tag = "done", wherever the child is now
        cp.doc._check(cp.idx)
        cp.doc.d.nodes[cp.idx].tag = _intern(cp.doc, "done")
        if not called:
            i = nxt
            continue
        if nproxy is None:
            break
        np = <CElement>nproxy
        if np.doc is not doc:
            doc = np.doc
            d = &doc.d
            _c111_ids(doc, names, &ids)
            cached_names = d.n_names
        doc._check(np.idx)
        i = np.idx
    return None


# -- prune_unwanted_nodes (htmlprocessing.py) ---------------------------------------------------

cdef bint _ex111_join_tail(DocData* d, int32_t dst, int32_t off, int32_t n) noexcept nogil:
    """``dst.tail = (dst.tail or "") + " " + <slice off, n>`` in the arena."""
    cdef Node* nd = &d.nodes[dst]
    cdef int32_t a_off = nd.tail_off, a_len = nd.tail_len if nd.tail_off >= 0 else 0
    cdef int32_t new_off
    if not buf_reserve(&d.text, <Py_ssize_t>a_len + 1 + n, &d.error):
        return False
    new_off = <int32_t>d.text.len
    if a_len > 0:
        memcpy(d.text.data + new_off, d.text.data + a_off, <size_t>a_len)
    d.text.data[new_off + a_len] = 32
    if n > 0:
        memcpy(d.text.data + new_off + a_len + 1, d.text.data + off, <size_t>n)
    d.text.len += <Py_ssize_t>a_len + 1 + n
    nd = &d.nodes[dst]
    nd.tail_off = new_off
    nd.tail_len = a_len + 1 + n
    return True


# upstream: trafilatura.htmlprocessing.prune_unwanted_nodes
def ex111_prune_nodes(list subtrees not None, Py_ssize_t start, list undo):
    """1.11.0's prune_unwanted_nodes loop body over ``subtrees[start:]``: a node
    with a tail (even '') hands it, after a space, to its previous sibling's
    tail or, without one, to its parent's tail (1.11.0's quirk); then it leaves
    its parent. Returns the index of the first node left to the Python loop
    (``len(subtrees)`` when none): one of another model, without a parent
    (upstream raises there), or whose joined tail lxml would refuse; that node
    is not touched. With ``undo`` (a list), each change is recorded there for
    :func:`ex111_prune_undo`."""
    cdef Py_ssize_t i, n = len(subtrees)
    cdef CElement ce
    cdef CDocument doc
    cdef DocData* d
    cdef int32_t node, parent, prev
    cdef object el
    for i in range(start, n):
        el = subtrees[i]
        if type(el) is not CElement:
            return i
        ce = <CElement>el
        doc = ce.doc
        d = &doc.d
        node = ce.idx
        parent = d.nodes[node].parent
        if parent < 0:
            return i
        if undo is not None and not undo:
            # the first change: whether node order was still document order before it
            undo.append(doc)
            undo.append(d.reordered)
        elif undo is not None and undo[0] is not doc:
            return i
        if d.nodes[node].tail_off >= 0:
            prev = d.nodes[node].prev
            if prev < 0:
                prev = parent
            if not (_slot_xml_ok(d, d.nodes[prev].tail_off, d.nodes[prev].tail_len)
                    and _slot_xml_ok(d, d.nodes[node].tail_off, d.nodes[node].tail_len)):
                return i
            if undo is not None:
                undo.append(0)
                undo.append(prev)
                undo.append(d.nodes[prev].tail_off)
                undo.append(d.nodes[prev].tail_len)
            if not _ex111_join_tail(d, prev, d.nodes[node].tail_off, d.nodes[node].tail_len):
                _raise_doc_error(doc)
            if undo is not None:
                undo.append(2)
                undo.append(prev)
                undo.append(d.nodes[prev].tail_off)
                undo.append(d.nodes[prev].tail_len)
        if undo is not None:
            undo.append(1)
            undo.append(node)
            undo.append(parent)
            undo.append(d.nodes[node].next)
        unlink_node(d, node)
    return n


def ex111_prune_undo(list undo not None):
    """Take back, last first, the changes :func:`ex111_prune_nodes` recorded:
    the tree is the one before them (the tails' old slices are still in the
    append-only arena). The record stays, for :func:`ex111_prune_redo`."""
    cdef CDocument doc
    cdef DocData* d
    cdef Py_ssize_t k
    cdef int32_t a, b, c
    cdef int kind
    if not undo:
        return
    doc = <CDocument?>undo[0]
    d = &doc.d
    k = len(undo)
    while k > 2:
        k -= 4
        kind = undo[k]
        a = undo[k + 1]
        b = undo[k + 2]
        c = undo[k + 3]
        if kind == 0:
            d.nodes[a].tail_off = b
            d.nodes[a].tail_len = c
        elif kind == 1:
            dom_link_before(d, b, a, c)
    d.reordered = undo[1]


def ex111_prune_redo(list undo not None):
    """Make again, first first, the changes :func:`ex111_prune_undo` took back."""
    cdef CDocument doc
    cdef DocData* d
    cdef Py_ssize_t k, n = len(undo)
    cdef int32_t a, b, c
    cdef int kind
    if not undo:
        return
    doc = <CDocument?>undo[0]
    d = &doc.d
    k = 2
    while k + 4 <= n:
        kind = undo[k]
        a = undo[k + 1]
        b = undo[k + 2]
        c = undo[k + 3]
        if kind == 2:
            d.nodes[a].tail_off = b
            d.nodes[a].tail_len = c
        elif kind == 1:
            unlink_node(d, a)
        k += 4
