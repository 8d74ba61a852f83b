"""trafila.v1_11_0: 1.11.0's API semantics, pinned (signatures, config
precedence, cache, delegation, quirks), plus the readability fork's XML
serialiser checked against lxml."""

from __future__ import annotations

import configparser
import inspect

import pytest

from tests._helpers import bridged_v1_11_0_parser
from trafila._engine import NotNative
from trafila.v1_11_0 import core, deduplication, settings, utils

ARTICLE = "<html><body><article><p>" + "Hello world, this is a sentence of the test. " * 12 + "</p></article></body></html>"
EXPECTED = ("Hello world, this is a sentence of the test. " * 12).strip()


@pytest.fixture(autouse=True)
def _lxml_parser():
    """Parse with lxml (trafilatura's parser options) + the bridge, as the driver does."""
    with bridged_v1_11_0_parser():
        yield


def test_extract_basic_text():
    assert core.extract(ARTICLE) == EXPECTED
    assert core.extract(ARTICLE, no_fallback=True) == EXPECTED


def test_extract_ignores_unknown_keywords_but_not_old_output_names():
    assert core.extract(ARTICLE, no_fallback=True, some_unknown_option=3) == EXPECTED
    with pytest.raises(NameError):
        core.extract(ARTICLE, xml_output=True)


def test_bare_extraction_has_no_fast_and_returns_a_dict():
    with pytest.raises(TypeError):
        core.bare_extraction(ARTICLE, fast=True)  # type: ignore[call-arg]
    result = core.bare_extraction(ARTICLE, no_fallback=True)
    assert isinstance(result, dict)
    assert list(result) == list(settings.Document.__slots__)
    assert result["text"] == EXPECTED and result["raw_text"] == EXPECTED
    doc = core.bare_extraction(ARTICLE, no_fallback=True, as_dict=False)
    assert isinstance(doc, settings.Document) and doc.body.tag == "body"


def test_signatures_follow_1_11_0():
    extract_params = inspect.signature(core.extract).parameters
    assert "fast" not in extract_params and "max_tree_size" in extract_params
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in extract_params.values())
    bare = inspect.signature(core.bare_extraction).parameters
    assert bare["as_dict"].default is True and bare["output_format"].default == "python"
    assert bare["include_formatting"].default is False


def test_default_config_is_1_11_0_settings():
    cfg = core.DEFAULT_CONFIG
    assert cfg.getint("DEFAULT", "MIN_EXTRACTED_SIZE") == 250
    assert cfg.getint("DEFAULT", "MIN_EXTRACTED_COMM_SIZE") == 1
    assert cfg.get("DEFAULT", "SLEEP_TIME") == "5"
    assert not cfg.has_option("DEFAULT", "MAX_TREE_SIZE")


def test_settingsfile_ignored_unless_config_is_none(tmp_path):
    partial = tmp_path / "partial.cfg"
    partial.write_text("[DEFAULT]\nMIN_OUTPUT_SIZE = 100000\n")
    # config defaults to DEFAULT_CONFIG, which wins: the file is not read
    assert core.extract(ARTICLE, no_fallback=True, settingsfile=str(partial)) == EXPECTED
    # config=None: the file alone is read, the other keys are missing
    with pytest.raises(configparser.NoOptionError):
        core.extract(ARTICLE, no_fallback=True, settingsfile=str(partial), config=None)
    full = tmp_path / "full.cfg"
    values = dict(settings._DEFAULT_SETTINGS, MIN_OUTPUT_SIZE="100000")
    full.write_text("[DEFAULT]\n" + "".join(f"{k} = {v}\n" for k, v in values.items()))
    assert core.extract(ARTICLE, no_fallback=True, settingsfile=str(full), config=None) is None
    with pytest.raises(FileNotFoundError):
        core.extract(ARTICLE, settingsfile=str(tmp_path / "missing.cfg"), config=None)


def test_deduplicate_uses_the_global_cache_and_clear():
    results = [core.extract(ARTICLE, no_fallback=True, deduplicate=True) for _ in range(4)]
    # seen more than MAX_REPETITIONS (2) times: the paragraph, then the document, go
    assert results[0] == EXPECTED and results[-1] is None
    deduplication.LRU_TEST.clear()
    assert core.extract(ARTICLE, no_fallback=True, deduplicate=True) == EXPECTED


def test_max_tree_size_limits_the_output_tree():
    two = "<html><body><article>" + "<p>" + "Some words in a paragraph here. " * 5 + "</p>" * 1 + \
        "<p>" + "Other words in another paragraph. " * 5 + "</p></article></body></html>"
    assert core.extract(two, no_fallback=True, max_tree_size=5) is not None
    assert core.extract(two, no_fallback=True, max_tree_size=1) is None


def test_delegation_for_other_options():
    # metadata, xmltei and the XPaths of trafila.userxpath are native (tests/test_output_formats.py)
    for kwargs in (dict(prune_xpath="//div//p"), dict(prune_xpath="//html"), dict(prune_xpath=("//p", 1))):
        with pytest.raises(NotNative):
            core.extract(ARTICLE, **kwargs)


@pytest.mark.parametrize("fmt", ["xml", "csv", "json", "html"])
def test_output_formats_are_native(fmt):
    got = core.extract(ARTICLE, output_format=fmt)
    assert got is not None and "Hello world, this is a sentence" in got
    trafilatura = pytest.importorskip("trafilatura")
    if trafilatura.__version__ == "1.11.0":
        assert got == trafilatura.extract(ARTICLE, output_format=fmt)


def test_direct_bare_extraction_of_rejected_input_raises_attribute_error():
    # 1.11.0 logs options.source while options is still None
    with pytest.raises(AttributeError):
        core.bare_extraction("<div>too short</div>")
    assert core.extract("<div>too short</div>") is None


def test_doctype_quirk_of_1_11_0():
    # the lazy DOCTYPE pattern eats up to the first "/>" of a minified first line
    src = '<!DOCTYPE html><html><head><meta charset="utf-8"/></head><body><p>x</p></body></html>'
    assert utils.repair_faulty_html(src, src[:50].lower()) == "</head><body><p>x</p></body></html>\n"


@pytest.mark.parametrize("html", [
    "<html><body><div class='a&amp;b' title='x\"y\n\tz'>t &lt; u &amp; v<br>tail\r</div><p></p></body></html>",
    "<html><body><div>é\ufffd\u2028 x\r\n&#1;<br></div><span>a<b>b</b>c</span>d</body></html>",
    # a noncharacter the parser keeps: written so that the re-parse gives it back (not U+FFFD)
    "<html><body><div>water where!&#xFFFE; Such<i>well</i>&#xFFFF;</div></body></html>",
])
def test_xml_tostring_matches_lxml(html):
    "The serialiser 1.11.0's readability summary goes through (trafila.html.serialize), against lxml's."
    lxml_html = pytest.importorskip("lxml.html")
    from lxml.etree import tostring
    from harness.lxml_bridge import from_lxml
    from trafila.html.serialize import tostring as ours

    tree = lxml_html.fromstring(html)
    for el in tree.iter():
        assert ours(from_lxml(el), encoding=str, method="xml") == tostring(el, encoding=str, method="xml")
    # an empty text node is kept apart from no text: <b></b> versus <b/>
    tree[0][0].text = ""
    assert ours(from_lxml(tree), encoding=str, method="xml") == tostring(tree, encoding=str, method="xml")


def test_delegation_is_not_swallowed_for_non_utf8_bytes(monkeypatch):
    # NotImplementedError is a RuntimeError, which extract turns into None upstream;
    # charset detection is delegated only without charset_normalizer (trafila[charset])
    from trafila import _decoding

    monkeypatch.setattr(_decoding, "_from_bytes", lambda: None)
    with pytest.raises(NotNative, match="charset detection"):
        core.extract("<html><body><p>caf\u00e9</p></body></html>".encode("latin-1"))
    assert core.extract(ARTICLE.encode("utf-8"), no_fallback=True) == EXPECTED


URLS = [
    "https://www.example.org/news/a.html", "http://example.org", "https://ex.org:8080/x/y?q=1#f",
    "//cdn.example.org/a", "example.org/path", "https://www.example.org/a&amp;b/", "ftp://h/x", "",
]
TARGETS = [
    "/rel/path", "rel", "../up", "?q=2", "#frag", "https://other.org/x", "//other.org/y", "//www.example.org/z",
    "{template}", "mailto:a@b.c", "javascript:void(0)", "other.org/x", "http://www.example.org/abs", " /space",
]


def test_link_resolution_matches_courlan():
    urlutils = pytest.importorskip("courlan.urlutils")
    from trafila.v1_11_0 import htmlprocessing as hp

    for url in URLS:
        assert hp.get_base_url(url) == urlutils.get_base_url(url), url
        base = hp.get_base_url(url)
        if not base:
            continue
        for target in TARGETS:
            assert hp.fix_relative_urls(base, target) == urlutils.fix_relative_urls(base, target), (base, target)


def test_compressed_input_is_inflated():
    import gzip
    import zlib

    assert core.extract(gzip.compress(ARTICLE.encode("utf-8")), no_fallback=True) == EXPECTED
    assert core.extract(zlib.compress(ARTICLE.encode("utf-8")), no_fallback=True) == EXPECTED


_TERMINATORS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\n\r"]


@pytest.mark.parametrize("seed", range(300))
def test_first_lines_is_splitlines_prefix(seed):
    "utils.first_lines(s, n) is s.splitlines()[:n], also with lines around the prefix sizes it reads."
    import random

    rng = random.Random(seed)
    parts = []
    for _ in range(rng.randint(0, 8)):
        parts.append("x" * rng.choice([0, 1, 5, 4094, 4095, 4096, 4097, 16383, 16384, 20000]))
        parts.append(rng.choice(_TERMINATORS))
    s = "".join(parts)[: rng.randint(0, 70000)]
    for n in (1, 4):
        assert utils.first_lines(s, n) == s.splitlines()[:n]
