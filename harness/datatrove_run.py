"""``python -m harness datatrove``: a FineWeb-style datatrove pipeline with datatrove's
own Trafilatura step and with trafila's (``trafila.integrations.datatrove``), on the
same documents, side by side in one run.

The pipeline, by default: ``JsonlReader`` over the dev pages (their UTF-8
pages, written as one JSON Lines file per task: ``id``, ``text`` = the HTML,
``url``) -> Trafilatura -> ``JsonlWriter``. With ``--fineweb``, datatrove's
FineWeb example as far as it runs offline: ``WarcReader`` over WARC files built
from the dev pages (every page, its raw bytes as the HTTP payload; the reader
decodes them as datatrove does) -> ``URLFilter`` (tldextract's bundled suffix
list, no download) -> Trafilatura -> ``GopherRepetitionFilter`` ->
``GopherQualityFilter`` -> ``C4QualityFilter(filter_no_terminal_punct=False)``
-> ``FineWebQualityFilter`` -> ``JsonlWriter`` (the language filter is left out:
its fastText model is downloaded; the quality filters need spacy, and the WARC
reader warcio, faust-cchardet and python-magic). Each is run by
``LocalPipelineExecutor`` with ``--tasks`` tasks for each ``--workers`` count.
Each run is a fresh Python process (so neither side starts warm), stock and
trafila alternating. Compared: the output files (documents' ids, texts and
metadata, in order) and every step's statistics in each task, timings aside (each task's
own statistics file: the merged one depends on the order tasks finish). Measured: the
run's wall time, the tasks' CPU time (a probe step at the end of the pipeline:
each task process's own CPU and that of its reaped children, i.e. datatrove's
extraction children), and the Trafilatura step's time (datatrove's time
statistics, summed over tasks).

Runs where datatrove is installed (``tox -e datatrove``); the stock step uses the
installed trafilatura, and trafila's step reproduces the same release
(``--compat``, default: the installed one). ``reports/datatrove.md`` and
``.json`` keep one section per trafilatura release (a run replaces its own).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .provenance import loadavg, utc_now, write_report_json, write_report_text

ROOT = Path(__file__).resolve().parent.parent
REPORTS_DIR = ROOT / "reports"
REPORT_NAME = "datatrove"

#: the statistic the probe step counts its task's CPU in (milliseconds)
CPU_STAT = "task_cpu_ms"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--stock", action="store_true", help="run datatrove's own Trafilatura step")
    ap.add_argument("--trafila", action="store_true", help="run trafila.integrations.datatrove.Trafilatura")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--tasks", type=int, default=4, help="tasks (and input files) per run (default 4)")
    ap.add_argument("--every", type=int, default=1, help="every K-th page of each bundle (default 1)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N pages of each bundle")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="the stock step's timeout, large enough that nothing times out (default 600)")
    ap.add_argument("--compat", default=None, help="trafila's compat (default: the installed trafilatura's release)")
    ap.add_argument("--batch-size", type=int, default=64, help="trafila's batch_size (default 64)")
    ap.add_argument("--threads", type=int, default=1, help="trafila's threads (default 1)")
    ap.add_argument("--fineweb", action="store_true", help="add the URL and quality filters of the FineWeb example")
    ap.add_argument("--steps", choices=("all", "extraction"), default="all",
                    help="with --fineweb, trafila's run uses trafila's drop-in for every step (all, the default) "
                         "or only for the extraction (datatrove's own reader and filters around it)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the inputs, outputs and logs in this folder")
    ap.add_argument("--no-report", dest="report", action="store_false", help="do not write reports/")
    ap.add_argument("--report-dir", type=Path, default=REPORTS_DIR)
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    ap.add_argument("--embedded", action="store_true", default=None, help="use the committed embedded corpus")


# --------------------------------------------------------------------------- the inputs


def selected_pages(bundles: Optional[List[str]], every: int, limit: Optional[int],
                   embedded: Optional[bool], names: List[str]) -> Iterator[Any]:
    """Every ``every``-th page of each bundle (the first ``limit`` of each at most), in
    corpus order; the bundles' names are appended to ``names`` as they are read."""
    from .corpora import bundle_name, bundle_paths, iter_pages

    for path in bundle_paths(bundles, embedded=embedded):
        names.append(bundle_name(path))
        for page in iter_pages(path):
            if limit is not None and page.index >= limit:
                break
            if page.index % every == 0:
                yield page


def write_inputs(folder: Path, bundles: Optional[List[str]], every: int, limit: Optional[int],
                 embedded: Optional[bool], files: int) -> Dict[str, Any]:
    """The dev pages as ``files`` JSON Lines files (page i to file i % files); returns counts."""
    folder.mkdir(parents=True, exist_ok=True)
    outs = [gzip.open(folder / f"pages-{i:03d}.jsonl.gz", "wt", encoding="utf-8") for i in range(files)]
    count = skipped = size = 0
    names: List[str] = []
    try:
        for page in selected_pages(bundles, every, limit, embedded, names):
            if page.html is None:  # datatrove documents are str: the non-UTF-8 pages are left out
                skipped += 1
                continue
            record = {"id": page.id, "text": page.html, "url": page.url}
            outs[count % files].write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
            size += len(page.raw)
    finally:
        for fh in outs:
            fh.close()
    return {"pages": count, "non_utf8_left_out": skipped, "megabytes": round(size / 1e6, 1), "bundles": names,
            "format": "jsonl"}


#: the WARC-Date of the records built (fixed: the files are the same in every run)
WARC_DATE = "2024-01-01T00:00:00Z"


def write_warcs(folder: Path, bundles: Optional[List[str]], every: int, limit: Optional[int],
                embedded: Optional[bool], files: int) -> Dict[str, Any]:
    """The dev pages as ``files`` gzipped WARC files of response records (page i to file i % files)."""
    import io

    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    folder.mkdir(parents=True, exist_ok=True)
    handles = [open(folder / f"pages-{i:03d}.warc.gz", "wb") for i in range(files)]
    writers = [WARCWriter(fh, gzip=True) for fh in handles]
    count = size = non_utf8 = 0
    names: List[str] = []
    try:
        for page in selected_pages(bundles, every, limit, embedded, names):
            non_utf8 += page.html is None
            url = page.url or f"https://pages.trafila.test/{page.id}"
            http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            writer = writers[count % files]
            record = writer.create_warc_record(
                url, "response", payload=io.BytesIO(page.raw), http_headers=http,
                warc_headers_dict={"WARC-Record-ID": f"<urn:trafila:{page.id}>", "WARC-Date": WARC_DATE,
                                   "WARC-Identified-Payload-Type": "text/html"})
            writer.write_record(record)
            count += 1
            size += len(page.raw)
    finally:
        for fh in handles:
            fh.close()
    return {"pages": count, "non_utf8_left_out": 0, "non_utf8": non_utf8, "megabytes": round(size / 1e6, 1),
            "bundles": names, "format": "warc"}


# --------------------------------------------------------------------------- one run (a child process)


def _make_probe_class() -> Any:
    from datatrove.pipeline.base import PipelineStep

    class CpuProbe(PipelineStep):
        """Passes the documents on; at the end of the task counts the task's CPU time."""

        name = "CPU probe"
        type = "harness"

        def run(self, data: Any, rank: int = 0, world_size: int = 1) -> Any:
            start = _cpu_seconds()
            if data:
                yield from data
            self.stat_update(CPU_STAT, value=round((_cpu_seconds() - start) * 1000), unit="task")

    CpuProbe.__module__ = __name__
    CpuProbe.__qualname__ = "CpuProbe"
    return CpuProbe


def __getattr__(name: str) -> Any:
    # CpuProbe subclasses datatrove's PipelineStep: made on first use (datatrove is imported only by the runs),
    # as a module attribute, so the executors pickle it by reference
    if name == "CpuProbe":
        cls = globals()["CpuProbe"] = _make_probe_class()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _pipeline(spec: Dict[str, Any], out: Path) -> List[Any]:
    from datatrove.pipeline.readers import JsonlReader
    from datatrove.pipeline.writers import JsonlWriter

    if spec["variant"] == "stock":
        from datatrove.pipeline.extractors import Trafilatura as Step

        step = Step(timeout=spec["timeout"])
    else:
        from trafila.integrations.datatrove import Trafilatura as Step  # type: ignore[assignment]

        step = Step(compat=spec["compat"], batch_size=spec["batch_size"], threads=spec["threads"])
    if spec["fineweb"]:
        from tldextract import TLDExtract

        fw = _fineweb_steps(spec)
        url_filter = fw["URLFilter"]()
        url_filter.tldextractor = TLDExtract(suffix_list_urls=())  # the bundled snapshot: no download attempt
        steps: List[Any] = [fw["WarcReader"](spec["inputs"]), url_filter]
    else:
        steps = [JsonlReader(spec["inputs"])]
    steps.append(step)
    if spec["fineweb"]:
        steps += [fw["GopherRepetitionFilter"](), fw["GopherQualityFilter"](),
                  fw["C4QualityFilter"](filter_no_terminal_punct=False), fw["FineWebQualityFilter"]()]
    steps += [JsonlWriter(str(out / "output")), __getattr__("CpuProbe")()]
    return steps


#: the FineWeb example's steps other than the extraction, by class name
FINEWEB_STEPS = ("WarcReader", "URLFilter", "GopherRepetitionFilter", "GopherQualityFilter", "C4QualityFilter",
                 "FineWebQualityFilter")


def _fineweb_steps(spec: Dict[str, Any]) -> Dict[str, Any]:
    """The classes of the FineWeb steps a run uses: datatrove's own for the stock run; for
    trafila's, the drop-ins of ``trafila.integrations.datatrove`` (``--steps all``, the default)
    or datatrove's own around trafila's extraction alone (``--steps extraction``)."""
    from datatrove.pipeline import filters, readers

    stock = {name: getattr(filters, name, None) or getattr(readers, name) for name in FINEWEB_STEPS}
    if spec["variant"] == "stock" or spec.get("steps", "all") == "extraction":
        return stock
    import trafila.integrations.datatrove as ours

    return {name: getattr(ours, name) for name in FINEWEB_STEPS}


def child_main() -> int:
    """One pipeline run: the spec as JSON on stdin, the result as JSON on stdout's last line."""
    spec = json.loads(sys.stdin.read())
    from datatrove.executor import LocalPipelineExecutor

    out = Path(spec["out"])
    executor = LocalPipelineExecutor(_pipeline(spec, out), tasks=spec["tasks"], workers=spec["workers"],
                                     logging_dir=str(out / "logs"))
    start = time.perf_counter()
    executor.run()
    wall = time.perf_counter() - start
    print(json.dumps({"wall_seconds": wall}))
    return 0


def run_child(spec: Dict[str, Any], log: Path, module: str = "harness.datatrove_run",
              label: str = "datatrove") -> Dict[str, Any]:
    """``module.child_main()`` in a fresh interpreter (hash seed 0) on ``spec`` (JSON on its
    stdin): the JSON object its last stdout line prints; its stderr goes to ``log``."""
    code = f"import sys; from {module} import child_main; sys.exit(child_main())"
    env = dict(os.environ, PYTHONHASHSEED="0")
    with open(log, "w") as err:
        proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(spec), stdout=subprocess.PIPE,
                              stderr=err, text=True, cwd=str(ROOT), env=env)
    if proc.returncode:
        raise RuntimeError(f"{label}: the {spec['variant']} run failed (exit {proc.returncode}); see {log}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- reading a run back


def read_outputs(folder: Path) -> Dict[str, List[Tuple[str, str, str]]]:
    """Each output file's documents: (id, text, metadata as canonical JSON), in order."""
    files = {}
    for path in sorted((folder / "output").glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            docs = []
            for line in fh:
                rec = json.loads(line)
                docs.append((rec["id"], rec["text"], json.dumps(rec.get("metadata"), sort_keys=True)))
        files[path.name] = docs
    return files


def read_stats(folder: Path) -> List[Dict[str, Any]]:
    return json.loads((folder / "logs" / "stats.json").read_text())


def _without_time(stats: List[Dict[str, Any]]) -> List[Tuple[str, Dict[str, Any]]]:
    return [(s["name"], s["stats"]) for s in stats if s["name"] != "harness: CPU probe"]


def task_statistics(folder: Path) -> List[Tuple[str, Dict[str, Any]]]:
    """Every task's statistics (timings aside), task by task: what the comparison reads.

    The merged ``stats.json`` is not compared: datatrove folds the tasks' summary statistics
    together in the order the tasks finish, so with two workers a variance can differ in its
    last digit between two runs of the same code. Each task's own file is deterministic."""
    out: List[Tuple[str, Dict[str, Any]]] = []
    for path in sorted((folder / "logs" / "stats").glob("*.json")):
        for name, stats in _without_time(json.loads(path.read_text())):
            out.append((f"task {path.stem}: {name}", stats))
    return out


def _total(stat: Any) -> float:
    """A statistic's total (datatrove writes a bare number when there is nothing else to say)."""
    return stat["total"] if isinstance(stat, dict) else stat


def _summary(stats: List[Dict[str, Any]]) -> Dict[str, Any]:
    step = next(s for s in stats if "Trafilatura" in s["name"])
    probe = next(s for s in stats if s["name"] == "harness: CPU probe")
    counts = {k: _total(v) for k, v in step["stats"].items()}
    steps = {s["name"]: round(_total(s["time_stats"]), 3) for s in stats
             if s["name"] != "harness: CPU probe" and s.get("time_stats")}
    return {"step_seconds": round(_total(step["time_stats"]), 3),
            "task_cpu_seconds": round(_total(probe["stats"][CPU_STAT]) / 1000, 3),
            "step_counts": counts, "steps_seconds": steps}


# --------------------------------------------------------------------------- the command


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    from .parity import _git_commit

    try:
        import datatrove  # noqa: F401
    except ImportError:
        print("datatrove: needs datatrove 0.10.1 (tox -e datatrove, or pip install 'trafila[datatrove]' orjson)")
        return 2
    from trafila.integrations.datatrove import installed_trafilatura, resolve_compat

    installed = installed_trafilatura()
    mode = resolve_compat(args.compat)
    variants = [v for v, on in (("stock", args.stock), ("trafila", args.trafila)) if on] or ["stock", "trafila"]
    if "stock" in variants and installed is None:
        print("datatrove: the stock step needs trafilatura installed")
        return 2
    if "stock" in variants and mode != installed:
        print(f"datatrove: the stock step runs trafilatura {installed}; trafila's step would run {mode}")
        return 2
    commit = _git_commit()
    if args.keep is None:
        with tempfile.TemporaryDirectory(prefix="trafila-datatrove-") as tmp:
            return _measure(args, argv, Path(tmp), installed, mode, variants, commit)
    return _measure(args, argv, args.keep, installed, mode, variants, commit)


def _measure(args: argparse.Namespace, argv: Optional[List[str]], work: Path, installed: Optional[str],
             mode: Optional[str], variants: List[str], commit: Optional[str]) -> int:
    workers = [int(w) for w in args.workers.split(",") if w]
    write = write_warcs if args.fineweb else write_inputs
    inputs = write(work / "inputs", args.bundles, args.every, args.limit, args.embedded, args.tasks)
    print(f"datatrove: {inputs['pages']} pages ({inputs['megabytes']} MB) in {args.tasks} files; "
          f"trafilatura {installed}, trafila mode {mode}; work in {work}", flush=True)
    runs = []
    for w in workers:
        for variant in variants:
            folder = work / f"{variant}-w{w}"
            spec = {"variant": variant, "inputs": str(work / "inputs"), "out": str(folder), "tasks": args.tasks,
                    "workers": w, "timeout": args.timeout, "compat": mode, "batch_size": args.batch_size,
                    "threads": args.threads, "fineweb": args.fineweb, "steps": args.steps}
            folder.mkdir(parents=True, exist_ok=True)
            result = run_child(spec, folder / "run.log")
            stats = read_stats(folder)
            entry = {"variant": variant, "workers": w, "wall_seconds": round(result["wall_seconds"], 3),
                     **_summary(stats)}
            runs.append((entry, read_outputs(folder), task_statistics(folder)))
            print(f"  {variant:8s} workers={w}: wall {entry['wall_seconds']} s, tasks' CPU "
                  f"{entry['task_cpu_seconds']} s, step {entry['step_seconds']} s, {entry['step_counts']}", flush=True)
    comparisons = _compare(runs)
    for c in comparisons:
        print(f"  workers={c['workers']}: documents equal {c['documents_equal']} ({c['documents']} documents, "
              f"{c['differing_documents']} differ), statistics equal {c['statistics_equal']}"
              f"{'' if c['statistics_equal'] else ' (' + '; '.join(c['differing_statistics']) + ')'}; stock/trafila wall "
              f"{c['wall_ratio']}, step {c['step_ratio']}, tasks' CPU {c['cpu_ratio']}")
    section = {"mode": mode, "trafilatura": installed, "inputs": inputs, "tasks": args.tasks,
               "fineweb": args.fineweb, "steps": args.steps if args.fineweb else "extraction",
               "batch_size": args.batch_size, "threads": args.threads,
               "stock_timeout": args.timeout, "runs": [r[0] for r in runs], "comparisons": comparisons,
               "statistics_compared": "per task",
               "python": sys.version.split()[0], "cpus": os.cpu_count(), "loadavg_after": loadavg()}
    if args.report:
        command = "python -m harness " + " ".join(["datatrove", *(argv or [])])
        write_report(section, command, commit, args.report_dir)
    ok = all(c["documents_equal"] and c["statistics_equal"] for c in comparisons)
    return 0 if ok else 1


def _ratio(a: float, b: float) -> Optional[float]:
    return round(a / b, 2) if b else None


def differing_statistics(a: List[Tuple[str, Dict[str, Any]]], b: List[Tuple[str, Dict[str, Any]]]) -> List[str]:
    """``step: statistic`` for each statistic (timings aside) whose value differs between two runs."""
    out = []
    for k in range(max(len(a), len(b))):
        name_a, stats_a = a[k] if k < len(a) else ("?", {})
        name_b, stats_b = b[k] if k < len(b) else ("?", {})
        name = name_a if name_a == name_b else f"{name_a} / {name_b}"
        for key in sorted(set(stats_a) | set(stats_b)):
            if stats_a.get(key) != stats_b.get(key):
                out.append(f"{name}: {key}")
    return out


def _compare(runs: List[Tuple[Dict[str, Any], Any, Any]]) -> List[Dict[str, Any]]:
    """Stock against trafila for each worker count, and each run against the first stock run."""
    out = []
    by = {(e["variant"], e["workers"]): (e, files, stats) for e, files, stats in runs}
    reference = next(((files, stats) for e, files, stats in runs if e["variant"] == "stock"), None)
    for (variant, w), (entry, files, stats) in sorted(by.items(), key=lambda kv: kv[0][1]):
        if variant != "trafila" or ("stock", w) not in by:
            continue
        stock_entry, stock_files, stock_stats = by[("stock", w)]
        docs = [d for f in stock_files.values() for d in f]
        ours = [d for f in files.values() for d in f]
        differing = sum(1 for a, b in zip(docs, ours) if a != b) + abs(len(docs) - len(ours))
        out.append({
            "workers": w, "documents": len(docs), "files": len(stock_files),
            "documents_equal": files == stock_files, "differing_documents": differing,
            "statistics_equal": stats == stock_stats,
            "differing_statistics": differing_statistics(stock_stats, stats),
            "stock_differs_from_first_stock_run": (differing_statistics(reference[1], stock_stats)
                                                   if reference is not None else []),
            "same_as_first_stock_run": reference is not None and files == reference[0] and stats == reference[1],
            "wall_ratio": _ratio(stock_entry["wall_seconds"], entry["wall_seconds"]),
            "step_ratio": _ratio(stock_entry["step_seconds"], entry["step_seconds"]),
            "cpu_ratio": _ratio(stock_entry["task_cpu_seconds"], entry["task_cpu_seconds"]),
        })
    return out


# --------------------------------------------------------------------------- the report


def write_report(section: Dict[str, Any], command: str, commit: Optional[str], out_dir: Path = REPORTS_DIR) -> None:
    """reports/datatrove.json (one section per trafilatura release; this run replaces its own) and .md."""

    section = dict(section, date=utc_now(), commit=commit,
                   command=command)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{REPORT_NAME}.json"
    sections = json.loads(path.read_text()).get("sections", []) if path.exists() else []
    key = (section["mode"], section["fineweb"])
    sections = [s for s in sections if (s["mode"], s.get("fineweb", False)) != key] + [section]
    sections.sort(key=lambda s: (s["mode"], s.get("fineweb", False)))
    write_report_json(path, {"sections": sections})
    write_report_text(out_dir / f"{REPORT_NAME}.md", "\n".join(_markdown(sections)) + "\n")


def _step_table(section: Dict[str, Any]) -> Iterator[str]:
    """Each step's time, stock against trafila, per worker count (sections that recorded it)."""
    runs = {(r["variant"], r["workers"]): r for r in section["runs"] if "steps_seconds" in r}
    for w in sorted({w for _, w in runs}):
        stock, ours = runs.get(("stock", w)), runs.get(("trafila", w))
        if not stock or not ours:
            continue
        yield ""
        yield (f"Time by step, workers={w} (datatrove's time statistics summed over tasks; trafila's run: "
               f"{'every step a drop-in' if section.get('steps') == 'all' else 'the extraction step alone'}):")
        yield ""
        yield "| step | stock s | trafila s | stock/trafila |"
        yield "|---|---:|---:|---:|"
        names = list(stock["steps_seconds"]) + [n for n in ours["steps_seconds"] if n not in stock["steps_seconds"]]
        for name in names:
            a, b = stock["steps_seconds"].get(name), ours["steps_seconds"].get(name)
            ratio = _ratio(a, b) if a is not None and b is not None else None
            yield f"| {name} | {a if a is not None else '-'} | {b if b is not None else '-'} | {ratio if ratio is not None else '-'} |"
        yield (f"| **wall** | {stock['wall_seconds']} | {ours['wall_seconds']} | "
               f"{_ratio(stock['wall_seconds'], ours['wall_seconds'])} |")


def _markdown(sections: List[Dict[str, Any]]) -> Iterator[str]:
    yield "# datatrove: trafila's Trafilatura step against datatrove 0.10.1's, end to end"
    yield ""
    yield ("Written by `python -m harness datatrove` (never by hand). A FineWeb-style pipeline, JSON Lines reader "
           "-> Trafilatura -> JSON Lines writer (`--fineweb`: WARC files through datatrove's FineWeb example as far as "
           "it runs offline: reader, URL filter, Trafilatura, the Gopher, C4 and FineWeb quality filters), run by "
           "`LocalPipelineExecutor` with datatrove's own step (`datatrove.pipeline.extractors.Trafilatura`, a "
           "`timeout` large enough that nothing times out) and with `trafila.integrations.datatrove.Trafilatura`, "
           "each run a fresh process, in one command. Ratios > 1: trafila's step is faster.")
    for s in sections:
        inp = s["inputs"]
        yield ""
        yield f"## trafilatura {s['trafilatura']} (trafila mode {s['mode']}){' with the FineWeb filters' if s.get('fineweb') else ''}"
        yield ""
        yield f"- run: {s['date']}, commit {s['commit']}, `{s['command']}`"
        if inp.get("format") == "warc":
            yield (f"- inputs: {inp['pages']} pages ({inp['megabytes']} MB, {inp['non_utf8']} of them not UTF-8) of "
                   f"{', '.join(inp['bundles'])}, as response records in {s['tasks']} WARC files, {s['tasks']} tasks; "
                   "WarcReader -> URLFilter -> Trafilatura -> GopherRepetitionFilter -> GopherQualityFilter -> "
                   "C4QualityFilter -> FineWebQualityFilter -> JsonlWriter")
        else:
            yield (f"- inputs: {inp['pages']} UTF-8 pages ({inp['megabytes']} MB; {inp['non_utf8_left_out']} non-UTF-8 "
                   f"pages left out) of {', '.join(inp['bundles'])}, in {s['tasks']} JSON Lines files, {s['tasks']} "
                   "tasks; JsonlReader -> Trafilatura -> JsonlWriter")
        yield (f"- trafila: batch_size {s['batch_size']}, threads {s['threads']}; stock: timeout {s['stock_timeout']} s; "
               f"Python {s['python']}, {s['cpus']} CPUs shared with other processes (load after: `{s['loadavg_after']}`)")
        yield ""
        yield "| workers | step | wall s | tasks' CPU s | Trafilatura step s | total | extracted | forwarded | dropped | other |"
        yield "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"
        for r in s["runs"]:
            c = dict(r["step_counts"])
            main = [c.pop(k, 0) for k in ("total", "extracted", "forwarded", "dropped")]
            c.pop("doc_len", None)
            c.pop("doc_len_tokens", None)
            other = ", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "-"
            yield (f"| {r['workers']} | {r['variant']} | {r['wall_seconds']} | {r['task_cpu_seconds']} | "
                   f"{r['step_seconds']} | {main[0]} | {main[1]} | {main[2]} | {main[3]} | {other} |")
        yield ""
        basis = s.get("statistics_compared", "merged")  # sections written before 29ba1e3: the merged file
        yield ("| workers | documents out | same documents (ids, texts, metadata, order) | same statistics "
               f"({basis}, timings aside) | same as workers=1 stock | stock/trafila wall | stock/trafila step | stock/trafila CPU |")
        yield "|---:|---:|---|---|---|---:|---:|---:|"
        for c in s["comparisons"]:
            same_docs = "yes" if c["documents_equal"] else f"**no** ({c['differing_documents']} differ)"
            yield (f"| {c['workers']} | {c['documents']} | {same_docs} | {'yes' if c['statistics_equal'] else '**no**'} | "
                   f"{'yes' if c['same_as_first_stock_run'] else '**no**'} | {c['wall_ratio']} | {c['step_ratio']} | "
                   f"{c['cpu_ratio']} |")
        yield from _step_table(s)
        for c in s["comparisons"]:
            if not c["statistics_equal"]:
                yield ""
                yield (f"Workers {c['workers']}: the statistics that differ between stock and trafila: "
                       + "; ".join(f"`{d}`" for d in c.get("differing_statistics", ["(not recorded)"]))
                       + ". Between this stock run and the first stock run: "
                       + ("; ".join(f"`{d}`" for d in c.get("stock_differs_from_first_stock_run", [])) or "none")
                       + ".")
        yield ""
        yield ("Wall: the whole `executor.run()`. Tasks' CPU: a probe step at the end of each task (the task "
               "process's CPU and its reaped children's: datatrove's extraction children), summed over tasks; the "
               "executor's own process is not in it. Trafilatura step: datatrove's time statistic of the step, "
               "summed over tasks (stock: per document, waiting for its child; trafila: per batch).")
