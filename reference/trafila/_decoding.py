"""trafilatura's decoding of ``bytes`` input, release by release.

What ``trafilatura.utils.decode_file`` does with bytes before ``load_html``
hands the page to lxml, for 2.3.1 and 1.11.0:

1. **decompression** (``handle_compressed_file``), whatever the HTTP headers
   said: gzip by its magic number, zstd by its magic number, brotli and zlib
   speculatively, each only when the module the release imports is installed
   here (probed as the release probes it, see :func:`compression_modules`);
2. **UTF-8** when the (decompressed) bytes decode strictly;
3. **charset detection** otherwise (``detect_encoding``): cchardet's guess
   first when cchardet is installed, then charset_normalizer's ``from_bytes``
   on the whole page (under 10,000 bytes) or on its first and last 5,000
   bytes, falling back to the whole page when that finds nothing; each
   guess but UTF-8 is tried in turn with Python's codec;
4. the **destructive fallback**: UTF-8 with ``errors="replace"``.

The result is a ``str``, which both releases give to lxml as a ``str`` (so
libxml2 never sees the page's BOM or ``<meta charset>`` as bytes, except in
``fromstring_bytes``' UTF-8 re-encoding, which the parser port handles).

Per-release differences, named where they act:

* 2.3.1 caps every decompressed size at ``MAX_FILE_SIZE`` (decompression
  bombs), treats a failed gzip/zstd stream as terminal (no zlib try after
  it), reads several gzip/zstd members, probes brotli >= 1.2
  (``output_buffer_limit``) and takes zstd from ``compression.zstd``
  (Python >= 3.14) or ``backports.zstd``;
* 1.11.0 decompresses without a cap (``gzip.decompress``,
  ``zstandard.decompress``, ``brotli.decompress``, ``zlib.decompress``), tries
  brotli and zlib after a broken gzip stream, and its decode loop keeps an
  empty decoded string as a failure (``htmltext or ...``), so a page whose
  guessed codec gives ``""`` (a lone UTF-16 BOM) comes out through the
  destructive fallback.

charset_normalizer is trafila's optional dependency (``pip install
trafila[charset]``, pinned in ``REPRODUCED_VERSIONS``). Without it, bytes that
need charset detection raise :class:`~trafila.NotNative` with
:data:`CHARSET_REASON`, and the call is handed to the installed trafilatura
as before. Decompression and UTF-8 never need it. Another installed
charset_normalizer is used as it is (trafilatura installed beside it would
use it too); byte-for-byte parity with the reproduced releases is measured
with the pinned one.

Both engines call :func:`decode_file` once per page, at the edge: the parse
of the decoded ``str`` stays in the engine's parser.
"""

from __future__ import annotations

import gzip
import logging
import sys
import zlib
from functools import lru_cache
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional, Union

from ._engine import NotNative

__all__ = [
    "CHARSET_REASON", "RELEASES", "decode_file", "handle_compressed_file", "detect_encoding",
    "charset_detection_available", "compression_modules", "needs_decoding",
]

#: the releases whose decoding is reproduced
RELEASES = ("2.3.1", "1.11.0")

#: the NotNative reason when charset detection is needed and charset_normalizer is not installed
CHARSET_REASON = "non-UTF-8 bytes (charset detection)"

#: the names trafilatura drops from the guesses (the bytes are known not to be UTF-8 then)
UNICODE_ALIASES = frozenset({"utf-8", "utf_8"})

GZIP_MAGIC = b"\x1f\x8b\x08"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

#: 2.3.1: a multi-member gzip/zstd stream has at most this many members (20 MB of bgzip is ~320)
MAX_MEMBERS = 1000

#: trafilatura's own loggers log these warnings; trafila logs them under the port's utils module
_LOGGERS = {"2.3.1": logging.getLogger("trafila.v2_3_1.utils"), "1.11.0": logging.getLogger("trafila.v1_11_0.utils")}


# --- the optional modules, as each release finds them ----------------------------------

def _import(name: str) -> Optional[ModuleType]:
    try:
        __import__(name)
    except ImportError:
        return None
    return sys.modules[name]


@lru_cache(maxsize=None)
def compression_modules(release: str) -> Dict[str, Optional[ModuleType]]:
    """The compression modules ``release`` would use here: ``{"brotli": module
    or None, "zstd": module or None}`` (looked up once, as trafilatura does at import).

    2.3.1 uses brotli only when ``Decompressor().process(b"",
    output_buffer_limit=1)`` works (brotli >= 1.2) and zstd from
    ``compression.zstd`` (Python >= 3.14) or ``backports.zstd``; 1.11.0 uses
    any importable brotli and the ``zstandard`` package.
    """
    _check_release(release)
    brotli = _import("brotli")
    if release == "2.3.1":
        if brotli is not None:
            try:
                brotli.Decompressor().process(b"", output_buffer_limit=1)
            except Exception:  # noqa: BLE001 - an older brotli: 2.3.1 then does without it
                brotli = None
        if sys.version_info >= (3, 14):  # pragma: no cover - the reproduced environment is older
            zstd = _import("compression.zstd")
        else:
            zstd = _import("backports.zstd")
        return {"brotli": brotli, "zstd": zstd}
    return {"brotli": brotli, "zstd": _import("zstandard")}


@lru_cache(maxsize=None)
def _cchardet_detect() -> Optional[Callable[[bytes], Dict[str, Any]]]:
    "``cchardet.detect`` when cchardet (or faust-cchardet) is installed, as both releases import it."
    module = _import("cchardet")
    return None if module is None else getattr(module, "detect", None)


@lru_cache(maxsize=None)
def _from_bytes() -> Optional[Callable[..., Any]]:
    "``charset_normalizer.from_bytes``, None without the ``charset`` extra."
    module = _import("charset_normalizer")
    return None if module is None else getattr(module, "from_bytes", None)


def charset_detection_available() -> bool:
    """True when charset_normalizer is installed (``trafila[charset]``): bytes in
    any charset are then decoded natively."""
    return _from_bytes() is not None


def _check_release(release: str) -> None:
    if release not in RELEASES:
        raise ValueError(f"unsupported release {release!r}; supported: {', '.join(RELEASES)}")


# --- decompression -----------------------------------------------------------------------

def _bounded_members(raw: bytes, make_dec: Callable[[], Any], max_size: int) -> bytes:
    """2.3.1: concatenated gzip/zstd members, at most ``max_size`` bytes out.

    One capped ``decompress`` per member and no flush (the input past the cap
    stays compressed); a member cut short, an output over the cap or more than
    MAX_MEMBERS members raise ValueError. NUL padding between members is skipped.
    """
    out = bytearray()
    for _ in range(MAX_MEMBERS):
        dec = make_dec()
        out += dec.decompress(raw, max_size + 1 - len(out))
        if len(out) > max_size or not dec.eof:
            raise ValueError("oversized or incomplete compressed stream")
        raw = dec.unused_data.lstrip(b"\0")
        if not raw:
            return bytes(out)
    raise ValueError("too many compressed members")


def _bounded_inflate(raw: bytes, max_size: int) -> bytes:
    "2.3.1: one zlib stream, at most ``max_size`` bytes out; bytes after its end are ignored."
    dec = zlib.decompressobj(zlib.MAX_WBITS)
    out = dec.decompress(raw, max_size + 1)
    if len(out) > max_size or not dec.eof:
        raise ValueError("oversized or incomplete compressed stream")
    return out


def _bounded_unbrotli(brotli: ModuleType, raw: bytes, max_size: int) -> bytes:
    "2.3.1: one brotli stream, at most ``max_size`` bytes out; an unfinished stream is an error."
    dec = brotli.Decompressor()
    out: bytes = dec.process(raw, output_buffer_limit=max_size + 1)
    if len(out) > max_size or not dec.is_finished():
        raise ValueError("oversized or incomplete compressed stream")
    return out


def _decompress_2_3_1(filecontent: bytes, max_size: Optional[int]) -> bytes:
    if max_size is None:
        from .v2_3_1.settings import DEFAULT_CONFIG  # noqa: PLC0415 - settings import utils

        max_size = DEFAULT_CONFIG.getint("DEFAULT", "MAX_FILE_SIZE")
    modules = compression_modules("2.3.1")
    log = _LOGGERS["2.3.1"]
    # a magic number is terminal: a broken stream is a corrupt file, not another format
    if filecontent[:3] == GZIP_MAGIC:
        try:
            return _bounded_members(filecontent, lambda: zlib.decompressobj(31), max_size)
        except (zlib.error, ValueError):
            log.warning("invalid or oversized GZ file")
    elif modules["zstd"] is not None and filecontent[:4] == ZSTD_MAGIC:
        zstd = modules["zstd"]
        try:
            return _bounded_members(filecontent, zstd.ZstdDecompressor, max_size)
        except (zstd.ZstdError, ValueError):
            log.warning("invalid or oversized ZSTD file")
    else:
        brotli = modules["brotli"]
        if brotli is not None:
            try:
                return _bounded_unbrotli(brotli, filecontent, max_size)
            except (brotli.error, ValueError):
                pass
        try:
            return _bounded_inflate(filecontent, max_size)
        except (zlib.error, ValueError):
            pass
    return filecontent


def _decompress_1_11_0(filecontent: bytes) -> bytes:
    modules = compression_modules("1.11.0")
    log = _LOGGERS["1.11.0"]
    if filecontent[:3] == GZIP_MAGIC:
        try:
            return gzip.decompress(filecontent)
        except Exception:  # noqa: BLE001 - EOFError, OSError, gzip.BadGzipFile, as 1.11.0 catches
            log.warning("invalid GZ file")
    zstandard = modules["zstd"]
    if zstandard is not None and filecontent[:4] == ZSTD_MAGIC:
        try:
            return zstandard.decompress(filecontent)
        except zstandard.ZstdError:
            log.warning("invalid ZSTD file")
    brotli = modules["brotli"]
    if brotli is not None:
        try:
            return brotli.decompress(filecontent)
        except brotli.error:
            pass
    try:
        return zlib.decompress(filecontent)
    except zlib.error:
        pass
    return filecontent


def handle_compressed_file(filecontent: Any, release: str, max_size: Optional[int] = None) -> Any:
    """trafilatura ``release``'s ``handle_compressed_file``: the decompressed
    bytes, or the input itself (the same object) when nothing decompresses it.
    ``max_size`` (2.3.1 only; default: its settings' ``MAX_FILE_SIZE``) caps the output."""
    _check_release(release)
    if not isinstance(filecontent, bytes):
        return filecontent
    if release == "2.3.1":
        return _decompress_2_3_1(filecontent, max_size)
    return _decompress_1_11_0(filecontent)


# --- charset detection and decoding -------------------------------------------------------

def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def detect_encoding(bytesobject: bytes, release: str = "2.3.1") -> List[str]:
    """trafilatura's ``detect_encoding``: ``["utf-8"]`` for UTF-8, else the
    guesses in order (cchardet's, lowercased, then charset_normalizer's), UTF-8
    aliases dropped. The same in both releases.

    Raises NotNative(:data:`CHARSET_REASON`) when the bytes are not UTF-8 and
    charset_normalizer is not installed.
    """
    _check_release(release)
    if _is_utf8(bytesobject):
        return ["utf-8"]
    from_bytes = _from_bytes()
    if from_bytes is None:
        raise NotNative(CHARSET_REASON)
    guesses: List[str] = []
    cchardet_detect = _cchardet_detect()
    if cchardet_detect is not None:
        cchardet_guess = cchardet_detect(bytesobject)["encoding"]
        if cchardet_guess is not None:
            guesses.append(cchardet_guess.lower())
    if len(bytesobject) < 10000:
        results = from_bytes(bytesobject)
    else:
        # the first and last 5,000 bytes; the whole page when they give no match
        results = from_bytes(bytesobject[:5000] + bytesobject[-5000:]) or from_bytes(bytesobject)
    guesses.extend(r.encoding for r in results)
    return [g for g in guesses if g not in UNICODE_ALIASES]


def _decode_2_3_1(filecontent: bytes) -> str:
    try:
        return filecontent.decode("utf-8")
    except UnicodeDecodeError:
        pass
    for guess in detect_encoding(filecontent, "2.3.1"):
        try:
            return filecontent.decode(guess)
        except (LookupError, UnicodeDecodeError):
            _LOGGERS["2.3.1"].warning("wrong encoding detected: %s", guess)
    return str(filecontent, encoding="utf-8", errors="replace")


def _decode_1_11_0(filecontent: bytes) -> str:
    htmltext: Optional[str] = None
    for guess in detect_encoding(filecontent, "1.11.0"):
        try:
            htmltext = filecontent.decode(guess)
        except (LookupError, UnicodeDecodeError):
            _LOGGERS["1.11.0"].warning("wrong encoding detected: %s", guess)
            htmltext = None
        else:
            break
    # an empty decoding counts as none (1.11.0's ``htmltext or ...``)
    return htmltext or str(filecontent, encoding="utf-8", errors="replace")


def decode_file(filecontent: Union[bytes, str], release: str, max_size: Optional[int] = None) -> str:
    """trafilatura ``release``'s ``decode_file``: a ``str`` unchanged; bytes
    decompressed (:func:`handle_compressed_file`), then decoded as UTF-8, as
    the detected charsets, or destructively.

    Raises NotNative(:data:`CHARSET_REASON`) when the bytes need charset
    detection and charset_normalizer is not installed.
    """
    _check_release(release)
    if isinstance(filecontent, str):
        return filecontent
    if release == "2.3.1":
        return _decode_2_3_1(_decompress_2_3_1(filecontent, max_size))
    return _decode_1_11_0(_decompress_1_11_0(filecontent))


def needs_decoding(raw: bytes, release: str = "2.3.1", max_size: Optional[int] = None) -> bool:
    """True when ``release`` does more with ``raw`` than decode it as UTF-8:
    it decompresses it, or detects its charset (what the harness's
    ``--only-decoded`` selects)."""
    if handle_compressed_file(raw, release, max_size) is not raw:
        return True
    return not _is_utf8(raw)
