"""The pruning stage's link-density passes in C (cython_core/accel_prune.pxi:
delete_by_link_density, link_density_verdict, link_density_table) against
the same functions of 2.3.1's and 1.11.0's htmlprocessing run on the
reference's trees (the Python path): generated trees in the converted
vocabulary (ref, list, item, graphic, head, quote, td/th, comments, all kinds
of whitespace and text lengths around the thresholds, characters lxml's
setters refuse in tails) and corpus pages after tree_cleaning and
convert_tags."""

from __future__ import annotations

import pytest
from tests._helpers import NO_CORE
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend, _engine  # noqa: E402
from trafila.treedump import dump_element  # noqa: E402
from trafila.v1_11_0 import htmlprocessing as hp11  # noqa: E402
from trafila.v1_11_0.settings import Extractor as Extractor11  # noqa: E402
from trafila.v2_3_1 import htmlprocessing as hp  # noqa: E402
from trafila.v2_3_1._tree import copy_tree  # noqa: E402
from trafila.v2_3_1.settings import Extractor  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

CORE = _engine.core_module()
BACKEND = _backend.core_backend(CORE)
MODELS = ((trafila.html.fromstring, _backend.reference()), (CORE.dom.fromstring, BACKEND))
TAGS = ("div", "list", "p", "head", "quote", "item", "td", "table")


def run_both(stage, html, prepare=None):
    "``stage(tree)`` on each model's parse of ``html`` (after ``prepare``): [reference, core] results or errors."
    out = []
    for parse, backend in MODELS:
        with _backend.use(backend):
            tree = copy_tree(parse(html))
            try:
                if prepare is not None:
                    tree = prepare(tree)
                out.append(stage(tree))
            except ValueError as err:
                out.append(("ValueError", str(err)))
    return out


def deletions_2_3_1(tag, backtracking, precision):
    return lambda tree: dump_element(hp.delete_by_link_density(tree, tag, backtracking, precision))


def deletions_1_11_0(tag, backtracking, precision):
    return lambda tree: dump_element(hp11.delete_by_link_density(tree, tag, backtracking, precision))


def verdicts_2_3_1(tree, precision):
    out = []
    for el in [tree, *tree.iterdescendants()]:
        if isinstance(el.tag, str):
            out.append((el.tag, hp.link_density_test(el, precision), hp.link_density_test_tables(el)))
    return out


def verdicts_1_11_0(tree, precision):
    out = []
    core = _backend.core_of(tree)
    for el in [tree, *tree.iterdescendants()]:
        if not isinstance(el.tag, str):
            continue
        elemlen = len(hp11.trim(el.text_content()))
        result, mylist = hp11._link_density_test(el, elemlen, precision)
        # the reference hands back the link texts, the core their lengths
        lengths = mylist if core is not None else [len(t) for t in mylist]
        out.append((el.tag, result, lengths, hp11.link_density_test_tables(el)))
    return out


def check_page(html, prepare_2_3_1=None, prepare_1_11_0=None):
    for precision in (False, True):
        ref, core = run_both(lambda t: verdicts_2_3_1(t, precision), html, prepare_2_3_1)
        assert ref == core, ("2.3.1 verdicts", precision)
        ref, core = run_both(lambda t: verdicts_1_11_0(t, precision), html, prepare_1_11_0)
        assert ref == core, ("1.11.0 verdicts", precision)
        for tag in ("div", "list", "p", "head", "quote"):
            for backtracking in (False, True):
                ref, core = run_both(deletions_2_3_1(tag, backtracking, precision), html, prepare_2_3_1)
                assert ref == core, ("2.3.1", tag, backtracking, precision)
                ref, core = run_both(deletions_1_11_0(tag, backtracking, precision), html, prepare_1_11_0)
                assert ref == core, ("1.11.0", tag, backtracking, precision)


def test_the_core_path_is_taken(monkeypatch):
    calls = []
    real = CORE.delete_by_link_density

    class Spy:
        def __getattr__(self, name):
            return getattr(CORE, name)

        def delete_by_link_density(self, *args):
            calls.append(args[1])
            return real(*args)

    html = "<html><body><div><ref>a link</ref><ref>b</ref></div><p>text text</p></body></html>"
    for module, stage in ((hp, deletions_2_3_1), (hp11, deletions_1_11_0)):
        monkeypatch.setattr(module, "core_of", lambda el: Spy() if _backend.core_of(el) is not None else None)
        calls.clear()
        ref, core = run_both(stage("div", True, False), html)
        assert ref == core and calls == ["div"]
        assert "ref" not in str(core)  # the div went


FIXED = [
    # one long link making the whole element (2.3.1's single-link rule), a graphic saving it
    "<div><ref>" + "word " * 30 + "</ref></div><div><ref>" + "word " * 30 + "</ref><graphic/></div><p>z</p>",
    # short elements mostly links, short-link lists, empty links, nested refs
    "<div><p>ab<ref>x</ref><ref>y</ref><ref> </ref></p><p>t</p></div><list><item><ref>one</ref></item>"
    "<item><ref>two</ref></item><item><ref><ref>three</ref></ref></item></list><p><ref></ref></p>",
    # link farms over the size gate, a paragraph listing, and one that is not
    "<div>" + "".join(f"<p><ref>link number {i} here</ref></p>" for i in range(8)) + "</div>"
    "<div>" + "".join(f"<ref>link number {i} here</ref> " for i in range(8)) + "</div><div>x</div>"
    # between the farm ratio and half of it: kept
    "<div>" + "".join("<ref>" + "m" * 50 + "</ref> filler text " for i in range(5)) + "</div><div>y</div>",
    # the paragraphs of items and cells stay; backtracking with several children
    "<list><item><p><ref>a</ref></p></item></list><table><tr><td><p><ref>b</ref></p></td><th><p><ref>c</ref>"
    "</p></th></tr></table><div><span>a</span><span>b</span><ref>c</ref><!-- c -->tail</div>",
    # tables around 200/250/1000 characters
    "<table><tr><td>" + "<ref>" + "l" * 220 + "</ref>" + "x" * 30 + "</td></tr></table>"
    "<table><tr><td>" + "<ref>" + "l" * 600 + "</ref>" + "x" * 500 + "</td></tr></table>"
    "<table><tr><td><ref> </ref>" + "y " * 140 + "</td></tr></table>",
    # whitespace of every kind, non-ASCII, a refused character in a tail
    "<div><ref>\u00a0a\u2003b\x1c</ref>\u200bz<ref>\u00e9\u00e9</ref>&#1;t</div><head><ref>h</ref></head>"
    "<quote><ref>q</ref>&#11;x</quote>",
]


@pytest.mark.parametrize("html", FIXED)
def test_fixed_trees(html):
    check_page("<html><body>" + html + "</body></html>")


TEXTS = st.sampled_from(["", " ", "a", "word ", "\n\t", "\u00a0", "\u200b", "\x1c", "\u00e9t\u00e9", "x" * 9,
                         "y" * 11, "short link", "z " * 30, "w" * 60, "q" * 120, "&#1;", "\u3000v"])
BLOCKS = ["div", "p", "list", "item", "head", "quote", "span", "td"]


@st.composite
def trees(draw, depth=0):
    parts = []
    for _ in range(draw(st.integers(0, 4 if depth < 3 else 0))):
        kind = draw(st.sampled_from(["ref", "ref", "graphic", "comment", *BLOCKS]))
        if kind == "comment":
            parts.append("<!--c-->" + draw(TEXTS))
        elif kind == "graphic":
            parts.append("<graphic/>" + draw(TEXTS))
        else:
            inner = draw(TEXTS) + draw(trees(depth + 1))
            parts.append(f"<{kind}>{inner}</{kind}>" + draw(TEXTS))
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(trees())
def test_generated_trees(body):
    check_page("<html><body><div>" + body + "</div>" + body + "</body></html>")


@settings(max_examples=200, deadline=None)
@given(trees())
def test_prune_html_on_generated_trees(body):
    html = "<html><body><div>" + body + "</div><p></p><span/>&#1;t<b><i></i></b>" + body + "</body></html>"
    for focus in ("balanced", "precision"):
        ref, core = run_both(lambda t: dump_element(hp.prune_html(t, focus)), html)
        assert ref == core, focus
    ref, core = run_both(lambda t: dump_element(hp11.prune_html(t)), html)
    assert ref == core


def test_prune_html_core_path_is_taken(monkeypatch):
    calls = []
    real = CORE.delete_empty

    def spy(*args):
        calls.append(args[3])
        return real(*args)

    monkeypatch.setattr(CORE, "delete_empty", spy)
    html = "<html><body><div><p></p>t<span>x</span><em></em></div></body></html>"
    ref, core = run_both(lambda t: dump_element(hp.prune_html(t, "precision")), html)
    assert ref == core and calls == [False]
    ref, core = run_both(lambda t: dump_element(hp11.prune_html(t)), html)
    assert ref == core and calls == [False, True]


def prepared_2_3_1(options):
    return lambda tree: hp.convert_tags(hp.tree_cleaning(tree, options), options)


def prepared_1_11_0(options):
    return lambda tree: hp11.convert_tags(hp11.tree_cleaning(tree, options), options)


@needs_corpora
def test_corpus_pages():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl"), 4):
        if "str" not in page.forms():
            continue
        html = page.input("str")
        for p23, p11 in ((Extractor(), Extractor11()), (Extractor(precision=True), Extractor11(precision=True))):
            check_page(html, prepared_2_3_1(p23), prepared_1_11_0(p11))
            compared += 1
    assert compared >= 30


# -- the selectors' prefilter: literals bucketed by first byte (accel_selectors.pxi) ----------------

LITERALS = st.lists(st.text(alphabet=st.sampled_from("abAB-_\u00e9 x"), min_size=1, max_size=4), min_size=1, max_size=12)
VALUES = st.text(alphabet=st.sampled_from("abAB-_\u00e9 xyK\u212a\u017f"), max_size=16)


@settings(max_examples=400, deadline=None)
@given(LITERALS, VALUES, VALUES)
def test_prefilter_terms_are_literal_containment(literals, value, other):
    ascii_lits = [lit for lit in literals if lit.isascii()] or ["a"]
    filters = {
        "contains": (CORE.Prefilter([("class", "contains", literals)]), lambda v: any(lit in v for lit in literals)),
        "fold": (CORE.Prefilter([("class", "fold", ascii_lits)]),
                 lambda v: any(lit.lower() in v.translate(FOLD) for lit in ascii_lits)),
        "fold_ic": (CORE.Prefilter([("class", "fold_ic", ascii_lits)]),
                    lambda v: not v.isascii() or any(lit.lower() in v.lower() for lit in ascii_lits)),
        # two terms on two attributes: the buckets are per term
        "two": (CORE.Prefilter([("id", "contains", ["zz"]), ("class", "contains", literals)]),
                lambda v: any(lit in v for lit in literals)),
    }
    for val in (value, other + value, value + other):
        el = CORE.dom.fromstring("<div><p>x</p></div>")
        p = el[0]
        p.set("class", val)
        for name, (pf, model) in filters.items():
            assert CORE.prefilter_passes(p, pf) == model(val), (name, val, literals)


FOLD = {c: c + 32 for c in range(65, 91)}
