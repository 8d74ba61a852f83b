"""The readability accelerators of the compiled core (cython_core/accel_readability.pxi)
against the reference code they replace.

* ``text_length`` / ``text_stats`` / ``link_density``: ``len(trim(text_content()))``,
  its comma count, ``Document.get_link_density``;
* ``unlikely_candidates``: the nodes ``Document.remove_unlikely_candidates`` drops;
* ``misused_divs``: the divs ``transform_misused_divs_into_paragraphs`` renames (step 1)
  or has work in (step 2);
* ``class_weight``, ``drop_trees`` (``treeops.drop_tree`` on each), ``text_content``;
* ``spaced_text``: baseline's ``_spaced_text_readonly``;
* for trafilatura 1.11.0's readability (``trafila.readability_1_11_0``): its
  unlikely candidates (other ok words), ``divs_without_tags`` (its step 1, a
  regex on the descendants' tags), its class weight, and its whole summary.

String level: the C scanner against Python's ``str.split()`` on every code point
and on Hypothesis strings. Tree level: generated trees in both element models,
and (with the shared corpora) real pages, each parsed by the reference parser
(``trafila.html.fromstring``) and the core's (``trafila._core.fromstring_view``):
the two trees are equal, so node k of one preorder is node k of the other, and
every node's numbers are compared, plus the whole ``Document.summary()``.

As a script it measures more pages:

    PYTHONPATH=reference:. python tests/test_core_accel_readability.py --bundles trafilatura,dragnet --step 5
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest
from tests._helpers import NO_CORE

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "reference"):  # also run as a script
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests._helpers import corpus_arguments, needs_corpora, sample_pages  # noqa: E402
from trafila import dom as refdom  # noqa: E402
from trafila import readability_1_11_0 as rd111  # noqa: E402
from trafila import readability_2_3_1 as rd  # noqa: E402
from trafila.v2_3_1 import baseline  # noqa: E402


def core_spaced_text(core: Any, el: Any) -> str:
    return core.spaced_text(el, baseline._BLOCK_ELEMS, baseline.remove_control_characters, baseline.xml_text)


def _core() -> Any:
    try:
        import trafila._core as core
    except ImportError:
        if os.environ.get("TRAFILA_REQUIRE_EXTENSIONS") == "1":
            raise
        pytest.skip(NO_CORE)
    return core


@pytest.fixture(scope="module")
def core() -> Any:
    return _core()


# -- reference functions (the module's Python code, on the reference tree) -----------

def ref_text_length(el: Any) -> int:
    return len(rd.trim(el.text_content()))


def ref_text_stats(el: Any) -> Tuple[int, int]:
    text = rd.trim(el.text_content())
    return len(text), len(text.split(",")) - 1


def ref_link_density(el: Any) -> float:
    return rd.Document(el).get_link_density(el)


def ref_unlikely(top: Any) -> List[Any]:
    "The loop of remove_unlikely_candidates, collecting instead of dropping."
    out = []
    for elem in rd._preorder(top, include_self=False):
        attrs = " ".join(value for value in (elem.get("class"), elem.get("id")) if value)
        if len(attrs) < 2 or elem.tag in rd.FRAME_TAGS:
            continue
        low = attrs.lower()
        if rd.REGEXES["unlikelyCandidatesRe"].search(low) and not rd.REGEXES["okMaybeItsACandidateRe"].search(low):
            out.append(elem)
    return out


def ref_unlikely_1_11_0(top: Any) -> List[Any]:
    "1.11.0's remove_unlikely_candidates loop (re.I on the joined values), collecting instead of dropping."
    out = []
    for elem in list(top.iterdescendants()):
        attrs = " ".join(filter(None, (elem.get("class"), elem.get("id"))))
        if len(attrs) < 2:
            continue
        if (elem.tag not in rd111.FRAME_TAGS and rd111.REGEXES["unlikelyCandidatesRe"].search(attrs)
                and not rd111.REGEXES["okMaybeItsACandidateRe"].search(attrs)):
            out.append(elem)
    return out


def ref_misused_divs_1_11_0(top: Any) -> List[Any]:
    "1.11.0's step 1: the divs none of whose descendants' tags match its block-tag regex."
    return [elem for elem in list(top.iterdescendants("div"))
            if not any(rd111._DIV_TO_P_TAG.match(d.tag) for child in elem for d in child.iter())]


def ref_class_weight(el: Any) -> int:
    "Document.class_weight as the module's Python code computes it."
    weight = 0
    for attribute in (el.get("class"), el.get("id")):
        if not attribute:
            continue
        if rd.REGEXES["negativeRe"].search(attribute):
            weight -= 25
        if rd.REGEXES["positiveRe"].search(attribute):
            weight += 25
    return weight


def dump(top: Any) -> list:
    return [(e.tag, e.text, e.tail, len(e), sorted(e.attrib.items())) for e in top.iter()]


def compare_drops(core: Any, ref_root: Any, core_root: Any, every: int) -> int:
    """Drop every ``every``-th node after the root on both trees (reference
    drop_tree one by one, core.drop_trees at once); the trees and the dropped
    subtrees must be equal, and an error must happen alike."""
    from trafila.treeops import drop_tree

    refs, cores = preorder(ref_root)[1::every], preorder(core_root)[1::every]

    def ref_drops():
        for el in refs:
            drop_tree(el)

    assert outcome(core.drop_trees, cores, drop_tree) == outcome(ref_drops)
    assert dump(core_root) == dump(ref_root)
    for r, c in zip(refs, cores):
        assert dump(c) == dump(r)
    return len(cores)


def ref_misused_divs(top: Any) -> List[Any]:
    "Step 1 of transform_misused_divs_into_paragraphs: the divs it renames."
    return [
        elem for elem in rd._preorder(top, frozenset({"div"}), include_self=False)
        if not any(str(e.tag).startswith(rd.DIV_TO_P_PREFIXES) for e in rd._preorder(elem, include_self=False))
        and (not rd._has_descendant(elem, "a") or rd._has_loose_text(elem))
    ]


def ref_step2_divs(top: Any) -> List[Any]:
    "The divs step 2 has work in: non-whitespace text, a non-whitespace child tail, a br child."
    return [
        elem for elem in rd._preorder(top, frozenset({"div"}), include_self=False)
        if (elem.text and elem.text.strip())
        or any((child.tail and child.tail.strip()) or child.tag == "br" for child in elem.getchildren())
    ]


def outcome(function: Any, *args: Any) -> Any:
    "The result, or the exception's type and message."
    try:
        return function(*args)
    except Exception as err:  # noqa: BLE001 - both sides must fail alike
        return type(err).__name__, str(err)


def preorder(top: Any) -> List[Any]:
    return list(top.iter())


# -- string level ------------------------------------------------------------------------

def test_whitespace_every_code_point(core):
    """The C whitespace set is str.split()'s: every code point (surrogates cannot be stored)."""
    stats = core._text_stats_of
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        want = len(rd.trim(ch)), ch.count(",")
        assert stats(ch) == want, hex(cp)
        # between words: merged into one space, or a third code point
        assert stats("a" + ch + "b")[0] == len(rd.trim("a" + ch + "b")), hex(cp)


INTERESTING = [" ", " \t\r\n", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0",
               "\u1680", "\u180e", "\u2000", "\u200a", "\u200b", "\u2028", "\u2029", "\u202f", "\u205f",
               "\u3000", "\ufeff", ",", "a", "Z", "é", "İ", "ſ", "K", "\U0001F600", "\x00", "\x7f", "\xc2",
               "\x08", "\x0e", "\x1b", "\xad", "\ue000", "\u0378", "\U000e0001", "\x9f",
               "\ufffe", "\uffff", "\ufffd"]

texts = st.lists(st.one_of(st.sampled_from(INTERESTING), st.characters(blacklist_categories=("Cs",))),
                 max_size=40).map("".join)


@given(texts)
@settings(max_examples=2000, deadline=None)
def test_text_stats_strings(s):
    core = _core()
    t = rd.trim(s)
    assert core._text_stats_of(s) == (len(t), t.count(","))


# -- generated trees in both models --------------------------------------------------------

TAGS = ["div", "div", "p", "a", "span", "td", "body", "html", "x-y", "A", "br", "br", "img", "picture", "abbr",
        "tbody", "\xe9t\xe9", "li", "h1", "section", "b"]
maybe_text = st.one_of(st.none(), texts)
attr_value = st.one_of(
    st.none(),
    st.lists(st.sampled_from(["comment", "COMMENT", "Content", "and", "AND", "ad-break", "Ad-Break",
                              "rss", "menu", "main", "shadow", "İ", "K", "ſ", "ı", "é", " ", "-", "x",
                              "c", "o", "m", "\xa0", "\u2028", "Twitter", "foot", "POST", "poſt", "ſcroll", "tagſ",
                              "ſhopping", "hentry", "Tool", "com-", "\u212a"]), max_size=6).map("".join),
)


def node_spec():
    leaf = st.tuples(st.sampled_from(TAGS), maybe_text, maybe_text, attr_value, attr_value, st.just(()))
    return st.recursive(
        leaf,
        lambda kids: st.tuples(st.sampled_from(TAGS), maybe_text, maybe_text, attr_value, attr_value,
                               st.lists(kids, max_size=4).map(tuple)),
        max_leaves=25,
    )


def build(model: Any, spec: tuple, parent: Any = None) -> Any:
    tag, text, tail, klass, ident, kids = spec
    el = model.Element(tag) if parent is None else model.SubElement(parent, tag)
    el.text = text
    el.tail = tail
    if klass is not None:
        el.set("class", klass)
    if ident is not None:
        el.set("id", ident)
    for kid in kids:
        build(model, kid, el)
    return el


def compare_trees(core: Any, ref_root: Any, core_root: Any) -> int:
    """Compare every accelerated function on every node pair; the number of calls."""
    refs, cores = preorder(ref_root), preorder(core_root)
    assert [e.tag for e in refs] == [e.tag for e in cores]
    calls = 0
    for r, c in zip(refs, cores):
        assert core.text_length(c) == ref_text_length(r)
        assert core.text_stats(c) == ref_text_stats(r)
        assert core.link_density(c) == ref_link_density(r)
        assert rd.text_length(c) == ref_text_length(r)
        assert outcome(core_spaced_text, core, c) == outcome(baseline._spaced_text_readonly, r)
        assert core.class_weight(c, rd._attribute_weight) == ref_class_weight(r)
        assert core.class_weight(c, rd111._attribute_weight) == ref_class_weight(r)
        assert core.text_content(c) == "".join(r.itertext()) == r.text_content()
        calls += 7
    position = {id(c): k for k, c in enumerate(cores)}
    ref_position = {id(r): k for k, r in enumerate(refs)}
    for r, c in ((ref_root, core_root), (refs[len(refs) // 2], cores[len(cores) // 2])):
        got = [position[id(e)] for e in core.unlikely_candidates(c, rd._unlikely_verdict)]
        assert got == [ref_position[id(e)] for e in ref_unlikely(r)]
        assert [position[id(e)] for e in core.misused_divs(c)] == [ref_position[id(e)] for e in ref_misused_divs(r)]
        assert [position[id(e)] for e in core.misused_divs(c, True)] == [
            ref_position[id(e)] for e in ref_step2_divs(r)]
        got = [position[id(e)] for e in core.unlikely_candidates(c, rd111._unlikely_verdict, True)]
        assert got == [ref_position[id(e)] for e in ref_unlikely_1_11_0(r)]
        got = [position[id(e)] for e in core.divs_without_tags(c, rd111._DIV_TO_P_TAG.match)]
        assert got == [ref_position[id(e)] for e in ref_misused_divs_1_11_0(r)]
        calls += 5
    return calls


@given(node_spec())
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_trees(spec):
    core = _core()
    compare_trees(core, build(refdom, spec), build(core.dom, spec))


@given(node_spec(), st.integers(1, 4))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_generated_drops(spec, every):
    core = _core()
    compare_drops(core, build(refdom, spec), build(core.dom, spec), every)


def test_word_lists_are_the_module_regexes(core):
    for key, words, flags in (("unlikelyCandidatesRe", core.UNLIKELY_WORDS, re.UNICODE),
                              ("okMaybeItsACandidateRe", core.OK_MAYBE_WORDS, re.UNICODE),
                              ("positiveRe", core.POSITIVE_WORDS, re.UNICODE | re.IGNORECASE),
                              ("negativeRe", core.NEGATIVE_WORDS, re.UNICODE | re.IGNORECASE)):
        pattern = rd.REGEXES[key]
        assert pattern.pattern == "|".join(words)
        # the first two are matched against lower()'d text; the others fold case themselves
        assert pattern.flags == flags
        assert all(re.fullmatch(r"[a-z-]+", w) for w in words)  # literals, no space
    # 1.11.0 searches the joined values with re.I itself; its ok words lack "content"
    for key, words in (("unlikelyCandidatesRe", core.UNLIKELY_WORDS), ("okMaybeItsACandidateRe", core.OK_MAYBE_WORDS_1_11_0),
                       ("positiveRe", core.POSITIVE_WORDS), ("negativeRe", core.NEGATIVE_WORDS)):
        pattern = rd111.REGEXES[key]
        assert pattern.pattern == "|".join(words)
        assert pattern.flags == re.UNICODE | re.IGNORECASE


HAND = [
    '<html><body class="comment"><div class id="comment">x</div><div class="sidebar" id>y</div></body></html>',
    '<div><p class="Comment">a</p><p class="comment" id="main">b</p><p id="KOMMENT">c</p>'
    '<p class="c\u0130">d</p><p class="\u212aomment">e</p><p class="x" id="FOOT">f</p>'
    '<span class="r" id="s">g</span><i class="rs" id="s">h</i><b class="ad-BREAK">i</b></div>',
    '<div> a <a href=x>one\xa0two</a>,<a>  <a>b</a> </a>\u3000,\u200b<p>c,d</p> tail </div>',
    '<table><tr><td class="menu" id="content">x</td><td id="pager">y, z</td></tr></table>',
    '<body><div>a<br>b <br> <div><a>x</a> \xa0</div><div><a>x</a> y</div><div><span>q</span><br>\u3000</div>'
    '<div><picture></picture>t</div><div><abbr>u</abbr></div>\x0c<div>\x0c<a>v</a>\x0c</div></div></body>',
    '<div>a\x00b<p>c\x7fd\u200be\xad</p>\x1bx<b>\x01y</b><li>\x08\u0378\ue000z</li></div>',
]


@pytest.mark.parametrize("markup", HAND)
def test_hand_written(core, markup):
    from trafila import html

    compare_trees(core, html.fromstring(markup), core.fromstring_view(markup))
    compare_summaries(core, markup)
    for every in (1, 2, 3):
        compare_drops(core, html.fromstring(markup), core.fromstring_view(markup), every)


def compare_summaries(core: Any, markup: str) -> None:
    """Document(tree).summary() on both parsers' trees, the core's under its backend."""
    from trafila import _backend, html

    def summary(tree):
        try:
            return rd.Document(tree, min_text_length=25).summary()
        except Exception as err:  # both sides must fail alike
            return f"{type(err).__name__}: {err}"

    want = summary(html.fromstring(markup))
    got = _backend.run_with(_backend.core_backend(core), summary, core.fromstring_view(markup))
    assert got == want

    def summary_1_11_0(tree):
        try:
            return rd111.Document(tree).summary()
        except Exception as err:  # both sides must fail alike
            return f"{type(err).__name__}: {err}"

    want = summary_1_11_0(html.fromstring(markup))
    got = _backend.run_with(_backend.core_backend(core), summary_1_11_0, core.fromstring_view(markup))
    assert got == want


# -- corpus pages ----------------------------------------------------------------------------

DEFAULT_BUNDLES = os.environ.get("TRAFILA_ACCEL_RD_BUNDLES", "trafilatura,cleaneval,dragnet,goose3").split(",")
DEFAULT_STEP = int(os.environ.get("TRAFILA_ACCEL_RD_STEP", "60"))


def compare_page(core: Any, markup: str) -> int:
    from trafila import html

    try:
        ref_root = html.fromstring(markup)
    except Exception:
        return 0
    calls = compare_trees(core, ref_root, core.fromstring_view(markup))
    compare_summaries(core, markup)
    calls += compare_drops(core, html.fromstring(markup), core.fromstring_view(markup), 7)
    return calls + 1


def run_pages(bundles: List[str], step: int) -> Tuple[int, int]:
    core = _core()
    pages = calls = 0
    for _name, page in sample_pages(bundles, step):
        if page.html is None:
            continue
        calls += compare_page(core, page.html)
        pages += 1
    return pages, calls


@needs_corpora
def test_corpus_pages():
    pages, calls = run_pages(DEFAULT_BUNDLES, DEFAULT_STEP)
    assert pages > 0
    print(f"{pages} pages, {calls} calls compared")


def main(argv: Optional[List[str]] = None) -> int:
    parser = corpus_arguments(__doc__.splitlines()[0], "", DEFAULT_BUNDLES)
    args = parser.parse_args(argv)
    bundles = args.bundles.split(",") if isinstance(args.bundles, str) else list(args.bundles)
    pages, calls = run_pages(bundles, args.step)
    print(f"{pages} pages, {calls} calls compared: 0 differences")
    return 0


if __name__ == "__main__":
    sys.exit(main())
