"""courlan 1.4.0's ``get_base_url`` and ``fix_relative_urls`` (courlan.urlutils),
which trafilatura 2.3.1 and 1.11.0 both call to resolve links; both oracle
environments resolve courlan 1.4.0."""

from __future__ import annotations

from html import unescape as html_unescape
from urllib.parse import urljoin, urlsplit, urlunsplit


def get_base_url(url: str) -> str:
    "'scheme://netloc' of the HTML-unescaped URL."
    parsed_url = urlsplit(html_unescape(url))
    scheme = parsed_url.scheme + "://" if parsed_url.scheme else ""
    return scheme + parsed_url.netloc


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
