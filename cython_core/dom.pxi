# The C document's mutation operations, with trafila.dom's (lxml's) semantics.
#
# Every function here is ``noexcept nogil``. Node indices passed in are valid
# (0 <= i < d.n_nodes): the Python view (view.pxi) only holds indices it got
# from the document itself, and nodes are never freed before the document.
# Operations that allocate return False / -1 on failure with ``d.error`` set;
# the view turns that into MemoryError and clears the flag.
#
# A node is in one of three states:
#   attached  -- parent >= 0, linked in its parent's child chain;
#   top level -- parent == -1 and listed in d.roots (roots are chained by next/prev);
#   detached  -- parent == -1, prev == next == -1, not in d.roots: the root of its
#                own subtree, still owned by this document (lxml keeps a removed
#                node in its document).
# Text, tails and attribute values are immutable slices of append-only arenas:
# setting one appends the new bytes and repoints the slice, so slices may be
# shared between nodes.


cdef inline bint dom_is_top_level(DocData* d, int32_t i) noexcept nogil:
    cdef int32_t r
    if d.nodes[i].parent >= 0:
        return False
    for r in range(d.n_roots):
        if d.roots[r] == i:
            return True
    return False


cdef void dom_unlink(DocData* d, int32_t i) noexcept nogil:
    """Take ``i`` out of its parent's children or the document's top level
    (the tail stays on it); a detached node is left as it is."""
    cdef Node* nd = &d.nodes[i]
    cdef int32_t r
    if nd.parent >= 0:
        unlink_node(d, i)
        return
    for r in range(d.n_roots):
        if d.roots[r] == i:
            if nd.prev >= 0:
                d.nodes[nd.prev].next = nd.next
            if nd.next >= 0:
                d.nodes[nd.next].prev = nd.prev
            if r + 1 < d.n_roots:
                memmove(&d.roots[r], &d.roots[r + 1], <size_t>(d.n_roots - r - 1) * sizeof(int32_t))
            d.n_roots -= 1
            nd.prev = -1
            nd.next = -1
            d.reordered = 1
            return


cdef void dom_link_before(DocData* d, int32_t parent, int32_t i, int32_t ref) noexcept nogil:
    """Link the detached node ``i`` into ``parent``'s children before ``ref``
    (a child of ``parent``, not ``i``), or last when ``ref`` is -1."""
    cdef Node* nd = &d.nodes[i]
    cdef Node* par = &d.nodes[parent]
    nd.parent = parent
    if ref < 0:
        nd.prev = par.last
        nd.next = -1
        if par.last >= 0:
            d.nodes[par.last].next = i
        else:
            par.first = i
        par.last = i
    else:
        nd.next = ref
        nd.prev = d.nodes[ref].prev
        if nd.prev >= 0:
            d.nodes[nd.prev].next = i
        else:
            par.first = i
        d.nodes[ref].prev = i
    d.reordered = 1


cdef inline void dom_move_before(DocData* d, int32_t parent, int32_t i, int32_t ref) noexcept nogil:
    """Move ``i`` (with its tail) into ``parent`` before ``ref`` (-1: last); ``ref != i``."""
    dom_unlink(d, i)
    dom_link_before(d, parent, i, ref)


cdef bint dom_is_ancestor_or_self(DocData* d, int32_t cand, int32_t node) noexcept nogil:
    # trafila.dom._is_ancestor_or_self
    if cand == node:
        return True
    if d.nodes[cand].first < 0:
        return False
    while node >= 0:
        if node == cand:
            return True
        node = d.nodes[node].parent
    return False


cdef int32_t dom_traverse_next(DocData* d, int32_t node, int32_t top) noexcept nogil:
    """trafila.dom._traverse_next: first child, else next sibling, else the next
    sibling of the nearest ancestor below ``top`` (``top`` may be -2: a node of
    another document, never met). A node moved out of ``top``'s subtree walks on
    until it reaches the top level (whose siblings are the document's roots)."""
    cdef Node* nd = &d.nodes[node]
    cdef int32_t p
    if nd.first >= 0:
        return nd.first
    if node == top:
        return -1
    while True:
        nd = &d.nodes[node]
        p = nd.parent
        if p < 0:
            # top level: the next root; detached: none (next is -1)
            return nd.next
        if nd.next >= 0:
            return nd.next
        if p == top:
            return -1
        node = p


cdef inline int32_t dom_preorder_next(DocData* d, int32_t node, int32_t top) noexcept nogil:
    """The next node of ``top``'s subtree in document order (-1 at its end)."""
    cdef Node* nd = &d.nodes[node]
    if nd.first >= 0:
        return nd.first
    while node != top:
        nd = &d.nodes[node]
        if nd.next >= 0:
            return nd.next
        node = nd.parent
    return -1


# -- nodes and names --------------------------------------------------------------

cdef int32_t dom_new_node(DocData* d, int32_t tag, int32_t parent) noexcept nogil:
    """A new element without attributes: the last child of ``parent``, or
    detached when ``parent`` is -1; -1 on memory failure."""
    cdef int32_t i = d.n_nodes
    cdef Node* nd
    if not grow_array(<void**>&d.nodes, &d.cap_nodes, i + 1, sizeof(Node), &d.error):
        return -1
    nd = &d.nodes[i]
    nd.tag = tag
    nd.parent = -1
    nd.first = -1
    nd.last = -1
    nd.next = -1
    nd.prev = -1
    nd.text_off = -1
    nd.text_len = 0
    nd.tail_off = -1
    nd.tail_len = 0
    nd.attr_start = d.n_attrs
    nd.attr_count = 0
    d.n_nodes = i + 1
    if parent >= 0:
        dom_link_before(d, parent, i, -1)
    return i


cdef bint dom_add_root(DocData* d, int32_t i) noexcept nogil:
    """Make the detached node ``i`` the last top-level node."""
    if not grow_array(<void**>&d.roots, &d.cap_roots, d.n_roots + 1, sizeof(int32_t), &d.error):
        return False
    if d.n_roots:
        d.nodes[i].prev = d.roots[d.n_roots - 1]
        d.nodes[d.roots[d.n_roots - 1]].next = i
    d.roots[d.n_roots] = i
    d.n_roots += 1
    return True


cdef int32_t dom_lookup_name(DocData* d, const uchar* s, Py_ssize_t n) noexcept nogil:
    """The id of the name ``s[:n]`` if the document knows it, else -1 (nothing is added)."""
    cdef uint32_t h = name_hash(s, n)
    cdef int32_t k = known_id(s, n, h)
    cdef int32_t slot, idx
    cdef uint32_t mask
    if k >= 0:
        return k
    if not d.slot_cap:
        return -1
    mask = <uint32_t>(d.slot_cap - 1)
    slot = <int32_t>(h & mask)
    while True:
        idx = d.slots[slot]
        if idx < 0:
            return -1
        if name_equals(d, idx, s, n):
            return N_KNOWN + idx
        slot = (slot + 1) & mask


cdef inline int32_t dom_map_name(DocData* src, int32_t nid, DocData* dst) noexcept nogil:
    """``src``'s name id ``nid`` as a name id of ``dst`` (-1 on memory failure)."""
    cdef Py_ssize_t n
    cdef const uchar* s
    if nid < N_KNOWN:
        return nid
    s = name_bytes(src, nid, &n)
    return intern_name(dst, s, n)


# -- text and tails ----------------------------------------------------------------

cdef bint dom_set_slot(DocData* d, int32_t i, bint tail, const uchar* s, Py_ssize_t n, bint none) noexcept nogil:
    """Set the text (or tail) of ``i``: None when ``none``, else ``s[:n]``."""
    cdef int32_t off = -1
    cdef Node* nd
    if none:
        n = 0
    else:
        if not buf_reserve(&d.text, n, &d.error):
            return False
        off = <int32_t>d.text.len
        if n > 0:
            memcpy(d.text.data + d.text.len, s, <size_t>n)
            d.text.len += n
    nd = &d.nodes[i]
    if tail:
        nd.tail_off = off
        nd.tail_len = <int32_t>n
    else:
        nd.text_off = off
        nd.text_len = <int32_t>n
    return True


cdef bint dom_concat_slot(DocData* d, int32_t dst, bint dst_tail, int32_t off, int32_t n) noexcept nogil:
    """dom._concat: the text (tail) of ``dst`` followed by the slice (off, n)
    of the text arena; an absent slice (off -1) changes nothing, an absent
    target takes the slice as it is."""
    cdef Node* nd = &d.nodes[dst]
    cdef int32_t a_off = nd.tail_off if dst_tail else nd.text_off
    cdef int32_t a_len = nd.tail_len if dst_tail else nd.text_len
    cdef int32_t new_off
    if off < 0:
        return True
    if a_off >= 0:
        if n > 0:
            # both slices live in this arena: reserve first, then copy from the (moved) buffer
            if not buf_reserve(&d.text, <Py_ssize_t>a_len + n, &d.error):
                return False
            new_off = <int32_t>d.text.len
            memcpy(d.text.data + new_off, d.text.data + a_off, <size_t>a_len)
            memcpy(d.text.data + new_off + a_len, d.text.data + off, <size_t>n)
            d.text.len += <Py_ssize_t>a_len + n
            off = new_off
            n = a_len + n
        else:
            return True
    nd = &d.nodes[dst]
    if dst_tail:
        nd.tail_off = off
        nd.tail_len = n
    else:
        nd.text_off = off
        nd.text_len = n
    return True


# -- attributes ----------------------------------------------------------------------

cdef inline int32_t dom_attr_find(DocData* d, int32_t i, int32_t nid) noexcept nogil:
    cdef Node* nd = &d.nodes[i]
    cdef int32_t k
    for k in range(nd.attr_start, nd.attr_start + nd.attr_count):
        if d.attrs[k].name == nid:
            return k
    return -1


cdef bint dom_attr_get(DocData* d, int32_t i, int32_t nid, const uchar** v, Py_ssize_t* n) noexcept nogil:
    """``el.get(name)`` as bytes into v/n: True and the value (a valueless attribute reads '', a
    valueless boolean one its own name), False when missing."""
    cdef int32_t k
    cdef Attr* a
    v[0] = NULL
    n[0] = 0
    if nid < 0:
        return False
    k = dom_attr_find(d, i, nid)
    if k < 0:
        return False
    a = &d.attrs[k]
    if a.kind == AV_VALUE:
        v[0] = <const uchar*>d.vals.data + a.val_off
        n[0] = a.val_len
    elif a.kind == AV_OWN_NAME:
        v[0] = name_bytes(d, a.name, n)
    return True


cdef bint dom_attr_set(DocData* d, int32_t i, int32_t nid, int32_t kind, const uchar* v, Py_ssize_t n) noexcept nogil:
    """Set attribute ``nid`` of ``i`` (kept in place if present, else added last)."""
    return dom_attr_put(d, i, dom_attr_find(d, i, nid), nid, kind, v, n)


cdef bint dom_attr_put(DocData* d, int32_t i, int32_t k, int32_t nid, int32_t kind, const uchar* v,
                       Py_ssize_t n) noexcept nogil:
    """Set attribute slot ``k`` of ``i`` to ``nid``; ``k`` < 0: add it last (the caller knows
    that ``i`` has no attribute ``nid``: a copy, whose source has each name once)."""
    cdef int32_t off = -1
    cdef Node* nd
    cdef Attr* a
    if kind == AV_VALUE:
        if not buf_reserve(&d.vals, n, &d.error):
            return False
        off = <int32_t>d.vals.len
        if n > 0:
            memcpy(d.vals.data + d.vals.len, v, <size_t>n)
            d.vals.len += n
    else:
        n = 0
    if k < 0:
        nd = &d.nodes[i]
        if nd.attr_start + nd.attr_count != d.n_attrs:
            # not at the end of the array: move this node's attributes there first
            if not grow_array(<void**>&d.attrs, &d.cap_attrs, d.n_attrs + nd.attr_count + 1, sizeof(Attr), &d.error):
                return False
            if nd.attr_count:
                memcpy(&d.attrs[d.n_attrs], &d.attrs[nd.attr_start], <size_t>nd.attr_count * sizeof(Attr))
            nd.attr_start = d.n_attrs
            d.n_attrs += nd.attr_count
        elif not grow_array(<void**>&d.attrs, &d.cap_attrs, d.n_attrs + 1, sizeof(Attr), &d.error):
            return False
        k = d.n_attrs
        d.n_attrs += 1
        nd.attr_count += 1
    a = &d.attrs[k]
    a.name = nid
    a.kind = kind
    a.val_off = off
    a.val_len = <int32_t>n
    return True


cdef void dom_attr_delete(DocData* d, int32_t i, int32_t k) noexcept nogil:
    """Delete attribute slot ``k`` (inside ``i``'s range), keeping the order of the others."""
    cdef Node* nd = &d.nodes[i]
    cdef int32_t end = nd.attr_start + nd.attr_count
    if k + 1 < end:
        memmove(&d.attrs[k], &d.attrs[k + 1], <size_t>(end - k - 1) * sizeof(Attr))
    nd.attr_count -= 1


# -- copies --------------------------------------------------------------------------

cdef inline int32_t dom_map_name_memo(DocData* src, int32_t nid, DocData* dst, int32_t* memo) noexcept nogil:
    """dom_map_name, remembered in ``memo`` (one slot per name ``src`` interned, -1 when not
    yet mapped; NULL: no memo) for a copy: each name is hashed once per copy, not per use."""
    cdef int32_t k, mapped
    if nid < N_KNOWN or memo == NULL:
        return dom_map_name(src, nid, dst)
    k = nid - N_KNOWN
    if k >= src.n_names:
        return dom_map_name(src, nid, dst)
    mapped = memo[k]
    if mapped < 0:
        mapped = dom_map_name(src, nid, dst)
        memo[k] = mapped
    return mapped


cdef int32_t dom_copy_node(DocData* src, int32_t s, DocData* dst, int32_t parent, bint with_tail,
                           int32_t* memo=NULL) noexcept nogil:
    """A copy of the node ``s`` of ``src`` (no children) as the last child of
    ``parent`` in ``dst`` (detached when -1); -1 on memory failure. ``memo``:
    see dom_map_name_memo."""
    cdef Node* sn = &src.nodes[s]
    cdef int32_t tag = dom_map_name_memo(src, sn.tag, dst, memo)
    cdef int32_t i, k, nid, off
    cdef Attr* a
    cdef Node* nd
    if tag < 0:
        return -1
    i = dom_new_node(dst, tag, parent)
    if i < 0:
        return -1
    sn = &src.nodes[s]
    for k in range(sn.attr_start, sn.attr_start + sn.attr_count):
        a = &src.attrs[k]
        nid = dom_map_name_memo(src, a.name, dst, memo)
        if nid < 0:
            return -1
        # a new node and names each once in the source: no lookup (it made a copy quadratic, issue 19)
        if not dom_attr_put(dst, i, -1, nid, a.kind, src.vals.data + a.val_off if a.kind == AV_VALUE else NULL,
                            a.val_len if a.kind == AV_VALUE else 0):
            return -1
    if sn.text_off >= 0:
        if not dom_set_slot(dst, i, False, src.text.data + sn.text_off, sn.text_len, False):
            return -1
    if with_tail and sn.tail_off >= 0:
        if not dom_set_slot(dst, i, True, src.text.data + sn.tail_off, sn.tail_len, False):
            return -1
    return i


cdef int32_t dom_copy_subtree(DocData* src, int32_t top, DocData* dst, bint with_tail) noexcept nogil:
    """A deep copy of ``top``'s subtree (its tail too when ``with_tail``) into
    ``dst`` as a detached subtree; the copies are made in document order, so
    the k-th node of the subtree becomes node ``start + k`` of ``dst``. Returns
    the copy's root, -1 on memory failure (``dst`` then holds unreachable
    garbage nodes, nothing else changes). ``src`` and ``dst`` differ."""
    cdef int32_t* memo = NULL
    cdef int32_t k, root, s
    cdef int saved_error = dst.error
    root = _copy_subtree_flat(src, top, dst, with_tail)
    if root >= 0:
        return root
    if src.nodes[top].parent < 0:
        # a whole tree (trafilatura's deepcopy of the page): room for it at once, instead of
        # the arenas doubling (and moving) as it comes; a failure here is retried as it comes
        if (grow_array(<void**>&dst.nodes, &dst.cap_nodes, dst.n_nodes + src.n_nodes, sizeof(Node), &dst.error)
                and grow_array(<void**>&dst.attrs, &dst.cap_attrs, dst.n_attrs + src.n_attrs, sizeof(Attr), &dst.error)
                and buf_reserve(&dst.text, src.text.len, &dst.error)):
            buf_reserve(&dst.vals, src.vals.len, &dst.error)
        dst.error = saved_error
    if src.n_names > 256:
        # at most one new name per node and attribute of the subtree: a small subtree of a
        # page with a million names must not give ``dst`` room for all of them
        k = 0
        s = top
        while s >= 0 and k < src.n_names:
            k += 1 + src.nodes[s].attr_count
            s = dom_preorder_next(src, s, top)
        if k > src.n_names:
            k = src.n_names
        reserve_names(dst, k, <Py_ssize_t>(<int64_t>src.names.len * k // src.n_names))
    if src.n_names > 0 and not alloc_fails():
        # without it (no memory) every name is looked up each time: slower, the same copy
        memo = <int32_t*>malloc(<size_t>src.n_names * sizeof(int32_t))
        if memo != NULL:
            for k in range(src.n_names):
                memo[k] = -1
    root = _copy_subtree_walk(src, top, dst, with_tail, memo)
    if memo != NULL:
        free(memo)
    return root


cdef inline bint _doc_is_empty(DocData* d) noexcept nogil:
    return (d.n_nodes == 0 and d.n_attrs == 0 and d.n_names == 0 and d.n_roots == 0
            and d.text.len == 0 and d.vals.len == 0 and d.names.len == 0)


cdef bint _clone_arenas(DocData* src, DocData* dst, int32_t n_nodes, int32_t n_attrs) noexcept nogil:
    """Give the empty ``dst`` ``src``'s name table and text/value arenas as they are (so
    name ids and slices carry over unchanged) and room for the nodes and attributes;
    False when an allocation fails (``dst`` is then empty again, its error unchanged).

    The name table and the arenas are shared, not copied (buf_share, share_names): a deep
    copy of a 100 MB page would otherwise copy its text for each of trafilatura's copies of
    the tree; whichever document writes first gets its own. Copied when a share cannot be had."""
    cdef int saved_error = dst.error
    cdef int32_t cap_off = dst.cap_names, cap_len = dst.cap_names
    cdef int32_t* slots = NULL
    cdef bint names_shared = False, text_shared, vals_shared
    if src.n_names:
        names_shared = share_names(src, dst)
        if not names_shared:
            if (not grow_array(<void**>&dst.name_off, &cap_off, src.n_names, sizeof(int32_t), &dst.error)
                    or not grow_array(<void**>&dst.name_len, &cap_len, src.n_names, sizeof(int32_t), &dst.error)):
                dst.cap_names = cap_off if cap_off < cap_len else cap_len
                dst.error = saved_error
                return False
            dst.cap_names = cap_off if cap_off < cap_len else cap_len
            slots = NULL if alloc_fails() else <int32_t*>malloc(<size_t>src.slot_cap * sizeof(int32_t))
            if slots == NULL:
                dst.error = saved_error
                return False
    text_shared = src.text.len > 0 and buf_share(&src.text, &dst.text)
    vals_shared = src.vals.len > 0 and buf_share(&src.vals, &dst.vals)
    if (not (names_shared or buf_reserve(&dst.names, src.names.len, &dst.error))
            or not (text_shared or buf_reserve(&dst.text, src.text.len, &dst.error))
            or not (vals_shared or buf_reserve(&dst.vals, src.vals.len, &dst.error))
            or not grow_array(<void**>&dst.nodes, &dst.cap_nodes, n_nodes, sizeof(Node), &dst.error)
            or not grow_array(<void**>&dst.attrs, &dst.cap_attrs, n_attrs if n_attrs > 0 else 1, sizeof(Attr),
                              &dst.error)):
        if slots != NULL:
            free(slots)
        if names_shared:
            _release_shared_names(dst)
            buf_free(&dst.names)
        if text_shared:
            buf_free(&dst.text)
        if vals_shared:
            buf_free(&dst.vals)
        dst.error = saved_error
        return False
    # nothing below can fail
    if src.n_names and not names_shared:
        memcpy(dst.name_off, src.name_off, <size_t>src.n_names * sizeof(int32_t))
        memcpy(dst.name_len, src.name_len, <size_t>src.n_names * sizeof(int32_t))
        memcpy(slots, src.slots, <size_t>src.slot_cap * sizeof(int32_t))
        if dst.slots != NULL:
            free(dst.slots)
        dst.slots = slots
        dst.slot_cap = src.slot_cap
        dst.n_names = src.n_names
    if not names_shared:
        if src.names.len:
            memcpy(dst.names.data, src.names.data, <size_t>src.names.len)
        dst.names.len = src.names.len
    if not text_shared:
        if src.text.len:
            memcpy(dst.text.data, src.text.data, <size_t>src.text.len)
        dst.text.len = src.text.len
    if not vals_shared:
        if src.vals.len:
            memcpy(dst.vals.data, src.vals.data, <size_t>src.vals.len)
        dst.vals.len = src.vals.len
    return True


cdef int32_t _copy_subtree_flat(DocData* src, int32_t top, DocData* dst, bint with_tail) noexcept nogil:
    """dom_copy_subtree's fast path, for a copy of most of ``src`` into an empty document
    (trafilatura's deepcopy of the page): the name table and the arenas are copied whole,
    so ids and (offset, length) slices stay as they are, and only the nodes are rewritten,
    in document order. -1 when it does not apply or cannot get its memory (``dst`` is then
    still empty: the caller copies node by node)."""
    cdef int32_t n_nodes = 0, n_attrs = 0, s, j, p, prev
    cdef Node* sn
    cdef Node* nd
    if not _doc_is_empty(dst):
        return -1
    s = top
    while s >= 0:
        n_nodes += 1
        n_attrs += src.nodes[s].attr_count
        s = dom_preorder_next(src, s, top)
    # a small subtree of a big document would drag the whole arenas along
    if <int64_t>n_nodes * 2 < <int64_t>src.n_nodes:
        return -1
    if not _clone_arenas(src, dst, n_nodes, n_attrs):
        return -1
    s = top
    j = 0
    p = -1
    while True:
        sn = &src.nodes[s]
        nd = &dst.nodes[j]
        nd.tag = sn.tag
        nd.parent = p
        nd.first = -1
        nd.last = -1
        nd.next = -1
        nd.text_off = sn.text_off
        nd.text_len = sn.text_len
        if s != top or with_tail:
            nd.tail_off = sn.tail_off
            nd.tail_len = sn.tail_len
        else:
            nd.tail_off = -1
            nd.tail_len = 0
        nd.attr_start = dst.n_attrs
        nd.attr_count = sn.attr_count
        if sn.attr_count:
            memcpy(&dst.attrs[dst.n_attrs], &src.attrs[sn.attr_start], <size_t>sn.attr_count * sizeof(Attr))
            dst.n_attrs += sn.attr_count
        if p >= 0:
            prev = dst.nodes[p].last
            nd.prev = prev
            if prev >= 0:
                dst.nodes[prev].next = j
            else:
                dst.nodes[p].first = j
            dst.nodes[p].last = j
        else:
            nd.prev = -1
        dst.n_nodes = j + 1
        # the next source node in document order, and the parent of its copy
        if sn.first >= 0:
            p = j
            s = sn.first
        else:
            while s != top and src.nodes[s].next < 0:
                s = src.nodes[s].parent
                p = dst.nodes[p].parent
            if s == top:
                break
            s = src.nodes[s].next
        j += 1
    # as the node-by-node copy (its links go through dom_link_before)
    dst.reordered = 1
    return 0


cdef int32_t _copy_subtree_walk(DocData* src, int32_t top, DocData* dst, bint with_tail, int32_t* memo) noexcept nogil:
    cdef int32_t root = dom_copy_node(src, top, dst, -1, with_tail, memo)
    cdef int32_t s = top, cur = root
    if root < 0:
        return -1
    while True:
        if src.nodes[s].first >= 0:
            s = src.nodes[s].first
            cur = dom_copy_node(src, s, dst, cur, True, memo)
            if cur < 0:
                return -1
            continue
        while True:
            if s == top:
                return root
            if src.nodes[s].next >= 0:
                s = src.nodes[s].next
                cur = dom_copy_node(src, s, dst, dst.nodes[cur].parent, True, memo)
                if cur < 0:
                    return -1
                break
            s = src.nodes[s].parent
            cur = dst.nodes[cur].parent


# -- tag sets ---------------------------------------------------------------------------

cdef struct TagSet:
    bint all          # every element
    int32_t n
    int32_t* ids      # name ids (names the document did not know are left out)
    uint64_t low[2]   # the ids below 128 as bits (every known name): one test per node


cdef inline void tagset_init(TagSet* t, bint all, int32_t* ids, int32_t n) noexcept nogil:
    """Fill ``t`` (every field: a TagSet on the stack starts as garbage)."""
    cdef int32_t k
    t.all = all
    t.n = n
    t.ids = ids
    t.low[0] = 0
    t.low[1] = 0
    for k in range(n):
        if 0 <= ids[k] < 128:
            t.low[ids[k] >> 6] |= (<uint64_t>1) << (ids[k] & 63)


cdef inline bint tag_matches(TagSet* t, int32_t tag) noexcept nogil:
    cdef int32_t k
    if t.all:
        return True
    if 0 <= tag < 128:
        return (t.low[tag >> 6] >> (tag & 63)) & 1
    for k in range(t.n):
        if t.ids[k] == tag:
            return True
    return False


# -- strip_tags / strip_elements / drop_tree / drop_tag -------------------------------

cdef bint dom_strip_tags(DocData* d, int32_t top, TagSet* names) noexcept nogil:
    """trafila.dom.strip_tags below ``top`` (``top`` itself is never stripped)."""
    cdef int32_t node = top, c, prev, nxt, g, first, last
    cdef Node* cn
    while node >= 0:
        c = d.nodes[node].first
        while c >= 0:
            if not tag_matches(names, d.nodes[c].tag):
                c = d.nodes[c].next
                continue
            cn = &d.nodes[c]
            prev = cn.prev
            first = cn.first
            last = cn.last
            nxt = cn.next
            if cn.text_off >= 0:
                if prev < 0:
                    if not dom_concat_slot(d, node, False, cn.text_off, cn.text_len):
                        return False
                elif not dom_concat_slot(d, prev, True, cn.text_off, cn.text_len):
                    return False
            cn = &d.nodes[c]
            if cn.tail_off >= 0:
                if last >= 0:
                    if not dom_concat_slot(d, last, True, cn.tail_off, cn.tail_len):
                        return False
                elif prev < 0:
                    if not dom_concat_slot(d, node, False, cn.tail_off, cn.tail_len):
                        return False
                elif not dom_concat_slot(d, prev, True, cn.tail_off, cn.tail_len):
                    return False
            # splice the children in place of c
            if first >= 0:
                g = first
                while g >= 0:
                    d.nodes[g].parent = node
                    g = d.nodes[g].next
                d.nodes[first].prev = prev
                d.nodes[last].next = nxt
                if prev >= 0:
                    d.nodes[prev].next = first
                else:
                    d.nodes[node].first = first
                if nxt >= 0:
                    d.nodes[nxt].prev = last
                else:
                    d.nodes[node].last = last
            else:
                if prev >= 0:
                    d.nodes[prev].next = nxt
                else:
                    d.nodes[node].first = nxt
                if nxt >= 0:
                    d.nodes[nxt].prev = prev
                else:
                    d.nodes[node].last = prev
            cn = &d.nodes[c]
            cn.first = -1
            cn.last = -1
            cn.parent = -1
            cn.prev = -1
            cn.next = -1
            cn.text_off = -1
            cn.text_len = 0
            cn.tail_off = -1
            cn.tail_len = 0
            d.reordered = 1
            # the spliced children are examined again
            c = first if first >= 0 else nxt
        node = dom_traverse_next(d, node, top)
    return True


cdef bint dom_strip_elements(DocData* d, int32_t top, TagSet* names, bint with_tail) noexcept nogil:
    """trafila.dom.strip_elements below ``top``: matching children leave with
    their content (and their tails unless not ``with_tail``: then the tail is
    joined to the previous kept sibling's tail or the parent's text)."""
    cdef int32_t node = top, c, nxt, kept
    cdef Node* cn
    while node >= 0:
        c = d.nodes[node].first
        kept = -1
        while c >= 0:
            nxt = d.nodes[c].next
            if tag_matches(names, d.nodes[c].tag):
                cn = &d.nodes[c]
                if not with_tail and cn.tail_off >= 0:
                    if kept >= 0:
                        if not dom_concat_slot(d, kept, True, cn.tail_off, cn.tail_len):
                            return False
                    elif not dom_concat_slot(d, node, False, cn.tail_off, cn.tail_len):
                        return False
                    cn = &d.nodes[c]
                    cn.tail_off = -1
                    cn.tail_len = 0
                unlink_node(d, c)
            else:
                kept = c
            c = nxt
        node = dom_traverse_next(d, node, top)
    return True


cdef bint dom_drop_tree(DocData* d, int32_t i) noexcept nogil:
    """lxml.html drop_tree on an attached node: the tail goes to the previous
    sibling's tail or the parent's text, then the node is unlinked."""
    cdef Node* nd = &d.nodes[i]
    if nd.tail_off >= 0 and nd.tail_len > 0:
        if nd.prev < 0:
            if not dom_concat_slot(d, nd.parent, False, nd.tail_off, nd.tail_len):
                return False
        elif not dom_concat_slot(d, nd.prev, True, nd.tail_off, nd.tail_len):
            return False
    unlink_node(d, i)
    return True


cdef bint dom_drop_tag(DocData* d, int32_t i) noexcept nogil:
    """lxml.html drop_tag on an attached node: its text and tail stay in
    place, its children take its place; the node itself leaves (keeping its
    own text and tail, as the reference's slice assignment leaves them)."""
    cdef Node* nd = &d.nodes[i]
    cdef int32_t parent = nd.parent, prev = nd.prev, anchor, c, nxt
    if nd.text_off >= 0 and nd.text_len > 0:
        if prev < 0:
            if not dom_concat_slot(d, parent, False, nd.text_off, nd.text_len):
                return False
        elif not dom_concat_slot(d, prev, True, nd.text_off, nd.text_len):
            return False
    nd = &d.nodes[i]
    if nd.tail_off >= 0 and nd.tail_len > 0:
        if nd.last >= 0:
            if not dom_concat_slot(d, nd.last, True, nd.tail_off, nd.tail_len):
                return False
        elif prev < 0:
            if not dom_concat_slot(d, parent, False, nd.tail_off, nd.tail_len):
                return False
        elif not dom_concat_slot(d, prev, True, nd.tail_off, nd.tail_len):
            return False
    anchor = d.nodes[i].next
    unlink_node(d, i)
    c = d.nodes[i].first
    while c >= 0:
        nxt = d.nodes[c].next
        unlink_node(d, c)
        dom_link_before(d, parent, c, anchor)
        c = nxt
    return True


cdef void dom_clear_children(DocData* d, int32_t i) noexcept nogil:
    """Detach every child of ``i`` (each keeps its tail)."""
    cdef int32_t c = d.nodes[i].first, nxt
    while c >= 0:
        nxt = d.nodes[c].next
        unlink_node(d, c)
        c = nxt
