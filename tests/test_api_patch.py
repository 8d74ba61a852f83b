"""trafila.patch("trafilatura"): shims in sys.modules with trafilatura's exact signatures."""

from __future__ import annotations

import inspect
import sys
import warnings

import pytest

import trafila
from trafila import _delegation

from .conftest import needs_trafilatura_231

PAGE = "<html><body><article>" + "<p>Words of a paragraph that the extractor keeps, quite a few of them.</p>" * 6 + "</article></body></html>"


@pytest.fixture
def patched():
    trafila.patch("trafilatura")
    try:
        yield
    finally:
        trafila.unpatch()


@needs_trafilatura_231
def test_shims_route_to_trafila_with_exact_signatures(patched):
    import trafilatura.core as real_core

    real_core = _delegation._REAL_MODULES["trafilatura.core"]
    import trafilatura
    from trafilatura import core, deduplication, meta

    assert trafilatura is sys.modules["trafilatura"] and trafilatura is not _delegation._REAL_MODULES["trafilatura"]
    for name in ("extract", "bare_extraction", "extract_with_metadata"):
        assert inspect.signature(getattr(trafilatura, name)) == inspect.signature(getattr(real_core, name))
        assert getattr(core, name) is getattr(trafilatura, name)
    real_top = _delegation._REAL_MODULES["trafilatura"]
    for name in ("baseline", "html2txt"):
        assert inspect.signature(getattr(trafilatura, name)) == inspect.signature(getattr(real_top, name))
        assert getattr(trafilatura, name) is not getattr(real_top, name)
    assert trafilatura.html2txt(PAGE) == real_top.html2txt(PAGE)
    assert deduplication.LRUCache is trafila.LRUCache and deduplication.LRU_TEST is trafila.LRU_TEST
    assert meta.reset_caches is trafila.reset_caches
    assert deduplication.Simhash is trafila.Simhash and deduplication.content_fingerprint is trafila.content_fingerprint
    # attributes trafila does not provide are the real modules'
    assert trafilatura.fetch_url is _delegation._REAL_MODULES["trafilatura"].fetch_url
    assert trafilatura.__version__ == "2.3.1"

    before = trafila.delegated_calls
    doc = trafilatura.bare_extraction(PAGE)
    assert isinstance(doc, trafila.Document)
    assert trafilatura.extract(PAGE) == trafila.extract(PAGE)
    assert trafila.delegated_calls == before
    # the real default config object is accepted as "the defaults"
    from trafilatura.settings import DEFAULT_CONFIG

    assert trafilatura.extract(PAGE, config=DEFAULT_CONFIG) == trafila.extract(PAGE)
    # delegation still reaches the real trafilatura
    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning, match="output format xml"):
        xml = trafilatura.extract(PAGE, output_format="xml")
    assert xml.startswith("<doc")


@needs_trafilatura_231
def test_unpatch_restores_the_real_modules():
    real = sys.modules.get("trafilatura")
    import trafilatura as before_mod

    trafila.patch()
    trafila.patch()  # idempotent
    assert sys.modules["trafilatura"] is not before_mod
    trafila.unpatch()
    for name in ("trafilatura", "trafilatura.core", "trafilatura.deduplication", "trafilatura.meta"):
        assert type(sys.modules[name]).__name__ == "module", name
    assert sys.modules["trafilatura"] is before_mod is (real or before_mod)
    assert not sys.modules["trafila.patch"].is_patched()


@needs_trafilatura_231
def test_patch_warns_for_another_release(monkeypatch):
    import trafilatura

    monkeypatch.setattr(trafilatura, "__version__", "2.0.0")
    with pytest.warns(trafila.PatchWarning, match="2.0.0"):
        trafila.patch()
    trafila.unpatch()


def test_patch_without_trafilatura(monkeypatch):
    for name in ("trafilatura", "trafilatura.core", "trafilatura.deduplication", "trafilatura.meta", "trafilatura.settings"):
        monkeypatch.setitem(sys.modules, name, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.PatchWarning)
        trafila.patch()
    try:
        import trafilatura

        params = list(inspect.signature(trafilatura.extract).parameters)
        assert "compat" not in params and params[0] == "filecontent"
        assert trafilatura.extract(PAGE) == trafila.extract(PAGE)
        with pytest.raises(AttributeError, match="not installed"):
            trafilatura.fetch_url
    finally:
        trafila.unpatch()
    assert sys.modules.get("trafilatura") is None


def test_patch_only_knows_trafilatura():
    with pytest.raises(ValueError):
        trafila.patch("readability")


@needs_trafilatura_231
def test_warnings_through_the_shims_point_at_the_caller(patched):
    import trafilatura

    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning) as record:
        trafilatura.extract(PAGE, output_format="json")
    with pytest.warns(DeprecationWarning) as deprecations:
        trafilatura.extract(PAGE, no_fallback=True)
    assert {w.filename for w in record if w.category is trafila.FallbackWarning} == {__file__}
    assert {w.filename for w in deprecations if w.category is DeprecationWarning} == {__file__}


@needs_trafilatura_231
def test_patch_with_another_mode_warns_and_reproduces_it():
    expected = trafila.extract(PAGE, favor_precision=True, compat="1.11.0")
    with pytest.warns(trafila.PatchWarning, match="reproduce 1.11.0"):
        trafila.patch("trafilatura", compat="1.11.0")
    try:
        import trafilatura

        assert trafilatura.extract(PAGE, favor_precision=True) == expected
        assert isinstance(trafilatura.bare_extraction(PAGE), dict)  # 1.11.0's default
    finally:
        trafila.unpatch()
    with pytest.raises(ValueError, match="compat"):
        trafila.patch("trafilatura", compat="2.0.0")
