"""The inputs of ``trafila extract``: HTML files, folders, JSON Lines, WARC files, stdin.

Every reader is a generator of items, in input order:

* :class:`Page` -- one page to extract (its id, url, content, and where it was read);
* :class:`Problem` -- something that could not be read (a file, a line, a record),
  with the file's name and the position in it; the run counts it and goes on;
* :class:`Skipped` -- something read on purpose and left out (a WARC response
  that is not a 2xx HTML page, a file in a folder that is not a page or a bundle).

No reader raises for bad input: a file that cannot be opened, a truncated
gzip stream, a line that is not JSON, a WARC record whose payload cannot be
decoded all become a :class:`Problem`. After a problem that leaves the stream
unusable (a truncated or corrupt file) the reader stops that file.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import io
import json
import os
import sys
import zlib
from dataclasses import dataclass
from typing import IO, Any, Callable, Iterator, List, Optional, Sequence, Tuple, Union

__all__ = [
    "Page", "Problem", "Skipped", "Item", "ReadConfig", "WARC_LIBRARIES", "warc_library",
    "kind_from_name", "expand_inputs", "read_input", "read_inputs",
]

#: what extract takes from a reader
Content = Union[str, bytes, None]

#: the name used for standard input in messages
STDIN_NAME = "<stdin>"

_GZIP_MAGIC = b"\x1f\x8b"
_HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".xht", ".shtml")
_JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonlines")
_WARC_SUFFIXES = (".warc",)
_GZIP_SUFFIXES = (".gz", ".gzip")
#: the kinds of input
KINDS = ("html", "jsonl", "warc")
#: errors a damaged gzip stream (or a failing disk) raises while it is read
_READ_ERRORS = (OSError, EOFError, zlib.error)


@dataclass
class Page:
    """A page to extract."""

    id: Any
    """the record's id (a JSON Lines id field, a WARC-Record-ID, a file's path), or None"""
    url: Optional[str]
    content: Content
    """what is passed to ``extract``: bytes from files and WARC payloads, str from JSON Lines"""
    source: str
    """the file it came from (``<stdin>`` for standard input)"""
    position: str = ""
    """where in that file (``line 12``, ``record 3 at byte 4567``; empty for a whole file)"""

    def where(self) -> str:
        return f"{self.source}: {self.position}" if self.position else self.source


@dataclass
class Problem:
    """Something that could not be read."""

    source: str
    position: str
    message: str

    def __str__(self) -> str:
        where = f"{self.source}: {self.position}" if self.position else self.source
        return f"{where}: {self.message}"


@dataclass
class Skipped:
    """Something left out on purpose (counted in the summary)."""

    source: str
    position: str
    reason: str


Item = Union[Page, Problem, Skipped]


@dataclass
class ReadConfig:
    """How inputs are read (from the command line)."""

    input_format: str = "auto"
    """``auto`` (by the file's name, else by its first bytes), or one of :data:`KINDS`"""
    field: str = "html"
    """the JSON Lines field holding the page (``FIELD_b64``, base64 of the raw bytes, is read when it is null)"""
    id_field: str = "id"
    url_field: str = "url"
    warc_library: str = "auto"
    """``auto`` (warcio when installed, else fastwarc), ``warcio`` or ``fastwarc``"""
    exclude: Tuple[str, ...] = ()
    """files a folder does not contribute (the run's own output), as real paths"""


# --- names and sniffing ------------------------------------------------------------


def kind_from_name(name: str) -> Optional[str]:
    """``html``, ``jsonl`` or ``warc`` from a file's name (a ``.gz`` suffix is looked through), else None."""
    lower = name.lower()
    for suffix in _GZIP_SUFFIXES:
        if lower.endswith(suffix):
            lower = lower[: -len(suffix)]
            break
    if lower.endswith(_WARC_SUFFIXES):
        return "warc"
    if lower.endswith(_JSONL_SUFFIXES):
        return "jsonl"
    if lower.endswith(_HTML_SUFFIXES):
        return "html"
    return None


def _sniff(head: bytes) -> str:
    """The kind of a (decompressed) stream from its first bytes."""
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"WARC/"):
        return "warc"
    if text.startswith(b"{"):
        return "jsonl"
    return "html"


def _taken_in_folder(name: str) -> bool:
    """Files a folder contributes: pages and bundles by their names, and files without a suffix."""
    if kind_from_name(name) is not None:
        return True
    stem = name
    for suffix in _GZIP_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    return "." not in stem


def expand_inputs(inputs: Sequence[str], exclude: Sequence[str] = ()) -> Iterator[Union[str, Problem, Skipped]]:
    """The files named by the command line's inputs, in order: each input as
    given, a folder's files recursively in sorted order (hidden entries left
    out). ``-`` stands for standard input. A missing input is a Problem."""
    for name in inputs:
        if name == "-":
            yield name
        elif os.path.isdir(name):
            yield from _walk(name, exclude)
        elif os.path.exists(name):
            yield name
        else:
            yield Problem(name, "", "no such file or folder")


def _walk(folder: str, exclude: Sequence[str] = ()) -> Iterator[Union[str, Problem, Skipped]]:
    def onerror(error: OSError) -> None:
        problems.append(Problem(getattr(error, "filename", None) or folder, "", f"cannot list folder: {error.strerror or error}"))

    problems: List[Problem] = []
    for root, dirs, files in os.walk(folder, onerror=onerror):
        yield from problems
        problems.clear()
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for file in sorted(files):
            if file.startswith("."):
                continue
            path = os.path.join(root, file)
            if exclude and os.path.realpath(path) in exclude:
                yield Skipped(path, "", "the output of this run")
            elif _taken_in_folder(file):
                yield path
            else:
                yield Skipped(path, "", "not a page or bundle (by its name)")
    yield from problems


# --- opening -----------------------------------------------------------------------


class _Opened:
    """A binary stream, decompressed when it is gzip, that can be peeked at."""

    def __init__(self, raw: IO[bytes], close_raw: bool) -> None:
        self._raw = raw
        self._close_raw = close_raw
        buffered = raw if hasattr(raw, "peek") else io.BufferedReader(raw)  # type: ignore[arg-type]
        self.gzipped = buffered.peek(2)[:2] == _GZIP_MAGIC  # type: ignore[attr-defined]
        if self.gzipped:
            self.stream: Any = io.BufferedReader(gzip.GzipFile(fileobj=buffered, mode="rb"))  # type: ignore[arg-type]
        else:
            self.stream = buffered
        self.raw = buffered
        self.sniffed = False

    def peek(self, size: int = 512) -> bytes:
        """The first bytes of the decompressed stream (after this, read :attr:`stream`, not :attr:`raw`)."""
        self.sniffed = True
        return self.stream.peek(size)[:size]

    def for_library(self) -> Any:
        """The stream to hand a WARC library (which decompresses gzip itself): the
        raw file, unless its first bytes were already decompressed for sniffing."""
        return self.stream if self.sniffed else self.raw

    def close(self) -> None:
        if self._close_raw:
            self._raw.close()


def _open(path: str) -> _Opened:
    if path == "-":
        return _Opened(sys.stdin.buffer, close_raw=False)
    return _Opened(open(path, "rb"), close_raw=True)  # noqa: SIM115 - closed by the reader


def _display(path: str) -> str:
    return STDIN_NAME if path == "-" else path


def _os_message(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def read_input(path: str, config: ReadConfig) -> Iterator[Item]:
    """The items of one file (or ``-``)."""
    source = _display(path)
    try:
        opened = _open(path)
    except _READ_ERRORS as error:
        yield Problem(source, "", f"cannot open: {_os_message(error)}")
        return
    try:
        kind = config.input_format if config.input_format != "auto" else None
        if kind is None and path != "-":
            kind = kind_from_name(path)
        if kind is None:
            try:
                kind = _sniff(opened.peek())
            except _READ_ERRORS as error:
                yield Problem(source, "", f"cannot read: {_os_message(error)}")
                return
        if kind == "html":
            yield from _read_html(opened, path, source)
        elif kind == "jsonl":
            yield from _read_jsonl(opened, source, config)
        else:
            yield from _read_warc(opened, path, source, config)
    finally:
        opened.close()


def read_inputs(inputs: Sequence[str], config: ReadConfig) -> Iterator[Item]:
    """The items of every input, in order."""
    for entry in expand_inputs(inputs, config.exclude):
        if isinstance(entry, (Problem, Skipped)):
            yield entry
        else:
            yield from read_input(entry, config)


# --- HTML files ----------------------------------------------------------------------


def _read_html(opened: _Opened, path: str, source: str) -> Iterator[Item]:
    try:
        content = opened.stream.read()
    except _READ_ERRORS as error:
        yield Problem(source, "", f"cannot read: {_os_message(error)}")
        return
    yield Page(id=None if path == "-" else path, url=None, content=content, source=source)


# --- JSON Lines ------------------------------------------------------------------------

_MISSING = object()


def _read_jsonl(opened: _Opened, source: str, config: ReadConfig) -> Iterator[Item]:
    field, b64_field = config.field, config.field + "_b64"
    number = 0
    while True:
        try:
            line = opened.stream.readline()
        except _READ_ERRORS as error:
            what = "truncated gzip stream" if isinstance(error, EOFError) else _os_message(error)
            yield Problem(source, f"line {number + 1}", f"cannot read further: {what}")
            return
        if not line:
            return
        number += 1
        if not line.strip():
            continue
        position = f"line {number}"
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as error:  # JSONDecodeError and bad UTF-8 are ValueErrors
            yield Problem(source, position, f"not JSON ({error})")
            continue
        if not isinstance(record, dict):
            yield Problem(source, position, f"a JSON {type(record).__name__}, not an object")
            continue
        value = record.get(field, _MISSING)
        content: Content
        if value is _MISSING or value is None:
            encoded = record.get(b64_field)
            if isinstance(encoded, str):
                try:
                    content = base64.b64decode(encoded, validate=True)
                except (binascii.Error, ValueError) as error:
                    yield Problem(source, position, f"field {b64_field!r} is not base64 ({error})")
                    continue
            elif value is None:
                content = None  # a null page: extract(None) gives None
            else:
                yield Problem(source, position, f"no field {field!r}")
                continue
        elif isinstance(value, str):
            content = value
        else:
            yield Problem(source, position, f"field {field!r} is a JSON {type(value).__name__}, not a string")
            continue
        url = record.get(config.url_field)
        yield Page(id=record.get(config.id_field), url=url if isinstance(url, str) else None,
                   content=content, source=source, position=position)


# --- WARC ------------------------------------------------------------------------------

#: the WARC libraries trafila reads with, the default first: warcio reports a damaged file;
#: FastWARC reads 2.4 times as fast but ends a truncated gzip file silently (docs/CLI.md)
WARC_LIBRARIES = ("warcio", "fastwarc")


def _installed(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def warc_library(choice: str = "auto") -> Optional[str]:
    """The WARC library to read with: ``choice`` when it is installed, the first
    installed of :data:`WARC_LIBRARIES` for ``auto``; None when there is none."""
    if choice != "auto":
        return choice if _installed(choice) else None
    for name in WARC_LIBRARIES:
        if _installed(name):
            return name
    return None


def _is_html_type(content_type: Optional[str]) -> bool:
    """A response's Content-Type is a page's: HTML or XHTML, or none given."""
    if not content_type:
        return True
    plain = content_type.split(";", 1)[0].strip().lower()
    return plain in ("text/html", "application/xhtml+xml") or plain.endswith("html")


def _record_position(index: int, offset: Optional[int]) -> str:
    return f"record {index}" if offset is None else f"record {index} at byte {offset}"


def _read_warc(opened: _Opened, path: str, source: str, config: ReadConfig) -> Iterator[Item]:
    library = warc_library(config.warc_library)
    if library is None:
        wanted = "warcio or fastwarc" if config.warc_library == "auto" else config.warc_library
        yield Problem(source, "", f"a WARC file, and {wanted} is not installed (pip install 'trafila[warc]')")
        return
    reader: Callable[[_Opened, str, str], Iterator[Item]] = _fastwarc_records if library == "fastwarc" else _warcio_records
    yield from reader(opened, path, source)


def _response_item(source: str, index: int, offset: Optional[int], record_id: Optional[str], url: Optional[str],
                   status: Optional[int], content_type: Optional[str], read: Callable[[], bytes]) -> Item:
    """The item for one WARC response record."""
    position = _record_position(index, offset)
    if status is None:
        return Skipped(source, position, "not an HTTP response")
    if not 200 <= status < 300:
        return Skipped(source, position, f"HTTP status {status}")
    if not _is_html_type(content_type):
        return Skipped(source, position, f"Content-Type {content_type}")
    try:
        payload = read()
    except Exception as error:  # noqa: BLE001 - a payload the library cannot decode is a bad record, whatever it raises
        return Problem(source, position, f"cannot decode the payload: {_os_message(error)}")
    return Page(id=record_id, url=url, content=payload, source=source, position=position)


class _Truncated(Exception):
    """A payload shorter than its record says."""


def _decode_content(payload: bytes, encoding: Optional[str]) -> bytes:
    """Undo an HTTP Content-Encoding (gzip, deflate, br when brotli is installed; the last applied first)."""
    if not encoding:
        return payload
    for coding in reversed([c.strip().lower() for c in encoding.split(",") if c.strip()]):
        if coding in ("identity", "none"):
            continue
        if coding in ("gzip", "x-gzip"):
            inflater = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
            payload = inflater.decompress(payload)
            if not inflater.eof:
                raise ValueError("truncated gzip content")
        elif coding == "deflate":
            try:
                payload = zlib.decompress(payload)
            except zlib.error:  # many servers send a raw deflate stream
                payload = zlib.decompressobj(wbits=-zlib.MAX_WBITS).decompress(payload)
        elif coding == "br":
            try:
                import brotli  # noqa: PLC0415 - optional
            except ImportError:
                raise ValueError("Content-Encoding br, and brotli is not installed") from None
            payload = brotli.decompress(payload)
        else:
            raise ValueError(f"unknown Content-Encoding {coding}")
    return payload


def _fastwarc_records(opened: _Opened, path: str, source: str) -> Iterator[Item]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType  # noqa: PLC0415 - optional

    # a file is read by fastwarc itself (its own gzip and buffering); stdin through Python.
    # Content-Encoding is undone here: FastWARC 2.0.1's auto_decode="all" ends the iteration,
    # silently, after a chunked and gzip-encoded response.
    stream: Any = path if path != "-" else opened.for_library()
    index = 0
    offset: Optional[int] = None
    try:
        records = ArchiveIterator(stream, record_types=WarcRecordType.response, parse_http=True,
                                  auto_decode="transfer", fsspec_args=False)
        for record in records:
            index += 1
            offset = record.stream_pos
            http = record.http_headers

            def read(record: Any = record, http: Any = http) -> bytes:
                raw = record.reader.read()
                if http.get("Transfer-Encoding") is None and len(raw) < record.content_length:
                    # FastWARC gives a record cut short by the end of the file without a word
                    raise _Truncated(f"truncated: {len(raw)} of {record.content_length} bytes")
                return _decode_content(raw, http.get("Content-Encoding"))

            yield _response_item(
                source, index, offset, record.headers.get("WARC-Record-ID"), record.headers.get("WARC-Target-URI"),
                http.status_code if http is not None else None, http.get("Content-Type") if http is not None else None,
                read,
            )
    except Exception as error:  # noqa: BLE001 - whatever the library raises for a damaged file
        yield Problem(source, f"after {_record_position(index, offset)}" if index else "record 1",
                      f"cannot read further: {_os_message(error)}")
        return
    if path != "-" and opened.gzipped:
        problem = _gzip_tail_problem(path, offset or 0)
        if problem is not None:
            yield Problem(source, f"after {_record_position(index, offset)}" if index else "record 1", problem)


def _gzip_tail_problem(path: str, offset: int) -> Optional[str]:
    """Why the gzip members from ``offset`` to the end of ``path`` are not whole, or None.
    (FastWARC ends a truncated gzip file without an error: the members after the
    last record it gave are checked here.)"""
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except OSError as error:
        return f"cannot read: {_os_message(error)}"
    while data:
        inflater = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
        try:
            inflater.decompress(data)
        except zlib.error as error:
            return f"cannot read further: corrupt gzip data ({error})"
        if not inflater.eof:
            return "cannot read further: truncated gzip stream"
        data = inflater.unused_data
    return None


def _read_back(payload: Optional[bytes], failure: Optional[BaseException]) -> Callable[[], bytes]:
    """A ``read`` for :func:`_response_item` of a payload read already (or of the error reading it gave)."""
    def read() -> bytes:
        if failure is not None:
            raise failure
        return payload or b""

    return read


def _warcio_records(opened: _Opened, path: str, source: str) -> Iterator[Item]:
    from warcio.archiveiterator import ArchiveIterator  # noqa: PLC0415 - optional

    index = 0
    offset: Optional[int] = None
    try:
        records = ArchiveIterator(opened.for_library())
        for record in records:
            if record.rec_type != "response":
                continue
            index += 1
            http = record.http_headers
            status: Optional[int] = None
            if http is not None:
                try:
                    status = int(http.get_statuscode())
                except (TypeError, ValueError):
                    status = 0
            content_type = http.get_header("Content-Type") if http is not None else None
            # warcio knows a record's offset only once the record is read to its end: read first
            payload: Optional[bytes] = None
            failure: Optional[BaseException] = None
            if status is not None and 200 <= status < 300 and _is_html_type(content_type):
                try:
                    payload = record.content_stream().read()
                    left = getattr(record.raw_stream, "limit", 0)
                    if isinstance(left, int) and left > 0:  # warcio gives a record cut short by the end without a word
                        failure = _Truncated(f"truncated: {left} of its {record.length} bytes missing")
                except Exception as error:  # noqa: BLE001 - a payload warcio cannot decode is a bad record
                    failure = error
            offset = records.get_record_offset()
            yield _response_item(source, index, offset, record.rec_headers.get_header("WARC-Record-ID"),
                                 record.rec_headers.get_header("WARC-Target-URI"), status, content_type,
                                 _read_back(payload, failure))
    except Exception as error:  # noqa: BLE001 - whatever the library raises for a damaged file
        yield Problem(source, f"after {_record_position(index, offset)}" if index else "record 1",
                      f"cannot read further: {_os_message(error)}")
