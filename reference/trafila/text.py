"""Text helpers that trafilatura 2.3.1 and 1.11.0 share unchanged (utils.py in
both): control-character removal, NFC, line processing and ``sanitize``, the
social-media line filter and the page-language meta check.

``trim`` is not here: 1.11.0 gives None for a non-string where 2.3.1 gives '',
so each mode keeps its own; on strings, which is all the helpers below pass,
the two agree.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Optional
from unicodedata import normalize

from ._backend import current as _current_backend
from ._engine import NotNative

# upstream's character class reads "[p{P}>]": the literal characters p { P } and >, not \p{P}
LINES_TRIMMING = re.compile(r"(?<![p{P}>])\n", flags=re.UNICODE | re.MULTILINE)

FORMATTING_PROTECTED = {"cell", "head", "hi", "item", "p", "quote", "ref", "td"}
SPACING_PROTECTED = {"code", "pre"}

# (attribute, value) pairs of the meta elements checked for the page language
TARGET_LANG_ATTRS = (("http-equiv", "content-language"), ("property", "og:locale"))
RE_HTML_LANG = re.compile(r"([a-z]{2})")

RE_FILTER = re.compile(
    r"\W*(Drucken|E-?Mail|Facebook|Flipboard|Google|Instagram|"
    "Linkedin|Mail|PDF|Pinterest|Pocket|Print|QQ|Reddit|Twitter|"
    "WeChat|WeiBo|Whatsapp|Xing|Mehr zum Thema:?|More on this.{,8}$)$",
    flags=re.IGNORECASE,
)


@lru_cache(maxsize=2**14)
def return_printables_and_spaces(char: str) -> str:
    "Keep printable characters and whitespace (drops Cc/Cf/Cn/Zl/Zp... others)."
    return char if char.isprintable() or char.isspace() else ""


def remove_control_characters(string: str) -> str:
    if string.isprintable():
        return string
    return "".join(map(return_printables_and_spaces, string))


def normalize_unicode(string: str, unicodeform: str = "NFC") -> str:
    return normalize(unicodeform, string)


def _trim_str(string: str) -> str:
    return collapse_whitespace(string).strip()


@lru_cache(maxsize=1024)
def line_processing(line: str, preserve_space: bool = False, trailing_space: bool = False) -> Optional[str]:
    "Replace literal space entities, drop control characters, trim unless preserving."
    new_line = remove_control_characters(line.replace("&#13;", "\r").replace("&#10;", "\n").replace("&nbsp;", "\u00a0"))
    if not preserve_space:
        # the pattern needs a "\n" (from "&#10;" above): without one the scan finds nothing
        if "\n" in new_line:
            new_line = LINES_TRIMMING.sub(r" ", new_line)
        new_line = _trim_str(new_line)
        if all(map(str.isspace, new_line)):
            new_line = None  # type: ignore[assignment]
        elif trailing_space:
            space_before = " " if line[0].isspace() else ""
            space_after = " " if line[-1].isspace() else ""
            new_line = f"{space_before}{new_line}{space_after}"
    return new_line


def sanitize(text: str, preserve_space: bool = False, trailing_space: bool = False) -> Optional[str]:
    "Line by line: drop empty lines, then remove the U+2424 markers; None for a non-string."
    if trailing_space:
        return line_processing(text, preserve_space, True)
    try:
        return "\n".join(filter(None, (line_processing(line, preserve_space) for line in text.splitlines()))).replace(
            "\u2424", ""
        )
    except AttributeError:
        return None


def check_html_lang(tree: Any, target_language: str, strict: bool = False) -> bool:
    "Meta http-equiv content-language / og:locale (descendants of the root)."
    for attr, value in TARGET_LANG_ATTRS:
        elems = [e for e in tree.iterdescendants("meta") if e.get(attr) == value and e.get("content") is not None]
        if elems:
            return any(target_language in RE_HTML_LANG.split(elem.get("content", "").lower()) for elem in elems)
    if strict:  # pragma: no cover - not on the extraction path (<html lang> is checked upstream then)
        raise NotNative("strict html lang check")
    return True


def text_chars_test(string: Optional[str]) -> bool:
    "Whether the string has a non-whitespace character."
    return bool(string) and not string.isspace()  # type: ignore[union-attr]


def textfilter(element: Any) -> bool:
    "Empty, whitespace-only, or a line matching the social-media filter."
    testtext = element.tail if element.text is None else element.text
    return not text_chars_test(testtext) or any(map(RE_FILTER.match, testtext.splitlines()))


#: a longer string is collapsed piece by piece, each piece cut at a whitespace character, so that
#: a signal (Ctrl-C) is handled between pieces: ``str.split`` of a 100 MB text is one C call of
#: seconds that checks none (issue 19, reports/interrupts.md)
COLLAPSE_PIECE = 1 << 20
_SPACE = re.compile(r"\s")


def _join_words(string: Any) -> str:
    "``' '.join(string.split())``; a long str in a core call through the core's one-pass C version."
    if type(string) is str and len(string) > 64:
        core = _current_backend().core
        if core is not None:
            return core.collapse_whitespace(string)
    return " ".join(string.split())


def collapse_whitespace(string: Any) -> str:
    "``' '.join(string.split())``, in pieces for a long string (the same result: no word is cut)."
    n = len(string)
    if n <= COLLAPSE_PIECE:
        return _join_words(string)
    pieces = []
    start = 0
    while start < n:
        end = start + COLLAPSE_PIECE
        if end >= n:
            end = n
        else:
            # the next character str.split splits at (str.isspace); re's \s finds the candidates
            m = _SPACE.search(string, end)
            while m is not None and not string[m.start()].isspace():
                m = _SPACE.search(string, m.start() + 1)
            end = n if m is None else m.start()
        piece = _join_words(string[start:end])
        if piece:
            pieces.append(piece)
        start = end
    return " ".join(pieces)


def repair_doctype_sliced(htmlstring: str, doctype_tag: "re.Pattern[str]") -> str:
    """repair_doctype with one copy of the page instead of three (the compiled core's
    load_html): each release's DOCTYPE_TAG only matches at 0, so "sub(first line) + '\\n' +
    rest" is the string without the match (plus the "\\n" that comes back when there was none)."""
    end = htmlstring.find("\n")
    match = doctype_tag.search(htmlstring, 0, end if end >= 0 else len(htmlstring))
    if match is not None:
        htmlstring = htmlstring[: match.start()] + htmlstring[match.end():]
    return htmlstring if end >= 0 else htmlstring + "\n"


def doctype_end(htmlstring: str, doctype_tag: "re.Pattern[str]") -> int:
    """Where :func:`repair_doctype_sliced`'s result starts in ``htmlstring`` (it is then
    ``htmlstring[start:]``, the compiled core parses it in place); -1 when it is not a suffix
    (a page without "\n" gains one)."""
    end = htmlstring.find("\n")
    if end < 0:
        return -1
    match = doctype_tag.search(htmlstring, 0, end)
    if match is None:
        return 0
    return match.end() if match.start() == 0 else -1


def repair_doctype(htmlstring: str, doctype_tag: "re.Pattern[str]") -> str:
    """repair_faulty_html's DOCTYPE step (both releases, each with its ``DOCTYPE_TAG``):
    upstream's ``DOCTYPE_TAG.sub(first line) + "\\n" + rest`` after partitioning on "\\n",
    where the "\\n" comes back even when there was none (a trailing newline appears). When
    the line has a "\\n" and no match, that rebuilds the same string: three copies of the
    page spared by searching the line in place (``endpos`` ends the subject for the
    patterns' ``[^>]``/``.``)."""
    end = htmlstring.find("\n")
    if end >= 0 and doctype_tag.search(htmlstring, 0, end) is None:
        return htmlstring
    firstline, _, rest = htmlstring.partition("\n")
    return doctype_tag.sub("", firstline, count=1) + "\n" + rest
