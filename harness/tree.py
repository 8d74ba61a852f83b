"""Tree mode: trafila's HTML parser against lxml 6.1.3 / libxml2 2.14.6.

``python -m harness tree`` parses every page of every bundle, in both input
forms, with trafila (``trafila.html``) and with lxml driven as trafilatura
drives it, and compares:

* ``document``: the canonical dump of the whole document (every node, the
  doctype and every top-level node, e.g. a second root after ``</html>``);
* ``fromstring``: the root ``lxml.html.fromstring`` chooses;
* ``xml``: the XML serialisation of that root (``tostring(method="xml")``,
  readability's round trip), and the tree re-parsed from it as bytes.

An exception counts as equal only when both raise the matching class. The
shared parser vectors are checked too. Results go to ``reports/tree.md`` and
``reports/tree.json``, with parse speed (pages/s, MB/s) of both parsers.

``--engine`` picks trafila's parser (:func:`trafila._engine.parser`): the
reference (default) or the compiled core, whose parse is compared in the
reference element model; the core gets a fourth check, ``c-model``: its own C
document (``CDocument.dump()``) and C fromstring root agree with that model
(:func:`harness.c_model.c_model_difference`). Each engine has its own
section of the report; a run replaces its engine's section only.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .provenance import utc_now, write_report_json, write_report_text
from .c_model import c_model_difference
from .candidates import HarnessTimeout, call_timeout
from .corpora import ROOT, bundle_name, bundle_paths, page_forms, vectors_path

VECTORS = vectors_path() / "libxml2-2.14.6-trees.json"
REPORTS_DIR = ROOT / "reports"
CHECKS = ("document", "fromstring", "xml")
#: the core's extra check (see the module docstring)
CORE_CHECKS = CHECKS + ("c-model",)
ENGINE_TITLES = {"reference": "trafila reference (Python)",
                 "core": "trafila core (C parse + reference element model)"}


def default_checks(engine: str) -> tuple:
    return CORE_CHECKS if engine == "core" else CHECKS


def lxml_side():
    from lxml import etree, html

    parser = html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                             remove_comments=True, remove_pis=True)
    return etree, html, parser


def outcome(fn: Callable[[], Any], timeout: float) -> Tuple[str, Any]:
    """("ok", value) or ("raise", exception class name)."""
    try:
        with call_timeout(timeout):
            return "ok", fn()
    except HarnessTimeout as exc:
        return "timeout", str(exc)
    except Exception as exc:
        return "raise", type(exc).__name__


#: lxml's exception classes and the trafila classes that stand for them
EXCEPTION_MAP = {"ParserError": "ParserError", "XMLSyntaxError": "ParserError", "ValueError": "ValueError"}


def same_outcome(a: Tuple[str, Any], b: Tuple[str, Any]) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "raise":
        return EXCEPTION_MAP.get(a[1], a[1]) == b[1]
    if a[0] == "timeout":
        return False
    return a[1] == b[1]


class TreeChecker:
    def __init__(self, timeout: float = 60.0, engine: str = "reference") -> None:
        from trafila import _engine

        try:
            from trafila.html.serialize import tostring as ttostring
        except ImportError:  # the serialiser is not there yet: the xml check is skipped
            ttostring = None

        from . import treedump

        self.etree, self.lhtml, self.parser = lxml_side()
        self.engine = engine
        self.thtml = _engine.parser(engine)
        self.ttostring = ttostring
        self.dump = treedump
        self.timeout = timeout
        self.lxml_seconds = 0.0
        self.trafila_seconds = 0.0

    def check(self, src, checks=CHECKS) -> Dict[str, Optional[str]]:
        """For each check: None when equal, else a short description of the first difference."""
        out: Dict[str, Optional[str]] = {}
        etree, lhtml, parser, d = self.etree, self.lhtml, self.parser, self.dump
        if "document" in checks:
            t0 = time.perf_counter()
            a = outcome(lambda: self._lxml_document(src), self.timeout)
            t1 = time.perf_counter()
            b = outcome(lambda: self._trafila_document(src), self.timeout)
            t2 = time.perf_counter()
            self.lxml_seconds += t1 - t0
            self.trafila_seconds += t2 - t1
            out["document"] = None if same_outcome(a, b) else self._describe(a, b)
        if "fromstring" in checks or "xml" in checks:
            a_root = outcome(lambda: lhtml.fromstring(src, parser=parser), self.timeout)
            b_root = outcome(lambda: self.thtml.fromstring(src), self.timeout)
            a = (a_root[0], d.dump_element(a_root[1]) if a_root[0] == "ok" else a_root[1])
            b = (b_root[0], d.dump_element(b_root[1]) if b_root[0] == "ok" else b_root[1])
            if "fromstring" in checks:
                out["fromstring"] = None if same_outcome(a, b) else self._describe(a, b)
            if "xml" in checks and self.ttostring is None:
                out["xml"] = "trafila has no serialiser (trafila.html.serialize)"
            elif "xml" in checks and a_root[0] == "ok" and b_root[0] == "ok":
                xa = outcome(lambda: etree.tostring(a_root[1], encoding=str, method="xml"), self.timeout)
                xb = outcome(lambda: self.ttostring(b_root[1], encoding=str, method="xml"), self.timeout)
                if not same_outcome(xa, xb):
                    out["xml"] = "serialisation: " + self._describe_text(xa, xb)
                elif xa[0] == "ok":
                    ra = outcome(lambda: d.dump_element(lhtml.fromstring(xa[1].encode("utf-8"), parser=parser)), self.timeout)
                    rb = outcome(lambda: d.dump_element(self.thtml.fromstring(xb[1].encode("utf-8"))), self.timeout)
                    out["xml"] = None if same_outcome(ra, rb) else "re-parse: " + self._describe(ra, rb)
                else:
                    out["xml"] = None
        if "c-model" in checks:
            if self.engine != "core":
                out["c-model"] = None
            else:
                res = outcome(lambda: c_model_difference(src), self.timeout)
                out["c-model"] = res[1] if res[0] == "ok" else f"{res[0]} {res[1]}"
        return out

    #: what a document without any element dumps to: lxml then has no root to read the
    #: doctype from, so only the absence of elements is compared
    NO_ROOT = "document without elements"

    def _lxml_document(self, src):
        root = self.etree.fromstring(src, self.parser)
        return self.NO_ROOT if root is None else self.dump.dump_lxml_document(root)

    def _trafila_document(self, src):
        doc = self.thtml.parse_document(src)
        if doc.getroot() is None:
            return self.NO_ROOT
        return self.dump.dump_trafila_document(doc)

    def _describe(self, a, b) -> str:
        if a[0] != "ok" or b[0] != "ok":
            return f"lxml {a[0]} {a[1] if a[0] != 'ok' else ''} / trafila {b[0]} {b[1] if b[0] != 'ok' else ''}".strip()
        return self.dump.first_difference(a[1], b[1]) or "differs"

    @staticmethod
    def _describe_text(a, b) -> str:
        if a[0] != "ok" or b[0] != "ok":
            return f"lxml {a[0]} / trafila {b[0]}"
        x, y = a[1], b[1]
        i = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
        return f"at char {i}: lxml {x[max(0, i - 30):i + 30]!r} / trafila {y[max(0, i - 30):i + 30]!r}"


def check_vectors(checker: TreeChecker) -> Tuple[int, List[dict]]:
    if not VECTORS.exists():
        return 0, []
    cases = json.loads(VECTORS.read_text())
    diffs = []
    for case in cases:
        res = checker.check(case["html"], checks=("document", "fromstring") + (("c-model",) if checker.engine == "core" else ()))
        bad = {k: v for k, v in res.items() if v}
        if bad:
            diffs.append({"vector": case["name"], **bad})
    return len(cases), diffs


def bundle_stats(checker, path: Path, forms, every: int, checks, examples: List[dict], limit: Optional[int] = None,
                 log=None) -> Dict[str, Dict[str, Any]]:
    """Per form: pages, bytes and the count of differences of each check over one
    bundle (``checker.check(src, checks)``); the first 40 go to ``examples``."""
    stats: Dict[str, Dict[str, Any]] = {}
    for page, form in page_forms(path, forms, every, limit):
        s = stats.setdefault(form, {"pages": 0, "bytes": 0, **{c: 0 for c in checks}})
        s["pages"] += 1
        s["bytes"] += len(page.raw)
        res = checker.check(page.input(form), checks)
        for c, v in res.items():
            if v:
                s[c] += 1
                if len(examples) < 40:
                    examples.append({"page": page.id, "form": form, "check": c, "difference": v[:300]})
                    if log:
                        log(f"  DIFF {page.id} {form} {c}: {v[:200]}")
    return stats


def run(bundles: Optional[List[str]] = None, forms=("str", "bytes"), embedded=None, every: int = 1,
        checks=None, log=print, engine: str = "reference") -> dict:
    checks = tuple(checks or default_checks(engine))
    checker = TreeChecker(engine=engine)
    n_vec, vec_diffs = check_vectors(checker)
    log(f"vectors: {n_vec} cases, {len(vec_diffs)} differences")
    rows = []
    examples: List[dict] = []
    for path in bundle_paths(bundles, embedded=embedded):
        if not path.exists():
            rows.append({"bundle": bundle_name(path), "missing": True})
            continue
        stats = bundle_stats(checker, path, forms, every, checks, examples)
        for form, s in stats.items():
            rows.append({"bundle": bundle_name(path), "form": form, **s})
            log(f"{bundle_name(path)} {form}: {s['pages']} pages, " + ", ".join(f"{c} {s[c]}" for c in checks))
    total_bytes = sum(r.get("bytes", 0) for r in rows if "document" in r)
    total_pages = sum(r.get("pages", 0) for r in rows if "document" in r)
    speed = {}
    if "document" in checks and checker.trafila_seconds:
        speed = {
            "pages": total_pages, "megabytes": round(total_bytes / 1e6, 1),
            "lxml_seconds": round(checker.lxml_seconds, 2), "trafila_seconds": round(checker.trafila_seconds, 2),
            "lxml_pages_per_s": round(total_pages / checker.lxml_seconds, 1) if checker.lxml_seconds else None,
            "trafila_pages_per_s": round(total_pages / checker.trafila_seconds, 1),
            "lxml_mb_per_s": round(total_bytes / 1e6 / checker.lxml_seconds, 2) if checker.lxml_seconds else None,
            "trafila_mb_per_s": round(total_bytes / 1e6 / checker.trafila_seconds, 2),
        }
    return {"engine": engine, "vectors": {"cases": n_vec, "differences": vec_diffs}, "rows": rows,
            "examples": examples, "speed": speed, "every": every, "checks": list(checks)}


def _sections(path: Path) -> Dict[str, dict]:
    """The engine sections of an existing tree.json (one written before engines
    had sections is the reference's)."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if "engines" in old:
        return dict(old["engines"])
    return {"reference": old} if "rows" in old else {}


def write_report(result: dict, command: str, out_dir: Path = REPORTS_DIR, commit: Optional[str] = None) -> None:
    """Write this run as its engine's section of reports/tree.{json,md}; the other engine's section stays.
    ``commit``: the code the run loaded (default: HEAD now)."""

    from .parity import _git_commit

    engine = result.get("engine", "reference")
    result = dict(result, engine=engine, date=utc_now(),
                  commit=commit or _git_commit(), command=command)
    out_dir.mkdir(parents=True, exist_ok=True)
    sections = _sections(out_dir / "tree.json")
    sections[engine] = result
    order = [e for e in ENGINE_TITLES if e in sections] + sorted(e for e in sections if e not in ENGINE_TITLES)
    sections = {e: sections[e] for e in order}
    write_report_json(out_dir / "tree.json", {"engines": sections}, ensure_ascii=False)
    lines = ["# Tree report: trafila's parser against lxml 6.1.3 / libxml2 2.14.6", "",
             "Written by `python -m harness tree [--engine reference|core]` (never by hand); one section per engine.",
             ""]
    for e, res in sections.items():
        lines += _section_lines(e, res)
    write_report_text(out_dir / "tree.md", "\n".join(lines) + "\n")


def _section_lines(engine: str, result: dict) -> List[str]:
    checks = result["checks"]
    lines = [f"## Engine: {engine}", "",
             f"- run: {result['date']}, commit {result['commit']}, `{result['command']}`",
             f"- shared vectors: {result['vectors']['cases']} cases, {len(result['vectors']['differences'])} differences",
             f"- pages sampled: every {result['every']}th page" if result["every"] > 1 else "- pages: every page"]
    if "c-model" in checks:
        lines.append("- c-model: the core's C document and C fromstring root against its reference-model forms")
    lines += ["", "| bundle | form | pages | " + " | ".join(f"{c} differences" for c in checks) + " |",
              "|---|---|---:|" + "---:|" * len(checks)]
    totals = {c: 0 for c in checks}
    for r in result["rows"]:
        if r.get("missing"):
            lines.append(f"| {r['bundle']} | missing | | " + " | ".join("" for _ in checks) + " |")
            continue
        lines.append(f"| {r['bundle']} | {r['form']} | {r['pages']} | " + " | ".join(str(r[c]) for c in checks) + " |")
        for c in checks:
            totals[c] += r[c]
    lines.append(f"| **all** | | {sum(r.get('pages', 0) for r in result['rows'])} | " + " | ".join(f"**{totals[c]}**" for c in checks) + " |")
    sp = result.get("speed")
    if sp:
        lines += ["", "### Parse speed (whole documents, same pages, one process)", "",
                  "| parser | seconds | pages/s | MB/s |", "|---|---:|---:|---:|",
                  f"| lxml 6.1.3 (libxml2 2.14.6, C) | {sp['lxml_seconds']} | {sp['lxml_pages_per_s']} | {sp['lxml_mb_per_s']} |",
                  f"| {ENGINE_TITLES.get(engine, engine)} | {sp['trafila_seconds']} | {sp['trafila_pages_per_s']} | {sp['trafila_mb_per_s']} |",
                  "", f"{sp['pages']} parses, {sp['megabytes']} MB."]
    if result["vectors"]["differences"]:
        lines += ["", "### Vector differences", ""] + [f"- {json.dumps(d, ensure_ascii=False)[:300]}" for d in result["vectors"]["differences"]]
    if result["examples"]:
        lines += ["", "### First page differences", ""] + [
            f"- `{e['page']}` {e['form']} {e['check']}: {e['difference']}" for e in result["examples"]]
    return lines + [""]
