"""Regressions of the compiled core's reliability (issue 19).

Every input that crashed the core or set off a sanitizer under
``python -m harness fuzz-native`` (``tox -e core-asan``) is added to
``CASES`` with what it found; so far the fuzzing (reports/fuzz-native.md) found
none, and the cases are the extremes that campaign and the pathological pages
(reports/pathological.md) go through (the million-attribute page found a
quadratic parser and copy: the attribute tests below hold the fix): each is parsed by every entry point and
extracted by each engine, and the core must give the reference's outcome (the
result, or the exception's type).
"""

from __future__ import annotations

import pytest

import trafila
from trafila import _engine

WORDS = "Some words of a long paragraph that goes on, with commas, and more words again. "

#: name -> input (str or bytes)
CASES = {
    "only <": "<" * 20_000,
    "only &": "&" * 20_000,
    "NULs in a paragraph": "<html><body><p>" + "\x00" * 5_000 + WORDS * 3 + "</p></body></html>",
    "NULs as bytes": b"<html><body><p>" + b"\x00" * 5_000 + WORDS.encode() * 3 + b"</p></body></html>",
    "nested divs past libxml2's depth limit": "<html><body><article>" + "<div>" * 3_000 + WORDS * 4 + "</article></body></html>",
    "nested tables": "<html><body>" + "<table><tr><td>" * 1_000 + WORDS * 4 + "</body></html>",
    "nested lists": "<html><body>" + "<ul><li>" * 1_000 + WORDS * 4 + "</body></html>",
    "many attributes": "<html><body><article><p " + " ".join(f"a{i}=\"v\"" for i in range(20_000)) + ">"
                       + WORDS * 4 + "</p></article></body></html>",
    "duplicates past the scan limit": "<html><body><article><p " + " ".join(
        f"a{i % 50}=\"v{i}\"" if i % 3 else f"A{i % 70}" for i in range(400)) + ">" + WORDS * 4
        + "</p><div " + " ".join(f"b{i}=x" for i in range(33)) + " b0=y b32=z b33=w></div></article></body></html>",
    "repeated attribute": "<html><body><p " + "a=\"v\" " * 5_000 + ">" + WORDS * 4 + "</p></body></html>",
    "lone surrogates": "<html><body><article><p>\ud800" + WORDS * 3 + "\udfff</p></article></body></html>",
    "invalid UTF-8": b"<html><body><article><p>\xff\xc3" + WORDS.encode() * 3 + b"\xed\xa0\x80</p></article></body></html>",
    "cut in a comment": "<html><body><p>" + WORDS * 3 + "<!-- never closed " + "x" * 5_000,
    "cut in an attribute": "<html><body><p class=\"" + "x" * 5_000,
    "cut in a character reference": "<html><body><p>" + WORDS * 3 + "&#x1F600" * 500 + "&#",
    "huge character references": "<p>" + "&#99999999999999999999;&#x110000;&#0;" * 200 + WORDS * 3 + "</p>",
    "identical paragraphs": "<html><body><article>" + ("<p>" + WORDS * 2 + "</p>") * 2_000 + "</article></body></html>",
    "one long text node": "<html><body><article><p>" + WORDS * 20_000 + "</p></article></body></html>",
    "raw text elements unclosed": "<html><head><script>" + "<p>" * 1_000 + "</scr" + "<style>" + WORDS,
    "plaintext": "<html><body><plaintext>" + "<p>" * 500 + WORDS * 3,
}


def _outcome(fn, *args, **kwargs):
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - the exception's type is the outcome
        return ("raise", type(exc).__name__)


def _core():
    if "core" not in trafila.engines_built():
        pytest.skip("the compiled core is not built here")
    return _engine.core_module()


@pytest.mark.parametrize("name", list(CASES))
def test_core_parser_entry_points_on_extremes(name):
    core = _core()
    src = CASES[name]
    for fn in (core.parse_document, core.document_fromstring, core.fromstring):
        out = _outcome(fn, src)
        assert out[0] == "ok" or out[1] in ("ValueError", "ParserError", "XMLSyntaxError"), (fn.__name__, out)
    ref = _engine.parser("reference")
    from harness.treedump import dump_document

    got = _outcome(lambda: dump_document(_engine.parser("core").parse_document(src)))
    want = _outcome(lambda: dump_document(ref.parse_document(src)))
    assert got == want
    for view in (core.parse_document_view, core.fromstring_view):
        out = _outcome(view, src)
        if out[0] == "ok":
            root = out[1].getroot() if hasattr(out[1], "getroot") else out[1]
            if root is not None:
                assert sum(1 for _ in root.iter()) >= 1


@pytest.mark.parametrize("count", [31, 32, 33, 34, 100, 5000])
def test_attribute_duplicates_first_wins_at_any_count(html_parser, count):
    """Past ATTR_SCAN_MAX (32) attributes the parser finds duplicates by table, not by scan: the first
    value wins either way, in source order."""
    names = [f"n{i}" for i in range(count)]
    src = "<div " + " ".join(f'{n}="{k}"' for k, n in enumerate(names)) + " " + " ".join(
        f'{n}="dup"' for n in names[::-1]) + " N0=upper n0 extra=1>x</div>"
    el = html_parser.fromstring(src)
    assert list(el.attrib.items()) == [(n, str(k)) for k, n in enumerate(names)] + [("extra", "1")]


@pytest.mark.parametrize("count", [1, 33, 3000])
def test_deepcopy_keeps_every_attribute_in_order(count):
    import copy

    core = _core()
    root = core.fromstring_view("<div " + " ".join(f'a{i}="{i}"' for i in range(count)) + ">t</div>")
    clone = copy.deepcopy(root)
    assert list(clone.attrib.items()) == list(root.attrib.items()) == [(f"a{i}", str(i)) for i in range(count)]
    clone.set("a0", "changed")  # the copy's attributes are its own, set in place
    assert clone.get("a0") == "changed" and root.get("a0") == "0"
    assert list(clone.attrib)[0] == "a0" and len(clone.attrib) == count


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("options", [{}, {"fast": True}, {"deduplicate": True}], ids=["default", "fast", "dedup"])
def test_extraction_on_extremes_equals_the_reference(engine_231, name, options):
    src = CASES[name]
    reference = trafila.engine("reference")
    trafila.reset_caches()
    want = _outcome(reference.extract, src, **options)
    trafila.reset_caches()
    got = _outcome(engine_231.extract, src, **options)
    trafila.reset_caches()
    assert got == want
