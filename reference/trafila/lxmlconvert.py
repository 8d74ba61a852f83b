"""trafila element trees as lxml trees: the one converter (the API's
Document.body, the harness and the tests use it).

Imports lxml only when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Union

if TYPE_CHECKING:
    from .dom import Document, Element

__all__ = ["to_lxml"]

_HTML_FACTORY: List[Any] = []


def _html_factory() -> Any:
    from lxml import etree  # noqa: PLC0415

    if not _HTML_FACTORY:
        _HTML_FACTORY.append(etree.fromstring("<html></html>", etree.HTMLParser()))
    return _HTML_FACTORY[0]


def to_lxml(el: Union[Element, Document], whole_document: bool = False, html: bool = True) -> Any:
    """An lxml copy of a trafila element's subtree (tag, attributes, text,
    tails; the element's own tail too), or of the root of a Document.
    Iterative, so deep trees do not recurse.

    ``html``: the copy is made in an HTML document, so that lxml checks tag
    names as it does for parsed HTML (XML name rules would reject some);
    ``html=False`` makes it the root of a new XML document
    (``lxml.etree.Element``), as trafilatura builds its output trees.

    ``whole_document`` (always for a Document): the tree of ``el``'s root is
    copied and the copy of ``el`` is returned (lxml's API cannot give the root
    element element siblings: only the tree of the root is rebuilt)."""
    from lxml import etree  # noqa: PLC0415

    from .dom import Document, iselement  # noqa: PLC0415

    if isinstance(el, Document) or (not hasattr(el, "tag") and hasattr(el, "getroot")):
        el = el.getroot()
        whole_document = True
    # trafila.dom's child lists are read directly (the hot path); another
    # model's elements (the core's proxies) through the element API
    native = iselement(el)
    top = el
    if whole_document:
        while (top._parent if native else top.getparent()) is not None:
            top = top._parent if native else top.getparent()
    if html:
        out = _html_factory().makeelement(top.tag, top.attrib)
    else:
        out = etree.Element(top.tag, top.attrib)
    out.text, out.tail = top.text, top.tail
    wanted: Dict[int, Any] = {id(top): out}
    stack = [(top, out)]
    while stack:
        src, dst = stack.pop()
        for child in (src._children if native else list(src)):
            new = etree.SubElement(dst, child.tag, child.attrib)
            new.text, new.tail = child.text, child.tail
            if whole_document:
                wanted[id(child)] = new
            if (child._children if native else len(child)):
                stack.append((child, new))
    # the returned proxy keeps the lxml document alive
    return wanted[id(el)]
