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


# -- the whole jusText run: ParagraphMaker, classify_paragraphs, revise in C --------------------
# The C path (core tree -> MadeParagraph -> jt_classify / jt_revise) against the Python
# path (the reference tree's Paragraph objects through the Python loops), every
# paragraph's fields and classes compared, under several parameter sets and stoplists.

from trafila.justext import classify_paragraphs, get_stoplist, revise_paragraph_classification  # noqa: E402
from trafila.justext.paragraph import MadeParagraph  # noqa: E402

# (length_low, length_high, stopwords_low, stopwords_high, max_link_density, no_headings), max_heading_distance
PARAMS = [
    ((50, 150, 0.1, 0.2, 0.25, True), 150),      # trafilatura 2.3.1
    ((50, 200, 0.1, 0.2, 0.2, True), 200),       # trafilatura 1.11.0
    ((70, 200, 0.30, 0.32, 0.2, False), 200),    # jusText's defaults, headings on
    ((10, 40, 0.05, 0.1, 0.5, False), 30),
    ((0, 0, 0, 0, 1, False), 0),
]


def stoplists():
    from trafila.justext import all_stoplists

    return [all_stoplists(), get_stoplist("English"), get_stoplist("German"), get_stoplist("Russian"),
            frozenset(["the", "a", "of", "σ", "ς", "i̇stanbul", "strasse", "und", "ǆ", "k", "and", "x" * 70])]


def classes(paragraphs):
    return [(p.dom_path, p.xpath, p.text_nodes, p.chars_count_in_links, p.tags_count, p.text, len(p),
             p.cf_class, p.heading, p.class_type) for p in paragraphs]


def run_both(core_root, ref_root, stoplist, params, distance, calls=None):
    core = ParagraphMaker.make_paragraphs(core_root)
    ref = ParagraphMaker.make_paragraphs(ref_root)
    assert all(type(p) is MadeParagraph for p in core)
    assert not any(isinstance(p, MadeParagraph) for p in ref)
    classify_paragraphs(core, stoplist, *params)
    classify_paragraphs(ref, stoplist, *params)
    revise_paragraph_classification(core, distance)
    revise_paragraph_classification(ref, distance)
    assert classes(core) == classes(ref)
    # a second revision sees the first one's classes (pass one's look-ahead reads them)
    revise_paragraph_classification(core, distance)
    revise_paragraph_classification(ref, distance)
    assert classes(core) == classes(ref)
    return core


def test_the_c_loops_are_taken(monkeypatch):
    from trafila.justext import paragraph as jp

    seen = []

    class Spy:
        def __getattr__(self, name):
            attr = getattr(CORE, name)
            if name in ("jt_classify", "jt_revise"):
                def wrapped(*args):
                    result = attr(*args)
                    seen.append((name, result))
                    return result
                return wrapped
            return attr

    monkeypatch.setattr(jp, "_CORE", Spy())
    html = ("<html><body><h2>Title</h2><p>" + "the cat and the dog of a house " * 10 + "</p><p>short <a>link</a></p>"
            "<div>&copy; 2024</div><select><option>x</option></select></body></html>")
    ref_root = REF_DOM.fromstring(html)
    core_root = CORE_DOM.fromstring(html)
    got = run_both(core_root, ref_root, get_stoplist("English"), *PARAMS[2])
    assert ("jt_classify", None) in seen and ("jt_revise", None) in seen
    assert {p.class_type for p in got} >= {"good", "bad"}


@settings(max_examples=300, deadline=None)
@given(TREE, st.sampled_from(range(len(PARAMS))), st.sampled_from(range(5)))
def test_generated_trees_classified(spec, k, s):
    run_both(build(CORE_DOM, spec), build(REF_DOM, spec), stoplists()[s], *PARAMS[k])


WORDS = ["the", "The", "and", "of", "a", "und", "der", "и", "в", "Σ", "σ", "İ", "K", "word", "long" * 20, "&copy",
         "©", "x", "select"]
WORD_TEXT = st.lists(st.sampled_from(WORDS), min_size=0, max_size=30).map(" ".join)
WTREE = st.recursive(
    st.tuples(TAGS, WORD_TEXT | TEXT, TEXT, st.just(())),
    lambda children: st.tuples(TAGS | st.sampled_from(["h1", "h3", "h10", "hx"]), WORD_TEXT | TEXT, TEXT,
                               st.lists(children, max_size=6).map(tuple)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(WTREE, st.sampled_from(range(len(PARAMS))), st.sampled_from(range(5)))
def test_generated_worded_trees_classified(spec, k, s):
    run_both(build(CORE_DOM, spec), build(REF_DOM, spec), stoplists()[s], *PARAMS[k])


def test_revise_with_preset_classes_and_odd_fields():
    html = "<html><body>" + "".join(
        f"<p>{'the and of ' * (i % 7) * 8}word{i}</p>" + ("<h3>head</h3>" if i % 3 == 0 else "") for i in range(40)
    ) + "</body></html>"
    core_root, ref_root = CORE_DOM.fromstring(html), REF_DOM.fromstring(html)
    for params, distance in PARAMS:
        core = ParagraphMaker.make_paragraphs(core_root)
        ref = ParagraphMaker.make_paragraphs(ref_root)
        for group in (core, ref):
            classify_paragraphs(group, get_stoplist("English"), *params)
            for i, p in enumerate(group):
                p.class_type = ("good", "", "bad", "neargood", "short")[i % 5]  # a revision seen before
        revise_paragraph_classification(core, distance)
        revise_paragraph_classification(ref, distance)
        assert classes(core) == classes(ref)
    # fields the C loops do not take: the Python loops run (and fail the same way)
    core = ParagraphMaker.make_paragraphs(core_root)
    ref = ParagraphMaker.make_paragraphs(ref_root)
    for group in (core, ref):
        classify_paragraphs(group, get_stoplist("English"), *PARAMS[2][0])
        group[1].heading = 1          # truthy, not a bool
        group[2].cf_class = "other"   # an unknown class
    revise_paragraph_classification(core, 200.5)
    revise_paragraph_classification(ref, 200.5)
    assert classes(core) == classes(ref)
    for group in (core, ref):
        del group[3].cf_class
    errors = []
    for group in (core, ref):
        try:
            revise_paragraph_classification(group, 200)
        except AttributeError as err:
            errors.append(str(err))
    assert len(errors) == 2
    for group in (core, ref):
        group[0].chars_count_in_links = 3.0  # a float count: the Python loop
        classify_paragraphs(group, frozenset(["the"]), 50, 150, 0.1, 0.2, 0.25, False)
    assert [(p.cf_class, p.heading) for p in core] == [(p.cf_class, p.heading) for p in ref]


@needs_corpora
def test_corpus_pages_classified():
    from trafila.v2_3_1.baseline import basic_cleaning
    from trafila.v2_3_1._tree import copy_tree
    from trafila.v2_3_1.utils import load_html

    compared = 0
    lists = stoplists()
    for n, (_bundle, page) in enumerate(sample_pages(("trafilatura", "cleaneval", "goose3", "cleanportaleval"), 3)):
        form = "str" if "str" in page.forms() else "bytes"
        trees = []
        for backend in (_backend.core_backend(CORE), _backend.reference()):
            with _backend.use(backend):
                tree = load_html(page.input(form))
                trees.append(None if tree is None else basic_cleaning(copy_tree(tree)))
        if trees[0] is None:
            assert trees[1] is None
            continue
        assert _backend.core_of(trees[0]) is not None and _backend.core_of(trees[1]) is None
        params, distance = PARAMS[n % len(PARAMS)]
        run_both(trees[0], trees[1], lists[n % len(lists)], params, distance)
        compared += 1
    assert compared >= 150


@settings(max_examples=500, deadline=None)
@given(words=st.lists(st.sampled_from(DENSITY_WORDS + ["x" * 64, "X" * 65, "the" * 30]) | st.text(max_size=4),
                      max_size=20),
       seps=st.lists(st.sampled_from([" ", "\u00a0", "\u3000", "\x1f", "\u2029", "", "\t"]), max_size=20))
def test_stopwords_density_table_is_the_paragraphs(words, seps):
    from trafila.justext import all_stoplists

    text = "".join(w + (seps[i] if i < len(seps) else " ") for i, w in enumerate(words))
    paragraph = Paragraph.__new__(Paragraph)
    paragraph.text_nodes = [text]
    for stoplist in (all_stoplists(), frozenset(["the", "a", "σ", "ς", "i̇stanbul", "strasse", "und", "ǆ", "x" * 64,
                                                 "x" * 65, "the" * 30]),
                     frozenset(["the", b"a", 1]), frozenset()):
        expected = Paragraph.stopwords_density(paragraph, stoplist)
        got = CORE.stopwords_density_table(paragraph.text, stoplist)
        assert got == expected and type(got) is type(expected)


def test_namespaced_tags_take_the_python_walk():
    root = CORE_DOM.Element("{urn:x}div")
    child = CORE_DOM.SubElement(root, "p")
    child.text = "some text"
    assert CORE.justext_paragraphs(root, frozenset({"p", "div"}), MadeParagraph) is NotImplemented
    got = ParagraphMaker.make_paragraphs(root)
    assert [p.dom_path for p in got] == ["div.p"] and not any(type(p) is MadeParagraph for p in got)
