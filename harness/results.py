"""How a result is recorded and compared: sha256 + length, None, or an exception type.

An ``extract`` result is a ``str`` or ``None``; a ``bare_extraction`` result is
``None`` or a dict of the fields in :data:`harness.matrix.BARE_FIELDS`, each a
``str`` or ``None`` (``body``/``commentsbody`` as their XML serialisation).
"""

from __future__ import annotations

import hashlib
from itertools import chain
from datetime import date, datetime, timedelta
from typing import Any, Iterator, Optional, Union

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


# --- the day a result was made ---------------------------------------------------------
# trafilatura writes the day it runs into a result with metadata (filedate, the local date of
# datetime.now(), which is also htmldate's max_date). A cached oracle result made on another day
# is compared with the candidate's result as of that day: the candidate's day, where it occurs
# in a text or field, written as the oracle's. Nothing else is forgiven, and the comparisons
# equal only this way are counted (parity's report says how many, and on which day).

#: how far back an oracle cache's day is looked for
DAY_WINDOW = 3 * 366


def run_day() -> str:
    "The day trafilatura writes into a result made now (its max_date / filedate)."
    return datetime.now().astimezone().strftime("%Y-%m-%d")


def as_of(result: Any, today: str, day: str) -> Any:
    """``result`` (a str, or a dict of fields) with ``today`` written as ``day``."""
    if isinstance(result, str):
        return result.replace(today, day)
    if isinstance(result, dict):
        return {k: as_of(v, today, day) for k, v in result.items()}
    return result


def mentions(result: Any, today: str) -> bool:
    "Whether ``today`` occurs in the result's text or fields."
    if isinstance(result, str):
        return today in result
    if isinstance(result, dict):
        return any(mentions(v, today) for v in result.values())
    return False


def earlier_days(today: str, window: int = DAY_WINDOW) -> Iterator[str]:
    "The days before ``today``, latest first."
    start = date.fromisoformat(today)
    for back in range(1, window + 1):
        yield (start - timedelta(days=back)).isoformat()


def day_of_entry(expected: Entry, result: Any, today: str, hint: Optional[str] = None) -> Optional[str]:
    """The earlier day as of which ``result`` (made ``today``) gives the ``expected`` entry, or
    None: ``hint`` (the day found for the entry before) first, then each day of the window."""
    if not mentions(result, today):
        return None
    for day in chain([hint] if hint and hint != today else [], earlier_days(today)):
        if result_entry(as_of(result, today, day)) == expected:
            return day
    return None
