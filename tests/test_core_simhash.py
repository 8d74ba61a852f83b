"""The core's simhash tally (cython_core/simhash.pxi) against the reference's per-token votes
(reference/trafila/simhash.py), and the fingerprints the extraction writes with it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trafila import simhash

core = pytest.importorskip("trafila._core")


WORDS = st.lists(st.sampled_from(["alpha", "beta,", "(gamma)", "über", "東京。", "中文", "字、字", "x1", "the",
                                  "naïve", "—", "a", "well.", "ΣΊΣΥΦΟΣ"]), max_size=150).map(" ".join)


def python_votes(tokens, length):
    return simhash._votes_hash(tokens, length, None)


@settings(max_examples=400, deadline=None)
@given(tokens=st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12),
                       max_size=200),
       length=st.sampled_from([64, 63, 32, 16, 8, 1, 0]))
def test_votes_equal_the_reference(tokens, length):
    assert core.simhash_votes(tokens, length) == python_votes(tokens, length)


def test_no_token_sets_every_bit_and_ties_set_the_bit():
    assert core.simhash_votes([], 64) == (1 << 64) - 1 == python_votes([], 64)
    # two tokens: a bit where they disagree sums to 0, which sets it
    pair = ["alpha", "beta"]
    assert core.simhash_votes(pair, 64) == python_votes(pair, 64)
    one = core.simhash_votes(["alpha"], 64)
    assert one == python_votes(["alpha"], 64) and one != (1 << 64) - 1


@pytest.mark.parametrize("length", [-1, 65, 128])
def test_lengths_beyond_64_bits_are_the_references(length):
    with pytest.raises(ValueError):
        core.simhash_votes(["alpha"], length)
    if length > 0:
        # the reference path serves them (a 64-bit value votes -1 on every higher bit)
        assert simhash._votes_hash(["alpha"], length, core) == python_votes(["alpha"], length)


@settings(max_examples=300, deadline=None)
@given(text=WORDS)
def test_fingerprints_with_the_core_equal_the_public_ones(text):
    assert simhash.page_fingerprint(text, core) == simhash.content_fingerprint(text) == simhash.page_fingerprint(text)
    assert simhash.content_fingerprint_1_11_0(text, core) == simhash.content_fingerprint_1_11_0(text)


# letters, digits and punctuation of several scripts, ASCII and Unicode spaces, symbols, marks
SAMPLE_CHARS = st.one_of(
    st.sampled_from(list(" \t\n\x0b\x1c\x85\xa0\u2003\u3000") + list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")),
    st.sampled_from(list("。、，！？«»¡¿—–‘’“”…·・「」『』¶§†‡•،؛؟।॥፡")),
    st.characters(categories=("Lu", "Ll", "Lo", "Lm", "Nd", "Nl", "No", "Mn", "Mc", "Pc", "Pd", "Ps", "Pe",
                              "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs")),
    st.sampled_from(list("abcXYZ0123456789éßñ中文字東京ΣΊΣΥΦΟΣ٣४²½Ⅻ𝟙𐀀")),
)
SAMPLE_TEXTS = st.one_of(st.text(alphabet=SAMPLE_CHARS, max_size=300), WORDS)


@settings(max_examples=1500, deadline=None)
@given(text=SAMPLE_TEXTS, length=st.sampled_from([64, 64, 63, 24, 8, 2, 1, 0, -3, 200]))
def test_c_sampling_is_the_python_twins(text, length):
    "The C pass samples the tokens of both releases' sample_tokens, in order, on any str."
    assert core.simhash_sample_tokens(text, length) == simhash.sample_tokens(text, length)
    assert core.simhash_sample_tokens(text, length, True) == simhash.sample_tokens_1_11_0(text, length)


def test_c_sampling_edges():
    for text in ("", " ", "中文。字", "中文。字 ...", "!!! ?", "a", "...a...", "x\x1cy", "é\u0301", "Ⅻ ½ ²",
                 "東京、大阪。京都", "«oui» — non", "a_b", "a-b c.d", "\U0001d7d9\U0001d7da", "\ud800 x1"):
        assert core.simhash_sample_tokens(text) == simhash.sample_tokens(text), repr(text)
        assert core.simhash_sample_tokens(text, 64, True) == simhash.sample_tokens_1_11_0(text), repr(text)
    # 2.3.1 splits a text without ASCII-punctuated tokens at Unicode punctuation, 1.11.0 does not
    assert core.simhash_sample_tokens("中文。字") == ["中文", "字"]
    assert core.simhash_sample_tokens("中文。字", 64, True) == []
    with pytest.raises(TypeError):
        core.simhash_sample_tokens(b"bytes")


def test_fingerprints_sample_in_c(monkeypatch):
    "page_fingerprint and content_fingerprint_1_11_0 take the core's tokens when a core is given."
    seen = []

    class Spy:
        simhash_votes = staticmethod(core.simhash_votes)

        @staticmethod
        def simhash_sample_tokens(text, length, release_1_11_0):
            seen.append(release_1_11_0)
            return core.simhash_sample_tokens(text, length, release_1_11_0)

    text = "Some words, longer words and 中文。字"
    assert simhash.page_fingerprint(text, Spy) == simhash.content_fingerprint(text)
    assert simhash.content_fingerprint_1_11_0(text, Spy) == simhash.content_fingerprint_1_11_0(text)
    assert seen == [False, True]


@pytest.mark.skipif(not __import__("importlib").util.find_spec("trafilatura"), reason="trafilatura not installed")
@settings(max_examples=400, deadline=None)
@given(text=SAMPLE_TEXTS)
def test_c_sampling_is_the_installed_trafilaturas(text):
    "Against the installed release's own sample_tokens (2.3.1 or 1.11.0, by the venv)."
    import trafilatura
    from trafilatura.deduplication import sample_tokens

    theirs = sample_tokens(text)
    assert core.simhash_sample_tokens(text, 64, trafilatura.__version__ == "1.11.0") == theirs
