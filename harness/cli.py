"""Command line of the harness: oracle, parity, tree, minimise, replay, make-embedded."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional


def _add_corpus_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    p.add_argument("--embedded", action="store_true", default=None, help="use the committed embedded corpus")


#: subcommands whose own modules parse their arguments
DELEGATED = {
    "fuzz": ("harness.fuzz", "live differential fuzzing (tree: parser vs lxml; text: candidate vs trafilatura)"),
    "minimise": ("harness.minimise", "delta-debug a page while a difference persists; writes repros/"),
    "replay": ("harness.replay.cli", "record trafilatura's own test suite and replay it through a candidate"),
    "selectors": ("harness.selectors", "the hand-translated XPaths against lxml's on every element (reports/selectors.md)"),
}


def main(argv: Optional[List[str]] = None) -> int:
    argv_list = list(sys.argv[1:] if argv is None else argv)
    if argv_list and argv_list[0] in DELEGATED:
        import importlib

        module = importlib.import_module(DELEGATED[argv_list[0]][0])
        return module.main(argv_list[1:]) or 0
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("oracle", help="(re)generate the oracle cache with the installed trafilatura")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--skip-existing", action="store_true", help="keep caches that are still valid")
    _add_corpus_args(p)

    p = sub.add_parser("parity", help="diff a candidate against the oracle cache; gate on the ledger")
    p.add_argument("--candidate", default="reference",
                   help="trafilatura | reference | core | module:callable | cmd:<command> | mutant:<name>")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--set", action="append", dest="sets", help="option set name (repeatable); default: the whole matrix")
    p.add_argument("--forms", default=None, help="comma-separated: str,bytes (default both)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per call before it counts as an error")
    p.add_argument("--no-report", dest="report", action="store_false", help="do not write reports/")
    p.add_argument("--merge", action="store_true",
                   help="merge into this candidate and mode's report section (bundle x set cells run again replace old ones)")
    p.add_argument("--report-dir", default=str(__import__("harness.parity", fromlist=["x"]).REPORTS_DIR))
    _add_corpus_args(p)

    p = sub.add_parser("tree", help="compare trafila's parser with lxml on every page (reports/tree.md)")
    p.add_argument("--forms", default="str,bytes")
    p.add_argument("--every", type=int, default=1, help="check every Nth page only")
    p.add_argument("--check", action="append", dest="checks", choices=["document", "fromstring", "xml"])
    p.add_argument("--no-report", dest="report", action="store_false")
    _add_corpus_args(p)

    p = sub.add_parser("bench", help="time candidates against trafilatura side by side (reports/bench.md)")
    p.add_argument("--candidate", action="append", dest="candidates", help="default: every engine that exists")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--set", action="append", dest="sets", help="default: fast and default")
    p.add_argument("--every", type=int, default=20, help="time every Nth page")
    p.add_argument("--form", default="str")
    p.add_argument("--bundle", action="append", dest="bundles")
    p.add_argument("--no-report", dest="report", action="store_false")

    for name, (_, help_text) in DELEGATED.items():
        sub.add_parser(name, help=help_text + " (see --help of that command)", add_help=False)
    p = sub.add_parser("scaling", help="parser time on pathological inputs must be linear (reports/parser-scaling.md)")
    p.add_argument("--no-report", dest="report", action="store_false")
    sub.add_parser("quick", help="CI's quick parity subset (corpora/gate.json)")
    sub.add_parser("make-embedded", help="regenerate corpora/embedded/synthetic.jsonl.gz")

    args = parser.parse_args(argv_list)
    if args.command == "parity":
        from .parity import main as parity_main

        return parity_main(args, argv_list)
    if args.command == "tree":
        from .tree import CHECKS, run as tree_run, write_report

        res = tree_run(args.bundles, tuple(args.forms.split(",")), args.embedded, args.every,
                       tuple(args.checks or CHECKS))
        if args.report:
            write_report(res, "python -m harness " + " ".join(argv_list))
        bad = len(res["vectors"]["differences"]) + sum(r.get(c, 0) for r in res["rows"] for c in res["checks"])
        print(f"tree: {bad} differences")
        return 1 if bad else 0
    if args.command == "bench":
        from .bench import run as bench_run, write_report as bench_report
        from .quick import engines_available

        cands = args.candidates or engines_available()
        if not cands:
            print("bench: no trafila engine available yet")
            return 1
        res = bench_run(cands, args.mode, args.sets or ["fast", "default"], args.bundles, args.every, args.form)
        if args.report:
            bench_report(res, "python -m harness " + " ".join(argv_list))
        return 0
    if args.command == "scaling":
        from .scaling import run as scaling_run, write_report as scaling_report

        res = scaling_run()
        if args.report:
            scaling_report(res, "python -m harness " + " ".join(argv_list))
        return 0 if all(r["linear"] and r["same_as_lxml"] for r in res["rows"]) else 1
    if args.command == "quick":
        from .quick import main as quick_main

        return quick_main(argv_list)
    if args.command == "make-embedded":
        from .embedded import write

        print(write())
        return 0
    if args.command == "oracle":
        from .oracle import build

        return build(args.mode, args.bundles, embedded=args.embedded, timeout=args.timeout, skip_existing=args.skip_existing)
    return 2
