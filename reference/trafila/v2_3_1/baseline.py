"""Baseline extraction of trafilatura 2.3.1 (baseline.py): ``baseline``,
``html2txt``, ``basic_cleaning`` and the embedded-JSON strategies."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import TYPE_CHECKING, Any, Iterable, List, Optional, Tuple

from .._backend import core_of
from ._tree import Element, SubElement, copy_tree, desc_list, iter_desc
from ..xmlchars import xml_text
from .settings import DEDUPE_SCAN_CAP, MIN_DUPLICATE_LENGTH
from .utils import load_html, parse_fragment, remove_control_characters, trim
from .xml import delete_element
from .xpaths import basic_clean_xpath

if TYPE_CHECKING:
    from trafila.dom import Element as _Element  # the class (._tree's Element is the factory)

_HTML_TAG_NAMES = (
    "a|abbr|address|article|aside|b|blockquote|body|br|caption|cite|code|dd|del|div|dl|dt|"
    "em|figcaption|figure|footer|h[1-6]|head|header|hr|html|i|img|ins|kbd|li|main|mark|nav|"
    "ol|p|pre|q|quote|s|section|small|span|strong|sub|summary|sup|table|tbody|td|tfoot|th|"
    "thead|time|title|tr|u|ul"
)
_HTML_MARKUP = re.compile(rf"</({_HTML_TAG_NAMES})>|<({_HTML_TAG_NAMES})(\s[^<>]*=[^<>]*)?/?>", re.IGNORECASE)

_JSON_TEXT_KEYS = ("articleBody", "reviewBody")
_DESCRIPTION_TYPES = ("Product", "VideoObject")
_JSON_HOOKS = (
    *_JSON_TEXT_KEYS,
    "recipeInstructions",
    "acceptedAnswer",
    *tuple(f'"{t}"' for t in (*_DESCRIPTION_TYPES, "HowTo")),
)
_JSON_HOOKS_RE = re.compile("|".join(re.escape(hook) for hook in _JSON_HOOKS))
_MIN_CONTENT_LENGTH = 100


def as_list(value: Any) -> List[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def basic_cleaning(tree: _Element) -> Any:
    "Delete aside/footer/script/style/svg/template and cookie banners (tails kept)."
    for elem in basic_clean_xpath(tree):
        delete_element(elem)
    return tree


def _walk_json(node: _Element, bodies: List[str], teasers: List[str]) -> None:
    "schema.org text content of parsed JSON-LD (lists, @graph and mainEntity followed)."
    for item in as_list(node):
        if not isinstance(item, dict):
            continue
        bodies.extend(item[key] for key in _JSON_TEXT_KEYS if isinstance(item.get(key), str) and item[key])
        for key in ("recipeInstructions", "step"):
            for step in as_list(item.get(key)):
                if isinstance(step, str):
                    bodies.append(step)
                elif isinstance(step, dict):
                    subs = [step, *as_list(step.get("itemListElement"))]
                    bodies.extend(sub["text"] for sub in subs if isinstance(sub, dict) and isinstance(sub.get("text"), str))
        answer = item.get("acceptedAnswer")
        if isinstance(answer, dict) and isinstance(answer.get("text"), str):
            bodies.append(answer["text"])
        if any(t in str(item.get("@type", "")) for t in _DESCRIPTION_TYPES) and isinstance(item.get("description"), str):
            teasers.append(item["description"])
        for container in ("@graph", "mainEntity"):
            _walk_json(item.get(container), bodies, teasers)


def _discourse_texts(tree: _Element) -> List[str]:
    "Discourse forum posts preloaded as JSON in an attribute."
    node = next((e for e in iter_desc(tree, "div") if e.get("id") == "data-preloaded"), None)
    if node is None:
        return []
    try:
        preloaded = json.loads(node.get("data-preloaded") or "")
    except Exception:  # noqa: BLE001
        return []
    if not isinstance(preloaded, dict):
        return []
    texts: List[str] = []
    for key, value in preloaded.items():
        if not key.startswith("topic_"):
            continue
        try:
            posts = json.loads(value)["post_stream"]["posts"]
        except Exception:  # noqa: BLE001
            continue
        texts.extend(post["cooked"] for post in posts if isinstance(post, dict) and isinstance(post.get("cooked"), str))
    return texts


def _render_text(raw: str) -> str:
    "Text of an embedded-JSON value, markup parsed as an HTML fragment."
    raw = remove_control_characters(unescape(raw))
    if _HTML_MARKUP.search(raw):
        try:
            return block_text(parse_fragment(raw))
        except NotImplementedError:
            raise
        except Exception:  # noqa: BLE001 # pragma: no cover
            pass
    return trim(raw)


def _build_body(texts: Iterable[str], dedupe: bool = False) -> Tuple[Any, str]:
    postbody = Element("body")
    temp_text = ""
    for text in texts:
        text = remove_control_characters(text)
        if text and (
            not dedupe or len(text) <= MIN_DUPLICATE_LENGTH or len(temp_text) > DEDUPE_SCAN_CAP or text not in temp_text
        ):
            SubElement(postbody, "p").text = text
            temp_text += "\n" + text if temp_text else text
    return postbody, temp_text


def _attempt(texts: Iterable[str], dedupe: bool = False) -> Optional[Tuple[Any, str, int]]:
    postbody, temp_text = _build_body(texts, dedupe)
    return (postbody, temp_text, len(temp_text)) if len(temp_text) > _MIN_CONTENT_LENGTH else None


def _collect_json_content(tree: _Element) -> Tuple[List[str], List[str]]:
    bodies: List[str] = []
    teasers: List[str] = []
    for elem in desc_list(tree):
        if elem.tag != "script" or elem.get("type") != "application/ld+json":
            continue
        if elem.text and _JSON_HOOKS_RE.search(elem.text):
            try:
                _walk_json(json.loads(elem.text, strict=False), bodies, teasers)
            except Exception:  # noqa: BLE001
                continue
    bodies.extend(_discourse_texts(tree))
    return bodies, teasers


def _is_element(obj: Any) -> bool:
    return hasattr(obj, "tag") and hasattr(obj, "getparent")


def baseline(filecontent: Any) -> Tuple[Any, str, int]:
    "First strategy yielding more than 100 characters: JSON, articles, paragraphs, teasers, body text."
    tree = load_html(filecontent)
    if tree is None:
        return Element("body"), "", 0
    if _is_element(filecontent):
        tree = copy_tree(tree)

    json_bodies, json_teasers = _collect_json_content(tree)
    result = _attempt(map(_render_text, json_bodies), dedupe=True)
    if result:
        return result

    tree = basic_cleaning(tree)

    article_texts = [
        text
        for elem in desc_list(tree)
        if elem.tag == "article" and not any(True for _ in elem.iterancestors("article"))
        if len(text := block_text(elem)) > _MIN_CONTENT_LENGTH
    ]
    if article_texts:
        cutoff = max(map(len, article_texts)) / 5
        result = _attempt(text for text in article_texts if len(text) >= cutoff)
        if result:
            return result

    scraped_tags = {"blockquote", "code", "p", "pre", "q", "quote"}
    paragraphs = (
        block_text(element)
        for element in [tree, *desc_list(tree)]
        if element.tag in scraped_tags
        if not any(anc.tag in scraped_tags for anc in element.iterancestors())
    )
    result = _attempt(paragraphs, dedupe=True)
    if result:
        return result

    teaser = _attempt(map(_render_text, json_teasers), dedupe=True)

    postbody = Element("body")
    body_elem = next(iter_desc(tree, "body"), None)
    if body_elem is not None:
        p_elem = SubElement(postbody, "p")
        p_elem.text = remove_control_characters("\n".join(text for e in body_elem.itertext() if (text := trim(e))))
        if not teaser or len(p_elem.text) >= teaser[2]:
            return postbody, p_elem.text, len(p_elem.text)

    return teaser or (postbody, "", 0)


_BLOCK_ELEMS = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure",
    "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
    "pre", "section", "summary", "table", "td", "th", "tr", "ul",
}


def html2txt(content: Any, clean: bool = True) -> str:
    "The page's body text, spaced at block boundaries, after basic_cleaning."
    tree = load_html(content)
    if tree is None:
        return ""
    is_elem = _is_element(content)
    core = core_of(tree)
    if core is not None:
        # the text of the cleaned copy, read off the tree itself (accel_baseline.pxi)
        body = next(iter_desc(tree, "body"), None)
        if body is None and not is_elem:
            return ""
        if body is not None:
            text = core.spaced_text_cleaned(body, basic_clean_xpath(body) if clean else [], _BLOCK_ELEMS,
                                            remove_control_characters, xml_text)
            if text is not NotImplemented:
                return text
    if is_elem:
        tree = copy_tree(tree)
    body = next(iter_desc(tree, "body"), None)
    if body is None:
        if not is_elem:
            return ""
        body = tree
    return _spaced_text(basic_cleaning(body) if clean else body)


def block_text(element: _Element) -> str:
    "text_content() with word boundaries kept at block tags (no copy needed: read-only)."
    return _spaced_text_readonly(element)


def _spaced_text(element: _Element) -> str:
    "Space block boundaries, then collapse whitespace (the tree may be modified)."
    return _spaced_text_readonly(element)


def _spaced_text_readonly(element: _Element) -> str:
    """What upstream's _spaced_text returns, without writing into the tree: the
    text and tail of every block element get a space on each side (and lose
    their control characters), then whitespace runs collapse. (Iterative: page
    trees can be deep.)"""
    core = core_of(element)
    if core is not None:
        # (accel_baseline.pxi: nothing deleted)
        text = core.spaced_text_cleaned(element, [], _BLOCK_ELEMS, remove_control_characters, xml_text)
        if text is not NotImplemented:
            return text
    parts: List[str] = []
    if element.tag in _BLOCK_ELEMS and element.tail:
        # the root's tail is written too (then left out of text_content)
        xml_text(f" {remove_control_characters(element.tail)}")
    # stack of (element, entering?)
    stack: List[Any] = [(element, True)]
    while stack:
        el, entering = stack.pop()
        block = el.tag in _BLOCK_ELEMS
        if entering:
            text = el.text
            if block:
                # upstream writes this string into the tree: lxml's text check applies
                parts.append(xml_text(f" {remove_control_characters(text)}") if text else " ")
            elif text:
                parts.append(text)
            if el is not element:
                stack.append((el, False))
            children = el[:]
            for child in reversed(children):
                stack.append((child, True))
        else:
            tail = el.tail
            if block:
                parts.append(xml_text(f" {remove_control_characters(tail)}") if tail else " ")
            elif tail:
                parts.append(tail)
    return " ".join("".join(parts).split())
