"""The worker of ``python -m harness ports``: one port against trafilatura, in one process.

Run by the ports command with the python of a venv where the port and trafilatura 2.3.1 are
installed (``python -m harness.ports_worker --port NAME ...``, the checkout on PYTHONPATH). For
each page and each option set the adapter offers, it calls trafilatura's ``extract`` (txt, the
option set's keyword arguments) and the port's equivalent, in alternating order page after page,
timing each call, and compares the texts. It prints one JSON object: counts and seconds per
option set (never any page text).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from typing import Any, Dict, List, Optional

_WS = re.compile(r"\s+")


def _norm(text: Optional[str]) -> Optional[str]:
    """The text with every run of white space one space, trimmed (None and '' alike)."""
    if not text:
        return None
    out = _WS.sub(" ", text).strip()
    return out or None


def _tokens_f1(a: Optional[str], b: Optional[str]) -> float:
    """Token-level F1 of two texts (multiset overlap of white-space separated words); 1 for two Nones."""
    ta, tb = Counter((a or "").split()), Counter((b or "").split())
    if not ta and not tb:
        return 1.0
    overlap = sum((ta & tb).values())
    if not overlap:
        return 0.0
    p, r = overlap / sum(tb.values()), overlap / sum(ta.values())
    return 2 * p * r / (p + r)


def load_inputs(bundles: Optional[List[str]], embedded: bool, every: int, form: str, corpora: Optional[str]) -> List[Any]:
    import os

    if corpora:
        os.environ["TRAFILA_CORPORA"] = corpora
    from .corpora import bundle_name, bundle_paths, iter_pages

    out = []
    for path in bundle_paths(bundles, embedded=embedded or None):
        if not path.exists():
            continue
        for page in iter_pages(path):
            if page.index % every:
                continue
            if form == "str" and page.html is None:
                continue
            out.append((bundle_name(path), page.input(form)))
    return out


def run(port: str, sets: List[str], bundles: Optional[List[str]], embedded: bool, every: int, form: str,
        corpora: Optional[str], timeout: float) -> dict:
    import trafilatura

    from .candidates import HarnessTimeout, call_timeout
    from .matrix import option_sets
    from .ports_adapters import ADAPTERS

    adapter = ADAPTERS[port]()
    pages = load_inputs(bundles, embedded, every, form, corpora)
    by_name = {o.name: o for o in option_sets("2.3.1")}
    result: Dict[str, Any] = {"port": port, "version": adapter.version(), "trafilatura": trafilatura.__version__,
                              "python": sys.version.split()[0], "pages": len(pages), "form": form,
                              "bundles": sorted({b for b, _ in pages}), "sets": {}}
    for name in sets:
        opt = by_name[name]
        if name not in adapter.sets or opt.function != "extract" or opt.dedup:
            result["sets"][name] = {"offered": False}
            continue
        row = Counter()
        t_traf = t_port = 0.0
        f1 = 0.0
        # one call of each first: imports and caches do not count
        if pages:
            trafilatura.extract(pages[0][1], **opt.options)
            try:
                adapter.extract(pages[0][1], name)
            except Exception:  # noqa: BLE001 - counted below, page by page
                pass
        for i, (_, html) in enumerate(pages):
            order = (0, 1) if i % 2 == 0 else (1, 0)
            want: Optional[str] = None
            got: Optional[str] = None
            failed = None
            for who in order:
                t0 = time.perf_counter()
                if who == 0:
                    want = trafilatura.extract(html, **opt.options)
                    t_traf += time.perf_counter() - t0
                else:
                    try:
                        with call_timeout(timeout):
                            got = adapter.extract(html, name)
                    except HarnessTimeout:
                        failed = "timeout"
                    except Exception as exc:  # noqa: BLE001 - the port's failure on this page
                        failed = type(exc).__name__
                    t_port += time.perf_counter() - t0
            row["pages"] += 1
            if failed:
                row["port_failed"] += 1
                row[f"port_failed:{failed}"] += 1
                continue
            if want == got:
                row["exact"] += 1
            if _norm(want) == _norm(got):
                row["same_normalised"] += 1
            if want is None and got is None:
                row["both_none"] += 1
            elif want is None:
                row["port_text_trafilatura_none"] += 1
            elif got is None:
                row["port_none_trafilatura_text"] += 1
            f1 += _tokens_f1(want, got)
        result["sets"][name] = {"offered": True, "options": opt.options, "port_options": adapter.sets[name],
                                "counts": dict(row), "trafilatura_seconds": round(t_traf, 3),
                                "port_seconds": round(t_port, 3),
                                "mean_token_f1": round(f1 / max(1, row["pages"] - row["port_failed"]), 4)}
    result["note"] = adapter.note
    return result


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.ports_worker")
    ap.add_argument("--port", required=True)
    ap.add_argument("--set", action="append", dest="sets", required=True)
    ap.add_argument("--bundle", action="append", dest="bundles")
    ap.add_argument("--embedded", action="store_true")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--form", default="str", choices=("str", "bytes"))
    ap.add_argument("--corpora", default=None)
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args(argv)
    res = run(args.port, args.sets, args.bundles, args.embedded, args.every, args.form, args.corpora, args.timeout)
    sys.stdout.write(json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
