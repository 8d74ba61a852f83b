"""``trafila fineweb INPUT... -o DIR``: datatrove's FineWeb example, every step trafila's.

The pipeline is the one datatrove 0.10.1's ``examples/fineweb.py`` runs as far as it runs
offline (its language filter needs a fastText model downloaded at run time)::

    WarcReader -> URLFilter -> Trafilatura(favour_precision=True) -> GopherRepetitionFilter
    -> GopherQualityFilter -> C4QualityFilter(filter_no_terminal_punct=False)
    -> FineWebQualityFilter -> JsonlWriter

Two ways to run it, writing the same files:

- datatrove's chain (``--datatrove``; the default when datatrove is installed): each step taken
  from :mod:`trafila.integrations.datatrove`, run by datatrove's ``LocalPipelineExecutor``;
- the native chain (``--native``; the default without datatrove): :mod:`trafila.fineweb.pipeline`,
  the same steps without datatrove, the URL filter's block lists from trafila's package data.

Either way one task per input file, as many worker processes as there are cores (at most the
tasks). The output folder gets what datatrove's pipeline writes: ``output/<rank>.jsonl.gz`` (the
documents kept, in order), ``removed/<step>/<rank>.jsonl.gz`` with ``--removed`` (each filter's
exclusion writer), and ``logs/`` (the statistics, ``stats/<rank>.json`` and ``stats.json``, the
completed tasks, the task logs). Needs ``pip install 'trafila[fineweb]'``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, List, Optional, Sequence

__all__ = ["add_arguments", "build_pipeline", "input_files", "run_fineweb"]

HELP = """\
Run datatrove's FineWeb pipeline (WARC reader, URL filter, trafilatura, Gopher, C4 and
FineWeb quality filters, JSON Lines writer) with trafila's steps. INPUT is a WARC
file (.warc, .warc.gz) or a folder of them. One task per file, one worker process per
core; the output folder receives output/<rank>.jsonl.gz and logs/ exactly as the
datatrove pipeline writes them. With datatrove installed, datatrove's executor runs
trafila's drop-in steps (--datatrove); without it, or with --native, trafila's own chain
runs the same steps and writes the same files.
"""

#: the extensions of the WARC files a folder contributes
WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``trafila fineweb``."""
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="WARC files or folders of them")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="the output folder")
    parser.add_argument("--compat", default=None, choices=("2.3.1", "1.11.0"),
                        help="the trafilatura release reproduced (default: the installed trafilatura's, "
                             "2.3.1 without one)")
    parser.add_argument("--tasks", type=int, default=None, metavar="N",
                        help="tasks (default: one per input file; file i goes to task i %% N)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="worker processes (default: the number of cores, at most the tasks)")
    parser.add_argument("--removed", action="store_true",
                        help="also write each filter's removed documents to removed/<step>/")
    parser.add_argument("--progress", action="store_true",
                        help="show progress (datatrove: a bar per task's files; native: files and documents)")
    chain = parser.add_mutually_exclusive_group()
    chain.add_argument("--native", dest="chain", action="store_const", const="native",
                       help="trafila's own chain, without datatrove (the default when datatrove is not installed)")
    chain.add_argument("--datatrove", dest="chain", action="store_const", const="datatrove",
                       help="datatrove's executor with trafila's drop-in steps (the default when datatrove is installed)")


def input_files(inputs: Sequence[str]) -> List[Path]:
    """The WARC files named or held (recursively) by ``inputs``, each once, sorted by path."""
    files = set()
    for name in inputs:
        path = Path(name)
        if path.is_dir():
            files.update(p for p in path.rglob("*") if p.is_file() and p.name.endswith(WARC_SUFFIXES))
        elif path.is_file():
            files.add(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {name}")
    return sorted(p.resolve() for p in files)


def build_pipeline(files: Sequence[Path], out: Path, compat: Optional[str] = None, removed: bool = False,
                   progress: bool = False) -> List[Any]:
    """The FineWeb example's steps over ``files`` (trafila's drop-ins), writing into ``out``."""
    from datatrove.pipeline.writers import JsonlWriter

    from trafila.integrations import datatrove as steps

    root = Path(os.path.commonpath([str(f.parent) for f in files]))
    out.mkdir(parents=True, exist_ok=True)
    listing = out / "inputs.txt"
    listing.write_text("".join(f"{f.relative_to(root)}\n" for f in files), encoding="utf-8")

    def exclusion(name: str) -> Any:
        return JsonlWriter(str(out / "removed" / name)) if removed else None

    return [
        steps.WarcReader(str(root), paths_file=str(listing), file_progress=progress),
        steps.URLFilter(exclusion_writer=exclusion("1_url")),
        steps.Trafilatura(favour_precision=True, compat=compat),
        steps.GopherRepetitionFilter(exclusion_writer=exclusion("3_gopher_rep")),
        steps.GopherQualityFilter(exclusion_writer=exclusion("4_gopher_qual")),
        steps.C4QualityFilter(filter_no_terminal_punct=False, exclusion_writer=exclusion("5_c4")),
        steps.FineWebQualityFilter(exclusion_writer=exclusion("6_fineweb_qual")),
        JsonlWriter(str(out / "output")),
    ]


def datatrove_installed() -> bool:
    """Whether datatrove can be imported (found without importing it)."""
    from trafila.fineweb.url_filter import datatrove_available

    return datatrove_available()


def run_fineweb(inputs: Sequence[str], output: str, compat: Optional[str] = None, tasks: Optional[int] = None,
                workers: Optional[int] = None, removed: bool = False, progress: bool = False,
                chain: Optional[str] = None) -> int:
    """Run the pipeline; 0 when every task completed, 1 otherwise, 2 when it cannot run.

    ``chain``: "datatrove", "native", or None (datatrove's when it is installed, else native)."""
    if chain is None:
        chain = "datatrove" if datatrove_installed() else "native"
    files = input_files(inputs)
    if not files:
        print("trafila fineweb: no WARC file in the inputs", file=sys.stderr)
        return 2
    out = Path(output)
    tasks = tasks or len(files)
    workers = max(1, min(workers or os.cpu_count() or 1, tasks))
    if chain == "native":
        return _run_native(files, out, compat, tasks, workers, removed, progress)
    try:
        from datatrove.executor import LocalPipelineExecutor
    except ImportError:
        print("trafila fineweb: --datatrove needs datatrove and the FineWeb steps' packages: "
              "pip install 'trafila[fineweb]' (or run the native chain: --native)", file=sys.stderr)
        return 2
    executor = LocalPipelineExecutor(build_pipeline(files, out, compat, removed, progress), tasks=tasks,
                                     workers=workers, logging_dir=str(out / "logs"))
    try:
        executor.run()
    except Exception as error:  # noqa: BLE001 - datatrove raises when a task failed; its logs name it
        print(f"trafila fineweb: {error} (see {out / 'logs'})", file=sys.stderr)
        return 1
    return 0


def _run_native(files: Sequence[Path], out: Path, compat: Optional[str], tasks: int, workers: int, removed: bool,
                progress: bool) -> int:
    from trafila.fineweb.pipeline import resolve_mode, run_native

    try:
        resolve_mode(compat)
    except ValueError as error:
        print(f"trafila fineweb: {error}", file=sys.stderr)
        return 2
    try:
        run_native([str(f) for f in files], out, compat, tasks, workers, removed, progress)
    except ImportError as error:
        print(f"trafila fineweb: the native chain needs {error.name or error}: pip install 'trafila[fineweb-native]'",
              file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - a task failed (as datatrove's executor, report and fail)
        print(f"trafila fineweb: a task failed: {type(error).__name__}: {error} (see {out / 'logs'})",
              file=sys.stderr)
        return 1
    return 0


def main(args: argparse.Namespace) -> int:
    """``trafila fineweb`` with parsed arguments."""
    try:
        return run_fineweb(args.inputs, args.output, args.compat, args.tasks, args.workers, args.removed,
                           args.progress, getattr(args, "chain", None))
    except FileNotFoundError as error:
        print(f"trafila fineweb: {error}", file=sys.stderr)
        return 2
