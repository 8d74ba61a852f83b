"""The core's tree cleaning and tag conversion in C (accel_convert.pxi:
layout_tables_to_divs, convert_tags_23) against the same stages run over the
same core trees through the Python path (``core_of`` patched to None, so every
step runs as the reference's loops over proxies), and against the reference
model's trees: corpus pages under several option sets and generated trees
(nested lists, FAQ strongs, empty sub/sup, layout tables, refused characters)."""

from __future__ import annotations

import pytest
from tests._helpers import NO_CORE
from hypothesis import given, settings
from hypothesis import strategies as st

import trafila

if "core" not in trafila.engines_built():
    pytest.skip(NO_CORE, allow_module_level=True)

from trafila import _backend, _engine  # noqa: E402
from trafila.treedump import dump_element  # noqa: E402
from trafila.v1_11_0 import htmlprocessing as hp111  # noqa: E402
from trafila.v1_11_0.settings import Extractor as Extractor111  # noqa: E402
from trafila.v2_3_1 import htmlprocessing as hp  # noqa: E402
from trafila.v2_3_1._tree import copy_tree  # noqa: E402
from trafila.v2_3_1.settings import Extractor  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

CORE = _engine.core_module()
BACKEND = _backend.core_backend(CORE)
OPTIONS = {
    "default": Extractor(),
    "formatting": Extractor(formatting=True),
    "links": Extractor(links=True),
    "images": Extractor(images=True),
    "images-links": Extractor(images=True, links=True, formatting=True),
    "no-tables": Extractor(tables=False),
    "recall": Extractor(recall=True, images=True),
}
OPTIONS_111 = {
    "default": Extractor111(),
    "formatting": Extractor111(formatting=True),
    "links": Extractor111(links=True),
    "images-links": Extractor111(images=True, links=True, formatting=True),
    "no-tables": Extractor111(tables=False),
    "recall": Extractor111(recall=True, images=True),
}
URLS = (None, "https://example.org/a/b.html")


def _run(stage, tree, args, python_path, module):
    real = module.core_of
    if python_path:
        module.core_of = lambda el: None
    try:
        return dump_element(stage(copy_tree(tree), *args))
    except ValueError as err:
        return ("ValueError", str(err))
    finally:
        module.core_of = real


def three(stage, html, args, module=hp):
    """(reference model, core tree through Python, core tree through C) dumps of
    ``stage(tree, *args)`` (``module``: the release's htmlprocessing, whose core_of is patched)."""
    with _backend.use(_backend.reference()):
        ref = _run(stage, trafila.html.fromstring(html), args, False, module)
    with _backend.use(BACKEND):
        tree = CORE.dom.fromstring(html)
        slow = _run(stage, tree, args, True, module)
        fast = _run(stage, tree, args, False, module)
    return ref, slow, fast


def _cleaning_then_conversion(tree, options, url):
    tree = hp.tree_cleaning(tree, options)
    return hp.convert_tags(tree, options, url)


def _cleaning_then_conversion_111(tree, options, url):
    tree = hp111.tree_cleaning(tree, options)
    return hp111.convert_tags(tree, options, url)


def check(html, names=OPTIONS, urls=URLS):
    for name in names:
        options = OPTIONS[name]
        for url in urls:
            ref, slow, fast = three(hp.convert_tags, html, (options, url))
            assert ref == slow == fast, (name, url)
        ref, slow, fast = three(_cleaning_then_conversion, html, (options, urls[-1]))
        assert ref == slow == fast, name
        if name in OPTIONS_111:
            options = OPTIONS_111[name]
            ref, slow, fast = three(hp111.convert_tags, html, (options, urls[-1]), hp111)
            assert ref == slow == fast, ("1.11.0", name)
            ref, slow, fast = three(_cleaning_then_conversion_111, html, (options, urls[-1]), hp111)
            assert ref == slow == fast, ("1.11.0", name)


def test_the_core_path_is_taken(monkeypatch):
    calls = []

    class Spy:
        def __getattr__(self, name):
            calls.append(name)
            return getattr(CORE, name)

    monkeypatch.setattr(hp, "core_of", lambda el: Spy() if _backend.core_of(el) is not None else None)
    with _backend.use(BACKEND):
        tree = CORE.dom.fromstring("<html><body><figure><table><tr><td>x</td></tr></table></figure>"
                                   "<ul><li>a</li></ul><p>t</p></body></html>")
        hp.convert_tags(hp.tree_cleaning(tree, OPTIONS["default"]), OPTIONS["default"])
    assert "convert_tags_23" in calls and "layout_tables_to_divs" in calls


CASES = [
    "<html><body><div><a href='x'>in div</a></div><a href='/y'>top</a><p>t <a>p</a></p></body></html>",
    "<html><body><table><tr><td><a href='#'>cell</a></td></tr></table><span><a href='z'>s</a></span></body></html>",
    "<html><body><ul><li>a<ul><li>b</li></ul></li></ul><dl><dt>t</dt><dd>d1</dd><dt>u</dt><dd>d2"
    "<dl><dt>in</dt><dd>n</dd></dl></dd></dl><ol rend='x'><li>o</li></ol></body></html>",
    "<html><body><h1 class='a' id='b'>h</h1><h6>s</h6><br/>x<hr/><blockquote>q</blockquote><q>i</q>"
    "<del>d</del><s rend='r'>s</s><strike>k</strike></body></html>",
    "<html><body><details><summary>s</summary><p>x<summary>t</summary></p></details><pre>a{b</pre>"
    "<pre><span>only</span></pre><pre><code><span class='hljs-keyword'>if</span></code></pre></body></html>",
    "<html><body><p><strong class='x schema-faq-question y'>Q?</strong><strong class=''>n</strong>"
    "<strong class>v</strong><b>b</b><em a='1'>e</em><i>i</i><u>u</u><kbd>k</kbd><samp>s</samp><tt>t</tt>"
    "<var>v</var></p></body></html>",
    "<html><body><p>a<sub></sub>b<sup>x</sup>c<sub><sup></sup></sub>d<sup><i></i></sup>e</p><sub></sub></body></html>",
    "<html><body><a href='u'><img src='i.png'>text</a><a href='v'><img src='j.png'></a><p><img src='k'></p>"
    "<figure><img src='f'><figcaption>c</figcaption></figure></body></html>",
    "<html><body><figure><div><table><tr><td>x</td></tr></table></div></figure><table role='presentation'><tr>"
    "<td>p</td></tr></table><table role='none'>n</table><table role='None'>m</table><table role>r</table>"
    "<figure><table role='none'><tr><td>y</td></tr></table></figure><p>p</p></body></html>",
    "<html><body><form><p>long text long text long text</p></form><p>x</p><math alttext='x+1'></math>"
    "<ul><li><a href='javascript:void(0)'>j</a></li><li><a href=' '>s</a></li></ul></body></html>",
    "<html><body><p>a&#1;<sub></sub>&#11;b</p><p><sup></sup>&#xfffe;</p><p>z</p></body></html>",
    "<html><body><p>&#1;<sub></sub>b</p><p>z</p></body></html>",
    "<html><body><a href='x'>root a</a></body></html>",
    "<html><body><form>ab<form>cd</form>é</form>x<form>ééé</form>y<p>abcd</p></body></html>",
    "<html><body><form>abcd</form><p>abcd</p></body></html>",
    "<html><body><form>abcde</form><p>abcd</p><form></form></body></html>",
    "<html><body><form><p>&#1;</p></form>&#1;<form>x</form>&#1;z</body></html>",
    "<form>only</form>",
    "<a href='x'>bare</a>",
    "<ul><li>bare list</li></ul>",
    # links on, no base URL (convert_links in C): a refused character in any href leaves it all to Python
    "<html><body><p><a href='ok'>ok</a><a href='&#1;x'>bad</a></p></body></html>",
    "<html><body><p><a href>valueless</a><ref class='c' target='t'>r</ref><a id='i' href='h' title='t'>x"
    "<a href='n'>nested</a></a><a title='no href'>t</a><a href=''>empty</a></p></body></html>",
]


@pytest.mark.parametrize("html", CASES)
def test_cases(html):
    check(html)


# a form's share of the text is counted in code points eight bytes at a time: forms of 1- to
# 4-byte characters across word edges, at the tie (deleted) and one character short of it (div)
@pytest.mark.parametrize("char", ["a", "\u00e9", "\u20ac", "\U0001f600"])
@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 15, 16, 17, 23])
@pytest.mark.parametrize("rest", [0, -1])
def test_form_share_in_code_points(char, length, rest):
    other = "b" * max(length + rest, 0)
    check(f"<html><body><form>{char * length}</form><p>{other}</p></body></html>", names=("default",), urls=URLS[1:])


TAGS = ["a", "div", "p", "li", "ul", "ol", "dl", "dd", "dt", "table", "td", "figure", "strong", "b", "em", "sub",
        "sup", "h2", "br", "pre", "q", "blockquote", "del", "s", "details", "summary", "img", "span", "ref", "code",
        "nav", "aside", "footer", "script", "form", "time", "font", "small"]
ATTRS = ["", " href='h'", " href=''", " href", " href='&#1;'", " title='t' href='u'", " class='schema-faq-question'", " role='presentation'", " role='none'",
         " rend='r'", " class='hljs-string'", " src='i'"]
TEXTS = st.lists(st.sampled_from(["", "a", " ", "{", "\n    ", "é", "&#1;"]), max_size=3).map("".join)


@st.composite
def trees(draw, depth=0):
    n = draw(st.integers(0, 3 if depth < 3 else 0))
    out = []
    for _ in range(n):
        tag = draw(st.sampled_from(TAGS))
        attr = draw(st.sampled_from(ATTRS))
        inner = draw(trees(depth + 1))
        out.append(f"<{tag}{attr}>{draw(TEXTS)}{inner}</{tag}>{draw(TEXTS)}")
    return "".join(out)


@settings(max_examples=150, deadline=None)
@given(trees())
def test_generated(body):
    check(f"<html><body>{body}<p>end</p></body></html>", names=("default", "formatting", "images-links", "no-tables"),
          urls=URLS[1:])


@settings(max_examples=100, deadline=None)
@given(trees())
def test_generated_links_without_base_url(body):
    check(f"<html><body>{body}<p>end</p></body></html>", names=("links", "images-links"), urls=(None,))


@needs_corpora
def test_corpus_pages():
    compared = 0
    for _bundle, page in sample_pages(("cleanportaleval", "commoncrawl"), 2):
        if "str" not in page.forms():
            continue
        html = page.input("str")
        for name in ("default", "formatting", "images-links", "no-tables"):
            ref, slow, fast = three(_cleaning_then_conversion, html, (OPTIONS[name], URLS[1]))
            assert ref == slow == fast, (page.id, name)
            ref, slow, fast = three(_cleaning_then_conversion_111, html, (OPTIONS_111[name], URLS[1]), hp111)
            assert ref == slow == fast, (page.id, "1.11.0", name)
            compared += 1
    assert compared >= 100
