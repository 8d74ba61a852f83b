"""The native FineWeb chain (``trafila fineweb --native``, :mod:`trafila.fineweb.pipeline`) and the
packaged URL block lists, against datatrove 0.10.1 where it is installed.

- the packaged lists (``fineweb/data/url-blocklists.bin``) are the sets datatrove's ``URLFilter``
  builds (datatrove's own ``get_list`` on its own assets), and their file format round-trips;
- the native chain writes what ``trafila fineweb --datatrove`` writes (datatrove's executor with
  trafila's drop-in steps): every output and exclusion file byte for byte after decompression,
  every step's statistics (timings aside) in each task and merged, in both compat modes;
- the native chain runs with datatrove hidden from imports, and ``trafila fineweb`` picks it then;
- its statistics arithmetic is datatrove's (``MetricStats``: updates, sums, saved form).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("warcio")  # the test inputs are written with warcio
pytest.importorskip("tldextract")
pytest.importorskip("cchardet")
pytest.importorskip("magic")

HAVE_DATATROVE = importlib.util.find_spec("datatrove") is not None
needs_datatrove = pytest.mark.skipif(not HAVE_DATATROVE, reason="needs datatrove 0.10.1")


def _gen_module():
    spec = importlib.util.spec_from_file_location("gen_url_blocklists", ROOT / "tools" / "gen_url_blocklists.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- the packaged lists


def test_packaged_format_round_trips(tmp_path):
    """A file written by the generator reads back to the same sets, front coding's edge cases
    included: the empty entry, entries sharing exactly 10 leading bytes (the coded byte would be
    a newline), entries sharing more than 255, non-ASCII entries; a changed byte is refused."""
    from trafila.fineweb import url_filter

    gen = _gen_module()
    long = "x" * 300
    sets = {
        "banned_words": {"", "porn", "porno", "pornography"},
        "banned_subwords": {"0123456789a", "0123456789b", "0123456789", "été", "ét"},
        "soft_banned_words": set(),
        "urls": {long + "a", long + "b", long, "a.example/x"},
        "domains": {f"d{i}.example" for i in range(2000)} | {"0123456789.com", "0123456789.org"},
    }
    path = tmp_path / "lists.bin"
    path.write_bytes(gen.build(sets, "0.10.1", "UTF-8"))
    sections = url_filter.read_packaged(str(path))
    for name, entries in sets.items():
        assert sections[name] == gen.section_bytes(entries), name
    words = url_filter.packaged_word_lists(str(path))
    assert words["banned_words.txt"] == sets["banned_words"]
    assert words["banned_subwords.txt"] == sets["banned_subwords"]
    assert words["soft_banned_words.txt"] == set()
    # only the wanted sections are checked and returned
    assert set(url_filter.read_packaged(str(path), ["urls"])) == {"urls"}
    # the header's sha256 guards each section
    data = bytearray(path.read_bytes())
    header_end = data.index(b"\n\n")
    data[header_end - 3] = ord("0") if data[header_end - 3] != ord("0") else ord("1")
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError):
        url_filter.read_packaged(str(path))


def test_packaged_header_names_source_version_and_licence():
    from trafila.fineweb.url_filter import PACKAGED_LISTS

    head = Path(PACKAGED_LISTS).read_bytes().split(b"\n\n", 1)[0].decode("ascii")
    assert "datatrove 0.10.1" in head and "url_filterblacklistsv0_3_0.tar.gz" in head
    assert "CC BY-SA 4.0" in head or "Creative Commons BY-SA 4.0" in head
    assert "Apache License 2.0" in head
    names = [line.split()[2] for line in head.splitlines() if line.startswith("# section ")]
    assert names == ["banned_words", "banned_subwords", "soft_banned_words", "urls", "domains"]


@needs_datatrove
def test_packaged_word_lists_are_datatrove_s():
    from datatrove.pipeline.filters.url_filter import get_list
    from datatrove.utils._import_utils import ASSETS_PATH

    from trafila.fineweb.url_filter import packaged_word_lists

    for file_name, words in packaged_word_lists().items():
        assert words == get_list(ASSETS_PATH, file_name, set()), file_name


@needs_datatrove
def test_packaged_domains_and_urls_are_datatrove_s(tmp_path):
    """The 4.5 million domains and the URLs: datatrove's get_list over the tarball's members
    (extracted as datatrove's download_data extracts them) gives exactly the packaged sets."""
    import tarfile

    from datatrove.pipeline.filters.url_filter import get_list
    from datatrove.utils._import_utils import ASSETS_PATH

    from trafila.fineweb.url_filter import TARBALL, read_packaged

    gen = _gen_module()
    with tarfile.open(os.path.join(ASSETS_PATH, TARBALL), "r:gz") as tar:
        tar.extractall(tmp_path)
    packaged = read_packaged(names=["domains", "urls"])
    for name in ("urls", "domains"):
        theirs = gen.section_bytes(get_list(str(tmp_path), name, set(), do_normalize=False))
        assert hashlib.sha256(theirs).digest() == hashlib.sha256(packaged[name]).digest(), name
        del theirs


def test_packaged_block_lists_answer_membership(tmp_path):
    """The tables built from the packaged file answer ``in`` for their entries and nothing else."""
    from trafila.fineweb.url_filter import load_block_lists, read_packaged

    lists = load_block_lists(str(tmp_path), source="packaged")
    urls = read_packaged(names=["urls"])["urls"].decode().split("\n")[:-1]
    assert len(lists.urls) == len(urls) and len(lists.domains) > 4_000_000
    sample = random.Random(7).sample(urls, 200)
    assert all(u in lists.urls for u in sample)
    assert not any(u + "/not-listed" in lists.urls for u in sample)
    assert "example.com" not in lists.domains


# --------------------------------------------------------------------------- statistics


@needs_datatrove
def test_metric_stats_are_datatrove_s():
    """Updates, sums and the saved form of trafila's MetricStats equal datatrove's on random series."""
    from datatrove.utils.stats import MetricStats as Theirs

    from trafila.fineweb.pipeline import MetricStats as Ours

    rng = random.Random(11)
    for _ in range(300):
        pair = []
        for _ in range(2):
            ours, theirs = Ours(), Theirs()
            unit = rng.choice([None, None, "doc", "batch", "input_file"])
            for _ in range(rng.choice([0, 1, 2, 5, 30])):
                x = rng.choice([1, 1, 0, rng.randint(0, 5000), rng.random() * 100])
                ours.update(x, unit)
                theirs.update(x, unit)
            assert ours.to_dict() == theirs.to_dict()
            pair.append((ours, theirs))
        (a, b), (c, d) = pair
        assert (a + c).to_dict() == (b + d).to_dict()


# --------------------------------------------------------------------------- the chain against datatrove's


def _inputs(folder: Path) -> list:
    from harness.datatrove_run import write_warcs

    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from test_fineweb_pipeline import _prose_pages
    finally:
        sys.path.pop(0)
    write_warcs(folder, None, 1, None, True, 2)
    _prose_pages(folder)
    from trafila.cli.fineweb import input_files

    return input_files([str(folder)])


def _tree(root: Path) -> dict:
    """Every JSON Lines file under output/ and removed/, decompressed, by relative path."""
    return {str(p.relative_to(root)): gzip.decompress(p.read_bytes())
            for p in sorted(root.rglob("*.jsonl.gz"))}


def _counters(path: Path) -> list:
    """Each step's counters, with how many times its time was taken (the time's values aside)."""
    from harness.fineweb_native import time_count

    return [(s["name"], dict(s["stats"], time_count=time_count(s["time_stats"])))
            for s in json.loads(path.read_text())]


@pytest.fixture(scope="module")
def warc_inputs(tmp_path_factory):
    return _inputs(tmp_path_factory.mktemp("warc"))


@needs_datatrove
@pytest.mark.parametrize("mode", ["1.11.0", "2.3.1"])
def test_native_chain_writes_what_the_datatrove_chain_writes(tmp_path, warc_inputs, mode):
    from datatrove.executor import LocalPipelineExecutor
    from tldextract import TLDExtract

    from trafila.cli.fineweb import build_pipeline
    from trafila.fineweb.pipeline import STEP_NAMES, run_native

    theirs, ours = tmp_path / "datatrove", tmp_path / "native"
    steps = build_pipeline(warc_inputs, theirs, mode, removed=True)
    steps[1].tldextractor = TLDExtract(suffix_list_urls=())  # the bundled suffix list, as the native run
    LocalPipelineExecutor(steps, tasks=len(warc_inputs), workers=1, logging_dir=str(theirs / "logs")).run()
    run_native(warc_inputs, ours, compat=mode, workers=1, removed=True, offline_suffix_list=True)

    their_files, our_files = _tree(theirs), _tree(ours)
    assert sorted(our_files) == sorted(their_files)
    assert "output/00002.jsonl.gz" in our_files  # the prose pages are kept
    assert any(name.startswith("removed/") for name in our_files)
    for name in their_files:
        assert our_files[name] == their_files[name], name
    for rank in range(len(warc_inputs)):
        stats = f"logs/stats/{rank:05d}.json"
        assert _counters(ours / stats) == _counters(theirs / stats), stats
        assert (ours / f"logs/completions/{rank:05d}").exists()
    assert [name for name, _ in _counters(ours / "logs/stats.json")] == list(STEP_NAMES)
    assert _counters(ours / "logs/stats.json") == _counters(theirs / "logs/stats.json")


def test_native_chain_skips_completed_tasks(tmp_path, warc_inputs):
    from trafila.fineweb.pipeline import run_native

    out = tmp_path / "out"
    assert run_native(warc_inputs[:1], out, compat="2.3.1", workers=1, offline_suffix_list=True)
    before = (out / "logs/stats/00000.json").stat().st_mtime_ns
    assert run_native(warc_inputs[:1], out, compat="2.3.1", workers=1, offline_suffix_list=True) == []
    assert (out / "logs/stats/00000.json").stat().st_mtime_ns == before


#: run in a child with every datatrove import refused (as if datatrove were not installed)
_HIDDEN = """
import sys, importlib.abc
class _NoDatatrove(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "datatrove" or name.startswith("datatrove."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoDatatrove())
for name in [n for n in sys.modules if n == "datatrove" or n.startswith("datatrove.")]:
    del sys.modules[name]
from trafila.cli import main
status = main(sys.argv[1:])
assert not [n for n in sys.modules if n.startswith("datatrove")], "datatrove was imported"
sys.exit(status)
"""


def test_native_chain_runs_without_datatrove(tmp_path, warc_inputs):
    """``trafila fineweb`` with datatrove refused by the import system (one process, so every
    step runs under the refusal): the native chain is the default then, runs, never imports
    datatrove, and writes the files the native run writes here."""
    from trafila.fineweb.pipeline import run_native

    child, here = tmp_path / "child", tmp_path / "here"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    folder = str(Path(warc_inputs[0]).parent)
    proc = subprocess.run([sys.executable, "-c", _HIDDEN, "fineweb", folder, "-o", str(child), "--compat", "2.3.1",
                           "--workers", "1", "--removed"], capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_native(warc_inputs, here, compat="2.3.1", workers=1, removed=True)
    assert _tree(child) == _tree(here) and "output/00002.jsonl.gz" in _tree(here)
    for rank in range(3):
        stats = f"logs/stats/{rank:05d}.json"
        assert _counters(child / stats) == _counters(here / stats)
    assert _counters(child / "logs/stats.json") == _counters(here / "logs/stats.json")


def test_native_chain_in_worker_processes(tmp_path, warc_inputs):
    """Two worker processes write what one process writes (files, statistics of each task and merged)."""
    from trafila.fineweb.pipeline import run_native

    one, two = tmp_path / "one", tmp_path / "two"
    run_native(warc_inputs, one, compat="1.11.0", workers=1, removed=True, offline_suffix_list=True)
    run_native(warc_inputs, two, compat="1.11.0", workers=2, removed=True, offline_suffix_list=True)
    assert _tree(two) == _tree(one)
    for rank in range(3):
        stats = f"logs/stats/{rank:05d}.json"
        assert _counters(two / stats) == _counters(one / stats)
    assert _counters(two / "logs/stats.json") == _counters(one / "logs/stats.json")


def test_datatrove_chain_without_datatrove_is_refused(tmp_path, warc_inputs):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, "-c", _HIDDEN, "fineweb", str(warc_inputs[0]), "-o", str(tmp_path / "o"),
                           "--datatrove"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2 and "--native" in proc.stderr
