# The pruning stages of 2.3.1 (and the raw tree's prune_html) without the GIL, over NgCtx (nogil_frame.pxi) and the selections of nogil_select.pxi.
#
#   NgSelectors            every selector the fast path and its recall retry run, resolved once
#                          per page with the GIL (ng_selectors_resolve): the prune lists of
#                          xpaths.py, BODY_XPATH (first_body_match), COMMENTS_XPATH (found[0]),
#                          basic_clean;
#   ng_prune_unwanted_nodes        htmlprocessing.prune_unwanted_nodes (with or without backup);
#   ng_delete_by_link_density      htmlprocessing.delete_by_link_density (2.3.1: link_density_test
#                                  and the backtracking rule, accel_prune.pxi's nogil walk);
#   ng_link_density_test(_tables)  htmlprocessing.link_density_test(_tables);
#   ng_prune_unwanted_sections     main_extractor.prune_unwanted_sections, the final strip of span
#                                  (and ref) included.
#
# Names stay valid for the whole page: before the selectors are resolved, every name one of
# them tests (tags, the Matchers' attribute names and tag restrictions, the Prefilters' attribute
# names and pass tags, the guard's tag) is interned in the document, so an element a later stage
# renames or creates with one of those names carries the id the selection compares with (a
# name looked up before it existed would have resolved to "never").
#
# NS_NEED_PYTHON: a selector verdict -1 (a non-ASCII value under a pattern with character
# semantics, the regex budget), a selector with no exact spec, a deletion whose joined tail must
# go through lxml's check (ng_delete). The working document may be left half-pruned then.

from cpython.ref cimport Py_INCREF, Py_XDECREF


cdef enum:
    # the resolved selectors, each prune list a contiguous run (in its xpaths.py order)
    NGS_RAW_TREE_PRUNE_0 = 0
    NGS_RAW_TREE_PRUNE_1
    NGS_OVERALL_DISCARD_0
    NGS_OVERALL_DISCARD_1
    NGS_DISCARD_IMAGE
    NGS_TEASER_DISCARD
    NGS_PRECISION_DISCARD_0
    NGS_PRECISION_DISCARD_1
    NGS_COMMENTS_DISCARD_0
    NGS_COMMENTS_DISCARD_1
    NGS_COMMENTS_DISCARD_2
    NGS_REMOVE_COMMENTS
    NGS_REMOVE_COMMENTS_AND_LISTS
    NGS_BASIC_CLEAN
    NGS_BODY_0                  # BODY_XPATH[k] as first_body_match runs it: the first match
    NGS_BODY_1
    NGS_BODY_2
    NGS_BODY_3
    NGS_BODY_4                  # body_xpath_4's first article/div/section starting with 'main' ...
    NGS_BODY_4_MAIN             # ... and its first <main> (ns_select_first_each over both)
    NGS_COMMENTS_0              # COMMENTS_XPATH[k]: found[0], the first match
    NGS_COMMENTS_1
    NGS_COMMENTS_2
    NGS_COMMENTS_3
    NGS_PAYWALL                 # 1.11.0's PAYWALL_DISCARD_XPATH (2.3.1 has none: never available there)
    NGS_N

cdef enum:
    # the selector lists of ng_prune_unwanted_nodes
    NGL_RAW_TREE_PRUNE = 0
    NGL_OVERALL_DISCARD
    NGL_DISCARD_IMAGE
    NGL_TEASER_DISCARD
    NGL_PRECISION_DISCARD
    NGL_COMMENTS_DISCARD
    NGL_REMOVE_COMMENTS
    NGL_REMOVE_COMMENTS_AND_LISTS
    NGL_BASIC_CLEAN
    NGL_PAYWALL                 # 1.11.0 only
    NGL_N

# per list: its first selector and how many (in NGS_* order)
cdef int NGL_START[NGL_N]
cdef int NGL_COUNT[NGL_N]
NGL_START[:] = [NGS_RAW_TREE_PRUNE_0, NGS_OVERALL_DISCARD_0, NGS_DISCARD_IMAGE, NGS_TEASER_DISCARD,
                NGS_PRECISION_DISCARD_0, NGS_COMMENTS_DISCARD_0, NGS_REMOVE_COMMENTS,
                NGS_REMOVE_COMMENTS_AND_LISTS, NGS_BASIC_CLEAN, NGS_PAYWALL]
NGL_COUNT[:] = [2, 2, 1, 1, 2, 3, 1, 1, 1, 1]

# the list names of the test wrappers, in NGL_* order
_NGL_NAMES = ("raw_tree_prune", "overall_discard", "discard_image_elements", "teaser_discard",
              "precision_discard", "comments_discard", "remove_comments", "remove_comments_and_lists",
              "basic_clean", "paywall_discard")


cdef struct NgSelectors:
    NSel sel[NGS_N]
    uchar avail[NGS_N]          # 0: no exact C selection (the stage needing it answers NEED_PYTHON)
    double link_farm_ratio      # utils.LINK_FARM_RATIO
    int release                 # NG_REL_231 / NG_REL_111: the xpaths.py they were resolved from
    PyObject* keep              # a tuple owning the Matchers and Prefilters the NSels point into


cdef object _ngp_selector_order(int release=NG_REL_231):
    """The selectors of the release's xpaths.py by NGS_* slot (None: the release has none there;
    2.3.1's body_xpath_4 fills two slots, NGS_BODY_4_MAIN stays None)."""
    if release == NG_REL_111:
        from trafila.v1_11_0 import xpaths as X
        lists = (None, X.OVERALL_DISCARD_XPATH, X.DISCARD_IMAGE_ELEMENTS, X.TEASER_DISCARD_XPATH,
                 X.PRECISION_DISCARD_XPATH, X.COMMENTS_DISCARD_XPATH, X.REMOVE_COMMENTS_XPATH, None, None,
                 X.PAYWALL_DISCARD_XPATH)
    else:
        from trafila.v2_3_1 import xpaths as X
        lists = (X.RAW_TREE_PRUNE_XPATH, X.OVERALL_DISCARD_XPATH, X.DISCARD_IMAGE_ELEMENTS, X.TEASER_DISCARD_XPATH,
                 X.PRECISION_DISCARD_XPATH, X.COMMENTS_DISCARD_XPATH, X.REMOVE_COMMENTS_XPATH,
                 X.REMOVE_COMMENTS_AND_LISTS_XPATH, [X.basic_clean_xpath], None)
    order = [None] * NGS_N
    for k in range(NGL_N):
        if lists[k] is None:
            continue
        if len(lists[k]) != NGL_COUNT[k]:
            raise ValueError(f"xpaths.py's selector list {_NGL_NAMES[k]} is not the one nogil_prune.pxi was written for")
        order[NGL_START[k]:NGL_START[k] + NGL_COUNT[k]] = lists[k]
    if len(X.BODY_XPATH) != 5 or len(X.COMMENTS_XPATH) != 4:
        raise ValueError("xpaths.py's BODY_XPATH / COMMENTS_XPATH are not the ones nogil_prune.pxi was written for")
    order[NGS_BODY_0:NGS_BODY_0 + 5] = X.BODY_XPATH
    order[NGS_COMMENTS_0:NGS_COMMENTS_0 + 4] = X.COMMENTS_XPATH
    return order


cdef int _ngp_intern_names(CDocument doc, object names) except -1:
    if names is None:
        return 0
    for name in names:
        _intern(doc, name)
    return 0


cdef int _ngp_intern_matcher(CDocument doc, Matcher m) except -1:
    if m is None:
        return 0
    for names in m.term_names:
        _ngp_intern_names(doc, names)
    for names in m.term_tags:
        _ngp_intern_names(doc, names)
    return 0


cdef int _ngp_intern_prefilter(CDocument doc, Prefilter pf) except -1:
    if pf is None:
        return 0
    _ngp_intern_names(doc, pf.attr_names)
    _ngp_intern_names(doc, pf.pass_tags)
    return 0


cdef int _ngp_resolve_one(CDocument doc, object names, Matcher m, Prefilter pf, int mode, NSel* out,
                          object guard_tag, Matcher gm, list keep) except -1:
    "Intern every name the selector tests, then resolve it: 1 available, 0 not."
    _ngp_intern_names(doc, names)
    _ngp_intern_matcher(doc, m)
    _ngp_intern_prefilter(doc, pf)
    if guard_tag is not None:
        _intern(doc, guard_tag)
    _ngp_intern_matcher(doc, gm)
    keep.extend((m, pf, gm))
    return 1 if _ns_resolve(doc, names, m, pf, mode, out, guard_tag, gm) == NS_OK else 0


# upstream: none (the selectors resolved once per page: C machinery)
cdef int ng_selectors_resolve(CDocument doc, NgSelectors* out, int release=NG_REL_231) except -1:
    """With the GIL, once per page: every selector of NgSelectors resolved against ``doc``
    (names interned first: valid for every element the page's stages rename or create).
    ``out`` holds a reference (``keep``): release it with ng_selectors_free."""
    from trafila import xpathlib
    from trafila.v2_3_1 import xpaths as X
    from trafila.v2_3_1.utils import LINK_FARM_RATIO
    import trafila._core as core_module
    cdef int k, mode
    cdef list keep = []
    cdef Matcher m
    cdef Prefilter pf
    memset(out, 0, sizeof(NgSelectors))
    order = _ngp_selector_order(release)
    shapes = _ns_shapes_111() if release == NG_REL_111 else _ns_shapes()
    out.link_farm_ratio = LINK_FARM_RATIO
    out.release = release
    if len(order) != NGS_N:
        raise ValueError("selector table out of step")
    for k in range(NGS_N):
        sel = order[k]
        if k == NGS_BODY_4_MAIN or sel is None:
            continue
        shape = shapes.get(sel)
        if release == NG_REL_231 and sel is X.body_xpath_4:
            if k != NGS_BODY_4:
                raise ValueError("body_xpath_4 out of place")
            if shape is not None and shape[0] == "first_each":
                _kind, names1, m1, names2 = shape
                out.avail[NGS_BODY_4] = _ngp_resolve_one(doc, names1, m1, None, NS_FIRST, &out.sel[NGS_BODY_4],
                                                         None, None, keep)
                out.avail[NGS_BODY_4_MAIN] = _ngp_resolve_one(doc, names2, None, None, NS_FIRST,
                                                              &out.sel[NGS_BODY_4_MAIN], None, None, keep)
            continue
        if shape is None or shape[0] != "one":
            continue
        _kind, mode, names, pred, guard = shape
        if NGS_BODY_0 <= k < NGS_BODY_4 or NGS_COMMENTS_0 <= k <= NGS_COMMENTS_3:
            mode = NS_FIRST           # first_body_match, and extract_comments' found[0]
        if guard is not None:
            gmatch, gpf, guard_tag, gm = guard
            out.avail[k] = _ngp_resolve_one(doc, names, gmatch, gpf, mode, &out.sel[k], guard_tag, gm, keep)
        elif pred is None:
            out.avail[k] = _ngp_resolve_one(doc, names, None, None, mode, &out.sel[k], None, None, keep)
        elif isinstance(pred, Matcher):
            # a spec written here (nogil_select.pxi's _ns_shapes_111)
            out.avail[k] = _ngp_resolve_one(doc, names, pred, None, mode, &out.sel[k], None, None, keep)
        else:
            m = xpathlib.compiled_matcher(core_module, pred)
            if m is not None:
                pf = xpathlib.compiled_prefilter(core_module, pred)
                out.avail[k] = _ngp_resolve_one(doc, names, m, pf, mode, &out.sel[k], None, None, keep)
    t = tuple(keep)
    Py_INCREF(t)
    out.keep = <PyObject*>t
    return 0


# upstream: none (the selectors resolved once per page: C machinery)
cdef void ng_selectors_free(NgSelectors* s):
    "Release what ng_selectors_resolve holds (with the GIL); the struct itself is the caller's."
    if s != NULL:
        Py_XDECREF(s.keep)
        s.keep = NULL


cdef inline int _ngp_fail(NgCtx* c) noexcept nogil:
    "NS_ERROR, the document's error set (for the wrapper's MemoryError) when nothing set it."
    if c.d.error == 0:
        c.d.error = ERR_MEMORY
    return NS_ERROR


# upstream: none (the selectors resolved once per page: C machinery)
cdef int ng_select(NgCtx* c, const NgSelectors* s, int k, int32_t root, NsVec* out) noexcept nogil:
    """Selector ``k`` (NGS_*) from ``root``, its matches appended to ``out`` (the prune lists:
    all, in document order; NGS_BODY_*: first_body_match's node; NGS_COMMENTS_*: found[0]).
    NS_NEED_PYTHON for a selector without a C spec or an unknown verdict (``out`` unchanged)."""
    if k < 0 or k >= NGS_N or k == NGS_BODY_4_MAIN:
        return NS_ERROR
    if not s.avail[k]:
        return NS_NEED_PYTHON
    if k == NGS_BODY_4 and s.release == NG_REL_231:
        if not s.avail[NGS_BODY_4_MAIN]:
            return NS_NEED_PYTHON
        return ns_select_first_each(c.d, root, &s.sel[NGS_BODY_4], &s.sel[NGS_BODY_4_MAIN], True, out)
    return ns_select(c.d, root, &s.sel[k], out)


cdef int ng_first_body_match(NgCtx* c, const NgSelectors* s, int which, int32_t root, int32_t* out) noexcept nogil:
    """xpaths.first_body_match(BODY_XPATH[which], root): ``out`` the node, -1 for None."""
    cdef NsVec v
    cdef int r
    out[0] = -1
    if which < 0 or which > 4:
        return NS_ERROR
    nsv_init(&v)
    r = ng_select(c, s, NGS_BODY_0 + which, root, &v)
    if r == NS_OK and v.len > 0:
        out[0] = v.data[0]
    nsv_free(&v)
    return r


# upstream: trafilatura.main_extractor.extract_comments
cdef int ng_first_comments_match(NgCtx* c, const NgSelectors* s, int which, int32_t root, int32_t* out) noexcept nogil:
    """``found = COMMENTS_XPATH[which](root); found[0] if found else None``: ``out`` the node or -1."""
    cdef NsVec v
    cdef int r
    out[0] = -1
    if which < 0 or which > 3:
        return NS_ERROR
    nsv_init(&v)
    r = ng_select(c, s, NGS_COMMENTS_0 + which, root, &v)
    if r == NS_OK and v.len > 0:
        out[0] = v.data[0]
    nsv_free(&v)
    return r


# -- prune_unwanted_nodes -------------------------------------------------------------------

cdef Py_ssize_t _ngp_text_content_len(DocData* d, int32_t top) noexcept nogil:
    """``len(top.text_content())`` in code points: top's text and every descendant's text
    and tail (top's own tail not), as lxml's string(.) joins them."""
    cdef int32_t s = top
    cdef Py_ssize_t k = 0
    cdef Node* nd
    if d.nodes[top].text_off >= 0:
        k += ngs_code_points(d.text.data + d.nodes[top].text_off, d.nodes[top].text_len)
    s = dom_preorder_next(d, top, top)
    while s >= 0:
        nd = &d.nodes[s]
        if nd.text_off >= 0:
            k += ngs_code_points(d.text.data + nd.text_off, nd.text_len)
        if nd.tail_off >= 0:
            k += ngs_code_points(d.text.data + nd.tail_off, nd.tail_len)
        s = dom_preorder_next(d, s, top)
    return k


cdef int _ngp_outermost(DocData* d, NsVec* v) noexcept nogil:
    """``v`` becomes ``[e for e in dict.fromkeys(v) if no ancestor of e is in v]`` (first-seen
    order kept). NS_OK or NS_ERROR (memory)."""
    cdef uchar* marks
    cdef Py_ssize_t k, j = 0
    cdef int32_t i, a
    if v.len == 0:
        return NS_OK
    if alloc_fails():
        return NS_ERROR
    marks = <uchar*>calloc(<size_t>d.n_nodes + 1, 1)
    if marks == NULL:
        return NS_ERROR
    for k in range(v.len):
        marks[v.data[k]] = 1
    for k in range(v.len):
        i = v.data[k]
        if marks[i] == 2:
            continue            # a duplicate: kept where first seen
        marks[i] = 2
        a = d.nodes[i].parent
        while a >= 0 and not marks[a]:
            a = d.nodes[a].parent
        if a < 0:
            v.data[j] = i
            j += 1
    v.len = j
    free(marks)
    return NS_OK


cdef int ng_prune_unwanted_nodes(NgCtx* c, const NgSelectors* s, int which_list, int32_t root,
                                 bint with_backup) noexcept nogil:
    """htmlprocessing.prune_unwanted_nodes(root, <list which_list>, with_backup).

    Without backup: per selector in turn, its matches (on the tree as the previous deletions
    left it) deleted in document order, tails kept (xml.delete_element; a match inside an
    earlier deleted one is deleted from the detached subtree, as the reference does).
    With backup: the matches of all the selectors (on the unchanged tree), deduplicated, the
    outermost ones kept; deleted only if ``old_len - removed > old_len / 7`` (text_content
    lengths; Python compares the int with the float quotient exactly, and so do these doubles
    below 2**53)."""
    cdef NsVec v
    cdef int r = NS_OK, k, start, count
    cdef Py_ssize_t j, old_len, removed
    if which_list < 0 or which_list >= NGL_N:
        return NS_ERROR
    start = NGL_START[which_list]
    count = NGL_COUNT[which_list]
    nsv_init(&v)
    if not with_backup:
        for k in range(start, start + count):
            v.len = 0
            r = ng_select(c, s, k, root, &v)
            if r != NS_OK:
                break
            for j in range(v.len):
                r = ng_delete(c.d, v.data[j], True)
                if r != NS_OK:
                    break
            if r != NS_OK:
                break
        nsv_free(&v)
        return _ngp_fail(c) if r == NS_ERROR else r
    for k in range(start, start + count):
        r = ng_select(c, s, k, root, &v)
        if r != NS_OK:
            nsv_free(&v)
            return _ngp_fail(c) if r == NS_ERROR else r
    if _ngp_outermost(c.d, &v) != NS_OK:
        nsv_free(&v)
        return _ngp_fail(c)
    old_len = _ngp_text_content_len(c.d, root)
    removed = 0
    for j in range(v.len):
        removed += _ngp_text_content_len(c.d, v.data[j])
    if <double>(old_len - removed) > <double>old_len / 7.0:
        for j in range(v.len):
            r = ng_delete(c.d, v.data[j], True)
            if r != NS_OK:
                break
    nsv_free(&v)
    return _ngp_fail(c) if r == NS_ERROR else r


# -- the link-density passes ----------------------------------------------------------------

cdef inline void _ngp_prune_ids(const NgCtx* c, PruneIds* ids) noexcept nogil:
    ids.ref = c.name[NG_REF]
    ids.graphic = c.name[NG_GRAPHIC]
    ids.p = c.name[NG_P]
    ids.item = c.name[NG_ITEM]
    ids.td = c.name[NG_TD]
    ids.th = c.name[NG_TH]


cdef int ng_link_density_test(NgCtx* c, const NgSelectors* s, int32_t el, bint favor_precision,
                              bint* result, bint* short_with_links) noexcept nogil:
    "htmlprocessing.link_density_test(el, favor_precision): (result, short_with_links)."
    cdef PruneIds ids
    _ngp_prune_ids(c, &ids)
    result[0] = _ldt_2_3_1(c.d, el, &ids, favor_precision, s.link_farm_ratio, short_with_links)
    return NS_OK


cdef int ng_link_density_test_tables(NgCtx* c, int32_t el, bint* out) noexcept nogil:
    "htmlprocessing.link_density_test_tables(el)."
    cdef PruneIds ids
    _ngp_prune_ids(c, &ids)
    out[0] = _table_test(c.d, el, &ids, False)
    return NS_OK


cdef int ng_delete_by_link_density(NgCtx* c, const NgSelectors* s, int32_t root, int tag_kind,
                                   bint backtracking, bint favor_precision) noexcept nogil:
    """htmlprocessing.delete_by_link_density(root, NG_NAMES[tag_kind], backtracking,
    favor_precision) of 2.3.1: the elements of that tag (root included) flagged on the
    unchanged tree (link_density_test, or backtracking's short link-bearing elements with
    enough children; a p inside item/td/th stays), then deleted in that order, tails kept."""
    cdef PruneIds ids
    cdef IdxVec out
    cdef int err, r = NS_OK
    cdef int32_t k
    if tag_kind < 0 or tag_kind >= NG_N:
        return NS_ERROR
    _ngp_prune_ids(c, &ids)
    memset(&out, 0, sizeof(IdxVec))
    if c.o.release == NG_REL_111:
        # 1.11.0's test and backtracking (the children of short link-bearing elements)
        err = _flagged_1_11_0(c.d, root, c.name[tag_kind], backtracking, favor_precision, &ids, &out)
    else:
        err = _flagged_2_3_1(c.d, root, c.name[tag_kind], tag_kind == NG_P, backtracking, favor_precision,
                             s.link_farm_ratio, &ids, &out)
    if err:
        free(out.items)
        c.d.error = err
        return NS_ERROR
    for k in range(out.n):
        r = ng_delete(c.d, out.items[k], True)
        if r != NS_OK:
            break
    free(out.items)
    return _ngp_fail(c) if r == NS_ERROR else r


# -- prune_unwanted_sections ----------------------------------------------------------------

cdef int _ngp_boilerplate_tables(NgCtx* c, int32_t root) noexcept nogil:
    """The tables of ``root`` (itself included) collected first, tested on the unchanged tree,
    then the flagged ones deleted with their tails."""
    cdef NsVec v
    cdef PruneIds ids
    cdef int32_t i, table = c.name[NG_TABLE]
    cdef Py_ssize_t k, j = 0
    cdef int r = NS_OK
    _ngp_prune_ids(c, &ids)
    nsv_init(&v)
    i = root
    while i >= 0:
        if c.d.nodes[i].tag == table and nsv_push(&v, i) < 0:
            nsv_free(&v)
            return _ngp_fail(c)
        i = dom_preorder_next(c.d, i, root)
    for k in range(v.len):
        if _table_test(c.d, v.data[k], &ids, False):
            v.data[j] = v.data[k]
            j += 1
    for k in range(j):
        r = ng_delete(c.d, v.data[k], False)
        if r != NS_OK:
            break
    nsv_free(&v)
    return _ngp_fail(c) if r == NS_ERROR else r


cdef int ng_prune_unwanted_sections(NgCtx* c, const NgSelectors* s, int32_t root, uint64_t potential,
                                    bint keep_teasers) noexcept nogil:
    """main_extractor.prune_unwanted_sections(root, potential_tags, options, keep_teasers):
    ``potential`` as NG_* bits (graphic, table and ref are read), the focus from ``c.o``."""
    cdef bint favor_precision = c.o.focus == NG_PRECISION
    cdef int r, last
    r = ng_prune_unwanted_nodes(c, s, NGL_OVERALL_DISCARD, root, True)
    if r != NS_OK:
        return r
    if not (potential >> NG_GRAPHIC) & 1:
        r = ng_prune_unwanted_nodes(c, s, NGL_DISCARD_IMAGE, root, False)
        if r != NS_OK:
            return r
    if c.o.focus != NG_RECALL:
        if not keep_teasers:
            r = ng_prune_unwanted_nodes(c, s, NGL_TEASER_DISCARD, root, False)
            if r != NS_OK:
                return r
        if favor_precision:
            r = ng_prune_unwanted_nodes(c, s, NGL_PRECISION_DISCARD, root, False)
            if r != NS_OK:
                return r
    for rep in range(2):
        r = ng_delete_by_link_density(c, s, root, NG_DIV, True, favor_precision)
        if r != NS_OK:
            return r
        r = ng_delete_by_link_density(c, s, root, NG_LIST, False, favor_precision)
        if r != NS_OK:
            return r
        r = ng_delete_by_link_density(c, s, root, NG_P, False, favor_precision)
        if r != NS_OK:
            return r
    if (potential >> NG_TABLE) & 1 or favor_precision:
        r = _ngp_boilerplate_tables(c, root)
        if r != NS_OK:
            return r
    if favor_precision:
        while True:
            last = c.d.nodes[root].last
            if last < 0 or c.d.nodes[last].tag != c.name[NG_HEAD]:
                break
            r = ng_delete(c.d, last, False)
            if r != NS_OK:
                return _ngp_fail(c) if r == NS_ERROR else r
        r = ng_delete_by_link_density(c, s, root, NG_HEAD, False, True)
        if r != NS_OK:
            return r
        r = ng_delete_by_link_density(c, s, root, NG_QUOTE, False, True)
        if r != NS_OK:
            return r
    r = ng_strip_tags(c, root, ng_bit(NG_SPAN) | (0 if (potential >> NG_REF) & 1 else ng_bit(NG_REF)))
    return _ngp_fail(c) if r == NS_ERROR else r


# -- test wrappers (tests/test_core_nogil_prune.py) -------------------------------------------

cdef class NgSelectorSet:
    """NgSelectors resolved for one document (tests): resolve once, then prune that document
    even after its stages renamed or created elements."""
    cdef NgSelectors* s
    cdef readonly CDocument doc

    def __cinit__(self, CElement el not None):
        self.s = NULL
        self.doc = el.doc
        self.s = <NgSelectors*>malloc(sizeof(NgSelectors))
        if self.s == NULL:
            raise MemoryError("out of memory")
        memset(self.s, 0, sizeof(NgSelectors))
        ng_selectors_resolve(el.doc, self.s)

    def __dealloc__(self):
        if self.s != NULL:
            ng_selectors_free(self.s)
            free(self.s)
            self.s = NULL

    def available(self):
        "Per NGS_* entry of the release resolved (2.3.1: NGS_PAYWALL left out), whether it has a C selection."
        return [bool(self.s.avail[k]) for k in range(NGS_PAYWALL if self.s.release == NG_REL_231 else NGS_N)]

    def select(self, CElement ctx not None, int k):
        """ng_select of entry ``k`` from ``ctx``: node indexes, or None for NEED_PYTHON."""
        cdef NgCtx c
        cdef NsVec v
        cdef int r
        cdef Py_ssize_t j
        if ctx.doc is not self.doc:
            raise ValueError("another document")
        if k < 0 or k >= NGS_N or k == NGS_BODY_4_MAIN:
            raise ValueError("no such selector entry (NGS_BODY_4_MAIN is NGS_BODY_4's second half)")
        self.doc._check(ctx.idx)
        nsv_init(&v)
        with nogil:
            r = ng_init(&c, &self.doc.d)
            if r == NS_OK:
                r = ng_select(&c, self.s, k, ctx.idx, &v)
            ng_free(&c)
        try:
            if r == NS_ERROR:
                _raise_doc_error(self.doc)
            if r != NS_OK:
                return None
            return [v.data[j] for j in range(v.len)]
        finally:
            nsv_free(&v)


cdef NgSelectorSet _ngp_sels(CElement el, NgSelectorSet sels):
    if sels is None:
        return NgSelectorSet(el)
    if sels.doc is not el.doc:
        raise ValueError("selectors resolved for another document")
    return sels


cdef int _ngp_focus(str focus) except -1:
    if focus == "balanced":
        return NG_BALANCED
    if focus == "precision":
        return NG_PRECISION
    if focus == "recall":
        return NG_RECALL
    raise ValueError(focus)


def nogil_prune_unwanted_nodes(CElement el not None, str which, bint with_backup=False, NgSelectorSet sels=None):
    """ng_prune_unwanted_nodes on ``el`` with the list named ``which`` (_NGL_NAMES): True
    done, False NEED_PYTHON (the tree may be half-pruned)."""
    cdef CDocument doc = el.doc
    cdef NgSelectorSet ss
    cdef NgCtx c
    cdef int r, lst = _NGL_NAMES.index(which)
    doc._check(el.idx)
    ss = _ngp_sels(el, sels)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_prune_unwanted_nodes(&c, ss.s, lst, el.idx, with_backup)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return r == NS_OK


def nogil_delete_by_link_density(CElement el not None, str tagname, bint backtracking=False, bint favor_precision=False,
                                 NgSelectorSet sels=None):
    """ng_delete_by_link_density on ``el`` for ``tagname`` (an NG name): True done, False
    NEED_PYTHON."""
    cdef CDocument doc = el.doc
    cdef NgSelectorSet ss
    cdef NgCtx c
    cdef int r, k
    cdef int kind = [NG_NAMES[k].decode() for k in range(NG_N)].index(tagname)
    doc._check(el.idx)
    ss = _ngp_sels(el, sels)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_delete_by_link_density(&c, ss.s, el.idx, kind, backtracking, favor_precision)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return r == NS_OK


def nogil_link_density_test(CElement el not None, bint favor_precision=False, NgSelectorSet sels=None):
    "ng_link_density_test on ``el``: (result, short_with_links)."
    cdef CDocument doc = el.doc
    cdef NgSelectorSet ss
    cdef NgCtx c
    cdef int r
    cdef bint result = False, swl = False
    doc._check(el.idx)
    ss = _ngp_sels(el, sels)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_link_density_test(&c, ss.s, el.idx, favor_precision, &result, &swl)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return result, swl


def nogil_link_density_test_tables(CElement el not None):
    "ng_link_density_test_tables on ``el``."
    cdef CDocument doc = el.doc
    cdef NgCtx c
    cdef int r
    cdef bint result = False
    doc._check(el.idx)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_link_density_test_tables(&c, el.idx, &result)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return result


def nogil_prune_unwanted_sections(CElement el not None, potential_tags, str focus="balanced", bint keep_teasers=False,
                                  NgSelectorSet sels=None):
    """ng_prune_unwanted_sections on ``el``: ``potential_tags`` names (those outside NG_NAMES
    play no part in this stage and are left out of the bits). True done, False NEED_PYTHON."""
    cdef CDocument doc = el.doc
    cdef NgSelectorSet ss
    cdef NgCtx c
    cdef int r, fo = _ngp_focus(focus)
    cdef uint64_t bits = 0
    cdef int k
    names = [NG_NAMES[k].decode() for k in range(NG_N)]
    for t in potential_tags:
        if t in names:
            bits |= ng_bit(names.index(t))
    doc._check(el.idx)
    ss = _ngp_sels(el, sels)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            c.o.focus = fo
            r = ng_prune_unwanted_sections(&c, ss.s, el.idx, bits, keep_teasers)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return r == NS_OK


def nogil_first_body_match(CElement el not None, int which, NgSelectorSet sels=None):
    """ng_first_body_match: the node index, -1 for None, None for NEED_PYTHON."""
    cdef CDocument doc = el.doc
    cdef NgSelectorSet ss
    cdef NgCtx c
    cdef int r
    cdef int32_t out = -1
    doc._check(el.idx)
    ss = _ngp_sels(el, sels)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_first_body_match(&c, ss.s, which, el.idx, &out)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return out if r == NS_OK else None


def nogil_first_comments_match(CElement el not None, int which, NgSelectorSet sels=None):
    """ng_first_comments_match: the node index, -1 for None, None for NEED_PYTHON."""
    cdef CDocument doc = el.doc
    cdef NgSelectorSet ss
    cdef NgCtx c
    cdef int r
    cdef int32_t out = -1
    doc._check(el.idx)
    ss = _ngp_sels(el, sels)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_first_comments_match(&c, ss.s, which, el.idx, &out)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return out if r == NS_OK else None
