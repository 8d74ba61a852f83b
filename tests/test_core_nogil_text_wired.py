"""The core's extraction decides text.textfilter and RE_FILTER.match with the nogil twins
of nogil_text.pxi, never by calling back into Python: every core entry point of the main
extractors (extract_* for 2.3.1, ex111_* for 1.11.0) is wrapped so that a textfilter or a
RE_FILTER.match handed to it is replaced by a recording stand-in (which still answers as
the original), and the extract_content / extract_comments stage then runs on corpus pages
by the reference code and by the core: the results must be equal and the stand-ins never
called. A core entry point that calls the textfilter it is given is caught."""

from __future__ import annotations

import contextlib

import pytest

import trafila
from tests._helpers import NO_CORE

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend, _engine, text  # noqa: E402
from trafila.treedump import dump_element  # noqa: E402
from trafila.v1_11_0 import htmlprocessing as hp111  # noqa: E402
from trafila.v1_11_0 import main_extractor as me111  # noqa: E402
from trafila.v1_11_0.settings import Extractor as Extractor111  # noqa: E402
from trafila.v2_3_1 import htmlprocessing as hp231  # noqa: E402
from trafila.v2_3_1 import main_extractor as me231  # noqa: E402
from trafila.v2_3_1._tree import copy_tree  # noqa: E402
from trafila.v2_3_1.settings import Extractor as Extractor231  # noqa: E402

from ._helpers import core_switched_off, needs_corpora, sample_pages  # noqa: E402

CORE = _engine.core_module()
BACKEND = _backend.core_backend(CORE)
ENTRY_PREFIXES = ("extract_", "ex111_")
BUNDLES = ("cleanportaleval", "commoncrawl", "msv-big9-chaos", "fundus", "cleaneval")

MODES = {
    "2.3.1": (hp231, me231, {"default": Extractor231(), "recall": Extractor231(recall=True),
                             "fast": Extractor231(fast=True)}),
    "1.11.0": (hp111, me111, {"default": Extractor111(), "recall": Extractor111(recall=True),
                              "fast": Extractor111(fast=True)}),
}

FILTER_PAGE = (
    "<html><body><article><p>A first paragraph that is long enough to be kept as text.</p>"
    "<p>Facebook</p><p>  E-Mail </p><div>Twitter</div><p>-- More on this 12345</p><p>Drucken</p>"
    "<p><hi rend='#b'>Pinterest</hi> tail</p><p>\u2022 WhatsApp\u2029</p><p>Another paragraph that stays in the text.</p>"
    "<table><tr><td>Print</td><td>cell text</td></tr></table><lb/>Reddit</article>"
    "<div class='comments'><p>Mail</p><p>a comment that stays</p></div></body></html>"
)


def _is_filter(arg):
    return arg is text.textfilter or (getattr(arg, "__self__", None) is text.RE_FILTER
                                      and getattr(arg, "__name__", "") == "match")


@contextlib.contextmanager
def tripwire(monkeypatch):
    """Every core entry point gets recording stand-ins for the filters handed to it:
    the list of the calls they took (the entry point's name)."""
    calls = []

    def stand_in(name, real):
        def call(*args, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)
        return call

    def wrap(name, fn):
        def entry(*args, **kwargs):
            args = tuple(stand_in(name, a) if _is_filter(a) else a for a in args)
            kwargs = {k: stand_in(name, v) if _is_filter(v) else v for k, v in kwargs.items()}
            return fn(*args, **kwargs)
        return entry

    with monkeypatch.context() as m:
        for name in dir(CORE):
            fn = getattr(CORE, name)
            if name.startswith(ENTRY_PREFIXES) and callable(fn) and not isinstance(fn, type):
                m.setattr(CORE, name, wrap(name, fn))
        yield calls


def _stage(mode, tree, options):
    hp, me, _ = MODES[mode]
    try:
        res = me.extract_content(copy_tree(tree), options)
        result = (dump_element(res[0]), res[1])
    except (ValueError, TypeError, AttributeError) as err:  # a refused value: both must raise
        result = (type(err).__name__, str(err))
    try:
        res = me.extract_comments(copy_tree(tree), options)
        result += (dump_element(res[0]), res[1])
    except (ValueError, TypeError, AttributeError) as err:
        result += (type(err).__name__, str(err))
    return result


def cleaned(mode, html, options):
    hp, _, _ = MODES[mode]
    with _backend.use(BACKEND):
        try:
            tree = CORE.dom.fromstring(html)
            tree = hp.tree_cleaning(tree, options)
        except ValueError:  # lxml refuses a str with an encoding declaration, or a character
            return None
        return hp.convert_tags(tree, options)


def both_ways(mode, tree, options, monkeypatch):
    "(reference result, core result, the stand-ins' calls during the core run)"
    hp, me, _ = MODES[mode]
    with _backend.use(BACKEND), core_switched_off((hp, me)):
        ref = _stage(mode, tree, options)
    with _backend.use(BACKEND), tripwire(monkeypatch) as calls:
        core = _stage(mode, tree, options)
    return ref, core, calls


@pytest.mark.parametrize("mode", sorted(MODES))
def test_filter_page(mode, monkeypatch):
    "The filter words go in both ways, with the twins deciding in the core."
    for name, options in MODES[mode][2].items():
        tree = cleaned(mode, FILTER_PAGE, options)
        ref, core, calls = both_ways(mode, tree, options, monkeypatch)
        assert ref == core, name
        assert calls == [], name
        # not vacuous: the filter dropped lines the reference drops
        assert "Facebook" not in ref[1] and "Drucken" not in ref[1] and "stays in the text" in ref[1], name


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_callback_is_caught(mode, monkeypatch):
    "An entry point that calls the textfilter it is handed shows up in the calls."
    name = "extract_handle_textnode" if mode == "2.3.1" else "ex111_handle_textnode"
    real = getattr(CORE, name)

    def calls_back(el, comments_fix, preserve_spaces, textfilter):
        textfilter(el)
        return real(el, comments_fix, preserve_spaces, textfilter)

    monkeypatch.setattr(CORE, name, calls_back)
    options = MODES[mode][2]["default"]
    ref, core, calls = both_ways(mode, cleaned(mode, FILTER_PAGE, options), options, monkeypatch)
    assert ref == core
    # named by the entry point that was handed the filter (the core's own calls of a
    # def function go through the module too)
    assert calls


@needs_corpora
@pytest.mark.parametrize("mode", sorted(MODES))
def test_corpus_pages(mode, monkeypatch):
    compared = 0
    for _bundle, page in sample_pages(BUNDLES, 3):
        if "str" not in page.forms():
            continue
        for name, options in MODES[mode][2].items():
            tree = cleaned(mode, page.input("str"), options)
            if tree is None:
                break
            ref, core, calls = both_ways(mode, tree, options, monkeypatch)
            assert ref == core, (page.id, name)
            assert calls == [], (page.id, name, sorted(set(calls)))
            compared += 1
    assert compared >= 300
