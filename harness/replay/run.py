"""Replaying recorded calls through a candidate, and the report."""

from __future__ import annotations

import configparser
import contextlib
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ..candidates import (Candidate, CandidateRaised, CallableCandidate, HarnessTimeout, SubprocessCandidate,
                          call_timeout)
from ..provenance import write_report_json, write_report_text
from ..results import describe, error_entry, raised_entry, result_entry, same
from .record import DEFAULT_CACHE, ROOT, blobs_path, calls_path, symbolic
from .recorder import BlobStore, decode_value, rebuild_element, rebuild_from_nodes

REPORTS = ROOT / "reports"
REPLAYED_FUNCTIONS = ("extract", "bare_extraction", "extract_with_metadata")


def load_recording(path: Path) -> Tuple[dict, List[dict]]:
    """The recording's merged header and its call records in the order they were
    written (calls of processes started by the tests interleave in time order);
    ``order`` numbers them from 1."""
    header: Dict[str, Any] = {}
    calls: List[dict] = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("header"):
                header.update(rec)
            else:
                rec["order"] = len(calls) + 1
                calls.append(rec)
    return header, calls


def build_config(fresh: Dict[str, str], values: Dict[str, str]) -> configparser.ConfigParser:
    """A ConfigParser with settings.cfg's extraction values, overridden by the recorded ones."""
    cp = configparser.ConfigParser()
    cp.read_dict({"DEFAULT": dict(fresh, **values)})
    return cp


def option_label(rec: dict) -> str:
    """A short name of a call's options (for grouping in the report)."""
    opts = {k: v for k, v in (rec.get("options") or {}).items() if k not in ("url", "record_id")}
    parts = [f"{k}={json.dumps(v, sort_keys=True)[:40]}" for k, v in sorted(opts.items())]
    if rec.get("config", {}).get("changed"):
        parts.append("config:" + ",".join(f"{k}={v}" for k, v in sorted(rec["config"]["changed"].items())))
    return " ".join(parts) or "(defaults)"


@contextlib.contextmanager
def settings_lists_as_recorded(changed: Optional[Dict[str, Any]]) -> Iterator[None]:
    """The installed trafilatura.settings' element lists as the test had changed
    them in place during the recorded call; restored afterwards."""
    if not changed:
        yield
        return
    from trafilatura import settings

    saved = {}
    for name, value in changed.items():
        target = getattr(settings, name)
        saved[name] = list(target) if isinstance(target, list) else set(target)
        _set_in_place(target, decode_value(value))
    try:
        yield
    finally:
        for name, value in saved.items():
            _set_in_place(getattr(settings, name), value)


def _set_in_place(target: Any, value: Any) -> None:
    if isinstance(target, list):
        target[:] = list(value)
    else:
        target.clear()
        target.update(value)


def _unsupported(exc: BaseException, options: Dict[str, Any]) -> Optional[str]:
    """A TypeError about one of the options we passed (not one raised deeper inside the candidate)."""
    msg = str(exc)
    if "unexpected keyword argument" in msg:
        name = msg.split("unexpected keyword argument", 1)[1].strip(" '\"")
        if name in options:
            return "option not supported by the candidate: " + name
    return None


def replay(candidate: Candidate, mode: str, cache: Path = DEFAULT_CACHE, timeout: float = 120.0,
           limit: Optional[int] = None, log=print) -> dict:
    path = calls_path(cache, mode)
    if not path.exists():
        raise SystemExit(f"no recording at {path}; run `python -m harness.replay record --mode {mode}` first")
    header, calls = load_recording(path)
    blobs = BlobStore(blobs_path(cache))
    fresh = header.get("fresh_config", {})
    default_lru = header.get("default_lru_maxsize")
    in_process = not isinstance(candidate, (SubprocessCandidate, CallableCandidate))
    counts: Counter = Counter()
    skipped: Counter = Counter()
    differences: List[dict] = []
    by_test: Counter = Counter()
    caches: Dict[str, Any] = {}
    candidate.reset_dedup(mode)
    from ..parity import _git_commit

    commit = _git_commit()
    t0 = time.time()
    for rec in calls[:limit] if limit else calls:
        counts["recorded"] += 1
        fn = rec.get("function")
        if fn not in REPLAYED_FUNCTIONS:
            skipped[f"{fn} is not in the candidate interface"] += 1
            continue
        if not rec.get("replayable"):
            skipped[rec.get("reason", "not replayable")] += 1
            continue
        if rec.get("lru") is not None and default_lru is not None and rec["lru"] != default_lru:
            skipped[f"module dedup cache replaced by the test (maxsize {rec['lru']})"] += 1
            continue
        raw_options = rec.get("options") or {}
        lru = raw_options.get("deduplicate")
        if isinstance(lru, dict) and "__lru__" in lru:
            new_lru = getattr(candidate, "new_lru", None)
            if new_lru is None or not in_process:
                skipped["scoped LRUCache (the candidate has no cache object)"] += 1
                continue
            if lru["__lru__"] not in caches:  # one fresh cache per recorded cache object, in first-use order
                caches[lru["__lru__"]] = new_lru(lru["maxsize"])
        options = {k: (caches[v["__lru__"]] if isinstance(v, dict) and "__lru__" in v else decode_value(v))
                   for k, v in raw_options.items()}
        changed = rec.get("config", {}).get("changed") or {}
        if changed:
            if not in_process:
                skipped["custom config (not expressible in the protocol)"] += 1
                continue
            options["config"] = build_config(fresh, rec["config"]["values"])
        form = rec["input"]["form"]
        if form in ("element", "none", "response") and not in_process:
            skipped[f"{form} input (not expressible in the protocol)"] += 1
            continue
        if form == "none":
            html = None
        elif form == "response":
            try:
                from trafilatura.utils import Response
            except ImportError:  # 1.11.0 keeps it in downloads
                from trafilatura.downloads import Response

            html = Response(blobs.get(rec["input"]["sha256"]), rec["input"]["status"], rec["input"]["url"])
        elif form == "element" and rec["input"].get("format") == "nodes":
            html = rebuild_from_nodes(json.loads(blobs.get(rec["input"]["sha256"])), rec["input"]["html_element"],
                                      rec["input"].get("doctype"))
        elif form == "element":
            html = rebuild_element(blobs.get(rec["input"]["sha256"]), rec["input"]["path"], rec["input"]["html_element"])
        else:
            data = blobs.get(rec["input"]["sha256"])
            html = data.decode("utf-8", "surrogatepass") if form == "str" else data
        if rec.get("settings_lists") and not in_process:
            skipped["trafilatura.settings lists changed by the test (not expressible in the protocol)"] += 1
            continue
        if rec.get("reset_before"):  # the test emptied the module cache (reset_caches()) before this call
            candidate.reset_dedup(mode)
        candidate.last_delegated = None
        try:
            with call_timeout(timeout), settings_lists_as_recorded(rec.get("settings_lists")):
                got = result_entry(candidate.call(fn, html, options, mode))
        except HarnessTimeout as exc:
            got = error_entry(f"timeout: {exc}")
        except CandidateRaised as exc:
            reason = _unsupported(exc, options) if exc.type_name == "TypeError" else None
            if reason and rec["result"] != {"raise": "TypeError"}:
                skipped[reason] += 1
                continue
            got = {"raise": exc.type_name}
        except Exception as exc:
            reason = _unsupported(exc, options) if isinstance(exc, TypeError) else None
            if reason and rec["result"] != {"raise": "TypeError"}:
                skipped[reason] += 1
                continue
            got = raised_entry(exc)
        counts["replayed"] += 1
        route = {True: "delegated", False: "native"}.get(candidate.last_delegated, "route unknown")
        counts[route] += 1
        if same(rec["result"], got):
            counts["equal"] += 1
            counts[f"equal:{route}"] += 1
        else:
            counts["different"] += 1
            counts[f"different:{route}"] += 1
            by_test[(rec.get("test") or "?").split("::")[0]] += 1
            differences.append({"seq": rec["order"], "test": rec.get("test"), "function": fn, "options": option_label(rec),
                                "form": form, "input_sha256": rec["input"].get("sha256"), "route": route,
                                "expected": describe(rec["result"]), "got": describe(got)})
    counts["skipped"] = sum(skipped.values())
    return {"mode": mode, "candidate": getattr(candidate, "name", "?"), "recording": symbolic(path, cache), "commit": commit,
            "recorded_with": header.get("trafilatura"), "seconds": round(time.time() - t0, 1),
            "counts": dict(counts), "skipped": dict(skipped.most_common()),
            "different_by_test_module": dict(by_test.most_common()), "differences": differences}


def write_report(summary: dict, stem: Path) -> Tuple[Path, Path]:
    stem.parent.mkdir(parents=True, exist_ok=True)
    js = stem.parent / (stem.name + ".json")
    write_report_json(js, summary, ensure_ascii=False)
    c = summary["counts"]
    lines = [
        f"# Replay of trafilatura {summary['mode']}'s test suite: {summary['candidate']}",
        "",
        f"Recording: `{Path(summary['recording']).name}` (made with trafilatura {summary['recorded_with']}), "
        f"replayed in order from an empty dedup cache, at commit {summary.get('commit') or '?'}. Command: "
        f"`python -m harness.replay run --candidate {summary['candidate']} --mode {summary['mode']}`.",
        "",
        "| recorded | replayed | equal | different | skipped |",
        "|---:|---:|---:|---:|---:|",
        f"| {c.get('recorded', 0)} | {c.get('replayed', 0)} | {c.get('equal', 0)} | {c.get('different', 0)} | {c.get('skipped', 0)} |",
        "",
        "Replayed calls by route (native: the candidate's own engine; delegated: handed to the installed trafilatura, "
        "as the candidate reported it):",
        "",
        "| route | replayed | equal | different |",
        "|---|---:|---:|---:|",
    ]
    for route in ("native", "delegated", "route unknown"):
        if c.get(route):
            lines.append(f"| {route} | {c[route]} | {c.get('equal:' + route, 0)} | {c.get('different:' + route, 0)} |")
    lines += [
        "",
        "## Skipped, by reason",
        "",
    ]
    lines += [f"- {n} × {reason}" for reason, n in summary["skipped"].items()] or ["- none"]
    lines += ["", "## Differences by test module", ""]
    lines += [f"- {n} × `{mod}`" for mod, n in summary["different_by_test_module"].items()] or ["- none"]
    if summary["differences"]:
        lines += ["", "## First differences", "", "| seq | test | function | route | options | expected | got |",
                  "|---|---|---|---|---|---|---|"]
        for d in summary["differences"][:40]:
            lines.append(f"| {d['seq']} | `{d['test']}` | {d['function']} | {d.get('route', '')} | {d['options'][:60]} "
                         f"| {d['expected']} | {d['got']} |")
    md = stem.parent / (stem.name + ".md")
    write_report_text(md, "\n".join(lines) + "\n")
    return md, js
