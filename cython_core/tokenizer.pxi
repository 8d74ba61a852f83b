# The tokenizer (trafila.html.tokenizer.Parser, its general path): libxml2
# 2.14.6's htmlParseDocument / htmlParseContent over the UTF-8 buffer of
# input.pxi. The reference reads code points; every test here is on ASCII
# bytes, which a UTF-8 buffer answers the same way, and names are cut at 100
# UTF-8 bytes as libxml2 cuts them.

cdef enum:
    # text modes (libxml2: DATA_RCDATA ...; trafila.html.tables)
    DATA_RCDATA = 1
    DATA_RAWTEXT = 2
    DATA_PLAINTEXT = 3
    DATA_SCRIPT = 4
    DATA_SCRIPT_ESC1 = 5
    DATA_SCRIPT_ESC2 = 6

cdef inline bint is_letter(uchar c) noexcept nogil:
    return (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)


cdef inline bint is_alnum(uchar c) noexcept nogil:
    return is_letter(c) or (0x30 <= c <= 0x39)


cdef inline uchar ascii_lower(uchar c) noexcept nogil:
    return c + 32 if 0x41 <= c <= 0x5A else c


cdef inline void skip_blanks(Parser* p) noexcept nogil:
    while p.pos < p.n and is_ws(p.s[p.pos]):
        p.pos += 1


cdef inline bint starts(Parser* p, Py_ssize_t at, const char* lit, Py_ssize_t n) noexcept nogil:
    return at >= 0 and at + n <= p.n and memcmp(p.s + at, lit, <size_t>n) == 0


cdef inline bint starts_ci(Parser* p, Py_ssize_t at, const char* upper, Py_ssize_t n) noexcept nogil:
    """``s[at:at+n]`` equals ``upper`` (ASCII capitals) in any ASCII case."""
    cdef Py_ssize_t i
    cdef uchar c
    if at + n > p.n:
        return False
    for i in range(n):
        c = p.s[at + i]
        if 0x61 <= c <= 0x7A:
            c -= 32
        if c != <uchar>upper[i]:
            return False
    return True


cdef inline bint looking_at_doctype(Parser* p) noexcept nogil:
    return starts_ci(p, p.pos + 2, b"DOCTYPE", 7)


# -- references ------------------------------------------------------------------

cdef inline ucs4 code_point_value(ucs4 cp) noexcept nogil:
    # libxml2: htmlCodePointToUtf8
    if 0x80 <= cp < 0xA0:
        return <ucs4>CORE_C1_REMAP[cp - 0x80]
    if cp == 0 or (0xD800 <= cp < 0xE000) or cp > 0x10FFFF:
        return 0xFFFD
    return cp


cdef inline int entity_cmp(int e, const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef int off = CORE_ENT_NAME_OFF[e]
    cdef Py_ssize_t ln = CORE_ENT_NAME_OFF[e + 1] - off
    cdef Py_ssize_t m = ln if ln < n else n
    cdef int c = memcmp(CORE_ENT_NAMES + off, s, <size_t>m)
    if c:
        return c
    return -1 if ln < n else (1 if ln > n else 0)


cdef inline int find_entity(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef int lo = 0, hi = N_ENTITIES - 1, mid, c
    while lo <= hi:
        mid = (lo + hi) >> 1
        c = entity_cmp(mid, s, n)
        if c == 0:
            return mid
        if c < 0:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


cdef Py_ssize_t ref_at(Buf* out, const uchar* t, Py_ssize_t i, Py_ssize_t n, bint is_attr, int* err) noexcept nogil:
    """The reference whose '&' is at t[i] (t[:n] is the run being decoded):
    its text appended to ``out``, returns the index after it; 0 if none (the '&' stays).
    # libxml2: the '&' branches of htmlParseCharData / htmlParseData, htmlFindEntityPrefix"""
    cdef Py_ssize_t j = i + 1, k, start, end, run, digits
    cdef int64_t v
    cdef int e, off
    cdef uchar c, term
    cdef bint hexa
    if j >= n:
        return 0
    c = t[j]
    if c == 0x23:  # '#'
        k = j + 1
        hexa = False
        if k < n and (t[k] == 0x78 or t[k] == 0x58):
            hexa = True
            k += 1
        start = k
        v = 0
        digits = 0
        while k < n:
            c = t[k]
            if 0x30 <= c <= 0x39:
                e = c - 0x30
            elif hexa and 0x61 <= c <= 0x66:
                e = c - 0x61 + 10
            elif hexa and 0x41 <= c <= 0x46:
                e = c - 0x41 + 10
            else:
                break
            if digits or e:
                digits += 1
                if digits <= 8:
                    v = v * (16 if hexa else 10) + e
            k += 1
        if k == start:
            if not hexa:
                return 0
            # '&#x' without hex digits: the decimal branch cannot match 'x' either
            return 0
        if digits > 8 or v > 0x110000:
            v = 0x110000
        if k < n and t[k] == 0x3B:
            k += 1
        if not buf_reserve(out, 4, err):
            return 0
        out.len += put_utf8(out.data + out.len, code_point_value(<ucs4>v))
        return k
    if not is_letter(c):
        return 0
    run = 1
    while j + run < n and run < ENTITY_MAX_NAME + 1 and is_alnum(t[j + run]):
        run += 1
    k = run
    while k > 1:
        e = find_entity(t + j, k)
        if e >= 0:
            end = j + k
            term = t[end] if end < n else 0
            if term == 0x3B or (CORE_ENT_LEGACY[e] and (not is_attr or (not is_alnum(term) and term != 0x3D))):
                off = CORE_ENT_VALUE_OFF[e]
                if not buf_append(out, <const uchar*>CORE_ENT_VALUES + off, CORE_ENT_VALUE_OFF[e + 1] - off, err):
                    return 0
                return end + 1 if term == 0x3B else end
        k -= 1
    return 0


# byte classes: 1 '&', 2 CR, 4 NUL, 8 '<', 16 '-'
cdef uchar BYTE_CLASS[256]
memset(BYTE_CLASS, 0, 256)
BYTE_CLASS[0x26] = 1
BYTE_CLASS[0x0D] = 2
BYTE_CLASS[0] = 4
BYTE_CLASS[0x3C] = 8
BYTE_CLASS[0x2D] = 16


cdef inline bint word_has(uint64_t w, uint64_t pattern) noexcept nogil:
    """Some byte of ``w`` equals the byte repeated in ``pattern`` (SWAR zero-byte test)."""
    cdef uint64_t v = w ^ pattern
    return ((v - 0x0101010101010101u) & ~v & 0x8080808080808080u) != 0


cdef inline Py_ssize_t skip_plain(const uchar* t, Py_ssize_t i, Py_ssize_t n, uchar stops) noexcept nogil:
    """The first index >= i whose byte is in class ``stops`` (BYTE_CLASS), or n."""
    cdef uint64_t w
    cdef bint amp = (stops & 1) != 0
    while i + 8 <= n:
        memcpy(&w, t + i, 8)
        if word_has(w, 0) or word_has(w, 0x0D0D0D0D0D0D0D0Du) or (amp and word_has(w, 0x2626262626262626u)):
            break
        i += 8
    while i < n and not (BYTE_CLASS[t[i]] & stops):
        i += 1
    return i


cdef bint decode_text(Buf* out, const uchar* t, Py_ssize_t n, bint refs, bint is_attr, int* err) noexcept nogil:
    """Append t[:n] with NUL -> U+FFFD, CR LF and CR -> LF and (if ``refs``) references decoded.
    # trafila.html.tokenizer: normalize_newlines, then decode_refs"""
    cdef Py_ssize_t i = 0, last = 0, k
    cdef uchar c
    cdef uchar stops = 7 if refs else 6
    if not buf_reserve(out, n, err):
        return False
    while True:
        i = skip_plain(t, i, n, stops)
        if i >= n:
            break
        c = t[i]
        if c == 0x26:
            if i > last and not buf_append(out, t + last, i - last, err):
                return False
            last = i
            k = ref_at(out, t, i, n, is_attr, err)
            if err[0]:
                return False
            if k:
                i = k
                last = k
            else:
                i += 1  # the '&' is kept: copied with the next run
            continue
        if i > last and not buf_append(out, t + last, i - last, err):
            return False
        if c == 0x0D:
            if not buf_append(out, <const uchar*>b"\n", 1, err):
                return False
            i += 1
            if i < n and t[i] == 0x0A:
                i += 1
        else:
            if not buf_append(out, <const uchar*>b"\xef\xbf\xbd", 3, err):
                return False
            i += 1
        last = i
    if n > last:
        return buf_append(out, t + last, n - last, err)
    return True


cdef inline bint has_special(const uchar* t, Py_ssize_t n) noexcept nogil:
    return skip_plain(t, 0, n, 7) < n


cdef extern from *:
    """
    /* The index of the first byte equal to stop in s[:n] (n when none), and in *special
       whether a '&', CR or NUL comes before it (has_special of the run): one pass instead
       of memchr then has_special. SSE2: 16 bytes a step; a scalar loop for the rest. */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif

    static Py_ssize_t trafila_run_until(const uint8_t* s, Py_ssize_t n, uint8_t stop, int* special) {
        Py_ssize_t i = 0;
        int sp = 0;
        uint8_t c;
    #if defined(__SSE2__)
        const __m128i vstop = _mm_set1_epi8((char)stop), vamp = _mm_set1_epi8(0x26);
        const __m128i vcr = _mm_set1_epi8(0x0D), vzero = _mm_setzero_si128();
        while (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*)(s + i));
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vstop));
            unsigned x = (unsigned)_mm_movemask_epi8(_mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, vamp), _mm_cmpeq_epi8(v, vcr)), _mm_cmpeq_epi8(v, vzero)));
            if (m) {
                unsigned b = (unsigned)__builtin_ctz(m);
                if (x & ((1u << b) - 1u)) sp = 1;
                *special = sp;
                return i + (Py_ssize_t)b;
            }
            if (x) sp = 1;
            i += 16;
        }
    #endif
        for (; i < n; i++) {
            c = s[i];
            if (c == stop) break;
            if (c == 0x26 || c == 0x0D || c == 0) sp = 1;
        }
        *special = sp;
        return i;
    }
    """
    Py_ssize_t trafila_run_until(const uchar* s, Py_ssize_t n, uchar stop, int* special) nogil


# -- names -------------------------------------------------------------------------

# html_name's byte classes: 0 a byte of a plain ASCII name, 1 a byte that ends the name
# ('/', '>', HTML whitespace; '=' too for attribute names), 2 a byte that takes the name off
# the plain path (NUL, anything >= 0x80); and the A-Z lowering, as tables
cdef uchar NAME_CLASS_TAG[256]
cdef uchar NAME_CLASS_ATTR[256]
cdef uchar NAME_LOWER[256]


cdef void _name_tables_init() noexcept nogil:
    cdef int c
    for c in range(256):
        NAME_LOWER[c] = ascii_lower(<uchar>c)
        if c == 0 or c >= 0x80:
            NAME_CLASS_TAG[c] = 2
        elif c == 0x2F or c == 0x3E or is_ws(<uchar>c):
            NAME_CLASS_TAG[c] = 1
        else:
            NAME_CLASS_TAG[c] = 0
        NAME_CLASS_ATTR[c] = 1 if c == 0x3D else NAME_CLASS_TAG[c]


_name_tables_init()


cdef extern from *:
    """
    /* html_name's common case in one SSE2 step, over 16 readable bytes at s: a name of
       1 to 15 plain ASCII bytes (not NUL) ended by '/', '>', HTML whitespace (or '=' for an
       attribute) -- the first byte is taken whatever it is -- written lowercased to out
       (16 bytes are stored); returns its length, or 0 when the name is not that case. */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    static inline Py_ssize_t trafila_name_run(const uint8_t* s, int attr, uint8_t* out) {
    #if defined(__SSE2__)
        __m128i v = _mm_loadu_si128((const __m128i*)s);
        __m128i t = _mm_or_si128(
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x09))),
                         _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x0A)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x0C)))),
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x0D)), _mm_cmpeq_epi8(v, _mm_set1_epi8(0x2F))),
                         _mm_cmpeq_epi8(v, _mm_set1_epi8(0x3E))));
        unsigned term, bad, e, b;
        __m128i upper;
        if (attr) t = _mm_or_si128(t, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x3D)));
        term = (unsigned)_mm_movemask_epi8(t) & ~1u;
        bad = (unsigned)_mm_movemask_epi8(v) | (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));
        e = term | bad;
        if (!e) return 0;
        b = (unsigned)__builtin_ctz(e);
        if (bad & (1u << b)) return 0;
        /* A-Z (signed compares: bytes >= 0x80 are not in the range) get 0x20 added */
        upper = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x40)), _mm_cmpgt_epi8(_mm_set1_epi8(0x5B), v));
        _mm_storeu_si128((__m128i*)out, _mm_add_epi8(v, _mm_and_si128(upper, _mm_set1_epi8(0x20))));
        return (Py_ssize_t)b;
    #else
        (void)s; (void)attr; (void)out;
        return 0;
    #endif
    }
    """
    Py_ssize_t trafila_name_run(const uchar* s, int attr, uchar* out) nogil


cdef int32_t html_name(Parser* p, bint attr) noexcept nogil:
    """A tag or attribute name, its first character always taken; returns its id.
    # libxml2: htmlParseHTMLName (A-Z lowercased, NUL -> U+FFFD, at most 100 UTF-8 bytes)"""
    cdef const uchar* s = p.s
    cdef const uchar* cls = &NAME_CLASS_ATTR[0] if attr else &NAME_CLASS_TAG[0]
    cdef Py_ssize_t start = p.pos, end = p.pos + 1, i, k, used = 0
    cdef uchar c, kind
    cdef uchar buf[NAME_BUFFER + 4]
    cdef bint simple = True, ended = False
    if start + 16 <= p.n:
        k = trafila_name_run(s + start, attr, buf)
        if k:
            p.pos = start + k
            return intern_name_h(p.d, buf, k, trafila_name_hash16(buf, k))
    # the plain path lowercases while it finds the end; a name that leaves it
    # (a NUL, a non-ASCII byte, more than 100 bytes) is only scanned to its end, then rebuilt
    c = s[start]
    if cls[c] == 2:
        simple = False
    else:
        c = NAME_LOWER[c]
        buf[0] = c
        while end < p.n:
            c = s[end]
            kind = cls[c]
            if kind == 1:
                ended = True
                break
            if kind == 2 or end - start >= NAME_BUFFER:
                simple = False
                break
            buf[end - start] = NAME_LOWER[c]
            end += 1
    if not simple and not ended:
        while end < p.n and cls[s[end]] != 1:
            end += 1
    p.pos = end
    if simple:
        return intern_name(p.d, buf, end - start)
    i = start
    while i < end:
        c = s[i]
        if c < 0x80:
            k = 1
        elif c < 0xE0:
            k = 2
        elif c < 0xF0:
            k = 3
        else:
            k = 4
        if i + k > end:
            k = end - i  # cannot happen in valid UTF-8
        if c == 0:
            if used + 3 <= NAME_BUFFER:
                buf[used] = 0xEF
                buf[used + 1] = 0xBF
                buf[used + 2] = 0xBD
                used += 3
        elif used + k <= NAME_BUFFER:
            # a character that does not fit is skipped; a later shorter one may still fit
            if k == 1:
                buf[used] = ascii_lower(c)
            else:
                memcpy(buf + used, s + i, <size_t>k)
            used += k
        i += k
    return intern_name(p.d, buf, used)


# -- comments and doctype ----------------------------------------------------------

cdef void parse_comment(Parser* p, bint bogus) noexcept nogil:
    """Skip a comment: remove_comments means no node (libxml2: htmlParseComment)."""
    cdef const uchar* s = p.s
    cdef const uchar* q
    cdef Py_ssize_t k
    if bogus:
        q = <const uchar*>memchr(s + p.pos, 0x3E, <size_t>(p.n - p.pos)) if p.pos < p.n else NULL
        p.pos = p.n if q == NULL else (q - s) + 1
        return
    if starts(p, p.pos, b">", 1):
        p.pos += 1
        return
    if starts(p, p.pos, b"->", 2):
        p.pos += 2
        return
    k = p.pos
    while k + 2 < p.n:
        q = <const uchar*>memchr(s + k, 0x2D, <size_t>(p.n - k))
        if q == NULL:
            break
        k = q - s
        if k + 2 >= p.n:
            break
        if s[k + 1] == 0x2D:
            if s[k + 2] == 0x3E:
                p.pos = k + 3
                return
            if s[k + 2] == 0x21 and k + 3 < p.n and s[k + 3] == 0x3E:
                p.pos = k + 4
                return
        k += 1
    p.pos = p.n


cdef bint doctype_string(Parser* p, Py_ssize_t start, Py_ssize_t end, int32_t* off, int32_t* ln) noexcept nogil:
    cdef DocData* d = p.d
    cdef Py_ssize_t before = d.vals.len
    if not decode_text(&d.vals, p.s + start, end - start, False, False, &d.error):
        return False
    off[0] = <int32_t>before
    ln[0] = <int32_t>(d.vals.len - before)
    return True


cdef bint doctype_literal(Parser* p, int32_t* off, int32_t* ln) noexcept nogil:
    """libxml2: htmlParseDoctypeLiteral; False when there is none (off stays -1)."""
    cdef uchar q
    cdef Py_ssize_t start, end
    if p.pos >= p.n:
        return False
    q = p.s[p.pos]
    if q != 0x22 and q != 0x27:
        return False
    p.pos += 1
    start = p.pos
    end = start
    while end < p.n and p.s[end] != q and p.s[end] != 0x3E:
        end += 1
    p.pos = end
    doctype_string(p, start, end, off, ln)
    if p.pos < p.n and p.s[p.pos] == q:
        p.pos += 1
    return True


cdef void parse_doctype(Parser* p, bint in_prolog) noexcept nogil:
    """libxml2: htmlParseDocTypeDecl (kept only in the prolog)"""
    cdef int32_t name_off = -1, name_len = 0, pub_off = -1, pub_len = 0, sys_off = -1, sys_len = 0
    cdef Py_ssize_t end, vals_before = p.d.vals.len
    cdef const uchar* q
    p.pos += 9
    skip_blanks(p)
    if p.pos < p.n and p.s[p.pos] != 0x3E:
        end = p.pos
        while end < p.n and not is_ws(p.s[end]) and p.s[end] != 0x3E:
            end += 1
        if in_prolog:
            doctype_string(p, p.pos, end, &name_off, &name_len)
        p.pos = end
        skip_blanks(p)
    if starts_ci(p, p.pos, b"PUBLIC", 6):
        p.pos += 6
        skip_blanks(p)
        if doctype_literal(p, &pub_off, &pub_len):
            skip_blanks(p)
            doctype_literal(p, &sys_off, &sys_len)
    elif starts_ci(p, p.pos, b"SYSTEM", 6):
        p.pos += 6
        skip_blanks(p)
        doctype_literal(p, &sys_off, &sys_len)
    # libxml2: htmlSkipBogusDoctype
    q = <const uchar*>memchr(p.s + p.pos, 0x3E, <size_t>(p.n - p.pos)) if p.pos < p.n else NULL
    p.pos = p.n if q == NULL else (q - p.s) + 1
    if in_prolog:
        p.has_doctype = 1
        p.dt_name_off = name_off
        p.dt_name_len = name_len
        p.dt_pub_off = pub_off
        p.dt_pub_len = pub_len
        p.dt_sys_off = sys_off
        p.dt_sys_len = sys_len
    else:
        p.d.vals.len = vals_before


# -- tags ----------------------------------------------------------------------------

cdef struct SeenNames:
    # which attribute names a tag has, by name id (1: seen); for tags with many attributes
    uint8_t* data
    int32_t cap


cdef enum:
    # up to this many attributes on one tag, a duplicate is found by scanning them; past it, by
    # a table indexed by name id (a tag of a million attributes was quadratic, issue 19)
    ATTR_SCAN_MAX = 32


cdef bint seen_names_reserve(SeenNames* seen, int32_t need, int* err) noexcept nogil:
    """Make ``seen`` index names below ``need``, the new entries zero."""
    cdef int32_t old = seen.cap
    if not grow_array(<void**>&seen.data, &seen.cap, need, 1, err):
        return False
    if seen.cap > old:
        memset(seen.data + old, 0, <size_t>(seen.cap - old))
    return True


cdef void parse_attributes(Parser* p, bint keep, int32_t attr_start) noexcept nogil:
    """Attributes up to '>' or '/>' (or the end); with ``keep`` they are added to the
    document after ``attr_start`` (duplicates: the first wins).
    # libxml2: htmlParseAttribute + htmlParseAttValue"""
    cdef SeenNames seen
    seen.data = NULL
    seen.cap = 0
    parse_attributes_into(p, keep, attr_start, &seen)
    free(seen.data)


cdef void parse_attributes_into(Parser* p, bint keep, int32_t attr_start, SeenNames* seen) noexcept nogil:
    """parse_attributes, ``seen`` its table of names (made when the tag passes ATTR_SCAN_MAX)."""
    cdef DocData* d = p.d
    cdef const uchar* s = p.s
    cdef const uchar* qp
    cdef uchar c, q
    cdef int32_t name, i
    cdef Py_ssize_t start, end, vals_before
    cdef bint dup, has_value, scanned
    cdef int special = 0
    cdef Attr* a
    skip_blanks(p)
    while p.pos < p.n:
        c = s[p.pos]
        if c == 0x3E:
            break
        if c == 0x2F:
            if p.pos + 1 < p.n and s[p.pos + 1] == 0x3E:
                break
            # unexpected-solidus-in-tag: skipped
            p.pos += 1
            skip_blanks(p)
            continue
        name = html_name(p, True)
        if name < 0:
            p.stopped = 1
            return
        skip_blanks(p)
        has_value = False
        scanned = False
        if p.pos < p.n and s[p.pos] == 0x3D:
            has_value = True
            p.pos += 1
            skip_blanks(p)
            q = s[p.pos] if p.pos < p.n else 0
            if q == 0x22 or q == 0x27:
                p.pos += 1
                start = p.pos
                # the closing quote and has_special of the value in one pass
                end = start + trafila_run_until(s + start, p.n - start, q, &special)
                p.pos = end + 1 if end < p.n else p.n
                scanned = True
            else:
                start = p.pos
                end = start
                while end < p.n and not is_ws(s[end]) and s[end] != 0x3E:
                    end += 1
                p.pos = end
        if keep:
            dup = False
            if seen.data == NULL and d.n_attrs - attr_start <= ATTR_SCAN_MAX:
                for i in range(attr_start, d.n_attrs):
                    if d.attrs[i].name == name:
                        dup = True
                        break
            else:
                if seen.data == NULL:
                    # the table starts with the names kept so far (all different)
                    for i in range(attr_start, d.n_attrs):
                        if not seen_names_reserve(seen, d.attrs[i].name + 1, &d.error):
                            p.stopped = 1
                            return
                        seen.data[d.attrs[i].name] = 1
                if not seen_names_reserve(seen, name + 1, &d.error):
                    p.stopped = 1
                    return
                dup = seen.data[name] != 0
            if not dup:
                if seen.data != NULL:
                    seen.data[name] = 1
                if not grow_array(<void**>&d.attrs, &d.cap_attrs, d.n_attrs + 1, sizeof(Attr), &d.error):
                    p.stopped = 1
                    return
                a = &d.attrs[d.n_attrs]
                a.name = name
                if has_value:
                    vals_before = d.vals.len
                    if not scanned:
                        special = has_special(s + start, end - start)
                    if special:
                        if not decode_text(&d.vals, s + start, end - start, True, True, &d.error):
                            p.stopped = 1
                            return
                    elif not buf_append(&d.vals, s + start, end - start, &d.error):
                        p.stopped = 1
                        return
                    a.kind = AV_VALUE
                    a.val_off = <int32_t>vals_before
                    a.val_len = <int32_t>(d.vals.len - vals_before)
                else:
                    a.kind = AV_NO_VALUE
                    a.val_off = -1
                    a.val_len = 0
                d.n_attrs += 1
        skip_blanks(p)


cdef void parse_start_tag(Parser* p) noexcept nogil:
    """libxml2: htmlParseStartTag"""
    cdef DocData* d = p.d
    cdef int32_t name, attr_start
    cdef Py_ssize_t vals_before
    cdef bint discard = False
    cdef int i
    p.mode = 0
    p.pos += 1
    name = html_name(p, False)
    if name < 0:
        p.stopped = 1
        return
    # closing and implying happen before the attributes are read
    auto_close(p, name)
    check_implied(p, name)
    if name == ID_HTML and p.n_names:
        discard = True
        p.depth += 1
    if name == ID_HEAD and p.n_names != 1:
        discard = True
        p.depth += 1
    if name == ID_BODY:
        for i in range(p.n_names):
            if p.names[i] == ID_BODY:
                discard = True
                p.depth += 1
    attr_start = d.n_attrs
    vals_before = d.vals.len
    parse_attributes(p, not discard, attr_start)
    if p.stopped:
        return
    if p.pos >= p.n or discard:
        # a start tag cut off by the end of input is dropped
        d.n_attrs = attr_start
        d.vals.len = vals_before
        return
    start_element(p, name, attr_start, d.n_attrs - attr_start)


cdef void parse_element(Parser* p) noexcept nogil:
    """libxml2: htmlParseElementInternal"""
    cdef int32_t name
    cdef int f
    parse_start_tag(p)
    if p.stopped:
        return
    # NB: the current element, which is not the new tag if it was dropped
    name = cur_name(p)
    if name < 0:
        return
    if starts(p, p.pos, b"/>", 2):
        # '/>' closes any element -- even the current one under a dropped tag
        p.pos += 2
        end_element(p)
        return
    if not starts(p, p.pos, b">", 1):
        return
    p.pos += 1
    f = known_flags(name)
    if f & F_EMPTY:
        end_element(p)
        return
    p.mode = CORE_KNOWN_MODE[name] if name < N_KNOWN else 0


cdef void end_tag(Parser* p, int32_t name) noexcept nogil:
    if p.depth > 0 and (name == ID_HTML or name == ID_BODY or name == ID_HEAD):
        p.depth -= 1
        return
    if not names_contain(p, name):
        return  # not open: ignored
    auto_close_on_close(p, name)
    if p.n_names and p.names[p.n_names - 1] == name:
        end_element(p)


cdef void parse_end_tag(Parser* p) noexcept nogil:
    """libxml2: htmlParseEndTag"""
    cdef int32_t name
    cdef uchar c
    p.mode = 0
    p.pos += 2
    if p.pos >= p.n:
        start_char_data(p)
        characters(p, <const uchar*>b"</", 2)
        return
    c = p.s[p.pos]
    if c == 0x3E:
        p.pos += 1
        return
    if not is_letter(c):
        parse_comment(p, True)
        return
    name = html_name(p, False)
    if name < 0:
        p.stopped = 1
        return
    parse_attributes(p, False, 0)  # parsed and ignored
    if p.stopped:
        return
    if starts(p, p.pos, b">", 1):
        p.pos += 1
    elif starts(p, p.pos, b"/>", 2):
        p.pos += 2
    else:
        return  # cut off by the end of input
    end_tag(p, name)


# -- text ----------------------------------------------------------------------------

cdef void char_data(Parser* p, const uchar* t, Py_ssize_t n, bint refs) noexcept nogil:
    """Text of normal or RCDATA content (libxml2: htmlCharDataSAXCallback)."""
    cdef int32_t name = cur_name(p)
    cdef DocData* d = p.d
    if name < 0 or name == ID_HTML or name == ID_HEAD:
        p.scratch.len = 0
        if not decode_text(&p.scratch, t, n, refs, False, &d.error):
            p.stopped = 1
            return
        char_data_split(p, p.scratch.data, p.scratch.len)
        return
    if not p.n_nodes or p.stopped:
        return
    if refs:
        if not decode_text(&d.text, t, n, True, False, &d.error):
            p.stopped = 1
    elif not buf_append(&d.text, t, n, &d.error):
        p.stopped = 1


cdef inline bint end_tag_at(Parser* p, Py_ssize_t k, const uchar* name, Py_ssize_t ln) noexcept nogil:
    """``</name`` (ASCII case-insensitively) at s[k], followed by blank, '/' or '>'."""
    cdef Py_ssize_t i
    cdef uchar c
    if k + 2 + ln >= p.n:
        return False
    if p.s[k + 1] != 0x2F:
        return False
    for i in range(ln):
        if ascii_lower(p.s[k + 2 + i]) != name[i]:
            return False
    c = p.s[k + 2 + ln]
    return is_ws(c) or c == 0x2F or c == 0x3E


cdef inline bint start_tag_at(Parser* p, Py_ssize_t k, const uchar* name, Py_ssize_t ln) noexcept nogil:
    """``<name`` (not ``</``) at s[k], followed by blank, '/' or '>'."""
    cdef Py_ssize_t i
    cdef uchar c
    if k + 1 + ln >= p.n:
        return False
    for i in range(ln):
        if ascii_lower(p.s[k + 1 + i]) != name[i]:
            return False
    c = p.s[k + 1 + ln]
    return is_ws(c) or c == 0x2F or c == 0x3E


cdef Py_ssize_t scan_script(Parser* p, const uchar* name, Py_ssize_t ln) noexcept nogil:
    """Where a script element's content ends, following the escape states.
    # libxml2: the DATA_SCRIPT* branches of htmlParseCharData"""
    cdef const uchar* s = p.s
    cdef int mode = p.mode
    cdef Py_ssize_t i = p.pos
    cdef uchar c
    cdef const uchar* q
    while i < p.n:
        if mode == DATA_SCRIPT:
            # only '<' can change this state
            q = <const uchar*>memchr(s + i, 0x3C, <size_t>(p.n - i))
            if q == NULL:
                break
            i = q - s
        else:
            while i < p.n and not (BYTE_CLASS[s[i]] & 24):
                i += 1
            if i >= p.n:
                break
        c = s[i]
        if c == 0x3C:
            if mode == DATA_SCRIPT:
                if starts(p, i + 1, b"!--", 3):
                    mode = DATA_SCRIPT_ESC1
                elif end_tag_at(p, i, name, ln):
                    p.mode = 0
                    return i
            elif end_tag_at(p, i, name, ln):
                if mode != DATA_SCRIPT_ESC2:
                    p.mode = 0
                    return i
                mode = DATA_SCRIPT_ESC1
            elif mode == DATA_SCRIPT_ESC1 and i + 1 < p.n and s[i + 1] != 0x2F and start_tag_at(p, i, name, ln):
                mode = DATA_SCRIPT_ESC2
        elif c == 0x2D and mode != DATA_SCRIPT:
            if starts(p, i, b"-->", 3):
                mode = DATA_SCRIPT
        i += 1
    p.mode = mode  # unterminated: the state is kept
    return p.n


cdef void parse_char_data(Parser* p) noexcept nogil:
    """Text up to the next tag, or the content of a raw-text element (libxml2: htmlParseCharData)."""
    cdef const uchar* s = p.s
    cdef const uchar* q
    cdef Py_ssize_t pos = p.pos, end, k, ln
    cdef int mode = p.mode
    cdef int special = 0
    cdef int32_t cur
    cdef const uchar* nm
    cdef DocData* d = p.d
    if mode == 0:
        # the next '<' and has_special of the run in one pass
        end = pos + trafila_run_until(s + pos, p.n - pos, 0x3C, &special)
        p.pos = end
        char_data(p, s + pos, end - pos, special != 0)
        return
    cur = cur_name(p)
    if cur < 0:
        nm = <const uchar*>b""
        ln = 0
    else:
        nm = name_bytes(d, cur, &ln)
    if mode == DATA_PLAINTEXT:
        end = p.n
    elif mode >= DATA_SCRIPT:
        end = scan_script(p, nm, ln)
    else:
        end = p.n
        k = pos
        while k < p.n:
            q = <const uchar*>memchr(s + k, 0x3C, <size_t>(p.n - k))
            if q == NULL:
                break
            k = q - s
            if end_tag_at(p, k, nm, ln):
                end = k
                p.mode = 0
                break
            k += 1
    p.pos = end
    if mode == DATA_RCDATA:
        char_data(p, s + pos, end - pos, True)
    elif end > pos:
        if p.n_nodes and not p.stopped:
            if not decode_text(&d.text, s + pos, end - pos, False, False, &d.error):
                p.stopped = 1


# -- document ------------------------------------------------------------------------

cdef void parse_step(Parser* p) noexcept nogil:
    """One step of htmlParseContent."""
    cdef const uchar* s = p.s
    cdef Py_ssize_t pos = p.pos
    cdef uchar c1
    if p.mode == 0 and s[pos] == 0x3C:
        c1 = s[pos + 1] if pos + 1 < p.n else 0
        if c1 == 0x2F:
            parse_end_tag(p)
        elif c1 == 0x21:
            if looking_at_doctype(p):
                # a doctype after the prolog is parsed and ignored
                parse_doctype(p, False)
            elif starts(p, pos + 2, b"--", 2):
                p.pos = pos + 4
                parse_comment(p, False)
            else:
                p.pos = pos + 2
                parse_comment(p, True)
        elif c1 == 0x3F:
            p.pos = pos + 1
            parse_comment(p, True)
        elif is_letter(c1):
            parse_element(p)
        else:
            start_char_data(p)
            characters(p, <const uchar*>b"<", 1)
            p.pos = pos + 1
    else:
        parse_char_data(p)


cdef void parse_prolog_misc(Parser* p) noexcept nogil:
    while True:
        if starts(p, p.pos, b"<!--", 4):
            p.pos += 4
            parse_comment(p, False)
        elif starts(p, p.pos, b"<?", 2):
            p.pos += 1
            parse_comment(p, True)
        else:
            break
        skip_blanks(p)


cdef void parse_document_c(Parser* p) noexcept nogil:
    """libxml2: htmlParseDocument"""
    cdef DocData* d = p.d
    skip_blanks(p)
    parse_prolog_misc(p)
    if starts(p, p.pos, b"<!", 2) and looking_at_doctype(p):
        parse_doctype(p, True)
    skip_blanks(p)
    parse_prolog_misc(p)
    # libxml2: htmlParseContent
    while p.pos < p.n:
        parse_step(p)
        if p.stopped:
            break
    if p.pos >= p.n and not d.error:
        auto_close_on_end(p)
    if d.text.len > p.pend and p.n_nodes:
        flush_text(p)
    d.has_doctype = p.has_doctype
    d.dt_name_off = p.dt_name_off
    d.dt_name_len = p.dt_name_len
    d.dt_pub_off = p.dt_pub_off
    d.dt_pub_len = p.dt_pub_len
    d.dt_sys_off = p.dt_sys_off
    d.dt_sys_len = p.dt_sys_len
