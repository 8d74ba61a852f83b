"""Tree-to-text conversion of trafilatura 2.3.1 (xml.py): ``delete_element``,
``separates_inline`` and ``xmltotxt`` for plain text (no markdown)."""

from __future__ import annotations

import re
from html import unescape
from typing import TYPE_CHECKING, Any, List, Optional

from .._backend import core_of
from ._tree import copy_tree, desc_list, iter_live
from ..treeops import drop_tree
from ..xmlchars import xml_text
from .settings import INLINE_CARRIED, INLINE_CONSUMING, INLINE_FORMATTABLE
from .utils import sanitize, text_chars_test

if TYPE_CHECKING:
    from trafila.dom import Element


NEWLINE_ELEMS = {"graphic", "head", "lb", "list", "p", "quote", "row", "table"}
SPECIAL_FORMATTING = {"code", "del", "head", "hi", "ref", "item", "cell"}
SEPARATORS = frozenset((" ", "\n", "|", ""))

HI_FORMATTING = {"#b": "**", "#i": "*", "#t": "`"}
# no markdown syntax for these: inline HTML
HI_HTML_TAGS = {"#sup": "sup", "#sub": "sub", "#u": "u"}
# adjacent sup/sub stay apart (often distinct footnote references)
MERGEABLE_RENDS = {*HI_FORMATTING, "#u"}
HEADING_LEVELS = frozenset("123456")

# CommonMark inline-syntax characters escaped anywhere in prose
_INLINE_SPECIAL_CHARS = ("*", "_", "`", "~", "[", "]", "<")
# that character with the run of backslashes already before it
_INLINE_SPECIAL_RUN_RES = {ch: re.compile(r"\\*" + re.escape(ch)) for ch in _INLINE_SPECIAL_CHARS}

# block markers, meaningful only at the start of a block line
_HEADING_START_RE = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_QUOTE_START_RE = re.compile(r"^( {0,3})(>)")
_BULLET_START_RE = re.compile(r"^( {0,3})([-+])(?=[ \t]|$)")
_ORDERED_START_RE = re.compile(r"^( {0,3})(\d{1,9})([.)])(?=[ \t]|$)")
_BLOCK_START_RES = (_HEADING_START_RE, _QUOTE_START_RE, _BULLET_START_RE, _ORDERED_START_RE)

# block \[...\] and inline \(...\) math, and the same spans as a splitter
_MATH_BLOCK_RE = re.compile(r"(?<!\S)\\\[(.+?)\\\]", re.DOTALL)
_MATH_INLINE_RE = re.compile(r"\\\((.+?)\\\)")
_MATH_SPAN_RE = re.compile(r"((?s:(?<!\S)\\\[.+?\\\])|\\\(.+?\\\))")


def delete_element(element: Element, keep_tail: bool = True) -> None:
    """Remove the element and its subtree; its tail joins the previous
    sibling's tail or the parent's text (trafilatura's own drop_tree)."""
    parent = element.getparent()
    if parent is None:
        return
    if keep_tail:
        drop_tree(element)
    else:
        parent.remove(element)


def separates_inline(element: Element) -> bool:
    "An lb followed by an inline (carried) element."
    if element.tag != "lb":
        return False
    nxt = element.getnext()
    return nxt is not None and nxt.tag in INLINE_CARRIED


def is_padding_cell(element: Element) -> bool:
    parent = element.getparent()
    return element.tag == "cell" and parent is not None and text_chars_test("".join(parent.itertext())) is True


# --- markdown (include_formatting) ----------------------------------------------------

def _code_fence(text: str, min_len: int = 1) -> str:
    "The shortest backtick run of at least min_len that does not occur in the text."
    fence_len = min_len
    run = 0
    for ch in text:
        if ch == "`":
            run += 1
            if run >= fence_len:
                fence_len = run + 1
        else:
            run = 0
    return "`" * fence_len


def _code_span(text: str) -> str:
    "Inline code span; an edge backtick gets a padding space."
    fence = _code_fence(text)
    if text.startswith("`") or text.endswith("`"):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def _md_wrap(text: str, opening: str, closing: Optional[str] = None) -> str:
    "Wrap the stripped text in markers, flanking whitespace left outside."
    stripped = text.strip()
    if not stripped:
        return text
    closing = opening if closing is None else closing
    return text.replace(stripped, f"{opening}{stripped}{closing}", 1)


def _md_code(text: str) -> str:
    stripped = text.strip()
    return text.replace(stripped, _code_span(stripped), 1) if stripped else text


def _convert_math(text: str) -> str:
    "LaTeX delimiters to $$...$$ (block) and $...$ (inline)."
    text = _MATH_BLOCK_RE.sub(lambda m: f"\n$$\n{m.group(1).strip()}\n$$\n", text)
    return _MATH_INLINE_RE.sub(lambda m: f"${m.group(1)}$", text)


def _collapse_emphasis(element: Element, active: frozenset = frozenset()) -> None:
    "Splice out repeated emphasis levels in linear hi chains."
    if element.tag == "hi":
        here = HI_FORMATTING.get(element.get("rend") or "")
        if here:
            active = active | {here}
        while (
            not (element.text or "").strip()
            and len(element) == 1
            and element[0].tag == "hi"
            and not (element[0].tail or "").strip()
            and HI_FORMATTING.get(element[0].get("rend") or "") in active
        ):
            child = element[0]
            element.text = xml_text((element.text or "") + (child.text or ""))
            for grandchild in child[:]:
                element.append(grandchild)
            element.remove(child)
    for child in element[:]:
        _collapse_emphasis(child, active)


def _strip_block_whitespace(element: Element) -> None:
    "Strip the outer whitespace of p, quote and head text."
    for p in iter_live(element, "p", "quote", "head"):
        if p.text:
            p.text = xml_text(p.text.lstrip() if len(p) > 0 else p.text.strip())
        if len(p) > 0 and p[-1].tail:
            p[-1].tail = xml_text(p[-1].tail.rstrip())


def _merge_adjacent_hi(element: Element) -> None:
    "Merge adjacent childless hi siblings with the same (mergeable) rend."
    for child in element[:]:
        _merge_adjacent_hi(child)
    children = element[:]
    for i in range(len(children) - 2, -1, -1):
        curr, nxt = children[i], children[i + 1]
        if (
            curr.tag == "hi"
            and nxt.tag == "hi"
            and curr.get("rend") == nxt.get("rend")
            and curr.get("rend") in MERGEABLE_RENDS
            and len(curr) == 0
            and len(nxt) == 0
            and not (curr.tail or "").strip()
        ):
            curr.text = xml_text((curr.text or "") + (curr.tail or "") + (nxt.text or ""))
            curr.tail = xml_text(nxt.tail)
            element.remove(nxt)


def _escape_inline_specials(text: str) -> str:
    "Backslash-escape CommonMark inline characters (doubling backslashes already there)."
    if not any(ch in text for ch in _INLINE_SPECIAL_CHARS):
        return text

    def _escape_run(match: Any) -> str:
        run: str = match.group()
        return "\\" * (2 * run.count("\\") + 1) + run[-1]

    for ch in _INLINE_SPECIAL_CHARS:
        if ch in text:
            text = _INLINE_SPECIAL_RUN_RES[ch].sub(_escape_run, text)
    return text


def _escape_and_convert_math(text: str) -> str:
    "Escape the prose, convert the formulas (split once on the math spans)."
    parts = _MATH_SPAN_RE.split(text)
    parts[::2] = [_escape_inline_specials(part) for part in parts[::2]]
    parts[1::2] = [_convert_math(part) for part in parts[1::2]]
    return "".join(parts)


def _escape_and_convert_math_tree(element: Element) -> None:
    "Escape and convert text and tails in place, code subtrees left verbatim."
    if element.tag == "code" or (element.tag == "hi" and HI_FORMATTING.get(element.get("rend") or "") == "`"):
        return
    if element.text:
        element.text = xml_text(_escape_and_convert_math(element.text))
    for child in element[:]:
        _escape_and_convert_math_tree(child)
        if child.tail:
            child.tail = xml_text(_escape_and_convert_math(child.tail))


def _escape_block_start(text: str) -> str:
    "Escape a leading heading/quote/list marker."
    for regex in _BLOCK_START_RES:
        match = regex.match(text)
        if match and match.lastindex is not None:
            pos = match.start(match.lastindex)
            return f"{text[:pos]}\\{text[pos:]}"
    return text


def _heading_prefix(element: Element) -> str:
    "'#' times the heading level (default 2)."
    level = element.get("rend") or ""
    number = int(level[1]) if level[1:2] in HEADING_LEVELS else 2
    return "#" * number


def _last_char(returnlist: List[str]) -> str:
    return returnlist[-1][-1:] if returnlist else ""


def _list_marker(item: Any, include_formatting: bool = True) -> str:
    "'- ' with two spaces of indent per enclosing list beyond the first."
    indent = "  " * (sum(1 for _ in item.iterancestors("list")) - 1)
    parent = item.getparent()
    # numbering only with formatting: in plain text digits would be new tokens
    if include_formatting and parent is not None and parent.get("rend") == "ol":
        return f"{indent}{sum(1 for _ in item.itersiblings('item', preceding=True)) + 1}. "
    return f"{indent}- "


def _image_markup(element: Element, include_formatting: bool = True) -> str:
    "Markdown image: ![title alt](src)."
    alt = f"{element.get('title', '')} {element.get('alt', '')}".strip()
    if include_formatting:
        alt = _escape_inline_specials(alt)
    return _md_link(alt, element.get("src", ""), image=True)


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


def _consumes_inline_children(element: Element) -> bool:
    return element.tag in INLINE_CONSUMING and len(element) > 0


def _collect_inline_text(element: Element, include_formatting: bool) -> str:
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


def _closes_container(element: Element, tag: str) -> bool:
    if element.tag == tag:
        return len(element) == 0
    nxt = element.getnext()
    return nxt is None or (tag == "item" and nxt.tag == "item")


def _opens_item(element: Element) -> bool:
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


def replace_element_text(element: Element, include_formatting: bool, in_cell: bool = False) -> str:
    "The element's own text (inline children folded in for ref/hi/del)."
    if _consumes_inline_children(element):
        elem_text = _collect_inline_text(element, include_formatting)
    else:
        elem_text = element.text or ""
    if include_formatting and elem_text and not in_cell and element.tag in ("p", "quote", "item"):
        elem_text = _escape_block_start(elem_text)
    if include_formatting and elem_text:
        tag = element.tag
        if tag in ("article", "list", "table"):
            elem_text = elem_text.strip()
        elif tag == "head" and not in_cell:
            elem_text = f"{_heading_prefix(element)} {elem_text}"
        elif tag == "del":
            elem_text = _md_wrap(elem_text, "~~")
        elif tag == "hi":
            rend = element.get("rend") or ""
            marker = HI_FORMATTING.get(rend)
            if marker == "`":
                elem_text = _md_code(elem_text)
            elif marker:
                elem_text = _md_wrap(elem_text, marker)
            elif rend in HI_HTML_TAGS:
                html_tag = HI_HTML_TAGS[rend]
                elem_text = _md_wrap(elem_text, f"<{html_tag}>", f"</{html_tag}>")
        elif tag == "code":
            lbs = [e for e in desc_list(element) if e.tag == "lb"]
            if "\n" in elem_text or lbs:
                # <br> inside <code> becomes a newline
                for lb in lbs:
                    elem_text = f"{elem_text}\n{lb.tail or ''}"
                    lb.getparent().remove(lb)
                fence = _code_fence(elem_text, min_len=3)
                elem_text = f"{fence}\n{elem_text}\n{fence}\n"
            else:
                elem_text = _md_code(elem_text)
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


def _append_tail(element: Element, returnlist: List[str], in_cell: bool, in_item: bool, include_formatting: bool = False) -> None:
    tail = element.tail
    if not tail:
        return
    parent = element.getparent()
    if include_formatting and element.tag == "list" and in_item and not in_cell and parent is not None and tail.strip():
        # blank line and the parent item's indent, else CommonMark continues the last sub-item
        returnlist.append(f"\u2424\n{' ' * len(_list_marker(parent))}{tail.strip()}")
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


def process_element(element: Element, returnlist: List[str], include_formatting: bool, in_cell: bool = False, in_item: bool = False) -> None:
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
    elif include_formatting and tag == "head" and not in_cell and len(element):
        # a heading starting with an inline child still needs its # prefix
        returnlist.append(f"{_heading_prefix(element)} ")

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
        returnlist.append("\n\u2424\n" if include_formatting and tag != "row" else "\n")
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
    "Text rendering of an extracted body (xml.xmltotxt): plain, or markdown with formatting."
    if xmloutput is None:
        return ""
    if not include_formatting:
        core = core_of(xmloutput)
        if core is not None:
            # the whole walk, sanitize included, in C (None: a tree only this path renders)
            text = core.xmltotxt_plain(xmloutput, False)
            if text is not None:
                return text
    else:
        core = core_of(xmloutput)
        if core is not None:
            # the rewrites on the C walk's own copy, the markdown walk, sanitize (None: not rendered there)
            text = core.xmltotxt_formatted(xmloutput)
            if text is not None:
                return text
    returnlist: List[str] = []
    if include_formatting:
        # the rewrites below change the tree: work on a copy
        xmloutput = copy_tree(xmloutput)
        _escape_and_convert_math_tree(xmloutput)
        _collapse_emphasis(xmloutput)
        _merge_adjacent_hi(xmloutput)
        _strip_block_whitespace(xmloutput)
    process_element(xmloutput, returnlist, include_formatting)
    return unescape(sanitize("".join(returnlist), True) or "")
