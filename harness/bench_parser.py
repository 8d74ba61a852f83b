"""Parser benchmark: the compiled core's parse against lxml 6.1.3, thread scaling, memory.

``python -m harness bench-parser [--every 10] [--threads 2]`` writes
``reports/bench-parser.md`` and ``.json`` with three measurements, on every
K-th page of the dev bundles (the shared corpora; the embedded corpus when
they are absent), in both input forms:

* **ratio**: ``trafila._core.parse_document(page)`` (the C document, no
  proxies, no ``to_reference``) against ``lxml.html.fromstring(page,
  parser=HTMLParser(collect_ids=False, default_doctype=False,
  encoding="utf-8", remove_comments=True, remove_pis=True))``, side by side in
  one run, interleaved page by page, the first alternating (the minimum of ``--repeat`` runs of each
  per page); ratio = core time / lxml time (goal <= 1.0, moonshot <= 0.5);
* **threads**: the same page list parsed by one thread, then split over
  ``--threads`` threads (the core parses with the GIL released); ratio = one
  thread's wall time / N threads' wall time (goal >= 1.8 for 2); the machine
  load (``/proc/loadavg``) before and after is recorded, since other processes
  share the cores;
* **memory**: resident set size (``/proc/self/statm``) sampled over
  ``--mem-parses`` parses (pages cycled, every document freed at once): the
  first, the last and the largest sample (flat is the goal).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple, Union

from .provenance import build_info, loadavg, utc_now, write_report_json, write_report_text
from .corpora import EMBEDDED_DIR, ROOT, bundle_name, bundle_paths, page_forms

REPORTS_DIR = ROOT / "reports"
Src = Union[str, bytes]


def lxml_parse() -> Callable[[Src], object]:
    from lxml import html as lhtml

    parser = lhtml.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                              remove_comments=True, remove_pis=True)
    return lambda src: lhtml.fromstring(src, parser=parser)


def core_parse() -> Callable[[Src], object]:
    from trafila import _engine

    return _engine.core_module().parse_document


def dev_pages(bundles: Optional[List[str]] = None, every: int = 10, limit: Optional[int] = None,
              forms: Sequence[str] = ("str", "bytes"), embedded: Optional[bool] = None) -> List[Tuple[str, str, Src, int]]:
    """(bundle, form, input, size in bytes) of every ``every``-th page; the embedded
    corpus only when asked for (or when the shared corpora are absent)."""
    paths = bundle_paths(bundles, embedded=embedded)
    if not bundles and not embedded and any(p.parent != EMBEDDED_DIR for p in paths):
        paths = [p for p in paths if p.parent != EMBEDDED_DIR]
    out = []
    for path in paths:
        if not path.exists():
            continue
        out.extend((bundle_name(path), form, page.input(form), len(page.raw))
                   for page, form in page_forms(path, forms, every, limit))
    return out


def _timed(fn: Callable[[Src], object], src: Src) -> float:
    t0 = time.perf_counter()
    try:
        fn(src)
    except Exception:
        pass
    return time.perf_counter() - t0


def ratio(pages, repeat: int = 3, log=print) -> dict:
    """Core against lxml, interleaved page by page: per (bundle, form) and in total."""
    core, lxml = core_parse(), lxml_parse()
    cells: dict = {}
    for i, (bundle, form, src, size) in enumerate(pages):
        times_l: List[float] = []
        times_c: List[float] = []
        for _ in range(repeat):  # which parser goes first alternates page by page
            if i % 2:
                times_c.append(_timed(core, src))
            times_l.append(_timed(lxml, src))
            if not i % 2:
                times_c.append(_timed(core, src))
        for key in ((bundle, form), ("all", form), ("all", "both")):
            c = cells.setdefault(key, {"pages": 0, "bytes": 0, "core_seconds": 0.0, "lxml_seconds": 0.0,
                                       "core_first_seconds": 0.0, "lxml_first_seconds": 0.0})
            c["pages"] += 1
            c["bytes"] += size
            c["core_seconds"] += min(times_c)
            c["lxml_seconds"] += min(times_l)
            c["core_first_seconds"] += times_c[0]
            c["lxml_first_seconds"] += times_l[0]
    rows = []
    for (bundle, form), c in cells.items():
        c = dict(c, bundle=bundle, form=form, ratio=round(c["core_seconds"] / c["lxml_seconds"], 3) if c["lxml_seconds"] else None,
                 core_mb_per_s=round(c["bytes"] / 1e6 / c["core_seconds"], 1) if c["core_seconds"] else None,
                 lxml_mb_per_s=round(c["bytes"] / 1e6 / c["lxml_seconds"], 1) if c["lxml_seconds"] else None)
        c["first_run_ratio"] = round(c["core_first_seconds"] / c["lxml_first_seconds"], 3) if c["lxml_first_seconds"] else None
        for k in ("core_seconds", "lxml_seconds", "core_first_seconds", "lxml_first_seconds"):
            c[k] = round(c[k], 6)
        rows.append(c)
    rows.sort(key=lambda r: (r["bundle"] == "all", r["bundle"], r["form"] == "both", r["form"]))
    for r in rows:
        if r["bundle"] == "all":
            log(f"ratio {r['form']}: {r['pages']} page-forms, core {r['core_seconds']} s, lxml {r['lxml_seconds']} s, "
                f"core/lxml {r['ratio']} (first runs only: {r['first_run_ratio']})")
    return {"repeat": repeat, "rows": rows}


def machine_busy_seconds() -> Optional[float]:
    """CPU seconds all processes of the machine have used (/proc/stat), or None."""
    try:
        with open("/proc/stat") as fh:
            f = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal: busy = all but idle and iowait
    return (sum(f[:8]) - f[3] - f[4]) / os.sysconf("SC_CLK_TCK")


def _process_cpu() -> float:
    t = os.times()
    return t.user + t.system


def _wall(parse, chunks: List[List[Src]], usage: Optional[list] = None) -> float:
    """Wall time for ``len(chunks)`` threads, one chunk each, started together;
    ``usage`` gets (wall, this process's CPU s, the other processes' CPU s)."""
    start = threading.Barrier(len(chunks) + 1)

    def work(chunk):
        start.wait()
        for src in chunk:
            try:
                parse(src)
            except Exception:
                pass

    threads = [threading.Thread(target=work, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    start.wait()
    m0, c0, t0 = machine_busy_seconds(), _process_cpu(), time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if usage is not None:
        cpu = _process_cpu() - c0
        m1 = machine_busy_seconds()
        usage.append((wall, cpu, None if m0 is None or m1 is None else max(0.0, m1 - m0 - cpu)))
    return wall


def threads_scaling(pages, n_threads: int = 2, repeat: int = 3, passes: int = 5, log=print) -> dict:
    """One thread against ``n_threads`` on the same page list (``passes`` times over;
    best of ``repeat``, alternated)."""
    parse = core_parse()
    pages = list(pages) * passes
    srcs = [p[2] for p in pages]
    # balance the split by size: deal the pages largest first to the lightest chunk
    chunks: List[List[Src]] = [[] for _ in range(n_threads)]
    loads = [0] * n_threads
    for p in sorted(pages, key=lambda p: -p[3]):
        k = loads.index(min(loads))
        chunks[k].append(p[2])
        loads[k] += p[3]
    before = loadavg()
    one = many = float("inf")
    runs = []
    for _ in range(repeat):
        ua: list = []
        ub: list = []
        a = _wall(parse, [srcs], ua)
        b = _wall(parse, chunks, ub)
        runs.append({"one_thread_s": round(a, 6), f"{n_threads}_threads_s": round(b, 6),
                     f"{n_threads}_threads_cpu_s": round(ub[0][1], 3),
                     f"{n_threads}_threads_others_cpu_s": None if ub[0][2] is None else round(ub[0][2], 3)})
        one, many = min(one, a), min(many, b)
    after = loadavg()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    best = min(runs, key=lambda r: r[f"{n_threads}_threads_s"])
    others = best[f"{n_threads}_threads_others_cpu_s"]
    # the cores left to this process while its threads ran: what bounds the speedup it could show
    free = None if others is None or not many else round(max(0.0, cpus - others / many), 2)
    res = {"threads": n_threads, "page_forms": len(srcs) // passes, "passes": passes, "repeat": repeat, "one_thread_seconds": round(one, 6),
           "threads_seconds": round(many, 6), "speedup": round(one / many, 3) if many else None, "runs": runs,
           "loadavg_before": before, "loadavg_after": after, "cpus": os.cpu_count(),
           "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
           "threads_cpu_per_wall": round(best[f"{n_threads}_threads_cpu_s"] / many, 2) if many else None,
           "cores_left_by_others": free}
    log(f"threads: 1 thread {res['one_thread_seconds']} s, {n_threads} threads {res['threads_seconds']} s, "
        f"speedup {res['speedup']}; this process's CPU/wall with {n_threads} threads {res['threads_cpu_per_wall']}, "
        f"cores the other processes left {free} (loadavg {before} -> {after})")
    return res


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memory(pages, n: int = 20000, samples: int = 40, log=print) -> dict:
    """RSS over ``n`` parses of the pages cycled, each document dropped at once."""
    parse = core_parse()
    srcs = [p[2] for p in pages]
    every = max(1, n // samples)
    trace = [rss_bytes()]
    after_pass = None
    for i in range(n):
        try:
            doc = parse(srcs[i % len(srcs)])
            del doc
        except Exception:
            pass
        if (i + 1) % every == 0:
            trace.append(rss_bytes())
        if i + 1 == len(srcs):
            after_pass = rss_bytes()
    mb = [round(x / 2 ** 20, 1) for x in trace]
    first = mb[1] if len(mb) > 1 else mb[0]  # after the first batch: the allocator has warmed up
    res = {"parses": n, "sample_every": every, "rss_mb_start": mb[0], "rss_mb_first": first, "rss_mb_last": mb[-1],
           "rss_mb_max": max(mb), "growth_mb": round(mb[-1] - first, 1), "trace_mb": mb, "pass_parses": len(srcs),
           "rss_mb_after_first_pass": None if after_pass is None else round(after_pass / 2 ** 20, 1)}
    if after_pass is not None:
        res["growth_after_first_pass_mb"] = round(mb[-1] - res["rss_mb_after_first_pass"], 1)
    log(f"memory: {n} parses, RSS start {mb[0]} MB, first sample {first} MB, last {mb[-1]} MB, max {max(mb)} MB")
    return res


# --------------------------------------------------------------------------- command line


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--every", type=int, default=10, help="every K-th page of each bundle (default 10)")
    ap.add_argument("--threads", type=int, default=2, help="threads of the scaling measurement (default 2)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per page / per scaling run (the minimum counts)")
    ap.add_argument("--forms", default="str,bytes", help="input forms (default str,bytes)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N pages of each bundle")
    ap.add_argument("--thread-passes", type=int, default=5, help="times over the page list per scaling run (default 5)")
    ap.add_argument("--mem-parses", type=int, default=20000, help="parses of the memory measurement")
    ap.add_argument("--no-report", dest="report", action="store_false", help="do not write reports/")
    ap.add_argument("--report-dir", type=Path, default=REPORTS_DIR)
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: the dev bundles")
    ap.add_argument("--embedded", action="store_true", default=None, help="use the committed embedded corpus")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    from trafila import _engine

    from .parity import _git_commit

    try:
        _engine.core_module()
    except _engine.EngineUnavailable as err:
        print(f"bench-parser: {err}")
        return 2
    commit = _git_commit()
    pages = dev_pages(args.bundles, args.every, args.limit, tuple(f for f in args.forms.split(",") if f), args.embedded)
    if not pages:
        print("bench-parser: no pages")
        return 1
    import lxml.etree

    print(f"bench-parser: {len(pages)} page-forms ({sum(p[3] for p in pages) / 1e6:.1f} MB), every {args.every}th page",
          flush=True)
    result = {"page_forms": len(pages), "megabytes": round(sum(p[3] for p in pages) / 1e6, 2), "every": args.every,
              "bundles": sorted({p[0] for p in pages}), "forms": args.forms, "lxml": lxml.__version__,
              "libxml2": ".".join(map(str, lxml.etree.LIBXML_VERSION)), "python": sys.version.split()[0],
              "core_build": build_info()}
    if result["core_build"]["debug"]:
        print("bench-parser: warning: trafila._core is a debug build (-O0); its times say nothing about a release build")
    result["ratio"] = ratio(pages, args.repeat)
    result["threads"] = threads_scaling(pages, args.threads, args.repeat, args.thread_passes)
    result["memory"] = memory(pages, args.mem_parses)
    if args.report:
        write_report(result, "python -m harness " + " ".join(["bench-parser", *(argv or [])]), commit, args.report_dir)
    return 0


def write_report(result: dict, command: str, commit: Optional[str], out_dir: Path = REPORTS_DIR) -> None:

    result = dict(result, date=utc_now(), commit=commit,
                  command=command)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_report_json(out_dir / "bench-parser.json", result)
    th, mem = result["threads"], result["memory"]
    rows = result["ratio"]["rows"]
    total = next((r for r in rows if r["bundle"] == "all" and r["form"] == "both"), None)
    lines = ["# Parser benchmark: trafila._core against lxml " + result["lxml"], "",
             "Written by `python -m harness bench-parser` (never by hand).", "",
             f"- run: {result['date']}, commit {commit}, `{command}`",
             f"- {result['page_forms']} page-forms ({result['megabytes']} MB): every {result['every']}th page of "
             f"{', '.join(result['bundles'])}; forms {result['forms']}",
             f"- core: `trafila._core.parse_document(page)` (the C document; no proxies); lxml {result['lxml']} "
             f"(libxml2 {result['libxml2']}): `lxml.html.fromstring(page, parser=HTMLParser(collect_ids=False, "
             "default_doctype=False, encoding=\"utf-8\", remove_comments=True, remove_pis=True))`",
             "- core build: optimisation {optimisation}, debug {debug}, ASan {asan} (`python -m harness.core_tree "
             "--build-info`)".format(**result["core_build"]), "",
             "## Parse time, core / lxml (interleaved page by page, first parser alternating, min of "
             f"{result['ratio']['repeat']} runs per page; goal <= 1.0, moonshot <= 0.5)", ""]
    if total:
        lines += [f"**core/lxml = {total['ratio']}** over all page-forms (best of {result['ratio']['repeat']} per page); "
                  f"the first run of each page alone: core {total['core_first_seconds']} s, lxml "
                  f"{total['lxml_first_seconds']} s, **{total['first_run_ratio']}**.", ""]
    lines += ["| bundle | form | page-forms | core s | lxml s | core MB/s | lxml MB/s | core/lxml | first runs |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        b = f"**{r['bundle']}**" if r["bundle"] == "all" else r["bundle"]
        lines.append(f"| {b} | {r['form']} | {r['pages']} | {r['core_seconds']} | {r['lxml_seconds']} | "
                     f"{r['core_mb_per_s']} | {r['lxml_mb_per_s']} | {r['ratio']} | {r['first_run_ratio']} |")
    lines += ["", f"## Thread scaling (goal >= 1.8 for 2 threads)", "",
              f"The same {th['page_forms']} page-forms ({th['passes']} passes) parsed by 1 thread, then split over {th['threads']} threads "
              f"(balanced by size), best of {th['repeat']} alternated runs.", "",
              f"| 1 thread s | {th['threads']} threads s | speedup |", "|---:|---:|---:|",
              f"| {th['one_thread_seconds']} | {th['threads_seconds']} | **{th['speedup']}** |", "",
              f"Machine: {th['cpus']} CPUs ({th['cpus_usable']} usable), shared with other processes; "
              f"/proc/loadavg before `{th['loadavg_before']}`, after `{th['loadavg_after']}`. "
              f"During the best {th['threads']}-thread run this process used {th['threads_cpu_per_wall']} CPU seconds "
              f"per second of wall time, and the other processes of the machine left it "
              f"{th['cores_left_by_others']} of {th['cpus_usable']} cores (/proc/stat): the speedup this run can show "
              "is bounded by that, not only by the GIL.", "",
              "## Resident memory (flat is the goal)", "",
              f"{mem['parses']} parses (page-forms cycled, each document freed at once), RSS sampled every "
              f"{mem['sample_every']} parses:", "",
              "| before | first sample | last sample | max | last - first |", "|---:|---:|---:|---:|---:|",
              f"| {mem['rss_mb_start']} MB | {mem['rss_mb_first']} MB | {mem['rss_mb_last']} MB | {mem['rss_mb_max']} MB "
              f"| {mem['growth_mb']} MB |", ""]
    if mem.get("rss_mb_after_first_pass") is not None:
        lines += [f"After the first pass over the {mem['pass_parses']} page-forms (every page parsed once): "
                  f"{mem['rss_mb_after_first_pass']} MB; last - that: **{mem['growth_after_first_pass_mb']} MB**.", ""]
    lines.append("Trace (MB): " + " ".join(str(x) for x in mem["trace_mb"]))
    write_report_text(out_dir / "bench-parser.md", "\n".join(lines) + "\n")
