"""Eight threads extracting at once (issue 19), over each engine and mode it runs:
no crash; without deduplication every result is the sequential one; through one
shared LRUCache (2.3.1) and through the module cache (deduplicate=True), with
each page's calls in one thread (the pages share no paragraph), the cache ends
as the sequential run of the same calls leaves it and every call gives the
sequential result; with one page's calls in several threads at once, no
exception. The larger run is ``python -m harness reliability threads``
(reports/threads.md)."""

from __future__ import annotations

import random

import pytest

import trafila
from harness import strategies
from harness.reliability import distinct_articles, run_sequential, run_threaded

THREADS = 8


def _nodedup_pages():
    rng = random.Random(190)
    pages = [strategies.random_article(rng) for _ in range(12)] + [strategies.random_html(rng) for _ in range(12)]
    return pages + distinct_articles(8, seed=3)


@pytest.mark.parametrize("mode", ["2.3.1", "1.11.0"])
def test_threads_without_dedup_give_the_sequential_results(engine, mode):
    if mode not in engine.modes:
        pytest.skip(f"{engine.name} does not run {mode}")
    pages = _nodedup_pages() * 2

    def fn(html):
        return engine.extract(html, compat=mode)

    seq = run_sequential(fn, pages)
    thr = run_threaded(fn, pages, THREADS)
    assert thr == seq
    assert sum(r is not None for r in seq) > len(pages) // 4  # real extractions, not all None


def _dedup_calls(n_pages=6, repeat=8):
    calls = [p for p in distinct_articles(n_pages, seed=11) for _ in range(repeat)]
    random.Random(2).shuffle(calls)
    return calls


def test_threads_through_one_shared_lrucache(engine_231):
    calls = _dedup_calls()
    outcomes = []
    for threads in (1, THREADS):
        cache = engine_231.LRUCache(maxsize=4096)

        def fn(html, cache=cache):
            return engine_231.extract(html, deduplicate=cache)

        res = run_sequential(fn, calls) if threads == 1 else run_threaded(fn, calls, threads, group=lambda c: c)
        outcomes.append((res, dict(cache.cache)))
    (seq, seq_cache), (thr, thr_cache) = outcomes
    assert thr_cache == seq_cache
    assert 8 in set(seq_cache.values())  # a paragraph counted once in each of its page's 8 calls
    assert thr == seq
    assert any(r is None or "paragraph" not in r for r in seq)  # later calls of a page lose their paragraphs


def test_threads_sharing_one_page_through_one_cache(engine_231):
    """Calls of one page in several threads at once: a call may see some of its paragraphs counted by a
    concurrent call and not others (no sequential order gives that), but nothing raises."""
    calls = _dedup_calls(n_pages=2, repeat=16)
    cache = engine_231.LRUCache(maxsize=4096)
    thr = run_threaded(lambda html: engine_231.extract(html, deduplicate=cache), calls, THREADS)
    assert all(r is None or isinstance(r, str) and not r.startswith("raise ") for r in thr)
    assert cache.cache and max(cache.cache.values()) >= 16


def _check_module_cache(engine, mode: str) -> None:
    "Sequential and threaded runs through the module cache: the same results and the same cache."
    calls = _dedup_calls()
    impl = engine.implementation(mode)
    outcomes = []
    try:
        for threads in (1, THREADS):
            trafila.reset_caches()

            def fn(html):
                return engine.extract(html, compat=mode, deduplicate=True)

            res = run_sequential(fn, calls) if threads == 1 else run_threaded(fn, calls, threads, group=lambda c: c)
            outcomes.append((res, dict(impl.LRU_TEST.cache)))
    finally:
        trafila.reset_caches()
    (seq, seq_cache), (thr, thr_cache) = outcomes
    assert seq_cache and thr_cache == seq_cache
    assert thr == seq


def test_threads_through_the_module_cache(engine_231):
    _check_module_cache(engine_231, "2.3.1")


def test_threads_through_the_module_cache_1_11_0(engine_111):
    """The same in 1.11.0 (whose duplicate_test reads a count and writes it back in two calls, as
    trafilatura 1.11.0 does: only calls sharing a key could lose an increment, and these pages share none)."""
    _check_module_cache(engine_111, "1.11.0")
