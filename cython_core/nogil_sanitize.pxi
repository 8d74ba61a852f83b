# external.sanitize_tree (2.3.1) without the GIL: the clean-up of readability's output when
# compare_extraction adopts it.
#
#   ng_sanitize_tree   tree_cleaning (ng_tree_cleaning), strip_tags of span and a,
#                      convert_tags (ng_convert_tags), the th head rows, td/th/tr as cell/row,
#                      every tag outside TEI_VALID_TAGS stripped, and
#                      ``trim(" ".join(tree.itertext()))`` as UTF-8 with its length in code points
#
# The input is readability's result: an element of a re-parsed document (html/body ancestors,
# maybe a tail) or a parentless element; the stage works on it in place, in its own document.
# With focus recall, where tree_cleaning returns its copy (the deletions left no <p>), the rest
# runs on that copy, a parentless node of the same document, and ``*out`` is it, as the
# reference's result is the copy (a new document's root) and not the tree it was given.
# NEED_PYTHON (the caller runs the reference on the untouched page), by cause:
#   * xml-text: a string lxml refuses would be written (a joined tail of a deletion, a math
#     tail): the reference raises ValueError there;
#   * links: options.links with a URL that has a base URL (c.o.base_url: convert_link resolves
#     targets against it with courlan's urljoin, which stays in Python); links without one are
#     converted in C (convert_link(elem, None));
#   * graphic: a graphic element after convert_tags with options.url set (c.o.has_url:
#     main_extractor.handle_image joins its source with urljoin, which stays in Python); without
#     a URL the graphics go through nogil_extract.pxi's ng_handle_image.
# Everything else is exact. The test wrapper ``nogil_sanitize_tree`` is at the end
# (tests/test_core_nogil_sanitize.py).


cdef enum:
    NSZ_WHY_NONE = 0
    NSZ_WHY_XML = 1
    NSZ_WHY_LINKS = 2
    NSZ_WHY_GRAPHIC = 3
    NSZ_N_TEI = 17

NSZ_WHY_NAMES = ("", "xml-text", "links", "graphic")

# xml.TEI_VALID_TAGS
cdef const char* _NSZ_TEI[NSZ_N_TEI]
_NSZ_TEI[:] = [b"ab", b"body", b"cell", b"code", b"del", b"div", b"graphic", b"head", b"hi", b"item",
               b"lb", b"list", b"p", b"quote", b"ref", b"row", b"table"]


cdef int _nsz_head_rows(NgCtx* c, int32_t tree) noexcept nogil:
    """The first tr of each parent (document order, ``tree`` included; a parentless tr counts
    under the key None) having a th child: its th children get role=head."""
    cdef DocData* d = c.d
    cdef int32_t tr = c.name[NG_TR], th = c.name[NG_TH], role = -1, i, p, k
    cdef uchar* seen = NULL
    cdef bint seen_none = False, has_th, done
    cdef int r = NS_OK
    i = tree
    while i >= 0:
        if d.nodes[i].tag == tr:
            p = d.nodes[i].parent
            if p < 0:
                done = seen_none
            else:
                done = seen != NULL and seen[p] != 0
            if not done:
                has_th = False
                k = d.nodes[i].first
                while k >= 0 and not has_th:
                    has_th = d.nodes[k].tag == th
                    k = d.nodes[k].next
                if has_th:
                    if p < 0:
                        seen_none = True
                    else:
                        if seen == NULL:
                            seen = NULL if alloc_fails() else <uchar*>calloc(<size_t>d.n_nodes, 1)
                            if seen == NULL:
                                d.error = ERR_MEMORY
                                r = NS_ERROR
                                break
                        seen[p] = 1
                    if role < 0:
                        role = _cv_name(d, "role")
                        if role < 0:
                            r = NS_ERROR
                            break
                    k = d.nodes[i].first
                    while k >= 0:
                        if d.nodes[k].tag == th and not dom_attr_set(d, k, role, AV_VALUE, <const uchar*>"head", 4):
                            r = NS_ERROR
                            break
                        k = d.nodes[k].next
                    if r != NS_OK:
                        break
        i = dom_preorder_next(d, i, tree)
    free(seen)
    return r


cdef int _nsz_strip_non_tei(NgCtx* c, int32_t tree) noexcept nogil:
    """``strip_tags(tree, *({e.tag for e in tree.iter()} - TEI_VALID_TAGS))``: every descendant
    whose tag is not a TEI one (``tree`` itself is never stripped)."""
    cdef DocData* d = c.d
    cdef int32_t tei[NSZ_N_TEI]
    cdef int n_tei = _np_known_ids(d, _NSZ_TEI, NSZ_N_TEI, tei, 0)
    cdef uchar* mark = NULL
    cdef NsVec ids
    cdef int32_t i, t, n_names = N_KNOWN + d.n_names
    cdef Py_ssize_t k
    cdef bint new
    cdef int r = NS_OK
    cdef TagSet ts
    mark = NULL if alloc_fails() else <uchar*>calloc(<size_t>n_names + 1, 1)
    if mark == NULL:
        d.error = ERR_MEMORY
        return NS_ERROR
    nsv_init(&ids)
    i = d.nodes[tree].first
    while i >= 0:
        t = d.nodes[i].tag
        if 0 <= t < n_names:
            new = not mark[t]
            mark[t] = 1
        else:
            # not an id of this document's names: cannot happen, looked up in the list then
            new = True
            for k in range(ids.len):
                if ids.data[k] == t:
                    new = False
        if new:
            if not _id_in(t, tei, n_tei) and nsv_push(&ids, t) < 0:
                d.error = ERR_MEMORY
                r = NS_ERROR
                break
        i = dom_preorder_next(d, i, tree)
    if r == NS_OK and ids.len > 0:
        tagset_init(&ts, False, ids.data, <int32_t>ids.len)
        if not dom_strip_tags(d, tree, &ts):
            r = NS_ERROR
    nsv_free(&ids)
    free(mark)
    return r


cdef int _nsz_graphics(NgCtx* c, int32_t tree, int* why) noexcept nogil:
    """trafilatura.external.sanitize_tree's graphic loop: ``for elem in list(tree.iter("graphic")): image =
    handle_image(elem, options)``, then ``delete_element(elem)`` (its tail kept) when None, else
    ``elem.attrib.clear(); elem.attrib.update(image.attrib)``; handle_image is nogil_extract.pxi's
    (options.url None: NEED_PYTHON with a URL, c.o.has_url, as urljoin stays in Python)."""
    cdef DocData* d = c.d
    cdef NsVec gs
    cdef Py_ssize_t k
    cdef int32_t g, img, j, start, n
    cdef int r = NS_OK
    nsv_init(&gs)
    g = tree
    while g >= 0:
        if d.nodes[g].tag == c.name[NG_GRAPHIC] and nsv_push(&gs, g) < 0:
            nsv_free(&gs)
            d.error = ERR_MEMORY
            return NS_ERROR
        g = dom_preorder_next(d, g, tree)
    if gs.len and c.o.has_url:
        nsv_free(&gs)
        why[0] = NSZ_WHY_GRAPHIC
        return NS_NEED_PYTHON
    for k in range(gs.len):
        g = gs.data[k]
        r = ng_handle_image(c, g, &img)
        if r != NS_OK:
            if r == NS_NEED_PYTHON:
                why[0] = NSZ_WHY_XML
            break
        if img < 0:
            r = ng_delete(d, g, True)
            if r != NS_OK:
                if r == NS_NEED_PYTHON:
                    why[0] = NSZ_WHY_XML
                break
            continue
        d.nodes[g].attr_count = 0
        start = d.nodes[img].attr_start
        n = d.nodes[img].attr_count
        for j in range(n):
            # image's values went through set() already: update() writes them as they are
            r = _nx_set_attr_from(d, g, d.attrs[start + j], False)
            if r != NS_OK:
                break
        if r != NS_OK:
            break
    nsv_free(&gs)
    return r


cdef int _nsz_text(DocData* d, int32_t top, Buf* out, Py_ssize_t* length) noexcept nogil:
    """``trim(" ".join(top.itertext()))`` into ``out`` (emptied first; top's own tail left out)
    and its length in code points."""
    cdef Py_ssize_t n = ng_trim_itertext(d, top, True, False, NULL)
    out.len = 0
    length[0] = 0
    if n == 0:
        return NS_OK
    if not buf_reserve(out, n, &d.error):
        return NS_ERROR
    out.len = ng_trim_itertext(d, top, True, False, out.data)
    length[0] = ngs_code_points(out.data, out.len)
    return NS_OK


cdef int _nsz_sanitize_tree(NgCtx* c, int32_t tree, int32_t* out, Buf* text, Py_ssize_t* text_len,
                            int* why) noexcept nogil:
    "ng_sanitize_tree with the cause of a NEED_PYTHON in ``why`` (NSZ_WHY_*)."
    cdef DocData* d = c.d
    cdef int32_t i
    cdef int r
    out[0] = tree
    text_len[0] = 0
    why[0] = NSZ_WHY_NONE
    if c.o.links and c.o.base_url:
        why[0] = NSZ_WHY_LINKS
        return NS_NEED_PYTHON
    r = _np_tree_cleaning(c, tree, out)
    tree = out[0]
    if r == NS_OK:
        # links on: the a elements stay for convert_tags' convert_link
        r = ng_strip_tags(c, tree, ng_bit(NG_SPAN) if c.o.links else ng_bit(NG_SPAN) | ng_bit(NG_A))
    if r == NS_OK:
        r = ng_convert_tags(c, tree, False)
    if r == NS_NEED_PYTHON:
        why[0] = NSZ_WHY_XML
    if r != NS_OK:
        return r
    r = _nsz_graphics(c, tree, why)
    if r != NS_OK:
        return r
    r = _nsz_head_rows(c, tree)
    if r != NS_OK:
        return r
    i = tree
    while i >= 0:
        if d.nodes[i].tag == c.name[NG_TD] or d.nodes[i].tag == c.name[NG_TH]:
            d.nodes[i].tag = c.name[NG_CELL]
        elif d.nodes[i].tag == c.name[NG_TR]:
            d.nodes[i].tag = c.name[NG_ROW]
        i = dom_preorder_next(d, i, tree)
    r = _nsz_strip_non_tei(c, tree)
    if r != NS_OK:
        return r
    return _nsz_text(d, tree, text, text_len)


# upstream: trafilatura.external.sanitize_tree
cdef int ng_sanitize_tree(NgCtx* c, int32_t tree, int32_t* out, Buf* text, Py_ssize_t* text_len) noexcept nogil:
    """external.sanitize_tree(tree, options from c.o): ``tree`` cleaned and converted in place
    (``*out``: the returned tree, ``tree`` itself, or tree_cleaning's recall copy of it: a
    parentless node of the same document), ``text`` = ``trim(" ".join(
    tree.itertext()))`` as UTF-8 (emptied first), ``*text_len`` its length in code points.
    NS_OK / NS_NEED_PYTHON (the working copy may be half-changed) / NS_ERROR."""
    cdef int why
    return _nsz_sanitize_tree(c, tree, out, text, text_len, &why)


# -- test wrapper (tests/test_core_nogil_sanitize.py) ----------------------------------------

def nogil_sanitize_tree(CElement tree not None, options, list why=None):
    """ng_sanitize_tree on ``tree`` (in place) with ``options`` (a settings.Extractor) inside
    ``with nogil``: (tree, text, length), or None for NEED_PYTHON (its cause, a name of
    NSZ_WHY_NAMES, appended to ``why``); MemoryError for NS_ERROR."""
    cdef CDocument doc = tree.doc
    cdef NgCtx c
    cdef Buf text
    cdef int32_t out = -1, idx = tree.idx
    cdef Py_ssize_t length = 0
    cdef int r, cause = NSZ_WHY_NONE
    doc._check(idx)
    memset(&text, 0, sizeof(Buf))
    try:
        with nogil:
            r = ng_init(&c, &doc.d)
        if r == NS_OK:
            _np_options(&c, options)
            with nogil:
                r = _nsz_sanitize_tree(&c, idx, &out, &text, &length, &cause)
        with nogil:
            ng_free(&c)
        if r == NS_ERROR:
            _raise_doc_error(doc)
        if r != NS_OK:
            if why is not None:
                why.append(NSZ_WHY_NAMES[cause])
            return None
        return (_proxy(doc, out), PyUnicode_DecodeUTF8(<const char*>text.data, text.len, NULL), length)
    finally:
        buf_free(&text)
