"""Shared fixtures: every engine-facing test runs over each engine that exists."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the harness package lives at the repository root
    sys.path.insert(0, str(ROOT))


ENGINES = ("reference", "core")


def _require_extensions() -> bool:
    return os.environ.get("TRAFILA_REQUIRE_EXTENSIONS") == "1"


def _built_engine(name: str):
    """trafila.engine(name), or skip (fail when the build was asked for the core)."""
    import trafila

    if name not in trafila.engines_built():
        if name == "core" and _require_extensions():
            pytest.fail("TRAFILA_REQUIRE_EXTENSIONS=1 but the compiled core (trafila._core) is not importable")
        pytest.skip(f"engine {name!r} is not built here")
    return trafila.engine(name)


@pytest.fixture(params=ENGINES, scope="session")
def engine(request):
    """Each built engine in turn (multidict's pattern): a ``trafila.Engine``
    whose extract/bare_extraction/... and ``parser`` are that engine's."""
    return _built_engine(request.param)


@pytest.fixture(params=ENGINES, scope="session")
def html_parser(request):
    """Each built engine's HTML parser (parse_document, document_fromstring,
    fromstring, giving the reference element model, and ParserError)."""
    return _built_engine(request.param).parser


def _engine_running(request, mode: str):
    eng = _built_engine(request.param)
    if mode not in eng.modes:
        # the core gains modes one by one (issues 13, 14); its contract test checks MODES itself
        pytest.skip(f"engine {eng.name!r} does not run mode {mode} yet")
    return eng


@pytest.fixture(params=ENGINES, scope="session")
def engine_231(request):
    """Each built engine that runs the 2.3.1 mode."""
    return _engine_running(request, "2.3.1")


@pytest.fixture(params=ENGINES, scope="session")
def engine_111(request):
    """Each built engine that runs the 1.11.0 mode."""
    return _engine_running(request, "1.11.0")


def trafilatura_version():
    try:
        import trafilatura
    except ImportError:
        return None
    return trafilatura.__version__


needs_trafilatura_231 = pytest.mark.skipif(trafilatura_version() != "2.3.1", reason="needs trafilatura 2.3.1 (tox -e tests)")


def shared_available() -> bool:
    from harness.corpora import corpora_path

    return corpora_path().is_dir()


#: tests that read the shared corpora or vectors (../shared): skipped, with the reason, where it is absent
_NEEDS_SHARED = (
    "tests/test_v1_11_0_oracle.py",
    "tests/test_parser_vectors.py",
    "tests/test_harness_generators.py::test_text_fuzz_trafilatura_against_itself_is_all_equal",
)


def pytest_collection_modifyitems(config, items):
    if shared_available():
        return
    skip = pytest.mark.skip(reason="../shared (corpora and vectors) is not on this machine; set TRAFILA_CORPORA")
    for item in items:
        if any(item.nodeid == p or item.nodeid.startswith(p + "::") for p in _NEEDS_SHARED):
            item.add_marker(skip)


@pytest.fixture(params=ENGINES, scope="session")
def dom_engine(request):
    """Each built engine's element model (``trafila.engine(name).dom``): the
    reference's trafila.dom, the core's CElement proxies over its C document."""
    return _built_engine(request.param).dom
