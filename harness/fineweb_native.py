"""``python -m harness fineweb-native``: ``trafila fineweb``'s native chain against its datatrove
chain (and datatrove's own pipeline), on the same WARC files, every output compared.

The inputs: the dev pages as gzipped WARC files of response records (``--tasks`` files, page i
to file i % tasks; harness.datatrove_run.write_warcs). Three runs of datatrove's FineWeb
example (WarcReader -> URLFilter -> Trafilatura -> GopherRepetitionFilter -> GopherQualityFilter
-> C4QualityFilter(filter_no_terminal_punct=False) -> FineWebQualityFilter -> JsonlWriter,
every filter with its exclusion writer), each a fresh Python process:

- ``native``: :func:`trafila.fineweb.pipeline.run_native` (``trafila fineweb --native``), no datatrove;
- ``datatrove``: :func:`trafila.cli.fineweb.build_pipeline` (``trafila fineweb --datatrove``):
  datatrove's ``LocalPipelineExecutor`` running trafila's drop-in steps;
- ``stock``: datatrove's own steps (its Trafilatura step extracting with the installed
  trafilatura, so only in the mode of that release; ``--no-stock`` leaves it out).

Both trafila chains run in each ``--modes`` mode, for each ``--workers`` count; the URL filter
uses tldextract's bundled suffix list (no download) in every run. Compared, native against
datatrove: every file under ``output/`` and ``removed/`` (names, and bytes after gzip
decompression), every step's statistics in each task's ``logs/stats/<rank>.json`` and in the
merged ``logs/stats.json`` (timings aside). The stock run's files and per-task statistics are
compared with the datatrove chain's too. Measured: each run's wall time (the executor's
``run()`` or ``run_native``) and each step's time statistic. Runs in the datatrove env
(datatrove 0.10.1 and the FineWeb steps' packages). Writes reports/fineweb-native.md and .json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .provenance import loadavg, utc_now, write_report_json, write_report_text

ROOT = Path(__file__).resolve().parent.parent
REPORTS_DIR = ROOT / "reports"
REPORT_NAME = "fineweb-native"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--modes", default="1.11.0,2.3.1", help="comma-separated compat modes (default both)")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--tasks", type=int, default=4, help="tasks (and WARC files) per run (default 4)")
    ap.add_argument("--every", type=int, default=1, help="every K-th page of each bundle (default 1)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N pages of each bundle")
    ap.add_argument("--no-stock", dest="stock", action="store_false", help="leave datatrove's own pipeline out")
    ap.add_argument("--stock-workers", type=int, default=1,
                    help="the worker count of the stock run (one run: it is slow; default 1)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the inputs and outputs in this folder")
    ap.add_argument("--no-report", dest="report", action="store_false", help="do not write reports/")
    ap.add_argument("--report-dir", type=Path, default=REPORTS_DIR)
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    ap.add_argument("--embedded", action="store_true", default=None, help="use the committed embedded corpus")


# --------------------------------------------------------------------------- one run (a child process)


def _stock_pipeline(files: List[Path], out: Path) -> List[Any]:
    from datatrove.pipeline.extractors import Trafilatura
    from datatrove.pipeline.filters import (C4QualityFilter, FineWebQualityFilter, GopherQualityFilter,
                                            GopherRepetitionFilter, URLFilter)
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter

    from trafila.fineweb.pipeline import REMOVED_FOLDERS

    root = Path(os.path.commonpath([str(f.parent) for f in files]))
    out.mkdir(parents=True, exist_ok=True)
    listing = out / "inputs.txt"
    listing.write_text("".join(f"{f.relative_to(root)}\n" for f in files), encoding="utf-8")

    def exclusion(key: str) -> Any:
        return JsonlWriter(str(out / "removed" / REMOVED_FOLDERS[key]))

    return [WarcReader(str(root), paths_file=str(listing)), URLFilter(exclusion_writer=exclusion("url")),
            Trafilatura(favour_precision=True, timeout=600.0),
            GopherRepetitionFilter(exclusion_writer=exclusion("gopher_rep")),
            GopherQualityFilter(exclusion_writer=exclusion("gopher_qual")),
            C4QualityFilter(filter_no_terminal_punct=False, exclusion_writer=exclusion("c4")),
            FineWebQualityFilter(exclusion_writer=exclusion("fineweb_qual")), JsonlWriter(str(out / "output"))]


def child_main() -> int:
    """One run: the spec as JSON on stdin, ``{"wall_seconds": ...}`` on stdout's last line."""
    spec = json.loads(sys.stdin.read())
    files = [Path(f) for f in spec["files"]]
    out = Path(spec["out"])
    if spec["variant"] == "native":
        from trafila.fineweb.pipeline import run_native

        start = time.perf_counter()
        run_native(files, out, compat=spec["mode"], tasks=spec["tasks"], workers=spec["workers"], removed=True,
                   offline_suffix_list=True)
        wall = time.perf_counter() - start
    else:
        from datatrove.executor import LocalPipelineExecutor
        from tldextract import TLDExtract

        if spec["variant"] == "datatrove":
            from trafila.cli.fineweb import build_pipeline

            steps = build_pipeline(files, out, spec["mode"], removed=True)
        else:
            steps = _stock_pipeline(files, out)
        steps[1].tldextractor = TLDExtract(suffix_list_urls=())  # the bundled suffix list: no download attempt
        executor = LocalPipelineExecutor(steps, tasks=spec["tasks"], workers=spec["workers"],
                                         logging_dir=str(out / "logs"))
        start = time.perf_counter()
        executor.run()
        wall = time.perf_counter() - start
    print(json.dumps({"wall_seconds": wall}))
    return 0


def _run_child(spec: Dict[str, Any], log: Path) -> Dict[str, Any]:
    from .datatrove_run import run_child

    return run_child(spec, log, "harness.fineweb_native", "fineweb-native")


# --------------------------------------------------------------------------- reading runs back


def output_files(folder: Path) -> Dict[str, bytes]:
    """Every JSON Lines file under output/ and removed/, decompressed, by path relative to the folder."""
    out = {}
    for sub in ("output", "removed"):
        for path in sorted((folder / sub).rglob("*.jsonl.gz")):
            out[str(path.relative_to(folder))] = gzip.decompress(path.read_bytes())
    return out


def time_count(t: Any) -> int:
    """How many times a step's time was taken (its time statistic's n, as datatrove saves it)."""
    if not t:
        return 0
    return t.get("n", 1) if isinstance(t, dict) else 1


def _counters(path: Path) -> List[Tuple[str, Dict[str, Any]]]:
    """Each step's counters, with how many times its time was taken (the time's values aside)."""
    return [(s["name"], dict(s["stats"], **{"(time count)": time_count(s["time_stats"])}))
            for s in json.loads(path.read_text())]


def task_counters(folder: Path) -> Dict[str, List[Tuple[str, Dict[str, Any]]]]:
    """Each task's statistics (timings aside), by task file name."""
    return {p.name: _counters(p) for p in sorted((folder / "logs" / "stats").glob("*.json"))}


def step_seconds(folder: Path) -> Dict[str, float]:
    """Each step's time statistic in the merged statistics (summed over tasks)."""
    out = {}
    for s in json.loads((folder / "logs" / "stats.json").read_text()):
        t = s.get("time_stats")
        out[s["name"]] = round(t["total"] if isinstance(t, dict) else t, 3)
    return out


def _differing_counters(a: List[Tuple[str, Dict[str, Any]]], b: List[Tuple[str, Dict[str, Any]]]) -> List[str]:
    out = []
    for k in range(max(len(a), len(b))):
        name_a, sa = a[k] if k < len(a) else ("?", {})
        name_b, sb = b[k] if k < len(b) else ("?", {})
        for key in sorted(set(sa) | set(sb)):
            if name_a != name_b or sa.get(key) != sb.get(key):
                out.append(f"{name_a}: {key}")
    return out


#: what trafila's drop-in Trafilatura step counts differently from datatrove's own, by design: it
#: times batches (``unit="batch"``), datatrove's step each document, so its time is taken fewer times
STOCK_EXEMPT = ("⛏ Trafilatura: (time count)",)


def stock_exempt(differences: List[str]) -> List[str]:
    """The differences against the stock run, the designed ones (:data:`STOCK_EXEMPT`) left out."""
    return [d for d in differences if not d.endswith(STOCK_EXEMPT)]


def _as_stock(c: Dict[str, Any]) -> Dict[str, Any]:
    """A comparison with the stock run judged without the designed differences."""
    c = dict(c)
    for key, flag in (("differing_task_statistics", "task_statistics_equal"),
                      ("differing_merged_statistics", "merged_statistics_equal")):
        c["exempt_" + key] = [d for d in c[key] if d.endswith(STOCK_EXEMPT)]
        c[key] = stock_exempt(c[key])
        c[flag] = not c[key]
    return c


def compare(ours: Path, theirs: Path) -> Dict[str, Any]:
    """Files (names, decompressed bytes) and statistics (per task, merged) of two runs."""
    fa, fb = output_files(ours), output_files(theirs)
    differing_files = sorted(n for n in set(fa) | set(fb) if fa.get(n) != fb.get(n))
    ta, tb = task_counters(ours), task_counters(theirs)
    differing_stats = []
    for name in sorted(set(ta) | set(tb)):
        differing_stats += [f"task {name}: {d}" for d in _differing_counters(ta.get(name, []), tb.get(name, []))]
    merged = _differing_counters(_counters(ours / "logs" / "stats.json"), _counters(theirs / "logs" / "stats.json"))
    documents = sum(v.count(b"\n") for n, v in fb.items() if n.startswith("output/"))
    removed = sum(v.count(b"\n") for n, v in fb.items() if n.startswith("removed/"))
    return {"files": len(fb), "documents_out": documents, "documents_removed": removed,
            "bytes": sum(len(v) for v in fb.values()), "files_equal": not differing_files,
            "differing_files": differing_files, "task_statistics_equal": not differing_stats and ta.keys() == tb.keys(),
            "differing_task_statistics": differing_stats, "merged_statistics_equal": not merged,
            "differing_merged_statistics": merged}


# --------------------------------------------------------------------------- the command


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    from .parity import _git_commit

    try:
        import datatrove  # noqa: F401
    except ImportError:
        print("fineweb-native: needs datatrove 0.10.1 and the FineWeb steps' packages (the datatrove env)")
        return 2
    commit = _git_commit()
    if args.keep is None:
        with tempfile.TemporaryDirectory(prefix="trafila-fineweb-native-") as tmp:
            return _measure(args, argv, Path(tmp), commit)
    return _measure(args, argv, args.keep, commit)


def _measure(args: argparse.Namespace, argv: Optional[List[str]], work: Path, commit: Optional[str]) -> int:
    from trafila.cli.fineweb import input_files
    from trafila._child_batches import installed_trafilatura

    from .datatrove_run import write_warcs

    modes = [m for m in args.modes.split(",") if m]
    workers = [int(w) for w in args.workers.split(",") if w]
    inputs = write_warcs(work / "inputs", args.bundles, args.every, args.limit, args.embedded, args.tasks)
    files = [str(f) for f in input_files([str(work / "inputs")])]
    installed = installed_trafilatura()
    from trafila.fineweb.url_filter import load_block_lists

    for source in ("packaged", "datatrove"):  # both chains' table caches built before any run is timed
        load_block_lists(source=source)
    print(f"fineweb-native: {inputs['pages']} pages ({inputs['megabytes']} MB) in {len(files)} WARC files; "
          f"trafilatura {installed}; work in {work}", flush=True)
    runs: List[Dict[str, Any]] = []
    comparisons: List[Dict[str, Any]] = []

    def one(variant: str, mode: str, w: int) -> Path:
        folder = work / f"{variant}-{mode}-w{w}"
        spec = {"variant": variant, "mode": mode, "files": files, "out": str(folder), "tasks": args.tasks,
                "workers": w}
        folder.mkdir(parents=True, exist_ok=True)
        result = _run_child(spec, folder.parent / f"{folder.name}.log")
        entry = {"variant": variant, "mode": mode, "workers": w, "wall_seconds": round(result["wall_seconds"], 3),
                 "steps_seconds": step_seconds(folder)}
        runs.append(entry)
        print(f"  {variant:9s} {mode} workers={w}: wall {entry['wall_seconds']} s", flush=True)
        return folder

    for mode in modes:
        for w in workers:
            theirs = one("datatrove", mode, w)
            ours = one("native", mode, w)
            c = dict(compare(ours, theirs), mode=mode, workers=w, against="datatrove")
            comparisons.append(c)
            print(f"    native vs datatrove: {c['files']} files ({c['documents_out']} documents out, "
                  f"{c['documents_removed']} removed) equal {c['files_equal']}; statistics per task equal "
                  f"{c['task_statistics_equal']}, merged equal {c['merged_statistics_equal']}", flush=True)
        if args.stock and mode == installed:
            stock = one("stock", mode, args.stock_workers)
            c = _as_stock(dict(compare(work / f"datatrove-{mode}-w{args.stock_workers}", stock), mode=mode,
                               workers=args.stock_workers, against="stock"))
            comparisons.append(c)
            print(f"    datatrove chain vs stock: files equal {c['files_equal']}, statistics per task equal "
                  f"{c['task_statistics_equal']}", flush=True)
    section = {"date": utc_now(), "commit": commit,
               "command": "python -m harness " + " ".join(["fineweb-native", *(argv or [])]),
               "trafilatura": installed, "inputs": inputs, "tasks": args.tasks, "runs": runs,
               "comparisons": comparisons, "python": sys.version.split()[0], "cpus": os.cpu_count(),
               "loadavg_after": loadavg()}
    if args.report:
        write_report(section, args.report_dir)
    native = [c for c in comparisons if c["against"] == "datatrove"]
    # the merged file adds the tasks in the order they finish under datatrove's pool (workers > 1):
    # a variance's last digits may move there, so the gate is the files and the per-task statistics
    ok = all(c["files_equal"] and c["task_statistics_equal"] for c in native)
    return 0 if ok else 1


def _ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return round(a / b, 2) if a and b else None


def write_report(section: Dict[str, Any], out_dir: Path = REPORTS_DIR) -> None:
    """reports/fineweb-native.json and .md: one section per installed trafilatura (the env the
    stock run extracts with); a run replaces its own."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{REPORT_NAME}.json"
    sections: List[Dict[str, Any]] = []
    if path.exists():
        data = json.loads(path.read_text())
        sections = data.get("sections", [data] if "runs" in data else [])
    sections = [s for s in sections if s.get("trafilatura") != section.get("trafilatura")] + [section]
    sections.sort(key=lambda s: str(s.get("trafilatura")))
    write_report_json(path, {"sections": sections})
    lines = list(_preamble())
    for s in sections:
        lines += list(_markdown(s))
    write_report_text(out_dir / f"{REPORT_NAME}.md", "\n".join(lines) + "\n")


def _yes(flag: bool) -> str:
    return "yes" if flag else "**no**"


def _preamble() -> Any:
    yield "# fineweb-native: `trafila fineweb --native` against its datatrove chain and datatrove's own pipeline"
    yield ""
    yield ("Written by `python -m harness fineweb-native` (never by hand). datatrove 0.10.1's FineWeb example "
           "(WarcReader -> URLFilter -> Trafilatura -> GopherRepetitionFilter -> GopherQualityFilter -> "
           "C4QualityFilter(filter_no_terminal_punct=False) -> FineWebQualityFilter -> JsonlWriter, every filter "
           "with its exclusion writer) run three ways on the same WARC files, each run a fresh process: "
           "**native** = `trafila.fineweb.pipeline.run_native` (no datatrove imported), **datatrove** = datatrove's "
           "`LocalPipelineExecutor` with trafila's drop-in steps (`trafila fineweb --datatrove`), **stock** = "
           "datatrove's own steps extracting with the installed trafilatura (its release's mode only). "
           "Compared: every file under `output/` and `removed/` (names; bytes after gzip decompression) and every "
           "step's statistics (timings aside) in each task's `logs/stats/<rank>.json` and in the merged "
           "`logs/stats.json`, and how many times each step's time was taken (its values aside). One section per "
           "installed trafilatura (the env's: the stock run extracts with it).")


def _markdown(s: Dict[str, Any]) -> Any:
    inp = s["inputs"]
    s = dict(s, comparisons=[_as_stock(c) if c["against"] == "stock" else c for c in s["comparisons"]])
    yield ""
    yield f"## installed trafilatura {s['trafilatura']}"
    yield ""
    yield f"- run: {s['date']}, commit {s['commit']}, `{s['command']}`"
    yield (f"- inputs: {inp['pages']} pages ({inp['megabytes']} MB, {inp['non_utf8']} of them not UTF-8) of "
           f"{', '.join(inp['bundles'])}, as response records in {s['tasks']} WARC files, {s['tasks']} tasks; "
           f"installed trafilatura {s['trafilatura']}")
    yield (f"- Python {s['python']}, {s['cpus']} CPUs shared with other processes (load after: "
           f"`{s['loadavg_after']}`)")
    yield ""
    yield ("| mode | workers | compared | files | documents out | removed | same files (bytes) | same statistics "
           "per task | same merged statistics |")
    yield "|---|---:|---|---:|---:|---:|---|---|---|"
    for c in s["comparisons"]:
        label = "native vs datatrove" if c["against"] == "datatrove" else "datatrove vs stock"
        yield (f"| {c['mode']} | {c['workers']} | {label} | {c['files']} | {c['documents_out']} | "
               f"{c['documents_removed']} | {_yes(c['files_equal'])} | {_yes(c['task_statistics_equal'])} | "
               f"{_yes(c['merged_statistics_equal'])} |")
    for c in s["comparisons"]:
        for key in ("differing_files", "differing_task_statistics", "differing_merged_statistics"):
            if c[key]:
                yield ""
                yield (f"{c['mode']}, workers {c['workers']}, {c['against']}: {key.replace('_', ' ')}: "
                       + "; ".join(f"`{d}`" for d in c[key][:20]) + (" ..." if len(c[key]) > 20 else ""))
    if any(c.get("exempt_differing_task_statistics") for c in s["comparisons"]):
        yield ""
        yield ("Against the stock run, the extraction step's time is taken fewer times by design (trafila's "
               "drop-in times each batch, datatrove's step each document; the values are timings): left out of "
               "that comparison.")
    yield ""
    yield "Wall time (s) and ratios (> 1: the native chain is faster):"
    yield ""
    yield "| mode | workers | native | datatrove chain | stock | datatrove/native | stock/native |"
    yield "|---|---:|---:|---:|---:|---:|---:|"
    walls = {(r["variant"], r["mode"], r["workers"]): r["wall_seconds"] for r in s["runs"]}
    for mode, w in sorted({(r["mode"], r["workers"]) for r in s["runs"] if r["variant"] == "native"}):
        n, d, st = walls.get(("native", mode, w)), walls.get(("datatrove", mode, w)), walls.get(("stock", mode, w))
        yield (f"| {mode} | {w} | {n} | {d} | {st if st is not None else '-'} | {_ratio(d, n)} | "
               f"{_ratio(st, n) if st is not None else '-'} |")
    yield ""
    yield "Time by step (s; each step's time statistic summed over tasks):"
    yield ""
    header = [f"{r['variant']} {r['mode']} w{r['workers']}" for r in s["runs"]]
    yield "| step | " + " | ".join(header) + " |"
    yield "|---|" + "---:|" * len(header)
    names: List[str] = []
    for r in s["runs"]:
        names += [n for n in r["steps_seconds"] if n not in names]
    for name in names:
        yield f"| {name} | " + " | ".join(str(r["steps_seconds"].get(name, "-")) for r in s["runs"]) + " |"
    yield ""
    yield ("Wall: the executor's `run()` (datatrove) or `run_native()` (native), in the child process, the "
           "block lists' cache already built. The merged `stats.json` adds the tasks' statistics in the order "
           "they finish under datatrove's pool and in rank order in the native chain, so with workers > 1 a "
           "merged variance may differ in its last digits; the gate (exit status) is the files and the per-task "
           "statistics.")
