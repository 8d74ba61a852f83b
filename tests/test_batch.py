"""trafila.extract_batch: always the loop's results, on both paths.

Every test runs over each built engine that runs the mode (the conftest
fixtures). The pool path is exercised by declaring ``releases_gil = True`` on
the engine's Implementation for the test (the seam extract_batch reads): the
extraction then really runs on trafila's threads, with the same results.
"""

from __future__ import annotations

import _thread
import random
import sys
import threading

import pytest

import trafila
from harness import embedded, strategies
from trafila import _batch

from .conftest import needs_trafilatura_231

POOL = (False, True)  # whether the engine declares releases_gil for the test


def _paragraph_pool(rng: random.Random, n: int = 12) -> list:
    return [embedded.paragraph(rng, 4) for _ in range(n)]


def generated_pages(seed: int, n: int) -> list:
    """Article-like pages that share paragraphs (so deduplication removes some),
    generated pages of the fuzz grammar, and edge cases (empty, None, tiny)."""
    rng = random.Random(seed)
    shared = _paragraph_pool(rng)
    pages = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            pages.append(embedded.article(rng, i))
        elif kind == 1:
            paras = "".join(f"<p>{p}</p>" for p in rng.sample(shared, rng.randint(3, 7)))
            pages.append(f'<html><body>{embedded.nav_block(rng)}<article class="post"><h1>{i}</h1>{paras}</article>'
                         f'<div id="comments"><p>{rng.choice(shared)}</p></div></body></html>')
        elif kind == 2:
            pages.append(strategies.random_article(rng))
        else:
            pages.append(strategies.random_html(rng))
    pages[n // 3:n // 3] = ["", None, "<html>", "<p>tiny</p>"]
    return pages


@pytest.fixture
def declare_gil(monkeypatch):
    """declare_gil(engine, mode, value): the engine's Implementation says releases_gil=value for the test;
    with False, worker processes are off too (TRAFILA_BATCH_PROCESSES=0), so the batch takes the loop
    (the worker processes have tests of their own: tests/test_batch_processes.py)."""
    def declare(engine, mode: str, value: bool) -> None:
        monkeypatch.setattr(engine.implementation(mode), "releases_gil", value, raising=False)
        if not value:
            # and for no option set either (the core's `fast` runs without the GIL)
            monkeypatch.setattr(engine.implementation(mode), "releases_gil_for", None, raising=False)
            monkeypatch.setenv("TRAFILA_BATCH_PROCESSES", "0")
    return declare


def _loop(engine, pages, **kwargs):
    return [engine.extract(p, **kwargs) for p in pages]


def _batch_threads() -> set:
    return {t for t in threading.enumerate() if t.name.startswith("trafila-batch")}


class _engine_context:
    """Run a block as if called through trafila.engine(name)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self):
        self.token = trafila._CALL_ENGINE.set(self.name)
        return self

    def __exit__(self, *exc):
        trafila._CALL_ENGINE.reset(self.token)
        return False


OPTION_SETS_231 = [
    {}, {"fast": True}, {"favor_precision": True, "include_comments": False},
    {"favor_recall": True}, {"include_comments": False, "include_tables": False},
    {"output_format": "markdown"}, {"include_links": True}, {"include_formatting": True},
]
OPTION_SETS_111 = [{}, {"no_fallback": True}, {"favor_precision": True, "include_comments": False},
                   {"include_formatting": True}]


@pytest.mark.parametrize("pool", POOL)
@pytest.mark.parametrize("options", OPTION_SETS_231, ids=lambda o: ",".join(o) or "default")
def test_equal_to_the_loop_2_3_1(engine_231, declare_gil, pool, options):
    declare_gil(engine_231, "2.3.1", pool)
    pages = generated_pages(1, 32)
    with _engine_context(engine_231.name):
        assert _batch.plan(pages, 2, **options)[0] == ("pool" if pool else "loop")
    expected = _loop(engine_231, pages, **options)
    assert engine_231.extract_batch(pages, threads=2, **options) == expected
    assert engine_231.extract_batch(tuple(pages), threads=3, **options) == expected
    assert sum(r is not None for r in expected) > 10  # the pages are extracted, not all discarded


@pytest.mark.parametrize("pool", POOL)
@pytest.mark.parametrize("options", OPTION_SETS_111, ids=lambda o: ",".join(o) or "default")
def test_equal_to_the_loop_1_11_0(engine_111, declare_gil, pool, options):
    declare_gil(engine_111, "1.11.0", pool)
    pages = generated_pages(2, 24)
    expected = _loop(engine_111, pages, compat="1.11.0", **options)
    assert engine_111.extract_batch(pages, threads=2, compat="1.11.0", **options) == expected
    assert sum(r is not None for r in expected) > 8


@pytest.mark.parametrize("pool", POOL)
def test_module_cache_deduplication_is_the_loops(engine_231, declare_gil, pool):
    """deduplicate=True: the batch runs in page order through LRU_TEST; results and the cache equal the loop's."""
    declare_gil(engine_231, "2.3.1", pool)
    lru = engine_231.implementation("2.3.1").LRU_TEST
    pages = generated_pages(3, 40)
    options = {"favor_precision": True, "include_comments": False, "deduplicate": True}
    with _engine_context(engine_231.name):
        assert _batch.plan(pages, 2, **options)[0] == "loop"
    trafila.reset_caches()
    expected = _loop(engine_231, pages, **options)
    cache_after_loop = list(lru.cache.items())
    trafila.reset_caches()
    got = engine_231.extract_batch(pages, threads=2, **options)
    assert got == expected
    assert list(lru.cache.items()) == cache_after_loop
    # deduplication did something: the same pages without it give more text
    trafila.reset_caches()
    plain = _loop(engine_231, pages, favor_precision=True, include_comments=False)
    assert sum(len(t or "") for t in plain) > sum(len(t or "") for t in expected)
    trafila.reset_caches()


@pytest.mark.parametrize("pool", POOL)
def test_lru_cache_argument_ends_as_the_loops(engine_231, declare_gil, pool):
    declare_gil(engine_231, "2.3.1", pool)
    pages = generated_pages(4, 36)
    loop_cache = engine_231.LRUCache(maxsize=64)
    expected = _loop(engine_231, pages, fast=True, deduplicate=loop_cache)
    batch_cache = engine_231.LRUCache(maxsize=64)
    assert engine_231.extract_batch(pages, threads=2, fast=True, deduplicate=batch_cache) == expected
    assert list(batch_cache.cache.items()) == list(loop_cache.cache.items())
    assert len(loop_cache.cache) > 0


def test_dedup_1_11_0_is_the_loops(engine_111, declare_gil):
    declare_gil(engine_111, "1.11.0", True)
    lru = engine_111.implementation("1.11.0").LRU_TEST
    pages = generated_pages(5, 30)
    trafila.reset_caches()
    expected = _loop(engine_111, pages, compat="1.11.0", no_fallback=True, deduplicate=True)
    after = list(lru.cache.items())
    trafila.reset_caches()
    assert engine_111.extract_batch(pages, compat="1.11.0", no_fallback=True, deduplicate=True) == expected
    assert list(lru.cache.items()) == after
    trafila.reset_caches()


def test_pool_runs_on_trafilas_threads_with_the_engine(engine_231, declare_gil, monkeypatch):
    """On the pool the pages run on trafila's threads (page 0 on the caller's), each
    under the engine the batch was called through, and the results keep page order
    even when later pages finish first."""
    declare_gil(engine_231, "2.3.1", True)
    impl = engine_231.implementation("2.3.1")
    real = impl.extract
    seen = []
    gate = threading.Event()

    def spy(**args):
        seen.append((args["filecontent"], threading.current_thread().name, trafila._CALL_ENGINE.get()))
        if args["filecontent"] == pages[1]:
            gate.wait(5)  # page 1 finishes last: page 2 onwards must not be stored in its place
        elif args["filecontent"] == pages[-1]:
            gate.set()
        return real(**args)

    monkeypatch.setattr(impl, "extract", spy)
    pages = [f"<html><body><article><p>{embedded.paragraph(random.Random(i), 5)}</p></article></body></html>"
             for i in range(12)]
    got = engine_231.extract_batch(pages, threads=3)
    monkeypatch.setattr(impl, "extract", real)
    assert got == _loop(engine_231, pages)
    by_page = {page: (name, eng) for page, name, eng in seen}
    assert by_page[pages[0]][0] == threading.current_thread().name
    assert all(by_page[p][0].startswith("trafila-batch-") for p in pages[1:])
    assert {eng for _, eng in by_page.values()} == {engine_231.name}
    assert not _batch_threads()


def test_threads_1_is_the_loop_on_the_calling_thread(engine_231, declare_gil, monkeypatch):
    declare_gil(engine_231, "2.3.1", True)
    impl = engine_231.implementation("2.3.1")
    real = impl.extract
    names = []

    def spy(**args):
        names.append(threading.current_thread().name)
        return real(**args)

    monkeypatch.setattr(impl, "extract", spy)
    pages = generated_pages(6, 8)
    with _engine_context(engine_231.name):
        assert _batch.plan(pages, 1) == ("loop", "threads=1")
    assert engine_231.extract_batch(pages, threads=1) == [engine_231.extract(p) for p in pages]
    assert set(names) == {threading.current_thread().name}


def test_a_single_page_and_an_empty_batch(engine_231):
    page = generated_pages(7, 1)[0]
    assert engine_231.extract_batch(page) == engine_231.extract(page)
    assert engine_231.extract_batch(page.encode()) == engine_231.extract(page.encode())
    assert engine_231.extract_batch(page, fast=True) == engine_231.extract(page, fast=True)
    assert engine_231.extract_batch([]) == []
    assert engine_231.extract_batch([page], threads=4) == [engine_231.extract(page)]


@pytest.mark.parametrize("pool", POOL)
def test_bytes_items_run_the_loop_with_the_same_results(engine_231, declare_gil, pool):
    declare_gil(engine_231, "2.3.1", pool)
    pages = generated_pages(8, 12)
    mixed = [p.encode("utf-8") if i % 2 and p is not None else p for i, p in enumerate(pages)]
    with _engine_context(engine_231.name):
        assert _batch.plan(mixed, 2) == ("loop", "an item is not a str (decoded and checked in Python)")
    assert engine_231.extract_batch(mixed, threads=2) == _loop(engine_231, mixed)


def test_the_reference_declares_it_holds_the_gil():
    from trafila import _engine

    for mode in _engine.MODES:
        assert _engine.implementation(mode, "reference").releases_gil is False
    assert _engine.OPTIONAL_IMPLEMENTATION_ATTRIBUTES == {"releases_gil": False, "releases_gil_for": None,
                                                          "extract_metadata": None, "extract_with_metadata": None}
    pages = generated_pages(9, 4)
    with _engine_context("reference"):
        assert _batch.plan(pages, 2) == ("loop", "engine 'reference' holds the GIL while it extracts")


def test_plan_reasons(engine_231, declare_gil, monkeypatch):
    declare_gil(engine_231, "2.3.1", True)
    pages = generated_pages(10, 4)
    with _engine_context(engine_231.name):
        assert _batch.plan(pages, 2) == ("pool", "2 threads")
        assert _batch.plan(pages, 2, deduplicate=True)[0] == "loop"
        assert _batch.plan(pages[:1], 2) == ("loop", "fewer than two pages")
        assert _batch.plan(pages, 2, target_language="de") == ("loop", "handed to trafilatura: target_language")
        assert _batch.plan(pages, 2, compat="9.9")[0] == "loop"
        assert _batch.plan(pages[0], 2) == ("loop", "a single page")
    # an Implementation without the optional attribute holds the GIL (the core's C sequence
    # releases it for its option sets: the json output is not one of them)
    monkeypatch.delattr(engine_231.implementation("2.3.1"), "releases_gil")
    monkeypatch.setenv("TRAFILA_BATCH_PROCESSES", "0")
    with _engine_context(engine_231.name):
        assert "holds the GIL while it extracts" in _batch.plan(pages, 2, output_format="json")[1]


def test_threads_argument_is_checked():
    pages = generated_pages(11, 3)
    with pytest.raises(ValueError, match="at least 1"):
        trafila.extract_batch(pages, threads=0)
    with pytest.raises(TypeError, match="threads must be an int"):
        trafila.extract_batch(pages, threads="2")
    with pytest.raises(TypeError, match="threads must be an int"):
        trafila.extract_batch(pages, threads=True)
    with pytest.raises(TypeError, match="pages must be a list or tuple"):
        trafila.extract_batch(iter(pages))
    assert 1 <= _batch.default_threads() <= _batch.MAX_DEFAULT_THREADS


def test_mode_errors_are_extracts(engine_231):
    pages = generated_pages(12, 3)
    with pytest.raises(ValueError, match="unsupported compat mode") as info:
        engine_231.extract_batch(pages, compat="9.9")
    assert _batch.failed_page(info.value) == 0
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        engine_231.extract_batch(pages, bogus=1)
    assert engine_231.extract_batch([], compat="9.9") == []  # the loop over no pages raises nothing


# --- errors ------------------------------------------------------------------------

def _failing_extract(monkeypatch, engine, mode: str, fails: dict, calls: list):
    """The engine's extract raises fails[marker] for a page containing marker."""
    impl = engine.implementation(mode)
    real = impl.extract

    def extract(**args):
        page = args["filecontent"]
        calls.append(page)
        for marker, exc in fails.items():
            if isinstance(page, str) and marker in page:
                raise exc() if isinstance(exc, type) else exc
        return real(**args)

    monkeypatch.setattr(impl, "extract", extract)


def _marked(n: int, marks: dict) -> list:
    pages = generated_pages(13, n)
    for index, marker in marks.items():
        pages[index] = f"<html><body><p>{marker}</p></body></html>"
    return pages


class BatchTestError(Exception):
    pass


@pytest.mark.parametrize("pool", POOL)
def test_the_first_failing_page_in_page_order_is_raised_with_a_note(engine_231, declare_gil, monkeypatch, pool):
    """Page 9 raises first (page 4 waits for it on the pool), yet the batch raises
    page 4's exception, as the loop, which never reaches page 9, does."""
    declare_gil(engine_231, "2.3.1", pool)
    impl = engine_231.implementation("2.3.1")
    real = impl.extract
    calls: list = []
    first, second = BatchTestError("first"), KeyError("second")
    page_9_raised = threading.Event()

    def extract(**args):
        page = args["filecontent"]
        calls.append(page)
        if page == pages[9]:
            page_9_raised.set()
            raise first
        if page == pages[4]:
            if pool:
                page_9_raised.wait(10)  # a safety bound only: page 9 is on another thread by now
            raise second
        return real(**args)

    monkeypatch.setattr(impl, "extract", extract)
    pages = _marked(30, {9: "MARK-A", 4: "MARK-B"})
    with pytest.raises(KeyError) as info:
        engine_231.extract_batch(pages, threads=3)
    assert info.value is second
    assert info.value.__notes__[-1] == f"trafila.extract_batch: raised by page 4 of {len(pages)}"
    assert _batch.failed_page(info.value) == 4
    assert all(p in calls for p in pages[:5])  # every page before it was extracted
    assert (pages[9] in calls) is pool
    assert not _batch_threads()


@pytest.mark.parametrize("pool", POOL)
def test_no_page_past_the_look_ahead_starts_after_an_error(engine_231, declare_gil, monkeypatch, pool):
    declare_gil(engine_231, "2.3.1", pool)
    calls: list = []
    _failing_extract(monkeypatch, engine_231, "2.3.1", {"MARK-E": BatchTestError}, calls)
    pages = _marked(300, {20: "MARK-E"})
    threads = 2
    with pytest.raises(BatchTestError):
        engine_231.extract_batch(pages, threads=threads)
    # queued (LOOKAHEAD_PER_THREAD per thread), in flight (one per thread), and the one being queued
    assert len(calls) <= 21 + _batch.LOOKAHEAD_PER_THREAD * threads + threads + 1
    assert not _batch_threads()


@pytest.mark.parametrize("pool", POOL)
def test_an_error_after_dedup_pages_leaves_the_cache_as_the_loop(engine_231, declare_gil, monkeypatch, pool):
    declare_gil(engine_231, "2.3.1", pool)
    pages = _marked(20, {12: "MARK-C"})
    calls: list = []
    _failing_extract(monkeypatch, engine_231, "2.3.1", {"MARK-C": BatchTestError("boom")}, calls)
    loop_cache, batch_cache = engine_231.LRUCache(maxsize=32), engine_231.LRUCache(maxsize=32)
    with pytest.raises(BatchTestError):
        _loop(engine_231, pages, deduplicate=loop_cache)
    with pytest.raises(BatchTestError) as info:
        engine_231.extract_batch(pages, deduplicate=batch_cache)
    assert _batch.failed_page(info.value) == 12
    assert list(batch_cache.cache.items()) == list(loop_cache.cache.items())


def test_notes_before_python_3_11(monkeypatch):
    """On 3.9/3.10 the note goes into __notes__ by hand (what 3.11's traceback shows)."""
    monkeypatch.setattr(_batch.sys, "version_info", (3, 10, 0))
    exc = BatchTestError("x")
    _batch._add_note(exc, "trafila.extract_batch: raised by page 3 of 7")
    assert exc.__notes__ == ["trafila.extract_batch: raised by page 3 of 7"]
    _batch._add_note(exc, "another")
    assert exc.__notes__[-1] == "another"
    assert _batch.failed_page(exc) == 3
    assert _batch.failed_page(BatchTestError("no note")) is None


# --- interrupts ------------------------------------------------------------------

@pytest.mark.parametrize("pool", POOL)
def test_keyboard_interrupt_from_a_page_stops_the_batch(engine_231, declare_gil, monkeypatch, pool):
    """A KeyboardInterrupt raised in a page's extraction propagates at once: no page
    past the bounded look-ahead is started and no batch thread is left running."""
    declare_gil(engine_231, "2.3.1", pool)
    calls: list = []
    _failing_extract(monkeypatch, engine_231, "2.3.1", {"MARK-K": KeyboardInterrupt}, calls)
    pages = _marked(200, {20: "MARK-K"})
    threads = 2
    with pytest.raises(KeyboardInterrupt) as info:
        engine_231.extract_batch(pages, threads=threads)
    assert _batch.failed_page(info.value) == 20
    assert len(calls) <= 21 + _batch.LOOKAHEAD_PER_THREAD * threads + threads
    assert not _batch_threads()


def test_keyboard_interrupt_does_not_wait_for_earlier_pages(engine_231, declare_gil, monkeypatch):
    """On the pool, a KeyboardInterrupt from page 20 is raised while page 10 is
    still running: the batch gives the threads JOIN_SECONDS, not the time of the
    page; the thread on page 10 ends once its page does."""
    declare_gil(engine_231, "2.3.1", True)
    impl = engine_231.implementation("2.3.1")
    real = impl.extract
    release, returned, seen_by_page_10 = threading.Event(), [], []

    def extract(**args):
        page = args["filecontent"]
        if page == pages[10]:
            release.wait(30)  # a safety bound only: the test releases it as soon as the batch has returned
            seen_by_page_10.append(bool(returned))
        elif page == pages[20]:
            raise KeyboardInterrupt
        return real(**args)

    monkeypatch.setattr(impl, "extract", extract)
    pages = _marked(60, {10: "MARK-SLOW", 20: "MARK-K"})
    with pytest.raises(KeyboardInterrupt) as info:
        engine_231.extract_batch(pages, threads=2)
    returned.append(True)
    release.set()
    assert _batch.failed_page(info.value) == 20
    for thread in _batch_threads():
        thread.join(30)
    assert seen_by_page_10 == [True]
    assert not _batch_threads()


@pytest.mark.parametrize("pool", POOL)
def test_ctrl_c_on_the_calling_thread_stops_the_batch(engine_231, declare_gil, monkeypatch, pool):
    """Ctrl-C reaching the calling thread (interrupt_main, as a SIGINT does) while
    the batch runs: the batch raises KeyboardInterrupt, starts nothing more, and
    its threads are gone."""
    declare_gil(engine_231, "2.3.1", pool)
    impl = engine_231.implementation("2.3.1")
    real = impl.extract
    calls: list = []
    marker = "MARK-INT"

    def extract(**args):
        calls.append(args["filecontent"])
        if marker in args["filecontent"]:
            _thread.interrupt_main()
        return real(**args)

    monkeypatch.setattr(impl, "extract", extract)
    pages = _marked(300, {30: marker})
    with pytest.raises(KeyboardInterrupt):
        engine_231.extract_batch(pages, threads=2)
        for _ in range(10_000_000):  # the interrupt is delivered between bytecodes, never later than this
            pass
    assert len(calls) < len(pages) // 2
    assert not _batch_threads()


# --- pyarrow ---------------------------------------------------------------------------

@pytest.mark.parametrize("pool", POOL)
def test_pyarrow_string_columns_with_nulls(engine_231, declare_gil, pool):
    pa = pytest.importorskip("pyarrow")
    declare_gil(engine_231, "2.3.1", pool)
    pages = generated_pages(14, 20)
    pages[3] = None
    expected = _loop(engine_231, pages)
    columns = [pa.array(pages, pa.string()), pa.array(pages, pa.large_string()),
               pa.chunked_array([pa.array(pages[:7], pa.string()), pa.array(pages[7:], pa.string())])]
    if hasattr(pa, "string_view"):
        columns.append(pa.array(pages, pa.string_view()))
        columns.append(pa.chunked_array([pa.array(pages[:11], pa.string_view()), pa.array(pages[11:], pa.string_view())]))
    for column in columns:
        with _engine_context(engine_231.name):
            assert _batch.plan(column, 2)[0] == ("pool" if pool else "loop")
        assert engine_231.extract_batch(column, threads=2) == expected, column.type
    sliced = pa.array(pages, pa.string()).slice(5, 9)
    assert engine_231.extract_batch(sliced, threads=2) == expected[5:14]


def test_pyarrow_binary_and_other_columns(engine_231):
    pa = pytest.importorskip("pyarrow")
    pages = [p.encode() for p in generated_pages(15, 6) if p is not None] + [None]
    assert engine_231.extract_batch(pa.array(pages, pa.binary())) == _loop(engine_231, pages)
    with pytest.raises(TypeError, match="must hold strings"):
        engine_231.extract_batch(pa.array([1, 2, 3]))


def test_pyarrow_is_not_imported_for_lists(engine_231):
    import subprocess

    code = ("import sys, trafila; trafila.extract_batch(['<p>x</p>', '<p>y</p>'], threads=2); "
            "print('pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- delegated pages ------------------------------------------------------------------------

@needs_trafilatura_231
@pytest.mark.filterwarnings("ignore::trafila.FallbackWarning")
def test_a_delegated_first_page_turns_the_pool_into_the_loop(engine_231, declare_gil, monkeypatch):
    """prune_xpath is handed to trafilatura by the engine (NotNative): the
    batch sees it on page 0 and runs the rest on the calling thread; same results."""
    declare_gil(engine_231, "2.3.1", True)
    pages = [p for p in generated_pages(16, 8) if p]
    seen: list = []
    with _engine_context(engine_231.name):
        assert _batch.plan(pages, 2, prune_xpath="//body//footer")[0] == "pool"
        got = _batch.run_batch(pages, 2, {"prune_xpath": "//body//footer"}, observe=lambda i, d: seen.append((i, d)))
    assert got == _loop(engine_231, pages, prune_xpath="//body//footer")
    assert seen == [(i, True) for i in range(len(pages))]
    assert not _batch_threads()


# --- the harness candidate ------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["reference-batch", "reference-batch-pool:2"])
def test_harness_batch_candidate_answers_each_page_as_extract(spec, monkeypatch):
    """The parity harness's batch candidate: one batch per (option set, form), each
    call answered from it, a page that raises raising the same, the batch going on after it."""
    from harness.candidates import TrafilaCandidate, make_candidate

    cand, single = make_candidate(spec), TrafilaCandidate("reference")
    _failing_extract(monkeypatch, trafila.engine("reference"), "2.3.1", {"MARK-H": BatchTestError}, [])
    pages = [p for p in _marked(16, {6: "MARK-H", 11: "MARK-H"}) if p is not None]
    options = {"fast": True}
    cand.prepare_batch("extract", pages, options, "2.3.1", 60.0)
    for page in pages:
        if "MARK-H" in page:
            with pytest.raises(BatchTestError):
                cand.call("extract", page, options, "2.3.1")
        else:
            assert cand.call("extract", page, options, "2.3.1") == single.call("extract", page, options, "2.3.1")
    assert cand.batched_calls == len(pages) and cand.unbatched_calls == 0
    # a call that is not the batch's next page goes through extract alone
    assert cand.call("extract", pages[0], options, "2.3.1") == single.call("extract", pages[0], options, "2.3.1")
    assert cand.unbatched_calls == 1


def test_bench_batches_time_the_three_side_by_side(engine_231):
    from harness.bench import run_batches

    res = run_batches([engine_231.name], "2.3.1", ["fast", "fast-dedup", "bare"], ["synthetic"], every=16, rounds=2,
                      log=lambda message: None)
    assert set(res["rows"]) == {f"{engine_231.name} / fast", f"{engine_231.name} / fast-dedup"}  # extract sets only
    pool = getattr(engine_231.implementation("2.3.1"), "releases_gil", False)
    fast, dedup = res["rows"][f"{engine_231.name} / fast"], res["rows"][f"{engine_231.name} / fast-dedup"]
    for row in (fast, dedup):
        assert row["pages"] >= 3 and row["mismatches"] == 0
    assert fast["path"].startswith("pool" if pool else "processes" if engine_231.name == "core" else "loop")
    if fast["path"].startswith("processes"):  # pages 1 onwards of each timed batch: the workers gave some
        assert fast["worker_pages"] > 0 and fast["worker_pages"] + fast["here_pages"] == (fast["pages"] - 1) * 2
    assert dedup["path"].startswith("loop: deduplication")
    # an engine holding the GIL has its pool timed anyway (and its results checked); dedup sets never
    forced = set() if pool else {"threads=2, pool forced"}
    # the machine's ceiling (two processes of harness.bench_share, their counts of results checked): no dedup set
    assert set(fast["seconds"]) == {"loop", "threads=1", "threads=2", "ceiling: 2 processes"} | forced
    assert fast["shares2_over_loop"] > 0 and fast["threads2_over_shares2"] > 0
    assert (fast["forced_pool_over_threads1"] is None) == pool
    assert set(dedup["seconds"]) == {"loop", "threads=1", "threads=2"} and dedup["forced_pool_over_threads1"] is None
    assert dedup["shares2_over_loop"] is None
