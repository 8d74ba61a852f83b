# Exact nogil twins of the text predicates 2.3.1's fast path still calls back into
# Python, over UTF-8 text as the C
# document stores it (doc.pxi):
#
#   re_filter_match_utf8        bool(text.RE_FILTER.match(s))
#   textfilter_value_utf8       text.textfilter's decision over its test text
#   textfilter_utf8             text.textfilter(element) over (text, tail), None kept apart
#   discussion_forum_posting_search_utf8
#                               bool(v2_3_1.core._DISCUSSION_FORUM_POSTING_RE.search(s))
#
# Character classes are CPython's own tables (Python.h's Py_UNICODE_* are table lookups,
# safe without the GIL): ``\W`` = not (Py_UNICODE_ISALNUM or '_'), ``\s`` and str.isspace =
# Py_UNICODE_ISSPACE, str.splitlines = Py_UNICODE_ISLINEBREAK with "\r\n" as one break,
# and re.IGNORECASE compares Py_UNICODE_TOLOWER (sre's simple lowercase) of the text's
# character with the pattern's lowercase letter. Valid UTF-8 is assumed; whatever the
# bytes, nothing is read outside s[0:n] (a cut or stray sequence reads as U+FFFD).
# tests/test_core_nogil_text.py compares each with Python. accel_extract.pxi's _ex_textfilter
# (process_node, handle_textnode, handle_paragraphs of 2.3.1 and 1.11.0, which share
# text.textfilter and RE_FILTER) calls textfilter_utf8 instead of the Python functions.

cdef extern from "Python.h" nogil:
    bint _nt_isalnum "Py_UNICODE_ISALNUM" (Py_UCS4 ch)
    bint _nt_isspace "Py_UNICODE_ISSPACE" (Py_UCS4 ch)
    bint _nt_islinebreak "Py_UNICODE_ISLINEBREAK" (Py_UCS4 ch)
    Py_UCS4 _nt_tolower "Py_UNICODE_TOLOWER" (Py_UCS4 ch)


cdef inline Py_ssize_t _nt_decode(const uchar* s, Py_ssize_t i, Py_ssize_t n, Py_UCS4* cp) noexcept nogil:
    """The code point at s[i] (0 <= i < n) and its byte length; a stray byte or a sequence
    the end of the buffer cuts reads as U+FFFD of one byte."""
    cdef uchar c = s[i]
    cdef Py_ssize_t w, k
    cdef unsigned int v
    if c < 0x80:
        cp[0] = c
        return 1
    if c >= 0xF8 or c < 0xC0:
        cp[0] = 0xFFFD
        return 1
    if c >= 0xF0:
        w = 4
        v = c & 0x07
    elif c >= 0xE0:
        w = 3
        v = c & 0x0F
    else:
        w = 2
        v = c & 0x1F
    if w > n - i:
        cp[0] = 0xFFFD
        return 1
    for k in range(1, w):
        v = (v << 6) | (s[i + k] & 0x3F)
    cp[0] = <Py_UCS4>v if v <= 0x10FFFF else 0xFFFD
    return w


# -- RE_FILTER ------------------------------------------------------------------------------
# \W*(Drucken|E-?Mail|Facebook|Flipboard|Google|Instagram|Linkedin|Mail|PDF|Pinterest|Pocket|
# Print|QQ|Reddit|Twitter|WeChat|WeiBo|Whatsapp|Xing|Mehr zum Thema:?|More on this.{,8}$)$, re.I
# The alternatives in lowercase, each optional character spelt out as two alternatives;
# the last one is followed by .{,8}$ (_NT_MORE_ON_THIS).

cdef extern from *:
    """
    static const char *const trafila_nt_filter_alts[23] = {
        "drucken", "e-mail", "email", "facebook", "flipboard", "google", "instagram",
        "linkedin", "mail", "pdf", "pinterest", "pocket", "print", "qq", "reddit",
        "twitter", "wechat", "weibo", "whatsapp", "xing", "mehr zum thema:",
        "mehr zum thema", "more on this"};
    """
    const char* const _NT_FILTER_ALTS "trafila_nt_filter_alts"[23]

cdef enum:
    _NT_MORE_ON_THIS = 22


cdef inline bint _nt_ignorecase_eq(Py_UCS4 cp, char pc) noexcept nogil:
    """Whether ``cp`` matches the pattern character ``pc`` (a lowercase letter or an
    uncased ASCII character) under re.IGNORECASE."""
    cdef Py_UCS4 lo
    if not (pc >= 97 and pc <= 122):
        return cp == <Py_UCS4>pc      # uncased: sre compares the code point itself
    lo = _nt_tolower(cp)
    if lo == <Py_UCS4>pc:
        return True
    # sre's extra cases (re._casefix._EXTRA_CASES): dotless i matches i, long s matches s
    return (pc == 105 and lo == 0x131) or (pc == 115 and lo == 0x17F)


cdef inline bint _nt_at_end(const uchar* s, Py_ssize_t p, Py_ssize_t n) noexcept nogil:
    "``$`` without MULTILINE: the end, or just before a final newline."
    return p >= n or (p == n - 1 and s[p] == 10)


cdef bint _nt_filter_at(const uchar* s, Py_ssize_t p, Py_ssize_t n) noexcept nogil:
    """Whether one alternative, then ``$``, matches s from byte p."""
    cdef Py_ssize_t q, k, a
    cdef Py_UCS4 cp
    cdef const char* lit
    for a in range(_NT_MORE_ON_THIS + 1):
        lit = _NT_FILTER_ALTS[a]
        q = p
        k = 0
        while lit[k] != 0:
            if q >= n:
                break
            q += _nt_decode(s, q, n, &cp)
            if not _nt_ignorecase_eq(cp, lit[k]):
                break
            k += 1
        if lit[k] != 0:
            continue
        if a == _NT_MORE_ON_THIS:
            # .{,8}$ then $: at most 8 characters, none of them "\n", up to the end
            k = 0
            while True:
                if _nt_at_end(s, q, n):
                    return True
                if k == 8 or s[q] == 10:
                    break
                q += _nt_decode(s, q, n, &cp)
                k += 1
        elif _nt_at_end(s, q, n):
            return True
    return False


cdef int re_filter_match_utf8(const uchar* s, Py_ssize_t n) noexcept nogil:
    """1 when text.RE_FILTER matches at the start of s[:n] (UTF-8), else 0."""
    cdef Py_ssize_t p = 0, w
    cdef Py_UCS4 cp, lo
    # \W* may stop at any character boundary up to the first word character
    while p < n:
        w = _nt_decode(s, p, n, &cp)
        lo = _nt_tolower(cp)
        # every alternative starts with a letter: only a character that folds to one can start it
        if (lo >= 97 and lo <= 122) or lo == 0x131 or lo == 0x17F:
            if _nt_filter_at(s, p, n):
                return 1
        if cp == 95 or _nt_isalnum(cp):
            return 0
        p += w
    return 0


# -- textfilter -------------------------------------------------------------------------------

cdef int textfilter_value_utf8(const uchar* s, Py_ssize_t n, bint is_none) noexcept nogil:
    """``not text_chars_test(v) or any(map(RE_FILTER.match, v.splitlines()))`` for the value
    s[:n] (None when ``is_none``): 1 when it is None, empty or all whitespace, or when one of
    its lines matches RE_FILTER, else 0."""
    cdef Py_ssize_t i = 0, start, w
    cdef Py_UCS4 cp
    cdef bint blank = True
    if is_none or n <= 0:
        return 1
    while i < n:
        w = _nt_decode(s, i, n, &cp)
        if not _nt_isspace(cp):
            blank = False
            break
        i += w
    if blank:
        return 1
    # str.splitlines(): "\r\n" is one break; no line after a final break
    i = 0
    start = 0
    while i < n:
        w = _nt_decode(s, i, n, &cp)
        if _nt_islinebreak(cp):
            if re_filter_match_utf8(s + start, i - start):
                return 1
            i += w
            if cp == 13 and i < n and s[i] == 10:
                i += 1
            start = i
        else:
            i += w
    if start < n and re_filter_match_utf8(s + start, n - start):
        return 1
    return 0


cdef int textfilter_utf8(const uchar* text, Py_ssize_t text_n, bint text_none,
                         const uchar* tail, Py_ssize_t tail_n, bint tail_none) noexcept nogil:
    """text.textfilter(element) for an element's text and tail (a pointer whose ``*_none``
    is set is not read): the tail is tested only when the text is None (an empty text is
    tested, and fails ``text_chars_test``)."""
    if text_none:
        return textfilter_value_utf8(tail, tail_n, tail_none)
    return textfilter_value_utf8(text, text_n, False)


# -- _DISCUSSION_FORUM_POSTING_RE -------------------------------------------------------------
# "@type"\s*:\s*"DiscussionForumPosting"|"@type"\s*:\s*\[[^\]]*"DiscussionForumPosting"
# Its literals are ASCII: a byte search finds exactly the code-point matches in valid UTF-8.

cdef Py_ssize_t _nt_find(const uchar* s, Py_ssize_t i, Py_ssize_t n, const char* lit, Py_ssize_t m) noexcept nogil:
    """The first byte offset >= i where lit[:m] starts within s[:n], -1 when none."""
    cdef Py_ssize_t k
    while i <= n - m:
        if s[i] == <uchar>lit[0]:
            k = 1
            while k < m and s[i + k] == <uchar>lit[k]:
                k += 1
            if k == m:
                return i
        i += 1
    return -1


cdef inline Py_ssize_t _nt_skip_space(const uchar* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    "``\\s*`` from i (greedy; every use is followed by a non-space character)."
    cdef Py_ssize_t w
    cdef Py_UCS4 cp
    while i < n:
        w = _nt_decode(s, i, n, &cp)
        if not _nt_isspace(cp):
            break
        i += w
    return i


cdef int discussion_forum_posting_search_utf8(const uchar* s, Py_ssize_t n) noexcept nogil:
    """1 when _DISCUSSION_FORUM_POSTING_RE.search finds a match in s[:n] (UTF-8), else 0."""
    cdef Py_ssize_t i = 0, p, r, seen_from = -1, seen_to = -1
    cdef const char* target = b'"DiscussionForumPosting"'
    while True:
        i = _nt_find(s, i, n, b'"@type"', 7)
        if i < 0:
            return 0
        p = _nt_skip_space(s, i + 7, n)
        if p < n and s[p] == 58:                      # ':'
            p = _nt_skip_space(s, p + 1, n)
            if p < n and s[p] == 34:                  # '"'
                if n - p >= 24 and _nt_find(s, p, p + 24, target, 24) == p:
                    return 1
            elif p < n and s[p] == 91:                # '['
                # [^\]]* may stop anywhere before the first ']': the target must lie wholly
                # before it (it holds no ']'). A '[' inside a range already searched in vain
                # ends at the same ']', so it is not searched again (linear time).
                if not (seen_from <= p < seen_to):
                    r = p + 1
                    while r < n and s[r] != 93:       # ']'
                        r += 1
                    if _nt_find(s, p + 1, r, target, 24) >= 0:
                        return 1
                    seen_from = p
                    seen_to = r
        i += 1


# -- trim() of a subtree's text ------------------------------------------------------------------

cdef struct NgTrimJoin:
    ExCollapse col
    bint spaced


cdef int _ng_trim_join_piece(void* state, const uchar* p, int32_t n) noexcept nogil:
    cdef NgTrimJoin* t = <NgTrimJoin*>state
    if t.spaced:
        t.col.pending = True        # the joining " " (none is written before the first word)
    _ex_collapse_feed(&t.col, p, n)
    return NS_OK


# upstream: none (an itertext join shared by the stages)
cdef Py_ssize_t ng_trim_itertext(DocData* d, int32_t top, bint spaced, bint with_tail, uchar* out) noexcept nogil:
    """``trim(sep.join(top.itertext()) + tail)`` as UTF-8 into ``out`` (NULL: only measured):
    sep " " when ``spaced`` else "", tail top's own tail when ``with_tail`` else ""; returns
    its byte length (a first call with NULL sizes the buffer of the second)."""
    cdef NgTrimJoin t
    t.col.out = out
    t.col.len = 0
    t.col.pending = False
    t.col.started = False
    t.spaced = spaced
    ng_itertext_pieces(d, top, _ng_trim_join_piece, &t)
    if with_tail and d.nodes[top].tail_off >= 0:
        _ex_collapse_feed(&t.col, d.text.data + d.nodes[top].tail_off, d.nodes[top].tail_len)
    return t.col.len


# -- test wrappers ------------------------------------------------------------------------------

def re_filter_match(str text):
    """bool(RE_FILTER.match(text)) computed by re_filter_match_utf8 (text without surrogates)."""
    cdef bytes b = text.encode("utf-8")
    cdef const uchar* s = <const uchar*><const char*>b
    cdef Py_ssize_t n = len(b)
    cdef int r
    with nogil:
        r = re_filter_match_utf8(s, n)
    return r == 1


def textfilter_value(text):
    """textfilter's decision over one value (a str without surrogates, or None) by
    textfilter_value_utf8."""
    cdef bytes b
    cdef const uchar* s = NULL
    cdef Py_ssize_t n = 0
    cdef bint none = text is None
    cdef int r
    if not none:
        b = (<str?>text).encode("utf-8")
        s = <const uchar*><const char*>b
        n = len(b)
    with nogil:
        r = textfilter_value_utf8(s, n, none)
    return r == 1


def textfilter_element(CElement el not None):
    """text.textfilter(el) by textfilter_utf8 over the element's text and tail as the C
    document stores them (an offset < 0 is None)."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t i = el.idx
    cdef Py_ssize_t toff, tlen, loff, llen
    cdef int r
    doc._check(i)
    toff = d.nodes[i].text_off
    tlen = d.nodes[i].text_len if toff >= 0 else 0
    loff = d.nodes[i].tail_off
    llen = d.nodes[i].tail_len if loff >= 0 else 0
    if (toff >= 0 and toff + tlen > d.text.len) or (loff >= 0 and loff + llen > d.text.len):
        raise ValueError("text slot outside the document's text arena")
    with nogil:
        r = textfilter_utf8(d.text.data + (toff if toff >= 0 else 0), tlen, toff < 0,
                            d.text.data + (loff if loff >= 0 else 0), llen, loff < 0)
    return r == 1


def discussion_forum_posting_search(str text):
    """bool(_DISCUSSION_FORUM_POSTING_RE.search(text)) by discussion_forum_posting_search_utf8."""
    cdef bytes b = text.encode("utf-8")
    cdef const uchar* s = <const uchar*><const char*>b
    cdef Py_ssize_t n = len(b)
    cdef int r
    with nogil:
        r = discussion_forum_posting_search_utf8(s, n)
    return r == 1


def nogil_text_prefix(bytes b, Py_ssize_t n):
    """(re_filter_match_utf8, textfilter_value_utf8, discussion_forum_posting_search_utf8)
    over the first n bytes of b, which may cut a character or not be UTF-8 at all: the
    bytes after n are there to be misread, which tests/test_core_nogil_text.py checks."""
    cdef const uchar* s = <const uchar*><const char*>b
    cdef int r1, r2, r3
    if n < 0 or n > len(b):
        raise ValueError("n outside the bytes")
    with nogil:
        r1 = re_filter_match_utf8(s, n)
        r2 = textfilter_value_utf8(s, n, False)
        r3 = discussion_forum_posting_search_utf8(s, n)
    return (r1 == 1, r2 == 1, r3 == 1)
