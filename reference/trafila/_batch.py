"""``extract_batch``: many pages in one call, with the loop's results.

``extract_batch(pages, **kwargs)`` always returns ``[extract(p, **kwargs) for
p in pages]``. How it gets there is one of three paths, chosen per batch by
:func:`plan`:

* **the loop** -- the pages one after another on the calling thread, through
  ``trafila.extract``. This is the path for ``threads=1``, for deduplication
  (``deduplicate=True`` or an ``LRUCache``: the cache sees the pages in page
  order, so it ends as the loop leaves it), for ``options=``, for a batch with
  an item that is not ``str`` (bytes are decoded and checked in Python), for
  options handed to trafilatura, and for the reference engine (pure Python,
  the specification).
* **the worker processes** -- for an engine whose extraction holds the GIL (the
  core: threads would only take turns): page 0 runs on the calling thread, the
  rest on ``threads`` worker processes kept between batches, committed in page
  order; a page whose extraction a worker could not give exactly (it raised,
  warned, logged or delegated) runs again on the calling thread, so its effects
  come where the loop's do (:mod:`trafila._workers`).
* **the pool** -- when the engine's :class:`~trafila._engine.Implementation`
  declares ``releases_gil = True`` (or, where worker processes cannot be
  started, ``releases_gil_for(kwargs)`` says these options run without the
  GIL: the core's 2.3.1 `fast`): page 0 runs on the calling thread (when
  trafila hands it to trafilatura, the rest of the batch runs the loop), then
  the other pages go to ``threads`` threads of trafila's own, created for the
  call and joined before it returns. The calling thread feeds them through a
  queue of at most ``LOOKAHEAD_PER_THREAD * threads`` pages, so at most that
  many pages plus ``threads`` in flight are taken from ``pages`` ahead of the
  oldest unfinished one (a pyarrow column is converted to Python strings
  ``ARROW_BLOCK`` values at a time, on the way into that queue).

Errors are the loop's: when pages raise, the batch raises what the page with
the lowest index raised (the one the loop would have stopped at), with a note
``trafila.extract_batch: raised by page I of N``; pages after it are not
started once it is known. A ``KeyboardInterrupt`` (or any BaseException that
is not an Exception) stops the batch at once: the queue is emptied, no page is
started, the threads finish the page they are on and are joined (for at most
``JOIN_SECONDS``; they are daemon threads, so a page that runs on does not keep
the interpreter alive). The calling thread never waits more than
``POLL_SECONDS`` at a time, so Ctrl-C reaches it promptly.
"""

from __future__ import annotations

import contextvars
import os
import pickle
import queue
import re
import sys
import threading
import time
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, Union, overload

from . import _engine, _route, _workers

__all__ = ["extract_batch", "default_threads", "plan", "failed_page"]

#: a page: what ``extract`` takes (None comes from a pyarrow null)
Page = Union[str, bytes, None]

#: the default thread count is the CPUs this process may use, at most this many
MAX_DEFAULT_THREADS = 32
#: pages queued ahead of the workers, per thread
LOOKAHEAD_PER_THREAD = 4
#: pyarrow values converted to Python at a time
ARROW_BLOCK = 256
#: the longest the calling thread blocks in one wait (Ctrl-C is seen between waits)
POLL_SECONDS = 0.05
#: after an interrupt, how long the threads are given to finish their page
JOIN_SECONDS = 1.0

_NOTE = "trafila.extract_batch: raised by page {index} of {count}"
_NOTE_RE = re.compile(r"^trafila\.extract_batch: raised by page (\d+) of (\d+)$")


def default_threads() -> int:
    """The thread count of ``threads=None``: the CPUs this process may run on
    (``os.process_cpu_count()``, else the scheduler affinity, else
    ``os.cpu_count()``), at least 1 and at most :data:`MAX_DEFAULT_THREADS`."""
    count: Optional[int] = None
    process_cpu_count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if process_cpu_count is not None:
        count = process_cpu_count()
    if count is None and hasattr(os, "sched_getaffinity"):
        count = len(os.sched_getaffinity(0))
    if count is None:
        count = os.cpu_count()
    return max(1, min(count or 1, MAX_DEFAULT_THREADS))


def _thread_count(threads: Optional[int]) -> int:
    if threads is None:
        return default_threads()
    if isinstance(threads, bool) or not isinstance(threads, int):
        raise TypeError(f"extract_batch: threads must be an int or None, not {type(threads).__name__}")
    if threads < 1:
        raise ValueError(f"extract_batch: threads must be at least 1, not {threads}")
    return threads


# --- the pages -----------------------------------------------------------------

class _Pages:
    """The batch's pages: how many, whether all are str (or None), and an
    iterator over them that converts a pyarrow column block by block."""

    def __init__(self, count: int, all_text: bool, items: Callable[[], Iterator[Page]]) -> None:
        self.count = count
        self.all_text = all_text
        self.items = items


def _is_arrow(obj: Any) -> bool:
    return type(obj).__module__.partition(".")[0] == "pyarrow"


def _arrow_pages(column: Any) -> _Pages:
    import pyarrow as pa  # noqa: PLC0415 - only for a pyarrow column

    types = pa.types
    kind = column.type
    text_types = [types.is_string, types.is_large_string, getattr(types, "is_string_view", None)]
    binary_types = [types.is_binary, types.is_large_binary, getattr(types, "is_binary_view", None)]
    is_text = any(t is not None and t(kind) for t in text_types)
    if not is_text and not any(t is not None and t(kind) for t in binary_types):
        raise TypeError(f"extract_batch: a pyarrow column of pages must hold strings (or binary), not {kind}")
    if isinstance(column, pa.ChunkedArray):
        chunks: Sequence[Any] = column.chunks
    elif isinstance(column, pa.Array):
        chunks = [column]
    else:
        raise TypeError(f"extract_batch: pages must be a pyarrow Array or ChunkedArray, not {type(column).__name__}")

    def items() -> Iterator[Page]:
        for chunk in chunks:
            for start in range(0, len(chunk), ARROW_BLOCK):
                yield from chunk.slice(start, ARROW_BLOCK).to_pylist()

    return _Pages(len(column), is_text, items)


def _pages(pages: Any) -> _Pages:
    if isinstance(pages, (list, tuple)):
        all_text = all(p is None or type(p) is str for p in pages)
        return _Pages(len(pages), all_text, lambda: iter(pages))
    if _is_arrow(pages):
        return _arrow_pages(pages)
    raise TypeError(
        "extract_batch: pages must be a list or tuple of pages, a pyarrow string column, or one str page; "
        f"got {type(pages).__name__}"
    )


# --- errors --------------------------------------------------------------------

def _add_note(exc: BaseException, note: str) -> None:
    """PEP 678's add_note; before Python 3.11, the ``__notes__`` list it
    maintains (which 3.11+ tracebacks and the exceptiongroup backport show)."""
    try:
        if sys.version_info >= (3, 11):
            exc.add_note(note)
            return
        notes = getattr(exc, "__notes__", None)
        if notes is None:
            exc.__notes__ = [note]  # type: ignore[attr-defined]
        elif isinstance(notes, list):
            notes.append(note)
    except (AttributeError, TypeError):  # an exception that takes no attributes, or odd __notes__
        pass


def failed_page(exc: BaseException) -> Optional[int]:
    """The index of the page whose extraction raised ``exc`` in a batch (from
    the note extract_batch added), or None when it did not come from a page."""
    for note in reversed(getattr(exc, "__notes__", None) or ()):
        match = _NOTE_RE.match(note) if isinstance(note, str) else None
        if match:
            return int(match.group(1))
    return None


def _note_page(exc: BaseException, index: int, count: int) -> BaseException:
    _add_note(exc, _NOTE.format(index=index, count=count))
    return exc


# --- which path ------------------------------------------------------------------

def _current_engine() -> Optional[str]:
    from . import _CALL_ENGINE  # noqa: PLC0415 - the package is loaded by the time a batch runs

    return _CALL_ENGINE.get()


def plan(pages: Any, threads: Optional[int] = None, **kwargs: Any) -> Tuple[str, str]:
    """``("pool", why)`` or ``("loop", why)``: the path :func:`extract_batch`
    takes for these arguments (before page 0 is run: a page 0 that is handed to
    trafilatura turns the pool into the loop)."""
    if isinstance(pages, (str, bytes)):
        return "loop", "a single page"
    return _plan(_pages(pages), _thread_count(threads), kwargs)


def _plan(batch: _Pages, threads: int, kwargs: dict) -> Tuple[str, str]:
    if threads == 1:
        return "loop", "threads=1"
    if batch.count < 2:
        return "loop", "fewer than two pages"
    if kwargs.get("deduplicate"):
        return "loop", "deduplication: the pages go through the cache in page order"
    if kwargs.get("options") is not None:
        return "loop", "options= (it may carry a deduplication cache)"
    if not batch.all_text:
        return "loop", "an item is not a str (decoded and checked in Python)"
    from . import DEFAULT_MODE  # noqa: PLC0415

    mode = kwargs.get("compat", DEFAULT_MODE)
    try:
        route = _route.route("extract", mode, dict(kwargs, filecontent=""), _current_engine())
    except Exception:  # noqa: BLE001 - a bad mode or engine: the loop raises what extract raises
        return "loop", "no engine runs this mode"
    engine = route.engine
    path, how = "pool", f"{threads} threads"
    if not route.engine_releases_gil:
        threads_ok = route.releases_gil
        if engine == "reference":
            return "loop", f"engine {engine!r} holds the GIL while it extracts"
        why = _workers.available()
        if why is not None:
            if threads_ok:
                return "pool", f"{threads} threads (engine {engine!r} runs these options without the GIL; {why})"
            return "loop", f"engine {engine!r} holds the GIL while it extracts, and {why}"
        # these options without the GIL: still processes while a share of each page holds the GIL
        # (measured: docs/ARCHITECTURE.md)
        path, how = "processes", (
            f"{threads} worker processes (engine {engine!r} runs these options without the GIL for most of each "
            "page; processes still give more)" if threads_ok
            else f"{threads} worker processes (engine {engine!r} holds the GIL while it extracts)")
    if mode == "2.3.1" and kwargs.get("no_fallback"):
        return "loop", "no_fallback (its DeprecationWarning points at the caller's line)"
    if route.path == "trafilatura":
        return "loop", f"handed to trafilatura: {route.reason}"
    return path, how


# --- the two paths ------------------------------------------------------------------

#: observe(index, delegated): told after each page whether trafila handed it to trafilatura (on the pool,
#: a page counts when any page was handed over while it ran: an upper bound)
Observer = Callable[[int, bool], None]


def _delegated_calls() -> int:
    from . import _delegation  # noqa: PLC0415

    return _delegation.delegated_calls


def _loop(extract: Callable[..., Any], items: Iterator[Page], start: int, stop: int, count: int, kwargs: dict,
          results: List[Any], observe: Optional[Observer]) -> None:
    """Pages ``start`` to ``stop - 1`` (of ``count``) one after another on the calling thread."""
    for index in range(start, stop):
        _run_here(extract, next(items), index, count, kwargs, results, observe)


def _run_here(extract: Callable[..., Any], page: Page, index: int, count: int, kwargs: dict,
              results: List[Any], observe: Optional[Observer]) -> None:
    """Page ``index`` (of ``count``) extracted on the calling thread, its result appended to ``results``."""
    before = _delegated_calls() if observe is not None else 0
    try:
        results.append(extract(page, **kwargs))
    except BaseException as exc:  # noqa: BLE001 - re-raised with the page's index
        _note_page(exc, index, count)
        raise
    if observe is not None:
        observe(index, _delegated_calls() != before)


class _Pool:
    """Worker threads extracting pages fed by the calling thread (see the module docstring)."""

    def __init__(self, extract: Callable[..., Any], kwargs: dict, threads: int, results: List[Any], count: int) -> None:
        self.extract = extract
        self.kwargs = kwargs
        self.results = results
        self.count = count
        self.tasks: "queue.Queue[Optional[Tuple[int, Page]]]" = queue.Queue(maxsize=LOOKAHEAD_PER_THREAD * threads)
        self.cond = threading.Condition()
        self.finished = 0  # pages done, failed or skipped
        self.first_error = count  # the lowest index that raised an Exception
        self.errors: dict = {}
        self.fatal: Optional[Tuple[int, BaseException]] = None  # a BaseException that is not an Exception
        self.stop = False
        self.delegated: dict = {}  # index -> whether trafilatura was called while the page ran
        self.threads = [
            threading.Thread(target=contextvars.copy_context().run, args=(self._work,),
                             name=f"trafila-batch-{i}", daemon=True)
            for i in range(threads)
        ]

    def _work(self) -> None:
        while True:
            task = self.tasks.get()
            if task is None:
                return
            index, page = task
            if self.stop or index > self.first_error:
                with self.cond:
                    self.finished += 1
                    self.cond.notify_all()
                continue
            before = _delegated_calls()
            try:
                result = self.extract(page, **self.kwargs)
            except Exception as exc:  # noqa: BLE001 - kept for the calling thread
                with self.cond:
                    self.errors[index] = exc
                    self.first_error = min(self.first_error, index)
                    self.finished += 1
                    self.cond.notify_all()
                continue
            except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt & co: stop everything
                with self.cond:
                    if self.fatal is None:
                        self.fatal = (index, exc)
                    self.stop = True
                    self.finished += 1
                    self.cond.notify_all()
                continue
            self.results[index] = result
            self.delegated[index] = _delegated_calls() != before
            with self.cond:
                self.finished += 1
                self.cond.notify_all()

    def _put(self, task: Optional[Tuple[int, Page]]) -> bool:
        """Queue a task, waiting in short steps; False when the batch stopped meanwhile."""
        while True:
            if self.fatal is not None:
                return False
            try:
                self.tasks.put(task, timeout=POLL_SECONDS)
                return True
            except queue.Full:
                continue

    def run(self, items: Iterator[Page], start: int) -> None:
        for thread in self.threads:
            thread.start()
        fed = start
        try:
            for index in range(start, self.count):
                if self.fatal is not None or index > self.first_error:
                    break
                if not self._put((index, next(items))):
                    break
                fed += 1
            with self.cond:
                while self.finished < fed - start and self.fatal is None:
                    self.cond.wait(POLL_SECONDS)
        except BaseException:  # Ctrl-C (or anything else) in the calling thread: stop the threads, then re-raise
            self._shut_down(interrupted=True)
            raise
        self._shut_down(interrupted=self.fatal is not None)
        if self.fatal is not None:
            index, exc = self.fatal
            self.fatal = None
            raise _note_page(exc, index, self.count)
        if self.errors:
            index = min(self.errors)
            exc = self.errors.pop(index)
            self.errors.clear()
            raise _note_page(exc, index, self.count)

    def _shut_down(self, interrupted: bool) -> None:
        """Empty the queue (an interrupted batch starts nothing more), tell every
        thread to end, and join them (for at most JOIN_SECONDS when interrupted)."""
        if interrupted:
            self.stop = True
            while True:
                try:
                    self.tasks.get_nowait()
                except queue.Empty:
                    break
        for _ in self.threads:
            while True:  # the queue has room for every sentinel once it is drained; workers drain it otherwise
                try:
                    self.tasks.put(None, timeout=POLL_SECONDS)
                    break
                except queue.Full:
                    continue
        deadline = time.monotonic() + JOIN_SECONDS if interrupted else None
        for thread in self.threads:
            if deadline is None:
                while thread.is_alive():
                    thread.join(POLL_SECONDS)
            else:
                thread.join(max(0.0, deadline - time.monotonic()))


def run_batch(pages: Any, threads: Optional[int], kwargs: dict, observe: Optional[Observer] = None,
              force_pool: bool = False, into: Optional[List[Any]] = None) -> List[Any]:
    """extract_batch's work. ``observe`` is told after each page whether it was
    handed to trafilatura (the harness counts it); ``force_pool`` takes the pool
    even for an engine that does not declare ``releases_gil`` (the harness and
    tests use it to run the pool machinery over the reference: same results,
    no speed-up); ``into``: the list the results go to (when a page raises an
    Exception, it holds the results of every page before it)."""
    from . import extract  # noqa: PLC0415 - looked up per batch (tests monkeypatch it)

    batch = _pages(pages)
    count = _thread_count(threads)
    path, _why = _plan(batch, count, kwargs)
    if force_pool and path in ("loop", "processes") and count > 1 and batch.count > 1 and not kwargs.get("deduplicate") \
            and kwargs.get("options") is None:
        path = "pool"
    items = batch.items()
    results: List[Any] = [] if into is None else into
    del results[:]
    if path == "loop" or batch.count == 0:
        _loop(extract, items, 0, batch.count, batch.count, kwargs, results, observe)
        return results
    # page 0 on the calling thread: if trafila hands it to trafilatura, the batch is better off in the loop
    before = _delegated_calls()
    _loop(extract, items, 0, 1, batch.count, kwargs, results, None)
    delegated = _delegated_calls() != before
    if observe is not None:
        observe(0, delegated)
    if delegated:
        _loop(extract, items, 1, batch.count, batch.count, kwargs, results, observe)
        return results
    if path == "processes":
        _processes(extract, items, batch.count, count, kwargs, results, observe)
        return results
    results.extend([None] * (batch.count - 1))
    workers = min(count, batch.count - 1)
    pool = _Pool(extract, kwargs, workers, results, batch.count)
    pool.run(items, 1)
    if observe is not None:
        for index in range(1, batch.count):
            observe(index, pool.delegated.get(index, False))
    return results


def _processes(extract: Callable[..., Any], items: Iterator[Page], count: int, workers: int, kwargs: dict,
               results: List[Any], observe: Optional[Observer]) -> None:
    """Pages 1 to ``count - 1`` on the kept worker processes (:mod:`trafila._workers`),
    committed in page order; a page a worker could not give exactly runs here."""
    from . import DEFAULT_MODE, _CALL_ENGINE, _EXTRACT  # noqa: PLC0415

    def commit(index: int, page: Page, result: Any, redo: bool) -> None:
        if redo:
            _run_here(extract, page, index, count, kwargs, results, observe)
            return
        results.append(result)
        if observe is not None:
            observe(index, False)

    try:
        pickle.dumps(kwargs, protocol=pickle.HIGHEST_PROTOCOL)
        picklable = True
    except Exception:  # noqa: BLE001 - an argument that cannot be sent: the loop
        picklable = False
    impl = _engine.implementation(kwargs.get("compat", DEFAULT_MODE), _CALL_ENGINE.get())
    # a replaced trafila.extract or engine extract (tests, tools) runs only in this process: so does the batch
    patched = extract is not _EXTRACT or impl.extract is not getattr(impl, "extract_as_loaded", None)
    if not picklable or patched or not _workers._LOCK.acquire(blocking=False):
        # (the lock: another thread's batch has the pool)
        _loop(extract, items, 1, count, count, kwargs, results, observe)
        return
    try:
        if not _workers.worth_starting(count - 1):  # a small batch and no workers yet: this thread
            _loop(extract, items, 1, count, count, kwargs, results, observe)
            return
        try:
            pool = _workers.pool_for(workers)
        except OSError:  # no process could be started: the loop
            _loop(extract, items, 1, count, count, kwargs, results, observe)
            return
        try:
            pool.run(impl.engine, kwargs, items, 1, count, commit)
        except BaseException:
            _workers.discard(kill=True)  # its workers may be mid-chunk: a later batch starts fresh ones
            raise
    finally:
        _workers._LOCK.release()


@overload
def extract_batch(pages: Union[str, bytes], *, threads: Optional[int] = None, **kwargs: Any) -> Optional[str]: ...


@overload
def extract_batch(pages: Union[List[Page], Tuple[Page, ...]], *, threads: Optional[int] = None,
                  **kwargs: Any) -> List[Optional[str]]: ...


@overload
def extract_batch(pages: Any, *, threads: Optional[int] = None, **kwargs: Any) -> List[Optional[str]]: ...  # pyarrow


def extract_batch(pages: Any, *, threads: Optional[int] = None, **kwargs: Any) -> Any:
    """Extract many pages: always ``[trafila.extract(p, **kwargs) for p in pages]``.

    ``pages`` is a list or tuple of pages (str or bytes), or a pyarrow string
    (or binary) column -- ``Array`` (``string``, ``large_string``,
    ``string_view``) or ``ChunkedArray`` -- whose nulls give None; pyarrow is
    imported only for such a column. A single str (or bytes) page gives
    ``extract``'s result for it. ``kwargs`` are ``extract``'s keyword
    arguments, ``compat`` included.

    ``threads``: at most this many pages are extracted at once, when the
    batch allows it (no deduplication, only str pages, nothing handed to
    trafilatura): on worker processes of trafila's own for an engine whose
    extraction holds the GIL (the core), on threads for one that releases it;
    otherwise, and on the reference engine, the pages run one after another on
    the calling thread. ``threads=1`` is that loop; None (default) is
    :func:`default_threads`. With ``deduplicate=True`` or an ``LRUCache`` the
    pages go through the cache in page order, which afterwards equals the
    loop's. docs/API.md says more.

    Raises what ``extract`` raises for the first page (in page order) that
    raises, with the note ``trafila.extract_batch: raised by page I of N``
    (:func:`failed_page` reads it back). Ctrl-C stops the batch promptly.
    """
    if isinstance(pages, (str, bytes)):
        from . import extract  # noqa: PLC0415

        return extract(pages, **kwargs)
    return run_batch(pages, threads, kwargs)
