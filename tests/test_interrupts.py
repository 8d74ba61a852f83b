"""Interrupts (issue 19): the 2.3.1 trims (utils', readability's) collapse a long text in pieces cut at whitespace, so that
Ctrl-C is handled between them (reports/interrupts.md); the result is the one-call result."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trafila import readability_2_3_1, text
from trafila.v2_3_1 import utils

SPACES = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680", "\u2000",
          "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u200b", "\ufeff"]


def _one_call(s):
    return " ".join(s.split())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(SPACES), st.text(min_size=1, max_size=6)), max_size=80),
       st.integers(1, 9))
def test_collapse_in_pieces_is_the_one_call_result(parts, piece):
    s = "".join(parts)
    old = text.COLLAPSE_PIECE
    text.COLLAPSE_PIECE = piece  # tiny pieces: every cut and boundary case
    try:
        assert utils._collapse(s) == _one_call(s)
    finally:
        text.COLLAPSE_PIECE = old


def test_collapse_long_text_default_piece():
    rng = random.Random(19)
    words = ["word", "mot", "\u00e9t\u00e9", "x" * 50, ""]
    s = "".join(rng.choice(words) + rng.choice(SPACES) * rng.randint(0, 3) for _ in range(400_000))
    assert len(s) > 2 * text.COLLAPSE_PIECE
    assert utils._collapse(s) == _one_call(s)
    utils.trim.cache_clear()
    assert utils.trim(s) == _one_call(s).strip()
    assert readability_2_3_1.trim(s) == _one_call(s).strip()
    # a text without whitespace past the cut is one piece
    t = "a" * (text.COLLAPSE_PIECE + 10) + " b"
    assert utils._collapse(t) == _one_call(t)


@pytest.mark.parametrize("value", [None, 3, b"bytes  here", b"x " * 600_000])
def test_trim_non_strings(value):
    utils.trim.cache_clear()
    try:
        want = " ".join(value.split()).strip()
    except (AttributeError, TypeError):
        want = ""
    assert utils.trim(value) == want
