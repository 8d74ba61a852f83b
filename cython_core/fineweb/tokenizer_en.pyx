# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled twin of trafila.fineweb.tokenizer (built as trafila._tokenizer_en).

spaCy tokenizes each run of space / non-space characters of a text on its own
(without its chunk cache, off in datatrove's memory zones), so a chunk's tokens
are a pure function of the chunk: this twin splits the text in C and keeps the
reference's tokenization of each chunk in a dictionary, then runs the
special-case matcher pass (the only step that looks across chunks), the
sentencizer and datatrove's strip_strings in C over per-token flags.
"""

from libc.stdlib cimport malloc, realloc, free
from cpython.unicode cimport PyUnicode_READ, PyUnicode_KIND, PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_1BYTE_KIND

#: per-token flags, computed once per distinct token text
cdef enum:
    F_PUNCT_CHAR = 1    # in the sentencizer's punct_chars
    F_IS_PUNCT = 2      # lexical IS_PUNCT
    F_MATCH_FIRST = 4   # first token of a special-case matcher pattern
    F_STRIPS_EMPTY = 8  # str.strip() leaves nothing (dropped by strip_strings)
    F_STRIPS_OTHER = 16 # str.strip() changes it but leaves something

#: chunks kept at most (the cache is cleared when it grows past this)
DEF CACHE_LIMIT = 400000


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


cdef class CompiledEnglish:
    """The twin of trafila.fineweb.tokenizer.EnglishRules plus datatrove's
    wrappers, for texts without IS_ALPHA (EnglishTokenizer routes those)."""

    cdef object rules
    cdef object tokens_type
    cdef dict chunk_cache       # chunk -> flags int (one token) or (pieces tuple, flags bytes)
    cdef dict text_flags        # token text -> flags
    cdef dict trie
    cdef dict specials
    cdef frozenset punct_chars
    cdef object is_punct
    cdef object check_encodable

    def __init__(self, rules, tokens_type=None):
        from trafila.fineweb import tokenizer as reference
        self.rules = rules
        self.tokens_type = tokens_type if tokens_type is not None else reference.Tokens
        self.is_punct = reference.is_punct
        self.check_encodable = reference.check_encodable
        self.trie = rules.matcher_trie
        self.specials = rules.specials
        self.punct_chars = frozenset(rules.punct_chars)
        self.chunk_cache = {}
        self.text_flags = {}

    def clear_cache(self):
        """Forget the chunks seen so far."""
        self.chunk_cache.clear()
        self.text_flags.clear()

    def cache_size(self):
        """How many chunks are cached."""
        return len(self.chunk_cache)

    cdef int _flags_of(self, str text) except -1:
        cdef object got = self.text_flags.get(text)
        cdef int f
        if got is not None:
            return <int>got
        f = 0
        if text in self.punct_chars:
            f |= F_PUNCT_CHAR
        if self.is_punct(text):
            f |= F_IS_PUNCT
        if text in self.trie:
            f |= F_MATCH_FIRST
        stripped = text.strip()
        if not stripped:
            f |= F_STRIPS_EMPTY
        elif stripped != text:
            f |= F_STRIPS_OTHER
        self.text_flags[text] = f
        return f

    cdef object _chunk(self, str chunk):
        """A chunk's tokens: its flags (an int) when the chunk is one token, else
        (pieces tuple, flags bytes); cached."""
        cdef object entry = self.chunk_cache.get(chunk)
        if entry is not None:
            return entry
        pieces = _fast_chunk(chunk, self.specials)
        if pieces is None:
            pieces = self.rules.tokenize_chunk(chunk)
        if len(pieces) == 1:  # the chunk itself (the pieces always tile the chunk)
            entry = self._flags_of(<str>pieces[0])
        else:
            entry = (pieces, bytes([self._flags_of(p) for p in pieces]))
        if len(self.chunk_cache) >= CACHE_LIMIT:
            self.chunk_cache.clear()
        self.chunk_cache[chunk] = entry
        return entry

    cdef int _add_chunk(self, str chunk, Py_ssize_t pos, list texts, _Buf buf) except -1:
        """Append one chunk's tokens starting at character ``pos``."""
        cdef object entry = self._chunk(chunk)
        cdef tuple pieces
        cdef bytes flags
        cdef const unsigned char* fl
        cdef Py_ssize_t k, m
        cdef str piece
        if type(entry) is int:
            if buf.n + 1 > buf.cap:
                buf.grow(buf.n + 1)
            texts.append(chunk)
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
        in_ws = PyUnicode_READ(kind, data, 0).isspace()
        for i in range(length):
            uc = PyUnicode_READ(kind, data, i)
            ws = uc.isspace()
            if ws != in_ws:
                if start < i:
                    self._add_chunk(text[start:i], start, texts, buf)
                if uc == u' ' and buf.n > 0:
                    buf.space[buf.n - 1] = 1
                    start = i + 1
                else:
                    start = i
                in_ws = not in_ws
        if start < length:
            self._add_chunk(text[start:], start, texts, buf)
            # the last run is a space run or ends without a space: no trailing space
            if buf.n > 0:
                buf.space[buf.n - 1] = 0
        return texts, buf

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

    cdef tuple _apply_special_cases(self, list texts, _Buf buf):
        """Tokenizer._apply_special_cases: rebuilds texts and buf when a kept
        span is a special case (the reference's _filter_special_spans decides)."""
        matches = self._find_matches(texts, buf)
        if not matches:
            return texts, buf
        kept = self.rules._filter_special_spans(matches)
        specials = self.rules.specials
        cdef list out_texts = []
        cdef _Buf out = _Buf(buf.n + 16)
        cdef Py_ssize_t i = 0, end, n = buf.n, j, pos
        cdef dict span_data = {s: e for s, e in kept}
        cdef str piece
        while i < n:
            got = span_data.get(i)
            end = i + 1 if got is None else <Py_ssize_t>got
            special = None
            if got is not None:
                parts = []
                for j in range(i, end - 1):
                    parts.append(texts[j])
                    if buf.space[j]:
                        parts.append(" ")
                parts.append(texts[end - 1])
                special = specials.get("".join(parts))
            if special is None:
                if out.n + (end - i) > out.cap:
                    out.grow(out.n + (end - i))
                for j in range(i, end):
                    out_texts.append(texts[j])
                    out.idx[out.n] = buf.idx[j]
                    out.flags[out.n] = buf.flags[j]
                    out.space[out.n] = buf.space[j]
                    out.n += 1
            else:
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

    def span_tokenize(self, str text):
        """datatrove's span_tokenize: (start_char, end_char) of each sentence."""
        texts, buf = self._doc(text)
        return self._spans(<list>texts, <_Buf>buf)

    def sent_tokenize(self, str text):
        """datatrove's sent_tokenize: the sentence texts, stripped, empties dropped."""
        texts, buf = self._doc(text)
        cdef list out = []
        for a, b in self._spans(<list>texts, <_Buf>buf):
            s = text[a:b].strip()
            if s:
                out.append(s)
        return out
