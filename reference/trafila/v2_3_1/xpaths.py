"""trafilatura 2.3.1's content XPaths (xpaths.py, settings.BASIC_CLEAN_XPATH and
the inline expressions of the text path), hand-translated to Python.

Each selector takes a context element and returns the node list lxml's XPath
returns: descendants of the context in document order, unions deduplicated.
XPath string rules kept here:

* a missing attribute compares as '' (``@a='x'`` is then false);
* ``@id|@class`` (a node-set) converts to the value of the attribute that comes
  first in source order, the other one is ignored (:func:`_first_attr`);
* EXSLT ``re:test(s, pattern[, 'i'])`` is ``re.search(pattern, s)`` (plus
  IGNORECASE for 'i'), lxml compiles patterns with ``re.UNICODE``;
* ``translate(s, 'CM', 'cm')`` maps characters one to one.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, List, Optional

from ._tree import desc_list, iter_desc

Selector = Callable[[Any], List[Any]]


def _attr(el: Any, name: str) -> str:
    value = el.get(name)
    return "" if value is None else value


def _first_attr(el: Any, names: Iterable[str]) -> str:
    "XPath string of ``@a|@b``: the first of those attributes in source order."
    for key, value in el.attrib.items():
        if key in names:
            return value
    return ""


_ID_CLASS = ("id", "class")
_ID_STYLE = ("id", "style")


def _rx(pattern: str, flags: int = 0) -> Callable[[str], Optional[Any]]:
    return re.compile(pattern, re.UNICODE | flags).search


def _alt(tokens: Iterable[str]) -> str:
    return "|".join(tokens)


def _select(ctx: Any, tags: Optional[frozenset], pred: Callable[[Any], bool]) -> List[Any]:
    "``.//*[self::t1 or ...][pred]`` (all tags when ``tags`` is None)."
    if tags is None:
        return [el for el in desc_list(ctx) if pred(el)]
    return [el for el in desc_list(ctx) if el.tag in tags and pred(el)]


def _select_first(ctx: Any, tags: Optional[frozenset], pred: Callable[[Any], bool]) -> List[Any]:
    "``(.//*[...][pred])[1]``: the first match in document order."
    for el in iter_desc(ctx):
        if (tags is None or el.tag in tags) and pred(el):
            return [el]
    return []


def _select_first_per_parent(ctx: Any, tags: frozenset, pred: Callable[[Any], bool]) -> List[Any]:
    "``.//*[...][pred][1]``: per parent, the first matching child (document order)."
    seen_parents = set()
    out = []
    for el in desc_list(ctx):
        if el.tag in tags and pred(el):
            parent = el.getparent()
            key = id(parent)
            if key in seen_parents:
                continue
            seen_parents.add(key)
            out.append(el)
    return out


# --- BODY_XPATH -----------------------------------------------------------------

_AMMS = frozenset(("article", "div", "main", "section"))
_ADS = frozenset(("article", "div", "section"))

_ARTICLE_CONTENT_ID = _rx(_alt((
    "(?:entry|article|art)-content", "article__content", "article(?:-|__)?body", "articleBody", "body-text",
)))
_ARTICLE_CONTENT_CLASS = _rx(_alt((
    "post[-_]text", "post-body", "post-?entry", "post[-_]?content", "postContent", "post_inner_wrapper",
    "article-?text", "articleText", "(?:entry|page|text|article|art)-content", "article__content",
    "article(?:-|__)?body", "articleBody", "ArticleContent", "body-text", "article__container",
)))
_STORY_ID = _rx(_alt(("^primary", "story-body")))
_STORY_CLASS = _rx(_alt((
    "^article ", "post-bodycopy", "story-?content", "(?:theme|blog|section|single)-content", "single-post",
    "main-column", "wpb_text_column", "story-body", "field-body",
)))
_FULLTEXT = _rx("fulltext", re.IGNORECASE)
_MAIN_CONTENT_ID = _rx(_alt(("content-main", "content-body", "contentBody")))
_MAIN_CONTENT_CLASS = _rx(_alt(("content[-_]main", "content(?:-|__)body")))
_TR_CM = str.maketrans("CM", "cm")
_TR_CP = str.maketrans("CP", "cp")
_TR_N = str.maketrans("N", "n")
_TR_T = str.maketrans("T", "t")


def _body0_pred(el: Any) -> bool:
    cls = _attr(el, "class")
    ident = _attr(el, "id")
    return (
        cls == "post"
        or cls == "entry"
        or _attr(el, "itemprop") == "articleBody"
        or ident == "articleContent"
        or bool(_ARTICLE_CONTENT_ID(ident))
        or bool(_ARTICLE_CONTENT_CLASS(cls))
    )


def _body2_pred(el: Any) -> bool:
    cls = _attr(el, "class")
    ident = _attr(el, "id")
    return (
        _attr(el, "role") == "article"
        or ident in ("article", "story")
        or cls in ("postarea", "art-postcontent", "text", "cell", "story")
        or bool(_STORY_ID(ident))
        or bool(_FULLTEXT(cls))
        or bool(_STORY_CLASS(cls))
    )


def _body3_pred(el: Any) -> bool:
    cls = _attr(el, "class")
    ident = _attr(el, "id")
    return (
        ident == "content"
        or cls == "content"
        or bool(_MAIN_CONTENT_ID(ident))
        or bool(_MAIN_CONTENT_CLASS(cls))
        or "main-content" in ident.translate(_TR_CM)
        or "main-content" in cls.translate(_TR_CM)
        or "page-content" in cls.translate(_TR_CP)
    )


def _body4_pred(el: Any) -> bool:
    return (
        _attr(el, "class").startswith("main")
        or _attr(el, "id").startswith("main")
        or _attr(el, "role").startswith("main")
    )


def body_xpath_0(ctx: Any) -> List[Any]:
    return _select_first_per_parent(ctx, _AMMS, _body0_pred)


def body_xpath_1(ctx: Any) -> List[Any]:
    for el in iter_desc(ctx, "article"):
        return [el]
    return []


def body_xpath_2(ctx: Any) -> List[Any]:
    return _select_first(ctx, _AMMS, _body2_pred)


def body_xpath_3(ctx: Any) -> List[Any]:
    return _select_first(ctx, _AMMS, _body3_pred)


def body_xpath_4(ctx: Any) -> List[Any]:
    "``(.//*[...][starts-with...])[1]|(.//main)[1]``, in document order."
    first_a = first_main = None
    for el in iter_desc(ctx):
        if first_a is None and el.tag in _ADS and _body4_pred(el):
            first_a = el
        if first_main is None and el.tag == "main":
            first_main = el
        if first_a is not None and first_main is not None:
            break
    if first_a is None:
        return [first_main] if first_main is not None else []
    if first_main is None or first_main is first_a:
        return [first_a]
    # both found: the one met first in document order comes first
    for el in iter_desc(ctx):
        if el is first_a:
            return [first_a, first_main]
        if el is first_main:
            return [first_main, first_a]
    return [first_a, first_main]  # pragma: no cover


BODY_XPATH: List[Selector] = [body_xpath_0, body_xpath_1, body_xpath_2, body_xpath_3, body_xpath_4]


def first_body_match(expr: Selector, ctx: Any) -> Optional[Any]:
    "``next(iter(expr(ctx)), None)`` without building the per-parent list."
    if expr is body_xpath_0:
        found = _select_first(ctx, _AMMS, _body0_pred)
        return found[0] if found else None
    found = expr(ctx)
    return found[0] if found else None


# --- COMMENTS_XPATH ---------------------------------------------------------------

_DLS = frozenset(("div", "list", "section"))
_DS = frozenset(("div", "section"))

_C1_IDCLASS = _rx("comment-?list")
_C1_CLASS = _rx("comment-page|comments-content|post-comments")
_C2_IDCLASS = _rx("^comment[s-]")
_C2_CLASS = _rx("^Comments|article-comments")
_C3_ID = _rx("^(?:comol|disqus_thread|dsq-comments)")


def comments_xpath_0(ctx: Any) -> List[Any]:
    return _select(
        ctx, _DLS, lambda el: bool(_C1_IDCLASS(_first_attr(el, _ID_CLASS)) or _C1_CLASS(_attr(el, "class")))
    )


def comments_xpath_1(ctx: Any) -> List[Any]:
    return _select(
        ctx, _DLS, lambda el: bool(_C2_IDCLASS(_first_attr(el, _ID_CLASS)) or _C2_CLASS(_attr(el, "class")))
    )


def comments_xpath_2(ctx: Any) -> List[Any]:
    return _select(ctx, _DLS, lambda el: bool(_C3_ID(_attr(el, "id"))))


def comments_xpath_3(ctx: Any) -> List[Any]:
    return _select(ctx, _DS, lambda el: _attr(el, "id").startswith("social") or "comment" in _attr(el, "class"))


COMMENTS_XPATH: List[Selector] = [comments_xpath_0, comments_xpath_1, comments_xpath_2, comments_xpath_3]


# --- REMOVE_COMMENTS(_AND_LISTS)_XPATH -----------------------------------------------

_COMMENTS_ID = "[Cc]omment(?!ary)|comol"
_COMMENTS_CLASS = "^[Cc]omment(?!ary)|(?:article|post)-comments"
_RC_ID = _rx(f"^(?:{_COMMENTS_ID}|disqus_thread|dsq-comments)")
_RC_CLASS = _rx(_COMMENTS_CLASS)
_RC_LIST_ID = _rx(f"^(?:{_COMMENTS_ID})")
_DLSD = frozenset(("div", "list", "section", "details"))
_DLSDOU = frozenset(("div", "list", "section", "details", "ol", "ul"))


def _rc_pred(el: Any) -> bool:
    return bool(_RC_ID(_attr(el, "id")) or _RC_CLASS(_attr(el, "class")))


def remove_comments_xpath(ctx: Any) -> List[Any]:
    return _select(ctx, _DLSD, _rc_pred)


def _rcl_pred(el: Any) -> bool:
    if not _rc_pred(el):
        return False
    return el.tag not in ("ol", "ul") or bool(_RC_LIST_ID(_attr(el, "id")) or _RC_CLASS(_attr(el, "class")))


def remove_comments_and_lists_xpath(ctx: Any) -> List[Any]:
    return _select(ctx, _DLSDOU, _rcl_pred)


REMOVE_COMMENTS_XPATH: List[Selector] = [remove_comments_xpath]
REMOVE_COMMENTS_AND_LISTS_XPATH: List[Selector] = [remove_comments_and_lists_xpath]


# --- RAW_TREE_PRUNE_XPATH -------------------------------------------------------------

_DSA = frozenset(("div", "section", "aside"))
_MVP_OR_SCROLL = _rx("mvp-post-add-(?:box|wrap)|infinite-?scroll")
_MVP = _rx("mvp-post-add-(?:box|wrap)")


def _raw0_pred(el: Any) -> bool:
    ident, cls = _attr(el, "id"), _attr(el, "class")
    if not (_MVP_OR_SCROLL(ident) or _MVP_OR_SCROLL(cls)):
        return False
    return next(iter_desc(el, "h1"), None) is None or bool(_MVP(ident) or _MVP(cls))


def raw_tree_prune_0(ctx: Any) -> List[Any]:
    return _select(ctx, _DSA, _raw0_pred)


def raw_tree_prune_1(ctx: Any) -> List[Any]:
    return _select(ctx, _DSA, lambda el: "elementor-share-buttons" in _attr(el, "class"))


RAW_TREE_PRUNE_XPATH: List[Selector] = [raw_tree_prune_0, raw_tree_prune_1]


# --- OVERALL_DISCARD_XPATH --------------------------------------------------------------

_BOTH = ("^shar", "social", "viral", "newsletter", "syndication", "tags", "sidebar", "banner", "bread-?crumb",
         "button", "author")
_OD_ID_ONLY = ("^(?:jp-|dpsp-content)", "bmdh", "footer", "Footer", "share", "Share", "nav", "Nav", "menu",
               "related", "message-container", "premium", "^ad-")
_OD_CLASS_ONLY = (
    "^(?:nav|post-nav|ZendeskForm)", "subnav", "avigation", "navbar", "navbox", "menu", "bar",
    " ad ", "-ad-", "(?:^| )ad-", "dfp[Aa]d", "outbrain", "taboola", "criteo", "paid-?content", "widget",
    "footer", "Footer", "byline", "Byline", "share-", "sociable", "embedded", "embed", "tag-list",
    "consent", "modal-content", "permission", "elated", "next-", "-stories", "most-popular", "more-on",
    "meta", "rating", "attachment", "timestamp", "user-info", "user-profile", "-icon", "article-infos",
    "message-container", "slide", "viewport", "overlay", "options", "expand", "obfuscated", "blurred",
    "mol-factbox", "yin", "zlylin", "nfoline",
)
_OD_COOKIE = _rx("cookie")
_OD_ID = _rx(_alt(_BOTH + _OD_ID_ONLY))
_OD_CLASS = _rx(_alt(_BOTH + _OD_CLASS_ONLY))
_DILPSS = frozenset(("div", "item", "list", "p", "section", "span"))


def _od0_pred(el: Any) -> bool:
    return (
        el.get("data-lp-replacement-content") is not None
        or "nav" in _attr(el, "role").translate(_TR_N)
        or "MostPopularStories" in _attr(el, "data-component")
        or bool(_OD_COOKIE(_first_attr(el, _ID_CLASS)))
        or bool(_OD_ID(_attr(el, "id")))
        or bool(_OD_CLASS(_attr(el, "class")))
    )


_OD1_HIDDEN = _rx("hidden")
_OD1_ID = _rx("reader-comments|akismet")
_OD1_CLASS = _rx(
    "^hide-|comments-title|nocomments|-reply-|message|akismet|suggest-links|-hide-|hide-print| hidden| hide|noprint|notloaded"
)


def _od1_pred(el: Any) -> bool:
    style = _attr(el, "style")
    return (
        _attr(el, "class") == "comments-title"
        or _first_attr(el, _ID_CLASS).startswith("reply-")
        or bool(_OD1_HIDDEN(_first_attr(el, _ID_STYLE)))
        or "display:none" in style
        or "display: none" in style
        or bool(_OD1_ID(_attr(el, "id")))
        or bool(_OD1_CLASS(_attr(el, "class")))
        or _attr(el, "aria-hidden") == "true"
    )


def overall_discard_0(ctx: Any) -> List[Any]:
    return _select(ctx, _DILPSS, _od0_pred)


def overall_discard_1(ctx: Any) -> List[Any]:
    return _select(ctx, None, _od1_pred)


OVERALL_DISCARD_XPATH: List[Selector] = [overall_discard_0, overall_discard_1]


# --- TEASER / PRECISION / DISCARD_IMAGE / COMMENTS_DISCARD ---------------------------------

def teaser_discard(ctx: Any) -> List[Any]:
    return _select(
        ctx,
        _DILPSS,
        lambda el: "teaser" in _attr(el, "id").translate(_TR_T) or "teaser" in _attr(el, "class").translate(_TR_T),
    )


TEASER_DISCARD_XPATH: List[Selector] = [teaser_discard]

_BOTTOM = _rx(r"(^|\s)bottom|bottom(\s|$)")
_LINK = _rx(r"(^|\s)link(\s|$)")


def precision_discard_0(ctx: Any) -> List[Any]:
    return [el for el in desc_list(ctx) if el.tag == "header"]


def _prec1_pred(el: Any) -> bool:
    first = _first_attr(el, _ID_CLASS)
    return bool(_BOTTOM(first)) or bool(_LINK(first)) or "border" in _attr(el, "style")


def precision_discard_1(ctx: Any) -> List[Any]:
    return _select(ctx, _DILPSS, _prec1_pred)


PRECISION_DISCARD_XPATH: List[Selector] = [precision_discard_0, precision_discard_1]


def discard_image_elements(ctx: Any) -> List[Any]:
    return _select(ctx, _DILPSS, lambda el: "caption" in _attr(el, "id") or "caption" in _attr(el, "class"))


DISCARD_IMAGE_ELEMENTS: List[Selector] = [discard_image_elements]


def comments_discard_0(ctx: Any) -> List[Any]:
    return _select(ctx, _DS, lambda el: _attr(el, "id").startswith("respond"))


_CITE_QUOTE = frozenset(("cite", "quote"))


def comments_discard_1(ctx: Any) -> List[Any]:
    return [el for el in desc_list(ctx) if el.tag in _CITE_QUOTE]


_CD_CLASS = _rx("comments-title|nocomments|-reply-|message|signin")
_CD_IDCLASS = _rx("^reply-|akismet")


def _cd2_pred(el: Any) -> bool:
    cls = _attr(el, "class")
    return (
        cls == "comments-title"
        or "display:none" in _attr(el, "style")
        or bool(_CD_CLASS(cls))
        or bool(_CD_IDCLASS(_first_attr(el, _ID_CLASS)))
    )


def comments_discard_2(ctx: Any) -> List[Any]:
    return _select(ctx, None, _cd2_pred)


COMMENTS_DISCARD_XPATH: List[Selector] = [comments_discard_0, comments_discard_1, comments_discard_2]


# --- settings.BASIC_CLEAN_XPATH (baseline, html2txt) -------------------------------------------

_COOKIE_CONSENT = _rx(
    "cookie[-_]?(?:banner|bar|consent|law|notice|policy|description)|notice[-_]{0,2}cookie"
    "|consent[-_]?(?:banner|manager|sdk)|borlabs|cookiebot|cmplz|onetrust|moove[-_]?gdpr",
    re.IGNORECASE,
)
_BASIC_TAGS = frozenset(("aside", "fencedframe", "footer", "script", "style", "svg", "template"))
_CLASS_ID = ("class", "id")


def _basic_clean_pred(el: Any) -> bool:
    tag = el.tag
    if tag in _BASIC_TAGS:
        return True
    if tag == "div" and "footer" in _first_attr(el, _CLASS_ID):
        return True
    return bool(_COOKIE_CONSENT(_attr(el, "class")) or _COOKIE_CONSENT(_attr(el, "id")))


def basic_clean_xpath(ctx: Any) -> List[Any]:
    return _select(ctx, None, _basic_clean_pred)


# --- inline expressions ------------------------------------------------------------------------

def tex_annotation(ctx: Any) -> List[Any]:
    "``.//*[local-name()='annotation'][@encoding='application/x-tex']``"
    return [el for el in desc_list(ctx) if el.tag == "annotation" and el.get("encoding") == "application/x-tex"]


def hljs_spans(ctx: Any) -> List[Any]:
    "``.//span[starts-with(@class,'hljs')]``"
    return [el for el in desc_list(ctx) if el.tag == "span" and _attr(el, "class").startswith("hljs")]


_WILD = frozenset(("code", "p", "quote", "table"))
_WILD_RECALL = frozenset(("code", "p", "quote", "table", "div", "lb", "list"))


def wild_text_elements(ctx: Any, recall: bool) -> List[Any]:
    """``.//code|.//p|.//quote|.//table|.//div[contains(@class, 'w3-code')]``,
    plus ``|.//div|.//lb|.//list`` in recall mode."""
    if recall:
        return [el for el in desc_list(ctx) if el.tag in _WILD_RECALL]
    return [
        el
        for el in desc_list(ctx)
        if el.tag in _WILD or (el.tag == "div" and "w3-code" in _attr(el, "class"))
    ]


def p_text_length(doc_root: Any) -> int:
    """``len("".join(subtree.xpath('//p//text()')))``: the text inside <p>
    elements of the whole document (``doc_root``), nested ones counted once."""
    total = 0
    stack = [doc_root]
    while stack:
        node = stack.pop()
        if node.tag == "p":
            # nested <p>s are inside this one's text already
            total += sum(len(t) for t in node.itertext())
        elif len(node):
            stack.extend(node[:])
    return total
