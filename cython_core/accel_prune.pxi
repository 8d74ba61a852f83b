# The pruning stage's link-density passes (htmlprocessing.delete_by_link_density,
# link_density_test, link_density_test_tables of 2.3.1 and of 1.11.0) as C
# walks over the node arrays: no proxy per tested element, only the
# deletions (trafilatura's delete_element, through _delete_one) at the end.
# Each gives exactly what the reference functions give on the same tree;
# tests/test_core_accel_prune.py compares both on corpus pages and generated
# trees.
#
# Lengths are ``len(trim(text_content(el)))`` (_text_length_of, the counter
# behind ``text_length``). The ratios compare an int with a float product as
# Python does: both operands are below 2**53, so the C doubles are exact and
# the products and quotients are the same IEEE operations.


from libc.stdlib cimport calloc


cdef struct LinkInfo:
    Py_ssize_t nrefs        # ref descendants (nested ones each counted)
    Py_ssize_t first_len    # length of the first one in document order
    Py_ssize_t linklen      # sum of the lengths
    Py_ssize_t elemnum      # refs of non-zero length
    Py_ssize_t shortelems   # refs of non-zero length below the short threshold
    bint graphic            # a graphic descendant


cdef struct PruneIds:
    int32_t ref
    int32_t graphic
    int32_t p
    int32_t item
    int32_t td
    int32_t th


cdef inline int32_t _after(DocData* d, int32_t i, int32_t top) noexcept nogil:
    """The pre-order successor of ``i`` below ``top`` (-1 past the end)."""
    if d.nodes[i].first >= 0:
        return d.nodes[i].first
    while i != top and d.nodes[i].next < 0:
        i = d.nodes[i].parent
    if i == top:
        return -1
    return d.nodes[i].next


cdef inline int32_t _first_below(DocData* d, int32_t top) noexcept nogil:
    return d.nodes[top].first



# -- trim lengths shared between the nested elements of one pass ----------------------------------
#
# A pass tests every element of a tag, nested ones included (divs in divs), and each test
# measures len(trim(text_content(el))): measured one by one, a text is read once per enclosing
# match. Within one pass the tree does not change (the deletions come after the walk), so the
# measure of each element is kept and an enclosing element's is folded from its children's.
# trim's length is a function of (non-whitespace code points, words): a concatenation adds
# both, less one word where a word runs across the seam, so each text carries whether it
# starts and ends inside a word.

cdef struct TLen:
    Py_ssize_t nonws
    Py_ssize_t words
    bint empty          # no character at all
    bint first_word     # its first character is not whitespace
    bint last_word      # nor its last


cdef struct TLMemo:
    TLen* lens          # by node index, meaningful where done[i]
    uchar* done


cdef inline void _tl_slot(DocData* d, int32_t off, int32_t n, TLen* out) noexcept nogil:
    cdef TextStats t
    cdef const uchar* s
    cdef uchar k
    if off < 0 or n <= 0:
        out.nonws = 0
        out.words = 0
        out.empty = True
        out.first_word = False
        out.last_word = False
        return
    s = d.text.data + off
    memset(&t, 0, sizeof(TextStats))
    _stats_feed(&t, s, n)
    k = _BYTE_CLASS[s[0]]
    out.nonws = t.nonws
    out.words = t.words
    out.empty = False
    out.first_word = not (k == BC_SPACE or (k == BC_HIGH and _ws_len(s, 0, n) > 0))
    out.last_word = t.in_word


cdef inline void _tl_cat(TLen* a, const TLen* b) noexcept nogil:
    """``a`` becomes the measure of a's text followed by b's."""
    if b.empty:
        return
    if a.empty:
        a[0] = b[0]
        return
    a.nonws += b.nonws
    a.words += b.words - (1 if (a.last_word and b.first_word) else 0)
    a.last_word = b.last_word


cdef Py_ssize_t _tlen_memo(DocData* d, int32_t top, TLMemo* m) noexcept nogil:
    """``_text_length_of(d, top)``, keeping the measure of every element it
    passes (the walk skips the subtrees already measured)."""
    cdef int32_t i, p
    cdef TLen tail
    cdef TLen* a
    if not m.done[top]:
        _tl_slot(d, d.nodes[top].text_off, d.nodes[top].text_len, &m.lens[top])
        i = d.nodes[top].first
        while i >= 0:
            if not m.done[i]:
                # enter i: its own text first, then its children
                _tl_slot(d, d.nodes[i].text_off, d.nodes[i].text_len, &m.lens[i])
                if d.nodes[i].first >= 0:
                    i = d.nodes[i].first
                    continue
                m.done[i] = 1
            # i is measured: fold it and its tail into its parent, then on to the next
            # sibling, or, after the last one, the parent is measured too
            while True:
                p = d.nodes[i].parent
                a = &m.lens[p]
                _tl_cat(a, &m.lens[i])
                _tl_slot(d, d.nodes[i].tail_off, d.nodes[i].tail_len, &tail)
                _tl_cat(a, &tail)
                if d.nodes[i].next >= 0:
                    i = d.nodes[i].next
                    break
                m.done[p] = 1
                if p == top:
                    i = -1
                    break
                i = p
        m.done[top] = 1
    a = &m.lens[top]
    return a.nonws + a.words - 1 if a.words > 0 else 0


cdef inline Py_ssize_t _tlen(DocData* d, int32_t i, TLMemo* m) noexcept nogil:
    return _text_length_of(d, i) if m == NULL else _tlen_memo(d, i, m)


cdef int _tl_memo_init(DocData* d, TLMemo* m) noexcept nogil:
    m.lens = NULL
    m.done = NULL
    if alloc_fails():
        return ERR_MEMORY
    m.done = <uchar*>calloc(<size_t>d.n_nodes if d.n_nodes > 0 else 1, 1)
    m.lens = <TLen*>malloc((<size_t>d.n_nodes if d.n_nodes > 0 else 1) * sizeof(TLen))
    if m.done == NULL or m.lens == NULL:
        free(m.done)
        free(m.lens)
        m.done = NULL
        m.lens = NULL
        return ERR_MEMORY
    return 0


cdef inline void _tl_memo_free(TLMemo* m) noexcept nogil:
    free(m.done)
    free(m.lens)


cdef void _link_info(DocData* d, int32_t top, const PruneIds* ids, Py_ssize_t short_thr, LinkInfo* li,
                     TLMemo* m=NULL) noexcept nogil:
    """What the tests read of the ref descendants of ``top`` (collect_link_info)."""
    cdef int32_t i = _first_below(d, top)
    cdef Py_ssize_t n
    memset(li, 0, sizeof(LinkInfo))
    while i >= 0:
        if d.nodes[i].tag == ids.ref:
            n = _tlen(d, i, m)
            if li.nrefs == 0:
                li.first_len = n
            li.nrefs += 1
            if n:
                li.linklen += n
                li.elemnum += 1
                if n < short_thr:
                    li.shortelems += 1
        elif d.nodes[i].tag == ids.graphic:
            li.graphic = True
        i = _after(d, i, top)


cdef Py_ssize_t _count_refs(DocData* d, int32_t top, int32_t ref_id, Py_ssize_t stop) noexcept nogil:
    """The ref descendants of ``top``, counted up to ``stop``."""
    cdef int32_t i = _first_below(d, top)
    cdef Py_ssize_t n = 0
    while i >= 0:
        if d.nodes[i].tag == ref_id:
            n += 1
            if n >= stop:
                return n
        i = _after(d, i, top)
    return n


cdef bint _paragraph_listing(DocData* d, int32_t top, const PruneIds* ids) noexcept nogil:
    """is_paragraph_listing of the refs below ``top``: each one's parent a p
    holding no other ref."""
    cdef int32_t i = _first_below(d, top), parent
    while i >= 0:
        if d.nodes[i].tag == ids.ref:
            parent = d.nodes[i].parent
            if parent < 0 or d.nodes[parent].tag != ids.p or _count_refs(d, parent, ids.ref, 2) > 1:
                return False
        i = _after(d, i, top)
    return True


cdef inline Py_ssize_t _child_count(DocData* d, int32_t i) noexcept nogil:
    cdef Py_ssize_t n = 0
    cdef int32_t c = d.nodes[i].first
    while c >= 0:
        n += 1
        c = d.nodes[c].next
    return n


cdef bint _ldt_2_3_1(DocData* d, int32_t el, const PruneIds* ids, bint favor_precision, double farm_ratio,
                     bint* short_with_links, TLMemo* m=NULL) noexcept nogil:
    """2.3.1's link_density_test: the verdict, ``short_with_links`` set."""
    cdef LinkInfo li
    cdef Py_ssize_t elemlen, limitlen, len_threshold
    short_with_links[0] = False
    _link_info(d, el, ids, 10, &li, m)
    if li.nrefs == 0 or li.graphic:
        return False
    elemlen = _tlen(d, el, m)
    if li.nrefs == 1:
        len_threshold = 10 if favor_precision else 100
        if li.first_len > len_threshold and <double>li.first_len > <double>elemlen * 0.9:
            return True
    if d.nodes[el].tag == ids.p:
        limitlen = 60 if d.nodes[el].next < 0 else 30
    elif d.nodes[el].next < 0:
        limitlen = 300
    else:
        limitlen = 100
    if elemlen < limitlen:
        if li.elemnum == 0:
            return True
        short_with_links[0] = True
        return (<double>li.linklen > <double>elemlen * 0.8
                or (li.elemnum > 1 and <double>li.shortelems / <double>li.elemnum > 0.8))
    if li.nrefs > 4:
        if (<double>li.linklen > <double>elemlen * farm_ratio and li.linklen < 100 * li.elemnum
                and not _paragraph_listing(d, el, ids)):
            return True
    return False


cdef bint _ldt_1_11_0(DocData* d, int32_t el, Py_ssize_t elemlen, const PruneIds* ids, bint favor_precision,
                      bint* with_list, TLMemo* m=NULL) noexcept nogil:
    """1.11.0's _link_density_test on ``elemlen``: the verdict, ``with_list``
    set when the list of non-empty link texts it hands back is not empty."""
    cdef LinkInfo li
    cdef Py_ssize_t limitlen
    with_list[0] = False
    _link_info(d, el, ids, 50 if favor_precision else 10, &li, m)
    if li.nrefs == 0:
        return False
    if d.nodes[el].tag == ids.p:
        if not favor_precision:
            limitlen = 60 if d.nodes[el].next < 0 else 30
        else:
            limitlen = 200
    else:
        limitlen = 300 if d.nodes[el].next < 0 else 100
    if elemlen < limitlen:
        with_list[0] = li.elemnum > 0
        if li.elemnum == 0:
            return True
        if (<double>li.linklen > 0.8 * <double>elemlen
                or (li.elemnum > 1 and <double>li.shortelems / <double>li.elemnum > 0.8)):
            return True
    return False


cdef bint _table_test(DocData* d, int32_t el, const PruneIds* ids, bint v1_11_0) noexcept nogil:
    cdef LinkInfo li
    cdef Py_ssize_t elemlen
    _link_info(d, el, ids, 10, &li)
    if li.nrefs == 0:
        return False
    elemlen = _text_length_of(d, el)
    if v1_11_0:
        if elemlen <= 250:
            return False
        if li.elemnum == 0:
            return True
    elif elemlen < 200:
        return False
    if elemlen < 1000:
        return <double>li.linklen > 0.8 * <double>elemlen
    return <double>li.linklen > 0.5 * <double>elemlen


cdef void _prune_ids(CDocument doc, PruneIds* ids):
    ids.ref = _lookup(doc, "ref")
    ids.graphic = _lookup(doc, "graphic")
    ids.p = _lookup(doc, "p")
    ids.item = _lookup(doc, "item")
    ids.td = _lookup(doc, "td")
    ids.th = _lookup(doc, "th")


cdef struct IdxVec:
    int32_t* items
    int32_t n
    int32_t cap


cdef inline bint _vec_push(IdxVec* v, int32_t i, int* err) noexcept nogil:
    if v.n >= v.cap and not grow_array(<void**>&v.items, &v.cap, v.n + 1, sizeof(int32_t), err):
        return False
    v.items[v.n] = i
    v.n += 1
    return True


cdef int _flagged_2_3_1(DocData* d, int32_t top, int32_t tag, bint tag_is_p, bint backtracking,
                        bint favor_precision, double farm_ratio, const PruneIds* ids, IdxVec* out) noexcept nogil:
    """The elements 2.3.1's delete_by_link_density deletes, in its order
    (``top`` included; each once: the walk is a snapshot). 0, or an ERR_*."""
    cdef Py_ssize_t len_threshold = 200 if favor_precision else 100
    cdef Py_ssize_t depth_threshold = 1 if favor_precision else 3
    cdef int32_t i = top, parent, ptag
    cdef bint result, swl
    cdef int err = 0
    cdef TLMemo memo
    err = _tl_memo_init(d, &memo)
    if err:
        return err
    while i >= 0:
        if d.nodes[i].tag == tag:
            result = _ldt_2_3_1(d, i, ids, favor_precision, farm_ratio, &swl, &memo)
            if result or (backtracking and swl and _child_count(d, i) >= depth_threshold
                          and _tlen_memo(d, i, &memo) < len_threshold):
                parent = d.nodes[i].parent
                if tag_is_p and parent >= 0:
                    ptag = d.nodes[parent].tag
                    if ptag == ids.item or ptag == ids.td or ptag == ids.th:
                        i = _after(d, i, top)
                        continue
                if not _vec_push(out, i, &err):
                    break
        i = _after(d, i, top)
    _tl_memo_free(&memo)
    return err


cdef int _flagged_1_11_0(DocData* d, int32_t top, int32_t tag, bint backtracking, bint favor_precision,
                         const PruneIds* ids, IdxVec* out) noexcept nogil:
    """The elements 1.11.0's delete_by_link_density deletes, first occurrence
    order (the flagged elements and, when backtracking, the children of the
    short link-bearing ones). 0, or an ERR_*."""
    cdef Py_ssize_t threshold = 200 if favor_precision else 100
    cdef Py_ssize_t elemlen
    cdef int32_t i = top, c
    cdef bint with_list
    cdef int err = 0
    cdef uchar* seen = NULL
    cdef TLMemo memo
    if alloc_fails():
        return ERR_MEMORY
    seen = <uchar*>calloc(<size_t>d.n_nodes if d.n_nodes > 0 else 1, 1)
    if seen == NULL:
        return ERR_MEMORY
    if _tl_memo_init(d, &memo):
        free(seen)
        return ERR_MEMORY
    while i >= 0:
        if d.nodes[i].tag == tag:
            elemlen = _tlen_memo(d, i, &memo)
            if _ldt_1_11_0(d, i, elemlen, ids, favor_precision, &with_list, &memo):
                if not seen[i]:
                    seen[i] = 1
                    if not _vec_push(out, i, &err):
                        break
            elif backtracking and with_list and 0 < elemlen < threshold and _child_count(d, i) >= 3:
                c = d.nodes[i].first
                while c >= 0:
                    if not seen[c]:
                        seen[c] = 1
                        if not _vec_push(out, c, &err):
                            break
                    c = d.nodes[c].next
                if err:
                    break
        i = _after(d, i, top)
    free(seen)
    _tl_memo_free(&memo)
    return err


# upstream: trafilatura.htmlprocessing.delete_by_link_density
def delete_by_link_density(CElement subtree not None, str tagname, bint backtracking, bint favor_precision,
                           double farm_ratio, bint v1_11_0, python_delete):
    """``delete_by_link_density(subtree, tagname, backtracking, favor_precision)``
    of 2.3.1 (``farm_ratio``: its LINK_FARM_RATIO) or of 1.11.0 (``v1_11_0``):
    the tests in C over ``subtree`` and the elements of that tag below it,
    then trafilatura's delete_element (tail kept) on the flagged ones in the
    reference's order; ``python_delete(el, True)`` where a joined string must
    go through the Python setters."""
    cdef CDocument doc = subtree.doc
    cdef DocData* d = &doc.d
    cdef PruneIds ids
    cdef IdxVec out
    cdef int32_t top = subtree.idx, tag, k
    cdef bint tag_is_p = tagname == "p"
    cdef int err
    doc._check(top)
    tag = _lookup(doc, tagname)
    _prune_ids(doc, &ids)
    if tag < 0 or ids.ref < 0:
        return subtree  # no element of that tag, or no link: nothing flagged
    memset(&out, 0, sizeof(IdxVec))
    try:
        with nogil:
            if v1_11_0:
                err = _flagged_1_11_0(d, top, tag, backtracking, favor_precision, &ids, &out)
            else:
                err = _flagged_2_3_1(d, top, tag, tag_is_p, backtracking, favor_precision, farm_ratio, &ids, &out)
        if err:
            d.error = err
            _raise_doc_error(doc)
        for k in range(out.n):
            _delete_one(doc, out.items[k], True, python_delete)
    finally:
        free(out.items)
    return subtree


# upstream: trafilatura.htmlprocessing.link_density_test
def link_density_verdict(CElement el not None, bint favor_precision, double farm_ratio, bint v1_11_0, Py_ssize_t elemlen=-1):
    """2.3.1's ``link_density_test(el, favor_precision)``: (delete,
    short_with_links); 1.11.0's ``_link_density_test(el, elemlen,
    favor_precision)``: (delete, whether its list of link texts is non-empty)."""
    cdef PruneIds ids
    cdef bint flag, result
    el.doc._check(el.idx)
    _prune_ids(el.doc, &ids)
    if ids.ref < 0:
        return False, False
    if v1_11_0:
        if elemlen < 0:
            raise ValueError("elemlen")
        result = _ldt_1_11_0(&el.doc.d, el.idx, elemlen, &ids, favor_precision, &flag)
    else:
        result = _ldt_2_3_1(&el.doc.d, el.idx, &ids, favor_precision, farm_ratio, &flag)
    return result, flag


# upstream: trafilatura.htmlprocessing.link_density_test_tables
def link_density_table(CElement el not None, bint v1_11_0):
    """``link_density_test_tables(el)`` of 2.3.1, or of 1.11.0 (``v1_11_0``)."""
    cdef PruneIds ids
    el.doc._check(el.idx)
    _prune_ids(el.doc, &ids)
    if ids.ref < 0:
        return False
    return _table_test(&el.doc.d, el.idx, &ids, v1_11_0)


# -- prune_html: the empty elements of some tags -------------------------------------------------

# upstream: trafilatura.htmlprocessing.prune_html
def delete_empty(tops, names, bint include_self, bint keep_tail, python_delete):
    """prune_html's ``[e for e in <the elements of those tags below each top
    (and each top itself when include_self)> if e.text is None and len(e) == 0]``,
    collected over all the tops first, then trafilatura's delete_element on
    each (``keep_tail``; ``python_delete(el, keep_tail)`` where a joined
    string must go through the Python setters). False (nothing done) when
    the names cannot be resolved in C (the caller then runs the Python path)."""
    cdef CElement top
    cdef CDocument doc = None
    cdef DocData* d
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n, err = 0
    cdef int32_t root, i, k
    cdef IdxVec out
    tops = list(tops)
    for t in tops:
        if type(t) is not CElement or (doc is not None and (<CElement>t).doc is not doc):
            return False
        doc = (<CElement>t).doc
        doc._check((<CElement>t).idx)
    if doc is None:
        return True
    d = &doc.d
    if not isinstance(names, (set, frozenset, tuple, list)):
        names = tuple(names)
    n = _name_ids(doc, names, ids)
    if n < 0:
        return False
    if n == 0:
        return True
    memset(&out, 0, sizeof(IdxVec))
    try:
        for t in tops:
            root = (<CElement>t).idx
            with nogil:
                i = root if include_self else _first_below(d, root)
                while i >= 0:
                    if _id_in(d.nodes[i].tag, ids, n) and d.nodes[i].text_off < 0 and d.nodes[i].first < 0:
                        if not _vec_push(&out, i, &err):
                            break
                    i = _after(d, i, root)
            if err:
                d.error = err
                _raise_doc_error(doc)
        for k in range(out.n):
            _delete_one(doc, out.items[k], keep_tail, python_delete)
    finally:
        free(out.items)
    return True
