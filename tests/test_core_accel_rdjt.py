"""The fallbacks' whole stages in C (cython_core/accel_readability.pxi
``rd_remove_unlikely``, the merged walks of ``rd_clean_conditionally``;
cython_core/accel_justext.pxi ``justext_good_texts``, which try_justext of both
releases calls through trafila.justext.core.good_paragraph_texts) against the
Python code they replace, on the same inputs.

* remove_unlikely_candidates: the core tree through rd_remove_unlikely, through
  the former ``drop_trees(unlikely_candidates(...))``, through the Python loop
  (``core_of`` switched off) and the reference model's tree: equal trees after.
* jusText: the good texts of the one C call against make_paragraphs +
  classify_paragraphs + revise_paragraph_classification on the reference tree
  (every parameter set and stoplist of tests/test_core_accel_justext.py), and
  try_justext of 2.3.1 and 1.11.0 on both element models.
* Inputs: Hypothesis trees (the generators of the existing readability and
  jusText tests) and, with the corpora, sampled pages (raw, and after
  basic_cleaning as try_justext gets them).
"""

from __future__ import annotations

from typing import Any, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trafila
from tests._helpers import NO_CORE, needs_corpora, sample_pages

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from tests.test_core_accel_justext import PARAMS, TREE, WTREE, stoplists  # noqa: E402
from tests.test_core_accel_justext import build as jt_build  # noqa: E402
from tests.test_core_accel_readability_stages import (  # noqa: E402
    _NoCore, build, dump, node_spec, on_core, wrapped,
)
from trafila import _backend, _engine  # noqa: E402
from trafila import readability_1_11_0 as rd111  # noqa: E402
from trafila import readability_2_3_1 as rd  # noqa: E402
from trafila.justext import core as jcore  # noqa: E402
from trafila.justext.core import (  # noqa: E402
    ParagraphMaker, classify_paragraphs, good_paragraph_texts, revise_paragraph_classification,
)
from trafila.treeops import drop_tree  # noqa: E402

CORE = _engine.core_module()
_backend.core_backend(CORE)  # registers the core's element type for core_of()
REF_DOM = _engine.dom("reference")
CORE_DOM = CORE.dom


# -- remove_unlikely_candidates --------------------------------------------------------------------

def _unlikely(module: Any, how: str, every: int = 5) -> Any:
    v1 = module is rd111

    def run(tree: Any) -> list:
        out: List[Any] = []
        tops = [tree] + (list(tree.iter())[1::every] if every else [])
        try:
            for top in tops:
                if how == "new":
                    CORE.rd_remove_unlikely(top, module._unlikely_verdict, drop_tree, v1)
                elif how == "old":
                    CORE.drop_trees(CORE.unlikely_candidates(top, module._unlikely_verdict, v1), drop_tree)
                else:
                    with _NoCore(module):
                        module.Document(top).remove_unlikely_candidates()
                out.append(dump(tree))
        except Exception as err:  # noqa: BLE001 - every way must fail alike
            out.append(("raised", type(err).__name__, str(err)))
        out.append(dump(tree))
        return out
    return run


def compare_unlikely(make_ref: Any, make_core: Any, every: int = 5) -> None:
    for module in (rd, rd111):
        new = on_core(CORE, _unlikely(module, "new", every), make_core())
        assert new == on_core(CORE, _unlikely(module, "old", every), make_core())
        assert new == on_core(CORE, _unlikely(module, "python", every), make_core())
        assert new == _unlikely(module, "python", every)(make_ref())


@given(node_spec(), st.booleans())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_remove_unlikely_generated(spec, wrap):
    if wrap:
        spec = wrapped(spec)
    compare_unlikely(lambda: build(REF_DOM, spec), lambda: build(CORE_DOM, spec))


def test_remove_unlikely_drops_something():
    "The test above is not vacuous: the C call drops what the Python loop drops (a refused tail: both raise)."
    html = ('<html><body><div class="sidebar">a<p id="x">b</p></div>t<div class="comment main">c</div>'
            '<div id="disqus"><div class="menu">d</div></div>{}<p class="pager">e</p>tail</body></html>')
    for module in (rd, rd111):
        for filler, raises in (("", False), ("\x01", True)):
            markup = html.format(filler)
            trees = [CORE_DOM.fromstring(markup) for _ in range(3)]
            new = on_core(CORE, _unlikely(module, "new"), trees[0])
            assert new == on_core(CORE, _unlikely(module, "python"), trees[1])
            assert new[-1] != dump(trees[2])
            assert (new[-2][0] == "raised") is raises


# -- jusText: the good texts in one call ------------------------------------------------------------

def ref_good_texts(root: Any, stoplist: Any, params: tuple, distance: Any) -> list:
    paragraphs = ParagraphMaker.make_paragraphs(root)
    classify_paragraphs(paragraphs, stoplist, *params)
    revise_paragraph_classification(paragraphs, distance)
    return [p.text for p in paragraphs if not p.is_boilerplate]


def compare_good(core_root: Any, ref_root: Any, stoplist: Any, params: tuple, distance: Any) -> list:
    got = good_paragraph_texts(core_root, stoplist, *params, distance)
    assert got is not None
    assert got == ref_good_texts(ref_root, stoplist, params, distance)
    # and the three steps' C loops over the same core tree
    assert got == ref_good_texts(core_root, stoplist, params, distance)
    return got


@settings(max_examples=300, deadline=None)
@given(TREE, st.sampled_from(range(len(PARAMS))), st.sampled_from(range(5)))
def test_good_texts_generated(spec, k, s):
    compare_good(jt_build(CORE_DOM, spec), jt_build(REF_DOM, spec), stoplists()[s], *PARAMS[k])


@settings(max_examples=300, deadline=None)
@given(WTREE, st.sampled_from(range(len(PARAMS))), st.sampled_from(range(5)))
def test_good_texts_worded(spec, k, s):
    compare_good(jt_build(CORE_DOM, spec), jt_build(REF_DOM, spec), stoplists()[s], *PARAMS[k])


def test_good_texts_keeps_and_drops():
    from trafila.justext import get_stoplist

    html = ("<html><body><h2>Title</h2><p>" + "the cat and the dog of a house " * 10 + "</p><p>short <a>link</a></p>"
            "<div>&copy; 2024 " + "the and of " * 20 + "</div><select><option>x</option></select>"
            "<h3>A heading</h3><p>" + "is the of and to in " * 12 + "</p></body></html>")
    for params, distance in PARAMS:
        got = compare_good(CORE_DOM.fromstring(html), REF_DOM.fromstring(html), get_stoplist("English"), params,
                           distance)
        if params[0] == 50:
            assert got and len(got) < 6
    # odd parameters: the three steps in Python (None), as jt_classify refuses them
    assert good_paragraph_texts(CORE_DOM.fromstring(html), get_stoplist("English"), 50, 150, 0.1, 0.2, 0.25,
                                1, 150) is None
    # a namespaced tag: the Python walk
    root = CORE_DOM.fromstring("<html><body><p>x</p></body></html>")
    CORE_DOM.SubElement(root[0], "{urn:x}p").text = "the and of " * 30
    assert good_paragraph_texts(root, get_stoplist("English"), 50, 150, 0.1, 0.2, 0.25, True, 150) is None
    assert good_paragraph_texts(REF_DOM.fromstring(html), get_stoplist("English"), 50, 150, 0.1, 0.2, 0.25, True,
                                150) is None


def test_try_justext_takes_the_c_call(monkeypatch):
    from trafila.v1_11_0 import external as ext111
    from trafila.v2_3_1 import external as ext231

    calls = []
    real = jcore.good_paragraph_texts

    def spy(*args):
        result = real(*args)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(ext231, "good_paragraph_texts", spy)
    monkeypatch.setattr(ext111, "good_paragraph_texts", spy)
    html = "<html><body><p>" + "the cat and the dog of a house " * 10 + "</p><p>x</p></body></html>"
    for ext in (ext231, ext111):
        with _backend.use(_backend.core_backend(CORE)):
            core_body = ext.try_justext(CORE_DOM.fromstring(html), None, None)
            core_texts = [(p.tag, p.text) for p in core_body]
        ref_body = ext.try_justext(REF_DOM.fromstring(html), None, None)
        assert core_texts == [(p.tag, p.text) for p in ref_body] and core_texts
    assert calls == [True, False, True, False]


@settings(max_examples=200, deadline=None)
@given(WTREE, st.sampled_from([None, "en", "de", "ru", "xx"]))
def test_try_justext_both_releases(spec, lang):
    from trafila.v1_11_0 import external as ext111
    from trafila.v2_3_1 import external as ext231

    for ext in (ext231, ext111):
        with _backend.use(_backend.core_backend(CORE)):
            got = _body(ext.try_justext, jt_build(CORE_DOM, spec), lang)
        assert got == _body(ext.try_justext, jt_build(REF_DOM, spec), lang)


def _body(function: Any, tree: Any, lang: Any) -> Any:
    try:
        body = function(tree, None, lang)
    except Exception as err:  # noqa: BLE001 - both sides must fail alike
        return ("raised", type(err).__name__, str(err))
    return None if body is None else (body.tag, [(p.tag, p.text, p.tail) for p in body])


# -- corpus pages ---------------------------------------------------------------------------------------

@needs_corpora
def test_corpus_pages():
    from trafila.v2_3_1._tree import copy_tree
    from trafila.v2_3_1.baseline import basic_cleaning
    from trafila.v2_3_1.utils import load_html

    compared = 0
    lists = stoplists()
    for n, (_bundle, page) in enumerate(sample_pages(("trafilatura", "cleaneval", "goose3", "cleanportaleval"), 4)):
        form = "str" if "str" in page.forms() else "bytes"
        raw, cleaned = [], []
        for backend in (_backend.core_backend(CORE), _backend.reference()):
            with _backend.use(backend):
                tree = load_html(page.input(form))
                raw.append(tree)
                cleaned.append(None if tree is None else basic_cleaning(copy_tree(tree)))
        if raw[0] is None:
            assert raw[1] is None
            continue
        params, distance = PARAMS[n % len(PARAMS)]
        compare_good(cleaned[0], cleaned[1], lists[n % len(lists)], params, distance)
        if n % 2 == 0:
            html = page.input(form)

            def make(backend: Any) -> Any:
                with _backend.use(backend):
                    return load_html(html)
            compare_unlikely(lambda: make(_backend.reference()), lambda: make(_backend.core_backend(CORE)), 0)
        compared += 1
    assert compared >= 100
