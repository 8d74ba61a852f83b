"""The event order of ``lxml.sax.saxify`` over a trafila tree.

lxml 6.1.3 ``ElementTreeProducer.saxify`` (src/lxml/sax.py): ``startDocument``;
for each element, depth first: ``startElementNS``, then its ``text`` (if
non-empty) as ``characters``, then its children, then ``endElementNS``, then its
``tail`` (if non-empty) as ``characters`` -- the root's tail included; finally
``endDocument``.  Comments and processing instructions (not in trafila trees
from the parser, which drops them) give only their tail.  Attributes and
namespace events are not reported: jusText's handler ignores them.

The handler is duck-typed: ``start_document()``, ``start_element(name)``,
``end_element(name)``, ``characters(text)``, ``end_document()``.
"""

from __future__ import annotations

from typing import Any


def local_name(tag: str) -> str:
    """``{uri}local`` -> ``local`` (lxml ``_getNsTag``); HTML tags pass unchanged."""
    if tag[:1] == "{":
        return tag.split("}", 1)[1]
    return tag


def saxify(element_or_tree: Any, handler: Any) -> None:
    """Report ``element_or_tree`` to ``handler`` in lxml.sax's order (iteratively)."""
    getroot = getattr(element_or_tree, "getroot", None)
    root = getroot() if getroot is not None else element_or_tree
    handler.start_document()
    # (element, opening?) -- a closing entry is pushed before the children
    stack = [(root, True)]
    while stack:
        element, opening = stack.pop()
        tag = element.tag
        if not isinstance(tag, str):
            # comment / processing instruction: only the tail is text content
            if element.tail:
                handler.characters(element.tail)
            continue
        if opening:
            name = local_name(tag)
            handler.start_element(name)
            if element.text:
                handler.characters(element.text)
            stack.append((element, False))
            children = element.getchildren()
            children.reverse()
            stack.extend((child, True) for child in children)
        else:
            handler.end_element(local_name(tag))
            if element.tail:
                handler.characters(element.tail)
    handler.end_document()
