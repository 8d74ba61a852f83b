"""The core's C loops for 1.11.0's handle_table (ex111_table: rows, childless cells, the
live walk resumed after each cell with children) and extract_comments' loop
(ex111_comments_loop) against the reference Python of 1.11.0 on copies of the same core
tree: nested tables, headers, colspans, lists in cells (recall), refs in cells that
handle_formatting moves into a new <p> (the walk then goes on in that tree), lb/p/div
children, empty against None text, characters lxml's setters refuse; and the whole
extract_content / extract_comments stage both ways."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from tests._helpers import NO_CORE

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend  # noqa: E402
from trafila.v1_11_0 import main_extractor as me  # noqa: E402
from trafila.v1_11_0.settings import TAG_CATALOG, Extractor  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402
from .test_core_accel_extract_1_11_0 import (BACKEND, CORE, TEXT, cleaned, core_tree, run_both,  # noqa: E402
                                             stage_both)

TABLE_OPTIONS = {
    "default": Extractor(),
    "recall": Extractor(recall=True),
    "links": Extractor(links=True),
}
TABLE_TAGS = {
    "catalog+table": set(TAG_CATALOG) | {"table", "td", "th", "tr"},
    "links": set(TAG_CATALOG) | {"table", "td", "th", "tr", "ref", "graphic"},
    "divs": set(TAG_CATALOG) | {"table", "td", "th", "tr", "div", "ref"},
}


def check_tables(tree):
    "handle_table on every <table> of copies of ``tree``, both ways, for each option set and tag set."
    for oname, options in TABLE_OPTIONS.items():
        for tname, tags in TABLE_TAGS.items():
            def call(el, _o=options, _t=tags):
                return me.handle_table(el, set(_t), _o) if el.tag == "table" else "skip"
            with _backend.use(BACKEND):
                ref, core = run_both(tree, call)
            assert ref == core, (oname, tname)


def check_stage(html):
    for name, options in {"default": Extractor(), "recall": Extractor(recall=True),
                          "links": Extractor(links=True), "precision": Extractor(precision=True)}.items():
        tree = cleaned(html, options)
        if tree is not None:
            ref, core = stage_both(tree, options)
            assert ref == core, name


FIXED = [
    "<table><tr><th>h</th><th colspan=3>g</th></tr><tr><td> a </td><td></td><td>\u00a0</td></tr></table>",
    "<table><tr><td>x<table><tr><td>in</td></tr></table>after</td><td>y</td></tr><tr><td>z</td></tr></table>",
    "<table><tr><td><ref>link</ref> text</td><td>next</td></tr><tr><td>last</td></tr></table>",
    "<table><tr><td><hi>b</hi> t <lb/>u<p>para</p><list><item>i</item></list></td></tr><tr><th>h2</th></tr></table>",
    "<table><tr><td>Facebook</td><td>&#1;bad</td><td><p>&#2;x</p></td></tr></table>",
    "<table><td>orphan</td><tr></tr><tr><td><div class='w3-code'>c</div></td></tr><table><tr><td>n</td></tr></table></table>",
    "<table><tr><td><span>s</span><head>t</head><quote>q</quote></td></tr></table>",
]


@pytest.mark.parametrize("html", FIXED)
def test_fixed_tables(html):
    check_tables(core_tree(f"<html><body><div>{html}</div></body></html>"))
    check_stage(f"<html><body><article><p>intro text</p>{html}<p>outro</p></article></body></html>")


def test_the_core_loops_run(monkeypatch):
    calls = []
    for fname in ("ex111_table", "ex111_comments_loop", "ex111_fill_cell"):
        real = getattr(CORE, fname)
        monkeypatch.setattr(CORE, fname, lambda *a, _r=real, _n=fname: calls.append(_n) or _r(*a))
    check_stage("<html><body><article><p>a</p><table><tr><td>x</td><td><p>y</p></td></tr></table></article>"
                "<div class='comments'><p>a comment here</p><p>another one</p></div></body></html>")
    assert {"ex111_table", "ex111_comments_loop", "ex111_fill_cell"} <= set(calls)


def test_the_table_comparison_can_fail(monkeypatch):
    # a C loop that forgets the header role must be caught
    real = CORE.ex111_table

    def no_roles(table, out, *rest):
        res = real(table, out, *rest)
        for cell in out.iter("cell"):
            cell.attrib.pop("role", None)
        return res
    monkeypatch.setattr(CORE, "ex111_table", no_roles)
    with pytest.raises(AssertionError):
        check_tables(core_tree("<html><body><table><tr><th>h</th></tr><tr><td>d</td></tr></table></body></html>"))


def test_the_comments_comparison_can_fail(monkeypatch):
    # a loop that keeps the attributes must be caught
    def keeps(elems, body, tags, textfilter, step):
        for el in elems:
            if el.tag in tags:
                attrs = dict(el.attrib)
                before = len(body)
                step(el)
                if len(body) > before:
                    body[-1].attrib.update(attrs)
    monkeypatch.setattr(CORE, "ex111_comments_loop", keeps)
    with pytest.raises(AssertionError):
        check_stage("<html><body><article><p>x</p><p>y</p></article><div class='comments'>"
                    "<p class='c'>a comment</p></div></body></html>")


CELL_KIDS = st.sampled_from(["hi", "ref", "lb", "p", "div", "list", "item", "head", "span", "table", "td", "th",
                             "tr", "quote", "code", "graphic", "done", "del"])
CELL_ATTRS = st.sampled_from(["", " colspan='2'", " colspan='x'", " rend='#b'", " class='w3-code'", " target='t'"])


def _cell_node():
    return st.recursive(
        st.tuples(CELL_KIDS, TEXT, TEXT, CELL_ATTRS, st.just(())),
        lambda kids: st.tuples(CELL_KIDS, TEXT, TEXT, CELL_ATTRS, st.lists(kids, max_size=3).map(tuple)),
        max_leaves=6,
    )


def _html(node):
    tag, text, tail, attrs, kids = node
    return f"<{tag}{attrs}>{text}{''.join(_html(k) for k in kids)}</{tag}>{tail}"


CELL = st.tuples(st.sampled_from(["td", "th"]), CELL_ATTRS, TEXT, st.lists(_cell_node(), max_size=2), TEXT)
ROW = st.lists(CELL, max_size=4)


def _table(rows, lead):
    out = [f"<table>{lead}"]
    for row in rows:
        out.append("<tr>")
        for tag, attrs, text, kids, tail in row:
            out.append(f"<{tag}{attrs}>{text}{''.join(_html(k) for k in kids)}</{tag}>{tail}")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


@settings(max_examples=200, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=4), TEXT, st.booleans())
def test_generated_tables(rows, lead, nest):
    html = _table(rows, lead)
    if nest:
        html = _table([[("td", "", "outer", [], "")]], "").replace("outer", "outer" + html)
    check_tables(core_tree(f"<html><body><div>{html}</div></body></html>"))


@settings(max_examples=80, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=3), TEXT, st.lists(TEXT, max_size=3))
def test_generated_stage(rows, lead, comments):
    cm = "".join(f"<p>{c}</p><lb/>{c}" for c in comments)
    check_stage(f"<html><body><article><p>{lead}</p>{_table(rows, lead)}</article>"
                f"<div id='comments'>{cm}</div></body></html>")


@needs_corpora
def test_corpus_tables():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl", "msv-big9-chaos", "fundus", "cleaneval"), 10):
        if "str" not in page.forms() or "<table" not in page.input("str"):
            continue
        tree = cleaned(page.input("str"), Extractor())
        if tree is None:
            continue
        check_tables(tree)
        compared += 1
        if compared == 40:
            break
    assert compared >= 20


def test_the_textelem_loop_runs_both_ways(monkeypatch):
    "_extract's list and recover_wild_text's appends go through ex111_textelem_loop."
    seen = []
    real = CORE.ex111_textelem_loop
    monkeypatch.setattr(CORE, "ex111_textelem_loop", lambda *a: seen.append(a[-1] is None) or real(*a))
    html = ("<html><body><article><p>a <hi rend='#b'>b</hi> c</p><lb/>tail text<p>x</p></article>"
            "<div><p>wild</p></div></body></html>")
    for options in (Extractor(), Extractor(recall=True)):
        options.min_extracted_size = 10000  # the recovery runs
        tree = cleaned(html, options)
        ref, core = stage_both(tree, options)
        assert ref == core
    assert True in seen and False in seen


def test_the_textelem_comparison_can_fail(monkeypatch):
    # a loop that drops the <lb> paragraphs must be caught
    real = CORE.ex111_textelem_loop

    def no_lb(elems, tags, fm, tf, new_p, step, body):
        return real([e for e in elems if e.tag != "lb"], tags, fm, tf, new_p, step, body)
    monkeypatch.setattr(CORE, "ex111_textelem_loop", no_lb)
    with pytest.raises(AssertionError):
        check_stage("<html><body><article><p>one</p><lb/>the tail of a line break<p>two</p></article></body></html>")


LINES = st.lists(st.tuples(st.sampled_from(["p", "lb", "div", "hi", "done", "list", "head", "quote"]), TEXT, TEXT,
                           st.sampled_from(["", " rend='#b'", " class='w3-code'", " class='x'"])),
                 min_size=1, max_size=6)


@settings(max_examples=120, deadline=None)
@given(LINES, LINES, st.booleans())
def test_generated_text_elements(first, second, nest):
    def part(items):
        return "".join(f"<{t}{a}>{x}</{t}>{y}" if not nest or t != "p" else f"<{t}{a}>{x}<hi>{y}</hi><lb/>{y}</{t}>"
                       for t, x, y, a in items)
    html = f"<html><body><article>{part(first)}</article><section>{part(second)}</section></body></html>"
    check_stage(html)
    for options in (Extractor(), Extractor(recall=True)):
        options.min_extracted_size = 10000
        tree = cleaned(html, options)
        if tree is not None:
            ref, core = stage_both(tree, options)
            assert ref == core


def test_the_cell_comparison_can_fail(monkeypatch):
    # a cell walk that loses the last sub-element it made must be caught
    real = CORE.ex111_fill_cell

    def loses(sub, new, *rest):
        res = real(sub, new, *rest)
        if len(new):
            new.remove(new[-1])
        return res
    monkeypatch.setattr(CORE, "ex111_fill_cell", loses)
    with pytest.raises(AssertionError):
        check_tables(core_tree("<html><body><table><tr><td>x<hi>a</hi>b</td></tr></table></body></html>"))
