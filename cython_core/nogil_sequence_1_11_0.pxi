# trafilatura 1.11.0's extraction sequence without the GIL (issues 39, 43): the middle of 1.11.0's
# core.bare_extraction (tree_cleaning, convert_tags, extract_comments, the precision prune,
# extract_content, compare_extraction with readability (nogil_readability.pxi's ng111_*), jusText
# and sanitize_tree, the baseline; deduplication in the page's LruTxn) over NgCtx
# (nogil_frame.pxi) with ``c.o.release == NG_REL_111``. It shares
# the 2.3.1 sequence's frame, selections, link-density walks, text twins and output walk; where
# the two releases differ (UPSTREAM.md, "1.11.0 in the C sequence: the switches") the shared
# stage takes the release's branch (tree_cleaning, prune_html, convert_tags, the selectors,
# xmltotxt), and where 1.11.0's upstream function is another function altogether its 1.11.0
# body is here, one per upstream function (``ng111_<name>``), read against
# reference/trafila/v1_11_0/main_extractor.py and htmlprocessing.py.
# tests: test_core_nogil_1_11_0.py
#
# NS_NEED_PYTHON (the page then runs the Python stages on the untouched tree): a string lxml
# refuses, a name check_xml_tag may refuse, a colspan int() would have to parse, a <hi>/<ref>
# holding children inside a paragraph, a place where upstream raises (handle_formatting's insert
# of None, a <hi> without rend in a paragraph), JSON-LD for the baseline, readability's causes
# (NRD_*), a deduplication count the cache cannot take (LRU_CAUSES); and before the copy: links,
# images, formatting, deduplication in a cache that is no CLRUCache.

cdef uint64_t S1_TAG_CATALOG = (ng_bit(NG_BLOCKQUOTE) | ng_bit(NG_CODE) | ng_bit(NG_DEL) | ng_bit(NG_HEAD)
                                | ng_bit(NG_HI) | ng_bit(NG_LB) | ng_bit(NG_LIST) | ng_bit(NG_P) | ng_bit(NG_PRE)
                                | ng_bit(NG_QUOTE))
# main_extractor.FORMATTING (1.11.0) and P_FORMATTING
cdef uint64_t S1_FORMATTING = ng_bit(NG_HI) | ng_bit(NG_REF) | ng_bit(NG_SPAN)
cdef uint64_t S1_P_FORMATTING = ng_bit(NG_HI) | ng_bit(NG_REF)
# recover_wild_text's search (1.11.0): blockquote code p pre q quote table (+ w3-code divs)
cdef uint64_t S1_WILD = (ng_bit(NG_BLOCKQUOTE) | ng_bit(NG_CODE) | ng_bit(NG_P) | ng_bit(NG_PRE)
                         | ng_bit(NG_QUOTE) | ng_bit(NG_TABLE))
cdef uint64_t S1_WILD_RECALL = S1_WILD | ng_bit(NG_DIV) | ng_bit(NG_LB) | ng_bit(NG_LIST)
cdef uint64_t S1_NOT_AT_THE_END = ng_bit(NG_HEAD) | ng_bit(NG_REF)


# -- small pieces -------------------------------------------------------------------------------

cdef inline int _s1_trim(DocData* d, Slot src, Slot* out) noexcept nogil:
    """1.11.0's ``trim(value)``: None stays None, whitespace only gives '' (accel_extract_1_11_0.pxi's
    _trim111). 1 done, -1 out of memory."""
    return _trim111(d, src, out)


cdef inline bint _s1_is_q(DocData* d, int32_t i, int32_t q_id) noexcept nogil:
    return q_id >= 0 and d.nodes[i].tag == q_id


cdef int _s1_set_attr_copy(NgCtx* c, int32_t dst, int32_t src, int32_t nid) noexcept nogil:
    """``dst.set(name, xml_attr_value(src.get(name)))`` for an attribute ``src`` has."""
    cdef int32_t k = dom_attr_find(c.d, src, nid)
    if k < 0:
        return NS_OK
    return _nx_set_attr_from(c.d, dst, c.d.attrs[k], True)


cdef int _s1_update_elem_rendition(NgCtx* c, int32_t elem, int32_t new_elem) noexcept nogil:
    "1.11.0's update_elem_rendition: the rend is copied whenever it is not None (even '')."
    cdef int32_t nid = _nx_lookup(c.d, "rend")
    if nid < 0:
        return NS_OK
    return _s1_set_attr_copy(c, new_elem, elem, nid)


cdef int _s1_new_like(NgCtx* c, int32_t tag, int32_t parent, int32_t* out) noexcept nogil:
    "``SubElement(parent, check_xml_tag(tag))`` / ``Element(tag)`` (parent -1)."
    cdef int r
    out[0] = _nx_new(c, tag, parent, &r)
    return r


cdef int _s1_define_newelem(NgCtx* c, int32_t processed, int32_t orig) noexcept nogil:
    """1.11.0's define_newelem: a new sub-element of ``orig`` with ``processed``'s tag, text and
    tail (no attributes, no children)."""
    cdef int32_t ch
    cdef int r
    if processed < 0:
        return NS_OK
    r = _s1_new_like(c, c.d.nodes[processed].tag, orig, &ch)
    if r != NS_OK:
        return r
    r = _nx_copy_slot(c.d, ch, False, processed, False)
    if r != NS_OK:
        return r
    return _nx_copy_slot(c.d, ch, True, processed, True)


cdef int _s1_snapshot(DocData* d, int32_t top, bint inclusive, NsVec* out) noexcept nogil:
    "``list(top.iter())`` (``inclusive``) or ``list(top.iterdescendants())`` in document order."
    cdef int32_t i = top if inclusive else dom_preorder_next(d, top, top)
    while i >= 0:
        if nsv_push(out, i) < 0:
            return NS_ERROR
        i = dom_preorder_next(d, i, top)
    return NS_OK


# -- htmlprocessing.process_node / handle_textnode (1.11.0) ------------------------------------

cdef int ng111_process_node(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    """1.11.0's htmlprocessing.process_node (accel_extract_1_11_0.pxi's _ex111_process_node):
    ``out`` = i or -1 (deduplication: ng_duplicate_test, 1.11.0's by c.o.release)."""
    cdef DocData* d = c.d
    cdef Slot text, tail, t, tl
    cdef bint dup = False
    cdef int r
    out[0] = -1
    if ng_is(c, i, NG_DONE):
        return NS_OK
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    if d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail):
        return NS_OK
    r = _s1_trim(d, text, &t)
    if r > 0:
        r = _s1_trim(d, tail, &tl)
    if r < 0:
        return NS_ERROR
    if not _slot_ok(d, t) or not _slot_ok(d, tl):
        return _nx_need(NX_CHAR)
    _put_slot(d, i, False, t)
    _put_slot(d, i, True, tl)
    # no test on the children in 1.11.0: the tail moves up whenever there is no text
    if not ng_is(c, i, NG_LB) and not _slot_truthy(t) and _slot_truthy(tl):
        t = tl
        tl.off = -1
        tl.len = 0
        _put_slot(d, i, False, t)
        _put_slot(d, i, True, tl)
    if _slot_truthy(t) or _slot_truthy(tl):
        if _ex_textfilter(d, i):
            return NS_OK
        if c.lru != NULL:
            r = ng_duplicate_test(c, i, &dup)
            if r != NS_OK:
                return r
            if dup:
                return NS_OK
    out[0] = i
    return NS_OK


cdef int ng111_handle_textnode(NgCtx* c, int32_t i, bint comments_fix, bint preserve_spaces,
                               int32_t* out) noexcept nogil:
    "1.11.0's htmlprocessing.handle_textnode (ex111_handle_textnode): ``out`` = i or -1."
    cdef DocData* d = c.d
    cdef Slot text, tail, t, tl
    cdef bint is_lb, dup = False
    cdef int r = 1
    out[0] = -1
    if ng_is(c, i, NG_DONE):
        return NS_OK
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    if d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail):
        return NS_OK
    is_lb = ng_is(c, i, NG_LB)
    if not comments_fix and is_lb:
        if not preserve_spaces:
            if _s1_trim(d, tail, &tl) < 0:
                return NS_ERROR
            if not _slot_ok(d, tl):
                return _nx_need(NX_CHAR)
            _put_slot(d, i, True, tl)
        out[0] = i
        return NS_OK
    if not _slot_truthy(text) and d.nodes[i].first < 0:
        # elem.text, elem.tail = elem.tail, "", then the text trimmed (the tail '' stays)
        if not _slot_ok(d, tail):
            return _nx_need(NX_CHAR)
        t = tail
        if not preserve_spaces:
            if _s1_trim(d, tail, &t) < 0:
                return NS_ERROR
        _put_slot(d, i, False, t)
        if not dom_set_slot(d, i, True, NULL, 0, False):
            return NS_ERROR
        if comments_fix and is_lb:
            d.nodes[i].tag = c.name[NG_P]
    elif not preserve_spaces:
        tl = tail
        r = _s1_trim(d, text, &t)
        if r > 0 and _slot_truthy(tail):
            r = _s1_trim(d, tail, &tl)
        if r < 0:
            return NS_ERROR
        if not _slot_ok(d, t) or not _slot_ok(d, tl):
            return _nx_need(NX_CHAR)
        _put_slot(d, i, False, t)
        _put_slot(d, i, True, tl)
    t = _slot_of(d, i, False)
    if not _slot_truthy(t) and _ex_textfilter(d, i):
        return NS_OK
    if c.lru != NULL:
        r = ng_duplicate_test(c, i, &dup)
        if r != NS_OK:
            return r
        if dup:
            return NS_OK
    out[0] = i
    return NS_OK


# -- htmlprocessing.prune_unwanted_nodes (1.11.0) ----------------------------------------------

cdef int ng111_prune_unwanted_nodes(NgCtx* c, const NgSelectors* s, int which_list, int32_t root,
                                    bint with_backup, int32_t* result=NULL) noexcept nogil:
    """1.11.0's prune_unwanted_nodes(root, <list>, with_backup): per selector in turn, its
    matches (on the tree as the earlier ones left it) leave their parent, a tail that is not
    None first appended after a space to the previous sibling's tail or, without one, to the
    parent's tail (1.11.0's quirk). With backup, when more than 6/7 of the text went, the result
    is a copy of ``root`` taken before (a document of its own upstream; ``root`` stays pruned):
    ``result`` gets it (NEED_PYTHON without ``result``), else ``root``. A match without a parent
    (upstream raises) answers NEED_PYTHON."""
    cdef DocData* d = c.d
    cdef NsVec v
    cdef int r = NS_OK, k, start, count
    cdef Py_ssize_t j, old_len = 0
    cdef int32_t node, parent, prev, bk = -1
    if which_list < 0 or which_list >= NGL_N:
        return NS_ERROR
    if result != NULL:
        result[0] = root
    start = NGL_START[which_list]
    count = NGL_COUNT[which_list]
    if with_backup:
        old_len = _ngp_text_content_len(d, root)
        bk = ng_copy_subtree(d, root, True)
        if bk < 0:
            return NS_ERROR
    nsv_init(&v)
    for k in range(start, start + count):
        v.len = 0
        r = ng_select(c, s, k, root, &v)
        if r != NS_OK:
            break
        for j in range(v.len):
            node = v.data[j]
            parent = d.nodes[node].parent
            if parent < 0:
                r = NS_NEED_PYTHON
                break
            if d.nodes[node].tail_off >= 0:
                prev = d.nodes[node].prev
                if prev < 0:
                    prev = parent
                if not (_slot_xml_ok(d, d.nodes[prev].tail_off, d.nodes[prev].tail_len)
                        and _slot_xml_ok(d, d.nodes[node].tail_off, d.nodes[node].tail_len)):
                    r = _nx_need(NX_CHAR)
                    break
                if not _ex111_join_tail(d, prev, d.nodes[node].tail_off, d.nodes[node].tail_len):
                    r = NS_ERROR
                    break
            unlink_node(d, node)
        if r != NS_OK:
            break
    if r == NS_OK and with_backup:
        # tree if len(tree.text_content()) > old_len / 7 else the backup taken before
        if not (<double>_ngp_text_content_len(d, root) > <double>old_len / 7.0):
            if result != NULL:
                result[0] = bk
            else:
                r = NS_NEED_PYTHON
    nsv_free(&v)
    return _ngp_fail(c) if r == NS_ERROR else r


# -- main_extractor (1.11.0) -------------------------------------------------------------------

cdef int ng111_prune_unwanted_sections(NgCtx* c, const NgSelectors* s, int32_t root,
                                       uint64_t potential, int32_t* result) noexcept nogil:
    """1.11.0's prune_unwanted_sections: OVERALL_DISCARD with backup, PAYWALL, the image
    captions without graphics, teasers and (precision) PRECISION_DISCARD out of recall, one
    round of link-density deletions (div with backtracking, list, p: accel_prune.pxi's
    _flagged_1_11_0), and in precision the trailing heads and the head/quote link density
    (favor_precision left False, as upstream calls it). ``result``: the tree it returns (``root``,
    or the copy the first prune's backup gave, pruned from there on)."""
    cdef bint favor_precision = c.o.focus == NG_PRECISION
    cdef int r
    cdef int32_t last
    r = ng111_prune_unwanted_nodes(c, s, NGL_OVERALL_DISCARD, root, True, result)
    if r != NS_OK:
        return r
    root = result[0]
    r = ng111_prune_unwanted_nodes(c, s, NGL_PAYWALL, root, False)
    if r != NS_OK:
        return r
    if not (potential >> NG_GRAPHIC) & 1:
        r = ng111_prune_unwanted_nodes(c, s, NGL_DISCARD_IMAGE, root, False)
        if r != NS_OK:
            return r
    if c.o.focus != NG_RECALL:
        r = ng111_prune_unwanted_nodes(c, s, NGL_TEASER_DISCARD, root, False)
        if r != NS_OK:
            return r
        if favor_precision:
            r = ng111_prune_unwanted_nodes(c, s, NGL_PRECISION_DISCARD, root, False)
            if r != NS_OK:
                return r
    r = ng_delete_by_link_density(c, s, root, NG_DIV, True, favor_precision)
    if r != NS_OK:
        return r
    r = ng_delete_by_link_density(c, s, root, NG_LIST, False, favor_precision)
    if r != NS_OK:
        return r
    r = ng_delete_by_link_density(c, s, root, NG_P, False, favor_precision)
    if r != NS_OK:
        return r
    if favor_precision:
        while True:
            last = c.d.nodes[root].last
            if last < 0 or not ng_is(c, last, NG_HEAD):
                break
            unlink_node(c.d, last)
        r = ng_delete_by_link_density(c, s, root, NG_HEAD, False, False)
        if r != NS_OK:
            return r
        r = ng_delete_by_link_density(c, s, root, NG_QUOTE, False, False)
    return r


cdef int ng111_handle_titles(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    """1.11.0's handle_titles: a childless head through process_node; else a deep copy of it
    (tail included) to which each child handle_textnode keeps moves, each child marked done."""
    cdef DocData* d = c.d
    cdef int32_t title, ch, nxt, pc
    cdef int r
    out[0] = -1
    if d.nodes[i].first < 0:
        r = ng111_process_node(c, i, &title)
        if r != NS_OK:
            return r
    else:
        title = ng_copy_subtree(d, i, True)
        if title < 0:
            return NS_ERROR
        ch = d.nodes[i].first
        while ch >= 0:
            nxt = d.nodes[ch].next
            r = ng111_handle_textnode(c, ch, False, False, &pc)
            if r != NS_OK:
                return r
            if pc >= 0:
                r = ng_append(d, title, pc)
                if r != NS_OK:
                    return r
            d.nodes[ch].tag = c.name[NG_DONE]
            ch = nxt
    if title >= 0 and _nx_has_text(c, title):
        out[0] = title
    return NS_OK


cdef int ng111_handle_formatting(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    """1.11.0's handle_formatting: the parent (or, without one, the previous sibling) decides
    whether the result is wrapped in a new <p>; a wrapper around None raises upstream
    (TypeError: the document is discarded): NEED_PYTHON."""
    cdef DocData* d = c.d
    cdef int32_t f, parent, wrapper
    cdef int r
    out[0] = -1
    r = ng111_process_node(c, i, &f)
    if r != NS_OK:
        return r
    if d.nodes[i].first < 0 and f < 0:
        return NS_OK
    parent = d.nodes[i].parent
    if parent < 0:
        parent = d.nodes[i].prev
    if parent < 0 or not ng_in(_NX_FORMATTING_PROTECTED, c, parent):
        if f < 0:
            return NS_NEED_PYTHON
        wrapper = ng_new_element(c, NG_P, -1)
        if wrapper < 0:
            return NS_ERROR
        r = ng_append(d, wrapper, f)
        if r == NS_OK:
            out[0] = wrapper
        return r
    out[0] = f
    return NS_OK


cdef int _s1_add_sub_element(NgCtx* c, int32_t new, int32_t subelem, int32_t processed) noexcept nogil:
    """1.11.0's add_sub_element: a new sub-element with the processed tag (check_xml_tag), text
    and tail, and every attribute of ``subelem`` in its order (names check_xml_attribute
    accepts for sure, values xml_attr_value accepts)."""
    cdef DocData* d = c.d
    cdef int32_t ch, j, n
    cdef Attr a
    cdef int r
    r = _s1_new_like(c, d.nodes[processed].tag, new, &ch)
    if r != NS_OK:
        return r
    r = _nx_copy_slot(d, ch, False, processed, False)
    if r != NS_OK:
        return r
    r = _nx_copy_slot(d, ch, True, processed, True)
    if r != NS_OK:
        return r
    n = d.nodes[subelem].attr_count
    for j in range(n):
        a = d.attrs[d.nodes[subelem].attr_start + j]
        if not _ex_simple_name(d, a.name):
            return _nx_need(NX_NAME)
        r = _nx_set_attr_from(d, ch, a, True)
        if r != NS_OK:
            return r
    return NS_OK


cdef int ng111_process_nested_elements(NgCtx* c, int32_t child, int32_t new) noexcept nogil:
    """1.11.0's process_nested_elements: the item's text, then each descendant in document order
    (the loop changes text, tails and tags only: a snapshot is lxml's walk): a list through
    handle_lists (appended), anything else through handle_textnode (add_sub_element); each
    marked done."""
    cdef DocData* d = c.d
    cdef NsVec v
    cdef Py_ssize_t k
    cdef int32_t sub, pc
    cdef int r
    r = _nx_copy_slot(d, new, False, child, False)
    if r != NS_OK:
        return r
    nsv_init(&v)
    r = _s1_snapshot(d, child, False, &v)
    for k in range(v.len if r == NS_OK else 0):
        sub = v.data[k]
        if ng_is(c, sub, NG_LIST):
            r = ng111_handle_lists(c, sub, &pc)
            if r == NS_OK and pc >= 0:
                r = ng_append(d, new, pc)
        else:
            r = ng111_handle_textnode(c, sub, False, False, &pc)
            if r == NS_OK and pc >= 0:
                r = _s1_add_sub_element(c, new, sub, pc)
        if r != NS_OK:
            break
        d.nodes[sub].tag = c.name[NG_DONE]
    nsv_free(&v)
    return r


cdef int _s1_join_space(NgCtx* c, int32_t dst, bint dst_tail, Slot a, Slot z) noexcept nogil:
    """``dst.<slot> = xml_text(a + " " + z)`` (both not None)."""
    cdef NxBuf b
    cdef int r
    _nxb_init(&b)
    if not (_nxb_add_slot(&b, c.d, a) and _nxb_add(&b, <const uchar*>" ", 1) and _nxb_add_slot(&b, c.d, z)):
        free(b.data)
        return NS_ERROR
    if not _utf8_xml_ok(b.data, b.len):
        free(b.data)
        return _nx_need(NX_CHAR)
    r = _nxb_store(&b, c.d, dst, dst_tail)
    return r


cdef int ng111_handle_lists(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "1.11.0's handle_lists"
    cdef DocData* d = c.d
    cdef int32_t pe, item, child, pc, last, ch
    cdef NxWalk walk
    cdef int r = NS_OK
    out[0] = -1
    r = _s1_new_like(c, d.nodes[i].tag, -1, &pe)
    if r != NS_OK:
        return r
    if not _slot_blank(d, _slot_of(d, i, False)):
        item = ng_new_element(c, NG_ITEM, pe)
        if item < 0:
            return NS_ERROR
        r = _nx_copy_slot(d, item, False, i, False)
        if r != NS_OK:
            return r
    # lxml's live iterdescendants("item"): the next item is found when one is handed out, so
    # the first item of a nested list comes out after its holder even though handling the
    # holder renamed it done (the others, renamed before they are reached, are skipped)
    _nx_walk_init(d, &walk, i, c.name[NG_ITEM], False)
    while True:
        child = _nx_walk_next(d, &walk)
        if child < 0:
            break
        item = ng_new_element(c, NG_ITEM, -1)
        if item < 0:
            r = NS_ERROR
            break
        if d.nodes[child].first < 0:
            r = ng111_process_node(c, child, &pc)
            if r != NS_OK:
                break
            if pc >= 0:
                r = _nx_copy_slot(d, item, False, pc, False)
                if r != NS_OK:
                    break
                if not _slot_blank(d, _slot_of(d, pc, True)):
                    r = _s1_join_space(c, item, False, _slot_of(d, item, False), _slot_of(d, pc, True))
                    if r != NS_OK:
                        break
                r = ng_append(d, pe, item)
                if r != NS_OK:
                    break
        else:
            r = ng111_process_nested_elements(c, child, item)
            if r != NS_OK:
                break
            if not _slot_blank(d, _slot_of(d, child, True)):
                last = -1
                ch = d.nodes[item].first
                while ch >= 0:
                    if not ng_is(c, ch, NG_DONE):
                        last = ch
                    ch = d.nodes[ch].next
                if last >= 0:
                    if _slot_blank(d, _slot_of(d, last, True)):
                        r = _nx_copy_slot(d, last, True, child, True)
                    else:
                        r = _s1_join_space(c, last, True, _slot_of(d, last, True), _slot_of(d, child, True))
                    if r != NS_OK:
                        break
        if _slot_truthy(_slot_of(d, item, False)) or d.nodes[item].first >= 0:
            r = _s1_update_elem_rendition(c, child, item)
            if r == NS_OK:
                r = ng_append(d, pe, item)
            if r != NS_OK:
                break
        d.nodes[child].tag = c.name[NG_DONE]
    if r != NS_OK:
        return r
    d.nodes[i].tag = c.name[NG_DONE]
    if _nx_has_text(c, pe):
        r = _s1_update_elem_rendition(c, i, pe)
        if r != NS_OK:
            return r
        out[0] = pe
    return NS_OK


cdef int ng111_is_code_block_element(NgCtx* c, int32_t i, bint* out) noexcept nogil:
    "1.11.0's is_code_block_element: a code child that is the only child suffices."
    cdef DocData* d = c.d
    cdef int32_t nid, k, parent, ch
    cdef const uchar* v
    cdef Py_ssize_t n
    out[0] = True
    nid = _nx_lookup(d, "lang")
    k = dom_attr_find(d, i, nid) if nid >= 0 else -1
    if k >= 0:
        _nx_attr_bytes(d, &d.attrs[k], &v, &n)
        if n > 0:
            return NS_OK
    if ng_is(c, i, NG_CODE):
        return NS_OK
    parent = d.nodes[i].parent
    if parent >= 0 and _nx_attr_contains(d, parent, "class", "highlight"):
        return NS_OK
    ch = d.nodes[i].first
    while ch >= 0:
        if ng_is(c, ch, NG_CODE):
            out[0] = d.nodes[i].first == d.nodes[i].last
            return NS_OK
        ch = d.nodes[ch].next
    out[0] = False
    return NS_OK


cdef int ng111_handle_quotes(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    """1.11.0's handle_quotes: a code block as handle_code_blocks (the same in both releases),
    else every element of ``i`` (itself first) through process_node and define_newelem."""
    cdef DocData* d = c.d
    cdef int32_t pe, pc
    cdef NsVec v
    cdef Py_ssize_t k
    cdef int r
    cdef bint code
    out[0] = -1
    ng111_is_code_block_element(c, i, &code)
    if code:
        return ng_handle_code_blocks(c, i, out)
    r = _s1_new_like(c, d.nodes[i].tag, -1, &pe)
    if r != NS_OK:
        return r
    nsv_init(&v)
    r = _s1_snapshot(d, i, True, &v)
    for k in range(v.len if r == NS_OK else 0):
        r = ng111_process_node(c, v.data[k], &pc)
        if r == NS_OK:
            r = _s1_define_newelem(c, pc, pe)
        if r != NS_OK:
            break
        d.nodes[v.data[k]].tag = c.name[NG_DONE]
    nsv_free(&v)
    if r != NS_OK:
        return r
    if _nx_has_text(c, pe):
        r = ng_strip_tags(c, pe, ng_bit(NG_QUOTE))
        if r != NS_OK:
            return r
        out[0] = pe
    return NS_OK


cdef int ng111_handle_other_elements(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    "1.11.0's handle_other_elements"
    cdef int32_t pe
    cdef int r
    out[0] = -1
    if ng_is(c, i, NG_DIV) and _nx_attr_contains(c.d, i, "class", "w3-code"):
        return ng_handle_code_blocks(c, i, out)
    if not ng_in(potential, c, i):
        return NS_OK
    if not ng_is(c, i, NG_DIV):
        return NS_OK
    r = ng111_handle_textnode(c, i, False, True, &pe)
    if r != NS_OK or pe < 0:
        return r
    if _slot_blank(c.d, _slot_of(c.d, pe, False)):
        return NS_OK
    c.d.nodes[pe].attr_count = 0
    if ng_is(c, pe, NG_DIV):
        c.d.nodes[pe].tag = c.name[NG_P]
    out[0] = pe
    return NS_OK


cdef int _s1_flatten_formatting(NgCtx* c, int32_t p) noexcept nogil:
    """handle_paragraphs' ``for item in processed_child: if text_chars_test(item.text): item.text =
    " " + item.text; strip_tags(processed_child, item.tag)`` as lxml runs it: its child iterator
    takes the next sibling when it hands one out, so a sibling the strip took meanwhile (the same
    tag) is handed out detached (no text, no sibling: the loop ends there), and the children of
    the tags it never reached stay. A node that is no element below ``p``: NEED_PYTHON."""
    cdef DocData* d = c.d
    cdef int32_t item, nxt, tagid
    cdef TagSet ts
    cdef NxBuf b
    cdef int r
    item = dom_preorder_next(d, p, p)
    while item >= 0:
        if d.nodes[item].tag < 0:
            return NS_NEED_PYTHON
        item = dom_preorder_next(d, item, p)
    item = d.nodes[p].first
    while item >= 0:
        nxt = d.nodes[item].next
        if d.nodes[item].parent >= 0 and _nx_chars(d, item, False):
            _nxb_init(&b)
            if not (_nxb_add(&b, <const uchar*>" ", 1) and _nxb_add_slot(&b, d, _slot_of(d, item, False))):
                free(b.data)
                return NS_ERROR
            if not _utf8_xml_ok(b.data, b.len):
                free(b.data)
                return _nx_need(NX_CHAR)
            r = _nxb_store(&b, d, item, False)
            if r != NS_OK:
                return r
        tagid = d.nodes[item].tag
        tagset_init(&ts, False, &tagid, 1)
        if not dom_strip_tags(d, p, &ts):
            d.error = ERR_MEMORY
            return NS_ERROR
        item = nxt
    return NS_OK


cdef int ng111_handle_paragraphs(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    """1.11.0's handle_paragraphs. Its walk over ``i.iter("*")`` changes text, tails and tags
    only (handle_textnode without comments_fix renames nothing), so a snapshot is lxml's walk,
    but for a <hi>/<ref> child holding children: the strip_tags inside the walk
    (_s1_flatten_formatting) takes its first child out of the tree, where lxml's walk goes next
    (handle_textnode gives None for it, emptied; it is marked done) and then ends. A <hi> without rend: NEED_PYTHON
    (upstream raises)."""
    cdef DocData* d = c.d
    cdef int32_t pe, child, pc, newsub, last, nid
    cdef NsVec v
    cdef Py_ssize_t k
    cdef int r
    cdef bint ends
    cdef int32_t first_child, none
    out[0] = -1
    d.nodes[i].attr_count = 0
    if d.nodes[i].first < 0:
        return ng111_process_node(c, i, out)
    r = _s1_new_like(c, d.nodes[i].tag, -1, &pe)
    if r != NS_OK:
        return r
    nsv_init(&v)
    r = _s1_snapshot(d, i, True, &v)
    for k in range(v.len if r == NS_OK else 0):
        child = v.data[k]
        if not ng_in(potential, c, child) and not ng_is(c, child, NG_DONE):
            continue
        r = ng111_handle_textnode(c, child, False, True, &pc)
        if r != NS_OK:
            break
        if pc >= 0:
            if ng_is(c, pc, NG_P):
                if _slot_truthy(_slot_of(d, pe, False)):
                    if _slot_of(d, pc, False).off < 0:
                        r = NS_NEED_PYTHON        # str + None: TypeError upstream
                        break
                    r = _s1_join_space(c, pe, False, _slot_of(d, pe, False), _slot_of(d, pc, False))
                else:
                    r = _nx_copy_slot(d, pe, False, pc, False)
                if r != NS_OK:
                    break
                d.nodes[child].tag = c.name[NG_DONE]
                continue
            r = _s1_new_like(c, d.nodes[child].tag, -1, &newsub)
            if r != NS_OK:
                break
            ends = False
            if ng_in(S1_P_FORMATTING, c, pc):
                if d.nodes[pc].first >= 0:
                    first_child = d.nodes[pc].first
                    r = _s1_flatten_formatting(c, pc)
                    if r != NS_OK:
                        break
                    ends = True
                if ng_is(c, child, NG_HI):
                    nid = _nx_lookup(d, "rend")
                    if nid < 0 or dom_attr_find(d, child, nid) < 0:
                        r = NS_NEED_PYTHON        # xml_attr_value(None): TypeError upstream
                        break
                    r = _s1_set_attr_copy(c, newsub, child, nid)
                elif ng_is(c, child, NG_REF):
                    nid = _nx_lookup(d, "target")
                    if nid >= 0:
                        r = _s1_set_attr_copy(c, newsub, child, nid)
                if r != NS_OK:
                    break
            r = _nx_copy_slot(d, newsub, False, pc, False)
            if r == NS_OK:
                r = _nx_copy_slot(d, newsub, True, pc, True)
            if r == NS_OK:
                r = ng_append(d, pe, newsub)
            if r != NS_OK:
                break
            if ends:
                # lxml's walk had taken the first child as its next: now detached and emptied,
                # handle_textnode gives None for it, it is marked done (_extract's list still
                # holds it) and the walk ends in it
                d.nodes[child].tag = c.name[NG_DONE]
                if ng_in(potential, c, first_child) or ng_is(c, first_child, NG_DONE):
                    r = ng111_handle_textnode(c, first_child, False, True, &none)
                    if r != NS_OK:
                        break
                    d.nodes[first_child].tag = c.name[NG_DONE]
                break
        d.nodes[child].tag = c.name[NG_DONE]
    nsv_free(&v)
    if r != NS_OK:
        return r
    last = d.nodes[pe].last
    if last >= 0:
        if ng_is(c, last, NG_LB) and d.nodes[last].tail_off < 0:
            unlink_node(d, last)
        out[0] = pe
        return NS_OK
    if _slot_truthy(_slot_of(d, pe, False)):
        out[0] = pe
    return NS_OK


# upstream: trafilatura.utils.is_image_file
cdef bint ng111_is_image_file(const uchar* s, Py_ssize_t n) noexcept nogil:
    """1.11.0's is_image_file: ``re.search(r"[^\s]+\.(avif|bmp|gif|hei[cf]|jpe?g|png|webp)(\b|$)",
    s)``, case-sensitive and without 2.3.1's length cap: a "." after a non-space character, one of
    the extensions, then the end or a character that is no word character."""
    cdef Py_ssize_t p, q, k, m
    cdef Py_UCS4 cp
    cdef const char* ext
    cdef int e
    for p in range(1, n):
        if s[p] != 46:
            continue
        q = p - 1
        while q > 0 and (s[q] & 0xC0) == 0x80:
            q -= 1
        _nt_decode(s, q, n, &cp)
        if _nt_isspace(cp):
            continue
        for e in range(9):
            ext = _NX_IMAGE_EXTS[e]
            m = <Py_ssize_t>strlen(ext)
            k = p + 1
            if k + m > n or memcmp(s + k, ext, <size_t>m) != 0:
                continue
            k += m
            if k >= n:
                return True
            _nt_decode(s, k, n, &cp)
            if not (_nt_isalnum(cp) or cp == 95):
                return True
    return False


cdef int ng111_handle_image(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    """1.11.0's handle_image: ``out`` = a new element (its tag) with src (data-src, src, then the
    first data-src* attribute holding an image file name; a leading "//" becomes "http://" unless
    it starts with "http"), alt and title when present (even empty), no tail; -1 without a
    source. A value lxml's setter refuses: NEED_PYTHON."""
    cdef DocData* d = c.d
    cdef const uchar* v = NULL
    cdef const uchar* w
    cdef Py_ssize_t vn = 0, wn, nn
    cdef const uchar* nb
    cdef NxBuf link
    cdef int r, j
    cdef bint found = False
    cdef int32_t new, nid, k
    cdef Attr a
    cdef const char* names[2]
    out[0] = -1
    names[0] = "data-src"
    names[1] = "src"
    for j in range(2):
        nid = _nx_lookup(d, names[j])
        k = dom_attr_find(d, i, nid) if nid >= 0 else -1
        if k >= 0:
            _nx_attr_bytes(d, &d.attrs[k], &v, &vn)
            if ng111_is_image_file(v, vn):
                found = True
                break
    if not found:
        for j in range(d.nodes[i].attr_count):
            a = d.attrs[d.nodes[i].attr_start + j]
            nb = name_bytes(d, a.name, &nn)
            if nn >= 8 and memcmp(nb, <const char*>"data-src", 8) == 0:
                _nx_attr_bytes(d, &a, &v, &vn)
                if ng111_is_image_file(v, vn):
                    found = True
                    break
    if not found:
        # an image file name is never empty: no src, None
        return NS_OK
    if not _utf8_xml_ok(v, vn):
        return _nx_need(NX_CHAR)
    names[0] = "alt"
    names[1] = "title"
    for j in range(2):
        nid = _nx_lookup(d, names[j])
        k = dom_attr_find(d, i, nid) if nid >= 0 else -1
        if k >= 0:
            _nx_attr_bytes(d, &d.attrs[k], &w, &wn)
            if wn > 0 and not _utf8_xml_ok(w, wn):
                return _nx_need(NX_CHAR)
    _nxb_init(&link)
    if not (vn >= 4 and memcmp(v, <const char*>"http", 4) == 0) and vn >= 2 and v[0] == 47 and v[1] == 47:
        # re.sub(r"^//", "http://", src)
        if not _nxb_add(&link, <const uchar*>"http:", 5):
            return NS_ERROR
    if not _nxb_add(&link, v, vn):
        free(link.data)
        return NS_ERROR
    new = _nx_new(c, d.nodes[i].tag, -1, &r)
    if new < 0:
        free(link.data)
        return r
    nid = intern_name(d, <const uchar*>"src", 3)
    if nid < 0 or not dom_attr_set(d, new, nid, AV_VALUE, link.data, link.len):
        free(link.data)
        return NS_ERROR
    free(link.data)
    for j in range(2):
        nid = _nx_lookup(d, names[j])
        k = dom_attr_find(d, i, nid) if nid >= 0 else -1
        if k >= 0:
            r = _nx_set_attr_from(d, new, d.attrs[k], False)
            if r != NS_OK:
                return r
    out[0] = new
    return NS_OK


cdef int ng111_handle_textelem(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    "1.11.0's handle_textelem with ``potential_tags`` as NG_* bits (a table: NEED_PYTHON)."
    cdef int k = ng_kind(c, i)
    cdef int r
    cdef int32_t this, new
    out[0] = -1
    if k == NG_DONE:
        return NS_OK
    if k == NG_LIST:
        return ng111_handle_lists(c, i, out)
    if k == NG_CODE or k == NG_QUOTE:
        return ng111_handle_quotes(c, i, out)
    if k == NG_HEAD:
        return ng111_handle_titles(c, i, out)
    if k == NG_P:
        return ng111_handle_paragraphs(c, i, potential, out)
    if k == NG_LB:
        if _nx_chars(c.d, i, True):
            r = ng111_process_node(c, i, &this)
            if r != NS_OK or this < 0:
                return r
            new = ng_new_element(c, NG_P, -1)
            if new < 0:
                return NS_ERROR
            r = _nx_copy_slot(c.d, new, False, this, True)
            if r == NS_OK:
                out[0] = new
            return r
        return NS_OK
    if k >= 0 and (S1_FORMATTING >> k) & 1:
        return ng111_handle_formatting(c, i, out)
    if k == NG_TABLE and (potential >> NG_TABLE) & 1:
        return ng111_handle_table(c, i, potential, 0, out)
    if k == NG_GRAPHIC and (potential >> NG_GRAPHIC) & 1:
        return ng111_handle_image(c, i, out)
    return ng111_handle_other_elements(c, i, potential, out)


# -- handle_table (1.11.0) ----------------------------------------------------------------------

cdef enum:
    S1_TABLE_MAX_DEPTH = 8     # nested tables reached through handle_textelem inside a cell


cdef int _s1_colspan(NgCtx* c, int32_t cell, int32_t colspan_id, int64_t* out) noexcept nogil:
    """``int(cell.get("colspan", 1))`` for plain ASCII digits (at most 9); anything else int()
    might parse or refuse (whitespace, signs, other digits, '' raising ValueError): NEED_PYTHON."""
    cdef int32_t k = dom_attr_find(c.d, cell, colspan_id) if colspan_id >= 0 else -1
    cdef const uchar* v
    cdef Py_ssize_t n, j
    cdef int64_t x = 0
    if k < 0:
        out[0] = 1
        return NS_OK
    if c.d.attrs[k].kind != AV_VALUE:
        return NS_NEED_PYTHON
    _nx_attr_bytes(c.d, &c.d.attrs[k], &v, &n)
    if n < 1 or n > 9:
        return NS_NEED_PYTHON
    for j in range(n):
        if v[j] < 48 or v[j] > 57:
            return NS_NEED_PYTHON
        x = x * 10 + (v[j] - 48)
    out[0] = x
    return NS_OK


cdef int _s1_new_row(NgCtx* c, int32_t span_id, const uchar* span, Py_ssize_t span_n, int32_t* out) noexcept nogil:
    """``Element("row", **row_attrs)``"""
    out[0] = ng_new_element(c, NG_ROW, -1)
    if out[0] < 0:
        return NS_ERROR
    if span_n > 0 and not dom_attr_set(c.d, out[0], span_id, AV_VALUE, span, span_n):
        return NS_ERROR
    return NS_OK


cdef int ng111_handle_table(NgCtx* c, int32_t t, uint64_t potential, int depth, int32_t* out) noexcept nogil:
    """1.11.0's handle_table: thead/tbody/tfoot stripped, the widest row's colspans as every row's
    span (but the last row's), then lxml's live walk over the table's descendants (NxWalk: the
    next node is found when one is handed out, on the tree as it then is): a tr closes the row, a
    td/th becomes a cell (a header until a row with one is closed), a childless cell through
    process_node, another through its own live walk (td/th/hi through handle_textnode with
    comments_fix, lists in recall through handle_lists, the rest through handle_textelem with
    div), a nested table ends the walk; every element it meets is marked done."""
    cdef DocData* d = c.d
    cdef int32_t newtable, newrow, tr, cell, new, sub, child, pc, span_id, role_id, colspan_id
    cdef int64_t max_cols = 0, row_cols, cs
    cdef uchar span[24]
    cdef Py_ssize_t span_n = 0
    cdef bint seen_header_row = False, seen_header = False, is_header
    cdef NxWalk walk, inner
    cdef uint64_t cell_tags = potential | ng_bit(NG_DIV)
    cdef int r = NS_OK, kind
    cdef int64_t x
    cdef Py_ssize_t k
    out[0] = -1
    if depth > S1_TABLE_MAX_DEPTH:
        return _nx_need(NX_TABLE)
    r = ng_strip_tags(c, t, ng_bit(NG_THEAD) | ng_bit(NG_TBODY) | ng_bit(NG_TFOOT))
    if r != NS_OK:
        return r
    span_id = intern_name(d, <const uchar*>"span", 4)
    role_id = intern_name(d, <const uchar*>"role", 4)
    colspan_id = dom_lookup_name(d, <const uchar*>"colspan", 7)
    if span_id < 0 or role_id < 0:
        return NS_ERROR
    # the widest row: for tr in table.iter("tr"): sum of the colspans of tr.iter("td", "th")
    tr = t
    while tr >= 0:
        if ng_is(c, tr, NG_TR):
            row_cols = 0
            cell = dom_preorder_next(d, tr, tr)
            while cell >= 0:
                if ng_is(c, cell, NG_TD) or ng_is(c, cell, NG_TH):
                    r = _s1_colspan(c, cell, colspan_id, &cs)
                    if r != NS_OK:
                        return _nx_need(NX_TABLE)
                    row_cols += cs
                    if row_cols > 1000000000:
                        return _nx_need(NX_TABLE)
                cell = dom_preorder_next(d, cell, tr)
            if row_cols > max_cols:
                max_cols = row_cols
        tr = dom_preorder_next(d, tr, t)
    if max_cols > 1:
        x = max_cols
        while x > 0:
            span[span_n] = <uchar>(48 + x % 10)
            span_n += 1
            x //= 10
        for k in range(span_n // 2):
            span[k], span[span_n - 1 - k] = span[span_n - 1 - k], span[k]
    newtable = ng_new_element(c, NG_TABLE, -1)
    if newtable < 0:
        return NS_ERROR
    r = _s1_new_row(c, span_id, span, span_n, &newrow)
    if r != NS_OK:
        return r
    _nx_walk_init(d, &walk, t, -1, False)
    while r == NS_OK:
        sub = _nx_walk_next(d, &walk)
        if sub < 0:
            break
        kind = ng_kind(c, sub)
        if kind == NG_TR:
            if d.nodes[newrow].first >= 0:
                r = ng_append(d, newtable, newrow)
                if r != NS_OK:
                    break
                r = _s1_new_row(c, span_id, span, span_n, &newrow)
                if r != NS_OK:
                    break
                seen_header_row = seen_header_row or seen_header
        elif kind == NG_TD or kind == NG_TH:
            is_header = kind == NG_TH and not seen_header_row
            seen_header = seen_header or is_header
            new = ng_new_element(c, NG_CELL, -1)
            if new < 0:
                r = NS_ERROR
                break
            if is_header and not dom_attr_set(d, new, role_id, AV_VALUE, <const uchar*>"head", 4):
                r = NS_ERROR
                break
            if d.nodes[sub].first < 0:
                r = ng111_process_node(c, sub, &pc)
                if r == NS_OK and pc >= 0:
                    r = _nx_copy_slot(d, new, False, pc, False)
                    if r == NS_OK:
                        r = _nx_copy_slot(d, new, True, pc, True)
            else:
                r = _nx_copy_slot(d, new, False, sub, False)
                if r == NS_OK:
                    r = _nx_copy_slot(d, new, True, sub, True)
                d.nodes[sub].tag = c.name[NG_DONE]
                _nx_walk_init(d, &inner, sub, -1, False)
                while r == NS_OK:
                    child = _nx_walk_next(d, &inner)
                    if child < 0:
                        break
                    kind = ng_kind(c, child)
                    pc = -1
                    if kind == NG_TD or kind == NG_TH or kind == NG_HI:
                        if kind != NG_HI:
                            d.nodes[child].tag = c.name[NG_CELL]
                        r = ng111_handle_textnode(c, child, True, True, &pc)
                    elif kind == NG_LIST and c.o.focus == NG_RECALL:
                        r = ng111_handle_lists(c, child, &pc)
                        if r == NS_OK and pc >= 0:
                            r = ng_append(d, new, pc)
                        pc = -1
                    elif kind == NG_TABLE and (cell_tags >> NG_TABLE) & 1:
                        r = ng111_handle_table(c, child, cell_tags, depth + 1, &pc)
                    else:
                        r = ng111_handle_textelem(c, child, cell_tags, &pc)
                    if r == NS_OK:
                        r = _s1_define_newelem(c, pc, new)
                    d.nodes[child].tag = c.name[NG_DONE]
                if r != NS_OK:
                    break
            if r != NS_OK:
                break
            if _slot_truthy(_slot_of(d, new, False)) or d.nodes[new].first >= 0:
                r = ng_append(d, newrow, new)
                if r != NS_OK:
                    break
        elif kind == NG_TABLE:
            # a nested table ends this one (1.11.0), left unmarked
            break
        d.nodes[sub].tag = c.name[NG_DONE]
    if r != NS_OK:
        return r
    # newrow.attrib.pop("span", None): the last row has no span
    d.nodes[newrow].attr_count = 0
    if d.nodes[newrow].first >= 0:
        r = ng_append(d, newtable, newrow)
        if r != NS_OK:
            return r
    if d.nodes[newtable].first >= 0:
        out[0] = newtable
    return NS_OK


cdef int _s1_p_text_stats(NgCtx* c, int32_t root, int64_t* count, int64_t* length) noexcept nogil:
    """``//p//text()`` over the document ``root`` heads (ex111_p_text_stats): how many text
    nodes, the code points of their concatenation; when ``root`` is a top-level element of the
    page's document (c.doc_roots), over every one of them."""
    cdef int t
    count[0] = 0
    length[0] = 0
    if _s1_in_doc(c, root):
        for t in range(c.n_doc_roots):
            _s1_p_text_stats_one(c, c.doc_roots[t], count, length)
        return NS_OK
    _s1_p_text_stats_one(c, root, count, length)
    return NS_OK


cdef bint _s1_in_doc(NgCtx* c, int32_t i) noexcept nogil:
    """``i`` is in the page's document (under one of c.doc_roots), not in a copy made since (a
    document of its own upstream)."""
    cdef int32_t top = i
    cdef int t
    while c.d.nodes[top].parent >= 0:
        top = c.d.nodes[top].parent
    if c.tree_detached and top == c.detached_tree:
        return True
    for t in range(c.n_doc_roots):
        if c.doc_roots[t] == top:
            return True
    return False


cdef int _s1_p_text_stats_one(NgCtx* c, int32_t root, int64_t* count, int64_t* length) noexcept nogil:
    "_s1_p_text_stats from one top-level element, added to the counts."
    cdef DocData* d = c.d
    cdef int32_t i = root, p_id = c.name[NG_P]
    while True:
        if d.nodes[i].tag == p_id:
            _p_stats_subtree(d, i, count, length)
        elif d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            break
        i = d.nodes[i].next
    return NS_OK


cdef int _s1_link_tables(NgCtx* c, int32_t subtree) noexcept nogil:
    """_extract's ``for elem in subtree.iter("table"): if link_density_test_tables(elem):
    elem.getparent().remove(elem)`` (1.11.0's test, the tail leaving with the table). The live
    walk after removing a table that holds another one goes on inside the detached subtree:
    NEED_PYTHON there; otherwise a snapshot is the walk."""
    cdef DocData* d = c.d
    cdef PruneIds ids
    cdef NsVec v
    cdef Py_ssize_t k
    cdef int32_t i, table = c.name[NG_TABLE], j
    cdef int r = NS_OK
    _ngp_prune_ids(c, &ids)
    nsv_init(&v)
    i = subtree
    while i >= 0:
        if d.nodes[i].tag == table and nsv_push(&v, i) < 0:
            nsv_free(&v)
            return NS_ERROR
        i = dom_preorder_next(d, i, subtree)
    for k in range(v.len):
        i = v.data[k]
        if not _table_test(d, i, &ids, True):
            continue
        if d.nodes[i].parent < 0:
            r = NS_NEED_PYTHON
            break
        j = dom_preorder_next(d, i, i)
        while j >= 0:
            if d.nodes[j].tag == table:
                r = NS_NEED_PYTHON
                break
            j = dom_preorder_next(d, j, i)
        if r != NS_OK:
            break
        unlink_node(d, i)
    nsv_free(&v)
    return r


cdef int ng111__extract(NgCtx* c, const NgSelectors* s, int32_t tree, int32_t* body_out, NgStr* temp_text,
                        uint64_t* potential_out) noexcept nogil:
    """1.11.0's main_extractor._extract: the result body (a new detached <body>), temp_text, and
    the potential tags it ended with."""
    cdef DocData* d = c.d
    cdef uint64_t potential = S1_TAG_CATALOG
    cdef int32_t body, subtree, i, last, n_body, pc, pruned, doc_root
    cdef int64_t nodes, plen
    cdef int r = NS_OK, k, factor
    cdef bint only_lb, any_desc
    cdef NsVec subelems, processed
    cdef Py_ssize_t j
    if c.o.tables:
        potential |= ng_bit(NG_TABLE) | ng_bit(NG_TD) | ng_bit(NG_TH) | ng_bit(NG_TR)
    if c.o.images:
        potential |= ng_bit(NG_GRAPHIC)
    if c.o.links:
        potential |= ng_bit(NG_REF)
    body = ng_new_element(c, NG_BODY, -1)
    if body < 0:
        return NS_ERROR
    body_out[0] = body
    nsv_init(&subelems)
    nsv_init(&processed)
    for k in range(5):          # BODY_XPATH
        r = ng_first_body_match(c, s, k, tree, &subtree)
        if r != NS_OK:
            break
        if subtree < 0:
            continue
        doc_root = tree
        r = ng111_prune_unwanted_sections(c, s, subtree, potential, &pruned)
        if r != NS_OK:
            break
        if pruned != subtree:
            # the backup copy: a document of its own, where the absolute //p//text() looks
            subtree = pruned
            doc_root = pruned
        if (potential >> NG_TABLE) & 1 or c.o.focus == NG_PRECISION:
            r = _s1_link_tables(c, subtree)
            if r != NS_OK:
                break
        if d.nodes[subtree].first < 0:
            continue
        factor = 1 if c.o.focus == NG_PRECISION else 3
        # absolute: over the document of ``tree`` (its root), even when the link-density pass
        # deleted the subtree itself (a detached element still belongs to its old document)
        _s1_p_text_stats(c, doc_root, &nodes, &plen)
        if nodes == 0 or plen < <int64_t>c.o.min_extracted_size * factor:
            potential |= ng_bit(NG_DIV)
        r = ng_strip_tags(c, subtree, ng_bit(NG_SPAN) | (0 if (potential >> NG_REF) & 1 else ng_bit(NG_REF)))
        if r != NS_OK:
            break
        subelems.len = 0
        only_lb = True
        any_desc = False
        i = dom_preorder_next(d, subtree, subtree)
        while i >= 0:
            any_desc = True
            if not ng_is(c, i, NG_LB):
                only_lb = False
            if nsv_push(&subelems, i) < 0:
                r = NS_ERROR
                break
            i = dom_preorder_next(d, i, subtree)
        if r != NS_OK:
            break
        if only_lb and any_desc:
            subelems.len = 0
            if nsv_push(&subelems, subtree) < 0:
                r = NS_ERROR
                break
        # a list comprehension upstream: every element is handled before any is appended
        processed.len = 0
        for j in range(subelems.len):
            r = ng111_handle_textelem(c, subelems.data[j], potential, &pc)
            if r != NS_OK:
                break
            if pc >= 0 and nsv_push(&processed, pc) < 0:
                r = NS_ERROR
                break
        if r != NS_OK:
            break
        for j in range(processed.len):
            r = ng_append(d, body, processed.data[j])
            if r != NS_OK:
                break
        if r != NS_OK:
            break
        while True:
            last = d.nodes[body].last
            if last < 0 or not ng_in(S1_NOT_AT_THE_END, c, last):
                break
            unlink_node(d, last)
        n_body = _sq_n_children(d, body)
        if n_body > 1:
            break
    nsv_free(&subelems)
    nsv_free(&processed)
    if r != NS_OK:
        return r
    potential_out[0] = potential
    return ng_itertext_join_strip(d, body, temp_text)


cdef int ng111_recover_wild_text(NgCtx* c, const NgSelectors* s, int32_t tree, int32_t body,
                                 uint64_t potential) noexcept nogil:
    """1.11.0's recover_wild_text: the pruned tree's blockquote/code/p/pre/q/quote/table (and
    w3-code divs; in recall every div, lb and list) through handle_textelem, each result
    appended as it comes."""
    cdef DocData* d = c.d
    cdef bint recall = c.o.focus == NG_RECALL
    cdef uint64_t wild
    cdef NsVec subelems
    cdef int32_t i, pc
    cdef Py_ssize_t k
    cdef int r
    if recall:
        potential |= ng_bit(NG_DIV) | ng_bit(NG_LB)
    r = ng111_prune_unwanted_sections(c, s, tree, potential, &tree)
    if r != NS_OK:
        return r
    if not (potential >> NG_REF) & 1:
        r = ng_strip_tags(c, tree, ng_bit(NG_A) | ng_bit(NG_REF) | ng_bit(NG_SPAN))
    else:
        r = ng_strip_tags(c, tree, ng_bit(NG_SPAN))
    if r != NS_OK:
        return r
    wild = S1_WILD_RECALL if recall else S1_WILD
    nsv_init(&subelems)
    i = dom_preorder_next(d, tree, tree)
    while i >= 0:
        if ng_in(wild, c, i) or (ng_is(c, i, NG_DIV) and _nx_attr_contains(d, i, "class", "w3-code")):
            if nsv_push(&subelems, i) < 0:
                nsv_free(&subelems)
                return NS_ERROR
        i = dom_preorder_next(d, i, tree)
    for k in range(subelems.len):
        r = ng111_handle_textelem(c, subelems.data[k], potential, &pc)
        if r != NS_OK:
            break
        if pc >= 0:
            r = ng_append(d, body, pc)
            if r != NS_OK:
                break
    nsv_free(&subelems)
    return r


cdef int ng111_extract_content(NgCtx* c, const NgSelectors* s, int32_t cleaned, int32_t* body_out,
                               NgStr* temp_text) noexcept nogil:
    "1.11.0's main_extractor.extract_content: the result body and temp_text."
    cdef DocData* d = c.d
    cdef int32_t backup, body = -1
    cdef uint64_t potential = 0
    cdef int r
    backup = ng_copy_subtree(d, cleaned, True)
    if backup < 0:
        return NS_ERROR
    r = ng111__extract(c, s, cleaned, &body, temp_text, &potential)
    body_out[0] = body
    if r != NS_OK:
        return r
    if d.nodes[body].first < 0 or ngs_code_points(temp_text.p, temp_text.n) < c.o.min_extracted_size:
        r = ng111_recover_wild_text(c, s, backup, body, potential)
        if r != NS_OK:
            return r
        r = ng_itertext_join_strip(d, body, temp_text)
        if r != NS_OK:
            return r
    r = ng_strip_elements(c, body, ng_bit(NG_DONE), True)
    if r != NS_OK:
        return r
    return ng_strip_tags(c, body, ng_bit(NG_DIV))


cdef int ng111_extract_comments(NgCtx* c, const NgSelectors* s, int32_t tree, int32_t* body_out,
                                NgStr* temp_comments) noexcept nogil:
    """1.11.0's main_extractor.extract_comments: the comments body (a new detached <body>) and
    its text; the comment section it took leaves the tree, its tail with it."""
    cdef DocData* d = c.d
    cdef int32_t body, subtree, el, pc
    cdef NsVec elems
    cdef Py_ssize_t j
    cdef int k, r = NS_OK
    body = ng_new_element(c, NG_BODY, -1)
    if body < 0:
        return NS_ERROR
    body_out[0] = body
    nsv_init(&elems)
    for k in range(4):          # COMMENTS_XPATH
        r = ng_first_comments_match(c, s, k, tree, &subtree)
        if r != NS_OK:
            break
        if subtree < 0:
            continue
        r = ng111_prune_unwanted_nodes(c, s, NGL_COMMENTS_DISCARD, subtree, False)
        if r != NS_OK:
            break
        r = ng_strip_tags(c, subtree, ng_bit(NG_A) | ng_bit(NG_REF) | ng_bit(NG_SPAN))
        if r != NS_OK:
            break
        # the snapshot filtered first: handle_textnode renames only the element it is given
        elems.len = 0
        r = _sq_vec_of_descendants(c, subtree, S1_TAG_CATALOG, &elems)
        if r != NS_OK:
            break
        for j in range(elems.len):
            el = elems.data[j]
            if not ng_in(S1_TAG_CATALOG, c, el):
                continue
            r = ng111_handle_textnode(c, el, True, False, &pc)
            if r != NS_OK:
                break
            if pc < 0:
                continue
            d.nodes[pc].attr_count = 0
            r = ng_append(d, body, pc)
            if r != NS_OK:
                break
        if r != NS_OK:
            break
        if d.nodes[body].first >= 0:
            if d.nodes[subtree].parent < 0:
                r = NS_NEED_PYTHON
                break
            unlink_node(d, subtree)
            break
    nsv_free(&elems)
    if r != NS_OK:
        return r
    return ng_itertext_join_strip(d, body, temp_comments)


# -- baseline.baseline (1.11.0) ------------------------------------------------------------------

cdef int _s1_trim_content(DocData* d, int32_t top, NgStr* out) noexcept nogil:
    "``trim(top.text_content())`` (1.11.0: '' for blank) into ``out``."
    cdef Py_ssize_t n = ng_trim_itertext(d, top, False, False, NULL)
    out.n = 0
    if n == 0:
        return NS_OK
    if ngs_reserve(out, n) != NS_OK:
        return NS_ERROR
    out.n = ng_trim_itertext(d, top, False, False, out.p)
    return NS_OK


cdef int _s1_add_p(NgCtx* c, int32_t body, NgStr* text, NgStr* temp) noexcept nogil:
    """``SubElement(body, "p").text = xml_text(text)``; ``temp_text += " " + text if temp_text
    else text``."""
    cdef int32_t p = ng_new_element(c, NG_P, body)
    cdef int r
    if p < 0:
        return NS_ERROR
    r = ng_set_slot(c.d, p, False, text.p if text.n else <const uchar*>"", text.n, False)
    if r != NS_OK:
        return r
    if temp.n and ngs_append(temp, <const uchar*>" ", 1) != NS_OK:
        return NS_ERROR
    return ngs_append(temp, text.p, text.n)


cdef struct S1Lines:
    NgStr* s
    bint started


cdef int _s1_trimmed_line(void* state, const uchar* p, int32_t n) noexcept nogil:
    """One piece of ``"\\n".join([trim(e) for e in body.itertext()])``."""
    cdef S1Lines* st = <S1Lines*>state
    cdef ExCollapse col
    cdef Py_ssize_t k
    if st.started and ngs_append(st.s, <const uchar*>"\n", 1) != NS_OK:
        return NS_ERROR
    st.started = True
    col.out = NULL
    col.len = 0
    col.pending = False
    col.started = False
    _ex_collapse_feed(&col, p, n)
    k = col.len
    if k == 0:
        return NS_OK
    if ngs_reserve(st.s, k) != NS_OK:
        return NS_ERROR
    col.out = st.s.p + st.s.n
    col.len = 0
    col.pending = False
    col.started = False
    _ex_collapse_feed(&col, p, n)
    st.s.n += col.len
    return NS_OK


# baseline.BASIC_CLEAN_XPATH (1.11.0): .//aside|.//footer|.//script|.//style
cdef const char* S1_BASIC_CLEAN[4]
S1_BASIC_CLEAN[:] = [b"aside", b"footer", b"script", b"style"]


cdef int ng111_baseline(NgCtx* c, int32_t tree, int32_t* body_out, NgStr* temp) noexcept nogil:
    """1.11.0's baseline.baseline on ``tree`` (the raw tree's copy, changed in place as upstream
    changes it): a JSON-LD script holding "articleBody" answers NEED_PYTHON (json); then
    basic_cleaning, the <article> texts over 100 characters, the deduplicated paragraph texts
    (over 100 characters in all), else the body's trimmed text pieces joined by newlines."""
    cdef DocData* d = c.d
    cdef int32_t body, i, type_id, script_id, p, bd, q_id
    cdef int32_t clean[4]
    cdef NsVec v, seen
    cdef NgStr t, all_seen
    cdef S1Lines lines
    cdef Py_ssize_t k, j
    cdef int r = NS_OK, n_clean = 0
    cdef bint dup
    cdef const uchar* val
    cdef Py_ssize_t vn
    cdef TagSet ts
    temp.n = 0
    body_out[0] = -1
    type_id = dom_lookup_name(d, <const uchar*>"type", 4)
    script_id = dom_lookup_name(d, <const uchar*>"script", 6)
    i = dom_preorder_next(d, tree, tree)
    while i >= 0 and script_id >= 0:
        if d.nodes[i].tag == script_id and type_id >= 0:
            k = dom_attr_find(d, i, type_id)
            if k >= 0:
                _nx_attr_bytes(d, &d.attrs[k], &val, &vn)
                if (vn == 19 and memcmp(val, <const uchar*>"application/ld+json", 19) == 0
                        and d.nodes[i].text_off >= 0
                        and _contains_bytes(d.text.data + d.nodes[i].text_off, d.nodes[i].text_len,
                                            <const uchar*>"articleBody", 11, False)):
                    return NS_NEED_PYTHON
        i = dom_preorder_next(d, i, tree)
    body = ng_new_element(c, NG_BODY, -1)
    if body < 0:
        return NS_ERROR
    body_out[0] = body
    # basic_cleaning: .//aside|.//footer|.//script|.//style, each deleted with its tail kept
    for j in range(4):
        i = dom_lookup_name(d, <const uchar*>S1_BASIC_CLEAN[j], <Py_ssize_t>strlen(S1_BASIC_CLEAN[j]))
        if i >= 0:
            clean[n_clean] = i
            n_clean += 1
    nsv_init(&v)
    nsv_init(&seen)
    ngs_init(&t)
    ngs_init(&all_seen)
    if n_clean:
        tagset_init(&ts, False, clean, n_clean)
        i = dom_preorder_next(d, tree, tree)
        while i >= 0:
            if tag_matches(&ts, d.nodes[i].tag) and nsv_push(&v, i) < 0:
                r = NS_ERROR
                break
            i = dom_preorder_next(d, i, tree)
        for k in range(v.len if r == NS_OK else 0):
            r = ng_delete(d, v.data[k], True)
            if r != NS_OK:
                break
    # the <article> texts
    i = dom_preorder_next(d, tree, tree) if r == NS_OK else -1
    while i >= 0:
        if ng_is(c, i, NG_ARTICLE):
            r = _s1_trim_content(d, i, &t)
            if r == NS_OK and ngs_code_points(t.p, t.n) > 100:
                r = _s1_add_p(c, body, &t, temp)
            if r != NS_OK:
                break
        i = dom_preorder_next(d, i, tree)
    if r == NS_OK and d.nodes[body].first < 0:
        # the paragraph texts, each once
        q_id = dom_lookup_name(d, <const uchar*>"q", 1)
        i = tree
        while i >= 0:
            if (ng_is(c, i, NG_BLOCKQUOTE) or ng_is(c, i, NG_CODE) or ng_is(c, i, NG_P) or ng_is(c, i, NG_PRE)
                    or ng_is(c, i, NG_QUOTE) or _s1_is_q(d, i, q_id)):
                r = _s1_trim_content(d, i, &t)
                if r != NS_OK:
                    break
                dup = False
                for j in range(0, seen.len, 2):
                    if seen.data[j + 1] == t.n and (t.n == 0 or memcmp(all_seen.p + seen.data[j], t.p, <size_t>t.n) == 0):
                        dup = True
                        break
                if not dup:
                    r = _s1_add_p(c, body, &t, temp)
                    if r != NS_OK:
                        break
                    if all_seen.n > 0x7FFFFFFF - t.n:
                        r = NS_ERROR
                        break
                    if nsv_push(&seen, <int32_t>all_seen.n) < 0 or nsv_push(&seen, <int32_t>t.n) < 0:
                        r = NS_ERROR
                        break
                    r = ngs_append(&all_seen, t.p, t.n)
                    if r != NS_OK:
                        break
            i = dom_preorder_next(d, i, tree)
        if r == NS_OK and ngs_code_points(temp.p, temp.n) <= 100:
            # the body's text pieces
            temp.n = 0
            body = ng_new_element(c, NG_BODY, -1)
            body_out[0] = body
            p = ng_new_element(c, NG_P, body) if body >= 0 else -1
            if p < 0:
                r = NS_ERROR
            else:
                bd = dom_preorder_next(d, tree, tree)
                while bd >= 0 and not ng_is(c, bd, NG_BODY):
                    bd = dom_preorder_next(d, bd, tree)
                if bd >= 0:
                    lines.s = temp
                    lines.started = False
                    r = ng_itertext_pieces(d, bd, _s1_trimmed_line, &lines)
                if r == NS_OK:
                    r = ng_set_slot(d, p, False, temp.p if temp.n else <const uchar*>"", temp.n, False)
    nsv_free(&v)
    nsv_free(&seen)
    ngs_free(&t)
    ngs_free(&all_seen)
    return r


# -- core.bare_extraction's sequence (1.11.0) ------------------------------------------------------

cdef enum:
    S1_AT_INPUT = 0        # options or input the C does not take (counted by sequence_1_11_0)
    S1_AT_CLEANING
    S1_AT_CONVERSION
    S1_AT_COMMENTS
    S1_AT_COMMENTS_PRUNE
    S1_AT_EXTRACTION
    S1_AT_TABLE            # a table reached handle_textelem (handle_table stays in Python)
    S1_AT_COMPARE          # compare_extraction (its prunes and verdicts)
    S1_AT_BASELINE         # the baseline
    S1_AT_READABILITY      # try_readability (NRD_* causes)
    S1_AT_JUSTEXT          # justext_rescue
    S1_AT_SANITIZE         # sanitize_tree
    S1_AT_DEDUP            # the deduplication cache (LRU_CAUSES), or a count below -1 (1.11.0's put_in_cache)
    S1_AT_N

cdef Py_ssize_t S1_NEED[S1_AT_N]
cdef Py_ssize_t S1_DONE = 0
cdef Py_ssize_t S1_RD_NEED[NRD_N]    # pages readability handed back, by NRD_* cause
cdef const char* S1_AT_NAMES[S1_AT_N]
S1_AT_NAMES[:] = [b"input", b"cleaning", b"conversion", b"comments", b"comments prune", b"extraction",
                  b"table", b"compare_extraction", b"baseline", b"readability", b"justext", b"sanitize_tree",
                  b"deduplication"]


cdef struct S1Out:
    int32_t postbody
    int postbody_kind      # SQ_BODY_* (what the Python objects are made of)
    int32_t commentsbody   # -1: None (comments off)
    NgStr temp_text
    NgStr temp_comments
    int at


# -- external.py (1.11.0): justext_rescue, sanitize_tree, compare_extraction ------------------

cdef enum:
    S1_SANITIZED_N = 19

# 1.11.0's SANITIZED_XPATH (no fencedframe)
cdef const char* S1_SANITIZED_NAMES[S1_SANITIZED_N]
S1_SANITIZED_NAMES[:] = [b"aside", b"audio", b"button", b"fieldset", b"figure", b"footer", b"iframe", b"input",
                         b"label", b"link", b"nav", b"noindex", b"noscript", b"object", b"option", b"select",
                         b"source", b"svg", b"time"]


# upstream: trafilatura.external.justext_rescue
cdef int ng111_justext_rescue(NgCtx* c, const NgSelectors* s, const NgJtStoplist* sl, int32_t tree,
                              int32_t* body_out, Buf* text, Py_ssize_t* text_len) noexcept nogil:
    """1.11.0's justext_rescue(tree, options, postbody, 0, ""): PAYWALL_DISCARD_XPATH and
    REMOVE_COMMENTS_XPATH pruned from ``tree`` in place (1.11.0's prune_unwanted_nodes), then
    try_justext (1.11.0's parameters, c.o.release) with ``sl`` = ng111_jt_stoplist(lang):
    ``body_out`` the new <body>, ``text``/``text_len`` its trimmed text (result_bool is
    ``text_len > 0``)."""
    cdef int r, cause = 0
    body_out[0] = -1
    text_len[0] = 0
    text.len = 0
    r = ng111_prune_unwanted_nodes(c, s, NGL_PAYWALL, tree, False)
    if r == NS_OK:
        r = ng111_prune_unwanted_nodes(c, s, NGL_REMOVE_COMMENTS, tree, False)
    if r == NS_OK:
        r = _ngjt_try_justext(c, sl, tree, body_out, text, text_len, &cause)
    if r == NS_ERROR and c.d.error == 0:
        c.d.error = ERR_MEMORY
    if r != NS_OK:
        body_out[0] = -1
        text_len[0] = 0
        text.len = 0
    return r


cdef int _s1_prune_html_outside(NgCtx* c, int32_t tree) noexcept nogil:
    """The rest of 1.11.0's prune_html for readability's re-parsed ``tree``: its XPath
    ``//*[not(node())]`` is absolute, so beyond the tree's descendants (ng_prune_html) it deletes
    the empty CUT_EMPTY_ELEMS of the whole re-parsed document, ``tree`` itself included (the
    deletions inside and outside the tree touch disjoint nodes, but for a tail joined to the
    tree's own: they commute). Tails kept, in document order."""
    cdef DocData* d = c.d
    cdef int32_t ids[NP_MAX_IDS]
    cdef int n = _np_known_ids(d, _NP_CUT_EMPTY, NP_N_CUT_EMPTY, ids, 0)
    cdef int32_t top = tree, i
    cdef NsVec v
    cdef Py_ssize_t k
    cdef int r = NS_OK
    if n == 0:
        return NS_OK
    while d.nodes[top].parent >= 0:
        top = d.nodes[top].parent
    nsv_init(&v)
    i = top
    while i >= 0:
        if _id_in(d.nodes[i].tag, ids, n) and d.nodes[i].text_off < 0 and d.nodes[i].first < 0:
            if nsv_push(&v, i) < 0:
                d.error = ERR_MEMORY
                r = NS_ERROR
                break
        if i == tree:
            # the tree's descendants were pruned by ng_prune_html: skip its subtree
            while i != top and d.nodes[i].next < 0:
                i = d.nodes[i].parent
            i = -1 if i == top else d.nodes[i].next
        else:
            i = dom_preorder_next(d, i, top)
    if r == NS_OK:
        for k in range(v.len):
            r = ng_delete(d, v.data[k], True)
            if r != NS_OK:
                break
    nsv_free(&v)
    return r


# upstream: trafilatura.external.sanitize_tree
cdef int ng111_sanitize_tree(NgCtx* c, int32_t tree, int32_t* out, Buf* text, Py_ssize_t* text_len) noexcept nogil:
    """1.11.0's sanitize_tree(tree, options): tree_cleaning (``*out``: the tree or its
    recall copy), span (and a without links) stripped, convert_tags without URL, td/th/tr as cell/row (th with
    role=head), the tags outside TEI_VALID_TAGS stripped; ``text`` = trim(" ".join(itertext())).
    (Its ``tree.findall(SANITIZED_XPATH)`` is ElementPath reading ``aside|.`` as one name: never
    a match.)"""
    cdef DocData* d = c.d
    cdef int32_t i, role = -1, parent0 = d.nodes[tree].parent
    cdef int r
    text_len[0] = 0
    r = _np_tree_cleaning(c, tree, out)
    if r == NS_OK and out[0] == tree and parent0 >= 0:
        if d.nodes[tree].parent < 0:
            # the cleaning list held the tree's own tag (tree.iter() starts with it): upstream's
            # absolute prune then walks a document without the tree, the C walked the tree
            return NS_NEED_PYTHON
        r = _s1_prune_html_outside(c, tree)
    tree = out[0]
    if r == NS_OK:
        # 1.11.0 keeps the a with links (convert_tags then makes them ref, without a base URL)
        r = ng_strip_tags(c, tree, ng_bit(NG_SPAN) | (0 if c.o.links else ng_bit(NG_A)))
    if r == NS_OK:
        r = ng_convert_tags(c, tree, False)
    if r != NS_OK:
        return r
    i = tree
    while i >= 0:
        if d.nodes[i].tag == c.name[NG_TR]:
            d.nodes[i].tag = c.name[NG_ROW]
        elif d.nodes[i].tag == c.name[NG_TD] or d.nodes[i].tag == c.name[NG_TH]:
            if d.nodes[i].tag == c.name[NG_TH]:
                if role < 0:
                    role = intern_name(d, <const uchar*>b"role", 4)
                    if role < 0:
                        d.error = ERR_MEMORY
                        return NS_ERROR
                if not dom_attr_set(d, i, role, AV_VALUE, <const uchar*>b"head", 4):
                    d.error = ERR_MEMORY
                    return NS_ERROR
            d.nodes[i].tag = c.name[NG_CELL]
        i = dom_preorder_next(d, i, tree)
    r = _nsz_strip_non_tei(c, tree)
    if r != NS_OK:
        return r
    return _nsz_text(d, tree, text, text_len)


cdef bint _s1_has_p_text(DocData* d, int32_t body, int32_t p_id) noexcept nogil:
    "``body.xpath('.//p//text()')`` is not empty (_has_p_text)."
    cdef int32_t i = _preorder_next(d, body, body)
    while i >= 0:
        if d.nodes[i].tag == p_id and _sq_has_text_piece(d, i):
            return True
        i = _preorder_next(d, i, body)
    return False


cdef Py_ssize_t _s1_count_desc(DocData* d, int32_t top, int32_t tag) noexcept nogil:
    cdef Py_ssize_t n = 0
    cdef int32_t i = _preorder_next(d, top, top)
    if tag < 0:
        return 0
    while i >= 0:
        if d.nodes[i].tag == tag:
            n += 1
        i = _preorder_next(d, i, top)
    return n


# upstream: trafilatura.external.compare_extraction
cdef int ng111_compare_extraction(NgCtx* c, const NgSelectors* s, const NgJtStoplist* sl, int32_t backup,
                                  int32_t raw, int32_t* body, int* body_kind, NgStr* text, int* at) noexcept nogil:
    """1.11.0's compare_extraction(backup, raw, body, text, len_text, options): readability on
    ``raw`` (a copy of the uncleaned page, PAYWALL- and, with precision, OVERALL-pruned) against
    the own extraction by the elif chain; jusText on ``backup`` (the cleaned tree's copy) for an
    unclean or short result, taken unless the text is over 4x longer; sanitize_tree when
    readability won and jusText found nothing. ``body``/``text`` replaced in place."""
    cdef DocData* d = c.d
    cdef Py_ssize_t len_text = ngs_code_points(text.p, text.n), len_algo, len2 = 0
    cdef int32_t algo = -1, body2 = -1, sane = -1
    cdef int32_t san[S1_SANITIZED_N]
    cdef int32_t heads[3]
    cdef int n_san, n_heads
    cdef NgStr algo_text
    cdef Buf buf
    cdef bint use = False, jt_result = False, brace
    cdef Py_ssize_t mes2 = <Py_ssize_t>c.o.min_extracted_size * 2
    cdef int r
    if c.o.focus == NG_RECALL and len_text > <Py_ssize_t>c.o.min_extracted_size * 10:
        return NS_OK
    at[0] = S1_AT_COMPARE
    r = ng111_prune_unwanted_nodes(c, s, NGL_PAYWALL, raw, False)
    if r == NS_OK and c.o.focus == NG_PRECISION:
        r = ng111_prune_unwanted_nodes(c, s, NGL_OVERALL_DISCARD, raw, False)
    if r != NS_OK:
        return r
    at[0] = S1_AT_READABILITY
    r = ng111_try_readability(c, raw, &algo)
    if r != NS_OK:
        return r
    at[0] = S1_AT_COMPARE
    ngs_init(&algo_text)
    if _sq_trim_content_tail(d, algo, &algo_text) != NS_OK:
        ngs_free(&algo_text)
        return NS_ERROR
    len_algo = ngs_code_points(algo_text.p, algo_text.n)
    brace = algo_text.n > 0 and algo_text.p[0] == 123     # algo_text.startswith("{")
    if len_algo == 0 or len_algo == len_text:
        use = False
    elif len_text == 0:
        use = True
    elif len_text > 2 * len_algo:
        use = False
    elif len_algo > 2 * len_text and not brace:
        use = True
    elif not _s1_has_p_text(d, body[0], c.name[NG_P]) and len_algo > mes2:
        use = True
    elif (_s1_count_desc(d, body[0], c.name[NG_TABLE]) > _s1_count_desc(d, body[0], c.name[NG_P])
          and len_algo > mes2):
        use = True
    elif c.o.focus == NG_RECALL and len_algo > len_text and not _sq_has_desc_in(d, body[0], &c.name[NG_HEAD], 1):
        n_heads = _nrd_ids(d, SQ_HEADING_NAMES, SQ_HEADINGS_N, heads)
        use = n_heads > 0 and _sq_has_desc_in(d, algo, heads, n_heads)
    if use:
        body[0] = algo
        body_kind[0] = SQ_BODY_REPARSED
        ngs_free(text)
        text[0] = algo_text
        ngs_init(&algo_text)
        len_text = len_algo
    ngs_free(&algo_text)

    n_san = _nrd_ids(d, S1_SANITIZED_NAMES, S1_SANITIZED_N, san)
    if (n_san > 0 and _sq_has_desc_in(d, body[0], san, n_san)) or len_text < c.o.min_extracted_size:
        at[0] = S1_AT_JUSTEXT
        memset(&buf, 0, sizeof(Buf))
        r = ng111_justext_rescue(c, s, sl, backup, &body2, &buf, &len2)
        if r == NS_OK:
            jt_result = len2 > 0
            if jt_result and not len_text > 4 * len2:
                body[0] = body2
                body_kind[0] = SQ_BODY_OWN
                text.n = 0
                r = ngs_append(text, buf.data, buf.len)
        buf_free(&buf)
        if r != NS_OK:
            return r

    if use and not jt_result:
        at[0] = S1_AT_SANITIZE
        memset(&buf, 0, sizeof(Buf))
        r = ng111_sanitize_tree(c, body[0], &sane, &buf, &len2)
        if r == NS_OK:
            if sane != body[0]:
                body_kind[0] = SQ_BODY_REPARSED_COPY
            body[0] = sane
            text.n = 0
            r = ngs_append(text, buf.data, buf.len)
        buf_free(&buf)
        return r
    return NS_OK


# upstream: trafilatura.core.bare_extraction
cdef int ng111_bare_extraction_sequence(NgCtx* c, const NgSelectors* s, const NgJtStoplist* sl, int32_t tree,
                                         S1Out* out) noexcept nogil:
    """The sequence inside 1.11.0's core.bare_extraction on ``tree`` (the caller's private copy,
    cleaned in place as upstream cleans its tree): tree_cleaning, convert_tags (links with a
    base URL: the targets the caller resolved, c.link_map), extract_comments, the precision prune, extract_content, compare_extraction
    (not fast: ``sl`` the jusText stoplist), the baseline for a short text."""
    cdef DocData* d = c.d
    cdef int32_t cleaned, backup, cleaned_backup = -1, raw
    cdef int r
    out.postbody = -1
    out.postbody_kind = SQ_BODY_OWN
    out.commentsbody = -1
    out.at = S1_AT_CLEANING
    # tree_backup = copy(tree): the baseline's input (and the fallbacks', handed back)
    backup = ng_copy_subtree(d, tree, True)
    if backup < 0:
        return NS_ERROR
    r = _np_tree_cleaning(c, tree, &cleaned)
    if r != NS_OK:
        return r
    if not c.o.fast:
        # cleaned_tree_backup = copy(cleaned_tree): jusText's input
        cleaned_backup = ng_copy_subtree(d, cleaned, True)
        if cleaned_backup < 0:
            return NS_ERROR
    out.at = S1_AT_CONVERSION
    r = ng_convert_tags(c, cleaned, c.o.base_url)
    if r != NS_OK:
        return r
    if c.o.comments:
        out.at = S1_AT_COMMENTS
        r = ng111_extract_comments(c, s, cleaned, &out.commentsbody, &out.temp_comments)
        if r != NS_OK:
            return r
    if c.o.focus == NG_PRECISION:
        out.at = S1_AT_COMMENTS_PRUNE
        r = ng111_prune_unwanted_nodes(c, s, NGL_REMOVE_COMMENTS, cleaned, False)
        if r != NS_OK:
            return r
    out.at = S1_AT_EXTRACTION
    _nx_set_cause(NX_NONE)
    r = ng111_extract_content(c, s, cleaned, &out.postbody, &out.temp_text)
    if r == NS_NEED_PYTHON and _nx_get_cause() == NX_TABLE:
        out.at = S1_AT_TABLE
    if r != NS_OK:
        return r
    if not c.o.fast:
        # deepcopy(tree_backup): readability's input
        raw = ng_copy_subtree(d, backup, True)
        if raw < 0:
            return NS_ERROR
        r = ng111_compare_extraction(c, s, sl, cleaned_backup, raw, &out.postbody, &out.postbody_kind,
                                     &out.temp_text, &out.at)
        if r != NS_OK:
            return r
    if ngs_code_points(out.temp_text.p, out.temp_text.n) < c.o.min_extracted_size:
        # 1.11.0: the baseline replaces any short result, even with a shorter text
        out.at = S1_AT_BASELINE
        out.postbody_kind = SQ_BODY_OWN
        return ng111_baseline(c, backup, &out.postbody, &out.temp_text)
    return NS_OK


cdef enum:
    S1_MAX_ROOTS = 16


cdef SqResolved* _S1_TEMPLATE = NULL
cdef CDocument _S1_TEMPLATE_DOC = None


cdef SqResolved* _s1_template() except NULL:
    """1.11.0's selectors resolved once per process against a document of names (as
    _sq_template does for 2.3.1)."""
    global _S1_TEMPLATE, _S1_TEMPLATE_DOC
    cdef CDocument doc
    cdef SqResolved* res
    cdef int32_t ids[NG_N]
    if _S1_TEMPLATE != NULL:
        return _S1_TEMPLATE
    doc = CDocument()
    res = <SqResolved*>calloc(1, sizeof(SqResolved))
    if res == NULL:
        raise MemoryError()
    if ng_intern_names(&doc.d, NG_NAMES, NG_N, ids) != NS_OK:
        free(res)
        _raise_doc_error(doc)
    for name in ("comments", "rend", "target", "class", "lang", "span", "role"):
        _intern(doc, name)
    try:
        ng_selectors_resolve(doc, &res.sel, NG_REL_111)
    except BaseException:
        _sq_release(res)
        free(res)
        raise
    if _S1_TEMPLATE != NULL:
        _sq_release(res)
        free(res)
        return _S1_TEMPLATE
    _S1_TEMPLATE_DOC = doc
    _S1_TEMPLATE = res
    return res


cdef int _s1_link_map(CDocument doc, str base_url, list keep, NgLinkMap* m) except -1:
    """c.link_map of 1.11.0's links with a base URL: every non-empty href of an a or ref of
    ``doc`` with its target ``xml_text(fix_relative_urls(base_url, href))`` (the reference's
    courlan port), sorted by the href's bytes; ``keep`` holds the bytes. 0, or 1 when a target
    is one the C cannot take (upstream raises there, a lone surrogate)."""
    from trafila.v1_11_0.htmlprocessing import fix_relative_urls
    from trafila.v1_11_0.utils import xml_text
    cdef DocData* d = &doc.d
    cdef int32_t a = _cv_known(d, "a"), ref = _cv_known(d, "ref"), href = _cv_known(d, "href"), i, k
    cdef Attr* at
    cdef Py_ssize_t j, n
    cdef const uchar* v
    pairs = {}
    if (a < 0 and ref < 0) or href < 0:
        return 0
    for i in range(d.n_nodes):
        if d.nodes[i].tag < 0 or (d.nodes[i].tag != a and d.nodes[i].tag != ref):
            continue
        k = dom_attr_find(d, i, href)
        if k < 0:
            continue
        at = &d.attrs[k]
        if at.kind == AV_VALUE and at.val_len > 0:
            key = (<const char*>d.vals.data + at.val_off)[:at.val_len]
        elif at.kind == AV_OWN_NAME:
            v = name_bytes(d, at.name, &n)
            key = (<const char*>v)[:n]
        else:
            continue
        if key in pairs:
            continue
        try:
            target = xml_text(fix_relative_urls(base_url, _attr_value(doc, at)))
            pairs[key] = target.encode("utf-8")
        except Exception:
            # upstream raises there (urljoin's ValueError, lxml's refusal of the value), or the
            # value is a lone surrogate: the Python stages say what happens
            return 1
    items = sorted(pairs.items())
    keep.append(items)
    m.n = len(items)
    if m.n == 0:
        return 0
    m.keys = <const uchar**>calloc(m.n, sizeof(uchar*))
    m.vals = <const uchar**>calloc(m.n, sizeof(uchar*))
    m.key_len = <Py_ssize_t*>calloc(m.n, sizeof(Py_ssize_t))
    m.val_len = <Py_ssize_t*>calloc(m.n, sizeof(Py_ssize_t))
    if m.keys == NULL or m.vals == NULL or m.key_len == NULL or m.val_len == NULL:
        raise MemoryError()
    for j in range(m.n):
        kb, vb = items[j]
        m.keys[j] = <const uchar*><const char*>kb
        m.key_len[j] = len(kb)
        m.vals[j] = <const uchar*><const char*>vb
        m.val_len[j] = len(vb)
    return 0


cdef void _s1_link_map_free(NgLinkMap* m) noexcept:
    free(m.keys)
    free(m.vals)
    free(m.key_len)
    free(m.val_len)
    memset(m, 0, sizeof(NgLinkMap))


def sequence_1_11_0(CElement tree not None, options, bint with_output=False, dedup_cache=None, url=None):
    """The sequence inside trafilatura 1.11.0's core.bare_extraction (tree_cleaning to the
    baseline, reference/trafila/v1_11_0/core.py ``_sequence``) run without the GIL on a copy of
    ``tree``: ``(postbody, temp_text, commentsbody or None, temp_comments)`` as the reference
    gives them (and with ``with_output`` a fifth item, determine_returnstring's txt output, or
    None where the C output hands back), or NotImplemented (counted by stage,
    ``sequence_stats(mode="1.11.0")``) for options it has no C for (links with a base URL
    whose targets the C cannot take; deduplication when ``dedup_cache``, the module cache duplicate_test counts in, is
    no CLRUCache; a focus, flag or size of another type) and wherever a stage answers
    NEED_PYTHON. With deduplication the page's counts go into ``dedup_cache`` in one
    transaction, committed only when the C answers. ``url``: the URL convert_tags resolves links
    against (``options.url or document.url``). ``tree`` is never changed: the caller then
    runs the reference on it (which cleans it in place, as upstream does)."""
    cdef CDocument doc = tree.doc
    cdef SqResolved* res
    cdef CDocument work
    cdef NgCtx c
    cdef NgOpts o
    cdef S1Out out
    cdef Buf text
    cdef int32_t root = -1
    cdef int r, ro = NS_NEED_PYTHON
    global S1_DONE
    doc._check(tree.idx)
    # 1.11.0's absolute XPaths (prune_html's //*[not(node())], _extract's //p//text()) see every
    # top-level element of the document (libxml2 makes a second <html> of what follows </html>):
    # the C copies them all, ``tree`` among them
    cdef int32_t doc_roots[S1_MAX_ROOTS]
    cdef int n_doc_roots = doc.d.n_roots, k
    if n_doc_roots < 1 or n_doc_roots > S1_MAX_ROOTS:
        S1_NEED[S1_AT_INPUT] += 1
        return NotImplemented
    # ``tree`` may be below a top-level element (lxml.html.fromstring's root choice): its place
    # in its top-level element's preorder finds its twin in the copy
    cdef int32_t top = tree.idx, walk_n = 0, s_i
    cdef int top_k = -1
    while doc.d.nodes[top].parent >= 0:
        top = doc.d.nodes[top].parent
    for k in range(n_doc_roots):
        if doc.d.roots[k] == top:
            top_k = k
    if top_k < 0:
        S1_NEED[S1_AT_INPUT] += 1
        return NotImplemented
    s_i = top
    while s_i != tree.idx:
        s_i = _preorder_next(&doc.d, s_i, top)
        walk_n += 1
    focus = _SQ_FOCUS.get(options.focus) if type(options.focus) is str else None
    if (focus is None or type(options.fast) is not bool or type(options.comments) is not bool
            or type(options.tables) is not bool or type(options.formatting) is not bool
            or type(options.links) is not bool or type(options.images) is not bool or type(options.dedup) is not bool):
        S1_NEED[S1_AT_INPUT] += 1
        return NotImplemented
    cdef NgLinkMap lmap
    cdef bint base_url = False
    memset(&lmap, 0, sizeof(NgLinkMap))
    link_keep = []
    if options.links and url:
        from trafila.v1_11_0.htmlprocessing import get_base_url
        base = get_base_url(url)
        if base:
            base_url = True
            try:
                if _s1_link_map(doc, base, link_keep, &lmap):
                    _s1_link_map_free(&lmap)
                    S1_NEED[S1_AT_CONVERSION] += 1
                    return NotImplemented
            except BaseException:
                _s1_link_map_free(&lmap)
                raise
    cdef long min_dupl = 0, max_rep = 0
    cdef LruTxn txn
    cdef LruTxn* lru = NULL
    if options.dedup:
        # 1.11.0's duplicate_test counts in the module cache: a CLRUCache (dedup_cache) or Python
        if type(dedup_cache) is not CLRUCache:
            S1_NEED[S1_AT_INPUT] += 1
            return NotImplemented
        for v in (options.min_duplcheck_size, options.max_repetitions):
            if type(v) is not int or not -LONG_MAX <= v <= LONG_MAX:
                S1_NEED[S1_AT_INPUT] += 1
                return NotImplemented
        min_dupl = options.min_duplcheck_size
        max_rep = options.max_repetitions
    for v in (options.min_extracted_size, options.min_output_size, options.min_output_comm_size):
        if type(v) is not int or not 0 <= v < 2**31:
            S1_NEED[S1_AT_INPUT] += 1
            return NotImplemented
    memset(&o, 0, sizeof(NgOpts))
    o.release = NG_REL_111
    o.focus = focus
    o.fast = options.fast
    o.comments = options.comments
    o.tables = options.tables
    o.formatting = options.formatting
    o.links = options.links
    o.images = options.images
    o.base_url = base_url
    o.min_extracted_size = options.min_extracted_size
    o.min_output_size = options.min_output_size
    o.min_output_comm_size = options.min_output_comm_size
    res = _s1_template()
    cdef const NgJtStoplist* sl = NULL
    if not o.fast:
        sl = ng111_jt_stoplist(options.lang)
    work = CDocument()
    memset(&text, 0, sizeof(Buf))
    memset(&c, 0, sizeof(NgCtx))
    ngs_init(&out.temp_text)
    ngs_init(&out.temp_comments)
    out.at = S1_AT_CLEANING
    work.is_html = doc.is_html
    memset(&txn, 0, sizeof(LruTxn))
    if not share_names(&_S1_TEMPLATE_DOC.d, &work.d):
        raise MemoryError()
    try:
        if options.dedup:
            lru_txn_begin(&txn, <CLRUCache>dedup_cache)
            lru = &txn
            o.dedup = True
        with nogil:
            r = NS_OK
            for k in range(n_doc_roots):
                doc_roots[k] = dom_copy_subtree(&doc.d, doc.d.roots[k], &work.d, True)
                if doc_roots[k] < 0 or not dom_add_root(&work.d, doc_roots[k]):
                    r = NS_ERROR
                    break
            if r == NS_OK:
                root = doc_roots[top_k]
                while walk_n > 0:
                    root = _preorder_next(&work.d, root, doc_roots[top_k])
                    walk_n -= 1
                r = ng_init(&c, &work.d)
                c.o = o
                c.doc_roots = doc_roots
                c.n_doc_roots = n_doc_roots
                c.lru = lru
                c.min_duplcheck_size = min_dupl
                c.max_repetitions = max_rep
                c.link_map = &lmap if base_url else NULL
                r = ng111_bare_extraction_sequence(&c, &res.sel, sl, root, &out) if r == NS_OK else r
                if lru != NULL:
                    # the counts go in only with the page's answer (a page handed back is counted
                    # by the reference's rerun instead)
                    if r == NS_OK:
                        r = lru_txn_commit(lru)
                    else:
                        lru_txn_abort(lru)
                    if r == NS_NEED_PYTHON and lru.cause != LRU_CAUSE_NONE:
                        out.at = S1_AT_DEDUP
                if r == NS_OK and with_output:
                    ro = ng_determine_returnstring(&c, out.postbody, out.commentsbody, &text)
        if r == NS_OK:
            S1_DONE += 1
            if ro == NS_ERROR:
                _raise_doc_error(work)
            if out.postbody_kind == SQ_BODY_REPARSED:
                postbody = _sq_reparsed_document(work, out.postbody)
            else:
                postbody = _sq_own_document(work, out.postbody, out.postbody_kind == SQ_BODY_REPARSED_COPY)
            result = (postbody, _sq_str(&out.temp_text),
                      None if out.commentsbody < 0 else _sq_own_document(work, out.commentsbody),
                      _sq_str(&out.temp_comments))
            if with_output:
                result += ((utf8_str(text.data, text.len) if text.len else "") if ro == NS_OK else None,)
            return result
        if r == NS_ERROR and work.d.error:
            _raise_doc_error(work)
        S1_NEED[out.at] += 1
        if out.at == S1_AT_READABILITY:
            k = _nrd_get_cause()
            if 0 <= k < NRD_N:
                S1_RD_NEED[k] += 1
        return NotImplemented
    finally:
        if lru != NULL:
            lru_txn_end(lru)
        _s1_link_map_free(&lmap)
        ng_free(&c)
        buf_free(&text)
        ngs_free(&out.temp_text)
        ngs_free(&out.temp_comments)


def _sequence_stats_1_11_0(bint reset=False):
    global S1_DONE
    cdef int k
    stats = {"done": S1_DONE, "need_python": {S1_AT_NAMES[k].decode(): S1_NEED[k] for k in range(S1_AT_N)},
             "readability_causes": {NRD_CAUSES[k].decode(): S1_RD_NEED[k] for k in range(NRD_N) if S1_RD_NEED[k]}}
    if reset:
        S1_DONE = 0
        for k in range(S1_AT_N):
            S1_NEED[k] = 0
        for k in range(NRD_N):
            S1_RD_NEED[k] = 0
    return stats


def nogil_111_stage(str stage, CElement el not None, options, potential_tags=None):
    """Test wrapper: one 1.11.0 stage on ``el``'s document in place (a copy the test made):
    "process_node", "handle_textnode" (options: (comments_fix, preserve_spaces)),
    "handle_textelem", "extract_content", "extract_comments", "tree_cleaning",
    "convert_tags", "prune_unwanted_sections". Returns (status, result index proxy or None,
    text) with status "ok" / "need_python"."""
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef SqResolved* res
    cdef int r = NS_OK
    cdef int32_t out = -1, i = el.idx
    cdef NgStr t
    cdef uint64_t pot = 0
    cdef bint a = False, b = False
    doc._check(i)
    res = _s1_template()
    ngs_init(&t)
    if potential_tags is not None:
        pot = _nx_bits(potential_tags)
    if ng_init(&c, &doc.d) != NS_OK:
        ng_free(&c)
        raise MemoryError()
    try:
        if stage == "handle_textnode":
            a, b = options
        else:
            focus = _SQ_FOCUS.get(options.focus)
            c.o.focus = focus
            c.o.fast = bool(options.fast)
            c.o.comments = bool(options.comments)
            c.o.tables = bool(options.tables)
            c.o.min_extracted_size = options.min_extracted_size
        c.o.release = NG_REL_111
        # the selectors were resolved against the template's names: this document must share them
        if stage in ("extract_content", "extract_comments", "prune_unwanted_sections"):
            raise ValueError("selector stages run through sequence_1_11_0")
        with nogil:
            if stage == "process_node":
                r = ng111_process_node(&c, i, &out)
            elif stage == "handle_textnode":
                r = ng111_handle_textnode(&c, i, a, b, &out)
            elif stage == "handle_textelem":
                r = ng111_handle_textelem(&c, i, pot, &out)
            elif stage == "tree_cleaning":
                r = _np_tree_cleaning(&c, i, &out)
            elif stage == "convert_tags":
                r = ng_convert_tags(&c, i, False)
                out = i
            else:
                r = NS_ERROR
        if r == NS_ERROR:
            _raise_doc_error(doc)
        if r == NS_NEED_PYTHON:
            return ("need_python", None)
        return ("ok", None if out < 0 else _proxy(doc, out))
    finally:
        ng_free(&c)
        ngs_free(&t)
