# Tree cleaning and tag conversion (htmlprocessing's tree_cleaning and
# convert_tags, both releases) as C passes over the node arrays: renames,
# attribute edits, strips and deletions without a proxy per node. Each pass
# gives exactly the tree its reference loop gives; the rare branches that need
# Python (pre's highlight.js spans, a tail join the Python setters must check)
# call the reference function back for that one element.


cdef inline int32_t _cv_name(DocData* d, const char* s) noexcept nogil:
    """The id of ``s`` (a NUL-terminated ASCII name), interned if new; -1 on memory failure."""
    cdef Py_ssize_t n = 0
    while s[n] != 0:
        n += 1
    return intern_name(d, <const uchar*>s, n)


cdef inline int32_t _cv_known(DocData* d, const char* s) noexcept nogil:
    """The id of ``s`` if the document knows the name, else -1 (nothing is added)."""
    cdef Py_ssize_t n = 0
    while s[n] != 0:
        n += 1
    return dom_lookup_name(d, <const uchar*>s, n)


cdef inline bint _cv_set(DocData* d, int32_t i, int32_t nid, const char* v) noexcept nogil:
    """``el.set(name, v)`` for an ASCII value."""
    cdef Py_ssize_t n = 0
    while v[n] != 0:
        n += 1
    return dom_attr_set(d, i, nid, AV_VALUE, <const uchar*>v, n)


cdef inline bint _cv_in(int32_t tag, int32_t a, int32_t b, int32_t c, int32_t e) noexcept nogil:
    return tag >= 0 and (tag == a or tag == b or tag == c or tag == e)


cdef bint _cv_contains(const uchar* s, Py_ssize_t n, const char* lit, Py_ssize_t m) noexcept nogil:
    """``lit in s`` on UTF-8 bytes (exact for str containment)."""
    cdef Py_ssize_t k
    if m > n:
        return False
    for k in range(n - m + 1):
        if s[k] == <uchar>lit[0] and memcmp(s + k, lit, <size_t>m) == 0:
            return True
    return False


cdef bint _cv_attr_is(DocData* d, int32_t i, int32_t nid, const char* v, Py_ssize_t m) noexcept nogil:
    """``el.get(name) == v`` for a non-empty ASCII ``v`` that is not the attribute's own name."""
    cdef int32_t k
    if nid < 0:
        return False
    k = dom_attr_find(d, i, nid)
    if k < 0 or d.attrs[k].kind != AV_VALUE or d.attrs[k].val_len != m:
        return False
    return memcmp(d.vals.data + d.attrs[k].val_off, v, <size_t>m) == 0


cdef int _cv_snapshot(DocData* d, int32_t top, const int32_t* ids, int nids,
                      int32_t** out, int32_t* count) noexcept nogil:
    """The nodes of ``top``'s subtree (``top`` first) whose tag is in ``ids``,
    in document order, into a malloc'd array (NULL when none); 0, or -1 out of memory."""
    cdef int32_t i = top, n = 0, cap = 0
    cdef int32_t* arr = NULL
    cdef int32_t* p
    cdef TagSet ts
    # a bit test per node instead of a scan of ``ids`` (the cleaning lists hold ~20 names)
    tagset_init(&ts, False, <int32_t*>ids, nids)
    out[0] = NULL
    count[0] = 0
    while i >= 0:
        if tag_matches(&ts, d.nodes[i].tag):
            if n == cap:
                cap = 64 if cap == 0 else cap * 2
                p = NULL if alloc_fails() else <int32_t*>realloc(arr, <size_t>cap * sizeof(int32_t))
                if p == NULL:
                    free(arr)
                    d.error = ERR_MEMORY
                    return -1
                arr = p
            arr[n] = i
            n += 1
        i = dom_preorder_next(d, i, top)
    out[0] = arr
    count[0] = n
    return 0


cdef int _cv_add(int32_t* ids, int n, int32_t nid) noexcept nogil:
    if nid >= 0:
        ids[n] = nid
        return n + 1
    return n


# -- 2.3.1 tree_cleaning: figures holding a table and ARIA layout tables become divs ----------

cdef bint _cv_layout_tables(DocData* d, int32_t top, bint v1) noexcept nogil:
    """2.3.1: figures holding a table and tables of role presentation/none
    (``top`` included); 1.11.0 (``v1``): figures holding a table below ``top``."""
    cdef int32_t figure = _cv_known(d, "figure"), table = _cv_known(d, "table")
    cdef int32_t role = _cv_known(d, "role"), div = -1, i, j
    cdef bint rename
    if table < 0:
        return True  # no table: no figure holds one, no table has a role
    i = top
    if v1:
        i = d.nodes[top].first
        if i < 0:
            return True
    while i >= 0:
        rename = False
        if d.nodes[i].tag == figure and figure >= 0:
            j = d.nodes[i].first
            while j >= 0:
                if d.nodes[j].tag == table:
                    rename = True
                    break
                j = dom_preorder_next(d, j, i)
        elif d.nodes[i].tag == table and not v1:
            rename = (_cv_attr_is(d, i, role, "presentation", 12) or _cv_attr_is(d, i, role, "none", 4))
        if rename:
            if div < 0:
                div = _cv_name(d, "div")
                if div < 0:
                    return False
            d.nodes[i].tag = div
        i = dom_preorder_next(d, i, top)
    return True


# upstream: trafilatura.htmlprocessing.tree_cleaning
def layout_tables_to_divs(CElement tree not None):
    """2.3.1 tree_cleaning's ``for elem in tree.iter("figure", "table")``: a
    figure holding a table, and a table whose role is presentation or none,
    become divs."""
    cdef CDocument doc = tree.doc
    cdef bint ok
    doc._check(tree.idx)
    with nogil:
        ok = _cv_layout_tables(&doc.d, tree.idx, False)
    if not ok:
        _raise_doc_error(doc)


# upstream: trafilatura.htmlprocessing.tree_cleaning
def figures_with_table_to_divs(CElement tree not None):
    """1.11.0 tree_cleaning's ``for elem in figures_with_table(tree): elem.tag =
    "div"`` (``.//figure[descendant::table]``: the tree itself left out)."""
    cdef CDocument doc = tree.doc
    cdef bint ok
    doc._check(tree.idx)
    with nogil:
        ok = _cv_layout_tables(&doc.d, tree.idx, True)
    if not ok:
        _raise_doc_error(doc)


# -- 2.3.1 convert_tags -------------------------------------------------------------------

cdef bint _cv_links_off(DocData* d, int32_t top, bint tables, bint v1) noexcept nogil:
    """``not options.links``: an ``a`` inside a container becomes ``ref``, the
    other ``a`` are stripped. 2.3.1: containers div, li, p (and table with
    tables), the nearest one among all the ancestors counts unless it is the
    tree root; 1.11.0 (``v1``): the a below ``top`` with a div, ul (and table)
    ancestor strictly below ``top``."""
    cdef int32_t a = _cv_known(d, "a"), ref = -1, i, p, t
    cdef int32_t div = _cv_known(d, "div"), li = _cv_known(d, "li"), para = _cv_known(d, "p")
    cdef int32_t table = _cv_known(d, "table") if tables else -1
    cdef bint left = False
    cdef TagSet ts
    if a < 0:
        return True
    if v1:
        li = _cv_known(d, "ul")
        para = -1
    i = top
    while i >= 0:
        if d.nodes[i].tag == a and not (v1 and i == top):
            p = d.nodes[i].parent
            while p >= 0 and not (v1 and p == top):
                t = d.nodes[p].tag
                if _cv_in(t, div, li, para, table):
                    break
                p = d.nodes[p].parent
            if p >= 0 and p != top:
                # a container strictly below top (1.11.0 stops its climb at top)
                if ref < 0:
                    ref = _cv_name(d, "ref")
                    if ref < 0:
                        return False
                d.nodes[i].tag = ref
            else:
                left = True
        i = dom_preorder_next(d, i, top)
    if not left:
        return True
    tagset_init(&ts, False, &a, 1)
    return dom_strip_tags(d, top, &ts)


cdef int _cv_links_on(DocData* d, int32_t top) noexcept nogil:
    """``options.links`` without a base URL (convert_link; 1.11.0's _convert_link_tags): every
    a and ref, top included, becomes ref with only its href, when not empty, as target.
    1 done; 0 nothing changed, because an href holds a character lxml's setter refuses
    (the Python loop then raises where the reference does); -1 out of memory."""
    cdef int32_t a = _cv_known(d, "a"), ref = _cv_known(d, "ref"), href = _cv_known(d, "href")
    cdef int32_t target = -1, i, k
    cdef Attr* at
    cdef const uchar* v
    cdef Py_ssize_t n
    cdef int pass_
    if a < 0 and ref < 0:
        return 1
    for pass_ in range(2):      # check every href, then convert
        i = top
        while i >= 0:
            if d.nodes[i].tag >= 0 and (d.nodes[i].tag == a or d.nodes[i].tag == ref):
                k = dom_attr_find(d, i, href) if href >= 0 else -1
                at = &d.attrs[k] if k >= 0 else NULL
                if pass_ == 0:
                    if at != NULL and at.kind == AV_VALUE and not _utf8_xml_ok(
                            <const uchar*>d.vals.data + at.val_off, at.val_len):
                        return 0
                else:
                    if ref < 0:
                        ref = _cv_name(d, "ref")
                        if ref < 0:
                            return -1
                    d.nodes[i].tag = ref
                    if at != NULL and ((at.kind == AV_VALUE and at.val_len > 0) or at.kind == AV_OWN_NAME):
                        if target < 0:
                            target = _cv_name(d, "target")
                            if target < 0:
                                return -1
                        # the first slot keeps the value: an AV_VALUE's bytes stay where they are
                        k = d.nodes[i].attr_start
                        if at.kind == AV_VALUE:
                            d.attrs[k] = at[0]
                            d.attrs[k].name = target
                            d.nodes[i].attr_count = 1
                        else:
                            v = name_bytes(d, at.name, &n)
                            if not dom_attr_put(d, i, k, target, AV_VALUE, v, n):
                                return -1
                            d.nodes[i].attr_count = 1
                    else:
                        d.nodes[i].attr_count = 0
            i = dom_preorder_next(d, i, top)
    return 1


# upstream: trafilatura.htmlprocessing.convert_link
def convert_links(CElement tree not None):
    """convert_link over ``tree.iter("a", "ref")`` without a base URL (2.3.1 and 1.11.0 alike).
    False, with nothing changed, where an href holds a character lxml refuses."""
    cdef CDocument doc = tree.doc
    cdef int r
    doc._check(tree.idx)
    with nogil:
        r = _cv_links_on(&doc.d, tree.idx)
    if r < 0:
        _raise_doc_error(doc)
    return r == 1


cdef bint _cv_faq(DocData* d, int32_t top) noexcept nogil:
    """Yoast FAQ blocks: a strong whose class holds schema-faq-question becomes head rend=h3."""
    cdef int32_t strong = _cv_known(d, "strong"), cls = _cv_known(d, "class")
    cdef int32_t head = -1, rend = -1, i, k
    if strong < 0 or cls < 0:
        return True
    i = top
    while i >= 0:
        if d.nodes[i].tag == strong:
            k = dom_attr_find(d, i, cls)
            if k >= 0 and d.attrs[k].kind == AV_VALUE and _cv_contains(
                    d.vals.data + d.attrs[k].val_off, d.attrs[k].val_len, "schema-faq-question", 19):
                if head < 0:
                    head = _cv_name(d, "head")
                    rend = _cv_name(d, "rend")
                    if head < 0 or rend < 0:
                        return False
                d.nodes[i].attr_count = 0
                if not _cv_set(d, i, rend, "h3"):
                    return False
                d.nodes[i].tag = head
        i = dom_preorder_next(d, i, top)
    return True


cdef int _cv_rend_ids(DocData* d, int32_t* ids) noexcept nogil:
    # REND_TAG_MAPPING's keys, in its order
    cdef int n = 0
    n = _cv_add(ids, n, _cv_known(d, "em"))
    n = _cv_add(ids, n, _cv_known(d, "i"))
    n = _cv_add(ids, n, _cv_known(d, "b"))
    n = _cv_add(ids, n, _cv_known(d, "strong"))
    n = _cv_add(ids, n, _cv_known(d, "u"))
    n = _cv_add(ids, n, _cv_known(d, "kbd"))
    n = _cv_add(ids, n, _cv_known(d, "samp"))
    n = _cv_add(ids, n, _cv_known(d, "tt"))
    n = _cv_add(ids, n, _cv_known(d, "var"))
    n = _cv_add(ids, n, _cv_known(d, "sub"))
    n = _cv_add(ids, n, _cv_known(d, "sup"))
    return n


cdef const char* _cv_rend_value(DocData* d, int32_t tag) noexcept nogil:
    """REND_TAG_MAPPING[tag] (NULL when the tag is not a key)."""
    cdef Py_ssize_t n
    cdef const uchar* s = name_bytes(d, tag, &n)
    if n == 1:
        if s[0] == b'i':
            return "#i"
        if s[0] == b'b':
            return "#b"
        if s[0] == b'u':
            return "#u"
    elif n == 2:
        if memcmp(s, b"em", 2) == 0:
            return "#i"
        if memcmp(s, b"tt", 2) == 0:
            return "#t"
    elif n == 3:
        if memcmp(s, b"kbd", 3) == 0 or memcmp(s, b"var", 3) == 0:
            return "#t"
        if memcmp(s, b"sub", 3) == 0:
            return "#sub"
        if memcmp(s, b"sup", 3) == 0:
            return "#sup"
    elif n == 4:
        if memcmp(s, b"samp", 4) == 0:
            return "#t"
    elif n == 6:
        if memcmp(s, b"strong", 6) == 0:
            return "#b"
    return NULL


cdef bint _cv_formatting(DocData* d, int32_t top, bint formatting) noexcept nogil:
    """options.formatting: the REND_TAG_MAPPING tags become hi (rend kept); else they are stripped."""
    cdef int32_t ids[16]
    cdef int n = _cv_rend_ids(d, ids)
    cdef int32_t hi = -1, rend = -1, i
    cdef const char* v
    cdef TagSet ts
    if n == 0:
        return True
    if not formatting:
        tagset_init(&ts, False, ids, n)
        return dom_strip_tags(d, top, &ts)
    i = top
    while i >= 0:
        if _id_in(d.nodes[i].tag, ids, n):
            v = _cv_rend_value(d, d.nodes[i].tag)
            if hi < 0:
                hi = _cv_name(d, "hi")
                rend = _cv_name(d, "rend")
                if hi < 0 or rend < 0:
                    return False
            d.nodes[i].attr_count = 0
            if not _cv_set(d, i, rend, v):
                return False
            d.nodes[i].tag = hi
        i = dom_preorder_next(d, i, top)
    return True


cdef bint _cv_images(DocData* d, int32_t top) noexcept nogil:
    cdef int32_t img = _cv_known(d, "img"), graphic = -1, i
    if img < 0:
        return True
    i = top
    while i >= 0:
        if d.nodes[i].tag == img:
            if graphic < 0:
                graphic = _cv_name(d, "graphic")
                if graphic < 0:
                    return False
            d.nodes[i].tag = graphic
        i = dom_preorder_next(d, i, top)
    return True


cdef int _cv_write_int(char* buf, int pos, int64_t v) noexcept nogil:
    cdef char tmp[24]
    cdef int n = 0
    if v == 0:
        tmp[0] = b'0'
        n = 1
    while v > 0:
        tmp[n] = <char>(48 + v % 10)
        v //= 10
        n += 1
    while n > 0:
        n -= 1
        buf[pos] = tmp[n]
        pos += 1
    buf[pos] = 0
    return pos


cdef struct CvIds:
    int32_t dl, ol, ul, dd, dt, li, br, hr, blockquote, pre, q, s, strike, details, summary
    int32_t h[6]
    int32_t del_


cdef bint _cv_list(DocData* d, int32_t el, CvIds* c) noexcept nogil:
    """convert_lists."""
    cdef int32_t rend = _cv_name(d, "rend"), lst = _cv_name(d, "list"), item = _cv_name(d, "item")
    cdef Py_ssize_t n
    cdef const uchar* s
    cdef int64_t count = 1
    cdef int32_t j, t
    cdef char buf[40]
    cdef int pos
    if rend < 0 or lst < 0 or item < 0:
        return False
    s = name_bytes(d, d.nodes[el].tag, &n)
    if not dom_attr_set(d, el, rend, AV_VALUE, s, n):
        return False
    d.nodes[el].tag = lst
    j = el
    while j >= 0:
        t = d.nodes[j].tag
        if t >= 0 and (t == c.dd or t == c.dt or t == c.li):
            if t != c.li:
                buf[0] = b'd'
                buf[1] = b'd' if t == c.dd else b't'
                buf[2] = b'-'
                pos = _cv_write_int(buf, 3, count)
                if not dom_attr_set(d, j, rend, AV_VALUE, <const uchar*>buf, pos):
                    return False
                if t == c.dd:
                    count += 1
            d.nodes[j].tag = item
        j = dom_preorder_next(d, j, el)
    return True


cdef int _cv_convert_one(DocData* d, int32_t el, CvIds* c) noexcept nogil:
    """CONVERSIONS[el.tag](el): 1 done, 0 Python must do it (pre), -1 out of memory."""
    cdef int32_t t = d.nodes[el].tag, nid, rend, j
    cdef Py_ssize_t n
    cdef const uchar* s
    cdef int k
    if t < 0:
        return 1
    if t == c.dl or t == c.ol or t == c.ul:
        return 1 if _cv_list(d, el, c) else -1
    for k in range(6):
        if t == c.h[k]:
            nid = _cv_name(d, "head")
            rend = _cv_name(d, "rend")
            if nid < 0 or rend < 0:
                return -1
            d.nodes[el].attr_count = 0
            s = name_bytes(d, t, &n)
            if not dom_attr_set(d, el, rend, AV_VALUE, s, n):
                return -1
            d.nodes[el].tag = nid
            return 1
    if t == c.br or t == c.hr:
        nid = _cv_name(d, "lb")
        if nid < 0:
            return -1
        d.nodes[el].tag = nid
        return 1
    if t == c.pre:
        return 0
    if t == c.blockquote or t == c.q:
        nid = _cv_name(d, "quote")
        if nid < 0:
            return -1
        d.nodes[el].tag = nid
        return 1
    if t == c.del_ or t == c.s or t == c.strike:
        nid = _cv_name(d, "del")
        rend = _cv_name(d, "rend")
        if nid < 0 or rend < 0:
            return -1
        d.nodes[el].tag = nid
        return 1 if _cv_set(d, el, rend, "overstrike") else -1
    if t == c.details:
        nid = _cv_name(d, "div")
        if nid < 0:
            return -1
        d.nodes[el].tag = nid
        if c.summary >= 0:
            nid = -1
            j = el
            while j >= 0:
                if d.nodes[j].tag == c.summary:
                    if nid < 0:
                        nid = _cv_name(d, "head")
                        if nid < 0:
                            return -1
                    d.nodes[j].tag = nid
                j = dom_preorder_next(d, j, el)
        return 1
    return 1


cdef int _cv_conversion_ids(DocData* d, CvIds* c, int32_t* ids) noexcept nogil:
    cdef int n = 0, k
    cdef char hname[3]
    c.dl = _cv_known(d, "dl")
    c.ol = _cv_known(d, "ol")
    c.ul = _cv_known(d, "ul")
    c.dd = _cv_known(d, "dd")
    c.dt = _cv_known(d, "dt")
    c.li = _cv_known(d, "li")
    c.br = _cv_known(d, "br")
    c.hr = _cv_known(d, "hr")
    c.blockquote = _cv_known(d, "blockquote")
    c.pre = _cv_known(d, "pre")
    c.q = _cv_known(d, "q")
    c.del_ = _cv_known(d, "del")
    c.s = _cv_known(d, "s")
    c.strike = _cv_known(d, "strike")
    c.details = _cv_known(d, "details")
    c.summary = _cv_known(d, "summary")
    hname[0] = b'h'
    hname[2] = 0
    for k in range(6):
        hname[1] = <char>(49 + k)
        c.h[k] = _cv_known(d, hname)
    n = _cv_add(ids, n, c.dl)
    n = _cv_add(ids, n, c.ol)
    n = _cv_add(ids, n, c.ul)
    for k in range(6):
        n = _cv_add(ids, n, c.h[k])
    n = _cv_add(ids, n, c.br)
    n = _cv_add(ids, n, c.hr)
    n = _cv_add(ids, n, c.blockquote)
    n = _cv_add(ids, n, c.pre)
    n = _cv_add(ids, n, c.q)
    n = _cv_add(ids, n, c.del_)
    n = _cv_add(ids, n, c.s)
    n = _cv_add(ids, n, c.strike)
    n = _cv_add(ids, n, c.details)
    return n


cdef _cv_sub_sup(CDocument doc, int32_t top, object python_delete):
    """``for elem in tree.iter("sub", "sup"): if not elem.text and len(elem) == 0:
    delete_element(elem)``: only childless elements go, after the walk has
    passed them, so document order over a snapshot meets the same ones."""
    cdef DocData* d = &doc.d
    cdef int32_t ids[2]
    cdef int n = 0
    cdef int32_t* arr
    cdef int32_t count, k, i
    n = _cv_add(ids, n, _cv_known(d, "sub"))
    n = _cv_add(ids, n, _cv_known(d, "sup"))
    if n == 0:
        return
    if _cv_snapshot(d, top, ids, n, &arr, &count) < 0:
        _raise_doc_error(doc)
    try:
        for k in range(count):
            i = arr[k]
            if d.nodes[i].text_len == 0 and d.nodes[i].first < 0:
                _delete_one(doc, i, True, python_delete)
    finally:
        free(arr)


cdef _cv_convert_tags(CElement tree, bint links, bint tables, bint formatting, bint images,
                      object python_delete, object convert_pre, bint v1):
    cdef CDocument doc = tree.doc
    cdef DocData* d = &doc.d
    cdef int32_t top = tree.idx
    cdef bint ok = True
    cdef CvIds c
    cdef int32_t ids[24]
    cdef int n, r
    cdef int32_t* arr = NULL
    cdef int32_t count = 0, k
    doc._check(top)
    with nogil:
        if not links:
            ok = _cv_links_off(d, top, tables, v1)
        if ok and not v1:
            ok = _cv_faq(d, top)
    if not ok:
        _raise_doc_error(doc)
    if not v1:
        _cv_sub_sup(doc, top, python_delete)
    with nogil:
        ok = _cv_formatting(d, top, formatting)
        if ok:
            n = _cv_conversion_ids(d, &c, ids)
            if n > 0 and _cv_snapshot(d, top, ids, n, &arr, &count) < 0:
                ok = False
    if not ok:
        _raise_doc_error(doc)
    try:
        for k in range(count):
            r = _cv_convert_one(d, arr[k], &c)
            if r == 0:
                convert_pre(_proxy(doc, arr[k]))
            elif r < 0:
                _raise_doc_error(doc)
    finally:
        free(arr)
    if images:
        with nogil:
            ok = _cv_images(d, top)
        if not ok:
            _raise_doc_error(doc)


# upstream: trafilatura.htmlprocessing.convert_tags
def convert_tags_23(CElement tree not None, bint links, bint tables, bint formatting, bint images, python_delete, convert_pre):
    """2.3.1 convert_tags but the links branch (``links``: the caller has run
    convert_link) and the images-out-of-links moves, which stay in Python:
    the containers' a -> ref and the strip of the other a, the Yoast FAQ
    heads, the empty sub/sup deletions, hi or the strip of the formatting
    tags, CONVERSIONS over a snapshot (``convert_pre(el)``: convert_quotes for
    a pre), img -> graphic with ``images``."""
    _cv_convert_tags(tree, links, tables, formatting, images, python_delete, convert_pre, False)


# upstream: trafilatura.htmlprocessing.convert_tags
def convert_tags_111(CElement tree not None, bint links, bint tables, bint formatting, bint images, convert_pre):
    """1.11.0 convert_tags but the links branch (``links``: the caller has
    converted the a/ref): the a of containers -> ref and the strip of the other
    a, hi or the strip of the formatting tags, CONVERSIONS (its live walk meets
    the snapshot's nodes: a conversion renames only into names outside it;
    ``convert_pre(el)`` for a pre), img -> graphic with ``images``."""
    _cv_convert_tags(tree, links, tables, formatting, images, None, convert_pre, True)


# -- tree_cleaning's deletions and strips (both releases) -------------------------------------

# upstream: trafilatura.htmlprocessing.tree_cleaning
def delete_by_tags_once(CElement tree not None, tags, python_delete, replay):
    """delete_by_tags (accel.pxi) with one walk for every tag: tree_cleaning's
    ``for tag in tags: for el in tree.iter(tag): delete_element(el)``. The
    matches of every tag are collected in document order first; at its turn a
    tag's matches still in the tree (a deletion of an earlier tag may have taken
    them out) are deleted in C when none holds another one (and the tree itself
    does not match), else ``replay(tag)`` runs lxml's live walk in Python.
    Deletions only take subtrees out (and join tails), so the order of what stays
    is unchanged."""
    cdef CDocument doc = tree.doc
    cdef DocData* d = &doc.d
    cdef int32_t root = tree.idx, i, a, nid
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n, k
    cdef int32_t* arr = NULL
    cdef int32_t count = 0, j, kept, start = 0
    cdef bint nested, same
    cdef list names = []
    doc._check(root)
    if not isinstance(tags, (list, tuple)):
        tags = list(tags)
    for tag in tags:
        nid = _lookup(doc, tag)
        if nid >= 0:
            names.append((tag, nid))
    if not names:
        return
    if len(names) > MAX_NAME_SET:
        return delete_by_tags(tree, tags, python_delete, replay)
    n = 0
    for tag, nid in names:
        ids[n] = nid
        n += 1
    with nogil:
        k = _cv_snapshot(d, root, ids, n, &arr, &count)
    if k < 0:
        _raise_doc_error(doc)
    # the walk is over the descendants: the root itself is left out
    start = 1 if count > 0 and arr[0] == root else 0
    try:
        for tag, nid in names:
            if d.nodes[root].tag == nid:
                replay(tag)
                continue
            # the matches still under the root, checked for nesting
            nested = False
            kept = 0
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
                if a != root:
                    continue  # out of the tree
                if same:
                    nested = True
                    break
                kept += 1
            if nested:
                replay(tag)
                continue
            if kept == 0:
                continue
            for j in range(start, count):
                i = arr[j]
                if d.nodes[i].tag != nid:
                    continue
                a = d.nodes[i].parent
                while a >= 0 and a != root:
                    a = d.nodes[a].parent
                if a == root:
                    _delete_one(doc, i, True, python_delete)
    finally:
        free(arr)


def strip_named(CElement tree not None, tags):
    """strip_tags(tree, *tags) for a sequence of str names (the names the document never saw left out)."""
    cdef CDocument doc = tree.doc
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n = 0
    cdef TagSet ts
    cdef bint ok
    cdef int32_t nid
    doc._check(tree.idx)
    for tag in tags:
        nid = _lookup(doc, tag)
        if nid < 0:
            continue
        if n == MAX_NAME_SET:
            return dom.strip_tags(tree, *tags)
        ids[n] = nid
        n += 1
    if n == 0:
        return
    tagset_init(&ts, False, ids, n)
    with nogil:
        ok = dom_strip_tags(&doc.d, tree.idx, &ts)
    if not ok:
        _raise_doc_error(doc)


# -- 2.3.1 tree_cleaning's forms ---------------------------------------------------------------

cdef inline uint64_t _cv_load8(const uchar* s) noexcept nogil:
    cdef uint64_t x
    memcpy(&x, s, 8)
    return x


cdef inline int64_t _cv_chars(const uchar* s, int32_t n) noexcept nogil:
    """Code points of a UTF-8 slice (the document's text is valid UTF-8): the
    bytes that are not continuation bytes (10xxxxxx), counted eight at a time."""
    cdef int64_t cont = 0
    cdef int32_t k = 0
    cdef uint64_t x, m
    while k + 8 <= n:
        x = _cv_load8(s + k)
        # bit 7 set and bit 6 clear: a continuation byte
        m = x & ~(x << 1) & <uint64_t>0x8080808080808080
        cont += <int64_t>(((m >> 7) * <uint64_t>0x0101010101010101) >> 56)
        k += 8
    while k < n:
        if (s[k] & 0xC0) == 0x80:
            cont += 1
        k += 1
    return n - cont


cdef int64_t _cv_text_length(DocData* d, int32_t top) noexcept nogil:
    """``len(text_content(el))``: the code points of its text and of its
    descendants' text and tails (text_content's order, its own tail left out)."""
    cdef int64_t total = 0
    cdef int32_t s = top
    if d.nodes[top].text_off >= 0:
        total += _cv_chars(d.text.data + d.nodes[top].text_off, d.nodes[top].text_len)
    while True:
        if d.nodes[s].first >= 0:
            s = d.nodes[s].first
            if d.nodes[s].text_off >= 0:
                total += _cv_chars(d.text.data + d.nodes[s].text_off, d.nodes[s].text_len)
            continue
        while s != top:
            if d.nodes[s].tail_off >= 0:
                total += _cv_chars(d.text.data + d.nodes[s].tail_off, d.nodes[s].tail_len)
            if d.nodes[s].next >= 0:
                s = d.nodes[s].next
                if d.nodes[s].text_off >= 0:
                    total += _cv_chars(d.text.data + d.nodes[s].text_off, d.nodes[s].text_len)
                break
            s = d.nodes[s].parent
        if s == top:
            return total


# upstream: trafilatura.htmlprocessing._handle_forms
def handle_forms(CElement tree not None, python_delete):
    """2.3.1 _handle_forms: over the forms of ``tree`` (itself included) in
    document order, a form holding more than half of the tree's text becomes a
    div (the text counted once, before), the others are deleted (delete_element;
    ``python_delete`` where the Python setters must check a joined tail)."""
    cdef CDocument doc = tree.doc
    cdef DocData* d = &doc.d
    cdef int32_t top = tree.idx, form, div = -1
    cdef int32_t* arr = NULL
    cdef int32_t count = 0, k, i
    cdef int64_t total
    cdef int r
    doc._check(top)
    form = _cv_known(d, "form")
    if form < 0:
        return
    with nogil:
        r = _cv_snapshot(d, top, &form, 1, &arr, &count)
    if r < 0:
        _raise_doc_error(doc)
    if count == 0:
        return
    try:
        with nogil:
            total = _cv_text_length(d, top)
        for k in range(count):
            i = arr[k]
            # len(text_content(form)) > total / 2, in integers
            if total and 2 * _cv_text_length(d, i) > total:
                if div < 0:
                    div = _cv_name(d, "div")
                    if div < 0:
                        _raise_doc_error(doc)
                d.nodes[i].tag = div
            else:
                _delete_one(doc, i, True, python_delete)
    finally:
        free(arr)
