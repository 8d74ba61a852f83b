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
# libxml2 converts a str's buffer in blocks; the first one is 4000 bytes
_FIRST_BLOCK = 4000


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
    error_at = -1  # index (in code units) of the surrogate that stops decoding
    kind = 1
    if not text.isascii() and _SURROGATE.search(text) is not None:
        kind = _pep393_kind(text)
        if kind == 2:
            out = []
            last = 0
            for m in _PAIR_OR_LONE.finditer(text):
                out.append(text[last : m.start()])
                if m.group(1) is None:
                    error_at = m.start()
                    break
                pair = m.group(1)
                out.append(chr(0x10000 + ((ord(pair[0]) - 0xD800) << 10) + (ord(pair[1]) - 0xDC00)))
                last = m.end()
            else:
                out.append(text[last:])
            decoded = "".join(out)
        else:
            error_at = _SURROGATE.search(text).start()  # type: ignore[union-attr]
            decoded = text[:error_at]
    else:
        decoded = text
    # libxml2: xmlDetectEncoding -- one leading byte order mark is skipped if
    # anything follows it, unless decoding already failed in the first
    # 4000-byte block it converts (then the BOM stays, as text).
    if decoded.startswith("\ufeff") and len(decoded) > 1:
        if error_at < 0 or not _error_in_first_block(text, kind, error_at):
            decoded = decoded[1:]
    return decoded


def _error_in_first_block(text: str, kind: int, index: int) -> bool:
    if kind == 4:
        return (index + 1) * 4 <= _FIRST_BLOCK
    last_unit = min(_FIRST_BLOCK // 2, len(text)) - 1
    if index < last_unit:
        return True
    # a high surrogate in the block's last unit is incomplete, not (yet) an error
    return index == last_unit and "\udc00" <= text[index] <= "\udfff"


def decode_bytes(data: bytes) -> str:
    """The code points libxml2 reads from ``bytes`` declared as UTF-8.

    A leading UTF-8 BOM is skipped; each invalid byte becomes U+FFFD. A meta
    charset, an XML declaration or a UTF-16 BOM change nothing, because the
    parser's ``encoding="utf-8"`` is set before parsing starts.
    """
    # libxml2: xmlDetectEncoding looks at 4 bytes: a BOM alone is kept (as text)
    if data.startswith(b"\xef\xbb\xbf") and len(data) > 3:
        data = data[3:]
    return data.decode("utf-8", "trafila-libxml2-utf8")


def decode_input(src: Union[str, bytes, bytearray]) -> str:
    if isinstance(src, str):
        return decode_str(src)
    return decode_bytes(bytes(src))
