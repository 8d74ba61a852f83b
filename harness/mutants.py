"""The deliberately wrong candidates, by their old address: they live in
:mod:`harness.candidates` (``mutant:<name>`` is one of make_candidate's names)."""

from .candidates import MUTANTS, DropLastLine, IgnorePrecision, drop_last_line, make_mutant

__all__ = ["MUTANTS", "DropLastLine", "IgnorePrecision", "drop_last_line", "make_mutant"]
