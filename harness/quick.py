"""CI's quick parity subset: small bundles, every engine that exists.

The engines' gated option sets are listed in ``corpora/gate.json``: an option
set enters it once the engine reaches parity on it, and from then on any new
difference fails CI (the ledger excepted). The oracle itself (``trafilatura``)
is always checked on the whole matrix of the mode as a self-test of the harness.

The mode is the environment's trafilatura release (tox: ``parity-quick``,
``parity-quick-1.11``). Quick bundles that are not on this machine are left
out, each named; with none left, the embedded corpus is used. CI sets
``TRAFILA_REQUIRE_CORPORA=1``, which turns a missing bundle into a failure, so
the gate never shrinks silently there.
"""

from __future__ import annotations

import json
import os
import time
from types import SimpleNamespace
from typing import List, Optional, Tuple

from .corpora import CORPORA_DIR, bundle_name, bundle_paths, describe_corpus

GATE_FILE = CORPORA_DIR / "gate.json"

#: exit code when a required bundle is missing (as parity's for a missing bundle)
EXIT_MISSING = 3


def engines_available() -> List[str]:
    """trafila engines built here (``core`` only when compiled)."""
    import trafila

    return list(trafila.engines_built())


def engine_runs(mode: str, gate: dict) -> List[Tuple[str, List[str]]]:
    """(engine, gated option sets) for each built engine that runs ``mode``."""
    from trafila import _engine

    runs = []
    for engine in engines_available():
        sets = gate.get("engines", {}).get(engine, {}).get(mode)
        if sets and mode in _engine.modes_of(engine):
            runs.append((engine, sets))
    return runs


def present_bundles(wanted: List[str]) -> Tuple[List[str], List[str]]:
    """The quick bundles found here, and those missing."""
    paths = {bundle_name(p): p for p in bundle_paths(wanted)}
    found = [n for n in wanted if paths[n].exists()]
    return found, [n for n in wanted if n not in found]


def main(argv: Optional[List[str]] = None) -> int:
    from .parity import main as parity_main

    import trafilatura

    gate = json.loads(GATE_FILE.read_text())
    mode = trafilatura.__version__
    bundles, missing = present_bundles(gate["quick_bundles"])
    embedded = None
    if missing:
        print(f"quick parity: bundles not on this machine: {', '.join(missing)}", flush=True)
        if os.environ.get("TRAFILA_REQUIRE_CORPORA") == "1":
            print("quick parity: TRAFILA_REQUIRE_CORPORA=1, a missing bundle is a failure", flush=True)
            return EXIT_MISSING
    if not bundles:
        print("quick parity: none of the quick bundles is here; running the embedded corpus", flush=True)
        embedded = True
        bundles = None
    runs: List[Tuple[str, Optional[List[str]]]] = [("trafilatura", None)]
    runs += engine_runs(mode, gate)
    print(f"quick parity, mode {mode}: {', '.join(c for c, _ in runs)} against the oracle on the quick bundles "
          f"(corpora/gate.json: the option sets each engine is held to; trafilatura itself on every set)", flush=True)
    print(describe_corpus(bundles, embedded=embedded), flush=True)
    worst = 0
    for cand, sets in runs:
        t0 = time.time()
        # live: a quick bundle whose committed cache is for another interpreter gets one made now
        args = SimpleNamespace(candidate=cand, mode=mode, bundles=bundles, sets=sets, forms=None, embedded=embedded,
                               timeout=120.0, report=False, report_dir=None, live=True, explain=False)
        code = parity_main(args, ["quick", "--candidate", cand, "--mode", mode])
        print(f"quick parity {cand} {mode}: exit {code} in {time.time() - t0:.0f} s", flush=True)
        worst = max(worst, code)
    return worst
