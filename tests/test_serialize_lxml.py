"""trafila.html.serialize against lxml 6.1.3's tostring, live.

Trees are parsed by lxml with trafilatura's parser settings and bridged to
trafila (harness.lxml_bridge), so both serialisers see the same tree; every
element (or a sample on real pages) is serialised both ways and compared.
"""

from __future__ import annotations

import copy
import os
from typing import Any, Iterable, List

import pytest

lxml_html = pytest.importorskip("lxml.html")
from lxml import etree  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from harness.lxml_bridge import from_lxml  # noqa: E402
from tests._helpers import trafilatura_html_parser  # noqa: E402
from trafila import dom  # noqa: E402
from trafila.html.serialize import tostring  # noqa: E402

PARSER = trafilatura_html_parser()

# (kwargs) combinations trafilatura, its readability fork and the harness use,
# and a few more
VARIANTS = [
    dict(encoding=str, method="xml"),
    dict(encoding="unicode"),
    dict(),
    dict(encoding="utf-8"),
    dict(encoding="unicode", with_tail=False),
    dict(method="text", encoding="unicode"),
    dict(method="text", encoding="utf-8"),
    dict(method="text", encoding="unicode", with_tail=False),
    dict(method="html", encoding="unicode"),
    dict(method="html"),
    dict(encoding="unicode", pretty_print=True),
    dict(method="html", encoding="unicode", pretty_print=True),
]


def _parse(html: Any) -> Any:
    return lxml_html.fromstring(html, parser=PARSER)


def _pairs(lx_root: Any) -> Iterable[Any]:
    tr_root = from_lxml(lx_root)
    lx_nodes = list(lx_root.iter())
    tr_nodes = list(tr_root.iter())
    assert len(lx_nodes) == len(tr_nodes)
    return zip(lx_nodes, tr_nodes)


def _outcome(f: Any) -> Any:
    try:
        return ("ok", f())
    except Exception as err:  # noqa: BLE001 - the exception type is compared
        return ("error", type(err).__name__)


def _compare(lx: Any, tr: Any, variants: List[dict] = VARIANTS) -> None:
    for kw in variants:
        expected = _outcome(lambda: etree.tostring(lx, **kw))
        got = _outcome(lambda: tostring(tr, **kw))
        assert got == expected, (kw, lx.tag)


CASES = [
    "<div>a &amp; b &lt; c &gt; d \"q\" 'a' \r\n x\x01y\x0b\x7f é 😀 \u2028</div>",
    "<p title='a\"b' alt=\"a'b\" data-x=\"a&quot;b'c\" t=\"\tx\ny\rz &amp; &lt;&gt;\x01\">x</p>",
    "<div hidden checked selected=x id=a title=\"\" x=>y<br><li></li><p></p><img src=\" é x\"></div>",
    "<a href=\" /a b?x=1&amp;y=&lt;é&gt;#f\" name=\"n m\" action=\"a b\">l</a><form action=' x'>f</form>",
    "<div><script>a<b&c</script>t<style>s<&</style>u<textarea>t<&</textarea>v</div>",
    "<ul><li>a<li>b<li></ul><table><tr><td>1<td></table><br>tail<hr>",
    "<html><head><title>t</title><meta charset=utf-8></head><body><p>a<b>b</b>c</p><div><div>x</div></div></body></html>",
    "<div><p>a</p><p>b</p><span>c</span><div></div>tail<pre>x</pre><p></p></div>",
    "<div><br><br>x<li></li><area><param></div>",
    "<body><div><span>a</span><span>b</span></div><div>t<div>u</div></div></body>",
]

XHTML_CASES = [
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">'
    '<html xmlns="http://www.w3.org/1999/xhtml" lang=en><head><title>t</title></head>'
    '<body><p name=x>a<br>b</p><div></div><input disabled><a name=n>l</a><img name=i id=j>'
    '<p lang=de xml:lang=fr>x</p></body></html>',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd"><html><head>'
    '<meta http-equiv="content-type" content="text/html"></head><body><p>a</p></body></html>',
    '<!DOCTYPE html SYSTEM "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html><head></head>'
    '<body><br><hr><li></li></body></html>',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Frameset//EN" "">'
    '<html><head><title>x</title></head><body><div><div>a</div>b</div></body></html>',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">'
    '<html><head></head><body><br></body></html>',
]


@pytest.mark.parametrize("html", CASES)
def test_cases_every_element(html: str) -> None:
    for lx, tr in _pairs(_parse(html)):
        _compare(lx, tr)


@pytest.mark.parametrize("html", XHTML_CASES)
def test_xhtml_doctype_every_element(html: str) -> None:
    root = _parse(html)
    for lx, tr in _pairs(root):
        _compare(lx, tr)


def test_xhtml_mode_off_for_copies() -> None:
    # lxml's copy does not take the doctype along: plain XML mode again
    root = _parse(XHTML_CASES[0])
    lx = copy.deepcopy(root.find(".//body"))
    tr = copy.deepcopy(from_lxml(root).find(".//body"))
    _compare(lx, tr)


def test_empty_text_node_is_content() -> None:
    # el.text = '' makes a text node: <x></x>, not <x/>
    lx = lxml_html.Element("x")
    lx.text = ""
    tr = dom.Element("x")
    tr.text = ""
    _compare(lx, tr)
    assert tostring(tr, encoding="unicode") == "<x></x>"


def test_api_built_tree_with_tails_and_pretty_print() -> None:
    lx = etree.Element("root")
    tr = dom.Element("root")
    for world, sub in ((lx, etree.SubElement), (tr, dom.SubElement)):
        a = sub(world, "div")
        b = sub(a, "p")
        b.text = "x"
        sub(a, "br")
        c = sub(world, "section")
        sub(c, "span").tail = "t"
        sub(world, "hr").tail = "tail"
        d = sub(world, "div")
        sub(sub(sub(d, "ul"), "li"), "a")
    _compare(lx, tr)
    for lx_el, tr_el in zip(lx.iter(), tr.iter()):
        _compare(lx_el, tr_el)


_CHARS = st.sampled_from(list("ab <>&\"'\t\n\r\x01\x0b\x1f\x7f\x85é€😀\u2028;#=/?%") + ["&amp;", "&#0;", "&#x80;", "&lt;"])
_TEXT = st.lists(_CHARS, max_size=8).map("".join)
_TAGS = st.sampled_from(["div", "p", "a", "li", "br", "script", "style", "span", "img", "td", "head", "x-y"])
_ATTRS = st.sampled_from(["href", "src", "name", "title", "checked", "id", "lang", "action", "class"])


@st.composite
def _fragment(draw: Any, depth: int = 0) -> str:
    parts = [draw(_TEXT)]
    for _ in range(draw(st.integers(0, 3 if depth < 3 else 0))):
        tag = draw(_TAGS)
        attrs = ""
        for name in draw(st.lists(_ATTRS, max_size=2, unique=True)):
            if draw(st.booleans()):
                attrs += f' {name}="{draw(_TEXT).replace(chr(34), "&quot;")}"'
            else:
                attrs += f" {name}"
        parts.append(f"<{tag}{attrs}>{draw(_fragment(depth + 1))}</{tag}>{draw(_TEXT)}")
    return "".join(parts)


@settings(max_examples=int(os.environ.get("SERIALIZE_EXAMPLES", "150")), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(_fragment())
def test_random_documents_every_element(body: str) -> None:
    html = f"<html><body><div>{body}</div></body></html>"
    try:
        root = _parse(html)
    except Exception:  # noqa: BLE001 - lxml rejects some inputs; nothing to compare
        return
    for lx, tr in _pairs(root):
        _compare(lx, tr)


DOCUMENTS = [
    "<!DOCTYPE html><html><body>x</body></html>",
    '<!DOCTYPE html PUBLIC "" ""><p>',
    '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd"><html><body>x</body></html>',
    '<!doctype HTML SYSTEM "about:legacy-compat"><p>x',
    "<html><body>x</body></html>t",
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x"><html><head></head></html>',
    "<!DOCTYPE html SYSTEM \"a'b\"><p>x",
]


@pytest.mark.parametrize("html", DOCUMENTS)
def test_whole_document_serialisation(html: str) -> None:
    # tostring(tree): the doctype is written when its name matches the root
    # (exactly for XML, ignoring case for HTML)
    lx = _parse(html)
    tr = from_lxml(lx)
    for kw in [dict(encoding="unicode"), dict(method="html", encoding="unicode"), dict(), dict(encoding="utf-8")]:
        assert tostring(tr.getroottree(), **kw) == etree.tostring(lx.getroottree(), **kw), kw


def test_html_method_cr_depends_on_document_type() -> None:
    # an HTML document (parsed) keeps CR raw in the HTML method; an XML one
    # (a fresh etree.Element) writes &#13;
    lx = _parse("<div title='a&#13;b'>x&#13;y</div>")
    tr = from_lxml(lx)
    assert tostring(tr, method="html") == etree.tostring(lx, method="html") == b'<div title="a\rb">x\ry</div>'
    lx2, tr2 = etree.Element("p"), dom.Element("p")
    lx2.text = tr2.text = "a\rb"
    assert tostring(tr2, method="html") == etree.tostring(lx2, method="html") == b"<p>a&#13;b</p>"
