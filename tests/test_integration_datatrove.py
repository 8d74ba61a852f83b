"""trafila.integrations.datatrove.Trafilatura against datatrove 0.10.1's own Trafilatura step.

Skipped without datatrove (``tox -e datatrove`` installs ``datatrove[processing]==0.10.1``
and its trafilatura 1.11.0). The oracle is datatrove's step itself: run on the
same documents (``timeout`` large enough that nothing times out), the two give
the same documents and the same statistics, timings aside. In 1.11.0 mode the
stock step runs the real trafilatura 1.11.0; in 2.3.1 mode (trafilatura 2.3.1
is not installable beside datatrove[processing]) the stock step runs under
``trafila.patch("trafilatura", compat="2.3.1")``, which checks the step's own
logic (statistics, deduplication state, failures) with the extraction equal
on both sides; ``python -m harness datatrove`` compares 2.3.1 end to end.
"""

from __future__ import annotations

import copy
import gzip
import inspect
import json
import multiprocessing
import os
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

pytest.importorskip("datatrove", reason="needs datatrove 0.10.1 (tox -e datatrove)")

import trafila  # noqa: E402
from datatrove.data import Document  # noqa: E402
from datatrove.pipeline.extractors import Trafilatura as StockTrafilatura  # noqa: E402
from datatrove.pipeline.extractors.base import BaseExtractor  # noqa: E402

from trafila import _child_batches as child_batches  # noqa: E402
from trafila.integrations import datatrove as integration  # noqa: E402
from trafila.integrations.datatrove import Trafilatura  # noqa: E402

from .conftest import trafilatura_version  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EMBEDDED = ROOT / "corpora" / "embedded" / "synthetic.jsonl.gz"
BOOM = "TRAFILA-TEST-RAISES"
#: long enough that nothing times out in the stock step (its child is waited for in steps of 5 s at most)
STOCK_TIMEOUT = 60


def _paragraphs(seed: int, count: int = 4) -> str:
    words = "alpha beta gamma delta epsilon zeta theta iota kappa lambda omicron sigma".split()
    return "".join(
        "<p>" + " ".join(words[(seed + i + j) % len(words)] + str((seed * 7 + i * 3 + j) % 11) for j in range(30))
        + ".</p>"
        for i in range(count)
    )


def _article(seed: int, marker: str = "") -> str:
    return (f"<html><head><title>Page {seed}</title></head><body><nav>home | about</nav>"
            f"<article><h1>Heading {seed}</h1>{_paragraphs(seed)}{marker}</article>"
            "<footer>contact</footer></body></html>")


def _embedded_pages() -> List[Tuple[str, str]]:
    with gzip.open(EMBEDDED, "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    return [(r["id"], r["html"]) for r in records if r.get("html") is not None]


def _pages() -> List[Tuple[str, str]]:
    """The embedded corpus, then a page repeated (deduplication shortens it after two), and empty pages."""
    pages = _embedded_pages()
    pages += [(f"repeat/{i}", _article(1)) for i in range(5)]
    pages += [("empty/0", ""), ("empty/1", "<html><body></body></html>")]
    return pages


def _documents(pages: List[Tuple[str, str]], token_count: bool = False) -> List[Document]:
    docs = []
    for i, (doc_id, html) in enumerate(pages):
        metadata: Dict[str, Any] = {"n": i}
        if token_count:
            metadata["token_count"] = 10 + i
        docs.append(Document(text=html, id=doc_id, metadata=metadata))
    return docs


def _stats(step: BaseExtractor) -> dict:
    """The step's statistics without timings."""
    return step.stats.to_dict()["stats"]


def _run(step: BaseExtractor, pages: List[Tuple[str, str]], **kw: Any) -> Tuple[List[Tuple[str, str, dict]], dict]:
    out = [(d.id, d.text, dict(d.metadata)) for d in step.run(iter(_documents(pages, **kw)))]
    return out, _stats(step)


@pytest.fixture
def stock_as(monkeypatch):
    """A function giving datatrove's own step in a mode: the installed trafilatura
    for its release, else trafila.patch("trafilatura", compat=mode)."""
    def make(mode: str, **kwargs: Any) -> StockTrafilatura:
        trafila.unpatch()
        if integration.installed_trafilatura() != mode:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", trafila.PatchWarning)
                trafila.patch("trafilatura", compat=mode)
        trafila.reset_caches()  # the stock child is forked: it starts from this process's caches
        return StockTrafilatura(timeout=kwargs.pop("timeout", STOCK_TIMEOUT), **kwargs)

    yield make
    trafila.unpatch()


def _modes_of(engine) -> List[str]:
    return [m for m in trafila.TRAFILATURA_VERSIONS if m in engine.modes]


# --- the interface -----------------------------------------------------------------------

def test_arguments_are_datatroves_plus_keyword_only_ones():
    ours = inspect.signature(Trafilatura.__init__).parameters
    stock = inspect.signature(StockTrafilatura.__init__).parameters
    positional = [(p.name, p.default) for p in ours.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional == [(p.name, p.default) for p in stock.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional[1:] == [("favour_precision", True), ("include_images", False), ("timeout", 1), ("deduplicate", True)]
    keyword_only = {p.name: p.default for p in ours.values() if p.kind is p.KEYWORD_ONLY}
    assert keyword_only == {"compat": None, "batch_size": 64, "threads": 1, "max_html_chars": None, "engine": None}
    assert any(p.kind is p.VAR_KEYWORD for p in ours.values())
    assert issubclass(Trafilatura, BaseExtractor) and not issubclass(Trafilatura, StockTrafilatura)
    assert Trafilatura._requires_dependencies == ["trafila"]
    assert Trafilatura.name == StockTrafilatura.name and Trafilatura.type == StockTrafilatura.type
    step = Trafilatura(compat="2.3.1", include_tables=False)
    assert step.kwargs == {"include_tables": False} and step.timeout == 1 and step.deduplicate is True
    assert str(step) == str(StockTrafilatura())


def test_include_images_raises_as_datatrove():
    with pytest.raises(NotImplementedError):
        StockTrafilatura(include_images=True)
    with pytest.raises(NotImplementedError):
        Trafilatura(include_images=True)


@pytest.mark.parametrize("bad", [dict(compat="2.0.0"), dict(batch_size=0), dict(threads=0), dict(max_html_chars=-1),
                                 dict(batch_size=True)])
def test_bad_arguments_raise(bad):
    with pytest.raises(ValueError):
        Trafilatura(**bad)


def test_keyword_the_step_sets_cannot_be_passed_again():
    # datatrove's own step would raise "got multiple values" in its child for every page
    with pytest.raises(TypeError, match="include_comments"):
        Trafilatura(compat="2.3.1", include_comments=True)


def test_compat_none_follows_the_installed_release(monkeypatch):
    for installed, mode in [("1.11.0", "1.11.0"), ("2.3.1", "2.3.1"), (None, "2.3.1")]:
        for module in (integration, child_batches):  # the step reads it through resolve_compat
            monkeypatch.setattr(module, "installed_trafilatura", lambda v=installed: v)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert Trafilatura().mode == mode
        assert Trafilatura(compat="1.11.0").mode == "1.11.0"
    for module in (integration, child_batches):
        monkeypatch.setattr(module, "installed_trafilatura", lambda: "2.2.0")
    with pytest.warns(trafila.FallbackWarning, match="trafilatura 2.2.0 is installed") as record:
        step = Trafilatura()
    assert step.mode is None and len(record) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Trafilatura(compat="2.3.1").mode == "2.3.1"  # an explicit mode: no warning


@pytest.mark.skipif(trafilatura_version() is None, reason="needs an installed trafilatura")
def test_another_release_runs_datatroves_own_step(monkeypatch):
    pages = _pages()[:12]
    expected = _run(StockTrafilatura(timeout=STOCK_TIMEOUT), pages)
    for module in (integration, child_batches):
        monkeypatch.setattr(module, "installed_trafilatura", lambda: "9.9.9")
    with pytest.warns(trafila.FallbackWarning):
        step = Trafilatura(timeout=STOCK_TIMEOUT)
    seen = []
    monkeypatch.setattr(trafila, "extract_batch", lambda *a, **k: seen.append(1) or [])
    assert _run(step, pages) == expected
    assert not seen  # trafila did not run the documents
    # the size budget applies to datatrove's step too
    budget = sorted(len(html) for _, html in pages)[6]
    with pytest.warns(trafila.FallbackWarning):
        step = Trafilatura(timeout=STOCK_TIMEOUT, max_html_chars=budget)
    docs, stats = _run(step, pages)
    small = [p for p in pages if len(p[1]) <= budget]
    expected_small = _run(StockTrafilatura(timeout=STOCK_TIMEOUT), small)[0]
    assert [d[:2] for d in docs] == [d[:2] for d in expected_small] and docs
    assert stats["too_large"] == len(pages) - len(small) and stats["total"] == len(pages)


# --- the same documents and statistics as datatrove's step ----------------------------------

@pytest.mark.parametrize("deduplicate", [True, False])
def test_same_documents_and_statistics_as_datatrove(engine, stock_as, deduplicate):
    pages = _pages()
    for mode in _modes_of(engine):
        expected = _run(stock_as(mode, deduplicate=deduplicate), pages, token_count=True)
        got = _run(Trafilatura(deduplicate=deduplicate, compat=mode, engine=engine.name, batch_size=7), pages,
                   token_count=True)
        assert got == expected, mode
        stats = got[1]
        assert stats["total"] == stats["extracted"] == len(pages)
        assert stats["forwarded"] + stats["dropped"] == len(pages) and stats["dropped"] >= 2
        assert stats["doc_len_tokens"]["n"] == stats["forwarded"]
        repeats = [doc_id for doc_id, _, _ in got[0] if doc_id.startswith("repeat/")]
        # the repeated page is discarded (or loses its paragraphs) once seen more than twice
        assert (len(repeats) < 5) == deduplicate, mode


def test_batch_size_does_not_change_anything(engine):
    pages = _pages()
    for mode in _modes_of(engine):
        runs = [_run(Trafilatura(compat=mode, engine=engine.name, batch_size=size), pages) for size in (1, 5, 1000)]
        assert runs[0] == runs[1] == runs[2]


def test_time_is_tracked_per_batch(engine):
    mode = _modes_of(engine)[0]
    step = Trafilatura(compat=mode, engine=engine.name, batch_size=10)
    docs = _pages()[:25]
    list(step.run(iter(_documents(docs))))
    timing = step.stats.to_dict()["time_stats"]
    assert timing["unit"] == "batch" and timing["n"] == 3


def _raising_extract(original: Callable[..., Any]) -> Callable[..., Any]:
    def extract(filecontent: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(filecontent, str) and BOOM in filecontent:
            raise ValueError("a page that makes extraction raise")
        return original(filecontent, *args, **kwargs)

    return extract


def test_a_page_that_raises_is_counted_and_restarts_deduplication(engine, stock_as, monkeypatch):
    """datatrove's child dies on it: broken_process, and the next child starts with an empty cache."""
    pages = [(f"repeat/{i}", _article(1)) for i in range(4)] + [("boom", _article(2, BOOM))]
    pages += [(f"after/{i}", _article(1)) for i in range(3)] + [("boom2", _article(3, BOOM)), ("last", _article(1))]
    import trafilatura

    monkeypatch.setattr(trafila, "extract", _raising_extract(trafila.extract))
    monkeypatch.setattr(trafilatura, "extract", _raising_extract(trafilatura.extract))
    for mode in _modes_of(engine):
        # the stock child is forked after the patches, so it raises on the same pages
        expected = _run(stock_as(mode, timeout=3), pages)
        got = _run(Trafilatura(compat=mode, engine=engine.name, batch_size=4), pages)
        assert got == expected, mode
        docs, stats = got
        assert stats["broken_process"] == 2 and stats["total"] == len(pages) and stats["extracted"] == len(pages) - 2
        texts = dict((doc_id, text) for doc_id, text, _ in docs)
        assert "boom" not in texts and texts["after/0"] == texts["repeat/0"] == texts["last"]
        assert texts.get("repeat/3") != texts["repeat/0"]  # deduplication did act before the restart


def test_trafila_error_is_not_a_page_failure(monkeypatch):
    def missing(*args: Any, **kwargs: Any) -> Any:
        raise trafila.TrafilaError("extract: output format xml needs trafilatura==2.3.1 installed")

    monkeypatch.setattr(trafila, "extract", missing)
    with pytest.raises(trafila.TrafilaError):
        list(Trafilatura(compat="2.3.1").run(iter(_documents(_pages()[:3]))))


# --- what replaces the timeout ----------------------------------------------------------------

def test_size_budget_is_deterministic_and_counted(engine, monkeypatch):
    pages = _pages()
    budget = sorted(len(html) for _, html in pages)[len(pages) // 2]
    seen: List[str] = []
    original = trafila.extract

    def counting(filecontent: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(filecontent)
        return original(filecontent, *args, **kwargs)

    for mode in _modes_of(engine):
        full_docs, full_stats = _run(Trafilatura(compat=mode, engine=engine.name, deduplicate=False), pages)
        monkeypatch.setattr(trafila, "extract", counting)
        del seen[:]
        docs, stats = _run(Trafilatura(compat=mode, engine=engine.name, deduplicate=False, max_html_chars=budget), pages)
        monkeypatch.setattr(trafila, "extract", original)
        small = {doc_id for doc_id, html in pages if len(html) <= budget}
        assert stats["too_large"] == len(pages) - len(small) > 0
        assert len(seen) == len(small) and all(len(html) <= budget for html in seen)
        assert docs == [d for d in full_docs if d[0] in small]
        assert stats["total"] == len(pages) and stats["extracted"] == len(small)
        assert "too_large" not in full_stats


# --- how it runs ---------------------------------------------------------------------------

def test_lazy_generator_in_the_tasks_process(engine, monkeypatch):
    mode = _modes_of(engine)[0]
    pulled: List[int] = []
    pids: List[int] = []
    original = trafila.extract

    def recording(filecontent: Any, *args: Any, **kwargs: Any) -> Any:
        pids.append(os.getpid())
        return original(filecontent, *args, **kwargs)

    def source() -> Iterator[Document]:
        for i in range(40):
            pulled.append(i)
            yield Document(text=_article(i), id=str(i))

    monkeypatch.setattr(trafila, "extract", recording)
    children = set(multiprocessing.active_children())
    run = Trafilatura(compat=mode, engine=engine.name, batch_size=8).run(source())
    assert inspect.isgenerator(run) and not pulled
    first = next(run)
    assert first.id == "0" and len(pulled) == 8
    rest = list(run)
    assert len(rest) == 39 and len(pulled) == 40
    assert set(pids) == {os.getpid()} and set(multiprocessing.active_children()) == children


def test_one_deduplication_state_per_run(engine):
    mode = _modes_of(engine)[0]
    pages = [(f"repeat/{i}", _article(5)) for i in range(5)]
    module_cache = trafila._engine.implementation(mode).LRU_TEST
    module_cache.put("someone else's", 7)
    before = list(module_cache.cache.items())
    step = Trafilatura(compat=mode, engine=engine.name, batch_size=2)
    first = _run(step, pages)[0]
    second = [(d.id, d.text, dict(d.metadata)) for d in step.run(iter(_documents(pages)))]
    assert first == second and len(first) < len(pages)
    assert list(module_cache.cache.items()) == before  # the process's module cache is left alone
    module_cache.clear()


def test_pickles_and_copies(engine):
    dill = pytest.importorskip("dill")
    cloudpickle = pytest.importorskip("cloudpickle")
    mode = _modes_of(engine)[0]
    pages = _pages()[:20]
    step = Trafilatura(compat=mode, engine=engine.name, batch_size=3, max_html_chars=10**6, include_tables=False)
    expected = _run(step, pages)
    for clone in (dill.loads(dill.dumps(step)), cloudpickle.loads(cloudpickle.dumps(step)), copy.deepcopy(step)):
        assert type(clone) is Trafilatura and clone.kwargs == {"include_tables": False} and clone.mode == mode
        clone.stats = type(step.stats)(str(clone))
        assert _run(clone, pages) == expected
    assert _stats(step) == expected[1]  # running the copies did not count in the original


# --- in an executor ---------------------------------------------------------------------------

def _write_inputs(folder: Path, pages: List[Tuple[str, str]], files: int) -> None:
    folder.mkdir(parents=True)
    for f in range(files):
        with gzip.open(folder / f"part{f}.jsonl.gz", "wt", encoding="utf-8") as fh:
            for doc_id, html in pages[f::files]:
                fh.write(json.dumps({"id": doc_id, "text": html}) + "\n")


def _read_outputs(folder: Path) -> Dict[str, List[Tuple[str, str]]]:
    out = {}
    for path in sorted(folder.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            out[path.name] = [(r["id"], r["text"]) for r in map(json.loads, fh)]
    return out


@pytest.mark.skipif(trafilatura_version() not in ("1.11.0", "2.3.1"), reason="needs trafilatura 1.11.0 or 2.3.1")
@pytest.mark.parametrize("workers", [1, 2])
def test_local_executor_gives_the_same_files_and_stats(tmp_path, workers):
    pytest.importorskip("orjson")  # datatrove's JsonlReader
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    _write_inputs(tmp_path / "in", _pages(), files=2)
    results, units = {}, {}
    for name, step in [("stock", StockTrafilatura(timeout=STOCK_TIMEOUT)), ("trafila", Trafilatura(batch_size=5))]:
        executor = LocalPipelineExecutor(
            [JsonlReader(str(tmp_path / "in")), step, JsonlWriter(str(tmp_path / name / "out"))],
            tasks=2, workers=workers, logging_dir=str(tmp_path / name / "logs"))
        executor.run()
        stats = json.loads((tmp_path / name / "logs" / "stats.json").read_text())
        extraction = next(s for s in stats if "Trafilatura" in s["name"])
        results[name] = (_read_outputs(tmp_path / name / "out"), extraction["stats"])
        units[name] = extraction["time_stats"].get("unit", "doc")  # datatrove leaves out the default unit
    # trafila's step ran in the (forkserver) workers: its time is per batch, the stock step's per document
    assert units == {"stock": "doc", "trafila": "batch"}
    assert results["trafila"] == results["stock"]
    files, stats = results["trafila"]
    # the reader skips documents with an empty text
    assert len(files) == 2 and stats["total"] == sum(1 for _, html in _pages() if html)


def test_a_clear_error_without_datatrove(monkeypatch):
    import importlib
    import sys

    for name in [n for n in sys.modules if n == "datatrove" or n.startswith("datatrove.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "datatrove", None)
    monkeypatch.delitem(sys.modules, "trafila.integrations.datatrove")
    with pytest.raises(ImportError, match=r"pip install 'trafila\[datatrove\]'") as info:
        importlib.import_module("trafila.integrations.datatrove")
    assert info.value.name == "datatrove"
