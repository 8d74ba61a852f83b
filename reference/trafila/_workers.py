"""``extract_batch``'s worker processes: pages in parallel while the engine holds the GIL.

The compiled core runs each release's stages as Python over its C document, so
its extraction holds the GIL for most of a page (``reports/gil.md``): threads
of one process would only take turns. Processes do not share a GIL, so for
such an engine ``extract_batch`` hands the pages to worker processes of
trafila's own -- ``threads`` of them -- and keeps the results in page order.

Exactness comes from one rule: a worker's result is used only for a page whose
extraction had no effect the calling process could see. A page whose
extraction raised, warned, logged a record the calling process's loggers would
let through, or was handed to trafilatura is marked *redo*, and the calling
process runs it again itself, in page order, as the loop would: its exception,
warnings, log records and delegation then happen where and when the loop's
do. Without deduplication (the batch takes the loop with it) an extraction
depends on nothing but its page and its arguments, so every other page's text
is the loop's.

The pool:

* **started once batches have offered** :data:`START_AFTER_PAGES` **pages, and
  kept** for the batches after it (the process, not the pool, is what costs:
  ``python -c`` importing trafila and the core takes about half a second, which
  a script extracting a handful of pages once would never win back), with as
  many workers as the batch's ``threads``;
  it is shut down at interpreter exit, by :func:`shutdown`, when a batch is
  interrupted or fails, or when a batch asks for another count;
* each worker is ``sys.executable`` running :func:`serve`, in a session of its
  own with SIGINT ignored (Ctrl-C is the calling process's to handle: it kills
  the workers), reading length-prefixed pickles on its stdin and writing them
  to its stdout (which it moves away from ``print``); it exits at the end of
  its input, so it does not outlive the calling process;
* a worker says hello with the path of the ``trafila`` it imported and its
  releases' ``DEFAULT_CONFIG``: a batch takes the pool only when both equal the
  calling process's (a config changed in place would otherwise be lost);
* pages go out in chunks of consecutive pages (at most :data:`CHUNK_PAGES`
  pages or :data:`CHUNK_CHARS` characters, smaller towards the end of the
  batch), at most :data:`CHUNKS_PER_WORKER` chunks per worker in flight and at
  most :data:`LOOKAHEAD_PAGES` per worker ahead of the oldest page not yet
  committed: that bounds the pages taken from ``pages`` ahead. A thread per
  worker writes a chunk's pages into memory shared with that worker (a Linux
  memfd, one slot per chunk in flight; elsewhere, or for a page that does not
  fit, the page goes pickled through the pipe) and the chunk's header through
  the pipe. A str page is copied as its PEP 393 code units, as they are, and
  the worker makes the same str from them (the core's ``put_str_units`` and
  ``take_str_units``): no UTF-8 on either side, which was the calling
  process's main cost (most non-ASCII pages are UCS-2). Without the core, a
  page goes as UTF-8 (``str.encode`` rather than
  pickle, which would cache a UTF-8 copy on the caller's str);
* in a worker, glibc is told to keep big freed blocks (``mallopt``): the
  worker is trafila's own process, and every page's text and arenas would
  otherwise land in fresh memory the kernel zeroes;
* a worker that dies (a crash, the OOM killer) loses nothing: the pages it had
  are run by the calling process, in order, like every page after them.
"""

from __future__ import annotations

import atexit
import codecs
import importlib
import logging
import mmap
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
import warnings
from collections import deque
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional, Tuple

__all__ = ["Pool", "available", "pool_for", "shutdown", "serve"]

#: pages per chunk sent to a worker, at most
CHUNK_PAGES = 8
#: characters per chunk, at most (a longer page goes alone)
CHUNK_CHARS = 1 << 20
#: chunks a worker has in flight (one running, one waiting in its pipe)
CHUNKS_PER_WORKER = 2
#: pages taken from ``pages`` ahead of the oldest uncommitted one, per worker
LOOKAHEAD_PAGES = 64
#: pages that batches must have offered before the first workers are started: a script that
#: calls extract_batch once on a few pages runs them on its own thread (starting the workers
#: costs about half a second of CPU each, which such a batch would never win back)
START_AFTER_PAGES = 64
#: the longest the calling process blocks in one wait (Ctrl-C is seen between waits)
POLL_SECONDS = 0.05
#: how long a worker is given to exit when told to, before it is killed
STOP_SECONDS = 1.0

#: the trafila loggers' names start with this
_LOGGER = "trafila"

# The worker's first statements: SIGINT ignored before anything is imported, then
# the calling process's sys.path (so that the same trafila is imported), then serve().
_BOOT = (
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "import pickle, sys\n"
    "from multiprocessing.connection import Connection\n"
    "incoming = Connection(0, writable=False)\n"
    "path, shared = pickle.loads(incoming.recv_bytes())\n"
    "sys.path[:] = path\n"
    "from trafila._workers import serve\n"
    "serve(incoming, shared)\n"
)

#: each worker's memory shared with the calling process (Linux: a memfd), in CHUNKS_PER_WORKER
#: slots; a chunk's pages are written there as UTF-8, and a page that does not fit goes in the pipe
SLOT_BYTES = 4 << 20


# --- what both sides compare ----------------------------------------------------------

def _config_snapshots() -> Dict[str, Dict[str, Dict[str, str]]]:
    """Each release's DEFAULT_CONFIG as plain dicts (the DEFAULT section included)."""
    from . import TRAFILATURA_VERSIONS, _engine  # noqa: PLC0415

    snapshots = {}
    for mode in TRAFILATURA_VERSIONS:
        config = _engine.implementation(mode, "reference").DEFAULT_CONFIG
        snapshots[mode] = {name: dict(config.items(name, raw=True)) if name != "DEFAULT" else dict(config.defaults())
                           for name in ["DEFAULT", *config.sections()]}
    return snapshots


def _log_threshold() -> int:
    """The lowest level a trafila logger of this process lets a record through
    at (``logging.disable`` counted): a worker's record at that level or above
    makes its page a redo."""
    manager = logging.Logger.manager
    loggers = [logging.getLogger(_LOGGER)] + [
        logger for name, logger in list(manager.loggerDict.items())
        if name.startswith(_LOGGER + ".") and isinstance(logger, logging.Logger)]  # not the placeholders
    level = min(logger.getEffectiveLevel() for logger in loggers)
    return max(level, manager.disable + 1)


# --- the worker ------------------------------------------------------------------------

class _Flag(logging.Handler):
    """Notes that a record reached the trafila loggers at or above the threshold."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.hit = False

    def emit(self, record: logging.LogRecord) -> None:
        self.hit = True


def _send(connection: Connection, message: Any) -> None:
    connection.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


#: True in a worker process (set by :func:`serve`)
IN_WORKER = False


def serve(incoming: Connection, shared: Optional[Tuple[int, int]] = None) -> None:
    """A worker's life: hello, then batches and chunks of pages until the end of its input.
    ``shared``: the file descriptor and size of the memory the pages may come in."""
    global IN_WORKER
    IN_WORKER = True
    # the protocol owns stdout: print() and C-level writes to fd 1 go to stderr instead
    outgoing = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _keep_freed_memory()
    try:
        _serve(incoming, outgoing, None if shared is None else mmap.mmap(shared[0], shared[1]))
    except (BrokenPipeError, EOFError):  # the calling process closed the pool: nothing to say
        pass


def _keep_freed_memory() -> None:
    """In a worker (a process of trafila's own, so its allocator's policy is ours to set): glibc
    keeps big freed blocks for reuse instead of unmapping them, so each page's text and the
    core's arenas land in memory already touched rather than in fresh pages the kernel zeroes."""
    try:
        import ctypes  # noqa: PLC0415

        mallopt = ctypes.CDLL(None).mallopt  # glibc only (AttributeError elsewhere)
    except (OSError, AttributeError, ImportError):
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 1 << 25)  # 32 MiB: glibc's own cap for its dynamic threshold
    mallopt(m_trim_threshold, 1 << 28)


def _serve(incoming: Connection, outgoing: Connection, shared: Optional[mmap.mmap]) -> None:
    import trafila  # noqa: PLC0415
    from trafila import _delegation  # noqa: PLC0415

    setup = os.environ.get("TRAFILA_BATCH_WORKER_IMPORT")  # tests and instrumentation: a module run in each worker
    if setup:
        importlib.import_module(setup)
    flag = _Flag()
    logger = logging.getLogger(_LOGGER)
    logger.addHandler(flag)
    logger.propagate = False
    _send(outgoing, ("hello", os.getpid(), os.path.realpath(trafila.__file__), _config_snapshots()))

    take_units = _str_units()[1]
    extract: Callable[..., Any] = trafila.extract
    kwargs: Dict[str, Any] = {}
    batch = -1
    while True:
        try:
            message = pickle.loads(incoming.recv_bytes())
        except EOFError:
            return
        kind = message[0]
        if kind == "exit":
            return
        if kind == "batch":
            _, batch, engine, kwargs, threshold = message
            extract = trafila.engine(engine).extract
            logger.setLevel(threshold)
            continue
        if kind != "pages":
            raise RuntimeError(f"trafila worker: unknown message {kind!r}")
        # ("pages", batch, start, pages): a page is a str, None, or in the shared memory:
        # (offset, kind, length) of its PEP 393 code units, or (offset, length) of its UTF-8
        _, _batch, start, pages = message
        if shared is not None:
            view = memoryview(shared)
            pages = [p if type(p) is not tuple
                     else take_units(view, *p) if len(p) == 3
                     else codecs.utf_8_decode(view[p[0]:p[0] + p[1]], "surrogatepass", True)[0]
                     for p in pages]
            view.release()
        results: List[Any] = []
        redo: List[int] = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for offset, page in enumerate(pages):
                flag.hit = False
                before = (_delegation.delegated_calls, len(caught))
                try:
                    result = extract(page, **kwargs)
                    failed = False
                except BaseException:  # noqa: BLE001 - the calling process raises it, in page order
                    result, failed = None, True
                if failed or flag.hit or (_delegation.delegated_calls, len(caught)) != before:
                    redo.append(offset)
                    result = None
                results.append(result)
        _send(outgoing, ("done", batch, start, results, redo))


def _str_units() -> Tuple[Optional[Callable[..., int]], Optional[Callable[..., str]]]:
    """The core's copiers of a str's PEP 393 code units to and from shared memory
    (``put_str_units``, ``take_str_units``), or Nones without the core. The calling process
    and its workers import the same trafila (their hello says so), so both have them or neither."""
    try:
        from trafila._core import put_str_units, take_str_units  # noqa: PLC0415
    except ImportError:
        return None, None
    return put_str_units, take_str_units


# --- the calling process's side ------------------------------------------------------------

def _widen(fd: int) -> None:
    """Make a pipe hold :data:`CHUNK_CHARS` bytes where the system lets us (Linux's F_SETPIPE_SZ)."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), CHUNK_CHARS)
    except (ImportError, OSError):
        pass


def _shared_memory(size: int) -> Optional[Tuple[int, mmap.mmap]]:
    """An anonymous shared file of ``size`` bytes (Linux's memfd) and its mapping; None elsewhere."""
    create = getattr(os, "memfd_create", None)
    if create is None:
        return None
    try:
        fd = create("trafila-batch", 0)  # not close-on-exec: the worker inherits it (pass_fds)
    except OSError:
        return None
    try:
        os.ftruncate(fd, size)
        return fd, mmap.mmap(fd, size)
    except (OSError, ValueError):
        os.close(fd)
        return None


class _Worker:
    """One worker process, its two pipes and the memory it shares with the calling process."""

    def __init__(self) -> None:
        flags = getattr(subprocess, "_args_from_interpreter_flags", list)()  # -O, -X ... as multiprocessing passes them
        shared = _shared_memory(SLOT_BYTES * CHUNKS_PER_WORKER)
        self.shared = None if shared is None else shared[1]
        self.slot = 0  # the next slot a chunk's pages go to (the sender thread's)
        self.put_units = _str_units()[0]
        try:
            self.process = subprocess.Popen(
                [sys.executable, *flags, "-c", _BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                start_new_session=True, close_fds=True, pass_fds=() if shared is None else (shared[0],))
        finally:
            if shared is not None:
                os.close(shared[0])  # the mapping (and the worker's copy of the descriptor) keep it
        self.setup = (None if shared is None else (shared[0], SLOT_BYTES * CHUNKS_PER_WORKER),)
        assert self.process.stdin is not None and self.process.stdout is not None
        # the Connections own duplicates; the Popen's file objects are closed at once
        self.outgoing = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self.incoming = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()
        for connection in (self.outgoing, self.incoming):  # a chunk in one write where Linux allows it
            _widen(connection.fileno())
        self.inflight: Deque[Tuple[int, int]] = deque()  # (start, count) of each chunk sent, oldest first
        self.alive = True
        self.hello: Optional[tuple] = None
        # A thread of its own writes to the worker: the calling thread never blocks on a full
        # pipe (the worker reads its next chunk only after it has written the last one's results,
        # which the calling thread must be free to read), and the pickling is done off it.
        self.outbox: "queue.SimpleQueue[Optional[Any]]" = queue.SimpleQueue()
        self.sender = threading.Thread(target=self._write, name="trafila-batch-sender", daemon=True)
        self.sender.start()

    def _write(self) -> None:
        while True:
            message = self.outbox.get()
            if message is None:
                return
            try:
                if message[0] == "pages" and self.shared is not None:
                    message = self._share(message)
                self.outgoing.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
            except (OSError, ValueError):  # the worker is gone, or the pool closed: its reading side says so
                return
            except BaseException:  # noqa: BLE001 - anything else: the worker must not wait for this message
                try:
                    self.outgoing.close()  # it reads the end of its input and exits; the calling thread sees it go
                except OSError:
                    pass
                return

    def _share(self, message: tuple) -> tuple:
        """A chunk's pages written to the next slot of the shared memory, as (offset, length);
        the pages that do not fit stay in the message. A slot is free again once the chunk that
        used it CHUNKS_PER_WORKER chunks ago came back (the calling thread never has more in flight)."""
        assert self.shared is not None
        tag, batch, start, pages = message
        offset = (self.slot % CHUNKS_PER_WORKER) * SLOT_BYTES
        end = offset + SLOT_BYTES
        self.slot += 1
        entries: List[Any] = []
        put_units = self.put_units
        for page in pages:
            offset = (offset + 3) & ~3  # code units aligned for their kind
            if page is None or len(page) > end - offset:  # (a character is at least one byte)
                entries.append(page)
                continue
            if put_units is not None and type(page) is str:
                units = put_units(page, self.shared, offset, end)  # the str's buffer as it is: no encoding
                if units:
                    entries.append((offset, units, len(page)))
                    offset += len(page) * units
                else:
                    entries.append(page)
                continue
            data = page.encode("utf-8", "surrogatepass")  # what pickle would send, without caching it on the str
            if len(data) > end - offset:
                entries.append(page)
                continue
            self.shared[offset:offset + len(data)] = data
            entries.append((offset, len(data)))
            offset += len(data)
        return (tag, batch, start, entries)

    def send(self, message: Any) -> bool:
        """Queue a message (or pickled bytes) for the worker; False when it is known to be gone."""
        if self.alive:
            self.outbox.put(message)
        return self.alive

    def receive(self) -> Optional[tuple]:
        """The next message, or None when the worker is gone."""
        try:
            return pickle.loads(self.incoming.recv_bytes())
        except (EOFError, OSError):
            self.alive = False
            return None

    def greet(self) -> bool:
        """Read the worker's hello; False when it failed to start."""
        self.hello = self.receive()
        return self.hello is not None

    def usable(self, expected: Tuple[str, Any]) -> bool:
        """Whether the worker imported this process's trafila and has its releases' DEFAULT_CONFIG."""
        assert self.hello is not None
        _, _pid, path, configs = self.hello
        return self.alive and (path, configs) == expected

    def stop(self, kill: bool) -> None:
        if kill or self.hello is None:  # one still importing trafila has nothing to finish
            self.process.kill()
        else:
            self.send(("exit",))
        self.alive = False
        self.outbox.put(None)
        self.sender.join(STOP_SECONDS)
        for connection in (self.outgoing, self.incoming):
            try:
                connection.close()
            except OSError:
                pass
        if self.shared is not None and not self.sender.is_alive():
            self.shared.close()
        try:
            self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Pool:
    """``count`` worker processes (see the module docstring). They are started
    at once and greet when they have imported trafila; a batch runs pages on
    the calling thread while none has greeted yet, so a first batch does not
    wait for them."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.workers: List[_Worker] = []
        self.batches = 0
        #: the last batch's pages given by the workers and run here (tests, the harness)
        self.last_run: Dict[str, int] = {}
        try:
            for _ in range(count):
                worker = _Worker()
                self.workers.append(worker)
                worker.send((list(sys.path), *worker.setup))
        except BaseException:
            self.close(kill=True)
            raise

    @property
    def alive(self) -> bool:
        return bool(self.workers) and all(worker.alive for worker in self.workers)

    def wait_ready(self, timeout: float = 120.0) -> bool:
        """Wait until every worker has greeted (the bench starts them outside its timing); False on a timeout
        or a worker that failed to start."""
        deadline = time.monotonic() + timeout
        for worker in self.workers:
            if worker.hello is None:
                left = deadline - time.monotonic()
                if left <= 0 or not wait([worker.incoming], left) or not worker.greet():
                    return False
        return True

    def close(self, kill: bool = False) -> None:
        for worker in self.workers:
            worker.stop(kill)
        self.workers = []

    # -- one batch ------------------------------------------------------------------------

    def run(self, engine: str, kwargs: dict, items: Iterator[Any], start: int, count: int,
            commit: Callable[[int, Any, Any, bool], None]) -> None:
        """Pages ``start`` to ``count - 1`` of ``items``, each handed to
        ``commit(index, page, result, redo)`` in page order (``redo``: the
        calling thread runs the page itself; ``commit`` raises what it raises).
        Returns with every page committed, or raises; the caller discards the
        pool when it raises."""
        self.batches += 1
        batch = self.batches
        self.last_run = {"by workers": 0, "here": 0}
        header = ("batch", batch, engine, kwargs, _log_threshold())
        expected = (_here(), _config_snapshots())
        ready: List[_Worker] = []  # greeted, running this process's trafila and configs, told of this batch
        starting: Dict[Connection, _Worker] = {}
        for worker in self.workers:
            if not worker.alive:
                continue
            if worker.hello is None:
                starting[worker.incoming] = worker
            elif worker.usable(expected) and worker.send(header):
                ready.append(worker)
        done: Dict[int, Tuple[Any, bool]] = {}  # index -> (result, redo)
        pages: Dict[int, Any] = {}  # index -> page, kept until committed (a redo needs it)
        sent = start  # the next page to hand out
        committed = start  # the next page to commit
        lookahead = LOOKAHEAD_PAGES * self.count
        while committed < count:
            for worker in ready:
                while worker.alive and len(worker.inflight) < CHUNKS_PER_WORKER and sent < count \
                        and sent - committed < lookahead:
                    left = count - sent
                    size = max(1, min(CHUNK_PAGES, left // (2 * self.count * CHUNKS_PER_WORKER)))
                    chunk: List[Any] = []
                    chars = 0
                    while len(chunk) < size and sent + len(chunk) < count and chars < CHUNK_CHARS \
                            and sent + len(chunk) - committed < lookahead:
                        page = next(items)
                        pages[sent + len(chunk)] = page
                        chunk.append(page)
                        chars += len(page) if page is not None else 0
                    if worker.send(("pages", batch, sent, chunk)):
                        worker.inflight.append((sent, len(chunk)))
                    else:  # the worker is gone: these pages are the calling thread's
                        _take_back(worker, done)
                        done.update((sent + offset, (None, True)) for offset in range(len(chunk)))
                    sent += len(chunk)
            busy = any(worker.alive and worker.inflight for worker in ready)
            if not busy and sent < count and sent == committed:
                # no worker has a page (none greeted yet, or none left): the calling thread takes the next one
                pages[sent] = next(items)
                done[sent] = (None, True)
                sent += 1
            while committed in done:
                result, redo = done.pop(committed)
                self.last_run["here" if redo else "by workers"] += 1
                commit(committed, pages.pop(committed), result, redo)
                committed += 1
            if committed >= count:
                break
            watched = [worker.incoming for worker in ready if worker.alive and worker.inflight] + list(starting)
            if not watched:
                continue
            for connection in wait(watched, POLL_SECONDS if busy else 0):
                worker = starting.pop(connection, None)
                if worker is not None:  # a hello
                    if not worker.greet():
                        _note_failed_start()
                    elif worker.usable(expected) and worker.send(header):
                        ready.append(worker)
                    continue
                worker = next(w for w in ready if w.incoming is connection)
                message = worker.receive()
                if message is None:  # the worker died: the calling thread runs the pages it had
                    _take_back(worker, done)
                    continue
                _, message_batch, first, chunk_results, redo_offsets = message
                if message_batch != batch or worker.inflight[0] != (first, len(chunk_results)):
                    raise RuntimeError("trafila.extract_batch: a worker process answered out of step")
                worker.inflight.popleft()
                redo_set = set(redo_offsets)
                for offset, result in enumerate(chunk_results):
                    done[first + offset] = (result, offset in redo_set)


def _take_back(worker: _Worker, done: Dict[int, Tuple[Any, bool]]) -> None:
    """A dead worker's pages, marked for the calling thread."""
    worker.alive = False
    while worker.inflight:
        first, size = worker.inflight.popleft()
        done.update((index, (None, True)) for index in range(first, first + size))


def _here() -> str:
    from . import __file__ as here  # noqa: PLC0415

    return os.path.realpath(here)


# --- the kept pool ------------------------------------------------------------------------

_LOCK = threading.Lock()
_POOL: Optional[Pool] = None


#: workers that exited before their hello; at MAX_FAILED_STARTS batches stop trying
_failed_starts = 0
MAX_FAILED_STARTS = 3


def _note_failed_start() -> None:
    global _failed_starts
    _failed_starts += 1


def available() -> Optional[str]:
    """None when worker processes can be started here; else why not."""
    if os.name != "posix":
        return "worker processes are started on POSIX systems only (file descriptors as pipes)"
    if not sys.executable or getattr(sys, "frozen", False):
        return "no Python executable to start worker processes with"
    if os.environ.get("TRAFILA_BATCH_PROCESSES") == "0":
        return "TRAFILA_BATCH_PROCESSES=0"
    if _failed_starts >= MAX_FAILED_STARTS:
        return f"{_failed_starts} worker processes failed to start"
    return None


_offered = 0  # pages offered to the processes path while no worker had been started


def worth_starting(pages: int) -> bool:
    """Whether a batch of ``pages`` pages takes worker processes: always once they were
    started; before, once the batches so far have offered :data:`START_AFTER_PAGES` pages.
    The caller holds :data:`_LOCK`."""
    global _offered
    if _POOL is not None or _offered >= START_AFTER_PAGES:
        return True
    _offered += pages
    return _offered >= START_AFTER_PAGES


def pool_for(count: int) -> Pool:
    """The kept pool with ``count`` workers (started, or restarted with that
    count); the caller holds :data:`_LOCK`."""
    global _POOL
    if _POOL is not None and (_POOL.count != count or not _POOL.alive):
        _POOL.close(kill=not _POOL.alive)
        _POOL = None
    if _POOL is None:
        _POOL = Pool(count)
    return _POOL


def discard(kill: bool = True) -> None:
    """Close the kept pool (the caller holds :data:`_LOCK`)."""
    global _POOL
    if _POOL is not None:
        pool, _POOL = _POOL, None
        pool.close(kill=kill)


def shutdown() -> None:
    """Stop extract_batch's worker processes (a later batch starts new ones)."""
    global _offered
    if _LOCK.acquire(timeout=STOP_SECONDS):  # a batch running on another thread keeps its pool
        try:
            discard(kill=False)
            _offered = 0
        finally:
            _LOCK.release()


def _forget_in_child() -> None:
    # a forked child must not use (or close) its parent's workers: their processes are not its
    # children (marked ended, so that the dropped Popen objects do not warn about them)
    global _POOL, _LOCK
    if _POOL is not None:
        for worker in _POOL.workers:
            worker.process.returncode = -1
    _POOL = None
    _LOCK = threading.Lock()


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
