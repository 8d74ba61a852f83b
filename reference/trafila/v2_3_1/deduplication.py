"""Duplicate detection of trafilatura 2.3.1 (deduplication.py): the LRU cache
and ``duplicate_test``."""

from __future__ import annotations

from collections import OrderedDict
from threading import RLock
from typing import TYPE_CHECKING, Any, Dict, Tuple

from .._backend import core_of
from .settings import LRU_SIZE
from .utils import trim

if TYPE_CHECKING:
    from trafila.dom import Element
    from trafila.v2_3_1.settings import Extractor



class LRUCache:
    "Least recently used cache of counts, backed by an OrderedDict."

    def __init__(self, maxsize: int = 128) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.lock = RLock()
        self.maxsize = maxsize
        self.cache: "OrderedDict[str, int]" = OrderedDict()

    def __getstate__(self) -> Dict[str, Any]:
        with self.lock:
            state = self.__dict__.copy()
            state["cache"] = self.cache.copy()
        del state["lock"]
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = RLock()

    def __bool__(self) -> bool:
        # an instance passed as the dedup option turns deduplication on, even empty
        return True

    def get(self, key: str) -> int:
        with self.lock:
            if key in self.cache:
                self.cache.move_to_end(key)
                return self.cache[key]
        return -1

    def put(self, key: str, value: int) -> None:
        with self.lock:
            self.cache[key] = value
            self.cache.move_to_end(key)
            if len(self.cache) > self.maxsize:
                self.cache.popitem(last=False)

    def increment(self, key: str) -> int:
        "Count one more occurrence; return the previous count or -1."
        with self.lock:
            previous = self.cache.pop(key, -1)
            self.put(key, max(previous, 0) + 1)
            return previous

    def clear(self) -> None:
        with self.lock:
            self.cache.clear()


LRU_TEST = LRUCache(maxsize=LRU_SIZE)

#: the classes duplicate_test takes as a cache of its own (options.dedup): LRUCache and the
#: twins an engine registers (the compiled core's CLRUCache)
CACHE_TYPES: Tuple[type, ...] = (LRUCache,)


def register_cache_type(cls: type) -> None:
    """Let duplicate_test count in instances of ``cls`` given as options.dedup (a class with
    LRUCache's methods)."""
    global CACHE_TYPES
    if cls not in CACHE_TYPES:
        CACHE_TYPES = CACHE_TYPES + (cls,)


def cache_of(options: Extractor) -> Any:
    "The cache duplicate_test counts in: options.dedup when it is a cache, else the module cache."
    return options.dedup if isinstance(options.dedup, CACHE_TYPES) else LRU_TEST


def set_module_cache(cache: Any) -> Any:
    """Make ``cache`` the module cache (``LRU_TEST``) that duplicate_test counts in
    when no cache of its own is given, as ``trafilatura.deduplication.LRU_TEST =
    cache`` does in trafilatura; returns the previous one. trafila.patch()'s shim
    calls it on such an assignment. Any object with this release's LRUCache
    methods will do, as in trafilatura."""
    global LRU_TEST
    previous, LRU_TEST = LRU_TEST, cache
    return previous


def duplicate_test(element: Element, options: Extractor) -> bool:
    """Count the element's text; a duplicate once seen more than MAX_REPETITIONS
    times and longer than MIN_DUPLCHECK_SIZE (every call counts)."""
    core = core_of(element)
    teststring = core.dedup_key(element) if core is not None else None
    if teststring is None:
        teststring = trim(" ".join(element.itertext()))
    previous = cache_of(options).increment(teststring)
    return len(teststring) > options.min_duplcheck_size and previous > options.max_repetitions
