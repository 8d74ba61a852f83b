"""WARC records to documents, as datatrove 0.10.1's ``WarcReader`` makes them, with a parser of its own.

datatrove's reader iterates a file with warcio's ``ArchiveIterator`` and turns each record into a
document with ``process_record``: response and conversion (WET) records whose payload type is
HTML (or plain text, for conversions; python-magic decides when the record has no
``WARC-Identified-Payload-Type``), decoded as UTF-8 or else with cchardet's encoding, with the
record's id, target URI and date. :func:`iter_warc` gives the same ``(index, data)`` for every
record of a file, in order (the index counts the records skipped too, like datatrove's ``ri``).

warcio reads through a stack of Python buffered readers, line by line; here the decompressed
stream is read in large blocks and each record's headers are split from the block. What warcio
does is reproduced for the records of well-formed files:

- the stream: uncompressed (datatrove's ``compression="infer"`` gives warcio a ``.warc.gz``
  already decompressed by fsspec), or gzip members (each member one record, as warcio reads them
  when the file reaches it compressed);
- the WARC and HTTP headers: lines decoded as UTF-8 else Latin-1, stripped on the right,
  continuation lines, lines without a colon dropped, the first value of a name (case-insensitive);
  ``WARC-Target-URI`` unwrapped from ``<>`` and its spaces replaced (warcio's fix-ups);
- ``Content-Length`` bounding the block (an invalid or negative one read as 0), the blank lines
  between records, the line warcio skips with a warning after a record whose length was wrong;
- the payload as warcio's ``content_stream()`` reads it: HTTP chunked transfer-encoding
  (with warcio's fallbacks when a chunk is malformed) and gzip/deflate content-encoding, fed to
  zlib in warcio's 16 KiB blocks (so a corrupt stream stops where warcio's does).

What is not reproduced goes to warcio itself, counted in :data:`FALLBACK`: a brotli-encoded
payload when the ``brotli`` module is installed (warcio's own readers decode that payload), and
any file whose structure leaves the cases above (no ``Content-Length``, a status line that is not
``WARC/...``, ARC files, a gzip member holding more than one record, a corrupt or truncated file,
a read error): that file is read again by warcio from its start, the records already given are
passed over, and warcio gives the rest (its exceptions included).

Not reproduced (no document, statistic or exception depends on them): the offset warcio prints
with its "Record not followed by newline" warning when it reads gzip members itself (it prints
the compressed file's offset, this parser the member's); after a restart, warcio logs its
``WARC-Target-URI`` fix-ups again for the records passed over; the time statistic's values (its
count is datatrove's: one entry per record).
"""

from __future__ import annotations

import logging
import sys
import zlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

__all__ = ["iter_warc", "process_record", "record_to_dict", "FALLBACK", "content_stream_read"]

#: records given by warcio instead of this parser: "records" (whole records after a restart),
#: "payloads" (payloads decoded by warcio's readers), "files" (files restarted with warcio)
FALLBACK: Dict[str, int] = {"records": 0, "payloads": 0, "files": 0}

_WARC_TYPES = ("WARC/1.1", "WARC/1.0", "WARC/0.17", "WARC/0.18")
_HTTP_RECORDS = ("response", "request", "revisit")
_HTTP_SCHEMES = ("http:", "https:")
_BLOCK = 16384  # warcio's BUFF_SIZE: the size of its reads, which decides where a corrupt stream stops
_CHUNK = 1 << 20
_HTML = ("text/html", "application/xhtml+xml")

_uri_logger = logging.getLogger("warcio.recordloader")

_INC_RECORD = """\
    WARNING: Record not followed by newline, perhaps Content-Length is invalid
    Offset: {0}
    Remainder: {1}
"""


class _Fallback(Exception):
    """This parser cannot reproduce warcio here: warcio reads the file."""


# --------------------------------------------------------------------------- headers


def _decode_header(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("iso-8859-1")


def get_header(headers: List[Tuple[str, str]], name: str, default: Any = None) -> Any:
    """warcio's ``StatusAndHeaders.get_header``: the first value of ``name``, compared lowercased."""
    lower = name.lower()
    for key, value in headers:
        if key.lower() == lower:
            return value
    return default


def _replace_header(headers: List[Tuple[str, str]], name: str, value: str) -> None:
    # warcio replaces the LAST header of the name (get_header reads the first)
    lower = name.lower()
    for index in range(len(headers) - 1, -1, -1):
        if headers[index][0].lower() == lower:
            headers[index] = (headers[index][0], value)
            return
    headers.append((name, value))


def _target_uri(headers: List[Tuple[str, str]]) -> Optional[str]:
    """warcio's ``_ensure_target_uri_format``: the URI unwrapped from <> and with %20 for spaces."""
    uri = get_header(headers, "WARC-Target-URI")
    if uri is not None and uri.startswith("<") and uri.endswith(">"):
        uri = uri[1:-1]
        _replace_header(headers, "WARC-Target-URI", uri)
    if uri is not None and " " in uri:
        _uri_logger.warning("Replacing spaces in invalid WARC-Target-URI: {}".format(uri))
        uri = uri.replace(" ", "%20")
        _replace_header(headers, "WARC-Target-URI", uri)
    return uri


def _header_lines(readline: Callable[[], bytes]) -> List[Tuple[str, str]]:
    """The header lines after a status line, up to the first blank line (or the end), as warcio parses them."""
    headers: List[Tuple[str, str]] = []
    line = _decode_header(readline()).rstrip()
    while line:
        name, colon, value = line.partition(":")
        if colon:
            name = name.rstrip(" \t")
            value = value.lstrip()
        following = _decode_header(readline()).rstrip()
        while following and following[0] in " \t":
            if colon:
                value += following
            following = _decode_header(readline()).rstrip()
        if colon:
            headers.append((name, value))
        line = following
    return headers


# --------------------------------------------------------------------------- the payload


class _Slice:
    """A bytes object read as warcio's LimitReader over its reader reads the record's block."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def read(self, n: Optional[int] = None) -> bytes:
        start = self.pos
        end = len(self.data) if n is None else min(start + n, len(self.data))
        if end <= start:
            return b""
        self.pos = end
        return self.data[start:end]

    def readline(self, n: Optional[int] = None) -> bytes:
        start = self.pos
        limit = len(self.data) if n is None else min(start + n, len(self.data))
        if limit <= start:
            return b""
        nl = self.data.find(b"\n", start, limit)
        end = limit if nl < 0 else nl + 1
        self.pos = end
        return self.data[start:end]


def _decompressor(kind: str) -> Any:
    if kind == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if kind == "deflate":
        return zlib.decompressobj()
    return zlib.decompressobj(-zlib.MAX_WBITS)  # deflate_alt


class _Decoding:
    """warcio's BufferedReader decompression state: the decompressor, dropped (data passed through)
    when the first block fails; deflate retried as raw deflate; a later failure ends the output."""

    __slots__ = ("kind", "d", "got")

    def __init__(self, kind: Optional[str]) -> None:
        self.kind = kind
        self.d = _decompressor(kind) if kind else None
        self.got = 0  # decompressed bytes so far (warcio's num_block_read)

    def process(self, data: bytes) -> bytes:
        data = self._decompress(data)
        self.got += len(data)
        return data

    def _decompress(self, data: bytes) -> bytes:
        if self.d is not None and data:
            try:
                return self.d.decompress(data)
            except Exception as err:  # noqa: BLE001 - warcio catches every error here
                if self.got == 0:
                    if self.kind == "deflate":
                        self.kind = "deflate_alt"
                        self.d = _decompressor("deflate_alt")
                        return self._decompress(data)
                    self.d = None
                    return data
                sys.stderr.write(str(err) + "\n")
                return b""
        return data

    def pending(self) -> bool:
        return self.d is not None and bool(self.d.unused_data)


def _plain_read(stream: _Slice, dec: _Decoding, out: List[bytes]) -> None:
    """warcio's BufferedReader.read() of the rest of ``stream``, through ``dec``."""
    while True:
        if dec.pending():  # a finished gzip member: warcio reads no further
            return
        data = stream.read(_BLOCK)
        if not data:
            return
        got = dec.process(data)
        while not got and data and dec.d is not None and not dec.d.unused_data:
            data = stream.read(_BLOCK)
            if not data:
                break
            got = dec.process(data)
        if not got:
            return
        out.append(got)


def _chunked_read(stream: _Slice, dec: _Decoding) -> bytes:
    """warcio's ChunkedDataReader.read(): de-chunked (and decoded) until the last chunk, or read
    plainly from where the chunks stop making sense."""
    out: List[bytes] = []
    while True:
        header = stream.readline(64)
        bad = None
        if header[-2:] != b"\r\n" and __debug__:  # warcio checks with assert
            bad = b""
        else:
            try:
                size = int(header[:-2].split(b";")[0], 16)
            except ValueError:
                bad = b""
            else:
                if size > 2**31 and __debug__:
                    bad = b""
        if bad is None:
            if not size:
                if stream.read(2) != b"\r\n" and __debug__:
                    bad = b""
                else:
                    break  # the last chunk
            else:
                data = b""
                cut = False
                while len(data) < size:
                    more = stream.read(size - len(data))
                    if not more:
                        cut = True  # the data ends inside the chunk: warcio keeps what came
                        size = len(data)
                    data += more
                if not cut and stream.read(2) != b"\r\n":
                    bad = data
                else:
                    got = dec.process(data)
                    if got:
                        out.append(got)
                    if cut:
                        break
                    continue
        # not chunked after all: the line (and the chunk read) as data, then the rest as plain
        got = dec.process(header + bad)
        if got:
            out.append(got)
            if dec.pending():
                break
        _plain_read(stream, dec, out)
        break
    return b"".join(out)


def content_stream_read(http_headers: Optional[List[Tuple[str, str]]], payload: bytes) -> Optional[bytes]:
    """What ``record.content_stream().read()`` gives for a payload after parsed HTTP headers
    (``None`` for headers warcio found empty: the payload is returned as is); ``None`` is returned
    too when warcio's own readers must decode it (brotli): the caller counts and delegates."""
    if not http_headers:
        return payload
    encoding = get_header(http_headers, "content-encoding")
    if encoding:
        encoding = encoding.lower()
        if encoding not in _SUPPORTED:
            encoding = None
    if encoding == "br":
        return None
    chunked = get_header(http_headers, "transfer-encoding") == "chunked"
    if chunked:
        return _chunked_read(_Slice(payload), _Decoding(encoding))
    if encoding:
        out: List[bytes] = []
        _plain_read(_Slice(payload), _Decoding(encoding), out)
        return b"".join(out)
    return payload


def _supported() -> Tuple[str, ...]:
    names = ("gzip", "deflate", "deflate_alt")
    try:
        import brotli  # noqa: F401  - warcio decodes br only when this module is importable
    except ImportError:
        return names
    return names + ("br",)


_SUPPORTED = _supported()


def _warcio_content(http_headers: List[Tuple[str, str]], payload: bytes) -> bytes:
    """The payload decoded by warcio's own readers (what its content_stream() would build)."""
    import io

    from warcio.bufferedreaders import BufferedReader, ChunkedDataReader
    from warcio.limitreader import LimitReader

    encoding = get_header(http_headers, "content-encoding")
    if encoding:
        encoding = encoding.lower()
        if encoding not in BufferedReader.get_supported_decompressors():
            encoding = None
    raw = LimitReader(io.BytesIO(payload), len(payload))
    if get_header(http_headers, "transfer-encoding") == "chunked":
        return ChunkedDataReader(raw, decomp_type=encoding).read()
    if encoding:
        return BufferedReader(raw, decomp_type=encoding).read()
    return raw.read()


# --------------------------------------------------------------------------- datatrove's record processing


def _accepted(mime_type: str, rec_type: str) -> bool:
    return mime_type in _HTML or (rec_type == "conversion" and mime_type == "text/plain")


def record_to_dict(rec_type: Optional[str], headers: List[Tuple[str, str]],
                   content: Callable[[], bytes]) -> Optional[dict]:
    """datatrove's ``process_record`` on a record's type, WARC headers and (lazily read) content."""
    import cchardet
    import magic

    if rec_type != "response" and rec_type != "conversion":
        return None
    mime_type = get_header(headers, "WARC-Identified-Payload-Type", None)
    if mime_type is not None and not _accepted(mime_type, rec_type):
        return None
    content_bytes = content()
    if mime_type is None:  # older crawls: python-magic guesses the type
        if not _accepted(magic.from_buffer(content_bytes, mime=True), rec_type):
            return None
    try:
        html = content_bytes.decode("UTF-8")
    except UnicodeDecodeError:
        detected = cchardet.detect(content_bytes)["encoding"]
        if not detected or detected == "UTF-8":
            return None
        try:
            html = content_bytes.decode(detected)
        except (UnicodeDecodeError, LookupError):
            return None
    id_ = get_header(headers, "WARC-Record-ID")
    url = get_header(headers, "WARC-Target-URI", None)
    date = get_header(headers, "WARC-Date", None)
    if not url:  # ARC records: their own header names (a KeyError when absent, as in datatrove)
        url = dict(headers)["uri"]
    if not date:
        date = dict(headers)["archive-date"]
    return {"text": html, "id": id_, "url": url, "date": date}


def process_record(record: Any) -> Optional[dict]:
    """datatrove's ``process_record`` for a warcio record."""
    return record_to_dict(record.rec_type, record.rec_headers.headers, lambda: record.content_stream().read())


# --------------------------------------------------------------------------- the streams


class _Stream:
    """The (decompressed) file as warcio's reader serves it, read in large blocks."""

    __slots__ = ("fh", "buf", "pos", "base", "eof")

    def __init__(self, fh: Any, initial: bytes = b"", eof: bool = False) -> None:
        self.fh = fh
        self.buf = initial
        self.pos = 0
        self.base = 0  # the stream offset of buf[0]
        self.eof = eof

    def _more(self, want: int) -> bool:
        """At least ``want`` more bytes buffered after pos (fewer at the end); False at the end."""
        if self.eof:
            return False
        parts = [self.buf[self.pos:]]
        have = len(parts[0])
        while have < want:
            try:
                block = self.fh.read(max(_CHUNK, want - have))
            except Exception as err:  # noqa: BLE001 - warcio meets the same error at its own pace
                raise _Fallback(f"read error: {err!r}") from err
            if not block:
                self.eof = True
                break
            parts.append(block)
            have += len(block)
        self.base += self.pos
        self.buf = b"".join(parts)
        self.pos = 0
        return len(parts) > 1

    def tell(self) -> int:
        return self.base + self.pos

    def readline(self) -> bytes:
        nl = self.buf.find(b"\n", self.pos)
        while nl < 0:
            scanned = len(self.buf) - self.pos
            if not self._more(scanned + _CHUNK):
                break
            nl = self.buf.find(b"\n", self.pos + scanned)
        end = len(self.buf) if nl < 0 else nl + 1
        line = self.buf[self.pos:end]
        self.pos = end
        return line

    def read(self, n: int) -> bytes:
        if len(self.buf) - self.pos < n:
            self._more(n)
        start = self.pos
        self.pos = min(start + n, len(self.buf))
        return self.buf[start:self.pos]

    def skip(self, n: int) -> int:
        """Passes over up to n bytes without keeping them; returns how many."""
        done = 0
        while n > done:
            have = len(self.buf) - self.pos
            if have == 0:
                if not self._more(min(n - done, _CHUNK)):
                    break
                continue
            step = min(have, n - done)
            self.pos += step
            done += step
        return done

    def at_end(self) -> bool:
        return self.pos >= len(self.buf) and not self._more(1)


class _Member(_Stream):
    """One decompressed gzip member (the stream ends with it)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(None, data, eof=True)


# --------------------------------------------------------------------------- the records


def _records(stream: _Stream, state: Dict[str, Any], one: bool) -> Iterator[Tuple[Optional[str], list, Any]]:
    """Records of a stream as (type, WARC headers, content reader); ``one``: a gzip member, which
    must hold exactly one record. Raises _Fallback where warcio's reading is not reproduced."""
    next_line: Optional[bytes] = None
    count = 0
    while True:
        line = next_line if next_line is not None else stream.readline()
        if not line:
            if one and count == 0:
                raise _Fallback("empty gzip member")
            return
        if one and count == 1:
            raise _Fallback("a gzip member with more than one record")
        status = _decode_header(line).rstrip()
        if not status or not status.upper().startswith(_WARC_TYPES):
            raise _Fallback("not a WARC status line")
        headers = _header_lines(stream.readline)
        rec_type = get_header(headers, "WARC-Type")
        uri = _target_uri(headers)
        length_text = get_header(headers, "Content-Length")
        if length_text is None:
            raise _Fallback("no Content-Length")
        try:
            length = int(length_text)
        except (ValueError, TypeError):
            length = 0
        if length < 0:
            length = 0
        http = length != 0 and rec_type in _HTTP_RECORDS
        if http and uri is None:
            raise _Fallback("HTTP record without WARC-Target-URI")  # warcio: AttributeError
        http = http and uri.startswith(_HTTP_SCHEMES)
        if http and rec_type != "revisit" and stream.at_end():
            raise _Fallback("HTTP record at the end of the stream")  # warcio: EOFError ends the file
        taken: List[bool] = []

        def content(length: int = length, http: bool = http) -> bytes:
            taken.append(True)
            block = stream.read(length)
            if not http:
                return block
            part = _Slice(block)
            first = part.readline()
            status_text = _decode_header(first).rstrip()
            if not status_text:
                return block[part.pos:]  # warcio's empty HTTP headers: the payload as is
            http_headers = _header_lines(part.readline)
            _, space, rest = status_text.partition(" ")
            payload = block[part.pos:]
            if not (space and rest.strip()) and not http_headers:
                return payload
            out = content_stream_read(http_headers, payload)
            if out is None:
                state["payloads"] += 1
                out = _warcio_content(http_headers, payload)
            return out

        count += 1
        yield rec_type, headers, content
        if not taken:
            stream.skip(length)
        # warcio's blank lines between records; the first line is skipped even when it is not blank
        first = True
        while True:
            after = stream.tell()
            line = stream.readline()
            if not line:
                next_line = None
                break
            if not line.rstrip() or first:
                if line.rstrip():
                    sys.stderr.write(_INC_RECORD.format(after, line))
                first = False
                continue
            next_line = line
            break


def _read(fh: Any, n: int) -> bytes:
    """fh.read(n); an error becomes _Fallback (warcio meets it at its own point, and may end quietly: EOFError)."""
    try:
        return fh.read(n)
    except Exception as err:  # noqa: BLE001
        raise _Fallback(f"read error: {err!r}") from err


def _gzip_members(fh: Any) -> Iterator[_Member]:
    """Each gzip member of a raw stream, decompressed; _Fallback for anything but clean members to the end."""
    pending = b""
    eof = False
    while True:
        if not pending and not eof:
            pending = _read(fh, 65536)
            if not pending:
                return
        elif not pending:
            return
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        parts = []
        data = pending
        pending = b""
        while True:
            try:
                parts.append(d.decompress(data))
            except zlib.error as err:
                raise _Fallback(f"gzip: {err}") from err
            if d.eof:
                pending = d.unused_data
                break
            data = _read(fh, 65536)
            if not data:
                raise _Fallback("truncated gzip member")
        yield _Member(b"".join(parts))


def _fast(fh: Any, state: Dict[str, Any]) -> Iterator[Tuple[Optional[str], list, Any]]:
    head = _read(fh, 2)
    if len(head) < 2 or head[:1] == b"\x1f":
        if head == b"\x1f\x8b":
            rest = _read(fh, 65534)

            class _Joined:
                def __init__(self) -> None:
                    self.first = head + rest

                def read(self, n: int) -> bytes:
                    if self.first:
                        out, self.first = self.first, b""
                        return out
                    return _read(fh, n)

            for member in _gzip_members(_Joined()):
                yield from _records(member, state, one=True)
            return
        if not head:
            return  # an empty file: no records (warcio's too)
        raise _Fallback("a stream warcio reads by its own rules")
    yield from _records(_Stream(fh, head), state, one=False)


def iter_warc(open_file: Callable[[], Any], state: Optional[Dict[str, Any]] = None,
              timer: Optional[Callable[[], Any]] = None,
              finish: Optional[Callable[[Optional[dict], int], Any]] = None) -> Iterator[Any]:
    """For every record of a WARC file, in order: ``finish(data, index)`` (default: ``(index, data)``),
    ``data`` being what datatrove's ``process_record`` makes of the record (None for a record it
    skips) and ``index`` datatrove's ``ri`` (records skipped included).

    ``open_file`` opens the file as datatrove does (binary, its compression); it is called again
    when warcio reads the file after all. ``timer()`` (e.g. a step's ``track_time``) is entered
    around each record's processing and ``finish``, as datatrove's reader does. ``state`` collects
    the counts of what warcio did (``records``, ``payloads``, ``files``).
    """
    state = state if state is not None else {}
    for key in ("records", "payloads", "files"):
        state.setdefault(key, 0)
    timer = timer or _no_timer
    finish = finish or _pair
    done = 0
    timed = -1  # a record whose timing was counted before warcio had to take it over
    try:
        with open_file() as fh:
            for rec_type, headers, content in _fast(fh, state):
                before = state["payloads"]
                timed = done
                with timer():  # the block is read in here, as datatrove's content_stream().read() is
                    result = finish(record_to_dict(rec_type, headers, content), done)
                timed = -1
                done += 1
                FALLBACK["payloads"] += state["payloads"] - before
                yield result
        return
    except _Fallback:
        pass
    from warcio.archiveiterator import ArchiveIterator

    state["files"] += 1
    FALLBACK["files"] += 1
    with open_file() as fh:
        for index, record in enumerate(ArchiveIterator(fh)):
            if index < done:
                continue
            state["records"] += 1
            FALLBACK["records"] += 1
            if index == timed:
                result = finish(process_record(record), index)
            else:
                with timer():
                    result = finish(process_record(record), index)
            yield result


def _pair(data: Optional[dict], index: int) -> Tuple[int, Optional[dict]]:
    return index, data


class _NoTimer:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _no_timer() -> _NoTimer:
    return _NoTimer()
