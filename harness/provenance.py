"""Where a report's figures come from: the commit of the code a run loaded, the
time and the interpreter, stamped the same way on every report the harness writes."""

from __future__ import annotations

import datetime as _dt
import platform
import subprocess
from pathlib import Path
from typing import Any, Dict, Optional

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


def utc_now() -> str:
    "The time a report is written, as every report shows it."
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def stamped(result: Dict[str, Any], command: str, commit: Optional[str] = None) -> Dict[str, Any]:
    """``result`` with the run's date, commit (``commit``, or HEAD now), command and Python version."""
    return dict(result, date=utc_now(), commit=commit or git_commit(), command=command,
                python=platform.python_version())
