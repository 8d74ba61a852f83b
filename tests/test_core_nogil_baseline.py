"""2.3.1's ``baseline.baseline`` and ``len(baseline.html2txt(...))`` without the GIL
(cython_core/nogil_baseline.pxi).

``core.nogil_baseline(root, why, select)`` runs ``ng_baseline_sel`` (``select``) or
``ng_baseline`` inside ``with nogil`` on the tree of ``root`` (a raw tree, as core.py passes it)
and gives ``(body, text, length)`` (the body: detached nodes of the same document), or None for
NEED_PYTHON with its cause appended to ``why``; ``core.nogil_html2txt_len(root, clean, why,
select)`` gives the length or None. Each is compared with the
reference on a second tree built from the same HTML, the reference run with the core switched
off in baseline, _tree and xpathlib (block_text, html2txt, the descendant walks and the
basic_clean selection all in Python; trafila._core's accel path is compared once more on the
corpus pages):

* OK: the same body dump (tag, sorted attributes, text, children with tails), text and length;
  the same html2txt length;
* the source tree is left as it was (its dump after equals the reference tree's dump after, which
  baseline does not change either), NEED_PYTHON included;
* NEED_PYTHON is honest: ``xml-text`` (a block slot holding \\x0b, \\x0c, \\x1c-\\x1f, which
  xml_text refuses after remove_control_characters) and ``join`` (a deletion joining a tail
  lxml's setter refuses) only where the reference raises ValueError, and the reference raises
  only there; ``json-ld`` only on a page with an ld+json script holding a _JSON_HOOKS literal,
  ``data-preloaded`` only with a div of that id, and no result is given on a page with either;
  the JSON pages are
  compared once more with their JSON triggers neutralised on both trees (the rest of baseline
  then runs in C);
* NEED_PYTHON is counted by cause and bounded (see ``test_corpus_pages``);
* basic_clean's selection: ng_baseline / ng_html2txt_len use the exact predicate of
  nogil_baseline.pxi alone (``core.nogil_basic_noise``); the ``_sel`` entries use ns_select
  (nogil_select.pxi) first and the predicate where its Matcher answers -1 (re.I on a non-ASCII
  class or id, 2% of the corpus pages); both are compared with the reference, and the predicate: it is compared with
  ``xpaths._is_basic_noise`` on generated attribute values (sre's case-insensitive look-alikes
  İ ı ſ K included) and on corpus elements.

Refused characters never come out of ``load_html`` (it strips them from a str), so the cases
that hold them are parsed with ``core.fromstring_view`` (the core parser keeps them, as libxml2
does).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

core = pytest.importorskip("trafila._core")

from trafila import _backend, xpathlib  # noqa: E402
from trafila.v2_3_1 import _tree  # noqa: E402
from trafila.v2_3_1 import baseline as B  # noqa: E402
from trafila.v2_3_1 import settings  # noqa: E402
from trafila.v2_3_1._tree import desc_list  # noqa: E402
from trafila.v2_3_1.htmlprocessing import prune_unwanted_nodes  # noqa: E402
from trafila.v2_3_1.utils import load_html  # noqa: E402
from trafila.v2_3_1.xpaths import RAW_TREE_PRUNE_XPATH  # noqa: E402

from ._helpers import (  # noqa: E402
    core_switched_off, dumped, generated_documents, need_cause,
    needs_corpora, sampled_html_pages, with_characters_spliced, with_failing_allocations)
from .test_core_nogil_select import _BUNDLES  # noqa: E402

CORE = _backend.core_backend(core)
PYTHON_ONLY = (B, _tree, xpathlib)


def _parse(html: str, how: str) -> Any:
    """The tree core.py would hand baseline: ``load`` (load_html), ``pruned`` (then the raw-tree
    prune of trafilatura_sequence), ``raw`` (core.fromstring_view: control characters kept)."""
    def build() -> Any:
        if how == "raw":
            try:
                return core.fromstring_view(html)
            except ValueError:      # a str with an XML encoding declaration (load_html repairs it)
                return None
        tree = load_html(html)
        if tree is not None and how == "pruned":
            tree = prune_unwanted_nodes(tree, RAW_TREE_PRUNE_XPATH)
        return tree
    return _backend.run_with(CORE, build)


def _reference(tree: Any, call: Callable[[Any], Any], accel: bool = False) -> Any:
    "``call(tree)`` by the reference (the accelerators off unless ``accel``): its result, or ('raised', class)."
    def run() -> Any:
        try:
            if accel:
                return call(tree)
            with core_switched_off(PYTHON_ONLY):
                return call(tree)
        except ValueError as err:
            return ("raised", type(err).__name__)
    return _backend.run_with(CORE, run)


def _ref_baseline(tree: Any, accel: bool = False) -> Any:
    res = _reference(tree, B.baseline, accel)
    if res[0] == "raised":
        return res
    body, text, length = res
    return (dumped(body), text, length)


def _json_triggers(tree: Any) -> Tuple[bool, bool]:
    "(an ld+json script with a hook, a div#data-preloaded), as _collect_json_content sees them."
    ld = any(e.tag == "script" and e.get("type") == "application/ld+json" and e.text
             and B._JSON_HOOKS_RE.search(e.text) for e in desc_list(tree))
    pre = any(e.tag == "div" and e.get("id") == "data-preloaded" for e in desc_list(tree))
    return ld, pre


def _neutralise(tree: Any) -> None:
    "The JSON triggers renamed (the same on both trees): the other strategies then decide."
    for e in desc_list(tree):
        if e.tag == "script" and e.get("type") == "application/ld+json":
            e.set("type", "application/x-neutralised")
        if e.tag == "div" and e.get("id") == "data-preloaded":
            e.set("id", "x-neutralised")


def _selection_unknown(tree: Any) -> bool:
    "The C basic_clean selection answers NEED_PYTHON somewhere in this tree (the copy has the same nodes)."
    from trafila.v2_3_1 import xpaths
    return core.nogil_select(tree, xpaths.basic_clean_xpath) is None


class Tally:
    def __init__(self) -> None:
        self.baseline = Counter()    # "ok" / cause
        self.html2txt = Counter()
        self.compared = 0            # comparisons made (baseline results, html2txt lengths, tree dumps)
        self.raised = 0              # reference ValueErrors (each matched by a NEED_PYTHON)
        self.fallback_pages = 0      # pages where the Matcher left basic_clean to the fallback
        self.noise = 0               # elements whose basic_clean verdict was compared


def check_baseline(html: str, how: str, tally: Tally, neutralise: bool = False, accel: bool = False,
                   select: bool = True) -> List[str]:
    "nogil_baseline against the reference on two trees of ``html``: the problems found."
    problems: List[str] = []
    mine_tree, ref_tree = _parse(html, how), _parse(html, how)
    if mine_tree is None:
        return problems
    if neutralise:
        _neutralise(mine_tree)
        _neutralise(ref_tree)
    before = dumped(mine_tree)
    why: List[str] = []
    mine = core.nogil_baseline(mine_tree, why, select)
    ref = _ref_baseline(ref_tree, accel)
    tally.compared += 2
    if dumped(mine_tree) != before or dumped(ref_tree) != before:
        problems.append("source tree changed")
    if mine is not None:
        tally.baseline["ok"] += 1
        if mine[0].getparent() is not None:
            problems.append("body attached")
        if any(_json_triggers(ref_tree)):
            problems.append("a result on a page with a JSON trigger")
        got = (dumped(mine[0]), mine[1], mine[2])
        if got != ref:
            problems.append(f"baseline differs: {str(got)[:400]} != {str(ref)[:400]}")
        return problems
    cause = need_cause(why)
    tally.baseline[cause] += 1
    ld, pre = _json_triggers(ref_tree)
    if cause in ("xml-text", "join"):
        if ref[0] != "raised":
            problems.append(f"NEED_PYTHON ({cause}) where the reference gives a result")
        tally.raised += 1
    elif cause == "json-ld":
        if not ld:
            problems.append("json-ld without an ld+json hook")
    elif cause == "data-preloaded":
        if not pre or ld:
            problems.append("data-preloaded without the div (or with an ld+json hook found first)")
    else:
        problems.append(f"NEED_PYTHON cause {cause}")
    return problems


def check_html2txt(html: str, how: str, tally: Tally, clean: bool = True, accel: bool = False,
                   select: bool = True) -> List[str]:
    problems: List[str] = []
    mine_tree, ref_tree = _parse(html, how), _parse(html, how)
    if mine_tree is None:
        return problems
    before = dumped(mine_tree)
    why: List[str] = []
    mine = core.nogil_html2txt_len(mine_tree, clean, why, select)
    ref = _reference(ref_tree, lambda t: len(B.html2txt(t, clean)), accel)
    tally.compared += 2
    if dumped(mine_tree) != before:
        problems.append("source tree changed (html2txt)")
    if mine is not None:
        tally.html2txt["ok"] += 1
        if mine != ref:
            problems.append(f"html2txt {mine} != {ref}")
        return problems
    cause = need_cause(why)
    tally.html2txt[cause] += 1
    if cause in ("xml-text", "join"):
        if not (isinstance(ref, tuple) and ref[0] == "raised"):
            problems.append(f"html2txt NEED_PYTHON ({cause}) where the reference gives {ref}")
        tally.raised += 1
    else:
        problems.append(f"html2txt NEED_PYTHON cause {cause}")
    return problems


def check_noise(tree: Any, tally: Tally, rng: Optional[random.Random] = None, k: int = 40) -> List[str]:
    "nogil_basic_noise against xpaths._is_basic_noise on the elements of ``tree`` (a sample of ``k`` with ``rng``)."
    from trafila.v2_3_1.xpaths import _is_basic_noise
    els = desc_list(tree)
    if rng is not None and len(els) > k:
        els = rng.sample(els, k)
    problems = []
    for el in els:
        tally.noise += 1
        if core.nogil_basic_noise(el) != bool(_is_basic_noise(el)):
            problems.append(f"basic_noise differs on <{el.tag} {dict(el.attrib)}>")
    return problems


def check_page(html: str, how: str, tally: Tally, accel: bool = False, select: bool = True) -> List[str]:
    """Both stages on ``html`` (``select``: basic_clean by ns_select first, ng_*_sel; else by the
    exact predicate alone, ng_baseline / ng_html2txt_len), the basic_clean verdicts too."""
    problems = check_baseline(html, how, tally, accel=accel, select=select)
    tree = _parse(html, how)
    if tree is not None and _selection_unknown(tree):
        tally.fallback_pages += 1
        problems += check_noise(tree, tally)
    elif tree is not None:
        problems += check_noise(tree, tally, random.Random(len(html)), 20)
    if tree is not None and any(_json_triggers(tree)):
        problems += check_baseline(html, how, tally, neutralise=True, accel=accel, select=select)
        tally.baseline["(neutralised)"] += 1
    problems += check_html2txt(html, how, tally, accel=accel, select=select)
    return problems


# -- the tables ------------------------------------------------------------------------

def test_names_and_constants() -> None:
    block, scraped, hooks, consts = core.nogil_baseline_tables()
    assert set(block) == B._BLOCK_ELEMS and len(block) == len(B._BLOCK_ELEMS)
    assert hooks == B._JSON_HOOKS
    assert consts == {"min_content": B._MIN_CONTENT_LENGTH, "min_duplicate": settings.MIN_DUPLICATE_LENGTH,
                      "scan_cap": settings.DEDUPE_SCAN_CAP}
    # scraped_tags is local to baseline(): its behaviour is checked by the cases below
    assert set(scraped) == {"blockquote", "code", "p", "pre", "q", "quote"}


# -- hand-written cases --------------------------------------------------------------------

_W = "word " * 25                      # 125 characters: one paragraph over the 100 minimum
_LONG = "lorem ipsum dolor sit amet " * 3  # 81 characters (> 50: deduplicated)

CASES = [
    # the strategies in turn: articles (the fifth cutoff), paragraphs (dedupe), body text
    f"<html><body><article><p>{_W}</p><aside>gone</aside>tail</article><p>hello</p></body></html>",
    f"<html><body><article>{'a' * 101}</article><article>{'b' * 505}</article><article>{'c' * 100}</article>"
    f"<article>{'d ' * 60}</article></body></html>",
    f"<html><body><article>{'a' * 101}</article><article>{'b' * 506}</article></body></html>",
    f"<html><body><article><article>{_W}</article>{_W}</article><article>x</article></body></html>",
    "<html><body><article>" + "x" * 40 + "</article><p>" + "y" * 40 + "</p></body></html>",
    f"<html><body><p>{_LONG}</p><p>{_LONG}</p><div><p>{_LONG}</p></div><q>{'short ' * 5}</q><q>{'short ' * 5}</q></body></html>",
    f"<html><body><p>{'x' * 50}</p><p>{'x' * 50}</p><p>{'y' * 51}</p><p>{'y' * 51}</p></body></html>",
    f"<html><body><blockquote><p>{_W}</p><code>c</code></blockquote><pre>  a\n  b</pre><quote>q</quote></body></html>",
    "<html><body><p>" + "z" * 100 + "</p></body></html>",
    "<html><body><p>" + "z" * 101 + "</p></body></html>",
    "<html><body><div>text <b>bold</b>\n more<br>line</div>\n<span>\u200bz</span><ul><li>a</li><li>b</li></ul></body></html>",
    "<html><body></body></html>",
    "<html><head><title>t</title></head></html>",
    "<html><body> \n\t </body></html>",
    "<html><body><footer>f</footer>after<script>var x</script><style>p{}</style><svg><p>s</p></svg>end</body></html>",
    "<html><body><div class='site-footer'>f</div>t1<div id='cookie-banner'>c</div>t2<template>x</template>"
    "<fencedframe>y</fencedframe><p class='CookieConsent'>z</p></body></html>",
    "<html><body><div class='x'><aside>a<footer>nested</footer>b</aside>tail</div></body></html>",
    # whitespace and non-printables: U+0085, U+00A0, U+2028 (isspace), U+200B (Cf), U+FEFF, U+E000 (Co)
    "<html><body><p>a\u0085b\u00a0c\u2028d\u200be\ufeff\ue000f\u3000g\u180eh</p>" + "<p>" + "\u00e9t\u00e9 " * 30
    + "</p></body></html>",
    "<html><body><article><p>" + "\u65e5\u672c\u8a9e " * 30 + "</p><p>\U0001F600\u200d\U0001F600</p></article></body></html>",
    # the root as core.py may get it from a fragment
    f"<article><p>{_W}</p><article>{_W}</article></article>",
    f"<p>one {_W}</p><p>two</p>",
    f"<div><q>{_W}</q>tail<q>{_W}</q></div>",
    # JSON: triggers and near misses
    "<html><head><script type='application/ld+json'>{\"articleBody\": \"" + _W + "\"}</script></head>"
    "<body><p>y</p></body></html>",
    "<html><head><script type='application/ld+json'>{\"@type\": \"Product\", \"description\": \"" + _W + "\"}"
    "</script></head><body><p>short</p></body></html>",
    "<html><head><script type='application/ld+json'>{\"@type\": \"NewsArticle\"}</script></head>"
    f"<body><p>{_W}</p></body></html>",
    "<html><head><script type='application/json'>{\"articleBody\": \"x\"}</script><script type>\"HowTo\"</script>"
    f"</head><body><p>{_W}</p></body></html>",
    "<html><body><div id='data-preloaded' data-preloaded='{}'>x</div><p>y</p></body></html>",
    "<html><body><div id='data-preloaded-no'>x</div><section id='data-preloaded'>s</section><p>y</p></body></html>",
    # a non-ASCII class under the cookie-consent pattern (re.I): the C matcher's unknown verdict
    "<html><body><div class='\u0130cookie-banner'>x</div><p>y</p></body></html>",
    "<html><body><div class='k\u212abanner'>x</div><p>y</p></body></html>",
]

RAW_CASES = [
    # control characters the core parser keeps: block slots with \x0b \x0c \x1c-\x1f raise in the reference
    "<html><body><p>a\x0bb</p></body></html>",
    "<html><body><span>a\x0bb\x00c\ufffe</span><div>\x01d\x7f</div></body></html>",
    "<html><body><b>x</b>\x1f<p>y</p></body></html>",
    "<html><body><p>x</p>\x1f<b>y</b></body></html>",
    f"<html><body><article><p>{'w' + chr(1) + ' ' * 2}{_W}</p></article><div>q</div>\x0bx</body></html>",
    f"<html><body><article><p>{_W}</p></article><aside>q</aside>\x0bx</body></html>",
    "<html><body><article>a<aside>q</aside>\x0bx</article></body></html>",
    "<html><body><div>a<aside>q</aside>\x0bx</div></body></html>",
    "<html><body><div>a\x0c<footer>q</footer>x</div></body></html>",
    f"<html><body><q>{'abc' + chr(0x85) + chr(0x2028) + chr(0x200b) + ' ' * 2}</q>\x0c<p>{_W}</p></body></html>",
    f"<html><body><pre>{_W}</pre><p>\x00\x08\x0e\x1b\x7f{_W}\ufffe\uffff</p></body></html>",
    f"<html><body><article><p>{_W}</p></article>\x1c</body></html>",
    f"<html><body><em>{_W}\x0b</em></body></html>",
    "<html><body><b>\x0b</b></body></html>",
]


@pytest.mark.parametrize("html", CASES)
def test_hand_written_cases(html: str) -> None:
    tally = Tally()
    problems = []
    for how in ("load", "pruned", "raw"):
        for select in (True, False):
            problems += check_page(html, how, tally, select=select)
        problems += check_html2txt(html, how, tally, clean=False)
    assert not problems, problems


@pytest.mark.parametrize("html", RAW_CASES)
def test_control_characters(html: str) -> None:
    tally = Tally()
    problems = (check_page(html, "raw", tally) + check_page(html, "raw", tally, select=False)
                + check_html2txt(html, "raw", tally, clean=False))
    assert not problems, problems


def test_causes_are_given() -> None:
    "Each NEED_PYTHON cause on a page made for it (the check functions see that each is honest)."
    def cause(html: str, how: str = "load") -> Optional[str]:
        why: List[str] = []
        res = core.nogil_baseline(_parse(html, how), why)
        return None if res is not None else why[-1]
    assert cause(CASES[22]) == "json-ld"
    assert cause(CASES[23]) == "json-ld"
    assert cause(CASES[24]) is None
    assert cause(CASES[25]) is None
    assert cause(CASES[26]) == "data-preloaded"
    assert cause(CASES[27]) is None
    # the Matcher cannot decide these (re.I on non-ASCII): the fallback predicate does
    for k in (28, 29):
        assert _selection_unknown(_parse(CASES[k], "load"))
        assert cause(CASES[k]) is None
    assert cause(RAW_CASES[0], "raw") == "xml-text"
    assert cause(RAW_CASES[5], "raw") == "join"
    assert cause(RAW_CASES[2], "raw") is None     # a tail of a non-block element: not checked


def test_results_by_strategy() -> None:
    "Which strategy answers (the cases exercise each), against the reference."
    def text(html: str) -> str:
        res = core.nogil_baseline(_parse(html, "load"), [])
        assert res is not None
        return res[1]
    # 101 'a' >= 505 / 5; 100 'c' not over 100
    assert text(CASES[1]).split("\n") == ["a" * 101, "b" * 505, "d " * 59 + "d"]
    assert text(CASES[2]).split("\n") == ["b" * 506]                    # 101 < 101.2
    assert text(CASES[5]).count(_LONG.strip()) == 1
    assert text(CASES[6]).split("\n") == ["x" * 50, "x" * 50, "y" * 51]
    assert text(CASES[8]) == "z" * 100                                  # the body text: not over 100
    assert core.nogil_baseline(_parse(CASES[11], "load"), [])[1:] == ("", 0)


def test_allocation_failures() -> None:
    "An allocation failing anywhere in either stage is a MemoryError (NS_ERROR), the source tree intact."
    for html in (CASES[0], CASES[5], CASES[10], CASES[15]):
        expected = core.nogil_baseline(_parse(html, "load"), [])
        expected = (dumped(expected[0]), expected[1], expected[2])
        expected_len = core.nogil_html2txt_len(_parse(html, "load"))
        errors = 0
        for n in range(0, 80):
            for stage in ("baseline", "html2txt"):
                tree = _parse(html, "load")
                before = dumped(tree)
                select = n % 2 == 0
                failed, res = with_failing_allocations(
                    n, lambda: (core.nogil_baseline(tree, [], select) if stage == "baseline"
                                else core.nogil_html2txt_len(tree, True, None, select)))
                errors += failed
                assert dumped(tree) == before
                if res is not None:
                    got = (dumped(res[0]), res[1], res[2]) if stage == "baseline" else res
                    assert got == (expected if stage == "baseline" else expected_len)
        assert errors > 10


def _deep_tree(depth: int) -> Any:
    """html/body, then ``depth`` nested div > span elements with texts and tails, a long <p> at the
    bottom and a nested <section> chain in an <article> (built through the API: the parser stops
    nesting at 256)."""
    def build() -> Any:
        from trafila.v2_3_1._tree import Element, SubElement
        root = Element("html")
        body = SubElement(root, "body")
        el = body
        for k in range(depth):
            el = SubElement(el, "div" if k % 3 else "blockquote")
            el.text = f"d{k} "
            span = SubElement(el, "span")
            span.text = f"s{k}"
            span.tail = " t "
        SubElement(el, "p").text = _W
        el = SubElement(body, "article")
        for k in range(depth):
            el = SubElement(el, "section")
            el.text = "a "
        return root
    return _backend.run_with(CORE, build)


def test_deep_tree() -> None:
    "Nesting far past the recursion limit: the C walks are iterative (the trees compared by text, not by a recursive dump)."
    for call in (lambda t: core.nogil_baseline(t, []), lambda t: core.nogil_html2txt_len(t)):
        mine_tree, ref_tree = _deep_tree(5000), _deep_tree(5000)
        mine = call(mine_tree)
        if isinstance(mine, tuple):
            ref = _reference(ref_tree, B.baseline)
            assert (dumped(mine[0]), mine[1], mine[2]) == (dumped(ref[0]), ref[1], ref[2])
            assert mine[1] == "a " * 4999 + "a"     # the article strategy: the section chain
        else:
            assert mine == _reference(ref_tree, lambda t: len(B.html2txt(t))) > 20000
        assert list(mine_tree.itertext()) == list(ref_tree.itertext())
        assert len(desc_list(mine_tree)) == len(desc_list(ref_tree)) == 1 + 2 * 5000 + 1 + 1 + 5000


def test_dedupe_scan_cap() -> None:
    "Past DEDUPE_SCAN_CAP code points of text, repeated paragraphs are kept."
    para = "\u00e9" + "x" * 98 + " "
    html = "<html><body>" + "".join(f"<p>{k:05d}{para}</p>" for k in range(2100)) + f"<p>00003{para}</p>" * 3 + "</body></html>"
    tally = Tally()
    assert not check_baseline(html, "load", tally)
    text = core.nogil_baseline(_parse(html, "load"), [])[1]
    assert text.count(f"00003{para.strip()}") == 4


def test_generated_documents() -> None:
    tally = Tally()
    problems: List[str] = []
    for k, html in enumerate(generated_documents(13, 60)):
        for how in ("load", "raw"):
            for p in check_page(html, how, tally, select=(k % 2 == 0)):
                problems.append(f"doc {k} ({how}): {p}")
    assert not problems, problems[:5]
    assert tally.baseline["ok"] >= 90


def test_generated_with_control_characters() -> None:
    "Generated documents with control characters and odd whitespace spliced into their text (raw parse)."
    rng = random.Random(5)
    chars = ["\x0b", "\x0c", "\x1c", "\x1f", "\x00", "\x01", "\x7f", "\x85", "\u2028", "\u200b", "\ufffe",
             "\u00a0", "\ufeff", "\u3000", "\t"]
    tally = Tally()
    problems: List[str] = []
    for k, html in enumerate(generated_documents(17, 60)):
        html = with_characters_spliced(html, rng, chars, 3)
        for p in check_page(html, "raw", tally, select=(k % 2 == 1)):
            problems.append(f"doc {k}: {p}")
    assert not problems, problems[:5]
    assert tally.raised > 0 and tally.baseline["ok"] > 0


def test_basic_noise_predicate() -> None:
    "The fallback predicate on generated class/id values around _COOKIE_CONSENT and 'footer'."
    pieces = ["cookie", "COOKIE", "coo\u212aie", "\u212a", "notice", "NOTICE", "consent", "s\u0130gn",
              "\u017fdk", "sdk", "SDK", "\u0130", "\u0131", "-", "_", "--", "___", "-_", "banner", "bar",
              "law", "policy", "description", "manager", "gdpr", "moove", "borlabs", "cookiebot",
              "cmplz", "CMPLZ", "onetrust", "onetru\u017ft", "\u0131d", "footer", "Footer", "\u00e9",
              "\u00df", "x", " ", "\U0001F600", "no", "tice", "cook", "ie"]
    lookalikes = ["\u0130cookie-banner", "coo\u212aie_bar", "notice\u212acookie", "notice__cookie", "notice___cookie",
                  "consent-\u017fdk", "CONSENTMANAGER", "onetru\u017ft", "\u0131onetrust", "moove-gdpr",
                  "moove--gdpr", "cmplz", "cmpl", "xcookiebotx", "cookiedescription", "cookie-law",
                  "borlab\u017f", "b\u0131rlabs", "borlabs\u0130", "n\u0131tice", "\u00e9cookie-\u00e9",
                  "site-footer", "\u00e9footer", "FOOTER"]
    rng = random.Random(3)
    tally = Tally()
    html = "<html><body>" + "".join(f"<p class='{v}'>a</p><div id='{v}'>b</div><div id='{v}' class='x'>c</div>"
                                    f"<div class='y' id='{v}'>d</div>" for v in lookalikes) + "</body></html>"
    problems: List[str] = check_noise(_parse(html, "load"), tally)
    assert not problems, problems[:5]
    # 14 of the values hold a _COOKIE_CONSENT match (4 elements each); 'site-footer' and '\u00e9footer'
    # as the first of a div's @id/@class (2 elements each: not after class='y')
    assert sum(core.nogil_basic_noise(e) for e in desc_list(_parse(html, "load"))) == 14 * 4 + 4
    for _ in range(30):
        items = []
        for _ in range(40):
            tag = rng.choice(["div", "div", "p", "span", "section", "aside", "footer", "svg", "template"])
            attrs = []
            for name in rng.sample(["class", "id", "title"], rng.randint(0, 3)):
                if rng.random() < 0.1:
                    attrs.append(name)            # a valueless attribute
                else:
                    value = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
                    attrs.append(f"{name}='{value}'")
            items.append(f"<{tag} {' '.join(attrs)}>t</{tag}>")
        html = "<html><body>" + "".join(items) + "</body></html>"
        for how in ("load", "raw"):
            tree = _parse(html, how)
            problems += check_noise(tree, tally)
        for select in (True, False):
            problems += check_baseline(html, "load", tally, select=select)
            problems += check_html2txt(html, "load", tally, select=select)
    assert not problems, problems[:5]
    assert tally.noise > 2000 + 96 and tally.baseline["ok"] == 60 and tally.html2txt["ok"] == 60


def test_two_threads() -> None:
    "Two threads running the stages on different documents give what one thread gives (no shared state)."
    from concurrent.futures import ThreadPoolExecutor
    htmls = [h for h in list(generated_documents(29, 40)) + CASES if _parse(h, "load") is not None]

    def run(html: str) -> Any:
        tree = _parse(html, "load")
        res = core.nogil_baseline(tree, [], len(html) % 2 == 0)
        return (None if res is None else (dumped(res[0]), res[1], res[2]), core.nogil_html2txt_len(tree))

    alone = [run(h) for h in htmls]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for _ in range(3):
            assert list(pool.map(run, htmls)) == alone


# -- corpus pages --------------------------------------------------------------------------

_STEP = 2


@needs_corpora
def test_corpus_pages() -> None:
    tally = Tally()
    failures: List[str] = []
    pages = 0
    for k, page in sampled_html_pages(_BUNDLES, _STEP):
        pages += 1
        # every fourth page against the accelerated reference (spaced_text_cleaned etc.); every
        # third by the exact predicate alone (ng_baseline / ng_html2txt_len), the others by ns_select first
        problems = check_page(page.html, "pruned" if k % 2 else "load", tally, accel=(k % 4 == 1),
                              select=(k % 3 != 0))
        if problems:
            failures.append(f"{page.id}: {problems[:3]}")
    print(f"\n{pages} pages, {tally.compared} comparisons; baseline {dict(tally.baseline)}; "
          f"html2txt {dict(tally.html2txt)}; reference ValueErrors {tally.raised}; basic_clean verdicts "
          f"{tally.noise} ({tally.fallback_pages} pages where the Matcher leaves some to the fallback)")
    assert not failures, failures[:5]
    assert pages > 100
    need = {c: n for c, n in tally.baseline.items() if c not in ("ok", "(neutralised)")}
    # the bound: the JSON strategies stay in Python, and JSON-LD with articleBody/"Product" is
    # common on news and shop pages (54 of this sample's 496 pages), so it is a share of the pages;
    # nothing else gives NEED_PYTHON on load_html trees (the raising paths need refused
    # characters, which load_html strips; the Matcher's unknown verdicts, on 15 of these pages,
    # go to the fallback predicate)
    assert need.get("json-ld", 0) + need.get("data-preloaded", 0) <= 0.2 * pages
    assert sum(n for c, n in need.items() if c not in ("json-ld", "data-preloaded")) == 0
    assert tally.html2txt["ok"] == pages and tally.raised == 0
    assert tally.fallback_pages > 0
