"""The hand-translated XPaths of trafila.v2_3_1.xpaths against lxml's XPath.

Every selector runs with every element of each tree as context; the node list
it returns must be the one lxml's XPath returns (same nodes, same order).
Trees: a sample of corpus pages parsed by lxml with trafilatura's parser, both
raw and after trafilatura's own tree_cleaning + convert_tags (the converted
vocabulary: list, item, head, quote, ref, lb...), plus synthetic pages that
exercise the attribute rules (``@id|@class`` order, missing attributes, case).
The pair table and the check are harness.selectors', which runs them on every
element of every corpus page (``python -m harness selectors``, reports/selectors.md).
"""

from __future__ import annotations

import random
from typing import Any, List

import pytest
from tests._helpers import NO_CORPORA

lxml_html = pytest.importorskip("lxml.html")
trafilatura = pytest.importorskip("trafilatura")

from trafilatura.utils import HTML_PARSER  # noqa: E402

from harness import selectors  # noqa: E402

PAIRS = selectors.pairs()


def _compare_tree(lx_root: Any, max_contexts: int = 400) -> List[str]:
    "Every pair on every element (up to max_contexts, spread over the tree): the harness's check."
    return selectors.compare_tree(lx_root, PAIRS, max_contexts=max_contexts)


_converted = selectors.converted


SYNTHETIC = [
    # attribute order: @id|@class takes the first one in source order
    '<html><body><div class="comment-list" id="x"><p>a</p></div><div id="x" class="comment-list"><p>b</p></div>'
    '<div id="cookie" class="y">c</div><div class="y" id="cookie">d</div><section class="reply-x" id="q">e</section>'
    '<span id="hidden-1" style="x">f</span><span style="hidden" id="z">g</span><p class="bottom" id="k">h</p>'
    '<p id="k" class="a bottom">i</p><div class="link">j</div><div class="permalink">k</div></body></html>',
    # missing / empty attributes, case folding of translate()
    '<html><body><main><div>x</div></main><article class="">a</article><div id="Main-Content">b</div>'
    '<div class="Page-Content">c</div><div id="TEASER">d</div><div role="Navigation">e</div>'
    '<div data-lp-replacement-content="">f</div><div aria-hidden="true">g</div><div style="display: none">h</div>'
    '<section class="main">i</section><div class="FullText">j</div><div class="article ">k</div></body></html>',
    # union order: (...)[1]|(.//main)[1], per-parent [1]
    '<html><body><div><main>m</main><div class="main">n</div></div><div class="post">1</div><div class="post">2</div>'
    '<section><div class="entry">3</div><div class="entry">4</div></section></body></html>',
    '<html><body><div class="main"><main>m</main></div></body></html>',
    # comments, raw-tree prune, lists
    '<html><body><div class="infinite-scroll"><h1>t</h1></div><div class="infinite-scroll">x</div>'
    '<aside class="mvp-post-add-box"><h1>t</h1></aside><ul id="comments">c</ul><ol class="commentary">d</ol>'
    '<ul class="comments-x" id="commentary">e</ul><details id="Comment">f</details><div id="disqus_thread">g</div>'
    '<div id="respond">r</div><cite>c</cite><quote>q</quote><div class="elementor-share-buttons">s</div>'
    '<div class="cookie-banner">k</div><div id="CookieBot">k</div><div id="a" class="site-footer">f</div>'
    '<div class="x" id="footer">f</div><template>t</template><math><annotation encoding="application/x-tex">x</annotation></math>'
    '<pre><span class="hljs-x">c</span></pre><div class="w3-code">w</div><table><tr><td><p>p<b>q</b></p></td></tr></table>'
    "</body></html>",
]


def _corpus_sample(count: int) -> List[str]:
    from harness.corpora import bundle_paths, iter_pages

    pages = []
    for path in bundle_paths(["goose3", "newspaper4k", "commoncrawl", "go-trafilatura", "trafilatura"]):
        if not path.exists():
            continue
        for page in iter_pages(path):
            if page.html is not None:
                pages.append(page.html)
    rng = random.Random(231)
    rng.shuffle(pages)
    return pages[:count]


@pytest.mark.parametrize("html", SYNTHETIC, ids=[f"synthetic{i}" for i in range(len(SYNTHETIC))])
def test_selectors_synthetic(html: str) -> None:
    root = lxml_html.fromstring(html, parser=HTML_PARSER)
    assert _compare_tree(root, max_contexts=10_000) == []
    assert _compare_tree(_converted(root)) == []


def test_selectors_corpus_sample() -> None:
    pages = _corpus_sample(12)
    if not pages:
        pytest.skip(NO_CORPORA)
    problems = []
    for html in pages:
        root = lxml_html.fromstring(html.encode("utf-8", "surrogatepass"), parser=HTML_PARSER)
        problems += _compare_tree(root)
        problems += _compare_tree(_converted(root))
        problems += _compare_tree(_converted(root, recall=True, tables=False))
    assert problems == []


VOCAB_CLASS = [
    "comment-list", "comments", "Comments", "article-comments", "post-comments", "commentary", "reply-x",
    "hidden", " hidden", "hide-x", "teaser", "Teaser", "caption", "bottom", "a bottom", "bottom-bar", "link",
    "main", "main-content", "Main-Content", "page-content", "content", "post", "entry", "fulltext", "FULLTEXT",
    "article ", "story-content", "nav", "subnav", "ad-x", "x ad-y", "dfpAd", "widget", "meta", "cookie",
    "cookie-banner", "site-footer", "infinite-scroll", "mvp-post-add-wrap", "elementor-share-buttons",
    "w3-code", "hljs-k", "sharebar", "social", "",
]
VOCAB_ID = [
    "comments", "Comment", "comol", "disqus_thread", "dsq-comments", "reply-1", "hidden", "social-x", "respond",
    "main", "content", "articleContent", "article", "story", "primary", "content-main", "ad-1", "premium",
    "footer", "nav", "TEASER", "CookieBot", "", "akismet", "reader-comments",
]
TAGS = ["div", "section", "article", "main", "aside", "p", "span", "ul", "ol", "list", "item", "details",
        "header", "cite", "quote", "code", "table", "lb", "h1", "pre"]


def _random_tree(rng: random.Random) -> Any:
    from lxml.etree import Element, SubElement

    root = Element("html")
    body = SubElement(root, "body")
    nodes = [body]
    for _ in range(60):
        parent = rng.choice(nodes)
        el = SubElement(parent, rng.choice(TAGS))
        attrs = []
        if rng.random() < 0.6:
            attrs.append(("class", rng.choice(VOCAB_CLASS)))
        if rng.random() < 0.5:
            attrs.append(("id", rng.choice(VOCAB_ID)))
        if rng.random() < 0.15:
            attrs.append(("style", rng.choice(["display:none", "display: none", "border:1px", "hidden"])))
        if rng.random() < 0.1:
            attrs.append(("role", rng.choice(["main", "article", "navigation", "Nav", "presentation"])))
        if rng.random() < 0.05:
            attrs.append(("aria-hidden", "true"))
        if rng.random() < 0.05:
            attrs.append(("itemprop", "articleBody"))
        rng.shuffle(attrs)  # source order matters for @id|@class
        for key, value in attrs:
            el.set(key, value)
        el.text = rng.choice([None, "", "text", " x "])
        el.tail = rng.choice([None, "tail"])
        nodes.append(el)
    return root


def test_selectors_random_attributes() -> None:
    rng = random.Random(2_3_1)
    problems = []
    for _ in range(40):
        problems += _compare_tree(_random_tree(rng), max_contexts=10_000)
    assert problems[:10] == []


# (markup, paths of elements given text "" after parsing); lxml keeps a text node for el.text = ""
_EMPTY_TEXT_CASES = [
    ("<div><p>x</p></div>", []),
    ("<div><p></p></div>", []),
    ("<div><p></p></div>", ["p"]),
    ("<div><p><b></b></p></div>", ["p/b"]),
    ("<div><p><b></b></p></div>", ["p/b:tail"]),
    ("<div><p></p><b></b></div>", ["b"]),
    ("<div><p></p><b></b></div>", ["p:tail"]),
    ("<div><section><p><i></i></p></section></div>", ["section/p/i:tail"]),
    ("<div><section><p><i></i></p></section></div>", ["section"]),
]


@pytest.mark.parametrize("markup,empties", _EMPTY_TEXT_CASES)
def test_p_has_text_nodes_is_xpath_p_text_not_empty(dom_engine, markup, empties):
    """``xpaths.p_has_text_nodes`` against lxml's ``//p//text()`` on the same tree, with
    empty-string texts and tails (which p_text_length cannot see)."""
    from trafila.v2_3_1 import xpaths

    def apply(root: Any) -> None:
        for path in empties:
            where, _, slot = path.partition(":")
            el = root.find(where)
            setattr(el, slot or "text", "")

    lx = lxml_html.fragment_fromstring(markup)
    apply(lx)
    ours = dom_engine.Element("div")
    for child in lx:
        _copy_into(dom_engine, ours, child)
    apply(ours)
    assert xpaths.p_has_text_nodes(ours) == bool(lx.xpath("//p//text()"))


def _copy_into(model: Any, parent: Any, el: Any) -> None:
    mine = model.SubElement(parent, el.tag)
    mine.text, mine.tail = el.text, el.tail
    for child in el:
        _copy_into(model, mine, child)
