# The Python boundary: parse_document / document_fromstring / fromstring
# (trafila.html.__init__), on the C document, and their reference-model forms.

import re as _re

from trafila.dom import DocInfo, Document, Element, NO_VALUE
from trafila.html import ParserError

_new_reference_element = Element.__new__

# lxml.etree: _parseMemoryDocument refuses a str with an encoding declaration
# (no "^": match() anchors at its position, so ``match(src, start)`` tests ``src[start:]``)
_XML_DECL_ENCODING = _re.compile(r"(<\?xml[^>]+)\s+encoding\s*=\s*[\"'][^\"']*[\"'](\s*\?>|)", _re.U).match
# lxml.html: _looks_like_full_html_unicode / _looks_like_full_html_bytes
_LOOKS_FULL_STR = _re.compile(r"\s*<(?:html|!doctype)", _re.I).match
_LOOKS_FULL_BYTES = _re.compile(rb"\s*<(?:html|!doctype)", _re.I).match
# lxml (apihelpers.pxi: _utf8) refuses such text when fromstring merges bodies
_NOT_XML_COMPATIBLE = _re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


cdef _raise_error(int err):
    if err == ERR_TOO_LARGE:
        raise MemoryError("document too large for the compiled core (arenas are limited to 2 GiB)")
    raise MemoryError("out of memory while parsing")


cdef bint _slice_keeps_kind(str s, Py_ssize_t start):
    """Whether ``s[start:]`` has the PEP 393 kind of ``s``: the input layer reads a str by
    its kind (surrogates, the U+FEFF rule), so a slice is only parsed in place when no
    character that sets the kind lies before ``start``."""
    cdef int kind = PyUnicode_KIND(s)
    cdef const void* data = PyUnicode_DATA(s)
    cdef Py_UCS4 floor = 0x100 if kind == 2 else 0x10000
    cdef Py_ssize_t i
    if kind == 1:
        return True
    for i in range(start):
        if _u_read(kind, data, i) >= floor:
            return False
    return True


cpdef CDocument parse_document(src, Py_ssize_t start=0):
    """Parse ``src`` (str, bytes or bytearray) into a CDocument, as trafila.html.parse_document does;
    from ``start`` on: as ``parse_document(src[start:])`` without the copy."""
    cdef CDocument doc = CDocument()
    cdef Input inp
    cdef int kind
    cdef const void* data
    cdef Py_ssize_t length
    cdef bint ascii
    cdef object keep
    memset(&inp, 0, sizeof(Input))
    if start < 0 or start > len(src):
        raise IndexError("parse_document: start out of range")
    if start and isinstance(src, str) and not _slice_keeps_kind(<str>src, start):
        src = src[start:]
        start = 0
    if isinstance(src, str):
        if _XML_DECL_ENCODING(src, start):
            raise ValueError(
                "Unicode strings with encoding declaration are not supported. "
                "Please use bytes input or XML fragments without declaration."
            )
        keep = src
        kind = PyUnicode_KIND(keep)
        data = (<const char*>PyUnicode_DATA(keep)) + start * kind
        length = PyUnicode_GET_LENGTH(keep) - start
        ascii = PyUnicode_IS_ASCII(keep)
        with nogil:
            input_from_str_data(&inp, kind, data, length, ascii)
    else:
        keep = src if type(src) is bytes else bytes(src)
        data = PyBytes_AS_STRING(keep) + start
        length = PyBytes_GET_SIZE(keep) - start
        with nogil:
            input_from_bytes(&inp, <const uchar*>data, length)
    if inp.error:
        input_free(&inp)
        _raise_error(inp.error)
    with nogil:
        parse_input_c(&inp, &doc.d)
        input_free(&inp)
    if doc.d.error:
        _raise_error(doc.d.error)
    return doc


cdef bint parse_input_c(Input* inp, DocData* d) noexcept nogil:
    """Parse the converted input into the empty ``d``; False without memory (``d.error``)."""
    cdef Parser p
    memset(&p, 0, sizeof(Parser))
    p.s = inp.s
    p.n = inp.n
    p.d = d
    p.insert_mode = INSERT_INITIAL
    p.dt_name_off = -1
    p.dt_pub_off = -1
    p.dt_sys_off = -1
    # the text arena is most of the input: one allocation up front
    buf_reserve(&d.text, inp.n // 2 + 64, &d.error)
    if not d.error:
        parse_document_c(&p)
    buf_free(&p.scratch)
    return not d.error


cdef bint parse_bytes_c(DocData* d, const uchar* s, Py_ssize_t n) noexcept nogil:
    """parse_document(bytes) into the empty ``d``; False without memory (``d.error``)."""
    cdef Input inp
    cdef bint ok
    memset(&inp, 0, sizeof(Input))
    input_from_bytes(&inp, s, n)
    if inp.error:
        d.error = inp.error
        input_free(&inp)
        return False
    ok = parse_input_c(&inp, d)
    input_free(&inp)
    return ok


cdef inline bint _ci_word_at(const uchar* s, Py_ssize_t n, Py_ssize_t i, const char* w) noexcept nogil:
    "The lower-case ASCII word ``w`` at s[i:], ASCII case-insensitively."
    cdef Py_ssize_t k = 0
    while w[k] != 0:
        if i + k >= n or _ascii_lower(s[i + k]) != <uchar>w[k]:
            return False
        k += 1
    return True


cdef bint looks_full_html_bytes_c(const uchar* s, Py_ssize_t n) noexcept nogil:
    """_LOOKS_FULL_BYTES: ``rb"\\s*<(?:html|!doctype)"`` (re.I, ASCII) matches at the start."""
    cdef Py_ssize_t i = 0
    while i < n and (s[i] == 32 or (9 <= s[i] <= 13)):
        i += 1
    if i >= n or s[i] != 60:
        return False
    return _ci_word_at(s, n, i + 1, "html") or _ci_word_at(s, n, i + 1, "!doctype")


cdef int fromstring_root_c(DocData* d, bint is_full_html, int32_t* root) noexcept nogil:
    """fromstring's choice of the element to return, on the parsed ``d``: 0 done (``*root``;
    the body renamed div/span where lxml.html renames it), 1 the root has several bodies or
    heads (nothing changed: the Python path merges them), 2 the document is empty."""
    cdef int32_t top, c, body = -1, last, i
    cdef int n_bodies = 0, n_heads = 0
    cdef bint block = False
    if d.n_roots == 0:
        return 2
    top = d.roots[0]
    root[0] = top
    if is_full_html:
        return 0
    c = d.nodes[top].first
    while c >= 0:
        if d.nodes[c].tag == ID_BODY:
            if body < 0:
                body = c
            n_bodies += 1
        elif d.nodes[c].tag == ID_HEAD:
            n_heads += 1
        c = d.nodes[c].next
    if n_bodies > 1 or n_heads > 1:
        return 1
    if n_heads or body < 0:
        return 0
    last = d.nodes[body].last
    if (last >= 0 and d.nodes[body].first == last and _blank_slot_c(d, d.nodes[body].text_off, d.nodes[body].text_len)
            and _blank_slot_c(d, d.nodes[last].tail_off, d.nodes[last].tail_len)):
        root[0] = last
        return 0
    i = body
    while i >= 0:
        if known_flags(d.nodes[i].tag) & F_BLOCK:
            block = True
            break
        i = dom_preorder_next(d, i, body)
    d.nodes[body].tag = ID_DIV if block else ID_SPAN
    root[0] = body
    return 0


cdef int32_t _root_or_raise(CDocument doc) except -2:
    if doc.d.n_roots == 0:
        raise ParserError("Document is empty")
    return doc.d.roots[0]


def document_fromstring(src):
    """The CDocument with ``root_index`` the document's root element; ParserError when there is none."""
    cdef CDocument doc = parse_document(src)
    doc.root_index = _root_or_raise(doc)
    return doc


cdef object _slot(CDocument doc, int32_t i, bint tail):
    cdef Node* nd = &doc.d.nodes[i]
    if tail:
        return slice_str(&doc.d.text, nd.tail_off, nd.tail_len)
    return slice_str(&doc.d.text, nd.text_off, nd.text_len)


cdef _set_slot(CDocument doc, int32_t i, bint tail, str value):
    cdef bytes b = value.encode("utf-8")
    cdef Py_ssize_t before = doc.d.text.len
    if not buf_append(&doc.d.text, <const uchar*><const char*>b, len(b), &doc.d.error):
        _raise_error(doc.d.error)
    cdef Node* nd = &doc.d.nodes[i]
    if tail:
        nd.tail_off = <int32_t>before
        nd.tail_len = <int32_t>len(b)
    else:
        nd.text_off = <int32_t>before
        nd.text_len = <int32_t>len(b)


cdef str _checked(str text):
    if _NOT_XML_COMPATIBLE.search(text):
        raise ValueError("All strings must be XML compatible: Unicode or ASCII, no NULL bytes or control characters")
    return text


cdef list _children_of(CDocument doc, int32_t i):
    cdef list out = []
    cdef int32_t c = doc.d.nodes[i].first
    while c >= 0:
        out.append(c)
        c = doc.d.nodes[c].next
    return out


cdef _drop_tree(CDocument doc, int32_t el):
    # lxml.html: HtmlMixin.drop_tree -- remove el, keep its tail in place
    cdef int32_t parent = doc.d.nodes[el].parent
    cdef int32_t prev = doc.d.nodes[el].prev
    tail = _slot(doc, el, True)
    if tail:
        if prev < 0:
            _set_slot(doc, parent, False, _checked((_slot(doc, parent, False) or "") + tail))
        else:
            _set_slot(doc, prev, True, _checked((_slot(doc, prev, True) or "") + tail))
    unlink_node(&doc.d, el)


cdef bint _contains_block_level_tag(CDocument doc, int32_t top):
    stack = [top]
    cdef int32_t i, c
    while stack:
        i = stack.pop()
        if known_flags(doc.d.nodes[i].tag) & F_BLOCK:
            return True
        c = doc.d.nodes[i].first
        while c >= 0:
            stack.append(c)
            c = doc.d.nodes[c].next
    return False


def fromstring(src, Py_ssize_t start=0):
    """The CDocument with ``root_index`` the element lxml.html.fromstring returns (trafila.html.fromstring);
    from ``start`` on: as ``fromstring(src[start:])`` without the copy."""
    cdef bint is_full_html
    cdef int32_t root, body, other, child, last
    cdef int r
    cdef CDocument doc
    if start and not isinstance(src, str):
        src = src[start:]
        start = 0
    if isinstance(src, (bytes, bytearray)):
        is_full_html = _LOOKS_FULL_BYTES(src) is not None
    else:
        is_full_html = _LOOKS_FULL_STR(src, start) is not None
    doc = parse_document(src, start)
    r = fromstring_root_c(&doc.d, is_full_html, &root)
    if r == 0:
        doc.root_index = root
        return doc
    root = _root_or_raise(doc)
    doc.root_index = root
    bodies = [c for c in _children_of(doc, root) if doc.d.nodes[c].tag == ID_BODY]
    body = -1
    if bodies:
        body = bodies[0]
        for other in bodies[1:]:
            # several bodies are merged into the first; their attributes are lost
            text = _slot(doc, other, False)
            if text:
                last = doc.d.nodes[body].last
                if last >= 0:
                    _set_slot(doc, last, True, _checked((_slot(doc, last, True) or "") + text))
                else:
                    _set_slot(doc, body, False, _checked((_slot(doc, body, False) or "") + text))
            for child in _children_of(doc, other):
                append_child(&doc.d, body, child)
            _drop_tree(doc, other)
    heads = [c for c in _children_of(doc, root) if doc.d.nodes[c].tag == ID_HEAD]
    if heads:
        head = heads[0]
        for other in heads[1:]:
            for child in _children_of(doc, other):
                append_child(&doc.d, head, child)
            _drop_tree(doc, other)
        return doc
    if body < 0:
        return doc
    last = doc.d.nodes[body].last
    if last >= 0 and doc.d.nodes[body].first == last:
        text = _slot(doc, body, False)
        tail = _slot(doc, last, True)
        if (not text or not text.strip()) and (not tail or not tail.strip()):
            doc.root_index = last
            return doc
    doc.d.nodes[body].tag = ID_DIV if _contains_block_level_tag(doc, body) else ID_SPAN
    doc.root_index = body
    return doc


def document_fromstring_reference(src):
    """The trafila.dom Element trafila.html.document_fromstring returns for ``src``."""
    return document_fromstring(src).reference_element()


def fromstring_reference(src):
    """The trafila.dom Element trafila.html.fromstring returns for ``src``."""
    return fromstring(src).reference_element()


def parse_document_reference(src):
    """The trafila.dom Document trafila.html.parse_document returns for ``src``."""
    return parse_document(src).to_reference()


def dump_document(src):
    """The canonical dump (trafila.html._debug.dump_document) of ``src`` parsed by the core."""
    return parse_document(src).dump()
