# The text output in C: trafilatura's xmltotxt for the plain-text rendering
# (include_formatting off) of both releases, as one walk over the node arrays
# into a UTF-8 buffer (the joined ``returnlist``), then ``sanitize`` over that
# buffer (2.3.1: preserve_space, no trimming; 1.11.0: every line trimmed) and
# one decode; ``html.unescape`` runs only when an '&' is left. Python's
# whitespace and printability are the interpreter's own (Py_UNICODE_ISSPACE,
# Py_UNICODE_ISPRINTABLE), so the result is the reference's code point for
# code point. Trees holding what the C walk does not render (graphic, ref:
# links and images) or deeper than OUT_MAX_DEPTH go back to the Python path
# (the function returns None), before anything is written.


cdef extern from "Python.h":
    # pure table lookups of the running interpreter's Unicode database: no GIL needed
    bint _out_isspace "Py_UNICODE_ISSPACE" (Py_UCS4 ch) noexcept nogil
    bint _out_isprintable "Py_UNICODE_ISPRINTABLE" (Py_UCS4 ch) noexcept nogil
from libc.string cimport strlen

cdef enum:
    OUT_MAX_DEPTH = 150
    OUT_MAX_SPAN = 100000
    CP_NONE = 0x110001  # _last_char's "": nothing appended yet, or the last piece was empty
    CP_BAD = 0x110000   # a byte sequence that is no UTF-8 character (never in a valid arena)


cdef struct OutCtx:
    DocData* d
    Buf out             # the joined returnlist
    Buf tmp             # one piece being built (replace_element_text, a tail)
    Buf fin             # the sanitized text
    int err
    int fallback
    bint last_empty
    bint refs           # 2.3.1's walk renders ref itself (1.11.0's hands it back)
    int32_t t_cell, t_item, t_p, t_head, t_quote, t_table, t_lb, t_list, t_row
    int32_t t_graphic, t_ref, t_hi, t_del, t_code, t_comments
    int32_t a_role, a_span, a_target


# -- UTF-8 and Python's character classes ------------------------------------------

cdef inline uint32_t _u8_at(const uchar* s, Py_ssize_t n, Py_ssize_t* pos) noexcept nogil:
    """The character at ``pos[0]`` (advanced past it); CP_BAD for a broken sequence."""
    cdef Py_ssize_t i = pos[0]
    cdef uchar c = s[i]
    if c < 0x80:
        pos[0] = i + 1
        return c
    if 0xC2 <= c < 0xE0 and i + 1 < n:
        pos[0] = i + 2
        return ((c & 0x1F) << 6) | (s[i + 1] & 0x3F)
    if 0xE0 <= c < 0xF0 and i + 2 < n:
        pos[0] = i + 3
        return ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
    if 0xF0 <= c < 0xF5 and i + 3 < n:
        pos[0] = i + 4
        return ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F)
    pos[0] = i + 1
    return CP_BAD


cdef inline Py_ssize_t _u8_back(const uchar* s, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    """The offset of the character that ends at ``end`` (> start)."""
    cdef Py_ssize_t i = end - 1
    while i > start and (s[i] & 0xC0) == 0x80 and end - i < 4:
        i -= 1
    return i


cdef inline bint _py_space(uint32_t c) noexcept nogil:
    "str.isspace of one character (str.split/strip's whitespace)."
    if c < 128:
        return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)
    if c >= CP_BAD:
        return False
    return _out_isspace(<Py_UCS4>c)


cdef inline bint _py_printable(uint32_t c) noexcept nogil:
    if c < 128:
        return 32 <= c < 127
    if c >= CP_BAD:
        return True
    return _out_isprintable(<Py_UCS4>c)


cdef inline bint _py_linebreak(uint32_t c) noexcept nogil:
    "A line boundary of str.splitlines (\\r\\n is one, see the caller)."
    if c < 128:
        return (10 <= c <= 13) or (28 <= c <= 30)
    return c == 0x85 or c == 0x2028 or c == 0x2029


cdef bint _has_nonspace(const uchar* s, Py_ssize_t n) noexcept nogil:
    "text_chars_test on a non-None slice: non-empty and not isspace()."
    cdef Py_ssize_t pos = 0
    while pos < n:
        if not _py_space(_u8_at(s, n, &pos)):
            return True
    return False


cdef inline void _strip_range(const uchar* s, Py_ssize_t* a, Py_ssize_t* b) noexcept nogil:
    "str.strip() of s[a:b] as the new bounds."
    cdef Py_ssize_t pos, back
    while a[0] < b[0]:
        pos = a[0]
        if not _py_space(_u8_at(s, b[0], &pos)):
            break
        a[0] = pos
    while b[0] > a[0]:
        back = _u8_back(s, a[0], b[0])
        pos = back
        if not _py_space(_u8_at(s, b[0], &pos)):
            break
        b[0] = back


cdef inline uint32_t _first_cp(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t pos = 0
    return _u8_at(s, n, &pos)


cdef inline uint32_t _last_cp_of(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t pos = _u8_back(s, 0, n)
    return _u8_at(s, n, &pos)


# -- pieces ------------------------------------------------------------------------------

cdef inline const uchar* _text_of(OutCtx* c, int32_t i, Py_ssize_t* n) noexcept nogil:
    "The node's text slice, NULL for None."
    cdef Node* nd = &c.d.nodes[i]
    if nd.text_off < 0:
        n[0] = 0
        return NULL
    n[0] = nd.text_len
    return c.d.text.data + nd.text_off


cdef inline const uchar* _tail_of(OutCtx* c, int32_t i, Py_ssize_t* n) noexcept nogil:
    cdef Node* nd = &c.d.nodes[i]
    if nd.tail_off < 0:
        n[0] = 0
        return NULL
    n[0] = nd.tail_len
    return c.d.text.data + nd.tail_off


cdef inline void _put(OutCtx* c, const uchar* s, Py_ssize_t n) noexcept nogil:
    "returnlist.append(s) (s may be empty: _last_char then gives '')."
    if n > 0 and not buf_append(&c.out, s, n, &c.err):
        return
    c.last_empty = n == 0


cdef inline void _put_lit(OutCtx* c, const char* s) noexcept nogil:
    _put(c, <const uchar*>s, <Py_ssize_t>strlen(s))


cdef void _put_escaped(OutCtx* c, const uchar* s, Py_ssize_t n, bint in_cell) noexcept nogil:
    "returnlist.append(_escape_cell(s, in_cell)): '|' to '\\|', newline to space in a cell."
    cdef Py_ssize_t k
    cdef uchar ch
    if not in_cell:
        _put(c, s, n)
        return
    if not buf_reserve(&c.out, 2 * n, &c.err):
        return
    for k in range(n):
        ch = s[k]
        if ch == 124:
            c.out.data[c.out.len] = 92
            c.out.data[c.out.len + 1] = 124
            c.out.len += 2
        else:
            c.out.data[c.out.len] = 32 if ch == 10 else ch
            c.out.len += 1
    c.last_empty = n == 0


cdef inline uint32_t _last_char(OutCtx* c) noexcept nogil:
    if c.last_empty or c.out.len == 0:
        return CP_NONE
    return _last_cp_of(c.out.data, c.out.len)


cdef inline bint _is_sep(uint32_t ch) noexcept nogil:
    "in SEPARATORS (' ', '\\n', '|', '')"
    return ch == CP_NONE or ch == 32 or ch == 10 or ch == 124


cdef void _append_spaced(OutCtx* c, const uchar* s, Py_ssize_t n) noexcept nogil:
    if n > 0 and s[0] == 32 and _is_sep(_last_char(c)):
        s += 1
        n -= 1
    if n > 0:
        _put(c, s, n)


# -- node helpers -------------------------------------------------------------------

cdef inline bint _tag_in_nl231(OutCtx* c, int32_t t) noexcept nogil:
    # NEWLINE_ELEMS (2.3.1): graphic head lb list p quote row table
    return (t == c.t_head or t == c.t_lb or t == c.t_list or t == c.t_p or t == c.t_quote or t == c.t_row
            or t == c.t_table or t == c.t_graphic)


cdef inline bint _consumes(OutCtx* c, int32_t i) noexcept nogil:
    cdef int32_t t = c.d.nodes[i].tag
    return (t == c.t_hi or t == c.t_ref or t == c.t_del) and c.d.nodes[i].first >= 0


cdef inline bint _formattable(OutCtx* c, int32_t t) noexcept nogil:
    return t == c.t_hi or t == c.t_ref or t == c.t_del or t == c.t_code


cdef bint _attr_is(OutCtx* c, int32_t i, int32_t nid, const char* value) noexcept nogil:
    "el.get(name) == value (a valueless attribute reads '' or its own name)."
    cdef int32_t k
    cdef Attr* a
    cdef Py_ssize_t n = <Py_ssize_t>strlen(value), ln
    cdef const uchar* s
    if nid < 0:
        return False
    k = dom_attr_find(c.d, i, nid)
    if k < 0:
        return False
    a = &c.d.attrs[k]
    if a.kind == AV_VALUE:
        return a.val_len == n and (n == 0 or memcmp(c.d.vals.data + a.val_off, value, <size_t>n) == 0)
    if a.kind == AV_OWN_NAME:
        s = name_bytes(c.d, a.name, &ln)
        return ln == n and (n == 0 or memcmp(s, value, <size_t>n) == 0)
    return n == 0


cdef bint _out_attr_value(OutCtx* c, int32_t i, int32_t nid, const uchar** v, Py_ssize_t* n) noexcept nogil:
    "el.get(name) into v/n (a valueless attribute reads '' or its own name); False when absent."
    cdef int32_t k
    cdef Attr* a
    v[0] = NULL
    n[0] = 0
    if nid < 0:
        return False
    k = dom_attr_find(c.d, i, nid)
    if k < 0:
        return False
    a = &c.d.attrs[k]
    if a.kind == AV_VALUE:
        v[0] = <const uchar*>c.d.vals.data + a.val_off
        n[0] = a.val_len
    elif a.kind == AV_OWN_NAME:
        v[0] = name_bytes(c.d, a.name, n)
    return True


cdef bint _prescan(OutCtx* c, int32_t top) noexcept nogil:
    "No graphic (nor ref, for 1.11.0) in the subtree and no deeper than OUT_MAX_DEPTH; else fallback."
    cdef DocData* d = c.d
    cdef int32_t i = top, t
    cdef int depth = 0
    while True:
        t = d.nodes[i].tag
        if t == c.t_graphic or (t == c.t_ref and not c.refs):
            c.fallback = 1
            return False
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            depth += 1
            if depth > OUT_MAX_DEPTH:
                c.fallback = 1
                return False
            continue
        while i != top and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            depth -= 1
        if i == top:
            return True
        i = d.nodes[i].next


# -- 2.3.1 -------------------------------------------------------------------------------

cdef void _md_link_text(OutCtx* c, const uchar* s, Py_ssize_t n, Buf* b) noexcept nogil:
    """_md_link's text: a bracket not after a backslash gets one; a code span (a run of
    backticks up to the next run of exactly as many, one character at least between) is
    kept whole. A run that opens no span (none closes it, or a backslash precedes it) is
    kept and the scan goes on after it, as the regex's lookbehinds skip its later backticks."""
    cdef Py_ssize_t p = 0, kept = 0, run, j, run2
    cdef bint found
    while p < n:
        if s[p] == 96:  # `
            run = 1
            while p + run < n and s[p + run] == 96:
                run += 1
            found = False
            if p == 0 or s[p - 1] != 92:
                j = p + run + 1
                while j < n:
                    if s[j] == 96:
                        run2 = 1
                        while j + run2 < n and s[j + run2] == 96:
                            run2 += 1
                        if run2 == run:
                            found = True
                            p = j + run
                            break
                        j += run2
                    else:
                        j += 1
            if not found:
                p += run
        elif (s[p] == 91 or s[p] == 93) and (p == 0 or s[p - 1] != 92):  # [ ] not after \
            if not buf_append(b, s + kept, p - kept, &c.err) or not buf_append(b, <const uchar*>"\\", 1, &c.err):
                return
            kept = p
            p += 1
        else:
            p += 1
    buf_append(b, s + kept, n - kept, &c.err)


cdef void _md_link(OutCtx* c, const uchar* s, Py_ssize_t n, const uchar* url, Py_ssize_t un, bint has_url,
                   Buf* b) noexcept nogil:
    "[text](url) appended to b; a url holding a space, < > ( or ) goes in <>, \\ < > escaped."
    cdef Py_ssize_t k
    cdef bint angled = False
    if not buf_append(b, <const uchar*>"[", 1, &c.err):
        return
    _md_link_text(c, s, n, b)
    if c.err or not buf_append(b, <const uchar*>"]", 1, &c.err) or not has_url:
        return
    for k in range(un):
        if url[k] == 32 or url[k] == 60 or url[k] == 62 or url[k] == 40 or url[k] == 41:
            angled = True
            break
    if not angled:
        if buf_append(b, <const uchar*>"(", 1, &c.err) and buf_append(b, url, un, &c.err):
            buf_append(b, <const uchar*>")", 1, &c.err)
        return
    if not buf_append(b, <const uchar*>"(<", 2, &c.err):
        return
    for k in range(un):
        if (url[k] == 92 or url[k] == 60 or url[k] == 62) and not buf_append(b, <const uchar*>"\\", 1, &c.err):
            return
        if not buf_append(b, url + k, 1, &c.err):
            return
    buf_append(b, <const uchar*>">)", 2, &c.err)


cdef void _ref_text231(OutCtx* c, int32_t i, Buf* b, Py_ssize_t start) noexcept nogil:
    """replace_element_text's ref step on b[start:]: its stripped text becomes the link
    (the first occurrence of the stripped text is where the strip left it)."""
    cdef Py_ssize_t a = start, z = b.len
    cdef const uchar* url
    cdef Py_ssize_t un
    cdef bint has_url
    cdef Buf seg
    _strip_range(b.data, &a, &z)
    if a == z:
        return
    has_url = _out_attr_value(c, i, c.a_target, &url, &un) and un > 0   # get("target") or None
    memset(&seg, 0, sizeof(Buf))
    if not buf_append(&seg, b.data + start, b.len - start, &c.err):
        return
    b.len = a
    _md_link(c, seg.data + (a - start), z - a, url, un, has_url, b)
    if not c.err:
        buf_append(b, seg.data + (z - start), seg.len - (z - start), &c.err)
    buf_free(&seg)


cdef void _ret_text231(OutCtx* c, int32_t i, Buf* b) noexcept nogil:
    "replace_element_text(el, False) appended to b."
    cdef DocData* d = c.d
    cdef Py_ssize_t start = b.len, n, a, z
    cdef const uchar* s
    cdef int32_t ch, t
    if _consumes(c, i):
        # _collect_inline_text
        s = _text_of(c, i, &n)
        if n > 0 and not buf_append(b, s, n, &c.err):
            return
        ch = d.nodes[i].first
        while ch >= 0:
            t = d.nodes[ch].tag
            if t == c.t_lb:
                if not buf_append(b, <const uchar*>"\n", 1, &c.err):
                    return
            elif _formattable(c, t):
                _ret_text231(c, ch, b)
                if c.err:
                    return
            else:
                s = _text_of(c, ch, &n)
                if n > 0 and not buf_append(b, s, n, &c.err):
                    return
            s = _tail_of(c, ch, &n)
            if n > 0 and not buf_append(b, s, n, &c.err):
                return
            ch = d.nodes[ch].next
    else:
        s = _text_of(c, i, &n)
        if n > 0 and not buf_append(b, s, n, &c.err):
            return
    if d.nodes[i].tag == c.t_ref:
        _ref_text231(c, i, b, start)
    elif d.nodes[i].tag == c.t_cell:
        a = start
        z = b.len
        _strip_range(b.data, &a, &z)
        if a > start:
            memmove(b.data + start, b.data + a, <size_t>(z - a))
        b.len = start + (z - a)
        if b.len > start and d.nodes[i].first >= 0:
            buf_append(b, <const uchar*>" ", 1, &c.err)


cdef bint _item_needs_marker(OutCtx* c, int32_t item) noexcept nogil:
    cdef DocData* d = c.d
    cdef Py_ssize_t n
    cdef const uchar* s
    cdef int32_t ch, j
    s = _text_of(c, item, &n)
    if s != NULL and _has_nonspace(s, n):
        return True
    ch = d.nodes[item].first
    while ch >= 0:
        if d.nodes[ch].tag == c.t_list:
            return False
        # "".join(child.itertext()) + (child.tail or ""): the child's text, its
        # descendants' texts and tails, its own tail (graphic: none, see the prescan)
        s = _tail_of(c, ch, &n)
        if s != NULL and _has_nonspace(s, n):
            return True
        s = _text_of(c, ch, &n)
        if s != NULL and _has_nonspace(s, n):
            return True
        j = d.nodes[ch].first
        while j >= 0:
            s = _text_of(c, j, &n)
            if s != NULL and _has_nonspace(s, n):
                return True
            if d.nodes[j].first >= 0:
                j = d.nodes[j].first
                continue
            while True:
                s = _tail_of(c, j, &n)
                if s != NULL and _has_nonspace(s, n):
                    return True
                if d.nodes[j].next >= 0:
                    j = d.nodes[j].next
                    break
                j = d.nodes[j].parent
                if j == ch:
                    j = -1
                    break
        ch = d.nodes[ch].next
    return False


cdef void _list_marker(OutCtx* c, int32_t item) noexcept nogil:
    "_list_marker(item, False): two spaces per enclosing list beyond the first, then '- '."
    cdef int32_t a = c.d.nodes[item].parent
    cdef Py_ssize_t lists = 0, k
    while a >= 0:
        if c.d.nodes[a].tag == c.t_list:
            lists += 1
        a = c.d.nodes[a].parent
    if not buf_reserve(&c.out, 2 * lists + 2, &c.err):
        return
    for k in range(2 * (lists - 1)):
        c.out.data[c.out.len] = 32
        c.out.len += 1
    c.out.data[c.out.len] = 45
    c.out.data[c.out.len + 1] = 32
    c.out.len += 2
    c.last_empty = False


cdef bint _opens_item(OutCtx* c, int32_t i) noexcept nogil:
    cdef DocData* d = c.d
    cdef int32_t parent
    cdef Py_ssize_t n
    cdef const uchar* s
    while d.nodes[i].tag != c.t_item:
        parent = d.nodes[i].parent
        if parent < 0 or d.nodes[i].prev >= 0:
            return False
        s = _text_of(c, parent, &n)
        if s != NULL and _has_nonspace(s, n):
            return False
        i = parent
    return True


cdef inline bint _closes(OutCtx* c, int32_t i, int32_t tag) noexcept nogil:
    "_closes_container(el, tag)"
    cdef int32_t nxt
    if c.d.nodes[i].tag == tag:
        return c.d.nodes[i].first < 0
    nxt = c.d.nodes[i].next
    return nxt < 0 or (tag == c.t_item and c.d.nodes[nxt].tag == c.t_item)


cdef void _append_tail231(OutCtx* c, int32_t i, bint in_cell, bint in_item) noexcept nogil:
    cdef DocData* d = c.d
    cdef Py_ssize_t n, a, z
    cdef const uchar* s = _tail_of(c, i, &n)
    cdef int32_t tag = d.nodes[i].tag, nxt
    cdef Py_ssize_t t0
    if n == 0:
        return
    if in_cell or in_item or tag == c.t_list:
        a = 0
        z = n
        _strip_range(s, &a, &z)
        c.tmp.len = 0
        if z > a and (_py_space(_first_cp(s, n)) or not _formattable(c, tag)):
            if not buf_append(&c.tmp, <const uchar*>" ", 1, &c.err):
                return
        if not buf_append(&c.tmp, s + a, z - a, &c.err):
            return
        nxt = d.nodes[i].next
        if (_py_space(_last_cp_of(s, n)) and nxt >= 0
                and (_formattable(c, d.nodes[nxt].tag) or d.nodes[nxt].tag == c.t_graphic)):
            if not buf_append(&c.tmp, <const uchar*>" ", 1, &c.err):
                return
        if in_cell:
            # _escape_cell, then _append_spaced
            t0 = c.tmp.len
            if not buf_reserve(&c.tmp, 2 * t0, &c.err):
                return
            for a in range(t0):
                if c.tmp.data[a] == 124:
                    c.tmp.data[c.tmp.len] = 92
                    c.tmp.data[c.tmp.len + 1] = 124
                    c.tmp.len += 2
                else:
                    c.tmp.data[c.tmp.len] = 32 if c.tmp.data[a] == 10 else c.tmp.data[a]
                    c.tmp.len += 1
            _append_spaced(c, c.tmp.data + t0, c.tmp.len - t0)
        else:
            _append_spaced(c, c.tmp.data, c.tmp.len)
        return
    if _tag_in_nl231(c, tag):
        a = 0
        z = n
        _strip_range(s, &a, &z)  # lstrip: only a is used
        _put(c, s + a, n - a)
        return
    _put(c, s, n)


cdef void _pe231(OutCtx* c, int32_t i, bint in_cell, bint in_item) noexcept nogil:
    "process_element(el, returnlist, False, in_cell, in_item)"
    cdef DocData* d = c.d
    cdef int32_t tag = d.nodes[i].tag, ch, first
    cdef uint32_t last
    cdef bint is_nl, consumes, renders_inline, text_true, last_in_item, last_in_cell, head_cell
    cdef Py_ssize_t n, cells, k
    cdef const uchar* s
    if c.err or c.fallback:
        return
    is_nl = _tag_in_nl231(c, tag)
    in_cell = in_cell or tag == c.t_cell
    in_item = in_item or tag == c.t_item
    if tag == c.t_cell and d.nodes[i].prev < 0:
        _put_lit(c, "| ")

    last = _last_char(c)
    s = _text_of(c, i, &n)
    text_true = n > 0
    first = d.nodes[i].first
    if is_nl and not in_cell and not in_item and not _is_sep(last):
        _put_lit(c, "\n")
    elif ((tag == c.t_head or tag == c.t_p or tag == c.t_quote or tag == c.t_table)
          and not _py_space(last) and not _is_sep(last)
          and (text_true or first < 0 or d.nodes[first].tag != c.t_lb)):
        _put_lit(c, " ")

    consumes = _consumes(c, i)
    renders_inline = text_true or consumes

    if tag == c.t_item and not in_cell and _item_needs_marker(c, i):
        _list_marker(c, i)

    if renders_inline and (tag != c.t_item or consumes or (s != NULL and _has_nonspace(s, n))):
        c.tmp.len = 0
        _ret_text231(c, i, &c.tmp)
        if c.err:
            return
        _put_escaped(c, c.tmp.data, c.tmp.len, in_cell)

    if tag == c.t_list and in_item:
        last = _last_char(c)
        if last != 10 and last != CP_NONE:
            _put_lit(c, "\n")

    if not consumes:
        ch = first
        while ch >= 0:
            _pe231(c, ch, in_cell, in_item)
            if c.err or c.fallback:
                return
            ch = d.nodes[ch].next

    if not renders_inline:
        if is_nl:
            if tag == c.t_row:
                cells = 0
                head_cell = False
                ch = first
                while ch >= 0:
                    if d.nodes[ch].tag == c.t_cell:
                        cells += 1
                        if not head_cell and _attr_is(c, ch, c.a_role, "head"):
                            head_cell = True
                    ch = d.nodes[ch].next
                if head_cell:
                    _put_lit(c, "\n|")
                    for k in range(cells):
                        if not buf_append(&c.out, <const uchar*>"---|", 4, &c.err):
                            return
                    _put_lit(c, "\n")
            elif not in_cell and not (tag == c.t_lb and in_item and _opens_item(c, i)):
                _put_lit(c, "\n")
        elif tag != c.t_cell and tag != c.t_item:
            if in_cell:
                _append_tail231(c, i, in_cell, in_item)
            return

    last_in_item = in_item and _closes(c, i, c.t_item)
    last_in_cell = in_cell and _closes(c, i, c.t_cell)
    if is_nl and not in_cell and not in_item:
        _put_lit(c, "\n")
    elif tag == c.t_cell:
        _put_lit(c, " | ")
    elif (tag == c.t_head or tag == c.t_item) and in_cell and not last_in_cell:
        _append_spaced(c, <const uchar*>" ", 1)
    elif (not (tag == c.t_code or tag == c.t_del or tag == c.t_head or tag == c.t_hi or tag == c.t_ref
               or tag == c.t_item or tag == c.t_cell)
          and not last_in_item and not last_in_cell):
        _append_spaced(c, <const uchar*>" ", 1)

    _append_tail231(c, i, in_cell, in_item)

    if last_in_item and not in_cell:
        _put_lit(c, "\n")


# -- 1.11.0 ---------------------------------------------------------------------------------

cdef inline bint _tag_in_nl111(OutCtx* c, int32_t t) noexcept nogil:
    # NEWLINE_ELEMS (1.11.0): code graphic head lb list p quote row table
    return _tag_in_nl231(c, t) or t == c.t_code


cdef bint _has_ancestor(OutCtx* c, int32_t i, int32_t tag) noexcept nogil:
    cdef int32_t a = c.d.nodes[i].parent
    if tag < 0:
        return False
    while a >= 0:
        if c.d.nodes[a].tag == tag:
            return True
        a = c.d.nodes[a].parent
    return False


cdef Py_ssize_t _row_span(OutCtx* c, int32_t i) noexcept nogil:
    "int(row.get('span', 1)) for plain ASCII digits; -1: let Python say it."
    cdef int32_t k
    cdef Attr* a
    cdef Py_ssize_t v = 0, j
    cdef uchar ch
    if c.a_span < 0:
        return 1
    k = dom_attr_find(c.d, i, c.a_span)
    if k < 0:
        return 1
    a = &c.d.attrs[k]
    if a.kind != AV_VALUE or a.val_len < 1 or a.val_len > 6:
        return -1
    for j in range(a.val_len):
        ch = c.d.vals.data[a.val_off + j]
        if ch < 48 or ch > 57:
            return -1
        v = v * 10 + (ch - 48)
    if v > OUT_MAX_SPAN:
        return -1
    return v


cdef void _pe111(OutCtx* c, int32_t i) noexcept nogil:
    "1.11.0's process_element(el, returnlist, False)"
    cdef DocData* d = c.d
    cdef Node* nd = &d.nodes[i]
    cdef int32_t tag = nd.tag, ch, first = nd.first, j
    cdef Py_ssize_t n, span, cells, k
    cdef const uchar* s
    cdef bint head_cell
    if c.err or c.fallback:
        return
    s = _text_of(c, i, &n)
    if s != NULL:
        # replace_element_text(el, False)
        if tag == c.t_item and n > 0:
            _put_lit(c, "- ")
            _put(c, s, n)
            _put_lit(c, "\n")
        else:
            _put(c, s, n)
            if tag == c.t_cell and n > 0 and first >= 0 and d.nodes[first].tag == c.t_p:
                _put_lit(c, " ")
    ch = first
    while ch >= 0:
        _pe111(c, ch)
        if c.err or c.fallback:
            return
        ch = d.nodes[ch].next
    nd = &d.nodes[i]
    if nd.text_off < 0 and nd.tail_off < 0:
        if _tag_in_nl111(c, tag):
            if tag == c.t_row:
                span = _row_span(c, i)
                if span < 0:
                    c.fallback = 1
                    return
                cells = 0
                if first >= 0:
                    j = first
                    while j >= 0:
                        if d.nodes[j].tag == c.t_cell:
                            cells += 1
                        if d.nodes[j].first >= 0:
                            j = d.nodes[j].first
                            continue
                        while j != i and d.nodes[j].next < 0:
                            j = d.nodes[j].parent
                        if j == i:
                            break
                        j = d.nodes[j].next
                for k in range(span - cells):
                    if not buf_append(&c.out, <const uchar*>"|", 1, &c.err):
                        return
                _put_lit(c, "\n")
                head_cell = False
                ch = first
                while ch >= 0:
                    if d.nodes[ch].tag == c.t_cell and _attr_is(c, ch, c.a_role, "head"):
                        head_cell = True
                        break
                    ch = d.nodes[ch].next
                if head_cell:
                    _put_lit(c, "\n")
                    for k in range(span):
                        if not buf_append(&c.out, <const uchar*>"---|", 4, &c.err):
                            return
                    _put_lit(c, "\n")
            else:
                _put_lit(c, "\n")
        elif tag != c.t_cell:
            return
    if _tag_in_nl111(c, tag) and not _has_ancestor(c, i, c.t_cell):
        _put_lit(c, "\n\n")
    elif tag == c.t_cell:
        _put_lit(c, " | ")
    elif tag == c.t_comments:
        _put_lit(c, "\n\n")
    elif not (tag == c.t_del or tag == c.t_head or tag == c.t_hi or tag == c.t_ref):
        _put_lit(c, " ")
    s = _tail_of(c, i, &n)
    if s != NULL:
        _put(c, s, n)


# -- sanitize ---------------------------------------------------------------------------------

cdef inline bint _fin_cp(OutCtx* c, uint32_t ch) noexcept nogil:
    "Append one character to fin as UTF-8 (U+2424 is dropped: sanitize's final replace)."
    cdef uchar* p
    if ch == 0x2424:
        return True
    if not buf_reserve(&c.fin, 4, &c.err):
        return False
    p = c.fin.data + c.fin.len
    if ch < 0x80:
        p[0] = <uchar>ch
        c.fin.len += 1
    elif ch < 0x800:
        p[0] = <uchar>(0xC0 | (ch >> 6))
        p[1] = <uchar>(0x80 | (ch & 0x3F))
        c.fin.len += 2
    elif ch < 0x10000:
        p[0] = <uchar>(0xE0 | (ch >> 12))
        p[1] = <uchar>(0x80 | ((ch >> 6) & 0x3F))
        p[2] = <uchar>(0x80 | (ch & 0x3F))
        c.fin.len += 3
    else:
        p[0] = <uchar>(0xF0 | (ch >> 18))
        p[1] = <uchar>(0x80 | ((ch >> 12) & 0x3F))
        p[2] = <uchar>(0x80 | ((ch >> 6) & 0x3F))
        p[3] = <uchar>(0x80 | (ch & 0x3F))
        c.fin.len += 4
    return True


cdef inline uint32_t _entity_at(const uchar* s, Py_ssize_t pos, Py_ssize_t end, Py_ssize_t* skip) noexcept nogil:
    "line_processing's '&#13;', '&#10;', '&nbsp;' at s[pos] ('&'): the character, 0 if none."
    if end - pos >= 5 and s[pos + 1] == 35 and s[pos + 2] == 49 and s[pos + 4] == 59:
        if s[pos + 3] == 51:
            skip[0] = 5
            return 13
        if s[pos + 3] == 48:
            skip[0] = 5
            return 10
    if (end - pos >= 6 and s[pos + 1] == 110 and s[pos + 2] == 98 and s[pos + 3] == 115 and s[pos + 4] == 112
            and s[pos + 5] == 59):
        skip[0] = 6
        return 0xA0
    return 0


cdef void _sanitize(OutCtx* c, bint trim) noexcept nogil:
    """sanitize(text, True) (2.3.1) or sanitize(text) (1.11.0, ``trim``) of out into fin:
    splitlines, line_processing of each line, empty lines dropped, joined by newlines,
    U+2424 removed."""
    cdef const uchar* s = c.out.data
    cdef Py_ssize_t n = c.out.len, pos = 0, nxt, skip, line_mark
    cdef uint32_t ch
    cdef bint first_line = True, line_any, pending_space
    while pos < n:
        # one line: [pos, its line break)
        line_mark = c.fin.len
        if not first_line:
            if not buf_append(&c.fin, <const uchar*>"\n", 1, &c.err):
                return
        line_any = False
        pending_space = False
        while pos < n:
            nxt = pos
            ch = _u8_at(s, n, &nxt)
            if ch == CP_BAD:
                c.fallback = 1
                return
            if _py_linebreak(ch):
                if ch == 13 and nxt < n and s[nxt] == 10:
                    nxt += 1
                pos = nxt
                break
            if ch == 38:
                skip = 0
                ch = _entity_at(s, pos, n, &skip)
                if ch:
                    nxt = pos + skip
                else:
                    ch = 38
            pos = nxt
            if not _py_printable(ch) and not _py_space(ch):
                continue
            if trim:
                if _py_space(ch):
                    pending_space = line_any
                    continue
                if pending_space:
                    if not _fin_cp(c, 32):
                        return
                    pending_space = False
            line_any = True
            if not _fin_cp(c, ch):
                return
        if line_any:
            first_line = False
        else:
            c.fin.len = line_mark


from html import unescape as _html_unescape


def xmltotxt_plain(CElement top not None, bint v1_11_0=False):
    """trafilatura's ``xmltotxt(top, False)``: 2.3.1's (``unescape(sanitize(text,
    True) or '')``) or, with ``v1_11_0``, 1.11.0's (``unescape(sanitize(text) or
    '')``); None when the tree holds what only the Python path renders (graphic,
    ref) or is too deep for the C walk."""
    cdef CDocument doc = top.doc
    cdef OutCtx c
    cdef int32_t root = top.idx
    cdef object res = None
    doc._check(root)
    memset(&c, 0, sizeof(OutCtx))
    c.d = &doc.d
    c.last_empty = True
    c.t_cell = _lookup(doc, "cell")
    c.t_item = _lookup(doc, "item")
    c.t_p = _lookup(doc, "p")
    c.t_head = _lookup(doc, "head")
    c.t_quote = _lookup(doc, "quote")
    c.t_table = _lookup(doc, "table")
    c.t_lb = _lookup(doc, "lb")
    c.t_list = _lookup(doc, "list")
    c.t_row = _lookup(doc, "row")
    c.t_graphic = _lookup(doc, "graphic")
    c.t_ref = _lookup(doc, "ref")
    c.t_hi = _lookup(doc, "hi")
    c.t_del = _lookup(doc, "del")
    c.t_code = _lookup(doc, "code")
    c.t_comments = _lookup(doc, "comments")
    c.a_role = _lookup(doc, "role")
    c.a_span = _lookup(doc, "span")
    c.a_target = _lookup(doc, "target")
    c.refs = not v1_11_0
    try:
        with nogil:
            if _prescan(&c, root):
                if v1_11_0:
                    _pe111(&c, root)
                else:
                    _pe231(&c, root, False, False)
                if not c.err and not c.fallback:
                    _sanitize(&c, v1_11_0)
        if c.err:
            if c.err == ERR_TOO_LARGE:
                raise MemoryError("text too large for the compiled core's output buffer")
            raise MemoryError("out of memory")
        if c.fallback:
            return None
        if c.fin.len == 0:
            return ""
        try:
            res = PyUnicode_DecodeUTF8(<const char*>c.fin.data, c.fin.len, NULL)
        except UnicodeDecodeError:
            return None
        if memchr(c.fin.data, 38, <size_t>c.fin.len) != NULL:
            res = _html_unescape(res)
        return res
    finally:
        buf_free(&c.out)
        buf_free(&c.tmp)
        buf_free(&c.fin)
