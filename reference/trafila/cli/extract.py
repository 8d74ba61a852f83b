"""``trafila extract``: pages in, texts out, with progress and a summary.

The pages are read in input order (:mod:`trafila.cli.inputs`), gathered in
chunks and extracted with ``trafila.extract_batch`` (one call per chunk, so
``--threads`` reaches its thread pool), then written in the same order. With
``--deduplicate`` (the cache must see the pages one by one, in order) and with
``--links`` (link targets are resolved against each page's own URL) every page
is one ``trafila.extract`` call instead. Either way each text is what
``trafila.extract(content, **options)`` returns for that page.

A page whose extraction raises is an error like an unreadable record: named,
counted, and the run goes on (``--strict`` stops). When a chunk raises, the
pages before the one that raised are extracted again (their results were lost
with the exception) and the pages after it go on in a new call; delegated calls
are counted only for the calls whose results are kept.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Set, TextIO, Tuple

from .inputs import Page, Problem, ReadConfig, Skipped, read_inputs

__all__ = ["ExtractSettings", "Stats", "run_extract", "extract_kwargs"]

#: pages per extract_batch call: at least this many ...
CHUNK_MIN_PAGES = 64
#: ... or this many per thread, whichever is more
CHUNK_PAGES_PER_THREAD = 16
#: a chunk is extracted early once its pages hold this many bytes (characters for str pages)
CHUNK_MAX_BYTES = 32 * 1024 * 1024


@dataclass
class ExtractSettings:
    """What the command line asked for."""

    inputs: Sequence[str]
    read: ReadConfig
    kwargs: Dict[str, Any]
    """the keyword arguments of every extract call (only those that differ from extract's defaults)"""
    output: Optional[str] = None
    """a JSON Lines file (gzip when it ends in .gz), ``-`` or None for standard output"""
    output_dir: Optional[str] = None
    threads: Optional[int] = None
    strict: bool = False
    progress: str = "auto"
    """``auto`` (a bar on a terminal, else plain lines), ``bar``, ``plain`` or ``none``"""
    progress_interval: float = 10.0
    quiet: bool = False


@dataclass
class Stats:
    """The counts the summary reports."""

    pages: int = 0
    texts: int = 0
    nones: int = 0
    input_errors: int = 0
    extraction_errors: int = 0
    skipped: int = 0
    delegated: int = 0
    started: float = field(default_factory=time.perf_counter)
    interrupted: bool = False
    broken_pipe: bool = False
    """standard output was closed by its reader (``| head``): the run stopped, quietly"""

    @property
    def errors(self) -> int:
        return self.input_errors + self.extraction_errors

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def rate(self) -> float:
        elapsed = self.elapsed()
        return self.pages / elapsed if elapsed > 0 else 0.0

    def as_dict(self) -> Dict[str, Any]:
        return {
            "pages": self.pages, "texts": self.texts, "none": self.nones, "errors": self.errors,
            "input_errors": self.input_errors, "extraction_errors": self.extraction_errors,
            "skipped": self.skipped, "delegated_calls": self.delegated,
            "seconds": round(self.elapsed(), 3), "interrupted": self.interrupted,
        }

    def summary(self) -> str:
        errors = counted(self.errors, "error")
        if self.errors:
            errors += f" ({self.input_errors:,} reading, {self.extraction_errors:,} extracting)"
        line = (f"{counted(self.pages, 'page')} read, {counted(self.texts, 'text')} extracted, {self.nones:,} None, "
                f"{errors}, {counted(self.delegated, 'delegated call')}, {self.elapsed():.1f} s "
                f"({self.rate():,.1f} pages/s)")
        if self.skipped:
            line += f"; {self.skipped:,} skipped (not 2xx HTML responses, or not pages by their names)"
        return line + ("; interrupted" if self.interrupted else "")


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless n is 1: "1 page", "2 pages", "0 errors"."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def extract_kwargs(*, fast: bool = False, precision: bool = False, recall: bool = False, no_comments: bool = False,
                   no_tables: bool = False, deduplicate: bool = False, formatting: bool = False, links: bool = False,
                   images: bool = False, output_format: str = "txt", target_language: Optional[str] = None,
                   config_file: Optional[str] = None, compat: Optional[str] = None) -> Dict[str, Any]:
    """extract's keyword arguments for the command line's options (defaults left out)."""
    kwargs: Dict[str, Any] = {}
    flags = {
        "fast": fast, "favor_precision": precision, "favor_recall": recall, "deduplicate": deduplicate,
        "include_formatting": formatting, "include_links": links, "include_images": images,
    }
    kwargs.update((name, True) for name, value in flags.items() if value)
    if no_comments:
        kwargs["include_comments"] = False
    if no_tables:
        kwargs["include_tables"] = False
    if output_format != "txt":
        kwargs["output_format"] = output_format
    if target_language is not None:
        kwargs["target_language"] = target_language
    if config_file is not None:
        kwargs["settingsfile"] = config_file
    if compat is not None:
        kwargs["compat"] = compat
    return kwargs


# --- output ------------------------------------------------------------------------


class _Sink:
    """Where the results go."""

    def write(self, page: Page, text: Optional[str]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass


def _json_line(page: Page, text: Optional[str]) -> bytes:
    record = {"id": page.id, "url": page.url, "text": text}
    try:
        return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, so the line stays valid UTF-8 and reads back equal
        return (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")


class _JsonLinesSink(_Sink):
    def __init__(self, path: Optional[str]) -> None:
        self._own = path not in (None, "-")
        if not self._own:
            self._out: IO[bytes] = sys.stdout.buffer
        elif path.endswith(".gz"):  # type: ignore[union-attr]
            self._out = gzip.open(path, "wb")  # type: ignore[arg-type, assignment]
        else:
            self._out = open(path, "wb")  # type: ignore[arg-type]  # noqa: SIM115 - closed in close()

    def write(self, page: Page, text: Optional[str]) -> None:
        self._out.write(_json_line(page, text))

    def flush(self) -> None:
        self._out.flush()

    def close(self) -> None:
        if self._own:
            self._out.close()
        else:
            self._out.flush()


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_NAME = 150


def file_name(page_id: Any, fallback: str) -> str:
    """A file name (without .txt) for a page id: letters, digits, ``._-`` kept, runs of anything else one ``_``."""
    name = _UNSAFE.sub("_", "" if page_id is None else str(page_id)).strip("._")[:_MAX_NAME]
    return name or fallback


class _FolderSink(_Sink):
    """One ``NAME.txt`` per page with a text (none for a None result); a name
    already used in this run gets ``-2``, ``-3`` ..."""

    def __init__(self, folder: str) -> None:
        os.makedirs(folder, exist_ok=True)
        self._folder = folder
        self._used: Set[str] = set()
        self._count = 0

    def write(self, page: Page, text: Optional[str]) -> None:
        self._count += 1
        if text is None:
            return
        base = file_name(page.id, f"page-{self._count}")
        name, number = base, 1
        while name.lower() in self._used:  # lower: the same file on a case-insensitive file system
            number += 1
            name = f"{base}-{number}"
        self._used.add(name.lower())
        with open(os.path.join(self._folder, name + ".txt"), "wb") as out:
            out.write(text.encode("utf-8", "surrogatepass"))


# --- progress -----------------------------------------------------------------------


class _Progress:
    """Progress on standard error: a bar, plain lines every so often, or nothing."""

    def __init__(self, kind: str, interval: float) -> None:
        self._interval = interval
        self._last = time.perf_counter()
        self._bar: Any = None
        self._rich: Any = None
        self.kind = kind
        if kind == "bar":
            self._start_bar()

    def _start_bar(self) -> None:
        try:
            from tqdm import tqdm  # noqa: PLC0415 - optional
        except ImportError:
            tqdm = None
        if tqdm is not None:
            self._bar = tqdm(unit=" pages", file=sys.stderr, dynamic_ncols=True, smoothing=0.1)
            return
        try:
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn  # noqa: PLC0415
        except ImportError:
            self.kind = "plain"  # neither is installed
            return
        self._rich = Progress(SpinnerColumn(), TextColumn("{task.completed:,.0f} pages"),
                              TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), transient=False)
        self._rich.start()
        self._task = self._rich.add_task("extract", total=None, rate="")

    def update(self, pages: int, stats: Stats) -> None:
        if self._bar is not None:
            self._bar.update(pages)
            if stats.errors:
                self._bar.set_postfix(errors=stats.errors, refresh=False)
        elif self._rich is not None:
            self._rich.update(self._task, advance=pages, rate=f"{stats.rate():,.1f} pages/s")
        elif self.kind == "plain":
            now = time.perf_counter()
            if now - self._last >= self._interval:
                self._last = now
                print(f"trafila: {counted(stats.pages, 'page')}, {stats.rate():,.1f} pages/s, "
                      f"{counted(stats.texts, 'text')}, {counted(stats.errors, 'error')}, {stats.elapsed():.0f} s",
                      file=sys.stderr, flush=True)

    def message(self, text: str) -> None:
        """A line on standard error that does not break the bar."""
        if self._bar is not None:
            self._bar.write(text, file=sys.stderr)
        elif self._rich is not None:
            self._rich.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._rich is not None:
            self._rich.stop()


def _progress_kind(requested: str, quiet: bool) -> str:
    if quiet:
        return "none"
    if requested == "auto":
        isatty = getattr(sys.stderr, "isatty", None)
        return "bar" if isatty is not None and isatty() else "plain"
    return requested


# --- extraction ---------------------------------------------------------------------


class _Stop(Exception):
    """--strict met an error."""


class OutputError(Exception):
    """The output could not be written (the run stops: nothing more can be kept)."""


def _delegated() -> int:
    import trafila  # noqa: PLC0415

    return int(trafila.delegated_calls)


def _describe(error: BaseException) -> str:
    message = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


class _Extractor:
    """Extracts pages, chunk by chunk, with extract_batch or one extract call per page."""

    def __init__(self, kwargs: Dict[str, Any], threads: Optional[int]) -> None:
        import trafila  # noqa: PLC0415

        self._trafila = trafila
        self._kwargs = kwargs
        self._threads = threads
        # the deduplication cache sees the pages one by one; links resolve against each page's URL
        self.per_page = bool(kwargs.get("deduplicate")) or bool(kwargs.get("include_links"))
        self._with_url = bool(kwargs.get("include_links"))
        threads_for_size = threads if threads is not None else 1
        if threads is None:
            try:
                from .._batch import default_threads  # noqa: PLC0415

                threads_for_size = default_threads()
            except ImportError:
                pass
        self.chunk_pages = 1 if self.per_page else max(CHUNK_MIN_PAGES, CHUNK_PAGES_PER_THREAD * threads_for_size)
        self.delegated = 0

    def run(self, pages: List[Page]) -> List[Tuple[Optional[str], Optional[BaseException]]]:
        """(text, None) or (None, the exception) per page, in order."""
        out: List[Tuple[Optional[str], Optional[BaseException]]] = [(None, None)] * len(pages)
        todo = [i for i, page in enumerate(pages) if page.content is not None]  # extract(None) is None
        if self.per_page:
            for i in todo:
                before = _delegated()
                try:
                    url = {"url": pages[i].url} if self._with_url else {}
                    text = self._trafila.extract(pages[i].content, **url, **self._kwargs)
                except Exception as error:  # noqa: BLE001 - a page that raises is counted, whatever it raised
                    out[i] = (None, error)
                    continue
                self.delegated += _delegated() - before
                out[i] = (text, None)
        else:
            self._span([pages[i].content for i in todo], todo, out)
        return out

    def _span(self, contents: List[Any], index: List[int], out: List[Tuple[Optional[str], Optional[BaseException]]]) -> None:
        from .._batch import failed_page  # noqa: PLC0415

        start = 0
        while start < len(contents):
            before = _delegated()
            try:
                texts = self._trafila.extract_batch(contents[start:], threads=self._threads, **self._kwargs)
            except Exception as error:  # noqa: BLE001 - a page that raises is counted, whatever it raised
                bad = failed_page(error)
                if bad is None:  # not raised by a page: the call itself (say, a broken settings file)
                    bad = 0
                bad += start
                if bad > start:  # their results went with the exception: extract them again
                    self._span(contents[start:bad], index[start:bad], out)
                out[index[bad]] = (None, error)
                start = bad + 1
                continue
            self.delegated += _delegated() - before
            for offset, text in enumerate(texts):
                out[index[start + offset]] = (text, None)
            return


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null, so the interpreter's own flush at exit says nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run_extract(settings: ExtractSettings) -> Tuple[int, Stats]:
    """Run the command; the exit status (0 all read and extracted, 1 something failed, 130 interrupted) and the counts."""
    stats = Stats()
    if settings.output not in (None, "-"):  # a folder among the inputs does not read the file being written
        settings.read.exclude = (*settings.read.exclude, os.path.realpath(settings.output))  # type: ignore[arg-type]
    extractor = _Extractor(settings.kwargs, settings.threads)
    sink: _Sink = _FolderSink(settings.output_dir) if settings.output_dir else _JsonLinesSink(settings.output)
    progress = _Progress(_progress_kind(settings.progress, settings.quiet), settings.progress_interval)
    pending: List[Page] = []
    pending_size = 0

    def report(text: str) -> None:
        progress.message(f"trafila: error: {text}")

    def flush() -> None:
        nonlocal pending_size
        if not pending:
            return
        results = extractor.run(pending)
        for page, (text, error) in zip(pending, results):
            stats.pages += 1
            if error is not None:
                stats.extraction_errors += 1
                report(f"{page.where()}: extraction failed: {_describe(error)}")
                if settings.strict:
                    raise _Stop
                continue
            try:
                sink.write(page, text)
            except OSError as error:
                raise OutputError(f"cannot write the output: {error.strerror or error}") from error
            if text is None:
                stats.nones += 1
            else:
                stats.texts += 1
        if isinstance(sink, _JsonLinesSink):
            try:
                sink.flush()
            except OSError as error:
                raise OutputError(f"cannot write the output: {error.strerror or error}") from error
        progress.update(len(pending), stats)
        pending.clear()
        pending_size = 0

    try:
        for item in read_inputs(settings.inputs, settings.read):
            if isinstance(item, Page):
                pending.append(item)
                pending_size += len(item.content) if item.content is not None else 0
                if len(pending) >= extractor.chunk_pages or pending_size >= CHUNK_MAX_BYTES:
                    flush()
            elif isinstance(item, Problem):
                flush()  # the pages read before it are extracted first, so the messages come in order
                stats.input_errors += 1
                report(str(item))
                if settings.strict:
                    raise _Stop
                progress.update(0, stats)
            elif isinstance(item, Skipped):
                stats.skipped += 1
        flush()
    except _Stop:
        pass
    except OutputError as error:
        if isinstance(error.__cause__, BrokenPipeError):  # the reader went away (| head): stop quietly
            stats.broken_pipe = True
        else:
            report(str(error))
            stats.input_errors += 1
    except KeyboardInterrupt:
        stats.interrupted = True
    finally:
        stats.delegated = extractor.delegated
        progress.close()
        try:
            sink.close()
        except BrokenPipeError:
            stats.broken_pipe = True
        except OSError as error:
            report(f"cannot finish the output: {error.strerror or error}")
            stats.input_errors += 1
    if stats.broken_pipe:
        _silence_stdout()
        return 141, stats  # 128 + SIGPIPE, what a shell reports for a writer stopped by a closed pipe
    if not settings.quiet:
        print(f"trafila: {stats.summary()}", file=sys.stderr, flush=True)
    if stats.interrupted:
        return 130, stats
    return (1 if stats.errors else 0), stats
