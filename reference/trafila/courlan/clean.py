"""courlan 1.4.0's URL normalisation (courlan.clean): ``normalize_url`` and the
query, fragment and punycode helpers it uses."""

from __future__ import annotations

import re
from typing import Optional, Union
from urllib.parse import SplitResult, parse_qs, quote, urlencode, urlunsplit

from .urlutils import _parse

__all__ = ["normalize_url", "clean_query", "decode_punycode", "normalize_part", "normalize_fragment"]

# a default port right after a word character
NETLOC_RE = re.compile(r"(?<=\w):(?:80|443)")
# runs of slashes, and leading "/.." segments
PATH1 = re.compile(r"/+")
PATH2 = re.compile(r"^(?:/\.\.(?![^/]))+")

# tracking parameters (courlan's list)
TRACKERS_RE = re.compile(
    r"^(?:dc|fbc|gc|twc|yc|ysc)lid|"
    r"^(?:click|gbra|msclk|igsh|partner|wbra)id|"
    r"^(?:ads?|mc|ga|gs|itm|mc|mkt|ml|mtm|oly|pk|utm|vero)_|"
    r"(?:\b|_)(?:aff|affi|affiliate|campaign|cl?id|eid|ga|gl|"
    r"kwd|keyword|medium|ref|referr?er|session|source|uid|xtor)"
)

ALLOWED_PARAMS = frozenset((
    "aid", "article_id", "artnr", "id", "itemid", "objectid", "p", "page", "pagenum",
    "page_id", "pid", "post", "postid", "product_id",
))
LANG_PARAMS = frozenset(("lang", "language"))
TARGET_LANGS = {
    "de": frozenset(("de", "deutsch", "ger", "german")),
    "en": frozenset(("en", "english", "eng")),
}


def clean_query(querystring: str, strict: bool = False, language: Optional[str] = None) -> str:
    """The query without trackers (strict: only the allowed and language parameters),
    its keys sorted; ValueError when a language parameter names another language."""
    if not querystring:
        return ""
    params = parse_qs(querystring)
    kept = {}
    for key in sorted(params):
        lowered = key.lower()
        if strict:
            if lowered not in ALLOWED_PARAMS and lowered not in LANG_PARAMS:
                continue
        elif TRACKERS_RE.search(lowered):
            continue
        if language in TARGET_LANGS and lowered in LANG_PARAMS and str(params[key][0]) not in TARGET_LANGS[language]:
            raise ValueError
        kept[key] = params[key]
    return urlencode(kept, doseq=True)


def decode_punycode(string: str) -> str:
    "The host with its 'xn--' labels decoded where IDNA accepts them."
    if "xn--" not in string:
        return string
    labels = []
    for label in string.split("."):
        if label.lower().startswith("xn--"):
            try:
                label = label.encode("utf8").decode("idna")
            except UnicodeError:
                pass
        labels.append(label)
    return ".".join(labels)


def normalize_part(url_part: str) -> str:
    "Percent-encode a path or fragment (courlan's safe characters kept)."
    return quote(url_part, safe="/%!=:,-")


def normalize_fragment(fragment: str, language: Optional[str] = None) -> str:
    "The fragment without trackers when it reads like a query, percent-encoded."
    if "=" in fragment:
        if "&" in fragment:
            fragment = clean_query(fragment, False, language)
        elif TRACKERS_RE.search(fragment):
            fragment = ""
    return normalize_part(fragment)


def normalize_url(
    parsed_url: Union[SplitResult, str],
    strict: bool = False,
    language: Optional[str] = None,
    trailing_slash: bool = True,
) -> str:
    """The URL with scheme and host lower-cased (punycode decoded, the scheme's
    default port dropped), path slashes collapsed and encoded, query cleaned and sorted,
    fragment cleaned (dropped when strict)."""
    parts = _parse(parsed_url)
    scheme = parts.scheme.lower()
    netloc = decode_punycode(parts.netloc.lower())
    try:
        port = parts.port
    except ValueError:
        port = None
    if (scheme == "http" and port == 80) or (scheme == "https" and port == 443):
        netloc = NETLOC_RE.sub("", netloc)
    path = normalize_part(PATH2.sub("", PATH1.sub("/", parts.path)))
    query = clean_query(parts.query, strict, language)
    if query and not path:
        path = "/"
    elif not trailing_slash and not query and len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/")
    fragment = "" if strict else normalize_fragment(parts.fragment, language)
    return urlunsplit((scheme, netloc, path, query, fragment))
