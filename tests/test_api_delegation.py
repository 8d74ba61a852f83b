"""The delegation matrix of 2.3.1 mode, option by option: one FallbackWarning
naming the reason, then trafilatura 2.3.1's own result; TrafilaError without
trafilatura or with another release."""

from __future__ import annotations

import sys
import warnings
from configparser import ConfigParser

import pytest

import trafila
from trafila import _delegation

from .conftest import needs_trafilatura_231

pytestmark = needs_trafilatura_231

PAGE = (
    "<html><head><title>A title here</title><meta name='author' content='Jane Doe'>"
    "<meta property='article:published_time' content='2021-03-04'>"
    "<link rel='canonical' href='https://example.org/post'></head><body>"
    "<div id='side'><p>Side text that is not the article but long enough to count for something.</p></div>"
    "<article><h1>A title here</h1>"
    + "".join(
        f"<p>Paragraph {i} has <b>bold words</b>, a <a href='/l{i}'>link number {i}</a> and "
        f"an image <img src='/i{i}.jpg' alt='pic'> with plenty of plain words to keep.</p>"
        for i in range(8)
    )
    + "</article><div class='comments'><p>A comment that says something nice.</p></div></body></html>"
)


def _native_cases():
    import lxml.html
    import trafilatura
    from trafilatura.deduplication import LRUCache as TLRU
    from trafilatura.settings import Extractor
    from trafilatura.utils import Response

    neg = ConfigParser()
    neg.read_dict({"DEFAULT": dict(trafilatura.settings.DEFAULT_CONFIG["DEFAULT"])})
    neg["DEFAULT"]["MIN_EXTRACTED_SIZE"] = "-1"
    raw = PAGE.encode()
    # csv, json, html, xml and include_images are native: test_formats_and_images_are_native below
    # metadata (every output format, xmltei too) and the XPaths of trafila.userxpath are native:
    # tests/test_output_formats.py
    cases = [
        ("target_language", {"target_language": "en"}),
        ("prune_xpath: an XPath trafila does not evaluate", {"prune_xpath": "//div[@id='side']//p"}),
        ("options= a trafilatura Extractor", {"options": Extractor(output_format="txt", fast=True)}),
        ("deduplicate= trafilatura's own LRUCache", {"deduplicate": TLRU(maxsize=8)}),
        ("lxml tree input", {"filecontent": lxml.html.fromstring(PAGE)}),
        ("HTTP response input", {"filecontent": Response(raw, 200, "https://example.org/post")}),
        # compressed and non-UTF-8 bytes are native (trafila._decoding); without charset_normalizer the
        # latter are handed over: tests/test_decoding.py
        ("negative MIN_EXTRACTED_SIZE", {"config": neg}),
    ]
    return cases


CASE_IDS = [
    "target_language", "prune_xpath", "options",
    "trafilatura_lru", "lxml_tree", "response", "negative_size",
]


@pytest.fixture(autouse=True)
def fresh_warnings():
    _delegation._warned.clear()
    trafila.reset_caches()
    yield
    _delegation._warned.clear()


def _call(module, function, kwargs):
    kwargs = dict(kwargs)
    filecontent = kwargs.pop("filecontent", PAGE)
    return getattr(module, function)(filecontent, **kwargs)


def _comparable(function, result):
    if function == "extract" or result is None:
        return result
    if isinstance(result, dict):
        return {k: result[k] for k in ("text", "comments", "raw_text", "title", "author")}
    return {k: getattr(result, k) for k in ("text", "comments", "raw_text", "title", "author")}


@pytest.mark.parametrize("index", range(len(CASE_IDS)), ids=CASE_IDS)
@pytest.mark.parametrize("function", ["extract", "bare_extraction"])
def test_delegated_once_with_trafilaturas_result(function, index):
    import trafilatura

    reason, kwargs = _native_cases()[index]
    before = trafila.delegated_calls
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = _call(trafila, function, kwargs)
        ours_again = _call(trafila, function, kwargs)
    fallback = [w for w in caught if issubclass(w.category, trafila.FallbackWarning)]
    assert len(fallback) == 1, [str(w.message) for w in fallback]
    assert str(fallback[0].message).endswith(f"{function} handed to trafilatura 2.3.1: {reason}")
    assert trafila.delegated_calls == before + 2
    trafila.reset_caches()
    if "deduplicate" in kwargs:
        kwargs = dict(kwargs, deduplicate=type(kwargs["deduplicate"])(maxsize=8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _call(trafilatura, function, kwargs)
    assert _comparable(function, ours) == _comparable(function, theirs)
    del ours_again


#: run natively since the harness matrix proved them (sets links, formatting, markdown and bare-*)
NATIVE_OPTIONS = [{"include_links": True}, {"include_formatting": True}, {"output_format": "markdown"},
                  {"output_format": "markdown", "include_links": True}]


@pytest.mark.parametrize("kwargs", NATIVE_OPTIONS, ids=["links", "formatting", "markdown", "markdown-links"])
@pytest.mark.parametrize("function", ["extract", "bare_extraction"])
def test_links_formatting_markdown_are_native(function, kwargs):
    import trafilatura

    before = trafila.delegated_calls
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.FallbackWarning)
        ours = _call(trafila, function, kwargs)
    assert trafila.delegated_calls == before
    theirs = _call(trafilatura, function, kwargs)
    assert _comparable(function, ours) == _comparable(function, theirs)
    if function == "extract" and "include_links" in kwargs and kwargs.get("output_format") == "markdown":
        assert "a [link number 0](/l0) and" in ours  # the option took effect natively


#: native since the formats port (the harness sets json, xml, csv, html, images, bare-images, xml-links-formatting)
FORMAT_OPTIONS = [{"output_format": fmt} for fmt in ("csv", "json", "html", "xml")] + [
    {"include_images": True}, {"output_format": "xml", "include_links": True, "include_formatting": True},
]


@pytest.mark.parametrize("kwargs", FORMAT_OPTIONS, ids=["csv", "json", "html", "xml", "images", "xml-links-formatting"])
@pytest.mark.parametrize("function", ["extract", "bare_extraction"])
def test_formats_and_images_are_native(monkeypatch, function, kwargs):
    import trafilatura

    before = trafila.delegated_calls
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.FallbackWarning)
        ours = _call(trafila, function, kwargs)
    assert trafila.delegated_calls == before
    theirs = _call(trafilatura, function, kwargs)
    assert _comparable(function, ours) == _comparable(function, theirs)
    trafila.reset_caches()
    monkeypatch.setitem(sys.modules, "trafilatura", None)
    assert _comparable(function, _call(trafila, function, kwargs)) == _comparable(function, ours)


@pytest.mark.parametrize("index", range(len(CASE_IDS)), ids=CASE_IDS)
@pytest.mark.parametrize("function", ["extract", "bare_extraction"])
def test_trafila_error_without_trafilatura(monkeypatch, function, index):
    reason, kwargs = _native_cases()[index]
    before = trafila.delegated_calls
    monkeypatch.setitem(sys.modules, "trafilatura", None)
    with pytest.raises(trafila.TrafilaError, match="trafilatura==2.3.1 installed") as err:
        _call(trafila, function, kwargs)
    assert str(err.value).startswith(f"{function}: ")
    assert trafila.delegated_calls == before


def test_trafila_error_with_another_release(monkeypatch):
    import trafilatura

    monkeypatch.setattr(trafilatura, "__version__", "2.0.0")
    with pytest.raises(trafila.TrafilaError, match="found 2.0.0"):
        trafila.extract(PAGE, prune_xpath="//div//footer")


def test_extract_with_metadata_is_native(monkeypatch):
    import trafilatura

    theirs = trafilatura.extract_with_metadata(PAGE)
    monkeypatch.setitem(sys.modules, "trafilatura", None)
    before = trafila.delegated_calls
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.FallbackWarning)
        ours = trafila.extract_with_metadata(PAGE)
    assert trafila.delegated_calls == before
    assert (ours.text, ours.title, ours.author, ours.date) == (theirs.text, theirs.title, theirs.author, theirs.date)


def test_int_max_str_digits_other_than_4300_is_delegated():
    import json

    import trafilatura

    body = "Body text " * 30 + "&#" + "0" * 4300 + "65;"
    page = ('<html><head><script type="application/ld+json">'
            + json.dumps({"@type": "NewsArticle", "articleBody": body})
            + "</script></head><body><p>short</p></body></html>")
    # the limit in force: the reference's int() conversion fails and the page is discarded, as upstream
    assert trafila.extract(page) is None and trafilatura.extract(page) is None
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        with pytest.warns(trafila.FallbackWarning, match=r"set_int_max_str_digits\(0\)"):
            ours = trafila.extract(page)
        theirs = trafilatura.extract(page)
    finally:
        sys.set_int_max_str_digits(old)
    assert ours == theirs and ours.endswith("A")


def test_native_calls_are_not_delegated():
    before = trafila.delegated_calls
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.FallbackWarning)
        trafila.extract(PAGE)
        trafila.extract(PAGE.encode(), fast=True, favor_precision=True, include_comments=False)
        trafila.bare_extraction(PAGE, include_tables=False, deduplicate=True)
        trafila.extract(PAGE, output_format="txt", url_blacklist=set(), author_blacklist=set(), include_formatting=False)
    assert trafila.delegated_calls == before


def test_delegated_documents_are_trafila_documents_and_pickle():
    import pickle

    import trafilatura
    from lxml import etree

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = trafila.bare_extraction(PAGE, with_metadata=True)
        meta = trafila.extract_with_metadata(PAGE)
    theirs = trafilatura.bare_extraction(PAGE, with_metadata=True)
    for d in (doc, meta):
        assert isinstance(d, trafila.Document) and isinstance(d, trafilatura.settings.Document)
    assert doc.as_dict().keys() == theirs.as_dict().keys()
    assert (doc.title, doc.author, doc.date, doc.text) == (theirs.title, theirs.author, theirs.date, theirs.text)
    clone = pickle.loads(pickle.dumps(doc))
    assert (clone.title, clone.text) == (doc.title, doc.text)
    assert etree.tostring(clone.body) == etree.tostring(theirs.body)


@pytest.mark.parametrize("value,delegated", [("-5", True), ("0", False), ("400", False)])
def test_settingsfile_sizes(tmp_path, value, delegated):
    import trafilatura

    cfg = tmp_path / "settings.cfg"
    cfg.write_text(f"[DEFAULT]\nMIN_OUTPUT_SIZE = {value}\nMIN_EXTRACTED_SIZE = {value}\n")
    before = trafila.delegated_calls
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = trafila.extract(PAGE, settingsfile=str(cfg))
    assert (trafila.delegated_calls == before + 1) is delegated
    assert ours == trafilatura.extract(PAGE, settingsfile=str(cfg))


@pytest.mark.parametrize("name", ["MANUALLY_CLEANED", "MANUALLY_STRIPPED", "CUT_EMPTY_ELEMS"])
def test_settings_lists_changed_in_place_are_delegated(name):
    "trafilatura documents in-place changes of these lists (#746): its result follows them, so trafila's does."
    import trafilatura
    from trafilatura import settings

    page = PAGE.replace("</article>", "<blockquote>Quoted words kept by default here.</blockquote></article>")
    target = getattr(settings, name)
    added = {"MANUALLY_CLEANED": "blockquote", "MANUALLY_STRIPPED": "b", "CUT_EMPTY_ELEMS": "img"}[name]
    (target.add if isinstance(target, set) else target.append)(added)
    try:
        with pytest.warns(trafila.FallbackWarning, match=f"trafilatura.settings.{name} changed in place"):
            ours = trafila.extract(page, fast=True)
        assert ours == trafilatura.extract(page, fast=True)
    finally:
        target.remove(added)
    if name == "MANUALLY_CLEANED":
        assert "Quoted words" not in ours and "Quoted words" in trafilatura.extract(page, fast=True)
    before = trafila.delegated_calls
    assert trafila.extract(page, fast=True) == trafilatura.extract(page, fast=True)
    assert trafila.delegated_calls == before  # restored: native again
