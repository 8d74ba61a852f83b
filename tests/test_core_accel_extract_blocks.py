"""The core's block handlers of 2.3.1's main extractor (accel_extract.pxi:
``extract_table``, handle_table's rows, spans and childless cells in C, the
other cells through ``_fill_cell``) against the reference Python, run on
copies of the same core tree (the Python path forced by hiding the core from
the handlers): the handler's result and the whole source tree afterwards must
be the same, with and without deduplication (the LRU cache reset before each
run, so that its counts are compared too), on generated tables (nested
tables, lists and paragraphs in cells, tables in lists, empty cells, tails,
orphan cells, captions, colspan/rowspan values of every kind) and on corpus
pages after 2.3.1's cleaning."""

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
from trafila.v2_3_1 import deduplication as dd  # noqa: E402
from trafila.v2_3_1 import htmlprocessing as hp  # noqa: E402
from trafila.v2_3_1 import main_extractor as me  # noqa: E402
from trafila.v2_3_1._tree import copy_tree, desc_list  # noqa: E402
from trafila.v2_3_1.settings import TAG_CATALOG, Extractor  # noqa: E402

from ._helpers import core_switched_off, needs_corpora, sample_pages  # noqa: E402

CORE = _engine.core_module()
BACKEND = _backend.core_backend(CORE)
MODULES = (hp, me)
OPTIONS = {
    "default": Extractor(),
    "recall": Extractor(recall=True),
    "dedup": Extractor(dedup=True),
}
TAGSETS = {
    "tables": set(TAG_CATALOG) | {"table", "td", "th", "tr"},
    "tables-div-ref": set(TAG_CATALOG) | {"table", "td", "th", "tr", "div", "ref", "graphic"},
}


def python_path():
    "The handlers see no core: the reference code runs over the core's elements."
    return core_switched_off(MODULES)


def _tables_outcomes(tree, options, tags):
    "handle_table on each table of the tree in document order (the main loop's order)."
    out = []
    for el in [tree, *desc_list(tree)]:
        if el.tag != "table":
            continue
        try:
            res = me.handle_table(el, tags, options)
        except ValueError as err:
            out.append(("ValueError", str(err)))
            continue
        out.append(None if res is None else dump_element(res))
    return out


def run_both(tree, options, tags):
    out = []
    for reference in (True, False):
        t = copy_tree(tree)
        cache = dd.LRUCache(maxsize=dd.LRU_SIZE)
        previous = dd.set_module_cache(cache)
        try:
            with python_path() if reference else contextlib.nullcontext():
                outcomes = _tables_outcomes(t, options, tags)
        finally:
            dd.set_module_cache(previous)
        out.append((outcomes, dump_element(t), list(cache.cache.items())))
    return out


def core_tree(html):
    with _backend.use(BACKEND):
        return CORE.dom.fromstring(html)


def cleaned(html, options):
    with _backend.use(BACKEND):
        try:
            tree = CORE.dom.fromstring(html)
        except ValueError:
            return None
        try:
            tree = hp.tree_cleaning(tree, options)
        except ValueError:
            return None
        return hp.convert_tags(tree, options)


def check(tree):
    for oname, options in OPTIONS.items():
        for tname, tags in TAGSETS.items():
            with _backend.use(BACKEND):
                ref, core = run_both(tree, options, tags)
            assert ref == core, (oname, tname)


def check_html(html):
    for options in (OPTIONS["default"],):
        tree = cleaned(html, options)
        if tree is not None:
            check(tree)
    check(core_tree(html))


def test_the_core_path_is_taken(monkeypatch):
    calls = []
    real = CORE.extract_table
    monkeypatch.setattr(CORE, "extract_table", lambda *a: calls.append(1) or real(*a))
    check(core_tree("<html><body><table><tr><td>a</td><td>b <b>c</b></td></tr></table></body></html>"))
    assert calls


def test_the_comparison_can_fail(monkeypatch):
    # a C path that drops the header role must be caught
    real = CORE.extract_table

    def wrong(table, out, match, fill):
        res = real(table, out, match, fill)
        for cell in out.iter("cell"):
            cell.attrib.pop("role", None)
        return res

    monkeypatch.setattr(CORE, "extract_table", wrong)
    with pytest.raises(AssertionError):
        check(core_tree("<html><body><table><tr><th>h</th></tr><tr><td>a</td></tr></table></body></html>"))


FIXED = [
    "<table><tr><td>a</td><td> b  c </td></tr><tr><td></td><td>\u00a0</td></tr></table>",
    "<table><tr><th>h1</th><th colspan=2>h2</th></tr><tr><td rowspan=3>a</td><td>b</td></tr><tr><td>c</td></tr>"
    "<tr><td colspan=0>z</td><td rowspan=1000>y</td></tr><tr><td>q</td></tr></table>",
    "<table><td>orphan</td><tr><td>x</td></tr><td>orphan2</td><th>h</th><tr></tr><tr><th>late</th></tr></table>",
    "<table><caption>Cap <b>x</b></caption><tr><td>a</td></tr></table>",
    "<table><tr><td colspan='\u0663'>arabic three</td><td rowspan='\uff12'>fullwidth</td></tr></table>",
    "<table><tr><td colspan=' 2'>s</td><td colspan='2x'>t</td><td colspan=''>u</td><td colspan>v</td>"
    "<td colspan=007 rowspan=02>w</td></tr><tr><td>1</td><td>2</td></tr></table>",
    "<table><tr><td>a<table><tr><td>inner</td></tr></table>tail of inner</td><td>b</td></tr></table>after",
    "<table><tr><td><ul><li>one</li><li>two</li></ul>t</td><td><p>para</p> <p>para2 <b>bold</b></p></td></tr></table>",
    "<ul><li><table><tr><td>in list</td></tr></table></li></ul>",
    "<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>Facebook</td><td>b</td></tr></tbody>"
    "<tfoot><tr><td>f</td></tr></tfoot></table>",
    "<table><tr><td>x<br>y</td><td><br></td><td><b>b</b><i>i</i> t</td><td><div>d</div>e</td></tr></table>",
    "<table><tr><td>&#1;bad</td><td>ok</td></tr><tr><td>t</td></tr></table>",
    "<table><tr><td><td>nested cell</td></td></tr><tr><td><img src=a.png>img</td></tr></table>",
    "<table><tr><td>same text here that is long enough</td></tr><tr><td>same text here that is long enough</td></tr>"
    "<tr><td>same text here that is long enough</td></tr><tr><td>same text here that is long enough</td></tr></table>",
    "<table><tr><td>a</td></tr><!-- c --><tr><td>b</td><?pi x?></tr><p>stray</p><div>stray div</div></table>",
    "<table><tr><td>x<lb></lb><hi>b</hi><lb></lb> <ref>r</ref><lb></lb>t<code>c</code><lb></lb>\u00a0<graphic src=g.png>"
    "</graphic><lb></lb><done>d</done><lb></lb></td><td><hi><lb></lb><hi>n</hi></hi><del>x</del></td></tr></table>",
    "<table><tr><td>a<div>b<table><tr><td>in<table><tr><td>deep</td></tr></table>t2</td></tr></table>t1</div>"
    "after<lb></lb><ref>r</ref></td></tr></table>",
    "<table><tr><td><list><item>i</item></list>tail<p>p <lb></lb><hi>h</hi></p><head>h</head>x</td></tr></table>",
]


@pytest.mark.parametrize("html", FIXED)
def test_fixed_tables(html):
    check_html(f"<html><body><article>{html}</article></body></html>")


WORDS = st.sampled_from([
    "a", "word", " ", "  ", "\n", "\u00a0", "\u3000", "\u200b", "&#28;", "&#1;", "\u00e9", "Facebook",
    "E-Mail", "same text here that is long enough", "-",
])
TEXT = st.lists(WORDS, max_size=4).map("".join)
SPAN = st.sampled_from(["", " colspan=2", " rowspan=2", " colspan=3 rowspan=2", " colspan=0", " rowspan=500",
                        " colspan='\u0662'", " colspan=x", " colspan"])
INNER = st.sampled_from(["", "<b>{}</b>", "<p>{}</p>", "<ul><li>{}</li><li>x</li></ul>", "<br>{}",
                         "<table><tr><td>{}</td></tr></table>", "<div>{}</div>", "<a href=x>{}</a>", "<img src=i.png>{}",
                         "<blockquote>{}</blockquote>", "<h2>{}</h2>", "<td>{}</td>", "<pre>{}</pre>"])
CELL = st.tuples(st.sampled_from(["td", "th"]), SPAN, TEXT, INNER, TEXT, TEXT)
ROW = st.one_of(
    st.lists(CELL, max_size=4).map(lambda cells: ("tr", cells)),
    CELL.map(lambda c: ("orphan", [c])),
    st.sampled_from(["<caption>cap</caption>", "<thead>", "</thead>", "<tbody>", "", "<p>x</p>"]).map(lambda s: ("raw", s)),
)


def _cell(c):
    tag, span, text, inner, itext, tail = c
    return f"<{tag}{span}>{text}{inner.format(itext) if inner else ''}</{tag}>{tail}"


def _table(rows):
    body = []
    for kind, content in rows:
        if kind == "tr":
            body.append("<tr>" + "".join(_cell(c) for c in content) + "</tr>")
        elif kind == "orphan":
            body.append(_cell(content[0]))
        else:
            body.append(content)
    return "<table>" + "".join(body) + "</table>"


@settings(max_examples=200, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=5), TEXT, st.booleans())
def test_generated_tables(rows, tail, in_list):
    table = _table(rows) + tail
    if in_list:
        table = f"<ul><li>{table}</li></ul>"
    check_html(f"<html><body><article>{table}</article></body></html>")


@needs_corpora
def test_corpus_pages():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl", "msv-big9-chaos", "fundus", "cleaneval"), 8):
        if "str" not in page.forms():
            continue
        tree = cleaned(page.input("str"), OPTIONS["default"])
        if tree is None or tree.find(".//table") is None:
            continue
        check(tree)
        compared += 1
    assert compared >= 20


STAGE_OPTIONS = {
    "default": Extractor(),
    "recall": Extractor(recall=True),
    "precision": Extractor(precision=True),
    "images-links": Extractor(images=True, links=True),
    "no-tables": Extractor(tables=False),
    "dedup": Extractor(dedup=True),
    "min-size": Extractor(),
}
STAGE_OPTIONS["min-size"].min_extracted_size = 10000  # the recovery pass runs


def stage_both(tree, options):
    "extract_content and extract_comments on copies of a cleaned tree, by the reference code and by the core."
    out = []
    for reference in (True, False):
        cache = dd.LRUCache(maxsize=dd.LRU_SIZE)
        previous = dd.set_module_cache(cache)
        try:
            with _backend.use(BACKEND), (python_path() if reference else contextlib.nullcontext()):
                try:
                    body, text = me.extract_content(copy_tree(tree), options)
                    result = (dump_element(body), text)
                except ValueError as err:
                    result = ("ValueError", str(err))
                try:
                    comments, ctext, rest = me.extract_comments(copy_tree(tree), options)
                    result += (dump_element(comments), ctext, dump_element(rest))
                except ValueError as err:
                    result += ("ValueError", str(err))
        finally:
            dd.set_module_cache(previous)
        out.append((result, list(cache.cache.items())))
    return out


BLOCK = st.one_of(
    ROW.map(lambda r: _table([r])),
    st.lists(ROW, max_size=3).map(_table),
    st.tuples(st.sampled_from(["", " class='w3-code'", " class='x W3-CODE'", " class='a w3-codex'", " class",
                               " class='comments'", " id='comments'"]), TEXT, INNER, TEXT).map(
        lambda t: f"<div{t[0]}>{t[1]}{t[2].format(t[3]) if t[2] else ''}</div>"),
    st.tuples(TEXT, TEXT).map(lambda t: f"<p>{t[0]}<img src=p.png alt='{t[1]}'>{t[1]}</p><img src=q.png>{t[0]}"),
    TEXT.map(lambda t: f"<p>{t}</p>"),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=5), TEXT)
def test_generated_extraction(blocks, lead):
    html = f"<html><body><article>{lead}{''.join(blocks)}</article></body></html>"
    for name, options in STAGE_OPTIONS.items():
        tree = cleaned(html, options)
        if tree is not None:
            ref, core = stage_both(tree, options)
            assert ref == core, name


@needs_corpora
def test_corpus_extraction():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl", "msv-big9-chaos", "fundus", "cleaneval"), 9):
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


LONG = "a repeated text that is long enough to count as a duplicate"
PIECE = st.sampled_from([LONG, LONG + " ", " " + LONG.replace(" ", "\u00a0 "), "short", "", " ", "\n\t",
                         LONG[:26], LONG[26:], "\u00e9" * 30, "\u00e9" * 51, "x" * 50, "x" * 51])
ITEM = st.tuples(st.sampled_from(["p", "div", "lb", "hi", "pre", "code", "head", "list"]), PIECE, PIECE,
                 st.lists(st.tuples(st.sampled_from(["lb", "hi", "div", "code"]), PIECE, PIECE), max_size=3))


def _body_html(items):
    out = []
    for tag, text, tail, kids in items:
        inner = "".join(f"<{k}>{a}</{k}>{b}" for k, a, b in kids)
        out.append(f"<{tag}>{text}{inner}</{tag}>{tail}")
    return "<body>" + "".join(out) + "</body>"


def _finish_python(body):
    previous = None
    for el in body[:]:
        current = me._elem_text(el)
        if current and current == previous and len(current) > me.MIN_DUPLICATE_LENGTH:
            me.delete_element(el, keep_tail=False)
        else:
            previous = current
    me.strip_elements(body, "done")
    me.strip_tags(body, "div")
    for linebreak in me.iter_live(body, "lb"):
        if (linebreak.tail and not me.text_chars_test(linebreak.tail)
                and not any(anc.tag in me.SPACING_PROTECTED for anc in linebreak.iterancestors())):
            linebreak.tail = None


def _finish_core(body):
    CORE.extract_drop_repeats(body, me.MIN_DUPLICATE_LENGTH)
    me.strip_elements(body, "done")
    me.strip_tags(body, "div")
    CORE.extract_lb_tails(body)


@settings(max_examples=300, deadline=None)
@given(st.lists(ITEM, min_size=1, max_size=6))
def test_generated_final_passes(items):
    tree = core_tree(f"<html>{_body_html(items)}</html>")
    with _backend.use(BACKEND):
        body = tree.find(".//body")
        a, b = copy_tree(body), copy_tree(body)
        with python_path():
            _finish_python(a)
        _finish_core(b)
    assert dump_element(a) == dump_element(b)


def test_final_passes_can_fail():
    tree = core_tree(f"<html><body><p>{LONG}</p><p>{LONG}</p><pre>x<lb/>  </pre><lb/> </body></html>")
    with _backend.use(BACKEND):
        body = tree.find(".//body")
        a, b = copy_tree(body), copy_tree(body)
        with python_path():
            _finish_python(a)
        CORE.extract_drop_repeats(b, 10 ** 6)  # a different length gate keeps the repeat
    assert dump_element(a) != dump_element(b)


def test_the_core_loops_are_taken(monkeypatch):
    calls = []
    for fname in ("extract_main_loop", "extract_dispatched", "extract_drop_repeats", "extract_lb_tails"):
        real = getattr(CORE, fname)
        monkeypatch.setattr(CORE, fname, lambda *a, _r=real, _n=fname: calls.append(_n) or _r(*a))
    html = (f"<html><body><article><p>{LONG}</p><h2>Title</h2><p>x<br>  </p><div>d</div>"
            "<table><tr><td>c</td></tr></table><br>tail text</article></body></html>")
    tree = cleaned(html, STAGE_OPTIONS["default"])
    ref, core = stage_both(tree, STAGE_OPTIONS["default"])
    assert ref == core
    assert set(calls) == {"extract_main_loop", "extract_dispatched", "extract_drop_repeats", "extract_lb_tails"}


def test_the_main_loop_comparison_can_fail(monkeypatch):
    # a C loop that leaves out the childless paragraphs must be caught
    real = CORE.extract_main_loop
    monkeypatch.setattr(CORE, "extract_main_loop", lambda subelems, body, match, step: real(
        [e for e in subelems if not (e.tag == "p" and len(e) == 0)], body, match, step))
    text = " ".join([LONG] * 6)
    tree = cleaned(f"<html><body><article><p>{text}</p><p>second {text}</p><ul><li>item</li></ul></article></body></html>",
                   STAGE_OPTIONS["default"])
    ref, core = stage_both(tree, STAGE_OPTIONS["default"])
    assert ref != core


COMMENT_ITEM = st.tuples(st.sampled_from(["p", "lb", "hi", "ref", "head", "quote", "list", "item", "div", "span",
                                          "graphic", "done", "code"]), PIECE, PIECE,
                         st.sampled_from(["", " class='c'", " rend='x' id='y'", " src='i.png'"]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(COMMENT_ITEM, st.lists(COMMENT_ITEM, max_size=3)), min_size=1, max_size=5),
       st.sampled_from(["<div id='comments'>", "<section class='comment-list'>", "<ol class='commentlist'>"]))
def test_generated_comments(items, opener):
    inner = "".join(
        f"<{t}{a}>{x}" + "".join(f"<{k}{ka}>{kx}</{k}>{ky}" for k, kx, ky, ka in kids) + f"</{t}>{y}"
        for (t, x, y, a), kids in items
    )
    closer = "</" + opener[1:].split()[0] + ">"
    tree = core_tree(f"<html><body><article><p>{LONG}</p></article>{opener}{inner}{closer}</body></html>")
    for options in (STAGE_OPTIONS["default"], STAGE_OPTIONS["dedup"]):
        ref, core = stage_both(tree, options)
        assert ref == core


def test_the_comments_loop_is_taken(monkeypatch):
    calls = []
    real = CORE.extract_comments_loop
    monkeypatch.setattr(CORE, "extract_comments_loop", lambda *a: calls.append(1) or real(*a))
    tree = core_tree("<html><body><div id='comments'><p class='x'>a comment</p><lb/>tail</div></body></html>")
    ref, core = stage_both(tree, STAGE_OPTIONS["default"])
    assert ref == core and calls
    assert "a comment" in ref[0][3]
