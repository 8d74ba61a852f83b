"""trafilatura 1.11.0's content XPaths (xpaths.py), hand-translated to Python.

Each selector takes a context element and returns the node list lxml's XPath
returns, computed before the caller mutates anything: descendants of the
context in document order. XPath string rules kept here: a missing attribute
is '' (so ``contains``/``starts-with``/``=`` on it are false, except the empty
prefix), ``translate(s, 'AB', 'ab')`` maps characters one to one, and
``@attr`` alone tests the attribute's presence.

BODY_XPATH and COMMENTS_XPATH are only ever used through their first result,
so they are :func:`_first` selectors: ``.//*[...][pred][1]`` (first matching
child per parent) starts with the first match in document order anyway.
"""

from __future__ import annotations

from typing import Any, Callable, FrozenSet, List, Optional

Selector = Callable[[Any], List[Any]]


def _a(el: Any, name: str) -> str:
    value = el.get(name)
    return "" if value is None else value


def _all(tags: Optional[FrozenSet[str]], pred: Callable[[Any], bool]) -> Selector:
    "``.//*[self::t1 or ...][pred]`` (any element when ``tags`` is None)."
    if tags is None:
        return lambda ctx: [el for el in ctx.iterdescendants() if pred(el)]
    return lambda ctx: [el for el in ctx.iterdescendants() if el.tag in tags and pred(el)]


def _first(tags: Optional[FrozenSet[str]], pred: Callable[[Any], bool]) -> Selector:
    "``(.//*[...][pred])[1]``: the first match in document order."

    def select(ctx: Any) -> List[Any]:
        for el in ctx.iterdescendants():
            if (tags is None or el.tag in tags) and pred(el):
                return [el]
        return []

    return select


def _tags(*names: str) -> FrozenSet[str]:
    return frozenset(names)


def _contains_any(value: str, needles: tuple) -> bool:
    return any(n in value for n in needles)


_AMMS = _tags("article", "div", "main", "section")
_ADS = _tags("article", "div", "section")
_DLS = _tags("div", "list", "section")
_DS = _tags("div", "section")
_DP = _tags("div", "p")
_DILPSS = _tags("div", "item", "list", "p", "section", "span")

# --- BODY_XPATH -------------------------------------------------------------------

_B0_CLASS = (
    "post-text", "post_text", "post-body", "post-entry", "postentry", "post-content", "post_content",
    "postcontent", "postContent", "post_inner_wrapper", "article-text", "articletext", "articleText",
    "entry-content", "article-content", "article__content", "article-body", "article__body",
    "ArticleContent", "page-content", "text-content", "body-text", "article__container", "art-content",
)
_B0_ID = (
    "entry-content", "article-content", "article__content", "article-body", "article__body",
    "body-text", "art-content",
)


def _body0(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    # contains(translate(@class, "B", "b"), "articleBody") can never be true: left out
    return (
        cls == "post" or cls == "entry"
        or _contains_any(cls, _B0_CLASS)
        or _contains_any(ident, _B0_ID)
        or _a(el, "itemprop") == "articleBody"
        or "articlebody" in ident.replace("B", "b")
        or ident == "articleContent"
    )


_B2_CLASS = (
    "post-bodycopy", "storycontent", "story-content", "theme-content", "blog-content", "section-content",
    "single-content", "single-post", "main-column", "wpb_text_column", "story-body", "field-body",
)
_TR_FULTEX = str.maketrans("FULTEX", "fultex")


def _body2(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        _contains_any(cls, _B2_CLASS)
        or cls in ("postarea", "art-postcontent", "text", "cell", "story")
        or ident.startswith("primary")
        or cls.startswith("article ")
        or ident in ("article", "story")
        or "story-body" in ident
        or "fulltext" in cls.translate(_TR_FULTEX)
        or _a(el, "role") == "article"
    )


_TR_CM = str.maketrans("CM", "cm")
_TR_CP = str.maketrans("CP", "cp")


def _body3(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        _contains_any(ident, ("content-main", "content-body", "contentBody"))
        or _contains_any(cls, ("content-main", "content_main", "content-body", "content__body"))
        or "main-content" in ident.translate(_TR_CM)
        or "main-content" in cls.translate(_TR_CM)
        or "page-content" in cls.translate(_TR_CP)
        or ident == "content"
        or cls == "content"
    )


def _body4(el: Any) -> bool:
    # (.//*[article|div|section][starts-with main])[1] | (.//main)[1]: the first
    # of the two in document order, i.e. the first element matching either
    if el.tag == "main":
        return True
    return el.tag in _ADS and (
        _a(el, "class").startswith("main") or _a(el, "id").startswith("main") or _a(el, "role").startswith("main")
    )


BODY_XPATH: List[Selector] = [
    _first(_AMMS, _body0),
    _first(_tags("article"), lambda el: True),
    _first(_AMMS, _body2),
    _first(_AMMS, _body3),
    _first(None, _body4),
]

# --- COMMENTS_XPATH -----------------------------------------------------------------


def _comments0(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        "commentlist" in ident or "comment-list" in ident
        or _contains_any(cls, ("commentlist", "comment-page", "comments-list", "comments-content", "post-comments"))
    )


def _comments1(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        ident.startswith("comments") or ident.startswith("comment-")
        or cls.startswith("comments") or cls.startswith("Comments") or cls.startswith("comment-")
        or "article-comments" in cls
    )


def _comments2(el: Any) -> bool:
    ident = _a(el, "id")
    return ident.startswith("comol") or ident.startswith("disqus_thread") or ident.startswith("dsq-comments")


def _comments3(el: Any) -> bool:
    return _a(el, "id").startswith("social") or "comment" in _a(el, "class")


COMMENTS_XPATH: List[Selector] = [
    _first(_DLS, _comments0),
    _first(_DLS, _comments1),
    _first(_DLS, _comments2),
    _first(_DS, _comments3),
]

# --- pruning expressions (all matches) ------------------------------------------------

_TR_C = str.maketrans("C", "c")


def _remove_comments(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        ident.translate(_TR_C).startswith("comment")
        or cls.translate(_TR_C).startswith("comment")
        or "article-comments" in cls or "post-comments" in cls
        or _comments2(el)
    )


REMOVE_COMMENTS_XPATH: List[Selector] = [_all(_DLS, _remove_comments)]


def _paywall(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        "paywall" in ident or "premium" in ident
        or _contains_any(cls, ("paid-content", "paidcontent", "obfuscated", "blurred", "restricted", "overlay"))
    )


PAYWALL_DISCARD_XPATH: List[Selector] = [_all(_DP, _paywall)]

_TR_F = str.maketrans("F", "f")
_TR_R = str.maketrans("R", "r")
_TR_S = str.maketrans("S", "s")
_TR_N = str.maketrans("N", "n")
_TR_B = str.maketrans("B", "b")
_TR_I = str.maketrans("I", "i")
_TR_T = str.maketrans("T", "t")

_OV_ID = (
    "related", "viral", "social", "syndication", "newsletter", "cookie", "tags", "sidebar", "banner",
    "menu", "breadcrumb", "bread-crumb", "author", "button", "premium-", "paywall", "message_container",
    "bmdh",
)
_OV_CLASS = (
    "viral", "share-", "social", "sociable", "syndication", "embedded", "embed", "newsletter", "subnav",
    "cookie", "tags", "tag-list", "sidebar", "banner", "bar", "meta", "menu", "navbar", "navbox",
    "breadcrumb", "bread-crumb", "author", "button", "rating", "widget", "attachment", "timestamp",
    "user-info", "user-profile", "-ad-", "-icon", "article-infos", "outbrain", "taboola", "criteo",
    "options", "expand", "consent", "modal-content", "paid-content", "paidcontent", "obfuscated",
    "blurred", " ad ", "permission", "next-", "side-stories", "related-stories", "most-popular",
    "mol-factbox", "message-container", "yin", "zlylin", "xg1", "slide", "viewport",
)


def _overall0(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        "footer" in ident.translate(_TR_F) or "footer" in cls.translate(_TR_F)
        or "related" in cls.translate(_TR_R)
        or ident.startswith("shar") or cls.startswith("shar")
        or "share" in ident.translate(_TR_S)
        or _contains_any(ident, _OV_ID)
        or _contains_any(cls, _OV_CLASS)
        or ident.startswith("jp-") or ident.startswith("dpsp-content")
        or "nav" in ident.translate(_TR_N) or "nav" in _a(el, "role").translate(_TR_N)
        or cls.startswith("nav") or "navigation" in cls.translate(_TR_N)
        or cls.startswith("post-nav")
        or "byline" in cls.translate(_TR_B)
        or "infoline" in cls.translate(_TR_I)
        or "MostPopularStories" in _a(el, "data-component")
        or cls.startswith("ZendeskForm")
        or el.get("data-lp-replacement-content") is not None
    )


_OV1_CLASS = (
    "comments-title", "nocomments", "-reply-", "message", "akismet", "suggest-links", "-hide-",
    "hide-print", " hidden", " hide", "noprint", "notloaded",
)


def _overall1(el: Any) -> bool:
    cls, ident, style = _a(el, "class"), _a(el, "id"), _a(el, "style")
    return (
        _contains_any(cls, _OV1_CLASS)
        or ident.startswith("reply-") or cls.startswith("reply-") or cls.startswith("hide-")
        or _contains_any(ident, ("reader-comments", "akismet", "hidden"))
        or _contains_any(style, ("hidden", "display:none", "display: none"))
        or _a(el, "aria-hidden") == "true"
    )


OVERALL_DISCARD_XPATH: List[Selector] = [_all(_DILPSS, _overall0), _all(None, _overall1)]


def _teaser(el: Any) -> bool:
    return "teaser" in _a(el, "id").translate(_TR_T) or "teaser" in _a(el, "class").translate(_TR_T)


TEASER_DISCARD_XPATH: List[Selector] = [_all(_DILPSS, _teaser)]


def _precision1(el: Any) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return "bottom" in ident or "bottom" in cls or "link" in ident or "link" in cls or "border" in _a(el, "style")


PRECISION_DISCARD_XPATH: List[Selector] = [
    lambda ctx: list(ctx.iterdescendants("header")),
    _all(_DILPSS, _precision1),
]


def _caption(el: Any) -> bool:
    return "caption" in _a(el, "id") or "caption" in _a(el, "class")


DISCARD_IMAGE_ELEMENTS: List[Selector] = [_all(_DILPSS, _caption)]


def _comments_discard2(el: Any) -> bool:
    cls = _a(el, "class")
    return (
        _contains_any(cls, ("comments-title", "nocomments", "-reply-", "message", "signin", "akismet"))
        or cls.startswith("reply-")
        or _a(el, "id").startswith("reply-")
        or "akismet" in _a(el, "id")
        or "display:none" in _a(el, "style")
    )


COMMENTS_DISCARD_XPATH: List[Selector] = [
    _all(_DS, lambda el: _a(el, "id").startswith("respond")),
    lambda ctx: list(ctx.iterdescendants("cite", "quote")),
    _all(None, _comments_discard2),
]


# --- inline expressions of the text path -------------------------------------------------

def figures_with_table(tree: Any) -> List[Any]:
    "``.//figure[descendant::table]``"
    return [el for el in tree.iterdescendants("figure") if next(el.iterdescendants("table"), None) is not None]


def root_of_document(el: Any) -> List[Any]:
    """The top-level elements of ``el``'s document: where an absolute ``//x``
    starts (a detached element still belongs to its old document)."""
    doc = el.getroottree()
    children = getattr(doc, "children", None)
    if children is not None:
        return list(children)
    root = doc.getroot()
    return [] if root is None else [root]


def absolute_iter(el: Any, *tags: str) -> List[Any]:
    "``//t1|//t2...`` evaluated from ``el``: every match in its document, in document order."
    out: List[Any] = []
    for top in root_of_document(el):
        out.extend(top.iter(*tags))
    return out
