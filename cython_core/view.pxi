# The Python view of the C document: CElement proxies with trafila.dom's API.
#
# A CElement is (document, node index). It is made lazily and cached in the
# document's ``proxies`` slot for its node, so while a proxy is alive the same
# node always gives the same object (lxml's identity rule); it holds a
# reference to its document, so the document (and its arrays) outlive it. A
# node moved into another document is copied there (lxml moves it between
# documents too) and every live proxy of the moved subtree is repointed.
#
# The semantics are the reference's (trafila/dom.py); each method names the
# reference code it follows. The tree is read and changed only through the C
# operations of dom.pxi.

from trafila import dom as _refdom

_tag_set = _refdom._tag_set
_path_iterfind = _refdom._path_iterfind
_Valueless = type(NO_VALUE)

cdef class CElement


cdef _raise_doc_error(CDocument doc):
    cdef int err = doc.d.error
    doc.d.error = 0
    if err == ERR_TOO_LARGE:
        raise MemoryError("document too large for the compiled core (arenas are limited to 2 GiB)")
    raise MemoryError("out of memory")


cdef int _reserve_proxies(CDocument doc, int32_t n) except -1:
    """Room for the proxy slots of nodes 0 .. n-1."""
    cdef int32_t cap, k
    cdef PyObject** p
    if n <= doc.cap_proxies:
        return 0
    cap = doc.d.cap_nodes if doc.d.cap_nodes > n else n
    if cap < 16:
        cap = 16
    p = NULL if alloc_fails() else <PyObject**>realloc(doc.proxies, <size_t>cap * sizeof(PyObject*))
    if p == NULL:
        raise MemoryError("out of memory")
    for k in range(doc.cap_proxies, cap):
        p[k] = NULL
    doc.proxies = p
    doc.cap_proxies = cap
    return 0


cdef object _proxy(CDocument doc, int32_t i):
    """The live proxy of node ``i`` (made and cached if there is none); None for -1."""
    cdef CElement e
    if i < 0:
        return None
    if i >= doc.d.n_nodes:
        raise IndexError(i)
    if i >= doc.cap_proxies:
        _reserve_proxies(doc, doc.d.n_nodes)
    if doc.proxies[i] != NULL:
        return <object>doc.proxies[i]
    e = CElement.__new__(CElement)
    e.doc = doc
    e.idx = i
    doc.proxies[i] = <PyObject*>e
    return e


cdef bytes _utf8(object s, str what):
    if isinstance(s, bytes):
        s = (<bytes>s).decode("utf-8")
    if not isinstance(s, str):
        raise TypeError(f"{what} must be a string, not {type(s).__name__}")
    # strict: a lone surrogate cannot be stored (the reference's plain slots would keep it)
    return (<str>s).encode("utf-8")


cdef int32_t _intern(CDocument doc, object name) except -2:
    cdef bytes b = _utf8(name, "tag/attribute name")
    cdef int32_t nid = intern_name(&doc.d, <const uchar*><const char*>b, len(b))
    if nid < 0:
        _raise_doc_error(doc)
    return nid


cdef int32_t _lookup(CDocument doc, object name):
    """The id of ``name`` in ``doc``, -1 when the document has never seen it (or it is no string)."""
    cdef bytes b
    if isinstance(name, str):
        b = (<str>name).encode("utf-8", "surrogatepass")
    elif isinstance(name, bytes):
        b = name
    else:
        return -1
    return dom_lookup_name(&doc.d, <const uchar*><const char*>b, len(b))


cdef inline object _slot_str(CDocument doc, int32_t i, bint tail):
    cdef Node* nd = &doc.d.nodes[i]
    if tail:
        return slice_str(&doc.d.text, nd.tail_off, nd.tail_len)
    return slice_str(&doc.d.text, nd.text_off, nd.text_len)


cdef _set_slot_str(CDocument doc, int32_t i, bint tail, object value):
    cdef bytes b
    if value is None:
        dom_set_slot(&doc.d, i, tail, NULL, 0, True)
        return
    b = _utf8(value, "text")
    if not dom_set_slot(&doc.d, i, tail, <const uchar*><const char*>b, len(b), False):
        _raise_doc_error(doc)


cdef inline bint _matches(CDocument doc, int32_t i, object names):
    return names is None or doc.name_str(doc.d.nodes[i].tag) in names


cdef object _attr_value(CDocument doc, Attr* a):
    if a.kind == AV_VALUE:
        return slice_str(&doc.d.vals, a.val_off, a.val_len)
    if a.kind == AV_OWN_NAME:
        return doc.name_str(a.name)
    return NO_VALUE


cdef _attr_store(CDocument doc, int32_t i, object key, object value):
    """Store ``value`` (a str; NO_VALUE makes a valueless attribute)."""
    cdef int32_t nid = _intern(doc, key)
    cdef bytes b
    cdef bint ok
    if isinstance(value, _Valueless):
        ok = dom_attr_set(&doc.d, i, nid, AV_NO_VALUE, NULL, 0)
    else:
        b = _utf8(value, "attribute value")
        ok = dom_attr_set(&doc.d, i, nid, AV_VALUE, <const uchar*><const char*>b, len(b))
    if not ok:
        _raise_doc_error(doc)


cdef object _set_value(object value):
    # Element.set: None makes a valueless attribute; bytes must be ASCII
    if value is None:
        return NO_VALUE
    if not isinstance(value, str):
        if isinstance(value, bytes):
            return value.decode("ascii")
        raise TypeError(f"Argument must be bytes or unicode, got '{type(value).__name__}'")
    return value


cdef int32_t _adopt(CDocument target, CElement el) except -2:
    """Move ``el``'s subtree (and tail) out of its document into ``target`` as a
    detached subtree; its live proxies follow. Returns the new index."""
    cdef CDocument src = el.doc
    cdef int32_t top = el.idx, start = target.d.n_nodes, s, k, new
    cdef CElement p
    with nogil:
        new = dom_copy_subtree(&src.d, top, &target.d, True)
    if new < 0:
        _raise_doc_error(target)
    _reserve_proxies(target, target.d.n_nodes)
    dom_unlink(&src.d, top)
    s = top
    k = 0
    while s >= 0:
        if s < src.cap_proxies and src.proxies[s] != NULL:
            p = <CElement>src.proxies[s]
            src.proxies[s] = NULL
            p.doc = target
            p.idx = start + k
            target.proxies[start + k] = <PyObject*>p
        k += 1
        s = dom_preorder_next(&src.d, s, top)
    return new


cdef bint _is_ancestor_or_self(CElement cand, CElement node):
    if cand.doc is not node.doc:
        return False
    return dom_is_ancestor_or_self(&cand.doc.d, cand.idx, node.idx)


cdef _move(CElement parent, CElement el, int32_t ref):
    """Put ``el`` (with its tail) into ``parent`` before child ``ref`` (-1: last);
    ``el`` is not an ancestor of ``parent`` and not ``ref``."""
    cdef CDocument doc = parent.doc
    if el.doc is not doc:
        _adopt(doc, el)
    dom_unlink(&doc.d, el.idx)
    dom_link_before(&doc.d, parent.idx, el.idx, ref)


cdef CElement _as_element(object x):
    if not isinstance(x, CElement):
        raise TypeError(f"Argument must be a core element (CElement), not {type(x).__name__}")
    return <CElement>x


cdef enum:
    W_NEXT = 0
    W_PREV = 1
    W_PARENT = 2
    W_DEPTH = 3


cdef inline int32_t _step(DocData* d, int32_t i, int how, int32_t top) noexcept nogil:
    if how == W_NEXT:
        return d.nodes[i].next
    if how == W_PREV:
        return d.nodes[i].prev
    if how == W_PARENT:
        return d.nodes[i].parent
    return dom_traverse_next(d, i, top)


@cython.final
cdef class _Walk:
    """lxml's _ElementMatchIterator / ElementDepthFirstIterator (trafila.dom._walk,
    _depth_first_from): the next match is found when the current node is handed out."""
    cdef object cur       # CElement or None
    cdef object top       # CElement (W_DEPTH) or None
    cdef int how
    cdef object names

    def __iter__(self):
        return self

    def __next__(self):
        cdef CElement node = self.cur
        cdef CDocument doc
        cdef int32_t i, top
        if node is None:
            raise StopIteration
        doc = node.doc
        top = -2
        if self.top is not None and (<CElement>self.top).doc is doc:
            top = (<CElement>self.top).idx
        i = _step(&doc.d, node.idx, self.how, top)
        while i >= 0 and not _matches(doc, i, self.names):
            i = _step(&doc.d, i, self.how, top)
        self.cur = _proxy(doc, i)
        return node


cdef _Walk _walk(object first, int how, object names, object top=None):
    cdef _Walk w = _Walk.__new__(_Walk)
    w.cur = first
    w.how = how
    w.names = names
    w.top = top
    return w


cdef _depth_first(CElement top, object names, bint inclusive):
    # trafila.dom._depth_first
    cdef CDocument doc = top.doc
    cdef int32_t first
    if names is not None and not names:
        return iter(())
    first = top.idx
    if not inclusive or not _matches(doc, first, names):
        first = dom_traverse_next(&doc.d, top.idx, top.idx)
        while first >= 0 and not _matches(doc, first, names):
            first = dom_traverse_next(&doc.d, first, top.idx)
    return _walk(_proxy(doc, first), W_DEPTH, names, top)


cdef list _collect_text(CElement el, object names, bint with_tail):
    # trafila.dom._collect_text
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t top = el.idx, s = top
    cdef list out = []
    if names is not None and not names:
        return out
    if _matches(doc, top, names) and d.nodes[top].text_off >= 0:
        out.append(_slot_str(doc, top, False))
    while True:
        if d.nodes[s].first >= 0:
            s = d.nodes[s].first
            if d.nodes[s].text_off >= 0 and _matches(doc, s, names):
                out.append(_slot_str(doc, s, False))
            continue
        while True:
            if s == top:
                return out
            if with_tail and d.nodes[s].tail_off >= 0 and _matches(doc, s, names):
                out.append(_slot_str(doc, s, True))
            if d.nodes[s].next >= 0:
                s = d.nodes[s].next
                if d.nodes[s].text_off >= 0 and _matches(doc, s, names):
                    out.append(_slot_str(doc, s, False))
                break
            s = d.nodes[s].parent


cdef CElement _new_element(CDocument doc, object tag, object attrib, dict extra, int32_t parent):
    """A new element in ``doc``: the last child of ``parent``, or detached (-1)."""
    cdef int32_t nid = _intern(doc, tag)
    cdef int32_t i
    cdef dict attrs
    cdef CElement e
    attrs = dict(attrib) if attrib else {}
    if extra:
        attrs.update(extra)
    i = dom_new_node(&doc.d, nid, parent)
    if i < 0:
        _raise_doc_error(doc)
    try:
        for k, v in attrs.items():
            _attr_store(doc, i, k, NO_VALUE if isinstance(v, _Valueless) else _set_value(v))
    except BaseException:
        # a half-made element does not stay in the tree
        dom_unlink(&doc.d, i)
        raise
    return _proxy(doc, i)


@cython.final
cdef class CAttrib:
    """A live dict-like view of one element's attributes, in document order
    (the reference's ``attrib`` is the element's own dict)."""
    cdef CElement el

    cdef int32_t _find(self, object key):
        cdef CDocument doc = self.el.doc
        cdef int32_t nid = _lookup(doc, key)
        if nid < 0:
            return -1
        return dom_attr_find(&doc.d, self.el.idx, nid)

    def __getitem__(self, key):
        cdef int32_t k = self._find(key)
        if k < 0:
            raise KeyError(key)
        return _attr_value(self.el.doc, &self.el.doc.d.attrs[k])

    def __setitem__(self, key, value):
        _attr_store(self.el.doc, self.el.idx, key, _set_value(value))

    def __delitem__(self, key):
        cdef int32_t k = self._find(key)
        if k < 0:
            raise KeyError(key)
        dom_attr_delete(&self.el.doc.d, self.el.idx, k)

    def __contains__(self, key):
        return self._find(key) >= 0

    def __len__(self):
        return self.el.doc.d.nodes[self.el.idx].attr_count

    def __iter__(self):
        return iter(self.keys())

    def __bool__(self):
        return self.el.doc.d.nodes[self.el.idx].attr_count > 0

    def get(self, key, default=None):
        cdef int32_t k = self._find(key)
        if k < 0:
            return default
        return _attr_value(self.el.doc, &self.el.doc.d.attrs[k])

    def pop(self, key, *default):
        cdef int32_t k = self._find(key)
        if k < 0:
            if default:
                return default[0]
            raise KeyError(key)
        v = _attr_value(self.el.doc, &self.el.doc.d.attrs[k])
        dom_attr_delete(&self.el.doc.d, self.el.idx, k)
        return v

    def clear(self):
        self.el.doc.d.nodes[self.el.idx].attr_count = 0

    def update(self, other=(), **kw):
        items = other.items() if hasattr(other, "items") else other
        for k, v in items:
            self[k] = v
        for k, v in kw.items():
            self[k] = v

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def keys(self):
        return [k for k, _ in self.items()]

    def values(self):
        return [v for _, v in self.items()]

    def items(self):
        cdef CDocument doc = self.el.doc
        cdef Node* nd = &doc.d.nodes[self.el.idx]
        cdef int32_t k
        return [(doc.name_str(doc.d.attrs[k].name), _attr_value(doc, &doc.d.attrs[k]))
                for k in range(nd.attr_start, nd.attr_start + nd.attr_count)]

    def copy(self):
        return dict(self.items())

    def __eq__(self, other):
        if isinstance(other, CAttrib):
            other = dict((<CAttrib>other).items())
        return dict(self.items()) == other

    def __repr__(self):
        return repr(dict(self.items()))


@cython.final
@cython.no_gc
cdef class CElement:
    """One node of a CDocument, with trafila.dom.Element's API."""
    cdef CDocument doc
    cdef int32_t idx

    def __dealloc__(self):
        cdef CDocument doc = self.doc
        if doc is not None and self.idx < doc.cap_proxies and doc.proxies[self.idx] == <PyObject*>self:
            doc.proxies[self.idx] = NULL

    def __init__(self, *args, **kw):
        raise TypeError("use the core's Element()/SubElement() factories or a parser")

    # -- properties -------------------------------------------------------
    @property
    def tag(self):
        return self.doc.name_str(self.doc.d.nodes[self.idx].tag)

    @tag.setter
    def tag(self, value):
        self.doc.d.nodes[self.idx].tag = _intern(self.doc, value)

    @property
    def text(self):
        return _slot_str(self.doc, self.idx, False)

    @text.setter
    def text(self, value):
        _set_slot_str(self.doc, self.idx, False, value)

    @property
    def tail(self):
        return _slot_str(self.doc, self.idx, True)

    @tail.setter
    def tail(self, value):
        _set_slot_str(self.doc, self.idx, True, value)

    @property
    def attrib(self):
        cdef CAttrib a = CAttrib.__new__(CAttrib)
        a.el = self
        return a

    @property
    def _children(self):
        """The children as a new list (the reference's private list, read-only here)."""
        return self.getchildren()

    @property
    def _parent(self):
        return _proxy(self.doc, self.doc.d.nodes[self.idx].parent)

    @property
    def _doc(self):
        # the reference's slot: the document of a parentless node (read by trafila.dom.is_top_level)
        return self.doc if self.doc.d.nodes[self.idx].parent < 0 else None

    @property
    def node_index(self):
        return self.idx

    @property
    def document(self):
        return self.doc

    # -- sequence protocol -----------------------------------------------
    def __len__(self):
        cdef DocData* d = &self.doc.d
        cdef Py_ssize_t n = 0
        cdef int32_t c = d.nodes[self.idx].first
        while c >= 0:
            n += 1
            c = d.nodes[c].next
        return n

    def __iter__(self):
        return _walk(_proxy(self.doc, self.doc.d.nodes[self.idx].first), W_NEXT, None)

    def __reversed__(self):
        return _walk(_proxy(self.doc, self.doc.d.nodes[self.idx].last), W_PREV, None)

    def __contains__(self, element):
        return (isinstance(element, CElement) and (<CElement>element).doc is self.doc
                and self.doc.d.nodes[(<CElement>element).idx].parent == self.idx)

    cdef int32_t _child_at(self, Py_ssize_t index) except -2:
        # an int index as a list takes it (negative from the end); IndexError as list
        cdef DocData* d = &self.doc.d
        cdef int32_t c
        cdef Py_ssize_t k
        if index >= 0:
            c = d.nodes[self.idx].first
            k = index
            while c >= 0 and k > 0:
                c = d.nodes[c].next
                k -= 1
        else:
            c = d.nodes[self.idx].last
            k = -index - 1
            while c >= 0 and k > 0:
                c = d.nodes[c].prev
                k -= 1
        if c < 0:
            raise IndexError("list index out of range")
        return c

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self.getchildren()[index]
        return _proxy(self.doc, self._child_at(index))

    def __setitem__(self, index, value):
        # trafila.dom.Element.__setitem__
        cdef CElement old, new
        if value is None:
            raise ValueError("cannot assign None")
        if isinstance(index, slice):
            self._set_slice(index, value)
            return
        old = _proxy(self.doc, self._child_at(index))
        new = _as_element(value)
        if new is old:
            old.tail = None
            return
        if _is_ancestor_or_self(new, self):
            raise ValueError("cannot append parent to itself")
        old.tail = None
        if new.doc is not self.doc:
            _adopt(self.doc, new)
        dom_unlink(&self.doc.d, new.idx)
        dom_link_before(&self.doc.d, self.idx, new.idx, old.idx)
        dom_unlink(&self.doc.d, old.idx)

    def _set_slice(self, index, value):
        # trafila.dom.Element._set_slice
        cdef CElement el, anchor_el
        elements = list(value)
        ch = self.getchildren()
        start, stop, step = index.indices(len(ch))
        if step != 1:
            targets = ch[index]
            if len(targets) != len(elements):
                raise ValueError(
                    f"attempt to assign sequence of size {len(elements)} to extended slice of size {len(targets)}"
                )
            for old, new in zip(targets, elements):
                pos = self.getchildren().index(old)
                self.remove(old)
                self.insert(pos, new)
            return
        if stop < start:
            stop = start
        removed = ch[start:stop]
        neighbour = ch[start - 1] if start > 0 and removed else None
        anchor = None
        if not removed:
            anchor = ch[start] if start < len(ch) else None
        for old in removed:
            self.remove(old)
        if removed:
            if neighbour is not None:
                anchor = neighbour.getnext()
            else:
                anchor = self[0] if len(self) else None
        for x in elements:
            if anchor is None:
                self.append(x)
            elif x is anchor:
                continue  # libxml2 refuses to insert a node before itself
            else:
                el = _as_element(x)
                anchor_el = anchor
                if _is_ancestor_or_self(el, self):
                    raise ValueError("cannot append parent to itself")
                _move(self, el, anchor_el.idx)

    def __delitem__(self, index):
        cdef int32_t c
        if isinstance(index, slice):
            for old in self.getchildren()[index]:
                self.remove(old)
            return
        try:
            c = self._child_at(index)
        except IndexError:
            raise IndexError(f"index out of range: {index}") from None
        self.remove(_proxy(self.doc, c))

    def __bool__(self):
        return self.doc.d.nodes[self.idx].first >= 0

    def __repr__(self):
        return f"<CElement {self.tag} at {id(self):#x}>"

    def __copy__(self):
        # lxml: the subtree and its tail, into a new document
        cdef CDocument doc = CDocument()
        cdef int32_t i
        doc.is_html = self.doc.is_html
        with nogil:
            i = dom_copy_subtree(&self.doc.d, self.idx, &doc.d, True)
        if i < 0 or not dom_add_root(&doc.d, i):
            _raise_doc_error(doc)
        return _proxy(doc, i)

    def __deepcopy__(self, memo):
        return self.__copy__()

    # -- navigation ------------------------------------------------------
    def getparent(self):
        return _proxy(self.doc, self.doc.d.nodes[self.idx].parent)

    def getnext(self):
        return _proxy(self.doc, self.doc.d.nodes[self.idx].next)

    def getprevious(self):
        return _proxy(self.doc, self.doc.d.nodes[self.idx].prev)

    def getchildren(self):
        cdef DocData* d = &self.doc.d
        cdef list out = []
        cdef int32_t c = d.nodes[self.idx].first
        while c >= 0:
            out.append(_proxy(self.doc, c))
            c = d.nodes[c].next
        return out

    def getroottree(self):
        """The document this element belongs to (a removed element stays in it)."""
        return self.doc

    def index(self, child, start=None, stop=None):
        # trafila.dom.Element.index
        cdef CElement c = _as_element(child)
        cdef int32_t x
        if c.doc is not self.doc or self.doc.d.nodes[c.idx].parent != self.idx:
            raise ValueError("Element is not a child of this node.")
        i = 0
        x = self.doc.d.nodes[c.idx].prev
        while x >= 0:
            i += 1
            x = self.doc.d.nodes[x].prev
        n = len(self)
        lo = 0 if start is None else (start + n if start < 0 else start)
        hi = n if stop is None else (stop + n if stop < 0 else stop)
        if lo <= i < hi:
            return i
        raise ValueError("Element is not in given range.")

    # -- mutation --------------------------------------------------------
    def append(self, child):
        cdef CElement c = _as_element(child)
        if _is_ancestor_or_self(c, self):
            raise ValueError("cannot append parent to itself")
        _move(self, c, -1)

    def extend(self, elements):
        for el in elements:
            if el is None:
                raise TypeError("Node must not be None")
            self.append(el)

    def insert(self, index, element):
        # trafila.dom.Element.insert: an index out of range appends
        cdef CElement e = _as_element(element)
        cdef CElement ref
        n = len(self)
        pos = index + n if index < 0 else index
        if pos < 0 or pos >= n:
            self.append(e)
            return
        ref = _proxy(self.doc, self._child_at(pos))
        if _is_ancestor_or_self(e, self):
            raise ValueError("cannot append parent to itself")
        if ref is e:
            return
        _move(self, e, ref.idx)

    def remove(self, child):
        cdef CElement c = _as_element(child)
        if c.doc is not self.doc or self.doc.d.nodes[c.idx].parent != self.idx:
            raise ValueError("Element is not a child of this node.")
        unlink_node(&self.doc.d, c.idx)

    def replace(self, old_element, new_element):
        cdef CElement old = _as_element(old_element)
        cdef CElement new = _as_element(new_element)
        if old.doc is not self.doc or self.doc.d.nodes[old.idx].parent != self.idx:
            raise ValueError("Element is not a child of this node.")
        if _is_ancestor_or_self(new, self):
            raise ValueError("cannot append parent to itself")
        if new is old:
            return
        _move(self, new, old.idx)
        unlink_node(&self.doc.d, old.idx)

    cdef _add_sibling(self, object element, bint after):
        # trafila.dom.Element.addnext / addprevious
        cdef CElement e = _as_element(element)
        cdef int32_t parent, ref
        if dom_is_top_level(&self.doc.d, self.idx):
            raise TypeError("Only processing instructions and comments can be siblings of the root element")
        if _is_ancestor_or_self(e, self):
            if e is self:
                return
            raise ValueError("cannot add ancestor as sibling, please break cycle first")
        dom_unlink(&e.doc.d, e.idx)
        parent = self.doc.d.nodes[self.idx].parent
        if parent < 0:
            return  # an unlinked element has no sibling list to join
        ref = self.doc.d.nodes[self.idx].next if after else self.idx
        _move(self.getparent(), e, ref)

    def addnext(self, element):
        self._add_sibling(element, True)

    def addprevious(self, element):
        self._add_sibling(element, False)

    def clear(self, keep_tail=False):
        cdef DocData* d = &self.doc.d
        d.nodes[self.idx].text_off = -1
        d.nodes[self.idx].text_len = 0
        if not keep_tail:
            d.nodes[self.idx].tail_off = -1
            d.nodes[self.idx].tail_len = 0
        d.nodes[self.idx].attr_count = 0
        dom_clear_children(d, self.idx)

    def drop_tree(self):
        assert self.doc.d.nodes[self.idx].parent >= 0
        if not dom_drop_tree(&self.doc.d, self.idx):
            _raise_doc_error(self.doc)

    def drop_tag(self):
        assert self.doc.d.nodes[self.idx].parent >= 0
        if not dom_drop_tag(&self.doc.d, self.idx):
            _raise_doc_error(self.doc)

    # -- attributes ------------------------------------------------------
    def get(self, key, default=None):
        cdef int32_t nid = _lookup(self.doc, key)
        cdef int32_t k
        if nid < 0:
            return default
        k = dom_attr_find(&self.doc.d, self.idx, nid)
        if k < 0:
            return default
        return _attr_value(self.doc, &self.doc.d.attrs[k])

    def set(self, key, value):
        _attr_store(self.doc, self.idx, key, _set_value(value))

    def keys(self):
        return self.attrib.keys()

    def values(self):
        return self.attrib.values()

    def items(self):
        return self.attrib.items()

    # -- factories -------------------------------------------------------
    def makeelement(self, _tag, attrib=None, nsmap=None, **extra):
        """A new unlinked element in this element's document (lxml)."""
        return _new_element(self.doc, _tag, attrib, extra, -1)

    # -- iteration -------------------------------------------------------
    def iter(self, tag=None, *tags):
        return _depth_first(self, _tag_set(tag, tags), True)

    def iterdescendants(self, tag=None, *tags):
        return _depth_first(self, _tag_set(tag, tags), False)

    def iterchildren(self, tag=None, *tags, reversed=False):
        cdef DocData* d = &self.doc.d
        cdef int32_t c
        names = _tag_set(tag, tags)
        if names is not None and not names:
            return iter(())
        c = d.nodes[self.idx].last if reversed else d.nodes[self.idx].first
        while c >= 0 and not _matches(self.doc, c, names):
            c = d.nodes[c].prev if reversed else d.nodes[c].next
        return _walk(_proxy(self.doc, c), W_PREV if reversed else W_NEXT, names)

    def itersiblings(self, tag=None, *tags, preceding=False):
        cdef DocData* d = &self.doc.d
        cdef int how = W_PREV if preceding else W_NEXT
        cdef int32_t c
        names = _tag_set(tag, tags)
        if names is not None and not names:
            return iter(())
        c = _step(d, self.idx, how, -2)
        while c >= 0 and not _matches(self.doc, c, names):
            c = _step(d, c, how, -2)
        return _walk(_proxy(self.doc, c), how, names)

    def iterancestors(self, tag=None, *tags):
        cdef DocData* d = &self.doc.d
        cdef int32_t c
        names = _tag_set(tag, tags)
        if names is not None and not names:
            return iter(())
        c = d.nodes[self.idx].parent
        while c >= 0 and not _matches(self.doc, c, names):
            c = d.nodes[c].parent
        return _walk(_proxy(self.doc, c), W_PARENT, names)

    def itertext(self, tag=None, *tags, with_tail=True):
        return iter(_collect_text(self, _tag_set(tag, tags), with_tail))

    def text_content(self):
        return "".join(_collect_text(self, None, True))

    # -- ElementPath (the reference's path language, over this API) -------
    def iterfind(self, path, namespaces=None):
        return _path_iterfind(self, path)

    def find(self, path, namespaces=None):
        return next(_path_iterfind(self, path), None)

    def findall(self, path, namespaces=None):
        return list(_path_iterfind(self, path))


# -- module functions (trafila.dom's) -------------------------------------------------

def dom_element(_tag, attrib=None, nsmap=None, **extra):
    """trafila.dom.Element: a new element, the root of a new (XML) document."""
    cdef CDocument doc = CDocument()
    cdef CElement e
    doc.is_html = False
    e = _new_element(doc, _tag, attrib, extra, -1)
    if not dom_add_root(&doc.d, e.idx):
        _raise_doc_error(doc)
    return e


def dom_subelement(_parent, _tag, attrib=None, nsmap=None, **extra):
    """trafila.dom.SubElement: a new element appended to ``_parent``."""
    cdef CElement p = _as_element(_parent)
    return _new_element(p.doc, _tag, attrib, extra, p.idx)


def dom_iselement(obj):
    return isinstance(obj, CElement)


cdef object _root_of(object tree_or_element):
    if isinstance(tree_or_element, CDocument):
        return (<CDocument>tree_or_element).getroot()
    return _as_element(tree_or_element)


cdef _strip(object tree_or_element, tuple tag_names, int mode):
    # mode 0: strip_tags; 1: strip_elements with tail; 2: without tail
    cdef CElement top
    cdef CDocument doc
    cdef TagSet t
    cdef bytearray ids
    cdef int32_t nid
    cdef int32_t* buf
    cdef bint ok
    cdef Py_ssize_t k, n
    root = _root_of(tree_or_element)
    if root is None or not tag_names:
        return
    names = _tag_set(None, tag_names)
    if names is not None and not names:
        return
    top = root
    doc = top.doc
    found = []
    if names is not None:
        for name in names:
            nid = _lookup(doc, name)
            if nid >= 0:
                found.append(nid)
        if not found:
            return
    n = len(found)
    ids = bytearray(4 * n)
    buf = <int32_t*><char*>ids
    for k in range(n):
        buf[k] = found[k]
    tagset_init(&t, names is None, buf, <int32_t>n)
    with nogil:
        if mode == 0:
            ok = dom_strip_tags(&doc.d, top.idx, &t)
        else:
            ok = dom_strip_elements(&doc.d, top.idx, &t, mode == 1)
    if not ok:
        _raise_doc_error(doc)


def dom_strip_tags_(tree_or_element, *tag_names):
    """trafila.dom.strip_tags."""
    _strip(tree_or_element, tag_names, 0)


def dom_strip_elements_(tree_or_element, *tag_names, with_tail=True):
    """trafila.dom.strip_elements."""
    _strip(tree_or_element, tag_names, 1 if with_tail else 2)


def fromstring_view(src, Py_ssize_t start=0):
    """trafila.html.fromstring in the core: the chosen element as a CElement (of ``src[start:]``)."""
    cdef CDocument doc = fromstring(src, start)
    return _proxy(doc, doc.root_index)


def document_fromstring_view(src):
    """trafila.html.document_fromstring in the core: the root as a CElement."""
    cdef CDocument doc = document_fromstring(src)
    return _proxy(doc, doc.root_index)


def parse_document_view(src):
    """trafila.html.parse_document in the core: the CDocument (it has the Document API)."""
    return parse_document(src)


def _text_nodes(el):
    """trafila.dom.text_nodes."""
    cdef CElement e = _as_element(el)
    out = [] if e.text is None else [e.text]
    for c in e.getchildren():
        if c.tail is not None:
            out.append(c.tail)
    return out


class _DomNamespace:
    """The element model of the core, named as trafila.dom names it (``_core.dom``)."""
    Element = staticmethod(dom_element)
    SubElement = staticmethod(dom_subelement)
    strip_tags = staticmethod(dom_strip_tags_)
    strip_elements = staticmethod(dom_strip_elements_)
    iselement = staticmethod(dom_iselement)
    text_nodes = staticmethod(_text_nodes)
    fromstring = staticmethod(fromstring_view)
    document_fromstring = staticmethod(document_fromstring_view)
    parse_document = staticmethod(parse_document_view)
    CElement = CElement
    CAttrib = CAttrib
    Document = CDocument
    NO_VALUE = NO_VALUE
    DocInfo = DocInfo
    engine = "core"


dom = _DomNamespace()
