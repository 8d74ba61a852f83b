"""trafila's element model, with lxml's semantics.

A tree is made of :class:`Element` nodes: a tag, attributes in document order
(a ``dict``: first insertion wins, order kept), ``text`` (the text before the
first child) and ``tail`` (the text after the element, before its next
sibling) -- exactly lxml's text/tail model, which trafilatura relies on.

Every element belongs to a :class:`Document`; ``getroottree()`` returns it and
``Document.getroot()`` the first element child of the document, as lxml's
``_ElementTree.getroot()`` does. Other top-level nodes (a second ``<html>``
root after ``</html>``) are kept in ``Document.children``.

Construction:

* ``Element(tag, attrib=None)`` makes a detached element in a new document;
* ``parent.append(child)`` attaches it (moving it, with its tail, if it had a
  parent already);
* ``Document()`` then ``doc.append_root(el)`` for top-level nodes.

The private slots (``_children``, ``_parent``, ``_doc``, ``_pos``) are read
and written in this module only: trafila's parser, serialiser and tree helpers
use the internal operations defined after :class:`Element`
(``append_parsed_child``, ``children_list``, ``last_child``, ``is_top_level``,
``descendants_list``, ``iter_descendants_readonly``), which lxml does not have.

How the lxml behaviours are kept (each checked against lxml 6.1.3 in
tests/test_dom*.py):

* Moving an element (``append``, ``insert``, ``addnext``, ``addprevious``,
  ``replace``, slice assignment) carries its tail along; removing one
  (``remove``, ``del el[i]``, ``clear``) keeps the tail on the removed element,
  so the text leaves the tree with it.
* The iterators (``iter``, ``iterdescendants``, ``iterchildren``,
  ``itersiblings``, ``iterancestors``, ``for child in el``) compute the NEXT
  matching node at the moment they hand out the current one, as lxml's
  ``_ElementMatchIterator`` / ``ElementDepthFirstIterator`` do.  Loops that
  delete or rename the current node while iterating depend on this: a node
  renamed after it was prefetched is still returned, and when the prefetched
  node sits in a subtree that is then cut off, the walk continues inside the
  detached subtree and stops there.
* A removed element stays in its old document (lxml keeps it there), so its
  ``getroottree().getroot()`` is still the old root; ``copy.copy`` /
  ``copy.deepcopy`` copy the subtree *and its tail* into a new document.
* Only the top-level node (``_parent is None``) uses ``_doc``; ``_doc`` of an
  attached node is stale and never read.

Known differences from lxml (deliberate or not yet done):

* ``text``/``tail``/attribute values are plain slots: lxml's ValueError on
  control characters (``check_xml_text``) is not raised on assignment.
* ``addnext``/``addprevious`` on an unlinked element do nothing (lxml builds a
  parentless sibling chain).
* ``el[i] = ancestor`` and slice assignment of an ancestor raise ValueError
  (lxml creates a cycle and hangs or corrupts memory).
* ``text_content``/``drop_tree``/``drop_tag`` exist on every element (lxml:
  only on lxml.html elements).
* A valueless attribute (``<div hidden>``) must be stored as ``NO_VALUE`` for
  the HTML serialiser to write it without ``=""``.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from .xmlchars import check_xml_text  # noqa: F401 - lxml's check, re-exported

__all__ = [
    "Element",
    "Document",
    "DocInfo",
    "SubElement",
    "strip_tags",
    "strip_elements",
    "iselement",
    "check_xml_text",
    "NO_VALUE",
    "text_nodes",
]


class _Valueless(str):
    """The value of an attribute written without one in the source
    (``<div hidden>``).  It equals ``''`` everywhere; only lxml's HTML
    serialiser tells the two apart (libxml2 keeps no value node for it and
    writes ``hidden``, while ``title=""`` stays ``title=""``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_VALUE"


#: use as the attribute value for a valueless attribute (see _Valueless)
NO_VALUE = _Valueless()


class DocInfo:
    """The doctype as libxml2 keeps it: ``root_name`` is the name written in
    the doctype (case kept; lxml's ``docinfo.root_name`` would answer the root
    element's name), ``public_id`` and ``system_url`` the identifiers."""

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

    def has_doctype(self) -> bool:
        return self.root_name is not None or self.public_id is not None or self.system_url is not None

    @property
    def doctype(self) -> str:
        """The doctype declaration as lxml's ``DocInfo.doctype`` renders it."""
        root_name, public_id, system_url = self.root_name, self.public_id, self.system_url
        quoted = ""
        if system_url:
            # lxml single-quotes a system URL that contains a double quote
            quoted = f"'{system_url}'" if '"' in system_url else f'"{system_url}"'
        if public_id:
            if system_url:
                return f'<!DOCTYPE {root_name} PUBLIC "{public_id}" {quoted}>'
            return f'<!DOCTYPE {root_name} PUBLIC "{public_id}">'
        if system_url:
            return f"<!DOCTYPE {root_name} SYSTEM {quoted}>"
        if self.has_doctype():
            return f"<!DOCTYPE {root_name}>"
        return ""


class Document:
    """A parsed document: its top-level nodes, the first element is the root.

    Plays the part of lxml's ``_ElementTree`` (``getroot()``, ``docinfo``,
    ``iter``/``find``/``findall``/``iterfind`` on the root).
    """

    __slots__ = ("children", "docinfo", "is_html")

    def __init__(self) -> None:
        self.children: List["Element"] = []
        self.docinfo: DocInfo = DocInfo()
        # libxml2's document type: HTML (parsed, lxml.html) or XML (a fresh
        # etree.Element); only the HTML serialiser's escaping looks at it
        self.is_html: bool = True

    def append_root(self, el: "Element") -> None:
        """Attach ``el`` as a top-level node of this document."""
        _unlink(el)
        el._parent = None
        el._doc = self
        self.children.append(el)

    def getroot(self) -> Optional["Element"]:
        """The first element child of the document (lxml's ``getroot()``)."""
        return self.children[0] if self.children else None

    # lxml's _ElementTree delegates these to the root element
    def iter(self, tag: Any = None, *tags: Any) -> Iterator["Element"]:
        root = self.getroot()
        return iter(()) if root is None else root.iter(tag, *tags)

    def find(self, path: str) -> Optional["Element"]:
        root = self.getroot()
        if root is None:
            return None
        return root.find("." + path if path[:1] == "/" else path)

    def findall(self, path: str) -> List["Element"]:
        root = self.getroot()
        if root is None:
            return []
        return root.findall("." + path if path[:1] == "/" else path)

    def iterfind(self, path: str) -> Iterator["Element"]:
        root = self.getroot()
        if root is None:
            return iter(())
        return root.iterfind("." + path if path[:1] == "/" else path)

    def getroottree(self) -> "Document":
        return self


# ---------------------------------------------------------------------------
# helpers on the sibling structure

def _concat(a: Optional[str], b: Optional[str]) -> Optional[str]:
    """Join two runs of text nodes: None means "no text node" (lxml: None + '' = '')."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _index_in(seq: List["Element"], node: "Element") -> int:
    """Position of ``node`` (by identity) in ``seq``, or -1.

    Each element remembers where it was last found (``_pos``); the hint and
    its neighbours are tried first so that walking a wide parent stays linear
    even while its children are being removed one by one."""
    i = node._pos
    n = len(seq)
    if i < n and seq[i] is node:
        return i
    if 0 < i <= n and seq[i - 1] is node:
        node._pos = i - 1
        return i - 1
    if i + 1 < n and seq[i + 1] is node:
        node._pos = i + 1
        return i + 1
    try:
        # Element has no __eq__: list.index compares by identity
        i = seq.index(node)
    except ValueError:
        return -1
    node._pos = i
    return i


def _sibling_list(node: "Element") -> Optional[List["Element"]]:
    """The list holding ``node``: its parent's children, or its document's
    top-level nodes; None for an unlinked node."""
    p = node._parent
    if p is not None:
        return p._children
    d = node._doc
    if d is not None:
        for x in d.children:
            if x is node:
                return d.children
    return None


def _is_top_level(node: "Element") -> bool:
    """True for a document's top-level node (lxml: parent is the document).
    A fresh ``Element()`` is the root of its own (not yet built) document."""
    if node._parent is not None:
        return False
    d = node._doc
    if d is None:
        return True
    return any(x is node for x in d.children)


def _next_element(node: "Element") -> Optional["Element"]:
    # lxml: _nextElement
    sib = _sibling_list(node)
    if sib is None:
        return None
    i = _index_in(sib, node) + 1
    if i < len(sib):
        nxt = sib[i]
        nxt._pos = i
        return nxt
    return None


def _previous_element(node: "Element") -> Optional["Element"]:
    # lxml: _previousElement
    sib = _sibling_list(node)
    if sib is None:
        return None
    i = _index_in(sib, node) - 1
    if i >= 0:
        prev = sib[i]
        prev._pos = i
        return prev
    return None


def _document_of(node: "Element") -> Document:
    """The document ``node`` belongs to, created for a fresh detached tree."""
    top = node
    while top._parent is not None:
        top = top._parent
    d = top._doc
    if d is None:
        # a fresh Element() is the root of its own XML document (etree.Element)
        d = Document()
        d.is_html = False
        d.children.append(top)
        top._doc = d
    return d


def _unlink(node: "Element") -> None:
    """Take ``node`` out of its parent (or document top level), tail included."""
    p = node._parent
    if p is not None:
        ch = p._children
        del ch[_index_in(ch, node)]
        node._parent = None
        # lxml keeps an unlinked node in its document
        node._doc = _document_of(p)
    else:
        d = node._doc
        if d is not None:
            i = _index_in(d.children, node)
            if i >= 0:
                del d.children[i]


def _is_ancestor_or_self(candidate: "Element", node: "Element") -> bool:
    # lxml: _isAncestorOrSame(c_ancestor, c_node)
    if candidate is node:
        return True
    if not candidate._children:
        # a leaf is nobody's ancestor (keeps the parser's appends O(1))
        return False
    while node is not None:
        if node is candidate:
            return True
        node = node._parent
    return False


#: _tag_set's results for plain string arguments (the stages pass a few literal tag lists)
_TAG_SETS: Dict[Tuple[Any, Tuple[Any, ...]], Optional[frozenset]] = {}


def _tag_set(tag: Any, tags: Tuple[Any, ...]) -> Optional[frozenset]:
    """lxml's ``_MultiTagMatcher``: None matches every element, else a set of
    names ('*' anywhere turns it into "every element")."""
    key = (tag, tags)
    try:
        return _TAG_SETS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable argument (a list of names)
        return _make_tag_set(tag, tags)
    result = _make_tag_set(tag, tags)
    if len(_TAG_SETS) < 512 and (tag is None or type(tag) is str) and all(type(t) is str for t in tags):
        _TAG_SETS[key] = result
    return result


def _make_tag_set(tag: Any, tags: Tuple[Any, ...]) -> Optional[frozenset]:
    if tag is not None:
        tags = tags + (tag,)
    if not tags:
        return None
    names: set = set()
    star = [False]

    def store(t: Any) -> None:
        if isinstance(t, str):
            if t in ("*", "{*}*"):
                star[0] = True
            elif t.startswith("{*}"):
                names.add(t[3:])
            elif t.startswith("{}"):
                names.add(t[2:])
            else:
                names.add(t)
        elif isinstance(t, bytes):
            store(t.decode("utf-8"))
        elif t is None:
            return
        elif callable(t):
            # etree.Element matches every element; Comment/PI/Entity nothing here
            if getattr(t, "__name__", "") == "Element":
                star[0] = True
        else:
            for item in t:
                store(item)

    for t in tags:
        store(t)
    if star[0]:
        return None
    return frozenset(names)


def _walk(first: Optional["Element"], step: Callable[["Element"], Optional["Element"]],
          names: Optional[frozenset]) -> Iterator["Element"]:
    """lxml's ``_ElementMatchIterator``: the next match is fetched before the
    current node is handed out."""
    node = first
    while node is not None:
        nxt = step(node)
        if names is not None:
            while nxt is not None and nxt.tag not in names:
                nxt = step(nxt)
        yield node
        node = nxt


def _traverse_next(node: "Element", top: "Element") -> Optional["Element"]:
    """One step of lxml's BEGIN_FOR_EACH_ELEMENT_FROM walk bounded by ``top``:
    first child, else next sibling, else the next sibling of the nearest
    ancestor below ``top``.  A node moved out of ``top``'s subtree walks on
    until it climbs to the document."""
    ch = node._children
    if ch:
        first = ch[0]
        first._pos = 0
        return first
    if node is top:
        return None
    while True:
        p = node._parent
        if p is None:
            sib = _sibling_list(node)
            if sib is not None:
                i = _index_in(sib, node) + 1
                if i < len(sib):
                    nxt = sib[i]
                    nxt._pos = i
                    return nxt
            return None
        sib = p._children
        i = _index_in(sib, node) + 1
        if i < len(sib):
            nxt = sib[i]
            nxt._pos = i
            return nxt
        if p is top:
            return None
        node = p


def _depth_first(top: "Element", names: Optional[frozenset], inclusive: bool) -> Iterator["Element"]:
    """lxml's ``ElementDepthFirstIterator`` (the first node is found when the
    iterator is created, each next one when the previous is handed out)."""
    if names is not None and not names:
        return iter(())
    first: Optional[Element] = top
    if not inclusive or (names is not None and top.tag not in names):
        first = _traverse_next(top, top)
        if names is not None:
            while first is not None and first.tag not in names:
                first = _traverse_next(first, top)
    return _depth_first_from(first, top, names)


def _depth_first_from(node: Optional["Element"], top: "Element",
                      names: Optional[frozenset]) -> Iterator["Element"]:
    while node is not None:
        nxt = _traverse_next(node, top)
        if names is not None:
            while nxt is not None and nxt.tag not in names:
                nxt = _traverse_next(nxt, top)
        yield node
        node = nxt


class Element:
    """An element node with lxml's text/tail semantics."""

    __slots__ = ("tag", "attrib", "text", "tail", "_children", "_parent", "_doc", "_pos", "__weakref__")

    def __init__(
        self,
        tag: str,
        attrib: Union[None, Dict[str, str], Iterable[Tuple[str, str]]] = None,
        nsmap: Any = None,
        **extra: str,
    ) -> None:
        self.tag: str = tag
        self.attrib: Dict[str, str] = dict(attrib) if attrib else {}
        if extra:
            self.attrib.update(extra)
        self.text: Optional[str] = None
        self.tail: Optional[str] = None
        self._children: List[Element] = []
        self._parent: Optional[Element] = None
        self._doc: Optional[Document] = None
        self._pos: int = 0  # hint: last known index among its siblings

    # -- sequence protocol -----------------------------------------------
    def __len__(self) -> int:
        return len(self._children)

    def __iter__(self) -> Iterator["Element"]:
        # lxml: ElementChildIterator (lookahead)
        ch = self._children
        return _walk(ch[0] if ch else None, _next_element, None)

    def __reversed__(self) -> Iterator["Element"]:
        ch = self._children
        return _walk(ch[-1] if ch else None, _previous_element, None)

    def __contains__(self, element: Any) -> bool:
        return isinstance(element, Element) and element._parent is self

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        # an index or a slice (a new list), as lxml
        return self._children[index]

    def __setitem__(self, index, value) -> None:  # type: ignore[no-untyped-def]
        if value is None:
            raise ValueError("cannot assign None")
        if isinstance(index, slice):
            self._set_slice(index, value)
            return
        ch = self._children
        old = ch[index]  # IndexError as lxml
        if value is old:
            old.tail = None
            return
        if _is_ancestor_or_self(value, self):
            raise ValueError("cannot append parent to itself")
        # lxml drops the old element's tail text, the new one keeps its own
        old.tail = None
        _unlink(value)
        i = _index_in(ch, old)
        ch[i] = value
        value._parent = self
        old._parent = None
        old._doc = _document_of(self)

    def _set_slice(self, index: slice, value: Iterable["Element"]) -> None:
        # lxml: _replaceSlice (step 1 only is used by lxml.html.drop_tag)
        elements = list(value)
        ch = self._children
        start, stop, step = index.indices(len(ch))
        if step != 1:
            targets = ch[index]
            if len(targets) != len(elements):
                raise ValueError(
                    f"attempt to assign sequence of size {len(elements)} to extended slice of size {len(targets)}"
                )
            for old, new in zip(targets, elements):
                pos = _index_in(ch, old)
                self.remove(old)
                self.insert(pos, new)
            return
        if stop < start:
            stop = start
        removed = ch[start:stop]
        neighbour = ch[start - 1] if start > 0 and removed else None
        if not removed:
            anchor = ch[start] if start < len(ch) else None
        for old in removed:
            self.remove(old)
        if removed:
            if neighbour is not None:
                i = _index_in(ch, neighbour) + 1
                anchor = ch[i] if i < len(ch) else None
            else:
                anchor = ch[0] if ch else None
        for el in elements:
            if anchor is None:
                self.append(el)
            elif el is anchor:
                continue  # libxml2 refuses to insert a node before itself
            else:
                if _is_ancestor_or_self(el, self):
                    raise ValueError("cannot append parent to itself")
                _unlink(el)
                ch.insert(_index_in(ch, anchor), el)
                el._parent = self

    def __delitem__(self, index) -> None:  # type: ignore[no-untyped-def]
        ch = self._children
        if isinstance(index, slice):
            for old in ch[index]:
                self.remove(old)
            return
        try:
            old = ch[index]
        except IndexError:
            raise IndexError(f"index out of range: {index}") from None
        self.remove(old)

    def __bool__(self) -> bool:
        # lxml warns and answers len() > 0; trafilatura only tests `is None`.
        return len(self._children) > 0

    def __repr__(self) -> str:
        return f"<Element {self.tag} at {id(self):#x}>"

    def __copy__(self) -> "Element":
        # lxml: copy and deepcopy both copy the subtree and its tail into a new document
        new = _copy_tree(self)
        new.tail = self.tail
        doc = Document()
        doc.is_html = _document_of(self).is_html
        doc.children.append(new)
        new._doc = doc
        return new

    def __deepcopy__(self, memo: Any) -> "Element":
        return self.__copy__()

    # -- navigation ------------------------------------------------------
    def getparent(self) -> Optional["Element"]:
        return self._parent

    def getnext(self) -> Optional["Element"]:
        return _next_element(self)

    def getprevious(self) -> Optional["Element"]:
        return _previous_element(self)

    def getchildren(self) -> List["Element"]:
        return list(self._children)

    def getroottree(self) -> Document:
        """The document this element belongs to (lxml: an unlinked element
        stays in the document it was removed from)."""
        return _document_of(self)

    def index(self, child: "Element", start: Optional[int] = None, stop: Optional[int] = None) -> int:
        if child._parent is not self:
            raise ValueError("Element is not a child of this node.")
        ch = self._children
        i = _index_in(ch, child)
        n = len(ch)
        lo = 0 if start is None else (start + n if start < 0 else start)
        hi = n if stop is None else (stop + n if stop < 0 else stop)
        if lo <= i < hi:
            return i
        raise ValueError("Element is not in given range.")

    # -- mutation --------------------------------------------------------
    def append(self, child: "Element") -> None:
        """Append ``child`` (moved with its tail, as lxml moves it)."""
        if _is_ancestor_or_self(child, self):
            raise ValueError("cannot append parent to itself")
        p = child._parent
        if p is not None:
            ch = p._children
            if ch and ch[-1] is child:
                ch.pop()
            else:
                del ch[_index_in(ch, child)]
        else:
            d = child._doc
            if d is not None and d.children:
                i = _index_in(d.children, child)
                if i >= 0:
                    del d.children[i]
        child._parent = self
        child._pos = len(self._children)
        self._children.append(child)

    def extend(self, elements: Iterable["Element"]) -> None:
        for el in elements:
            if el is None:
                raise TypeError("Node must not be None")
            self.append(el)

    def insert(self, index: int, element: "Element") -> None:
        """Insert before the child at ``index`` (lxml: an index out of range,
        negative or not, appends)."""
        ch = self._children
        n = len(ch)
        pos = index + n if index < 0 else index
        if pos < 0 or pos >= n:
            self.append(element)
            return
        ref = ch[pos]
        if _is_ancestor_or_self(element, self):
            raise ValueError("cannot append parent to itself")
        if ref is element:
            return
        _unlink(element)
        ch.insert(_index_in(ch, ref), element)
        element._parent = self

    def remove(self, child: "Element") -> None:
        """Detach ``child``; its tail goes with it (lxml semantics)."""
        if child._parent is not self:
            raise ValueError("Element is not a child of this node.")
        ch = self._children
        del ch[_index_in(ch, child)]
        child._parent = None
        child._doc = _document_of(self)

    def replace(self, old_element: "Element", new_element: "Element") -> None:
        """Put ``new_element`` (with its tail) where ``old_element`` was; the
        old one leaves with its own tail."""
        if old_element._parent is not self:
            raise ValueError("Element is not a child of this node.")
        if _is_ancestor_or_self(new_element, self):
            raise ValueError("cannot append parent to itself")
        if new_element is old_element:
            return
        _unlink(new_element)
        ch = self._children
        ch[_index_in(ch, old_element)] = new_element
        new_element._parent = self
        old_element._parent = None
        old_element._doc = _document_of(self)

    def addnext(self, element: "Element") -> None:
        """Insert ``element`` as the next sibling, after this element's tail."""
        self._add_sibling(element, 1)

    def addprevious(self, element: "Element") -> None:
        """Insert ``element`` as the previous sibling (after the previous
        element's tail)."""
        self._add_sibling(element, 0)

    def _add_sibling(self, element: "Element", offset: int) -> None:
        if _is_top_level(self):
            raise TypeError("Only processing instructions and comments can be siblings of the root element")
        if _is_ancestor_or_self(element, self):
            if element is self:
                return
            raise ValueError("cannot add ancestor as sibling, please break cycle first")
        _unlink(element)
        sib = _sibling_list(self)
        if sib is None:
            # an unlinked element has no sibling list to join (lxml builds a
            # parentless sibling chain); keep the element detached
            return
        sib.insert(_index_in(sib, self) + offset, element)
        element._parent = self._parent

    def clear(self, keep_tail: bool = False) -> None:
        """Remove text, attributes and children (and the tail unless
        ``keep_tail``); removed children keep their tails."""
        self.text = None
        if not keep_tail:
            self.tail = None
        self.attrib.clear()
        ch = self._children
        if ch:
            doc = _document_of(self)
            for c in ch:
                c._parent = None
                c._doc = doc
            ch.clear()

    def drop_tree(self) -> None:
        """lxml.html: remove the element and its content; the tail is joined
        to the previous sibling's tail or the parent's text."""
        parent = self._parent
        assert parent is not None
        if self.tail:
            previous = _previous_element(self)
            if previous is None:
                parent.text = (parent.text or "") + self.tail
            else:
                previous.tail = (previous.tail or "") + self.tail
        parent.remove(self)

    def drop_tag(self) -> None:
        """lxml.html: remove the tag, keeping text, children and tail in place."""
        parent = self._parent
        assert parent is not None
        previous = _previous_element(self)
        if self.text:
            if previous is None:
                parent.text = (parent.text or "") + self.text
            else:
                previous.tail = (previous.tail or "") + self.text
        if self.tail:
            if self._children:
                last = self._children[-1]
                last.tail = (last.tail or "") + self.tail
            elif previous is None:
                parent.text = (parent.text or "") + self.tail
            else:
                previous.tail = (previous.tail or "") + self.tail
        index = parent.index(self)
        parent[index:index + 1] = self[:]

    # -- attributes ------------------------------------------------------
    def get(self, key: str, default: Any = None) -> Any:
        return self.attrib.get(key, default)

    def set(self, key: str, value: Any) -> None:
        """Set an attribute (lxml: None makes a valueless HTML attribute,
        other non-strings raise TypeError; bytes must be ASCII)."""
        if value is None:
            value = NO_VALUE
        elif not isinstance(value, str):
            if isinstance(value, bytes):
                value = value.decode("ascii")
            else:
                raise TypeError(f"Argument must be bytes or unicode, got '{type(value).__name__}'")
        self.attrib[key] = value

    def keys(self) -> List[str]:
        return list(self.attrib.keys())

    def values(self) -> List[str]:
        return list(self.attrib.values())

    def items(self) -> List[Tuple[str, str]]:
        return list(self.attrib.items())

    # -- factories -------------------------------------------------------
    def makeelement(self, _tag: str, attrib: Any = None, nsmap: Any = None, **extra: str) -> "Element":
        """A new unlinked element in this element's document (lxml)."""
        el = Element(_tag, attrib, **extra)
        el._doc = _document_of(self)
        return el

    # -- iteration -------------------------------------------------------
    def iter(self, tag: Any = None, *tags: Any) -> Iterator["Element"]:
        """Depth-first pre-order over this element and its descendants."""
        return _depth_first(self, _tag_set(tag, tags), True)

    def iterdescendants(self, tag: Any = None, *tags: Any) -> Iterator["Element"]:
        return _depth_first(self, _tag_set(tag, tags), False)

    def iterchildren(self, tag: Any = None, *tags: Any, reversed: bool = False) -> Iterator["Element"]:
        names = _tag_set(tag, tags)
        if names is not None and not names:
            return iter(())
        ch = self._children
        if reversed:
            step = _previous_element
            seq = ch[::-1]
        else:
            step = _next_element
            seq = ch
        first = None
        for c in seq:
            if names is None or c.tag in names:
                first = c
                break
        return _walk(first, step, names)

    def itersiblings(self, tag: Any = None, *tags: Any, preceding: bool = False) -> Iterator["Element"]:
        names = _tag_set(tag, tags)
        if names is not None and not names:
            return iter(())
        step = _previous_element if preceding else _next_element
        first = step(self)
        if names is not None:
            while first is not None and first.tag not in names:
                first = step(first)
        return _walk(first, step, names)

    def iterancestors(self, tag: Any = None, *tags: Any) -> Iterator["Element"]:
        names = _tag_set(tag, tags)
        if names is not None and not names:
            return iter(())
        first = self._parent
        if names is not None:
            while first is not None and first.tag not in names:
                first = first._parent
        return _walk(first, _parent_of, names)

    def itertext(self, tag: Any = None, *tags: Any, with_tail: bool = True) -> Iterator[str]:
        """Text and (unless ``with_tail=False``) descendants' tails in
        document order, not this element's own tail (lxml)."""
        names = _tag_set(tag, tags)
        return iter(_collect_text(self, names, with_tail))

    def text_content(self) -> str:
        """lxml.html ``text_content()``: XPath ``string()`` of the element."""
        return "".join(_collect_text(self, None, True))

    # -- ElementPath -----------------------------------------------------
    def iterfind(self, path: str, namespaces: Any = None) -> Iterator["Element"]:
        return _path_iterfind(self, path)

    def find(self, path: str, namespaces: Any = None) -> Optional["Element"]:
        return next(_path_iterfind(self, path), None)

    def findall(self, path: str, namespaces: Any = None) -> List["Element"]:
        return list(_path_iterfind(self, path))


def _parent_of(node: Element) -> Optional[Element]:
    return node._parent


def _collect_text(top: Element, names: Optional[frozenset], with_tail: bool) -> List[str]:
    """What lxml's ElementTextIterator yields (iterwalk start/end events)."""
    out: List[str] = []
    if names is not None and not names:
        return out
    if names is None or top.tag in names:
        if top.text is not None:
            out.append(top.text)
    # explicit stack of (element, child-index) to stay out of recursion limits
    stack: List[Tuple[Element, int]] = [(top, 0)]
    while stack:
        node, i = stack[-1]
        ch = node._children
        if i < len(ch):
            stack[-1] = (node, i + 1)
            child = ch[i]
            if (names is None or child.tag in names) and child.text is not None:
                out.append(child.text)
            stack.append((child, 0))
        else:
            stack.pop()
            if with_tail and node is not top and (names is None or node.tag in names) and node.tail is not None:
                out.append(node.tail)
    return out


def text_nodes(el: Element) -> List[str]:
    """The element's own text nodes in order (XPath ``text()`` on ``el``):
    its text, then each child's tail, skipping absent ones."""
    out = [] if el.text is None else [el.text]
    for c in el._children:
        if c.tail is not None:
            out.append(c.tail)
    return out


# ---------------------------------------------------------------------------
# Internal operations for trafila's own modules (the parser, the serialiser,
# the 2.3.1 port's tree helpers): the few places where they need more than
# lxml's API, kept here so that nothing outside this module touches the
# private slots. None of them exists in lxml.

_new_element = Element.__new__


def append_parsed_child(parent: Optional[Element], tag: str, attrib: Dict[str, str]) -> Element:
    """A new element appended to ``parent``, or unlinked when ``parent`` is None
    (the parser's element creation: libxml2's xmlSAX2StartHtmlElement).

    What ``Element(tag)`` then ``parent.append(el)`` do, without the checks a
    parser never needs (a brand-new element is nobody's ancestor and has no
    parent to be moved from). ``attrib`` becomes the element's own dict (not
    copied). html/tokenizer.py calls it on its fast path, as TreeBuilder does."""
    el = _new_element(Element)
    el.tag = tag
    el.attrib = attrib
    el.text = None
    el.tail = None
    el._children = []
    el._doc = None
    if parent is None:
        el._parent = None
        el._pos = 0
    else:
        el._parent = parent
        children = parent._children
        el._pos = len(children)
        children.append(el)
    return el


def children_list(el: Element) -> List[Element]:
    """``el``'s own list of children -- not a copy, so for reading only, and
    only while the tree does not change (``el[:]`` copies it, ``iter(el)``
    walks with lxml's lookahead). Changing the list would bypass the parent
    links; use the element methods for that."""
    return el._children


def last_child(el: Element) -> Optional[Element]:
    """``el[-1]`` or None when ``el`` has no children: the element whose tail
    a text appended to ``el``'s content extends (else ``el.text``)."""
    ch = el._children
    return ch[-1] if ch else None


def is_top_level(el: Element) -> bool:
    """True for a top-level node of its document, whose lxml parent is the
    document itself (a fresh ``Element()`` is the root of its own document)."""
    return _is_top_level(el)


def descendants_list(el: Element) -> List[Element]:
    """``el``'s descendants in document order, as a new list (what an XPath
    ``.//*`` or ``el.iterdescendants()`` would collect before any change).

    A plain pre-order walk of the child lists: no lxml lookahead, so the tree
    must not change while it runs (it may afterwards)."""
    out: List[Element] = []
    stack = el._children[::-1]
    pop, push, append = stack.pop, stack.extend, out.append
    while stack:
        node = pop()
        append(node)
        ch = node._children
        if ch:
            push(ch[::-1])
    return out


def iter_descendants_readonly(el: Element, tag: Optional[str] = None) -> Iterator[Element]:
    """``el``'s descendants (only those tagged ``tag`` unless None) in document
    order, one at a time for early exits. No lxml lookahead: the tree must not
    change during the walk (``iterdescendants`` is the walk for that)."""
    stack = el._children[::-1]
    while stack:
        node = stack.pop()
        if tag is None or node.tag == tag:
            yield node
        ch = node._children
        if ch:
            stack.extend(ch[::-1])


def _copy_tree(src: Element) -> Element:
    """Deep copy of ``src`` (without its tail, in no document)."""
    new = Element.__new__(Element)
    new.tag = src.tag
    new.attrib = dict(src.attrib)
    new.text = src.text
    new.tail = None
    new._children = []
    new._parent = None
    new._doc = None
    new._pos = 0
    stack = [(src, new)]
    while stack:
        s, d = stack.pop()
        dch = d._children
        for c in s._children:
            n = Element.__new__(Element)
            n.tag = c.tag
            n.attrib = dict(c.attrib)
            n.text = c.text
            n.tail = c.tail
            n._children = []
            n._parent = d
            n._doc = None
            n._pos = len(dch)
            dch.append(n)
            if c._children:
                stack.append((c, n))
    return new


def iselement(obj: Any) -> bool:
    return isinstance(obj, Element)


def SubElement(_parent: Element, _tag: str, attrib: Any = None, nsmap: Any = None, **extra: str) -> Element:
    """lxml.etree.SubElement: a new element appended to ``_parent``."""
    el = Element(_tag, attrib, **extra)
    _parent.append(el)
    return el


def _root_of(tree_or_element: Union[Element, Document]) -> Optional[Element]:
    if isinstance(tree_or_element, Document):
        return tree_or_element.getroot()
    return tree_or_element


def strip_tags(tree_or_element: Union[Element, Document], *tag_names: Any) -> None:
    """lxml.etree.strip_tags: replace each matching descendant by its text,
    children and tail (spliced children are examined again); the element
    itself is never stripped."""
    top = _root_of(tree_or_element)
    if top is None or not tag_names:
        return
    names = _tag_set(None, tag_names)
    if names is not None and not names:
        return
    node: Optional[Element] = top
    while node is not None:
        ch = node._children
        i = 0
        while i < len(ch):
            child = ch[i]
            if names is not None and child.tag not in names:
                i += 1
                continue
            # splice: text goes to the previous sibling's tail (or our text),
            # the tail after the last spliced child
            grand = child._children
            if child.text is not None:
                if i == 0:
                    node.text = _concat(node.text, child.text)
                else:
                    prev = ch[i - 1]
                    prev.tail = _concat(prev.tail, child.text)
            if child.tail is not None:
                if grand:
                    last = grand[-1]
                    last.tail = _concat(last.tail, child.tail)
                elif i == 0:
                    node.text = _concat(node.text, child.tail)
                else:
                    prev = ch[i - 1]
                    prev.tail = _concat(prev.tail, child.tail)
            for g in grand:
                g._parent = node
            ch[i:i + 1] = grand
            child._children = []
            child.text = None
            child.tail = None
            child._parent = None
            child._doc = _document_of(node)
            # i now points at the first spliced child (or the next sibling)
        node = _traverse_next(node, top)


def strip_elements(tree_or_element: Union[Element, Document], *tag_names: Any, with_tail: bool = True) -> None:
    """lxml.etree.strip_elements: remove matching descendants with their
    content; their tails go too unless ``with_tail=False`` (then the tail is
    joined to the previous text)."""
    top = _root_of(tree_or_element)
    if top is None or not tag_names:
        return
    names = _tag_set(None, tag_names)
    if names is not None and not names:
        return
    doc: Optional[Document] = None
    node: Optional[Element] = top
    while node is not None:
        ch = node._children
        if ch and (names is None or any(c.tag in names for c in ch)):
            keep: List[Element] = []
            for c in ch:
                if names is None or c.tag in names:
                    if not with_tail and c.tail is not None:
                        if keep:
                            keep[-1].tail = _concat(keep[-1].tail, c.tail)
                        else:
                            node.text = _concat(node.text, c.tail)
                        c.tail = None
                    if doc is None:
                        doc = _document_of(top)
                    c._parent = None
                    c._doc = doc
                else:
                    keep.append(c)
            ch[:] = keep
        node = _traverse_next(node, top)


# ---------------------------------------------------------------------------
# ElementPath: the subset of lxml's _elementpath that trafilatura, its
# readability fork and jusText use (child/descendant steps, '*', '.', '..',
# and the predicates [@a], [@a='v'], [tag], [n], [last()], [.='t']).

_PATH_TOKEN = re.compile(
    r"""('[^']*'|"[^"]*"|::|//?|\.\.|\(\)|[/.*:\[\]\(\)@=])"""  # operators, quoted
    r"""|((?:\{[^}]+\})?[^/\[\]\(\)@=\s]+)"""  # names, numbers
    r"""|\s+"""
)

_path_cache: Dict[str, List[Callable[[Iterator[Element]], Iterator[Element]]]] = {}


def _path_tokens(path: str) -> Iterator[Tuple[str, str]]:
    for op, name in _PATH_TOKEN.findall(path):
        yield op, name


def _select_children(tag: str) -> Callable[[Iterator[Element]], Iterator[Element]]:
    def select(result: Iterator[Element]) -> Iterator[Element]:
        for el in result:
            yield from el.iterchildren(tag)
    return select


def _select_descendants(tag: str) -> Callable[[Iterator[Element]], Iterator[Element]]:
    def select(result: Iterator[Element]) -> Iterator[Element]:
        for el in result:
            yield from el.iterdescendants(tag)
    return select


def _select_parent(result: Iterator[Element]) -> Iterator[Element]:
    for el in result:
        if el._parent is not None:
            yield el._parent


def _select_self(result: Iterator[Element]) -> Iterator[Element]:
    return result


def _predicate(tokens: Iterator[Tuple[str, str]]) -> Callable[[Iterator[Element]], Iterator[Element]]:
    signature = ""
    parts: List[str] = []
    for op, name in tokens:
        if op == "]":
            break
        if op == "" and name == "":
            continue  # whitespace
        if op and op[0] in "'\"":
            op, name = "'", op[1:-1]
        signature += op or "-"
        parts.append(name)
    else:
        raise SyntaxError("invalid path")
    if signature == "@-":
        key = parts[1]

        def has_attr(result: Iterator[Element]) -> Iterator[Element]:
            for el in result:
                if el.get(key) is not None:
                    yield el
        return has_attr
    if signature == "@-='":
        key, value = parts[1], parts[-1]

        def attr_equals(result: Iterator[Element]) -> Iterator[Element]:
            for el in result:
                if el.get(key) == value:
                    yield el
        return attr_equals
    if signature == "-" and not re.match(r"-?\d+$", parts[0]):
        tag = parts[0]

        def has_child(result: Iterator[Element]) -> Iterator[Element]:
            for el in result:
                for _ in el.iterchildren(tag):
                    yield el
                    break
        return has_child
    if signature == ".='" or (signature == "-='" and not re.match(r"-?\d+$", parts[0])):
        tag, value = parts[0], parts[-1]

        def text_equals(result: Iterator[Element]) -> Iterator[Element]:
            for el in result:
                if tag:
                    for e in el.iterchildren(tag):
                        if "".join(e.itertext()) == value:
                            yield el
                            break
                elif "".join(el.itertext()) == value:
                    yield el
        return text_equals
    if signature in ("-", "-()", "-()-"):
        if signature == "-":
            index = int(parts[0]) - 1
            if index < 0:
                raise SyntaxError("path index >= 1 expected")
        else:
            if parts[0] != "last":
                raise SyntaxError("unsupported function")
            index = int(parts[2]) - 1 if signature == "-()-" else -1

        def position(result: Iterator[Element]) -> Iterator[Element]:
            for el in result:
                parent = el._parent
                if parent is None:
                    continue
                same = list(parent.iterchildren(el.tag))
                try:
                    if same[index] is el:
                        yield el
                except IndexError:
                    pass
        return position
    raise SyntaxError("invalid predicate")


def _compile_path(path: str) -> List[Callable[[Iterator[Element]], Iterator[Element]]]:
    steps = _path_cache.get(path)
    if steps is not None:
        return steps
    full = path + "*" if path[-1:] == "/" else path
    if full[:1] == "/":
        raise SyntaxError("cannot use absolute path on element")
    tokens = _path_tokens(full)
    steps = []
    token = next(tokens, None)
    if token is None:
        raise SyntaxError("empty path expression")
    while True:
        op, name = token
        if op == "":
            steps.append(_select_children(name))
        elif op == "*":
            steps.append(_select_children("*"))
        elif op == ".":
            steps.append(_select_self)
        elif op == "..":
            steps.append(_select_parent)
        elif op == "//":
            nxt = next(tokens, None)
            if nxt is None:
                raise SyntaxError("invalid path")
            if nxt[0] == "*":
                steps.append(_select_descendants("*"))
            elif not nxt[0]:
                steps.append(_select_descendants(nxt[1]))
            else:
                raise SyntaxError("invalid descendant")
        elif op == "[":
            steps.append(_predicate(tokens))
        else:
            raise SyntaxError("invalid path")
        token = next(tokens, None)
        if token is None:
            break
        if token[0] == "/":
            token = next(tokens, None)
            if token is None:
                break
    if len(_path_cache) > 200:
        _path_cache.clear()
    _path_cache[path] = steps
    return steps


def _path_iterfind(el: Element, path: str) -> Iterator[Element]:
    result: Iterator[Element] = iter((el,))
    for select in _compile_path(path):
        result = select(result)
    return result
