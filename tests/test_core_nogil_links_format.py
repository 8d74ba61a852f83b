"""Links, formatting and markdown in 2.3.1's C sequence without the GIL
(cython_core/nogil_sequence.pxi's ``sequence_231``, nogil_prepare.pxi's convert_link,
nogil_extract.pxi / nogil_tables.pxi's ref and hi handling, nogil_output.pxi's txt and markdown
output), each against the reference on hand-made pages:

* links: relative and absolute targets, a link without href, brackets and parentheses in the
  text and the target, links nested in hi, lists, tables, quotes and headings; with a base URL
  the page is handed back at the conversion (courlan's urljoin stays in Python), counted;
* formatting: b/i/u/strong/em/code/sup/sub/del/kbd, nested, adjacent, inline-syntax characters
  in the text, headings, ordered and nested lists, code blocks;
* markdown (``output_format="markdown"``) on the same pages;
* images (``include_images``): sources relative, absolute, protocol-relative, lazy (data-src),
  without an image extension, inside links, lists and tables, image-only blocks met again by
  recover_wild_text; with a URL (handle_image's urljoin) the page goes back to Python, counted.

Each page is checked three ways: ``sequence_231``'s four results equal the reference sequence's
(the bodies' structural dumps, both texts); ``extract()`` through the C sequence equals the
installed trafilatura 2.3.1's (the oracle) and the core with the C sequence switched off; the C
markdown/txt output (``nogil_xmltotxt`` / ``nogil_determine_returnstring`` with ``formatting``)
equals the reference's ``xmltotxt`` on the bodies the sequence made. A page the C answers must
be counted as done by ``sequence_stats``; the pages here are all answered (none handed back)
except the base-URL ones.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import pytest

core = pytest.importorskip("trafila._core")
trafilatura = pytest.importorskip("trafilatura")

import trafila  # noqa: E402
from trafila import _backend  # noqa: E402
from trafila.v2_3_1 import core as seq  # noqa: E402
from trafila.v2_3_1 import xml as xml231  # noqa: E402
from trafila.v2_3_1.settings import Extractor  # noqa: E402

from ._helpers import core_switched_off  # noqa: E402
from .test_core_nogil_sequence import _dumped, _python_sequence, _tree  # noqa: E402

CORE = _backend.core_backend(core)

FILLER = " ".join(f"word{k}" for k in range(45))


def _page(inner: str) -> str:
    "An article the main extractor takes, with ``inner`` among plain paragraphs."
    paras = "".join(f"<p>Paragraph {k} {FILLER}.</p>" for k in range(3))
    return f"<html><head><title>t</title></head><body><article><h1>Title here</h1>{paras}{inner}</article></body></html>"


LINK_PAGES = [
    _page('<p>See <a href="/docs/page.html">the relative docs</a> and <a href="https://example.org/a?b=1#c">'
          "an absolute one</a>, then more text " + FILLER + ".</p>"),
    _page('<p>A <a>link without target</a> and <a href="">an empty href</a> and <a href="x.html"> spaced </a> end '
          + FILLER + ".</p>"),
    _page('<p>Brackets <a href="https://example.org/a b(c)">text [with] brackets</a> and '
          '<a href="https://example.org/<x>">angle</a> ' + FILLER + ".</p>"),
    _page('<p>Nested <b><a href="/bold">bold link</a></b> and <a href="/it"><i>italic inside</i></a> and '
          '<a href="/mix">mixed <em>emphasis</em> text</a> ' + FILLER + ".</p>"),
    _page('<ul><li><a href="/one">first item link</a> after</li><li>second <a href="/two">link</a></li>'
          '<li><a href="/three">only a link</a></li></ul><ol><li>n <a href="/n">num</a></li></ol>'),
    _page('<table><tr><th><a href="/h">head link</a></th><td>cell <a href="/c">cell link</a> tail</td></tr>'
          '<tr><td><a href="/d"><b>bold cell link</b></a></td><td>plain</td></tr></table>'),
    _page('<blockquote><p>Quoted <a href="/q">quote link</a> text</p></blockquote>'
          '<h2><a href="/head">A heading link</a></h2><p>after ' + FILLER + "</p>"),
    _page('<div>Loose text <a href="/loose">loose link</a> in a div ' + FILLER + "</div>"),
    # a short page: the baseline rescue and the fallbacks meet the links
    '<html><body><div><a href="/only">just a link</a> and a few words</div></body></html>',
]

FORMAT_PAGES = [
    _page("<p>Some <b>bold</b>, <i>italic</i>, <u>underlined</u>, <strong>strong</strong>, <em>emphasised</em>, "
          "<code>code()</code>, x<sup>2</sup> and H<sub>2</sub>O, <del>gone</del>, <kbd>Ctrl</kbd> " + FILLER + ".</p>"),
    _page("<p>Nested <b>bold <i>and italic</i> back</b> and <em><strong>both</strong></em> and "
          "<b>adjacent</b><b>bold</b> and <i>a</i> <i>b</i> " + FILLER + ".</p>"),
    _page("<p>Specials * star _ under ` tick ~ tilde [br] &lt;tag&gt; # hash " + FILLER + ".</p>"
          "<p>1. not a list and - not a bullet " + FILLER + "</p>"),
    _page("<h2>Second level</h2><h3>Third <b>bold</b> level</h3><p>" + FILLER + "</p>"
          "<ol><li>one</li><li>two <b>bold</b><ul><li>nested</li></ul></li></ol>"),
    _page("<pre><code>def f(x):\n    return {x: 1}\n</code></pre><p>after the <code>inline `tick`</code> code "
          + FILLER + "</p>"),
    _page('<p>Formatted <b><a href="/fl">bold link</a></b> and <a href="/lf"><b>link bold</b></a> '
          + FILLER + ".</p><table><tr><td><b>bold</b> cell</td><td><i>it</i></td></tr></table>"),
    _page("<p>Empty <b></b> and <b> </b> formatting and <i>\u00e9t\u00e9</i> " + FILLER + ".</p>"),
]

IMAGE_PAGES = [
    _page('<p>An image <img src="/img/a.jpg" alt="alt a" title="title a"> inside text ' + FILLER + ".</p>"
          '<figure><img src="https://example.org/b.png" alt="b"><figcaption>caption b</figcaption></figure>'
          '<p><img src="//cdn.example.org/c.webp"> protocol-relative and <img data-src="/lazy/d.gif" src="x.svg">'
          ' lazy and <img src="noext"> none ' + FILLER + "</p>"),
    _page('<p>Linked <a href="/big"><img src="/small.jpg" alt="thumb"></a> image and '
          '<a href="/both">text <img src="/in-link.png"></a> ' + FILLER + ".</p>"
          '<ul><li><img src="/li.jpg"> item image</li></ul><table><tr><td><img src="/td.jpg" alt="cell"></td>'
          "<td>text</td></tr></table>"),
    # images alone in blocks: recover_wild_text's image-only test, the same source twice
    '<html><body><article><p>' + FILLER + '</p><div><img src="/same.jpg"></div><p>' + FILLER
    + ' again</p></article><div><img src="/same.jpg"></div><div><img src="/other.jpg"></div></body></html>',
    '<html><body><div><img src="/only.jpg" alt="just an image"> and a few words</div></body></html>',
]

LINKS = dict(include_links=True)
FORMATTING = dict(include_formatting=True)
MARKDOWN = dict(output_format="markdown")
SETS: Dict[str, Dict[str, Any]] = {
    "links": LINKS, "formatting": FORMATTING, "markdown": MARKDOWN,
    "links-formatting": dict(include_links=True, include_formatting=True),
    "markdown-links": dict(output_format="markdown", include_links=True),
    "fast-links": dict(fast=True, include_links=True),
    "fast-formatting": dict(fast=True, include_formatting=True),
    "recall-markdown": dict(favor_recall=True, output_format="markdown"),
}
IMAGE_SETS: Dict[str, Dict[str, Any]] = {
    "images": dict(include_images=True), "images-links": dict(include_images=True, include_links=True),
    "markdown-images": dict(output_format="markdown", include_images=True),
    "fast-images": dict(fast=True, include_images=True), "recall-images": dict(favor_recall=True, include_images=True),
}


def _options(kwargs: Dict[str, Any], url: Optional[str] = None) -> Extractor:
    return Extractor(output_format=kwargs.get("output_format", "txt"), fast=kwargs.get("fast", False),
                     recall=kwargs.get("favor_recall", False), formatting=kwargs.get("include_formatting"),
                     links=kwargs.get("include_links", False), images=kwargs.get("include_images", False), url=url)


def _check_sequence(html: str, kwargs: Dict[str, Any]) -> Any:
    """sequence_231's results against the reference sequence's on the same page; the C must
    answer."""
    options = _options(kwargs)
    tree = _tree(html)
    core.sequence_stats(reset=True)
    got = _backend.run_with(CORE, lambda: core.sequence_231(tree, options))
    stats = core.sequence_stats(reset=True)
    assert got is not NotImplemented, stats
    assert stats["done"] == 1
    want = _python_sequence(_tree(html), options)
    assert got[1] == want[1], "temp_text"
    assert got[3] == want[3], "temp_comments"
    assert _dumped(got[0]) == _dumped(want[0]), "postbody"
    assert _dumped(got[2]) == _dumped(want[2]), "commentsbody"
    return got, options


def _core_extract(html: str, native: bool, **kwargs: Any) -> Optional[str]:
    saved = seq.NATIVE_SEQUENCE
    seq.NATIVE_SEQUENCE = native
    try:
        return trafila.engine("core").extract(html, **kwargs)  # type: ignore[no-any-return]
    finally:
        seq.NATIVE_SEQUENCE = saved


PAGES = [(f"links-{k}", p) for k, p in enumerate(LINK_PAGES)] + [(f"fmt-{k}", p) for k, p in enumerate(FORMAT_PAGES)]


@pytest.mark.parametrize("name", sorted(SETS))
@pytest.mark.parametrize("label,html", PAGES, ids=[p[0] for p in PAGES])
def test_sequence_and_extract(label: str, html: str, name: str) -> None:
    kwargs = SETS[name]
    _check_sequence(html, kwargs)
    want = trafilatura.extract(html, **kwargs)
    core.sequence_stats(reset=True)
    got = _core_extract(html, True, **kwargs)
    stats = core.sequence_stats(reset=True)
    assert stats["done"] == 1 and not any(stats["need_python"].values()), stats
    assert got == want
    assert _core_extract(html, False, **kwargs) == want


IMAGES = [(f"img-{k}", p) for k, p in enumerate(IMAGE_PAGES)]


@pytest.mark.parametrize("name", sorted(IMAGE_SETS))
@pytest.mark.parametrize("label,html", IMAGES + PAGES[:3], ids=[p[0] for p in IMAGES + PAGES[:3]])
def test_images_sequence_and_extract(label: str, html: str, name: str) -> None:
    """include_images: the C sequence's results are the reference sequence's, and extract() is
    trafilatura's (the C output hands a tree with a graphic to the Python walk)."""
    kwargs = IMAGE_SETS[name]
    _check_sequence(html, kwargs)
    want = trafilatura.extract(html, **kwargs)
    core.sequence_stats(reset=True)
    got = _core_extract(html, True, **kwargs)
    stats = core.sequence_stats(reset=True)
    assert stats["done"] == 1 and not any(stats["need_python"].values()), stats
    assert got == want
    assert _core_extract(html, False, **kwargs) == want


@pytest.mark.parametrize("url", ["", "https://example.org/dir/page.html"])
def test_images_with_url_fall_back(url: str) -> None:
    "handle_image joins sources to options.url (urljoin): such pages go to Python, counted."
    html = IMAGE_PAGES[0]
    core.sequence_stats(reset=True)
    got = _core_extract(html, True, include_images=True, url=url)
    stats = core.sequence_stats(reset=True)
    assert stats["done"] == 0 and stats["need_python"]["conversion"] == 1, stats
    assert got == trafilatura.extract(html, include_images=True, url=url)


@pytest.mark.parametrize("name", ["links", "markdown", "formatting", "markdown-links"])
@pytest.mark.parametrize("label,html", PAGES, ids=[p[0] for p in PAGES])
def test_c_output(label: str, html: str, name: str) -> None:
    "The C txt/markdown output of the sequence's bodies is the reference's xmltotxt of them."
    kwargs = SETS[name]
    got, options = _check_sequence(html, kwargs)
    body, comments = got[0], got[2]
    with core_switched_off([xml231]):
        want_body = xml231.xmltotxt(body, options.formatting)
        want_comments = xml231.xmltotxt(comments, options.formatting)
    text, why = core.nogil_xmltotxt(body, with_cause=True, formatting=options.formatting)
    assert why == "" and text == want_body
    ret, why = core.nogil_determine_returnstring(body, comments, with_cause=True, formatting=options.formatting)
    assert why == "" and ret.decode() == f"{want_body}\n{want_comments}".strip()


def test_formatted_output_needs_python_where_python_renders() -> None:
    "A graphic or a math opening in a formatted tree: the C output hands back, with its cause."
    from trafila.v2_3_1.settings import Document  # noqa: F401

    body = _backend.run_with(CORE, lambda: _tree("<html><body><p>x</p></body></html>"))
    el = body.find(".//p")
    el.text = r"a \(x\) b"
    assert core.nogil_xmltotxt(el, with_cause=True, formatting=True) == (None, "fmt-math")
    assert core.nogil_xmltotxt(el, with_cause=True, formatting=False)[1] == ""


@pytest.mark.parametrize("url", ["https://example.org/dir/page.html", "http://h.example/"])
@pytest.mark.parametrize("html", LINK_PAGES[:4])
def test_base_url_links_fall_back(html: str, url: str) -> None:
    """With a URL that has a base URL, convert_link resolves targets with courlan's urljoin: the
    page goes back to Python at the conversion (counted), and extract() is trafilatura's."""
    core.sequence_stats(reset=True)
    got = _core_extract(html, True, include_links=True, url=url)
    stats = core.sequence_stats(reset=True)
    assert stats["done"] == 0 and stats["need_python"]["conversion"] == 1, stats
    assert got == trafilatura.extract(html, include_links=True, url=url)


@pytest.mark.parametrize("html", LINK_PAGES[:2])
def test_url_without_base_runs_in_c(html: str) -> None:
    "A URL with no base URL (safe_base_url gives ''): the links stay as they are, in C."
    _check_sequence(html, LINKS)
    core.sequence_stats(reset=True)
    got = _core_extract(html, True, include_links=True, url="not a url")
    stats = core.sequence_stats(reset=True)
    assert stats["done"] == 1, stats
    assert got == trafilatura.extract(html, include_links=True, url="not a url")
