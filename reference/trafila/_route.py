"""Which path runs a call: the one place that decides, for a mode, an engine and the call's
arguments, what serves it and why. ``extract()`` and its siblings ask it whether the call is
handed to trafilatura (``handover_reason``), ``extract_batch`` asks it whether the pages may run
on threads (``route``), and the harness reads the same answer through ``_batch.plan``.

The paths:

``"trafilatura"``
    the whole call goes to the installed trafilatura before any engine runs (an argument no
    engine can take: trafilatura's own objects, an lxml tree, changed settings; ``_gate``
    lists them). Only 2.3.1's front end has such a boundary; 1.11.0's engine raises
    ``NotNative`` for what it does not serve.
``"c-sequence"``
    the core runs the release's whole sequence and the output in C without the GIL (the option
    sets the core declares with ``releases_gil_for``: ``_core_impl._NATIVE`` / ``_NATIVE_111``).
    A page the C cannot be exact on is handed to the release's Python stages, before the C has
    changed anything; both are counted (``_core.sequence_stats``).
``"core-with-gil"``
    the core holds the GIL for part of each page: the output is Python's (xml, json, metadata)
    after the C sequence, or the C sequence does not take these options and the release's
    Python stages run over the C document, with C for their hot parts (``cython_core/accel*.pxi``).
``"reference"``
    the pure-Python engine, the spec (holds the GIL).
``"engine"``
    another engine (the tests' stand-ins); ``releases_gil`` says what it promises.

A call an engine does not serve after all raises ``NotNative`` there and goes to trafilatura
(counted, ``trafila.delegated_calls``): the route is what the arguments allow, not a promise for
every page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional

from . import _engine, _gate

__all__ = ["Route", "route", "handover_reason"]


@dataclass(frozen=True)
class Route:
    """The path a call takes: ``path`` (see the module's list), the ``engine`` that would serve
    it, whether that engine runs these arguments without the GIL (``releases_gil``) or every call
    (``engine_releases_gil``, an engine that declares it whole), and ``reason`` (why this path,
    in words a log line can carry)."""

    path: str
    engine: str
    releases_gil: bool
    reason: str
    engine_releases_gil: bool = False


def handover_reason(function: str, compat: str, args: Dict[str, Any]) -> Optional[str]:
    """Why this call goes to the installed trafilatura before any engine runs, or None
    (``args``: the call's arguments by name, its page under ``filecontent``)."""
    if compat != "2.3.1":
        return None
    from . import DEFAULT_CONFIG  # noqa: PLC0415 - the package is loaded by the time a call is routed

    return _gate.boundary_reason(function, args, DEFAULT_CONFIG)


def route(function: str, compat: str, args: Dict[str, Any], engine: Optional[str] = None) -> Route:
    """The :class:`Route` of ``function(**args)`` in mode ``compat`` on ``engine`` (default: the
    mode's default engine). Raises what ``extract`` raises for an unknown mode or engine."""
    impl = _engine.implementation(compat, engine)
    name = getattr(impl, "engine", engine or "?")
    whole = releases = getattr(impl, "releases_gil", False) is True
    if not releases and function == "extract":
        releases_for = getattr(impl, "releases_gil_for", None)
        releases = releases_for is not None and releases_for(
            {k: v for k, v in args.items() if k != "filecontent"}) is True
    reason = handover_reason(function, compat, args)
    if reason is not None:
        return Route("trafilatura", name, releases, reason, whole)
    if whole:
        return Route("engine", name, True, f"engine {name!r} runs every call without the GIL", True)
    if name == "core":
        if releases:
            return Route("c-sequence", name, True, f"{compat}'s sequence in C without the GIL for these options")
        return Route("core-with-gil", name, False,
                     f"{compat}'s Python output or stages over the C document for these options")
    if name == "reference":
        return Route("reference", name, releases, "the pure-Python engine")
    return Route("engine", name, releases, f"engine {name!r}")
