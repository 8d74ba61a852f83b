# The preparation of the raw tree without the GIL (2.3.1).
#
#   ng_forum_thread_page   core._forum_thread_page (the JSON-LD DiscussionForumPosting test)
#   ng_tree_cleaning       htmlprocessing.tree_cleaning: recover_math, layout tables, the
#                          MANUALLY_STRIPPED strip, the MANUALLY_CLEANED deletions (lxml's live
#                          walk where matches nest), the recall branch's copy, _handle_forms,
#                          prune_html
#   ng_convert_tags        htmlprocessing.convert_tags (_convert_tags_core and the C passes of
#                          accel_convert.pxi's convert_tags_23 without their Python callbacks):
#                          convert_link (no base URL), convert_quotes, the sub/sup deletions,
#                          _images_out_of_links
#   ng_prepare_tree        core._prepare_tree without its copies (the caller's working copy is
#                          cleaned and converted in place; no backup)
#
# Each gives NS_OK / NS_NEED_PYTHON / NS_ERROR (nogil_select.pxi) and may leave the working
# document half-changed when it answers NEED_PYTHON. The causes of NEED_PYTHON here:
#   * a string lxml refuses would be written (ng_delete's joined tail, ng_set_slot for the
#     math tail, convert_link's target): the reference raises there;
#   * links on with a base URL (convert_link resolves relative URLs in Python);
#   * _images_out_of_links on a ref without a parent (addnext raises or unlinks there).
# Everything else is exact. The test wrappers (``nogil_<stage>``) are at the end
# (tests/test_core_nogil_prepare.py).

from libc.string cimport strcmp


cdef enum:
    NP_N_CLEANED = 51
    NP_N_STRIPPED = 23
    NP_N_CUT_EMPTY = 22
    NP_MAX_IDS = 64

# settings.MANUALLY_CLEANED, in its order (the deletion order)
cdef const char* _NP_CLEANED[NP_N_CLEANED]
_NP_CLEANED[:] = [
    b"aside", b"embed", b"fencedframe", b"footer", b"form", b"head", b"iframe", b"menu", b"object",
    b"script", b"applet", b"audio", b"canvas", b"figure", b"map", b"picture", b"svg", b"video",
    b"area", b"blink", b"button", b"datalist", b"dialog", b"frame", b"frameset", b"fieldset",
    b"link", b"input", b"label", b"legend", b"marquee", b"math", b"menuitem", b"nav", b"noindex",
    b"noscript", b"optgroup", b"option", b"output", b"param", b"progress", b"rp", b"rt", b"rtc",
    b"select", b"source", b"style", b"track", b"textarea", b"time", b"use"]

# settings.MANUALLY_STRIPPED
cdef const char* _NP_STRIPPED[NP_N_STRIPPED]
_NP_STRIPPED[:] = [
    b"abbr", b"acronym", b"address", b"bdi", b"bdo", b"big", b"cite", b"data", b"dfn", b"font",
    b"hgroup", b"img", b"ins", b"mark", b"meta", b"nobr", b"ruby", b"small", b"tbody", b"template",
    b"tfoot", b"thead", b"wbr"]

# 1.11.0's settings.MANUALLY_CLEANED and MANUALLY_STRIPPED (CUT_EMPTY_ELEMS is the same)
cdef enum:
    NP_N_CLEANED_111 = 50
    NP_N_STRIPPED_111 = 21

cdef const char* _NP_CLEANED_111[NP_N_CLEANED_111]
_NP_CLEANED_111[:] = [
    b"aside", b"embed", b"footer", b"form", b"head", b"iframe", b"menu", b"object", b"script",
    b"applet", b"audio", b"canvas", b"figure", b"map", b"picture", b"svg", b"video", b"area",
    b"blink", b"button", b"datalist", b"dialog", b"frame", b"frameset", b"fieldset", b"link",
    b"input", b"ins", b"label", b"legend", b"marquee", b"math", b"menuitem", b"nav", b"noscript",
    b"optgroup", b"option", b"output", b"param", b"progress", b"rp", b"rt", b"rtc", b"select",
    b"source", b"style", b"track", b"textarea", b"time", b"use"]

cdef const char* _NP_STRIPPED_111[NP_N_STRIPPED_111]
_NP_STRIPPED_111[:] = [
    b"abbr", b"acronym", b"address", b"bdi", b"bdo", b"big", b"cite", b"data", b"dfn", b"font",
    b"hgroup", b"img", b"ins", b"mark", b"meta", b"ruby", b"small", b"tbody", b"template",
    b"tfoot", b"thead"]

# settings.CUT_EMPTY_ELEMS
cdef const char* _NP_CUT_EMPTY[NP_N_CUT_EMPTY]
_NP_CUT_EMPTY[:] = [
    b"article", b"b", b"blockquote", b"dd", b"div", b"dt", b"em", b"h1", b"h2", b"h3", b"h4",
    b"h5", b"h6", b"i", b"li", b"main", b"p", b"pre", b"q", b"section", b"span", b"strong"]


cdef inline bint _np_streq(const char* a, const char* b) noexcept nogil:
    return strcmp(a, b) == 0


cdef int _np_known_ids(DocData* d, const char** names, int n, int32_t* ids, int at) noexcept nogil:
    "Append to ids[at:] the ids of the names the document knows (in order): the new count."
    cdef int k
    cdef int32_t nid
    for k in range(n):
        nid = _cv_known(d, names[k])
        if nid >= 0 and at < NP_MAX_IDS:
            ids[at] = nid
            at += 1
    return at


cdef inline bint _np_attr_eq(DocData* d, int32_t i, int32_t nid, const char* lit) noexcept nogil:
    "``el.get(name) == lit``."
    cdef const uchar* v
    cdef Py_ssize_t n, m = <Py_ssize_t>strlen(lit)
    if not dom_attr_get(d, i, nid, &v, &n):
        return False
    return n == m and (m == 0 or memcmp(v, lit, <size_t>m) == 0)


cdef Py_ssize_t _np_trim(const uchar* s, Py_ssize_t n, uchar* out) noexcept nogil:
    """utils.trim (``" ".join(s.split()).strip()``, str.isspace whitespace) of s[:n] into out
    (room for n bytes): the length written."""
    cdef Py_ssize_t i = 0, o = 0, w
    cdef bint gap = False
    while i < n:
        w = _space_at(s, i, n)
        if w:
            gap = o > 0
            i += w
            continue
        if gap:
            out[o] = 32
            o += 1
            gap = False
        out[o] = s[i]
        o += 1
        i += 1
    return o


cdef bint _np_has_nonspace(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0, w
    while i < n:
        w = _space_at(s, i, n)
        if not w:
            return True
        i += w
    return False


cdef bint _np_content_nonspace(DocData* d, int32_t top) noexcept nogil:
    "``text_content(top).strip()`` is not empty (top's text, its descendants' texts and tails)."
    cdef int32_t s = top
    cdef Node* nd = &d.nodes[top]
    if nd.text_off >= 0 and _np_has_nonspace(d.text.data + nd.text_off, nd.text_len):
        return True
    s = nd.first
    while s >= 0:
        nd = &d.nodes[s]
        if nd.text_off >= 0 and _np_has_nonspace(d.text.data + nd.text_off, nd.text_len):
            return True
        if nd.first >= 0:
            s = nd.first
            continue
        while True:
            nd = &d.nodes[s]
            if nd.tail_off >= 0 and _np_has_nonspace(d.text.data + nd.tail_off, nd.tail_len):
                return True
            if nd.next >= 0:
                s = nd.next
                break
            s = nd.parent
            if s == top:
                return False
    return False


cdef bint _np_has_desc(DocData* d, int32_t top, int32_t tag) noexcept nogil:
    "``next(iter_desc(top, tag), None) is not None``."
    cdef int32_t i
    if tag < 0:
        return False
    i = d.nodes[top].first
    while i >= 0:
        if d.nodes[i].tag == tag:
            return True
        i = dom_preorder_next(d, i, top)
    return False


cdef int _np_inline(NgCtx* c, int kind, NsInline* out) noexcept nogil:
    """nogil_select.pxi's inline selection ``kind`` (NI_TEX or NI_HLJS) resolved without the GIL:
    its names interned first, so that the ids hold whatever the stages write later."""
    cdef DocData* d = c.d
    cdef int32_t tag, attr
    memset(out, 0, sizeof(NsInline))
    out.kind = kind
    out.div = -1
    if kind == NI_TEX:
        tag = _cv_name(d, "annotation")
        attr = _cv_name(d, "encoding")
    elif kind == NI_HLJS:
        tag = _cv_name(d, "span")
        attr = _cv_name(d, "class")
    else:
        return NS_ERROR
    if tag < 0 or attr < 0:
        return NS_ERROR
    out.n_tags = 1
    out.tags[0] = tag
    out.attr = attr
    out.none = 0
    return NS_OK


# -- core._forum_thread_page ------------------------------------------------------------------

cdef int ng_forum_thread_page(NgCtx* c, int32_t root, bint* out) noexcept nogil:
    """``any(script.text and _DISCUSSION_FORUM_POSTING_RE.search(script.text) for script in
    select_tags(tree, {"script"}) if script.get("type") == "application/ld+json")``: the
    descendants of ``root`` only; the regex is nogil_text.pxi's exact twin. Always NS_OK."""
    cdef DocData* d = c.d
    cdef int32_t script = _cv_known(d, "script"), typ = _cv_known(d, "type"), i
    cdef Node* nd
    out[0] = False
    if script < 0 or typ < 0:
        return NS_OK
    i = d.nodes[root].first
    while i >= 0:
        nd = &d.nodes[i]
        if nd.tag == script and nd.text_off >= 0 and nd.text_len > 0 \
                and _np_attr_eq(d, i, typ, "application/ld+json"):
            if discussion_forum_posting_search_utf8(d.text.data + nd.text_off, nd.text_len):
                out[0] = True
                return NS_OK
        i = dom_preorder_next(d, i, root)
    return NS_OK


# -- htmlprocessing.recover_math -------------------------------------------------------------------

cdef int ng_recover_math(NgCtx* c, int32_t root) noexcept nogil:
    """For each math of ``root``'s subtree (itself included; only tails change, so a walk of
    the live tree meets the snapshot's elements): the trimmed text of its first x-tex
    annotation, else of its alttext, wrapped in \\[ \\] (display=block) or \\( \\), before
    its tail (``xml_text``: NEED_PYTHON for a character lxml refuses)."""
    cdef DocData* d = c.d
    cdef int32_t math = c.name[NG_MATH], i, ann
    cdef int32_t alttext = _cv_known(d, "alttext"), display = _cv_known(d, "display")
    cdef NsInline tex
    cdef NsVec v
    cdef const uchar* src
    cdef Py_ssize_t n, m, tail_n, total
    cdef uchar* buf
    cdef int r = NS_OK
    cdef bint block
    if _np_inline(c, NI_TEX, &tex) != NS_OK:
        return NS_ERROR
    nsv_init(&v)
    i = root
    while i >= 0:
        if d.nodes[i].tag == math:
            v.len = 0
            r = ns_select_inline(d, i, &tex, &v)
            if r != NS_OK:
                break
            if v.len > 0:
                ann = v.data[0]
                src = d.text.data + d.nodes[ann].text_off if d.nodes[ann].text_off >= 0 else NULL
                n = d.nodes[ann].text_len if d.nodes[ann].text_off >= 0 else 0
            elif not dom_attr_get(d, i, alttext, &src, &n):
                n = 0
            if n == 0:
                i = dom_preorder_next(d, i, root)
                continue
            block = _np_attr_eq(d, i, display, "block")
            tail_n = d.nodes[i].tail_len if d.nodes[i].tail_off >= 0 else 0
            total = n + 4 + tail_n
            buf = NULL if alloc_fails() else <uchar*>malloc(<size_t>total + 1)
            if buf == NULL:
                d.error = ERR_MEMORY
                r = NS_ERROR
                break
            m = _np_trim(src, n, buf + 2)
            if m > 0:
                buf[0] = 92                      # '\'
                buf[1] = 91 if block else 40     # '[' / '('
                buf[2 + m] = 92
                buf[3 + m] = 93 if block else 41
                if tail_n:
                    memcpy(buf + 4 + m, d.text.data + d.nodes[i].tail_off, <size_t>tail_n)
                r = ng_set_slot(d, i, True, buf, 4 + m + tail_n, False)
            free(buf)
            if r != NS_OK:
                break
        i = dom_preorder_next(d, i, root)
    nsv_free(&v)
    return r


# -- tree_cleaning's deletions: for tag in cleaning_list: for el in tree.iter(tag): delete_element(el)

cdef inline int32_t _np_next_match(DocData* d, int32_t i, int32_t top, int32_t tag) noexcept nogil:
    "The next node of the live walk ``top.iter(tag)`` after ``i`` (trafila.dom's lookahead)."
    i = dom_traverse_next(d, i, top)
    while i >= 0 and d.nodes[i].tag != tag:
        i = dom_traverse_next(d, i, top)
    return i


cdef int _np_live_delete(NgCtx* c, int32_t root, int32_t tag) noexcept nogil:
    """lxml's live ``for el in root.iter(tag): delete_element(el)``: the next match is fetched
    when the current one is handed out, before its deletion (inside a deleted subtree the walk
    goes on below it, then stops at the detached subtree's end)."""
    cdef DocData* d = c.d
    cdef int32_t i, nxt
    cdef int r
    i = root if d.nodes[root].tag == tag else _np_next_match(d, root, root, tag)
    while i >= 0:
        nxt = _np_next_match(d, i, root, tag)
        r = ng_delete(d, i, True)
        if r != NS_OK:
            return r
        i = nxt
    return NS_OK


cdef int _np_delete_by_tags(NgCtx* c, int32_t root, int32_t* ids, int n) noexcept nogil:
    """accel_convert.pxi's delete_by_tags_once without the GIL: one snapshot of every match
    (document order); per tag, in the list's order, the matches still under ``root`` are
    deleted in order when none holds another (and ``root`` itself does not match: lxml's walk
    then meets exactly them), else the live walk runs (_np_live_delete)."""
    cdef DocData* d = c.d
    cdef int32_t* arr = NULL
    cdef int32_t count = 0, j, i, a, nid, start
    cdef int t, r = NS_OK
    cdef bint nested, same
    if n == 0:
        return NS_OK
    if _cv_snapshot(d, root, ids, n, &arr, &count) < 0:
        return NS_ERROR
    start = 1 if count > 0 and arr[0] == root else 0
    for t in range(n):
        nid = ids[t]
        if d.nodes[root].tag == nid:
            r = _np_live_delete(c, root, nid)
            if r != NS_OK:
                break
            continue
        nested = False
        for j in range(start, count):
            i = arr[j]
            if d.nodes[i].tag != nid:
                continue
            same = False
            a = d.nodes[i].parent
            while a >= 0 and a != root:
                if d.nodes[a].tag == nid:
                    same = True
                a = d.nodes[a].parent
            if a == root and same:
                nested = True
                break
        if nested:
            r = _np_live_delete(c, root, nid)
            if r != NS_OK:
                break
            continue
        for j in range(start, count):
            i = arr[j]
            if d.nodes[i].tag != nid:
                continue
            a = d.nodes[i].parent
            while a >= 0 and a != root:
                a = d.nodes[a].parent
            if a == root:
                r = ng_delete(d, i, True)
                if r != NS_OK:
                    break
        if r != NS_OK:
            break
    free(arr)
    return r


# -- _handle_forms and prune_html ----------------------------------------------------------------

cdef int _np_handle_forms(NgCtx* c, int32_t root) noexcept nogil:
    """2.3.1 _handle_forms: over the forms of ``root`` (itself included) in document order, a
    form holding more than half of ``root``'s text (counted once, before) becomes a div, the
    others are deleted."""
    cdef DocData* d = c.d
    cdef int32_t form = _cv_known(d, "form")
    cdef int32_t* arr = NULL
    cdef int32_t count = 0, k, i
    cdef int64_t total
    cdef int r = NS_OK
    if form < 0:
        return NS_OK
    if _cv_snapshot(d, root, &form, 1, &arr, &count) < 0:
        return NS_ERROR
    if count == 0:
        return NS_OK
    total = _cv_text_length(d, root)
    for k in range(count):
        i = arr[k]
        # len(text_content(form)) > total / 2, in integers
        if total and 2 * _cv_text_length(d, i) > total:
            d.nodes[i].tag = c.name[NG_DIV]
        else:
            r = ng_delete(d, i, True)
            if r != NS_OK:
                break
    free(arr)
    return r


cdef int ng_prune_html(NgCtx* c, int32_t root) noexcept nogil:
    """htmlprocessing.prune_html(root, focus): the CUT_EMPTY_ELEMS descendants with no text
    (None) and no child, collected first, then deleted in document order (their tails kept
    but in precision)."""
    cdef DocData* d = c.d
    cdef int32_t ids[NP_MAX_IDS]
    cdef int n = _np_known_ids(d, _NP_CUT_EMPTY, NP_N_CUT_EMPTY, ids, 0)
    cdef NsVec v
    cdef int32_t i
    cdef Py_ssize_t k
    cdef int r = NS_OK
    cdef TagSet ts
    # 1.11.0: delete_element keeps the tail on every focus (its XPath is absolute, and the
    # caller passes the document's root: the root itself, never deleted, is the one extra node)
    cdef bint tails = c.o.focus != NG_PRECISION or c.o.release == NG_REL_111
    cdef int32_t top
    cdef int t, n_tops = 1
    if n == 0:
        return NS_OK
    if c.o.release == NG_REL_111 and _s1_in_doc(c, root):
        # 1.11.0's //*[not(node())] is absolute: every top-level element of root's document
        n_tops = c.n_doc_roots
    tagset_init(&ts, False, ids, n)
    nsv_init(&v)
    for t in range(n_tops):
        top = c.doc_roots[t] if n_tops > 1 or (c.tree_detached and root == c.detached_tree) else root
        i = d.nodes[top].first
        while i >= 0:
            if tag_matches(&ts, d.nodes[i].tag) and d.nodes[i].text_off < 0 and d.nodes[i].first < 0:
                if nsv_push(&v, i) < 0:
                    d.error = ERR_MEMORY
                    r = NS_ERROR
                    break
            i = dom_preorder_next(d, i, top)
        if r != NS_OK:
            break
    if r == NS_OK:
        for k in range(v.len):
            r = ng_delete(d, v.data[k], tails)
            if r != NS_OK:
                break
    nsv_free(&v)
    return r


# -- htmlprocessing.tree_cleaning --------------------------------------------------------------

cdef bint _np_preserved_img(const char* name) noexcept nogil:
    "PRESERVE_IMG_CLEANING"
    return _np_streq(name, "figure") or _np_streq(name, "picture") or _np_streq(name, "source")


cdef int ng_tree_cleaning(NgCtx* c, int32_t root) noexcept nogil:
    """htmlprocessing.tree_cleaning(root, options from c.o), in place. Where the reference
    returns its recall copy (taken before the deletions, which left no <p>), ``root`` takes the
    copy's place: its text, tail and children become the copy's (its tag and attributes are the
    copy's already: the deletions change neither), so the caller's index stays the tree (for
    a parentless root, as the sequence's copies are, that is the reference's result)."""
    return _np_tree_cleaning(c, root, NULL)


cdef int _np_tree_cleaning(NgCtx* c, int32_t root, int32_t* result) noexcept nogil:
    """ng_tree_cleaning, or with ``result``: the tree the reference returns, the recall copy
    itself (a parentless node of the same document, as the reference's copy_tree is a
    document's root) where it goes back to it, else ``root``; the form handling and the
    empty-element pruning then run on that tree."""
    cdef DocData* d = c.d
    cdef int32_t clean[NP_MAX_IDS]
    cdef int32_t strip[NP_MAX_IDS]
    cdef int n_clean = 0, n_strip = 0, k, r
    cdef int32_t nid, p, a, g, tcopy = -1, para = c.name[NG_P]
    cdef TagSet ts
    cdef bint need_copy, in_doc
    cdef bint v1 = c.o.release == NG_REL_111
    cdef const char** cleaned_names = &_NP_CLEANED[0]
    cdef const char** stripped_names = &_NP_STRIPPED[0]
    cdef int n_cleaned_names = NP_N_CLEANED
    cdef int n_stripped_names = NP_N_STRIPPED
    if v1:
        cleaned_names = &_NP_CLEANED_111[0]
        stripped_names = &_NP_STRIPPED_111[0]
        n_cleaned_names = NP_N_CLEANED_111
        n_stripped_names = NP_N_STRIPPED_111
    if not v1:
        r = ng_recover_math(c, root)
        if r != NS_OK:
            return r
    # the cleaning list: MANUALLY_CLEANED without form (2.3.1: handled after; 1.11.0 deletes it
    # with the others), with the table tags when tables are off, without PRESERVE_IMG_CLEANING
    # with images
    for k in range(n_cleaned_names):
        if not v1 and _np_streq(cleaned_names[k], "form"):
            continue
        if c.o.images and _np_preserved_img(cleaned_names[k]):
            continue
        n_clean = _np_known_ids(d, &cleaned_names[k], 1, clean, n_clean)
    if not c.o.tables:
        for k in range(4):
            nid = _cv_known(d, "table" if k == 0 else "td" if k == 1 else "th" if k == 2 else "tr")
            if nid >= 0:
                clean[n_clean] = nid
                n_clean += 1
    elif not _cv_layout_tables(d, root, v1):
        return NS_ERROR
    for k in range(n_stripped_names):
        if c.o.images and _np_streq(stripped_names[k], "img"):
            continue
        n_strip = _np_known_ids(d, &stripped_names[k], 1, strip, n_strip)
    if n_strip:
        tagset_init(&ts, False, strip, n_strip)
        if not dom_strip_tags(d, root, &ts):
            return NS_ERROR
    # recall: a copy to go back to if the deletions remove every paragraph, taken when every
    # <p> (root included) has an ancestor of the cleaning list other than root
    if c.o.focus == NG_RECALL and _np_has_desc(d, root, para):
        # 1.11.0: whenever the tree has a <p>
        need_copy = True
        p = root
        while p >= 0 and need_copy and not v1:
            if d.nodes[p].tag == para:
                a = d.nodes[p].parent
                while a >= 0 and not _id_in(d.nodes[a].tag, clean, n_clean):
                    a = d.nodes[a].parent
                if a < 0 or a == root:
                    need_copy = False
            p = dom_preorder_next(d, p, root)
        if need_copy:
            tcopy = ng_copy_subtree(d, root, True)
            if tcopy < 0:
                return NS_ERROR
    # 1.11.0: the page's tree itself of the cleaning list (tree.iter() starts with it) leaves its
    # document; prune_html's absolute XPath then walks the document without it (_s1_in_doc)
    in_doc = v1 and c.n_doc_roots > 0 and d.nodes[root].parent >= 0 and _s1_in_doc(c, root)
    r = _np_delete_by_tags(c, root, clean, n_clean)
    if r != NS_OK:
        return r
    if in_doc and d.nodes[root].parent < 0:
        c.detached_tree = root
        c.tree_detached = True
    if result != NULL:
        result[0] = root
    if tcopy >= 0 and not _np_has_desc(d, root, para) and result != NULL:
        root = tcopy
        result[0] = tcopy
    elif tcopy >= 0 and not _np_has_desc(d, root, para):
        # tree = tcopy, kept at root's index
        ng_share_slot(d, root, False, tcopy, False)
        ng_share_slot(d, root, True, tcopy, True)
        dom_clear_children(d, root)
        g = d.nodes[tcopy].first
        while g >= 0:
            dom_unlink(d, g)
            dom_link_before(d, root, g, -1)
            g = d.nodes[tcopy].first
    if not v1:
        r = _np_handle_forms(c, root)
        if r != NS_OK:
            return r
    return ng_prune_html(c, root)


# -- htmlprocessing.convert_tags ------------------------------------------------------------------

cdef int _np_convert_links(NgCtx* c, int32_t root) noexcept nogil:
    """``for elem in tree.iter("a", "ref"): convert_link(elem, None)`` (accel_convert.pxi's
    _cv_links_on): NEED_PYTHON for an href holding a character lxml refuses."""
    cdef int r = _cv_links_on(c.d, root)
    if r < 0:
        if not c.d.error:
            c.d.error = ERR_MEMORY
        return NS_ERROR
    return NS_OK if r == 1 else NS_NEED_PYTHON


cdef struct NgLinkMap:
    # href bytes (as the document stores them) -> the UTF-8 of fix_relative_urls(base_url, href),
    # sorted by key as Python sorts bytes
    Py_ssize_t n
    const uchar** keys
    Py_ssize_t* key_len
    const uchar** vals
    Py_ssize_t* val_len


cdef Py_ssize_t _np_link_find(const NgLinkMap* m, const uchar* k, Py_ssize_t kn) noexcept nogil:
    "The index of key ``k`` in ``m`` (binary search in bytes order), -1 if absent."
    cdef Py_ssize_t lo = 0, hi = m.n - 1, mid, ln
    cdef int cmp
    while lo <= hi:
        mid = (lo + hi) // 2
        ln = m.key_len[mid]
        cmp = memcmp(m.keys[mid], k, <size_t>(ln if ln < kn else kn)) if (ln and kn) else 0
        if cmp == 0:
            cmp = -1 if ln < kn else 1 if ln > kn else 0
        if cmp == 0:
            return mid
        if cmp < 0:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


# upstream: trafilatura.htmlprocessing.convert_tags
cdef int ng111_convert_link_tags(NgCtx* c, int32_t root) noexcept nogil:
    """1.11.0's convert_tags with links and a base URL: every a and ref (root included) becomes
    ref with only its href, when not empty, as target, resolved as fix_relative_urls(base_url,
    href) (c.link_map, made with the GIL). NEED_PYTHON for an href the map lacks."""
    cdef DocData* d = c.d
    cdef const NgLinkMap* m = <const NgLinkMap*>c.link_map
    cdef int32_t a = _cv_known(d, "a"), ref = _cv_known(d, "ref"), href = _cv_known(d, "href")
    cdef int32_t target = -1, i, k
    cdef Attr* at
    cdef const uchar* v
    cdef Py_ssize_t n, j
    cdef int pass_
    if a < 0 and ref < 0:
        return NS_OK
    for pass_ in range(2):      # every href in the map first, then the conversion
        i = root
        while i >= 0:
            if d.nodes[i].tag >= 0 and (d.nodes[i].tag == a or d.nodes[i].tag == ref):
                k = dom_attr_find(d, i, href) if href >= 0 else -1
                at = &d.attrs[k] if k >= 0 else NULL
                v = NULL
                n = 0
                if at != NULL and at.kind == AV_VALUE and at.val_len > 0:
                    v = <const uchar*>d.vals.data + at.val_off
                    n = at.val_len
                elif at != NULL and at.kind == AV_OWN_NAME:
                    v = name_bytes(d, at.name, &n)
                j = _np_link_find(m, v, n) if v != NULL else -1
                if pass_ == 0:
                    if v != NULL and j < 0:
                        return NS_NEED_PYTHON
                else:
                    if ref < 0:
                        ref = _cv_name(d, "ref")
                        if ref < 0:
                            return NS_ERROR
                    d.nodes[i].tag = ref
                    d.nodes[i].attr_count = 0
                    if v != NULL:
                        if target < 0:
                            target = _cv_name(d, "target")
                            if target < 0:
                                return NS_ERROR
                        if not dom_attr_set(d, i, target, AV_VALUE, m.vals[j], m.val_len[j]):
                            d.error = ERR_MEMORY
                            return NS_ERROR
            i = dom_preorder_next(d, i, root)
    return NS_OK


cdef int _np_sub_sup(NgCtx* c, int32_t root) noexcept nogil:
    """``for elem in tree.iter("sub", "sup"): if not elem.text and len(elem) == 0:
    delete_element(elem)``: only childless elements go, after the walk has passed them, so a
    snapshot meets the same ones."""
    cdef DocData* d = c.d
    cdef int32_t ids[2]
    cdef int n = 0, r = NS_OK
    cdef int32_t* arr
    cdef int32_t count, k, i
    n = _cv_add(ids, n, _cv_known(d, "sub"))
    n = _cv_add(ids, n, _cv_known(d, "sup"))
    if n == 0:
        return NS_OK
    if _cv_snapshot(d, root, ids, n, &arr, &count) < 0:
        return NS_ERROR
    for k in range(count):
        i = arr[k]
        if d.nodes[i].text_len == 0 and d.nodes[i].first < 0:
            r = ng_delete(d, i, True)
            if r != NS_OK:
                break
    free(arr)
    return r


cdef int ng_convert_quotes(NgCtx* c, int32_t el, const NsInline* hljs, NsVec* v) noexcept nogil:
    """htmlprocessing.convert_quotes for a pre: its hljs spans lose their attributes; it
    becomes code when it has one child, a span, or hljs spans, or a CODE_INDICATORS string in
    its text; else quote. ``v``: a scratch vector."""
    cdef DocData* d = c.d
    cdef Node* nd
    cdef Py_ssize_t k
    cdef const uchar* s
    cdef Py_ssize_t n
    cdef bint is_code
    cdef int r
    v.len = 0
    r = ns_select_inline(d, el, hljs, v)
    if r != NS_OK:
        return r
    for k in range(v.len):
        d.nodes[v.data[k]].attr_count = 0
    nd = &d.nodes[el]
    is_code = (nd.first >= 0 and nd.first == nd.last and d.nodes[nd.first].tag == c.name[NG_SPAN]) or v.len > 0
    if not is_code and nd.text_off >= 0 and c.o.release != NG_REL_111:
        s = d.text.data + nd.text_off
        n = nd.text_len
        is_code = (_cv_contains(s, n, "{", 1) or _cv_contains(s, n, "(\"", 2) or _cv_contains(s, n, "('", 2)
                   or _cv_contains(s, n, "\n    ", 5))
    nd.tag = c.name[NG_CODE] if is_code else c.name[NG_QUOTE]
    return NS_OK


cdef int _np_images_out_of_links(NgCtx* c, int32_t root) noexcept nogil:
    """htmlprocessing._images_out_of_links: per ref of ``root`` (itself included, a snapshot),
    its graphics move after it (the last first: addnext keeps their order), and a ref that had
    some and is left without text goes. NEED_PYTHON for a ref without a parent (addnext
    raises or leaves the graphic unlinked there)."""
    cdef DocData* d = c.d
    cdef int32_t ref = c.name[NG_REF], graphic = c.name[NG_GRAPHIC]
    cdef int32_t* refs = NULL
    cdef int32_t n_refs = 0, k, rf, g, parent
    cdef NsVec gs
    cdef Py_ssize_t j
    cdef int r = NS_OK
    if _cv_snapshot(d, root, &ref, 1, &refs, &n_refs) < 0:
        return NS_ERROR
    nsv_init(&gs)
    for k in range(n_refs):
        rf = refs[k]
        gs.len = 0
        g = d.nodes[rf].first
        while g >= 0:
            if d.nodes[g].tag == graphic and nsv_push(&gs, g) < 0:
                d.error = ERR_MEMORY
                r = NS_ERROR
                break
            g = dom_preorder_next(d, g, rf)
        if r != NS_OK or gs.len == 0:
            if r != NS_OK:
                break
            continue
        parent = d.nodes[rf].parent
        if parent < 0:
            r = NS_NEED_PYTHON
            break
        j = gs.len - 1
        while j >= 0:
            g = gs.data[j]
            dom_unlink(d, g)
            dom_link_before(d, parent, g, d.nodes[rf].next)
            j -= 1
        if not _np_content_nonspace(d, rf):
            r = ng_delete(d, rf, True)
            if r != NS_OK:
                break
    nsv_free(&gs)
    free(refs)
    return r


cdef int ng_convert_tags(NgCtx* c, int32_t root, bint base_url) noexcept nogil:
    """htmlprocessing.convert_tags(root, options from c.o, url) as _convert_tags_core runs it;
    ``base_url``: ``url and safe_base_url(url)`` is true (links then resolve in Python:
    NEED_PYTHON when c.o.links)."""
    cdef DocData* d = c.d
    cdef CvIds cv
    cdef int32_t ids[24]
    cdef int n, r = NS_OK
    cdef int32_t* arr = NULL
    cdef int32_t count = 0, k
    cdef NsInline hljs
    cdef NsVec v
    cdef bint v1 = c.o.release == NG_REL_111
    if c.o.links:
        if base_url:
            if not v1 or c.link_map == NULL:
                # 2.3.1's safe_relative_url stays in Python
                return NS_NEED_PYTHON
            # 1.11.0: courlan's fix_relative_urls, resolved before the run (c.link_map)
            r = ng111_convert_link_tags(c, root)
        else:
            r = _np_convert_links(c, root)
        if r != NS_OK:
            return r
    elif not _cv_links_off(d, root, c.o.tables, v1):
        return NS_ERROR
    if not v1:
        # 2.3.1 only: FAQ questions to heads, empty sub/sup out
        if not _cv_faq(d, root):
            return NS_ERROR
        r = _np_sub_sup(c, root)
        if r != NS_OK:
            return r
    if not _cv_formatting(d, root, c.o.formatting):
        return NS_ERROR
    n = _cv_conversion_ids(d, &cv, ids)
    if n > 0:
        if _cv_snapshot(d, root, ids, n, &arr, &count) < 0:
            return NS_ERROR
        if _np_inline(c, NI_HLJS, &hljs) != NS_OK:
            free(arr)
            return NS_ERROR
        nsv_init(&v)
        for k in range(count):
            r = _cv_convert_one(d, arr[k], &cv)
            if r == 0:
                r = ng_convert_quotes(c, arr[k], &hljs, &v)
                if r != NS_OK:
                    break
            elif r < 0:
                r = NS_ERROR
                break
            else:
                r = NS_OK
        nsv_free(&v)
        free(arr)
        if r != NS_OK:
            return r
    if c.o.images:
        if not _cv_images(d, root):
            return NS_ERROR
        if c.o.links and not v1:
            # 2.3.1 only: images out of links
            return _np_images_out_of_links(c, root)
    return NS_OK


# -- core._prepare_tree --------------------------------------------------------------------------

cdef int ng_prepare_tree(NgCtx* c, int32_t root, bint base_url) noexcept nogil:
    """core._prepare_tree without its copies: tree_cleaning then convert_tags on ``root`` (the
    caller's working copy), in place; ``base_url`` as for ng_convert_tags."""
    cdef int r = ng_tree_cleaning(c, root)
    if r != NS_OK:
        return r
    return ng_convert_tags(c, root, base_url)


# -- test wrappers (tests/test_core_nogil_prepare.py) ----------------------------------------

cdef _np_options(NgCtx* c, object options):
    focus = options.focus
    c.o.focus = NG_RECALL if focus == "recall" else NG_PRECISION if focus == "precision" else NG_BALANCED
    c.o.fast = bool(options.fast)
    c.o.comments = bool(options.comments)
    c.o.tables = bool(options.tables)
    c.o.formatting = bool(options.formatting)
    c.o.links = bool(options.links)
    c.o.base_url = c.o.links and _np_base_url(getattr(options, "url", None))
    c.o.has_url = getattr(options, "url", None) is not None
    c.o.images = bool(options.images)
    c.o.dedup = bool(options.dedup)


cdef bint _np_base_url(object url):
    if not url:
        return False
    from trafila.v2_3_1.utils import safe_base_url
    return bool(safe_base_url(url))


def nogil_tree_cleaning(CElement tree not None, options):
    """ng_tree_cleaning on ``tree`` with ``options`` (a settings.Extractor): ``tree``, None for
    NEED_PYTHON."""
    cdef CDocument doc = tree.doc
    cdef NgCtx c
    cdef int r
    doc._check(tree.idx)
    with nogil:
        r = ng_init(&c, &doc.d)
    if r == NS_OK:
        _np_options(&c, options)
        with nogil:
            r = ng_tree_cleaning(&c, tree.idx)
    with nogil:
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return None if r != NS_OK else tree


def nogil_convert_tags(CElement tree not None, options, url=None):
    """ng_convert_tags on ``tree``: True done, False NEED_PYTHON."""
    cdef CDocument doc = tree.doc
    cdef NgCtx c
    cdef int r
    cdef bint base = _np_base_url(url)
    doc._check(tree.idx)
    with nogil:
        r = ng_init(&c, &doc.d)
    if r == NS_OK:
        _np_options(&c, options)
        with nogil:
            r = ng_convert_tags(&c, tree.idx, base)
    with nogil:
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return r == NS_OK


def nogil_prepare_tree(CElement tree not None, options, url=None):
    """ng_prepare_tree on ``tree``: ``tree``, None for NEED_PYTHON."""
    cdef CDocument doc = tree.doc
    cdef NgCtx c
    cdef int r
    cdef bint base = _np_base_url(url)
    doc._check(tree.idx)
    with nogil:
        r = ng_init(&c, &doc.d)
    if r == NS_OK:
        _np_options(&c, options)
        with nogil:
            r = ng_prepare_tree(&c, tree.idx, base)
    with nogil:
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return None if r != NS_OK else tree


def nogil_forum_thread_page(CElement tree not None):
    "ng_forum_thread_page on ``tree``: True / False."
    cdef CDocument doc = tree.doc
    cdef NgCtx c
    cdef int r
    cdef bint out = False
    doc._check(tree.idx)
    with nogil:
        r = ng_init(&c, &doc.d)
        if r == NS_OK:
            r = ng_forum_thread_page(&c, tree.idx, &out)
        ng_free(&c)
    if r == NS_ERROR:
        _raise_doc_error(doc)
    return None if r != NS_OK else out


def nogil_prepare_lists():
    "The name lists the C stages hold: (MANUALLY_CLEANED, MANUALLY_STRIPPED, CUT_EMPTY_ELEMS) as str lists."
    cdef int k
    return ([_NP_CLEANED[k].decode() for k in range(NP_N_CLEANED)],
            [_NP_STRIPPED[k].decode() for k in range(NP_N_STRIPPED)],
            [_NP_CUT_EMPTY[k].decode() for k in range(NP_N_CUT_EMPTY)])
