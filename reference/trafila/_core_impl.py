"""The compiled core's Implementation of a release mode.

The core runs a mode's stages over its own C document: the parse is the
core's (libxml2's HTML parser in C), and every tree the stages touch or make
is a C document seen through :class:`trafila._core.CElement` proxies
(:mod:`trafila._backend` makes the stages build their trees there). The
stages themselves are, for now, the reference's; where the core has a C
version of a stage or of a hot helper, :data:`trafila._core.ACCELERATED`
names it and the stage calls it on the core's trees. Each replacement keeps
the reference's result exactly (``tox -e parity -- --candidate core``).

Deduplication state is the reference's: one module cache (``LRU_TEST``) and
one ``LRUCache`` class per mode, whichever engine runs a call, as one
trafilatura installation has one.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from . import _backend
from ._engine import Implementation, _reference_implementation


def _on(backend: _backend.Backend, function: Callable[..., Any], core: Any) -> Callable[..., Any]:
    """``function`` run on ``backend``'s element model (same signature and docstring), the
    core keeping the big blocks it frees for the call's next big allocations."""
    enter, leave = core._big_blocks_enter, core._big_blocks_exit

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        enter()
        try:
            return _backend.run_with(backend, function, *args, **kwargs)
        finally:
            leave()

    return call


def implementation(mode: str, core: Any) -> Implementation:
    """The Implementation of ``mode`` on ``core`` (the ``trafila._core`` module)."""
    ref = _reference_implementation(mode)
    backend = _backend.core_backend(core)
    return Implementation(
        engine="core", mode=mode,
        extract=_on(backend, ref.extract, core), bare_extraction=_on(backend, ref.bare_extraction, core),
        baseline=_on(backend, ref.baseline, core),
        html2txt=None if ref.html2txt is None else _on(backend, ref.html2txt, core),
        DEFAULT_CONFIG=ref.DEFAULT_CONFIG, LRUCache=ref.LRUCache, LRU_TEST=ref.LRU_TEST,
        duplicate_test=ref.duplicate_test, trim=ref.trim, sanitize=ref.sanitize, reset_caches=ref.reset_caches,
        backend=backend,
        # the stages are still Python (holding the GIL): extract_batch runs the loop
        releases_gil=False,
    )
