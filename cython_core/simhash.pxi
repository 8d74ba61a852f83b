# trafilatura's text fingerprint (deduplication.Simhash) in C: the sampled tokens' 64-bit
# blake2b values tallied per bit in one array, where upstream (and reference/trafila/simhash.py)
# adds a 64-entry list of +1/-1 per token; the token sampling (2.3.1's and 1.11.0's rules)
# as one pass over the str's code units. Every output format but txt and markdown (and any
# with metadata) computes one per page.
# tests: test_core_simhash.py

from hashlib import blake2b as _sh_blake2b
from string import punctuation as _sh_punctuation
from unicodedata import category as _sh_category


# upstream: trafilatura.deduplication.Simhash.create_hash
def simhash_votes(list tokens, int length):
    """Charikar's hash of already sampled ``tokens``: bit i is set when the tokens' votes for
    bit i (+1 where the token's 64-bit blake2b value, read big-endian, has bit i, else -1) sum
    to >= 0. ``length`` from 0 to 64 (a longer hash: the reference)."""
    cdef long long totals[64]
    cdef unsigned long long value, result = 0
    cdef const unsigned char* raw
    cdef bytes digest
    cdef int bit, k
    if length < 0 or length > 64:
        raise ValueError("simhash_votes: length from 0 to 64")
    for bit in range(64):
        totals[bit] = 0
    for token in tokens:
        digest = _sh_blake2b((<str?>token).encode(), digest_size=8).digest()
        if len(digest) != 8:
            raise ValueError("simhash_votes: an 8-byte digest expected")
        raw = <const unsigned char*>digest
        value = 0
        for k in range(8):
            value = (value << 8) | raw[k]
        for bit in range(length):
            if (value >> bit) & 1:
                totals[bit] += 1
            else:
                totals[bit] -= 1
    for bit in range(length):
        if totals[bit] >= 0:
            result |= (<unsigned long long>1) << bit
    return result


# -- token sampling (trafilatura.deduplication.sample_tokens) --------------------------------

cdef extern from "Python.h":
    # str.isalnum's per-character test (alpha, decimal, digit or numeric)
    bint _sh_isalnum "Py_UNICODE_ISALNUM" (Py_UCS4 ch) noexcept nogil
    object _sh_substring "PyUnicode_Substring" (object text, Py_ssize_t start, Py_ssize_t end)

# string.punctuation, what str.strip(string.punctuation) takes off a token's ends (ASCII only)
cdef uchar _SH_STRIP[128]
# Unicode P* categories of the BMP, learnt from unicodedata as met: 0 not yet, 1 P*, 2 another
cdef uchar _SH_P_BMP[65536]


cdef void _sh_strip_init():
    for ch in _sh_punctuation:
        _SH_STRIP[ord(ch)] = 1


_sh_strip_init()


cdef inline bint _sh_strips(Py_UCS4 c) noexcept nogil:
    return c < 128 and _SH_STRIP[c]


cdef bint _sh_is_punctuation(Py_UCS4 c) except -1:
    "unicodedata.category(c) starts with P (2.3.1's table over all of Unicode holds such a c)."
    cdef uchar known
    if c >= 65536:
        return _sh_category(chr(c))[0] == "P"
    known = _SH_P_BMP[c]
    if known == 0:
        known = 1 if _sh_category(chr(c))[0] == "P" else 2
        _SH_P_BMP[c] = known
    return known == 1


cdef struct _ShSpans:
    Py_ssize_t* v  # start, end of each token
    Py_ssize_t n   # entries used (two a token)
    Py_ssize_t cap


cdef int _sh_push(_ShSpans* spans, Py_ssize_t start, Py_ssize_t end) except -1:
    cdef Py_ssize_t cap
    cdef Py_ssize_t* grown
    if spans.n + 2 > spans.cap:
        cap = spans.cap * 2 if spans.cap else 128
        grown = <Py_ssize_t*>realloc(spans.v, <size_t>cap * sizeof(Py_ssize_t))
        if grown == NULL:
            raise MemoryError()
        spans.v = grown
        spans.cap = cap
    spans.v[spans.n] = start
    spans.v[spans.n + 1] = end
    spans.n += 2
    return 0


cdef bint _sh_alnum(int kind, const void* data, Py_ssize_t start, Py_ssize_t end) noexcept nogil:
    "str.isalnum of text[start:end] (False when empty)."
    cdef Py_ssize_t i
    for i in range(start, end):
        if not _sh_isalnum(_u_read(kind, data, i)):
            return False
    return end > start


cdef int _sh_split_stripped(int kind, const void* data, Py_ssize_t n, _ShSpans* spans) except -1:
    "The tokens of text.split() that are alphanumeric once string.punctuation is stripped at their ends."
    cdef Py_ssize_t i = 0, start, end
    while i < n:
        if _is_space(_u_read(kind, data, i)):
            i += 1
            continue
        start = i
        while i < n and not _is_space(_u_read(kind, data, i)):
            i += 1
        end = i
        while start < end and _sh_strips(_u_read(kind, data, start)):
            start += 1
        while end > start and _sh_strips(_u_read(kind, data, end - 1)):
            end -= 1
        if _sh_alnum(kind, data, start, end):
            _sh_push(spans, start, end)
    return 0


cdef int _sh_split_punctuation(int kind, const void* data, Py_ssize_t n, _ShSpans* spans) except -1:
    """The alphanumeric tokens of text.translate(P* to space).split(): the runs of characters
    that are neither whitespace nor P* (the translation changes no other character)."""
    cdef Py_ssize_t i = 0, start
    cdef Py_UCS4 c
    while i < n:
        c = _u_read(kind, data, i)
        if _is_space(c) or _sh_is_punctuation(c):
            i += 1
            continue
        start = i
        i += 1
        while i < n:
            c = _u_read(kind, data, i)
            if _is_space(c) or _sh_is_punctuation(c):
                break
            i += 1
        if _sh_alnum(kind, data, start, i):
            _sh_push(spans, start, i)
    return 0


# upstream: trafilatura.deduplication.sample_tokens
def simhash_sample_tokens(str text not None, long long length=64, bint release_1_11_0=False):
    """``sample_tokens(text, length)`` of trafilatura 2.3.1 (``release_1_11_0``: 1.11.0's,
    without the split at non-ASCII punctuation): the tokens of ``text.split()`` that are
    alphanumeric once ASCII punctuation is stripped at their ends (2.3.1, none of them:
    the alphanumeric runs between whitespace and Unicode punctuation), then the first of
    the classes longer than 4, 3, 2, 1 characters holding ``length / 2`` of them, else all."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), k, size, min_len = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    cdef long long longer[5]  # longer[m]: tokens longer than m characters (m 1 to 4)
    cdef int m
    cdef _ShSpans spans
    cdef list out = []
    spans.v = NULL
    spans.n = spans.cap = 0
    try:
        _sh_split_stripped(kind, data, n, &spans)
        if spans.n == 0 and not release_1_11_0:
            _sh_split_punctuation(kind, data, n, &spans)
        for k in range(5):
            longer[k] = 0
        for k in range(0, spans.n, 2):
            size = spans.v[k + 1] - spans.v[k]
            for m in range(1, 5):
                if size > m:
                    longer[m] += 1
        # len(sample) >= length / 2, in integers
        for m in range(4, 0, -1):
            if 2 * longer[m] >= length:
                min_len = m
                break
        for k in range(0, spans.n, 2):
            if spans.v[k + 1] - spans.v[k] > min_len:
                out.append(_sh_substring(text, spans.v[k], spans.v[k + 1]))
    finally:
        free(spans.v)
    return out
