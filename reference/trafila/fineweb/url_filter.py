"""datatrove 0.10.1's URL filter: its block lists and its decision, with the lists in a compact cache.

datatrove's ``URLFilter`` reads, once per task, its block lists into Python sets: the domains
(4.5 million lines) and URLs of ``assets/url_filterblacklistsv0_3_0.tar.gz`` (extracted into
huggingface_hub's cached-assets folder ``datatrove/filters/url_filter`` the first time), and the
banned words, banned subwords and soft banned words of ``assets/*.txt``. Most of the step's time is
that load.

Here the two large lists are read once per machine into a table file (an exact hash table: the
entries' UTF-8 bytes, grouped in buckets and compared byte for byte; no probabilistic structure,
no membership by hash alone), kept in
``$TRAFILA_CACHE_DIR``, else ``$XDG_CACHE_HOME/trafila``, else ``~/.cache/trafila``, named by the
sha256 of the files datatrove would read, datatrove's version and the text encoding ``open()``
decodes them with; written atomically under an inter-process lock. Each process maps it
(``mmap``) and looks strings up in it: loading takes milliseconds. The small word lists are read
as datatrove reads them. Registered domains and FQDNs come from the installed tldextract's
``TLDExtract()``, as in datatrove; the banned subwords from a pyahocorasick automaton built as
datatrove builds it.

Without datatrove (or with ``source="packaged"``), the lists come from ``data/url-blocklists.bin``,
the sets datatrove 0.10.1's filter builds, written by ``tools/gen_url_blocklists.py`` (its header
names the source and the licences: the domains and URLs are the UT1 blacklists, CC BY-SA 4.0).
"""

from __future__ import annotations

import hashlib
import io
import importlib.util
import json
import locale
import lzma
import mmap
import os
import re
import struct
import sys
import tarfile
import tempfile
import threading
from typing import Any, Dict, Iterable, Iterator, Optional, Set, Tuple

__all__ = [
    "normalizer", "normalize", "parse_list", "get_list", "StringTable", "BlockList", "BlockLists",
    "build_table", "build_table_from_lines", "bucket_hash", "cache_dir", "lists_source", "parse_list_bytes",
    "load_block_lists", "url_filter_decision", "TARBALL", "ASSET_LISTS", "PACKAGED_LISTS", "read_packaged",
    "packaged_word_lists", "datatrove_available",
]

#: datatrove's word separator: every run of characters that are not ASCII letters or digits
normalizer = re.compile(r"[^a-zA-Z0-9]+")

#: the block-list tarball in datatrove's assets, and the name of its ``.completed`` marker
TARBALL = "url_filterblacklistsv0_3_0.tar.gz"
#: the small lists datatrove reads from its assets folder (normalized)
ASSET_LISTS = ("banned_words.txt", "banned_subwords.txt", "soft_banned_words.txt")

#: the block lists as package data (tools/gen_url_blocklists.py): datatrove 0.10.1's sets
PACKAGED_LISTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "url-blocklists.bin")
#: the packaged sections holding datatrove's assets/*.txt word lists, by file name
_WORD_SECTIONS = {"banned_words.txt": "banned_words", "banned_subwords.txt": "banned_subwords",
                  "soft_banned_words.txt": "soft_banned_words"}

_MAGIC = b"TRFURLT3"
_HEADER = struct.Struct("<8sQQQQc7x")  # magic, entries, buckets, blob bytes, blob offset, offset typecode
_FORMAT = 3


def normalize(text: str, replace: str = "") -> str:
    """datatrove's ``normalize``: the runs of non-alphanumeric (ASCII) characters replaced, then lowercased."""
    return normalizer.sub(replace, text).lower()


def parse_list(line: Iterable[str], do_normalize: bool = True) -> Set[str]:
    """datatrove's ``parse_list``: the set of the items not starting with ``#``, normalized or stripped.

    Like datatrove, an empty item raises IndexError and a string argument is read character by character.
    """
    return {normalize(x) if do_normalize else x.strip() for x in line if x[0] != "#"}


def get_list(abs_path: str, file_name: str, extra: Set[str], do_normalize: bool = True) -> Set[str]:
    """datatrove's ``get_list``: a list file (opened as ``open()`` opens text) parsed, with ``extra`` added."""
    with open(os.path.join(abs_path, file_name)) as fh:
        return parse_list(fh, do_normalize).union(extra)


# --------------------------------------------------------------------------- the exact table


_M64 = (1 << 64) - 1
_K1, _K2, _K3, _K4 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93


def bucket_hash(kb: bytes) -> int:
    """The 64-bit hash that places an entry in its bucket: three 8-byte windows of it (start, middle,
    end) and its length, mixed. Only a bucket's place: membership compares the whole bytes."""
    n = len(kb)
    m = n // 2 - 4 if n >= 8 else 0
    h = (int.from_bytes(kb[:8], "little") * _K1 + int.from_bytes(kb[m:m + 8], "little") * _K2
         + int.from_bytes(kb[-8:], "little") * _K3 + n) & _M64
    h ^= h >> 31
    h = (h * _K4) & _M64
    return h ^ (h >> 29)


def _bucket_hashes(blob: bytes, starts: Any) -> Any:
    """:func:`bucket_hash` of every entry of a blob at once (numpy, wrapping uint64 arithmetic)."""
    import numpy as np

    padded = blob + bytes(16)
    words = np.ndarray(shape=(len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))  # 8 bytes at every offset
    s = starts[:-1].astype(np.int64)
    n = starts[1:].astype(np.int64) - 1 - s
    short = n < 8
    keep = np.where(short, (np.uint64(1) << (np.minimum(n, 7).astype(np.uint64) * np.uint64(8))) - np.uint64(1),
                    np.uint64(_M64))
    first = words[s] & keep
    middle = words[s + np.where(short, 0, n // 2 - 4)] & keep
    last = words[s + np.where(short, 0, n - 8)] & keep
    with np.errstate(over="ignore"):
        h = first * np.uint64(_K1) + middle * np.uint64(_K2) + last * np.uint64(_K3) + n.astype(np.uint64)
        h ^= h >> np.uint64(31)
        h *= np.uint64(_K4)
        h ^= h >> np.uint64(29)
    return h


class StringTable:
    """A set of strings in one buffer (a mapped file or bytes), for exact membership.

    Entries are UTF-8 bytes (``surrogatepass``: distinct strings, distinct bytes), each ended by a
    newline in one blob (an entry holds none); a permutation groups them in buckets by
    :func:`bucket_hash`; a lookup compares the candidate bytes in full. ``entries`` counts the
    stored entries (a table built from a file's lines keeps repeated lines).
    """

    __slots__ = ("_buf", "_mm", "_blob", "_starts", "_order", "_buckets", "_mask", "entries")

    def __init__(self, buf: Any, mm: Optional[mmap.mmap] = None) -> None:
        magic, entries, buckets, blob_len, blob_at, code = _HEADER.unpack_from(buf, 0)
        if magic != _MAGIC:
            raise ValueError("not a trafila URL table")
        view = memoryview(buf)
        width = 4 if code == b"I" else 8
        at = _HEADER.size
        self._buckets = view[at: at + 4 * (buckets + 1)].cast("I")
        at += 4 * (buckets + 1)
        self._order = view[at: at + 4 * entries].cast("I")
        at += 4 * entries
        self._starts = view[at: at + width * (entries + 1)].cast(code.decode())
        self._blob = view[blob_at: blob_at + blob_len]
        self._mask = buckets - 1
        self._buf = buf
        self._mm = mm
        self.entries = entries

    def __len__(self) -> int:
        return self.entries

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False  # the table holds strings only, as datatrove's set of lines does
        kb = key.encode("utf-8", "surrogatepass")
        b = bucket_hash(kb) & self._mask
        k, stop = self._buckets[b], self._buckets[b + 1]
        order, starts, blob, n = self._order, self._starts, self._blob, len(kb)
        while k < stop:
            i = order[k]
            s = starts[i]
            e = starts[i + 1] - 1  # the entry's newline excluded
            if e - s == n and blob[s:e] == kb:
                return True
            k += 1
        return False

    def entry(self, index: int) -> str:
        """The index-th string (in the table's own order)."""
        s, e = self._starts[index], self._starts[index + 1] - 1
        return bytes(self._blob[s:e]).decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        for i in range(self.entries):
            yield self.entry(i)

    def largest_bucket(self) -> int:
        """The most entries one lookup may compare (a measure of the hash's spread)."""
        return max((self._buckets[b + 1] - self._buckets[b] for b in range(self._mask + 1)), default=0)


def build_table(strings: Iterable[Any]) -> bytes:
    """The table file's bytes for strings (or their UTF-8 bytes), none holding a newline (see :class:`StringTable`)."""
    enc = [s if isinstance(s, bytes) else s.encode("utf-8", "surrogatepass") for s in strings]
    blob = b"\n".join(enc) + b"\n" if enc else b""
    if blob.count(b"\n") != len(enc):
        raise ValueError("a table entry holds a newline")
    return build_table_from_lines(blob)


def build_table_from_lines(blob: bytes) -> bytes:
    """The table file's bytes for the newline-ended entries of ``blob`` (kept in place, repeats kept)."""
    import numpy as np

    if blob and not blob.endswith(b"\n"):
        raise ValueError("the last entry has no newline")
    arr = np.frombuffer(blob, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    n = len(ends)
    buckets = 1 << max(0, (n - 1).bit_length()) if n else 1
    code = "I" if len(blob) < 2**32 else "Q"
    starts = np.zeros(n + 1, dtype=np.uint32 if code == "I" else np.uint64)
    starts[1:] = ends + 1
    hashes = _bucket_hashes(blob, starts) & np.uint64(buckets - 1) if n else np.zeros(0, dtype=np.uint64)
    order = np.argsort(hashes, kind="stable").astype("<u4")
    counts = np.bincount(hashes.astype(np.int64), minlength=buckets)
    bucket_starts = np.zeros(buckets + 1, dtype="<u4")
    np.cumsum(counts, out=bucket_starts[1:], dtype=np.uint32)
    arrays = bucket_starts.tobytes() + order.tobytes() + starts.astype("<" + ("u4" if code == "I" else "u8")).tobytes()
    blob_at = _HEADER.size + len(arrays)
    header = _HEADER.pack(_MAGIC, n, buckets, len(blob), blob_at, code.encode())
    return header + arrays + blob


class BlockList:
    """What datatrove's set of listed domains or URLs answers to ``in``: the extra set's strings
    and the table's (its union, without building it)."""

    __slots__ = ("extra", "table")

    def __init__(self, extra: Set[str], table: Optional[StringTable]) -> None:
        self.extra = extra
        self.table = table

    def __contains__(self, key: object) -> bool:
        if key in self.extra:
            return True
        return self.table is not None and key in self.table

    def __bool__(self) -> bool:
        return bool(self.extra) or bool(self.table is not None and len(self.table))


# --------------------------------------------------------------------------- where the lists come from


def cache_dir() -> str:
    """trafila's cache folder: ``$TRAFILA_CACHE_DIR``, ``$XDG_CACHE_HOME/trafila`` or ``~/.cache/trafila``."""
    env = os.environ.get("TRAFILA_CACHE_DIR")
    if env:
        return env
    xdg = os.environ.get("XDG_CACHE_HOME")
    return os.path.join(xdg if xdg else os.path.join(os.path.expanduser("~"), ".cache"), "trafila")


def _assets_path() -> str:
    from datatrove.utils._import_utils import ASSETS_PATH

    return ASSETS_PATH


def datatrove_available() -> bool:
    """Whether datatrove can be imported (found without importing it)."""
    try:
        return importlib.util.find_spec("datatrove") is not None
    except (ImportError, ValueError):
        return False


def lists_source(source: Optional[str] = None) -> Tuple[str, Dict[str, str]]:
    """Where the domains and URLs are read from. ``source="packaged"``, or None without datatrove:
    ``("packaged", {"packaged": PACKAGED_LISTS})``. Otherwise where datatrove's filter would read
    them now: ``("extracted", paths)`` when its cached-assets folder is complete
    (``<tarball>.completed``), else ``("tarball", path)`` (datatrove would extract the tarball
    there first: the same bytes)."""
    if source not in (None, "packaged", "datatrove"):
        raise ValueError(f"source must be None, 'packaged' or 'datatrove', not {source!r}")
    if source == "packaged" or (source is None and not datatrove_available()):
        return "packaged", {"packaged": PACKAGED_LISTS}
    from huggingface_hub import cached_assets_path

    download_dir = str(cached_assets_path(library_name="datatrove", namespace="filters", subfolder="url_filter"))
    if os.path.exists(os.path.join(download_dir, TARBALL) + ".completed"):
        return "extracted", {"domains": os.path.join(download_dir, "domains"), "urls": os.path.join(download_dir, "urls")}
    return "tarball", {"tarball": os.path.join(_assets_path(), TARBALL)}


def _text_encoding() -> str:
    # what open() decodes text with when no encoding is given
    return "utf-8" if sys.flags.utf8_mode else locale.getpreferredencoding(False)


def _sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fingerprints(paths: Iterable[str], folder: str) -> Dict[str, str]:
    """sha256 of each file, remembered by (size, mtime, inode) in ``fingerprints.json`` of ``folder``."""
    memo_path = os.path.join(folder, "fingerprints.json")
    try:
        with open(memo_path) as fh:
            memo = json.load(fh)
    except (OSError, ValueError):
        memo = {}
    out, changed = {}, False
    for path in paths:
        st = os.stat(path)
        stamp = [st.st_size, st.st_mtime_ns, st.st_ino]
        known = memo.get(path)
        if known and known[:3] == stamp:
            out[path] = known[3]
        else:
            out[path] = _sha256_file(path)
            memo[path] = stamp + [out[path]]
            changed = True
    if changed:
        try:
            _write_atomic(memo_path, json.dumps(memo, sort_keys=True).encode())
        except OSError:
            pass
    return out


def _write_atomic(path: str, data: bytes) -> None:
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would hide the cache from the machine's other users
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


_SPLITTING = (b"\r", b"\x1c", b"\x1d", b"\x1e", b"\x1f")  # text mode or str.strip treat these apart
_STRIPPED = (b" ", b"\t", b"\x0b", b"\x0c")


def _ascii_compatible(encoding: str) -> bool:
    try:
        return bytes(range(128)).decode(encoding) == "".join(map(chr, range(128)))
    except (LookupError, UnicodeDecodeError):
        return False


def parse_list_bytes(data: bytes, encoding: str) -> Optional[Set[bytes]]:
    """``parse_list(open(file), do_normalize=False)`` computed on the file's bytes, when that gives
    the same strings: ASCII text, decoded by an ASCII-compatible encoding, without carriage returns
    (text mode splits lines there too) or the separators ``\x1c``-``\x1f`` (``str.strip`` removes
    them, ``bytes.strip`` does not). The entries are returned as their (ASCII) bytes; None otherwise."""
    if not _bytes_apply(data, encoding):
        return None
    if not data:
        return set()
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()  # the piece after the last newline is not a line
    return {line.strip() for line in lines if line[:1] != b"#"}


def _bytes_apply(data: bytes, encoding: str) -> bool:
    return data.isascii() and not any(c in data for c in _SPLITTING) and _ascii_compatible(encoding)


def _table_from_source(data: bytes) -> bytes:
    """The table of one list file's bytes: the file itself as the blob when its lines are already
    datatrove's entries (no comment, nothing to strip), else the parsed set's."""
    encoding = _text_encoding()
    if _bytes_apply(data, encoding):
        if b"#" not in data and not any(c in data for c in _STRIPPED):
            if data and not data.endswith(b"\n"):
                data += b"\n"
            return build_table_from_lines(data)
        return build_table(parse_list_bytes(data, encoding))
    with io.TextIOWrapper(io.BytesIO(data), encoding=encoding) as fh:
        return build_table(parse_list(fh, do_normalize=False))


def read_packaged(path: Optional[str] = None, names: Optional[Iterable[str]] = None) -> Dict[str, bytes]:
    """The sections of the packaged lists file (``names``: only these; default: all): each the
    set's entries sorted by their UTF-8 bytes, each followed by a newline. Each section is checked
    against the count and sha256 its header line gives (ValueError when they differ)."""
    with open(path or PACKAGED_LISTS, "rb") as fh:
        data = fh.read()
    head, blank, payload = data.partition(b"\n\n")
    if not blank or not head.startswith(b"# trafila: the URL filter's block lists"):
        raise ValueError("not trafila's packaged URL block lists")
    sections = []
    for line in head.decode("ascii").split("\n"):
        if line.startswith("# section "):
            _, _, name, count, sha = line.split(" ")
            sections.append((name, int(count), sha))
    wanted = set(names) if names is not None else {name for name, _, _ in sections}
    lines = _xz_lines(payload)
    out: Dict[str, bytes] = {}
    for name, count, sha in sections:
        if not wanted - set(out):
            break  # the rest is not needed: not decompressed
        entries = []
        prev = b""
        for _ in range(count):
            coded = next(lines)
            prev = prev[:coded[0]] + coded[1:]  # front coding: the bytes shared with the entry before, then the rest
            entries.append(prev)
        if name not in wanted:
            continue
        section = b"".join(e + b"\n" for e in entries)
        if hashlib.sha256(section).hexdigest() != sha:
            raise ValueError(f"the packaged URL block list {name!r} does not match its header")
        out[name] = section
    return out


def _xz_lines(payload: bytes) -> Iterator[bytes]:
    """The newline-separated lines of an xz stream, decompressed as they are read."""
    dec = lzma.LZMADecompressor()
    pending = b""
    data = payload
    while not dec.eof:
        chunk = dec.decompress(data, 1 << 16)
        data = b""
        if not chunk and dec.needs_input:
            raise ValueError("the packaged URL block lists are truncated")
        parts = (pending + chunk).split(b"\n")
        pending = parts.pop()
        yield from parts
    if pending:
        yield pending


def packaged_word_lists(path: Optional[str] = None) -> Dict[str, Set[str]]:
    """The word lists datatrove's filter reads from its assets (normalized, comments left out),
    from the packaged file: ``{"banned_words.txt": {...}, "banned_subwords.txt": ..., "soft_banned_words.txt": ...}``."""
    sections = read_packaged(path, _WORD_SECTIONS.values())
    out = {}
    for file_name, name in _WORD_SECTIONS.items():
        text = sections[name].decode("utf-8", "surrogatepass")
        out[file_name] = set(text.split("\n")[:-1])
    return out


def _source_tables(kind: str, paths: Dict[str, str]) -> Tuple[bytes, bytes]:
    """The tables of the domains and URLs lists datatrove's ``get_list(..., do_normalize=False)`` reads."""
    members: Dict[str, bytes] = {}
    if kind == "packaged":
        sections = read_packaged(paths["packaged"], ("domains", "urls"))
        return build_table_from_lines(sections["domains"]), build_table_from_lines(sections["urls"])
    if kind == "extracted":
        for name in ("domains", "urls"):
            with open(paths[name], "rb") as fh:
                members[name] = fh.read()
    else:
        with tarfile.open(paths["tarball"], "r:gz") as tar:
            for member in tar:  # extractall: a later member of the same name overwrites an earlier one
                if member.isfile() and member.name in ("domains", "urls"):
                    members[member.name] = tar.extractfile(member).read()
    out = []
    for name in ("domains", "urls"):
        if name not in members:  # datatrove's open() of the extracted file would fail the same way
            raise FileNotFoundError(2, "No such file or directory", name)
        out.append(_table_from_source(members.pop(name)))
    return out[0], out[1]


class BlockLists:
    """The two large lists of one source, as :class:`StringTable` objects (mapped from the cache)."""

    def __init__(self, domains: StringTable, urls: StringTable, path: Optional[str], built: bool) -> None:
        self.domains = domains
        self.urls = urls
        self.path = path
        self.built = built


_loaded: Dict[str, BlockLists] = {}
_load_lock = threading.Lock()


def _cache_key(kind: str, shas: Dict[str, str]) -> str:
    try:
        import importlib.metadata

        version = importlib.metadata.version("datatrove")
    except Exception:  # noqa: BLE001 - no metadata: the sha256s still key the contents
        version = "unknown"
    material = json.dumps([_FORMAT, version, _text_encoding(), kind, sorted(shas.values())])
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def _pack(domains: bytes, urls: bytes) -> bytes:
    head = struct.pack("<8sQQ", b"TRFURLS1", len(domains), len(urls))
    pad = (-len(head)) % 8
    return head + b"\0" * pad + domains + b"\0" * ((-len(domains)) % 8) + urls


def _unpack(buf: Any, mm: Optional[mmap.mmap]) -> Tuple[StringTable, StringTable]:
    magic, n_domains, n_urls = struct.unpack_from("<8sQQ", buf, 0)
    if magic != b"TRFURLS1":
        raise ValueError("not a trafila URL lists file")
    at = 24 + (-24) % 8
    view = memoryview(buf)
    domains = StringTable(view[at: at + n_domains], mm)
    at += n_domains + (-n_domains) % 8
    return domains, StringTable(view[at: at + n_urls], mm)


def load_block_lists(folder: Optional[str] = None, source: Optional[str] = None) -> BlockLists:
    """The domains and URLs lists datatrove would read now (``source``: see :func:`lists_source`),
    loaded once per process: mapped from the cache file, built on first use (atomically, under an
    inter-process lock)."""
    kind, paths = lists_source(source)
    folder = folder or cache_dir()
    with _load_lock:
        try:
            os.makedirs(folder, exist_ok=True)
            shas = _fingerprints(paths.values(), folder)
        except OSError:
            shas = {p: _sha256_file(p) for p in paths.values()}
            folder = ""
        key = _cache_key(kind, shas)
        if key in _loaded:
            return _loaded[key]
        lists = _open_cached(folder, key) if folder else None
        if lists is None:
            lists = _build(kind, paths, folder, key)
        _loaded[key] = lists
        return lists


def _open_cached(folder: str, key: str) -> Optional[BlockLists]:
    path = os.path.join(folder, f"url-lists-{key}.bin")
    try:
        with open(path, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    try:
        domains, urls = _unpack(mm, mm)
    except (ValueError, struct.error):
        return None
    return BlockLists(domains, urls, path, built=False)


def _build(kind: str, paths: Dict[str, str], folder: str, key: str) -> BlockLists:
    lock = None
    if folder:
        try:
            from fasteners import InterProcessLock

            lock = InterProcessLock(os.path.join(folder, f"url-lists-{key}.lock"))
            lock.acquire()
        except (ImportError, OSError):
            lock = None
    try:
        if folder:
            ready = _open_cached(folder, key)  # another process built it while we waited
            if ready is not None:
                return ready
        data = _pack(*_source_tables(kind, paths))
        if folder:
            try:
                _write_atomic(os.path.join(folder, f"url-lists-{key}.bin"), data)
                ready = _open_cached(folder, key)
                if ready is not None:
                    ready.built = True
                    return ready
            except OSError:
                pass
        d, u = _unpack(data, None)
        return BlockLists(d, u, None, built=True)
    finally:
        if lock is not None:
            lock.release()


# --------------------------------------------------------------------------- the decision


def url_filter_decision(url: str, url_info: Any, block_listed_domains: Any, block_listed_url: Any,
                        banned_words: Set[str], soft_banned_words: Set[str], soft_word_threshold: int,
                        banned_subwords: Any, banned_subwords_automaton: Any):
    """datatrove's ``URLFilter.filter`` after its url assert: True, or (False, reason).

    ``url_info`` is tldextract's result for ``url`` (its ``registered_domain`` and ``fqdn``); the
    reasons are tested in datatrove's order and the first that holds is returned.
    """
    if url_info.registered_domain in block_listed_domains:
        return False, "domain"
    if url_info.fqdn in block_listed_domains:
        return False, "subdomain"
    if url in block_listed_url:
        return False, "url"
    # the URL's words keep their case: the normalized (lowercase) lists match lowercase words only
    words = set(normalizer.split(url))
    if not words.isdisjoint(banned_words):
        return False, "hard_blacklisted"
    if len(words.intersection(soft_banned_words)) >= soft_word_threshold:
        return False, "soft_blacklisted"
    if banned_subwords:
        for _match in banned_subwords_automaton.iter(normalize(url)):
            return False, "blacklisted_subword"
    return True
