"""trafilatura 2.3.1's content XPaths (xpaths.py, settings.BASIC_CLEAN_XPATH and
the inline expressions of the text path), hand-translated to Python.

Each selector quotes the upstream expression it translates (its regex token
tuples written out where upstream composes them with ``_alt``). The XPath
string rules the translations follow, and the combinators, are in
:mod:`trafila.xpathlib`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, List, Optional

from ..xpathlib import Selector, alt as _alt, attr as _attr, first_attr as _first_attr, rx as _rx
from ..xpathlib import select as _select, select_first as _select_first
from ..xpathlib import select_first_per_parent as _select_first_per_parent
from ..xpathlib import select_tags as _select_tags
from ..xpathlib import contains as _has, folded as _folded, present as _present, regex as _re_term
from ..xpathlib import register_prefilter as _prefilter, core_candidates as _core_candidates
from .._backend import core_of as _core_of
from ._tree import desc_list, iter_desc

if TYPE_CHECKING:
    from ..dom import Element

_ID_CLASS = ("id", "class")
_ID_STYLE = ("id", "style")


# --- BODY_XPATH -----------------------------------------------------------------

_ARTICLE_DIV_MAIN_SECTION = frozenset(("article", "div", "main", "section"))
_ARTICLE_DIV_SECTION = frozenset(("article", "div", "section"))

# upstream's token tuples, joined by _alt into the re:test patterns
_ARTICLE_CONTENT_ID = _rx(_alt((  # _ARTICLE_CONTENT_ID_TOKENS
    "(?:entry|article|art)-content", "article__content", "article(?:-|__)?body", "articleBody", "body-text",
)))
_ARTICLE_CONTENT_CLASS = _rx(_alt((  # _ARTICLE_CONTENT_CLASS_TOKENS
    "post[-_]text", "post-body", "post-?entry", "post[-_]?content", "postContent", "post_inner_wrapper",
    "article-?text", "articleText", "(?:entry|page|text|article|art)-content", "article__content",
    "article(?:-|__)?body", "articleBody", "ArticleContent", "body-text", "article__container",
)))
_STORY_ID = _rx(_alt(("^primary", "story-body")))  # _STORY_ID_TOKENS
_STORY_CLASS = _rx(_alt((  # _STORY_CLASS_TOKENS
    "^article ", "post-bodycopy", "story-?content", "(?:theme|blog|section|single)-content", "single-post",
    "main-column", "wpb_text_column", "story-body", "field-body",
)))
_FULLTEXT = _rx("fulltext", re.IGNORECASE)
_MAIN_CONTENT_ID = _rx(_alt(("content-main", "content-body", "contentBody")))  # _MAIN_CONTENT_ID_TOKENS
_MAIN_CONTENT_CLASS = _rx(_alt(("content[-_]main", "content(?:-|__)body")))  # _MAIN_CONTENT_CLASS_TOKENS
_TR_CM = str.maketrans("CM", "cm")
_TR_CP = str.maketrans("CP", "cp")
_TR_N = str.maketrans("N", "n")
_TR_T = str.maketrans("T", "t")


def _is_article_body(el: Element) -> bool:
    """``@class='post' or @class='entry' or @itemprop='articleBody' or @id='articleContent' or
    re:test(@id, '{_alt(_ARTICLE_CONTENT_ID_TOKENS)}') or
    re:test(@class, '{_alt(_ARTICLE_CONTENT_CLASS_TOKENS)}')``"""
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


def _is_story(el: Element) -> bool:
    """``@role='article' or @id='article' or @id='story' or
    @class='postarea' or @class='art-postcontent' or @class='text' or @class='cell' or @class='story' or
    re:test(@id, '{_alt(_STORY_ID_TOKENS)}') or re:test(@class, 'fulltext', 'i') or
    re:test(@class, '{_alt(_STORY_CLASS_TOKENS)}')``"""
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


def _is_main_content(el: Element) -> bool:
    """``@id='content' or @class='content' or
    re:test(@id, '{_alt(_MAIN_CONTENT_ID_TOKENS)}') or re:test(@class, '{_alt(_MAIN_CONTENT_CLASS_TOKENS)}') or
    contains(translate(@id, 'CM','cm'), 'main-content') or contains(translate(@class, 'CM','cm'), 'main-content') or
    contains(translate(@class, 'CP','cp'), 'page-content')``"""
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


def _starts_with_main(el: Element) -> bool:
    "``starts-with(@class, 'main') or starts-with(@id, 'main') or starts-with(@role, 'main')``"
    return (
        _attr(el, "class").startswith("main")
        or _attr(el, "id").startswith("main")
        or _attr(el, "role").startswith("main")
    )


def body_xpath_0(ctx: Element) -> List[Element]:
    "``.//*[self::article or self::div or self::main or self::section][<_is_article_body>][1]``"
    return _select_first_per_parent(ctx, _ARTICLE_DIV_MAIN_SECTION, _is_article_body)


def body_xpath_1(ctx: Element) -> List[Element]:
    "``(.//article)[1]``"
    for el in iter_desc(ctx, "article"):
        return [el]
    return []


def body_xpath_2(ctx: Element) -> List[Element]:
    "``(.//*[self::article or self::div or self::main or self::section][<_is_story>])[1]``"
    return _select_first(ctx, _ARTICLE_DIV_MAIN_SECTION, _is_story)


def body_xpath_3(ctx: Element) -> List[Element]:
    "``(.//*[self::article or self::div or self::main or self::section][<_is_main_content>])[1]``"
    return _select_first(ctx, _ARTICLE_DIV_MAIN_SECTION, _is_main_content)


def _is_main_candidate(el: Element) -> bool:
    "A node body_xpath_4 can stop at (its prefilter's predicate; not a selector of its own)."
    return el.tag == "main" or (el.tag in _ARTICLE_DIV_SECTION and _starts_with_main(el))


def body_xpath_4(ctx: Element) -> List[Element]:
    """``(.//*[self::article or self::div or self::section][starts-with(@class, 'main') or
    starts-with(@id, 'main') or starts-with(@role, 'main')])[1]|(.//main)[1]``, in document order."""
    # on core trees, only the nodes the loops can stop at (a superset, in document order)
    nodes = _core_candidates(ctx, _ARTICLE_DIV_MAIN_SECTION, _is_main_candidate)
    first_a = first_main = None
    for el in iter_desc(ctx) if nodes is None else nodes:
        if first_a is None and el.tag in _ARTICLE_DIV_SECTION and _starts_with_main(el):
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
    for el in iter_desc(ctx) if nodes is None else nodes:
        if el is first_a:
            return [first_a, first_main]
        if el is first_main:
            return [first_main, first_a]
    return [first_a, first_main]  # pragma: no cover


BODY_XPATH: List[Selector] = [body_xpath_0, body_xpath_1, body_xpath_2, body_xpath_3, body_xpath_4]


def first_body_match(expr: Selector, ctx: Element) -> Optional[Element]:
    "``next(iter(expr(ctx)), None)`` without building the per-parent list."
    if expr is body_xpath_0:
        found = _select_first(ctx, _ARTICLE_DIV_MAIN_SECTION, _is_article_body)
        return found[0] if found else None
    found = expr(ctx)
    return found[0] if found else None


# --- COMMENTS_XPATH ---------------------------------------------------------------

_DIV_LIST_SECTION = frozenset(("div", "list", "section"))
_DIV_SECTION = frozenset(("div", "section"))

_COMMENT_LIST = _rx("comment-?list")
_COMMENT_CONTAINER_CLASS = _rx("comment-page|comments-content|post-comments")
_COMMENTS_PREFIX = _rx("^comment[s-]")
_COMMENTS_CLASS_PREFIX = _rx("^Comments|article-comments")
_COMMENT_SERVICE_ID = _rx("^(?:comol|disqus_thread|dsq-comments)")


def _is_comment_list(el: Element) -> bool:
    return bool(_COMMENT_LIST(_first_attr(el, _ID_CLASS)) or _COMMENT_CONTAINER_CLASS(_attr(el, "class")))


def comments_xpath_0(ctx: Element) -> List[Element]:
    """``.//*[self::div or self::list or self::section][re:test(@id|@class, 'comment-?list') or
    re:test(@class, 'comment-page|comments-content|post-comments')]``"""
    return _select(ctx, _DIV_LIST_SECTION, _is_comment_list)


def _is_comments_prefixed(el: Element) -> bool:
    return bool(_COMMENTS_PREFIX(_first_attr(el, _ID_CLASS)) or _COMMENTS_CLASS_PREFIX(_attr(el, "class")))


def comments_xpath_1(ctx: Element) -> List[Element]:
    """``.//*[self::div or self::section or self::list][re:test(@id|@class, '^comment[s-]') or
    re:test(@class, '^Comments|article-comments')]``"""
    return _select(ctx, _DIV_LIST_SECTION, _is_comments_prefixed)


def _is_comment_service(el: Element) -> bool:
    return bool(_COMMENT_SERVICE_ID(_attr(el, "id")))


def comments_xpath_2(ctx: Element) -> List[Element]:
    """``.//*[self::div or self::section or self::list][
    re:test(@id, '^(?:comol|disqus_thread|dsq-comments)')]``"""
    return _select(ctx, _DIV_LIST_SECTION, _is_comment_service)


def _is_social_or_comment(el: Element) -> bool:
    return _attr(el, "id").startswith("social") or "comment" in _attr(el, "class")


def comments_xpath_3(ctx: Element) -> List[Element]:
    "``.//*[self::div or self::section][starts-with(@id, 'social') or contains(@class, 'comment')]``"
    return _select(ctx, _DIV_SECTION, _is_social_or_comment)


COMMENTS_XPATH: List[Selector] = [comments_xpath_0, comments_xpath_1, comments_xpath_2, comments_xpath_3]


# --- REMOVE_COMMENTS(_AND_LISTS)_XPATH -----------------------------------------------

_COMMENTS_ID = "[Cc]omment(?!ary)|comol"
_COMMENTS_CLASS = "^[Cc]omment(?!ary)|(?:article|post)-comments"
_COMMENTS_OR_SERVICE_ID = _rx(f"^(?:{_COMMENTS_ID}|disqus_thread|dsq-comments)")
_COMMENTS_CLASS_RX = _rx(_COMMENTS_CLASS)
_COMMENTS_ID_PREFIX = _rx(f"^(?:{_COMMENTS_ID})")
_DIV_LIST_SECTION_DETAILS = frozenset(("div", "list", "section", "details"))
_DIV_LIST_SECTION_DETAILS_OL_UL = frozenset(("div", "list", "section", "details", "ol", "ul"))


def _is_comments_section(el: Element) -> bool:
    """``re:test(@id, '^(?:{_COMMENTS_ID}|disqus_thread|dsq-comments)') or
    re:test(@class, '{_COMMENTS_CLASS}')``"""
    return bool(_COMMENTS_OR_SERVICE_ID(_attr(el, "id")) or _COMMENTS_CLASS_RX(_attr(el, "class")))


def remove_comments_xpath(ctx: Element) -> List[Element]:
    "``.//*[self::div or self::list or self::section or self::details][<_is_comments_section>]``"
    return _select(ctx, _DIV_LIST_SECTION_DETAILS, _is_comments_section)


def _is_comments_section_or_list(el: Element) -> bool:
    """``[<_is_comments_section>][not(self::ol or self::ul) or
    re:test(@id, '^(?:{_COMMENTS_ID})') or re:test(@class, '{_COMMENTS_CLASS}')]``"""
    if not _is_comments_section(el):
        return False
    return el.tag not in ("ol", "ul") or bool(_COMMENTS_ID_PREFIX(_attr(el, "id")) or _COMMENTS_CLASS_RX(_attr(el, "class")))


def remove_comments_and_lists_xpath(ctx: Element) -> List[Element]:
    """``.//*[self::div or self::list or self::section or self::details or self::ol or self::ul]
    [<_is_comments_section_or_list>]``"""
    return _select(ctx, _DIV_LIST_SECTION_DETAILS_OL_UL, _is_comments_section_or_list)


REMOVE_COMMENTS_XPATH: List[Selector] = [remove_comments_xpath]
REMOVE_COMMENTS_AND_LISTS_XPATH: List[Selector] = [remove_comments_and_lists_xpath]


# --- RAW_TREE_PRUNE_XPATH -------------------------------------------------------------

_DIV_SECTION_ASIDE = frozenset(("div", "section", "aside"))
_APPENDED_ARTICLES = _rx("mvp-post-add-(?:box|wrap)|infinite-?scroll")
_ZOX_APPENDED_POST = _rx("mvp-post-add-(?:box|wrap)")


def _is_appended_articles(el: Element) -> bool:
    """``[re:test(@id, 'mvp-post-add-(?:box|wrap)|infinite-?scroll') or
    re:test(@class, 'mvp-post-add-(?:box|wrap)|infinite-?scroll')][
    not(.//h1) or re:test(@id, 'mvp-post-add-(?:box|wrap)') or re:test(@class, 'mvp-post-add-(?:box|wrap)')]``"""
    ident, cls = _attr(el, "id"), _attr(el, "class")
    if not (_APPENDED_ARTICLES(ident) or _APPENDED_ARTICLES(cls)):
        return False
    # a generic infinite-scroll container holding the h1 is the real article
    return next(iter_desc(el, "h1"), None) is None or bool(_ZOX_APPENDED_POST(ident) or _ZOX_APPENDED_POST(cls))


def raw_tree_prune_0(ctx: Element) -> List[Element]:
    "``.//*[self::div or self::section or self::aside][<_is_appended_articles>]``"
    return _select(ctx, _DIV_SECTION_ASIDE, _is_appended_articles)


def _is_elementor_share(el: Element) -> bool:
    return "elementor-share-buttons" in _attr(el, "class")


def raw_tree_prune_1(ctx: Element) -> List[Element]:
    "``.//*[self::div or self::section or self::aside][contains(@class, 'elementor-share-buttons')]``"
    return _select(ctx, _DIV_SECTION_ASIDE, _is_elementor_share)


RAW_TREE_PRUNE_XPATH: List[Selector] = [raw_tree_prune_0, raw_tree_prune_1]


# --- OVERALL_DISCARD_XPATH --------------------------------------------------------------

# _OVERALL_DISCARD_BOTH_TOKENS (share/social, newsletter, tags, UI chrome, author)
_BOTH = ("^shar", "social", "viral", "newsletter", "syndication", "tags", "sidebar", "banner", "bread-?crumb",
         "button", "author")
# _OVERALL_DISCARD_ID_TOKENS (legacy sites, footer, share, nav, related, UI chrome, paywall, ads)
_OD_ID_ONLY = ("^(?:jp-|dpsp-content)", "bmdh", "footer", "Footer", "share", "Share", "nav", "Nav", "menu",
               "related", "message-container", "premium", "^ad-")
# _OVERALL_DISCARD_CLASS_TOKENS (nav, ads, footer, author, share, tags, consent, related, UI/meta,
# misc, legacy sites)
_OD_CLASS_ONLY = (
    "^(?:nav|post-nav|ZendeskForm)", "subnav", "avigation", "navbar", "navbox", "menu", "bar",
    " ad ", "-ad-", "(?:^| )ad-", "dfp[Aa]d", "outbrain", "taboola", "criteo", "paid-?content", "widget",
    "footer", "Footer", "byline", "Byline", "share-", "sociable", "embedded", "embed", "tag-list",
    "consent", "modal-content", "permission", "elated", "next-", "-stories", "most-popular", "more-on",
    "meta", "rating", "attachment", "timestamp", "user-info", "user-profile", "-icon", "article-infos",
    "message-container", "slide", "viewport", "overlay", "options", "expand", "obfuscated", "blurred",
    "mol-factbox", "yin", "zlylin", "nfoline",
)
_COOKIE = _rx("cookie")  # _CONSENT_ID_CLASS_TOKENS
_BOILERPLATE_ID = _rx(_alt(_BOTH + _OD_ID_ONLY))
_BOILERPLATE_CLASS = _rx(_alt(_BOTH + _OD_CLASS_ONLY))
_DIV_ITEM_LIST_P_SECTION_SPAN = frozenset(("div", "item", "list", "p", "section", "span"))


def _is_boilerplate(el: Element) -> bool:
    """``@data-lp-replacement-content or contains(translate(@role, 'N', 'n'), 'nav') or
    contains(@data-component, 'MostPopularStories') or re:test(@id|@class, '{_alt(_CONSENT_ID_CLASS_TOKENS)}') or
    re:test(@id, '{_alt(_OVERALL_DISCARD_BOTH_TOKENS + _OVERALL_DISCARD_ID_TOKENS)}') or
    re:test(@class, '{_alt(_OVERALL_DISCARD_BOTH_TOKENS + _OVERALL_DISCARD_CLASS_TOKENS)}')``"""
    # 'cookie' tests the source-first attribute only (upstream: pages about cookies carry it on content)
    return (
        el.get("data-lp-replacement-content") is not None
        or "nav" in _attr(el, "role").translate(_TR_N)
        or "MostPopularStories" in _attr(el, "data-component")
        or bool(_COOKIE(_first_attr(el, _ID_CLASS)))
        or bool(_BOILERPLATE_ID(_attr(el, "id")))
        or bool(_BOILERPLATE_CLASS(_attr(el, "class")))
    )


_HIDDEN = _rx("hidden")
_READER_COMMENTS_ID = _rx("reader-comments|akismet")
_HIDDEN_OR_REPLY_CLASS = _rx(
    "^hide-|comments-title|nocomments|-reply-|message|akismet|suggest-links|-hide-|hide-print| hidden| hide|noprint|notloaded"
)


def _is_hidden_or_reply(el: Element) -> bool:
    """``@class='comments-title' or starts-with(@id|@class, 'reply-') or re:test(@id|@style, 'hidden') or
    contains(@style, 'display:none') or contains(@style, 'display: none') or
    re:test(@id, 'reader-comments|akismet') or
    re:test(@class, '^hide-|comments-title|nocomments|-reply-|message|akismet|suggest-links|-hide-|hide-print|
    hidden| hide|noprint|notloaded') or @aria-hidden='true'``"""
    style = _attr(el, "style")
    return (
        _attr(el, "class") == "comments-title"
        or _first_attr(el, _ID_CLASS).startswith("reply-")
        or bool(_HIDDEN(_first_attr(el, _ID_STYLE)))
        or "display:none" in style
        or "display: none" in style
        or bool(_READER_COMMENTS_ID(_attr(el, "id")))
        or bool(_HIDDEN_OR_REPLY_CLASS(_attr(el, "class")))
        or _attr(el, "aria-hidden") == "true"
    )


def overall_discard_0(ctx: Element) -> List[Element]:
    "``.//*[self::div or self::item or self::list or self::p or self::section or self::span][<_is_boilerplate>]``"
    return _select(ctx, _DIV_ITEM_LIST_P_SECTION_SPAN, _is_boilerplate)


def overall_discard_1(ctx: Element) -> List[Element]:
    "``.//*[<_is_hidden_or_reply>]``"
    return _select(ctx, None, _is_hidden_or_reply)


OVERALL_DISCARD_XPATH: List[Selector] = [overall_discard_0, overall_discard_1]


# --- TEASER / PRECISION / DISCARD_IMAGE / COMMENTS_DISCARD ---------------------------------

def _is_teaser(el: Element) -> bool:
    return "teaser" in _attr(el, "id").translate(_TR_T) or "teaser" in _attr(el, "class").translate(_TR_T)


def teaser_discard(ctx: Element) -> List[Element]:
    """``.//*[self::div or self::item or self::list or self::p or self::section or self::span][
    contains(translate(@id, 'T', 't'), 'teaser') or contains(translate(@class, 'T', 't'), 'teaser')]``"""
    return _select(ctx, _DIV_ITEM_LIST_P_SECTION_SPAN, _is_teaser)


TEASER_DISCARD_XPATH: List[Selector] = [teaser_discard]

_BOTTOM_TOKEN_EDGE = _rx(r"(^|\s)bottom|bottom(\s|$)")
_LINK_TOKEN = _rx(r"(^|\s)link(\s|$)")


_HEADER = frozenset(("header",))


def precision_discard_0(ctx: Element) -> List[Element]:
    "``.//header``"
    return _select_tags(ctx, _HEADER)


def _is_bottom_link_or_border(el: Element) -> bool:
    r"""``re:test(@id|@class, '(^|\s)bottom|bottom(\s|$)') or re:test(@id|@class, '(^|\s)link(\s|$)') or
    contains(@style, 'border')``"""
    # 'link' as a whole class token (not permalink, headline-link); 'bottom' starting or ending a token
    # (page-bottom chrome), not mid-token (CSS spacing utilities on real content: 'border-bottom-0')
    first = _first_attr(el, _ID_CLASS)
    return bool(_BOTTOM_TOKEN_EDGE(first)) or bool(_LINK_TOKEN(first)) or "border" in _attr(el, "style")


def precision_discard_1(ctx: Element) -> List[Element]:
    """``.//*[self::div or self::item or self::list or self::p or self::section or self::span][
    <_is_bottom_link_or_border>]``"""
    return _select(ctx, _DIV_ITEM_LIST_P_SECTION_SPAN, _is_bottom_link_or_border)


PRECISION_DISCARD_XPATH: List[Selector] = [precision_discard_0, precision_discard_1]


def _is_caption(el: Element) -> bool:
    return "caption" in _attr(el, "id") or "caption" in _attr(el, "class")


def discard_image_elements(ctx: Element) -> List[Element]:
    """``.//*[self::div or self::item or self::list or self::p or self::section or self::span][
    contains(@id, 'caption') or contains(@class, 'caption')]``"""
    return _select(ctx, _DIV_ITEM_LIST_P_SECTION_SPAN, _is_caption)


DISCARD_IMAGE_ELEMENTS: List[Selector] = [discard_image_elements]


def _is_respond(el: Element) -> bool:
    return _attr(el, "id").startswith("respond")


def comments_discard_0(ctx: Element) -> List[Element]:
    "``.//*[self::div or self::section][starts-with(@id, 'respond')]``"
    return _select(ctx, _DIV_SECTION, _is_respond)


_CITE_QUOTE = frozenset(("cite", "quote"))


def comments_discard_1(ctx: Element) -> List[Element]:
    "``.//cite|.//quote``"
    return _select_tags(ctx, _CITE_QUOTE)


_COMMENT_CHROME_CLASS = _rx("comments-title|nocomments|-reply-|message|signin")
_REPLY_OR_AKISMET = _rx("^reply-|akismet")


def _is_comment_chrome(el: Element) -> bool:
    """``@class='comments-title' or contains(@style, 'display:none') or
    re:test(@class, 'comments-title|nocomments|-reply-|message|signin') or
    re:test(@id|@class, '^reply-|akismet')``"""
    cls = _attr(el, "class")
    return (
        cls == "comments-title"
        or "display:none" in _attr(el, "style")
        or bool(_COMMENT_CHROME_CLASS(cls))
        or bool(_REPLY_OR_AKISMET(_first_attr(el, _ID_CLASS)))
    )


def comments_discard_2(ctx: Element) -> List[Element]:
    "``.//*[<_is_comment_chrome>]``"
    return _select(ctx, None, _is_comment_chrome)


COMMENTS_DISCARD_XPATH: List[Selector] = [comments_discard_0, comments_discard_1, comments_discard_2]


# --- settings.BASIC_CLEAN_XPATH (baseline, html2txt) -------------------------------------------

_COOKIE_CONSENT = _rx(  # settings._COOKIE_CONSENT_RE
    "cookie[-_]?(?:banner|bar|consent|law|notice|policy|description)|notice[-_]{0,2}cookie"
    "|consent[-_]?(?:banner|manager|sdk)|borlabs|cookiebot|cmplz|onetrust|moove[-_]?gdpr",
    re.IGNORECASE,
)
_BASIC_TAGS = frozenset(("aside", "fencedframe", "footer", "script", "style", "svg", "template"))
_CLASS_ID = ("class", "id")


def _is_basic_noise(el: Element) -> bool:
    tag = el.tag
    if tag in _BASIC_TAGS:
        return True
    if tag == "div" and "footer" in _first_attr(el, _CLASS_ID):
        return True
    return bool(_COOKIE_CONSENT(_attr(el, "class")) or _COOKIE_CONSENT(_attr(el, "id")))


def basic_clean_xpath(ctx: Element) -> List[Element]:
    """``.//aside|.//div[contains(@class|@id, 'footer')]|.//fencedframe|.//footer|.//script|.//style|.//svg
    |.//template|.//*[re:test(@class, '{_COOKIE_CONSENT_RE}', 'i') or re:test(@id, '{_COOKIE_CONSENT_RE}', 'i')]``"""
    return _select(ctx, None, _is_basic_noise)


# --- the prefilters: each predicate's necessary condition on core trees -----------------------
# (trafila.xpathlib.register_prefilter: the predicate can only be true where one term holds; the
# regex terms take their literals from the compiled patterns above, so they cannot drift)

_prefilter(_is_article_body, _has("class", "post", "entry"), _has("itemprop", "articleBody"),
           _has("id", "articleContent"), _re_term("id", _ARTICLE_CONTENT_ID), _re_term("class", _ARTICLE_CONTENT_CLASS))
_prefilter(_is_story, _has("role", "article"), _has("id", "article", "story"),
           _has("class", "postarea", "art-postcontent", "text", "cell", "story"), _re_term("id", _STORY_ID),
           _re_term("class", _FULLTEXT), _re_term("class", _STORY_CLASS))
_prefilter(_is_main_content, _has(_ID_CLASS, "content"), _re_term("id", _MAIN_CONTENT_ID),
           _re_term("class", _MAIN_CONTENT_CLASS), _folded(_ID_CLASS, "main-content"),
           _folded("class", "page-content"))
_prefilter(_is_main_candidate, _has(("class", "id", "role"), "main"), pass_tags=("main",))
_prefilter(_is_comment_list, _re_term(_ID_CLASS, _COMMENT_LIST), _re_term("class", _COMMENT_CONTAINER_CLASS))
_prefilter(_is_comments_prefixed, _re_term(_ID_CLASS, _COMMENTS_PREFIX), _re_term("class", _COMMENTS_CLASS_PREFIX))
_prefilter(_is_comment_service, _re_term("id", _COMMENT_SERVICE_ID))
_prefilter(_is_social_or_comment, _has("id", "social"), _has("class", "comment"))
_prefilter(_is_comments_section, _re_term("id", _COMMENTS_OR_SERVICE_ID), _re_term("class", _COMMENTS_CLASS_RX))
_prefilter(_is_comments_section_or_list, _re_term("id", _COMMENTS_OR_SERVICE_ID),
           _re_term("class", _COMMENTS_CLASS_RX))
_prefilter(_is_appended_articles, _re_term(_ID_CLASS, _APPENDED_ARTICLES))
_prefilter(_is_elementor_share, _has("class", "elementor-share-buttons"))
_prefilter(_is_boilerplate, _present("data-lp-replacement-content"), _folded("role", "nav"),
           _has("data-component", "MostPopularStories"), _re_term(_ID_CLASS, _COOKIE),
           _re_term("id", _BOILERPLATE_ID), _re_term("class", _BOILERPLATE_CLASS))
_prefilter(_is_hidden_or_reply, _has("class", "comments-title"), _has(_ID_CLASS, "reply-"),
           _re_term(_ID_STYLE, _HIDDEN), _has("style", "display:none", "display: none"),
           _re_term("id", _READER_COMMENTS_ID), _re_term("class", _HIDDEN_OR_REPLY_CLASS),
           _has("aria-hidden", "true"))
_prefilter(_is_teaser, _folded(_ID_CLASS, "teaser"))
_prefilter(_is_bottom_link_or_border, _re_term(_ID_CLASS, _BOTTOM_TOKEN_EDGE), _re_term(_ID_CLASS, _LINK_TOKEN),
           _has("style", "border"))
_prefilter(_is_caption, _has(_ID_CLASS, "caption"))
_prefilter(_is_respond, _has("id", "respond"))
_prefilter(_is_comment_chrome, _has("class", "comments-title"), _has("style", "display:none"),
           _re_term("class", _COMMENT_CHROME_CLASS), _re_term(_ID_CLASS, _REPLY_OR_AKISMET))
_prefilter(_is_basic_noise, _has(_CLASS_ID, "footer"), _re_term("class", _COOKIE_CONSENT),
           _re_term("id", _COOKIE_CONSENT), pass_tags=_BASIC_TAGS)


# --- inline expressions ------------------------------------------------------------------------

_ANNOTATION = frozenset(("annotation",))
_SPAN = frozenset(("span",))


def tex_annotation(ctx: Element) -> List[Element]:
    "``.//*[local-name()='annotation'][@encoding='application/x-tex']``"
    return [el for el in _select_tags(ctx, _ANNOTATION) if el.get("encoding") == "application/x-tex"]


def hljs_spans(ctx: Element) -> List[Element]:
    "``.//span[starts-with(@class,'hljs')]``"
    return [el for el in _select_tags(ctx, _SPAN) if _attr(el, "class").startswith("hljs")]


_WILD = frozenset(("code", "p", "quote", "table"))
_WILD_RECALL = frozenset(("code", "p", "quote", "table", "div", "lb", "list"))
_WILD_DIV = frozenset(("code", "p", "quote", "table", "div"))


def wild_text_elements(ctx: Element, recall: bool) -> List[Element]:
    """``.//code|.//p|.//quote|.//table|.//div[contains(@class, 'w3-code')]``,
    plus ``|.//div|.//lb|.//list`` in recall mode."""
    if recall:
        return _select_tags(ctx, _WILD_RECALL)
    return [
        el
        for el in _select_tags(ctx, _WILD_DIV)
        if el.tag in _WILD or (el.tag == "div" and "w3-code" in _attr(el, "class"))
    ]


def p_text_length(doc_root: Element) -> int:
    """``len("".join(subtree.xpath('//p//text()')))``: the text inside <p>
    elements of the whole document (``doc_root``), nested ones counted once."""
    core = _core_of(doc_root)
    if core is not None:
        return core.tag_text_length(doc_root, "p")
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


def p_has_text_nodes(doc_root: Element) -> bool:
    """``doc_root.xpath('//p//text()')`` is not empty: some text or tail inside a <p>
    is not None. An empty string counts (lxml keeps a text node for ``el.text = ""``),
    so this differs from ``p_text_length(doc_root) > 0`` only on such nodes."""
    stack = [doc_root]
    while stack:
        node = stack.pop()
        if node.tag == "p":
            if node.text is not None or any(d.text is not None or d.tail is not None for d in desc_list(node)):
                return True
        elif len(node):
            stack.extend(node[:])
    return False


# --- the exact matchers: each predicate as a disjunction of exact terms on core trees ---------
# (trafila.xpathlib.register_exact: the selectors take the verdict from C and call the predicate
# only where C cannot decide; tests/test_core_accel_selectors.py proves each spec equal to its
# predicate). Left out: _is_appended_articles (it looks for a descendant h1) and
# _is_main_candidate (body_xpath_4 walks the prefilter's candidates itself).

from ..xpathlib import register_exact as _exact, first_attrs as _first  # noqa: E402
from ..xpathlib import x_contains as _x_has, x_eq as _x_eq, x_present as _x_present  # noqa: E402
from ..xpathlib import x_regex as _x_re, x_starts as _x_starts, x_true as _x_true  # noqa: E402

_FIRST_ID_CLASS = _first(_ID_CLASS)
_FIRST_ID_STYLE = _first(_ID_STYLE)
_FIRST_CLASS_ID = _first(_CLASS_ID)
_OL_UL = ("ol", "ul")

_exact(_is_article_body, _x_eq("class", "post", "entry"), _x_eq("itemprop", "articleBody"),
       _x_eq("id", "articleContent"), _x_re("id", _ARTICLE_CONTENT_ID), _x_re("class", _ARTICLE_CONTENT_CLASS))
_exact(_is_story, _x_eq("role", "article"), _x_eq("id", "article", "story"),
       _x_eq("class", "postarea", "art-postcontent", "text", "cell", "story"), _x_re("id", _STORY_ID),
       _x_re("class", _FULLTEXT), _x_re("class", _STORY_CLASS))
_exact(_is_main_content, _x_eq("id", "content"), _x_eq("class", "content"), _x_re("id", _MAIN_CONTENT_ID),
       _x_re("class", _MAIN_CONTENT_CLASS), _x_has("id", "main-content", tr=_TR_CM),
       _x_has("class", "main-content", tr=_TR_CM), _x_has("class", "page-content", tr=_TR_CP))
_exact(_is_comment_list, _x_re(_FIRST_ID_CLASS, _COMMENT_LIST), _x_re("class", _COMMENT_CONTAINER_CLASS))
_exact(_is_comments_prefixed, _x_re(_FIRST_ID_CLASS, _COMMENTS_PREFIX), _x_re("class", _COMMENTS_CLASS_PREFIX))
_exact(_is_comment_service, _x_re("id", _COMMENT_SERVICE_ID))
_exact(_is_social_or_comment, _x_starts("id", "social"), _x_has("class", "comment"))
_exact(_is_comments_section, _x_re("id", _COMMENTS_OR_SERVICE_ID), _x_re("class", _COMMENTS_CLASS_RX))
# on ol/ul: (A(id) or C(class)) and (B(id) or C(class)) with B(id) implying A(id): B(id) or C(class)
_exact(_is_comments_section_or_list, _x_re("class", _COMMENTS_CLASS_RX),
       _x_re("id", _COMMENTS_OR_SERVICE_ID, not_tags=_OL_UL), _x_re("id", _COMMENTS_ID_PREFIX, tags=_OL_UL))
_exact(_is_elementor_share, _x_has("class", "elementor-share-buttons"))
_exact(_is_boilerplate, _x_present("data-lp-replacement-content"), _x_has("role", "nav", tr=_TR_N),
       _x_has("data-component", "MostPopularStories"), _x_re(_FIRST_ID_CLASS, _COOKIE),
       _x_re("id", _BOILERPLATE_ID), _x_re("class", _BOILERPLATE_CLASS))
_exact(_is_hidden_or_reply, _x_eq("class", "comments-title"), _x_starts(_FIRST_ID_CLASS, "reply-"),
       _x_re(_FIRST_ID_STYLE, _HIDDEN), _x_has("style", "display:none", "display: none"),
       _x_re("id", _READER_COMMENTS_ID), _x_re("class", _HIDDEN_OR_REPLY_CLASS), _x_eq("aria-hidden", "true"))
_exact(_is_teaser, _x_has("id", "teaser", tr=_TR_T), _x_has("class", "teaser", tr=_TR_T))
_exact(_is_bottom_link_or_border, _x_re(_FIRST_ID_CLASS, _BOTTOM_TOKEN_EDGE), _x_re(_FIRST_ID_CLASS, _LINK_TOKEN),
       _x_has("style", "border"))
_exact(_is_caption, _x_has("id", "caption"), _x_has("class", "caption"))
_exact(_is_respond, _x_starts("id", "respond"))
_exact(_is_comment_chrome, _x_eq("class", "comments-title"), _x_has("style", "display:none"),
       _x_re("class", _COMMENT_CHROME_CLASS), _x_re(_FIRST_ID_CLASS, _REPLY_OR_AKISMET))
_exact(_is_basic_noise, _x_true(*_BASIC_TAGS), _x_has(_FIRST_CLASS_ID, "footer", tags=("div",)),
       _x_re("class", _COOKIE_CONSENT), _x_re("id", _COOKIE_CONSENT))
