"""Corpus tree diff: trafila.html.parse_document vs lxml, page by page.

For every page of the given bundles (default: all of $TRAFILA_CORPORA or
../shared/corpora) and both input forms (str for UTF-8 pages, bytes for all
pages), dump the whole document both ways (trafila.html._debug) and compare.
Prints the first differing node of each differing page, then counts per
bundle and form, and the time spent in each parser.

    cd /work/main && PYTHONPATH=reference:. /work/venvs/o231/bin/python tools/treecheck.py \
        [--bundles trafilatura goose3] [--every 10] [--forms str bytes] [--fromstring]

With ``--speed`` it only times the two parsers (CPU time, best of 3, no dumps).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "reference"), str(ROOT)]

from harness.corpora import bundle_name, bundle_paths, iter_pages  # noqa: E402
from trafila.html import fromstring, parse_document  # noqa: E402
from trafila.html._debug import dump_document, dump_element, dump_lxml, first_difference  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", nargs="*")
    ap.add_argument("--every", type=int, default=1, help="only every Nth page")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--forms", nargs="*", default=["str", "bytes"])
    ap.add_argument("--fromstring", action="store_true", help="also compare fromstring()'s element")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--speed", action="store_true", help="only time both parsers (CPU time, best of 3)")
    args = ap.parse_args()
    if args.speed:
        return speed(args)

    import lxml.etree as etree
    import lxml.html

    parser = lxml.html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                                  remove_comments=True, remove_pis=True)
    totals: Counter = Counter()
    t_ours = t_lxml = 0.0
    nbytes = 0
    for path in bundle_paths(args.bundles):
        name = bundle_name(path)
        counts: Counter = Counter()
        for page in iter_pages(path):
            if (page.index - args.offset) % args.every:
                continue
            for form in page.forms():
                if form not in args.forms:
                    continue
                src = page.input(form)
                nbytes += len(page.raw)
                t0 = time.perf_counter()
                try:
                    root = etree.fromstring(src, parser)
                    want = [] if root is None else dump_lxml(root)
                except Exception as err:  # lxml raises: trafila must raise the same class
                    want = type(err).__name__
                t1 = time.perf_counter()
                try:
                    doc = parse_document(src)
                    got = [] if doc.getroot() is None else dump_document(doc)
                except Exception as err:
                    got = type(err).__name__
                t2 = time.perf_counter()
                t_lxml += t1 - t0
                t_ours += t2 - t1
                counts[f"{form}:pages"] += 1
                diff = None
                if want != got:
                    diff = first_difference(got, want) if not isinstance(want, str) and not isinstance(got, str) \
                        else f"trafila {got if isinstance(got, str) else 'tree'} / lxml {want if isinstance(want, str) else 'tree'}"
                elif args.fromstring:
                    try:
                        w = dump_element(lxml.html.fromstring(src, parser=parser))
                    except Exception as err:
                        w = type(err).__name__
                    try:
                        g = dump_element(fromstring(src))
                    except Exception as err:
                        g = type(err).__name__
                    if w != g:
                        diff = "fromstring: " + str(first_difference(g, w) if isinstance(w, list) and isinstance(g, list) else (g, w))
                if diff:
                    counts[f"{form}:different"] += 1
                    if not args.quiet:
                        print(f"DIFF {page.id} [{form}] (trafila vs lxml) {diff}", flush=True)
        for k, v in sorted(counts.items()):
            totals[k] += v
        print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())), flush=True)
    print("TOTAL: " + ", ".join(f"{k}={v}" for k, v in sorted(totals.items())))
    pages = totals["str:pages"] + totals["bytes:pages"]
    if pages:
        print(f"time: trafila {t_ours:.1f}s ({pages / t_ours:.1f} docs/s, {nbytes / t_ours / 1e6:.2f} MB/s), "
              f"lxml {t_lxml:.1f}s ({pages / t_lxml:.1f} docs/s); ratio {t_ours / t_lxml:.1f}x")
    return 1 if totals["str:different"] + totals["bytes:different"] else 0


def speed(args) -> int:  # type: ignore[no-untyped-def]
    import lxml.etree as etree
    import lxml.html

    parser = lxml.html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                                  remove_comments=True, remove_pis=True)

    def lxml_parse(src):  # type: ignore[no-untyped-def]
        try:
            etree.fromstring(src, parser)
        except ValueError:
            pass  # str with an encoding declaration

    def ours(src):  # type: ignore[no-untyped-def]
        try:
            parse_document(src)
        except ValueError:
            pass

    def best(fn, srcs):  # type: ignore[no-untyped-def]
        times = []
        for _ in range(3):
            t = time.process_time()
            for src in srcs:
                fn(src)
            times.append(time.process_time() - t)
        return min(times)

    for path in bundle_paths(args.bundles):
        for form in args.forms:
            srcs = [p.input(form) for p in iter_pages(path)
                    if (p.index - args.offset) % args.every == 0 and form in p.forms()]
            if not srcs:
                continue
            mb = sum(len(p.raw) for p in iter_pages(path)
                     if (p.index - args.offset) % args.every == 0 and form in p.forms()) / 1e6
            t_lxml, t_ours = best(lxml_parse, srcs), best(ours, srcs)
            print(f"{bundle_name(path)} [{form}] {len(srcs)} pages, {mb:.1f} MB: lxml {t_lxml:.2f}s "
                  f"({len(srcs) / t_lxml:.0f} pages/s), trafila {t_ours:.2f}s ({len(srcs) / t_ours:.0f} pages/s, "
                  f"{mb / t_ours:.1f} MB/s), ratio {t_ours / t_lxml:.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
