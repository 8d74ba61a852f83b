"""trafila.readability_2_3_1 against trafilatura 2.3.1's readability fork, named behaviours.

Each document is parsed once with lxml (trafilatura's parser settings), bridged
into trafila (``harness.lxml_bridge.from_lxml``), and both sides run on their own
copy; the element the fork serialises is captured and compared by canonical
dump.  The corpus comparison is tests/test_readability_corpus.py.
"""

from __future__ import annotations

import pytest

pytest.importorskip("trafilatura")
lxml_html = pytest.importorskip("lxml.html")

from harness.lxml_bridge import from_lxml  # noqa: E402
from harness.treedump import dump_element  # noqa: E402
from tests._helpers import real_summary, trafilatura_html_parser  # noqa: E402
from trafila import readability_2_3_1 as rd  # noqa: E402

HTML_PARSER = trafilatura_html_parser()

LONG = "This sentence is long enough, with commas, to be counted as a real paragraph of text. "


def parse(markup: str):
    return lxml_html.fromstring(markup, parser=HTML_PARSER)


def both(markup: str, min_text_length: int = 25):
    """(port dump, fork dump) of the summary element, or the two exceptions' types."""
    lxml_tree = parse(markup)
    tree = from_lxml(lxml_tree)
    try:
        real = real_summary(lxml_tree, min_text_length)[0]
    except Exception as err:
        real = type(err)
    try:
        port = dump_element(rd.Document(tree, min_text_length=min_text_length).summary_tree())
    except Exception as err:
        port = type(err)
    return port, real


def same(markup: str, min_text_length: int = 25):
    port, real = both(markup, min_text_length)
    assert port == real
    return port


def texts(dump) -> str:
    tag, attrs, text, tail, children = dump
    return (text or "") + "".join(texts(c) for c in children) + (tail or "")


def test_best_candidate_and_siblings_go_into_a_new_div():
    dump = same(
        "<html><body><div id='nav'><a href='/'>home</a></div>"
        f"<div class='article'><p>{LONG * 3}</p><p>{LONG * 2}</p></div>"
        "<p>A sibling with a sentence. Short.</p><div class='comment'>no</div></body></html>"
    )
    assert dump[0] == "div"


def test_misused_divs_become_paragraphs_and_loose_text_is_wrapped():
    same(
        "<html><body><div class='content'>"
        f"<div>{LONG}</div><div>lead text<div>{LONG}</div>tail text<br>  <br>after br<img src=x>img tail</div>"
        f"<div><a href='#'>only a link</a></div><div><a href='#'>link</a> loose {LONG}</div>"
        f"<div><pre>{LONG}</pre><picture></picture>tail</div>"
        "</div></body></html>"
    )


def test_unlikely_candidates_are_dropped_with_their_tails_kept():
    same(
        "<html><body><div class='main'>"
        f"<p>{LONG * 2}</p><div class='sidebar'>side</div>kept tail<p>{LONG}</p>"
        "<div id='footer-and-more'>x</div><div class='menu article'>stays</div>"
        "</div></body></html>"
    )


def test_headers_forms_iframes_in_sanitize():
    same(
        "<html><body><div class='post'>"
        f"<h2 class='meta'>bad header</h2><h3><a href='#'>all link</a></h3><h2>good header</h2><p>{LONG * 3}</p>"
        "<form><input></form><textarea>t</textarea>"
        "<iframe src='https://www.youtube.com/embed/x'></iframe><iframe src='https://example.com'></iframe>"
        f"<p>{LONG}</p></div></body></html>"
    )


def test_conditional_cleaning_keeps_empty_element_between_long_neighbours():
    same(
        "<html><body><div class='content'>"
        f"<p>{LONG * 8}</p><div><img src=a></div><p>{LONG * 8}</p>"
        f"<div><span> </span></div><p>{LONG}</p>"
        "<ul><li>one</li><li>two</li></ul><table><tr><td>cell, cell</td></tr></table>"
        "</div></body></html>"
    )


def test_no_candidate_returns_body_with_its_tail():
    dump = same("<html><body><span>tiny</span></body>\n</html>")
    assert dump[0] == "body"


def test_parentless_root_dropped_in_sanitize_raises_on_both_sides():
    # trafilatura hands readability a copy of the tree: a parentless root.  For a
    # fragment page lxml.html.fromstring's root is the <body> renamed <div>; with no
    # candidate it is the article, and conditional cleaning then fails the
    # drop_tree() assert on it
    import copy

    lxml_tree = copy.copy(parse("<div><span>a</span></div><div>b</div>"))
    assert lxml_tree.tag == "div" and lxml_tree.getparent() is None
    tree = copy.copy(from_lxml(lxml_tree))
    with pytest.raises(AssertionError):
        real_summary(lxml_tree)
    with pytest.raises(AssertionError):
        rd.Document(tree).summary_tree()


def test_attached_fromstring_root_is_not_parentless():
    # without the copy, lxml.html.fromstring's single child is still inside <body>
    port, real = both("<div><span>a</span><span>b</span></div>")
    assert port == real and port[0] == "div"


def test_dropped_output_div_is_still_serialised():
    # the new <div> sits in a fragment <body> (lxml.html.fragment_fromstring), so
    # sanitize may drop_tree() it without failing; summary() still serialises it
    dump = same("<html><body><div><p>twenty-six characters long</p></div></body></html>")
    assert dump[0] == "div"


def test_min_text_length_parameter():
    markup = f"<html><body><div class='a'><p>{'word ' * 8}</p></div><div class='b'><p>{LONG}</p></div></body></html>"
    for length in (10, 25, 60, 200):
        same(markup, length)


def test_fragment_helper_has_body_and_html_ancestors():
    el = rd._fragment("div")
    assert el.getparent().tag == "body" and el.getparent().getparent().tag == "html"
    assert el.getparent().getparent().getparent() is None


def test_trim_and_text_length():
    from trafilatura.readability_lxml import text_length

    lxml_tree = parse("<html><body><div> a \n b <b>c\u00a0</b> d </div></body></html>")
    div = lxml_tree.find(".//div")
    assert rd.text_length(from_lxml(div)) == text_length(div) == len("a b c d")


@pytest.mark.parametrize("markup", [
    "<html><body>" + "".join(f"<p>{LONG * 3}</p>" for _ in range(3)) + "</body></html>",
    "<html><body><div>" + "<br>".join(LONG * 3 for _ in range(3)) + "</div></body></html>",
    "<html><body><div class='sidebar'>" + "".join(f"<p>{LONG * 3}</p>" for _ in range(3)) + "</div></body></html>",
    "<html><body><ul><li><p>" + LONG * 4 + "</p></li></ul><p hidden>" + LONG * 4 + "</p></body></html>",
    "<html><body><p style='display: none'>" + LONG * 5 + "</p></body></html>",
])
def test_is_probably_readerable_equals_fork(markup):
    from trafilatura.readability_lxml import is_probably_readerable

    lxml_tree = parse(markup)
    assert rd.is_probably_readerable(from_lxml(lxml_tree)) == is_probably_readerable(lxml_tree)


ROUND_TRIP_DOCS = [
    "<html><body><div class='article'><p>" + LONG * 3 + "</p><p>a &amp; b &lt;c&gt; \"q\" it's</p>"
    "<iframe src='https://vimeo.com/1'></iframe><br><img src='x.png' alt='a > b'></div></body>\n</html>",
    "<html><body><span>tiny</span></body>\n</html>",
    "<html><body><table><tr><td>" + LONG * 3 + "</td></tr></table><ul><li>x</li></ul></body></html>",
]


@pytest.mark.parametrize("markup", ROUND_TRIP_DOCS)
def test_summary_string_and_reparse_equal_fork(markup):
    from trafilatura.external import try_readability
    from trafilatura.readability_lxml import Document as ForkDocument
    from trafilatura.utils import fromstring_bytes

    real_markup = ForkDocument(parse(markup), min_text_length=25).summary()
    port_markup = rd.Document(from_lxml(parse(markup)), min_text_length=25).summary()
    assert port_markup == real_markup
    assert dump_element(rd.reparse_summary(port_markup)) == dump_element(fromstring_bytes(real_markup))
    assert dump_element(rd.try_readability(from_lxml(parse(markup)))) == dump_element(try_readability(parse(markup)))


def test_try_readability_falls_back_to_an_empty_html_element():
    import copy

    from trafilatura.external import try_readability

    lxml_tree = copy.copy(parse("<div><span>a</span></div><div>b</div>"))  # parentless root: assert
    real = try_readability(lxml_tree)
    port = rd.try_readability(copy.copy(from_lxml(parse("<div><span>a</span></div><div>b</div>"))))
    assert dump_element(port) == dump_element(real)
    assert port.tag == "HtmlElement" and len(port) == 0 and port.text is None
