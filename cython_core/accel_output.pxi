# The text output in C: trafilatura's xmltotxt for the plain-text rendering
# (include_formatting off) of both releases, as one walk over the node arrays
# into a UTF-8 buffer (the joined ``returnlist``), then ``sanitize`` over that
# buffer (2.3.1: preserve_space, no trimming; 1.11.0: every line trimmed) and
# one decode; ``html.unescape`` runs only when an '&' is left. Python's
# whitespace and printability are the interpreter's own (Py_UNICODE_ISSPACE,
# Py_UNICODE_ISPRINTABLE), so the result is the reference's code point for
# code point. Trees holding what the C walk does not render (graphic; ref for
# 1.11.0) or deeper than OUT_MAX_DEPTH go back to the Python path (the function
# returns None), before anything is written.
#
# 2.3.1 with include_formatting (xmltotxt_formatted): the subtree is copied into a
# scratch document (the reference works on a copy too), the rewrites run on it
# (_escape_and_convert_math_tree, _collapse_emphasis, _merge_adjacent_hi,
# _strip_block_whitespace), then the same walk with c.fmt (markdown markers, block
# escapes, list numbers, U+2424 block ends) and sanitize. Handed back (None, cause in
# xmltotxt_formatted_why): graphic, too deep, a '\(' or '\[' (a possible math span),
# a character lxml refuses in text (the reference's setters raise there).


cdef extern from "Python.h":
    # pure table lookups of the running interpreter's Unicode database: no GIL needed
    bint _out_isspace "Py_UNICODE_ISSPACE" (Py_UCS4 ch) noexcept nogil
    bint _out_isprintable "Py_UNICODE_ISPRINTABLE" (Py_UCS4 ch) noexcept nogil
    bint _out_isdecimal "Py_UNICODE_ISDECIMAL" (Py_UCS4 ch) noexcept nogil
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
    bint fmt            # 2.3.1's include_formatting (xmltotxt_formatted, on its own copy of the tree)
    int32_t t_article, a_rend
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
    has_url = dom_attr_get(c.d, i, c.a_target, &url, &un) and un > 0   # get("target") or None
    memset(&seg, 0, sizeof(Buf))
    if not buf_append(&seg, b.data + start, b.len - start, &c.err):
        return
    b.len = a
    _md_link(c, seg.data + (a - start), z - a, url, un, has_url, b)
    if not c.err:
        buf_append(b, seg.data + (z - start), seg.len - (z - start), &c.err)
    buf_free(&seg)


# -- 2.3.1 with include_formatting: replace_element_text's markdown steps on b[start:] --------

cdef bint _buf_insert(OutCtx* c, Buf* b, Py_ssize_t pos, const uchar* s, Py_ssize_t n) noexcept nogil:
    "b[pos:pos] = s (s not inside b)."
    if n <= 0:
        return True
    if not buf_reserve(b, n, &c.err):
        return False
    memmove(b.data + pos + n, b.data + pos, <size_t>(b.len - pos))
    memcpy(b.data + pos, s, <size_t>n)
    b.len += n
    return True


cdef bint _buf_insert_fill(OutCtx* c, Buf* b, Py_ssize_t pos, uchar ch, Py_ssize_t n) noexcept nogil:
    "b[pos:pos] = chr(ch) * n"
    if n <= 0:
        return True
    if not buf_reserve(b, n, &c.err):
        return False
    memmove(b.data + pos + n, b.data + pos, <size_t>(b.len - pos))
    memset(b.data + pos, ch, <size_t>n)
    b.len += n
    return True


cdef int _hi_marker(OutCtx* c, int32_t i) noexcept nogil:
    "HI_FORMATTING.get(el.get('rend') or ''): 1 '**' (#b), 2 '*' (#i), 3 '`' (#t), 0 none."
    cdef const uchar* v
    cdef Py_ssize_t n
    if not dom_attr_get(c.d, i, c.a_rend, &v, &n) or n != 2 or v[0] != 35:
        return 0
    if v[1] == 98:
        return 1
    if v[1] == 105:
        return 2
    if v[1] == 116:
        return 3
    return 0


cdef const char* _hi_html(OutCtx* c, int32_t i) noexcept nogil:
    "HI_HTML_TAGS.get(rend): 'sup', 'sub', 'u' or NULL."
    cdef const uchar* v
    cdef Py_ssize_t n
    if not dom_attr_get(c.d, i, c.a_rend, &v, &n):
        return NULL
    if n == 4 and memcmp(v, "#sup", 4) == 0:
        return "sup"
    if n == 4 and memcmp(v, "#sub", 4) == 0:
        return "sub"
    if n == 2 and v[0] == 35 and v[1] == 117:
        return "u"
    return NULL


cdef Py_ssize_t _heading_level(OutCtx* c, int32_t i) noexcept nogil:
    "_heading_prefix's count: the rend's second character when it is 1-6, else 2."
    cdef const uchar* v
    cdef Py_ssize_t n, pos = 0
    if not dom_attr_get(c.d, i, c.a_rend, &v, &n) or n < 2:
        return 2
    _u8_at(v, n, &pos)
    if pos < n and 49 <= v[pos] <= 54:
        return v[pos] - 48
    return 2


cdef Py_ssize_t _max_backtick_run(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t k, run = 0, best = 0
    for k in range(n):
        if s[k] == 96:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


cdef void _md_wrap(OutCtx* c, Buf* b, Py_ssize_t start, const char* opening, const char* closing) noexcept nogil:
    """_md_wrap on b[start:]: the markers around the stripped text (the first occurrence of
    the stripped text is where the strip left it: only whitespace comes before)."""
    cdef Py_ssize_t a = start, z = b.len
    _strip_range(b.data, &a, &z)
    if a == z:
        return
    if _buf_insert(c, b, z, <const uchar*>closing, <Py_ssize_t>strlen(closing)):
        _buf_insert(c, b, a, <const uchar*>opening, <Py_ssize_t>strlen(opening))


cdef void _md_code(OutCtx* c, Buf* b, Py_ssize_t start) noexcept nogil:
    "_md_code on b[start:]: the stripped text as a code span (_code_span, _code_fence)."
    cdef Py_ssize_t a = start, z = b.len, fence
    cdef bint pad
    _strip_range(b.data, &a, &z)
    if a == z:
        return
    fence = _max_backtick_run(b.data + a, z - a) + 1
    pad = b.data[a] == 96 or b.data[z - 1] == 96
    if pad and not _buf_insert(c, b, z, <const uchar*>" ", 1):
        return
    if not _buf_insert_fill(c, b, z + pad, 96, fence) or not _buf_insert_fill(c, b, a, 96, fence):
        return
    if pad:
        _buf_insert(c, b, a + fence, <const uchar*>" ", 1)


cdef inline bint _block_end_ok(const uchar* s, Py_ssize_t q, Py_ssize_t n) noexcept nogil:
    "(?=[ \\t]|$) at q: a space or tab, the end, or a newline that ends the text ($ before it)."
    return q == n or s[q] == 32 or s[q] == 9 or (q == n - 1 and s[q] == 10)


cdef void _escape_block_start(OutCtx* c, Buf* b, Py_ssize_t start) noexcept nogil:
    "A backslash before a leading heading/quote/bullet marker, or the '.'/')' of an ordered one."
    cdef const uchar* s = b.data + start
    cdef Py_ssize_t n = b.len - start, k = 0, r, q, pos
    cdef uint32_t ch
    while k < n and s[k] == 32:
        k += 1
    if k > 3 or k == n:
        return
    if s[k] == 35:  # #{1,6}
        r = 0
        while k + r < n and s[k + r] == 35:
            r += 1
        if r <= 6 and _block_end_ok(s, k + r, n):
            _buf_insert(c, b, start + k, <const uchar*>"\\", 1)
        return
    if s[k] == 62:  # >
        _buf_insert(c, b, start + k, <const uchar*>"\\", 1)
        return
    if s[k] == 45 or s[k] == 43:  # - +
        if _block_end_ok(s, k + 1, n):
            _buf_insert(c, b, start + k, <const uchar*>"\\", 1)
        return
    # \d{1,9}[.)]: re's \d is any Unicode decimal digit (str.isdecimal)
    q = k
    r = 0
    while q < n:
        pos = q
        ch = _u8_at(s, n, &pos)
        if ch >= CP_BAD or not ((48 <= ch <= 57) or (ch >= 128 and _out_isdecimal(<Py_UCS4>ch))):
            break
        r += 1
        q = pos
    if 1 <= r <= 9 and q < n and (s[q] == 46 or s[q] == 41) and _block_end_ok(s, q + 1, n):
        _buf_insert(c, b, start + q, <const uchar*>"\\", 1)


cdef void _code_block(OutCtx* c, int32_t code, Buf* b, Py_ssize_t start) noexcept nogil:
    """replace_element_text's code step (formatting): each lb below it adds a newline and its
    tail and is removed from the tree (the walk works on its own copy); text holding a
    newline, or lbs, becomes a fenced block, else a code span."""
    cdef DocData* d = c.d
    cdef int32_t j, nxt
    cdef bint lbs = False
    cdef Py_ssize_t n, fence
    cdef const uchar* s
    j = d.nodes[code].first
    while j >= 0:
        if d.nodes[j].tag == c.t_lb:
            lbs = True
            s = _tail_of(c, j, &n)
            if not buf_append(b, <const uchar*>"\n", 1, &c.err) or not buf_append(b, s, n, &c.err):
                return
        j = dom_preorder_next(d, j, code)
    if lbs:
        j = d.nodes[code].first
        while j >= 0:
            if d.nodes[j].tag == c.t_lb:
                # the next node after j's subtree, then j out of the tree (its tail goes with it)
                nxt = j
                while nxt != code and d.nodes[nxt].next < 0:
                    nxt = d.nodes[nxt].parent
                nxt = -1 if nxt == code else d.nodes[nxt].next
                dom_unlink(d, j)
                j = nxt
            else:
                j = dom_preorder_next(d, j, code)
    elif memchr(b.data + start, 10, <size_t>(b.len - start)) == NULL:
        _md_code(c, b, start)
        return
    fence = _max_backtick_run(b.data + start, b.len - start) + 1
    if fence < 3:
        fence = 3
    if not _buf_insert(c, b, start, <const uchar*>"\n", 1) or not _buf_insert_fill(c, b, start, 96, fence):
        return
    if not buf_append(b, <const uchar*>"\n", 1, &c.err) or not buf_reserve(b, fence + 1, &c.err):
        return
    memset(b.data + b.len, 96, <size_t>fence)
    b.data[b.len + fence] = 10
    b.len += fence + 1


cdef void _format_text231(OutCtx* c, int32_t i, Buf* b, Py_ssize_t start, bint in_cell) noexcept nogil:
    "replace_element_text's include_formatting steps on the non-empty b[start:]."
    cdef int32_t tag = c.d.nodes[i].tag
    cdef Py_ssize_t a, z, level
    cdef int marker
    cdef const char* html
    cdef char opening[8]
    cdef char closing[8]
    if not in_cell and (tag == c.t_p or tag == c.t_quote or tag == c.t_item):
        _escape_block_start(c, b, start)
        if c.err:
            return
    if tag == c.t_article or tag == c.t_list or tag == c.t_table:
        a = start
        z = b.len
        _strip_range(b.data, &a, &z)
        if a > start:
            memmove(b.data + start, b.data + a, <size_t>(z - a))
        b.len = start + (z - a)
    elif tag == c.t_head and not in_cell:
        level = _heading_level(c, i)
        if _buf_insert(c, b, start, <const uchar*>" ", 1):
            _buf_insert_fill(c, b, start, 35, level)
    elif tag == c.t_del:
        _md_wrap(c, b, start, "~~", "~~")
    elif tag == c.t_hi:
        marker = _hi_marker(c, i)
        if marker == 3:
            _md_code(c, b, start)
        elif marker == 1:
            _md_wrap(c, b, start, "**", "**")
        elif marker == 2:
            _md_wrap(c, b, start, "*", "*")
        else:
            html = _hi_html(c, i)
            if html != NULL:
                opening[0] = 60
                closing[0] = 60
                closing[1] = 47
                memcpy(opening + 1, html, strlen(html))
                memcpy(closing + 2, html, strlen(html))
                opening[1 + strlen(html)] = 62
                opening[2 + strlen(html)] = 0
                closing[2 + strlen(html)] = 62
                closing[3 + strlen(html)] = 0
                _md_wrap(c, b, start, opening, closing)
    elif tag == c.t_code:
        _code_block(c, i, b, start)


cdef void _ret_text231(OutCtx* c, int32_t i, Buf* b, bint in_cell) noexcept nogil:
    "replace_element_text(el, c.fmt, in_cell) appended to b."
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
                _ret_text231(c, ch, b, False)
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
    if c.fmt and b.len > start:
        _format_text231(c, i, b, start, in_cell)
        if c.err:
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


cdef Py_ssize_t _list_marker_into(OutCtx* c, int32_t item, uchar* m) noexcept nogil:
    """_list_marker(item, c.fmt) into m (room for 2 * OUT_MAX_DEPTH + 24 bytes), its length: two
    spaces per enclosing list beyond the first, then '- ' or, with formatting under a list
    of rend 'ol', the item's number among its item siblings and '. '."""
    cdef int32_t a = c.d.nodes[item].parent, j
    cdef Py_ssize_t lists = 0, k, len_ = 0, num, digits
    while a >= 0:
        if c.d.nodes[a].tag == c.t_list:
            lists += 1
        a = c.d.nodes[a].parent
    if lists > OUT_MAX_DEPTH + 1:
        # only above a subtree of a deeper tree (the prescan caps the subtree): Python says it
        c.fallback = 1
        return 0
    for k in range(2 * (lists - 1)):
        m[len_] = 32
        len_ += 1
    a = c.d.nodes[item].parent
    if c.fmt and a >= 0 and _attr_is(c, a, c.a_rend, "ol"):
        num = 1
        j = c.d.nodes[item].prev
        while j >= 0:
            if c.d.nodes[j].tag == c.t_item:
                num += 1
            j = c.d.nodes[j].prev
        digits = 0
        k = num
        while k > 0:
            digits += 1
            k //= 10
        for k in range(digits):
            m[len_ + digits - 1 - k] = <uchar>(48 + num % 10)
            num //= 10
        len_ += digits
        m[len_] = 46
    else:
        m[len_] = 45
    m[len_ + 1] = 32
    return len_ + 2


cdef void _list_marker(OutCtx* c, int32_t item) noexcept nogil:
    cdef uchar m[2 * OUT_MAX_DEPTH + 32]
    _put(c, m, _list_marker_into(c, item, m))


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
    if c.fmt and tag == c.t_list and in_item and not in_cell and d.nodes[i].parent >= 0:
        a = 0
        z = n
        _strip_range(s, &a, &z)
        if z > a:
            # blank line and the parent's marker width, else CommonMark continues the last sub-item
            c.tmp.len = 0
            if (not buf_append(&c.tmp, <const uchar*>b"\xe2\x90\xa4\n", 4, &c.err)
                    or not buf_reserve(&c.tmp, 2 * OUT_MAX_DEPTH + 32, &c.err)):
                return
            t0 = _list_marker_into(c, d.nodes[i].parent, c.tmp.data + c.tmp.len)
            memset(c.tmp.data + c.tmp.len, 32, <size_t>t0)
            c.tmp.len += t0
            if buf_append(&c.tmp, s + a, z - a, &c.err):
                _put(c, c.tmp.data, c.tmp.len)
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
        _ret_text231(c, i, &c.tmp, in_cell)
        if c.err:
            return
        _put_escaped(c, c.tmp.data, c.tmp.len, in_cell)
    elif c.fmt and tag == c.t_head and not in_cell and first >= 0:
        # a heading starting with an inline child still needs its # prefix
        k = _heading_level(c, i)
        if not buf_reserve(&c.out, k + 1, &c.err):
            return
        memset(c.out.data + c.out.len, 35, <size_t>k)
        c.out.data[c.out.len + k] = 32
        c.out.len += k + 1
        c.last_empty = False

    if tag == c.t_list and in_item:
        last = _last_char(c)
        if last != 10 and last != CP_NONE:
            _put_lit(c, "\n")

    if not consumes:
        # read again: a code's replace_element_text took its lbs out (formatting)
        ch = d.nodes[i].first
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
        if c.fmt and tag != c.t_row:
            _put(c, <const uchar*>b"\n\xe2\x90\xa4\n", 5)
        else:
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


# -- 2.3.1's tree rewrites before the formatted walk (on the walk's own copy) -------------

cdef enum:
    FMT_OK = 0
    FMT_GRAPHIC = 1     # images: _image_markup stays in Python
    FMT_DEPTH = 2       # deeper than OUT_MAX_DEPTH
    FMT_MATH = 3        # a '\(' or '\[' that may open a math span (_convert_math stays in Python)
    FMT_XMLCHAR = 4     # a character lxml refuses in text (the rewrites' setters raise ValueError)

FMT_WHY_NAMES = ("", "graphic", "depth", "math", "xmlchar")
cdef int _fmt_last_why = FMT_OK


cdef int _fmt_scan_slot(const uchar* s, Py_ssize_t n) noexcept nogil:
    "FMT_MATH from the first backslash before ( or [, FMT_XMLCHAR for a refused character before it."
    cdef Py_ssize_t m = 0
    while m + 1 < n and not (s[m] == 92 and (s[m + 1] == 40 or s[m + 1] == 91)):
        m += 1
    if m + 1 >= n:
        m = n
    # s[m] is ASCII: no character of s[:m] is cut by the bound
    if not _utf8_xml_ok(s, m):
        return FMT_XMLCHAR
    return FMT_MATH if m < n else FMT_OK


cdef int _fmt_prescan(DocData* d, int32_t top, int32_t t_graphic) noexcept nogil:
    "What keeps the subtree from the formatted C walk (FMT_*), FMT_OK when nothing does."
    cdef int32_t i = top
    cdef int depth = 0, why
    cdef Node* nd
    while True:
        nd = &d.nodes[i]
        if nd.tag == t_graphic:
            return FMT_GRAPHIC
        if nd.text_off >= 0:
            why = _fmt_scan_slot(d.text.data + nd.text_off, nd.text_len)
            if why != FMT_OK:
                return why
        if nd.tail_off >= 0:
            why = _fmt_scan_slot(d.text.data + nd.tail_off, nd.tail_len)
            if why != FMT_OK:
                return why
        if nd.first >= 0:
            i = nd.first
            depth += 1
            if depth > OUT_MAX_DEPTH:
                return FMT_DEPTH
            continue
        while i != top and d.nodes[i].next < 0:
            i = d.nodes[i].parent
            depth -= 1
        if i == top:
            return FMT_OK
        i = d.nodes[i].next


cdef inline void _dom_failed(OutCtx* c) noexcept nogil:
    c.err = c.d.error if c.d.error else ERR_MEMORY


cdef inline bint _is_inline_special(uchar b) noexcept nogil:
    # _INLINE_SPECIAL_CHARS: * _ ` ~ [ ] <
    return b == 42 or b == 95 or b == 96 or b == 126 or b == 91 or b == 93 or b == 60


cdef void _escape_inline_specials(OutCtx* c, int32_t i, bint tail) noexcept nogil:
    """_escape_inline_specials on the node's text (tail), set back when it changes: a run of k
    backslashes before a special character becomes 2k + 1 (one pass does what the reference's
    pass per character does: each run belongs to the one character after it)."""
    cdef const uchar* s
    cdef Py_ssize_t n, k, run = 0
    cdef uchar b
    cdef bint any_special = False
    s = _tail_of(c, i, &n) if tail else _text_of(c, i, &n)
    for k in range(n):
        if _is_inline_special(s[k]):
            any_special = True
            break
    if not any_special:
        return
    c.tmp.len = 0
    if not buf_reserve(&c.tmp, 2 * n, &c.err):
        return
    for k in range(n):
        b = s[k]
        if b == 92:
            run += 1
            continue
        if _is_inline_special(b):
            run = 2 * run + 1
        memset(c.tmp.data + c.tmp.len, 92, <size_t>run)
        c.tmp.len += run
        run = 0
        c.tmp.data[c.tmp.len] = b
        c.tmp.len += 1
    memset(c.tmp.data + c.tmp.len, 92, <size_t>run)
    c.tmp.len += run
    if not dom_set_slot(c.d, i, tail, c.tmp.data, c.tmp.len, False):
        _dom_failed(c)


cdef void _escape_and_convert_math_tree(OutCtx* c, int32_t i) noexcept nogil:
    "Texts and tails escaped, code (and hi #t) subtrees left verbatim; no math (see the prescan)."
    cdef int32_t ch, tag = c.d.nodes[i].tag
    if tag == c.t_code or (tag == c.t_hi and _hi_marker(c, i) == 3):
        return
    _escape_inline_specials(c, i, False)
    ch = c.d.nodes[i].first
    while ch >= 0 and not c.err:
        _escape_and_convert_math_tree(c, ch)
        if not c.err:
            _escape_inline_specials(c, ch, True)
        ch = c.d.nodes[ch].next


cdef void _collapse_emphasis(OutCtx* c, int32_t i, int active) noexcept nogil:
    "Splice out repeated emphasis levels in linear hi chains (active: a bit per marker)."
    cdef DocData* d = c.d
    cdef int32_t ch, g, nx
    cdef int m
    cdef Py_ssize_t n
    cdef const uchar* s
    if d.nodes[i].tag == c.t_hi:
        m = _hi_marker(c, i)
        if m:
            active |= 1 << m
        while True:
            s = _text_of(c, i, &n)
            if s != NULL and _has_nonspace(s, n):
                break
            ch = d.nodes[i].first
            if ch < 0 or d.nodes[ch].next >= 0 or d.nodes[ch].tag != c.t_hi:
                break
            s = _tail_of(c, ch, &n)
            if s != NULL and _has_nonspace(s, n):
                break
            m = _hi_marker(c, ch)
            if m == 0 or not (active & (1 << m)):
                break
            if not dom_concat_slot(d, i, False, d.nodes[ch].text_off, d.nodes[ch].text_len):
                _dom_failed(c)
                return
            g = d.nodes[ch].first
            while g >= 0:
                nx = d.nodes[g].next
                dom_move_before(d, i, g, -1)
                g = nx
            dom_unlink(d, ch)
    ch = d.nodes[i].first
    while ch >= 0 and not c.err:
        _collapse_emphasis(c, ch, active)
        ch = d.nodes[ch].next


cdef bint _mergeable_pair(OutCtx* c, int32_t cur, int32_t nxt) noexcept nogil:
    "Both hi with the same rend, one of MERGEABLE_RENDS (#b #i #t #u)."
    cdef const uchar* v
    cdef const uchar* w
    cdef Py_ssize_t n, m
    if c.d.nodes[cur].tag != c.t_hi or c.d.nodes[nxt].tag != c.t_hi:
        return False
    if not dom_attr_get(c.d, cur, c.a_rend, &v, &n) or not dom_attr_get(c.d, nxt, c.a_rend, &w, &m):
        return False
    if n != 2 or m != 2 or v[0] != 35 or w[0] != 35 or v[1] != w[1]:
        return False
    return v[1] == 98 or v[1] == 105 or v[1] == 116 or v[1] == 117


cdef void _merge_adjacent_hi(OutCtx* c, int32_t i) noexcept nogil:
    "Merge adjacent childless hi siblings with the same (mergeable) rend, from the right."
    cdef DocData* d = c.d
    cdef int32_t ch, cur, nxt
    cdef Py_ssize_t n
    cdef const uchar* s
    ch = d.nodes[i].first
    while ch >= 0 and not c.err:
        _merge_adjacent_hi(c, ch)
        ch = d.nodes[ch].next
    if c.err:
        return
    nxt = d.nodes[i].last
    while nxt >= 0:
        cur = d.nodes[nxt].prev
        if cur < 0:
            break
        s = _tail_of(c, cur, &n)
        if (d.nodes[cur].first < 0 and d.nodes[nxt].first < 0 and not (s != NULL and _has_nonspace(s, n))
                and _mergeable_pair(c, cur, nxt)):
            c.tmp.len = 0
            s = _text_of(c, cur, &n)
            if not buf_append(&c.tmp, s, n, &c.err):
                return
            s = _tail_of(c, cur, &n)
            if not buf_append(&c.tmp, s, n, &c.err):
                return
            s = _text_of(c, nxt, &n)
            if not buf_append(&c.tmp, s, n, &c.err):
                return
            if not dom_set_slot(d, cur, False, c.tmp.data, c.tmp.len, False):
                _dom_failed(c)
                return
            d.nodes[cur].tail_off = d.nodes[nxt].tail_off
            d.nodes[cur].tail_len = d.nodes[nxt].tail_len
            dom_unlink(d, nxt)
        nxt = cur


cdef void _strip_block_whitespace(OutCtx* c, int32_t top) noexcept nogil:
    "The outer whitespace of p, quote and head text stripped (new bounds of the same slices)."
    cdef DocData* d = c.d
    cdef int32_t j = top, t, last
    cdef Py_ssize_t a, z
    cdef Node* nd
    while j >= 0:
        nd = &d.nodes[j]
        t = nd.tag
        if t == c.t_p or t == c.t_quote or t == c.t_head:
            if nd.text_off >= 0 and nd.text_len > 0:
                a = 0
                z = nd.text_len
                _strip_range(d.text.data + nd.text_off, &a, &z)
                if nd.first >= 0:
                    z = nd.text_len  # lstrip
                nd.text_off += <int32_t>a
                nd.text_len = <int32_t>(z - a)
            last = nd.last
            if last >= 0 and d.nodes[last].tail_off >= 0 and d.nodes[last].tail_len > 0:
                a = 0
                z = d.nodes[last].tail_len
                _strip_range(d.text.data + d.nodes[last].tail_off, &a, &z)
                d.nodes[last].tail_len = <int32_t>(0 if a == z else z)  # rstrip
        j = dom_preorder_next(d, j, top)


cdef inline int32_t _out_name(DocData* d, const char* s) noexcept nogil:
    return dom_lookup_name(d, <const uchar*>s, <Py_ssize_t>strlen(s))


cdef void _out_names(OutCtx* c) noexcept nogil:
    cdef DocData* d = c.d
    c.t_cell = _out_name(d, "cell")
    c.t_item = _out_name(d, "item")
    c.t_p = _out_name(d, "p")
    c.t_head = _out_name(d, "head")
    c.t_quote = _out_name(d, "quote")
    c.t_table = _out_name(d, "table")
    c.t_lb = _out_name(d, "lb")
    c.t_list = _out_name(d, "list")
    c.t_row = _out_name(d, "row")
    c.t_graphic = _out_name(d, "graphic")
    c.t_ref = _out_name(d, "ref")
    c.t_hi = _out_name(d, "hi")
    c.t_del = _out_name(d, "del")
    c.t_code = _out_name(d, "code")
    c.t_comments = _out_name(d, "comments")
    c.t_article = _out_name(d, "article")
    c.a_role = _out_name(d, "role")
    c.a_span = _out_name(d, "span")
    c.a_target = _out_name(d, "target")
    c.a_rend = _out_name(d, "rend")


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


# upstream: trafilatura.xml.xmltotxt
def xmltotxt_plain(CElement top not None, bint v1_11_0=False):
    """trafilatura's ``xmltotxt(top, False)``: 2.3.1's (``unescape(sanitize(text,
    True) or '')``) or, with ``v1_11_0``, 1.11.0's (``unescape(sanitize(text) or
    '')``); None when the tree holds what only the Python path renders (graphic;
    ref for 1.11.0) or is too deep for the C walk."""
    cdef CDocument doc = top.doc
    cdef OutCtx c
    cdef int32_t root = top.idx
    cdef object res = None
    doc._check(root)
    memset(&c, 0, sizeof(OutCtx))
    c.d = &doc.d
    c.last_empty = True
    _out_names(&c)
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


# upstream: trafilatura.xml.xmltotxt
def xmltotxt_formatted(CElement top not None):
    """trafilatura 2.3.1's ``xmltotxt(top, True)`` (markdown): the rewrites
    (escapes, collapsed emphasis, merged hi, stripped blocks) on a copy of the
    subtree, the formatted walk, ``unescape(sanitize(text, True) or '')``. None
    when the tree holds what only the Python path renders (graphic, a math span's
    opening, a character lxml refuses in text) or is too deep: the cause is then
    ``xmltotxt_formatted_why()``."""
    global _fmt_last_why
    cdef CDocument doc = top.doc
    cdef OutCtx c
    cdef DocData w
    cdef int32_t root = top.idx, copy, t_graphic
    cdef int why = FMT_OK
    cdef object res = None
    doc._check(root)
    memset(&c, 0, sizeof(OutCtx))
    memset(&w, 0, sizeof(DocData))
    w.dt_name_off = -1
    w.dt_pub_off = -1
    w.dt_sys_off = -1
    c.last_empty = True
    c.refs = True
    c.fmt = True
    t_graphic = _lookup(doc, "graphic")
    try:
        with nogil:
            why = _fmt_prescan(&doc.d, root, t_graphic)
            if why == FMT_OK:
                copy = dom_copy_subtree(&doc.d, root, &w, True)
                c.d = &w
                if copy < 0:
                    _dom_failed(&c)
                else:
                    _out_names(&c)
                    _escape_and_convert_math_tree(&c, copy)
                    if not c.err:
                        _collapse_emphasis(&c, copy, 0)
                    if not c.err:
                        _merge_adjacent_hi(&c, copy)
                    if not c.err:
                        _strip_block_whitespace(&c, copy)
                        _pe231(&c, copy, False, False)
                    if not c.err and not c.fallback:
                        _sanitize(&c, False)
        _fmt_last_why = why
        if why != FMT_OK:
            return None
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
        doc_free(&w)


def xmltotxt_formatted_why():
    "Why the last xmltotxt_formatted call returned None ('' when it did not)."
    return FMT_WHY_NAMES[_fmt_last_why]
