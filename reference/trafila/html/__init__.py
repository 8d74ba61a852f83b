"""libxml2 2.14.6's HTML parser, as lxml 6.1.3 drives it for trafilatura.

Reproduces ``lxml.html.fromstring(src, parser=lxml.html.HTMLParser(
collect_ids=False, default_doctype=False, encoding="utf-8",
remove_comments=True, remove_pis=True))`` for ``src`` a ``str`` or ``bytes``:

* :func:`parse_document` -- the whole document (every top-level node,
  including a second ``<html>`` root after ``</html>``; the doctype in
  ``docinfo``);
* :func:`fromstring` -- the element lxml.html.fromstring returns.

Modules: :mod:`.input` (what text libxml2 reads), :mod:`.entities`,
:mod:`.tables` (generated data), :mod:`.tokenizer`, :mod:`.treebuilder`;
:mod:`._debug` dumps trafila and lxml documents in one canonical form.

Exceptions: :class:`ParserError` where lxml raises ``lxml.etree.ParserError``
(no root element: empty, blank or comment-only input), ``ValueError`` for a
``str`` with an XML encoding declaration (lxml refuses it before parsing) and
when fromstring's merging of extra ``<body>`` elements would set text lxml
refuses (C0 controls, U+FFFE/U+FFFF).

Not ported (unreachable with pages under 5 MiB): libxml2's size limits
without HUGE -- a text node over 10,000,000 bytes halts the parser, attribute
values and comments over 10,000,000 bytes and doctype names/literals over
50,000 bytes are errors.
"""

from __future__ import annotations

import re
from typing import List, Union

from ..dom import Document, Element, children_list
from ..treeops import drop_tree
from ..xmlchars import xml_text
from .input import decode_input
from .tokenizer import Parser

__all__ = ["ParserError", "parse_document", "fromstring", "document_fromstring"]


class ParserError(Exception):
    """Stands for ``lxml.etree.ParserError`` (raised by lxml.html for an empty document)."""


# lxml.etree: _parseMemoryDocument refuses a str with an encoding declaration
_XML_DECL_ENCODING = re.compile(r"^(<\?xml[^>]+)\s+encoding\s*=\s*[\"'][^\"']*[\"'](\s*\?>|)", re.U)

# lxml.html: _looks_like_full_html_unicode / _looks_like_full_html_bytes
_LOOKS_FULL_STR = re.compile(r"^\s*<(?:html|!doctype)", re.I).match
_LOOKS_FULL_BYTES = re.compile(rb"^\s*<(?:html|!doctype)", re.I).match

# lxml.html.defs.block_tags
BLOCK_TAGS = frozenset([
    "address", "blockquote", "caption", "center", "col", "colgroup", "dd", "del", "dir", "div",
    "dl", "dt", "fieldset", "form", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "ins", "isindex",
    "legend", "li", "menu", "noscript", "ol", "optgroup", "option", "p", "pre", "table", "tbody",
    "td", "tfoot", "th", "thead", "tr", "ul",
])


def parse_document(src: Union[str, bytes]) -> Document:
    """Parse ``src`` into a whole :class:`~trafila.dom.Document`."""
    if isinstance(src, str) and _XML_DECL_ENCODING.match(src):
        raise ValueError(
            "Unicode strings with encoding declaration are not supported. "
            "Please use bytes input or XML fragments without declaration."
        )
    return Parser(decode_input(src)).parse_document()


def document_fromstring(src: Union[str, bytes]) -> Element:
    """The document's root element; :class:`ParserError` when there is none.
    # lxml.html: document_fromstring"""
    root = parse_document(src).getroot()
    if root is None:
        raise ParserError("Document is empty")
    return root


def _iter(el: Element):  # type: ignore[no-untyped-def]
    stack = [el]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children_list(node)))


def _contains_block_level_tag(el: Element) -> bool:
    return any(node.tag in BLOCK_TAGS for node in _iter(el))


def fromstring(src: Union[str, bytes]) -> Element:
    """The element ``lxml.html.fromstring`` returns for ``src``.
    # lxml.html: fromstring"""
    if isinstance(src, (bytes, bytearray)):
        is_full_html = _LOOKS_FULL_BYTES(src) is not None
    else:
        is_full_html = _LOOKS_FULL_STR(src) is not None
    doc = document_fromstring(src)
    if is_full_html:
        return doc
    bodies: List[Element] = [child for child in doc if child.tag == "body"]
    body = None
    if bodies:
        body = bodies[0]
        for other in bodies[1:]:
            # several bodies are merged into the first; their attributes are lost
            # (parsed text may hold characters lxml refuses to set: the merge can raise ValueError)
            if other.text:
                if len(body):
                    body[-1].tail = xml_text((body[-1].tail or "") + other.text)
                else:
                    body.text = xml_text((body.text or "") + other.text)
            for child in list(other):
                body.append(child)
            drop_tree(other)
    heads = [child for child in doc if child.tag == "head"]
    if heads:
        head = heads[0]
        for other in heads[1:]:
            for child in list(other):
                head.append(child)
            drop_tree(other)
        return doc
    if body is None:
        return doc
    if (
        len(body) == 1
        and (not body.text or not body.text.strip())
        and (not body[-1].tail or not body[-1].tail.strip())
    ):
        return body[0]
    body.tag = "div" if _contains_block_level_tag(body) else "span"
    return body
