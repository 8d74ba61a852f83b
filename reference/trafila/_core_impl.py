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
trafilatura installation has one. In 2.3.1 mode the core makes that module
cache a ``core.CLRUCache`` (the same counts, kept in C), so that its GIL-free
sequence can count in it; a cache of one's own is the reference's class (it
keeps the page in Python) or a ``core.CLRUCache`` (the C sequence counts in it).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict

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


def _install_module_cache(mode: str, core: Any) -> None:
    """2.3.1: duplicate_test takes a core.CLRUCache as a cache of its own; both releases: the
    module cache (deduplication.LRU_TEST) becomes one holding the same entries, unless it was replaced by a
    cache that is not the reference's class (trafila.patch: ``trafilatura.deduplication.LRU_TEST
    = cache``): that one stays."""
    if mode not in ("2.3.1", "1.11.0") or not hasattr(core, "CLRUCache"):
        return
    from . import _engine

    if mode == "2.3.1":
        from .v2_3_1 import deduplication as dedup

        dedup.register_cache_type(core.CLRUCache)
    else:
        # 1.11.0's duplicate_test reads and writes the module cache (get, put), which the C
        # sequence then counts in as well
        from .v1_11_0 import deduplication as dedup  # type: ignore[no-redef]
    previous = dedup.LRU_TEST
    if type(previous) is not dedup.LRUCache:
        return
    cache = core.CLRUCache(previous.maxsize)
    with previous.lock:
        cache.cache = previous.cache
        dedup.set_module_cache(cache)
    # an Implementation made before (the reference's) names the module cache it had then
    for impl in _engine.loaded_implementations():
        if impl.mode == mode and impl.LRU_TEST is previous:
            impl.LRU_TEST = cache


def implementation(mode: str, core: Any) -> Implementation:
    """The Implementation of ``mode`` on ``core`` (the ``trafila._core`` module)."""
    _install_module_cache(mode, core)
    ref = _reference_implementation(mode)
    backend = _backend.core_backend(core)
    return Implementation(
        engine="core", mode=mode,
        extract=_on(backend, ref.extract, core), bare_extraction=_on(backend, ref.bare_extraction, core),
        baseline=_on(backend, ref.baseline, core),
        html2txt=None if ref.html2txt is None else _on(backend, ref.html2txt, core),
        extract_metadata=_on(backend, ref.extract_metadata, core),
        extract_with_metadata=None if ref.extract_with_metadata is None else _on(backend, ref.extract_with_metadata, core),
        DEFAULT_CONFIG=ref.DEFAULT_CONFIG, LRUCache=ref.LRUCache, LRU_TEST=ref.LRU_TEST,
        duplicate_test=ref.duplicate_test, trim=ref.trim, sanitize=ref.sanitize, reset_caches=ref.reset_caches,
        backend=backend,
        # 1.11.0 and the option sets without a C sequence run Python stages (holding the GIL):
        # extract_batch's worker processes; 2.3.1's sequence runs in C without it for the option
        # sets of _native_kwargs (threads where there are no worker processes)
        releases_gil=False,
        releases_gil_for=(_native_kwargs if mode == "2.3.1" and hasattr(core, "sequence_231")
                          else _native_kwargs_111 if mode == "1.11.0" and hasattr(core, "sequence_1_11_0")
                          else None),
    )


#: extract()'s keyword arguments with the values that keep 2.3.1's sequence in C
#: (v2_3_1.core._native_sequence); other keys there leave it as it is
_NATIVE = {
    "fast": (False, True), "no_fallback": (False,), "favor_precision": (False, True), "favor_recall": (False, True),
    "include_comments": (True, False), "include_tables": (True, False), "include_formatting": (None, False, True),
    "include_links": (False, True), "include_images": (False, True), "deduplicate": (False,),
    "output_format": ("txt", "markdown"),
    "with_metadata": (False,), "only_with_metadata": (False,), "max_tree_size": (None,),
    "url_blacklist": (None,), "author_blacklist": (None,), "prune_xpath": (None,), "settingsfile": (None,),
}
_NATIVE_ANY = frozenset(["url", "record_id", "compat", "target_language", "tei_validation",
                              "date_extraction_params"])


def _native_kwargs(kwargs: Dict[str, Any]) -> bool:
    """True when ``extract(page, **kwargs)`` runs 2.3.1's sequence in the core, without the GIL
    (extract_batch then runs its pages on threads where it has no worker processes; with
    deduplication it keeps the pages in order on one thread all the same)."""
    for key, value in kwargs.items():
        if key in _NATIVE_ANY:
            continue
        if key == "deduplicate" and value and _c_dedup_cache(value):
            continue
        allowed = _NATIVE.get(key)
        if allowed is None or not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
            return False
    if kwargs.get("url") is not None:
        from .v2_3_1.core import sequence_url_reason  # noqa: PLC0415

        return sequence_url_reason(kwargs.get("include_links") is True, kwargs.get("include_images") is True,
                                   kwargs["url"]) is None
    return True


#: extract(compat="1.11.0")'s keyword arguments with the values that keep 1.11.0's sequence in C
#: (v1_11_0.core._native_sequence, cython_core/nogil_sequence_1_11_0.pxi): with or without the
#: fallbacks (readability, jusText), deduplication in a core.CLRUCache module cache, links (with
#: or without a URL), images, formatting, txt or markdown; other keys there leave it as it is
_NATIVE_111 = {
    "no_fallback": (False, True), "favor_precision": (False, True), "favor_recall": (False, True),
    "include_comments": (True, False), "include_tables": (True, False), "include_formatting": (False, True),
    "include_links": (False, True), "include_images": (False, True), "deduplicate": (False,),
    "output_format": ("txt", "markdown"),
    "with_metadata": (False,), "only_with_metadata": (False,), "max_tree_size": (None,),
    "url_blacklist": (None,), "author_blacklist": (None,), "prune_xpath": (None,), "settingsfile": (None,),
}
_NATIVE_111_ANY = frozenset(["url", "record_id", "compat", "target_language", "tei_validation",
                             "date_extraction_params"])


def _native_kwargs_111(kwargs: Dict[str, Any]) -> bool:
    """True when ``extract(page, compat="1.11.0", **kwargs)`` runs 1.11.0's sequence in the core,
    without the GIL, from the parsed tree to the txt output, for the pages the C answers (a
    string lxml refuses, JSON-LD for the baseline, unusual colspans hand a few back)."""
    for key, value in kwargs.items():
        if key in _NATIVE_111_ANY:
            continue
        if key == "deduplicate" and value is True and _c_dedup_cache_111():
            continue
        allowed = _NATIVE_111.get(key)
        if allowed is None or not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
            return False
    return True


def _c_dedup_cache_111() -> bool:
    "1.11.0's duplicate_test counts in a core.CLRUCache (its module cache: the C sequence's)."
    from ._engine import core_module
    from .v1_11_0 import deduplication as dedup

    return type(dedup.LRU_TEST) is getattr(core_module(), "CLRUCache", None)


def _c_dedup_cache(value: Any) -> bool:
    "``deduplicate=value`` counts in a core.CLRUCache (the C sequence's cache)."
    from ._engine import core_module
    from .v2_3_1 import deduplication as dedup

    cache = value if isinstance(value, dedup.CACHE_TYPES) else dedup.LRU_TEST
    return type(cache) is getattr(core_module(), "CLRUCache", None)
