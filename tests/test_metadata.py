"""extract_metadata (trafila.v2_3_1.metadata, trafila.v1_11_0.metadata) against the
installed trafilatura's, live, on hand-made pages for each field and source, over
each built engine; and bare_extraction's metadata options (blacklists,
only_with_metadata). The release compared is the installed trafilatura's (run the
file in each oracle venv).

The date search (htmldate) is another port's: here trafila's date call is given
htmldate's answer on an lxml copy of trafila's tree, so every field, date included,
is compared, and the metadata's own code is what is tested."""

from __future__ import annotations

import importlib
import json
import warnings

import pytest

trafilatura = pytest.importorskip("trafilatura")
MODE = trafilatura.__version__
if MODE not in ("2.3.1", "1.11.0"):
    pytest.skip(f"needs trafilatura 2.3.1 or 1.11.0 (installed: {MODE})", allow_module_level=True)

from trafilatura.metadata import extract_metadata as their_extract  # noqa: E402

from trafila import _backend, _engine  # noqa: E402

from .conftest import ENGINES, _built_engine  # noqa: E402

OURS = importlib.import_module("trafila.v2_3_1.metadata" if MODE == "2.3.1" else "trafila.v1_11_0.metadata")
UTILS = importlib.import_module("trafila.v2_3_1.utils" if MODE == "2.3.1" else "trafila.v1_11_0.utils")
FIELDS = ("title", "author", "url", "hostname", "description", "sitename", "date", "categories", "tags",
          "fingerprint", "id", "license", "image", "pagetype", "filedate")
TEXT = "<p>" + "This paragraph is long enough to be kept by the extraction of the main text. " * 6 + "</p>"


def _htmldate_on_copy(tree, params):
    "htmldate's answer on an lxml copy of trafila's tree (the date port is tested elsewhere)."
    import htmldate
    import lxml.etree
    import lxml.html

    from trafila.lxmlconvert import to_lxml

    copy = lxml.html.fromstring(lxml.etree.tostring(to_lxml(tree, whole_document=True)))
    return htmldate.find_date(copy, **params)


@pytest.fixture(autouse=True)
def date_by_htmldate(monkeypatch):
    monkeypatch.setattr(OURS, "_find_date", _htmldate_on_copy)


@pytest.fixture(params=ENGINES, scope="module")
def backend(request):
    eng = _built_engine(request.param)
    if MODE not in eng.modes:
        pytest.skip(f"engine {eng.name!r} does not run mode {MODE}")
    if request.param == "reference":
        return _backend.reference()
    return _backend.core_backend(importlib.import_module(_engine.CORE_MODULE))


def _page(head: str = "", body: str = "") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


def _ld(data) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def _fields(doc):
    return {f: getattr(doc, f, None) for f in FIELDS} if doc is not None else None


def _compare(backend, html: str, **kwargs):
    "Our fields and trafilatura's for the page (and the tree is left unchanged)."
    tree = _backend.run_with(backend, UTILS.load_html, html)
    before = [(el.tag, el.text, el.tail, tuple(el.attrib.items())) for el in tree.iter()]
    ours = _backend.run_with(backend, OURS.extract_metadata, tree, **kwargs)
    assert [(el.tag, el.text, el.tail, tuple(el.attrib.items())) for el in tree.iter()] == before
    theirs = their_extract(trafilatura.load_html(html), **kwargs)
    assert _fields(ours) == _fields(theirs)
    return _fields(ours)


PAGES = {
    # meta name=
    "meta-name": _page(
        '<meta name="author" content="jane doe"><meta name="title" content="Meta Title">'
        '<meta name="description" content=" A description "><meta name="publisher" content="the publisher">'
        '<meta name="keywords" content="a, b, \'c\'"><meta name="image" content="/i.png">'
        '<meta name="twitter:url" content="https://example.org/tw"><meta name="application-name" content="App">',
        TEXT),
    "meta-name-backup-sitename": _page('<meta name="twitter:app:name:iphone" content="appname">', TEXT),
    # meta property= (not og:)
    "meta-property": _page(
        '<meta property="article:tag" content="one"><meta property="article:tag" content="two, three">'
        '<meta property="article:author" content="John Smith and Mary Major">'
        '<meta property="article:publisher" content="Publisher Inc"><meta property="twitter:image" content="t.jpg">'
        '<meta property="article:section" content="Politics">', TEXT),
    # meta itemprop=
    "meta-itemprop": _page(
        '<meta itemprop="author" content="By Max Mustermann"><meta itemprop="description" content="Item desc">'
        '<meta itemprop="headline" content="Item Headline"><meta itemprop="Author" content="Case Sensitive">', TEXT),
    # OpenGraph
    "opengraph": _page(
        '<meta property="og:title" content="OG Title"><meta property="og:description" content="OG desc">'
        '<meta property="og:site_name" content="@ogsite"><meta property="og:image" content="https://e.org/og.png">'
        '<meta property="og:type" content="article"><meta property="og:url" content="https://www.example.com/og">'
        '<meta property="og:author" content="Ann Author"><meta property="og:locale" content="en">', TEXT),
    "opengraph-complete": _page(
        '<meta property="og:title" content="T"><meta property="og:description" content="D">'
        '<meta property="og:site_name" content="S"><meta property="og:image" content="I">'
        '<meta property="og:url" content="https://example.com/x"><meta property="og:author" content="First Last">'
        '<meta name="keywords" content="k1, k2">', TEXT),
    # JSON-LD
    "jsonld-article": _page(_ld({
        "@context": "https://schema.org", "@type": "NewsArticle", "headline": "LD Headline",
        "author": [{"@type": "Person", "name": "Alice Example"}, {"@type": "Person", "givenName": "Bob",
                                                                  "familyName": "Builder"}],
        "publisher": {"@type": "Organization", "name": "LD Publisher"}, "articleSection": ["World", ""],
    }), TEXT),
    "jsonld-person": _page(_ld({"@context": "http://schema.org", "@type": "Person", "name": "Carol Person"}), TEXT),
    "jsonld-organization-website": _page(
        _ld({"@context": "https://schema.org", "@type": "Organization", "name": "Org Name"})
        + _ld({"@context": "https://schema.org", "@type": "WebSite", "name": "A Longer Website Name"}), TEXT),
    "jsonld-graph-breadcrumb": _page(_ld({"@context": "https://schema.org", "@graph": [
        {"@type": "BreadcrumbList", "itemListElement": [{"@type": "ListItem", "position": 1, "name": "Home"}]},
        {"@type": ["WebPage", "ItemPage"], "name": "Page"},
        {"@type": "Article", "name": "Article Name", "author": {"name": "Dave Writer"}, "articleSection": "Tech"},
    ]}), TEXT),
    "jsonld-liveblog": _page(_ld({"@context": "https://schema.org", "@type": "LiveBlogPosting",
                                  "liveBlogUpdate": [{"@type": "BlogPosting", "headline": "Update one",
                                                      "author": "Eve Live"}]}), TEXT),
    "jsonld-author-string-json": _page(_ld({"@context": "https://schema.org", "@type": "Article",
                                            "author": json.dumps({"name": "Frank Json"})}), TEXT),
    "jsonld-broken": _page(
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",'
        '"author":{"@type":"Person","name":"Grace Broken"},"publisher":{"@type":"Organization","name":"Broken Pub"},'
        '"articleSection":"Sports","headline":"Broken headline",}</script>', TEXT),
    "jsonld-bad-shapes": _page(_ld([{"@context": "https://schema.org", "@type": "Article", "author": [5]},
                                   {"@context": "https://schema.org", "@type": "Article", "headline": "After"}]),
                               TEXT),
    # fallbacks in the body
    "title-h1": _page("<title>Ignored - Site.com</title>", "<h1>The <b>only</b> h1</h1>" + TEXT),
    "title-xpath": _page("", '<h1>a</h1><h1>b</h1><h2 class="entry-title">Entry title here</h2>' + TEXT),
    "title-element": _page("<title>Page title | example.org</title>", TEXT),
    "title-element-dotted": _page("<title>Version 1.2 released</title>", TEXT),
    "title-h2": _page("", "<h2>Second level</h2><h2>Another</h2>" + TEXT),
    "author-rel": _page("", '<a rel="author" href="/a">Hans Muster</a>' + TEXT),
    "author-byline": _page("", '<div class="comments"><span class="author">Not Him</span></div>'
                               '<p class="byline">By Jenny Doe, staff writer</p>' + TEXT),
    "author-any": _page("", '<section data-component="Byline">Written by Kim Lee</section>' + TEXT),
    "author-rel-me": _page("", '<p><rel>me</rel>Pat Someone</p>' + TEXT),
    "author-single-word": _page('<meta name="author" content="admin">', '<span class="author">Real Person</span>'),
    "url-canonical-relative": _page('<link rel="canonical" href="/path/page"><meta property="og:url" '
                                    'content="https://www.site.org/other">', TEXT),
    "url-protocol-relative": _page('<link rel="canonical" href="//www.site.org/p?utm_source=x&id=3">', TEXT),
    "url-base": _page('<base href="https://base.example.net/dir/">', TEXT),
    "url-xdefault": _page('<link rel="alternate" hreflang="x-default" href="https://intl.example.com/en">', TEXT),
    "url-invalid": _page('<link rel="canonical" href="ftp://x">', TEXT),
    "hostname-psl": _page('<link rel="canonical" href="https://www.bbc.co.uk/news">', TEXT),
    "sitename-from-url": _page('<link rel="canonical" href="https://w3.abc.com/x">', TEXT),
    "categories-tags": _page("", '<div class="post-meta"><a href="/category/news/">News</a>'
                                 '<a href="/categories/x/">X</a><a href="/other/">O</a></div>'
                                 '<div class="tags"><a href="/tag/one">One</a><a href="/tags/two/">Two</a></div>' + TEXT),
    "tags-entry-meta": _page("", '<footer class="entry-meta"><a href="/tag/foot/">Foot</a></footer>' + TEXT),
    "category-subject": _page('<meta name="dc.subject" content="Subject cat">', TEXT),
    "license-rel": _page("", TEXT + '<a rel="license noopener" href="https://creativecommons.org/licenses/by-nc/4.0/">'
                             'CC</a>'),
    "license-rel-text": _page("", TEXT + '<a rel="license" href="/terms">Some licence</a>'),
    "license-footer": _page("", TEXT + '<footer><a href="/l">This work is under Creative Commons BY-SA 3.0</a></footer>'),
    "license-footer-div": _page("", TEXT + '<div id="site-footer"><a href="https://creativecommons.org/licenses/by/2.0/">x</a></div>'),
    "image-meta": _page('<meta property="og:image:url" content="https://e.org/u.png">'
                        '<meta property="twitter:image:src" content="https://e.org/t.png">', TEXT),
    "date-in-page": _page('<meta property="article:published_time" content="2021-05-06T10:00:00">', TEXT),
    "empty": _page(),
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page(backend, name):
    _compare(backend, PAGES[name], default_url="https://fallback.example.org/page")


def test_fields_are_filled(backend):
    "The pages reach the fields they are about (the comparisons above are not all None)."
    got = {name: _compare(backend, html) for name, html in PAGES.items()}
    assert got["jsonld-article"]["author"] and got["jsonld-article"]["title"] == "LD Headline"
    assert got["opengraph"]["sitename"] and got["opengraph"]["url"] == "https://www.example.com/og"
    assert got["categories-tags"]["categories"] and got["categories-tags"]["tags"]
    assert got["license-footer-div"]["license"] == "CC BY 2.0"
    assert got["hostname-psl"]["hostname"] == "bbc.co.uk"
    assert got["date-in-page"]["date"] == "2021-05-06"


@pytest.mark.parametrize("blacklist", [{"hans muster"}, {"Jenny Doe"}, {"nobody"}])
def test_author_blacklist(backend, blacklist):
    for name in ("author-rel", "author-byline", "meta-property"):
        _compare(backend, PAGES[name], author_blacklist=blacklist)


def test_date_config_and_extensive(backend):
    for kwargs in ({"extensive": False}, {"date_config": {"max_date": "2030-01-01", "original_date": False}}):
        _compare(backend, PAGES["date-in-page"], **kwargs)


# -- bare_extraction's metadata options ---------------------------------------------------------

METADATA_PAGE = _page(
    '<title>Main title - example.org</title><meta name="author" content="Jane Doe">'
    '<link rel="canonical" href="https://www.example.org/a/b"><meta property="article:published_time" '
    'content="2020-02-03">', "<article><h1>Head</h1>" + TEXT + "</article>")
NO_DATE_PAGE = _page('<title>Untimely</title><link rel="canonical" href="https://www.example.org/c">', TEXT)


def _bare(module, html, **kwargs):
    if MODE == "1.11.0":
        kwargs.setdefault("as_dict", False)
    try:
        doc = module.bare_extraction(html, **kwargs)
    except KeyError as err:  # 1.11.0: date parameters without max_date
        return ("KeyError", str(err))
    if doc is None:
        return None
    return {f: getattr(doc, f) for f in (*FIELDS, "text", "raw_text", "comments", "language")}


@pytest.mark.parametrize("kwargs", [
    {"with_metadata": True}, {"with_metadata": True, "fast": True},
    {"author_blacklist": {"jane doe"}}, {"author_blacklist": {"someone else"}, "with_metadata": True},
    {"url_blacklist": {"https://www.example.org/a/b"}}, {"url_blacklist": {"https://example.org/x"}},
    {"only_with_metadata": True}, {"with_metadata": True, "date_extraction_params": {"original_date": False}},
], ids=["with", "with-fast", "author-bl", "author-bl-other", "url-bl", "url-bl-other", "only", "date-params"])
@pytest.mark.parametrize("page", [METADATA_PAGE, NO_DATE_PAGE], ids=["dated", "undated"])
def test_bare_extraction_metadata_options(page, kwargs):
    import trafila

    if MODE == "1.11.0":
        kwargs = {k: v for k, v in kwargs.items() if k != "fast"}
        if "author_blacklist" in kwargs and not kwargs.get("with_metadata"):
            kwargs["with_metadata"] = True  # 1.11.0's blacklist alone does not ask for metadata
    for name in ENGINES:
        eng = _built_engine(name)
        with warnings.catch_warnings():
            warnings.simplefilter("error", trafila.FallbackWarning)
            ours = _bare(_Compat(eng), page, **kwargs)
        assert ours == _bare(trafilatura, page, **kwargs), name


class _Compat:
    "An engine's bare_extraction in the installed release's mode."

    def __init__(self, eng):
        self.eng = eng

    def bare_extraction(self, html, **kwargs):
        return self.eng.bare_extraction(html, compat=MODE, **kwargs)


# -- the public trafila.extract_metadata (2.3.1) -------------------------------------------------

ORIGINAL_FIND_DATE = OURS._find_date


@pytest.mark.skipif(MODE != "2.3.1", reason="trafila.extract_metadata is 2.3.1's")
@pytest.mark.parametrize("name", ["jsonld-article", "opengraph", "categories-tags", "date-in-page", "empty"])
def test_public_extract_metadata(name):
    import trafila

    for engine_name in ENGINES:
        eng = _built_engine(engine_name)
        with warnings.catch_warnings():
            warnings.simplefilter("error", trafila.FallbackWarning)
            ours = eng.extract_metadata(PAGES[name], default_url="https://example.org/d")
        assert isinstance(ours, trafila.Document)
        assert _fields(ours) == _fields(trafilatura.extract_metadata(PAGES[name], default_url="https://example.org/d"))


@pytest.mark.skipif(MODE != "2.3.1", reason="trafila.extract_metadata is 2.3.1's")
def test_public_extract_metadata_delegates(monkeypatch):
    import lxml.html

    import trafila
    from trafila import _delegation

    _delegation._warned.clear()
    with pytest.warns(trafila.FallbackWarning, match="lxml tree input"):
        ours = trafila.extract_metadata(lxml.html.fromstring(PAGES["opengraph"]))
    assert _fields(ours) == _fields(trafilatura.extract_metadata(lxml.html.fromstring(PAGES["opengraph"])))
    try:
        import trafila.htmldate  # noqa: F401
    except ImportError:
        monkeypatch.setattr(OURS, "_find_date", ORIGINAL_FIND_DATE)
        with pytest.warns(trafila.FallbackWarning, match="date extraction"):
            ours = trafila.extract_metadata(PAGES["date-in-page"])
        assert _fields(ours) == _fields(trafilatura.extract_metadata(PAGES["date-in-page"]))


# -- the XPath predicates' exact terms and prefilters (C on core trees) ----------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

_METADATA_MODULES = ("trafila.v2_3_1.metadata", "trafila.v1_11_0.metadata")


def _core_module():
    try:
        return importlib.import_module("trafila._core")
    except ImportError:
        pytest.skip("the compiled core is not built")


def _registered(kind):
    from trafila import xpathlib

    for name in _METADATA_MODULES:
        importlib.import_module(name)
    specs = xpathlib.EXACT_SPECS if kind == "exact" else xpathlib.PREFILTER_SPECS
    return [pred for pred in specs if pred.__module__ in _METADATA_MODULES]


def _check_terms(core, root) -> list:
    "Each exact matcher says its predicate's verdict (or -1) on every node; each prefilter holds where its predicate does."
    from trafila import xpathlib
    from trafila.v2_3_1._tree import desc_list

    problems = []
    nodes = [root, *desc_list(root)]
    for pred in _registered("exact"):
        m = xpathlib.compiled_matcher(core, pred)
        for el in nodes:
            verdict = core.matcher_verdict(el, m)
            if verdict not in (-1, int(bool(pred(el)))):
                problems.append((pred.__qualname__, el.tag, dict(el.attrib.items()), verdict))
    for pred in _registered("prefilter"):
        pf = xpathlib.compiled_prefilter(core, pred)
        for el in nodes:
            if pred(el) and not core.prefilter_passes(el, pf):
                problems.append((pred.__qualname__, el.tag, dict(el.attrib.items()), "prefilter"))
    # the selections through C against the same predicates walked in Python
    for pred in _registered("exact") + _registered("prefilter"):
        fast = [e.node_index for e in xpathlib.select(root, None, pred)]
        slow = [e.node_index for e in desc_list(root) if pred(e)]
        if fast != slow:
            problems.append((pred.__qualname__, "select", len(fast), len(slow)))
    # several selections from one walk (cython_core/metadata.pxi select_matches_each), root included
    md = importlib.import_module("trafila.v2_3_1.metadata")
    specs = [(None, a) for a in md.CATEGORIES_ANCHORS + md.TAGS_ANCHORS] + [
        (("h1", "h2"), md._title_0_pred), (None, md._author_2_pred), (("a", "p"), md._author_0_attrs)]
    each = [[e.node_index for e in found] for found in md._select_each(root, specs)]
    slow = [[e.node_index for e in nodes if (tags is None or e.tag in tags) and pred(e)] for tags, pred in specs]
    if each != slow:
        problems.append(("_select_each", [len(x) for x in each], [len(x) for x in slow]))
    return problems


def test_registered_terms_exist():
    assert len(_registered("exact")) >= 24 and len(_registered("prefilter")) >= 2


_VALUES = st.sampled_from(["author", "Author", "author name", "AuthorName", "byline", "Byline", "BBL", "entry-title",
                           "post-title", "headline", "title", "comments", "Comments-x", "commentlist", "post-meta",
                           "postpath-1", "entry-meta", "entry-footer x", "tags", "row", "tags-links", "topics", "footer",
                           "cat-links", "AuthorCard", "Figure", "license", "x", "", "autéur", "\u017futhor", "meta x"])
_NAMES = st.sampled_from(["class", "id", "itemprop", "rel", "data-component", "data-testid", "href", "name"])
_TAGS = st.sampled_from(["div", "p", "a", "span", "h1", "h2", "h3", "li", "footer", "header", "author", "section",
                         "time", "figure", "strong", "link", "address"])


@st.composite
def _element_markup(draw, depth=0):
    out = []
    for _ in range(draw(st.integers(1, 4))):
        tag = draw(_TAGS)
        attrs = "".join(f' {n}="{v}"' for n, v in draw(st.lists(st.tuples(_NAMES, _VALUES), max_size=3)))
        inner = draw(_element_markup(depth + 1)) if depth < 2 and draw(st.booleans()) else "t"
        out.append(f"<{tag}{attrs}>{inner}</{tag}>")
    return "".join(out)


@settings(max_examples=200, deadline=None)
@given(_element_markup())
def test_terms_on_generated_pages(markup):
    core = _core_module()
    root = core.dom.document_fromstring(f"<html><body>{markup}</body></html>")
    assert _check_terms(core, root) == []


@needs_corpora
def test_terms_on_corpus_pages():
    core = _core_module()
    pages = 0
    problems = []
    for _name, page in sample_pages(["goose3", "cleanportaleval", "commoncrawl", "trafilatura", "fundus"], 25):
        if page.html is None:
            continue
        problems += _check_terms(core, core.dom.document_fromstring(page.html))
        pages += 1
    assert pages > 20
    assert problems == [], problems[:5]


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet='ab"\\ \t\n\u00a0\u2003{}:,', max_size=40))
def test_minify_is_the_substitution(text):
    for name in _METADATA_MODULES:
        module = importlib.import_module(name)
        assert module._minify(text) == module.JSON_MINIFY.sub(r"\1", text)


_MINIFY_TEXT = st.lists(st.one_of(st.text(alphabet='ab"\\ \t\n\r\x0b\x1c\x85\u00a0\u2003\u3000{}:,\u00e9\U0001f600',
                                          max_size=20),
                                  st.sampled_from(['"a\\"b"', '"\\\\"', '\\"', '"x\\\n"', '{"k": "v"}', '"\\', '\\'])),
                        max_size=10).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_MINIFY_TEXT)
def test_c_minify_is_the_substitution(text):
    "The core's one-pass minifier (metadata_json.pxi) against each release's regex substitution."
    core = _core_module()
    if not hasattr(core, "json_minify"):
        pytest.skip("this core has no json_minify")
    for name in _METADATA_MODULES:
        module = importlib.import_module(name)
        expected = module.JSON_MINIFY.sub(r"\1", text)
        assert core.json_minify(text, name.endswith("v1_11_0.metadata")) == expected, name
        assert module._minify(text, core) == expected, name


@needs_corpora
def test_c_minify_on_corpus_scripts():
    core = _core_module()
    if not hasattr(core, "json_minify"):
        pytest.skip("this core has no json_minify")
    scripts = 0
    for _name, page in sample_pages(["goose3", "commoncrawl", "trafilatura", "fundus", "newspaper4k"], 40):
        if page.html is None:
            continue
        tree = core.dom.document_fromstring(page.html)
        for script in tree.iter("script"):
            if not script.text:
                continue
            scripts += 1
            for name in _METADATA_MODULES:
                module = importlib.import_module(name)
                assert core.json_minify(script.text, name.endswith("v1_11_0.metadata")) == \
                    module.JSON_MINIFY.sub(r"\1", script.text), (page.id, name)
    assert scripts > 50
