"""A canonical dump of a parsed document, for diffing trafila against lxml.

Both :func:`dump_document` (a :class:`trafila.dom.Document`) and
:func:`dump_lxml` (an lxml element or tree; needs lxml, tests only) give the
same nested form as ``doc_nodes`` in the shared parser vectors::

    ["dtd", name, public_id, system_id]                  # if there is a doctype (name as written)
    ["e", tag, [[attr, value], ...], child, child, ...]  # one per top-level element
    ["t", text]                                          # text/tail runs among children
"""

from __future__ import annotations

from typing import Any, List, Optional

from ..dom import iselement


def _dump_element(el: Any) -> list:
    out: list = ["e", el.tag, [[k, v] for k, v in el.attrib.items()]]
    if el.text is not None:  # '' and None differ (lxml has no empty text nodes)
        out.append(["t", el.text])
    for child in el:
        out.append(_dump_element(child))
        if child.tail is not None:
            out.append(["t", child.tail])
    return out


def dump_document(doc: Any) -> List[list]:
    """All top-level nodes of a trafila document (doctype first, as lxml's docinfo has it)."""
    nodes: List[list] = []
    info = doc.docinfo
    if info.root_name is not None or info.public_id is not None or info.system_url is not None:
        nodes.append(["dtd", info.root_name or "", info.public_id or "", info.system_url or ""])
    nodes.extend(_dump_element(el) for el in doc.children)
    return nodes


def _dump_lxml_element(el: Any) -> list:
    if not isinstance(el.tag, str):
        return ["c", el.text]
    out: list = ["e", el.tag, [[k, v] for k, v in el.attrib.items()]]
    if el.text is not None:  # '' and None differ (lxml has no empty text nodes)
        out.append(["t", el.text])
    for child in el:
        out.append(_dump_lxml_element(child))
        if child.tail is not None:
            out.append(["t", child.tail])
    return out


def dump_lxml(el_or_tree: Any) -> List[list]:
    """All top-level nodes of the lxml document holding ``el_or_tree``."""
    tree = el_or_tree.getroottree() if hasattr(el_or_tree, "getroottree") else el_or_tree
    nodes: List[list] = []
    dtd = tree.docinfo.internalDTD
    if dtd is not None:
        # the DTD's own name (lxml's docinfo.root_name would give the root element's tag)
        nodes.append(["dtd", dtd.name or "", dtd.external_id or "", dtd.system_url or ""])
    root: Optional[Any] = tree.getroot()
    if root is None:
        return nodes
    while root.getprevious() is not None:
        root = root.getprevious()
    while root is not None:
        nodes.append(_dump_lxml_element(root))
        root = root.getnext()
    return nodes


def dump_element(el: Any) -> list:
    """One element (trafila or lxml) and its subtree, without its tail."""
    return _dump_element(el) if iselement(el) else _dump_lxml_element(el)


def first_difference(a: Any, b: Any, path: str = "") -> Optional[str]:
    """A short description of where two dumps first differ (None if equal)."""
    if type(a) is not type(b):
        return f"{path}: {a!r:.120} != {b!r:.120}"
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            label = path
            if isinstance(a, list) and len(a) > 1 and a[0] == "e" and i == 1:
                label = f"{path}/{a[1]}"
            d = first_difference(x, y, f"{label}[{i}]")
            if d is not None:
                return d
        if len(a) != len(b):
            extra = a[len(b)] if len(a) > len(b) else b[len(a)]
            return f"{path}: length {len(a)} != {len(b)}; first extra {extra!r:.160}"
        return None
    if a != b:
        return f"{path}: {a!r:.160} != {b!r:.160}"
    return None
