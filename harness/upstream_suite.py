"""trafilatura's own pytest suite, run stock and under ``trafila.patch("trafilatura")``.

``python -m harness upstream-suite --mode 2.3.1 --sdist DIR`` takes the tests of
trafilatura's sdist (``DIR``: what ``pip download --no-deps --no-binary :all:
trafilatura==<mode>`` wrote, a ``.tar.gz`` or its directory; or ``--tests DIR``,
an unpacked sdist with ``tests/``), and runs them twice with the interpreter of
this environment, which must have trafilatura ``<mode>``, pytest and the tests'
own extra packages installed (the tox envs ``upstream-suite`` and
``upstream-suite-1.11`` provide them; this command installs nothing):

* **stock**: the installed trafilatura as it is;
* **patched**: this module, loaded as a pytest plugin (``-p harness.upstream_suite``),
  calls ``trafila.patch("trafilatura", compat=<mode>)`` before pytest loads the
  tests' conftest, so every ``import trafilatura`` in the tests gets the shims.

Outcomes are compared per test id. A test that passes stock and does not pass
patched is a *difference*; the expected ones are listed, each with its reason,
in the ledger (``corpora/known-differences.json``, key ``upstream_suite``). The
command exits 1 on a difference not in the ledger and on a ledger entry that no
longer differs, 3 when a run did not happen (pytest crashed, nothing collected).
Tests that do not pass stock are listed apart, with the reason of this machine
when one is recognised (no network, running as root, a module the sdist does not
ship). Under the patch the plugin also counts the calls the shims served:
natively by trafila or handed over to the real trafilatura, by reason.

Writes ``.cache/reports/upstream-suite-<mode>.md`` and ``.json`` (``--write-reports``: the
committed ``reports/``) (command, commit, counts,
differences, calls), unless ``--no-report``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .provenance import git_commit as _git_commit, write_report_json, write_report_text
from .provenance import portable_command, utc_now
from .standalone import standalone

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
LEDGER = ROOT / "corpora" / "known-differences.json"
#: the ledger's key for this command's expected differences
LEDGER_KEY = "upstream_suite"

#: the child pytest process: where the plugin writes its outcomes, and the mode to patch (unset: stock)
ENV_OUT = "TRAFILA_UPSTREAM_OUT"
ENV_PATCH = "TRAFILA_UPSTREAM_PATCH"

#: the value of ENV_PATCH that swaps datatrove's FineWeb steps for trafila's (not a trafilatura release)
SUBSTITUTE_DATATROVE = "datatrove"

#: outcomes of one test id
PASSED = "passed"
PASSING = frozenset({PASSED})
FAILING = frozenset({"failed", "error", "collection error", "missing"})

#: the public functions the shims route (counted under the patch)
ROUTED = ("extract", "bare_extraction", "extract_with_metadata", "baseline", "html2txt")


# --- the pytest plugin (in the child process) --------------------------------------------

class _Recorder:
    """Per-test outcomes and, under the patch, the shims' calls by route."""

    def __init__(self) -> None:
        self.tests: Dict[str, Dict[str, Any]] = {}
        self.calls: Dict[str, Counter] = {}
        self.local = threading.local()
        self.lock = threading.Lock()
        self.info: Dict[str, Any] = {}

    # outcomes
    def outcome(self, nodeid: str, outcome: str, when: str, message: str = "", detail: str = "") -> None:
        previous = self.tests.get(nodeid)
        if previous is not None and previous["outcome"] != PASSED and outcome != "error":
            return  # a failed call stays failed whatever its teardown says
        self.tests[nodeid] = {"outcome": outcome, "when": when, "message": message[:400], "detail": detail[:20000]}

    # calls
    def count(self, function: str, route: str) -> None:
        with self.lock:
            self.calls.setdefault(function, Counter())[route] += 1


_RECORDER: Optional[_Recorder] = None


def _crash_message(report: Any) -> str:
    longrepr = getattr(report, "longrepr", None)
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message).splitlines()[0] if crash.message else ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (file, line, reason)
        return str(longrepr[2])
    text = str(longrepr or "").strip().splitlines()
    return text[-1] if text else ""


def _detail(report: Any) -> str:
    parts = [getattr(report, "longreprtext", "") or ""]
    parts += [content for _title, content in getattr(report, "sections", ())]
    return "\n".join(parts)


def _count_calls(recorder: _Recorder) -> None:
    """Wrap the shims' routed functions and trafila's hand-over, so that each outermost
    shim call is counted once: ``native`` or ``handed over: <reason>``."""
    import functools  # noqa: PLC0415

    import trafila  # noqa: PLC0415

    real_delegate = trafila.delegate

    def delegate(function: str, reason: str, *args: Any, **kwargs: Any) -> Any:
        stack = getattr(recorder.local, "stack", None)
        if stack and stack[-1] is None:
            stack[-1] = reason
        return real_delegate(function, reason, *args, **kwargs)

    trafila.delegate = delegate  # trafila._delegate looks it up at call time

    def counting(name: str, shim: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(shim)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            stack = recorder.local.__dict__.setdefault("stack", [])
            stack.append(None)
            try:
                return shim(*args, **kwargs)
            finally:
                reason = stack.pop()
                if not stack:
                    recorder.count(name, "native" if reason is None else f"handed over: {reason}")
        return wrapper

    wrapped: Dict[int, Callable[..., Any]] = {}
    for module_name in ("trafilatura", "trafilatura.core"):
        module = sys.modules[module_name]
        for name in ROUTED:
            shim = module.__dict__.get(name)
            if shim is None:
                continue
            if id(shim) not in wrapped:
                wrapped[id(shim)] = counting(name, shim)
            module.__dict__[name] = wrapped[id(shim)]


def _tryfirst(hook: Callable[..., Any]) -> Callable[..., Any]:
    try:
        import pytest  # noqa: PLC0415 - only the child process needs it
    except ImportError:
        return hook
    return pytest.hookimpl(tryfirst=True)(hook)


@_tryfirst
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> None:
    """Before pytest imports the tests' conftest: patch (when asked) and start recording."""
    global _RECORDER
    if not os.environ.get(ENV_OUT):
        return
    _RECORDER = recorder = _Recorder()
    mode = os.environ.get(ENV_PATCH)
    if mode == SUBSTITUTE_DATATROVE:
        # datatrove's suite (harness datatrove-suite): its FineWeb steps become trafila's drop-ins
        recorder.info["imported_before"] = any(m.startswith("datatrove.pipeline") for m in sys.modules)
        from trafila.integrations.datatrove import substitute_datatrove_steps  # noqa: PLC0415

        recorder.info.update(patched=mode, substituted=substitute_datatrove_steps())
        return
    recorder.info["imported_before"] = "trafilatura" in sys.modules
    if mode:
        import trafila  # noqa: PLC0415
        from trafila import _engine  # noqa: PLC0415

        trafila.patch("trafilatura", compat=mode)
        recorder.info.update(patched=mode, engine=_engine.default_engine(mode))
        _count_calls(recorder)


def pytest_collectreport(report: Any) -> None:
    if _RECORDER is not None and report.failed:
        _RECORDER.outcome(report.nodeid or "<collection>", "collection error", "collect", _crash_message(report),
                          _detail(report))


def pytest_runtest_logreport(report: Any) -> None:
    rec = _RECORDER
    if rec is None:
        return
    xfail = hasattr(report, "wasxfail")
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if report.passed:
            outcome = "xpassed" if xfail else PASSED
        elif report.skipped:
            outcome = "xfailed" if xfail else "skipped"
        else:
            outcome = "failed" if report.when == "call" else "error"
        rec.outcome(report.nodeid, outcome, report.when, _crash_message(report) if outcome != PASSED else "",
                    _detail(report) if outcome in ("failed", "error") else "")
    elif report.when == "teardown" and report.failed:
        rec.outcome(report.nodeid, "error", "teardown", _crash_message(report), _detail(report))


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    rec = _RECORDER
    if rec is None:
        return
    info = dict(rec.info)
    try:
        import trafilatura  # noqa: PLC0415 - the shim when patched

        info["trafilatura"] = trafilatura.__version__
        info["shimmed_at_end"] = type(sys.modules.get("trafilatura")).__name__ != "module"
    except ImportError:
        info["trafilatura"] = None
    info["python"] = sys.version.split()[0]
    calls = {fn: dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))) for fn, c in sorted(rec.calls.items())}
    Path(os.environ[ENV_OUT]).write_text(json.dumps({"info": info, "tests": rec.tests, "calls": calls}) + "\n")


# --- the runner (in the harness process) --------------------------------------------------

def unpack_tests(sdist: Path, mode: str, work: Path) -> Path:
    """The directory holding the sdist's ``tests/`` (and nothing of its ``trafilatura/``
    package: the tests must import the installed one). ``sdist``: a directory with
    ``tests/``, or a ``.tar.gz``, or the directory ``pip download`` wrote it into."""
    sdist = Path(sdist)
    if (sdist / "tests").is_dir():
        if (sdist / "trafilatura").is_dir():
            raise SystemExit(f"{sdist} holds trafilatura's sources beside tests/: the tests would import them, "
                             f"not the installed package; pass the sdist tarball instead")
        return sdist
    tar = sdist if sdist.is_file() else sdist / f"trafilatura-{mode}.tar.gz"
    if not tar.is_file():
        raise SystemExit(f"no trafilatura-{mode} sdist at {sdist} (pip download --no-deps --no-binary :all: "
                         f"trafilatura=={mode} -d DIR, then --sdist DIR)")
    target = Path(work) / f"trafilatura-{mode}-tests"
    prefix = f"trafilatura-{mode}/tests/"
    with tarfile.open(tar) as tf:
        members = [m for m in tf.getmembers() if m.name.startswith(prefix)]
        if not members:
            raise SystemExit(f"{tar.name} ships no tests/")
        for member in members:
            member.name = member.name[len(f"trafilatura-{mode}/"):]
        tf.extractall(target, members=members, filter="data")
    return target


def test_files(root: Path) -> List[str]:
    """The suite's test modules (``tests/*test*.py``, as trafilatura's pytest configuration says)."""
    return sorted(f"tests/{p.name}" for p in (Path(root) / "tests").glob("*test*.py") if p.name != "conftest.py")


def installed_trafilatura(python: str) -> Optional[str]:
    proc = subprocess.run([python, "-c", "import trafilatura; print(trafilatura.__version__)"],
                          capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def run_suite(root: Path, python: str, patch_mode: Optional[str], out: Path, timeout: float,
              extra_args: Optional[List[str]] = None, files: Optional[List[str]] = None) -> Dict[str, Any]:
    """One pytest run of the suite (stock when ``patch_mode`` is None; ``files``: its test
    modules, default trafilatura's); the plugin's record plus ``exit``, ``seconds`` and
    ``summary`` (pytest's closing line)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env[ENV_OUT] = str(out)
    env.pop(ENV_PATCH, None)
    if patch_mode:
        env[ENV_PATCH] = patch_mode
    # the CLI tests start the `trafilatura` console script of the environment under test
    env["PATH"] = os.pathsep.join([str(Path(python).parent), env.get("PATH", "")])
    cmd = [python, "-m", "pytest", *(files or test_files(root)), "-p", "harness.upstream_suite", "-p", "no:cacheprovider",
           "-q", "-o", "addopts=", "--continue-on-collection-errors", *(extra_args or [])]
    t0 = time.time()
    log = Path(out).with_suffix(".log")
    with open(log, "w") as fh:
        try:
            rc: Any = subprocess.run(cmd, cwd=root, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                     timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    seconds = round(time.time() - t0, 1)
    lines = log.read_text(errors="replace").strip().splitlines()
    summary = next((ln.strip("= ") for ln in reversed(lines) if re.search(r"\d+ (passed|failed|error)", ln)), "")
    record: Dict[str, Any] = {"info": {}, "tests": {}, "calls": {}}
    if Path(out).exists():
        record = json.loads(Path(out).read_text())
    record.update(exit=rc, seconds=seconds, summary=summary, log_tail=lines[-30:])
    return record


#: reasons of this machine for a test that does not pass stock: (reason, pattern in its failure text)
MACHINE_REASONS: Tuple[Tuple[str, "re.Pattern[str]"], ...] = (
    ("no network on this machine", re.compile(
        r"NameResolutionError|Failed to resolve|Name or service not known|Temporary failure in name resolution"
        r"|Network is unreachable|No address associated with hostname|getaddrinfo failed|Could not resolve host")),
    ("a module the sdist does not ship or this environment lacks", re.compile(r"No module named ['\"][\w.]+['\"]")),
    ("a file the sdist does not ship", re.compile(r"No such file or directory: '(?!/)[^']+'")),
)
_URL_HOST = re.compile(r"https?://([A-Za-z0-9.-]+\.[A-Za-z]{2,})")
_resolves: Dict[str, bool] = {}


def _resolvable(host: str) -> bool:
    """Whether ``host`` resolves here (asked once per host)."""
    if host not in _resolves:
        import socket  # noqa: PLC0415

        try:
            socket.getaddrinfo(host, 443)
            _resolves[host] = True
        except OSError:
            _resolves[host] = False
    return _resolves[host]


def machine_reason(entry: Dict[str, Any]) -> Optional[str]:
    """Why a test may not pass stock here, when its failure text shows it: a
    recognised error, or URLs of hosts that do not resolve on this machine."""
    text = f"{entry.get('message', '')}\n{entry.get('detail', '')}"
    for reason, pattern in MACHINE_REASONS:
        match = pattern.search(text)
        if match:
            return reason + ("" if reason.startswith("no network") else f" ({match.group(0)})")
    home = os.path.expanduser("~").rstrip("/") + "/"
    if hasattr(os, "geteuid") and os.geteuid() == 0 and home in text:
        return "running as root (the test expects a directory under ~/ to be unwritable)"
    hosts = sorted(set(_URL_HOST.findall(text)) - {"example.org", "example.com"})
    if hosts and not any(_resolvable(h) for h in hosts[:5]):
        return f"likely no network: the hosts the test names do not resolve here ({', '.join(hosts[:3])})"
    return None


def incomplete_runs(runs: Dict[str, Dict[str, Any]], label: str) -> bool:
    """Whether a run did not complete (pytest crashed or collected nothing); says which, with its log's tail."""
    broken = [n for n, r in runs.items() if not r["tests"] or r["exit"] not in (0, 1)]
    for name in broken:
        print(f"{label}: the {name} run did not complete (exit {runs[name]['exit']}):")
        print("\n".join("  " + ln for ln in runs[name]["log_tail"]))
    return bool(broken)


def load_expected(mode: str, path: Path = LEDGER, key: str = LEDGER_KEY) -> Dict[str, str]:
    """The ledger's expected differences of ``mode`` (under ``key``): test id -> reason."""
    if not Path(path).exists():
        return {}
    data = json.loads(Path(path).read_text())
    return {e["test"]: e["reason"] for e in data.get(key, []) if e.get("mode") == mode}


def compare(stock: Dict[str, Any], patched: Dict[str, Any], expected: Dict[str, str]) -> Dict[str, Any]:
    """Per test id: the differences (passes stock, does not pass patched), which are
    expected (in the ledger) or new, ledger entries that no longer differ, other
    outcome changes, and the tests that do not pass stock (with the machine's reason)."""
    s_tests, p_tests = stock["tests"], patched["tests"]
    differences, changes, not_passing_stock = [], [], []
    skipped_stock: Dict[str, List[str]] = {}
    for test in sorted(set(s_tests) | set(p_tests)):
        s = s_tests.get(test, {"outcome": "missing"})
        p = p_tests.get(test, {"outcome": "missing"})
        if s["outcome"] in PASSING and p["outcome"] not in PASSING:
            differences.append({
                "test": test, "stock": s["outcome"], "patched": p["outcome"], "patched_message": p.get("message", ""),
                "expected": test in expected, "reason": expected.get(test, "not in the ledger: " + p.get("message", "")),
            })
            continue
        if s["outcome"] in FAILING:
            not_passing_stock.append({"test": test, "stock": s["outcome"], "patched": p["outcome"],
                                      "message": s.get("message", ""), "machine_reason": machine_reason(s)})
        elif s["outcome"] == "skipped":
            skipped_stock.setdefault(s.get("message", ""), []).append(test)
        if s["outcome"] != p["outcome"]:
            changes.append({"test": test, "stock": s["outcome"], "patched": p["outcome"],
                            "patched_message": p.get("message", "")})
    differing = {d["test"] for d in differences}
    stale = [{"test": t, "reason": r} for t, r in sorted(expected.items()) if t not in differing]
    return {"differences": differences, "new": [d for d in differences if not d["expected"]], "stale": stale,
            "other_changes": changes, "not_passing_stock": not_passing_stock, "skipped_stock": skipped_stock}


def _outcome_counts(record: Dict[str, Any]) -> Dict[str, int]:
    return dict(Counter(t["outcome"] for t in record["tests"].values()).most_common())


def _calls_summary(calls: Dict[str, Dict[str, int]]) -> Dict[str, Any]:
    by_function = {}
    reasons: Counter = Counter()
    for function, routes in calls.items():
        native = routes.get("native", 0)
        handed = {r.partition(": ")[2]: n for r, n in routes.items() if r != "native"}
        reasons.update(handed)
        by_function[function] = {"native": native, "handed_over": sum(handed.values()), "reasons": handed}
    return {"by_function": by_function, "handed_over_by_reason": dict(reasons.most_common())}


#: the distributions whose versions the report names (what decides the two runs)
PACKAGES = ("trafilatura", "lxml", "justext", "pytest", "pyyaml", "py3langid", "pycurl", "brotli",
            "backports.zstd", "zstandard", "charset-normalizer", "htmldate", "courlan")


def package_versions() -> Dict[str, str]:
    """The installed versions of :data:`PACKAGES` (those installed here)."""
    from importlib import metadata  # noqa: PLC0415

    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out




def summarise(mode: str, stock: Dict[str, Any], patched: Dict[str, Any], comparison: Dict[str, Any],
              command: str, commit: Optional[str]) -> Dict[str, Any]:
    """The report's JSON: everything but the failure details."""
    def run_info(rec: Dict[str, Any]) -> Dict[str, Any]:
        return {"exit": rec["exit"], "seconds": rec["seconds"], "pytest_summary": rec["summary"],
                "outcomes": _outcome_counts(rec), "tests": len(rec["tests"]), **rec.get("info", {})}

    return {
        "mode": mode, "command": command, "commit": commit,
        "date": utc_now(),
        "packages": package_versions(), "stock": run_info(stock), "patched": run_info(patched),
        "counts": {
            "tests": len(set(stock["tests"]) | set(patched["tests"])),
            "passed_stock": sum(t["outcome"] in PASSING for t in stock["tests"].values()),
            "passed_patched": sum(t["outcome"] in PASSING for t in patched["tests"].values()),
            "differences": len(comparison["differences"]), "new_differences": len(comparison["new"]),
            "ledger_entries_no_longer_differing": len(comparison["stale"]),
            "not_passing_stock": len(comparison["not_passing_stock"]),
        },
        "differences": comparison["differences"], "ledger_entries_no_longer_differing": comparison["stale"],
        "other_outcome_changes": comparison["other_changes"], "not_passing_stock": comparison["not_passing_stock"],
        "skipped_stock": comparison["skipped_stock"],
        "calls": _calls_summary(patched.get("calls", {})),
    }


def _md_cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_report(summary: Dict[str, Any], stem: Path) -> Tuple[Path, Path]:
    """``<stem>.json`` and ``<stem>.md`` (:func:`render`)."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    js = stem.parent / (stem.name + ".json")
    write_report_json(js, summary, ensure_ascii=False)
    md = stem.parent / (stem.name + ".md")
    write_report_text(md, render(summary))
    return md, js


def render(summary: Dict[str, Any]) -> str:
    """The Markdown of a report's JSON."""
    c, s, p = summary["counts"], summary["stock"], summary["patched"]
    lines = [
        f"# trafilatura {summary['mode']}'s own test suite, stock and under `trafila.patch(\"trafilatura\")`",
        "",
        f"Written by `{summary['command']}` (never by hand) on {summary['date']}, commit {summary['commit'] or '?'}: "
        f"the tests of trafilatura {summary['mode']}'s sdist, run once against the installed trafilatura and once "
        f"with the shims (engine `{p.get('engine', '?')}`), compared per test id. The expected differences are "
        f"listed in `corpora/known-differences.json` (`{LEDGER_KEY}`), each with its reason.",
        "",
        "Installed: " + ", ".join(f"{n} {v}" for n, v in summary.get("packages", {}).items()) + ".",
        "",
        "| run | tests | passed | failed | errors | skipped | xfailed | seconds | pytest |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, run in (("stock", s), ("patched", p)):
        o = run["outcomes"]
        lines.append(f"| {name} | {run['tests']} | {o.get('passed', 0)} | {o.get('failed', 0)} | "
                     f"{o.get('error', 0) + o.get('collection error', 0)} | {o.get('skipped', 0)} | "
                     f"{o.get('xfailed', 0)} | {run['seconds']} | {_md_cell(run['pytest_summary'])} |")
    lines += [
        "",
        f"**{c['differences']}** tests pass stock and not patched ({c['new_differences']} not in the ledger); "
        f"{c['ledger_entries_no_longer_differing']} ledger entries no longer differ.",
        "",
        "## Tests that pass stock and not under the patch",
        "",
    ]
    if summary["differences"]:
        lines += ["| test | patched | in the ledger | reason |", "|---|---|---|---|"]
        lines += [f"| `{d['test']}` | {d['patched']} | {'yes' if d['expected'] else '**no**'} | {_md_cell(d['reason'])} |"
                  for d in summary["differences"]]
    else:
        lines.append("- none")
    if summary["ledger_entries_no_longer_differing"]:
        lines += ["", "Ledger entries that no longer differ (remove them):", ""]
        lines += [f"- `{e['test']}`: {e['reason']}" for e in summary["ledger_entries_no_longer_differing"]]
    calls = summary["calls"]
    lines += ["", "## Calls under the patch", "",
              "Outermost calls of the shims' functions, served natively by trafila or handed over to the installed "
              "trafilatura (the reason is the FallbackWarning's):", "",
              "| function | native | handed over |", "|---|---:|---:|"]
    for fn, row in calls["by_function"].items():
        lines.append(f"| {fn} | {row['native']} | {row['handed_over']} |")
    lines += ["", "Handed over, by reason:", ""]
    lines += [f"- {n} × {_md_cell(r)}" for r, n in calls["handed_over_by_reason"].items()] or ["- none"]
    lines += ["", "## Tests that fail stock (not compared)", "",
              "The reason of this machine is given where the failure shows one (no network, running as root, "
              "a module or file the sdist does not ship); the others fail with the installed trafilatura itself.", ""]
    if summary["not_passing_stock"]:
        lines += ["| test | stock | patched | reason of this machine | message |", "|---|---|---|---|---|"]
        lines += [f"| `{t['test']}` | {t['stock']} | {t['patched']} | {_md_cell(t['machine_reason'] or '')} | "
                  f"{_md_cell(t['message'][:160])} |" for t in summary["not_passing_stock"]]
    else:
        lines.append("- none")
    lines += ["", "Skipped stock, by reason:", ""]
    lines += [f"- {len(tests)} × {_md_cell(reason)}" for reason, tests in summary["skipped_stock"].items()] or ["- none"]
    others = [ch for ch in summary["other_outcome_changes"] if ch["stock"] not in PASSING]
    lines += ["", "Tests that do not pass stock whose outcome differs under the patch:", ""]
    lines += [f"- `{ch['test']}`: {ch['stock']} → {ch['patched']}" for ch in others] or ["- none"]
    return "\n".join(lines) + "\n"


# --- the command ------------------------------------------------------------------------

def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The command's arguments (parsed by harness/cli.py)."""
    ap.add_argument("--mode", default="2.3.1", choices=["2.3.1", "1.11.0"],
                    help="the trafilatura release whose suite runs (it must be the one installed)")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--sdist", type=Path, default=os.environ.get("TRAFILA_UPSTREAM_SDIST") or None,
                     help="trafilatura-<mode>.tar.gz or the directory `pip download` wrote it into "
                          "(default $TRAFILA_UPSTREAM_SDIST)")
    src.add_argument("--tests", type=Path, help="a directory with the sdist's tests/ (and not its trafilatura/)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds for each pytest run")
    ap.add_argument("--ledger", type=Path, default=LEDGER)
    ap.add_argument("--report", type=Path,
                    help="report stem (default .cache/reports/upstream-suite-<mode>, ignored by git)")
    ap.add_argument("--write-reports", action="store_true",
                    help="update the committed reports/upstream-suite-<mode> (default: .cache/reports/)")
    ap.add_argument("--no-report", dest="write", action="store_false", help="write no report")
    ap.add_argument("--render", action="store_true",
                    help="no run: write the committed reports/upstream-suite-<mode>.md and .json (--report: that "
                         "stem) again from that .json, without this machine's paths")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments for both runs (after --)")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    """Run the suite stock and patched, compare, report; the exit code of the gate."""
    mode = args.mode
    if getattr(args, "render", False):
        stem = args.report or REPORTS / f"upstream-suite-{mode}"
        md, js = write_report(json.loads((stem.parent / (stem.name + ".json")).read_text()), stem)
        print(f"upstream-suite: wrote {md.name} and {js.name} from {js.name}")
        return 0
    have = installed_trafilatura(sys.executable)
    if have != mode:
        print(f"upstream-suite: this environment has trafilatura {have}, not {mode} (tox -e upstream-suite"
              f"{'-1.11' if mode == '1.11.0' else ''} provides it)")
        return 3
    source = args.tests or args.sdist
    if source is None:
        print("upstream-suite: pass --sdist (pip download --no-deps --no-binary :all: trafilatura==MODE -d DIR) or --tests")
        return 3
    commit = _git_commit()
    command = "python -m harness upstream-suite " + portable_command(argv or [])
    with tempfile.TemporaryDirectory(prefix="trafila-upstream-") as work:
        root = unpack_tests(source, mode, Path(work))
        runs = {}
        for name, patch_mode in (("stock", None), ("patched", mode)):
            print(f"upstream-suite {mode}: {name} run ...", flush=True)
            runs[name] = run_suite(root, sys.executable, patch_mode, Path(work) / f"{name}.json", args.timeout,
                                   args.pytest_args)
            print(f"  {runs[name]['summary'] or 'no summary'} ({runs[name]['seconds']} s, exit {runs[name]['exit']})")
    if incomplete_runs(runs, "upstream-suite"):
        return 3
    if runs["patched"]["info"].get("imported_before"):
        print("upstream-suite: trafilatura was imported before the plugin patched it; the run is not valid")
        return 3
    comparison = compare(runs["stock"], runs["patched"], load_expected(mode, args.ledger))
    summary = summarise(mode, runs["stock"], runs["patched"], comparison, command, commit)
    if args.write:
        # as parity: the committed report changes only when asked, so CI leaves the checkout clean
        default_dir = REPORTS if getattr(args, "write_reports", False) else ROOT / ".cache" / "reports"
        default_dir.mkdir(parents=True, exist_ok=True)
        md, js = write_report(summary, args.report or default_dir / f"upstream-suite-{mode}")
        print(f"wrote {md.relative_to(ROOT) if md.is_relative_to(ROOT) else md} and {js.name}")
    c = summary["counts"]
    print(f"upstream-suite {mode}: {c['passed_stock']} pass stock, {c['passed_patched']} patched; "
          f"{c['differences']} differ ({c['new_differences']} not in the ledger), "
          f"{c['ledger_entries_no_longer_differing']} ledger entries no longer differ")
    for d in comparison["new"]:
        print(f"  NEW {d['test']}: {d['patched']}: {d['patched_message']}")
    for e in comparison["stale"]:
        print(f"  STALE {e['test']}: no longer differs")
    return 1 if comparison["new"] or comparison["stale"] else 0


if __name__ == "__main__":
    sys.exit(standalone(sys.modules[__name__]))
