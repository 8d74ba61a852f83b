"""The readability fork vendored by trafilatura 2.3.1 (``trafilatura/readability_lxml.py``).

Upstream: a fork of python-readability (Apache-2.0; arc90's readability via the
Ruby and Python ports), trimmed by trafilatura.  Ported here onto trafila's
element model.

trafilatura's ``try_readability`` runs ``Document(tree, min_text_length=25)``,
whose ``summary()`` serialises the chosen subtree with
``lxml.etree.tostring(node, encoding=str, method="xml")``, then re-parses that
string with its HTML parser (``utils.fromstring_bytes``).  This module exposes
each stage:

* :meth:`Document.summary_tree` -- the element ``summary()`` serialises (the
  tree before serialisation; it may keep a tail, which ``tostring`` includes);
* :meth:`Document.summary` -- the serialised string
  (``trafila.html.serialize.tostring``);
* :func:`reparse_summary` -- ``fromstring_bytes`` of that string;
* :func:`try_readability` -- the whole of trafilatura 2.3.1's ``try_readability``.

The input tree is mutated, as upstream.  Every text/tail assignment is checked
like lxml's setter (:func:`trafila.xmlchars.xml_text`): a string lxml would
refuse makes ``summary`` raise, and ``try_readability`` then falls back.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from math import sqrt
from operator import attrgetter
from typing import Dict, Iterable, List, Optional

from ._backend import core_of, current
from .dom import Document as _DomDocument
from .dom import Element  # annotations; trees are made through current()
from .dom import iselement as _is_dom_element
from .text import collapse_whitespace
from .treeops import drop_tree
from .xmlchars import xml_text

LOGGER = logging.getLogger(__name__)

__all__ = [
    "Candidate",
    "Document",
    "is_node_visible",
    "is_probably_readerable",
    "reparse_summary",
    "summary_tree",
    "text_length",
    "try_readability",
]

DOT_SPACE = re.compile(r"\.( |$)")

TAG_SCORES = {
    **dict.fromkeys(("div", "article"), 5),
    **dict.fromkeys(("pre", "td", "blockquote"), 3),
    **dict.fromkeys(("address", "ol", "ul", "dl", "dd", "dt", "li", "form", "aside"), -3),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6", "th", "header", "footer", "nav"), -5),
}

TEXT_CLEAN_ELEMS = frozenset({"p", "img", "li", "a", "embed", "input"})

REGEXES = {
    # matched against lower-cased attributes
    "unlikelyCandidatesRe": re.compile(
        r"combx|comment|community|disqus|extra|foot|header|menu|remark|rss|shoutbox|sidebar|sponsor"
        r"|ad-break|agegate|pagination|pager|popup|tweet|twitter"
    ),
    "okMaybeItsACandidateRe": re.compile(r"and|article|body|column|content|main|shadow"),
    "positiveRe": re.compile(
        r"article|body|content|entry|hentry|main|page|pagination|post|text|blog|story",
        re.IGNORECASE,
    ),
    "negativeRe": re.compile(
        r"button|combx|comment|com-|contact|figure|foot|footer|footnote|form|input|masthead|media"
        r"|meta|outbrain|promo|related|scroll|shoutbox|sidebar|sponsor|shopping|tags|tool|widget",
        re.IGNORECASE,
    ),
    "videoRe": re.compile(r"https?:\/\/(?:www\.)?(?:youtube|vimeo)\.com", re.IGNORECASE),
}

# a descendant whose tag STARTS with one of these keeps a div from becoming a <p>
# (a prefix test: "pre", "picture", "dialog", "tbody"... all count)
DIV_TO_P_PREFIXES = ("address", "article", "aside", "audio", "blockquote", "dl", "div", "img", "ol", "p", "table", "ul")

FRAME_TAGS = frozenset({"body", "html"})
LIST_TAGS = frozenset({"ol", "ul"})

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
CONDITIONALLY_CLEANED = frozenset({"table", "ul", "div", "aside", "header", "footer", "section"})

# XPath normalize-space() strips XML whitespace only
_XML_SPACE = " \t\r\n"


# -- tree helpers (snapshots: every upstream loop either lists its iterator
#    first or does not mutate while iterating, so a list is equivalent) --------

def _preorder(top: Element, names: Optional[frozenset] = None, include_self: bool = True) -> List[Element]:
    """lxml ``iter(*names)`` (or ``iterdescendants``) as a list, document order."""
    core = core_of(top)
    if core is not None:
        return core.descendants(top, names, include_self)
    found: List[Element] = []
    stack = [top] if include_self else list(reversed(top.getchildren()))
    while stack:
        node = stack.pop()
        if names is None or node.tag in names:
            found.append(node)
        children = node.getchildren()
        if children:
            children.reverse()
            stack.extend(children)
    return found


def _has_descendant(top: Element, tag: str) -> bool:
    """``top.find('.//' + tag) is not None``."""
    stack = top.getchildren()
    while stack:
        node = stack.pop()
        if node.tag == tag:
            return True
        stack.extend(node.getchildren())
    return False


def _set_text(el: Element, value: Optional[str]) -> None:
    el.text = xml_text(value)


def _fragment(tag: str) -> Element:
    """lxml.html ``fragment_fromstring('<tag/>')``: the element is the only child
    of a ``<body>`` in a new ``<html>`` document -- so it has a parent, and
    ``drop_tree`` on it succeeds."""
    make = current().Element
    html = make("html")
    body = make("body")
    element = make(tag)
    html.append(body)
    body.append(element)
    if _is_dom_element(html):
        # trafila.dom's Element() has no document; the core's is a document's root already
        document = _DomDocument()
        document.append_root(html)
    return element


def _has_loose_text(el: Element) -> bool:
    """XPath ``text()[normalize-space()]`` is not empty: a text node child
    (the text, or a child's tail) holds a non-XML-whitespace character."""
    if el.text and el.text.strip(_XML_SPACE):
        return True
    return any(child.tail and child.tail.strip(_XML_SPACE) for child in el.getchildren())


def trim(string: str) -> str:
    """trafilatura ``utils.trim``: collapse whitespace runs, strip (a long text in pieces, so
    that Ctrl-C is handled between them: trafila.text.collapse_whitespace)."""
    return collapse_whitespace(string).strip()


def text_length(elem: Element) -> int:
    "Length of the element's trimmed text content."
    core = core_of(elem)
    if core is not None:
        return core.text_length(elem)
    return len(trim(elem.text_content()))


@dataclass(eq=False)
class Candidate:
    "A scored candidate element."

    __slots__ = ("score", "elem")
    score: float
    elem: Element


class Document:
    """A tree to extract the main content from (mutated by :meth:`summary`)."""

    __slots__ = ["doc", "min_text_length"]

    def __init__(self, doc: Element, min_text_length: int = 25) -> None:
        self.doc = doc
        self.min_text_length = min_text_length

    # -- entry points ------------------------------------------------------
    def summary_tree(self) -> Element:
        """The element ``summary()`` serialises, after all cleaning."""
        _drop_tagged(self.doc, _SCRIPT_TAGS)

        self.remove_unlikely_candidates()
        self.transform_misused_divs_into_paragraphs()
        candidates = self.score_paragraphs()
        best_candidate = self.select_best_candidate(candidates)
        if best_candidate:
            article = self.get_article(candidates, best_candidate)
        else:
            LOGGER.debug("No candidate found, returning raw html")
            body = next((child for child in self.doc.getchildren() if child.tag == "body"), None)
            article = body if body is not None else self.doc
        return self.sanitize_tree(article, candidates)

    def summary(self) -> str:
        """``tostring(summary_tree(), encoding=str, method="xml")`` (the tail included)."""
        return current().tostring_xml(self.summary_tree())

    # -- steps ---------------------------------------------------------------
    def get_article(self, candidates: Dict[Element, Candidate], best_candidate: Candidate) -> Element:
        """The best candidate and its related siblings, moved into a new ``<div>``."""
        sibling_score_threshold = max(10, best_candidate.score * 0.2)
        output = _fragment("div")
        parent = best_candidate.elem.getparent()
        core = core_of(best_candidate.elem) if parent is not None else None
        if core is not None:
            # the verdicts in C (they read no moved node), then the moves
            found = core.rd_article_siblings(best_candidate.elem, candidates, sibling_score_threshold)
            if found is not NotImplemented:
                for sibling in found:
                    output.append(sibling)
                return output
        siblings = parent.getchildren() if parent is not None else [best_candidate.elem]
        for sibling in siblings:
            append = False
            if sibling is best_candidate.elem or (
                sibling in candidates and candidates[sibling].score >= sibling_score_threshold
            ):
                append = True
            elif sibling.tag == "p":
                link_density = self.get_link_density(sibling)
                node_content = sibling.text or ""
                node_length = len(node_content)
                if (node_length > 80 and link_density < 0.25) or (
                    node_length <= 80 and link_density == 0 and DOT_SPACE.search(node_content)
                ):
                    append = True
            if append:
                # moves the sibling (with its tail) out of the document
                output.append(sibling)
        return output

    def select_best_candidate(self, candidates: Dict[Element, Candidate]) -> Optional[Candidate]:
        # max() keeps the first of equal scores, in candidate insertion order
        return max(candidates.values(), key=_SCORE, default=None)

    def get_link_density(self, elem: Element) -> float:
        core = core_of(elem)
        if core is not None:
            return core.link_density(elem)
        total_length = text_length(elem) or 1
        link_length = sum(text_length(link) for link in _preorder(elem, frozenset({"a"}), include_self=False))
        return link_length / total_length

    def score_paragraphs(self) -> Dict[Element, Candidate]:
        core = core_of(self.doc)
        if core is not None:
            found = core.rd_score_paragraphs(self.doc, self.min_text_length, _attribute_weight, _tag_score, Candidate)
            if found is not NotImplemented:
                return found
        candidates: Dict[Element, Candidate] = {}
        for elem in _preorder(self.doc, frozenset({"p", "pre", "td"})):
            parent_node = elem.getparent()
            if parent_node is None:
                continue
            grand_parent_node = parent_node.getparent()

            core = core_of(elem)
            if core is not None:
                elem_text_len, commas = core.text_stats(elem)
            else:
                elem_text = trim(elem.text_content())
                elem_text_len = len(elem_text)
                commas = elem_text.count(",")
            if elem_text_len < self.min_text_length:
                continue

            for node in (parent_node, grand_parent_node):
                if node is not None and node not in candidates:
                    candidates[node] = self.score_node(node)

            # len(elem_text.split(",")): one more part than commas
            score = 1 + (commas + 1) + min((elem_text_len / 100), 3)
            candidates[parent_node].score += score
            if grand_parent_node is not None:
                candidates[grand_parent_node].score += score / 2

        # scale by link density: good content has few links
        for elem, candidate in candidates.items():
            candidate.score *= 1 - self.get_link_density(elem)
        return candidates

    def class_weight(self, elem: Element) -> float:
        core = core_of(elem)
        if core is not None:
            return core.class_weight(elem, _attribute_weight)
        weight = 0
        for attribute in (elem.get("class"), elem.get("id")):
            if not attribute:
                continue
            weight += _attribute_weight(attribute)
        return weight

    def score_node(self, elem: Element) -> Candidate:
        return Candidate(self.class_weight(elem) + _tag_score(elem.tag), elem)

    def remove_unlikely_candidates(self) -> None:
        core = core_of(self.doc)
        if core is not None:
            # the verdicts, then the drops, in C (no proxy list)
            core.rd_remove_unlikely(self.doc, _unlikely_verdict, drop_tree)
            return
        verdicts: Dict[str, bool] = {}
        for elem in _preorder(self.doc, include_self=False):
            attrs = " ".join(value for value in (elem.get("class"), elem.get("id")) if value)
            if len(attrs) < 2 or elem.tag in FRAME_TAGS:
                continue
            verdict = verdicts.get(attrs)
            if verdict is None:
                verdict = verdicts[attrs] = _unlikely_verdict(attrs)
            if verdict:
                # elements already cut off with an ancestor are dropped inside the cut subtree
                drop_tree(elem)

    def transform_misused_divs_into_paragraphs(self) -> None:
        core = core_of(self.doc)
        if core is not None:
            # both loops in C (a div whose strings lxml would refuse: _wrap_loose_text)
            core.rd_transform_misused_divs(self.doc, _wrap_loose_text, drop_tree)
            return
        # 1. a div without block descendants becomes a <p>; a link wrapper only with loose text
        for elem in _preorder(self.doc, frozenset({"div"}), include_self=False):
            if not any(
                str(e.tag).startswith(DIV_TO_P_PREFIXES) for e in _preorder(elem, include_self=False)
            ) and (not _has_descendant(elem, "a") or _has_loose_text(elem)):
                elem.tag = "p"

        # 2. loose text in the remaining divs is wrapped in <p>, <br> children are dropped
        for elem in _preorder(self.doc, frozenset({"div"}), include_self=False):
            _wrap_loose_text(elem)

    def sanitize(self, node: Element, candidates: Dict[Element, Candidate]) -> str:
        """Upstream ``sanitize``: clean ``node`` and serialise it (XML method, tail included)."""
        return current().tostring_xml(self.sanitize_tree(node, candidates))

    def sanitize_tree(self, node: Element, candidates: Dict[Element, Candidate]) -> Element:
        """Upstream ``sanitize`` without its final ``tostring``."""
        core = core_of(node)
        if core is not None:
            core.rd_drop_headings(node, _attribute_weight, drop_tree)
        else:
            for header in _preorder(node, HEADING_TAGS):
                if self.class_weight(header) < 0 or self.get_link_density(header) > 0.33:
                    drop_tree(header)

        _drop_tagged(node, _FORM_TAGS)

        for elem in _preorder(node, frozenset({"iframe"})):
            if "src" in elem.attrib and REGEXES["videoRe"].search(elem.attrib["src"]):
                _set_text(elem, "VIDEO")  # so that the serialiser writes <iframe></iframe>
            else:
                drop_tree(elem)

        # conditionally clean tables, lists, divs and sections, innermost last-first
        # (the core's loop in C, unless the debug log would show its reasons)
        if core is not None and not LOGGER.isEnabledFor(logging.DEBUG):
            if core.rd_clean_conditionally(node, candidates, self.min_text_length, _attribute_weight,
                                           drop_tree) is not NotImplemented:
                return node
        for elem in reversed(_preorder(node, CONDITIONALLY_CLEANED)):
            weight = self.class_weight(elem)
            score = candidates[elem].score if elem in candidates else 0
            if weight + score < 0:
                LOGGER.debug("Removed %s with score %6.3f and weight %-3s", elem.tag, score, weight)
                drop_tree(elem)
            elif (core.text_stats(elem)[1] if core is not None else elem.text_content().count(",")) < 10:
                to_remove = True
                counts = dict.fromkeys(TEXT_CLEAN_ELEMS, 0)
                hidden_inputs = 0
                for descendant in _preorder(elem, TEXT_CLEAN_ELEMS, include_self=False):
                    counts[descendant.tag] += 1
                    if descendant.tag == "input" and descendant.get("type") == "hidden":
                        hidden_inputs += 1
                counts["li"] -= 100
                counts["input"] -= hidden_inputs

                content_length = text_length(elem)
                link_density = self.get_link_density(elem)
                if counts["p"] and counts["img"] > 1 + counts["p"] * 1.3:
                    reason = "too many images"
                elif counts["li"] > counts["p"] and elem.tag not in LIST_TAGS:
                    reason = "more <li>s than <p>s"
                elif counts["input"] > (counts["p"] / 3):
                    reason = "less than 3x <p>s than <input>s"
                elif content_length < self.min_text_length and counts["img"] == 0:
                    reason = "too short content length without a single image"
                elif content_length < self.min_text_length and counts["img"] > 2:
                    reason = "too short content length and too many images"
                elif link_density > (0.5 if weight >= 25 else 0.2):
                    reason = "too many links for its weight"
                elif (counts["embed"] == 1 and content_length < 75) or counts["embed"] > 1:
                    reason = "<embed>s with too short content length, or too many <embed>s"
                elif not content_length:
                    reason = "no content"
                    # kept between long neighbours: the nearest non-empty sibling on each side
                    to_remove = _nearest_text_lengths(elem) <= 1000
                else:
                    to_remove = False

                if to_remove:
                    drop_tree(elem)
                    LOGGER.debug("Removed %6.3f %s with weight %s cause it has %s.", score, elem.tag, weight, reason)
        return node


def _wrap_loose_text(elem: Element) -> None:
    "transform_misused_divs_into_paragraphs' second loop body, for one div."
    if elem.text and elem.text.strip():
        p_elem = _fragment("p")
        _set_text(p_elem, elem.text)
        elem.text = None
        elem.insert(0, p_elem)

    for pos, child in reversed(list(enumerate(elem.getchildren()))):
        if child.tail and child.tail.strip():
            p_elem = _fragment("p")
            _set_text(p_elem, child.tail)
            child.tail = None
            elem.insert(pos + 1, p_elem)
        if child.tag == "br":
            # a whitespace-only tail stays: drop_tree joins it to the previous text
            drop_tree(child)


def _attribute_weight(attribute: str) -> int:
    "class_weight's part for one (non-empty) class or id value."
    weight = 0
    if REGEXES["negativeRe"].search(attribute):
        weight -= 25
    if REGEXES["positiveRe"].search(attribute):
        weight += 25
    return weight


_SCRIPT_TAGS = frozenset({"script", "style", "fencedframe"})
_SCORE = attrgetter("score")  # lambda candidate: candidate.score
_FORM_TAGS = frozenset({"form", "textarea"})


def _tag_score(tag: str) -> int:
    "score_node's part for the tag."
    return TAG_SCORES.get(str(tag).lower(), 0)


def _drop_tagged(top: Element, names: frozenset) -> None:
    "``_drop_all(top, _preorder(top, names))`` (in C on the core's trees)."
    core = core_of(top)
    if core is not None and core.rd_drop_tagged(top, names, drop_tree) is not NotImplemented:
        return
    _drop_all(top, _preorder(top, names))


def _drop_all(top: Element, elements: List[Element]) -> None:
    "``drop_tree`` on each element in order (the core does it in C on its trees)."
    core = core_of(top)
    if core is not None:
        core.drop_trees(elements, drop_tree)
        return
    for elem in elements:
        drop_tree(elem)


def _unlikely_verdict(attrs: str) -> bool:
    "remove_unlikely_candidates' verdict on a joined ``class id`` string."
    low = attrs.lower()
    return bool(REGEXES["unlikelyCandidatesRe"].search(low)) and not REGEXES["okMaybeItsACandidateRe"].search(low)


def _first_nonzero_length(siblings: Iterable[Element]) -> int:
    for sibling in siblings:
        length = text_length(sibling)
        if length:
            return length
    return 0


def _nearest_text_lengths(elem: Element) -> int:
    """Text length of the nearest non-empty following plus preceding sibling."""
    return _first_nonzero_length(elem.itersiblings()) + _first_nonzero_length(elem.itersiblings(preceding=True))


def summary_tree(doc: Element, min_text_length: int = 25) -> Element:
    """``Document(doc, min_text_length).summary_tree()``."""
    return Document(doc, min_text_length=min_text_length).summary_tree()


def reparse_summary(markup: str) -> Optional[Element]:
    """trafilatura 2.3.1 ``utils.fromstring_bytes``: parse the UTF-8 bytes of
    ``markup`` (surrogates passed through) with the HTML parser; None on error."""
    try:
        return current().fromstring(markup.encode("utf8", "surrogatepass"))
    except Exception as err:  # upstream logs any parser error and returns None
        LOGGER.error("lxml parser bytestring %s", err)
    return None


def _reparse_utf8(data: bytes) -> Optional[Element]:
    "``reparse_summary(markup)`` given ``markup.encode('utf8', 'surrogatepass')``."
    try:
        return current().fromstring(data)
    except Exception as err:  # upstream logs any parser error and returns None
        LOGGER.error("lxml parser bytestring %s", err)
    return None


def empty_html_element() -> Element:
    """What ``lxml.html.HtmlElement()`` makes: an element named after its class."""
    return current().Element("HtmlElement")


def try_readability(htmlinput: Element) -> Element:
    """trafilatura 2.3.1 ``external.try_readability``: the re-parsed summary,
    or an empty ``HtmlElement`` when anything fails."""
    try:
        doc = Document(htmlinput, min_text_length=25)
        core = core_of(htmlinput)
        if core is not None:
            # the UTF-8 of summary() straight from the serialiser (None: the str path)
            tree = doc.summary_tree()
            tree_core = core_of(tree)
            data = tree_core.rd_tostring_xml_utf8(tree) if tree_core is not None else None
            summary = _reparse_utf8(data) if data is not None else reparse_summary(current().tostring_xml(tree))
        else:
            summary = reparse_summary(doc.summary())
        return summary if summary is not None else empty_html_element()
    except Exception as err:
        LOGGER.warning("readability_lxml failed: %s", err)
        return empty_html_element()


# -- isProbablyReaderable (mozilla/readability.js, Apache-2.0, via the fork) ----

REGEXPS = {
    "unlikelyCandidates": re.compile(
        r"-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr"
        r"|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor"
        r"|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote"
    ),
}

DISPLAY_NONE = re.compile(r"display:\s*none", re.IGNORECASE)


def is_node_visible(node: Element) -> bool:
    """Not hidden by style, ``hidden`` or ``aria-hidden`` (unless a fallback image)."""
    if "style" in node.attrib and DISPLAY_NONE.search(node.get("style", "")):
        return False
    if "hidden" in node.attrib:
        return False
    if node.get("aria-hidden") == "true" and "fallback-image" not in node.get("class", ""):
        return False
    return True


def is_probably_readerable(doc: Optional[Element], options: Optional[dict] = None) -> bool:
    """``is_probably_readerable`` on an already loaded tree (upstream first runs
    ``load_html`` on its argument; pass its result, None gives False)."""
    options = options or {}
    if doc is None:
        return False
    min_content_length = options.get("min_content_length", 140)
    min_score = options.get("min_score", 20)
    visibility_checker = options.get("visibility_checker", is_node_visible)

    # upstream collects a set, so the order nodes are scored in is arbitrary there;
    # only the early exit depends on it, and the answer does not
    nodes = {id(n): n for n in _preorder(doc, frozenset({"p", "pre", "article"}), include_self=False)}
    for br in _preorder(doc, frozenset({"br"}), include_self=False):
        parent = br.getparent()
        # ".//div/br": the div is a descendant, not doc itself
        if parent is not None and parent is not doc and parent.tag == "div":
            nodes[id(parent)] = parent

    score = 0.0
    for node in nodes.values():
        if not visibility_checker(node):
            continue
        class_and_id = f"{node.get('class', '')} {node.get('id', '')}".lower()
        if REGEXPS["unlikelyCandidates"].search(class_and_id) and not REGEXES["okMaybeItsACandidateRe"].search(
            class_and_id
        ):
            continue
        parent = node.getparent()
        if parent is not None and parent.tag == "li" and any(c.tag == "p" for c in parent.getchildren()):
            continue
        text_content_length = len(node.text_content().strip())
        if text_content_length < min_content_length:
            continue
        score += sqrt(text_content_length - min_content_length)
        if score > min_score:
            return True
    return False
