"""Command line of the harness: oracle, parity, tree, minimise, replay, make-embedded."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional


def _add_corpus_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    p.add_argument("--embedded", action="store_true", default=None, help="use the committed embedded corpus")


def main(argv: Optional[List[str]] = None) -> int:
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
    p.add_argument("--report-dir", default=str(__import__("harness.parity", fromlist=["x"]).REPORTS_DIR))
    _add_corpus_args(p)

    sub.add_parser("quick", help="CI's quick parity subset (corpora/gate.json)")
    sub.add_parser("make-embedded", help="regenerate corpora/embedded/synthetic.jsonl.gz")

    argv_list = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv_list)
    if args.command == "parity":
        from .parity import main as parity_main

        return parity_main(args, argv_list)
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
