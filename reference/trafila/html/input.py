"""The input layer: what text libxml2 2.14.6 sees for a ``str`` or ``bytes``.

lxml 6.1.3 hands libxml2 the raw PEP-393 buffer of a ``str`` with an encoding
chosen by the string's kind (lxml: ``_parseUnicodeDoc``), and the raw bytes of
a ``bytes`` with the parser's ``encoding="utf-8"`` (lxml: ``_parseDoc``).
:func:`decode_input` returns the code points the tokenizer then reads; the
tokenizer itself handles NUL, CR and references.
"""

from __future__ import annotations

import codecs
import re
from typing import Union

_SURROGATE = re.compile("[\ud800-\udfff]")
# UTF-16 decoding of a UCS-2 buffer: a high surrogate followed by a low one
# is one astral character; any other surrogate is a decoding error.
_PAIR_OR_LONE = re.compile("([\ud800-\udbff][\udc00-\udfff])|[\ud800-\udfff]")


def _one_fffd_per_byte(err: UnicodeDecodeError):  # type: ignore[no-untyped-def]
    # libxml2: htmlValidateUtf8 -- each byte that does not start a valid
    # sequence becomes one U+FFFD and scanning resumes at the next byte
    # (Python's "replace" would use one U+FFFD per maximal subpart).
    return "\ufffd", err.start + 1


codecs.register_error("trafila-libxml2-utf8", _one_fffd_per_byte)


def _pep393_kind(text: str) -> int:
    """1 (Latin-1, incl. ASCII), 2 (UCS-2) or 4 (UCS-4), as CPython stores ``text``."""
    if not text:
        return 1
    top = max(text)
    if top <= "\xff":
        return 1
    if top <= "\uffff":
        return 2
    return 4


def decode_str(text: str) -> str:
    """The code points libxml2 reads from a ``str``.

    A decoding error ends the input: a lone surrogate (UCS-2 kind) or any
    surrogate (UCS-4 kind) truncates the document right there. Two adjacent
    surrogates that form a pair in a UCS-2 string are read as one astral
    character (the buffer is decoded as UTF-16LE).
    """
    if _SURROGATE.search(text) is not None:
        if _pep393_kind(text) == 2:
            out = []
            last = 0
            for m in _PAIR_OR_LONE.finditer(text):
                if m.group(1) is None:  # lone surrogate: decoding stops here
                    out.append(text[last:m.start()])
                    text = "".join(out)
                    break
                out.append(text[last:m.start()])
                pair = m.group(1)
                out.append(chr(0x10000 + ((ord(pair[0]) - 0xD800) << 10) + (ord(pair[1]) - 0xDC00)))
                last = m.end()
            else:
                out.append(text[last:])
                text = "".join(out)
        else:
            text = text[: _SURROGATE.search(text).start()]  # type: ignore[union-attr]
    # libxml2: xmlDetectEncoding -- one leading byte order mark is skipped
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def decode_bytes(data: bytes) -> str:
    """The code points libxml2 reads from ``bytes`` declared as UTF-8.

    A leading UTF-8 BOM is skipped; each invalid byte becomes U+FFFD. A meta
    charset, an XML declaration or a UTF-16 BOM change nothing, because the
    parser's ``encoding="utf-8"`` is set before parsing starts.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", "trafila-libxml2-utf8")


def decode_input(src: Union[str, bytes, bytearray]) -> str:
    if isinstance(src, str):
        return decode_str(src)
    return decode_bytes(bytes(src))
