"""trafilatura 2.3.1's xml.py: the tree-to-text conversion (``xmltotxt``, plain or
markdown) and the other output formats -- JSON (``build_json_output``), CSV
(``xmltocsv``), XML (``build_xml_output`` through ``control_xml_output``), XML-TEI
(``build_tei_output``: ``write_teitree``, ``write_fullheader``, ``check_tei``) and
HTML (``build_html_output``, upstream in htmlprocessing.py).

lxml's serialisations are trafila.html.serialize's ``tostring``; the XML re-read
``control_xml_output`` does (libxml2 with remove_blank_text) is
trafila.html.serialize's ``remove_blank_text``. Where upstream would raise (a string
or name lxml refuses, a rend its tables lack) these raise ``NotNative``.
"""

from __future__ import annotations

import csv
import logging
import re
from html import unescape
from io import StringIO
from json import dumps as json_dumps
from typing import TYPE_CHECKING, Any, Iterator, List, Optional, Tuple

from .._backend import core_of
from ._tree import copy_tree, desc_list, iter_live
from ..treeops import drop_tree
from ..html.serialize import remove_blank_text, tostring
from ..xmlchars import xml_name_valid, xml_text
from .settings import INLINE_CARRIED, INLINE_CONSUMING, INLINE_FORMATTABLE
from .utils import FORMATTING_PROTECTED, SPACING_PROTECTED, sanitize, text_chars_test
from .._engine import NotNative

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


# --- the other output formats ----------------------------------------------------------

LOGGER = logging.getLogger(__name__)
#: the release the TEI header names (upstream: the installed trafilatura's version)
PKG_VERSION = "2.3.1"

TEI_VALID_TAGS = {
    "ab", "body", "cell", "code", "del", "div", "graphic", "head", "hi", "item", "lb", "list", "p", "quote",
    "ref", "row", "table",
}
TEI_VALID_ATTRS = {"rend", "rendition", "role", "target", "type"}
TEI_REMOVE_TAIL = {"ab", "p"}
TEI_DIV_SIBLINGS = {"p", "list", "table", "quote", "ab"}

WITH_ATTRIBUTES = {"cell", "row", "del", "graphic", "head", "hi", "item", "list", "ref"}
NESTING_WHITELIST = {"cell", "figure", "item", "note", "quote"}

META_ATTRIBUTES = [
    "sitename", "title", "author", "date", "url", "hostname", "description", "categories", "tags", "license",
    "id", "fingerprint", "language",
]


def _new(tag: str, attrib: Optional[List[Tuple[str, str]]] = None) -> Any:
    "lxml.etree.Element(tag, **attrib) in the call's element model."
    from ._tree import Element as _Element

    el = _Element(tag)
    for key, value in attrib or ():
        el.set(key, _checked_value(value))
    return el


def _sub(parent: Any, tag: str, attrib: Optional[List[Tuple[str, str]]] = None) -> Any:
    "lxml.etree.SubElement(parent, tag, **attrib)."
    from ._tree import SubElement as _SubElement

    el = _SubElement(parent, tag)
    for key, value in attrib or ():
        el.set(key, _checked_value(value))
    return el


def _checked_value(value: Any) -> str:
    "An attribute value lxml accepts (it raises otherwise: so does upstream, hence delegate)."
    if not isinstance(value, str):
        raise NotNative("output: a non-string attribute value")
    try:
        xml_text(value)
    except ValueError:
        raise NotNative("output: a string lxml refuses") from None
    return value


def _checked_text(value: Any) -> Optional[str]:
    "A text or tail value lxml accepts (None clears)."
    if value is None:
        return None
    if not isinstance(value, str):
        raise NotNative("output: a non-string text")
    try:
        return xml_text(value)
    except ValueError:
        raise NotNative("output: a string lxml refuses") from None


def merge_with_parent(element: Element, include_formatting: bool = False) -> None:
    "Fold the element (its text rendered as replace_element_text does, then its tail) into its parent."
    parent = element.getparent()
    if parent is None:
        return
    full_text = replace_element_text(element, include_formatting)
    if element.tail is not None:
        full_text += element.tail
    previous = element.getprevious()
    if previous is not None:
        previous.tail = _checked_text(f"{previous.tail} {full_text}" if previous.tail else full_text)
    elif parent.text is not None:
        parent.text = _checked_text(f"{parent.text} {full_text}")
    else:
        parent.text = _checked_text(full_text)
    parent.remove(element)


def keeps_empty(element: Element) -> bool:
    "Whether an empty element stays: the root, graphics, children of code, line breaks before inline content, padding cells."
    parent = element.getparent()
    return (
        parent is None
        or element.tag == "graphic"
        or parent.tag == "code"
        or separates_inline(element)
        or is_padding_cell(element)
    )


def remove_empty_elements(tree: Element) -> Element:
    "Delete childless elements without text or tail, bottom-up (a parent emptied by its children goes too)."
    for element in reversed([tree, *desc_list(tree)]):
        if (
            len(element) == 0
            and text_chars_test(element.text) is False
            and text_chars_test(element.tail) is False
            and not keeps_empty(element)
        ):
            delete_element(element, keep_tail=False)
    return tree


def strip_double_tags(tree: Element) -> Element:
    "Merge a code, head or p nested in one of its own kind (unless its parent may nest them) into its parent."
    for elem in reversed([e for e in desc_list(tree) if e.tag in ("head", "code", "p")]):
        for subelem in iter_live(elem, "code", "head", "p", inclusive=False):
            if subelem.tag == elem.tag and subelem.getparent().tag not in NESTING_WHITELIST:
                merge_with_parent(subelem)
    return tree


def sanitize_tree(tree: Element) -> Element:
    """utils.sanitize_tree: ``sanitize`` on every text and tail (spaces kept under code/pre,
    edge spaces kept under the formatting elements); attributes with a colon are dropped."""
    for elem in tree.iter():
        parent = elem.getparent()
        parent_tag = parent.tag if parent is not None else ""
        preserve_space = elem.tag in SPACING_PROTECTED or parent_tag in SPACING_PROTECTED
        trailing_space = elem.tag in FORMATTING_PROTECTED or parent_tag in FORMATTING_PROTECTED or preserve_space
        # a colon is reserved for namespaces: upstream keeps such an attribute only when its
        # prefix is in the root's nsmap, and the output roots made here declare none
        for attribute in [name for name in elem.attrib.keys() if ":" in name]:
            elem.attrib.pop(attribute)
        if elem.text:
            elem.text = _checked_text(sanitize(elem.text, preserve_space, trailing_space))
        if elem.tail:
            elem.tail = _checked_text(sanitize(elem.tail, preserve_space, trailing_space))
    return tree


def build_json_output(docmeta: Any, with_metadata: bool = True) -> str:
    "The JSON output: text and comments, with the metadata fields under their JSON names when asked."
    if with_metadata:
        outputdict = {slot: getattr(docmeta, slot, None) for slot in docmeta.__slots__}
        outputdict.update(
            {
                "source": outputdict.pop("url"),
                "source-hostname": outputdict.pop("sitename"),
                "excerpt": outputdict.pop("description"),
                "categories": ";".join(outputdict.pop("categories") or []),
                "tags": ";".join(outputdict.pop("tags") or []),
                "text": xmltotxt(outputdict.pop("body"), include_formatting=False),
            }
        )
        commentsbody = outputdict.pop("commentsbody")
    else:
        outputdict = {"text": xmltotxt(docmeta.body, include_formatting=False)}
        commentsbody = docmeta.commentsbody
    outputdict["comments"] = xmltotxt(commentsbody, include_formatting=False)
    return json_dumps(outputdict, ensure_ascii=False)


def clean_attributes(tree: Element) -> Element:
    "Clear the attributes of every element whose tag is not in WITH_ATTRIBUTES."
    for elem in tree.iter("*"):
        if elem.tag not in WITH_ATTRIBUTES:
            elem.attrib.clear()
    return tree


def meta_items(docmeta: Any) -> Iterator[Tuple[str, str]]:
    "The non-empty metadata fields as strings, lists joined with semicolons."
    for attribute in META_ATTRIBUTES:
        if value := getattr(docmeta, attribute, None):
            yield attribute, value if isinstance(value, str) else ";".join(value)


def add_xml_meta(output: Element, docmeta: Any) -> None:
    "The metadata fields as attributes of the output's root."
    for attribute, value in meta_items(docmeta):
        output.set(attribute, _checked_value(value))


def build_xml_output(docmeta: Any) -> Element:
    "<doc> (metadata attributes) holding <main> (the body) and <comments>."
    output = _new("doc")
    add_xml_meta(output, docmeta)
    docmeta.body.tag = "main"
    output.append(clean_attributes(docmeta.body))
    docmeta.commentsbody.tag = "comments"
    output.append(clean_attributes(docmeta.commentsbody))
    return output


def _xml_names_valid(tree: Element) -> None:
    "The re-read parses only XML names: upstream's XMLSyntaxError for others is left to trafilatura."
    for elem in tree.iter():
        tag = elem.tag
        if not isinstance(tag, str) or not xml_name_valid(tag) or not all(map(xml_name_valid, elem.attrib.keys())):
            raise NotNative("output: a name XML does not allow")


def control_xml_output(document: Any, options: Any, keep_body: bool = False) -> str:
    """Build the XML (or TEI) tree, sanitise it, re-read it without blank text, then pretty-print
    it. Upstream re-reads a serialisation, which leaves the Document's trees (now inside the
    built tree) with their blank text; the port re-reads in place, so ``keep_body`` (the
    Document is handed out: extract_with_metadata) makes it work on a copy."""
    strip_double_tags(document.body)
    remove_empty_elements(document.body)
    func = build_xml_output if options.format == "xml" else build_tei_output
    output_tree = func(document)
    output_tree = sanitize_tree(output_tree)
    _xml_names_valid(output_tree)
    # tei_validation: upstream validates here against the TEI DTD and only logs the result
    # (the output is the same either way): not ported, the log lines are not written
    if keep_body:
        output_tree = copy_tree(output_tree)
    if not remove_blank_text(output_tree):
        raise NotNative("output: a long blank text at libxml2's input window")
    return tostring(output_tree, pretty_print=True, encoding="unicode").strip()  # type: ignore[union-attr]


def validate_tei(xmldoc: Element) -> bool:
    "Validation against the TEI DTD is trafilatura's (lxml's DTD validator): not ported."
    raise NotNative("tei_validation")


def build_tei_output(docmeta: Any) -> Element:
    "The TEI tree (write_teitree), checked and repaired (check_tei)."
    return check_tei(write_teitree(docmeta), docmeta.url)


def write_teitree(docmeta: Any) -> Element:
    "<TEI> with the header and <text><body> holding the body and the comments as divs."
    teidoc = _new("TEI", [("xmlns", "http://www.tei-c.org/ns/1.0")])
    write_fullheader(teidoc, docmeta)
    textelem = _sub(teidoc, "text")
    textbody = _sub(textelem, "body")
    for body, kind in ((docmeta.body, "entry"), (docmeta.commentsbody, "comments")):
        clean_attributes(body).tag = "div"
        body.set("type", kind)
        textbody.append(body)
    return teidoc


def _define_publisher_string(docmeta: Any) -> str:
    "'sitename (hostname)', else whichever exists, else 'N/A'."
    if docmeta.hostname and docmeta.sitename:
        publisher = f"{docmeta.sitename.strip()} ({docmeta.hostname})"
    else:
        publisher = docmeta.hostname or docmeta.sitename or "N/A"
        if publisher == "N/A":
            LOGGER.warning("no publisher for URL %s", docmeta.url)
    return publisher  # type: ignore[no-any-return]


def _set_text(el: Any, value: Any) -> Any:
    el.text = _checked_text(value)
    return el


def write_fullheader(teidoc: Element, docmeta: Any) -> Element:
    "The teiHeader from the metadata fields."
    header = _sub(teidoc, "teiHeader")
    filedesc = _sub(header, "fileDesc")
    bib_titlestmt = _sub(filedesc, "titleStmt")
    _set_text(_sub(bib_titlestmt, "title", [("type", "main")]), docmeta.title)
    if docmeta.author:
        _set_text(_sub(bib_titlestmt, "author"), docmeta.author)

    publicationstmt_a = _sub(filedesc, "publicationStmt")
    publisher_string = _define_publisher_string(docmeta)
    if docmeta.license:
        _set_text(_sub(publicationstmt_a, "publisher"), publisher_string)
        availability = _sub(publicationstmt_a, "availability")
        _set_text(_sub(availability, "p"), docmeta.license)
    else:
        # an empty paragraph, for conformity
        _sub(publicationstmt_a, "p")

    notesstmt = _sub(filedesc, "notesStmt")
    if docmeta.id:
        _set_text(_sub(notesstmt, "note", [("type", "id")]), docmeta.id)
    _set_text(_sub(notesstmt, "note", [("type", "fingerprint")]), docmeta.fingerprint)

    sourcedesc = _sub(filedesc, "sourceDesc")
    source_bibl = _sub(sourcedesc, "bibl")
    sigle = ", ".join(filter(None, [docmeta.sitename, docmeta.date]))
    if not sigle:
        LOGGER.warning("no sigle for URL %s", docmeta.url)
    _set_text(source_bibl, ", ".join(filter(None, [docmeta.title, sigle])))
    _set_text(_sub(sourcedesc, "bibl", [("type", "sigle")]), sigle)

    biblfull = _sub(sourcedesc, "biblFull")
    bib_titlestmt = _sub(biblfull, "titleStmt")
    _set_text(_sub(bib_titlestmt, "title", [("type", "main")]), docmeta.title)
    if docmeta.author:
        _set_text(_sub(bib_titlestmt, "author"), docmeta.author)

    publicationstmt = _sub(biblfull, "publicationStmt")
    _set_text(_sub(publicationstmt, "publisher"), publisher_string)
    if docmeta.url:
        _sub(publicationstmt, "ptr", [("type", "URL"), ("target", docmeta.url)])
    _set_text(_sub(publicationstmt, "date"), docmeta.date)

    profiledesc = _sub(header, "profileDesc")
    abstract = _sub(profiledesc, "abstract")
    _set_text(_sub(abstract, "p"), docmeta.description)

    if docmeta.categories or docmeta.tags:
        textclass = _sub(profiledesc, "textClass")
        keywords = _sub(textclass, "keywords")
        if docmeta.categories:
            _set_text(_sub(keywords, "term", [("type", "categories")]), ",".join(docmeta.categories))
        if docmeta.tags:
            _set_text(_sub(keywords, "term", [("type", "tags")]), ",".join(docmeta.tags))

    creation = _sub(profiledesc, "creation")
    _set_text(_sub(creation, "date", [("type", "download")]), docmeta.filedate)

    encodingdesc = _sub(header, "encodingDesc")
    appinfo = _sub(encodingdesc, "appInfo")
    application = _sub(appinfo, "application", [("version", PKG_VERSION), ("ident", "Trafilatura")])
    _set_text(_sub(application, "label"), "Trafilatura")
    _sub(application, "ptr", [("target", "https://github.com/adbar/trafilatura")])
    return header


def check_tei(xmldoc: Element, url: Optional[str]) -> Element:
    "Make the TEI tree conform: heads become ab, loose lb and text go into p, other tags and attributes go."
    for elem in iter_live(xmldoc, "head"):
        elem.tag = "ab"
        elem.set("type", "header")
        parent = elem.getparent()
        if parent is None:
            continue
        if len(elem) > 0:
            new_elem = _tei_handle_complex_head(elem)
            parent.replace(elem, new_elem)
            elem = new_elem
        if parent.tag == "p":
            _move_element_one_level_up(elem)
    # .//text/body//div/lb, a snapshot
    for elem in [e for e in _tei_body_descendants(xmldoc) if e.tag == "lb" and _parent_tag(e) == "div"]:
        if elem.tail and elem.tail.strip():
            elem.tag, elem.text, elem.tail = "p", elem.tail, None
    for elem in _tei_body_descendants(xmldoc):
        if elem.tag not in TEI_VALID_TAGS:
            LOGGER.warning("not a TEI element, removing: %s %s", elem.tag, url)
            merge_with_parent(elem)
            continue
        if elem.tag in TEI_REMOVE_TAIL:
            _handle_unwanted_tails(elem)
        elif elem.tag == "div":
            _handle_text_content_of_div_nodes(elem)
            _wrap_unwanted_siblings_of_div(elem)
        for attribute in [a for a in elem.attrib.keys() if a not in TEI_VALID_ATTRS]:
            LOGGER.warning("not a valid TEI attribute, removing: %s in %s %s", attribute, elem.tag, url)
            elem.attrib.pop(attribute)
    return xmldoc


def _parent_tag(el: Any) -> Optional[str]:
    parent = el.getparent()
    return None if parent is None else parent.tag  # type: ignore[no-any-return]


def _tei_body_descendants(xmldoc: Element) -> List[Any]:
    """``xmldoc.findall(".//text/body//*")``: the descendants of every body child of a
    text descendant, in document order, each once."""
    seen: set = set()
    out: List[Any] = []
    for text in [e for e in desc_list(xmldoc) if e.tag == "text"]:
        for body in [c for c in text[:] if c.tag == "body"]:
            for el in desc_list(body):
                if id(el) not in seen:
                    seen.add(id(el))
                    out.append(el)
    return out


def _handle_text_content_of_div_nodes(element: Element) -> None:
    "Wrap loose text of a div (and its tail) in p elements."
    if element.text and element.text.strip():
        if len(element) > 0 and element[0].tag == "p":
            element[0].text = _checked_text(f"{element.text} {element[0].text or ''}".strip())
        else:
            new_child = _new("p")
            new_child.text = element.text
            element.insert(0, new_child)
        element.text = None
    if element.tail and element.tail.strip():
        if len(element) > 0 and element[-1].tag == "p":
            element[-1].text = _checked_text(f"{element[-1].text or ''} {element.tail}".strip())
        else:
            new_child = _new("p")
            new_child.text = element.tail
            element.append(new_child)
        element.tail = None


def _handle_unwanted_tails(element: Element) -> None:
    "A p takes its tail into its text; an ab's tail becomes a new p after it."
    element.tail = element.tail.strip() if element.tail else None
    if not element.tail:
        return
    if element.tag == "p":
        element.text = _checked_text(" ".join(filter(None, [element.text, element.tail])))
    else:
        new_sibling = _new("p")
        new_sibling.text = element.tail
        element.addnext(new_sibling)
    element.tail = None


def _tei_handle_complex_head(element: Element) -> Element:
    "A head with children as an ab: its p children become text separated by lb."
    new_element = _new("ab", list(element.attrib.items()))
    new_element.text = element.text.strip() if element.text else None
    for child in element[:]:
        if child.tag == "p":
            if len(new_element) > 0 or new_element.text:
                if len(new_element) == 0 or new_element[-1].tail:
                    _sub(new_element, "lb")
                new_element[-1].tail = child.text
            else:
                new_element.text = child.text
        else:
            new_element.append(child)
    tail = element.tail.strip() if element.tail else None
    if tail:
        new_element.tail = tail
    return new_element


def _wrap_unwanted_siblings_of_div(div_element: Element) -> None:
    "Wrap each run of block siblings following a div in a new div (other elements end a run)."
    runs: List[List[Any]] = [[]]
    for sibling in div_element.itersiblings():
        if sibling.tag == "div":
            break
        if sibling.tag in TEI_DIV_SIBLINGS:
            runs[-1].append(sibling)
        elif runs[-1]:
            runs.append([])
    for run in filter(None, runs):
        wrapper = _new("div")
        run[0].addprevious(wrapper)
        wrapper.extend(run)


def _move_element_one_level_up(element: Element) -> None:
    "Move an ab out of its p: after the p, followed by a new p with the siblings and tails that came after it."
    parent = element.getparent()
    grand_parent = parent.getparent() if parent is not None else None
    if parent is None or grand_parent is None:
        return
    new_elem = _new("p")
    new_elem.extend(list(element.itersiblings()))
    parent.addnext(element)
    tail = element.tail.strip() if element.tail else None
    if tail:
        new_elem.text = tail
        element.tail = None
    tail = parent.tail.strip() if parent.tail else None
    if tail:
        new_elem.tail = tail
        parent.tail = None
    if len(new_elem) > 0 or new_elem.text or new_elem.tail:
        element.addnext(new_elem)
    if len(parent) == 0 and not parent.text:
        grand_parent.remove(parent)


def xmltocsv(document: Any, include_formatting: bool, *, delim: str = "\t", null: str = "null") -> str:
    "One CSV row: url, id, fingerprint, hostname, title, image, date, text, comments, license, pagetype."
    posttext = xmltotxt(document.body, include_formatting) or null
    commentstext = xmltotxt(document.commentsbody, include_formatting) or null
    output = StringIO()
    outputwriter = csv.writer(output, delimiter=delim, quoting=csv.QUOTE_MINIMAL)
    outputwriter.writerow(
        [
            d or null
            for d in (
                document.url, document.id, document.fingerprint, document.hostname, document.title,
                document.image, document.date, posttext, commentstext, document.license, document.pagetype,
            )
        ]
    )
    return output.getvalue()


# --- HTML (upstream: htmlprocessing.convert_to_html / build_html_output) ----------------------

def _html_head_tag(elem: Any) -> str:
    return f"h{int(elem.get('rend', 'h3')[1:])}"


def _html_hi_tag(elem: Any) -> str:
    from .htmlprocessing import REND_TAG_MAPPING

    mapping = {v: k for k, v in REND_TAG_MAPPING.items()}  # HTML_TAG_MAPPING: the last tag of a rend wins
    return mapping[elem.get("rend", "#i")]


HTML_CONVERSIONS = {
    "list": "ul",
    "item": "li",
    "code": "pre",
    "quote": "blockquote",
    "head": _html_head_tag,
    "lb": "br",
    "graphic": "img",
    "ref": "a",
    "hi": _html_hi_tag,
    "row": "tr",
    "cell": lambda elem: "th" if elem.get("role") == "head" else "td",
}


def convert_to_html(tree: Element) -> Element:
    "The body renamed to HTML tags (a keeps its target as href, img its attributes), inside <html>."
    for elem in iter_live(tree, *HTML_CONVERSIONS):
        conversion = HTML_CONVERSIONS[str(elem.tag)]
        if callable(conversion):
            try:
                tag = conversion(elem)
            except (KeyError, ValueError, TypeError, IndexError):
                # upstream raises from extract(): trafilatura's own error, delegated
                raise NotNative("html output: a rend upstream's tables lack") from None
        else:
            tag = conversion
        if not xml_name_valid(tag):
            raise NotNative("html output: a tag lxml refuses")
        elem.tag = tag
        if elem.tag == "a":
            elem.set("href", _checked_value(elem.attrib.pop("target", "")))
        elif elem.tag != "img":
            elem.attrib.clear()
    tree.tag = "body"
    root = _new("html")
    root.append(tree)
    return root


def build_html_output(document: Any, with_metadata: bool = False) -> str:
    "The HTML output: the converted body (and a head of meta elements), pretty-printed as XML."
    html_tree = convert_to_html(document.body)
    if with_metadata:
        head = _new("head")
        for item, value in meta_items(document):
            _sub(head, "meta", [("name", item), ("content", value)])
        html_tree.insert(0, head)
    return tostring(html_tree, pretty_print=True, encoding="unicode").strip()  # type: ignore[union-attr]

