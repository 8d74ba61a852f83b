"""The grouped prefilter scan (cython_core/accel_selectors.pxi ``_pf_group``): a Prefilter's
terms merged per attribute name, one scan of a value with a lowered-byte-pair bitmap, must
answer exactly the OR of its terms as the file comment defines them, term by term (present;
contains on UTF-8 bytes, case kept; fold/fold_ic on ASCII-lowered bytes; fold_ic passing any
non-ASCII value).

* Hypothesis: many terms on few names (so groups mix contains/fold/fold_ic/present and
  literals of one byte, upper-case and non-ASCII contains literals, literals at the very end
  of the value, longer than it, sharing first bytes and pairs);
* corpus pages: every registered prefilter of both ports on every node of the core tree
  against the same term model on the node's attributes (el.attrib), and the selections with
  the prefilters on against the selections with them off (the Python predicate alone).
"""

from __future__ import annotations

import os
from typing import Any, Dict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

core = pytest.importorskip("trafila._core")

from trafila import _backend, xpathlib  # noqa: E402
from trafila.v1_11_0 import xpaths as xpaths_1_11_0  # noqa: E402,F401 (registers its prefilters)
from trafila.v2_3_1 import xpaths as xpaths_2_3_1  # noqa: E402,F401
from trafila.v2_3_1._tree import desc_list  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

CORE = _backend.core_backend(core)
ATTRS = ["class", "id"]
VALUE_ALPHABET = "aAbBcC-_ é\u017f\u212aKz0"
LITERAL_ALPHABET = "aAbBcC-_ éz"


def _ascii_lower(s: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def term_model(values: Dict[str, str], terms, pass_tags, tag) -> bool:
    "The OR of the terms, each scanned on its own (the semantics before the grouping)."
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


def _term(draw_kind: str, lits):
    if draw_kind == "present":
        return ()
    if draw_kind != "contains":
        lits = [lit for lit in lits if lit.isascii()] or ["a"]
    return tuple(lits)


literal = st.text(alphabet=LITERAL_ALPHABET, min_size=1, max_size=3)
term = st.tuples(st.sampled_from(ATTRS), st.sampled_from(["contains", "contains", "fold", "fold_ic", "present"]),
                 st.lists(literal, min_size=1, max_size=6))


@settings(max_examples=1500, deadline=None)
@given(terms=st.lists(term, min_size=1, max_size=8),
       values=st.dictionaries(st.sampled_from(ATTRS + ["role"]), st.text(alphabet=VALUE_ALPHABET, max_size=10),
                              max_size=3),
       tag=st.sampled_from(["div", "main"]), pass_main=st.booleans())
def test_grouped_scan_is_the_or_of_the_terms(terms, values, tag, pass_main):
    terms = [(name, kind, _term(kind, lits)) for name, kind, lits in terms]
    pass_tags = ("main",) if pass_main else ()
    pf = core.Prefilter(terms, pass_tags)
    el = core.dom.Element(tag)
    for name, value in values.items():
        el.set(name, value)
    assert core.prefilter_passes(el, pf) == term_model(values, terms, pass_tags, tag), (terms, values)


@pytest.mark.parametrize("value,expected", [
    ("xab", True),      # at the end
    ("ab", True),       # the whole value
    ("a", False),       # shorter than the literal
    ("xAB", False),     # contains keeps case
    ("qQ", True),       # a one-byte fold literal at the last position
    ("Zé", True),       # fold_ic: a non-ASCII byte after no literal
])
def test_grouped_scan_edges(value, expected):
    pf = core.Prefilter([("class", "contains", ("ab",)), ("class", "fold", ("q",)),
                         ("id", "fold_ic", ("zz",)), ("class", "fold_ic", ("zzz",))])
    el = core.dom.Element("div")
    el.set("class", value)
    assert core.prefilter_passes(el, pf) == expected


_STEP = int(os.environ.get("TRAFILA_SELECT_STEP", "15"))
_BUNDLES = os.environ.get("TRAFILA_SELECTORS_BUNDLES", "goose3,cleanportaleval,commoncrawl,trafilatura,"
                          "readability,jusText").split(",")


@needs_corpora
def test_corpus_prefilters_are_the_term_semantics() -> None:
    specs = list(xpathlib.PREFILTER_SPECS.items())
    assert len(specs) > 20
    compiled = [(pred, xpathlib.compiled_prefilter(core, pred),
                 [(n, kind, lits) for names, kind, lits in terms for n in names], tuple(pass_tags))
                for pred, (terms, pass_tags) in specs]
    pages = nodes = 0
    failures = []
    for _name, page in sample_pages(_BUNDLES, _STEP):
        if page.html is None:
            continue
        tree = core.dom.document_fromstring(page.html)
        pages += 1
        for el in desc_list(tree):
            if not isinstance(el.tag, str):
                continue
            values = dict(el.attrib.items())
            nodes += 1
            for pred, pf, terms, pass_tags in compiled:
                if core.prefilter_passes(el, pf) != term_model(values, terms, pass_tags, el.tag):
                    failures.append((page.id, pred.__name__, el.tag, values))
        # the selections: prefilters (and matchers) on versus the Python predicate alone
        for pred, _pf, _terms, _pass in compiled[:40]:
            with_pf = [e.node_index for e in xpathlib.select(tree, None, pred)]
            xpathlib.USE_PREFILTERS = False
            try:
                without = [e.node_index for e in xpathlib.select(tree, None, pred)]
            finally:
                xpathlib.USE_PREFILTERS = True
            if with_pf != without:
                failures.append((page.id, pred.__name__, "select", len(with_pf), len(without)))
    assert pages > 10 and nodes > 1000
    print(f"{pages} pages, {nodes} nodes x {len(compiled)} prefilters")
    assert failures == [], failures[:5]
