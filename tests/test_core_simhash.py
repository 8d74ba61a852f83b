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
