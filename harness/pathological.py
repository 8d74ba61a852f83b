"""Pathological pages through whole extractions (issue 19), both modes.

``python -m harness pathological [--case NAME ...] [--scales 1,10] [--timeout S]``
builds each page below at its 1x size and at 10x, and extracts it
(``extract`` with the default options; the dedup page with
``deduplicate=True``) in a fresh child process per measurement:

- the 2.3.1 mode with the compiled core (``core``), 1.11.0 with the engine
  that runs it here (the core when its ``MODES`` has it, else the reference);
- trafilatura 2.3.1 and 1.11.0 themselves, each in its oracle environment
  (``--oracle MODE=PYTHON``; default: ``.tox/oracle`` and
  ``.tox/oracle-1.11`` of this tree or of the main work tree), with the same
  timeout.

Each child reports the CPU seconds of the call, its peak RSS
(``ru_maxrss``) and the RSS before the call, and a digest of the result; the
report gives time at 1x and 10x (10x must cost at most 12x), peak memory as a
multiple of the input's size (the peak RSS over the page's UTF-8 size, and
the growth over the call over it) and whether trafila's result equals
trafilatura's wherever trafilatura finished. Measurements are kept in
``.cache/pathological/measurements.json`` as they finish (the same command
goes on where it stopped; ``--again`` measures anew) and the report,
``reports/pathological.md``, is written after each one.

``--instructions`` counts trafila's call instead, under valgrind's callgrind
(the child with the call less the child without it): a count that the
machine's load and memory hierarchy do not change, shown beside the time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

from .provenance import write_report_json, write_report_text

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / ".cache" / "pathological"
REPORTS = ROOT / "reports"
MAX_RATIO = 12.0
#: calls under this many CPU seconds are measured several times (--repeat) and the least kept
REPEAT_BELOW = 5.0
#: calls under this many CPU seconds at 1x are measured in SHORT_ROUNDS rounds instead: a few
#: hundredths of a second are as long as the machine's jitter (the same 1x call read 0.013 and 0.020 s
#: three runs apart), so three runs left a 10x ratio of 13x where nine gave 10x
SHORT_BELOW = 0.5
SHORT_ROUNDS = 9

_WORDS = "Some words of a long paragraph that goes on, with commas, and more words again. "


def _page(n: int) -> str:
    unit = ("<div class=\"post\"><h2>Title &amp; more</h2><p>Some <b>text</b> with a <a href=\"/x?a=1&b=2\">link</a>"
            " and &copy; entities &#233; and <br> breaks. " + _WORDS * 3 + "</p><ul><li>one<li>two</ul>"
            "<table><tr><td>cell</td><td>" + _WORDS + "</table></div>\n")
    return ("<html><head><title>A large page</title></head><body><article>" + unit * max(1, n // len(unit))
            + "</article></body></html>")


def _attributes(n: int) -> str:
    return "<html><body><article><p " + " ".join(f"a{i}=\"v\"" for i in range(n)) + ">" + _WORDS * 4 + "</p></article></body></html>"


def _text_node(n: int) -> str:
    return "<html><body><article><p>" + (_WORDS * (n // len(_WORDS) + 1))[:n] + "</p></article></body></html>"


def _identical(n: int) -> str:
    return "<html><body><article>" + ("<p>" + _WORDS * 2 + "</p>\n") * n + "</article></body></html>"


def _nested(open_tag: str, close: str = "") -> Callable[[int], str]:
    def make(n: int) -> str:
        return "<html><body><article>" + open_tag * n + _WORDS * 4 + close * n + "</article></body></html>"
    return make


#: name -> (builder, the 1x count, what the count is)
CASES: Dict[str, tuple] = {
    "page of 10 MB": (_page, 10_000_000, "chars"),
    "100,000 nested tags": (_nested("<div>", "</div>"), 100_000, "levels"),
    "1,000,000 attributes": (_attributes, 1_000_000, "attributes"),
    "only <": (lambda n: "<" * n, 1_000_000, "chars"),
    "only &": (lambda n: "&" * n, 1_000_000, "chars"),
    "NULs": (lambda n: "<html><body><p>" + "\x00" * n + "</p></body></html>", 1_000_000, "chars"),
    "a single 10 MB text node": (_text_node, 10_000_000, "chars"),
    "100,000 identical paragraphs (dedup)": (_identical, 100_000, "paragraphs"),
    "deeply nested tables": (_nested("<table><tr><td>", "</td></tr></table>"), 10_000, "levels"),
    "deeply nested lists": (_nested("<ul><li>", "</li></ul>"), 10_000, "levels"),
}
DEDUP_CASES = ("100,000 identical paragraphs (dedup)",)


def build(case: str, scale: int) -> str:
    fn, n, _ = CASES[case]
    return fn(n * scale)


# --------------------------------------------------------------------------- the child


def _rss_kb() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _child(args: argparse.Namespace) -> int:
    import resource

    html = build(args.case, args.scale)
    opts = {"deduplicate": True} if args.case in DEDUP_CASES else {}
    if args.runner == "trafilatura":
        import trafilatura

        fn = trafilatura.extract
        kwargs = dict(opts)
        version = trafilatura.__version__
    else:
        import trafila

        eng = trafila.engine(args.runner)
        fn = eng.extract
        kwargs = dict(opts, compat=args.mode)
        version = trafila.__version__ if hasattr(trafila, "__version__") else ""
        fn("<html><body><p>warm up</p></body></html>", compat=args.mode)  # the imports, before the clock
    if args.runner == "trafilatura":
        fn("<html><body><p>warm up</p></body></html>")
    if args.skip_call:  # the same process without the call: what an instruction count subtracts
        print("RESULT " + json.dumps({"outcome": "skipped-call"}), flush=True)
        return 0
    before = _rss_kb()
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    c0, w0 = time.process_time(), time.perf_counter()
    try:
        res = fn(html, **kwargs)
        out = {"outcome": "ok", "result": None if res is None else
               [hashlib.sha256(res.encode("utf-8", "surrogatepass")).hexdigest()[:16], len(res)]}
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        out = {"outcome": "raise", "result": type(exc).__name__}
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    out.update(user_s=round(r1.ru_utime - r0.ru_utime, 3), sys_s=round(r1.ru_stime - r0.ru_stime, 3),
               minor_faults=r1.ru_minflt - r0.ru_minflt)
    out.update(cpu_s=round(time.process_time() - c0, 3), wall_s=round(time.perf_counter() - w0, 3),
               peak_kb=r1.ru_maxrss, before_kb=before,
               input_bytes=len(html.encode("utf-8", "surrogatepass")), version=version)
    print("RESULT " + json.dumps(out), flush=True)
    return 0


# --------------------------------------------------------------------------- the parent


def _default_oracles() -> Dict[str, str]:
    roots = [ROOT]
    try:
        common = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--git-common-dir"], capture_output=True,
                                text=True).stdout.strip()
        if common:
            roots.append(Path(common).resolve().parent)
    except OSError:
        pass
    found = {}
    for mode, env in (("2.3.1", "oracle"), ("1.11.0", "oracle-1.11")):
        for r in roots:
            py = r / ".tox" / env / "bin" / "python"
            if py.exists():
                found[mode] = str(py)
                break
    return found


def engine_for(mode: str) -> str:
    from trafila import _engine

    return "core" if "core" in _engine.engines_built() and mode in _engine.modes_of("core") else "reference"


def measure(case: str, scale: int, runner: str, mode: str, python: str, timeout: float) -> dict:
    cmd = [python, "-m", "harness.pathological", "_child", "--case", case, "--scale", str(scale), "--runner", runner,
           "--mode", mode]
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    if runner == "trafilatura":  # trafilatura's env: no trafila on the path
        env["PYTHONPATH"] = str(ROOT)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "wall_s": round(time.perf_counter() - t0, 1), "timeout": timeout}
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        return {"outcome": "crash", "returncode": proc.returncode, "stderr": proc.stderr[-500:]}
    return json.loads(line[7:])


def _callgrind(cmd: List[str], env: dict, timeout: float) -> Optional[int]:
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)
    found = re.findall(r"Collected : (\d+)", proc.stderr)
    ok = proc.returncode == 0 and any(ln.startswith("RESULT ") for ln in proc.stdout.splitlines())
    return int(found[-1]) if found and ok else None


def measure_instructions(case: str, scale: int, runner: str, mode: str, python: str, timeout: float) -> dict:
    """The instructions the ``extract`` call executes (callgrind counts every instruction of the process,
    the same for the same binary and input whatever else the machine does): the child's count with the
    call less its count without it (imports, the page built, the warm-up)."""
    cmd = [python, "-m", "harness.pathological", "_child", "--case", case, "--scale", str(scale), "--runner", runner,
           "--mode", mode]
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    try:
        with_call = _callgrind(cmd, env, timeout)
        without = _callgrind(cmd + ["--skip-call"], env, timeout)
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "timeout": timeout}
    if with_call is None or without is None:
        return {"outcome": "failed"}
    return {"outcome": "ok", "instructions": with_call - without, "tool": "valgrind --tool=callgrind"}


def measure_rounds(case: str, scales: List[int], runner: str, mode: str, python: str, timeout: float,
                   repeat: int, base: Optional[dict] = None, base_scale: Optional[int] = None) -> Dict[int, dict]:
    """:func:`measure` at each of ``scales`` (fresh processes), in up to ``repeat`` rounds that take
    every scale in turn, so both ends of a ratio see the same stretch of a shared machine (its speed
    drifts by 1.5x over minutes here). A scale is measured again while its first run is under
    REPEAT_BELOW CPU seconds times its multiple of the first scale (what a linear call would take), in
    SHORT_ROUNDS rounds when the first scale's run is under SHORT_BELOW seconds; the least CPU time is kept, as the machine only ever adds to it, every run's time beside it.
    A larger scale is skipped when the first timed out (``base``: the first scale's measurement when
    an earlier run made it, ``base_scale`` its scale)."""
    best: Dict[int, dict] = {}
    first_scale = base_scale if base_scale is not None else scales[0]
    runs: Dict[int, List[Optional[float]]] = {}
    rounds = max(repeat, 1)
    rnd = 0
    while rnd < rounds:
        if rnd == 1:
            first = best.get(first_scale, base)
            if first and first.get("outcome") in ("ok", "raise") and first["cpu_s"] < SHORT_BELOW:
                rounds = max(rounds, SHORT_ROUNDS)
        rnd += 1
        for scale in scales:
            limit = timeout * (1 if scale == first_scale else 2)
            if rnd == 1:
                first = best.get(first_scale, base)
                if scale != first_scale and first and first.get("outcome") == "timeout":
                    best[scale] = {"outcome": "skipped", "why": f"timed out at {first_scale}x"}
                    continue
                print(f"{case} x{scale} {runner} {mode} ...", flush=True)
                best[scale] = measure(case, scale, runner, mode, python, limit)
                runs[scale] = [best[scale].get("cpu_s")]
                continue
            b = best[scale]
            if (b.get("outcome") not in ("ok", "raise") or b.get("unstable")
                    or runs[scale][0] >= REPEAT_BELOW * scale / first_scale):
                continue
            m = measure(case, scale, runner, mode, python, limit)
            runs[scale].append(m.get("cpu_s"))
            if m.get("outcome") != b["outcome"] or m.get("result") != b["result"]:
                best[scale] = dict(m, unstable=True)  # a different outcome is the finding
            elif m["cpu_s"] < b["cpu_s"]:
                best[scale] = m
    return {scale: dict(m, cpu_runs=runs[scale]) if len(runs.get(scale, ())) > 1 else m
            for scale, m in best.items()}


def _key(case: str, scale: int, who: str, mode: str) -> str:
    return f"{case}|{scale}|{who}|{mode}"


def run_all(args: argparse.Namespace, argv: List[str]) -> int:
    command = "python -m harness pathological " + shlex.join(argv)
    STATE.mkdir(parents=True, exist_ok=True)
    path = STATE / (f"measurements-{args.store}.json" if args.store else "measurements.json")
    data = json.loads(path.read_text()) if path.exists() and not args.again else {}
    if args.again_trafila:
        for case in args.cases or list(CASES):
            for mode in args.modes.split(","):
                for scale in args.scales.split(","):
                    data.pop(_key(case, int(scale), engine_for(mode), mode), None)
    if args.instructions:
        return run_instructions(args, command)
    if args.trafilatura_from:
        for key, m in kept_trafilatura(Path(args.trafilatura_from), [int(x) for x in args.scales.split(",")]).items():
            data.setdefault(key, m)
    oracles = _default_oracles()
    for spec in args.oracles or []:
        mode, _, py = spec.partition("=")
        oracles[mode] = py
    modes = args.modes.split(",")
    scales = [int(s) for s in args.scales.split(",")]
    cases = args.cases or list(CASES)
    if args.report_only:
        cases = []
    for case in cases:
        for mode in modes:
            runners = [(engine_for(mode), sys.executable)]
            if mode in oracles:
                runners.append(("trafilatura", oracles[mode]))
            if args.only:
                # trafila's side on a quiet machine, trafilatura's (minutes of timeouts) in another store
                runners = [r for r in runners if (r[0] == "trafilatura") == (args.only == "trafilatura")]
            for who, python in runners:
                todo = [scale for scale in scales if _key(case, scale, who, mode) not in data]
                if not todo:
                    continue
                rounds = measure_rounds(case, todo, who, mode, python, args.timeout, args.repeat,
                                        data.get(_key(case, scales[0], who, mode)), scales[0])
                for scale, m in rounds.items():
                    data[_key(case, scale, who, mode)] = dict(m, command=command)
                    print(f"   x{scale}: {json.dumps(m)[:300]}", flush=True)
                path.write_text(json.dumps(data, indent=1))
                write_report(data, cases, modes, scales, oracles, command)
    write_report(data, cases, modes, scales, oracles, command)
    return 0


def kept_trafilatura(report: Path, scales: List[int]) -> Dict[str, dict]:
    """trafilatura's measurements in a report this command wrote before (``reports/pathological.json``),
    keyed as the store keys them: trafilatura is pinned (tox.ini's oracle envs), so its times and results
    on the same pages are still its own, and its side (about half an hour, mostly timeouts) need not be
    measured again when only trafila changed. Each keeps the command that measured it."""
    if not report.exists():
        return {}
    out = {}
    for row in json.loads(report.read_text()).get("rows", []):
        theirs = row.get("theirs") or []
        if row.get("case") not in CASES or len(theirs) != len(scales):
            continue
        for scale, m in zip(scales, theirs):
            if isinstance(m, dict):
                out[_key(row["case"], scale, "trafilatura", row["mode"])] = m
    return out


INSTRUCTIONS_STORE = "measurements-instructions.json"


def run_instructions(args: argparse.Namespace, command: str) -> int:
    """--instructions: trafila's call counted under callgrind at each scale, two children at a time (the
    counts do not depend on the load); the report is written again from every store."""
    from concurrent.futures import ThreadPoolExecutor

    STATE.mkdir(parents=True, exist_ok=True)
    path = STATE / INSTRUCTIONS_STORE
    data = json.loads(path.read_text()) if path.exists() else {}
    modes = args.modes.split(",")
    scales = [int(x) for x in args.scales.split(",")]
    jobs = [(case, scale, engine_for(mode), mode) for case in (args.cases or list(CASES)) for mode in modes
            for scale in scales if args.again or _key(case, scale, engine_for(mode), mode) not in data]

    def one(job):
        case, scale, who, mode = job
        print(f"{case} x{scale} {who} {mode}: instructions ...", flush=True)
        return job, dict(measure_instructions(case, scale, who, mode, sys.executable, args.timeout * 200),
                         command=command)

    with ThreadPoolExecutor(2) as pool:
        for (case, scale, who, mode), m in pool.map(one, jobs):
            data[_key(case, scale, who, mode)] = m
            print(f"   {case} x{scale} {mode}: {m}", flush=True)
            path.write_text(json.dumps(data, indent=1))
    write_report({}, [], modes, scales, _default_oracles(), command)
    return 0


def _instructions() -> dict:
    p = STATE / INSTRUCTIONS_STORE
    try:
        return json.loads(p.read_text()) if p.exists() else {}
    except ValueError:
        return {}


def _split(ms: List[Optional[dict]]) -> str:
    """': user 8.6×, system 19.6× (0.08 / 1.59 s), minor page faults 18.2×' for a 1×/10× pair measured
    with the split; '' for one measured before the child recorded it."""
    if len(ms) < 2 or not all(m and "user_s" in m for m in ms[:2]):
        return ""
    a, b = ms[0], ms[1]
    return (f": user {b['user_s'] / max(a['user_s'], 0.01):.1f}×, system {b['sys_s'] / max(a['sys_s'], 0.01):.1f}×"
            f" ({a['sys_s']} / {b['sys_s']} s), minor page faults {b['minor_faults'] / max(a['minor_faults'], 1):.1f}×")


def _fmt_mem(m: dict) -> str:
    if m.get("outcome") not in ("ok", "raise"):
        return ""
    size = m["input_bytes"]
    return f"{m['peak_kb'] * 1024 / size:.1f}× / {max(0, m['peak_kb'] - m['before_kb']) * 1024 / size:.1f}×"


def _fmt_instr(m: Optional[dict]) -> str:
    if not m:
        return ""
    return f"{m['instructions'] / 1e6:,.0f} M" if m.get("outcome") == "ok" else m.get("outcome", "")


def _fmt_time(m: Optional[dict]) -> str:
    if not m:
        return ""
    if m.get("outcome") in ("ok", "raise"):
        return f"{m['cpu_s']}" + (" (raises)" if m["outcome"] == "raise" else "")
    if m.get("outcome") == "timeout":
        return f"timeout {m['timeout']:.0f} s"
    return m.get("outcome", "")


def write_report(data: dict, cases: List[str], modes: List[str], scales: List[int], oracles: Dict[str, str],
                 command: str) -> None:
    import datetime as dt
    import platform

    from .parity import _git_commit

    merged: dict = {}
    # the main store first, then the others (targeted measurements, e.g. after a change) by age: they win
    for p in sorted((q for q in STATE.glob("measurements*.json") if q.name != INSTRUCTIONS_STORE),
                    key=lambda q: (q.name != "measurements.json", q.stat().st_mtime)):
        try:
            merged.update(json.loads(p.read_text()))
        except (OSError, ValueError):
            pass
    data = dict(merged, **data) if not merged else merged
    cases = [c for c in CASES if any(k.startswith(c + "|") for k in data)]
    modes = [m for m in ("2.3.1", "1.11.0") if any(k.endswith("|" + m) for k in data)]

    REPORTS.mkdir(exist_ok=True)
    rows = []
    lines = ["# Pathological pages through whole extractions", "",
             "Written by `python -m harness pathological` (never by hand). One fresh process per measurement; "
             "CPU seconds of the `extract` call (the least of `--repeat` fresh processes, 3 by default, "
             f"{SHORT_ROUNDS} for a call under {SHORT_BELOW} s at 1×, in rounds "
             f"that take each scale in turn, when its first run is under {REPEAT_BELOW:.0f} s times the scale's multiple "
             "of the smallest, so both ends of a ratio are the least of as many runs on the same stretch of a shared "
             "machine, which only adds to them; default options; the identical paragraphs with "
             "`deduplicate=True`), peak RSS (`ru_maxrss`) as a multiple of the page's UTF-8 size, then the growth "
             f"over the call as one. 'linear' means 10× the input cost at most {MAX_RATIO:.0f}× the time. Where "
             "given (`--instructions`), trafila's instructions are the call's, counted by valgrind's callgrind (the "
             "child run with and without the call, the difference): the same for the same build and input whatever "
             "the machine does, so they show the algorithm's growth apart from the load and the memory hierarchy. trafila's "
             "2.3.1 mode runs on the compiled core; 1.11.0 on " + engine_for("1.11.0") + " (the engine that runs "
             "it here). trafilatura runs in its oracle environment with the same timeout; 'same' compares the "
             "results (a digest of the text, or the exception) where both finished.", "",
             f"- run: {dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, commit {_git_commit()}, "
             f"Python {platform.python_version()}, `{command}`",
             "- measured by: " + "; ".join(f"`{c}`" for c in sorted({m.get("command", "") for m in data.values()
                                                                      if isinstance(m, dict)} - {""}))
             + ("" if all(isinstance(m, dict) and (m.get("command") or m.get("outcome") == "skipped")
                          for m in data.values())
                else " (and earlier runs that did not record their command)"),
             "- trafilatura: " + ", ".join(f"{m} in `{Path(p).parent.parent.name}`" for m, p in sorted(oracles.items())), "",
             "| page | mode | 1× size | trafila engine | trafila s 1× / 10× | ratio | linear | trafila instructions 1× / 10× "
             "| ratio | trafila peak RSS, growth (1× ; 10×) "
             "| trafilatura s 1× / 10× | ratio | trafilatura peak, growth (1× ; 10×) | same result 1× / 10× |",
             "|---|---|---|---|---|---:|---|---|---:|---|---|---:|---|---|"]
    instr = _instructions()
    for case in cases:
        _, n, unit = CASES[case]
        for mode in modes:
            who = engine_for(mode)
            ours = [data.get(_key(case, s, who, mode)) for s in scales]
            theirs = [data.get(_key(case, s, "trafilatura", mode)) for s in scales]
            if not any(ours) and not any(theirs):
                continue

            def ratio(ms):
                if len(ms) < 2 or not all(m and m.get("outcome") in ("ok", "raise") for m in ms[:2]):
                    return None
                return ms[1]["cpu_s"] / max(ms[0]["cpu_s"], 0.01)

            r_ours, r_theirs = ratio(ours), ratio(theirs)
            counts = [instr.get(_key(case, sc, who, mode)) for sc in scales]
            r_instr = (counts[1]["instructions"] / max(counts[0]["instructions"], 1)
                       if len(counts) > 1 and all(c and c.get("outcome") == "ok" for c in counts[:2]) else None)
            same = []
            for a, b in zip(ours, theirs):
                if a and b and a.get("outcome") in ("ok", "raise") and b.get("outcome") in ("ok", "raise"):
                    same.append("yes" if (a["outcome"], a["result"]) == (b["outcome"], b["result"]) else "**no**")
                else:
                    same.append("–")
            linear = "" if r_ours is None else ("yes" if r_ours <= MAX_RATIO else "**no**")
            rows.append({"case": case, "mode": mode, "engine": who, "ours": ours, "theirs": theirs, "ratio": r_ours,
                         "instructions": counts, "instructions_ratio": r_instr,
                         "trafilatura_ratio": r_theirs, "same": same})
            lines.append(f"| {case} | {mode} | {n:,} {unit} | {who} | {' / '.join(_fmt_time(m) for m in ours)} "
                         f"| {'' if r_ours is None else f'{r_ours:.1f}'} | {linear} "
                         f"| {' / '.join(_fmt_instr(c) for c in counts) if any(counts) else ''} "
                         f"| {'' if r_instr is None else f'{r_instr:.1f}'} "
                         f"| {' ; '.join(_fmt_mem(m) for m in ours if m)} "
                         f"| {' / '.join(_fmt_time(m) for m in theirs)} | {'' if r_theirs is None else f'{r_theirs:.1f}'} "
                         f"| {' ; '.join(_fmt_mem(m) for m in theirs if m)} | {' / '.join(same)} |")
    differ = [f"{r['case']} ({r['mode']}, {'/'.join(f'{s}×' for s, x in zip(scales, r['same']) if x == '**no**')})"
              for r in rows if "**no**" in r["same"]]
    nonlinear = [f"{r['case']} ({r['mode']}, {r['ratio']:.1f}×{_split(r['ours'])}"
                 + ("" if r["instructions_ratio"] is None else f"; instructions {r['instructions_ratio']:.1f}×") + ")"
                 for r in rows
                 if r["ratio"] is not None and r["ratio"] > MAX_RATIO]
    unstable = [k.replace("|", " ") for k, m in data.items() if isinstance(m, dict) and m.get("unstable")]
    lines += ["", "Times under 0.01 s count as 0.01 s in the ratio. A timeout at 1× skips 10×.", "",
              "Different results: " + ("; ".join(differ) if differ else "none") + ". "
              "The known cause (UPSTREAM.md, 'Parser'): lxml 6.1.3's libxml2 halts without XML_PARSE_HUGE when one "
              "text run takes its input buffer past 10,000,000 bytes of UTF-8 (\"Resource limit exceeded: Buffer size limit "
              "exceeded, try XML_PARSE_HUGE\") and loses that run; trafila's parsers do not reproduce the limit.",
              "",
              "Not linear: " + ("; ".join(nonlinear) if nonlinear else "none") + "." + (
                  " System time is the kernel's, mostly its first touch of new pages (the minor page faults grow "
                  "with it): glibc maps every block over its 32 MB mmap threshold cap afresh and unmaps it when freed, "
                  "so at 10× each full-size copy of the page's text (the parse's arena, the tree copies, "
                  "readability's re-parse, the output's strings) is new, zeroed memory, while at 1× the same copies "
                  "reuse freed heap." if nonlinear else ""),
              "",
              "Another outcome on a repeated run (the later one is shown): " + ("; ".join(unstable) if unstable else "none")
              + "."]
    write_report_text(REPORTS / "pathological.md", "\n".join(lines) + "\n")
    write_report_json(REPORTS / "pathological.json", {"rows": rows, "command": command})


def add_arguments(ap: argparse.ArgumentParser) -> None:
    sub = ap.add_subparsers(dest="what")
    p = sub.add_parser("_child")
    p.add_argument("--case", required=True)
    p.add_argument("--scale", type=int, required=True)
    p.add_argument("--runner", required=True)
    p.add_argument("--mode", required=True)
    p.add_argument("--skip-call", action="store_true")
    ap.add_argument("--case", action="append", dest="cases", choices=list(CASES))
    ap.add_argument("--modes", default="2.3.1,1.11.0")
    ap.add_argument("--scales", default="1,10")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds at 1x (twice that at 10x)")
    ap.add_argument("--oracle", action="append", dest="oracles", help="MODE=PYTHON: trafilatura's interpreter")
    ap.add_argument("--repeat", type=int, default=3,
                    help=f"measure a call under {REPEAT_BELOW:.0f} CPU seconds this many times, keep the least (default 3)")
    ap.add_argument("--again", action="store_true", help="measure anew (forget kept measurements)")
    ap.add_argument("--report-only", action="store_true", help="write the report from the kept measurements, measure nothing")
    ap.add_argument("--store", default=None, help="keep this run's measurements in measurements-STORE.json (two runs at "
                    "once); the report merges every store, another store winning over the main one for a measurement")
    ap.add_argument("--only", choices=("trafila", "trafilatura"), default=None,
                    help="measure only this side (the other one's kept measurements stay)")
    ap.add_argument("--trafilatura-from", default=None, metavar="REPORT_JSON",
                    help="take trafilatura's measurements from a report this command wrote (reports/pathological.json: "
                    "trafilatura is pinned, its side need not be measured again); measured ones win")
    ap.add_argument("--instructions", action="store_true",
                    help="count trafila's instructions of the call at each scale under valgrind's callgrind (the child "
                    "run again without the call, subtracted), for the cases and modes given: the machine's noise and "
                    "memory hierarchy do not enter it; kept in measurements-instructions.json and shown beside the time")
    ap.add_argument("--again-trafila", action="store_true",
                    help="measure trafila anew on the cases and modes given (after a change; trafilatura's are kept)")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    if getattr(args, "what", None) == "_child":
        return _child(args)
    return run_all(args, list(argv or []))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.pathological")
    add_arguments(ap)
    argv = sys.argv[1:] if argv is None else argv
    return run(ap.parse_args(argv), argv)


if __name__ == "__main__":
    sys.exit(main())
