"""The fallbacks of trafilatura 1.11.0 (external.py): readability and jusText
(``try_readability``, ``custom_justext``, ``try_justext``),
``compare_extraction`` (its elif decision chain), ``justext_rescue`` and
``sanitize_tree``. jusText 3.0.2 itself is trafila.justext; the language table
is settings.JUSTEXT_LANGUAGES, as upstream."""

from __future__ import annotations

import logging
from typing import Any, List, Tuple

from trafila._engine import NotNative
from trafila._backend import Element, strip_tags
from trafila.justext import (
    ParagraphMaker,
    all_stoplists,
    classify_paragraphs,
    get_stoplist,
    revise_paragraph_classification,
)
from trafila.justext.core import good_paragraph_texts
from trafila.readability_1_11_0 import Document as ReadabilityDocument

from .htmlprocessing import convert_tags, prune_unwanted_nodes, tree_cleaning
from .settings import JUSTEXT_LANGUAGES
from .utils import fromstring_bytes, trim, xml_text
from .xml import TEI_VALID_TAGS
from .xpaths import OVERALL_DISCARD_XPATH, PAYWALL_DISCARD_XPATH, REMOVE_COMMENTS_XPATH

LOGGER = logging.getLogger(__name__)

# './/aside|.//audio|...' as an XPath (body.xpath): descendants with these tags
SANITIZED_TAGS = frozenset((
    "aside", "audio", "button", "fieldset", "figure", "footer", "iframe", "input", "label", "link",
    "nav", "noindex", "noscript", "object", "option", "select", "source", "svg", "time",
))


def try_readability(htmlinput: Any) -> Any:
    """readability's summary, serialised to XML and re-parsed as HTML (lxml.html
    fromstring heuristics included); a <div> when readability fails, None when
    the re-parse fails."""
    try:
        doc = ReadabilityDocument(htmlinput, min_text_length=25, retry_length=250)
        return fromstring_bytes(doc.summary())
    except NotNative:
        raise
    except Exception as err:  # noqa: BLE001 - as upstream
        LOGGER.warning("readability_lxml failed: %s", err)
        return Element("div")


def _method_text(el: Any) -> str:
    "``tostring(el, method='text')``: its text content and its tail."
    if el is None:
        # upstream: tostring(None) raises TypeError, the document is discarded
        raise TypeError("Type 'NoneType' cannot be serialized.")
    return el.text_content() + (el.tail or "")


def _has_p_text(body: Any) -> bool:
    "``body.xpath('.//p//text()')`` is non-empty."
    for p in body.iterdescendants("p"):
        if p.text is not None:
            return True
        for d in p.iterdescendants():
            if d.text is not None or d.tail is not None:
                return True
    return False


def compare_extraction(tree: Any, backup_tree: Any, body: Any, text: str, len_text: int, options: Any) -> Tuple[Any, str, int]:
    "Choose between the own extraction, readability and jusText."
    if options.focus == "recall" and len_text > options.min_extracted_size * 10:
        return body, text, len_text
    use_readability, jt_result = False, False
    backup_tree = prune_unwanted_nodes(backup_tree, PAYWALL_DISCARD_XPATH)
    if options.focus == "precision":
        backup_tree = prune_unwanted_nodes(backup_tree, OVERALL_DISCARD_XPATH)
    temppost_algo = try_readability(backup_tree)
    algo_text = trim(_method_text(temppost_algo))
    len_algo = len(algo_text)
    if len_algo in (0, len_text):
        use_readability = False
    elif len_text == 0 and len_algo > 0:
        use_readability = True
    elif len_text > 2 * len_algo:
        use_readability = False
    elif len_algo > 2 * len_text and not algo_text.startswith("{"):
        use_readability = True
    elif not _has_p_text(body) and len_algo > options.min_extracted_size * 2:
        use_readability = True
    elif (
        sum(1 for _ in body.iterdescendants("table")) > sum(1 for _ in body.iterdescendants("p"))
        and len_algo > options.min_extracted_size * 2
    ):
        use_readability = True
    elif (
        options.focus == "recall"
        and next(body.iterdescendants("head"), None) is None
        and next(temppost_algo.iterdescendants("h2", "h3", "h4"), None) is not None
        and len_algo > len_text
    ):
        use_readability = True
    else:
        use_readability = False
    if use_readability:
        body, text, len_text = temppost_algo, algo_text, len_algo
    if next(body.iterdescendants(*SANITIZED_TAGS), None) is not None or len_text < options.min_extracted_size:
        body2, text2, len_text2, jt_result = justext_rescue(tree, options, body, 0, "")
        if jt_result and not len_text > 4 * len_text2:
            body, text, len_text = body2, text2, len_text2
    if use_readability and not jt_result:
        body, text, len_text = sanitize_tree(body, options)
    return body, text, len_text


def custom_justext(tree: Any, stoplist: Any) -> List[Any]:
    "1.11.0's jusText run: (50, 200, 0.1, 0.2, 0.2, no headings) then 200."
    paragraphs = ParagraphMaker.make_paragraphs(tree)
    classify_paragraphs(paragraphs, stoplist, 50, 200, 0.1, 0.2, 0.2, True)
    revise_paragraph_classification(paragraphs, 200)
    return paragraphs


def try_justext(tree: Any, url: Any, target_language: Any) -> Any:
    """1.11.0's try_justext: (50, 200, 0.1, 0.2, 0.2, no headings), revise 200;
    None on a ValueError of jusText. The <p> texts are set through lxml's
    validating setter upstream (a control character raises ValueError here,
    outside that try)."""
    result_body = Element("body")
    if target_language is not None and target_language in JUSTEXT_LANGUAGES:
        stoplist = get_stoplist(JUSTEXT_LANGUAGES[target_language])
    else:
        # 1.11.0 loads a pickled tuple set-equal to the union of jusText's lists
        stoplist = all_stoplists()
    try:
        # the core's trees: the three jusText steps in one C call, the good texts only
        texts = good_paragraph_texts(tree, stoplist, 50, 200, 0.1, 0.2, 0.2, True, 200)
        if texts is None:
            paragraphs = custom_justext(tree, stoplist)
    except ValueError as err:
        LOGGER.error("justext %s %s", err, url)
        return None
    if texts is not None:
        for text in texts:
            elem = Element("p")
            elem.text = xml_text(text)
            result_body.append(elem)
        return result_body
    for paragraph in [p for p in paragraphs if not p.is_boilerplate]:
        elem = Element("p")
        elem.text = xml_text(paragraph.text)
        result_body.append(elem)
    return result_body


def justext_rescue(tree: Any, options: Any, postbody: Any, len_text: int, text: str) -> Tuple[Any, str, int, bool]:
    "jusText on the cleaned tree (paywall and comment sections pruned first)."
    result_bool = False
    tree = prune_unwanted_nodes(tree, PAYWALL_DISCARD_XPATH)
    tree = prune_unwanted_nodes(tree, REMOVE_COMMENTS_XPATH)
    temppost_algo = try_justext(tree, options.url, options.lang)
    if temppost_algo is not None:
        temp_text = trim(" ".join(temppost_algo.itertext()))
        len_algo = len(temp_text)
        if len_algo > len_text:
            postbody, text, len_text = temppost_algo, temp_text, len_algo
            result_bool = True
    return postbody, text, len_text, result_bool


def sanitize_tree(tree: Any, options: Any) -> Tuple[Any, str, int]:
    """Clean and convert readability's output.

    Upstream also runs ``tree.findall(SANITIZED_XPATH)``, an ElementPath query
    with ``|`` in it: ElementPath reads ``aside|.`` as a tag name, so it never
    matches anything and is left out here."""
    cleaned_tree = tree_cleaning(tree, options)
    if options.links is False:
        strip_tags(cleaned_tree, "a")
    strip_tags(cleaned_tree, "span")
    cleaned_tree = convert_tags(cleaned_tree, options)
    for elem in cleaned_tree.iter("td", "th", "tr"):
        if elem.tag == "tr":
            elem.tag = "row"
        elif elem.tag in ("td", "th"):
            if elem.tag == "th":
                elem.set("role", "head")
            elem.tag = "cell"
    sanitization_list: List[str] = [el.tag for el in cleaned_tree.iter() if el.tag not in TEI_VALID_TAGS]
    strip_tags(cleaned_tree, *sanitization_list)
    text = trim(" ".join(cleaned_tree.itertext()))
    return cleaned_tree, text, len(text)
