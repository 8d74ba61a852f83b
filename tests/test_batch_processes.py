"""extract_batch's worker processes (trafila._workers): the loop's results, errors and records.

The core holds the GIL while it extracts, so its batches run on worker
processes. Every test runs over each built engine that runs the mode: on the
reference the batch takes the loop (asserted), on the core the workers.
"""

from __future__ import annotations

import _thread
import logging
import os
import threading
import time

import pytest

from trafila import _batch, _engine, _workers

from ._batch_faults import BatchFault
from ._batch_faults import faulty as _faulty
from .test_batch import _engine_context, _loop, generated_pages

FAULTS = "tests._batch_faults"


@pytest.fixture(autouse=True)
def fresh_pool():
    """Each test starts and ends without worker processes (a test's env must not leak into the next one's)."""
    _workers.shutdown()
    yield
    _workers.shutdown()


def _path(engine, pages, **options) -> str:
    with _engine_context(engine.name):
        return _batch.plan(pages, 2, **options)[0]


def _on_processes(engine, pages, **options) -> bool:
    """Whether this engine's batch takes the worker processes (the core); the reference takes the loop."""
    path = _path(engine, pages, **options)
    assert path == ("loop" if engine.name == "reference" else "processes")
    return path == "processes"


def _worker_pids() -> list:
    assert _workers._POOL is not None
    return [worker.process.pid for worker in _workers._POOL.workers]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_ready(threads: int = 2) -> None:
    with _workers._LOCK:
        assert _workers.pool_for(threads).wait_ready(60)


OPTION_SETS = [
    ("2.3.1", {}), ("2.3.1", {"fast": True}), ("2.3.1", {"favor_precision": True, "include_comments": False}),
    ("2.3.1", {"output_format": "markdown", "include_links": True}), ("2.3.1", {"include_formatting": True}),
    ("1.11.0", {}), ("1.11.0", {"no_fallback": True}),
]


@pytest.mark.parametrize("mode,options", OPTION_SETS, ids=lambda o: o if isinstance(o, str) else ",".join(o) or "default")
def test_equal_to_the_loop_on_worker_processes(engine, mode, options):
    if mode not in engine.modes:
        pytest.skip(f"engine {engine.name!r} does not run {mode}")
    pages = generated_pages(21, 80)
    kwargs = dict(options, compat=mode)
    on_processes = _on_processes(engine, pages, **kwargs)
    expected = _loop(engine, pages, **kwargs)
    if on_processes:
        _wait_ready()
    assert engine.extract_batch(pages, threads=2, **kwargs) == expected
    assert sum(r is not None for r in expected) > 20
    if not on_processes:
        assert _workers._POOL is None  # the reference started no process
        return
    first = _worker_pids()
    assert len(first) == 2 and os.getpid() not in first and all(_alive(pid) for pid in first)
    assert _workers._POOL.last_run["by workers"] > len(pages) // 2
    # the pool is kept: the next batch runs on the same processes, with the same results
    assert engine.extract_batch(tuple(pages), threads=2, **kwargs) == expected
    assert _worker_pids() == first


def test_a_first_batch_does_not_wait_for_the_workers(engine_231):
    """The workers take about half a second to start: a first batch runs its pages here meanwhile."""
    pages = generated_pages(22, _workers.START_AFTER_PAGES + 6)
    expected = _loop(engine_231, pages)
    assert engine_231.extract_batch(pages, threads=2) == expected
    if _on_processes(engine_231, pages):
        assert _workers._POOL is not None and _workers._POOL.last_run["here"] >= 1


def test_small_batches_start_no_process_until_they_add_up(engine_231):
    """A script that extracts a few pages once pays for no worker start; batches that add up
    to START_AFTER_PAGES pages start the workers, and every later batch takes them."""
    small = generated_pages(35, 10)  # 14 pages
    expected = _loop(engine_231, small)
    on_processes = _on_processes(engine_231, small)
    batches_before_start = -(-_workers.START_AFTER_PAGES // (len(small) - 1))  # page 0 of each runs here
    for number in range(1, batches_before_start + 2):
        assert engine_231.extract_batch(small, threads=2) == expected
        started = _workers._POOL is not None
        assert started == (on_processes and number >= batches_before_start), number
    if on_processes:
        _wait_ready()
        assert engine_231.extract_batch(small[:3], threads=2) == expected[:3]  # small, but the workers are there
        assert _workers._POOL.last_run["by workers"] >= 1 and sum(_workers._POOL.last_run.values()) == 2
    _workers.shutdown()  # and forgets the pages offered: a small batch after it starts nothing
    assert engine_231.extract_batch(small, threads=2) == expected
    assert _workers._POOL is None


def test_a_pyarrow_column_on_worker_processes(engine_231):
    pa = pytest.importorskip("pyarrow")
    pages = [p for p in generated_pages(23, 40) if p is None or p.isascii() or _utf8(p)]  # arrow holds UTF-8
    pages[5] = None
    column = pa.chunked_array([pa.array(pages[:17], pa.string()), pa.array(pages[17:], pa.string())])
    if _on_processes(engine_231, column):
        _wait_ready()
    assert engine_231.extract_batch(column, threads=2) == _loop(engine_231, pages)


def _utf8(page: str) -> bool:
    try:
        page.encode("utf-8")
        return True
    except UnicodeEncodeError:  # a lone surrogate from the generator
        return False


def test_records_are_the_loops_in_page_order(engine_231, caplog):
    """A page whose extraction logs past this process's trafila loggers is run here, so the
    records (and their order) are the loop's; with DEBUG on, that is nearly every page."""
    pages = generated_pages(24, 40)
    if _on_processes(engine_231, pages):
        _wait_ready()
    for level in (logging.WARNING, logging.DEBUG):
        caplog.clear()
        caplog.set_level(level, logger="trafila")
        expected = _loop(engine_231, pages)
        loop_records = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
        caplog.clear()
        assert engine_231.extract_batch(pages, threads=2) == expected
        assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == loop_records
        assert any(r[1] >= logging.WARNING for r in loop_records)  # "discarding data" on the empty pages
        if _workers._POOL is not None:
            assert _workers._POOL.last_run["here"] >= sum(1 for r in loop_records if r[1] >= logging.WARNING) // 2


def test_errors_raise_in_page_order_and_end_the_pool(engine_231, monkeypatch):
    """Pages 9 and 4 raise in the workers; the batch raises page 4's exception, as the loop
    does, after running it here; the pool is closed (its workers may be mid-chunk)."""
    monkeypatch.setenv("TRAFILA_BATCH_WORKER_IMPORT", FAULTS)
    impl = engine_231.implementation("2.3.1")
    # this process raises the same on those pages; the workers run the same code (imported there)
    monkeypatch.setattr(impl, "extract", _faulty(impl.extract))
    monkeypatch.setattr(impl, "extract_as_loaded", impl.extract, raising=False)
    pages = generated_pages(25, 60)
    pages[9] = "<html><body><p>MARK-FAULT nine</p></body></html>"
    pages[4] = "<html><body><p>MARK-FAULT four</p></body></html>"
    on_processes = _on_processes(engine_231, pages)
    if on_processes:
        _wait_ready()
        pids = _worker_pids()
    with pytest.raises(BatchFault) as info:
        engine_231.extract_batch(pages, threads=2)
    assert str(info.value) == "MARK-FAULT four<"  # the first 16 characters from the mark
    assert _batch.failed_page(info.value) == 4
    assert info.value.__notes__[-1] == f"trafila.extract_batch: raised by page 4 of {len(pages)}"
    if on_processes:
        assert _workers._POOL is None
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in pids)
        # and a later batch starts afresh
        fine = [p for i, p in enumerate(pages) if i not in (4, 9)]
        assert engine_231.extract_batch(fine, threads=2) == _loop(engine_231, fine)


def test_a_worker_that_dies_loses_nothing(engine_231, monkeypatch):
    """A worker ends mid-batch (os._exit on page 30): its pages are run here; the results are the loop's."""
    monkeypatch.setenv("TRAFILA_BATCH_WORKER_IMPORT", FAULTS)
    pages = generated_pages(26, 80)
    pages[30] = "<html><body><article><p>" + "MARK-CRASH and a sentence long enough to be kept. " * 5 + "</p></article></body></html>"
    expected = _loop(engine_231, pages)
    assert expected[30]  # the calling process extracts it as usual
    if not _on_processes(engine_231, pages):
        assert engine_231.extract_batch(pages, threads=2) == expected
        return
    _wait_ready()
    assert engine_231.extract_batch(pages, threads=2) == expected
    last = _workers._POOL.last_run
    assert last["here"] >= 1 and last["by workers"] + last["here"] == len(pages) - 1
    assert not _workers._POOL.alive
    # the pool saw the crash (end of file on the worker's pipe); the kernel closes that pipe a little
    # before the process becomes a zombie, so on a loaded machine /proc may still show it exiting
    crashed = [worker.process.pid for worker in _workers._POOL.workers if not worker.alive]
    assert len(crashed) >= 1
    deadline = time.monotonic() + 5
    while any(_alive(pid) for pid in crashed) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in crashed)
    # the next batch replaces the pool
    assert engine_231.extract_batch(pages[31:], threads=2) == expected[31:]
    assert not set(_worker_pids()) & set(crashed)


def test_ctrl_c_stops_the_batch_within_a_second(engine_231, monkeypatch):
    """SIGINT reaching the calling thread while every worker is in a 30 s page: the batch
    raises KeyboardInterrupt at once and its workers are killed."""
    monkeypatch.setenv("TRAFILA_BATCH_WORKER_IMPORT", FAULTS)
    pages = generated_pages(27, 60)
    for i in range(1, 60, 3):
        pages[i] = f"<html><body><p>MARK-SLOW {i}</p></body></html>"
    if not _on_processes(engine_231, pages):
        return  # the reference's loop: tests/test_batch.py interrupts it
    _wait_ready()
    pids = _worker_pids()
    interrupted = []

    def interrupt() -> None:
        interrupted.append(time.monotonic())
        _thread.interrupt_main()

    timer = threading.Timer(1.0, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            engine_231.extract_batch(pages, threads=2)
            for _ in range(10_000_000):  # the interrupt is delivered between bytecodes, never later than this
                pass
        stopped = time.monotonic()
    finally:
        timer.cancel()
    assert interrupted and stopped - interrupted[0] < 1.0
    assert _workers._POOL is None
    time.sleep(0.2)
    assert not any(_alive(pid) for pid in pids)


def test_a_changed_default_config_is_honoured(engine_231):
    """DEFAULT_CONFIG changed in place in this process: the workers (which read theirs from
    the settings file) are not used, and the results follow the changed config as the loop's do."""
    config = engine_231.implementation("2.3.1").DEFAULT_CONFIG
    saved = config.get("DEFAULT", "MIN_OUTPUT_SIZE")
    pages = generated_pages(28, 40)
    on_processes = _on_processes(engine_231, pages)
    if on_processes:
        _wait_ready()
    baseline = _loop(engine_231, pages)
    config.set("DEFAULT", "MIN_OUTPUT_SIZE", "100000")
    try:
        expected = _loop(engine_231, pages)
        assert expected != baseline
        assert engine_231.extract_batch(pages, threads=2) == expected
        if on_processes:
            assert _workers._POOL.last_run == {"by workers": 0, "here": len(pages) - 1}
    finally:
        config.set("DEFAULT", "MIN_OUTPUT_SIZE", saved)
    assert engine_231.extract_batch(pages, threads=2) == baseline
    if on_processes:
        assert _workers._POOL.last_run["by workers"] > 0


def test_a_replaced_extract_keeps_the_batch_here(engine_231, monkeypatch):
    """A tool or test that replaces the engine's extract sees every page: the batch runs the loop."""
    impl = engine_231.implementation("2.3.1")
    real, seen = impl.extract, []

    def spy(**args):
        seen.append(args["filecontent"])
        return real(**args)

    monkeypatch.setattr(impl, "extract", spy)
    pages = [p for p in generated_pages(29, 20) if p is not None]
    assert engine_231.extract_batch(pages, threads=2) == [real(**dict(_args(p))) for p in pages]
    assert seen == pages
    assert _workers._POOL is None


def _args(page: str) -> dict:
    from trafila import DEFAULT_MODE

    return {"filecontent": page, "config": _engine.implementation(DEFAULT_MODE).DEFAULT_CONFIG}


def test_the_look_ahead_is_bounded(engine_231, monkeypatch):
    """No more than LOOKAHEAD_PAGES per worker pages are taken from ``pages`` ahead of the oldest
    page not yet committed (the chunk being filled aside)."""
    pages = generated_pages(30, 400)
    taken = []
    real_pages = _batch._pages

    def counting(batch):
        wrapped = real_pages(batch)
        items = wrapped.items

        def counted():
            for page in items():
                taken.append(1)
                yield page

        wrapped.items = counted
        return wrapped

    monkeypatch.setattr(_batch, "_pages", counting)
    if _on_processes(engine_231, pages):
        _wait_ready()
    ahead = []
    with _engine_context(engine_231.name):
        got = _batch.run_batch(pages, 2, {}, observe=lambda index, delegated: ahead.append(len(taken) - index))
    assert got == _loop(engine_231, pages)
    assert max(ahead) <= _workers.LOOKAHEAD_PAGES * 2 + 1
    if engine_231.name == "core":
        assert max(ahead) > 2  # the workers did run ahead


def test_no_worker_processes_when_switched_off(engine_231, monkeypatch):
    monkeypatch.setenv("TRAFILA_BATCH_PROCESSES", "0")
    pages = generated_pages(31, 10)
    with _engine_context(engine_231.name):
        # the json output is serialised in Python, holding the GIL: the loop then
        path, why = _batch.plan(pages, 2, output_format="json")
        # the core's C sequence releases the GIL for the default options: threads then
        native = _batch.plan(pages, 2)[0]
    assert path == "loop"
    assert native == ("pool" if engine_231.name == "core" else "loop")
    assert engine_231.extract_batch(pages, threads=2, output_format="json") == _loop(engine_231, pages,
                                                                                       output_format="json")
    assert engine_231.extract_batch(pages, threads=2) == _loop(engine_231, pages)
    assert _workers._POOL is None


def test_pages_larger_than_a_shared_slot(engine_231):
    """A page longer than a worker's slot of shared memory goes through the pipe; one that fits
    a slot but not what is left of it starts the next chunk's: the results are the loop's."""
    rng_pages = generated_pages(32, 24)
    paragraph = "<p>Ünïcode text, a sentence long enough to be kept by the extraction. €</p>"
    big = "<html><body><article>" + paragraph * (_workers.SLOT_BYTES // len(paragraph) + 10) + "</article></body></html>"
    # under CHUNK_CHARS characters, so the next page joins its chunk, but 3 bytes a character in UTF-8
    wide = "<p>" + "中文的句子，足够长。" * 20 + "</p>"
    half = "<html><body><article>" + wide * (int(_workers.CHUNK_CHARS * 0.9) // len(wide)) + "</article></body></html>"
    pages = rng_pages[:8] + [big] + rng_pages[8:12] + [half, half, half] + rng_pages[12:]
    assert len(big.encode()) > _workers.SLOT_BYTES and len(half) < _workers.CHUNK_CHARS
    assert len(half.encode()) < _workers.SLOT_BYTES < 2 * len(half.encode())
    expected = _loop(engine_231, pages)
    if _on_processes(engine_231, pages):
        _wait_ready()
    assert engine_231.extract_batch(pages, threads=2) == expected
    if _workers._POOL is not None:
        assert _workers._POOL.last_run["by workers"] > 0


def test_a_sender_that_fails_loses_nothing(engine_231, monkeypatch):
    """The thread writing to a worker fails on a chunk: it closes the worker's input, the
    worker exits, and its pages run here; the batch neither hangs nor differs from the loop."""
    pages = generated_pages(33, 80)
    expected = _loop(engine_231, pages)
    if not _on_processes(engine_231, pages):
        assert engine_231.extract_batch(pages, threads=2) == expected
        return
    _wait_ready()
    if _workers._POOL.workers[0].shared is None:
        pytest.skip("the pages go through the pipe here (no memfd): no _share to fail")
    real, calls = _workers._Worker._share, []

    def failing(self, message):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("injected")
        return real(self, message)

    monkeypatch.setattr(_workers._Worker, "_share", failing)
    assert engine_231.extract_batch(pages, threads=2) == expected
    assert _workers._POOL.last_run["here"] >= 1 and not _workers._POOL.alive


def test_pages_of_every_str_kind_go_as_code_units(engine_231, monkeypatch):
    """The calling process copies each str page's PEP 393 buffer into the shared memory
    as it is (Latin-1, UCS-2 with lone surrogates, UCS-4) and the worker makes the same str:
    the results are the loop's, and no page took the UTF-8 way."""
    paragraph = "<p>A sentence long enough to be kept by the extraction, {}.</p>"
    words = ["plain ASCII", "café crème à la carte", "euro € and ﬁ ligature", "lone \ud800 surrogate",
             "astral 😀 and \udc00 low surrogate", "中文的句子，足够长", ""]
    pages = [f"<html><body><article>{paragraph.format(w) * 6}</article></body></html>" for w in words]
    pages = (pages + generated_pages(34, 30)) * 2
    expected = _loop(engine_231, pages)
    if not _on_processes(engine_231, pages):
        assert engine_231.extract_batch(pages, threads=2) == expected
        return
    put, take = _workers._str_units()
    kinds: list = []

    def spying_put(page, into, offset, end):
        kind = put(page, into, offset, end)
        kinds.append(kind)
        return kind

    monkeypatch.setattr(_workers, "_str_units", lambda: (spying_put, take))
    _wait_ready()
    if _workers._POOL.workers[0].shared is None:
        pytest.skip("the pages go through the pipe here (no memfd)")
    assert engine_231.extract_batch(pages, threads=2) == expected
    assert _workers._POOL.last_run["by workers"] > len(pages) // 2
    assert {1, 2, 4} <= set(kinds) and 0 not in kinds
