"""The core's deletions in C (accel.pxi: delete_elements, delete_by_tags) inside
2.3.1's tree_cleaning, prune_html and prune_unwanted_nodes, against the same
stages run on the reference's trees: corpus pages under several option sets,
generated trees with nested matches (the live-walk replay) and characters
lxml's setters refuse (the Python fallback raises as the reference does)."""

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
from trafila.v2_3_1 import htmlprocessing as hp  # noqa: E402
from trafila.v2_3_1 import xpaths  # noqa: E402
from trafila.v2_3_1._tree import copy_tree  # noqa: E402
from trafila.v2_3_1.settings import Extractor  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

CORE = _engine.core_module()
BACKEND = _backend.core_backend(CORE)
OPTIONS = {
    "default": Extractor(),
    "precision": Extractor(precision=True),
    "recall": Extractor(recall=True),
    "no-tables": Extractor(tables=False, comments=False),
}


def both(stage, html, *args):
    "``stage(tree, *args)`` on each model's parse of ``html``: (reference result, core result) dumps or errors."
    out = []
    for parse, backend in ((trafila.html.fromstring, _backend.reference()), (CORE.dom.fromstring, BACKEND)):
        with _backend.use(backend):
            tree = parse(html)
            try:
                result = stage(copy_tree(tree), *args)
                out.append(dump_element(result))
            except ValueError as err:
                out.append(("ValueError", str(err)))
    return out


def test_the_core_path_is_taken(monkeypatch):
    calls = []
    real = CORE.delete_by_tags_once  # tree_cleaning's one-walk version (accel_convert.pxi)

    class Spy:
        def __getattr__(self, name):
            return getattr(CORE, name)

        def delete_by_tags_once(self, *args):
            calls.append(args[1])
            return real(*args)

    monkeypatch.setattr(hp, "core_of", lambda el: Spy() if _backend.core_of(el) is not None else None)
    ref, core = both(hp.tree_cleaning, "<html><body><nav>x</nav><p>kept</p><aside>y</aside>t</body></html>",
                     OPTIONS["default"])
    assert ref == core and calls


NESTED = [
    "<html><body><div><nav>a<nav>b</nav>c</nav>tail<p>text</p></div></body></html>",
    "<html><body><aside><aside><aside>x</aside></aside>y</aside>z<p>p</p></body></html>",
    "<html><body><footer>f</footer>ft<p>one</p><footer>g<footer>h</footer></footer>gt</body></html>",
    "<html><body><nav>n</nav></body></html>",
]


@pytest.mark.parametrize("html", NESTED)
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_nested_matches_replay_the_live_walk(html, name):
    ref, core = both(hp.tree_cleaning, html, OPTIONS[name])
    assert ref == core


TAILS = st.text(alphabet=st.sampled_from(["a", " ", "\n", "\x01", "\x0b", "\ufffe", "\uffff", "é", "\t"]), max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["nav", "p", "aside", "footer", "span", "div"]), TAILS, TAILS),
                min_size=1, max_size=8))
def test_refused_characters_fall_back_to_the_setters(items):
    # character references give the parser control characters the setters refuse
    def esc(s):
        return "".join(f"&#{ord(c)};" if ord(c) < 32 or c in "\ufffe\uffff" else c for c in s)

    html = "<html><body>" + "".join(f"<{t}>{esc(a)}</{t}>{esc(b)}" for t, a, b in items) + "<p>end</p></body></html>"
    for name in ("default", "precision"):
        ref, core = both(hp.tree_cleaning, html, OPTIONS[name])
        assert ref == core
        ref, core = both(hp.prune_unwanted_nodes, html, xpaths.OVERALL_DISCARD_XPATH)
        assert ref == core


@needs_corpora
def test_corpus_pages():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl"), 2):
        if "str" not in page.forms():
            continue
        html = page.input("str")
        for name, options in OPTIONS.items():
            ref, core = both(hp.tree_cleaning, html, options)
            assert ref == core, (page.id, name)
            compared += 1
        for nodelist in (xpaths.OVERALL_DISCARD_XPATH, xpaths.RAW_TREE_PRUNE_XPATH, xpaths.REMOVE_COMMENTS_XPATH):
            ref, core = both(hp.prune_unwanted_nodes, html, nodelist)
            assert ref == core, page.id
            compared += 1
    assert compared >= 200


def _backup_prune(tree, nodelist):
    return hp.prune_unwanted_nodes(tree, nodelist, with_backup=True)


BACKUP = [
    # all or nothing: most of the text in matches (nothing deleted), or little (all outer ones go)
    "<html><body><div class='footer'>" + "long footer text " * 40 + "</div>tail<p>short</p></body></html>",
    "<html><body><p>" + "kept text " * 40 + "</p><div class='footer'>f<div class='nav'>n</div>x</div>t</body></html>",
    # a match inside another, and one element matched by several selectors: one deletion each
    "<html><body><p>" + "kept " * 40 + "</p><nav class='footer'>a<div id='sidebar'>b</div>c</nav>d"
    "<div class='comments footer'>e</div>f</body></html>",
    "<html><body><p>\u00e9\U0001f600" + "k " * 30 + "</p><div class='footer'>\u4e2d</div>&#1;</body></html>",
]
BACKUP_LISTS = [xpaths.OVERALL_DISCARD_XPATH, xpaths.TEASER_DISCARD_XPATH,
                xpaths.OVERALL_DISCARD_XPATH + xpaths.TEASER_DISCARD_XPATH + xpaths.PRECISION_DISCARD_XPATH]


@pytest.mark.parametrize("html", BACKUP)
@pytest.mark.parametrize("lists", range(len(BACKUP_LISTS)))
def test_with_backup_fixed(html, lists):
    ref, core = both(_backup_prune, html, BACKUP_LISTS[lists])
    assert ref == core


def test_with_backup_takes_the_core_path(monkeypatch):
    seen = []
    real = CORE.outermost
    monkeypatch.setattr(CORE, "outermost", lambda els: seen.append(len(els)) or real(els))
    untouched = both(lambda tree, _: tree, BACKUP[0], None)
    # most of the text matched: nothing is deleted; little: the matches go
    assert both(_backup_prune, BACKUP[0], BACKUP_LISTS[0]) == untouched
    ref, core = both(_backup_prune, BACKUP[1], BACKUP_LISTS[0])
    assert ref == core != both(lambda tree, _: tree, BACKUP[1], None)[1]
    assert seen


_CLASSES = st.sampled_from(["", " class='footer'", " id='sidebar'", " class='nav'", " class='share'",
                            " class='teaser'", " class='comments'", " class='author'", " class='related'"])


def _bnode():
    return st.recursive(
        st.tuples(st.sampled_from(["div", "p", "span", "section", "aside", "ul", "li"]), TAILS, TAILS, _CLASSES,
                  st.just(())),
        lambda kids: st.tuples(st.sampled_from(["div", "p", "section", "ul"]), TAILS, TAILS, _CLASSES,
                               st.lists(kids, max_size=3).map(tuple)),
        max_leaves=10,
    )


def _bhtml(node):
    def esc(s):
        return "".join(f"&#{ord(c)};" if ord(c) < 32 or c in "\ufffe\uffff" else c for c in s)

    tag, text, tail, attrs, kids = node
    return f"<{tag}{attrs}>{esc(text)}{''.join(_bhtml(k) for k in kids)}</{tag}>{esc(tail)}"


@settings(max_examples=200, deadline=None)
@given(st.lists(_bnode(), min_size=1, max_size=4), st.integers(0, 3))
def test_with_backup_generated(nodes, words):
    html = "<html><body>" + "<p>word</p>" * words + "".join(_bhtml(n) for n in nodes) + "</body></html>"
    for nodelist in BACKUP_LISTS:
        ref, core = both(_backup_prune, html, nodelist)
        assert ref == core


@needs_corpora
def test_with_backup_corpus_pages():
    compared = 0
    for _bundle, page in sample_pages(("cleaneval", "fundus", "trafilatura"), 19):
        if "str" not in page.forms():
            continue
        for nodelist in BACKUP_LISTS:
            ref, core = both(_backup_prune, page.input("str"), nodelist)
            assert ref == core, page.id
            compared += 1
    assert compared >= 60
