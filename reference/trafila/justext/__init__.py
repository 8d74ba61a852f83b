"""jusText 3.0.2, ported onto trafila's element model.

Only what trafilatura uses: :class:`ParagraphMaker` (the tree walked in
``lxml.sax.saxify``'s event order), :func:`classify_paragraphs`,
:func:`revise_paragraph_classification` and the built-in stoplists.
trafilatura's own glue (``try_justext``, its parameters and language tables)
belongs to each release's ``external``/``settings`` (trafila.v2_3_1,
trafila.v1_11_0), as in upstream trafilatura.
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
from .paragraph import Paragraph, PathInfo
from .stoplists import all_stoplists, define_stoplist, get_stoplist, get_stoplists
from .utils import is_blank, normalize_whitespace

__all__ = [
    "PARAGRAPH_TAGS", "JustextError", "ParagraphMaker", "classify_paragraphs",
    "get_next_neighbour", "get_prev_neighbour", "revise_paragraph_classification",
    "Paragraph", "PathInfo", "all_stoplists", "define_stoplist", "get_stoplist",
    "get_stoplists", "is_blank", "normalize_whitespace",
]
