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


def descendants(CElement top not None, object names=None, bint include_self=False):
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
from cpython.unicode cimport PyUnicode_FromKindAndData


cdef extern from *:
    """
    /* The first of a str's code units that is a C0 control but TAB, LF or CR, or U+FFFE/
       U+FFFF (n when none). With SSE2 (every x86-64) 16 bytes a step, branch-free inside
       64-byte blocks; the block with a hit, the tail and every other machine go unit by unit. */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif

    static inline int trafila_invalid_unit(uint32_t c) {
        if (c < 0x20) return c != 0x09 && c != 0x0A && c != 0x0D;
        return c == 0xFFFE || c == 0xFFFF;
    }

    static Py_ssize_t trafila_find_invalid_1(const uint8_t* s, Py_ssize_t n) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i c1f = _mm_set1_epi8(0x1F), t9 = _mm_set1_epi8(0x09);
        const __m128i t10 = _mm_set1_epi8(0x0A), t13 = _mm_set1_epi8(0x0D);
        while (i + 64 <= n) {
            __m128i acc = _mm_setzero_si128();
            int k;
            for (k = 0; k < 64; k += 16) {
                __m128i v = _mm_loadu_si128((const __m128i*)(s + i + k));
                /* unsigned v <= 0x1F: max(v, 0x1F) == 0x1F */
                __m128i low = _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f);
                __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, t9), _mm_cmpeq_epi8(v, t10)),
                                          _mm_cmpeq_epi8(v, t13));
                acc = _mm_or_si128(acc, _mm_andnot_si128(ok, low));
            }
            if (_mm_movemask_epi8(acc)) break;
            i += 64;
        }
    #endif
        for (; i < n; i++)
            if (s[i] < 0x20 && trafila_invalid_unit(s[i])) return i;
        return n;
    }

    static Py_ssize_t trafila_find_invalid_2(const uint16_t* s, Py_ssize_t n) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i hi = _mm_set1_epi16((short)0xFFE0), zero = _mm_setzero_si128();
        const __m128i one = _mm_set1_epi16(1), ffff = _mm_set1_epi16((short)0xFFFF);
        const __m128i t9 = _mm_set1_epi16(0x09), t10 = _mm_set1_epi16(0x0A), t13 = _mm_set1_epi16(0x0D);
        while (i + 32 <= n) {
            __m128i acc = _mm_setzero_si128();
            int k;
            for (k = 0; k < 32; k += 8) {
                __m128i v = _mm_loadu_si128((const __m128i*)(s + i + k));
                __m128i low = _mm_cmpeq_epi16(_mm_and_si128(v, hi), zero);
                __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi16(v, t9), _mm_cmpeq_epi16(v, t10)),
                                          _mm_cmpeq_epi16(v, t13));
                /* U+FFFE and U+FFFF: v | 1 == 0xFFFF */
                __m128i nonchar = _mm_cmpeq_epi16(_mm_or_si128(v, one), ffff);
                acc = _mm_or_si128(acc, _mm_or_si128(_mm_andnot_si128(ok, low), nonchar));
            }
            if (_mm_movemask_epi8(acc)) break;
            i += 32;
        }
    #endif
        for (; i < n; i++)
            if (trafila_invalid_unit(s[i])) return i;
        return n;
    }

    static Py_ssize_t trafila_find_invalid_4(const uint32_t* s, Py_ssize_t n) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i hi = _mm_set1_epi32((int)0xFFFFFFE0u), zero = _mm_setzero_si128();
        const __m128i one = _mm_set1_epi32(1), ffff = _mm_set1_epi32(0xFFFF);
        const __m128i t9 = _mm_set1_epi32(0x09), t10 = _mm_set1_epi32(0x0A), t13 = _mm_set1_epi32(0x0D);
        while (i + 16 <= n) {
            __m128i acc = _mm_setzero_si128();
            int k;
            for (k = 0; k < 16; k += 4) {
                __m128i v = _mm_loadu_si128((const __m128i*)(s + i + k));
                __m128i low = _mm_cmpeq_epi32(_mm_and_si128(v, hi), zero);
                __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi32(v, t9), _mm_cmpeq_epi32(v, t10)),
                                          _mm_cmpeq_epi32(v, t13));
                __m128i nonchar = _mm_cmpeq_epi32(_mm_or_si128(v, one), ffff);
                acc = _mm_or_si128(acc, _mm_or_si128(_mm_andnot_si128(ok, low), nonchar));
            }
            if (_mm_movemask_epi8(acc)) break;
            i += 16;
        }
    #endif
        for (; i < n; i++)
            if (trafila_invalid_unit(s[i])) return i;
        return n;
    }
    """
    Py_ssize_t trafila_find_invalid_1(const uint8_t* s, Py_ssize_t n) nogil
    Py_ssize_t trafila_find_invalid_2(const uint16_t* s, Py_ssize_t n) nogil
    Py_ssize_t trafila_find_invalid_4(const uint32_t* s, Py_ssize_t n) nogil


cdef Py_ssize_t _find_invalid_xml(int kind, const void* data, Py_ssize_t start, Py_ssize_t n) noexcept nogil:
    "The index of the first invalid code unit at or after ``start``, ``n`` when none."
    if kind == PyUnicode_1BYTE_KIND:
        return start + trafila_find_invalid_1(<const uint8_t*>data + start, n - start)
    if kind == PyUnicode_2BYTE_KIND:
        return start + trafila_find_invalid_2(<const uint16_t*>data + start, n - start)
    return start + trafila_find_invalid_4(<const uint32_t*>data + start, n - start)


# upstream: trafilatura.utils.repair_faulty_html
def strip_invalid_xml_chars(str s not None):
    """``INVALID_XML_CHARS.sub("", s)`` (repair_faulty_html's deletion of
    ``[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]``): the runs between them copied whole
    (re's character-class scan takes about 30 ns a character on a big page).
    ``s`` itself comes back when there is nothing to delete."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s), i, nxt, j = 0
    cdef int kind = PyUnicode_KIND(s)
    cdef const char* data = <const char*>PyUnicode_DATA(s)
    cdef char* out
    with nogil:
        i = _find_invalid_xml(kind, data, 0, n)
    if i == n:
        return s
    out = <char*>malloc(<size_t>n * <size_t>kind)
    if out == NULL:
        raise MemoryError()
    try:
        with nogil:
            memcpy(out, data, <size_t>(i * kind))
            j = i
            while i < n:
                i += 1  # the invalid unit
                nxt = _find_invalid_xml(kind, data, i, n)
                memcpy(out + j * kind, data + i * kind, <size_t>((nxt - i) * kind))
                j += nxt - i
                i = nxt
        # deleting U+FFFE/U+FFFF may leave a narrower string: FromKindAndData makes it canonical
        return PyUnicode_FromKindAndData(kind, out, j)
    finally:
        free(out)


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


def delete_by_tags(CElement tree not None, tags, python_delete, replay):
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


# -- whitespace collapse (trafila.text.collapse_whitespace) --------------------------------

cdef extern from "Python.h":
    bint _ws_isspace "Py_UNICODE_ISSPACE" (Py_UCS4 ch) noexcept nogil
    # own names: another .pxi may cimport these from cpython.unicode (declared with the GIL)
    Py_UCS4 _u_read "PyUnicode_READ" (int kind, const void* data, Py_ssize_t index) noexcept nogil
    void _u_write "PyUnicode_WRITE" (int kind, void* data, Py_ssize_t index, Py_UCS4 value) noexcept nogil


cdef uchar _ASCII_SPACE[128]


cdef void _ascii_space_init() noexcept nogil:
    cdef int c
    for c in range(128):
        _ASCII_SPACE[c] = _ws_isspace(<Py_UCS4>c)


_ascii_space_init()


cdef inline bint _is_space(Py_UCS4 c) noexcept nogil:
    return _ASCII_SPACE[c] if c < 128 else _ws_isspace(c)


cdef Py_ssize_t _collapse_1(const uint8_t* s, Py_ssize_t n, uint8_t* out) noexcept nogil:
    cdef Py_ssize_t i, j = 0
    cdef uint8_t c
    cdef bint pending = False
    for i in range(n):
        c = s[i]
        if _is_space(c):
            pending = j > 0
            continue
        if pending:
            out[j] = 0x20
            j += 1
            pending = False
        out[j] = c
        j += 1
    return j


cdef Py_ssize_t _collapse_units(int kind, const void* data, Py_ssize_t n, void* out) noexcept nogil:
    """The words of ``data`` (split at Py_UNICODE_ISSPACE, str.split's own test) joined by
    one space, written to ``out`` (room for ``n`` units of ``kind``); the number written."""
    cdef Py_ssize_t i, j = 0
    cdef Py_UCS4 c
    cdef bint pending = False
    if kind == PyUnicode_1BYTE_KIND:
        return _collapse_1(<const uint8_t*>data, n, <uint8_t*>out)
    for i in range(n):
        c = _u_read(kind, data, i)
        if _is_space(c):
            pending = j > 0
            continue
        if pending:
            _u_write(kind, out, j, 0x20)
            j += 1
            pending = False
        _u_write(kind, out, j, c)
        j += 1
    return j


def collapse_whitespace(str s not None):
    """``" ".join(s.split())`` without the list of words: one pass over the code units with
    str.split's own whitespace test (the result is a canonical str: its kind is recomputed)."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s), m
    cdef int kind = PyUnicode_KIND(s)
    cdef const void* data = PyUnicode_DATA(s)
    cdef void* out
    if n == 0:
        return ""
    out = malloc(<size_t>n * <size_t>kind)
    if out == NULL:
        raise MemoryError()
    try:
        with nogil:
            m = _collapse_units(kind, data, n, out)
        return PyUnicode_FromKindAndData(kind, out, m)
    finally:
        free(out)


# -- repair_faulty_html's test of the first lines (both releases' utils.py) -------------------

cdef inline bint _is_line_break(Py_UCS4 c) noexcept nogil:
    # str.splitlines' boundaries (\r\n counts as one)
    if c <= 0x1E:
        return c == 10 or c == 13 or c == 11 or c == 12 or c >= 0x1C
    return c == 0x85 or c == 0x2028 or c == 0x2029


cdef bint _has_html_open(int kind, const void* data, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    # "<html" in s[a:b]
    cdef Py_ssize_t i
    for i in range(a, b - 4):
        if (_u_read(kind, data, i) == 60 and _u_read(kind, data, i + 1) == 104
                and _u_read(kind, data, i + 2) == 116 and _u_read(kind, data, i + 3) == 109
                and _u_read(kind, data, i + 4) == 108):
            return True
    return False


def faulty_html_line(str s not None, Py_ssize_t pos, Py_ssize_t stop, int count):
    """Whether one of the first ``count`` lines of ``s[pos:stop]`` (as ``str.splitlines``
    cuts them) holds "<html" and ends with "/>" (repair_faulty_html's test), without
    making the lines."""
    cdef int kind = PyUnicode_KIND(s)
    cdef const void* data = PyUnicode_DATA(s)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s), e
    cdef bint found = False
    if stop > n:
        stop = n
    if pos < 0:
        pos = 0
    with nogil:
        while count > 0 and pos < stop:
            e = pos
            while e < stop and not _is_line_break(_u_read(kind, data, e)):
                e += 1
            if (e - pos >= 2 and _u_read(kind, data, e - 2) == 47 and _u_read(kind, data, e - 1) == 62
                    and _has_html_open(kind, data, pos, e)):
                found = True
                break
            if e >= stop:
                break
            if _u_read(kind, data, e) == 13 and e + 1 < stop and _u_read(kind, data, e + 1) == 10:
                e += 1
            pos = e + 1
            count -= 1
    return found


# -- prune_unwanted_nodes with a backup (2.3.1's htmlprocessing.py) ---------------------------

def outermost(list elements not None):
    """``[e for e in dict.fromkeys(elements) if not any(a in m for a in e.iterancestors())]``
    with ``m`` the deduplicated elements (first-seen order kept): the matches not inside
    another. NotImplemented unless all are the core's elements of one document."""
    cdef Py_ssize_t k, n = len(elements)
    cdef CDocument doc
    cdef DocData* d
    cdef uint8_t* marks
    cdef int32_t i, a
    cdef list out = []
    if n == 0:
        return out
    for el in elements:
        if type(el) is not CElement or (<CElement>el).doc is not (<CElement>elements[0]).doc:
            return NotImplemented
    doc = (<CElement>elements[0]).doc
    d = &doc.d
    marks = <uint8_t*>calloc(<size_t>d.n_nodes + 1, 1)
    if marks == NULL:
        raise MemoryError()
    try:
        for k in range(n):
            marks[(<CElement>elements[k]).idx] = 1
        for k in range(n):
            i = (<CElement>elements[k]).idx
            if marks[i] == 2:
                continue  # a duplicate: seen first earlier
            marks[i] = 2
            a = d.nodes[i].parent
            while a >= 0 and not marks[a]:
                a = d.nodes[a].parent
            if a < 0:
                out.append(elements[k])
    finally:
        free(marks)
    return out
