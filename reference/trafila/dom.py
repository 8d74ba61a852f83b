"""trafila's element model, with lxml's semantics.

A tree is made of :class:`Element` nodes: a tag, attributes in document order
(a ``dict``: first insertion wins, order kept), ``text`` (the text before the
first child) and ``tail`` (the text after the element, before its next
sibling) -- exactly lxml's text/tail model, which trafilatura relies on.

Every element belongs to a :class:`Document`; ``getroottree()`` returns it and
``Document.getroot()`` the first element child of the document, as lxml's
``_ElementTree.getroot()`` does. Other top-level nodes (a second ``<html>``
root after ``</html>``) are kept in ``Document.children``.

Construction contract used by the parser (trafila.html):

* ``Element(tag, attrib=None)`` makes a detached element in a new document;
* ``parent.append(child)`` attaches it (moving it, with its tail, if it had a
  parent already);
* ``Document()`` then ``doc.append_root(el)`` for top-level nodes.
"""

from __future__ import annotations

from typing import Dict, Iterable, Iterator, List, Optional, Tuple, Union

__all__ = ["Element", "Document", "DocInfo"]


class DocInfo:
    """The doctype as libxml2 keeps it (``root_name``, public and system ids)."""

    __slots__ = ("root_name", "public_id", "system_url")

    def __init__(
        self,
        root_name: Optional[str] = None,
        public_id: Optional[str] = None,
        system_url: Optional[str] = None,
    ) -> None:
        self.root_name = root_name
        self.public_id = public_id
        self.system_url = system_url


class Document:
    """A parsed document: its top-level nodes, the first element is the root."""

    __slots__ = ("children", "docinfo")

    def __init__(self) -> None:
        self.children: List["Element"] = []
        self.docinfo: DocInfo = DocInfo()

    def append_root(self, el: "Element") -> None:
        """Attach ``el`` as a top-level node of this document."""
        if el._parent is not None:
            el._parent.remove(el)
        el._parent = None
        el._set_doc(self)
        self.children.append(el)

    def getroot(self) -> Optional["Element"]:
        """The first element child of the document (lxml's ``getroot()``)."""
        return self.children[0] if self.children else None


class Element:
    """An element node with lxml's text/tail semantics."""

    __slots__ = ("tag", "attrib", "text", "tail", "_children", "_parent", "_doc")

    def __init__(
        self,
        tag: str,
        attrib: Union[None, Dict[str, str], Iterable[Tuple[str, str]]] = None,
    ) -> None:
        self.tag: str = tag
        self.attrib: Dict[str, str] = dict(attrib) if attrib else {}
        self.text: Optional[str] = None
        self.tail: Optional[str] = None
        self._children: List[Element] = []
        self._parent: Optional[Element] = None
        self._doc: Optional[Document] = None

    # -- structure -------------------------------------------------------
    def __len__(self) -> int:
        return len(self._children)

    def __iter__(self) -> Iterator["Element"]:
        return iter(list(self._children))

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        return self._children[index]

    def __bool__(self) -> bool:
        # lxml warns and answers len() > 0; trafilatura only tests `is None`.
        return len(self._children) > 0

    def __repr__(self) -> str:
        return f"<Element {self.tag} at {id(self):#x}>"

    def _set_doc(self, doc: Optional[Document]) -> None:
        stack = [self]
        while stack:
            node = stack.pop()
            node._doc = doc
            stack.extend(node._children)

    def getparent(self) -> Optional["Element"]:
        return self._parent

    def append(self, child: "Element") -> None:
        """Append ``child`` (moved with its tail, as lxml moves it)."""
        if child._parent is not None:
            child._parent._children.remove(child)
        elif child._doc is not None and child in child._doc.children:
            child._doc.children.remove(child)
        child._parent = self
        self._children.append(child)
        if child._doc is not self._doc:
            child._set_doc(self._doc)

    def remove(self, child: "Element") -> None:
        """Detach ``child``; its tail goes with it (lxml semantics)."""
        self._children.remove(child)
        child._parent = None
        child._set_doc(None)

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        return self.attrib.get(key, default)

    def set(self, key: str, value: str) -> None:
        self.attrib[key] = value

    def keys(self) -> List[str]:
        return list(self.attrib.keys())

    def items(self) -> List[Tuple[str, str]]:
        return list(self.attrib.items())

    def getroottree(self) -> Document:
        """The document this element belongs to (a new one if detached)."""
        if self._doc is None:
            top = self
            while top._parent is not None:
                top = top._parent
            doc = Document()
            doc.children.append(top)
            top._set_doc(doc)
        assert self._doc is not None
        return self._doc
