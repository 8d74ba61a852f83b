"""trafila.fineweb.tokenizer against datatrove 0.10.1's SpaCyTokenizer("en").

Each engine (the pure-Python reference, the compiled trafila._tokenizer_en)
must give datatrove's tokens (texts, offsets, trailing spaces), sentence
starts, word_tokenize, sent_tokenize and span_tokenize on: texts from the
corpora (trafila's extraction of pages when the core is built, the pages'
text crudely otherwise), Hypothesis-generated texts, and hand-written cases
for each rule of the algorithm (whose expected tokens were derived by reading
spaCy's tokenizer.pyx and are also checked against spaCy).
"""

from __future__ import annotations

import html as htmllib
import itertools
import os
import re
import string
import sys
import warnings

import pytest

pytest.importorskip("spacy")
word_tokenizers = pytest.importorskip("datatrove.utils.word_tokenizers")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from trafila.fineweb import tokenizer as T  # noqa: E402

ENGINES = ("reference", "compiled")


class Pair:
    """A twin and its own oracle: both see the same texts in the same order
    (spaCy's IS_ALPHA failure depends on what its vocabulary saw before)."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.twin = T.EnglishTokenizer(engine)
        self.oracle = word_tokenizers.SpaCyTokenizer("en")

    def oracle_tokens(self, text: str):
        nlp = self.oracle.tokenizer
        with nlp.memory_zone():
            nlp.max_length = len(text) + 10
            doc = self.oracle._do_tokenize(text)[0]
            return ([t.text for t in doc], [t.idx for t in doc], [bool(t.whitespace_) for t in doc],
                    [s.start for s in doc.sents] if len(doc) else [])

    def mismatch(self, text: str):
        """None when every result equals datatrove's (or both raise the same
        exception type), else what differs."""
        got = _outcome(lambda: _as_tuple(self.twin.tokenize(text)))
        want = _outcome(lambda: self.oracle_tokens(text))
        if got != want:
            return ("tokens", got, want)
        for method in ("word_tokenize", "sent_tokenize", "span_tokenize"):
            g = _outcome(lambda: getattr(self.twin, method)(text))
            w = _outcome(lambda: getattr(self.oracle, method)(text))
            if g != w:
                return (method, g, w)
        return None

    def check(self, text: str) -> None:
        diff = self.mismatch(text)
        assert diff is None, f"{self.engine} differs on {text!r}: {diff}"


def _as_tuple(tokens):
    return (tokens.texts, tokens.idx, tokens.spaces, tokens.sent_starts)


def _outcome(call):
    """call()'s result, or the type of the exception it raised."""
    try:
        return call()
    except Exception as err:
        return type(err)


def _compiled_available() -> bool:
    try:
        from trafila import _tokenizer_en  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(params=ENGINES, scope="module")
def pair(request) -> Pair:
    if request.param == "compiled" and not _compiled_available():
        if os.environ.get("TRAFILA_REQUIRE_EXTENSIONS") == "1":
            pytest.fail("TRAFILA_REQUIRE_EXTENSIONS=1 but trafila._tokenizer_en is not importable")
        pytest.skip("trafila._tokenizer_en is not built here")
    return Pair(request.param)


# -- (c) hand-written cases, one or more per rule -------------------------------------------------

#: (text, expected token texts, expected sentence spans) -- derived by reading the algorithm
CASES = [
    # whitespace split: a single ' ' becomes the previous token's trailing space, other runs are tokens
    ("a b", ["a", "b"], [(0, 3)]),
    ("a  b", ["a", " ", "b"], [(0, 4)]),
    ("a \n b", ["a", "\n ", "b"], [(0, 5)]),
    ("  a", ["  ", "a"], [(0, 3)]),
    (" a", [" ", "a"], [(0, 2)]),
    ("a ", ["a"], [(0, 1)]),
    ("a  ", ["a", " "], [(0, 3)]),
    ("a\tb", ["a", "\t", "b"], [(0, 3)]),
    ("a\u00a0b", ["a", "\u00a0", "b"], [(0, 3)]),
    ("a\u3000\u2028b", ["a", "\u3000\u2028", "b"], [(0, 4)]),
    ("   ", ["   "], [(0, 3)]),
    ("", [], []),
    # special cases (tokenizer exceptions) on a whole chunk
    ("don't", ["do", "n't"], [(0, 5)]),
    ("y'all", ["y'", "all"], [(0, 5)]),
    ("a.m.", ["a.m."], [(0, 4)]),
    ("U.S.", ["U.S."], [(0, 4)]),
    (":)", [":)"], [(0, 2)]),
    # prefixes and suffixes, with the special case found after stripping one
    ("(U.S.)", ["(", "U.S.", ")"], [(0, 6)]),
    ("e.g.,", ["e.g.", ","], [(0, 5)]),
    ("\"don't\"", ["\"", "do", "n't", "\""], [(0, 7)]),
    ("$100", ["$", "100"], [(0, 4)]),
    ("5km", ["5", "km"], [(0, 3)]),
    ("...Hi", ["...", "Hi"], [(0, 5)]),
    ("Hi...", ["Hi", "..."], [(0, 5)]),
    # url_match keeps a URL whole once its suffix is off
    ("https://example.com/path?x=1.", ["https://example.com/path?x=1", "."], [(0, 29)]),
    ("www.example.org", ["www.example.org"], [(0, 15)]),
    # infixes (a hyphen between letters, an operator between digits)
    ("well-known", ["well", "-", "known"], [(0, 10)]),
    ("dyn-o-mite", ["dyn", "-", "o", "-", "mite"], [(0, 10)]),
    ("10-20", ["10", "-", "20"], [(0, 5)]),
    # the special-case matcher pass merges a pattern found inside a chunk...
    ("'s!)", ["'s", "!", ")"], [(0, 4)]),
    ("x 's!)", ["x", "'s", "!", ")"], [(0, 6)]),
    # ...unless a longer or earlier match across chunks (text with a space: no rule) covers its start
    ("' 's!)", ["'", "'", "s", "!", ")"], [(0, 6)]),
    ("He 's", ["He", "'s"], [(0, 5)]),
    # a span dropped for overlapping a kept one still covers its tokens: "):" blocks ":("
    (":-):(", [":-)", ":", "("], [(0, 5)]),
    (":-) :(", [":-)", ":("], [(0, 6)]),
    # the sentencizer: a sentence starts at the first non-punctuation token after . ! ? ...
    ("Hello. World", ["Hello", ".", "World"], [(0, 6), (7, 12)]),
    ("Hello.) World", ["Hello", ".", ")", "World"], [(0, 7), (8, 13)]),
    ("Wait!? Yes", ["Wait", "!", "?", "Yes"], [(0, 6), (7, 10)]),
    # ... and a space token is not punctuation: it starts the next sentence
    ("Hello.\n\nWorld", ["Hello", ".", "\n\n", "World"], [(0, 6), (6, 13)]),
    ("One. ", ["One", "."], [(0, 4)]),
    ("One.  ", ["One", ".", " "], [(0, 4), (5, 6)]),
    # an abbreviation (a special case) keeps its period: no sentence end
    ("3.5 m. Then", ["3.5", "m.", "Then"], [(0, 11)]),
    ("IS_ALPHAx", ["IS_ALPHAx"], [(0, 9)]),
]


def test_lone_surrogate_raises_like_spacy(pair: Pair):
    before = T.stock_calls()
    for text in ("a \ud800b", "\udfff", "IS_ALPHA \ud800"):
        with pytest.raises(UnicodeEncodeError):
            pair.twin.word_tokenize(text)
        pair.check(text)
    assert T.stock_calls() > before


@pytest.mark.parametrize("text,tokens,spans", CASES)
def test_rules(pair: Pair, text, tokens, spans):
    got = pair.twin.tokenize(text)
    assert got.texts == tokens
    assert got.sentence_spans() == spans
    assert pair.twin.span_tokenize(text) == spans
    pair.check(text)


def test_sentence_texts_and_words(pair: Pair):
    text = "Hello.\n\nWorld  again! (Yes.) a\u00a0b"
    assert pair.twin.word_tokenize(text) == ["Hello", ".", "World", "again", "!", "(", "Yes", ".", ")", "a", "b"]
    # "(" is punctuation: it stays with the sentence before
    assert pair.twin.sent_tokenize(text) == ["Hello.", "World  again! (", "Yes.)", "a\u00a0b"]
    pair.check(text)


def test_every_space_character(pair: Pair):
    spaces = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert len(spaces) > 20
    for ch in spaces:
        for text in (f"a{ch}b", f"a {ch}b", f"a{ch} b", f"{ch}", f"x.{ch}{ch}Y", f"{ch} a"):
            pair.check(text)


def test_every_rule_alone_and_wrapped(pair: Pair):
    rules = sorted(pair.twin.rules.specials)
    texts = [" ".join(rules[i:i + 40]) for i in range(0, len(rules), 40)]
    texts += ["(" + r + ")," for r in rules[::7]]
    for text in texts:
        pair.check(text)


# -- the IS_ALPHA retry and the stock path ---------------------------------------------------------

def test_is_alpha_runs_stock(pair: Pair):
    before = T.stock_calls()
    for text in ("IS_ALPHA", "foo IS_ALPHA bar", "(IS_ALPHA).", "x IS_ALPHAx IS_ALPHA", "IS_ALPHA! Next one."):
        pair.check(text)
    assert T.stock_calls() > before


def test_no_spacy_emulates_is_alpha(monkeypatch):
    """Without spaCy the twin follows spaCy's observed behaviour: the first
    IS_ALPHA token works, later ones raise and datatrove's retry drops them."""
    monkeypatch.setattr(T, "installed_spacy_version", lambda: None)
    twin = T.EnglishTokenizer("reference")
    oracle = word_tokenizers.SpaCyTokenizer("en")
    before = T.stock_calls()
    for text in ("IS_ALPHA", "foo IS_ALPHA bar. Two", "IS_IS_ALPHAALPHA x"):
        for method in ("word_tokenize", "span_tokenize", "sent_tokenize"):
            outcomes = []
            for tok in (twin, oracle):
                try:
                    outcomes.append(getattr(tok, method)(text))
                except Exception as err:  # spaCy's own failure, twin and oracle alike
                    outcomes.append(type(err))
            assert outcomes[0] == outcomes[1], (text, method, outcomes)
    assert T.stock_calls() == before


def test_other_spacy_version_runs_stock(monkeypatch):
    monkeypatch.setattr(T, "installed_spacy_version", lambda: "0.0.1")
    monkeypatch.setattr(T, "_version_warned", False)
    twin = T.EnglishTokenizer("reference")
    before = T.stock_calls()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert twin.word_tokenize("Don't stop.") == ["Do", "n't", "stop", "."]
        assert twin.word_tokenize("Again.") == ["Again", "."]
    assert T.stock_calls() == before + 2
    assert sum(issubclass(w.category, RuntimeWarning) for w in caught) == 1


def test_process_wide_instance():
    assert T.english_tokenizer() is T.english_tokenizer()
    assert T.SPACY_VERSION == "3.8.18"


def test_engine_switch(monkeypatch):
    monkeypatch.setenv("TRAFILA_ENGINE", "reference")
    assert T.EnglishTokenizer().engine == "reference"
    monkeypatch.delenv("TRAFILA_ENGINE")
    assert T.EnglishTokenizer().engine == ("compiled" if _compiled_available() else "reference")
    monkeypatch.setenv("TRAFILA_ENGINE", "core")
    if _compiled_available():
        assert T.EnglishTokenizer().engine == "compiled"
    else:
        with pytest.raises(ImportError):
            T.EnglishTokenizer()


# -- the rules, shared by the strategies below

_RULES = T.EnglishRules()


# -- (b) Hypothesis ---------------------------------------------------------------------------------

_SPACES = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
_FRAGMENTS = [
    "don't", "y'all", "can't", "I'm", "he's", "She'll", "'s", "n't", "'em", "o'clock", "rock'n'roll",
    ":)", ":-(", ";)", "<3", "(:", "^_^", "(-_-)", "xD", ":P", "=)",
    "https://example.com/a?b=1", "http://www.test.org.", "www.site.co.uk/x", "mail@example.com",
    "a.b@c.de,", "ftp://x.y/z)", "example.com", "192.168.0.1", "10.0.0.1:8080",
    "5km", "10kg.", "3.5", "1,000", "$100", "100$", "20%", "5°C.", "12:30", "2nd", "1990s", "10-20", "+44",
    "a.m.", "p.m.", "U.S.", "U.K.", "e.g.", "i.e.", "Mr.", "Dr.", "etc.", "Inc.", "No.", "vs.", "Jan.",
    "well-known", "dyn-o-mite", "--", "...", "…", "—", "–", "?!", "!!!", "??", ".", ",", ";", ":",
    "(", ")", "[", "]", "{", "}", "\"", "'", "“", "”", "‘", "’", "«", "»", "``", "''",
    "IS_ALPHA", "IS_ALPHAx", "C++", "\\n", "\\t", "<space>", "'Cause", "'bout",
    "Hello", "world", "The", "end", "A", "B", "x", "9", "ÉCOLE", "naïve", "日本語", "мир", "٣",
]
_word = st.one_of(
    st.sampled_from(_FRAGMENTS),
    st.sampled_from(sorted(_RULES.specials)),
    st.text(alphabet=st.characters(codec=None), min_size=1, max_size=6),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),  # lone surrogates: spaCy raises
    st.text(alphabet=string.ascii_letters + string.digits + string.punctuation, min_size=1, max_size=8),
)
#: the special cases the matcher pass looks for (affixes inside): glued together they overlap
_MATCHER_RULES = sorted(r for r in _RULES.specials
                        if _RULES.find_prefix(r) or _RULES.find_suffix(r) or _RULES.find_infix(r))
_piece = st.one_of(
    st.lists(_word, min_size=1, max_size=3).map("".join),
    st.lists(st.sampled_from(_MATCHER_RULES), min_size=2, max_size=3).map("".join),
)
_space = st.one_of(
    st.just(" "), st.just(" "), st.just("\n"), st.just("  "), st.just("\n\n"), st.just(""),
    st.lists(st.sampled_from(_SPACES), min_size=1, max_size=4).map("".join),
)
_texts = st.lists(st.tuples(_piece, _space), min_size=0, max_size=25).map(
    lambda parts: "".join(a + b for a, b in parts))


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts)
def test_hypothesis_texts(engine, text):
    _pairs_for_hypothesis(engine).check(text)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(codec=None), max_size=40))
def test_hypothesis_any_characters(engine, text):
    _pairs_for_hypothesis(engine).check(text)


_HYPOTHESIS_PAIRS: dict = {}


def _pairs_for_hypothesis(engine: str) -> Pair:
    if engine == "compiled" and not _compiled_available():
        if os.environ.get("TRAFILA_REQUIRE_EXTENSIONS") == "1":
            pytest.fail("TRAFILA_REQUIRE_EXTENSIONS=1 but trafila._tokenizer_en is not importable")
        pytest.skip("trafila._tokenizer_en is not built here")
    if engine not in _HYPOTHESIS_PAIRS:
        _HYPOTHESIS_PAIRS[engine] = Pair(engine)
    return _HYPOTHESIS_PAIRS[engine]


# -- (a) texts from the corpora -------------------------------------------------------------------

_TAGS = re.compile(r"(?is)<(script|style)\b.*?</\1\s*>|<!--.*?-->|<[^>]*>")


def _crude_text(page_html: str) -> str:
    return htmllib.unescape(_TAGS.sub(" ", page_html))


def corpus_sample(limit: int = 160, chars: int = 6000) -> list:
    """Texts from the corpora (harness.corpora: $TRAFILA_CORPORA or the embedded
    corpus): trafila's extraction when the compiled core is built, else the
    pages' text with the tags cut out; each cut to ``chars`` characters, plus
    each text's lines (C4's filter tokenizes line by line)."""
    from harness.corpora import bundle_paths, iter_pages

    import trafila

    extract = trafila.engine("core").extract if "core" in trafila.engines_built() else None
    paths = [p for p in bundle_paths() if p.exists()]
    texts = []
    per_bundle = max(1, limit // max(1, len(paths)))
    for path in paths:
        taken = 0
        for page in iter_pages(path):
            if taken >= per_bundle:
                break
            if page.html is None:
                continue
            text = None
            if extract is not None:
                try:
                    text = extract(page.html)
                except Exception:
                    text = None
            if not text:
                text = _crude_text(page.html)
            texts.append(text[:chars])
            taken += 1
    return texts


@pytest.fixture(scope="module")
def corpus_texts():
    texts = corpus_sample()
    if not texts:
        pytest.skip("no corpus here")
    return texts


def test_corpus_sample(pair: Pair, corpus_texts):
    bad = []
    lines = 0
    for text in corpus_texts:
        if pair.mismatch(text) is not None:
            bad.append(text[:80])
        for line in text.splitlines()[:40]:
            lines += 1
            if pair.mismatch(line) is not None:
                bad.append(line[:80])
    assert len(corpus_texts) >= 10
    assert not bad, f"{pair.engine}: {len(bad)} of {len(corpus_texts)} texts and {lines} lines differ: {bad[:5]}"


# -- the compiled twin's fast path for letters and letters + one suffix character ----------------

_FAST_LAST = list(",;:?!)\"]}'\u201d\u2019\u00bb>*.")


def _compiled_module():
    if not _compiled_available():
        if os.environ.get("TRAFILA_REQUIRE_EXTENSIONS") == "1":
            pytest.fail("TRAFILA_REQUIRE_EXTENSIONS=1 but trafila._tokenizer_en is not importable")
        pytest.skip("trafila._tokenizer_en is not built here")
    from trafila import _tokenizer_en

    return _tokenizer_en


def test_fast_path_every_short_context():
    """The fast path's decisions equal the reference's for every chunk of one or
    two ASCII letters with and without each suffix character (the suffix
    rules look back at most two characters, asserted here too)."""
    fast = _compiled_module().fast_chunk_tokens
    rules = _RULES
    lookbehinds = [m for m in re.finditer(r"\(\?<[=!]", rules.suffix_search.__self__.pattern)]
    assert lookbehinds
    try:
        import re._parser as sre_parse
    except ImportError:  # Python < 3.11
        import sre_parse
    widths = []

    def walk(items):
        for op, av in items:
            name = str(op)
            if name in ("ASSERT", "ASSERT_NOT") and av[0] == -1:
                widths.append(av[1].getwidth()[1])
            for sub in (av if isinstance(av, (list, tuple)) else ()):
                if isinstance(sub, sre_parse.SubPattern):
                    walk(sub)
                elif isinstance(sub, (list, tuple)):
                    for x in sub:
                        if isinstance(x, sre_parse.SubPattern):
                            walk(x)

    walk(sre_parse.parse(rules.suffix_search.__self__.pattern))
    assert widths and max(widths) <= 2
    covered = 0
    for n in (1, 2):
        for chars in itertools.product(string.ascii_letters, repeat=n):
            word = "".join(chars)
            for chunk in [word] + [word + p for p in _FAST_LAST]:
                got = fast(chunk, rules.specials)
                if got is not None:
                    covered += 1
                    assert got == rules.tokenize_chunk(chunk), chunk
    assert covered > 40000


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(alphabet=string.ascii_letters, min_size=1, max_size=30),
                 st.sampled_from(sorted(_RULES.specials))),
       st.sampled_from(_FAST_LAST + ["", "", "/", "-", "'s", "$", "1"]))
def test_fast_path_hypothesis(word, last):
    fast = _compiled_module().fast_chunk_tokens
    chunk = word + last
    got = fast(chunk, _RULES.specials)
    if got is not None:
        assert got == _RULES.tokenize_chunk(chunk)


# -- the compiled affix loop: regexes skipped where no match can start ------------------------------

def _first_sets():
    data = T._DATA
    return {name: T.regex_first_chars(data[name]["pattern"], data[name]["flags"])
            for name in ("suffix_search", "infix_finditer")}


def test_first_chars_found():
    sets = _first_sets()
    for name, (unguarded, guarded) in sets.items():
        assert unguarded is not T.ANY_CHAR and guarded is not T.ANY_CHAR, name
        assert unguarded, name
    # spaCy's unit suffixes ("5km") sit behind a digit lookbehind; "." and "," do not
    unguarded, guarded = sets["suffix_search"]
    assert any(lo <= ord("k") <= hi for lo, hi in guarded)
    assert not any(lo <= ord("k") <= hi for lo, hi in unguarded)
    assert any(lo <= ord(".") <= hi for lo, hi in unguarded)
    # a pattern the analysis cannot bound says so
    assert T.regex_first_chars(r"\w+|x*", 32) == (T.ANY_CHAR, T.ANY_CHAR)


def _no_match_where_skipped(module, sets, s):
    for name, regex in (("suffix_search", _RULES.suffix_search), ("infix_finditer", _RULES.infix_finditer)):
        if not module.first_chars_may_match(sets[name], s):
            found = regex(s)
            assert (found is None) if name == "suffix_search" else (list(found) == []), (name, s)


def test_first_chars_code_points():
    """Where the compiled loop skips a regex, the regex finds nothing: every
    code point below U+3000 and every 13th above, alone, after a letter, and between digits."""
    module = _compiled_module()
    sets = _first_sets()
    for code in itertools.chain(range(0x3000), range(0x3000, sys.maxunicode + 1, 13)):
        ch = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        for s in (ch, "a" + ch, ch + "a", "1" + ch + "1", "a" + ch + "b"):
            _no_match_where_skipped(module, sets, s)


_FIRST_SETS = _first_sets()


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.one_of(st.characters(codec=None), st.sampled_from(list("0123456789.,-'$%km"))), max_size=12))
def test_first_chars_hypothesis(s):
    module = _compiled_module()
    _no_match_where_skipped(module, _FIRST_SETS, s)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_piece, st.text(alphabet=st.characters(codec=None, blacklist_categories=("Zs", "Zl", "Zp", "Cc")),
                                 min_size=1, max_size=15)))
def test_affix_loop_hypothesis(chunk):
    """The compiled affix loop gives the reference's tokens."""
    module = _compiled_module()
    assert module.affix_tokenize_chunk(_RULES, chunk) == _RULES.tokenize_chunk(chunk)


def test_affix_loop_rules_wrapped():
    module = _compiled_module()
    for rule in sorted(_RULES.specials):
        for chunk in (rule, "(" + rule + ")", rule + ".", "\"" + rule + ",\"", "5" + rule, rule + "-x"):
            assert module.affix_tokenize_chunk(_RULES, chunk) == _RULES.tokenize_chunk(chunk), chunk


def test_prefix_anchored():
    """The compiled loop looks only at a string's first character for the
    prefix rules: they are anchored (each alternative starts with ^)."""
    data = T._DATA["prefix_search"]
    assert T.regex_anchored(data["pattern"], data["flags"])
    assert not T.regex_anchored(T._DATA["suffix_search"]["pattern"], T._DATA["suffix_search"]["flags"])
    assert not T.regex_anchored(r"^a|b", 0) and T.regex_anchored(r"(?:^a|^b)", 0) and not T.regex_anchored(r"^a", re.M)


# -- where the compiled loop starts its regexes, the suffix memo, is_punct -------------------------

_SUFFIX_TEXTS = st.text(alphabet=st.one_of(st.characters(codec=None), st.sampled_from(list("0123456789.,-'\"$%kmsS)…’”"))),
                        max_size=14)


def test_suffix_reach_shape():
    """The analyses the compiled loop relies on, on spaCy's suffix rules: widest bounded match,
    the one unbounded alternative (a trailing run of "."), the widest lookbehind; and None for
    patterns of other shapes."""
    data = T._DATA["suffix_search"]
    width, runs = T.regex_suffix_reach(data["pattern"], data["flags"])
    assert 1 <= width <= 8 and runs == "."
    assert T.regex_lookbehind_reach(data["pattern"], data["flags"]) == 2
    assert T.regex_suffix_reach(r"a+$|b", 0) is None
    assert T.regex_suffix_reach(r"(?:ab)+$", 0) is None
    assert T.regex_lookbehind_reach(r"^a", 0) is None
    assert T.regex_lookbehind_reach(r"\ba", 0) is None
    assert T.regex_lookbehind_reach(r"(?<=xy)a|(?<!z)b", 0) == 2


@settings(max_examples=1500, deadline=None)
@given(s=_SUFFIX_TEXTS)
def test_suffix_search_start(s):
    """suffix_search from where the compiled loop starts it finds what a search from 0 finds; the
    memoised tail (lookbehind reach before that start) gives the same match too."""
    module = _compiled_module()
    start = module.suffix_search_start(_RULES, s)
    whole = _RULES.suffix_search(s)
    assert 0 <= start <= max(len(s), 0)
    got = _RULES.suffix_search(s, start)
    assert (whole and whole.span()) == (got and got.span())
    q = max(0, start - 2)
    tail = _RULES.suffix_search(s[q:], start - q)
    assert (whole and (whole.start() - q, whole.end() - q)) == (tail and tail.span())
    # the whole affix loop (memo included) gives the reference's tokens, twice (second: memo hits)
    if s and not any(ch.isspace() for ch in s):
        for _ in range(2):
            assert module.affix_tokenize_chunk(_RULES, s) == _RULES.tokenize_chunk(s)


@settings(max_examples=600, deadline=None)
@given(s=st.text(alphabet=st.characters(codec=None), max_size=16), begin=st.integers(0, 17))
def test_first_chars_first_start(s, begin):
    """first_start(s, begin): no match of the suffix or infix rules starts between begin and it."""
    module = _compiled_module()
    for name, regex in (("suffix_search", _RULES.suffix_search), ("infix_finditer", _RULES.infix_finditer)):
        first = module.first_chars_first_start(_FIRST_SETS[name], s, begin)
        stop = len(s) if first < 0 else first
        found = regex.__self__.search(s, begin) if name == "infix_finditer" else None
        if name == "suffix_search":
            for pos in range(begin, stop):
                m = regex.__self__.match(s, pos)
                assert m is None, (name, s, pos)
        elif found is not None:
            assert found.start() >= stop, (name, s, begin)


def test_is_punct_every_code_point():
    """The compiled is_punct (a per-code-point table filled from unicodedata) against the
    reference's, on every code point alone, and on mixed strings."""
    module = _compiled_module()
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        assert module.is_punct(ch) == T.is_punct(ch), hex(code)
    for s in ("", "..", ".a", "a.", "«»", "!?¿", "-—–", "·"):
        assert module.is_punct(s) == T.is_punct(s), s


def test_url_required_chars():
    """url_match is skipped on a string without a character every match holds ("." for spaCy's
    URL pattern): no string without it matches, on every code point and on generated hosts."""
    data = T._DATA["url_match"]
    required = T.regex_required_chars(data["pattern"], data["flags"])
    assert required == "."
    assert T.regex_required_chars(r"a(b|cb)+d?", 0) == "ab"
    assert T.regex_required_chars(r"(?i)ab", 0) == ""
    assert T.regex_required_chars(r"x|y", 0) == ""
    for code in range(0, sys.maxunicode + 1, 7):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        for s in ("www" + ch + "com", "http://a" + ch + "b", ch * 3, "a@b" + ch + "org"):
            if "." not in s:
                assert _RULES.url_match(s) is None, s


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(list("abc.:/@-_0123456789?#%")), st.characters(codec=None)),
               min_size=1, max_size=20))
def test_url_required_hypothesis(s):
    if "." not in s:
        assert _RULES.url_match(s) is None
    if not any(ch.isspace() for ch in s):
        assert _compiled_module().affix_tokenize_chunk(_RULES, s) == _RULES.tokenize_chunk(s)


def test_alpha_fast_path_code_points():
    """The compiled fast path for letters no affix rule can touch (and one always-split suffix
    character) against the reference's affix loop: every 5th letter past ASCII, in letter
    contexts, with and without each suffix character. (Run over every letter and more contexts
    when it was written: 8.8 million chunks, no difference.)"""
    module = _compiled_module()
    covered = 0
    for code in range(0x80, sys.maxunicode + 1, 5):
        ch = chr(code)
        if not ch.isalpha():
            continue
        for chunk in (ch, "x" + ch, ch + "é", "ä" + ch + "z", ch + ",", "é" + ch + ")", ch + "’", ch + "."):
            got = module.alpha_chunk_tokens(_RULES, chunk)
            if got is not None:
                covered += 1
                assert got == _RULES.tokenize_chunk(chunk), chunk
    assert covered > 60000


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.one_of(st.characters(categories=("Lu", "Ll", "Lo", "Lm", "Lt")),
                                  st.sampled_from(list("äöüéèçßñ"))), min_size=1, max_size=12),
       st.sampled_from(_FAST_LAST + ["", "", "-", "$", "1"]))
def test_alpha_fast_path_hypothesis(word, last):
    chunk = word + last
    got = _compiled_module().alpha_chunk_tokens(_RULES, chunk)
    if got is not None:
        assert got == _RULES.tokenize_chunk(chunk)


def test_compiled_cache_threads_and_turnover():
    """The compiled twin's chunk cache (two C tables) shared by threads, with a cache small
    enough to turn over all the time: every thread's words are the reference's."""
    import threading

    module = _compiled_module()
    compiled = module.CompiledEnglish(_RULES, max_cache=16)
    texts = [" ".join(f"w{i % 37}x{j} (a{j}) é{i}ö {j}." for j in range(60)) for i in range(12)]
    want = [T.strip_strings(_RULES(t).texts) for t in texts]
    errors = []

    def work(k):
        try:
            for _ in range(15):
                for i, t in enumerate(texts):
                    if compiled.word_tokenize(t) != want[i]:
                        errors.append((k, i))
        except Exception as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert 0 < compiled.cache_size() <= 32
