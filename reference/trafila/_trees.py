"""trafila element trees at the public boundary: lxml copies (Document.body
is an lxml element when lxml is installed), picklable tuples, XML strings."""

from __future__ import annotations

import importlib.util
from typing import Any, Dict

def _is_lxml(obj: Any) -> bool:
    return type(obj).__module__.startswith("lxml")


_FOUND: Dict[str, bool] = {}


def _installed(module: str) -> bool:
    "Whether a top-level module can be imported (looked up once per process)."
    if module not in _FOUND:
        _FOUND[module] = importlib.util.find_spec(module) is not None
    return _FOUND[module]


def lxml_available() -> bool:
    return _installed("lxml")


def to_lxml(el: Any) -> Any:
    """An lxml.etree copy of a trafila element subtree (tag, attributes, text,
    tails; the root's tail too), the root of a new XML document."""
    from .lxmlconvert import to_lxml as convert  # noqa: PLC0415

    return convert(el, html=False)


def _to_tuples(el: Any) -> tuple:
    "A picklable (tag, attributes, text, tail, children) copy of either element model."
    def node(e: Any) -> list:
        return [e.tag, list(e.attrib.items()), e.text, e.tail, []]

    root = node(el)
    stack = [(el, root)]
    while stack:
        src, dst = stack.pop()
        for child in src:
            if not isinstance(child.tag, str):  # lxml comments/PIs: trafilatura's parser drops them
                continue
            new = node(child)
            dst[4].append(new)
            stack.append((child, new))
    return _freeze(root)


def _freeze(root: list) -> tuple:
    out: Dict[int, tuple] = {}
    order = [root]
    i = 0
    while i < len(order):
        order.extend(order[i][4])
        i += 1
    for n in reversed(order):
        out[id(n)] = (n[0], tuple(n[1]), n[2], n[3], tuple(out[id(c)] for c in n[4]))
    return out[id(root)]


def _from_tuples(data: tuple) -> Any:
    "A trafila element tree from _to_tuples' output."
    from .dom import Element  # noqa: PLC0415

    def make(n: tuple) -> Any:
        e = Element(n[0], dict(n[1]) if n[1] else None)
        e.text, e.tail = n[2], n[3]
        return e

    root = make(data)
    stack = [(data, root)]
    while stack:
        src, dst = stack.pop()
        for child in src[4]:
            new = make(child)
            dst.append(new)
            new.tail = child[3]
            stack.append((child, new))
    return root


def _public_tree(value: Any) -> Any:
    "What a reader of Document.body gets: lxml when installed, else the XML string."
    if value is None or isinstance(value, str) or _is_lxml(value):
        return value
    if lxml_available():
        return to_lxml(value)
    from .dom import iselement  # noqa: PLC0415
    from .html.serialize import tostring  # noqa: PLC0415

    if not iselement(value):  # a compiled-core element
        from ._engine import core_module  # noqa: PLC0415

        return core_module().tostring_xml(value)
    return tostring(value, encoding="unicode")
