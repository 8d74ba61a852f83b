"""trafila.Document and the input types of 2.3.1 mode, against trafilatura 2.3.1."""

from __future__ import annotations

import pickle
import warnings

import pytest

import trafila
from trafila import _delegation, _document, _trees

from .conftest import needs_trafilatura_231

needs_lxml = pytest.mark.skipif(not _trees.lxml_available(), reason="needs lxml")

PAGES = [
    "<html><body><article>" + "".join(f"<p>Paragraph {i} with <b>bold</b> and <i>italic</i> text, "
                                     f"long enough to be kept by the extractor.</p>" for i in range(6))
    + "</article><div id='comments'><p>First comment, friendly and short.</p></div></body></html>",
    "<html><body><main><h2>Heading</h2><ul><li>one item of a list</li><li>another item</li></ul>"
    "<table><tr><td>cell a</td><td>cell b</td></tr></table>" + "<p>Some closing words of the page. </p>" * 8
    + "</main></body></html>",
    "<!DOCTYPE html><html><head><title>t</title></head><body><div><blockquote>A quote that matters "
    "quite a lot to someone.</blockquote><pre>code\n  block</pre>" + "<p>text text text text</p>" * 20
    + "</div></body></html>",
]


def _xml(tree):
    from lxml import etree

    return etree.tostring(tree, encoding="unicode")


@needs_trafilatura_231
def test_document_subclasses_trafilaturas_and_has_its_fields():
    from trafilatura.settings import Document as TDocument

    doc = trafila.bare_extraction(PAGES[0])
    assert isinstance(doc, TDocument) and isinstance(doc, trafila.Document)
    assert trafila.Document is type(doc) and issubclass(trafila.Document, TDocument)
    theirs = TDocument()
    assert list(doc.as_dict()) == list(theirs.as_dict())
    for field in ("title", "author", "url", "hostname", "date", "fingerprint", "id", "language", "filedate"):
        assert getattr(doc, field) is None
    empty = trafila.Document()
    assert _xml(empty.body) == "<body/>" and empty.text is None


@needs_trafilatura_231
@pytest.mark.parametrize("page", range(len(PAGES)))
@pytest.mark.parametrize("kwargs", [{}, {"fast": True}, {"include_comments": False}, {"output_format": "txt"}],
                         ids=["default", "fast", "nocomments", "txt"])
def test_fields_and_trees_equal_trafilaturas(page, kwargs):
    import trafilatura

    ours = trafila.bare_extraction(PAGES[page], **kwargs)
    theirs = trafilatura.bare_extraction(PAGES[page], **kwargs)
    for field in ("text", "comments", "raw_text"):
        assert getattr(ours, field) == getattr(theirs, field), field
    for field in ("body", "commentsbody"):
        assert type(getattr(ours, field)).__module__.startswith("lxml")
        assert _xml(getattr(ours, field)) == _xml(getattr(theirs, field)), field


@needs_trafilatura_231
def test_as_dict_gives_lxml_trees():
    import trafilatura

    with pytest.warns(DeprecationWarning):
        ours = trafila.bare_extraction(PAGES[0], as_dict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = trafilatura.bare_extraction(PAGES[0], as_dict=True)
    assert list(ours) == list(theirs)
    assert _xml(ours["body"]) == _xml(theirs["body"]) and ours["text"] == theirs["text"]


@needs_lxml
@pytest.mark.parametrize("read_first", [False, True])
def test_document_pickles(read_first):
    doc = trafila.bare_extraction(PAGES[0])
    before = _xml(doc.body) if read_first else None
    clone = pickle.loads(pickle.dumps(doc))
    assert type(clone) is type(doc)
    assert (clone.text, clone.comments, clone.raw_text) == (doc.text, doc.comments, doc.raw_text)
    assert _xml(clone.body) == _xml(doc.body) and _xml(clone.commentsbody) == _xml(doc.commentsbody)
    if before is not None:
        assert before == _xml(doc.body)


@needs_lxml
def test_without_lxml_trees_are_xml_strings(monkeypatch):
    monkeypatch.setattr(_trees, "lxml_available", lambda: False)
    doc = trafila.bare_extraction(PAGES[1])
    body = doc.body  # built on first read
    monkeypatch.undo()
    assert isinstance(body, str) and body.startswith("<body>") and doc.body is body
    lx = trafila.bare_extraction(PAGES[1])
    assert doc.body == _xml(lx.body)
    assert doc.native_tree("body") == doc.body  # already public


@needs_lxml
def test_native_tree_needs_no_conversion(engine_231):
    doc = engine_231.bare_extraction(PAGES[0])
    tree = doc.native_tree("body")
    # the engine's own element model, not an lxml copy
    assert isinstance(tree, engine_231.dom.element_type)
    assert "".join(tree.itertext()) == "".join(doc.body.itertext())


@needs_trafilatura_231
@pytest.mark.parametrize("value", [1, None, [1], 3.5, bytearray(b"<html><body><p>x</p></body></html>"),
                                   memoryview(b"<html></html>"), object(), {"a": 1}],
                         ids=["int", "None", "list", "float", "bytearray", "memoryview", "object", "dict"])
@pytest.mark.parametrize("function", ["extract", "bare_extraction"])
def test_other_input_types_give_none_as_trafilatura(function, value):
    import trafilatura

    before = trafila.delegated_calls
    assert getattr(trafilatura, function)(value) is None
    assert getattr(trafila, function)(value) is None
    assert trafila.delegated_calls == before


@needs_trafilatura_231
def test_invalid_options_raise_as_trafilatura():
    import trafilatura

    for kwargs, exc in (({"output_format": "yaml"}, AttributeError), ({"max_tree_size": 5}, ValueError)):
        with pytest.raises(exc):
            trafilatura.extract(PAGES[0], **kwargs)
        with pytest.raises(exc):
            trafila.extract(PAGES[0], **kwargs)
    with pytest.raises(ValueError, match="python"):
        trafilatura.extract(PAGES[0], output_format="python")
    with pytest.raises(ValueError, match="python"):
        trafila.extract(PAGES[0], output_format="python")


@needs_trafilatura_231
@pytest.mark.parametrize("digits", [4299, 4300, 4301, 6000])
def test_long_numeric_references_as_trafilatura(digits):
    """A &# reference of more than 4,300 digits: html.unescape's int() raises
    CPython's ValueError inside the JSON-LD rescue; trafilatura (and trafila)
    discard the page; in the body text libxml2 keeps it as text."""
    import json

    import trafilatura

    ref = "&#" + "0" * (digits - 2) + "65;"
    in_json = ('<html><head><script type="application/ld+json">'
               + json.dumps({"@type": "NewsArticle", "articleBody": "Body text " * 30 + ref})
               + "</script></head><body><p>short</p></body></html>")
    in_body = "<html><body><article><p>" + "words here " * 30 + ref + "</p></article></body></html>"
    for page in (in_json, in_body):
        assert trafila.extract(page) == trafilatura.extract(page)
    with pytest.raises(ValueError, match="4300"):
        int("1" * 4301)


@needs_trafilatura_231
@pytest.mark.parametrize("function,kwargs", [("extract", {"no_fallback": True}), ("bare_extraction", {"no_fallback": True}),
                                             ("bare_extraction", {"as_dict": True})])
def test_deprecation_warnings_point_at_the_caller(function, kwargs):
    import trafilatura

    for module in (trafilatura, trafila):
        with pytest.warns(DeprecationWarning) as record:
            result = getattr(module, function)(PAGES[0], **kwargs)
        assert [w.filename for w in record if w.category is DeprecationWarning] == [__file__], module
        assert result is not None
    text = lambda r: r if isinstance(r, str) else (r["text"] if isinstance(r, dict) else r.text)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert text(getattr(trafila, function)(PAGES[0], **kwargs)) == text(getattr(trafilatura, function)(PAGES[0], **kwargs))


@needs_lxml
def test_plain_document_starts_with_empty_bodies():
    doc = _document._PlainDocument(title="t", idval="x")
    assert (doc.title, doc.id, doc.text) == ("t", "x", None)
    assert _xml(doc.body) == "<body/>" and _xml(doc.commentsbody) == "<body/>"
    assert list(doc.as_dict()) == list(_document.DOCUMENT_FIELDS)
    with pytest.raises(TypeError):
        _document._PlainDocument(id="x")


def test_import_and_extract_need_neither_trafilatura_nor_lxml():
    import os
    import subprocess
    import sys

    code = ("import sys, trafila; t = trafila.extract(%r); "
            "print(bool(t), 'trafilatura' in sys.modules, 'lxml' in sys.modules)") % PAGES[0]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "False"]


@needs_lxml
def test_copy_and_deepcopy_keep_fields_and_trees():
    import copy

    doc = trafila.bare_extraction(PAGES[0])
    for clone in (copy.copy(doc), copy.deepcopy(doc)):
        assert type(clone) is type(doc) and clone.text == doc.text
        assert _xml(clone.body) == _xml(doc.body) and clone.body is not doc.body


def test_document_without_trafilatura():
    import os
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['trafilatura'] = None\n"
        "import pickle, trafila\n"
        "doc = trafila.bare_extraction(%r)\n"
        "print(type(doc).__mro__[1].__name__, bool(doc.text), pickle.loads(pickle.dumps(doc)).text == doc.text)\n"
        "try:\n    trafila.extract(%r, prune_xpath='//body//footer')\nexcept trafila.TrafilaError as e:\n    print('TrafilaError', 'trafilatura==2.3.1' in str(e))\n"
    ) % (PAGES[0], PAGES[0])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["_PlainDocument", "True", "True", "TrafilaError", "True"]


@needs_trafilatura_231
def test_from_dict_and_clean_and_trim_as_trafilatura():
    from trafilatura.settings import Document as TDocument

    data = {"text": "x", "title": " a &amp; b \n c ", "author": "y" * 10050}
    ours, theirs = trafila.Document.from_dict(data), TDocument.from_dict(data)
    ours.clean_and_trim()
    theirs.clean_and_trim()
    assert type(ours) is trafila.Document
    assert {k: v for k, v in ours.as_dict().items() if k not in ("body", "commentsbody")} == {
        k: v for k, v in theirs.as_dict().items() if k not in ("body", "commentsbody")}
