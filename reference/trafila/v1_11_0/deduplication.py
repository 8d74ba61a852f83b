"""Duplicate detection of trafilatura 1.11.0 (deduplication.py): the global
``LRU_TEST`` cache of text counts and ``duplicate_test``."""

from __future__ import annotations

from collections import OrderedDict
from threading import RLock
from typing import TYPE_CHECKING, Any

from .._backend import core_of
from .settings import LRU_SIZE
from .utils import trim

if TYPE_CHECKING:
    from trafila.dom import Element
    from trafila.v1_11_0.settings import Extractor



class LRUCache:
    """Least recently used cache (1.11.0 keeps a linked list; an OrderedDict
    gives the same eviction order: the least recently read or written key)."""

    def __init__(self, maxsize: int = 128) -> None:
        self.lock = RLock()
        self.maxsize = maxsize
        self.cache: "OrderedDict[str, Any]" = OrderedDict()

    def get(self, key: str) -> Any:
        "The value (the key becomes the most recent), or -1."
        with self.lock:
            if key in self.cache:
                self.cache.move_to_end(key)
                return self.cache[key]
        return -1

    def put(self, key: str, value: Any) -> None:
        with self.lock:
            if key in self.cache:
                self.cache.move_to_end(key)
                self.cache[key] = value
                return
            self.cache[key] = value
            if len(self.cache) > self.maxsize:
                self.cache.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.cache.clear()


LRU_TEST = LRUCache(maxsize=LRU_SIZE)


def set_module_cache(cache: Any) -> Any:
    """Make ``cache`` the module cache (``LRU_TEST``) that duplicate_test counts in
    when no cache of its own is given, as ``trafilatura.deduplication.LRU_TEST =
    cache`` does in trafilatura; returns the previous one. trafila.patch()'s shim
    calls it on such an assignment. Any object with this release's LRUCache
    methods will do, as in trafilatura."""
    global LRU_TEST
    previous, LRU_TEST = LRU_TEST, cache
    return previous


def put_in_cache(teststring: str) -> None:
    "Count one more occurrence."
    cacheval = LRU_TEST.get(teststring)
    LRU_TEST.put(teststring, cacheval + 1 if cacheval != -1 else 1)


def duplicate_test(element: Element, options: Extractor) -> bool:
    """A duplicate once its text (longer than MIN_DUPLCHECK_SIZE) was seen more
    than MAX_REPETITIONS times; every call counts."""
    core = core_of(element)
    teststring = core.dedup_key(element) if core is not None else None
    if teststring is None:
        teststring = trim(" ".join(element.itertext()))
    if len(teststring) > options.min_duplcheck_size:
        cacheval = LRU_TEST.get(teststring)
        if cacheval > options.max_repetitions:
            LRU_TEST.put(teststring, cacheval + 1)
            return True
    put_in_cache(teststring)
    return False
