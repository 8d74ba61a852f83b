"""The per-call element model (trafila._backend): the core's 2.3.1 extraction
runs the stages on its C document, and nothing leaks into other calls,
threads or the reference engine."""

from __future__ import annotations

import threading

import pytest
from tests._helpers import NO_CORE

import trafila
from trafila import _backend, _engine
from trafila.v2_3_1 import _tree

PAGE = ("<html><body><article><p>" + "A sentence long enough to be kept as the main text, with words. " * 8
        + "</p><p>Second paragraph, also long enough to count for the extractor here.</p></article></body></html>")


def test_default_is_the_reference_model():
    assert _backend.current() is _backend.reference()
    el = _tree.Element("div")
    assert isinstance(el, _engine.dom("reference").element_type)


def test_use_sets_and_restores(dom_engine):
    backend = _backend.reference() if dom_engine.engine == "reference" else _backend.core_backend(_engine.core_module())
    with _backend.use(backend):
        el = _tree.Element("div")
        child = _tree.SubElement(el, "p")
        assert isinstance(el, dom_engine.element_type) and isinstance(child, dom_engine.element_type)
        assert child.getparent() is el
    assert _backend.current() is _backend.reference()


def test_use_restores_after_an_error():
    if "core" not in trafila.engines_built():
        pytest.skip(NO_CORE)
    with pytest.raises(RuntimeError):
        with _backend.use(_backend.core_backend(_engine.core_module())):
            raise RuntimeError
    assert _backend.current() is _backend.reference()


def test_the_engine_builds_its_own_trees(engine_231):
    doc = engine_231.bare_extraction(PAGE)
    assert isinstance(doc.native_tree("body"), engine_231.dom.element_type)
    # the call's model is gone once it returns
    assert _backend.current() is _backend.reference()


def test_core_of_tells_core_elements_only():
    ref_el = _engine.dom("reference").Element("div")
    assert _backend.core_of(ref_el) is None
    assert _backend.core_of("div") is None
    if "core" in trafila.engines_built():
        core = _engine.core_module()
        _backend.core_backend(core)
        assert _backend.core_of(core.dom.Element("div")) is core


def test_other_threads_keep_the_reference_model(engine_231):
    """A thread started while a core call runs sees the default model, and both
    engines give the same text side by side."""
    seen = []
    start, done = threading.Event(), threading.Event()
    original = _tree.check_tag_name

    def spy(tag):
        # runs inside the engine's call: start a reference extraction in another thread
        if not start.is_set():
            start.set()
            threading.Thread(target=lambda: (seen.append((_backend.current().name,
                                                            trafila.engine("reference").extract(PAGE))),
                                             done.set())).start()
            assert done.wait(30)
        return original(tag)

    _tree.check_tag_name = spy
    try:
        text = engine_231.extract(PAGE)
    finally:
        _tree.check_tag_name = original
    assert start.is_set() and seen
    name, other = seen[0]
    assert name == "reference"
    assert other == text and "A sentence long enough" in text


def test_readability_fragment_has_a_parent(dom_engine):
    from trafila import readability_2_3_1 as rd

    backend = _backend.reference() if dom_engine.engine == "reference" else _backend.core_backend(_engine.core_module())
    with _backend.use(backend):
        el = rd._fragment("div")
        assert isinstance(el, dom_engine.element_type)
        assert el.getparent() is not None and el.getparent().tag == "body"
        assert el.getparent().getparent().tag == "html"
