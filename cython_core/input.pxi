# The input layer (trafila.html.input): the code points libxml2 2.14.6 reads,
# as one UTF-8 buffer the tokenizer scans.
#
# * bytes: one leading UTF-8 BOM is skipped when anything follows it; each
#   byte that does not start a valid UTF-8 sequence becomes one U+FFFD.
# * str: by PEP 393 kind. Kind 1 is Latin-1 (ASCII is already UTF-8). Kind 2
#   is read as UTF-16LE: a high surrogate followed by a low one is one astral
#   character, any other surrogate ends the input. Kind 4 is read as UTF-32LE:
#   any surrogate ends the input. One leading U+FEFF is skipped when anything
#   follows it, unless the decoding error fell in the first 4000-byte block.

cdef extern from "Python.h":
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    int PyUnicode_IS_ASCII(object)
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)
    char* PyBytes_AS_STRING(object)
    Py_ssize_t PyBytes_GET_SIZE(object)

ctypedef unsigned short ucs2
ctypedef uint32_t ucs4

cdef extern from *:
    """
    /* The leading ASCII code units of a PEP 393 buffer, written to out as bytes; returns
       how many. Exactly that many bytes are written. SSE2 (every x86-64): 16 one-byte,
       8 two-byte or 4 four-byte units a step; the scalar loop ends the run elsewhere. */
    #include <stdint.h>
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif

    static Py_ssize_t trafila_ascii_run_1(const uint8_t* s, Py_ssize_t n, uint8_t* out) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        while (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*)(s + i));
            if (_mm_movemask_epi8(v) != 0) break;
            _mm_storeu_si128((__m128i*)(out + i), v);
            i += 16;
        }
    #endif
        while (i < n && s[i] < 0x80) {
            out[i] = s[i];
            i++;
        }
        return i;
    }

    static Py_ssize_t trafila_ascii_run_2(const uint16_t* s, Py_ssize_t n, uint8_t* out) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i high = _mm_set1_epi16((short)0xFF80), zero = _mm_setzero_si128();
        while (i + 8 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*)(s + i));
            if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, high), zero)) != 0xFFFF) break;
            /* every lane < 0x80: the saturating pack is the low bytes */
            _mm_storel_epi64((__m128i*)(out + i), _mm_packus_epi16(v, v));
            i += 8;
        }
    #endif
        while (i < n && s[i] < 0x80) {
            out[i] = (uint8_t)s[i];
            i++;
        }
        return i;
    }

    static Py_ssize_t trafila_ascii_run_4(const uint32_t* s, Py_ssize_t n, uint8_t* out) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i high = _mm_set1_epi32((int)0xFFFFFF80u), zero = _mm_setzero_si128();
        while (i + 4 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*)(s + i));
            if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(v, high), zero)) != 0xFFFF) break;
            out[i] = (uint8_t)s[i];
            out[i + 1] = (uint8_t)s[i + 1];
            out[i + 2] = (uint8_t)s[i + 2];
            out[i + 3] = (uint8_t)s[i + 3];
            i += 4;
        }
    #endif
        while (i < n && s[i] < 0x80) {
            out[i] = (uint8_t)s[i];
            i++;
        }
        return i;
    }
    """
    Py_ssize_t trafila_ascii_run_1(const uchar* s, Py_ssize_t n, uchar* out) nogil
    Py_ssize_t trafila_ascii_run_2(const unsigned short* s, Py_ssize_t n, uchar* out) nogil
    Py_ssize_t trafila_ascii_run_4(const uint32_t* s, Py_ssize_t n, uchar* out) nogil


cdef enum:
    FIRST_BLOCK = 4000
    MAX_INPUT = 0x15555550  # 3 bytes of UTF-8 per input unit must stay below MAX_ARENA


cdef struct Input:
    const uchar* s
    Py_ssize_t n
    uchar* owned         # malloc'd buffer behind s, or NULL when s is borrowed
    int error


cdef inline Py_ssize_t utf8_valid_len(const uchar* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """Length of the valid UTF-8 sequence at s[i] (as Python's strict decoder accepts it), or 0."""
    cdef uchar c = s[i]
    cdef uchar c1
    if c < 0x80:
        return 1
    if c < 0xC2:
        return 0
    if c < 0xE0:
        if i + 1 < n and (s[i + 1] & 0xC0) == 0x80:
            return 2
        return 0
    if c < 0xF0:
        if i + 2 >= n:
            return 0
        c1 = s[i + 1]
        if c == 0xE0:
            if c1 < 0xA0 or c1 > 0xBF:
                return 0
        elif c == 0xED:
            if c1 < 0x80 or c1 > 0x9F:
                return 0
        elif (c1 & 0xC0) != 0x80:
            return 0
        if (s[i + 2] & 0xC0) != 0x80:
            return 0
        return 3
    if c < 0xF5:
        if i + 3 >= n:
            return 0
        c1 = s[i + 1]
        if c == 0xF0:
            if c1 < 0x90 or c1 > 0xBF:
                return 0
        elif c == 0xF4:
            if c1 < 0x80 or c1 > 0x8F:
                return 0
        elif (c1 & 0xC0) != 0x80:
            return 0
        if (s[i + 2] & 0xC0) != 0x80 or (s[i + 3] & 0xC0) != 0x80:
            return 0
        return 4
    return 0


cdef inline Py_ssize_t put_utf8(uchar* out, ucs4 cp) noexcept nogil:
    if cp < 0x80:
        out[0] = <uchar>cp
        return 1
    if cp < 0x800:
        out[0] = <uchar>(0xC0 | (cp >> 6))
        out[1] = <uchar>(0x80 | (cp & 0x3F))
        return 2
    if cp < 0x10000:
        out[0] = <uchar>(0xE0 | (cp >> 12))
        out[1] = <uchar>(0x80 | ((cp >> 6) & 0x3F))
        out[2] = <uchar>(0x80 | (cp & 0x3F))
        return 3
    out[0] = <uchar>(0xF0 | (cp >> 18))
    out[1] = <uchar>(0x80 | ((cp >> 12) & 0x3F))
    out[2] = <uchar>(0x80 | ((cp >> 6) & 0x3F))
    out[3] = <uchar>(0x80 | (cp & 0x3F))
    return 4


cdef void input_from_bytes(Input* inp, const uchar* data, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0, k, o
    cdef uchar* out
    cdef uint64_t word
    inp.owned = NULL
    inp.error = 0
    if n > 3 and data[0] == 0xEF and data[1] == 0xBB and data[2] == 0xBF:
        data += 3
        n -= 3
    if n > MAX_INPUT:
        inp.error = ERR_TOO_LARGE
        return
    # the common case: valid UTF-8, read in place (ASCII 8 bytes at a time)
    while i < n:
        if i + 8 <= n:
            memcpy(&word, data + i, 8)
            if (word & 0x8080808080808080u) == 0:
                i += 8
                continue
        if data[i] < 0x80:
            i += 1
            continue
        k = utf8_valid_len(data, i, n)
        if k == 0:
            break
        i += k
    if i == n:
        inp.s = data
        inp.n = n
        return
    out = NULL if alloc_fails() else <uchar*>malloc(<size_t>(n * 3 + 4))
    if out == NULL:
        inp.error = ERR_MEMORY
        return
    memcpy(out, data, <size_t>i)
    o = i
    while i < n:
        k = utf8_valid_len(data, i, n)
        if k == 0:
            out[o] = 0xEF
            out[o + 1] = 0xBF
            out[o + 2] = 0xBD
            o += 3
            i += 1
        else:
            memcpy(out + o, data + i, <size_t>k)
            o += k
            i += k
    inp.owned = out
    inp.s = out
    inp.n = o


cdef bint error_in_first_block(const void* data, int kind, Py_ssize_t length, Py_ssize_t index) noexcept nogil:
    # trafila.html.input._error_in_first_block
    cdef Py_ssize_t last_unit
    cdef ucs2 u
    if kind == 4:
        return (index + 1) * 4 <= FIRST_BLOCK
    last_unit = (FIRST_BLOCK // 2 if FIRST_BLOCK // 2 < length else length) - 1
    if index < last_unit:
        return True
    if index == last_unit:
        u = (<const ucs2*>data)[index]
        return 0xDC00 <= u <= 0xDFFF
    return False


cdef void input_from_str_data(Input* inp, int kind, const void* data, Py_ssize_t length, bint ascii) noexcept nogil:
    cdef Py_ssize_t i, k, o = 0, error_at = -1
    cdef uchar* out
    cdef const uchar* d1
    cdef const ucs2* d2
    cdef const ucs4* d4
    cdef ucs4 cp, lo
    inp.owned = NULL
    inp.error = 0
    if length > MAX_INPUT:
        inp.error = ERR_TOO_LARGE
        return
    if kind == 1 and ascii:
        inp.s = <const uchar*>data
        inp.n = length
        return
    out = NULL if alloc_fails() else <uchar*>malloc(<size_t>(length * (2 if kind == 1 else 4) + 4))
    if out == NULL:
        inp.error = ERR_MEMORY
        return
    # each unit as before; runs of ASCII are copied a vector at a time (trafila_ascii_run_*)
    if kind == 1:
        d1 = <const uchar*>data
        i = 0
        while i < length:
            k = trafila_ascii_run_1(d1 + i, length - i, out + o)
            i += k
            o += k
            if i >= length:
                break
            out[o] = <uchar>(0xC0 | (d1[i] >> 6))
            out[o + 1] = <uchar>(0x80 | (d1[i] & 0x3F))
            o += 2
            i += 1
    elif kind == 2:
        d2 = <const ucs2*>data
        i = 0
        while i < length:
            k = trafila_ascii_run_2(d2 + i, length - i, out + o)
            i += k
            o += k
            if i >= length:
                break
            cp = d2[i]
            if 0xD800 <= cp <= 0xDFFF:
                if cp <= 0xDBFF and i + 1 < length:
                    lo = d2[i + 1]
                    if 0xDC00 <= lo <= 0xDFFF:
                        o += put_utf8(out + o, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00))
                        i += 2
                        continue
                error_at = i
                break
            o += put_utf8(out + o, cp)
            i += 1
    else:
        d4 = <const ucs4*>data
        i = 0
        while i < length:
            k = trafila_ascii_run_4(d4 + i, length - i, out + o)
            i += k
            o += k
            if i >= length:
                break
            cp = d4[i]
            if 0xD800 <= cp <= 0xDFFF:
                error_at = i
                break
            o += put_utf8(out + o, cp)
            i += 1
    inp.owned = out
    inp.s = out
    inp.n = o
    # a leading U+FEFF followed by anything is skipped
    if kind != 1 and o > 3 and out[0] == 0xEF and out[1] == 0xBB and out[2] == 0xBF:
        if error_at < 0 or not error_in_first_block(data, kind, length, error_at):
            inp.s = out + 3
            inp.n = o - 3


cdef void input_free(Input* inp) noexcept nogil:
    if inp.owned != NULL:
        free(inp.owned)
    inp.owned = NULL
