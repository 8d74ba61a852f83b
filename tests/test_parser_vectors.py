"""trafila.html against the 105 shared parser vectors and lxml 6.1.3 / libxml2 2.14.6 live.

Each vector is checked in its str form and its bytes form (UTF-8, surrogates
passed through): the whole document (every top-level node) and the element
lxml.html.fromstring returns.
"""

from __future__ import annotations

import json

import pytest

from harness.corpora import vectors_path
from tests._helpers import NO_VECTORS, trafilatura_html_parser, vector_params
from trafila.html._debug import dump_document, dump_element, dump_lxml

etree = pytest.importorskip("lxml.etree")
lxml_html = pytest.importorskip("lxml.html")

#: $TRAFILA_VECTORS, or ``vectors`` beside $TRAFILA_CORPORA (harness.corpora.vectors_path)
VECTORS_FILE = vectors_path() / "libxml2-2.14.6-trees.json"
VECTORS = json.loads(VECTORS_FILE.read_text()) if VECTORS_FILE.exists() else []
PARSER = trafilatura_html_parser()


def _outcome(fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except Exception as err:  # same exception class as lxml is part of parity
        return type(err).__name__


def lxml_document(src):  # type: ignore[no-untyped-def]
    def run():  # type: ignore[no-untyped-def]
        root = etree.fromstring(src, PARSER)
        return [] if root is None else dump_lxml(root)
    return _outcome(run)


def trafila_document(parser, src):  # type: ignore[no-untyped-def]
    def run():  # type: ignore[no-untyped-def]
        doc = parser.parse_document(src)
        return [] if doc.getroot() is None else dump_document(doc)
    return _outcome(run)


def test_oracle_versions():
    assert etree.LIBXML_VERSION == (2, 14, 6)
    assert etree.LXML_VERSION[:3] == (6, 1, 3)


@pytest.mark.skipif(not VECTORS_FILE.exists(), reason=NO_VECTORS)
def test_vector_count():
    assert len(VECTORS) == 105


def _ids():  # type: ignore[no-untyped-def]
    return [f"{i:03d}-{v['name']}" for i, v in enumerate(VECTORS)] or ["no-vectors"]


@pytest.mark.parametrize("vec", vector_params(VECTORS), ids=_ids())
def test_vector_document_matches_recorded_nodes(html_parser, vec):
    if "doc_nodes" not in vec:
        pytest.skip("no recorded doc_nodes (serializer round-trip record)")
    got = trafila_document(html_parser, vec["html"])
    want = vec["doc_nodes"] or []  # null: lxml found no root element
    assert got == want


@pytest.mark.parametrize("form", ["str", "bytes"])
@pytest.mark.parametrize("vec", vector_params(VECTORS), ids=_ids())
def test_vector_document_matches_lxml(html_parser, vec, form):
    src = vec["html"] if form == "str" else vec["html"].encode("utf-8", "surrogatepass")
    assert trafila_document(html_parser, src) == lxml_document(src)


@pytest.mark.parametrize("form", ["str", "bytes"])
@pytest.mark.parametrize("vec", vector_params(VECTORS), ids=_ids())
def test_vector_fromstring_matches_lxml(html_parser, vec, form):
    src = vec["html"] if form == "str" else vec["html"].encode("utf-8", "surrogatepass")
    want = _outcome(lambda: dump_element(lxml_html.fromstring(src, parser=PARSER)))
    got = _outcome(lambda: dump_element(html_parser.fromstring(src)))
    assert got == want


@pytest.mark.parametrize("vec", vector_params(VECTORS), ids=_ids())
def test_vector_recorded_tree_is_what_lxml_gives(vec):
    # guards the oracle itself: the installed lxml reproduces the recorded serialisation
    try:
        el = lxml_html.fromstring(vec["html"], parser=PARSER)
    except Exception as err:
        assert vec["lxml_tree"] is None or type(err).__name__ in str(vec["lxml_tree"])
        return
    assert etree.tostring(el, encoding="unicode") == vec["lxml_tree"]
