"""Reliability of the engines (issue 19): threads and interrupts.

``python -m harness reliability threads [--threads 8] [--pages 300] [--repeat 8]``
    for every built engine and every mode it runs: (1) without deduplication,
    the results of ``--threads`` threads extracting dev pages and generated
    articles equal the sequential ones, page by page; (2) ``--threads``
    threads extracting the same calls (pages repeated ``--repeat`` times)
    through one shared ``LRUCache`` (2.3.1; 1.11.0's extract takes no cache)
    and through the module cache (``deduplicate=True``) end with the cache a
    sequential run of the same calls ends with, and the multiset of results
    of the sequential run. Pages are generated articles whose paragraphs are
    their own (no key shared between pages), so every order of the calls that
    keeps each page's calls in one thread gives the same counts; the shared
    run also has calls of one page in several threads at once.
    ``reports/threads.md``.

``python -m harness reliability interrupt [--mb 100] [--delay 1.0]``
    a child process extracts (or only parses) a page of ``--mb`` MB; the
    parent sends SIGINT after ``--delay`` seconds and measures when the
    child's KeyboardInterrupt handler runs (the child writes the monotonic
    clock at the signal's arrival and at the handler). ``reports/interrupts.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, List, Optional

from .provenance import write_report_json, write_report_text
from .standalone import standalone

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"


# --------------------------------------------------------------------------- threads


def run_threaded(fn: Callable[[Any], Any], calls: List[Any], threads: int,
                 group: Optional[Callable[[Any], Any]] = None) -> List[Any]:
    """``fn`` over ``calls`` in ``threads`` threads (results in call order; an exception is a result, its
    type name). Without ``group`` each thread takes the next call from the shared list, so calls of one
    page can run at once; with it, the calls of a group (``group(call)``, say the page) all go to one
    thread, in list order, the groups dealt round robin to the threads."""
    results: List[Any] = [None] * len(calls)
    lock = threading.Lock()
    nxt = [0]
    start = threading.Barrier(threads)
    queues: List[List[int]] = [[] for _ in range(threads)]
    if group is not None:
        owner: dict = {}
        for i, c in enumerate(calls):
            g = group(c)
            if g not in owner:
                owner[g] = len(owner) % threads
            queues[owner[g]].append(i)

    def one(i: int) -> None:
        try:
            results[i] = fn(calls[i])
        except Exception as exc:  # noqa: BLE001 - the exception is the outcome
            results[i] = f"raise {type(exc).__name__}"

    def worker(k: int) -> None:
        start.wait()
        if group is not None:
            for i in queues[k]:
                one(i)
            return
        while True:
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if i >= len(calls):
                return
            one(i)

    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return results


def run_sequential(fn: Callable[[Any], Any], calls: List[Any]) -> List[Any]:
    out = []
    for c in calls:
        try:
            out.append(fn(c))
        except Exception as exc:  # noqa: BLE001
            out.append(f"raise {type(exc).__name__}")
    return out


def distinct_articles(n: int, seed: int = 19) -> List[str]:
    """Generated articles whose paragraphs belong to them alone (a page number in every paragraph)."""
    from . import strategies

    rng = random.Random(seed)
    pages = []
    for i in range(n):
        body = "".join(f"<p>Page {i} paragraph {k}: {strategies._sentence(strategies.RandomChooser(rng))} "
                       f"{strategies._sentence(strategies.RandomChooser(rng))}</p>" for k in range(rng.randint(3, 8)))
        pages.append(f"<html><head><title>Page {i}</title></head><body><nav><a href='/'>Home</a></nav>"
                     f"<article><h1>Title {i}</h1>{body}</article><footer>Footer {i}</footer></body></html>")
    return pages


def dev_pages(n: int) -> List[Any]:
    from .corpora import bundle_paths, iter_pages

    pages: List[Any] = []
    for path in bundle_paths(None):
        if path.exists():
            for i, p in enumerate(iter_pages(path)):
                if i % 7 == 0 and "str" in p.forms():
                    pages.append(p.input("str"))
                if len(pages) >= n:
                    return pages
    return pages


def _cache_state(cache: Any) -> dict:
    return dict(cache.cache)


def threads_report(threads: int = 8, n_pages: int = 300, repeat: int = 8, n_dedup_pages: int = 24) -> dict:
    import trafila

    rows = []
    nodedup_pages = dev_pages(n_pages) + distinct_articles(n_pages // 3, seed=7)
    dedup_pages = distinct_articles(n_dedup_pages)
    for name in trafila.engines_built():
        eng = trafila.engine(name)
        for mode in eng.modes:
            impl = eng.implementation(mode)
            for set_name, opts in (("default", {}), ("fast", {"fast": True}) if mode == "2.3.1" else
                                   ("no_fallback", {"no_fallback": True})):
                def fn(html, opts=opts, mode=mode):
                    return eng.extract(html, compat=mode, **opts)

                t0 = time.perf_counter()
                seq = run_sequential(fn, nodedup_pages)
                t1 = time.perf_counter()
                thr = run_threaded(fn, nodedup_pages, threads)
                t2 = time.perf_counter()
                rows.append({"engine": name, "mode": mode, "check": f"no dedup ({set_name})", "calls": len(seq),
                             "equal": sum(a == b for a, b in zip(seq, thr)),
                             "ok": seq == thr, "sequential_s": round(t1 - t0, 1), "threaded_s": round(t2 - t1, 1)})
            calls = [p for p in dedup_pages for _ in range(repeat)]
            random.Random(5).shuffle(calls)
            caches = [("module cache (deduplicate=True)", True)]
            if mode == "2.3.1":
                caches.insert(0, ("shared LRUCache", "lru"))
            for label, kind in caches:
                for order in ("pages in one thread each", "shared queue"):
                    outcomes = []
                    for run in ("sequential", "threaded"):
                        if kind == "lru":
                            cache = eng.LRUCache(maxsize=1 << 16, mode=mode)
                            dedup: Any = cache
                        else:
                            trafila.reset_caches()
                            cache = impl.LRU_TEST
                            dedup = True

                        def fn(html, dedup=dedup, mode=mode):
                            return eng.extract(html, compat=mode, deduplicate=dedup)

                        if run == "sequential":
                            res = run_sequential(fn, calls)
                        else:
                            res = run_threaded(fn, calls, threads, group=(lambda c: c) if order.startswith("pages") else None)
                        outcomes.append((res, _cache_state(cache)))
                    (seq, seq_cache), (thr, thr_cache) = outcomes
                    same_counts = seq_cache == thr_cache
                    exact = order.startswith("pages")
                    same_results = seq == thr if exact else sorted(map(repr, seq)) == sorted(map(repr, thr))
                    rows.append({"engine": name, "mode": mode, "check": f"{label}, {order}", "calls": len(calls),
                                 "equal": sum(a == b for a, b in zip(seq, thr)), "exact": exact,
                                 "ok": (same_counts and same_results) if exact else
                                 not any(isinstance(r, str) and r.startswith("raise ") for r in thr),
                                 "same_counts": same_counts, "keys": len(seq_cache),
                                 "keys_differing": sum(seq_cache.get(k) != thr_cache.get(k) for k in set(seq_cache) | set(thr_cache)),
                                 "same_results": same_results, "raised": sum(isinstance(r, str) and r.startswith("raise ") for r in thr)})
            trafila.reset_caches()
    return {"threads": threads, "rows": rows}


def write_threads_report(res: dict, command: str) -> None:
    import datetime as dt
    import platform

    from .parity import _git_commit

    REPORTS.mkdir(exist_ok=True)
    res = dict(res, date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit=_git_commit(),
               python=platform.python_version(), command=command)
    write_report_json(REPORTS / "threads.json", res)
    lines = ["# Threads: one shared cache, the module cache, no cache", "",
             "Written by `python -m harness reliability threads` (never by hand). "
             f"{res['threads']} threads make the calls (see Checks below for how they share them); the sequential run "
             "makes the same calls in list order; with a cache, both runs start from an empty one.",
             "", f"- run: {res['date']}, commit {res['commit']}, Python {res['python']}, `{command}`", "",
             "| engine | mode | check | calls | results equal to the sequential run's | cache equal | keys differing "
             "| exceptions | ok |", "|---|---|---|---:|---:|---|---:|---:|---|"]
    for r in res["rows"]:
        lines.append(f"| {r['engine']} | {r['mode']} | {r['check']} | {r['calls']} | {r['equal']} "
                     f"| {r.get('same_counts', '')} | {r.get('keys_differing', '')} | {r.get('raised', 0)} "
                     f"| {'yes' if r['ok'] else '**no**'} |")
    lines += ["", "Checks: *no dedup*: each call's result equals the sequential one. *pages in one thread each*: the "
              "calls of a page go to one thread in list order (the pages share no paragraph), so the threaded run is "
              "some sequential order of the calls: the cache and each call's result must equal the sequential run's. "
              "*shared queue*: the calls of one page run in several threads at once; a call then sees some of its "
              "paragraphs counted by a concurrent call of the same page and not others, an outcome no sequential "
              "order gives (trafilatura does the same), so only the absence of exceptions and crashes is required "
              "there and the cache's difference is shown.",
              "", "1.11.0's `duplicate_test` reads a count and writes count + 1 in two calls (as trafilatura 1.11.0 "
              "does; its LRUCache locks each call, not the pair): a thread switch between the two can lose an "
              "increment even in separate pages' calls only if they share a key; the pages here share none."]
    write_report_text(REPORTS / "threads.md", "\n".join(lines) + "\n")


# --------------------------------------------------------------------------- interrupts

_CHILD = r"""
import os, signal, sys, time, json
sys.setswitchinterval(0.005)
kind, mb, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
T0 = time.monotonic()
import trafila
from trafila import _engine
engine, what = kind.split(":")
eng = trafila.engine(engine)
para = "<p>" + "Some words of a long paragraph, again and again. " * 20 + "</p>\n"
if what.startswith("deep"):
    html = "<html><body>" + "<div>" * int(mb * 1e6 / 5) + "x" + "</body></html>"
else:
    html = "<html><body><article>" + para * int(mb * 1e6 / len(para)) + "</article></body></html>"
parser = _engine.parser(engine)
gaps = []
if os.environ.get("TRAFILA_GAPS"):
    # a watcher thread: a long stretch without the GIL switching (a C call that holds it) shows as a gap
    # between its wake-ups; the main thread's stack just after the gap names the call site
    import threading, traceback
    main_id = threading.get_ident()
    def watch():
        last = time.monotonic()
        while True:
            time.sleep(0.02)
            now = time.monotonic()
            if now - last > 0.3:
                f = sys._current_frames().get(main_id)
                stack = [f"{fr.filename.rsplit('/', 2)[-1]}:{fr.lineno}:{fr.name}" for fr in traceback.extract_stack(f)[-4:]] if f else []
                gaps.append({"at": round(last - T0, 2), "seconds": round(now - last, 2), "stack": stack})
            last = now
    threading.Thread(target=watch, daemon=True).start()
ccalls = {}
if os.environ.get("TRAFILA_CCALLS") and engine == "core":
    # time every call the stages make into the core's module (the accelerators, through trafila._backend)
    from trafila import _backend
    class _Timed:
        def __init__(self, mod):
            self._mod = mod
        def __getattr__(self, name):
            obj = getattr(self._mod, name)
            if not callable(obj) or isinstance(obj, type):
                return obj
            def timed(*a, **k):
                t = time.perf_counter()
                try:
                    return obj(*a, **k)
                finally:
                    d = time.perf_counter() - t
                    n, m = ccalls.get(name, (0, 0.0))
                    ccalls[name] = (n + 1, max(m, d))
            return timed
    eng.extract("<html><body><p>warm up</p></body></html>")  # the core backend is made on first use
    if _backend._CORE is not None:
        _backend._CORE = _Timed(_backend._CORE)
arrived = []
def on_sigint(signum, frame):
    arrived.append(time.monotonic())
    raise KeyboardInterrupt
signal.signal(signal.SIGINT, on_sigint)
# the C-level arrival: a second handler thread cannot run Python, so the parent's clock is the reference
sys.stdout.write("ready %r\n" % time.monotonic()); sys.stdout.flush()
t0 = time.monotonic()
try:
    if what.endswith("parse"):
        parser.parse_document(html)
    else:
        eng.extract(html)
    done = time.monotonic()
    if ccalls and what.endswith("extract"):
        t = time.perf_counter(); parser.parse_document(html); ccalls["parse_document (whole page)"] = (1, time.perf_counter() - t)
    res = {"finished": True, "seconds": done - t0, "gaps": gaps, "ccalls": ccalls}
except KeyboardInterrupt:
    res = {"finished": False, "handler_at": arrived[0] if arrived else None, "caught_at": time.monotonic(),
           "started_at": t0, "gaps": gaps}
with open(out, "w") as fh:
    json.dump(res, fh)
"""


def interrupt_once(kind: str, mb: float, delay: float, timeout: float = 600.0, diagnose: bool = False) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        env = dict(os.environ)
        if diagnose:
            env.update(TRAFILA_GAPS="1", TRAFILA_CCALLS="1")
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, kind, str(mb), out], stdout=subprocess.PIPE, text=True,
                                env=env, cwd=ROOT)
        line = proc.stdout.readline()
        if not line.startswith("ready"):
            proc.kill()
            proc.wait()
            proc.stdout.close()
            return {"kind": kind, "error": "child did not start"}
        sent = time.monotonic()
        try:
            proc.wait(timeout=delay)  # the work may end before the delay: then no signal is sent
        except subprocess.TimeoutExpired:
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                proc.stdout.close()
                return {"kind": kind, "mb": mb, "error": "no exit"}
        ended = time.monotonic()
        proc.stdout.close()
        res = json.loads(Path(out).read_text()) if os.path.exists(out) else {"error": f"rc {proc.returncode}"}
    # monotonic clocks are one system clock (CLOCK_MONOTONIC) in both processes
    row = {"kind": kind, "mb": mb, "delay": delay, "exit_after_signal_s": round(ended - sent, 3)}
    if res.get("gaps"):
        row["gaps"] = res["gaps"]
    if res.get("ccalls"):
        row["ccalls"] = {k: [n, round(m, 3)] for k, (n, m) in sorted(res["ccalls"].items(), key=lambda kv: -kv[1][1])}
    if res.get("finished"):
        row.update(finished_before_signal=True, run_s=round(res["seconds"], 3))
    elif "caught_at" in res:
        row.update(handler_after_signal_s=round(res["handler_at"] - sent, 3) if res.get("handler_at") else None,
                   caught_after_signal_s=round(res["caught_at"] - sent, 3),
                   ran_before_signal_s=round(sent - res["started_at"], 3))
    else:
        row.update(res)
    return row


#: (kind, delays): the core's parse takes well under a second on 100 MB, so its delays are short
PLAN = [("core:parse", [0.02, 0.05, 0.1, 0.15]), ("core:extract", [0.25 + 0.5 * k for k in range(16)]),
        ("reference:parse", [0.3, 0.8]), ("reference:extract", [1.0 + 2.0 * k for k in range(9)])]


def interrupts_report(mb: float, plan, diagnose: bool = True) -> dict:
    import trafila

    rows = []
    built = trafila.engines_built()
    for kind, delays in plan:
        if kind.split(":")[0] not in built:
            continue
        for delay in delays:
            rows.append(interrupt_once(kind, mb, delay))
            print(json.dumps(rows[-1]), flush=True)
    diags = []
    for name in built if diagnose else ():
        diags.append(interrupt_once(f"{name}:extract", mb, 600.0, diagnose=True, timeout=900))
        print(json.dumps(diags[-1]), flush=True)
    return {"mb": mb, "rows": rows, "diagnoses": diags}


def write_interrupts_report(res: dict, command: str) -> None:
    import datetime as dt
    import platform

    from .parity import _git_commit

    res = dict(res, date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit=_git_commit(),
               python=platform.python_version(), command=command)
    write_report_json(REPORTS / "interrupts.json", res)
    lines = ["# Interrupts: SIGINT during a large extraction", "",
             "Written by `python -m harness reliability interrupt` (never by hand). A child builds a page in memory "
             "(paragraphs, or for `deep` nested `<div>`s), then parses or extracts it; the parent sends SIGINT after "
             "the delay and the child records when its Python SIGINT handler ran (the KeyboardInterrupt) on the same "
             "monotonic clock. `handler after signal` is the latency asked for (≤ 1 s).", "",
             f"- run: {res['date']}, commit {res['commit']}, Python {res['python']}, `{command}`", "",
             "| engine:work | MB | delay s | handler after signal s | KeyboardInterrupt caught after s | process exit after s | ok |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for r in res["rows"]:
        h = r.get("handler_after_signal_s")
        ok = "finished first" if r.get("finished_before_signal") else ("yes" if h is not None and h <= 1.0 else "**no**")
        lines.append(f"| {r['kind']} | {r['mb']} | {r['delay']} | {h if h is not None else ''} "
                     f"| {r.get('caught_after_signal_s', '')} | {r.get('exit_after_signal_s', '')} | {ok} |")
    worst = {}
    for r in res["rows"]:
        h = r.get("handler_after_signal_s")
        if h is not None:
            worst[r["kind"]] = max(worst.get(r["kind"], 0.0), h)
    lines += ["", "Longest latency per kind: " + ", ".join(f"{k} {v} s" for k, v in worst.items()) + "."]
    for d in res.get("diagnoses") or []:
        engine = d["kind"].split(":")[0]
        lines += ["", f"## Where the time without a signal check goes ({engine}, the whole extraction, no signal)", "",
                  f"One extraction of the {res['mb']} MB page ({d.get('run_s')} s) with a watcher thread waking every "
                  "20 ms: a wake-up later than 0.3 s means the main thread held the GIL in one C call (the core's "
                  "parser and serializer release it, so they do not show there); the main thread's stack just after "
                  "names the call site."
                  + (" Every call the stages make into the core's module is timed too (the accelerators, through "
                     "`trafila._backend`; the whole-page `parse_document` timed after the extraction)." if d.get("ccalls") else "")]
        if d.get("ccalls"):
            lines += ["", "| core call | calls | longest s |", "|---|---:|---:|"]
            for name, (n, m) in list(d["ccalls"].items())[:12]:
                lines.append(f"| `{name}` | {n} | {m} |")
        lines += ["", "| GIL held from s | for s | main thread's stack just after (innermost last) |", "|---:|---:|---|"]
        for g in d.get("gaps") or []:
            lines.append(f"| {g['at']} | {g['seconds']} | {' → '.join(g['stack'])} |")
        if not d.get("gaps"):
            lines.append("| – | – | no stretch over 0.3 s |")
    write_report_text(REPORTS / "interrupts.md", "\n".join(lines) + "\n")


# --------------------------------------------------------------------------- command line


def add_arguments(ap: argparse.ArgumentParser) -> None:
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("threads", help="8 threads against a sequential run (reports/threads.md)")
    p.add_argument("--threads", type=int, default=8)
    p.add_argument("--pages", type=int, default=300, help="dev pages for the no-dedup check")
    p.add_argument("--repeat", type=int, default=8, help="calls of each page in the dedup checks")
    p.add_argument("--dedup-pages", type=int, default=24)
    p.add_argument("--no-report", action="store_true")
    p = sub.add_parser("interrupt", help="SIGINT latency during a large extraction (reports/interrupts.md)")
    p.add_argument("--mb", type=float, default=100.0)
    p.add_argument("--delay", type=float, action="append", dest="delays")
    p.add_argument("--kind", action="append", dest="kinds",
                   help="engine:parse | engine:extract | engine:deep-parse (default: the PLAN, every built engine)")
    p.add_argument("--no-diagnose", action="store_true", help="skip the timed extraction (C calls, GIL stretches)")
    p.add_argument("--no-report", action="store_true")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    command = "python -m harness reliability " + " ".join(argv or [])
    if args.what == "threads":
        res = threads_report(args.threads, args.pages, args.repeat, args.dedup_pages)
        for r in res["rows"]:
            print(json.dumps(r))
        if not args.no_report:
            write_threads_report(res, command)
        return 0 if all(r["ok"] for r in res["rows"]) else 1
    plan = [(k, args.delays or [1.0]) for k in args.kinds] if args.kinds else PLAN
    res = interrupts_report(args.mb, plan, diagnose=not args.no_diagnose)
    if not args.no_report:
        write_interrupts_report(res, command)
    return 0


if __name__ == "__main__":
    sys.exit(standalone(sys.modules[__name__]))
