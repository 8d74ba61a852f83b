"""Serialisers: lxml 6.1.3's ``etree.tostring`` over libxml2 2.14.6.

Three methods, as lxml offers them:

* ``method="xml"`` -- libxml2's ``xmlNodeDumpOutput`` (xmlsave.c): empty
  elements as ``<x/>``, text escaped by ``xmlSerializeText``.  When the
  document's doctype is XHTML 1.0 (``xmlIsXHTML``) the XHTML variant
  (``xhtmlNodeDumpOutput``) runs instead: ``<br />``, ``<p></p>``, an
  ``xmlns`` on ``html``, ``id`` copied from ``name``, ``xml:lang`` from
  ``lang``, minimised boolean attributes expanded, and a Content-Type
  ``<meta>`` injected into a ``head`` that lacks one.
* ``method="html"`` -- ``htmlNodeDumpFormatOutput`` (HTMLtree.c): no end tag
  for void elements or for an empty ``<li>``, boolean attributes minimised,
  URI escaping of href/src/action (and ``name`` on ``a``), script/style raw.
* ``method="text"`` -- ``xmlNodeBufGetContent`` plus the tail.

Encodings follow lxml's ``tostring``: ``encoding=str`` / ``"unicode"`` gives a
``str``; ``None`` means ASCII bytes (characters outside ASCII become decimal
character references, libxml2's output-encoder fallback; with
``method="text"`` they raise UnicodeEncodeError as in lxml); ``"utf-8"`` gives
UTF-8 bytes.  The element table below is libxml2's ``html40ElementTable``
(HTMLparser.c, libxml2 2.14.6, MIT licence): only its ``empty``,
``saveEndTag`` and ``isinline`` columns are used here.
"""

from __future__ import annotations

import re
from typing import Any, List, Optional, Union

from trafila.dom import NO_VALUE, Document, Element, _Valueless, children_list, is_top_level, last_child

__all__ = ["tostring", "is_xhtml_doctype"]

# -- tables -------------------------------------------------------------------

# libxml2 html40ElementTable: elements with empty=1 (no content, no end tag)
_HTML_EMPTY = frozenset(
    "area base basefont br col frame hr img input isindex link meta param".split()
)
# saveEndTag != 0: the end tag of an EMPTY instance is omitted (li in practice)
_HTML_SAVE_END_TAG = _HTML_EMPTY | {"li"}
# isinline != 0
_HTML_INLINE = frozenset(
    "a abbr acronym applet b basefont bdo big br button cite code del dfn em embed font i iframe img "
    "input ins kbd label map object q s samp script select small span strike strong sub sup textarea "
    "tt u var xmp".split()
)
# every element the table knows (for the inline/block decision in pretty printing)
_HTML_KNOWN = frozenset(
    "a abbr acronym address applet area b base basefont bdo big blockquote body br button caption "
    "center cite code col colgroup dd del dfn dir div dl dt em embed fieldset font form frame frameset "
    "h1 h2 h3 h4 h5 h6 head hr html i iframe img input ins isindex kbd label legend li link map menu "
    "meta noembed noframes noscript object ol optgroup option p param plaintext pre q s samp script "
    "select small span strike strong style sub sup table tbody td textarea tfoot th thead title tr tt "
    "u ul var xmp".split()
)
# HTMLtree.c htmlBooleanAttrs (compared case-insensitively)
_BOOLEAN_ATTRS = frozenset(
    "checked compact declare defer disabled ismap multiple nohref noresize noshade nowrap readonly "
    "selected".split()
)
# xmlsave.c xhtmlIsEmpty
_XHTML_EMPTY = frozenset("area br base basefont col frame hr img input isindex link meta param".split())

_XHTML_PUBLIC_IDS = frozenset({
    "-//W3C//DTD XHTML 1.0 Strict//EN",
    "-//W3C//DTD XHTML 1.0 Frameset//EN",
    "-//W3C//DTD XHTML 1.0 Transitional//EN",
})
_XHTML_SYSTEM_IDS = frozenset({
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd",
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-frameset.dtd",
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd",
})

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _ascii_lower(s: str) -> str:
    # libxml2 compares tag names with xmlStrcasecmp: ASCII letters only
    return s.translate(_ASCII_LOWER)


# -- escaping (xmlsave.c xmlEscapeTab / xmlEscapeTabAttr) ---------------------

# text: & < > and CR become references, the other C0 controls (not TAB/LF)
# become U+FFFD; attributes also escape " TAB LF.  HTML method text and
# attribute values (xmlEncodeEntitiesReentrant) escape & < > only in an HTML
# document, & < > CR in an XML one.
_C0_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _escape_html_text(s: str) -> str:
    # xmlEncodeEntitiesReentrant on an HTML document: & < > only
    # (str.replace per character beats str.translate on long script text)
    if "&" in s:
        s = s.replace("&", "&amp;")
    if "<" in s:
        s = s.replace("<", "&lt;")
    if ">" in s:
        s = s.replace(">", "&gt;")
    return s


def _escape_text(s: str) -> str:
    s = _escape_html_text(s)
    if "\r" in s:
        s = s.replace("\r", "&#13;")
    if _C0_CONTROLS.search(s) is not None:
        s = _C0_CONTROLS.sub("&#xFFFD;", s)
    return s


def _escape_attr(s: str) -> str:
    s = _escape_text(s)
    if '"' in s:
        s = s.replace('"', "&quot;")
    if "\t" in s:
        s = s.replace("\t", "&#9;")
    if "\n" in s:
        s = s.replace("\n", "&#10;")
    return s


def _escape_html_text_xml_doc(s: str) -> str:
    # the same on an XML document (a fresh etree.Element): CR too
    s = _escape_html_text(s)
    if "\r" in s:
        s = s.replace("\r", "&#13;")
    return s


# uri.c xmlURIEscapeStr: unreserved characters and the given list stay, every
# other byte of the UTF-8 encoding becomes %XX
_URI_KEEP = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()" + b"\"#$%&+,/:;<=>?@[\\]^`{|}"
)


def _uri_escape(s: str) -> str:
    out: List[str] = []
    for b in s.encode("utf-8", "surrogatepass"):
        if b in _URI_KEEP:
            out.append(chr(b))
        else:
            out.append("%%%02X" % b)
    return "".join(out)


def _quoted(value: str) -> str:
    # xmlOutputBufferWriteQuotedString
    if '"' in value:
        if "'" in value:
            return '"' + value.replace('"', "&quot;") + '"'
        return "'" + value + "'"
    return '"' + value + '"'


def is_xhtml_doctype(public_id: Optional[str], system_url: Optional[str]) -> bool:
    """tree.c xmlIsXHTML: an XHTML 1.0 public or system identifier."""
    return (public_id is not None and public_id in _XHTML_PUBLIC_IDS) or (
        system_url is not None and system_url in _XHTML_SYSTEM_IDS
    )


# -- XML / XHTML ----------------------------------------------------------------

class _XmlWriter:
    """xmlNodeDumpOutputInternal / xhtmlNodeDumpOutput for one element."""

    def __init__(self, xhtml: bool, pretty: bool, charset: str) -> None:
        self.out: List[str] = []
        self.xhtml = xhtml
        self.format = pretty
        self.level = 0
        self.charset = charset

    def indent(self, extra: int = 0) -> None:
        # xmlSaveWriteIndent: two spaces a level, at most 30 levels
        level = min(self.level + extra, 30)
        if level > 0:
            self.out.append("  " * level)

    def attrs(self, el: Element) -> None:
        w = self.out.append
        if not self.xhtml:
            for k, v in el.attrib.items():
                w(f' {k}="{_escape_attr(v)}"')
            return
        # xhtmlAttrListDumpOutput
        # an "xml:lang" attribute from the HTML parser has no namespace, so
        # libxml2 does not see it as xml:lang and adds one from lang anyway
        name = id_ = lang = None
        for k, v in el.attrib.items():
            if k == "id":
                id_ = v
            elif k == "name":
                name = v
            elif k == "lang":
                lang = v
            if v == "" and _ascii_lower(k) in _BOOLEAN_ATTRS:
                w(f' {k}="{k}"')
            else:
                w(f' {k}="{_escape_attr(v)}"')
        if name is not None and id_ is None and el.tag in (
            "a", "p", "div", "img", "map", "applet", "form", "frame", "iframe"
        ):
            w(f' id="{_escape_attr(name)}"')
        if lang is not None:
            w(f' xml:lang="{_escape_attr(lang)}"')

    def needs_meta(self, el: Element, parent: Optional[Element]) -> bool:
        # a head directly under a top-level html gets a Content-Type meta
        # unless it has one; lxml hands libxml2 a parentless-doc copy of the
        # element it serialises, so a head that is itself the serialised
        # element never qualifies
        if el.tag != "head" or parent is None or parent.tag != "html" or not is_top_level(parent):
            return False
        for c in children_list(el):
            if c.tag == "meta":
                v = c.attrib.get("http-equiv")
                if v is not None and _ascii_lower(v) == "content-type":
                    return False
        return True

    def meta(self) -> None:
        self.out.append(f'<meta http-equiv="Content-Type" content="text/html; charset={self.charset}" />')

    def element(self, root: Element) -> None:
        w = self.out.append
        xhtml = self.xhtml
        # explicit stack of (element, phase): phase 0 = open, 1 = close
        stack: List[Any] = [(root, None, 0)]
        unformatted: Optional[Element] = None
        saved_format = self.format
        while stack:
            el, parent, phase = stack.pop()
            if phase == 1:
                # closing tag after the children (post-order part of the walk)
                if self.level > 0:
                    self.level -= 1
                if self.format:
                    self.indent()
                w(f"</{el.tag}>")
                if el is unformatted:
                    self.format = saved_format
                    unformatted = None
                self._after(el, root, stack)
                continue
            if el is not root and self.format:
                self.indent()
            w("<" + el.tag)
            if xhtml and el.tag == "html":
                # libxml2 checks the node's namespace, which parsed HTML never
                # has: an xmlns attribute from the source is a plain attribute
                # and is written as well
                w(' xmlns="http://www.w3.org/1999/xhtml"')
            self.attrs(el)
            addmeta = xhtml and el is not root and self.needs_meta(el, parent)
            children = children_list(el)
            has_content = el.text is not None or bool(children)
            if not has_content:
                if not xhtml:
                    w("/>")
                elif el.tag in _XHTML_EMPTY and not addmeta:
                    w(" />")
                else:
                    w(">")
                    if addmeta:
                        if self.format:
                            w("\n")
                            self.indent(1)
                        self.meta()
                        if self.format:
                            w("\n")
                    w(f"</{el.tag}>")
                self._after(el, root, stack)
                continue
            w(">")
            if addmeta:
                if self.format:
                    w("\n")
                    self.indent(1)
                self.meta()
            if self.format and (el.text is not None or any(c.tail is not None for c in children)):
                # text among the children: no formatting inside this element
                self.format = False
                unformatted = el
            if self.format:
                w("\n")
            self.level += 1
            if el.text is not None:
                w(_escape_text(el.text))
            stack.append((el, parent, 1))
            for c in reversed(children):
                stack.append((c, el, 0))
        self.format = saved_format

    def _after(self, el: Element, root: Element, stack: List[Any]) -> None:
        # the part of libxml2's walk between a node and its next sibling
        if el is root:
            return
        if self.format:
            self.out.append("\n")
        if el.tail is not None:
            self.out.append(_escape_text(el.tail))
            if self.format:  # pragma: no cover - tails switch formatting off
                self.out.append("\n")


def _xml_plain(root: Element) -> str:
    """The common case of xmlNodeDumpOutputInternal (XML, not pretty):
    a flat loop over an explicit stack of elements and closing strings."""
    out: List[str] = []
    w = out.append
    esc = _escape_text
    esc_attr = _escape_attr
    stack: List[Any] = [root]
    pop = stack.pop
    push = stack.append
    while stack:
        el = pop()
        if el.__class__ is str:
            w(el)
            continue
        tag = el.tag
        attrib = el.attrib
        if attrib:
            w("<" + tag + "".join([f' {k}="{esc_attr(v)}"' for k, v in attrib.items()]))
        else:
            w("<" + tag)
        tail = el.tail if el is not root else None
        children = children_list(el)
        text = el.text
        if text is None and not children:
            w("/>" if tail is None else "/>" + esc(tail))
            continue
        w(">" if text is None else ">" + esc(text))
        push(f"</{tag}>" if tail is None else f"</{tag}>" + esc(tail))
        if children:
            stack.extend(reversed(children))
    return "".join(out)


def _xml(el: Element, pretty: bool, charset: str) -> str:
    doc = el.getroottree()
    info = doc.docinfo
    xhtml = info.has_doctype() and is_xhtml_doctype(info.public_id, info.system_url)
    if not xhtml and not pretty:
        return _xml_plain(el)
    writer = _XmlWriter(xhtml, pretty, charset)
    writer.element(el)
    return "".join(writer.out)


# -- HTML -------------------------------------------------------------------------

def _html_attr(el: Element, k: str, v: str, esc: Any) -> str:
    if _ascii_lower(k) in _BOOLEAN_ATTRS:
        return " " + k
    if v is NO_VALUE or (v == "" and isinstance(v, _Valueless)):
        # a valueless attribute from the parser: libxml2 has no value node
        return " " + k
    value = esc(v)
    lk = _ascii_lower(k)
    if lk in ("href", "action", "src") or (lk == "name" and _ascii_lower(el.tag) == "a"):
        i = 0
        while i < len(value) and value[i] in " \t\n\r":
            i += 1
        return f" {k}={_quoted(_uri_escape(value[i:]))}"
    return f" {k}={_quoted(value)}"


def _html(root: Element, pretty: bool, esc: Any) -> List[str]:
    out: List[str] = []
    w = out.append
    stack: List[Any] = [(root, root.getparent(), 0)]
    while stack:
        el, parent, phase = stack.pop()
        tag = el.tag
        ltag = _ascii_lower(tag)
        known = ltag in _HTML_KNOWN
        block = known and ltag not in _HTML_INLINE
        children = children_list(el)
        if phase == 1:
            last = children[-1] if children else None
            if pretty and block and last is not None and last.tail is None and (
                len(children) > 1 or el.text is not None
            ) and tag[:1] != "p":
                w("\n")
            w(f"</{tag}>")
            if pretty and block and el is not root and el.tail is None and _has_next(el) and (
                parent is not None and parent.tag[:1] != "p"
            ):
                w("\n")
            _html_after(el, root, parent, out, esc)
            continue
        w("<" + tag)
        for k, v in el.attrib.items():
            w(_html_attr(el, k, v, esc))
        if ltag in _HTML_EMPTY:
            # void: children, if any, are never written
            w(">")
        elif el.text is None and not children:
            if ltag in _HTML_SAVE_END_TAG and ltag not in ("html", "body"):
                w(">")
            else:
                w(f"></{tag}>")
        else:
            w(">")
            nodes = (1 if el.text is not None else 0) + len(children) + sum(
                1 for c in children if c.tail is not None)
            if pretty and block and el.text is None and nodes > 1 and tag[:1] != "p":
                w("\n")
            if el.text is not None:
                w(el.text if ltag in ("script", "style") else esc(el.text))
            stack.append((el, parent, 1))
            for c in reversed(children):
                stack.append((c, el, 0))
            continue
        if pretty and block and el is not root and el.tail is None and _has_next(el) and (
            parent is not None and parent.tag[:1] != "p"
        ):
            w("\n")
        _html_after(el, root, parent, out, esc)
    return out


def _has_next(el: Element) -> bool:
    p = el.getparent()
    return p is not None and last_child(p) is not el


def _html_after(el: Element, root: Element, parent: Optional[Element], out: List[str], esc: Any) -> None:
    if el is root:
        return
    if el.tail is not None:
        raw = parent is not None and _ascii_lower(parent.tag) in ("script", "style")
        out.append(el.tail if raw else esc(el.tail))


# -- text -------------------------------------------------------------------------

def _text(el: Element, with_tail: bool) -> str:
    parts = list(el.itertext())
    if with_tail and el.tail is not None:
        parts.append(el.tail)
    return "".join(parts)


def _dtd_line(info: Any, root_tag: str, method: str) -> str:
    """lxml's _writeDtdToBuffer: the doctype of a whole-document
    serialisation, only when its name matches the root tag (exactly for XML,
    ignoring ASCII case for HTML)."""
    name = info.root_name
    if not name:
        return ""
    if method == "html":
        if _ascii_lower(name) != _ascii_lower(root_tag):
            return ""
    elif name != root_tag:
        return ""
    public_id = info.public_id or None
    system_url = info.system_url or None
    out = "<!DOCTYPE " + name
    if public_id:
        out += ' PUBLIC "' + public_id + ('" ' if system_url else '"')
    elif system_url:
        out += " SYSTEM "
    if system_url:
        q = "'" if '"' in system_url else '"'
        out += q + system_url + q
    return out + ">\n"


# -- entry point ------------------------------------------------------------------

def _is_unicode(encoding: Any) -> bool:
    return encoding is str or (isinstance(encoding, str) and encoding.lower() == "unicode")


def _encode(s: str, encoding: str) -> bytes:
    enc = encoding.lower()
    if enc in ("utf-8", "utf8"):
        return s.encode("utf-8", "surrogatepass")
    if enc in ("ascii", "us-ascii"):
        return s.encode("ascii", "xmlcharrefreplace")
    return s.encode(encoding, "xmlcharrefreplace")


def tostring(
    element_or_tree: Union[Element, Document, None],
    *,
    encoding: Any = None,
    method: str = "xml",
    xml_declaration: Optional[bool] = None,
    pretty_print: bool = False,
    with_tail: bool = True,
    doctype: Optional[str] = None,
) -> Union[str, bytes, None]:
    """lxml.etree.tostring for trafila elements (see the module docstring)."""
    if element_or_tree is None:
        return None
    complete = isinstance(element_or_tree, Document)
    el = element_or_tree.getroot() if complete else element_or_tree
    if el is None:
        raise ValueError("empty document")
    method = (method or "xml").lower()
    if method not in ("xml", "html", "text"):
        raise ValueError(f"unknown output method {method!r}")
    unicode_out = _is_unicode(encoding)
    if unicode_out:
        if xml_declaration:
            raise ValueError("Serialisation to unicode must not request an XML declaration")
        write_declaration = False
        enc_name = "UTF-8"
    else:
        if xml_declaration is None:
            write_declaration = encoding is not None and encoding.upper() not in ("ASCII", "UTF-8", "UTF8", "US-ASCII")
        else:
            write_declaration = bool(xml_declaration)
        enc_name = "ASCII" if encoding is None else encoding

    if method == "text":
        text = _text(el, with_tail)
        if unicode_out:
            return text
        enc = enc_name.lower()
        if enc in ("utf-8", "utf8"):
            return text.encode("utf-8", "surrogatepass")
        return text.encode(enc_name, "strict")

    parts: List[str] = []
    if write_declaration and method == "xml":
        parts.append(f"<?xml version='1.0' encoding='{enc_name}'?>\n")
    if doctype is not None:
        parts.append(doctype + "\n")
    elif complete:
        parts.append(_dtd_line(element_or_tree.docinfo, el.tag, method))  # type: ignore[union-attr]
    if method == "html":
        esc = _escape_html_text if el.getroottree().is_html else _escape_html_text_xml_doc
        parts.extend(_html(el, pretty_print, esc))
        if with_tail and el.tail is not None:
            parent = el.getparent()
            raw = parent is not None and _ascii_lower(parent.tag) in ("script", "style")
            parts.append(el.tail if raw else esc(el.tail))
    else:
        parts.append(_xml(el, pretty_print, enc_name))
        if with_tail and el.tail is not None:
            parts.append(_escape_text(el.tail))
    if pretty_print:
        parts.append("\n")
    out = "".join(parts)
    if unicode_out:
        return out
    return _encode(out, enc_name)


# -- the XML re-read of trafilatura's output control --------------------------------

#: libxml2's IS_BLANK_CH minus "\r": tostring writes "\r" as "&#13;", and a character
#: reference is never blank to the parser that reads it back
_XML_BLANK = frozenset(" \t\n")
#: what tostring escapes in text: each is a reference to the parser, not character data
_TEXT_ESCAPED = re.compile(r"([&<>\r])")
#: blank runs of at least this length can reach the end of libxml2's input window mid-run
#: (measured: from 250 characters on), and are then kept where shorter ones are dropped
BLANK_WINDOW = 200


class _BlankState:
    """libxml2's parser state for one element's content, as far as ``areBlanks`` reads it:
    ``mixed`` is its xml:space slot turned -2 by character data (xmlParseCharData), and
    whether the element has any node yet, whether its first and last nodes are text."""

    __slots__ = ("mixed", "has_nodes", "first_text", "last_text")

    def __init__(self) -> None:
        self.mixed = False
        self.has_nodes = False
        self.first_text = False
        self.last_text = False

    def text_node(self) -> None:
        if not self.has_nodes:
            self.first_text = True
        self.has_nodes = True
        self.last_text = True

    def read(self, value: Optional[str], before_end_tag: bool) -> Optional[str]:
        """The text that reads back from ``value`` (None: dropped, or empty); raises
        ValueError when the result depends on libxml2's input window."""
        if not value:
            return None
        parts = _TEXT_ESCAPED.split(value)
        kept: List[str] = []
        last = len(parts) - 1
        for i, part in enumerate(parts):
            if i % 2:
                # a reference: its character joins the text node, the slot is untouched
                kept.append(part)
                self.text_node()
                continue
            if not part:
                continue
            if all(ch in _XML_BLANK for ch in part) and not (
                self.mixed or i < last or self.last_text or self.first_text
                or (not self.has_nodes and before_end_tag)
            ):
                # areBlanks: ignorable whitespace (followed by "<", no text around yet)
                if len(part) >= BLANK_WINDOW:
                    raise ValueError("blank run at libxml2's input window")
                continue
            kept.append(part)
            self.text_node()
            self.mixed = True
        return "".join(kept) or None


def remove_blank_text(root: Element) -> bool:
    """What ``fromstring(tostring(root, encoding="unicode"), XMLParser(remove_blank_text=True))``
    changes, done in place: lxml's round trip through libxml2 2.14's ``areBlanks``.

    Character data made only of spaces, tabs and newlines and followed by a tag is dropped
    as ignorable unless its element already holds character data (libxml2 marks the
    element's xml:space slot), its first or last node so far is text (from a reference such
    as ``&amp;``), or it is the element's whole content. Empty text and tails vanish
    (nothing is serialised for them). Everything else reads back as written. Returns
    False, the tree partly done, when a dropped run is long enough to meet libxml2's input
    window (:data:`BLANK_WINDOW`): the result then depends on where the buffer ends.
    """
    try:
        for el in root.iter():
            children = children_list(el)
            state = _BlankState()
            el.text = state.read(el.text, not children)
            for child in list(children):
                state.has_nodes = True
                state.last_text = False
                child.tail = state.read(child.tail, False)
    except ValueError:
        return False
    return True
