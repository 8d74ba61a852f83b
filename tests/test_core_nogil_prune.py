"""The pruning stages without the GIL (cython_core/nogil_prune.pxi),
and prune_html on the raw tree.

Each C stage runs inside ``with nogil:`` on one tree; the reference stage of
trafila.v2_3_1 runs on a second tree built from the same HTML, as Python over the core's
elements (``core_of`` answers None in htmlprocessing: its deletions, outermost matches,
text lengths and link-density tests in Python; every selector predicate decided by Python:
xpathlib's exact matchers and prefilters off; main_extractor keeps the core model's
strip_tags and snapshot walk, tree primitives).
The two trees must then be identical (a structural dump of the whole document and of the
stage's context: tag, sorted attributes, text, children with tails; the context's own
tail and whether it was detached), for:

* ``prune_unwanted_nodes`` with every selector list of the fast path and its retry
  (RAW_TREE_PRUNE, OVERALL_DISCARD with and without backup, DISCARD_IMAGE, TEASER,
  PRECISION, COMMENTS_DISCARD, REMOVE_COMMENTS, REMOVE_COMMENTS_AND_LISTS, basic_clean);
* ``delete_by_link_density`` (div/list/p/head/quote, backtracking and favor_precision both
  ways), ``link_density_test`` and ``link_density_test_tables`` verdicts per element;
* ``prune_unwanted_sections`` on first_body_match's subtree of the cleaned and converted
  tree (as ``_extract`` meets it) and on the whole cleaned tree (as ``recover_wild_text``),
  focus balanced/precision/recall, keep_teasers both ways, potential tags with and without
  graphic, table and ref;
* ``first_body_match`` of each BODY selector and COMMENTS_XPATH's ``found[0]``;

over hand-written cases, generated documents (harness.strategies and a link-heavy
grammar here) and corpus pages. NEED_PYTHON is checked to be honest and counted by cause:
"refused join" exactly when the reference raises (a tail joined through lxml's check: a
character reference gives the parser a control character), "selector -1" only when some
selector the stage runs has a node with an unknown verdict in the starting tree.
Selectors resolved once on the raw tree stay valid after tree_cleaning and convert_tags
renamed and created elements in the same document.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import pytest

core = pytest.importorskip("trafila._core")

from trafila import _backend, xpathlib  # noqa: E402
from trafila.v2_3_1 import htmlprocessing, main_extractor  # noqa: E402
from trafila.v2_3_1 import xpaths as X  # noqa: E402
from trafila.v2_3_1._tree import copy_tree, desc_list  # noqa: E402
from trafila.v2_3_1.settings import TAG_CATALOG, Extractor  # noqa: E402
from trafila.v2_3_1.utils import load_html  # noqa: E402

from harness.strategies import random_article, random_html  # noqa: E402

from ._helpers import core_switched_off, needs_corpora, sample_pages  # noqa: E402
from .test_core_nogil_select import _BUNDLES, _unknown_below  # noqa: E402

CORE = _backend.core_backend(core)

#: name of the C list -> the reference's selector list
LISTS: Dict[str, List[Any]] = {
    "raw_tree_prune": X.RAW_TREE_PRUNE_XPATH,
    "overall_discard": X.OVERALL_DISCARD_XPATH,
    "discard_image_elements": X.DISCARD_IMAGE_ELEMENTS,
    "teaser_discard": X.TEASER_DISCARD_XPATH,
    "precision_discard": X.PRECISION_DISCARD_XPATH,
    "comments_discard": X.COMMENTS_DISCARD_XPATH,
    "remove_comments": X.REMOVE_COMMENTS_XPATH,
    "remove_comments_and_lists": X.REMOVE_COMMENTS_AND_LISTS_XPATH,
    "basic_clean": [X.basic_clean_xpath],
}
#: the selectors prune_unwanted_sections runs (any may be the cause of its NEED_PYTHON)
SECTION_SELECTORS = [*X.OVERALL_DISCARD_XPATH, *X.DISCARD_IMAGE_ELEMENTS, *X.TEASER_DISCARD_XPATH,
                     *X.PRECISION_DISCARD_XPATH]
BASE_POTENTIAL = frozenset(TAG_CATALOG)
#: potential_tags variants: _extract's default (tables on), without tables, with images, with links, all
POTENTIALS = [
    BASE_POTENTIAL | {"table", "td", "th", "tr"},
    BASE_POTENTIAL,
    BASE_POTENTIAL | {"table", "td", "th", "tr", "graphic"},
    BASE_POTENTIAL | {"ref"},
    BASE_POTENTIAL | {"table", "td", "th", "tr", "graphic", "ref", "div"},
]
FOCUSES = ("balanced", "precision", "recall")
OPTIONS = {"balanced": Extractor(), "precision": Extractor(precision=True), "recall": Extractor(recall=True)}


@contextmanager
def python_reference() -> Iterator[None]:
    """The reference stages with every accelerator bypassed: htmlprocessing sees no core (its
    deletions, outermost matches, text lengths and link-density tests in Python) and every
    selector predicate is decided by Python. main_extractor keeps the core's tree primitives
    (the table snapshot, strip_tags of the core's model)."""
    saved = (xpathlib.USE_EXACT, xpathlib.USE_PREFILTERS)
    xpathlib.USE_EXACT = xpathlib.USE_PREFILTERS = False
    try:
        with core_switched_off([htmlprocessing]):
            yield
    finally:
        xpathlib.USE_EXACT, xpathlib.USE_PREFILTERS = saved


def build(html: str, cleaned: Optional[str]) -> Optional[Any]:
    """The raw tree (``cleaned`` None), or tree_cleaning + convert_tags with that focus's options
    (what _extract and recover_wild_text prune)."""
    def make() -> Any:
        tree = load_html(html)
        if tree is None or cleaned is None:
            return tree
        opts = OPTIONS[cleaned]
        return htmlprocessing.convert_tags(htmlprocessing.tree_cleaning(copy_tree(tree), opts), opts)
    return _backend.run_with(CORE, make)


def dumped(el: Any) -> Any:
    "A structural dump: tag, sorted attributes, text, children (tails in place)."
    return (el.tag, sorted(el.attrib.items()), el.text, [(dumped(c), c.tail) for c in el[:]])


def state(root: Any, ctx: Any) -> Any:
    return dumped(root), dumped(ctx), ctx.tail, ctx.getparent() is None


class Tally:
    def __init__(self) -> None:
        self.calls = 0
        self.verdicts = 0
        self.selections = 0
        self.equal = 0
        self.changed = 0        # comparisons where the stage changed the tree
        self.need: Counter = Counter()
        self.unknown_in: Counter = Counter()    # the first selector of the stage with an unknown verdict
        self.pages = 0

    def report(self) -> str:
        return (f"{self.pages} documents, {self.calls} stage runs, {self.equal} trees equal "
                f"({self.changed} changed by the stage), {self.verdicts} link-density verdicts and "
                f"{self.selections} first matches equal, "
                f"NEED_PYTHON {sum(self.need.values())} {dict(self.need)} (unknown verdicts in {dict(self.unknown_in)})")


Pick = Callable[[Any], Optional[Any]]


def compare(html: str, cleaned: Optional[str], pick: Pick, run_c: Callable[[Any], bool],
            run_ref: Callable[[Any], Any], selectors: Sequence[Any], tally: Tally, label: str) -> Optional[str]:
    """The C stage on one tree, the reference on another from the same HTML: None when they agree
    (or the C honestly answered NEED_PYTHON), else the difference."""
    a, b = build(html, cleaned), build(html, cleaned)
    if a is None:
        return None
    ca, cb = pick(a), pick(b)
    if ca is None:
        return None
    assert cb is not None and ca.node_index == cb.node_index
    before = state(a, ca)
    tally.calls += 1
    ok = run_c(ca)
    raised = None
    try:
        with python_reference():
            run_ref(cb)
    except ValueError as err:          # a joined string lxml's setters refuse
        raised = err
    if raised is not None:
        if ok:
            return f"{label}: the reference raised {raised!r}, the C stage answered OK"
        tally.need["refused join"] += 1
        return None
    if not ok:
        fresh = build(html, cleaned)
        unknown = next((sel for sel in selectors if _unknown_below(sel, pick(fresh))), None)
        if unknown is not None:
            tally.need["selector -1"] += 1
            tally.unknown_in[unknown.__name__] += 1
            return None
        return f"{label}: NEED_PYTHON with every verdict known and no refused join"
    got, want = state(a, ca), state(b, cb)
    if got != want:
        return f"{label}: trees differ"
    tally.equal += 1
    tally.changed += got != before
    return None


# -- the contexts -------------------------------------------------------------------------

def _root(tree: Any) -> Any:
    return tree


def _inner(k: int) -> Pick:
    "The k-th element with children (document order; None when there are fewer)."
    def pick(tree: Any) -> Optional[Any]:
        inner = [el for el in desc_list(tree) if len(el)]
        return inner[k] if k < len(inner) else None
    return pick


def _body_match(k: int) -> Pick:
    def pick(tree: Any) -> Optional[Any]:
        with python_reference():
            return X.first_body_match(X.BODY_XPATH[k], tree)
    return pick


def _first_comments(tree: Any) -> Optional[Any]:
    "extract_comments' subtree: the first match of the first COMMENTS selector with one."
    with python_reference():
        for sel in X.COMMENTS_XPATH:
            found = sel(tree)
            if found:
                return found[0]
    return None


def _first_body(tree: Any) -> Optional[Any]:
    "_extract's first subtree: first_body_match of the first BODY selector with one."
    for k in range(len(X.BODY_XPATH)):
        found = _body_match(k)(tree)
        if found is not None:
            return found
    return None


# -- the stages, both sides -----------------------------------------------------------------

def check_nodes(html: str, cleaned: Optional[str], pick: Pick, name: str, with_backup: bool, tally: Tally) -> Optional[str]:
    return compare(html, cleaned, pick,
                   lambda el: core.nogil_prune_unwanted_nodes(el, name, with_backup),
                   lambda el: htmlprocessing.prune_unwanted_nodes(el, LISTS[name], with_backup),
                   LISTS[name], tally, f"prune_unwanted_nodes {name} backup={with_backup} cleaned={cleaned}")


def check_density(html: str, pick: Pick, tag: str, backtracking: bool, precision: bool, tally: Tally) -> Optional[str]:
    return compare(html, "balanced", pick,
                   lambda el: core.nogil_delete_by_link_density(el, tag, backtracking, precision),
                   lambda el: htmlprocessing.delete_by_link_density(el, tag, backtracking, precision),
                   [], tally, f"delete_by_link_density {tag} {backtracking} {precision}")


def check_sections(html: str, pick: Pick, potential: frozenset, focus: str, keep_teasers: bool,
                   tally: Tally) -> Optional[str]:
    return compare(html, focus, pick,
                   lambda el: core.nogil_prune_unwanted_sections(el, potential, focus, keep_teasers),
                   lambda el: main_extractor.prune_unwanted_sections(el, set(potential), OPTIONS[focus], keep_teasers),
                   SECTION_SELECTORS, tally,
                   f"prune_unwanted_sections focus={focus} teasers={keep_teasers} potential={sorted(potential - BASE_POTENTIAL)}")


def check_verdicts(html: str, tally: Tally) -> List[str]:
    "link_density_test (both precisions) and link_density_test_tables on every element of the cleaned tree."
    tree = build(html, "balanced")
    problems: List[str] = []
    if tree is None:
        return problems
    for el in [tree, *desc_list(tree)]:
        with python_reference():
            want_tables = htmlprocessing.link_density_test_tables(el)
            want = [htmlprocessing.link_density_test(el, fp) for fp in (False, True)]
        got = [core.nogil_link_density_test(el, fp) for fp in (False, True)]
        tally.verdicts += 3
        if core.nogil_link_density_test_tables(el) != want_tables:
            problems.append(f"link_density_test_tables {el.tag} {el.node_index}")
        if got != [tuple(w) for w in want]:
            problems.append(f"link_density_test {el.tag} {el.node_index}: {got} {want}")
    return problems


def check_matches(html: str, tally: Tally) -> List[str]:
    "first_body_match of every BODY selector and COMMENTS_XPATH's found[0], raw and cleaned."
    problems: List[str] = []
    for cleaned in (None, "balanced"):
        tree = build(html, cleaned)
        if tree is None:
            continue
        sels = core.NgSelectorSet(tree)
        for ctx in (tree, *(_inner(k)(tree) for k in (0, 3))):
            if ctx is None:
                continue
            for k, sel in enumerate(X.BODY_XPATH):
                got = core.nogil_first_body_match(ctx, k, sels)
                if got is None:
                    if not _unknown_below(sel, ctx):
                        problems.append(f"body {k}: NEED_PYTHON with every verdict known")
                    tally.need["selector -1 (first match)"] += 1
                    continue
                with python_reference():
                    found = X.first_body_match(sel, ctx)
                tally.selections += 1
                if got != (-1 if found is None else found.node_index):
                    problems.append(f"body {k} cleaned={cleaned}: {got} {found}")
            for k, sel in enumerate(X.COMMENTS_XPATH):
                got = core.nogil_first_comments_match(ctx, k, sels)
                if got is None:
                    if not _unknown_below(sel, ctx):
                        problems.append(f"comments {k}: NEED_PYTHON with every verdict known")
                    tally.need["selector -1 (first match)"] += 1
                    continue
                with python_reference():
                    found = sel(ctx)
                tally.selections += 1
                if got != (found[0].node_index if found else -1):
                    problems.append(f"comments {k} cleaned={cleaned}: {got} {found[:1]}")
    return problems


def check_all(html: str, tally: Tally, rng: Optional[random.Random] = None) -> List[str]:
    """Every stage on ``html``: all the variants, or (with ``rng``) a sample of the sections
    variants and link-density settings."""
    problems: List[Optional[str]] = []
    tally.pages += 1
    for name in LISTS:
        for cleaned in (None, "balanced"):
            for pick in (_root, _inner(1)):
                problems.append(check_nodes(html, cleaned, pick, name, False, tally))
    for cleaned in (None, "balanced", "precision"):
        for pick in (_root, _first_body, _inner(0)):
            problems.append(check_nodes(html, cleaned, pick, "overall_discard", True, tally))
    # extract_comments' prune of its subtree
    problems.append(check_nodes(html, "balanced", _first_comments, "comments_discard", False, tally))
    # _extract goes on to the next BODY selector's subtree (of the tree the earlier ones pruned)
    for k in (range(len(X.BODY_XPATH)) if rng is None else [rng.randrange(len(X.BODY_XPATH))]):
        problems.append(check_sections(html, _body_match(k), POTENTIALS[0], "balanced", False, tally))
    density = [(tag, bt, fp) for tag in ("div", "list", "p", "head", "quote") for bt in (False, True) for fp in (False, True)]
    if rng is not None:
        density = rng.sample(density, 6)
    for tag, bt, fp in density:
        problems.append(check_density(html, _first_body if rng is None or rng.random() < 0.5 else _root, tag, bt, fp, tally))
    variants = [(p, f, t) for p in POTENTIALS for f in FOCUSES for t in (False, True)]
    if rng is not None:
        variants = rng.sample(variants, 5)
    for potential, focus, teasers in variants:
        problems.append(check_sections(html, _first_body, potential, focus, teasers, tally))
    # recover_wild_text's call: the whole cleaned tree, keep_teasers = options.fast
    problems.append(check_sections(html, _root, BASE_POTENTIAL, "balanced", True, tally))
    out = [p for p in problems if p is not None]
    out.extend(check_verdicts(html, tally) if rng is None or rng.random() < 0.3 else [])
    out.extend(check_matches(html, tally))
    return out


# -- hand-written cases ---------------------------------------------------------------------

LONG = "word " * 60
LINKS = "".join(f'<a href="/{k}">link number {k}</a> ' for k in range(8))
CASES = [
    # boilerplate classes (overall discard), hidden, captions, teasers, precision-only chrome
    f'<html><body><article><div class="share-buttons">{LINKS}</div><p>{LONG}</p>'
    f'<div class="caption">cap</div>tail<div id="teaser-1">teaser text</div><header>h</header>'
    f'<p style="border:1px">bordered</p><span class="x">s<b>b</b></span>z<div aria-hidden="true">hid</div>'
    f'<section class="tags">t</section></article></body></html>',
    # the backup guard: most of the text inside matches (nothing deleted), and the opposite
    "<html><body><div class='footer'>" + "long footer text " * 40 + "</div>tail<p>short</p></body></html>",
    "<html><body><p>" + "kept text " * 40 + "</p><div class='footer'>f<div class='nav'>n</div>x</div>t</body></html>",
    # nested matches, one element matched by both overall selectors
    f'<html><body><main><div class="sidebar" style="display:none">a<div class="menu">b</div>c</div>d'
    f'<p>{LONG}</p><div class="widget hidden">w</div>e</main></body></html>',
    # link farms: div/list/p link density, backtracking, tables of links, p in item/td
    f'<html><body><article><div>{LINKS}</div><ul><li><a href="/a">one link only in a list item that is long enough</a></li>'
    f'<li>x</li></ul><p><a href="/b">a paragraph that is only a link and nothing else at all really</a></p><p>{LONG}</p>'
    f'<table><tr><td>{LINKS}{LINKS}</td></tr><tr><td><p><a href="/c">cell link</a></p></td></tr></table>'
    f'<div><p>x</p><p>y</p><p>z <a href="/d">l</a></p></div><h2>trailing</h2><h3>heads</h3></article></body></html>',
    # short link-bearing divs with several children (backtracking), images keep a block
    f'<html><body><div class="main"><div><span>a</span><span>b</span><a href="/e">c</a></div>'
    f'<div><img src="x.png"/><a href="/f">a long enough single link text here for the test</a></div>'
    f'<div>{LONG}<a href="/g">g</a></div><blockquote><a href="/h">{LONG}</a></blockquote><p>{LONG}</p></div></body></html>',
    # comments: discard chrome inside a comment list, cite/quote
    f'<html><body><p>{LONG}</p><div class="comment-list"><div id="respond">r</div><cite>c</cite><q>q</q>'
    f'<div class="comment-reply-link">rep</div><p>a real comment</p></div><section id="comments-1">x</section>'
    f'<details class="comments">d</details><ul class="post-list"><li>l</li></ul></body></html>',
    # raw prune: appended articles and elementor share buttons, basic noise
    '<html><body><div class="infinite-scroll"><p>more</p></div><aside id="mvp-post-add-box"><h1>t</h1></aside>'
    '<div class="elementor-share-buttons">s</div><footer>f</footer><script>x</script><div id="cookie-banner">c</div>'
    f'<p>{LONG}</p></body></html>',
    # unknown verdicts: non-ASCII values under case-insensitive patterns (NEED_PYTHON honestly)
    f'<html><body><div class="fu\u017fltext"><p>{LONG}</p></div><div class="\u212aookie-\u00e9">c</div>'
    f'<div class="nav\u00e9">n</div><p>{LONG}</p></body></html>',
    # refused characters in tails (character references): the reference raises on the join
    f'<html><body><article><div class="share">s</div>&#1;tail<p>{LONG}</p><div class="caption">c</div>&#11;x'
    f'<div>{LINKS}</div>&#12;</article></body></html>',
    # spans and refs stripped at the end; precision's trailing heads
    f'<html><body><article><p>{LONG}<span>in span</span> <a href="/x">in ref</a></p><h2>h</h2>'
    f'<blockquote><a href="/q">q</a></blockquote><h3>end</h3></article></body></html>',
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_hand_written(k: int) -> None:
    tally = Tally()
    problems = check_all(CASES[k], tally)
    print(tally.report())
    assert problems == [], problems[:5]


def test_hand_written_do_something() -> None:
    "The cases exercise the stages: most comparisons see a changed tree, every NEED_PYTHON cause occurs."
    tally = Tally()
    for html in CASES:
        check_all(html, tally)
    print(tally.report())
    assert tally.changed > 0.3 * tally.equal, tally.report()
    assert tally.need["refused join"] > 0 and tally.need["selector -1"] > 0, tally.report()
    assert tally.selections > 300 and tally.verdicts > 300, tally.report()


def test_refused_join_is_need_python() -> None:
    "A deletion whose tail joins a control character: NEED_PYTHON where the reference raises."
    html = '<html><body><div><p>a</p><div class="share">s</div>&#1;t</div></body></html>'
    tree = build(html, None)
    assert core.nogil_prune_unwanted_nodes(tree, "overall_discard", False) is False
    ref = build(html, None)
    with pytest.raises(ValueError), python_reference():
        htmlprocessing.prune_unwanted_nodes(ref, X.OVERALL_DISCARD_XPATH)


def test_backup_guard_threshold() -> None:
    "old_len - removed > old_len / 7 at the boundary (integers around a multiple of 7)."
    tally = Tally()
    problems = []
    for kept in range(0, 12):
        for removed in range(0, 60, 7):
            html = (f"<html><body><p>{'k' * kept}</p><div class='footer'>{'r' * removed}</div>"
                    f"<div class='nav'>{'n' * (kept % 3)}</div></body></html>")
            problems.append(check_nodes(html, None, _root, "overall_discard", True, tally))
    assert [p for p in problems if p] == []
    assert tally.changed > 10 and tally.equal - tally.changed > 10, tally.report()


def test_names_created_after_resolution() -> None:
    """Selectors resolved on the raw tree, then tree_cleaning + convert_tags in the same document
    (ul -> list, li -> item, a -> ref, b -> hi...): the pruning still sees the new names."""
    html = (f'<html><body><article><ul class="share-buttons"><li>x</li></ul><ol><li class="caption">c</li></ol>'
            f'<ul><li id="teaser">t</li></ul><p>{LONG}</p><p><b class="sidebar">b</b>{LINKS}</p><ul>'
            + "".join(f'<li><a href="/{k}">l{k}</a></li>' for k in range(6)) + '</ul></article></body></html>')
    for focus in FOCUSES:
        def make(resolve: bool) -> Any:
            tree = load_html(html)
            sels = core.NgSelectorSet(tree) if resolve else None
            opts = OPTIONS[focus]
            htmlprocessing.convert_tags(htmlprocessing.tree_cleaning(tree, opts), opts)
            return tree, sels
        a, sels = _backend.run_with(CORE, lambda: make(True))
        b, _ = _backend.run_with(CORE, lambda: make(False))
        assert {"list", "item", "ref"} <= {el.tag for el in desc_list(a)}
        before = dumped(a)
        ca, cb = _first_body(a), _first_body(b)
        assert ca is not None and ca.node_index == cb.node_index
        assert core.nogil_prune_unwanted_sections(ca, POTENTIALS[0], focus, False, sels)
        with python_reference():
            main_extractor.prune_unwanted_sections(cb, set(POTENTIALS[0]), OPTIONS[focus], False)
        assert dumped(a) == dumped(b)
        assert dumped(a) != before


def test_selector_table() -> None:
    "Every entry of NgSelectors has a C selection, each one equal to nogil_select's (the step-2 walk)."
    tree = build(CASES[6], "balanced")
    sels = core.NgSelectorSet(tree)
    assert all(sels.available())
    flat = [*X.RAW_TREE_PRUNE_XPATH, *X.OVERALL_DISCARD_XPATH, *X.DISCARD_IMAGE_ELEMENTS, *X.TEASER_DISCARD_XPATH,
            *X.PRECISION_DISCARD_XPATH, *X.COMMENTS_DISCARD_XPATH, *X.REMOVE_COMMENTS_XPATH,
            *X.REMOVE_COMMENTS_AND_LISTS_XPATH, X.basic_clean_xpath]
    for k, sel in enumerate(flat):
        assert sels.select(tree, k) == core.nogil_select(tree, sel), sel.__name__
    for k, sel in enumerate(X.COMMENTS_XPATH):
        assert sels.select(tree, 20 + k) == core.nogil_select(tree, sel)[:1]
    with pytest.raises(ValueError):
        sels.select(tree, 19)
    other = build(CASES[0], None)
    with pytest.raises(ValueError):
        core.nogil_prune_unwanted_nodes(other, "overall_discard", False, sels)


def test_allocation_failure_is_an_error() -> None:
    html = "<html><body><div>" + "".join(f'<p class="caption">{k}</p>' for k in range(100)) + "</div></body></html>"
    "An allocation failure (the context's table, the match vector's blocks of 16..128) is a MemoryError."
    want = build(html, None)
    with python_reference():
        htmlprocessing.prune_unwanted_nodes(want, X.DISCARD_IMAGE_ELEMENTS)
    for after, fails in ((0, True), (1, True), (2, True), (4, True), (5, False)):
        tree = build(html, None)
        sels = core.NgSelectorSet(tree)
        core._fail_allocations_after(after)
        try:
            if fails:
                with pytest.raises(MemoryError):
                    core.nogil_prune_unwanted_nodes(tree, "discard_image_elements", False, sels)
            else:
                assert core.nogil_prune_unwanted_nodes(tree, "discard_image_elements", False, sels)
        finally:
            core._fail_allocations_after(-1)
        if not fails:
            assert dumped(tree) == dumped(want)


# -- generated documents --------------------------------------------------------------------

_GENERATED = int(os.environ.get("TRAFILA_NOGIL_PRUNE_GENERATED", "24"))
_CLASSES = ["share", "nav", "caption", "teaser", "TeAser", "footer", "sidebar", "hidden", "comment-list", "respond",
            "bottom", "link", "main", "article-body", "story", "x", "fu\u017fltext", "\u00e9t\u00e9", "tags", "widget"]


def link_heavy(rng: random.Random) -> str:
    "Nested blocks with links of varied lengths, classes from the pruning patterns, tables and images."
    def block(depth: int) -> str:
        tag = rng.choice(["div", "p", "ul", "section", "table", "blockquote", "h2", "span", "article"])
        attrs = f' class="{rng.choice(_CLASSES)}"' if rng.random() < 0.4 else ""
        if rng.random() < 0.1:
            attrs += ' style="display:none"' if rng.random() < 0.5 else ' id="teaser-x"'
        parts = []
        for _ in range(rng.randrange(1, 5)):
            r = rng.random()
            if r < 0.35:
                parts.append(f'<a href="/{rng.randrange(99)}">{"w " * rng.randrange(0, 40)}</a>')
            elif r < 0.6:
                parts.append("t " * rng.randrange(0, 120))
            elif r < 0.65:
                parts.append('<img src="i.png"/>')
            elif depth < 4:
                parts.append(block(depth + 1))
            tail = rng.choice(["", "", " tail ", "\u00a0", "&#1;" if rng.random() < 0.05 else "x"])
            parts.append(tail)
        inner = "".join(parts)
        if tag == "ul":
            return f"<ul{attrs}>" + "".join(f"<li>{p}</li>" for p in inner.split("</a>")) + "</ul>"
        if tag == "table":
            return f"<table{attrs}><tr><td>{inner}</td><td>{LINKS if rng.random() < 0.5 else ''}</td></tr></table>"
        return f"<{tag}{attrs}>{inner}</{tag}>"
    return "<html><body>" + "".join(block(0) for _ in range(rng.randrange(2, 6))) + "</body></html>"


def test_generated_documents() -> None:
    rng = random.Random(20261205)
    docs = ([random_html(rng) for _ in range(_GENERATED // 2)] + [random_article(rng) for _ in range(_GENERATED // 2)]
            + [link_heavy(rng) for _ in range(_GENERATED * 2)])
    tally = Tally()
    problems: List[str] = []
    for html in docs:
        problems.extend(check_all(html, tally, rng))
    print(tally.report())
    assert problems == [], problems[:5]
    assert tally.changed > 0.2 * tally.equal, tally.report()
    # the look-alike classes are there to meet unknown verdicts; still they stay rare
    assert sum(tally.need.values()) <= 0.1 * (tally.calls + tally.selections), tally.report()


# -- corpus pages ---------------------------------------------------------------------------

_STEP = int(os.environ.get("TRAFILA_NOGIL_PRUNE_STEP", "20"))


@needs_corpora
def test_corpus_pages() -> None:
    rng = random.Random(7)
    tally = Tally()
    failures: List[str] = []
    for _name, page in sample_pages(_BUNDLES, _STEP):
        if page.html is None:
            continue
        problems = check_all(page.html, tally, rng)
        if problems:
            failures.append(f"{page.id}: {problems[:3]}")
    print(tally.report())
    assert failures == [], failures[:5]
    assert tally.pages > 20, tally.report()
    # on the corpus the step-2 selections met unknown verdicts only in basic_clean (59 of 276,105);
    # the prune lists of the fast path: at most 1% of the stage runs
    assert sum(tally.need.values()) <= 0.01 * (tally.calls + tally.selections), tally.report()


def test_threads() -> None:
    """The stage in several threads at once (each on its own document, the GIL released inside)
    leaves the trees one thread alone leaves."""
    from concurrent.futures import ThreadPoolExecutor

    rng = random.Random(11)
    docs = [link_heavy(rng) for _ in range(12)] + CASES

    def run(html: str) -> Any:
        tree = build(html, "balanced")
        if tree is None:
            return None
        ctx = _first_body(tree) or tree
        sels = core.NgSelectorSet(tree)
        done = [core.nogil_prune_unwanted_sections(ctx, POTENTIALS[0], focus, False, sels) for focus in FOCUSES]
        return done, dumped(tree)

    serial = [run(html) for html in docs]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            assert list(pool.map(run, docs)) == serial
