"""trafila.v2_3_1 vs trafilatura 2.3.1 on random documents.

A small grammar of the markup trafilatura's text path reacts to (content
containers by class/id, comment sections, lists, tables with spans, quotes
and code, headings, links, inline formatting, line breaks, forms, math,
hidden and teaser blocks) generates pages; both extract them with the same
options. Seeded: the same pages on every run. ``TRAFILA_RANDOM_PAGES`` sets
how many (default 60).
"""

from __future__ import annotations

import os
import random
import warnings

import pytest
from tests._helpers import NEEDS_231

trafilatura = pytest.importorskip("trafilatura")
lxml_html = pytest.importorskip("lxml.html")
if trafilatura.__version__ != "2.3.1":  # pragma: no cover
    pytest.skip(NEEDS_231, allow_module_level=True)

from trafilatura.utils import HTML_PARSER  # noqa: E402

from trafila.v2_3_1 import _tree, core, deduplication, utils  # noqa: E402

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau "
         "upsilon phi chi psi omega Share Facebook Print").split()
CLASSES = ["post-content", "entry-content", "article-body", "comments", "comment-list", "sidebar", "teaser", "nav",
           "main", "content", "footer", "share-buttons", "hidden", "caption", "widget", "author", "meta", "text",
           "story", "fulltext", "highlight", "w3-code", "infinite-scroll", "post", "entry", "bottom", ""]
IDS = ["content", "main", "comments", "respond", "footer", "article", "story", "disqus_thread", "social", ""]


def _words(rng: random.Random, lo: int = 1, hi: int = 25) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def _inline(rng: random.Random, depth: int) -> str:
    parts = []
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.45 or depth > 3:
            parts.append(_words(rng))
        elif r < 0.6:
            tag = rng.choice(["b", "i", "em", "strong", "span", "u", "sub", "sup", "code", "kbd", "del", "s", "q"])
            parts.append(f"<{tag}>{_inline(rng, depth + 1)}</{tag}>")
        elif r < 0.75:
            parts.append(f"<a href='/l{rng.randint(0, 99)}'>{_words(rng, 1, rng.choice([2, 8, 30]))}</a>")
        elif r < 0.85:
            parts.append(rng.choice(["<br>", "<br/>", "<hr>", "<wbr>", "<img src='a.jpg'>"]))
        else:
            parts.append(rng.choice(["&nbsp;", " \n  ", "&amp;", "\t", ""]))
    return " ".join(parts) if rng.random() < 0.7 else "".join(parts)


def _attrs(rng: random.Random) -> str:
    out = []
    if rng.random() < 0.5:
        out.append(f"class='{rng.choice(CLASSES)}'")
    if rng.random() < 0.25:
        out.append(f"id='{rng.choice(IDS)}'")
    if rng.random() < 0.05:
        out.append("style='display:none'")
    rng.shuffle(out)
    return (" " + " ".join(out)) if out else ""


def _block(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if depth > 4 or r < 0.3:
        return f"<p{_attrs(rng)}>{_inline(rng, 0)}</p>"
    if r < 0.5:
        tag = rng.choice(["div", "section", "article", "main", "aside", "div", "div"])
        inner = "".join(_block(rng, depth + 1) for _ in range(rng.randint(1, 5)))
        lead = _words(rng) if rng.random() < 0.3 else ""
        return f"<{tag}{_attrs(rng)}>{lead}{inner}</{tag}>{_words(rng, 0, 3) if rng.random() < 0.2 else ''}"
    if r < 0.6:
        tag = rng.choice(["ul", "ol", "dl"])
        items = []
        for _ in range(rng.randint(1, 5)):
            if tag == "dl":
                items.append(f"<dt>{_words(rng, 1, 3)}</dt><dd>{_inline(rng, 1)}</dd>")
            else:
                sub = _block(rng, depth + 2) if rng.random() < 0.2 else ""
                items.append(f"<li>{_inline(rng, 1)}{sub}</li>{_words(rng, 0, 2) if rng.random() < 0.1 else ''}")
        return f"<{tag}{_attrs(rng)}>{''.join(items)}</{tag}>"
    if r < 0.7:
        rows = []
        for _ in range(rng.randint(1, 4)):
            cells = []
            for _ in range(rng.randint(1, 4)):
                ctag = "th" if rng.random() < 0.2 else "td"
                span = rng.choice(["", "", " colspan='2'", " rowspan='2'", " colspan='x'"])
                content = _inline(rng, 1) if rng.random() < 0.8 else _block(rng, depth + 2)
                cells.append(f"<{ctag}{span}>{content}</{ctag}>")
            rows.append(f"<tr>{''.join(cells)}</tr>")
        caption = f"<caption>{_words(rng, 1, 4)}</caption>" if rng.random() < 0.2 else ""
        return f"<table{_attrs(rng)}>{caption}{''.join(rows)}</table>"
    if r < 0.78:
        tag = rng.choice(["h1", "h2", "h3", "h4"])
        return f"<{tag}>{_inline(rng, 2)}</{tag}>"
    if r < 0.86:
        tag = rng.choice(["blockquote", "pre", "details"])
        inner = _block(rng, depth + 1) if rng.random() < 0.5 else _inline(rng, 1)
        if tag == "pre" and rng.random() < 0.5:
            inner = "def f():\n    return {1}\n" + inner
        if tag == "details":
            inner = f"<summary>{_words(rng, 1, 3)}</summary>{inner}"
        return f"<{tag}{_attrs(rng)}>{inner}</{tag}>"
    if r < 0.9:
        return f"<form>{_block(rng, depth + 1)}<input name='q'></form>"
    if r < 0.93:
        return f"<p>{_words(rng)} <math alttext='x^{rng.randint(1, 9)}'><mi>x</mi></math> {_words(rng)}</p>"
    return f"<div{_attrs(rng)}>{_inline(rng, 0)}</div>"


def random_page(rng: random.Random) -> str:
    head = ""
    if rng.random() < 0.1:
        head = '<script type="application/ld+json">{"@type": "DiscussionForumPosting"}</script>'
    body = "".join(_block(rng, 0) for _ in range(rng.randint(1, 12)))
    return f"<html><head><title>t</title>{head}</head><body>{body}</body></html>"


SETS = [
    dict(fast=True),
    dict(fast=True, favor_precision=True),
    dict(fast=True, favor_recall=True),
    dict(fast=True, include_comments=False, include_tables=False),
    dict(fast=True, output_format="markdown"),
    dict(fast=True, include_images=True, include_links=True, output_format="markdown", url="https://example.org/p/"),
]


@pytest.fixture(params=["bridge", "trafila"])
def mode(request):
    if request.param == "bridge":
        from harness.lxml_bridge import from_lxml

        utils.set_parser(
            lambda s: from_lxml(lxml_html.fromstring(s, parser=HTML_PARSER)),
            lambda s: from_lxml(lxml_html.fragment_fromstring(s, create_parent="div")),
        )
    else:
        utils.set_parser(None, None)
    _tree.set_backend("trafila")
    yield request.param
    utils.set_parser(None, None)


def test_random_pages(mode):
    rng = random.Random(231)
    count = int(os.environ.get("TRAFILA_RANDOM_PAGES", "60"))
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(count):
            html = random_page(rng)
            for opts in SETS:
                expected = trafilatura.extract(html, **opts)
                got = core.extract(html, **opts)
                if got != expected:
                    failures.append((i, opts, html))
    assert not failures, failures[:2]


def test_random_pages_dedup_order(mode):
    "deduplicate=True over a run of pages sharing paragraphs: the cache state evolves alike."
    rng = random.Random(2310)
    trafilatura.deduplication.LRU_TEST.clear()
    deduplication.LRU_TEST.clear()
    shared = [f"<p>{_words(rng, 20, 30)}</p>" for _ in range(4)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(15):
            html = random_page(rng).replace("</body>", "".join(rng.sample(shared, 3)) + "</body>")
            assert core.extract(html, fast=True, deduplicate=True) == trafilatura.extract(html, fast=True, deduplicate=True)


def test_baseline_and_html2txt_random(mode):
    "baseline() and html2txt() alone, on the random pages."
    import importlib

    t_baseline = importlib.import_module("trafilatura.baseline")
    from trafila.v2_3_1 import baseline

    rng = random.Random(31)
    for _ in range(80):
        html = random_page(rng)
        lx = lxml_html.fromstring(html, parser=HTML_PARSER)
        tree = utils.load_html(html)
        assert baseline.html2txt(tree) == t_baseline.html2txt(lx)
        got, expected = baseline.baseline(tree), t_baseline.baseline(lx)
        assert (got[1], got[2]) == (expected[1], expected[2])
