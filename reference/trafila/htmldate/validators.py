"""Date validation and conversion of htmldate 1.11.0 (htmldate/validators.py).

"Today" comes from :func:`now`, a module-level clock that tests set with
:func:`set_clock` (htmldate reads ``datetime.now()``).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from typing import Callable, Optional, Tuple, Union

from .settings import MIN_DATE
from .utils import Extractor

_clock: Callable[[], datetime] = datetime.now


def set_clock(clock: Optional[Callable[[], datetime]]) -> None:
    "Make ``clock()`` today's date and time (``None``: back to ``datetime.now``)."
    global _clock
    _clock = clock or datetime.now


def now() -> datetime:
    "Today's date and time, from the module clock."
    return _clock()


# lossless whatever the output format
REFERENCE_FORMAT = "%Y-%m-%dT%H:%M:%S.%f%z"


def _is_in_range(dateobject: datetime, earliest: datetime, latest: datetime) -> bool:
    "Within the window: years first, then POSIX timestamps (naive dates in local time)."
    if not earliest.year <= dateobject.year <= latest.year:
        return False
    try:
        return earliest.timestamp() <= dateobject.timestamp() <= latest.timestamp()
    except OSError:  # pragma: no cover - Windows, naive dates before 1970
        return (earliest.replace(tzinfo=None) <= dateobject.replace(tzinfo=None)
                <= latest.replace(tzinfo=None))


def _parse_and_validate(date_input: str, outputformat: str, earliest: datetime, latest: datetime) -> bool:
    try:
        if outputformat == "%Y-%m-%d":
            try:
                # positional read: any separator passes
                dateobject = datetime(int(date_input[:4]), int(date_input[5:7]), int(date_input[8:10]))
            except ValueError:
                dateobject = datetime.strptime(date_input, outputformat)
        else:
            dateobject = datetime.strptime(date_input, outputformat)
    except ValueError:
        return False
    return _is_in_range(dateobject, earliest, latest)


def is_valid_date(date_input: Union[datetime, str, None], outputformat: str,
                  earliest: datetime, latest: datetime) -> bool:
    "Whether the date (a datetime, or a string in ``outputformat``) lies within the bounds."
    if date_input is None:
        return False
    if isinstance(date_input, datetime):
        return _is_in_range(date_input, earliest, latest)
    return _parse_and_validate(date_input, outputformat, earliest, latest)


def validate_and_convert(date_input: Optional[datetime], outputformat: str,
                         earliest: datetime, latest: datetime) -> Optional[str]:
    "The date formatted with ``outputformat`` when it is within the bounds."
    if date_input is not None and is_valid_date(date_input, outputformat, earliest, latest):
        try:
            return date_input.strftime(outputformat)
        except ValueError:  # pragma: no cover
            return None
    return None


def is_valid_format(outputformat: str) -> bool:
    "A strftime format that formats a date and holds a directive."
    try:
        datetime(2017, 9, 1, 0, 0).strftime(outputformat)
    except (TypeError, ValueError):
        return False
    return "%" in outputformat


def correct_year(year: int) -> int:
    "Two-digit years: 90-99 are 19xx, the others 20xx."
    if year < 100:
        year += 1900 if year >= 90 else 2000
    return year


def plausible_year_filter(htmlstring: str, *, pattern: "re.Pattern[str]", yearpat: "re.Pattern[str]",
                          earliest: datetime, latest: datetime) -> "Counter[str]":
    "Count the pattern's matches, keeping those whose year lies within the bounds' years."
    occurrences = Counter(pattern.findall(htmlstring))
    for item in list(occurrences):
        year_match = yearpat.search(item)
        if year_match is None:
            del occurrences[item]
            continue
        year = correct_year(int(year_match[1]))
        if not earliest.year <= year <= latest.year:
            del occurrences[item]
    return occurrences


def update_reference(reference: Optional[datetime], candidate: datetime, original: bool) -> datetime:
    "The older (original) or newer of the two, compared as wall-clock times."
    if reference is None:
        return candidate
    pick = min if original else max
    return pick(reference, candidate, key=lambda d: d.replace(tzinfo=None))


def compare_values(reference: Optional[datetime], attempt: str, options: Extractor) -> Optional[datetime]:
    "Fold a date written in REFERENCE_FORMAT into the reference."
    try:
        candidate = datetime.fromisoformat(attempt)
    except ValueError:
        try:
            candidate = datetime.strptime(attempt, REFERENCE_FORMAT)
        except ValueError:
            return reference
    return update_reference(reference, candidate, options.original)


def convert_date(datestring: Union[str, datetime], inputformat: str, outputformat: str) -> str:
    "Re-format a date string (or a datetime)."
    if isinstance(datestring, datetime):
        return datestring.strftime(outputformat)
    return datetime.strptime(datestring, inputformat).strftime(outputformat)


def filter_ymd_candidate(bestmatch: Optional[Tuple[str, ...]], copyear: int, outputformat: str,
                         min_date: datetime, max_date: datetime) -> Optional[str]:
    "A Y, M, D match as a date in the bounds and not before the copyright year."
    if bestmatch is not None:
        pagedate = "-".join(bestmatch[:3])
        if is_valid_date(pagedate, "%Y-%m-%d", min_date, max_date) and (
            copyear == 0 or int(bestmatch[0]) >= copyear
        ):
            return convert_date(pagedate, "%Y-%m-%d", outputformat)
    return None


def check_extracted_reference(reference: Optional[datetime], options: Extractor) -> Optional[str]:
    "The reference date formatted, when it lies within the bounds."
    if reference is not None and is_valid_date(reference, options.format, options.min, options.max):
        return reference.strftime(options.format)
    return None


def check_date_input(date_object: Union[datetime, str, None], default: datetime) -> datetime:
    "A datetime, an ISO date string, or the default."
    if isinstance(date_object, datetime):
        return date_object
    if isinstance(date_object, str):
        try:
            return datetime.fromisoformat(date_object)
        except ValueError:
            pass
    return default


def get_min_date(min_date: Union[datetime, str, None]) -> datetime:
    "The earliest date: given, or 1995-01-01."
    return check_date_input(min_date, MIN_DATE)


def get_max_date(max_date: Union[datetime, str, None]) -> datetime:
    "The latest date: given, or the end of today (by the module clock)."
    end_of_today = now().replace(hour=23, minute=59, second=59, microsecond=999999)
    return check_date_input(max_date, end_of_today)
