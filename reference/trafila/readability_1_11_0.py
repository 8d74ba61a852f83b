"""The readability fork vendored by trafilatura 1.11.0 (readability_lxml.py),
ported onto trafila's element model.

Kept as 1.11.0 has it: the ruthless/lenient retry loop (``retry_length``
compares the length of the SERIALISED summary, markup included, and the second
pass runs on the first pass's output), loops that mutate the tree while
iterating it (lxml's lookahead iterators, provided by trafila.dom), the
div-to-p test on the children's XML serialisation, and the absolute
``//table|//ul|...`` XPath in ``sanitize`` (the whole document of the node,
which for ``get_article``'s output is a ``<html><body><div>`` fragment).

On the compiled core's trees (:func:`trafila._backend.core_of`) the text
lengths, link densities, class weights, unlikely-candidate verdicts and the
misused-div verdicts are computed in C (trafila._core, accel_readability.pxi),
each exactly as here; the loops that mutate the tree stay in Python.

``Document.summary()`` returns the XML serialisation (``tostring(method="xml",
encoding=str)``, in the element model of the tree) of the article.
"""

from __future__ import annotations

import logging
import re
from operator import attrgetter
from typing import Any, Dict, List, Optional

from trafila._backend import Element, SubElement, core_of, tostring_xml
from trafila.text import collapse_whitespace
from trafila.treeops import drop_tree
from trafila.xmlchars import xml_text as _text

LOGGER = logging.getLogger(__name__)

DOT_SPACE = re.compile(r"\.( |$)")

DIV_SCORES = {"div", "article"}
BLOCK_SCORES = {"pre", "td", "blockquote"}
BAD_ELEM_SCORES = {"address", "ol", "ul", "dl", "dd", "dt", "li", "form", "aside"}
STRUCTURE_SCORES = {"h1", "h2", "h3", "h4", "h5", "h6", "th", "header", "footer", "nav"}

TEXT_CLEAN_ELEMS = {"p", "img", "li", "a", "embed", "input"}

REGEXES = {
    "unlikelyCandidatesRe": re.compile(
        r"combx|comment|community|disqus|extra|foot|header|menu|remark|rss|shoutbox|sidebar|sponsor|"
        r"ad-break|agegate|pagination|pager|popup|tweet|twitter",
        re.I,
    ),
    "okMaybeItsACandidateRe": re.compile(r"and|article|body|column|main|shadow", re.I),
    "positiveRe": re.compile(r"article|body|content|entry|hentry|main|page|pagination|post|text|blog|story", re.I),
    "negativeRe": re.compile(
        r"button|combx|comment|com-|contact|figure|foot|footer|footnote|form|input|masthead|media|meta|"
        r"outbrain|promo|related|scroll|shoutbox|sidebar|sponsor|shopping|tags|tool|widget",
        re.I,
    ),
    "videoRe": re.compile(r"https?:\/\/(?:www\.)?(?:youtube|vimeo)\.com", re.I),
}

# upstream searches "<(?:a|blockquote|dl|div|img|ol|p|pre|table|ul)" (re.I) in the
# children's XML serialisation; in XML "<" only starts a tag (text and attribute
# values escape it), so this is a test on the tag names of the children's subtrees
_DIV_TO_P_TAG = re.compile(r"(?:a|blockquote|dl|div|img|ol|p|pre|table|ul)", re.I)

FRAME_TAGS = {"body", "html"}
LIST_TAGS = {"ol", "ul"}


# --- helpers ------------------------------------------------------------------------------

def _trim(string: str) -> str:
    # a long text in pieces, so that Ctrl-C is handled between them (trafila.text)
    return collapse_whitespace(string).strip()


def text_length(elem: Element) -> int:
    core = core_of(elem)
    if core is not None:
        return core.text_length(elem)
    return len(_trim(elem.text_content()))


def _fragment_div() -> Any:
    """``lxml.html.fragment_fromstring("<div/>")``: a <div> that stays the child
    of a <body> in an ``<html>`` document (absolute XPaths see all three)."""
    html = Element("html")
    body = SubElement(html, "body")
    return SubElement(body, "div")


def _tops(node: Element) -> List[Any]:
    "The top elements of the document ``node`` belongs to (where an absolute XPath starts)."
    doc = node.getroottree()
    return list(getattr(doc, "children", None) or ([doc.getroot()] if doc.getroot() is not None else []))


def _absolute(node: Element, tags: frozenset) -> List[Any]:
    "``//t1|//t2...`` from ``node``: matches in the whole document it belongs to."
    out: List[Any] = []
    for top in _tops(node):
        core = core_of(top)
        out.extend(top.iter(*tags) if core is None else core.descendants(top, tags, True))
    return out


class Candidate:
    __slots__ = ["score", "elem"]

    def __init__(self, score: float, elem: Element) -> None:
        self.score = score
        self.elem = elem


_SCRIPT_TAGS = frozenset(("script", "style"))
_SCORE = attrgetter("score")  # lambda c: c.score
_FORM_TAGS = frozenset(("form", "textarea"))
_SANITIZE_TAGS = frozenset(("table", "ul", "div", "aside", "header", "footer", "section"))
_SCORED_TAGS = frozenset(("p", "pre", "td"))
_TEXT_CLEAN_TAGS = frozenset(TEXT_CLEAN_ELEMS)


def _attribute_weight(attribute: str) -> int:
    "class_weight's part for one non-empty class or id value."
    weight = 0
    if REGEXES["negativeRe"].search(attribute):
        weight -= 25
    if REGEXES["positiveRe"].search(attribute):
        weight += 25
    return weight


def _tag_score(tag: str) -> int:
    "score_node's part for the tag (added to the class weight)."
    name = tag.lower()
    if name in DIV_SCORES:
        return 5
    if name in BLOCK_SCORES:
        return 3
    if name in BAD_ELEM_SCORES:
        return -3
    if name in STRUCTURE_SCORES:
        return -5
    return 0


def _unlikely_verdict(attrs: str) -> bool:
    "remove_unlikely_candidates' test on the joined class and id (of an element not html/body)."
    return bool(REGEXES["unlikelyCandidatesRe"].search(attrs)) and not REGEXES["okMaybeItsACandidateRe"].search(attrs)


def _wrap_loose_text(elem: Element) -> None:
    "transform_misused_divs_into_paragraphs' second loop body, for one div."
    if elem.text and elem.text.strip():
        p_elem = Element("p")
        p_elem.text, elem.text = _text(elem.text), None
        elem.insert(0, p_elem)
    for pos, child in reversed(list(enumerate(elem))):
        if child.tail and child.tail.strip():
            p_elem = Element("p")
            p_elem.text, child.tail = _text(child.tail), None
            elem.insert(pos + 1, p_elem)
        if child.tag == "br":
            drop_tree(child)


class Document:
    """readability's Document on an element tree (1.11.0 never parses here:
    it receives trafilatura's tree and mutates it)."""

    __slots__ = ["doc", "min_text_length", "retry_length"]

    def __init__(self, doc: Any, min_text_length: int = 25, retry_length: int = 250) -> None:
        self.doc = doc
        self.min_text_length = min_text_length
        self.retry_length = retry_length

    def summary(self) -> str:
        core = core_of(self.doc)
        if core is None or core.rd_drop_tagged(self.doc, _SCRIPT_TAGS, drop_tree, True) is NotImplemented:
            for elem in self.doc.iter("script", "style"):
                drop_tree(elem)
        ruthless = True
        while True:
            if ruthless:
                self.remove_unlikely_candidates()
            self.transform_misused_divs_into_paragraphs()
            candidates = self.score_paragraphs()
            best_candidate = self.select_best_candidate(candidates)
            if best_candidate:
                article = self.get_article(candidates, best_candidate)
            else:
                if ruthless is True:
                    ruthless = False
                    continue
                article = self.doc.find("body")
                if article is None:
                    article = self.doc
            cleaned_article = self.sanitize(article, candidates)
            article_length = len(cleaned_article or "")
            if ruthless and article_length < self.retry_length:
                # the next pass runs on self.doc, which sanitize() set to this article
                ruthless = False
                continue
            return cleaned_article

    def get_article(self, candidates: Dict[Any, Candidate], best_candidate: Candidate) -> Any:
        sibling_score_threshold = max(10, best_candidate.score * 0.2)
        output = _fragment_div()
        parent = best_candidate.elem.getparent()
        core = core_of(best_candidate.elem) if parent is not None else None
        if core is not None:
            # the verdicts in C (they read no moved node), then the moves
            found = core.rd_article_siblings(best_candidate.elem, candidates, sibling_score_threshold)
            if found is not NotImplemented:
                for sibling in found:
                    output.append(sibling)
                return output
        siblings = list(parent) if parent is not None else [best_candidate.elem]
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
                if (
                    node_length > 80 and link_density < 0.25
                    or (node_length <= 80 and link_density == 0 and DOT_SPACE.search(node_content))
                ):
                    append = True
            if append:
                output.append(sibling)
        return output

    def select_best_candidate(self, candidates: Dict[Any, Candidate]) -> Optional[Candidate]:
        if not candidates:
            return None
        # stable: the first inserted wins among equal scores
        return sorted(candidates.values(), key=_SCORE, reverse=True)[0]

    def get_link_density(self, elem: Element) -> float:
        core = core_of(elem)
        if core is not None:
            return core.link_density(elem)
        total_length = text_length(elem) or 1
        link_length = sum(text_length(link) for link in elem.iterdescendants("a"))
        return link_length / total_length

    def score_paragraphs(self) -> Dict[Any, Candidate]:
        candidates: Dict[Any, Candidate] = {}
        core = core_of(self.doc)
        if core is not None:
            found = core.rd_score_paragraphs(self.doc, self.min_text_length, _attribute_weight, _tag_score, Candidate)
            if found is not NotImplemented:
                return found
        # nothing changes the tree in this loop: a snapshot walks as the live iterator
        elems = self.doc.iter("p", "pre", "td") if core is None else core.descendants(self.doc, _SCORED_TAGS, True)
        for elem in elems:
            parent_node = elem.getparent()
            if parent_node is None:
                continue
            grand_parent_node = parent_node.getparent()
            if core is not None:
                elem_text_len, commas = core.text_stats(elem)
            else:
                elem_text = _trim(elem.text_content())
                elem_text_len, commas = len(elem_text), elem_text.count(",")
            if elem_text_len < self.min_text_length:
                continue
            for node in (parent_node, grand_parent_node):
                if node is not None and node not in candidates:
                    candidates[node] = self.score_node(node)
            # len(elem_text.split(",")): one part more than commas
            score = 1 + (commas + 1) + min((elem_text_len / 100), 3)
            candidates[parent_node].score += score
            if grand_parent_node is not None:
                candidates[grand_parent_node].score += score / 2
        for elem, candidate in candidates.items():
            candidate.score *= 1 - self.get_link_density(elem)
        return candidates

    def class_weight(self, elem: Element) -> int:
        core = core_of(elem)
        if core is not None:
            return core.class_weight(elem, _attribute_weight)
        weight = 0
        for attribute in filter(None, (elem.get("class"), elem.get("id"))):
            weight += _attribute_weight(attribute)
        return weight

    def score_node(self, elem: Element) -> Candidate:
        return Candidate(self.class_weight(elem) + _tag_score(elem.tag), elem)

    def remove_unlikely_candidates(self) -> None:
        core = core_of(self.doc)
        if core is not None:
            # the verdicts, then the drops, in C (no proxy list)
            core.rd_remove_unlikely(self.doc, _unlikely_verdict, drop_tree, True)
            return
        for elem in list(self.doc.iterdescendants()):
            attrs = " ".join(filter(None, (elem.get("class"), elem.get("id"))))
            if len(attrs) < 2:
                continue
            if elem.tag not in FRAME_TAGS and _unlikely_verdict(attrs):
                drop_tree(elem)

    def transform_misused_divs_into_paragraphs(self) -> None:
        core = core_of(self.doc)
        if core is not None:
            # both loops in C (a div whose strings lxml would refuse: _wrap_loose_text)
            core.rd_transform_misused_divs(self.doc, _wrap_loose_text, drop_tree, _DIV_TO_P_TAG.match)
            return
        for elem in list(self.doc.iterdescendants("div")):
            if not any(_DIV_TO_P_TAG.match(d.tag) for child in elem for d in child.iter()):
                elem.tag = "p"
        for elem in list(self.doc.iterdescendants("div")):
            _wrap_loose_text(elem)

    def sanitize(self, node: Element, candidates: Dict[Any, Candidate]) -> str:
        core = core_of(node)
        # the live loops in C where they meet what a snapshot meets (no match inside another)
        if core is None or core.rd_drop_headings(node, _attribute_weight, drop_tree, True) is NotImplemented:
            for header in node.iter("h1", "h2", "h3", "h4", "h5", "h6"):
                if self.class_weight(header) < 0 or self.get_link_density(header) > 0.33:
                    drop_tree(header)
        if core is None or core.rd_drop_tagged(node, _FORM_TAGS, drop_tree, True) is NotImplemented:
            for elem in node.iter("form", "textarea"):
                drop_tree(elem)
        for elem in node.iter("iframe"):
            if "src" in elem.attrib and REGEXES["videoRe"].search(elem.attrib["src"]):
                elem.text = "VIDEO"
            else:
                drop_tree(elem)
        allowed: set = set()
        if core is not None and core.rd_clean_conditionally(
                node, candidates, self.min_text_length, _attribute_weight, drop_tree, _tops(node)) is not NotImplemented:
            self.doc = node
            return tostring_xml(self.doc)
        for elem in reversed(_absolute(node, _SANITIZE_TAGS)):
            if id(elem) in allowed:
                continue
            weight = self.class_weight(elem)
            score = candidates[elem].score if elem in candidates else 0
            if weight + score < 0:
                drop_tree(elem)
            elif (elem.text_content().count(",") if core is None else core.text_stats(elem)[1]) < 10:
                to_remove = False
                counts = dict.fromkeys(TEXT_CLEAN_ELEMS, 0)
                hidden_inputs = 0
                descendants = elem.iterdescendants(*TEXT_CLEAN_ELEMS) if core is None else \
                    core.descendants(elem, _TEXT_CLEAN_TAGS, False)
                for descendant in descendants:
                    counts[descendant.tag] += 1
                    if descendant.tag == "input" and descendant.get("type") == "hidden":
                        hidden_inputs += 1
                counts["li"] -= 100
                counts["input"] -= hidden_inputs
                content_length = text_length(elem)
                link_density = self.get_link_density(elem)
                if counts["p"] and counts["img"] > 1 + counts["p"] * 1.3:
                    to_remove = True
                elif counts["li"] > counts["p"] and elem.tag not in LIST_TAGS:
                    to_remove = True
                elif counts["input"] > (counts["p"] / 3):
                    to_remove = True
                elif content_length < self.min_text_length and counts["img"] == 0:
                    to_remove = True
                elif content_length < self.min_text_length and counts["img"] > 2:
                    to_remove = True
                elif weight < 25 and link_density > 0.2:
                    to_remove = True
                elif weight >= 25 and link_density > 0.5:
                    to_remove = True
                elif (counts["embed"] == 1 and content_length < 75) or counts["embed"] > 1:
                    to_remove = True
                elif not content_length:
                    to_remove = True
                    siblings = []
                    for sib in elem.itersiblings():
                        sib_content_length = text_length(sib)
                        if sib_content_length:
                            siblings.append(sib_content_length)
                            break
                    limit = len(siblings) + 1
                    for sib in elem.itersiblings(preceding=True):
                        sib_content_length = text_length(sib)
                        if sib_content_length:
                            siblings.append(sib_content_length)
                            if len(siblings) >= limit:
                                break
                    if siblings and sum(siblings) > 1000:
                        to_remove = False
                        allowed.update(id(e) for e in elem.iter("table", "ul", "div", "section"))
                if to_remove:
                    drop_tree(elem)
        self.doc = node
        return tostring_xml(self.doc)
