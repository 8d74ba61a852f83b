# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of trafila.fineweb.tokenizer (built as trafila._tokenizer_en).

spaCy tokenizes each run of space / non-space characters of a text on its own
(without its chunk cache, off in datatrove's memory zones), so a chunk's tokens
are a pure function of the chunk: this twin splits the text in C and keeps each
chunk's tokens in a C hash table keyed by the chunk's characters, read in place
(two bounded generations). A new chunk of ASCII
letters, or of ASCII letters and one suffix character, is decided in C
(_fast_chunk); any other runs the reference's affix loop ported line for line
(_AffixRules) with spaCy's regexes, each skipped on a string where none of the
characters that can begin a match occurs (read off the patterns' parse trees).
Then the special-case matcher pass (the only step that looks across chunks),
the sentencizer and datatrove's strip_strings run in C over per-token flags.
"""

from libc.stdlib cimport malloc, realloc, free, calloc
from libc.string cimport memcmp
from libc.stdint cimport uint64_t
from cpython.ref cimport PyObject, Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_1BYTE_KIND

cdef extern from "Python.h":
    object PyUnicode_Substring(object, Py_ssize_t, Py_ssize_t)
    bint Py_UNICODE_ISSPACE(Py_UCS4) nogil
    bint Py_UNICODE_ISALPHA(Py_UCS4) nogil

#: per-token flags, computed once per distinct token text
cdef enum:
    F_PUNCT_CHAR = 1    # in the sentencizer's punct_chars
    F_IS_PUNCT = 2      # lexical IS_PUNCT
    F_MATCH_FIRST = 4   # first token of a special-case matcher pattern
    F_STRIPS_EMPTY = 8  # str.strip() leaves nothing (dropped by strip_strings)
    F_STRIPS_OTHER = 16 # str.strip() changes it but leaves something

#: chunks kept at most by default (about 270 bytes each): two generations of half this
DEFAULT_MAX_CACHE = 100000


cdef class _Buf:
    """Growing C arrays: per token, its start offset, flags and trailing-space flag."""
    cdef Py_ssize_t* idx
    cdef unsigned char* flags
    cdef unsigned char* space
    cdef Py_ssize_t n, cap

    def __cinit__(self, Py_ssize_t cap):
        if cap < 16:
            cap = 16
        self.cap = cap
        self.n = 0
        self.idx = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
        self.flags = <unsigned char*>malloc(cap)
        self.space = <unsigned char*>malloc(cap)
        if self.idx == NULL or self.flags == NULL or self.space == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.idx)
        free(self.flags)
        free(self.space)

    cdef int grow(self, Py_ssize_t need) except -1:
        cdef Py_ssize_t cap = self.cap
        cdef void* p
        while cap < need:
            cap *= 2
        p = realloc(self.idx, cap * sizeof(Py_ssize_t))
        if p == NULL:
            raise MemoryError()
        self.idx = <Py_ssize_t*>p
        p = realloc(self.flags, cap)
        if p == NULL:
            raise MemoryError()
        self.flags = <unsigned char*>p
        p = realloc(self.space, cap)
        if p == NULL:
            raise MemoryError()
        self.space = <unsigned char*>p
        self.cap = cap
        return 0


cdef bint _ascii_letters(str s):
    """True when ``s`` is one or more ASCII letters."""
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(s)
    cdef int kind = PyUnicode_KIND(s)
    cdef void* data = PyUnicode_DATA(s)
    cdef Py_UCS4 c
    if n == 0:
        return False
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if not ((c >= 65 and c <= 90) or (c >= 97 and c <= 122)):
            return False
    return True


cdef bint _split_suffix(Py_UCS4 last, Py_UCS4 before):
    """Whether spaCy's suffix rules split ``last`` off ASCII letters ending in
    ``before``: these characters always (a suffix rule without lookbehind),
    '.' after a lowercase letter (its lookbehind rule). Checked against the
    rules for every one- and two-letter context in the tests."""
    if last == u'.':
        return before >= 97 and before <= 122
    return (last == u',' or last == u';' or last == u':' or last == u'?' or last == u'!' or last == u')'
            or last == u'"' or last == u']' or last == u'}' or last == u"'" or last == 0x201D
            or last == 0x2019 or last == 0xBB or last == u'>' or last == u'*')


# upstream: spacy.tokenizer.Tokenizer._tokenize (its outcome for letters, letters + one suffix character)
cdef object _fast_chunk(str chunk, dict specials):
    """A chunk's tokens without the affix regular expressions, for the shapes
    where the outcome is known (None otherwise). Why it is exact: no prefix
    rule starts with an ASCII letter unless a '$' follows (US$, C$, A$), every
    suffix rule that can start at a letter needs a digit before it, and no
    infix or url rule matches ASCII letters alone; so for letters W, W is one
    token (unless a special case), and for W + one suffix character P the loop
    splits P off and W is left: W's tokens, then P."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(chunk)
    cdef str core
    if n == 0 or chunk in specials:
        return None
    if _ascii_letters(chunk):
        return (chunk,)
    if n >= 2 and _split_suffix(chunk[n - 1], chunk[n - 2]):
        core = chunk[:n - 1]
        if _ascii_letters(core):
            special = specials.get(core)
            return (tuple(special) if special is not None else (core,)) + (chunk[n - 1:],)
    return None


def fast_chunk_tokens(str chunk, dict specials):
    """The compiled fast path's tokens for ``chunk``, None where it defers to
    the reference (exposed for the tests)."""
    return _fast_chunk(chunk, specials)


# spaCy's IS_PUNCT per code point (unicodedata.category starting with "P"), asked of unicodedata
# once per code point: 0 not asked yet, 1 punctuation, 2 not
cdef unsigned char* _punct_state = <unsigned char*>calloc(0x110000, 1)
if _punct_state == NULL:
    raise MemoryError()
import unicodedata as _unicodedata
_category = _unicodedata.category


# upstream: spacy.lang.lex_attrs.is_punct
cdef bint _is_punct(str text) except -1:
    """Every character of ``text`` is in a Unicode punctuation category (True for "")."""
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4 c
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if _punct_state[c] == 0:
            _punct_state[c] = 1 if (<str>_category(chr(c))).startswith("P") else 2
        if _punct_state[c] != 1:
            return False
    return True


def is_punct(str text):
    """The compiled is_punct (exposed for the tests)."""
    return _is_punct(text)


cdef class _FirstChars:
    """Which characters can begin a match of a regex (from the reference's
    regex_first_chars): a BMP bitmap of the unguarded ones and one of those
    behind a digit lookbehind; a character past the BMP always counts."""
    cdef bint anything
    cdef bytearray unguarded
    cdef bytearray guarded

    def __init__(self, ranges):
        unguarded, guarded = ranges
        self.anything = unguarded is None or guarded is None
        self.unguarded = bytearray(0x10000)
        self.guarded = bytearray(0x10000)
        if self.anything:
            return
        for table, spans in ((self.unguarded, unguarded), (self.guarded, guarded)):
            for lo, hi in spans:
                for code in range(lo, min(hi, 0xFFFF) + 1):
                    table[code] = 1

    cdef bint may_start(self, str s):
        """False only when no match can start at the first character of ``s``."""
        cdef Py_UCS4 c
        if self.anything or PyUnicode_GET_LENGTH(s) == 0:
            return True
        cdef unsigned char* ung = self.unguarded
        cdef unsigned char* gua = self.guarded
        c = PyUnicode_READ(PyUnicode_KIND(s), PyUnicode_DATA(s), 0)
        return c > 0xFFFF or ung[c] or gua[c]

    cdef Py_ssize_t first_start(self, str s, Py_ssize_t begin):
        """The first index >= begin where a match may start in ``s`` (-1: nowhere).
        A search from there finds what a search from ``begin`` finds: the positions
        skipped cannot start a match."""
        cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(s)
        cdef int kind = PyUnicode_KIND(s)
        cdef void* data = PyUnicode_DATA(s)
        cdef Py_UCS4 c, p
        cdef bint prev_digit = False
        cdef unsigned char* ung = self.unguarded
        cdef unsigned char* gua = self.guarded
        if self.anything:
            return begin if begin <= n else -1
        if begin > 0 and begin <= n:
            p = PyUnicode_READ(kind, data, begin - 1)
            prev_digit = p >= 48 and p <= 57
        for i in range(begin, n):
            c = PyUnicode_READ(kind, data, i)
            if c > 0xFFFF or ung[c] or (prev_digit and gua[c]):
                return i
            prev_digit = c >= 48 and c <= 57
        return -1

    cdef bint may_match(self, str s):
        """False only when no match can start anywhere in ``s``."""
        cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(s)
        cdef int kind = PyUnicode_KIND(s)
        cdef void* data = PyUnicode_DATA(s)
        cdef Py_UCS4 c
        cdef bint prev_digit = False
        cdef unsigned char* ung = self.unguarded
        cdef unsigned char* gua = self.guarded
        if self.anything:
            return True
        for i in range(n):
            c = PyUnicode_READ(kind, data, i)
            if c > 0xFFFF or ung[c] or (prev_digit and gua[c]):
                return True
            prev_digit = c >= 48 and c <= 57
        return False


# upstream: spacy.tokenizer.Tokenizer._tokenize / _split_affixes / _attach_tokens
cdef class _AffixRules:
    """The reference's EnglishRules.tokenize_chunk (Tokenizer._tokenize with
    _split_affixes and _attach_tokens), line for line, except that the suffix
    and infix regexes are not run on a string where no match can start."""
    cdef object prefix_search, suffix_search, infix_finditer, token_match, url_match
    cdef tuple url_required     # characters every url_match match holds (regex_required_chars)
    cdef dict specials
    cdef _FirstChars prefix_first, suffix_first, infix_first
    cdef bint prefix_anchored
    # regex_suffix_reach: widest bounded suffix match, the trailing-run characters (-1: unknown)
    cdef Py_ssize_t suffix_width
    cdef Py_UCS4 suffix_run[4]
    cdef int n_suffix_run
    # regex_lookbehind_reach of the suffix rules (-1: unknown) and suffix_search's answers by
    # the text from that far before the search's start to the end, one dict per start offset
    cdef Py_ssize_t suffix_behind
    cdef list suffix_memo

    def __init__(self, rules, reference):
        data = reference._DATA
        self.prefix_search = rules.prefix_search
        self.suffix_search = rules.suffix_search
        self.infix_finditer = rules.infix_finditer
        self.token_match = rules.token_match
        self.url_match = rules.url_match
        self.url_required = ()
        if rules.url_match is not None:
            self.url_required = tuple(reference.regex_required_chars(data["url_match"]["pattern"], data["url_match"]["flags"]))
        self.specials = rules.specials
        self.prefix_first = _FirstChars(reference.regex_first_chars(data["prefix_search"]["pattern"], data["prefix_search"]["flags"]))
        self.prefix_anchored = reference.regex_anchored(data["prefix_search"]["pattern"], data["prefix_search"]["flags"])
        self.suffix_first = _FirstChars(reference.regex_first_chars(data["suffix_search"]["pattern"], data["suffix_search"]["flags"]))
        self.infix_first = _FirstChars(reference.regex_first_chars(data["infix_finditer"]["pattern"], data["infix_finditer"]["flags"]))
        self.suffix_width = -1
        self.n_suffix_run = 0
        reach = None
        if rules.suffix_search is not None and data["suffix_search"]["method"] == "search":
            reach = reference.regex_suffix_reach(data["suffix_search"]["pattern"], data["suffix_search"]["flags"])
        self.suffix_behind = -1
        if rules.suffix_search is not None:
            behind = reference.regex_lookbehind_reach(data["suffix_search"]["pattern"], data["suffix_search"]["flags"])
            if behind is not None and behind <= 8:
                self.suffix_behind = behind
        self.suffix_memo = [{} for _ in range(max(self.suffix_behind, 0) + 1)]
        if reach is not None and len(reach[1]) <= 4:
            self.suffix_width = reach[0]
            for ch in reach[1]:
                self.suffix_run[self.n_suffix_run] = ord(ch)
                self.n_suffix_run += 1

    cdef bint _plain_alpha(self, str s, Py_ssize_t n):
        """Whether the first n characters of s are letters (str.isalpha) none of which can begin
        a prefix, suffix or infix match (their first-character sets; the digit-guarded parts
        need a digit before, and a letter is no digit), none past the BMP."""
        cdef int kind = PyUnicode_KIND(s)
        cdef void* data = PyUnicode_DATA(s)
        cdef Py_ssize_t i
        cdef Py_UCS4 c
        cdef unsigned char* pre = self.prefix_first.unguarded
        cdef unsigned char* suf = self.suffix_first.unguarded
        cdef unsigned char* inf = self.infix_first.unguarded
        if n == 0 or self.prefix_first.anything or self.suffix_first.anything or self.infix_first.anything:
            return False
        for i in range(n):
            c = PyUnicode_READ(kind, data, i)
            if c > 0xFFFF or not Py_UNICODE_ISALPHA(c) or pre[c] or suf[c] or inf[c]:
                return False
        return True

    # upstream: spacy.tokenizer.Tokenizer._tokenize (its outcome for letters no affix rule can touch)
    cdef object fast_alpha(self, str chunk):
        """The tokens of a chunk of letters L that no affix rule can touch (_plain_alpha) -- L
        alone, or L and one character P that a suffix rule always splits off -- without the
        regexes, None for any other chunk. Why it is exact: the prefix search is anchored where
        no match can begin, the suffix search finds no start inside L (so only P, when there),
        the infix search none, url_match needs a "." and there is no token_match: spaCy's loop
        leaves L whole (its special case's pieces when it is one), then P."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(chunk)
        cdef Py_UCS4 last
        if self.token_match is not None or n == 0 or chunk in self.specials:
            return None
        if self._plain_alpha(chunk, n):
            return (chunk,)
        if n < 2:
            return None
        last = PyUnicode_READ(PyUnicode_KIND(chunk), PyUnicode_DATA(chunk), n - 1)
        # the suffix characters split off whatever comes before them (not ".": its rules look behind)
        if last == u'.' or not _split_suffix(last, u'a') or not self._plain_alpha(chunk, n - 1):
            return None
        core = PyUnicode_Substring(chunk, 0, n - 1)
        special = self.specials.get(core)
        return (tuple(special) if special is not None else (core,)) + (PyUnicode_Substring(chunk, n - 1, n),)

    cdef bint _may_be_url(self, str string):
        """False when string lacks a character every url_match match holds."""
        for ch in self.url_required:
            if ch not in string:
                return False
        return True

    # upstream: spacy.tokenizer.Tokenizer.find_prefix
    cdef Py_ssize_t find_prefix(self, str string) except -1:
        if self.prefix_search is None:
            return 0
        # the prefix rules are anchored at the start: only the first character can begin a match
        if self.prefix_anchored and not self.prefix_first.may_start(string):
            return 0
        if not self.prefix_anchored and not self.prefix_first.may_match(string):
            return 0
        match = self.prefix_search(string)
        return (match.end() - match.start()) if match is not None else 0

    cdef Py_ssize_t suffix_start(self, str string):
        """Where suffix_search may begin on ``string`` and find the match a search from 0
        finds (regex_suffix_reach): no match starts before it."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(string), reach = self.suffix_width, run = 0, best = 0
        cdef int kind = PyUnicode_KIND(string)
        cdef void* data = PyUnicode_DATA(string)
        cdef Py_UCS4 c
        cdef int k
        if reach < 0 or n == 0 or PyUnicode_READ(kind, data, n - 1) == u'\n':
            return 0  # `$` can also match before a final newline: search it all
        c = PyUnicode_READ(kind, data, n - 1)
        for k in range(self.n_suffix_run):
            if c == self.suffix_run[k]:
                run = 1
                while run < n and PyUnicode_READ(kind, data, n - 1 - run) == c:
                    run += 1
                best = run
        if best > reach:
            reach = best
        return n - reach if reach < n else 0

    # upstream: spacy.tokenizer.Tokenizer.find_suffix
    cdef Py_ssize_t find_suffix(self, str string) except -1:
        if self.suffix_search is None:
            return 0
        cdef Py_ssize_t begin = self.suffix_first.first_start(string, self.suffix_start(string))
        cdef Py_ssize_t q, found
        cdef dict memo
        if begin < 0:
            return 0
        if self.suffix_behind >= 0:
            # the answer depends only on string[begin - behind:] (and the offset within it)
            q = begin - self.suffix_behind if begin > self.suffix_behind else 0
            memo = <dict>self.suffix_memo[begin - q]
            tail = PyUnicode_Substring(string, q, PyUnicode_GET_LENGTH(string))
            got = memo.get(tail)
            if got is not None:
                return <Py_ssize_t>got
            match = self.suffix_search(string, begin)
            found = (match.end() - match.start()) if match is not None else 0
            if len(memo) >= 50000:
                memo.clear()
            memo[tail] = found
            return found
        match = self.suffix_search(string, begin)
        return (match.end() - match.start()) if match is not None else 0

    # upstream: spacy.tokenizer.Tokenizer.find_infix
    cdef list find_infix(self, str string):
        if self.infix_finditer is None:
            return []
        cdef Py_ssize_t begin = self.infix_first.first_start(string, 0)
        if begin < 0:
            return []
        return list(self.infix_finditer(string, begin))

    cpdef tuple tokenize_chunk(self, str span):
        special = self.specials.get(span)
        if special is not None:
            return special
        cdef list prefixes = []
        cdef list suffixes = []
        cdef str string = self._split_affixes(span, prefixes, suffixes)
        return self._attach_tokens(string, prefixes, suffixes)

    # upstream: spacy.tokenizer.Tokenizer._split_affixes
    cdef str _split_affixes(self, str string, list prefixes, list suffixes):
        cdef dict specials = self.specials
        cdef Py_ssize_t last_size = 0, pre_len, suf_len
        cdef str prefix = None, suffix = None, minus_pre = None, minus_suf = None
        while string and len(string) != last_size:
            if self.token_match is not None and self.token_match(string):
                break
            if string in specials:
                break
            last_size = len(string)
            pre_len = self.find_prefix(string)
            if pre_len != 0:
                prefix = string[:pre_len]
                minus_pre = string[pre_len:]
                if minus_pre and minus_pre in specials:
                    string = minus_pre
                    prefixes.append(prefix)
                    break
            suf_len = self.find_suffix(string[pre_len:])
            if suf_len != 0:
                suffix = string[len(string) - suf_len:]
                minus_suf = string[:len(string) - suf_len]
                if minus_suf and minus_suf in specials:
                    string = minus_suf
                    suffixes.append(suffix)
                    break
            if pre_len and suf_len and (pre_len + suf_len) <= len(string):
                string = string[pre_len:len(string) - suf_len]
                prefixes.append(prefix)
                suffixes.append(suffix)
            elif pre_len:
                string = minus_pre
                prefixes.append(prefix)
            elif suf_len:
                string = minus_suf
                suffixes.append(suffix)
        return string

    # upstream: spacy.tokenizer.Tokenizer._attach_tokens
    cdef tuple _attach_tokens(self, str string, list prefixes, list suffixes):
        cdef list tokens = list(prefixes)
        cdef Py_ssize_t start, infix_start, infix_end
        cdef list matches
        if string:
            special = self.specials.get(string)
            if special is not None:
                tokens.extend(special)
            elif ((self.token_match is not None and self.token_match(string))
                  or (self.url_match is not None and self._may_be_url(string) and self.url_match(string))):
                tokens.append(string)
            else:
                matches = self.find_infix(string)
                if not matches:
                    tokens.append(string)
                else:
                    start = 0
                    for match in matches:
                        infix_start = match.start()
                        infix_end = match.end()
                        if infix_start == 0:  # an infix at the very start is not split off
                            continue
                        if infix_start != start:
                            tokens.append(string[start:infix_start])
                        if infix_start != infix_end:
                            tokens.append(string[infix_start:infix_end])
                        start = infix_end
                    if string[start:]:
                        tokens.append(string[start:])
        tokens.extend(reversed(suffixes))
        return tuple(tokens)


_test_objects = {}


def affix_tokenize_chunk(rules, str chunk):
    """The compiled affix loop's tokens for ``chunk`` (exposed for the tests)."""
    key = ("affix", id(rules))
    if key not in _test_objects:
        from trafila.fineweb import tokenizer as reference
        _test_objects[key] = (rules, _AffixRules(rules, reference))
    return (<_AffixRules>_test_objects[key][1]).tokenize_chunk(chunk)


def alpha_chunk_tokens(rules, str chunk):
    """The compiled letters fast path's tokens for ``chunk``, None where it defers (for the tests)."""
    key = ("affix", id(rules))
    if key not in _test_objects:
        from trafila.fineweb import tokenizer as reference
        _test_objects[key] = (rules, _AffixRules(rules, reference))
    return (<_AffixRules>_test_objects[key][1]).fast_alpha(chunk)


def suffix_search_start(rules, str s):
    """Where the compiled affix loop starts suffix_search on ``s`` (exposed for the tests)."""
    key = ("affix", id(rules))
    if key not in _test_objects:
        from trafila.fineweb import tokenizer as reference
        _test_objects[key] = (rules, _AffixRules(rules, reference))
    return (<_AffixRules>_test_objects[key][1]).suffix_start(s)


def first_chars_first_start(ranges, str s, Py_ssize_t begin):
    """_FirstChars(ranges).first_start(s, begin) (exposed for the tests)."""
    key = ("first", id(ranges))
    if key not in _test_objects:
        _test_objects[key] = (ranges, _FirstChars(ranges))
    return (<_FirstChars>_test_objects[key][1]).first_start(s, begin)


def first_chars_may_match(ranges, str s):
    """_FirstChars(ranges).may_match(s) (exposed for the tests)."""
    key = ("first", id(ranges))
    if key not in _test_objects:
        _test_objects[key] = (ranges, _FirstChars(ranges))
    return (<_FirstChars>_test_objects[key][1]).may_match(s)



# --------------------------------------------------------------------------- the chunk cache

cdef struct CacheSlot:
    uint64_t hash
    Py_ssize_t length       # code points of the chunk
    PyObject* key           # the chunk (a str, owned); NULL: empty slot
    PyObject* value         # its entry (owned): flags int, or (pieces tuple, flags bytes)


cdef struct ChunkTable:
    CacheSlot* slots
    Py_ssize_t mask
    Py_ssize_t count


cdef int _table_init(ChunkTable* t, Py_ssize_t entries) except -1:
    """An empty table for ``entries`` chunks (load factor <= 1/2)."""
    cdef Py_ssize_t cap = 16
    while cap < 2 * entries:
        cap <<= 1
    t.slots = <CacheSlot*>calloc(cap, sizeof(CacheSlot))
    if t.slots == NULL:
        raise MemoryError()
    t.mask = cap - 1
    t.count = 0
    return 0


cdef void _table_clear(ChunkTable* t) noexcept:
    """Release every entry; the table stays allocated and empty."""
    cdef Py_ssize_t i
    if t.slots == NULL:
        return
    for i in range(t.mask + 1):
        if t.slots[i].key != NULL:
            Py_XDECREF(t.slots[i].key)
            Py_XDECREF(t.slots[i].value)
            t.slots[i].key = NULL
            t.slots[i].value = NULL
    t.count = 0


include "mix64.pxi"


cdef inline uint64_t _span_hash(int kind, void* data, Py_ssize_t start, Py_ssize_t end) noexcept:
    cdef uint64_t h = 0x84222325CBF29CE4ULL
    cdef Py_ssize_t i
    for i in range(start, end):
        h = (h ^ <uint64_t>PyUnicode_READ(kind, data, i)) * 0x100000001B3ULL
    return mix64(h ^ <uint64_t>(end - start))


cdef inline bint _span_equals(PyObject* key, int kind, void* data, Py_ssize_t start, Py_ssize_t length) noexcept:
    """Whether the str ``key`` (of ``length`` code points) holds text[start:start+length]."""
    cdef int kkind = PyUnicode_KIND(<object>key)
    cdef void* kdata = PyUnicode_DATA(<object>key)
    cdef Py_ssize_t i
    if kkind == kind:
        return memcmp(kdata, (<char*>data) + start * kind, length * kind) == 0
    for i in range(length):
        if PyUnicode_READ(kkind, kdata, i) != PyUnicode_READ(kind, data, start + i):
            return False
    return True


cdef inline CacheSlot* _table_find(ChunkTable* t, uint64_t h, int kind, void* data, Py_ssize_t start,
                                   Py_ssize_t length) noexcept:
    """The slot holding text[start:start+length] (hash h), or the empty slot where it would go."""
    cdef Py_ssize_t i = <Py_ssize_t>(h & <uint64_t>t.mask)
    cdef CacheSlot* slot
    while True:
        slot = &t.slots[i]
        if slot.key == NULL:
            return slot
        if slot.hash == h and slot.length == length and _span_equals(slot.key, kind, data, start, length):
            return slot
        i = (i + 1) & t.mask


cdef inline void _slot_set(CacheSlot* slot, uint64_t h, Py_ssize_t length, object key, object value) noexcept:
    Py_INCREF(key)
    Py_INCREF(value)
    slot.hash = h
    slot.length = length
    slot.key = <PyObject*>key
    slot.value = <PyObject*>value


# upstream: spacy.tokenizer.Tokenizer.__call__ + spacy.pipeline.Sentencizer + datatrove.utils.word_tokenizers.SpaCyTokenizer
cdef class CompiledEnglish:
    """The twin of trafila.fineweb.tokenizer.EnglishRules plus datatrove's
    wrappers, for texts without IS_ALPHA (EnglishTokenizer routes those)."""

    cdef object rules
    cdef object tokens_type
    # chunk -> flags int (one token) or (pieces tuple, flags bytes), in two C tables: the
    # current generation and the one before (a hit there moves back to the current)
    cdef ChunkTable tables[2]
    cdef int current
    cdef Py_ssize_t generation  # entries per generation
    cdef dict trie
    cdef dict specials
    cdef frozenset punct_chars
    cdef Py_ssize_t punct_max_len
    cdef object is_punct
    cdef object check_encodable
    cdef _AffixRules affix

    def __init__(self, rules, tokens_type=None, Py_ssize_t max_cache=DEFAULT_MAX_CACHE):
        from trafila.fineweb import tokenizer as reference
        self.rules = rules
        self.tokens_type = tokens_type if tokens_type is not None else reference.Tokens
        self.is_punct = reference.is_punct
        self.check_encodable = reference.check_encodable
        self.affix = _AffixRules(rules, reference)
        self.trie = rules.matcher_trie
        self.specials = rules.specials
        self.punct_chars = frozenset(rules.punct_chars)
        self.punct_max_len = max([len(p) for p in self.punct_chars], default=0)
        self.generation = max(1, max_cache // 2)
        _table_init(&self.tables[0], self.generation)
        _table_init(&self.tables[1], self.generation)
        self.current = 0

    def clear_cache(self):
        """Forget the chunks seen so far."""
        _table_clear(&self.tables[0])
        _table_clear(&self.tables[1])

    def cache_size(self):
        """How many chunks are cached."""
        return self.tables[0].count + self.tables[1].count

    def __dealloc__(self):
        cdef int k
        for k in range(2):
            _table_clear(&self.tables[k])
            free(self.tables[k].slots)
            self.tables[k].slots = NULL

    # upstream: spacy lexeme attributes IS_PUNCT (spacy.lang.lex_attrs.is_punct), the sentencizer's punct_chars; str.strip of datatrove's strip_strings
    cdef int _flags_of(self, str text) except -1:
        """The token flags of ``text`` (worked out once per new chunk, so not cached)."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), a = 0
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef int f = 0
        if n <= self.punct_max_len and text in self.punct_chars:
            f |= F_PUNCT_CHAR
        if _is_punct(text):
            f |= F_IS_PUNCT
        if text in self.trie:
            f |= F_MATCH_FIRST
        # str.strip(): the Py_UNICODE_ISSPACE characters at both ends
        while a < n and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a)):
            a += 1
        if a == n:
            f |= F_STRIPS_EMPTY
        elif a > 0 or Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, n - 1)):
            f |= F_STRIPS_OTHER
        return f

    cdef object _new_entry(self, str chunk):
        """A chunk's tokens, worked out: its flags (an int) when the chunk is one token, else
        (pieces tuple, flags bytes)."""
        pieces = _fast_chunk(chunk, self.specials)
        if pieces is None:
            pieces = self.affix.fast_alpha(chunk)
        if pieces is None:
            pieces = self.affix.tokenize_chunk(chunk)
        if len(pieces) == 1:  # the chunk itself (the pieces always tile the chunk)
            return self._flags_of(<str>pieces[0])
        return (pieces, bytes([self._flags_of(p) for p in pieces]))

    cdef CacheSlot* _lookup(self, str text, int kind, void* data, Py_ssize_t start, Py_ssize_t end) except NULL:
        """The cache slot of the chunk text[start:end], worked out and cached on a miss."""
        cdef Py_ssize_t length = end - start
        cdef uint64_t h = _span_hash(kind, data, start, end)
        cdef ChunkTable* cur = &self.tables[self.current]
        cdef CacheSlot* slot = _table_find(cur, h, kind, data, start, length)
        cdef CacheSlot* old_slot
        cdef ChunkTable* old
        if slot.key != NULL:
            return slot
        old = &self.tables[1 - self.current]
        old_slot = _table_find(old, h, kind, data, start, length)
        if old_slot.key != NULL:
            key = <object>old_slot.key
            value = <object>old_slot.value
        else:
            key = PyUnicode_Substring(text, start, end)
            # Python code may run in here (the regexes, a collection's finalizers) and with it
            # another thread using this tokenizer: the tables are looked at again afterwards
            value = self._new_entry(<str>key)
        cur = &self.tables[self.current]
        if cur.count >= self.generation:
            # two generations: chunks used since the last turn survive it
            old = &self.tables[1 - self.current]
            _table_clear(old)
            self.current = 1 - self.current
            cur = old
        slot = _table_find(cur, h, kind, data, start, length)
        if slot.key == NULL:
            _slot_set(slot, h, length, key, value)
            cur.count += 1
        return slot

    cdef int _add_chunk(self, str text, int kind, void* data, Py_ssize_t start, Py_ssize_t end, list texts,
                        _Buf buf) except -1:
        """Append the tokens of the chunk text[start:end]."""
        cdef CacheSlot* slot = self._lookup(text, kind, data, start, end)
        cdef object entry = <object>slot.value
        cdef tuple pieces
        cdef bytes flags
        cdef const unsigned char* fl
        cdef Py_ssize_t k, m, pos = start
        cdef str piece
        if type(entry) is int:
            if buf.n + 1 > buf.cap:
                buf.grow(buf.n + 1)
            texts.append(<object>slot.key)
            buf.idx[buf.n] = pos
            buf.flags[buf.n] = <unsigned char><int>entry
            buf.space[buf.n] = 0
            buf.n += 1
            return 0
        pieces = <tuple>(<tuple>entry)[0]
        flags = <bytes>(<tuple>entry)[1]
        fl = flags
        m = len(pieces)
        if buf.n + m > buf.cap:
            buf.grow(buf.n + m)
        for k in range(m):
            piece = <str>pieces[k]
            texts.append(piece)
            buf.idx[buf.n] = pos
            buf.flags[buf.n] = fl[k]
            buf.space[buf.n] = 0
            buf.n += 1
            pos += len(piece)
        return 0

    # upstream: spacy.tokenizer.Tokenizer._tokenize_affixes
    cdef tuple _tokenize_affixes(self, str text):
        """Tokenizer._tokenize_affixes over the cached chunks."""
        cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text)
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef list texts = []
        cdef _Buf buf = _Buf(length // 4 + 16)
        cdef Py_ssize_t i, start = 0
        cdef Py_UCS4 uc
        cdef bint in_ws, ws
        if length == 0:
            return texts, buf
        if kind != PyUnicode_1BYTE_KIND:
            # spaCy hashes each chunk's UTF-8: a lone surrogate raises
            for i in range(length):
                uc = PyUnicode_READ(kind, data, i)
                if uc >= 0xD800 and uc <= 0xDFFF:
                    self.check_encodable(text)
                    break
        in_ws = Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, 0))
        for i in range(length):
            uc = PyUnicode_READ(kind, data, i)
            ws = Py_UNICODE_ISSPACE(uc)
            if ws != in_ws:
                if start < i:
                    self._add_chunk(text, kind, data, start, i, texts, buf)
                if uc == u' ' and buf.n > 0:
                    buf.space[buf.n - 1] = 1
                    start = i + 1
                else:
                    start = i
                in_ws = not in_ws
        if start < length:
            self._add_chunk(text, kind, data, start, length, texts, buf)
            # the last run is a space run or ends without a space: no trailing space
            if buf.n > 0:
                buf.space[buf.n - 1] = 0
        return texts, buf

    # upstream: spacy.matcher.PhraseMatcher.find_matches (over token texts)
    cdef list _find_matches(self, list texts, _Buf buf):
        """PhraseMatcher.find_matches over the token texts (trie of dicts)."""
        cdef list matches = []
        cdef Py_ssize_t n = buf.n, start, end
        cdef object node
        for start in range(n):
            if not (buf.flags[start] & F_MATCH_FIRST):
                continue
            node = self.trie.get(texts[start])
            end = start + 1
            while node is not None:
                ends = (<dict>node).get(None)
                if ends:
                    for _ in ends:
                        matches.append((start, end))
                if end >= n:
                    break
                node = (<dict>node).get(texts[end])
                end += 1
        return matches

    # upstream: spacy.tokenizer.Tokenizer._apply_special_cases
    cdef tuple _apply_special_cases(self, list texts, _Buf buf):
        """Tokenizer._apply_special_cases: rebuilds texts and buf when a kept
        span is a special case (the reference's _filter_special_spans decides);
        the same texts and buf when none is."""
        matches = self._find_matches(texts, buf)
        if not matches:
            return texts, buf
        kept = self.rules._filter_special_spans(matches)
        specials = self.rules.specials
        cdef Py_ssize_t i = 0, end, n = buf.n, j, pos
        cdef dict replaced = {}   # span start -> (span end, the special case's pieces)
        for start, stop in kept:
            i = start
            end = stop
            parts = []
            for j in range(i, end - 1):
                parts.append(texts[j])
                if buf.space[j]:
                    parts.append(" ")
            parts.append(texts[end - 1])
            special = specials.get("".join(parts))
            if special is not None:
                replaced[start] = (end, special)
        if not replaced:
            return texts, buf
        cdef list out_texts = []
        cdef _Buf out = _Buf(buf.n + 16)
        cdef str piece
        i = 0
        while i < n:
            got = replaced.get(i)
            if got is None:
                end = i + 1
                if out.n + 1 > out.cap:
                    out.grow(out.n + 1)
                out_texts.append(texts[i])
                out.idx[out.n] = buf.idx[i]
                out.flags[out.n] = buf.flags[i]
                out.space[out.n] = buf.space[i]
                out.n += 1
            else:
                end = <Py_ssize_t>(<tuple>got)[0]
                special = (<tuple>got)[1]
                if out.n + len(special) > out.cap:
                    out.grow(out.n + len(special))
                pos = buf.idx[i]
                for piece in special:
                    out_texts.append(piece)
                    out.idx[out.n] = pos
                    out.flags[out.n] = self._flags_of(piece)
                    out.space[out.n] = 0
                    out.n += 1
                    pos += len(piece)
                out.space[out.n - 1] = buf.space[end - 1]
            i = end
        return out_texts, out

    # upstream: spacy.pipeline.sentencizer.Sentencizer.predict
    cdef list _sent_starts(self, _Buf buf):
        """Sentencizer.predict over the flags."""
        cdef list starts = []
        cdef Py_ssize_t i
        cdef bint seen_period = False
        cdef unsigned char f
        if buf.n == 0:
            return starts
        starts.append(0)
        for i in range(buf.n):
            f = buf.flags[i]
            if seen_period and not (f & (F_PUNCT_CHAR | F_IS_PUNCT)):
                starts.append(i)
                seen_period = False
            elif f & F_PUNCT_CHAR:
                seen_period = True
        return starts

    cdef tuple _doc(self, str text):
        texts, buf = self._tokenize_affixes(text)
        return self._apply_special_cases(texts, buf)

    cdef list _spans(self, list texts, _Buf buf):
        cdef list starts = self._sent_starts(buf)
        cdef list spans = []
        cdef Py_ssize_t k, a, b, m = len(starts)
        for k in range(m):
            a = <Py_ssize_t>starts[k]
            b = (<Py_ssize_t>starts[k + 1]) if k + 1 < m else buf.n
            spans.append((buf.idx[a], buf.idx[b - 1] + len(<str>texts[b - 1])))
        return spans

    def tokenize(self, str text):
        """The Tokens of ``text`` (as the reference's EnglishRules.__call__)."""
        texts, buf = self._doc(text)
        cdef _Buf b = <_Buf>buf
        idx = [b.idx[i] for i in range(b.n)]
        spaces = [bool(b.space[i]) for i in range(b.n)]
        return self.tokens_type(texts, idx, spaces, self._sent_starts(b))

    # upstream: datatrove.utils.word_tokenizers.SpaCyTokenizer.word_tokenize
    def word_tokenize(self, str text):
        """datatrove's word_tokenize: the token texts, stripped, empties dropped."""
        texts, buf = self._doc(text)
        cdef _Buf b = <_Buf>buf
        cdef list tl = <list>texts
        cdef list out = []
        cdef Py_ssize_t i
        cdef unsigned char f
        for i in range(b.n):
            f = b.flags[i]
            if f & F_STRIPS_EMPTY:
                continue
            if f & F_STRIPS_OTHER:
                out.append((<str>tl[i]).strip())
            else:
                out.append(tl[i])
        return out

    # upstream: datatrove.utils.word_tokenizers.SpaCyTokenizer.span_tokenize
    def span_tokenize(self, str text):
        """datatrove's span_tokenize: (start_char, end_char) of each sentence."""
        texts, buf = self._doc(text)
        return self._spans(<list>texts, <_Buf>buf)

    # upstream: datatrove.utils.word_tokenizers.SpaCyTokenizer.sent_tokenize
    def sent_tokenize(self, str text):
        """datatrove's sent_tokenize: the sentence texts, stripped, empties dropped."""
        texts, buf = self._doc(text)
        cdef list out = []
        for a, b in self._spans(<list>texts, <_Buf>buf):
            s = text[a:b].strip()
            if s:
                out.append(s)
        return out
