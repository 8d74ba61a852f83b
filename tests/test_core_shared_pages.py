"""The core's copy of a str's PEP 393 code units to and from shared memory
(shared_pages.pxi), which extract_batch's worker processes receive their pages by:
the str made from the copy equals the original for every str, surrogates included,
and neither side reads or writes outside the buffer it is given."""

from __future__ import annotations

import mmap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila
from tests._helpers import NO_CORE

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila._core import put_str_units, take_str_units  # noqa: E402

# every code point, lone surrogates among them
ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()), max_size=200)


def pep393_kind(text: str) -> int:
    top = max(map(ord, text), default=0)
    return 1 if top < 0x100 else 2 if top < 0x10000 else 4


@settings(max_examples=400, deadline=None)
@given(text=ANY_TEXT, offset=st.integers(0, 16).map(lambda n: 4 * n))
def test_the_copy_makes_an_equal_str(text, offset):
    buffer = bytearray(b"\xaa" * (offset + 4 * len(text) + 8))
    kind = put_str_units(text, buffer, offset, len(buffer))
    assert kind == pep393_kind(text)
    assert buffer[:offset] == b"\xaa" * offset  # nothing written before the offset
    assert buffer[offset + kind * len(text):] == b"\xaa" * (len(buffer) - offset - kind * len(text))
    copy = take_str_units(buffer, offset, kind, len(text))
    assert type(copy) is str and copy == text


def test_it_works_on_shared_memory():
    shared = mmap.mmap(-1, 4096)
    for text in ["", "ascii", "Latin-1 é", "UCS-2 € \ud800", "UCS-4 😀 \udfff"]:
        kind = put_str_units(text, shared, 100, 4096)
        assert take_str_units(shared, 100, kind, len(text)) == text


@pytest.mark.parametrize("text,offset,end", [
    ("abcd", 0, 3),          # one byte short
    ("€€", 0, 3),            # two UCS-2 units need 4 bytes
    ("😀", 2, 5),            # one UCS-4 unit needs 4
    ("a", -1, 8),            # negative offset
    ("a", 0, 17),            # end past the buffer
    ("a", 9, 8),             # offset past the end
    ("€", 1, 8),             # UCS-2 units at an odd offset
    ("😀", 2, 8),            # UCS-4 units at an offset not a multiple of 4
])
def test_put_refuses_what_does_not_fit(text, offset, end):
    buffer = bytearray(16)
    assert put_str_units(text, buffer, offset, end) == 0
    assert buffer == bytearray(16)


def test_put_fills_exactly_to_the_end():
    buffer = bytearray(8)
    assert put_str_units("€€", buffer, 4, 8) == 2
    assert take_str_units(buffer, 4, 2, 2) == "€€"


@pytest.mark.parametrize("offset,kind,length", [
    (0, 3, 1), (0, 0, 1), (-1, 1, 1), (0, 1, -1), (0, 1, 17), (14, 2, 2), (16, 4, 1), (17, 1, 0), (4, 4, 4),
    (1, 2, 1), (2, 4, 1),  # misaligned
])
def test_take_refuses_what_is_outside(offset, kind, length):
    with pytest.raises(ValueError):
        take_str_units(bytes(16), offset, kind, length)


def test_take_the_whole_buffer_and_nothing():
    assert take_str_units(b"abcd", 0, 1, 4) == "abcd"
    assert take_str_units(b"abcd", 4, 1, 0) == ""
