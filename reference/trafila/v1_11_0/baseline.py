"""The baseline of trafilatura 1.11.0 (baseline.py): JSON-LD articleBody,
then <article> texts, then de-duplicated paragraphs, then the body's text."""

from __future__ import annotations

import json
from typing import Any, Tuple

from trafila._backend import Element, SubElement

from .utils import load_html, trim, xml_text
from .xml import delete_element

BASIC_CLEAN_TAGS = ("aside", "footer", "script", "style")


def basic_cleaning(tree: Element) -> Any:
    "Delete aside/footer/script/style (``.//aside|.//footer|.//script|.//style``)."
    for elem in list(tree.iterdescendants(*BASIC_CLEAN_TAGS)):
        delete_element(elem)
    return tree


def baseline(filecontent: Any) -> Tuple[Any, str, int]:
    "A <body> of <p> texts, the text and its length."
    tree = load_html(filecontent)
    postbody = Element("body")
    if tree is None:
        return postbody, "", 0
    temp_text = ""
    for elem in tree.iterdescendants("script"):
        if elem.get("type") != "application/ld+json":
            continue
        if elem.text and "articleBody" in elem.text:
            try:
                json_body = json.loads(elem.text).get("articleBody")
            except Exception:  # noqa: BLE001 - JSONDecodeError, or a list has no .get
                json_body = ""
            if json_body:
                # a body that does not parse as HTML gives None: AttributeError, as upstream
                text = trim(load_html(json_body).text_content()) if "<p>" in json_body else trim(json_body)
                SubElement(postbody, "p").text = xml_text(text)
                temp_text += " " + text if temp_text else text
    if len(temp_text) > 100:
        return postbody, temp_text, len(temp_text)
    tree = basic_cleaning(tree)
    temp_text = ""
    for article_elem in tree.iterdescendants("article"):
        text = trim(article_elem.text_content())
        if len(text) > 100:
            SubElement(postbody, "p").text = xml_text(text)
            temp_text += " " + text if temp_text else text
    if len(postbody) > 0:
        return postbody, temp_text, len(temp_text)
    results = set()
    temp_text = ""
    for element in tree.iter("blockquote", "code", "p", "pre", "q", "quote"):
        entry = trim(element.text_content())
        if entry not in results:
            SubElement(postbody, "p").text = xml_text(entry)
            temp_text += " " + entry if temp_text else entry
            results.add(entry)
    if len(temp_text) > 100:
        return postbody, temp_text, len(temp_text)
    postbody = Element("body")
    body_elem = next(tree.iterdescendants("body"), None)
    if body_elem is not None:
        elem = SubElement(postbody, "p")
        elem.text = xml_text("\n".join([trim(e) for e in body_elem.itertext()]))
        return postbody, elem.text, len(elem.text)
    # upstream's html2txt(tree, clean=False) finds no body either: empty text
    SubElement(postbody, "p").text = ""
    return postbody, "", 0
