from libc.stdlib cimport calloc

# htmldate's tree passes over the C document (trafila.htmldate runs them through
# trafila._backend.core_of when the tree is the core's; the Python in
# reference/trafila/htmldate stays the specification and runs everywhere else).
#
# * ``tostring_html``: the serialised page htmldate's text patterns search,
#   trafila.html.serialize's ``method="html"`` (libxml2's htmlNodeDumpFormatOutput,
#   not pretty) with the tail, into one UTF-8 buffer without the GIL;
# * ``free_text_segments``: the text nodes whose parent is one of the given tags.


cdef bint _ci_in(const uchar* s, Py_ssize_t n, const char* words) noexcept nogil:
    """``s`` is one of the space-separated lower-case ASCII ``words``, its ASCII letters
    compared lowered (libxml2's xmlStrcasecmp on names)."""
    cdef Py_ssize_t i
    cdef const char* w = words
    while w[0] != 0:
        i = 0
        while i < n and w[i] != 0 and w[i] != 32 and _ascii_lower(s[i]) == <uchar>w[i]:
            i += 1
        if i == n and (w[i] == 0 or w[i] == 32):
            return True
        while w[0] != 0 and w[0] != 32:
            w += 1
        while w[0] == 32:
            w += 1
    return False


cdef enum:
    HT_EMPTY = 1     # void: no content, no end tag
    HT_SAVE_END = 2  # an empty instance has no end tag (void elements and li)
    HT_RAW = 4       # script, style: text and children's tails written raw
    HT_HTML_BODY = 8


cdef enum:
    HA_BOOLEAN = 1   # written as its name alone
    HA_URI = 2       # href, action, src: URI-escaped (name too, on an a element)
    HA_NAME = 4


cdef struct HtNames:
    # per name id, 1 + its HT_* (tags) and HA_* (attributes) flags; 0: not computed yet
    uint8_t* tag
    uint8_t* attr
    int32_t n


cdef int _ht_name_flags(DocData* d, int32_t nid) noexcept nogil:
    "trafila.html.serialize's tables (libxml2's html40ElementTable) for the tag ``nid``."
    cdef Py_ssize_t n
    cdef const uchar* s = name_bytes(d, nid, &n)
    if _ci_in(s, n, "area base basefont br col frame hr img input isindex link meta param"):
        return HT_EMPTY | HT_SAVE_END
    if _ci_in(s, n, "li"):
        return HT_SAVE_END
    if _ci_in(s, n, "script style"):
        return HT_RAW
    if _ci_in(s, n, "html body"):
        return HT_HTML_BODY
    return 0


cdef int _ha_name_flags(DocData* d, int32_t nid) noexcept nogil:
    "HTMLtree.c htmlBooleanAttrs and the URI attributes, for the attribute name ``nid``."
    cdef Py_ssize_t n
    cdef const uchar* s = name_bytes(d, nid, &n)
    if _ci_in(s, n, "checked compact declare defer disabled ismap multiple nohref noresize noshade nowrap "
                    "readonly selected"):
        return HA_BOOLEAN
    if _ci_in(s, n, "href action src"):
        return HA_URI
    if _ci_in(s, n, "name"):
        return HA_NAME
    return 0


cdef inline int _ht_flags(DocData* d, HtNames* c, int32_t i) noexcept nogil:
    cdef int32_t nid = d.nodes[i].tag
    if nid < 0 or nid >= c.n:
        return _ht_name_flags(d, nid)
    if c.tag[nid] == 0:
        c.tag[nid] = <uint8_t>(1 + _ht_name_flags(d, nid))
    return c.tag[nid] - 1


cdef inline int _ha_flags(DocData* d, HtNames* c, int32_t nid) noexcept nogil:
    if nid < 0 or nid >= c.n:
        return _ha_name_flags(d, nid)
    if c.attr[nid] == 0:
        c.attr[nid] = <uint8_t>(1 + _ha_name_flags(d, nid))
    return c.attr[nid] - 1


cdef bint _ht_escaped(Buf* b, const uchar* s, Py_ssize_t n, bint xml_doc, int* err) noexcept nogil:
    """serialize's HTML-method escaping: & < > (xmlEncodeEntitiesReentrant on an HTML
    document), and CR as well on an XML one."""
    cdef Py_ssize_t i, start = 0
    cdef uchar c
    cdef const char* rep
    for i in range(n):
        c = s[i]
        if c > 0x3e:
            continue
        rep = NULL
        if c == 0x26:
            rep = "&amp;"
        elif c == 0x3c:
            rep = "&lt;"
        elif c == 0x3e:
            rep = "&gt;"
        elif c == 0x0d and xml_doc:
            rep = "&#13;"
        if rep != NULL:
            if not put_bytes(b, s + start, i - start, err) or not put_cstr(b, rep, err):
                return False
            start = i + 1
    return put_bytes(b, s + start, n - start, err)


cdef inline char _ht_hex(int v) noexcept nogil:
    return <char>(48 + v) if v < 10 else <char>(55 + v)


cdef inline bint _ht_uri_keep(uchar c) noexcept nogil:
    # uri.c xmlURIEscapeStr: unreserved characters and the reserved ones serialize keeps
    cdef const char* keep = "-_.!~*'()\"#$%&+,/:;<=>?@[\\]^`{|}"
    if (0x41 <= c <= 0x5a) or (0x61 <= c <= 0x7a) or (0x30 <= c <= 0x39):
        return True
    while keep[0] != 0:
        if <uchar>keep[0] == c:
            return True
        keep += 1
    return False


# upstream: none (libxml2's htmlAttrDumpOutput, which htmldate.core.serialize reaches through lxml)
cdef bint _ht_attr(Buf* out, Buf* tmp, DocData* d, HtNames* c, int32_t i, Attr* a, bint xml_doc, int* err) noexcept nogil:
    "serialize._html_attr: one attribute, with its leading space."
    cdef Py_ssize_t kn, vn, j, q, start
    cdef const uchar* k = name_bytes(d, a.name, &kn)
    cdef const uchar* v
    cdef const uchar* tag
    cdef Py_ssize_t tn
    cdef bint uri, dq = False, sq = False
    cdef char hexbuf[4]
    cdef uchar ch
    cdef int af
    if not put_cstr(out, " ", err) or not put_bytes(out, k, kn, err):
        return False
    af = _ha_flags(d, c, a.name)
    if af & HA_BOOLEAN or a.kind == AV_NO_VALUE:
        return True
    if a.kind == AV_OWN_NAME:
        v, vn = k, kn
    else:
        v = d.vals.data + a.val_off
        vn = a.val_len
    tmp.len = 0
    if not _ht_escaped(tmp, v, vn, xml_doc, err):
        return False
    tag = name_bytes(d, d.nodes[i].tag, &tn)
    uri = (af & HA_URI) != 0 or ((af & HA_NAME) != 0 and _ci_in(tag, tn, "a"))
    if uri:
        # leading blanks dropped, then every byte outside the kept set as %XX
        start = 0
        while start < tmp.len and (tmp.data[start] == 0x20 or tmp.data[start] == 0x09
                                   or tmp.data[start] == 0x0a or tmp.data[start] == 0x0d):
            start += 1
        j = tmp.len
        for q in range(start, j):
            ch = tmp.data[q]
            if _ht_uri_keep(ch):
                if not put_bytes(tmp, &ch, 1, err):
                    return False
            else:
                hexbuf[0] = 0x25
                hexbuf[1] = _ht_hex(ch >> 4)
                hexbuf[2] = _ht_hex(ch & 15)
                if not put_bytes(tmp, <const uchar*>hexbuf, 3, err):
                    return False
        v = tmp.data + j
        vn = tmp.len - j
    else:
        v = tmp.data
        vn = tmp.len
    for j in range(vn):
        if v[j] == 0x22:
            dq = True
        elif v[j] == 0x27:
            sq = True
    # xmlOutputBufferWriteQuotedString
    if not dq:
        return put_cstr(out, '="', err) and put_bytes(out, v, vn, err) and put_cstr(out, '"', err)
    if not sq:
        return put_cstr(out, "='", err) and put_bytes(out, v, vn, err) and put_cstr(out, "'", err)
    if not put_cstr(out, '="', err):
        return False
    start = 0
    for j in range(vn):
        if v[j] == 0x22:
            if not put_bytes(out, v + start, j - start, err) or not put_cstr(out, "&quot;", err):
                return False
            start = j + 1
    return put_bytes(out, v + start, vn - start, err) and put_cstr(out, '"', err)


cdef bint _ht_text(Buf* out, Buf* src, int32_t off, int32_t n, bint raw, bint xml_doc, int* err) noexcept nogil:
    if off < 0:
        return True
    if raw:
        return put_bytes(out, src.data + off, n, err)
    return _ht_escaped(out, src.data + off, n, xml_doc, err)


cdef inline bint _ht_parent_raw(DocData* d, HtNames* c, int32_t i) noexcept nogil:
    cdef int32_t p = d.nodes[i].parent
    return p >= 0 and (_ht_flags(d, c, p) & HT_RAW) != 0


cdef bint _ht_close(Buf* out, DocData* d, HtNames* c, int32_t i, int32_t root, bint xml_doc, int* err) noexcept nogil:
    "The end tag of ``i`` (an element with content), then its tail (not the root's)."
    cdef Py_ssize_t n
    cdef const uchar* s = name_bytes(d, d.nodes[i].tag, &n)
    if not put_cstr(out, "</", err) or not put_bytes(out, s, n, err) or not put_cstr(out, ">", err):
        return False
    if i == root:
        return True
    return _ht_text(out, &d.text, d.nodes[i].tail_off, d.nodes[i].tail_len, _ht_parent_raw(d, c, i), xml_doc, err)


# upstream: htmldate.core.serialize (lxml.html.tostring: libxml2's htmlNodeDumpFormatOutput)
cdef bint html_method_c(Buf* out, DocData* d, int32_t root, bint xml_doc) noexcept nogil:
    "serialize._html (not pretty): ``root`` and its subtree (its own tail excepted)."
    cdef Buf tmp
    cdef bint ok
    cdef HtNames c
    memset(&tmp, 0, sizeof(Buf))
    c.n = N_KNOWN + d.n_names
    c.tag = <uint8_t*>calloc(<size_t>c.n + 1, 1)
    c.attr = <uint8_t*>calloc(<size_t>c.n + 1, 1)
    if c.tag == NULL or c.attr == NULL:
        # no cache: every flag computed where it is needed
        c.n = 0
    ok = _ht_walk(out, &tmp, d, &c, root, xml_doc)
    free(c.tag)
    free(c.attr)
    buf_free(&tmp)
    return ok


cdef bint _ht_walk(Buf* out, Buf* tmp, DocData* d, HtNames* c, int32_t root, bint xml_doc) noexcept nogil:
    cdef int32_t i = root, k
    cdef Node* nd
    cdef int flags
    cdef Py_ssize_t n
    cdef const uchar* s
    cdef int* err = &d.error
    while True:
        nd = &d.nodes[i]
        flags = _ht_flags(d, c, i)
        s = name_bytes(d, nd.tag, &n)
        if not put_cstr(out, "<", err) or not put_bytes(out, s, n, err):
            return False
        for k in range(nd.attr_start, nd.attr_start + nd.attr_count):
            if not _ht_attr(out, tmp, d, c, i, &d.attrs[k], xml_doc, err):
                return False
        if flags & HT_EMPTY or (nd.text_off < 0 and nd.first < 0):
            # void (children, if any, never written) or empty
            if flags & HT_EMPTY or (flags & HT_SAVE_END and not flags & HT_HTML_BODY):
                if not put_cstr(out, ">", err):
                    return False
            elif (not put_cstr(out, "></", err) or not put_bytes(out, s, n, err)
                  or not put_cstr(out, ">", err)):
                return False
            if i != root and not _ht_text(out, &d.text, nd.tail_off, nd.tail_len, _ht_parent_raw(d, c, i),
                                          xml_doc, err):
                return False
        else:
            if not put_cstr(out, ">", err) or not _ht_text(out, &d.text, nd.text_off, nd.text_len,
                                                           (flags & HT_RAW) != 0, xml_doc, err):
                return False
            if nd.first >= 0:
                i = nd.first
                continue
            if not _ht_close(out, d, c, i, root, xml_doc, err):
                return False
        # climb while there is no next sibling, closing the ancestors
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            if not _ht_close(out, d, c, i, root, xml_doc, err):
                return False
        if i == root:
            return True
        i = d.nodes[i].next


# upstream: htmldate.core.serialize
def tostring_html(CElement el not None, bint xml_doc=False, bint with_tail=True):
    """``trafila.html.serialize.tostring(el, method="html", encoding=str)`` for a core
    element (``xml_doc``: its document is not an HTML one, CR escaped too), with the
    element's tail when ``with_tail``. None when the text is not valid UTF-8 (a lone
    surrogate): the caller then serialises with the reference."""
    cdef CDocument doc = el.doc
    cdef Buf out
    cdef bint ok
    cdef Node* nd
    cdef HtNames none
    doc._check(el.idx)
    memset(&out, 0, sizeof(Buf))
    memset(&none, 0, sizeof(HtNames))
    with nogil:
        ok = html_method_c(&out, &doc.d, el.idx, xml_doc)
        if ok and with_tail:
            nd = &doc.d.nodes[el.idx]
            ok = _ht_text(&out, &doc.d.text, nd.tail_off, nd.tail_len, _ht_parent_raw(&doc.d, &none, el.idx),
                          xml_doc, &doc.d.error)
    try:
        if not ok:
            _raise_doc_error(doc)
        try:
            return utf8_str(out.data, out.len) if out.len else ""
        except UnicodeDecodeError:
            return None
    finally:
        buf_free(&out)


# upstream: htmldate.extractors.free_text_segments
def free_text_segments(CElement top not None, object names):
    """htmldate.extractors.free_text_segments' walk: below ``top``, the text of each
    element whose tag is in ``names`` and the tail of each child of such an element
    (``top``'s own text and its children's tails excepted), non-empty, in document order."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n
    cdef int32_t root = top.idx, i, p
    cdef list out = []
    doc._check(root)
    n = _name_ids(doc, names, ids)
    if n < 0:
        raise ValueError("too many tag names")
    if n == 0:
        return out
    i = d.nodes[root].first
    while i >= 0:
        if _id_in(d.nodes[i].tag, ids, n) and d.nodes[i].text_off >= 0 and d.nodes[i].text_len > 0:
            out.append(slice_str(&d.text, d.nodes[i].text_off, d.nodes[i].text_len))
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        # the subtree of i is done: its tail, then the ancestors' as they close
        while True:
            p = d.nodes[i].parent
            if p != root and _id_in(d.nodes[p].tag, ids, n) and d.nodes[i].tail_off >= 0 and d.nodes[i].tail_len > 0:
                out.append(slice_str(&d.text, d.nodes[i].tail_off, d.nodes[i].tail_len))
            if d.nodes[i].next >= 0 or p == root:
                break
            i = p
        if d.nodes[i].next < 0:
            break
        i = d.nodes[i].next
    return out
