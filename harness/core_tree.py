"""Core tree mode: trafila._core's parser against the reference parser, on the corpora.

``python -m harness.core_tree [--bundle NAME ...] [--limit N] [--every K] [--forms str,bytes]``
parses every page of every bundle (harness.corpora), in both input forms,
with the compiled core and with the reference (trafila.html), and compares:

* ``document``: the canonical dump (trafila.html._debug) of the whole
  document -- every node, the doctype, every top-level node -- straight from
  the C document, and again through ``CDocument.to_reference()``;
* ``fromstring``: the element fromstring chooses (core: on the C document);
* ``xml``: trafila.html.serialize's XML serialisation of that element, and
  the tree parsed back from it as bytes (readability's round trip).

An exception counts as equal only when both raise the same class.

``python -m harness.core_tree --bench`` is ``python -m harness bench-parser``
(harness/bench_parser.py: the core's parse against lxml, thread scaling, memory).

The comparisons of the C document with its reference-model form are in
harness/c_model.py (also the ``c-model`` check of ``python -m harness tree
--engine core``).

``python -m harness.core_tree --build-info [--expect-debug|--expect-release]``
prints how the imported ``trafila._core`` was compiled: the module has no
debug flag of its own, so :func:`harness.provenance.build_info` reads the compiler's command line
that gcc records in the module's DWARF ``DW_AT_producer`` strings (``-g`` is in
Python's CFLAGS): ``TRAFILA_CORE_DEBUG=1`` builds end in ``-O0``, release
builds in ``-O2``; ``-fsanitize=address`` marks an ASan build.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Dict, List, Optional

from .c_model import c_document_difference, c_root_difference, mark, outcome
from .corpora import bundle_name, bundle_paths
from .provenance import build_info
from .standalone import standalone
from .tree import bundle_stats

CHECKS = ("document", "fromstring", "xml")


class CoreTreeChecker:
    def __init__(self) -> None:
        from trafila import _core
        from trafila import html as ref
        from trafila.html import _debug

        try:
            from trafila.html.serialize import tostring
        except ImportError:  # pragma: no cover
            tostring = None
        self.core, self.ref, self.debug, self.tostring = _core, ref, _debug, tostring

    def check(self, src, checks=CHECKS) -> Dict[str, Optional[str]]:
        core, ref, dbg = self.core, self.ref, self.debug
        out: Dict[str, Optional[str]] = {}
        if "document" in checks:
            want = outcome(lambda: mark(dbg.dump_document(ref.parse_document(src))))
            out["document"] = c_document_difference(core, dbg, src, want, self._describe)
        if "fromstring" in checks or "xml" in checks:
            a_el = outcome(lambda: ref.fromstring(src))
            b_el = outcome(lambda: core.fromstring_reference(src))
            a = (a_el[0], mark(dbg.dump_element(a_el[1]))) if a_el[0] == "ok" else a_el
            b = (b_el[0], mark(dbg.dump_element(b_el[1]))) if b_el[0] == "ok" else b_el
            if "fromstring" in checks:
                diff = None if a == b else self._describe(a, b)
                if diff is None and a[0] == "ok":
                    diff = c_root_difference(core, src, a, self._describe)
                out["fromstring"] = diff
            if "xml" in checks:
                if self.tostring is None:
                    out["xml"] = "no trafila.html.serialize"
                elif a_el[0] == "ok" and b_el[0] == "ok":
                    xa = outcome(lambda: self.tostring(a_el[1], encoding=str, method="xml"))
                    xb = outcome(lambda: self.tostring(b_el[1], encoding=str, method="xml"))
                    if xa != xb:
                        out["xml"] = "serialisation differs"
                    elif xa[0] == "ok":
                        data = xa[1].encode("utf-8")
                        ra = outcome(lambda: mark(dbg.dump_element(ref.fromstring(data))))
                        rb = outcome(lambda: mark(dbg.dump_element(core.fromstring_reference(data))))
                        out["xml"] = None if ra == rb else "re-parse: " + self._describe(ra, rb)
                    else:
                        out["xml"] = None
                else:
                    out["xml"] = None
        return out

    def _describe(self, a, b) -> str:
        if a[0] != "ok" or b[0] != "ok":
            return f"reference {a[0]} {a[1] if a[0] != 'ok' else ''} / core {b[0]} {b[1] if b[0] != 'ok' else ''}"
        return self.debug.first_difference(a[1], b[1]) or "differs"


def run(bundles: Optional[List[str]] = None, limit: Optional[int] = None, every: int = 1,
        forms=("str", "bytes"), checks=CHECKS, log=print) -> dict:
    checker = CoreTreeChecker()
    rows: List[dict] = []
    examples: List[dict] = []
    for path in bundle_paths(bundles):
        if not path.exists():
            log(f"{bundle_name(path)}: missing ({path})")
            rows.append({"bundle": bundle_name(path), "missing": True})
            continue
        t0 = time.perf_counter()
        stats = bundle_stats(checker, path, forms, every, checks, examples, limit, log)
        for form, s in stats.items():
            rows.append({"bundle": bundle_name(path), "form": form, **s})
            log(f"{bundle_name(path)} {form}: {s['pages']} pages, " + ", ".join(f"{c} {s[c]}" for c in checks)
                + f" ({time.perf_counter() - t0:.0f} s)")
    totals = {c: sum(r.get(c, 0) for r in rows) for c in checks}
    totals["pages"] = sum(r.get("pages", 0) for r in rows)
    log("total: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    return {"rows": rows, "examples": examples, "totals": totals}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.core_tree", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    ap.add_argument("--limit", type=int, default=None, help="only the first N pages of each bundle")
    ap.add_argument("--every", type=int, default=None, help="every K-th page (default 1; --bench: 10)")
    ap.add_argument("--forms", default=None, help="input forms (default str,bytes; --bench: bytes)")
    ap.add_argument("--checks", default=",".join(CHECKS), help="checks (default document,fromstring,xml)")
    ap.add_argument("--bench", action="store_true", help="= python -m harness bench-parser (parse speed: core vs lxml 6.1.3)")
    ap.add_argument("--repeat", type=int, default=3, help="--bench: runs per page (the minimum counts)")
    ap.add_argument("--build-info", action="store_true", help="how trafila._core was compiled (see the docstring)")
    ap.add_argument("--expect-debug", action="store_true", help="--build-info: fail unless it is a TRAFILA_CORE_DEBUG build")
    ap.add_argument("--expect-release", action="store_true", help="--build-info: fail unless it is an optimised build")
    args = ap.parse_args(argv)
    if args.build_info or args.expect_debug or args.expect_release:
        info = build_info()
        print(f"trafila._core: {info['file']}")
        for prod in info["producers"]:
            print(f"  compiled by: {prod}")
        print(f"  optimisation {info['optimisation']}, debug build: {info['debug']}, ASan: {info['asan']}")
        if args.expect_debug and info["debug"] is not True:
            print("NOT a debug build (TRAFILA_CORE_DEBUG=1 compiles with -O0 -g)")
            return 1
        if args.expect_release and info["debug"] is not False:
            print("NOT an optimised build")
            return 1
        return 0
    args.forms_given = args.forms is not None
    if args.forms is None:
        args.forms = "str,bytes"
    if args.bench:  # moved: python -m harness bench-parser
        from . import bench_parser

        extra = ["--every", str(args.every or 10), "--repeat", str(args.repeat)]
        extra += ["--forms", args.forms] if args.forms_given else []
        extra += [w for b in (args.bundles or []) for w in ("--bundle", b)]
        extra += ["--limit", str(args.limit)] if args.limit is not None else []
        return standalone(bench_parser, ["--no-report", *extra])
    result = run(args.bundles, limit=args.limit, every=args.every or 1,
                 forms=tuple(f for f in args.forms.split(",") if f),
                 checks=tuple(c for c in args.checks.split(",") if c))
    return 1 if any(result["totals"][c] for c in CHECKS if c in result["totals"]) else 0


if __name__ == "__main__":
    sys.exit(main())
