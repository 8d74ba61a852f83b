"""The Prefilter's term semantics (cython_core/accel_selectors.pxi), exactly: on any
attribute values, ``prefilter_passes`` answers what the file comment defines, term by term
(present; contains on UTF-8 bytes; fold with ASCII letters lowered; fold_ic passing any
non-ASCII value). The one-pass matcher (first-byte tables) must give the answer of a
scan per literal, overlapping and repeated literals, literals longer than the value,
matches at either end, included."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila

if "core" not in trafila.engines_built():
    from tests._helpers import NO_CORE

    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _engine  # noqa: E402

CORE = _engine.core_module()
ATTRS = ["class", "id", "role"]
ALPHABET = "aAbBnN-_ é\u017f\u212aK"


def _ascii_lower(s: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def model(values: dict, terms, pass_tags, tag) -> bool:
    if tag in pass_tags:
        return True
    for name, kind, literals in terms:
        if name not in values:
            continue
        value = values[name]
        if kind == "present":
            return True
        if kind == "fold_ic" and not value.isascii():
            return True
        if kind == "contains":
            if any(lit in value for lit in literals):
                return True
        elif any(lit.lower() in _ascii_lower(value) for lit in literals):
            return True
    return False


literal = st.text(alphabet="aAbBnN-_ ", min_size=1, max_size=4)
term = st.tuples(st.sampled_from(ATTRS), st.sampled_from(["contains", "fold", "fold_ic", "present"]),
                 st.lists(literal, min_size=1, max_size=5))


@settings(max_examples=600, deadline=None)
@given(terms=st.lists(term, min_size=1, max_size=6),
       values=st.dictionaries(st.sampled_from(ATTRS), st.text(alphabet=ALPHABET, max_size=12), max_size=3),
       tag=st.sampled_from(["div", "main", "p"]), pass_main=st.booleans())
def test_prefilter_passes_is_the_term_semantics(terms, values, tag, pass_main):
    terms = [(name, kind, () if kind == "present" else tuple(lits)) for name, kind, lits in terms]
    pass_tags = ("main",) if pass_main else ()
    pf = CORE.Prefilter(terms, pass_tags)
    el = CORE.dom.Element(tag)
    for name, value in values.items():
        el.set(name, value)
    assert CORE.prefilter_passes(el, pf) == model(values, terms, pass_tags, tag)
