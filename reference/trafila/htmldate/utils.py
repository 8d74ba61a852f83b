"""Input handling and small helpers of htmldate 1.11.0 (htmldate/utils.py).

``load_html`` takes trafila's own trees (the reference's ``trafila.dom`` elements
or the compiled core's view) as they are; a ``str`` or ``bytes`` document is
parsed with trafila's parser, as htmldate's ``load_html`` parses it with lxml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, List, Optional

from trafila._engine import NotNative
from trafila.xmlchars import check_xml_text

from ._tables import PATTERNS


def compiled_pattern(name: str) -> "re.Pattern[str]":
    "One of htmldate's regexes, compiled from the generated table (_tables.PATTERNS)."
    source, flags = PATTERNS[name]
    return re.compile(source, flags)


DOCTYPE_TAG = compiled_pattern("DOCTYPE_TAG")
FAULTY_HTML = compiled_pattern("FAULTY_HTML")
# htmldate's parser keeps comments (trafila's, trafilatura's, drops them): a string with
# anything libxml2 may read as a comment or PI is not parsed here
_COMMENT_LIKE = re.compile(r"<[!?]|</[^A-Za-z]")
_LEADING_DOCTYPE = re.compile(r"^\s*<!doctype[^>]*>", re.I)


@dataclass
class Extractor:
    "The options of one find_date call."

    extensive: bool
    max: datetime
    min: datetime
    original: bool
    format: str


def is_trafila_element(obj: Any) -> bool:
    "An element of trafila's reference model or of the compiled core's view."
    from trafila import dom

    if isinstance(obj, dom.Element):
        return True
    module = type(obj).__module__ or ""
    return module.startswith("trafila") and hasattr(obj, "tag") and hasattr(obj, "getparent")


def is_dubious_html(beginning: str) -> bool:
    "No 'html' in the first 50 characters (lower-cased)."
    return "html" not in beginning


def repair_faulty_html(htmlstring: str, beginning: str) -> str:
    "htmldate's repairs: a self-closed doctype on the first line, a self-closed <html> in the first four."
    if "doctype" in beginning:
        firstline, _, rest = htmlstring.partition("\n")
        htmlstring = DOCTYPE_TAG.sub("", firstline, count=1) + "\n" + rest
    for line in htmlstring.split("\n", 4)[:4]:
        if "<html" in line and line.rstrip("\r").endswith("/>"):
            htmlstring = FAULTY_HTML.sub(r"\1>", htmlstring, count=1)
            break
    return htmlstring


def _parse(src: Any) -> Any:
    from trafila._backend import current

    return current().fromstring(src)


def load_html(htmlobject: Any) -> Any:
    """The tree find_date works on: trafila's element as given, or a str/bytes document
    parsed as htmldate parses it (NotNative where trafila's parser cannot be htmldate's)."""
    if is_trafila_element(htmlobject):
        return htmlobject
    if hasattr(htmlobject, "tag") and hasattr(htmlobject, "getparent"):
        raise NotNative("date: foreign tree")
    if not isinstance(htmlobject, (bytes, str)):
        raise TypeError(f"incompatible input type: {type(htmlobject)}")
    if isinstance(htmlobject, str) and htmlobject.startswith("http") and " " not in htmlobject:
        raise NotNative("date: URL download")
    if isinstance(htmlobject, bytes):
        try:
            htmlobject = htmlobject.decode("utf-8")
        except UnicodeDecodeError:
            raise NotNative("date: encoding detection") from None
    beginning = htmlobject[:50].lower()
    htmlobject = repair_faulty_html(htmlobject, beginning)
    if _COMMENT_LIKE.search(htmlobject, _doctype_end(htmlobject)):
        raise NotNative("date: comments in a string document")
    try:
        tree = _parse(htmlobject)
    except ValueError:
        tree = None
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - lxml's parser errors end in None, as upstream logs them
        tree = None
    if tree is None or len(tree) < 1:
        try:
            tree = _parse(htmlobject.encode("utf8"))
        except NotImplementedError:
            raise
        except Exception:  # noqa: BLE001
            tree = None
    if tree is not None and is_dubious_html(beginning) and len(tree) < 2:
        tree = None
    return tree


def _doctype_end(htmlstring: str) -> int:
    match = _LEADING_DOCTYPE.match(htmlstring)
    return match.end() if match else 0


def remove_if_attached(element: Any) -> None:
    "Remove an element (and its tail) from its parent, if it has one."
    parent = element.getparent()
    if parent is not None:
        parent.remove(element)


def clean_html(tree: Any, elemlist: List[str]) -> Any:
    "Drop the named elements, keeping their tails (lxml.html's drop_tree)."
    # the iterator looks one node ahead: dropping an element whose subtree holds the
    # next match ends the walk inside the detached subtree, as lxml's does
    for element in tree.iter(*elemlist):
        drop_tree(element)
    return tree


def drop_tree(element: Any) -> None:
    """lxml.html's ``drop_tree``, with lxml's check of the text it writes: the tail joins
    the previous sibling's tail or the parent's text, and a string lxml refuses (control
    characters the parser kept) raises ValueError before anything changes."""
    parent = element.getparent()
    if parent is None:
        # lxml.html's drop_tree asserts a parent
        raise NotNative("date: cleaning the root element")
    tail = element.tail
    if tail:
        previous = element.getprevious()
        check_xml_text(((parent.text if previous is None else previous.tail) or "") + tail)
    element.drop_tree()


def trim_text(string: str) -> str:
    "Collapse whitespace runs to one space and strip."
    return " ".join(string.split())


def first_descendant(tree: Any, tag: str, test: Optional[Any] = None) -> Any:
    "The first descendant ``tag`` element (passing ``test``), as ``tree.find('.//tag[...]')``."
    for elem in tree.iterdescendants(tag):
        if test is None or test(elem):
            return elem
    return None
