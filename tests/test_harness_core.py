"""The harness commands for the compiled core: ``tree --engine core``,
``bench-parser``, ``fuzz tree --engine core --merge``, the build check.

Skipped when trafila._core is not built; failing under TRAFILA_REQUIRE_EXTENSIONS=1.
"""

from __future__ import annotations

import argparse
import json
import os

import pytest

from .conftest import _built_engine


@pytest.fixture(scope="module")
def core():
    _built_engine("core")
    from trafila import _core

    return _core


def test_tree_engine_core_on_the_embedded_corpus(core, tmp_path):
    from harness import tree

    # a report written before engines had sections is the reference's: it stays
    (tmp_path / "tree.json").write_text(json.dumps({"rows": [], "vectors": {"cases": 0, "differences": []},
                                                    "examples": [], "speed": {}, "every": 1, "checks": ["document"],
                                                    "date": "d", "commit": "c", "command": "python -m harness tree"}))
    res = tree.run(embedded=True, engine="core", log=lambda m: None)
    assert res["engine"] == "core" and "c-model" in res["checks"]
    assert res["rows"] and all(r["pages"] for r in res["rows"])
    bad = {(r["bundle"], r["form"], c): r[c] for r in res["rows"] for c in res["checks"] if r[c]}
    assert not bad, (bad, res["examples"][:3])
    assert not res["vectors"]["differences"]
    tree.write_report(res, "python -m harness tree --engine core --embedded", tmp_path)
    data = json.loads((tmp_path / "tree.json").read_text())
    assert list(data["engines"]) == ["reference", "core"]
    assert data["engines"]["core"]["rows"] == res["rows"]
    md = (tmp_path / "tree.md").read_text()
    assert "## Engine: reference" in md and "## Engine: core" in md and "c-model differences" in md


def test_c_model_check_sees_a_wrong_c_document(core, monkeypatch):
    from harness.c_model import c_model_difference

    html = "<html><body><p>a<b>b</b></p></body></html>"
    assert c_model_difference(html) is None

    class Wrong:
        def __init__(self, doc):
            self.doc = doc

        def dump(self):
            d = self.doc.dump()
            return d[:-1] if isinstance(d, list) and d else ["wrong"]

        def to_reference(self):
            return self.doc.to_reference()

    real = core.parse_document
    monkeypatch.setattr(core, "parse_document", lambda src: Wrong(real(src)))
    diff = c_model_difference(html)
    assert diff and diff.startswith("document:")


def test_bench_parser_on_three_pages(core, tmp_path):
    from harness.cli import main

    rc = main(["bench-parser", "--embedded", "--limit", "3", "--every", "1", "--repeat", "1", "--thread-passes", "1",
               "--mem-parses", "60", "--report-dir", str(tmp_path)])
    assert rc == 0
    data = json.loads((tmp_path / "bench-parser.json").read_text())
    assert 3 <= data["page_forms"] <= 6
    total = next(r for r in data["ratio"]["rows"] if r["bundle"] == "all" and r["form"] == "both")
    assert total["pages"] == data["page_forms"] and total["core_seconds"] > 0 and total["lxml_seconds"] > 0
    assert total["ratio"] > 0
    th = data["threads"]
    assert th["threads"] == 2 and th["one_thread_seconds"] > 0 and th["speedup"] > 0 and th["loadavg_before"]
    mem = data["memory"]
    assert mem["parses"] == 60 and mem["rss_mb_max"] >= mem["rss_mb_last"] > 0
    assert "core/lxml" in (tmp_path / "bench-parser.md").read_text()


def test_fuzz_tree_core_and_merged_reports(core, tmp_path):
    from harness import fuzz

    parsers = fuzz.trafila_parsers("core")
    summaries = [fuzz.run_tree(40, seed, tmp_path / str(seed), parsers=parsers, log=lambda m: None) for seed in (1, 2)]
    for s in summaries:
        assert s["counts"]["compared"] == 40
        assert not any(k.endswith("different") for k in s["counts"]), s["counts"]
    args = argparse.Namespace(what="tree", engine="core", n=40, merge=False)
    fuzz.write_report(args, 1, summaries[0], ["tree", "--engine", "core"], "c0", tmp_path)
    args.merge = True
    fuzz.write_report(args, 2, summaries[1], ["tree", "--engine", "core", "--merge"], "c0", tmp_path)
    fuzz.write_report(args, 2, summaries[1], ["tree", "--engine", "core", "--merge"], "c0", tmp_path)  # same seed: replaced
    data = json.loads((tmp_path / "fuzz-tree-core.json").read_text())
    assert data["kind"] == "tree-core" and data["n"] == 80 and data["seed"] == [1, 2]
    assert data["counts"]["compared"] == 80
    assert "80 documents" in (tmp_path / "fuzz-tree-core.md").read_text()


def test_build_info_reads_the_compiler_flags(core):
    from harness.provenance import build_info

    info = build_info()
    assert info["file"] == os.path.basename(core.__file__)
    if info["producers"]:  # gcc records its command line (-g is in Python's CFLAGS)
        assert info["optimisation"] in ("-O0", "-O2") and info["debug"] == (info["optimisation"] == "-O0")
