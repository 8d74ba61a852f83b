"""The core's general accelerators (cython_core/accel.pxi) against what they
replace: ``descendants`` against the reference's walks on the same trees,
``strip_invalid_xml_chars`` against trafilatura's INVALID_XML_CHARS regex,
``collapse_whitespace`` against ``" ".join(s.split())``."""

from __future__ import annotations

import pytest
from tests._helpers import NO_CORE
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _engine  # noqa: E402
from trafila.v2_3_1.utils import INVALID_XML_CHARS  # noqa: E402

CORE = _engine.core_module()

PAGES = [
    "<html><body><div id=a><p>x<b>y</b></p><ul><li>1</li><li>2<a href=#>z</a></li></ul></div><p>t</p></body></html>",
    "<p>lone</p>",
    "<html><head><title>t</title></head><body><table><tr><td>a<td>b</table><div><div><div><span>deep"
    "</span></div></div></div></body></html>",
]


def paths(nodes):
    "Each node as its path of child positions from the root: comparable across models."
    out = []
    for n in nodes:
        steps = []
        while n.getparent() is not None:
            parent = n.getparent()
            steps.append(list(parent).index(n))
            n = parent
        out.append((tuple(reversed(steps)), n.tag))
    return out


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("names", [None, frozenset({"p"}), frozenset({"li", "a", "td"}), frozenset({"nosuch"}),
                                   frozenset(), ("div", "span")])
@pytest.mark.parametrize("include_self", [False, True])
def test_descendants_equal_the_reference_walk(page, names, include_self):
    ref = trafila.html.fromstring(page)
    core = CORE.dom.fromstring(page)
    tags = None if names is None else set(names)
    walk = [e for e in (ref.iter() if include_self else ref.iterdescendants()) if tags is None or e.tag in tags]
    got = CORE.descendants(core, names, include_self)
    assert [e.tag for e in got] == [e.tag for e in walk]
    assert paths(got) == paths(walk)
    # proxies are the live ones (identity kept)
    assert all(a is b for a, b in zip(got, CORE.descendants(core, names, include_self)))


def test_descendants_of_a_subtree_stop_at_it():
    core = CORE.dom.fromstring(PAGES[0])
    div = core.find(".//div")
    assert [e.tag for e in CORE.descendants(div)] == ["p", "b", "ul", "li", "li", "a"]
    assert CORE.descendants(div.find(".//b")) == []


CHARS = st.sampled_from(["a", "\t", "\n", "\r", "\x00", "\x08", "\x0b", "\x0c", "\x0e", "\x1f", " ", "\x7f", "\x85",
                         "é", "\ufffd", "\ufffe", "\uffff", "\u2028", "\U0001f600", "\U0010ffff", "\ud800"])


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=CHARS, max_size=30), st.sampled_from(["", "é", "\u20ac", "\U0001f600"]))
def test_the_invalid_xml_scan_equals_the_regex(text, widen):
    # ``widen`` forces each PEP 393 kind; the str itself comes back exactly when the scan finds nothing
    for s in (text, widen + text, text + widen):
        assert (CORE.strip_invalid_xml_chars(s) is s) == (not INVALID_XML_CHARS.search(s))


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=CHARS, max_size=300), st.sampled_from(["", "é", "\u20ac", "\U0001f600", "\uffff"]))
def test_strip_invalid_xml_chars_equals_the_substitution(text, widen):
    for s in (text, widen + text, text + widen):
        got = CORE.strip_invalid_xml_chars(s)
        assert got == INVALID_XML_CHARS.sub("", s)
        # canonical even where a deleted U+FFFF was the widest character
        assert hash(got) == hash("".join(list(got)))


def test_the_scanners_refuse_none():
    for fn in (CORE.strip_invalid_xml_chars, CORE.collapse_whitespace):
        with pytest.raises(TypeError):
            fn(None)


def test_the_invalid_xml_scan_at_every_position_of_a_block():
    # the scan reads 64-byte blocks (16 bytes a step) of each PEP 393 kind: 64 one-byte, 32
    # two-byte or 16 four-byte code units, then unit by unit; every offset around the block
    # and tail edges, with bytes/lanes that a signed or narrower compare would misread
    lengths = list(range(0, 20)) + list(range(28, 36)) + list(range(60, 68)) + list(range(124, 132))
    for widen in ("", "\u20ac", "\U0001f600"):
        for n in lengths:
            for pos in range(n):
                for ch in ("\x00", "\x08", "\x0b", "\x1f", "\t", "\n", "\r", "\x7f", "\x80", "\x89", "\x9f",
                           "\xff", " ", "\ufffe", "\uffff", "\ufffd", "\u8000", "\u0120", "\u2028", "\uffe0",
                           "\U0001fffe", "\U0001ffff", "\U0001001f", "\U0010ffff"):
                    s = widen + "a" * pos + ch + "b" * (n - pos - 1)
                    found = INVALID_XML_CHARS.search(s) is not None
                    assert (CORE.strip_invalid_xml_chars(s) is not s) == found, (widen, n, pos, ch)
                    # two hits: the copy restarts the scan after each
                    s2 = s + ch + "c" * (n % 7)
                    assert CORE.strip_invalid_xml_chars(s2) == INVALID_XML_CHARS.sub("", s2), (widen, n, pos, ch)


#: every character str.split splits at, and neighbours a narrower test would confuse
SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]
WS_CHARS = st.sampled_from(SPACES + ["a", "\x00", "\x1b", "\x7f", "\x84", "\x86", "\x9f", "\xa1", "\u200b",
                                     "\u2027", "\u3001", "\ufeff", "\u20ac", "\U0001f600", "\ud800"])


def test_the_whitespace_list_is_the_interpreters():
    assert {"\x1c", "\x85", "\xa0", "\u1680", "\u2028", "\u3000"} <= set(SPACES) and "\u200b" not in SPACES


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=WS_CHARS, max_size=200), st.sampled_from(["", "\u20ac", "\U0001f600", "\xa0", " "]))
def test_collapse_whitespace_equals_split_and_join(text, widen):
    for s in (text, widen + text, text + widen, widen + text + widen):
        got = CORE.collapse_whitespace(s)
        assert got == " ".join(s.split())
        # canonical: the kind of the result is that of its widest character, as CPython's own
        assert got == "".join(list(got)) and hash(got) == hash("".join(list(got)))


def test_collapse_whitespace_through_the_text_module():
    from trafila import _backend
    from trafila.text import collapse_whitespace

    long = ("\u3000 words\t\n and \xa0 more \U0001f600 " * 50) + "end"
    on_core = _backend.run_with(_backend.core_backend(CORE), collapse_whitespace, long)
    assert on_core == collapse_whitespace(long) == " ".join(long.split())
    for bad in (None, 12):
        with pytest.raises((TypeError, AttributeError)):
            _backend.run_with(_backend.core_backend(CORE), collapse_whitespace, bad)
