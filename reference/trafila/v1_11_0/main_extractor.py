"""The main extractor of trafilatura 1.11.0 (main_extractor.py): the
``handle_*`` element handlers, ``recover_wild_text``, ``prune_unwanted_sections``,
``extract_content`` and ``extract_comments``."""

from __future__ import annotations

import logging
import re
from copy import deepcopy
from typing import TYPE_CHECKING, Any, List, Set, Tuple

from trafila._backend import Element, SubElement, core_of, strip_elements, strip_tags

from .htmlprocessing import (delete_by_link_density, handle_textnode, link_density_test_tables,
                             process_node, prune_unwanted_nodes)
from .settings import TAG_CATALOG
from .utils import (FORMATTING_PROTECTED, RE_FILTER, check_xml_attribute, check_xml_tag, is_image_file, text_chars_test,
                    textfilter, xml_attr_value, xml_text)
from .xpaths import (BODY_XPATH, COMMENTS_DISCARD_XPATH, COMMENTS_XPATH, DISCARD_IMAGE_ELEMENTS,
                     OVERALL_DISCARD_XPATH, PAYWALL_DISCARD_XPATH, PRECISION_DISCARD_XPATH,
                     TEASER_DISCARD_XPATH, absolute_iter, root_of_document)

if TYPE_CHECKING:
    from trafila.v1_11_0.settings import Extractor

LOGGER = logging.getLogger(__name__)

P_FORMATTING = {"hi", "ref"}
TABLE_ELEMS = {"td", "th"}
TABLE_ALL = {"td", "th", "hi"}
FORMATTING = {"hi", "ref", "span"}
CODES_QUOTES = {"code", "quote"}
NOT_AT_THE_END = {"head", "ref"}


def _text_of(el: Element) -> str:
    return "".join(el.itertext())


def handle_titles(element: Element, options: Extractor) -> Any:
    "A <head>: alone, or a copy with its processed children appended (again)."
    if len(element) == 0:
        title = process_node(element, options)
    else:
        # the copy keeps the original children; the processed ones are added after them
        title = deepcopy(element)
        for child in list(element):
            processed_child = handle_textnode(child, options, comments_fix=False)
            if processed_child is not None:
                title.append(processed_child)
            child.tag = "done"
    if title is not None and text_chars_test(_text_of(title)) is True:
        return title
    return None


def handle_formatting(element: Element, options: Extractor) -> Any:
    "hi/ref/span outside paragraphs: wrapped in a new <p> unless the parent protects it."
    formatting = process_node(element, options)
    if len(element) == 0 and formatting is None:
        return None
    parent = element.getparent()
    if parent is None:
        parent = element.getprevious()
    if parent is None or parent.tag not in FORMATTING_PROTECTED:
        processed_element = Element("p")
        # formatting may be None here (element with children filtered out): lxml
        # raises TypeError on insert(0, None), which discards the whole document
        if formatting is None:
            raise TypeError("Argument 'element' has incorrect type")
        processed_element.insert(0, formatting)
    else:
        processed_element = formatting
    return processed_element


def add_sub_element(new_child_elem: Element, subelem: Element, processed_subchild: Element) -> None:
    # new_child_elem belongs to an lxml.etree document: strict tag and attribute names
    sub_child_elem = SubElement(new_child_elem, check_xml_tag(processed_subchild.tag))
    sub_child_elem.text = xml_text(processed_subchild.text)
    sub_child_elem.tail = xml_text(processed_subchild.tail)
    for attr in list(subelem.attrib):
        sub_child_elem.set(check_xml_attribute(attr), xml_attr_value(subelem.get(attr)))


def process_nested_elements(child: Element, new_child_elem: Element, options: Extractor) -> None:
    new_child_elem.text = xml_text(child.text)
    for subelem in child.iterdescendants("*"):
        if subelem.tag == "list":
            processed_subchild = handle_lists(subelem, options)
            if processed_subchild is not None:
                new_child_elem.append(processed_subchild)
        else:
            processed_subchild = handle_textnode(subelem, options, comments_fix=False)
            if processed_subchild is not None:
                add_sub_element(new_child_elem, subelem, processed_subchild)
        subelem.tag = "done"


def update_elem_rendition(elem: Element, new_elem: Element) -> None:
    if elem.get("rend") is not None:
        new_elem.set("rend", xml_attr_value(elem.get("rend")))


def is_text_element(elem: Element) -> bool:
    return elem is not None and text_chars_test(_text_of(elem)) is True


def define_newelem(processed_elem: Element, orig_elem: Element) -> None:
    if processed_elem is not None:
        childelem = SubElement(orig_elem, check_xml_tag(processed_elem.tag))
        childelem.text = xml_text(processed_elem.text)
        childelem.tail = xml_text(processed_elem.tail)


def handle_lists(element: Element, options: Extractor) -> Any:
    "A <list>: one new <item> per descendant item (nested ones included)."
    processed_element = Element(element.tag)
    if element.text is not None and element.text.strip():
        new_child_elem = SubElement(processed_element, "item")
        new_child_elem.text = xml_text(element.text)
    for child in element.iterdescendants("item"):
        new_child_elem = Element("item")
        if len(child) == 0:
            processed_child = process_node(child, options)
            if processed_child is not None:
                new_child_elem.text = xml_text(processed_child.text)
                if processed_child.tail is not None and processed_child.tail.strip():
                    new_child_elem.text = xml_text(new_child_elem.text + " " + processed_child.tail)
                # appended here and possibly again below: lxml moves it, no duplicate
                processed_element.append(new_child_elem)
        else:
            process_nested_elements(child, new_child_elem, options)
            if child.tail is not None and child.tail.strip():
                new_child_elem_children = [el for el in new_child_elem if el.tag != "done"]
                if new_child_elem_children:
                    last_subchild = new_child_elem_children[-1]
                    if last_subchild.tail is None or not last_subchild.tail.strip():
                        last_subchild.tail = xml_text(child.tail)
                    else:
                        last_subchild.tail = xml_text(last_subchild.tail + " " + child.tail)
        if new_child_elem.text or len(new_child_elem) > 0:
            update_elem_rendition(child, new_child_elem)
            processed_element.append(new_child_elem)
        child.tag = "done"
    element.tag = "done"
    if is_text_element(processed_element):
        update_elem_rendition(element, processed_element)
        return processed_element
    return None


def is_code_block_element(element: Element) -> bool:
    if element.get("lang") or element.tag == "code":
        return True
    parent = element.getparent()
    if parent is not None and "highlight" in parent.get("class", ""):
        return True
    code = element.find("code")
    if code is not None and len(element) == 1:
        return True
    return False


def handle_code_blocks(element: Element) -> Any:
    processed_element = deepcopy(element)
    for child in element.iter("*"):
        child.tag = "done"
    processed_element.tag = "code"
    return processed_element


def handle_quotes(element: Element, options: Extractor) -> Any:
    if is_code_block_element(element):
        return handle_code_blocks(element)
    processed_element = Element(element.tag)
    for child in element.iter("*"):
        processed_child = process_node(child, options)
        define_newelem(processed_child, processed_element)
        child.tag = "done"
    if is_text_element(processed_element):
        strip_tags(processed_element, "quote")
        return processed_element
    return None


def handle_other_elements(element: Element, potential_tags: Set[str], options: Extractor) -> Any:
    if element.tag == "div" and "w3-code" in element.get("class", ""):
        return handle_code_blocks(element)
    if element.tag not in potential_tags:
        return None
    if element.tag == "div":
        processed_element = handle_textnode(element, options, comments_fix=False, preserve_spaces=True)
        if processed_element is not None and text_chars_test(processed_element.text) is True:
            processed_element.attrib.clear()
            if processed_element.tag == "div":
                processed_element.tag = "p"
            return processed_element
    return None


def handle_paragraphs(element: Element, potential_tags: Set[str], options: Extractor) -> Any:
    "A <p> and its descendants, flattened into a new <p> of formatting children."
    element.attrib.clear()
    if len(element) == 0:
        return process_node(element, options)
    processed_element = Element(element.tag)
    core = core_of(element)
    if core is not None and not options.dedup:
        # the C version for a <p> of leaf children (no deduplication); NotImplemented: nothing changed
        kept = core.ex111_paragraph(element, processed_element, potential_tags, textfilter)
        if kept is not NotImplemented:
            return processed_element if kept else None
    for child in element.iter("*"):
        if child.tag not in potential_tags and child.tag != "done":
            continue
        processed_child = handle_textnode(child, options, comments_fix=False, preserve_spaces=True)
        if processed_child is not None:
            if processed_child.tag == "p":
                if processed_element.text:
                    processed_element.text = xml_text(processed_element.text + " " + processed_child.text)
                else:
                    processed_element.text = xml_text(processed_child.text)
                child.tag = "done"
                continue
            newsub = Element(child.tag)
            if processed_child.tag in P_FORMATTING:
                if len(processed_child) > 0:
                    for item in processed_child:
                        if text_chars_test(item.text) is True:
                            item.text = xml_text(" " + item.text)
                        strip_tags(processed_child, item.tag)
                if child.tag == "hi":
                    # a <hi> without rend: lxml refuses None (TypeError)
                    newsub.set("rend", xml_attr_value(child.get("rend")))
                elif child.tag == "ref":
                    if child.get("target") is not None:
                        newsub.set("target", xml_attr_value(child.get("target")))
            newsub.text, newsub.tail = xml_text(processed_child.text), xml_text(processed_child.tail)
            processed_element.append(newsub)
        child.tag = "done"
    if len(processed_element) > 0:
        last_elem = processed_element[-1]
        if last_elem.tag == "lb" and last_elem.tail is None:
            last_elem.getparent().remove(last_elem)
        return processed_element
    if processed_element.text:
        return processed_element
    return None


def define_cell_type(element: Element, is_header: bool) -> Any:
    cell_element = Element("cell")
    if is_header:
        cell_element.set("role", "head")
    return cell_element


def handle_table(table_elem: Element, potential_tags: Set[str], options: Extractor) -> Any:
    "A <table>: rows of cells; stops at a nested table."
    newtable = Element("table")
    strip_tags(table_elem, "thead", "tbody", "tfoot")
    # the widest row (colspans included) gives every row its span attribute
    core = core_of(table_elem)
    # in C on core trees; NotImplemented: a colspan int() is left to parse (or refuse)
    max_cols = core.ex111_table_max_cols(table_elem) if core is not None else NotImplemented
    if max_cols is NotImplemented:
        max_cols = 0
        for tr in table_elem.iter("tr"):
            max_cols = max(max_cols, sum(int(td.get("colspan", 1)) for td in tr.iter(*TABLE_ELEMS)))
    # the same set for every cell (nothing changes potential_tags meanwhile)
    cell_tags = potential_tags.union(["div"])
    if core is not None and not options.dedup:
        # the loop in C (rows, childless cells); the other cells run _fill_cell (_leaf_cell when
        # process_node's C version declines), the walk going on as the reference's does
        kept = core.ex111_table(
            table_elem, newtable, str(max_cols) if max_cols > 1 else None, RE_FILTER.match,
            lambda cell, new: _fill_cell(cell, new, cell_tags, options, core),
            lambda cell, new: _leaf_cell(cell, new, options))
        if kept is not NotImplemented:
            return newtable if kept else None
    seen_header_row = False
    seen_header = False
    row_attrs = {"span": str(max_cols)} if max_cols > 1 else {}
    newrow = Element("row", dict(row_attrs))
    # on core trees the walk itself marks done the elements the loop would only mark done
    walk = table_elem.iterdescendants() if core is None else core.ex111_skip_walk(table_elem, _TABLE_WALK)
    for subelement in walk:
        if subelement.tag == "tr":
            if len(newrow) > 0:
                newtable.append(newrow)
                newrow = Element("row", dict(row_attrs))
                seen_header_row = seen_header_row or seen_header
        elif subelement.tag in TABLE_ELEMS:
            is_header = subelement.tag == "th" and not seen_header_row
            seen_header = seen_header or is_header
            new_child_elem = define_cell_type(subelement, is_header)
            if len(subelement) == 0:
                _leaf_cell(subelement, new_child_elem, options)
            else:
                _fill_cell(subelement, new_child_elem, cell_tags, options, core)
            if new_child_elem.text or len(new_child_elem) > 0:
                newrow.append(new_child_elem)
        elif subelement.tag == "table":
            # a nested table ends this one (1.11.0): its rows are not merged into the outer table
            break
        subelement.tag = "done"
    newrow.attrib.pop("span", None)
    if len(newrow) > 0:
        newtable.append(newrow)
    if len(newtable) > 0:
        return newtable
    return None


def _leaf_cell(subelement: Element, new_child_elem: Element, options: Extractor) -> None:
    "handle_table: a childless cell."
    processed_cell = process_node(subelement, options)
    if processed_cell is not None:
        new_child_elem.text = xml_text(processed_cell.text)
        new_child_elem.tail = xml_text(processed_cell.tail)


def _fill_cell(subelement: Element, new_child_elem: Element, cell_tags: Set[str], options: Extractor,
               core: Any) -> None:
    "handle_table: a cell with children (the cell is marked done here and again by the loop)."
    if core is not None and not options.dedup:
        # the walk in C (td/th/hi through handle_textnode there, define_newelem too), the other
        # elements through _cell_other; NotImplemented: nothing changed, the code below runs
        done = core.ex111_fill_cell(
            subelement, new_child_elem, _CELL_WALK, textfilter,
            lambda child: handle_textnode(child, options, preserve_spaces=True, comments_fix=True),
            lambda child: _cell_other(child, new_child_elem, cell_tags, options), define_newelem)
        if done is not NotImplemented:
            return
    new_child_elem.text = xml_text(subelement.text)
    new_child_elem.tail = xml_text(subelement.tail)
    subelement.tag = "done"
    cells = subelement.iterdescendants() if core is None else core.ex111_skip_walk(subelement, _CELL_WALK)
    for child in cells:
        if child.tag in TABLE_ALL:
            if child.tag in TABLE_ELEMS:
                child.tag = "cell"
            processed_subchild = handle_textnode(child, options, preserve_spaces=True, comments_fix=True)
        elif child.tag == "list" and options.focus == "recall":
            processed_subchild = handle_lists(child, options)
            if processed_subchild is not None:
                new_child_elem.append(processed_subchild)
                processed_subchild = None
        elif core is None or child.tag in _DISPATCHED:
            processed_subchild = handle_textelem(child, cell_tags, options)
        else:
            # handle_textelem gives None and changes nothing for the other tags
            processed_subchild = None
        define_newelem(processed_subchild, new_child_elem)
        child.tag = "done"


def _cell_other(child: Element, new_child_elem: Element, cell_tags: Set[str], options: Extractor) -> Any:
    "_fill_cell's branches for a child that is no td/th/hi: what goes to define_newelem."
    if child.tag == "list" and options.focus == "recall":
        processed_subchild = handle_lists(child, options)
        if processed_subchild is not None:
            new_child_elem.append(processed_subchild)
        return None
    return handle_textelem(child, cell_tags, options)


def handle_image(element: Element) -> Any:
    processed_element = Element(element.tag)
    for attr in ("data-src", "src"):
        src = element.get(attr)
        if is_image_file(src):
            processed_element.set("src", xml_attr_value(src))
            break
    else:
        for attr, value in element.attrib.items():
            if attr.startswith("data-src") and is_image_file(value):
                processed_element.set("src", xml_attr_value(value))
                break
    if element.get("alt") is not None:
        processed_element.set("alt", xml_attr_value(element.get("alt")))
    if element.get("title") is not None:
        processed_element.set("title", xml_attr_value(element.get("title")))
    if not processed_element.attrib or not processed_element.get("src"):
        return None
    if not processed_element.get("src").startswith("http"):
        processed_element.set("src", re.sub(r"^//", "http://", processed_element.get("src")))
    return processed_element


def handle_textelem(element: Element, potential_tags: Set[str], options: Extractor) -> Any:
    "Dispatch on the element's tag."
    if element.tag == "done":
        # no branch takes it and handle_other_elements gives None (done is never a potential tag)
        return None
    new_element = None
    if element.tag == "list":
        new_element = handle_lists(element, options)
    elif element.tag in CODES_QUOTES:
        new_element = handle_quotes(element, options)
    elif element.tag == "head":
        new_element = handle_titles(element, options)
    elif element.tag == "p":
        new_element = handle_paragraphs(element, potential_tags, options)
    elif element.tag == "lb":
        if text_chars_test(element.tail) is True:
            element = process_node(element, options)
            if element is not None:
                new_element = Element("p")
                new_element.text = xml_text(element.tail)
    elif element.tag in FORMATTING:
        new_element = handle_formatting(element, options)
    elif element.tag == "table" and "table" in potential_tags:
        new_element = handle_table(element, potential_tags, options)
    elif element.tag == "graphic" and "graphic" in potential_tags:
        new_element = handle_image(element)
    else:
        new_element = handle_other_elements(element, potential_tags, options)
    return new_element


_DIV = frozenset(("div",))
# the tags handle_textelem does something with (any other gives None and changes nothing)
_DISPATCHED = frozenset(("list", "code", "quote", "head", "p", "lb", "hi", "ref", "span",
                         "table", "graphic", "div"))
_TABLE_WALK = ("tr", "td", "th", "table")
_CELL_WALK = tuple(sorted(TABLE_ALL | _DISPATCHED))
_WILD_TAGS = frozenset(("blockquote", "code", "p", "pre", "q", "quote", "table"))
_WILD_TAGS_RECALL = _WILD_TAGS | {"div", "lb", "list"}


def _wild_elements(tree: Element, recall: bool) -> List[Any]:
    "``.//blockquote|.//code|.//p|.//pre|.//q|.//quote|.//table|.//div[contains(@class, 'w3-code')]`` (+ div, lb, list)."
    tags = _WILD_TAGS_RECALL if recall else _WILD_TAGS
    out = []
    core = core_of(tree)
    # the core's walk hands out only the elements of those tags (and divs)
    for el in tree.iterdescendants() if core is None else core.ex111_text_elements(tree, tags | _DIV, "div" in tags):
        if el.tag in tags or (el.tag == "div" and "w3-code" in (el.get("class") or "")):
            out.append(el)
    return out


def recover_wild_text(tree: Element, result_body: Element, options: Extractor, potential_tags: Any = TAG_CATALOG) -> Any:
    "Look for text elements anywhere in the (pruned) document."
    recall = options.focus == "recall"
    # in place: the caller's set grows too (upstream's behaviour, kept)
    if recall:
        potential_tags.update(["div", "lb"])
    search_tree = prune_unwanted_sections(tree, potential_tags, options)
    if "ref" not in potential_tags:
        strip_tags(search_tree, "a", "ref", "span")
    else:
        strip_tags(search_tree, "span")
    subelems = _wild_elements(search_tree, recall)
    core = core_of(search_tree)
    if core is not None and not options.dedup:
        # the same loop in C (done, p and lb there, the others through handle_textelem), appending as it goes
        core.ex111_textelem_loop(subelems, potential_tags, RE_FILTER.match, textfilter, _new_p,
                                 lambda e: handle_textelem(e, potential_tags, options), result_body)
        return result_body
    for e in subelems:
        processed = handle_textelem(e, potential_tags, options)
        if processed is not None:
            result_body.append(processed)
    return result_body


def _new_p() -> Any:
    "Element(\"p\") (handle_paragraphs' new element of a <p>, handle_textelem's of an <lb>)."
    return Element("p")


def prune_unwanted_sections(tree: Element, potential_tags: Set[str], options: Extractor) -> Any:
    "Rule-based deletion of boilerplate sections, then link-density pruning."
    favor_precision = options.focus == "precision"
    tree = prune_unwanted_nodes(tree, OVERALL_DISCARD_XPATH, with_backup=True)
    tree = prune_unwanted_nodes(tree, PAYWALL_DISCARD_XPATH)
    if "graphic" not in potential_tags:
        tree = prune_unwanted_nodes(tree, DISCARD_IMAGE_ELEMENTS)
    if options.focus != "recall":
        tree = prune_unwanted_nodes(tree, TEASER_DISCARD_XPATH)
        if favor_precision:
            tree = prune_unwanted_nodes(tree, PRECISION_DISCARD_XPATH)
    tree = delete_by_link_density(tree, "div", backtracking=True, favor_precision=favor_precision)
    tree = delete_by_link_density(tree, "list", backtracking=False, favor_precision=favor_precision)
    tree = delete_by_link_density(tree, "p", backtracking=False, favor_precision=favor_precision)
    if favor_precision:
        while len(tree) > 0 and tree[-1].tag == "head":
            tree[-1].getparent().remove(tree[-1])
        tree = delete_by_link_density(tree, "head", backtracking=False)
        tree = delete_by_link_density(tree, "quote", backtracking=False)
    return tree


def _p_text_nodes(el: Element) -> List[str]:
    """``//p//text()`` (absolute: the whole document of ``el``): every text and
    tail inside a <p>, each text node once even with nested <p>."""
    out: List[str] = []
    for top in absolute_iter(el, "p"):
        # skip a <p> inside another <p>: its text nodes are counted by the outer one
        if next(top.iterancestors("p"), None) is not None:
            continue
        if top.text is not None:
            out.append(top.text)
        for d in top.iterdescendants():
            if d.text is not None:
                out.append(d.text)
            if d.tail is not None:
                out.append(d.tail)
    return out


def _extract(tree: Element, options: Extractor) -> Tuple[Any, str, Set[str]]:
    potential_tags = set(TAG_CATALOG)
    if options.tables is True:
        potential_tags.update(["table", "td", "th", "tr"])
    if options.images is True:
        potential_tags.add("graphic")
    if options.links is True:
        potential_tags.add("ref")
    result_body = Element("body")
    for expr in BODY_XPATH:
        subtree = next((s for s in expr(tree) if s is not None), None)
        if subtree is None:
            continue
        subtree = prune_unwanted_sections(subtree, potential_tags, options)
        # removing while iterating, as upstream: after a removed table holding a nested table the
        # walk goes on inside the detached subtree and can skip the tables after it
        if "table" in potential_tags or options.focus == "precision":
            for elem in subtree.iter("table"):
                if link_density_test_tables(elem) is True:
                    elem.getparent().remove(elem)
        if len(subtree) == 0:
            continue
        factor = 1 if options.focus == "precision" else 3
        core = core_of(subtree)
        if core is None:
            ptest = _p_text_nodes(subtree)
            nodes, plen = len(ptest), len("".join(ptest))
        else:
            # counted in C
            nodes, plen = core.ex111_p_text_stats(root_of_document(subtree))
        # no paragraphs with text, or too little: divs count as text containers
        if not nodes or plen < options.min_extracted_size * factor:
            potential_tags.add("div")
        if "ref" not in potential_tags:
            strip_tags(subtree, "ref")
        if "span" not in potential_tags:
            strip_tags(subtree, "span")
        if core is None:
            subelems = list(subtree.iterdescendants())
            only_lb = {e.tag for e in subelems} == {"lb"}
        else:
            only_lb = core.extract_desc_tags(subtree) == {"lb"}
            # the others give None and change nothing; an element's tag only ever changes to
            # "done", "cell" (then "done") or, from lb/div, "p": none of them leaves the set.
            # Without div in potential_tags (which the loop does not change) a div whose class
            # has no "w3-code" gives None too (no handler changes the class of another element)
            subelems = core.ex111_text_elements(subtree, _DISPATCHED, "div" in potential_tags)
        # only line breaks: the frame itself is the text element
        if only_lb:
            subelems = [subtree]
        # a list comprehension upstream: every element is handled before any is moved
        if core is not None and not options.dedup:
            # the C loop: done, p and lb there, the others through handle_textelem, in order
            processed_elems = core.ex111_textelem_loop(
                subelems, potential_tags, RE_FILTER.match, textfilter, _new_p,
                lambda e: handle_textelem(e, potential_tags, options), None)
        else:
            processed_elems = [handle_textelem(e, potential_tags, options) for e in subelems]
        for processed in processed_elems:
            if processed is not None:
                result_body.append(processed)
        while len(result_body) > 0 and result_body[-1].tag in NOT_AT_THE_END:
            result_body[-1].getparent().remove(result_body[-1])
        # more than one element: this candidate is the content (a lone element may be a stray title)
        if len(result_body) > 1:
            break
    temp_text = " ".join(result_body.itertext()).strip()
    return result_body, temp_text, potential_tags


def extract_content(cleaned_tree: Element, options: Extractor) -> Tuple[Any, str, int]:
    "Main content via BODY_XPATH, then wild-text recovery when too short."
    backup_tree = deepcopy(cleaned_tree)
    result_body, temp_text, potential_tags = _extract(cleaned_tree, options)
    if len(result_body) == 0 or len(temp_text) < options.min_extracted_size:
        result_body = recover_wild_text(backup_tree, result_body, options, potential_tags)
        temp_text = " ".join(result_body.itertext()).strip()
    strip_elements(result_body, "done")
    strip_tags(result_body, "div")
    return result_body, temp_text, len(temp_text)


def process_comments_node(elem: Element, potential_tags: Set[str], options: Extractor) -> Any:
    if elem.tag in potential_tags:
        processed_element = handle_textnode(elem, options, comments_fix=True)
        if processed_element is not None:
            processed_element.attrib.clear()
            return processed_element
    return None


def extract_comments(tree: Element, options: Extractor) -> Tuple[Any, str, int, Any]:
    "Comments from the first comment section that gives something; the section is then removed."
    comments_body = Element("body")
    potential_tags = set(TAG_CATALOG)  # no div: trouble with <div class="comment-author meta">
    for expr in COMMENTS_XPATH:
        subtree = next((s for s in expr(tree) if s is not None), None)
        if subtree is None:
            continue
        subtree = prune_unwanted_nodes(subtree, COMMENTS_DISCARD_XPATH)
        strip_tags(subtree, "a", "ref", "span")
        core = core_of(subtree)

        def step(e: Element) -> None:
            processed = process_comments_node(e, potential_tags, options)
            if processed is not None:
                comments_body.append(processed)

        if core is not None and not options.dedup:
            # the C loop over the same snapshot: handle_textnode, the attributes cleared, the append
            core.ex111_comments_loop(core.descendants(subtree, potential_tags), comments_body, potential_tags,
                                     textfilter, step)
        else:
            # on core trees only the elements process_comments_node looks at (renames stay inside the set)
            for e in list(subtree.iterdescendants()) if core is None else core.descendants(subtree, potential_tags):
                step(e)
        # removed so that the main extraction does not take the comments again
        if len(comments_body) > 0:
            subtree.getparent().remove(subtree)
            break
    temp_comments = " ".join(comments_body.itertext()).strip()
    return comments_body, temp_comments, len(temp_comments), tree
