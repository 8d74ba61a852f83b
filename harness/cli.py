"""Command line of the harness (``python -m harness COMMAND --help`` for each):

- ``oracle``: (re)generate the oracle cache with the installed trafilatura;
- ``parity``: diff a candidate against the oracle cache, gated on the ledger;
- ``quick``: CI's quick parity subset (corpora/gate.json), every engine built;
- ``tree``: trafila's parser (``--engine reference|core``) against lxml on every page;
- ``selectors``: the hand-translated XPaths against lxml's on every element;
- ``fuzz``: live differential fuzzing (generated and mutated documents);
- ``fuzz-native``: the compiled core under ASan/UBSan, generated documents and atheris (reports/fuzz-native.md);
- ``fuzz-fineweb``: the FineWeb twins (tokenizer, quality loops) under ASan/UBSan against the reference (reports/fuzz-fineweb.md);
- ``minimise``: shrink a page while a difference persists;
- ``replay``: trafilatura's own test suite recorded, then replayed through a candidate;
- ``upstream-suite``: trafilatura's own test suite run stock and under ``trafila.patch("trafilatura")``;
- ``bench``: speed against trafilatura, side by side in one run;
- ``cli-bench``: the command line's WARC libraries and throughput;
- ``memory``: resident memory over many extractions;
- ``stages``: an engine's 2.3.1 extraction time by stage;
- ``gil``: how much of an engine's extraction holds the GIL, by stage (py-spy);
- ``bench-parser``: the compiled core's parser against lxml: time, threads, memory;
- ``datatrove``: datatrove's Trafilatura step against trafila's in a datatrove pipeline, end to end;
- ``fineweb-native``: ``trafila fineweb --native`` against its datatrove chain, every file and statistic;
- ``datatrove-suite``: datatrove's own tests of the FineWeb steps, stock and with trafila's drop-ins;
- ``filters``: datatrove's quality filters (Gopher, C4, FineWeb) against trafila's, per document and step;
- ``scaling``: parser time on pathological inputs (must be linear);
- ``make-embedded``: regenerate the committed embedded corpus;
- ``vectors``: the language-neutral vectors (vectors/): generate, export (oracle env), check a candidate;
- ``port-check``: one command for another port: its corpus folder, pins, ledger and oracle caches;
- ``metadata``: extract_metadata against trafilatura's, field by field, both engines (reports/metadata.md);
- ``ports``: other trafilatura re-implementations from PyPI measured side by side (reports/ports.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional


def _add_corpus_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    p.add_argument("--embedded", action="store_true", default=None, help="use the committed embedded corpus")


#: subcommands whose arguments and code live in their own modules (add_arguments, run; each runs
#: alone as ``python -m harness.<module>`` through harness/standalone.py, never by importing this one)
MODULE_COMMANDS = {
    "fuzz": ("harness.fuzz", "live differential fuzzing (tree: parser vs lxml; text: candidate vs trafilatura)"),
    "fuzz-native": ("harness.fuzz_native", "the compiled core built with ASan+UBSan (tox -e core-asan), generated and "
                    "mutated documents and atheris, against the reference (reports/fuzz-native.md)"),
    "fuzz-fineweb": ("harness.fuzz_fineweb", "the FineWeb twins (trafila._tokenizer_en, trafila._quality) built with "
                     "ASan+UBSan (tox -e fineweb-asan), generated and mutated texts against the reference "
                     "(reports/fuzz-fineweb.md)"),
    "reliability": ("harness.reliability", "threads against a sequential run (reports/threads.md); SIGINT latency "
                    "during a large extraction (reports/interrupts.md)"),
    "pathological": ("harness.pathological", "pathological pages through whole extractions, both modes, 1x and 10x, "
                     "against trafilatura in its oracle envs (reports/pathological.md)"),
    "minimise": ("harness.minimise", "delta-debug a page while a difference persists; writes repros/"),
    "replay": ("harness.replay.cli", "record trafilatura's own test suite and replay it through a candidate"),
    "upstream-suite": ("harness.upstream_suite", "trafilatura's own test suite, stock and under trafila.patch(), "
                       "compared per test; gated on the ledger (reports/upstream-suite-<mode>.md)"),
    "selectors": ("harness.selectors", "the hand-translated XPaths against lxml's on every element (reports/selectors.md)"),
    "cli-bench": ("harness.cli_bench", "the command line's WARC reading and throughput against extract_batch (reports/cli.md)"),
    "memory": ("harness.memory", "resident memory over many extractions (reports/memory-<mode>.md)"),
    "gil": ("harness.gil", "how much of an engine's extraction holds the GIL, by stage, sampled with py-spy "
            "(reports/gil[-MODE].md)"),
    "stages": ("harness.stages", "where an engine's 2.3.1 extraction spends its time, by stage (reports/stages.md)"),
    "bench-parser": ("harness.bench_parser",
                     "the compiled core's parse against lxml 6.1.3, thread scaling, memory (reports/bench-parser.md)"),
    "datatrove": ("harness.datatrove_run",
                  "a FineWeb-style datatrove pipeline, datatrove's Trafilatura step against trafila's: same documents "
                  "and statistics, wall and CPU time (reports/datatrove.md)"),
    "fineweb-native": ("harness.fineweb_native",
                       "trafila fineweb's native chain against its datatrove chain and datatrove's own pipeline: "
                       "every output file and statistic, wall time (reports/fineweb-native.md)"),
    "datatrove-suite": ("harness.datatrove_suite",
                        "datatrove's own tests of the FineWeb steps, stock and with trafila's drop-ins, compared "
                        "per test (reports/datatrove-suite.md)"),
    "filters": ("harness.filters",
                "datatrove 0.10.1's quality filters against trafila.integrations.datatrove_quality: decisions, "
                "statistics, texts and exclusions per document, on the extraction's texts and generated ones, and "
                "time (reports/filters.md)"),
    "vectors": ("harness.vectors", "language-neutral vectors (vectors/): generate the inputs, export lxml's and "
                "trafilatura's answers (oracle env), check a candidate against them"),
    "port-check": ("harness.ports_check", "another port against trafilatura on its author's corpus folder, pins and "
                   "ledger; oracle caches and reports in a work folder (docs/PORTS.md)"),
    "dates": ("harness.dates", "trafila.htmldate's find_date against htmldate 1.11.0 on every corpus page, both date "
              "modes and search depths (reports/dates[-MODE].md)"),
    "metadata": ("harness.metadata", "extract_metadata against trafilatura's, field by field, on every corpus page, "
                 "both engines (reports/metadata[-1.11.0].md)"),
    "ports": ("harness.ports", "other trafilatura re-implementations from PyPI against trafilatura: exact texts per "
              "option set and speed ratio, in venvs of their own (reports/ports.md)"),
}


def main(argv: Optional[List[str]] = None) -> int:
    import importlib

    argv_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("oracle", help="(re)generate the oracle cache with the installed trafilatura")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--skip-existing", action="store_true", help="keep caches that are still valid")
    p.add_argument("--rerun", action="append", default=[], metavar="SET",
                   help="with --skip-existing: run this option set again where a cache has it (repeatable)")
    p.add_argument("--rerun-decoded", action="store_true",
                   help="with --rerun: run those sets again only for the bytes of the non-UTF-8 pages")
    _add_corpus_args(p)

    p = sub.add_parser("parity", help="diff a candidate against the oracle cache; gate on the ledger")
    p.add_argument("--candidate", default="reference",
                   help="trafilatura | reference | core | reference-batch | core-batch (extract_batch; -pool, :N) "
                        "| module:callable | cmd:<command> | mutant:<name>")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--set", action="append", dest="sets", help="option set name (repeatable); default: the whole matrix")
    p.add_argument("--forms", default=None, help="comma-separated: str,bytes (default both)")
    p.add_argument("--only-non-utf8", action="store_true",
                   help="only the bytes form of the pages that are not UTF-8 or look compressed (trafilatura's "
                        "decoding path); its own report section, '<candidate> / <mode> / non-utf8'")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per call before it counts as an error")
    p.add_argument("--no-report", dest="report", action="store_false", help="write no report")
    p.add_argument("--write-reports", action="store_true",
                   help="update the committed reports/ (default: .cache/reports/, ignored by git)")
    p.add_argument("--merge", action="store_true",
                   help="merge into this candidate and mode's report section (bundle x set cells run again replace old ones)")
    p.add_argument("--report-dir", default=None, help="write the report there (default: .cache/reports/)")
    _add_corpus_args(p)

    p = sub.add_parser("tree", help="compare trafila's parser with lxml on every page (reports/tree.md)")
    p.add_argument("--forms", default="str,bytes")
    p.add_argument("--every", type=int, default=1, help="check every Nth page only")
    p.add_argument("--check", action="append", dest="checks", choices=["document", "fromstring", "xml", "c-model"],
                   help="default: document, fromstring, xml (and c-model with --engine core)")
    p.add_argument("--engine", default="reference", choices=["reference", "core"],
                   help="whose parser: the reference (default) or the compiled core")
    p.add_argument("--no-report", dest="report", action="store_false")
    _add_corpus_args(p)

    p = sub.add_parser("bench", help="time candidates against trafilatura side by side (reports/bench.md)")
    p.add_argument("--candidate", action="append", dest="candidates", help="default: every engine that exists")
    p.add_argument("--mode", default="2.3.1")
    p.add_argument("--set", action="append", dest="sets", help="default: fast and default")
    p.add_argument("--every", type=int, default=20, help="time every Nth page")
    p.add_argument("--forms", default="str", choices=["str", "bytes"], help="the input form timed (one per run)")
    p.add_argument("--bundle", action="append", dest="bundles")
    p.add_argument("--no-report", dest="report", action="store_false")
    p.add_argument("--batch", action="store_true",
                   help="also time the loop, extract_batch(threads=1) and extract_batch(threads=N) side by side")
    p.add_argument("--threads", type=int, default=2, help="N for --batch (default 2)")
    p.add_argument("--rounds", type=int, default=3, help="rounds of --batch, interleaved (default 3)")

    for name, (module_name, help_text) in MODULE_COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        importlib.import_module(module_name).add_arguments(p)
    p = sub.add_parser("scaling", help="parser time on pathological inputs must be linear (reports/parser-scaling.md)")
    p.add_argument("--no-report", dest="report", action="store_false")
    p.add_argument("--engine", default="reference", choices=["reference", "core"], help="whose parser (default: the reference)")
    sub.add_parser("quick", help="CI's quick parity subset (corpora/gate.json)")
    sub.add_parser("make-embedded", help="regenerate corpora/embedded/synthetic.jsonl.gz")

    args = parser.parse_args(argv_list)
    if args.command in MODULE_COMMANDS:
        return importlib.import_module(MODULE_COMMANDS[args.command][0]).run(args, argv_list[1:]) or 0
    if args.command == "parity":
        from .parity import main as parity_main

        return parity_main(args, argv_list)
    if args.command == "tree":
        from .parity import _git_commit
        from .tree import run as tree_run, write_report

        commit = _git_commit()  # the code this run loads (HEAD may move while it runs)
        res = tree_run(args.bundles, tuple(args.forms.split(",")), args.embedded, args.every,
                       tuple(args.checks or ()), engine=args.engine)
        if args.report:
            write_report(res, "python -m harness " + " ".join(argv_list), commit=commit)
        bad = len(res["vectors"]["differences"]) + sum(r.get(c, 0) for r in res["rows"] for c in res["checks"])
        print(f"tree: {bad} differences")
        return 1 if bad else 0
    if args.command == "bench":
        from trafila import _engine

        from .bench import run as bench_run, write_report as bench_report
        from .quick import engines_available

        # by default every built engine that runs the mode
        cands = args.candidates or [e for e in engines_available() if args.mode in _engine.modes_of(e)]
        if not cands:
            print(f"bench: no trafila engine runs mode {args.mode} here")
            return 1
        res = bench_run(cands, args.mode, args.sets or ["fast", "default"], args.bundles, args.every, args.forms)
        if args.batch:
            from .bench import run_batches

            engines = [c for c in cands if c in ("reference", "core")]
            res["batch"] = run_batches(engines, args.mode, args.sets or ["fast", "default"], args.bundles, args.every,
                                       args.forms, args.threads, args.rounds)
        if args.report:
            bench_report(res, "python -m harness " + " ".join(argv_list))
        failed = sum(c["failed_calls"] for row in res["sets"].values() for c in row["candidates"].values())
        mismatches = sum(row["mismatches"] for row in res.get("batch", {}).get("rows", {}).values())
        if failed:
            print(f"bench: {failed} calls failed (see the report's failed calls column)")
        if mismatches:
            print(f"bench: {mismatches} batch results differ from the loop's (see the report's mismatches column)")
        return 1 if failed or mismatches else 0
    if args.command == "scaling":
        from .scaling import run as scaling_run, write_report as scaling_report

        res = scaling_run(engine=args.engine)
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

        return build(args.mode, args.bundles, embedded=args.embedded, timeout=args.timeout, skip_existing=args.skip_existing,
                     rerun=args.rerun, rerun_decoded=args.rerun_decoded)
    return 2
