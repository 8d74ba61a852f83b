"""Tree construction: libxml2 2.14.6's element stack rules plus the SAX2 tree builder.

This is the half of ``HTMLparser.c`` that decides where things go (implied
html/head/body, auto-close on start and end tags, end-tag priorities) and the
part of ``SAX2.c`` that links nodes (``xmlSAX2StartHtmlElement``,
``xmlSAX2Text``, ``nodePush``). The tokenizer (:mod:`trafila.html.tokenizer`)
calls it in the order libxml2's parser calls its SAX callbacks.

lxml's ``remove_comments`` clears the comment callback, so no comment node is
ever created and text on both sides of a comment lands in one text node; here
text is simply accumulated and flushed into ``.text``/``.tail`` when the
element stack changes.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from ..dom import NO_VALUE, Document, Element, append_parsed_child, last_child
from .tables import BOOLEAN_ATTRIBUTES, DEFAULT_END_PRIORITY, END_PRIORITY, START_CLOSE

# libxml2: htmlInsertMode
INSERT_INITIAL = 1
INSERT_IN_HEAD = 3
INSERT_IN_BODY = 10

#: libxml2 (parser.c): nodePush refuses to go deeper than this without HUGE
MAX_DEPTH = 256

_HEAD_ONLY = frozenset(["script", "style", "meta", "link", "title", "base"])
_NO_IMPLIED_BODY = frozenset(["noframes", "frame", "frameset"])
_WS = " \t\n\x0c\r"  # libxml2: IS_WS_HTML (no vertical tab)


class TreeBuilder:
    """The parser's element stack (names and nodes) and the document it builds."""

    def __init__(self) -> None:
        self.doc = Document()
        self.names: List[str] = []  # libxml2: ctxt->nameTab
        self.nodes: List[Element] = []  # libxml2: ctxt->nodeTab
        self.insert_mode = INSERT_INITIAL  # libxml2: ctxt->html
        self.depth = 0  # libxml2: ctxt->depth (misplaced html/head/body start tags)
        self.stopped = False  # libxml2: PARSER_STOPPED (the depth limit halts)
        self._text: List[str] = []  # characters not yet linked into the tree

    # -- SAX2 side ---------------------------------------------------------
    def flush_text(self) -> None:
        """Link pending characters: into the current node's text or its last child's tail."""
        if not self._text:
            return
        text = "".join(self._text)
        # cleared in place: the tokenizer's main loop holds this list
        self._text.clear()
        node = self.nodes[-1]
        # only the parser adds children, so the last one is the last linked
        last = last_child(node)
        if last is not None:
            last.tail = text if last.tail is None else last.tail + text
        else:
            node.text = text if node.text is None else node.text + text

    def characters(self, text: str) -> None:
        # libxml2: xmlSAX2Text -- dropped when no element is open; an empty
        # run makes no callback at all (an empty <textarea> has text None)
        if text and self.nodes and not self.stopped:
            self._text.append(text)

    def start_element(self, name: str, attrs: Optional[Dict[str, Optional[str]]]) -> None:
        """Push ``name`` and link a new element (libxml2: htmlnamePush + xmlSAX2StartHtmlElement)."""
        if self._text:
            self.flush_text()
        # libxml2: htmlnamePush also records that a head/body was seen
        if name == "head" and self.insert_mode < INSERT_IN_HEAD:
            self.insert_mode = INSERT_IN_HEAD
        elif name == "body" and self.insert_mode < INSERT_IN_BODY:
            self.insert_mode = INSERT_IN_BODY
        self.names.append(name)
        if len(self.nodes) >= MAX_DEPTH:
            # libxml2: nodePush fails -> xmlHaltParser; lxml keeps the tree so far
            self.stopped = True
            return
        if attrs:
            if None in attrs.values():
                attrs = {
                    # libxml2: xmlSAX2HtmlAttribute -- a valueless boolean attribute gets its
                    # name; any other valueless one has no value node (reads as '')
                    k: (v if v is not None else (k if k in BOOLEAN_ATTRIBUTES else NO_VALUE))
                    for k, v in attrs.items()
                }
        else:
            attrs = {}
        nodes = self.nodes
        if nodes:
            nodes.append(append_parsed_child(nodes[-1], name, attrs))  # type: ignore[arg-type]
        else:
            el = append_parsed_child(None, name, attrs)  # type: ignore[arg-type]
            self.doc.append_root(el)
            nodes.append(el)

    def end_element(self) -> None:
        """Pop the current element (libxml2: endElement + htmlnamePop)."""
        if self._text:
            self.flush_text()
        self.names.pop()
        if self.nodes:
            self.nodes.pop()

    def finish(self) -> Document:
        if self._text and self.nodes:
            self.flush_text()
        self._text = []
        return self.doc

    # -- HTMLparser.c side -------------------------------------------------
    @property
    def name(self) -> Optional[str]:
        """The current element's name (libxml2: ctxt->name)."""
        return self.names[-1] if self.names else None

    def auto_close(self, newtag: str) -> None:
        """Pop while the new start tag closes the current element.
        # libxml2: htmlAutoClose"""
        names = self.names
        while names and (names[-1], newtag) in START_CLOSE:
            self.end_element()

    def auto_close_on_close(self, newtag: str) -> None:
        """Pop up to the element an end tag names, unless something of higher priority is in between.
        # libxml2: htmlAutoCloseOnClose"""
        priority = END_PRIORITY.get(newtag, DEFAULT_END_PRIORITY)
        names = self.names
        for i in range(len(names) - 1, -1, -1):
            if names[i] == newtag:
                break
            if END_PRIORITY.get(names[i], DEFAULT_END_PRIORITY) > priority:
                return
        else:
            return
        while names[-1] != newtag:
            self.end_element()

    def auto_close_on_end(self) -> None:
        # libxml2: htmlAutoCloseOnEnd
        while self.names:
            self.end_element()

    def check_implied(self, newtag: str) -> None:
        """Open the html/head/body a new tag (or text) needs.
        # libxml2: htmlCheckImplied"""
        if newtag == "html":
            return
        if not self.names:
            self.start_element("html", None)
        if newtag == "body" or newtag == "head":
            return
        if len(self.names) <= 1 and newtag in _HEAD_ONLY:
            if self.insert_mode >= INSERT_IN_HEAD:
                return  # a head was seen or implied before
            self.start_element("head", None)
        elif newtag not in _NO_IMPLIED_BODY:
            if self.insert_mode >= INSERT_IN_BODY:
                return  # a body was seen or implied before
            if "body" in self.names or "head" in self.names:
                return
            self.start_element("body", None)

    def start_char_data(self) -> None:
        """Before non-blank text: close a current head, imply html/body.
        # libxml2: htmlStartCharData"""
        if self.names and self.names[-1] == "head":
            self.auto_close("p")
        self.check_implied("p")

    def char_data(self, text: str) -> None:
        """Text of normal or RCDATA content.
        # libxml2: htmlCharDataSAXCallback (mode 0 / DATA_RCDATA)"""
        name = self.names[-1] if self.names else None
        if name is None or name == "html" or name == "head":
            # leading whitespace stays in html/head (or is dropped with no element open)
            stripped = text.lstrip(_WS)
            if len(stripped) != len(text):
                self.characters(text[: len(text) - len(stripped)])
                text = stripped
            if not text:
                return
            self.start_char_data()
            if self.stopped:
                return
        self.characters(text)
