"""The engine seam, proven with a stand-in core before the real one runs any mode.

The stand-in is a module installed as ``trafila._core`` that follows the
contract of trafila/_engine.py: it runs mode 2.3.1 by calling the reference
and marking its output, so a test can tell which engine answered.
"""

from __future__ import annotations

import sys
import types

import pytest

import trafila
from trafila import _engine

PAGE = "<html><body><article><p>" + "A sentence long enough to be kept as the main text. " * 8 + "</p></article></body></html>"
MARK = "[stand-in core]"


def _stand_in_core() -> types.ModuleType:
    ref = _engine.implementation("2.3.1", "reference")
    core = types.ModuleType(_engine.CORE_MODULE)
    core.ENGINE_API = _engine.ENGINE_API
    core.MODES = ("2.3.1",)
    calls = []

    def extract(**args):
        calls.append(args["filecontent"])
        text = ref.extract(**args)
        return None if text is None else MARK + text

    def implementation(mode):
        assert mode == "2.3.1"
        fields = {a: getattr(ref, a) for a in _engine.IMPLEMENTATION_ATTRIBUTES}
        fields.update(engine="core", extract=extract)
        return _engine.Implementation(**fields)

    core.implementation = implementation
    core.calls = calls
    html = __import__("trafila.html", fromlist=["x"])
    core.parse_document, core.document_fromstring, core.fromstring = (
        html.parse_document, html.document_fromstring, html.fromstring)
    return core


@pytest.fixture
def stand_in_core(monkeypatch):
    """trafila._core replaced by the stand-in, and the seam's caches emptied around the test."""
    real = sys.modules.get(_engine.CORE_MODULE)
    core = _stand_in_core()
    monkeypatch.setitem(sys.modules, _engine.CORE_MODULE, core)
    monkeypatch.delenv("TRAFILA_ENGINE", raising=False)
    saved_impls, saved_defaults = dict(_engine._implementations), dict(_engine._defaults)
    saved_engines = dict(trafila._ENGINES)
    for cache in (_engine._implementations, _engine._defaults, trafila._ENGINES):
        cache.clear()
    yield core
    for cache, saved in ((_engine._implementations, saved_impls), (_engine._defaults, saved_defaults),
                         (trafila._ENGINES, saved_engines)):
        cache.clear()
        cache.update(saved)
    if real is not None:
        sys.modules[_engine.CORE_MODULE] = real


def test_stand_in_core_is_the_default_for_its_mode_only(stand_in_core):
    assert _engine.engines_built() == ("reference", "core")
    assert _engine.default_engine("2.3.1") == "core"
    assert _engine.default_engine("1.11.0") == "reference"
    assert trafila.extract(PAGE).startswith(MARK)
    assert not (trafila.extract(PAGE, compat="1.11.0") or "").startswith(MARK)


def test_both_engines_side_by_side_in_one_process(stand_in_core):
    core, ref = trafila.engine("core"), trafila.engine("reference")
    from_core, from_ref = core.extract(PAGE), ref.extract(PAGE)
    assert from_core == MARK + from_ref
    assert len(stand_in_core.calls) == 1
    # no state was flipped: the module functions still use the default engine
    assert trafila.extract(PAGE) == from_core


def test_engine_methods_keep_the_public_signatures():
    import inspect

    ref = trafila.engine("reference")
    for name in ("extract", "bare_extraction", "extract_with_metadata", "baseline", "html2txt"):
        assert inspect.signature(getattr(ref, name)) == inspect.signature(getattr(trafila, name)), name


def test_core_without_the_mode_is_refused(stand_in_core):
    with pytest.raises(trafila.EngineUnavailable, match="does not run mode 1.11.0"):
        trafila.engine("core").extract(PAGE, compat="1.11.0")


def test_core_breaking_the_contract_is_refused(stand_in_core):
    stand_in_core.ENGINE_API = 99
    assert _engine.engines_built() == ("reference",)
    with pytest.raises(trafila.EngineUnavailable, match="engine API"):
        _engine.core_module()


def test_incomplete_implementation_is_refused(stand_in_core):
    stand_in_core.implementation = lambda mode: _engine.Implementation(engine="core", mode=mode)
    with pytest.raises(trafila.EngineUnavailable, match="lacks"):
        _engine.implementation("2.3.1", "core")


def test_harness_candidates_for_both_engines_in_one_process(stand_in_core):
    from harness.candidates import make_candidate

    ref, core = make_candidate("reference"), make_candidate("core")
    assert core.call("extract", PAGE, {}, "2.3.1") == MARK + ref.call("extract", PAGE, {}, "2.3.1")


def test_quick_runs_every_engine_that_runs_the_mode(stand_in_core):
    from harness.quick import engine_runs

    gate = {"engines": {"reference": {"2.3.1": ["default"], "1.11.0": ["default"]},
                        "core": {"2.3.1": ["default"], "1.11.0": ["default"]}}}
    assert engine_runs("2.3.1", gate) == [("reference", ["default"]), ("core", ["default"])]
    assert engine_runs("1.11.0", gate) == [("reference", ["default"])]


def test_not_native_goes_to_trafilatura_with_the_engines_reason(stand_in_core, monkeypatch):
    """An engine's NotNative is a delegation with its reason, not an error."""
    def refuse(**args):
        raise trafila.NotNative("stand-in reason")

    impl = _engine.implementation("2.3.1", "core")
    monkeypatch.setattr(impl, "extract", refuse)
    seen = {}

    def fake_delegate(function, reason, mode, args, impl=None):
        seen.update(function=function, reason=reason, mode=mode, engine=impl.engine)
        return "delegated"

    monkeypatch.setattr(trafila, "delegate", fake_delegate)
    assert trafila.engine("core").extract(PAGE) == "delegated"
    assert seen == {"function": "extract", "reason": "stand-in reason", "mode": "2.3.1", "engine": "core"}
