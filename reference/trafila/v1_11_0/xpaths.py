"""trafilatura 1.11.0's content XPaths (xpaths.py), hand-translated to Python.

Each selector quotes the upstream expression it translates. The XPath string
rules the translations follow, and the combinators, are in
:mod:`trafila.xpathlib`; ``@attr`` alone tests the attribute's presence.

BODY_XPATH and COMMENTS_XPATH are only ever used through their first result,
so they are :func:`~trafila.xpathlib.first_of` selectors: ``.//*[...][pred][1]``
(first matching child per parent) starts with the first match in document
order anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Tuple

from trafila.xpathlib import Selector, all_of, attr as _a, contains_any as _contains_any, first_of, tagset
from trafila.xpathlib import Predicate, Term, contains as _has, folded as _folded, present as _present
from trafila.xpathlib import attribute_memo as _attribute_memo, register_prefilter

if TYPE_CHECKING:
    from trafila.dom import Element

_ARTICLE_DIV_MAIN_SECTION = tagset("article", "div", "main", "section")
_ARTICLE_DIV_SECTION = tagset("article", "div", "section")
_DIV_LIST_SECTION = tagset("div", "list", "section")
_DIV_SECTION = tagset("div", "section")
_DIV_P = tagset("div", "p")
_DIV_ITEM_LIST_P_SECTION_SPAN = tagset("div", "item", "list", "p", "section", "span")

# --- BODY_XPATH -------------------------------------------------------------------

# BODY_XPATH[0]:
# .//*[(self::article or self::div or self::main or self::section)][
# @class="post" or @class="entry" or
# contains(@class, "post-text") or contains(@class, "post_text") or
# contains(@class, "post-body") or contains(@class, "post-entry") or contains(@class, "postentry") or
# contains(@class, "post-content") or contains(@class, "post_content") or
# contains(@class, "postcontent") or contains(@class, "postContent") or contains(@class, "post_inner_wrapper") or
# contains(@class, "article-text") or contains(@class, "articletext") or contains(@class, "articleText")
# or contains(@id, "entry-content") or
# contains(@class, "entry-content") or contains(@id, "article-content") or
# contains(@class, "article-content") or contains(@id, "article__content") or
# contains(@class, "article__content") or contains(@id, "article-body") or
# contains(@class, "article-body") or contains(@id, "article__body") or
# contains(@class, "article__body") or @itemprop="articleBody" or
# contains(translate(@id, "B", "b"), "articlebody") or contains(translate(@class, "B", "b"), "articleBody")
# or @id="articleContent" or contains(@class, "ArticleContent") or
# contains(@class, "page-content") or contains(@class, "text-content") or
# contains(@id, "body-text") or contains(@class, "body-text") or
# contains(@class, "article__container") or contains(@id, "art-content") or contains(@class, "art-content")][1]
_ARTICLE_BODY_CLASS = (
    "post-text", "post_text", "post-body", "post-entry", "postentry", "post-content", "post_content",
    "postcontent", "postContent", "post_inner_wrapper", "article-text", "articletext", "articleText",
    "entry-content", "article-content", "article__content", "article-body", "article__body",
    "ArticleContent", "page-content", "text-content", "body-text", "article__container", "art-content",
)
_ARTICLE_BODY_ID = (
    "entry-content", "article-content", "article__content", "article-body", "article__body",
    "body-text", "art-content",
)


def _is_article_body(el: Element) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    # contains(translate(@class, "B", "b"), "articleBody") can never be true: left out
    return (
        cls == "post" or cls == "entry"
        or _contains_any(cls, _ARTICLE_BODY_CLASS)
        or _contains_any(ident, _ARTICLE_BODY_ID)
        or _a(el, "itemprop") == "articleBody"
        or "articlebody" in ident.replace("B", "b")
        or ident == "articleContent"
    )


# BODY_XPATH[2]:
# (.//*[(self::article or self::div or self::main or self::section)][
# contains(@class, 'post-bodycopy') or
# contains(@class, 'storycontent') or contains(@class, 'story-content') or
# @class='postarea' or @class='art-postcontent' or
# contains(@class, 'theme-content') or contains(@class, 'blog-content') or
# contains(@class, 'section-content') or contains(@class, 'single-content') or
# contains(@class, 'single-post') or
# contains(@class, 'main-column') or contains(@class, 'wpb_text_column') or
# starts-with(@id, 'primary') or starts-with(@class, 'article ') or @class="text" or
# @id="article" or @class="cell" or @id="story" or @class="story" or
# contains(@class, "story-body") or contains(@id, "story-body") or contains(@class, "field-body") or
# contains(translate(@class, "FULTEX","fultex"), "fulltext")
# or @role='article'])[1]
_STORY_CLASS = (
    "post-bodycopy", "storycontent", "story-content", "theme-content", "blog-content", "section-content",
    "single-content", "single-post", "main-column", "wpb_text_column", "story-body", "field-body",
)
_TR_FULTEX = str.maketrans("FULTEX", "fultex")


def _is_story(el: Element) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        _contains_any(cls, _STORY_CLASS)
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


# BODY_XPATH[3]:
# (.//*[(self::article or self::div or self::main or self::section)][
# contains(@id, "content-main") or contains(@class, "content-main") or contains(@class, "content_main") or
# contains(@id, "content-body") or contains(@class, "content-body") or contains(@id, "contentBody")
# or contains(@class, "content__body") or contains(translate(@id, "CM","cm"), "main-content")
# or contains(translate(@class, "CM","cm"), "main-content")
# or contains(translate(@class, "CP","cp"), "page-content") or
# @id="content" or @class="content"])[1]
def _is_main_content(el: Element) -> bool:
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


# BODY_XPATH[4]:
# (.//*[(self::article or self::div or self::section)][starts-with(@class, "main") or
# starts-with(@id, "main") or starts-with(@role, "main")])[1]|(.//main)[1]
def _is_main(el: Element) -> bool:
    # the first of the two in document order, i.e. the first element matching either
    if el.tag == "main":
        return True
    return el.tag in _ARTICLE_DIV_SECTION and (
        _a(el, "class").startswith("main") or _a(el, "id").startswith("main") or _a(el, "role").startswith("main")
    )


BODY_XPATH: List[Selector] = [
    first_of(_ARTICLE_DIV_MAIN_SECTION, _is_article_body),
    first_of(tagset("article"), lambda el: True),  # (.//article)[1]
    first_of(_ARTICLE_DIV_MAIN_SECTION, _is_story),
    first_of(_ARTICLE_DIV_MAIN_SECTION, _is_main_content),
    first_of(None, _is_main),
]

# --- COMMENTS_XPATH -----------------------------------------------------------------


# .//*[(self::div or self::list or self::section)][contains(@id, 'commentlist')
# or contains(@class, 'commentlist') or contains(@class, 'comment-page') or
# contains(@id, 'comment-list') or contains(@class, 'comments-list') or
# contains(@class, 'comments-content') or contains(@class, 'post-comments')]
def _is_comment_list(el: Element) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        "commentlist" in ident or "comment-list" in ident
        or _contains_any(cls, ("commentlist", "comment-page", "comments-list", "comments-content", "post-comments"))
    )


# .//*[(self::div or self::section or self::list)][starts-with(@id, 'comments')
# or starts-with(@class, 'comments') or starts-with(@class, 'Comments') or
# starts-with(@id, 'comment-') or starts-with(@class, 'comment-') or
# contains(@class, 'article-comments')]
def _starts_with_comments(el: Element) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        ident.startswith("comments") or ident.startswith("comment-")
        or cls.startswith("comments") or cls.startswith("Comments") or cls.startswith("comment-")
        or "article-comments" in cls
    )


# .//*[(self::div or self::section or self::list)][starts-with(@id, 'comol') or
# starts-with(@id, 'disqus_thread') or starts-with(@id, 'dsq-comments')]
def _is_comment_service(el: Element) -> bool:
    ident = _a(el, "id")
    return ident.startswith("comol") or ident.startswith("disqus_thread") or ident.startswith("dsq-comments")


# .//*[(self::div or self::section)][starts-with(@id, 'social') or contains(@class, 'comment')]
def _is_social_or_comment(el: Element) -> bool:
    return _a(el, "id").startswith("social") or "comment" in _a(el, "class")


COMMENTS_XPATH: List[Selector] = [
    first_of(_DIV_LIST_SECTION, _is_comment_list),
    first_of(_DIV_LIST_SECTION, _starts_with_comments),
    first_of(_DIV_LIST_SECTION, _is_comment_service),
    first_of(_DIV_SECTION, _is_social_or_comment),
]

# --- pruning expressions (all matches) ------------------------------------------------

_TR_C = str.maketrans("C", "c")


# .//*[(self::div or self::list or self::section)][
# starts-with(translate(@id, "C","c"), 'comment') or
# starts-with(translate(@class, "C","c"), 'comment') or
# contains(@class, 'article-comments') or contains(@class, 'post-comments')
# or starts-with(@id, 'comol') or starts-with(@id, 'disqus_thread')
# or starts-with(@id, 'dsq-comments')
# ]
def _is_comments_section(el: Element) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        ident.translate(_TR_C).startswith("comment")
        or cls.translate(_TR_C).startswith("comment")
        or "article-comments" in cls or "post-comments" in cls
        or _is_comment_service(el)
    )


REMOVE_COMMENTS_XPATH: List[Selector] = [all_of(_DIV_LIST_SECTION, _is_comments_section)]


# .//*[(self::div or self::p)][
# contains(@id, "paywall") or contains(@id, "premium") or
# contains(@class, "paid-content") or contains(@class, "paidcontent") or
# contains(@class, "obfuscated") or contains(@class, "blurred") or
# contains(@class, "restricted") or contains(@class, "overlay")
# ]
def _is_paywall(el: Element) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        "paywall" in ident or "premium" in ident
        or _contains_any(cls, ("paid-content", "paidcontent", "obfuscated", "blurred", "restricted", "overlay"))
    )


PAYWALL_DISCARD_XPATH: List[Selector] = [all_of(_DIV_P, _is_paywall)]

_TR_F = str.maketrans("F", "f")
_TR_R = str.maketrans("R", "r")
_TR_S = str.maketrans("S", "s")
_TR_N = str.maketrans("N", "n")
_TR_B = str.maketrans("B", "b")
_TR_I = str.maketrans("I", "i")
_TR_T = str.maketrans("T", "t")

# the plain contains(@id, ...) / contains(@class, ...) tokens of OVERALL_DISCARD_XPATH[0]
_BOILERPLATE_ID = (
    "related", "viral", "social", "syndication", "newsletter", "cookie", "tags", "sidebar", "banner",
    "menu", "breadcrumb", "bread-crumb", "author", "button", "premium-", "paywall", "message_container",
    "bmdh",
)
_BOILERPLATE_CLASS = (
    "viral", "share-", "social", "sociable", "syndication", "embedded", "embed", "newsletter", "subnav",
    "cookie", "tags", "tag-list", "sidebar", "banner", "bar", "meta", "menu", "navbar", "navbox",
    "breadcrumb", "bread-crumb", "author", "button", "rating", "widget", "attachment", "timestamp",
    "user-info", "user-profile", "-ad-", "-icon", "article-infos", "outbrain", "taboola", "criteo",
    "options", "expand", "consent", "modal-content", "paid-content", "paidcontent", "obfuscated",
    "blurred", " ad ", "permission", "next-", "side-stories", "related-stories", "most-popular",
    "mol-factbox", "message-container", "yin", "zlylin", "xg1", "slide", "viewport",
)


# OVERALL_DISCARD_XPATH[0] (navigation + footers, news outlets related posts, sharing, jp-post-flair
# jp-relatedposts):
# .//*[(self::div or self::item or self::list
#          or self::p or self::section or self::span)][
# contains(translate(@id, "F","f"), "footer") or contains(translate(@class, "F","f"), "footer")
# or contains(@id, "related") or contains(translate(@class, "R", "r"), "related") or
# contains(@id, "viral") or contains(@class, "viral") or
# starts-with(@id, "shar") or starts-with(@class, "shar") or
# contains(@class, "share-") or
# contains(translate(@id, "S", "s"), "share") or
# contains(@id, "social") or contains(@class, "social") or contains(@class, "sociable") or
# contains(@id, "syndication") or contains(@class, "syndication") or
# starts-with(@id, "jp-") or starts-with(@id, "dpsp-content") or
# contains(@class, "embedded") or contains(@class, "embed")
# or contains(@id, "newsletter") or contains(@class, "newsletter")
# or contains(@class, "subnav") or
# contains(@id, "cookie") or contains(@class, "cookie") or
# contains(@id, "tags") or contains(@class, "tags")  or contains(@class, "tag-list") or
# contains(@id, "sidebar") or contains(@class, "sidebar") or
# contains(@id, "banner") or contains(@class, "banner") or contains(@class, "bar") or
# contains(@class, "meta") or contains(@id, "menu") or contains(@class, "menu") or
# contains(translate(@id, "N", "n"), "nav") or contains(translate(@role, "N", "n"), "nav")
# or starts-with(@class, "nav") or contains(translate(@class, "N", "n"), "navigation") or
# contains(@class, "navbar") or contains(@class, "navbox") or starts-with(@class, "post-nav")
# or contains(@id, "breadcrumb") or contains(@class, "breadcrumb") or
# contains(@id, "bread-crumb") or contains(@class, "bread-crumb") or
# contains(@id, "author") or contains(@class, "author") or
# contains(@id, "button") or contains(@class, "button")
# or contains(translate(@class, "B", "b"), "byline")
# or contains(@class, "rating") or contains(@class, "widget") or
# contains(@class, "attachment") or contains(@class, "timestamp") or
# contains(@class, "user-info") or contains(@class, "user-profile") or
# contains(@class, "-ad-") or contains(@class, "-icon")
# or contains(@class, "article-infos") or
# contains(translate(@class, "I", "i"), "infoline")
# or contains(@data-component, "MostPopularStories")
# or contains(@class, "outbrain") or contains(@class, "taboola")
# or contains(@class, "criteo") or contains(@class, "options") or contains(@class, "expand")
# or contains(@class, "consent") or contains(@class, "modal-content")
# or contains(@class, "paid-content") or contains(@class, "paidcontent")
# or contains(@id, "premium-") or contains(@id, "paywall")
# or contains(@class, "obfuscated") or contains(@class, "blurred")
# or contains(@class, " ad ") or contains(@class, "permission")
# or contains(@class, "next-") or contains(@class, "side-stories")
# or contains(@class, "related-stories") or contains(@class, "most-popular")
# or contains(@class, "mol-factbox") or starts-with(@class, "ZendeskForm")
# or contains(@class, "message-container") or contains(@id, "message_container")
# or contains(@class, "yin") or contains(@class, "zlylin")
# or contains(@class, "xg1") or contains(@id, "bmdh")
# or contains(@class, "slide") or contains(@class, "viewport")
# or @data-lp-replacement-content]
# attributes only, and the costliest predicate here: its verdicts are remembered per attribute list
@_attribute_memo
def _is_boilerplate(el: Element) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return (
        "footer" in ident.translate(_TR_F) or "footer" in cls.translate(_TR_F)
        or "related" in cls.translate(_TR_R)
        or ident.startswith("shar") or cls.startswith("shar")
        or "share" in ident.translate(_TR_S)
        or _contains_any(ident, _BOILERPLATE_ID)
        or _contains_any(cls, _BOILERPLATE_CLASS)
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


_HIDDEN_OR_REPLY_CLASS = (
    "comments-title", "nocomments", "-reply-", "message", "akismet", "suggest-links", "-hide-",
    "hide-print", " hidden", " hide", "noprint", "notloaded",
)


# OVERALL_DISCARD_XPATH[1] (comment debris + hidden parts):
# .//*[@class="comments-title" or contains(@class, "comments-title") or
# contains(@class, "nocomments") or starts-with(@id, "reply-") or starts-with(@class, "reply-") or
# contains(@class, "-reply-") or contains(@class, "message") or contains(@id, "reader-comments")
# or contains(@id, "akismet") or contains(@class, "akismet") or contains(@class, "suggest-links") or
# starts-with(@class, "hide-") or contains(@class, "-hide-") or contains(@class, "hide-print") or
# contains(@id, "hidden") or contains(@style, "hidden") or contains(@class, " hidden") or contains(@class, " hide")
# or contains(@class, "noprint") or contains(@style, "display:none") or contains(@style, "display: none")
# or @aria-hidden="true" or contains(@class, "notloaded")]
def _is_hidden_or_reply(el: Element) -> bool:
    cls, ident, style = _a(el, "class"), _a(el, "id"), _a(el, "style")
    return (
        _contains_any(cls, _HIDDEN_OR_REPLY_CLASS)
        or ident.startswith("reply-") or cls.startswith("reply-") or cls.startswith("hide-")
        or _contains_any(ident, ("reader-comments", "akismet", "hidden"))
        or _contains_any(style, ("hidden", "display:none", "display: none"))
        or _a(el, "aria-hidden") == "true"
    )


OVERALL_DISCARD_XPATH: List[Selector] = [
    all_of(_DIV_ITEM_LIST_P_SECTION_SPAN, _is_boilerplate),
    all_of(None, _is_hidden_or_reply),
]


# .//*[(self::div or self::item or self::list
#          or self::p or self::section or self::span)][
#     contains(translate(@id, "T", "t"), "teaser") or contains(translate(@class, "T", "t"), "teaser")
# ]
def _is_teaser(el: Element) -> bool:
    return "teaser" in _a(el, "id").translate(_TR_T) or "teaser" in _a(el, "class").translate(_TR_T)


TEASER_DISCARD_XPATH: List[Selector] = [all_of(_DIV_ITEM_LIST_P_SECTION_SPAN, _is_teaser)]


# PRECISION_DISCARD_XPATH[1]:
# .//*[(self::div or self::item or self::list
#          or self::p or self::section or self::span)][
#     contains(@id, "bottom") or contains(@class, "bottom") or
#     contains(@id, "link") or contains(@class, "link")
#     or contains(@style, "border")
# ]
def _is_bottom_link_or_border(el: Element) -> bool:
    cls, ident = _a(el, "class"), _a(el, "id")
    return "bottom" in ident or "bottom" in cls or "link" in ident or "link" in cls or "border" in _a(el, "style")


PRECISION_DISCARD_XPATH: List[Selector] = [
    lambda ctx: list(ctx.iterdescendants("header")),  # .//header
    all_of(_DIV_ITEM_LIST_P_SECTION_SPAN, _is_bottom_link_or_border),
]


# .//*[(self::div or self::item or self::list
#          or self::p or self::section or self::span)][
#          contains(@id, "caption") or contains(@class, "caption")
#         ]
def _is_caption(el: Element) -> bool:
    return "caption" in _a(el, "id") or "caption" in _a(el, "class")


DISCARD_IMAGE_ELEMENTS: List[Selector] = [all_of(_DIV_ITEM_LIST_P_SECTION_SPAN, _is_caption)]


# COMMENTS_DISCARD_XPATH[2]:
# .//*[@class="comments-title" or contains(@class, "comments-title") or
# contains(@class, "nocomments") or starts-with(@id, "reply-") or
# starts-with(@class, "reply-") or contains(@class, "-reply-") or contains(@class, "message")
# or contains(@class, "signin") or
# contains(@id, "akismet") or contains(@class, "akismet") or contains(@style, "display:none")]
def _is_comment_chrome(el: Element) -> bool:
    cls = _a(el, "class")
    return (
        _contains_any(cls, ("comments-title", "nocomments", "-reply-", "message", "signin", "akismet"))
        or cls.startswith("reply-")
        or _a(el, "id").startswith("reply-")
        or "akismet" in _a(el, "id")
        or "display:none" in _a(el, "style")
    )


COMMENTS_DISCARD_XPATH: List[Selector] = [
    # .//*[(self::div or self::section)][starts-with(@id, "respond")]
    all_of(_DIV_SECTION, lambda el: _a(el, "id").startswith("respond")),
    lambda ctx: list(ctx.iterdescendants("cite", "quote")),  # .//cite|.//quote
    all_of(None, _is_comment_chrome),
]


# --- the prefilters: each predicate's necessary condition on core trees -----------------------
# (trafila.xpathlib.register_prefilter: the predicate can only be true where one term holds; on
# core trees only those nodes meet the Python predicate). How each XPath test is covered:
#   contains(@a, L), starts-with(@a, L), @a=L     -> _has(a, L): the value contains L (L is never
#                                                    empty, so a missing attribute, '', fails);
#   contains(translate(@a, 'XY', 'xy'), L) and starts-with(translate(...), L)
#                                                 -> _folded(a, L): every translate here maps
#      upper-case ASCII letters to their lower case only, so where the translated value holds L,
#      the value with ALL its ASCII letters lowered holds L.lower() at the same place (a mapped
#      letter lowers to what it maps to, an unmapped character is itself; non-ASCII characters
#      are left alone on both sides and never equal an ASCII byte of L). This holds whether the
#      translate maps every letter of L (FULTEX/fulltext) or some (B/articlebody, CM/main-content,
#      N/nav), as the 2.3.1 port's _folded("role", "nav") already relies on;
#   @a (presence)                                 -> _present(a).
# The literals are the predicates' own tuples where they have one; the others are restated here
# (tests/test_core_accel_selectors.py checks on every node that the condition holds wherever the
# predicate does). Left unregistered: BODY_XPATH[1]'s ``lambda el: True`` (true on every <article>,
# which the C tag filter already selects) and COMMENTS_DISCARD_XPATH[0]'s starts-with(@id,
# 'respond') lambda (no name to register it under; the tag filter narrows it to div/section).


def _merged(*terms: Term) -> Tuple[Term, ...]:
    """The same disjunction with one term per (attribute, kind) and no literal another one
    implies: a value containing L also contains any part of L (plain), and its lowered form
    contains any part of L.lower() (folded), so the longer literal adds nothing."""
    by_key: Dict[Tuple[str, str], List[str]] = {}
    for names, kind, literals in terms:
        for name in names:
            lits = by_key.setdefault((name, kind), [])
            lits.extend(lit for lit in literals if lit not in lits)
    out: List[Term] = []
    for (name, kind), lits in by_key.items():
        folds = by_key.get((name, "fold"), []) if kind == "contains" else []

        def implied(lit: str, lits: List[str] = lits, kind: str = kind, folds: List[str] = folds) -> bool:
            if kind == "present":
                return False
            low = lit.lower()
            if any(f.lower() in low for f in folds):
                return True
            if kind == "fold":
                return any(o != lit and o.lower() in low for o in lits)
            return any(o != lit and o in lit for o in lits)

        kept = tuple(lit for lit in lits if not implied(lit))
        if kind == "present" or kept:
            out.append(((name,), kind, kept))
    return tuple(out)


def _prefilter(pred: Predicate, *terms: Term, pass_tags: Tuple[str, ...] = ()) -> None:
    "Register ``pred``'s prefilter: the terms :func:`_merged` (the same condition)."
    register_prefilter(pred, *_merged(*terms), pass_tags=pass_tags)


_ID_CLASS = ("id", "class")

_prefilter(_is_article_body, _has("class", "post", "entry", *_ARTICLE_BODY_CLASS), _has("id", *_ARTICLE_BODY_ID),
           _has("itemprop", "articleBody"), _folded("id", "articlebody"), _has("id", "articleContent"))
_prefilter(_is_story, _has("class", *_STORY_CLASS, "postarea", "art-postcontent", "text", "cell", "story", "article "),
           _has("id", "primary", "article", "story", "story-body"), _folded("class", "fulltext"),
           _has("role", "article"))
_prefilter(_is_main_content, _has("id", "content-main", "content-body", "contentBody", "content"),
           _has("class", "content-main", "content_main", "content-body", "content__body", "content"),
           _folded(_ID_CLASS, "main-content"), _folded("class", "page-content"))
_prefilter(_is_main, _has(("class", "id", "role"), "main"), pass_tags=("main",))
_prefilter(_is_comment_list, _has("id", "commentlist", "comment-list"),
           _has("class", "commentlist", "comment-page", "comments-list", "comments-content", "post-comments"))
_prefilter(_starts_with_comments, _has("id", "comments", "comment-"),
           _has("class", "comments", "Comments", "comment-", "article-comments"))
_prefilter(_is_comment_service, _has("id", "comol", "disqus_thread", "dsq-comments"))
_prefilter(_is_social_or_comment, _has("id", "social"), _has("class", "comment"))
_prefilter(_is_comments_section, _folded(_ID_CLASS, "comment"), _has("class", "article-comments", "post-comments"),
           _has("id", "comol", "disqus_thread", "dsq-comments"))
_prefilter(_is_paywall, _has("id", "paywall", "premium"),
           _has("class", "paid-content", "paidcontent", "obfuscated", "blurred", "restricted", "overlay"))
_prefilter(_is_boilerplate, _folded(_ID_CLASS, "footer"), _folded("class", "related"), _has(_ID_CLASS, "shar"),
           _folded("id", "share"), _has("id", *_BOILERPLATE_ID), _has("class", *_BOILERPLATE_CLASS),
           _has("id", "jp-", "dpsp-content"), _folded(("id", "role"), "nav"), _has("class", "nav", "post-nav"),
           _folded("class", "navigation", "byline", "infoline"), _has("data-component", "MostPopularStories"),
           _has("class", "ZendeskForm"), _present("data-lp-replacement-content"))
_prefilter(_is_hidden_or_reply, _has("class", *_HIDDEN_OR_REPLY_CLASS, "reply-", "hide-"),
           _has("id", "reply-", "reader-comments", "akismet", "hidden"),
           _has("style", "hidden", "display:none", "display: none"), _has("aria-hidden", "true"))
_prefilter(_is_teaser, _folded(_ID_CLASS, "teaser"))
_prefilter(_is_bottom_link_or_border, _has(_ID_CLASS, "bottom", "link"), _has("style", "border"))
_prefilter(_is_caption, _has(_ID_CLASS, "caption"))
_prefilter(_is_comment_chrome,
           _has("class", "comments-title", "nocomments", "-reply-", "message", "signin", "akismet", "reply-"),
           _has("id", "reply-", "akismet"), _has("style", "display:none"))


# --- inline expressions of the text path -------------------------------------------------

def figures_with_table(tree: Element) -> List[Element]:
    "``.//figure[descendant::table]`` (htmlprocessing.tree_cleaning)"
    return [el for el in tree.iterdescendants("figure") if next(el.iterdescendants("table"), None) is not None]


def root_of_document(el: Element) -> List[Element]:
    """The top-level elements of ``el``'s document: where an absolute ``//x``
    starts (a detached element still belongs to its old document)."""
    doc = el.getroottree()
    children = getattr(doc, "children", None)
    if children is not None:
        return list(children)
    root = doc.getroot()
    return [] if root is None else [root]


def absolute_iter(el: Element, *tags: str) -> List[Element]:
    "``//t1|//t2...`` evaluated from ``el``: every match in its document, in document order."
    from trafila._backend import core_of

    out: List[Element] = []
    for top in root_of_document(el):
        core = core_of(top)
        if core is not None and tags:
            out.extend(core.descendants(top, tags, True))
        else:
            out.extend(top.iter(*tags))
    return out


# --- the exact matchers: each predicate as a disjunction of exact terms on core trees ---------
# (trafila.xpathlib.register_exact: the selectors take the verdict from C; every test here is a
# plain contains / starts-with / = on one attribute, or on its translate(); the tests prove each
# spec equal to its predicate on every node)

from trafila.xpathlib import register_exact as _exact  # noqa: E402
from trafila.xpathlib import x_contains as _x_has, x_eq as _x_eq, x_present as _x_present  # noqa: E402
from trafila.xpathlib import x_starts as _x_starts, x_true as _x_true  # noqa: E402

_exact(_is_article_body, _x_eq("class", "post", "entry"), _x_has("class", *_ARTICLE_BODY_CLASS),
       _x_has("id", *_ARTICLE_BODY_ID), _x_eq("itemprop", "articleBody"), _x_has("id", "articlebody", tr=_TR_B),
       _x_eq("id", "articleContent"))
_exact(_is_story, _x_has("class", *_STORY_CLASS), _x_eq("class", "postarea", "art-postcontent", "text", "cell", "story"),
       _x_starts("id", "primary"), _x_starts("class", "article "), _x_eq("id", "article", "story"),
       _x_has("id", "story-body"), _x_has("class", "fulltext", tr=_TR_FULTEX), _x_eq("role", "article"))
_exact(_is_main_content, _x_has("id", "content-main", "content-body", "contentBody"),
       _x_has("class", "content-main", "content_main", "content-body", "content__body"),
       _x_has("id", "main-content", tr=_TR_CM), _x_has("class", "main-content", tr=_TR_CM),
       _x_has("class", "page-content", tr=_TR_CP), _x_eq("id", "content"), _x_eq("class", "content"))
_exact(_is_main, _x_true("main"), *(_x_starts(name, "main", tags=tuple(_ARTICLE_DIV_SECTION))
                                    for name in ("class", "id", "role")))
_exact(_is_comment_list, _x_has("id", "commentlist", "comment-list"),
       _x_has("class", "commentlist", "comment-page", "comments-list", "comments-content", "post-comments"))
_exact(_starts_with_comments, _x_starts("id", "comments", "comment-"),
       _x_starts("class", "comments", "Comments", "comment-"), _x_has("class", "article-comments"))
_exact(_is_comment_service, _x_starts("id", "comol", "disqus_thread", "dsq-comments"))
_exact(_is_social_or_comment, _x_starts("id", "social"), _x_has("class", "comment"))
_exact(_is_comments_section, _x_starts("id", "comment", tr=_TR_C), _x_starts("class", "comment", tr=_TR_C),
       _x_has("class", "article-comments", "post-comments"),
       _x_starts("id", "comol", "disqus_thread", "dsq-comments"))
_exact(_is_paywall, _x_has("id", "paywall", "premium"),
       _x_has("class", "paid-content", "paidcontent", "obfuscated", "blurred", "restricted", "overlay"))
_exact(_is_boilerplate, _x_has("id", "footer", tr=_TR_F), _x_has("class", "footer", tr=_TR_F),
       _x_has("class", "related", tr=_TR_R), _x_starts("id", "shar"), _x_starts("class", "shar"),
       _x_has("id", "share", tr=_TR_S), _x_has("id", *_BOILERPLATE_ID), _x_has("class", *_BOILERPLATE_CLASS),
       _x_starts("id", "jp-", "dpsp-content"), _x_has("id", "nav", tr=_TR_N), _x_has("role", "nav", tr=_TR_N),
       _x_starts("class", "nav"), _x_has("class", "navigation", tr=_TR_N), _x_starts("class", "post-nav"),
       _x_has("class", "byline", tr=_TR_B), _x_has("class", "infoline", tr=_TR_I),
       _x_has("data-component", "MostPopularStories"), _x_starts("class", "ZendeskForm"),
       _x_present("data-lp-replacement-content"))
_exact(_is_hidden_or_reply, _x_has("class", *_HIDDEN_OR_REPLY_CLASS), _x_starts("id", "reply-"),
       _x_starts("class", "reply-", "hide-"), _x_has("id", "reader-comments", "akismet", "hidden"),
       _x_has("style", "hidden", "display:none", "display: none"), _x_eq("aria-hidden", "true"))
_exact(_is_teaser, _x_has("id", "teaser", tr=_TR_T), _x_has("class", "teaser", tr=_TR_T))
_exact(_is_bottom_link_or_border, _x_has("id", "bottom", "link"), _x_has("class", "bottom", "link"),
       _x_has("style", "border"))
_exact(_is_caption, _x_has("id", "caption"), _x_has("class", "caption"))
_exact(_is_comment_chrome,
       _x_has("class", "comments-title", "nocomments", "-reply-", "message", "signin", "akismet"),
       _x_starts("class", "reply-"), _x_starts("id", "reply-"), _x_has("id", "akismet"),
       _x_has("style", "display:none"))
