"""harness.fuzz_native's report: campaigns of an earlier report are kept only while the C they ran on
is the C built now."""

import json

import pytest

import harness.fuzz_native as fn
from harness import provenance


def _report(path, commit, campaigns):
    path.write_text(json.dumps({"commit": commit, "campaigns": campaigns}))
    return path


def _campaign(name, **meta):
    return {"meta": dict({"campaign": name, "kind": "generated"}, **meta), "counts": {"parsed": 10},
            "seconds": 1.0, "unraisable": 0, "crashes": 0, "crash_list": [], "diffs": [], "bugs": [], "atheris": None}


def test_only_campaigns_on_the_same_c_are_carried(tmp_path, monkeypatch):
    ids = {"HEAD": "c1+s1", "abc1234": "c1+s1", "old0000": "c0+s1"}
    monkeypatch.setattr(fn, "c_source_id", lambda commit="HEAD": ids.get(commit))
    report = _report(tmp_path / "fuzz-native.json", "abc1234", {
        "same-by-commit": _campaign("same-by-commit"),                 # no c_source: the report's commit decides
        "same-recorded": _campaign("same-recorded", c_source="c1+s1"),
        "other-c": _campaign("other-c", c_source="c0+s1"),
        "older-report": _campaign("older-report", carried_from="old0000"),
        "here-too": _campaign("here-too", c_source="c1+s1"),             # its checkpoints are here: not carried
    })
    got = fn._carried_campaigns(report, {"here-too"})
    assert sorted(got) == ["same-by-commit", "same-recorded"]
    assert got["same-by-commit"]["meta"]["carried_from"] == "abc1234"
    assert got["same-by-commit"]["meta"]["c_source"] == "c1+s1"
    assert got["same-by-commit"]["counts"] == {"parsed": 10}


def test_nothing_is_carried_when_the_c_has_uncommitted_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(fn, "c_source_id", lambda commit="HEAD": None if commit == "HEAD" else "c1+s1")
    report = _report(tmp_path / "fuzz-native.json", "abc1234", {"a": _campaign("a", c_source="c1+s1")})
    assert fn._carried_campaigns(report, set()) == {}
    assert fn._carried_campaigns(tmp_path / "missing.json", set()) == {}


def test_c_source_id_names_the_core_sources():
    here = provenance.c_source_id("HEAD~0")  # a commit other than the literal HEAD: no dirty check
    if here is None:
        pytest.skip("not a git checkout (an sdist): no commit to name the sources by")
    assert here.count("+") == len(provenance.C_SOURCE_PATHS) - 1
    assert provenance.c_source_id("no-such-commit") is None


def test_classify_crash_reads_the_sanitizer_report_then_the_log_names():
    """The one classification both sanitizer campaigns (fuzz-native, fuzz-fineweb) record."""
    from harness.fuzz_native import classify_crash

    asan = "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\n#0 0x2 in f\n"
    assert classify_crash(asan, [], "") == ("asan", "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1")
    assert classify_crash("quality.c:9:3: runtime error: shift exponent 70\n", [], None)[0] == "ubsan"
    assert classify_crash("", ["san/ubsan.41"], "a\nAborted\n") == ("ubsan", "Aborted")
    assert classify_crash("", ["san/asan.41"], None) == ("asan", "")
    assert classify_crash("", [], "Segmentation fault") == ("crash", "Segmentation fault")
    assert len(classify_crash("ERROR: " + "x" * 1000, [], "")[1]) == 300
