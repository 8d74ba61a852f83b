"""trafila.LRUCache against trafilatura 2.3.1's: same counts for any sequence of
operations, pickling/copying, sharing between threads, one state across native
and delegated calls."""

from __future__ import annotations

import copy
import pickle
import threading
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from trafila import _delegation, _engine
from trafila.v2_3_1 import deduplication

from .conftest import needs_trafilatura_231

KEYS = st.sampled_from(["a", "b", "c", "d", "e", "", "é", "a b"])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("get"), KEYS),
        st.tuples(st.just("put"), KEYS, st.integers(-3, 10)),
        st.tuples(st.just("increment"), KEYS),
        st.tuples(st.just("clear")),
    ),
    max_size=60,
)


def _apply(cache, ops):
    out = []
    for op in ops:
        out.append(getattr(cache, op[0])(*op[1:]))
    return out, list(cache.cache.items())


def test_exported_class_is_the_default_engines():
    impl = _engine.implementation("2.3.1")
    assert trafila.LRUCache is impl.LRUCache and trafila.LRU_TEST is impl.LRU_TEST
    if impl.engine == "reference":
        assert trafila.LRUCache is deduplication.LRUCache


def test_cache_basics(engine_231):
    impl = engine_231.implementation("2.3.1")
    assert impl.LRU_TEST.maxsize == 4096
    assert bool(engine_231.LRUCache(maxsize=1)) is True
    with pytest.raises(ValueError):
        engine_231.LRUCache(maxsize=0)


@needs_trafilatura_231
@settings(max_examples=150, deadline=None)
@given(ops=OPS, maxsize=st.integers(1, 5))
def test_operation_sequences_match_trafilatura(engine_231, ops, maxsize):
    from trafilatura.deduplication import LRUCache as TLRU

    assert _apply(engine_231.LRUCache(maxsize=maxsize), ops) == _apply(TLRU(maxsize=maxsize), ops)


@settings(max_examples=40, deadline=None)
@given(ops=OPS)
def test_pickle_and_copy_keep_entries(engine_231, ops):
    cache = engine_231.LRUCache(maxsize=4)
    _apply(cache, ops)
    for clone in (pickle.loads(pickle.dumps(cache)), copy.deepcopy(cache)):
        assert list(clone.cache.items()) == list(cache.cache.items()) and clone.maxsize == 4
        clone.put("zz", 1)  # the clone has its own lock and entries
        assert "zz" not in cache.cache or cache.cache is clone.cache


ARTICLE = "<html><body><article>" + "".join(
    f"<p>Sentence number {i} of a long enough document that will be seen several times over.</p>" for i in range(6)
) + "</article></body></html>"
PAGES = [ARTICLE.replace("Sentence", f"Variant{v} sentence") for v in range(4)]


def _run(engine, calls, cache, threads):
    results = [None] * len(calls)

    def work(i):
        results[i] = engine.extract(calls[i], deduplicate=cache, fast=True)

    if threads == 1:
        for i in range(len(calls)):
            work(i)
        return results
    pool = [threading.Thread(target=lambda k=k: [work(i) for i in range(k, len(calls), threads)]) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return results


def test_threads_sharing_one_cache_give_the_sequential_counts(engine_231):
    calls = [PAGES[i % len(PAGES)] for i in range(32)]
    sequential, shared = engine_231.LRUCache(maxsize=64), engine_231.LRUCache(maxsize=64)
    seq_results = _run(engine_231, calls, sequential, 1)
    thr_results = _run(engine_231, calls, shared, 8)
    assert dict(shared.cache) == dict(sequential.cache)
    assert sorted(map(str, thr_results)) == sorted(map(str, seq_results))
    # each page seen 8 times (its paragraphs too): every count is 8, and pages past the 3rd sighting are duplicates
    assert set(shared.cache.values()) == {8}
    assert sum(r is None for r in seq_results) == 4 * (8 - 3)


@needs_trafilatura_231
def test_one_state_across_native_and_delegated_calls(engine_231):
    import trafilatura
    from trafilatura.deduplication import LRUCache as TLRU

    ours, theirs = engine_231.LRUCache(maxsize=16), TLRU(maxsize=16)
    _delegation._warned.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = [], []
        # alternate native (txt) and delegated (xml output) calls on one cache
        for i in range(6):
            fmt = "txt" if i % 2 == 0 else "xml"
            got.append(engine_231.extract(ARTICLE, deduplicate=ours, output_format=fmt, fast=True))
            want.append(trafilatura.extract(ARTICLE, deduplicate=theirs, output_format=fmt, fast=True))
    assert [g is None for g in got] == [w is None for w in want] == [False] * 3 + [True] * 3
    assert list(ours.cache.items()) == list(theirs.cache.items())


@needs_trafilatura_231
def test_module_cache_is_shared_with_delegated_calls(engine_231):
    import trafilatura
    from trafilatura import deduplication as tdedup

    trafila.reset_caches()
    tdedup.LRU_TEST.clear()
    tdedup.LRU_TEST.put("keep me", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(4):
            engine_231.extract(ARTICLE, deduplicate=True, fast=True, output_format="txt" if i % 2 else "xml")
    assert set(engine_231.implementation("2.3.1").LRU_TEST.cache.values()) == {4}
    # trafilatura's own module cache is left as it was
    assert list(tdedup.LRU_TEST.cache.items()) == [("keep me", 1)]
    tdedup.LRU_TEST.clear()
    trafila.reset_caches()
    assert not trafila.LRU_TEST.cache
    del trafilatura
