# main_extractor.handle_table (2.3.1) without the GIL.
#
# The spec is reference/trafila/v2_3_1/main_extractor.py: handle_table (captions, rows, orphan
# cells, the rowspan map and its phantom cells, _finalize_row), define_cell_type, _span,
# _fill_cell, _fill_cell_child and _nested_table_tail. Everything the stage creates (the new
# table, its rows and cells) is a detached subtree of the same document (nogil_frame.pxi).
#
# A cell's children go through the handlers of nogil_extract.pxi (process_node, handle_textnode,
# handle_lists, handle_textelem, define_newelem, _append_block), their NEED_PYTHON causes (NX_*)
# told as this stage's.
#
# NEED_PYTHON causes (TB_WHY_*, reported by the test wrapper): a value lxml refuses (the
# reference raises there), a span of more than 640 decimal digits (int() may refuse it:
# sys.get_int_max_str_digits, 640 at the least), define_newelem nested deeper than 64 carried
# levels, a tag that is no plain name, and a shared handler's other causes (the deduplication
# cache's among them: process_node and handle_textnode count in it, nogil_dedup.pxi).

cdef extern from "Python.h" nogil:
    int _tb_todecimal "Py_UNICODE_TODECIMAL" (Py_UCS4 ch)


cdef enum:
    TB_WHY_NONE = 0
    TB_WHY_OPTIONS        # no longer given (deduplication runs here: the handlers' duplicate_test)
    TB_WHY_XML            # a value the reference writes holds a character lxml refuses
    TB_WHY_SPAN           # a colspan/rowspan of more than 640 decimal digits
    TB_WHY_DEPTH          # define_newelem's carried nesting deeper than _NX_MAX_DEPTH
    TB_WHY_NAME           # define_newelem of a tag that is not a plain name
    TB_WHY_ANCESTOR       # a nested table without a table ancestor (cannot happen)
    TB_WHY_SHARED         # a handler of nogil_extract.pxi, for a cause other than the above
    TB_WHY_N

    _TB_MAX_SPAN = 100
    _TB_SPAN_DIGITS = 640  # below this int() never checks sys.get_int_max_str_digits

TB_WHY_NAMES = ("", "options", "xml", "span", "depth", "name", "ancestor", "shared:other")


cdef struct TbCtx:
    NgCtx* c
    int32_t colspan_id          # -1: the document has no such name (no node has it)
    int32_t rowspan_id
    int32_t role_id             # interned: the stage writes it
    uchar* nested               # node index -> in nested_elems (nodes made later: no)
    int32_t n_nested
    uint64_t ptags              # potential_tags | {"div"} as NG_* bits
    int why                     # the first NEED_PYTHON cause
    int32_t why_node            # the node it arose at (-1: none named)


cdef inline int _tb_need(TbCtx* t, int why) noexcept nogil:
    if t.why == TB_WHY_NONE:
        t.why = why
    return NS_NEED_PYTHON


cdef inline int _tb_need_at(TbCtx* t, int why, int32_t i) noexcept nogil:
    if t.why == TB_WHY_NONE:
        t.why_node = i
    return _tb_need(t, why)


cdef inline bint _tb_is(TbCtx* t, int32_t i, int k) noexcept nogil:
    return ng_is(t.c, i, k)


cdef inline void _tb_done(TbCtx* t, int32_t i) noexcept nogil:
    t.c.d.nodes[i].tag = t.c.name[NG_DONE]


cdef inline bint _tb_nested(TbCtx* t, int32_t i) noexcept nogil:
    return 0 <= i < t.n_nested and t.nested[i] != 0


# -- _span -------------------------------------------------------------------------------

cdef int _tb_span(TbCtx* t, int32_t i, int32_t nid, int32_t* out) noexcept nogil:
    """``min(int(value), 100) if value.isdecimal() else 1`` for ``value = cell.get(attr, "1")``:
    str.isdecimal is Py_UNICODE_TODECIMAL >= 0 for every code point (and a non-empty value),
    int() reads each such digit as that decimal value."""
    cdef DocData* d = t.c.d
    cdef int32_t k, val = 0
    cdef Attr* a
    cdef const uchar* v
    cdef Py_ssize_t j = 0, n, digits = 0
    cdef Py_UCS4 cp
    cdef int dig
    out[0] = 1
    if nid < 0:
        return NS_OK
    k = dom_attr_find(d, i, nid)
    if k < 0:
        return NS_OK
    a = &d.attrs[k]
    if a.kind != AV_VALUE or a.val_len == 0:
        return NS_OK    # '' or the attribute's own name: not decimal
    v = d.vals.data + a.val_off
    n = a.val_len
    while j < n:
        j += _nt_decode(v, j, n, &cp)
        dig = _tb_todecimal(cp)
        if dig < 0:
            return NS_OK
        digits += 1
        val = val * 10 + dig
        if val > _TB_MAX_SPAN:
            val = _TB_MAX_SPAN + 1   # saturated: the digits only make it larger
    if digits > _TB_SPAN_DIGITS:
        return _tb_need(t, TB_WHY_SPAN)
    out[0] = val if val <= _TB_MAX_SPAN else _TB_MAX_SPAN
    return NS_OK


# -- the shared handlers (nogil_extract.pxi) ------------------------------------------------

cdef int _tb_shared(TbCtx* t, int r, int32_t i) noexcept nogil:
    """A status of nogil_extract.pxi's handlers, their NEED_PYTHON cause (NX_*, reset by the
    caller before the call) told as this stage's."""
    cdef int cause
    if r != NS_NEED_PYTHON:
        return r
    cause = _nx_get_cause()
    if cause == NX_CHAR:
        return _tb_need(t, TB_WHY_XML)
    if cause == NX_NAME:
        return _tb_need(t, TB_WHY_NAME)
    if cause == NX_DEPTH:
        return _tb_need(t, TB_WHY_DEPTH)
    return _tb_need_at(t, TB_WHY_SHARED, i)


# -- _fill_cell, _fill_cell_child, _nested_table_tail -------------------------------------------

cdef int _tb_nested_table_tail(TbCtx* t, int32_t new_cell, int32_t child) noexcept nogil:
    "A nested table directly inside the handled one: its tail moves to the cell holding it."
    cdef DocData* d = t.c.d
    cdef int32_t a = d.nodes[child].parent
    cdef int r
    while a >= 0 and not _tb_is(t, a, NG_TABLE):
        a = d.nodes[a].parent
    if a < 0:
        return _tb_need(t, TB_WHY_ANCESTOR)   # next() of an empty iterator
    if _tb_nested(t, a):
        return NS_OK
    _nx_set_cause(NX_NONE)
    r = _tb_shared(t, ng_append_block(t.c, new_cell, -1, child), child)
    if r != NS_OK:
        return r
    return NS_OK if dom_set_slot(d, child, True, NULL, 0, True) else NS_ERROR


cdef int _tb_fill_cell_child(TbCtx* t, int32_t new_cell, int32_t child) noexcept nogil:
    "One element of a cell into the new <cell>."
    cdef NgCtx* c = t.c
    cdef int k = ng_kind(c, child), r
    cdef int32_t proc = -1
    _nx_set_cause(NX_NONE)
    if k == NG_TD or k == NG_TH:
        c.d.nodes[child].tag = c.name[NG_CELL]
        r = ng_handle_textnode(c, child, True, True, &proc)
    elif k == NG_HI or k == NG_REF or k == NG_DEL:
        r = ng_handle_textnode(c, child, True, True, &proc)
        if r == NS_OK and proc < 0 and c.d.nodes[child].first >= 0:
            proc = child
    elif k == NG_LIST:
        r = ng_handle_lists(c, child, &proc)
        if r == NS_OK:
            r = ng_append_block(c, new_cell, proc if c.o.focus == NG_RECALL else -1, child)
        return _tb_shared(t, r, child)
    else:
        r = ng_handle_textelem(c, child, t.ptags, &proc)
    if r == NS_OK:
        r = ng_define_newelem(c, proc, new_cell, True)
    if r != NS_OK:
        return _tb_shared(t, r, child)
    _tb_done(t, child)
    return NS_OK


cdef int _tb_fill_cell(TbCtx* t, int32_t new_cell, int32_t cell) noexcept nogil:
    "A source td/th's content into the new <cell>."
    cdef DocData* d = t.c.d
    cdef int32_t pn, node, nxt, lb
    cdef int r
    if d.nodes[cell].first < 0:
        _nx_set_cause(NX_NONE)
        r = _tb_shared(t, ng_process_node(t.c, cell, &pn), cell)
        if r != NS_OK or pn < 0:
            return r
        # checked by process_node's writes already
        ng_share_slot(d, new_cell, False, pn, False)
        ng_share_slot(d, new_cell, True, pn, True)
        return NS_OK
    if not _slot_ok(d, _slot_of(d, cell, False)) or not _slot_ok(d, _slot_of(d, cell, True)):
        return _tb_need(t, TB_WHY_XML)
    ng_share_slot(d, new_cell, False, cell, False)
    ng_share_slot(d, new_cell, True, cell, True)
    _tb_done(t, cell)
    # iter_live(cell, inclusive=False): the next node is found when the current one is handed out
    nxt = dom_traverse_next(d, cell, cell)
    while nxt >= 0:
        node = nxt
        nxt = dom_traverse_next(d, node, cell)
        if _tb_is(t, node, NG_DONE):
            continue
        if _tb_nested(t, node):
            if _tb_is(t, node, NG_TABLE):
                r = _tb_nested_table_tail(t, new_cell, node)
                if r != NS_OK:
                    return r
            continue
        if _nx_separates_inline(t.c, node) and _slot_blank(d, _slot_of(d, node, True)):
            lb = ng_new_element(t.c, NG_LB, new_cell)
            if lb < 0:
                return NS_ERROR
            _tb_done(t, node)
            continue
        r = _tb_fill_cell_child(t, new_cell, node)
        if r != NS_OK:
            return r
    return NS_OK


# -- handle_table --------------------------------------------------------------------------------

cdef int _tb_caption_text(TbCtx* t, int32_t top, Slot* out) noexcept nogil:
    """``" ".join(top.itertext()).strip()`` written to the text arena: ``out`` its slice
    (length 0 when empty)."""
    cdef DocData* d = t.c.d
    cdef NgStr s
    cdef int r
    out.off = -1
    out.len = 0
    ngs_init(&s)
    r = ng_itertext_join_strip(d, top, &s)
    if r == NS_OK and s.n > 0:
        if buf_reserve(&d.text, s.n, &d.error):
            out.off = <int32_t>d.text.len
            out.len = <int32_t>s.n
            memcpy(d.text.data + d.text.len, s.p, <size_t>s.n)
            d.text.len += s.n
        else:
            r = NS_ERROR
    ngs_free(&s)
    return r


cdef int32_t _tb_new_cell(TbCtx* t, int32_t parent, bint header) noexcept nogil:
    "define_cell_type(header), appended to ``parent`` (-1: detached): the node or -1."
    cdef int32_t cell = ng_new_element(t.c, NG_CELL, parent)
    if cell < 0:
        return -1
    if header and not dom_attr_set(t.c.d, cell, t.role_id, AV_VALUE, <const uchar*>"head", 4):
        return -1
    return cell


cdef bint _tb_flush_phantoms(TbCtx* t, ExTable* tb, int32_t row, int32_t* ncols) noexcept nogil:
    "_flush_rowspan_phantoms (``ncols`` = len(newrow))"
    while _rs_get(tb, ncols[0]) > 0:
        if _tb_new_cell(t, row, False) < 0:
            return False
        tb.rs[ncols[0]] -= 1
        ncols[0] += 1
    return True


cdef int _tb_finalize_row(TbCtx* t, ExTable* tb, int32_t table, int32_t row, int32_t ncols,
                          int32_t max_cols) noexcept nogil:
    "_finalize_row"
    cdef DocData* d = t.c.d
    cdef int32_t cc
    if not _tb_flush_phantoms(t, tb, row, &ncols):
        return NS_ERROR
    while ncols < max_cols:
        if _tb_new_cell(t, row, False) < 0:
            return NS_ERROR
        ncols += 1
    cc = d.nodes[row].first
    while cc >= 0:
        if (d.nodes[cc].text_off >= 0 and d.nodes[cc].text_len > 0) or d.nodes[cc].first >= 0:
            dom_link_before(d, table, row, -1)
            return NS_OK
        cc = d.nodes[cc].next
    return NS_OK


cdef int _tb_mark_nested(TbCtx* t, int32_t top) noexcept nogil:
    "nested_elems: every table below ``top`` and everything below one."
    cdef DocData* d = t.c.d
    cdef int32_t s, n = d.n_nodes, p
    t.nested = NULL if alloc_fails() else <uchar*>malloc(<size_t>n + 1)
    if t.nested == NULL:
        return NS_ERROR
    memset(t.nested, 0, <size_t>n + 1)
    t.n_nested = n
    s = dom_preorder_next(d, top, top)
    while s >= 0:
        p = d.nodes[s].parent
        if _tb_is(t, s, NG_TABLE) or (p != top and t.nested[p]):
            t.nested[s] = 1
        s = dom_preorder_next(d, s, top)
    return NS_OK


cdef int _tb_rows(TbCtx* t, int32_t table, int32_t newtable, NsVec* cells, NsVec* row_start,
                  NsVec* caps, int32_t max_cols) noexcept nogil:
    "handle_table after its first pass: the caption rows, then the rows of cells."
    cdef DocData* d = t.c.d
    cdef ExTable tb
    cdef Py_ssize_t r, k
    cdef int32_t row, cell, newc, ncols, colspan, rowspan, col, j
    cdef bint header_emitted = False, row_has_th, is_header
    cdef int st = NS_OK
    cdef Slot cap
    tb.rs = NULL
    tb.rs_cap = 0
    for k in range(0, caps.len, 2):
        cap.off = caps.data[k]
        cap.len = caps.data[k + 1]
        if cap.len == 0:
            continue
        if not _slot_ok(d, cap):
            return _tb_need(t, TB_WHY_XML)
        row = ng_new_element(t.c, NG_ROW, -1)
        if row < 0 or _tb_new_cell(t, row, True) < 0:
            return NS_ERROR
        _put_slot(d, d.nodes[row].first, False, cap)
        st = _tb_finalize_row(t, &tb, newtable, row, 1, max_cols)
        if st != NS_OK:
            return st
    for r in range(row_start.len):
        row = ng_new_element(t.c, NG_ROW, -1)
        if row < 0:
            st = NS_ERROR
            break
        ncols = 0
        row_has_th = False
        for k in range(row_start.data[r], row_start.data[r + 1] if r + 1 < row_start.len else cells.len):
            cell = cells.data[k]
            is_header = _tb_is(t, cell, NG_TH) and not header_emitted
            row_has_th = row_has_th or is_header
            if not _tb_flush_phantoms(t, &tb, row, &ncols):
                st = NS_ERROR
                break
            newc = _tb_new_cell(t, -1, is_header)
            if newc < 0:
                st = NS_ERROR
                break
            st = _tb_span(t, cell, t.colspan_id, &colspan)
            if st == NS_OK:
                st = _tb_span(t, cell, t.rowspan_id, &rowspan)
            if st != NS_OK:
                break
            if rowspan > 1:
                for col in range(ncols, ncols + colspan):
                    if not _rs_set(&tb, col, rowspan - 1):
                        st = NS_ERROR
                        break
                if st != NS_OK:
                    break
            st = _tb_fill_cell(t, newc, cell)
            if st != NS_OK:
                break
            dom_link_before(d, row, newc, -1)
            ncols += 1
            for j in range(colspan - 1):
                if _tb_new_cell(t, row, is_header) < 0:
                    st = NS_ERROR
                    break
                ncols += 1
            if st != NS_OK:
                break
            _tb_done(t, cell)
        if st != NS_OK:
            break
        st = _tb_finalize_row(t, &tb, newtable, row, ncols, max_cols)
        if st != NS_OK:
            break
        header_emitted = header_emitted or row_has_th
    free(tb.rs)
    return st


cdef int _tb_handle_table(NgCtx* c, int32_t i, uint64_t potential, int32_t* out, int* why,
                          int32_t* why_node) noexcept nogil:
    "ng_handle_table, the NEED_PYTHON cause in ``why`` (and its node, when one is named)."
    cdef TbCtx t
    cdef DocData* d = c.d
    cdef int32_t ids[2]
    cdef const char* names[3]
    cdef int32_t newtable, ch, nxt, cc, s, v
    cdef int64_t max_cols = 0, sum_cols
    cdef int st = NS_OK, k
    cdef NsVec cells, row_start, caps
    cdef Slot cap
    out[0] = -1
    why[0] = TB_WHY_NONE
    memset(&t, 0, sizeof(TbCtx))
    t.c = c
    t.why_node = -1
    why_node[0] = -1
    names[0] = b"colspan"
    names[1] = b"rowspan"
    names[2] = b"role"
    for k in range(2):
        ids[k] = dom_lookup_name(d, <const uchar*>names[k], <Py_ssize_t>strlen(names[k]))
    t.colspan_id = ids[0]
    t.rowspan_id = ids[1]
    if ng_intern_names(d, &names[2], 1, &t.role_id) != NS_OK:
        return NS_ERROR
    t.ptags = potential | ng_bit(NG_DIV)
    nsv_init(&cells)
    nsv_init(&row_start)
    nsv_init(&caps)
    newtable = ng_new_element(c, NG_TABLE, -1)
    if newtable < 0:
        return NS_ERROR
    st = ng_strip_tags(c, i, ng_bit(NG_THEAD) | ng_bit(NG_TBODY) | ng_bit(NG_TFOOT))
    if st == NS_OK:
        st = _tb_mark_nested(&t, i)
    # the first pass: rows of cells (an orphan cell joins the current row), max_cols, captions
    if st == NS_OK and nsv_push(&row_start, 0) < 0:
        st = NS_ERROR
    ch = d.nodes[i].first if st == NS_OK else -1
    while ch >= 0:
        nxt = d.nodes[ch].next
        if _tb_is(&t, ch, NG_TR):
            if nsv_push(&row_start, <int32_t>cells.len) < 0:
                st = NS_ERROR
                break
            sum_cols = 0
            cc = d.nodes[ch].first
            while cc >= 0:
                if _tb_is(&t, cc, NG_TD) or _tb_is(&t, cc, NG_TH):
                    if nsv_push(&cells, cc) < 0:
                        st = NS_ERROR
                        break
                    st = _tb_span(&t, cc, t.colspan_id, &v)
                    if st != NS_OK:
                        break
                    sum_cols += v
                cc = d.nodes[cc].next
            if st != NS_OK:
                break
            if sum_cols > max_cols:
                max_cols = sum_cols
        elif _tb_is(&t, ch, NG_TD) or _tb_is(&t, ch, NG_TH):
            if nsv_push(&cells, ch) < 0:
                st = NS_ERROR
                break
            ch = nxt
            continue
        elif _tb_is(&t, ch, NG_CAPTION):
            st = _tb_caption_text(&t, ch, &cap)
            if st != NS_OK:
                break
            if nsv_push(&caps, cap.off) < 0 or nsv_push(&caps, cap.len) < 0:
                st = NS_ERROR
                break
            s = dom_preorder_next(d, ch, ch)
            while s >= 0:
                if _tb_is(&t, s, NG_GRAPHIC):
                    d.nodes[s].tail_off = -1
                    d.nodes[s].tail_len = 0
                else:
                    _tb_done(&t, s)
                s = dom_preorder_next(d, s, ch)
        elif _tb_is(&t, ch, NG_TABLE):
            ch = nxt
            continue
        _tb_done(&t, ch)
        ch = nxt
    if max_cols > _TB_MAX_SPAN:
        max_cols = _TB_MAX_SPAN
    if st == NS_OK:
        st = _tb_rows(&t, i, newtable, &cells, &row_start, &caps, <int32_t>max_cols)
    nsv_free(&cells)
    nsv_free(&row_start)
    nsv_free(&caps)
    free(t.nested)
    why[0] = t.why if st == NS_NEED_PYTHON else TB_WHY_NONE
    why_node[0] = t.why_node if st == NS_NEED_PYTHON else -1
    if st == NS_OK and d.nodes[newtable].first >= 0:
        out[0] = newtable
    return st


cdef int ng_handle_table(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    "main_extractor.handle_table with ``potential_tags`` as NG_* bits: ``out`` = the new table or -1."
    cdef int why
    cdef int32_t why_node
    return _tb_handle_table(c, i, potential, out, &why, &why_node)


# -- test wrappers (tests/test_core_nogil_tables.py) -----------------------------------------------

cdef uint64_t _tb_bits(object tags) except? 0:
    cdef uint64_t bits = 0
    cdef int k
    names = [NG_NAMES[k].decode() for k in range(NG_N)]
    for tag in tags:
        if tag in names:
            bits |= ng_bit(names.index(tag))
    return bits


def nogil_handle_table(CElement el not None, tags, bint recall=False, list why=None):
    """ng_handle_table on ``el`` (potential_tags ``tags``, focus recall or balanced): the new
    table (a detached element of the same document), None for the reference's None, False for
    NEED_PYTHON (its cause appended to ``why``, then the tag of the element a shared handler
    declined, if any)."""
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef uint64_t bits = _tb_bits(tags)
    cdef int32_t out = -1, wn = -1
    cdef int r, w = TB_WHY_NONE
    doc._check(el.idx)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            c.o.focus = NG_RECALL if recall else NG_BALANCED
            c.o.tables = True
            r = _tb_handle_table(&c, el.idx, bits, &out, &w, &wn)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    if r == NS_NEED_PYTHON:
        if why is not None:
            why.append(TB_WHY_NAMES[w])
            if wn >= 0:
                why.append(doc.name_str(doc.d.nodes[wn].tag))
        return False
    return _proxy(doc, out)


def nogil_table_span(CElement el not None, str attr):
    """_tb_span: ``_span(el, attr)``, None for NEED_PYTHON."""
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef TbCtx t
    cdef int32_t v = 1, nid
    cdef int r
    b = attr.encode()
    doc._check(el.idx)
    nid = dom_lookup_name(&doc.d, <const uchar*><const char*>b, len(b))
    memset(&t, 0, sizeof(TbCtx))
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            t.c = &c
            r = _tb_span(&t, el.idx, nid, &v)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return None if r == NS_NEED_PYTHON else v
