"""``python -m harness upstream-suite``: trafilatura's own suite, stock and under trafila.patch().

The comparison, the ledger gate and the report on records made up here; the
plugin and the whole command on a small suite written here (pytest runs it
twice in child processes: about ten seconds).
"""

from __future__ import annotations

import argparse
import io
import json
import tarfile
from pathlib import Path

import pytest

from harness import upstream_suite as us

from .conftest import needs_trafilatura_231


def _record(**outcomes: str) -> dict:
    return {"tests": {t: {"outcome": o, "message": f"{o} here", "detail": ""} for t, o in outcomes.items()},
            "calls": {}, "info": {}, "exit": 1, "seconds": 1.0, "summary": ""}


def test_compare_finds_regressions_and_gates_on_the_ledger():
    stock = _record(a="passed", b="passed", c="failed", d="passed", e="skipped", f="xfailed")
    patched = _record(a="passed", b="failed", c="passed", d="error", e="skipped", f="xfailed")
    out = us.compare(stock, patched, {"d": "a reason"})
    assert [d["test"] for d in out["differences"]] == ["b", "d"]
    assert [d["test"] for d in out["new"]] == ["b"]
    assert out["differences"][1]["expected"] and out["differences"][1]["reason"] == "a reason"
    assert out["new"][0]["reason"].startswith("not in the ledger: failed here")
    assert out["stale"] == []
    assert [t["test"] for t in out["not_passing_stock"]] == ["c"]
    assert out["skipped_stock"] == {"skipped here": ["e"]}
    assert {ch["test"] for ch in out["other_changes"]} == {"c"}


def test_a_ledger_entry_that_no_longer_differs_is_stale_and_a_missing_test_differs():
    stock = _record(a="passed", b="passed")
    patched = _record(a="passed")
    out = us.compare(stock, patched, {"a": "was broken"})
    assert [e["test"] for e in out["stale"]] == ["a"]
    assert [(d["test"], d["patched"]) for d in out["new"]] == [("b", "missing")]


def test_load_expected_reads_the_mode_entries_of_the_ledger_key(tmp_path):
    ledger = tmp_path / "ledger.json"
    ledger.write_text(json.dumps({"entries": [], us.LEDGER_KEY: [
        {"mode": "2.3.1", "test": "t::x", "reason": "r1"}, {"mode": "1.11.0", "test": "t::y", "reason": "r2"}]}))
    assert us.load_expected("2.3.1", ledger) == {"t::x": "r1"}
    assert us.load_expected("1.11.0", ledger) == {"t::y": "r2"}
    assert us.load_expected("2.3.1", tmp_path / "absent.json") == {}


def test_the_committed_ledger_entries_have_reasons():
    for mode in ("2.3.1", "1.11.0"):
        for test, reason in us.load_expected(mode).items():
            assert test.startswith("tests/") and "::" in test and len(reason) > 40, (mode, test)


def test_machine_reasons(monkeypatch):
    assert us.machine_reason({"message": "x", "detail": "urllib3 NameResolutionError: Failed to resolve"}) \
        == "no network on this machine"
    assert "eval_gate" in us.machine_reason({"message": "E   ModuleNotFoundError: No module named 'eval_gate'"})
    assert "docs/demo.gif" in us.machine_reason({"message": "No such file or directory: 'docs/demo.gif'"})
    monkeypatch.setattr(us, "_resolvable", lambda host: False)
    assert us.machine_reason({"message": "assert False", "detail": "x('https://httpbun.com/status/301')"}) \
        == "likely no network: the hosts the test names do not resolve here (httpbun.com)"
    monkeypatch.setattr(us, "_resolvable", lambda host: True)
    assert us.machine_reason({"message": "assert False", "detail": "x('https://httpbun.com/status/301')"}) is None


def _tarball(tmp_path: Path, mode: str, files: dict) -> Path:
    tar = tmp_path / f"trafilatura-{mode}.tar.gz"
    with tarfile.open(tar, "w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"trafilatura-{mode}/{name}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return tar


def test_unpack_takes_the_tests_and_leaves_the_package_out(tmp_path):
    _tarball(tmp_path, "2.3.1", {"tests/a_tests.py": "", "tests/resources/x.html": "<p>", "tests/conftest.py": "",
                                 "trafilatura/__init__.py": "raise ImportError('the sdist copy')"})
    root = us.unpack_tests(tmp_path, "2.3.1", tmp_path / "work")
    assert (root / "tests" / "resources" / "x.html").is_file() and not (root / "trafilatura").exists()
    assert us.test_files(root) == ["tests/a_tests.py"]
    src = tmp_path / "src"
    (src / "tests").mkdir(parents=True)
    assert us.unpack_tests(src, "2.3.1", tmp_path) == src  # an unpacked directory is used in place
    (src / "trafilatura").mkdir()
    with pytest.raises(SystemExit, match="trafilatura's sources"):
        us.unpack_tests(src, "2.3.1", tmp_path)
    with pytest.raises(SystemExit, match="no trafilatura-1.11.0 sdist"):
        us.unpack_tests(tmp_path, "1.11.0", tmp_path / "work")


def test_report_names_command_commit_and_every_difference(tmp_path):
    stock = _record(a="passed", b="passed", c="failed")
    patched = _record(a="passed", b="failed", c="failed")
    patched["calls"] = {"extract": {"native": 3, "handed over: output format xml": 2}}
    patched["info"] = {"engine": "reference"}
    summary = us.summarise("2.3.1", stock, patched, us.compare(stock, patched, {}),
                           "python -m harness upstream-suite --mode 2.3.1", "abc1234")
    md, js = us.write_report(summary, tmp_path / "upstream-suite-2.3.1")
    text = md.read_text()
    assert "`python -m harness upstream-suite --mode 2.3.1`" in text and "commit abc1234" in text
    assert "| `b` | failed | **no** | not in the ledger: failed here |" in text
    assert "| extract | 3 | 2 |" in text and "- 2 × output format xml" in text
    data = json.loads(js.read_text())
    assert data["counts"]["new_differences"] == 1 and data["calls"]["handed_over_by_reason"] == {"output format xml": 2}


#: a small suite in trafilatura's layout: one test passes only stock, one fails in both runs
SUITE = {
    "tests/__init__.py": "",
    "tests/conftest.py": "import trafilatura.core  # imported by the conftest, as trafilatura's own does\n",
    "tests/small_tests.py": '''
import sys

import trafilatura
from trafilatura import extract

PAGE = "<html><body><article>" + "<p>Words of a paragraph that the extractor keeps, quite a few.</p>" * 5 + "</article></body></html>"


def test_extract_everywhere():
    assert "Words of a paragraph" in extract(PAGE)


def test_handed_over_everywhere():
    assert "Words of a paragraph" in extract(PAGE, prune_xpath="//body//footer")


def test_only_stock():
    assert type(sys.modules["trafilatura"]).__name__ == "module"


def test_never():
    assert trafilatura.extract("https://no-such-host.invalid/") == "x"
''',
}


@needs_trafilatura_231
def test_the_command_runs_both_and_gates(tmp_path, monkeypatch, capsys):
    """The whole command on SUITE: the plugin patches before the conftest imports trafilatura,
    records outcomes and the shims' calls; exit 1 with the difference unlisted, 0 listed."""
    _tarball(tmp_path, "2.3.1", SUITE)
    ledger = tmp_path / "ledger.json"
    ledger.write_text(json.dumps({"entries": []}))
    args = argparse.Namespace(mode="2.3.1", sdist=tmp_path, tests=None, timeout=300.0, ledger=ledger,
                              report=tmp_path / "rep" / "upstream-suite-2.3.1", write=True, pytest_args=[])
    runs = []
    real_run_suite = us.run_suite
    monkeypatch.setattr(us, "run_suite", lambda *a, **k: runs.append(real_run_suite(*a, **k)) or runs[-1])
    assert us.run(args, ["--mode", "2.3.1"]) == 1
    data = json.loads((tmp_path / "rep" / "upstream-suite-2.3.1.json").read_text())
    assert data["stock"]["outcomes"] == {"passed": 3, "failed": 1}
    assert data["patched"]["outcomes"] == {"passed": 2, "failed": 2}
    assert [d["test"] for d in data["differences"]] == ["tests/small_tests.py::test_only_stock"]
    assert [t["test"] for t in data["not_passing_stock"]] == ["tests/small_tests.py::test_never"]
    assert data["patched"]["patched"] == "2.3.1" and data["patched"]["imported_before"] is False
    calls = data["calls"]["by_function"]["extract"]
    assert calls["native"] >= 2 and calls["reasons"] == {"prune_xpath: an XPath trafila does not evaluate": 1}
    assert "NEW tests/small_tests.py::test_only_stock" in capsys.readouterr().out

    ledger.write_text(json.dumps({us.LEDGER_KEY: [
        {"mode": "2.3.1", "test": "tests/small_tests.py::test_only_stock", "reason": "the shim is not a plain module"}]}))
    replay = iter(runs)  # the same two runs again, now gated on a ledger that lists the difference
    monkeypatch.setattr(us, "run_suite", lambda *a, **k: next(replay))
    assert us.run(args, ["--mode", "2.3.1"]) == 0
    text = (tmp_path / "rep" / "upstream-suite-2.3.1.md").read_text()
    assert "| `tests/small_tests.py::test_only_stock` | failed | yes | the shim is not a plain module |" in text


def test_the_command_refuses_another_release(monkeypatch, capsys):
    monkeypatch.setattr(us, "installed_trafilatura", lambda python: "2.3.1")
    args = argparse.Namespace(mode="1.11.0", sdist=None, tests=None)
    assert us.run(args, []) == 3
    assert "upstream-suite-1.11" in capsys.readouterr().out
