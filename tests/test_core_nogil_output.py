"""The txt output of 2.3.1 without the GIL (cython_core/nogil_output.pxi),
each twin against the Python it
replaces:

* ``nou_unescape`` (``core.nogil_unescape``) is ``html.unescape``: on every HTML5 name with and
  without ';' and followed by letters, digits or non-ASCII; on every numeric value up to
  U+10FFFF and past it, decimal and hexadecimal, with and without ';'; on hand-written near
  misses; on Hypothesis strings of every code point category and entity-dense strings;
* ``nou_nfc_unchanged`` (``core.nogil_nfc_unchanged``, the quick check) never says "unchanged"
  for a string NFC changes (every code point alone and after a letter, the composite pairs of its
  MAYBE code points, Hypothesis strings of every category and mark runs); where it cannot say,
  ``nou_nfc_normalize`` (``core.nogil_nfc``) is ``unicodedata.normalize("NFC", s)`` (every code
  point in eight contexts: alone, after a letter, before and after marks, doubled, with Hangul
  jamo; Hypothesis strings), so the output stage has no NEED_PYTHON for NFC;
* ``ng_xmltotxt`` (``core.nogil_xmltotxt``) is ``xml.xmltotxt(tree, False)`` with the C paths
  switched off, on generated TEI trees (tests/test_core_accel_output.py's strategy, with
  entity-dense texts); graphic/ref trees are NEED_PYTHON;
* ``ng_determine_returnstring`` (``core.nogil_determine_returnstring``) gives the UTF-8 of
  ``core.determine_returnstring`` (C paths switched off) for generated bodies with and without a
  comments body, and for the body and comments body of corpus extractions (``fast`` and default
  options: the trees the real output stage renders, captured on core trees), NEED_PYTHON counted
  by cause: none on the corpus (a graphic/ref body never comes with images and links off).
"""

from __future__ import annotations

import html
import html.entities
import os
import random
import unicodedata
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

core = pytest.importorskip("trafila._core")

import trafila  # noqa: E402
from trafila import _backend, dom  # noqa: E402
from trafila.v2_3_1 import core as core231  # noqa: E402
from trafila.v2_3_1 import xml as xml231  # noqa: E402
from trafila.v2_3_1.settings import Document, Extractor  # noqa: E402

from harness.strategies import random_article, random_html  # noqa: E402

from ._helpers import core_switched_off, needs_corpora, sample_pages, with_failing_allocations  # noqa: E402
from .test_core_accel_output import PIECES, build, settable, trees  # noqa: E402

CORE = _backend.core_backend(core)
NAMES = sorted(html.entities.html5)

#: the Unicode version of the NFC tables (tools/gen_nogil_output_tables.py, run under CPython 3.11)
TABLES_UNICODE = core.nogil_output_tables()[1]
#: on another interpreter's Unicode version the stage does not use them: text past U+02FF is
#: NEED_PYTHON there (test_other_unicode_version_needs_python), so the tests of exact NFC answers
#: and of "never NEED_PYTHON" are about the tables' version only
same_unicode_only = pytest.mark.skipif(
    TABLES_UNICODE != unicodedata.unidata_version,
    reason=f"the NFC tables are Unicode {TABLES_UNICODE}, this Python's unicodedata {unicodedata.unidata_version}: "
    "the stage hands such text to Python here (test_other_unicode_version_needs_python)")

# every category but the surrogates (the arenas never hold one: the input turns them to U+FFFD)
ANY_CHAR = st.characters(blacklist_categories=("Cs",))


# -- the generated tables ---------------------------------------------------------------------

def test_tables_are_the_interpreters():
    ents, version, used = core.nogil_output_tables()
    assert ents == html.entities.html5
    # the NFC tables are used exactly when they are this interpreter's Unicode version
    assert used == (version == unicodedata.unidata_version)


# -- html.unescape ------------------------------------------------------------------------------

UNESCAPE_CASES = [
    "", "&", "&&", "&;", "&#", "&#;", "&#x", "&#X;", "&#xg", "&# 1", "& amp;", "&\tamp", "&\ramp;", "&\x0bamp;",
    "&amp", "&amp;", "&AMP", "&AMP;", "&Amp;", "&ampx", "&amp;x", "&amp;;", "&amp&amp", "&&amp;", "&amp&",
    "&notin", "&notin;", "&notit;", "&noti", "&not", "&no", "&n", "&copy2020", "&copysr;", "&copy;sr",
    "&lt&gt", "&lt<", "&lt#", "&ltx;", "&LT", "&gtcc;", "&gtcir;", "&quot", "&QUOT", "&nbsp&nbsp;", "&nbspé",
    "&ampé", "&é", "&éamp;", "&a\u00e9b;", "&\U0001f600;", "&amp\U0001f600", "&frac12", "&frac123",
    "&frac1", "&sup2x", "&sup", "&sup1;", "&Aacute", "&AacuteX", "&aacute;", "&aacut", "&Aacut;",
    "&CounterClockwiseContourIntegral;", "&CounterClockwiseContourIntegral", "&CounterClockwiseContourIntegra;",
    "&" + "a" * 31 + ";", "&" + "a" * 32 + ";", "&" + "a" * 33 + ";", "&amp" + "b" * 40 + ";",
    "&amp" + "\u00e9" * 40, "&" + "\u00e9" * 32 + ";", "&" + "\u00e9" * 31 + "amp;",
    "&#0", "&#0;", "&#00000065;", "&#65", "&#65;", "&#65a", "&#x41", "&#x41;", "&#X41;", "&#x41g", "&#xaBcD;",
    "&#13;", "&#10;", "&#11;", "&#12;", "&#127;", "&#128;", "&#129;", "&#141;", "&#159;", "&#160;",
    "&#55295;", "&#55296;", "&#57343;", "&#57344;", "&#xD7FF;", "&#xD800;", "&#xDFFF;", "&#xE000;",
    "&#xFDCF;", "&#xFDD0;", "&#xFDEF;", "&#xFDF0;", "&#xFFFD;", "&#xFFFE;", "&#xFFFF;", "&#x10000;",
    "&#x1FFFE;", "&#x10FFFD;", "&#x10FFFE;", "&#x10FFFF;", "&#x110000;", "&#1114111;", "&#1114112;",
    "&#" + "9" * 40 + ";", "&#x" + "f" * 40, "&#x0000000000000041;", "&#" + "0" * 30 + "66",
    "a &amp b", "x&yuml;y&yumlz", "&&#38;amp;", "&#38;amp;", "&amp;lt;", "\u00e9&eacute;\u00e9",
]


@pytest.mark.parametrize("s", UNESCAPE_CASES)
def test_unescape_cases(s):
    assert core.nogil_unescape(s) == html.unescape(s)


@pytest.mark.parametrize("suffix", ["", ";", "x", ";x", "1", "\u00e9", " ", "&amp;", "#", "<", "\t", "\r",
                                    "a" * 30, ";;"])
def test_unescape_every_name(suffix):
    s = "".join(f"{'&' + name}{suffix}|" for name in NAMES)
    assert core.nogil_unescape(s) == html.unescape(s)
    # names cut short by one character, and with their first letter's case swapped
    s = "".join(f"&{name[:-1]}{suffix}|&{name.swapcase()}{suffix}|" for name in NAMES)
    assert core.nogil_unescape(s) == html.unescape(s)


@pytest.mark.parametrize("form", ["&#{:d};", "&#{:d}", "&#x{:x};", "&#X{:X}", "&#x{:X}q", "&#{:d}9"])
def test_unescape_every_number(form):
    values = list(range(0, 0x110000, 1)) if form == "&#{:d};" else list(range(0, 0x110000, 7))
    values += [0x110000, 0x110001, 0x7FFFFFFF, 0xFFFFFFFF, 0x100000000, 10 ** 30]
    for k in range(0, len(values), 50000):
        s = "".join(form.format(v) + "," for v in values[k:k + 50000])
        assert core.nogil_unescape(s) == html.unescape(s)


NEAR_NAMES = [n.rstrip(";") for n in NAMES[::7]] + ["amp", "lt", "gt", "not", "notin", "nbsp", "copy", "reg",
                                                    "frac12", "sup1", "aacute", "Aacute", "yuml", "quot"]
ENTITY_PIECES = st.one_of(
    st.sampled_from(["&", "&#", "&#x", "&#X", ";", "#", "x", "X", " ", "\t", "\n", "\x0c", "\r", "<", "\u00e9",
                     "\U0001f600", "0", "9", "a", "F", "g", "\xa0", "&amp;", "&#10;", "&nbsp;"]),
    st.sampled_from(NEAR_NAMES),
    st.sampled_from(NEAR_NAMES).map(lambda n: n[:-1]),
    st.sampled_from(NEAR_NAMES).map(lambda n: n + n[-1]),
    st.sampled_from(NEAR_NAMES).map(lambda n: n.upper()),
    st.integers(0, 0x120000).map(str),
    st.integers(0, 0x120000).map(lambda v: f"{v:x}"),
    st.sampled_from(["9" * 12, "f" * 9, "0" * 20, "1114111", "1114112", "55296", "xD800", "x10FFFF", "x110000",
                     "128", "x9f", "x80", "13", "0", "x0", "x7f", "11", "xfdd0", "xfffe"]),
    st.text(ANY_CHAR, max_size=3),
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(ENTITY_PIECES, max_size=25).map("".join))
def test_unescape_entity_dense(s):
    assert core.nogil_unescape(s) == html.unescape(s)


@settings(max_examples=800, deadline=None)
@given(st.text(ANY_CHAR, max_size=60), st.text(ANY_CHAR, max_size=60))
def test_unescape_any_text(a, b):
    for s in (a, f"{a}&{b}", f"&{a};{b}", f"&#{a}", f"&amp{a}"):
        assert core.nogil_unescape(s) == html.unescape(s)


# -- NFC ----------------------------------------------------------------------------------------

def _nfc_checked(s: str) -> bool:
    "The C answer, checked: when it says unchanged, NFC leaves the string as it is."
    got = core.nogil_nfc_unchanged(s)
    if got:
        assert unicodedata.normalize("NFC", s) == s, ascii(s)
    return got


@same_unicode_only
def test_nfc_every_code_point():
    undecided = 0
    changed = 0
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        for s in (ch, "a" + ch, ch + ch):
            if not _nfc_checked(s):
                undecided += 1
                if unicodedata.normalize("NFC", s) != s:
                    changed += 1
        # a starter that NFC keeps and nothing can compose with: decided
        if unicodedata.combining(ch) == 0 and unicodedata.normalize("NFC", ch) == ch and not _composes_after(cp):
            assert core.nogil_nfc_unchanged(ch + "x"), hex(cp)
    print(f"undecided {undecided}, of which NFC changes {changed}")
    assert changed > 0


def _second_of_composites():
    "The code points that are the second of a primary composite's canonical decomposition."
    seconds = {}
    for cp in range(0x110000):
        dec = unicodedata.decomposition(chr(cp)) if not 0xD800 <= cp <= 0xDFFF else ""
        if not dec or dec.startswith("<"):
            continue
        parts = [int(x, 16) for x in dec.split()]
        if len(parts) == 2 and unicodedata.normalize("NFC", chr(cp)) == chr(cp):
            seconds.setdefault(parts[1], []).append(parts[0])
    return seconds


_SECONDS = _second_of_composites()


def _composes_after(cp: int) -> bool:
    return cp in _SECONDS or 0x1161 <= cp <= 0x1175 or 0x11A8 <= cp <= 0x11C2


@same_unicode_only
def test_nfc_composite_pairs():
    "Each second of a composite after each first it composes with, after others, after marks: exact."
    firsts = sorted({a for v in _SECONDS.values() for a in v})
    decided = 0
    for b, its_firsts in sorted(_SECONDS.items()):
        for a in its_firsts:
            assert not core.nogil_nfc_unchanged(chr(a) + chr(b))
            assert not core.nogil_nfc_unchanged("x" + chr(a) + chr(b) + "y")
        for a in firsts[::5] + [ord("a"), 0x0BCA, 0x0CCA, 0x0DDA, 0x1026, 0xAC00, 0xAC01]:
            for s in (chr(a) + chr(b), chr(a) + "\u0301" + chr(b), chr(a) + "\u0BCD" + chr(b)):
                decided += _nfc_checked(s)
    # Hangul: L + V and LV + T compose, LVT + T and others do not
    for s, same in [("\u1100\u1161", False), ("\uac00\u11a8", False), ("\uac01\u11a8", True),
                    ("\u1100\u1100\u1161", False), ("a\u1161", True), ("\u1161\u1161", True), ("\uac00\u11a7", True),
                    ("\u0bc6\u0bbe", False), ("\u0bca\u0bbe", True), ("\u0bc6\u0bcd\u0bbe", True),
                    ("\u0cca\u0cd5", False), ("\u0cc6\u0cc2\u0cd5", False)]:
        assert unicodedata.normalize("NFC", s) == s if same else unicodedata.normalize("NFC", s) != s
        assert core.nogil_nfc_unchanged(s) == same, ascii(s)
    assert decided > 100


MARKS = st.sampled_from(["\u0300", "\u0301", "\u0316", "\u0323", "\u0327", "\u0334", "\u0345", "\u05b0", "\u0651",
                         "\u094d", "\u093c", "\u0bbe", "\u0bd7", "\u0bcd", "\u09be", "\u102e", "\u1161", "\u11a8",
                         "\u1dce", "\u20d2", "\u302a", "\u3099", "\u309a", "\U0001d165", "\U0001d16d"])
BASES = st.sampled_from(["a", "e", "o", "A", "\u00e9", "\u00c5", "\u0bc6", "\u0bca", "\u09c7", "\u0cc6", "\u1100",
                         "\uac00", "\uac01", "\u304b", "\u30cf", "\u05d0", "\u0627", "\u0915", " ", "\u212b", "\u0344"])


@same_unicode_only
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.one_of(BASES, MARKS, ANY_CHAR), max_size=12).map("".join))
def test_nfc_mark_runs(s):
    _nfc_checked(s)


@same_unicode_only
@settings(max_examples=800, deadline=None)
@given(st.text(ANY_CHAR, max_size=80))
def test_nfc_any_text(s):
    got = _nfc_checked(s)
    # nothing but code points below U+0300: always decided
    if all(ord(ch) < 0x300 for ch in s):
        assert got


NFC_CONTEXTS = ["{}", "a{}", "{}\u0301", "\u0301{}", "{}{}", "{}\u0316\u0301", "\u1100{}", "{}\u11a8"]


@same_unicode_only
@pytest.mark.parametrize("sep", ["", " ", "\u3000"])
def test_nfc_normalize_every_code_point(sep):
    "Every code point in each context, 2,048 code points a string (ASCII, other, no separator)."
    cps = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    for form in NFC_CONTEXTS:
        for k in range(0, len(cps), 2048):
            s = sep.join(form.replace("{}", chr(cp)) for cp in cps[k:k + 2048])
            if core.nogil_nfc(s) != unicodedata.normalize("NFC", s):
                for cp in cps[k:k + 2048]:
                    one = form.replace("{}", chr(cp))
                    assert core.nogil_nfc(one) == unicodedata.normalize("NFC", one), (hex(cp), form)
                assert core.nogil_nfc(s) == unicodedata.normalize("NFC", s), (k, form)


@same_unicode_only
@settings(max_examples=1500, deadline=None)
@given(st.lists(st.one_of(BASES, MARKS, ANY_CHAR, ANY_CHAR.map(lambda ch: unicodedata.normalize("NFD", ch))),
                max_size=14).map("".join))
def test_nfc_normalize_mark_runs(s):
    assert core.nogil_nfc(s) == unicodedata.normalize("NFC", s)
    assert core.nogil_nfc(unicodedata.normalize("NFD", s)) == unicodedata.normalize("NFC", s)


@same_unicode_only
@settings(max_examples=800, deadline=None)
@given(st.text(ANY_CHAR, max_size=80))
def test_nfc_normalize_any_text(s):
    assert core.nogil_nfc(s) == unicodedata.normalize("NFC", s)


# -- ng_xmltotxt -------------------------------------------------------------------------------

ENTITY_SLOT = st.one_of(
    st.none(), st.just(""),
    st.lists(st.one_of(st.sampled_from(PIECES), ENTITY_PIECES), min_size=1, max_size=6).map("".join))


@st.composite
def entity_trees(draw, depth=0):
    "test_core_accel_output's tree specs with entity-dense texts: (tag, attrib, text, tail, children)"
    tag = draw(st.sampled_from(["p", "hi", "head", "list", "item", "cell", "row", "table", "lb", "quote", "del",
                                "code", "div", "body"]))
    children = [] if depth >= 3 else draw(st.lists(entity_trees(depth + 1), max_size=3 if depth < 2 else 2))
    return (tag, draw(st.sampled_from([{}, {"role": "head"}])), draw(ENTITY_SLOT), draw(ENTITY_SLOT), children)


def python_xmltotxt(tree) -> str:
    with core_switched_off([xml231]):
        return xml231.xmltotxt(tree, False)


def python_returnstring(body, comments) -> str:
    document = Document()
    document.body = body
    document.commentsbody = comments
    with core_switched_off([xml231]):
        return core231.determine_returnstring(document, Extractor())


def _core_tree(spec):
    return _backend.run_with(CORE, lambda: build(core.dom, spec))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(trees(), entity_trees()))
def test_xmltotxt_generated(spec):
    if not settable(spec):
        return
    tree = _core_tree(spec)
    got, why = core.nogil_xmltotxt(tree, with_cause=True)
    assert why == ""
    assert got == python_xmltotxt(tree)


@pytest.mark.parametrize("tag", ["graphic", "ref"])
def test_xmltotxt_links_and_images_need_python(tag):
    root = core.dom.Element("body")
    p = core.dom.SubElement(root, "p")
    p.text = "see &amp; "
    el = core.dom.SubElement(p, tag)
    el.text = "this"
    el.tail = " now"
    if tag == "ref":
        # 2.3.1's links are rendered in C (accel_output.pxi's _md_link) since the links commit
        assert core.nogil_xmltotxt(root, with_cause=True) == ("see & [this] now", "")
        return
    assert core.nogil_xmltotxt(root, with_cause=True) == (None, "tree")
    assert core.nogil_determine_returnstring(root, None, with_cause=True) == (None, "tree")
    assert core.nogil_determine_returnstring(core.dom.Element("body"), root, with_cause=True) == (None, "tree")


def test_xmltotxt_deep_tree_needs_python():
    root = core.dom.Element("body")
    el = root
    for k in range(200):
        el = core.dom.SubElement(el, "p" if k % 2 else "div")
        el.text = f"t{k} &lt;"
    assert core.nogil_xmltotxt(root, with_cause=True) == (None, "tree")


# -- ng_determine_returnstring --------------------------------------------------------------------

def _compare_returnstring(body, comments, tally: Dict[str, int]) -> Optional[str]:
    expected = python_returnstring(body, comments)
    got, why = core.nogil_determine_returnstring(body, comments, with_cause=True)
    tally["calls"] = tally.get("calls", 0) + 1
    if got is None:
        tally[why] = tally.get(why, 0) + 1
        if why == "tree":
            assert any(e.tag in ("graphic", "ref") for t in (body, comments) if t is not None for e in t.iter()) or \
                max(_depth(t) for t in (body, comments) if t is not None) > 150
        else:
            return f"NEED_PYTHON {why}"
        return None
    tally["compared"] = tally.get("compared", 0) + 1
    with core_switched_off([xml231]):
        pre = xml231.xmltotxt(body, False)
        if comments is not None:
            pre = f"{pre}\n{xml231.xmltotxt(comments, False)}".strip()
    if not core.nogil_nfc_unchanged(pre):
        # the quick check could not say: nou_nfc_normalize made the text
        tally["normalized"] = tally.get("normalized", 0) + 1
        if unicodedata.normalize("NFC", pre) != pre:
            tally["changed by NFC"] = tally.get("changed by NFC", 0) + 1
    if got != expected.encode("utf-8"):
        return f"{got[:200]!r} != {expected.encode('utf-8')[:200]!r}"
    return None


def _depth(el) -> int:
    return 1 + max((_depth(ch) for ch in el), default=0)


@same_unicode_only
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(trees(), entity_trees()), st.one_of(st.none(), trees(), entity_trees()))
def test_returnstring_generated(body_spec, comments_spec):
    if not settable(body_spec) or (comments_spec is not None and not settable(comments_spec)):
        return
    body = _core_tree(body_spec)
    comments = None if comments_spec is None else _core_tree(comments_spec)
    tally: Dict[str, int] = {}
    assert _compare_returnstring(body, comments, tally) is None


@pytest.mark.parametrize("texts", [
    ("  a  ", "  b  "), ("", ""), ("\u3000x\u2028", "\x85"), ("caf\u00e9 &amp; co", "e\u0301"), ("", "&nbsp;"),
    ("\u0bc6\u0bbe", None), ("\u0bca", "\u0bca"), ("&#x301;a", None), ("e&#x301;", None), ("&#13;&#10;", "x"),
    ("\u1100&#x1161;", None), ("a&#8232;", "&#x85;"), ("tail &", "amp; head"), (None, "z"),
])
@same_unicode_only
def test_returnstring_cases(texts):
    body_text, comments_text = texts
    body = core.dom.Element("body")
    p = core.dom.SubElement(body, "p")
    p.text = body_text
    comments = None
    if comments_text is not None:
        comments = core.dom.Element("body")
        q = core.dom.SubElement(comments, "p")
        q.text = comments_text
    tally: Dict[str, int] = {}
    assert _compare_returnstring(body, comments, tally) is None
    # the same two trees in one document (as the GIL-free entry has them)
    if comments is not None:
        both = core.dom.Element("root")
        both.append(body)
        both.append(comments)
        assert _compare_returnstring(body, comments, tally) is None


@same_unicode_only
def test_returnstring_generated_pages():
    "The real output stage's trees for generated documents (fast and default extractions)."
    rng = random.Random(9)
    tally: Dict[str, int] = {}
    problems: List[str] = []
    docs = [random_html(rng) for _ in range(40)] + [random_article(rng) for _ in range(80)]
    for html_doc in docs:
        for options in ({"fast": True}, {}):
            for body, comments, returned in capture(html_doc, options):
                problem = _compare_returnstring(body, comments, tally)
                if problem:
                    problems.append(problem)
    print(tally)
    assert problems == [], problems[:3]
    assert tally.get("compared", 0) >= 100, tally
    # generated documents hold graphic/ref-free bodies too: nothing handed back
    assert tally["compared"] == tally["calls"], tally


# -- corpus ------------------------------------------------------------------------------------

def capture(html_doc: str, options: Dict[str, Any]) -> List[Tuple[Any, Any, str]]:
    "(body, commentsbody, the string returned) of each determine_returnstring call of an extraction on core trees."
    seen: List[Tuple[Any, Any, str]] = []
    real = core231.determine_returnstring

    def spy(document, opts, *rest):
        result = real(document, opts, *rest)
        if _backend.core_of(document.body) is not None and not opts.formatting:
            seen.append((document.body, document.commentsbody, result))
        return result

    # the Python sequence: the C one makes extract()'s text itself, without this function
    saved, core231.NATIVE_SEQUENCE = core231.NATIVE_SEQUENCE, False
    core231.determine_returnstring = spy
    try:
        trafila.engine("core").extract(html_doc, compat="2.3.1", **options)
    finally:
        core231.determine_returnstring = real
        core231.NATIVE_SEQUENCE = saved
    return seen


_STEP = int(os.environ.get("TRAFILA_NOGIL_OUTPUT_STEP", "4"))
_BUNDLES = os.environ.get("TRAFILA_NOGIL_OUTPUT_BUNDLES", "cleaneval,cleanportaleval,commoncrawl,dragnet,fundus,"
                          "go-trafilatura,goose3,htmldate,l3s-gn1,mozilla-readability,msv-big9-chaos,newspaper4k,"
                          "postlight-parser,scrapinghub-aeb,trafilatura,warc-misc").split(",")


@same_unicode_only
@needs_corpora
def test_corpus_returnstring():
    tally: Dict[str, int] = {}
    problems: List[str] = []
    pages = 0
    for _name, page in sample_pages(_BUNDLES, _STEP):
        if page.html is None:
            continue
        pages += 1
        for options in ({"fast": True}, {}):
            for body, comments, returned in capture(page.html, options):
                problem = _compare_returnstring(body, comments, tally)
                if problem:
                    problems.append(f"{page.id} {options}: {problem}")
                got = core.nogil_determine_returnstring(body, comments)
                if got is not None:
                    assert got == returned.encode("utf-8"), page.id
    print(f"{pages} pages: {tally}")
    assert problems == [], problems[:3]
    assert pages >= 500 and tally.get("compared", 0) >= 1000, tally
    # NEED_PYTHON: none. A graphic/ref never reaches a txt body with images and links off, the arenas
    # hold valid UTF-8, and NFC is computed where the quick check cannot say
    assert tally["compared"] == tally["calls"], tally
    # the normalizing path was taken (pages with decomposed Latin, nukta, kana voicing marks)
    assert tally.get("changed by NFC", 0) >= 1, tally


# -- memory ------------------------------------------------------------------------------------

@same_unicode_only
def test_allocation_failures_are_memory_errors():
    "An allocation failing anywhere in the stage (names, walk, sanitize, unescape, NFC) is a MemoryError."
    body = core.dom.Element("body")
    for k in range(30):
        p = core.dom.SubElement(body, "p")
        p.text = f"caf&eacute; e\u0301 {k} &#x1161; \u1100\u1161 " * 20
    comments = core.dom.Element("body")
    q = core.dom.SubElement(comments, "p")
    q.text = "  n&amp;m \u0bc6\u0bbe  "
    expected = python_returnstring(body, comments).encode("utf-8")
    failed = 0
    for n in range(0, 60):
        raised, got = with_failing_allocations(n, lambda: core.nogil_determine_returnstring(body, comments))
        failed += raised
        if raised:
            continue
        assert got == expected, n
    assert failed > 0
    assert core.nogil_determine_returnstring(body, comments) == expected
    core._fail_allocations_after(0)
    try:
        with pytest.raises(MemoryError):
            core.nogil_nfc("e\u0301")
    finally:
        core._fail_allocations_after(-1)


# -- another unicodedata ---------------------------------------------------------------------------

def test_other_unicode_version_needs_python():
    "With tables of another Unicode version, only text below U+0300 passes the NFC step; the rest is NEED_PYTHON."
    def returnstring(text):
        body = core.dom.Element("body")
        p = core.dom.SubElement(body, "p")
        p.text = text
        return body
    core._nogil_output_unidata_override(False)
    try:
        for text in ["plain &amp; ascii", "caf\u00e9 \u0105 \u02ff", ""]:
            body = returnstring(text)
            assert core.nogil_determine_returnstring(body, None) == python_returnstring(body, None).encode("utf-8")
        for text in ["\u03ac", "e\u0301", "\u0300", "\u65e5\u672c"]:
            assert core.nogil_determine_returnstring(returnstring(text), None, with_cause=True) == (None, "unidata")
            assert not core.nogil_nfc_unchanged(text)
        assert core.nogil_nfc("e\u0301") is None
    finally:
        core._nogil_output_unidata_override(None)
    assert core.nogil_nfc("e\u0301") == ("\u00e9" if TABLES_UNICODE == unicodedata.unidata_version else None)


# -- threads -------------------------------------------------------------------------------------

@same_unicode_only
def test_threads():
    "The stage runs without the GIL: four threads on their own documents give each one's answer."
    from concurrent.futures import ThreadPoolExecutor

    rng = random.Random(5)
    jobs = []
    for _ in range(24):
        body = core.dom.Element("body")
        for k in range(rng.randint(50, 200)):
            p = core.dom.SubElement(body, rng.choice(["p", "head", "quote"]))
            p.text = rng.choice(["caf&eacute; ", "e\u0301 ", "&#x1161;\u1100", "a &amp; b", "\u0bc6\u0bbe"]) * k
        comments = core.dom.Element("body")
        core.dom.SubElement(comments, "p").text = " c&lt;d "
        jobs.append((body, comments, python_returnstring(body, comments).encode("utf-8")))

    def run(job):
        body, comments, expected = job
        return all(core.nogil_determine_returnstring(body, comments) == expected for _ in range(5))

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, jobs))
