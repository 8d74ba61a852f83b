"""The rest of trafilatura 2.3.1's top-level API: baseline and html2txt native,
load_html / extract_metadata / fetch_* delegated, same signatures."""

from __future__ import annotations

import inspect
import json
import warnings

import pytest

import trafila
from trafila import _delegation

from .conftest import needs_trafilatura_231

pytestmark = needs_trafilatura_231

PAGES = [
    "<html><body><article><p>" + "An article paragraph with words. " * 12 + "</p></article></body></html>",
    "<html><body><div>" + "<p>Short paragraph number one here.</p>" * 8 + "</div></body></html>",
    '<html><head><script type="application/ld+json">'
    + json.dumps({"@type": "NewsArticle", "articleBody": "Body from JSON &amp; more. " * 10})
    + "</script></head><body><p>tiny</p></body></html>",
    "<html><body><nav>menu</nav><table><tr><td>cell text</td></tr></table><footer>foot</footer></body></html>",
    "not html at all",
    "",
]


def _xml(tree):
    from lxml import etree

    return etree.tostring(tree, encoding="unicode")


def test_top_level_names_and_signatures():
    import trafilatura

    for name in trafilatura.__all__:
        assert hasattr(trafila, name), name
        if name in ("extract", "bare_extraction", "extract_with_metadata"):
            continue
        ours, theirs = inspect.signature(getattr(trafila, name)), inspect.signature(getattr(trafilatura, name))
        assert list(ours.parameters) == list(theirs.parameters), name
        for p in ours.parameters.values():
            q = theirs.parameters[p.name]
            assert p.kind == q.kind and (p.default == q.default or p.name == "config"), (name, p.name)


@pytest.mark.parametrize("page", range(len(PAGES)))
@pytest.mark.parametrize("form", ["str", "bytes"])
def test_baseline_and_html2txt_native(engine_231, page, form):
    import trafilatura

    html = PAGES[page] if form == "str" else PAGES[page].encode()
    before = trafila.delegated_calls
    ours, theirs = engine_231.baseline(html), trafilatura.baseline(html)
    assert (_xml(ours[0]),) + ours[1:] == (_xml(theirs[0]),) + theirs[1:]
    for clean in (True, False):
        assert engine_231.html2txt(html, clean) == trafilatura.html2txt(html, clean)
    assert trafila.delegated_calls == before


def test_baseline_long_numeric_reference_raises_cpythons_valueerror(engine_231):
    import trafilatura

    ref = "&#" + "1" * 4301 + ";"
    page = ('<html><head><script type="application/ld+json">'
            + json.dumps({"@type": "NewsArticle", "articleBody": "Body text " * 30 + ref})
            + "</script></head><body><p>short</p></body></html>")
    with pytest.raises(ValueError, match="4300") as theirs:
        trafilatura.baseline(page)
    with pytest.raises(ValueError, match="4300") as ours:
        engine_231.baseline(page)
    assert str(ours.value) == str(theirs.value)


def test_delegated_helpers():
    import lxml.html
    import trafilatura

    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning, match="load_html handed"):
        tree = trafila.load_html(PAGES[0])
    assert isinstance(tree, lxml.html.HtmlElement)
    # a string runs on the engine (tests/test_metadata.py); an lxml tree is handed over
    with pytest.warns(trafila.FallbackWarning, match="extract_metadata handed.*lxml tree input"):
        meta = trafila.extract_metadata(
            lxml.html.fromstring("<html><head><title>Hello there</title></head><body><p>x</p></body></html>"))
    assert isinstance(meta, trafila.Document) and meta.title == "Hello there"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # lxml input to baseline is delegated: trafilatura's result
        got = trafila.baseline(lxml.html.fromstring(PAGES[0]))
    want = trafilatura.baseline(lxml.html.fromstring(PAGES[0]))
    assert got[1:] == want[1:]


@pytest.mark.parametrize("call", [
    # an XPath outside trafila.userxpath's subset
    lambda: trafila.extract(PAGES[0], prune_xpath="//div//footer"),
    lambda: trafila.bare_extraction(PAGES[0], prune_xpath="//div//footer"),
    lambda: trafila.extract_with_metadata(PAGES[0], prune_xpath="//div//footer"),
    lambda: trafila.load_html(PAGES[0]),
    # lxml tree input is delegated (bytes in any charset are native: tests/test_decoding.py)
    lambda: trafila.baseline(__import__("lxml.html").html.fromstring(PAGES[0])),
], ids=["extract", "bare_extraction", "extract_with_metadata", "load_html", "baseline"])
def test_fallback_warning_points_at_the_caller(call):
    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning) as record:
        call()
    assert [w.filename for w in record if w.category is trafila.FallbackWarning] == [__file__]
