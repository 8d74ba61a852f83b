"""Text and loading helpers of trafilatura 2.3.1 (utils.py): trim, sanitize,
line processing, text filters and ``load_html`` with an injectable parser."""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Optional, Tuple

from trafila.text import doctype_end, repair_doctype, repair_doctype_sliced
from trafila.text import (  # noqa: F401 - shared by both releases, re-exported
    FORMATTING_PROTECTED, LINES_TRIMMING, RE_FILTER, RE_HTML_LANG, SPACING_PROTECTED, TARGET_LANG_ATTRS,
    check_html_lang, line_processing, normalize_unicode, remove_control_characters, return_printables_and_spaces,
    sanitize, text_chars_test, textfilter,
)
from trafila.text import collapse_whitespace as _collapse  # in pieces: Ctrl-C between them
from trafila.courlan.urlutils import fix_relative_urls, get_base_url  # noqa: F401 - re-exported
from .. import _decoding

if TYPE_CHECKING:
    from trafila.dom import Element


LOGGER = logging.getLogger(__name__)

DOCTYPE_TAG = re.compile("^< ?! ?DOCTYPE[^>]*/[^<>]*>", re.IGNORECASE)
FAULTY_HTML = re.compile(r"(<html.*?)\s*/>", re.IGNORECASE)
INVALID_XML_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

IMAGE_EXTENSION = re.compile(r"[^\s]+\.(avif|bmp|gif|hei[cf]|jpe?g|png|webp)(\b|$)", re.IGNORECASE)


LINK_FARM_RATIO = 0.9


# --- parser injection --------------------------------------------------------
#
# ``parse(str | bytes)`` must behave as lxml.html.fromstring(x, parser=HTML_PARSER)
# with trafilatura's HTML_PARSER: return the root it picks, raise ValueError for
# a str carrying an XML encoding declaration. ``fragment(str)`` behaves as
# lxml.html.fragment_fromstring(x, create_parent="div") (lxml's default parser).

def _default_parse(htmlobject: Any) -> Any:
    from trafila._backend import current

    return current().fromstring(htmlobject)


_LOOKS_FULL_HTML = re.compile(r"^\s*<(?:html|!doctype)", re.IGNORECASE)


def _default_fragment(htmlobject: str) -> Any:
    """lxml.html.fragment_fromstring(x, create_parent="div") on trafila's parser:
    the body's children (and non-blank leading text) under a new <div>."""
    from trafila._backend import current

    from ._tree import Element
    from ..xmlchars import xml_text

    if not _LOOKS_FULL_HTML.match(htmlobject):
        htmlobject = f"<html><body>{htmlobject}</body></html>"
    doc = current().document_fromstring(htmlobject)
    # lxml asserts these; the caller treats any exception as "not parsable"
    assert doc.tag == "html"
    bodies = [e for e in doc if e.tag == "body"]
    assert len(bodies) == 1
    body = bodies[0]
    new_root = Element("div")
    if body.text and body.text.strip():
        new_root.text = xml_text(body.text)
    for child in list(body):
        new_root.append(child)
    return new_root


_PARSE: Callable[[Any], Any] = _default_parse
_FRAGMENT: Callable[[str], Any] = _default_fragment


def set_parser(parse: Optional[Callable[[Any], Any]] = None, fragment: Optional[Callable[[str], Any]] = None) -> None:
    """Inject the document parser and the fragment parser (None: trafila.html)."""
    global _PARSE, _FRAGMENT
    _PARSE = parse or _default_parse
    _FRAGMENT = fragment or _default_fragment


def parse_fragment(htmlobject: str) -> Any:
    return _FRAGMENT(htmlobject)


# --- decoding and loading ------------------------------------------------------
#
# 2.3.1's decompression and charset detection live in trafila._decoding (shared
# with the 1.11.0 port, differences named there); these are its names here.

def handle_compressed_file(filecontent: Any, max_size: Optional[int] = None) -> Any:
    """gzip or zstd by their magic numbers, else brotli (when brotli >= 1.2 is
    installed) and zlib speculatively, each capped at ``max_size`` (default
    MAX_FILE_SIZE); the input itself when nothing decompresses it."""
    return _decoding.handle_compressed_file(filecontent, "2.3.1", max_size)


def decode_file(filecontent: Any, max_size: Optional[int] = None) -> str:
    """Decompress if need be, then UTF-8, the detected charsets, or UTF-8 with
    replacement (NotNative for charset detection without charset_normalizer)."""
    return _decoding.decode_file(filecontent, "2.3.1", max_size)


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
    "Remove XML-invalid control characters, a DOCTYPE with a '/', and <html .../>."
    from trafila._backend import current

    core = current().core
    if core is None:
        htmlstring = INVALID_XML_CHARS.sub("", htmlstring)
    else:
        # the same deletion in C (re's character-class scan is slow on a big page)
        htmlstring = core.strip_invalid_xml_chars(htmlstring)
    if "doctype" in beginning:
        htmlstring = _repair_doctype(htmlstring) if core is None else _repair_doctype_sliced(htmlstring)
    for line in htmlstring[:4096].splitlines()[:4]:
        if "<html" in line and line.endswith("/>"):
            htmlstring = FAULTY_HTML.sub(r"\1>", htmlstring, count=1)
            break
    return htmlstring


def _repair_in_place(htmlstring: str, beginning: str, core: Any) -> Tuple[str, int]:
    """repair_faulty_html for the core's parser, which can start inside the page:
    ``(s, start)`` with ``s[start:] == repair_faulty_html(htmlstring, beginning)`` (the
    DOCTYPE is skipped, not cut out of a copy of the page)."""
    htmlstring = core.strip_invalid_xml_chars(htmlstring)
    start = 0
    if "doctype" in beginning:
        start = doctype_end(htmlstring, DOCTYPE_TAG)
        if start < 0:
            return _repair_doctype_sliced(htmlstring), 0
    # upstream looks at the first 4 lines of the first 4096 characters
    if core.faulty_html_line(htmlstring, start, start + 4096, 4):
        return FAULTY_HTML.sub(r"\1>", htmlstring[start:], count=1), 0
    return htmlstring, start


def fromstring_bytes(htmlobject: str) -> Any:
    "Parse the UTF-8 encoding of the string; None on failure."
    try:
        return _PARSE(htmlobject.encode("utf8", "surrogatepass"))
    except Exception as err:  # noqa: BLE001 - as upstream
        LOGGER.error("parser bytestring %s", err)
    return None


def load_html(htmlobject: Any, max_size: Optional[int] = None, parse: Optional[Callable[[Any], Any]] = None) -> Any:
    """Load a str or bytes document (trafilatura.utils.load_html).

    ``parse`` overrides the injected parser for this call only.
    """
    global _PARSE
    if parse is not None:
        saved, _PARSE = _PARSE, parse
        try:
            return load_html(htmlobject, max_size)
        finally:
            _PARSE = saved
    if hasattr(htmlobject, "tag") and hasattr(htmlobject, "getparent"):
        return htmlobject
    if hasattr(htmlobject, "data"):
        htmlobject = htmlobject.data
    if not isinstance(htmlobject, (bytes, str)):
        raise TypeError("incompatible input type", type(htmlobject))
    tree = None
    htmlobject = decode_file(htmlobject, max_size)
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
    except NotImplementedError:
        raise
    except Exception as err:  # noqa: BLE001 - as upstream
        LOGGER.error("parsing failed: %s", err)
    if (tree is None or len(tree) < 1) and not fallback_parse:
        tree = fromstring_bytes(htmlobject[start:])
    if tree is not None and check_flag is True and len(tree) < 2:
        LOGGER.error("parsed tree length: %s, wrong data type or not valid HTML", len(tree))
        tree = None
    return tree


# --- URLs (courlan 1.4.0's helpers are in trafila.courlan) ---------------------------

def safe_base_url(url: str) -> str:
    "The base URL, '' if malformed."
    try:
        return get_base_url(url)
    except ValueError:
        return ""


def safe_relative_url(baseurl: str, url: str) -> str:
    "The resolved link, '' if malformed."
    try:
        return fix_relative_urls(baseurl, url)
    except ValueError:
        return ""


# --- text helpers (the rest are in trafila.text) ---------------------------------

@lru_cache(maxsize=1024)
def trim(string: Any) -> str:
    "Collapse whitespace runs to one space and strip; '' for non-strings."
    try:
        return _collapse(string).strip()
    except (AttributeError, TypeError):
        return ""


def image_src(element: Element) -> Optional[str]:
    "src, data-src, or the first data-src* attribute pointing to an image file."
    for attr in ("data-src", "src"):
        src = element.get(attr, "")
        if is_image_file(src):
            return src
    return next((v for a, v in element.attrib.items() if a.startswith("data-src") and is_image_file(v)), None)


def is_image_file(imagesrc: Optional[str]) -> bool:
    if imagesrc is None or len(imagesrc) > 8192:
        return False
    return bool(IMAGE_EXTENSION.search(imagesrc))


