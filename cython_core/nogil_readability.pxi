# trafilatura 2.3.1's ``external.try_readability`` without the GIL: the reference is
# trafila.readability_2_3_1.try_readability (Document.summary_tree, the XML serialisation of
# the summary, its re-parse by the HTML parser and lxml.html.fromstring's heuristics).
#
# ``raw`` is a tree of the page's working copy ``c.d``; it is mutated in place as the reference
# mutates its input. The candidates dict is RdScore's arrays (accel_readability.pxi: per node a
# candidate number, per number the node and its score, numbers in insertion order). The
# summary is re-parsed into a document of its own, whose whole tree is then copied into ``c.d``
# (so that the result has the parents, siblings and tail the reference's has).
#
# Where the reference raises (and try_readability answers an empty ``HtmlElement``): drop_tree
# on a parentless element (an assertion), a string lxml refuses in a moved text or a joined tail
# (xml_text), an empty re-parsed document. The input is then left as the reference leaves it at
# the raise. Why a run answers NS_NEED_PYTHON is a thread-local cause (NRD_*).

from libc.string cimport strcmp

cdef extern from *:
    """
    static _Thread_local int trafila_nrd_cause = 0;
    static inline void trafila_nrd_set_cause(int c) { trafila_nrd_cause = c; }
    static inline int trafila_nrd_get_cause(void) { return trafila_nrd_cause; }
    """
    void _nrd_set_cause "trafila_nrd_set_cause" (int c) nogil
    int _nrd_get_cause "trafila_nrd_get_cause" () nogil


cdef enum:
    NRD_NONE = 0
    NRD_ATTR        # a class or id value with a non-ASCII byte (str.lower, re.IGNORECASE on it)
    NRD_TAG         # a candidate's tag holds U+212A (str.lower maps it to "k")
    NRD_VIDEO       # an iframe src with a non-ASCII byte and no ASCII match of videoRe
    NRD_XHTML       # the document has an XHTML doctype (tostring's XHTML serialiser)
    NRD_MERGE       # the re-parsed summary has several bodies, heads or top-level nodes
    NRD_INEXACT     # a score beyond the doubles' exact integers
    NRD_LIVE        # 1.11.0: a live iteration whose matches nest (or a tag name with a non-ASCII byte)
    NRD_NONE_TREE   # 1.11.0: the re-parsed summary is empty (fromstring_bytes gives None: TypeError)
    NRD_N

cdef const char* NRD_CAUSES[NRD_N]
NRD_CAUSES[:] = [b"none", b"attr", b"tag", b"video", b"xhtml", b"merge", b"inexact", b"live", b"none-tree"]


cdef inline int _nrd_need(int cause) noexcept nogil:
    _nrd_set_cause(cause)
    return NS_NEED_PYTHON


cdef int _nrd_ids(DocData* d, const char** names, int n, int32_t* ids) noexcept nogil:
    "The ids of the names the document knows (the others cannot match a node): their count."
    cdef int k, m = 0
    cdef int32_t nid
    for k in range(n):
        nid = _cv_known(d, names[k])
        if nid >= 0:
            ids[m] = nid
            m += 1
    return m


cdef int32_t* _nrd_snapshot(DocData* d, int32_t top, const int32_t* ids, int n_ids, bint include_self,
                            int32_t* n) noexcept nogil:
    """``_preorder(top, names, include_self)`` as a malloc'd array (its length in ``n``); NULL
    without memory (``d.error`` set)."""
    cdef int32_t* snap = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    if snap == NULL:
        d.error = ERR_MEMORY
        return NULL
    n[0] = _snapshot(d, top, ids, n_ids, include_self, snap) if n_ids > 0 else 0
    return snap


cdef inline int _nrd_drop(DocData* d, int32_t i) noexcept nogil:
    """treeops.drop_tree: NS_OK done, NS_NEED_PYTHON standing for "raises" (a parentless element,
    or a joined tail lxml refuses: nothing changed), NS_ERROR without memory."""
    cdef int r
    if d.nodes[i].parent < 0:
        return NS_NEED_PYTHON
    r = _drop_tree_c(d, i)
    if r == 1:
        return NS_OK
    return NS_NEED_PYTHON if r == 0 else NS_ERROR


cdef int _nrd_drop_all(DocData* d, const int32_t* snap, int32_t n, bint* raised) noexcept nogil:
    "drop_tree on each node of ``snap`` in order; ``raised`` at the first that raises."
    cdef int32_t k
    cdef int r
    for k in range(n):
        r = _nrd_drop(d, snap[k])
        if r == NS_NEED_PYTHON:
            raised[0] = True
            return NS_OK
        if r != NS_OK:
            return r
    return NS_OK


cdef int ng_drop_tagged(NgCtx* c, int32_t top, const char** names, int n_names, bint* raised) noexcept nogil:
    "``_drop_tagged(top, names)``: drop_tree on a snapshot of the matches, ``top`` included."
    cdef int32_t ids[8]
    cdef int n_ids = _nrd_ids(c.d, names, n_names, ids)
    cdef int32_t n = 0
    cdef int32_t* snap
    cdef int r
    if n_ids == 0:
        return NS_OK
    snap = _nrd_snapshot(c.d, top, ids, n_ids, True, &n)
    if snap == NULL:
        return NS_ERROR
    r = _nrd_drop_all(c.d, snap, n, raised)
    free(snap)
    return r


cdef bint _nrd111_folds_ascii(const uchar* s, Py_ssize_t n) noexcept nogil:
    """The UTF-8 ``s[:n]`` holds a character re.IGNORECASE matches to an ASCII letter: U+0130
    and U+0131 (i), U+017F (s), U+212A (k). Without one, a non-ASCII character matches no ASCII
    letter of the readability patterns (plain words), so their ASCII matching decides."""
    cdef Py_ssize_t i
    for i in range(n - 1):
        if s[i] == 0xC4 and (s[i + 1] == 0xB0 or s[i + 1] == 0xB1):
            return True
        if s[i] == 0xC5 and s[i + 1] == 0xBF:
            return True
        if s[i] == 0xE2 and i + 2 < n and s[i + 1] == 0x84 and s[i + 2] == 0xAA:
            return True
    return False


cdef bint _nrd_class_weight(NgCtx* c, int32_t i, int32_t class_id, int32_t id_id, long* out) noexcept nogil:
    """class_weight of node ``i`` (_class_weight_c); 1.11.0 also decides a non-ASCII value
    without a character re.IGNORECASE folds to ASCII (its _attribute_weight's re.I searches)."""
    cdef const uchar* s
    cdef Py_ssize_t n
    cdef long weight = 0
    cdef int which
    if _class_weight_c(c.d, i, class_id, id_id, out):
        return True
    if c.o.release != NG_REL_111:
        return False
    for which in range(2):
        if not _class_value(c.d, i, class_id if which == 0 else id_id, &s, &n):
            continue
        if _nrd111_folds_ascii(s, n):
            return False
        weight += _attr_weight_ascii(s, n)
    out[0] = weight
    return True


cdef int _nrd111_unlikely_verdict(DocData* d, int32_t i, int32_t class_id, int32_t id_id) noexcept nogil:
    """1.11.0's remove_unlikely_candidates verdict (re.I searches of the joined class and id) on a
    node with a non-ASCII value: 1 drop, 0 keep, -1 a character re.I folds to ASCII."""
    cdef const uchar* cs
    cdef const uchar* is_
    cdef Py_ssize_t cn, in_
    if not _class_value(d, i, class_id, &cs, &cn):
        cn = 0
    if not _class_value(d, i, id_id, &is_, &in_):
        in_ = 0
    if _nrd111_folds_ascii(cs, cn) or _nrd111_folds_ascii(is_, in_):
        return -1
    # len(attrs) < 2 counts characters; the words hold no space, so no match spans the join
    if ngs_code_points(cs, cn) + ngs_code_points(is_, in_) + (1 if cn > 0 and in_ > 0 else 0) < 2:
        return 0
    if ((_contains_any(cs, cn, &_UNLIKELY_SET) or _contains_any(is_, in_, &_UNLIKELY_SET))
            and not _contains_any(cs, cn, &_OK_SET_1_11_0) and not _contains_any(is_, in_, &_OK_SET_1_11_0)):
        return 1
    return 0


cdef int ng_remove_unlikely_candidates(NgCtx* c, int32_t doc, bint* raised) noexcept nogil:
    """Document.remove_unlikely_candidates: every verdict (they read tags and attributes only),
    then the drops in document order."""
    cdef DocData* d = c.d
    cdef int32_t class_id = _cv_known(d, "class"), id_id = _cv_known(d, "id")
    cdef int32_t html_id = _cv_known(d, "html"), body_id = c.name[NG_BODY]
    cdef int32_t i, n = 0
    cdef int32_t* found
    cdef int v, r = NS_OK
    if class_id < 0 and id_id < 0:
        return NS_OK
    found = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    if found == NULL:
        d.error = ERR_MEMORY
        return NS_ERROR
    i = _preorder_next(d, doc, doc)
    while i >= 0:
        if d.nodes[i].tag != body_id and d.nodes[i].tag != html_id:
            # 1.11.0's okMaybeItsACandidateRe has no "content" (its re.I equals the lower() on ASCII)
            v = _unlikely_verdict_c(d, i, class_id, id_id,
                                    &_OK_SET_1_11_0 if c.o.release == NG_REL_111 else &_OK_SET)
            if v < 0 and c.o.release == NG_REL_111:
                v = _nrd111_unlikely_verdict(d, i, class_id, id_id)
            if v < 0:
                r = _nrd_need(NRD_ATTR)
                break
            if v:
                found[n] = i
                n += 1
        i = _preorder_next(d, i, doc)
    if r == NS_OK:
        r = _nrd_drop_all(d, found, n, raised)
    free(found)
    return r


cdef int ng_transform_misused_divs_into_paragraphs(NgCtx* c, int32_t doc, bint* raised) noexcept nogil:
    """Both loops: the renames div -> p (every verdict first), then _wrap_loose_text on each div
    left with loose text or a <br> child (the divs listed first)."""
    cdef DocData* d = c.d
    cdef int32_t div_id = c.name[NG_DIV], p_id = c.name[NG_P], a_id = c.name[NG_A]
    cdef int32_t br_id = _cv_known(d, "br"), i, k, n = 0
    cdef int32_t* divs = NULL
    cdef int32_t* kids = NULL
    cdef uchar* acc = NULL
    cdef Py_ssize_t cap = 0
    cdef PrefixFlags prefixes
    cdef int r = NS_OK, w
    prefixes.n = N_KNOWN + d.n_names
    prefixes.flags = NULL if alloc_fails() else <signed char*>malloc(<size_t>prefixes.n)
    divs = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    acc = <uchar*>_rd_alloc_nodes(d, 1)
    if prefixes.flags == NULL or divs == NULL or acc == NULL:
        d.error = ERR_MEMORY
        r = NS_ERROR
    else:
        memset(prefixes.flags, 0xFF, <size_t>prefixes.n)
        _descendant_flags_c(d, doc, acc, &prefixes, a_id)
        i = _preorder_next(d, doc, doc)
        while i >= 0:
            if d.nodes[i].tag == div_id and not (acc[i] & 1) and (not (acc[i] & 2) or _div_loose_xml(d, i)):
                divs[n] = i
                n += 1
            i = _preorder_next(d, i, doc)
        for k in range(n):
            d.nodes[divs[k]].tag = p_id
        n = 0
        i = _preorder_next(d, doc, doc)
        while i >= 0:
            if d.nodes[i].tag == div_id and _div_has_loose_text(d, i, br_id):
                divs[n] = i
                n += 1
            i = _preorder_next(d, i, doc)
        for k in range(n):
            w = _wrap_div_c(d, divs[k], p_id, br_id, &kids, &cap)
            if w < 0:
                r = NS_ERROR
                break
            if w > 0:
                raised[0] = True
                break
    free(prefixes.flags)
    free(divs)
    free(kids)
    free(acc)
    return r


cdef int _nrd_tag_score(DocData* d, int32_t nid, long* out) noexcept nogil:
    """_tag_score: TAG_SCORES of the lowered tag. A non-ASCII name lowers to an ASCII key
    only through U+212A (the one non-ASCII character whose lower() is ASCII): NEED_PYTHON."""
    cdef Py_ssize_t n, k
    cdef const uchar* s = name_bytes(d, nid, &n)
    cdef char low[12]
    out[0] = 0
    if _has_high_byte(s, n):
        for k in range(n - 2):
            if s[k] == 0xE2 and s[k + 1] == 0x84 and s[k + 2] == 0xAA:
                return _nrd_need(NRD_TAG)
        return NS_OK
    if n > 10:
        return NS_OK
    for k in range(n):
        low[k] = <char>_ascii_lower(s[k])
    low[n] = 0
    if strcmp(low, "div") == 0 or strcmp(low, "article") == 0:
        out[0] = 5
    elif strcmp(low, "pre") == 0 or strcmp(low, "td") == 0 or strcmp(low, "blockquote") == 0:
        out[0] = 3
    elif (strcmp(low, "address") == 0 or strcmp(low, "ol") == 0 or strcmp(low, "ul") == 0
          or strcmp(low, "dl") == 0 or strcmp(low, "dd") == 0 or strcmp(low, "dt") == 0
          or strcmp(low, "li") == 0 or strcmp(low, "form") == 0 or strcmp(low, "aside") == 0):
        out[0] = -3
    elif ((n == 2 and low[0] == b'h' and b'1' <= low[1] <= b'6') or strcmp(low, "th") == 0
          or strcmp(low, "header") == 0 or strcmp(low, "footer") == 0 or strcmp(low, "nav") == 0):
        out[0] = -5
    return NS_OK


cdef int ng_score_paragraphs(NgCtx* c, int32_t doc, RdScore* r) noexcept nogil:
    """Document.score_paragraphs (min_text_length 25) into ``r`` (allocated here; the caller
    frees it): _rd_score_collect, the base scores (score_node), _rd_score_finish."""
    cdef DocData* d = c.d
    cdef int32_t ids[3]
    cdef int32_t k, class_id = _cv_known(d, "class"), id_id = _cv_known(d, "id")
    cdef long weight, tag_score
    cdef int st
    ids[0] = c.name[NG_P]
    ids[1] = c.name[NG_PRE]
    ids[2] = c.name[NG_TD]
    if not _rd_score_alloc(d, r):
        d.error = ERR_MEMORY
        return NS_ERROR
    if _rd_score_collect(d, doc, 25, ids, 3, c.name[NG_A], r):
        return _nrd_need(NRD_INEXACT)
    for k in range(r.n_cand):
        if not _nrd_class_weight(c, r.cand[k], class_id, id_id, &weight):
            return _nrd_need(NRD_ATTR)
        st = _nrd_tag_score(d, d.nodes[r.cand[k]].tag, &tag_score)
        if st != NS_OK:
            return st
        r.score[k] = <double>(weight + tag_score)
    if _rd_score_finish(r):
        return _nrd_need(NRD_INEXACT)
    return NS_OK


cdef int32_t ng_select_best_candidate(RdScore* r) noexcept nogil:
    "The candidate number max() gives (the first of equal scores), -1 for none."
    cdef int32_t k, best = -1
    for k in range(r.n_cand):
        if best < 0 or r.score[k] > r.score[best]:
            best = k
    return best


cdef int32_t _nrd_fragment(NgCtx* c, int k) noexcept nogil:
    """_fragment(tag): a new element, the only child of a new <body> in a new <html> (detached
    nodes of the document); -1 without memory."""
    cdef int32_t html_id = intern_name(c.d, <const uchar*>b"html", 4), html, body
    if html_id < 0:
        return -1
    html = dom_new_node(c.d, html_id, -1)
    if html < 0:
        return -1
    body = ng_new_element(c, NG_BODY, html)
    if body < 0:
        return -1
    return ng_new_element(c, k, body)


cdef int ng_get_article(NgCtx* c, RdScore* r, int32_t best, int32_t* out) noexcept nogil:
    """Document.get_article: the best candidate and the siblings that go with it (every
    verdict first: each reads only its sibling's subtree), moved into a new <div>."""
    cdef DocData* d = c.d
    cdef int32_t node = r.cand[best], parent = d.nodes[node].parent, s, n = 0, k, div
    cdef int32_t p_id = c.name[NG_P], a_id = c.name[NG_A]
    cdef double thr = r.score[best] * 0.2
    cdef int32_t* keep
    cdef bint append
    if not (thr > 10.0):
        thr = 10.0
    keep = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    if keep == NULL:
        d.error = ERR_MEMORY
        return NS_ERROR
    # a parentless best candidate (the tree's root) is its own only sibling
    s = d.nodes[parent].first if parent >= 0 else node
    while s >= 0:
        append = s == node
        if not append and s < r.n_nodes and r.slot[s] >= 0:
            append = r.score[r.slot[s]] >= thr
        if not append and d.nodes[s].tag == p_id:
            append = _rd_p_sibling(d, s, a_id)
        if append:
            keep[n] = s
            n += 1
        s = d.nodes[s].next if parent >= 0 else -1
    div = _nrd_fragment(c, NG_DIV)
    if div < 0:
        free(keep)
        return NS_ERROR
    for k in range(n):
        dom_move_before(d, div, keep[k], -1)
    free(keep)
    out[0] = div
    return NS_OK


cdef bint _nrd_video_ascii(const uchar* s, Py_ssize_t n) noexcept nogil:
    r"""videoRe ``https?:\/\/(?:www\.)?(?:youtube|vimeo)\.com`` (re.I) on the ASCII letters."""
    cdef Py_ssize_t i, j, h
    for i in range(n):
        if not _ci_word_at(s, n, i, "http"):
            continue
        j = i + 4
        if j < n and _ascii_lower(s[j]) == b's':
            j += 1
        if not _ci_word_at(s, n, j, "://"):
            continue
        j += 3
        for h in range(2):
            if h == 1:
                if not _ci_word_at(s, n, j, "www."):
                    break
                j += 4
            if _ci_word_at(s, n, j, "youtube.com") or _ci_word_at(s, n, j, "vimeo.com"):
                return True
    return False


cdef int _nrd_iframes(NgCtx* c, int32_t node, bint* raised) noexcept nogil:
    "sanitize's iframe loop: a video keeps an iframe (its text set to VIDEO), the others are dropped."
    cdef DocData* d = c.d
    cdef int32_t ids[1]
    cdef int32_t src_id = _cv_known(d, "src"), n = 0, k, i, a
    cdef int32_t* snap
    cdef const uchar* s
    cdef Py_ssize_t sn
    cdef bint video
    cdef int r = NS_OK
    ids[0] = _cv_known(d, "iframe")
    if ids[0] < 0:
        return NS_OK
    snap = _nrd_snapshot(d, node, ids, 1, True, &n)
    if snap == NULL:
        return NS_ERROR
    for k in range(n):
        i = snap[k]
        video = False
        a = dom_attr_find(d, i, src_id) if src_id >= 0 else -1
        if a >= 0:
            if d.attrs[a].kind == AV_VALUE:
                s = d.vals.data + d.attrs[a].val_off
                sn = d.attrs[a].val_len
            elif d.attrs[a].kind == AV_OWN_NAME:
                s = name_bytes(d, src_id, &sn)
            else:
                s = NULL
                sn = 0
            video = _nrd_video_ascii(s, sn)
            if not video and _has_high_byte(s, sn):
                r = _nrd_need(NRD_VIDEO)
                break
        if video:
            if not dom_set_slot(d, i, False, <const uchar*>b"VIDEO", 5, False):
                r = NS_ERROR
                break
        else:
            r = _nrd_drop(d, i)
            if r == NS_NEED_PYTHON:
                raised[0] = True
                r = NS_OK
                break
            if r != NS_OK:
                break
    free(snap)
    return r


cdef const char* _NRD_HEADINGS[6]
_NRD_HEADINGS[:] = [b"h1", b"h2", b"h3", b"h4", b"h5", b"h6"]
cdef const char* _NRD_CONDITIONAL[7]
_NRD_CONDITIONAL[:] = [b"table", b"ul", b"div", b"aside", b"header", b"footer", b"section"]
cdef const char* _NRD_SCRIPT_TAGS[3]
_NRD_SCRIPT_TAGS[:] = [b"script", b"style", b"fencedframe"]
cdef const char* _NRD_FORM_TAGS[2]
_NRD_FORM_TAGS[:] = [b"form", b"textarea"]


# upstream: trafilatura.readability_lxml.Document.sanitize_tree
cdef int ng_rd_sanitize(NgCtx* c, RdScore* r, int32_t node, bint* raised) noexcept nogil:
    """Document.sanitize_tree (min_text_length 25): headings, forms, iframes, then the
    conditional cleaning innermost last-first on the live tree."""
    cdef DocData* d = c.d
    cdef int32_t ids[7]
    cdef int32_t class_id = _cv_known(d, "class"), id_id = _cv_known(d, "id")
    cdef int32_t n = 0, k, i
    cdef int n_ids, st = NS_OK, v
    cdef int32_t* snap
    cdef long weight
    cdef double score
    cdef RdCondIds ci
    # headings
    n_ids = _nrd_ids(d, _NRD_HEADINGS, 6, ids)
    if n_ids:
        snap = _nrd_snapshot(d, node, ids, n_ids, True, &n)
        if snap == NULL:
            return NS_ERROR
        for k in range(n):
            i = snap[k]
            if not _class_weight_c(d, i, class_id, id_id, &weight):
                st = _nrd_need(NRD_ATTR)
                break
            if weight < 0 or _link_density_of(d, i, c.name[NG_A]) > 0.33:
                st = _nrd_drop(d, i)
                if st == NS_NEED_PYTHON:
                    raised[0] = True
                    st = NS_OK
                    break
                if st != NS_OK:
                    break
        free(snap)
        if st != NS_OK or raised[0]:
            return st
    st = ng_drop_tagged(c, node, _NRD_FORM_TAGS, 2, raised)
    if st != NS_OK or raised[0]:
        return st
    st = _nrd_iframes(c, node, raised)
    if st != NS_OK or raised[0]:
        return st
    # the conditional cleaning
    n_ids = _nrd_ids(d, _NRD_CONDITIONAL, 7, ids)
    if n_ids == 0:
        return NS_OK
    ci.a_id = c.name[NG_A]
    ci.type_id = _cv_known(d, "type")
    ci.p_id = c.name[NG_P]
    ci.img_id = c.name[NG_IMG]
    ci.li_id = _cv_known(d, "li")
    ci.embed_id = _cv_known(d, "embed")
    ci.input_id = _cv_known(d, "input")
    ci.ol_id = _cv_known(d, "ol")
    ci.ul_id = _cv_known(d, "ul")
    snap = _nrd_snapshot(d, node, ids, n_ids, True, &n)
    if snap == NULL:
        return NS_ERROR
    for k in range(n - 1, -1, -1):
        i = snap[k]
        if not _class_weight_c(d, i, class_id, id_id, &weight):
            st = _nrd_need(NRD_ATTR)
            break
        score = r.score[r.slot[i]] if (i < r.n_nodes and r.slot[i] >= 0) else 0.0
        if <double>weight + score < 0.0:
            v = 1
        else:
            v = _rd_cond_verdict(d, i, weight, 25, &ci)
        if v == 1:
            st = _nrd_drop(d, i)
            if st == NS_NEED_PYTHON:
                raised[0] = True
                st = NS_OK
                break
            if st != NS_OK:
                break
    free(snap)
    return st


# upstream: trafilatura.readability_lxml.Document.summary_tree
cdef int ng_summary_tree(NgCtx* c, int32_t doc, int32_t* article, bint* raised) noexcept nogil:
    """Document(doc, min_text_length=25).summary_tree(): the element summary() serialises
    (``raised``: the reference raises on the way)."""
    cdef DocData* d = c.d
    cdef RdScore r
    cdef int32_t best, ch
    cdef int st
    memset(&r, 0, sizeof(RdScore))
    st = ng_drop_tagged(c, doc, _NRD_SCRIPT_TAGS, 3, raised)
    if st == NS_OK and not raised[0]:
        st = ng_remove_unlikely_candidates(c, doc, raised)
    if st == NS_OK and not raised[0]:
        st = ng_transform_misused_divs_into_paragraphs(c, doc, raised)
    if st == NS_OK and not raised[0]:
        st = ng_score_paragraphs(c, doc, &r)
    if st == NS_OK and not raised[0]:
        best = ng_select_best_candidate(&r)
        if best >= 0:
            st = ng_get_article(c, &r, best, article)
        else:
            article[0] = doc
            ch = d.nodes[doc].first
            while ch >= 0:
                if d.nodes[ch].tag == c.name[NG_BODY]:
                    article[0] = ch
                    break
                ch = d.nodes[ch].next
        if st == NS_OK:
            st = ng_rd_sanitize(c, &r, article[0], raised)
    _rd_score_free(&r)
    return st


cdef bint _nrd_slot_is(DocData* d, int32_t off, int32_t n, const char* s) noexcept nogil:
    cdef Py_ssize_t m = <Py_ssize_t>strlen(s)
    return off >= 0 and n == m and memcmp(d.vals.data + off, s, <size_t>m) == 0


cdef bint _nrd_xhtml_doctype(DocData* d) noexcept nogil:
    "serialize.is_xhtml_doctype on the document's doctype."
    if not d.has_doctype:
        return False
    return (_nrd_slot_is(d, d.dt_pub_off, d.dt_pub_len, "-//W3C//DTD XHTML 1.0 Strict//EN")
            or _nrd_slot_is(d, d.dt_pub_off, d.dt_pub_len, "-//W3C//DTD XHTML 1.0 Frameset//EN")
            or _nrd_slot_is(d, d.dt_pub_off, d.dt_pub_len, "-//W3C//DTD XHTML 1.0 Transitional//EN")
            or _nrd_slot_is(d, d.dt_sys_off, d.dt_sys_len, "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd")
            or _nrd_slot_is(d, d.dt_sys_off, d.dt_sys_len, "http://www.w3.org/TR/xhtml1/DTD/xhtml1-frameset.dtd")
            or _nrd_slot_is(d, d.dt_sys_off, d.dt_sys_len,
                            "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd"))


cdef int _nrd_reparse(NgCtx* c, const uchar* s, Py_ssize_t n, int32_t* out) noexcept nogil:
    """``current().fromstring(bytes)`` of the summary, copied into ``c.d``: its document's whole
    tree (so the result keeps its ancestors), ``out`` the copy of the element fromstring
    returns; -1 there when the document is empty (the reference's ParserError)."""
    cdef DocData tmp
    cdef int32_t root = -1, top, copy, s_i, c_i
    cdef int f, st = NS_OK
    memset(&tmp, 0, sizeof(DocData))
    out[0] = -1
    if not parse_bytes_c(&tmp, s, n):
        c.d.error = tmp.error if tmp.error else ERR_MEMORY
        doc_free(&tmp)
        return NS_ERROR
    f = fromstring_root_c(&tmp, looks_full_html_bytes_c(s, n), &root)
    if f == 1 or (f == 0 and tmp.n_roots != 1):
        st = _nrd_need(NRD_MERGE)
    elif f == 0:
        top = tmp.roots[0]
        copy = dom_copy_subtree(&tmp, top, c.d, True)
        if copy < 0:
            st = NS_ERROR
        else:
            # the same preorder position in the copy
            s_i = top
            c_i = copy
            while s_i != root and s_i >= 0:
                s_i = dom_preorder_next(&tmp, s_i, top)
                c_i = dom_preorder_next(c.d, c_i, copy)
            out[0] = c_i if s_i == root else -1
            if out[0] < 0:
                st = NS_ERROR
                c.d.error = ERR_MEMORY
    doc_free(&tmp)
    return st


cdef int32_t _nrd_empty_html_element(NgCtx* c) noexcept nogil:
    "empty_html_element(): a new element named HtmlElement; -1 without memory."
    cdef int32_t nid = intern_name(c.d, <const uchar*>b"HtmlElement", 11)
    if nid < 0:
        return -1
    return dom_new_node(c.d, nid, -1)


# upstream: trafilatura.external.try_readability
cdef int ng_try_readability(NgCtx* c, int32_t raw, int32_t* out) noexcept nogil:
    """external.try_readability(raw): ``out`` the re-parsed summary (a node of ``c.d``), or a new
    ``HtmlElement`` where the reference fails."""
    cdef int32_t article = -1
    cdef bint raised = False
    cdef int st
    cdef Buf buf
    out[0] = -1
    _nrd_set_cause(NRD_NONE)
    st = ng_summary_tree(c, raw, &article, &raised)
    if st != NS_OK:
        return st
    if not raised:
        if _nrd_xhtml_doctype(c.d):
            return _nrd_need(NRD_XHTML)
        memset(&buf, 0, sizeof(Buf))
        if not _rd_xml_utf8_c(c.d, article, &buf):
            buf_free(&buf)
            return NS_ERROR
        st = _nrd_reparse(c, buf.data, buf.len, out)
        buf_free(&buf)
        if st != NS_OK:
            return st
    if out[0] < 0:
        out[0] = _nrd_empty_html_element(c)
        if out[0] < 0:
            return NS_ERROR
    return NS_OK


# -- trafilatura 1.11.0's readability fork (reference/trafila/readability_1_11_0.py) -------------
# Shared with 2.3.1's above: remove_unlikely_candidates (1.11.0's ok words by c.o.release),
# score_paragraphs, select_best_candidate (sorted(reverse=True)[0] keeps the first of equal
# scores, as max() does), get_article. 1.11.0's own: the live loops (script/style, headings,
# forms, iframes: a snapshot meets what lxml's live iterator meets unless matches nest, which
# answers NEED_PYTHON), the misused-div test on the descendants' tag names, sanitize's absolute
# XPath with its ``allowed`` set, and the ruthless/lenient retry on the serialised length.

cdef const char* _NRD111_DIV_TO_P[10]
_NRD111_DIV_TO_P[:] = [b"a", b"blockquote", b"dl", b"div", b"img", b"ol", b"p", b"pre", b"table", b"ul"]
cdef const char* _NRD111_SCRIPT_TAGS[2]
_NRD111_SCRIPT_TAGS[:] = [b"script", b"style"]
cdef const char* _NRD111_IFRAME[1]
_NRD111_IFRAME[:] = [b"iframe"]
cdef const char* _NRD111_ALLOWED[4]
_NRD111_ALLOWED[:] = [b"table", b"ul", b"div", b"section"]


cdef inline int _nrd111_tag_flag(DocData* d, int32_t nid) noexcept nogil:
    """``_DIV_TO_P_TAG.match(tag)`` (re.I) on a name: 1 it starts with one of the words in any
    ASCII case, 0 not, 2 a name holding a character re.I folds to an ASCII letter."""
    cdef Py_ssize_t n
    cdef const uchar* s = name_bytes(d, nid, &n)
    cdef int k
    if _has_high_byte(s, n) and _nrd111_folds_ascii(s, n):
        return 2
    for k in range(10):
        if _ci_word_at(s, n, 0, _NRD111_DIV_TO_P[k]):
            return 1
    return 0


cdef int ng111_transform_misused_divs_into_paragraphs(NgCtx* c, int32_t doc, bint* raised) noexcept nogil:
    """1.11.0's transform_misused_divs_into_paragraphs: a div none of whose descendants' tags
    matches _DIV_TO_P_TAG becomes a <p> (every verdict first), then 2.3.1's second loop."""
    cdef DocData* d = c.d
    cdef int32_t div_id = c.name[NG_DIV], p_id = c.name[NG_P]
    cdef int32_t br_id = _cv_known(d, "br"), i, k, n = 0, par, n_names = N_KNOWN + d.n_names
    cdef int32_t* divs = NULL
    cdef int32_t* kids = NULL
    cdef uchar* acc = NULL
    cdef signed char* flags = NULL
    cdef Py_ssize_t cap = 0
    cdef int r = NS_OK, w, f
    flags = NULL if alloc_fails() else <signed char*>malloc(<size_t>n_names + 1)
    divs = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    acc = <uchar*>_rd_alloc_nodes(d, 1)
    if flags == NULL or divs == NULL or acc == NULL:
        d.error = ERR_MEMORY
        r = NS_ERROR
    else:
        memset(flags, 0xFF, <size_t>n_names + 1)
        # acc[x]: the OR of the flags of x's strict descendants (each node added into its parent
        # when it is left: postorder over doc's subtree)
        i = doc
        acc[doc] = 0
        while True:
            if d.nodes[i].first >= 0:
                i = d.nodes[i].first
                acc[i] = 0
                continue
            while i != doc:
                par = d.nodes[i].parent
                k = d.nodes[i].tag
                if 0 <= k < n_names:
                    if flags[k] < 0:
                        flags[k] = <signed char>_nrd111_tag_flag(d, k)
                    f = flags[k]
                else:
                    f = 2
                acc[par] |= acc[i] | <uchar>f
                if d.nodes[i].next >= 0:
                    i = d.nodes[i].next
                    acc[i] = 0
                    break
                i = par
            if i == doc:
                break
        i = _preorder_next(d, doc, doc)
        while i >= 0:
            if d.nodes[i].tag == div_id and not (acc[i] & 1):
                if acc[i] & 2:
                    r = _nrd_need(NRD_LIVE)
                    break
                divs[n] = i
                n += 1
            i = _preorder_next(d, i, doc)
        if r == NS_OK:
            for k in range(n):
                d.nodes[divs[k]].tag = p_id
            n = 0
            i = _preorder_next(d, doc, doc)
            while i >= 0:
                if d.nodes[i].tag == div_id and _div_has_loose_text(d, i, br_id):
                    divs[n] = i
                    n += 1
                i = _preorder_next(d, i, doc)
            for k in range(n):
                w = _wrap_div_c(d, divs[k], p_id, br_id, &kids, &cap)
                if w < 0:
                    r = NS_ERROR
                    break
                if w > 0:
                    raised[0] = True
                    break
    free(flags)
    free(divs)
    free(kids)
    free(acc)
    return r


cdef int32_t _nrd111_traverse_next(DocData* d, int32_t i, int32_t top) noexcept nogil:
    """One step of lxml's depth-first walk bounded by ``top`` (dom._traverse_next): the first
    child, else the next sibling of ``i`` or of its nearest ancestor below ``top``; a node
    dropped out of ``top``'s subtree walks on until it climbs to its parentless root."""
    cdef int32_t p
    if d.nodes[i].first >= 0:
        return d.nodes[i].first
    if i == top:
        return -1
    while True:
        p = d.nodes[i].parent
        if p < 0:
            return -1
        if d.nodes[i].next >= 0:
            return d.nodes[i].next
        if p == top:
            return -1
        i = p


cdef inline int32_t _nrd111_next_match(DocData* d, int32_t i, int32_t top, const int32_t* ids,
                                       int n_ids) noexcept nogil:
    i = _nrd111_traverse_next(d, i, top)
    while i >= 0 and not _id_in(d.nodes[i].tag, ids, n_ids):
        i = _nrd111_traverse_next(d, i, top)
    return i


cdef enum:
    NRD111_DROP = 0        # drop_tree each match
    NRD111_HEADINGS = 1    # sanitize's heading verdict, then drop_tree
    NRD111_IFRAMES = 2     # a video keeps its iframe (text VIDEO), the others are dropped


cdef int _nrd111_live(NgCtx* c, int32_t top, const char** names, int n_names, int kind, bint* raised) noexcept nogil:
    """``for elem in top.iter(*names): <kind>(elem)`` over lxml's live iterator, which finds the
    next match (on the tree as it is) when it hands out one: after a match is dropped, the walk
    goes on inside the dropped subtree and ends there."""
    cdef DocData* d = c.d
    cdef int32_t ids[8]
    cdef int n_ids = _nrd_ids(d, names, n_names, ids)
    cdef int32_t class_id = _cv_known(d, "class"), id_id = _cv_known(d, "id"), src_id = _cv_known(d, "src")
    cdef int32_t cur, nxt, a
    cdef long weight
    cdef const uchar* sv
    cdef Py_ssize_t sn
    cdef bint drop, video
    cdef int r = NS_OK
    if n_ids == 0:
        return NS_OK
    cur = top if _id_in(d.nodes[top].tag, ids, n_ids) else _nrd111_next_match(d, top, top, ids, n_ids)
    while cur >= 0:
        nxt = _nrd111_next_match(d, cur, top, ids, n_ids)
        drop = True
        if kind == NRD111_HEADINGS:
            if not _nrd_class_weight(c, cur, class_id, id_id, &weight):
                return _nrd_need(NRD_ATTR)
            drop = weight < 0 or _link_density_of(d, cur, c.name[NG_A]) > 0.33
        elif kind == NRD111_IFRAMES:
            video = False
            a = dom_attr_find(d, cur, src_id) if src_id >= 0 else -1
            if a >= 0:
                if d.attrs[a].kind == AV_VALUE:
                    sv = d.vals.data + d.attrs[a].val_off
                    sn = d.attrs[a].val_len
                elif d.attrs[a].kind == AV_OWN_NAME:
                    sv = name_bytes(d, src_id, &sn)
                else:
                    sv = NULL
                    sn = 0
                video = _nrd_video_ascii(sv, sn)
                if not video and _has_high_byte(sv, sn):
                    return _nrd_need(NRD_VIDEO)
            if video:
                drop = False
                if not dom_set_slot(d, cur, False, <const uchar*>b"VIDEO", 5, False):
                    return NS_ERROR
        if drop:
            r = _nrd_drop(d, cur)
            if r == NS_NEED_PYTHON:
                raised[0] = True
                return NS_OK
            if r != NS_OK:
                return r
        cur = nxt
    return NS_OK


# upstream: trafilatura.readability_lxml.Document.sanitize
cdef int ng111_rd_sanitize(NgCtx* c, RdScore* r, int32_t node, bint* raised) noexcept nogil:
    """1.11.0's Document.sanitize without its final tostring (min_text_length 25): the live
    heading, form and iframe loops, then the conditional cleaning of ``//table|//ul|...`` over
    the whole tree ``node`` belongs to, innermost last-first, with the ``allowed`` exemption."""
    cdef DocData* d = c.d
    cdef int32_t ids[7]
    cdef int32_t allowed_ids[4]
    cdef int32_t class_id = _cv_known(d, "class"), id_id = _cv_known(d, "id")
    cdef int32_t n = 0, k, i, j, top
    cdef int n_ids, n_allowed, st = NS_OK, v
    cdef int32_t* snap = NULL
    cdef uchar* allowed = NULL
    cdef long weight
    cdef double score
    cdef RdCondIds ci
    st = _nrd111_live(c, node, _NRD_HEADINGS, 6, NRD111_HEADINGS, raised)
    if st != NS_OK or raised[0]:
        return st
    st = _nrd111_live(c, node, _NRD_FORM_TAGS, 2, NRD111_DROP, raised)
    if st != NS_OK or raised[0]:
        return st
    st = _nrd111_live(c, node, _NRD111_IFRAME, 1, NRD111_IFRAMES, raised)
    if st != NS_OK or raised[0]:
        return st
    # the conditional cleaning: an absolute XPath, from the top of node's tree
    n_ids = _nrd_ids(d, _NRD_CONDITIONAL, 7, ids)
    if n_ids == 0:
        return NS_OK
    top = node
    while d.nodes[top].parent >= 0:
        top = d.nodes[top].parent
    n_allowed = _nrd_ids(d, _NRD111_ALLOWED, 4, allowed_ids)
    ci.a_id = c.name[NG_A]
    ci.type_id = _cv_known(d, "type")
    ci.p_id = c.name[NG_P]
    ci.img_id = c.name[NG_IMG]
    ci.li_id = _cv_known(d, "li")
    ci.embed_id = _cv_known(d, "embed")
    ci.input_id = _cv_known(d, "input")
    ci.ol_id = _cv_known(d, "ol")
    ci.ul_id = _cv_known(d, "ul")
    snap = _nrd_snapshot(d, top, ids, n_ids, True, &n)
    allowed = <uchar*>_rd_alloc_nodes(d, 1)
    if snap == NULL or allowed == NULL:
        free(snap)
        free(allowed)
        d.error = ERR_MEMORY
        return NS_ERROR
    memset(allowed, 0, <size_t>d.n_nodes)
    for k in range(n - 1, -1, -1):
        i = snap[k]
        if allowed[i]:
            continue
        if not _nrd_class_weight(c, i, class_id, id_id, &weight):
            st = _nrd_need(NRD_ATTR)
            break
        score = r.score[r.slot[i]] if (i < r.n_nodes and r.slot[i] >= 0) else 0.0
        if <double>weight + score < 0.0:
            v = 1
        else:
            v = _rd_cond_verdict(d, i, weight, 25, &ci)
            if v == 2:
                # kept between long siblings: its tables, lists, divs and sections are exempt
                j = i
                while j >= 0:
                    if _id_in(d.nodes[j].tag, allowed_ids, n_allowed):
                        allowed[j] = 1
                    j = _preorder_next(d, j, i)
        if v == 1:
            st = _nrd_drop(d, i)
            if st == NS_NEED_PYTHON:
                raised[0] = True
                st = NS_OK
                break
            if st != NS_OK:
                break
    free(snap)
    free(allowed)
    return st


# upstream: trafilatura.readability_lxml.Document.summary
cdef int ng111_summary(NgCtx* c, int32_t doc, Buf* out, bint* raised) noexcept nogil:
    """Document(doc, min_text_length=25, retry_length=250).summary() of 1.11.0 as UTF-8 in
    ``out``: a ruthless pass, and a lenient one when it finds no candidate or its serialised
    article is shorter than 250 characters (then on that article). ``raised``: the reference
    raises on the way."""
    cdef DocData* d = c.d
    cdef RdScore r
    cdef int32_t best, ch, article = -1, cur = doc
    cdef bint ruthless = True
    cdef int st
    st = _nrd111_live(c, doc, _NRD111_SCRIPT_TAGS, 2, NRD111_DROP, raised)
    if st != NS_OK or raised[0]:
        return st
    while True:
        memset(&r, 0, sizeof(RdScore))
        if ruthless:
            st = ng_remove_unlikely_candidates(c, cur, raised)
        if st == NS_OK and not raised[0]:
            st = ng111_transform_misused_divs_into_paragraphs(c, cur, raised)
        if st == NS_OK and not raised[0]:
            st = ng_score_paragraphs(c, cur, &r)
        if st != NS_OK or raised[0]:
            _rd_score_free(&r)
            return st
        best = ng_select_best_candidate(&r)
        if best >= 0:
            st = ng_get_article(c, &r, best, &article)
        elif ruthless:
            ruthless = False
            _rd_score_free(&r)
            continue
        else:
            # self.doc.find("body"), else self.doc
            article = cur
            ch = d.nodes[cur].first
            while ch >= 0:
                if d.nodes[ch].tag == c.name[NG_BODY]:
                    article = ch
                    break
                ch = d.nodes[ch].next
        if st == NS_OK:
            st = ng111_rd_sanitize(c, &r, article, raised)
        _rd_score_free(&r)
        if st != NS_OK or raised[0]:
            return st
        out.len = 0
        if not _rd_xml_utf8_c(d, article, out):
            return NS_ERROR
        if ruthless and ngs_code_points(out.data, out.len) < 250:
            # the lenient pass runs on the article (sanitize set self.doc to it)
            ruthless = False
            cur = article
            continue
        return NS_OK


# upstream: trafilatura.external.try_readability
cdef int ng111_try_readability(NgCtx* c, int32_t raw, int32_t* out) noexcept nogil:
    """1.11.0's try_readability(raw): ``out`` the re-parsed summary (a node of ``c.d``), or a new
    <div> where readability raises. An empty re-parse (None upstream, then a TypeError that
    discards the page) answers NEED_PYTHON, as an XHTML doctype does."""
    cdef bint raised = False
    cdef int st
    cdef Buf buf
    out[0] = -1
    _nrd_set_cause(NRD_NONE)
    if _nrd_xhtml_doctype(c.d):
        return _nrd_need(NRD_XHTML)
    memset(&buf, 0, sizeof(Buf))
    st = ng111_summary(c, raw, &buf, &raised)
    if st == NS_OK and not raised:
        st = _nrd_reparse(c, buf.data, buf.len, out)
        if st == NS_OK and out[0] < 0:
            st = _nrd_need(NRD_NONE_TREE)
    buf_free(&buf)
    if st != NS_OK:
        return st
    if raised:
        out[0] = ng_new_element(c, NG_DIV, -1)
        if out[0] < 0:
            return NS_ERROR
    return NS_OK


# -- test hook (tests/test_core_nogil_readability.py) ------------------------------------------

def nogil_try_readability(CElement raw not None, list why not None):
    """ng_try_readability on ``raw``'s document (mutated as the reference mutates its input),
    inside ``with nogil``: the result (a proxy in raw's document), or None for NEED_PYTHON with
    its cause (a name of NRD_CAUSES) appended to ``why``; MemoryError for NS_ERROR."""
    cdef CDocument doc = raw.doc
    cdef NgCtx c
    cdef int32_t out = -1, idx = raw.idx
    cdef int r, cause
    doc._check(idx)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_try_readability(&c, idx, &out)
        ng_free(&c)
        cause = _nrd_get_cause()
    if r == NS_ERROR:
        _raise_doc_error(doc)
    if r != NS_OK:
        why.append(NRD_CAUSES[cause].decode() if 0 <= cause < NRD_N else str(cause))
        return None
    return _proxy(doc, out)
