"""Resident memory over many extractions: does it stay flat?

``python -m harness memory [--engine core] [--mode 2.3.1] [--set default] [--n 20000]``
extracts dev pages in a loop (the pages cycle when ``n`` exceeds them), and
samples the process's resident set size (``VmRSS`` from /proc/self/status)
every ``--every`` extractions, after a warm-up pass over the pages. Flat means
the last samples are within a small margin of the first ones: the report gives
the first, maximum and last samples and the growth per 1,000 extractions
fitted over the second half (growth from caches filling comes first and
stops). Deduplicating sets fill the module cache up to its bound; that is
part of what is measured. Results go to ``reports/memory-<mode>.md`` / ``.json``
for the core and ``reports/memory-<engine>-<mode>.md`` for another engine
(``--stem`` names the report otherwise). The report shows the memory at
every sample, so ``--n 100000 --every 1000`` gives 100 samples.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional

from .corpora import ROOT, bundle_paths, iter_pages
from .matrix import option_sets
from .provenance import write_report_json, write_report_text
from .standalone import standalone

REPORTS_DIR = ROOT / "reports"


def rss_mb() -> float:
    "The resident set size of this process in MB (Linux /proc)."
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS in /proc/self/status")


def _slope_per_1000(points: List[tuple]) -> float:
    "Least-squares MB per 1,000 extractions over (count, MB) points."
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    den = sum((p[0] - mx) ** 2 for p in points)
    return 1000.0 * sum((p[0] - mx) * (p[1] - my) for p in points) / den if den else 0.0


def measure(engine: str, mode: str, set_name: str, n: int, every: int, bundles: Optional[List[str]],
            page_every: int, log: Callable[[str], None] = print, max_time: float = 0.0) -> dict:
    import trafila

    eng = trafila.engine(engine)
    if mode not in eng.modes:
        raise SystemExit(f"engine {engine!r} does not run mode {mode} here")
    (opt,) = option_sets(mode, [set_name])
    pages = [page.input("str") for path in bundle_paths(bundles) if path.exists()
             for page in iter_pages(path) if not page.index % page_every and "str" in page.forms()]
    if not pages:
        raise SystemExit("no pages found (set TRAFILA_CORPORA)")
    call = getattr(eng, opt.function)

    def one(html: str) -> None:
        try:
            call(html, compat=mode, **opt.options)
        except Exception:  # noqa: BLE001 - a page that raises still counts
            pass

    for html in pages[: min(len(pages), 200)]:
        one(html)
    gc.collect()
    samples = [(0, round(rss_mb(), 1))]
    t0 = time.perf_counter()
    done = 0
    for k in range(1, n + 1):
        one(pages[k % len(pages)])
        done = k
        if k % every == 0:
            samples.append((k, round(rss_mb(), 1)))
            if k % (every * 5) == 0:
                log(f"{k} extractions: {samples[-1][1]} MB")
            if max_time and time.perf_counter() - t0 > max_time:
                log(f"--max-time reached after {k} extractions")
                break
    secs = time.perf_counter() - t0
    second_half = [s for s in samples if s[0] >= done // 2]
    return {
        "engine": engine, "mode": mode, "set": set_name, "extractions": done, "target": n, "distinct_pages": len(pages),
        "sample_every": every, "seconds": round(secs, 1), "first_mb": samples[0][1],
        "max_mb": max(s[1] for s in samples), "last_mb": samples[-1][1],
        "growth_mb_per_1000_second_half": round(_slope_per_1000(second_half), 3), "samples": samples,
    }


def default_stem(engine: str, mode: str, set_name: str = "default") -> str:
    "memory-<mode> for the core's default set (the first report's name), else engine, mode and set named."
    stem = f"memory-{mode}" if engine == "core" else f"memory-{engine}-{mode}"
    return stem if set_name == "default" else f"{stem}-{set_name}"


def write_report(result: dict, command: str, out_dir: Path = REPORTS_DIR, stem: Optional[str] = None) -> None:
    from .provenance import stamped

    result = stamped(result, command)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = stem or default_stem(result["engine"], result["mode"], result["set"])
    write_report_json(out_dir / f"{stem}.json", result)
    r = result
    lines = ["# Resident memory over many extractions", "",
             "Written by `python -m harness memory` (never by hand): VmRSS sampled every "
             f"{r['sample_every']} extractions after a warm-up pass.", "",
             f"- run: {r['date']}, commit {r['commit']}, Python {r['python']}, `{command}`",
             f"- engine {r['engine']}, mode {r['mode']}, option set {r['set']}, {r['extractions']} extractions "
             + (f"(of {r['target']} asked: stopped by --max-time) " if r.get("target", r["extractions"]) != r["extractions"] else "")
             + f"cycling over {r['distinct_pages']} dev pages, {r['seconds']} s", "",
             "| first MB | max MB | last MB | growth MB per 1,000 (second half) |", "|---:|---:|---:|---:|",
             f"| {r['first_mb']} | {r['max_mb']} | {r['last_mb']} | {r['growth_mb_per_1000_second_half']} |", "",
             "Samples (extractions: MB): " + ", ".join(f"{k}: {mb}" for k, mb in r["samples"]), ""]
    write_report_text(out_dir / f"{stem}.md", "\n".join(lines))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", default="core")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--set", default="default", dest="set_name", help="one option set (default: default)")
    p.add_argument("--n", type=int, default=20000, help="extractions (default 20000)")
    p.add_argument("--every", type=int, default=1000, help="sample RSS every N extractions (default 1000)")
    p.add_argument("--page-every", type=int, default=5, help="use every Nth dev page (default 5)")
    p.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    p.add_argument("--no-report", action="store_true")
    p.add_argument("--max-time", type=float, default=0.0,
                   help="stop at the first sample after this many seconds (the report gives the count reached)")
    p.add_argument("--stem", default=None, help="report name (default memory-<mode> for the core, "
                   "memory-<engine>-<mode> otherwise, -<set> appended for a set other than default)")


def run(args: argparse.Namespace, argv: List[str]) -> int:
    result = measure(args.engine, args.mode, args.set_name, args.n, args.every, args.bundles, args.page_every,
                     max_time=args.max_time)
    print(f"{result['extractions']} extractions: first {result['first_mb']} MB, max {result['max_mb']} MB, "
          f"last {result['last_mb']} MB, second-half growth {result['growth_mb_per_1000_second_half']} MB/1000")
    if not args.no_report:
        write_report(result, "python -m harness memory " + " ".join(argv), stem=args.stem)
    return 0


if __name__ == "__main__":
    sys.exit(standalone(sys.modules[__name__]))
