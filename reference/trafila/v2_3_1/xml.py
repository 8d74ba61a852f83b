"""Tree-to-text conversion of trafilatura 2.3.1 (xml.py): ``delete_element``,
``separates_inline`` and ``xmltotxt`` for plain text (no markdown)."""

from __future__ import annotations

import re
from html import unescape
from typing import Any, List, Optional

from ._tree import xt
from .settings import INLINE_CARRIED, INLINE_CONSUMING, INLINE_FORMATTABLE
from .utils import sanitize, text_chars_test

NEWLINE_ELEMS = {"graphic", "head", "lb", "list", "p", "quote", "row", "table"}
SPECIAL_FORMATTING = {"code", "del", "head", "hi", "ref", "item", "cell"}
SEPARATORS = frozenset((" ", "\n", "|", ""))


def delete_element(element: Any, keep_tail: bool = True) -> None:
    """Remove the element and its subtree; its tail joins the previous
    sibling's tail or the parent's text (trafilatura's own drop_tree)."""
    parent = element.getparent()
    if parent is None:
        return
    if keep_tail and element.tail:
        previous = element.getprevious()
        if previous is None:
            parent.text = xt((parent.text or "") + element.tail)
        else:
            previous.tail = xt((previous.tail or "") + element.tail)
    parent.remove(element)


def separates_inline(element: Any) -> bool:
    "An lb followed by an inline (carried) element."
    if element.tag != "lb":
        return False
    nxt = element.getnext()
    return nxt is not None and nxt.tag in INLINE_CARRIED


def keeps_empty(element: Any) -> bool:
    parent = element.getparent()
    return (
        parent is None
        or element.tag == "graphic"
        or parent.tag == "code"
        or separates_inline(element)
        or is_padding_cell(element)
    )


def is_padding_cell(element: Any) -> bool:
    parent = element.getparent()
    return element.tag == "cell" and parent is not None and text_chars_test("".join(parent.itertext())) is True


def _last_char(returnlist: List[str]) -> str:
    return returnlist[-1][-1:] if returnlist else ""


def _list_marker(item: Any, include_formatting: bool = False) -> str:
    "'- ' with two spaces of indent per enclosing list beyond the first."
    indent = "  " * (sum(1 for _ in item.iterancestors("list")) - 1)
    if include_formatting:  # pragma: no cover - markdown is delegated
        raise NotImplementedError("delegate: markdown list numbering")
    return f"{indent}- "


def _image_markup(element: Any, include_formatting: bool = False) -> str:
    raise NotImplementedError("delegate: image markup (include_images)")


# an unescaped bracket; code spans are matched first and kept as they are
_UNESCAPED_BRACKET_RE = re.compile(r"((?<![\\`])(`+)(?!`).+?(?<!`)\2(?!`))|(?<!\\)([\[\]])", re.DOTALL)


def _md_link(text: str, url: Optional[str], image: bool = False) -> str:
    "Markdown link: [text](url), brackets in the text escaped."
    esc = _UNESCAPED_BRACKET_RE.sub(lambda m: m[1] or f"\\{m[3]}", text)
    prefix = "!" if image else ""
    if url is None:
        return f"{prefix}[{esc}]"
    if any(c in url for c in " <>()"):
        inner = url.replace("\\", "\\\\").replace("<", "\\<").replace(">", "\\>")
        safe = f"<{inner}>"
    else:
        safe = url
    return f"{prefix}[{esc}]({safe})"


def _consumes_inline_children(element: Any) -> bool:
    return element.tag in INLINE_CONSUMING and len(element) > 0


def _collect_inline_text(element: Any, include_formatting: bool) -> str:
    "Direct text plus inline children's rendering, with tails."
    parts: List[str] = [element.text] if element.text else []
    for child in element[:]:
        if child.tag == "graphic":
            parts.append(_image_markup(child, include_formatting))
        elif child.tag == "lb":
            parts.append("\n")
        elif child.tag in INLINE_FORMATTABLE:
            parts.append(replace_element_text(child, include_formatting))
        elif child.text:
            parts.append(child.text)
        if child.tail:
            parts.append(child.tail)
    return "".join(parts)


def _closes_container(element: Any, tag: str) -> bool:
    if element.tag == tag:
        return len(element) == 0
    nxt = element.getnext()
    return nxt is None or (tag == "item" and nxt.tag == "item")


def _opens_item(element: Any) -> bool:
    while element.tag != "item":
        parent = element.getparent()
        if parent is None or element.getprevious() is not None or text_chars_test(parent.text):
            return False
        element = parent
    return True


def _item_needs_marker(item: Any) -> bool:
    if text_chars_test(item.text):
        return True
    for child in item[:]:
        if child.tag == "list":
            return False
        if text_chars_test("".join(child.itertext()) + (child.tail or "")) or next(child.iter("graphic"), None) is not None:
            return True
    return False


def _escape_cell(text: str, in_cell: bool = True) -> str:
    return text.replace("|", "\\|").replace("\n", " ") if in_cell else text


def replace_element_text(element: Any, include_formatting: bool, in_cell: bool = False) -> str:
    "The element's own text (inline children folded in for ref/hi/del)."
    if include_formatting:  # pragma: no cover
        raise NotImplementedError("delegate: markdown rendering (include_formatting)")
    if _consumes_inline_children(element):
        elem_text = _collect_inline_text(element, include_formatting)
    else:
        elem_text = element.text or ""
    if element.tag == "ref":
        stripped = elem_text.strip()
        if stripped:
            link_text = _md_link(stripped, element.get("target") or None)
            elem_text = elem_text.replace(stripped, link_text, 1)
    if element.tag == "cell":
        elem_text = elem_text.strip()
        if elem_text and len(element):
            elem_text = f"{elem_text} "
    return elem_text


def _append_spaced(returnlist: List[str], text: str) -> None:
    if text[:1] == " " and _last_char(returnlist) in SEPARATORS:
        text = text[1:]
    if text:
        returnlist.append(text)


def _append_tail(element: Any, returnlist: List[str], in_cell: bool, in_item: bool, include_formatting: bool = False) -> None:
    tail = element.tail
    if not tail:
        return
    if in_cell or in_item or element.tag == "list":
        core = tail.strip()
        if core and (tail[0].isspace() or element.tag not in INLINE_FORMATTABLE):
            core = f" {core}"
        nxt = element.getnext()
        if tail[-1].isspace() and nxt is not None and nxt.tag in INLINE_CARRIED:
            core += " "
        _append_spaced(returnlist, _escape_cell(core, in_cell))
        return
    if element.tag in NEWLINE_ELEMS:
        tail = tail.lstrip()
    returnlist.append(tail)


def process_element(element: Any, returnlist: List[str], include_formatting: bool, in_cell: bool = False, in_item: bool = False) -> None:
    "Flatten an element and its children to text (xml.process_element)."
    tag = element.tag
    in_cell = in_cell or tag == "cell"
    in_item = in_item or tag == "item"
    if tag == "cell" and element.getprevious() is None:
        returnlist.append("| ")

    last = _last_char(returnlist)
    if tag in NEWLINE_ELEMS and not in_cell and not in_item and last not in SEPARATORS:
        returnlist.append("\n")
    elif (
        tag in ("head", "p", "quote", "table")
        and not last.isspace()
        and last not in SEPARATORS
        and (element.text or len(element) == 0 or element[0].tag != "lb")
    ):
        returnlist.append(" ")

    consumes = _consumes_inline_children(element)
    renders_inline = bool(element.text) or consumes

    if tag == "item" and not in_cell and _item_needs_marker(element):
        returnlist.append(_list_marker(element, include_formatting))

    if renders_inline and (tag != "item" or consumes or text_chars_test(element.text)):
        returnlist.append(_escape_cell(replace_element_text(element, include_formatting, in_cell), in_cell))

    if tag == "list" and in_item and _last_char(returnlist) not in ("\n", ""):
        returnlist.append("\n")

    if not consumes:
        for child in element[:]:
            process_element(child, returnlist, include_formatting, in_cell, in_item)

    if not renders_inline:
        if tag == "graphic":
            returnlist.append(_escape_cell(_image_markup(element, include_formatting), in_cell))
            if element.tail:
                returnlist.append(_escape_cell(f" {element.tail.strip()}", in_cell))
        elif tag in NEWLINE_ELEMS:
            if tag == "row":
                cells = [c for c in element if c.tag == "cell"]
                if any(cell.get("role") == "head" for cell in cells):
                    returnlist.append(f"\n|{'---|' * len(cells)}\n")
            elif not in_cell and not (tag == "lb" and in_item and _opens_item(element)):
                returnlist.append("\n")
        elif tag not in ("cell", "item"):
            if in_cell:
                _append_tail(element, returnlist, in_cell, in_item)
            return

    last_in_item = in_item and _closes_container(element, "item")
    last_in_cell = in_cell and _closes_container(element, "cell")
    if tag in NEWLINE_ELEMS and not in_cell and not in_item:
        returnlist.append("\n")
    elif tag == "cell":
        returnlist.append(" | ")
    elif tag in ("head", "item") and in_cell and not last_in_cell:
        _append_spaced(returnlist, " ")
    elif tag not in SPECIAL_FORMATTING and not last_in_item and not last_in_cell:
        _append_spaced(returnlist, " ")

    if tag != "graphic":
        _append_tail(element, returnlist, in_cell, in_item, include_formatting)

    if last_in_item and not in_cell:
        returnlist.append("\n")


def xmltotxt(xmloutput: Optional[Any], include_formatting: bool) -> str:
    "Plain-text rendering of an extracted body (xml.xmltotxt, formatting off)."
    if xmloutput is None:
        return ""
    if include_formatting:
        raise NotImplementedError("delegate: markdown rendering (include_formatting)")
    returnlist: List[str] = []
    process_element(xmloutput, returnlist, include_formatting)
    return unescape(sanitize("".join(returnlist), True) or "")
