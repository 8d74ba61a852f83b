"""The harness proves itself: the oracle agrees with its cache, and wrong
candidates are caught with exactly the counts the cache predicts.

The cache compared with is the one a parity run uses on this interpreter
(``oracle.resolve_cache``): the committed one under CPython 3.11, one made by
the installed trafilatura for this interpreter's Unicode tables elsewhere."""

from __future__ import annotations

import gzip
import sys
import warnings
from types import SimpleNamespace

import pytest

from harness import oracle, parity
from harness.candidates import CallableCandidate, SubprocessCandidate, TrafilaturaCandidate, make_candidate
from harness.corpora import bundle_paths, describe_corpus, load_pins
from harness.matrix import option_sets
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


def oracle_cache(bundle):
    """The cache parity compares ``bundle`` with here (made now when this interpreter needs its own)."""
    return oracle.resolve_cache(MODE, bundle_paths([bundle])[0], option_sets(MODE), oracle.oracle_versions(),
                                live=True, log=lambda m: None).data


def cached_entries(bundles, set_name):
    for b in bundles:
        data = oracle_cache(b)
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


def test_committed_caches_are_made_with_the_declared_unicode_tables():
    caches = sorted(oracle.ORACLE_DIR.glob("*/*.json.gz"))
    assert caches
    made = {p.relative_to(oracle.ORACLE_DIR).as_posix(): read_cache(p)["oracle"]["unicodedata"] for p in caches}
    assert set(made.values()) == {oracle.COMMITTED_UNICODEDATA}, made


def _other_tables_layout(tmp_path, monkeypatch):
    """A committed oracle dir holding the synthetic cache as if made with other Unicode tables, and an
    empty local dir: what every interpreter but the committed caches' one sees."""
    data = read_cache(cache_path(MODE, "synthetic"))
    data["oracle"] = dict(data["oracle"], unicodedata="0.0.0", python="0.0")
    committed, local = tmp_path / "committed", tmp_path / "local"
    oracle.write_cache(data, cache_path(MODE, "synthetic", committed))
    monkeypatch.setattr(oracle, "ORACLE_DIR", committed)
    monkeypatch.setattr(oracle, "LOCAL_ORACLE_DIR", local)
    return data, local


def test_cache_for_other_unicode_tables_is_made_live_then_reused(tmp_path, monkeypatch):
    data, local = _other_tables_layout(tmp_path, monkeypatch)
    path = bundle_paths(["synthetic"])[0]
    sets = option_sets(MODE, ["fast", "bare"])
    first = oracle.resolve_cache(MODE, path, sets, oracle.oracle_versions(), live=True, log=lambda m: None)
    assert first.source == "live"
    assert first.path == oracle.local_cache_path(MODE, "synthetic") and first.path.is_relative_to(local)
    assert first.data["oracle"]["unicodedata"] == oracle.unicodedata.unidata_version
    if oracle.committed_interpreter():  # the same tables as the real committed cache: the same results
        for page, forms in first.data["results"].items():
            for form, results in forms.items():
                assert results == {s.name: data["results"][page][form][s.name] for s in sets}, (page, form)
    again = oracle.resolve_cache(MODE, path, sets, oracle.oracle_versions(), live=False, log=lambda m: None)
    assert again.source == "local" and again.data["results"] == first.data["results"]
    # a set the local cache lacks is added to it, the others kept
    more = oracle.resolve_cache(MODE, path, option_sets(MODE, ["fast", "recall"]), oracle.oracle_versions(),
                                live=True, log=lambda m: None)
    assert more.source == "live" and {"fast", "bare", "recall"} <= set(more.data["option_sets"])


def test_cache_for_other_unicode_tables_not_made_says_how(tmp_path, monkeypatch):
    _other_tables_layout(tmp_path, monkeypatch)
    path = bundle_paths(["synthetic"])[0]
    with pytest.raises(oracle.OtherInterpreter) as err:
        oracle.resolve_cache(MODE, path, option_sets(MODE), oracle.oracle_versions(), live=False)
    assert "unicodedata 0.0.0" in str(err.value) and err.value.bundle == "synthetic" and err.value.seconds > 0
    res = parity.run(TrafilaturaCandidate(), MODE, ["synthetic"], live=False, log=lambda m: None)
    assert res.other_interpreter and res.comparisons == 0
    text = "\n".join(parity.summary(res, [], [], 1.0))
    assert f"tox -e {oracle.oracle_env(MODE)}" in text and "STOPPED (exit 3)" in text


def _main_args(**kw):
    args = dict(candidate="trafilatura", mode=MODE, bundles=["synthetic"], sets=["fast"], forms="str",
                embedded=None, timeout=120.0, report=True, report_dir=None, write_reports=False, merge=False)
    args.update(kw)
    return SimpleNamespace(**args)


def test_default_report_goes_to_the_ignored_dir_and_a_stopped_run_leaves_reports_alone(tmp_path, monkeypatch, capsys):
    committed, local = tmp_path / "reports", tmp_path / "local-reports"
    committed.mkdir()
    (committed / "parity.md").write_text("committed\n")
    monkeypatch.setattr(parity, "REPORTS_DIR", committed)
    monkeypatch.setattr(parity, "LOCAL_REPORTS_DIR", local)
    assert parity.main(_main_args(), ["parity"]) == 0
    assert (local / "parity.md").exists() and (local / "parity.json").exists()
    assert (committed / "parity.md").read_text() == "committed\n"
    out = capsys.readouterr().out
    assert "corpus: " in out and "ignored by git" in out and "PASS" in out
    # --write-reports on a run that stops (no such bundle): the committed reports stay as they were
    assert parity.main(_main_args(bundles=["no-such-bundle"], write_reports=True), ["parity"]) == 3
    assert (committed / "parity.md").read_text() == "committed\n"
    assert "left as it is" in capsys.readouterr().out
    assert parity.main(_main_args(write_reports=True), ["parity"]) == 0
    assert "trafilatura / 2.3.1" in (committed / "parity.md").read_text()


def warns_fallback(request):
    """A candidate that hands every call over, as trafila does for what it does not run natively."""
    from trafila import FallbackWarning

    warnings.warn("trafila: extract handed to trafilatura 2.3.1: a test reason", FallbackWarning)
    return None


def test_fallback_warnings_are_counted_not_shown():
    cand = CallableCandidate("tests.test_harness_parity:warns_fallback")
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        res = parity.run(cand, MODE, available(["synthetic"]), sets=["fast"], forms=("str",), log=lambda m: None)
        warnings.warn("another warning", UserWarning)
    assert len(res.fallback_warnings) == res.comparisons > 0
    # a ResourceWarning here is the garbage collector closing another test's object (seen on 3.13: an
    # unclosed pipe), not this run's: only the warnings the run or the test raised are compared
    assert [str(w.message) for w in shown if not issubclass(w.category, ResourceWarning)] == ["another warning"]
    res.cells[("synthetic", "fast")].delegated = 3
    text = "\n".join(parity.summary(res, [], [], 1.0))
    assert "delegated: 3 of the" in text and "a test reason" in text and "not printed" in text


def test_progress_lines_on_a_long_run():
    lines = []
    parity.run(TrafilaturaCandidate(), MODE, available(["synthetic"]), sets=["fast"], forms=("str",),
               log=lines.append, progress_seconds=0.0)
    progress = [m for m in lines if m.startswith("  ... bundle 1/1 synthetic, option set fast, str:")]
    assert len(progress) == 63  # one before each page
    assert lines[-1].startswith("synthetic: 64 pages, 63 comparisons, 0 differences")


def test_corpus_description_says_which_and_why(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAFILA_CORPORA", str(tmp_path / "absent"))
    text = describe_corpus()
    assert "the embedded corpus (corpora/embedded/synthetic.jsonl.gz" in text
    assert f"were not found at {tmp_path / 'absent'} ($TRAFILA_CORPORA)" in text and "set TRAFILA_CORPORA" in text
    monkeypatch.setenv("TRAFILA_CORPORA", str(tmp_path))
    (tmp_path / "goose3.jsonl.gz").write_bytes(b"")
    text = describe_corpus()
    assert text.startswith(f"corpus: 1 of the {len(load_pins())} pinned bundles from") and "not found there: cleaneval" in text
