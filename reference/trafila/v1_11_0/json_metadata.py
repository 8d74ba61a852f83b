"""trafilatura 1.11.0's JSON-LD metadata (trafilatura/json_metadata.py): schema.org
blocks parsed with ``json``, and the regex salvage for blocks that do not parse.

Differences from 2.3.1 kept on purpose: a publisher's name is taken without a
plausibility test, a block's type is its first type, each schema.org block of a
list makes the whole list be read again, names are not merged by containment."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any, List, Optional, Pattern

from .utils import trim

__all__ = [
    "extract_json", "extract_json_author", "extract_json_parse_error", "is_plausible_sitename",
    "normalize_authors", "normalize_json", "process_parent", "HTML_STRIP_TAGS",
]

HTML_STRIP_TAGS = re.compile(r"(<!--.*?-->|<[^>]*>)")

JSON_ARTICLE_SCHEMA = frozenset((
    "article", "backgroundnewsarticle", "blogposting", "medicalscholarlyarticle", "newsarticle",
    "opinionnewsarticle", "reportagenewsarticle", "scholarlyarticle", "socialmediaposting",
    "liveblogposting",
))
JSON_OGTYPE_SCHEMA = frozenset((
    "aboutpage", "checkoutpage", "collectionpage", "contactpage", "faqpage", "itempage",
    "medicalwebpage", "profilepage", "qapage", "realestatelisting", "searchresultspage", "webpage",
    "website", "article", "advertisercontentarticle", "newsarticle", "analysisnewsarticle",
    "askpublicnewsarticle", "backgroundnewsarticle", "opinionnewsarticle", "reportagenewsarticle",
    "reviewnewsarticle", "report", "satiricalarticle", "scholarlyarticle", "medicalscholarlyarticle",
    "socialmediaposting", "blogposting", "liveblogposting", "discussionforumposting", "techarticle",
    "blog", "jobposting",
))
JSON_PUBLISHER_SCHEMA = frozenset(("newsmediaorganization", "organization", "webpage", "website"))
JSON_AUTHOR_1 = re.compile(r'"author":[^}[]+?"name?\\?": ?\\?"([^"\\]+)|"author"[^}[]+?"names?".+?"([^"]+)', re.DOTALL)
JSON_AUTHOR_2 = re.compile(r'"[Pp]erson"[^}]+?"names?".+?"([^"]+)', re.DOTALL)
JSON_AUTHOR_REMOVE = re.compile(
    r',?(?:"\w+":?[:|,\[])?{?"@type":"(?:[Ii]mageObject|[Oo]rganization|[Ww]eb[Pp]age)",[^}[]+}[\]|}]?'
)
JSON_PUBLISHER = re.compile(r'"publisher":[^}]+?"name?\\?": ?\\?"([^"\\]+)', re.DOTALL)
JSON_TYPE = re.compile(r'"@type"\s*:\s*"([^"]*)"', re.DOTALL)
JSON_CATEGORY = re.compile(r'"articleSection": ?"([^"\\]+)', re.DOTALL)
JSON_REMOVE_HTML = re.compile(r"<[^>]+>")
JSON_SCHEMA_ORG = re.compile(r"^https?://schema\.org", flags=re.IGNORECASE)
JSON_UNICODE_REPLACE = re.compile(r"\\u([0-9a-fA-F]{4})")
_SURROGATES = re.compile("[\ud800-\udfff]")  # the \uXXXX escapes decoded to a lone surrogate are dropped

AUTHOR_ATTRS = ("givenName", "additionalName", "familyName")

JSON_NAME = re.compile(r'"@type":"[Aa]rticle", ?"name": ?"([^"\\]+)', re.DOTALL)
JSON_HEADLINE = re.compile(r'"headline": ?"([^"\\]+)', re.DOTALL)
JSON_SEQ = (('"name"', JSON_NAME), ('"headline"', JSON_HEADLINE))

AUTHOR_PREFIX = re.compile(r"^([a-zäöüß]+(ed|t))? ?(written by|words by|words|by|von|from) ", flags=re.IGNORECASE)
AUTHOR_REMOVE_NUMBERS = re.compile(r"\d.+?$")
AUTHOR_TWITTER = re.compile(r"@[\w]+")
AUTHOR_REPLACE_JOIN = re.compile(r"[._+]")
AUTHOR_REMOVE_NICKNAME = re.compile(r'["‘({\[’\'][^"]+?[‘’"\')\]}]')
AUTHOR_REMOVE_SPECIAL = re.compile(r"[^\w]+$|[:()?*$#!%/<>{}~¿]")
AUTHOR_REMOVE_PREPOSITION = re.compile(r"\b\s+(am|on|for|at|in|to|from|of|via|with|—|-|–)\s+(.*)", flags=re.IGNORECASE)
# "[A-Z|a-z]": the bar is a literal inside the class (so "a@b.c|d" passes), as in 1.11.0
AUTHOR_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Z|a-z]{2,}\b")
AUTHOR_SPLIT = re.compile(r"/|;|,|\||&|(?:^|\W)[u|a]nd(?:$|\W)", flags=re.IGNORECASE)
AUTHOR_EMOJI_REMOVE = re.compile(
    "[\U00002700-\U000027BE\U0001F600-\U0001F64F\U00002600-\U000026FF\U0001F300-\U0001F5FF"
    "\U0001F900-\U0001F9FF\U0001FA70-\U0001FAFF\U0001F680-\U0001F6FF]+",
    flags=re.UNICODE,
)


def is_plausible_sitename(metadata: Any, candidate: Any, content_type: Optional[str] = None) -> bool:
    """A string candidate replaces no sitename, a shorter one (unless the block is a
    webpage), or a URL-like one when it is not a URL itself."""
    if not candidate or not isinstance(candidate, str):
        return False
    current = metadata.sitename
    if not current or (len(current) < len(candidate) and content_type != "webpage"):
        return True
    return bool(current.startswith("http") and not candidate.startswith("http"))


def _article_authors(content: Any, metadata: Any) -> None:
    "The authors of an article block."
    list_authors = content["author"]
    if isinstance(list_authors, str):
        try:
            list_authors = json.loads(list_authors)
        except json.JSONDecodeError:
            metadata.author = normalize_authors(metadata.author, list_authors)
    if not isinstance(list_authors, list):
        list_authors = [list_authors]
    for author in list_authors:
        if "@type" in author and author["@type"] != "Person":
            continue
        author_name = None
        if "name" in author:
            author_name = author.get("name")
            if isinstance(author_name, list):
                author_name = "; ".join(author_name).strip("; ")
            elif isinstance(author_name, dict) and "name" in author_name:
                author_name = author_name["name"]
        elif "givenName" in author and "familyName" in author:
            author_name = " ".join(author[key] for key in AUTHOR_ATTRS if key in author)
        if isinstance(author_name, str):
            metadata.author = normalize_authors(metadata.author, author_name)


def process_parent(parent: Any, metadata: Any) -> Any:
    "Read sitename, pagetype, author, categories and title from the schema.org blocks."
    for content in filter(None, parent):
        if "publisher" in content and "name" in content["publisher"]:
            metadata.sitename = content["publisher"]["name"]
        if "@type" not in content or not content["@type"]:
            continue
        content_type = content["@type"][0] if isinstance(content["@type"], list) else content["@type"]
        content_type = content_type.lower()
        if content_type in JSON_OGTYPE_SCHEMA and not metadata.pagetype:
            metadata.pagetype = normalize_json(content_type)
        if content_type in JSON_PUBLISHER_SCHEMA:
            candidate = content.get("name") or content.get("legalName") or content.get("alternateName")
            if is_plausible_sitename(metadata, candidate, content_type):
                metadata.sitename = candidate
        elif content_type == "person":
            if content.get("name") and not content["name"].startswith("http"):
                metadata.author = normalize_authors(metadata.author, content["name"])
        elif content_type in JSON_ARTICLE_SCHEMA:
            if "author" in content:
                _article_authors(content, metadata)
            if not metadata.categories and "articleSection" in content:
                section = content["articleSection"]
                metadata.categories = [section] if isinstance(section, str) else list(filter(None, section))
            if not metadata.title:
                if "name" in content and content_type == "article":
                    metadata.title = content["name"]
                elif "headline" in content:
                    metadata.title = content["headline"]
    return metadata


def _as_list(value: Any) -> List[Any]:
    return value if isinstance(value, list) else [value]


def extract_json(schema: Any, metadata: Any) -> Any:
    """Each block of a parsed JSON-LD value that declares a schema.org context is
    read: its @graph, a live blog's updates, or else the whole list it is in."""
    if isinstance(schema, dict):
        schema = [schema]
    for parent in schema:
        context = parent.get("@context")
        if not (context and isinstance(context, str) and JSON_SCHEMA_ORG.match(context)):
            continue
        if "@graph" in parent:
            blocks = _as_list(parent["@graph"])
        elif (
            "@type" in parent
            and isinstance(parent["@type"], str)
            and "liveblogposting" in parent["@type"].lower()
            and "liveBlogUpdate" in parent
        ):
            blocks = _as_list(parent["liveBlogUpdate"])
        else:
            blocks = schema
        metadata = process_parent(blocks, metadata)
    return metadata


def extract_json_author(elemtext: str, regular_expression: Pattern[str]) -> Optional[str]:
    """Authors matched one after the other by the regex (each match removed) while the
    first group holds a space (TypeError when the first group did not take part, as upstream)."""
    authors = None
    found = regular_expression.search(elemtext)
    while found and " " in found[1]:
        authors = normalize_authors(authors, found[1])
        elemtext = regular_expression.sub("", elemtext, count=1)
        found = regular_expression.search(elemtext)
    return authors or None


def extract_json_parse_error(elem: str, metadata: Any) -> Any:
    "Author, pagetype, publisher, category and title by regex from a block json rejects."
    text_for_author = JSON_AUTHOR_REMOVE.sub("", elem)
    author = extract_json_author(text_for_author, JSON_AUTHOR_1) or extract_json_author(text_for_author, JSON_AUTHOR_2)
    if author:
        metadata.author = author
    if "@type" in elem:
        found = JSON_TYPE.search(elem)
        if found:
            candidate = normalize_json(found[1].lower())
            if candidate in JSON_OGTYPE_SCHEMA:
                metadata.pagetype = candidate
    if '"publisher"' in elem:
        found = JSON_PUBLISHER.search(elem)
        if found and "," not in found[1]:
            candidate = normalize_json(found[1])
            if is_plausible_sitename(metadata, candidate):
                metadata.sitename = candidate
    if '"articleSection"' in elem:
        found = JSON_CATEGORY.search(elem)
        if found:
            metadata.categories = [normalize_json(found[1])]
    for key, regex in JSON_SEQ:
        if key in elem and not metadata.title:
            found = regex.search(elem)
            if found:
                metadata.title = normalize_json(found[1])
                break
    return metadata


def _unicode_escape(found: "re.Match[str]") -> str:
    return chr(int(found[1], 16))


def normalize_json(string: str) -> Optional[str]:
    """Escapes resolved (\\n, \\r, \\t dropped, \\uXXXX decoded without surrogates,
    HTML entities), tags stripped, whitespace trimmed."""
    if "\\" in string:
        string = string.replace("\\n", "").replace("\\r", "").replace("\\t", "")
        string = JSON_UNICODE_REPLACE.sub(_unicode_escape, string)
        string = _SURROGATES.sub("", string)
        string = unescape(string)
    return trim(JSON_REMOVE_HTML.sub("", string))


def normalize_authors(current_authors: Optional[str], author_string: str) -> Optional[str]:
    """The authors so far ('; '-separated) with the names of ``author_string`` added:
    split, cleaned, title-cased; a name is skipped when it holds one already there."""
    if author_string.lower().startswith("http") or AUTHOR_EMAIL.match(author_string):
        return current_authors
    new_authors: List[str] = current_authors.split("; ") if current_authors is not None else []
    if "\\u" in author_string:
        # no guard: a bad escape raises UnicodeDecodeError, as in 1.11.0
        author_string = author_string.encode().decode("unicode_escape")
    if "&#" in author_string or "&amp;" in author_string:
        author_string = unescape(author_string)
    author_string = HTML_STRIP_TAGS.sub("", author_string)
    for author in AUTHOR_SPLIT.split(author_string):
        author = trim(author)
        author = AUTHOR_EMOJI_REMOVE.sub("", author)
        author = AUTHOR_TWITTER.sub("", author)
        author = trim(AUTHOR_REPLACE_JOIN.sub(" ", author))
        author = AUTHOR_REMOVE_NICKNAME.sub("", author)
        author = AUTHOR_REMOVE_SPECIAL.sub("", author)
        author = AUTHOR_PREFIX.sub("", author)
        author = AUTHOR_REMOVE_NUMBERS.sub("", author)
        author = AUTHOR_REMOVE_PREPOSITION.sub("", author)
        if not author or (len(author) >= 50 and " " not in author and "-" not in author):
            continue
        if not author[0].isupper() or not any(c.isupper() for c in author):
            author = author.title()
        if author not in new_authors and (not new_authors or all(name not in author for name in new_authors)):
            new_authors.append(author)
    if not new_authors:
        return current_authors
    return "; ".join(new_authors).strip("; ")
