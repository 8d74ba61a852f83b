"""The main extractor of trafilatura 2.3.1 (main_extractor.py): the handle_*
functions, ``_extract``, ``recover_wild_text``, ``prune_unwanted_sections``,
``extract_content`` and ``extract_comments``."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, List, Optional, Set
from urllib.parse import urljoin

from .._backend import core_of
from ._tree import iter_live, Element, SubElement, copy_tree, desc_list, root_of, strip_elements, strip_tags
from ..xmlchars import xml_text
from .htmlprocessing import (
    delete_by_link_density,
    handle_textnode,
    link_density_test_tables,
    process_node,
    prune_unwanted_nodes,
)
from .settings import (
    DEDUPE_SCAN_CAP,
    INLINE_CARRIED,
    INLINE_CONSUMING,
    INLINE_FORMATTABLE,
    MIN_DUPLICATE_LENGTH,
    TAG_CATALOG,
)
from .utils import FORMATTING_PROTECTED, RE_FILTER, SPACING_PROTECTED, image_src, text_chars_test, textfilter, trim
from .xml import delete_element, separates_inline
from .xpaths import (
    BODY_XPATH,
    COMMENTS_DISCARD_XPATH,
    COMMENTS_XPATH,
    DISCARD_IMAGE_ELEMENTS,
    OVERALL_DISCARD_XPATH,
    PRECISION_DISCARD_XPATH,
    TEASER_DISCARD_XPATH,
    first_body_match,
    p_has_text_nodes,
    p_text_length,
    wild_text_elements,
)

if TYPE_CHECKING:
    from trafila.dom import Element as _Element  # the class (._tree's Element is the factory)
    from trafila.v2_3_1.settings import Extractor


LOGGER = logging.getLogger(__name__)

TABLE_ELEMS = {"td", "th"}
KEEP_ATTRS = {"rend", "role", "target", "src", "alt", "title"}
CODES_QUOTES = {"code", "quote"}
REBUILT_BLOCKS = CODES_QUOTES | {"list", "table"}
NOT_AT_THE_END = {"head", "ref"}
_QUOTE_TAGS = set(TAG_CATALOG) | {"ref", "graphic"}
_MAX_SPAN = 100
#: the tags handle_textelem does more for than return None (the rest go to handle_other_elements)
_DISPATCHED = frozenset(["list", "code", "quote", "head", "p", "lb", "hi", "ref", "del", "table", "graphic", "div"])


def _strip_tags(tree: _Element, *tags: str) -> None:
    "_tree.strip_tags; on a core element straight to the core model's (what _tree's resolves to for it)."
    core = core_of(tree)
    if core is None:
        strip_tags(tree, *tags)
    elif tags:
        core.dom_strip_tags_(tree, *tags)


def _strip_elements(tree: _Element, *tags: str) -> None:
    "_tree.strip_elements (tails too); on a core element straight to the core model's."
    core = core_of(tree)
    if core is None:
        strip_elements(tree, *tags)
    else:
        core.dom_strip_elements_(tree, *tags)


def _elem_text(element: _Element) -> str:
    "Plain concatenation of the element's text, trimmed (inline boundaries stay joined)."
    core = core_of(element)
    if core is not None:
        return core.extract_elem_text(element)
    return trim("".join(element.itertext()))


def _wraps_inline(element: _Element) -> bool:
    return len(element) > 0 and (element.tag == "ref" or any(c.tag in INLINE_CARRIED for c in element[:]))


def handle_titles(element: _Element, options: Extractor) -> Optional[Any]:
    "head elements: a copy when they have children (children marked done)."
    if len(element) == 0:
        title = process_node(element, options)
    else:
        title = copy_tree(element)
        _strip_elements(title, "done")
        core = core_of(element)
        if core is not None:
            core.extract_mark_done(element, False)
        else:
            for child in iter_live(element, "*", inclusive=False):
                child.tag = "done"
    return title if is_text_element(title) else None


def handle_formatting(element: _Element, options: Extractor) -> Optional[Any]:
    "hi/ref/del outside paragraphs: wrapped in a <p> unless the parent protects them."
    formatting = process_node(element, options)
    if formatting is None:
        return None
    parent = element.getparent()
    if parent is not None and parent.tag in FORMATTING_PROTECTED:
        return formatting
    wrapper = Element("p")
    wrapper.append(formatting)
    return wrapper


def process_nested_elements(child: _Element, new_child_elem: _Element, options: Extractor) -> None:
    "Rewire the descendants of a list item or quote into the new element."
    new_child_elem.text = xml_text(child.text)
    for subelem in iter_live(child, "*", inclusive=False):
        if subelem.tag == "list":
            _append_block(new_child_elem, handle_lists(subelem, options), subelem)
        elif subelem.tag == "p" and len(subelem) > 0:
            _append_block(new_child_elem, handle_paragraphs(subelem, _QUOTE_TAGS, options), subelem)
        elif subelem.tag == "graphic":
            _append_block(new_child_elem, handle_image(subelem, options), subelem)
        elif subelem.tag in INLINE_CARRIED:
            define_newelem(subelem, new_child_elem, keep_children=True)
        else:
            if len(subelem) > 0 and text_chars_test(subelem.tail):
                # the tail follows the children, which are appended after this element
                subelem[-1].tail, subelem.tail = xml_text(f"{subelem[-1].tail or ''}{subelem.tail}"), None
            define_newelem(handle_textnode(subelem, options, comments_fix=False), new_child_elem)
        subelem.tag = "done"


def _append_block(parent: _Element, processed: Optional[Any], source: _Element) -> None:
    "Append a processed block with the source tail, or keep the tail as text."
    if processed is not None:
        processed.tail = xml_text(source.tail)
        parent.append(processed)
    elif source.tail and text_chars_test(source.tail):
        last = parent[-1] if len(parent) > 0 else None
        before, tail = (parent.text if last is None else last.tail) or "", source.tail
        if source.tag != "graphic" and (before or last is not None) and not before[-1:].isspace() and not tail[0].isspace():
            tail = f" {tail}"
        if last is None:
            parent.text = xml_text(before + tail)
        else:
            last.tail = xml_text(before + tail)


def update_elem_rendition(elem: _Element, new_elem: _Element) -> None:
    rend_attr = elem.get("rend")
    if rend_attr:
        new_elem.set("rend", xml_text(rend_attr))


def is_text_element(elem: Optional[Any]) -> bool:
    core = core_of(elem)
    if core is not None:
        return core.extract_has_text(elem)
    return elem is not None and text_chars_test("".join(elem.itertext())) is True


def _copy_attrs(source: _Element, target: _Element) -> None:
    for key, value in source.attrib.items():
        if key in KEEP_ATTRS:
            target.set(key, xml_text(value))


def define_newelem(processed_elem: Optional[Any], orig_elem: _Element, keep_children: bool = False) -> None:
    "A new sub-element of orig_elem copying processed_elem (inline children carried)."
    if processed_elem is not None:
        core = core_of(processed_elem)
        if core is not None and core_of(orig_elem) is not None:
            # the C version: False (nothing changed) for odd tags, values or nesting
            if core.extract_define_newelem(processed_elem, orig_elem, keep_children):
                return
        childelem = SubElement(orig_elem, processed_elem.tag)
        childelem.text, childelem.tail = xml_text(processed_elem.text), xml_text(processed_elem.tail)
        _copy_attrs(processed_elem, childelem)
        if keep_children:
            for sub in processed_elem[:]:
                if sub.tag in INLINE_CARRIED or sub.tag == "lb":
                    define_newelem(sub, childelem, keep_children=True)
                    for carried in iter_live(sub, "*"):
                        carried.tag = "done"


def handle_lists(element: _Element, options: Extractor) -> Optional[Any]:
    "list elements and their items."
    processed_element = Element(element.tag)

    if text_chars_test(element.text):
        new_child_elem = SubElement(processed_element, "item")
        new_child_elem.text = xml_text(element.text)

    for child in iter_live(element, "item", inclusive=False):
        # the first item of a nested list is prefetched before the recursive call renames it
        if child.tag == "done":
            continue
        new_child_elem = Element("item")
        if len(child) == 0:
            processed_child = process_node(child, options)
            if processed_child is not None:
                new_child_elem.text = xml_text(" ".join(filter(None, (processed_child.text, processed_child.tail))))
        else:
            process_nested_elements(child, new_child_elem, options)
            if text_chars_test(child.tail) and len(new_child_elem) > 0:
                last = new_child_elem[-1]
                last.tail = xml_text(f"{last.tail} {child.tail}" if text_chars_test(last.tail) else child.tail)
        if is_text_element(new_child_elem) or next(iter_live(new_child_elem, "graphic"), None) is not None:
            update_elem_rendition(child, new_child_elem)
            processed_element.append(new_child_elem)
        child.tag = "done"
    element.tag = "done"
    if is_text_element(processed_element):
        update_elem_rendition(element, processed_element)
        return processed_element
    return None


def is_code_block_element(element: _Element) -> bool:
    if element.get("lang") or element.tag == "code":
        return True
    parent = element.getparent()
    if parent is not None and "highlight" in parent.get("class", ""):
        return True
    code = next((c for c in element[:] if c.tag == "code"), None)
    return code is not None and len(element) == 1 and not (element.text or "").strip() and not (code.tail or "").strip()


def handle_code_blocks(element: _Element) -> Any:
    processed_element = copy_tree(element)
    core = core_of(element)
    if core is not None:
        core.extract_mark_done(element, True)
    else:
        for child in iter_live(element, "*"):
            child.tag = "done"
    processed_element.tag = "code"
    return processed_element


def handle_quotes(element: _Element, options: Extractor) -> Optional[Any]:
    if is_code_block_element(element):
        return handle_code_blocks(element)
    processed_element = Element(element.tag)
    process_nested_elements(element, processed_element, options)
    if is_text_element(processed_element):
        _strip_tags(processed_element, "quote")
        return processed_element
    return None


def handle_other_elements(element: _Element, potential_tags: Set[str], options: Extractor) -> Optional[Any]:
    "w3schools code divs, and divs when div is a potential tag."
    core = core_of(element)
    if core is not None and not options.dedup:
        # the C version (no deduplication); NotImplemented: nothing changed
        processed = core.extract_other_elements(element, "div" in potential_tags, textfilter)
        if processed is not NotImplemented:
            return processed
    if element.tag == "div" and "w3-code" in element.get("class", ""):
        return handle_code_blocks(element)
    if element.tag != "div" or "div" not in potential_tags:
        return None
    processed_element = handle_textnode(element, options, comments_fix=False, preserve_spaces=True)
    if processed_element is None or not text_chars_test(processed_element.text):
        return None
    processed_element.attrib.clear()
    processed_element.tag = "p"
    return processed_element


def handle_paragraphs(element: _Element, potential_tags: Set[str], options: Extractor) -> Optional[Any]:
    "Paragraphs and their children."
    if len(element) == 0:
        return process_node(element, options)

    processed_element = Element(element.tag)
    core = core_of(element)
    if core is not None and not options.dedup:
        # the C version for leaf inline children (no deduplication); NotImplemented: nothing changed
        allowed = (
            ("hi" in potential_tags)
            | ("ref" in potential_tags) << 1
            | ("del" in potential_tags) << 2
            | ("lb" in potential_tags) << 3
            | ("code" in potential_tags) << 4
        )
        kept = core.extract_paragraph(element, processed_element, allowed, textfilter)
        if kept is not NotImplemented:
            return processed_element if kept else None
    # unexpected children: keep their text in place
    unexpected = {str(c.tag) for c in desc_list(element) if c.tag not in potential_tags and c.tag != "done"}
    if unexpected:
        _strip_tags(element, *unexpected)
    for child in iter_live(element, "*"):
        processed_child = handle_textnode(child, options, comments_fix=False, preserve_spaces=True)
        if processed_child is not None:
            if processed_child.tag == "p":
                processed_element.text = xml_text(" ".join(filter(None, (processed_element.text, processed_child.text))))
                child.tag = "done"
                continue
            newsub = Element(child.tag)
            if processed_child.tag in INLINE_CONSUMING:
                if _wraps_inline(processed_child):
                    define_newelem(processed_child, processed_element, keep_children=True)
                    child.tag = "done"
                    continue
                for item in processed_child[:]:
                    if item.tag == "lb" and item.tail:
                        item.tail = xml_text(" " + item.tail.lstrip())
                    elif text_chars_test(item.text):
                        item.text = xml_text(f" {item.text}")
                subtags = {str(item.tag) for item in processed_child[:]}
                if subtags:
                    _strip_tags(processed_child, *subtags)
                _copy_attrs(child, newsub)
            newsub.text, newsub.tail = xml_text(processed_child.text), xml_text(processed_child.tail)

            if processed_child.tag == "graphic":
                image_elem = handle_image(processed_child, options)
                if image_elem is not None:
                    newsub = image_elem
            processed_element.append(newsub)
        child.tag = "done"
    if len(processed_element) > 0:
        last_elem = processed_element[-1]
        if last_elem.tag == "lb" and last_elem.tail is None:
            delete_element(last_elem)
        return processed_element
    if text_chars_test(processed_element.text):
        return processed_element
    return None


def define_cell_type(is_header: bool) -> Any:
    cell_element = Element("cell")
    if is_header:
        cell_element.set("role", "head")
    return cell_element


def _span(cell: _Element, attr: str) -> int:
    "colspan/rowspan: decimal digits only, default 1, capped at 100."
    value = cell.get(attr, "1")
    # isdecimal, not isdigit: int() rejects the superscripts isdigit() admits
    return min(int(value), _MAX_SPAN) if value.isdecimal() else 1


def _flush_rowspan_phantoms(rowspan_map: dict, newrow: _Element) -> None:
    while (col := len(newrow)) in rowspan_map:
        newrow.append(define_cell_type(False))
        rowspan_map[col] -= 1
        if rowspan_map[col] == 0:
            del rowspan_map[col]


def _finalize_row(newtable: _Element, newrow: _Element, rowspan_map: dict, max_cols: int) -> None:
    _flush_rowspan_phantoms(rowspan_map, newrow)
    while len(newrow) < max_cols:
        newrow.append(define_cell_type(False))
    if any(cell.text or len(cell) > 0 for cell in newrow[:]):
        newtable.append(newrow)


def _fill_cell(new_child_elem: _Element, cell: _Element, nested_elems: Set[Any], ptags_with_div: Set[str], options: Extractor) -> None:
    "A source td/th's content into the new <cell>."
    if len(cell) == 0:
        processed_cell = process_node(cell, options)
        if processed_cell is not None:
            new_child_elem.text, new_child_elem.tail = xml_text(processed_cell.text), xml_text(processed_cell.tail)
        return
    new_child_elem.text, new_child_elem.tail = xml_text(cell.text), xml_text(cell.tail)
    cell.tag = "done"
    core = core_of(cell)
    if core is not None:
        # the C walk: done, nested-table and separating-lb elements there, the others through
        # _fill_cell_child, in order
        core.extract_cell_walk(
            cell,
            new_child_elem,
            nested_elems,
            lambda child: _nested_table_tail(new_child_elem, child, nested_elems),
            lambda child: _fill_cell_child(new_child_elem, child, ptags_with_div, options),
            # no deduplication: lb, childless p/head/div and the tags handle_textelem ignores in C
            None if options.dedup else RE_FILTER.match,
            textfilter,
        )
        return
    for child in iter_live(cell, inclusive=False):
        if child.tag == "done":
            continue
        if child in nested_elems:
            if child.tag == "table":
                _nested_table_tail(new_child_elem, child, nested_elems)
            continue
        if separates_inline(child) and not text_chars_test(child.tail):
            new_child_elem.append(Element("lb"))
            child.tag = "done"
            continue
        _fill_cell_child(new_child_elem, child, ptags_with_div, options)


def _nested_table_tail(new_child_elem: _Element, child: _Element, nested_elems: Set[Any]) -> None:
    "A nested table is left to the main loop; its tail moves to the cell holding it."
    if next(child.iterancestors("table")) not in nested_elems:
        _append_block(new_child_elem, None, child)
        child.tail = None


def _fill_cell_child(new_child_elem: _Element, child: _Element, ptags_with_div: Set[str], options: Extractor) -> None:
    "One element of a cell into the new <cell>."
    if child.tag in TABLE_ELEMS:
        child.tag = "cell"
        processed_subchild = handle_textnode(child, options, preserve_spaces=True)
    elif child.tag in INLINE_CONSUMING:
        processed_subchild = handle_textnode(child, options, preserve_spaces=True)
        if processed_subchild is None and len(child) > 0:
            processed_subchild = child
    elif child.tag == "list":
        processed_list = handle_lists(child, options)
        _append_block(new_child_elem, processed_list if options.focus == "recall" else None, child)
        return
    else:
        processed_subchild = handle_textelem(child, ptags_with_div, options)
    define_newelem(processed_subchild, new_child_elem, keep_children=True)
    child.tag = "done"


def handle_table(table_elem: _Element, potential_tags: Set[str], options: Extractor) -> Optional[Any]:
    "A table with colspan/rowspan materialised, captions, nested tables left aside."
    newtable = Element("table")
    ptags_with_div = potential_tags | {"div"}

    _strip_tags(table_elem, "thead", "tbody", "tfoot")

    # elements of nested tables are skipped in the cell walk without being marked "done", so
    # that the main loop handles each nested table on its own
    nested_elems: Set[Any] = set()
    core = core_of(table_elem)
    tables = core.descendants(table_elem, ("table",)) if core is not None else [e for e in desc_list(table_elem) if e.tag == "table"]
    for nested_table in tables:
        nested_elems.add(nested_table)
        nested_elems.update(desc_list(nested_table))

    if core is not None:
        # the C version: rows, spans and childless cells (process_node, without deduplication);
        # every other cell through _fill_cell, in order; NotImplemented (a caption, a non-ASCII
        # span value): nothing changed
        kept = core.extract_table(
            table_elem,
            newtable,
            None if options.dedup else RE_FILTER.match,
            lambda new_cell, cell: _fill_cell(new_cell, cell, nested_elems, ptags_with_div, options),
        )
        if kept is not NotImplemented:
            return newtable if kept else None

    rows: List[List[Any]] = [[]]
    captions: List[str] = []
    max_cols = 0
    for elem in table_elem[:]:
        if elem.tag == "tr":
            rows.append([cell for cell in elem[:] if cell.tag in TABLE_ELEMS])
            max_cols = max(max_cols, sum(_span(cell, "colspan") for cell in rows[-1]))
        elif elem.tag in TABLE_ELEMS:
            # an orphan cell (malformed HTML) joins the current row, not counted for max_cols
            rows[-1].append(elem)
            continue
        elif elem.tag == "caption":
            captions.append(" ".join(elem.itertext()).strip())
            for sub in iter_live(elem, "*", inclusive=False):
                if sub.tag == "graphic":
                    sub.tail = None
                else:
                    sub.tag = "done"
        elif elem.tag == "table":
            continue
        elem.tag = "done"
    max_cols = min(max_cols, _MAX_SPAN)

    for caption_text in filter(None, captions):
        caption_cell = define_cell_type(True)
        caption_cell.text = xml_text(caption_text)
        caption_row = Element("row")
        caption_row.append(caption_cell)
        _finalize_row(newtable, caption_row, {}, max_cols)

    header_row_emitted = False
    rowspan_map: dict = {}
    for cells in rows:
        newrow = Element("row")
        row_has_th = False
        for cell in cells:
            is_header = cell.tag == "th" and not header_row_emitted
            row_has_th = row_has_th or is_header
            _flush_rowspan_phantoms(rowspan_map, newrow)
            new_child_elem = define_cell_type(is_header)
            colspan = _span(cell, "colspan")
            rowspan = _span(cell, "rowspan")
            if rowspan > 1:
                for c in range(len(newrow), len(newrow) + colspan):
                    rowspan_map[c] = rowspan - 1
            _fill_cell(new_child_elem, cell, nested_elems, ptags_with_div, options)
            newrow.append(new_child_elem)
            # empty cells pad colspans (and rowspans, above) so that the columns stay aligned
            for _ in range(colspan - 1):
                newrow.append(define_cell_type(is_header))
            cell.tag = "done"
        _finalize_row(newtable, newrow, rowspan_map, max_cols)
        header_row_emitted = header_row_emitted or row_has_th
    return newtable if len(newtable) > 0 else None


def handle_image(element: _Element, options: Extractor = None) -> Optional[Any]:
    "graphic elements: src made absolute, alt and title kept."
    link = image_src(element)
    if link is None:
        return None
    if not link.startswith("http"):
        if options is not None and options.url is not None:
            link = urljoin(options.url, link)
        else:
            link = re.sub(r"^//", "http://", link)
    processed_element = Element(element.tag)
    processed_element.set("src", link)
    alt_attr = element.get("alt")
    if alt_attr:
        processed_element.set("alt", xml_text(alt_attr))
    title_attr = element.get("title")
    if title_attr:
        processed_element.set("title", xml_text(title_attr))
    processed_element.tail = xml_text(element.tail)
    return processed_element


def handle_textelem(element: _Element, potential_tags: Set[str], options: Extractor) -> Optional[Any]:
    "Dispatch an element to its handler."
    tag = element.tag
    new_element = None
    if tag == "list":
        new_element = handle_lists(element, options)
    elif tag in CODES_QUOTES:
        new_element = handle_quotes(element, options)
    elif tag == "head":
        new_element = handle_titles(element, options)
    elif tag == "p":
        new_element = handle_paragraphs(element, potential_tags, options)
    elif tag == "lb":
        if text_chars_test(element.tail) is True:
            this_element = process_node(element, options)
            if this_element is not None:
                new_element = Element("p")
                new_element.text = xml_text(this_element.tail)
    elif tag in INLINE_CONSUMING:
        new_element = handle_formatting(element, options)
    elif tag == "table" and "table" in potential_tags:
        new_element = handle_table(element, potential_tags, options)
    elif tag == "graphic" and "graphic" in potential_tags:
        new_element = handle_image(element, options)
    else:
        new_element = handle_other_elements(element, potential_tags, options)
    return new_element


def recover_wild_text(
    tree: _Element,
    result_body: _Element,
    options: Extractor,
    potential_tags: Optional[Set[str]] = None,
    consumed: Optional[Set[Any]] = None,
) -> Any:
    "Recover the wild text elements the main pass missed, deduplicated."
    potential_tags = set(TAG_CATALOG if potential_tags is None else potential_tags)
    recall = options.focus == "recall"
    if recall:
        potential_tags.update(["div", "lb"])
    # fast mode (no external comparator to defer to) keeps teaser-class blocks: some are real
    # content, and this is the last-resort path after the confident extractor failed
    search_tree = prune_unwanted_sections(tree, potential_tags, options, keep_teasers=options.fast)
    subelems = wild_text_elements(search_tree, recall)
    # dedup against what the main pass took: an exact match (not length-gated, #634; identical
    # texts collapse, an accepted cost) or a length-gated substring (a <p> folded into its
    # <list>); newline-joined so that no substring match spans two elements
    elem_texts = [_elem_text(el) for el in result_body[:]]
    existing = "\n".join(filter(None, elem_texts))
    existing_elems = set(elem_texts)
    handled: Set[Any] = set()
    on_core = core_of(tree) is not None
    for subelem in subelems:
        # a "done" element: handle_textelem gives None and changes nothing (the checks below neither)
        if on_core and subelem.tag == "done":
            continue
        # emitted or deduped whole: its descendants are covered
        if (consumed and subelem in consumed) or (handled and any(a in handled for a in subelem.iterancestors())):
            continue
        processed = handle_textelem(subelem, potential_tags, options)
        if processed is None:
            continue
        if processed is subelem:
            handled.add(subelem)
        text = _elem_text(processed)
        core = core_of(processed)
        graphics = core.descendants(processed, ("graphic",), True) if core is not None else [
            img for img in [processed, *desc_list(processed)] if img.tag == "graphic"
        ]
        images = {img.get("src") for img in graphics}
        # an image-only block has no text to compare: check its sources against the live body
        if not text and images and images <= {g.get("src") for g in desc_list(result_body) if g.tag == "graphic"}:
            continue
        # past the cap the substring scan is skipped (it is quadratic) and `existing` stops growing;
        # a copy carrying its source tail is a fragment of a text run: no length gate
        under_cap = len(existing) <= DEDUPE_SCAN_CAP
        fragment = trim(text + (processed.tail or "")) if text_chars_test(processed.tail) else ""
        if text and (
            text in existing_elems
            or (under_cap and ((len(text) > MIN_DUPLICATE_LENGTH and text in existing) or (fragment and fragment in existing)))
        ):
            continue
        result_body.append(processed)
        if under_cap:
            existing += "\n" + (fragment or text)
        existing_elems.add(text)
    return result_body


def prune_unwanted_sections(tree: _Element, potential_tags: Set[str], options: Extractor, keep_teasers: bool = False) -> Any:
    "Rule-based deletions, link-density passes, span (and ref) stripping."
    favor_precision = options.focus == "precision"
    tree = prune_unwanted_nodes(tree, OVERALL_DISCARD_XPATH, with_backup=True)
    if "graphic" not in potential_tags:
        tree = prune_unwanted_nodes(tree, DISCARD_IMAGE_ELEMENTS)
    if options.focus != "recall":
        if not keep_teasers:
            tree = prune_unwanted_nodes(tree, TEASER_DISCARD_XPATH)
        if favor_precision:
            tree = prune_unwanted_nodes(tree, PRECISION_DISCARD_XPATH)
    for _ in range(2):
        tree = delete_by_link_density(tree, "div", backtracking=True, favor_precision=favor_precision)
        tree = delete_by_link_density(tree, "list", backtracking=False, favor_precision=favor_precision)
        tree = delete_by_link_density(tree, "p", backtracking=False, favor_precision=favor_precision)
    if "table" in potential_tags or favor_precision:
        # collected before deleting: a deletion mid-walk can make lxml's iter() skip the table
        # after a deleted one holding a nested table (the iterator descends into the detached subtree)
        core = core_of(tree)
        tables = core.descendants(tree, ("table",), True) if core is not None else [
            elem for elem in [tree, *desc_list(tree)] if elem.tag == "table"
        ]
        boilerplate_tables = [elem for elem in tables if link_density_test_tables(elem) is True]
        for elem in boilerplate_tables:
            delete_element(elem, keep_tail=False)
    if favor_precision:
        while len(tree) > 0 and (tree[-1].tag == "head"):
            delete_element(tree[-1], keep_tail=False)
        tree = delete_by_link_density(tree, "head", backtracking=False, favor_precision=True)
        tree = delete_by_link_density(tree, "quote", backtracking=False, favor_precision=True)
    _strip_tags(tree, "span", *(() if "ref" in potential_tags else ("ref",)))
    return tree


def _extract(tree: _Element, options: Extractor) -> Any:
    "Main pass over the BODY_XPATH candidates."
    potential_tags = set(TAG_CATALOG)
    if options.tables is True:
        potential_tags.update(["table", "td", "th", "tr"])
    if options.images is True:
        potential_tags.add("graphic")
    if options.links is True:
        potential_tags.add("ref")
    result_body = Element("body")
    for expr in BODY_XPATH:
        subtree = first_body_match(expr, tree)
        if subtree is None:
            continue
        subtree = prune_unwanted_sections(subtree, potential_tags, options)
        if len(subtree) == 0:
            continue
        # //p//text() covers the whole document the subtree sits in (the cleaned tree)
        plen = p_text_length(tree)
        factor = 1 if options.focus == "precision" else 3
        # no paragraphs with text, or too little: divs count as text containers
        # upstream: "not ptest or len(''.join(ptest)) < ...": empty text nodes make ptest true
        if (plen == 0 and not p_has_text_nodes(tree)) or plen < options.min_extracted_size * factor:
            potential_tags.add("div")

        core = core_of(subtree)
        if core is None:
            subelems = desc_list(subtree)
            tags = {e.tag for e in subelems}
        else:
            tags = core.extract_desc_tags(subtree)
        # a single text run (only lb or inline elements): the frame itself is processed; lb-only
        # frames unconditionally (a failed main pass then hands them to the recovery)
        single = tags == {"lb"} or (subtree.tag == "div" and "div" in potential_tags and tags <= INLINE_FORMATTABLE | {"lb"})
        if single:
            subelems = [subtree]
        elif core is not None:
            # handle_textelem gives None, changing nothing, for the other tags (handle_other_elements):
            # their iterations are no-ops (no handler renames an element to one of these tags)
            # and, of those, the divs and graphics that handle_other_elements would give None for
            subelems = core.extract_dispatched(subtree, _DISPATCHED, "div" not in potential_tags, "graphic" not in potential_tags)
            if subelems is None:
                subelems = core.descendants(subtree, _DISPATCHED)
        lead, start = None, len(result_body)
        core = core_of(result_body)
        if not single and text_chars_test(subtree.text):
            lead = Element("p")
            lead.text = xml_text(subtree.text)
            lead = process_node(lead, options)

        def step(elem: _Element) -> None:
            tag, tail = elem.tag, elem.tail
            processed_elem = handle_textelem(elem, potential_tags, options)
            if processed_elem is not None:
                result_body.append(processed_elem)
                if not (core.extract_root_is(elem, result_body) if core is not None else root_of(elem) is result_body):
                    elem.tag = "done"
            # text right after a rebuilt block is a paragraph of its own, like an <lb> tail,
            # unless the handler carried it over already
            if tag in REBUILT_BLOCKS and text_chars_test(tail) and (processed_elem is None or processed_elem.tail is None):
                tail_elem = Element("p")
                tail_elem.text = xml_text(tail)
                if process_node(tail_elem, options) is not None:
                    result_body.append(tail_elem)

        if core is not None and not options.dedup:
            # the C loop: childless p/head/lb done there, the others through step, in order
            core.extract_main_loop(subelems, result_body, RE_FILTER.match, step)
        else:
            for elem in subelems:
                # an element moved into result_body along with an emitted ancestor (a text-bearing
                # div is emitted whole): visiting it again would emit its text twice
                if (core.extract_root_is(elem, result_body) if core is not None else root_of(elem) is result_body):
                    continue
                step(elem)
        while len(result_body) > 0 and (result_body[-1].tag in NOT_AT_THE_END):
            delete_element(result_body[-1], keep_tail=False)
        # done once there is real content, not just a lone image
        if sum(e.tag != "graphic" for e in result_body[:]) > 1:
            if lead is not None:
                result_body.insert(start, lead)
            break
    temp_text = " ".join(result_body.itertext()).strip()
    return result_body, temp_text, potential_tags


def extract_content(cleaned_tree: _Element, options: Extractor) -> Any:
    "Main pass, then wild-text recovery when short, adjacent-duplicate removal."
    # the backup keeps the source order from before the main pass moves elements
    backup_tree = copy_tree(cleaned_tree)
    tree_core = core_of(cleaned_tree)
    # the core's snapshot holds node indices, not a proxy per element (see ExOrder)
    order = tree_core.extract_order_snapshot(cleaned_tree) if tree_core is not None else [cleaned_tree, *desc_list(cleaned_tree)]

    result_body, temp_text, potential_tags = _extract(cleaned_tree, options)

    if len(result_body) == 0 or len(temp_text) < options.min_extracted_size:
        if tree_core is not None:
            consumed = tree_core.extract_consumed(order, backup_tree)
        else:
            consumed = {twin for elem, twin in zip(order, [backup_tree, *desc_list(backup_tree)]) if elem.tag == "done"}
        result_body = recover_wild_text(backup_tree, result_body, options, potential_tags, consumed)
        temp_text = " ".join(result_body.itertext()).strip()
    # substantial elements repeating the previous one are overlapping-candidate or recovery
    # artifacts; length-gated so that short genuine repeats stay (#778)
    core = core_of(result_body)
    if core is not None:
        core.extract_drop_repeats(result_body, MIN_DUPLICATE_LENGTH)
    else:
        previous = None
        for el in result_body[:]:
            current = _elem_text(el)
            if current and current == previous and len(current) > MIN_DUPLICATE_LENGTH:
                delete_element(el, keep_tail=False)
            else:
                previous = current
    _strip_elements(result_body, "done")
    _strip_tags(result_body, "div")
    # stripping the divs merges their indentation into the preceding <lb>'s tail, which would
    # render as blank lines; inside code/pre that whitespace is the indentation itself
    if core is not None:
        core.extract_lb_tails(result_body)
        return result_body, temp_text
    for linebreak in iter_live(result_body, "lb"):
        if (
            linebreak.tail
            and not text_chars_test(linebreak.tail)
            and not any(anc.tag in SPACING_PROTECTED for anc in linebreak.iterancestors())
        ):
            linebreak.tail = None
    return result_body, temp_text


def extract_comments(tree: _Element, options: Extractor) -> Any:
    "Comments from the first comment section that yields any."
    comments_body = Element("body")
    potential_tags = set(TAG_CATALOG)  # no div: trouble with <div class="comment-author meta">
    for expr in COMMENTS_XPATH:
        found = expr(tree)
        subtree = found[0] if found else None
        if subtree is None:
            continue
        subtree = prune_unwanted_nodes(subtree, COMMENTS_DISCARD_XPATH)
        _strip_tags(subtree, "ref", "span")
        core = core_of(subtree)

        def step(elem: _Element) -> None:
            if elem.tag in potential_tags:
                processed = handle_textnode(elem, options, comments_fix=True)
                if processed is not None:
                    processed.attrib.clear()
                    comments_body.append(processed)

        # no handle_textnode call renames an element not yet visited: the snapshot can be filtered first
        if core is not None and not options.dedup:
            # the C loop: handle_textnode, the attributes cleared, the append
            core.extract_comments_loop(core.descendants(subtree, potential_tags), comments_body, potential_tags, textfilter, step)
        else:
            for elem in core.descendants(subtree, potential_tags) if core is not None else desc_list(subtree):
                step(elem)
        if len(comments_body) > 0:
            delete_element(subtree, keep_tail=False)
            break
    return comments_body, " ".join(comments_body.itertext()).strip(), tree
