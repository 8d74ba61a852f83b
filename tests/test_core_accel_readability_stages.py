"""readability's Document stages in C (cython_core/accel_readability.pxi: ``rd_*``)
against the Python loops they replace.

On the same input, one tree of each element model: the reference's (pure
Python, the Python loops) and the core's (the C loops, through the stages'
``core_of`` switch), stage by stage (script drop, unlikely candidates, misused
divs, ``score_paragraphs`` -- the candidates, their insertion order and the
exact float of each score --, ``select_best_candidate``, ``get_article``,
``sanitize_tree``) and as a whole ``summary()``, for trafilatura 2.3.1's and
1.11.0's readability. The C path is also compared with the Python loop run over
the very same core tree (``core_of`` switched off for the module). Inputs:
Hypothesis trees built to reach every branch (weights, counts of p/img/li/
input/embed, hidden inputs, link densities, empty containers between long
siblings, nested candidates) and corpus pages.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, List, Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "reference"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests._helpers import NO_CORE, needs_corpora, sample_pages  # noqa: E402
from trafila import _backend  # noqa: E402
from trafila import dom as refdom  # noqa: E402
from trafila import readability_1_11_0 as rd111  # noqa: E402
from trafila import readability_2_3_1 as rd  # noqa: E402


def _core() -> Any:
    try:
        import trafila._core as core
    except ImportError:
        if os.environ.get("TRAFILA_REQUIRE_EXTENSIONS") == "1":
            raise
        pytest.skip(NO_CORE)
    return core


def outcome(function: Any, *args: Any) -> Any:
    try:
        return function(*args)
    except Exception as err:  # noqa: BLE001 - both sides must fail alike
        return ("raised", type(err).__name__, str(err))


def dump(top: Any) -> list:
    return [(e.tag, e.text, e.tail, len(e), sorted(e.attrib.items())) for e in top.iter()]


def tree_top(el: Any) -> Any:
    while el.getparent() is not None:
        el = el.getparent()
    return el


def positions(el: Any) -> dict:
    return {id(e): k for k, e in enumerate(tree_top(el).iter())}


def described(candidates: dict) -> list:
    "The candidates in insertion order: (position in their tree, score's type and exact value)."
    out = []
    for elem, candidate in candidates.items():
        assert candidate.elem is elem
        pos = positions(elem)
        out.append((pos[id(elem)], type(candidate.score).__name__, float(candidate.score).hex(), elem.tag))
    return out


class _NoCore:
    "``core_of`` switched off: the module's Python loops over whatever tree it is given."

    def __init__(self, *modules: Any) -> None:
        self.modules = modules

    def __enter__(self) -> None:
        self.saved = [m.core_of for m in self.modules]
        for m in self.modules:
            m.core_of = lambda el: None

    def __exit__(self, *exc: Any) -> None:
        for m, saved in zip(self.modules, self.saved):
            m.core_of = saved


# -- the stages of 2.3.1's summary_tree, one by one ---------------------------------------------

def stages_2_3_1(tree: Any) -> list:
    """Run summary_tree's steps on ``tree``; what each step gives (and the tree
    after it), comparable across element models."""
    out: List[Any] = []
    doc = rd.Document(tree, min_text_length=25)
    try:
        rd._drop_tagged(doc.doc, rd._SCRIPT_TAGS)
        out.append(("scripts", dump(tree)))
        doc.remove_unlikely_candidates()
        out.append(("unlikely", dump(tree)))
        doc.transform_misused_divs_into_paragraphs()
        out.append(("misused", dump(tree)))
        candidates = doc.score_paragraphs()
        out.append(("score", described(candidates)))
        best = doc.select_best_candidate(candidates)
        out.append(("best", None if best is None else positions(best.elem)[id(best.elem)]))
        if best:
            article = doc.get_article(candidates, best)
        else:
            body = next((child for child in doc.doc.getchildren() if child.tag == "body"), None)
            article = body if body is not None else doc.doc
        out.append(("article", dump(article), dump(tree)))
        node = doc.sanitize_tree(article, candidates)
        out.append(("sanitize", dump(node), dump(tree)))
        out.append(("xml", _backend.current().tostring_xml(node)))
    except Exception as err:  # noqa: BLE001
        out.append(("raised", type(err).__name__, str(err)))
    return out


def summary_1_11_0(tree: Any) -> Any:
    return outcome(lambda: rd111.Document(tree).summary())


def summary_2_3_1(tree: Any) -> Any:
    return outcome(lambda: rd.Document(tree, min_text_length=25).summary())


def on_core(core: Any, function: Any, tree: Any) -> Any:
    return _backend.run_with(_backend.core_backend(core), function, tree)


def compare_all(core: Any, make_ref: Any, make_core: Any) -> None:
    """Each comparison on fresh trees: reference model vs core (C path), and
    the core tree with the Python loops vs the core tree with the C path."""
    want = stages_2_3_1(make_ref())
    got = on_core(core, stages_2_3_1, make_core())
    assert got == want
    with _NoCore(rd):
        python_on_core = on_core(core, stages_2_3_1, make_core())
    assert python_on_core == want
    assert on_core(core, summary_1_11_0, make_core()) == summary_1_11_0(make_ref())
    with _NoCore(rd111):
        assert on_core(core, summary_1_11_0, make_core()) == summary_1_11_0(make_ref())


# -- generated trees ---------------------------------------------------------------------------------

TAGS = ["p", "p", "p", "div", "div", "div", "td", "pre", "table", "ul", "ol", "li", "li", "a", "a", "img", "img",
        "embed", "input", "section", "aside", "header", "footer", "article", "h1", "h2", "h6", "form", "textarea",
        "iframe", "script", "style", "br", "span", "b", "DIV", "P", "blockquote", "tr", "nav", "th", "x-y"]
PIECES = ["lorem ipsum", "dolor, sit", ",", ", ", ". ", ".", " ", "\n", "\xa0", "\u3000", "\u2028", "é", "ß",
          "a" * 30, "word " * 20, "x. y" * 30, "z " * 600, ",,,,,", "\x0c", "K", "\U0001F600", "\t"]
texts = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
maybe_text = st.one_of(st.none(), st.just(""), texts)
ATTR_WORDS = ["comment", "content", "article", "sidebar", "footer", "main", "post", "text", "menu", "widget",
              "and", "Body", "ENTRY", "x", " ", "-", "ſ", "\u212a", "é", "rss", "media", "tags", "story", "pager"]
attr_value = st.one_of(st.none(), st.lists(st.sampled_from(ATTR_WORDS), max_size=4).map("".join))
attrs = st.fixed_dictionaries({}, optional={
    "class": attr_value.filter(lambda v: v is not None),
    "id": attr_value.filter(lambda v: v is not None),
    "type": st.sampled_from(["hidden", "Hidden", "text", ""]),
    "src": st.sampled_from(["https://www.youtube.com/embed/x", "http://vimeo.com/1", "x.html", ""]),
})


def node_spec():
    leaf = st.tuples(st.sampled_from(TAGS), maybe_text, maybe_text, attrs, st.just(()))
    return st.recursive(
        leaf,
        lambda kids: st.tuples(st.sampled_from(TAGS), maybe_text, maybe_text, attrs,
                               st.lists(kids, max_size=5).map(tuple)),
        max_leaves=40,
    )


def build(model: Any, spec: tuple, parent: Any = None) -> Any:
    tag, text, tail, attributes, kids = spec
    el = model.Element(tag) if parent is None else model.SubElement(parent, tag)
    el.text = text
    el.tail = tail
    for key, value in attributes.items():
        el.set(key, value)
    for kid in kids:
        build(model, kid, el)
    return el


def wrapped(spec: tuple) -> tuple:
    "The spec inside <html><body>, as a page is."
    return ("html", None, None, {}, (("body", None, None, {}, (spec,)),))


@given(node_spec(), st.booleans())
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_trees(spec, wrap):
    core = _core()
    if wrap:
        spec = wrapped(spec)
    compare_all(core, lambda: build(refdom, spec), lambda: build(core.dom, spec))


# -- the C functions on their own -------------------------------------------------------------------

def _trim_stats(s: str) -> tuple:
    t = rd.trim(s)
    return len(t), t.count(",")


def test_text_stats_eight_byte_blocks():
    """The scanner's 8-bytes-at-once path: every ASCII character at every position
    of a block, between words and spaces, and blocks broken by non-ASCII bytes."""
    core = _core()
    for c in range(128):
        ch = chr(c)
        for off in range(17):
            for fill in ("x", " ", ",", "\x1c"):
                s = fill * off + ch + fill * (16 - off)
                assert core._text_stats_of(s) == _trim_stats(s), (c, off, fill)
                s = "\xa0" + s + "\u3000" + s + "é"
                assert core._text_stats_of(s) == _trim_stats(s), (c, off, fill)


ascii_blocks = st.text(alphabet=st.one_of(st.characters(max_codepoint=127),
                                          st.sampled_from(["\xa0", "\x85", "é", "\u2028", "\U0001F600", "\u200b"])),
                       max_size=80)


@given(ascii_blocks)
@settings(max_examples=3000, deadline=None)
def test_text_stats_mostly_ascii(s):
    assert _core()._text_stats_of(s) == _trim_stats(s)


def test_word_sets_pair_filter():
    """class_weight / unlikely verdicts with the pair filter: every word of each set
    at every offset, in both cases, and with its first two bytes only."""
    core = _core()
    sets = [(core.NEGATIVE_WORDS + core.POSITIVE_WORDS, rd._attribute_weight),
            (core.UNLIKELY_WORDS + core.OK_MAYBE_WORDS, None)]
    for words, weight in sets:
        for word in words:
            for value in (word, word.upper(), "x" * 7 + word, word[:2], "-" + word[:2], word[:-1], word + "z"):
                el = core.dom.Element("div")
                el.set("class", value)
                assert core.class_weight(el, rd._attribute_weight) == rd._attribute_weight(value)
                top = core.dom.Element("body")
                child = core.dom.SubElement(top, "div")
                child.set("id", value)
                want = [child] if len(value) >= 2 and rd._unlikely_verdict(value) else []
                assert core.unlikely_candidates(top, rd._unlikely_verdict) == want

@given(node_spec())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_score_paragraphs_same_tree(spec):
    """rd_score_paragraphs against the Python loop over the same core tree, from every node."""
    core = _core()
    tree = build(core.dom, spec)
    for top in list(tree.iter())[::3]:
        got = core.rd_score_paragraphs(top, 25, rd._attribute_weight, rd._tag_score, rd.Candidate)
        with _NoCore(rd):
            want = rd.Document(top, min_text_length=25).score_paragraphs()
        assert described(got) == described(want)
        got = core.rd_score_paragraphs(top, 25, rd111._attribute_weight, rd111._tag_score, rd111.Candidate)
        with _NoCore(rd111):
            want = rd111.Document(top).score_paragraphs()
        assert described(got) == described(want)


def sanitize_run(tree: Any) -> list:
    "score_paragraphs then sanitize_tree from the tree's root (every container is cleaned)."
    doc = rd.Document(tree, min_text_length=25)
    out: List[Any] = []
    try:
        candidates = doc.score_paragraphs()
        out.append(described(candidates))
        doc.sanitize_tree(tree, candidates)
    except Exception as err:  # noqa: BLE001
        out.append(("raised", type(err).__name__, str(err)))
    out.append(dump(tree))
    return out


@given(node_spec())
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_sanitize_same_tree(spec):
    """rd_drop_headings / rd_drop_tagged / rd_clean_conditionally from the root
    against the Python loops over the same core tree and over the reference tree."""
    core = _core()
    got = on_core(core, sanitize_run, build(core.dom, spec))
    with _NoCore(rd):
        want = on_core(core, sanitize_run, build(core.dom, spec))
    assert got == want
    assert sanitize_run(build(refdom, spec)) == want


def sanitize_run_1_11_0(tree: Any) -> list:
    "1.11.0: the script drop, score_paragraphs, then sanitize from the tree's root."
    doc = rd111.Document(tree)
    out: List[Any] = []
    try:
        core = rd111.core_of(tree)
        if core is None or core.rd_drop_tagged(tree, rd111._SCRIPT_TAGS, rd111.drop_tree, True) is NotImplemented:
            for elem in tree.iter("script", "style"):
                rd111.drop_tree(elem)
        out.append(dump(tree))
        candidates = doc.score_paragraphs()
        out.append(described(candidates))
        out.append(doc.sanitize(tree, candidates))
    except Exception as err:  # noqa: BLE001
        out.append(("raised", type(err).__name__, str(err)))
    out.append(dump(tree))
    return out


@given(node_spec())
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_sanitize_1_11_0_same_tree(spec):
    """1.11.0's sanitize (live heading/form loops, the document-wide snapshot, the
    allowed set) in C against its Python loops, same core tree and reference tree."""
    core = _core()
    got = on_core(core, sanitize_run_1_11_0, build(core.dom, spec))
    with _NoCore(rd111):
        want = on_core(core, sanitize_run_1_11_0, build(core.dom, spec))
    assert got == want
    assert sanitize_run_1_11_0(build(refdom, spec)) == want


def test_not_implemented_inputs():
    core = _core()
    tree = build(core.dom, ("div", None, None, {}, (("p", "word " * 20, None, {}, ()),)))
    assert core.rd_score_paragraphs(tree, 25.0, rd._attribute_weight, rd._tag_score, rd.Candidate) is NotImplemented
    assert core.rd_score_paragraphs(tree, 2 ** 70, rd._attribute_weight, rd._tag_score, rd.Candidate) \
        is NotImplemented
    # a tag score that is no int: the Python numbers could differ
    assert core.rd_score_paragraphs(tree, 25, rd._attribute_weight, lambda t: 0.5, rd.Candidate) is NotImplemented
    found = core.rd_score_paragraphs(tree, 25, rd._attribute_weight, rd._tag_score, rd.Candidate)
    assert [type(c.score) for c in found.values()] == [float]
    assert core.rd_clean_conditionally(tree, {tree: rd.Candidate("x", tree)}, 25, rd._attribute_weight,
                                       None) is NotImplemented
    assert core.rd_clean_conditionally(tree, {}, 25.5, rd._attribute_weight, None) is NotImplemented


HAND = [
    '<html><body><div class="content"><p>' + "word, " * 30 + '</p><p>short</p></div>'
    '<div id="sidebar"><ul><li><a href="#">x</a></li><li>y</li></ul></div></body></html>',
    '<html><body><table><tr><td>' + "cell text " * 20 + '</td><td><table><tr><td>' + "inner, " * 12
    + '</td></tr></table></td></tr></table><div></div><div>' + "z " * 600 + '</div></body></html>',
    '<html><body><div><p>' + "a" * 90 + '</p><p>b. c</p><p class="comment">' + "d " * 50 + '</p>'
    '<h2 class="footer">head</h2><h3><a href="#">all link</a></h3><form><input></form>'
    '<iframe src="https://www.youtube.com/embed/1"></iframe><iframe src="x"></iframe>'
    '<div><input type="hidden"><input type="hidden"><input><p>' + "q " * 30 + '</p></div>'
    '<div><img><img><img><p>e</p></div><div><embed>' + "f " * 20 + '</div></div></body></html>',
    '<html><body><div class="post">' + "".join('<p>para %d, with some words in it, to score</p>' % k
                                               for k in range(12)) + '</div></body></html>',
    '<html><body><section><div>' + "x" * 1200 + '</div><div> </div><div>' + "y" * 10 + '</div></section>'
    '<pre>' + "code " * 10 + '</pre></body></html>',
    '<p>' + "solo " * 10 + '</p>',
    # the boundaries of the conditional cleaning (sections: transform_misused_divs leaves them;
    # in an article, which is not cleaned)
    '<html><body><article><section>' + "<li>x</li>" * 100 + "long enough text without links</section>"
    '<section>' + "<li>x</li>" * 101 + "long enough text without links</section>"
    '<ul>' + "<li>x</li>" * 101 + "long enough text without links</ul></article></body></html>",
    '<html><body><article><section>' + "<p>p</p>" * 100 + "<img>" * 131 + "long enough text without links</section>"
    '<section>' + "<p>p</p>" * 100 + "<img>" * 132 + "long enough text without links</section></article></body></html>",
    '<html><body><article><section><input type="hidden"><input type="Hidden"><p>' + "long enough text without links"
    + '</p></section><section><input type="hidden"><p>' + "long enough text without links"
    + '</p></section></article></body></html>',
    '<html><body><article><section><embed>' + "e" * 74 + '</section><section><embed>' + "e" * 75 + '</section>'
    '<section><embed><embed>' + "e" * 200 + '</section></article></body></html>',
    '<html><body><article><p>' + "a" * 500 + '</p><section><img></section><p>' + "b" * 500 + '</p><span></span>'
    '<section> <img></section><p>' + "c" * 501 + '</p></article></body></html>',
    '<html><body><article><h1><a>' + "l" * 33 + '</a>' + "t" * 67 + '</h1><h2><a>' + "l" * 34 + '</a>' + "t" * 66
    + '</h2><h3 class="comment">x</h3><h4 id="post">y</h4></article></body></html>',
    # link density exactly 0.5 and 0.2, with and without a weight of 25
    '<html><body><article><section class="content"><p>' + "a" * 15 + '</p><a>' + "b" * 15 + '</a></section>'
    '<section><p>' + "a" * 40 + '</p><a>' + "b" * 10 + '</a></section>'
    '<section id="post"><p>' + "a" * 14 + '</p><a>' + "b" * 16 + '</a></section></article></body></html>',
    # nested matches: 1.11.0's live loops stay in Python
    '<html><body><div><h1>a<h2 class="comment">b</h2>c</h1><form>d<textarea>e</textarea>f</form>'
    '<section><div></div>' + "<p>" + "x" * 1200 + "</p></section></div></body></html>",
    '<html><body><section class="content"><p>' + "word " * 10 + '</p><a>' + "link " * 9 + '</a></section>'
    '<section id="main-post"><p>' + "word " * 10 + '</p><a>' + "link " * 25 + '</a></section></body></html>',
]


@pytest.mark.parametrize("markup", HAND)
def test_hand_written(markup):
    from trafila import html

    core = _core()
    compare_all(core, lambda: html.fromstring(markup), lambda: core.fromstring_view(markup))
    for run, module in ((sanitize_run, rd), (sanitize_run_1_11_0, rd111)):
        got = on_core(core, run, core.fromstring_view(markup))
        with _NoCore(module):
            assert on_core(core, run, core.fromstring_view(markup)) == got
        assert run(html.fromstring(markup)) == got


# -- corpus pages ---------------------------------------------------------------------------------------

BUNDLES = os.environ.get("TRAFILA_ACCEL_RD_BUNDLES", "trafilatura,cleaneval,dragnet,goose3").split(",")
STEP = int(os.environ.get("TRAFILA_ACCEL_RD_STAGES_STEP", "40"))


def run_pages(bundles: List[str], step: int) -> int:
    from trafila import html

    core = _core()
    pages = 0
    for _name, page in sample_pages(bundles, step):
        markup = page.html
        if markup is None:
            continue
        try:
            html.fromstring(markup)
        except Exception:  # noqa: BLE001 - no tree, nothing to compare
            continue
        compare_all(core, lambda: html.fromstring(markup), lambda: core.fromstring_view(markup))
        pages += 1
    return pages


@needs_corpora
def test_corpus_pages():
    assert run_pages(BUNDLES, STEP) > 0


def main(argv: Optional[List[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundles", default=",".join(BUNDLES))
    parser.add_argument("--step", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"{run_pages(args.bundles.split(','), args.step)} pages: 0 differences")
    return 0


if __name__ == "__main__":
    sys.exit(main())
