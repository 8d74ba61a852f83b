"""The core's element model (CElement proxies over the C document) against
the reference's (trafila.dom, the specification), in lockstep.

Hypothesis builds the same random trees in both models and runs the same
random operation sequences on them (mutations, queries, loops that mutate
while iterating, copies, moves between documents); after every step every
tracked node must have the same tag, attributes, text, tail, parent,
children, siblings and document root, and the same dump (trafila.treedump).
Also: proxy identity, detached subtrees that outlive their tree's proxies,
and MemoryError (never a crash) under injected allocation failures.

Skipped when trafila._core is not built, unless TRAFILA_REQUIRE_EXTENSIONS=1.
"""

from __future__ import annotations

import copy
import gc
import itertools
import os
from typing import Any, Callable, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._helpers import element_iterator, mutate_while_iterating
from tests.conftest import _built_engine
from trafila.treedump import dump_element


@pytest.fixture(scope="module")
def models():
    return _built_engine("reference").dom, _built_engine("core").dom


TAGS = ["a", "b", "p", "div"]
_counter = itertools.count()


class Worlds:
    """Node i of world 0 (reference) is node i of world 1 (core)."""

    def __init__(self, models: Any) -> None:
        self.m = models
        self.nodes: List[List[Any]] = [[], []]
        self._pos: List[dict] = [{}, {}]

    def add(self, roots: Any) -> None:
        for w in (0, 1):
            for el in _static_preorder(roots[w]):
                self._pos[w][id(el)] = len(self.nodes[w])
                self.nodes[w].append(el)
        assert len(self.nodes[0]) == len(self.nodes[1])

    def index(self, w: int, el: Any) -> Any:
        if el is None:
            return None
        i = self._pos[w].get(id(el))
        assert i is not None and self.nodes[w][i] is el, f"untracked node {el!r} in world {w}"
        return i

    def check(self) -> None:
        R, C = (lambda el: self.index(0, el)), (lambda el: self.index(1, el))
        for i, (a, b) in enumerate(zip(*self.nodes)):
            assert a.tag == b.tag, i
            assert list(a.attrib.items()) == list(b.attrib.items()), i
            assert [type(v).__name__ for v in a.attrib.values()] == [type(v).__name__ for v in b.attrib.values()], i
            assert a.text == b.text, (i, "text")
            assert a.tail == b.tail, (i, "tail")
            assert R(a.getparent()) == C(b.getparent()), (i, "parent")
            assert [R(c) for c in a] == [C(c) for c in b], (i, "children")
            assert R(a.getnext()) == C(b.getnext()), (i, "next")
            assert R(a.getprevious()) == C(b.getprevious()), (i, "previous")
            assert R(a.getroottree().getroot()) == C(b.getroottree().getroot()), (i, "root")
            assert len(a.getroottree().children) == len(b.getroottree().children), (i, "top level")
        for a, b in zip(*self.nodes):
            if a.getparent() is None:
                assert dump_element(a) == dump_element(b)


def _static_preorder(el: Any) -> List[Any]:
    out = []
    stack = [el]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(n[:]))
    return out


def _text(data: Any) -> Any:
    kind = data.draw(st.sampled_from(["none", "empty", "new", "space", "unicode"]))
    if kind == "none":
        return None
    if kind == "empty":
        return ""
    if kind == "space":
        return " "
    if kind == "unicode":
        return f"é€😀{next(_counter)}"
    return f"t{next(_counter)}"


def _new_tree(worlds: Worlds, data: Any) -> None:
    tag = data.draw(st.sampled_from(TAGS))
    attrs = data.draw(st.lists(st.sampled_from(["id", "class", "x", "data-é"]), max_size=3, unique=True))
    attrib = {k: f"v{next(_counter)}" for k in attrs}
    roots = [worlds.m[w].Element(tag, attrib) for w in (0, 1)]
    text = _text(data)
    for r in roots:
        r.text = text
    plan = []

    def draw_plan(level: int) -> list:
        kids = []
        for _ in range(data.draw(st.integers(0, 3 if level < 3 else 0))):
            kids.append((data.draw(st.sampled_from(TAGS)), _text(data), _text(data), draw_plan(level + 1)))
        return kids

    plan = draw_plan(0)
    for w in (0, 1):
        stack = [(roots[w], plan)]
        while stack:
            parent, kids = stack.pop()
            for t, tx, tl, sub in kids:
                c = worlds.m[w].SubElement(parent, t)
                c.text, c.tail = tx, tl
                stack.append((c, sub))
    worlds.add(roots)


def _same_outcome(fs: List[Callable[[], Any]]) -> Any:
    res, err = [None, None], [None, None]
    for w in (0, 1):
        try:
            res[w] = fs[w]()
        except Exception as e:  # noqa: BLE001 - compared below
            err[w] = e
    assert type(err[0]) is type(err[1]), (err[0], err[1])
    return res if err[0] is None else [None, None]


def _both(worlds: Worlds, f: Callable[[int, Any], Any]) -> Any:
    """Run ``f(w, model)`` in each world; same outcome, the results mapped to node indices."""
    res = _same_outcome([lambda w=w: f(w, worlds.m[w]) for w in (0, 1)])

    def conv(w: int, x: Any) -> Any:
        if isinstance(x, list):
            return [conv(w, y) for y in x]
        if isinstance(x, (str, int, bool, type(None), tuple)):
            return x
        return worlds.index(w, x)
    assert conv(0, res[0]) == conv(1, res[1])
    return res


PATHS = [".//p", "p", "*", ".//*", "a/b", ".//div/p", ".//a[@id]", "b[1]", "b[last()]", ".//p[@class]",
         "..", "./a", ".//b//a", "div[p]", "a[@x='v1']", ".//b[.='t3']"]


def _query(worlds: Worlds, data: Any) -> None:
    n = len(worlds.nodes[0])
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(0, n - 1))
    tags = data.draw(st.lists(st.sampled_from(TAGS + ["*"]), max_size=2))
    kind = data.draw(st.sampled_from([
        "iter", "iterdescendants", "iterchildren", "iterchildren_rev", "itersiblings", "itersiblings_prec",
        "iterancestors", "itertext", "itertext_notail", "text_content", "len", "index", "find", "contains",
        "getitem", "slice", "reversed", "get", "keys", "bool",
    ]))
    k = data.draw(st.integers(-4, 4))
    s = slice(data.draw(st.integers(-3, 3)), data.draw(st.integers(-3, 4)))
    path = data.draw(st.sampled_from(PATHS))
    key = data.draw(st.sampled_from(["id", "class", "x", "nope"]))

    def q(w: int, m: Any) -> Any:
        a, other = worlds.nodes[w][i], worlds.nodes[w][j]
        if kind == "iter":
            return list(a.iter(*tags))
        if kind == "iterdescendants":
            return list(a.iterdescendants(*tags))
        if kind == "iterchildren":
            return list(a.iterchildren(*tags))
        if kind == "iterchildren_rev":
            return list(a.iterchildren(*tags, reversed=True))
        if kind == "itersiblings":
            return list(a.itersiblings(*tags))
        if kind == "itersiblings_prec":
            return list(a.itersiblings(*tags, preceding=True))
        if kind == "iterancestors":
            return list(a.iterancestors(*tags))
        if kind == "itertext":
            return list(a.itertext(*tags))
        if kind == "itertext_notail":
            return list(a.itertext(*tags, with_tail=False))
        if kind == "text_content":
            return a.text_content()
        if kind == "len":
            return len(a)
        if kind == "index":
            return a.index(other)
        if kind == "find":
            return [a.findall(path), a.find(path), list(a.iterfind(path))]
        if kind == "contains":
            return other in a
        if kind == "getitem":
            return a[k]
        if kind == "slice":
            return a[s]
        if kind == "reversed":
            return list(reversed(a))
        if kind == "get":
            return [a.get(key), a.get(key, "dflt"), key in a.attrib, a.attrib.get(key)]
        if kind == "keys":
            return [a.keys(), a.values(), a.items(), len(a.attrib)]
        return bool(a)
    _both(worlds, q)


def _loop(worlds: Worlds, data: Any) -> None:
    """Mutate while iterating: the lookahead decides what is visited."""
    n = len(worlds.nodes[0])
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(0, n - 1))
    tags = data.draw(st.lists(st.sampled_from(TAGS), max_size=2))
    how = data.draw(st.sampled_from(["iter", "iterdescendants", "children", "reversed", "iterchildren",
                                     "itersiblings", "iterancestors"]))
    action = data.draw(st.sampled_from(["delete", "drop_tree", "rename", "move", "strip", "remove_next",
                                        "drop_tag", "delete_parent", "append_new", "strip_elements"]))

    def run(w: int, m: Any) -> List[Any]:
        el, target = worlds.nodes[w][i], worlds.nodes[w][j]
        return mutate_while_iterating(element_iterator(el, how, tags), action, target, m,
                                      on_new=worlds_new[w].append)

    worlds_new: List[List[Any]] = [[], []]
    _both(worlds, lambda w, m: _conv_seen(worlds, w, run(w, m)))
    for a, b in zip(*worlds_new):
        worlds.add((a, b))


def _conv_seen(worlds: Worlds, w: int, seen: List[Any]) -> List[Any]:
    # nodes made inside the loop are not tracked yet: name them by tag
    out = []
    for x in seen:
        if isinstance(x, str):
            out.append(x)
        else:
            i = worlds._pos[w].get(id(x))
            out.append(i if i is not None and worlds.nodes[w][i] is x else ("new", x.tag))
    return out


def _mutate(worlds: Worlds, data: Any) -> None:
    n = len(worlds.nodes[0])
    i = data.draw(st.integers(0, n - 1))
    j = data.draw(st.integers(0, n - 1))
    k = data.draw(st.integers(-5, 5))
    r = data.draw(st.integers(0, n - 1))
    ks = data.draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True))
    s = slice(data.draw(st.integers(-3, 3)), data.draw(st.integers(-3, 4)),
              data.draw(st.sampled_from([None, None, 1, 2, -1])))
    op = data.draw(st.sampled_from([
        "append", "insert", "remove", "replace", "addnext", "addprevious", "delitem", "delslice", "setitem",
        "setslice", "extend", "clear", "clear_keep", "drop_tree", "drop_tag", "strip_tags", "strip_elements",
        "strip_elements_keep", "text", "tail", "copy", "new", "set", "set_none", "pop", "attrib_clear",
        "attrib_del", "tag", "makeelement", "remove_first", "subelement",
    ]))
    tags = data.draw(st.lists(st.sampled_from(TAGS + ["*", "nope"]), min_size=0, max_size=2))
    use_tree = data.draw(st.booleans())
    text = _text(data)
    key = data.draw(st.sampled_from(["id", "class", "x", "y"]))
    value = f"v{next(_counter)}"
    tag = data.draw(st.sampled_from(TAGS + ["section", "é"]))
    if os.environ.get("DOM_TRACE"):
        print("  op", op, i, j, k, flush=True)
    new_nodes: List[Any] = [None, None]

    def run(w: int, m: Any) -> Any:
        nodes = worlds.nodes[w]
        a, c = nodes[i], nodes[j]
        if op == "append":
            return a.append(c)
        if op == "insert":
            return a.insert(k, c)
        if op == "remove":
            return a.remove(c)
        if op == "remove_first":
            return a.remove(a[0]) if len(a) else None
        if op == "replace":
            return a.replace(nodes[r], c)
        if op == "addnext":
            return a.addnext(c)
        if op == "addprevious":
            return a.addprevious(c)
        if op == "delitem":
            del a[k]
            return None
        if op == "delslice":
            del a[s]
            return None
        if op == "setitem":
            a[k] = c
            return None
        if op == "setslice":
            a[s] = [nodes[x] for x in ks]
            return None
        if op == "extend":
            return a.extend([nodes[x] for x in ks])
        if op == "clear":
            return a.clear()
        if op == "clear_keep":
            return a.clear(keep_tail=True)
        if op == "drop_tree":
            return a.drop_tree()
        if op == "drop_tag":
            return a.drop_tag()
        if op in ("strip_tags", "strip_elements", "strip_elements_keep"):
            t = a.getroottree() if use_tree else a
            if op == "strip_tags":
                return m.strip_tags(t, *tags)
            return m.strip_elements(t, *tags, with_tail=op == "strip_elements")
        if op == "text":
            a.text = text
            return None
        if op == "tail":
            a.tail = text
            return None
        if op == "copy":
            new_nodes[w] = copy.deepcopy(a) if use_tree else copy.copy(a)
            return None
        if op == "new":
            return None
        if op == "makeelement":
            new_nodes[w] = a.makeelement("p", {"k": "v"})
            return None
        if op == "subelement":
            new_nodes[w] = m.SubElement(a, tag, {"k": value})
            return None
        if op == "set":
            return a.set(key, value)
        if op == "set_none":
            return a.set(key, None)
        if op == "pop":
            return a.attrib.pop(key, None)
        if op == "attrib_clear":
            return a.attrib.clear()
        if op == "attrib_del":
            del a.attrib[key]
            return None
        if op == "tag":
            a.tag = tag
            return None
        raise AssertionError(op)

    if op == "copy" and n > 300:  # repeated copies of a root grow the pool exponentially
        return
    if op == "new":
        _new_tree(worlds, data)
        return
    _both(worlds, run)
    if new_nodes[0] is not None or new_nodes[1] is not None:
        worlds.add(new_nodes)


@settings(max_examples=int(os.environ.get("DOM_EXAMPLES", "150")), deadline=None,
          suppress_health_check=list(HealthCheck), derandomize=not os.environ.get("DOM_RANDOM"))
@given(st.data())
def test_random_operation_sequences_match_reference(models: Any, data: Any) -> None:
    worlds = Worlds(models)
    for _ in range(data.draw(st.integers(1, 3))):
        _new_tree(worlds, data)
    worlds.check()
    for _ in range(data.draw(st.integers(1, 30))):
        step = data.draw(st.sampled_from(["mutate", "mutate", "query", "loop"]))
        if step == "mutate":
            _mutate(worlds, data)
        elif step == "query":
            _query(worlds, data)
        else:
            _loop(worlds, data)
        worlds.check()


# -- parsed documents ------------------------------------------------------------

PAGES = [
    "<!DOCTYPE html><html><head><title>t</title></head><body><div id='a' hidden>x<p>y<b>z</b>w</p>v</div>"
    "<p class=c>q</p></body></html>tail<p>second root</p>",
    "<div>a<b>b<i>i</i>x</b>t<u>u</u>v</div>",
    "<p>one<p>two<table><tr><td>cell</table>",
]


@pytest.mark.parametrize("html", PAGES)
@pytest.mark.parametrize("parse", ["fromstring", "document_fromstring", "parse_document"])
def test_parsed_views_match_reference(models: Any, html: str, parse: str) -> None:
    from trafila.treedump import dump_trafila_document

    ref, core = (getattr(m, parse)(html) for m in models)
    assert dump_trafila_document(ref) == dump_trafila_document(core)
    if parse != "parse_document":
        assert dump_element(ref) == dump_element(core)
        ops = [lambda m, r: m.strip_tags(r, "b"), lambda m, r: m.strip_elements(r, "i", with_tail=False),
               lambda m, r: [e.drop_tag() for e in r.iter("u")], lambda m, r: r.find(".//p") is not None
               and r.find(".//p").drop_tree()]
        for op in ops:
            op(models[0], ref)
            op(models[1], core)
            assert dump_trafila_document(ref) == dump_trafila_document(core)
    else:
        assert [e.tag for e in ref.iter()] == [e.tag for e in core.iter()]
        assert [e.tag for e in ref.findall(".//p")] == [e.tag for e in core.findall(".//p")]


# -- identity, lifetime ---------------------------------------------------------------

def test_proxy_identity(models: Any) -> None:
    core = models[1]
    root = core.fromstring("<div><p>a<b>b</b></p><p>c</p></div>")
    assert root[0] is root[0] and root[0][0].getparent() is root[0]
    assert root.getroottree() is root[0].getroottree()
    assert root.getroottree().getroot() is root.getroottree().getroot()
    kids = list(root)
    assert all(x is y for x, y in zip(kids, root.iterchildren()))
    assert root.find("p/b") is kids[0][0]
    # moved into another document: the same proxy, now in that document
    other = core.Element("section")
    b = kids[0][0]
    other.append(b)
    assert b.getparent() is other and other[0] is b and b.getroottree() is other.getroottree()
    assert [e.tag for e in root.iter()] == ["div", "p", "p"]
    # a copy is a new tree
    c = copy.copy(root)
    assert c is not root and c.getroottree() is not root.getroottree() and c.getroottree().getroot() is c


def test_detached_subtree_stays_usable(models: Any) -> None:
    core = models[1]
    root = core.fromstring("<div>x<p>a<b>b</b>bt</p>pt<i>i</i></div>")
    p = root[0]
    root.remove(p)
    doc = root.getroottree()
    del root
    gc.collect()
    # the proxy keeps the document alive; the subtree is whole, tail included
    assert p.getparent() is None and p.tail == "pt" and p.text_content() == "abbt"
    assert p.getroottree() is doc
    core.SubElement(p, "u").text = "new"
    p[0].tail = None
    assert [e.tag for e in p.iter()] == ["p", "b", "u"] and p.text_content() == "abnew"
    del doc
    gc.collect()
    # fromstring gave the <div> of an html/body document: its root is still <html>
    assert [e.tag for e in p.getroottree().getroot().iter()] == ["html", "body", "div", "i"]


def test_attribute_kinds(models: Any) -> None:
    ref, core = models
    for m in models:
        el = m.fromstring("<div hidden title='' class=c><input checked></div>")
        assert el.get("hidden") == "" and el.get("title") == "" and el.get("class") == "c"
        assert el[0].get("checked") == "checked"
        el.set("hidden", None)
        assert el.get("hidden") is m.NO_VALUE
    with pytest.raises(TypeError):
        core.Element("x").set("a", 1)


# -- memory failures --------------------------------------------------------------------

def _parse(core: Any) -> Any:
    return core.fromstring("<div>a<p>b<b>c</b>d</p>e<p>f" + "<i>x</i>y" * 50 + "</p></div>")


def _work(core: Any, root: Any) -> Any:
    other = core.Element("section", {"k": "v"})
    other.text = "é" * 100
    for e in list(root.iter("i"))[:10]:
        other.append(e)  # a move between documents: a copy, proxies repointed
    root.set("data-x", "y" * 300)
    copy.deepcopy(root)
    core.strip_tags(root, "b")
    core.strip_elements(root, "i", with_tail=False)
    root[0].drop_tag()
    root.text = "z" * 1000
    core.SubElement(root, "new-tag-name", {"a": "b" * 500})
    return other


def _consistent(root: Any) -> None:
    # every link agrees with its reverse, and the dumps can be made
    for e in root.iter():
        kids = list(e)
        assert all(k.getparent() is e for k in kids)
        assert all(a.getnext() is b and b.getprevious() is a for a, b in zip(kids, kids[1:]))
    dump_element(root)
    root.text_content()


def test_memory_errors_never_crash(models: Any) -> None:
    from trafila import _core

    core = models[1]
    parse_errors = op_errors = 0
    try:
        for n in range(0, 150):
            # failures inside the parser
            _core._fail_allocations_after(n)
            try:
                _parse(core)
            except MemoryError:
                parse_errors += 1
            finally:
                _core._fail_allocations_after(-1)
            # failures inside the element operations
            root = _parse(core)
            _core._fail_allocations_after(n)
            try:
                _work(core, root)
            except MemoryError:
                op_errors += 1
            finally:
                _core._fail_allocations_after(-1)
            _consistent(root)
    finally:
        _core._fail_allocations_after(-1)
    assert parse_errors > 0 and op_errors > 0
    root = _parse(core)
    other = _work(core, root)
    assert root.tag == "div" and len(other) == 10
    _consistent(root)
    _consistent(other)


# -- copies -----------------------------------------------------------------------------

def _garbage_tree(m: Any) -> Any:
    "A tree with interned names, every attribute kind, tails, empty texts and dead arena slices."
    root = m.fromstring("<div id=a hidden class=''>t<my-tag x-y=1>u<b>v</b>w</my-tag>x<p data-q='é'>ü"
                        + "<i>k</i>l" * 30 + "</p><!-- c -->tail<custom-el>z</custom-el></div>")
    root[0].text = ""
    root[1][3].tail = None
    for e in list(root[1].iter("i"))[:10]:
        e.drop_tree()  # text left behind in the arenas
    root.set("late-name", "v" * 40)
    m.SubElement(root, "another-new")
    return root


def test_copies_equal_the_reference_and_stay_independent(models: Any) -> None:
    dumps = []
    for m in models:
        root = _garbage_tree(m)
        before = dump_element(root)
        for kind in (copy.copy, copy.deepcopy):
            c = kind(root)
            assert dump_element(c) == before
            # writing to the copy (new names, texts, attributes) leaves the original alone
            c.text = "changed"
            c[0].set("x-y", "2")
            m.SubElement(c, "only-in-copy").text = "n"
            c.find(".//p").tail = "new tail"
            assert dump_element(root) == before
        # a small detached subtree and a subtree with its tail
        p = root.find(".//p")
        dumps.append((before, dump_element(copy.copy(p)), dump_element(copy.copy(root[0]))))
    assert dumps[0] == dumps[1]


def test_deep_copies_share_arenas_until_written(models: Any) -> None:
    """A deep copy of a page reads its text and value arenas without copying them; the first
    write to any of the documents sharing them gives that one its own (the others unchanged),
    whichever is written, copied again or freed first."""
    dumps = []
    for m in models:
        root = _garbage_tree(m)
        before = dump_element(root)
        c1 = copy.deepcopy(root)
        c2 = copy.deepcopy(c1)  # a third share of the same arenas
        c3 = copy.deepcopy(root)
        root.text = "the original written"
        root.find(".//p").set("data-q", "w")
        root.set("name-new-in-the-original", "v")  # a name interned: the name table written
        assert dump_element(c1) == dump_element(c2) == dump_element(c3) == before
        del root
        gc.collect()
        assert dump_element(c1) == before
        m.SubElement(c2, "late-new-tag").tail = "t" * 300  # past the shared arena's capacity
        c2[0].set("x-y", "v" * 300)
        assert dump_element(c1) == dump_element(c3) == before
        del c1
        gc.collect()
        c3.text = "the last share written"  # no other share left: its own again
        c3.find(".//p").tail = "u"
        c3.set("name-new-in-c3", "w")
        dumps.append((dump_element(c2), dump_element(c3)))
    assert dumps[0] == dumps[1]


def test_writes_to_a_shared_arena_under_memory_failures(models: Any) -> None:
    """The copy made by the first write to a shared arena can fail: MemoryError, the written
    document and the others whole."""
    from trafila import _core

    core = models[1]
    root = _garbage_tree(core)
    expected = dump_element(root)
    failed = done = 0
    try:
        for n in range(0, 16):
            c = copy.deepcopy(root)
            _core._fail_allocations_after(n)
            try:
                c.text = "x"
                c[0].set("x-y", "z")
                c.set("a-name-to-intern", "z")
            except MemoryError:
                failed += 1
            else:
                done += 1
            finally:
                _core._fail_allocations_after(-1)
            assert dump_element(root) == expected
            c.text = "y"  # still usable after a failure
            assert c.text == "y" and dump_element(root) == expected
            del c
            gc.collect()
    finally:
        _core._fail_allocations_after(-1)
    assert failed > 0 and done > 0


def test_copy_under_memory_failures_is_whole_or_raises(models: Any) -> None:
    from trafila import _core

    core = models[1]
    root = _garbage_tree(core)
    expected = dump_element(copy.deepcopy(root))
    whole = failed = 0
    try:
        for n in range(0, 40):
            _core._fail_allocations_after(n)
            try:
                c = copy.deepcopy(root)
            except MemoryError:
                failed += 1
                continue
            finally:
                _core._fail_allocations_after(-1)
            # the fast path gave up (or never failed): the node-by-node copy is the same
            assert dump_element(c) == expected
            whole += 1
    finally:
        _core._fail_allocations_after(-1)
    assert failed > 0 and whole > 0
    assert dump_element(root) == expected


def test_big_blocks_kept_only_during_an_extraction(models: Any) -> None:
    """The core keeps the blocks of 32 MiB or more that it frees while an extraction runs on
    the thread (for that extraction's next big allocations) and frees them when it ends; it
    keeps nothing outside one."""
    import sys

    from trafila import _core

    if not sys.platform.startswith("linux"):
        pytest.skip("the blocks are kept only where glibc tells their size")
    page = "<html><body><p>" + "x" * (40 << 20) + "</p></body></html>"
    assert _core._big_blocks_kept() == 0
    models[1].fromstring(page)  # no extraction running: its arenas freed at once
    gc.collect()
    assert _core._big_blocks_kept() == 0
    _core._big_blocks_enter()
    try:
        _core._big_blocks_enter()  # nested: the outer call's end frees them
        tree = models[1].fromstring(page)
        del tree
        gc.collect()
        _core._big_blocks_exit()
        kept = _core._big_blocks_kept()
        assert kept >= 1
        # the next big arena reuses a kept block instead of a fresh mapping
        tree = models[1].fromstring(page)
        assert _core._big_blocks_kept() < kept
        assert len(tree.text_content()) == 40 << 20
        del tree
        gc.collect()
    finally:
        _core._big_blocks_exit()
    assert _core._big_blocks_kept() == 0


def test_core_extraction_leaves_no_big_block_kept() -> None:
    import sys

    import trafila

    if "core" not in trafila.engines_built():
        pytest.skip("the core is not built")
    from trafila import _core

    if not sys.platform.startswith("linux"):
        pytest.skip("the blocks are kept only where glibc tells their size")
    core = trafila.engine("core")
    page = "<html><body><article><p>" + "Some words of a paragraph. " * (1_600_000) + "</p></article></body></html>"
    for compat in ("2.3.1", "1.11.0"):
        text = core.extract(page, compat=compat)
        assert text is not None and len(text) > 40_000_000
        assert _core._big_blocks_kept() == 0


def _many_names_page(m: Any) -> Any:
    """A page whose name table is big (600 attribute names on one element, 300 more tags),
    with enough other nodes that a copy of that element goes node by node."""
    root = m.Element("html")
    body = m.SubElement(root, "body")
    for k in range(300):
        m.SubElement(body, f"x-tag-{k}").text = str(k)
    wide = m.SubElement(body, "div")
    for k in range(600):
        wide.set(f"data-n{k}", str(k))
    m.SubElement(wide, "x-tag-7").tail = "tail"
    return root


def test_copies_from_a_page_of_many_names(models: Any) -> None:
    """A subtree copied out of a page with a big name table (its room made at once) has the
    same names as the reference's, in another document and under allocation failures; the
    names of the latest ids are read first (the name cache grows by the ids asked for)."""
    from trafila import _core

    dumps = []
    for m in models:
        root = _many_names_page(m)
        wide = root.find(".//div")
        assert wide.get("data-n599") == "599" and root[0][-1].tag == "div"
        out = m.Element("doc")
        out.append(copy.deepcopy(wide))
        m.SubElement(out, "after").set("data-n3", "own")
        dumps.append((dump_element(out), dump_element(root)))
    assert dumps[0] == dumps[1]
    core = models[1]
    root = _many_names_page(core)
    wide = root.find(".//div")
    failed = done = 0
    try:
        for n in range(0, 40):
            out = core.Element("doc")
            _core._fail_allocations_after(n)
            try:
                out.append(copy.deepcopy(wide))
            except MemoryError:
                failed += 1
            else:
                done += 1
                _core._fail_allocations_after(-1)
                assert dump_element(out[0]) == dump_element(wide)
            finally:
                _core._fail_allocations_after(-1)
    finally:
        _core._fail_allocations_after(-1)
    assert dump_element(root) == dumps[1][1]
    assert failed > 0 and done > 0
