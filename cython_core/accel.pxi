# Stage accelerators: C versions of the reference stages' hot tree helpers,
# called by the 2.3.1 stages when the tree is the core's (see
# trafila/_core_impl.py). Each gives exactly what its reference counterpart
# gives on the same tree (the parity harness runs the stages both ways).

cdef enum:
    MAX_NAME_SET = 64


cdef inline uchar _ascii_lower(uchar c) noexcept nogil:
    """ASCII A-Z to a-z, every other byte unchanged (shared by the accelerators)."""
    return c + 32 if 65 <= c <= 90 else c


cdef int _name_ids(CDocument doc, object names, int32_t* ids) except -2:
    """The document's ids of ``names`` (an iterable of str) into ``ids``;
    their count, names the document never saw left out; -1 when there are
    more than MAX_NAME_SET (the caller then compares by str)."""
    cdef int n = 0
    cdef int32_t nid
    for name in names:
        nid = _lookup(doc, name)
        if nid < 0:
            continue
        if n == MAX_NAME_SET:
            return -1
        ids[n] = nid
        n += 1
    return n


cdef inline bint _id_in(int32_t tag, const int32_t* ids, int n) noexcept nogil:
    cdef int k
    for k in range(n):
        if ids[k] == tag:
            return True
    return False


def descendants(CElement top, object names=None, bint include_self=False):
    """The descendants of ``top`` (and ``top`` first when ``include_self``)
    in document order, as a list of proxies; only those whose tag is in
    ``names`` when it is not None. A snapshot, as the reference's
    ``desc_list`` / readability's ``_preorder`` give."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n = 0
    cdef bint all_names = names is None
    cdef int32_t root = top.idx, i
    cdef list out = []
    doc._check(root)
    if not all_names:
        if not isinstance(names, (set, frozenset, tuple, list)):
            names = tuple(names)
        n = _name_ids(doc, names, ids)
        if n == 0:
            return out
        if n < 0:
            return [e for e in descendants(top, None, include_self) if e.tag in names]
    if include_self and (all_names or _id_in(d.nodes[root].tag, ids, n)):
        out.append(_proxy(doc, root))
    i = d.nodes[root].first
    while i >= 0:
        if all_names or _id_in(d.nodes[i].tag, ids, n):
            out.append(_proxy(doc, i))
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            break
        i = d.nodes[i].next
    return out


from libc.stdint cimport uint16_t
from cpython.unicode cimport PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_1BYTE_KIND, PyUnicode_2BYTE_KIND


cdef inline bint _invalid_xml(Py_UCS4 c) noexcept nogil:
    # [\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]
    if c < 0x20:
        return c != 0x09 and c != 0x0A and c != 0x0D
    return c == 0xFFFE or c == 0xFFFF


cdef bint _scan_invalid_xml(int kind, const void* data, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, k
    cdef const uint8_t* b1
    cdef const uint16_t* b2
    cdef const uint32_t* b4
    cdef uint64_t w, v
    if kind == PyUnicode_1BYTE_KIND:
        b1 = <const uint8_t*>data
        i = 0
        # eight code units at a time: a word is looked into only when some byte is below
        # 0x20 (the bit trick flags exactly the bytes < 0x20 of a word, bytes >= 0x80 never)
        while i + 8 <= n:
            memcpy(&w, b1 + i, 8)
            if ((w - <uint64_t>0x2020202020202020) & ~w & <uint64_t>0x8080808080808080) != 0:
                for k in range(i, i + 8):
                    if b1[k] < 0x20 and _invalid_xml(b1[k]):
                        return True
            i += 8
        while i < n:
            if b1[i] < 0x20 and _invalid_xml(b1[i]):
                return True
            i += 1
    elif kind == PyUnicode_2BYTE_KIND:
        b2 = <const uint16_t*>data
        i = 0
        # four code units a word: a lane below 0x20 (the same trick on 16-bit lanes), or
        # U+FFFE/U+FFFF (lane | 1 == 0xFFFF: a zero lane of ~(w | 1...)), sends the word to
        # the unit-by-unit test
        while i + 4 <= n:
            memcpy(&w, b2 + i, 8)
            v = ~(w | <uint64_t>0x0001000100010001)
            if (((w - <uint64_t>0x0020002000200020) & ~w & <uint64_t>0x8000800080008000) != 0
                    or ((v - <uint64_t>0x0001000100010001) & ~v & <uint64_t>0x8000800080008000) != 0):
                for k in range(i, i + 4):
                    if _invalid_xml(b2[k]):
                        return True
            i += 4
        while i < n:
            if _invalid_xml(b2[i]):
                return True
            i += 1
    else:
        b4 = <const uint32_t*>data
        for i in range(n):
            if _invalid_xml(b4[i]):
                return True
    return False


def has_invalid_xml_chars(str s):
    """Whether ``s`` holds a character of ``[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]``
    (what trafilatura's repair_faulty_html deletes): a scan of the str's own
    code units, so the regex substitution runs only when there is something to delete."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s)
    cdef int kind = PyUnicode_KIND(s)
    cdef const void* data = PyUnicode_DATA(s)
    cdef bint found
    with nogil:
        found = _scan_invalid_xml(kind, data, n)
    return found


# -- deletions (trafilatura's delete_element, tree_cleaning's deletion walk) ---------

cdef bint _utf8_xml_ok(const uchar* s, Py_ssize_t n) noexcept nogil:
    """No character lxml's setters refuse (C0 controls but TAB/LF/CR, U+FFFE,
    U+FFFF, surrogates) in the UTF-8 slice."""
    cdef Py_ssize_t i
    cdef uchar c
    for i in range(n):
        c = s[i]
        if c < 0x20:
            if c != 0x09 and c != 0x0A and c != 0x0D:
                return False
        elif c == 0xEF:
            if i + 2 < n and s[i + 1] == 0xBF and (s[i + 2] == 0xBE or s[i + 2] == 0xBF):
                return False
        elif c == 0xED:
            if i + 1 < n and s[i + 1] >= 0xA0:
                return False
    return True


cdef inline bint _slot_xml_ok(DocData* d, int32_t off, int32_t n) noexcept nogil:
    return off < 0 or _utf8_xml_ok(d.text.data + off, n)


cdef int _drop_tree_c(DocData* d, int32_t i) noexcept nogil:
    """treeops.drop_tree when it is certain to succeed: 1 done, 0 the
    concatenation must go through the Python setters (a refused character:
    they raise as lxml does), -1 out of memory."""
    cdef Node* nd = &d.nodes[i]
    cdef int32_t target
    if nd.tail_off >= 0 and nd.tail_len > 0:
        if not _slot_xml_ok(d, nd.tail_off, nd.tail_len):
            return 0
        if nd.prev < 0:
            target = nd.parent
            if not _slot_xml_ok(d, d.nodes[target].text_off, d.nodes[target].text_len):
                return 0
        else:
            target = nd.prev
            if not _slot_xml_ok(d, d.nodes[target].tail_off, d.nodes[target].tail_len):
                return 0
    return 1 if dom_drop_tree(d, i) else -1


cdef _delete_one(CDocument doc, int32_t i, bint keep_tail, object python_delete):
    cdef int r
    if doc.d.nodes[i].parent < 0:
        return
    if not keep_tail:
        unlink_node(&doc.d, i)
        return
    r = _drop_tree_c(&doc.d, i)
    if r == 0:
        python_delete(_proxy(doc, i), True)
    elif r < 0:
        _raise_doc_error(doc)


def delete_elements(elements, bint keep_tail, python_delete):
    """``for el in elements: delete_element(el, keep_tail)`` (trafilatura's
    xml.delete_element: a parentless element is left alone; the tail joins the
    previous sibling's tail or the parent's text, or leaves with the element
    when not ``keep_tail``). ``python_delete(el, keep_tail)`` is the reference
    function, called where a joined string must be checked by the Python
    setters, and for elements of another model."""
    cdef CElement ce
    for el in elements:
        if type(el) is not CElement:
            python_delete(el, keep_tail)
            continue
        ce = <CElement>el
        _delete_one(ce.doc, ce.idx, keep_tail, python_delete)


def delete_by_tags(CElement tree, tags, python_delete, replay):
    """tree_cleaning's ``for tag in tags: for el in tree.iter(tag):
    delete_element(el)`` (treeops.deletion_walk): when no match of a tag holds
    another one (and the tree itself does not match), lxml's walk meets the
    matches in document order, deleted here in C; otherwise ``replay(tag)``
    runs the live walk in Python."""
    cdef CDocument doc = tree.doc
    cdef DocData* d = &doc.d
    cdef int32_t root = tree.idx, i, a, nid
    cdef bint nested
    cdef list found
    doc._check(root)
    for tag in tags:
        nid = _lookup(doc, tag)
        if nid < 0:
            continue  # no element of the document has that name
        if d.nodes[root].tag == nid:
            replay(tag)
            continue
        found = []
        nested = False
        i = d.nodes[root].first
        while i >= 0:
            if d.nodes[i].tag == nid:
                a = d.nodes[i].parent
                while a != root:
                    if d.nodes[a].tag == nid:
                        nested = True
                        break
                    a = d.nodes[a].parent
                if nested:
                    break
                found.append(i)
            if d.nodes[i].first >= 0:
                i = d.nodes[i].first
                continue
            while i != root and d.nodes[i].next < 0:
                i = d.nodes[i].parent
            if i == root:
                break
            i = d.nodes[i].next
        if nested:
            replay(tag)
            continue
        for i in found:
            _delete_one(doc, i, True, python_delete)
