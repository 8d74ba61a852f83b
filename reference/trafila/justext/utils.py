"""jusText 3.0.2 ``justext/utils.py``: whitespace helpers."""

from __future__ import annotations

import re

# Python's \s (Unicode whitespace, plus \x1c-\x1f), as jusText uses it
_WHITESPACE_RUN = re.compile(r"\s+")


def _one_space_or_newline(match: "re.Match[str]") -> str:
    # jusText: _replace_whitespace -- a run holding a line break becomes one "\n"
    run = match.group()
    return "\n" if ("\n" in run or "\r" in run) else " "


def normalize_whitespace(text: str) -> str:
    """Collapse each whitespace run to " ", or to "\\n" if it holds "\\n" or "\\r"."""
    if "\n" not in text and "\r" not in text:
        return _WHITESPACE_RUN.sub(" ", text)  # no run can hold a line break
    return _WHITESPACE_RUN.sub(_one_space_or_newline, text)


def is_blank(string: str) -> bool:
    """True for an empty or whitespace-only string."""
    return not string or string.isspace()
