# htmldate's page-wide scans of the serialised page, as C matchers over the str's code
# points (trafila.htmldate.scan and extractors.idiosyncrasies_search call them through the
# core backend; the Python regexes stay the specification and run everywhere else).
#
# Each matcher is one of htmldate's patterns transcribed by hand: the same leftmost-first
# backtracking order (a greedy ``?`` tried taken, then left out; alternatives in order),
# ``[0-9]`` ASCII digits only, ``\D`` any code point that is not a Unicode decimal digit
# (sre's Py_UNICODE_ISDECIMAL) and that exists (it consumes one). The drivers give what
# ``findall`` / ``finditer`` give: matches left to right, the next search from the end of
# the last match (none of these matches is empty).

cdef extern from "Python.h":
    bint _hd_isdecimal "Py_UNICODE_ISDECIMAL" (Py_UCS4 ch) noexcept nogil


cdef struct HdStr:
    int kind
    const void* data
    Py_ssize_t n


cdef inline Py_UCS4 _hd_at(const HdStr* s, Py_ssize_t i) noexcept nogil:
    return _u_read(s.kind, s.data, i)


cdef inline bint _hd_dig(const HdStr* s, Py_ssize_t i) noexcept nogil:
    "[0-9] at i"
    cdef Py_UCS4 c
    if i >= s.n:
        return False
    c = _u_read(s.kind, s.data, i)
    return 0x30 <= c <= 0x39


cdef inline bint _hd_range(const HdStr* s, Py_ssize_t i, Py_UCS4 lo, Py_UCS4 hi) noexcept nogil:
    "[lo-hi] at i"
    cdef Py_UCS4 c
    if i >= s.n:
        return False
    c = _u_read(s.kind, s.data, i)
    return lo <= c <= hi


cdef inline bint _hd_is(const HdStr* s, Py_ssize_t i, Py_UCS4 ch) noexcept nogil:
    return i < s.n and _u_read(s.kind, s.data, i) == ch


cdef inline bint _hd_sep(const HdStr* s, Py_ssize_t i) noexcept nogil:
    "[/.-] at i"
    cdef Py_UCS4 c
    if i >= s.n:
        return False
    c = _u_read(s.kind, s.data, i)
    return c == 0x2f or c == 0x2e or c == 0x2d


cdef inline bint _hd_nd(const HdStr* s, Py_ssize_t i) noexcept nogil:
    "\\D at i (Unicode: not a decimal digit)"
    cdef Py_UCS4 c
    if i >= s.n:
        return False
    c = _u_read(s.kind, s.data, i)
    if c < 0x80:
        return not (0x30 <= c <= 0x39)
    return not _hd_isdecimal(c)


cdef inline bint _hd_digits(const HdStr* s, Py_ssize_t i, int k) noexcept nogil:
    "[0-9]{k} at i"
    cdef int j
    for j in range(k):
        if not _hd_dig(s, i + j):
            return False
    return True


cdef enum:
    HD_THREE_LOOSE = 0
    HD_SELECT_YMD = 1
    HD_DATESTRINGS = 2
    HD_SLASHES = 3
    HD_YYYYMM = 4
    HD_MMYYYY = 5
    HD_SIMPLE = 6
    HD_N_PATTERNS = 7


# upstream: htmldate.core.search_page (THREE_LOOSE_PATTERN \D([0-9]{4}[/.-][0-9]{2}[/.-][0-9]{2})\D)
cdef Py_ssize_t _hd_three_loose(const HdStr* s, Py_ssize_t p, Py_ssize_t* g) noexcept nogil:
    cdef Py_ssize_t x = p + 1
    if (_hd_nd(s, p) and _hd_digits(s, x, 4) and _hd_sep(s, x + 4) and _hd_digits(s, x + 5, 2)
            and _hd_sep(s, x + 7) and _hd_digits(s, x + 8, 2) and _hd_nd(s, x + 10)):
        g[0] = x
        g[1] = x + 10
        return x + 11
    return -1


# upstream: htmldate.core.search_page (SELECT_YMD_PATTERN \D([0-3]?[0-9][/.-][0-1]?[0-9][/.-][0-9]{4})\D)
cdef Py_ssize_t _hd_select_ymd(const HdStr* s, Py_ssize_t p, Py_ssize_t* g) noexcept nogil:
    cdef Py_ssize_t x = p + 1, i, j
    cdef int a, b
    if not _hd_nd(s, p):
        return -1
    for a in range(2):
        i = x
        if a == 0:
            # [0-3]? taken first
            if not _hd_range(s, i, 0x30, 0x33):
                continue
            i += 1
        if not (_hd_dig(s, i) and _hd_sep(s, i + 1)):
            continue
        i += 2
        for b in range(2):
            j = i
            if b == 0:
                if not _hd_range(s, j, 0x30, 0x31):
                    continue
                j += 1
            if _hd_dig(s, j) and _hd_sep(s, j + 1) and _hd_digits(s, j + 2, 4) and _hd_nd(s, j + 6):
                g[0] = x
                g[1] = j + 6
                return j + 7
    return -1


# upstream: htmldate.core.search_page (DATESTRINGS_PATTERN (\D19[0-9]{2}[01][0-9][0-3][0-9]\D|\D20[0-9]{2}[01][0-9][0-3][0-9]\D))
cdef Py_ssize_t _hd_datestrings(const HdStr* s, Py_ssize_t p, Py_ssize_t* g) noexcept nogil:
    cdef Py_ssize_t x = p + 1
    if not _hd_nd(s, p):
        return -1
    if not ((_hd_is(s, x, 0x31) and _hd_is(s, x + 1, 0x39)) or (_hd_is(s, x, 0x32) and _hd_is(s, x + 1, 0x30))):
        return -1
    if (_hd_digits(s, x + 2, 2) and _hd_range(s, x + 4, 0x30, 0x31) and _hd_dig(s, x + 5)
            and _hd_range(s, x + 6, 0x30, 0x33) and _hd_dig(s, x + 7) and _hd_nd(s, x + 8)):
        # the group is the whole match, both \D included
        g[0] = p
        g[1] = x + 9
        return x + 9
    return -1


# upstream: htmldate.core.search_page (SLASHES_PATTERN \D([0-3]?[0-9]/[0-1]?[0-9]/[0129][0-9]|[0-3][0-9]\.[01][0-9]\.[0129][0-9])\D)
cdef Py_ssize_t _hd_slashes(const HdStr* s, Py_ssize_t p, Py_ssize_t* g) noexcept nogil:
    cdef Py_ssize_t x = p + 1, i, j
    cdef int a, b
    cdef Py_UCS4 c
    if not _hd_nd(s, p):
        return -1
    for a in range(2):
        i = x
        if a == 0:
            if not _hd_range(s, i, 0x30, 0x33):
                continue
            i += 1
        if not (_hd_dig(s, i) and _hd_is(s, i + 1, 0x2f)):
            continue
        i += 2
        for b in range(2):
            j = i
            if b == 0:
                if not _hd_range(s, j, 0x30, 0x31):
                    continue
                j += 1
            if not (_hd_dig(s, j) and _hd_is(s, j + 1, 0x2f) and j + 2 < s.n):
                continue
            c = _hd_at(s, j + 2)
            if (c == 0x30 or c == 0x31 or c == 0x32 or c == 0x39) and _hd_dig(s, j + 3) and _hd_nd(s, j + 4):
                g[0] = x
                g[1] = j + 4
                return j + 5
    # the second alternative
    if not (_hd_range(s, x, 0x30, 0x33) and _hd_dig(s, x + 1) and _hd_is(s, x + 2, 0x2e)
            and _hd_range(s, x + 3, 0x30, 0x31) and _hd_dig(s, x + 4) and _hd_is(s, x + 5, 0x2e) and x + 6 < s.n):
        return -1
    c = _hd_at(s, x + 6)
    if (c == 0x30 or c == 0x31 or c == 0x32 or c == 0x39) and _hd_dig(s, x + 7) and _hd_nd(s, x + 8):
        g[0] = x
        g[1] = x + 8
        return x + 9
    return -1


# upstream: htmldate.core.search_page (YYYYMM_PATTERN \D([12][0-9]{3}[/.-](?:1[0-2]|0[1-9]))\D)
cdef Py_ssize_t _hd_yyyymm(const HdStr* s, Py_ssize_t p, Py_ssize_t* g) noexcept nogil:
    cdef Py_ssize_t x = p + 1
    if not (_hd_nd(s, p) and _hd_range(s, x, 0x31, 0x32) and _hd_digits(s, x + 1, 3) and _hd_sep(s, x + 4)):
        return -1
    if not ((_hd_is(s, x + 5, 0x31) and _hd_range(s, x + 6, 0x30, 0x32))
            or (_hd_is(s, x + 5, 0x30) and _hd_range(s, x + 6, 0x31, 0x39))):
        return -1
    if not _hd_nd(s, x + 7):
        return -1
    g[0] = x
    g[1] = x + 7
    return x + 8


# upstream: htmldate.core.search_page (MMYYYY_PATTERN \D([0-1]?[0-9][/.-][12][0-9]{3})\D)
cdef Py_ssize_t _hd_mmyyyy(const HdStr* s, Py_ssize_t p, Py_ssize_t* g) noexcept nogil:
    cdef Py_ssize_t x = p + 1, i
    cdef int a
    if not _hd_nd(s, p):
        return -1
    for a in range(2):
        i = x
        if a == 0:
            if not _hd_range(s, i, 0x30, 0x31):
                continue
            i += 1
        if (_hd_dig(s, i) and _hd_sep(s, i + 1) and _hd_range(s, i + 2, 0x31, 0x32) and _hd_digits(s, i + 3, 3)
                and _hd_nd(s, i + 6)):
            g[0] = x
            g[1] = i + 6
            return i + 7
    return -1


# upstream: htmldate.core.search_page (SIMPLE_PATTERN (?<!w3.org)\D((?:199[0-9]|20[0-3][0-9]))\D)
cdef Py_ssize_t _hd_simple(const HdStr* s, Py_ssize_t p, Py_ssize_t* g) noexcept nogil:
    cdef Py_ssize_t x = p + 1
    # the lookbehind: "." is any character but a newline
    if (p >= 6 and _hd_is(s, p - 6, 0x77) and _hd_is(s, p - 5, 0x33) and not _hd_is(s, p - 4, 0x0a)
            and _hd_is(s, p - 3, 0x6f) and _hd_is(s, p - 2, 0x72) and _hd_is(s, p - 1, 0x67)):
        return -1
    if not _hd_nd(s, p):
        return -1
    if not ((_hd_is(s, x, 0x31) and _hd_is(s, x + 1, 0x39) and _hd_is(s, x + 2, 0x39) and _hd_dig(s, x + 3))
            or (_hd_is(s, x, 0x32) and _hd_is(s, x + 1, 0x30) and _hd_range(s, x + 2, 0x30, 0x33)
                and _hd_dig(s, x + 3))):
        return -1
    if not _hd_nd(s, x + 4):
        return -1
    g[0] = x
    g[1] = x + 4
    return x + 5


cdef Py_ssize_t _hd_match(int which, const HdStr* s, Py_ssize_t p, Py_ssize_t* g) noexcept nogil:
    if which == HD_THREE_LOOSE:
        return _hd_three_loose(s, p, g)
    if which == HD_SELECT_YMD:
        return _hd_select_ymd(s, p, g)
    if which == HD_DATESTRINGS:
        return _hd_datestrings(s, p, g)
    if which == HD_SLASHES:
        return _hd_slashes(s, p, g)
    if which == HD_YYYYMM:
        return _hd_yyyymm(s, p, g)
    if which == HD_MMYYYY:
        return _hd_mmyyyy(s, p, g)
    return _hd_simple(s, p, g)


# upstream: htmldate.extractors.idiosyncrasies_search (DATE_CORE_PATTERN [0-9]{1,4}[./][0-9]{1,2}[./][0-9]{2,4})
cdef Py_ssize_t _hd_date_core(const HdStr* s, Py_ssize_t p) noexcept nogil:
    """The end of a match at p, or -1. A greedy digit count followed by [./] can only be
    the whole digit run (a shorter one is followed by a digit): the run must fit."""
    cdef Py_ssize_t i = p, r
    cdef Py_UCS4 c
    r = 0
    while _hd_dig(s, i + r):
        r += 1
    if r < 1 or r > 4 or i + r >= s.n:
        return -1
    c = _hd_at(s, i + r)
    if c != 0x2e and c != 0x2f:
        return -1
    i += r + 1
    r = 0
    while _hd_dig(s, i + r):
        r += 1
    if r < 1 or r > 2 or i + r >= s.n:
        return -1
    c = _hd_at(s, i + r)
    if c != 0x2e and c != 0x2f:
        return -1
    i += r + 1
    r = 0
    while r < 4 and _hd_dig(s, i + r):
        r += 1
    if r < 2:
        return -1
    return i + r


cdef struct HdSpans:
    Py_ssize_t* v    # start, end pairs
    Py_ssize_t n     # pairs
    Py_ssize_t cap
    bint failed


cdef inline void _hd_push(HdSpans* out, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    cdef Py_ssize_t* grown
    if out.failed:
        return
    if out.n == out.cap:
        out.cap = out.cap * 2 if out.cap else 64
        grown = <Py_ssize_t*>realloc(out.v, sizeof(Py_ssize_t) * 2 * out.cap)
        if grown == NULL:
            out.failed = True
            return
        out.v = grown
    out.v[2 * out.n] = a
    out.v[2 * out.n + 1] = b
    out.n += 1


cdef void _hd_findall_c(int which, const HdStr* s, HdSpans* out) noexcept nogil:
    "The group spans of ``findall``: every pattern's match at p has an ASCII digit at p + 1."
    cdef Py_ssize_t pos = 0, q, e
    cdef Py_ssize_t g[2]
    cdef Py_UCS4 c
    q = 1
    while q < s.n:
        c = _u_read(s.kind, s.data, q)
        if 0x30 <= c <= 0x39 and q - 1 >= pos:
            e = _hd_match(which, s, q - 1, g)
            if e >= 0:
                _hd_push(out, g[0], g[1])
                pos = e
                q = e + 1
                continue
        q += 1


cdef void _hd_cores_c(const HdStr* s, Py_ssize_t limit, HdSpans* out) noexcept nogil:
    "The spans of ``finditer``'s first ``limit`` matches of DATE_CORE_PATTERN."
    cdef Py_ssize_t p = 0, e
    cdef Py_UCS4 c
    while p < s.n and out.n < limit:
        c = _u_read(s.kind, s.data, p)
        if 0x30 <= c <= 0x39:
            e = _hd_date_core(s, p)
            if e >= 0:
                _hd_push(out, p, e)
                if out.failed:
                    return
                p = e
                continue
        p += 1


cdef inline void _hd_str(str string, HdStr* s):
    s.kind = PyUnicode_KIND(string)
    s.data = PyUnicode_DATA(string)
    s.n = PyUnicode_GET_LENGTH(string)


# upstream: htmldate.core.search_page (the findall of its \D-led patterns)
def htmldate_findall(str string not None, int which):
    """``PATTERN.findall(string)`` for htmldate's pattern number ``which`` (0 THREE_LOOSE,
    1 SELECT_YMD, 2 DATESTRINGS, 3 SLASHES, 4 YYYYMM, 5 MMYYYY, 6 SIMPLE; see
    trafila/htmldate/scan.py), the matching done without the GIL."""
    cdef HdStr s
    cdef HdSpans out
    cdef Py_ssize_t k
    cdef list result = []
    if not 0 <= which < HD_N_PATTERNS:
        raise ValueError(f"no htmldate pattern {which}")
    _hd_str(string, &s)
    memset(&out, 0, sizeof(HdSpans))
    try:
        with nogil:
            _hd_findall_c(which, &s, &out)
        if out.failed:
            raise MemoryError()
        for k in range(out.n):
            result.append(string[out.v[2 * k]:out.v[2 * k + 1]])
    finally:
        free(out.v)
    return result


# upstream: htmldate.extractors.idiosyncrasies_search (DATE_CORE_PATTERN.finditer)
def htmldate_date_cores(str string not None, Py_ssize_t limit):
    """The (start, end) of the first ``limit`` matches of
    ``DATE_CORE_PATTERN.finditer(string)``, the matching done without the GIL."""
    cdef HdStr s
    cdef HdSpans out
    cdef Py_ssize_t k
    cdef list result = []
    _hd_str(string, &s)
    memset(&out, 0, sizeof(HdSpans))
    try:
        with nogil:
            _hd_cores_c(&s, limit, &out)
        if out.failed:
            raise MemoryError()
        for k in range(out.n):
            result.append((out.v[2 * k], out.v[2 * k + 1]))
    finally:
        free(out.v)
    return result


cdef Py_ssize_t _hd_year_dash_c(const HdStr* s, Py_ssize_t pos) noexcept nogil:
    "The first p >= pos where ``(?:199[0-9]|20[0-3][0-9])-`` matches, or -1."
    cdef Py_ssize_t p = pos
    cdef Py_UCS4 c
    while p + 4 < s.n:
        c = _u_read(s.kind, s.data, p)
        if c == 0x31:
            if _hd_is(s, p + 1, 0x39) and _hd_is(s, p + 2, 0x39) and _hd_dig(s, p + 3) and _hd_is(s, p + 4, 0x2d):
                return p
        elif c == 0x32:
            if (_hd_is(s, p + 1, 0x30) and _hd_range(s, p + 2, 0x30, 0x33) and _hd_dig(s, p + 3)
                    and _hd_is(s, p + 4, 0x2d)):
                return p
        p += 1
    return -1


# upstream: htmldate.extractors.pattern_search (the TIMESTAMP patterns' leading year and dash)
def htmldate_year_dash(str string not None, Py_ssize_t pos):
    """The first index at or after ``pos`` where ``(?:199[0-9]|20[0-3][0-9])-`` matches
    (how TIMESTAMP_PATTERN and TIMESTAMP_LOOSE_PATTERN begin), or -1, without the GIL."""
    cdef HdStr s
    cdef Py_ssize_t p
    _hd_str(string, &s)
    if pos < 0:
        pos = 0
    with nogil:
        p = _hd_year_dash_c(&s, pos)
    return p
