"""jusText 3.0.2, ported onto trafila's element model.

Only what trafilatura uses: :class:`ParagraphMaker` (the tree walked in
``lxml.sax.saxify``'s event order), :func:`classify_paragraphs`,
:func:`revise_paragraph_classification`, the built-in stoplists, and
trafilatura's own ``try_justext`` wrappers (:mod:`.external`).
"""

from .core import (
    PARAGRAPH_TAGS,
    JustextError,
    ParagraphMaker,
    classify_paragraphs,
    get_next_neighbour,
    get_prev_neighbour,
    revise_paragraph_classification,
)
from .external import (
    JUSTEXT_LANGUAGES,
    JUSTEXT_LANGUAGES_1_11_0,
    choose_stoplist,
    custom_justext_1_11_0,
    justext_paragraphs,
    try_justext,
    try_justext_1_11_0,
)
from .paragraph import Paragraph, PathInfo
from .stoplists import all_stoplists, define_stoplist, get_stoplist, get_stoplists
from .utils import is_blank, normalize_whitespace

__all__ = [
    "PARAGRAPH_TAGS", "JustextError", "ParagraphMaker", "classify_paragraphs",
    "get_next_neighbour", "get_prev_neighbour", "revise_paragraph_classification",
    "JUSTEXT_LANGUAGES", "JUSTEXT_LANGUAGES_1_11_0", "choose_stoplist", "custom_justext_1_11_0",
    "justext_paragraphs", "try_justext", "try_justext_1_11_0",
    "Paragraph", "PathInfo", "all_stoplists", "define_stoplist", "get_stoplist",
    "get_stoplists", "is_blank", "normalize_whitespace",
]
