"""Each engine's element model (trafila.dom; the core's CElement proxies) against lxml 6.1.3, live.

The same random trees are built in lxml (lxml.html elements, as trafilatura
gets them) and in trafila; the same random operation sequences run on both
(mutations, queries, and loops that mutate while iterating); after every step
every node must have the same tag, attributes, text, tail, parent, children
and root document, and every query the same answer.
"""

from __future__ import annotations

import copy
import itertools
import os
from typing import Any, Callable, List

import pytest

lxml_html = pytest.importorskip("lxml.html")
from lxml import etree  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests._helpers import element_iterator, mutate_while_iterating  # noqa: E402
from trafila import dom  # noqa: E402

TAGS = ["a", "b", "p", "div"]
_counter = itertools.count()


class Pair:
    """The two worlds side by side: node i of ``lx`` is node i of ``tr``."""

    def __init__(self, model: Any) -> None:
        #: the element model under test (trafila.engine(name).dom)
        self.m = model
        self.lx: List[Any] = []
        self.tr: List[dom.Element] = []
        # ids are stable: every tracked object stays referenced by the lists
        # (lxml hands out the same proxy while one is alive)
        self._lx_pos: dict = {}
        self._tr_pos: dict = {}

    def add(self, lx_el: Any, tr_el: dom.Element) -> None:
        # pair two subtrees node by node, in document order
        for a, b in zip(lx_el.iter(), _tr_iter_static(tr_el)):
            self._lx_pos[id(a)] = len(self.lx)
            self._tr_pos[id(b)] = len(self.tr)
            self.lx.append(a)
            self.tr.append(b)

    def lx_index(self, el: Any) -> Any:
        if el is None:
            return None
        i = self._lx_pos.get(id(el))
        # every node is added when it is created, so this cannot miss
        assert i is not None and self.lx[i] is el, f"untracked lxml node {el!r}"
        return i

    def tr_index(self, el: Any) -> Any:
        if el is None:
            return None
        i = self._tr_pos.get(id(el))
        assert i is not None and self.tr[i] is el, f"untracked trafila node {el!r}"
        return i

    def check(self) -> None:
        for i, (a, b) in enumerate(zip(self.lx, self.tr)):
            assert a.tag == b.tag, i
            assert list(a.attrib.items()) == list(b.attrib.items()), i
            assert a.text == b.text, (i, "text")
            assert a.tail == b.tail, (i, "tail")
            assert self.lx_index(a.getparent()) == self.tr_index(b.getparent()), (i, "parent")
            assert [self.lx_index(c) for c in a] == [self.tr_index(c) for c in b._children], (i, "children")
            assert self.lx_index(a.getnext()) == self.tr_index(b.getnext()), (i, "next")
            assert self.lx_index(a.getprevious()) == self.tr_index(b.getprevious()), (i, "previous")
            assert self.lx_index(a.getroottree().getroot()) == self.tr_index(b.getroottree().getroot()), (i, "root")


def _tr_iter_static(el: dom.Element) -> List[dom.Element]:
    out = []
    stack = [el]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(n._children))
    return out


def _text(data: Any) -> Any:
    kind = data.draw(st.sampled_from(["none", "empty", "new", "space"]))
    if kind == "none":
        return None
    if kind == "empty":
        return ""
    if kind == "space":
        return " "
    return f"t{next(_counter)}"


def _new_pair(pair: Pair, data: Any, depth: int = 0) -> int:
    """A new random subtree in both worlds; returns the index of its root."""
    tag = data.draw(st.sampled_from(TAGS))
    attrs = data.draw(st.lists(st.sampled_from(["id", "class", "x"]), max_size=2, unique=True))
    attrib = {k: f"v{next(_counter)}" for k in attrs}
    lx_root = lxml_html.Element(tag, attrib)
    tr_root = pair.m.Element(tag, attrib)
    text = _text(data)
    lx_root.text = text
    tr_root.text = text

    def grow(lx_el: Any, tr_el: dom.Element, level: int) -> None:
        n = data.draw(st.integers(0, 3 if level < 3 else 0))
        for _ in range(n):
            t = data.draw(st.sampled_from(TAGS))
            lc = etree.SubElement(lx_el, t)
            tc = pair.m.SubElement(tr_el, t)
            tx, tl = _text(data), _text(data)
            lc.text, tc.text = tx, tx
            lc.tail, tc.tail = tl, tl
            grow(lc, tc, level + 1)

    grow(lx_root, tr_root, depth)
    start = len(pair.lx)
    pair.add(lx_root, tr_root)
    return start


def _same_outcome(f_lx: Callable[[], Any], f_tr: Callable[[], Any]) -> Any:
    """Run both; they must both succeed or raise the same exception type."""
    err_lx = err_tr = None
    res_lx = res_tr = None
    try:
        res_lx = f_lx()
    except Exception as e:  # noqa: BLE001 - compared below
        err_lx = e
    try:
        res_tr = f_tr()
    except Exception as e:  # noqa: BLE001
        err_tr = e
    if err_lx is not None or err_tr is not None:
        assert type(err_lx) is type(err_tr), (err_lx, err_tr)
        return None, None
    return res_lx, res_tr


def _query(pair: Pair, data: Any) -> None:
    i = data.draw(st.integers(0, len(pair.lx) - 1))
    a, b = pair.lx[i], pair.tr[i]
    tags = data.draw(st.lists(st.sampled_from(TAGS + ["*"]), max_size=2))
    kind = data.draw(st.sampled_from([
        "iter", "iterdescendants", "iterchildren", "iterchildren_rev", "itersiblings",
        "itersiblings_prec", "iterancestors", "itertext", "itertext_notail", "text_content",
        "len", "index", "find", "contains", "getitem", "slice",
    ]))
    L, T = pair.lx_index, pair.tr_index
    if kind == "iter":
        assert [L(x) for x in a.iter(*tags)] == [T(x) for x in b.iter(*tags)]
        if len(tags) == 2:
            assert [L(x) for x in a.iter(tags)] == [T(x) for x in b.iter(tags)]
    elif kind == "iterdescendants":
        assert [L(x) for x in a.iterdescendants(*tags)] == [T(x) for x in b.iterdescendants(*tags)]
    elif kind == "iterchildren":
        assert [L(x) for x in a.iterchildren(*tags)] == [T(x) for x in b.iterchildren(*tags)]
    elif kind == "iterchildren_rev":
        assert [L(x) for x in a.iterchildren(*tags, reversed=True)] == [
            T(x) for x in b.iterchildren(*tags, reversed=True)]
    elif kind == "itersiblings":
        assert [L(x) for x in a.itersiblings(*tags)] == [T(x) for x in b.itersiblings(*tags)]
    elif kind == "itersiblings_prec":
        assert [L(x) for x in a.itersiblings(*tags, preceding=True)] == [
            T(x) for x in b.itersiblings(*tags, preceding=True)]
    elif kind == "iterancestors":
        assert [L(x) for x in a.iterancestors(*tags)] == [T(x) for x in b.iterancestors(*tags)]
    elif kind == "itertext":
        assert list(a.itertext(*tags)) == list(b.itertext(*tags))
    elif kind == "itertext_notail":
        assert list(a.itertext(*tags, with_tail=False)) == list(b.itertext(*tags, with_tail=False))
    elif kind == "text_content":
        assert a.text_content() == b.text_content()
    elif kind == "len":
        assert len(a) == len(b)
    elif kind == "index":
        j = data.draw(st.integers(0, len(pair.lx) - 1))
        ra, rb = _same_outcome(lambda: a.index(pair.lx[j]), lambda: b.index(pair.tr[j]))
        assert ra == rb
    elif kind == "find":
        path = data.draw(st.sampled_from([
            ".//p", "p", "*", ".//*", "a/b", ".//div/p", ".//a[@id]", "b[1]", "b[last()]",
            ".//p[@class]", "..", "./a", ".//b//a", "div[p]",
        ]))
        ra, rb = _same_outcome(lambda: [L(x) for x in a.findall(path)], lambda: [T(x) for x in b.findall(path)])
        assert ra == rb
        ra, rb = _same_outcome(lambda: L(a.find(path)), lambda: T(b.find(path)))
        assert ra == rb
    elif kind == "contains":
        j = data.draw(st.integers(0, len(pair.lx) - 1))
        assert (pair.lx[j] in a) == (pair.tr[j] in b)
    elif kind == "getitem":
        k = data.draw(st.integers(-4, 4))
        ra, rb = _same_outcome(lambda: L(a[k]), lambda: T(b[k]))
        assert ra == rb
    elif kind == "slice":
        s = slice(data.draw(st.integers(-3, 3)), data.draw(st.integers(-3, 4)))
        assert [L(x) for x in a[s]] == [T(x) for x in b[s]]


def _loop(pair: Pair, data: Any) -> None:
    """Mutate while iterating: the lookahead semantics decide what is visited."""
    i = data.draw(st.integers(0, len(pair.lx) - 1))
    j = data.draw(st.integers(0, len(pair.lx) - 1))
    a, b = pair.lx[i], pair.tr[i]
    target_lx, target_tr = pair.lx[j], pair.tr[j]
    tags = data.draw(st.lists(st.sampled_from(TAGS), max_size=2))
    how = data.draw(st.sampled_from(["iter", "iterdescendants", "children", "iterchildren",
                                     "itersiblings", "iterancestors"]))
    action = data.draw(st.sampled_from(["delete", "drop_tree", "rename", "move", "strip",
                                        "remove_next", "drop_tag", "delete_parent"]))

    def run(el: Any, target: Any, world: str) -> List[Any]:
        model = etree if world == "lx" else pair.m
        return mutate_while_iterating(element_iterator(el, how, tags), action, target, model)

    seen_lx = run(a, target_lx, "lx")
    seen_tr = run(b, target_tr, "tr")
    conv = lambda f, xs: [x if isinstance(x, str) else f(x) for x in xs]  # noqa: E731
    assert conv(pair.lx_index, seen_lx) == conv(pair.tr_index, seen_tr)


def _mutate(pair: Pair, data: Any) -> None:
    n = len(pair.lx)
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(0, n - 1))
    a, b = pair.lx[i], pair.tr[i]
    c, d = pair.lx[j], pair.tr[j]
    op = data.draw(st.sampled_from([
        "append", "insert", "remove", "replace", "addnext", "addprevious", "delitem",
        "delslice", "setitem", "setslice", "extend", "clear", "clear_keep", "drop_tree",
        "drop_tag", "strip_tags", "strip_elements", "strip_elements_keep", "text", "tail",
        "copy", "new", "set", "pop", "attrib_clear", "tag", "makeelement", "remove_first",
    ]))
    if os.environ.get("DOM_TRACE"):
        print("  op", op, i, j, flush=True)
    if op == "append":
        _same_outcome(lambda: a.append(c), lambda: b.append(d))
    elif op == "insert":
        k = data.draw(st.integers(-5, 5))
        _same_outcome(lambda: a.insert(k, c), lambda: b.insert(k, d))
    elif op == "remove":
        _same_outcome(lambda: a.remove(c), lambda: b.remove(d))
    elif op == "remove_first":
        if len(a):
            a.remove(a[0])
            b.remove(b[0])
    elif op == "replace":
        k = data.draw(st.integers(0, n - 1))
        _same_outcome(lambda: a.replace(pair.lx[k], c), lambda: b.replace(pair.tr[k], d))
    elif op in ("addnext", "addprevious"):
        # lxml links siblings to an unlinked element into a parentless chain;
        # trafila has no such chains (documented gap), so only attached targets
        if a.getparent() is None and a.getroottree().getroot() is not a:
            return
        _same_outcome(lambda: getattr(a, op)(c), lambda: getattr(b, op)(d))
    elif op == "delitem":
        k = data.draw(st.integers(-3, 3))

        def dl(x: Any) -> None:
            del x[k]
        _same_outcome(lambda: dl(a), lambda: dl(b))
    elif op == "delslice":
        s = slice(data.draw(st.integers(-3, 3)), data.draw(st.integers(-3, 4)))

        def ds(x: Any) -> None:
            del x[s]
        _same_outcome(lambda: ds(a), lambda: ds(b))
    elif op == "setitem":
        k = data.draw(st.integers(-3, 3))
        if c is a or any(x is c for x in a.iterancestors()):
            # lxml does not check for cycles here and loops forever;
            # trafila raises ValueError (test_setitem_cycle_raises)
            return

        def si(x: Any, v: Any) -> None:
            x[k] = v
        _same_outcome(lambda: si(a, c), lambda: si(b, d))
    elif op == "setslice":
        s = slice(data.draw(st.integers(0, 3)), data.draw(st.integers(0, 4)))
        ks = data.draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True))

        def ss(x: Any, vs: List[Any]) -> None:
            x[s] = vs
        anc = {id(x) for x in a.iterancestors()} | {id(a)}
        if any(id(pair.lx[k]) in anc for k in ks):
            # lxml's slice assignment has no cycle check (it corrupts memory)
            return
        _same_outcome(lambda: ss(a, [pair.lx[k] for k in ks]), lambda: ss(b, [pair.tr[k] for k in ks]))
    elif op == "extend":
        ks = data.draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True))
        _same_outcome(lambda: a.extend([pair.lx[k] for k in ks]), lambda: b.extend([pair.tr[k] for k in ks]))
    elif op == "clear":
        a.clear()
        b.clear()
    elif op == "clear_keep":
        a.clear(keep_tail=True)
        b.clear(keep_tail=True)
    elif op == "drop_tree":
        _same_outcome(lambda: a.drop_tree(), lambda: b.drop_tree())
    elif op == "drop_tag":
        _same_outcome(lambda: a.drop_tag(), lambda: b.drop_tag())
    elif op in ("strip_tags", "strip_elements", "strip_elements_keep"):
        tags = data.draw(st.lists(st.sampled_from(TAGS + ["*"]), min_size=0, max_size=2))
        use_tree = data.draw(st.booleans()) and a.getroottree().getroot() is not None
        ta = a.getroottree() if use_tree else a
        tb = b.getroottree() if use_tree else b
        if op == "strip_tags":
            etree.strip_tags(ta, *tags)
            pair.m.strip_tags(tb, *tags)
        else:
            wt = op == "strip_elements"
            etree.strip_elements(ta, *tags, with_tail=wt)
            pair.m.strip_elements(tb, *tags, with_tail=wt)
    elif op == "text":
        t = _text(data)
        a.text = t
        b.text = t
    elif op == "tail":
        t = _text(data)
        a.tail = t
        b.tail = t
    elif op == "copy":
        if n > 300:  # repeated copies of a root grow the pool exponentially
            return
        ca = copy.deepcopy(a) if data.draw(st.booleans()) else copy.copy(a)
        cb = copy.deepcopy(b) if data.draw(st.booleans()) else copy.copy(b)
        pair.add(ca, cb)
    elif op == "new":
        _new_pair(pair, data)
    elif op == "makeelement":
        ma = a.makeelement("p", {"k": "v"})
        mb = b.makeelement("p", {"k": "v"})
        pair.add(ma, mb)
    elif op == "set":
        k = data.draw(st.sampled_from(["id", "class", "x", "y"]))
        v = f"v{next(_counter)}"
        a.set(k, v)
        b.set(k, v)
    elif op == "pop":
        k = data.draw(st.sampled_from(["id", "class", "x"]))
        assert a.attrib.pop(k, None) == b.attrib.pop(k, None)
    elif op == "attrib_clear":
        a.attrib.clear()
        b.attrib.clear()
    elif op == "tag":
        t = data.draw(st.sampled_from(TAGS))
        a.tag = t
        b.tag = t


# derandomize: some operation sequences corrupt lxml's own memory (the oracle then reads garbage:
# UnicodeDecodeError in its tail getter, "munmap_chunk(): invalid pointer"; seen with DOM_EXAMPLES=4000),
# so CI runs one fixed set of sequences; DOM_RANDOM=1 draws new ones
@settings(max_examples=int(__import__("os").environ.get("DOM_EXAMPLES", "150")), deadline=None,
          suppress_health_check=list(HealthCheck), derandomize=not os.environ.get("DOM_RANDOM"))
@given(st.data())
def test_random_operation_sequences_match_lxml(dom_engine: Any, data: Any) -> None:
    pair = Pair(dom_engine)
    for _ in range(data.draw(st.integers(1, 3))):
        _new_pair(pair, data)
    pair.check()
    for _ in range(data.draw(st.integers(1, 25))):
        step = data.draw(st.sampled_from(["mutate", "mutate", "query", "loop"]))
        if os.environ.get("DOM_TRACE"):
            print(step, len(pair.lx), flush=True)
        if step == "mutate":
            _mutate(pair, data)
        elif step == "query":
            _query(pair, data)
        else:
            _loop(pair, data)
        pair.check()
