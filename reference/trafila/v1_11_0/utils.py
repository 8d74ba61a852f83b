"""Loading and text helpers of trafilatura 1.11.0 (utils.py): ``load_html``
with an injectable parser, ``trim``, ``sanitize``, the text filters."""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any, Callable, List, Optional, Tuple

from trafila import _decoding
from trafila._engine import NotNative
# lxml's checks on what is written into a tree: shared by both ports, re-exported
from trafila.xmlchars import (  # noqa: F401
    check_xml_attribute, check_xml_tag, xml_attr_value, xml_name_valid, xml_text,
)
from trafila.text import doctype_end, repair_doctype, repair_doctype_sliced
from trafila.text import (  # noqa: F401 - shared by both releases, re-exported
    FORMATTING_PROTECTED, LINES_TRIMMING, RE_FILTER, RE_HTML_LANG, SPACING_PROTECTED, TARGET_LANG_ATTRS,
    check_html_lang, collapse_whitespace, line_processing, normalize_unicode, remove_control_characters,
    return_printables_and_spaces, sanitize, text_chars_test, textfilter,
)

LOGGER = logging.getLogger(__name__)

# 1.11.0's DOCTYPE pattern is lazy up to the first "/>" or "/ >": on a minified
# first line it eats everything up to the first self-closing tag
DOCTYPE_TAG = re.compile("^< ?! ?DOCTYPE.+?/ ?>", re.IGNORECASE)
FAULTY_HTML = re.compile(r"(<html.*?)\s*/>", re.IGNORECASE)

# case-sensitive in 1.11.0
IMAGE_EXTENSION = re.compile(r"[^\s]+\.(avif|bmp|gif|hei[cf]|jpe?g|png|webp)(\b|$)")


# --- parser injection -----------------------------------------------------------
#
# ``parse(str | bytes)`` must behave as lxml.html.fromstring(x, parser=HTML_PARSER)
# with trafilatura's HTML_PARSER (comments and PIs removed): return the root it
# picks, raise ValueError for a str carrying an XML encoding declaration.

def _default_parse(htmlobject: Any) -> Any:
    from trafila._backend import current

    return current().fromstring(htmlobject)


_PARSE: Callable[[Any], Any] = _default_parse


def set_parser(parse: Optional[Callable[[Any], Any]] = None) -> None:
    """Inject the document parser (None: the call's element model's fromstring)."""
    global _PARSE
    _PARSE = parse or _default_parse


# --- decoding and loading ---------------------------------------------------------
#
# 1.11.0's decompression and charset detection live in trafila._decoding (shared
# with the 2.3.1 port, differences named there); these are its names here.

def handle_compressed_file(filecontent: Any) -> Any:
    """gzip (by its magic number), zstandard (by its magic number, when
    installed), then brotli (when installed) and zlib, uncapped; the input
    itself when nothing decompresses it."""
    return _decoding.handle_compressed_file(filecontent, "1.11.0")


def decode_file(filecontent: Any) -> str:
    """Decompress if need be, then UTF-8, the detected charsets, or UTF-8 with
    replacement (NotNative for charset detection without charset_normalizer)."""
    return _decoding.decode_file(filecontent, "1.11.0")


def is_dubious_html(beginning: str) -> bool:
    "Proper HTML has 'html' (tag or doctype) in its first 50 characters."
    return "html" not in beginning


def _repair_doctype(htmlstring: str) -> str:
    "trafila.text.repair_doctype with this release's DOCTYPE_TAG."
    return repair_doctype(htmlstring, DOCTYPE_TAG)


def _repair_doctype_sliced(htmlstring: str) -> str:
    "trafila.text.repair_doctype_sliced with this release's DOCTYPE_TAG."
    return repair_doctype_sliced(htmlstring, DOCTYPE_TAG)


def repair_faulty_html(htmlstring: str, beginning: str) -> str:
    "Drop a DOCTYPE up to the first '/>' on the first line; fix <html .../> in the first lines."
    if "doctype" in beginning:
        from trafila._backend import current

        if current().core is None:
            htmlstring = _repair_doctype(htmlstring)
        else:
            htmlstring = _repair_doctype_sliced(htmlstring)
    for line in first_lines(htmlstring, 4):
        if "<html" in line and line.endswith("/>"):
            htmlstring = FAULTY_HTML.sub(r"\1>", htmlstring, count=1)
            break
    return htmlstring


def _repair_in_place(htmlstring: str, beginning: str, core: Any) -> Tuple[str, int]:
    """repair_faulty_html for the core's parser, which can start inside the page:
    ``(s, start)`` with ``s[start:] == repair_faulty_html(htmlstring, beginning)`` (the
    DOCTYPE is skipped, not cut out of a copy of the page)."""
    start = 0
    if "doctype" in beginning:
        start = doctype_end(htmlstring, DOCTYPE_TAG)
        if start < 0:
            return repair_faulty_html(htmlstring, beginning), 0
    if core.faulty_html_line(htmlstring, start, len(htmlstring), 4):
        return FAULTY_HTML.sub(r"\1>", htmlstring[start:], count=1), 0
    return htmlstring, start


def first_lines(string: str, count: int) -> List[str]:
    """``string.splitlines()[:count]`` without splitting the whole string
    (upstream splits the whole document to look at its first lines)."""
    size = 4096
    while True:
        lines = string[:size].splitlines(True)
        # with a line after the count-th, the count-th ends inside the prefix, with all of
        # its terminator ("\r\n" too: a "\n" after it would still be in the prefix)
        if len(lines) > count or size >= len(string):
            return [line.splitlines()[0] if line.splitlines() else "" for line in lines[:count]]
        size *= 4


def fromstring_bytes(htmlobject: str) -> Any:
    "Parse the UTF-8 encoding of the string; None on failure."
    try:
        return _PARSE(htmlobject.encode("utf8", "surrogatepass"))
    except NotNative:
        raise
    except Exception as err:  # noqa: BLE001 - as upstream
        LOGGER.error("lxml parser bytestring %s", err)
    return None


def is_element(obj: Any) -> bool:
    return hasattr(obj, "tag") and hasattr(obj, "getparent")


def load_html(htmlobject: Any) -> Any:
    """Load a str, bytes or element (trafilatura 1.11.0 utils.load_html)."""
    if is_element(htmlobject):
        if type(htmlobject).__module__.startswith("lxml"):
            raise NotNative("lxml tree input")
        return htmlobject
    if hasattr(htmlobject, "data"):
        htmlobject = htmlobject.data
    if not isinstance(htmlobject, (bytes, str)):
        raise TypeError("incompatible input type", type(htmlobject))
    tree = None
    htmlobject = decode_file(htmlobject)
    beginning = htmlobject[:50].lower()
    check_flag = is_dubious_html(beginning)
    from trafila._backend import current

    start = 0
    backend = current()
    if _PARSE is _default_parse and backend.core is not None:
        htmlobject, start = _repair_in_place(htmlobject, beginning, backend.core)
    else:
        htmlobject = repair_faulty_html(htmlobject, beginning)
    fallback_parse = False
    try:
        tree = backend.fromstring(htmlobject, start) if start else _PARSE(htmlobject)
    except ValueError:
        # "Unicode strings with encoding declaration are not supported."
        tree = fromstring_bytes(htmlobject[start:])
        fallback_parse = True
    except NotNative:
        raise
    except Exception as err:  # noqa: BLE001 - as upstream
        LOGGER.error("lxml parsing failed: %s", err)
    if (tree is None or len(tree) < 1) and not fallback_parse:
        tree = fromstring_bytes(htmlobject[start:])
    if tree is not None and check_flag is True and len(tree) < 2:
        LOGGER.error("parsed tree length: %s, wrong data type or not valid HTML", len(tree))
        tree = None
    return tree


# --- text helpers (the rest are in trafila.text) ---------------------------------

@lru_cache(maxsize=1024)
def trim(string: Any) -> Optional[str]:
    "Collapse whitespace runs to one space and strip; None for non-strings (1.11.0)."
    try:
        return collapse_whitespace(string).strip()
    except (AttributeError, TypeError):
        return None


def is_image_file(imagesrc: Optional[str]) -> bool:
    return bool(imagesrc is not None and IMAGE_EXTENSION.search(imagesrc))

