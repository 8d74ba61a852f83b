"""Shared fixtures: every engine-facing test runs over each engine that exists."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the harness package lives at the repository root
    sys.path.insert(0, str(ROOT))


def available_engines():
    from harness.quick import engines_available

    return engines_available()


@pytest.fixture(params=["reference", "core"])
def engine(request):
    """The engine under test; a test over an engine that is not built is skipped."""
    if request.param not in available_engines():
        pytest.skip(f"engine {request.param!r} not available in this build")
    os.environ["TRAFILA_ENGINE"] = request.param
    return request.param


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
