"""Named tests for libxml2 2.14.6 / lxml 6.1.3 parser quirks that trafila.html reproduces.

Every test pins the expected tree literally AND checks it against lxml live,
so a test fails both when the port drifts and when the oracle is not the one
the port reproduces.
"""

from __future__ import annotations

import pytest

from tests._helpers import trafilatura_html_parser
import trafila.html as thtml
from trafila.html import ParserError
from trafila.html._debug import dump_document, dump_element, dump_lxml
from trafila.html.input import decode_bytes, decode_str

etree = pytest.importorskip("lxml.etree")
lxml_html = pytest.importorskip("lxml.html")

PARSER = trafilatura_html_parser()


def doc_of(parser, src):  # type: ignore[no-untyped-def]
    """The engine's whole document, checked equal to lxml's first."""
    got = dump_document(parser.parse_document(src))
    root = etree.fromstring(src, PARSER)
    assert got == ([] if root is None else dump_lxml(root))
    return got


def frag_of(parser, src):  # type: ignore[no-untyped-def]
    """fromstring()'s element, checked equal to lxml.html.fromstring's first."""
    got = dump_element(parser.fromstring(src))
    assert got == dump_element(lxml_html.fromstring(src, parser=PARSER))
    return got


def body(*children):  # type: ignore[no-untyped-def]
    return [["e", "html", [], ["e", "body", [], *children]]]


# -- SAX level: comments are never created --------------------------------
def test_comment_removed_text_merges(html_parser):
    assert doc_of(html_parser, "<p>a<!--x-->b</p>") == body(["e", "p", [], ["t", "ab"]])


def test_pi_is_a_bogus_comment(html_parser):
    assert doc_of(html_parser, "<p>a<?php echo 1 ?>b</p>") == body(["e", "p", [], ["t", "ab"]])


def test_unterminated_comment_swallows_rest(html_parser):
    assert doc_of(html_parser, "<p>a<!-- b <p>c") == body(["e", "p", [], ["t", "a"]])


def test_comment_end_variants(html_parser):
    assert doc_of(html_parser, "<p>a<!-->b<!--->c<!-- x --!>d</p>") == body(["e", "p", [], ["t", "abcd"]])


# -- input layer ------------------------------------------------------------
def test_str_bom_stripped_only_when_something_follows(html_parser):
    assert doc_of(html_parser, "\ufeff<p>a") == body(["e", "p", [], ["t", "a"]])
    assert doc_of(html_parser, "\ufeff") == body(["t", "\ufeff"])
    assert doc_of(html_parser, b"\xef\xbb\xbf") == body(["t", "\ufeff"])


def test_bom_kept_when_str_decoding_fails_in_first_block(html_parser):
    # a lone surrogate within the first 4000 bytes libxml2 converts: BOM stays as text
    assert doc_of(html_parser, "\ufeff<p>abc\ud800z") == body(["t", "\ufeff"], ["e", "p", [], ["t", "abc"]])
    # ... beyond it: the BOM is stripped as usual (UCS-2: 2 bytes a unit)
    far = "\ufeff<p>" + "x" * 2000 + "\ud800z"
    assert doc_of(html_parser, far) == body(["e", "p", [], ["t", "x" * 2000]])


def test_str_surrogates(html_parser):
    assert decode_str("a\ud83d\ude00b") == "a\U0001F600b"  # UCS-2 kind: a pair is one character
    assert decode_str("a\ud83d\ude00b\U0001F600") == "a"  # UCS-4 kind: any surrogate truncates
    assert doc_of(html_parser, "<p>a\ud800b</p><p>c</p>") == body(["e", "p", [], ["t", "a"]])


def test_invalid_utf8_one_fffd_per_byte(html_parser):
    assert decode_bytes(b"\xe2\x82x\xed\xa0\x80") == "\ufffd\ufffdx\ufffd\ufffd\ufffd"
    assert doc_of(html_parser, b"<p>\xe2\x82x") == body(["e", "p", [], ["t", "\ufffd\ufffdx"]])


def test_meta_charset_ignored_for_bytes(html_parser):
    got = doc_of(html_parser, b"<meta charset=iso-8859-1><p>caf\xe9</p>")
    assert got[0][4] == ["e", "body", [], ["e", "p", [], ["t", "caf\ufffd"]]]


def test_str_with_encoding_declaration_raises_valueerror(html_parser):
    src = '<?xml version="1.0" encoding="latin-1"?><p>a'
    with pytest.raises(ValueError):
        lxml_html.fromstring(src, parser=PARSER)
    with pytest.raises(ValueError):
        html_parser.fromstring(src)
    assert doc_of(html_parser, src.encode()) == body(["e", "p", [], ["t", "a"]])


@pytest.mark.parametrize("src", ["", "  \n", "<!-- only -->", b"", "<!DOCTYPE html>"])
def test_empty_document_raises_parser_error(html_parser, src):
    with pytest.raises(etree.ParserError):
        lxml_html.fromstring(src, parser=PARSER)
    with pytest.raises(ParserError):
        html_parser.fromstring(src)
    assert thtml.ParserError.__name__ == etree.ParserError.__name__


def test_nul_cr_and_controls(html_parser):
    assert doc_of(html_parser, "<p>a\x00b\rc\r\nd\x01\x7f&#13;</p>") == body(["e", "p", [], ["t", "a\ufffdb\nc\nd\x01\x7f\r"]])


# -- references ---------------------------------------------------------------
def test_named_refs_text_vs_attribute(html_parser):
    assert doc_of(html_parser, '<p title="&copy=2 &ampx &amp;">&copy2024 &ampx &notit;</p>') == body(
        ["e", "p", [["title", "&copy=2 &ampx &"]], ["t", "\u00a92024 &x \u00acit;"]])


def test_numeric_refs(html_parser):
    assert doc_of(html_parser, "<p>&#0;&#x110000;&#x80;&#150&#xD800;&#99999999999999;&#;&#x;&#65x</p>") == body(
        ["e", "p", [], ["t", "\ufffd\ufffd\u20ac\u2013\ufffd\ufffd&#;&#x;Ax"]])


# -- tokenizer ----------------------------------------------------------------
def test_name_truncated_to_100_utf8_bytes(html_parser):
    name = "a" * 99 + "\u00e9" + "b"  # é (2 bytes) does not fit at byte 100, b does
    got = doc_of(html_parser, f"<{name}>x</{name}>")
    assert got[0][3][3][1] == "a" * 99 + "b"


def test_attribute_syntax(html_parser):
    assert doc_of(html_parser, "<div a=1 a=2 B=x/y =z c<d=e checked></div>") == body(
        ["e", "div", [["a", "1"], ["b", "x/y"], ["=z", ""], ["c<d", "e"], ["checked", "checked"]]])


def test_start_tag_cut_by_eof_is_dropped_but_autocloses(html_parser):
    assert doc_of(html_parser, '<p>a<div class="x') == body(["e", "p", [], ["t", "a"]])


def test_selfclosing_syntax_closes_any_element(html_parser):
    assert doc_of(html_parser, "<div/>a<p/>b") == body(["e", "div", []], ["t", "a"], ["e", "p", []], ["t", "b"])


def test_raw_text_ends_only_on_name_plus_terminator(html_parser):
    assert doc_of(html_parser, "<title>a</titlex></title >b") == [["e", "html", [], ["e", "head", [], ["e", "title", [], ["t", "a</titlex>"]]], ["e", "body", [], ["t", "b"]]]]


def test_script_escape_states(html_parser):
    src = "<script><!--<script></script>x--></script>y"
    got = doc_of(html_parser, src)
    assert got[0][3] == ["e", "head", [], ["e", "script", [], ["t", "<!--<script></script>x-->"]]]


def test_rcdata_decodes_refs_rawtext_does_not(html_parser):
    got = doc_of(html_parser, "<textarea>&amp;<b></textarea><style>&amp;</style>")
    assert got == body(["e", "textarea", [], ["t", "&<b>"]], ["e", "style", [], ["t", "&amp;"]])


def test_doctype_only_in_prolog_name_case_kept(html_parser):
    src = '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN"><p>x'
    doc = html_parser.parse_document(src)
    dtd = etree.fromstring(src, PARSER).getroottree().docinfo.internalDTD
    # DocInfo.root_name is the doctype's name as written (trafila.dom), i.e. lxml's DTD name
    assert (doc.docinfo.root_name, doc.docinfo.public_id, doc.docinfo.system_url) == \
        (dtd.name, dtd.external_id, dtd.system_url) == ("HTML", "-//W3C//DTD HTML 4.01//EN", None)
    assert doc_of(html_parser, "<p>x<!DOCTYPE html>y") == body(["e", "p", [], ["t", "xy"]])


# -- tree construction --------------------------------------------------------
def test_depth_limit_halts_at_257th_node(html_parser):
    got = doc_of(html_parser, "<div>" * 300 + "x")
    depth, node = 0, got[0]
    while len(node) > 3:
        node, depth = node[3], depth + 1
    assert depth == 255  # html + body + 254 divs = 256 nodes


def test_head_keeps_unknown_elements_and_leading_whitespace(html_parser):
    assert doc_of(html_parser, "<html><head>  <section>x</section> y</head></html>") == [
        ["e", "html", [], ["e", "head", [], ["t", "  "], ["e", "section", [], ["t", "x"]], ["t", " "]],
         ["e", "body", [], ["t", "y"]]]]


def test_misplaced_body_dropped_and_swallows_end_tag(html_parser):
    # the dropped <body class=x> makes the first </body> a no-op; the second closes body
    assert doc_of(html_parser, "<body><p>a</p><body class=x><p>b</p></body><p>c</p></body><p>d</p>") == [
        ["e", "html", [], ["e", "body", [], ["e", "p", [], ["t", "a"]], ["e", "p", [], ["t", "b"]],
                           ["e", "p", [], ["t", "c"]]], ["e", "p", [], ["t", "d"]]]]


def test_dropped_body_selfclose_pops_current(html_parser):
    # <body> auto-closes p (htmlStartClose) and is dropped as misplaced; its "/>" then pops the current div
    assert doc_of(html_parser, "<div><p>a<body/>b</p>c</div>d") == body(["e", "div", [], ["e", "p", [], ["t", "a"]]], ["t", "bcd"])


def test_second_root_after_html(html_parser):
    got = doc_of(html_parser, "<html><body>a</body></html>  b<p>c")
    assert got == [["e", "html", [], ["e", "body", [], ["t", "a"]]], ["e", "html", [], ["t", "b"], ["e", "p", [], ["t", "c"]]]]


def test_end_tag_priority(html_parser):
    assert doc_of(html_parser, "<div><table><tr><td>x</div>y</td></tr></table>z</div>") == body(
        ["e", "div", [], ["e", "table", [], ["e", "tr", [], ["e", "td", [], ["t", "xy"]]]], ["t", "z"]])


# -- lxml.html.fromstring -----------------------------------------------------
def test_fromstring_root_choice(html_parser):
    assert frag_of(html_parser, "<p>a</p>")[1] == "p"
    assert frag_of(html_parser, "<p>a</p><p>b</p>")[1] == "div"
    assert frag_of(html_parser, "<b>a</b> and <i>b</i>")[1] == "span"
    assert frag_of(html_parser, "<!--c--><html><body><div>a</div></body></html>")[1] == "div"
    assert frag_of(html_parser, "  <HTML><p>a")[1] == "html"
    assert frag_of(html_parser, "<head><title>a</title></head><head><meta name=x></head><p>b")[1] == "html"


def test_fromstring_merges_bodies(html_parser):
    assert frag_of(html_parser, "<p>a</p></body><body class=x>b") == ["e", "div", [], ["e", "p", [], ["t", "a"]], ["t", "b"]]


def test_fromstring_body_merge_with_control_char_raises_valueerror(html_parser):
    src = "<p>a</p></body><body>\x0cb"
    with pytest.raises(ValueError):
        lxml_html.fromstring(src, parser=PARSER)
    with pytest.raises(ValueError):
        html_parser.fromstring(src)


def test_valueless_attribute_has_no_value_node(html_parser):
    from trafila.dom import NO_VALUE

    el = html_parser.fromstring("<input value checked title=''>")
    assert el.attrib == {"value": "", "checked": "checked", "title": ""}
    assert el.attrib["value"] is NO_VALUE  # lxml's HTML serialiser writes it bare
    assert el.attrib["title"] is not NO_VALUE
    assert dump_element(el) == dump_element(lxml_html.fromstring("<input value checked title=''>", parser=PARSER))
