"""Faster equivalents of htmldate's scans of the whole serialised page.

``search_page`` runs htmldate's patterns over the page's HTML, tens of kilobytes.
Most of them begin with ``\\D``, which holds nearly everywhere, so Python's regex
engine starts a match attempt at every position. The twins here give the same
results (the same lists, the same match objects' groups and spans) while letting
the engine skip straight to the digits:

* :class:`ShiftedFindall` -- ``findall`` of a pattern ``\\D(X)\\D`` (X starts with
  an ASCII digit), through a twin that starts at that digit and checks the ``\\D``
  before it with a lookbehind. The original consumes that ``\\D``, so after a match
  ending at ``e`` the next one's digit lies at ``e + 1`` or later: the loop resumes
  there. A twin puts a first-digit character class first (the engine's fast scan)
  and splits an optional leading digit ``[0-3]?[0-9]`` into the same two choices in
  the same order (``[0-3]`` then ``[0-9]``: take it, or leave it out).
* :func:`long_text_search` -- ``LONG_TEXT_PATTERN.search(string, pos)`` (dates written
  with a month name): every match ends with a year after a literal space, and begins
  at most 8 characters before the letter run that ends at most 8 characters before
  that year; no match holds another " YYYY" before its own year. So the leftmost
  match is the first found in the windows of the years, taken in order.

On the compiled core's backend the page-wide ``findall`` runs in C instead
(cython_core/htmldate_scan.pxi ``htmldate_findall``, the patterns transcribed by hand).

tests/test_htmldate.py checks each twin against its pattern on corpus pages and on
generated strings.
"""

from __future__ import annotations

import re
from typing import List, Optional

from trafila import _backend

from .utils import compiled_pattern

#: below this length a string is searched with the original pattern directly
SHORT = 2000


class ShiftedFindall:
    """``original.findall(string)`` for ``original`` = ``\\D(X)\\D``, by ``twin``: a pattern
    whose match starts at X's first character (a digit, preceded by a ``\\D`` that the
    twin checks behind it) and whose group 1 is X. With ``keep_edges`` the original's
    only group is the whole match (``(\\DX\\D)``): the twin matches X and its final
    ``\\D``, and the character before is added back."""

    __slots__ = ("original", "twin", "keep_edges", "which")

    def __init__(self, original: "re.Pattern[str]", twin: str, keep_edges: bool = False, which: int = -1) -> None:
        self.original = original
        self.twin = re.compile(twin, original.flags)
        self.keep_edges = keep_edges
        #: the pattern's number for the core's C matcher (htmldate_scan.pxi)
        self.which = which

    def findall(self, string: str) -> List[str]:
        "The original's ``findall`` (its group 1 for each match, left to right)."
        c_findall = getattr(_backend.current().core, "htmldate_findall", None)
        if c_findall is not None:
            return c_findall(string, self.which)  # type: ignore[no-any-return]
        if len(string) < SHORT:
            return self.original.findall(string)  # type: ignore[no-any-return]
        return self.findall_shifted(string)

    def findall_shifted(self, string: str) -> List[str]:
        "The same through the twin (any length: tests call it directly)."
        out: List[str] = []
        search = self.twin.search
        pos = 1  # X's first character follows the consumed \D
        while True:
            match = search(string, pos)
            if match is None:
                return out
            start = match.start()
            out.append(string[start - 1:match.end()] if self.keep_edges else match[1])
            pos = match.end() + 1


def _twin(first: str, rest: str) -> str:
    "X's first character (one ASCII digit class) checked to follow a \\D, then the rest."
    return first + r"(?<=\D" + first + ")" + rest


# THREE_LOOSE_PATTERN  \D([0-9]{4}[/.-][0-9]{2}[/.-][0-9]{2})\D
THREE_LOOSE = ShiftedFindall(
    compiled_pattern("THREE_LOOSE_PATTERN"),
    r"(" + _twin("[0-9]", r"[0-9]{3}[/.-][0-9]{2}[/.-][0-9]{2}") + r")\D", which=0)
# SELECT_YMD_PATTERN  \D([0-3]?[0-9][/.-][0-1]?[0-9][/.-][0-9]{4})\D
SELECT_YMD = ShiftedFindall(
    compiled_pattern("SELECT_YMD_PATTERN"),
    r"(" + _twin("[0-9]", r"(?:(?<=[0-3])[0-9][/.-][0-1]?[0-9][/.-][0-9]{4}|[/.-][0-1]?[0-9][/.-][0-9]{4})")
    + r")\D", which=1)
# DATESTRINGS_PATTERN  (\D19[0-9]{2}[01][0-9][0-3][0-9]\D|\D20[0-9]{2}[01][0-9][0-3][0-9]\D)
DATESTRINGS = ShiftedFindall(
    compiled_pattern("DATESTRINGS_PATTERN"),
    r"(?:" + _twin("1", "9") + "|" + _twin("2", "0") + r")[0-9]{2}[01][0-9][0-3][0-9]\D", keep_edges=True, which=2)
# SLASHES_PATTERN  \D([0-3]?[0-9]/[0-1]?[0-9]/[0129][0-9]|[0-3][0-9]\.[01][0-9]\.[0129][0-9])\D
SLASHES = ShiftedFindall(
    compiled_pattern("SLASHES_PATTERN"),
    r"(" + _twin("[0-9]", r"(?:(?<=[0-3])[0-9]/[0-1]?[0-9]/[0129][0-9]|/[0-1]?[0-9]/[0129][0-9]"
                           r"|(?<=[0-3])[0-9]\.[01][0-9]\.[0129][0-9])") + r")\D", which=3)
# YYYYMM_PATTERN  \D([12][0-9]{3}[/.-](?:1[0-2]|0[1-9]))\D
YYYYMM = ShiftedFindall(
    compiled_pattern("YYYYMM_PATTERN"),
    r"(" + _twin("[12]", r"[0-9]{3}[/.-](?:1[0-2]|0[1-9])") + r")\D", which=4)
# MMYYYY_PATTERN  \D([0-1]?[0-9][/.-][12][0-9]{3})\D
MMYYYY = ShiftedFindall(
    compiled_pattern("MMYYYY_PATTERN"),
    r"(" + _twin("[0-9]", r"(?:(?<=[01])[0-9][/.-][12][0-9]{3}|[/.-][12][0-9]{3})") + r")\D", which=5)
# SIMPLE_PATTERN  (?<!w3.org)\D((?:199[0-9]|20[0-3][0-9]))\D: the negative lookbehind
# stood before the \D, two characters (any, newline too) before the twin's position
SIMPLE = ShiftedFindall(
    compiled_pattern("SIMPLE_PATTERN"),
    r"((?:1(?<=\D1)(?<!w3.org[\s\S]{2})99[0-9]|2(?<=\D2)(?<!w3.org[\s\S]{2})0[0-3][0-9]))\D", which=6)

LONG_TEXT_PATTERN = compiled_pattern("LONG_TEXT_PATTERN")
_SPACED_YEAR = re.compile(r" (?:199[0-9]|20[0-3][0-9])")
_LETTER = re.compile(r"[^\W\d_]").match
#: a letter run longer than this before a year: the original search instead
_MAX_RUN = 2000


def long_text_search(string: str, pos: int = 0, short: int = SHORT) -> Optional["re.Match[str]"]:
    "``LONG_TEXT_PATTERN.search(string, pos)`` (see the module docstring)."
    if len(string) < short:
        return LONG_TEXT_PATTERN.search(string, pos)
    for year in _SPACED_YEAR.finditer(string, pos):
        y = year.start() + 1
        # the month's last letter lies at y - 8 or later: the start of the letter run there
        k = max(y - 8, 0)
        limit = k - _MAX_RUN
        while k > 0 and _LETTER(string, k - 1):
            k -= 1
            if k < limit:
                return LONG_TEXT_PATTERN.search(string, pos)
        # the day, its suffix, a space and "of " may stand before the month
        match = LONG_TEXT_PATTERN.search(string, max(pos, k - 9), y + 4)
        if match is not None:
            return match
    return None
