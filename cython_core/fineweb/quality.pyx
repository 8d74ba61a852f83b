# cython: language_level=3
"""trafila._quality: the compiled twin of the loops in trafila.fineweb.quality.

Same functions, same results as the reference (``trafila/fineweb/quality.py``):
``repetition_counts``, ``NGramCounts`` (``top``, ``all_duplicate``), ``word_counts``,
``line_marks``, ``c4_lines``, ``fineweb_counts``, and datatrove's helpers
``find_duplicates``, ``find_top_duplicate``, ``find_all_duplicate``, ``get_n_grams``.

The n-grams are never built as strings: each word gets an id and the polynomial hash of
its characters, and prefix sums over the words give the hash of any run of words joined
with or without spaces; one hash table per n finds the n-grams, equal hashes being confirmed
(equal word ids, else character by character), so a hash collision never merges two n-grams.
Arguments outside what
the compiled loops handle (n < 1, stop characters longer than one character, a non-int line
length) run the reference's code.
"""

from libc.stdint cimport uint64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcmp

from trafila.fineweb import quality as _ref
from trafila.fineweb.text import PUNCTUATION_SET as _PUNCTUATION_SET
from trafila.fineweb.text import TERMINAL_PUNCTUATION as _TERMINAL

cdef extern from "Python.h":
    Py_UCS4* PyUnicode_AsUCS4Copy(object) except NULL
    void PyMem_Free(void*)
    bint Py_UNICODE_ISSPACE(Py_UCS4)
    bint Py_UNICODE_ISALPHA(Py_UCS4)
    bint Py_UNICODE_ISLINEBREAK(Py_UCS4)
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index) nogil
    object PyUnicode_Substring(object, Py_ssize_t, Py_ssize_t)

engine = "core"

cdef enum:
    MAX_CP = 0x110000

# one bit per code point: PUNCTUATION_SET, TERMINAL_PUNCTUATION
cdef uint8_t* _punct_bits = <uint8_t*>calloc(MAX_CP // 8, 1)
cdef uint8_t* _terminal_bits = <uint8_t*>calloc(MAX_CP // 8, 1)
if _punct_bits == NULL or _terminal_bits == NULL:
    raise MemoryError()


cdef void _set_bits(uint8_t* bits, chars) except *:
    cdef unsigned int k
    for ch in chars:
        assert len(ch) == 1
        k = ord(ch)
        bits[k >> 3] |= <uint8_t>(1 << (k & 7))


_set_bits(_punct_bits, _PUNCTUATION_SET)
_set_bits(_terminal_bits, _TERMINAL)
_TERMINAL_SET = frozenset(_TERMINAL)


cdef inline bint _has(const uint8_t* bits, Py_UCS4 c) noexcept nogil:
    cdef unsigned int k = <unsigned int>c
    return (bits[k >> 3] >> (k & 7)) & 1


# --------------------------------------------------------------------------- datatrove's helpers


# upstream: datatrove.pipeline.filters.gopher_repetition_filter.get_n_grams
def get_n_grams(list words, Py_ssize_t n):
    """The n-grams of words joined by spaces (datatrove's get_n_grams)."""
    return _ref.get_n_grams(words, n)


# upstream: datatrove.pipeline.filters.gopher_repetition_filter.find_duplicates
def find_duplicates(x):
    """(elements seen before, their characters) over x in order."""
    cdef set seen = set()
    cdef Py_ssize_t elements = 0, chars = 0
    for element in x:
        if element in seen:
            elements += 1
            chars += len(element)
        else:
            seen.add(element)
    return elements, chars


# upstream: datatrove.pipeline.filters.gopher_repetition_filter.find_top_duplicate
def find_top_duplicate(x):
    """Length times count of the most common element (the first seen among ties)."""
    return _ref.find_top_duplicate(x)


# upstream: datatrove.pipeline.filters.gopher_repetition_filter.find_all_duplicate
def find_all_duplicate(list words, Py_ssize_t n):
    """Characters of the repeated n-grams joined without spaces, jumping past each."""
    if n < 1:
        return _ref.find_all_duplicate(words, n)
    return NGramCounts(words).all_duplicate(n)


# --------------------------------------------------------------------------- slices of a text


# upstream: datatrove.pipeline.filters.gopher_repetition_filter.find_duplicates (over slices of a text)
cdef object _dup_slices(str text, Py_ssize_t* bounds, Py_ssize_t count, Py_ssize_t* dup_chars):
    """Duplicate count of the slices [bounds[2i], bounds[2i+1]) of text; characters in dup_chars."""
    cdef set seen = set()
    cdef Py_ssize_t i, dups = 0, chars = 0
    cdef object piece
    for i in range(count):
        piece = PyUnicode_Substring(text, bounds[2 * i], bounds[2 * i + 1])
        if piece in seen:
            dups += 1
            chars += bounds[2 * i + 1] - bounds[2 * i]
        else:
            seen.add(piece)
    dup_chars[0] = chars
    return dups


# upstream: re.split(r"\n{2,}") / re.split("\n+") as GopherRepetitionFilter.filter splits paragraphs and lines
cdef Py_ssize_t _split_newline_runs(int kind, void* data, Py_ssize_t start, Py_ssize_t end, Py_ssize_t min_run,
                                    Py_ssize_t* bounds) noexcept:
    """re.split of text[start:end] on runs of at least min_run "\\n": the pieces' bounds."""
    cdef Py_ssize_t count = 0, pos = start, piece = start, r
    while pos < end:
        if PyUnicode_READ(kind, data, pos) == u'\n':
            r = pos + 1
            while r < end and PyUnicode_READ(kind, data, r) == u'\n':
                r += 1
            if r - pos >= min_run:
                bounds[2 * count] = piece
                bounds[2 * count + 1] = pos
                count += 1
                piece = r
            pos = r
        else:
            pos += 1
    bounds[2 * count] = piece
    bounds[2 * count + 1] = end
    return count + 1


# upstream: datatrove.pipeline.filters.gopher_repetition_filter.GopherRepetitionFilter.filter (paragraph and line duplicates)
def repetition_counts(str text):
    """(paragraphs, duplicate paragraphs, their characters, lines, duplicate lines, their characters)."""
    cdef Py_ssize_t n = len(text), s = 0, e, n_paras, n_lines, para_dups, line_dups, para_chars, line_chars
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    # at most one piece per character, and one more
    cdef Py_ssize_t* bounds = <Py_ssize_t*>malloc((2 * n + 4) * sizeof(Py_ssize_t))
    if bounds == NULL:
        raise MemoryError()
    try:
        e = n
        while s < e and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, s)):
            s += 1
        while e > s and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, e - 1)):
            e -= 1
        n_paras = _split_newline_runs(kind, data, s, e, 2, bounds)
        para_dups = _dup_slices(text, bounds, n_paras, &para_chars)
        n_lines = _split_newline_runs(kind, data, 0, n, 1, bounds)
        line_dups = _dup_slices(text, bounds, n_lines, &line_chars)
    finally:
        free(bounds)
    return n_paras, para_dups, para_chars, n_lines, line_dups, line_chars


# --------------------------------------------------------------------------- n-grams

# an odd 64-bit multiplier (arithmetic modulo 2**64)
cdef uint64_t HASH_MUL = 0x9E3779B97F4A7C15ULL


cdef inline uint64_t _pow(uint64_t b, Py_ssize_t e) noexcept nogil:
    """b ** e modulo 2**64."""
    cdef uint64_t r = 1
    while e > 0:
        if e & 1:
            r *= b
        b *= b
        e >>= 1
    return r


include "mix64.pxi"


cdef inline uint64_t _inverse(uint64_t b) noexcept nogil:
    """b's multiplicative inverse modulo 2**64 (b odd): Newton's iteration."""
    cdef uint64_t x = b
    cdef int k
    for k in range(6):
        x *= 2 - b * x
    return x


cdef struct GramEntry:
    Py_ssize_t first   # word index where the n-gram first occurs
    Py_ssize_t count


cdef class _JoinCursor:
    """The characters of words[start:end] joined (by single spaces when spaced), one by one."""
    cdef list words
    cdef Py_ssize_t w, end, i, length
    cdef int kind
    cdef void* data
    cdef bint spaced, first
    cdef object current

    def __cinit__(self, list words, Py_ssize_t start, Py_ssize_t end, bint spaced):
        self.words = words
        self.w = start      # the next word to load
        self.end = end
        self.spaced = spaced
        self.first = True
        self.i = 0
        self.length = 0

    cdef long next(self) except -2:
        """The next code point, -1 at the end."""
        cdef str word
        while True:
            if self.i < self.length:
                self.i += 1
                return <long>PyUnicode_READ(self.kind, self.data, self.i - 1)
            if self.w >= self.end:
                return -1
            word = <str>self.words[self.w]
            self.current = word
            self.kind = PyUnicode_KIND(word)
            self.data = PyUnicode_DATA(word)
            self.length = len(word)
            self.i = 0
            self.w += 1
            if self.spaced and not self.first:
                return 32  # the space before every word but the first
            self.first = False


# upstream: datatrove.pipeline.filters.gopher_repetition_filter.get_n_grams + find_top_duplicate / find_all_duplicate
cdef class NGramCounts:
    """The n-gram statistics of one word list, from per-word hashes.

    Each word gets an id (equal words, equal ids), its length and the polynomial hash of its
    characters; prefix sums of those give, for any run of words, the hash of the run joined
    without spaces ("".join) and of the run joined by spaces with one more space (" ".join plus
    " ": as distinguishing as the join itself). Equal hashes are confirmed: equal id runs are
    equal strings; other runs of equal length are compared character by character (so "ab"+"c"
    and "a"+"bc" are one n-gram without spaces, as datatrove's strings are, and a collision
    never merges two n-grams)."""

    cdef list words
    cdef Py_ssize_t n_words
    cdef Py_ssize_t* ids
    cdef Py_ssize_t* lsum      # characters of words[:i]
    cdef uint64_t* j_hash      # hash of "".join(words[:i])
    cdef uint64_t* j_pow       # HASH_MUL ** lsum[i]
    cdef uint64_t* j_inv       # its inverse
    cdef uint64_t* s_hash      # hash of "".join(w + " " for w in words[:i])
    cdef uint64_t* s_pow       # HASH_MUL ** (lsum[i] + i)
    cdef uint64_t* s_inv

    def __cinit__(self, words):
        cdef Py_ssize_t i, k, length, n, cap, slot, e, n_ids = 0
        cdef int kind
        cdef void* data
        cdef uint64_t h, pw, pinv, inv = _inverse(HASH_MUL), space = <uint64_t>32 + 1
        cdef str w, other
        cdef Py_ssize_t* slots = NULL
        cdef uint64_t* id_hash = NULL
        cdef Py_ssize_t* id_word = NULL
        self.words = list(words)
        n = self.n_words = len(self.words)
        self.ids = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
        self.lsum = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
        self.j_hash = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
        self.j_pow = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
        self.j_inv = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
        self.s_hash = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
        self.s_pow = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
        self.s_inv = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
        if (self.ids == NULL or self.lsum == NULL or self.j_hash == NULL or self.j_pow == NULL
                or self.j_inv == NULL or self.s_hash == NULL or self.s_pow == NULL or self.s_inv == NULL):
            raise MemoryError()
        cap = 16
        while cap < 2 * n:
            cap <<= 1
        slots = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
        id_hash = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
        id_word = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
        try:
            if slots == NULL or id_hash == NULL or id_word == NULL:
                raise MemoryError()
            for slot in range(cap):
                slots[slot] = -1
            self.lsum[0] = 0
            self.j_hash[0] = self.s_hash[0] = 0
            self.j_pow[0] = self.j_inv[0] = self.s_pow[0] = self.s_inv[0] = 1
            for i in range(n):
                w = <str?>self.words[i]
                kind = PyUnicode_KIND(w)
                data = PyUnicode_DATA(w)
                length = len(w)
                h = 0
                pw = 1
                for k in range(length):
                    h = h * HASH_MUL + <uint64_t>PyUnicode_READ(kind, data, k) + 1
                    pw *= HASH_MUL
                # the word's id: the first equal word's
                slot = <Py_ssize_t>((mix64(h) ^ <uint64_t>length) & <uint64_t>(cap - 1))
                while True:
                    e = slots[slot]
                    if e < 0:
                        slots[slot] = n_ids
                        id_hash[n_ids] = h
                        id_word[n_ids] = i
                        self.ids[i] = n_ids
                        n_ids += 1
                        break
                    if id_hash[e] == h:
                        other = <str>self.words[id_word[e]]
                        if other is w or other == w:  # the tokenizer hands out one object per cached chunk
                            self.ids[i] = e
                            break
                    slot = (slot + 1) & (cap - 1)
                self.lsum[i + 1] = self.lsum[i] + length
                self.j_hash[i + 1] = self.j_hash[i] * pw + h
                self.j_pow[i + 1] = self.j_pow[i] * pw
                pinv = _pow(inv, length)
                self.j_inv[i + 1] = self.j_inv[i] * pinv
                self.s_hash[i + 1] = (self.s_hash[i] * pw + h) * HASH_MUL + space
                self.s_pow[i + 1] = self.s_pow[i] * pw * HASH_MUL
                self.s_inv[i + 1] = self.s_inv[i] * pinv * inv
        finally:
            free(slots)
            free(id_hash)
            free(id_word)

    def __dealloc__(self):
        free(self.ids)
        free(self.lsum)
        free(self.j_hash)
        free(self.j_pow)
        free(self.j_inv)
        free(self.s_hash)
        free(self.s_pow)
        free(self.s_inv)

    cdef inline uint64_t _gram_hash(self, Py_ssize_t a, Py_ssize_t n, bint spaced) noexcept:
        """The hash of words[a:a+n] joined (by spaces, plus one: spaced)."""
        if spaced:
            return self.s_hash[a + n] - self.s_hash[a] * (self.s_pow[a + n] * self.s_inv[a])
        return self.j_hash[a + n] - self.j_hash[a] * (self.j_pow[a + n] * self.j_inv[a])

    cdef bint _same(self, Py_ssize_t a, Py_ssize_t b, Py_ssize_t n, bint spaced) except -1:
        """Whether words[a:a+n] and words[b:b+n] join (by spaces: spaced) to equal strings."""
        cdef Py_ssize_t k
        if self.lsum[a + n] - self.lsum[a] != self.lsum[b + n] - self.lsum[b]:
            return False
        for k in range(n):
            if self.ids[a + k] != self.ids[b + k]:
                break
        else:
            return True
        # the same length, other words: compare the joined characters
        cdef _JoinCursor x = _JoinCursor(self.words, a, a + n, spaced)
        cdef _JoinCursor y = _JoinCursor(self.words, b, b + n, spaced)
        cdef long cx, cy
        while True:
            cx = x.next()
            cy = y.next()
            if cx != cy:
                return False
            if cx < 0:
                return True

    # upstream: datatrove.pipeline.filters.gopher_repetition_filter.find_top_duplicate(get_n_grams(words, n))
    def top(self, Py_ssize_t n):
        """find_top_duplicate of the n-grams joined by spaces, -1 when there are none."""
        if n < 1:
            return _ref.NGramCounts(self.words).top(n)
        cdef Py_ssize_t m = self.n_words - n + 1
        if m <= 0:
            return -1
        return self._top(n, m)

    cdef object _top(self, Py_ssize_t n, Py_ssize_t m):
        cdef Py_ssize_t cap = 16, i, slot, e, n_entries = 0, best
        while cap < 2 * m:
            cap <<= 1
        cdef Py_ssize_t* slots = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
        cdef uint64_t* hashes = <uint64_t*>malloc(m * sizeof(uint64_t))
        cdef GramEntry* entries = <GramEntry*>malloc(m * sizeof(GramEntry))
        cdef uint64_t h
        try:
            if slots == NULL or hashes == NULL or entries == NULL:
                raise MemoryError()
            for slot in range(cap):
                slots[slot] = -1
            for i in range(m):
                h = self._gram_hash(i, n, True)
                slot = <Py_ssize_t>(mix64(h) & <uint64_t>(cap - 1))
                while True:
                    e = slots[slot]
                    if e < 0:
                        slots[slot] = n_entries
                        hashes[n_entries] = h
                        entries[n_entries].first = i
                        entries[n_entries].count = 1
                        n_entries += 1
                        break
                    if hashes[e] == h and self._same(entries[e].first, i, n, True):
                        entries[e].count += 1
                        break
                    slot = (slot + 1) & (cap - 1)
            # Counter.most_common(1): the first inserted among the most common
            best = 0
            for e in range(1, n_entries):
                if entries[e].count > entries[best].count:
                    best = e
            i = entries[best].first
            return (self.lsum[i + n] - self.lsum[i] + n - 1) * entries[best].count
        finally:
            free(slots)
            free(hashes)
            free(entries)

    # upstream: datatrove.pipeline.filters.gopher_repetition_filter.find_all_duplicate
    def all_duplicate(self, Py_ssize_t n):
        """find_all_duplicate: characters of the repeated n-grams joined without spaces."""
        if n < 1:
            return _ref.find_all_duplicate(self.words, n)
        cdef Py_ssize_t m = self.n_words - n + 1
        if m <= 0:
            return 0
        return self._all_duplicate(n, m)

    cdef object _all_duplicate(self, Py_ssize_t n, Py_ssize_t m):
        cdef Py_ssize_t cap = 16, idx = 0, slot, e, n_entries = 0, repeated = 0
        cdef bint found
        while cap < 2 * m:
            cap <<= 1
        cdef Py_ssize_t* slots = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
        cdef uint64_t* hashes = <uint64_t*>malloc(m * sizeof(uint64_t))
        cdef Py_ssize_t* firsts = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
        cdef uint64_t h
        try:
            if slots == NULL or hashes == NULL or firsts == NULL:
                raise MemoryError()
            for slot in range(cap):
                slots[slot] = -1
            while idx < m:
                h = self._gram_hash(idx, n, False)
                slot = <Py_ssize_t>(mix64(h) & <uint64_t>(cap - 1))
                found = False
                while True:
                    e = slots[slot]
                    if e < 0:
                        break
                    if hashes[e] == h and self._same(firsts[e], idx, n, False):
                        found = True
                        break
                    slot = (slot + 1) & (cap - 1)
                if found:
                    # a repeat is counted and skipped over whole, as datatrove's loop does
                    repeated += self.lsum[idx + n] - self.lsum[idx]
                    idx += n
                else:
                    slots[slot] = n_entries
                    hashes[n_entries] = h
                    firsts[n_entries] = idx
                    n_entries += 1
                    idx += 1
            return repeated
        finally:
            free(slots)
            free(hashes)
            free(firsts)


# --------------------------------------------------------------------------- per word, per line


# upstream: datatrove.pipeline.filters.gopher_quality_filter.GopherQualityFilter.filter (word statistics)
def word_counts(list words, stop_words):
    """(non-symbol words, the sum of their lengths, words with a letter, stop words present)."""
    cdef Py_ssize_t n_non_symbol = 0, chars = 0, alpha = 0, i, length
    cdef bint symbol_only, has_alpha
    cdef int kind
    cdef void* data
    cdef Py_UCS4 c
    cdef str w
    cdef set present = set()
    for word in words:
        w = <str?>word
        kind = PyUnicode_KIND(w)
        data = PyUnicode_DATA(w)
        length = len(w)
        symbol_only = True
        has_alpha = False
        for i in range(length):
            c = PyUnicode_READ(kind, data, i)
            if symbol_only and not _has(_punct_bits, c):
                symbol_only = False
            if not has_alpha and Py_UNICODE_ISALPHA(c):
                has_alpha = True
            if not symbol_only and has_alpha:
                break
        if not symbol_only:
            n_non_symbol += 1
            chars += length
        if has_alpha:
            alpha += 1
        if w in stop_words:
            present.add(w)
    return n_non_symbol, chars, alpha, len(present)


# upstream: datatrove.pipeline.filters.gopher_quality_filter.GopherQualityFilter.filter (bullet and ellipsis lines)
def line_marks(str text):
    """(splitlines lines, bullet lines, lines ending with an ellipsis)."""
    cdef Py_ssize_t n = len(text), pos = 0, start, end, a, b, lines = 0, bullets = 0, ellipses = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    while pos < n:
        start = pos
        while pos < n and not Py_UNICODE_ISLINEBREAK(PyUnicode_READ(kind, data, pos)):
            pos += 1
        end = pos
        if pos < n:
            # "\r\n" is one line break
            if PyUnicode_READ(kind, data, pos) == u'\r' and pos + 1 < n and PyUnicode_READ(kind, data, pos + 1) == u'\n':
                pos += 2
            else:
                pos += 1
        lines += 1
        a = start
        while a < end and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a)):
            a += 1
        if a < end:
            c = PyUnicode_READ(kind, data, a)
            if c == u'•' or c == u'-':
                bullets += 1
        b = end
        while b > start and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, b - 1)):
            b -= 1
        if b > start:
            c = PyUnicode_READ(kind, data, b - 1)
            if c == u'…' or (c == u'.' and b - start >= 3 and PyUnicode_READ(kind, data, b - 2) == u'.'
                             and PyUnicode_READ(kind, data, b - 3) == u'.'):
                ellipses += 1
    return lines, bullets, ellipses


_CITATION_SUB = _ref.CITATION_REGEX.sub
_END_PUNCTUATION = _ref.END_PUNCTUATION
_ELLIPSIS = _ref.ELLIPSIS
_POLICY = tuple(_ref.POLICY_SUBSTRINGS)


# upstream: datatrove.pipeline.filters.c4_filters.C4QualityFilter.filter (the line loop)
def c4_lines(lines, remove_citations, filter_no_terminal_punct, min_words_per_line, max_word_length,
             filter_lorem_ipsum, filter_javascript, filter_curly_bracket, filter_policy):
    """C4's line loop: (line statistics in order, kept lines, reason of a document drop or None)."""
    cdef list stats = []
    cdef list kept = []
    cdef list words
    cdef str line, line_l
    cdef bint check_long = max_word_length != -1
    cdef bint citations = bool(remove_citations), no_punct = bool(filter_no_terminal_punct)
    cdef bint lorem = bool(filter_lorem_ipsum), javascript = bool(filter_javascript)
    cdef bint curly = bool(filter_curly_bracket), policy = bool(filter_policy)
    cdef bint long_word
    for raw in lines:
        line = (<str?>raw).strip()
        words = line.split()
        stats.append("line-total")
        if check_long:
            long_word = False
            for word in words:
                if len(<str>word) > max_word_length:
                    long_word = True
                    break
            if long_word:
                stats.append("line-filter-too_long_word")
                continue
        if citations and "[" in line:
            line = _CITATION_SUB("", line)
        if no_punct and (not line.endswith(_END_PUNCTUATION) or line.endswith(_ELLIPSIS)):
            stats.append("line-filter-no_terminal_punc")
            continue
        if len(words) < min_words_per_line:
            stats.append("line-filter-too_few_words")
            continue
        line_l = line.lower()
        if lorem and "lorem ipsum" in line_l:
            return stats, kept, "lorem_ipsum"
        if javascript and "javascript" in line_l:
            stats.append("line-filter-javascript")
            continue
        if curly and "{" in line:
            return stats, kept, "curly_bracket"
        if policy:
            hit = False
            for p in _POLICY:
                if p in line_l:
                    hit = True
                    break
            if hit:
                stats.append("line-filter-policy")
                continue
        kept.append(line)
        stats.append("line-kept")
    return stats, kept, None


# upstream: datatrove.pipeline.filters.fineweb_quality_filter.FineWebQualityFilter.filter (line statistics)
def fineweb_counts(str text, stop_chars, short_line_length):
    """(non-blank lines of split("\\n"), those ending with a stop character, the short ones,
    characters of the repeated ones)."""
    if type(short_line_length) is not int:
        return _ref.fineweb_counts(text, stop_chars, short_line_length)
    cdef bint terminal
    if type(stop_chars) is tuple and all(type(c) is str and len(c) == 1 for c in stop_chars):
        terminal = frozenset(stop_chars) == _TERMINAL_SET
    else:
        return _ref.fineweb_counts(text, stop_chars, short_line_length)
    cdef object own = None if terminal else frozenset(stop_chars)
    cdef Py_ssize_t short_len = short_line_length
    cdef Py_ssize_t n = len(text), pos = 0, start, end, a, lines = 0, punct = 0, short = 0, dup_chars = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    cdef set seen = set()
    cdef object piece
    while pos <= n:
        start = pos
        while pos < n and PyUnicode_READ(kind, data, pos) != u'\n':
            pos += 1
        end = pos
        pos += 1
        a = start
        while a < end and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a)):
            a += 1
        if a == end:  # blank
            continue
        lines += 1
        c = PyUnicode_READ(kind, data, end - 1)
        if terminal:
            if _has(_terminal_bits, c):
                punct += 1
        elif chr(c) in own:
            punct += 1
        if end - start <= short_len:
            short += 1
        piece = PyUnicode_Substring(text, start, end)
        if piece in seen:
            dup_chars += end - start
        else:
            seen.add(piece)
    return lines, punct, short, dup_chars
