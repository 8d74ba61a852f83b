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
