"""The public API under ``compat="1.11.0"``, each difference from 2.3.1 checked
against trafilatura 1.11.0 itself (this module runs where 1.11.0 is installed:
``tox -e parity-quick-1.11`` runs it before the quick parity subset).

What the port must do in every case is what trafilatura 1.11.0 does: the same
text, the same None, the same exception type.
"""

from __future__ import annotations

import configparser
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests._helpers import NEEDS_111

import trafila
from trafila import _delegation

from .conftest import trafilatura_version

pytestmark = pytest.mark.skipif(trafilatura_version() != "1.11.0",
                                reason=NEEDS_111)

P = "<p>" + "A sentence long enough to be kept by the extractor, with words. " * 6 + "</p>"
PAGE = ("<html><head><meta name='author' content='Jane Doe'></head><body><article><h2>Title</h2>"
        + P + "<p>Second <b>bold</b> paragraph, with <a href='/x'>a link</a> inside it and more words.</p>"
        + P.replace("sentence", "phrase") + "</article><div class='comments'><p>A comment here, nice.</p></div>"
        "</body></html>")


def _outcome(fn, *args, **kwargs):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn(*args, **kwargs)
    except Exception as err:  # noqa: BLE001 - the exception type is the outcome
        return ("raises", type(err).__name__), []
    if isinstance(result, dict):
        result = {k: result[k] for k in ("text", "comments", "raw_text")}
    elif result is not None and not isinstance(result, str):
        result = {k: getattr(result, k) for k in ("text", "comments", "raw_text")}
    return result, [w.category.__name__ for w in caught if issubclass(w.category, DeprecationWarning)]


@pytest.fixture(autouse=True)
def fresh_caches():
    from trafilatura import deduplication

    trafila.reset_caches()
    _delegation._warned.clear()  # one FallbackWarning per function and reason: each test sees its own
    deduplication.LRU_TEST.clear()
    yield
    trafila.reset_caches()
    deduplication.LRU_TEST.clear()


def test_default_config_is_1_11_0_settings():
    import trafilatura.settings

    assert dict(trafila.DEFAULT_CONFIGS["1.11.0"]["DEFAULT"]) == dict(trafilatura.settings.DEFAULT_CONFIG["DEFAULT"])


@pytest.fixture
def api(engine_111):
    "Each engine that runs 1.11.0 (trafila.engine(name)): every comparison below runs over both."
    return engine_111


def _same(api, function, *args, **kwargs):
    import trafilatura

    theirs = _outcome(getattr(trafilatura, function), *args, **kwargs)
    ours = _outcome(getattr(api, function), *args, compat="1.11.0", **kwargs)
    assert ours == theirs
    return theirs[0]


@pytest.mark.parametrize("kwargs", [{"some_unknown_option": 3}, {"fast": True}, {"fast": False},
                                    {"json_output": True}, {"xml_output": True}, {"csv_output": False},
                                    {"tei_output": True}, {"no_fallback": True, "another": None}])
def test_extract_keywords_as_1_11_0(api, kwargs):
    "Unknown keywords (fast included) are ignored; the old *_output names raise NameError."
    result = _same(api, "extract", PAGE, **kwargs)
    if any(k.endswith("_output") for k in kwargs):
        assert result == ("raises", "NameError")
    else:
        assert isinstance(result, str) and result.startswith("Title")


def test_unknown_keyword_is_a_type_error_in_2_3_1_mode(api):
    with pytest.raises(TypeError, match="some_unknown_option"):
        api.extract(PAGE, some_unknown_option=3)


@pytest.mark.parametrize("value", [True, False])
def test_bare_extraction_has_no_fast(api, value):
    assert _same(api, "bare_extraction", PAGE, fast=value) == ("raises", "TypeError")


@pytest.mark.parametrize("as_dict", [None, True, False])
def test_bare_extraction_dict_unless_as_dict_false(api, as_dict):
    import trafilatura

    kwargs = {} if as_dict is None else {"as_dict": as_dict}
    _same(api, "bare_extraction", PAGE, **kwargs)
    ours = api.bare_extraction(PAGE, compat="1.11.0", **kwargs)
    theirs = trafilatura.bare_extraction(PAGE, **kwargs)
    assert isinstance(ours, dict) == isinstance(theirs, dict) == (as_dict is not False)


@pytest.mark.parametrize("function", ["extract", "bare_extraction"])
def test_no_fallback_without_deprecation_warning(api, function):
    result, deprecations = _outcome(getattr(api, function), PAGE, no_fallback=True, compat="1.11.0")
    assert deprecations == [] and result is not None
    _same(api, function, PAGE, no_fallback=True)


@pytest.mark.parametrize("size", [1, 2, 3, 5, 50])
@pytest.mark.parametrize("function", ["extract", "bare_extraction"])
def test_max_tree_size_limits_the_output_tree(api, function, size):
    _same(api, function, PAGE, max_tree_size=size)


@pytest.mark.parametrize("blacklist", [{"Jane Doe"}, {"someone else"}, set()])
def test_author_blacklist_has_no_effect_on_text(api, blacklist):
    before = trafila.delegated_calls
    assert _same(api, "extract", PAGE, author_blacklist=blacklist).startswith("Title")
    assert trafila.delegated_calls == before  # native


@pytest.mark.parametrize("flag", ["true", "lru", "one"])
def test_deduplicate_is_a_flag_on_the_module_cache(api, flag):
    "Any true value deduplicates against the module cache (1.11.0 has no scoped caches)."
    import trafilatura

    value = {"true": True, "lru": trafila.LRUCache(maxsize=8), "one": 1}[flag]
    ours = [api.extract(PAGE, deduplicate=value, compat="1.11.0") for _ in range(4)]
    theirs = [trafilatura.extract(PAGE, deduplicate=value) for _ in range(4)]
    assert ours == theirs and ours[0] is not None and ours[-1] is None
    if flag == "lru":
        assert len(value.cache) == 0  # the given cache is not the one used


def test_config_wins_over_settingsfile(api, tmp_path):
    import trafilatura

    partial = tmp_path / "partial.cfg"
    partial.write_text("[DEFAULT]\nMIN_OUTPUT_SIZE = 100000\n")
    # the default config wins: the file is not read
    assert _same(api, "extract", PAGE, settingsfile=str(partial)).startswith("Title")
    # config=None: the file alone is read (its missing keys raise as upstream)
    assert _same(api, "extract", PAGE, settingsfile=str(partial), config=None) == ("raises", "NoOptionError")
    full = tmp_path / "full.cfg"
    cfg = configparser.ConfigParser()
    cfg.read_dict({"DEFAULT": dict(trafilatura.settings.DEFAULT_CONFIG["DEFAULT"], min_output_size="100000",
                                  min_output_comm_size="100000")})
    with open(full, "w") as fh:
        cfg.write(fh)
    assert _same(api, "extract", PAGE, settingsfile=str(full), config=None) is None
    # a config object given explicitly wins over the file
    assert _same(api, "extract", PAGE, settingsfile=str(full), config=trafilatura.settings.DEFAULT_CONFIG).startswith("Title")


@pytest.mark.parametrize("kwargs", [{"prune_xpath": "//body//footer"}, {"prune_xpath": "(//h2)[1]"}])
def test_delegated_options_give_1_11_0_results(api, kwargs):
    with pytest.warns(trafila.FallbackWarning, match="1.11.0"):
        ours = api.extract(PAGE, compat="1.11.0", **kwargs)
    import trafilatura

    assert ours == trafilatura.extract(PAGE, **kwargs)


@pytest.mark.parametrize("kwargs", [{"output_format": "xml"}, {"output_format": "json"}, {"output_format": "csv"},
                                    {"output_format": "html"}, {"include_formatting": True, "output_format": "xml"},
                                    {"include_images": True, "include_links": True, "output_format": "xml"},
                                    {"output_format": "xmltei"}, {"with_metadata": True}, {"prune_xpath": "//h2"},
                                    {"include_formatting": True, "output_format": "xmltei"},
                                    {"prune_xpath": "//footer"}])
def test_output_formats_are_native_with_1_11_0_results(api, kwargs):
    import trafilatura

    before = trafila.delegated_calls
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.FallbackWarning)
        ours = api.extract(PAGE, compat="1.11.0", **kwargs)
    assert trafila.delegated_calls == before
    assert ours is not None and ours == trafilatura.extract(PAGE, **kwargs)


def test_lxml_tree_input_is_delegated(api):
    import lxml.html
    import trafilatura

    with pytest.warns(trafila.FallbackWarning, match="lxml tree input"):
        ours = api.extract(lxml.html.fromstring(PAGE), compat="1.11.0")
    assert ours == trafilatura.extract(lxml.html.fromstring(PAGE))


def test_patch_follows_the_installed_release():
    "In a stock datatrove 0.10.1 environment, trafila.patch() gives 1.11.0's text natively, no PatchWarning."
    import sys

    import trafilatura as real

    datatrove_call = dict(favor_precision=True, include_comments=False, deduplicate=False)
    expected = real.extract(PAGE, **datatrove_call)
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.PatchWarning)
        trafila.patch("trafilatura")
    try:
        import trafilatura

        assert sys.modules["trafilatura"] is trafilatura and trafilatura is not real
        before = trafila.delegated_calls
        assert trafilatura.extract(PAGE, **datatrove_call) == expected
        assert trafilatura.extract(PAGE, some_unknown_option=1) == real.extract(PAGE, some_unknown_option=1)
        assert isinstance(trafilatura.bare_extraction(PAGE), dict)
        assert trafila.delegated_calls == before  # native
        with pytest.raises(NameError):
            trafilatura.extract(PAGE, xml_output=True)
        from trafilatura.core import extract as core_extract

        assert core_extract(PAGE, no_fallback=True) == real.extract(PAGE, no_fallback=True)
    finally:
        trafila.unpatch()
    import trafilatura

    assert trafilatura is real


FINGERPRINT_TEXTS = st.lists(st.sampled_from(
    ["alpha", "beta,", "(gamma)", "über", "東京。", "中文", "字、字", "。", "«x»", "x1", "—", "!!", "a", "the"]),
    max_size=80).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(FINGERPRINT_TEXTS, st.text(max_size=60)))
def test_content_fingerprint_is_1_11_0s(text):
    """1.11.0 samples tokens without 2.3.1's split on non-ASCII punctuation: a text with no
    ASCII-punctuated alphanumeric token (CJK prose) has the all-ones fingerprint there."""
    from trafilatura import deduplication as t

    from trafila import simhash

    assert simhash.sample_tokens_1_11_0(text) == t.sample_tokens(text)
    assert simhash.content_fingerprint_1_11_0(text) == t.content_fingerprint(text)


def test_json_fingerprint_of_cjk_prose_is_1_11_0s():
    page = ("<html><head><title>新聞報導｜上報</title></head><body><article>" + "<p>" + "對於日本的新聞報導，我們有很多話要說。" * 8 + "</p>"
            + "<p>" + "這是第二段的內容，也很長很長。" * 8 + "</p></article></body></html>")
    ours = trafila.extract(page, output_format="json", with_metadata=True, no_fallback=True, compat="1.11.0")
    import trafilatura

    theirs = trafilatura.extract(page, output_format="json", with_metadata=True, no_fallback=True)
    assert ours == theirs and '"fingerprint": "ffffffffffffffff"' in ours
