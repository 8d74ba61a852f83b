# Accelerators for the readability fallback (trafila/readability_2_3_1.py)
# on the core's trees. Each gives exactly what the reference code gives on
# the same tree; tests/test_core_accel_readability.py compares them over
# corpus pages and generated strings.
#
# Text lengths: ``len(trim(el.text_content()))`` where trim is
# ``" ".join(s.split()).strip()``: the number of non-whitespace code points
# plus one space between consecutive words. Python's str.split() splits on
# Py_UNICODE_ISSPACE; in UTF-8 those characters are the ASCII ones
# (\t \n \v \f \r, \x1c-\x1f, space) and U+0085, U+00A0, U+1680,
# U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 (the test checks the
# set against str.isspace() over every code point). The arena holds valid
# UTF-8 (every store is a strict encode or the input converter's output), so
# a code point is a byte that is not a continuation byte.


cdef struct TextStats:
    Py_ssize_t nonws     # code points that are not whitespace
    Py_ssize_t words     # maximal runs of them
    Py_ssize_t commas    # ',' characters
    bint in_word


cdef inline int _ws_len(const uchar* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """The byte length of the non-ASCII whitespace character at s[i] (a lead
    byte >= 0x80), 0 when it is none."""
    cdef uchar c = s[i], c1, c2
    if c == 0xC2:
        if i + 1 < n:
            c1 = s[i + 1]
            if c1 == 0x85 or c1 == 0xA0:
                return 2
        return 0
    if c < 0xE1 or c > 0xE3 or i + 2 >= n:
        return 0
    c1 = s[i + 1]
    c2 = s[i + 2]
    if c == 0xE1:
        return 3 if (c1 == 0x9A and c2 == 0x80) else 0
    if c == 0xE3:
        return 3 if (c1 == 0x80 and c2 == 0x80) else 0
    # 0xE2
    if c1 == 0x80:
        if (0x80 <= c2 <= 0x8A) or c2 == 0xA8 or c2 == 0xA9 or c2 == 0xAF:
            return 3
        return 0
    if c1 == 0x81 and c2 == 0x9F:
        return 3
    return 0


cdef inline bint _ascii_space(uchar c) noexcept nogil:
    return c == 32 or (9 <= c <= 13) or (28 <= c <= 31)


cdef enum:
    BC_WORD = 0      # an ASCII byte that is neither whitespace nor a comma
    BC_SPACE = 1     # ASCII whitespace
    BC_COMMA = 2
    BC_HIGH = 3      # >= 0x80

cdef uchar _BYTE_CLASS[256]


cdef void _byte_class_init() noexcept nogil:
    cdef int c
    for c in range(256):
        if c >= 0x80:
            _BYTE_CLASS[c] = BC_HIGH
        elif _ascii_space(<uchar>c):
            _BYTE_CLASS[c] = BC_SPACE
        elif c == 44:
            _BYTE_CLASS[c] = BC_COMMA
        else:
            _BYTE_CLASS[c] = BC_WORD


_byte_class_init()


cdef uint64_t _ONES = 0x0101010101010101ULL
cdef uint64_t _HIGHS = 0x8080808080808080ULL


cdef inline uint64_t _load8(const uchar* s) noexcept nogil:
    """Bytes s[0..7] as a little-endian word (byte k in bits 8k..8k+7, on any host)."""
    return (<uint64_t>s[0] | (<uint64_t>s[1] << 8) | (<uint64_t>s[2] << 16) | (<uint64_t>s[3] << 24)
            | (<uint64_t>s[4] << 32) | (<uint64_t>s[5] << 40) | (<uint64_t>s[6] << 48) | (<uint64_t>s[7] << 56))


cdef inline uint64_t _bytes_in(uint64_t x, uint64_t lo, uint64_t hi) noexcept nogil:
    """0x80 in each byte of ``x`` (all bytes < 0x80) that lies in [lo, hi], 0 in the
    others: per byte, b + (0x80 - lo) >= 0x80 iff b >= lo and b + (0x7F - hi) >= 0x80
    iff b > hi; no sum exceeds 0xFF, so no carry crosses a byte."""
    return ((x + (0x80 - lo) * _ONES) & ~(x + (0x7F - hi) * _ONES)) & _HIGHS


cdef inline Py_ssize_t _count_highs(uint64_t m) noexcept nogil:
    """The number of bytes of ``m`` that are 0x80 (the others 0): a multiply,
    no popcount instruction needed."""
    return <Py_ssize_t>(((m >> 7) * _ONES) >> 56)


cdef void _stats_feed(TextStats* t, const uchar* s, Py_ssize_t n) noexcept nogil:
    # locals, not t's fields, in the loop: a byte pointer may alias *t
    cdef Py_ssize_t i = 0, nonws = t.nonws, words = t.words, commas = t.commas
    cdef bint in_word = t.in_word
    cdef uchar k
    cdef int w
    cdef uint64_t x, word_bytes, starts
    while i < n:
        if i + 8 <= n:
            # eight ASCII bytes at once: whitespace is \t-\r and \x1c-' '
            x = _load8(s + i)
            if (x & _HIGHS) == 0:
                word_bytes = ~(_bytes_in(x, 9, 13) | _bytes_in(x, 28, 32)) & _HIGHS
                nonws += _count_highs(word_bytes)
                # a word starts at a word byte whose previous byte (or state) is not one
                starts = word_bytes & ~((word_bytes << 8) | (<uint64_t>0x80 if in_word else 0))
                words += _count_highs(starts)
                commas += _count_highs(_bytes_in(x, 44, 44))
                in_word = (word_bytes >> 63) != 0
                i += 8
                continue
        k = _BYTE_CLASS[s[i]]
        if k == BC_SPACE:
            i += 1
            in_word = False
            continue
        if k == BC_HIGH:
            w = _ws_len(s, i, n)
            if w:
                i += w
                in_word = False
                continue
            i += 1
            while i < n and (s[i] & 0xC0) == 0x80:
                i += 1
        else:
            i += 1
            if k == BC_COMMA:
                commas += 1
        nonws += 1
        if not in_word:
            in_word = True
            words += 1
    t.nonws = nonws
    t.words = words
    t.commas = commas
    t.in_word = in_word


cdef inline void _stats_slot(DocData* d, int32_t off, int32_t n, TextStats* t) noexcept nogil:
    if off >= 0 and n > 0:
        _stats_feed(t, d.text.data + off, n)


cdef void _stats_walk(DocData* d, int32_t top, TextStats* t) noexcept nogil:
    """Feed what ``text_content()`` of ``top`` joins (trafila.dom._collect_text
    without names: the text of ``top`` and of every descendant, the tails of
    the descendants), in that order."""
    cdef int32_t s = top
    _stats_slot(d, d.nodes[top].text_off, d.nodes[top].text_len, t)
    while True:
        if d.nodes[s].first >= 0:
            s = d.nodes[s].first
            _stats_slot(d, d.nodes[s].text_off, d.nodes[s].text_len, t)
            continue
        while True:
            if s == top:
                return
            _stats_slot(d, d.nodes[s].tail_off, d.nodes[s].tail_len, t)
            if d.nodes[s].next >= 0:
                s = d.nodes[s].next
                _stats_slot(d, d.nodes[s].text_off, d.nodes[s].text_len, t)
                break
            s = d.nodes[s].parent


cdef inline Py_ssize_t _trim_length(const TextStats* t) noexcept nogil:
    return t.nonws + t.words - 1 if t.words > 0 else 0


cdef inline Py_ssize_t _text_length_of(DocData* d, int32_t i) noexcept nogil:
    cdef TextStats t
    memset(&t, 0, sizeof(TextStats))
    _stats_walk(d, i, &t)
    return _trim_length(&t)


# upstream: trafilatura.readability_lxml.text_length
def text_length(CElement el not None):
    """``len(trim(el.text_content()))`` (readability's ``text_length``)."""
    el.doc._check(el.idx)
    return _text_length_of(&el.doc.d, el.idx)


def text_stats(CElement el not None):
    """``(len(t), t.count(","))`` of ``t = trim(el.text_content())`` (trimming
    removes no comma, so the count is also the untrimmed text's)."""
    cdef TextStats t
    el.doc._check(el.idx)
    memset(&t, 0, sizeof(TextStats))
    _stats_walk(&el.doc.d, el.idx, &t)
    return _trim_length(&t), t.commas


def _text_stats_of(str s):
    """Tests only: ``(len(trim(s)), s.count(","))`` by the C scanner over
    ``s`` in UTF-8 (no surrogates: an arena cannot hold them)."""
    cdef bytes b = s.encode("utf-8")
    cdef TextStats t
    memset(&t, 0, sizeof(TextStats))
    _stats_feed(&t, <const uchar*><const char*>b, len(b))
    return _trim_length(&t), t.commas


# upstream: trafilatura.readability_lxml.Document.get_link_density
def link_density(CElement el not None):
    """readability's ``get_link_density``: the sum of ``text_length`` over the
    ``a`` descendants (nested ones each counted) divided by ``text_length(el)``
    (1 when that is 0). Both are below 2**53, so the C division is Python's
    int true division."""
    cdef DocData* d = &el.doc.d
    cdef int32_t root = el.idx, i
    cdef int32_t a_id
    cdef Py_ssize_t total, links = 0
    el.doc._check(root)
    total = _text_length_of(d, root)
    if total == 0:
        total = 1
    a_id = _lookup(el.doc, "a")
    if a_id < 0:
        return 0.0
    i = d.nodes[root].first
    while i >= 0:
        if d.nodes[i].tag == a_id:
            links += _text_length_of(d, i)
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            break
        i = d.nodes[i].next
    return <double>links / <double>total


# -- remove_unlikely_candidates ----------------------------------------------------
# readability's unlikelyCandidatesRe and okMaybeItsACandidateRe are plain
# alternations of lower-case ASCII literals (no anchors, no flags, no space in
# any literal) searched in ``" ".join(class, id).lower()``. For ASCII values
# lower() is the ASCII mapping and a match cannot span the joining space, so
# the verdict is: some unlikely word occurs in one of the values (ASCII
# lowered) and no ok word does. A value with a non-ASCII byte goes to the
# caller's Python verdict (lower() maps some non-ASCII characters to ASCII).

UNLIKELY_WORDS = ("combx", "comment", "community", "disqus", "extra", "foot", "header", "menu", "remark",
                  "rss", "shoutbox", "sidebar", "sponsor", "ad-break", "agegate", "pagination", "pager",
                  "popup", "tweet", "twitter")
OK_MAYBE_WORDS = ("and", "article", "body", "column", "content", "main", "shadow")
# trafilatura 1.11.0's vendored readability: the same unlikely words, "content" not yet an ok one
OK_MAYBE_WORDS_1_11_0 = ("and", "article", "body", "column", "main", "shadow")

cdef enum:
    MAX_WORDS = 32

cdef extern from *:
    int __builtin_ctz(unsigned int x) nogil

cdef struct WordSet:
    int n
    const uchar* w[MAX_WORDS]
    Py_ssize_t len[MAX_WORDS]
    uint32_t first[256]     # per byte: the words starting with it (bit j: word j)
    bint bigrams            # every word has 2 bytes or more: ``pairs`` is a filter
    uint64_t pairs[1024]    # bit (b0 << 8 | b1): some word starts with the bytes b0 b1
    uint64_t raw[1024]      # bit (b0 << 8 | b1): some word starts with _LOWER[b0] _LOWER[b1]

cdef uchar _LOWER[256]


cdef void _lower_init() noexcept nogil:
    cdef int c
    for c in range(256):
        _LOWER[c] = _ascii_lower(<uchar>c)


_lower_init()

cdef bytes _UNLIKELY_BLOB = b"\0".join(w.encode("ascii") for w in UNLIKELY_WORDS)
cdef bytes _OK_BLOB = b"\0".join(w.encode("ascii") for w in OK_MAYBE_WORDS)
cdef bytes _OK_BLOB_1_11_0 = b"\0".join(w.encode("ascii") for w in OK_MAYBE_WORDS_1_11_0)
cdef WordSet _UNLIKELY_SET
cdef WordSet _OK_SET
cdef WordSet _OK_SET_1_11_0


cdef void _wordset_init(WordSet* ws, bytes blob, object words):
    cdef const uchar* p = <const uchar*><const char*>blob
    cdef Py_ssize_t off = 0
    cdef uint32_t pair
    cdef int b0, b1
    ws.n = 0
    ws.bigrams = True
    memset(ws.first, 0, sizeof(ws.first))
    memset(ws.pairs, 0, sizeof(ws.pairs))
    memset(ws.raw, 0, sizeof(ws.raw))
    for w in words:
        assert ws.n < MAX_WORDS and len(w) > 0
        ws.w[ws.n] = p + off
        ws.first[p[off]] |= (<uint32_t>1) << ws.n
        ws.len[ws.n] = len(w)
        if len(w) < 2:
            ws.bigrams = False
        else:
            pair = (<uint32_t>p[off] << 8) | p[off + 1]
            ws.pairs[pair >> 6] |= (<uint64_t>1) << (pair & 63)
            for b0 in range(256):
                if _LOWER[b0] != p[off]:
                    continue
                for b1 in range(256):
                    if _LOWER[b1] == p[off + 1]:
                        pair = (<uint32_t>b0 << 8) | <uint32_t>b1
                        ws.raw[pair >> 6] |= (<uint64_t>1) << (pair & 63)
        off += len(w) + 1
        ws.n += 1


_wordset_init(&_UNLIKELY_SET, _UNLIKELY_BLOB, UNLIKELY_WORDS)
_wordset_init(&_OK_SET, _OK_BLOB, OK_MAYBE_WORDS)
_wordset_init(&_OK_SET_1_11_0, _OK_BLOB_1_11_0, OK_MAYBE_WORDS_1_11_0)


cdef bint _contains_any(const uchar* s, Py_ssize_t n, const WordSet* ws) noexcept nogil:
    """Some word of ``ws`` occurs in ``s[:n]`` ASCII-lowered."""
    cdef Py_ssize_t i, k, m
    cdef uint32_t bits
    cdef int j
    cdef const uchar* w
    cdef uint32_t pair
    if ws.bigrams:
        # no word starts at i unless its first two bytes are s[i], s[i+1] lowered
        # (so none at the last byte): the pair table skips most positions
        for i in range(n - 1):
            pair = (<uint32_t>s[i] << 8) | s[i + 1]
            if not (ws.raw[pair >> 6] >> (pair & 63)) & 1:
                continue
            bits = ws.first[_LOWER[s[i]]]
            while bits:
                j = __builtin_ctz(bits)
                bits &= bits - 1
                w = ws.w[j]
                m = ws.len[j]
                if m > n - i:
                    continue
                k = 1
                while k < m and _LOWER[s[i + k]] == w[k]:
                    k += 1
                if k == m:
                    return True
        return False
    for i in range(n):
        bits = ws.first[_ascii_lower(s[i])]
        while bits:
            j = __builtin_ctz(bits)
            bits &= bits - 1
            w = ws.w[j]
            m = ws.len[j]
            if m > n - i:
                continue
            k = 1
            while k < m and _ascii_lower(s[i + k]) == w[k]:
                k += 1
            if k == m:
                return True
    return False


cdef inline bint _has_high_byte(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0
    cdef uint64_t acc = 0
    # eight bytes at a time (_load8), then the rest
    while i + 8 <= n:
        acc |= _load8(s + i)
        i += 8
    if acc & _HIGHS:
        return True
    while i < n:
        if s[i] >= 0x80:
            return True
        i += 1
    return False


cdef inline bint _attr_bytes(DocData* d, int32_t i, int32_t nid, const uchar** s, Py_ssize_t* n) noexcept nogil:
    """The value of attribute ``nid`` of node ``i`` as (s, n); False when it is
    not a plain value (absent or valueless: n = 0; its own name: n = -1)."""
    cdef int32_t k
    cdef Attr* a
    s[0] = NULL
    n[0] = 0
    if nid < 0:
        return False
    k = dom_attr_find(d, i, nid)
    if k < 0:
        return False
    a = &d.attrs[k]
    if a.kind == AV_VALUE:
        s[0] = d.vals.data + a.val_off
        n[0] = a.val_len
        return True
    if a.kind == AV_OWN_NAME:
        n[0] = -1
    return False



def unlikely_candidates(CElement top not None, object verdict, bint v1_11_0=False):
    """The descendants of ``top`` that readability's
    ``remove_unlikely_candidates`` drops, in document order (the verdicts
    are taken before any drop: dropping changes no tag and no attribute).
    ``verdict(attrs)`` gives the reference's verdict for an ``attrs`` string
    the C matcher does not decide (a value with a non-ASCII byte);
    ``v1_11_0``: trafilatura 1.11.0's ok words (OK_MAYBE_WORDS_1_11_0)."""
    cdef CDocument doc = top.doc
    cdef int32_t root = top.idx
    cdef int32_t class_id, id_id, body_id, html_id
    cdef list out = []
    cdef const WordSet* ok = &_OK_SET_1_11_0 if v1_11_0 else &_OK_SET
    doc._check(root)
    class_id = _lookup(doc, "class")
    id_id = _lookup(doc, "id")
    if class_id < 0 and id_id < 0:
        return out
    body_id = _lookup(doc, "body")
    html_id = _lookup(doc, "html")
    _unlikely_walk(doc, root, verdict, ok, body_id, html_id, class_id, id_id, out, NULL)
    return out


# upstream: trafilatura.readability_lxml.Document.remove_unlikely_candidates
def rd_remove_unlikely(CElement top not None, object verdict, object drop_tree, bint v1_11_0=False):
    """``drop_trees(unlikely_candidates(top, verdict, v1_11_0), drop_tree)``
    without the list of proxies: the verdicts first (as unlikely_candidates
    takes them), then each drop in document order as drop_trees does it
    (_rd_drop)."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t root = top.idx
    cdef int32_t class_id, id_id, body_id, html_id, k
    cdef int32_t* found = NULL
    cdef const WordSet* ok = &_OK_SET_1_11_0 if v1_11_0 else &_OK_SET
    doc._check(root)
    class_id = _lookup(doc, "class")
    id_id = _lookup(doc, "id")
    if class_id < 0 and id_id < 0:
        return None
    body_id = _lookup(doc, "body")
    html_id = _lookup(doc, "html")
    # room for every node plus the count in found[0]
    found = NULL if alloc_fails() else <int32_t*>malloc(<size_t>(d.n_nodes + 1) * sizeof(int32_t))
    if found == NULL:
        raise MemoryError("out of memory")
    try:
        found[0] = 0
        _unlikely_walk(doc, root, verdict, ok, body_id, html_id, class_id, id_id, None, found)
        for k in range(1, found[0] + 1):
            doc._check(found[k])
            _rd_drop(doc, found[k], drop_tree)
    finally:
        free(found)
    return None


cdef inline int _unlikely_hit(CDocument doc, int32_t i, list out, int32_t* found, object el) except -1:
    """Record node ``i`` (proxy ``el`` or None): a proxy into ``out``, or its index into ``found``."""
    if found != NULL:
        if found[0] >= doc.d.n_nodes:
            raise AssertionError("more hits than nodes")
        found[0] += 1
        found[found[0]] = i
    else:
        out.append(el if el is not None else _proxy(doc, i))
    return 0


cdef int _unlikely_verdict_c(DocData* d, int32_t i, int32_t class_id, int32_t id_id,
                             const WordSet* ok) noexcept nogil:
    """remove_unlikely_candidates' verdict on node ``i`` (not body or html): 1 drop, 0 keep,
    -1 a value with a non-ASCII byte (str.lower() may map one to ASCII: the reference decides)."""
    cdef const uchar* cs
    cdef const uchar* is_
    cdef Py_ssize_t cn, in_
    if not _class_value(d, i, class_id, &cs, &cn):
        cn = 0
    if not _class_value(d, i, id_id, &is_, &in_):
        in_ = 0
    if _has_high_byte(cs, cn) or _has_high_byte(is_, in_):
        return -1
    if cn + in_ + (1 if cn > 0 and in_ > 0 else 0) < 2:
        return 0
    if ((_contains_any(cs, cn, &_UNLIKELY_SET) or _contains_any(is_, in_, &_UNLIKELY_SET))
            and not _contains_any(cs, cn, ok) and not _contains_any(is_, in_, ok)):
        return 1
    return 0


cdef int _unlikely_walk(CDocument doc, int32_t root, object verdict, const WordSet* ok, int32_t body_id,
                        int32_t html_id, int32_t class_id, int32_t id_id, list out, int32_t* found) except -1:
    cdef DocData* d = &doc.d
    cdef int32_t i, tag
    cdef int v_c
    cdef dict memo = {}
    i = d.nodes[root].first
    while i >= 0:
        tag = d.nodes[i].tag
        if tag != body_id and tag != html_id:
            v_c = _unlikely_verdict_c(d, i, class_id, id_id, ok)
            if v_c < 0:
                el = _proxy(doc, i)
                attrs = " ".join(value for value in (el.get("class"), el.get("id")) if value)
                if len(attrs) >= 2:
                    v = memo.get(attrs)
                    if v is None:
                        v = memo[attrs] = bool(verdict(attrs))
                    if v:
                        _unlikely_hit(doc, i, out, found, el)
            elif v_c:
                _unlikely_hit(doc, i, out, found, None)
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            break
        i = d.nodes[i].next
    return 0


# -- transform_misused_divs_into_paragraphs -----------------------------------------
# Step 1 renames a div (a descendant of the document's top, in document
# order) to p when no descendant's tag starts with one of DIV_TO_P_PREFIXES
# and it has no ``a`` descendant or has loose text (XPath
# ``text()[normalize-space()]``: its text or a child's tail holds a character
# other than space, tab, CR, LF). Every verdict reads only the div's
# descendants, which come after it, and a renamed div (div -> p) matches the
# prefixes before and after, so the verdicts can all be taken first.
# Step 2 has work only in a div with non-whitespace text (str.strip()), a
# child with a non-whitespace tail, or a br child; the others are left out
# (the loop does nothing for them; its edits change no later div's verdict:
# they touch the div's own text, its children's tails, and the new p's).

DIV_TO_P_PREFIXES = ("address", "article", "aside", "audio", "blockquote", "dl", "div", "img", "ol", "p",
                     "table", "ul")
cdef bytes _PREFIX_BLOB = b"\0".join(w.encode("ascii") for w in DIV_TO_P_PREFIXES)
cdef WordSet _PREFIX_SET
_wordset_init(&_PREFIX_SET, _PREFIX_BLOB, DIV_TO_P_PREFIXES)


cdef bint _starts_with_any(const uchar* s, Py_ssize_t n, const WordSet* ws) noexcept nogil:
    cdef int j
    for j in range(ws.n):
        if ws.len[j] <= n and memcmp(s, ws.w[j], <size_t>ws.len[j]) == 0:
            return True
    return False


cdef inline bint _has_non_xml_space(DocData* d, int32_t off, int32_t n) noexcept nogil:
    """The slice holds a byte other than space, tab, CR, LF (the text of
    XPath normalize-space() is not empty)."""
    cdef int32_t k
    cdef uchar c
    if off < 0:
        return False
    for k in range(n):
        c = d.text.data[off + k]
        if c != 32 and c != 9 and c != 13 and c != 10:
            return True
    return False


cdef inline bint _has_non_space(DocData* d, int32_t off, int32_t n) noexcept nogil:
    """``s.strip()`` is not empty for the slice (Python's whitespace)."""
    cdef TextStats t
    if off < 0 or n <= 0:
        return False
    memset(&t, 0, sizeof(TextStats))
    _stats_feed(&t, d.text.data + off, n)
    return t.nonws > 0


cdef bint _blank_slot_c(DocData* d, int32_t off, int32_t n) noexcept nogil:
    "``not s or not s.strip()`` for a text slot (Python's whitespace)."
    cdef TextStats t
    if off < 0 or n <= 0:
        return True
    memset(&t, 0, sizeof(TextStats))
    _stats_feed(&t, d.text.data + off, n)
    return t.nonws == 0


cdef struct PrefixFlags:
    # per name id of one document: does the name start with a prefix (-1: not yet known)
    signed char* flags
    int32_t n


cdef inline bint _prefix_flag(DocData* d, PrefixFlags* pf, int32_t nid) noexcept nogil:
    cdef const uchar* s
    cdef Py_ssize_t n
    if nid < 0 or nid >= pf.n:
        return False
    if pf.flags[nid] < 0:
        s = name_bytes(d, nid, &n)
        pf.flags[nid] = 1 if _starts_with_any(s, n, &_PREFIX_SET) else 0
    return pf.flags[nid] == 1


cdef bint _div_to_p(DocData* d, int32_t div, int32_t a_id, PrefixFlags* prefixes) noexcept nogil:
    cdef int32_t i = d.nodes[div].first, c
    cdef bint has_a = False, loose
    while i >= 0:
        if _prefix_flag(d, prefixes, d.nodes[i].tag):
            return False
        if d.nodes[i].tag == a_id:
            has_a = True
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != div and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == div:
            break
        i = d.nodes[i].next
    if not has_a:
        return True
    loose = _has_non_xml_space(d, d.nodes[div].text_off, d.nodes[div].text_len)
    c = d.nodes[div].first
    while c >= 0 and not loose:
        loose = _has_non_xml_space(d, d.nodes[c].tail_off, d.nodes[c].tail_len)
        c = d.nodes[c].next
    return loose


cdef bint _div_has_loose_text(DocData* d, int32_t div, int32_t br_id) noexcept nogil:
    cdef int32_t c
    if _has_non_space(d, d.nodes[div].text_off, d.nodes[div].text_len):
        return True
    c = d.nodes[div].first
    while c >= 0:
        if d.nodes[c].tag == br_id or _has_non_space(d, d.nodes[c].tail_off, d.nodes[c].tail_len):
            return True
        c = d.nodes[c].next
    return False


def misused_divs(CElement top not None, bint step2=False):
    """The div descendants of ``top`` (document order) that
    ``transform_misused_divs_into_paragraphs`` renames to p (step 1), or with
    ``step2`` those its second loop has work in."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t root = top.idx, i
    cdef int32_t div_id, a_id, br_id
    cdef PrefixFlags prefixes
    cdef list out = []
    cdef bint hit
    doc._check(root)
    div_id = _lookup(doc, "div")
    if div_id < 0:
        return out
    a_id = _lookup(doc, "a")
    br_id = _lookup(doc, "br")
    prefixes.n = N_KNOWN + d.n_names
    prefixes.flags = <signed char*>malloc(<size_t>prefixes.n)
    if prefixes.flags == NULL:
        raise MemoryError("out of memory")
    memset(prefixes.flags, 0xFF, <size_t>prefixes.n)
    try:
        i = d.nodes[root].first
        while i >= 0:
            if d.nodes[i].tag == div_id:
                if step2:
                    hit = _div_has_loose_text(d, i, br_id)
                else:
                    hit = _div_to_p(d, i, a_id, &prefixes)
                if hit:
                    out.append(_proxy(doc, i))
            if d.nodes[i].first >= 0:
                i = d.nodes[i].first
                continue
            while i != root and d.nodes[i].next < 0:
                i = d.nodes[i].parent
            if i == root:
                break
            i = d.nodes[i].next
    finally:
        free(prefixes.flags)
    return out


def divs_without_tags(CElement top not None, object tag_flag):
    """The div descendants of ``top`` (document order) with no descendant
    whose tag ``tag_flag(name)`` is true: trafilatura 1.11.0's readability
    renames those to p (step 1 of ``transform_misused_divs_into_paragraphs``;
    its test is a regex on each descendant's tag, asked here once per tag
    name, so it is the reference's own). Renaming div -> p changes no later
    verdict (both names are flagged, or the test ignores both), so the
    verdicts can all be taken first."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t root = top.idx, i, j, div_id, nid
    cdef Py_ssize_t n_ids
    cdef bytearray flags
    cdef signed char* f
    cdef list out = []
    cdef bint hit
    doc._check(root)
    div_id = _lookup(doc, "div")
    if div_id < 0:
        return out
    n_ids = N_KNOWN + d.n_names
    flags = bytearray(b"\xff" * n_ids)  # per name id: -1 not yet asked, 0 or 1
    f = <signed char*><char*>flags
    i = d.nodes[root].first
    while i >= 0:
        if d.nodes[i].tag == div_id:
            hit = False
            j = d.nodes[i].first
            while j >= 0:
                nid = d.nodes[j].tag
                if nid < 0 or nid >= n_ids:
                    raise AssertionError("tag id out of range")
                if f[nid] < 0:
                    f[nid] = 1 if tag_flag(doc.name_str(nid)) else 0
                if f[nid]:
                    hit = True
                    break
                if d.nodes[j].first >= 0:
                    j = d.nodes[j].first
                    continue
                while j != i and d.nodes[j].next < 0:
                    j = d.nodes[j].parent
                if j == i:
                    break
                j = d.nodes[j].next
            if not hit:
                out.append(_proxy(doc, i))
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            break
        i = d.nodes[i].next
    return out


# -- baseline's _spaced_text_readonly (trafila/v2_3_1/baseline.py) ------------------------
# ``" ".join("".join(parts).split())`` where parts are the texts and tails of
# text_content() order, a block element's text and tail each replaced by
# ``xml_text(" " + remove_control_characters(s))`` (" " when None or empty).
# After remove_control_characters (keeps printable or whitespace characters)
# the only characters xml_text refuses are \x0b, \x0c and \x1c-\x1f (U+FFFE,
# U+FFFF are not printable, surrogates cannot be stored), so a block string
# with one of those bytes makes the call raise: the reference functions are
# called on it to raise their own error. An ASCII block string loses
# \x00-\x08, \x0e-\x1b and \x7f; one with other bytes goes through the
# reference remove_control_characters (str.isprintable() of the Unicode
# database at run time).

cdef struct Collapse:
    Buf out
    bint pending     # whitespace seen since the last word
    int err


cdef void _collapse_feed(Collapse* c, const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i = 0, j
    cdef uchar b
    cdef int w
    while i < n:
        b = s[i]
        if b < 0x80:
            if _ascii_space(b):
                c.pending = True
                i += 1
                continue
            j = i + 1
        else:
            w = _ws_len(s, i, n)
            if w:
                c.pending = True
                i += w
                continue
            j = i + 1
            while j < n and (s[j] & 0xC0) == 0x80:
                j += 1
        if c.pending and c.out.len > 0:
            if not buf_append(&c.out, <const uchar*>b" ", 1, &c.err):
                return
        c.pending = False
        if not buf_append(&c.out, s + i, j - i, &c.err):
            return
        i = j


cdef inline bint _xml_refused_after_rcc(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef uchar b
    for i in range(n):
        b = s[i]
        if b == 0x0B or b == 0x0C or (0x1C <= b <= 0x1F):
            return True
    return False


cdef inline bint _needs_rcc(const uchar* s, Py_ssize_t n) noexcept nogil:
    """Some byte is not printable-or-space ASCII (\x00-\x08, \x0e-\x1b, \x7f) or not ASCII."""
    cdef Py_ssize_t i
    cdef uchar b
    for i in range(n):
        b = s[i]
        if b <= 0x08 or (0x0E <= b <= 0x1B) or b >= 0x7F:
            return True
    return False


cdef int _block_part(Collapse* c, DocData* d, int32_t off, int32_t n, object rcc, object xml_text) except -1:
    """Feed ``xml_text(" " + rcc(s))`` for the slot (off, n), or " " when it is None or empty."""
    cdef bytes b
    cdef const uchar* s
    _collapse_feed(c, <const uchar*>b" ", 1)
    if off < 0 or n <= 0:
        return 0
    s = d.text.data + off
    if _xml_refused_after_rcc(s, n):
        value = xml_text(" " + rcc(slice_str(&d.text, off, n)))  # raises ValueError
        b = (<str>value).encode("utf-8")
        _collapse_feed(c, <const uchar*><const char*>b, len(b))
        return 0
    if not _needs_rcc(s, n):
        _collapse_feed(c, s, n)
        return 0
    if not _has_high_byte(s, n):
        _feed_ascii_printables(c, s, n)
        return 0
    b = (<str>rcc(slice_str(&d.text, off, n))).encode("utf-8")
    _collapse_feed(c, <const uchar*><const char*>b, len(b))
    return 0


cdef void _feed_ascii_printables(Collapse* c, const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, start = 0
    cdef uchar b
    for i in range(n):
        b = s[i]
        if b <= 0x08 or (0x0E <= b <= 0x1B) or b == 0x7F:
            _collapse_feed(c, s + start, i - start)
            start = i + 1
    _collapse_feed(c, s + start, n - start)


cdef inline bint _is_block(int32_t tag, const int32_t* ids, int n) noexcept nogil:
    return _id_in(tag, ids, n)


def spaced_text(CElement el not None, object block_names, object rcc, object xml_text):
    """baseline's ``_spaced_text_readonly(el)`` with its ``_BLOCK_ELEMS``,
    ``remove_control_characters`` and ``xml_text``; NotImplemented when there
    are too many block names for the C set."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n_ids
    cdef int32_t top = el.idx, s
    cdef Collapse c
    cdef bint block
    doc._check(top)
    if not isinstance(block_names, (set, frozenset, tuple, list)):
        block_names = tuple(block_names)
    n_ids = _name_ids(doc, block_names, ids)
    if n_ids < 0:
        return NotImplemented
    memset(&c, 0, sizeof(Collapse))
    try:
        # the root's tail is only checked (upstream writes it, text_content leaves it out)
        if (_is_block(d.nodes[top].tag, ids, n_ids) and d.nodes[top].tail_off >= 0 and d.nodes[top].tail_len > 0
                and _xml_refused_after_rcc(d.text.data + d.nodes[top].tail_off, d.nodes[top].tail_len)):
            xml_text(" " + rcc(slice_str(&d.text, d.nodes[top].tail_off, d.nodes[top].tail_len)))
        s = top
        block = _is_block(d.nodes[s].tag, ids, n_ids)
        if block:
            _block_part(&c, d, d.nodes[s].text_off, d.nodes[s].text_len, rcc, xml_text)
        else:
            _plain_part(&c, d, d.nodes[s].text_off, d.nodes[s].text_len)
        while True:
            if c.err:
                _raise_doc_error_code(c.err)
            if d.nodes[s].first >= 0:
                s = d.nodes[s].first
                if _is_block(d.nodes[s].tag, ids, n_ids):
                    _block_part(&c, d, d.nodes[s].text_off, d.nodes[s].text_len, rcc, xml_text)
                else:
                    _plain_part(&c, d, d.nodes[s].text_off, d.nodes[s].text_len)
                continue
            while True:
                if s == top:
                    break
                if _is_block(d.nodes[s].tag, ids, n_ids):
                    _block_part(&c, d, d.nodes[s].tail_off, d.nodes[s].tail_len, rcc, xml_text)
                else:
                    _plain_part(&c, d, d.nodes[s].tail_off, d.nodes[s].tail_len)
                if d.nodes[s].next >= 0:
                    s = d.nodes[s].next
                    if _is_block(d.nodes[s].tag, ids, n_ids):
                        _block_part(&c, d, d.nodes[s].text_off, d.nodes[s].text_len, rcc, xml_text)
                    else:
                        _plain_part(&c, d, d.nodes[s].text_off, d.nodes[s].text_len)
                    break
                s = d.nodes[s].parent
            if s == top:
                break
        if c.err:
            _raise_doc_error_code(c.err)
        return PyUnicode_DecodeUTF8(<const char*>c.out.data, c.out.len, NULL)
    finally:
        buf_free(&c.out)


cdef inline void _plain_part(Collapse* c, DocData* d, int32_t off, int32_t n) noexcept nogil:
    if off >= 0 and n > 0:
        _collapse_feed(c, d.text.data + off, n)


cdef _raise_doc_error_code(int err):
    if err == ERR_TOO_LARGE:
        raise MemoryError("text too large for the compiled core (arenas are limited to 2 GiB)")
    raise MemoryError("out of memory")


# -- class_weight -------------------------------------------------------------------------
# positiveRe and negativeRe are alternations of lower-case ASCII literals with
# re.IGNORECASE, searched in the class and in the id value separately. On an
# ASCII subject IGNORECASE folds ASCII letters only (its non-ASCII
# equivalences, such as U+017F ~ s and U+212A ~ k, need a non-ASCII subject
# character), so the search is an ASCII-lowered substring test; a value with a
# non-ASCII byte goes to the caller's Python weight.

POSITIVE_WORDS = ("article", "body", "content", "entry", "hentry", "main", "page", "pagination", "post", "text",
                  "blog", "story")
NEGATIVE_WORDS = ("button", "combx", "comment", "com-", "contact", "figure", "foot", "footer", "footnote", "form",
                  "input", "masthead", "media", "meta", "outbrain", "promo", "related", "scroll", "shoutbox",
                  "sidebar", "sponsor", "shopping", "tags", "tool", "widget")
cdef bytes _POSITIVE_BLOB = b"\0".join(w.encode("ascii") for w in POSITIVE_WORDS)
cdef bytes _NEGATIVE_BLOB = b"\0".join(w.encode("ascii") for w in NEGATIVE_WORDS)
cdef WordSet _POSITIVE_SET
cdef WordSet _NEGATIVE_SET
_wordset_init(&_POSITIVE_SET, _POSITIVE_BLOB, POSITIVE_WORDS)
_wordset_init(&_NEGATIVE_SET, _NEGATIVE_BLOB, NEGATIVE_WORDS)


cdef inline long _attr_weight_ascii(const uchar* s, Py_ssize_t n) noexcept nogil:
    """_attribute_weight of a non-empty value without a non-ASCII byte."""
    cdef long weight = 0
    if _contains_any(s, n, &_NEGATIVE_SET):
        weight -= 25
    if _contains_any(s, n, &_POSITIVE_SET):
        weight += 25
    return weight


cdef inline bint _class_value(DocData* d, int32_t i, int32_t nid, const uchar** s, Py_ssize_t* n) noexcept nogil:
    """``i.get(name)`` for ``nid`` as bytes (a valueless boolean attribute reads as its own
    name); False when absent or empty (class_weight skips those)."""
    cdef int32_t k
    if not _attr_bytes(d, i, nid, s, n):
        if n[0] < 0:
            k = dom_attr_find(d, i, nid)
            s[0] = name_bytes(d, d.attrs[k].name, n)
        else:
            return False
    return n[0] > 0


cdef bint _class_weight_c(DocData* d, int32_t i, int32_t class_id, int32_t id_id, long* out) noexcept nogil:
    """class_weight of node ``i`` into ``out``; False (``out`` unset) when a value holds a
    non-ASCII byte (re.IGNORECASE's non-ASCII equivalences: the reference decides)."""
    cdef const uchar* s
    cdef Py_ssize_t n
    cdef long weight = 0
    cdef int which
    for which in range(2):
        if not _class_value(d, i, class_id if which == 0 else id_id, &s, &n):
            continue
        if _has_high_byte(s, n):
            return False
        weight += _attr_weight_ascii(s, n)
    out[0] = weight
    return True


cdef long _class_weight_of(CDocument doc, int32_t i, int32_t class_id, int32_t id_id,
                           object attribute_weight) except? -1:
    """class_weight of node ``i`` (``class_id``/``id_id``: the document's ids of
    "class" and "id", -1 when it has none)."""
    cdef DocData* d = &doc.d
    cdef int32_t which
    cdef const uchar* s
    cdef Py_ssize_t n
    cdef long weight = 0
    if _class_weight_c(d, i, class_id, id_id, &weight):
        return weight
    for which in range(2):
        if not _class_value(d, i, class_id if which == 0 else id_id, &s, &n):
            continue
        if _has_high_byte(s, n):
            weight += <long>attribute_weight(utf8_str(s, n))
        else:
            weight += _attr_weight_ascii(s, n)
    return weight


# upstream: trafilatura.readability_lxml.Document.class_weight
def class_weight(CElement el not None, object attribute_weight):
    """readability's ``class_weight``: for the class and the id value (when
    not empty), -25 when negativeRe finds a match, +25 when positiveRe does;
    ``attribute_weight(value)`` gives that for a value the C matcher does not
    decide (a non-ASCII byte, or a valueless attribute read as its name)."""
    cdef CDocument doc = el.doc
    doc._check(el.idx)
    return _class_weight_of(doc, el.idx, _lookup(doc, "class"), _lookup(doc, "id"), attribute_weight)


# -- drop_tree ------------------------------------------------------------------------------
# treeops.drop_tree on a core element is dom_drop_tree, except where lxml's
# text check refuses the joined string (a parsed text may hold a refused
# character: C0 controls but tab, LF, CR; U+FFFE, U+FFFF) and for a
# parentless element (an assertion): those go to the reference drop_tree.

cdef inline bint _xml_refused(DocData* d, int32_t off, int32_t n) noexcept nogil:
    cdef int32_t k
    cdef uchar b
    cdef const uchar* s
    if off < 0:
        return False
    s = d.text.data + off
    for k in range(n):
        b = s[k]
        if b < 0x20 and b != 9 and b != 10 and b != 13:
            return True
        if b == 0xEF and k + 2 < n and s[k + 1] == 0xBF and (s[k + 2] == 0xBE or s[k + 2] == 0xBF):
            return True
    return False


def drop_trees(object elements, object drop_tree):
    """``drop_tree(el)`` for each element in order, in C where it is exact."""
    cdef CElement el
    cdef DocData* d
    cdef Node* nd
    cdef int32_t i
    for obj in elements:
        el = <CElement?>obj
        d = &el.doc.d
        i = el.idx
        el.doc._check(i)
        nd = &d.nodes[i]
        if nd.parent < 0:
            drop_tree(el)
            continue
        if nd.tail_off >= 0 and nd.tail_len > 0:
            if _xml_refused(d, nd.tail_off, nd.tail_len):
                drop_tree(el)
                continue
            if nd.prev >= 0:
                if _xml_refused(d, d.nodes[nd.prev].tail_off, d.nodes[nd.prev].tail_len):
                    drop_tree(el)
                    continue
            elif _xml_refused(d, d.nodes[nd.parent].text_off, d.nodes[nd.parent].text_len):
                drop_tree(el)
                continue
        if not dom_drop_tree(d, i):
            _raise_doc_error(el.doc)


def text_content_length(CElement el not None):
    """``len(el.text_content())`` without making the string (both releases'
    prune_unwanted_nodes): the code points of what _stats_walk feeds (an arena
    holds no surrogate, so one non-continuation byte is one code point)."""
    cdef DocData* d = &el.doc.d
    cdef int32_t top = el.idx, s
    cdef Py_ssize_t k = 0
    el.doc._check(top)
    with nogil:
        s = top
        if d.nodes[s].text_off >= 0:
            k += ngs_code_points(d.text.data + d.nodes[s].text_off, d.nodes[s].text_len)
        while True:
            if d.nodes[s].first >= 0:
                s = d.nodes[s].first
                if d.nodes[s].text_off >= 0:
                    k += ngs_code_points(d.text.data + d.nodes[s].text_off, d.nodes[s].text_len)
                continue
            while s != top:
                if d.nodes[s].tail_off >= 0:
                    k += ngs_code_points(d.text.data + d.nodes[s].tail_off, d.nodes[s].tail_len)
                if d.nodes[s].next >= 0:
                    s = d.nodes[s].next
                    if d.nodes[s].text_off >= 0:
                        k += ngs_code_points(d.text.data + d.nodes[s].text_off, d.nodes[s].text_len)
                    break
                s = d.nodes[s].parent
            if s == top:
                break
    return k


# -- text_content -----------------------------------------------------------------------------

cdef inline bint _buf_slot(Buf* b, DocData* d, int32_t off, int32_t n, int* err) noexcept nogil:
    if off >= 0 and n > 0:
        return buf_append(b, d.text.data + off, n, err)
    return True


def text_content(CElement el not None):
    """``"".join(el.itertext())`` (lxml.html's ``text_content()``): the slices
    of text_content() order (see _stats_walk) joined in one UTF-8 buffer,
    decoded once."""
    cdef DocData* d = &el.doc.d
    cdef int32_t top = el.idx, s
    cdef Buf b
    cdef int err = 0
    el.doc._check(top)
    memset(&b, 0, sizeof(Buf))
    try:
        with nogil:
            s = top
            _buf_slot(&b, d, d.nodes[top].text_off, d.nodes[top].text_len, &err)
            while not err:
                if d.nodes[s].first >= 0:
                    s = d.nodes[s].first
                    _buf_slot(&b, d, d.nodes[s].text_off, d.nodes[s].text_len, &err)
                    continue
                while s != top:
                    _buf_slot(&b, d, d.nodes[s].tail_off, d.nodes[s].tail_len, &err)
                    if d.nodes[s].next >= 0:
                        s = d.nodes[s].next
                        _buf_slot(&b, d, d.nodes[s].text_off, d.nodes[s].text_len, &err)
                        break
                    s = d.nodes[s].parent
                if s == top:
                    break
        if err:
            _raise_doc_error_code(err)
        return PyUnicode_DecodeUTF8(<const char*>b.data, b.len, NULL)
    finally:
        buf_free(&b)


# -- Document stages in C (score_paragraphs, sanitize's loops, the drops) ---------------------------
# The loops of readability's Document over the node arrays: proxies are made
# only for what goes back to Python (candidate keys, elements handed to the
# reference drop_tree where a joined string must be checked by its setters).
# Float arithmetic is C doubles in the order of operations of the Python code;
# the values that are Python ints there (class weights, tag scores, scores of
# parents before a float part is added, counts) are integers below 2**52 in
# doubles, so the sums are exact and equal (a larger one falls back).

from cpython.dict cimport PyDict_GetItem
from cpython.float cimport PyFloat_CheckExact, PyFloat_AS_DOUBLE

cdef double _EXACT_LIMIT = 4503599627370496.0   # 2**52
_MIN_LEN_LOW = -(2 ** 62)
_MIN_LEN_HIGH = 2 ** 62


cdef inline int32_t _preorder_next(DocData* d, int32_t i, int32_t root) noexcept nogil:
    """The node after ``i`` in the preorder of ``root``'s subtree, -1 after the last."""
    if d.nodes[i].first >= 0:
        return d.nodes[i].first
    while i != root and d.nodes[i].next < 0:
        i = d.nodes[i].parent
    if i == root or i < 0:
        return -1
    return d.nodes[i].next


cdef double _link_density_of(DocData* d, int32_t root, int32_t a_id) noexcept nogil:
    """``link_density`` (get_link_density) of node ``root``."""
    cdef Py_ssize_t total = _text_length_of(d, root), links = 0
    cdef int32_t i
    if total == 0:
        total = 1
    if a_id < 0:
        return 0.0
    i = _preorder_next(d, root, root)
    while i >= 0:
        if d.nodes[i].tag == a_id:
            links += _text_length_of(d, i)
        i = _preorder_next(d, i, root)
    return <double>links / <double>total


cdef int32_t _snapshot(DocData* d, int32_t root, const int32_t* ids, int n_ids, bint include_self,
                       int32_t* out, int32_t room=-1) noexcept nogil:
    """The nodes of ``root``'s subtree (``root`` itself when ``include_self``)
    whose tag is one of ``ids``, in document order, into ``out`` (room for
    ``room`` nodes, n_nodes when -1); their count (``_preorder(root, names,
    include_self)``), -1 when they do not fit."""
    cdef int32_t i, n = 0
    if room < 0:
        room = d.n_nodes
    i = root if include_self else _preorder_next(d, root, root)
    while i >= 0:
        if _id_in(d.nodes[i].tag, ids, n_ids):
            if n >= room:
                return -1
            out[n] = i
            n += 1
        i = _preorder_next(d, i, root)
    return n


cdef int32_t* _alloc_nodes(DocData* d, Py_ssize_t per_node) except NULL:
    cdef size_t size = <size_t>(d.n_nodes if d.n_nodes > 0 else 1) * <size_t>per_node
    cdef int32_t* p = NULL if alloc_fails() else <int32_t*>malloc(size)
    if p == NULL:
        raise MemoryError("out of memory")
    return p


cdef int _rd_drop(CDocument doc, int32_t i, object drop_tree) except -1:
    """``drop_tree(node i)`` as ``drop_trees`` does it: in C where the joined
    string is certain to pass lxml's check, else through the reference function."""
    cdef DocData* d = &doc.d
    cdef int32_t parent = d.nodes[i].parent, prev = d.nodes[i].prev
    if parent < 0:
        drop_tree(_proxy(doc, i))
        return 0
    if d.nodes[i].tail_off >= 0 and d.nodes[i].tail_len > 0:
        if (_xml_refused(d, d.nodes[i].tail_off, d.nodes[i].tail_len)
                or (prev >= 0 and _xml_refused(d, d.nodes[prev].tail_off, d.nodes[prev].tail_len))
                or (prev < 0 and _xml_refused(d, d.nodes[parent].text_off, d.nodes[parent].text_len))):
            drop_tree(_proxy(doc, i))
            return 0
    if not dom_drop_tree(d, i):
        _raise_doc_error(doc)
    return 0


cdef bint _nested_matches(DocData* d, int32_t top, const int32_t* snap, int32_t n, const int32_t* ids,
                          int n_ids) noexcept nogil:
    """Some node of the snapshot of ``top``'s subtree is ``top`` or lies inside
    another match. Otherwise a live lxml iteration that drops each match as
    it is handed out meets the same nodes as the snapshot: its next match is
    found (before the drop) after the dropped subtree, where nothing moved."""
    cdef int32_t k, a
    for k in range(n):
        if snap[k] == top:
            return True
        a = d.nodes[snap[k]].parent
        while a >= 0 and a != top:
            if _id_in(d.nodes[a].tag, ids, n_ids):
                return True
            a = d.nodes[a].parent
    return False


def rd_drop_tagged(CElement top not None, object names, object drop_tree, bint live=False):
    """``_drop_all(top, _preorder(top, names))``: drop_tree on each element of
    ``top``'s subtree (``top`` included) whose tag is in ``names``, in
    document order of a snapshot taken first; NotImplemented for too many names.
    ``live``: ``for el in top.iter(*names): drop_tree(el)`` instead (lxml's
    live iterator), NotImplemented (nothing done) when a match is ``top`` or
    holds another one."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[MAX_NAME_SET]
    cdef int n_ids
    cdef int32_t* snap = NULL
    cdef int32_t n, k
    doc._check(top.idx)
    if not isinstance(names, (set, frozenset, tuple, list)):
        names = tuple(names)
    n_ids = _name_ids(doc, names, ids)
    if n_ids < 0:
        return NotImplemented
    if n_ids == 0:
        return None
    snap = _alloc_nodes(d, sizeof(int32_t))
    try:
        n = _snapshot(d, top.idx, ids, n_ids, True, snap)
        if live and _nested_matches(d, top.idx, snap, n, ids, n_ids):
            return NotImplemented
        for k in range(n):
            _rd_drop(doc, snap[k], drop_tree)
    finally:
        free(snap)
    return None


cdef struct Seg:
    # what a run of text contributes to trim(): see TextStats; ``has``: it holds
    # a character; ``first_word``/``last_word``: its first/last character is no whitespace
    int64_t nonws
    int64_t words
    int64_t commas
    bint has
    bint first_word
    bint last_word


cdef inline void _seg_slice(Seg* g, DocData* d, int32_t off, int32_t n) noexcept nogil:
    """``g`` = the summary of the slice (off, n) of the text arena."""
    cdef TextStats t
    cdef const uchar* s
    memset(g, 0, sizeof(Seg))
    if off < 0 or n <= 0:
        return
    s = d.text.data + off
    memset(&t, 0, sizeof(TextStats))
    _stats_feed(&t, s, n)
    g.nonws = t.nonws
    g.words = t.words
    g.commas = t.commas
    g.has = True
    g.last_word = t.in_word
    if s[0] < 0x80:
        g.first_word = not _ascii_space(s[0])
    else:
        g.first_word = _ws_len(s, 0, n) == 0


cdef inline void _seg_append(Seg* a, const Seg* b) noexcept nogil:
    """``a`` = the summary of a's text followed by b's (words that meet are one)."""
    if not b.has:
        return
    if not a.has:
        a[0] = b[0]
        return
    a.nonws += b.nonws
    a.commas += b.commas
    a.words += b.words - (1 if (a.last_word and b.first_word) else 0)
    a.last_word = b.last_word


cdef inline int64_t _seg_trim_length(const Seg* g) noexcept nogil:
    return g.nonws + g.words - 1 if g.words > 0 else 0


cdef void _text_table(DocData* d, int32_t top, int32_t a_id, Seg* acc, int64_t* length,
                      int64_t* links) noexcept nogil:
    """For every node x of ``top``'s subtree: acc[x] the summary of
    ``text_content(x)``, length[x] = ``text_length(x)``, links[x] the sum of
    ``text_length`` over x's ``a`` descendants (get_link_density's numerator),
    in one pass over the subtree's text (children are summed into their
    parent as they are left, in document order)."""
    cdef int32_t i = top, p
    cdef Seg tail
    _seg_slice(&acc[i], d, d.nodes[i].text_off, d.nodes[i].text_len)
    links[i] = 0
    while True:
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            _seg_slice(&acc[i], d, d.nodes[i].text_off, d.nodes[i].text_len)
            links[i] = 0
            continue
        while True:
            # leave i: its summary is complete
            length[i] = _seg_trim_length(&acc[i])
            if i == top:
                return
            p = d.nodes[i].parent
            if p < 0:
                return
            _seg_append(&acc[p], &acc[i])
            _seg_slice(&tail, d, d.nodes[i].tail_off, d.nodes[i].tail_len)
            _seg_append(&acc[p], &tail)
            links[p] += links[i] + (length[i] if d.nodes[i].tag == a_id else 0)
            if d.nodes[i].next >= 0:
                i = d.nodes[i].next
                _seg_slice(&acc[i], d, d.nodes[i].text_off, d.nodes[i].text_len)
                links[i] = 0
                break
            i = p


cdef struct RdScore:
    # score_paragraphs over node indexes: the candidates dict as arrays
    int32_t* slot       # per node: its candidate number, or -1
    int32_t* cand       # per candidate number (insertion order): the node
    int32_t* inc_par    # per counted paragraph: the parent's and grandparent's candidate numbers
    int32_t* inc_gp
    double* inc         # and its score
    double* score       # per candidate number
    Seg* acc
    int64_t* length
    int64_t* links
    int32_t n_cand
    int32_t n_inc
    int32_t n_nodes     # the document's node count when allocated (the arrays' length)


cdef inline void* _rd_alloc_nodes(DocData* d, size_t per_node) noexcept nogil:
    if alloc_fails():
        return NULL
    return malloc(<size_t>(d.n_nodes if d.n_nodes > 0 else 1) * per_node)


cdef void _rd_score_free(RdScore* r) noexcept nogil:
    free(r.slot)
    free(r.cand)
    free(r.inc_par)
    free(r.inc_gp)
    free(r.inc)
    free(r.score)
    free(r.acc)
    free(r.length)
    free(r.links)
    memset(r, 0, sizeof(RdScore))


cdef bint _rd_score_alloc(DocData* d, RdScore* r) noexcept nogil:
    """Room for the arrays (sized to the document's nodes now); False without memory (then
    _rd_score_free is still due)."""
    memset(r, 0, sizeof(RdScore))
    r.n_nodes = d.n_nodes
    r.slot = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    r.cand = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    r.inc_par = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    r.inc_gp = <int32_t*>_rd_alloc_nodes(d, sizeof(int32_t))
    r.inc = <double*>_rd_alloc_nodes(d, sizeof(double))
    r.score = <double*>_rd_alloc_nodes(d, sizeof(double))
    r.acc = <Seg*>_rd_alloc_nodes(d, sizeof(Seg))
    r.length = <int64_t*>_rd_alloc_nodes(d, sizeof(int64_t))
    r.links = <int64_t*>_rd_alloc_nodes(d, sizeof(int64_t))
    return (r.slot != NULL and r.cand != NULL and r.inc_par != NULL and r.inc_gp != NULL and r.inc != NULL
            and r.score != NULL and r.acc != NULL and r.length != NULL and r.links != NULL)


cdef bint _rd_score_collect(DocData* d, int32_t root, long long min_len, const int32_t* ids, int n_ids,
                            int32_t a_id, RdScore* r) noexcept nogil:
    """score_paragraphs' loop over the p/pre/td (``ids``) of ``root``'s subtree: the candidates
    in insertion order and each counted paragraph's increment; the text lengths and link
    numerators from one _text_table over the subtree of ``root``'s grandparent (every
    candidate is in it). True when an increment is too large for exact doubles."""
    cdef int32_t base_top = root, i, parent, gp
    cdef double q, s
    cdef bint inexact = False
    if d.nodes[base_top].parent >= 0:
        base_top = d.nodes[base_top].parent
        if d.nodes[base_top].parent >= 0:
            base_top = d.nodes[base_top].parent
    _text_table(d, base_top, a_id, r.acc, r.length, r.links)
    memset(r.slot, 0xFF, <size_t>d.n_nodes * sizeof(int32_t))
    r.n_cand = 0
    r.n_inc = 0
    i = root
    while i >= 0:
        if _id_in(d.nodes[i].tag, ids, n_ids):
            parent = d.nodes[i].parent
            if parent >= 0 and r.length[i] >= min_len:
                gp = d.nodes[parent].parent
                if r.slot[parent] < 0:
                    r.slot[parent] = r.n_cand
                    r.cand[r.n_cand] = parent
                    r.n_cand += 1
                if gp >= 0 and r.slot[gp] < 0:
                    r.slot[gp] = r.n_cand
                    r.cand[r.n_cand] = gp
                    r.n_cand += 1
                # 1 + len(text.split(",")) + min(len(text) / 100, 3)
                q = <double>r.length[i] / 100.0
                s = <double>(2 + r.acc[i].commas) + (3.0 if 3.0 < q else q)
                if s >= _EXACT_LIMIT:
                    inexact = True
                r.inc_par[r.n_inc] = r.slot[parent]
                r.inc_gp[r.n_inc] = r.slot[gp] if gp >= 0 else -1
                r.inc[r.n_inc] = s
                r.n_inc += 1
        i = _preorder_next(d, i, root)
    return inexact


cdef bint _rd_score_finish(RdScore* r) noexcept nogil:
    """The increments added to the candidates' base scores (score[c], set by the caller), in
    the Python loop's order, then each scaled by 1 - its link density. True when a sum leaves
    the exact range."""
    cdef int32_t k, c
    cdef int64_t total
    cdef bint inexact = False
    for k in range(r.n_inc):
        r.score[r.inc_par[k]] += r.inc[k]
        if not (-_EXACT_LIMIT < r.score[r.inc_par[k]] < _EXACT_LIMIT):
            inexact = True
        if r.inc_gp[k] >= 0:
            r.score[r.inc_gp[k]] += r.inc[k] / 2.0
    # scale by link density (get_link_density: links / (text_length or 1))
    for c in range(r.n_cand):
        total = r.length[r.cand[c]]
        if total == 0:
            total = 1
        r.score[c] *= 1.0 - <double>r.links[r.cand[c]] / <double>total
    return inexact


# upstream: trafilatura.readability_lxml.Document.score_paragraphs
def rd_score_paragraphs(CElement top not None, object min_text_length, object attribute_weight, object tag_score,
                        object candidate_type):
    """readability's ``Document.score_paragraphs`` over ``top`` (the
    candidates dict: ``candidate_type(score, elem)`` per candidate, in the
    insertion order of the Python loop). ``tag_score(tag)`` is score_node's
    tag part (asked once per tag name), ``attribute_weight`` class_weight's
    Python part (_rd_score_collect, then the base scores, then _rd_score_finish).
    NotImplemented (nothing done) where the C doubles could differ from the
    Python numbers (a non-int minimum, huge integers)."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[3]
    cdef int n_ids = 0
    cdef int32_t root = top.idx, node, c, nid, a_id, class_id, id_id
    cdef RdScore r
    cdef long long min_len
    cdef bint inexact = False, ok
    cdef dict out = {}
    cdef dict tag_memo = {}
    doc._check(root)
    if type(min_text_length) is not int or not (_MIN_LEN_LOW < min_text_length < _MIN_LEN_HIGH):
        return NotImplemented
    min_len = min_text_length
    for name in ("p", "pre", "td"):
        nid = _lookup(doc, name)
        if nid >= 0:
            ids[n_ids] = nid
            n_ids += 1
    if n_ids == 0:
        return out
    a_id = _lookup(doc, "a")
    try:
        with nogil:
            ok = _rd_score_alloc(d, &r)
            if ok:
                inexact = _rd_score_collect(d, root, min_len, ids, n_ids, a_id, &r)
        if not ok:
            raise MemoryError("out of memory")
        if inexact:
            return NotImplemented
        # score_node: class_weight + the tag's score, Python ints
        class_id = _lookup(doc, "class")
        id_id = _lookup(doc, "id")
        for c in range(r.n_cand):
            node = r.cand[c]
            nid = d.nodes[node].tag
            ts = tag_memo.get(nid)
            if ts is None:
                ts = tag_memo[nid] = tag_score(doc.name_str(nid))
            base = _class_weight_of(doc, node, class_id, id_id, attribute_weight) + ts
            if type(base) is not int or not (-_EXACT_LIMIT < base < _EXACT_LIMIT):
                return NotImplemented
            r.score[c] = <double><long long>base
        with nogil:
            inexact = _rd_score_finish(&r)
        if inexact:
            return NotImplemented
        for c in range(r.n_cand):
            el = _proxy(doc, r.cand[c])
            out[el] = candidate_type(r.score[c], el)
        return out
    finally:
        _rd_score_free(&r)


HEADING_NAMES = ("h1", "h2", "h3", "h4", "h5", "h6")
CONDITIONAL_NAMES = ("table", "ul", "div", "aside", "header", "footer", "section")


# upstream: trafilatura.readability_lxml.Document.sanitize_tree
def rd_drop_headings(CElement node not None, object attribute_weight, object drop_tree, bint live=False):
    """sanitize's first loop: each h1-h6 of ``node``'s subtree (``node``
    included; a snapshot, document order) with a negative class weight or a
    link density above 0.33 is dropped (verdict and drop one after the other).
    ``live``: 1.11.0's loop over lxml's live ``node.iter(h1...h6)``; NotImplemented
    (nothing done) when a heading is ``node`` or holds another one (see
    _nested_matches)."""
    cdef CDocument doc = node.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[6]
    cdef int n_ids
    cdef int32_t* snap = NULL
    cdef int32_t n, k, i, class_id, id_id, a_id
    doc._check(node.idx)
    n_ids = _name_ids(doc, HEADING_NAMES, ids)
    if n_ids == 0:
        return None
    class_id = _lookup(doc, "class")
    id_id = _lookup(doc, "id")
    a_id = _lookup(doc, "a")
    snap = _alloc_nodes(d, sizeof(int32_t))
    try:
        n = _snapshot(d, node.idx, ids, n_ids, True, snap)
        if live and _nested_matches(d, node.idx, snap, n, ids, n_ids):
            return NotImplemented
        for k in range(n):
            i = snap[k]
            if (_class_weight_of(doc, i, class_id, id_id, attribute_weight) < 0
                    or _link_density_of(d, i, a_id) > 0.33):
                _rd_drop(doc, i, drop_tree)
    finally:
        free(snap)
    return None


cdef Py_ssize_t _first_nonzero_sibling(DocData* d, int32_t j, bint preceding) noexcept nogil:
    cdef Py_ssize_t length
    while j >= 0:
        length = _text_length_of(d, j)
        if length:
            return length
        j = d.nodes[j].prev if preceding else d.nodes[j].next
    return 0


cdef inline bint _is_hidden_input(DocData* d, int32_t i, int32_t type_id) noexcept nogil:
    """``el.get("type") == "hidden"``."""
    cdef const uchar* s
    cdef Py_ssize_t n
    if not _attr_bytes(d, i, type_id, &s, &n):
        return False
    return n == 6 and memcmp(s, b"hidden", 6) == 0


cdef struct RdCondIds:
    # the document's ids of the names sanitize's conditional cleaning reads (-1: none)
    int32_t a_id
    int32_t type_id
    int32_t p_id
    int32_t img_id
    int32_t li_id
    int32_t embed_id
    int32_t input_id
    int32_t ol_id
    int32_t ul_id


cdef int _rd_cond_verdict(DocData* d, int32_t i, long weight, long long min_len, const RdCondIds* ci) noexcept nogil:
    """The conditional cleaning's verdict on node ``i`` (class weight ``weight``) when
    weight + score is not negative: 1 remove, 0 keep, 2 kept for no content between long
    siblings (1.11.0 exempts that subtree's nodes)."""
    cdef TextStats t
    cdef long long n_p, n_img, n_li, n_embed, n_input, hidden
    cdef Py_ssize_t content_length, links, total
    cdef double link_density
    cdef int32_t j, tag
    memset(&t, 0, sizeof(TextStats))
    _stats_walk(d, i, &t)
    if t.commas >= 10:
        return 0
    # one walk for the counts and get_link_density's numerator (the text
    # lengths of every ``a`` descendant, nested ones too); the stats walk
    # above is text_length(elem), its denominator (or 1)
    n_p = n_img = n_li = n_embed = n_input = hidden = 0
    links = 0
    j = _preorder_next(d, i, i)
    while j >= 0:
        tag = d.nodes[j].tag
        if tag == ci.a_id and ci.a_id >= 0:
            links += _text_length_of(d, j)
        elif tag == ci.p_id:
            n_p += 1
        elif tag == ci.img_id:
            n_img += 1
        elif tag == ci.li_id:
            n_li += 1
        elif tag == ci.embed_id:
            n_embed += 1
        elif tag == ci.input_id:
            n_input += 1
            if _is_hidden_input(d, j, ci.type_id):
                hidden += 1
        j = _preorder_next(d, j, i)
    n_li -= 100
    n_input -= hidden
    content_length = _trim_length(&t)
    total = content_length if content_length != 0 else 1
    link_density = <double>links / <double>total
    if n_p and <double>n_img > 1.0 + <double>n_p * 1.3:
        return 1  # too many images
    elif n_li > n_p and d.nodes[i].tag != ci.ol_id and d.nodes[i].tag != ci.ul_id:
        return 1  # more <li>s than <p>s
    elif <double>n_input > <double>n_p / 3.0:
        return 1  # less than 3x <p>s than <input>s
    elif content_length < min_len and n_img == 0:
        return 1  # too short content length without a single image
    elif content_length < min_len and n_img > 2:
        return 1  # too short content length and too many images
    elif link_density > (0.5 if weight >= 25 else 0.2):
        return 1  # too many links for its weight (1.11.0: the same, as two tests)
    elif (n_embed == 1 and content_length < 75) or n_embed > 1:
        return 1  # <embed>s with too short content length, or too many <embed>s
    elif not content_length:
        # kept between long neighbours: the nearest non-empty sibling on each
        # side (1.11.0 collects at most those two lengths, the same sum)
        if (_first_nonzero_sibling(d, d.nodes[i].next, False)
                + _first_nonzero_sibling(d, d.nodes[i].prev, True)) <= 1000:
            return 1
        return 2
    return 0


# upstream: trafilatura.readability_lxml.Document.sanitize_tree
def rd_clean_conditionally(CElement node not None, dict candidates not None, object min_text_length, object attribute_weight,
                           object drop_tree, object tops=None):
    """sanitize's conditional cleaning (2.3.1's ``sanitize_tree`` last loop):
    the tables, lists, divs, asides, headers, footers and sections of
    ``node``'s subtree (``node`` included), innermost last-first, each weighed
    and counted on the live tree and dropped when the Python loop drops it.
    With ``tops`` (1.11.0's ``sanitize``): the snapshot is those of the
    subtrees of ``tops`` (the document's top elements: its absolute XPath),
    and an empty element kept between long siblings exempts the tables, lists,
    divs and sections of its subtree (its ``allowed`` set: those nodes' proxies
    are the snapshot's, alive all along, so their ids stand for the nodes).
    NotImplemented (nothing done) when a candidate's score is not a float or
    a small int, the minimum is not a small int, or a top is of another document."""
    cdef CDocument doc = node.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[7]
    cdef int32_t allowed_ids[4]
    cdef int n_ids, n_allowed = 0
    cdef int32_t* snap = NULL
    cdef double* scores = NULL
    cdef uchar* allowed = NULL
    cdef int32_t n = 0, k, i, j, class_id, id_id, a_id
    cdef RdCondIds ci
    cdef long long min_len
    cdef long weight
    cdef int v
    cdef bint to_remove, old = tops is not None
    cdef PyObject* found
    cdef CElement top
    doc._check(node.idx)
    if type(min_text_length) is not int or not (_MIN_LEN_LOW < min_text_length < _MIN_LEN_HIGH):
        return NotImplemented
    if type(candidates) is not dict:
        return NotImplemented
    min_len = min_text_length
    if old:
        tops = list(tops)
        for obj in tops:
            if type(obj) is not CElement or (<CElement>obj).doc is not doc:
                return NotImplemented
    n_ids = _name_ids(doc, CONDITIONAL_NAMES, ids)
    if n_ids == 0:
        return None
    class_id = _lookup(doc, "class")
    id_id = _lookup(doc, "id")
    a_id = _lookup(doc, "a")
    ci.a_id = a_id
    ci.type_id = _lookup(doc, "type")
    ci.p_id = _lookup(doc, "p")
    ci.img_id = _lookup(doc, "img")
    ci.li_id = _lookup(doc, "li")
    ci.embed_id = _lookup(doc, "embed")
    ci.input_id = _lookup(doc, "input")
    ci.ol_id = _lookup(doc, "ol")
    ci.ul_id = _lookup(doc, "ul")
    snap = _alloc_nodes(d, sizeof(int32_t))
    try:
        if old:
            # ``//table|//ul|...`` from each top in turn; the subtrees are disjoint
            # (the tops are the document's), so the snapshot holds each node once
            for obj in tops:
                top = <CElement>obj
                doc._check(top.idx)
                k = _snapshot(d, top.idx, ids, n_ids, True, snap + n, d.n_nodes - n)
                if k < 0:
                    return NotImplemented  # a node twice: not the document's tops
                n += k
            n_allowed = _name_ids(doc, ("table", "ul", "div", "section"), allowed_ids)
            allowed = <uchar*>_alloc_nodes(d, 1)
            memset(allowed, 0, <size_t>d.n_nodes)
        else:
            n = _snapshot(d, node.idx, ids, n_ids, True, snap)
        scores = <double*>_alloc_nodes(d, sizeof(double))
        # ``candidates[elem].score if elem in candidates else 0``: a node without
        # a live proxy cannot be a key (a key is a live proxy)
        for k in range(n):
            i = snap[k]
            scores[k] = 0.0
            if i < doc.cap_proxies and doc.proxies[i] != NULL:
                found = PyDict_GetItem(candidates, <object>doc.proxies[i])
                if found != NULL:
                    value = (<object>found).score
                    if PyFloat_CheckExact(value):
                        scores[k] = PyFloat_AS_DOUBLE(value)
                    elif type(value) is int and -_EXACT_LIMIT < value < _EXACT_LIMIT:
                        scores[k] = <double><long long>value
                    else:
                        return NotImplemented
        for k in range(n - 1, -1, -1):
            i = snap[k]
            if old and allowed[i]:
                continue
            weight = _class_weight_of(doc, i, class_id, id_id, attribute_weight)
            if <double>weight + scores[k] < 0.0:
                _rd_drop(doc, i, drop_tree)
                continue
            v = _rd_cond_verdict(d, i, weight, min_len, &ci)
            to_remove = v == 1
            if old and v == 2:
                j = i
                while j >= 0:
                    if _id_in(d.nodes[j].tag, allowed_ids, n_allowed):
                        allowed[j] = 1
                    j = _preorder_next(d, j, i)
            if to_remove:
                _rd_drop(doc, i, drop_tree)
    finally:
        free(snap)
        free(scores)
        free(allowed)
    return None


# -- transform_misused_divs_into_paragraphs, both loops in C ----------------------------------------
# Step 1 as misused_divs / divs_without_tags (all verdicts first, then the
# renames: nodes[i].tag = the id of "p", what ``elem.tag = "p"`` stores).
# Step 2 over the divs misused_divs(step2=True) lists, each in turn on the
# live tree as the Python loop body does it: a non-blank text (str.strip())
# moves into a new <p> inserted first; then over a snapshot of the children,
# last first, a non-blank tail moves into a new <p> inserted right after its
# child (``insert(pos + 1)``: the children before ``pos`` have not moved),
# and a <br> child is dropped (drop_tree; _rd_drop). The new <p> is what the
# Python path leaves in the tree: a node without attributes whose text is the
# moved string (here the same arena slice) and without tail. A div where a
# string to move holds a character lxml's setter refuses (the Python path
# raises ValueError there) goes to ``wrap_one(div)``, the reference's body.

cdef inline bint _div_slots_refused(DocData* d, int32_t div) noexcept nogil:
    cdef int32_t c
    if _xml_refused(d, d.nodes[div].text_off, d.nodes[div].text_len):
        return True
    c = d.nodes[div].first
    while c >= 0:
        if _xml_refused(d, d.nodes[c].tail_off, d.nodes[c].tail_len):
            return True
        c = d.nodes[c].next
    return False


cdef int _wrap_div_c(DocData* d, int32_t div, int32_t p_id, int32_t br_id, int32_t** kids,
                     Py_ssize_t* cap) noexcept nogil:
    """_wrap_loose_text on ``div``: 0 done, -1 out of memory, 1 where the reference raises
    ValueError (a string to move, or a joined tail of a dropped <br>, holds a character lxml
    refuses): the steps before it done, as the reference leaves them."""
    cdef int32_t p, c, child, nk = 0, pos
    cdef int32_t* grown
    cdef int r
    if _has_non_space(d, d.nodes[div].text_off, d.nodes[div].text_len):
        if _xml_refused(d, d.nodes[div].text_off, d.nodes[div].text_len):
            return 1
        p = dom_new_node(d, p_id, -1)
        if p < 0:
            return -1
        d.nodes[p].text_off = d.nodes[div].text_off
        d.nodes[p].text_len = d.nodes[div].text_len
        d.nodes[div].text_off = -1
        d.nodes[div].text_len = 0
        dom_link_before(d, div, p, d.nodes[div].first)
    c = d.nodes[div].first
    while c >= 0:
        if nk >= cap[0]:
            grown = NULL if alloc_fails() else <int32_t*>realloc(kids[0], <size_t>(2 * cap[0] + 16) * sizeof(int32_t))
            if grown == NULL:
                d.error = ERR_MEMORY
                return -1
            kids[0] = grown
            cap[0] = 2 * cap[0] + 16
        kids[0][nk] = c
        nk += 1
        c = d.nodes[c].next
    for pos in range(nk - 1, -1, -1):
        child = kids[0][pos]
        if _has_non_space(d, d.nodes[child].tail_off, d.nodes[child].tail_len):
            if _xml_refused(d, d.nodes[child].tail_off, d.nodes[child].tail_len):
                return 1
            p = dom_new_node(d, p_id, -1)
            if p < 0:
                return -1
            d.nodes[p].text_off = d.nodes[child].tail_off
            d.nodes[p].text_len = d.nodes[child].tail_len
            d.nodes[child].tail_off = -1
            d.nodes[child].tail_len = 0
            dom_link_before(d, div, p, d.nodes[child].next)
        if d.nodes[child].tag == br_id:
            r = _drop_tree_c(d, child)
            if r != 1:
                return 1 if r == 0 else -1
    return 0


cdef int _wrap_div(CDocument doc, int32_t div, int32_t p_id, int32_t br_id, int32_t** kids, Py_ssize_t* cap,
                   object drop_tree) except -1:
    # the caller checked the div's strings (_div_slots_refused): no step can raise
    cdef int r = _wrap_div_c(&doc.d, div, p_id, br_id, kids, cap)
    if r < 0:
        if doc.d.error:
            _raise_doc_error(doc)
        raise MemoryError("out of memory")
    if r > 0:
        raise AssertionError("_wrap_div on a div with refused strings")
    return 0


cdef inline bint _div_loose_xml(DocData* d, int32_t div) noexcept nogil:
    """XPath ``text()[normalize-space()]`` of the div is not empty (see _div_to_p)."""
    cdef int32_t c
    if _has_non_xml_space(d, d.nodes[div].text_off, d.nodes[div].text_len):
        return True
    c = d.nodes[div].first
    while c >= 0:
        if _has_non_xml_space(d, d.nodes[c].tail_off, d.nodes[c].tail_len):
            return True
        c = d.nodes[c].next
    return False


cdef inline uchar _own_flags(CDocument doc, int32_t nid, PrefixFlags* pf, object tag_flag, int32_t a_id) except 255:
    """Bit 1: the tag stops a div's renaming (2.3.1: a DIV_TO_P_PREFIXES prefix;
    1.11.0: ``tag_flag(name)``, asked once per name); bit 2: it is ``a``."""
    cdef uchar bits = 0
    if tag_flag is None:
        if _prefix_flag(&doc.d, pf, nid):
            bits = 1
        if nid == a_id:
            bits |= 2
        return bits
    if nid < 0 or nid >= pf.n:
        raise AssertionError("tag id out of range")
    if pf.flags[nid] < 0:
        pf.flags[nid] = 1 if tag_flag(doc.name_str(nid)) else 0
    return 1 if pf.flags[nid] else 0


cdef void _descendant_flags_c(DocData* d, int32_t root, uchar* acc, PrefixFlags* pf, int32_t a_id) noexcept nogil:
    """2.3.1's acc[x] for every x of ``root``'s subtree: the OR over x's strict descendants of
    bit 1 (the tag starts with a DIV_TO_P_PREFIXES prefix) and bit 2 (it is ``a``), each node
    added into its parent as it is left."""
    cdef int32_t i = root, p, nid
    cdef uchar own
    acc[root] = 0
    while True:
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            acc[i] = 0
            continue
        while True:
            if i == root:
                return
            p = d.nodes[i].parent
            if p < 0:
                return
            nid = d.nodes[i].tag
            own = (1 if _prefix_flag(d, pf, nid) else 0) | (2 if nid == a_id else 0)
            acc[p] |= acc[i] | own
            if d.nodes[i].next >= 0:
                i = d.nodes[i].next
                acc[i] = 0
                break
            i = p


cdef int _descendant_flags(CDocument doc, int32_t root, uchar* acc, PrefixFlags* pf, object tag_flag,
                           int32_t a_id) except -1:
    """acc[x] = the OR of _own_flags over x's strict descendants, for every x of
    ``root``'s subtree (each node is added into its parent as it is left)."""
    cdef DocData* d = &doc.d
    cdef int32_t i = root, p
    if tag_flag is None:
        _descendant_flags_c(d, root, acc, pf, a_id)
        return 0
    acc[root] = 0
    while True:
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            acc[i] = 0
            continue
        while True:
            if i == root:
                return 0
            p = d.nodes[i].parent
            if p < 0:
                return 0
            acc[p] |= acc[i] | _own_flags(doc, d.nodes[i].tag, pf, tag_flag, a_id)
            if d.nodes[i].next >= 0:
                i = d.nodes[i].next
                acc[i] = 0
                break
            i = p


# upstream: trafilatura.readability_lxml.Document.transform_misused_divs_into_paragraphs
def rd_transform_misused_divs(CElement top not None, object wrap_one, object drop_tree, object tag_flag=None):
    """readability's ``transform_misused_divs_into_paragraphs`` on ``top``'s
    div descendants: 2.3.1's step 1 verdicts (misused_divs), or with
    ``tag_flag`` 1.11.0's (divs_without_tags), then step 2 (see above)."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t root = top.idx, i, div_id, a_id, br_id, p_id, n_divs = 0, k
    cdef int32_t* divs = NULL
    cdef int32_t* kids = NULL
    cdef uchar* acc = NULL
    cdef Py_ssize_t cap = 0, n_ids
    cdef PrefixFlags prefixes
    cdef bint hit
    doc._check(root)
    div_id = _lookup(doc, "div")
    if div_id < 0:
        return None
    a_id = _lookup(doc, "a")
    br_id = _lookup(doc, "br")
    p_id = _intern(doc, "p")
    n_ids = N_KNOWN + d.n_names
    prefixes.n = <int32_t>n_ids
    prefixes.flags = NULL if alloc_fails() else <signed char*>malloc(<size_t>n_ids)
    if prefixes.flags == NULL:
        raise MemoryError("out of memory")
    memset(prefixes.flags, 0xFF, <size_t>n_ids)
    try:
        divs = _alloc_nodes(d, sizeof(int32_t))
        # step 1: the verdicts (from one pass summing what each subtree holds), then the renames
        acc = <uchar*>_alloc_nodes(d, 1)
        _descendant_flags(doc, root, acc, &prefixes, tag_flag, a_id)
        i = _preorder_next(d, root, root)
        while i >= 0:
            if d.nodes[i].tag == div_id:
                if tag_flag is None:
                    hit = not (acc[i] & 1) and (not (acc[i] & 2) or _div_loose_xml(d, i))
                else:
                    hit = not (acc[i] & 1)
                if hit:
                    divs[n_divs] = i
                    n_divs += 1
            i = _preorder_next(d, i, root)
        for k in range(n_divs):
            d.nodes[divs[k]].tag = p_id
        # step 2: the divs left with work, then the work on each in turn
        n_divs = 0
        i = _preorder_next(d, root, root)
        while i >= 0:
            if d.nodes[i].tag == div_id and _div_has_loose_text(d, i, br_id):
                divs[n_divs] = i
                n_divs += 1
            i = _preorder_next(d, i, root)
        for k in range(n_divs):
            if _div_slots_refused(d, divs[k]):
                wrap_one(_proxy(doc, divs[k]))
            else:
                _wrap_div(doc, divs[k], p_id, br_id, &kids, &cap, drop_tree)
    finally:
        free(prefixes.flags)
        free(divs)
        free(kids)
        free(acc)
    return None


# -- summary() then reparse_summary, without the str --------------------------------------------------
# 2.3.1's try_readability parses ``summary().encode("utf8", "surrogatepass")``;
# summary() is the UTF-8 buffer of the XML serialiser decoded (the arenas hold
# valid UTF-8 and no surrogate), so those bytes are the buffer itself.

from cpython.bytes cimport PyBytes_FromStringAndSize


cdef bint _rd_xml_utf8_c(DocData* d, int32_t i, Buf* out) noexcept nogil:
    """The plain XML serialisation of node ``i`` and its tail into ``out``; False without memory."""
    if not xml_plain_c(out, d, i):
        return False
    return put_slice(out, &d.text, d.nodes[i].tail_off, d.nodes[i].tail_len, False, &d.error)


def rd_tostring_xml_utf8(CElement el not None):
    """``tostring_xml(el).encode("utf8", "surrogatepass")`` (the tail included),
    or None where tostring_xml hands the element to the reference serialiser
    (an XHTML doctype)."""
    cdef CDocument doc = el.doc
    cdef Buf out
    cdef bint ok
    doc._check(el.idx)
    info = doc.docinfo
    if info.has_doctype():
        from trafila.html import serialize
        if serialize.is_xhtml_doctype(info.public_id, info.system_url):
            return None
    memset(&out, 0, sizeof(Buf))
    with nogil:
        ok = _rd_xml_utf8_c(&doc.d, el.idx, &out)
    try:
        if not ok:
            _raise_doc_error(doc)
        return PyBytes_FromStringAndSize(<const char*>out.data, out.len) if out.len else b""
    finally:
        buf_free(&out)


# -- get_article's sibling loop ----------------------------------------------------------------------
# The verdicts only read each sibling's own subtree and text, and the
# candidates (keys are live proxies, kept by the moves), so they can all be
# taken before the first append moves a sibling out.

cdef inline bint _dot_space(const uchar* s, Py_ssize_t n) noexcept nogil:
    """``re.search(r"\\.( |$)", s)``: a "." followed by a space, by the end, or
    by a final newline (``$`` without MULTILINE)."""
    cdef Py_ssize_t i
    for i in range(n):
        if s[i] == 46:
            if i + 1 == n or s[i + 1] == 32 or (i + 2 == n and s[i + 1] == 10):
                return True
    return False


cdef bint _rd_p_sibling(DocData* d, int32_t c, int32_t a_id) noexcept nogil:
    """get_article's verdict on a ``p`` sibling that is not kept as a candidate: more than
    80 characters of text and a link density below 0.25, or 80 or fewer, no links and
    DOT_SPACE in its text."""
    cdef double density = _link_density_of(d, c, a_id)
    cdef int32_t off = d.nodes[c].text_off
    cdef int32_t n = d.nodes[c].text_len if off >= 0 else 0
    cdef Py_ssize_t length = ngs_code_points(d.text.data + off, n) if n > 0 else 0
    if length > 80:
        return density < 0.25
    return density == 0.0 and n > 0 and _dot_space(d.text.data + off, n)


cdef int _score_of(object value, double* out) except -1:
    """A candidate's score as a C double, 0 when it is not exactly one (then 1)."""
    if PyFloat_CheckExact(value):
        out[0] = PyFloat_AS_DOUBLE(value)
        return 1
    if type(value) is int and -_EXACT_LIMIT < value < _EXACT_LIMIT:
        out[0] = <double><long long>value
        return 1
    return 0


# upstream: trafilatura.readability_lxml.Document.get_article
def rd_article_siblings(CElement best not None, dict candidates not None, object threshold):
    """The children of ``best``'s parent (which it must have) that get_article
    appends to its output, in order: ``best`` itself, a candidate scoring at
    least ``threshold``, a ``p`` with more than 80 characters of text and a
    link density below 0.25, or a ``p`` with 80 or fewer, no links and
    DOT_SPACE in its text. NotImplemented (nothing done) when a score or the
    threshold is not a float or a small int."""
    cdef CDocument doc = best.doc
    cdef DocData* d = &doc.d
    cdef int32_t parent, c, p_id, a_id
    cdef double thr, score
    cdef PyObject* found
    cdef bint append
    cdef list out = []
    doc._check(best.idx)
    parent = d.nodes[best.idx].parent
    if parent < 0:
        return NotImplemented
    if not _score_of(threshold, &thr):
        return NotImplemented
    p_id = _lookup(doc, "p")
    a_id = _lookup(doc, "a")
    c = d.nodes[parent].first
    while c >= 0:
        append = c == best.idx
        if not append and c < doc.cap_proxies and doc.proxies[c] != NULL:
            found = PyDict_GetItem(candidates, <object>doc.proxies[c])
            if found != NULL:
                if not _score_of((<object>found).score, &score):
                    return NotImplemented
                append = score >= thr
                if append:
                    out.append(<object>doc.proxies[c])
                    c = d.nodes[c].next
                    continue
                # a candidate below the threshold: the elif below still applies
        if not append and d.nodes[c].tag == p_id and p_id >= 0:
            append = _rd_p_sibling(d, c, a_id)
        if append:
            out.append(_proxy(doc, c))
        c = d.nodes[c].next
    return out
