"""Canonical dumps of lxml and trafila trees, comparable with ``==``.

A node dumps to ``(tag, [(name, value), ...], text, tail, [children...])``
with attributes in document order; a document dumps to
``{"doctype": (root_name, public_id, system_url) or None, "nodes": [...]}``
holding every top-level node (lxml: the root's preceding and following
siblings, so a second ``<html>`` root after ``</html>`` is compared too).

lxml comments and processing instructions (trafilatura's parser removes them,
other parsers may not) dump as ``("#comment", [], text, tail, [])`` and
``("#pi", [("target", target)], text, tail, [])``.

:func:`vector_nodes` turns a document dump into the nested form of the shared
parser vectors (trafila.html._debug). Used by the tests and the harness
(harness.treedump re-exports this module).
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

Dump = Tuple[Any, list, Optional[str], Optional[str], list]


def _is_lxml(node: Any) -> bool:
    return type(node).__module__.startswith("lxml")


def _dump_lxml(el: Any, with_tail: bool = True) -> Dump:
    # explicit stack: lxml trees can be deeper than Python's recursion limit
    from lxml import etree

    def head(node: Any) -> Tuple[Any, list]:
        tag = node.tag
        if tag is etree.Comment:
            return "#comment", []
        if tag is etree.ProcessingInstruction:
            return "#pi", [("target", node.target)]
        if tag is etree.Entity:
            return "#entity", []
        return tag, list(node.attrib.items())

    def make(node: Any, tail: bool) -> list:
        tag, attrs = head(node)
        return [tag, attrs, node.text, node.tail if tail else None, []]

    root = make(el, with_tail)
    stack = [(el, root)]
    while stack:
        node, out = stack.pop()
        kids = out[4]
        for child in node:
            d = make(child, True)
            kids.append(d)
            if len(child):
                stack.append((child, d))
    return _freeze(root)


def _dump_trafila(el: Any, with_tail: bool = True) -> Dump:
    def make(node: Any, tail: bool) -> list:
        return [node.tag, list(node.attrib.items()), node.text, node.tail if tail else None, []]

    root = make(el, with_tail)
    stack = [(el, root)]
    while stack:
        node, out = stack.pop()
        kids = out[4]
        for child in node._children:
            d = make(child, True)
            kids.append(d)
            if child._children:
                stack.append((child, d))
    return _freeze(root)


def _freeze(d: list) -> Dump:
    # children lists stay lists; the node itself becomes a tuple
    stack = [d]
    order = []
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(n[4])
    for n in reversed(order):
        n[4] = [tuple(c) if isinstance(c, list) else c for c in n[4]]
    return tuple(d)  # type: ignore[return-value]


def dump_element(el: Any, with_tail: bool = True) -> Dump:
    """Dump one element and its subtree (lxml or trafila)."""
    if _is_lxml(el):
        return _dump_lxml(el, with_tail)
    return _dump_trafila(el, with_tail)


def dump_lxml_document(root: Any) -> dict:
    """Dump the whole document an lxml element belongs to (all top-level
    siblings of its root, and the doctype)."""
    tree = root.getroottree()
    top = tree.getroot()
    nodes: List[Dump] = []
    if top is not None:
        before = list(top.itersiblings(preceding=True))
        before.reverse()
        for n in before + [top] + list(top.itersiblings()):
            nodes.append(_dump_lxml(n, True))
    dtd = tree.docinfo.internalDTD
    doctype = None
    if dtd is not None:
        # the name as written in the doctype (docinfo.root_name would give
        # the root element's name)
        doctype = (dtd.name, dtd.external_id, dtd.system_url)
    return {"doctype": doctype, "nodes": nodes}


def dump_trafila_document(doc: Any) -> dict:
    """Dump a trafila Document (or the document of a trafila element)."""
    if not hasattr(doc, "children") or not hasattr(doc, "docinfo"):
        doc = doc.getroottree()
    info = doc.docinfo
    doctype = None
    if info.has_doctype():
        # a nameless <!DOCTYPE> is root_name "" in trafila (present, no name); lxml's DTD name is then None
        doctype = (info.root_name or None, info.public_id, info.system_url)
    return {"doctype": doctype, "nodes": [_dump_trafila(n, True) for n in doc.children]}


def dump_document(obj: Any) -> dict:
    """Dump the document of an lxml element/tree or a trafila Document/Element."""
    if _is_lxml(obj):
        if hasattr(obj, "getroot") and not hasattr(obj, "tag"):
            obj = obj.getroot()
        return dump_lxml_document(obj)
    return dump_trafila_document(obj)


def first_difference(a: Any, b: Any) -> Optional[str]:
    """Describe where two dumps first differ (None when equal).

    The path names each node by tag and position, e.g.
    ``/nodes[0]/html/body[1]/p[3]: text 'a' != 'b'``.
    """
    if a == b:
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if a.get("doctype") != b.get("doctype"):
            return f"doctype: {a.get('doctype')!r} != {b.get('doctype')!r}"
        na, nb = a.get("nodes", []), b.get("nodes", [])
        for i, (x, y) in enumerate(zip(na, nb)):
            d = _node_difference(x, y, f"/nodes[{i}]")
            if d:
                return d
        if len(na) != len(nb):
            return f"/: {len(na)} top-level nodes != {len(nb)}"
        return "documents differ"
    return _node_difference(a, b, "") or "dumps differ"


def _node_difference(x: Any, y: Any, path: str) -> Optional[str]:
    """First difference in document order: tag, attributes, text, then the
    children one by one (each child's subtree, then its tail), then the
    children count, then this node's tail."""
    here = f"{path}/{x[0]}"
    if x[0] != y[0]:
        return f"{path}: tag {x[0]!r} != {y[0]!r}"
    if x[1] != y[1]:
        return f"{here}: attributes {x[1]!r} != {y[1]!r}"
    if x[2] != y[2]:
        return f"{here}: text {x[2]!r} != {y[2]!r}"
    kx, ky = x[4], y[4]
    for i, (cx, cy) in enumerate(zip(kx, ky)):
        if cx != cy:
            d = _node_difference(cx, cy, f"{here}[{i}]")
            if d:
                return d
    if len(kx) != len(ky):
        return f"{here}: children {[c[0] for c in kx]!r} != {[c[0] for c in ky]!r}"
    if x[3] != y[3]:
        return f"{here}: tail {x[3]!r} != {y[3]!r}"
    return None


# --- the parser vectors' form ------------------------------------------------------------

def _vector_element(dump: Dump) -> list:
    """``["e", tag, [[attr, value], ...], child...]`` with ``["t", text]`` runs
    among the children (no tail: the caller places it); a comment, PI or
    entity is ``["c", text]``."""
    def head(d: Dump) -> list:
        if d[0] in _NON_ELEMENTS:
            return ["c", d[2]]
        out: list = ["e", d[0], [[k, v] for k, v in d[1]]]
        if d[2] is not None:  # '' and None differ (lxml has no empty text nodes)
            out.append(["t", d[2]])
        return out

    root = head(dump)
    stack = [(dump, root)]
    while stack:
        d, out = stack.pop()
        if out[0] == "c":
            continue
        for child in d[4]:
            node = head(child)
            out.append(node)
            if child[4]:
                stack.append((child, node))
            if child[3] is not None:
                out.append(["t", child[3]])
    return root


_NON_ELEMENTS = frozenset(("#comment", "#pi", "#entity"))


def vector_element(el: Any) -> list:
    """One element (trafila or lxml) and its subtree in the vectors' form, without its tail."""
    return _vector_element(dump_element(el, with_tail=False))


def vector_nodes(document_dump: dict) -> List[list]:
    """A :func:`dump_document` result in the vectors' form: ``["dtd", name,
    public_id, system_id]`` first if there is a doctype, then one entry per
    top-level node."""
    nodes: List[list] = []
    doctype = document_dump["doctype"]
    if doctype is not None:
        nodes.append(["dtd"] + [part or "" for part in doctype])
    nodes.extend(_vector_element(n) for n in document_dump["nodes"])
    return nodes
