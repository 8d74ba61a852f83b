"""load_html on the core parses the repaired page in place: the DOCTYPE that repair_faulty_html
cuts out is skipped by starting the parser after it (``fromstring(src, start)``), and the
"<html .../>" test of the first lines is made without making the lines
(``faulty_html_line``). Against the copies they spare, in both releases: the start is where
the repaired page begins, the line test is the lines' test, and a parse from ``start`` is the
parse of the slice, for every PEP 393 kind (a slice may have a smaller kind than the page: the
input layer reads a str by its kind, so such a slice is copied)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from tests._helpers import NO_CORE

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend, _engine  # noqa: E402
from trafila.treedump import dump_document, dump_element  # noqa: E402
from trafila.v1_11_0 import utils as u111  # noqa: E402
from trafila.v2_3_1 import utils as u231  # noqa: E402

CORE = _engine.core_module()
BACKEND = _backend.core_backend(CORE)


def lines_test(s: str, count: int = 4, limit=None) -> bool:
    view = s if limit is None else s[:limit]
    return any("<html" in line and line.endswith("/>") for line in view.splitlines()[:count])


PIECES = st.sampled_from([
    "<html", "<html lang=en/>", "/>", "/", ">", "<HTML/>", "x", " ", "\n", "\r", "\r\n", "\x0b", "\x0c",
    "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\u00e9", "\u4e2d", "\U0001f600", "<htm", "l/>",
])


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join), st.integers(0, 6), st.integers(0, 40))
def test_faulty_html_line_is_the_lines_test(s, count, pos):
    pos = min(pos, len(s))
    assert CORE.faulty_html_line(s, pos, len(s), count) == lines_test(s[pos:], count)
    for limit in (0, 1, 3, 7):
        assert CORE.faulty_html_line(s, pos, pos + limit, count) == lines_test(s[pos:], count, limit)


def test_faulty_html_line_on_a_long_first_line():
    s = "<html a=b" + "x" * 100000 + "/>\nrest"
    assert CORE.faulty_html_line(s, 0, len(s), 4)
    assert not CORE.faulty_html_line(s, 0, 4096, 4)  # 2.3.1 looks at 4096 characters only
    assert lines_test(s) and not lines_test(s, limit=4096)


DOCTYPES = ["", "<!DOCTYPE html>", "<!doctype html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\" />",
            "<!DOCTYPE html/>", "<!DOCTYPE \u4e2d/>", "<!DOCTYPE \U0001f600 />", " <!DOCTYPE html/>",
            "<!DOCTYPE html \u00e9 />"]
BODIES = ["<html><body><p>t</p></body></html>", "\n<html/>\n<body>x", "\n<html lang=en/>\n<p>\u4e2d</p>",
          "<html><p>\ud83d\ude00 pair</p>", "\ufeff<p>bom</p>", "no newline <p>at all</p>",
          "\n<p>\U0001f600</p>", "\n<p>\udc00 lone</p>", "\n<?xml version='1.0' encoding='utf-8'?><p>x</p>",
          "\n\u00e9<p>latin</p>"]


def _outcome(call):
    try:
        got = call()
    except Exception as err:  # noqa: BLE001 - the exception is the outcome
        return type(err).__name__
    if got is None:
        return None
    if isinstance(got, CORE.CDocument):
        return dump_document(got), got.root_index
    # an element: its document and which element was chosen
    return dump_document(got.getroottree()), dump_element(got)


def _copying(utils):
    "utils._repair_in_place as the copies would do it: the repaired page, parsed from 0"
    return lambda page, beginning, core: (utils.repair_faulty_html(page, beginning), 0)


@pytest.mark.parametrize("utils", [u111, u231], ids=["1.11.0", "2.3.1"])
@pytest.mark.parametrize("doctype", DOCTYPES)
@pytest.mark.parametrize("body", BODIES)
def test_in_place_is_the_repaired_page(utils, doctype, body, monkeypatch):
    page = doctype + body
    beginning = page[:50].lower()
    with _backend.use(BACKEND):
        repaired = utils.repair_faulty_html(page, beginning)
        s, start = utils._repair_in_place(page, beginning, CORE)
        assert s[start:] == repaired
        assert _outcome(lambda: CORE.dom.fromstring(s, start)) == _outcome(lambda: CORE.dom.fromstring(repaired))
        # the whole of load_html, in place and by the copies
        got = _outcome(lambda: utils.load_html(page))
        monkeypatch.setattr(utils, "_repair_in_place", _copying(utils))
        assert got == _outcome(lambda: utils.load_html(page))


def test_the_doctype_is_skipped_in_place():
    page = "<!DOCTYPE html/>\n<html><body><p>t</p></body></html>"
    for utils in (u111, u231):
        s, start = utils._repair_in_place(page, page[:50].lower(), CORE)
        assert s is page and start == len("<!DOCTYPE html/>")


@pytest.mark.parametrize("page", [d + b for d in DOCTYPES for b in BODIES])
def test_parse_from_start_is_the_parse_of_the_slice(page):
    for start in range(0, min(len(page), 30)):
        want = _outcome(lambda: CORE.parse_document(page[start:]))
        assert _outcome(lambda: CORE.parse_document(page, start)) == want, start
        want = _outcome(lambda: CORE.fromstring(page[start:]))
        assert _outcome(lambda: CORE.fromstring(page, start)) == want, start


def test_start_out_of_range():
    with pytest.raises(IndexError):
        CORE.parse_document("<p>x</p>", 9)
    with pytest.raises(IndexError):
        CORE.parse_document("<p>x</p>", -1)
