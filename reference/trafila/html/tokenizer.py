"""The tokenizer: libxml2 2.14.6's ``htmlParseDocument`` / ``htmlParseContent`` loop.

libxml2 reads UTF-8 bytes; this port reads the code points that
:mod:`trafila.html.input` decoded, so a name's 100-byte limit is counted in
UTF-8 bytes explicitly. Text runs are found with compiled regular
expressions (libxml2 has the same kind of accelerator: it only stops on NUL,
LF, CR, ``&``, ``-``, ``<`` and non-ASCII bytes).

Each method names the libxml2 function it ports.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ..dom import NO_VALUE, DocInfo, Document, append_parsed_child, last_child
from .entities import find_entity_prefix
from .tables import (
    DATA_MODE,
    DATA_PLAINTEXT,
    DATA_RCDATA,
    DATA_SCRIPT,
    DATA_SCRIPT_ESC1,
    DATA_SCRIPT_ESC2,
    EMPTY_ELEMENTS,
    START_CLOSE,
    BOOLEAN_ATTRIBUTES,
)
from .treebuilder import INSERT_IN_BODY, MAX_DEPTH, TreeBuilder

NAME_BUFFER = 100  # libxml2: HTML_PARSER_BUFFER_SIZE -- names keep at most 100 UTF-8 bytes

_BLANKS = re.compile(r"[ \t\n\x0c\r]*")
_TAG_NAME_REST = re.compile(r"[^/> \t\n\x0c\r]*")
_ATTR_NAME_REST = re.compile(r"[^/>= \t\n\x0c\r]*")
_UNQUOTED_VALUE = re.compile(r"[^ \t\n\x0c\r>]*")
_DOCTYPE_NAME = re.compile(r"[^ \t\n\x0c\r>]*")
_COMMENT_END = re.compile(r"--!?>")
_NCR = re.compile(r"#(?:[xX]([0-9a-fA-F]+)|([0-9]+));?")
_SPECIAL_IN_TEXT = re.compile(r"[&\r\x00]")
# Fast paths for the common, unambiguous shapes of tags (plain ASCII names of
# at most 100 characters, well-formed attributes, a closing '>' or '/>').
# Anything else takes the general path, which follows libxml2 step by step;
# both give the same result on what the fast patterns accept.
_WSC = " \t\n\x0c\r"
_FAST_ATTR = (
    rf"[{_WSC}]+[a-zA-Z_:][-a-zA-Z0-9_:.]{{0,99}}(?![-a-zA-Z0-9_:.])"
    rf"(?:[{_WSC}]*=[{_WSC}]*(?:\"[^\"]*\"|'[^']*'|[^{_WSC}>\"'=<`]+(?![^{_WSC}>])))?"
)
_FAST_START_TAG = re.compile(
    rf"<([a-zA-Z][-a-zA-Z0-9_:.]{{0,99}})(?![-a-zA-Z0-9_:.])((?:{_FAST_ATTR})*)[{_WSC}]*(?=/?>)"
)
# (name, value as written: quoted, bare, or '' when there is no value)
_FAST_ATTRS = re.compile(
    rf"[{_WSC}]+([a-zA-Z_:][-a-zA-Z0-9_:.]*)"
    rf"(?:[{_WSC}]*=[{_WSC}]*(\"[^\"]*\"|'[^']*'|[^{_WSC}>\"'=<`]+))?"
)
# parse_content's fast path: a run of text without '&' or NUL, then
# optionally a start tag as _FAST_START_TAG accepts it (its name, attributes
# and closing '/>' or '>') or an end tag as _FAST_END_TAG accepts it
_TOKEN = re.compile(
    r"([^<&\x00]*)(?:"
    rf"<([a-zA-Z][-a-zA-Z0-9_:.]{{0,99}})(?![-a-zA-Z0-9_:.])((?:{_FAST_ATTR})*)[{_WSC}]*(/?>)"
    rf"|</([a-zA-Z][-a-zA-Z0-9_:.]{{0,99}})[{_WSC}]*>"
    r"|([&\x00]))?"
)
# (name, '=' or '', double-quoted value, single-quoted value, bare value)
_FAST_ATTR_PARTS = re.compile(
    rf"[{_WSC}]+([a-zA-Z_:][-a-zA-Z0-9_:.]*)"
    rf"(?:[{_WSC}]*(=)[{_WSC}]*(?:\"([^\"]*)\"|'([^']*)'|([^{_WSC}>\"'=<`]+)))?"
)
_FAST_END_TAG = re.compile(rf"</([a-zA-Z][-a-zA-Z0-9_:.]{{0,99}})[{_WSC}]*>")
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_LOWER_ASCII = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_TAG_END_CHARS = frozenset("> /\t\n\x0c\r")

# libxml2: htmlC1Remap -- &#x80; .. &#x9F; read as windows-1252
_C1_REMAP = (
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
)

_END_TAG_RE: Dict[str, "re.Pattern[str]"] = {}


def _end_tag_re(name: str) -> "re.Pattern[str]":
    """``</name`` followed by blank, ``/`` or ``>``, ASCII case-insensitively."""
    pat = _END_TAG_RE.get(name)
    if pat is None:
        pat = re.compile("</" + re.escape(name) + r"(?=[ \t\n\x0c\r/>])", re.I | re.A)
        _END_TAG_RE[name] = pat
    return pat


_SCRIPT_STOPS: Dict[str, Dict[int, "re.Pattern[str]"]] = {}


def _script_stops(name: str) -> Dict[int, "re.Pattern[str]"]:
    """Per script state, what changes it: ``<!--``, ``</name``, ``<name`` or ``-->``
    (``name`` followed by blank, ``/`` or ``>``, ASCII case-insensitively)."""
    stops = _SCRIPT_STOPS.get(name)
    if stops is None:
        tag = re.escape(name) + r"(?=[ \t\n\x0c\r/>])"
        stops = _SCRIPT_STOPS[name] = {
            DATA_SCRIPT: re.compile("<!--|</" + tag, re.I | re.A),
            DATA_SCRIPT_ESC1: re.compile("</" + tag + "|<(?!/)" + tag + "|-->", re.I | re.A),
            DATA_SCRIPT_ESC2: re.compile("</" + tag + "|-->", re.I | re.A),
        }
    return stops


def code_point_text(cp: int) -> str:
    """The text of a numeric character reference.
    # libxml2: htmlCodePointToUtf8"""
    if 0x80 <= cp < 0xA0:
        return chr(_C1_REMAP[cp - 0x80])
    if cp <= 0 or 0xD800 <= cp < 0xE000 or cp > 0x10FFFF:
        return "\ufffd"
    return chr(cp)


def _ncr_value(digits: str, base: int) -> int:
    # libxml2 clamps the running value at 0x110000; leading zeros do not count
    digits = digits.lstrip("0")
    if len(digits) > 8:
        return 0x110000
    return min(int(digits, base) if digits else 0, 0x110000)


def normalize_newlines(text: str) -> str:
    """NUL becomes U+FFFD, CR LF and a lone CR become LF (before references are read)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    return text


def decode_refs(text: str, is_attr: bool) -> str:
    """Replace character references (``;`` optional) in already normalised text.
    # libxml2: the '&' branches of htmlParseCharData / htmlParseData"""
    i = text.find("&")
    if i < 0:
        return text
    out: List[str] = []
    last = 0
    n = len(text)
    while i >= 0:
        j = i + 1
        c = text[j] if j < n else ""
        if c == "#":
            m = _NCR.match(text, j)
            if m is not None:
                if m.group(1) is not None:
                    cp = _ncr_value(m.group(1), 16)
                else:
                    cp = _ncr_value(m.group(2), 10)
                out.append(text[last:i])
                out.append(code_point_text(cp))
                last = m.end()
                i = text.find("&", last)
                continue
        elif c in _ASCII_LETTERS:
            found = find_entity_prefix(text, j, is_attr)
            if found is not None:
                out.append(text[last:i])
                out.append(found[0])
                last = found[1]
                i = text.find("&", last)
                continue
        i = text.find("&", j)
    out.append(text[last:])
    return "".join(out)


_HTML_HEAD_BODY = frozenset(["html", "head", "body"])


def _closed_by() -> Dict[str, frozenset]:
    # libxml2: htmlStartClose, indexed by the new tag: the open elements it closes
    olds: Dict[str, set] = {}
    for old, new in START_CLOSE:
        olds.setdefault(new, set()).add(old)
    return {new: frozenset(found) for new, found in olds.items()}


_CLOSED_BY = _closed_by()
# what follows '>' of a start tag: -1 closes the element at once (empty), else the text mode
_AFTER_START: Dict[str, int] = {**DATA_MODE, **{name: -1 for name in EMPTY_ELEMENTS}}

# a tag name as written -> (lowercased name, open elements its start tag closes
# or None, what follows '>' of its start tag, whether it is html/head/body)
_TagInfo = Tuple[str, Optional[frozenset], int, bool]
_TAG_INFO: Dict[str, _TagInfo] = {}


def _tag_info(raw: str) -> _TagInfo:
    if len(_TAG_INFO) > 5000:
        _TAG_INFO.clear()  # keep the cache small whatever names documents invent
    name = raw.lower()
    info = _TAG_INFO[raw] = (name, _CLOSED_BY.get(name), _AFTER_START.get(name, 0), name in _HTML_HEAD_BODY)
    return info


_VALUELESS = {name: name for name in BOOLEAN_ATTRIBUTES}


def _fast_attrib(text: str) -> Dict[str, str]:
    """The attributes of a start tag _TOKEN accepted, as the element gets them.
    # libxml2: htmlParseAttribute + xmlSAX2HtmlAttribute"""
    parts = _FAST_ATTR_PARTS.findall(text)
    # a valueless boolean attribute gets its name; any other one has no value node
    attrib = {
        (name := written.lower()): (dq or sq or bare) if eq else _VALUELESS.get(name, NO_VALUE)
        for written, eq, dq, sq, bare in parts
    }
    if len(attrib) == len(parts) and _SPECIAL_IN_TEXT.search(text) is None:
        return attrib
    # duplicates (the first wins) or references to decode
    attrib = {}
    may_decode = _SPECIAL_IN_TEXT.search(text) is not None
    for name, eq, dq, sq, bare in parts:
        name = name.lower()
        if name in attrib:
            continue  # duplicate attributes: the first wins
        if eq:
            value = dq or sq or bare
            if may_decode and _SPECIAL_IN_TEXT.search(value) is not None:
                value = decode_refs(normalize_newlines(value), is_attr=True)
        else:
            # a valueless boolean attribute gets its name; any other one has no value node
            value = name if name in BOOLEAN_ATTRIBUTES else NO_VALUE
        attrib[name] = value
    return attrib


def _fix_name(raw: str) -> str:
    """Lowercase A-Z only, NUL -> U+FFFD, keep at most 100 UTF-8 bytes.
    # libxml2: the buffer handling of htmlParseHTMLName"""
    if raw.isascii() and "\x00" not in raw and len(raw) <= NAME_BUFFER:
        return raw.lower()
    raw = raw.translate(_LOWER_ASCII).replace("\x00", "\ufffd")
    if len(raw) * 4 <= NAME_BUFFER or len(raw.encode("utf-8")) <= NAME_BUFFER:
        return raw
    kept = []
    used = 0
    for ch in raw:
        o = ord(ch)
        size = 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
        # a character that does not fit is skipped; a later shorter one may still fit
        if used + size <= NAME_BUFFER:
            kept.append(ch)
            used += size
    return "".join(kept)


class Parser:
    """One parse of one decoded document."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)
        self.pos = 0
        self.mode = 0  # libxml2: ctxt->endCheckState (text mode of the current element)
        self.tb = TreeBuilder()
        self.doctype: Optional[Tuple[Optional[str], Optional[str], Optional[str]]] = None

    # -- small scanners --------------------------------------------------
    def skip_blanks(self) -> None:
        # libxml2: htmlSkipBlankChars
        self.pos = _BLANKS.match(self.s, self.pos).end()  # type: ignore[union-attr]

    def _looking_at_doctype(self) -> bool:
        # "<!" then DOCTYPE in any ASCII case (libxml2 compares with toupper)
        return self.s[self.pos + 2 : self.pos + 9].upper() == "DOCTYPE" and self.s[self.pos + 2 : self.pos + 9].isascii()

    def parse_html_name(self, attr: bool) -> str:
        """A tag or attribute name; the first character is always taken.
        # libxml2: htmlParseHTMLName"""
        s = self.s
        start = self.pos
        end = (_ATTR_NAME_REST if attr else _TAG_NAME_REST).match(s, start + 1).end()  # type: ignore[union-attr]
        self.pos = end
        return _fix_name(s[start:end])

    # -- document ----------------------------------------------------------
    def parse_document(self) -> Document:
        """# libxml2: htmlParseDocument"""
        s = self.s
        # whatever is before the first '<' and is blank is dropped
        self.skip_blanks()
        self._parse_prolog_misc()
        if s.startswith("<!", self.pos) and self._looking_at_doctype():
            self.parse_doctype(in_prolog=True)
        self.skip_blanks()
        self._parse_prolog_misc()
        self.parse_content()
        doc = self.tb.finish()
        if self.doctype is not None:
            # the name as written (case kept), as trafila.dom.DocInfo defines it;
            # '<!DOCTYPE>' has no name (lxml: DTD.name is None) -- '' keeps
            # has_doctype() true, as DocInfo has no other way to say "present"
            name, public_id, system_url = self.doctype
            doc.docinfo = DocInfo(name if name is not None else "", public_id, system_url)
        return doc

    def _parse_prolog_misc(self) -> None:
        s = self.s
        while True:
            if s.startswith("<!--", self.pos):
                self.pos += 4
                self.parse_comment(bogus=False)
            elif s.startswith("<?", self.pos):
                self.pos += 1
                self.parse_comment(bogus=True)
            else:
                break
            self.skip_blanks()

    def parse_content(self) -> None:
        """# libxml2: htmlParseContent

        The common shapes are handled inline, one _TOKEN match at a time (the
        matches of normal content follow one another): a run of plain text,
        then a start tag the fast pattern accepts (in an open body) or an end
        tag closing the current element. These take the same steps as
        parse_char_data, parse_element and parse_end_tag, minus the branches
        that cannot apply. Anything else -- text with references, other
        markup, a raw-text element's content -- leaves the run of matches for
        one step of the general path (_parse_step)."""
        s = self.s
        n = self.n
        tb = self.tb
        names = tb.names
        nodes = tb.nodes
        pending = tb._text
        find = s.find
        tokens = _TOKEN.finditer
        tag_info = _TAG_INFO.get
        body_open = False
        resume = False  # the run of matches stopped only to start again
        flush = tb.flush_text
        new_child = append_parsed_child
        last_of = last_child
        attr_cache: Dict[str, Dict[str, str]] = {}
        pos = self.pos
        while pos < n:
            if self.mode:
                self.pos = pos
                self.parse_char_data()
                pos = self.pos
                if tb.stopped:
                    break
                continue
            for m in tokens(s, pos):
                text, raw, attr_text, close, end_raw, stop = m.groups()
                if stop is not None:
                    # a reference or NUL in the run: the whole run is decoded
                    # (libxml2: htmlParseCharData), then the matches start again
                    start = m.start()
                    pos = find("<", start)
                    if pos < 0:
                        pos = n
                    text = decode_refs(normalize_newlines(s[start:pos]), is_attr=False)
                    current = names[-1] if names else None
                    if current is None or current == "html" or current == "head":
                        tb.char_data(text)
                    elif nodes:  # libxml2: xmlSAX2Text
                        pending.append(text)
                    resume = True
                    break
                if text:
                    if "\r" in text:  # CR LF and a lone CR become LF
                        text = text.replace("\r\n", "\n").replace("\r", "\n")
                    # libxml2: htmlCharDataSAXCallback
                    current = names[-1] if names else None
                    if current is None or current == "html" or current == "head":
                        tb.char_data(text)
                        if tb.stopped:
                            pos = m.end(1)
                            break
                    elif nodes:  # libxml2: xmlSAX2Text
                        if pending:
                            pending.append(text)
                        else:
                            # straight into the slot flush_text would fill, while it is
                            # empty (filling a non-empty one is left to flush_text, so a
                            # run cut by many comments is still joined once)
                            node = nodes[-1]
                            last = last_of(node)
                            if last is not None:
                                if last.tail is None:
                                    last.tail = text
                                else:
                                    pending.append(text)
                            elif node.text is None:
                                node.text = text
                            else:
                                pending.append(text)
                if end_raw is not None:
                    # libxml2: htmlParseEndTag
                    info = tag_info(end_raw) or _tag_info(end_raw)
                    name = info[0]
                    if names and names[-1] == name and not (info[3] and tb.depth):
                        # closes the current element: nothing of higher priority in between
                        if pending:
                            flush()
                        names.pop()
                        if nodes:
                            nodes.pop()
                    else:
                        self._end_tag(name)
                    continue
                if raw is not None:
                    name, closers, after, html_head_body = tag_info(raw) or _tag_info(raw)
                    # html/head/body tags may be dropped: general path
                    if not html_head_body:
                        # libxml2: htmlParseStartTag
                        if closers is not None and names and names[-1] in closers:
                            tb.auto_close(name)
                        # once a body is open (libxml2: insertMode, which never goes
                        # back) htmlCheckImplied adds nothing while an element is open
                        if not (names and body_open):
                            if names and tb.insert_mode >= INSERT_IN_BODY:
                                body_open = True
                            else:
                                tb.check_implied(name)
                        if attr_text:
                            # the same attribute text gives the same attributes: each
                            # element gets its own copy of the dict
                            attrib = attr_cache.get(attr_text)
                            if attrib is None:
                                attrib = attr_cache[attr_text] = _fast_attrib(attr_text)
                            attrib = attrib.copy()
                        else:
                            attrib = {}
                        # libxml2: htmlnamePush + xmlSAX2StartHtmlElement
                        if pending:
                            flush()
                        names.append(name)
                        if len(nodes) >= MAX_DEPTH:
                            # libxml2: nodePush fails -> xmlHaltParser
                            tb.stopped = True
                            pos = m.start(4)
                            break
                        # the element TreeBuilder.start_element would link (dom.append_parsed_child)
                        el = new_child(nodes[-1], name, attrib)
                        nodes.append(el)
                        # libxml2: htmlParseElementInternal -- '/>' closes any element
                        if close != ">":
                            after = -1
                        if after:
                            if after < 0:
                                if pending:
                                    flush()
                                names.pop()
                                nodes.pop()
                            else:
                                self.mode = after  # the content is read by the general path
                                pos = m.end()
                                break
                        continue
                # the general path reads what follows the text
                pos = m.end(1)
                break
            else:  # pragma: no cover - the last match is always an empty one at the end
                pos = n
            if tb.stopped:
                break
            if resume:
                resume = False
                continue
            if self.mode or pos >= n:
                continue
            self.pos = pos
            self._parse_step()
            pos = self.pos
            if tb.stopped:
                break
        self.pos = pos
        if pos >= n:
            tb.auto_close_on_end()

    def _parse_step(self) -> None:
        """One step of htmlParseContent by the general path (what parse_content's fast paths do not take)."""
        s = self.s
        n = self.n
        tb = self.tb
        pos = self.pos
        if self.mode == 0 and s[pos] == "<":
            c1 = s[pos + 1] if pos + 1 < n else ""
            if c1 == "/":
                self.parse_end_tag()
            elif c1 == "!":
                if self._looking_at_doctype():
                    # a doctype after the prolog is parsed and ignored
                    self.parse_doctype(in_prolog=False)
                elif s.startswith("--", pos + 2):
                    self.pos = pos + 4
                    self.parse_comment(bogus=False)
                else:
                    self.pos = pos + 2
                    self.parse_comment(bogus=True)
            elif c1 == "?":
                self.pos = pos + 1
                self.parse_comment(bogus=True)
            elif c1 in _ASCII_LETTERS:
                self.parse_element()
            else:
                tb.start_char_data()
                tb.characters("<")
                self.pos = pos + 1
        else:
            self.parse_char_data()

    # -- text ----------------------------------------------------------------
    def parse_char_data(self) -> None:
        """Text up to the next tag, or the content of a raw-text element.
        # libxml2: htmlParseCharData"""
        s = self.s
        pos = self.pos
        mode = self.mode
        tb = self.tb
        if mode == 0:
            end = s.find("<", pos)
            if end < 0:
                end = self.n
            text = s[pos:end]
            if _SPECIAL_IN_TEXT.search(text) is not None:
                text = decode_refs(normalize_newlines(text), is_attr=False)
            self.pos = end
            tb.char_data(text)
            return
        if mode == DATA_PLAINTEXT:
            end = self.n
        elif mode >= DATA_SCRIPT:
            end = self._scan_script()
        else:
            m = _end_tag_re(tb.name or "").search(s, pos)  # type: ignore[arg-type]
            if m is None:
                end = self.n
            else:
                end = m.start()
                self.mode = 0
        text = normalize_newlines(s[pos:end])
        self.pos = end
        if mode == DATA_RCDATA:
            tb.char_data(decode_refs(text, is_attr=False))
        elif text:
            tb.characters(text)  # libxml2: cdataBlock (lxml reads CDATA as text)

    def _scan_script(self) -> int:
        """Where a script element's content ends, following the escape states.
        # libxml2: the DATA_SCRIPT* branches of htmlParseCharData"""
        s = self.s
        stops = _script_stops(self.tb.name or "")
        mode = self.mode
        i = self.pos
        while True:
            # only the places where the state changes are looked for
            m = stops[mode].search(s, i)
            if m is None:
                self.mode = mode  # unterminated: the state is kept (libxml2: endCheckState)
                return self.n
            k = m.start()
            c = s[k + 1]
            if c == "/":  # the end tag
                if mode != DATA_SCRIPT_ESC2:
                    self.mode = 0
                    return k
                mode = DATA_SCRIPT_ESC1
            elif c == "!":  # '<!--' (looked for in DATA_SCRIPT only)
                mode = DATA_SCRIPT_ESC1
            elif c == "-":  # '-->' (looked for in the escape states only)
                mode = DATA_SCRIPT
            else:  # '<name' (looked for in DATA_SCRIPT_ESC1 only)
                mode = DATA_SCRIPT_ESC2
            i = k + 1

    def _parse_data_until(self, stop: str) -> str:
        """Characters up to (not including) the first of ``stop``, or to the end."""
        s = self.s
        pos = self.pos
        end = self.n
        for c in stop:
            k = s.find(c, pos, end)
            if k >= 0:
                end = k
        self.pos = end
        return normalize_newlines(s[pos:end])

    # -- comments and doctype ------------------------------------------------
    def parse_comment(self, bogus: bool) -> None:
        """Skip a comment; lxml's remove_comments means nothing is created.
        # libxml2: htmlParseComment"""
        s = self.s
        pos = self.pos
        if bogus:
            k = s.find(">", pos)
            self.pos = self.n if k < 0 else k + 1
        elif s.startswith(">", pos):
            self.pos = pos + 1
        elif s.startswith("->", pos):
            self.pos = pos + 2
        else:
            m = _COMMENT_END.search(s, pos)
            self.pos = self.n if m is None else m.end()

    def _parse_doctype_literal(self) -> Optional[str]:
        # libxml2: htmlParseDoctypeLiteral
        s = self.s
        q = s[self.pos] if self.pos < self.n else ""
        if q != '"' and q != "'":
            return None
        self.pos += 1
        value = self._parse_data_until(q + ">")
        if s.startswith(q, self.pos):
            self.pos += 1
        return value

    def parse_doctype(self, in_prolog: bool) -> None:
        """# libxml2: htmlParseDocTypeDecl (kept only in the prolog: xmlSAX2InternalSubset)"""
        s = self.s
        self.pos += 9
        self.skip_blanks()
        name = public_id = system_url = None
        if self.pos < self.n and s[self.pos] != ">":
            end = _DOCTYPE_NAME.match(s, self.pos).end()  # type: ignore[union-attr]
            name = normalize_newlines(s[self.pos : end])
            self.pos = end
            self.skip_blanks()
        keyword = s[self.pos : self.pos + 6]
        keyword = keyword.upper() if keyword.isascii() else ""
        if keyword == "PUBLIC":
            self.pos += 6
            self.skip_blanks()
            public_id = self._parse_doctype_literal()
            if public_id is not None:
                self.skip_blanks()
                system_url = self._parse_doctype_literal()
        elif keyword == "SYSTEM":
            self.pos += 6
            self.skip_blanks()
            system_url = self._parse_doctype_literal()
        # libxml2: htmlSkipBogusDoctype
        k = s.find(">", self.pos)
        self.pos = self.n if k < 0 else k + 1
        if in_prolog:
            self.doctype = (name, public_id, system_url)

    # -- tags ----------------------------------------------------------------
    def parse_attribute(self) -> Tuple[str, Optional[str]]:
        """# libxml2: htmlParseAttribute + htmlParseAttValue"""
        name = self.parse_html_name(attr=True)
        self.skip_blanks()
        s = self.s
        if not s.startswith("=", self.pos):
            return name, None
        self.pos += 1
        self.skip_blanks()
        q = s[self.pos] if self.pos < self.n else ""
        if q == '"' or q == "'":
            self.pos += 1
            k = s.find(q, self.pos)
            end = self.n if k < 0 else k
            raw = s[self.pos : end]
            self.pos = end if k < 0 else k + 1
        else:
            end = _UNQUOTED_VALUE.match(s, self.pos).end()  # type: ignore[union-attr]
            raw = s[self.pos : end]
            self.pos = end
        if _SPECIAL_IN_TEXT.search(raw) is not None:
            raw = decode_refs(normalize_newlines(raw), is_attr=True)
        return name, raw

    def _parse_attributes(self) -> List[Tuple[str, Optional[str]]]:
        s = self.s
        n = self.n
        attrs = []
        self.skip_blanks()
        while self.pos < n:
            c = s[self.pos]
            if c == ">":
                break
            if c == "/":
                if s.startswith(">", self.pos + 1):
                    break
                # unexpected-solidus-in-tag: skipped
                self.pos += 1
                self.skip_blanks()
                continue
            attrs.append(self.parse_attribute())
            self.skip_blanks()
        return attrs

    def _fast_attributes(self, text: str) -> Dict[str, Optional[str]]:
        """The attributes of a start tag _FAST_START_TAG accepted (None: written without value)."""
        attrib: Dict[str, Optional[str]] = {}
        for name, written in _FAST_ATTRS.findall(text):
            name = name.lower()
            if name in attrib:
                continue  # duplicate attributes: the first wins
            if not written:
                attrib[name] = None
                continue
            value = written[1:-1] if written[0] == '"' or written[0] == "'" else written
            if _SPECIAL_IN_TEXT.search(value) is not None:
                value = decode_refs(normalize_newlines(value), is_attr=True)
            attrib[name] = value
        return attrib

    def parse_start_tag(self) -> None:
        """# libxml2: htmlParseStartTag"""
        tb = self.tb
        self.mode = 0
        fast = _FAST_START_TAG.match(self.s, self.pos)
        if fast is not None:
            name = fast.group(1).lower()
        else:
            self.pos += 1
            name = self.parse_html_name(attr=False)
        # closing and implying happen before the attributes are read, so even a
        # start tag that EOF cuts off (and is dropped) has these effects
        tb.auto_close(name)
        tb.check_implied(name)
        discard = False
        # misplaced html/head/body: dropped, and the next matching end tag is swallowed
        if name == "html" and tb.names:
            discard = True
            tb.depth += 1
        if name == "head" and len(tb.names) != 1:
            discard = True
            tb.depth += 1
        if name == "body":
            for open_name in tb.names:
                if open_name == "body":
                    discard = True
                    tb.depth += 1
        attrib: Dict[str, Optional[str]]
        if fast is not None:
            attrib = self._fast_attributes(fast.group(2)) if fast.group(2) else {}
            self.pos = fast.end()
        else:
            attrib = {}
            for key, value in self._parse_attributes():
                if key not in attrib:  # duplicate attributes: the first wins
                    attrib[key] = value
            if self.pos >= self.n:
                return  # a start tag cut off by the end of input is dropped
        if discard:
            return
        tb.start_element(name, attrib)

    def parse_element(self) -> None:
        """# libxml2: htmlParseElementInternal"""
        tb = self.tb
        self.parse_start_tag()
        if tb.stopped:
            return
        # NB: the current element, which is not the new tag if it was dropped
        name = tb.name
        if name is None:
            return
        s = self.s
        if s.startswith("/>", self.pos):
            # '/>' closes any element -- even the current one under a dropped tag
            self.pos += 2
            tb.end_element()
            return
        if not s.startswith(">", self.pos):
            return
        self.pos += 1
        if name in EMPTY_ELEMENTS:
            tb.end_element()
            return
        self.mode = DATA_MODE.get(name, 0)

    def parse_end_tag(self) -> None:
        """# libxml2: htmlParseEndTag"""
        s = self.s
        tb = self.tb
        self.mode = 0
        fast = _FAST_END_TAG.match(s, self.pos)
        if fast is not None:
            self.pos = fast.end()
            self._end_tag(fast.group(1).lower())
            return
        self.pos += 2
        if self.pos >= self.n:
            tb.start_char_data()
            tb.characters("</")
            return
        c = s[self.pos]
        if c == ">":
            self.pos += 1
            return
        if c not in _ASCII_LETTERS:
            self.parse_comment(bogus=True)
            return
        name = self.parse_html_name(attr=False)
        self._parse_attributes()  # parsed and ignored
        if s.startswith(">", self.pos):
            self.pos += 1
        elif s.startswith("/>", self.pos):
            self.pos += 2
        else:
            return  # cut off by the end of input
        self._end_tag(name)

    def _end_tag(self, name: str) -> None:
        tb = self.tb
        if tb.depth > 0 and (name == "html" or name == "body" or name == "head"):
            tb.depth -= 1
            return
        if name not in tb.names:
            return  # not open: ignored
        tb.auto_close_on_close(name)
        if tb.names and tb.names[-1] == name:
            tb.end_element()
