"""The FineWeb pipeline as a whole: ``trafila fineweb`` against datatrove's own pipeline, and
the substitution ``harness datatrove-suite`` relies on.

Runs where datatrove 0.10.1 and the FineWeb steps' packages are installed (``tox -e datatrove``);
the stock pipeline extracts with the installed trafilatura, so trafila's step reproduces that
release.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("datatrove")
pytest.importorskip("spacy")
pytest.importorskip("warcio")
pytest.importorskip("tldextract")
pytest.importorskip("trafilatura")  # the stock extraction step


def _stock_pipeline(inputs: Path, out: Path) -> None:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.extractors import Trafilatura
    from datatrove.pipeline.filters import (C4QualityFilter, FineWebQualityFilter, GopherQualityFilter,
                                            GopherRepetitionFilter, URLFilter)
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    steps = [WarcReader(str(inputs)), URLFilter(), Trafilatura(favour_precision=True, timeout=600.0),
             GopherRepetitionFilter(), GopherQualityFilter(), C4QualityFilter(filter_no_terminal_punct=False),
             FineWebQualityFilter(), JsonlWriter(str(out / "output"))]
    LocalPipelineExecutor(steps, tasks=2, workers=1, logging_dir=str(out / "logs")).run()


def test_trafila_fineweb_writes_what_datatrove_writes(tmp_path):
    """Every page of the embedded corpus as two WARC files: ``trafila fineweb`` gives the same
    documents (ids, texts, metadata, order, file by file) and the same statistics of every
    step in each task (timings aside) as datatrove's own FineWeb pipeline."""
    from harness.datatrove_run import read_outputs, task_statistics, write_warcs

    from trafila.cli import main

    inputs = tmp_path / "warc"
    written = write_warcs(inputs, None, 1, None, True, 2)
    assert written["pages"] >= 10
    stock, ours = tmp_path / "stock", tmp_path / "trafila"
    _stock_pipeline(inputs, stock)
    assert main(["fineweb", str(inputs), "-o", str(ours), "--workers", "1"]) == 0

    stock_docs, our_docs = read_outputs(stock), read_outputs(ours)
    assert list(our_docs) == list(stock_docs) == ["00000.jsonl.gz", "00001.jsonl.gz"]
    assert our_docs == stock_docs
    assert sum(len(d) for d in stock_docs.values()) > 0  # some pages pass every filter
    stock_stats, our_stats = task_statistics(stock), task_statistics(ours)
    assert [name for name, _ in our_stats] == [name for name, _ in stock_stats]
    assert our_stats == stock_stats
    compared = " ".join(name for name, _ in stock_stats)
    for step in ("Warc", "Url-filter", "Trafilatura", "Gopher Repetition", "Gopher Quality", "C4 Quality",
                 "FineWeb Quality", "Jsonl"):
        assert step in compared, step  # every step's statistics are among those compared


def test_trafila_fineweb_refuses_a_missing_input(tmp_path, capsys):
    from trafila.cli import main

    assert main(["fineweb", str(tmp_path / "nothing.warc.gz"), "-o", str(tmp_path / "out")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_substitution_puts_every_drop_in_where_datatrove_code_imports_it():
    """After ``substitute_datatrove_steps()``, the names datatrove's tests (and any user code)
    import from datatrove's modules are trafila's classes. In a child process: the swap is
    process-wide on purpose."""
    code = """
import trafila.integrations.datatrove as ours
names = ours.substitute_datatrove_steps()
from datatrove.pipeline.filters import (URLFilter, GopherRepetitionFilter, GopherQualityFilter,
                                        C4QualityFilter, FineWebQualityFilter)
from datatrove.pipeline.filters.c4_filters import C4QualityFilter as C4
from datatrove.pipeline.readers import WarcReader
from datatrove.pipeline.extractors import Trafilatura
for cls in (URLFilter, GopherRepetitionFilter, GopherQualityFilter, C4QualityFilter, FineWebQualityFilter, C4,
            WarcReader, Trafilatura):
    assert cls.__module__.startswith("trafila.integrations."), cls
    assert cls is getattr(ours, cls.__name__), cls
print(sorted(names))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[0] == str(sorted(
        ["WarcReader", "URLFilter", "GopherRepetitionFilter", "GopherQualityFilter", "C4QualityFilter",
         "FineWebQualityFilter", "Trafilatura"]))


def test_the_drop_ins_are_datatrove_steps_with_datatrove_signatures():
    """Every FineWeb step re-exported by trafila.integrations.datatrove is a datatrove
    PipelineStep with the constructor datatrove's class has (a pipeline swaps one import)."""
    import inspect

    from datatrove.pipeline import filters, readers
    from datatrove.pipeline.base import PipelineStep

    import trafila.integrations.datatrove as ours

    for name in ours.FINEWEB_STEPS:
        stock = getattr(filters, name, None) or getattr(readers, name)
        mine = getattr(ours, name)
        assert issubclass(mine, PipelineStep) and mine is not stock
        assert inspect.signature(mine.__init__) == inspect.signature(stock.__init__), name
        assert mine.name == stock.name
