"""The hand-translated XPaths of trafila.v2_3_1.xpaths against lxml's XPath.

``python -m harness selectors [--bundle B ...] [--merge]`` runs every selector
with every element of each page's trees as context, and requires the node list
lxml's XPath gives (same nodes, same order). Per page three trees, all made by
trafilatura 2.3.1 itself: the tree its ``load_html`` gives (str form, or the
bytes for pages that only have bytes), and that tree after its own
``tree_cleaning`` + ``convert_tags`` with the default options and with
recall/no tables (the converted vocabulary: list, item, head, quote, ref, lb...).
Writes reports/selectors.md and .json (per bundle; ``--merge`` keeps the other
bundles' rows). tests/test_selectors_2_3_1.py uses the same table on a sample.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .provenance import utc_now, write_report_json, write_report_text
from .corpora import ROOT
from .standalone import standalone

REPORTS = ROOT / "reports"


def pairs() -> List[Tuple[str, Callable[[Any], Any], Callable[[Any], Any]]]:
    """(name, trafila selector, lxml XPath) for every XPath on 2.3.1's text path."""
    from lxml.etree import XPath
    from trafilatura import htmlprocessing as T_hp
    from trafilatura import settings as T_settings
    from trafilatura import xpaths as T_x

    from trafila.v2_3_1 import xpaths as X

    def each(name: str) -> List[Tuple[str, Any, Any]]:
        return [(f"{name}[{i}]", sel, getattr(T_x, name)[i]) for i, sel in enumerate(getattr(X, name))]

    return [
        *each("BODY_XPATH"),
        *each("COMMENTS_XPATH"),
        ("REMOVE_COMMENTS_XPATH", X.REMOVE_COMMENTS_XPATH[0], T_x.REMOVE_COMMENTS_XPATH[0]),
        ("REMOVE_COMMENTS_AND_LISTS_XPATH", X.REMOVE_COMMENTS_AND_LISTS_XPATH[0], T_x.REMOVE_COMMENTS_AND_LISTS_XPATH[0]),
        *each("RAW_TREE_PRUNE_XPATH"),
        *each("OVERALL_DISCARD_XPATH"),
        ("TEASER_DISCARD_XPATH", X.TEASER_DISCARD_XPATH[0], T_x.TEASER_DISCARD_XPATH[0]),
        *each("PRECISION_DISCARD_XPATH"),
        ("DISCARD_IMAGE_ELEMENTS", X.DISCARD_IMAGE_ELEMENTS[0], T_x.DISCARD_IMAGE_ELEMENTS[0]),
        *each("COMMENTS_DISCARD_XPATH"),
        ("BASIC_CLEAN_XPATH", X.basic_clean_xpath, T_settings.BASIC_CLEAN_XPATH),
        ("TEX_ANNOTATION_XPATH", X.tex_annotation, T_hp.TEX_ANNOTATION_XPATH),
        ("hljs spans", X.hljs_spans, XPath(".//span[starts-with(@class,'hljs')]")),
        ("wild text", lambda ctx: X.wild_text_elements(ctx, False),
         XPath(".//code|.//p|.//quote|.//table|.//div[contains(@class, 'w3-code')]")),
        ("wild text (recall)", lambda ctx: X.wild_text_elements(ctx, True),
         XPath(".//code|.//p|.//quote|.//table|.//div[contains(@class, 'w3-code')]|.//div|.//lb|.//list")),
    ]


def elements(root: Any) -> List[Any]:
    return [e for e in root.iter() if isinstance(e.tag, str)]


def compare_tree(lx_root: Any, table: List[Tuple[str, Any, Any]], max_contexts: Optional[int] = None,
                 counts: Optional[Dict[str, int]] = None) -> List[str]:
    """Every pair with every element as context (or ``max_contexts`` spread over
    the tree); the differences, described. ``counts['comparisons']`` grows by
    the number of (selector, context) pairs run."""
    from trafila.v2_3_1 import xpaths as X

    from .lxml_bridge import from_lxml

    tr_root = from_lxml(lx_root)
    lx_elems = elements(lx_root)
    tr_elems = list(tr_root.iter())
    if len(lx_elems) != len(tr_elems):
        return [f"bridge: lxml has {len(lx_elems)} elements, trafila {len(tr_elems)}"]
    index = {id(e): i for i, e in enumerate(tr_elems)}
    lx_index = {e: i for i, e in enumerate(lx_elems)}
    step = max(1, len(lx_elems) // max_contexts) if max_contexts else 1
    problems = []
    for name, sel, xp in table:
        for pos in range(0, len(lx_elems), step):
            expected = [lx_index[e] for e in xp(lx_elems[pos]) if isinstance(e.tag, str)]
            got = [index[id(e)] for e in sel(tr_elems[pos])]
            if counts is not None:
                counts["comparisons"] = counts.get("comparisons", 0) + 1
            if expected != got:
                problems.append(f"{name} at element {pos} <{lx_elems[pos].tag}>: lxml {expected[:8]} trafila {got[:8]}")
    # //p//text(): the text inside <p>s of the whole document. Upstream evaluates it only in extract_content,
    # on the copy(tree) trafilatura_sequence made: a document holding that one root. libxml2 can leave a
    # second top-level <html> in a raw document (trafilatura/4ac1506047c8); the copy does not carry it.
    expected_len = len("".join(copy.deepcopy(lx_root).xpath("//p//text()")))
    if X.p_text_length(tr_root) != expected_len:
        problems.append(f"//p//text() length: lxml {expected_len} trafila {X.p_text_length(tr_root)}")
    return problems


def converted(lx_root: Any, **kw: Any) -> Any:
    "trafilatura's own cleaning and conversion, on an lxml copy."
    from trafilatura import htmlprocessing as T_hp
    from trafilatura import settings as T_settings

    options = T_settings.Extractor(**kw)
    return T_hp.convert_tags(T_hp.tree_cleaning(copy.deepcopy(lx_root), options), options)


TREES: Tuple[Tuple[str, Dict[str, Any]], ...] = (("converted", {}), ("converted-recall-notables",
                                                                        {"recall": True, "tables": False}))


def run_bundle(path: Path, table: List[Tuple[str, Any, Any]], log=print) -> dict:
    from trafilatura.utils import load_html

    from .corpora import iter_pages

    counts: Dict[str, int] = {"pages": 0, "trees": 0, "comparisons": 0, "differences": 0, "no_tree": 0}
    first: List[str] = []
    for page in iter_pages(path):
        counts["pages"] += 1
        root = load_html(page.html if page.html is not None else page.raw)
        if root is None:
            counts["no_tree"] += 1
            continue
        trees = [("raw", root)] + [(name, converted(root, **kw)) for name, kw in TREES]
        for name, tree in trees:
            counts["trees"] += 1
            problems = compare_tree(tree, table, counts=counts)
            counts["differences"] += len(problems)
            for p in problems[: max(0, 20 - len(first))]:
                first.append(f"{page.id} ({name}): {p}")
    return {"counts": counts, "first_differences": first}


def write_report(results: Dict[str, dict], commands: List[str], commit: Optional[str], merge: bool) -> Path:
    import fcntl

    REPORTS.mkdir(exist_ok=True)
    # runs over other bundles may write at the same time: read-modify-write under a lock
    with open(REPORTS / ".selectors.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _write_report(results, commands, commit, merge)


def _write_report(results: Dict[str, dict], commands: List[str], commit: Optional[str], merge: bool) -> Path:
    jpath = REPORTS / "selectors.json"
    data = json.loads(jpath.read_text()) if merge and jpath.exists() else {"bundles": {}, "commands": []}
    date = utc_now()
    for name, res in results.items():
        data["bundles"][name] = dict(res, commit=commit, date=date)
    data["commands"] = data.get("commands", []) + commands
    write_report_json(jpath, data, sort_keys=True)
    total = {k: sum(b["counts"][k] for b in data["bundles"].values())
             for k in ("pages", "trees", "comparisons", "differences", "no_tree")}
    lines = ["# Selector report: trafila.v2_3_1.xpaths vs lxml's XPath", "",
             "Written by `python -m harness selectors` (never by hand). Every selector on 2.3.1's text path, with "
             "every element of each tree as context: trafilatura 2.3.1's load_html tree of the page, and that tree "
             "after its own tree_cleaning + convert_tags (default options; recall without tables). A comparison is "
             "one (selector, context element) pair: the node lists must be equal (same nodes, same order).", "",
             f"- runs: {', '.join(f'`{c}`' for c in data['commands'])}",
             f"- total: {total['pages']} pages, {total['trees']} trees, {total['comparisons']:,} comparisons, "
             f"**{total['differences']} differences**, {total['no_tree']} pages without a tree", "",
             "| bundle | pages | trees | comparisons | differences | commit |", "|---|---:|---:|---:|---:|---|"]
    for name in sorted(data["bundles"]):
        b = data["bundles"][name]
        c = b["counts"]
        lines.append(f"| {name} | {c['pages']} | {c['trees']} | {c['comparisons']:,} | {c['differences']} | {b['commit']} |")
    firsts = [d for b in data["bundles"].values() for d in b["first_differences"]]
    if firsts:
        lines += ["", "## First differences", ""] + [f"- {d}" for d in firsts[:40]]
    md = REPORTS / "selectors.md"
    write_report_text(md, "\n".join(lines) + "\n")
    return md


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The command's arguments (parsed by harness/cli.py, the one command line)."""
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    ap.add_argument("--merge", action="store_true", help="keep the other bundles' rows of reports/selectors.json")
    ap.add_argument("--no-report", action="store_true")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    """Run the command with parsed ``args`` (``argv``: the words, for the report)."""
    from .corpora import bundle_paths
    from .parity import _git_commit
    import trafilatura

    if trafilatura.__version__ != "2.3.1":
        raise SystemExit(f"needs trafilatura 2.3.1 (installed: {trafilatura.__version__})")
    commit = _git_commit()
    table = pairs()
    results: Dict[str, dict] = {}
    for path in bundle_paths(args.bundles):
        if not path.exists():
            print(f"{path.name}: missing, skipped", flush=True)
            continue
        t0 = time.time()
        name = path.name.split(".")[0]
        results[name] = run_bundle(path, table)
        c = results[name]["counts"]
        print(f"{name}: {c['pages']} pages, {c['trees']} trees, {c['comparisons']:,} comparisons, "
              f"{c['differences']} differences, {time.time() - t0:.0f} s", flush=True)
    if not args.no_report and results:
        command = "python -m harness selectors " + " ".join(sys.argv[1:] if argv is None else argv)
        print(f"wrote {write_report(results, [command.strip()], commit, args.merge)}")
    return 1 if any(r["counts"]["differences"] for r in results.values()) else 0


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m harness.selectors``: the same command as ``python -m harness selectors``."""
    return standalone(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
