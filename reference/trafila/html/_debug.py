"""A canonical dump of a parsed document, for diffing trafila against lxml.

Both :func:`dump_document` (a :class:`trafila.dom.Document`) and
:func:`dump_lxml` (an lxml element or tree; needs lxml, tests only) give the
same nested form as ``doc_nodes`` in the shared parser vectors::

    ["dtd", name, public_id, system_id]                  # if there is a doctype (name as written)
    ["e", tag, [[attr, value], ...], child, child, ...]  # one per top-level element
    ["t", text]                                          # text/tail runs among children

(trafila.treedump's dumps, in that form.)
"""

from __future__ import annotations

from typing import Any, List, Optional

from .. import treedump


def dump_document(doc: Any) -> List[list]:
    """All top-level nodes of a trafila document (doctype first, as lxml's docinfo has it)."""
    return treedump.vector_nodes(treedump.dump_trafila_document(doc))


def dump_lxml(el_or_tree: Any) -> List[list]:
    """All top-level nodes of the lxml document holding ``el_or_tree``."""
    tree = el_or_tree.getroottree() if hasattr(el_or_tree, "getroottree") else el_or_tree
    root: Optional[Any] = tree.getroot()
    if root is None:
        dtd = tree.docinfo.internalDTD
        return [] if dtd is None else treedump.vector_nodes({"doctype": (dtd.name, dtd.external_id, dtd.system_url),
                                                              "nodes": []})
    return treedump.vector_nodes(treedump.dump_lxml_document(root))


def dump_element(el: Any) -> list:
    """One element (trafila or lxml) and its subtree, without its tail."""
    return treedump.vector_element(el)


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
