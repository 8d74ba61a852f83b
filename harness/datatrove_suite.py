"""datatrove's own tests of the FineWeb steps, stock and with trafila's drop-ins.

``python -m harness datatrove-suite --tests DIR`` runs the test modules of datatrove's
repository that exercise the steps trafila replaces (``tests/pipeline/filters/test_filters.py``:
the URL, Gopher, C4 and FineWeb filters among others) twice with this environment's
interpreter, which must have datatrove 0.10.1 and the steps' packages (``tox -e
datatrove-suite``):

* **stock**: datatrove as installed;
* **substituted**: the plugin of :mod:`harness.upstream_suite` calls
  ``trafila.integrations.datatrove.substitute_datatrove_steps()`` before the tests are
  imported, so ``from datatrove.pipeline.filters import GopherQualityFilter`` gives trafila's.

datatrove's sdist ships no pipeline tests, so ``DIR`` is a checkout of its repository at
the release's tag (``git archive v0.10.0 tests | tar -x -C DIR``; nothing of it is
committed here) or ``--git-dir`` a clone and ``--ref`` the tag. Outcomes are compared per
test id as for trafilatura's suite; expected differences live in the ledger
(``corpora/known-differences.json``, key ``datatrove_suite``). Exit 1 on a difference not in
the ledger, 3 when a run did not happen. Writes ``.cache/reports/datatrove-suite.md`` and
``.json`` (``--write-reports``: ``reports/``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

from .provenance import git_commit, portable_command, utc_now, write_report_json, write_report_text
from .upstream_suite import (LEDGER, PASSING, ROOT, SUBSTITUTE_DATATROVE, _md_cell, _outcome_counts, compare,
                             incomplete_runs, load_expected, run_suite)
from .standalone import standalone

#: the ledger's key, and the "mode" its entries name (datatrove's release)
LEDGER_KEY = "datatrove_suite"
RELEASE = "0.10.1"
#: datatrove's test modules that exercise the replaced steps
TEST_FILES = ["tests/pipeline/filters/test_filters.py"]


def add_arguments(ap: argparse.ArgumentParser) -> None:
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--tests", type=Path, help="a directory holding datatrove's repository tests/")
    src.add_argument("--git-dir", type=Path, help="a clone of datatrove's repository (bare is fine)")
    ap.add_argument("--ref", default="v0.10.0", help="the tag or commit read with --git-dir (default v0.10.0)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds for each pytest run")
    ap.add_argument("--write-reports", action="store_true", help="update reports/ (default: .cache/reports/)")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments for both runs (after --)")


def _unpack(git_dir: Path, ref: str, work: Path) -> Path:
    archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", ref, "tests"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
    return work


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    try:
        from importlib.metadata import version

        installed = version("datatrove")
    except Exception:  # noqa: BLE001 - not installed
        print("datatrove-suite: needs datatrove installed (tox -e datatrove-suite)")
        return 3
    command = "python -m harness datatrove-suite " + portable_command(argv or [])
    with tempfile.TemporaryDirectory(prefix="trafila-datatrove-suite-") as tmp:
        root = args.tests if args.tests else _unpack(args.git_dir, args.ref, Path(tmp))
        # the tests import their package's helpers (from ...utils): run from the tests' parent
        runs = {}
        for name, patch in (("stock", None), ("substituted", SUBSTITUTE_DATATROVE)):
            runs[name] = run_suite(Path(root), sys.executable, patch, Path(tmp) / f"{name}.json", args.timeout,
                                   args.pytest_args, files=TEST_FILES)
            print(f"datatrove-suite: {name}: {runs[name]['summary'] or 'no summary'} ({runs[name]['seconds']} s)")
    if incomplete_runs(runs, "datatrove-suite"):
        return 3
    if runs["substituted"]["info"].get("imported_before"):
        print("datatrove-suite: datatrove's steps were imported before the plugin swapped them; the run is not valid")
        return 3
    comparison = compare(runs["stock"], runs["substituted"], load_expected(RELEASE, LEDGER, LEDGER_KEY))
    summary = {
        "command": command, "commit": git_commit(), "date": utc_now(), "datatrove": installed,
        "source": f"git {args.ref}" if args.git_dir else "a checkout's tests/", "files": TEST_FILES,
        "substituted": runs["substituted"]["info"].get("substituted", []),
        "stock": {"outcomes": _outcome_counts(runs["stock"]), "summary": runs["stock"]["summary"]},
        "substituted_run": {"outcomes": _outcome_counts(runs["substituted"]),
                            "summary": runs["substituted"]["summary"]},
        "passed_stock": sorted(t for t, r in runs["stock"]["tests"].items() if r["outcome"] in PASSING),
        "differences": comparison["differences"], "new": comparison["new"], "stale": comparison["stale"],
        "not_passing_stock": comparison["not_passing_stock"], "skipped_stock": comparison["skipped_stock"],
    }
    out_dir = ROOT / "reports" if args.write_reports else ROOT / ".cache" / "reports"
    out_dir.mkdir(parents=True, exist_ok=True)
    write_report_json(out_dir / "datatrove-suite.json", summary, ensure_ascii=False)
    write_report_text(out_dir / "datatrove-suite.md", "\n".join(_markdown(summary)) + "\n")
    print(f"datatrove-suite: {len(summary['passed_stock'])} pass stock; {len(comparison['differences'])} differ "
          f"with trafila's steps ({len(comparison['new'])} not in the ledger)")
    for d in comparison["new"]:
        print(f"  NEW {d['test']}: {d['patched']}: {d['patched_message']}")
    return 1 if comparison["new"] or comparison["stale"] else 0


def _markdown(s: Dict[str, Any]) -> List[str]:
    lines = [
        "# datatrove's own tests of the FineWeb steps, stock and with trafila's drop-ins",
        "",
        f"Written by `{s['command']}` (never by hand) on {s['date']}, commit {s['commit'] or '?'}; datatrove "
        f"{s['datatrove']} installed, its repository's tests from {s['source']}: {', '.join(s['files'])}. "
        f"Substituted: {', '.join(s['substituted']) or 'none'}.",
        "",
        "| run | outcomes | pytest |",
        "|---|---|---|",
        f"| stock | {_md_cell(s['stock']['outcomes'])} | {_md_cell(s['stock']['summary'])} |",
        f"| trafila's steps | {_md_cell(s['substituted_run']['outcomes'])} | {_md_cell(s['substituted_run']['summary'])} |",
        "",
        f"**{len(s['differences'])}** tests pass stock and not with trafila's steps ({len(s['new'])} not in the ledger).",
        "",
    ]
    lines += [f"- `{d['test']}`: {d['patched']}: {_md_cell(d['reason'])}" for d in s["differences"]]
    lines += ["", "Not passing stock (not compared):", ""]
    lines += [f"- `{t['test']}`: {t['stock']}: {_md_cell(t['message'][:160])}" for t in s["not_passing_stock"]] or ["- none"]
    lines += ["", "Skipped stock, by reason:", ""]
    lines += [f"- {len(v)} × {_md_cell(k)}" for k, v in s["skipped_stock"].items()] or ["- none"]
    return lines


if __name__ == "__main__":
    sys.exit(standalone(sys.modules[__name__]))
