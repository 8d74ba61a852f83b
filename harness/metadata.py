"""trafila's extract_metadata against trafilatura's, field by field, on every page.

``python -m harness metadata --mode 2.3.1|1.11.0 [--bundle B ...] [--every N]
[--engine reference|core ...] [--write-report]`` (run it in the mode's venv: the
installed trafilatura must be that release). Per page, trafilatura's
``extract_metadata`` runs on the tree its own ``load_html`` gives (the page's str
form, or its bytes), with the page's URL as ``default_url``; trafila's runs on the
tree its engine parses from the same input. Every field of ``harness.matrix``'s
METADATA_FIELDS that extract_metadata fills is compared, except ``date`` while
``trafila.htmldate`` is absent: trafila's date call is then stubbed (None) and the
field is listed as not compared. A page whose extraction raises ``NotNative`` is
counted by reason; beside it, the date strings trafila handed to the installed
dateutil/dateparser one by one (trafila.htmldate's per-string hand-over, by
parser). The tree must come back as it went in (checked on every page:
element tags, text, tails and attributes before and after); a page trafilatura
gets no tree for must give trafila none either.

Writes reports/metadata[-1.11.0].md and .json with ``--write-report``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from .corpora import ROOT

REPORTS = ROOT / "reports"
ENGINES = ("reference", "core")
MODULES = {"2.3.1": "trafila.v2_3_1.metadata", "1.11.0": "trafila.v1_11_0.metadata"}
#: the Document fields extract_metadata sets (the others stay None there)
FILLED = ("title", "author", "url", "hostname", "description", "sitename", "date", "categories", "tags",
          "fingerprint", "id", "license", "image", "pagetype", "filedate")
MAX_EXAMPLES = 8


def compared_fields(date_native: bool) -> Tuple[str, ...]:
    "METADATA_FIELDS that extract_metadata fills, date only when it is native."
    from .matrix import METADATA_FIELDS

    return tuple(f for f in METADATA_FIELDS if f in FILLED and (date_native or f != "date"))


def date_is_native() -> bool:
    "Whether trafila.htmldate (the date port) is importable."
    try:
        importlib.import_module("trafila.htmldate")
    except ImportError:
        return False
    return True


def _handover_counter(date_native: bool) -> Any:
    "trafila.htmldate's count of per-string hand-overs (an empty count without the port)."
    if date_native:
        return importlib.import_module("trafila.htmldate.extractors").handover_counts
    return dict


def _snapshot(tree: Any) -> List[Any]:
    "What the extraction must leave unchanged: each element's tag, text, tail, attributes."
    from trafila.v2_3_1._tree import desc_list

    return [(el.tag, el.text, el.tail, tuple(el.attrib.items())) for el in [tree, *desc_list(tree)]]


def _backend_of(engine: str) -> Any:
    from trafila import _backend, _engine

    if engine == "reference":
        return _backend.reference()
    core = importlib.import_module(_engine.CORE_MODULE)
    return _backend.core_backend(core)


def run_pages(mode: str, engines: List[str], bundles: Optional[List[str]], every: int,
              limit: Optional[int], log: Any = print) -> Dict[str, Any]:
    "Compare on the corpus; the result dict the report is written from."
    import trafilatura
    from trafilatura.metadata import extract_metadata as their_extract

    from trafila import _backend
    from trafila._engine import NotNative
    from .corpora import bundle_paths, iter_pages

    ours = importlib.import_module(MODULES[mode])
    load_html = importlib.import_module(MODULES[mode].rsplit(".", 1)[0] + ".utils").load_html
    date_native = date_is_native()
    if not date_native:
        # date not compared: both sides skip the date search (htmldate copies the tree it
        # searches, so the other fields do not depend on it); most of trafilatura's time otherwise
        ours._find_date = lambda tree, params: None
        importlib.import_module("trafilatura.metadata").find_date = lambda *args, **kwargs: None
    fields = compared_fields(date_native)
    handover_counts = _handover_counter(date_native)
    backends = {name: _backend_of(name) for name in engines}
    result: Dict[str, Any] = {
        "mode": mode, "engines": engines, "fields": list(fields), "date_compared": date_native,
        "pages": 0, "no_tree": 0,
        "per_engine": {name: {"compared": 0, "equal": 0, "differing_pages": 0, "differing": Counter(),
                              "not_native": Counter(), "handed_over": Counter(), "mutated": 0, "time": 0.0, "examples": []}
                       for name in engines},
        "trafilatura_time": 0.0,
    }
    for path in bundle_paths(bundles):
        if not path.exists():
            log(f"{path.name}: missing, skipped", flush=True)
            continue
        t0 = time.time()
        for page in iter_pages(path):
            if limit is not None and page.index >= limit:
                break
            if page.index % every:
                continue
            src = page.input(page.forms()[0])
            lx_tree = trafilatura.load_html(src)
            result["pages"] += 1
            if lx_tree is None:
                # no tree for trafilatura: none for trafila either (its extract_metadata then
                # gives an empty Document in 2.3.1, None in 1.11.0, as upstream does)
                result["no_tree"] += 1
                for name, backend in backends.items():
                    if _backend.run_with(backend, load_html, src) is not None:
                        result["per_engine"][name]["differing"]["(tree where trafilatura has none)"] += 1
                        result["per_engine"][name]["differing_pages"] += 1
                continue
            t = time.perf_counter()
            theirs = their_extract(lx_tree, page.url)
            result["trafilatura_time"] += time.perf_counter() - t
            for name, backend in backends.items():
                stats = result["per_engine"][name]
                tree = _backend.run_with(backend, load_html, src)
                if tree is None:
                    stats["differing"]["(no tree)"] += 1
                    continue
                before = _snapshot(tree)
                handed_before = handover_counts()
                t = time.perf_counter()
                try:
                    mine = _backend.run_with(backend, ours.extract_metadata, tree, page.url)
                except NotNative as err:
                    stats["not_native"][err.reason] += 1
                    continue
                finally:
                    stats["time"] += time.perf_counter() - t
                    handed = Counter(handover_counts())
                    handed.subtract(handed_before)
                    stats["handed_over"].update(+handed)
                if _snapshot(tree) != before:
                    stats["mutated"] += 1
                stats["compared"] += 1
                diffs = [f for f in fields if getattr(mine, f, None) != getattr(theirs, f, None)]
                if not diffs:
                    stats["equal"] += 1
                    continue
                stats["differing_pages"] += 1
                for f in diffs:
                    stats["differing"][f] += 1
                    if len(stats["examples"]) < MAX_EXAMPLES:
                        stats["examples"].append({"page": page.id, "url": page.url, "field": f,
                                                  "ours": repr(getattr(mine, f, None))[:200],
                                                  "theirs": repr(getattr(theirs, f, None))[:200]})
        log(f"{path.name.split('.')[0]}: done in {time.time() - t0:.0f} s ({result['pages']} pages so far)", flush=True)
    return result


def summary_lines(result: Dict[str, Any]) -> List[str]:
    "The human summary (stdout and the report's body)."
    lines = [f"mode {result['mode']}: {result['pages']} pages ({result['no_tree']} without a tree for trafilatura); "
             f"fields compared: {', '.join(result['fields'])}"
             + ("" if result["date_compared"] else " (date not compared: trafila.htmldate absent, both date searches stubbed)"),
             f"trafilatura's extract_metadata: {result['trafilatura_time']:.1f} s"]
    for name, s in result["per_engine"].items():
        differing = ", ".join(f"{f}: {n}" for f, n in sorted(s["differing"].items())) or "none"
        not_native = ", ".join(f"{r}: {n}" for r, n in sorted(s["not_native"].items())) or "none"
        handed = ", ".join(f"{r}: {n}" for r, n in sorted(s.get("handed_over", {}).items())) or "none"
        lines.append(f"- {name}: {s['compared']} compared, {s['equal']} equal, {s['differing_pages']} differing "
                     f"(fields: {differing}); NotNative: {not_native}; date strings handed over one by one: "
                     f"{handed}; trees changed: {s['mutated']}; "
                     f"{s['time']:.1f} s")
        for ex in s["examples"]:
            lines.append(f"    {ex['url'] or ex['page']} {ex['field']}: ours {ex['ours']} theirs {ex['theirs']}")
    return lines


def write_report(result: Dict[str, Any], command: str) -> str:
    "reports/metadata[-1.11.0].md and .json (no machine paths)."
    from .provenance import git_commit, portable_command, utc_now, write_report_json, write_report_text

    stem = "metadata" if result["mode"] == "2.3.1" else f"metadata-{result['mode']}"
    data = json.loads(json.dumps(result, default=dict))
    data.update(command=portable_command(command.split()), commit=git_commit(mark_dirty=True), date=utc_now())
    write_report_json(REPORTS / f"{stem}.json", data, sort_keys=True)
    body = [f"# extract_metadata, trafila against trafilatura {result['mode']}", "",
            f"`{data['command']}` (commit {data['commit']}, {data['date']})", "",
            "Every page of the shared corpora: trafilatura's `extract_metadata` on its own `load_html` tree, "
            "trafila's on its engine's tree of the same input, field by field.", "", *summary_lines(result), ""]
    write_report_text(REPORTS / f"{stem}.md", "\n".join(body))
    return f"reports/{stem}.md"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The command's arguments (parsed by harness/cli.py)."""
    ap.add_argument("--mode", choices=tuple(MODULES), default="2.3.1")
    ap.add_argument("--engine", action="append", dest="engines", choices=ENGINES, help="default: both")
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    ap.add_argument("--every", type=int, default=1, help="every N-th page of each bundle")
    ap.add_argument("--limit", type=int, default=None, help="the first N pages of each bundle")
    ap.add_argument("--write-report", action="store_true")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    """Run the command; exit status 1 when a field differs or a tree changed."""
    import trafilatura

    if trafilatura.__version__ != args.mode:
        raise SystemExit(f"--mode {args.mode} needs trafilatura {args.mode} (installed: {trafilatura.__version__})")
    result = run_pages(args.mode, args.engines or list(ENGINES), args.bundles, args.every, args.limit)
    for line in summary_lines(result):
        print(line)
    if args.write_report:
        command = "python -m harness metadata " + " ".join(sys.argv[1:] if argv is None else argv)
        print(f"wrote {write_report(result, command.strip())}")
    bad = any(s["differing_pages"] or s["mutated"] for s in result["per_engine"].values())
    return 1 if bad else 0


def main(argv: Optional[List[str]] = None) -> int:
    from .standalone import standalone

    return standalone(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
