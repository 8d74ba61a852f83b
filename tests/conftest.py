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
