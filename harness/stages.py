"""Where an engine's extraction spends its time, stage by stage.

``python -m harness stages [--engine core] [--mode 2.3.1] [--set default] [--every 10]``
runs ``trafila.engine(NAME).extract`` over every Nth page with timers around
the mode's stage functions (the parse in ``load_html``, tree cleaning and
pruning, tag conversion, the main and comments extractors, the readability
and jusText fallbacks, the baseline, the text output, deduplication) and
reports each stage's *exclusive* share of the time: a stage called inside
another is counted in its own row only. What is not inside any timed stage is
"orchestration" (the sequence itself, option handling, copies of the tree).

The timers are wrappers installed on the stage functions for the run (every
module that imported a stage by name gets the wrapper) and removed after; they
cost about a microsecond per call, which the few hundred stage calls per page
do not notice. Results go to ``reports/stages.md`` / ``.json`` (2.3.1) and
``reports/stages-1.11.0.md`` / ``.json``.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .corpora import ROOT, bundle_paths, iter_pages
from .matrix import option_sets
from .provenance import write_report_json, write_report_text
from .standalone import standalone

REPORTS_DIR = ROOT / "reports"

#: (stage, module, function name): the 2.3.1 functions each stage is made of
STAGES: Tuple[Tuple[str, str, str], ...] = (
    # the core's GIL-free sequence: the whole sequence and extract()'s txt output in one C call
    # (cython_core/nogil_sequence.pxi); the pages it hands back then run the Python stages below
    ("C sequence", "trafila.v2_3_1.core", "_native_sequence"),
    ("parse", "trafila.v2_3_1.utils", "load_html"),
    ("cleaning", "trafila.v2_3_1.htmlprocessing", "tree_cleaning"),
    ("pruning", "trafila.v2_3_1.htmlprocessing", "prune_unwanted_nodes"),
    ("conversion", "trafila.v2_3_1.htmlprocessing", "convert_tags"),
    ("extraction", "trafila.v2_3_1.main_extractor", "extract_content"),
    ("comments", "trafila.v2_3_1.main_extractor", "extract_comments"),
    ("readability", "trafila.readability_2_3_1", "try_readability"),
    ("justext", "trafila.v2_3_1.external", "try_justext"),
    ("fallback comparison", "trafila.v2_3_1.external", "compare_extraction"),
    ("baseline", "trafila.v2_3_1.baseline", "baseline"),
    ("baseline", "trafila.v2_3_1.baseline", "html2txt"),
    ("output", "trafila.v2_3_1.xml", "xmltotxt"),
    ("output", "trafila.v2_3_1.utils", "normalize_unicode"),
    ("deduplication", "trafila.v2_3_1.deduplication", "duplicate_test"),
)

#: the same stages in the 1.11.0 port
STAGES_1_11_0: Tuple[Tuple[str, str, str], ...] = (
    ("parse", "trafila.v1_11_0.utils", "load_html"),
    ("cleaning", "trafila.v1_11_0.htmlprocessing", "tree_cleaning"),
    ("pruning", "trafila.v1_11_0.htmlprocessing", "prune_unwanted_nodes"),
    ("conversion", "trafila.v1_11_0.htmlprocessing", "convert_tags"),
    ("extraction", "trafila.v1_11_0.main_extractor", "extract_content"),
    ("comments", "trafila.v1_11_0.main_extractor", "extract_comments"),
    ("readability", "trafila.v1_11_0.external", "try_readability"),
    ("justext", "trafila.v1_11_0.external", "try_justext"),
    ("fallback comparison", "trafila.v1_11_0.external", "compare_extraction"),
    ("baseline", "trafila.v1_11_0.baseline", "baseline"),
    ("output", "trafila.v1_11_0.xml", "xmltotxt"),
    ("output", "trafila.v1_11_0.utils", "normalize_unicode"),
    ("deduplication", "trafila.v1_11_0.deduplication", "duplicate_test"),
)

STAGES_OF = {"2.3.1": STAGES, "1.11.0": STAGES_1_11_0}

ORCHESTRATION = "orchestration"
#: pages extracted untimed first, so that lazily built tables are not counted
WARM_PAGES = 20


class StageClock:
    """Exclusive time per stage: entering a stage pauses the one it runs in."""

    def __init__(self) -> None:
        self.totals: Dict[str, float] = {}
        self.calls: Dict[str, int] = {}
        self._stack: List[List[Any]] = []  # [stage, started, time of inner stages]

    def wrap(self, stage: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [stage, time.perf_counter(), 0.0]
            self._stack.append(frame)
            try:
                return function(*args, **kwargs)
            finally:
                spent = time.perf_counter() - frame[1]
                self._stack.pop()
                self.totals[stage] = self.totals.get(stage, 0.0) + spent - frame[2]
                self.calls[stage] = self.calls.get(stage, 0) + 1
                if self._stack:
                    self._stack[-1][2] += spent

        timed.__wrapped_stage__ = function  # type: ignore[attr-defined]
        return timed


def install(clock: StageClock, mode: str = "2.3.1") -> List[Tuple[Any, str, Any]]:
    """Wrap every stage function of ``mode`` wherever it is bound; the undo list."""
    undo: List[Tuple[Any, str, Any]] = []
    originals: Dict[int, Callable[..., Any]] = {}
    for stage, module_name, name in STAGES_OF[mode]:
        fn = getattr(importlib.import_module(module_name), name)
        originals[id(fn)] = clock.wrap(stage, fn)
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("trafila.") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            wrapped = originals.get(id(value))
            if wrapped is not None and callable(value):
                undo.append((module, attr, value))
                setattr(module, attr, wrapped)
    return undo


def uninstall(undo: List[Tuple[Any, str, Any]]) -> None:
    for module, attr, value in reversed(undo):
        setattr(module, attr, value)


def measure(engine: str = "core", sets: Optional[List[str]] = None, bundles: Optional[List[str]] = None,
        every: int = 10, log: Callable[[str], None] = print, mode: str = "2.3.1") -> dict:
    import trafila

    eng = trafila.engine(engine)
    if mode not in eng.modes:
        raise SystemExit(f"engine {engine!r} does not run mode {mode} here")
    rows: Dict[str, dict] = {}
    for opt in option_sets(mode, sets or ["default"]):
        if opt.function != "extract":
            continue
        options = dict(opt.options, compat=mode)
        clock = StageClock()
        # lazy tables (the jusText stoplists, compiled patterns) are built by the first calls: untimed
        warmed = 0
        for path in bundle_paths(bundles):
            if warmed >= WARM_PAGES or not path.exists():
                continue
            for page in iter_pages(path):
                if warmed >= WARM_PAGES:
                    break
                if "str" in page.forms():
                    try:
                        eng.extract(page.input("str"), **options)
                    except Exception:  # noqa: BLE001
                        pass
                    warmed += 1
        pages, total = 0, 0.0
        undo = install(clock, mode)
        try:
            for path in bundle_paths(bundles):
                if not path.exists():
                    continue
                for page in iter_pages(path):
                    if page.index % every or "str" not in page.forms():
                        continue
                    html = page.input("str")
                    t0 = time.perf_counter()
                    try:
                        eng.extract(html, **options)
                    except Exception:  # noqa: BLE001 - a failing page still spent its time
                        pass
                    total += time.perf_counter() - t0
                    pages += 1
        finally:
            uninstall(undo)
        inside = sum(clock.totals.values())
        stages = {name: {"seconds": round(secs, 4), "share": round(secs / total, 4) if total else 0.0,
                         "calls": clock.calls.get(name, 0)}
                  for name, secs in sorted(clock.totals.items(), key=lambda kv: -kv[1])}
        stages[ORCHESTRATION] = {"seconds": round(total - inside, 4),
                                 "share": round((total - inside) / total, 4) if total else 0.0, "calls": pages}
        rows[opt.name] = {"pages": pages, "seconds": round(total, 3),
                          "ms_per_page": round(1000 * total / pages, 3) if pages else None, "stages": stages}
        log(f"{opt.name}: {pages} pages, {total:.2f} s; " + ", ".join(
            f"{n} {100 * s['share']:.0f}%" for n, s in stages.items()))
    return {"engine": engine, "mode": mode, "every": every, "sets": rows}


def write_report(result: dict, command: str, out_dir: Path = REPORTS_DIR) -> None:
    from .provenance import stamped

    result = stamped(result, command)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = "stages" if result["mode"] == "2.3.1" else f"stages-{result['mode']}"
    write_report_json(out_dir / f"{stem}.json", result)
    lines = ["# Where the extraction's time goes, by stage", "",
             "Written by `python -m harness stages` (never by hand). Exclusive time per stage (a stage called "
             "inside another counts in its own row); orchestration is the rest of each call. One thread; "
             "shares, not seconds, are what carry over between machines. 'C sequence' (2.3.1, the "
             "core) is the whole sequence with extract()'s txt output in one C call without the GIL, "
             "on the pages and option sets it runs; the other rows are the Python stages of the rest "
             "(the pages it hands back, the option sets it does not run).", "",
             f"- run: {result['date']}, commit {result['commit']}, Python {result['python']}, `{command}`",
             f"- engine {result['engine']}, mode {result['mode']}, str input, every {result['every']}th page", ""]
    for name, row in result["sets"].items():
        lines += [f"## {name}: {row['pages']} pages, {row['ms_per_page']} ms per page", "",
                  "| stage | share | seconds | calls |", "|---|---:|---:|---:|"]
        for stage, s in row["stages"].items():
            lines.append(f"| {stage} | {100 * s['share']:.1f}% | {s['seconds']} | {s['calls']} |")
        lines.append("")
    write_report_text(out_dir / f"{stem}.md", "\n".join(lines))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", default="core", help="reference | core (default core)")
    p.add_argument("--mode", default="2.3.1", choices=("2.3.1", "1.11.0"), help="release mode (default 2.3.1)")
    p.add_argument("--set", action="append", dest="sets", help="option set (repeatable; extract sets only); default: default")
    p.add_argument("--every", type=int, default=10, help="every Nth page of each bundle (default 10)")
    p.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    p.add_argument("--no-report", action="store_true", help="do not write the report (reports/stages[-MODE].md)")


def run(args: argparse.Namespace, argv: List[str]) -> int:
    result = measure(args.engine, args.sets, args.bundles, args.every, mode=args.mode)
    if not args.no_report:
        write_report(result, "python -m harness stages " + " ".join(argv))
    return 0


if __name__ == "__main__":
    sys.exit(standalone(sys.modules[__name__]))
