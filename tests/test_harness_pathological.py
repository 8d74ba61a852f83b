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
    calls = _feed(monkeypatch, [ok(0.30), ok(3.0), ok(0.10), ok(2.5), ok(0.20), ok(2.8)])
    m = pth.measure_rounds("only <", [1, 10], "core", "2.3.1", "python", 60.0, 3)
    assert calls == [1, 10, 1, 10, 1, 10]
    assert m[1]["cpu_s"] == 0.10 and m[1]["cpu_runs"] == [0.30, 0.10, 0.20]
    assert m[10]["cpu_s"] == 2.5 and m[10]["cpu_runs"] == [3.0, 2.5, 2.8]


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
