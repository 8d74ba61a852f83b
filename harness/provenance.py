"""Where a report's figures come from: the commit of the code a run loaded, the
time and the interpreter, stamped the same way on every report the harness writes;
and how a report is written: :func:`write_report_text` and :func:`write_report_json`,
which every report writer uses, pass what they write through :func:`scrub_paths`, so
that no report carries this machine's folders."""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .corpora import corpora_path

#: the checkout the harness runs from (git commands run there)
_CHECKOUT = Path(__file__).resolve().parent.parent


def git_commit(short: bool = True, mark_dirty: bool = False) -> Optional[str]:
    """HEAD of the checkout (abbreviated unless ``short`` is False), None outside a
    git checkout; ``mark_dirty`` appends a note when tracked files have changes."""
    args = ["git", "rev-parse", "--short", "HEAD"] if short else ["git", "rev-parse", "HEAD"]
    try:
        commit = subprocess.run(args, cwd=_CHECKOUT, capture_output=True, text=True, timeout=10,
                                check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if not commit:
        return None
    if mark_dirty:
        try:
            status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=_CHECKOUT,
                                    capture_output=True, text=True, timeout=10, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            status = ""
        if status.strip():
            commit += " (with uncommitted changes)"
    return commit


def portable_path(path: Any) -> str:
    """An absolute path as a report may show it, without this machine's folders: inside the
    checkout relative to it, an executable file elsewhere (``/x/venv/bin/py-spy``) by its name,
    found on PATH, another path beside the checkout (in the folder that holds it) relative to
    the checkout too (``../venv-ports``), anything else by its name in angle brackets
    (``<pages>``)."""
    path = Path(path)
    try:
        resolved = path.resolve()
    except OSError:
        resolved = path
    try:
        return resolved.relative_to(_CHECKOUT).as_posix()
    except ValueError:
        pass
    if path.is_file() and os.access(path, os.X_OK):
        return path.name
    if len(_CHECKOUT.parent.parts) > 1:
        try:
            return "../" + resolved.relative_to(_CHECKOUT.parent).as_posix()
        except ValueError:
            pass
    return f"<{path.name}>"


def portable_command(argv: Any) -> str:
    """A report's command line without this machine's paths: each absolute path as
    portable_path gives it, other arguments as given."""
    return " ".join(portable_path(arg) if str(arg).startswith("/") else str(arg) for arg in argv)


#: what is left of a machine's folders once :func:`scrub_paths`'s places are replaced: a temporary
#: directory, a home (the checked-out reports must read the same on every machine)
_LEFTOVER_PLACES: Tuple[Tuple["re.Pattern[str]", str], ...] = (
    (re.compile(r"(?<![\w.~$<>/-])/(?:var/)?tmp(?=/)"), "<tmp>"),
    (re.compile(r"(?<![\w.~$<>/-])/(?:root|home/[^/\s'\"`]+|Users/[^/\s'\"`]+)(?=/)"), "~"),
    (re.compile(r"(?<![\w.-])[A-Za-z]:\\Users\\[^\\\s'\"`]+"), "~"),
)


def report_places(places: Optional[Mapping[Any, str]] = None) -> List[Tuple[str, str]]:
    """The folders :func:`scrub_paths` replaces, as (path, what a report shows instead), the
    longest path first so that a place inside another is named by the inner one: the checkout
    (its paths become relative to it), ``$TRAFILA_CORPORA``, this interpreter's venv
    (``<venv>``), the caller's ``places``, the temporary directory (``<tmp>``), the home
    (``~``) and the folder beside the checkout (``..``)."""
    found: Dict[str, str] = {}

    def add(path: Any, shown: str) -> None:
        for variant in {str(path), os.path.realpath(str(path))}:
            variant = variant.rstrip("/\\")
            if len(variant) > 1 and variant not in found:
                found[variant] = shown

    add(_CHECKOUT, "")
    add(corpora_path(), "$TRAFILA_CORPORA")
    if sys.prefix != sys.base_prefix:
        add(sys.prefix, "<venv>")
    for path, shown in (places or {}).items():
        add(path, shown)
    add(tempfile.gettempdir(), "<tmp>")
    add(Path.home(), "~")
    add(_CHECKOUT.parent, "..")
    return sorted(found.items(), key=lambda item: -len(item[0]))


def scrub_paths(value: Any, places: Optional[Mapping[Any, str]] = None) -> Any:
    """``value`` (a string, or lists and dicts of them, as a report's JSON holds) with this
    machine's folders replaced (:func:`report_places`, then any temporary directory or home
    left); other values as they are. A path inside the checkout becomes relative to it."""
    if isinstance(value, str):
        return _scrub_text(value, report_places(places))
    if isinstance(value, (list, tuple)):
        return [scrub_paths(v, places) for v in value]
    if isinstance(value, dict):
        return {scrub_paths(k, places): scrub_paths(v, places) for k, v in value.items()}
    return value


def _scrub_text(text: str, places: List[Tuple[str, str]]) -> str:
    for path, shown in places:
        if path not in text:
            continue
        pattern = re.compile(r"(?<![\w.-])" + re.escape(path) + r"(?:(/)|(?![\w.-]))")
        if shown:
            text = pattern.sub(lambda m: shown + (m.group(1) or ""), text)
        else:  # the checkout: what is inside it, relative to it
            text = pattern.sub(lambda m: "" if m.group(1) else ".", text)
    for pattern, shown in _LEFTOVER_PLACES:
        text = pattern.sub(shown, text)
    # "$TRAFILA_CORPORA (/its/value)" says no more than the variable once its value is gone
    return text.replace("$TRAFILA_CORPORA ($TRAFILA_CORPORA)", "$TRAFILA_CORPORA")


def write_report_text(path: Path, text: str, places: Optional[Mapping[Any, str]] = None) -> Path:
    """Write a report's text (Markdown) to ``path``, without this machine's folders (:func:`scrub_paths`)."""
    path = Path(path)
    path.write_text(scrub_paths(text, places), encoding="utf-8")
    return path


def write_report_json(path: Path, data: Any, places: Optional[Mapping[Any, str]] = None, *,
                      sort_keys: bool = False, ensure_ascii: bool = True) -> Path:
    """Write a report's JSON (indented by one, a newline at the end) to ``path``, without this
    machine's folders (:func:`scrub_paths`)."""
    path = Path(path)
    path.write_text(json.dumps(scrub_paths(data, places), indent=1, sort_keys=sort_keys, ensure_ascii=ensure_ascii)
                    + "\n", encoding="utf-8")
    return path


def utc_now() -> str:
    "The time a report is written, as every report shows it."
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def stamped(result: Dict[str, Any], command: str, commit: Optional[str] = None) -> Dict[str, Any]:
    """``result`` with the run's date, commit (``commit``, or HEAD now), command and Python version."""
    return dict(result, date=utc_now(), commit=commit or git_commit(), command=command,
                python=platform.python_version())


#: what the core's compiled code is made from: its Cython sources and the build script (flags)
C_SOURCE_PATHS = ("cython_core", "setup.py")


def c_source_id(commit: str = "HEAD") -> Optional[str]:
    """The git object ids of the core's sources (``cython_core/`` and ``setup.py``) at ``commit``,
    joined: two builds with the same id compile the same C with the same flags. For HEAD, None when
    those paths have uncommitted changes (the build on disk is then not HEAD's), or outside git."""
    ids = []
    try:
        for path in C_SOURCE_PATHS:
            out = subprocess.run(["git", "rev-parse", f"{commit}:{path}"], cwd=_CHECKOUT, capture_output=True,
                                 text=True, timeout=10, check=False)
            if out.returncode != 0 or not out.stdout.strip():
                return None
            ids.append(out.stdout.strip()[:12])
        if commit == "HEAD":
            status = subprocess.run(["git", "status", "--porcelain", "--", *C_SOURCE_PATHS], cwd=_CHECKOUT,
                                    capture_output=True, text=True, timeout=10, check=False).stdout
            if status.strip():
                return None
    except (OSError, subprocess.SubprocessError):
        return None
    return "+".join(ids)


def build_info(module_file: Optional[str] = None) -> dict:
    """How the compiled core (``module_file``, default the imported ``trafila._core``) was built,
    from the compiler command lines gcc records in its DWARF ``DW_AT_producer`` strings: the
    optimisation level (``-O0``: a ``TRAFILA_CORE_DEBUG=1`` build), and whether ASan is in."""
    if module_file is None:
        from trafila import _engine

        module_file = _engine.core_module().__file__
    with open(module_file, "rb") as fh:
        data = fh.read()
    producers = sorted({m.decode("utf-8", "replace") for m in re.findall(rb"GNU C[0-9]* [^\x00]{1,2000}", data)})
    opt = None
    for prod in producers:
        levels = re.findall(r"(?:^| )(-O[0-9sgz]?)(?= |$)", prod)
        if levels:
            opt = levels[-1]
    debug = None if opt is None else opt == "-O0"
    # the module's file name, not its path: reports carry no machine's directories
    return {"file": os.path.basename(module_file), "producers": producers, "optimisation": opt, "debug": debug,
            "asan": any("-fsanitize=address" in p for p in producers)}


def loadavg() -> Optional[str]:
    """/proc/loadavg as it reads (how busy the shared machine was when a figure was taken), or None."""
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return None
