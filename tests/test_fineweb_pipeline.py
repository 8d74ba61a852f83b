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
    LocalPipelineExecutor(steps, tasks=3, workers=1, logging_dir=str(out / "logs")).run()


#: paragraphs of ordinary English prose: pages made of them pass every quality filter, so the
#: comparison below has documents to compare (the embedded corpus's synthetic pages all fail
#: Gopher's stop-word test)
PROSE = [
    "The river town woke slowly on the morning of the fair. Farmers led their cattle along the "
    "muddy road, and the baker had already sold most of his bread before the church bell rang. "
    "Children ran between the stalls, looking for the man who sold painted wooden birds.",
    "Nobody in the town could remember when the fair had first been held. Some said it was older "
    "than the bridge, which had been rebuilt three times since the great flood. Others claimed "
    "that a travelling merchant had started it to sell the salt he carried from the coast.",
    "By noon the square was full of noise and colour. A fiddler played near the fountain while an "
    "old woman told fortunes for a copper coin. The mayor gave a short speech that few people "
    "heard, and then he bought a basket of apples for his grandchildren.",
    "In the afternoon the weather turned, and a cold wind came down from the hills. Most of the "
    "visitors packed their goods and started for home before the rain arrived. Only the tavern "
    "stayed open late, where travellers traded stories about the roads they had walked.",
]


def _prose_pages(folder: Path) -> int:
    """A WARC file of three pages of prose (each paragraph order a different page)."""
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "prose.warc.gz", "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for k in range(3):
            paragraphs = PROSE[k:] + PROSE[:k]
            body = "".join(f"<p>{p}</p>" for p in paragraphs)
            html = f"<html><head><title>Fair {k}</title></head><body><article><h1>The fair, part {k}</h1>{body}</article></body></html>"
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            record = writer.create_warc_record(
                f"https://stories.trafila.test/fair/{k}", "response", payload=io.BytesIO(html.encode()),
                http_headers=http, warc_headers_dict={"WARC-Record-ID": f"<urn:trafila:prose-{k}>",
                                                      "WARC-Date": "2024-01-01T00:00:00Z",
                                                      "WARC-Identified-Payload-Type": "text/html"})
            writer.write_record(record)
    return 3


def test_trafila_fineweb_writes_what_datatrove_writes(tmp_path):
    """The embedded corpus as two WARC files and three pages of prose as a third: ``trafila
    fineweb`` gives the same documents (ids, texts, metadata, order, file by file) and the same
    statistics of every step in each task (timings aside) as datatrove's own FineWeb pipeline."""
    from harness.datatrove_run import read_outputs, task_statistics, write_warcs

    from trafila.cli import main

    inputs = tmp_path / "warc"
    written = write_warcs(inputs, None, 1, None, True, 2)
    assert written["pages"] >= 10
    _prose_pages(inputs)
    stock, ours = tmp_path / "stock", tmp_path / "trafila"
    _stock_pipeline(inputs, stock)
    assert main(["fineweb", str(inputs), "-o", str(ours), "--workers", "1"]) == 0

    stock_docs, our_docs = read_outputs(stock), read_outputs(ours)
    assert our_docs == stock_docs
    # the prose file (pages-000, pages-001, prose: rank 2) is written, its three pages kept
    assert [rec[0] for rec in stock_docs["00002.jsonl.gz"]] == [f"<urn:trafila:prose-{k}>" for k in range(3)]
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
