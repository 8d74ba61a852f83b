"""The shared pieces of the GIL-free stages (cython_core/nogil_frame.pxi),
each against the reference operation on the same tree:

* ``ng_copy_subtree`` (a copy inside the same document, reading the source's text bytes) gives
  the dump and tail ``copy_tree`` gives, and the copy is independent of its source (writing one
  leaves the other);
* ``ng_delete`` is ``xml.delete_element`` (both tail modes); its NEED_PYTHON answer is
  ``_drop_tree_c``'s 0 (a joined tail lxml would refuse: the parser never leaves such a
  character in a page, so only a stage's own writes could bring one);
* ``ng_strip_tags`` / ``ng_strip_elements`` are ``strip_tags`` / ``strip_elements``;
* ``ng_itertext_strip_len`` is ``len(" ".join(el.itertext()).strip())``, empty slots included;

on hand-written cases and on corpus pages (raw and after ``tree_cleaning`` + ``convert_tags``:
the converted names the stages use), every element of a sample as the subject.
"""

from __future__ import annotations

import random
from typing import Any, List

import pytest

core = pytest.importorskip("trafila._core")

from trafila import _backend  # noqa: E402
from trafila.v2_3_1 import htmlprocessing  # noqa: E402
from trafila._backend import strip_elements, strip_tags  # noqa: E402
from trafila.v2_3_1._tree import copy_tree, desc_list  # noqa: E402
from trafila.v2_3_1.settings import Extractor  # noqa: E402
from trafila.v2_3_1.utils import load_html  # noqa: E402
from trafila.v2_3_1.xml import delete_element  # noqa: E402

from ._helpers import dumped, needs_corpora, sampled_html_pages  # noqa: E402
from .test_core_nogil_select import _BUNDLES  # noqa: E402

CORE = _backend.core_backend(core)

CASES = [
    "<html><body><div>a<p>b<hi>c</hi>d</p>e<p></p>f<list><item>g</item></list>h</div>i</body></html>",
    "<html><body><p>  x  </p> <p>\u3000y\u2028</p>\n<div><span></span><span>z</span> </div></body></html>",
    "<html><body><div id='a' class='b'><p rend='x'>t<lb/>u</p>v</div>w<table><tr><td>1</td></tr></table></body></html>",
    "<html><body><p>\u00e9t\u00e9 <b>\u65e5\u672c</b>\U0001F600</p>\u00a0<p>\u0085q\u180e</p></body></html>",
]


def _trees(html: str) -> List[Any]:
    "The raw tree and the cleaned, converted one (the names the extraction writes)."
    def build() -> List[Any]:
        raw = load_html(html)
        if raw is None:
            return []
        conv = copy_tree(raw)
        options = Extractor()
        htmlprocessing.tree_cleaning(conv, options)
        htmlprocessing.convert_tags(conv, options)
        return [raw, conv]
    return _backend.run_with(CORE, build)


def _subjects(tree: Any, k: int, rng: random.Random) -> List[int]:
    n = len(desc_list(tree))
    picks = list(range(n)) if n <= k else sorted(rng.sample(range(n), k))
    return picks


def _at(tree: Any, pos: int) -> Any:
    return desc_list(tree)[pos]


def check_copy(tree: Any, pos: int) -> None:
    el = _at(tree, pos)
    mine = core.nogil_copy_subtree(el, True)
    ref = copy_tree(el)
    assert dumped(mine) == dumped(ref)
    assert mine.tail == ref.tail
    assert mine.getparent() is None
    # independent: writing the copy leaves the source as it was
    before = dumped(el)
    mine.text = "changed"
    for sub in desc_list(mine):
        sub.tail = "x"
        sub.set("rend", "y")
    assert dumped(el) == before


def check_delete(html: str, which: int, pos: int, keep_tail: bool) -> str:
    a, b = _trees(html)[which], _trees(html)[which]
    ea, eb = _at(a, pos), _at(b, pos)
    done = core.nogil_delete(ea, keep_tail)
    if not done:
        assert dumped(a) == dumped(b), "NEED_PYTHON changed the tree"
        return "need"
    delete_element(eb, keep_tail=keep_tail)
    assert dumped(a) == dumped(b)
    return "ok"


def check_text_len(tree: Any, pos: int) -> None:
    el = _at(tree, pos)
    assert core.nogil_itertext_strip_len(el) == len(" ".join(el.itertext()).strip())


def check_strip(html: str, which: int, tags: List[str], elements: bool, with_tail: bool) -> None:
    a, b = _trees(html)[which], _trees(html)[which]
    core.nogil_strip(a, tags, elements, with_tail)
    if elements:
        strip_elements(b, *tags, with_tail=with_tail)
    else:
        strip_tags(b, *tags)
    assert dumped(a) == dumped(b)


@pytest.mark.parametrize("html", CASES)
def test_hand_written_cases(html: str) -> None:
    rng = random.Random(1)
    for which, tree in enumerate(_trees(html)):
        for pos in _subjects(tree, 50, rng):
            check_copy(_trees(html)[which], pos)
            check_text_len(tree, pos)
            for keep_tail in (True, False):
                assert check_delete(html, which, pos, keep_tail) == "ok"
        for tags in (["p"], ["span", "hi"], ["div", "p", "lb"], ["done"]):
            for elements, with_tail in ((False, True), (True, True), (True, False)):
                check_strip(html, which, tags, elements, with_tail)


def test_empty_slots_count_as_pieces() -> None:
    tree = _trees(CASES[0])[0]
    body = next(e for e in desc_list(tree) if e.tag == "body")
    for el in desc_list(body):
        el.text = ""
        el.tail = ""
    body.text = "a"
    assert core.nogil_itertext_strip_len(body) == len(" ".join(body.itertext()).strip())
    body.text = None
    assert core.nogil_itertext_strip_len(body) == 0
    desc_list(body)[-1].tail = " z\u3000y "
    assert core.nogil_itertext_strip_len(body) == len(" ".join(body.itertext()).strip()) == 3
    # an empty piece between two words still gets its separator: "a" + " " + "" + " " + "b"
    kids = desc_list(body)
    assert len(kids) >= 2
    for el in kids:
        el.text = None
        el.tail = None
    body.text = "a"
    kids[0].text = ""
    kids[-1].tail = "b"
    assert " ".join(body.itertext()).strip() == "a  b"
    assert core.nogil_itertext_strip_len(body) == 4


@needs_corpora
def test_corpus_pages() -> None:
    rng = random.Random(7)
    pages = 0
    for _k, page in sampled_html_pages(_BUNDLES, 25):
        trees = _trees(page.html)
        if not trees:
            continue
        pages += 1
        for which, tree in enumerate(trees):
            for pos in _subjects(tree, 6, rng):
                check_copy(_trees(page.html)[which], pos)
                check_text_len(tree, pos)
                check_delete(page.html, which, pos, rng.random() < 0.5)
            check_strip(page.html, which, ["span", "hi", "ref"], False, True)
            check_strip(page.html, which, ["done", "lb"], True, rng.random() < 0.5)
    assert pages > 20
