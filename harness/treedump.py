"""Canonical dumps of lxml and trafila trees: trafila.treedump's, re-exported."""

from trafila.treedump import (  # noqa: F401
    Dump, dump_document, dump_element, dump_lxml_document, dump_trafila_document, first_difference,
)
