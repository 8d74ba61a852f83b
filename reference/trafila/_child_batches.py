"""Pages extracted as datatrove's Trafilatura step extracts them in its child process.

datatrove 0.10.1 runs each page's ``extract`` in a child process that lives for the whole
``run()``: trafilatura's deduplication cache fills up across the pages of a run, and a page
that raises kills the child, so the next page starts from an empty cache. trafila extracts the
pages in batches (``extract_batch``) and reproduces both: :class:`DedupState` is the child's
cache, :func:`extract_pages` re-runs a batch up to the page that raised and restarts the state
after it. The datatrove drop-in (``trafila.integrations.datatrove``) and the native FineWeb
chain (``trafila.fineweb.pipeline``) both extract through here.
"""

from __future__ import annotations

import copy
import importlib.metadata
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple, TypeVar

import trafila
from trafila._batch import failed_page

__all__ = ["DedupState", "batches", "extract_pages", "installed_trafilatura", "resolve_compat"]


def installed_trafilatura() -> Optional[str]:
    """The installed trafilatura's version (from its distribution metadata: not imported), or None."""
    try:
        return importlib.metadata.version("trafilatura")
    except importlib.metadata.PackageNotFoundError:
        return None


def resolve_compat(compat: Optional[str]) -> Optional[str]:
    """The trafila mode a step with ``compat`` runs, or None for datatrove's own step.

    An explicit ``compat`` must be one of ``trafila.TRAFILATURA_VERSIONS``. None:
    the installed trafilatura's release if trafila reproduces it, 2.3.1 when
    trafilatura is absent, None (datatrove's step) for any other release.
    """
    if compat is not None:
        if compat not in trafila.TRAFILATURA_VERSIONS:
            raise ValueError(f"compat must be None or one of {', '.join(trafila.TRAFILATURA_VERSIONS)}, not {compat!r}")
        return compat
    version = installed_trafilatura()
    if version is None:
        return trafila.DEFAULT_MODE
    return version if version in trafila.TRAFILATURA_VERSIONS else None


T = TypeVar("T")


def batches(items: Iterable[T], size: int) -> Iterator[List[T]]:
    "``items`` in order, ``size`` at a time (the last batch shorter)."
    batch: List[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class DedupState:
    """One deduplication state: what trafilatura's module cache holds in datatrove's child.

    2.3.1 takes a cache object (``deduplicate=LRUCache``), so the state is a trafila
    ``LRUCache`` passed to each batch. 1.11.0 only knows its module cache (``LRU_TEST``): the
    state's entries are lent to it for the duration of each batch and taken back afterwards,
    so other users of that cache in the process keep theirs. ``initial``: a trafila cache the
    user passed as ``deduplicate``, which a fresh child starts from (a copy of it).
    """

    def __init__(self, mode: str, initial: Any = None) -> None:
        self.mode = mode
        self.impl = trafila._engine.implementation(mode)
        self.initial = initial if isinstance(initial, self.impl.LRUCache) else None
        self.reset()

    def reset(self) -> None:
        """Back to the state a new extraction child starts with."""
        if self.mode == "1.11.0":
            self.entries: "OrderedDict[str, Any]" = (
                OrderedDict(self.initial.cache) if self.initial is not None else OrderedDict())
        else:
            self.cache = copy.copy(self.initial) if self.initial is not None \
                else self.impl.LRUCache(maxsize=self.impl.LRU_TEST.maxsize)

    def snapshot(self) -> Any:
        return OrderedDict(self.entries) if self.mode == "1.11.0" else copy.copy(self.cache)

    def restore(self, snapshot: Any) -> None:
        if self.mode == "1.11.0":
            self.entries = snapshot
        else:
            self.cache = snapshot

    @contextmanager
    def lent(self) -> Iterator[Any]:
        """The value of ``deduplicate`` for one batch (1.11.0: the module cache holds the state meanwhile)."""
        if self.mode != "1.11.0":
            yield self.cache
            return
        module_cache = self.impl.LRU_TEST
        with module_cache.lock:
            module_cache.cache, self.entries = self.entries, module_cache.cache
        try:
            yield True
        finally:
            with module_cache.lock:
                module_cache.cache, self.entries = self.entries, module_cache.cache


def extract_pages(texts: Sequence[Any], state: Optional[DedupState],
                  run_batch: Callable[[Sequence[Any], Optional[DedupState]], List[Optional[str]]]
                  ) -> List[Tuple[bool, Any]]:
    """(True, text or None) or (False, the exception) for each page, in order.

    ``run_batch(pages, state)`` extracts a batch (``extract_batch``, which raises for the whole
    batch when a page raises). A page that raises is the page datatrove's child dies on: the
    pages before it keep their results (run again from the state before the batch), the state
    restarts, and the pages after it are a new batch.
    """
    out: List[Tuple[bool, Any]] = []
    start, stop = 0, len(texts)
    failure: Optional[Tuple[int, BaseException]] = None  # (index, exception) of a page known to raise
    while start < len(texts):
        if failure is not None and failure[0] == start:
            out.append((False, failure[1]))
            failure = None
            if state is not None:
                state.reset()
            start, stop = start + 1, len(texts)
            continue
        before = state.snapshot() if state is not None else None
        try:
            results = run_batch(texts[start:stop], state)
        except trafila.TrafilaError:
            raise  # trafila cannot serve the options here (a missing trafilatura): not a page's fault
        except Exception as exc:  # noqa: BLE001 - a page raised: datatrove's child would die on it
            index = failed_page(exc)
            if index is None:
                raise
            if state is not None:
                state.restore(before)
            failure = (start + index, exc)
            stop = start + index
            continue
        out.extend((True, r) for r in results)
        start, stop = stop, len(texts)
    return out
