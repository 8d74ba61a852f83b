# What every GIL-free stage of the extraction shares.
#
# A stage is ``cdef int ng_<upstream name>(NgCtx* c, ...) noexcept nogil`` over node indexes of
# one document (the page's private working copy in the eventual entry; in the stage tests, a
# copy made for the test). It returns a status of nogil_select.pxi: NS_OK, NS_NEED_PYTHON (the
# C cannot decide exactly what the reference would do: the caller abandons the working copy and
# runs the Python sequence on the untouched tree) or NS_ERROR (memory; the document's ``error``
# says which). Everything a stage creates lives in the same document: new elements are
# detached nodes of it, copies are made inside it (ng_copy_subtree), so that moving a node from
# the page into a result body is a relink and no proxy ever has to follow it.

from libc.string cimport strlen
from libc.stdint cimport int8_t


# -- the names the extraction reads and writes ---------------------------------------------

cdef enum:
    NG_P = 0
    NG_HEAD
    NG_LB
    NG_LIST
    NG_ITEM
    NG_HI
    NG_REF
    NG_DEL
    NG_CODE
    NG_QUOTE
    NG_BLOCKQUOTE
    NG_PRE
    NG_GRAPHIC
    NG_TABLE
    NG_ROW
    NG_CELL
    NG_TD
    NG_TH
    NG_TR
    NG_THEAD
    NG_TBODY
    NG_TFOOT
    NG_CAPTION
    NG_DIV
    NG_DONE
    NG_SPAN
    NG_BODY
    NG_ARTICLE
    NG_MAIN
    NG_A
    NG_IMG
    NG_MATH
    NG_N          # how many (at most 64: potential-tag sets are bit masks)

# in NG_* order
cdef const char* NG_NAMES[NG_N]
NG_NAMES[:] = [b"p", b"head", b"lb", b"list", b"item", b"hi", b"ref", b"del", b"code", b"quote",
               b"blockquote", b"pre", b"graphic", b"table", b"row", b"cell", b"td", b"th", b"tr",
               b"thead", b"tbody", b"tfoot", b"caption", b"div", b"done", b"span", b"body",
               b"article", b"main", b"a", b"img", b"math"]


cdef dict _ng_index():
    cdef int k
    return {NG_NAMES[k].decode(): k for k in range(NG_N)}


#: NG_* of each name, for the accelerators given names as str
_NG_INDEX = _ng_index()

# extraction options (settings.Extractor) the stages read
cdef enum:
    NG_BALANCED = 0
    NG_PRECISION = 1
    NG_RECALL = 2


# the release a stage runs (NgOpts.release): where 1.11.0 and 2.3.1 differ, a stage takes its branch
cdef enum:
    NG_REL_231 = 0
    NG_REL_111 = 1


cdef struct NgOpts:
    int release                  # NG_REL_231 / NG_REL_111 (0: 2.3.1, what a zeroed NgOpts runs)
    int focus                    # NG_BALANCED / NG_PRECISION / NG_RECALL
    bint fast
    bint comments
    bint tables
    bint formatting
    bint links
    bint base_url                # url and safe_base_url(url): convert_link resolves targets (Python)
    bint has_url                 # options.url is not None: handle_image joins sources (Python)
    bint images
    bint dedup
    int32_t min_extracted_size
    int32_t min_extracted_comm_size
    int32_t min_output_size
    int32_t min_output_comm_size


cdef struct NgCtx:
    DocData* d
    NgOpts o
    # deduplication (nogil_dedup.pxi): the page's LruTxn (a void* as that file comes later), NULL
    # when off; options.min_duplcheck_size and max_repetitions
    void* lru
    long min_duplcheck_size
    long max_repetitions
    # 1.11.0's absolute XPaths (prune_html, _extract's //p//text()): the top-level elements of the
    # page's document (NULL / 0: the tree a stage is given is the whole document)
    const int32_t* doc_roots
    int n_doc_roots
    # 1.11.0: the page's tree when tree_cleaning deleted it from its document (fromstring chose an
    # element of the cleaning list, e.g. a lone <footer>): a detached element still belongs to
    # its old document, whose absolute XPaths no longer reach it (valid when tree_detached)
    int32_t detached_tree
    bint tree_detached
    int32_t name[NG_N]           # NG_* -> the document's name id
    int8_t* kind                 # name id -> NG_* or -1 (ids from n_kind on: -1)
    int32_t n_kind
    # 1.11.0's links with a base URL: every href's fix_relative_urls(base_url, href), resolved with
    # the GIL before the run (an NgLinkMap*, nogil_prepare.pxi; NULL: none)
    const void* link_map


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int ng_intern_names(DocData* d, const char** names, int n, int32_t* ids) noexcept nogil:
    """Intern ``names[:n]`` in ``d`` (the working copy may gain names no node has yet: a stage
    writes them): NS_OK, or NS_ERROR without memory."""
    cdef int k
    for k in range(n):
        ids[k] = intern_name(d, <const uchar*>names[k], <Py_ssize_t>strlen(names[k]))
        if ids[k] < 0:
            return NS_ERROR
    return NS_OK


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int ng_init(NgCtx* c, DocData* d) noexcept nogil:
    """Fill ``c`` for ``d`` (options zeroed: the caller sets ``c.o``). NS_OK or NS_ERROR; after
    either, ng_free(c) is safe."""
    cdef int k
    cdef int32_t top = 0
    memset(c, 0, sizeof(NgCtx))
    c.d = d
    if ng_intern_names(d, NG_NAMES, NG_N, c.name) != NS_OK:
        return NS_ERROR
    for k in range(NG_N):
        if c.name[k] + 1 > top:
            top = c.name[k] + 1
    if alloc_fails():
        return NS_ERROR
    c.kind = <int8_t*>malloc(<size_t>top)
    if c.kind == NULL:
        return NS_ERROR
    memset(c.kind, -1, <size_t>top)
    c.n_kind = top
    for k in range(NG_N):
        c.kind[c.name[k]] = <int8_t>k
    return NS_OK


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int ng_view(NgCtx* c, DocData* d) noexcept nogil:
    """ng_init for a walk that only reads (the GIL-holding accelerators): the names the document
    has are looked up, not interned (-1 for a name no node has: nothing matches it). NS_OK or
    NS_ERROR; after either, ng_free(c) is safe."""
    cdef int k
    cdef int32_t top = 0
    memset(c, 0, sizeof(NgCtx))
    c.d = d
    for k in range(NG_N):
        c.name[k] = dom_lookup_name(d, <const uchar*>NG_NAMES[k], <Py_ssize_t>strlen(NG_NAMES[k]))
        if c.name[k] + 1 > top:
            top = c.name[k] + 1
    if alloc_fails():
        return NS_ERROR
    c.kind = <int8_t*>malloc(<size_t>top + 1)
    if c.kind == NULL:
        return NS_ERROR
    memset(c.kind, -1, <size_t>top + 1)
    c.n_kind = top
    for k in range(NG_N):
        if c.name[k] >= 0:
            c.kind[c.name[k]] = <int8_t>k
    return NS_OK


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef void ng_free(NgCtx* c) noexcept nogil:
    free(c.kind)
    c.kind = NULL
    c.n_kind = 0


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef inline int ng_kind_of(const NgCtx* c, int32_t tag) noexcept nogil:
    "NG_* of a name id, -1 for a name the extraction does not name."
    return c.kind[tag] if 0 <= tag < c.n_kind else -1


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef inline int ng_kind(const NgCtx* c, int32_t i) noexcept nogil:
    "NG_* of node ``i``'s tag, or -1."
    return ng_kind_of(c, c.d.nodes[i].tag)


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef inline bint ng_is(const NgCtx* c, int32_t i, int k) noexcept nogil:
    return c.d.nodes[i].tag == c.name[k]


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef inline uint64_t ng_bit(int k) noexcept nogil:
    return (<uint64_t>1) << k


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef inline bint ng_in(uint64_t tags, const NgCtx* c, int32_t i) noexcept nogil:
    "Node ``i``'s tag is in the set ``tags`` (a bit per NG_*: potential_tags and the like)."
    cdef int k = ng_kind(c, i)
    return k >= 0 and (tags >> k) & 1


# -- text slots ---------------------------------------------------------------------------

# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int ng_set_slot(DocData* d, int32_t i, bint tail, const uchar* s, Py_ssize_t n, bint none) noexcept nogil:
    """``elem.text = xml_text(value)`` (or the tail): NS_NEED_PYTHON when the value holds a
    character lxml refuses (the reference raises there), NS_ERROR without memory. ``s`` may
    point into ``d``'s own text arena (it is copied before the arena can move)."""
    cdef Py_ssize_t off = -1
    if none:
        return NS_OK if dom_set_slot(d, i, tail, NULL, 0, True) else NS_ERROR
    if not _utf8_xml_ok(s, n):
        return NS_NEED_PYTHON
    if s >= d.text.data and s < d.text.data + d.text.len:
        # a slice of the arena itself: appending may move it, so go by offset
        off = s - d.text.data
        if not buf_reserve(&d.text, n, &d.error):
            return NS_ERROR
        s = d.text.data + off
    return NS_OK if dom_set_slot(d, i, tail, s, n, False) else NS_ERROR


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef inline int ng_share_slot(DocData* d, int32_t dst, bint dst_tail, int32_t src, bint src_tail) noexcept nogil:
    """``dst.text = src.text`` (text or tail) within one document: the arena is append-only,
    so the two slots can read the same bytes (already accepted by lxml when they were set)."""
    cdef Node* s = &d.nodes[src]
    cdef Node* t = &d.nodes[dst]
    cdef int32_t off = s.tail_off if src_tail else s.text_off
    cdef int32_t n = s.tail_len if src_tail else s.text_len
    if dst_tail:
        t.tail_off = off
        t.tail_len = n
    else:
        t.text_off = off
        t.text_len = n
    return NS_OK


# -- elements -----------------------------------------------------------------------------

# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int32_t ng_new_element(NgCtx* c, int k, int32_t parent) noexcept nogil:
    """``Element(NG_NAMES[k])`` (parent -1) or ``SubElement(parent, ...)``: the new node's
    index, -1 without memory."""
    return dom_new_node(c.d, c.name[k], parent)


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int32_t ng_new_element_tag(NgCtx* c, int32_t tag, int32_t parent) noexcept nogil:
    """``Element(other.tag)`` with a name id the document has (not a simple name: the caller
    checks with the reference's rule before, or uses only names the document's elements have)."""
    return dom_new_node(c.d, tag, parent)


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int ng_append(DocData* d, int32_t parent, int32_t i) noexcept nogil:
    """``parent.append(i)`` in one document: ``i`` leaves its place (its tail with it, as lxml
    moves it), becomes the last child. NS_ERROR when ``i`` is ``parent`` or holds it (lxml
    raises there: the reference never does it)."""
    if dom_is_ancestor_or_self(d, i, parent):
        return NS_ERROR
    dom_move_before(d, parent, i, -1)
    return NS_OK


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int ng_delete(DocData* d, int32_t i, bint keep_tail) noexcept nogil:
    """xml.delete_element: a parentless element is left alone; else it leaves, its tail joined
    to the previous sibling's tail or the parent's text when ``keep_tail`` (NS_NEED_PYTHON where
    the joined string must go through lxml's check: the reference may raise there)."""
    cdef int r
    if d.nodes[i].parent < 0:
        return NS_OK
    if not keep_tail:
        unlink_node(d, i)
        return NS_OK
    r = _drop_tree_c(d, i)
    if r == 1:
        return NS_OK
    return NS_NEED_PYTHON if r == 0 else NS_ERROR


cdef int ng_strip_tags(NgCtx* c, int32_t top, uint64_t tags) noexcept nogil:
    """``strip_tags(top, *tags)`` for NG_* names (bits of ``tags``)."""
    cdef int32_t ids[NG_N]
    cdef int k, n = 0
    cdef TagSet ts
    for k in range(NG_N):
        if (tags >> k) & 1:
            ids[n] = c.name[k]
            n += 1
    if n == 0:
        return NS_OK
    tagset_init(&ts, False, ids, n)
    return NS_OK if dom_strip_tags(c.d, top, &ts) else NS_ERROR


cdef int ng_strip_elements(NgCtx* c, int32_t top, uint64_t tags, bint with_tail) noexcept nogil:
    """``strip_elements(top, *tags, with_tail=...)`` for NG_* names (bits of ``tags``)."""
    cdef int32_t ids[NG_N]
    cdef int k, n = 0
    cdef TagSet ts
    for k in range(NG_N):
        if (tags >> k) & 1:
            ids[n] = c.name[k]
            n += 1
    if n == 0:
        return NS_OK
    tagset_init(&ts, False, ids, n)
    return NS_OK if dom_strip_elements(c.d, top, &ts, with_tail) else NS_ERROR


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int32_t ng_copy_subtree(DocData* d, int32_t top, bint with_tail) noexcept nogil:
    """``copy_tree(top)`` (deepcopy: the tail too when ``with_tail``) inside the same document:
    a detached subtree whose nodes read the source's text and value bytes (the arenas are
    append-only) and have attribute entries of their own. The copy's root, -1 without memory."""
    cdef int32_t root = -1, s = top, parent, copy, k, n_attrs
    cdef Node* sn
    cdef Attr* a
    # parent of each copy: the copy of the source's parent, found through a stack of
    # (source, copy) pairs along the current path
    cdef NsVec src_path, copy_path
    nsv_init(&src_path)
    nsv_init(&copy_path)
    while s >= 0:
        sn = &d.nodes[s]
        parent = -1
        if s != top:
            while src_path.len > 0 and src_path.data[src_path.len - 1] != sn.parent:
                src_path.len -= 1
                copy_path.len -= 1
            if src_path.len == 0:
                root = -1
                break       # not a tree under top: cannot happen in a consistent document
            parent = copy_path.data[copy_path.len - 1]
        copy = dom_new_node(d, d.nodes[s].tag, parent)
        if copy < 0:
            root = -1
            break
        if s == top:
            root = copy
        sn = &d.nodes[s]
        n_attrs = sn.attr_count
        if n_attrs:
            if not grow_array(<void**>&d.attrs, &d.cap_attrs, d.n_attrs + n_attrs, sizeof(Attr), &d.error):
                root = -1
                break
            sn = &d.nodes[s]
            for k in range(n_attrs):
                d.attrs[d.n_attrs + k] = d.attrs[sn.attr_start + k]
            d.nodes[copy].attr_start = d.n_attrs
            d.nodes[copy].attr_count = n_attrs
            d.n_attrs += n_attrs
        ng_share_slot(d, copy, False, s, False)
        if s != top or with_tail:
            ng_share_slot(d, copy, True, s, True)
        if nsv_push(&src_path, s) < 0 or nsv_push(&copy_path, copy) < 0:
            root = -1
            break
        s = dom_preorder_next(d, s, top)
    nsv_free(&src_path)
    nsv_free(&copy_path)
    return root


# -- text of a subtree --------------------------------------------------------------------

ctypedef int (*NgPieceFn)(void* st, const uchar* p, int32_t n) noexcept nogil


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef int ng_itertext_pieces(DocData* d, int32_t top, NgPieceFn feed, void* st) noexcept nogil:
    """lxml's ``top.itertext()``: ``feed`` gets every text and tail slot that is not None (empty
    ones too), top's own tail excepted, in document order; a status other than NS_OK from
    ``feed`` stops the walk and is returned."""
    cdef int32_t s = top
    cdef Node* nd
    cdef int r
    if d.nodes[top].text_off >= 0:
        r = feed(st, d.text.data + d.nodes[top].text_off, d.nodes[top].text_len)
        if r != NS_OK:
            return r
    while True:
        if d.nodes[s].first >= 0:
            s = d.nodes[s].first
            nd = &d.nodes[s]
            if nd.text_off >= 0:
                r = feed(st, d.text.data + nd.text_off, nd.text_len)
                if r != NS_OK:
                    return r
            continue
        while True:
            if s == top:
                return NS_OK
            nd = &d.nodes[s]
            if nd.tail_off >= 0:
                r = feed(st, d.text.data + nd.tail_off, nd.tail_len)
                if r != NS_OK:
                    return r
            if nd.next >= 0:
                s = nd.next
                nd = &d.nodes[s]
                if nd.text_off >= 0:
                    r = feed(st, d.text.data + nd.text_off, nd.text_len)
                    if r != NS_OK:
                        return r
                break
            s = nd.parent


cdef struct NgStripLen:
    Py_ssize_t count        # code points of the join so far
    Py_ssize_t first        # where its first non-space code point starts (-1: none yet)
    Py_ssize_t last_end     # where its last non-space code point ends
    bint started            # a piece was fed (the next one is preceded by " ")


cdef int _ng_strip_len_feed(void* state, const uchar* p, int32_t n) noexcept nogil:
    cdef NgStripLen* st = <NgStripLen*>state
    cdef Py_ssize_t k = 0, w
    if st.started:
        st.count += 1       # the " " separator
    st.started = True
    while k < n:
        w = _space_at(p, k, n)
        if w:
            st.count += 1
            k += w
            continue
        if st.first < 0:
            st.first = st.count
        st.count += 1
        st.last_end = st.count
        k += 1
        while k < n and (p[k] & 0xC0) == 0x80:
            k += 1
    return NS_OK


# upstream: none (the GIL-free stages' shared frame: C machinery)
cdef Py_ssize_t ng_itertext_strip_len(DocData* d, int32_t top) noexcept nogil:
    """``len(" ".join(top.itertext()).strip())`` in code points (ng_itertext_join_strip's
    length, counted without building the string)."""
    cdef NgStripLen st
    st.count = 0
    st.first = -1
    st.last_end = 0
    st.started = False
    ng_itertext_pieces(d, top, _ng_strip_len_feed, &st)
    return 0 if st.first < 0 else st.last_end - st.first


# -- test wrappers (tests/test_core_nogil_frame.py) -----------------------------------------

def nogil_copy_subtree(CElement el not None, bint with_tail=True):
    """ng_copy_subtree on ``el``: the copy as a proxy of the same document."""
    cdef CDocument doc = el.doc
    cdef int32_t r
    doc._check(el.idx)
    with nogil:
        r = ng_copy_subtree(&doc.d, el.idx, with_tail)
    if r < 0:
        _raise_doc_error(doc)
    return _proxy(doc, r)


def nogil_delete(CElement el not None, bint keep_tail=True):
    """ng_delete on ``el``: True done, False NEED_PYTHON (nothing changed)."""
    cdef CDocument doc = el.doc
    cdef int r
    doc._check(el.idx)
    with nogil:
        r = ng_delete(&doc.d, el.idx, keep_tail)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return r == NS_OK


def nogil_itertext_strip_len(CElement el not None):
    "ng_itertext_strip_len on ``el``."
    cdef CDocument doc = el.doc
    cdef Py_ssize_t r
    doc._check(el.idx)
    with nogil:
        r = ng_itertext_strip_len(&doc.d, el.idx)
    return r


def nogil_strip(CElement el not None, tags, bint elements=False, bint with_tail=True):
    """ng_strip_tags (or ng_strip_elements) on ``el`` with the NG names ``tags``."""
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef uint64_t bits = 0
    cdef int r, k
    names = [NG_NAMES[k].decode() for k in range(NG_N)]
    for t in tags:
        bits |= ng_bit(names.index(t))
    doc._check(el.idx)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_strip_elements(&c, el.idx, bits, with_tail) if elements else ng_strip_tags(&c, el.idx, bits)
        ng_free(&c)
    if r != NS_OK:
        _raise_doc_error(doc)
