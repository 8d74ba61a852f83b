"""courlan 1.4.0's URL validity checks (courlan.filters)."""

from __future__ import annotations

from typing import Optional, Tuple
from urllib.parse import SplitResult, urlsplit

__all__ = ["validate_url", "is_valid_url"]

_WEB_SCHEMES = frozenset(("http", "https"))


def validate_url(url: Optional[str]) -> Tuple[bool, Optional[SplitResult]]:
    """(True, the split URL) for an http(s) URL whose host part is long enough,
    (False, None) otherwise."""
    try:
        parts = urlsplit(url)  # type: ignore[arg-type]
    except ValueError:
        return False, None
    if parts.scheme not in _WEB_SCHEMES:
        return False, None
    host = parts.netloc
    # five characters at least, eight when it begins with "www."
    if len(host) < 5 or (host.startswith("www.") and len(host) < 8):
        return False, None
    return True, parts


def is_valid_url(url: Optional[str]) -> bool:
    "Whether validate_url accepts the URL."
    return validate_url(url)[0]
