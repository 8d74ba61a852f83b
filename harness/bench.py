"""Speed: candidates against trafilatura, side by side in one run.

``python -m harness bench [--candidate reference] [--set fast] [--every 20]``
times, page by page and interleaved (trafilatura, then each candidate, on the
same page before moving on, so machine noise hits all alike), one call per
page and option set, and reports total time, the ratio of totals and the
median per-page ratio. Before the timing, every side extracts the same 20 pages
outside the sample, so that one-time set-up (jusText's stoplist union, the
config, compiled patterns) is in no side's total: the figures are per-page
throughput, what a long corpus run sees. A deduplication set starts each side's
own cache afresh after the warm-up; every side then counts the same pages in
the same order, so its duplicate verdicts are the same. Results go to ``reports/bench.md`` / ``.json``. The
machines are shared and noisy: read the ratios, not the seconds.

``--batch`` adds batches (:func:`run_batches`): for each trafila engine and
option set (deduplication sets included), the same sample of pages as one list
through ``[extract(p) for p in pages]`` (the loop), ``extract_batch(threads=1)``
and ``extract_batch(threads=N)`` (``--threads``, default 2), interleaved in
rotating order over ``--rounds`` rounds, with the ratios of their totals and a
check that all three give the same results. Where extract_batch takes the loop
because the engine holds the GIL, a fourth variant runs its thread pool anyway
(``force_pool``): what threads would give that engine today. Without
deduplication, a last variant is the machine's ceiling: N processes of
:mod:`harness.bench_share` extracting the pages at the same time,
taking page indexes from one pipe, nothing else exchanged (what N cores
give on these pages at best).
"""

from __future__ import annotations

import json
import os
import statistics
import struct
import time
from pathlib import Path
from typing import Dict, List, Optional

from .bench_share import END
from .candidates import Candidate, make_candidate
from .corpora import ROOT, bundle_paths, iter_pages, sample_pages, warmup_pages
from .matrix import option_sets
from .provenance import write_report_json, write_report_text

REPORTS_DIR = ROOT / "reports"


def time_call(cand: Candidate, function: str, html, options: dict, mode: str):
    t0 = time.perf_counter()
    try:
        cand.call(function, html, dict(options), mode)
        ok = True
    except Exception:
        ok = False
    return time.perf_counter() - t0, ok


def run(candidates: List[str], mode: str = "2.3.1", sets: Optional[List[str]] = None, bundles=None,
        every: int = 20, form: str = "str", log=print) -> dict:
    oracle = make_candidate("trafilatura")
    cands = {name: make_candidate(name) for name in candidates}
    opts = option_sets(mode, sets or ["fast"])
    per_set: Dict[str, dict] = {}
    warm = warmup_pages(bundles, every, form)
    for opt in opts:
        # a process's first calls build lazy tables (jusText's stoplist union, the config,
        # compiled patterns): that one-time cost, on every side, stays out of the timing
        for cand in [oracle, *cands.values()]:
            for html in warm:
                time_call(cand, opt.function, html, opt.options, mode)
            if opt.dedup:  # each side's own cache, fresh: both then count the same pages in the same order
                cand.reset_dedup(mode)
        times: Dict[str, List[float]] = {"trafilatura": [], **{n: [] for n in cands}}
        fails: Dict[str, int] = {n: 0 for n in times}
        pages = 0
        for path in bundle_paths(bundles):
            if not path.exists():
                continue
            for page in iter_pages(path):
                if page.index % every or form not in page.forms():
                    continue
                html = page.input(form)
                pages += 1
                order = [("trafilatura", oracle), *cands.items()]
                if pages % 2 == 0:  # alternate who goes first: no side always gets warm CPU caches
                    order.reverse()
                for name, cand in order:
                    secs, ok = time_call(cand, opt.function, html, opt.options, mode)
                    times[name].append(secs)
                    fails[name] += not ok
        base = times["trafilatura"]
        row = {"pages": pages, "trafilatura_seconds": round(sum(base), 3), "candidates": {}}
        for name in cands:
            ts = times[name]
            ratios = [b / t for b, t in zip(base, ts) if t > 0]
            row["candidates"][name] = {
                "seconds": round(sum(ts), 3),
                "speedup_total": round(sum(base) / sum(ts), 3) if sum(ts) else None,
                "speedup_median_page": round(statistics.median(ratios), 3) if ratios else None,
                "failed_calls": fails[name],
            }
        per_set[opt.name] = row
        log(f"{opt.name}: {pages} pages; trafilatura {sum(base):.2f} s; " + "; ".join(
            f"{n} {r['seconds']:.2f} s (x{r['speedup_total']})" for n, r in row["candidates"].items()))
    return {"mode": mode, "form": form, "every": every, "warmup_pages": len(warm), "sets": per_set}


def run_batches(engines: List[str], mode: str = "2.3.1", sets: Optional[List[str]] = None, bundles=None,
                every: int = 20, form: str = "str", threads: int = 2, rounds: int = 3, log=print) -> dict:
    """The loop, extract_batch(threads=1) and extract_batch(threads=``threads``)
    on one list of pages per engine and option set, side by side (see the module docstring)."""
    import trafila
    from trafila import _batch, _workers

    pages = sample_pages(bundles, every, form)
    variants = [("loop", None), ("threads=1", 1), (f"threads={threads}", threads)]
    rows: Dict[str, dict] = {}
    for opt in option_sets(mode, sets or ["fast"]):
        if opt.function != "extract":
            continue
        for name in engines:
            eng = trafila.engine(name)
            options = dict(opt.options, compat=mode)

            token = trafila._CALL_ENGINE.set(name)  # the path this engine's batches take
            try:
                path = _batch.plan(pages, threads, **options)
            finally:
                trafila._CALL_ENGINE.reset(token)
            # the engine holds the GIL: what its pool would give (not the dedup sets: they stay the loop)
            forced = path[0] in ("loop", "processes") and "GIL" in path[1] and not opt.dedup and threads > 1
            runs = variants + ([(f"threads={threads}, pool forced", -threads)] if forced else [])
            # the machine's ceiling: `threads` processes sharing the pages out, nothing else exchanged
            shares = [] if opt.dedup or threads < 2 else _start_shares(name, mode, opt.name, bundles, every, form, threads, len(pages))
            if shares:
                runs.append((f"ceiling: {threads} processes", 0))

            def one(variant: Optional[int]) -> list:
                if opt.dedup:
                    trafila.reset_caches()  # each run starts from an empty cache, as the loop's would
                if variant is None:
                    return [eng.extract(p, **options) for p in pages]
                if variant == 0:
                    return _run_shares(shares)
                if variant < 0:
                    tok = trafila._CALL_ENGINE.set(name)
                    try:
                        return _batch.run_batch(pages, -variant, dict(options), force_pool=True)
                    finally:
                        trafila._CALL_ENGINE.reset(tok)
                return eng.extract_batch(pages, threads=variant, **options)

            one(None)  # lazy tables and stoplists built outside the timing
            if path[0] == "processes":  # the worker processes started, and warmed by one batch, outside it too
                with _workers._LOCK:
                    _workers.pool_for(threads).wait_ready()
                one(threads)
            seconds = {label: 0.0 for label, _ in runs}
            mismatches = {label: 0 for label, _ in runs}
            expected: Optional[list] = None
            by_workers: Dict[str, int] = {}  # on the processes path: pages given by the workers, and run here
            for r in range(rounds):
                k = r % len(runs)
                for label, variant in runs[k:] + runs[:k]:  # rotate who goes first
                    t0 = time.perf_counter()
                    got = one(variant)
                    seconds[label] += time.perf_counter() - t0
                    if path[0] == "processes" and variant == threads:
                        last = _workers._POOL.last_run if _workers._POOL is not None else {}
                        for key, value in last.items():
                            by_workers[key] = by_workers.get(key, 0) + value
                    if label == "loop" and expected is None:
                        expected = got
                    elif variant == 0:  # the shares answer how many results were not None
                        found = sum(r is not None for r in expected) if expected is not None else got[0]
                        mismatches[label] += abs(got[0] - found)
                    elif expected is not None:
                        mismatches[label] += sum(a != b for a, b in zip(expected, got)) + abs(len(expected) - len(got))
            _stop_shares(shares)
            if opt.dedup:
                trafila.reset_caches()
            loop_s, one_s, many_s = (seconds[label] for label, _ in variants)
            forced_s = seconds[runs[3][0]] if forced else None
            shares_s = seconds[runs[-1][0]] if shares else None
            row = {
                "engine": name, "option_set": opt.name, "pages": len(pages), "rounds": rounds,
                "seconds": {k: round(v, 3) for k, v in seconds.items()},
                "pages_per_second": {k: round(len(pages) * rounds / v, 1) if v else None for k, v in seconds.items()},
                "threads1_over_loop": round(loop_s / one_s, 3) if one_s else None,
                f"threads{threads}_over_threads1": round(one_s / many_s, 3) if many_s else None,
                "path": f"{path[0]}: {path[1]}",
                "forced_pool_over_threads1": round(one_s / forced_s, 3) if forced_s else None,
                f"shares{threads}_over_loop": round(loop_s / shares_s, 3) if shares_s else None,
                f"threads{threads}_over_shares{threads}": round(shares_s / many_s, 3) if shares_s and many_s else None,
                "mismatches": sum(mismatches.values()),
                "worker_pages": by_workers.get("by workers"), "here_pages": by_workers.get("here"),
            }
            rows[f"{name} / {opt.name}"] = row
            log(f"batch {name} / {opt.name}: {len(pages)} pages x {rounds}; loop {loop_s:.2f} s, threads=1 {one_s:.2f} s "
                f"(x{row['threads1_over_loop']} of the loop), threads={threads} {many_s:.2f} s "
                f"(x{row[f'threads{threads}_over_threads1']} of threads=1; {row['path']})"
                + (f", its pool forced x{row['forced_pool_over_threads1']} of threads=1" if forced else "")
                + (f"; ceiling ({threads} processes, nothing exchanged) x{row[f'shares{threads}_over_loop']} "
                   f"of the loop (threads={threads} gives x{row[f'threads{threads}_over_shares{threads}']} of it)"
                   if shares else "")
                + f"; mismatches {row['mismatches']}")
    return {"threads": threads, "rounds": rounds, "every": every, "form": form, "rows": rows}


def _start_shares(engine: str, mode: str, set_name: str, bundles, every: int, form: str, parts: int,
                  count: int) -> list:
    """``parts`` processes of :mod:`harness.bench_share`, warmed and ready, and the pipe that
    hands them the ``count`` page indexes of each run ([] if one fails to start)."""
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    shares: list = []
    try:
        for _ in range(parts):
            spec = {"engine": engine, "mode": mode, "set": set_name, "bundles": bundles, "every": every,
                    "form": form, "fd": read_end}
            shares.append(subprocess.Popen([sys.executable, "-m", "harness.bench_share", json.dumps(spec)],
                                           cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                           pass_fds=(read_end,)))
    finally:
        os.close(read_end)
    if all(share.stdout.readline().strip() == "ready" for share in shares):
        return [shares, write_end, count]
    _stop_shares([shares, write_end, count])
    return []


def _run_shares(shares: list) -> list:
    """The shares extract the pages at the same time, taking them one by one; [results that are not None]."""
    processes, pipe, count = shares
    os.write(pipe, b"".join(struct.pack("<I", i) for i in [*range(count), *[END] * len(processes)]))
    for share in processes:
        share.stdin.write("go\n")
        share.stdin.flush()
    return [sum(int(share.stdout.readline().split()[1]) for share in processes)]


def _stop_shares(shares: list) -> None:
    if not shares:
        return
    processes, pipe, _ = shares
    for share in processes:
        share.stdin.close()
        share.wait()
    os.close(pipe)


def write_report(result: dict, command: str, out_dir: Path = REPORTS_DIR) -> None:
    from .provenance import stamped

    result = stamped(result, command)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = "bench" if result["mode"] == "2.3.1" else f"bench-{result['mode']}"
    write_report_json(out_dir / f"{stem}.json", result)
    lines = ["# Speed against trafilatura (side by side, one run)", "",
             "Written by `python -m harness bench` (never by hand). Speed-up > 1 means faster than trafilatura; "
             "each page is run by trafilatura and each candidate in turn, one thread. "
             f"Before the timing every side extracts the same {result.get('warmup_pages', 1)} pages outside the sample "
             "(one-time set-up such as jusText's stoplist union is in no side's total).", "",
             f"- run: {result['date']}, commit {result['commit']}, Python {result['python']}, `{command}`",
             f"- mode {result['mode']}, {result['form']} input, every {result['every']}th page", "",
             "| option set | pages | trafilatura s | candidate | candidate s | speed-up (totals) | speed-up (median page) | failed calls |",
             "|---|---:|---:|---|---:|---:|---:|---:|"]
    for name, row in result["sets"].items():
        for cname, c in row["candidates"].items():
            lines.append(f"| {name} | {row['pages']} | {row['trafilatura_seconds']} | {cname} | {c['seconds']} | "
                         f"{c['speedup_total']} | {c['speedup_median_page']} | {c['failed_calls']} |")
    batch = result.get("batch")
    if batch:
        n = batch["threads"]
        lines += ["", f"## Batches: extract_batch against the loop (threads=1 and threads={n})", "",
                  f"The same pages (every {batch['every']}th, {batch['form']} input) as one list, {batch['rounds']} rounds "
                  "interleaved in rotating order; ratios of totals (> 1: faster). `path` is what extract_batch "
                  f"does with threads={n}: its thread pool when the engine's extraction releases the GIL, its "
                  f"{n} worker processes for an engine that holds it (the core: started and warmed by one batch "
                  "before the timing; 'pages here' counts the pages the calling process ran itself because a "
                  "worker's result could not be used: a page that logged, warned, raised or was handed to "
                  "trafilatura), the loop otherwise; 'pool forced' is the thread pool run anyway where the engine "
                  f"holds the GIL, over threads=1 (mismatches count it too). 'ceiling' is {n} processes of their own "
                  f"(`harness.bench_share`, started and warmed before the timing) extracting the pages at the same time, "
                  "each taking the next page's index from one pipe, with no page or result sent to them or back: what "
                  f"{n} cores of this machine give on these pages at best, over the loop; 'of the ceiling' is "
                  f"threads={n}'s time over it (1 would be the ceiling reached; its mismatches compare the count of "
                  "results that are not None).", "",
                  f"| engine | option set | pages | loop pages/s | threads=1 pages/s | threads={n} pages/s | "
                  f"threads=1 / loop | threads={n} / threads=1 | path | pages by workers / here | "
                  "pool forced / threads=1 | ceiling / loop | of the ceiling | mismatches |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
        for row in batch["rows"].values():
            pps = list(row["pages_per_second"].values())
            forced = row.get("forced_pool_over_threads1")
            split = "" if row.get("worker_pages") is None else f"{row['worker_pages']} / {row['here_pages']}"
            lines.append(f"| {row['engine']} | {row['option_set']} | {row['pages']} | {pps[0]} | {pps[1]} | {pps[2]} | "
                         f"{row['threads1_over_loop']} | {row[f'threads{n}_over_threads1']} | {row['path']} "
                         f"| {split} | {'' if forced is None else forced} "
                         f"| {row.get(f'shares{n}_over_loop') or ''} | {row.get(f'threads{n}_over_shares{n}') or ''} "
                         f"| {row['mismatches']} |")
    write_report_text(out_dir / f"{stem}.md", "\n".join(lines) + "\n")
