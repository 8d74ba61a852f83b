"""jusText's ParagraphMaker in C (cython_core/accel_justext.pxi) against the
reference's Python walk, on the same trees: generated ones (whitespace of every
kind, <br> runs, links, paragraph tags, nesting) and, with the corpora, every
page of two bundles, raw and after trafilatura's basic cleaning."""

from __future__ import annotations

import pytest
from tests._helpers import NO_CORE
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from trafila.justext.core import ParagraphMaker
from trafila.justext.paragraph import Paragraph

from ._helpers import needs_corpora, sample_pages

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend, _engine  # noqa: E402

CORE = _engine.core_module()
_backend.core_backend(CORE)  # registers the core's element type for core_of()
REF_DOM = _engine.dom("reference")
CORE_DOM = CORE.dom


def parts(paragraphs):
    return [(p.dom_path, p.xpath, p.text_nodes, p.chars_count_in_links, p.tags_count, p.text, len(p))
            for p in paragraphs]


def python_walk(root):
    "The reference handler over any element model (core_of bypassed)."
    handler = ParagraphMaker()
    from trafila.justext.sax import saxify

    saxify(root, handler)
    return handler.paragraphs


def test_the_core_path_is_taken():
    root = CORE_DOM.fromstring("<html><body><p>One <a>two</a> three</p><br><br>four</body></html>")
    assert CORE.justext_paragraph_parts  # exported
    got = ParagraphMaker.make_paragraphs(root)
    assert all(isinstance(p, Paragraph) for p in got)
    assert parts(got) == parts(python_walk(root))
    assert [p.text for p in got] == ["One two three", "four"]
    assert got[0].chars_count_in_links == 3


WS = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680", "\u2000",
      "\u2009", "\u200a", "\u200b", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"]
TEXT = st.one_of(st.none(), st.text(alphabet=st.sampled_from(WS + ["a", "b", "é", "ß", "\u0130", "\U0001f600", "©"]),
                                    max_size=12))
TAGS = st.sampled_from(["p", "div", "a", "br", "span", "b", "h2", "td", "li", "select", "em", "body", "ul"])

TREE = st.recursive(
    st.tuples(TAGS, TEXT, TEXT, st.just(())),
    lambda children: st.tuples(TAGS, TEXT, TEXT, st.lists(children, max_size=5).map(tuple)),
    max_leaves=40,
)


def build(dom, spec, parent=None):
    tag, text, tail, kids = spec
    el = dom.Element(tag) if parent is None else dom.SubElement(parent, tag)
    el.text, el.tail = text, tail
    for kid in kids:
        build(dom, kid, el)
    return el


@settings(max_examples=400, deadline=None)
@given(TREE)
def test_generated_trees(spec):
    ref_root = build(REF_DOM, spec)
    core_root = build(CORE_DOM, spec)
    expected = parts(ParagraphMaker.make_paragraphs(ref_root))
    assert parts(ParagraphMaker.make_paragraphs(core_root)) == expected
    # and the Python walk over the core's proxies agrees too (the trees are the same)
    assert parts(python_walk(core_root)) == expected


@needs_corpora
def test_corpus_pages():
    from trafila.v2_3_1.baseline import basic_cleaning
    from trafila.v2_3_1._tree import copy_tree

    compared = 0
    for _bundle, page in sample_pages(("goose3", "cleanportaleval"), 1):
        if "str" not in page.forms():
            continue
        html = page.input("str")
        ref_root = trafila.html.fromstring(html)
        core_root = CORE_DOM.fromstring(html)
        assert parts(ParagraphMaker.make_paragraphs(core_root)) == parts(ParagraphMaker.make_paragraphs(ref_root))
        with _backend.use(_backend.core_backend(CORE)):
            core_clean = basic_cleaning(copy_tree(core_root))
        ref_clean = basic_cleaning(copy_tree(ref_root))
        assert parts(ParagraphMaker.make_paragraphs(core_clean)) == parts(ParagraphMaker.make_paragraphs(ref_clean))
        compared += 2
    assert compared >= 150


# -- stopwords_density (the classifier's hot loop) ------------------------------------------

DENSITY_WORDS = ["the", "The", "THE", "a", "und", "Und", "straße", "STRASSE", "İstanbul", "x", "ǅ", "σ", "Σ",
                 "ΣΑ", "", "\u00a0", "\u2028", "\x1c", " ", "\t", "\n", "word", "ﬁ", "K"]


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.sampled_from(DENSITY_WORDS) | st.text(max_size=4), max_size=20),
       seps=st.lists(st.sampled_from([" ", "\u00a0", "\u3000", "\x1f", "\u2029", "", "\t"]), max_size=20))
def test_stopwords_density_is_the_paragraphs(words, seps):
    from trafila.justext import all_stoplists

    text = "".join(w + (seps[i] if i < len(seps) else " ") for i, w in enumerate(words))
    paragraph = Paragraph.__new__(Paragraph)
    paragraph.text_nodes = [text]
    for stoplist in (all_stoplists(), frozenset(["the", "a", "σ", "ς", "i̇stanbul", "strasse", "und", "ǆ"])):
        expected = Paragraph.stopwords_density(paragraph, stoplist)
        got = CORE.stopwords_density(paragraph.text, stoplist)
        assert got == expected and type(got) is type(expected)


@settings(max_examples=400, deadline=None)
@given(nodes=st.lists(st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000ab\u00e9\U0001f600", max_size=8),
                      max_size=6))
def test_paragraph_text_is_jusTexts(nodes):
    from trafila.justext.utils import normalize_whitespace

    got = CORE.jt_paragraph_text(nodes)
    assert got == normalize_whitespace("".join(nodes).strip())
    assert type(got) is str
