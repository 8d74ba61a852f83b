"""Parity runs: a candidate against the oracle cache, reports, and the ledger gate.

``python -m harness parity --candidate reference --mode 2.3.1`` compares every
(page, form, option set) of every bundle with the cached oracle result, writes
``parity.md`` and ``parity.json`` (one section per candidate and mode, others
kept) to ``.cache/reports/`` (ignored by git; ``--write-reports`` writes the
committed ``reports/`` instead) and exits non-zero when a difference is not in
the ledger (``corpora/known-differences.json``) or a ledger entry no longer
differs (1), or when a cache is missing or stale (3): it never compares against
nothing, and a run that stopped so never writes the committed reports.
"""

from __future__ import annotations

import contextlib
import json
import platform
import re
import time
import unicodedata
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from .candidates import Candidate, make_candidate
from .corpora import CORPORA_DIR, ROOT, BundleError, bundle_name, bundle_paths, describe_corpus, load_pages
from .matrix import OptionSet, option_sets
from .oracle import OtherInterpreter, StaleCache, page_key, remedy, resolve_cache, run_call
from .provenance import git_commit as _git_commit  # other modules import it from here too
from .provenance import write_report_json, write_report_text
from .provenance import utc_now
from .results import day_of_entry, describe, differing_fields, run_day, same

#: the committed reports, written only when asked (--write-reports or --report-dir reports)
REPORTS_DIR = ROOT / "reports"
#: where a run writes its report by default (ignored by git)
LOCAL_REPORTS_DIR = ROOT / ".cache" / "reports"
LEDGER_FILE = CORPORA_DIR / "known-differences.json"

#: how many differences per run get a detailed look (oracle re-run, first differing line)
DETAILED = 10
#: a progress line at least this often (seconds) on a long run, so a log file shows it is alive
PROGRESS_SECONDS = 60.0


@dataclass
class Difference:
    bundle: str
    page: str
    form: str
    option_set: str
    expected: object
    got: object
    got_text: object = None  # the candidate's plain result, kept for the detailed look

    def key(self) -> Tuple[str, str, str]:
        return (self.page, self.option_set, self.form)

    def as_json(self) -> dict:
        out = {
            "bundle": self.bundle, "page": self.page, "form": self.form, "option_set": self.option_set,
            "expected": describe(self.expected), "got": describe(self.got),
        }
        fields = differing_fields(self.expected, self.got)
        if fields:
            out["fields"] = fields
        return out


@dataclass
class Cell:
    """Counts for one bundle x option set."""

    pages: int = 0
    comparisons: int = 0
    differences: int = 0
    errors: int = 0
    delegated: int = 0  # calls the candidate handed to trafilatura instead of running natively
    candidate_seconds: float = 0.0
    oracle_seconds: float = 0.0
    oracle_calls: int = 0


@dataclass
class RunResult:
    candidate: str
    mode: str
    cells: Dict[Tuple[str, str], Cell] = field(default_factory=dict)
    differences: List[Difference] = field(default_factory=list)
    errors: List[dict] = field(default_factory=list)
    stale: List[str] = field(default_factory=list)
    #: a named subset of the pages (``non-utf8``: --only-non-utf8), None for all pages
    subset: Optional[str] = None
    #: (page, form) compared, when a subset was run: the ledger's "no longer differs" looks only there
    compared: Optional[set] = None
    #: bundle -> where its oracle cache came from: "committed", "local" or "live" (oracle.CacheChoice)
    caches: Dict[str, str] = field(default_factory=dict)
    #: (bundle, estimated seconds) of the bundles whose cache for this interpreter is missing
    other_interpreter: List[Tuple[str, float]] = field(default_factory=list)
    #: the FallbackWarnings the candidate raised, held back from the output (their messages)
    fallback_warnings: List[str] = field(default_factory=list)
    #: oracle day -> comparisons equal once the candidate's run day is written as that day (a
    #: cached result with metadata carries the day it was made: results.day_of_entry)
    as_of_day: Dict[str, int] = field(default_factory=dict)

    @property
    def comparisons(self) -> int:
        return sum(c.comparisons for c in self.cells.values())

    @property
    def delegated(self) -> int:
        return sum(c.delegated for c in self.cells.values())


@contextlib.contextmanager
def held_fallback_warnings(seen: List[str]) -> Iterator[None]:
    """Keep trafila's FallbackWarnings out of the output, their messages in ``seen``; every other
    warning is shown as before. (They are expected in a parity run: the calls they announce are
    counted as delegated and compared like the others.)"""
    try:
        from trafila import FallbackWarning
    except Exception:  # a candidate that is not trafila
        yield
        return
    previous = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if isinstance(category, type) and issubclass(category, FallbackWarning):
            seen.append(str(message))
            return
        previous(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous


#: the subset --only-non-utf8 runs: the bytes form of the pages trafilatura decompresses or charset-detects
NON_UTF8 = "non-utf8"


def load_ledger(path: Path = LEDGER_FILE) -> List[dict]:
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    return data.get("entries", [])


def _ledger_applies(entry: dict, candidate: str, mode: str) -> bool:
    if entry.get("mode") != mode:
        return False
    cands = entry.get("candidates")
    return cands is None or candidate in cands


def run(candidate: Candidate, mode: str, bundles: Optional[List[str]] = None, sets: Optional[List[str]] = None,
        forms: Tuple[str, ...] = ("str", "bytes"), embedded: Optional[bool] = None, timeout: float = 120.0,
        check_versions: bool = True, log: Optional[Callable[[str], None]] = None, live: Optional[bool] = None,
        progress_seconds: float = PROGRESS_SECONDS, only_non_utf8: bool = False) -> RunResult:
    """Compare ``candidate`` with the oracle on every (page, form, option set) of the bundles.

    ``live``: whether a bundle whose committed cache was made with other Unicode tables may have
    one made now by the installed trafilatura (None: when that is quick; see
    :func:`harness.oracle.resolve_cache`). ``log`` gets one line per bundle and a progress line
    at least every ``progress_seconds``. ``only_non_utf8``: only the bytes form of the pages that
    are not UTF-8 or look compressed (:meth:`Page.decoded_by_trafilatura`); dedup sets then still
    run every bytes page before the last selected one, in page order, uncompared: the oracle's
    cache saw them, so the counts the selected pages meet are the same.
    """
    if log is None:
        def log(message: str) -> None:  # flushed: progress shows when stdout is a file or a pipe
            print(message, flush=True)
    res = RunResult(candidate.name, mode)
    if only_non_utf8:
        res.subset, res.compared, forms = NON_UTF8, set(), ("bytes",)
    with held_fallback_warnings(res.fallback_warnings):
        _run(res, candidate, mode, bundles, sets, forms, embedded, timeout, check_versions, log, live,
             progress_seconds, only_non_utf8)
    return res


def _run(res: RunResult, candidate: Candidate, mode: str, bundles, sets, forms, embedded, timeout, check_versions,
         log: Callable[[str], None], live: Optional[bool], progress_seconds: float, only_non_utf8: bool) -> None:
    opts = option_sets(mode, sets)
    t0 = last = time.monotonic()
    day_hint: Dict[Tuple[str, str], str] = {}  # (bundle, option set) -> the day its cached results were made
    versions = None
    if check_versions:
        try:
            from .oracle import oracle_versions

            versions = oracle_versions()
            if versions.get("trafilatura") != mode:
                versions = None  # this env's oracle is another release: check the bundle pins only
        except Exception:
            versions = None
    paths = bundle_paths(bundles, embedded=embedded)
    for number, path in enumerate(paths, 1):
        bname = bundle_name(path)
        try:
            choice = resolve_cache(mode, path, opts, versions, live=live, log=log)
        except OtherInterpreter as err:
            res.stale.append(str(err))
            res.other_interpreter.append((bname, err.seconds))
            log(f"STOP {bname}: no oracle cache for this interpreter ({err})")
            continue
        except (StaleCache, BundleError) as err:
            res.stale.append(str(err))
            log(f"STOP {bname}: {err}")
            continue
        res.caches[bname] = choice.source
        cache = choice.data
        corrupt: list = []
        pages = load_pages(path, corrupt)
        for rec_id, msg in corrupt:
            res.errors.append({"bundle": bname, "page": rec_id, "message": msg})
        expected_all = cache["results"]
        for opt in opts:
            cell = res.cells.setdefault((bname, opt.name), Cell())
            timing = cache.get("timing", {}).get(opt.name, {})
            for form in forms:
                todo = [p for p in pages if form in p.forms()]
                warmup: set = set()
                if only_non_utf8:
                    chosen = [p for p in todo if p.decoded_by_trafilatura()]
                    if opt.dedup and chosen:
                        warmup = {p.id for p in todo[: todo.index(chosen[-1])] if not p.decoded_by_trafilatura()}
                        todo = todo[: todo.index(chosen[-1]) + 1]
                    else:
                        todo = chosen
                if not todo:
                    continue
                if opt.dedup:
                    candidate.reset_dedup(mode)
                n, secs = timing.get(form, [0, 0.0])
                cell.oracle_calls += n
                cell.oracle_seconds += secs
                if hasattr(candidate, "prepare_batch"):  # a batch candidate: all these pages in one call, in order
                    tb = time.perf_counter()
                    candidate.prepare_batch(opt.function, [p.input(form) for p in todo], dict(opt.options), mode, timeout)
                    cell.candidate_seconds += time.perf_counter() - tb
                for page in todo:
                    if time.monotonic() - last >= progress_seconds:
                        last = time.monotonic()
                        log(f"  ... bundle {number}/{len(paths)} {bname}, option set {opt.name}, {form}: "
                            f"{res.comparisons} comparisons, {len(res.differences)} differences so far, "
                            f"{last - t0:.0f} s")
                    expected = expected_all.get(page_key(page), {}).get(form, {}).get(opt.name, "missing")
                    if expected == "missing":
                        res.stale.append(f"{bname}: no oracle result for {page.id} {form} {opt.name}")
                        continue
                    entry, seconds, plain = _call(candidate, opt, page, form, mode, timeout)
                    if page.id in warmup:
                        continue  # only fills the dedup cache as the oracle's run did
                    if res.compared is not None:
                        res.compared.add((page.id, form))
                    cell.comparisons += 1
                    cell.delegated += bool(getattr(candidate, "last_delegated", False))
                    cell.candidate_seconds += seconds
                    if isinstance(entry, dict) and "error" in entry:
                        cell.errors += 1
                        res.errors.append({"bundle": bname, "page": page.id, "form": form, "option_set": opt.name,
                                           "message": entry["error"]})
                    if not same(expected, entry) and plain is not None:
                        # a result with metadata names the day it was made: the cache's may be earlier
                        day = day_of_entry(expected, plain, run_day(), day_hint.get((bname, opt.name)))
                        if day is not None:
                            day_hint[(bname, opt.name)] = day
                            res.as_of_day[day] = res.as_of_day.get(day, 0) + 1
                            entry = expected
                    if not same(expected, entry):
                        cell.differences += 1
                        res.differences.append(Difference(bname, page.id, form, opt.name, expected, entry,
                                                          plain if len(res.differences) < DETAILED else None))
            cell.pages = len(pages) if not only_non_utf8 else sum(p.decoded_by_trafilatura() for p in pages)
        done = [c for (b, _), c in res.cells.items() if b == bname]
        source = {"committed": "committed cache", "local": "cache made here for this interpreter",
                  "live": f"cache made now for this interpreter in {choice.seconds:.0f} s"}[choice.source]
        selected = f" ({sum(p.decoded_by_trafilatura() for p in pages)} {NON_UTF8})" if only_non_utf8 else ""
        log(f"{bname}: {len(pages)} pages{selected}, {sum(c.comparisons for c in done)} comparisons, "
            f"{sum(c.differences for c in done)} differences (oracle: {source})")


def _call(candidate: Candidate, opt: OptionSet, page, form: str, mode: str, timeout: float):
    """Like oracle.run_call, but also keeps the plain result for the detailed look."""
    kept: list = []

    class Keeper(Candidate):
        name = candidate.name

        def call(self, function, html, options, mode_):
            out = candidate.call(function, html, options, mode_)
            kept.append(out)
            return out

    entry, seconds = run_call(Keeper(), opt, page, form, mode, timeout)
    return entry, seconds, (kept[0] if kept else None)


def first_differing_line(a: Optional[str], b: Optional[str]) -> Tuple[Optional[int], Optional[str], Optional[str]]:
    if a is None or b is None:
        return (None, a if a is None else a.split("\n", 1)[0], b if b is None else b.split("\n", 1)[0])
    la, lb = a.split("\n"), b.split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<no line>"
        y = lb[i] if i < len(lb) else "<no line>"
        if x != y:
            return (i + 1, x, y)
    return (None, None, None)


def detail(diff: Difference, mode: str, embedded: Optional[bool]) -> dict:
    """Re-run the oracle on the page to show the first differing line of both sides."""
    out = diff.as_json()
    try:
        from .candidates import TrafilaturaCandidate

        oracle = TrafilaturaCandidate()
        oracle.check_mode(mode)
    except Exception as err:
        out["detail"] = f"oracle not available here to re-run ({err})"
        return out
    opt = next(o for o in option_sets(mode) if o.name == diff.option_set)
    page = next(p for path in bundle_paths([diff.bundle], embedded=embedded) for p in load_pages(path) if p.id == diff.page)
    try:
        expected = oracle.call(opt.function, page.input(diff.form), dict(opt.options), mode)
    except Exception as err:
        expected = f"<raises {type(err).__name__}>"
    got = diff.got_text
    if isinstance(expected, dict) or isinstance(got, dict):
        field_name = (differing_fields(diff.expected, diff.got) or ["text"])[0]
        expected = expected.get(field_name) if isinstance(expected, dict) else expected
        got = got.get(field_name) if isinstance(got, dict) else got
        out["field"] = field_name
    line, x, y = first_differing_line(expected if isinstance(expected, str) or expected is None else str(expected),
                                      got if isinstance(got, str) or got is None else str(got))
    out["first_differing_line"] = line
    out["oracle_line"] = x
    out["candidate_line"] = y
    if opt.dedup:
        out["note"] = "dedup set: the oracle was re-run on this page alone, out of page order"
    return out


def gate(res: RunResult, ledger: List[dict]) -> Tuple[List[Difference], List[dict]]:
    """(new differences, ledger entries in scope that no longer differ)."""
    scope_sets = {s for (_, s) in res.cells}
    scope_bundles = {b for (b, _) in res.cells}
    applicable = [e for e in ledger if _ledger_applies(e, res.candidate, res.mode)]
    known = {(e["page"], e["option_set"], e.get("form", "str")): e for e in applicable}
    found = {d.key() for d in res.differences}
    new = [d for d in res.differences if d.key() not in known]
    gone = [e for k, e in known.items()
            if k not in found and e["option_set"] in scope_sets and e.get("bundle") in scope_bundles
            and (res.compared is None or (k[0], k[2]) in res.compared)]
    return new, gone




def section_json(res: RunResult, new: List[Difference], gone: List[dict], details: List[dict], argv: List[str],
                 commit: Optional[str] = None) -> dict:
    """The report section of a run; ``commit``: HEAD when the run started (the code it loaded)."""
    cells = []
    commit = commit or _git_commit()
    date = utc_now()
    for (bname, sname), c in sorted(res.cells.items()):
        cells.append({
            "bundle": bname, "option_set": sname, "commit": commit, "date": date,
            "pages": c.pages, "comparisons": c.comparisons,
            "differences": c.differences, "errors": c.errors, "delegated": c.delegated,
            "candidate_ms_per_call": round(1000 * c.candidate_seconds / c.comparisons, 2) if c.comparisons else None,
            "oracle_ms_per_call": round(1000 * c.oracle_seconds / c.oracle_calls, 2) if c.oracle_calls else None,
        })
    return {
        "candidate": res.candidate, "mode": res.mode, "subset": res.subset,
        "date": date, "commit": commit, "command": "python -m harness " + " ".join(argv),
        "python": platform.python_version(), "unicodedata": unicodedata.unidata_version,
        "oracle_caches": dict(sorted(res.caches.items())),
        "totals": {
            "comparisons": sum(c.comparisons for c in res.cells.values()),
            "differences": len(res.differences), "errors": len(res.errors),
            "delegated": sum(c.delegated for c in res.cells.values()),
            "new_differences": len(new), "ledger_entries_no_longer_differing": len(gone),
            "stale_or_missing": len(res.stale),
            "equal_as_of_oracle_day": dict(sorted(res.as_of_day.items())),
        },
        "cells": cells, "first_differences": details, "errors": res.errors[:50], "stale": res.stale,
        "gone_from_ledger": gone,
    }


def merge_sections(old: dict, new: dict) -> dict:
    """A section holding both runs' cells; a bundle x option set run again replaces the old cell."""
    cells = {(c["bundle"], c["option_set"]): c for c in old.get("cells", [])}
    cells.update({(c["bundle"], c["option_set"]): c for c in new["cells"]})
    redone = {(c["bundle"], c["option_set"]) for c in new["cells"]}
    kept_diffs = [d for d in old.get("first_differences", []) if (d["bundle"], d["option_set"]) not in redone]
    merged = dict(new)
    # cells written before cells carried their own commit: the run that wrote them was at (or before) the
    # commit the old section names
    for cell in cells.values():
        if "commit" not in cell:
            cell["commit_at_most"] = old.get("commit")
    merged["cells"] = [cells[k] for k in sorted(cells)]
    merged["first_differences"] = (new["first_differences"] + kept_diffs)[:DETAILED]
    merged["commands"] = old.get("commands", [old.get("command")]) + [new["command"]]
    totals = dict(new["totals"])
    for key in ("comparisons", "differences", "errors", "delegated"):
        totals[key] = sum(c.get(key, 0) for c in merged["cells"])
    totals["new_differences"] = new["totals"]["new_differences"] + old.get("totals", {}).get("new_differences", 0)
    merged["totals"] = totals
    return merged


def write_reports(section: dict, out_dir: Path = REPORTS_DIR, name: str = "parity", merge: bool = False) -> None:
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    jpath = out_dir / f"{name}.json"
    # runs of other candidates may write the same report at the same time: read-modify-write under a lock
    with open(out_dir / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(jpath.read_text()) if jpath.exists() else {"runs": {}}
        key = f"{section['candidate']} / {section['mode']}"
        if section.get("subset"):
            key += f" / {section['subset']}"  # a subset run has its own section: it never replaces the full one
        if merge and key in data["runs"]:
            section = merge_sections(data["runs"][key], section)
        data["runs"][key] = section
        write_report_json(jpath, data, sort_keys=True, ensure_ascii=False)
        write_report_text(out_dir / f"{name}.md", render_markdown(data))


def _cell_commit(cell: dict, section: dict) -> str:
    "The commit a cell was computed at ('≤X': written before cells kept their own, by a run at or before X)."
    return cell.get("commit") or f"≤{cell.get('commit_at_most') or section.get('commit') or '?'}"


def render_markdown(data: dict) -> str:
    lines = ["# Parity report", "",
             "Written by `python -m harness parity` (never by hand). One section per candidate and mode; "
             "each cell compares the candidate with the cached oracle (sha256 + length per page, form and option set).", ""]
    for key in sorted(data["runs"]):
        s = data["runs"][key]
        t = s["totals"]
        commits = sorted({_cell_commit(c, s) for c in s["cells"]})
        runs = s.get("commands", [s["command"]])
        lines += [f"## {key}", "",
                  f"- {len(runs)} run(s) merged, the latest {s['date']} at commit {s.get('commit') or '?'}; the cells come "
                  f"from commit(s) {', '.join(commits)} (per bundle below): " + ", ".join(f"`{c}`" for c in runs),
                  f"- comparisons: {t['comparisons']} (of which handed to trafilatura, not native: {t.get('delegated', 0)}), "
                  f"differences: {t['differences']}, errors: {t['errors']}, "
                  f"new (not in ledger): {t['new_differences']}, ledger entries no longer differing: "
                  f"{t['ledger_entries_no_longer_differing']}, stale/missing caches: {t['stale_or_missing']}"
                  + ("; equal as of the oracle's day (its cached results name the day they were made): "
                     + ", ".join(f"{k} on {d}" for d, k in t["equal_as_of_oracle_day"].items())
                     if t.get("equal_as_of_oracle_day") else ""), ""]
        by_set: Dict[str, Dict[str, float]] = {}
        for c in s["cells"]:
            agg = by_set.setdefault(c["option_set"], {"pages": 0, "comparisons": 0, "delegated": 0, "differences": 0,
                                                       "errors": 0, "cand": 0.0, "orc": 0.0, "n": 0})
            for k in ("pages", "comparisons", "delegated", "differences", "errors"):
                agg[k] += c.get(k, 0)
            if c["candidate_ms_per_call"] is not None and c["oracle_ms_per_call"] is not None:
                agg["cand"] += c["candidate_ms_per_call"] * c["comparisons"]
                agg["orc"] += c["oracle_ms_per_call"] * c["comparisons"]
                agg["n"] += c["comparisons"]
        lines += ["| option set | pages | comparisons | delegated | differences | errors | candidate ms/call | oracle ms/call (cached run) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name, a in by_set.items():
            cand = f"{a['cand'] / a['n']:.1f}" if a["n"] else "-"
            orc = f"{a['orc'] / a['n']:.1f}" if a["n"] else "-"
            lines.append(f"| {name} | {a['pages']} | {a['comparisons']} | {a['delegated']} | {a['differences']} | {a['errors']} | {cand} | {orc} |")
        lines.append("")
        lines += ["<details><summary>per bundle</summary>", "",
                  "| bundle | option set | pages | comparisons | differences | errors | commit |",
                  "|---|---|---:|---:|---:|---:|---|"]
        for c in s["cells"]:
            commit = _cell_commit(c, s)
            lines.append(f"| {c['bundle']} | {c['option_set']} | {c['pages']} | {c['comparisons']} | {c['differences']} "
                         f"| {c['errors']} | {commit} |")
        lines += ["", "</details>", ""]
        if s["first_differences"]:
            lines += ["### First differences", ""]
            for d in s["first_differences"]:
                lines.append(f"- `{d['page']}` ({d['bundle']}, {d['form']}, {d['option_set']}): oracle {d['expected']}; candidate {d['got']}")
                if d.get("first_differing_line") is not None or d.get("oracle_line") is not None:
                    lines.append(f"  - line {d.get('first_differing_line')}{' of ' + d['field'] if d.get('field') else ''}: "
                                 f"oracle `{_short(d.get('oracle_line'))}` / candidate `{_short(d.get('candidate_line'))}`")
                if d.get("detail"):
                    lines.append(f"  - {d['detail']}")
            lines.append("")
        if s["errors"]:
            lines += ["### Errors", ""] + [f"- {e.get('page')}: {e['message']}" for e in s["errors"][:20]] + [""]
        if s["stale"]:
            lines += ["### Stale or missing oracle caches", ""] + [f"- {m}" for m in s["stale"][:20]] + [""]
    return "\n".join(lines) + "\n"


def _short(s: Optional[str], n: int = 120) -> str:
    if s is None:
        return "None"
    s = s.replace("`", "'")
    return s if len(s) <= n else s[:n] + "…"


def _what(res_candidate: str, mode: str, n_sets: int, forms: Tuple[str, ...]) -> str:
    who = {"reference": "trafila's reference engine (pure Python)", "core": "trafila's compiled core",
           "trafilatura": "the installed trafilatura itself (the harness's self-check)"}.get(res_candidate, res_candidate)
    return (f"parity: {who} against trafilatura {mode}'s results (the oracle), on {n_sets} option set(s) "
            f"(harness/matrix.py) x input forms {', '.join(forms)}; every page of every bundle below")


def report_target(args) -> Optional[Path]:
    """Where the run's report goes: ``--report-dir``, the committed reports/ with ``--write-reports``,
    else LOCAL_REPORTS_DIR; None with ``--no-report``."""
    if not getattr(args, "report", True):
        return None
    if getattr(args, "report_dir", None):
        return Path(args.report_dir)
    return REPORTS_DIR if getattr(args, "write_reports", False) else LOCAL_REPORTS_DIR


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def summary(res: RunResult, new: List[Difference], gone: List[dict], seconds: float) -> List[str]:
    """The closing lines of a run: the counts, and what each of the words in them means."""
    n = res.comparisons
    verdict = "STOPPED (exit 3)" if res.stale else ("FAIL (exit 1)" if new or gone else "PASS")
    lines = [f"{res.candidate} / {res.mode}: {n} comparisons, {len(res.differences)} differences, "
             f"{len(res.errors)} errors in {seconds:.0f} s: {verdict}"]
    if res.delegated or res.fallback_warnings:
        reasons = sorted({re.sub(r"^.*? handed to trafilatura \S+: ", "", m) for m in res.fallback_warnings})
        lines.append(f"  delegated: {res.delegated} of the {n} calls were handed to the installed trafilatura "
                     f"(trafila does not run them natively yet{': ' + '; '.join(reasons) if reasons else ''}) and "
                     f"compared like the others; the {len(res.fallback_warnings)} FallbackWarning(s) saying so "
                     f"are expected and not printed")
    if res.as_of_day:
        lines.append("  run day: " + ", ".join(f"{k} comparison(s) equal as of {day}" for day, k in sorted(res.as_of_day.items()))
                     + f" (the oracle's cached results carry the day they were made; the candidate's, {run_day()}, "
                     "was written as that day: results.day_of_entry)")
    lines.append(f"  ledger: {_shown(LEDGER_FILE)} lists the differences the project accepts, each with a reason: "
                 f"{len(new)} difference(s) not in it, {len(gone)} of its entries no longer differ (either fails the run)")
    sources = {}
    for source in res.caches.values():
        sources[source] = sources.get(source, 0) + 1
    made = ", ".join(f"{k} {v}" for k, v in (("committed", sources.get("committed", 0)),
                                             ("made for this interpreter", sources.get("local", 0) + sources.get("live", 0))) if v)
    line = f"  oracle caches: {made or 'none'}"
    if res.stale:
        line += (f"; {len(res.stale)} missing or stale (a cache that does not fit its bundle, option sets or "
                 f"versions is never compared with: the run stops)")
    lines.append(line)
    if res.other_interpreter:
        seconds_needed = sum(s for _, s in res.other_interpreter)
        lines.append(f"  {len(res.other_interpreter)} bundle(s) have no oracle cache for CPython "
                     f"{platform.python_version()} (unicodedata {unicodedata.unidata_version}): "
                     + remedy(res.mode, seconds_needed))
    for d in new[:20]:
        lines.append(f"  NEW {d.page} {d.form} {d.option_set}: oracle {describe(d.expected)}; candidate {describe(d.got)}")
    for e in gone[:20]:
        lines.append(f"  GONE from ledger: {e['page']} {e.get('form', 'str')} {e['option_set']} ({e.get('reason', '')})")
    for m in [m for m in res.stale if not any(m.startswith(f"oracle cache {b}.") for b, _ in res.other_interpreter)][:20]:
        lines.append(f"  STALE {m}")
    return lines


def main(args, argv: List[str]) -> int:
    commit = _git_commit()  # before the candidate's code is loaded: what the run measures
    candidate = make_candidate(args.candidate, timeout=args.timeout)
    forms = tuple(args.forms.split(",")) if args.forms else ("str", "bytes")
    from .oracle import _decoder_refusal

    if "bytes" in forms and _decoder_refusal():
        # trafila decodes as the installed trafilatura would, so with cchardet here its bytes
        # results follow cchardet, the committed caches charset_normalizer alone
        print("parity: warning: cchardet is importable here: the bytes form of non-UTF-8 pages differs "
              "from the committed caches, made without it; use the tox env or --forms str", flush=True)
    if getattr(args, "explain", True):
        print(_what(candidate.name, args.mode, len(option_sets(args.mode, args.sets)), forms), flush=True)
        print(describe_corpus(args.bundles, embedded=args.embedded), flush=True)
    t0 = time.time()
    try:
        res = run(candidate, args.mode, args.bundles, args.sets, forms, args.embedded, args.timeout,
                  live=getattr(args, "live", None), only_non_utf8=getattr(args, "only_non_utf8", False))
    finally:
        candidate.close()
    new, gone = gate(res, load_ledger())
    details = [detail(d, args.mode, args.embedded) for d in res.differences[:DETAILED]]
    section = section_json(res, new, gone, details, argv, commit)
    for line in summary(res, new, gone, time.time() - t0):
        print(line)
    target = report_target(args)
    if target is not None:
        committed = target.resolve() == REPORTS_DIR.resolve()
        if committed and (res.stale or not res.comparisons):
            print(f"  report: {_shown(REPORTS_DIR)}/ left as it is: this run stopped before comparing everything")
        else:
            write_reports(section, target, merge=getattr(args, "merge", False))
            where = "the committed reports" if committed else "ignored by git; --write-reports updates the committed reports/"
            print(f"  report: {_shown(target / 'parity.md')} and parity.json ({where})")
    if res.stale:
        return 3
    return 1 if (new or gone) else 0
