"""The parser's fast paths against the reference parser (trafila.html).

The core reads a tag/attribute name in one 16-byte SSE2 step when the name is
1-15 plain ASCII bytes ended by a terminator inside those 16 bytes (else the
byte loop), hashes names eight bytes a step, and finds the end of a text run or
a quoted attribute value together with whether it holds '&', CR or NUL in one
pass. These tests aim at the edges of those paths: names of every length
around 8/15/16/100 bytes, in any case, with NUL or non-ASCII bytes at every
position, terminators at every position, input ending inside the 16 bytes,
duplicate attributes (the name ids must agree), and references/CR/NUL at every
offset of text runs and attribute values. The reference is the specification.

Skipped when trafila._core is not built, unless TRAFILA_REQUIRE_EXTENSIONS=1.
"""

from __future__ import annotations

import os

import pytest

from tests._helpers import NO_CORE
from trafila import html as ref
from trafila.dom import NO_VALUE
from trafila.html._debug import dump_document

try:
    from trafila import _core as core
except ImportError as err:  # pragma: no cover - depends on the build
    if os.environ.get("TRAFILA_REQUIRE_EXTENSIONS", "").strip() not in ("", "0"):
        raise
    pytest.skip(f"{NO_CORE} ({err})", allow_module_level=True)


def _mark_valueless(d):  # type: ignore[no-untyped-def]
    if isinstance(d, list):
        if len(d) == 2 and d[1] is NO_VALUE:
            return [d[0], "<NO_VALUE>"]
        return [_mark_valueless(x) for x in d]
    return d


def _outcome(fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except Exception as err:
        return type(err).__name__


def check(src):  # type: ignore[no-untyped-def]
    want = _outcome(lambda: _mark_valueless(dump_document(ref.parse_document(src))))
    got = _outcome(lambda: _mark_valueless(dump_document(core.parse_document(src).to_reference())))
    assert got == want, src
    if isinstance(src, str):
        b = src.encode("utf-8", "surrogatepass")
        want_b = _outcome(lambda: _mark_valueless(dump_document(ref.parse_document(b))))
        assert _outcome(lambda: _mark_valueless(dump_document(core.parse_document(b).to_reference()))) == want_b, b


NAME_CHARS = ["a", "Z", "q", "-", "_", ":", "1", "=", "\x00", "\xe9", "\u20ac", "\U0001F600", "\x0b", "@", "[", "`", "{"]
TERMINATORS = [" ", "\t", "\n", "\x0c", "\r", "/", ">", "=", ""]


@pytest.mark.parametrize("length", [1, 2, 7, 8, 9, 14, 15, 16, 17, 31, 99, 100, 101])
def test_names_of_every_length(length):
    for base in ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "DiV-Sp_An:x0"):
        name = (base * 10)[:length]
        for term in TERMINATORS:
            check(f"<{name}{term}x>text</{name}>")
            check(f"<p {name}{term}='v' {name.upper()}=w>t</p>")
            check(f"<p {name}{term}")  # the input ends inside the 16 bytes
            check(f"<{name}{term}")


@pytest.mark.parametrize("pos", range(0, 18))
def test_odd_byte_at_every_position_of_a_name(pos):
    for ch in NAME_CHARS:
        name = "abcdefghijklmnopqrstu"[:pos] + ch + "vwxyzabcdefghij"
        for short in (name, name[: pos + 1], name[: pos + 3]):
            check(f"<{short} {short}=1 data-{short}>x</{short}><div {short}='2' class=k>y</div>")
            check(f"<html><body><{short}/><span {short}>z</span>")


def test_known_and_unknown_names_share_ids():
    # duplicates told apart by name id: the first wins, case-insensitively, for known and
    # interned names, short and long
    for name in ("class", "href", "x", "data-role", "aria-labelledby", "averyveryverylongattributename", "a" * 16):
        check(f"<div {name}=1 {name.upper()}=2 {name}='3' id=i>t</div>")
        check(f"<{name} {name}=1><{name.upper()} {name.upper()}=2></{name}>")
    attrs = " ".join(f"a{i}={i}" for i in range(40)) + " a3=dup A39=dup"
    check(f"<p {attrs}>t</p>")


@pytest.mark.parametrize("pos", list(range(0, 20)) + [31, 32, 33, 47, 48, 49])
def test_specials_at_every_offset_of_runs(pos):
    for special in ("&amp;", "&", "&#x41;", "&lt", "\r\n", "\r", "\x00", "&notin;", "&noti"):
        run = "x" * pos + special + "y" * 5
        check(f"<p>{run}</p><p>{'x' * pos}<b>{run}</b>{run}")
        check(f"<p title=\"{run}\" alt='{run}' data-x={run.replace(' ', '')}>t</p>")
        check(f"<p title=\"{'x' * pos}\">{run}")
        check(f"<p title='{run}")  # unterminated value
        check(f"<p>{run}")  # run up to the end of input
    check("<p>" + "z" * 64 + "<b>" + "q" * 15 + "&amp;</b>")


def test_embedded_corpus_sample():
    from harness.corpora import EMBEDDED_DIR, bundle_paths, iter_pages

    # every 97th page of the shared corpora, every page of the embedded one (64 pages, all a
    # machine without the shared corpora has)
    n = 0
    for bundle in bundle_paths():
        step = 1 if bundle.parent == EMBEDDED_DIR else 97
        for i, page in enumerate(iter_pages(bundle)):
            if i % step:
                continue
            html = page["html"] if isinstance(page, dict) else page.html
            if html:
                want = _outcome(lambda: _mark_valueless(dump_document(ref.parse_document(html))))
                assert _outcome(lambda: _mark_valueless(dump_document(core.parse_document(html).to_reference()))) == want
                n += 1
    assert n > 10


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_name = st.text(alphabet="abXY-_:=19\x00\xe9\u20ac\x0b", min_size=1, max_size=20)
_value = st.text(alphabet="ab &#;x1\r\n\x00\"'<>=ltamp\xe9", max_size=40)


@st.composite
def _docs(draw):  # type: ignore[no-untyped-def]
    parts = []
    for _ in range(draw(st.integers(1, 8))):
        tag = draw(_name)
        attrs = "".join(
            f" {draw(_name)}" + draw(st.sampled_from(["", "=", "='", '="'])) + draw(_value) + draw(st.sampled_from(["", "'", '"']))
            for _ in range(draw(st.integers(0, 4)))
        )
        parts.append(f"<{tag}{attrs}{draw(st.sampled_from(['>', '/>', ' >', '']))}{draw(_value)}")
        if draw(st.booleans()):
            parts.append(f"</{tag}>")
    return "".join(parts)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_docs())
def test_hypothesis_names_and_runs(src):
    check(src)


_doctype_text = st.text(alphabet="<!> /DOCTYPEdoctypehtml\n\r\"'x-", max_size=60)


@pytest.mark.parametrize("release", ["2.3.1", "1.11.0"])
def test_repair_doctype_sliced_equals_the_reference(release):
    from harness.corpora import bundle_paths, iter_pages

    if release == "2.3.1":
        from trafila.v2_3_1 import utils
    else:
        from trafila.v1_11_0 import utils
    cases = [
        "", "\n", "<!DOCTYPE html>", "<!DOCTYPE html/>", "<!DOCTYPE html/>\n<p>x", "<! DOCTYPE a/b>rest",
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd">\n<html>',
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd"><html>',
        "<!doctype html / >x\n", "x<!DOCTYPE a/>", "<!DOCTYPE a\n/>", "<!DOCTYPE a/>\u20ac\n\U0001F600",
    ]
    for i, page in enumerate(iter_pages(next(iter(bundle_paths())))):
        if i % 5 == 0:
            html = page["html"] if isinstance(page, dict) else page.html
            if isinstance(html, str):
                cases.append(html)
    for s in cases:
        for t in (s, s.replace("\n", " ")):
            got = utils._repair_doctype_sliced(t)
            assert got == utils._repair_doctype(t), t[:200]

    @settings(max_examples=300, deadline=None)
    @given(_doctype_text, _doctype_text)
    def run(a, b):  # type: ignore[no-untyped-def]
        s = a + b
        assert utils._repair_doctype_sliced(s) == utils._repair_doctype(s)

    run()
