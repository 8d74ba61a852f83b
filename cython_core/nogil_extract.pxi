# main_extractor's handlers (2.3.1) without the GIL,
# over NgCtx (nogil_frame.pxi). Each ``ng_<upstream name>`` gives a status (NS_*) and its result
# through ``out`` (a node index, -1 for the reference's None).
#
# The spec is reference/trafila/v2_3_1/main_extractor.py and htmlprocessing.py with
# options.url None (handle_image); deduplication on (c.lru, a transaction of nogil_dedup.pxi)
# is ng_duplicate_test where process_node and handle_textnode call duplicate_test. The reference's
# ``Element(...)`` is a new detached node of the same document here, ``copy_tree`` is
# ng_copy_subtree, and a copied text or attribute value shares the arena bytes of its source.
# Every value the reference writes through ``xml_text`` is checked first (_utf8_xml_ok): a
# character lxml refuses answers NS_NEED_PYTHON (the reference raises there). The reference's
# live walks (``iter_live``: the next match is fetched when the current node is handed out) are
# NxWalk over dom_traverse_next, as the core's _Walk does them.
#
# Why a stage answers NS_NEED_PYTHON is kept in a thread-local cause (NX_*), read by the test
# wrappers (tests/test_core_nogil_extract.py counts them).

cdef extern from *:
    """
    static _Thread_local int trafila_nx_cause = 0;
    static inline void trafila_nx_set_cause(int c) { trafila_nx_cause = c; }
    static inline int trafila_nx_get_cause(void) { return trafila_nx_cause; }
    """
    void _nx_set_cause "trafila_nx_set_cause" (int c) nogil
    int _nx_get_cause "trafila_nx_get_cause" () nogil


cdef enum:
    NX_NONE = 0
    NX_CHAR          # a value the reference writes through xml_text holds a character lxml refuses
    NX_NAME          # a new element's tag is not a plain ASCII name (check_tag_name left to Python)
    NX_DEPTH         # define_newelem's carried nesting deeper than _NX_MAX_DEPTH
    NX_TABLE         # ng_handle_table (nogil_tables.pxi) answered NEED_PYTHON

cdef const char* NX_CAUSES[5]
NX_CAUSES[:] = [b"none", b"char", b"name", b"depth", b"table"]

cdef enum:
    _NX_MAX_DEPTH = 64


cdef inline int _nx_need(int cause) noexcept nogil:
    _nx_set_cause(cause)
    return NS_NEED_PYTHON


# NG_* sets of main_extractor / settings
cdef uint64_t _NX_CONSUMING = (1 << NG_HI) | (1 << NG_REF) | (1 << NG_DEL)              # INLINE_CONSUMING
cdef uint64_t _NX_CARRIED = _NX_CONSUMING | (1 << NG_CODE) | (1 << NG_GRAPHIC)          # INLINE_CARRIED
cdef uint64_t _NX_CARRIED_LB = _NX_CARRIED | (1 << NG_LB)
# TAG_CATALOG | {"ref", "graphic"}
cdef uint64_t _NX_QUOTE_TAGS = ((1 << NG_CODE) | (1 << NG_DEL) | (1 << NG_HEAD) | (1 << NG_HI) | (1 << NG_LB)
                                | (1 << NG_LIST) | (1 << NG_P) | (1 << NG_QUOTE) | (1 << NG_REF)
                                | (1 << NG_GRAPHIC))
# text.FORMATTING_PROTECTED
cdef uint64_t _NX_FORMATTING_PROTECTED = ((1 << NG_CELL) | (1 << NG_HEAD) | (1 << NG_HI) | (1 << NG_ITEM)
                                          | (1 << NG_P) | (1 << NG_QUOTE) | (1 << NG_REF) | (1 << NG_TD))


# -- small pieces -----------------------------------------------------------------------------

cdef inline bint _nx_chars(DocData* d, int32_t i, bint tail) noexcept nogil:
    "text_chars_test(slot): not None, not empty, not only whitespace."
    return not _slot_blank(d, _slot_of(d, i, tail))


cdef inline bint _nx_ok(DocData* d, int32_t i, bint tail) noexcept nogil:
    "xml_text(slot) would not raise."
    return _slot_ok(d, _slot_of(d, i, tail))


cdef inline int _nx_copy_slot(DocData* d, int32_t dst, bint dst_tail, int32_t src, bint src_tail) noexcept nogil:
    "``dst.text = xml_text(src.text)`` (text or tail) within the document."
    if not _nx_ok(d, src, src_tail):
        return _nx_need(NX_CHAR)
    ng_share_slot(d, dst, dst_tail, src, src_tail)
    if _slot_of(d, src, src_tail).off < 0:
        # None: keep the node's length at 0 as dom_set_slot does
        if dst_tail:
            d.nodes[dst].tail_len = 0
        else:
            d.nodes[dst].text_len = 0
    return NS_OK


cdef inline void _nx_set_none(DocData* d, int32_t i, bint tail) noexcept nogil:
    if tail:
        d.nodes[i].tail_off = -1
        d.nodes[i].tail_len = 0
    else:
        d.nodes[i].text_off = -1
        d.nodes[i].text_len = 0


cdef inline int32_t _nx_lookup(DocData* d, const char* name) noexcept nogil:
    return dom_lookup_name(d, <const uchar*>name, <Py_ssize_t>strlen(name))


cdef inline void _nx_attr_bytes(DocData* d, Attr* a, const uchar** v, Py_ssize_t* n) noexcept nogil:
    "What ``get`` reads: the value, '' for a valueless attribute, the name for a boolean one."
    if a.kind == AV_VALUE:
        v[0] = d.vals.data + a.val_off
        n[0] = a.val_len
    elif a.kind == AV_OWN_NAME:
        v[0] = name_bytes(d, a.name, n)
    else:
        v[0] = <const uchar*>""
        n[0] = 0


cdef int _nx_set_attr_from(DocData* d, int32_t dst, Attr a, bint check) noexcept nogil:
    """``dst.set(name, xml_text(value))`` with the value ``get`` reads from attribute ``a`` of
    another node of ``d``: a written value is shared (no copy, the arena is append-only)."""
    cdef int32_t k
    cdef const uchar* v
    cdef Py_ssize_t n
    if a.kind == AV_VALUE:
        if check and not _utf8_xml_ok(d.vals.data + a.val_off, a.val_len):
            return _nx_need(NX_CHAR)
        if not dom_attr_set(d, dst, a.name, AV_NO_VALUE, NULL, 0):
            return NS_ERROR
        k = dom_attr_find(d, dst, a.name)
        d.attrs[k].kind = AV_VALUE
        d.attrs[k].val_off = a.val_off
        d.attrs[k].val_len = a.val_len
        return NS_OK
    _nx_attr_bytes(d, &a, &v, &n)      # '' or the name (names are plain bytes, not in vals)
    if check and not _utf8_xml_ok(v, n):
        return _nx_need(NX_CHAR)
    return NS_OK if dom_attr_set(d, dst, a.name, AV_VALUE, v, n) else NS_ERROR


cdef int _nx_copy_attrs(NgCtx* c, int32_t src, int32_t dst) noexcept nogil:
    "main_extractor._copy_attrs: the KEEP_ATTRS of ``src`` onto ``dst``, in attribute order."
    cdef DocData* d = c.d
    cdef int32_t j, n = d.nodes[src].attr_count
    cdef Attr a
    cdef int r
    for j in range(n):
        a = d.attrs[d.nodes[src].attr_start + j]
        if _keep_attr(d, a.name):
            r = _nx_set_attr_from(d, dst, a, True)
            if r != NS_OK:
                return r
    return NS_OK


cdef int _nx_update_elem_rendition(NgCtx* c, int32_t elem, int32_t new_elem) noexcept nogil:
    "main_extractor.update_elem_rendition"
    cdef DocData* d = c.d
    cdef int32_t nid = _nx_lookup(d, "rend"), k
    cdef Attr a
    if nid < 0:
        return NS_OK
    k = dom_attr_find(d, elem, nid)
    if k < 0:
        return NS_OK
    a = d.attrs[k]
    if a.kind == AV_NO_VALUE or (a.kind == AV_VALUE and a.val_len == 0):
        return NS_OK        # '': falsy
    return _nx_set_attr_from(d, new_elem, a, True)


cdef inline int32_t _nx_new(NgCtx* c, int32_t tag, int32_t parent, int* status) noexcept nogil:
    """``Element(tag)`` / ``SubElement(parent, tag)`` for a tag id of the document: -1 with
    ``status`` NEED_PYTHON (a name check_tag_name may refuse) or ERROR (memory)."""
    cdef int32_t k
    if not _ex_simple_name(c.d, tag):
        status[0] = _nx_need(NX_NAME)
        return -1
    k = ng_new_element_tag(c, tag, parent)
    status[0] = NS_OK if k >= 0 else NS_ERROR
    return k


cdef void _nx_mark_done(NgCtx* c, int32_t top, bint inclusive) noexcept nogil:
    """``for child in iter_live(top, "*", inclusive=...): child.tag = "done"`` (renames move nothing)."""
    cdef DocData* d = c.d
    cdef int32_t s = top if inclusive else d.nodes[top].first
    cdef int32_t done_id = c.name[NG_DONE]
    if s < 0:
        return
    if not inclusive:
        # the descendants: every child's subtree
        while s >= 0:
            _nx_mark_done(c, s, True)
            s = d.nodes[s].next
        return
    while s >= 0:
        d.nodes[s].tag = done_id
        s = dom_preorder_next(d, s, top)


cdef struct NxBuf:
    uchar* data
    Py_ssize_t len
    Py_ssize_t cap


cdef inline void _nxb_init(NxBuf* b) noexcept nogil:
    b.data = NULL
    b.len = 0
    b.cap = 0


cdef bint _nxb_add(NxBuf* b, const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t cap
    cdef uchar* p
    if b.len + n > b.cap:
        cap = b.cap * 2 if b.cap > 0 else 64
        while cap < b.len + n:
            cap *= 2
        p = NULL if alloc_fails() else <uchar*>realloc(b.data, <size_t>cap)
        if p == NULL:
            return False
        b.data = p
        b.cap = cap
    if n > 0:
        memcpy(b.data + b.len, s, <size_t>n)
    b.len += n
    return True


cdef inline bint _nxb_add_slot(NxBuf* b, DocData* d, Slot s) noexcept nogil:
    if s.off < 0 or s.len == 0:
        return True
    return _nxb_add(b, d.text.data + s.off, s.len)


cdef int _nxb_store(NxBuf* b, DocData* d, int32_t i, bint tail) noexcept nogil:
    "``i.text = xml_text(the buffer)`` (or the tail), then the buffer is freed."
    cdef int r
    cdef const uchar* s = b.data if b.data != NULL else <const uchar*>""
    r = ng_set_slot(d, i, tail, s, b.len, False)
    if r == NS_NEED_PYTHON:
        _nx_set_cause(NX_CHAR)
    free(b.data)
    _nxb_init(b)
    return r


cdef inline int _nx_join_space(NxBuf* b, DocData* d, Slot a, Slot z) noexcept nogil:
    """``" ".join(filter(None, (a, z)))`` into the buffer: NS_OK or NS_ERROR."""
    if _slot_truthy(a) and not _nxb_add_slot(b, d, a):
        return NS_ERROR
    if _slot_truthy(a) and _slot_truthy(z) and not _nxb_add(b, <const uchar*>" ", 1):
        return NS_ERROR
    if _slot_truthy(z) and not _nxb_add_slot(b, d, z):
        return NS_ERROR
    return NS_OK


cdef bint _nx_last_is_space(const uchar* s, Py_ssize_t n) noexcept nogil:
    "``s[-1:].isspace()``"
    cdef Py_ssize_t q
    if n == 0:
        return False
    q = n - 1
    while q > 0 and (s[q] & 0xC0) == 0x80:
        q -= 1
    return _space_at(s, q, n) != 0


cdef inline bint _nx_first_is_space(const uchar* s, Py_ssize_t n) noexcept nogil:
    "``s[0].isspace()`` (s not empty)"
    return n > 0 and _space_at(s, 0, n) != 0


# -- the reference's live walk (iter_live / lxml's iter) ---------------------------------------

cdef struct NxWalk:
    int32_t cur
    int32_t top
    int32_t tag      # -1: every element


cdef void _nx_walk_init(DocData* d, NxWalk* w, int32_t top, int32_t tag, bint inclusive) noexcept nogil:
    cdef int32_t first = top
    w.top = top
    w.tag = tag
    if not inclusive or (tag >= 0 and d.nodes[top].tag != tag):
        first = dom_traverse_next(d, top, top)
        while first >= 0 and tag >= 0 and d.nodes[first].tag != tag:
            first = dom_traverse_next(d, first, top)
    w.cur = first


cdef int32_t _nx_walk_next(DocData* d, NxWalk* w) noexcept nogil:
    "The node to hand out (-1: the end); its successor is found now, on the tree as it is."
    cdef int32_t node = w.cur, i
    if node < 0:
        return -1
    i = dom_traverse_next(d, node, w.top)
    while i >= 0 and w.tag >= 0 and d.nodes[i].tag != w.tag:
        i = dom_traverse_next(d, i, w.top)
    w.cur = i
    return node


# -- htmlprocessing.process_node / handle_textnode ---------------------------------------------

cdef int ng_process_node(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "htmlprocessing.process_node (duplicate_test when c.lru is set): ``out`` = i or -1."
    cdef DocData* d = c.d
    cdef Slot text, tail, t, tl
    cdef int r
    cdef bint dup
    out[0] = -1
    if ng_is(c, i, NG_DONE):
        return NS_OK
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    if d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail):
        return NS_OK
    r = _trim_slot(d, text, &t)
    if r > 0:
        r = _trim_slot(d, tail, &tl)
    if r < 0:
        return NS_ERROR
    if not _slot_ok(d, t) or not _slot_ok(d, tl):
        return _nx_need(NX_CHAR)
    _put_slot(d, i, False, t)
    _put_slot(d, i, True, tl)
    if not ng_is(c, i, NG_LB) and t.off < 0 and tl.off >= 0 and d.nodes[i].first < 0:
        _put_slot(d, i, False, tl)
        _nx_set_none(d, i, True)
        t = tl
        tl.off = -1
        tl.len = 0
    if t.off >= 0 or tl.off >= 0:
        if _ex_textfilter(d, i):
            return NS_OK
        if c.lru != NULL:
            r = ng_duplicate_test(c, i, &dup)
            if r != NS_OK or dup:
                return r
    out[0] = i
    return NS_OK


cdef bint _nx_separates_inline(NgCtx* c, int32_t i) noexcept nogil:
    "xml.separates_inline"
    cdef int32_t nxt
    if not ng_is(c, i, NG_LB):
        return False
    nxt = c.d.nodes[i].next
    return nxt >= 0 and ng_in(_NX_CARRIED, c, nxt)


cdef int ng_handle_textnode(NgCtx* c, int32_t i, bint comments_fix, bint preserve_spaces, int32_t* out) noexcept nogil:
    "htmlprocessing.handle_textnode (duplicate_test when c.lru is set): ``out`` = i or -1."
    cdef DocData* d = c.d
    cdef Slot text, tail, t, tl
    cdef bint is_lb, dup
    cdef int r
    cdef const uchar* v
    cdef Py_ssize_t vn
    out[0] = -1
    if ng_is(c, i, NG_GRAPHIC):
        r = _nx_image_src(c, i, &v, &vn)
        if r < 0:
            return NS_ERROR
        if r == 1:
            out[0] = i
            return NS_OK
    if ng_is(c, i, NG_DONE):
        return NS_OK
    text = _slot_of(d, i, False)
    tail = _slot_of(d, i, True)
    is_lb = ng_is(c, i, NG_LB)
    if (d.nodes[i].first < 0 and not _slot_truthy(text) and not _slot_truthy(tail)
            and (comments_fix or not _nx_separates_inline(c, i))):
        return NS_OK
    if not comments_fix and is_lb:
        if not preserve_spaces:
            if _trim_slot(d, tail, &tl) < 0:
                return NS_ERROR
            if not _slot_ok(d, tl):
                return _nx_need(NX_CHAR)
            _put_slot(d, i, True, tl)
        out[0] = i
        return NS_OK
    if not _slot_truthy(text) and d.nodes[i].first < 0:
        # elem.text, elem.tail = xml_text(elem.tail), ""
        if not _slot_ok(d, tail):
            return _nx_need(NX_CHAR)
        t = tail
        if not preserve_spaces:
            if _trim_slot(d, tail, &t) < 0:
                return NS_ERROR
        _put_slot(d, i, False, t)
        if not dom_set_slot(d, i, True, NULL, 0, False):
            return NS_ERROR
        if comments_fix and is_lb:
            d.nodes[i].tag = c.name[NG_P]
    elif not preserve_spaces:
        tl = tail
        r = _trim_slot(d, text, &t)
        if r > 0 and _slot_truthy(tail):
            r = _trim_slot(d, tail, &tl)
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
        if r != NS_OK or dup:
            return r
    out[0] = i
    return NS_OK


cdef int ng_is_text_element(NgCtx* c, int32_t i, bint* out) noexcept nogil:
    "main_extractor.is_text_element (i >= 0)."
    cdef ExCollapse col
    col.out = NULL
    col.len = 0
    col.pending = False
    col.started = False
    _ex_collapse_subtree(c.d, i, &col)
    out[0] = col.started
    return NS_OK


cdef inline bint _nx_has_text(NgCtx* c, int32_t i) noexcept nogil:
    cdef bint r = False
    if i < 0:
        return False
    ng_is_text_element(c, i, &r)
    return r


# -- utils.image_src / is_image_file, handle_image ---------------------------------------------

cdef extern from *:
    """
    static const char *const trafila_nx_image_exts[9] = {
        "avif", "bmp", "gif", "heic", "heif", "jpg", "jpeg", "png", "webp"};
    """
    const char* const _NX_IMAGE_EXTS "trafila_nx_image_exts"[9]


cdef bint _nx_is_image_file(const uchar* s, Py_ssize_t n) noexcept nogil:
    """utils.is_image_file: at most 8192 code points and
    ``re.search(r"[^\\s]+\\.(avif|bmp|gif|hei[cf]|jpe?g|png|webp)(\\b|$)", s, re.I)``: a "."
    after a non-space character, one of the extensions (re.I: sre's case folding), then the end
    or a character that is no word character (\\b after a letter; ``$`` adds nothing to it)."""
    cdef Py_ssize_t p, q, k, cps = 0, w
    cdef Py_UCS4 cp
    cdef const char* ext
    cdef int e
    cdef bint ok
    if n > 8192:
        for p in range(n):
            if (s[p] & 0xC0) != 0x80:
                cps += 1
        if cps > 8192:
            return False
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
            k = p + 1
            ok = True
            while ext[0] != 0:
                if k >= n:
                    ok = False
                    break
                w = _nt_decode(s, k, n, &cp)
                if not _nt_ignorecase_eq(cp, ext[0]):
                    ok = False
                    break
                k += w
                ext += 1
            if not ok:
                continue
            if k >= n:
                return True
            _nt_decode(s, k, n, &cp)
            if not (_nt_isalnum(cp) or cp == 95):
                return True
    return False


cdef int _nx_image_src(NgCtx* c, int32_t i, const uchar** v, Py_ssize_t* vn) noexcept nogil:
    """utils.image_src: 1 with the value (a slice of the document's arenas), 0 for None."""
    cdef DocData* d = c.d
    cdef int32_t nid, k, j
    cdef Py_ssize_t nn
    cdef const uchar* nb
    cdef Attr* a
    cdef const char* names[2]
    names[0] = "data-src"
    names[1] = "src"
    for j in range(2):
        nid = _nx_lookup(d, names[j])
        if nid < 0:
            continue
        k = dom_attr_find(d, i, nid)
        if k < 0:
            continue
        _nx_attr_bytes(d, &d.attrs[k], v, vn)
        if _nx_is_image_file(v[0], vn[0]):
            return 1
    for j in range(d.nodes[i].attr_count):
        a = &d.attrs[d.nodes[i].attr_start + j]
        nb = name_bytes(d, a.name, &nn)
        if nn >= 8 and memcmp(nb, <const char*>"data-src", 8) == 0:
            _nx_attr_bytes(d, a, v, vn)
            if _nx_is_image_file(v[0], vn[0]):
                return 1
    return 0


cdef int ng_handle_image(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    """main_extractor.handle_image with options.url None: ``out`` = a new element (src, alt,
    title, the tail) or -1."""
    cdef DocData* d = c.d
    cdef const uchar* v
    cdef Py_ssize_t vn
    cdef NxBuf link
    cdef int r, j
    cdef int32_t new, nid, k
    cdef Attr a
    cdef const char* names[2]
    out[0] = -1
    r = _nx_image_src(c, i, &v, &vn)
    if r <= 0:
        return NS_OK if r == 0 else NS_ERROR
    _nxb_init(&link)
    if not (vn >= 4 and memcmp(v, <const char*>"http", 4) == 0) and vn >= 2 and v[0] == 47 and v[1] == 47:
        # re.sub(r"^//", "http://", link)
        if not _nxb_add(&link, <const uchar*>"http:", 5):
            return NS_ERROR
    if not _nxb_add(&link, v, vn):
        free(link.data)
        return NS_ERROR
    # the checks of the values written through xml_text (alt, title, the tail)
    names[0] = "alt"
    names[1] = "title"
    for j in range(2):
        nid = _nx_lookup(d, names[j])
        k = dom_attr_find(d, i, nid) if nid >= 0 else -1
        if k >= 0:
            _nx_attr_bytes(d, &d.attrs[k], &v, &vn)
            if vn > 0 and not _utf8_xml_ok(v, vn):
                free(link.data)
                return _nx_need(NX_CHAR)
    if not _nx_ok(d, i, True):
        free(link.data)
        return _nx_need(NX_CHAR)
    new = _nx_new(c, d.nodes[i].tag, -1, &r)
    if new < 0:
        free(link.data)
        return r
    nid = intern_name(d, <const uchar*>"src", 3)
    # set() does not check the value (only xml_text does)
    if nid < 0 or not dom_attr_set(d, new, nid, AV_VALUE, link.data, link.len):
        free(link.data)
        return NS_ERROR
    free(link.data)
    for j in range(2):
        nid = _nx_lookup(d, names[j])
        k = dom_attr_find(d, i, nid) if nid >= 0 else -1
        if k >= 0:
            a = d.attrs[k]
            _nx_attr_bytes(d, &a, &v, &vn)
            if vn > 0:
                r = _nx_set_attr_from(d, new, a, True)
                if r != NS_OK:
                    return r
    ng_share_slot(d, new, True, i, True)
    out[0] = new
    return NS_OK


# -- define_newelem, _append_block -------------------------------------------------------------

cdef int _nx_newelem(NgCtx* c, int32_t p, int32_t orig, bint keep, int depth) noexcept nogil:
    cdef DocData* d = c.d
    cdef int32_t sub, ch, nxt
    cdef int r
    if depth > _NX_MAX_DEPTH:
        return _nx_need(NX_DEPTH)
    if not _nx_ok(d, p, False) or not _nx_ok(d, p, True):
        # SubElement comes first: a name it refuses says so before
        if not _ex_simple_name(d, d.nodes[p].tag):
            return _nx_need(NX_NAME)
        return _nx_need(NX_CHAR)
    sub = _nx_new(c, d.nodes[p].tag, orig, &r)
    if sub < 0:
        return r
    ng_share_slot(d, sub, False, p, False)
    ng_share_slot(d, sub, True, p, True)
    r = _nx_copy_attrs(c, p, sub)
    if r != NS_OK or not keep:
        return r
    ch = d.nodes[p].first
    while ch >= 0:
        nxt = d.nodes[ch].next
        if ng_in(_NX_CARRIED_LB, c, ch):
            r = _nx_newelem(c, ch, sub, True, depth + 1)
            if r != NS_OK:
                return r
            _nx_mark_done(c, ch, True)
        ch = nxt
    return NS_OK


cdef int ng_define_newelem(NgCtx* c, int32_t processed, int32_t orig, bint keep_children) noexcept nogil:
    "main_extractor.define_newelem (processed -1: None)."
    if processed < 0:
        return NS_OK
    return _nx_newelem(c, processed, orig, keep_children, 0)


cdef int ng_append_block(NgCtx* c, int32_t parent, int32_t processed, int32_t source) noexcept nogil:
    "main_extractor._append_block (processed -1: None)."
    cdef DocData* d = c.d
    cdef Slot st, before
    cdef int32_t last, target
    cdef bint target_tail
    cdef NxBuf b
    cdef const uchar* bp
    if processed >= 0:
        if not _nx_ok(d, source, True):
            return _nx_need(NX_CHAR)
        _nx_copy_slot(d, processed, True, source, True)
        return ng_append(d, parent, processed)
    st = _slot_of(d, source, True)
    if not _slot_truthy(st) or _slot_blank(d, st):
        return NS_OK
    last = d.nodes[parent].last
    if last < 0:
        target = parent
        target_tail = False
    else:
        target = last
        target_tail = True
    before = _slot_of(d, target, target_tail)
    _nxb_init(&b)
    if not _nxb_add_slot(&b, d, before):
        return NS_ERROR
    bp = d.text.data + (before.off if before.off >= 0 else 0)
    if (not ng_is(c, source, NG_GRAPHIC) and (before.len > 0 or last >= 0)
            and not _nx_last_is_space(bp, before.len)
            and not _nx_first_is_space(d.text.data + st.off, st.len)):
        if not _nxb_add(&b, <const uchar*>" ", 1):
            free(b.data)
            return NS_ERROR
    if not _nxb_add_slot(&b, d, st):
        free(b.data)
        return NS_ERROR
    return _nxb_store(&b, d, target, target_tail)


# -- handle_lists, process_nested_elements ------------------------------------------------------

cdef int ng_handle_lists(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "main_extractor.handle_lists."
    cdef DocData* d = c.d
    cdef int32_t pe, item, child, pc, last
    cdef int r
    cdef NxWalk w
    cdef NxBuf b
    cdef Slot s1, s2
    cdef bint keep
    out[0] = -1
    pe = _nx_new(c, d.nodes[i].tag, -1, &r)
    if pe < 0:
        return r
    if _nx_chars(d, i, False):
        item = ng_new_element(c, NG_ITEM, pe)
        if item < 0:
            return NS_ERROR
        r = _nx_copy_slot(d, item, False, i, False)
        if r != NS_OK:
            return r
    _nx_walk_init(d, &w, i, c.name[NG_ITEM], False)
    while True:
        child = _nx_walk_next(d, &w)
        if child < 0:
            break
        if ng_is(c, child, NG_DONE):
            continue
        item = ng_new_element(c, NG_ITEM, -1)
        if item < 0:
            return NS_ERROR
        if d.nodes[child].first < 0:
            r = ng_process_node(c, child, &pc)
            if r != NS_OK:
                return r
            if pc >= 0:
                _nxb_init(&b)
                s1 = _slot_of(d, pc, False)
                s2 = _slot_of(d, pc, True)
                if _nx_join_space(&b, d, s1, s2) != NS_OK:
                    free(b.data)
                    return NS_ERROR
                r = _nxb_store(&b, d, item, False)
                if r != NS_OK:
                    return r
        else:
            r = _nx_process_nested_elements(c, child, item)
            if r != NS_OK:
                return r
            if _nx_chars(d, child, True) and d.nodes[item].first >= 0:
                last = d.nodes[item].last
                _nxb_init(&b)
                if _nx_chars(d, last, True):
                    # f"{last.tail} {child.tail}"
                    s1 = _slot_of(d, last, True)
                    s2 = _slot_of(d, child, True)
                    if (not _nxb_add_slot(&b, d, s1) or not _nxb_add(&b, <const uchar*>" ", 1)
                            or not _nxb_add_slot(&b, d, s2)):
                        free(b.data)
                        return NS_ERROR
                    r = _nxb_store(&b, d, last, True)
                else:
                    r = _nx_copy_slot(d, last, True, child, True)
                if r != NS_OK:
                    return r
        keep = _nx_has_text(c, item)
        if not keep:
            # next(iter_live(new_child_elem, "graphic"), None) is not None
            pc = item
            while pc >= 0:
                if ng_is(c, pc, NG_GRAPHIC):
                    keep = True
                    break
                pc = dom_preorder_next(d, pc, item)
        if keep:
            r = _nx_update_elem_rendition(c, child, item)
            if r != NS_OK:
                return r
            r = ng_append(d, pe, item)
            if r != NS_OK:
                return r
        d.nodes[child].tag = c.name[NG_DONE]
    d.nodes[i].tag = c.name[NG_DONE]
    if _nx_has_text(c, pe):
        r = _nx_update_elem_rendition(c, i, pe)
        if r != NS_OK:
            return r
        out[0] = pe
    return NS_OK


cdef int _nx_process_nested_elements(NgCtx* c, int32_t child, int32_t new) noexcept nogil:
    "main_extractor.process_nested_elements"
    cdef DocData* d = c.d
    cdef int32_t sub, pr, last
    cdef int r, k
    cdef NxWalk w
    cdef NxBuf b
    r = _nx_copy_slot(d, new, False, child, False)
    if r != NS_OK:
        return r
    _nx_walk_init(d, &w, child, -1, False)
    while True:
        sub = _nx_walk_next(d, &w)
        if sub < 0:
            break
        k = ng_kind(c, sub)
        if k == NG_LIST:
            r = ng_handle_lists(c, sub, &pr)
            if r == NS_OK:
                r = ng_append_block(c, new, pr, sub)
        elif k == NG_P and d.nodes[sub].first >= 0:
            r = ng_handle_paragraphs(c, sub, _NX_QUOTE_TAGS, &pr)
            if r == NS_OK:
                r = ng_append_block(c, new, pr, sub)
        elif k == NG_GRAPHIC:
            r = ng_handle_image(c, sub, &pr)
            if r == NS_OK:
                r = ng_append_block(c, new, pr, sub)
        elif k >= 0 and (_NX_CARRIED >> k) & 1:
            r = ng_define_newelem(c, sub, new, True)
        else:
            if d.nodes[sub].first >= 0 and _nx_chars(d, sub, True):
                # subelem[-1].tail, subelem.tail = xml_text(f"{subelem[-1].tail or ''}{subelem.tail}"), None
                last = d.nodes[sub].last
                _nxb_init(&b)
                if not _nxb_add_slot(&b, d, _slot_of(d, last, True)) or not _nxb_add_slot(&b, d, _slot_of(d, sub, True)):
                    free(b.data)
                    return NS_ERROR
                r = _nxb_store(&b, d, last, True)
                if r != NS_OK:
                    return r
                _nx_set_none(d, sub, True)
            r = ng_handle_textnode(c, sub, False, False, &pr)
            if r == NS_OK:
                r = ng_define_newelem(c, pr, new, False)
        if r != NS_OK:
            return r
        d.nodes[sub].tag = c.name[NG_DONE]
    return NS_OK


# -- handle_paragraphs ----------------------------------------------------------------------------

cdef bint _nx_wraps_inline(NgCtx* c, int32_t i) noexcept nogil:
    "main_extractor._wraps_inline"
    cdef int32_t ch = c.d.nodes[i].first
    if ch < 0:
        return False
    if ng_is(c, i, NG_REF):
        return True
    while ch >= 0:
        if ng_in(_NX_CARRIED, c, ch):
            return True
        ch = c.d.nodes[ch].next
    return False


cdef int _nx_push_unique(NsVec* v, int32_t x) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(v.len):
        if v.data[k] == x:
            return 0
    return nsv_push(v, x)


cdef int _nx_strip_ids(DocData* d, int32_t top, NsVec* ids) noexcept nogil:
    cdef TagSet ts
    if ids.len == 0:
        return NS_OK
    tagset_init(&ts, False, ids.data, <int32_t>ids.len)
    return NS_OK if dom_strip_tags(d, top, &ts) else NS_ERROR


cdef int ng_handle_paragraphs(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    "main_extractor.handle_paragraphs with ``potential_tags`` as NG_* bits."
    cdef DocData* d = c.d
    cdef int32_t pe, s, pc, newsub, img, it, last
    cdef int r
    cdef int k
    cdef NsVec ids
    cdef NxWalk w
    cdef NxBuf b
    cdef Slot sl
    cdef Py_ssize_t q
    out[0] = -1
    if d.nodes[i].first < 0:
        return ng_process_node(c, i, out)
    pe = _nx_new(c, d.nodes[i].tag, -1, &r)
    if pe < 0:
        return r
    # unexpected children: keep their text in place
    nsv_init(&ids)
    s = d.nodes[i].first
    while s >= 0:
        if not ng_in(potential, c, s) and not ng_is(c, s, NG_DONE):
            if _nx_push_unique(&ids, d.nodes[s].tag) < 0:
                nsv_free(&ids)
                return NS_ERROR
        s = dom_preorder_next(d, s, i)
    r = _nx_strip_ids(d, i, &ids)
    nsv_free(&ids)
    if r != NS_OK:
        return r
    _nx_walk_init(d, &w, i, -1, True)
    while True:
        s = _nx_walk_next(d, &w)
        if s < 0:
            break
        r = ng_handle_textnode(c, s, False, True, &pc)
        if r != NS_OK:
            return r
        if pc >= 0:
            if ng_is(c, pc, NG_P):
                _nxb_init(&b)
                if _nx_join_space(&b, d, _slot_of(d, pe, False), _slot_of(d, pc, False)) != NS_OK:
                    free(b.data)
                    return NS_ERROR
                r = _nxb_store(&b, d, pe, False)
                if r != NS_OK:
                    return r
                d.nodes[s].tag = c.name[NG_DONE]
                continue
            newsub = _nx_new(c, d.nodes[s].tag, -1, &r)
            if newsub < 0:
                return r
            if ng_in(_NX_CONSUMING, c, pc):
                if _nx_wraps_inline(c, pc):
                    r = ng_define_newelem(c, pc, pe, True)
                    if r != NS_OK:
                        return r
                    d.nodes[s].tag = c.name[NG_DONE]
                    continue
                it = d.nodes[pc].first
                while it >= 0:
                    if ng_is(c, it, NG_LB) and _slot_truthy(_slot_of(d, it, True)):
                        # item.tail = xml_text(" " + item.tail.lstrip())
                        sl = _slot_of(d, it, True)
                        q = 0
                        while q < sl.len:
                            k = _space_at(d.text.data + sl.off, q, sl.len)
                            if k == 0:
                                break
                            q += k
                        _nxb_init(&b)
                        if (not _nxb_add(&b, <const uchar*>" ", 1)
                                or not _nxb_add(&b, d.text.data + sl.off + q, sl.len - q)):
                            free(b.data)
                            return NS_ERROR
                        r = _nxb_store(&b, d, it, True)
                        if r != NS_OK:
                            return r
                    elif _nx_chars(d, it, False):
                        _nxb_init(&b)
                        if not _nxb_add(&b, <const uchar*>" ", 1) or not _nxb_add_slot(&b, d, _slot_of(d, it, False)):
                            free(b.data)
                            return NS_ERROR
                        r = _nxb_store(&b, d, it, False)
                        if r != NS_OK:
                            return r
                    it = d.nodes[it].next
                nsv_init(&ids)
                it = d.nodes[pc].first
                while it >= 0:
                    if _nx_push_unique(&ids, d.nodes[it].tag) < 0:
                        nsv_free(&ids)
                        return NS_ERROR
                    it = d.nodes[it].next
                r = _nx_strip_ids(d, pc, &ids)
                nsv_free(&ids)
                if r != NS_OK:
                    return r
                r = _nx_copy_attrs(c, s, newsub)
                if r != NS_OK:
                    return r
            r = _nx_copy_slot(d, newsub, False, pc, False)
            if r == NS_OK:
                r = _nx_copy_slot(d, newsub, True, pc, True)
            if r != NS_OK:
                return r
            if ng_is(c, pc, NG_GRAPHIC):
                r = ng_handle_image(c, pc, &img)
                if r != NS_OK:
                    return r
                if img >= 0:
                    newsub = img
            r = ng_append(d, pe, newsub)
            if r != NS_OK:
                return r
        d.nodes[s].tag = c.name[NG_DONE]
    last = d.nodes[pe].last
    if last >= 0:
        if ng_is(c, last, NG_LB) and d.nodes[last].tail_off < 0:
            r = ng_delete(d, last, True)
            if r != NS_OK:
                return r
        out[0] = pe
        return NS_OK
    if _nx_chars(d, pe, False):
        out[0] = pe
    return NS_OK


# -- titles, formatting, quotes, code, other elements ----------------------------------------------

cdef int ng_handle_titles(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "main_extractor.handle_titles"
    cdef int32_t title
    cdef int r
    out[0] = -1
    if c.d.nodes[i].first < 0:
        r = ng_process_node(c, i, &title)
        if r != NS_OK:
            return r
    else:
        title = ng_copy_subtree(c.d, i, True)
        if title < 0:
            return NS_ERROR
        r = ng_strip_elements(c, title, ng_bit(NG_DONE), True)
        if r != NS_OK:
            return r
        _nx_mark_done(c, i, False)
    if _nx_has_text(c, title):
        out[0] = title
    return NS_OK


cdef int ng_handle_formatting(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "main_extractor.handle_formatting"
    cdef int32_t f, parent, wrapper
    cdef int r
    out[0] = -1
    r = ng_process_node(c, i, &f)
    if r != NS_OK or f < 0:
        return r
    parent = c.d.nodes[i].parent
    if parent >= 0 and ng_in(_NX_FORMATTING_PROTECTED, c, parent):
        out[0] = f
        return NS_OK
    wrapper = ng_new_element(c, NG_P, -1)
    if wrapper < 0:
        return NS_ERROR
    r = ng_append(c.d, wrapper, f)
    if r == NS_OK:
        out[0] = wrapper
    return r


cdef bint _nx_attr_contains(DocData* d, int32_t i, const char* name, const char* lit) noexcept nogil:
    """``lit in i.get(name, "")`` for an ASCII ``lit`` (a byte search is exact on UTF-8)."""
    cdef int32_t nid = _nx_lookup(d, name), k
    cdef const uchar* v
    cdef Py_ssize_t n
    if nid < 0:
        return False
    k = dom_attr_find(d, i, nid)
    if k < 0:
        return False
    _nx_attr_bytes(d, &d.attrs[k], &v, &n)
    return _contains_bytes(v, n, <const uchar*>lit, <Py_ssize_t>strlen(lit), False)


cdef int ng_is_code_block_element(NgCtx* c, int32_t i, bint* out) noexcept nogil:
    "main_extractor.is_code_block_element"
    cdef DocData* d = c.d
    cdef int32_t nid, k, parent, code, ch
    cdef const uchar* v
    cdef Py_ssize_t n
    cdef Slot s
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
    out[0] = False
    code = -1
    ch = d.nodes[i].first
    while ch >= 0:
        if ng_is(c, ch, NG_CODE):
            code = ch
            break
        ch = d.nodes[ch].next
    if code < 0 or d.nodes[i].first != d.nodes[i].last:
        return NS_OK
    # not (element.text or "").strip() and not (code.tail or "").strip()
    out[0] = _slot_blank(d, _slot_of(d, i, False)) and _slot_blank(d, _slot_of(d, code, True))
    return NS_OK


cdef int ng_handle_code_blocks(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "main_extractor.handle_code_blocks"
    cdef int32_t pe = ng_copy_subtree(c.d, i, True)
    out[0] = -1
    if pe < 0:
        return NS_ERROR
    _nx_mark_done(c, i, True)
    c.d.nodes[pe].tag = c.name[NG_CODE]
    out[0] = pe
    return NS_OK


cdef int ng_handle_quotes(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "main_extractor.handle_quotes"
    cdef int32_t pe
    cdef int r
    cdef bint code
    out[0] = -1
    ng_is_code_block_element(c, i, &code)
    if code:
        return ng_handle_code_blocks(c, i, out)
    pe = _nx_new(c, c.d.nodes[i].tag, -1, &r)
    if pe < 0:
        return r
    r = _nx_process_nested_elements(c, i, pe)
    if r != NS_OK:
        return r
    if _nx_has_text(c, pe):
        r = ng_strip_tags(c, pe, ng_bit(NG_QUOTE))
        if r != NS_OK:
            return r
        out[0] = pe
    return NS_OK


cdef int ng_handle_other_elements(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    "main_extractor.handle_other_elements"
    cdef int32_t pe
    cdef int r
    out[0] = -1
    if ng_is(c, i, NG_DIV) and _nx_attr_contains(c.d, i, "class", "w3-code"):
        return ng_handle_code_blocks(c, i, out)
    if not ng_is(c, i, NG_DIV) or not (potential >> NG_DIV) & 1:
        return NS_OK
    r = ng_handle_textnode(c, i, False, True, &pe)
    if r != NS_OK or pe < 0:
        return r
    if _slot_blank(c.d, _slot_of(c.d, pe, False)):
        return NS_OK
    c.d.nodes[pe].attr_count = 0
    c.d.nodes[pe].tag = c.name[NG_P]
    out[0] = pe
    return NS_OK


# -- the dispatcher ----------------------------------------------------------------------------

cdef int ng_handle_textelem(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    "main_extractor.handle_textelem with ``potential_tags`` as NG_* bits."
    cdef int k = ng_kind(c, i)
    cdef int r
    cdef int32_t this, new
    out[0] = -1
    if k == NG_LIST:
        return ng_handle_lists(c, i, out)
    if k == NG_CODE or k == NG_QUOTE:
        return ng_handle_quotes(c, i, out)
    if k == NG_HEAD:
        return ng_handle_titles(c, i, out)
    if k == NG_P:
        return ng_handle_paragraphs(c, i, potential, out)
    if k == NG_LB:
        if _nx_chars(c.d, i, True):
            r = ng_process_node(c, i, &this)
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
    if k >= 0 and (_NX_CONSUMING >> k) & 1:
        return ng_handle_formatting(c, i, out)
    if k == NG_TABLE and (potential >> NG_TABLE) & 1:
        r = ng_handle_table(c, i, potential, out)
        if r == NS_NEED_PYTHON:
            _nx_set_cause(NX_TABLE)
        return r
    if k == NG_GRAPHIC and (potential >> NG_GRAPHIC) & 1:
        return ng_handle_image(c, i, out)
    return ng_handle_other_elements(c, i, potential, out)


# -- test wrappers (tests/test_core_nogil_extract.py) --------------------------------------------

cdef uint64_t _nx_bits(object tags) except? 0:
    cdef uint64_t bits = 0
    cdef int k
    names = [NG_NAMES[k].decode() for k in range(NG_N)]
    for t in tags:
        if t in names:
            bits |= ng_bit(names.index(t))
    return bits


def nogil_need_cause():
    "Why this thread's last stage answered NEED_PYTHON (a name of NX_CAUSES)."
    cdef int k = _nx_get_cause()
    return NX_CAUSES[k].decode() if 0 <= k < 5 else str(k)


cdef object _nx_result(CDocument doc, int r, int32_t out):
    if r == NS_ERROR:
        _raise_doc_error(doc)
    if r == NS_NEED_PYTHON:
        return False
    return None if out < 0 else _proxy(doc, out)


def nogil_handle_textelem(CElement el not None, potential_tags):
    """ng_handle_textelem on ``el`` (``potential_tags``: names; those outside the NG names are
    left out, as no handler reads them): the result as a proxy of the same document, None, or
    False for NEED_PYTHON (nogil_need_cause says why)."""
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef uint64_t bits = _nx_bits(potential_tags)
    cdef int r
    cdef int32_t out = -1, i = el.idx
    doc._check(i)
    _nx_set_cause(NX_NONE)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_handle_textelem(&c, i, bits, &out)
        ng_free(&c)
    return _nx_result(doc, r, out)


def nogil_process_node(CElement el not None):
    "ng_process_node on ``el``: the element, None, or False for NEED_PYTHON."
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef int r
    cdef int32_t out = -1, i = el.idx
    doc._check(i)
    _nx_set_cause(NX_NONE)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_process_node(&c, i, &out)
        ng_free(&c)
    return _nx_result(doc, r, out)


def nogil_handle_textnode(CElement el not None, bint comments_fix=True, bint preserve_spaces=False):
    "ng_handle_textnode on ``el``: the element, None, or False for NEED_PYTHON."
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef int r
    cdef int32_t out = -1, i = el.idx
    doc._check(i)
    _nx_set_cause(NX_NONE)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_handle_textnode(&c, i, comments_fix, preserve_spaces, &out)
        ng_free(&c)
    return _nx_result(doc, r, out)


def nogil_is_text_element(CElement el not None):
    "ng_is_text_element on ``el``."
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef int r
    cdef bint out = False
    cdef int32_t i = el.idx
    doc._check(i)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_is_text_element(&c, i, &out)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return out


def nogil_image_src(CElement el not None):
    "_nx_image_src on ``el``: the value or None."
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef int r
    cdef const uchar* v = NULL
    cdef Py_ssize_t n = 0
    cdef int32_t i = el.idx
    doc._check(i)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = _nx_image_src(&c, i, &v, &n)
        ng_free(&c)
    if r < 0:
        _raise_doc_error(doc)
    return utf8_str(v, n) if r == 1 else None


def nogil_is_image_file(str value):
    "_nx_is_image_file on a str (for the generated cases)."
    cdef bytes b = value.encode("utf-8", "surrogatepass")
    cdef const uchar* s = <const uchar*><const char*>b
    cdef Py_ssize_t n = len(b)
    cdef bint r
    with nogil:
        r = _nx_is_image_file(s, n)
    return r
