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
        trafila.engine("turbo")
    with pytest.raises(ValueError, match="reference"):
        _engine.implementation("2.3.1", "turbo")


def test_core_engine_is_built_when_the_build_was_asked_for_it():
    """TRAFILA_REQUIRE_EXTENSIONS=1 (CI) means the core must import; without it,
    the engines built must say so consistently."""
    import os

    built = trafila.engines_built()
    assert built[0] == "reference"
    if os.environ.get("TRAFILA_REQUIRE_EXTENSIONS") == "1":
        assert "core" in built, "the build was asked for the compiled core and trafila._core does not import"
    if "core" in built:
        assert trafila.engine("core").name == "core"
        assert set(trafila.engine("core").modes) <= set(trafila.TRAFILATURA_VERSIONS)
    else:
        with pytest.raises(trafila.EngineUnavailable, match="not built"):
            trafila.engine("core")


def test_versions_tables():
    assert trafila.TRAFILATURA_VERSIONS[0] == "2.3.1"
    for mode, pins in trafila.REPRODUCED_VERSIONS.items():
        assert pins["trafilatura"] == mode
        assert pins["libxml2"] == "2.14.6" and pins["lxml"] == "6.1.3" and pins["justext"] == "3.0.2"


@needs_trafilatura_231
def test_default_configs_are_each_releases_settings():
    """2.3.1's here; 1.11.0's is checked against trafilatura 1.11.0 itself in
    test_api_1_11_0_live.py."""
    from configparser import ConfigParser

    from trafilatura.settings import DEFAULT_CONFIG

    configs = trafila.DEFAULT_CONFIGS
    assert list(configs) == list(trafila.TRAFILATURA_VERSIONS)
    assert all(isinstance(c, ConfigParser) for c in configs.values())
    assert dict(configs["2.3.1"]["DEFAULT"]) == dict(DEFAULT_CONFIG["DEFAULT"])


def test_document_class_pickles_by_reference():
    import pickle

    assert pickle.loads(pickle.dumps(trafila.Document)) is trafila.Document
    from trafila import _document

    assert _document.Document is trafila.Document


def test_engine_switch_from_the_environment():
    import os
    import subprocess
    import sys

    code = "import trafila._engine as e; print(e.default_engine('2.3.1'))"
    env = dict(os.environ, TRAFILA_ENGINE="reference", PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "reference"
    env["TRAFILA_ENGINE"] = "turbo"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert bad.returncode != 0 and "turbo" in bad.stderr


def test_public_names_exist_and_are_documented():
    import inspect as _inspect

    for name in trafila.__all__:
        obj = getattr(trafila, name)
        if _inspect.isfunction(obj) or _inspect.isclass(obj):
            assert obj.__doc__ and obj.__doc__.strip(), name
        if _inspect.isfunction(obj):
            hints = obj.__annotations__
            assert "return" in hints, name
