"""readability's remaining stages in C (cython_core/accel_readability.pxi:
``rd_transform_misused_divs``, ``rd_article_siblings``, ``rd_tostring_xml_utf8``)
against the Python code they replace.

Each comparison runs the same input three ways: the core's tree through the C
path, the core's tree with ``core_of`` switched off for the module (the Python
loops over the very same element model), and the reference model's tree; the
trees after the stage (tags, texts, tails, attributes, children counts) and the
values handed back must be equal. Inputs: Hypothesis trees (the generator of
tests/test_core_accel_readability_stages.py, which reaches the loose-text,
<br>, refused-character and sibling branches), hand-written pages and corpus
pages; ``try_readability`` of both releases as a whole.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, List

import pytest

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "reference"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests._helpers import needs_corpora, sample_pages  # noqa: E402
from tests.test_core_accel_readability_stages import (  # noqa: E402
    _core, _NoCore, build, described, dump, node_spec, on_core, outcome, wrapped,
)
from trafila import _backend  # noqa: E402
from trafila import dom as refdom  # noqa: E402
from trafila import readability_1_11_0 as rd111  # noqa: E402
from trafila import readability_2_3_1 as rd  # noqa: E402


def _full(tree: Any) -> Any:
    while tree.getparent() is not None:
        tree = tree.getparent()
    return tree


# -- transform_misused_divs_into_paragraphs --------------------------------------------------------

def misused_run(module: Any) -> Any:
    def run(tree: Any) -> list:
        doc = module.Document(tree)
        out: List[Any] = []
        try:
            doc.remove_unlikely_candidates()
            out.append(dump(tree))
            doc.transform_misused_divs_into_paragraphs()
        except Exception as err:  # noqa: BLE001 - both sides must fail alike
            out.append(("raised", type(err).__name__, str(err)))
        out.append(dump(tree))
        return out
    return run


def three_ways(core: Any, module: Any, run: Any, make_ref: Any, make_core: Any) -> Any:
    got = on_core(core, run, make_core())
    with _NoCore(module):
        python_on_core = on_core(core, run, make_core())
    assert got == python_on_core
    assert run(make_ref()) == got
    return got


# -- get_article ------------------------------------------------------------------------------------

def article_run(module: Any) -> Any:
    def run(tree: Any) -> list:
        doc = module.Document(tree)
        out: List[Any] = []
        try:
            doc.transform_misused_divs_into_paragraphs()
            candidates = doc.score_paragraphs()
            out.append(described(candidates))
            best = doc.select_best_candidate(candidates)
            if best is not None:
                article = doc.get_article(candidates, best)
                out.append(dump(article))
                out.append([(e.tag, described({e: candidates[e]}) if e in candidates else None)
                            for e in article.iter()])
        except Exception as err:  # noqa: BLE001
            out.append(("raised", type(err).__name__, str(err)))
        out.append(dump(tree))
        return out
    return run


# -- try_readability as a whole ------------------------------------------------------------------------

def try_2_3_1(tree: Any) -> Any:
    result = outcome(rd.try_readability, tree)
    if isinstance(result, tuple):
        return result
    return (dump(result), _backend.current().tostring_xml(result), dump(_full(tree)))


def try_1_11_0(tree: Any) -> Any:
    from trafila.v1_11_0 import external as ext111

    result = outcome(ext111.try_readability, tree)
    if result is None or isinstance(result, tuple):
        return result
    return (dump(result), _backend.current().tostring_xml(result), dump(_full(tree)))


def compare_all(core: Any, make_ref: Any, make_core: Any) -> None:
    three_ways(core, rd, misused_run(rd), make_ref, make_core)
    three_ways(core, rd111, misused_run(rd111), make_ref, make_core)
    three_ways(core, rd, article_run(rd), make_ref, make_core)
    three_ways(core, rd111, article_run(rd111), make_ref, make_core)
    three_ways(core, rd, try_2_3_1, make_ref, make_core)
    three_ways(core, rd111, try_1_11_0, make_ref, make_core)


@given(node_spec(), st.booleans())
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_trees(spec, wrap):
    core = _core()
    if wrap:
        spec = wrapped(spec)
    compare_all(core, lambda: build(refdom, spec), lambda: build(core.dom, spec))


# loose text around <br>s and blocks, with the strings lxml's setters refuse
LOOSE = ["", " ", "\n", "\xa0", "x", "a.", ". b", "\x0c", "\x01y", "é\ufffe", "\u3000", "t " * 50]
loose = st.one_of(st.none(), st.sampled_from(LOOSE))
KID_TAGS = ["br", "br", "span", "b", "div", "p", "a", "img", "BR"]


@st.composite
def div_spec(draw: Any) -> tuple:
    kids = draw(st.lists(st.tuples(st.sampled_from(KID_TAGS), loose, loose, st.just({}), st.just(())), max_size=7))
    inner = ("div", draw(loose), draw(loose), {}, tuple(kids))
    return wrapped(("div", draw(loose), None, {}, (inner, ("div", draw(loose), draw(loose), {}, tuple(kids[:2])))))


@given(div_spec())
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_loose_text_divs(spec):
    core = _core()
    for module in (rd, rd111):
        three_ways(core, module, misused_run(module), lambda: build(refdom, spec), lambda: build(core.dom, spec))
    three_ways(core, rd, try_2_3_1, lambda: build(refdom, spec), lambda: build(core.dom, spec))


# get_article's p test: lengths around 80 (code points), DOT_SPACE and link densities
SIB_PIECES = [".", ". ", ".\n", "\n.", " ", "\n", "x", "é", "\U0001F600", "a" * 40, ".\n\n", "z" * 79, ".x"]
sib_text = st.one_of(st.none(), st.lists(st.sampled_from(SIB_PIECES), max_size=6).map("".join))


@st.composite
def sibling_spec(draw: Any) -> tuple:
    kids = []
    for _ in range(draw(st.integers(1, 6))):
        links = tuple(("a", draw(sib_text), None, {}, ()) for _ in range(draw(st.integers(0, 2))))
        kids.append((draw(st.sampled_from(["p", "p", "div", "span"])), draw(sib_text), draw(sib_text), {}, links))
    best = ("div", None, None, {"class": "content"}, (("p", "word, " * draw(st.integers(5, 60)), None, {}, ()),))
    pos = draw(st.integers(0, len(kids)))
    kids.insert(pos, best)
    return wrapped(("div", None, None, {}, tuple(kids)))


@given(sibling_spec())
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_article_siblings(spec):
    core = _core()
    for module in (rd, rd111):
        three_ways(core, module, article_run(module), lambda: build(refdom, spec), lambda: build(core.dom, spec))


DOT_SPACE = re.compile(r"\.( |$)")


@given(st.text(alphabet=st.sampled_from([".", " ", "\n", "x", "é", "\r", "\t", "\U0001F600"]), max_size=12))
@settings(max_examples=2000, deadline=None)
def test_dot_space_and_length(text):
    """A lone <p> sibling with no links: appended iff len > 80 or DOT_SPACE finds a match."""
    core = _core()
    for body in (text, text * 9):
        top = core.dom.Element("div")
        best = core.dom.SubElement(top, "div")
        p = core.dom.SubElement(top, "p")
        p.text = body
        got = core.rd_article_siblings(best, {}, 10)
        want = [best] + ([p] if len(body) > 80 or DOT_SPACE.search(body) else [])
        assert got == want


def test_article_siblings_not_implemented():
    core = _core()
    top = core.dom.Element("div")
    best = core.dom.SubElement(top, "div")
    other = core.dom.SubElement(top, "div")
    assert core.rd_article_siblings(best, {}, 10.5) == [best]
    assert core.rd_article_siblings(best, {other: rd.Candidate("x", other)}, 10) is NotImplemented
    assert core.rd_article_siblings(best, {}, "10") is NotImplemented
    assert core.rd_article_siblings(top, {}, 10) is NotImplemented  # no parent
    assert core.rd_article_siblings(best, {other: rd.Candidate(10, other)}, 10) == [best, other]
    assert core.rd_article_siblings(best, {other: rd.Candidate(9.999, other)}, 10) == [best]


@given(node_spec())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_tostring_xml_utf8(spec):
    core = _core()
    tree = build(core.dom, spec)
    for el in list(tree.iter())[::2]:
        want = core.tostring_xml(el).encode("utf8", "surrogatepass")
        assert core.rd_tostring_xml_utf8(el) == want


def test_unlikely_many_values():
    """Many class and id values, each repeated: unlikely_candidates' verdicts are the reference's."""
    core = _core()
    words = core.UNLIKELY_WORDS + core.OK_MAYBE_WORDS + ("x", "y-z", "ab")
    top = core.dom.Element("body")
    want = []
    for k in range(2500):
        value = "%s%d %s" % (words[k % len(words)], k % 900, words[(k * 7) % len(words)])
        child = core.dom.SubElement(top, "div")
        child.set("class", value)
        if k % 3 == 0:
            child.set("id", words[(k * 5) % len(words)])
        attrs = " ".join(v for v in (child.get("class"), child.get("id")) if v)
        if len(attrs) >= 2 and rd._unlikely_verdict(attrs):
            want.append(child)
    assert core.unlikely_candidates(top, rd._unlikely_verdict) == want


HAND = [
    '<html><body><div>loose<br>text<br> <br>\n<span>s</span> tail<div>in</div>after</div></body></html>',
    '<html><body><div>a\x0cb<br>c</div><div>ok<br>x</div></body></html>',
    '<html><body><div><br>x<br>\x01<br></div><p>' + "word " * 30 + '</p></body></html>',
    '<html><body><div class="post"><p>' + "para, " * 40 + '</p></div><p>' + "z" * 81 + '</p><p>end. </p>'
    '<p>end.</p><p>end.\n</p><p>end.\n\n</p><p><a>x</a>' + "y" * 90 + '</p></body></html>',
    '<html><body><div id="content"><div><p>' + "one, two " * 20 + '</p></div><div><p>' + "three " * 30
    + '</p></div></div><div class="sidebar comment">x</div><div class="x\u212a">k</div></body></html>',
]


@pytest.mark.parametrize("markup", HAND)
def test_hand_written(markup):
    from trafila import html

    core = _core()
    compare_all(core, lambda: html.fromstring(markup), lambda: core.fromstring_view(markup))


BUNDLES = os.environ.get("TRAFILA_ACCEL_RD2_BUNDLES", "trafilatura,cleaneval,dragnet,goose3").split(",")
STEP = int(os.environ.get("TRAFILA_ACCEL_RD2_STEP", "40"))


@needs_corpora
def test_corpus_pages():
    from trafila import html

    core = _core()
    pages = 0
    for _name, page in sample_pages(BUNDLES, STEP):
        markup = page.html
        if markup is None:
            continue
        try:
            html.fromstring(markup)
        except Exception:  # noqa: BLE001 - no tree, nothing to compare
            continue
        compare_all(core, lambda: html.fromstring(markup), lambda: core.fromstring_view(markup))
        pages += 1
    assert pages > 0


# step 1's verdicts from one pass: nested divs, prefix tags at any depth, links with and without loose text
NEST_TAGS = ["div", "div", "div", "span", "a", "a", "picture", "dialog", "tbody", "pre", "x-y", "DIV", "em", "p"]


def nest_spec():
    text = st.sampled_from([None, "", " ", "\n\t", "\xa0", "w", "\x0b"])
    leaf = st.tuples(st.sampled_from(NEST_TAGS), text, text, st.just({}), st.just(()))
    return st.recursive(leaf, lambda kids: st.tuples(st.sampled_from(NEST_TAGS), text, text, st.just({}),
                                                     st.lists(kids, max_size=4).map(tuple)), max_leaves=30)


@given(nest_spec())
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_nested_div_verdicts(spec):
    core = _core()
    spec = wrapped(spec)
    for module in (rd, rd111):
        three_ways(core, module, misused_run(module), lambda: build(refdom, spec), lambda: build(core.dom, spec))


# the word sets' raw-pair filter: mixed case, word fragments next to each other
FRAGMENTS = ["com", "MENT", "Ment", "ad-", "BREAK", "foot", "er", "Side", "bar", "and", "AND", "ody", "b", "-",
             "Po", "st", "TEXT", "x", "1", "sponsor", "PAGinat", "ion", "medi", "A", "tags", "Tool"]


@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=8).map("".join))
@settings(max_examples=3000, deadline=None)
def test_word_sets_mixed_case(value):
    core = _core()
    el = core.dom.Element("div")
    el.set("class", value)
    assert core.class_weight(el, rd._attribute_weight) == rd._attribute_weight(value)
    for module, flag in ((rd, False), (rd111, True)):
        top = core.dom.Element("body")
        child = core.dom.SubElement(top, "div")
        child.set("id", value)
        want = [child] if len(value) >= 2 and module._unlikely_verdict(value) else []
        assert core.unlikely_candidates(top, module._unlikely_verdict, flag) == want
