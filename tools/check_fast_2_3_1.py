"""Differential check: trafila's v2_3_1 port vs the real trafilatura 2.3.1, fast path.

Usage (from the repo root):
  PYTHONPATH=reference:. /work/venvs/o231/bin/python tools/check_fast_2_3_1.py \
      [--mode lxml|bridge|e2e] [--bundles goose3,newspaper4k] [--every N] [--sets fast,precision,...] [--show N]

Modes:
  lxml    the port runs on the lxml tree itself (parsed with trafilatura's parser):
          checks the port's logic with lxml's element semantics;
  bridge  the lxml tree converted to trafila.dom by harness.lxml_bridge.from_lxml;
  e2e     trafila.html.fromstring parses.
Input: the page as str when it is UTF-8 (else skipped: non-UTF-8 is delegated).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

import lxml.html
import trafilatura
import trafilatura.deduplication
from trafilatura.utils import HTML_PARSER

from harness.corpora import bundle_paths, iter_pages, bundle_name
from trafila.v2_3_1 import _tree, core, deduplication, utils

OPTION_SETS = {
    "fast": dict(fast=True),
    "precision": dict(fast=True, favor_precision=True),
    "recall": dict(fast=True, favor_recall=True),
    "nocomments_notables": dict(fast=True, include_comments=False, include_tables=False),
    "dedup": dict(fast=True, deduplicate=True),
    # the non-fast path: readability and jusText (other helpers' ports) behind compare_extraction
    "full": dict(),
    "full_precision": dict(favor_precision=True),
    "full_recall": dict(favor_recall=True),
    "formatting": dict(fast=True, include_formatting=True),
    "markdown": dict(fast=True, output_format="markdown"),
    "markdown_recall": dict(fast=True, output_format="markdown", favor_recall=True),
    # url=None is replaced by the page's URL
    "links": dict(fast=True, include_links=True, url=None),
    "links_markdown": dict(fast=True, include_links=True, output_format="markdown", url=None),
    "images": dict(fast=True, include_images=True, url=None),
    "images_links_markdown": dict(fast=True, include_images=True, include_links=True, output_format="markdown", url=None),
    "everything": dict(include_images=True, include_links=True, include_formatting=True, url=None),
}
FAST_SETS = "fast,precision,recall,nocomments_notables,dedup"


def setup(mode: str) -> None:
    def lxml_fragment(s):
        return lxml.html.fragment_fromstring(s, create_parent="div")

    if mode == "lxml":
        _tree.set_backend("lxml")
        utils.set_parser(lambda s: lxml.html.fromstring(s, parser=HTML_PARSER), lxml_fragment)
    elif mode == "bridge":
        from harness.lxml_bridge import from_lxml

        _tree.set_backend("trafila")
        utils.set_parser(
            lambda s: from_lxml(lxml.html.fromstring(s, parser=HTML_PARSER)),
            lambda s: from_lxml(lxml_fragment(s)),
        )
    else:
        _tree.set_backend("trafila")
        utils.set_parser(None, None)


def dump(el) -> str:
    "Canonical dump of an element tree (tag, attributes, text, tail), lxml or trafila."
    if el is None:
        return "None"
    out = []

    def walk(e, depth):
        out.append(f"{'  ' * depth}<{e.tag} {sorted(e.attrib.items())}> {e.text!r} tail={e.tail!r}")
        for c in e:
            walk(c, depth + 1)

    walk(el, 0)
    return "\n".join(out)


def _doc_tuple(doc):
    if doc is None:
        return None
    return (doc.text, doc.comments, doc.raw_text, dump(doc.body), dump(doc.commentsbody))


def _bare_ref(data, **opts):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return repr(_doc_tuple(trafilatura.bare_extraction(data, **opts)))


def _bare_port(data, **opts):
    return repr(_doc_tuple(core.bare_extraction(data, **opts)))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="lxml")
    ap.add_argument("--bundles", default="goose3,newspaper4k,commoncrawl,go-trafilatura")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--offset", type=int, default=0, help="take pages whose index %% every == offset")
    ap.add_argument("--sets", default=FAST_SETS)
    ap.add_argument("--show", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--form", default="str", help="str or bytes (UTF-8 pages only)")
    ap.add_argument("--api", default="extract", help="extract (txt) or bare (bare_extraction, python output)")
    args = ap.parse_args()
    setup(args.mode)
    sets = args.sets.split(",")
    diffs = defaultdict(int)
    totals = defaultdict(int)
    errors = defaultdict(int)
    t_ref = defaultdict(float)
    t_port = defaultdict(float)
    shown = 0
    per_page = []
    for path in bundle_paths(args.bundles.split(",")):
        bname = bundle_name(path)
        pages = [p for i, p in enumerate(iter_pages(path)) if i % args.every == args.offset and p.html is not None]
        if args.limit:
            pages = pages[: args.limit]
        for setname in sets:
            opts = OPTION_SETS[setname]
            trafilatura.deduplication.LRU_TEST.clear()
            deduplication.LRU_TEST.clear()
            for page in pages:
                if "url" in OPTION_SETS[setname]:
                    opts = dict(OPTION_SETS[setname], url=page.url)
                data = page.html if args.form == "str" else page.raw
                ref_fn = trafilatura.extract if args.api == "extract" else _bare_ref
                port_fn = core.extract if args.api == "extract" else _bare_port
                t0 = time.perf_counter()
                try:
                    expected = ref_fn(data, **opts)
                except Exception as err:  # noqa: BLE001
                    expected = f"<exception {type(err).__name__}>"
                t1 = time.perf_counter()
                try:
                    got = port_fn(data, **opts)
                except NotImplementedError as err:
                    errors[(bname, setname)] += 1
                    got = f"<delegated {err}>"
                except Exception as err:  # noqa: BLE001
                    import traceback

                    if shown < args.show:
                        traceback.print_exc()
                    got = f"<exception {type(err).__name__}: {err}>"
                t2 = time.perf_counter()
                per_page.append(((t2 - t1) / max(t1 - t0, 1e-9), page.id, setname, t2 - t1, t1 - t0))
                t_ref[(bname, setname)] += t1 - t0
                t_port[(bname, setname)] += t2 - t1
                totals[(bname, setname)] += 1
                if got != expected:
                    diffs[(bname, setname)] += 1
                    if shown < args.show:
                        shown += 1
                        print(f"--- DIFF {bname} {setname} {page.id} (index {page.index})")
                        exp_s, got_s = str(expected), str(got)
                        # first differing position
                        pos = next((i for i, (a, b) in enumerate(zip(exp_s, got_s)) if a != b), min(len(exp_s), len(got_s)))
                        print(f"  expected len {len(exp_s)}, got len {len(got_s)}, first diff at {pos}")
                        print("  exp:", repr(exp_s[max(0, pos - 150): pos + 150]))
                        print("  got:", repr(got_s[max(0, pos - 150): pos + 150]))
            print(
                f"{bname:20s} {setname:20s} pages {totals[(bname, setname)]:4d} diffs {diffs[(bname, setname)]:4d} "
                f"delegated {errors[(bname, setname)]:3d} time ref {t_ref[(bname, setname)]:.2f}s port {t_port[(bname, setname)]:.2f}s",
                flush=True,
            )
    tot = sum(totals.values())
    dif = sum(diffs.values())
    tr, tp = sum(t_ref.values()), sum(t_port.values())
    if per_page:
        per_page.sort()
        n = len(per_page)
        print(
            f"per-page time ratio port/ref: median {per_page[n // 2][0]:.2f}, 90th {per_page[int(n * 0.9)][0]:.2f}, "
            f"max {per_page[-1][0]:.2f} ({per_page[-1][1]} {per_page[-1][2]}: {per_page[-1][3]:.3f}s vs {per_page[-1][4]:.3f}s)"
        )
    print(f"TOTAL pages×sets {tot} diffs {dif} time ref {tr:.2f}s port {tp:.2f}s ratio {tp / tr if tr else 0:.2f}")
    return 1 if dif else 0


if __name__ == "__main__":
    sys.exit(main())
