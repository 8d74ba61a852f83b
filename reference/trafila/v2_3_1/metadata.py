"""trafilatura 2.3.1's metadata extraction (trafilatura/metadata.py): meta tags,
OpenGraph, JSON-LD (json_metadata), then the fallbacks in the page (title, author,
canonical URL, sitename, categories, tags, licence) and htmldate for the date.

Runs on trafila's trees (the reference's elements and the compiled core's view).
Like upstream it leaves the tree as it found it: the author search prunes a deep
copy, block_text reads without writing, the date search works on its own copy.
The XPath expressions are hand-translated into tree walks (``_all_elements``,
``_links_under``...) with XPath's rules (a missing attribute reads as '',
``//`` starts at the document root and includes it, results in document order).
"""

from __future__ import annotations

import json
import logging
import re
from html import unescape
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

from .._backend import core_of
from .._engine import NotNative
from ..courlan import extract_domain, is_valid_url, normalize_url, validate_url
from ._tree import copy_tree, desc_list
from .baseline import block_text
from .htmlprocessing import prune_unwanted_nodes
from .json_metadata import (
    HTML_STRIP_TAGS,
    extract_json,
    extract_json_parse_error,
    normalize_authors,
    normalize_json,
)
from .settings import Document
from .utils import line_processing, load_html, safe_base_url, trim
from ..xpathlib import _matcher as _exact_matcher
from ..xpathlib import contains, present, regex, register_exact, register_prefilter, select, select_tags, x_contains, x_eq, x_present, x_regex, x_starts, x_true

LOGGER = logging.getLogger(__name__)

__all__ = [
    "extract_metadata", "examine_meta", "extract_opengraph", "extract_meta_json", "extract_title",
    "extract_author", "extract_url", "extract_sitename", "extract_catstags", "extract_license",
    "check_authors", "normalize_tags", "set_date_params", "METADATA_FIELDS",
]

META_URL = re.compile(r"https?://(?:www\.|w[0-9]+\.)?([^/]+)")
# upstream's pattern ends in \s: a whitespace run removed at once is the same result, in fewer matches
JSON_MINIFY = re.compile(r'("(?:\\.|[^"\\])*")|\s+')
HTMLTITLE_REGEX = re.compile(r"^(.+)?\s+[–•·—|⁄*⋆~‹«<›»>:-]\s+(.+)$")
CLEAN_META_TAGS = re.compile(r"[\"']")
LICENSE_REGEX = re.compile(r"/(by-nc-nd|by-nc-sa|by-nc|by-nd|by-sa|by|zero)/([1-9]\.[0-9])")
TEXT_LICENSE_REGEX = re.compile(
    r"(cc|creative commons) (by-nc-nd|by-nc-sa|by-nc|by-nd|by-sa|by|zero) ?([1-9]\.[0-9])?", re.IGNORECASE
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
PROPERTY_AUTHOR = frozenset(("author", "article:author"))
TWITTER_ATTRS = frozenset(("twitter:site", "application-name"))
OG_PROPERTIES = {
    "og:title": "title", "og:description": "description", "og:site_name": "sitename", "og:image": "image",
    "og:image:url": "image", "og:image:secure_url": "image", "og:type": "pagetype",
}
OG_AUTHOR = frozenset(("og:author", "og:article:author"))

#: the fields extract_metadata fills (Document's metadata slots)
METADATA_FIELDS = (
    "title", "author", "url", "hostname", "description", "sitename", "date", "categories", "tags",
    "license", "image", "pagetype", "filedate",
)


# -- the Document's helpers upstream keeps on the class ----------------------------------------

def document_from_dict(data: Dict[str, Any]) -> Document:
    "Document.from_dict: a new Document with these fields set."
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


def set_date_params(extensive: bool = True) -> Dict[str, Any]:
    "settings.set_date_params: htmldate's parameters (max_date is today, local time)."
    from datetime import datetime  # noqa: PLC0415

    return {
        "original_date": True,
        "extensive_search": extensive,
        "max_date": datetime.now().astimezone().strftime("%Y-%m-%d"),
    }


def _find_date(tree: Any, params: Dict[str, Any]) -> Optional[str]:
    "htmldate's find_date through trafila.htmldate; NotNative while that port is absent."
    try:
        from trafila.htmldate import find_date  # noqa: PLC0415
    except ImportError:
        raise NotNative("date extraction") from None
    return find_date(tree, **params)  # type: ignore[no-any-return]


# -- XPath as tree walks ----------------------------------------------------------------------
# Each predicate below reads its element's tag and attributes only and is registered as
# an OR of exact terms (xpathlib.register_exact): on the compiled core's trees the
# selections run the terms in C and call the predicate only where C cannot decide (a
# pattern meeting a non-ASCII value); on the reference's trees they walk as written.

def _elements(ctx: Any) -> List[Any]:
    "``.//*``: the element descendants of ctx, in document order."
    return [el for el in desc_list(ctx) if isinstance(el.tag, str)]


def _doc_root(ctx: Any) -> Any:
    root = ctx
    parent = root.getparent()
    while parent is not None:
        root = parent
        parent = root.getparent()
    return root


def _all_elements(ctx: Any) -> List[Any]:
    "``//*``: every element of ctx's document, the root element first."
    root = _doc_root(ctx)
    return [root, *_elements(root)]


def _select_all(ctx: Any, tags: Optional[Iterable[str]], pred: Callable[[Any], bool]) -> List[Any]:
    "``//*[self::t1 or ...][pred]`` (any tag when ``tags`` is None): the root, then its descendants."
    root = _doc_root(ctx)
    wanted = None if tags is None else frozenset(tags)
    found = select(root, wanted, pred)
    if (wanted is None or root.tag in wanted) and pred(root):
        found.insert(0, root)
    return found


def _outermost(elements: List[Any]) -> List[Any]:
    "The elements (in document order) that have no ancestor among them."
    core = core_of(elements[0]) if elements else None
    if core is not None:
        result = core.outermost(elements)
        if result is not NotImplemented:
            return result  # type: ignore[no-any-return]
    # the elements stay alive in ``elements``: no id() is reused while ``marked`` is read
    marked = {id(el) for el in elements}
    return [el for el in elements if not any(id(a) in marked for a in el.iterancestors())]


def _has_href(el: Any) -> bool:
    return el.get("href") is not None


register_exact(_has_href, x_present("href"))
_A = frozenset(("a",))
_SCRIPT = frozenset(("script",))
_H2 = frozenset(("h2",))


def _links_below(anchors: List[Any]) -> List[Any]:
    """``X//a[@href]`` for the Xs ``anchors`` (in document order): the links with an ancestor
    among them, in document order, once each: those under the outermost Xs, X after X."""
    found: List[Any] = []
    for outer in _outermost(anchors):
        found.extend(select(outer, _A, _has_href))
    return found


def _links_under(ctx: Any, anchor: Callable[[Any], bool], from_root: bool = True) -> List[Any]:
    """``//X[anchor]//a[@href]`` (from_root; ``.//X[anchor]//a[@href]`` otherwise: X below ctx)."""
    return _links_below(_select_all(ctx, None, anchor) if from_root else select(ctx, None, anchor))


def _select_each(ctx: Any, specs: List[Tuple[Optional[Iterable[str]], Callable[[Any], bool]]]) -> Iterable[List[Any]]:
    """``_select_all(ctx, tags, pred)`` for each (tags, pred) of ``specs``, in order: on core
    trees, when every predicate has an exact matcher, all from one walk of the document;
    else one at a time, as they are asked for."""
    root = _doc_root(ctx)
    core = core_of(root)
    if core is not None and hasattr(core, "select_matches_each"):
        pairs = [_exact_matcher(core, pred) for _tags, pred in specs]
        if all(pair is not None for pair in pairs):
            return core.select_matches_each(  # type: ignore[no-any-return]
                root, [(None if tags is None else frozenset(tags), pair[0], pred)
                       for (tags, pred), pair in zip(specs, pairs)], True)
    return (_select_all(ctx, tags, pred) for tags, pred in specs)


def _container_links(tree: Any, anchors: Iterable[Callable[[Any], bool]]) -> Iterable[List[Any]]:
    "``//X[anchor]//a[@href]`` for each anchor, in order (the containers from _select_each)."
    return (_links_below(found) for found in _select_each(tree, [(None, anchor) for anchor in anchors]))


def _under_head(ctx: Any, child_only: bool, tag: str, pred: Callable[[Any], bool]) -> List[Any]:
    """``.//head/tag[pred]`` (child_only) or ``.//head//tag[pred]``: matches whose
    parent (or some ancestor) below ctx is a head, in document order."""
    found = []
    for el in select_tags(ctx, frozenset((tag,))):
        if not pred(el):
            continue
        parent = el.getparent()
        while parent is not None and parent is not ctx:
            if parent.tag == "head":
                found.append(el)
                break
            if child_only:
                break
            parent = parent.getparent()
    return found


def _a(el: Any, name: str) -> str:
    value = el.get(name)
    return "" if value is None else value


def _string_value(el: Any) -> str:
    "XPath string-value of an element (its text and its descendants', no own tail)."
    return "".join(el.itertext())


_TITLE_RX = re.compile(r"(?:post-|entry-|article-|post__)title|headline").search
_AUTHOR_NAME_RX = re.compile(r"author-?name|AuthorName|authorName").search
_AUTHOR_ID_RX = re.compile(r"author|zuozhe|bianji|xiaobian").search
_AUTHOR_CLASS_RX = re.compile(r"author|channel-name|zuozhe|bianji|xiaobian|submitted-by|posted-by|journalist-name").search
_AUTHOR_ID_ANY_RX = re.compile(r"[Aa]uthor").search
_AUTHOR_CLASS_ANY_RX = re.compile(r"[Aa]uthor|screenname|writer|[Bb]yline").search
_DISCARD_ID_RX = re.compile(r"^comments|comment-?list|ProductReviews").search
_DISCARD_CLASS_RX = re.compile(
    r"^[Cc]omments|commentlist|comments-list|sidebar|is-hidden|quote|embedly-instagram|"
    r"article-(?:share|support)|print|category|meta-date|meta-reviewer"
).search
_CAT_DIV_RX = re.compile(r"^(?:post-?info|post-?meta|meta|entry-meta|entry-info|entry-utility)").search
_TAG_DIV_RX = re.compile(r"^(?:tag|postmeta|meta)").search


def _title_0_pred(el: Any) -> bool:
    return bool(_TITLE_RX(_a(el, "class")) or "headline" in _a(el, "id") or "headline" in _a(el, "itemprop"))


def _title_1_pred(el: Any) -> bool:
    return _a(el, "class") in ("entry-title", "post-title")


def _title_2_pred(el: Any) -> bool:
    return "title" in _a(el, "class") or "title" in _a(el, "id")


register_exact(_title_0_pred, x_regex("class", _TITLE_RX), x_contains("id", "headline"),
               x_contains("itemprop", "headline"))
register_exact(_title_1_pred, x_eq("class", "entry-title", "post-title"))
register_exact(_title_2_pred, x_contains("class", "title"), x_contains("id", "title"))

# necessary conditions (literal scans) the C runs before the terms with patterns
register_prefilter(_title_0_pred, regex("class", _TITLE_RX), contains("id", "headline"), contains("itemprop", "headline"))

def _title_0(tree: Any) -> List[Any]:
    return _select_all(tree, ("h1", "h2"), _title_0_pred)


def _title_1(tree: Any) -> List[Any]:
    return _select_all(tree, None, _title_1_pred)


def _title_2(tree: Any) -> List[Any]:
    return _select_all(tree, ("h1", "h2", "h3"), _title_2_pred)


TITLE_XPATHS = (_title_0, _title_1, _title_2)


def _has_child_text(el: Any, tag: str, value: str) -> bool:
    "``tag='value'`` inside a predicate: some child element ``tag`` has that string-value."
    return any(child.tag == tag and _string_value(child) == value for child in el)


_AUTHOR_0_TAGS = frozenset(("a", "address", "div", "link", "p", "span", "strong"))


def _author_0_attrs(el: Any) -> bool:
    "_author_0's predicate without its child test (``rel='me'``)."
    if el.tag == "author":
        return True
    if el.tag not in _AUTHOR_0_TAGS:
        return False
    return bool(
        _a(el, "rel") == "author" or _a(el, "id") == "author" or _a(el, "class") == "author"
        or _a(el, "itemprop") == "author name" or _a(el, "data-testid") in ("AuthorCard", "AuthorURL")
        or _AUTHOR_NAME_RX(_a(el, "class"))
    )


def _author_0_pred(el: Any) -> bool:
    return _author_0_attrs(el) or (el.tag in _AUTHOR_0_TAGS and _has_child_text(el, "rel", "me"))


_A0 = tuple(sorted(_AUTHOR_0_TAGS))
register_exact(_author_0_attrs, x_true("author"), x_eq("rel", "author", tags=_A0), x_eq("id", "author", tags=_A0),
               x_eq("class", "author", tags=_A0), x_eq("itemprop", "author name", tags=_A0),
               x_eq("data-testid", "AuthorCard", "AuthorURL", tags=_A0), x_regex("class", _AUTHOR_NAME_RX, tags=_A0))

register_prefilter(_author_0_attrs, contains("rel", "author"), contains("id", "author"), contains("class", "author"),
                   contains("itemprop", "author name"), contains("data-testid", "AuthorCard", "AuthorURL"),
                   regex("class", _AUTHOR_NAME_RX), pass_tags=("author",))

def _author_0(tree: Any) -> List[Any]:
    # without a <rel> element in the document the child test is false everywhere
    pred = _author_0_pred if select_tags(_doc_root(tree), frozenset(("rel",))) else _author_0_attrs
    return _select_all(tree, None, pred)


def _author_1_pred(el: Any) -> bool:
    return bool(_a(el, "class") in ("byline", "username", "byl", "BBL") or "author" in _a(el, "itemprop")
                or _AUTHOR_ID_RX(_a(el, "id")) or _AUTHOR_CLASS_RX(_a(el, "class")))


def _author_2_pred(el: Any) -> bool:
    return bool("Byline" in _a(el, "data-component") or "author" in _a(el, "itemprop")
                or _AUTHOR_ID_ANY_RX(_a(el, "id")) or _AUTHOR_CLASS_ANY_RX(_a(el, "class")))


register_exact(_author_1_pred, x_eq("class", "byline", "username", "byl", "BBL"), x_contains("itemprop", "author"),
               x_regex("id", _AUTHOR_ID_RX), x_regex("class", _AUTHOR_CLASS_RX))
register_exact(_author_2_pred, x_contains("data-component", "Byline"), x_contains("itemprop", "author"),
               x_regex("id", _AUTHOR_ID_ANY_RX), x_regex("class", _AUTHOR_CLASS_ANY_RX))

register_prefilter(_author_1_pred, contains("class", "byline", "username", "byl", "BBL"), contains("itemprop", "author"),
                   regex("id", _AUTHOR_ID_RX), regex("class", _AUTHOR_CLASS_RX))
register_prefilter(_author_2_pred, contains("data-component", "Byline"), contains("itemprop", "author"),
                   regex("id", _AUTHOR_ID_ANY_RX), regex("class", _AUTHOR_CLASS_ANY_RX))

def _author_1(tree: Any) -> List[Any]:
    return _select_all(tree, ("a", "div", "h3", "h4", "p", "span"), _author_1_pred)


def _author_2(tree: Any) -> List[Any]:
    return _select_all(tree, None, _author_2_pred)


AUTHOR_XPATHS = (_author_0, _author_1, _author_2)


def _discard_0_pred(el: Any) -> bool:
    return bool(_a(el, "id") == "comments" or _a(el, "class") in ("comments", "title", "date")
                or _DISCARD_ID_RX(_a(el, "id")) or _DISCARD_CLASS_RX(_a(el, "class"))
                or "Figure" in _a(el, "data-component"))


register_exact(_discard_0_pred, x_eq("id", "comments"), x_eq("class", "comments", "title", "date"),
               x_regex("id", _DISCARD_ID_RX), x_regex("class", _DISCARD_CLASS_RX),
               x_contains("data-component", "Figure"))

register_prefilter(_discard_0_pred, contains("id", "comments"), contains("class", "comments", "title", "date"),
                   regex("id", _DISCARD_ID_RX), regex("class", _DISCARD_CLASS_RX), contains("data-component", "Figure"))

def _discard_0(tree: Any) -> List[Any]:
    return select(tree, frozenset(("a", "div", "section", "span")), _discard_0_pred)


def _discard_1(tree: Any) -> List[Any]:
    root = _doc_root(tree)
    found = select_tags(root, frozenset(("time", "figure")))
    return [root, *found] if root.tag in ("time", "figure") else found


AUTHOR_DISCARD_XPATHS = (_discard_0, _discard_1)


# the containers of the category and tag links (//X[...]//a[@href])
def _cat_0(el: Any) -> bool:
    return el.tag == "div" and bool(_CAT_DIV_RX(_a(el, "class")) or _a(el, "id").startswith("postpath"))


def _cat_1(el: Any) -> bool:
    return el.tag == "p" and (_a(el, "class").startswith(("postmeta", "entry-categories"))
                              or _a(el, "class") == "postinfo" or _a(el, "id") == "filedunder")


def _cat_2(el: Any) -> bool:
    return el.tag == "footer" and _a(el, "class").startswith(("entry-meta", "entry-footer"))


def _cat_3(el: Any) -> bool:
    return el.tag in ("li", "span") and (_a(el, "class") in ("post-category", "postcategory", "entry-category")
                                         or "cat-links" in _a(el, "class"))


def _cat_4(el: Any) -> bool:
    return el.tag == "header" and _a(el, "class") == "entry-header"


def _cat_5(el: Any) -> bool:
    return el.tag == "div" and _a(el, "class") in ("row", "tags")


def _tag_0(el: Any) -> bool:
    return el.tag == "div" and _a(el, "class") == "tags"


def _tag_1(el: Any) -> bool:
    return el.tag == "p" and _a(el, "class").startswith("entry-tags")


def _tag_2(el: Any) -> bool:
    return el.tag == "div" and bool(_a(el, "class") in ("row", "jp-relatedposts", "entry-utility")
                                    or _TAG_DIV_RX(_a(el, "class")))


def _tag_3(el: Any) -> bool:
    return _a(el, "class") == "entry-meta" or "topics" in _a(el, "class") or "tags-links" in _a(el, "class")


def _footer_link_anchor(el: Any) -> bool:
    return el.tag == "footer" or (el.tag == "div" and ("footer" in _a(el, "class") or "footer" in _a(el, "id")))


register_exact(_cat_0, x_regex("class", _CAT_DIV_RX, tags=("div",)), x_starts("id", "postpath", tags=("div",)))
register_exact(_cat_1, x_starts("class", "postmeta", "entry-categories", tags=("p",)),
               x_eq("class", "postinfo", tags=("p",)), x_eq("id", "filedunder", tags=("p",)))
register_exact(_cat_2, x_starts("class", "entry-meta", "entry-footer", tags=("footer",)))
register_exact(_cat_3, x_eq("class", "post-category", "postcategory", "entry-category", tags=("li", "span")),
               x_contains("class", "cat-links", tags=("li", "span")))
register_exact(_cat_4, x_eq("class", "entry-header", tags=("header",)))
register_exact(_cat_5, x_eq("class", "row", "tags", tags=("div",)))
register_exact(_tag_0, x_eq("class", "tags", tags=("div",)))
register_exact(_tag_1, x_starts("class", "entry-tags", tags=("p",)))
register_exact(_tag_2, x_eq("class", "row", "jp-relatedposts", "entry-utility", tags=("div",)),
               x_regex("class", _TAG_DIV_RX, tags=("div",)))
register_exact(_tag_3, x_eq("class", "entry-meta"), x_contains("class", "topics", "tags-links"))
register_exact(_footer_link_anchor, x_true("footer"), x_contains("class", "footer", tags=("div",)),
               x_contains("id", "footer", tags=("div",)))
register_prefilter(_cat_0, regex("class", _CAT_DIV_RX), contains("id", "postpath"))
register_prefilter(_tag_2, contains("class", "row", "jp-relatedposts", "entry-utility"), regex("class", _TAG_DIV_RX))

#: the category and tag containers in upstream's order
CATEGORIES_ANCHORS = (_cat_0, _cat_1, _cat_2, _cat_3, _cat_4, _cat_5)
TAGS_ANCHORS = (_tag_0, _tag_1, _tag_2, _tag_3)


def _links_selector(anchor: Callable[[Any], bool]) -> Callable[[Any], List[Any]]:
    "The selector ``//X[anchor]//a[@href]``."
    return lambda tree: _links_under(tree, anchor)


CATEGORIES_XPATHS = tuple(_links_selector(anchor) for anchor in CATEGORIES_ANCHORS)
TAGS_XPATHS = tuple(_links_selector(anchor) for anchor in TAGS_ANCHORS)

URL_SELECTORS = (
    './/head//link[@rel="canonical"]', ".//head//base", './/head//link[@rel="alternate"][@hreflang="x-default"]',
)


# -- the extraction ---------------------------------------------------------------------------

def normalize_tags(tags: str) -> str:
    "Tags unescaped and trimmed, quotes removed, empty items dropped."
    trimmed = trim(unescape(tags))
    if not trimmed:
        return ""
    return ", ".join(filter(None, CLEAN_META_TAGS.sub("", trimmed).split(", ")))


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
        return c_minify(text, False)  # type: ignore[no-any-return]
    return "".join(filter(None, JSON_MINIFY.split(text)))


def extract_meta_json(tree: Any, metadata: Document) -> Document:
    "The JSON-LD (and settings+json) scripts, parsed, or salvaged by regex when json rejects them."
    for elem in select_tags(tree, _SCRIPT):
        if elem.get("type") not in ("application/ld+json", "application/settings+json"):
            continue
        if not elem.text:
            continue
        element_text = normalize_json(_minify(elem.text, core_of(elem)))
        try:
            schema = json.loads(element_text, strict=False)
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
    "OpenGraph first, then the head's other meta elements (property, name, itemprop)."
    metadata = document_from_dict(extract_opengraph(tree))
    tags: List[str] = []
    backup_sitename = None
    for elem in tree.iterfind(".//head/meta[@content]"):
        content_attr = HTML_STRIP_TAGS.sub("", elem.get("content", "")).strip()
        if not content_attr:
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
            elif name_attr in METANAME_IMAGE:
                metadata.image = metadata.image or content_attr
            elif name_attr in TWITTER_ATTRS or "twitter:app:name" in name_attr:
                backup_sitename = content_attr
            elif name_attr == "twitter:url" and not metadata.url and is_valid_url(content_attr):
                metadata.url = content_attr
            elif name_attr in METANAME_TAG:
                tags.append(normalize_tags(content_attr))
        elif "itemprop" in attrib:
            itemprop_attr = elem.get("itemprop", "").lower()
            if itemprop_attr == "author":
                metadata.author = normalize_authors(metadata.author, content_attr)
            elif itemprop_attr == "description":
                metadata.description = metadata.description or content_attr
            elif itemprop_attr == "headline":
                metadata.title = metadata.title or content_attr
    metadata.sitename = metadata.sitename or backup_sitename
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


def examine_title_element(tree: Any) -> Tuple[str, Optional[str], Optional[str]]:
    "The head's title, and its two parts around a separator when it has them."
    title = ""
    title_element = tree.find(".//head//title")
    if title_element is not None:
        title = trim(_string_value(title_element))
        found = HTMLTITLE_REGEX.match(title)
        if found:
            return title, found[1], found[2]
    return title, None, None


def extract_title(tree: Any) -> Optional[str]:
    "A lone h1, the title expressions, the title element's parts, any h1, the first h2."
    h1_results = tree.findall(".//h1")
    if len(h1_results) == 1:
        title = block_text(h1_results[0])
        if title:
            return title
    title = extract_metainfo(tree, TITLE_XPATHS) or ""
    if title:
        return title
    title, first, second = examine_title_element(tree)
    for candidate in (first, second, title):
        if candidate and "." not in candidate:
            return candidate
    for h1_result in h1_results:
        title = block_text(h1_result)
        if title:
            return title
    h2_results = select_tags(tree, _H2)
    if h2_results:
        title = block_text(h2_results[0])
    return title or None


def extract_author(tree: Any) -> Optional[str]:
    "The author expressions on a copy of the tree without comments, dates, figures..."
    subtree = prune_unwanted_nodes(copy_tree(tree), AUTHOR_DISCARD_XPATHS)
    author = extract_metainfo(subtree, AUTHOR_XPATHS, len_limit=120)
    if author:
        author = normalize_authors(None, author)
    return author


def extract_url(tree: Any, default_url: Optional[str] = None) -> Optional[str]:
    "The canonical (base, x-default) link, made absolute with an og:/twitter: URL, validated and normalised."
    url = None
    for selector in URL_SELECTORS:
        element = tree.find(selector)
        url = element.get("href") if element is not None else None
        if url:
            break
    if url and url.startswith("//"):
        url = f"https:{url}"
    elif url and url.startswith("/"):
        for element in tree.iterfind(".//head//meta[@content]"):
            attrtype = element.get("name") or element.get("property") or ""
            if attrtype.startswith(("og:", "twitter:")):
                base_url = safe_base_url(element.get("content"))
                if base_url:
                    url = base_url + url
                    break
    if url:
        valid, parsed_url = validate_url(url)
        url = normalize_url(parsed_url) if valid and parsed_url else None
    return url or default_url


def extract_sitename(tree: Any) -> Optional[str]:
    "The part of the title element that holds a dot."
    _, *parts = examine_title_element(tree)
    return next((part for part in parts if part and "." in part), None)


def extract_catstags(metatype: str, tree: Any) -> List[str]:
    "Link texts under the category or tag containers whose href names that kind of page."
    results: List[str] = []
    pattern = re.compile("/" + metatype.rstrip("y") + "(?:y|ies|s)?/")
    # CATEGORIES_XPATHS or TAGS_XPATHS, in order, until one gives a result (every
    # container list from one walk of the document on core trees)
    for links in _container_links(tree, CATEGORIES_ANCHORS if metatype == "category" else TAGS_ANCHORS):
        results.extend(block_text(elem) for elem in links if pattern.search(elem.get("href")))
        if results:
            break
    if metatype == "category" and not results:
        results.extend(
            element.get("content")
            for element in _under_head(
                tree, False, "meta",
                lambda el: (_a(el, "property") == "article:section" or "subject" in _a(el, "name"))
                and el.get("content") is not None,
            )
        )
    return [r for r in dict.fromkeys(line_processing(x) for x in results if x) if r]


def parse_license_element(element: Any, strict: bool = False) -> Optional[str]:
    "A CC licence from the link's href, else the link's text (strict: only a CC mention in it)."
    found = LICENSE_REGEX.search(element.get("href", ""))
    if found:
        return f"CC {found[1].upper()} {found[2]}"
    text = block_text(element)
    if text:
        if strict:
            found = TEXT_LICENSE_REGEX.search(text)
            return found[0] if found else None
        return text
    return None


def _rel_link(el: Any) -> bool:
    return el.get("rel") is not None and el.get("href") is not None


register_prefilter(_rel_link, present("rel"))


def extract_license(tree: Any) -> Optional[str]:
    "A link with rel=license, else a CC link in a footer."
    for element in select(tree, _A, _rel_link):  # .//a[@rel][@href]
        if "license" not in element.get("rel", "").lower().split():
            continue
        result = parse_license_element(element, strict=False)
        if result is not None:
            return result
    # .//footer//a[@href] | .//div[footer class or id]//a[@href]: the anchor lies below the tree
    for element in _links_under(tree, _footer_link_anchor, from_root=False):
        result = parse_license_element(element, strict=True)
        if result is not None:
            return result
    return None


def extract_metadata(
    filecontent: Any,
    default_url: Optional[str] = None,
    date_config: Optional[Dict[str, Any]] = None,
    extensive: bool = True,
    author_blacklist: Optional[Set[str]] = None,
) -> Document:
    """trafilatura.metadata.extract_metadata: the metadata fields of a page (HTML
    string or trafila tree) in a Document. The tree is left as it was."""
    author_blacklist = author_blacklist or set()
    date_config = {**date_config} if date_config else set_date_params(extensive)
    tree = load_html(filecontent)
    if tree is None:
        return Document()
    metadata = examine_meta(tree)
    if metadata.author and " " not in metadata.author:
        metadata.author = None
    try:
        metadata = extract_meta_json(tree, metadata)
    except Exception as err:  # noqa: BLE001 - as upstream (it logs and goes on with what was set)
        LOGGER.warning("error in JSON metadata extraction: %s", err)
    if not metadata.title:
        metadata.title = extract_title(tree)
    if metadata.author and author_blacklist:
        metadata.author = check_authors(metadata.author, author_blacklist)
    if not metadata.author:
        metadata.author = extract_author(tree)
    if metadata.author and author_blacklist:
        metadata.author = check_authors(metadata.author, author_blacklist)
    if not metadata.url:
        metadata.url = extract_url(tree, default_url)
    if metadata.url:
        metadata.hostname = extract_domain(metadata.url, fast=True)
    date_config["url"] = metadata.url
    metadata.date = _find_date(tree, date_config)
    if not metadata.sitename:
        metadata.sitename = extract_sitename(tree)
    if metadata.sitename:
        metadata.sitename = metadata.sitename.lstrip("@")
        if metadata.sitename and "." not in metadata.sitename and not metadata.sitename[0].isupper():
            metadata.sitename = metadata.sitename.title()
    elif metadata.url:
        found = META_URL.match(metadata.url)
        if found:
            metadata.sitename = found[1]
    if not metadata.categories:
        metadata.categories = extract_catstags("category", tree)
    if not metadata.tags:
        metadata.tags = extract_catstags("tag", tree)
    metadata.license = extract_license(tree)
    metadata.filedate = date_config.get("max_date")
    clean_and_trim(metadata)
    return metadata
