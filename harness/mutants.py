"""Deliberately wrong candidates: they prove that the harness catches what it should.

Each wraps the installed trafilatura and breaks one thing, so the number of
differences it must produce can be computed from the oracle cache alone
(see tests/test_harness_parity.py).
"""

from __future__ import annotations

from .candidates import Candidate, TrafilaturaCandidate


def drop_last_line(text):
    if not isinstance(text, str):
        return text
    return text.rsplit("\n", 1)[0] if "\n" in text else ""


class DropLastLine(Candidate):
    """Drops the last line of every text (and of bare_extraction's text field)."""

    name = "mutant:drop-last-line"

    def __init__(self) -> None:
        self.inner = TrafilaturaCandidate()

    def call(self, function, html, options, mode):
        out = self.inner.call(function, html, options, mode)
        if isinstance(out, dict):
            out = dict(out, text=drop_last_line(out.get("text")))
            return out
        return drop_last_line(out)

    def reset_dedup(self, mode):
        self.inner.reset_dedup(mode)


class IgnorePrecision(Candidate):
    """Ignores favor_precision."""

    name = "mutant:ignore-precision"

    def __init__(self) -> None:
        self.inner = TrafilaturaCandidate()

    def call(self, function, html, options, mode):
        options = {k: v for k, v in options.items() if k != "favor_precision"}
        return self.inner.call(function, html, options, mode)

    def reset_dedup(self, mode):
        self.inner.reset_dedup(mode)


MUTANTS = {"drop-last-line": DropLastLine, "ignore-precision": IgnorePrecision}


def make_mutant(name: str) -> Candidate:
    try:
        return MUTANTS[name]()
    except KeyError:
        raise ValueError(f"unknown mutant {name!r}; known: {', '.join(MUTANTS)}") from None
