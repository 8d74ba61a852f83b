from libc.string cimport strlen

# trafila.html.serialize's plain XML method (_xml_plain: xmlNodeDumpOutput, not
# pretty, no XHTML doctype) over the C document, written into one byte buffer
# and decoded once. The readability round trip and the dedup keys serialise
# this way.


cdef inline bint put_bytes(Buf* b, const uchar* s, Py_ssize_t n, int* err) noexcept nogil:
    if n <= 0:
        return True
    if not buf_reserve(b, n, err):
        return False
    memcpy(b.data + b.len, s, n)
    b.len += n
    return True


cdef inline bint put_cstr(Buf* b, const char* s, int* err) noexcept nogil:
    return put_bytes(b, <const uchar*>s, strlen(s), err)


cdef bint put_escaped(Buf* b, const uchar* s, Py_ssize_t n, bint attr, int* err) noexcept nogil:
    """xmlsave.c's escaping: & < > and CR become references, the other C0
    controls (TAB and LF excepted) &#xFFFD;; in attributes also " TAB LF.
    One pass gives what serialize's chain of replacements gives: no
    replacement text holds a character a later step would replace again."""
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
        elif c == 0x0d:
            rep = "&#13;"
        elif c == 0x09 or c == 0x0a:
            if attr:
                rep = "&#9;" if c == 0x09 else "&#10;"
        elif c < 0x20:
            rep = "&#xFFFD;"
        elif c == 0x22 and attr:
            rep = "&quot;"
        if rep != NULL:
            if not put_bytes(b, s + start, i - start, err) or not put_cstr(b, rep, err):
                return False
            start = i + 1
    return put_bytes(b, s + start, n - start, err)


cdef inline bint put_slice(Buf* out, Buf* src, int32_t off, int32_t n, bint attr, int* err) noexcept nogil:
    # off < 0 is None: nothing is written
    if off < 0:
        return True
    return put_escaped(out, src.data + off, n, attr, err)


cdef bint put_start_tag(Buf* out, DocData* d, int32_t i, int* err) noexcept nogil:
    cdef Node* nd = &d.nodes[i]
    cdef Attr* a
    cdef const uchar* name
    cdef Py_ssize_t name_len
    cdef int32_t k
    name = name_bytes(d, nd.tag, &name_len)
    if not put_cstr(out, "<", err) or not put_bytes(out, name, name_len, err):
        return False
    for k in range(nd.attr_start, nd.attr_start + nd.attr_count):
        a = &d.attrs[k]
        name = name_bytes(d, a.name, &name_len)
        if not put_cstr(out, " ", err) or not put_bytes(out, name, name_len, err) or not put_cstr(out, '="', err):
            return False
        if a.kind == AV_VALUE:
            if not put_slice(out, &d.vals, a.val_off, a.val_len, True, err):
                return False
        elif a.kind == AV_OWN_NAME:
            # a valueless boolean attribute reads as its own name (no character to escape)
            if not put_bytes(out, name, name_len, err):
                return False
        if not put_cstr(out, '"', err):
            return False
    return True


cdef bint put_end_tag(Buf* out, DocData* d, int32_t i, bint with_tail, int* err) noexcept nogil:
    cdef Node* nd = &d.nodes[i]
    cdef const uchar* name
    cdef Py_ssize_t name_len
    name = name_bytes(d, nd.tag, &name_len)
    if not put_cstr(out, "</", err) or not put_bytes(out, name, name_len, err) or not put_cstr(out, ">", err):
        return False
    return not with_tail or put_slice(out, &d.text, nd.tail_off, nd.tail_len, False, err)


cdef bint xml_plain_c(Buf* out, DocData* d, int32_t root) noexcept nogil:
    """The element ``root`` and its subtree (its own tail excepted), in document order."""
    cdef int32_t i = root
    cdef Node* nd
    while True:
        nd = &d.nodes[i]
        if not put_start_tag(out, d, i, &d.error):
            return False
        if nd.text_off < 0 and nd.first < 0:
            # no text, no children: an empty element tag
            if not put_cstr(out, "/>", &d.error):
                return False
            if i != root and not put_slice(out, &d.text, nd.tail_off, nd.tail_len, False, &d.error):
                return False
        else:
            if not put_cstr(out, ">", &d.error) or not put_slice(out, &d.text, nd.text_off, nd.text_len, False, &d.error):
                return False
            if nd.first >= 0:
                i = nd.first
                continue
            if not put_end_tag(out, d, i, i != root, &d.error):
                return False
        # climb while there is no next sibling, closing the ancestors
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            if not put_end_tag(out, d, i, i != root, &d.error):
                return False
        if i == root:
            return True
        i = d.nodes[i].next


def tostring_xml(CElement el not None, bint with_tail=True):
    """``trafila.html.serialize.tostring(el, encoding="unicode")`` for a core
    element: the plain XML method, and the element's tail when ``with_tail``.
    Under an XHTML doctype libxml2 writes XHTML (serialize's _XmlWriter): that
    rare case goes to the reference serializer, on this element's view."""
    cdef CDocument doc = el.doc
    cdef Buf out
    cdef bint ok
    cdef Node* nd
    doc._check(el.idx)
    info = doc.docinfo
    if info.has_doctype():
        from trafila.html import serialize
        if serialize.is_xhtml_doctype(info.public_id, info.system_url):
            return serialize.tostring(el, encoding="unicode", with_tail=with_tail)
    memset(&out, 0, sizeof(Buf))
    with nogil:
        ok = xml_plain_c(&out, &doc.d, el.idx)
        if ok and with_tail:
            nd = &doc.d.nodes[el.idx]
            ok = put_slice(&out, &doc.d.text, nd.tail_off, nd.tail_len, False, &doc.d.error)
    try:
        if not ok:
            _raise_doc_error(doc)
        return utf8_str(out.data, out.len) if out.len else ""
    finally:
        buf_free(&out)
