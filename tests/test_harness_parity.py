"""The harness proves itself: the oracle agrees with its cache, and wrong
candidates are caught with exactly the counts the cache predicts."""

from __future__ import annotations

import gzip
import sys

from harness import parity
from harness.candidates import CallableCandidate, SubprocessCandidate, TrafilaturaCandidate, make_candidate
from harness.corpora import bundle_paths
from harness.oracle import cache_path, read_cache

from .conftest import needs_trafilatura_231

MODE = "2.3.1"
SMALL = ["synthetic", "go-trafilatura"]


def available(bundles):
    out = []
    for b in bundles:
        paths = bundle_paths([b])
        if paths and paths[0].exists() and cache_path(MODE, b).exists():
            out.append(b)
    return out


def cached_entries(bundles, set_name):
    for b in bundles:
        data = read_cache(cache_path(MODE, b))
        for page_id, forms in data["results"].items():
            for form, sets in forms.items():
                yield b, page_id, form, sets.get(set_name), sets


pytestmark = needs_trafilatura_231


def test_oracle_as_candidate_has_no_difference():
    bundles = available(SMALL)
    res = parity.run(TrafilaturaCandidate(), MODE, bundles, log=lambda m: None)
    assert not res.stale
    assert sum(c.comparisons for c in res.cells.values()) > 100
    assert res.differences == []


def _nonempty_text(entry):
    if isinstance(entry, list):
        return entry[1] > 0
    if isinstance(entry, dict) and "fields" in entry:
        t = entry["fields"].get("text")
        return isinstance(t, list) and t[1] > 0
    return False


def test_drop_last_line_mutant_caught_exactly():
    bundles = available(SMALL)
    sets = ["default", "fast", "bare"]
    res = parity.run(make_candidate("mutant:drop-last-line"), MODE, bundles, sets=sets, log=lambda m: None)
    expected = sum(_nonempty_text(e) for s in sets for *_, e, _ in cached_entries(bundles, s))
    assert expected > 0
    assert len(res.differences) == expected
    assert all(isinstance(d.got, (list, dict)) for d in res.differences)


def test_ignore_precision_mutant_caught_exactly():
    bundles = available(SMALL)
    res = parity.run(make_candidate("mutant:ignore-precision"), MODE, bundles, sets=["fast-precision", "fast"],
                     log=lambda m: None)
    # Without favor_precision, fast-precision answers what fast answers: the cache predicts every difference.
    predicted = {(pid, form) for _, pid, form, e, sets in cached_entries(bundles, "fast-precision") if e != sets["fast"]}
    assert predicted, "the small bundles should contain a page where precision matters"
    got = {(d.page, d.form) for d in res.differences}
    assert got == predicted
    assert all(d.option_set == "fast-precision" for d in res.differences)


def test_subprocess_protocol_round_trip():
    cand = SubprocessCandidate(f"{sys.executable} -m harness.serve --candidate trafilatura")
    try:
        res = parity.run(cand, MODE, available(["synthetic"]), sets=["fast", "fast-dedup", "bare-fast"], log=lambda m: None)
    finally:
        cand.close()
    assert sum(c.comparisons for c in res.cells.values()) > 50
    assert res.differences == [] and res.errors == []


def test_hanging_candidate_is_reported_per_page_and_the_run_goes_on():
    cand = CallableCandidate("tests._candidates:hangs_on_short_pages")
    res = parity.run(cand, MODE, available(["synthetic"]), sets=["fast"], forms=("str",), timeout=1.0, log=lambda m: None)
    timed_out = {e["page"] for e in res.errors}
    assert timed_out and all("timeout" in e["message"] for e in res.errors)
    # every page was still compared, and the long pages agree with the oracle
    assert sum(c.comparisons for c in res.cells.values()) == 63
    assert {d.page for d in res.differences} == timed_out


def test_raising_candidate_is_a_difference_naming_the_page():
    cand = CallableCandidate("tests._candidates:raises_on_bom")
    res = parity.run(cand, MODE, available(["synthetic"]), sets=["fast"], log=lambda m: None)
    assert {(d.page, d.got["raise"]) for d in res.differences} == {("synthetic/bom", "RuntimeError")}


def test_stale_or_missing_cache_stops(tmp_path, monkeypatch):
    src = bundle_paths(["synthetic"])[0]
    fake_dir = tmp_path / "corpora"
    fake_dir.mkdir()
    # same name, other bytes: the cache no longer matches
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        lines = fh.readlines()
    with gzip.open(fake_dir / "synthetic.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.writelines(lines[:5])
    monkeypatch.setattr("harness.corpora.EMBEDDED_DIR", fake_dir)
    res = parity.run(TrafilaturaCandidate(), MODE, ["synthetic"], embedded=True, log=lambda m: None)
    assert res.stale and "another synthetic.jsonl.gz" in res.stale[0]
    assert sum(c.comparisons for c in res.cells.values()) == 0
    res = parity.run(TrafilaturaCandidate(), MODE, ["no-such-bundle"], log=lambda m: None)
    assert res.stale and "no-such-bundle" in res.stale[0]


def test_corrupt_line_is_reported_and_the_rest_compared(tmp_path, monkeypatch):
    src = bundle_paths(["synthetic"])[0]
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        lines = fh.readlines()
    lines.insert(3, "{not json\n")
    bad = tmp_path / "synthetic.jsonl.gz"
    with gzip.open(bad, "wt", encoding="utf-8") as fh:
        fh.writelines(lines)
    from harness.corpora import load_pages

    errors = []
    pages = load_pages(bad, errors)
    assert len(pages) == len(lines) - 1
    assert errors and errors[0][0] == "synthetic#4" and "corrupt record" in errors[0][1]


def test_ledger_gate_new_and_gone():
    bundles = available(["synthetic"])
    res = parity.run(make_candidate("mutant:drop-last-line"), MODE, bundles, sets=["fast"], forms=("str",),
                     log=lambda m: None)
    first = res.differences[0]
    ledger = [
        {"mode": MODE, "bundle": first.bundle, "page": first.page, "form": "str", "option_set": "fast", "reason": "test"},
        {"mode": MODE, "bundle": "synthetic", "page": "synthetic/empty", "form": "str", "option_set": "fast", "reason": "stale"},
        {"mode": "1.11.0", "bundle": "synthetic", "page": "synthetic/empty", "form": "str", "option_set": "fast", "reason": "other mode"},
    ]
    new, gone = parity.gate(res, ledger)
    assert first not in new and len(new) == len(res.differences) - 1
    assert [e["reason"] for e in gone] == ["stale"]
