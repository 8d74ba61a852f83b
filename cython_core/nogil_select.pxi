# Selection over node indexes without the GIL.
#
# trafila.xpathlib's combinators on core trees (``select``, ``select_first``,
# ``select_first_per_parent``, ``select_tags``) as one nogil walk that appends
# node indexes to a growable int32 vector. Two phases, kept apart:
#
#   1. ``_ns_resolve`` (GIL, once per document and selector): the tag set, the
#      Matcher's terms and the Prefilter's groups resolved against the
#      document's name table into an ``NSel`` struct (plain C; it points into
#      the Matcher's and Prefilter's buffers, which the caller keeps alive);
#   2. ``ns_select`` (nogil): the walk. Per node, the tag filter, then the
#      prefilter (a necessary condition: False means the predicate is False),
#      then the Matcher's verdict. A verdict -1 (unknown: the Python predicate
#      would have to decide) stops the walk with NS_NEED_PYTHON; the vector is
#      then put back to the length it had on entry (nothing else is written).
#
# Order and duplicates, as the Python selection: descendants of the context in
# document order (the context itself never), each node at most once; a union
# of tag paths (``.//cite|.//quote``) is the same walk with a tag set (XPath
# unions come out in document order without duplicates); ``(...)[1]`` stops at
# the first match; ``.//*[...][pred][1]`` keeps, per parent, the first matching
# child: in document order, a node whose parent already gave one is skipped.
# ``first_body_match`` of any BODY selector is the first node of its list, so
# body_xpath_0's per-parent list reduces to its first match there.

cdef enum:
    NS_OK = 0
    NS_NEED_PYTHON = 1
    NS_ERROR = 2
    NS_ALL = 0            # select: every match
    NS_FIRST = 1          # select_first: the first match only
    NS_PER_PARENT = 2     # select_first_per_parent


cdef struct NsVec:
    int32_t* data
    Py_ssize_t len
    Py_ssize_t cap


cdef inline void nsv_init(NsVec* v) noexcept nogil:
    v.data = NULL
    v.len = 0
    v.cap = 0


cdef inline void nsv_free(NsVec* v) noexcept nogil:
    free(v.data)
    v.data = NULL
    v.len = 0
    v.cap = 0


cdef int nsv_push(NsVec* v, int32_t x) noexcept nogil:
    "Append ``x``: 0, or -1 when the vector cannot grow (it is left as it was)."
    cdef Py_ssize_t cap
    cdef int32_t* p
    if v.len < 0 or v.cap < 0 or v.len > v.cap:
        return -1
    if v.len == v.cap:
        if v.cap >= (1 << 30):     # more entries than a document has nodes
            return -1
        cap = 16 if v.cap == 0 else 2 * v.cap
        if alloc_fails():
            return -1
        p = <int32_t*>realloc(v.data, <size_t>cap * sizeof(int32_t))
        if p == NULL:
            return -1
        v.data = p
        v.cap = cap
    v.data[v.len] = x
    v.len += 1
    return 0


cdef struct NSel:
    int32_t mode            # NS_ALL / NS_FIRST / NS_PER_PARENT
    int32_t none            # 1: no node of this document can match (a tag set none of whose names it has)
    int32_t n_tags          # -1: every tag; else the resolved tag ids
    int32_t tags[MAX_NAME_SET]
    int32_t n_terms         # -1: no predicate (a tag path: every node with the tag matches)
    MTerm terms[MAX_MT_TERMS]
    const MData* m          # the Matcher's buffers (the Matcher outlives the selection)
    int32_t has_pf
    int32_t pf_n_terms
    int32_t pf_n_tags
    PFTerm pf_terms[MAX_PF_TERMS]
    int32_t pf_tags[MAX_NAME_SET]
    PFData pd               # the Prefilter's buffers (the Prefilter outlives the selection)
    # a guard on a match: ``[pred][not(.//guard_tag) or gpred]`` (_is_appended_articles' h1 test)
    int32_t has_guard
    int32_t guard_tag       # the tag's id, -1 when the document never saw it (then no descendant has it)
    int32_t g_n_terms
    MTerm g_terms[MAX_MT_TERMS]
    const MData* gm


cdef int _ns_resolve(CDocument doc, object names, Matcher m, Prefilter pf, int mode, NSel* out,
                     object guard_tag=None, Matcher gm=None) except -1:
    """Phase 1 (GIL): ``out`` for this document. NS_OK, or NS_NEED_PYTHON when the
    tag set has more names than the C set holds. With ``guard_tag``, a match must also
    have no descendant of that tag, or hold ``gm``."""
    cdef int n, pf_n_tags = 0
    if mode != NS_ALL and mode != NS_FIRST and mode != NS_PER_PARENT:
        raise ValueError("bad selection mode")
    memset(out, 0, sizeof(NSel))
    out.mode = mode
    out.n_tags = -1
    out.n_terms = -1
    if names is not None:
        if not isinstance(names, (set, frozenset, tuple, list)):
            names = tuple(names)
        n = _name_ids(doc, names, out.tags)
        if n < 0:
            return NS_NEED_PYTHON
        out.n_tags = n
        if n == 0:
            out.none = 1
    if m is not None:
        out.n_terms = m.resolve(doc, out.terms)
        out.m = &m.data
    if pf is not None:
        out.has_pf = 1
        out.pf_n_terms = pf.resolve(doc, out.pf_terms, out.pf_tags, &pf_n_tags)
        out.pf_n_tags = pf_n_tags
        _pf_data(pf, &out.pd)
    if guard_tag is not None:
        if gm is None:
            raise ValueError("a guard needs its matcher")
        out.has_guard = 1
        out.guard_tag = _lookup(doc, guard_tag)
        out.g_n_terms = gm.resolve(doc, out.g_terms)
        out.gm = &gm.data
    return NS_OK


cdef int _ns_has_desc_tag(DocData* d, int32_t top, int32_t tag) noexcept nogil:
    "Some descendant of ``top`` has the tag: 1, 0, or -2 (a link out of the array, a cycle)."
    cdef int32_t i, n = d.n_nodes
    cdef Py_ssize_t steps = 0
    if tag < 0:
        return 0
    i = d.nodes[top].first
    while i >= 0:
        steps += 1
        if i >= n or steps > n:
            return -2
        if d.nodes[i].tag == tag:
            return 1
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != top and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            if i < 0 or i >= n:
                return -2
        if i == top:
            break
        i = d.nodes[i].next
    return 0


cdef int _ns_verdict(DocData* d, int32_t i, const NSel* s) noexcept nogil:
    "Node ``i`` (in range) is a match of ``s``: 1, 0, -1 (unknown), -2 (an inconsistent tree)."
    cdef int v, h
    if s.none:
        return 0
    if s.n_tags >= 0 and not _id_in(d.nodes[i].tag, s.tags, s.n_tags):
        return 0
    if s.n_terms < 0:
        v = 1
    elif s.has_pf and not _pf_node(d, i, s.pf_terms, s.pf_n_terms, s.pf_tags, s.pf_n_tags, &s.pd):
        return 0
    else:
        v = _mt_node(d, i, s.terms, s.n_terms, s.m)
    if v != 1 or not s.has_guard:
        return v
    h = _ns_has_desc_tag(d, i, s.guard_tag)
    if h <= 0:
        return 1 if h == 0 else -2
    return _mt_node(d, i, s.g_terms, s.g_n_terms, s.gm)


cdef int ns_select(DocData* d, int32_t root, const NSel* s, NsVec* out) noexcept nogil:
    """Phase 2 (nogil): the matches among the descendants of ``root``, appended to
    ``out`` in document order. NS_OK; NS_NEED_PYTHON at the first node whose verdict is
    unknown; NS_ERROR on an allocation failure or an inconsistent tree. On anything
    but NS_OK, ``out`` has its entry length again."""
    cdef Py_ssize_t start = out.len, steps = 0
    cdef int32_t i, parent, n = d.n_nodes
    cdef int v, status = NS_OK
    cdef uchar* seen = NULL
    if root < 0 or root >= n or start < 0:
        return NS_ERROR
    if s.none:
        return NS_OK
    if s.mode != NS_ALL and s.mode != NS_FIRST and s.mode != NS_PER_PARENT:
        return NS_ERROR
    if s.mode == NS_PER_PARENT:
        if alloc_fails():
            return NS_ERROR
        seen = <uchar*>calloc(<size_t>n + 1, 1)
        if seen == NULL:
            return NS_ERROR
    i = d.nodes[root].first
    while i >= 0:
        steps += 1
        if i >= n or steps > n:     # a link out of the array, or a cycle
            status = NS_ERROR
            break
        v = _ns_verdict(d, i, s)
        if v != 0:
            if v < 0:
                status = NS_NEED_PYTHON if v == -1 else NS_ERROR
                break
            if v:
                if s.mode == NS_PER_PARENT:
                    parent = d.nodes[i].parent
                    if parent < 0 or parent >= n:
                        status = NS_ERROR
                        break
                    if seen[parent]:
                        v = 0
                    else:
                        seen[parent] = 1
                if v:
                    if nsv_push(out, i) < 0:
                        status = NS_ERROR
                        break
                    if s.mode == NS_FIRST:
                        break
        # the next node in document order within root's subtree
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            if i < 0 or i >= n:
                status = NS_ERROR
                break
        if status != NS_OK or i == root:
            break
        i = d.nodes[i].next
    free(seen)
    if status != NS_OK:
        out.len = start
    return status


cdef int ns_select_first_each(DocData* d, int32_t root, const NSel* s1, const NSel* s2, bint only_first,
                              NsVec* out) noexcept nogil:
    """``(.//A)[1] | (.//B)[1]`` (body_xpath_4): the first match of ``s1`` and the first of
    ``s2``, appended in document order, a node once (``only_first``: the first of them, as
    first_body_match takes). A selector already answered is not asked again, so a later
    unknown verdict on it cannot stop the walk. Statuses and ``out`` as ``ns_select``."""
    cdef Py_ssize_t start = out.len, steps = 0
    cdef int32_t i, n = d.n_nodes
    cdef int v1, v2, status = NS_OK
    cdef bint done1 = s1.none != 0, done2 = s2.none != 0
    if root < 0 or root >= n or start < 0:
        return NS_ERROR
    i = d.nodes[root].first
    while i >= 0 and not (done1 and done2):
        steps += 1
        if i >= n or steps > n:
            status = NS_ERROR
            break
        v1 = 0 if done1 else _ns_verdict(d, i, s1)
        v2 = 0 if done2 else _ns_verdict(d, i, s2)
        if v1 < 0 or v2 < 0:
            status = NS_ERROR if (v1 == -2 or v2 == -2) else NS_NEED_PYTHON
            break
        if v1 or v2:
            if nsv_push(out, i) < 0:
                status = NS_ERROR
                break
            if only_first:
                break
            done1 = done1 or v1 == 1
            done2 = done2 or v2 == 1
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            if i < 0 or i >= n:
                status = NS_ERROR
                break
        if status != NS_OK or i == root:
            break
        i = d.nodes[i].next
    if status != NS_OK:
        out.len = start
    return status


# -- the selectors of trafila.v2_3_1.xpaths as shapes -----------------------------------------------
# selector -> ("one", mode, tags or None, predicate or None, guard or None) | ("first_each", tags A, Matcher A,
# tags B): the combinator call each selector makes. xpaths.py registers no exact spec for two of the
# fast path's predicates; their specs are written here from the Python (and the tests compare the
# selections with the Python ones):
#   _is_appended_articles = (re:test(@id, P) or re:test(@class, P)) and (no descendant h1 or
#       re:test(@id, Z) or re:test(@class, Z)): a Matcher on P, the guard tag h1, a Matcher on Z;
#   body_xpath_4 = the first article/div/section with @class, @id or @role starting with 'main',
#       and the first main, in document order (ns_select_first_each).
# No spec (NEED_PYTHON): the inline expressions (tex_annotation, hljs_spans, wild_text_elements).

cdef dict _NS_SHAPES = None


cdef object _ns_matcher(object xterms):
    "A Matcher of exact terms (trafila.xpathlib.x_* tuples) built as xpathlib.compiled_matcher builds one; None if one is None."
    from trafila import xpathlib
    regexes, terms = [], []
    for xt in xterms:
        if xt is None:
            return None
        kind, names, first, literals, trmap, pattern, tags, mode = xt
        index = -1
        if pattern is not None:
            program = xpathlib.compile_regex(pattern)
            if program is None:
                return None
            index = len(regexes)
            regexes.append(program)
        terms.append((kind, names, first, literals, trmap, index, tags, mode))
    return Matcher(terms, regexes)


cdef dict _ns_shapes():
    global _NS_SHAPES
    cdef object app, zox, main_start
    if _NS_SHAPES is None:
        from trafila.v2_3_1 import xpaths as X
        from trafila import xpathlib as XL
        import trafila._core as core
        ads = X._ARTICLE_DIV_MAIN_SECTION
        dlss = X._DIV_ITEM_LIST_P_SECTION_SPAN
        app = _ns_matcher([XL.x_regex("id", X._APPENDED_ARTICLES), XL.x_regex("class", X._APPENDED_ARTICLES)])
        zox = _ns_matcher([XL.x_regex("id", X._ZOX_APPENDED_POST), XL.x_regex("class", X._ZOX_APPENDED_POST)])
        main_start = _ns_matcher([XL.x_starts("class", "main"), XL.x_starts("id", "main"), XL.x_starts("role", "main")])
        shapes = {
            X.body_xpath_0: ("one", NS_PER_PARENT, ads, X._is_article_body, None),
            X.body_xpath_1: ("one", NS_FIRST, frozenset(("article",)), None, None),
            X.body_xpath_2: ("one", NS_FIRST, ads, X._is_story, None),
            X.body_xpath_3: ("one", NS_FIRST, ads, X._is_main_content, None),
            X.comments_xpath_0: ("one", NS_ALL, X._DIV_LIST_SECTION, X._is_comment_list, None),
            X.comments_xpath_1: ("one", NS_ALL, X._DIV_LIST_SECTION, X._is_comments_prefixed, None),
            X.comments_xpath_2: ("one", NS_ALL, X._DIV_LIST_SECTION, X._is_comment_service, None),
            X.comments_xpath_3: ("one", NS_ALL, X._DIV_SECTION, X._is_social_or_comment, None),
            X.remove_comments_xpath: ("one", NS_ALL, X._DIV_LIST_SECTION_DETAILS, X._is_comments_section, None),
            X.remove_comments_and_lists_xpath: ("one", NS_ALL, X._DIV_LIST_SECTION_DETAILS_OL_UL,
                                                X._is_comments_section_or_list, None),
            X.raw_tree_prune_1: ("one", NS_ALL, X._DIV_SECTION_ASIDE, X._is_elementor_share, None),
            X.overall_discard_0: ("one", NS_ALL, dlss, X._is_boilerplate, None),
            X.overall_discard_1: ("one", NS_ALL, None, X._is_hidden_or_reply, None),
            X.teaser_discard: ("one", NS_ALL, dlss, X._is_teaser, None),
            X.precision_discard_0: ("one", NS_ALL, X._HEADER, None, None),
            X.precision_discard_1: ("one", NS_ALL, dlss, X._is_bottom_link_or_border, None),
            X.discard_image_elements: ("one", NS_ALL, dlss, X._is_caption, None),
            X.comments_discard_0: ("one", NS_ALL, X._DIV_SECTION, X._is_respond, None),
            X.comments_discard_1: ("one", NS_ALL, X._CITE_QUOTE, None, None),
            X.comments_discard_2: ("one", NS_ALL, None, X._is_comment_chrome, None),
            X.basic_clean_xpath: ("one", NS_ALL, None, X._is_basic_noise, None),
        }
        if app is not None and zox is not None:
            shapes[X.raw_tree_prune_0] = ("one", NS_ALL, X._DIV_SECTION_ASIDE, X._is_appended_articles,
                                          (app, XL.compiled_prefilter(core, X._is_appended_articles), "h1", zox))
        if main_start is not None:
            shapes[X.body_xpath_4] = ("first_each", X._ARTICLE_DIV_SECTION, main_start, frozenset(("main",)))
        _NS_SHAPES = shapes
    return _NS_SHAPES


cdef dict _NS_SHAPES_111 = None


cdef dict _ns_shapes_111():
    """The selectors of trafila.v1_11_0.xpaths as shapes (the tags and predicate each
    ``first_of``/``all_of`` there was built with; the lambdas as a tag set, or a Matcher written
    here for COMMENTS_DISCARD_XPATH[0]'s ``starts-with(@id, "respond")``)."""
    global _NS_SHAPES_111
    if _NS_SHAPES_111 is None:
        from trafila.v1_11_0 import xpaths as X
        from trafila import xpathlib as XL
        ads = X._ARTICLE_DIV_MAIN_SECTION
        dlss = X._DIV_ITEM_LIST_P_SECTION_SPAN
        respond = _ns_matcher([XL.x_starts("id", "respond")])
        shapes = {
            X.BODY_XPATH[0]: ("one", NS_FIRST, ads, X._is_article_body, None),
            X.BODY_XPATH[1]: ("one", NS_FIRST, frozenset(("article",)), None, None),
            X.BODY_XPATH[2]: ("one", NS_FIRST, ads, X._is_story, None),
            X.BODY_XPATH[3]: ("one", NS_FIRST, ads, X._is_main_content, None),
            X.BODY_XPATH[4]: ("one", NS_FIRST, None, X._is_main, None),
            X.COMMENTS_XPATH[0]: ("one", NS_FIRST, X._DIV_LIST_SECTION, X._is_comment_list, None),
            X.COMMENTS_XPATH[1]: ("one", NS_FIRST, X._DIV_LIST_SECTION, X._starts_with_comments, None),
            X.COMMENTS_XPATH[2]: ("one", NS_FIRST, X._DIV_LIST_SECTION, X._is_comment_service, None),
            X.COMMENTS_XPATH[3]: ("one", NS_FIRST, X._DIV_SECTION, X._is_social_or_comment, None),
            X.REMOVE_COMMENTS_XPATH[0]: ("one", NS_ALL, X._DIV_LIST_SECTION, X._is_comments_section, None),
            X.PAYWALL_DISCARD_XPATH[0]: ("one", NS_ALL, X._DIV_P, X._is_paywall, None),
            X.OVERALL_DISCARD_XPATH[0]: ("one", NS_ALL, dlss, X._is_boilerplate, None),
            X.OVERALL_DISCARD_XPATH[1]: ("one", NS_ALL, None, X._is_hidden_or_reply, None),
            X.TEASER_DISCARD_XPATH[0]: ("one", NS_ALL, dlss, X._is_teaser, None),
            X.PRECISION_DISCARD_XPATH[0]: ("one", NS_ALL, frozenset(("header",)), None, None),
            X.PRECISION_DISCARD_XPATH[1]: ("one", NS_ALL, dlss, X._is_bottom_link_or_border, None),
            X.DISCARD_IMAGE_ELEMENTS[0]: ("one", NS_ALL, dlss, X._is_caption, None),
            X.COMMENTS_DISCARD_XPATH[1]: ("one", NS_ALL, frozenset(("cite", "quote")), None, None),
            X.COMMENTS_DISCARD_XPATH[2]: ("one", NS_ALL, None, X._is_comment_chrome, None),
        }
        if respond is not None:
            shapes[X.COMMENTS_DISCARD_XPATH[0]] = ("one", NS_ALL, X._DIV_SECTION, respond, None)
        _NS_SHAPES_111 = shapes
    return _NS_SHAPES_111


def select_indexes(CElement top not None, object names, Matcher m=None, int mode=0, Prefilter pf=None,
                   object guard_tag=None, Matcher gm=None):
    """The node indexes ``ns_select`` gives for the descendants of ``top`` (tests): tag set
    ``names`` (None: all), predicate ``m`` (None: true), ``mode`` 0 all / 1 first / 2 first
    per parent, ``pf`` the predicate's prefilter or None, ``guard_tag``/``gm`` a guard (see
    ``_ns_resolve``). None for NEED_PYTHON; MemoryError for an allocation failure or an
    inconsistent tree (NS_ERROR)."""
    cdef CDocument doc = top.doc
    cdef NSel* s
    cdef NsVec v
    cdef int status
    cdef Py_ssize_t k
    doc._check(top.idx)
    s = <NSel*>malloc(sizeof(NSel))
    if s == NULL:
        raise MemoryError("out of memory")
    nsv_init(&v)
    try:
        if _ns_resolve(doc, names, m, pf, mode, s, guard_tag, gm) != NS_OK:
            return None
        with nogil:
            status = ns_select(&doc.d, top.idx, s, &v)
        if status == NS_NEED_PYTHON:
            return None
        if status != NS_OK:
            raise MemoryError("selection failed (allocation or inconsistent tree)")
        return [v.data[k] for k in range(v.len)]
    finally:
        nsv_free(&v)
        free(s)


def select_first_each(CElement top not None, object names1, Matcher m1, object names2, Matcher m2=None, bint only_first=False):
    """``ns_select_first_each`` from ``top`` (tests): the first match of (``names1``, ``m1``)
    and of (``names2``, ``m2``) in document order; None for NEED_PYTHON."""
    cdef CDocument doc = top.doc
    cdef NSel* s
    cdef NsVec v
    cdef int status
    cdef Py_ssize_t k
    doc._check(top.idx)
    s = <NSel*>malloc(2 * sizeof(NSel))
    if s == NULL:
        raise MemoryError("out of memory")
    nsv_init(&v)
    try:
        if (_ns_resolve(doc, names1, m1, None, NS_FIRST, &s[0]) != NS_OK
                or _ns_resolve(doc, names2, m2, None, NS_FIRST, &s[1]) != NS_OK):
            return None
        with nogil:
            status = ns_select_first_each(&doc.d, top.idx, &s[0], &s[1], only_first, &v)
        if status == NS_NEED_PYTHON:
            return None
        if status != NS_OK:
            raise MemoryError("selection failed (allocation or inconsistent tree)")
        return [v.data[k] for k in range(v.len)]
    finally:
        nsv_free(&v)
        free(s)


def nogil_select(CElement top not None, object selector, bint first=False):
    """A selector of trafila.v2_3_1.xpaths run by ``ns_select`` from ``top`` (tests): the
    node indexes of ``selector(top)`` (with ``first``: of ``first_body_match(selector, top)``,
    at most one), or None for NEED_PYTHON (a node the C matcher cannot decide, or a
    selector without a spec)."""
    from trafila import xpathlib
    import trafila._core as core
    shape = _ns_shapes().get(selector)
    if shape is None:
        return None
    if shape[0] == "first_each":
        _kind, names1, m1, names2 = shape
        return select_first_each(top, names1, m1, names2, None, first)
    _kind, mode, names, pred, guard = shape
    if first:
        mode = NS_FIRST
    if guard is not None:
        m, pf, guard_tag, gm = guard
        return select_indexes(top, names, m, mode, pf, guard_tag, gm)
    m = pf = None
    if pred is not None:
        m = xpathlib.compiled_matcher(core, pred)
        if m is None:
            return None
        pf = xpathlib.compiled_prefilter(core, pred)
    return select_indexes(top, names, m, mode, pf)


def _ns_select_keeps(CElement top not None, object names, Matcher m, int mode, Prefilter pf, int prefix):
    """``ns_select`` into a vector already holding ``prefix`` entries (tests): (status, its
    length after, the prefix intact)."""
    cdef CDocument doc = top.doc
    cdef NSel* s
    cdef NsVec v
    cdef int status, k
    cdef bint intact = True
    doc._check(top.idx)
    s = <NSel*>malloc(sizeof(NSel))
    if s == NULL:
        raise MemoryError("out of memory")
    nsv_init(&v)
    try:
        for k in range(prefix):
            if nsv_push(&v, -7 - k) < 0:
                raise MemoryError("out of memory")
        if _ns_resolve(doc, names, m, pf, mode, s) != NS_OK:
            return None
        with nogil:
            status = ns_select(&doc.d, top.idx, s, &v)
        for k in range(prefix):
            if v.data[k] != -7 - k:
                intact = False
        return (status, v.len, intact)
    finally:
        nsv_free(&v)
        free(s)


# -- the inline expressions of xpaths.py: tex_annotation, hljs_spans, wild_text_elements, p_has_text_nodes --
# Same two phases (names to ids with the GIL, then a nogil walk into a checked vector). Every
# verdict here is a comparison of a UTF-8 value with an ASCII literal (==, startswith, substring),
# exact on the bytes (the values are valid UTF-8: no code point's bytes hold an ASCII byte), so
# no verdict is unknown: these walks answer NS_OK or NS_ERROR, never NS_NEED_PYTHON. Order and
# duplicates as select_tags: descendants of the context in document order, each once.

cdef enum:
    NI_TEX = 0            # .//*[local-name()='annotation'][@encoding='application/x-tex'] (Python: tag == 'annotation')
    NI_HLJS = 1           # .//span[starts-with(@class,'hljs')]
    NI_WILD = 2           # .//code|.//p|.//quote|.//table|.//div[contains(@class,'w3-code')]
    NI_WILD_RECALL = 3    # .//code|.//p|.//quote|.//table|.//div|.//lb|.//list


cdef struct NsInline:
    int32_t kind
    int32_t none          # 1: the document has none of the tags
    int32_t n_tags
    int32_t tags[MAX_NAME_SET]   # _name_ids writes up to MAX_NAME_SET ids
    int32_t attr          # the tested attribute's id (-1: the document never saw the name: always missing)
    int32_t div           # div's id (NI_WILD: the one tag with a test), -1 when unseen


cdef const char* _NI_TEX_VALUE = b"application/x-tex"
cdef const char* _NI_HLJS = b"hljs"
cdef const char* _NI_W3 = b"w3-code"
cdef const char* _NI_ENCODING = b"encoding"
cdef const char* _NI_CLASS = b"class"


cdef int _ni_resolve(CDocument doc, int kind, NsInline* out) except -1:
    "Phase 1 (GIL): the tag and attribute ids of ``kind`` in this document."
    cdef int n
    memset(out, 0, sizeof(NsInline))
    out.kind = kind
    out.attr = -1
    out.div = -1
    if kind == NI_TEX:
        names, attr = ("annotation",), "encoding"
    elif kind == NI_HLJS:
        names, attr = ("span",), "class"
    elif kind == NI_WILD:
        names, attr = ("code", "p", "quote", "table", "div"), "class"
    elif kind == NI_WILD_RECALL:
        names, attr = ("code", "p", "quote", "table", "div", "lb", "list"), None
    else:
        raise ValueError("bad inline selection")
    n = _name_ids(doc, names, out.tags)
    if n < 0:
        raise ValueError("tag set too large")
    out.n_tags = n
    out.none = 1 if n == 0 else 0
    if attr is not None:
        out.attr = _lookup(doc, attr)
    if kind == NI_WILD:
        out.div = _lookup(doc, "div")
    return 0


cdef int _ni_value(DocData* d, int32_t i, int32_t nid, const uchar** v, Py_ssize_t* n) noexcept nogil:
    """``el.get(name)`` as bytes: 1 and the value, 0 when missing, -2 when the value is out of
    the buffer. A valueless boolean attribute reads as its own name: -3 (the caller knows it)."""
    cdef int32_t k
    cdef Attr* a
    if nid < 0:
        return 0
    k = dom_attr_find(d, i, nid)
    if k < 0:
        return 0
    if k >= d.n_attrs:
        return -2
    a = &d.attrs[k]
    if a.kind == AV_VALUE:
        if a.val_off < 0 or a.val_len < 0 or <Py_ssize_t>a.val_off + a.val_len > d.vals.len:
            return -2
        v[0] = d.vals.data + a.val_off
        n[0] = a.val_len
        return 1
    if a.kind == AV_OWN_NAME:
        return -3
    v[0] = NULL          # AV_NO_VALUE: ''
    n[0] = 0
    return 1


cdef bint _ni_has(const uchar* v, Py_ssize_t n, const char* lit, Py_ssize_t m, bint prefix) noexcept nogil:
    "``lit`` (m ASCII bytes) is a prefix of / a substring of the n bytes at v."
    cdef Py_ssize_t k
    if m > n:
        return False
    if prefix:
        return memcmp(v, lit, m) == 0
    for k in range(n - m + 1):
        if v[k] == <uchar>lit[0] and memcmp(v + k, lit, m) == 0:
            return True
    return False


cdef int _ni_verdict(DocData* d, int32_t i, const NsInline* s) noexcept nogil:
    "Node ``i`` (in range) is selected: 1, 0, or -2 (an inconsistent tree)."
    cdef const uchar* v = NULL
    cdef Py_ssize_t n = 0
    cdef int r
    cdef int32_t tag = d.nodes[i].tag
    if s.none or not _id_in(tag, s.tags, s.n_tags):
        return 0
    if s.kind == NI_WILD_RECALL or (s.kind == NI_WILD and tag != s.div):
        return 1
    r = _ni_value(d, i, s.attr, &v, &n)
    if r == 0:
        return 0          # missing: XPath's '' (no literal here matches '')
    if r == -3:           # the value is the attribute's own name: 'encoding' / 'class'
        if s.kind == NI_TEX:
            v = <const uchar*>_NI_ENCODING
            n = 8
        else:
            v = <const uchar*>_NI_CLASS
            n = 5
    elif r < 0:
        return -2
    if s.kind == NI_TEX:
        return 1 if (n == 17 and memcmp(v, _NI_TEX_VALUE, 17) == 0) else 0
    if s.kind == NI_HLJS:
        return 1 if _ni_has(v, n, _NI_HLJS, 4, True) else 0
    return 1 if _ni_has(v, n, _NI_W3, 7, False) else 0


cdef int ns_select_inline(DocData* d, int32_t root, const NsInline* s, NsVec* out) noexcept nogil:
    """Phase 2 (nogil): the selected descendants of ``root`` appended to ``out`` in document
    order. NS_OK, or NS_ERROR (allocation failure, inconsistent tree; ``out`` back to its
    entry length)."""
    cdef Py_ssize_t start = out.len, steps = 0
    cdef int32_t i, n = d.n_nodes
    cdef int v, status = NS_OK
    if root < 0 or root >= n or start < 0:
        return NS_ERROR
    if s.none:
        return NS_OK
    i = d.nodes[root].first
    while i >= 0:
        steps += 1
        if i >= n or steps > n:
            status = NS_ERROR
            break
        v = _ni_verdict(d, i, s)
        if v < 0:
            status = NS_ERROR
            break
        if v and nsv_push(out, i) < 0:
            status = NS_ERROR
            break
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            if i < 0 or i >= n:
                status = NS_ERROR
                break
        if status != NS_OK or i == root:
            break
        i = d.nodes[i].next
    if status != NS_OK:
        out.len = start
    return status


cdef int ns_p_has_text_nodes(DocData* d, int32_t root, int32_t p) noexcept nogil:
    """p_has_text_nodes(root) (nogil): 1 when some <p> in root's subtree (root included) has a
    text, or a descendant with a text or a tail (None is absent, '' present; the <p>'s own
    tail does not count); 0; -2 for an inconsistent tree. ``p``: the id of 'p' (-1: unseen)."""
    cdef int32_t i, n = d.n_nodes
    cdef Py_ssize_t steps = 0
    cdef int32_t j
    if root < 0 or root >= n:
        return -2
    if p < 0:
        return 0
    i = root
    while True:
        steps += 1
        if i < 0 or i >= n or steps > n:
            return -2
        if d.nodes[i].tag == p:
            if d.nodes[i].text_off >= 0:
                return 1
            # its descendants (a nested <p> is inside it, so the walk does not go below)
            j = d.nodes[i].first
            while j >= 0:
                steps += 1
                if j >= n or steps > n:     # p's descendants and the outer walk's nodes are apart
                    return -2
                if d.nodes[j].text_off >= 0 or d.nodes[j].tail_off >= 0:
                    return 1
                if d.nodes[j].first >= 0:
                    j = d.nodes[j].first
                    continue
                while j != i and d.nodes[j].next < 0:
                    j = d.nodes[j].parent
                    if j < 0 or j >= n:
                        return -2
                if j == i:
                    break
                j = d.nodes[j].next
        elif d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        # past i's subtree
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            if i < 0 or i >= n:
                return -2
        if i == root:
            return 0
        i = d.nodes[i].next


_NI_KINDS = {"tex_annotation": NI_TEX, "hljs_spans": NI_HLJS, "wild_text_elements": NI_WILD}


def nogil_inline(CElement top not None, str which, bint recall=False):
    """``tex_annotation(top)``, ``hljs_spans(top)`` or ``wild_text_elements(top, recall)`` of
    trafila.v2_3_1.xpaths as node indexes, by ``ns_select_inline`` (tests). MemoryError for
    an allocation failure or an inconsistent tree (NS_ERROR)."""
    cdef CDocument doc = top.doc
    cdef NsInline s
    cdef NsVec v
    cdef int status, kind
    cdef Py_ssize_t k
    doc._check(top.idx)
    kind = _NI_KINDS[which]
    if kind == NI_WILD and recall:
        kind = NI_WILD_RECALL
    nsv_init(&v)
    try:
        _ni_resolve(doc, kind, &s)
        with nogil:
            status = ns_select_inline(&doc.d, top.idx, &s, &v)
        if status != NS_OK:
            raise MemoryError("selection failed (allocation or inconsistent tree)")
        return [v.data[k] for k in range(v.len)]
    finally:
        nsv_free(&v)


def nogil_p_has_text_nodes(CElement top not None):
    "``p_has_text_nodes(top)`` by ``ns_p_has_text_nodes`` (tests); MemoryError for an inconsistent tree."
    cdef CDocument doc = top.doc
    cdef int32_t p
    cdef int r
    doc._check(top.idx)
    p = _lookup(doc, "p")
    with nogil:
        r = ns_p_has_text_nodes(&doc.d, top.idx, p)
    if r < 0:
        raise MemoryError("inconsistent tree")
    return r == 1
