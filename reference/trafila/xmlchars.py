"""lxml's checks on what is written into a tree, written once for every port.

trafilatura writes through lxml, which validates what it is given:

* text, tail and attribute values must be XML-compatible strings (lxml
  apihelpers.pxi ``_utf8``): C0 controls other than TAB/LF/CR, U+FFFE, U+FFFF
  and lone surrogates raise ValueError. Parsed text may hold them (libxml2
  keeps them), so upstream fails where it writes such a string back;
* in documents made by ``lxml.etree.Element`` (not by the HTML parser) new tag
  and attribute names must be XML names without a colon
  (``_pyXmlNameIsValid``, libxml2 ``xmlValidateNameValue``).

trafila.dom stores what it is given, so the ports check here where upstream
would have failed (the document is then dropped, or readability gives up).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Optional

from ._xmlname import FIRST, FOLLOW

__all__ = [
    "check_xml_text", "xml_text", "xml_attr_value",
    "xml_name_valid", "check_xml_tag", "check_xml_attribute",
]

_NOT_XML_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def check_xml_text(value: Any) -> str:
    """lxml's ``_utf8`` check on strings assigned to a tree (text, tail,
    attribute values): control characters other than TAB/LF/CR, U+FFFE,
    U+FFFF and surrogates raise ValueError; returns the string."""
    if isinstance(value, bytes):
        value = value.decode("ascii")  # lxml: bytes must be ASCII
    if not isinstance(value, str):
        raise TypeError(f"Argument must be bytes or unicode, got '{type(value).__name__}'")
    if _NOT_XML_TEXT.search(value):
        raise ValueError(
            "All strings must be XML compatible: Unicode or ASCII, no NULL bytes or control characters"
        )
    return value


def xml_text(value: Optional[str]) -> Optional[str]:
    "A text/tail value as lxml accepts it (None clears)."
    # a printable string holds none of the refused characters (all are Cc, Cn or Cs)
    if value is None or (type(value) is str and value.isprintable()):
        return value
    return check_xml_text(value)


def xml_attr_value(value: Any) -> str:
    "An attribute value set on an element of an lxml.etree document: None is a TypeError."
    if value is None:
        raise TypeError("Argument must be bytes or unicode, got 'NoneType'")
    return check_xml_text(value)


# --- XML names ------------------------------------------------------------------------
# libxml2's xmlIsDocNameStartChar / xmlIsDocNameChar (XML 1.0 fifth edition), as
# measured on the installed lxml by tools/gen_xmlname_table.py (trafila/_xmlname.py).
# ':' is a name character in XML but lxml refuses it in a tag or attribute name.


def _in_ranges(cp: int, ranges: Any) -> bool:
    "Whether ``cp`` lies in one of the sorted, disjoint (start, end) ``ranges``."
    lo, hi = 0, len(ranges)
    while lo < hi:
        mid = (lo + hi) // 2
        start, end = ranges[mid]
        if cp < start:
            hi = mid
        elif cp > end:
            lo = mid + 1
        else:
            return True
    return False


@lru_cache(maxsize=4096)
def xml_name_valid(name: str) -> bool:
    "lxml ``_pyXmlNameIsValid``: an XML Name (libxml2 xmlValidateNameValue) without ':'."
    if not name or ":" in name:
        return False
    if not _in_ranges(ord(name[0]), FIRST):
        return False
    return all(_in_ranges(c, FOLLOW) for c in map(ord, name[1:]))


def _local_name(name: str, what: str) -> str:
    "lxml ``_getNsTag``: '{uri}local' keeps the local part."
    if name[:1] == "{":
        end = name.find("}")
        if end < 0:
            raise ValueError(f"Invalid {what} name {name!r}")
        name = name[end + 1:]
    if not name:
        raise ValueError(f"Empty {what} name")
    return name


def _check_name(name: str, what: str) -> str:
    local = _local_name(name, what)
    if not xml_name_valid(local):
        raise ValueError(f"Invalid {what} name {local!r}")
    return name


def check_xml_tag(tag: str) -> str:
    "A tag for a new element of an lxml.etree document (SubElement/Element): ValueError if invalid."
    return _check_name(tag, "tag")


def check_xml_attribute(name: str) -> str:
    "An attribute name set on an element of an lxml.etree document."
    return _check_name(name, "attribute")
