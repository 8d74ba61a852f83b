"""trafila.justext against the installed jusText 3.0.2 (and trafilatura 2.3.1's use of it).

Named behaviours on small documents, compared live with jusText on the same
lxml-parsed tree bridged into trafila (``harness.lxml_bridge.from_lxml``).
The corpus comparison is tests/test_justext_corpus.py.
"""

from __future__ import annotations

import pytest

justext = pytest.importorskip("justext")
lxml_html = pytest.importorskip("lxml.html")

from harness.lxml_bridge import from_lxml  # noqa: E402
from tests._helpers import trafilatura_html_parser  # noqa: E402
from trafila import justext as tj  # noqa: E402
from trafila.dom import Element  # noqa: E402
from trafila.v1_11_0 import external as t111_external  # noqa: E402
from trafila.v2_3_1 import external as t231_external  # noqa: E402

HTML_PARSER = trafilatura_html_parser()


def parse(markup: str):
    return lxml_html.fromstring(markup, parser=HTML_PARSER)


def paragraph_record(p) -> tuple:
    """Everything jusText computes about a paragraph, comparable with ==."""
    return (
        p.dom_path, p.xpath, tuple(p.text_nodes), p.chars_count_in_links, p.tags_count,
        p.text, len(p), p.words_count, p.links_density(),
        getattr(p, "cf_class", None), p.class_type, getattr(p, "heading", None),
    )


def real_paragraphs(lxml_tree, stoplist, params=(50, 150, 0.1, 0.2, 0.25, True), distance=150):
    from justext.core import ParagraphMaker, classify_paragraphs, revise_paragraph_classification

    paragraphs = ParagraphMaker.make_paragraphs(lxml_tree)
    classify_paragraphs(paragraphs, stoplist, *params)
    revise_paragraph_classification(paragraphs, distance)
    return paragraphs


def port_paragraphs(tree, stoplist, params=(50, 150, 0.1, 0.2, 0.25, True), distance=150):
    paragraphs = tj.ParagraphMaker.make_paragraphs(tree)
    tj.classify_paragraphs(paragraphs, stoplist, *params)
    tj.revise_paragraph_classification(paragraphs, distance)
    return paragraphs


def compare(markup: str, language: str = "English", params=(50, 150, 0.1, 0.2, 0.25, True), distance=150):
    from justext.utils import get_stoplist

    lxml_tree = parse(markup)
    tree = from_lxml(lxml_tree)
    real = [paragraph_record(p) for p in real_paragraphs(lxml_tree, get_stoplist(language), params, distance)]
    port = [paragraph_record(p) for p in port_paragraphs(tree, tj.get_stoplist(language), params, distance)]
    assert port == real
    return port


# -- stoplists ----------------------------------------------------------------

def test_stoplist_names_and_words_equal_justext():
    from justext.utils import get_stoplist, get_stoplists

    assert tj.get_stoplists() == get_stoplists()
    assert len(tj.get_stoplists()) == 100
    for name in sorted(get_stoplists()):
        assert tj.get_stoplist(name) == get_stoplist(name), name


def test_union_is_trafilatura_jt_stoplist():
    from justext.core import define_stoplist

    trafilatura_external = pytest.importorskip("trafilatura.external")
    union = trafilatura_external.JT_STOPLIST or trafilatura_external.jt_stoplist_init()
    assert len(tj.all_stoplists()) == 154484
    assert tj.all_stoplists() == define_stoplist(union)
    assert tj.all_stoplists() is tj.all_stoplists()  # built once


def test_unknown_stoplist_raises_value_error():
    with pytest.raises(ValueError):
        tj.get_stoplist("Klingon")


def test_stoplist_data_file_is_up_to_date():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, str(root / "tools" / "gen_stoplists.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_justext_languages_tables_equal_trafilatura():
    settings = pytest.importorskip("trafilatura.settings")
    assert t231_external.JUSTEXT_LANGUAGES == settings.JUSTEXT_LANGUAGES
    for name in t231_external.JUSTEXT_LANGUAGES.values():
        assert name in tj.get_stoplists()


# -- whitespace ------------------------------------------------------------------

@pytest.mark.parametrize("text", ["a  b", "a\t\nb", " a \r b ", "a\u00a0\u2003b", "a\x1cb", "\n\n", "x\u2028y"])
def test_normalize_whitespace_equals_justext(text):
    from justext.utils import is_blank, normalize_whitespace

    assert tj.normalize_whitespace(text) == normalize_whitespace(text)
    assert tj.is_blank(text) == is_blank(text)


# -- paragraph maker: saxify event order ----------------------------------------

def test_tails_belong_to_the_enclosing_paragraph():
    # the tail of </p> is text of the <div> paragraph that resumes after it
    records = compare("<html><body><div>lead<p>inner <b>bold</b> tail</p>after p<br>x</div>end</body></html>")
    assert [r[5] for r in records] == ["lead", "inner bold tail", "after p x", "end"]


def test_double_br_separates_paragraphs():
    records = compare("<html><body><div>one<br>two<br><br>three<br> <br>four</div></body></html>")
    assert [r[5] for r in records] == ["one two", "three", "four"]


def test_lone_br_paragraph_is_dropped():
    # a paragraph holding only a <br>'s space is falsy (Paragraph.__len__ == 0)
    records = compare("<html><body><p><br></p><p>text</p></body></html>")
    assert [r[5] for r in records] == ["text"]


def test_link_characters_and_headings():
    records = compare(
        "<html><body><h2>Heading <a href='#'>link</a></h2>"
        "<div>Some <a href=x>linked words</a> and more text in a paragraph that goes on.</div>"
        "<select><option>opt one</option></select></body></html>"
    )
    assert records[0][3] == len("link")


def test_root_tail_is_reported():
    lxml_tree = parse("<html><body><div><p>one</p>tail of p</div></body></html>")
    p = lxml_tree.find(".//p")
    from justext.core import ParagraphMaker

    real = [(x.text, x.dom_path) for x in ParagraphMaker.make_paragraphs(p)]
    port = [(x.text, x.dom_path) for x in tj.ParagraphMaker.make_paragraphs(from_lxml(p))]
    assert port == real == [("one", "p"), ("tail of p", "")]


def test_paths_count_same_tag_siblings():
    records = compare("<html><body><div>a</div><div>b</div><p>c</p><div>d<div>e</div></div></body></html>")
    assert [r[1] for r in records] == [
        "/html[1]/body[1]/div[1]", "/html[1]/body[1]/div[2]", "/html[1]/body[1]/p[1]",
        "/html[1]/body[1]/div[3]", "/html[1]/body[1]/div[3]/div[1]",
    ]


@pytest.mark.parametrize("params,distance", [
    ((50, 150, 0.1, 0.2, 0.25, True), 150),  # trafilatura 2.3.1
    ((50, 200, 0.1, 0.2, 0.2, True), 200),  # trafilatura 1.11.0
    ((70, 200, 0.30, 0.32, 0.2, False), 200),  # jusText defaults
])
def test_classification_matches_on_mixed_page(params, distance):
    body = "".join(
        f"<h{1 + i % 3}>Title number {i}</h{1 + i % 3}>"
        f"<p>This is the {i}th paragraph and it is about the things that we want to say to you, "
        f"because there is a lot of it and we would like it to be long enough to count.</p>"
        f"<div><a href='/{i}'>menu</a> | <a href='/{i}b'>other</a></div><p>short {i}</p>"
        for i in range(6)
    )
    compare(f"<html><body>{body}<footer>\u00a9 2024 someone</footer></body></html>", "English", params, distance)


# -- trafilatura's try_justext --------------------------------------------------

def test_try_justext_equals_trafilatura():
    external = pytest.importorskip("trafilatura.external")
    markup = (
        "<html><body><nav><a href='/'>Home</a> <a href='/x'>X</a></nav>"
        + "".join(
            f"<p>Le {i} paragraphe de ce texte est assez long pour être gardé par le classifieur de jusText, "
            f"car il contient des mots vides comme le, la, de, et, que, qui et ainsi de suite.</p>"
            for i in range(4)
        )
        + "</body></html>"
    )
    for language in (None, "fr", "en", "xx"):
        lxml_tree = parse(markup)
        real = [p.text for p in external.try_justext(lxml_tree, None, language)]
        mine = t231_external.try_justext(from_lxml(lxml_tree), None, language)
        assert mine.tag == "body"
        assert [p.text for p in mine] == real
        assert all(p.tag == "p" for p in mine)


def test_try_justext_error_gives_empty_body():
    class Broken:
        tag = "div"
        text = None
        tail = None

        def __iter__(self):
            raise RuntimeError("boom")

    body = t231_external.try_justext(Broken(), None, None)
    assert isinstance(body, Element) and body.tag == "body" and len(body) == 0


def test_define_stoplist_accepts_tuples_and_refuses_lists_like_justext():
    from justext.core import define_stoplist

    words = ("The", "AND", "of")
    assert tj.define_stoplist(words) == define_stoplist(words) == frozenset({"the", "and", "of"})
    assert tj.define_stoplist(words) is tj.define_stoplist(words)
    with pytest.raises(TypeError):
        define_stoplist(list(words))
    with pytest.raises(TypeError):
        tj.define_stoplist(list(words))


# -- trafilatura 1.11.0's try_justext (run in its own interpreter) -------------

def _python_1_11_0():
    """An interpreter with trafilatura 1.11.0: this one when it has it, else
    ``$TRAFILA_PYTHON_1_11_0``; None when there is none."""
    import os
    import sys

    try:
        import trafilatura

        if trafilatura.__version__ == "1.11.0":
            return sys.executable
    except ImportError:
        pass
    return os.environ.get("TRAFILA_PYTHON_1_11_0") or None


_O111_SCRIPT = r"""
import json, sys
from lxml import html
from trafilatura.external import try_justext
from trafilatura.settings import JUSTEXT_LANGUAGES
parser = html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True, remove_pis=True)
out = []
for markup, lang in json.loads(sys.stdin.read()):
    body = try_justext(html.fromstring(markup, parser=parser), None, lang)
    out.append(None if body is None else [p.text for p in body])
print(json.dumps({"results": out, "languages": JUSTEXT_LANGUAGES}))
"""


def test_try_justext_1_11_0_equals_trafilatura_1_11_0():
    import json
    import subprocess

    python = _python_1_11_0()
    if python is None:
        pytest.skip("needs trafilatura 1.11.0 (installed, or an interpreter that has it: set TRAFILA_PYTHON_1_11_0)")
    sentence = ("Det här stycket är tillräckligt långt och innehåller många vanliga ord som och, att, det, "
                "som, en, på, är, av, för, med och så vidare, så att det räknas som text. ")
    markup = ("<html><body><div><a href='/'>Hem</a> | <a href='/b'>B</a></div>"
              + "".join(f"<h2>Rubrik {i}</h2><p>{sentence * (1 + i % 2)}</p><p>kort</p>" for i in range(4))
              + "</body></html>")
    cases = [(markup, lang) for lang in (None, "sv", "no", "cz", "en", "nb")]
    done = subprocess.run([python, "-c", _O111_SCRIPT], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert t111_external.JUSTEXT_LANGUAGES == answer["languages"]
    mine = []
    for markup_, lang in cases:
        body = t111_external.try_justext(from_lxml(parse(markup_)), None, lang)
        mine.append(None if body is None else [p.text for p in body])
    assert mine == answer["results"]
    assert any(result for result in mine)
