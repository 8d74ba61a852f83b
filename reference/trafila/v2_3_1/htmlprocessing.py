"""Tree cleaning and conversion of trafilatura 2.3.1 (htmlprocessing.py):
``tree_cleaning``, ``prune_html``, ``prune_unwanted_nodes``, the link-density
tests, ``handle_textnode``/``process_node`` and ``convert_tags``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple

from .._backend import core_of
from ._tree import iter_live, copy_tree, desc_list, desc_tagged, iter_desc, strip_tags, text_content
from ..treeops import deletion_walk
from ..xmlchars import xml_text
from .deduplication import duplicate_test
from .settings import CUT_EMPTY_ELEMS, MANUALLY_CLEANED, MANUALLY_STRIPPED
from .utils import LINK_FARM_RATIO, RE_FILTER, image_src, safe_base_url, safe_relative_url, textfilter, trim
from .xml import delete_element, separates_inline
from .xpaths import hljs_spans, tex_annotation

if TYPE_CHECKING:
    from trafila.dom import Element as _Element  # the class (._tree's Element is the factory)
    from trafila.v2_3_1.settings import Extractor


LOGGER = logging.getLogger(__name__)

REND_TAG_MAPPING = {
    "em": "#i",
    "i": "#i",
    "b": "#b",
    "strong": "#b",
    "u": "#u",
    "kbd": "#t",
    "samp": "#t",
    "tt": "#t",
    "var": "#t",
    "sub": "#sub",
    "sup": "#sup",
}

PRESERVE_IMG_CLEANING = {"figure", "picture", "source"}

CODE_INDICATORS = ["{", '("', "('", "\n    "]


def _tagged(tree: _Element, tags: Any) -> List[Any]:
    "``list(tree.iter(*tags))``: a snapshot, for walks that do not change the tree's shape."
    core = core_of(tree)
    if core is not None:
        return core.descendants(tree, tags, True)
    return [e for e in (tree, *desc_list(tree)) if e.tag in tags]


def recover_math(tree: _Element) -> Any:
    "MathML -> its LaTeX source, written into the <math> tail (the subtree is deleted later)."
    # read-only walk: only tails change
    for element in _tagged(tree, ("math",)):
        annotation = tex_annotation(element)
        latex = trim(annotation[0].text or "") if annotation else trim(element.get("alttext") or "")
        if not latex:
            continue
        opening, closing = ("\\[", "\\]") if element.get("display") == "block" else ("\\(", "\\)")
        element.tail = xml_text(f"{opening}{latex}{closing}{element.tail or ''}")
    return tree


def _handle_forms(tree: _Element) -> None:
    "A form holding more than half of the text becomes a div, other forms go."
    forms = _tagged(tree, ("form",))
    if not forms:
        return
    total = len(text_content(tree))
    for form in forms:
        if total and len(text_content(form)) > total / 2:
            form.tag = "div"
        else:
            delete_element(form)


def tree_cleaning(tree: _Element, options: Extractor) -> Any:
    "Strip and delete the unwanted elements (htmlprocessing.tree_cleaning)."
    core = core_of(tree)
    recover_math(tree)
    cleaning_list, stripping_list = MANUALLY_CLEANED.copy(), MANUALLY_STRIPPED.copy()
    clean_forms = "form" in cleaning_list
    if clean_forms:
        cleaning_list.remove("form")
    if not options.tables:
        cleaning_list.extend(["table", "td", "th", "tr"])
    elif core is not None:
        # the same renames in C
        core.layout_tables_to_divs(tree)
    else:
        # figures holding a table (#301) and ARIA layout tables (role=presentation/none) become divs
        # renaming the current node cannot change which other nodes match: a snapshot walks the same
        for elem in _tagged(tree, ("figure", "table")):
            if elem.tag == "figure":
                if next(iter_desc(elem, "table"), None) is not None:
                    elem.tag = "div"
            elif elem.get("role") in ("presentation", "none"):
                elem.tag = "div"
    if options.images:
        cleaning_list = [e for e in cleaning_list if e not in PRESERVE_IMG_CLEANING]
        stripping_list.remove("img")

    if core is not None:
        core.strip_named(tree, stripping_list)
    else:
        strip_tags(tree, *stripping_list)

    # recall: undo the deletions if they remove every paragraph
    tcopy = None
    if (
        options.focus == "recall"
        and next(iter_desc(tree, "p"), None) is not None
        and (
            "p" in cleaning_list
            or not any(next(p.iterancestors(*cleaning_list), tree) is tree for p in _tagged(tree, ("p",)))
        )
    ):
        tcopy = copy_tree(tree)
    if core is not None:
        # the same deletions in C; a tag with nested matches replays lxml's live walk
        core.delete_by_tags_once(tree, cleaning_list, delete_element,
                                 lambda tag: [delete_element(el) for el in iter_live(tree, tag)])
    else:
        for expression, element in deletion_walk(tree, cleaning_list, desc_list(tree), iter_live):
            delete_element(element)
    if tcopy is not None and next(iter_desc(tree, "p"), None) is None:
        tree = tcopy

    if clean_forms:
        if core is not None:
            # the same renames and deletions in C
            core.handle_forms(tree, delete_element)
        else:
            _handle_forms(tree)

    return prune_html(tree, options.focus)


def prune_html(tree: _Element, focus: str = "balanced") -> Any:
    "Delete the empty CUT_EMPTY_ELEMS (their tails too in precision mode)."
    tails = focus != "precision"
    core = core_of(tree)
    # the walk, the test and the deletions in C (accel_prune.pxi)
    if core is not None and core.delete_empty((tree,), CUT_EMPTY_ELEMS, False, tails, delete_element):
        return tree
    # the core's walk hands out only the elements of those tags
    candidates = core.descendants(tree, CUT_EMPTY_ELEMS) if core is not None else desc_list(tree)
    empty = [e for e in candidates if e.tag in CUT_EMPTY_ELEMS and e.text is None and len(e) == 0]
    if core is not None:
        core.delete_elements(empty, tails, delete_element)
        return tree
    for element in empty:
        delete_element(element, keep_tail=tails)
    return tree


def prune_unwanted_nodes(tree: _Element, nodelist: Sequence[Any], with_backup: bool = False) -> Any:
    "Delete the selectors' matches (tails kept); with_backup: all or nothing, 1/7 guard."
    if not with_backup:
        core = core_of(tree)
        for expression in nodelist:
            if core is not None:
                core.delete_elements(expression(tree), True, delete_element)
                continue
            for subtree in expression(tree):
                delete_element(subtree)
        return tree
    core = core_of(tree)
    if core is not None:
        # the outermost matches and the text lengths in C (no strings made)
        outer = core.outermost([elem for expression in nodelist for elem in expression(tree)])
        if outer is not NotImplemented:
            old_len = core.text_content_length(tree)
            if old_len - sum(map(core.text_content_length, outer)) > old_len / 7:
                core.delete_elements(outer, True, delete_element)
            return tree
    matches = dict.fromkeys(elem for expression in nodelist for elem in expression(tree))
    outer = [elem for elem in matches if not any(a in matches for a in elem.iterancestors())]
    old_len = len(text_content(tree))
    if old_len - sum(len(text_content(elem)) for elem in outer) > old_len / 7:
        for elem in outer:
            delete_element(elem)
    return tree


def collect_link_info(links_xpath: List[Any]) -> Tuple[int, int, int, List[Any]]:
    """Total length, count and short ones (< 10) among the non-empty trimmed
    link texts, and those texts (on core trees their lengths: no caller reads them)."""
    core = core_of(links_xpath[0]) if links_xpath else None
    if core is not None:
        mylist: List[Any] = [n for n in map(core.text_length, links_xpath) if n]
        lengths = mylist
    else:
        mylist = [e for e in (trim(text_content(elem)) for elem in links_xpath) if e]
        lengths = list(map(len, mylist))
    shortelems = sum(1 for length in lengths if length < 10)
    return sum(lengths), len(mylist), shortelems, mylist


def _trimmed_length(el: Any) -> int:
    "``len(trim(text_content(el)))`` (counted in C on core trees)."
    core = core_of(el)
    return core.text_length(el) if core is not None else len(trim(text_content(el)))


def is_paragraph_listing(links_xpath: List[Any]) -> bool:
    "Every link alone in its own <p>."
    for link in links_xpath:
        parent = link.getparent()
        if parent is None or parent.tag != "p" or sum(1 for _ in iter_desc(parent, "ref")) > 1:
            return False
    return True


def link_density_test(element: _Element, favor_precision: bool = False) -> Tuple[bool, bool]:
    "(delete, short-with-links) for a link-rich element."
    core = core_of(element)
    if core is not None:
        return core.link_density_verdict(element, favor_precision, LINK_FARM_RATIO, False)
    links_xpath = desc_tagged(element, "ref")
    if not links_xpath:
        return False, False
    if next(iter_desc(element, "graphic"), None) is not None:
        return False, False
    elemlen = _trimmed_length(element)
    if len(links_xpath) == 1:
        len_threshold = 10 if favor_precision else 100
        link_len = _trimmed_length(links_xpath[0])
        if link_len > len_threshold and link_len > elemlen * 0.9:
            return True, False
    if element.tag == "p":
        limitlen = 60 if element.getnext() is None else 30
    elif element.getnext() is None:
        limitlen = 300
    else:
        limitlen = 100
    if elemlen < limitlen:
        linklen, elemnum, shortelems, _ = collect_link_info(links_xpath)
        if elemnum == 0:
            return True, False
        return linklen > elemlen * 0.8 or (elemnum > 1 and shortelems / elemnum > 0.8), True
    # large near-total link farms ("latest news" sidebars) the size gate above never tests (#584);
    # more than 4 links, as a handful of long sentence-links is editorial; an average link of 100
    # characters or more is a listing (one link per card), not a farm
    if len(links_xpath) > 4:
        linklen, elemnum, _, _ = collect_link_info(links_xpath)
        if linklen > elemlen * LINK_FARM_RATIO and linklen < 100 * elemnum and not is_paragraph_listing(links_xpath):
            return True, False
    return False, False


def link_density_test_tables(element: _Element) -> bool:
    "Tables of at least 200 characters made mostly of link text."
    core = core_of(element)
    if core is not None:
        return core.link_density_table(element, False)
    links_xpath = desc_tagged(element, "ref")
    if not links_xpath:
        return False
    elemlen = _trimmed_length(element)
    if elemlen < 200:
        return False
    linklen, _, _, _ = collect_link_info(links_xpath)
    return linklen > 0.8 * elemlen if elemlen < 1000 else linklen > 0.5 * elemlen


def delete_by_link_density(subtree: _Element, tagname: str, backtracking: bool = False, favor_precision: bool = False) -> Any:
    "Delete the elements of one tag the link-density test flags."
    core = core_of(subtree)
    if core is not None:
        # the walk, the tests and the deletions in one C pass (accel_prune.pxi)
        return core.delete_by_link_density(subtree, tagname, backtracking, favor_precision, LINK_FARM_RATIO, False,
                                           delete_element)
    deletions = []
    len_threshold = 200 if favor_precision else 100
    depth_threshold = 1 if favor_precision else 3
    # the test is read-only, deletions come after the walk: a snapshot walks the same nodes
    for elem in _tagged(subtree, (tagname,)):
        result, short_with_links = link_density_test(elem, favor_precision)
        if result or (
            backtracking
            and short_with_links
            and len(elem) >= depth_threshold
            and len(trim(text_content(elem))) < len_threshold
        ):
            # a paragraph holding a list item's (or cell's) content stays: the list is tested on
            # its own, and removing the paragraph would leave the item empty (#788)
            parent = elem.getparent()
            if tagname == "p" and parent is not None and parent.tag in ("item", "td", "th"):
                continue
            deletions.append(elem)
    for elem in dict.fromkeys(deletions):
        delete_element(elem)
    return subtree


def handle_textnode(elem: _Element, options: Extractor, comments_fix: bool = True, preserve_spaces: bool = False) -> Optional[Any]:
    "Convert, trim and probe a potential text element."
    core = core_of(elem)
    if core is not None:
        # the C version: NotImplemented leaves the element as it was; the element it keeps
        # passed the textfilter, so the reference would count it now (not a picture or a
        # kept line break, which return before the count)
        early = options.dedup and (
            (not comments_fix and elem.tag == "lb") or (elem.tag == "graphic" and image_src(elem) is not None))
        result = core.extract_handle_textnode(elem, comments_fix, preserve_spaces, textfilter)
        if result is not NotImplemented:
            if result is not None and options.dedup and not early and duplicate_test(elem, options):
                return None
            return result
    if elem.tag == "graphic" and image_src(elem) is not None:
        return elem
    if elem.tag == "done" or (
        len(elem) == 0 and not elem.text and not elem.tail and (comments_fix or not separates_inline(elem))
    ):
        return None

    if not comments_fix and elem.tag == "lb":
        if not preserve_spaces:
            elem.tail = xml_text(trim(elem.tail) or None)
        return elem

    if not elem.text and len(elem) == 0:
        # try the tail
        elem.text, elem.tail = xml_text(elem.tail), ""
        if comments_fix and elem.tag == "lb":
            elem.tag = "p"

    if not preserve_spaces:
        elem.text = xml_text(trim(elem.text) or None)
        if elem.tail:
            elem.tail = xml_text(trim(elem.tail) or None)

    if (not elem.text and textfilter(elem)) or (options.dedup and duplicate_test(elem, options)):
        return None
    return elem


def process_node(elem: _Element, options: Extractor) -> Optional[Any]:
    "Light version of handle_textnode."
    core = core_of(elem)
    if core is not None:
        # the C version: NotImplemented leaves the element as it was; one it keeps with a
        # text or tail passed the textfilter, so the reference would count it now
        result = core.extract_process_node(elem, RE_FILTER.match)
        if result is not NotImplemented:
            if result is not None and options.dedup and (elem.text or elem.tail) and duplicate_test(elem, options):
                return None
            return result
    if elem.tag == "done" or (len(elem) == 0 and not elem.text and not elem.tail):
        return None
    elem.text, elem.tail = xml_text(trim(elem.text) or None), xml_text(trim(elem.tail) or None)
    if elem.tag != "lb" and not elem.text and elem.tail and len(elem) == 0:
        elem.text, elem.tail = xml_text(elem.tail), None
    if elem.text or elem.tail:
        if textfilter(elem) or (options.dedup and duplicate_test(elem, options)):
            return None
    return elem


def convert_lists(elem: _Element) -> None:
    "ul/ol/dl -> list (rend keeps the source tag), li/dd/dt -> item."
    elem.set("rend", elem.tag)
    elem.tag = "list"
    i = 1
    for subelem in iter_live(elem, "dd", "dt", "li"):
        if subelem.tag in ("dd", "dt"):
            subelem.set("rend", f"{subelem.tag!s}-{i}")
            if subelem.tag == "dd":
                i += 1
        subelem.tag = "item"


def convert_quotes(elem: _Element) -> None:
    "blockquote/q -> quote; pre -> code when it looks like code."
    hljs = hljs_spans(elem) if elem.tag == "pre" else []
    for subelem in hljs:
        subelem.attrib.clear()
    is_code = elem.tag == "pre" and (
        (len(elem) == 1 and elem[0].tag == "span") or bool(hljs) or any(i in (elem.text or "") for i in CODE_INDICATORS)
    )
    elem.tag = "code" if is_code else "quote"


def convert_headings(elem: _Element) -> None:
    elem.attrib.clear()
    elem.set("rend", elem.tag)
    elem.tag = "head"


def convert_line_breaks(elem: _Element) -> None:
    elem.tag = "lb"


def convert_deletions(elem: _Element) -> None:
    elem.tag = "del"
    elem.set("rend", "overstrike")


def convert_details(elem: _Element) -> None:
    elem.tag = "div"
    for subelem in iter_live(elem, "summary"):
        subelem.tag = "head"


CONVERSIONS = {
    **dict.fromkeys(("dl", "ol", "ul"), convert_lists),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), convert_headings),
    **dict.fromkeys(("br", "hr"), convert_line_breaks),
    **dict.fromkeys(("blockquote", "pre", "q"), convert_quotes),
    **dict.fromkeys(("del", "s", "strike"), convert_deletions),
    "details": convert_details,
}


def convert_link(elem: _Element, base_url: Optional[str]) -> None:
    "a -> ref with its href as target (resolved against the base URL), other attributes dropped."
    elem.tag = "ref"
    target = elem.get("href")
    elem.attrib.clear()
    if target:
        if base_url:
            target = safe_relative_url(base_url, target) or target
        elem.set("target", xml_text(target))


def _convert_tags_core(core: Any, tree: _Element, options: Extractor, url: Optional[str]) -> Any:
    "convert_tags on a core tree: the same steps, in C but the links and the images-out-of-links."
    if options.links:
        base_url = url and safe_base_url(url)
        # without a base URL, in C (False: an href lxml would refuse, the loop raises as upstream)
        if base_url or not core.convert_links(tree):
            for elem in _tagged(tree, ("a", "ref")):
                convert_link(elem, base_url)
    core.convert_tags_23(tree, bool(options.links), bool(options.tables), bool(options.formatting),
                         bool(options.images), delete_element, convert_quotes)
    if options.images and options.links:
        _images_out_of_links(tree)
    return tree


def _images_out_of_links(tree: _Element) -> None:
    "Images out of links: they would be lost or doubled there."
    for ref in _tagged(tree, ("ref",)):
        graphics = _tagged(ref, ("graphic",))
        # in reverse, so that addnext keeps their order
        for graphic in reversed(graphics):
            ref.addnext(graphic)
        # a ref left with no text goes (its picture/source leftovers would trigger jusText)
        if graphics and not text_content(ref).strip():
            delete_element(ref)


def convert_tags(tree: _Element, options: Extractor, url: Optional[str] = None) -> Any:
    "Simplify the markup into trafilatura's XML vocabulary (htmlprocessing.convert_tags)."
    core = core_of(tree)
    if core is not None:
        return _convert_tags_core(core, tree, options, url)
    # no step below creates a tag a later loop looks for: absent tags need no walk (speed only)
    present = {e.tag for e in desc_list(tree)}
    present.add(tree.tag)
    if not options.links:
        containers = ("div", "li", "p", "table") if options.tables else ("div", "li", "p")
        # the tree root does not count as a container
        for elem in _tagged(tree, ("a",)) if "a" in present else ():
            if next(elem.iterancestors(*containers), tree) is not tree:
                elem.tag = "ref"
        if "a" in present:
            strip_tags(tree, "a")
    else:
        base_url = url and safe_base_url(url)
        # renames only: a snapshot walks the same nodes
        for elem in _tagged(tree, ("a", "ref")):
            convert_link(elem, base_url)

    # Yoast FAQ blocks: the question headers are bold but act as titles (#471)
    for elem in _tagged(tree, ("strong",)) if "strong" in present else ():
        if "schema-faq-question" in elem.get("class", ""):
            elem.attrib.clear()
            elem.set("rend", "h3")
            elem.tag = "head"

    for elem in iter_live(tree, "sub", "sup") if ("sub" in present or "sup" in present) else ():
        if not elem.text and len(elem) == 0:
            delete_element(elem)

    if options.formatting:
        for elem in tree.iter(*REND_TAG_MAPPING.keys()):
            elem.attrib.clear()
            elem.set("rend", REND_TAG_MAPPING[elem.tag])
            elem.tag = "hi"
    else:
        if present.intersection(REND_TAG_MAPPING):
            strip_tags(tree, *REND_TAG_MAPPING.keys())

    wanted = [tag for tag in CONVERSIONS if tag in present]
    if wanted:
        # a conversion renames its element and descendants into tags outside CONVERSIONS:
        # no other node changes its matching, a snapshot walks the same nodes
        for elem in _tagged(tree, wanted):
            CONVERSIONS[elem.tag](elem)
    if options.images:
        for elem in _tagged(tree, ("img",)):
            elem.tag = "graphic"
        if options.links:
            _images_out_of_links(tree)
    return tree
