"""The core's accelerators for 1.11.0's main extractor (accel_extract_1_11_0.pxi,
and the core walks its handlers use) against the reference Python of 1.11.0,
run on copies of the same core tree (the Python path forced by hiding the
core from the handlers): the results (None, the element itself, or the
exception) and the whole tree afterwards must be the same, on generated trees
(whitespace of every kind, empty text against None, line-break elements,
characters lxml's setters refuse, the social-media filter's words, colspans)
and on corpus pages after 1.11.0's cleaning; then the whole extract_content /
extract_comments stage both ways."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from tests._helpers import NO_CORE

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend, _engine  # noqa: E402
from trafila.treedump import dump_element  # noqa: E402
from trafila.v1_11_0 import htmlprocessing as hp  # noqa: E402
from trafila.v1_11_0 import main_extractor as me  # noqa: E402
from trafila.v1_11_0.settings import TAG_CATALOG, Extractor  # noqa: E402
from trafila.v1_11_0.xpaths import root_of_document  # noqa: E402
from trafila.v2_3_1._tree import copy_tree, desc_list  # noqa: E402

from ._helpers import DEDUP_TEXT, core_switched_off, dedup_handler_runs, needs_corpora, sample_pages  # noqa: E402

CORE = _engine.core_module()
BACKEND = _backend.core_backend(CORE)
OPTIONS = Extractor()
MODULES = (hp, me)


def python_path():
    "The handlers see no core: the reference code runs over the core's elements."
    return core_switched_off(MODULES)


def _outcome(call, el, els):
    try:
        res = call(el)
    except (ValueError, TypeError) as err:
        return (type(err).__name__, str(err))
    if res is None or res == "skip":
        return res
    if res is el:
        return "self"
    return ("other", els.index(res) if res in els else dump_element(res))


def run_both(tree, call):
    """``call(el)`` on every element of a copy of ``tree`` in document order,
    once by the reference code and once by the core: (outcomes, dump) each."""
    out = []
    for reference in (True, False):
        t = copy_tree(tree)
        els = [t, *desc_list(t)]
        with python_path() if reference else contextlib.nullcontext():
            outcomes = [_outcome(call, el, els) for el in els]
        out.append((outcomes, dump_element(t)))
    return out


HANDLERS = {
    "process_node": lambda el: hp.process_node(el, OPTIONS),
    "textnode": lambda el: hp.handle_textnode(el, OPTIONS),
    "textnode-nofix": lambda el: hp.handle_textnode(el, OPTIONS, comments_fix=False),
    "textnode-spaces": lambda el: hp.handle_textnode(el, OPTIONS, comments_fix=False, preserve_spaces=True),
    "textnode-fix-spaces": lambda el: hp.handle_textnode(el, OPTIONS, preserve_spaces=True),
    "table": lambda el: me.handle_table(el, set(TAG_CATALOG) | {"table"}, OPTIONS) if el.tag == "table" else "skip",
}
for _name, _tags in {
    "catalog": set(TAG_CATALOG),
    "catalog+ref": set(TAG_CATALOG) | {"ref", "div", "graphic", "table"},
    "no-inline": {"p", "head"},
}.items():
    HANDLERS[f"paragraphs-{_name}"] = (
        lambda el, _t=_tags: me.handle_paragraphs(el, _t, OPTIONS) if el.tag == "p" else "skip"
    )
    HANDLERS[f"textelem-{_name}"] = lambda el, _t=_tags: me.handle_textelem(el, set(_t), OPTIONS)


def core_tree(html):
    with _backend.use(BACKEND):
        return CORE.dom.fromstring(html)


def check_max_cols(tree):
    "ex111_table_max_cols against handle_table's Python loop, from every element."
    for el in [tree, *desc_list(tree)]:
        try:
            want = 0
            for tr in el.iter("tr"):
                want = max(want, sum(int(td.get("colspan", 1)) for td in tr.iter("td", "th")))
        except ValueError:
            want = ValueError
        got = CORE.ex111_table_max_cols(el)
        if got is NotImplemented:
            continue
        assert got == want


def check_p_stats(tree):
    "ex111_p_text_stats against _p_text_nodes (the whole document, also from a detached subtree)."
    pt = me._p_text_nodes(tree)
    assert CORE.ex111_p_text_stats(root_of_document(tree)) == (len(pt), len("".join(pt)))
    t = copy_tree(tree)
    els = desc_list(t)
    if els:
        el = els[len(els) // 2]
        el.getparent().remove(el)
        for e in (t, el):
            pt = me._p_text_nodes(e)
            assert CORE.ex111_p_text_stats(root_of_document(e)) == (len(pt), len("".join(pt)))


def check_text_elements(tree):
    """ex111_text_elements: the dispatched descendants; without plain divs, the divs
    whose class has "w3-code" (a valueless class may stay: the handler decides)."""
    for el in [tree, *desc_list(tree)][:40]:
        every = [e for e in desc_list(el) if e.tag in me._DISPATCHED]
        assert CORE.ex111_text_elements(el, me._DISPATCHED, True) == every
        got = CORE.ex111_text_elements(el, me._DISPATCHED, False)
        strict = [e for e in every if e.tag != "div" or "w3-code" in str(e.get("class") or "")]
        assert [e for e in got if e in strict] == strict and [e for e in every if e in got] == got
        assert all(e in strict or e.get("class") == "" for e in got)


def check(tree):
    check_max_cols(tree)
    check_text_elements(tree)
    with _backend.use(BACKEND):
        check_p_stats(tree)
    for name, call in HANDLERS.items():
        with _backend.use(BACKEND):
            ref, core = run_both(tree, call)
        assert ref == core, name


def test_the_core_path_is_taken(monkeypatch):
    calls = []
    for fname in ("ex111_process_node", "ex111_handle_textnode", "ex111_table_max_cols"):
        real = getattr(CORE, fname)
        monkeypatch.setattr(CORE, fname, lambda *a, _r=real, _n=fname: calls.append(_n) or _r(*a))
    check(core_tree("<html><body><p> a  b </p><lb/>tail<hi>x</hi><table><tr><td>c</td></tr></table></body></html>"))
    assert {"ex111_process_node", "ex111_handle_textnode", "ex111_table_max_cols"} <= set(calls)


def test_the_comparison_can_fail(monkeypatch):
    # a C path that keeps every element (no filter) must be caught
    monkeypatch.setattr(CORE, "ex111_process_node", lambda el, match: el)
    with pytest.raises(AssertionError):
        check(core_tree("<html><body><p>Facebook</p></body></html>"))


def test_the_paragraph_comparison_can_fail(monkeypatch):
    # a C paragraph that forgets to mark its children done must be caught
    real = CORE.ex111_paragraph

    def forgetful(el, out, tags, tf):
        saved = [c.tag for c in el]
        res = real(el, out, tags, tf)
        for c, tag in zip(el, saved):
            c.tag = tag
        return res
    monkeypatch.setattr(CORE, "ex111_paragraph", forgetful)
    with pytest.raises(AssertionError):
        check(core_tree("<html><body><p>a<hi rend='#b'>b</hi>c</p></body></html>"))


def test_the_comparison_can_fail_on_empty_text(monkeypatch):
    # 2.3.1's semantics (whitespace-only text becomes None) must be caught
    monkeypatch.setattr(CORE, "ex111_process_node", CORE.extract_process_node)
    with pytest.raises(AssertionError):
        check(core_tree("<html><body><p> </p>x<lb> </lb>y</body></html>"))


@pytest.mark.parametrize("handler", ["process_node", "handle_textnode"])
def test_dedup_counts_after_the_c_handler(monkeypatch, handler):
    """With deduplication the C handler still runs; the element it keeps is counted in the
    module cache once per call, and from the fourth on (a text over 100 characters) dropped."""
    from trafila.v1_11_0 import deduplication

    cache = deduplication.LRUCache(maxsize=8)
    previous = deduplication.set_module_cache(cache)
    try:
        options = Extractor(dedup=True)
        results = dedup_handler_runs(monkeypatch, CORE, "ex111_" + handler, getattr(hp, handler), core_tree, options)
        assert [r is None for r in results] == [False, False, False, True]
        assert cache.get(DEDUP_TEXT.strip()) == 4
        if handler == "handle_textnode":
            # a line break kept without comments_fix returns before the count
            el = core_tree("<p>x<lb/> tail </p>")[0]
            assert hp.handle_textnode(el, options, comments_fix=False) is el
            assert cache.get("tail") == -1
    finally:
        deduplication.set_module_cache(previous)


def test_max_cols_values():
    t = core_tree("<table><tr><td colspan='3'>a</td><th>b</th></tr><tr><td colspan='002'></td></tr></table>")
    assert CORE.ex111_table_max_cols(t) == 4
    assert CORE.ex111_table_max_cols(core_tree("<div>x</div>")) == 0
    for odd in ("' 2'", "'+2'", "''", "'2x'", "'\u0662'", "'1_0'", "'9999999999'"):
        t = core_tree(f"<table><tr><td colspan={odd}>a</td></tr></table>")
        assert CORE.ex111_table_max_cols(t) is NotImplemented


FIXED = [
    "<html><body><p>  Hello \u00a0 world\u2028x </p>tail  end<div>\n\t</div> \u3000 </body></html>",
    "<html><body><p></p><p>Facebook</p><p> \u2022 Twitter </p><p>Mehr zum Thema:</p><p>More on this story</p></body></html>",
    "<html><body><lb></lb>  after  <hi>x</hi><lb></lb><ref>r</ref><lb/>  <done>d</done>t<graphic src='a.jpg'/>g</body></html>",
    "<html><body><div><p>a</p>  b  <p>\u0085c\u200ad\u200be</p></div><p>PDF</p>x<p>QQ</p>y</body></html>",
    "<html><body><p>&#1;bad</p>t&#2;<p>x</p>&#28;y<p> &#11;z</p><lb/>&#12; q </body></html>",
    "<html><body><p>\u017fhare</p><p>__print__</p><p>...Drucken</p><p>E-Mail \u00a0</p><p>\u0130nstagram</p></body></html>",
    "<html><body><p> <hi>x</hi> </p> Facebook <lb> </lb> <div> <p> </p> t </div> y</body></html>",
    "<html><body><table><tr><th colspan=2>h</th><td> c <p>x</p> d</td></tr><tr><td><table><tr><td>n</td>"
    "</tr></table></td><td colspan=x>q</td></tr></table></body></html>",
]


@pytest.mark.parametrize("html", FIXED)
def test_fixed_trees(html):
    check(core_tree(html))


WORDS = st.sampled_from([
    "a", "word", " ", "  ", "\n", "\t", "\u00a0", "\u2028", "\u3000", "\u200b", "\u0085", "&#28;", "&#1;",
    "&#11;", "\u00e9", "\u4e2d", "Facebook", "print", "E-Mail", "PDF", "More on this", "Mehr zum Thema:",
    "\u2022", "-", "_", "\u212a", "\U0001f600",
])
TEXT = st.lists(WORDS, max_size=5).map("".join)
TAGS = st.sampled_from(["p", "lb", "hi", "ref", "done", "head", "div", "list", "item", "code", "del", "graphic",
                        "table", "tr", "td", "th", "span", "quote"])
ATTRS = st.sampled_from(["", " rend='#b'", " colspan='2'", " colspan='x'", " class='w3-code'", " target='t'",
                         " colspan=''", " rend=''", " class='a w3-codex'", " class", " class='w3-cod'"])


def _node():
    return st.recursive(
        st.tuples(TAGS, TEXT, TEXT, ATTRS, st.just(())),
        lambda kids: st.tuples(TAGS, TEXT, TEXT, ATTRS, st.lists(kids, max_size=3).map(tuple)),
        max_leaves=8,
    )


def _html(node):
    tag, text, tail, attrs, kids = node
    return f"<{tag}{attrs}>{text}{''.join(_html(k) for k in kids)}</{tag}>{tail}"


@settings(max_examples=250, deadline=None)
@given(st.lists(_node(), min_size=1, max_size=4), TEXT)
def test_generated_trees(nodes, lead):
    check(core_tree(f"<html><body><div>{lead}{''.join(_html(n) for n in nodes)}</div></body></html>"))


LEAF = st.tuples(st.sampled_from(["lb", "hi", "ref", "del", "code", "done", "graphic", "span", "p", "head"]),
                 TEXT, TEXT,
                 st.sampled_from(["", " rend='#b'", " title='t' class='c' rend=''", " alt=a&#1;b rend=x", " target",
                                  " target='&#2;'", " rend='&#1;'"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, st.lists(LEAF, min_size=1, max_size=5)), min_size=1, max_size=3), TEXT)
def test_generated_paragraphs(paras, lead):
    body = "".join(
        f"<p>{text}" + "".join(f"<{t}{attrs}>{a}</{t}>{b}" for t, a, b, attrs in kids) + f"</p>{tail}"
        for text, tail, kids in paras
    )
    check(core_tree(f"<html><body><div>{lead}{body}</div></body></html>"))


@needs_corpora
def test_corpus_pages():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl", "msv-big9-chaos", "fundus", "cleaneval"), 6):
        if "str" not in page.forms():
            continue
        with _backend.use(BACKEND):
            try:
                tree = CORE.dom.fromstring(page.input("str"))
                tree = hp.tree_cleaning(tree, OPTIONS)
            except ValueError:  # lxml refuses a str with an encoding declaration, or a character
                continue
            tree = hp.convert_tags(tree, OPTIONS)
        check(tree)
        compared += 1
    assert compared >= 50


STAGE_OPTIONS = {
    "default": Extractor(),
    "recall": Extractor(recall=True),
    "precision": Extractor(precision=True),
    "links-images": Extractor(links=True, images=True, tables=False),
    "min-size": Extractor(),
    "fast": Extractor(fast=True),
}
STAGE_OPTIONS["min-size"].min_extracted_size = 10000  # the recovery pass runs on most pages


def stage_both(tree, options):
    "extract_content (and extract_comments) on copies of a cleaned tree, by the reference code and by the core."
    out = []
    for reference in (True, False):
        with _backend.use(BACKEND), (python_path() if reference else contextlib.nullcontext()):
            try:
                body, text, _ = me.extract_content(copy_tree(tree), options)
                result = (dump_element(body), text)
            except (ValueError, TypeError, AttributeError) as err:  # a refused value: both must raise
                result = (type(err).__name__, str(err))
            try:
                comments, ctext, _, _ = me.extract_comments(copy_tree(tree), options)
                result += (dump_element(comments), ctext)
            except (ValueError, TypeError, AttributeError) as err:
                result += (type(err).__name__, str(err))
            out.append(result)
    return out


def cleaned(html, options):
    with _backend.use(BACKEND):
        try:
            tree = CORE.dom.fromstring(html)
            tree = hp.tree_cleaning(tree, options)
        except ValueError:  # lxml refuses a str with an encoding declaration, or a character
            return None
        return hp.convert_tags(tree, options)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, st.lists(LEAF, min_size=0, max_size=4)), min_size=1, max_size=4),
       st.lists(_node(), max_size=3), TEXT)
def test_generated_extraction(paras, nodes, lead):
    body = "".join(
        f"<p>{text}" + "".join(f"<{t}{attrs}>{a}</{t}>{b}" for t, a, b, attrs in kids) + f"</p>{tail}"
        for text, tail, kids in paras
    )
    html = f"<html><body><article>{lead}{body}{''.join(_html(n) for n in nodes)}</article></body></html>"
    for name, options in STAGE_OPTIONS.items():
        tree = cleaned(html, options)
        if tree is not None:
            ref, core = stage_both(tree, options)
            assert ref == core, name


@needs_corpora
def test_corpus_extraction():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl", "msv-big9-chaos", "fundus", "cleaneval"), 5):
        if "str" not in page.forms():
            continue
        for name, options in STAGE_OPTIONS.items():
            tree = cleaned(page.input("str"), options)
            if tree is None:
                break
            ref, core = stage_both(tree, options)
            assert ref == core, (page.id, name)
            compared += 1
    assert compared >= 200


def _walk_run(tree, names, use_core):
    """handle_table's loop shape: the elements met (their dumps) by a live walk whose
    body moves a child of some into another tree, removes one of others, and renames
    every element "done"; then the tree."""
    met = []
    top = tree
    walk = CORE.ex111_skip_walk(top, names) if use_core else top.iterdescendants()
    for el in walk:
        if el.tag not in names:
            el.tag = "done"
            continue
        met.append((el.tag, el.text))
        if el.tag == "td" and len(el):
            holder = me.Element("p")
            holder.append(el[0])
        elif el.tag == "tr" and len(el) > 1:
            el.remove(el[-1])
        elif el.tag == "table":
            break
        el.tag = "done"
    return met, dump_element(tree)


WALK_TAGS = st.sampled_from(["table", "tr", "td", "th", "p", "hi", "div", "lb"])


def _walk_node():
    return st.recursive(
        st.tuples(WALK_TAGS, TEXT, st.just(())),
        lambda kids: st.tuples(WALK_TAGS, TEXT, st.lists(kids, max_size=3).map(tuple)),
        max_leaves=10,
    )


def _walk_html(node):
    tag, text, kids = node
    return f"<{tag}>{text}{''.join(_walk_html(k) for k in kids)}</{tag}>"


@settings(max_examples=300, deadline=None)
@given(st.lists(_walk_node(), min_size=1, max_size=3), st.sets(WALK_TAGS, max_size=4))
def test_skip_walk(nodes, names):
    html = f"<html><body><div>{''.join(_walk_html(n) for n in nodes)}</div></body></html>"
    names = tuple(sorted(names))
    with _backend.use(BACKEND):
        tree = core_tree(html)
        for start in [tree, *desc_list(tree)][:6]:
            runs = []
            for use_core in (False, True):
                t = copy_tree(tree)
                el = [t, *desc_list(t)][[tree, *desc_list(tree)].index(start)]
                runs.append(_walk_run(el, names, use_core) + (dump_element(t),))
            assert runs[0] == runs[1]
