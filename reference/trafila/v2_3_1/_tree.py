"""Tree helpers shared by the 2.3.1 port, with lxml's semantics.

The port calls lxml-style element methods (``iter``, ``iterdescendants``,
``iterancestors``, ``itertext``, ``getnext``, ``getprevious``, ``insert``,
``addnext``...) directly; the module-level operations lxml keeps outside the
element class (``Element``, ``SubElement``, ``strip_tags``, ``strip_elements``,
``copy``) and lxml.html's ``text_content`` live here.

Two backends: ``trafila`` (the default) and ``lxml`` (lxml.etree elements,
used by the differential tests to validate the port's logic on the very trees
trafilatura sees). The backend only decides which class new elements get and
which ``strip_*``/copy implementation runs. Under ``trafila``, the element
model is the call's (:mod:`trafila._backend`): trafila.dom for the reference
engine, the C document's proxies for the compiled core.
"""

from __future__ import annotations

from typing import Any, List, Optional

from trafila._backend import core_of, current
from trafila.dom import descendants_list, iselement, iter_descendants_readonly
from trafila.xmlchars import check_xml_tag

_BACKEND = "trafila"


def set_backend(name: str) -> None:
    """Select the element class for new elements: ``trafila`` or ``lxml``."""
    global _BACKEND
    if name not in ("trafila", "lxml"):
        raise ValueError(name)
    _BACKEND = name


def _is_lxml(el: Any) -> bool:
    return type(el).__module__.startswith("lxml")


_VALID_NAMES: dict = {}


def check_tag_name(tag: str) -> None:
    """lxml's check on a new element's tag (no parser, so XML rules): the
    name must be an XML Name without ':' ("{ns}local" checks the local part);
    ValueError otherwise. Upstream turns that ValueError into a None result."""
    if tag in _VALID_NAMES:
        return
    check_xml_tag(tag)
    if len(_VALID_NAMES) < 4096:
        _VALID_NAMES[tag] = True


def Element(tag: str) -> Any:  # noqa: N802 - lxml's name
    """A new detached element in a new document (lxml.etree.Element)."""
    if _BACKEND == "lxml":
        from lxml.etree import Element as _LE

        return _LE(tag)
    check_tag_name(tag)
    return current().Element(tag)


def SubElement(parent: Any, tag: str) -> Any:  # noqa: N802 - lxml's name
    """A new element appended to ``parent`` (lxml.etree.SubElement; the
    parents here are always made by Element, so XML name rules apply)."""
    if _is_lxml(parent):
        from lxml.etree import SubElement as _LS

        return _LS(parent, tag)
    check_tag_name(tag)
    if iselement(parent):
        from trafila.dom import Element as _TE

        child = _TE(tag)
        parent.append(child)
        return child
    return current().SubElement(parent, tag)


def text_content(el: Any) -> str:
    """XPath ``string()`` of an element: its text and its descendants' text and
    tails, without its own tail (lxml.html's ``text_content``)."""
    core = core_of(el)
    if core is not None:
        return core.text_content(el)
    return "".join(el.itertext())


def copy_tree(el: Any) -> Any:
    """``copy.copy``/``copy.deepcopy`` of an element: the subtree and its tail,
    as the root of a new document (lxml copies into a fresh document)."""
    from copy import deepcopy

    return deepcopy(el)


def strip_tags(tree: Any, *tags: str) -> None:
    """lxml.etree.strip_tags: splice matching descendants' content in place."""
    if len(tags) == 1 and not isinstance(tags[0], str):
        tags = tuple(tags[0])
    if not tags:
        return
    if _is_lxml(tree):
        from lxml.etree import strip_tags as _ls

        _ls(tree, *tags)
        return
    _model_of(tree).strip_tags(tree, *tags)


def strip_elements(tree: Any, *tags: str, with_tail: bool = True) -> None:
    """lxml.etree.strip_elements: delete matching descendants (tails too by default)."""
    if _is_lxml(tree):
        from lxml.etree import strip_elements as _le

        _le(tree, *tags, with_tail=with_tail)
        return
    _model_of(tree).strip_elements(tree, *tags, with_tail=with_tail)


def _model_of(tree: Any) -> Any:
    "The module functions for ``tree``'s element model: trafila.dom's, else the call's."
    from trafila import dom

    if iselement(tree) or isinstance(tree, dom.Document):
        return dom
    return current()


def root_of(el: Any) -> Any:
    """``el.getroottree().getroot()`` for an element attached under a root:
    the topmost ancestor."""
    parent = el.getparent()
    while parent is not None:
        el = parent
        parent = el.getparent()
    return el


# --- read-only traversals -------------------------------------------------------
# lxml's lookahead iterators matter only when the tree changes during the walk;
# where it does not (selectors, tests), a plain pre-order walk gives the same
# nodes in the same order, much faster than stepping sibling by sibling.

def desc_list(el: Any) -> List[Any]:
    "Descendants of ``el`` in document order (a snapshot, like an XPath result)."
    if iselement(el):
        # trafila.dom's own walk of the child lists (this walk is the hot path)
        return descendants_list(el)
    core = core_of(el)
    if core is not None:
        return core.descendants(el)
    out: List[Any] = []
    stack = el[:]
    stack.reverse()
    pop, push, append = stack.pop, stack.extend, out.append
    while stack:
        node = pop()
        append(node)
        if len(node):
            ch = node[:]
            ch.reverse()
            push(ch)
    return out


def iter_desc(el: Any, tag: Optional[str] = None) -> Any:
    "Generator over the descendants (optionally of one tag), for early exits; read-only use."
    if iselement(el):
        return iter_descendants_readonly(el, tag)
    core = core_of(el)
    if core is not None:
        return iter(core.descendants(el, None if tag is None else (tag,)))
    return _iter_desc_lxml(el, tag)


def _iter_desc_lxml(el: Any, tag: Optional[str]) -> Any:
    stack = el[:]
    stack.reverse()
    while stack:
        node = stack.pop()
        if tag is None or node.tag == tag:
            yield node
        if len(node):
            ch = node[:]
            ch.reverse()
            stack.extend(ch)


def desc_tagged(el: Any, tag: str) -> List[Any]:
    "``el.findall('.//tag')`` as a snapshot."
    core = core_of(el)
    if core is not None:
        return core.descendants(el, (tag,))
    return [n for n in desc_list(el) if n.tag == tag]


# --- live iteration with lxml's lookahead ---------------------------------------------

def iter_live(top: Any, *tags: str, inclusive: bool = True) -> Any:
    """``top.iter(*tags)`` (``inclusive``) or ``top.iterdescendants(*tags)``
    with lxml's semantics: the next match is fetched when the current node is
    handed out, from the tree as it is at that moment.

    trafila.dom's walk remembers sibling positions (checked by identity,
    searched again when the tree moved), so wide nodes cost no quadratic
    list searches."""
    names = None if (not tags or tags == ("*",)) else frozenset(tags)
    if names is None:
        return top.iter() if inclusive else top.iterdescendants()
    return top.iter(*names) if inclusive else top.iterdescendants(*names)


_NOT_XML_TEXT = None


def xt(value: Optional[str]) -> Optional[str]:
    """lxml's check on text/tail assignment: a ValueError for C0 controls
    (other than TAB/LF/CR), U+FFFE/U+FFFF and lone surrogates. Parsed text may
    hold them; upstream fails (and returns None) when it writes such a string."""
    global _NOT_XML_TEXT
    if value is None or value.isprintable():
        return value
    if _NOT_XML_TEXT is None:
        import re

        _NOT_XML_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
    if _NOT_XML_TEXT.search(value):
        raise ValueError("All strings must be XML compatible: Unicode or ASCII, no NULL bytes or control characters")
    return value
