"""``python -m harness port-check``: the one command for the author of another port.

It diffs a candidate -- typically ``cmd:<your program>`` speaking harness/PROTOCOL.md -- against
trafilatura on the author's own corpus folder, with their own pins and ledger, and keeps
everything it makes in a work folder of theirs (``--workdir``, default ``./.trafila-harness``):

1. the bundles are the ``*.jsonl.gz`` files of ``--corpora`` (the harness's bundle format:
   one JSON object per line with ``id`` and ``html`` or ``html_b64``; docs/PORTS.md), or the
   ones ``--pins`` lists, each checked against its sha256 there (``--write-pins`` writes such a
   file from the folder as it is);
2. the oracle caches are made by the installed trafilatura (it must be the ``--mode`` release,
   with the oracle's pins: ``pip install "trafila-harness[oracle]"``) in ``<workdir>/oracle/``,
   once per bundle and option set asked for (``--set``; every set by default); a bundle that
   changed gets a new one;
3. the parity run compares every (page, form, option set), gated on ``--ledger`` (the
   differences the author accepts, corpora/known-differences.json's format), and writes
   ``<workdir>/reports/parity.{md,json}``.

Exit status as ``parity``: 0 pass, 1 a difference not in the ledger (or a ledger entry that no
longer differs), 3 the run could not compare everything.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import List, Optional


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--candidate", required=True,
                    help='the port: "cmd:<command line>" (JSON Lines, harness/PROTOCOL.md) or module:callable')
    ap.add_argument("--corpora", type=Path, required=True, help="the folder of your bundles (*.jsonl.gz)")
    ap.add_argument("--pins", type=Path, default=None,
                    help="JSON {\"bundles\": {name: {\"sha256\": …}}}: only these bundles, each checked")
    ap.add_argument("--write-pins", action="store_true", help="write --pins from the folder as it is, then run")
    ap.add_argument("--ledger", type=Path, default=None,
                    help="JSON {\"entries\": [{\"bundle\", \"page\", \"form\", \"option_set\", \"mode\", \"reason\"}]}")
    ap.add_argument("--workdir", type=Path, default=Path(".trafila-harness"),
                    help="where the oracle caches and the reports go (default ./.trafila-harness)")
    ap.add_argument("--mode", default="2.3.1")
    ap.add_argument("--set", action="append", dest="sets", help="option set (repeatable; default: the whole matrix)")
    ap.add_argument("--forms", default=None, help="comma-separated: str,bytes (default both)")
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable; default: all)")
    ap.add_argument("--embedded", action="store_true",
                    help="also the harness's embedded corpus (regenerated into the work folder)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--no-oracle", dest="make_oracle", action="store_false",
                    help="never make oracle caches (stop when one is missing)")


def use_workspace(corpora: Path, workdir: Path, pins: Optional[Path], embedded: bool, ledger: Optional[Path]) -> None:
    """Point the harness's module settings at the author's folders for this process."""
    from . import corpora as C, oracle as O, parity as P

    os.environ["TRAFILA_CORPORA"] = str(corpora.resolve())
    C.PINS_FILE = pins.resolve() if pins is not None else workdir / "no-pins.json"
    if embedded:
        from .embedded import write

        C.EMBEDDED_DIR = write(workdir / "embedded").parent
    else:
        C.EMBEDDED_DIR = workdir / "no-embedded"
    O.ORACLE_DIR = workdir / "oracle"
    O.LOCAL_ORACLE_DIR = workdir / "oracle-other-interpreters"
    P.LEDGER_FILE = ledger.resolve() if ledger is not None else workdir / "no-ledger.json"


def write_pins(corpora: Path, pins: Path) -> dict:
    from .corpora import bundle_name, iter_pages, sha256_file

    bundles = {}
    for path in sorted(corpora.glob("*.jsonl.gz")):
        bundles[bundle_name(path)] = {"sha256": sha256_file(path), "pages": sum(1 for _ in iter_pages(path))}
    pins.parent.mkdir(parents=True, exist_ok=True)
    pins.write_text(json.dumps({"bundles": bundles}, indent=1, sort_keys=True) + "\n")
    return bundles


def check_pins(corpora: Path, pins: Path) -> List[str]:
    """The pinned bundles that are missing or whose sha256 is not their pin's."""
    from .corpora import sha256_file

    bad = []
    for name, pin in json.loads(pins.read_text())["bundles"].items():
        path = corpora / f"{name}.jsonl.gz"
        if not path.exists():
            bad.append(f"{name}: missing from {corpora}")
        elif pin.get("sha256") and sha256_file(path) != pin["sha256"]:
            bad.append(f"{name}: sha256 {sha256_file(path)[:12]} is not its pin's {pin['sha256'][:12]}")
    return bad


def make_oracle(mode: str, paths: List[Path], sets: Optional[List[str]], timeout: float, log=print) -> None:
    """The oracle caches of ``paths`` in ``oracle.ORACLE_DIR`` for the option sets asked (all by
    default), made by the installed trafilatura: a bundle's valid cache is kept, the sets it lacks
    are added to it, and one made for other bytes or versions is made again."""
    from . import oracle as O
    from .candidates import TrafilaturaCandidate
    from .corpora import bundle_name
    from .matrix import option_sets

    wanted = option_sets(mode, sets)
    cand = None
    for path in paths:
        out = O.cache_path(mode, bundle_name(path), O.ORACLE_DIR)
        previous = O.read_cache(out) if out.exists() else None
        if previous is not None and not O._same_inputs(previous, path):
            previous = None
        if previous is not None:
            try:
                O.check_cache(previous, out, path, wanted, O.oracle_versions())
                continue  # already has every set asked for
            except O.StaleCache:
                pass
        keep = [o for o in O._defined_sets(previous, mode) if o.name not in {w.name for w in wanted}] if previous else []
        cand = cand or TrafilaturaCandidate()
        t0 = time.time()
        data = O.build_bundle(cand, mode, path, wanted + keep, timeout, log=lambda m: None, previous=previous)
        O.write_cache(data, out)
        log(f"port-check: oracle cache {out} ({len(data['results'])} pages, {len(wanted + keep)} option set(s)) "
            f"made in {time.time() - t0:.0f} s")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    workdir: Path = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    corpora: Path = args.corpora
    if not corpora.is_dir():
        print(f"port-check: --corpora {corpora} is not a folder")
        return 2
    if args.write_pins:
        if args.pins is None:
            print("port-check: --write-pins needs --pins FILE")
            return 2
        written = write_pins(corpora, args.pins)
        print(f"port-check: pinned {len(written)} bundle(s) in {args.pins}")
    if args.pins is not None:
        bad = check_pins(corpora, args.pins)
        if bad:
            for line in bad:
                print(f"port-check: PIN {line}")
            return 3
    use_workspace(corpora, workdir, args.pins, args.embedded, args.ledger)
    from . import oracle as O, parity as P
    from .candidates import make_candidate
    from .corpora import bundle_paths

    paths = bundle_paths(args.bundles, embedded=False)
    if not paths:
        print(f"port-check: no bundles (*.jsonl.gz) in {corpora}")
        return 2
    if args.make_oracle:
        try:
            from .candidates import TrafilaturaCandidate

            TrafilaturaCandidate().check_mode(args.mode)
        except Exception as err:  # noqa: BLE001 - no oracle here: say how to get one
            print(f"port-check: cannot make oracle caches here ({type(err).__name__}: {err}); install the "
                  f"oracle's pins (pip install \"trafila-harness[oracle]\" for 2.3.1) or pass --no-oracle")
            return 3
        make_oracle(args.mode, paths, args.sets, args.timeout)
    print(f"port-check: {len(paths)} bundle(s) from {corpora}"
          + (f", pinned in {args.pins}" if args.pins else " (no pins: every *.jsonl.gz there)")
          + (", and the harness's embedded corpus" if args.embedded else "")
          + f"; oracle caches in {O.ORACLE_DIR} (a cache made here counts as 'committed' in the lines below)",
          flush=True)
    candidate = make_candidate(args.candidate, timeout=args.timeout)
    forms = tuple(args.forms.split(",")) if args.forms else ("str", "bytes")
    t0 = time.time()
    try:
        res = P.run(candidate, args.mode, args.bundles, args.sets, forms, False, args.timeout, live=False)
    finally:
        candidate.close()
    ledger = P.load_ledger(P.LEDGER_FILE)
    new, gone = P.gate(res, ledger)
    details = [d.as_json() for d in res.differences[: P.DETAILED]]
    section = P.section_json(res, new, gone, details, ["port-check", *(argv or [])])
    for line in P.summary(res, new, gone, time.time() - t0):
        print(line)
    reports = workdir / "reports"
    if res.comparisons:
        P.write_reports(section, reports)
        print(f"  report: {reports / 'parity.md'} and parity.json")
    if res.stale:
        return 3
    return 1 if (new or gone) else 0
