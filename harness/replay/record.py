"""Recording: fetch the pinned sdist, run its tests with the recorder plugin."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent.parent
#: ``$TRAFILA_REPLAY_CACHE``, or ``.cache/replay`` in the checkout
DEFAULT_CACHE = Path(os.environ.get("TRAFILA_REPLAY_CACHE") or ROOT / ".cache" / "replay")


def calls_path(cache: Path, mode: str) -> Path:
    return Path(cache) / mode / "calls.jsonl"


def blobs_path(cache: Path) -> Path:
    return Path(cache) / "blobs"


def symbolic(path: Path, cache: Path) -> str:
    """``path`` as committed reports may show it: relative to the checkout, or
    ``<cache>/...`` inside the cache, or only its name (no machine path)."""
    path = Path(path).resolve()
    for base, prefix in ((Path(cache).resolve(), "<cache>/"), (ROOT, "")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return path.name


def ensure_sdist(mode: str, cache: Path, python: str, log=print, sdist: Optional[Path] = None) -> Path:
    """The extracted sdist of trafilatura==mode in ``<cache>/sdist``: from ``sdist``
    (the ``.tar.gz`` that ``pip download --no-deps --no-binary :all: trafilatura==<mode>``
    writes, or the directory it was downloaded into), else downloaded at run time."""
    sdist_dir = Path(cache) / "sdist"
    target = sdist_dir / f"trafilatura-{mode}"
    if (target / "tests").is_dir():
        return target
    sdist_dir.mkdir(parents=True, exist_ok=True)
    tar = sdist_dir / f"trafilatura-{mode}.tar.gz"
    if sdist is not None:
        sdist = Path(sdist)
        tar = sdist / f"trafilatura-{mode}.tar.gz" if sdist.is_dir() else sdist
        if not tar.is_file():
            raise SystemExit(f"no trafilatura {mode} sdist at {tar}")
    elif not tar.exists():
        log(f"downloading the trafilatura {mode} sdist into {sdist_dir}")
        subprocess.run([python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        f"trafilatura=={mode}", "-d", str(sdist_dir)], check=True)
    with tarfile.open(tar) as tf:
        tf.extractall(sdist_dir, filter="data")
    # the tests must exercise the installed trafilatura, not the sdist's copy
    pkg = target / "trafilatura"
    if pkg.is_dir():
        pkg.rename(target / "_sdist_trafilatura_package")
    return target


def installed_version(python: str) -> str:
    out = subprocess.run([python, "-c", "import trafilatura; print(trafilatura.__version__)"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def pytest_path(python: str, mode: str, cache: Path, log=print) -> Optional[Path]:
    """A directory to put on PYTHONPATH when ``python`` has no pytest (installed there once)."""
    ok = subprocess.run([python, "-c", "import pytest"], capture_output=True).returncode == 0
    if ok:
        return None
    target = Path(cache) / f"pytest-{mode}"
    if not (target / "pytest").is_dir():
        log(f"{python} has no pytest: installing it into {target}")
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--target", str(target), "pytest"], check=True)
    return target


def summarise_calls(path: Path) -> Dict[str, object]:
    functions: Counter = Counter()
    reasons: Counter = Counter()
    calls = replayable = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if rec.get("header"):
                continue
            calls += 1
            functions[rec["function"]] += 1
            if rec.get("replayable"):
                replayable += 1
            else:
                reasons[rec.get("reason", "?")] += 1
    return {"calls": calls, "replayable": replayable, "functions": dict(functions.most_common()),
            "not_replayable": dict(reasons.most_common())}


def run_recorder(cwd: Path, tests: List[str], out: Path, blobs: Path, python: str, timeout: float = 1800.0,
                 extra_paths: Optional[List[str]] = None, extra_args: Optional[List[str]] = None, log=print):
    """Run pytest on ``tests`` (relative to ``cwd``) with the recorder; (exit code, summary line, log file)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    # the site dir makes processes started by the tests record too
    paths = [str(ROOT), str(Path(__file__).resolve().parent / "site")] + list(extra_paths or [])
    env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["TRAFILA_REPLAY_OUT"] = str(out)
    env["TRAFILA_REPLAY_BLOBS"] = str(blobs)
    env.pop("TRAFILA_REPLAY_SUBPROCESS", None)
    # the CLI tests run the `trafilatura` console script of the environment under test
    env["PATH"] = os.pathsep.join([str(Path(python).parent), env.get("PATH", "")])
    cmd = [python, "-m", "pytest", *tests, "-p", "harness.replay.recorder", "-p", "no:cacheprovider",
           "-q", "-o", "addopts=", "--continue-on-collection-errors", *(extra_args or [])]
    log(f"recording: {' '.join(cmd)} (cwd {cwd})")
    logfile = out.parent / "pytest.log"
    with open(logfile, "w") as fh:
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout)
            rc: object = proc.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    tail = logfile.read_text(errors="replace").strip().splitlines()
    summary_line = next((ln for ln in reversed(tail) if re.search(r"\d+ (passed|failed)", ln)), tail[-1] if tail else "")
    return rc, summary_line, logfile


def record(mode: str, cache: Path = DEFAULT_CACHE, python: Optional[str] = None, timeout: float = 1800.0,
           extra_args: Optional[List[str]] = None, log=print, sdist: Optional[Path] = None) -> dict:
    python = python or sys.executable
    have = installed_version(python)
    if have != mode:
        raise SystemExit(f"{python} has trafilatura {have}, not {mode}; pass --python with the right environment "
                         f"(an environment with trafilatura=={mode} installed)")
    cache = Path(cache).resolve()
    sdist = ensure_sdist(mode, cache, python, log, sdist)
    out = calls_path(cache, mode)
    tests = sorted(str(p.relative_to(sdist)) for p in (sdist / "tests").glob("*test*.py") if p.name != "conftest.py")
    extra = pytest_path(python, mode, cache, log)
    t0 = time.time()
    rc, summary_line, logfile = run_recorder(sdist, tests, out, blobs_path(cache), python, timeout,
                                             [str(extra)] if extra else [], extra_args, log)
    secs = time.time() - t0
    info = {"mode": mode, "python": python, "sdist": symbolic(sdist, cache), "pytest_exit": rc,
            "pytest_summary": summary_line.strip("= "), "seconds": round(secs, 1),
            "calls_file": symbolic(out, cache), "log": symbolic(logfile, cache)}
    info.update(summarise_calls(out) if out.exists() else {"calls": 0})
    (out.parent / "record.json").write_text(json.dumps(info, indent=1) + "\n")
    return info
