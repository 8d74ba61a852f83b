"""The element model an extraction builds its trees with, chosen per call.

The 2.3.1 stages (``trafila.v2_3_1``, ``trafila.readability_2_3_1``, jusText)
are written against trafila.dom's (lxml's) element API. Most operations
dispatch on the element they are given; the few that make a tree from
nothing -- ``Element(tag)``, the document and fragment parsers, readability's
serialise-and-reparse round trip -- ask :func:`current` which model the call
runs on. The reference engine leaves it at the default (trafila.dom and
trafila.html); the compiled core sets its own for the duration of a call
(:func:`use`), so the same stages run over the C document.

The choice lives in a :class:`contextvars.ContextVar`: threads and asyncio
tasks each see their own, and nothing is switched for the whole process.
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional


class Backend:
    """One element model: the constructors and parsers the stages need.

    ``Element(tag)`` makes a detached element (the root of a new document,
    no tag-name check: callers check as lxml does) and ``SubElement(parent,
    tag)`` one appended to ``parent`` (an element of this model); ``fromstring`` and
    ``document_fromstring`` parse as lxml.html's functions of those names with
    trafilatura's parser options; ``tostring_xml(el)`` is
    ``lxml.etree.tostring(el, encoding=str, method="xml")`` (tail included);
    ``iselement(obj)`` tells this model's elements; ``strip_tags`` and
    ``strip_elements`` are lxml.etree's; ``core`` is the compiled core module
    for the core's model (its C helpers), None for the reference's.
    """

    __slots__ = ("name", "core", "Element", "SubElement", "fromstring", "document_fromstring", "tostring_xml",
                 "iselement", "strip_tags", "strip_elements")

    def __init__(self, name: str, *, Element: Callable[[str], Any], SubElement: Callable[[Any, str], Any],  # noqa: N803
                 fromstring: Callable[[Any], Any],  # noqa: N803
                 document_fromstring: Callable[[Any], Any], tostring_xml: Callable[[Any], str],
                 iselement: Callable[[Any], bool], strip_tags: Callable[..., None],
                 strip_elements: Callable[..., None], core: Any = None) -> None:
        self.name = name
        self.core = core
        self.Element = Element
        self.SubElement = SubElement
        self.fromstring = fromstring
        self.document_fromstring = document_fromstring
        self.tostring_xml = tostring_xml
        self.iselement = iselement
        self.strip_tags = strip_tags
        self.strip_elements = strip_elements

    def __repr__(self) -> str:
        return f"<trafila backend {self.name}>"


def _reference_backend() -> Backend:
    from trafila import dom, html
    from trafila.html.serialize import tostring

    return Backend(
        "reference", Element=dom.Element, SubElement=dom.SubElement, fromstring=html.fromstring,
        document_fromstring=html.document_fromstring,
        tostring_xml=lambda el: tostring(el, encoding=str, method="xml"),
        iselement=dom.iselement, strip_tags=dom.strip_tags, strip_elements=dom.strip_elements,
    )


def core_backend(core: Any) -> Backend:
    """The compiled core's element model (``trafila._core``)."""
    global _CORE_TYPE, _CORE
    model = core.dom
    _CORE_TYPE, _CORE = model.CElement, core
    return Backend(
        "core", Element=model.Element, SubElement=model.SubElement, fromstring=model.fromstring,
        document_fromstring=model.document_fromstring, tostring_xml=core.tostring_xml,
        iselement=model.iselement, strip_tags=model.strip_tags, strip_elements=model.strip_elements, core=core,
    )


#: the compiled core's element class and module, once a core backend is made
_CORE_TYPE: Any = None
_CORE: Any = None


def core_of(el: Any) -> Any:
    """The compiled core module when ``el`` is one of its elements, else None:
    the stages then call the core's C version of a hot helper on it."""
    return _CORE if type(el) is _CORE_TYPE and _CORE_TYPE is not None else None


_REFERENCE: Optional[Backend] = None
_CURRENT: contextvars.ContextVar[Optional[Backend]] = contextvars.ContextVar("trafila_backend", default=None)


def reference() -> Backend:
    """trafila.dom with trafila.html's parsers."""
    global _REFERENCE
    if _REFERENCE is None:
        _REFERENCE = _reference_backend()
    return _REFERENCE


def current() -> Backend:
    """The element model of the call running in this context (default: the reference's)."""
    backend = _CURRENT.get()
    return backend if backend is not None else reference()


@contextmanager
def use(backend: Backend) -> Iterator[Backend]:
    """Run the enclosed code on ``backend``'s element model."""
    token = _CURRENT.set(backend)
    try:
        yield backend
    finally:
        _CURRENT.reset(token)


def run_with(backend: Backend, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` on ``backend``'s element model."""
    token = _CURRENT.set(backend)
    try:
        return function(*args, **kwargs)
    finally:
        _CURRENT.reset(token)


# --- the lxml.etree module functions, on the element model of their argument ------
# The 1.11.0 port calls these by lxml's names. A function given a tree works on
# that tree's model (a trafila.dom tree passed in by a caller stays one); a
# function making a tree from nothing (Element) uses the call's model.

def model_of(tree: Any) -> Any:
    """The element model ``tree`` belongs to: trafila.dom's, the core's, or
    (for anything else) the call's."""
    if _CORE_TYPE is not None and (type(tree) is _CORE_TYPE or type(tree) is _CORE.CDocument):
        return _CORE.dom
    from trafila import dom

    if isinstance(tree, (dom.Element, dom.Document)):
        return dom
    return current()


def Element(tag: str, attrib: Any = None) -> Any:  # noqa: N802 - lxml's name
    """lxml.etree.Element in the call's model (no tag-name check: callers check)."""
    if attrib is None:
        return current().Element(tag)
    from trafila import dom

    backend = current()
    return dom.Element(tag, attrib) if backend is reference() else backend.core.dom.Element(tag, attrib)


def SubElement(parent: Any, tag: str) -> Any:  # noqa: N802 - lxml's name
    """lxml.etree.SubElement in ``parent``'s model."""
    return model_of(parent).SubElement(parent, tag)


def strip_tags(tree: Any, *tags: Any) -> None:
    """lxml.etree.strip_tags in ``tree``'s model."""
    model_of(tree).strip_tags(tree, *tags)


def strip_elements(tree: Any, *tags: Any, with_tail: bool = True) -> None:
    """lxml.etree.strip_elements in ``tree``'s model."""
    model_of(tree).strip_elements(tree, *tags, with_tail=with_tail)


def tostring_xml(el: Any) -> str:
    """``lxml.etree.tostring(el, encoding=str, method="xml")`` (tail included) in ``el``'s model."""
    if core_of(el) is not None:
        return _CORE.tostring_xml(el)
    return reference().tostring_xml(el)
