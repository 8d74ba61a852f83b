"""The drop-in surface: trafilatura's signatures, the compat switch, the engine switch."""

from __future__ import annotations

import inspect

import pytest

import trafila
from trafila import _engine

from .conftest import needs_trafilatura_231


@needs_trafilatura_231
@pytest.mark.parametrize("name", ["extract", "bare_extraction", "extract_with_metadata"])
def test_signature_matches_trafilatura_2_3_1(name):
    import trafilatura

    ours = inspect.signature(getattr(trafila, name))
    theirs = inspect.signature(getattr(trafilatura, name))
    ours_params = [p for p in ours.parameters.values() if p.name != "compat"]
    assert [p.name for p in ours_params] == list(theirs.parameters)
    for p in ours_params:
        q = theirs.parameters[p.name]
        assert p.kind == q.kind, p.name
        if p.name == "config":
            assert p.default is trafila.DEFAULT_CONFIG
        else:
            assert p.default == q.default, p.name
    compat = ours.parameters["compat"]
    assert compat.kind is inspect.Parameter.KEYWORD_ONLY and compat.default == "2.3.1"


def test_unknown_compat_names_the_supported_modes():
    with pytest.raises(ValueError, match="2.3.1"):
        trafila.extract("<html><body><p>x</p></body></html>", compat="0.9")


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="reference"):
        _engine.set_engine("turbo")


def test_core_engine_only_when_built():
    if _engine.core_available():
        _engine.set_engine("core")
        _engine.set_engine("reference")
    else:
        with pytest.raises(ImportError, match="not built"):
            _engine.set_engine("core")


def test_versions_tables():
    assert trafila.TRAFILATURA_VERSIONS[0] == "2.3.1"
    for mode, pins in trafila.REPRODUCED_VERSIONS.items():
        assert pins["trafilatura"] == mode
        assert pins["libxml2"] == "2.14.6" and pins["lxml"] == "6.1.3" and pins["justext"] == "3.0.2"
