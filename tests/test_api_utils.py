"""trafila's public text utilities against trafilatura 2.3.1's on random text:
sanitize, trim, duplicate_test, Simhash, content_fingerprint."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from trafila import simhash, utils

from .conftest import needs_trafilatura_231

pytestmark = needs_trafilatura_231

ALPHABET = st.sampled_from(
    list("abcdefgh ABC xyz 0123 éüß") + [" ", "\n", "\t", "\r", "\u00a0", "\u2424", "\u3002", "。", "、", "«", "»",
                                        ".", ",", "!", "?", "-", "'", '"', "(", ")", "\x00", "\x07", "\u200b",
                                        "\u2028", "&#13;", "&#10;", "&nbsp;", "中文", "字", ">", "{", "P", "}"]
)
TEXT = st.lists(ALPHABET, max_size=80).map("".join)
WORDS = st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
                                  "kappa", "a", "of", "the", "x1", "über", "naïve", "東京", "—", "!!", "well,"]),
                 max_size=120).map(" ".join)


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as err:  # noqa: BLE001 - compare the exception type
        return ("raise", type(err).__name__)


def test_the_port_is_reused():
    from trafila.v2_3_1 import utils as v231

    assert trafila.sanitize is v231.sanitize and trafila.trim is v231.trim
    assert trafila.Simhash is simhash.Simhash and utils.content_fingerprint is simhash.content_fingerprint


@settings(max_examples=300, deadline=None)
@given(text=TEXT, preserve=st.booleans(), trailing=st.booleans())
def test_sanitize_and_trim(text, preserve, trailing):
    from trafilatura import utils as t

    assert outcome(trafila.sanitize, text, preserve, trailing) == outcome(t.sanitize, text, preserve, trailing)
    assert trafila.trim(text) == t.trim(text)


@pytest.mark.parametrize("value", [None, 5, b"bytes  x", ["a"]])
def test_sanitize_and_trim_other_types(value):
    from trafilatura import utils as t

    assert outcome(trafila.sanitize, value) == outcome(t.sanitize, value)
    assert outcome(trafila.trim, value) == outcome(t.trim, value)


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(TEXT, WORDS), other=st.one_of(TEXT, WORDS), length=st.sampled_from([64, 32, 16]))
def test_simhash_and_fingerprint(text, other, length):
    from trafilatura import deduplication as t

    assert simhash.sample_tokens(text, length) == t.sample_tokens(text, length)
    assert simhash.generate_bow_hash(text) == t.generate_bow_hash(text)
    ours, theirs = trafila.Simhash(text, length=length), t.Simhash(text, length=length)
    assert (ours.hash, ours.to_hex()) == (theirs.hash, theirs.to_hex())
    ours2, theirs2 = trafila.Simhash(other, length=length), t.Simhash(other, length=length)
    assert ours.similarity(ours2) == theirs.similarity(theirs2)
    assert ours.hamming_distance(ours2) == bin(theirs.hash ^ theirs2.hash).count("1")
    assert trafila.content_fingerprint(text) == t.content_fingerprint(text)


EXISTING = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 2**66), st.floats(allow_nan=False),
    st.integers(0, 2**64).map(str), st.integers(0, 2**64).map(lambda i: f"{i:x}"),
    st.text(alphabet="0123456789abcdefxyz-+_ ", max_size=24),
)


@settings(max_examples=300, deadline=None)
@given(existing=EXISTING, length=st.sampled_from([64, 32]))
def test_simhash_existing_hash(existing, length):
    from trafilatura import deduplication as t

    assert outcome(lambda: trafila.Simhash("some words here", length, existing).hash) == outcome(
        lambda: t.Simhash("some words here", length, existing).hash
    )


def test_duplicate_test_counts_as_trafilatura():
    import lxml.html
    from trafilatura import deduplication as t
    from trafilatura.settings import Extractor as TExtractor

    from trafila.v2_3_1.settings import Extractor

    el = lxml.html.fromstring("<div><p>" + "repeated words " * 20 + "</p></div>")
    ours_cache, theirs_cache = trafila.LRUCache(maxsize=4), t.LRUCache(maxsize=4)
    ours_opts, theirs_opts = Extractor(dedup=ours_cache), TExtractor(dedup=theirs_cache)
    got = [trafila.duplicate_test(el, ours_opts) for _ in range(5)]
    want = [t.duplicate_test(el, theirs_opts) for _ in range(5)]
    assert got == want == [False, False, False, True, True]
    assert list(ours_cache.cache.items()) == list(theirs_cache.cache.items())
