"""1.11.0's prune_unwanted_nodes on the core (ex111_prune_nodes, the undo record of the backup,
text_content_length) against the reference Python of 1.11.0 on copies of the same core tree:
the returned tree, whether it is the input, the input afterwards (upstream leaves it pruned
when it returns the backup), or the exception; tails handed to the previous sibling or to the
parent's tail, '' against None, nested matches, characters lxml's setters refuse, pages where
more than 6/7 of the text goes (the backup comes back)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from tests._helpers import NO_CORE

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend  # noqa: E402
from trafila.treedump import dump_element  # noqa: E402
from trafila.v1_11_0 import htmlprocessing as hp  # noqa: E402
from trafila.v1_11_0 import xpaths  # noqa: E402
from trafila.v2_3_1._tree import copy_tree  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402
from .test_core_accel_extract_1_11_0 import BACKEND, CORE, TEXT, cleaned, python_path  # noqa: E402
from trafila.v1_11_0.settings import Extractor  # noqa: E402

LISTS = {
    "overall": xpaths.OVERALL_DISCARD_XPATH,
    "paywall": xpaths.PAYWALL_DISCARD_XPATH,
    "teaser": xpaths.TEASER_DISCARD_XPATH,
    "precision": xpaths.PRECISION_DISCARD_XPATH,
    "images": xpaths.DISCARD_IMAGE_ELEMENTS,
    "comments": xpaths.REMOVE_COMMENTS_XPATH,
}


def _run(tree, nodelist, with_backup, reference):
    t = copy_tree(tree)
    body = t.find(".//body")
    target = body if body is not None else t
    with _backend.use(BACKEND), (python_path() if reference else _nothing()):
        try:
            res = hp.prune_unwanted_nodes(target, nodelist, with_backup=with_backup)
        except (ValueError, TypeError, AttributeError) as err:
            return (type(err).__name__, str(err), dump_element(t))
    return (res is target, dump_element(res), dump_element(t))


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def check(tree):
    for name, nodelist in LISTS.items():
        for with_backup in (True, False):
            ref = _run(tree, nodelist, with_backup, True)
            core = _run(tree, nodelist, with_backup, False)
            assert ref == core, (name, with_backup)


def core_tree(html):
    with _backend.use(BACKEND):
        return CORE.dom.fromstring(html)


FIXED = [
    # most of the text in boilerplate: the backup comes back, the input stays pruned
    "<html><body><div class='footer'>" + "long footer text " * 40 + "</div>tail<p>short</p></body></html>",
    "<html><body><p>a</p><div id='sidebar'>x" * 3 + "</div>" * 3 + "<div class='nav'>" + "menu " * 50
    + "</div>end</body></html>",
    # the tail goes to the previous sibling's tail, or the parent's tail (not its text)
    "<html><body><div><b>x</b>bt<div class='share'>s</div>st</div>dt</body></html>",
    "<html><body><div><div class='share'>s</div>st</div>dt</body></html>",
    "<html><body><div><div class='share'>s</div></div><div class='share'>q</div>''</body></html>",
    # nested matches: the inner one is removed inside the detached outer one
    "<html><body><div class='footer'>a<div class='nav'>b</div>c<div class='footer'>d</div>e</div>f"
    "<p>" + "kept text " * 30 + "</p></body></html>",
    # a tail lxml's setters refuse to take over: both raise ValueError, under a backup too
    "<html><body><p>x</p><div class='footer'>f</div>a&#1;b<p>y</p></body></html>",
    "<html><body><p>x&#11;</p><div class='footer'>f</div>ab<p>y</p></body></html>",
    "<html><body><p>" + "text " * 5 + "</p><div class='footer'>" + "f " * 80 + "</div>t&#1;<p>y</p></body></html>",
    # empty tails ('' and none)
    "<html><body><p>x</p><div class='footer'>f</div><p>y</p><figure><img src=a></figure></body></html>",
]


@pytest.mark.parametrize("html", FIXED)
def test_fixed_trees(html):
    check(core_tree(html))


def test_the_backup_case_is_met():
    # the fixed pages do reach the backup: more than 6/7 of the text is selected away
    html = FIXED[0]
    ref = _run(core_tree(html), xpaths.OVERALL_DISCARD_XPATH, True, True)
    assert ref[0] is False and "long footer text" in repr(ref[1]) and "long footer text" not in repr(ref[2])
    assert _run(core_tree(html), xpaths.OVERALL_DISCARD_XPATH, True, False) == ref


def test_text_content_length():
    for html in FIXED + ["<html><body>\u00e9<p>\U0001f600x<b>\u4e2d</b>y</p>z</body></html>", "<p/>"]:
        t = core_tree(html)
        for el in t.iter():
            assert CORE.text_content_length(el) == len(el.text_content())


CLASSES = st.sampled_from(["", " class='footer'", " id='sidebar'", " class='nav'", " class='share'",
                           " class='teaser'", " class='comments'", " id='paywall'", " class='author'",
                           " class='related'"])
TAGS = st.sampled_from(["div", "p", "span", "section", "figure", "aside", "ul", "li"])


def _node():
    return st.recursive(
        st.tuples(TAGS, TEXT, TEXT, CLASSES, st.just(())),
        lambda kids: st.tuples(TAGS, TEXT, TEXT, CLASSES, st.lists(kids, max_size=3).map(tuple)),
        max_leaves=10,
    )


def _html(node):
    tag, text, tail, attrs, kids = node
    return f"<{tag}{attrs}>{text}{''.join(_html(k) for k in kids)}</{tag}>{tail}"


@settings(max_examples=300, deadline=None)
@given(st.lists(_node(), min_size=1, max_size=4), TEXT)
def test_generated_trees(nodes, lead):
    check(core_tree(f"<html><body>{lead}{''.join(_html(n) for n in nodes)}</body></html>"))


@needs_corpora
def test_corpus_pages():
    n = 0
    for _, page in sample_pages(["cleaneval", "dragnet", "fundus", "trafilatura"], 23):
        if "str" not in page.forms():
            continue
        tree = cleaned(page.input("str"), Extractor())
        if tree is not None:
            check(tree)
            n += 1
    assert n > 20
