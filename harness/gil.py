"""How much of an engine's extraction holds the GIL, stage by stage.

``python -m harness gil [--engine core] [--mode 2.3.1] [--set default] [--every 10] [--seconds 30]``

Threads can only run pages in parallel for the part of each page that runs
without the GIL: if a share ``g`` of the time holds it, two threads give at
most ``1 / (g + (1 - g) / 2)`` times one thread's pages per second (Amdahl).
This command measures ``g``, so that the work of moving the per-page sequence
into ``nogil`` C (issues 13 and 15) has a figure to drive down.

A child process extracts every Nth page in a loop on one thread for
``--seconds``. Two py-spy samplers attach to it for the same window at the same
rate, without pausing it (``--nonblocking``): one takes every sample, the other
(``--gil``) only the samples in which the thread holds the GIL. With the same
window and rate, held samples over all samples is the share of the time the
GIL is held. Each sample is put in the innermost stage function on its Python
stack (the stages of ``harness stages``; none: "orchestration"), so the report
gives each stage's share of the time and the share of the time it holds the
GIL. py-spy samples on a clock, so the figures carry a sampling error of about
a percent at the default rate and window; the samples' counts are in the JSON.

py-spy is found with ``--py-spy``, on PATH, or beside the interpreter
(``tox -e gil`` installs it). Results go to ``reports/gil[-MODE].md`` / ``.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from .provenance import portable_command, stamped, write_report_json, write_report_text
from .corpora import ROOT, sample_pages, warmup_pages
from .stages import ORCHESTRATION, STAGES_OF
from .standalone import standalone

REPORTS_DIR = ROOT / "reports"
#: the child's loop function: samples outside it (imports, page loading) are not counted
LOOP = "_extract_loop"


def stage_frames(mode: str) -> List[Tuple[str, str, str]]:
    """(stage, function name, file suffix) for the mode's stage functions, as py-spy names frames."""
    return [(stage, name, module.replace(".", "/") + ".py") for stage, module, name in STAGES_OF[mode]]


def _frame(frame: str) -> Tuple[str, str]:
    """``'name (path/file.py:12)'`` -> (name, path/file.py)."""
    name, _, rest = frame.partition(" (")
    return name, rest.rsplit(":", 1)[0] if ":" in rest else rest.rstrip(")")


def attribute(lines: Iterable[str], mode: str) -> Dict[str, int]:
    """Samples per stage from py-spy's raw (collapsed) output: ``frame;frame;... count``
    lines, outermost frame first. Only samples inside the loop count; each goes to the
    innermost stage function on its stack, or to orchestration."""
    frames = stage_frames(mode)
    counts: Dict[str, int] = {}
    for line in lines:
        stack, _, n = line.rstrip("\n").rpartition(" ")
        if not stack or not n.isdigit():
            continue
        parsed = [_frame(f) for f in stack.split(";")]
        inside = [i for i, (name, _) in enumerate(parsed) if name == LOOP]
        if not inside:
            continue
        stage = ORCHESTRATION
        for name, path in reversed(parsed[inside[0] + 1:]):
            hit = next((s for s, fn, suffix in frames if fn == name and path.endswith(suffix)), None)
            if hit is not None:
                stage = hit
                break
        counts[stage] = counts.get(stage, 0) + int(n)
    return counts


def amdahl_two_threads(held: float) -> float:
    """The most two threads can give over one when a share ``held`` of the time holds the GIL."""
    return 1.0 / (held + (1.0 - held) / 2.0)


# --------------------------------------------------------------------------- the child


def _extract_loop(extract, pages: List[str], options: dict, seconds: float) -> int:
    n, i, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        try:
            extract(pages[i % len(pages)], **options)
        except Exception:  # noqa: BLE001 - a failing page still spent its time
            pass
        n += 1
        i += 1
    return n


def _child(args: argparse.Namespace) -> int:
    import trafila

    from .matrix import option_sets

    eng = trafila.engine(args.engine)
    opt = next(o for o in option_sets(args.mode, [args.sets[0]]) if o.function == "extract")
    options = dict(opt.options, compat=args.mode)
    # the bench's sample and warm-up pages, so that the figures describe the pages it times
    pages = sample_pages(args.bundles, args.every, "str")
    for html in warmup_pages(args.bundles, args.every, "str"):  # the lazily built tables, before the window
        try:
            eng.extract(html, **options)
        except Exception:  # noqa: BLE001
            pass
    print(f"READY {len(pages)}", flush=True)
    sys.stdin.readline()  # the samplers are attached
    n = _extract_loop(eng.extract, pages, options, args.seconds)
    print(f"DONE {n}", flush=True)
    return 0


# --------------------------------------------------------------------------- the parent


def find_py_spy(given: Optional[str]) -> str:
    for candidate in (given, shutil.which("py-spy"), str(Path(sys.executable).with_name("py-spy"))):
        if candidate and Path(candidate).exists():
            return candidate
    raise SystemExit("py-spy not found: pass --py-spy PATH, or run `tox -e gil`")


def measure(args: argparse.Namespace, log=print) -> dict:
    py_spy = find_py_spy(args.py_spy)
    set_name = (args.sets or ["default"])[0]
    cmd = [sys.executable, "-m", "harness.gil", "_child", "--engine", args.engine, "--mode", args.mode,
           "--set", set_name, "--every", str(args.every), "--seconds", str(args.seconds)]
    for b in args.bundles or []:
        cmd += ["--bundle", b]
    env = dict(os.environ, PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"))
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        assert child.stdin is not None and child.stdout is not None
        ready = child.stdout.readline().split()
        if not ready or ready[0] != "READY":
            child.kill()
            raise SystemExit("the child did not start")
        outs = {"all": Path(tmp) / "all.raw", "gil": Path(tmp) / "gil.raw"}
        samplers = [subprocess.Popen([py_spy, "record", "--pid", str(child.pid), "--nonblocking", "--rate",
                                      str(args.rate), "--duration", str(int(args.seconds)), "--format", "raw",
                                      "--output", str(out), *(["--gil"] if kind == "gil" else [])],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                    for kind, out in outs.items()]
        time.sleep(1.0)  # both attached before the window opens
        child.stdin.write("go\n")
        child.stdin.flush()
        done = child.stdout.readline().split()
        child.wait()
        for s in samplers:
            _, err = s.communicate()
            if s.returncode not in (0, None) and not all(o.exists() for o in outs.values()):
                raise SystemExit(f"py-spy failed: {err[-500:]}")
        counts = {kind: attribute(out.read_text().splitlines(), args.mode) for kind, out in outs.items()}
    total = sum(counts["all"].values())
    held = sum(counts["gil"].values())
    stages = {}
    for stage in sorted(counts["all"], key=lambda s: -counts["all"][s]):
        stages[stage] = {"samples": counts["all"][stage], "held_samples": counts["gil"].get(stage, 0),
                         "share": round(counts["all"][stage] / total, 4) if total else 0.0,
                         "held_share": round(counts["gil"].get(stage, 0) / total, 4) if total else 0.0}
    share = held / total if total else 0.0
    log(f"{set_name}: {total} samples, GIL held {100 * share:.1f}% of the time; two threads at most "
        f"{amdahl_two_threads(share):.2f}x")
    return {"engine": args.engine, "mode": args.mode, "set": set_name, "every": args.every,
            "pages": int(ready[1]), "extractions": int(done[1]) if len(done) > 1 else None,
            "seconds": args.seconds, "rate": args.rate, "samples": total, "held_samples": held,
            "held_share": round(share, 4), "two_threads_at_most": round(amdahl_two_threads(share), 3),
            "stages": stages}


def report_stem(mode: str) -> str:
    """The report's file name without suffix: ``gil`` for 2.3.1, ``gil-<mode>`` otherwise."""
    return "gil" if mode == "2.3.1" else f"gil-{mode}"


def write_report(results: List[dict], command: str, out_dir: Path = REPORTS_DIR) -> None:
    """Stamp ``results`` (one per option set) and write them as reports/gil[-MODE].json and .md."""
    write_doc(stamped({"mode": results[0]["mode"], "sets": results}, command), out_dir)


def write_doc(doc: dict, out_dir: Path = REPORTS_DIR) -> None:
    """Write a stamped report's JSON and its Markdown (:func:`render`)."""
    stem = report_stem(doc["mode"])
    out_dir.mkdir(parents=True, exist_ok=True)
    write_report_json(out_dir / f"{stem}.json", doc)
    write_report_text(out_dir / f"{stem}.md", render(doc))


def render(doc: dict) -> str:
    """The Markdown of a stamped report."""
    results = doc["sets"]
    lines = ["# How much of the extraction holds the GIL", "",
             "Written by `python -m harness gil` (never by hand). One thread extracts every Nth page in a loop; "
             "two py-spy samplers, one of every sample and one (`--gil`) of the samples that hold the GIL, watch "
             "the same window at the same rate. Each sample counts for the innermost stage on its Python stack "
             "(the stages of `harness stages`). 'two threads at most' is Amdahl's bound for extract_batch's "
             "threads=2 over threads=1 with that share held.", "",
             f"- run: {doc['date']}, commit {doc['commit']}, Python {doc['python']}, `{doc['command']}`", ""]
    lines += ["| engine | mode | option set | pages | extractions | samples | GIL held | two threads at most |",
              "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['engine']} | {r['mode']} | {r['set']} | {r['pages']} | {r['extractions']} "
                     f"| {r['samples']:,} | {100 * r['held_share']:.1f}% | {r['two_threads_at_most']:.2f}× |")
    for r in results:
        lines += ["", f"## {r['set']}: by stage", "",
                  "| stage | share of the time | share of the time holding the GIL | held while in the stage |",
                  "|---|---:|---:|---:|"]
        for stage, s in r["stages"].items():
            within = s["held_samples"] / s["samples"] if s["samples"] else 0.0
            lines.append(f"| {stage} | {100 * s['share']:.1f}% | {100 * s['held_share']:.1f}% | {100 * within:.0f}% |")
    lines += ["", "The two samplers' windows are the same length but not the same samples, so a stage's held "
              "share can exceed its share by the sampling error."]
    return "\n".join(lines) + "\n"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="what")
    c = sub.add_parser("_child")
    for q in (p, c):
        q.add_argument("--engine", default="core", help="reference | core (default core)")
        q.add_argument("--mode", default="2.3.1", choices=("2.3.1", "1.11.0"))
        q.add_argument("--set", action="append", dest="sets", help="option set (repeatable); default: default")
        q.add_argument("--every", type=int, default=10, help="every Nth page of each bundle (default 10)")
        q.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
        q.add_argument("--seconds", type=float, default=30.0, help="the sampling window per option set (default 30)")
    p.add_argument("--rate", type=int, default=250, help="samples per second (default 250)")
    p.add_argument("--py-spy", default=None, help="the py-spy executable")
    p.add_argument("--no-report", action="store_true", help="do not write reports/gil[-MODE].md")
    p.add_argument("--render", action="store_true",
                   help="no run: write reports/gil[-MODE].md and .json again from that .json (--mode), "
                        "without this machine's paths")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    if getattr(args, "what", None) == "_child":
        return _child(args)
    if getattr(args, "render", False):
        path = REPORTS_DIR / f"{report_stem(args.mode)}.json"
        write_doc(json.loads(path.read_text()))
        print(f"gil: wrote {report_stem(args.mode)}.md and .json from {path.name}")
        return 0
    results = []
    for set_name in args.sets or ["default"]:
        one = argparse.Namespace(**dict(vars(args), sets=[set_name]))
        results.append(measure(one))
    if not args.no_report:
        write_report(results, "python -m harness gil " + portable_command(argv or []))
    return 0


if __name__ == "__main__":
    sys.exit(standalone(sys.modules[__name__]))
