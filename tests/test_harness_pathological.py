"""harness.pathological's repeated timing: the least CPU time of fresh runs, never a different outcome hidden."""

import harness.pathological as pth


def _feed(monkeypatch, runs):
    it = iter(runs)
    calls = []

    def fake(*args):
        calls.append(args)
        return dict(next(it))

    monkeypatch.setattr(pth, "measure", fake)
    return calls


def ok(cpu, result=("abc", 3)):
    return {"outcome": "ok", "result": list(result), "cpu_s": cpu}


def test_the_least_cpu_time_is_kept(monkeypatch):
    calls = _feed(monkeypatch, [ok(0.30), ok(0.10), ok(0.20)])
    m = pth.measure_best("only <", 10, "core", "2.3.1", "python", 60.0, 3)
    assert m["cpu_s"] == 0.10 and m["cpu_runs"] == [0.30, 0.10, 0.20] and len(calls) == 3


def test_a_long_call_is_measured_once(monkeypatch):
    calls = _feed(monkeypatch, [ok(pth.REPEAT_BELOW + 1)])
    m = pth.measure_best("page of 10 MB", 10, "core", "2.3.1", "python", 60.0, 3)
    assert len(calls) == 1 and "cpu_runs" not in m


def test_a_timeout_is_not_repeated(monkeypatch):
    calls = _feed(monkeypatch, [{"outcome": "timeout", "timeout": 60.0}])
    assert pth.measure_best("x", 1, "trafilatura", "2.3.1", "python", 60.0, 3)["outcome"] == "timeout"
    assert len(calls) == 1


def test_a_different_outcome_on_a_repeat_is_reported(monkeypatch):
    _feed(monkeypatch, [ok(0.2), ok(0.1, ("other", 5))])
    m = pth.measure_best("x", 1, "core", "2.3.1", "python", 60.0, 3)
    assert m["unstable"] is True and m["result"] == ["other", 5] and m["cpu_runs"] == [0.2, 0.1]
