"""trafila.v1_11_0 against trafilatura 1.11.0's recorded results (the oracle
cache corpora/oracle/1.11.0, made by ``tox -e oracle-1.11``).

The port parses with lxml (trafilatura's parser options) converted by the
bridge, so the comparison is on the extraction logic alone, on the str form of
the goose3 pages. Needs the shared corpora (skipped otherwise).
"""

from __future__ import annotations

import gzip
import json

import pytest

from harness.corpora import CORPORA_DIR, bundle_paths, iter_pages
from harness.results import result_entry, text_entry
from tests._helpers import bridged_v1_11_0_parser
from trafila.v1_11_0 import core, deduplication

BUNDLE = "goose3"
CACHE = CORPORA_DIR / "oracle" / "1.11.0" / f"{BUNDLE}.json.gz"

EXTRACT_SETS = {
    "no_fallback": dict(no_fallback=True),
    "default": dict(),
    "datatrove-nodedup": dict(favor_precision=True, include_comments=False),
    "no-comments-tables": dict(include_comments=False, include_tables=False),
    "recall": dict(favor_recall=True),
}


def _pages():
    try:
        paths = bundle_paths([BUNDLE])
    except Exception as err:  # noqa: BLE001 - corpora not available here
        pytest.skip(f"corpora not available: {err}")
    if not CACHE.exists():
        pytest.skip("no 1.11.0 oracle cache")
    return [p for p in iter_pages(paths[0]) if p.html is not None]


@pytest.fixture(scope="module")
def oracle():
    with gzip.open(CACHE, "rt", encoding="utf-8") as fh:
        return json.load(fh)["results"]


@pytest.fixture(autouse=True)
def _bridge_parser():
    with bridged_v1_11_0_parser():
        yield


@pytest.mark.parametrize("setname", list(EXTRACT_SETS))
def test_extract_matches_oracle(setname, oracle):
    pages = _pages()[::3]
    wrong = [p.id for p in pages
             if text_entry(core.extract(p.html, **EXTRACT_SETS[setname])) != oracle[p.id]["str"][setname]]
    assert wrong == []


def test_datatrove_dedup_in_page_order(oracle):
    deduplication.LRU_TEST.clear()
    try:
        wrong = [p.id for p in _pages()
                 if text_entry(core.extract(p.html, favor_precision=True, include_comments=False, deduplicate=True))
                 != oracle[p.id]["str"]["datatrove"]]
    finally:
        deduplication.LRU_TEST.clear()
    assert wrong == []


def test_bare_extraction_text_fields_match_oracle(oracle):
    wrong = []
    for page in _pages()[::3]:
        result = core.bare_extraction(page.html)
        expected = oracle[page.id]["str"]["bare"]
        if result is None or expected is None:
            if result is not expected:
                wrong.append(page.id)
            continue
        got = result_entry({k: result[k] for k in ("text", "comments", "raw_text")})["fields"]
        if any(got[k] != expected["fields"][k] for k in got):
            wrong.append(page.id)
    assert wrong == []
