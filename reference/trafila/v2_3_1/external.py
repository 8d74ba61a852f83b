"""External fallbacks of trafilatura 2.3.1 (external.py): ``compare_extraction``
(readability, then jusText), ``try_readability``, ``try_justext``,
``justext_rescue`` and ``sanitize_tree``.

readability and jusText 3.0.2 themselves are ported elsewhere
(trafila.readability_2_3_1 and trafila.justext); this module holds
trafilatura's glue around them, as upstream's external.py does (the language
table is settings.JUSTEXT_LANGUAGES, as upstream).
"""

from __future__ import annotations

import logging
from typing import Any, List, Optional, Tuple

from trafila._backend import core_of, current
from trafila.xmlchars import xml_text

from ._tree import desc_list, iter_desc, strip_tags
from .baseline import basic_cleaning
from .htmlprocessing import convert_tags, prune_unwanted_nodes, tree_cleaning
from .main_extractor import handle_image
from .settings import JUSTEXT_LANGUAGES
from .utils import trim
from .xml import delete_element
from .xpaths import OVERALL_DISCARD_XPATH

LOGGER = logging.getLogger(__name__)

from trafila.justext import (
    ParagraphMaker,
    all_stoplists,
    classify_paragraphs,
    get_stoplist,
    revise_paragraph_classification,
)
from trafila.justext.core import good_paragraph_texts
from trafila.readability_2_3_1 import try_readability as _try_readability

# xml.TEI_VALID_TAGS
TEI_VALID_TAGS = {
    "ab", "body", "cell", "code", "del", "div", "graphic", "head", "hi", "item", "lb", "list", "p", "quote",
    "ref", "row", "table",
}

_SANITIZED_TAGS = frozenset((
    "aside", "audio", "button", "fencedframe", "fieldset", "figure", "footer", "iframe", "input", "label", "link",
    "nav", "noindex", "noscript", "object", "option", "select", "source", "svg", "time",
))

# adopt jusText only when the text it replaces is at most this much longer
JUSTEXT_OVERRIDE_RATIO = 3


def try_readability(htmlinput: Any) -> Any:
    "readability's summary re-parsed as HTML, or an empty HtmlElement."
    return _try_readability(htmlinput)


def _text_serialisation(element: Any) -> str:
    "lxml's tostring(method='text'): the text content and the element's tail."
    core = core_of(element)
    if core is not None:
        # "".join(itertext()) in one C buffer
        return core.text_content(element) + (element.tail or "")
    return "".join(element.itertext()) + (element.tail or "")


def _prefer_readability(body: Any, algo_body: Any, algo_text: str, len_text: int, len_algo: int, options: Any) -> bool:
    "Whether readability's output replaces the own extraction."
    if len_algo in (0, len_text):
        return False
    if len_text > 2 * len_algo:
        return False
    if len_text == 0:
        return True
    if len_algo > 2 * len_text and not algo_text.startswith("{"):
        return True
    if len_algo > options.min_extracted_size * 2:
        body_desc = desc_list(body)
        paragraphs = [e for e in body_desc if e.tag == "p"]
        # .//p//text(): any text node inside a <p>
        has_p_text = any(t is not None for p in paragraphs for t in p.itertext())
        tables = sum(1 for e in body_desc if e.tag == "table")
        if not has_p_text or tables > len(paragraphs):
            return True
    if options.focus == "recall" and len_algo > 1.5 * len_text and not algo_text.startswith("{"):
        return True
    if (
        options.focus == "recall"
        and next(iter_desc(body, "head"), None) is None
        and any(e.tag in ("h2", "h3", "h4") for e in (algo_body, *desc_list(algo_body)))
        and len_algo > len_text
    ):
        return True
    return False


def compare_extraction(cleaned_tree: Any, raw_tree: Any, body: Any, text: str, options: Any) -> Tuple[Any, str]:
    "Own extraction vs readability, then jusText for unclean or short results."
    len_text = len(text)
    if options.focus == "recall" and len_text > options.min_extracted_size * 10:
        return body, text
    if options.focus == "precision":
        raw_tree = prune_unwanted_nodes(raw_tree, OVERALL_DISCARD_XPATH)

    temppost_algo = try_readability(raw_tree)
    algo_text = trim(_text_serialisation(temppost_algo))
    len_algo = len(algo_text)

    use_readability = _prefer_readability(body, temppost_algo, algo_text, len_text, len_algo, options)
    if use_readability:
        body, text, len_text = temppost_algo, algo_text, len_algo

    core = core_of(body)
    if core is not None:
        # the matching descendants only (a snapshot, as desc_list)
        unclean = bool(core.descendants(body, _SANITIZED_TAGS))
    else:
        unclean = any(e.tag in _SANITIZED_TAGS for e in desc_list(body))
    if unclean or len_text < options.min_extracted_size:
        body2, text2 = justext_rescue(cleaned_tree, options)
        len_text2 = len(text2)
        if unclean:
            accept = len_text <= JUSTEXT_OVERRIDE_RATIO * len_text2 and (
                len_text2 > len_text or not options.images or next(iter_desc(body, "graphic"), None) is None
            )
        else:
            accept = len_text < len_text2
        if text2 and accept:
            body, text, len_text = body2, text2, len_text2
            use_readability = False

    if use_readability:
        body, text = sanitize_tree(body, options)
    return body, text


def choose_stoplist(target_language: Optional[str]) -> Any:
    """The language's jusText stoplist when JUSTEXT_LANGUAGES maps it, else the
    union of all lists (upstream: ``JT_STOPLIST or jt_stoplist_init()``)."""
    if target_language in JUSTEXT_LANGUAGES:
        return get_stoplist(JUSTEXT_LANGUAGES[target_language])
    return all_stoplists()


def justext_paragraphs(tree: Any, stoplist: Any) -> List[Any]:
    "try_justext's jusText run: (50, 150, 0.1, 0.2, 0.25, no headings) then 150."
    paragraphs = ParagraphMaker.make_paragraphs(tree)
    classify_paragraphs(paragraphs, stoplist, 50, 150, 0.1, 0.2, 0.25, True)
    revise_paragraph_classification(paragraphs, 150)
    return paragraphs


def try_justext(tree: Any, url: Any, target_language: Any) -> Any:
    """A ``<body>`` of jusText's good paragraphs as ``<p>``; any exception of
    jusText is logged and gives an empty ``<body>``, as upstream."""
    stoplist = choose_stoplist(target_language)
    try:
        # the core's trees: the three jusText steps in one C call, the good texts only
        texts = good_paragraph_texts(tree, stoplist, 50, 150, 0.1, 0.2, 0.25, True, 150)
        if texts is None:
            paragraphs = justext_paragraphs(tree, stoplist)
    except Exception as err:  # upstream catches everything here
        LOGGER.error("justext %s %s", err, url)
        return current().Element("body")
    make = current().Element
    body = make("body")
    if texts is not None:
        for text in texts:
            p = make("p")
            p.text = xml_text(text)
            body.append(p)
        return body
    for paragraph in paragraphs:
        if not paragraph.is_boilerplate:
            p = make("p")
            # upstream assigns outside its try: lxml's ValueError for U+FFFE,
            # C0 controls or surrogates in a paragraph reaches bare_extraction
            p.text = xml_text(paragraph.text)
            body.append(p)
    return body


def justext_rescue(tree: Any, options: Any) -> Tuple[Any, str]:
    "jusText on the basic-cleaned tree."
    temppost_algo = try_justext(basic_cleaning(tree), options.url, options.lang)
    return temppost_algo, trim(" ".join(temppost_algo.itertext()))


def sanitize_tree(tree: Any, options: Any) -> Tuple[Any, str]:
    "Clean, convert and restrict readability's output to the TEI tags."
    cleaned_tree = tree_cleaning(tree, options)
    strip_tags(cleaned_tree, "span", *(() if options.links else ("a",)))
    cleaned_tree = convert_tags(cleaned_tree, options, options.url)
    for elem in [e for e in (cleaned_tree, *desc_list(cleaned_tree)) if e.tag == "graphic"]:
        image = handle_image(elem, options)
        if image is None:
            delete_element(elem)
        else:
            elem.attrib.clear()
            for key, value in image.attrib.items():
                elem.set(key, value)
    # the first <th>-holding row of each parent group is the head row
    seen_group_elems: set = set()
    for tr in [e for e in (cleaned_tree, *desc_list(cleaned_tree)) if e.tag == "tr"]:
        parent = tr.getparent()
        if parent not in seen_group_elems and any(c.tag == "th" for c in tr[:]):
            seen_group_elems.add(parent)
            for c in [c for c in tr[:] if c.tag == "th"]:
                c.set("role", "head")
    for elem in [e for e in (cleaned_tree, *desc_list(cleaned_tree)) if e.tag in ("td", "th", "tr")]:
        elem.tag = "row" if elem.tag == "tr" else "cell"
    unwanted = {str(e.tag) for e in (cleaned_tree, *desc_list(cleaned_tree))} - TEI_VALID_TAGS
    if unwanted:
        strip_tags(cleaned_tree, *unwanted)
    return cleaned_tree, trim(" ".join(cleaned_tree.itertext()))
