"""Handing a call to the installed trafilatura of the same release.

The installed package (not trafila's shims while ``trafila.patch()`` is on),
the one warning per function and reason, and the deduplication state lent
to it for the call, so that native and delegated calls count in one cache.
Nothing here imports trafilatura before a call needs it.
"""

from __future__ import annotations

import importlib
from collections import OrderedDict
from contextlib import contextmanager
import sys
import warnings
import weakref
from typing import Any, Dict, Iterator, Optional, Set

__all__ = ["TrafilaError", "FallbackWarning", "delegate", "real_trafilatura"]


class TrafilaError(RuntimeError):
    """A call trafila cannot serve natively and cannot delegate (trafilatura missing or another release)."""

    __module__ = "trafila"


class FallbackWarning(UserWarning):
    """A call was handed to the installed trafilatura (the message says why)."""

    __module__ = "trafila"


_warned: Set[tuple] = set()

#: how many calls were handed to trafilatura in this process (the harness reports it)
delegated_calls = 0


def user_stacklevel() -> int:
    """The warnings stacklevel of the first frame outside trafila, seen from the
    function calling this one (so warnings point at the user's line, also
    through patch()'s shims)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "trafila":
        frame = frame.f_back
        level += 1
    return level


def delegate(function: str, reason: str, mode: str, args: Dict[str, Any], impl: Any) -> Any:
    """Hand one call to the installed trafilatura of release ``mode`` (one
    FallbackWarning per function and reason), or raise TrafilaError. ``impl``
    is the engine's Implementation whose deduplication state is lent to the
    call (and whose DEFAULT_CONFIG stands for trafilatura's own)."""
    try:
        trafilatura = real_trafilatura()
    except ModuleNotFoundError as err:
        if err.name != "trafilatura":
            raise  # trafilatura is there but one of its imports is not: that failure, as it is
        raise TrafilaError(f"{function}: {reason} needs {_what_to_install(reason, mode)}") from None
    if trafilatura.__version__ != mode:
        raise TrafilaError(
            f"{function}: {reason} needs {_what_to_install(reason, mode)}, found {trafilatura.__version__}"
        )
    global delegated_calls
    delegated_calls += 1
    key = (function, reason, mode)
    if key not in _warned:
        _warned.add(key)
        warnings.warn(f"trafila: {function} handed to trafilatura {mode}: {reason}", FallbackWarning, stacklevel=user_stacklevel())
    if args.get("config") is impl.DEFAULT_CONFIG:
        del args["config"]  # trafilatura's own default then
    if mode == "2.3.1":
        with lend_cache(args, impl):
            result = getattr(trafilatura, function)(**args)
        from ._document import adopt_document  # noqa: PLC0415

        return result if function == "extract" else adopt_document(result)
    with lend_module_cache_1_11_0(args, impl):
        return getattr(trafilatura, function)(**args)

def _what_to_install(reason: str, mode: str) -> str:
    """The one line saying what to install for a call trafila cannot serve natively."""
    from ._decoding import CHARSET_REASON  # noqa: PLC0415

    if mode == "2.3.1":
        release = "trafilatura==2.3.1 installed (pip install 'trafila[trafilatura]')"
    else:
        release = f"trafilatura=={mode} installed (pip install trafilatura=={mode} lxml_html_clean)"
    if reason == CHARSET_REASON:
        # the extra decodes them natively; handing the page over is the other way
        return f"the [charset] extra (pip install 'trafila[charset]') to be decoded natively, or {release}"
    return release


def _report_import_failure(err: ImportError) -> None:
    """Say, beside an ImportError raised while importing the installed trafilatura,
    where it came from and what installs a trafilatura that imports."""
    note = ("trafila: importing the installed trafilatura failed (a call was handed to it); "
            "pip install 'trafila[trafilatura]' installs trafilatura 2.3.1 with the packages it imports")
    if hasattr(err, "add_note") and note not in getattr(err, "__notes__", ()):
        err.add_note(note)


# --- the installed trafilatura -------------------------------------------------------

#: the real modules while trafila.patch() has shims in sys.modules
_REAL_MODULES: Dict[str, Any] = {}


def real_trafilatura() -> Any:
    """The installed trafilatura package (not trafila's shim); ImportError without it."""
    if "trafilatura" in _REAL_MODULES:
        return _REAL_MODULES["trafilatura"]
    try:
        import trafilatura  # noqa: PLC0415 - only when a call needs it
    except ImportError as err:
        if not (isinstance(err, ModuleNotFoundError) and err.name == "trafilatura"):
            _report_import_failure(err)
        raise
    return trafilatura


def _installed_version() -> Optional[str]:
    try:
        return real_trafilatura().__version__
    except ImportError:
        return None


def _real_submodule(name: str) -> Any:
    full = f"trafilatura.{name}"
    if full in _REAL_MODULES:
        return _REAL_MODULES[full]
    real_trafilatura()
    return importlib.import_module(full)


# --- one deduplication state across native and delegated calls --------------------

@contextmanager
def lend_cache(args: Dict[str, Any], impl: Any) -> Iterator[None]:
    """Around a delegated call: a trafila LRUCache (or the module cache, for
    deduplicate=True) is copied into a trafilatura LRUCache, and the counts come
    back afterwards, so native and delegated calls count in one state.
    The trafilatura LRUCache is the same object in every delegated call with
    that trafila cache (it holds no entries between calls).
    The trafila cache's lock is held for the whole call."""
    dedup = args.get("deduplicate")
    options = args.get("options")
    if not dedup or (options is not None and hasattr(options, "dedup")):
        yield
        return
    theirs_mod = _real_submodule("deduplication")
    # the mode's class, or a class an engine registered with the reference (core.CLRUCache)
    own = getattr(sys.modules.get(getattr(impl.duplicate_test, "__module__", "")), "CACHE_TYPES", ())
    if isinstance(dedup, impl.LRUCache) or isinstance(dedup, own):
        ours = dedup
        theirs = _twin(ours, theirs_mod.LRUCache)
        with ours.lock:
            theirs.cache = OrderedDict(ours.cache)
            args["deduplicate"] = theirs
            try:
                yield
            finally:
                args["deduplicate"] = ours
                ours.cache, theirs.cache = theirs.cache, OrderedDict()
        return
    if type(dedup).__module__.startswith("trafilatura"):
        yield
        return
    # deduplicate=True: both module caches hold the same counts during the call
    with _share_module_cache(impl.LRU_TEST, theirs_mod.LRU_TEST):
        yield


#: the trafilatura LRUCache that stands for a trafila LRUCache in delegated calls:
#: one per trafila cache (and maxsize), so that every delegated call sees the same object
_TWINS: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def _twin(ours: Any, their_class: Any) -> Any:
    theirs = _TWINS.get(ours)
    if theirs is None or type(theirs) is not their_class or theirs.maxsize != ours.maxsize:
        theirs = _TWINS[ours] = their_class(maxsize=ours.maxsize)
    return theirs


@contextmanager
def lend_module_cache_1_11_0(args: Dict[str, Any], impl: Any) -> Iterator[None]:
    """1.11.0 mode: any true ``deduplicate`` means the module cache (1.11.0 has
    no scoped caches), shared with trafilatura 1.11.0's during a delegated call."""
    if not args.get("deduplicate"):
        yield
        return
    LRU_TEST = impl.LRU_TEST
    theirs = _real_submodule("deduplication").LRU_TEST
    if theirs is LRU_TEST:  # one object for both (trafilatura.deduplication.LRU_TEST assigned under the patch)
        yield
        return
    with LRU_TEST.lock, theirs.lock:
        saved = _linked_items(theirs)
        _load_linked(theirs, LRU_TEST.cache.items())
        try:
            yield
        finally:
            LRU_TEST.cache = OrderedDict(_linked_items(theirs))
            _load_linked(theirs, saved)


# trafilatura 1.11.0's LRUCache keeps its order in a circular linked list of
# [prev, next, key, result] links; its state moves in and out through put() in order.
def _linked_items(cache: Any) -> list:
    items, root = [], cache.root
    link = root[1]
    while link is not root:
        items.append((link[2], link[3]))
        link = link[1]
    return items


def _load_linked(cache: Any, items: Any) -> None:
    cache.clear()
    for key, value in items:
        cache.put(key, value)


@contextmanager
def _share_module_cache(ours: Any, theirs: Any) -> Iterator[None]:
    """trafilatura's module cache holds trafila's counts during the call; they come back after."""
    if ours is theirs:  # one object for both (trafilatura.deduplication.LRU_TEST assigned under the patch)
        yield
        return
    with ours.lock, theirs.lock:
        saved = theirs.cache
        theirs.cache = OrderedDict(ours.cache)
        try:
            yield
        finally:
            ours.cache = OrderedDict(theirs.cache)
            theirs.cache = saved
