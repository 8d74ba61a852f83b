"""The tokenizer's fast loop (trafila.html.tokenizer.Parser.parse_content).

parse_content handles plain text, common start tags and end tags inline and
leaves everything else to the general path. These tests pin what the inline
code must keep: the same trees as lxml at the places where it switches between
the two paths, a fresh attribute dict per element (attribute dicts are cached
per parse), the valueless-attribute values, and the sibling bookkeeping
trafila.dom relies on (elements are linked without Element.append).
"""

from __future__ import annotations

import pytest

from tests._helpers import trafilatura_html_parser
from trafila.dom import NO_VALUE
from trafila.html._debug import dump_document, dump_lxml

etree = pytest.importorskip("lxml.etree")
lxml_html = pytest.importorskip("lxml.html")

PARSER = trafilatura_html_parser()


def same_as_lxml(parser, src):  # type: ignore[no-untyped-def]
    doc = parser.parse_document(src)
    root = etree.fromstring(src, PARSER)
    assert dump_document(doc) == ([] if root is None else dump_lxml(root))
    return doc


@pytest.mark.parametrize("src", [
    # text with CR, CR LF, references and NUL between fast tags
    "<p>a\r\nb\rc</p><p>x &amp; y &copy z</p>\x00<b>\r</b>&lt;<i>q</i>",
    "<div>one<!-- c -->two&amp;<!-- d -->three</div>tail&nbsp;<span>s</span>",
    # start tags before any body (head content, implied html/head/body)
    "<meta charset=utf-8><title>t</title><link rel=x><p>p",
    "text first<p class=a>then",
    "<html><head><script>var a = 1 < 2;</script><style>p{}</style></head><body><p>x</p></body></html>",
    # raw text elements entered from the fast path, script escape states
    "<p><script>a<!--<script>b</script>c-->d</script><textarea>&amp;<b></textarea><xmp><i></xmp>z",
    "<script><!-- x --> <script> </script>after",
    "<script><!--<script></script>--></script>after",
    # start tags the fast pattern does not take, between ones it does
    "<p a='1' b=\"2\" c=3 d><q a=\"<\" b=`x`><r a=b=c></r></q></p>",
    "<P CLASS=X><Div ID=y>z</DIV></p>",
    # html/head/body start and end tags inside content
    "<p>a<body class=x>b<html lang=en>c</body>d</html>e<head>f",
    "<table><tr><td>1<td>2<tr><td>3</table><ul><li>a<li>b</ul>",
])
def test_switching_paths_matches_lxml(html_parser, src):  # type: ignore[no-untyped-def]
    same_as_lxml(html_parser, src)
    same_as_lxml(html_parser, src.encode("utf-8"))


@pytest.mark.parametrize("wrapper", ["frameset", "noframes", "div"])
@pytest.mark.parametrize("depth", [253, 254, 255, 256])
def test_depth_limit_with_implied_body(html_parser, wrapper, depth):  # type: ignore[no-untyped-def]
    # the 256-node limit reached by the implied body or by the tag itself
    same_as_lxml(html_parser, f"<{wrapper}>" * depth + "<div class=a>x</div><p>y")


def test_each_element_gets_its_own_attribute_dict(html_parser):
    doc = same_as_lxml(html_parser, '<p><a class="x" href=y>1</a><a class="x" href=y>2</a></p>')
    first, second = doc.getroot().iter("a")
    assert first.attrib == second.attrib == {"class": "x", "href": "y"}
    assert first.attrib is not second.attrib
    first.set("class", "changed")
    assert second.get("class") == "x"


def test_valueless_attributes(html_parser):
    doc = same_as_lxml(html_parser, "<p><td nowrap class id=''>x</td><input checked disabled=disabled>")
    td = next(doc.getroot().iter("td"))
    assert td.attrib == {"nowrap": "nowrap", "class": "", "id": ""}
    # libxml2 keeps no value node for a valueless non-boolean attribute
    assert td.attrib["class"] is NO_VALUE
    assert td.attrib["id"] is not NO_VALUE
    assert next(doc.getroot().iter("input")).attrib == {"checked": "checked", "disabled": "disabled"}


def test_duplicate_attributes_first_wins(html_parser):
    doc = same_as_lxml(html_parser, "<p><a href=1 HREF=2 x x=3>t</a>")
    assert next(doc.getroot().iter("a")).attrib == {"href": "1", "x": NO_VALUE}


def test_sibling_bookkeeping(html_parser):
    doc = html_parser.parse_document("<div><p>a<b>b</b><i>c</i></p><p>d</p><br><hr/><span>e</span></div>tail")
    root = doc.getroot()
    assert root.getparent() is None and root.getroottree() is doc
    for parent in root.iter():
        for index, child in enumerate(parent):
            assert child.getparent() is parent
            assert parent.index(child) == index
            assert child.getprevious() is (parent[index - 1] if index else None)
            assert child.getnext() is (parent[index + 1] if index + 1 < len(parent) else None)
    # elements linked by the parser can be moved like any other
    div = next(root.iter("div"))
    span = div[-1]
    div.insert(0, span)
    assert [c.tag for c in div] == ["span", "p", "p", "br", "hr"]
    assert span.getroottree() is doc
