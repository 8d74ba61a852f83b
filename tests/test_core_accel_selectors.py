"""The selector accelerators (cython_core/accel_selectors.pxi, trafila.xpathlib on core trees).

On the compiled core's trees the selectors of both ports (trafila.v2_3_1.xpaths,
trafila.v1_11_0.xpaths) run the tag filter in C and a per-predicate
necessary-condition prefilter over the raw attribute bytes
(``trafila._core.select_candidates``); only its survivors meet the Python
predicate. Proved here, for each port (the tests take a ``port`` parameter;
each port builds its trees with its own load_html, tree_cleaning, convert_tags
and Extractor):

* every selector of the port's xpaths on the core's tree returns the nodes
  the same selector returns on the reference tree of the same page (same
  positions, same order), with the prefilters on and off, on the raw tree and
  after tree_cleaning + convert_tags (the trees the pruning selectors meet);
* every predicate the port's selectors test is registered, but for the ones
  listed with their reason (``Port.unregistered``);
* every registered prefilter holds on every node where its predicate holds
  (corpus pages and Hypothesis documents whose attribute values are drawn from
  the literals, their case variants, and non-ASCII look-alikes: U+017F, U+212A,
  U+0130, U+0131; empty and valueless attributes);
* ``p_text_length`` (C: ``tag_text_length``; 2.3.1) gives the reference's count on the same trees;
* the regex literal derivation (``regex_literals``) names literals every match
  contains (Hypothesis over strings built around them).
"""

from __future__ import annotations

import inspect
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Tuple

import pytest

core = pytest.importorskip("trafila._core")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from trafila import _backend, xpathlib  # noqa: E402
from trafila.v1_11_0 import htmlprocessing as htmlprocessing_1_11_0  # noqa: E402
from trafila.v1_11_0 import settings as settings_1_11_0, utils as utils_1_11_0  # noqa: E402
from trafila.v1_11_0 import xpaths as xpaths_1_11_0  # noqa: E402
from trafila.v2_3_1 import htmlprocessing, xpaths  # noqa: E402
from trafila.v2_3_1._tree import desc_list  # noqa: E402
from trafila.v2_3_1.settings import Extractor  # noqa: E402
from trafila.v2_3_1.utils import load_html  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

CORE = _backend.core_backend(core)
REF = _backend.reference()

Selectors = List[Tuple[str, Callable[[Any], List[Any]]]]


def _numbered(name: str, selectors: List[Callable[[Any], List[Any]]]) -> Selectors:
    return [(f"{name}_{k}", f) for k, f in enumerate(selectors)]


SELECTORS_2_3_1: Selectors = [
    *_numbered("body_xpath", xpaths.BODY_XPATH),
    *((f"first_body_match_{k}", (lambda ctx, f=f: [x for x in [xpaths.first_body_match(f, ctx)] if x is not None]))
      for k, f in enumerate(xpaths.BODY_XPATH)),
    *_numbered("comments_xpath", xpaths.COMMENTS_XPATH),
    ("remove_comments", xpaths.remove_comments_xpath),
    ("remove_comments_and_lists", xpaths.remove_comments_and_lists_xpath),
    *_numbered("raw_tree_prune", xpaths.RAW_TREE_PRUNE_XPATH),
    *_numbered("overall_discard", xpaths.OVERALL_DISCARD_XPATH),
    ("teaser_discard", xpaths.teaser_discard),
    *_numbered("precision_discard", xpaths.PRECISION_DISCARD_XPATH),
    ("discard_image_elements", xpaths.discard_image_elements),
    *_numbered("comments_discard", xpaths.COMMENTS_DISCARD_XPATH),
    ("basic_clean", xpaths.basic_clean_xpath),
    ("tex_annotation", xpaths.tex_annotation),
    ("hljs_spans", xpaths.hljs_spans),
    ("wild_text", lambda ctx: xpaths.wild_text_elements(ctx, False)),
    ("wild_text_recall", lambda ctx: xpaths.wild_text_elements(ctx, True)),
]

X11 = xpaths_1_11_0
SELECTORS_1_11_0: Selectors = [
    *_numbered("body_xpath", X11.BODY_XPATH),
    *_numbered("comments_xpath", X11.COMMENTS_XPATH),
    *_numbered("remove_comments", X11.REMOVE_COMMENTS_XPATH),
    *_numbered("paywall_discard", X11.PAYWALL_DISCARD_XPATH),
    *_numbered("overall_discard", X11.OVERALL_DISCARD_XPATH),
    *_numbered("teaser_discard", X11.TEASER_DISCARD_XPATH),
    *_numbered("precision_discard", X11.PRECISION_DISCARD_XPATH),
    *_numbered("discard_image_elements", X11.DISCARD_IMAGE_ELEMENTS),
    *_numbered("comments_discard", X11.COMMENTS_DISCARD_XPATH),
    ("figures_with_table", X11.figures_with_table),
]


@dataclass(frozen=True)
class Port:
    "One port's selectors and the functions its trees are built with."
    name: str
    xpaths: Any
    selectors: Selectors
    load_html: Callable[[Any], Any]
    tree_cleaning: Callable[[Any, Any], Any]
    convert_tags: Callable[[Any, Any], Any]
    extractor: Callable[..., Any]
    #: selector name -> why the predicate it tests has no prefilter
    unregistered: Dict[str, str] = field(default_factory=dict)

    @property
    def predicates(self) -> List[Any]:
        "The registered predicates of this port (for the per-node check)."
        return [p for p in xpathlib.PREFILTER_SPECS if p.__module__ == self.xpaths.__name__]


PORTS: Dict[str, Port] = {
    "2.3.1": Port("2.3.1", xpaths, SELECTORS_2_3_1, load_html, htmlprocessing.tree_cleaning,
                  htmlprocessing.convert_tags, Extractor),
    "1.11.0": Port("1.11.0", X11, SELECTORS_1_11_0, utils_1_11_0.load_html, htmlprocessing_1_11_0.tree_cleaning,
                   htmlprocessing_1_11_0.convert_tags, settings_1_11_0.Extractor, unregistered={
                       "body_xpath_1": "(.//article)[1]: true on every <article>; the C tag filter is all there is",
                       "comments_discard_0": "starts-with(@id, 'respond'): an anonymous lambda in the selector "
                                             "list, narrowed to div/section by the C tag filter",
                   }),
}
BOTH = pytest.mark.parametrize("port", list(PORTS))


def _positions(root: Any) -> Dict[int, int]:
    "id(element) -> its position in document order below ``root`` (0 is ``root``)."
    return {id(el): k for k, el in enumerate([root] + desc_list(root))}


def _run_all(port: Port, root: Any, contexts: List[int]) -> List[Tuple[str, int, List[int]]]:
    "Every selector of the port from each context (a position), as positions."
    nodes = [root] + desc_list(root)
    pos = _positions(root)
    out = []
    for ctx_pos in contexts:
        ctx = nodes[ctx_pos]
        for name, sel in port.selectors:
            out.append((name, ctx_pos, [pos[id(el)] for el in sel(ctx)]))
    return out


def _contexts(root: Any) -> List[int]:
    "The root, and a few inner elements with children (spread over the tree)."
    nodes = [root] + desc_list(root)
    inner = [k for k, el in enumerate(nodes) if k and len(el)]
    step = max(1, len(inner) // 4)
    return [0] + inner[::step][:4]


def _trees(port: Port, html: Any, cleaned: bool, **options: Any) -> Tuple[Any, Any]:
    "The reference tree and the core's tree of ``html`` (raw, or after the port's tree_cleaning + convert_tags)."
    out = []
    for backend in (REF, CORE):
        def build() -> Any:
            tree = port.load_html(html)
            if tree is None or not cleaned:
                return tree
            opts = port.extractor(**options)
            return port.convert_tags(port.tree_cleaning(tree, opts), opts)
        out.append(_backend.run_with(backend, build))
    return out[0], out[1]


def _differences(port: Port, html: Any, cleaned: bool, **options: Any) -> List[str]:
    ref_root, core_root = _trees(port, html, cleaned, **options)
    if ref_root is None:
        assert core_root is None
        return []
    assert type(core_root).__module__.startswith("trafila._core") or _backend.core_of(core_root) is not None
    contexts = _contexts(ref_root)
    expected = _run_all(port, ref_root, contexts)
    problems = []
    for use, exact in ((True, True), (True, False), (False, False)):
        xpathlib.USE_PREFILTERS = use
        xpathlib.USE_EXACT = exact
        try:
            got = _run_all(port, core_root, contexts)
        finally:
            xpathlib.USE_PREFILTERS = True
            xpathlib.USE_EXACT = True
        for e, g in zip(expected, got):
            if e != g:
                problems.append(f"prefilters={use} exact={exact} {e[0]} ctx {e[1]}: reference {e[2][:20]} "
                                f"core {g[2][:20]}")
    problems.extend(_necessary(port, core_root))
    problems.extend(_exact_agrees(port, core_root))
    if port.xpaths is not xpaths:  # p_text_length is the 2.3.1 port's
        return problems
    ref_nodes, core_nodes = [ref_root] + desc_list(ref_root), [core_root] + desc_list(core_root)
    for ctx_pos in contexts:
        want, got = xpaths.p_text_length(ref_nodes[ctx_pos]), xpaths.p_text_length(core_nodes[ctx_pos])
        if want != got:
            problems.append(f"p_text_length ctx {ctx_pos}: reference {want} core {got}")
    return problems


def _necessary(port: Port, core_root: Any) -> List[str]:
    "Every prefilter the port registers holds wherever its predicate does (every node of the tree)."
    problems = []
    nodes = [core_root] + desc_list(core_root)
    for pred in port.predicates:
        pf = xpathlib.compiled_prefilter(core, pred)
        for el in nodes:
            if pred(el) and not core.prefilter_passes(el, pf):
                problems.append(f"{pred.__name__}: prefilter rejects <{el.tag} {dict(el.attrib.items())}>")
    return problems


def _exact_predicates(port: Port) -> List[Any]:
    "The predicates of this port with an exact matcher."
    return [p for p in xpathlib.EXACT_SPECS if p.__module__ == port.xpaths.__name__]


def _exact_agrees(port: Port, core_root: Any) -> List[str]:
    "Every exact matcher the port registers gives its predicate's verdict on every node (or -1: unknown)."
    problems = []
    nodes = [core_root] + desc_list(core_root)
    for pred in _exact_predicates(port):
        m = xpathlib.compiled_matcher(core, pred)
        for el in nodes:
            verdict = core.matcher_verdict(el, m)
            if verdict not in (-1, 0, 1) or (verdict >= 0 and verdict != bool(pred(el))):
                problems.append(f"{pred.__name__}: matcher says {verdict} on <{el.tag} {dict(el.attrib.items())}>")
            elif verdict < 0 and all(v.isascii() for v in el.attrib.values()):
                problems.append(f"{pred.__name__}: matcher undecided on ASCII <{el.tag} {dict(el.attrib.items())}>")
    return problems


# -- hand-written pages (always run) -------------------------------------------------------------

PAGES = [
    '<html><body><div class="comment-list" id="x"><p>a</p></div><div id="x" class="comment-list"><p>b</p></div>'
    '<div id="cookie" class="y">c</div><div class="y" id="cookie">d</div><section class="reply-x" id="q">e</section>'
    '<span id="hidden-1" style="x">f</span><span style="hidden" id="z">g</span><p class="bottom" id="k">h</p>'
    '<p id="k" class="a bottom">i</p><div class="link">j</div><div class="permalink">k</div></body></html>',
    '<html><body><main><div>x</div></main><article class="">a</article><div id="Main-Content">b</div>'
    '<div class="Page-Content">c</div><div id="TEASER">d</div><div role="Navigation">e</div>'
    '<div data-lp-replacement-content="">f</div><div aria-hidden="true">g</div><div style="display: none">h</div>'
    '<section class="main">i</section><div class="FullText">j</div><div class="article ">k</div>'
    '<div class="FULLTEXT">l</div><div class="fulltext">m</div><div class="fu\u017fltext">n</div></body></html>',
    '<html><body><div><main>m</main><div class="main">n</div></div><div class="post">1</div><div class="post">2</div>'
    '<section><div class="entry">3</div><div class="entry">4</div></section>'
    '<div><div><p>x</p></div><div class="entry">5</div></div><div><div class="entry">6</div></div></body></html>',
    '<html><body><div class="infinite-scroll"><h1>t</h1></div><div class="infinite-scroll">x</div>'
    '<aside class="mvp-post-add-box"><h1>t</h1></aside><ul id="comments">c</ul><ol class="commentary">d</ol>'
    '<ul class="comments-x" id="commentary">e</ul><details id="Comment">f</details><div id="disqus_thread">g</div>'
    '<div id="respond">r</div><cite>c</cite><quote>q</quote><div class="elementor-share-buttons">s</div>'
    '<div class="cookie-banner">k</div><div id="CookieBot">k</div><div id="a" class="site-footer">f</div>'
    '<div class="x" id="footer">f</div><template>t</template><math><annotation encoding="application/x-tex">x'
    '</annotation></math><pre><span class="hljs-x">c</span></pre><div class="w3-code">w</div>'
    '<div class="COOKIE-CONSENT">a</div><div id="\u212aookie-banner">b</div><div class="cookie_bar \u0130">c</div>'
    '<div class="Coo\u017fie">d</div><table><tr><td><p>p<b>q</b></p></td></tr></table></body></html>',
    # valueless, empty and duplicated attributes, unusual names
    '<html><body><div hidden class>a</div><div class="" id="">b</div><div data-lp-replacement-content>c</div>'
    '<div aria-hidden>d</div><div style>e</div><div id="x" id="comments">f</div><div class="a" class="hidden">g</div>'
    '<header>h</header><div role="NAV">i</div><div role="\u0146av">j</div><p style="border:0">k</p></body></html>',
    # 1.11.0's own tests: paywall, captions, figures with tables, partial translate()s, starts-with
    '<html><body><div id="paywall-x">a</div><p class="Restricted overlay">b</p><p class="img-caption">c</p>'
    '<figure><table><tr><td>t</td></tr></table></figure><figure><p>n</p></figure><div id="ArticleBody">d</div>'
    '<div id="articleBody">e</div><section class="xarticle__container">f</section><div class="article x">g</div>'
    '<div id="primary-col">h</div><div id="COMMENTS">i</div><div class="Comments">j</div><div id="dsq-comments">k</div>'
    '<div class="x" id="Share-box">l</div><span class="ByLine">m</span><span class="Byline">n</span>'
    '<div class="jp-x" id="jp-relatedposts">o</div><div data-component="MostPopularStories">p</div>'
    '<p class="ZendeskForm x">q</p><div class="infoLine">r</div><div class="x" style="display:none">s</div>'
    '<div class="signin">t</div><div id="reply-1">u</div><div id="x-akismet">v</div><section id="respond-2">w</section>'
    '<article id="x"><p>x</p></article><div class="commentlist">y</div><div class="post-Nav">z</div>'
    '<p id="x-premium">1</p></body></html>',
    '',
    '<html><body></body></html>',
]


@BOTH
@pytest.mark.parametrize("cleaned", [False, True])
@pytest.mark.parametrize("k", range(len(PAGES)))
def test_pages(port: str, k: int, cleaned: bool) -> None:
    assert _differences(PORTS[port], PAGES[k], cleaned) == []


def _remembered_predicates() -> List[Any]:
    return [pred for module in (xpaths, xpaths_1_11_0) for name, pred in sorted(vars(module).items())
            if name.startswith("_is_") and inspect.unwrap(pred) is not pred]


def test_remembered_predicates_give_their_own_verdicts() -> None:
    """xpathlib.attribute_memo: on every node of the hand-written pages (both element
    models, raw and cleaned, each page twice so that verdicts come from the memo) a
    remembered predicate answers as the function it wraps."""
    preds = _remembered_predicates()
    assert preds, "no remembered predicate left: drop this test or the memo"
    port = PORTS["1.11.0"]
    checked = 0
    for markup in PAGES + PAGES:
        for cleaned in (False, True):
            for root in _trees(port, markup, cleaned):
                if root is None:
                    continue
                for el in [root] + desc_list(root):
                    for pred in preds:
                        assert bool(pred(el)) == bool(inspect.unwrap(pred)(el)), (pred.__name__, dict(el.attrib))
                        checked += 1
    assert checked > 500


@BOTH
def test_pages_match_something(port: str) -> None:
    "The hand-written pages do exercise the selectors (non-empty results for most)."
    hits = set()
    for page in PAGES:
        ref_root, _ = _trees(PORTS[port], page, False)
        if ref_root is not None:
            hits |= {name for name, _ctx, found in _run_all(PORTS[port], ref_root, [0]) if found}
    names = [n for n, _ in PORTS[port].selectors]
    assert len(hits) >= len(names) - 3, sorted(set(names) - hits)


def _closure_predicates(selector: Callable[..., Any]) -> List[Any]:
    "The predicates an xpathlib.all_of / first_of selector closes over (none for other selectors)."
    cells = [c.cell_contents for c in selector.__closure__ or ()]
    return [c for c in cells if callable(c)]


@BOTH
def test_every_predicate_selected_is_registered(port: str) -> None:
    "Each ``_is_*`` predicate, and each predicate a selector closes over, has a prefilter (or a listed reason)."
    spec = PORTS[port]
    registered = set(spec.predicates)
    names = {p.__name__ for p in registered}
    for name in dir(spec.xpaths):
        if name.startswith("_is_"):
            assert name in names, name
    unlisted = []
    for name, selector in spec.selectors:
        for pred in _closure_predicates(selector):
            if pred not in registered and name not in spec.unregistered:
                unlisted.append(f"{name}: {pred.__name__}")
            if name in spec.unregistered:
                assert pred not in registered, f"{name} is listed as unregistered but has a prefilter"
    assert unlisted == []
    # every listed exception names a selector of the port (the list cannot go stale silently)
    assert set(spec.unregistered) <= {name for name, _ in spec.selectors}


def test_port_predicates_are_their_own() -> None:
    """The per-port predicate lists split the selectors' registry: each port has its own, none is
    shared (the metadata and htmldate modules register predicates of their own beside them)."""
    first, second = (set(p.predicates) for p in PORTS.values())
    assert first and second and not first & second
    others = ("trafila.v2_3_1.metadata", "trafila.v1_11_0.metadata", "trafila.htmldate.")
    selectors = {p for p in xpathlib.PREFILTER_SPECS if not inspect.unwrap(p).__module__.startswith(others)}
    assert first | second == selectors


# -- Hypothesis: attribute values around the literals ---------------------------------------------

def _source_literals(pred: Any) -> List[str]:
    """The strings a predicate tests, read from its code (not from its registration, so a literal
    a prefilter leaves out is still drawn): its short string constants and the str tuples of the
    module globals it names."""
    pred = inspect.unwrap(pred)  # a remembered predicate (xpathlib.attribute_memo): its own code
    code, names = pred.__code__, pred.__globals__
    out = [c for c in code.co_consts if isinstance(c, str) and 0 < len(c) <= 40 and "\n" not in c]
    for name in code.co_names:
        value = names.get(name)
        if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            out.extend(value)
    return out


_LITERALS = sorted({lit for terms, _tags in xpathlib.PREFILTER_SPECS.values() for _n, _k, lits in terms for lit in lits}
                   | {lit for pred in xpathlib.PREFILTER_SPECS for lit in _source_literals(pred)})
_LOOKALIKES = {"s": "\u017f", "k": "\u212a", "i": "\u0130", "I": "\u0131", "K": "\u212a", "S": "\u017f"}


def _variant(lit: str, how: int) -> str:
    "Variant ``how`` of ``lit``: 0-5 as below; from 6 on, the letters picked by the bits of ``how - 6`` upper-cased."
    if how >= 6:  # partial case changes: what a translate() mapping only some letters meets
        mask = how - 6
        return "".join(c.upper() if mask >> (i % 12) & 1 else c for i, c in enumerate(lit))
    if how == 0:
        return lit
    if how == 1:
        return lit.upper()
    if how == 2:
        return lit.swapcase()
    if how == 3:
        return "".join(_LOOKALIKES.get(c, c) for c in lit)
    if how == 4:
        return lit[:-1]
    return lit.capitalize()


_value = st.builds(
    lambda parts, seps: "".join(p + s for p, s in zip(parts, seps)),
    st.lists(st.builds(_variant, st.sampled_from(_LITERALS), st.integers(0, 5) | st.integers(6, 6 + 4095)) | st.text(
        alphabet=st.sampled_from("aeiklnorst -_:\u017f\u212a\u0130\u0131\u00e9"), max_size=6), min_size=0, max_size=3),
    st.lists(st.sampled_from(["", " ", "-", "_", "x", "ary", ":none", " none"]), min_size=3, max_size=3),
)
_ATTR_NAMES = ["id", "class", "style", "role", "itemprop", "aria-hidden", "data-component",
               "data-lp-replacement-content", "title"]
_TAGS = ["div", "section", "article", "main", "span", "p", "aside", "ul", "ol", "details", "list", "item", "footer",
         "header", "cite", "h1", "table"]


def _attr_src(name: str, value: Any) -> str:
    if value is None:
        return f" {name}"
    return ' %s="%s"' % (name, value.replace("&", "&amp;").replace('"', "&quot;"))


_element = st.tuples(
    st.sampled_from(_TAGS),
    st.lists(st.tuples(st.sampled_from(_ATTR_NAMES), st.none() | _value), max_size=4),
    st.integers(0, 2),
)


_TEXTS = ["t", "t\u00e9", "\u00e9\U0001f600 x", ""]


def _document(elements: List[Any]) -> str:
    out = ["<html><body>"]
    for k, (tag, attrs, nest) in enumerate(elements):
        out.append(f"<{tag}{''.join(_attr_src(n, v) for n, v in attrs)}>{_TEXTS[k % 4]}")
        if nest == 0:
            out.append(f"</{tag}>{_TEXTS[(k + 1) % 4]}")
    return "".join(out) + "</body></html>"


@settings(max_examples=int(os.environ.get("TRAFILA_HYPOTHESIS_EXAMPLES", "300")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@BOTH
@given(st.lists(_element, min_size=1, max_size=12))
def test_generated_documents(port: str, elements: List[Any]) -> None:
    html = _document(elements)
    assert _differences(PORTS[port], html, False) == []


@BOTH
def test_every_literal_in_every_attribute(port: str) -> None:
    """Each literal a predicate tests, in a few case variants and surroundings, as the value of each
    attribute the predicates read, on a spread of tags: every prefilter holds wherever its predicate does."""
    elements = []
    for k, lit in enumerate(_LITERALS):
        for how in (0, 1, 2, 5, 6 + 1, 6 + 0b101010101010):
            value = _variant(lit, how)
            for name in _ATTR_NAMES:
                for around in ("{}", "x {} y"):
                    elements.append((_TAGS[(k + how + len(elements)) % len(_TAGS)], [(name, around.format(value))], 0))
    _, core_root = _trees(PORTS[port], _document(elements), False)
    assert len(desc_list(core_root)) > len(elements)
    assert _necessary(PORTS[port], core_root) == []


def _pattern_of(search: Callable[[str], Any]) -> "re.Pattern[str]":
    return search.__self__  # type: ignore[attr-defined]


_REGEXES = [v for v in vars(xpaths).values() if callable(v) and getattr(v, "__self__", None) is not None
            and isinstance(v.__self__, re.Pattern)]


@settings(max_examples=int(os.environ.get("TRAFILA_HYPOTHESIS_EXAMPLES", "300")), deadline=None)
@given(st.sampled_from(_REGEXES), st.integers(0, 10 ** 6),
       st.text(alphabet=st.sampled_from("abcdeiklmnoprstuvy -_:\u017f\u212a\u0130\u0131ACKST"), max_size=8),
       st.text(alphabet=st.sampled_from("abcdeiklmnoprstuvy -_\u017f\u212aACKST"), max_size=8))
def test_regex_literals_are_necessary(search: Any, pick: int, before: str, after: str) -> None:
    "A subject the pattern matches contains one of the derived literals (ASCII-folded under re.I)."
    pattern = _pattern_of(search)
    literals = xpathlib.regex_literals(pattern.pattern, pattern.flags)
    assert literals
    # subjects around each literal and around the alternatives of the pattern itself
    alternatives = [a for a in pattern.pattern.replace("(?:", "").replace(")", "").split("|") if a]
    seed = alternatives[pick % len(alternatives)]
    core_text = re.sub(r"[\^\$\\\[\]\?\(\)\{\}0-9,!]", "", seed)
    for subject in (before + core_text + after, before + literals[pick % len(literals)] + after,
                    _variant(before + core_text + after, pick % 6)):
        if pattern.search(subject):
            if pattern.flags & re.IGNORECASE:
                if subject.isascii():
                    assert any(lit.lower() in subject.lower() for lit in literals), (pattern.pattern, subject)
            else:
                assert any(lit in subject for lit in literals), (pattern.pattern, subject)


_MATCHING = st.one_of([st.from_regex(_pattern_of(r)) for r in _REGEXES]).filter(
    lambda v: not any(0xD800 <= ord(c) <= 0xDFFF for c in v))


@settings(max_examples=int(os.environ.get("TRAFILA_HYPOTHESIS_EXAMPLES", "300")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(st.lists(st.tuples(st.sampled_from(_TAGS), st.lists(st.tuples(st.sampled_from(_ATTR_NAMES[:4]), _MATCHING),
                                                            min_size=1, max_size=3), st.integers(0, 2)),
                min_size=1, max_size=6))
@BOTH
def test_documents_with_matching_values(port: str, elements: List[Any]) -> None:
    """Attribute values drawn from the 2.3.1 patterns themselves (st.from_regex): the predicates hold
    often (the 1.11.0 ones test many of the same literals)."""
    assert _differences(PORTS[port], _document(elements), False) == []


def test_ignorecase_lookalikes_pass() -> None:
    "re.IGNORECASE matches U+212A / U+017F for k / s: such values pass the fold_ic prefilter."
    html = '<html><body><div class="coo\u212aie-banner">a</div><div id="con\u017fent-banner">b</div></body></html>'
    _, core_root = _trees(PORTS["2.3.1"], html, False)
    pf = xpathlib.compiled_prefilter(core, xpaths._is_basic_noise)
    divs = [el for el in desc_list(core_root) if el.tag == "div"]
    assert xpaths._is_basic_noise(divs[0]) and xpaths._is_basic_noise(divs[1])
    assert all(core.prefilter_passes(el, pf) for el in divs)


@BOTH
def test_prefilter_rejects(port: str) -> None:
    "The prefilters do reject plain nodes (the point of them)."
    _, core_root = _trees(PORTS[port], '<html><body><div class="story-x" id="q">a</div><p>b</p></body></html>', False)
    pf = xpathlib.compiled_prefilter(core, PORTS[port].xpaths._is_hidden_or_reply)
    assert not any(core.prefilter_passes(el, pf) for el in desc_list(core_root))


# 1.11.0's translate() calls map some upper-case letters only; the folded terms pass them all
_PARTIAL_TRANSLATE = [
    ("_is_article_body", '<div id="articleBody">', True), ("_is_article_body", '<div id="ArticleBody">', False),
    ("_is_article_body", '<div id="xARTICLEBODY">', False), ("_is_main_content", '<div class="xmain-Content">', True),
    ("_is_main_content", '<div id="Main-Content">', True), ("_is_main_content", '<div id="MAIN-cONTENT">', False),
    ("_is_main_content", '<div class="Page-Content">', True), ("_is_story", '<div class="FullText">', True),
    ("_is_comments_section", '<div id="Comments">', True), ("_is_comments_section", '<div class="COMMENTS">', False),
    ("_is_boilerplate", '<div id="Navi">', True), ("_is_boilerplate", '<div role="NAV">', False),
    ("_is_boilerplate", '<div class="ByLine">', False), ("_is_boilerplate", '<div class="Byline">', True),
    ("_is_teaser", '<div class="Teaser">', True), ("_is_teaser", '<div id="TEASER">', False),
]


@pytest.mark.parametrize("name, start_tag, holds", _PARTIAL_TRANSLATE)
def test_partial_translate_passes(name: str, start_tag: str, holds: bool) -> None:
    """Where a 1.11.0 predicate holds through a partial translate(), its folded prefilter passes;
    values it rejects by case (upper-case letters the translate does not map) may pass, and do."""
    pred = getattr(X11, name)
    _, core_root = _trees(PORTS["1.11.0"], f"<html><body>{start_tag}x</div></body></html>", False)
    el = next(el for el in desc_list(core_root) if el.tag == "div")
    assert pred(el) is holds
    assert core.prefilter_passes(el, xpathlib.compiled_prefilter(core, pred))


# -- corpus pages ------------------------------------------------------------------------------------

_STEP = int(os.environ.get("TRAFILA_SELECTORS_STEP", "40"))
_BUNDLES = os.environ.get("TRAFILA_SELECTORS_BUNDLES", "goose3,cleanportaleval,commoncrawl,trafilatura,"
                          "mozilla-readability").split(",")


@needs_corpora
@BOTH
@pytest.mark.parametrize("cleaned", [False, True])
def test_corpus(port: str, cleaned: bool) -> None:
    failures, pages = [], 0
    for _name, page in sample_pages(_BUNDLES, _STEP):
        if page.html is None:
            continue
        pages += 1
        problems = _differences(PORTS[port], page.html, cleaned)
        if problems:
            failures.append(f"{page.id}: {problems[:3]}")
    assert pages > 0
    print(f"{port}: {pages} pages x {len(PORTS[port].selectors)} selectors compared (cleaned={cleaned})")
    assert failures == [], failures[:5]



# -- exact matchers ----------------------------------------------------------------------------------

def _regex_matcher(pattern: "re.Pattern[str]") -> Any:
    program = xpathlib.compile_regex(pattern)
    assert program is not None, pattern.pattern
    return core.Matcher([("regex", ("class",), False, (), None, 0, (), 0)], [program])


# patterns with every construct the regex program models (beyond the ports' own)
_EXTRA_PATTERNS = [re.compile(p, re.UNICODE | f) for p, f in [
    (r"(^|\s)bottom|bottom(\s|$)", 0), (r"a[^b]c", 0), (r"x.y", 0), (r"^ab$", 0), (r"ab\Z", 0), (r"\Aab", 0),
    (r"q(?=r)", 0), (r"c(?!ary)", 0), (r"n[-_]{0,2}c", 0), (r"(?:ab|cd){2}", 0), (r"a\dz", 0), (r"a\wz", 0),
    (r"a\Sz", 0), (r"a[\s_]z", 0), (r"foo[-_]?(?:bar|baz)", re.IGNORECASE), (r"k\d", re.IGNORECASE),
    (r"s[é]t", 0), (r"a[0-9é-ü]z", 0), (r"[Cc]omment(?!ary)|comol", 0), (r"xy{1,3}?", 0), (r"ok\n?$", 0),
]]
_ALL_PATTERNS = [_pattern_of(r) for r in _REGEXES] + [p for p in _EXTRA_PATTERNS if xpathlib.compile_regex(p)]
_CHARS = "abcdefiklmnoqrstuvxyz ABCKST-_:0123\n\t\x1c\x85\u00a0\u2003\u017f\u212a\u0130\u0131\u00e9\u00fc\U0001f600"


def test_extra_patterns_compile() -> None:
    "The constructs the program models compile; the ones it does not are refused (None)."
    assert len(_ALL_PATTERNS) == len(_REGEXES) + len(_EXTRA_PATTERNS) - 2  # foo..(re.I class), s[é]t
    for bad in (r"a+", r"a*", r"(a)\1", r"(?<=a)b", r"\bx", r"(?i:a)b", r"é", r"[a-z]x", r"a|"):
        flags = re.IGNORECASE if bad == "[a-z]x" else 0
        assert xpathlib.compile_regex(re.compile(bad, flags)) is None, bad


@settings(max_examples=int(os.environ.get("TRAFILA_HYPOTHESIS_EXAMPLES", "300")) * 4, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_regex_program_is_re_search(data: Any) -> None:
    "The C program's verdict is re.search's on every value (or -1, only for non-ASCII values where it must)."
    pattern = data.draw(st.sampled_from(_ALL_PATTERNS))
    part = st.from_regex(pattern).filter(lambda v: not any(0xD800 <= ord(c) <= 0xDFFF for c in v))
    value = data.draw(st.builds(lambda a, b, c, how: _variant(a + b + c, how), st.text(_CHARS, max_size=4),
                                part | st.text(_CHARS, max_size=12), st.text(_CHARS, max_size=4), st.integers(0, 6)))
    program = xpathlib.compile_regex(pattern)
    verdict = _regex_matcher(pattern).value_verdict(0, value)
    want = pattern.search(value) is not None
    if verdict == -1:
        assert program[0] and not value.isascii(), (pattern.pattern, value)
    else:
        assert verdict == want, (pattern.pattern, value)


def test_regex_program_samples() -> None:
    "Hand-picked values: \\s is Unicode (U+001C, U+0085: unknown, Python decides), $ before a final newline."
    cases = [(r"(^|\s)bottom|bottom(\s|$)", "a bottom", 1), (r"(^|\s)bottom|bottom(\s|$)", "xbottomx", 0),
             (r"(^|\s)bottom|bottom(\s|$)", "bottom\n", 1), (r"(^|\s)bottom|bottom(\s|$)", "a\x1cbottom", 1),
             (r"(^|\s)bottom|bottom(\s|$)", "a\u00a0bottom", -1), (r"^ab$", "ab\n", 1), (r"^ab$", "ab\n\n", 0),
             (r"ab\Z", "ab\n", 0), (r"[Cc]omment(?!ary)|comol", "Commentary", 0),
             (r"[Cc]omment(?!ary)|comol", "Commentar", 1), (r"[Cc]omment(?!ary)|comol", "\u00e9comol", 1)]
    for pat, value, want in cases:
        pattern = re.compile(pat)
        assert _regex_matcher(pattern).value_verdict(0, value) == want, (pat, value)
        if want >= 0:
            assert bool(pattern.search(value)) == bool(want)


@BOTH
def test_exact_predicates_registered(port: str) -> None:
    "Every prefiltered predicate has an exact matcher but for the few that read more than attributes."
    spec = PORTS[port]
    missing = {p.__name__ for p in spec.predicates} - {p.__name__ for p in _exact_predicates(spec)}
    allowed = {"2.3.1": {"_is_appended_articles", "_is_main_candidate"}, "1.11.0": set()}[port]
    assert missing <= allowed, missing - allowed
    assert _exact_predicates(spec)


@BOTH
def test_exact_path_calls_no_predicate_on_ascii(port: str) -> None:
    "On ASCII attribute values the C matcher decides alone: the Python predicate is never called."
    _, core_root = _trees(PORTS[port], PAGES[0] + PAGES[3], False)
    assert core_root is not None
    found = 0
    for pred in _exact_predicates(PORTS[port]):
        m = xpathlib.compiled_matcher(core, pred)

        def fail(el: Any, pred: Any = pred) -> bool:
            raise AssertionError(f"{pred.__name__} called on <{el.tag} {dict(el.attrib)}>")

        got = core.select_matches(core_root, None, m, fail, 0)
        assert [el.node_index for el in got] == [el.node_index for el in desc_list(core_root) if pred(el)]
        found += len(got)
    assert found > 10


def test_exact_unknown_calls_the_predicate() -> None:
    "A non-ASCII value under a pattern with character semantics: the predicate decides (and is called)."
    html = '<html><body><div class="a\u00a0bottom" id="z">x</div><div class="bottom">y</div></body></html>'
    _, core_root = _trees(PORTS["2.3.1"], html, False)
    pred = xpaths._is_bottom_link_or_border
    m = xpathlib.compiled_matcher(core, pred)
    divs = [el for el in desc_list(core_root) if el.tag == "div"]
    assert [core.matcher_verdict(el, m) for el in divs] == [-1, 1]
    calls = []
    got = core.select_matches(core_root, None, m, lambda el: calls.append(el) or pred(el), 0)
    assert [el.node_index for el in calls] == [divs[0].node_index]
    assert [el.node_index for el in got] == [el.node_index for el in divs if pred(el)]


@BOTH
def test_every_literal_exact(port: str) -> None:
    "Each literal in case variants and surroundings, in each attribute, on a spread of tags: exact verdicts agree."
    elements = []
    for k, lit in enumerate(_LITERALS):
        for how in (0, 1, 2, 3, 4, 5, 6 + 1, 6 + 0b101010101010):
            value = _variant(lit, how)
            for name in _ATTR_NAMES:
                for around in ("{}", "x {} y", " {}", "{}\n", "a{}"):
                    elements.append((_TAGS[(k + how + len(elements)) % len(_TAGS)], [(name, around.format(value))], 0))
    _, core_root = _trees(PORTS[port], _document(elements), False)
    assert _exact_agrees(PORTS[port], core_root) == []
