"""How a result is recorded and compared: sha256 + length, None, or an exception type.

An ``extract`` result is a ``str`` or ``None``; a ``bare_extraction`` result is
``None`` or a dict of the fields in :data:`harness.matrix.BARE_FIELDS`, each a
``str`` or ``None`` (``body``/``commentsbody`` as their XML serialisation).
"""

from __future__ import annotations

import hashlib
from typing import Any, Optional, Union

Entry = Union[None, list, dict]


def text_entry(value: Optional[str]) -> Entry:
    """``[sha256 hex, length]`` for a str, ``None`` for None."""
    if value is None:
        return None
    if not isinstance(value, str):
        return {"type": type(value).__name__}
    data = value.encode("utf-8", "surrogatepass")
    return [hashlib.sha256(data).hexdigest(), len(value)]


def result_entry(result: Any) -> Entry:
    """The cache entry of a candidate's plain result."""
    if isinstance(result, dict):
        return {"fields": {k: text_entry(v) for k, v in sorted(result.items())}}
    return text_entry(result)


def raised_entry(exc: BaseException) -> dict:
    return {"raise": type(exc).__name__}


def error_entry(message: str) -> dict:
    """A harness-side failure (timeout, crash of a subprocess): never equal to anything."""
    return {"error": message}


def same(expected: Entry, got: Entry) -> bool:
    if isinstance(got, dict) and "error" in got:
        return False
    return expected == got


def differing_fields(expected: Entry, got: Entry) -> list:
    """Names of the bare_extraction fields that differ (empty when not field results)."""
    if not (isinstance(expected, dict) and isinstance(got, dict)):
        return []
    ef, gf = expected.get("fields"), got.get("fields")
    if ef is None or gf is None:
        return []
    return sorted(k for k in set(ef) | set(gf) if ef.get(k) != gf.get(k))


def describe(entry: Entry) -> str:
    if entry is None:
        return "None"
    if isinstance(entry, list):
        return f"text of {entry[1]} chars ({entry[0][:12]})"
    if "raise" in entry:
        return f"raises {entry['raise']}"
    if "error" in entry:
        return f"harness error: {entry['error']}"
    if "fields" in entry:
        return "fields " + ", ".join(f"{k}={describe(v)}" for k, v in entry["fields"].items())
    return repr(entry)
