"""Convert trees between lxml and trafila's dom (for tests and the harness).

``from_lxml(el)`` rebuilds the WHOLE document ``el`` belongs to (every
top-level sibling of its root, e.g. a second ``<html>`` root, and the doctype)
and returns the trafila element that corresponds to ``el``.

``to_lxml(el)`` (trafila.lxmlconvert's) builds an lxml tree from a trafila
element (or Document); with ``whole_document=True`` the tree of ``el``'s root
is copied and the element corresponding to ``el`` is returned.

lxml comments / processing instructions have no trafila counterpart:
``from_lxml`` drops them and joins their tail to the preceding text, which is
what trafilatura's parser (``remove_comments=True``) would have produced.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from trafila.dom import NO_VALUE, Document, Element
from trafila.lxmlconvert import to_lxml  # noqa: F401 - the converter, re-exported


def _valueless(lx: Any, attrib: Dict[str, str]) -> Dict[str, str]:
    """Mark attributes that libxml2 holds without a value node (``<div
    hidden>``) with NO_VALUE: only lxml's HTML serialiser shows the
    difference, so read it back from there (start tag only)."""
    from lxml import etree

    try:
        text = etree.tostring(lx, method="html", encoding="unicode", with_tail=False)
    except Exception:  # noqa: BLE001 - leave the values as they are
        return attrib
    pos = 1 + len(lx.tag)
    out = dict(attrib)
    for name in attrib:
        # attributes come in document order: " name" or " name=<quoted>"
        if not text.startswith(" " + name, pos):
            return attrib
        pos += 1 + len(name)
        if text.startswith("=", pos):
            quote = text[pos + 1]
            end = text.index(quote, pos + 2)
            pos = end + 1
        elif attrib[name] == "":
            out[name] = NO_VALUE
    return out


def _new(tag: str, attrib: Any, text: Optional[str], tail: Optional[str], lx: Any = None) -> Element:
    el = Element.__new__(Element)
    el.tag = tag
    # lxml's element.items() is much faster than dict(element.attrib)
    el.attrib = dict(attrib) if attrib else {}
    if lx is not None and attrib and "" in el.attrib.values():
        el.attrib = _valueless(lx, el.attrib)
    el.text = text
    el.tail = tail
    el._children = []
    el._parent = None
    el._doc = None
    el._pos = 0
    return el


def _copy_subtree(src: Any, want: Any, found: List[Element]) -> Element:
    """Copy an lxml element subtree (with its tail) into trafila nodes."""
    root = _new(src.tag, src.items(), src.text, src.tail, src)
    if src is want:
        found.append(root)
    stack = [(src, root)]
    while stack:
        s, d = stack.pop()
        kids = d._children
        for c in s:
            tag = c.tag
            if not isinstance(tag, str):
                # comment / PI / entity: keep only its tail, joined to the previous text
                if c.tail is not None:
                    if kids:
                        kids[-1].tail = (kids[-1].tail or "") + c.tail
                    else:
                        d.text = (d.text or "") + c.tail
                continue
            n = _new(tag, c.items(), c.text, c.tail, c)
            n._parent = d
            n._pos = len(kids)
            kids.append(n)
            if c is want:
                found.append(n)
            if len(c):
                stack.append((c, n))
    return root


def from_lxml(lxml_element: Any) -> Element:
    """The trafila element matching ``lxml_element``, in a trafila copy of
    its whole lxml document (doctype and top-level siblings included)."""
    el = lxml_element
    if hasattr(el, "getroot") and not hasattr(el, "tag"):
        el = el.getroot()
    tree = el.getroottree()
    top = tree.getroot()
    # an element removed from its tree still belongs to the document in lxml;
    # it is then copied on its own
    attached = top is not None and (el is top or any(a is top for a in el.iterancestors()))
    doc = Document()
    # lxml.html parses into HTML documents (HtmlElement proxies); a tree from
    # etree.Element/XML parsing is an XML document
    from lxml.html import HtmlMixin

    doc.is_html = isinstance(el, HtmlMixin)
    info = tree.docinfo
    dtd = info.internalDTD
    if dtd is not None:
        # DocInfo.root_name is the name in the doctype (lxml's
        # docinfo.root_name is the root element's name instead)
        doc.docinfo.root_name = dtd.name
        doc.docinfo.public_id = dtd.external_id
        doc.docinfo.system_url = dtd.system_url
    found: List[Element] = []
    if attached:
        before = list(top.itersiblings(preceding=True))
        before.reverse()
        tops = before + [top] + list(top.itersiblings())
    else:
        tops = [el]
    for t in tops:
        if not isinstance(t.tag, str):
            continue
        node = _copy_subtree(t, el, found)
        node._doc = doc
        if attached:
            doc.children.append(node)
    if not found:
        raise ValueError("element not found in its own document")
    return found[0]
