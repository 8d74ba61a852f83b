"""trafila._core's parser against the reference parser (trafila.html).

The reference is the specification: for every input the core must build the
same tree (every node, text/tail, attributes in order, the doctype, every
top-level node) and raise the same exceptions. Checked on the shared parser
vectors, the embedded corpus, Hypothesis documents (harness.strategies), and
str inputs of every PEP 393 kind, including lone surrogates.

Skipped when trafila._core is not built, unless TRAFILA_REQUIRE_EXTENSIONS=1.
"""

from __future__ import annotations

import json
import os

import pytest

from tests._helpers import NO_CORE, NO_VECTORS
from trafila import html as ref
from trafila.dom import NO_VALUE
from trafila.html._debug import dump_document, dump_element

try:
    from trafila import _core as core
except ImportError as err:  # pragma: no cover - depends on the build
    if os.environ.get("TRAFILA_REQUIRE_EXTENSIONS", "").strip() not in ("", "0"):
        raise
    pytest.skip(f"{NO_CORE} ({err})", allow_module_level=True)

from harness.corpora import bundle_paths, corpora_path, iter_pages

VECTORS_FILE = corpora_path().parent / "vectors" / "libxml2-2.14.6-trees.json"
VECTORS = json.loads(VECTORS_FILE.read_text()) if VECTORS_FILE.exists() else []


def _mark_valueless(d):  # type: ignore[no-untyped-def]
    """A dump where NO_VALUE (which equals '') is told apart from ''."""
    if isinstance(d, list):
        if len(d) == 2 and d[1] is NO_VALUE:
            return [d[0], "<NO_VALUE>"]
        return [_mark_valueless(x) for x in d]
    return d


def _outcome(fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except Exception as err:
        return type(err).__name__


def ref_document(src):  # type: ignore[no-untyped-def]
    return _outcome(lambda: _mark_valueless(dump_document(ref.parse_document(src))))


def core_document(src):  # type: ignore[no-untyped-def]
    return _outcome(lambda: core.parse_document(src).dump())


def core_document_reference(src):  # type: ignore[no-untyped-def]
    return _outcome(lambda: _mark_valueless(dump_document(core.parse_document(src).to_reference())))


def ref_fromstring(src):  # type: ignore[no-untyped-def]
    return _outcome(lambda: _mark_valueless(dump_element(ref.fromstring(src))))


def core_fromstring(src):  # type: ignore[no-untyped-def]
    def run():  # type: ignore[no-untyped-def]
        doc = core.fromstring(src)
        return doc.dump_element(doc.root_index)
    return _outcome(run)


def core_fromstring_reference(src):  # type: ignore[no-untyped-def]
    return _outcome(lambda: _mark_valueless(dump_element(core.fromstring_reference(src))))


def _plain(d):  # type: ignore[no-untyped-def]
    # core.dump() gives '' for NO_VALUE; compare it with the unmarked reference dump
    if isinstance(d, list):
        if len(d) == 2 and d[1] == "<NO_VALUE>":
            return [d[0], ""]
        return [_plain(x) for x in d]
    return d


def assert_same(src) -> None:  # type: ignore[no-untyped-def]
    want = ref_document(src)
    assert core_document(src) == _plain(want)
    assert core_document_reference(src) == want
    want_root = ref_fromstring(src)
    assert core_fromstring(src) == _plain(want_root)
    assert core_fromstring_reference(src) == want_root
    if not isinstance(want, str):
        got_root = _outcome(lambda: _mark_valueless(dump_element(core.document_fromstring_reference(src))))
        assert got_root == _outcome(lambda: _mark_valueless(dump_element(ref.document_fromstring(src))))


def test_exports():
    assert core.ENGINE_API == 1
    # part 2 runs 2.3.1, part 3 1.11.0; any other release is refused
    assert core.MODES == ("2.3.1", "1.11.0")
    from trafila._engine import IMPLEMENTATION_ATTRIBUTES, EngineUnavailable

    for mode in core.MODES:
        impl = core.implementation(mode)
        assert impl.engine == "core" and impl.mode == mode
        assert all(hasattr(impl, a) for a in IMPLEMENTATION_ATTRIBUTES)
    with pytest.raises(EngineUnavailable):
        core.implementation("1.10.0")
    for name in ("parse_document", "document_fromstring", "fromstring", "fromstring_reference",
                 "document_fromstring_reference", "parse_document_reference", "CDocument"):
        assert hasattr(core, name)


@pytest.mark.skipif(not VECTORS, reason=NO_VECTORS)
@pytest.mark.parametrize("form", ["str", "bytes"])
def test_vectors(form):
    bad = []
    for i, vec in enumerate(VECTORS):
        src = vec["html"] if form == "str" else vec["html"].encode("utf-8", "surrogatepass")
        try:
            assert_same(src)
        except AssertionError:
            bad.append(f"{i:03d}-{vec['name']}")
    assert bad == []


@pytest.mark.skipif(not VECTORS, reason=NO_VECTORS)
def test_vectors_recorded_nodes():
    for vec in VECTORS:
        if "doc_nodes" in vec:
            got = core_document(vec["html"])
            got = [] if got == "ParserError" else got
            assert got == _plain(vec["doc_nodes"] or []), vec["name"]


def test_embedded_corpus():
    for path in bundle_paths(embedded=True):
        for page in iter_pages(path):
            for form in page.forms():
                assert_same(page.input(form))


@pytest.mark.parametrize("src", [
    "", " ", "\n\t ", "<!-- only a comment -->", "<?xml version='1.0'?>",
    "<?xml version='1.0' encoding='utf-8'?><p>x</p>", b"<?xml version='1.0' encoding='utf-8'?><p>x</p>",
    b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf<p>x", "\ufeff", "\ufeff<p>x", "\ufeffx",
    "<p>a</p><body>b</body><body class=x>c<i>d</i>e</body>f",
    "<p>a</p><body>\x01</body><body>\x02</body>",
    "<head><title>t</title></head><head><meta a=b></head><p>x",
    "<span>only</span>", "  <span>only</span>  ", "<span>a</span><span>b</span>", "text",
    "<div>x</div>\u3000", "\u3000<html><p>x", "<html/><p>after",
    "<p>a</p></html>tail<b>second root</b>",
    "<table><tr><td>a<td>b</table><select><option>x<option>y</select>",
    "<a href='x'>&amp &copy2024 &notit; &#x80; &#0; &#x110000; &#55296; &#;</a>",
    "<a title='&amp=1 &ampx &amp; &notin &not'>x</a>",
    "<p a=1 a=2 B=3 b=4 checked disabled=disabled hidden>x",
    "<script>a<!--<script>b</script>c-->d</script>z<style>x</p></style><textarea>&lt;b></textarea>",
    "<title>a <b>x</b></title><xmp><i></xmp><plaintext><p>all</p>",
    "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\" \"x.dtd\"><p>x",
    "<!doctype HTML SYSTEM 'about:legacy-compat'><p>x", "<!DOCTYPE><p>x", "<!DOCTYPE html><!DOCTYPE x><p>x",
    "<p>a\r\nb\rc\x00d</p><p x='\r\n\x00'>", "<" * 50, "&" * 50, "</" , "</>x</ x>", "<a\x00b c\x00=d>x",
    "<" + "n" * 150 + ">x", "<p " + "a" * 99 + "\u00e9\u00e9b=1>x", "<div>" * 300 + "x",
    "<body/><p>x", "<html><body><p>x</p></body></html><!-- c -->", "<p>x<!--a--!>y<!-->z<!--->w",
])
def test_edge_cases(src):
    assert_same(src)
    if isinstance(src, str):
        assert_same(src.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("src", [
    # kind 1: ASCII and Latin-1
    "<p>plain ascii</p>", "<p>caf\u00e9 \u00ff \u0080</p>",
    # kind 2: BMP, a surrogate pair, lone high, lone low, reversed pair
    "<p>\u20ac \u2603</p>", "<p>a\ud83d\ude00b</p>", "<p>a\ud800b</p>c", "<p>a\udc00b</p>",
    "<p>\udc00\ud800</p>", "<p>x</p>\ud800", "\ufeff<p>\ud800</p>",
    "\ufeff" + "<p>" + "x" * 2100 + "\ud800</p>", "\ufeff" + "x" * 1998 + "\ud800",
    "\ufeff" + "x" * 1998 + "\udc00", "\ufeff" + "x" * 1997 + "\udc00",
    # kind 4: astral, with a surrogate (never paired in UCS-4)
    "<p>\U0001F600 \u00e9</p>", "<p>\U0001F600\ud83d\ude00</p>", "\ufeff<p>\U0001F600\ud800</p>",
    "\ufeff" + "y" * 998 + "\U0001F600\ud800", "\ufeff" + "y" * 999 + "\U0001F600\ud800",
    "<p>\ufeff\U0001F600</p>", "\ufeff\U0001F600",
])
def test_pep393_kinds_and_surrogates(src):
    assert_same(src)


def test_ascii_runs_around_every_vector_edge():
    # the str input is copied an SSE2 vector of ASCII units at a time (16 one-byte, 8 two-byte,
    # 4 four-byte): a run of each length before and after each kind of non-ASCII unit
    for special in ("\u00e9", "\u0080", "\u20ac", "\uffff", "\ud800", "\udc00", "\ud83d\ude00", "\U0001F600",
                    "\ufeff"):
        for widen in ("", "\u20ac", "\U0001F600"):
            for k in range(0, 36):
                for m in (0, 1, 7, 9, 17):
                    assert_same(widen + "<p>" + "a" * k + special + "b" * m + "</p>" + "c" * k)


def test_bytes_invalid_utf8():
    for src in [b"<p>\xff\xfe</p>", b"<p>\xe2\x82</p>", b"<p>\xed\xa0\x80</p>", b"<p>\xf0\x90\x80</p>x",
                b"<p>\xc0\xaf\xe0\x80\xaf</p>", b"<p>\xf4\x90\x80\x80</p>", b"<a \xff=\xfe>\xff</a>",
                bytearray(b"<p>ba</p>"), b"\xef\xbb\xbf\xef\xbb\xbf<p>x"]:
        assert_same(src)


def test_exception_types():
    assert core_document("<?xml version='1.0' encoding='utf-8'?>") == "ValueError"
    assert core_fromstring("") == "ParserError"
    assert core_fromstring("<p>a</p><body>\x01</body><body>\x02</body>") == ref_fromstring(
        "<p>a</p><body>\x01</body><body>\x02</body>")
    with pytest.raises(ref.ParserError):
        core.document_fromstring(" ")


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from harness import strategies  # noqa: E402


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.html_documents())
def test_hypothesis_stress_documents(src):
    assert_same(src)
    assert_same(src.encode("utf-8", "surrogatepass"))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.article_documents())
def test_hypothesis_articles(src):
    assert_same(src)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(strategies.html_bytes())
def test_hypothesis_bytes(src):
    assert_same(src)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(hypothesis.strategies.text(alphabet="<>/!-?&#;=\"' \r\n\x00abpx\u00e9\u20ac\U0001F600\ud800\udc00",
                                  max_size=60))
def test_hypothesis_tag_soup(src):
    assert_same(src)


def test_allocation_failures_raise_memory_error():
    # every allocation of the parse fails in turn: MemoryError, never a crash or a wrong tree
    srcs = ["<p>caf\u00e9 &amp; <b a=1 b c='&copy'>x</b><" + "q" * 120 + ">" + "<span>y</span>" * 200 + "\u20ac\r\n\x00",
            b"<!DOCTYPE html><p>\xff<i>" + b"<x%d>" * 1 + b"z" * 5000]
    for src in srcs:
        want = core_document(src)
        seen_ok = False
        for n in range(0, 200):
            core._fail_allocations_after(n)
            try:
                got = core_document(src)
            finally:
                core._fail_allocations_after(-1)
            if got == "MemoryError":
                continue
            assert got == want
            seen_ok = True
            break
        assert seen_ok


@pytest.mark.skipif(not VECTORS, reason=NO_VECTORS)
@pytest.mark.parametrize("form", ["str", "bytes"])
def test_vectors_match_lxml_directly(form):
    # transitively implied (core == reference == lxml), checked once directly when lxml 6.1.3 is here
    etree = pytest.importorskip("lxml.etree")
    if etree.LIBXML_VERSION != (2, 14, 6):
        pytest.skip("needs lxml 6.1.3 with libxml2 2.14.6")
    from lxml import html as lxml_html

    from trafila.html._debug import dump_lxml

    parser = lxml_html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                                  remove_comments=True, remove_pis=True)
    bad = []
    for vec in VECTORS:
        src = vec["html"] if form == "str" else vec["html"].encode("utf-8", "surrogatepass")

        def lxml_doc():  # type: ignore[no-untyped-def]
            root = etree.fromstring(src, parser)
            return [] if root is None else dump_lxml(root)

        want = _outcome(lxml_doc)
        got = core_document(src)
        if got == "ParserError":
            got = []
        if want != got:
            bad.append(vec["name"])
    assert bad == []
