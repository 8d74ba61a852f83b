# cython: language_level=3
"""trafila._quality: the compiled twin of the loops in trafila.fineweb.quality.

Same functions, same results as the reference (``trafila/fineweb/quality.py``):
``repetition_counts``, ``NGramCounts`` (``top``, ``all_duplicate``), ``word_counts``,
``line_marks``, ``c4_lines``, ``fineweb_counts``, and datatrove's helpers
``find_duplicates``, ``find_top_duplicate``, ``find_all_duplicate``, ``get_n_grams``.

The n-grams are never built as strings: an n-gram joined by spaces is a slice of
``" ".join(words)`` and one joined without spaces a slice of ``"".join(words)``, so each is
found by a polynomial hash of its slice in one hash table, equal slices being confirmed
character by character (a hash collision never merges two n-grams). Arguments outside what
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


def get_n_grams(list words, Py_ssize_t n):
    """The n-grams of words joined by spaces (datatrove's get_n_grams)."""
    return _ref.get_n_grams(words, n)


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


def find_top_duplicate(x):
    """Length times count of the most common element (the first seen among ties)."""
    return _ref.find_top_duplicate(x)


def find_all_duplicate(list words, Py_ssize_t n):
    """Characters of the repeated n-grams joined without spaces, jumping past each."""
    if n < 1:
        return _ref.find_all_duplicate(words, n)
    return NGramCounts(words).all_duplicate(n)


# --------------------------------------------------------------------------- slices of a text


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


cdef inline uint64_t _mix(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef struct Entry:
    Py_ssize_t start
    Py_ssize_t length
    Py_ssize_t count


cdef struct SliceTable:
    # open addressing over the distinct slices of one text, in insertion order
    const Py_UCS4* text
    Py_ssize_t* slots      # entry index, -1 when empty
    Entry* entries
    Py_ssize_t mask
    Py_ssize_t n_entries


cdef int _st_init(SliceTable* st, const Py_UCS4* text, Py_ssize_t m) except -1:
    """A table for at most m slices of text (load factor <= 1/2)."""
    cdef Py_ssize_t cap = 16, slot
    while cap < 2 * m:
        cap <<= 1
    st.text = text
    st.mask = cap - 1
    st.n_entries = 0
    st.slots = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    st.entries = <Entry*>malloc(m * sizeof(Entry))
    if st.slots == NULL or st.entries == NULL:
        _st_free(st)
        raise MemoryError()
    for slot in range(cap):
        st.slots[slot] = -1
    return 0


cdef void _st_free(SliceTable* st) noexcept:
    free(st.slots)
    free(st.entries)
    st.slots = NULL
    st.entries = NULL


cdef Py_ssize_t _st_find(SliceTable* st, Py_ssize_t start, Py_ssize_t length, uint64_t h,
                         Py_ssize_t* slot_out) noexcept nogil:
    """The entry equal to text[start:start+length] (hash h), or -1 with *slot_out the free slot."""
    cdef Py_ssize_t slot = <Py_ssize_t>(_mix(h) & <uint64_t>st.mask), e
    while True:
        e = st.slots[slot]
        if e < 0:
            slot_out[0] = slot
            return -1
        if st.entries[e].length == length and memcmp(
                st.text + st.entries[e].start, st.text + start, length * sizeof(Py_UCS4)) == 0:
            return e
        slot = (slot + 1) & st.mask


cdef void _st_insert(SliceTable* st, Py_ssize_t slot, Py_ssize_t start, Py_ssize_t length) noexcept nogil:
    """A new entry (count 1) in the free slot _st_find gave."""
    st.entries[st.n_entries].start = start
    st.entries[st.n_entries].length = length
    st.entries[st.n_entries].count = 1
    st.slots[slot] = st.n_entries
    st.n_entries += 1


cdef class NGramCounts:
    """The n-gram statistics of one word list, on the slices of its two joins."""

    cdef list words
    cdef Py_ssize_t n_words
    cdef Py_UCS4* spaced       # " ".join(words)
    cdef Py_UCS4* joined       # "".join(words)
    cdef Py_ssize_t* lengths   # len(words[i])
    cdef Py_ssize_t* s_off     # where words[i] starts in spaced
    cdef Py_ssize_t* j_off     # ... in joined
    cdef uint64_t* s_hash      # prefix hashes of spaced
    cdef uint64_t* j_hash
    cdef uint64_t* powers

    def __cinit__(self, words):
        cdef Py_ssize_t i, pos, total, k
        cdef Py_UCS4 c
        self.words = list(words)
        self.n_words = len(self.words)
        spaced = " ".join(self.words)
        joined = "".join(self.words)
        self.spaced = PyUnicode_AsUCS4Copy(spaced)
        self.joined = PyUnicode_AsUCS4Copy(joined)
        self.lengths = <Py_ssize_t*>malloc((self.n_words + 1) * sizeof(Py_ssize_t))
        self.s_off = <Py_ssize_t*>malloc((self.n_words + 1) * sizeof(Py_ssize_t))
        self.j_off = <Py_ssize_t*>malloc((self.n_words + 1) * sizeof(Py_ssize_t))
        total = len(spaced)
        self.s_hash = <uint64_t*>malloc((total + 1) * sizeof(uint64_t))
        self.j_hash = <uint64_t*>malloc((len(joined) + 1) * sizeof(uint64_t))
        self.powers = <uint64_t*>malloc((total + 1) * sizeof(uint64_t))
        if (self.lengths == NULL or self.s_off == NULL or self.j_off == NULL or self.s_hash == NULL
                or self.j_hash == NULL or self.powers == NULL):
            raise MemoryError()
        pos = 0
        for i in range(self.n_words):
            self.lengths[i] = len(<str>self.words[i])
            self.s_off[i] = pos + i
            self.j_off[i] = pos
            pos += self.lengths[i]
        self.powers[0] = 1
        self.s_hash[0] = 0
        for k in range(total):
            self.powers[k + 1] = self.powers[k] * HASH_MUL
            self.s_hash[k + 1] = self.s_hash[k] * HASH_MUL + <uint64_t>self.spaced[k] + 1
        self.j_hash[0] = 0
        for k in range(pos):
            self.j_hash[k + 1] = self.j_hash[k] * HASH_MUL + <uint64_t>self.joined[k] + 1

    def __dealloc__(self):
        PyMem_Free(self.spaced)
        PyMem_Free(self.joined)
        free(self.lengths)
        free(self.s_off)
        free(self.j_off)
        free(self.s_hash)
        free(self.j_hash)
        free(self.powers)

    def top(self, Py_ssize_t n):
        """find_top_duplicate of the n-grams joined by spaces, -1 when there are none."""
        if n < 1:
            return _ref.NGramCounts(self.words).top(n)
        cdef Py_ssize_t m = self.n_words - n + 1
        if m <= 0:
            return -1
        cdef Py_ssize_t i, start, end, length, best, slot, e
        cdef SliceTable st
        _st_init(&st, self.spaced, m)
        try:
            for i in range(m):
                start = self.s_off[i]
                end = self.s_off[i + n - 1] + self.lengths[i + n - 1]
                length = end - start
                e = _st_find(&st, start, length, self.s_hash[end] - self.s_hash[start] * self.powers[length], &slot)
                if e < 0:
                    _st_insert(&st, slot, start, length)
                else:
                    st.entries[e].count += 1
            # Counter.most_common(1): the first inserted among the most common
            best = 0
            for e in range(1, st.n_entries):
                if st.entries[e].count > st.entries[best].count:
                    best = e
            return st.entries[best].length * st.entries[best].count
        finally:
            _st_free(&st)

    def all_duplicate(self, Py_ssize_t n):
        """find_all_duplicate: characters of the repeated n-grams joined without spaces."""
        if n < 1:
            return _ref.find_all_duplicate(self.words, n)
        cdef Py_ssize_t m = self.n_words - n + 1
        if m <= 0:
            return 0
        cdef Py_ssize_t idx = 0, start, end, length, repeated = 0, slot
        cdef SliceTable st
        _st_init(&st, self.joined, m)
        try:
            while idx < m:
                start = self.j_off[idx]
                end = self.j_off[idx + n - 1] + self.lengths[idx + n - 1]
                length = end - start
                if _st_find(&st, start, length, self.j_hash[end] - self.j_hash[start] * self.powers[length], &slot) >= 0:
                    # a repeat is counted and skipped over whole, as datatrove's loop does
                    repeated += length
                    idx += n
                else:
                    _st_insert(&st, slot, start, length)
                    idx += 1
            return repeated
        finally:
            _st_free(&st)


# --------------------------------------------------------------------------- per word, per line


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
