"""Deduplication on the core's C handlers against the reference engine: the same pages in the
same order, each engine with its own fresh module cache, give the same texts and leave the
same counts in the cache, in both releases (the C handlers count where the reference's
handle_textnode and process_node count: after the textfilter, never for a kept line break or a
picture)."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

import trafila
from trafila import _engine

from ._helpers import NO_CORE, generated_documents

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

OPTION_SETS = {
    "2.3.1": [dict(deduplicate=True), dict(fast=True, deduplicate=True),
              dict(favor_precision=True, include_comments=False, deduplicate=True)],
    "1.11.0": [dict(deduplicate=True), dict(no_fallback=True, deduplicate=True),
               dict(favor_precision=True, include_comments=False, deduplicate=True)],
}

def _pages() -> List[str]:
    """Generated pages, the whole list four times over: from the fourth reading on, a text's
    count passes MAX_REPETITIONS (2) and the duplicate verdict removes it."""
    return list(generated_documents(23, 16)) * 4


def _run(engine_name: str, mode: str, options: Dict[str, Any], pages: List[str]):
    engine = trafila.engine(engine_name)
    impl = _engine.implementation(mode, engine_name)
    impl.LRU_TEST.clear()
    texts = [engine.extract(html, compat=mode, **options) for html in pages]
    counts = dict(impl.LRU_TEST.cache) if hasattr(impl.LRU_TEST, "cache") else None
    return texts, counts


@pytest.mark.parametrize("mode", sorted(OPTION_SETS))
@pytest.mark.parametrize("k", range(3))
def test_core_counts_as_the_reference(mode: str, k: int) -> None:
    options = OPTION_SETS[mode][k]
    pages = _pages()
    got, got_counts = _run("core", mode, options, pages)
    want, want_counts = _run("reference", mode, options, pages)
    assert got == want
    assert got_counts == want_counts and want_counts
    # the verdict did remove text: the last reading of some page lost what the first kept
    n = len(want) // 4
    assert any(len(last or "") < len(first or "") for first, last in zip(want[:n], want[3 * n:]))


def test_dedup_key_is_the_trimmed_itertext() -> None:
    """core.dedup_key(el) == trim(" ".join(el.itertext())) for every element of generated pages
    (odd whitespace of every kind, entities, nesting), as the core's tree gives them."""
    from trafila.v2_3_1.utils import trim

    core = _engine.core_module()
    compared = 0
    for html in list(generated_documents(29, 30)) + [
            "<p>a\u00a0 b<b>\u2003c</b>\u3000<i></i>d\u0085e<br>\u200bf\x1cg</p>", "<div> </div>", "<p></p>"]:
        tree = core.dom.fromstring(html)
        for el in tree.iter():
            assert core.dedup_key(el) == trim(" ".join(el.itertext())), html
            compared += 1
    assert compared > 500
