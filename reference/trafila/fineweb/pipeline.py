"""The FineWeb pipeline without datatrove: what ``trafila fineweb`` writes, from one process per file.

``trafila fineweb`` builds datatrove 0.10.1's pipeline with trafila's drop-in steps::

    WarcReader -> URLFilter -> Trafilatura(favour_precision=True) -> GopherRepetitionFilter
    -> GopherQualityFilter -> C4QualityFilter(filter_no_terminal_punct=False)
    -> FineWebQualityFilter -> JsonlWriter

and runs it with datatrove's ``LocalPipelineExecutor``. :func:`run_native` runs the same steps
(the decisions of :mod:`trafila.fineweb.warc`, :mod:`~trafila.fineweb.url_filter` and
:mod:`~trafila.fineweb.quality`, the extraction of :func:`trafila.extract_batch`) as a chain of
generators, importing nothing from datatrove, and writes what that pipeline writes:

- ``output/<rank>.jsonl.gz``: the documents kept, in order, each line what datatrove's
  ``JsonlWriter`` writes (``{"text", "id", "metadata"}``, orjson's bytes); no file for a task
  that keeps nothing (datatrove opens its files on the first document);
- ``removed/<step>/<rank>.jsonl.gz`` (``removed=True``): each filter's exclusion writer, the
  documents with ``metadata["filter_reason"]``;
- ``logs/stats/<rank>.json`` and ``logs/stats.json``: every step's statistics in datatrove's
  format (``PipelineStats``: the counters, ``doc_len`` with its mean, variance and extremes, the
  time statistics), ``logs/completions/<rank>`` for each task completed (a task already
  completed is skipped, as datatrove skips it), ``logs/logs/task_<rank>.log`` (trafila's own lines).

Tasks are the input files' shards as datatrove's ``paths_file`` makes them (file i to task
i % tasks); one process per task, at most ``workers`` at once. The block lists are the packaged
ones (datatrove 0.10.1's sets, ``data/url-blocklists.bin``). Not written: datatrove's
``executor.json`` and its loguru task logs. The time statistics' values differ from run to run
(their counts do not); ``stats.json`` adds the tasks' statistics in rank order (datatrove in the
order tasks finish, which moves a merged variance's last digits).
"""

from __future__ import annotations

import copy
import gzip
import json
import math
import os
import sys
import time
from collections import OrderedDict, deque
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

__all__ = ["Document", "MetricStats", "TimingStats", "Stats", "task_shards", "build_steps", "run_task", "run_native",
           "resolve_mode", "STEP_NAMES", "REMOVED_FOLDERS"]

#: each step's statistics name (``f"{type}: {name}"`` of datatrove's step), in pipeline order
STEP_NAMES = (
    "📖 - READER: 🕷 Warc",
    "🔻 - FILTER: 😈 Url-filter",
    "🛢 - EXTRAC: ⛏ Trafilatura",
    "🔻 - FILTER: 👯 Gopher Repetition",
    "🔻 - FILTER: 🥇 Gopher Quality",
    "🔻 - FILTER: ⛰ C4 Quality",
    "🔻 - FILTER: 🍷 FineWeb Quality",
    "💽 - WRITER: 🐿 Jsonl",
)
#: the exclusion writers' folders under ``removed/`` (``trafila fineweb --removed``), by filter
REMOVED_FOLDERS = {"url": "1_url", "gopher_rep": "3_gopher_rep", "gopher_qual": "4_gopher_qual", "c4": "5_c4",
                   "fineweb_qual": "6_fineweb_qual"}


# --------------------------------------------------------------------------- documents


class Document:
    """datatrove's ``Document``: ``text``, ``id``, ``media`` and ``metadata``."""

    __slots__ = ("text", "id", "media", "metadata")

    def __init__(self, text: str, id: str, media: Optional[list] = None, metadata: Optional[dict] = None) -> None:
        self.text = text
        self.id = id
        self.media = media if media is not None else []
        self.metadata = metadata if metadata is not None else {}

    def as_record(self) -> Dict[str, Any]:
        """What datatrove's writers' default adapter makes of it: the fields in order, empty ones left out."""
        fields = (("text", self.text), ("id", self.id), ("media", copy.deepcopy(self.media)),
                  ("metadata", copy.deepcopy(self.metadata)))
        return {key: value for key, value in fields if value}


# --------------------------------------------------------------------------- statistics (datatrove.utils.stats)


class MetricStats:
    """One statistic as datatrove counts it: total, count, running mean and variance (Welford), extremes."""

    __slots__ = ("total", "n", "mean", "min", "max", "_running_variance", "unit")

    def __init__(self, total: float = 0, n: int = 0, mean: float = 0.0, min: float = float("inf"),
                 max: float = float("-inf"), _running_variance: float = 0.0, unit: str = "doc") -> None:
        self.total, self.n, self.mean, self.min, self.max = total, n, mean, min, max
        self._running_variance = _running_variance
        self.unit = unit

    def update(self, x: float, unit: Optional[str] = None) -> None:
        """Count one value ``x`` (datatrove's ``MetricStats.update``)."""
        if unit:
            self.unit = unit
        self.total += x
        self.n += 1
        self.min = min(self.min, x)
        self.max = max(self.max, x)
        delta = x - self.mean
        self.mean += delta / self.n
        if self.n > 1:
            self._running_variance += delta * (x - self.mean)

    @property
    def variance(self) -> float:
        return self._running_variance / (self.n - 1) if self.n > 1 else 0.0

    @property
    def standard_deviation(self) -> float:
        return math.sqrt(self.variance)

    def __add__(self, other: "MetricStats") -> "MetricStats":
        n = self.n + other.n
        mean = running = 0.0
        if n > 0:
            mean = (self.n * self.mean + other.n * other.mean) / n
            delta = self.mean - other.mean
            running = self._running_variance + other._running_variance + (delta * delta * self.n * other.n) / n
        return type(self)(total=self.total + other.total, n=n, mean=mean, min=min(self.min, other.min),
                          max=max(self.max, other.max), _running_variance=running,
                          unit=self.unit if self.unit != "doc" else other.unit)

    def to_dict(self) -> Any:
        """datatrove's form: 0, a bare total, or a dict of what is worth saying."""
        if self.total == 0:
            return 0
        data: Dict[str, Any] = {"total": self.total}
        if self.n > 1 and self.n != self.total:
            data["n"] = self.n
        if self.mean != 1:
            data["mean"] = self.mean
        if self.mean != self.max or self.mean != self.min:
            data["mean"] = self.mean
            data["variance"] = self.variance
            data["std_dev"] = self.standard_deviation
            data["min"] = self.min
            data["max"] = self.max
        if self.unit != "doc":
            data["unit"] = self.unit
        return self.total if len(data) == 1 else data


def _precisedelta(seconds: float, minimum_unit: str = "seconds") -> str:
    """humanize's ``precisedelta`` when humanize is installed (as datatrove writes it); else seconds."""
    try:
        import datetime

        import humanize
    except ImportError:
        return f"{seconds:.2f} seconds" if minimum_unit == "seconds" else f"{seconds * 1000:.0f} milliseconds"
    if minimum_unit == "seconds":
        return humanize.precisedelta(seconds)
    return humanize.precisedelta(datetime.timedelta(seconds=seconds), minimum_unit=minimum_unit)


class TimingStats(MetricStats):
    """A step's time (datatrove's ``TimingStats``): a context manager adding each block's seconds."""

    __slots__ = ("global_mean", "n_tasks", "global_min", "global_max", "global_std_dev", "_entry")

    def __init__(self, *args: Any, global_mean: float = 0, n_tasks: int = 1, global_min: float = float("inf"),
                 global_max: float = float("-inf"), global_std_dev: float = 0.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.global_mean, self.n_tasks = global_mean, n_tasks
        self.global_min, self.global_max, self.global_std_dev = global_min, global_max, global_std_dev
        if self.global_mean == 0:
            self.global_mean = self.global_min = self.global_max = self.total

    def __enter__(self) -> None:
        self._entry = time.perf_counter()

    def __exit__(self, *exc: Any) -> None:
        self.update(time.perf_counter() - self._entry)

    def update(self, x: float, unit: Optional[str] = None) -> None:
        super().update(x, unit)
        if self.n_tasks == 1:
            self.global_mean = self.global_min = self.global_max = self.total

    def __add__(self, other: "MetricStats") -> "TimingStats":
        new = MetricStats.__add__(self, other)
        assert isinstance(new, TimingStats) and isinstance(other, TimingStats)
        new.global_min = min(self.global_min, other.global_min)
        new.global_max = max(self.global_max, other.global_max)
        new.n_tasks = self.n_tasks + other.n_tasks
        new.global_mean = (self.n_tasks * self.global_mean + other.n_tasks * other.global_mean) / new.n_tasks
        s = (self.global_std_dev ** 2 * (self.n_tasks - 1) + other.global_std_dev ** 2 * (other.n_tasks - 1)
             + (self.global_mean - other.global_mean) ** 2 * self.n_tasks * other.n_tasks / new.n_tasks)
        new.global_std_dev = math.sqrt(s / (new.n_tasks - 1))
        return new

    def to_dict(self) -> Any:
        data = super().to_dict()
        if isinstance(data, dict):
            data["total_human"] = _precisedelta(self.total)
            data["mean_human"] = _precisedelta(self.mean, "milliseconds")
            data["std_dev_human"] = _precisedelta(self.standard_deviation, "milliseconds")
            data["min_human"] = _precisedelta(self.min, "milliseconds")
            data["max_human"] = _precisedelta(self.max, "milliseconds")
            if self.n_tasks != 1:
                for key in ("global_mean", "global_min", "global_max", "global_std_dev"):
                    data[key] = getattr(self, key)
                    data[key + "_human"] = _precisedelta(getattr(self, key))
        return data


class Stats:
    """One step's statistics (datatrove's ``Stats``): its name, time and counters in first-use order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.time_stats = TimingStats()
        self.stats: "OrderedDict[str, MetricStats]" = OrderedDict()

    def __getitem__(self, label: str) -> MetricStats:
        if label not in self.stats:
            self.stats[label] = MetricStats()
        return self.stats[label]

    def __add__(self, other: "Stats") -> "Stats":
        assert self.name == other.name, f"Can not merge stats from different blocks {self.name} != {other.name}"
        out = Stats(self.name)
        out.time_stats = self.time_stats + other.time_stats
        for label, value in list(self.stats.items()) + list(other.stats.items()):
            out.stats[label] = out[label] + value
        return out

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "time_stats": self.time_stats.to_dict(),
                "stats": {label: value.to_dict() for label, value in self.stats.items()}}


def pipeline_stats_json(stats: Sequence[Stats]) -> str:
    """``PipelineStats.to_json()``: the steps' statistics as datatrove saves them."""
    return json.dumps([s.to_dict() for s in stats], indent=4)


# --------------------------------------------------------------------------- steps


class Step:
    """What a datatrove pipeline step gives every step: its statistics."""

    name = ""
    type = ""

    def __init__(self) -> None:
        self.stats = Stats(f"{self.type}: {self.name}")

    def stat_update(self, *labels: str, value: float = 1, unit: Optional[str] = None) -> None:
        for label in labels:
            self.stats[label].update(value, unit)

    def update_doc_stats(self, doc: Document) -> None:
        self.stat_update("doc_len", value=len(doc.text), unit="doc")
        token_count = doc.metadata.get("token_count", None)
        if token_count:
            self.stat_update("doc_len_tokens", value=token_count, unit="doc")

    def track_time(self, unit: Optional[str] = None) -> TimingStats:
        if unit:
            self.stats.time_stats.unit = unit
        return self.stats.time_stats


def _dumps_line(record: Dict[str, Any]) -> bytes:
    """One JSON Lines line as datatrove's JsonlWriter writes it (orjson; the same bytes from json without it)."""
    try:
        import orjson
    except ImportError:
        # (equal to orjson's bytes for the str-only records written here; a lone surrogate raises in both)
        return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


class JsonlWriter(Step):
    """datatrove's ``JsonlWriter(folder)``: ``<rank>.jsonl.gz`` (gzip), opened on its first document."""

    name = "🐿 Jsonl"
    type = "💽 - WRITER"

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = Path(folder)
        self._files: Dict[str, Any] = {}

    def write(self, doc: Document, rank: int = 0) -> None:
        filename = f"{rank:05d}.jsonl.gz"
        fh = self._files.get(filename)
        if fh is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            fh = self._files[filename] = gzip.open(self.folder / filename, "wb")
        fh.write(_dumps_line(doc.as_record()))
        self.stat_update("XXXXX.jsonl.gz")
        self.stat_update("total")
        self.update_doc_stats(doc)

    def close(self) -> None:
        for fh in self._files.values():
            fh.close()
        self._files.clear()

    def run(self, data: Iterator[Document], rank: int = 0) -> Iterator[Document]:
        try:
            for doc in data:
                with self.track_time():
                    self.write(doc, rank)
                yield doc
        finally:
            self.close()


def _open_input(path: str) -> Any:
    """A file opened as datatrove's ``compression="infer"`` opens it (by its extension)."""
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        import bz2

        return bz2.open(path, "rb")
    if path.endswith((".xz", ".lzma")):
        import lzma

        return lzma.open(path, "rb")
    if path.endswith(".zst"):
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)
    return open(path, "rb")


class WarcReader(Step):
    """datatrove's ``WarcReader`` over a shard of files (the records parsed by :mod:`trafila.fineweb.warc`)."""

    name = "🕷 Warc"
    type = "📖 - READER"

    def __init__(self, progress: Optional[Callable[[str, int], None]] = None) -> None:
        super().__init__()
        self.progress = progress
        self.fallback_counts: Dict[str, int] = {"records": 0, "payloads": 0, "files": 0}

    def read_file(self, path: str) -> Iterator[Document]:
        from .warc import iter_warc

        def finish(data: Optional[dict], index: int) -> Optional[Document]:
            if not data:
                return None
            # datatrove's default adapter: text and id taken out, the rest is the metadata, then file_path
            data = dict(data)
            text = data.pop("text", "")
            doc_id = data.pop("id", f"{path}/{index}")
            if not text:
                return None
            metadata = dict(data)
            metadata.setdefault("file_path", path)
            return Document(text, doc_id, [], metadata)

        for doc in iter_warc(lambda: _open_input(path), self.fallback_counts, self.track_time, finish):
            if doc:
                yield doc

    def run(self, shard: Sequence[str]) -> Iterator[Document]:
        for path in shard:
            self.stat_update("input_files")
            count = 0
            for doc in self.read_file(path):
                if self.progress:
                    self.progress("read", 1)
                self.update_doc_stats(doc)
                yield doc
                count += 1
            self.stat_update("documents", value=count, unit="input_file")
            if self.progress:
                self.progress("files", 1)


class Filter(Step):
    """datatrove's ``BaseFilter.run`` (batch size 1): counts, ``dropped_<reason>``, the exclusion writer."""

    type = "🔻 - FILTER"

    def __init__(self, exclusion_writer: Optional[JsonlWriter] = None) -> None:
        super().__init__()
        self.exclusion_writer = exclusion_writer

    def filter(self, doc: Document) -> Any:
        raise NotImplementedError

    def run(self, data: Iterator[Document], rank: int = 0) -> Iterator[Document]:
        try:
            for doc in data:
                with self.track_time(None):
                    res = self.filter(doc)
                self.stat_update("total")
                result, reason = res if isinstance(res, tuple) else (res, None)
                if result:
                    self.stat_update("forwarded")
                    self.update_doc_stats(doc)
                    yield doc
                else:
                    self.stat_update("dropped")
                    if reason:
                        self.stat_update(f"dropped_{reason}")
                    if self.exclusion_writer:
                        if reason:
                            doc.metadata["filter_reason"] = reason
                        self.exclusion_writer.write(doc, rank)
        finally:
            if self.exclusion_writer:
                self.exclusion_writer.close()


class URLFilter(Filter):
    """datatrove's ``URLFilter()`` with its integrated lists (the packaged sets)."""

    name = "😈 Url-filter"

    def __init__(self, exclusion_writer: Optional[JsonlWriter] = None, tld_extractor: Any = None) -> None:
        super().__init__(exclusion_writer)
        self.soft_word_threshold = 2
        self.tld_extractor = tld_extractor
        self._loaded = False

    def _load(self) -> None:
        from .url_filter import BlockList, load_block_lists, packaged_word_lists

        if self.tld_extractor is None:
            from tldextract import TLDExtract

            self.tld_extractor = TLDExtract()
        lists = load_block_lists(source="packaged")
        words = packaged_word_lists()
        self.block_listed_domains = BlockList(set(), lists.domains)
        self.block_listed_url = BlockList(set(), lists.urls)
        self.banned_words = words["banned_words.txt"]
        self.banned_subwords = words["banned_subwords.txt"]
        self.soft_banned_words = words["soft_banned_words.txt"]
        self.automaton = _subword_matcher(self.banned_subwords)
        self._loaded = True

    def filter(self, doc: Document) -> Any:
        from .url_filter import url_filter_decision

        if not self._loaded:
            self._load()
        url = doc.metadata.get("url")
        assert url, "Document does not have url in its metadata"
        return url_filter_decision(url, self.tld_extractor(url), self.block_listed_domains, self.block_listed_url,
                                   self.banned_words, self.soft_banned_words, self.soft_word_threshold,
                                   self.banned_subwords, self.automaton)


class _Substrings:
    """What ``automaton.iter(text)`` tells the filter (is any word in the text) without pyahocorasick."""

    def __init__(self, words: Sequence[str]) -> None:
        self.words = [w for w in words if w]  # pyahocorasick does not add an empty word

    def iter(self, text: str) -> Iterator[str]:
        return (w for w in self.words if w in text)


def _subword_matcher(words: Any) -> Any:
    """datatrove's banned-subwords automaton (pyahocorasick), or the same answers without it."""
    try:
        import ahocorasick
    except ImportError:
        return _Substrings(sorted(words))
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
    for index, word in enumerate(words):
        automaton.add_word(word, index)
    automaton.make_automaton()
    return automaton


class GopherRepetitionFilter(Filter):
    """datatrove's ``GopherRepetitionFilter()`` (its defaults)."""

    name = "👯 Gopher Repetition"

    def filter(self, doc: Document) -> Any:
        from . import quality

        return quality.gopher_repetition_filter(
            doc.text, 0.3, 0.3, 0.2, 0.2, ((2, 0.2), (3, 0.18), (4, 0.16)),
            ((5, 0.15), (6, 0.14), (7, 0.13), (8, 0.12), (9, 0.11), (10, 0.10)), quality.ENGLISH)


class GopherQualityFilter(Filter):
    """datatrove's ``GopherQualityFilter()`` (its defaults)."""

    name = "🥇 Gopher Quality"

    def __init__(self, exclusion_writer: Optional[JsonlWriter] = None) -> None:
        from . import quality

        super().__init__(exclusion_writer)
        self.stop_words = set(quality.STOP_WORDS)

    def filter(self, doc: Document) -> Any:
        from . import quality

        return quality.gopher_quality_filter(doc.text, 50, 100000, 3, 10, 0.1, 0.9, 0.3, 0.8, 2, self.stop_words,
                                             quality.ENGLISH)


class C4QualityFilter(Filter):
    """datatrove's ``C4QualityFilter(filter_no_terminal_punct=False)``: keeps the lines that pass."""

    name = "⛰ C4 Quality"

    def filter(self, doc: Document) -> Any:
        from . import quality

        res = quality.c4_quality_filter(doc.text, True, True, False, 5, 3, 1000, True, True, True, True,
                                         quality.ENGLISH)
        for label in res.line_stats:
            self.stat_update(label)
        if res.text is not None:
            doc.text = res.text
        return res.result


class FineWebQualityFilter(Filter):
    """datatrove's ``FineWebQualityFilter()`` (its defaults)."""

    name = "🍷 FineWeb Quality"

    def filter(self, doc: Document) -> Any:
        from . import quality
        from .text import TERMINAL_PUNCTUATION

        return quality.fineweb_quality_filter(doc.text, 0.12, False, tuple(TERMINAL_PUNCTUATION), 0.67, 30, 0.01,
                                              0.3, quality.ENGLISH)


# --------------------------------------------------------------------------- the extraction


def resolve_mode(compat: Optional[str]) -> str:
    """The trafilatura release the extraction reproduces: ``compat``, else the installed
    trafilatura's (the release datatrove's step would run), else 2.3.1 without trafilatura.
    ValueError when the installed release is not one trafila reproduces (pass ``compat``)."""
    import trafila
    from trafila._child_batches import installed_trafilatura, resolve_compat

    mode = resolve_compat(compat)
    if mode is None:  # datatrove would run its own step: the native chain has none
        raise ValueError(f"trafilatura {installed_trafilatura()} is installed, a release trafila does not "
                         f"reproduce: pass --compat ({' or '.join(trafila.TRAFILATURA_VERSIONS)})")
    return mode


class Trafilatura(Step):
    """trafila's Trafilatura step (``favour_precision=True``, deduplication on), ``batch_size`` pages a batch."""

    name = "⛏ Trafilatura"
    type = "🛢 - EXTRAC"

    def __init__(self, mode: str, batch_size: int = 64, engine: Optional[str] = None) -> None:
        super().__init__()
        self.mode = mode
        self.batch_size = batch_size
        self.engine = engine

    def run(self, data: Iterator[Document], rank: int = 0) -> Iterator[Document]:
        from trafila._child_batches import DedupState, batches

        state = DedupState(self.mode)
        for batch in batches(data, self.batch_size):
            yield from self._process(batch, state)

    def _process(self, batch: List[Document], state: "DedupState") -> Iterator[Document]:
        with self.track_time(unit="batch"):
            outcomes = self._extract_pages([doc.text for doc in batch], state)
        for doc, (ok, value) in zip(batch, outcomes):
            self.stat_update("total")
            if not ok:
                self.stat_update("broken_process")
                print(f"trafila fineweb: extracting document {doc.id!r} raised {type(value).__name__}: {value}; "
                      "counted as broken_process", file=sys.stderr)
                continue
            doc.text = value
            self.stat_update("extracted")
            if doc.text:
                self.stat_update("forwarded")
                self.update_doc_stats(doc)
                yield doc
            else:
                self.stat_update("dropped")

    def _extract_pages(self, texts: List[str], state: "DedupState") -> List[Tuple[bool, Any]]:
        """(True, text or None) or (False, the exception) per page (trafila._child_batches)."""
        from trafila._child_batches import extract_pages

        return extract_pages(texts, state, self._batch)

    def _batch(self, texts: List[str], state: "DedupState") -> List[Optional[str]]:
        import trafila

        if not texts:
            return []
        api = trafila if self.engine is None else trafila.engine(self.engine)
        with state.lent() as dedup:
            return api.extract_batch(texts, threads=1, deduplicate=dedup, favor_precision=True,
                                     include_comments=False, compat=self.mode)


# --------------------------------------------------------------------------- tasks


def task_shards(files: Sequence[str], tasks: int) -> List[List[str]]:
    """Each task's files, as datatrove's ``paths_file`` shards them: file i to task i % tasks."""
    return [[f for i, f in enumerate(files) if (i - rank) % tasks == 0] for rank in range(tasks)]


def build_steps(out: Path, mode: str, removed: bool = False, tld_extractor: Any = None,
                progress: Optional[Callable[[str, int], None]] = None, engine: Optional[str] = None) -> List[Step]:
    """The eight steps of one task (fresh: each task starts as datatrove's does)."""

    def exclusion(key: str) -> Optional[JsonlWriter]:
        return JsonlWriter(out / "removed" / REMOVED_FOLDERS[key]) if removed else None

    return [WarcReader(progress), URLFilter(exclusion("url"), tld_extractor), Trafilatura(mode, engine=engine),
            GopherRepetitionFilter(exclusion("gopher_rep")), GopherQualityFilter(exclusion("gopher_qual")),
            C4QualityFilter(exclusion("c4")), FineWebQualityFilter(exclusion("fineweb_qual")),
            JsonlWriter(out / "output")]


def run_task(rank: int, shard: Sequence[str], out: Path, mode: str, removed: bool = False, tld_extractor: Any = None,
             progress: Optional[Callable[[str, int], None]] = None, engine: Optional[str] = None) -> List[Stats]:
    """One task: its files through the steps; writes its statistics and completion mark; returns the statistics."""
    logs = out / "logs"
    (logs / "logs").mkdir(parents=True, exist_ok=True)
    with open(logs / "logs" / f"task_{rank:05d}.log", "w", encoding="utf-8") as log:
        log.write(f"trafila fineweb (native): task {rank}, files: {', '.join(shard) or 'none'}\n")
        steps = build_steps(out, mode, removed, tld_extractor, progress, engine)
        data: Iterator[Document] = steps[0].run(shard)  # type: ignore[attr-defined]
        for step in steps[1:]:
            data = step.run(data, rank)  # type: ignore[attr-defined]
        deque(data, maxlen=0)
        stats = [step.stats for step in steps]
        (logs / "stats").mkdir(parents=True, exist_ok=True)
        with open(logs / "stats" / f"{rank:05d}.json", "w", encoding="utf-8") as fh:
            fh.write(pipeline_stats_json(stats))
        (logs / "completions").mkdir(parents=True, exist_ok=True)
        open(logs / "completions" / f"{rank:05d}", "w").close()
        reader = steps[0]
        log.write(f"done: warcio fallbacks {reader.fallback_counts}\n")  # type: ignore[attr-defined]
    return stats


# the worker processes' shared progress counters (set by the pool's initializer)
_COUNTERS: Dict[str, Any] = {}


def _count(kind: str, n: int) -> None:
    counter = _COUNTERS.get(kind)
    if counter is not None:
        with counter.get_lock():
            counter.value += n


def _init_worker(counters: Dict[str, Any]) -> None:
    _COUNTERS.clear()
    _COUNTERS.update(counters)


def _task_in_worker(args: Tuple[Any, ...]) -> Tuple[int, List[Stats]]:
    rank, shard, out, mode, removed, offline_suffix_list, engine = args
    extractor = _tld_extractor(offline_suffix_list)
    return rank, run_task(rank, shard, Path(out), mode, removed, extractor, _count, engine)


def _tld_extractor(offline_suffix_list: bool) -> Any:
    if not offline_suffix_list:
        return None  # datatrove's TLDExtract(), made on the first document
    from tldextract import TLDExtract

    return TLDExtract(suffix_list_urls=())


class _Progress:
    """Documents read and files done: a tqdm bar when tqdm is installed, else a counter line on stderr."""

    def __init__(self, files: int, enabled: bool) -> None:
        self.files_total = files
        self.enabled = enabled
        self.read = self.files = 0
        self.bar = None
        self._last = 0.0
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=files, unit="file", desc="trafila fineweb", file=sys.stderr)

    def update(self, read: int, files: int, final: bool = False) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(files - self.files)
            self.bar.set_postfix(documents=read, refresh=False)
        self.read, self.files = read, files
        now = time.monotonic()
        if self.bar is None and (final or now - self._last >= 1.0):
            self._last = now
            end = "\n" if final else "\r"
            sys.stderr.write(f"trafila fineweb: {files}/{self.files_total} files, {read} documents read{end}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_native(files: Sequence[str], out: Path, compat: Optional[str] = None, tasks: Optional[int] = None,
               workers: Optional[int] = None, removed: bool = False, progress: bool = False,
               offline_suffix_list: bool = False, engine: Optional[str] = None) -> List[Stats]:
    """Run the pipeline over ``files`` (datatrove's paths-file order) into ``out``; returns the merged statistics.

    ``tasks``: default one per file; ``workers``: processes at once (default: the cores, at most the
    tasks; 1 runs in this process). ``offline_suffix_list``: tldextract's bundled suffix list, no
    download (the harness; datatrove's default ``TLDExtract()`` may fetch it)."""
    mode = resolve_mode(compat)
    out = Path(out)
    files = [str(f) for f in files]
    tasks = tasks or len(files)
    workers = max(1, min(workers or os.cpu_count() or 1, tasks))
    logs = out / "logs"
    shards = task_shards(files, tasks)
    todo = [rank for rank in range(tasks) if not (logs / "completions" / f"{rank:05d}").exists()]
    if not todo:
        print(f"trafila fineweb: all {tasks} tasks are already completed in {logs}", file=sys.stderr)
        return []
    out.mkdir(parents=True, exist_ok=True)
    bar = _Progress(sum(len(shards[r]) for r in todo), progress)
    results: Dict[int, List[Stats]] = {}
    try:
        if workers == 1:
            counts = {"read": 0, "files": 0}

            def local(kind: str, n: int) -> None:
                counts[kind] += n
                bar.update(counts["read"], counts["files"])

            extractor = _tld_extractor(offline_suffix_list)
            for rank in todo:
                results[rank] = run_task(rank, shards[rank], out, mode, removed, extractor, local, engine)
        else:
            import multiprocessing

            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            counters = {"read": ctx.Value("q", 0), "files": ctx.Value("q", 0)}
            args = [(rank, shards[rank], str(out), mode, removed, offline_suffix_list, engine) for rank in todo]
            with ctx.Pool(workers, initializer=_init_worker, initargs=(counters,)) as pool:
                pending = pool.imap_unordered(_task_in_worker, args)
                done = 0
                while done < len(args):
                    try:
                        rank, stats = pending.next(timeout=0.5)
                    except multiprocessing.TimeoutError:
                        bar.update(counters["read"].value, counters["files"].value)
                        continue
                    results[rank] = stats
                    done += 1
                    bar.update(counters["read"].value, counters["files"].value)
        bar.update(bar.read, bar.files, final=True)
    finally:
        bar.close()
    merged: List[Stats] = []
    for rank in sorted(results):
        merged = results[rank] if not merged else [a + b for a, b in zip(merged, results[rank])]
    with open(logs / "stats.json", "w", encoding="utf-8") as fh:
        fh.write(pipeline_stats_json(merged))
    return merged
