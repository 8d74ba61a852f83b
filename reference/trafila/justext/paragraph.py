"""jusText 3.0.2 ``justext/paragraph.py``: a block of text and where it sits."""

from __future__ import annotations

import re
from typing import FrozenSet, List

from .utils import normalize_whitespace

# a heading is any paragraph whose dom path has an h<digit> step
HEADINGS_PATTERN = re.compile(r"\bh\d\b")


class PathInfo:
    """The open-element stack while walking the tree (jusText ``PathInfo``).

    Each step is ``[tag, order, counts]``: ``order`` is the 1-based index of the
    element among its earlier siblings of the same tag, ``counts`` the per-tag
    counters of its own children so far.
    """

    __slots__ = ("_steps",)

    def __init__(self) -> None:
        # (tag, order, child counters, dom path so far, xpath so far)
        self._steps: List[tuple] = []

    @property
    def dom(self) -> str:
        return self._steps[-1][3] if self._steps else ""

    @property
    def xpath(self) -> str:
        return self._steps[-1][4] if self._steps else "/"

    def append(self, tag_name: str) -> "PathInfo":
        # the top level has no counter kept between calls: a fresh dict each time
        if self._steps:
            parent = self._steps[-1]
            counts, dom, xpath = parent[2], parent[3] + ".", parent[4]
        else:
            counts, dom, xpath = {}, "", ""
        order = counts.get(tag_name, 0) + 1
        counts[tag_name] = order
        self._steps.append((tag_name, order, {}, dom + tag_name, "%s/%s[%d]" % (xpath, tag_name, order)))
        return self

    def pop(self) -> "PathInfo":
        self._steps.pop()
        return self


class Paragraph:
    """One block of text (jusText ``Paragraph``)."""

    def __init__(self, path: PathInfo) -> None:
        self.dom_path = path.dom
        self.xpath = path.xpath
        self.text_nodes: List[str] = []
        self.chars_count_in_links = 0
        self.tags_count = 0
        self.class_type = ""  # short | neargood | good | bad

    @classmethod
    def from_parts(cls, dom_path: str, xpath: str, text_nodes: List[str], chars_count_in_links: int,
                   tags_count: int) -> "Paragraph":
        """A paragraph from what a compiled ParagraphMaker collected (a :class:`MadeParagraph`)."""
        paragraph = MadeParagraph.__new__(MadeParagraph)
        paragraph.dom_path, paragraph.xpath, paragraph.text_nodes = dom_path, xpath, text_nodes
        paragraph.chars_count_in_links, paragraph.tags_count, paragraph.class_type = chars_count_in_links, tags_count, ""
        # only the core makes parts: its one pass is normalize_whitespace("".join(...).strip())
        paragraph._text = _compiled().jt_paragraph_text(text_nodes)
        return paragraph

    @property
    def is_heading(self) -> bool:
        return bool(HEADINGS_PATTERN.search(self.dom_path))

    @property
    def is_boilerplate(self) -> bool:
        return self.class_type != "good"

    @property
    def text(self) -> str:
        # normalised after the strip: inner runs collapse, the ends are gone
        return normalize_whitespace("".join(self.text_nodes).strip())

    def __len__(self) -> int:
        return len(self.text)

    @property
    def words_count(self) -> int:
        return len(self.text.split())

    def contains_text(self) -> bool:
        return bool(self.text_nodes)

    def append_text(self, text: str) -> str:
        text = normalize_whitespace(text)
        self.text_nodes.append(text)
        return text

    def stopwords_count(self, stopwords: FrozenSet[str]) -> int:
        return sum(word.lower() in stopwords for word in self.text.split())

    def stopwords_density(self, stopwords: FrozenSet[str]) -> float:
        words = self.words_count
        if words == 0:
            return 0
        return self.stopwords_count(stopwords) / words

    def links_density(self) -> float:
        length = len(self.text)
        if length == 0:
            return 0
        return self.chars_count_in_links / length


_CORE = None


def _compiled():
    "trafila._core, imported once (an import statement per paragraph costs more than the call)."
    global _CORE
    if _CORE is None:
        from .. import _core

        _CORE = _core
    return _CORE


class MadeParagraph(Paragraph):
    """A paragraph whose text nodes were complete when it was made (by the
    compiled ParagraphMaker): its ``text`` is computed once instead of on every
    read, which the classifier does several times per paragraph."""

    @property
    def text(self) -> str:
        return self._text

    def stopwords_density(self, stopwords: FrozenSet[str]) -> float:
        # made by the core, so the core is built: its loop over text.split()
        if type(stopwords) is not frozenset or type(self._text) is not str:
            return Paragraph.stopwords_density(self, stopwords)
        return _compiled().stopwords_density(self._text, stopwords)
