"""harness.pathological's repeated timing: the least CPU time of fresh runs taken in rounds over
the scales, never a different outcome hidden."""

import harness.pathological as pth


def _feed(monkeypatch, runs):
    it = iter(runs)
    calls = []

    def fake(case, scale, *args):
        calls.append(scale)
        return dict(next(it))

    monkeypatch.setattr(pth, "measure", fake)
    return calls


def ok(cpu, result=("abc", 3)):
    return {"outcome": "ok", "result": list(result), "cpu_s": cpu}


def test_the_least_cpu_time_is_kept_and_the_scales_alternate(monkeypatch):
    calls = _feed(monkeypatch, [ok(0.90), ok(9.0), ok(0.60), ok(8.5), ok(0.70), ok(8.8)])
    m = pth.measure_rounds("only <", [1, 10], "core", "2.3.1", "python", 60.0, 3)
    assert calls == [1, 10, 1, 10, 1, 10]
    assert m[1]["cpu_s"] == 0.60 and m[1]["cpu_runs"] == [0.90, 0.60, 0.70]
    assert m[10]["cpu_s"] == 8.5 and m[10]["cpu_runs"] == [9.0, 8.5, 8.8]


def test_a_short_call_is_measured_in_more_rounds(monkeypatch):
    # a 1x call of hundredths of a second is within the machine's jitter: SHORT_ROUNDS rounds, not --repeat
    runs = [ok(0.02 + 0.001 * k) if k % 2 == 0 else ok(0.25 - 0.01 * k) for k in range(2 * pth.SHORT_ROUNDS)]
    calls = _feed(monkeypatch, runs)
    m = pth.measure_rounds("only <", [1, 10], "core", "1.11.0", "python", 60.0, 3)
    assert calls == [1, 10] * pth.SHORT_ROUNDS
    assert m[1]["cpu_s"] == 0.02 and len(m[1]["cpu_runs"]) == pth.SHORT_ROUNDS
    assert m[10]["cpu_s"] == min(r["cpu_s"] for r in runs[1::2]) == runs[-1]["cpu_s"]
    # a 1x call over SHORT_BELOW keeps --repeat
    calls = _feed(monkeypatch, [ok(pth.SHORT_BELOW), ok(pth.SHORT_BELOW * 10)] * 3)
    pth.measure_rounds("only <", [1, 10], "core", "1.11.0", "python", 60.0, 3)
    assert calls == [1, 10] * 3


def test_trafilaturas_side_is_taken_from_an_earlier_report(tmp_path):
    import json

    kept = {"outcome": "ok", "result": ["d", 1], "cpu_s": 0.5, "command": "python -m harness pathological --only trafilatura"}
    rows = [{"case": "only <", "mode": "2.3.1", "theirs": [kept, dict(kept, cpu_s=5.0)]},
            {"case": "1,000,000 attributes", "mode": "1.11.0",
             "theirs": [{"outcome": "timeout", "timeout": 150.0}, {"outcome": "skipped", "why": "timed out at 1x"}]},
            {"case": "no such case", "mode": "2.3.1", "theirs": [kept, kept]},
            {"case": "only &", "mode": "2.3.1", "theirs": [kept]}]  # other scales than asked: not taken
    report = tmp_path / "pathological.json"
    report.write_text(json.dumps({"rows": rows}))
    got = pth.kept_trafilatura(report, [1, 10])
    assert got == {"only <|1|trafilatura|2.3.1": kept, "only <|10|trafilatura|2.3.1": dict(kept, cpu_s=5.0),
                   "1,000,000 attributes|1|trafilatura|1.11.0": rows[1]["theirs"][0],
                   "1,000,000 attributes|10|trafilatura|1.11.0": rows[1]["theirs"][1]}
    assert pth.kept_trafilatura(tmp_path / "missing.json", [1, 10]) == {}


def test_a_call_past_its_linear_budget_is_measured_once(monkeypatch):
    # 1x under REPEAT_BELOW is repeated; 10x past ten times it is not, 10x under it is
    calls = _feed(monkeypatch, [ok(1.0), ok(pth.REPEAT_BELOW * 10 + 1), ok(0.9), ok(0.8)])
    m = pth.measure_rounds("page of 10 MB", [1, 10], "core", "2.3.1", "python", 60.0, 3)
    assert calls == [1, 10, 1, 1] and "cpu_runs" not in m[10] and m[1]["cpu_s"] == 0.8
    calls = _feed(monkeypatch, [ok(pth.REPEAT_BELOW + 1), ok(pth.REPEAT_BELOW * 9), ok(pth.REPEAT_BELOW * 8),
                                ok(pth.REPEAT_BELOW * 9.5)])
    m = pth.measure_rounds("page of 10 MB", [1, 10], "core", "2.3.1", "python", 60.0, 3)
    assert calls == [1, 10, 10, 10] and m[10]["cpu_s"] == pth.REPEAT_BELOW * 8


def test_a_timeout_is_not_repeated_and_skips_the_larger_scale(monkeypatch):
    calls = _feed(monkeypatch, [{"outcome": "timeout", "timeout": 60.0}])
    m = pth.measure_rounds("x", [1, 10], "trafilatura", "2.3.1", "python", 60.0, 3)
    assert m[1]["outcome"] == "timeout" and m[10]["outcome"] == "skipped" and calls == [1]
    # the first scale's timeout kept from an earlier run skips it too
    calls = _feed(monkeypatch, [])
    m = pth.measure_rounds("x", [10], "trafilatura", "2.3.1", "python", 60.0, 3,
                           {"outcome": "timeout"}, 1)
    assert m[10]["outcome"] == "skipped" and calls == []


def test_a_different_outcome_on_a_repeat_is_reported(monkeypatch):
    _feed(monkeypatch, [ok(0.2), ok(0.1, ("other", 5))])
    m = pth.measure_rounds("x", [1], "core", "2.3.1", "python", 60.0, 3)
    assert m[1]["unstable"] is True and m[1]["result"] == ["other", 5] and m[1]["cpu_runs"] == [0.2, 0.1]


def test_instructions_are_the_call_less_the_process_without_it(monkeypatch):
    seen = []

    def fake(cmd, env, timeout):
        seen.append(cmd)
        return 1_000 if "--skip-call" in cmd else 51_000

    monkeypatch.setattr(pth, "_callgrind", fake)
    m = pth.measure_instructions("only <", 10, "core", "1.11.0", "python", 60.0)
    assert m["outcome"] == "ok" and m["instructions"] == 50_000
    assert [c[-1] for c in seen] == ["1.11.0", "--skip-call"] and "--scale" in seen[0]
    # a child that failed (no count, or no RESULT line) is not a count
    monkeypatch.setattr(pth, "_callgrind", lambda cmd, env, timeout: None if "--skip-call" in cmd else 5)
    assert pth.measure_instructions("only <", 1, "core", "1.11.0", "python", 60.0) == {"outcome": "failed"}


def test_the_child_without_the_call_reports_no_measurement(capsys):
    import argparse

    args = argparse.Namespace(case="NULs", scale=1, runner="reference", mode="2.3.1", skip_call=True)
    assert pth._child(args) == 0
    out = capsys.readouterr().out
    assert '"outcome": "skipped-call"' in out and "cpu_s" not in out
