"""trafilatura 1.11.0's metadata extraction (trafilatura/metadata.py): meta tags,
OpenGraph, JSON-LD (json_metadata), then the fallbacks in the page (title, author,
canonical URL, image, sitename, categories, tags, licence) and htmldate for the date.

Runs on trafila's trees (the reference's elements and the compiled core's view) and
leaves them as they were, as upstream does (the author search prunes a deep copy).
The XPath expressions are hand-translated into the tree walks of
:mod:`trafila.v2_3_1.metadata` (same XPath rules); where 1.11.0's expressions select
the same nodes as 2.3.1's (categories, tags, the second and third title
expressions), 2.3.1's walks are used.
"""

from __future__ import annotations

import json
import logging
import re
from copy import deepcopy
from html import unescape
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

from .._backend import core_of
from .._engine import NotNative
from ..courlan import extract_domain, get_base_url, is_valid_url, normalize_url, validate_url
from ..v2_3_1.metadata import (
    CATEGORIES_ANCHORS,
    TAGS_ANCHORS,
    _container_links,
    _a,
    _discard_1,
    _doc_root,
    _footer_link_anchor,
    _has_child_text,
    _links_under,
    _select_all,
    _title_1,
    _title_2,
    _under_head,
)
from ..xpathlib import contains, folded, register_exact, register_prefilter, select, select_tags, x_contains, x_eq, x_starts, x_true
from .htmlprocessing import prune_unwanted_nodes
from .json_metadata import HTML_STRIP_TAGS, extract_json, extract_json_parse_error, normalize_authors, normalize_json
from .settings import Document, set_date_params
from .utils import line_processing, load_html, trim

LOGGER = logging.getLogger(__name__)

__all__ = [
    "extract_metadata", "examine_meta", "extract_opengraph", "extract_meta_json", "extract_title",
    "extract_author", "extract_url", "extract_image", "extract_sitename", "extract_catstags",
    "extract_license", "check_authors", "normalize_tags",
]

META_URL = re.compile(r"https?://(?:www\.|w[0-9]+\.)?([^/]+)")
# upstream's pattern ends in \s: a whitespace run removed at once is the same result, in fewer matches
JSON_MINIFY = re.compile(r'("(?:\\"|[^"])*")|\s+')
HTMLTITLE_REGEX = re.compile(r"^(.+)?\s+[–•·—|⁄*⋆~‹«<›»>:-]\s+(.+)$")
CLEAN_META_TAGS = re.compile(r"[\"']")
LICENSE_REGEX = re.compile(r"/(by-nc-nd|by-nc-sa|by-nc|by-nd|by-sa|by|zero)/([1-9]\.[0-9])")
TEXT_LICENSE_REGEX = re.compile(
    r"(cc|creative commons) (by-nc-nd|by-nc-sa|by-nc|by-nd|by-sa|by|zero) ?([1-9]\.[0-9])?", re.I
)

METANAME_AUTHOR = frozenset((
    "article:author", "atc-metaauthor", "author", "authors", "byl", "citation_author", "creator",
    "dc.creator", "dc.creator.aut", "dc:creator", "dcterms.creator", "dcterms.creator.aut",
    "dcsext.author", "parsely-author", "rbauthors", "sailthru.author", "shareaholic:article_author_name",
))
METANAME_DESCRIPTION = frozenset((
    "dc.description", "dc:description", "dcterms.abstract", "dcterms.description", "description",
    "sailthru.description", "twitter:description",
))
METANAME_PUBLISHER = frozenset((
    "article:publisher", "citation_journal_title", "copyright", "dc.publisher", "dc:publisher",
    "dcterms.publisher", "publisher", "sailthru.publisher", "rbpubname", "twitter:site",
))
METANAME_TAG = frozenset(("citation_keywords", "dcterms.subject", "keywords", "parsely-tags", "shareaholic:keywords", "tags"))
METANAME_TITLE = frozenset((
    "citation_title", "dc.title", "dcterms.title", "fb_title", "headline", "parsely-title",
    "sailthru.title", "shareaholic:title", "rbtitle", "title", "twitter:title",
))
METANAME_IMAGE = frozenset(("image", "og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src"))
OG_AUTHOR = frozenset(("og:author", "og:article:author"))
PROPERTY_AUTHOR = frozenset(("author", "article:author"))
TWITTER_ATTRS = frozenset(("twitter:site", "application-name"))
OG_PROPERTIES = {
    "og:title": "title", "og:description": "description", "og:site_name": "sitename", "og:image": "image",
    "og:image:url": "image", "og:image:secure_url": "image", "og:type": "pagetype",
}


# -- the Document's helpers upstream keeps on the class ----------------------------------------

def document_from_dict(data: Dict[str, Any]) -> Document:
    "Document.from_dict: a new Document with these fields set (unknown names ignored)."
    doc = Document()
    for key, value in data.items():
        setattr(doc, key, value)
    return doc


def clean_and_trim(doc: Document) -> None:
    "Document.clean_and_trim: string fields capped at 10,000 characters, unescaped, one clean line."
    for slot in Document.__slots__:
        value = getattr(doc, slot)
        if isinstance(value, str):
            if len(value) > 10000:
                value = value[:9999] + "…"
            setattr(doc, slot, line_processing(unescape(value)))


def _find_date(tree: Any, params: Dict[str, Any]) -> Optional[str]:
    "htmldate's find_date through trafila.htmldate; NotNative while that port is absent."
    try:
        from trafila.htmldate import find_date  # noqa: PLC0415
    except ImportError:
        raise NotNative("date extraction") from None
    return find_date(tree, **params)  # type: ignore[no-any-return]


# -- 1.11.0's own XPath expressions as tree walks --------------------------------------------
# As in the 2.3.1 module, each predicate is registered as an OR of exact terms (C on the
# compiled core's trees).

_TITLE_0_CLASSES = ("post-title", "entry-title", "headline", "post__title", "article-title")


def _title_0_pred(el: Any) -> bool:
    return (any(needle in _a(el, "class") for needle in _TITLE_0_CLASSES)
            or "headline" in _a(el, "id") or "headline" in _a(el, "itemprop"))


register_exact(_title_0_pred, x_contains("class", *_TITLE_0_CLASSES), x_contains("id", "headline"),
               x_contains("itemprop", "headline"))


def _title_0(tree: Any) -> List[Any]:
    return _select_all(tree, ("h1", "h2"), _title_0_pred)


TITLE_XPATHS = (_title_0, _title_1, _title_2)

_AUTHOR_0_CLASSES = ("author-name", "AuthorName", "authorName", "author name")
_AUTHOR_1_CLASSES = ("author", "channel-name", "zuozhe", "bianji", "xiaobian", "submitted-by", "posted-by",
                     "journalist-name")
_AUTHOR_1_IDS = ("author", "zuozhe", "bianji", "xiaobian")
_AUTHOR_0_TAGS = frozenset(("a", "address", "div", "link", "p", "span", "strong"))


def _author_0_attrs(el: Any) -> bool:
    "_author_0's predicate without its child test (``rel='me'``)."
    if el.tag == "author":
        return True
    if el.tag not in _AUTHOR_0_TAGS:
        return False
    return (
        _a(el, "rel") == "author" or _a(el, "id") == "author" or _a(el, "class") == "author"
        or _a(el, "itemprop") == "author name"
        or any(needle in _a(el, "class") for needle in _AUTHOR_0_CLASSES)
        or _a(el, "data-testid") in ("AuthorCard", "AuthorURL")
    )


def _author_0_pred(el: Any) -> bool:
    return _author_0_attrs(el) or (el.tag in _AUTHOR_0_TAGS and _has_child_text(el, "rel", "me"))


_A0 = tuple(sorted(_AUTHOR_0_TAGS))
register_exact(_author_0_attrs, x_true("author"), x_eq("rel", "author", tags=_A0), x_eq("id", "author", tags=_A0),
               x_eq("class", "author", tags=_A0), x_eq("itemprop", "author name", tags=_A0),
               x_contains("class", *_AUTHOR_0_CLASSES, tags=_A0),
               x_eq("data-testid", "AuthorCard", "AuthorURL", tags=_A0))


def _author_0(tree: Any) -> List[Any]:
    # without a <rel> element in the document the child test is false everywhere
    pred = _author_0_pred if select_tags(_doc_root(tree), frozenset(("rel",))) else _author_0_attrs
    return _select_all(tree, None, pred)


def _author_1_pred(el: Any) -> bool:
    return (any(needle in _a(el, "class") for needle in _AUTHOR_1_CLASSES)
            or any(needle in _a(el, "id") for needle in _AUTHOR_1_IDS)
            or "author" in _a(el, "itemprop") or _a(el, "class") in ("byline", "username", "byl", "BBL"))


def _author_2_pred(el: Any) -> bool:
    # translate(@id, "A", "a"): only the capital A is folded
    return ("author" in _a(el, "id").replace("A", "a") or "author" in _a(el, "class").replace("A", "a")
            or "screenname" in _a(el, "class") or "Byline" in _a(el, "data-component")
            or "author" in _a(el, "itemprop") or "writer" in _a(el, "class")
            or "byline" in _a(el, "class").replace("B", "b"))


register_exact(_author_1_pred, x_contains("class", *_AUTHOR_1_CLASSES), x_contains("id", *_AUTHOR_1_IDS),
               x_contains("itemprop", "author"), x_eq("class", "byline", "username", "byl", "BBL"))
register_exact(_author_2_pred, x_contains("id", "author", tr=str.maketrans("A", "a")),
               x_contains("class", "author", tr=str.maketrans("A", "a")),
               x_contains("class", "screenname", "writer"), x_contains("data-component", "Byline"),
               x_contains("itemprop", "author"), x_contains("class", "byline", tr=str.maketrans("B", "b")))

# necessary conditions (one literal scan per attribute) the C runs before the terms
register_prefilter(_author_1_pred, contains("class", *_AUTHOR_1_CLASSES, "byline", "username", "byl", "BBL"),
                   contains("id", *_AUTHOR_1_IDS), contains("itemprop", "author"))
register_prefilter(_author_2_pred, folded("id", "author"), folded("class", "author", "byline"),
                   contains("class", "screenname", "writer"), contains("data-component", "Byline"),
                   contains("itemprop", "author"))

def _author_1(tree: Any) -> List[Any]:
    return _select_all(tree, ("a", "div", "h3", "h4", "p", "span"), _author_1_pred)


def _author_2(tree: Any) -> List[Any]:
    return _select_all(tree, None, _author_2_pred)


AUTHOR_XPATHS = (_author_0, _author_1, _author_2)

_DISCARD_CLASSES = ("commentlist", "sidebar", "is-hidden", "quote", "comments-list", "embedly-instagram",
                    "article-share", "article-support", "print", "category", "meta-date", "meta-reviewer")
_DISCARD_IDS = ("commentlist", "comment-list", "ProductReviews")


def _discard_0_pred(el: Any) -> bool:
    return (_a(el, "id") == "comments" or _a(el, "class") in ("comments", "title", "date")
            or any(needle in _a(el, "id") for needle in _DISCARD_IDS)
            or any(needle in _a(el, "class") for needle in _DISCARD_CLASSES)
            or _a(el, "id").startswith("comments") or "Figure" in _a(el, "data-component")
            or _a(el, "class").startswith(("comments", "Comments")))


register_exact(_discard_0_pred, x_eq("id", "comments"), x_eq("class", "comments", "title", "date"),
               x_contains("id", *_DISCARD_IDS), x_contains("class", *_DISCARD_CLASSES),
               x_starts("id", "comments"), x_contains("data-component", "Figure"),
               x_starts("class", "comments", "Comments"))

register_prefilter(_discard_0_pred, contains("id", "comments", *_DISCARD_IDS),
                   contains("class", "comments", "title", "date", "Comments", *_DISCARD_CLASSES),
                   contains("data-component", "Figure"))

def _discard_0(tree: Any) -> List[Any]:
    return select(tree, frozenset(("a", "div", "section", "span")), _discard_0_pred)


AUTHOR_DISCARD_XPATHS = (_discard_0, _discard_1)


# -- the extraction ---------------------------------------------------------------------------

def normalize_tags(tags: str) -> str:
    "Tags unescaped and trimmed, quotes removed, empty items dropped."
    tags = CLEAN_META_TAGS.sub("", trim(unescape(tags)))  # type: ignore[arg-type]
    return ", ".join(filter(None, tags.split(", ")))


def check_authors(authors: str, author_blacklist: Set[str]) -> Optional[str]:
    "The authors not in the blacklist (case-insensitive), None when none is left."
    blacklist = {name.lower() for name in author_blacklist}
    kept = [name.strip() for name in authors.split(";") if name.strip().lower() not in blacklist]
    if kept:
        return "; ".join(kept).strip("; ")
    return None


def _minify(text: str, core: Any = None) -> str:
    """``JSON_MINIFY.sub(r"\\1", text)``: the whitespace outside strings removed. The
    split gives the text between matches and each match's group (None for whitespace),
    joined in C where the substitution expands its template in Python for each match;
    on the core's backend (``core``) one C pass (metadata_json.pxi) does it all."""
    c_minify = getattr(core, "json_minify", None)
    if c_minify is not None:
        return c_minify(text, True)  # type: ignore[no-any-return]
    return "".join(filter(None, JSON_MINIFY.split(text)))


def extract_meta_json(tree: Any, metadata: Document) -> Document:
    "The JSON-LD (and settings+json) scripts, parsed, or salvaged by regex when json rejects them."
    for elem in select_tags(tree, frozenset(("script",))):
        if elem.get("type") not in ("application/ld+json", "application/settings+json"):
            continue
        if not elem.text:
            continue
        element_text = normalize_json(_minify(elem.text, core_of(elem)))
        try:
            schema = json.loads(element_text)
            metadata = extract_json(schema, metadata)
        except json.JSONDecodeError:
            metadata = extract_json_parse_error(element_text, metadata)
    return metadata


def extract_opengraph(tree: Any) -> Dict[str, Optional[str]]:
    "OpenGraph properties (og:*) of the head's meta elements."
    result: Dict[str, Optional[str]] = dict.fromkeys(("title", "author", "url", "description", "sitename", "image", "pagetype"))
    for elem in _under_head(tree, True, "meta", lambda el: _a(el, "property").startswith("og:")):
        property_name, content = elem.get("property"), elem.get("content")
        if content and not content.isspace():
            if property_name in OG_PROPERTIES:
                result[OG_PROPERTIES[property_name]] = content
            elif property_name == "og:url" and is_valid_url(content):
                result["url"] = content
            elif property_name in OG_AUTHOR:
                result["author"] = normalize_authors(None, content)
    return result


def examine_meta(tree: Any) -> Document:
    """OpenGraph first (enough when it gave title, author, url, description, sitename and
    image), then the head's other meta elements (property, name, itemprop)."""
    metadata = document_from_dict(extract_opengraph(tree))
    if all((metadata.title, metadata.author, metadata.url, metadata.description, metadata.sitename, metadata.image)):
        return metadata
    tags: List[str] = []
    backup_sitename = None
    for elem in tree.iterfind(".//head/meta[@content]"):
        # not stripped in 1.11.0: the values keep their outer spaces until clean_and_trim
        content_attr = HTML_STRIP_TAGS.sub("", elem.get("content", ""))
        if not content_attr or content_attr.isspace():
            continue
        attrib = elem.attrib
        if "property" in attrib:
            property_attr = elem.get("property", "").lower()
            if property_attr.startswith("og:"):
                continue
            if property_attr == "article:tag":
                tags.append(normalize_tags(content_attr))
            elif property_attr in PROPERTY_AUTHOR:
                metadata.author = normalize_authors(metadata.author, content_attr)
            elif property_attr == "article:publisher":
                metadata.sitename = metadata.sitename or content_attr
            elif property_attr in METANAME_IMAGE:
                metadata.image = metadata.image or content_attr
        elif "name" in attrib:
            name_attr = elem.get("name", "").lower()
            if name_attr in METANAME_AUTHOR:
                metadata.author = normalize_authors(metadata.author, content_attr)
            elif name_attr in METANAME_TITLE:
                metadata.title = metadata.title or content_attr
            elif name_attr in METANAME_DESCRIPTION:
                metadata.description = metadata.description or content_attr
            elif name_attr in METANAME_PUBLISHER:
                metadata.sitename = metadata.sitename or content_attr
            elif name_attr in TWITTER_ATTRS or "twitter:app:name" in name_attr:
                backup_sitename = content_attr
            elif name_attr == "twitter:url":
                if metadata.url is None and is_valid_url(content_attr):
                    metadata.url = content_attr
            elif name_attr in METANAME_TAG:
                tags.append(normalize_tags(content_attr))
        elif "itemprop" in attrib:
            itemprop = elem.get("itemprop")
            if itemprop == "author":
                metadata.author = normalize_authors(metadata.author, content_attr)
            elif itemprop == "description":
                metadata.description = metadata.description or content_attr
            elif itemprop == "headline":
                metadata.title = metadata.title or content_attr
    metadata.sitename = metadata.sitename or backup_sitename
    # Document.set_attributes: an empty list leaves tags None
    if tags:
        metadata.tags = tags
    return metadata


def extract_metainfo(tree: Any, expressions: Iterable[Callable[[Any], List[Any]]], len_limit: int = 200) -> Optional[str]:
    "The first result of the expressions, in order, whose text is 3 to len_limit-1 characters long."
    for expression in expressions:
        for elem in expression(tree):
            content = trim(" ".join(elem.itertext()))
            if content and 2 < len(content) < len_limit:
                return content
    return None


def _text_content(el: Any) -> str:
    return "".join(el.itertext())


def examine_title_element(tree: Any) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    "The head's title, and its two parts around a separator when it has them."
    title = None
    title_element = tree.find(".//head//title")
    if title_element is not None:
        title = trim(_text_content(title_element))
        found = HTMLTITLE_REGEX.match(title)  # type: ignore[arg-type]
        if found:
            return title, found[1], found[2]
    return title, None, None


def extract_title(tree: Any) -> Optional[str]:
    "A lone h1, the title expressions, the title element's parts, the first h1, the first h2."
    h1_results = tree.findall(".//h1")
    if len(h1_results) == 1:
        title = trim(_text_content(h1_results[0]))
        if title:
            return title
    title = extract_metainfo(tree, TITLE_XPATHS)
    if title is not None:
        return title
    title, first, second = examine_title_element(tree)
    for candidate in (first, second):
        if candidate and "." not in candidate:
            return candidate
    if h1_results:
        return _text_content(h1_results[0])
    h2_results = select_tags(tree, frozenset(("h2",)))
    if h2_results:
        title = _text_content(h2_results[0])
    return title


def extract_author(tree: Any) -> Optional[str]:
    "The author expressions on a copy of the tree without comments, dates, figures..."
    subtree = prune_unwanted_nodes(deepcopy(tree), AUTHOR_DISCARD_XPATHS)
    author = extract_metainfo(subtree, AUTHOR_XPATHS, len_limit=120)
    if author:
        author = normalize_authors(None, author)
    return author


def extract_url(tree: Any, default_url: Optional[str] = None) -> Optional[str]:
    "The canonical (else x-default) link, made absolute with an og:/twitter: URL, validated and normalised."
    url = None
    element = tree.find('.//head//link[@rel="canonical"][@href]')
    if element is not None:
        url = element.attrib["href"]
    else:
        element = tree.find('.//head//link[@rel="alternate"][@hreflang="x-default"]')
        if element is not None:
            # KeyError without href, as upstream
            url = element.attrib["href"]
    if url is not None and url.startswith("/"):
        for element in tree.iterfind(".//head//meta[@content]"):
            attrtype = element.get("name") or element.get("property") or ""
            if attrtype.startswith("og:") or attrtype.startswith("twitter:"):
                base_url = get_base_url(element.attrib["content"])
                if base_url:
                    url = base_url + url
                    break
    if url is not None:
        valid, parsed_url = validate_url(url)
        url = None if valid is False else normalize_url(parsed_url)  # type: ignore[arg-type]
    return url or default_url


def extract_sitename(tree: Any) -> Optional[str]:
    "The part of the title element that holds a dot."
    _, *parts = examine_title_element(tree)
    return next((part for part in parts if part and "." in part), None)


def extract_catstags(metatype: str, tree: Any) -> List[str]:
    "Link texts under the category or tag containers whose href names that kind of page."
    results: List[str] = []
    # "[s|ies]?": one character of the class, as 1.11.0 writes it
    pattern = re.compile("/" + metatype + "[s|ies]?/")
    # CATEGORIES_XPATHS or TAGS_XPATHS, in order, until one gives a result
    for links in _container_links(tree, CATEGORIES_ANCHORS if metatype == "category" else TAGS_ANCHORS):
        results.extend(_text_content(elem) for elem in links if pattern.search(elem.attrib["href"]))
        if results:
            break
    if metatype == "category" and not results:
        results.extend(
            element.attrib["content"]
            for element in _under_head(
                tree, False, "meta",
                lambda el: (_a(el, "property") == "article:section" or "subject" in _a(el, "name"))
                and el.get("content") is not None,
            )
        )
    return [r for r in dict.fromkeys(line_processing(x) for x in results if x) if r]


def parse_license_element(element: Any, strict: bool = False) -> Optional[str]:
    "A CC licence from the link's href, else the link's own text (strict: only a CC mention in it)."
    found = LICENSE_REGEX.search(element.get("href", ""))
    if found:
        return f"CC {found[1].upper()} {found[2]}"
    if element.text:
        if strict:
            found = TEXT_LICENSE_REGEX.search(element.text)
            return found[0] if found else None
        return trim(element.text)
    return None


def _license_link(el: Any) -> bool:
    return el.get("rel") == "license" and el.get("href") is not None


register_prefilter(_license_link, contains("rel", "license"))


def extract_license(tree: Any) -> Optional[str]:
    "A link with rel=license, else a CC link in a footer."
    for element in select(tree, frozenset(("a",)), _license_link):  # .//a[@rel="license"][@href]
        result = parse_license_element(element, strict=False)
        if result is not None:
            return result
    # .//footer//a[@href] | .//div[footer class or id]//a[@href]: the anchor lies below the tree
    for element in _links_under(tree, _footer_link_anchor, from_root=False):
        result = parse_license_element(element, strict=True)
        if result is not None:
            return result
    return None


def extract_image(tree: Any) -> Optional[str]:
    "The head's og:image (or og:image:url), else its twitter:image (or twitter:image:src) property."
    for properties in (("og:image", "og:image:url"), ("twitter:image", "twitter:image:src")):
        for elem in _under_head(tree, True, "meta",
                                lambda el: _a(el, "property") in properties and el.get("content") is not None):
            return elem.get("content")  # type: ignore[no-any-return]
    return None


def extract_metadata(
    filecontent: Any,
    default_url: Optional[str] = None,
    date_config: Optional[Any] = None,
    extensive: bool = True,
    author_blacklist: Optional[Set[str]] = None,
) -> Optional[Document]:
    """trafilatura 1.11.0's metadata.extract_metadata: the metadata fields of a page
    (HTML string or trafila tree) in a Document, None without a tree. The tree is
    left as it was."""
    if author_blacklist is None:
        author_blacklist = set()
    if not date_config:
        date_config = set_date_params(extensive)
    tree = load_html(filecontent)
    if tree is None:
        return None
    metadata = examine_meta(tree)
    if metadata.author and " " not in metadata.author:
        metadata.author = None
    try:
        metadata = extract_meta_json(tree, metadata)
    except Exception as err:  # noqa: BLE001 - as upstream (it logs and goes on with what was set)
        LOGGER.warning("error in JSON metadata extraction: %s", err)
    if metadata.title is None:
        metadata.title = extract_title(tree)
    if metadata.author is not None and len(author_blacklist) > 0:
        metadata.author = check_authors(metadata.author, author_blacklist)
    if metadata.author is None:
        metadata.author = extract_author(tree)
    if metadata.author is not None and len(author_blacklist) > 0:
        metadata.author = check_authors(metadata.author, author_blacklist)
    if metadata.url is None:
        metadata.url = extract_url(tree, default_url)
    if metadata.url is not None:
        metadata.hostname = extract_domain(metadata.url, fast=True)
    if metadata.image is None:
        metadata.image = extract_image(tree)
    # the caller's dict gets the url, as in 1.11.0 (no copy)
    date_config["url"] = metadata.url
    metadata.date = _find_date(tree, date_config)
    if metadata.sitename is None:
        metadata.sitename = extract_sitename(tree)
    if metadata.sitename is not None:
        if isinstance(metadata.sitename, list):
            metadata.sitename = metadata.sitename[0]
        elif isinstance(metadata.sitename, dict):
            metadata.sitename = str(metadata.sitename)
        metadata.sitename = metadata.sitename.lstrip("@")
        try:
            if "." not in metadata.sitename and not metadata.sitename[0].isupper():
                metadata.sitename = metadata.sitename.title()
        except IndexError as err:
            LOGGER.warning("error in sitename extraction: %s", err)
    elif metadata.url:
        found = META_URL.match(metadata.url)
        if found:
            metadata.sitename = found[1]
    if not metadata.categories:
        metadata.categories = extract_catstags("category", tree)
    if not metadata.tags:
        metadata.tags = extract_catstags("tag", tree)
    metadata.license = extract_license(tree)
    metadata.filedate = date_config["max_date"]
    clean_and_trim(metadata)
    return metadata
