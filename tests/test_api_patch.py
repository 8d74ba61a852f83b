"""trafila.patch("trafilatura"): shims in sys.modules with trafilatura's exact signatures."""

from __future__ import annotations

import inspect
import sys
import warnings

import pytest

import trafila
from trafila import _delegation

from .conftest import needs_trafilatura_231

PAGE = "<html><body><article>" + "<p>Words of a paragraph that the extractor keeps, quite a few of them.</p>" * 6 + "</article></body></html>"


@pytest.fixture
def patched():
    trafila.patch("trafilatura")
    try:
        yield
    finally:
        trafila.unpatch()


@needs_trafilatura_231
def test_shims_route_to_trafila_with_exact_signatures(patched):
    import trafilatura.core as real_core

    real_core = _delegation._REAL_MODULES["trafilatura.core"]
    import trafilatura
    from trafilatura import core, deduplication, meta

    assert trafilatura is sys.modules["trafilatura"] and trafilatura is not _delegation._REAL_MODULES["trafilatura"]
    for name in ("extract", "bare_extraction", "extract_with_metadata"):
        assert inspect.signature(getattr(trafilatura, name)) == inspect.signature(getattr(real_core, name))
        assert getattr(core, name) is getattr(trafilatura, name)
    real_top = _delegation._REAL_MODULES["trafilatura"]
    for name in ("baseline", "html2txt"):
        assert inspect.signature(getattr(trafilatura, name)) == inspect.signature(getattr(real_top, name))
        assert getattr(trafilatura, name) is not getattr(real_top, name)
    assert trafilatura.html2txt(PAGE) == real_top.html2txt(PAGE)
    assert deduplication.LRUCache is trafila.LRUCache and deduplication.LRU_TEST is trafila.LRU_TEST
    assert meta.reset_caches.__wrapped_trafila__ is trafila.reset_caches  # then the real one (see below)
    assert deduplication.Simhash is trafila.Simhash and deduplication.content_fingerprint is trafila.content_fingerprint
    # attributes trafila does not provide are the real modules'
    assert trafilatura.fetch_url is _delegation._REAL_MODULES["trafilatura"].fetch_url
    assert trafilatura.__version__ == "2.3.1"

    before = trafila.delegated_calls
    doc = trafilatura.bare_extraction(PAGE)
    assert isinstance(doc, trafila.Document)
    assert trafilatura.extract(PAGE) == trafila.extract(PAGE)
    assert trafila.delegated_calls == before
    # the real default config object is accepted as "the defaults"
    from trafilatura.settings import DEFAULT_CONFIG

    assert trafilatura.extract(PAGE, config=DEFAULT_CONFIG) == trafila.extract(PAGE)
    # delegation still reaches the real trafilatura
    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning, match="prune_xpath"):
        pruned = trafilatura.extract(PAGE, prune_xpath="//body//footer")
    assert pruned == real_top.extract(PAGE, prune_xpath="//body//footer") is not None


@needs_trafilatura_231
def test_unpatch_restores_the_real_modules():
    real = sys.modules.get("trafilatura")
    import trafilatura as before_mod

    trafila.patch()
    trafila.patch()  # idempotent
    assert sys.modules["trafilatura"] is not before_mod
    trafila.unpatch()
    for name in ("trafilatura", "trafilatura.core", "trafilatura.deduplication", "trafilatura.meta"):
        assert type(sys.modules[name]).__name__ == "module", name
    assert sys.modules["trafilatura"] is before_mod is (real or before_mod)
    assert not sys.modules["trafila.patch"].is_patched()


@needs_trafilatura_231
def test_patch_warns_for_another_release(monkeypatch):
    import trafilatura

    monkeypatch.setattr(trafilatura, "__version__", "2.0.0")
    with pytest.warns(trafila.PatchWarning, match="2.0.0"):
        trafila.patch()
    trafila.unpatch()


def test_patch_without_trafilatura(monkeypatch):
    for name in ("trafilatura", "trafilatura.core", "trafilatura.deduplication", "trafilatura.meta", "trafilatura.settings"):
        monkeypatch.setitem(sys.modules, name, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", trafila.PatchWarning)
        trafila.patch()
    try:
        import trafilatura

        params = list(inspect.signature(trafilatura.extract).parameters)
        assert "compat" not in params and params[0] == "filecontent"
        assert trafilatura.extract(PAGE) == trafila.extract(PAGE)
        with pytest.raises(AttributeError, match="not installed"):
            trafilatura.fetch_url
    finally:
        trafila.unpatch()
    assert sys.modules.get("trafilatura") is None


def test_patch_only_knows_trafilatura():
    with pytest.raises(ValueError):
        trafila.patch("readability")


@needs_trafilatura_231
def test_warnings_through_the_shims_point_at_the_caller(patched):
    import trafilatura

    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning) as record:
        trafilatura.extract(PAGE, prune_xpath="//body//footer")
    with pytest.warns(DeprecationWarning) as deprecations:
        trafilatura.extract(PAGE, no_fallback=True)
    assert {w.filename for w in record if w.category is trafila.FallbackWarning} == {__file__}
    assert {w.filename for w in deprecations if w.category is DeprecationWarning} == {__file__}


@needs_trafilatura_231
def test_patch_with_another_mode_warns_and_reproduces_it():
    expected = trafila.extract(PAGE, favor_precision=True, compat="1.11.0")
    with pytest.warns(trafila.PatchWarning, match="reproduce 1.11.0"):
        trafila.patch("trafilatura", compat="1.11.0")
    try:
        import trafilatura

        assert trafilatura.extract(PAGE, favor_precision=True) == expected
        assert isinstance(trafilatura.bare_extraction(PAGE), dict)  # 1.11.0's default
    finally:
        trafila.unpatch()
    with pytest.raises(ValueError, match="compat"):
        trafila.patch("trafilatura", compat="2.0.0")


# --- what trafilatura's own test suite does to the patched modules (issue 22) -----------

#: one long paragraph: deduplicate=True drops it once seen more than MAX_REPETITIONS (2) times
REPEATED = "<html><body><article><p>" + "The same words of one paragraph, repeated. " * 6 + "</p></article></body></html>"


def _real(name: str):
    return _delegation._REAL_MODULES[name]


def _patched_mode(mode: str):
    """trafila.patch() reproducing ``mode`` (a PatchWarning when the installed release differs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trafila.PatchWarning)
        trafila.patch("trafilatura", compat=mode)


@needs_trafilatura_231
@pytest.mark.parametrize("mode", ["2.3.1", "1.11.0"])
def test_assigning_the_module_cache_reaches_every_engine_and_the_real_module(mode, engine):
    """``trafilatura.deduplication.LRU_TEST = cache`` makes ``cache`` the module cache of the
    mode in every engine running it and of the real module; unpatch() puts the old ones back."""
    if mode not in engine.modes:
        pytest.skip(f"engine {engine.name!r} does not run mode {mode} yet")
    impl = engine.implementation(mode)
    original, real_original = impl.LRU_TEST, None
    _patched_mode(mode)
    try:
        import trafilatura.deduplication as dedup

        real_original = _real("trafilatura.deduplication").LRU_TEST
        cache = dedup.LRUCache(maxsize=2)
        dedup.LRU_TEST = cache
        assert dedup.LRU_TEST is cache and impl.LRU_TEST is cache
        assert _real("trafilatura.deduplication").LRU_TEST is cache
        # the engine's extraction counts in it: a page deduplicated away on the fourth call
        results = [engine.extract(REPEATED, deduplicate=True, compat=mode) for _ in range(4)]
        assert results[0] is not None and results[-1] is None
        assert cache.cache and len(cache.cache) <= 2
        cache.clear()
        assert engine.extract(REPEATED, deduplicate=True, compat=mode) is not None
    finally:
        trafila.unpatch()
    assert impl.LRU_TEST is original
    if real_original is not None:
        assert sys.modules["trafilatura.deduplication"].LRU_TEST is real_original


@needs_trafilatura_231
def test_duplicate_test_counts_in_an_assigned_cache(engine_231):
    """trafilatura's test_lrucache: duplicate_test with no cache of its own uses the assigned one."""
    from lxml import etree

    trafila.patch("trafilatura")
    try:
        import trafilatura.deduplication as dedup
        from trafilatura.core import Extractor

        options = Extractor()
        cache = dedup.LRUCache(maxsize=2)
        dedup.LRU_TEST = cache
        element = etree.fromstring("<p>" + "AAAA BBBB " * 13 + "</p>")
        assert [dedup.duplicate_test(element, options) for _ in range(4)] == [False, False, False, True]
        cache.clear()
        assert dedup.duplicate_test(element, options) is False
        assert engine_231.implementation("2.3.1").LRU_TEST is cache
    finally:
        trafila.unpatch()


@needs_trafilatura_231
def test_handed_over_calls_count_in_the_assigned_cache(patched):
    """A handed-over call (prune_xpath) and a native one share the one assigned cache object."""
    import trafilatura
    import trafilatura.deduplication as dedup

    cache = dedup.LRUCache(maxsize=8)
    dedup.LRU_TEST = cache
    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning, match="prune_xpath"):
        assert trafilatura.extract(REPEATED, prune_xpath="//body//footer", deduplicate=True) is not None
    counts = dict(cache.cache)
    assert counts  # counted by the real trafilatura in the assigned object itself
    before = trafila.delegated_calls
    trafilatura.extract(REPEATED, deduplicate=True)  # native, same cache
    assert trafila.delegated_calls == before
    assert any(cache.cache.get(key, 0) > n for key, n in counts.items())


@needs_trafilatura_231
def test_reset_caches_empties_trafilas_and_the_real_trafilaturas_caches(engine_231):
    """Under the patch, trafilatura.meta.reset_caches() empties trafila's caches (each
    engine's module cache) and whatever the real reset_caches empties (utils' memo caches,
    the real module cache), which handed-over calls fill."""
    trafila.patch("trafilatura")
    try:
        import trafilatura
        from trafilatura.meta import reset_caches

        real_utils = sys.modules["trafilatura.utils"]
        real_lru = _real("trafilatura.deduplication").LRU_TEST
        _delegation._warned.clear()
        with pytest.warns(trafila.FallbackWarning):
            assert trafilatura.extract(PAGE, prune_xpath="//body//footer") is not None  # fills the real caches
        real_utils.line_processing("x y")
        real_utils.return_printables_and_spaces("x")
        real_lru.put("key", 1)
        ours = engine_231.implementation("2.3.1")
        ours.LRU_TEST.put("key", 1)
        caches = (real_utils.trim, real_utils.line_processing, real_utils.return_printables_and_spaces)
        assert all(fn.cache_info().currsize for fn in caches)
        reset_caches()
        assert not any(fn.cache_info().currsize for fn in caches)
        assert not real_lru.cache and not ours.LRU_TEST.cache
        assert not trafila.LRU_TEST.cache
    finally:
        trafila.unpatch()


@needs_trafilatura_231
def test_reset_caches_keeps_the_real_caches_flat_over_many_handed_over_calls(patched):
    import trafilatura
    from trafilatura.meta import reset_caches

    trim = sys.modules["trafilatura.utils"].trim
    _delegation._warned.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trafila.FallbackWarning)
        sizes = []
        for i in range(3):
            for j in range(20):
                trafilatura.extract(PAGE.replace("Words", f"Words {i} {j}"), prune_xpath="//body//footer")
            sizes.append(trim.cache_info().currsize)
            reset_caches()
            assert trim.cache_info().currsize == 0
    assert min(sizes) > 0


@needs_trafilatura_231
def test_a_replaced_extractor_sees_every_call_through_the_real_module(patched, monkeypatch):
    """trafilatura's test_extractor_parity / test_deprecations: while trafilatura.core.Extractor
    is a spy, the extraction functions are handed over, so the spy sees each call; the
    results are trafilatura's (equal to trafila's here). Undoing the replacement restores
    the real class and native calls."""
    import trafilatura
    from trafilatura import core

    real_core = _real("trafilatura.core")
    original = real_core.Extractor
    built = []

    class Spy(core.Extractor):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            built.append(self)

    expected = trafila.extract(PAGE)
    monkeypatch.setattr(core, "Extractor", Spy)
    assert real_core.Extractor is Spy and core.Extractor is Spy
    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning, match="trafilatura.core.Extractor replaced"):
        assert trafilatura.extract(PAGE) == expected
    trafilatura.bare_extraction(PAGE)
    trafilatura.extract_with_metadata(PAGE)
    assert len(built) == 3 and all(type(b) is Spy for b in built)
    monkeypatch.undo()
    assert real_core.Extractor is original and core.Extractor is original
    before = trafila.delegated_calls
    assert trafilatura.extract(PAGE) == expected
    assert trafila.delegated_calls == before


@needs_trafilatura_231
def test_mock_patch_object_on_a_shim_undoes_cleanly(patched):
    """mock.patch.object deletes the attribute on exit (it is not in the shim's __dict__):
    the real module's previous value comes back, it is not deleted."""
    from unittest import mock

    from trafilatura import core

    real_core = _real("trafilatura.core")
    original = real_core.Extractor
    with mock.patch.object(core, "Extractor", object):
        assert real_core.Extractor is object
    assert real_core.Extractor is original
    core.NEW_NAME = 1  # assignments reach the real module, and deleting removes them
    assert real_core.NEW_NAME == 1
    del core.NEW_NAME
    assert not hasattr(real_core, "NEW_NAME")


@needs_trafilatura_231
def test_identical_trafila_cache_is_one_trafilatura_cache_across_handed_over_calls(patched, monkeypatch):
    """test_extractor_parity compares the Extractors' dedup slots: a trafila LRUCache passed
    to several handed-over calls stands as one trafilatura LRUCache object."""
    import trafilatura
    from trafilatura import core

    seen = []

    class Spy(core.Extractor):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            seen.append(self.dedup)

    monkeypatch.setattr(core, "Extractor", Spy)
    cache = trafila.LRUCache(maxsize=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", trafila.FallbackWarning)
        trafilatura.extract(REPEATED, deduplicate=cache)
        trafilatura.extract(REPEATED, deduplicate=cache, prune_xpath="//body//footer")
    assert len(seen) == 2 and seen[0] is seen[1] and type(seen[0]).__module__ == "trafilatura.deduplication"
    assert cache.cache and not seen[0].cache  # the counts are the trafila cache's; the stand-in keeps none


@needs_trafilatura_231
def test_the_real_default_config_changed_in_place_counts(engine_231):
    """trafilatura 1.11.0's tests change trafilatura.settings.DEFAULT_CONFIG itself (MIN_* to 0):
    under the patch that object is read as any config, also when a call leaves config out."""
    from trafilatura.settings import DEFAULT_CONFIG

    real_top = sys.modules["trafilatura"]
    saved = dict(DEFAULT_CONFIG["DEFAULT"])
    trafila.patch("trafilatura")
    try:
        import trafilatura

        assert trafilatura.extract(PAGE) == real_top.extract(PAGE) is not None
        for key in ("MIN_OUTPUT_SIZE", "MIN_OUTPUT_COMM_SIZE"):  # PAGE's text is shorter: discarded
            DEFAULT_CONFIG["DEFAULT"][key] = "100000"
        assert real_top.extract(PAGE) is None
        before = trafila.delegated_calls
        assert trafilatura.extract(PAGE) is None
        assert trafilatura.extract(PAGE, config=DEFAULT_CONFIG) is None
        assert trafila.delegated_calls == before  # natively
        assert trafila.engine(engine_231.name).extract(PAGE, config=DEFAULT_CONFIG) is None
    finally:
        trafila.unpatch()
        DEFAULT_CONFIG["DEFAULT"].update(saved)
    assert trafila.extract(PAGE) is not None
