# trafilatura's JSON-LD minification (metadata.extract_meta_json's JSON_MINIFY.sub(r"\1", text))
# as one C pass (reference/trafila/v*/metadata.py _minify calls it on the core's backend;
# the regex stays the specification everywhere else).
#
# 2.3.1: ("(?:\\.|[^"\\])*")|\s+  -- a string's items are a backslash and any character
#   but a newline, or one character that is neither quote nor backslash: deterministic, only
#   the greedy end can be followed by the closing quote.
# 1.11.0: ("(?:\\"|[^"])*")|\s+   -- a backslash-quote pair is tried first, a lone backslash
#   (any character but a quote) second: the greedy path ends at the first quote it does not
#   pair; at the end of the text it fails, and backtracking takes the last pair's backslash
#   alone, so that pair's quote closes the string.
# Both: a whitespace run (\s: Py_UNICODE_ISSPACE) outside a string is dropped, a string is
# kept, any other character (a quote that starts no string too) is kept.


cdef Py_ssize_t _mj_string_end(int kind, const void* data, Py_ssize_t n, Py_ssize_t p, bint v1_11_0) noexcept nogil:
    "The end of the string match at p (s[p] is a quote), or -1."
    cdef Py_ssize_t i = p + 1, last_pair = -1
    cdef Py_UCS4 c
    while i < n:
        c = _u_read(kind, data, i)
        if c == 0x22:
            return i + 1
        if c == 0x5c:
            if v1_11_0:
                if i + 1 < n and _u_read(kind, data, i + 1) == 0x22:
                    last_pair = i
                    i += 2
                else:
                    i += 1
                continue
            if i + 1 < n and _u_read(kind, data, i + 1) != 0x0a:
                i += 2
                continue
            return -1
        i += 1
    if v1_11_0 and last_pair >= 0:
        return last_pair + 2
    return -1


cdef Py_ssize_t _mj_minify_c(int kind, const void* data, Py_ssize_t n, Py_UCS4* out, bint v1_11_0) noexcept nogil:
    cdef Py_ssize_t p = 0, m = 0, e
    cdef Py_UCS4 c
    while p < n:
        c = _u_read(kind, data, p)
        if c == 0x22:
            e = _mj_string_end(kind, data, n, p, v1_11_0)
            if e >= 0:
                while p < e:
                    out[m] = _u_read(kind, data, p)
                    m += 1
                    p += 1
                continue
        elif _ws_isspace_ascii(c):
            p += 1
            while p < n and _ws_isspace_ascii(_u_read(kind, data, p)):
                p += 1
            continue
        out[m] = c
        m += 1
        p += 1
    return m


cdef inline bint _ws_isspace_ascii(Py_UCS4 c) noexcept nogil:
    if c < 128:
        return c == 0x20 or 0x09 <= c <= 0x0d or 0x1c <= c <= 0x1f
    return _ws_isspace(c)


# upstream: trafilatura.metadata.extract_meta_json (JSON_MINIFY.sub)
def json_minify(str text not None, bint v1_11_0=False):
    """``JSON_MINIFY.sub(r"\\1", text)`` of trafilatura 2.3.1 (or of 1.11.0 with
    ``v1_11_0``): whitespace runs outside JSON strings removed, in C without the GIL."""
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), m
    cdef Py_UCS4* out
    if n == 0:
        return text
    out = <Py_UCS4*>malloc(sizeof(Py_UCS4) * n)
    if out == NULL:
        raise MemoryError()
    try:
        with nogil:
            m = _mj_minify_c(kind, data, n, out, v1_11_0)
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, m)
    finally:
        free(out)
