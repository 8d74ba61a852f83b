"""Generated HTML documents for differential fuzzing.

One grammar, two ways to draw from it:

* bulk runs (``python -m harness.fuzz``) use :func:`random_html`,
  :func:`random_article` and :func:`random_bytes` with a seeded
  ``random.Random`` -- fast, no shrinking machinery;
* tests use the Hypothesis strategies :func:`html_documents`,
  :func:`article_documents` and :func:`html_bytes`, which draw the very same
  choices through Hypothesis (so failures shrink).

:func:`html_documents` stresses libxml2 2.14.6's HTML parser (see
``shared/design/libxml2-2.14.6-notes.md``): implied html/head/body,
auto-closing, misnesting, raw-text/RCDATA elements, comments and bogus
comments, doctypes, character references, attribute quoting, control
characters, deep nesting, misplaced html/head/body, content after ``</html>``.
:func:`article_documents` builds article-like pages whose class/id values come
from trafilatura's XPath vocabulary, with enough text to be extracted.

:func:`features_of` says which grammar features a document contains (by
looking at the text, not at how it was made); tests use it to check coverage.
"""

from __future__ import annotations

import random
import re
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set

# --------------------------------------------------------------------------- choosers


class RandomChooser:
    """Choices from a seeded ``random.Random`` (bulk generation)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def randint(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq: Sequence):
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p


class HypothesisChooser:
    """Choices drawn through Hypothesis; every choice shrinks towards 'less'."""

    def __init__(self, draw: Callable) -> None:
        from hypothesis import strategies as st

        self.draw = draw
        self.st = st

    def randint(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def choice(self, seq: Sequence):
        return seq[self.draw(self.st.integers(0, len(seq) - 1))]

    def chance(self, p: float) -> bool:
        # shrinks to 0, i.e. to False: fewer features in a shrunk example
        return self.draw(self.st.integers(0, 999)) >= 1000 - int(p * 1000)


# --------------------------------------------------------------------------- vocabulary

WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her all she there would their we him been has when who will more no if out so said what up its about "
    "into than them can only other new some could time these two may then do first any my now such like our over "
    "man me even most made after also did many before must through back years where much your way well down should "
    "because each just those people how too little state good very make world still own see men work long get here "
    "between both life being under never day same another know while last might us great old year off come since "
    "against go came right used take three report council market water policy research city children history"
).split()
FOREIGN = ("Größe", "café", "naïve", "Ærø", "Москва", "東京", "καλημέρα", "שלום", "مرحبا", "😀", "\u00a0", "x\u0301")

BLOCK = (
    "div p section article ul ol li dl dd dt table thead tbody tfoot tr td th caption form h1 h2 h3 h4 h5 h6 "
    "blockquote pre center address fieldset legend menu dir noscript main aside nav header footer figure "
    "figcaption details summary select option optgroup"
).split()
INLINE = "a b i u em strong span font small big code tt sub sup label abbr q s strike button nobr".split()
VOID = "br img hr input meta link area base basefont col param embed source wbr track".split()
RAW = ("script", "style", "xmp", "iframe", "noembed", "noframes")
RCDATA = ("textarea", "title")
ODD_TAGS = ("my-element", "foo", "DIV", "P", "Span", "svg", "math", "o:p", "x_y", "ref='test'", "a" * 120, "tëst", "h7")
BOOLEAN_ATTRS = ("checked", "compact", "declare", "defer", "disabled", "ismap", "multiple", "nohref", "noresize",
                 "noshade", "nowrap", "readonly", "selected")
ATTR_NAMES = ("class", "id", "href", "src", "style", "title", "alt", "lang", "data-x", "rel", "name", "type",
              "role", "itemprop", "CLASS", "Id", "hidden") + BOOLEAN_ATTRS
ODD_ATTR_NAMES = ("=x", "a<b", "'q'", '"', "x/y", "ñ", "on-click", "a" * 110)

#: named references: legacy ones (match without ';'), HTML5-only ones, and non-references
LEGACY_ENT = ("amp", "lt", "gt", "quot", "copy", "reg", "not", "nbsp", "eacute", "uuml", "para", "sect", "shy", "micro")
HTML5_ENT = ("hellip;", "mdash;", "rsquo;", "NotNestedLessLess;", "fjlig;", "bne;", "nbsp;", "Aacute;", "zwj;",
             "lang;", "rang;", "ThickSpace;", "apos;", "euro;")
NUMERIC_ENT = ("&#0;", "&#x0;", "&#x80;", "&#x81;", "&#x9F;", "&#150;", "&#xD800;", "&#xDFFF;", "&#x110000;",
               "&#99999999999999999999;", "&#65", "&#X41;", "&#x1F600;", "&#13;", "&#9;", "&#xFFFE;", "&#1;", "&#x7F;",
               "&#;", "&#x;", "&#xg;", "&#0065;")

#: trafilatura's XPath vocabulary (class/id fragments its expressions test)
CONTENT_CLASSES = ("content", "article-body", "entry-content", "post-content", "main-content", "page-content",
                   "article", "post", "story", "text", "fulltext", "postarea", "art-postcontent", "entry", "body-text",
                   "article__body", "story-body", "post-body", "articleContent")
BOILER_CLASSES = ("comments", "comment", "footer", "nav", "navigation", "sidebar", "share", "social", "related",
                  "jp-relatedposts", "ad-", "ad-container", "cookie", "cookie-banner", "byline", "author", "tags",
                  "tags-links", "cat-links", "entry-meta", "postinfo", "teaser", "hidden", "newsletter", "subscribe",
                  "menu", "breadcrumbs", "banner", "widget", "respond", "reply-", "elementor-share-buttons",
                  "entry-footer", "bottom-bar", "date", "caption", "username", "headline", "title", "entry-title",
                  "comments-title", "post-title")


def _words(ch, lo: int, hi: int) -> str:
    n = ch.randint(lo, hi)
    out = [ch.choice(WORDS) for _ in range(n)]
    if n and ch.chance(0.05):
        out[ch.randint(0, n - 1)] = ch.choice(FOREIGN)
    return " ".join(out)


def _sentence(ch) -> str:
    s = _words(ch, 6, 22)
    return s[:1].upper() + s[1:] + ch.choice((".", ".", ".", "?", "!", ";"))


# --------------------------------------------------------------------------- parser-stress grammar


class StressGrammar:
    """Parser-stress documents; ``features`` collects what was emitted."""

    def __init__(self, ch, surrogates: bool = True) -> None:
        self.ch = ch
        self.surrogates = surrogates
        self.features: Set[str] = set()
        self.budget = 0

    def feat(self, name: str) -> None:
        self.features.add(name)

    # -- character level
    def entity(self) -> str:
        ch = self.ch
        k = ch.randint(0, 5)
        if k == 0:
            self.feat("entity_legacy_nosemi")
            return "&" + ch.choice(LEGACY_ENT) + ch.choice(("", " ", "x", "2024", "it;", "=", ";", "<"))
        if k == 1:
            self.feat("entity_html5")
            return "&" + ch.choice(HTML5_ENT)
        if k == 2:
            self.feat("entity_numeric")
            return ch.choice(NUMERIC_ENT)
        if k == 3:
            self.feat("entity_legacy_semi")
            return "&" + ch.choice(LEGACY_ENT) + ";"
        if k == 4:
            self.feat("entity_bogus")
            return ch.choice(("&", "&;", "&foo;", "&ampx", "&notin", "&notit;", "& amp;", "&AMP;", "&Amp;", "&&"))
        self.feat("entity_numeric")
        return "&#%s%d;" % ("", ch.randint(0, 0x11FFFF)) if ch.chance(0.5) else "&#x%X;" % ch.randint(0, 0x11FFFF)

    def control(self) -> str:
        ch = self.ch
        k = ch.randint(0, 6)
        if k == 0:
            self.feat("nul")
            return "\x00"
        if k == 1:
            self.feat("cr")
            return "\r"
        if k == 2:
            self.feat("crlf")
            return "\r\n"
        if k == 3:
            self.feat("control")
            return ch.choice(("\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x85", "\x9f", "\u2028", "\ufeff"))
        if k == 4 and self.surrogates and ch.chance(0.2):
            self.feat("lone_surrogate")
            return ch.choice(("\ud800", "\udfff", "\udc80"))
        if k == 5:
            return ch.choice(FOREIGN)
        return ch.choice(("\t", "\n", "  ", "\n\n", " \n "))

    def text(self) -> str:
        ch = self.ch
        parts = []
        for _ in range(ch.randint(1, 4)):
            k = ch.randint(0, 9)
            if k <= 4:
                parts.append(_words(ch, 1, 8))
            elif k <= 6:
                parts.append(self.entity())
            elif k == 7:
                parts.append(self.control())
            elif k == 8:
                self.feat("stray_lt")
                parts.append(ch.choice(("<", "a < b", "<3", "< p>", "<<", "1<2", "<=", "</ >" if ch.chance(0.3) else "<")))
            else:
                parts.append(ch.choice((" ", "\n", " \t", ">", '"', "'", "=")))
        if ch.chance(0.002):
            self.feat("long_text")
            parts.append(" ".join(ch.choice(WORDS) for _ in range(ch.randint(800, 8000))))
        return "".join(parts)

    # -- markup level
    def attr_value(self) -> str:
        ch = self.ch
        v = ch.choice(("x", "main content", "a b", "", "http://e.com/?a=1&b=2", "&amp;", "&copy=2", "&copy;",
                       "&not", "&notit;", "a\nb", "a\r\nb", "x\x00y", "&#0;", "/", "a/", "\"", "'", ">", "content",
                       "article-body", "comments"))
        k = ch.randint(0, 5)
        if k == 0:
            self.feat("attr_valueless")
            return ""
        if k == 1:
            self.feat("attr_unquoted")
            v = re.sub(r"[\s>\"'`=<]", "", v) or "v"
            return "=" + v + ch.choice(("", "/", "&amp"))
        if k == 2:
            self.feat("attr_single_quoted")
            return "='" + v.replace("'", "") + "'"
        if k == 3:
            self.feat("attr_odd_spacing")
            return ch.choice((" = ", "= ", " =", "=\n")) + '"' + v.replace('"', "") + '"'
        if k == 4 and ch.chance(0.3):
            self.feat("attr_unterminated_quote")
            return '="' + v.replace('"', "")
        return '="' + v.replace('"', "") + '"'

    def attrs(self) -> str:
        ch = self.ch
        if ch.chance(0.5):
            return ""
        out = []
        names = []
        for _ in range(ch.randint(1, 4)):
            if ch.chance(0.1):
                self.feat("attr_odd_name")
                name = ch.choice(ODD_ATTR_NAMES)
            elif names and ch.chance(0.15):
                self.feat("attr_duplicate")
                name = ch.choice(names)
            else:
                name = ch.choice(ATTR_NAMES)
            if name in BOOLEAN_ATTRS:
                self.feat("attr_boolean")
            names.append(name)
            out.append(ch.choice((" ", " ", "\n", "\t", "/", " / ")) + name + self.attr_value())
        return "".join(out)

    def comment(self) -> str:
        ch = self.ch
        k = ch.randint(0, 6)
        if k == 0:
            self.feat("comment")
            return "<!--" + _words(ch, 0, 4) + "-->"
        if k == 1:
            self.feat("comment_short")
            return ch.choice(("<!-->", "<!--->", "<!---->", "<!-- -- -->", "<!--a--b-->"))
        if k == 2:
            self.feat("comment_bang")
            return "<!--" + _words(ch, 0, 3) + "--!>"
        if k == 3:
            self.feat("bogus_comment")
            return ch.choice(("<?x>", "<?php echo 1 ?>", "<!x>", "<![CDATA[a<b]]>", "</ >", "</>", "</3>", "<!>",
                              "<?xml version='1.0'?>", "</ p>", "<!ELEMENT x>"))
        if k == 4:
            self.feat("comment_conditional")
            return "<!--[if IE]><p>ie</p><![endif]-->"
        if k == 5 and ch.chance(0.15):
            self.feat("comment_unterminated")
            return "<!--" + _words(ch, 0, 5)
        self.feat("comment")
        return "<!--" + self.text().replace("-->", "") + "-->"

    def raw_element(self) -> str:
        ch = self.ch
        if ch.chance(0.5):
            tag = "script"
            self.feat("script")
            body = ch.choice(("var a = 1 < 2 && b;", "x = '</scr' + 'ipt>';", "<!--<script>x</script>-->",
                              "document.write('<p>a</p>')", "a</script x>", "<!-- </script> -->", "&amp; &lt;",
                              "if (a<b) {}", "</SCRIPT >", "<!--", "-->", ""))
            close = ch.choice(("</script>", "</SCRIPT>", "</script >", "</script/>", "</script\n>", ""))
        elif ch.chance(0.5):
            tag = ch.choice(RAW)
            self.feat("rawtext")
            body = ch.choice(("a{b:c}", "<p>not a tag</p>", "&amp;", "</" + tag + "x>", "<!-- c -->", "x < y"))
            close = ch.choice(("</%s>" % tag, "</%s>" % tag.upper(), "</%s x>" % tag, ""))
        else:
            tag = ch.choice(RCDATA)
            self.feat("rcdata")
            body = ch.choice(("a <b>x</b>", "&amp; &copy &#65;", "</" + tag + "z>", "x\r\ny", "<!--c-->"))
            close = ch.choice(("</%s>" % tag, "</%s>" % tag.upper(), ""))
        if close == "":
            self.feat("raw_unclosed")
            close = "" if ch.chance(0.3) else "</%s>" % tag
        return "<" + tag + self.attrs() + ">" + body + close

    def structure(self) -> str:
        """A pattern that exercises auto-closing, misnesting or misplaced tags."""
        ch = self.ch
        w = lambda: _words(ch, 1, 3)  # noqa: E731
        k = ch.randint(0, 13)
        if k == 0:
            self.feat("autoclose_p")
            return ch.choice(("<p>%s<p>%s", "<p>%s<div>%s</div>", "<p>%s<table><tr><td>%s</table>",
                              "<p>%s<ul><li>%s</ul></p>", "<p>%s<h2>%s</h2>", "<p>%s<section>%s</section>")) % (w(), w())
        if k == 1:
            self.feat("autoclose_li")
            return "<ul><li>%s<li>%s<li><ul><li>%s</ul></ul>" % (w(), w(), w())
        if k == 2:
            self.feat("autoclose_dd_dt")
            return "<dl><dt>%s<dd>%s<dt>%s<dd><dd>%s</dl>" % (w(), w(), w(), w())
        if k == 3:
            self.feat("autoclose_option")
            return "<select><option>%s<option selected>%s<optgroup><option>%s</select>" % (w(), w(), w())
        if k == 4:
            self.feat("autoclose_table")
            return ch.choice(("<table><tr><td>%s<td>%s<tr><th>%s</table>",
                              "<table><thead><tr><th>%s<tbody><tr><td>%s<tfoot><tr><td>%s</table>",
                              "<table><caption>%s<col><tr><td>%s</td><p>%s</table>",
                              "<table><td>%s<table><td>%s</table>%s</table>")) % (w(), w(), w())
        if k == 5:
            self.feat("misnest_b_div")
            return "<b>%s<div>%s</b>%s</div>" % (w(), w(), w())
        if k == 6:
            self.feat("misnest_div_td")
            return "<div><table><tr><td><div>%s</div></td><td>%s</div>%s</td></tr></table></div>" % (w(), w(), w())
        if k == 7:
            self.feat("misnest_inline")
            return ch.choice(("<a href=x>%s<a href=y>%s</a>%s", "<i><b>%s</i>%s</b>%s", "<form>%s<form>%s</form>%s",
                              "<span><p>%s</span>%s</p>%s", "<font><center>%s</font>%s</center>%s")) % (w(), w(), w())
        if k == 8:
            self.feat("stray_end_tags")
            return ch.choice(("</p>", "</br>", "</div>", "</span>", "</li>", "</td>", "</x-y>")) + w()
        if k == 9:
            self.feat("misplaced_html_head_body")
            return ch.choice(("<html lang=de>", "<body class=late>", "<head><title>t</title></head>", "</body>",
                              "<body/>", "<html/>", "</head>", "<head>", "</html>")) + w()
        if k == 10:
            self.feat("self_closing_nonvoid")
            return ch.choice(("<div/>%s", "<p/>%s", "<span/>%s", "<a href=x/>%s", "<td/>%s")) % w()
        if k == 11:
            self.feat("void_elements")
            return "".join("<%s%s>" % (ch.choice(VOID), self.attrs()) for _ in range(ch.randint(1, 3))) + w()
        if k == 12:
            self.feat("odd_tag_names")
            t = ch.choice(ODD_TAGS)
            return "<%s>%s</%s>" % (t, w(), t)
        self.feat("doctype_late")
        return "<!DOCTYPE html>" + w()

    def deep(self) -> str:
        ch = self.ch
        self.feat("deep_nesting")
        n = ch.randint(240, 320)
        tags = [ch.choice(("div", "span", "b", "section", "div")) for _ in range(n)]
        close = ch.chance(0.5)
        return "".join("<%s>" % t for t in tags) + _words(ch, 1, 3) + ("".join("</%s>" % t for t in reversed(tags)) if close else "")

    def node(self, depth: int) -> str:
        ch = self.ch
        self.budget -= 1
        k = ch.randint(0, 19)
        if k <= 5 or self.budget <= 0 or depth > 14:
            return self.text()
        if k <= 7:
            return self.comment()
        if k == 8:
            return self.raw_element()
        if k <= 11:
            return self.structure()
        if k == 12 and ch.chance(0.04):
            return self.deep()
        tag = ch.choice(BLOCK) if k <= 15 else ch.choice(INLINE)
        inner = "".join(self.node(depth + 1) for _ in range(ch.randint(0, 4)))
        end = "</%s>" % tag
        r = ch.randint(0, 9)
        if r == 0:
            self.feat("unclosed_element")
            end = ""
        elif r == 1:
            self.feat("end_tag_case_space")
            end = ch.choice(("</%s >" % tag.upper(), "</%s foo=bar>" % tag, "</%s\n>" % tag, "</%s/>" % tag))
        return "<%s%s>%s%s" % (tag if not ch.chance(0.1) else tag.upper(), self.attrs(), inner, end)

    def head_content(self) -> str:
        ch = self.ch
        out = []
        for _ in range(ch.randint(0, 4)):
            k = ch.randint(0, 6)
            if k == 0:
                out.append("<title>%s</title>" % self.text())
            elif k == 1:
                out.append(ch.choice(('<meta charset="utf-8">', '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">',
                                      '<meta name="description" content="%s">' % _words(ch, 2, 6), "<meta property=og:title content=x>")))
            elif k == 2:
                out.append(self.raw_element())
            elif k == 3:
                out.append(ch.choice(("<link rel=stylesheet href=a.css>", "<base href=/>", "<noscript><p>x</p></noscript>")))
            elif k == 4:
                self.feat("head_text")
                out.append(ch.choice(("  ", "\n", " x ", "text in head")))
            elif k == 5:
                self.feat("element_in_head")
                out.append(ch.choice(("<section>s</section>", "<div>d</div>", "<my-el>m</my-el>", "<p>p")))
            else:
                out.append(self.comment())
        return "".join(out)

    def document(self) -> str:
        ch = self.ch
        self.budget = ch.randint(1, 60)
        out: List[str] = []
        # prolog
        if ch.chance(0.05):
            self.feat("bom")
            out.append("\ufeff")
        if ch.chance(0.2):
            out.append(ch.choice((" ", "\n", "\r\n", "\t \n")))
        if ch.chance(0.03):
            self.feat("xml_declaration")
            out.append(ch.choice(('<?xml version="1.0" encoding="utf-8"?>', "<?xml version='1.0'?>")))
        if ch.chance(0.15):
            out.append(self.comment())
        if ch.chance(0.5):
            self.feat("doctype")
            out.append(ch.choice(("<!DOCTYPE html>", "<!doctype HTML>", "<!DOCTYPE>", "<!DOCTYPEhtml>",
                                  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
                                  '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">',
                                  '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN">',
                                  "<!DoCtYpE html SYSTEM 'about:legacy-compat'>", "<!DOCTYPE html x y z")))
            if ch.chance(0.3):
                out.append("\n")
        explicit_html = ch.chance(0.6)
        if explicit_html:
            out.append(ch.choice(("<html>", "<html lang=en>", "<HTML>", '<html xmlns="http://www.w3.org/1999/xhtml">')))
            if ch.chance(0.3):
                out.append("\n  ")
        else:
            self.feat("implied_html")
        if ch.chance(0.6):
            if ch.chance(0.8):
                out.append("<head%s>" % self.attrs())
            else:
                self.feat("implied_head")
            out.append(self.head_content())
            if ch.chance(0.8):
                out.append("</head>")
            if ch.chance(0.3):
                out.append(ch.choice(("\n", " ", "\n\t")))
        if ch.chance(0.7):
            out.append("<body%s>" % self.attrs())
        else:
            self.feat("implied_body")
        while self.budget > 0:
            out.append(self.node(0))
        if ch.chance(0.6):
            out.append("</body>")
            if ch.chance(0.15):
                self.feat("after_body")
                out.append(self.node(0))
        if explicit_html and ch.chance(0.6):
            out.append("</html>")
            if ch.chance(0.15):
                self.feat("after_html")
                out.append(ch.choice(("\n", "text after", "<p>late</p>", "<!--c-->x", " <div>d</div>")))
        if ch.chance(0.02):
            self.feat("plaintext")
            out.append("<plaintext><p>rest &amp; </plaintext>")
        if ch.chance(0.05):
            self.feat("truncated_tag")
            out.append(ch.choice(("<div class=", "<p", "<a href='x", "</div", "<!--")))
        return "".join(out)


# --------------------------------------------------------------------------- article grammar

_TAG_RE = re.compile(r"<[^>]*>")


class ArticleGrammar:
    """Article-like pages with boilerplate around a real body of text."""

    def __init__(self, ch, stress: Optional[StressGrammar] = None) -> None:
        self.ch = ch
        self.stress = stress or StressGrammar(ch, surrogates=False)
        self.features = self.stress.features

    def cls(self, pool) -> str:
        ch = self.ch
        names = [ch.choice(pool) for _ in range(ch.randint(1, 2))]
        if ch.chance(0.2):
            names.append(ch.choice(("clearfix", "container", "col-md-8", "wrapper", "row")))
        attr = ch.choice(("class", "class", "class", "id"))
        return ' %s="%s"' % (attr, " ".join(names) if attr == "class" else "-".join(names))

    def inline_text(self, lo=1, hi=4) -> str:
        ch = self.ch
        out = []
        for _ in range(ch.randint(lo, hi)):
            s = _sentence(ch)
            k = ch.randint(0, 9)
            if k == 0:
                s = "<b>%s</b> %s" % (_words(ch, 1, 3), s)
            elif k == 1:
                s = '%s <a href="https://example.org/%s">%s</a>.' % (s, ch.choice(WORDS), _words(ch, 1, 4))
            elif k == 2:
                s = "<i>%s</i>, %s" % (_words(ch, 1, 3), s)
            elif k == 3:
                s = "%s <span>%s</span>" % (s, _words(ch, 1, 4))
            elif k == 4:
                s = "%s <code>%s()</code>" % (s, ch.choice(WORDS))
            elif k == 5:
                s = s + "<br>" + _words(ch, 2, 6)
            elif k == 6 and ch.chance(0.3):
                s = s + self.stress.entity()
            out.append(s)
        return " ".join(out)

    def block(self, depth: int = 0) -> str:
        ch = self.ch
        k = ch.randint(0, 14)
        if k <= 6:
            return "<p%s>%s</p>" % ("" if ch.chance(0.8) else self.cls(CONTENT_CLASSES), self.inline_text())
        if k == 7:
            return "<h%d>%s</h%d>" % ((n := ch.randint(2, 4)), _words(ch, 2, 7).title(), n)
        if k == 8:
            lt = ch.choice(("ul", "ol"))
            return "<%s>%s</%s>" % (lt, "".join("<li>%s</li>" % self.inline_text(1, 2) for _ in range(ch.randint(2, 6))), lt)
        if k == 9:
            return "<blockquote><p>%s</p></blockquote>" % self.inline_text()
        if k == 10:
            rows = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % _words(ch, 1, 5) for _ in range(ch.randint(1, 4)))
                           for _ in range(ch.randint(1, 5)))
            head = "<thead><tr><th>%s</th><th>%s</th></tr></thead>" % (_words(ch, 1, 2), _words(ch, 1, 2)) if ch.chance(0.5) else ""
            return "<table>%s<tbody>%s</tbody></table>" % (head, rows)
        if k == 11:
            return "<pre><code>%s\n%s</code></pre>" % (_words(ch, 2, 6), _words(ch, 2, 6))
        if k == 12:
            return '<figure><img src="/img/%s.jpg" alt="%s"><figcaption>%s</figcaption></figure>' % (
                ch.choice(WORDS), _words(ch, 1, 3), _words(ch, 2, 8))
        if k == 13 and depth < 3:
            return "<div%s>%s</div>" % (self.cls(CONTENT_CLASSES + BOILER_CLASSES),
                                        "".join(self.block(depth + 1) for _ in range(ch.randint(1, 3))))
        if ch.chance(0.3):
            return self.stress.structure()
        return "<p>%s</p>" % self.inline_text()

    def boiler(self) -> str:
        ch = self.ch
        k = ch.randint(0, 6)
        links = "".join('<li><a href="/%s">%s</a></li>' % (ch.choice(WORDS), _words(ch, 1, 2)) for _ in range(ch.randint(2, 7)))
        if k == 0:
            return '<div%s><ul>%s</ul></div>' % (self.cls(("share", "social", "elementor-share-buttons")), links)
        if k == 1:
            return '<div%s><h3>Related</h3><ul>%s</ul></div>' % (self.cls(("related", "jp-relatedposts", "teaser")), links)
        if k == 2:
            return '<div%s>Advertisement %s</div>' % (self.cls(("ad-", "ad-container", "banner", "widget")), _words(ch, 1, 5))
        if k == 3:
            return '<div%s><p>%s</p><button>OK</button></div>' % (self.cls(("cookie", "cookie-banner")), _sentence(ch))
        if k == 4:
            return '<p%s>By <a rel="author" href="/a">%s</a> <time datetime="2024-01-02">2 Jan 2024</time></p>' % (
                self.cls(("byline", "author", "entry-meta", "postinfo", "date")), _words(ch, 2, 2).title())
        if k == 5:
            return '<div%s>Tags: %s</div>' % (self.cls(("tags", "tags-links", "cat-links")), links)
        return '<div%s><form><input type=email name=e><button>Subscribe</button></form></div>' % self.cls(
            ("newsletter", "subscribe", "hidden"))

    def comments(self) -> str:
        ch = self.ch
        items = "".join('<li class="comment"><div class="comment-author">%s</div><p>%s</p></li>' % (
            _words(ch, 1, 2).title(), self.inline_text(1, 3)) for _ in range(ch.randint(1, 5)))
        return '<section%s><h2 class="comments-title">Comments</h2><ol class="comment-list">%s</ol></section>' % (
            self.cls(("comments", "comment", "respond", "reply-")), items)

    def document(self) -> str:
        ch = self.ch
        out = ["<!DOCTYPE html>" if ch.chance(0.9) else "", '<html lang="%s">' % ch.choice(("en", "de", "fr", "en-US"))]
        out.append('<head><meta charset="utf-8"><title>%s</title>' % _words(ch, 3, 8).title())
        if ch.chance(0.5):
            out.append('<meta name="description" content="%s">' % _sentence(ch))
        if ch.chance(0.3):
            out.append('<meta property="og:title" content="%s">' % _words(ch, 2, 5))
        if ch.chance(0.4):
            out.append("<script>var x = 1 < 2;</script><style>p{margin:0}</style>")
        out.append("</head><body%s>" % (self.cls(("page", "home", "single-post")) if ch.chance(0.4) else ""))
        if ch.chance(0.3):
            out.append(self.boiler())
        if ch.chance(0.7):
            nav = "".join('<li><a href="/%s">%s</a></li>' % (ch.choice(WORDS), ch.choice(WORDS).title()) for _ in range(ch.randint(2, 6)))
            out.append('<header%s><nav%s><ul>%s</ul></nav></header>' % (self.cls(("header", "site-header")), self.cls(("nav", "menu", "navigation")), nav))
        wrapper = ch.choice(("article", "div", "main", "section", "div"))
        out.append('<div%s>' % self.cls(("content", "main-content", "container", "page-content")) if ch.chance(0.6) else "<div>")
        out.append("<%s%s>" % (wrapper, self.cls(CONTENT_CLASSES)))
        out.append('<h1%s>%s</h1>' % (self.cls(("entry-title", "post-title", "headline", "title")) if ch.chance(0.5) else "",
                                     _words(ch, 3, 9).title()))
        if ch.chance(0.5):
            out.append(self.boiler())
        body = []
        while len(_TAG_RE.sub("", "".join(body))) < 400 or ch.chance(0.6):
            body.append(self.block())
            if ch.chance(0.1):
                body.append(self.boiler())
            if len(body) > 40:
                break
        out.extend(body)
        out.append("</%s>" % wrapper)
        if ch.chance(0.4):
            out.append(self.comments())
        out.append("</div>")
        if ch.chance(0.5):
            out.append('<aside%s>%s</aside>' % (self.cls(("sidebar", "widget")), self.boiler()))
        if ch.chance(0.7):
            out.append('<footer%s><p>© 2024 %s</p>%s</footer>' % (self.cls(("footer", "bottom-bar", "entry-footer")),
                                                              _words(ch, 1, 3).title(), self.boiler() if ch.chance(0.5) else ""))
        out.append("</body></html>")
        return "".join(out)


# --------------------------------------------------------------------------- bytes


def encode_document(ch, html: str, features: Optional[Set[str]] = None) -> bytes:
    """The bytes form of a document: UTF-8 mostly, sometimes another encoding or broken bytes."""
    feats = features if features is not None else set()
    k = ch.randint(0, 9)
    if k == 0:
        feats.add("bytes_cp1252")
        data = html.encode("cp1252", "replace")
        if ch.chance(0.5):
            data = b'<meta charset="windows-1252">' + data
        return data
    if k == 1:
        feats.add("bytes_bom")
        return b"\xef\xbb\xbf" + html.encode("utf-8", "surrogatepass")
    if k == 2:
        feats.add("bytes_invalid_utf8")
        data = bytearray(html.encode("utf-8", "surrogatepass"))
        for _ in range(ch.randint(1, 4)):
            pos = ch.randint(0, len(data))
            data[pos:pos] = ch.choice((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80", b"\xe2\x82", b"\xf0\x9f\x98"))
        return bytes(data)
    if k == 3 and ch.chance(0.3):
        feats.add("bytes_utf16")
        return html.encode("utf-16", "surrogatepass")
    return html.encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------- public: bulk


def random_html(rng: random.Random, features: Optional[Set[str]] = None) -> str:
    """One parser-stress document drawn from ``rng``."""
    g = StressGrammar(RandomChooser(rng))
    doc = g.document()
    if features is not None:
        features |= g.features
    return doc


def random_article(rng: random.Random, features: Optional[Set[str]] = None) -> str:
    """One article-like document drawn from ``rng``."""
    g = ArticleGrammar(RandomChooser(rng))
    doc = g.document()
    if features is not None:
        features |= g.features
    return doc


def random_bytes(rng: random.Random, features: Optional[Set[str]] = None) -> bytes:
    """The bytes form of a stress or article document."""
    ch = RandomChooser(rng)
    html = random_html(rng, features) if ch.chance(0.7) else random_article(rng, features)
    return encode_document(ch, html, features)


def generate(kind: str, seed: int, n: int) -> Iterator[str]:
    """``n`` documents of ``kind`` ("html" or "article") from ``seed``, deterministically."""
    rng = random.Random(seed)
    make = {"html": random_html, "article": random_article}[kind]
    for _ in range(n):
        yield make(rng)


# --------------------------------------------------------------------------- public: Hypothesis


def html_documents():
    """Hypothesis strategy: parser-stress documents (``str``)."""
    from hypothesis import strategies as st

    return st.composite(lambda draw: StressGrammar(HypothesisChooser(draw)).document())()


def article_documents():
    """Hypothesis strategy: article-like documents (``str``) with > 250 chars of text."""
    from hypothesis import strategies as st

    return st.composite(lambda draw: ArticleGrammar(HypothesisChooser(draw)).document())()


def html_bytes():
    """Hypothesis strategy: the bytes form of stress or article documents."""
    from hypothesis import strategies as st

    def build(draw):
        ch = HypothesisChooser(draw)
        html = StressGrammar(ch).document() if ch.chance(0.7) else ArticleGrammar(ch).document()
        return encode_document(ch, html)

    return st.composite(build)()


# --------------------------------------------------------------------------- feature detection

_DETECT: Dict[str, "re.Pattern[str]"] = {
    "implied_html": re.compile(r"^(?![\s\S]*<html)", re.I),
    "doctype": re.compile(r"<!doctype", re.I),
    "autoclose_p": re.compile(r"<p>[^<]*<(p|div|table|ul|h2|section)>"),
    "autoclose_li": re.compile(r"<li>[^<]*<li>"),
    "autoclose_dd_dt": re.compile(r"<dd>[^<]*<dt>|<dd><dd>"),
    "autoclose_option": re.compile(r"<option>[^<]*<option"),
    "autoclose_table": re.compile(r"<td>[^<]*<td>|<tbody><tr><td>[^<]*<tfoot>|<tr><td>[^<]*<tr>|<td>[^<]*<table>"),
    "misnest_b_div": re.compile(r"<b>[^<]*<div>[^<]*</b>"),
    "misnest_div_td": re.compile(r"<td>[^<]*</div>"),
    "script": re.compile(r"<script", re.I),
    "rawtext": re.compile(r"<(style|xmp|iframe|noembed|noframes)[\s>/]", re.I),
    "rcdata": re.compile(r"<(textarea|title)[\s>/]", re.I),
    "plaintext": re.compile(r"<plaintext"),
    "comment": re.compile(r"<!--(?!>|->)[\s\S]*?-->"),
    "comment_short": re.compile(r"<!--->?|<!---->"),
    "comment_bang": re.compile(r"--!>"),
    "comment_unterminated": re.compile(r"<!--(?![\s\S]*--!?>)"),
    "bogus_comment": re.compile(r"<\?|<![^-dD]|</[^a-zA-Z]"),
    "entity_legacy_nosemi": re.compile(r"&(amp|lt|gt|quot|copy|reg|not|nbsp|eacute|uuml|para|sect|shy|micro)(?![;a-zA-Z])"),
    "entity_html5": re.compile(r"&(hellip|mdash|rsquo|NotNestedLessLess|fjlig|bne|Aacute|zwj|lang|rang|ThickSpace|apos|euro);"),
    "entity_numeric": re.compile(r"&#[xX]?[0-9a-fA-F]*;?"),
    "entity_bogus": re.compile(r"&(?![#a-zA-Z])|&foo;|&AMP;"),
    "attr_unquoted": re.compile(r"<[a-zA-Z][^<>]*\s[a-zA-Z-]+=[^\s\"'>][^\s>]*"),
    "attr_single_quoted": re.compile(r"<[a-zA-Z][^<>]*=\s*'"),
    "attr_valueless": re.compile(r"<[a-zA-Z][^<>]*\s(checked|compact|declare|defer|disabled|ismap|multiple|nohref|noresize|noshade|nowrap|readonly|selected|hidden|class|id)(?=[\s>/])"),
    "attr_boolean": re.compile(r"\s(checked|compact|declare|defer|disabled|ismap|multiple|nohref|noresize|noshade|nowrap|readonly|selected)[\s>=/]"),
    "nul": re.compile("\x00"),
    "cr": re.compile(r"\r(?!\n)"),
    "crlf": re.compile(r"\r\n"),
    "control": re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"),
    "lone_surrogate": re.compile("[\ud800-\udfff]"),
    "deep_nesting": re.compile(r"(?:<(?:div|span|b|section)>){200}"),
    "long_text": re.compile(r"[^<]{4000}"),
    "misplaced_html_head_body": re.compile(r"<(body|head|html)[\s>/][\s\S]*<(html|head|body)[\s>/]", re.I),
    "after_html": re.compile(r"</html>\s*\S"),
    "stray_end_tags": re.compile(r"</br>|</x-y>"),
    "void_elements": re.compile(r"<(br|img|hr|input|wbr|source|embed)[\s>/]"),
}

#: features :func:`html_documents` must produce (by detection)
STRESS_FEATURES = tuple(sorted(_DETECT))
#: features that article documents use
ARTICLE_FEATURES = ("doctype", "script", "rcdata", "void_elements")
ARTICLE_CLASS_RE = re.compile(r'(?:class|id)="([^"]*)"')


def features_of(html: str) -> Set[str]:
    """The grammar features visible in ``html``."""
    return {name for name, rx in _DETECT.items() if rx.search(html)}


def article_classes(html: str) -> Set[str]:
    """class/id words of a document (to check the XPath vocabulary is exercised)."""
    out: Set[str] = set()
    for m in ARTICLE_CLASS_RE.finditer(html):
        out.update(re.split(r"[\s]+", m.group(1)))
    return out
