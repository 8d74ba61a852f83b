"""Date parsers and the element searches of htmldate 1.11.0 (htmldate/extractors.py).

The XPath expressions are walks over trafila's element API (see each function);
the regular expressions come from ``_tables.PATTERNS`` (generated from htmldate).
Two parsers htmldate calls on a date string are not ported in full: dateutil's
``parse`` (reached by a string that starts with four digits, is not ISO 8601 and
has no 8-digit prefix) only for ``YYYY/MM/DD[ HH:MM[:SS]]`` shapes (any of ``/.-``)
and the words it refuses, and dateparser (extensive search, for a string that
passes htmldate's cue tests) not at all. A string the twin cannot decide is handed
to the installed library, that one string as htmldate 1.11.0 hands it (counted in
:func:`handover_counts`); without htmldate 1.11.0 installed the twin raises
:class:`trafila._engine.NotNative` instead (the whole call then goes to trafilatura).
"""

from __future__ import annotations

import importlib
import re
import threading
from collections import Counter
from datetime import datetime
from functools import lru_cache
from itertools import islice
from typing import Any, Callable, Dict, Iterator, List, Optional

from trafila import _backend
from trafila._backend import core_of
from trafila._engine import NotNative

from ._tables import FAST_TAGS, MONTH_WORDS, MONTHS
from .scan import long_text_search
from .settings import MAX_SEGMENT_LEN
from .utils import Extractor, compiled_pattern, remove_if_attached, trim_text
from .validators import convert_date, correct_year, is_valid_date, validate_and_convert



YMD_NO_SEP_PATTERN = compiled_pattern("YMD_NO_SEP_PATTERN")
YMD_PATTERN = compiled_pattern("YMD_PATTERN")
YM_PATTERN = compiled_pattern("YM_PATTERN")
LONG_TEXT_PATTERN = compiled_pattern("LONG_TEXT_PATTERN")
COMPLETE_URL = compiled_pattern("COMPLETE_URL")
JSON_MODIFIED = compiled_pattern("JSON_MODIFIED")
JSON_PUBLISHED = compiled_pattern("JSON_PUBLISHED")
TEXT_DATE_PATTERN = compiled_pattern("TEXT_DATE_PATTERN")
YEAR_OR_MONTH = compiled_pattern("YEAR_OR_MONTH")
DAY_TOKEN = compiled_pattern("DAY_TOKEN")
WORD = compiled_pattern("WORD")
DISCARD_PATTERNS = compiled_pattern("DISCARD_PATTERNS")
DATE_CORE_PATTERN = compiled_pattern("DATE_CORE_PATTERN")
TEXT_PATTERNS = compiled_pattern("TEXT_PATTERNS")
TIMESTAMP_PATTERN = compiled_pattern("TIMESTAMP_PATTERN")
TIMESTAMP_LOOSE_PATTERN = compiled_pattern("TIMESTAMP_LOOSE_PATTERN")

FAST_TAG_SET = frozenset(FAST_TAGS)
_DISCARD_IDS = ("wm-ipp-base", "wm-ipp")
# strftime directives of a time of day or a time zone
TIME_TZ_DIRECTIVES = ("%H", "%I", "%M", "%S", "%f", "%z", "%Z", "%p", "%X", "%c")


def _fold_month_name(token: str) -> str:
    "Lower-case, the Turkish dotless and dotted capital i folded to 'i' first."
    return token.replace("ı", "i").replace("İ", "i").lower()


MONTH_NUMBERS = {_fold_month_name(name): i for i, names in enumerate(MONTHS, 1) for name in names}


def free_text_segments(tree: Any) -> List[str]:
    """XPath ``.//*[self::div or self::h2 ... or self::ul]/text()``: the text nodes whose
    parent is one of FAST_TAGS below ``tree``, in document order (an element's text at
    its start, a child's tail after the child's subtree)."""
    core = core_of(tree)
    if core is not None:
        return core.free_text_segments(tree, FAST_TAGS)  # type: ignore[no-any-return]
    out: List[str] = []
    # (element, end of its subtree?, is its parent a selected element?); the context's
    # own text nodes (its text, its children's tails) are not selected
    stack: List[Any] = [(child, False, False) for child in reversed(list(tree))]
    while stack:
        elem, done, parent_selected = stack.pop()
        if done:
            # elem's tail is a text node of its parent
            if parent_selected and elem.tail:
                out.append(elem.tail)
            continue
        selected = elem.tag in FAST_TAG_SET
        if selected and elem.text:
            out.append(elem.text)
        stack.append((elem, True, parent_selected))
        stack.extend((child, False, selected) for child in reversed(list(elem)))
    return out


def discard_unwanted(tree: Any) -> Any:
    "Remove the archive.org banners (``.//div[@id='wm-ipp-base' or @id='wm-ipp']``) with their tails."
    for subtree in [e for e in tree.iterdescendants("div") if e.get("id") in _DISCARD_IDS]:
        remove_if_attached(subtree)
    return tree


def extract_url_date(testurl: Optional[str], options: Extractor) -> Optional[str]:
    "A Y-M-D date in a URL, within the bounds."
    if testurl is not None:
        match = COMPLETE_URL.search(testurl)
        if match:
            try:
                dateobject = datetime(int(match[1]), int(match[2]), int(match[3]))
            except ValueError:
                return None
            return validate_and_convert(dateobject, options.format, options.min, options.max)
    return None


def try_swap_values(day: int, month: int) -> tuple:
    "Day and month swapped when the month cannot be one and the day can."
    return (month, day) if month > 12 and day <= 12 else (day, month)


def _build_dmy(day: int, month: int, year: int) -> datetime:
    year = correct_year(year)
    day, month = try_swap_values(day, month)
    return datetime(year, month, day)


def regex_parse(string: str) -> Optional[datetime]:
    "A date written with a month name (English, French, German, Indonesian, Turkish)."
    pos = 0
    while True:
        match = long_text_search(string, pos)  # LONG_TEXT_PATTERN.search, by year windows
        if match is None:
            return None
        word = _fold_month_name(match["month"] or match["month2"])
        if match["month"]:
            # a month glued to the word before it ("SmithMarch"): the longest known
            # suffix of the last 12 characters
            word = word[-12:]
            for i in range(len(word) - 2):
                if word[i:] in MONTH_NUMBERS:
                    word = word[i:]
                    break
        month = MONTH_NUMBERS.get(word)
        if month is None:
            pos = match.start() + 1
            continue
        try:
            return _build_dmy(int(match["day"] or match["day2"]), month, int(match["year"] or match["year2"]))
        except ValueError:
            pos = match.end()


def _parse_yyyymmdd(digits: str) -> datetime:
    return datetime(int(digits[:4]), int(digits[4:6]), int(digits[6:8]))


def _date_candidates(string: str) -> Iterator[Optional[datetime]]:
    "custom_parse's candidates, best first."
    if string[:4].isdigit():
        candidate = None
        if string[4:8].isdigit():
            try:
                candidate = _parse_yyyymmdd(string)
            except ValueError:
                pass
        else:
            try:
                candidate = datetime.fromisoformat(string)
            except ValueError:
                candidate = dateutil_parse(string)
        yield candidate
    match = YMD_NO_SEP_PATTERN.search(string)
    if match:
        try:
            yield _parse_yyyymmdd(match[1])
        except ValueError:
            pass
    match = YMD_PATTERN.search(string)
    if match:
        try:
            if match.lastgroup == "day":
                yield datetime(int(match["year"]), int(match["month"]), int(match["day"]))
            else:
                yield _build_dmy(int(match["day2"]), int(match["month2"]), int(match["year2"]))
        except ValueError:
            pass
    match = YM_PATTERN.search(string)
    if match:
        try:
            yield datetime(int(match["year"] or match["year2"]), int(match["month"] or match["month2"]), 1)
        except ValueError:
            pass
    yield regex_parse(string)


# the one shape of dateutil input ported: year first, one separator twice, an optional
# H:MM[:SS] after a space (dateutil reads it year, month, day; missing time is midnight)
_DATEUTIL_YMD = re.compile(
    r"([0-9]{4})([/.-])([0-9]{1,2})\2([0-9]{1,2})(?: ([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?)?", re.ASCII
)


# the words dateutil's default parserinfo knows (dateutil 2.9, lower-cased): jumps, weekdays,
# months, h/m/s units, am/pm, UTC zones, "of"
_DATEUTIL_WORDS = frozenset(
    "at on and ad m t of st nd rd th h hour hours minute minutes s second seconds am a pm p utc gmt z "
    "mon monday tue tuesday wed wednesday thu thursday fri friday sat saturday sun sunday "
    "jan january feb february mar march apr april may jun june jul july aug august sep sept september "
    "oct october nov november dec december".split()
)
_ALPHA_RUN = re.compile(r"[^\W\d_]+")


def _dateutil_rejects(string: str) -> bool:
    """dateutil (fuzzy=False) raises ValueError on a word it does not know: a run of
    letters that is none of its words and could not be a time-zone name (ASCII capitals,
    at most five)."""
    for word in _ALPHA_RUN.findall(string):
        if not word.isalpha():  # pragma: no cover - \W\d_ excluded, marks stay out
            continue
        if word.lower() in _DATEUTIL_WORDS:
            continue
        if len(word) <= 5 and word.isascii() and word.isupper():
            continue
        return True
    return False


def dateutil_native(string: str) -> Optional[datetime]:
    """The twin of ``dateutil.parser.parse(string, fuzzy=False)`` as htmldate calls it:
    year-month-day strings with an optional time of day whose every field is in range,
    None where dateutil raises on an unknown word (htmldate catches that); NotNative
    for anything else."""
    match = _DATEUTIL_YMD.fullmatch(string)
    if match is None:
        if _dateutil_rejects(string):
            return None
        raise NotNative("date: dateutil")
    year, _, month, day, hour, minute, second = match.groups()
    try:
        return datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
    except ValueError:
        # dateutil may read out-of-range fields otherwise (day and month swapped)
        raise NotNative("date: dateutil") from None


# -- the per-string hand-over to the installed parsers ---------------------------------------
# htmldate 1.11.0 is the release ported: its parser objects are used only when it is the
# one installed (then dateparser's settings and htmldate's logging are its own)
HTMLDATE_RELEASE = "1.11.0"
_UNRESOLVED: Any = object()
_installed: Dict[str, Any] = {"dateutil": _UNRESOLVED, "dateparser": _UNRESOLVED}
_handovers: "Counter[str]" = Counter()
_handover_lock = threading.Lock()


def _resolve_installed(parser: str) -> Optional[Callable[[str], Optional[datetime]]]:
    """The installed library's call for one string, as htmldate 1.11.0 makes it (its exceptions
    caught as there), or None where htmldate 1.11.0 (or the parser) is not importable."""
    try:
        htmldate = importlib.import_module("htmldate")
        if getattr(htmldate, "__version__", None) != HTMLDATE_RELEASE:
            return None
        their = importlib.import_module("htmldate.extractors")
        if parser == "dateparser":
            importlib.import_module("dateparser")
            # htmldate's own function: its DateDataParser, its settings, its exceptions and log
            return their._external_date  # type: ignore[no-any-return]
        importlib.import_module("dateutil.parser")
        parse = their.dateutil_parse  # the name htmldate imports dateutil's parse under
    except (ImportError, AttributeError):
        return None

    def dateutil_call(string: str) -> Optional[datetime]:
        try:
            return parse(string, fuzzy=False)  # type: ignore[no-any-return]
        except (OverflowError, TypeError, ValueError):  # what htmldate catches around it
            return None

    return dateutil_call


def installed_parser(parser: str) -> Optional[Callable[[str], Optional[datetime]]]:
    "The installed ``parser`` (``dateutil`` or ``dateparser``) for one string, resolved at first use; None: absent."
    found = _installed[parser]
    if found is _UNRESOLVED:
        found = _installed[parser] = _resolve_installed(parser)
    return found  # type: ignore[no-any-return]


def hand_over(parser: str, string: str) -> Optional[datetime]:
    """``string`` parsed by the installed ``parser`` as htmldate 1.11.0 parses it, counted;
    NotNative (the whole call to trafilatura) where it is not installed, or where it raises
    what htmldate does not catch (trafilatura's call then raises it)."""
    call = installed_parser(parser)
    if call is None:
        raise NotNative(f"date: {parser}")
    with _handover_lock:
        _handovers[parser] += 1
    try:
        return call(string)
    except Exception as err:  # noqa: BLE001 - htmldate lets it through: the caller's answer is the raise
        raise NotNative(f"date: {parser} raised {type(err).__name__}") from err


def handover_counts() -> Dict[str, int]:
    "How many strings went to each installed parser so far in this process (``dateutil``, ``dateparser``)."
    with _handover_lock:
        return dict(_handovers)


def dateutil_parse(string: str) -> Optional[datetime]:
    """``dateutil.parser.parse(string, fuzzy=False)`` as htmldate calls it (None where
    htmldate catches its exception): the twin where it decides, else the installed dateutil."""
    try:
        return dateutil_native(string)
    except NotNative:
        return hand_over("dateutil", string)


def custom_parse(string: str, outputformat: str, min_date: datetime, max_date: datetime) -> Optional[str]:
    "The first of the fast parsers' candidates within the bounds, formatted."
    for candidate in _date_candidates(string):
        result = validate_and_convert(candidate, outputformat, min_date, max_date)
        if result is not None:
            return result
    return None


def has_date_cue(string: str, min_date: datetime, max_date: datetime) -> bool:
    "The first 4-digit number (a year in bounds) or known month decides, else any dateparser month name."
    match = YEAR_OR_MONTH.search(string)
    if match is not None:
        return not match[0].isdigit() or min_date.year <= int(match[0]) <= max_date.year
    return any(_fold_month_name(word) in MONTH_WORDS for word in WORD.findall(string))


def external_date(string: str) -> Optional[datetime]:
    """dateparser's DateDataParser as htmldate configures it: htmldate's ``_external_date``
    on this one string (no twin)."""
    return hand_over("dateparser", string)


@lru_cache(maxsize=8192)
def try_date_expr(string: Optional[str], outputformat: str, extensive_search: bool,
                  min_date: datetime, max_date: datetime) -> Optional[str]:
    "A potential date expression parsed, checked and formatted, or None."
    if not string:
        return None
    string = trim_text(string)[:MAX_SEGMENT_LEN]
    if not string or not 4 <= sum(map(str.isdigit, string)) <= 18:
        return None
    if DISCARD_PATTERNS.search(string):
        return None
    result = custom_parse(string, outputformat, min_date, max_date)
    if result is not None:
        return result
    if (extensive_search and TEXT_DATE_PATTERN.search(string) and DAY_TOKEN.search(string)
            and has_date_cue(string, min_date, max_date)):
        return validate_and_convert(external_date(string), outputformat, min_date, max_date)
    return None


def try_date_expr_opts(string: Optional[str], options: Extractor) -> Optional[str]:
    "try_date_expr with the call's options."
    return try_date_expr(string, options.format, options.extensive, options.min, options.max)


def img_search(tree: Any, options: Extractor) -> Optional[str]:
    "The URL date of the first ``.//meta[@property='og:image'][@content]``."
    for element in tree.iterdescendants("meta"):
        if element.get("property") == "og:image" and element.get("content") is not None:
            return extract_url_date(element.get("content"), options)
    return None


_YEAR_DASH_LED = (TIMESTAMP_PATTERN, TIMESTAMP_LOOSE_PATTERN)


def _timestamp_search(text: str, date_pattern: "re.Pattern[str]") -> Optional["re.Match[str]"]:
    """``date_pattern.search(text)``; for the TIMESTAMP patterns on the core's backend, the
    C scan finds each place where their leading ``YEAR-`` stands and the pattern's
    ``match`` there decides (what ``search`` does at each position: no lookbehind)."""
    year_dash = getattr(_backend.current().core, "htmldate_year_dash", None)
    if year_dash is None or date_pattern not in _YEAR_DASH_LED:
        return date_pattern.search(text)
    pos = year_dash(text, 0)
    while pos >= 0:
        match = date_pattern.match(text, pos)
        if match is not None:
            return match
        pos = year_dash(text, pos + 1)
    return None


def pattern_search(text: str, date_pattern: "re.Pattern[str]", options: Extractor) -> Optional[str]:
    "The first match of a Y-M-D pattern, within the bounds, with its time when the format wants one."
    match = _timestamp_search(text, date_pattern)
    if not match or not is_valid_date(match[1], "%Y-%m-%d", options.min, options.max):
        return None
    full = None
    if (match.lastindex and match.lastindex >= 2 and match[2]
            and any(directive in options.format for directive in TIME_TZ_DIRECTIVES)):
        full = custom_parse(match[1] + match[2], options.format, options.min, options.max)
    return full or convert_date(match[1], "%Y-%m-%d", options.format)


def json_search(tree: Any, options: Extractor) -> Optional[str]:
    "datePublished (original) or dateModified in the JSON scripts (``.//script[@type=...]``)."
    json_pattern = JSON_PUBLISHED if options.original else JSON_MODIFIED
    for elem in tree.iterdescendants("script"):
        if elem.get("type") not in ("application/ld+json", "application/settings+json"):
            continue
        if not elem.text or '"date' not in elem.text:
            continue
        result = pattern_search(elem.text, json_pattern, options)
        if result is not None:
            return result
    return None


def idiosyncrasies_search(htmlstring: str, options: Extractor) -> Optional[str]:
    "Dates announced by words (EN, DE, TR), as authors write them."
    match = None
    c_cores = getattr(_backend.current().core, "htmldate_date_cores", None)
    # the spans of the first 1,001 numeric cores (the core's C matcher, or the pattern's)
    spans = (c_cores(htmlstring, 1001) if c_cores is not None
             else [m.span() for m in islice(DATE_CORE_PATTERN.finditer(htmlstring), 1001)])
    for core_start, core_end in islice(spans, 1000):
        # a window of 60 characters around each numeric core decides where to search
        start = max(0, core_start - 60)
        if TEXT_PATTERNS.search(htmlstring, start, core_end + 60):
            match = TEXT_PATTERNS.search(htmlstring, start)
            break
    else:
        if len(spans) > 1000:
            match = TEXT_PATTERNS.search(htmlstring)
    if match:
        parts = [p for p in match.groups() if p]
        try:
            if len(parts[0]) == 4:
                candidate = datetime(int(parts[0]), int(parts[1]), int(parts[2]))
            else:
                candidate = _build_dmy(int(parts[0]), int(parts[1]), int(parts[2]))
            return validate_and_convert(candidate, options.format, options.min, options.max)
        except (IndexError, ValueError):
            pass
    return None
