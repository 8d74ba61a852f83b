"""The core's main-extractor accelerators (accel_extract.pxi) against the
reference Python of 2.3.1's handlers, run on copies of the same core tree
(the Python path forced by hiding the core from the handlers): the results
(None, the element itself, or the exception) and the whole tree afterwards
must be the same, on generated trees (whitespace of every kind, empty text
against None, line-break elements, characters lxml's setters refuse, the
social-media filter's words) and on corpus pages after 2.3.1's cleaning."""

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
from trafila.v2_3_1 import htmlprocessing as hp  # noqa: E402
from trafila.v2_3_1 import main_extractor as me  # noqa: E402
from trafila.v2_3_1._tree import copy_tree, desc_list, root_of  # noqa: E402
from trafila.v2_3_1.utils import text_chars_test, trim  # noqa: E402
from trafila.v2_3_1.settings import TAG_CATALOG, Extractor  # noqa: E402

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
    except ValueError as err:
        return ("ValueError", str(err))
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
}
for _name, _tags in {
    "catalog": set(TAG_CATALOG),
    "catalog+ref": set(TAG_CATALOG) | {"ref", "div", "graphic"},
    "quote-tags": set(me._QUOTE_TAGS),
    "no-inline": {"p", "head"},
}.items():
    HANDLERS[f"paragraphs-{_name}"] = (
        lambda el, _t=_tags: me.handle_paragraphs(el, _t, OPTIONS) if el.tag == "p" else "skip"
    )


def core_tree(html):
    with _backend.use(BACKEND):
        return CORE.dom.fromstring(html)


def check_texts(tree):
    "_elem_text / is_text_element / root_of in C against their Python bodies on every element."
    els = [tree, *desc_list(tree)]
    for el in els:
        assert CORE.extract_elem_text(el) == trim("".join(el.itertext()))
        assert CORE.extract_has_text(el) is (text_chars_test("".join(el.itertext())) is True)
        assert me._elem_text(el) == CORE.extract_elem_text(el)
        assert me.is_text_element(el) is CORE.extract_has_text(el)
        assert CORE.extract_root_is(el, tree) is (root_of(el) is tree)
        assert CORE.extract_root_is(tree, el) is (root_of(tree) is el)
        assert CORE.extract_desc_tags(el) == {e.tag for e in desc_list(el)}
    assert me.is_text_element(None) is False


def check_mark_done(tree):
    "extract_mark_done against the reference's live renaming walk, from every element."
    for inclusive in (False, True):
        n = len(desc_list(tree)) + 1
        for k in range(0, n, max(1, n // 15)):
            a, b = copy_tree(tree), copy_tree(tree)
            ea, eb = [a, *desc_list(a)][k], [b, *desc_list(b)][k]
            for child in ea.iter() if inclusive else ea.iterdescendants():
                child.tag = "done"
            CORE.extract_mark_done(eb, inclusive)
            assert dump_element(a) == dump_element(b)


def check(tree):
    check_texts(tree)
    with _backend.use(BACKEND):
        check_mark_done(tree)
    for name, call in HANDLERS.items():
        with _backend.use(BACKEND):
            ref, core = run_both(tree, call)
        assert ref == core, name


def test_the_core_path_is_taken(monkeypatch):
    calls = []
    for fname in ("extract_process_node", "extract_handle_textnode"):
        real = getattr(CORE, fname)
        monkeypatch.setattr(CORE, fname, lambda *a, _r=real, _n=fname: calls.append(_n) or _r(*a))
    check(core_tree("<html><body><p> a  b </p><lb/>tail<hi>x</hi></body></html>"))
    assert {"extract_process_node", "extract_handle_textnode"} <= set(calls)


def test_the_comparison_can_fail(monkeypatch):
    # a C path that keeps every element (no filter) must be caught
    monkeypatch.setattr(CORE, "extract_process_node", lambda el, match: el)
    with pytest.raises(AssertionError):
        check(core_tree("<html><body><p>Facebook</p></body></html>"))


def test_detached_and_foreign_roots():
    tree = core_tree("<html><body><div><p>a <hi>b</hi> c</p>t</div></body></html>")
    other = core_tree("<p>x</p>")
    p = tree.find(".//p")
    assert CORE.extract_root_is(p, tree) and not CORE.extract_root_is(p, other)
    p.getparent().remove(p)
    assert CORE.extract_root_is(p, p) and not CORE.extract_root_is(p, tree)
    assert CORE.extract_elem_text(p) == "a b c" and CORE.extract_has_text(p)
    with _backend.use(BACKEND):
        empty = me.Element("p")
    assert CORE.extract_elem_text(empty) == "" and not CORE.extract_has_text(empty)


@pytest.mark.parametrize("handler", ["process_node", "handle_textnode"])
def test_dedup_counts_after_the_c_handler(monkeypatch, handler):
    """With deduplication the C handler still runs; the element it keeps is counted once per
    call, and from the fourth count on (MAX_REPETITIONS 2, a text over 100 characters) dropped."""
    from trafila.v2_3_1.deduplication import LRUCache

    cache = LRUCache(maxsize=8)
    options = Extractor(dedup=cache)
    results = dedup_handler_runs(monkeypatch, CORE, "extract_" + handler, getattr(hp, handler), core_tree, options)
    assert [r is None for r in results] == [False, False, False, True]
    assert cache.get(DEDUP_TEXT.strip()) == 4
    # a line break kept by handle_textnode without comments_fix returns before the count
    if handler == "handle_textnode":
        el = core_tree("<p>x<lb/> tail </p>")[0]
        assert hp.handle_textnode(el, options, comments_fix=False) is el
        assert cache.get("") == -1 and cache.get("tail") == -1


FIXED = [
    "<html><body><p>  Hello \u00a0 world\u2028x </p>tail  end<div>\n\t</div> \u3000 </body></html>",
    "<html><body><p></p><p>Facebook</p><p> \u2022 Twitter </p><p>Mehr zum Thema:</p><p>More on this story</p></body></html>",
    "<html><body><lb></lb>  after  <hi>x</hi><lb></lb><ref>r</ref><lb/>  <done>d</done>t<graphic src='a.jpg'/>g</body></html>",
    "<html><body><div><p>a</p>  b  <p>\u0085c\u200ad\u200be</p></div><p>PDF</p>x<p>QQ</p>y</body></html>",
    "<html><body><p>&#1;bad</p>t&#2;<p>x</p>&#28;y<p> &#11;z</p><lb/>&#12; q </body></html>",
    "<html><body><p>\u017fhare</p><p>__print__</p><p>...Drucken</p><p>E-Mail \u00a0</p><p>\u0130nstagram</p></body></html>",
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
TAGS = st.sampled_from(["p", "lb", "hi", "ref", "done", "head", "div", "list", "item", "code", "del", "graphic"])


def _node():
    return st.recursive(
        st.tuples(TAGS, TEXT, TEXT, st.just(())),
        lambda kids: st.tuples(TAGS, TEXT, TEXT, st.lists(kids, max_size=3).map(tuple)),
        max_leaves=8,
    )


def _html(node):
    tag, text, tail, kids = node
    attrs = " src='x.png'" if tag == "graphic" else ""
    return f"<{tag}{attrs}>{text}{''.join(_html(k) for k in kids)}</{tag}>{tail}"


@settings(max_examples=250, deadline=None)
@given(st.lists(_node(), min_size=1, max_size=4), TEXT)
def test_generated_trees(nodes, lead):
    check(core_tree(f"<html><body><div>{lead}{''.join(_html(n) for n in nodes)}</div></body></html>"))


LEAF = st.tuples(st.sampled_from(["lb", "hi", "ref", "del", "code", "done", "graphic", "span"]), TEXT, TEXT,
                 st.sampled_from(["", " rend='#b'", " title='t' class='c' rend=''", " alt=a&#1;b rend=x", " target"]))


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
            except ValueError:  # lxml refuses a str with an encoding declaration
                continue
            tree = hp.tree_cleaning(tree, OPTIONS)
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
                body, text = me.extract_content(copy_tree(tree), options)
                result = (dump_element(body), text)
            except ValueError as err:  # a refused character: both must raise
                result = ("ValueError", str(err))
            try:
                comments, ctext, _ = me.extract_comments(copy_tree(tree), options)
                result += (dump_element(comments), ctext)
            except ValueError as err:
                result += ("ValueError", str(err))
            out.append(result)
    return out


def cleaned(html, options):
    with _backend.use(BACKEND):
        try:
            tree = CORE.dom.fromstring(html)
        except ValueError:  # lxml refuses a str with an encoding declaration
            return None
        try:
            tree = hp.tree_cleaning(tree, options)
        except ValueError:  # a refused character met by the cleaning (not this module's code)
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
