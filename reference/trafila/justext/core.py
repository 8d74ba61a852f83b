"""jusText 3.0.2 ``justext/core.py``: paragraphs and their classification.

The tree is walked in ``lxml.sax.saxify``'s event order (see :mod:`.sax`);
``html_to_dom``/``preprocessor`` are not ported: trafilatura never calls them.
"""

from __future__ import annotations

from typing import Any, List, Optional

from .._backend import core_of
from .paragraph import HEADINGS_PATTERN, MadeParagraph, Paragraph, PathInfo, _compiled
from .sax import saxify
from .stoplists import define_stoplist
from .utils import is_blank

MAX_LINK_DENSITY_DEFAULT = 0.2
LENGTH_LOW_DEFAULT = 70
LENGTH_HIGH_DEFAULT = 200
STOPWORDS_LOW_DEFAULT = 0.30
STOPWORDS_HIGH_DEFAULT = 0.32
NO_HEADINGS_DEFAULT = False
MAX_HEADING_DISTANCE_DEFAULT = 200

# elements that open and close a paragraph
PARAGRAPH_TAGS = frozenset({
    "body", "blockquote", "caption", "center", "col", "colgroup", "dd",
    "div", "dl", "dt", "fieldset", "form", "legend", "optgroup", "option",
    "p", "pre", "table", "td", "textarea", "tfoot", "th", "thead", "tr",
    "ul", "li", "h1", "h2", "h3", "h4", "h5", "h6",
})

GOOD_OR_BAD = frozenset({"good", "bad"})


class JustextError(Exception):
    "Base class for jusText exceptions."


class ParagraphMaker:
    """Turns a tree into a list of :class:`Paragraph` (jusText ``ParagraphMaker``)."""

    @classmethod
    def make_paragraphs(cls, root: Any) -> List[Paragraph]:
        core = core_of(root)
        if core is not None:
            # the same walk and state machine in C over the core's document, making
            # MadeParagraph objects (NotImplemented: a namespaced tag, the Python walk)
            paragraphs = core.justext_paragraphs(root, PARAGRAPH_TAGS, MadeParagraph)
            if paragraphs is not NotImplemented:
                return paragraphs
        handler = cls()
        saxify(root, handler)
        return handler.paragraphs

    def __init__(self) -> None:
        self.path = PathInfo()
        self.paragraphs: List[Paragraph] = []
        self.paragraph: Paragraph = None  # type: ignore[assignment]
        self.link = False
        self.br = False
        self._start_new_paragraph()

    # jusText: _start_new_pragraph
    def _start_new_paragraph(self) -> None:
        # `self.paragraph` is falsy when its text is empty (Paragraph has __len__): a
        # paragraph holding only a <br>'s " " is dropped although it "contains text"
        if self.paragraph and self.paragraph.contains_text():
            self.paragraphs.append(self.paragraph)
        self.paragraph = Paragraph(self.path)

    def start_document(self) -> None:
        pass

    # jusText: startElementNS
    def start_element(self, name: str) -> None:
        self.path.append(name)
        if name in PARAGRAPH_TAGS or (name == "br" and self.br):
            if name == "br":
                # <br><br> separates paragraphs and is not counted as a tag of one
                self.paragraph.tags_count -= 1
            self._start_new_paragraph()
        else:
            self.br = name == "br"
            if self.br:
                self.paragraph.append_text(" ")
            elif name == "a":
                self.link = True
            self.paragraph.tags_count += 1

    # jusText: endElementNS
    def end_element(self, name: str) -> None:
        self.path.pop()
        if name in PARAGRAPH_TAGS:
            self._start_new_paragraph()
        if name == "a":
            self.link = False

    # jusText: endDocument
    def end_document(self) -> None:
        self._start_new_paragraph()

    def characters(self, content: str) -> None:
        if is_blank(content):
            return
        text = self.paragraph.append_text(content)
        if self.link:
            self.paragraph.chars_count_in_links += len(text)
        self.br = False


def classify_paragraphs(
    paragraphs: List[Paragraph],
    stoplist: Any,
    length_low: int = LENGTH_LOW_DEFAULT,
    length_high: int = LENGTH_HIGH_DEFAULT,
    stopwords_low: float = STOPWORDS_LOW_DEFAULT,
    stopwords_high: float = STOPWORDS_HIGH_DEFAULT,
    max_link_density: float = MAX_LINK_DENSITY_DEFAULT,
    no_headings: bool = NO_HEADINGS_DEFAULT,
) -> None:
    """Context-free classification: sets ``cf_class`` and ``heading``."""
    stoplist = define_stoplist(stoplist)
    if paragraphs and type(paragraphs) is list and type(paragraphs[0]) is MadeParagraph and type(stoplist) is frozenset:
        # made by the core's ParagraphMaker: the same loop in C (NotImplemented, nothing
        # written, when a paragraph or parameter is not what it handles)
        done = _compiled().jt_classify(paragraphs, stoplist, MadeParagraph, HEADINGS_PATTERN.search, length_low,
                                       length_high, stopwords_low, stopwords_high, max_link_density, no_headings)
        if done is not NotImplemented:
            return
    for paragraph in paragraphs:
        length = len(paragraph)
        stopword_density = paragraph.stopwords_density(stoplist)
        link_density = paragraph.links_density()
        paragraph.heading = bool(not no_headings and paragraph.is_heading)

        if link_density > max_link_density:
            paragraph.cf_class = "bad"
        elif "\xa9" in paragraph.text or "&copy" in paragraph.text:
            paragraph.cf_class = "bad"
        elif "select" in paragraph.dom_path:
            # a substring test on the dotted path, so "selectmenu" counts too
            paragraph.cf_class = "bad"
        elif length < length_low:
            paragraph.cf_class = "bad" if paragraph.chars_count_in_links > 0 else "short"
        elif stopword_density >= stopwords_high:
            paragraph.cf_class = "good" if length > length_high else "neargood"
        elif stopword_density >= stopwords_low:
            paragraph.cf_class = "neargood"
        else:
            paragraph.cf_class = "bad"


def good_paragraph_texts(
    root: Any,
    stoplist: Any,
    length_low: int,
    length_high: int,
    stopwords_low: float,
    stopwords_high: float,
    max_link_density: float,
    no_headings: bool,
    max_heading_distance: int,
) -> Optional[List[str]]:
    """``[p.text for p in paragraphs if not p.is_boilerplate]`` after
    ``make_paragraphs(root)``, ``classify_paragraphs(paragraphs, stoplist, ...)``
    and ``revise_paragraph_classification(paragraphs, max_heading_distance)``,
    in one C call on the core's trees; None where that call does not apply
    (then run the three steps)."""
    core = core_of(root)
    if core is None:
        return None
    stoplist = define_stoplist(stoplist)
    if type(stoplist) is not frozenset:
        return None
    texts = core.justext_good_texts(root, PARAGRAPH_TAGS, stoplist, HEADINGS_PATTERN.search, length_low,
                                    length_high, stopwords_low, stopwords_high, max_link_density, no_headings,
                                    max_heading_distance)
    return None if texts is NotImplemented else texts


# jusText: _get_neighbour
def _get_neighbour(i: int, paragraphs: List[Paragraph], ignore_neargood: bool, inc: int, boundary: int) -> str:
    while i + inc != boundary:
        i += inc
        c = paragraphs[i].class_type
        if c in GOOD_OR_BAD:
            return c
        if c == "neargood" and not ignore_neargood:
            return c
    return "bad"


def get_prev_neighbour(i: int, paragraphs: List[Paragraph], ignore_neargood: bool) -> str:
    """Class at the top end of the short/neargood block above paragraph ``i``."""
    return _get_neighbour(i, paragraphs, ignore_neargood, -1, -1)


def get_next_neighbour(i: int, paragraphs: List[Paragraph], ignore_neargood: bool) -> str:
    """Class at the bottom end of the short/neargood block below paragraph ``i``."""
    return _get_neighbour(i, paragraphs, ignore_neargood, 1, len(paragraphs))


def _good_within(paragraphs: List[Paragraph], i: int, max_heading_distance: int) -> bool:
    """Is there a 'good' paragraph after ``i`` before the text in between exceeds the distance?"""
    j = i + 1
    distance = 0
    while j < len(paragraphs) and distance <= max_heading_distance:
        if paragraphs[j].class_type == "good":
            return True
        distance += len(paragraphs[j].text)
        j += 1
    return False


def revise_paragraph_classification(
    paragraphs: List[Paragraph], max_heading_distance: int = MAX_HEADING_DISTANCE_DEFAULT
) -> None:
    """Context-sensitive classification: sets ``class_type`` (after classify_paragraphs)."""
    if paragraphs and type(paragraphs) is list and type(paragraphs[0]) is MadeParagraph:
        # the core's paragraphs: the four passes in C (NotImplemented as in classify_paragraphs)
        if _compiled().jt_revise(paragraphs, MadeParagraph, max_heading_distance) is not NotImplemented:
            return
    # good headings: a short heading shortly before a good paragraph becomes neargood
    for i, paragraph in enumerate(paragraphs):
        paragraph.class_type = paragraph.cf_class
        if paragraph.heading and paragraph.class_type == "short":
            if _good_within(paragraphs, i, max_heading_distance):
                paragraph.class_type = "neargood"

    # short paragraphs take their class from their neighbours (decided first, applied after)
    new_classes = {}
    for i, paragraph in enumerate(paragraphs):
        if paragraph.class_type != "short":
            continue
        prev_neighbour = get_prev_neighbour(i, paragraphs, ignore_neargood=True)
        next_neighbour = get_next_neighbour(i, paragraphs, ignore_neargood=True)
        if prev_neighbour == "good" and next_neighbour == "good":
            new_classes[i] = "good"
        elif prev_neighbour == "bad" and next_neighbour == "bad":
            new_classes[i] = "bad"
        elif (prev_neighbour == "bad" and get_prev_neighbour(i, paragraphs, ignore_neargood=False) == "neargood") or (
            next_neighbour == "bad" and get_next_neighbour(i, paragraphs, ignore_neargood=False) == "neargood"
        ):
            new_classes[i] = "good"
        else:
            new_classes[i] = "bad"
    for i, c in new_classes.items():
        paragraphs[i].class_type = c

    # neargood: bad only between two bad neighbours (applied in place, in order)
    for i, paragraph in enumerate(paragraphs):
        if paragraph.class_type != "neargood":
            continue
        prev_neighbour = get_prev_neighbour(i, paragraphs, ignore_neargood=True)
        next_neighbour = get_next_neighbour(i, paragraphs, ignore_neargood=True)
        if (prev_neighbour, next_neighbour) == ("bad", "bad"):
            paragraph.class_type = "bad"
        else:
            paragraph.class_type = "good"

    # more good headings: a heading made bad by context, shortly before a good paragraph
    for i, paragraph in enumerate(paragraphs):
        if not (paragraph.heading and paragraph.class_type == "bad" and paragraph.cf_class != "bad"):
            continue
        if _good_within(paragraphs, i, max_heading_distance):
            paragraph.class_type = "good"
