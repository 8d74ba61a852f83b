"""Output side of trafilatura 1.11.0 (xml.py): ``delete_element``, the plain-text
rendering ``xmltotxt`` (1.11.0's version: ``sanitize`` trims every line) and the other
output formats -- JSON (``build_json_output``), CSV (``xmltocsv``), XML
(``build_xml_output`` through ``control_xml_output``), XML-TEI (``build_tei_output``:
``write_teitree``, ``write_fullheader``, ``check_tei``) and HTML
(``build_html_output``, upstream in htmlprocessing.py).

lxml's serialisations are trafila.html.serialize's ``tostring``, the XML re-read of
``control_xml_output`` its ``remove_blank_text``. Where upstream would raise (a string or
name lxml refuses, a missing rend or target) these raise ``NotNative``.
"""

from __future__ import annotations

import csv
import logging
from html import unescape
from io import StringIO
from json import dumps as json_dumps
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from trafila._backend import Element as _Element
from trafila._backend import SubElement as _SubElement
from trafila._backend import core_of
from trafila._engine import NotNative
from trafila.html.serialize import remove_blank_text, tostring
from trafila.treeops import drop_tree
from trafila.xmlchars import xml_name_valid, xml_text

from .utils import FORMATTING_PROTECTED, SPACING_PROTECTED, sanitize, text_chars_test

if TYPE_CHECKING:
    from trafila.dom import Element


LOGGER = logging.getLogger(__name__)

TEI_VALID_TAGS = {
    "ab", "body", "cell", "code", "del", "div", "graphic", "head", "hi",
    "item", "lb", "list", "p", "quote", "ref", "row", "table",
}

NEWLINE_ELEMS = {tag: "\n" for tag in ("code", "graphic", "head", "lb", "list", "p", "quote", "row", "table")}
SPECIAL_FORMATTING = {"del", "head", "hi", "ref"}

HI_FORMATTING = {"#b": "**", "#i": "*", "#u": "__", "#t": "`"}


def delete_element(element: Element) -> None:
    """Remove the element with its subtree; its tail joins the previous
    sibling's tail, or the parent's text."""
    if element.getparent() is not None:
        drop_tree(element)


def _has_ancestor(element: Element, tag: str) -> bool:
    return next(element.iterancestors(tag), None) is not None


def replace_element_text(element: Element, include_formatting: bool) -> str:
    "The element's own text, decorated for markdown and links (tail handled by the caller)."
    elem_text = element.text or ""
    if include_formatting and element.text:
        if element.tag == "head":
            try:
                number = int(element.get("rend")[1])
            except (TypeError, ValueError):
                number = 2
            elem_text = f'{"#" * number} {elem_text}'
        elif element.tag == "del":
            elem_text = f"~~{elem_text}~~"
        elif element.tag == "hi":
            rend = element.get("rend")
            if rend in HI_FORMATTING:
                elem_text = f"{HI_FORMATTING[rend]}{elem_text}{HI_FORMATTING[rend]}"
        elif element.tag == "code":
            if "\n" in element.text:
                elem_text = f"```\n{elem_text}\n```"
            else:
                elem_text = f"`{elem_text}`"
    if element.tag == "ref":
        if elem_text:
            link_text = f"[{elem_text}]"
            target = element.get("target")
            elem_text = f"{link_text}({target})" if target else link_text
    if element.tag == "cell" and elem_text and len(element) > 0:
        if element[0].tag == "p":
            elem_text = f"{elem_text} "
    elif element.tag == "item" and elem_text:
        elem_text = f"- {elem_text}\n"
    return elem_text


def process_element(element: Element, returnlist: List[str], include_formatting: bool) -> None:
    "Depth-first rendering: text, children, end-of-element separator, tail."
    if element.text is not None:
        returnlist.append(replace_element_text(element, include_formatting))
    for child in element:
        process_element(child, returnlist, include_formatting)
    if element.text is None and element.tail is None:
        if element.tag == "graphic":
            text = f'{element.get("title", "")} {element.get("alt", "")}'
            returnlist.extend(["![", text.strip(), "]", "(", element.get("src", ""), ")"])
        elif element.tag in NEWLINE_ELEMS:
            if element.tag == "row":
                max_span = int(element.get("span", 1))
                cell_count = sum(1 for _ in element.iterdescendants("cell"))
                returnlist.append("|" * (max_span - cell_count) + "\n")
                if any(c.get("role") == "head" for c in element.iterchildren("cell")):
                    returnlist.append("\n" + "---|" * max_span + "\n")
            else:
                returnlist.append("\n")
        elif element.tag != "cell":
            # a textless element outside the known set: nothing more, not even its (absent) tail
            return
    if element.tag == "p" and include_formatting and not _has_ancestor(element, "cell"):
        returnlist.append("\n\u2424\n")
    elif element.tag in NEWLINE_ELEMS and not _has_ancestor(element, "cell"):
        returnlist.extend([NEWLINE_ELEMS[element.tag], "\n"])
    elif element.tag == "cell":
        returnlist.append(" | ")
    elif element.tag == "comments":
        returnlist.append("\n\n")
    elif element.tag not in SPECIAL_FORMATTING:
        returnlist.append(" ")
    if element.tail is not None:
        returnlist.append(element.tail)


def xmltotxt(xmloutput: Any, include_formatting: bool) -> str:
    "Plain text (markdown with formatting), line-trimmed by ``sanitize``, entities unescaped."
    if not include_formatting:
        core = core_of(xmloutput)
        if core is not None:
            # the whole walk, sanitize included, in C (None: a tree only this path renders)
            text = core.xmltotxt_plain(xmloutput, True)
            if text is not None:
                return text
    returnlist: List[str] = []
    process_element(xmloutput, returnlist, include_formatting)
    return unescape(sanitize("".join(returnlist)) or "")


# --- the other output formats ----------------------------------------------------------

#: the release the TEI header names (upstream: the installed trafilatura's version)
PKG_VERSION = "1.11.0"
TEI_VALID_ATTRS = {"rend", "rendition", "role", "target", "type"}
TEI_REMOVE_TAIL = {"ab", "p"}
TEI_DIV_SIBLINGS = {"p", "list", "table", "quote", "ab"}
WITH_ATTRIBUTES = {"cell", "row", "del", "graphic", "head", "hi", "item", "list", "ref"}
NESTING_WHITELIST = {"cell", "figure", "item", "note", "quote"}
META_ATTRIBUTES = [
    "sitename", "title", "author", "date", "url", "hostname", "description", "categories", "tags", "license",
    "id", "fingerprint", "language",
]


def _checked_value(value: Any) -> str:
    "An attribute value lxml accepts (upstream raises otherwise: delegated)."
    if not isinstance(value, str):
        raise NotNative("output: a non-string attribute value")
    try:
        xml_text(value)
    except ValueError:
        raise NotNative("output: a string lxml refuses") from None
    return value


def _checked_text(value: Any) -> Optional[str]:
    "A text or tail value lxml accepts (None clears)."
    if value is None:
        return None
    if not isinstance(value, str):
        raise NotNative("output: a non-string text")
    try:
        return xml_text(value)
    except ValueError:
        raise NotNative("output: a string lxml refuses") from None


def _new(tag: str, attrib: Optional[List[Tuple[str, Any]]] = None) -> Any:
    "lxml.etree.Element(tag, **attrib) in the call's element model."
    el = _Element(tag)
    for key, value in attrib or ():
        el.set(key, _checked_value(value))
    return el


def _sub(parent: Any, tag: str, attrib: Optional[List[Tuple[str, Any]]] = None, text: Any = None) -> Any:
    "lxml.etree.SubElement(parent, tag, **attrib), then its text."
    el = _SubElement(parent, tag)
    for key, value in attrib or ():
        el.set(key, _checked_value(value))
    if text is not None:
        el.text = _checked_text(text)
    return el


def merge_with_parent(element: Element, include_formatting: bool = False) -> None:
    "Fold the element (its text as replace_element_text renders it, then its tail) into its parent."
    parent = element.getparent()
    if parent is None:
        return
    full_text = replace_element_text(element, include_formatting)
    if element.tail is not None:
        full_text += element.tail
    previous = element.getprevious()
    if previous is not None:
        previous.tail = _checked_text(f"{previous.tail} {full_text}" if previous.tail else full_text)
    elif parent.text is not None:
        parent.text = _checked_text(f"{parent.text} {full_text}")
    else:
        parent.text = _checked_text(full_text)
    parent.remove(element)


def remove_empty_elements(tree: Element) -> Element:
    "Remove childless elements without text or tail (not graphics, not inside code), in one forward walk."
    for element in tree.iter("*"):
        if len(element) == 0 and text_chars_test(element.text) is False and text_chars_test(element.tail) is False:
            parent = element.getparent()
            if parent is not None and element.tag != "graphic" and parent.tag != "code":
                parent.remove(element)
    return tree


def strip_double_tags(tree: Element) -> Element:
    "Merge a code, head or p nested in one of its own kind (unless its parent may nest them) into its parent."
    for elem in reversed([e for e in tree.iterdescendants() if e.tag in ("head", "code", "p")]):
        for subelem in elem.iterdescendants("code", "head", "p"):
            if subelem.tag == elem.tag and subelem.getparent().tag not in NESTING_WHITELIST:
                merge_with_parent(subelem)
    return tree


def sanitize_tree(tree: Element) -> Element:
    """utils.sanitize_tree: ``sanitize`` on every text and tail (spaces kept under code/pre,
    edge spaces kept under the formatting elements); attributes with a colon are dropped
    (the output roots made here declare no namespace)."""
    for elem in tree.iter():
        parent = elem.getparent()
        parent_tag = parent.tag if parent is not None else ""
        preserve_space = elem.tag in SPACING_PROTECTED or parent_tag in SPACING_PROTECTED
        trailing_space = elem.tag in FORMATTING_PROTECTED or parent_tag in FORMATTING_PROTECTED or preserve_space
        for attribute in [name for name in elem.attrib.keys() if ":" in name]:
            elem.attrib.pop(attribute)
        if elem.text:
            elem.text = _checked_text(sanitize(elem.text, preserve_space, trailing_space))
        if elem.tail:
            elem.tail = _checked_text(sanitize(elem.tail, preserve_space, trailing_space))
    return tree


def build_json_output(docmeta: Any, with_metadata: bool = True) -> str:
    "The JSON output: text (and comments), with the metadata fields under their JSON names when asked."
    if with_metadata:
        outputdict = {slot: getattr(docmeta, slot, None) for slot in docmeta.__slots__}
        if outputdict["categories"] is None or outputdict["tags"] is None:
            raise NotNative("json output: upstream's join of a missing list")  # a TypeError there
        outputdict.update({
            "source": outputdict.pop("url"),
            "source-hostname": outputdict.pop("sitename"),
            "excerpt": outputdict.pop("description"),
            "categories": ";".join(outputdict.pop("categories")),
            "tags": ";".join(outputdict.pop("tags")),
            "text": xmltotxt(outputdict.pop("body"), include_formatting=False),
        })
        commentsbody = outputdict.pop("commentsbody")
    else:
        outputdict = {"text": xmltotxt(docmeta.body, include_formatting=False)}
        commentsbody = docmeta.commentsbody
    if commentsbody is not None:
        outputdict["comments"] = xmltotxt(commentsbody, include_formatting=False)
    return json_dumps(outputdict, ensure_ascii=False)


def clean_attributes(tree: Element) -> Element:
    "Clear the attributes of every element whose tag is not in WITH_ATTRIBUTES."
    for elem in tree.iter("*"):
        if elem.tag not in WITH_ATTRIBUTES:
            elem.attrib.clear()
    return tree


def add_xml_meta(output: Element, docmeta: Any) -> None:
    "The non-empty metadata fields as attributes of the root, lists joined with semicolons."
    for attribute in META_ATTRIBUTES:
        value = getattr(docmeta, attribute, None)
        if value:
            output.set(attribute, _checked_value(value if isinstance(value, str) else ";".join(value)))


def build_xml_output(docmeta: Any) -> Element:
    "<doc> (metadata attributes) holding <main> (the body) and <comments>."
    output = _new("doc")
    add_xml_meta(output, docmeta)
    docmeta.body.tag = "main"
    output.append(clean_attributes(docmeta.body))
    if docmeta.commentsbody is not None:
        docmeta.commentsbody.tag = "comments"
        output.append(clean_attributes(docmeta.commentsbody))
    return output


def _xml_names_valid(tree: Element) -> None:
    "The re-read parses XML names only: upstream's XMLSyntaxError for others is trafilatura's."
    for elem in tree.iter():
        tag = elem.tag
        if not isinstance(tag, str) or not xml_name_valid(tag) or not all(map(xml_name_valid, elem.attrib.keys())):
            raise NotNative("output: a name XML does not allow")


def control_xml_output(document: Any, options: Any) -> str:
    "Build the XML (or TEI) tree, sanitise it, re-read it without blank text, pretty-print it."
    strip_double_tags(document.body)
    remove_empty_elements(document.body)
    func = build_xml_output if options.format == "xml" else build_tei_output
    output_tree = func(document)
    output_tree = sanitize_tree(output_tree)
    _xml_names_valid(output_tree)
    # tei_validation: upstream validates here against the TEI RelaxNG and only logs the result
    # (the output is the same either way): not ported, the log lines are not written
    if not remove_blank_text(output_tree):
        raise NotNative("output: a long blank text at libxml2's input window")
    return tostring(output_tree, pretty_print=True, encoding="unicode").strip()  # type: ignore[union-attr]


def validate_tei(xmldoc: Element) -> bool:
    "Validation against the TEI RelaxNG schema is trafilatura's (lxml's validator): not ported."
    raise NotNative("tei_validation")


def build_tei_output(docmeta: Any) -> Element:
    "The TEI tree (write_teitree), checked and repaired (check_tei)."
    return check_tei(write_teitree(docmeta), docmeta.url)


def write_teitree(docmeta: Any) -> Element:
    "<TEI> with the header and <text><body> holding the body (and the comments) as divs."
    teidoc = _new("TEI", [("xmlns", "http://www.tei-c.org/ns/1.0")])
    write_fullheader(teidoc, docmeta)
    textelem = _sub(teidoc, "text")
    textbody = _sub(textelem, "body")
    postbody = clean_attributes(docmeta.body)
    postbody.tag = "div"
    postbody.set("type", "entry")
    textbody.append(postbody)
    if docmeta.commentsbody is not None:
        commentsbody = clean_attributes(docmeta.commentsbody)
        commentsbody.tag = "div"
        commentsbody.set("type", "comments")
        textbody.append(commentsbody)
    return teidoc


def _define_publisher_string(docmeta: Any) -> str:
    "'sitename (hostname)', else whichever exists, else 'N/A'."
    if docmeta.hostname and docmeta.sitename:
        publisher = f"{docmeta.sitename.strip()} ({docmeta.hostname})"
    else:
        publisher = docmeta.hostname or docmeta.sitename or "N/A"
        if LOGGER.isEnabledFor(logging.WARNING) and publisher == "N/A":
            LOGGER.warning("no publisher for URL %s", docmeta.url)
    return publisher  # type: ignore[no-any-return]


def write_fullheader(teidoc: Element, docmeta: Any) -> Element:
    "The teiHeader from the metadata fields."
    header = _sub(teidoc, "teiHeader")
    filedesc = _sub(header, "fileDesc")
    bib_titlestmt = _sub(filedesc, "titleStmt")
    _sub(bib_titlestmt, "title", [("type", "main")], docmeta.title)
    if docmeta.author:
        _sub(bib_titlestmt, "author", text=docmeta.author)
    publicationstmt_a = _sub(filedesc, "publicationStmt")
    publisher_string = _define_publisher_string(docmeta)
    if docmeta.license:
        _sub(publicationstmt_a, "publisher", text=publisher_string)
        availability = _sub(publicationstmt_a, "availability")
        _sub(availability, "p", text=docmeta.license)
    else:
        _sub(publicationstmt_a, "p")  # an empty paragraph, for conformity
    notesstmt = _sub(filedesc, "notesStmt")
    if docmeta.id:
        _sub(notesstmt, "note", [("type", "id")], docmeta.id)
    _sub(notesstmt, "note", [("type", "fingerprint")], docmeta.fingerprint)
    sourcedesc = _sub(filedesc, "sourceDesc")
    source_bibl = _sub(sourcedesc, "bibl")
    sigle = ", ".join(filter(None, [docmeta.sitename, docmeta.date]))
    if not sigle:
        LOGGER.warning("no sigle for URL %s", docmeta.url)
    source_bibl.text = _checked_text(", ".join(filter(None, [docmeta.title, sigle])))
    _sub(sourcedesc, "bibl", [("type", "sigle")], sigle)
    biblfull = _sub(sourcedesc, "biblFull")
    bib_titlestmt = _sub(biblfull, "titleStmt")
    _sub(bib_titlestmt, "title", [("type", "main")], docmeta.title)
    if docmeta.author:
        _sub(bib_titlestmt, "author", text=docmeta.author)
    publicationstmt = _sub(biblfull, "publicationStmt")
    _sub(publicationstmt, "publisher", text=publisher_string)
    if docmeta.url:
        _sub(publicationstmt, "ptr", [("type", "URL"), ("target", docmeta.url)])
    _sub(publicationstmt, "date", text=docmeta.date)
    profiledesc = _sub(header, "profileDesc")
    abstract = _sub(profiledesc, "abstract")
    _sub(abstract, "p", text=docmeta.description)
    if docmeta.categories or docmeta.tags:
        textclass = _sub(profiledesc, "textClass")
        keywords = _sub(textclass, "keywords")
        if docmeta.categories:
            _sub(keywords, "term", [("type", "categories")], ",".join(docmeta.categories))
        if docmeta.tags:
            _sub(keywords, "term", [("type", "tags")], ",".join(docmeta.tags))
    creation = _sub(profiledesc, "creation")
    _sub(creation, "date", [("type", "download")], docmeta.filedate)
    encodingdesc = _sub(header, "encodingDesc")
    appinfo = _sub(encodingdesc, "appInfo")
    application = _sub(appinfo, "application", [("version", PKG_VERSION), ("ident", "Trafilatura")])
    _sub(application, "label", text="Trafilatura")
    _sub(application, "ptr", [("target", "https://github.com/adbar/trafilatura")])
    return header


def _tei_body_descendants(xmldoc: Element) -> List[Any]:
    """``xmldoc.findall(".//text/body//*")``: the descendants of every body child of a
    text descendant, in document order, each once."""
    seen: set = set()
    out: List[Any] = []
    for text in [e for e in xmldoc.iterdescendants() if e.tag == "text"]:
        for body in [c for c in text if c.tag == "body"]:
            for el in body.iterdescendants():
                if id(el) not in seen:
                    seen.add(id(el))
                    out.append(el)
    return out


def check_tei(xmldoc: Element, url: Optional[str]) -> Element:
    "Make the TEI tree conform: heads become ab, loose lb and text go into p, other tags and attributes go."
    for elem in xmldoc.iter("head"):
        elem.tag = "ab"
        elem.set("type", "header")
        parent = elem.getparent()
        if parent is None:
            continue
        if len(elem) > 0:
            new_elem = _tei_handle_complex_head(elem)
            parent.replace(elem, new_elem)
            elem = new_elem
        if parent.tag == "p":
            _move_element_one_level_up(elem)
    for elem in [e for e in _tei_body_descendants(xmldoc) if e.tag == "lb" and e.getparent().tag == "div"]:
        if elem.tail and elem.tail.strip():
            elem.tag, elem.text, elem.tail = "p", elem.tail, None
    for elem in _tei_body_descendants(xmldoc):
        if elem.tag not in TEI_VALID_TAGS:
            LOGGER.warning("not a TEI element, removing: %s %s", elem.tag, url)
            merge_with_parent(elem)
            continue
        if elem.tag in TEI_REMOVE_TAIL:
            _handle_unwanted_tails(elem)
        elif elem.tag == "div":
            _handle_text_content_of_div_nodes(elem)
            _wrap_unwanted_siblings_of_div(elem)
        for attribute in [a for a in elem.attrib.keys() if a not in TEI_VALID_ATTRS]:
            LOGGER.warning("not a valid TEI attribute, removing: %s in %s %s", attribute, elem.tag, url)
            elem.attrib.pop(attribute)
    return xmldoc


def _handle_text_content_of_div_nodes(element: Element) -> None:
    "Wrap loose text of a div (and its tail) in p elements."
    if element.text and element.text.strip():
        if len(element) > 0 and element[0].tag == "p":
            element[0].text = _checked_text(f'{element.text} {element[0].text or ""}'.strip())
        else:
            new_child = _new("p")
            new_child.text = element.text
            element.insert(0, new_child)
        element.text = None
    if element.tail and element.tail.strip():
        if len(element) > 0 and element[-1].tag == "p":
            element[-1].text = _checked_text(f'{element[-1].text or ""} {element.tail}'.strip())
        else:
            new_child = _new("p")
            new_child.text = element.tail
            element.append(new_child)
        element.tail = None


def _handle_unwanted_tails(element: Element) -> None:
    "A p takes its tail into its text; an ab's tail becomes a new p after it."
    element.tail = element.tail.strip() if element.tail else None
    if not element.tail:
        return
    if element.tag == "p":
        element.text = _checked_text(" ".join(filter(None, [element.text, element.tail])))
    else:
        new_sibling = _new("p")
        new_sibling.text = element.tail
        parent = element.getparent()
        if parent is not None:
            parent.insert(parent.index(element) + 1, new_sibling)
    element.tail = None


def _tei_handle_complex_head(element: Element) -> Element:
    "A head with children as an ab: its p children become text separated by lb."
    new_element = _new("ab", list(element.attrib.items()))
    new_element.text = element.text.strip() if element.text else None
    for child in list(element):
        if child.tag == "p":
            if len(new_element) > 0 or new_element.text:
                if len(new_element) == 0 or new_element[-1].tail:
                    _sub(new_element, "lb")
                new_element[-1].tail = child.text
            else:
                new_element.text = child.text
        else:
            new_element.append(child)
    tail = element.tail.strip() if element.tail else None
    if tail:
        new_element.tail = tail
    return new_element


def _wrap_unwanted_siblings_of_div(div_element: Element) -> None:
    "Move block siblings following a div into a new div, put back at the first one's index."
    new_sibling = _new("div")
    new_sibling_index = None
    parent = div_element.getparent()
    if parent is None:
        return
    for sibling in div_element.itersiblings():
        if sibling.tag == "div":
            break
        if sibling.tag in TEI_DIV_SIBLINGS:
            # upstream's "or": an index of 0 counts as none
            new_sibling_index = new_sibling_index or parent.index(sibling)
            new_sibling.append(sibling)
        else:
            if new_sibling_index and len(new_sibling) > 0:
                parent.insert(new_sibling_index, new_sibling)
                new_sibling = _new("div")
                new_sibling_index = None
    if new_sibling_index and len(new_sibling) != 0:
        parent.insert(new_sibling_index, new_sibling)


def _move_element_one_level_up(element: Element) -> None:
    "Move an ab out of its p: after the p, followed by a new p with what came after it."
    parent = element.getparent()
    grand_parent = parent.getparent() if parent is not None else None
    if parent is None or grand_parent is None:
        return
    new_elem = _new("p")
    new_elem.extend(list(element.itersiblings()))
    grand_parent.insert(grand_parent.index(parent) + 1, element)
    tail = element.tail.strip() if element.tail else None
    if tail:
        new_elem.text = tail
        element.tail = None
    tail = parent.tail.strip() if parent.tail else None
    if tail:
        new_elem.tail = tail
        parent.tail = None
    if len(new_elem) > 0 or new_elem.text or new_elem.tail:
        grand_parent.insert(grand_parent.index(element) + 1, new_elem)
    if len(parent) == 0 and not parent.text:
        grand_parent.remove(parent)


def xmltocsv(document: Any, include_formatting: bool, *, delim: str = "\t", null: str = "null") -> str:
    "One CSV row: url, id, fingerprint, hostname, title, image, date, text, comments, license, pagetype."
    posttext = xmltotxt(document.body, include_formatting)
    commentstext = xmltotxt(document.commentsbody, include_formatting) if document.commentsbody is not None else ""
    output = StringIO()
    outputwriter = csv.writer(output, delimiter=delim, quoting=csv.QUOTE_MINIMAL)
    outputwriter.writerow([d if d else null for d in (
        document.url, document.id, document.fingerprint, document.hostname, document.title, document.image,
        document.date, posttext, commentstext, document.license, document.pagetype,
    )])
    return output.getvalue()


# --- HTML (upstream: htmlprocessing.convert_to_html / build_html_output) ----------------------

def _html_head_tag(elem: Any) -> str:
    return f"h{int(elem.get('rend')[1:])}"


def _html_hi_tag(elem: Any) -> str:
    from .htmlprocessing import REND_TAG_MAPPING

    return {v: k for k, v in REND_TAG_MAPPING.items()}[elem.get("rend")]  # HTML_TAG_MAPPING


HTML_CONVERSIONS = {
    "list": "ul",
    "item": "li",
    "code": "pre",
    "quote": "blockquote",
    "head": _html_head_tag,
    "lb": "br",
    "img": "graphic",
    "ref": "a",
    "hi": _html_hi_tag,
}


def convert_to_html(tree: Element) -> Element:
    "The body renamed to HTML tags (a keeps its target as href; others lose their attributes), inside <html>."
    for elem in tree.iter(*HTML_CONVERSIONS):
        conversion = HTML_CONVERSIONS[elem.tag]
        if callable(conversion):
            try:
                tag = conversion(elem)
            except (KeyError, ValueError, TypeError, IndexError):
                raise NotNative("html output: a rend upstream's tables lack") from None
        else:
            tag = conversion
        if not xml_name_valid(tag):
            raise NotNative("html output: a tag lxml refuses")
        elem.tag = tag
        if elem.tag == "a":
            target = elem.get("target")
            if target is None:
                raise NotNative("html output: a link without target")  # upstream's set(None): TypeError
            elem.set("href", _checked_value(target))
            elem.attrib.pop("target")
        else:
            elem.attrib.clear()
    tree.tag = "body"
    root = _new("html")
    root.append(tree)
    return root


def build_html_output(document: Any, with_metadata: bool = False) -> str:
    "The HTML output: the converted body (and a head of meta elements), pretty-printed as XML."
    html_tree = convert_to_html(document.body)
    if with_metadata:
        head = _new("head")
        for item in META_ATTRIBUTES:
            value = getattr(document, item)
            if value:
                _sub(head, "meta", [("name", item), ("content", value)])
        html_tree.insert(0, head)
    return tostring(html_tree, pretty_print=True, encoding="unicode").strip()  # type: ignore[union-attr]
