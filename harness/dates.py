"""trafila.htmldate's find_date against htmldate 1.11.0's, on every corpus page.

``python -m harness dates --mode 2.3.1|1.11.0 [--engine core|reference] [--every N]
[--bundle B ...] [--write-report]`` (run each mode in its oracle venv). Per page,
in one process: trafila's tree (the engine's ``load_html`` of the mode) and
trafilatura's (its ``load_html``), then ``find_date`` on each with the date
parameters trafilatura builds (``set_date_params``: original_date, extensive
search, max_date = today) for original_date True/False and extensive_search
True/False, url None (the canonical link is probed). Equal answers, different
ones (the first few shown), the pages where trafila raises NotNative (by reason;
trafilatura would delegate those to htmldate), beside them the date strings
trafila handed to the installed dateutil/dateparser one by one (by parser; the
calls served that way), and the time of both find_date calls. Also checks that find_date leaves trafila's tree as it found it.
``--write-report`` writes reports/dates.md and .json (dates-1.11.0.* for 1.11.0).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any, Dict, List, Optional

from .corpora import ROOT, bundle_name, bundle_paths, iter_pages
from .provenance import git_commit, portable_command, utc_now, write_report_json, write_report_text

REPORTS = ROOT / "reports"
COMBOS = [(orig, ext) for orig in (True, False) for ext in (True, False)]
SHOW = 10


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", default="2.3.1", choices=("2.3.1", "1.11.0"), help="release mode (default 2.3.1)")
    p.add_argument("--engine", default=None, help="reference | core (default: $TRAFILA_ENGINE, else core when built)")
    p.add_argument("--every", type=int, default=1, help="every Nth page of each bundle (default 1)")
    p.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    p.add_argument("--write-report", action="store_true", help="write reports/dates[-MODE].md and .json")


def _trafila_loader(mode: str, engine: str) -> Any:
    "The engine's load_html for the mode (the tree trafila's metadata step gets)."
    from trafila import _backend

    if mode == "2.3.1":
        from trafila.v2_3_1.utils import load_html
    else:
        from trafila.v1_11_0.utils import load_html
    if engine == "reference":
        return lambda src: _backend.run_with(_backend.reference(), load_html, src)
    from trafila import _core

    backend = _backend.core_backend(_core)
    return lambda src: _backend.run_with(backend, load_html, src)


def _engine_name(engine: Optional[str]) -> str:
    import os

    name = engine or os.environ.get("TRAFILA_ENGINE") or "core"
    if name == "core":
        try:
            from trafila import _core  # noqa: F401
        except ImportError:
            return "reference"
    return name


def _snapshot(tree: Any) -> str:
    from trafila.html.serialize import tostring

    return tostring(tree, method="xml", encoding=str)


def measure(mode: str, engine: str, bundles: Optional[List[str]], every: int) -> Dict[str, Any]:
    import htmldate
    import trafilatura
    from trafilatura.settings import set_date_params
    from trafilatura.utils import load_html as t_load_html

    from trafila import _backend
    from trafila._engine import NotNative
    from trafila.htmldate import find_date as our_find_date
    from trafila.htmldate.extractors import handover_counts

    if trafilatura.__version__ != mode:
        raise SystemExit(f"trafilatura {trafilatura.__version__} is installed, not {mode}: run in the {mode} venv")
    load = _trafila_loader(mode, engine)
    if engine == "reference":
        backend = _backend.reference()
    else:
        from trafila import _core

        backend = _backend.core_backend(_core)
    params = {ext: set_date_params(ext) for ext in (True, False)}
    pages = calls = equal = 0
    diffs: List[Dict[str, Any]] = []
    n_diff = 0
    not_native: Counter = Counter()
    not_native_pages = 0
    handed_over: Counter = Counter()
    handover_calls = 0
    load_skips: Counter = Counter()
    mutated = 0
    raised: Counter = Counter()
    t_ours = t_theirs = 0.0
    used: List[str] = []
    for path in bundle_paths(bundles):
        if not path.exists():
            continue
        name = bundle_name(path)
        used.append(name)
        for page in iter_pages(path):
            if page.index % every:
                continue
            src = page.html if page.html is not None else page.raw
            ttree = t_load_html(src)
            try:
                otree = load(src)
            except NotNative as err:
                load_skips[err.reason] += 1
                continue
            if (ttree is None) != (otree is None):
                n_diff += 1
                if len(diffs) < SHOW:
                    diffs.append({"page": f"{name}#{page.index}", "url": page.url, "params": "load_html",
                                  "ours": repr(otree), "theirs": repr(ttree)})
                continue
            if ttree is None:
                continue
            pages += 1
            before = _snapshot(otree)
            page_nn = False
            for orig, ext in COMBOS:
                kwargs = dict(params[ext], original_date=orig)
                calls += 1
                start = time.perf_counter()
                try:
                    theirs = htmldate.find_date(ttree, **kwargs)
                except Exception as err:  # noqa: BLE001 - htmldate's exceptions are answers too
                    theirs = f"raises {type(err).__name__}"
                t_theirs += time.perf_counter() - start
                start = time.perf_counter()
                handed_before = handover_counts()
                try:
                    ours = _backend.run_with(backend, our_find_date, otree, **kwargs)
                except NotNative as err:
                    not_native[err.reason] += 1
                    page_nn = True
                    continue
                except Exception as err:  # noqa: BLE001
                    ours = f"raises {type(err).__name__}"
                finally:
                    t_ours += time.perf_counter() - start
                    handed = Counter(handover_counts())
                    handed.subtract(handed_before)
                    handed_over.update(+handed)
                    handover_calls += bool(+handed)
                if isinstance(theirs, str) and theirs.startswith("raises "):
                    raised[theirs] += 1
                if ours == theirs:
                    equal += 1
                else:
                    n_diff += 1
                    if len(diffs) < SHOW:
                        diffs.append({"page": f"{name}#{page.index}", "url": page.url,
                                      "params": f"original_date={orig} extensive_search={ext}",
                                      "ours": ours, "theirs": theirs})
            not_native_pages += page_nn
            if _snapshot(otree) != before:
                mutated += 1
    return {
        "mode": mode, "engine": engine, "every": every, "bundles": used, "pages": pages, "calls": calls,
        "equal": equal, "different": n_diff, "diffs": diffs, "not_native_calls": sum(not_native.values()),
        "not_native_pages": not_native_pages, "not_native": dict(not_native.most_common()),
        "handover_strings": sum(handed_over.values()), "handover_calls": handover_calls,
        "handed_over": dict(handed_over.most_common()),
        "load_not_native": dict(load_skips), "htmldate_raised": dict(raised), "trees_mutated": mutated,
        "seconds_ours": round(t_ours, 2), "seconds_theirs": round(t_theirs, 2),
        "max_date": params[True]["max_date"],
    }


def render(result: Dict[str, Any]) -> str:
    lines = [
        f"# find_date: trafila.htmldate against htmldate (trafilatura {result['mode']})",
        "",
        f"Written by `{result['command']}` at {result['when']} (commit {result['commit']}).",
        f"Engine: {result['engine']}; every {result['every']} page(s) of {', '.join(result['bundles'])}; "
        f"max_date {result['max_date']}; four calls a page (original_date x extensive_search), url None.",
        "",
        "| pages | calls | equal | different | NotNative calls | NotNative pages | per-string hand-overs "
        "(calls) | trees mutated | ours (s) | htmldate (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| {result['pages']} | {result['calls']} | {result['equal']} | {result['different']} | "
        f"{result['not_native_calls']} | {result['not_native_pages']} | {result['handover_strings']} "
        f"({result['handover_calls']}) | {result['trees_mutated']} | {result['seconds_ours']} | "
        f"{result['seconds_theirs']} |",
        "",
        "NotNative by reason (calls): " + (", ".join(f"{k}: {v}" for k, v in result["not_native"].items()) or "none"),
        "",
        "Date strings handed to the installed parser one by one (a call's other strings stay trafila's): "
        + (", ".join(f"{k}: {v}" for k, v in result["handed_over"].items()) or "none"),
        "",
    ]
    if result["htmldate_raised"]:
        lines += ["Calls where htmldate raises (trafila must raise the same): "
                  + ", ".join(f"{k}: {v}" for k, v in result["htmldate_raised"].items()), ""]
    if result["load_not_native"]:
        lines += ["Pages trafila's load_html does not parse natively: "
                  + ", ".join(f"{k}: {v}" for k, v in result["load_not_native"].items()), ""]
    if result["diffs"]:
        lines += ["First differences:", "", "| page | url | params | ours | htmldate |", "|---|---|---|---|---|"]
        lines += [f"| {d['page']} | {d['url']} | {d['params']} | {d['ours']} | {d['theirs']} |" for d in result["diffs"]]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace, argv: List[str]) -> int:
    engine = _engine_name(args.engine)
    start = time.perf_counter()
    result = measure(args.mode, engine, args.bundles, args.every)
    result.update(command=portable_command(["python", "-m", "harness", "dates", *argv]), when=utc_now(),
                  commit=git_commit(), wall=round(time.perf_counter() - start, 1))
    text = render(result)
    print(text)
    if args.write_report:
        stem = "dates" if args.mode == "2.3.1" else f"dates-{args.mode}"
        write_report_text(REPORTS / f"{stem}.md", text)
        write_report_json(REPORTS / f"{stem}.json", result, sort_keys=True)
    return 1 if result["different"] else 0


if __name__ == "__main__":
    from .standalone import standalone

    sys.exit(standalone(sys.modules[__name__]))
