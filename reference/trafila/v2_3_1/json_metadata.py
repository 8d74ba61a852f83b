"""trafilatura 2.3.1's JSON-LD metadata (trafilatura/json_metadata.py): schema.org
blocks parsed with ``json``, and the regex salvage for blocks that do not parse."""

from __future__ import annotations

import json
import logging
import re
from html import unescape
from typing import Any, List, Optional, Pattern

from .baseline import as_list
from .utils import trim

LOGGER = logging.getLogger(__name__)

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
JSON_SCHEMA_TYPES = JSON_ARTICLE_SCHEMA | JSON_OGTYPE_SCHEMA | JSON_PUBLISHER_SCHEMA | {"person"}

JSON_AUTHOR_1 = re.compile(r'"author":[^}[]+?"name?\\?": ?\\?"([^"\\]+)|"author"[^}[]+?"names?".+?"([^"]+)', re.DOTALL)
JSON_AUTHOR_2 = re.compile(r'"[Pp]erson"[^}]+?"names?".+?"([^"]+)', re.DOTALL)
JSON_AUTHOR_REMOVE = re.compile(
    r',?(?:"\w+":?[:|,\[])?{?"@type":"(?:[Ii]mageObject|[Oo]rganization|[Ww]eb[Pp]age)",[^}[]+}[\]|}]?'
)
JSON_PUBLISHER = re.compile(r'"publisher":[^}]+?"name?\\?": ?\\?"([^"\\]+)', re.DOTALL)
JSON_TYPE = re.compile(r'"@type"\s*:\s*"([^"]*)"', re.DOTALL)
JSON_CATEGORY = re.compile(r'"articleSection": ?"([^"\\]+)', re.DOTALL)
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
AUTHOR_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b")
AUTHOR_SPLIT = re.compile(r"/|;|,|\||&|(?:^|\W)[ua]nd(?:$|\W)", flags=re.IGNORECASE)
AUTHOR_EMOJI_REMOVE = re.compile(
    "[\U00002700-\U000027be\U0001f600-\U0001f64f\U00002600-\U000026ff\U0001f300-\U0001f5ff"
    "\U0001f900-\U0001f9ff\U0001fa70-\U0001faff\U0001f680-\U0001f6ff]+",
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


def _first_type(content: Any) -> str:
    "The first recognised schema.org type of a block (its first type otherwise), lower-cased."
    types = as_list(content["@type"])
    for item in types:
        if isinstance(item, str) and item.lower() in JSON_SCHEMA_TYPES:
            return item.lower()
    return types[0].lower()  # type: ignore[no-any-return]


def _article_authors(content: Any, metadata: Any) -> None:
    "The authors of an article block."
    list_authors = content["author"]
    if isinstance(list_authors, str):
        try:
            list_authors = json.loads(list_authors)
        except json.JSONDecodeError:
            metadata.author = normalize_authors(metadata.author, list_authors)
    for author in as_list(list_authors):
        if isinstance(author, str):
            author = {"name": author}
        if "@type" in author and "Person" not in as_list(author["@type"]):
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
        publisher = content.get("publisher")
        if isinstance(publisher, dict) and is_plausible_sitename(metadata, publisher.get("name")):
            metadata.sitename = publisher["name"]
        if "@type" not in content or not content["@type"]:
            continue
        content_type = _first_type(content)
        if content_type in JSON_OGTYPE_SCHEMA and not metadata.pagetype:
            metadata.pagetype = normalize_json(content_type)
        if content_type in JSON_PUBLISHER_SCHEMA:
            candidate = content.get("name") or content.get("legalName") or content.get("alternateName")
            if is_plausible_sitename(metadata, candidate, content_type):
                metadata.sitename = candidate
        elif content_type == "person":
            name = content.get("name")
            if isinstance(name, str) and not name.startswith("http"):
                metadata.author = normalize_authors(metadata.author, name)
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


def extract_json(schema: Any, metadata: Any) -> Any:
    """The blocks of a parsed JSON-LD value that declare a schema.org context (a
    @graph's members, a live blog's updates), read once all are collected."""
    parents: List[Any] = []
    for parent in as_list(schema):
        context = parent.get("@context")
        if not (context and isinstance(context, str) and JSON_SCHEMA_ORG.match(context)):
            continue
        if "@graph" in parent:
            parents.extend(as_list(parent["@graph"]))
        elif (
            "@type" in parent
            and isinstance(parent["@type"], str)
            and "liveblogposting" in parent["@type"].lower()
            and "liveBlogUpdate" in parent
        ):
            parents.extend(as_list(parent["liveBlogUpdate"]))
        else:
            parents.append(parent)
    return process_parent(parents, metadata)


def extract_json_author(elemtext: str, regular_expression: Pattern[str]) -> Optional[str]:
    "Authors matched one after the other by the regex (each match removed), while they hold a space."
    authors = None
    found = regular_expression.search(elemtext)
    while found:
        name = next(filter(None, found.groups()), None)
        if not name or " " not in name:
            break
        authors = normalize_authors(authors, name)
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


def normalize_json(string: str) -> str:
    """Escapes resolved (\\n, \\r, \\t dropped, \\uXXXX decoded without surrogates,
    HTML entities), tags stripped, whitespace trimmed."""
    if "\\" in string:
        string = string.replace("\\n", "").replace("\\r", "").replace("\\t", "")
        string = JSON_UNICODE_REPLACE.sub(_unicode_escape, string)
        string = _SURROGATES.sub("", string)
        string = unescape(string)
    return trim(HTML_STRIP_TAGS.sub("", string))


def _clean_author(author: str) -> str:
    "One name of an author string, cleaned step by step as upstream does."
    author = trim(author)
    author = AUTHOR_EMOJI_REMOVE.sub("", author)
    author = AUTHOR_TWITTER.sub("", author)
    author = trim(AUTHOR_REPLACE_JOIN.sub(" ", author))
    author = AUTHOR_REMOVE_NICKNAME.sub("", author)
    author = AUTHOR_REMOVE_SPECIAL.sub("", author)
    author = AUTHOR_PREFIX.sub("", author)
    author = AUTHOR_REMOVE_NUMBERS.sub("", author)
    return AUTHOR_REMOVE_PREPOSITION.sub("", author)


def normalize_authors(current_authors: Optional[str], author_string: str) -> Optional[str]:
    """The authors so far ('; '-separated) with the names of ``author_string`` added:
    split, cleaned, title-cased, deduplicated, names contained in another dropped."""
    if author_string.lower().startswith("http") or AUTHOR_EMAIL.match(author_string):
        return current_authors
    new_authors: List[str] = current_authors.split("; ") if current_authors is not None else []
    if "\\u" in author_string:
        try:
            author_string = author_string.encode().decode("unicode_escape")
        except UnicodeDecodeError:
            pass
    if "&#" in author_string or "&amp;" in author_string:
        author_string = unescape(author_string)
    author_string = HTML_STRIP_TAGS.sub("", author_string)
    for author in AUTHOR_SPLIT.split(author_string):
        author = _clean_author(author)
        if not author or (len(author) >= 50 and " " not in author and "-" not in author):
            continue
        if not author[0].isupper():
            author = author.title()
        if author not in new_authors:
            new_authors.append(author)
    new_authors = [name for name in new_authors if not any(name != other and name in other for other in new_authors)]
    if not new_authors:
        return current_authors
    return "; ".join(new_authors).strip("; ")
