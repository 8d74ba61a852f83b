"""2.3.1 baseline's html2txt on core trees (cython_core/accel_baseline.pxi:
``spaced_text_cleaned``, the cleaned copy's text read off the uncleaned tree)
against the same function on the reference's trees and against the core's own
copy-and-delete path, on corpus pages and generated documents: deletable
elements nested and side by side, tails joining the previous sibling or the
parent, block and inline slots, characters lxml's setters refuse (the join
falls back to the copy and raises as upstream)."""

from __future__ import annotations

import pytest
from tests._helpers import NO_CORE
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend, _engine  # noqa: E402
from trafila.treedump import dump_element  # noqa: E402
from trafila.v2_3_1 import baseline as bl  # noqa: E402
from trafila.v2_3_1.utils import load_html  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

CORE = _engine.core_module()
BACKEND = _backend.core_backend(CORE)


class _NoCleanedText:
    "The core with spaced_text_cleaned declining: html2txt copies and deletes."

    def __getattr__(self, name):
        if name == "spaced_text_cleaned":
            return lambda *args: NotImplemented
        return getattr(CORE, name)


def _run(fn):
    try:
        return ("ok", fn())
    except ValueError as err:
        return ("ValueError", str(err))


def three_ways(html, monkeypatch, clean=True, as_tree=True):
    """html2txt on (the core's tree, C path), (the core's tree, copy path), (the reference's tree)."""
    out = []
    calls = []
    real = CORE.spaced_text_cleaned

    def spy(*args):
        result = real(*args)
        calls.append(result is not NotImplemented)
        return result

    for backend, mode in ((BACKEND, "c"), (BACKEND, "copy"), (_backend.reference(), "ref")):
        with _backend.use(backend):
            tree = load_html(html) if as_tree else html
            if tree is None:
                out.append(("no tree", None))
                continue
            before = dump_element(tree) if as_tree and tree is not None else None
            with monkeypatch.context() as m:
                if mode == "copy":
                    m.setattr(bl, "core_of", lambda el: _NoCleanedText() if _backend.core_of(el) is not None else None)
                elif mode == "c":
                    m.setattr(bl, "core_of", lambda el, _s=spy: (
                        type("S", (), {"__getattr__": lambda self, n: _s if n == "spaced_text_cleaned"
                                       else getattr(CORE, n)})() if _backend.core_of(el) is not None else None))
                out.append(_run(lambda: bl.html2txt(tree, clean)))
            if before is not None:
                assert dump_element(tree) == before  # the caller's tree is left as it was
    return out, calls


PAGES = [
    "<html><body><p>one</p><script>x</script> tail <div>two</div></body></html>",
    "<html><body><aside>a<script>s</script>st</aside>at<p>p</p>pt<footer>f</footer>ft</body></html>",
    "<html><body><style>s</style>first<p>x<style>y</style>yt<b>b</b></p><svg>q</svg>sv</body></html>",
    "<html><body><div class='site-footer'>gone</div>kept<div id='cookie-banner'>c</div>ct<p>z</p></body></html>",
    "<html><body><script>a</script><script>b</script>t1<template>c</template>t2</body></html>",
    "<html><body><p>only</p></body></html>",
    "<html><head><title>t</title></head><body>text &#1; &#11; ctl<p>a&#12;b</p><script>x</script>&#2;t</body></html>",
    "<html><body><li>x</li><script>z</script>&#x1c;y<td>q</td></body></html>",
    "no body at all",
    "<html><head><title>only a head</title></head></html>",
]


@pytest.mark.parametrize("html", PAGES)
@pytest.mark.parametrize("clean", [True, False])
def test_handmade_pages(html, clean, monkeypatch):
    out, calls = three_ways(html, monkeypatch, clean)
    assert out[0] == out[1] == out[2]
    out, _ = three_ways(html, monkeypatch, clean, as_tree=False)  # a str: parsed inside html2txt
    assert out[0] == out[1] == out[2]


def test_the_c_path_is_taken(monkeypatch):
    out, calls = three_ways(PAGES[1], monkeypatch)
    assert out[0] == out[1] == out[2] and calls == [True]
    assert out[0][1] == "at p ptft"  # the footer's tail joins <p>'s


TAGS = st.sampled_from(["p", "div", "span", "b", "script", "style", "aside", "footer", "svg", "template", "li", "td",
                        "br", "a", "section", "fencedframe"])
ATTRS = st.sampled_from(["", " class='footer'", " id='x-footer'", " class='cookie-consent'", " id='gdpr'",
                         " class='main'", " id='footer' class='a'", " class='a' id='footer'"])
CHUNK = st.lists(st.sampled_from(["a", "b", " ", "\n", "\t", "&#1;", "&#11;", "&#28;", "&#xfffe;", "é", "\u00a0",
                                  "\u2028", "&#127;", "&#x85;"]), max_size=5).map("".join)
NODE = st.recursive(
    st.tuples(TAGS, ATTRS, CHUNK, CHUNK, st.just(())),
    lambda kids: st.tuples(TAGS, ATTRS, CHUNK, CHUNK, st.lists(kids, max_size=4).map(tuple)),
    max_leaves=25,
)


def markup(node):
    tag, attrs, text, tail, kids = node
    return f"<{tag}{attrs}>{text}{''.join(markup(k) for k in kids)}</{tag}>{tail}"


@settings(max_examples=300, deadline=None)
@given(st.lists(NODE, max_size=5), CHUNK)
def test_generated_documents(nodes, lead):
    import _pytest.monkeypatch

    mp = _pytest.monkeypatch.MonkeyPatch()
    try:
        html = f"<html><body>{lead}{''.join(markup(n) for n in nodes)}</body></html>"
        out, _ = three_ways(html, mp)
        assert out[0] == out[1] == out[2], html
    finally:
        mp.undo()


@needs_corpora
def test_corpus_pages(monkeypatch):
    compared = taken = 0
    for _bundle, page in sample_pages(("trafilatura", "cleaneval", "goose3", "commoncrawl"), 4):
        form = "str" if "str" in page.forms() else "bytes"
        out, calls = three_ways(page.input(form), monkeypatch)
        assert out[0] == out[1] == out[2], page.id
        compared += 1
        assert all(calls)  # with a <body>, the C path answers (no page here holds a refused join)
        taken += len(calls)
    assert compared >= 300 and taken >= 200


# -- _spaced_text_readonly (block_text, baseline's article and paragraph texts) on every node -----
# of generated trees whose texts hold every kind of whitespace and control character: the
# core's path (spaced_text_cleaned, nothing deleted) against the reference's Python walk, and
# the deleting path (basic_clean_xpath's selection, as html2txt passes it) against the copy

from tests.test_core_accel_readability import build as rd_build  # noqa: E402
from tests.test_core_accel_readability import maybe_text, node_spec, outcome  # noqa: E402

CLEAN_TAGS = st.sampled_from(["div", "p", "span", "script", "style", "aside", "footer", "svg", "template", "li", "br",
                              "td", "b", "blockquote"])
CLEAN_ATTR = st.sampled_from([None, "footer", "x-footer", "cookie-consent", "gdpr", "main"])
CLEAN_SPEC = st.recursive(
    st.tuples(CLEAN_TAGS, maybe_text, maybe_text, CLEAN_ATTR, CLEAN_ATTR, st.just(())),
    lambda kids: st.tuples(CLEAN_TAGS, maybe_text, maybe_text, CLEAN_ATTR, CLEAN_ATTR,
                           st.lists(kids, max_size=4).map(tuple)),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(node_spec() | CLEAN_SPEC)
def test_spaced_text_of_every_node(spec):
    from trafila.v2_3_1.xpaths import basic_clean_xpath

    ref_root = rd_build(_engine.dom("reference"), spec)
    core_root = rd_build(CORE.dom, spec)
    refs, cores = list(ref_root.iter()), list(core_root.iter())
    for r, c in zip(refs, cores):
        expected = outcome(bl._spaced_text_readonly, r)
        assert outcome(bl._spaced_text_readonly, c) == expected
        assert outcome(CORE.spaced_text, c, bl._BLOCK_ELEMS, bl.remove_control_characters, bl.xml_text) == expected
    # deletions: the cleaned copy's text (or the copy path's error) on each node
    for r, c in zip(refs, cores):
        with _backend.use(BACKEND):
            got = outcome(CORE.spaced_text_cleaned, c, basic_clean_xpath(c), bl._BLOCK_ELEMS,
                          bl.remove_control_characters, bl.xml_text)
            copy = bl.copy_tree(c)
        with _backend.use(_backend.reference()):
            want = outcome(lambda: bl._spaced_text_readonly(bl.basic_cleaning(bl.copy_tree(r))))
        if got is not NotImplemented:
            assert got == want
            with _backend.use(BACKEND):
                assert outcome(lambda: bl._spaced_text_readonly(bl.basic_cleaning(copy))) == want
