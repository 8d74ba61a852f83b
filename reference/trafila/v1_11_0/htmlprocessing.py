"""Tree cleaning and conversion of trafilatura 1.11.0 (htmlprocessing.py):
``tree_cleaning``, ``prune_html``, ``prune_unwanted_nodes``, the link-density
tests, ``handle_textnode``/``process_node`` and ``convert_tags``."""

from __future__ import annotations

import logging
from copy import deepcopy
from typing import TYPE_CHECKING, Any, Iterable, List, Tuple

from trafila._backend import core_of, strip_tags
from trafila.treeops import deletion_walk
from trafila.courlan.urlutils import fix_relative_urls, get_base_url  # noqa: F401 - re-exported

from .deduplication import duplicate_test
from .settings import CUT_EMPTY_ELEMS, MANUALLY_CLEANED, MANUALLY_STRIPPED
from .utils import RE_FILTER, textfilter, trim, xml_text
from .xml import delete_element
from .xpaths import absolute_iter, figures_with_table, root_of_document

if TYPE_CHECKING:
    from trafila.dom import Element
    from trafila.v1_11_0.settings import Extractor


LOGGER = logging.getLogger(__name__)

REND_TAG_MAPPING = {
    "em": "#i", "i": "#i", "b": "#b", "strong": "#b", "u": "#u",
    "kbd": "#t", "samp": "#t", "tt": "#t", "var": "#t", "sub": "#sub", "sup": "#sup",
}

PRESERVE_IMG_CLEANING = {"figure", "picture", "source"}


def tree_cleaning(tree: Element, options: Extractor) -> Any:
    "Strip and delete the unwanted elements; in recall mode keep the tree if all <p> would go."
    core = core_of(tree)
    cleaning_list, stripping_list = list(MANUALLY_CLEANED), list(MANUALLY_STRIPPED)
    if not options.tables:
        cleaning_list.extend(["table", "td", "th", "tr"])
    elif core is not None:
        # the same renames in C
        core.figures_with_table_to_divs(tree)
    else:
        # a table inside a <figure> would be cleaned away with it (#301)
        for elem in figures_with_table(tree):
            elem.tag = "div"
    if options.images:
        cleaning_list = [e for e in cleaning_list if e not in PRESERVE_IMG_CLEANING]
        stripping_list.remove("img")
    if core is not None:
        core.strip_named(tree, stripping_list)
    else:
        strip_tags(tree, *stripping_list)
    if options.focus == "recall" and next(tree.iterdescendants("p"), None) is not None:
        tcopy = deepcopy(tree)
        _delete_tags(tree, cleaning_list)
        if next(tree.iterdescendants("p"), None) is None:
            tree = tcopy
    else:
        _delete_tags(tree, cleaning_list)
    return prune_html(tree)


def _delete_tags(tree: Element, cleaning_list: List[str]) -> None:
    """One ``tree.iter(tag)`` walk per tag, in list order (a walk that deletes
    the element holding its prefetched next match stops inside the deleted
    subtree, as lxml's does)."""
    core = core_of(tree)
    if core is not None:
        # the same deletions in C; a tag with nested matches replays lxml's live walk
        core.delete_by_tags_once(tree, cleaning_list, _delete_kept_tail,
                                 lambda tag: [delete_element(el) for el in _iter_tag(tree, tag)])
        return
    for _, element in deletion_walk(tree, cleaning_list, tree.iterdescendants(), _iter_tag):
        delete_element(element)


def _delete_kept_tail(element: Element, keep_tail: bool = True) -> None:
    "delete_element with the signature of the core's fallback (1.11.0 always keeps the tail)."
    delete_element(element)


def _iter_tag(tree: Element, tag: str) -> Any:
    return tree.iter(tag)


def prune_html(tree: Element) -> Any:
    """Delete empty elements of CUT_EMPTY_ELEMS. The XPath is absolute
    (``//*[not(node())]``): it covers the whole document ``tree`` lives in."""
    core = core_of(tree)
    # the walk, the test and the deletions in C (accel_prune.pxi)
    if core is not None and core.delete_empty(root_of_document(tree), CUT_EMPTY_ELEMS, True, True, _delete_kept_tail):
        return tree
    if core is not None:
        # the core's walk hands out only the elements of those tags
        empty = [el for el in absolute_iter(tree, *CUT_EMPTY_ELEMS) if len(el) == 0 and el.text is None]
        core.delete_elements(empty, True, _delete_kept_tail)
        return tree
    for element in [el for el in absolute_iter(tree) if len(el) == 0 and el.text is None]:
        if element.tag in CUT_EMPTY_ELEMS:
            delete_element(element)
    return tree


def prune_unwanted_nodes(tree: Element, nodelist: Iterable[Any], with_backup: bool = False) -> Any:
    """Remove the selected sections. A removed node's tail is appended, after a
    space, to the previous sibling's tail or (1.11.0's quirk) to the PARENT's
    tail. With backup: a copy of the input comes back if more than 6/7 of
    the text went."""
    core = core_of(tree)
    if core is not None:
        done = _prune_unwanted_nodes_core(core, tree, nodelist, with_backup)
        if done is not None:
            return done
    if with_backup:
        old_len = len(tree.text_content())
        backup = deepcopy(tree)
    for expression in nodelist:
        for subtree in expression(tree):
            _prune_one(subtree)
    if with_backup:
        new_len = len(tree.text_content())
        return tree if new_len > old_len / 7 else backup
    return tree


def _prune_one(subtree: Element) -> None:
    "One removal of prune_unwanted_nodes: the tail goes first, then the node."
    if subtree.tail is not None:
        prev = subtree.getprevious()
        if prev is None:
            prev = subtree.getparent()
        if prev is not None:
            prev.tail = xml_text((prev.tail or "") + " " + subtree.tail)
    subtree.getparent().remove(subtree)


def _prune_unwanted_nodes_core(core: Any, tree: Element, nodelist: Iterable[Any], with_backup: bool) -> Any:
    """prune_unwanted_nodes on a core tree, the loop body in C. The backup is not
    copied ahead: the C loop records its changes, and only when the backup is the
    result (rarely) are they taken back for the copy and made again (upstream leaves
    the input pruned). None: a node the C loop leaves to Python (it raises there)
    came up under a backup, everything was taken back, the caller runs the reference."""
    undo: Any = [] if with_backup else None
    old_len = core.text_content_length(tree) if with_backup else 0
    for expression in nodelist:
        subtrees = expression(tree)
        if type(subtrees) is not list:
            subtrees = list(subtrees)
        i = core.ex111_prune_nodes(subtrees, 0, undo)
        while i < len(subtrees):
            if with_backup:
                core.ex111_prune_undo(undo)
                return None
            _prune_one(subtrees[i])
            i = core.ex111_prune_nodes(subtrees, i + 1, undo)
    if not with_backup or core.text_content_length(tree) > old_len / 7:
        return tree
    core.ex111_prune_undo(undo)
    backup = deepcopy(tree)
    core.ex111_prune_redo(undo)
    return backup


def collect_link_info(links_xpath: List[Any], favor_precision: bool = False) -> Tuple[int, int, int, List[Any]]:
    """Total link text length, number of non-empty links, short ones, their
    texts (on core trees their lengths: callers only test the list for emptiness)."""
    threshold = 50 if favor_precision else 10
    core = core_of(links_xpath[0]) if links_xpath else None
    if core is not None:
        # len(trim(text_content())) in C
        mylist: List[Any] = [n for n in map(core.text_length, links_xpath) if n]
        sizes = mylist
    else:
        mylist = []
        for subelem in links_xpath:
            subelemtext = trim(subelem.text_content())
            if subelemtext:
                mylist.append(subelemtext)
        sizes = [len(text) for text in mylist]
    shortelems = sum(1 for size in sizes if size < threshold)
    return sum(sizes), len(mylist), shortelems, mylist


def link_density_test(element: Element, text: str, favor_precision: bool = False) -> Tuple[bool, List[Any]]:
    "Whether a short element is mostly links."
    return _link_density_test(element, len(text), favor_precision)


def _refs(element: Element) -> List[Any]:
    core = core_of(element)
    return list(element.iterdescendants("ref")) if core is None else core.descendants(element, _REF, False)


_REF = ("ref",)


def _nonempty_links(core: Any, element: Element) -> List[Any]:
    "collect_link_info's list on core trees: the non-zero lengths of the ref descendants' texts."
    return [n for n in map(core.text_length, core.descendants(element, _REF, False)) if n]


def _link_density_test(element: Element, elemlen: int, favor_precision: bool) -> Tuple[bool, List[Any]]:
    "link_density_test on the length of the element's trimmed text."
    core = core_of(element)
    if core is not None:
        # the verdict in C; the list it hands back is only tested for emptiness by the callers
        result, with_list = core.link_density_verdict(element, favor_precision, 0.0, True, elemlen)
        return result, (_nonempty_links(core, element) if with_list else [])
    links_xpath, mylist = _refs(element), []
    if links_xpath:
        if element.tag == "p":
            if not favor_precision:
                limitlen = 60 if element.getnext() is None else 30
            else:
                limitlen = 200
        else:
            limitlen = 300 if element.getnext() is None else 100
        threshold = 0.8
        if elemlen < limitlen:
            linklen, elemnum, shortelems, mylist = collect_link_info(links_xpath, favor_precision)
            if elemnum == 0:
                return True, mylist
            if linklen > threshold * elemlen or (elemnum > 1 and shortelems / elemnum > 0.8):
                return True, mylist
    return False, mylist


def link_density_test_tables(element: Element) -> bool:
    "A table over 250 characters that is mostly links (or has only empty links)."
    core = core_of(element)
    if core is not None:
        return core.link_density_table(element, True)
    links_xpath = _refs(element)
    if links_xpath:
        elemlen = len(trim(element.text_content())) if core is None else core.text_length(element)
        if elemlen > 250:
            linklen, elemnum, _, _ = collect_link_info(links_xpath)
            if elemnum == 0:
                return True
            # no test on the share of short links: it did more harm than good (#76)
            return linklen > 0.8 * elemlen if elemlen < 1000 else linklen > 0.5 * elemlen
    return False


def delete_by_link_density(subtree: Element, tagname: str, backtracking: bool = False, favor_precision: bool = False) -> Any:
    """Delete link-heavy elements (``iter`` includes ``subtree`` itself, which
    then leaves its parent); when backtracking, the CHILDREN of short
    elements with links and at least 3 children."""
    core = core_of(subtree)
    if core is not None:
        # the walk, the tests and the deletions in one C pass (accel_prune.pxi)
        return core.delete_by_link_density(subtree, tagname, backtracking, favor_precision, 0.0, True,
                                           _delete_kept_tail)
    deletions: List[Any] = []
    threshold = 200 if favor_precision else 100
    # nothing changes the tree in the loop: the core's snapshot walk is the live iterator's
    elems = subtree.iter(tagname) if core is None else core.descendants(subtree, (tagname,), True)
    for elem in elems:
        elemlen = len(trim(elem.text_content())) if core is None else core.text_length(elem)
        result, templist = _link_density_test(elem, elemlen, favor_precision)
        if result:
            deletions.append(elem)
        elif backtracking and templist:
            if 0 < elemlen < threshold and len(elem) >= 3:
                deletions.extend(elem)
    for elem in _unique(deletions):
        delete_element(elem)
    return subtree


def _unique(elements: List[Any]) -> List[Any]:
    "dict.fromkeys on elements: first occurrence order, by identity."
    seen = set()
    out = []
    for el in elements:
        if id(el) not in seen:
            seen.add(id(el))
            out.append(el)
    return out


def handle_textnode(elem: Element, options: Extractor, comments_fix: bool = True, preserve_spaces: bool = False) -> Any:
    "Trim and filter a text element; a childless, textless one takes its tail as text."
    core = core_of(elem)
    if core is not None:
        # the C version: NotImplemented leaves the element as it was; the element it keeps
        # passed the textfilter, so the reference would count it now (not a kept line break)
        early_lb = not comments_fix and elem.tag == "lb"
        result = core.ex111_handle_textnode(elem, comments_fix, preserve_spaces, textfilter)
        if result is not NotImplemented:
            if result is not None and options.dedup and not early_lb and duplicate_test(elem, options):
                return None
            return result
    if elem.tag == "done" or (len(elem) == 0 and not elem.text and not elem.tail):
        return None
    if not comments_fix and elem.tag == "lb":
        if not preserve_spaces:
            elem.tail = xml_text(trim(elem.tail))
        return elem
    if not elem.text and len(elem) == 0:
        elem.text, elem.tail = xml_text(elem.tail), ""
        if comments_fix and elem.tag == "lb":
            elem.tag = "p"
    if not preserve_spaces:
        elem.text = xml_text(trim(elem.text))
        if elem.tail:
            elem.tail = xml_text(trim(elem.tail))
    if not elem.text and textfilter(elem) or (options.dedup and duplicate_test(elem, options)):
        return None
    return elem


def process_node(elem: Element, options: Extractor) -> Any:
    "Light version of handle_textnode: trim text and tail, tail moves up when there is no text."
    core = core_of(elem)
    if core is not None:
        # the C version: NotImplemented leaves the element as it was; one it keeps with a
        # text or tail passed the textfilter, so the reference would count it now
        result = core.ex111_process_node(elem, RE_FILTER.match)
        if result is not NotImplemented:
            if result is not None and options.dedup and (elem.text or elem.tail) and duplicate_test(elem, options):
                return None
            return result
    if elem.tag == "done" or (len(elem) == 0 and not elem.text and not elem.tail):
        return None
    new_text, new_tail = trim(elem.text), trim(elem.tail)
    elem.text = xml_text(new_text)
    elem.tail = xml_text(new_tail)
    if elem.tag != "lb" and not elem.text and elem.tail:
        elem.text, elem.tail = xml_text(elem.tail), None
    if elem.text or elem.tail:
        if textfilter(elem) or (options.dedup and duplicate_test(elem, options)):
            return None
    return elem


def convert_lists(elem: Element) -> None:
    "<ul>/<ol>/<dl> become <list rend=...>, their li/dd/dt (nested ones too) <item>."
    elem.set("rend", xml_text(elem.tag))
    elem.tag = "list"
    i = 1
    for subelem in elem.iter("dd", "dt", "li"):
        if subelem.tag in ("dd", "dt"):
            subelem.set("rend", f"{subelem.tag}-{i}")
            if subelem.tag == "dd":
                i += 1
        subelem.tag = "item"


def convert_quotes(elem: Element) -> None:
    "<blockquote>/<q> become <quote>; <pre> becomes <code> when it looks like code."
    code_flag = False
    if elem.tag == "pre":
        if len(elem) == 1 and elem[0].tag == "span":
            code_flag = True
        code_elems = [s for s in elem.iterdescendants("span") if (s.get("class") or "").startswith("hljs")]
        if code_elems:
            code_flag = True
            for subelem in code_elems:
                subelem.attrib.clear()
    elem.tag = "code" if code_flag else "quote"


def convert_headings(elem: Element) -> None:
    elem.attrib.clear()
    elem.set("rend", xml_text(elem.tag))
    elem.tag = "head"


def convert_line_breaks(elem: Element) -> None:
    elem.tag = "lb"


def convert_deletions(elem: Element) -> None:
    elem.tag = "del"
    elem.set("rend", "overstrike")


def convert_details(elem: Element) -> None:
    elem.tag = "div"
    for subelem in elem.iter("summary"):
        subelem.tag = "head"


CONVERSIONS = {
    "dl": convert_lists, "ol": convert_lists, "ul": convert_lists,
    "h1": convert_headings, "h2": convert_headings, "h3": convert_headings,
    "h4": convert_headings, "h5": convert_headings, "h6": convert_headings,
    "br": convert_line_breaks, "hr": convert_line_breaks,
    "blockquote": convert_quotes, "pre": convert_quotes, "q": convert_quotes,
    "del": convert_deletions, "s": convert_deletions, "strike": convert_deletions,
    "details": convert_details,
}


def _links_in_containers(tree: Element, containers: frozenset) -> List[Any]:
    "``.//div//a|.//ul//a(|.//table//a)``: links under a container strictly below ``tree``."
    out = []
    for a in tree.iterdescendants("a"):
        node = a.getparent()
        while node is not None and node is not tree:
            if node.tag in containers:
                out.append(a)
                break
            node = node.getparent()
    return out


def _convert_link_tags(tree: Element, url: Any) -> None:
    "options.links: every a/ref becomes <ref target=href>, relative targets resolved against scheme://host."
    base_url = url and get_base_url(url)
    for elem in tree.iter("a", "ref"):
        elem.tag = "ref"
        target = elem.get("href")
        elem.attrib.clear()
        if target:
            if base_url:
                target = fix_relative_urls(base_url, target)
            elem.set("target", xml_text(target))


def _convert_tags_core(core: Any, tree: Element, options: Extractor, url: Any) -> Any:
    "convert_tags on a core tree: the same steps in C, but the links branch."
    if options.links and (url and get_base_url(url) or not core.convert_links(tree)):
        # the C takes the case without a base URL (see 2.3.1's _convert_tags_core)
        _convert_link_tags(tree, url)
    core.convert_tags_111(tree, bool(options.links), bool(options.tables), bool(options.formatting),
                          bool(options.images), convert_quotes)
    return tree


def convert_tags(tree: Element, options: Extractor, url: Any = None) -> Any:
    "Rename links, formatting, lists, headings, breaks, quotes, deletions and details."
    core = core_of(tree)
    if core is not None:
        return _convert_tags_core(core, tree, options, url)
    if not options.links:
        containers = frozenset(("div", "ul", "table")) if options.tables else frozenset(("div", "ul"))
        for elem in _links_in_containers(tree, containers):
            elem.tag = "ref"
        strip_tags(tree, "a")
    else:
        _convert_link_tags(tree, url)
    if options.formatting:
        for elem in tree.iter(*REND_TAG_MAPPING):
            elem.attrib.clear()
            elem.set("rend", REND_TAG_MAPPING[elem.tag])
            elem.tag = "hi"
    else:
        strip_tags(tree, *REND_TAG_MAPPING)
    for elem in tree.iter(*CONVERSIONS):
        CONVERSIONS[elem.tag](elem)
    if options.images:
        for elem in tree.iter("img"):
            elem.tag = "graphic"
    return tree
