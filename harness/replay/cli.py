"""``python -m harness.replay record|run`` (see :mod:`harness.replay`)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import List, Optional

from ..standalone import standalone
from .record import DEFAULT_CACHE


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The command's arguments (parsed by harness/cli.py, the one command line)."""
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("record", help="run trafilatura's tests with the recorder")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    p.add_argument("--python", help="interpreter with trafilatura==mode (default: this one)")
    p.add_argument("--sdist", type=Path, default=os.environ.get("TRAFILA_REPLAY_SDIST") or None,
                   help="trafilatura-<mode>.tar.gz from `pip download --no-deps --no-binary :all: "
                        "trafilatura==<mode>` (or its directory; default $TRAFILA_REPLAY_SDIST, else downloaded)")
    p.add_argument("--timeout", type=float, default=1800.0, help="for the whole pytest run")
    p.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    p = sub.add_parser("run", help="replay the recorded calls through a candidate")
    p.add_argument("--candidate", default="reference")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    p.add_argument("--timeout", type=float, default=120.0, help="per call")
    p.add_argument("--limit", type=int, help="replay only the first N recorded calls")
    p.add_argument("--report", type=Path,
                   help="report stem (default reports/replay-<mode>, reports/replay-<mode>-<candidate> "
                        "for a candidate other than the reference)")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    """Run ``record`` or ``run`` with parsed ``args``."""
    if args.what == "record":
        from .record import record

        info = record(args.mode, args.cache, args.python, args.timeout, args.pytest_args, sdist=args.sdist)
        print(json.dumps(info, indent=1))
        return 0 if info.get("calls") else 1

    from ..candidates import make_candidate
    from .run import REPORTS, replay, write_report

    cand = make_candidate(args.candidate)
    try:
        summary = replay(cand, args.mode, args.cache, args.timeout, args.limit)
    finally:
        cand.close()
    # each candidate keeps its own report (the reference's is the plain name)
    tag = re.sub(r"[^A-Za-z0-9_.-]+", "-", args.candidate).strip("-")
    default = f"replay-{args.mode}" if args.candidate == "reference" else f"replay-{args.mode}-{tag}"
    md, js = write_report(summary, args.report or REPORTS / default)
    c = summary["counts"]
    print(f"{summary['candidate']} {args.mode}: recorded {c.get('recorded', 0)}, replayed {c.get('replayed', 0)}, "
          f"equal {c.get('equal', 0)}, different {c.get('different', 0)}, skipped {c.get('skipped', 0)} "
          f"in {summary['seconds']} s")
    for reason, n in summary["skipped"].items():
        print(f"  skipped {n}: {reason}")
    print(f"wrote {md} and {js}")
    return 0 if not c.get("different") else 1


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m harness.replay``: the same command as ``python -m harness replay``."""
    return standalone(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
