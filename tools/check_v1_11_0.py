"""Differential check: trafila's v1_11_0 port vs the real trafilatura 1.11.0.

Usage (from the repo root):
  PYTHONPATH=reference:. /work/venvs/o111/bin/python tools/check_v1_11_0.py \
      [--bundles goose3,newspaper4k] [--every N] [--sets nofb,default,...] [--show N] [--parser bridge|trafila]

Both sides get the page as str (UTF-8 pages only). With ``--parser bridge``
(the default) the port parses with lxml + trafilatura's HTML_PARSER and
converts the tree with harness.lxml_bridge.from_lxml, so parser differences do
not count; ``--parser trafila`` uses trafila.html.fromstring.
The ``*_dedup`` sets run the pages in order from cleared caches (per bundle).

``--ref cache`` compares with trafilatura 1.11.0's recorded results
(corpora/oracle/1.11.0/<bundle>.json.gz, str form; sha256 + length) instead of
running it, for the option sets the oracle matrix has.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections import defaultdict

import lxml.html
import trafilatura
import trafilatura.deduplication
from trafilatura.utils import HTML_PARSER

from harness.corpora import bundle_name, bundle_paths, iter_pages
from trafila.v1_11_0 import core, deduplication, utils

# option set -> name in the oracle matrix (harness/matrix.py, mode 1.11.0)
CACHE_NAMES = {
    "nofb": "no_fallback", "default": "default", "precision_nocom": "datatrove-nodedup",
    "precision_nocom_dedup": "datatrove", "recall": "recall", "bare": "bare",
    "nocom_notab": "no-comments-tables", "nofb_dedup": "no_fallback-dedup",
}

OPTION_SETS = {
    "nofb": ("extract", dict(no_fallback=True)),
    "nofb_precision": ("extract", dict(no_fallback=True, favor_precision=True)),
    "nofb_nocom_notab": ("extract", dict(no_fallback=True, include_comments=False, include_tables=False)),
    "default": ("extract", dict()),
    "precision_nocom": ("extract", dict(favor_precision=True, include_comments=False)),
    "precision_nocom_dedup": ("extract", dict(favor_precision=True, include_comments=False, deduplicate=True)),
    "recall": ("extract", dict(favor_recall=True)),
    "bare": ("bare", dict()),
    "nocom_notab": ("extract", dict(include_comments=False, include_tables=False)),
    "nofb_dedup": ("extract", dict(no_fallback=True, deduplicate=True)),
    "formatting": ("extract", dict(include_formatting=True)),
    "markdown": ("extract", dict(output_format="markdown")),
    "nofb_markdown": ("extract", dict(no_fallback=True, output_format="markdown")),
    "bare_formatting": ("bare", dict(include_formatting=True)),
    "links": ("extract", dict(include_links=True)),
    "nofb_links": ("extract", dict(no_fallback=True, include_links=True)),
    "images": ("extract", dict(include_images=True)),
    "nofb_images": ("extract", dict(no_fallback=True, include_images=True)),
    "all_markup": ("extract", dict(include_images=True, include_links=True, include_formatting=True)),
    "lang_en": ("extract", dict(target_language="en")),
    "links_url": ("extract", dict(include_links=True, url="https://www.example.org/news/article.html")),
    "nofb_lang_de": ("extract", dict(no_fallback=True, target_language="de")),
    "lang_fr": ("extract", dict(target_language="fr")),
}
DEFAULT_SETS = "nofb,nofb_precision,nofb_nocom_notab,default,precision_nocom,precision_nocom_dedup,recall,bare"


def setup(parser: str) -> None:
    if parser == "bridge":
        import harness.lxml_bridge as bridge
        from harness.lxml_bridge import from_lxml

        # local workaround: dict(lxml attrib) looks every name up again, which
        # fails ("Invalid tag name") for names like 'a{b'; items() does not
        original_new = bridge._new

        def _new(tag, attrib, text, tail, *rest):
            if attrib is not None and hasattr(attrib, "items"):
                attrib = list(attrib.items())
            return original_new(tag, attrib or None, text, tail, *rest)

        bridge._new = _new

        utils.set_parser(lambda s: from_lxml(lxml.html.fromstring(s, parser=HTML_PARSER)))
    else:
        utils.set_parser(None)


def dump(el) -> str:
    "Canonical dump of an element tree (tag, attributes, text, tail), lxml or trafila."
    if el is None:
        return "None"
    out = []

    def walk(e, depth):
        attrs = sorted((k, str(v)) for k, v in e.attrib.items())
        out.append(f"{'  ' * depth}<{e.tag} {attrs}> {e.text!r} tail={e.tail!r}")
        for c in e:
            walk(c, depth + 1)

    walk(el, 0)
    return "\n".join(out)


def _bare_tuple(result) -> str:
    if result is None:
        return "None"
    return repr((result["text"], result["comments"], result["raw_text"], dump(result["body"]), dump(result["commentsbody"])))


def _cache_entry(api: str, result):
    from harness.results import result_entry, text_entry
    from trafila.html.serialize import tostring

    if api == "extract":
        return text_entry(result)
    if result is None:
        return None
    fields = {k: result[k] for k in ("text", "comments", "raw_text")}
    for k in ("body", "commentsbody"):
        fields[k] = None if result[k] is None else tostring(result[k], encoding=str, method="xml")
    return result_entry(fields)


def run_ref(api: str, data, opts):
    if api == "extract":
        return trafilatura.extract(data, **opts)
    return _bare_tuple(trafilatura.bare_extraction(data, **opts))


def run_port(api: str, data, opts):
    if api == "extract":
        return core.extract(data, **opts)
    return _bare_tuple(core.bare_extraction(data, **opts))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundles", default="goose3,newspaper4k,commoncrawl,go-trafilatura")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--sets", default=DEFAULT_SETS)
    ap.add_argument("--ref", default="live", help="live (run trafilatura 1.11.0) or cache (the oracle cache)")
    ap.add_argument("--show", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--ids", default="", help="only these page ids (comma-separated)")
    ap.add_argument("--parser", default="bridge")
    ap.add_argument("--list", action="store_true", help="print the id of every differing page")
    ap.add_argument("--mutate", type=int, default=0, help="compare on N mutants of the pages instead (live only)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--form", default="str", help="str (UTF-8 pages) or bytes (every page, raw)")
    args = ap.parse_args()
    setup(args.parser)
    ids = set(filter(None, args.ids.split(",")))
    diffs = defaultdict(int)
    totals = defaultdict(int)
    delegated = defaultdict(int)
    t_ref = defaultdict(float)
    t_port = defaultdict(float)
    shown = 0
    for path in bundle_paths(args.bundles.split(",")):
        bname = bundle_name(path)
        pages = [
            p for i, p in enumerate(iter_pages(path))
            if i % args.every == args.offset and (p.html is not None or args.form == "bytes")
            and (not ids or p.id in ids)
        ]
        if args.limit:
            pages = pages[: args.limit]
        if args.mutate:
            from types import SimpleNamespace

            from harness.mutate import mutations

            pages = [
                SimpleNamespace(id=label, index=i, html=html)
                for i, (label, html) in enumerate(mutations(pages, args.seed, args.mutate))
                if isinstance(html, str)
            ]
        cache = None
        if args.ref == "cache":
            import gzip
            import json

            from harness.corpora import CORPORA_DIR

            with gzip.open(CORPORA_DIR / "oracle" / "1.11.0" / f"{bname}.json.gz", "rt", encoding="utf-8") as fh:
                cache = json.load(fh)["results"]
        for setname in args.sets.split(","):
            api, opts = OPTION_SETS[setname]
            if cache is not None and setname not in CACHE_NAMES:
                continue
            trafilatura.deduplication.LRU_TEST.clear()
            deduplication.LRU_TEST.clear()
            key = (bname, setname)
            for page in pages:
                data = page.raw if args.form == "bytes" and not args.mutate else page.html
                t0 = time.perf_counter()
                if cache is not None:
                    expected = cache[page.id]["str"][CACHE_NAMES[setname]]
                else:
                    try:
                        expected = run_ref(api, data, opts)
                    except Exception as err:  # noqa: BLE001
                        expected = f"<exception {type(err).__name__}>"
                t1 = time.perf_counter()
                try:
                    if cache is not None:
                        raw = core.extract(data, **opts) if api == "extract" else core.bare_extraction(data, **opts)
                        got = _cache_entry(api, raw)
                    else:
                        got = run_port(api, data, opts)
                except NotImplementedError as err:
                    delegated[key] += 1
                    got = f"<delegated {err}>"
                except Exception as err:  # noqa: BLE001
                    got = f"<exception {type(err).__name__}>"
                    if cache is not None:
                        got = {"raise": type(err).__name__}
                    if got != expected and shown < args.show:
                        traceback.print_exc()
                t2 = time.perf_counter()
                t_ref[key] += t1 - t0
                t_port[key] += t2 - t1
                totals[key] += 1
                if got != expected:
                    diffs[key] += 1
                    if args.list:
                        print(f"DIFF {bname} {setname} {page.id}")
                    if shown < args.show:
                        shown += 1
                        exp_s, got_s = str(expected), str(got)
                        pos = next((i for i, (a, b) in enumerate(zip(exp_s, got_s)) if a != b), min(len(exp_s), len(got_s)))
                        print(f"--- DIFF {bname} {setname} {page.id} (index {page.index})")
                        print(f"  expected len {len(exp_s)}, got len {len(got_s)}, first diff at {pos}")
                        print("  exp:", repr(exp_s[max(0, pos - 150): pos + 150]))
                        print("  got:", repr(got_s[max(0, pos - 150): pos + 150]))
            print(
                f"{bname:16s} {setname:22s} pages {totals[key]:4d} diffs {diffs[key]:4d} "
                f"delegated {delegated[key]:3d} time ref {t_ref[key]:.1f}s port {t_port[key]:.1f}s",
                flush=True,
            )
    tot, dif = sum(totals.values()), sum(diffs.values())
    print(f"TOTAL pages x sets {tot} diffs {dif}")
    return 1 if dif else 0


if __name__ == "__main__":
    sys.exit(main())
