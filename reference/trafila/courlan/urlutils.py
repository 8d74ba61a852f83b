"""courlan 1.4.0's URL part helpers (courlan.urlutils) that trafilatura calls:
``extract_domain`` and ``get_base_url`` (metadata), ``get_base_url`` and
``fix_relative_urls`` (links and images of both releases)."""

from __future__ import annotations

import re
from html import unescape
from typing import Optional, Set, Tuple, Union
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from ._tld import get_tld_parts

__all__ = ["extract_domain", "get_tldinfo", "get_base_url", "fix_relative_urls"]

# the "fast" host pattern: a protocol, an optional run of labels ending in a dot,
# then the registered name (4+ chars, no dot) with its suffix, an IPv4 or a long IPv6-ish string
DOMAIN_REGEX = re.compile(
    r"(?:(?:f|ht)tp)s?://"
    r"(?:[^/?#]{,63}\.)?"
    r"([^/?#.]{4,63}\.[^/?#]{2,63}|"
    r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|"
    r"[0-9a-f:]{16,})"
    r"(?:/|$)"
)
STRIP_PORT_REGEX = re.compile(r"(?<=\D):\d+")
CLEAN_FLD_REGEX = re.compile(r"^www[0-9]*\.")


def get_tldinfo(url: str, fast: bool = False) -> Tuple[Optional[str], Optional[str]]:
    "(registered name, full domain) of a URL, (None, None) when there is none."
    if not url or not isinstance(url, str):
        return None, None
    if fast:
        found = DOMAIN_REGEX.match(url)
        if found:
            # user info before '@' and a port after a non-digit are not part of the domain
            full_domain = STRIP_PORT_REGEX.sub("", found[1].split("@")[-1])
            first_label = full_domain.split(".")[0]
            if first_label:
                return first_label, full_domain
    # otherwise the Public Suffix List decides (tld's get_tld)
    parts = get_tld_parts(url)
    if parts is None:
        return None, None
    domain, fld = parts
    return domain, CLEAN_FLD_REGEX.sub("", fld)


def extract_domain(url: str, blacklist: Optional[Set[str]] = None, fast: bool = False) -> Optional[str]:
    "The URL's domain (without www), None when none is found or it is blacklisted."
    blacklist = blacklist if blacklist is not None else set()
    domain, full_domain = get_tldinfo(url, fast=fast)
    if full_domain and domain not in blacklist and full_domain not in blacklist:
        return full_domain
    return None


def _parse(url: Union[str, SplitResult]) -> SplitResult:
    "A split URL: strings are HTML-unescaped and split, split URLs pass through."
    if isinstance(url, str):
        return urlsplit(unescape(url))
    if isinstance(url, SplitResult):
        return url
    raise TypeError("wrong input type:", type(url))


def get_base_url(url: Union[str, SplitResult]) -> str:
    "'scheme://netloc' of the URL ('netloc' alone without a scheme)."
    parts = _parse(url)
    prefix = f"{parts.scheme}://" if parts.scheme else ""
    return prefix + parts.netloc


def fix_relative_urls(baseurl: str, url: str) -> str:
    """Resolve a link against the base: a link to another host is kept as it is,
    given http when it has no scheme."""
    if url.startswith("{"):
        return url
    base_netloc = urlsplit(baseurl).netloc
    split_url = urlsplit(url)
    if split_url.netloc not in (base_netloc, ""):
        if split_url.scheme:
            return url
        return urlunsplit(split_url._replace(scheme="http"))
    return urljoin(baseurl, url)
