"""The nogil text twins of cython_core/nogil_text.pxi against the Python they replace:
``RE_FILTER.match`` (text.py), ``textfilter``'s decision (text.py) and
``_DISCUSSION_FORUM_POSTING_RE.search`` (v2_3_1/core.py). Each C answer must equal
Python's on generated text (ASCII, the patterns' letters in odd cases, the characters
re.IGNORECASE folds onto them, every Unicode category but surrogates, every line break
and whitespace character, the exact trigger phrases), on every code point in the
positions where one character decides, and on the lines, text nodes and scripts of
corpus pages."""

from __future__ import annotations

import _sre
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trafila
from tests._helpers import NO_CORE

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _engine, text  # noqa: E402
from trafila.v2_3_1 import core as core231  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

CORE = _engine.core_module()
RE_FILTER = text.RE_FILTER
FORUM_RE = core231._DISCUSSION_FORUM_POSTING_RE

EXAMPLES = settings(max_examples=2500, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]

PHRASES = ["Drucken", "E-Mail", "EMail", "Facebook", "Flipboard", "Google", "Instagram", "Linkedin",
           "Mail", "PDF", "Pinterest", "Pocket", "Print", "QQ", "Reddit", "Twitter", "WeChat", "WeiBo",
           "Whatsapp", "Xing", "Mehr zum Thema:", "Mehr zum Thema", "More on this"]
PATTERN_LETTERS = sorted({c for p in PHRASES for c in p if c.isalpha()} | {c.swapcase() for p in PHRASES
                                                                           for c in p if c.isalpha()})
# every non-ASCII character re.IGNORECASE can match with an ASCII letter: its simple lowercase
# is ASCII, or it is one of sre's extra cases (dotless i, long s)
FOLDS = [chr(cp) for cp in CODE_POINTS
         if cp >= 128 and (_sre.unicode_tolower(cp) < 128 or _sre.unicode_tolower(cp) in (0x131, 0x17F))]
LINE_BREAKS = ["\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
SPACES = [chr(cp) for cp in range(0x3001) if chr(cp).isspace()] + ["\u200b", "\ufeff", "\u180e"]
NONWORD = list("•|-–—·»«:;!?.,()[]{}'\"/\\*#@&%+=<>~^`$") + ["\u0301", "\u20ac", "\u2122", "\u24b6",
                                                             "\U0001f600", "\u3002", "\u00ad"]
UNICODE = ["é", "ß", "ẞ", "Σ", "ς", "Ж", "中", "٣", "²", "Ⅻ", "ǅ", "ﬁ", "ΐ", "_", "\x00", "\x7f", "\U00010400"]

def strings(elements, max_size):
    "Strings of up to ``max_size`` elements (some are two characters: \"\\r\\n\")."
    return st.lists(elements, max_size=max_size).map("".join)


CHARS = st.one_of(
    st.characters(max_codepoint=127, blacklist_categories=("Cs",)),
    st.sampled_from(PATTERN_LETTERS),
    st.sampled_from(FOLDS),
    st.characters(blacklist_categories=("Cs",)),
    st.sampled_from(SPACES + NONWORD + UNICODE),
    st.sampled_from(LINE_BREAKS),
)


def _variants(ch: str) -> list:
    "The spellings of a pattern character re.IGNORECASE accepts (besides itself)."
    if not ch.isalpha():
        return [ch]
    low = ch.lower()
    return [ch, ch.upper(), low] + [f for f in FOLDS if _sre.unicode_tolower(ord(f)) == ord(low)
                                    or (low, _sre.unicode_tolower(ord(f))) in (("i", 0x131), ("s", 0x17F))]


VARIANTS = {ch: _variants(ch) for p in PHRASES for ch in p}
# mostly the phrase as written or in one case, sometimes each character in any accepted spelling
TRIGGER = st.sampled_from(PHRASES).flatmap(
    lambda p: st.one_of(st.sampled_from([p, p.upper(), p.lower(), p.swapcase()]),
                        st.tuples(*[st.sampled_from(VARIANTS[c]) for c in p]).map("".join)))
PIECE = st.one_of(TRIGGER, strings(CHARS, max_size=6), st.sampled_from(NONWORD + SPACES + LINE_BREAKS + ["_"]))
FILTER_TEXT = st.one_of(
    # \W prefix, a phrase, a short tail: the shapes that match
    st.tuples(strings(st.sampled_from(NONWORD + SPACES + LINE_BREAKS + UNICODE), max_size=4), TRIGGER,
              strings(CHARS, max_size=10)).map("".join),
    st.lists(PIECE, max_size=8).map("".join),
    strings(CHARS, max_size=40),
)
BREAK = st.sampled_from(LINE_BREAKS)
TEXTFILTER_TEXT = st.one_of(
    st.lists(st.tuples(FILTER_TEXT, BREAK).map("".join), max_size=5).map("".join),
    st.tuples(st.lists(st.tuples(FILTER_TEXT, BREAK).map("".join), max_size=4).map("".join), FILTER_TEXT)
    .map("".join),
    strings(st.sampled_from(SPACES + LINE_BREAKS), max_size=6),
    strings(CHARS, max_size=40),
)
FORUM_PIECES = ['"@type"', '"@type":', '"@type" : [', '"DiscussionForumPosting"', "DiscussionForumPosting",
                '"discussionForumPosting"', '"Discussion', 'ForumPosting"', '"@Type"', ":", "[", "]", '"', "{",
                "}", ",", "@type"]
SPACE_RUN = strings(st.sampled_from(SPACES + LINE_BREAKS + ["x", "\u200b"]), 3)
FORUM_SHAPED = st.tuples(
    strings(CHARS, 4), st.sampled_from(['"@type"', '"@type"', '"@typ"', '@type"']), SPACE_RUN,
    st.sampled_from([":", ":", ";", ""]), SPACE_RUN,
    st.one_of(st.sampled_from(['"DiscussionForumPosting"', '"DiscussionForumPosting', "DiscussionForumPosting"]),
              st.tuples(st.just("["), strings(st.one_of(st.sampled_from(['"a",', "]", "[", '"', " ", "\n"]),
                                                        CHARS), 5),
                        st.sampled_from(['"DiscussionForumPosting"', '"DiscussionForumPostin"'])).map("".join)),
    strings(CHARS, 4)).map("".join)
FORUM_TEXT = st.one_of(
    FORUM_SHAPED,
    st.lists(st.one_of(st.sampled_from(FORUM_PIECES), st.sampled_from(SPACES + LINE_BREAKS),
                       strings(CHARS, max_size=4)), max_size=14).map("".join),
    strings(CHARS, max_size=30),
)


def xml_chars(value):
    "The value without the characters an element's text refuses (XML 1.0 Char)."
    if value is None:
        return None
    return "".join(c for c in value if c in "\t\n\r" or "\x20" <= c <= "\ud7ff" or "\ue000" <= c <= "\ufffd"
                   or c >= "\U00010000")


def py_textfilter_value(value):
    "text.textfilter's decision over its test text (the reference's expression)."
    return not text.text_chars_test(value) or any(map(RE_FILTER.match, value.splitlines()))


def test_case_folding_is_this_pythons():
    """The C matcher hard-codes sre's extra cases for ASCII letters and the line breaks of
    str.splitlines: both as on this Python."""
    try:
        from re._casefix import _EXTRA_CASES as extra_cases  # Python 3.11 and later
    except ImportError:
        from sre_compile import _ignorecase_fixes as extra_cases  # 3.10 keeps the table there

    extra = {chr(k): tuple(map(chr, v)) for k, v in extra_cases.items() if chr(k).isascii()}
    assert extra == {"i": ("ı",), "s": ("ſ",)}
    assert {c for c in map(chr, CODE_POINTS) if len(("a" + c + "b").splitlines()) == 2} == \
        set(LINE_BREAKS) - {"\r\n"}


@EXAMPLES
@given(FILTER_TEXT)
def test_re_filter_match(s):
    assert CORE.re_filter_match(s) == bool(RE_FILTER.match(s))


@EXAMPLES
@given(TEXTFILTER_TEXT)
def test_textfilter_value(s):
    assert CORE.textfilter_value(s) == py_textfilter_value(s)


@EXAMPLES
@given(FORUM_TEXT)
def test_discussion_forum_posting_search(s):
    assert CORE.discussion_forum_posting_search(s) == bool(FORUM_RE.search(s))


def test_phrases_in_every_spelling():
    """Each phrase with one character replaced by each accepted spelling, behind \\W
    prefixes and before short tails: matches and misses both."""
    seen = {True: 0, False: 0}
    tails = ["", "\n", "\n\n", "!", " ", "x", "12345678", "123456789", "1234567\n", "ab\ncd", "_", "\u2028"]
    heads = ["", " ", "• ", "_", "x", "\u0301", "»\u00a0", "1", "ſ", "\n"]
    for phrase in PHRASES:
        for k, ch in enumerate(phrase):
            for v in VARIANTS[ch]:
                s = phrase[:k] + v + phrase[k + 1:]
                for head in heads:
                    for tail in tails:
                        t = head + s + tail
                        expected = bool(RE_FILTER.match(t))
                        assert CORE.re_filter_match(t) == expected, t
                        seen[expected] += 1
    assert CORE.textfilter_value(None) and CORE.textfilter_value("") and CORE.textfilter_value(" \u2028")
    assert min(seen.values()) > 5000, seen


def test_every_code_point_re_filter():
    "Each code point where one character decides: a first letter, the folded i and s, \\W*, '.'."
    f, m = CORE.re_filter_match, RE_FILTER.match
    bad = []
    for cp in CODE_POINTS:
        c = chr(cp)
        for s in (c + "rucken", "Pr" + c + "nt", "Pintere" + c + "t", c + "Mail", "More on this" + c * 8):
            if f(s) != bool(m(s)):
                bad.append(s)
    assert not bad, bad[:20]


def test_every_code_point_textfilter_and_forum():
    "Each code point as a line break or whitespace candidate, and as \\s in the forum pattern."
    f, g = CORE.textfilter_value, CORE.discussion_forum_posting_search
    bad = []
    for cp in CODE_POINTS:
        c = chr(cp)
        for s in ("ab" + c + "Print", c + c):
            if f(s) != py_textfilter_value(s):
                bad.append(s)
        for s in ('"@type"' + c + ':"DiscussionForumPosting"', '"@type":' + c + '["DiscussionForumPosting"',
                  '"@type":[' + c + '"DiscussionForumPosting"'):
            if g(s) != bool(FORUM_RE.search(s)):
                bad.append(s)
    assert not bad, bad[:20]


def test_forum_bracket_runs():
    "Many '[' without ']' (the C searches each bracket range once) and the target after a ']'."
    for s in ['"@type":[' * 3000, '"@type":[' * 3000 + '"DiscussionForumPosting"',
              '"@type":[' * 50 + ']"DiscussionForumPosting"', '"@type":[]"@type":["DiscussionForumPosting"',
              '"@type":["x"]["DiscussionForumPosting"', '"@type" :\u3000"DiscussionForumPosting"',
              '"@type":"DiscussionForumPosting', '"@type"\n:\n[\n"a",\n"DiscussionForumPosting"\n]']:
        assert CORE.discussion_forum_posting_search(s) == bool(FORUM_RE.search(s)), s[:80]


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(st.none(), TEXTFILTER_TEXT), st.one_of(st.none(), TEXTFILTER_TEXT))
def test_textfilter_element(text_value, tail_value):
    "textfilter_utf8 over an element's slots of the C document, None and '' kept apart."
    root = CORE.dom.fromstring("<div><p>x</p></div>")
    el = root[0]
    el.text = xml_chars(text_value)
    el.tail = xml_chars(tail_value)
    text_value, tail_value = xml_chars(text_value), xml_chars(tail_value)
    assert el.text == text_value and el.tail == tail_value
    assert CORE.textfilter_element(el) == text.textfilter(el)


@needs_corpora
def test_corpus_pages():
    """Every line of the sampled pages' sources to the three twins, and every element of
    their core trees to textfilter_element, each script's text to the forum search."""
    lines = nodes = scripts = matched = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl", "cleaneval", "dragnet",
                                       "fundus", "trafilatura"), 7):
        if page.html is None:
            continue
        html = page.html
        for line in html.splitlines():
            expected = bool(RE_FILTER.match(line))
            assert CORE.re_filter_match(line) == expected, (page.id, line[:200])
            matched += expected
            assert CORE.discussion_forum_posting_search(line) == bool(FORUM_RE.search(line)), page.id
            lines += 1
        assert CORE.discussion_forum_posting_search(html) == bool(FORUM_RE.search(html)), page.id
        try:
            tree = CORE.dom.fromstring(html)
        except ValueError:  # a str with an encoding declaration: lxml's rule, the bytes then
            tree = CORE.dom.fromstring(page.raw)
        for el in tree.iter():
            assert CORE.textfilter_element(el) == text.textfilter(el), (page.id, el.text, el.tail)
            for value in (el.text, el.tail):
                if value is not None:
                    assert CORE.textfilter_value(value) == py_textfilter_value(value), page.id
            if el.tag == "script" and el.text:
                assert CORE.discussion_forum_posting_search(el.text) == bool(FORUM_RE.search(el.text)), page.id
                scripts += 1
            nodes += 1
    print("corpus:", lines, "lines", nodes, "nodes", scripts, "scripts", matched, "lines matched")
    assert lines > 10000 and nodes > 10000 and scripts > 100, (lines, nodes, scripts)
    assert matched > 0


TEMPTING = [b"", b"\x80\x80\x80", b"\xb1nt", b"rint", b"\n", b"ail", b'"DiscussionForumPosting"]',
            b'ForumPosting"', b"]", b"\xe2\x80\xa8Print"]


def _cut_answers(b0: bytes, tempting: bytes) -> None:
    """Every cut of b0 (possibly inside a character), with bytes after the cut that would change
    the answer if read: the same answers as with nothing after it, and Python's when the cut
    leaves valid UTF-8."""
    for n in range(len(b0) + 1):
        alone = CORE.nogil_text_prefix(b0[:n], n)
        assert CORE.nogil_text_prefix(b0 + tempting, n) == alone, (b0, n, tempting)
        try:
            s = b0[:n].decode("utf-8")
        except UnicodeDecodeError:
            continue
        assert alone == (bool(RE_FILTER.match(s)), py_textfilter_value(s), bool(FORUM_RE.search(s))), s


def test_no_read_past_the_length():
    for s in ["Prı", "Pr\u0131nt", "Mai", "E-Ma", '"@type":["DiscussionForumPosting', "x\u2028Pri", "€", "\U0001f600",
              "More on this 1234\u00e9", '"@type":\u3000"DiscussionForumPosting"']:
        for tempting in TEMPTING:
            _cut_answers(s.encode("utf-8"), tempting)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(FILTER_TEXT, FORUM_SHAPED), st.sampled_from(TEMPTING))
def test_no_read_past_the_length_generated(s, tempting):
    _cut_answers(s.encode("utf-8"), tempting)
