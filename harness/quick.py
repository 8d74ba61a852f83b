"""CI's quick parity subset: small bundles, every engine that exists.

The engines' gated option sets are listed in ``corpora/gate.json``: an option
set enters it once the engine reaches parity on it, and from then on any new
difference fails CI (the ledger excepted). The oracle itself (``trafilatura``)
is always checked on the whole 2.3.1 matrix as a self-test of the harness.
"""

from __future__ import annotations

import importlib
import json
import time
from types import SimpleNamespace
from typing import List

from .corpora import CORPORA_DIR

GATE_FILE = CORPORA_DIR / "gate.json"


def engines_available() -> List[str]:
    """trafila engines importable here (``core`` only when compiled)."""
    out = []
    try:
        import trafila
    except ImportError:
        return out
    try:
        from trafila import _engine

        importlib.import_module(_engine._REFERENCE_MODULES["2.3.1"])
    except (ImportError, AttributeError):
        return out
    out.append("reference")
    if _engine.core_available():
        out.append("core")
    return out


def main(argv: List[str]) -> int:
    from .parity import main as parity_main

    import trafilatura

    gate = json.loads(GATE_FILE.read_text())
    bundles = gate["quick_bundles"]
    mode = trafilatura.__version__  # the env's oracle decides the mode (tox: parity-quick, parity-quick-1.11)
    runs = [("trafilatura", mode, None)]
    for engine in engines_available():
        sets = gate.get("engines", {}).get(engine, {}).get(mode)
        if sets:
            runs.append((engine, mode, sets))
    worst = 0
    for cand, mode, sets in runs:
        t0 = time.time()
        args = SimpleNamespace(candidate=cand, mode=mode, bundles=bundles, sets=sets, forms=None, embedded=None,
                               timeout=120.0, report=False, report_dir=None)
        code = parity_main(args, ["quick", "--candidate", cand, "--mode", mode])
        print(f"quick parity {cand} {mode}: exit {code} in {time.time() - t0:.0f} s", flush=True)
        worst = max(worst, code)
    return worst
