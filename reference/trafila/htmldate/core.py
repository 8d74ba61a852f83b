"""find_date and the page searches of htmldate 1.11.0 (htmldate/core.py).

Like htmldate, find_date leaves a tree it is given untouched: the passes that
delete elements work on a copy (``copy.deepcopy``, lxml's copy semantics);
only a tree it parsed itself from a string is cleaned in place.
"""

from __future__ import annotations

import copy
import logging
import re
from collections import Counter
from datetime import datetime, timezone
from functools import partial
from typing import Any, Callable, List, Optional, Union

from trafila._backend import core_of
from trafila.xpathlib import contains, first_attrs, folded, regex, register_exact, register_prefilter, select, \
    x_contains, x_regex, x_true

from . import scan
from ._tables import CLASS_ATTRS, DATE_ATTRIBUTES, ITEMPROP_ATTRS_MODIFIED, ITEMPROP_ATTRS_ORIGINAL, \
    NAME_MODIFIED, PROPERTY_MODIFIED
from .extractors import FAST_TAGS, YMD_PATTERN, discard_unwanted, extract_url_date, free_text_segments, \
    idiosyncrasies_search, img_search, json_search, pattern_search, regex_parse, try_date_expr, \
    try_date_expr_opts
from .settings import CLEANING_LIST, MAX_POSSIBLE_CANDIDATES, MAX_SEGMENT_LEN, MIN_SEGMENT_LEN
from .utils import Extractor, compiled_pattern, clean_html, first_descendant, is_trafila_element, load_html, trim_text
from .validators import REFERENCE_FORMAT, check_extracted_reference, compare_values, correct_year, \
    filter_ymd_candidate, get_max_date, get_min_date, is_valid_date, is_valid_format, plausible_year_filter, \
    update_reference, validate_and_convert

ITEMPROP_ATTRS = ITEMPROP_ATTRS_ORIGINAL | ITEMPROP_ATTRS_MODIFIED
ALWAYS_TAGS = frozenset({"footer", "small"})



NON_DIGITS_REGEX = compiled_pattern("NON_DIGITS_REGEX")
TIMESTAMP_PATTERN = compiled_pattern("TIMESTAMP_PATTERN")
TIMESTAMP_LOOSE_PATTERN = compiled_pattern("TIMESTAMP_LOOSE_PATTERN")
THREE_COMP_REGEX_A = compiled_pattern("THREE_COMP_REGEX_A")
THREE_COMP_REGEX_B = compiled_pattern("THREE_COMP_REGEX_B")
TWO_COMP_REGEX = compiled_pattern("TWO_COMP_REGEX")
YEAR_PATTERN = compiled_pattern("YEAR_PATTERN")
COPYRIGHT_PATTERN = compiled_pattern("COPYRIGHT_PATTERN")
THREE_PATTERN = compiled_pattern("THREE_PATTERN")
THREE_LOOSE_PATTERN = compiled_pattern("THREE_LOOSE_PATTERN")
THREE_LOOSE_CATCH = compiled_pattern("THREE_LOOSE_CATCH")
SELECT_YMD_PATTERN = compiled_pattern("SELECT_YMD_PATTERN")
SELECT_YMD_YEAR = compiled_pattern("SELECT_YMD_YEAR")
DATESTRINGS_PATTERN = compiled_pattern("DATESTRINGS_PATTERN")
DATESTRINGS_CATCH = compiled_pattern("DATESTRINGS_CATCH")
SLASHES_PATTERN = compiled_pattern("SLASHES_PATTERN")
SLASHES_YEAR = compiled_pattern("SLASHES_YEAR")
YYYYMM_PATTERN = compiled_pattern("YYYYMM_PATTERN")
YYYYMM_CATCH = compiled_pattern("YYYYMM_CATCH")
MMYYYY_PATTERN = compiled_pattern("MMYYYY_PATTERN")
SIMPLE_PATTERN = compiled_pattern("SIMPLE_PATTERN")
ID_CLASS_CUES = compiled_pattern("ID_CLASS_CUES")
CLASS_CUES = compiled_pattern("CLASS_CUES")
# search_page's page-wide findall of the \D-led patterns runs through their twins (scan.py)
THREE_COMP_PATTERNS = (THREE_PATTERN, scan.THREE_LOOSE)
# lxml.html.tostring drops this tag from what it serialises (include_meta_content_type=False)
_META_CONTENT_TYPE = re.compile(r'<meta http-equiv="Content-Type"[^>]*>')


def serialize(tree: Any) -> str:
    "lxml.html.tostring(tree, encoding='unicode'): HTML method, tail included."
    from trafila.html.serialize import tostring

    core = core_of(tree)
    # the core's C twin of the HTML method (None: text it cannot decode, the reference's then)
    html = core.tostring_html(tree, not tree.getroottree().is_html) if core is not None else None
    if html is None:
        html = tostring(tree, method="html", encoding=str)
    # (the pattern's literal head found by str's search first: most pages have no such tag)
    return _META_CONTENT_TYPE.sub("", html) if '<meta http-equiv="Content-Type"' in html else html


def examine_text(text: str, options: Extractor) -> Optional[str]:
    "A date in an element's text: trimmed, cut to 52 characters, trailing non-digits dropped."
    text = trim_text(text)
    if len(text) <= MIN_SEGMENT_LEN:
        return None
    text = NON_DIGITS_REGEX.sub("", text[:MAX_SEGMENT_LEN])
    return try_date_expr_opts(text, options)


def has_plausible_candidates(candidates: Any) -> bool:
    "Neither none nor more than 1,000."
    return 0 < len(candidates) <= MAX_POSSIBLE_CANDIDATES


def is_date_candidate(elem: Any) -> bool:
    "Of id and class, only the first in source order counts (the former XPath's @id|@class)."
    first = itemprop = None
    for key, value in elem.attrib.items():
        if key == "itemprop":
            itemprop = value
        elif first is None and key in ("id", "class"):
            first = value
    for cue in (first, itemprop):
        if cue is not None:
            folded = cue.replace("D", "d")
            if "date" in folded or "datum" in folded:
                return True
    if first is None:
        return False
    if ID_CLASS_CUES.search(first):
        return True
    cls = elem.get("class")
    if cls is not None and CLASS_CUES.search(cls):
        return True
    idval = elem.get("id")
    return idval is not None and "footer-info-lastmod" in idval


def _date_candidate_pred(elem: Any) -> bool:
    return elem.tag in ALWAYS_TAGS or is_date_candidate(elem)


# the same test as an OR of exact terms: C on the compiled core's trees (xpathlib.select)
_ID_OR_CLASS = first_attrs(("id", "class"))
register_exact(
    _date_candidate_pred, x_true(*sorted(ALWAYS_TAGS)),
    x_contains(_ID_OR_CLASS, "date", "datum", tr=str.maketrans("D", "d")),
    x_contains("itemprop", "date", "datum", tr=str.maketrans("D", "d")),
    x_regex(_ID_OR_CLASS, ID_CLASS_CUES.search), x_regex("class", CLASS_CUES.search),
    x_contains("id", "footer-info-lastmod"),
)
# and a necessary condition the C scans first (D folded to d is within ASCII case folding)
register_prefilter(
    _date_candidate_pred, folded(("id", "class", "itemprop"), "date", "datum"), regex(("id", "class"), ID_CLASS_CUES.search),
    regex("class", CLASS_CUES.search), contains("id", "footer-info-lastmod"), pass_tags=ALWAYS_TAGS,
)
_CANDIDATE_TAGS = frozenset((*FAST_TAGS, *ALWAYS_TAGS))


def date_candidates(tree: Any, extensive_search: bool) -> List[Any]:
    "Elements that may hold a date: every element (extensive) or the fast tags, by their cues."
    return select(tree, None if extensive_search else _CANDIDATE_TAGS, _date_candidate_pred)


def examine_elements(elements: List[Any], options: Extractor) -> Optional[str]:
    "The first date in the elements' text or title attribute."
    if not has_plausible_candidates(elements):
        return None
    for elem in elements:
        for text in (elem.text_content(), elem.get("title", "")):
            attempt = examine_text(text, options)
            if attempt:
                return attempt
    return None


def examine_header(tree: Any, options: Extractor) -> Optional[str]:
    "The date of the <meta> elements (name, property, itemprop, pubdate, http-equiv)."
    headerdate = reserve = None
    tryfunc = partial(try_date_expr_opts, options=options)
    for elem in tree.iterdescendants("meta"):
        attrib = elem.attrib
        if "content" not in attrib and "datetime" not in attrib:
            continue
        content = elem.get("content")
        if "name" in attrib:
            attribute = elem.get("name", "").lower()
            if attribute == "og:url":
                reserve = extract_url_date(content, options) or reserve
            elif attribute in DATE_ATTRIBUTES:
                headerdate = tryfunc(content)
            elif attribute in NAME_MODIFIED:
                if not options.original:
                    headerdate = tryfunc(content)
                else:
                    reserve = tryfunc(content) or reserve
        elif "property" in attrib:
            attribute = elem.get("property", "").lower()
            if attribute in DATE_ATTRIBUTES or attribute in PROPERTY_MODIFIED:
                attempt = tryfunc(content)
                if attempt is not None:
                    if attribute in (DATE_ATTRIBUTES if options.original else PROPERTY_MODIFIED):
                        headerdate = attempt
                    else:
                        reserve = attempt
        elif "itemprop" in attrib:
            attribute = elem.get("itemprop", "").lower()
            if attribute in ITEMPROP_ATTRS:
                attempt = tryfunc(elem.get("datetime") or content)
                if attempt is not None and attribute in (
                    ITEMPROP_ATTRS_ORIGINAL if options.original else ITEMPROP_ATTRS_MODIFIED
                ):
                    headerdate = attempt
            elif attribute == "copyrightyear":
                if content is not None:
                    attempt = "-".join([content, "01", "01"])
                    if is_valid_date(attempt, "%Y-%m-%d", options.min, options.max):
                        reserve = datetime(int(attempt[:4]), 1, 1).strftime(options.format)
        elif "pubdate" in attrib:
            if elem.get("pubdate", "").lower() == "pubdate":
                headerdate = tryfunc(content)
        elif "http-equiv" in attrib:
            attribute = elem.get("http-equiv", "").lower()
            if attribute in ("date", "last-modified"):
                attempt = tryfunc(content)
                # "date" is the original date, "last-modified" the updated one
                if (attribute == "date") == options.original:
                    headerdate = attempt
                else:
                    reserve = attempt or reserve
        if headerdate is not None:
            break
    if headerdate is None and reserve is not None:
        headerdate = reserve
    return headerdate


def select_candidate(occurrences: "Counter[str]", catch: "re.Pattern[str]", yearpat: "re.Pattern[str]",
                     options: Extractor) -> Optional["re.Match[str]"]:
    "Among the ten most frequent matches, the best of the two newest (or oldest, original)."
    if not has_plausible_candidates(occurrences):
        return None
    if len(occurrences) == 1:
        return catch.search(next(iter(occurrences)))
    firstselect = occurrences.most_common(10)
    bestones = sorted(firstselect, reverse=not options.original)[:2]
    patterns, counts = zip(*bestones)
    years = [m[1] for m in (yearpat.search(p) for p in patterns) if m]
    validation = [options.min.year <= int(year) <= options.max.year for year in years]
    if all(validation):
        # the runner-up wins when from another year and more than half as frequent (no tie)
        if counts[0] != counts[1] and years[1] != years[0] and counts[1] / counts[0] > 0.5:
            return catch.search(patterns[1])
        return catch.search(patterns[0])
    if any(validation):
        return catch.search(patterns[validation.index(True)])
    return None


def search_pattern(htmlstring: str, pattern: "re.Pattern[str]", catch: "re.Pattern[str]",
                   yearpat: "re.Pattern[str]", options: Extractor) -> Optional["re.Match[str]"]:
    "Plausible matches of the pattern, then the selected candidate."
    candidates = plausible_year_filter(htmlstring, pattern=pattern, yearpat=yearpat,
                                       earliest=options.min, latest=options.max)
    return select_candidate(candidates, catch, yearpat, options)


def compare_reference(reference: Optional[datetime], expression: str, options: Extractor) -> Optional[datetime]:
    "Fold the expression's date (when it parses within the bounds) into the reference."
    attempt = try_date_expr(expression, REFERENCE_FORMAT, options.extensive, options.min, options.max)
    if attempt is not None:
        return compare_values(reference, attempt, options)
    return reference


def examine_abbr_elements(tree: Any, options: Extractor) -> Optional[str]:
    "Dates of <abbr> elements: data-utime, or published-class titles and texts."
    elements = list(tree.iterdescendants("abbr"))
    if not has_plausible_candidates(elements):
        return None
    reference: Optional[datetime] = None
    for elem in elements:
        if "data-utime" in elem.attrib:
            try:
                candidate = datetime.fromtimestamp(int(elem.get("data-utime", "")), tz=timezone.utc)
            except (OSError, OverflowError, ValueError):
                continue
            reference = update_reference(reference, candidate, options.original)
        elif elem.get("class") in CLASS_ATTRS:
            trytext = elem.get("title")
            if trytext is not None:
                if options.original:
                    attempt = try_date_expr_opts(trytext, options)
                    if attempt is not None:
                        return attempt
                else:
                    reference = compare_reference(reference, trytext, options)
                    if reference is not None:
                        break
            elif elem.text and len(elem.text) > 10:
                reference = compare_reference(reference, elem.text, options)
    return check_extracted_reference(reference, options) or examine_elements(elements, options)


def examine_time_elements(tree: Any, options: Extractor) -> Optional[str]:
    "Dates of <time> elements: datetime attributes (with shortcuts) or texts."
    elements = list(tree.iterdescendants("time"))
    if not has_plausible_candidates(elements):
        return None
    reference: Optional[datetime] = None
    for elem in elements:
        datetime_attr = elem.get("datetime", "")
        if len(datetime_attr) > 6:
            class_attr = elem.get("class", "")
            if options.original:
                shortcut = elem.get("pubdate") == "pubdate" or class_attr.startswith(("entry-date", "entry-time"))
            else:
                shortcut = class_attr == "updated"
            if shortcut:
                attempt = try_date_expr_opts(datetime_attr, options)
                if attempt is not None:
                    return attempt
            else:
                reference = compare_reference(reference, datetime_attr, options)
        elif elem.text is not None and len(elem.text) > 6:
            reference = compare_reference(reference, elem.text, options)
    return check_extracted_reference(reference, options)


def normalize_match(pattern: "re.Pattern[str]", item: str) -> str:
    "D, M, Y zero-padded as Y-M-D, a 2-digit year expanded."
    match = pattern.match(item)
    day, month, year = (g.zfill(2) for g in match.groups() if g)  # type: ignore[union-attr]
    if len(year) == 2:
        year = str(correct_year(int(year)))
    return f"{year}-{month}-{day}"


def normalize_two_comp(item: str) -> str:
    "M-YYYY as YYYY-MM-01."
    match = TWO_COMP_REGEX.match(item)
    return "-".join([match[2], match[1].zfill(2), "01"])  # type: ignore[index]


def _filter_ymd(bestmatch: Optional["re.Match[str]"], copyear: int, options: Extractor) -> Optional[str]:
    return filter_ymd_candidate(bestmatch.groups() if bestmatch else None, copyear, options.format,
                                options.min, options.max)


def search_normalized(htmlstring: str, pattern: "re.Pattern[str]", yearpat: "re.Pattern[str]",
                      normalizer: Callable[[str], str], copyear: int, options: Extractor) -> Optional[str]:
    "Plausible matches normalised to Y-M-D, then selected and validated."
    candidates = plausible_year_filter(htmlstring, pattern=pattern, yearpat=yearpat,
                                       earliest=options.min, latest=options.max)
    normalized: "Counter[str]" = Counter()
    for item, count in candidates.items():
        normalized[normalizer(item)] += count
    return _filter_ymd(select_candidate(normalized, YMD_PATTERN, YEAR_PATTERN, options), copyear, options)


def _search_and_filter(htmlstring: str, pattern: "re.Pattern[str]", catch: "re.Pattern[str]", copyear: int,
                       options: Extractor) -> Optional[str]:
    return _filter_ymd(search_pattern(htmlstring, pattern, catch, YEAR_PATTERN, options), copyear, options)


def _finalize_candidate(dateobject: Optional[datetime], copyear: int, options: Extractor) -> Optional[str]:
    if dateobject is not None and (copyear == 0 or dateobject.year >= copyear):
        return validate_and_convert(dateobject, options.format, options.min, options.max)
    return None


def search_page(htmlstring: str, options: Extractor) -> Optional[str]:
    "Text patterns over the serialised page, most precise first; a copyright year as floor and fallback."
    copyear = 0
    bestmatch = search_pattern(htmlstring, COPYRIGHT_PATTERN, YEAR_PATTERN, YEAR_PATTERN, options)
    if bestmatch is not None:
        year = int(bestmatch[1])
        if is_valid_date(datetime(year, 1, 1), "%Y", options.min, options.max):
            copyear = year
    for pattern in THREE_COMP_PATTERNS:
        result = _search_and_filter(htmlstring, pattern, THREE_LOOSE_CATCH, copyear, options)
        if result is not None:
            return result
    result = search_normalized(htmlstring, scan.SELECT_YMD, SELECT_YMD_YEAR,
                               partial(normalize_match, THREE_COMP_REGEX_A), copyear, options)
    if result is not None:
        return result
    result = _search_and_filter(htmlstring, scan.DATESTRINGS, DATESTRINGS_CATCH, copyear, options)
    if result is not None:
        return result
    result = search_normalized(htmlstring, scan.SLASHES, SLASHES_YEAR,
                               partial(normalize_match, THREE_COMP_REGEX_B), copyear, options)
    if result is not None:
        return result
    bestmatch = search_pattern(htmlstring, scan.YYYYMM, YYYYMM_CATCH, YEAR_PATTERN, options)
    if bestmatch is not None:
        result = _finalize_candidate(datetime(int(bestmatch[1]), int(bestmatch[2]), 1), copyear, options)
        if result is not None:
            return result
    result = search_normalized(htmlstring, scan.MMYYYY, SELECT_YMD_YEAR, normalize_two_comp, copyear, options)
    if result is not None:
        return result
    result = _finalize_candidate(regex_parse(htmlstring), copyear, options)
    if result is not None:
        return result
    if copyear != 0:
        return datetime(copyear, 1, 1).strftime(options.format)
    bestmatch = search_pattern(htmlstring, scan.SIMPLE, YEAR_PATTERN, YEAR_PATTERN, options)
    if bestmatch is not None:
        return _finalize_candidate(datetime(int(bestmatch[1]), 1, 1), copyear, options)
    return None


def find_date(
    htmlobject: Union[bytes, str, Any],
    extensive_search: bool = True,
    original_date: bool = False,
    outputformat: str = "%Y-%m-%d",
    url: Optional[str] = None,
    verbose: bool = False,
    min_date: Union[datetime, str, None] = None,
    max_date: Union[datetime, str, None] = None,
    deferred_url_extractor: bool = False,
) -> Optional[str]:
    """The date of a page, as htmldate 1.11.0's ``find_date`` finds it.

    ``htmlobject`` is a trafila tree (reference or compiled core) or an HTML
    ``str``/``bytes``; the other parameters are htmldate's. Raises
    ``trafila._engine.NotNative`` where the page needs a parser that is not
    ported (dateutil, dateparser, encoding detection, downloads).
    """
    if verbose:
        logging.basicConfig(level=logging.DEBUG)
    tree = load_html(htmlobject)
    if tree is None:
        return None
    if outputformat != "%Y-%m-%d" and not is_valid_format(outputformat):
        return None
    options = Extractor(extensive_search, get_max_date(max_date), get_min_date(min_date), original_date,
                        outputformat)
    if url is None:
        urlelem = first_descendant(tree, "link", lambda e: e.get("rel") == "canonical")
        if urlelem is not None:
            url = urlelem.get("href")
    url_result = extract_url_date(url, options)
    if url_result is not None and not deferred_url_extractor:
        return url_result
    result = examine_header(tree, options) or json_search(tree, options)
    if result is not None:
        return result
    if deferred_url_extractor and url_result is not None:
        return url_result
    abbr_result = examine_abbr_elements(tree, options)
    if abbr_result is not None:
        return abbr_result
    # a caller's tree is copied before pruning; a tree parsed here is ours to clean
    pruning_tree = copy.deepcopy(tree) if is_trafila_element(htmlobject) else tree
    try:
        search_tree = discard_unwanted(clean_html(pruning_tree, CLEANING_LIST))
    except ValueError:
        # text lxml refuses to write: the search goes on in the tree as far as it was cleaned
        search_tree = pruning_tree
    result = (
        examine_elements(date_candidates(search_tree, extensive_search), options)
        or examine_elements(list(search_tree.iterdescendants("title", "h1")), options)
        or examine_time_elements(search_tree, options)
    )
    if result is not None:
        return result
    htmlstring = serialize(search_tree)
    result = (
        pattern_search(htmlstring, TIMESTAMP_PATTERN, options)
        or img_search(search_tree, options)
        or idiosyncrasies_search(htmlstring, options)
    )
    if result is not None:
        return result
    if not extensive_search:
        # unguarded upstream: lxml's ValueError on text it refuses leaves find_date
        clean_html(search_tree, ["script", "style"])
        text = " ".join(search_tree.itertext())
        return pattern_search(text, TIMESTAMP_LOOSE_PATTERN, options)
    reference: Optional[datetime] = None
    for segment in free_text_segments(search_tree):
        segment = segment.strip()
        if not MIN_SEGMENT_LEN < len(segment) < MAX_SEGMENT_LEN:
            continue
        reference = compare_reference(reference, segment, options)
    return check_extracted_reference(reference, options) or search_page(htmlstring, options)
