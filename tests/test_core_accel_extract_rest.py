"""The core's third round of 2.3.1 main-extractor accelerators
(accel_extract.pxi) against the reference Python, run on copies of the same
core tree (the Python path forced by hiding the core from the handlers):

- ``extract_cell_walk`` doing _fill_cell_child in C for <lb>, childless
  <p>/<head>/<div> and the tags handle_textelem ignores (the new cell, the
  source tree afterwards and the LRU cache must be the same);
- ``extract_main_loop`` and recover_wild_text skipping "done" elements
  (extract_content/extract_comments on whole cleaned trees, the recovery pass
  forced by a large min_extracted_size).

Generated cells hold children of every kind with odd texts (None vs '',
whitespace of every class, characters lxml refuses, filtered words) and
attributes (KEEP_ATTRS ones with and without values, classes with w3-code)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from tests._helpers import NO_CORE

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila.v2_3_1.settings import Extractor  # noqa: E402

from . import test_core_accel_extract_blocks as blocks  # noqa: E402
from ._helpers import needs_corpora, sample_pages  # noqa: E402

CORE = blocks.CORE

WORDS = st.sampled_from([
    "a", "word", " ", "  ", "\n", "\u00a0", "\u3000", "\u200b", "&#28;", "&#1;", "\u00e9", "Facebook",
    "E-Mail", "same text here that is long enough", "-", "\u2028", "\x85",
])
TEXT = st.lists(WORDS, max_size=4).map("".join)
ATTRS = st.sampled_from(["", " rend='r'", " title='t'", " title", " title=''", " alt='a&#1;b'", " role='x' class='c'",
                         " class='w3-code'", " class='x w3-codes'", " target='_b' src='s'", " id='i'"])
CHILD_TAG = st.sampled_from(["lb", "p", "head", "div", "center", "spacer", "span", "cell", "item", "hi", "list",
                             "quote", "code", "graphic", "done", "td"])
LEAF = st.tuples(CHILD_TAG, ATTRS, TEXT, TEXT).map(lambda t: f"<{t[0]}{t[1]}>{t[2]}</{t[0]}>{t[3]}")
NODE = st.recursive(
    LEAF,
    lambda kids: st.tuples(CHILD_TAG, ATTRS, TEXT, st.lists(kids, max_size=3), TEXT).map(
        lambda t: f"<{t[0]}{t[1]}>{t[2]}{''.join(t[3])}</{t[0]}>{t[4]}"),
    max_leaves=6,
)
CELL = st.tuples(st.sampled_from(["td", "th"]), TEXT, st.lists(NODE, min_size=1, max_size=4), TEXT).map(
    lambda t: f"<{t[0]}>{t[1]}{''.join(t[2])}</{t[0]}>{t[3]}")
TABLE = st.lists(st.lists(CELL, min_size=1, max_size=3), min_size=1, max_size=3).map(
    lambda rows: "<table>" + "".join("<tr>" + "".join(r) + "</tr>" for r in rows) + "</table>")


def check_core_tree(html):
    blocks.check(blocks.core_tree(html))


@settings(max_examples=300, deadline=None)
@given(TABLE)
def test_generated_cells(table):
    # the converted tags (lb, head, hi, ...) written directly: handle_table over the core tree
    check_core_tree(f"<html><body><article>{table}</article></body></html>")


FIXED = [
    "<td>x<lb></lb>tail one<lb></lb> <lb></lb>Facebook<p>para</p> tail<p></p><p> </p><head>h</head><head> </head></td>",
    "<td><p rend='r' title='t' class='c'>p</p><head title>h</head><p alt='a&#1;'>bad attr</p></td>",
    "<td><div>d</div>t<div></div>only tail<div class='w3-code'>code</div><div class='z'> </div>\u00a0</td>",
    "<td><center>c<b>b</b></center>ct<spacer></spacer><cell>c</cell><item>i</item>it</td>",
    "<td><lb>text in lb</lb>t<p>&#1;bad</p><div>&#1;bad</div>x<lb></lb>&#1;bad tail</td>",
    "<td><div></div>E-Mail<p>Drucken</p><head>Facebook</head><lb></lb>Twitter</td>",
    "<td><p>x<lb></lb>y</p><div>a<hi>b</hi>c</div><head>h<hi>i</hi></head></td>",
]


@pytest.mark.parametrize("cell", FIXED)
def test_fixed_cells(cell):
    check_core_tree(f"<html><body><article><table><tr>{cell}<td>other</td></tr></table></article></body></html>")


def test_the_cell_path_is_taken(monkeypatch):
    # the C cases leave other() uncalled: count the Python calls left
    calls = []
    real = blocks.me._fill_cell_child
    monkeypatch.setattr(blocks.me, "_fill_cell_child", lambda *a: calls.append(a[1].tag) or real(*a))
    tree = blocks.core_tree("<html><body><table><tr><td>x<lb></lb>t<p>p</p><head>h</head><div>d</div>"
                            "<center>c</center><hi>kept for python</hi></td></tr></table></body></html>")
    with blocks._backend.use(blocks.BACKEND):
        res = blocks.me.handle_table(tree.find(".//table"), blocks.TAGSETS["tables"], Extractor())
    assert res is not None
    assert calls == ["hi"]
    check_core_tree("<html><body><table><tr><td>x<lb></lb>t<p>p</p><head>h</head><div>d</div>"
                    "<center>c</center></td></tr></table></body></html>")


def test_the_cell_comparison_can_fail(monkeypatch):
    # a C walk that drops the new paragraphs' text must be caught
    real = CORE.extract_cell_walk

    def wrong(cell, new, nested, nested_table, other, match=None, tf=None):
        real(cell, new, nested, nested_table, other, match, tf)
        for sub in new.iter("p"):
            sub.text = None

    monkeypatch.setattr(CORE, "extract_cell_walk", wrong)
    with pytest.raises(AssertionError):
        check_core_tree("<html><body><table><tr><td>x<p>para</p></td></tr></table></body></html>")


BLOCK = st.one_of(
    TABLE,
    NODE,
    st.tuples(TEXT, st.lists(NODE, max_size=3)).map(lambda t: f"<p>{t[0]}{''.join(t[1])}</p>"),
    st.tuples(TEXT, st.lists(NODE, max_size=3)).map(lambda t: f"<ul><li>{t[0]}{''.join(t[1])}</li><li>x</li></ul>"),
    st.tuples(TEXT, st.lists(NODE, max_size=3)).map(lambda t: f"<blockquote>{t[0]}{''.join(t[1])}</blockquote>"),
    TEXT.map(lambda t: f"<p>{t}</p>"),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=5), TEXT)
def test_generated_extraction(items, lead):
    html = f"<html><body><article>{lead}{''.join(items)}</article></body></html>"
    for name, options in blocks.STAGE_OPTIONS.items():
        tree = blocks.cleaned(html, options)
        if tree is not None:
            ref, core = blocks.stage_both(tree, options)
            assert ref == core, name


@needs_corpora
def test_corpus_tables_and_recovery():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl", "msv-big9-chaos", "fundus", "cleaneval"), 10):
        if "str" not in page.forms():
            continue
        for name in ("default", "min-size", "recall", "dedup"):
            options = blocks.STAGE_OPTIONS[name]
            tree = blocks.cleaned(page.input("str"), options)
            if tree is None:
                break
            ref, core = blocks.stage_both(tree, options)
            assert ref == core, (page.id, name)
            compared += 1
        tree = blocks.cleaned(page.input("str"), blocks.OPTIONS["default"])
        if tree is not None and tree.find(".//table") is not None:
            blocks.check(tree)
    assert compared >= 100


def _recovery_tree():
    html = ("<html><body><article><p>first paragraph here</p><ul><li>an item</li></ul><table><tr><td>cell "
            "<p>in cell</p></td></tr></table><blockquote>a quote</blockquote>"
            "<ul><li>short <p>inner</p></li></ul></article><div><p>outside text</p><code>some code</code></div></body></html>")
    return blocks.cleaned(html, blocks.STAGE_OPTIONS["min-size"])


def test_the_snapshot_path_is_taken(monkeypatch):
    calls = []
    for fname in ("extract_order_snapshot", "extract_consumed"):
        real = getattr(CORE, fname)
        monkeypatch.setattr(CORE, fname, lambda *a, _r=real, _n=fname: calls.append(_n) or _r(*a))
    ref, core = blocks.stage_both(_recovery_tree(), blocks.STAGE_OPTIONS["min-size"])
    assert ref == core
    assert set(calls) == {"extract_order_snapshot", "extract_consumed"}


def test_the_snapshot_comparison_can_fail(monkeypatch):
    # a consumed set missing the emitted elements gives their text twice (or otherwise differs)
    monkeypatch.setattr(CORE, "extract_consumed", lambda order, backup: set())
    ref, core = blocks.stage_both(_recovery_tree(), blocks.STAGE_OPTIONS["min-size"])
    assert ref != core


def _consumed_check(html):
    # the snapshot read after the main pass gives the set the reference's proxy list gives
    for options in (blocks.STAGE_OPTIONS["default"], blocks.STAGE_OPTIONS["recall"], blocks.STAGE_OPTIONS["dedup"]):
        tree = blocks.cleaned(html, options)
        if tree is None:
            continue
        cache = blocks.dd.LRUCache(maxsize=blocks.dd.LRU_SIZE)
        previous = blocks.dd.set_module_cache(cache)
        with blocks._backend.use(blocks.BACKEND):
            backup = blocks.copy_tree(tree)
            order = [tree, *blocks.desc_list(tree)]
            snap = CORE.extract_order_snapshot(tree)
            try:
                blocks.me._extract(tree, options)
            except ValueError:
                continue
            finally:
                blocks.dd.set_module_cache(previous)
            expected = {twin for elem, twin in zip(order, [backup, *blocks.desc_list(backup)]) if elem.tag == "done"}
            assert CORE.extract_consumed(snap, backup) == expected


def test_consumed_matches_the_proxy_list():
    for html in FIXED + ["<p>a</p><ul><li>b<p>c</p></li></ul><h2>t<b>x</b></h2><b>f</b>tail<div>d<p>e</p></div>"]:
        _consumed_check(f"<html><body><article>{html}<p>{'long text ' * 3}</p></article></body></html>")


@settings(max_examples=120, deadline=None)
@given(st.lists(BLOCK, min_size=1, max_size=5), TEXT)
def test_generated_consumed(items, lead):
    _consumed_check(f"<html><body><article>{lead}{''.join(items)}</article><div>{lead}<b>x</b>{''.join(items)}</div>"
                    "</body></html>")


INLINE_TAG = st.sampled_from(["hi", "ref", "del", "code", "graphic", "lb", "p", "div", "done", "x-y", "list"])
INLINE = st.recursive(
    st.tuples(INLINE_TAG, ATTRS, TEXT, TEXT).map(lambda t: f"<{t[0]}{t[1]}>{t[2]}</{t[0]}>{t[3]}"),
    lambda kids: st.tuples(INLINE_TAG, ATTRS, TEXT, st.lists(kids, max_size=3), TEXT).map(
        lambda t: f"<{t[0]}{t[1]}>{t[2]}{''.join(t[3])}</{t[0]}>{t[4]}"),
    max_leaves=8,
)


def _newelem_both(html, keep):
    tree = blocks.core_tree(f"<html><body><div id='src'>{html}</div></body></html>")
    out = []
    with blocks._backend.use(blocks.BACKEND):
        for reference in (True, False):
            src = blocks.copy_tree(tree)
            holder = src.find(".//div")
            target = blocks.me.Element("item")
            target.text = "t"
            with blocks.python_path() if reference else blocks.contextlib.nullcontext():
                results = []
                for child in holder[:]:
                    try:
                        blocks.me.define_newelem(child, target, keep_children=keep)
                        results.append("ok")
                    except ValueError as err:
                        results.append(str(err))
            out.append((results, blocks.dump_element(target), blocks.dump_element(src)))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(INLINE, min_size=1, max_size=4), st.booleans())
def test_generated_define_newelem(items, keep):
    ref, core = _newelem_both("".join(items), keep)
    assert ref == core


def test_define_newelem_path_is_taken_and_can_fail(monkeypatch):
    html = "<hi rend='b' id='x'>a<lb></lb>b<ref target='t'>r<hi>deep</hi></ref><p>not carried</p>c</hi>tail"
    calls = []
    real = CORE.extract_define_newelem
    monkeypatch.setattr(CORE, "extract_define_newelem", lambda *a: calls.append(1) or real(*a))
    ref, core = _newelem_both(html, True)
    assert ref == core and calls

    def wrong(processed, orig, keep):
        # a version that leaves the carried elements unmarked
        saved = [(e, e.tag) for e in processed.iter()]
        done = real(processed, orig, keep)
        for e, tag in saved:
            e.tag = tag
        return done

    monkeypatch.setattr(CORE, "extract_define_newelem", wrong)
    ref, core = _newelem_both(html, True)
    assert ref != core


def _other_both(html, tags):
    tree = blocks.core_tree(f"<html><body><article>{html}</article></body></html>")
    out = []
    with blocks._backend.use(blocks.BACKEND):
        for reference in (True, False):
            src = blocks.copy_tree(tree)
            results = []
            with blocks.python_path() if reference else blocks.contextlib.nullcontext():
                for el in blocks.desc_list(src):
                    try:
                        res = blocks.me.handle_other_elements(el, tags, Extractor())
                    except ValueError as err:
                        results.append(str(err))
                        continue
                    results.append(None if res is None else (res is el, blocks.dump_element(res)))
            out.append((results, blocks.dump_element(src)))
    return out


DIV_ATTRS = st.sampled_from(["", " class='w3-code'", " class='x W3-CODE'", " class", " class='a' id='b' rend='r'",
                             " title='&#1;'"])
DIV = st.recursive(
    st.tuples(DIV_ATTRS, TEXT, TEXT).map(lambda t: f"<div{t[0]}>{t[1]}</div>{t[2]}"),
    lambda kids: st.tuples(st.sampled_from(["div", "p", "hi", "lb", "span"]), DIV_ATTRS, TEXT, st.lists(kids, max_size=3),
                           TEXT).map(lambda t: f"<{t[0]}{t[1]}>{t[2]}{''.join(t[3])}</{t[0]}>{t[4]}"),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(DIV, min_size=1, max_size=4), st.booleans())
def test_generated_other_elements(items, with_div):
    tags = set(blocks.TAGSETS["tables"]) | ({"div"} if with_div else set())
    ref, core = _other_both("".join(items), tags)
    assert ref == core


def test_other_elements_path_is_taken_and_can_fail(monkeypatch):
    html = "<div class='a'>text</div>t<div> </div><div class='w3-code'>code</div><div></div>tail"
    tags = set(blocks.TAGSETS["tables-div-ref"])
    calls = []
    real = CORE.extract_other_elements
    monkeypatch.setattr(CORE, "extract_other_elements", lambda *a: calls.append(1) or real(*a))
    ref, core = _other_both(html, tags)
    assert ref == core and calls
    monkeypatch.setattr(CORE, "extract_other_elements", lambda el, div, tf: None if el.tag == "div" else real(el, div, tf))
    ref, core = _other_both(html, tags)
    assert ref != core
