"""Output side of trafilatura 1.11.0 (xml.py): ``delete_element`` and the
plain-text rendering ``xmltotxt`` (1.11.0's version: ``sanitize`` trims every
line)."""

from __future__ import annotations

import logging
from html import unescape
from typing import TYPE_CHECKING, Any, List

from trafila._backend import core_of
from trafila.treeops import drop_tree

from .utils import sanitize

if TYPE_CHECKING:
    from trafila.dom import Element


LOGGER = logging.getLogger(__name__)

TEI_VALID_TAGS = {
    "ab", "body", "cell", "code", "del", "div", "graphic", "head", "hi",
    "item", "lb", "list", "p", "quote", "ref", "row", "table",
}

NEWLINE_ELEMS = {tag: "\n" for tag in ("code", "graphic", "head", "lb", "list", "p", "quote", "row", "table")}
SPECIAL_FORMATTING = {"del", "head", "hi", "ref"}

HI_FORMATTING = {"#b": "**", "#i": "*", "#u": "__", "#t": "`"}


def delete_element(element: Element) -> None:
    """Remove the element with its subtree; its tail joins the previous
    sibling's tail, or the parent's text."""
    if element.getparent() is not None:
        drop_tree(element)


def _has_ancestor(element: Element, tag: str) -> bool:
    return next(element.iterancestors(tag), None) is not None


def replace_element_text(element: Element, include_formatting: bool) -> str:
    "The element's own text, decorated for markdown and links (tail handled by the caller)."
    elem_text = element.text or ""
    if include_formatting and element.text:
        if element.tag == "head":
            try:
                number = int(element.get("rend")[1])
            except (TypeError, ValueError):
                number = 2
            elem_text = f'{"#" * number} {elem_text}'
        elif element.tag == "del":
            elem_text = f"~~{elem_text}~~"
        elif element.tag == "hi":
            rend = element.get("rend")
            if rend in HI_FORMATTING:
                elem_text = f"{HI_FORMATTING[rend]}{elem_text}{HI_FORMATTING[rend]}"
        elif element.tag == "code":
            if "\n" in element.text:
                elem_text = f"```\n{elem_text}\n```"
            else:
                elem_text = f"`{elem_text}`"
    if element.tag == "ref":
        if elem_text:
            link_text = f"[{elem_text}]"
            target = element.get("target")
            elem_text = f"{link_text}({target})" if target else link_text
    if element.tag == "cell" and elem_text and len(element) > 0:
        if element[0].tag == "p":
            elem_text = f"{elem_text} "
    elif element.tag == "item" and elem_text:
        elem_text = f"- {elem_text}\n"
    return elem_text


def process_element(element: Element, returnlist: List[str], include_formatting: bool) -> None:
    "Depth-first rendering: text, children, end-of-element separator, tail."
    if element.text is not None:
        returnlist.append(replace_element_text(element, include_formatting))
    for child in element:
        process_element(child, returnlist, include_formatting)
    if element.text is None and element.tail is None:
        if element.tag == "graphic":
            text = f'{element.get("title", "")} {element.get("alt", "")}'
            returnlist.extend(["![", text.strip(), "]", "(", element.get("src", ""), ")"])
        elif element.tag in NEWLINE_ELEMS:
            if element.tag == "row":
                max_span = int(element.get("span", 1))
                cell_count = sum(1 for _ in element.iterdescendants("cell"))
                returnlist.append("|" * (max_span - cell_count) + "\n")
                if any(c.get("role") == "head" for c in element.iterchildren("cell")):
                    returnlist.append("\n" + "---|" * max_span + "\n")
            else:
                returnlist.append("\n")
        elif element.tag != "cell":
            # a textless element outside the known set: nothing more, not even its (absent) tail
            return
    if element.tag == "p" and include_formatting and not _has_ancestor(element, "cell"):
        returnlist.append("\n\u2424\n")
    elif element.tag in NEWLINE_ELEMS and not _has_ancestor(element, "cell"):
        returnlist.extend([NEWLINE_ELEMS[element.tag], "\n"])
    elif element.tag == "cell":
        returnlist.append(" | ")
    elif element.tag == "comments":
        returnlist.append("\n\n")
    elif element.tag not in SPECIAL_FORMATTING:
        returnlist.append(" ")
    if element.tail is not None:
        returnlist.append(element.tail)


def xmltotxt(xmloutput: Any, include_formatting: bool) -> str:
    "Plain text (markdown with formatting), line-trimmed by ``sanitize``, entities unescaped."
    if not include_formatting:
        core = core_of(xmloutput)
        if core is not None:
            # the whole walk, sanitize included, in C (None: a tree only this path renders)
            text = core.xmltotxt_plain(xmloutput, True)
            if text is not None:
                return text
    returnlist: List[str] = []
    process_element(xmloutput, returnlist, include_formatting)
    return unescape(sanitize("".join(returnlist)) or "")
