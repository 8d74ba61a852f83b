"""trafila.htmldate against htmldate 1.11.0, live, on hand-made and generated pages.

Every page is parsed by the engine under test (as trafilatura's load_html parses it)
and by trafilatura's load_html (lxml); find_date must answer what htmldate.find_date
answers on the lxml tree, for original_date and extensive_search both ways, or raise
NotNative with a reason of the known kinds.
"""

from __future__ import annotations

import sys

import copy
import inspect
from datetime import datetime

import pytest

htmldate = pytest.importorskip("htmldate")
trafilatura = pytest.importorskip("trafilatura")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from trafila import _backend  # noqa: E402
from trafila._engine import NotNative  # noqa: E402
from trafila.htmldate import find_date, set_clock  # noqa: E402
from trafila.htmldate import extractors  # noqa: E402

MODE = trafilatura.__version__ if trafilatura.__version__ in ("2.3.1", "1.11.0") else "2.3.1"
MAX = "2024-06-30"
COMBOS = [(o, e) for o in (True, False) for e in (True, False)]
REASONS = ("date: dateparser", "date: dateutil")


@pytest.fixture(scope="module")
def load(engine):
    from harness.dates import _trafila_loader

    loader = _trafila_loader(MODE, engine.name)
    backend = _backend.reference() if engine.name == "reference" else _backend.core_backend(
        __import__("trafila._core", fromlist=["_core"]))
    return loader, backend


def _theirs(page: str, **kw):
    from trafilatura.utils import load_html

    return htmldate.find_date(load_html(page), **kw)


def _ours(load, page: str, **kw):
    loader, backend = load
    tree = loader(page)
    return _backend.run_with(backend, find_date, tree, **kw)


def _compare(load, page: str, **kw):
    "ours == theirs, or NotNative for a known reason; returns ours ('NotNative' then)."
    try:
        theirs = _theirs(page, **kw)
    except ValueError:  # lxml refusing text it is asked to write: find_date raises it
        theirs = "ValueError"
    try:
        ours = _ours(load, page, **kw)
    except NotNative as err:
        assert err.reason in REASONS, err.reason
        return "NotNative"
    except ValueError:
        ours = "ValueError"
    assert ours == theirs, (page, kw)
    return ours


def test_signature_is_htmldates():
    ours = inspect.signature(find_date).parameters
    theirs = inspect.signature(htmldate.find_date).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.values()]


def page(head: str = "", body: str = "") -> str:
    return f"<!DOCTYPE html><html><head><title>t</title>{head}</head><body>{body}</body></html>"


PAGES = {
    "meta name": page('<meta name="date" content="2021-03-04">'),
    "meta property original/modified": page(
        '<meta property="article:published_time" content="2020-01-02T10:00:00+01:00">'
        '<meta property="article:modified_time" content="2022-05-06T10:00:00Z">'),
    "meta modified name": page('<meta name="lastmod" content="2019-11-12">'),
    "meta itemprop": page('<meta itemprop="datePublished" content="2018-07-08">'
                          '<meta itemprop="dateModified" datetime="2019-08-09">'),
    "copyright year": page('<meta itemprop="copyrightYear" content="2017">'),
    "http-equiv": page('<meta http-equiv="date" content="2016-02-03">'
                       '<meta http-equiv="last-modified" content="2017-03-04">'),
    "pubdate": page('<meta pubdate="pubdate" content="2015-04-05">'),
    "og:url": page('<meta name="og:url" content="https://e.com/2014/05/06/post">'),
    "canonical": page('<link rel="canonical" href="https://e.com/news/2013-06-07/x">'),
    "json-ld": page('<script type="application/ld+json">{"datePublished": "2012-08-09T10:11:12+02:00", '
                    '"dateModified": "2023-01-02"}</script>'),
    "time elements": page(body='<p><time datetime="2011-09-10">x</time><time class="updated" '
                               'datetime="2020-10-11T08:00:00">y</time><time pubdate="pubdate" '
                               'datetime="2010-01-01">z</time><time>2009-02-03 12:00</time></p>'),
    "abbr": page(body='<abbr class="published" title="2018-03-04">4 March</abbr>'
                      '<abbr data-utime="1500000000">x</abbr><abbr class="date-published">May 5, 2019 10:00</abbr>'),
    "url in text": page(body='<div class="post-date">Posted 2020/03/04</div>'),
    "text pattern en": page(body="<p>Some article</p><p>Published on 12.03.2019 by me</p>"),
    "text pattern de": page(body="<div><p>Text</p><p>Datum: 1.2.2020</p></div>"),
    "month names": page(body="<div><span>Wrote it on 3rd March 2021, then more</span></div>"),
    "free text": page(body="<ul><li>Updated 2022-04-05 and then</li><li>x 2021-01-01 y</li></ul>"),
    "copyright footer": page(body="<p>text</p><footer>© 2008-2019 Someone Inc.</footer>"),
    "copyright only": page(body="<p>plain text</p><p>Copyright 2016 X</p>"),
    "timestamp": page(body='<p data-x="2020-05-06T07:08:09Z">nothing here</p>'),
    "og:image": page('<meta property="og:image" content="https://e.com/img/2017/08/09/a.jpg">'),
    "dmy text": page(body="<p>Some text 05/06/2019 and more 05/06/2019 and 07/08/2018</p>"),
    "ymd compact": page(body="<p>file-20180304-x and file-20180304-y</p>"),
    "two components": page(body="<p>issue 2018/03 and again 2018/03, also 04/2017</p>"),
    "year only": page(body="<p>It was in 2012, and again in 2012 then 2013.</p>"),
    "out of bounds": page('<meta name="date" content="2099-01-01">', "<p>1990-01-01</p>"),
    "discarded banner": page(body='<div id="wm-ipp">2019-01-01T00:00:00</div>tail 2018-02-02T00:00:00 <p>x</p>'),
    "cleaned elements": page(body="<svg><video>2014-01-01T00:00:00</video></svg>"
                                  "<iframe>2015-01-01T00:00:00</iframe><p>y</p>"),
    "title h1": page(body="<h1>News of 2020-02-02</h1>"),
    # a control character the parser keeps: lxml refuses the joined tail when an element is dropped
    "control character": page(body="<div><p>x</p><svg></svg>\x01 2019-01-01T00:00:00 <script>1</script>\x02 y</div>"),
    "control character, no date": page(body="<div><p>x</p><iframe></iframe>\x01 y <script>1</script>\x02 z</div>"),
    "idiosyncrasies tr": page(body="<p>Güncelleme tarihi: 12.11.2020</p>"),
}


@pytest.mark.parametrize("name", sorted(PAGES))
@pytest.mark.parametrize("original,extensive", COMBOS)
def test_pages(load, name, original, extensive):
    kw = dict(original_date=original, extensive_search=extensive, max_date=MAX)
    _compare(load, PAGES[name], **kw)
    _compare(load, PAGES[name], **kw, outputformat="%d %B %Y %H:%M")


@pytest.mark.parametrize("name", ["meta name", "time elements", "free text", "copyright footer"])
def test_bounds_and_url(load, name):
    for kw in (dict(min_date="2016-01-01", max_date="2021-12-31"), dict(min_date=datetime(2020, 1, 1)),
               dict(url="https://e.com/2019/01/02/a", max_date=MAX),
               dict(url="https://e.com/2019/01/02/a", deferred_url_extractor=True, max_date=MAX),
               dict(outputformat="no directive", max_date=MAX)):
        _compare(load, PAGES[name], **kw)


def test_tree_untouched(load):
    loader, backend = load
    from trafila.html.serialize import tostring

    for text in PAGES.values():
        tree = loader(text)
        before = tostring(tree, method="xml", encoding=str)
        for original, extensive in COMBOS:
            try:
                _backend.run_with(backend, find_date, tree, original_date=original, extensive_search=extensive)
            except (NotNative, ValueError):  # ValueError: as htmldate, on text lxml refuses
                pass
        assert tostring(tree, method="xml", encoding=str) == before


def test_string_input_parses_like_htmldate():
    for text in PAGES.values():
        for original in (True, False):
            theirs = htmldate.find_date(text, original_date=original, max_date=MAX)
            try:
                ours = find_date(text, original_date=original, max_date=MAX)
            except NotNative as err:
                # before 3.11 datetime.fromisoformat refuses "...Z", so htmldate asks dateutil for
                # it: the port hands that page over (the caller then gets htmldate's answer)
                assert sys.version_info < (3, 11) and "dateutil" in str(err), err
                continue
            assert ours == theirs
    with pytest.raises(NotNative):
        find_date(page(body="<!-- 2019-01-01 --><p>x</p>"))
    assert find_date("no html here") is None and htmldate.find_date("no html here") is None


def test_clock_is_injectable(load):
    text = page('<meta name="date" content="2024-07-01">')
    try:
        set_clock(lambda: datetime(2024, 6, 30, 12))
        # (fast search: past max_date, an extensive search would ask dateparser)
        assert _ours(load, text, extensive_search=False) is None
        set_clock(lambda: datetime(2024, 7, 1, 0, 5))
        assert _ours(load, text, extensive_search=False) == "2024-07-01"
    finally:
        set_clock(None)


@pytest.fixture
def no_installed_parsers(monkeypatch):
    "The hand-over as it is without htmldate 1.11.0 installed (try_date_expr's cache emptied around it)."
    extractors.try_date_expr.cache_clear()
    monkeypatch.setattr(extractors, "_installed", {"dateutil": None, "dateparser": None})
    yield
    extractors.try_date_expr.cache_clear()


# a date only dateparser reads (htmldate's fast parsers know no Russian month)
DATEPARSER_PAGE = page(body="<div><p>24 июля 2018 г.</p></div>")


def test_external_parsers_without_htmldate_are_not_native(load, no_installed_parsers):
    with pytest.raises(NotNative, match="dateparser"):
        _ours(load, DATEPARSER_PAGE, extensive_search=True, max_date=MAX)
    # fast mode never calls dateparser
    assert _ours(load, DATEPARSER_PAGE, extensive_search=False, max_date=MAX) == _theirs(
        DATEPARSER_PAGE, extensive_search=False, max_date=MAX)
    with pytest.raises(NotNative, match="dateutil"):
        extractors.dateutil_parse("2017-03-21 11:35:57 EDT")


def test_hand_over_needs_htmldate_1_11_0(monkeypatch):
    "Another htmldate release installed: no parser is resolved (the twins raise NotNative)."
    monkeypatch.setattr(htmldate, "__version__", "1.9.0")
    assert extractors._resolve_installed("dateutil") is None
    assert extractors._resolve_installed("dateparser") is None
    monkeypatch.setattr(htmldate, "__version__", "1.11.0")
    assert extractors._resolve_installed("dateparser") is __import__("htmldate.extractors", fromlist=["x"])._external_date
    assert extractors._resolve_installed("dateutil")("2017-03-21 11:35:57") == datetime(2017, 3, 21, 11, 35, 57)


def _handed(before, parser):
    return extractors.handover_counts().get(parser, 0) - before.get(parser, 0)


def test_dateparser_strings_are_handed_over_one_by_one(load):
    "The page's one dateparser string goes to htmldate's parser; the answer is htmldate's, counted once."
    extractors.try_date_expr.cache_clear()
    before = extractors.handover_counts()
    ours = _ours(load, DATEPARSER_PAGE, extensive_search=True, max_date=MAX)
    assert ours == _theirs(DATEPARSER_PAGE, extensive_search=True, max_date=MAX) == "2018-07-24"
    assert _handed(before, "dateparser") == 1
    # try_date_expr's cache holds the answer: the same string again is not handed over again
    assert _ours(load, DATEPARSER_PAGE, extensive_search=True, max_date=MAX) == ours
    assert _handed(before, "dateparser") == 1
    for text in ("le 3 mars 2019 à 10h", "24 July 2018 09:04", "Tuesday, 24. Juli, 2018"):
        their_parse = __import__("htmldate.extractors", fromlist=["x"])._external_date
        assert extractors.external_date(text) == their_parse(text), text
    assert _handed(before, "dateparser") == 4


@settings(max_examples=200, deadline=None)
@given(st.integers(1000, 2999), st.lists(st.sampled_from(
    ["EDT", "CET", " ", "T", "/", "-", ".", ":", "+", "Z", "12", "3", "59", "99", " pm", " at ", ",", "May",
     "Mär", "x", "1e5", "\u00a0", "2018"]), max_size=6))
def test_dateutil_hand_over_is_dateutils(year, tokens):
    "A string the twin cannot decide is dateutil's parse as htmldate calls it (None where htmldate catches)."
    from dateutil.parser import parse
    import warnings

    text = str(year) + "".join(tokens)
    try:
        native = extractors.dateutil_native(text)
    except NotNative:
        native = NotNative
    before = extractors.handover_counts()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = extractors.dateutil_parse(text)
        try:
            theirs = parse(text, fuzzy=False)
        except (OverflowError, TypeError, ValueError):
            theirs = None
    assert ours == theirs, text
    assert _handed(before, "dateutil") == (native is NotNative)
    assert native is NotNative or native == theirs


def test_dateutil_hand_over_on_a_page(load, monkeypatch):
    """A meta date only dateutil reads: htmldate's answer, and as many dateutil strings as
    htmldate parses with it (its try_date_expr caches per extensive_search, as ours)."""
    text = page('<meta name="date" content="2017-03-21 11:35:57 EDT">')
    their_extractors = __import__("htmldate.extractors", fromlist=["x"])
    assert extractors.installed_parser("dateutil") is not None  # resolved before htmldate's is wrapped
    their_calls = []
    their_parse = their_extractors.dateutil_parse

    def counted(string, **kw):
        their_calls.append(string)
        return their_parse(string, **kw)

    monkeypatch.setattr(their_extractors, "dateutil_parse", counted)
    their_extractors.try_date_expr.cache_clear()
    extractors.try_date_expr.cache_clear()
    before = extractors.handover_counts()
    for original, extensive in COMBOS:
        assert _compare(load, text, original_date=original, extensive_search=extensive, max_date=MAX) == "2017-03-21"
    assert _handed(before, "dateutil") == len(their_calls) == 2


@settings(max_examples=300, deadline=None)
@given(st.integers(1990, 2030), st.integers(0, 13), st.integers(0, 32), st.sampled_from("/.-"),
       st.one_of(st.none(), st.tuples(st.integers(0, 24), st.integers(0, 60), st.one_of(st.none(), st.integers(0, 60)))))
def test_dateutil_subset(year, month, day, sep, time):
    from dateutil.parser import parse

    text = f"{year}{sep}{month:0{1 + (month % 2)}d}{sep}{day}"
    if time:
        text += f" {time[0]}:{time[1]:02d}" + ("" if time[2] is None else f":{time[2]:02d}")
    try:
        ours = extractors.dateutil_native(text)
    except NotNative:
        return
    assert ours == parse(text, fuzzy=False)


YEARS = st.integers(1985, 2032)
MONTH_NAMES = ["January", "Feb", "März", "avril", "May", "juin", "July", "Aug.", "Sept", "octobre", "Nov", "Dez"]


@st.composite
def date_strings(draw):
    y, m, d = draw(YEARS), draw(st.integers(1, 13)), draw(st.integers(1, 31))
    h, mi, s = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
    shapes = [
        f"{y}-{m:02d}-{d:02d}", f"{y}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}Z",
        f"{y}-{m:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}+02:00", f"{y}/{m}/{d}", f"{y}.{m:02d}.{d:02d} {h}:{mi:02d}",
        f"{d:02d}.{m:02d}.{y}", f"{d}/{m}/{y % 100:02d}", f"{m}/{y}", f"{y}{m:02d}{d:02d}",
        f"{MONTH_NAMES[(m - 1) % 12]} {d}, {y}", f"{d}. {MONTH_NAMES[(m - 1) % 12]} {y}", f"{d}th of March {y}",
        f"{y}", f"© {y}", f"Updated: {d:02d}/{m:02d}/{y}", str(draw(st.integers(0, 2 ** 33))),
        draw(st.text(alphabet="0123456789-/.: TZ+abc", max_size=24)),
    ]
    return draw(st.sampled_from(shapes))


HEAD_KEYS = [("name", "date"), ("name", "dc.date"), ("name", "lastmod"), ("name", "og:url"), ("property",
             "article:published_time"), ("property", "og:updated_time"), ("itemprop", "datePublished"),
             ("itemprop", "dateModified"), ("itemprop", "copyrightYear"), ("http-equiv", "date"),
             ("http-equiv", "Last-Modified"), ("pubdate", "pubdate"), ("name", "description")]


@st.composite
def pages(draw):
    head = []
    for _ in range(draw(st.integers(0, 4))):
        attr, value = draw(st.sampled_from(HEAD_KEYS))
        content = draw(date_strings()).replace('"', "")
        if attr == "name" and value == "og:url":
            content = f"https://e.com/{content}/x"
        head.append(f'<meta {attr}="{value}" content="{content}">')
    body = []
    for _ in range(draw(st.integers(0, 5))):
        tag = draw(st.sampled_from(["p", "div", "span", "time", "abbr", "footer", "small", "li", "h1", "td"]))
        cls = draw(st.sampled_from(["", ' class="date"', ' class="published"', ' class="updated"',
                                    ' class="byline"', ' id="meta"']))
        extra = ""
        if tag == "time" and draw(st.booleans()):
            extra = f' datetime="{draw(date_strings())}"'
        if tag == "abbr" and draw(st.booleans()):
            extra = f' title="{draw(date_strings())}"'
        words = draw(st.sampled_from(["", "Posted ", "Datum: ", "on ", "Last updated "]))
        body.append(f"<{tag}{cls}{extra}>{words}{draw(date_strings())} text</{tag}>")
    return page("".join(head), "<ul>" + "".join(body) + "</ul>")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(pages(), st.booleans(), st.booleans())
def test_generated_pages(load, text, original, extensive):
    _compare(load, text, original_date=original, extensive_search=extensive, max_date=MAX)


_TOKENS = st.one_of(
    st.text(alphabet=st.characters(categories=("Lu", "Ll", "Lo")), min_size=1, max_size=8),
    st.sampled_from(["May", "at", "on", "EDT", "Sept", "pm", "h", "of", "UTC", "年", "Last", "Page", "T", "Z"]),
    st.integers(0, 3000).map(str),
    st.sampled_from([" ", "/", "-", ".", ",", ":", " | ", "(", ")", "@", "+"]),
)


@settings(max_examples=500, deadline=None)
@given(st.integers(1000, 2999), st.lists(_TOKENS, max_size=8))
def test_dateutil_rejections(year, tokens):
    "Where the port says dateutil raises (or parses), dateutil does so."
    from dateutil.parser import parse
    import warnings

    text = str(year) + "".join(tokens)
    try:
        ours = extractors.dateutil_native(text)
    except NotNative:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            theirs = parse(text, fuzzy=False)
        except (OverflowError, TypeError, ValueError):
            theirs = None
    assert ours == theirs, text


@pytest.mark.parametrize("fragment", [
    "<div>Posted 2019-03-04 here<p>and 2018-01-02 there</p>tail 2017-05-06 end</div>",
    "<p>text of 2015-06-07 at noon <span>span 2016-07-08 text</span> tail of 2014-08-09 x</p>",
    "<ul><li>Updated 2022-04-05 and then</li>between 2020-02-02 items<li>x 2021-01-01 y</li></ul>",
])
@pytest.mark.parametrize("original,extensive", COMBOS)
def test_fragment_roots(engine, load, fragment, original, extensive):
    "A fragment's root is the context: its own text nodes are not the free text XPath's."
    from lxml import html as lxml_html

    # trafilatura's load_html refuses fragments: both trees parsed with its parser's options
    parser = lxml_html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                                  remove_comments=True, remove_pis=True)
    kw = dict(original_date=original, extensive_search=extensive, max_date=MAX)
    theirs = htmldate.find_date(lxml_html.fromstring(fragment, parser=parser), **kw)
    ours = _backend.run_with(load[1], find_date, engine.parser.fromstring(fragment), **kw)
    assert ours == theirs


def test_free_text_segments_match_xpath(engine):
    from lxml import etree, html as lxml_html
    from trafila.htmldate.extractors import FAST_TAGS, free_text_segments

    xpath = etree.XPath(".//*[" + " or ".join(f"self::{t}" for t in FAST_TAGS) + "]/text()")
    for text in [*PAGES.values(), "<div>a<p>b<i>c</i>d</p>e<span>f</span>g</div>"]:
        theirs = [str(t) for t in xpath(lxml_html.fromstring(text))]
        assert free_text_segments(engine.parser.fromstring(text)) == theirs, text


# -- the faster twins (htmldate/scan.py, cython_core/htmldate.pxi, the exact date_candidates terms) --

from trafila.htmldate import scan  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

TWINS = {name: getattr(scan, name) for name in ("THREE_LOOSE", "SELECT_YMD", "DATESTRINGS", "SLASHES", "YYYYMM",
                                                  "MMYYYY", "SIMPLE")}
# characters the patterns turn on: digits, separators, letters of month names and of w3.org,
# a non-ASCII decimal digit (\D is Unicode), newlines (the lookbehind's '.'), underscores
_SCAN_ALPHABET = "0123456789/.-_ ,\n©()ocrstndhMarchJuneMay Sept w3.org \u0663\u00b2é"
_SCAN_TEXT = st.lists(st.one_of(st.text(alphabet=_SCAN_ALPHABET, max_size=12), date_strings(),
                                st.sampled_from(["w3.org", "w3\norg", "(c)", "Copyright ", " of ", "19", "20"])),
                      max_size=12).map("".join)


def _long_text(string: str, pos: int) -> object:
    match = scan.LONG_TEXT_PATTERN.search(string, pos)
    return match and (match.span(), match.groups())


def _long_text_twin(string: str, pos: int) -> object:
    match = scan.long_text_search(string, pos, short=0)
    return match and (match.span(), match.groups())


@settings(max_examples=2000, deadline=None)
@given(_SCAN_TEXT, st.integers(0, 5))
def test_scan_twins_are_the_patterns(text, pos):
    for name, twin in TWINS.items():
        assert twin.findall_shifted(text) == twin.original.findall(text), name
        assert twin.findall(text) == twin.original.findall(text), name
    assert _long_text_twin(text, pos) == _long_text(text, pos)


@pytest.mark.parametrize("text", [
    "", "x", "12/05/2019", "a2019-01-02b2019-01-03c", "w3.org 2019 x w3-org 2020 y", "w3.org\n2019 x",
    "7.8.21x12.11.19y", "x20190102y20200304z", "12th of March 2019, and March 4, 2020", "\u0663" + "2019-01-01x",
    "a" * 3000 + " March 5, 2019", "Juni 2019 " * 300 + "5. Juni 2019",
])
def test_scan_twin_edges(text):
    for name, twin in TWINS.items():
        assert twin.findall_shifted(text) == twin.original.findall(text), name
    for pos in (0, 1, 7):
        assert _long_text_twin(text, pos) == _long_text(text, pos)


# -- the core's C scanners (cython_core/htmldate_scan.pxi) against the patterns --

# non-ASCII decimal digits (\d but not [0-9]), other digits (superscript, not \d), ASCII
# digits, every separator the patterns read, the letters of w3.org and a newline
_C_SCAN_ALPHABET = "0123456789/.-_ \n\u0663\u0967\uff11\U0001d7ce\u00b2wo3rg\u00e9\u4e00:T"
_C_SCAN_TEXT = st.lists(st.one_of(st.text(alphabet=_C_SCAN_ALPHABET, max_size=14), date_strings(),
                                  st.sampled_from(["w3.org", "w3\norg", "w3Xorg", "1999", "2030", "20391231",
                                                   "19990101", "12/31/99", "31.12.99", "1/2/1999", "12-2019"])),
                        max_size=14).map("".join)


def _c_scanner(name):
    module = _core()
    function = getattr(module, name, None)
    if function is None:
        pytest.skip(f"this core has no {name}")
    return function


def _check_c_scans(text: str) -> None:
    findall, cores = _c_scanner("htmldate_findall"), _c_scanner("htmldate_date_cores")
    for name, twin in TWINS.items():
        assert findall(text, twin.which) == twin.original.findall(text), name
    expected = [m.span() for m in extractors.DATE_CORE_PATTERN.finditer(text)]
    assert cores(text, 10 ** 6) == expected
    assert cores(text, 2) == expected[:2]


@settings(max_examples=3000, deadline=None)
@given(_C_SCAN_TEXT)
def test_c_scans_are_the_patterns(text):
    _check_c_scans(text)


@pytest.mark.parametrize("text", [
    "", "1", "x1", "x2019-01-02", "x2019-01-02y", "\u06632019-01-02y", "x2019-01-02\u0663", "x1/2/1999y",
    "x01/02/1999y", "x3/12/99y31.12.99z", "x12.12.2019y", "aw3.org2019b", "w3\norg2019b", "w3.org 2019 x",
    "x20191231y20200101z", "x2019-12y2019-13z2019-00w", "x1-2019y01-2019z", "12345.6.7890", "1.2.3", "1.2.34567",
    "99999/1/12/3/45", "\U0001d7ce2019-01-01x", "2019-01-01" * 3, "x" + "1/1/1999-" * 50,
])
def test_c_scan_edges(text):
    _check_c_scans(text)


def test_c_scans_refuse_an_unknown_pattern():
    with pytest.raises(ValueError):
        _c_scanner("htmldate_findall")("x", 7)


def _core():
    try:
        import trafila._core as module
    except ImportError:
        pytest.skip("the compiled core is not built")
    if not hasattr(module, "tostring_html"):
        pytest.skip("this core has no htmldate passes")
    return module


def _reference_free_text(tree):
    out = []
    stack = [(child, False, False) for child in reversed(list(tree))]
    while stack:
        elem, done, parent_selected = stack.pop()
        if done:
            if parent_selected and elem.tail:
                out.append(elem.tail)
            continue
        selected = elem.tag in extractors.FAST_TAG_SET
        if selected and elem.text:
            out.append(elem.text)
        stack.append((elem, True, parent_selected))
        stack.extend((child, False, selected) for child in reversed(list(elem)))
    return out


def _check_core_passes(module, tree) -> None:
    "The C serialisation, free-text walk and date candidates against the reference's, on every subtree."
    from trafila.html.serialize import tostring
    from trafila import xpathlib
    from trafila.htmldate.core import _date_candidate_pred
    from trafila.v2_3_1._tree import desc_list

    matcher = xpathlib.compiled_matcher(module, _date_candidate_pred)
    prefilter = xpathlib.compiled_prefilter(module, _date_candidate_pred)
    for el in [tree, *desc_list(tree)]:
        assert module.tostring_html(el, not el.getroottree().is_html) == tostring(el, method="html", encoding=str)
        assert module.free_text_segments(el, extractors.FAST_TAGS) == _reference_free_text(el)
        verdict = module.matcher_verdict(el, matcher)
        assert verdict in (-1, int(_date_candidate_pred(el))), (el.tag, dict(el.attrib.items()))
        if _date_candidate_pred(el):
            assert module.prefilter_passes(el, prefilter), (el.tag, dict(el.attrib.items()))
    assert [e.node_index for e in xpathlib.select(tree, None, _date_candidate_pred)] == [
        e.node_index for e in desc_list(tree) if _date_candidate_pred(e)]


_ATTRS = st.sampled_from([' href=" a b\u00e9&amp;x"', " checked", " CHECKED=x", ' src="\r\n/x?a=\'1\'"', ' name="n\u00e9"',
                          ' action="q&quot;\'"', ' title="a&lt;b"', " hidden", ' class="date" id="x"',
                          ' id="footer-info-lastmod"', ' itemprop="DateX"', ' class="byline"'])
_TAGS = st.sampled_from(["div", "p", "li", "br", "img", "script", "style", "a", "span", "time", "footer", "small",
                         "INPUT", "Li", "h2", "ul", "x-y"])


@st.composite
def _markup(draw, depth=0):
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        if depth < 3 and draw(st.booleans()):
            tag = draw(_TAGS)
            attrs = "".join(draw(st.lists(_ATTRS, max_size=2)))
            parts.append(f"<{tag}{attrs}>{draw(_markup(depth + 1))}</{tag}>")
        else:
            parts.append(draw(st.text(alphabet="ab <>&\r\n\t\"'\u00e9\u2028x2019-01-05", max_size=10)))
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(_markup())
def test_core_passes_on_generated_pages(markup):
    module = _core()
    _check_core_passes(module, module.dom.document_fromstring(f"<html><body>{markup}</body></html>"))
    from trafila.html import ParserError

    try:
        fragment = module.dom.fromstring(markup)
    except ParserError:  # nothing but blanks: lxml's "Document is empty" too
        return
    _check_core_passes(module, fragment)


def test_core_passes_on_an_xml_document():
    "A tree made with Element() is an XML document: the HTML method also escapes CR there."
    module = _core()
    root = module.dom.Element("div")
    child = module.dom.SubElement(root, "p")
    child.text = "a\rb<c>&"
    child.tail = "t\r"
    child.set("href", " \rx y")
    assert not root.getroottree().is_html
    _check_core_passes(module, root)


@needs_corpora
def test_core_passes_on_corpus_pages():
    module = _core()
    from trafila.html.serialize import tostring
    from trafila.htmldate.core import serialize

    pages = 0
    for _name, page in sample_pages(["goose3", "cleanportaleval", "commoncrawl", "trafilatura", "htmldate"], 20):
        if page.html is None:
            continue
        tree = module.dom.document_fromstring(page.html)
        pages += 1
        root = tree.getroottree().getroot() if hasattr(tree, "getroottree") else tree
        html = serialize(copy.deepcopy(root))
        assert html == serialize.__globals__["_META_CONTENT_TYPE"].sub("", tostring(root, method="html", encoding=str))
        assert module.free_text_segments(root, extractors.FAST_TAGS) == _reference_free_text(root)
        for name, twin in TWINS.items():
            assert twin.findall_shifted(html) == twin.original.findall(html), (page.id, name)
        if hasattr(module, "htmldate_findall"):
            _check_c_scans(html)
        for pos in (0, 100):
            assert _long_text_twin(html, pos) == _long_text(html, pos), page.id
    assert pages > 20


@settings(max_examples=1500, deadline=None)
@given(_C_SCAN_TEXT, st.integers(0, 6))
def test_c_year_dash_search_is_the_timestamp_patterns(text, pos):
    "The C scan of the TIMESTAMP patterns' leading YEAR- with their match: their search."
    year_dash = _c_scanner("htmldate_year_dash")
    for pattern in (extractors.TIMESTAMP_PATTERN, extractors.TIMESTAMP_LOOSE_PATTERN):
        with _backend.use(_backend.core_backend(_core())):
            ours = extractors._timestamp_search(text, pattern)
        theirs = pattern.search(text)
        assert (ours and (ours.span(), ours.groups())) == (theirs and (theirs.span(), theirs.groups()))
    first = extractors.re.compile(r"(?:199[0-9]|20[0-3][0-9])-").search(text, pos)
    assert year_dash(text, pos) == (first.start() if first else -1)
