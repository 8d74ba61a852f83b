"""trafila.html.serialize against lxml on real pages (shared corpora).

Each sampled page is parsed by lxml with trafilatura's parser, bridged to
trafila, and the root plus a sample of elements are serialised both ways
(XML as readability and the harness use it, text, HTML).  Skipped when the
corpora are absent.  SERIALIZE_PAGE_STEP (default 40) picks every n-th page of
every bundle, SERIALIZE_ELEMENT_STEP (default 25) every n-th element.
"""

from __future__ import annotations

import os
from typing import Any, List

import pytest
from tests._helpers import NO_CORPORA

lxml_html = pytest.importorskip("lxml.html")
from lxml import etree  # noqa: E402

from harness.corpora import corpora_path  # noqa: E402
from harness.lxml_bridge import from_lxml  # noqa: E402
from harness.treedump import dump_element, dump_lxml_document, dump_trafila_document, first_difference  # noqa: E402
from tests._helpers import trafilatura_html_parser  # noqa: E402
from trafila.html.serialize import tostring  # noqa: E402

PARSER = trafilatura_html_parser()
CORPORA = corpora_path()
PAGE_STEP = int(os.environ.get("SERIALIZE_PAGE_STEP", "40"))
ELEMENT_STEP = int(os.environ.get("SERIALIZE_ELEMENT_STEP", "25"))

VARIANTS = [
    dict(encoding=str, method="xml"),
    dict(encoding="unicode"),
    dict(),
    dict(method="text", encoding="utf-8"),
    dict(method="text", encoding="unicode"),
    dict(method="html", encoding="unicode"),
    dict(encoding="unicode", pretty_print=True),
]


def _pages() -> List[Any]:
    from harness.corpora import iter_pages

    out = []
    for bundle in sorted(CORPORA.glob("*.jsonl.gz")):
        for page in iter_pages(bundle):
            if page.index % PAGE_STEP == 0:
                out.append(page)
    return out


def _outcome(f: Any) -> Any:
    try:
        return ("ok", f())
    except Exception as err:  # noqa: BLE001 - the exception type is compared
        return ("error", type(err).__name__)


@pytest.mark.skipif(not CORPORA.is_dir(), reason=NO_CORPORA)
def test_corpus_pages_serialise_like_lxml() -> None:
    pages = _pages()
    compared = 0
    failures: List[str] = []
    for page in pages:
        try:
            lx_root = lxml_html.fromstring(page.raw, parser=PARSER)
        except Exception:  # noqa: BLE001 - lxml refuses some pages; nothing to compare
            continue
        tr_root = from_lxml(lx_root)
        diff = first_difference(dump_lxml_document(lx_root), dump_trafila_document(tr_root))
        assert diff is None, (page.id, diff)
        lx_nodes = list(lx_root.iter())
        tr_nodes = list(tr_root.iter())
        assert len(lx_nodes) == len(tr_nodes)
        for i in [0] + list(range(1, len(lx_nodes), ELEMENT_STEP)):
            lx, tr = lx_nodes[i], tr_nodes[i]
            assert dump_element(lx) == dump_element(tr)
            for kw in VARIANTS:
                compared += 1
                expected = _outcome(lambda: etree.tostring(lx, **kw))
                got = _outcome(lambda: tostring(tr, **kw))
                if got != expected:
                    failures.append(f"{page.id} element {i} <{lx.tag}> {kw}")
    print(f"pages={len(pages)} comparisons={compared} failures={len(failures)}")
    assert not failures, failures[:20]
