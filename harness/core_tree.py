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

``python -m harness.core_tree --bench [--every K]`` times, on every K-th page
(default 10) in bytes form (``--forms str,bytes`` for both), the core's parse into its C document (no proxies,
no to_reference) against lxml 6.1.3's ``lxml.html.fromstring`` with
trafilatura's parser options, side by side in one run, and reports the
ratio core time / lxml time (min of --repeat runs per page).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable, Dict, List, Optional

from .corpora import bundle_name, bundle_paths, iter_pages

CHECKS = ("document", "fromstring", "xml")


def _outcome(fn: Callable[[], Any]):
    try:
        return ("ok", fn())
    except Exception as err:
        return ("raise", type(err).__name__)


def _mark(d):
    from trafila.dom import NO_VALUE

    if isinstance(d, list):
        if len(d) == 2 and d[1] is NO_VALUE:
            return [d[0], "<NO_VALUE>"]
        return [_mark(x) for x in d]
    return d


def _plain(d):
    if isinstance(d, list):
        if len(d) == 2 and d[1] == "<NO_VALUE>":
            return [d[0], ""]
        return [_plain(x) for x in d]
    return d


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
            want = _outcome(lambda: _mark(dbg.dump_document(ref.parse_document(src))))
            got = _outcome(lambda: core.parse_document(src).dump())
            got_ref = _outcome(lambda: _mark(dbg.dump_document(core.parse_document(src).to_reference())))
            plain_want = (want[0], _plain(want[1])) if want[0] == "ok" else want
            if got != plain_want:
                out["document"] = self._describe(plain_want, got)
            elif got_ref != want:
                out["document"] = "to_reference: " + self._describe(want, got_ref)
            else:
                out["document"] = None
        if "fromstring" in checks or "xml" in checks:
            a_el = _outcome(lambda: ref.fromstring(src))
            b_el = _outcome(lambda: core.fromstring_reference(src))
            a = (a_el[0], _mark(dbg.dump_element(a_el[1]))) if a_el[0] == "ok" else a_el
            b = (b_el[0], _mark(dbg.dump_element(b_el[1]))) if b_el[0] == "ok" else b_el
            if "fromstring" in checks:
                diff = None if a == b else self._describe(a, b)
                if diff is None and a[0] == "ok":
                    c = _outcome(lambda: self._core_root_dump(src))
                    if c != (a[0], _plain(a[1])):
                        diff = "C dump: " + self._describe((a[0], _plain(a[1])), c)
                out["fromstring"] = diff
            if "xml" in checks:
                if self.tostring is None:
                    out["xml"] = "no trafila.html.serialize"
                elif a_el[0] == "ok" and b_el[0] == "ok":
                    xa = _outcome(lambda: self.tostring(a_el[1], encoding=str, method="xml"))
                    xb = _outcome(lambda: self.tostring(b_el[1], encoding=str, method="xml"))
                    if xa != xb:
                        out["xml"] = "serialisation differs"
                    elif xa[0] == "ok":
                        data = xa[1].encode("utf-8")
                        ra = _outcome(lambda: _mark(dbg.dump_element(ref.fromstring(data))))
                        rb = _outcome(lambda: _mark(dbg.dump_element(core.fromstring_reference(data))))
                        out["xml"] = None if ra == rb else "re-parse: " + self._describe(ra, rb)
                    else:
                        out["xml"] = None
                else:
                    out["xml"] = None
        return out

    def _core_root_dump(self, src):
        doc = self.core.fromstring(src)
        return doc.dump_element(doc.root_index)

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
        stats: Dict[str, Dict[str, int]] = {}
        t0 = time.perf_counter()
        for page in iter_pages(path):
            if limit is not None and page.index >= limit:
                break
            if page.index % every:
                continue
            for form in forms:
                if form not in page.forms():
                    continue
                s = stats.setdefault(form, {"pages": 0, **{c: 0 for c in checks}})
                s["pages"] += 1
                res = checker.check(page.input(form), checks)
                for c, v in res.items():
                    if v:
                        s[c] += 1
                        if len(examples) < 40:
                            examples.append({"page": page.id, "form": form, "check": c, "difference": v[:300]})
                            log(f"  DIFF {page.id} {form} {c}: {v[:200]}")
        for form, s in stats.items():
            rows.append({"bundle": bundle_name(path), "form": form, **s})
            log(f"{bundle_name(path)} {form}: {s['pages']} pages, " + ", ".join(f"{c} {s[c]}" for c in checks)
                + f" ({time.perf_counter() - t0:.0f} s)")
    totals = {c: sum(r.get(c, 0) for r in rows) for c in checks}
    totals["pages"] = sum(r.get("pages", 0) for r in rows)
    log("total: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    return {"rows": rows, "examples": examples, "totals": totals}


def bench(bundles: Optional[List[str]] = None, every: int = 10, repeat: int = 3, limit: Optional[int] = None,
          form: str = "bytes", log=print) -> dict:
    from lxml import html as lhtml

    from trafila import _core

    parser = lhtml.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                              remove_comments=True, remove_pis=True)
    parse = _core.parse_document
    clock = time.perf_counter
    core_total = lxml_total = 0.0
    pages = 0
    nbytes = 0
    for path in bundle_paths(bundles):
        if not path.exists():
            continue
        core_b = lxml_b = 0.0
        n_b = 0
        for page in iter_pages(path):
            if limit is not None and page.index >= limit:
                break
            if page.index % every:
                continue
            if form not in page.forms():
                continue
            src = page.input(form)
            best_c = best_l = float("inf")
            for _ in range(repeat):
                t0 = clock()
                try:
                    lhtml.fromstring(src, parser=parser)
                except Exception:
                    pass
                t1 = clock()
                try:
                    parse(src)
                except Exception:
                    pass
                t2 = clock()
                best_l = min(best_l, t1 - t0)
                best_c = min(best_c, t2 - t1)
            core_b += best_c
            lxml_b += best_l
            n_b += 1
            nbytes += len(page.raw)
        if n_b:
            log(f"{bundle_name(path)}: {n_b} pages, core {core_b * 1e3 / n_b:.2f} ms/page, "
                f"lxml {lxml_b * 1e3 / n_b:.2f} ms/page, ratio {core_b / lxml_b:.3f}")
        core_total += core_b
        lxml_total += lxml_b
        pages += n_b
    ratio = core_total / lxml_total if lxml_total else float("nan")
    log(f"total ({form} form): {pages} pages ({nbytes / 1e6:.1f} MB), core {core_total:.3f} s "
        f"({nbytes / 1e6 / core_total:.1f} MB/s), lxml {lxml_total:.3f} s ({nbytes / 1e6 / lxml_total:.1f} MB/s), "
        f"ratio core/lxml {ratio:.3f}")
    return {"pages": pages, "bytes": nbytes, "core_seconds": core_total, "lxml_seconds": lxml_total, "ratio": ratio}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.core_tree", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    ap.add_argument("--limit", type=int, default=None, help="only the first N pages of each bundle")
    ap.add_argument("--every", type=int, default=None, help="every K-th page (default 1; --bench: 10)")
    ap.add_argument("--forms", default=None, help="input forms (default str,bytes; --bench: bytes)")
    ap.add_argument("--checks", default=",".join(CHECKS), help="checks (default document,fromstring,xml)")
    ap.add_argument("--bench", action="store_true", help="parse speed: core vs lxml 6.1.3")
    ap.add_argument("--repeat", type=int, default=3, help="--bench: runs per page (the minimum counts)")
    args = ap.parse_args(argv)
    args.forms_given = args.forms is not None
    if args.forms is None:
        args.forms = "str,bytes"
    if args.bench:
        for form in (f for f in args.forms.split(",") if f) if args.forms_given else ("bytes",):
            bench(args.bundles, every=args.every or 10, repeat=args.repeat, limit=args.limit, form=form)
        return 0
    result = run(args.bundles, limit=args.limit, every=args.every or 1,
                 forms=tuple(f for f in args.forms.split(",") if f),
                 checks=tuple(c for c in args.checks.split(",") if c))
    return 1 if any(result["totals"][c] for c in CHECKS if c in result["totals"]) else 0


if __name__ == "__main__":
    sys.exit(main())
