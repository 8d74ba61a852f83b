"""The decisions of datatrove 0.10.1's quality filters, as readable Python.

One function per filter, taking the text and the filter's parameters (with datatrove's
defaults) and giving what the filter's ``filter(doc)`` gives -- ``True``, or ``(False,
reason)`` -- with the same reasons, the same floating point comparisons (Python division of
ints; ``np.mean`` of word lengths is their exact sum over their count, NaN for none, and a NaN
compares false), the same exceptions (a division by zero where datatrove divides by zero):

- :func:`gopher_repetition_filter` (``GopherRepetitionFilter``), with datatrove's helpers
  :func:`get_n_grams`, :func:`find_duplicates`, :func:`find_top_duplicate`,
  :func:`find_all_duplicate`;
- :func:`gopher_quality_filter` (``GopherQualityFilter``);
- :func:`c4_quality_filter` (``C4QualityFilter``): also the line statistics the step writes,
  in the order it writes them, and the text it leaves in ``doc.text``;
- :func:`fineweb_quality_filter` (``FineWebQualityFilter``).

Words and sentences come from :mod:`trafila.fineweb.text` (its per-text cache included).
The hot loops (repetition statistics, n-grams, per-word and per-line tests) run in the
compiled twin ``trafila._quality`` when it is built, unless ``TRAFILA_ENGINE=reference``;
``engine="reference"`` or ``"core"`` picks one per call. Both give the same answers: the
harness (``python -m harness filters``) and ``tests/test_fineweb_quality.py`` hold them to
datatrove.
"""

from __future__ import annotations

import importlib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Iterable, List, Optional, Sequence, Tuple, Union

from . import text as _text
from .text import ENGLISH, TERMINAL_PUNCTUATION, split_into_sentences, split_into_words

FilterResult = Union[bool, Tuple[bool, str]]

#: GopherQualityFilter's default stop words
STOP_WORDS: List[str] = list(_text._TABLES["STOP_WORDS"])
#: C4QualityFilter's constants
END_PUNCTUATION: Tuple[str, ...] = tuple(_text._TABLES["END_PUNCTUATION"])
ELLIPSIS: str = _text._TABLES["ELLIPSIS"]
POLICY_SUBSTRINGS: List[str] = list(_text._TABLES["POLICY_SUBSTRINGS"])
CITATION_REGEX = re.compile(_text._TABLES["CITATION_REGEX"], _text._TABLES["CITATION_REGEX_FLAGS"])
PARAGRAPH_EXP = re.compile(r"\n{2,}")
LINE_SPLITTER = re.compile("\n+")

DEFAULT_TOP_N_GRAMS = ((2, 0.2), (3, 0.18), (4, 0.16))
DEFAULT_DUP_N_GRAMS = ((5, 0.15), (6, 0.14), (7, 0.13), (8, 0.12), (9, 0.11), (10, 0.10))


# --------------------------------------------------------------------------- datatrove's helpers


def get_n_grams(words: Sequence[str], n: int) -> List[str]:
    """The ``n``-grams of ``words``, each joined by single spaces."""
    return [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]


def find_duplicates(x: Iterable[str]) -> Tuple[int, int]:
    """(elements seen before, their characters) over ``x`` in order."""
    seen = set()
    elements = chars = 0
    for element in x:
        if element in seen:
            elements += 1
            chars += len(element)
        else:
            seen.add(element)
    return elements, chars


def find_top_duplicate(x: Sequence[str]) -> int:
    """Length times count of the most common element of a non-empty ``x``; among equally
    common ones, the one seen first (``Counter.most_common(1)``: ``max`` keeps the first)."""
    top = Counter(x).most_common(1)[0]
    return len(top[0]) * top[1]


def find_all_duplicate(words: Sequence[str], n: int) -> int:
    """Characters of the ``n``-grams (joined WITHOUT spaces) already seen, scanning left to
    right and jumping past each repeated one."""
    seen = set()
    repeated = idx = 0
    while idx < len(words) - n + 1:
        n_gram = "".join(words[idx:idx + n])
        if n_gram in seen:
            repeated += len(n_gram)
            idx += n
        else:
            seen.add(n_gram)
            idx += 1
    return repeated


# --------------------------------------------------------------------------- the loops (reference)
#
# Each returns the counts a decision needs; the compiled twin (trafila._quality) has the
# same functions, with the same results.


def repetition_counts(text: str) -> Tuple[int, int, int, int, int, int]:
    """(paragraphs, duplicate paragraphs, their characters, lines, duplicate lines, their
    characters): paragraphs split by runs of 2+ ``\\n`` of the stripped text, lines by runs of
    ``\\n`` of the text itself."""
    paragraphs = PARAGRAPH_EXP.split(text.strip())
    lines = LINE_SPLITTER.split(text)
    return (len(paragraphs), *find_duplicates(paragraphs), len(lines), *find_duplicates(lines))


class NGramCounts:
    """The n-gram statistics of one word list: :meth:`top` and :meth:`all_duplicate`."""

    def __init__(self, words: Sequence[str]) -> None:
        self.words = words

    def top(self, n: int) -> int:
        """find_top_duplicate of the ``n``-grams, -1 when there are none."""
        n_grams = get_n_grams(self.words, n)
        return find_top_duplicate(n_grams) if n_grams else -1

    def all_duplicate(self, n: int) -> int:
        return find_all_duplicate(self.words, n)


def word_counts(words: Sequence[str], stop_words: Any) -> Tuple[int, int, int, int]:
    """(words with a character outside PUNCTUATION_SET, the sum of their lengths, words with an
    alphabetic character, stop words present)."""
    punctuation = _text.PUNCTUATION_SET
    non_symbol = [w for w in words if any(ch not in punctuation for ch in w)]
    alpha = sum(1 for w in words if any(c.isalpha() for c in w))
    return len(non_symbol), sum(len(w) for w in non_symbol), alpha, len(stop_words.intersection(set(words)))


def line_marks(text: str) -> Tuple[int, int, int]:
    """(``splitlines`` lines, those starting with a bullet after leading whitespace, those
    ending with an ellipsis before trailing whitespace)."""
    lines = text.splitlines()
    bullets = sum(1 for s in lines if s.lstrip().startswith("•") or s.lstrip().startswith("-"))
    ellipses = sum(1 for s in lines if s.rstrip().endswith("...") or s.rstrip().endswith("…"))
    return len(lines), bullets, ellipses


def c4_lines(lines: Sequence[str], remove_citations: bool, filter_no_terminal_punct: bool, min_words_per_line: int,
             max_word_length: int, filter_lorem_ipsum: bool, filter_javascript: bool, filter_curly_bracket: bool,
             filter_policy: bool) -> Tuple[List[str], List[str], Optional[str]]:
    """C4's line loop: (the line statistics in order, the kept lines, the reason of a
    document drop or None). The kept lines are those before a drop."""
    stats: List[str] = []
    kept: List[str] = []
    for line in lines:
        line = line.strip()
        words = line.split()
        stats.append("line-total")
        if max_word_length != -1 and any(len(word) > max_word_length for word in words):
            stats.append("line-filter-too_long_word")
            continue
        if remove_citations:
            line = CITATION_REGEX.sub("", line)
        if filter_no_terminal_punct and (not line.endswith(END_PUNCTUATION) or line.endswith(ELLIPSIS)):
            stats.append("line-filter-no_terminal_punc")
            continue
        if len(words) < min_words_per_line:
            stats.append("line-filter-too_few_words")
            continue
        line_l = line.lower()
        if filter_lorem_ipsum and "lorem ipsum" in line_l:
            return stats, kept, "lorem_ipsum"
        if filter_javascript and "javascript" in line_l:
            stats.append("line-filter-javascript")
            continue
        if filter_curly_bracket and "{" in line:
            return stats, kept, "curly_bracket"
        if filter_policy and any(p in line_l for p in POLICY_SUBSTRINGS):
            stats.append("line-filter-policy")
            continue
        kept.append(line)
        stats.append("line-kept")
    return stats, kept, None


def fineweb_counts(text: str, stop_chars: Any, short_line_length: int) -> Tuple[int, int, int, int]:
    """(non-blank lines of ``split("\\n")``, those ending with one of ``stop_chars``, those of
    at most ``short_line_length`` characters, characters of the repeated ones)."""
    lines = [line for line in text.split("\n") if line.strip() != ""]
    punct = sum(1 for line in lines if line.endswith(stop_chars))
    short = sum(1 for line in lines if len(line) <= short_line_length)
    return len(lines), punct, short, find_duplicates(lines)[1]


_REFERENCE_OPS = SimpleNamespace(
    engine="reference", repetition_counts=repetition_counts, NGramCounts=NGramCounts, word_counts=word_counts,
    line_marks=line_marks, c4_lines=c4_lines, fineweb_counts=fineweb_counts,
)

# --------------------------------------------------------------------------- engines

COMPILED_MODULE = "trafila._quality"
_compiled: Any = None


def compiled_module() -> Any:
    """The compiled twin, or None when it is not built."""
    global _compiled
    if _compiled is None:
        try:
            _compiled = importlib.import_module(COMPILED_MODULE)
        except ModuleNotFoundError as err:
            if err.name != COMPILED_MODULE:
                raise
            _compiled = False
    return _compiled or None


def default_engine() -> str:
    """``core`` when the compiled twin is built, unless ``TRAFILA_ENGINE=reference``."""
    wanted = os.environ.get("TRAFILA_ENGINE", "").strip().lower()
    if wanted == "reference":
        return "reference"
    if wanted == "core" or compiled_module() is not None:
        return "core"
    return "reference"


def _ops(engine: Optional[str]) -> Any:
    name = default_engine() if engine is None else engine
    if name == "reference":
        return _REFERENCE_OPS
    if name != "core":
        raise ValueError(f"unknown engine {name!r}; engines: reference, core")
    module = compiled_module()
    if module is None:
        from trafila._engine import EngineUnavailable

        raise EngineUnavailable("the compiled twin trafila._quality is not built")
    return module


# --------------------------------------------------------------------------- the filters


def gopher_repetition_filter(text: str, dup_line_frac: Optional[float] = 0.3, dup_para_frac: Optional[float] = 0.3,
                             dup_line_char_frac: Optional[float] = 0.2, dup_para_char_frac: Optional[float] = 0.2,
                             top_n_grams: Sequence[Tuple[int, float]] = DEFAULT_TOP_N_GRAMS,
                             dup_n_grams: Sequence[Tuple[int, float]] = DEFAULT_DUP_N_GRAMS,
                             language: Any = ENGLISH, *, engine: Optional[str] = None) -> FilterResult:
    """GopherRepetitionFilter's decision on ``text``."""
    ops = _ops(engine)
    if not text:
        return False, "empty"
    n_paras, para_dups, para_chars, n_lines, line_dups, line_chars = ops.repetition_counts(text)
    if dup_para_frac and para_dups / n_paras > dup_para_frac:
        return False, "dup_para_frac"
    if dup_para_char_frac and para_chars / len(text) > dup_para_char_frac:
        return False, "dup_para_char_frac"
    if dup_line_frac and line_dups / n_lines > dup_line_frac:
        return False, "dup_line_frac"
    if dup_line_char_frac and line_chars / len(text) > dup_line_char_frac:
        return False, "dup_line_char_frac"

    counts = ops.NGramCounts(split_into_words(text, language))
    for n, n_frac in top_n_grams:
        top_chars = counts.top(n)
        if top_chars < 0:  # no n-grams
            continue
        if top_chars / len(text) > n_frac:
            return False, f"top_{n}_gram"
    for n, n_frac in dup_n_grams:
        if counts.all_duplicate(n) / len(text) > n_frac:
            return False, f"duplicated_{n}_n_grams"
    return True


def gopher_quality_filter(text: str, min_doc_words: Optional[int] = 50, max_doc_words: Optional[int] = 100000,
                          min_avg_word_length: Optional[int] = 3, max_avg_word_length: Optional[int] = 10,
                          max_symbol_word_ratio: Optional[float] = 0.1, max_bullet_lines_ratio: Optional[float] = 0.9,
                          max_ellipsis_lines_ratio: Optional[float] = 0.3,
                          max_non_alpha_words_ratio: Optional[float] = 0.8, min_stop_words: Optional[int] = 2,
                          stop_words: Optional[Iterable[str]] = None, language: Any = ENGLISH, *,
                          engine: Optional[str] = None) -> FilterResult:
    """GopherQualityFilter's decision on ``text`` (``stop_words``: a list, or the set the step holds)."""
    ops = _ops(engine)
    stop_set = stop_words if isinstance(stop_words, (set, frozenset)) else set(
        STOP_WORDS if stop_words is None else stop_words)
    words = split_into_words(text, language)
    n_words = len(words)
    n_non_symbol, non_symbol_chars, n_alpha, n_stop = ops.word_counts(words, stop_set)

    if min_doc_words and n_non_symbol < min_doc_words:
        return False, "gopher_short_doc"
    if max_doc_words and n_non_symbol > max_doc_words:
        return False, "gopher_long_doc"

    # np.mean of the lengths: their sum (exact in float64 here) over their count; NaN for none
    avg_word_length = non_symbol_chars / n_non_symbol if n_non_symbol else float("nan")
    if min_avg_word_length and avg_word_length < min_avg_word_length:
        return False, "gopher_below_avg_threshold"
    if max_avg_word_length and avg_word_length > max_avg_word_length:
        return False, "gopher_above_avg_threshold"

    if max_symbol_word_ratio and text.count("#") / n_words > max_symbol_word_ratio:
        return False, "gopher_too_many_hashes"
    if max_symbol_word_ratio and (text.count("...") + text.count("…")) / n_words > max_symbol_word_ratio:
        return False, "gopher_too_many_ellipsis"

    if max_bullet_lines_ratio or max_ellipsis_lines_ratio:
        n_lines, bullets, ellipses = ops.line_marks(text)
        if max_bullet_lines_ratio and bullets / n_lines > max_bullet_lines_ratio:
            return False, "gopher_too_many_bullets"
        if max_ellipsis_lines_ratio and ellipses / n_lines > max_ellipsis_lines_ratio:
            return False, "gopher_too_many_end_ellipsis"

    if max_non_alpha_words_ratio and n_alpha / n_words < max_non_alpha_words_ratio:
        return False, "gopher_below_alpha_threshold"
    if min_stop_words and n_stop < min_stop_words:
        return False, "gopher_enough_stop_words"
    return True


@dataclass
class C4Result:
    """What C4QualityFilter's ``filter(doc)`` does: its ``result``, the statistics it
    writes (``stat_update`` labels in order, one each) and the text it leaves in ``doc.text``
    (the kept lines; None when the document is dropped: datatrove leaves it unchanged)."""

    result: FilterResult
    line_stats: List[str] = field(default_factory=list)
    text: Optional[str] = None


def c4_quality_filter(text: str, split_paragraph: bool = True, remove_citations: bool = True,
                      filter_no_terminal_punct: bool = True, min_num_sentences: int = 5, min_words_per_line: int = 3,
                      max_word_length: int = 1000, filter_lorem_ipsum: bool = True, filter_javascript: bool = True,
                      filter_curly_bracket: bool = True, filter_policy: bool = True, language: Any = ENGLISH, *,
                      engine: Optional[str] = None) -> C4Result:
    """C4QualityFilter's decision on ``text``, its line statistics and the text it keeps."""
    ops = _ops(engine)
    lines = text.splitlines() if split_paragraph else split_into_sentences(text, language)
    stats, kept, reason = ops.c4_lines(lines, remove_citations, filter_no_terminal_punct, min_words_per_line,
                                       max_word_length, filter_lorem_ipsum, filter_javascript, filter_curly_bracket,
                                       filter_policy)
    num_sentences = 0
    if min_num_sentences != -1:
        if split_paragraph:
            # one sentence split per kept line, in order, through the cache (as datatrove does
            # it while it walks the lines, also before a line that drops the whole document)
            for line in kept:
                num_sentences += len(split_into_sentences(line, language))
        else:
            num_sentences = len(kept)
    if reason is not None:
        return C4Result((False, reason), stats)
    if num_sentences < min_num_sentences:
        return C4Result((False, "too_few_sentences"), stats)
    return C4Result(True, stats, ("\n" if split_paragraph else " ").join(kept).strip())


def fineweb_quality_filter(text: str, line_punct_thr: float = 0.12, line_punct_exclude_zero: bool = False,
                           stop_chars: Optional[Tuple[str, ...]] = None, short_line_thr: float = 0.67,
                           short_line_length: int = 30, char_duplicates_ratio: float = 0.01,
                           new_line_ratio: float = 0.3, language: Any = ENGLISH, *,
                           engine: Optional[str] = None) -> FilterResult:
    """FineWebQualityFilter's decision on ``text`` (``stop_chars`` None: TERMINAL_PUNCTUATION)."""
    ops = _ops(engine)
    if stop_chars is None:
        stop_chars = tuple(TERMINAL_PUNCTUATION)
    n_lines, punct, short, dup_chars = ops.fineweb_counts(text, stop_chars, short_line_length)
    if n_lines == 0:
        return False, "empty"
    ratio = punct / n_lines
    if ratio < line_punct_thr and not (ratio == 0 and line_punct_exclude_zero):
        return False, "line_punct_ratio"
    if short / n_lines > short_line_thr:
        return False, "short_line_ratio"
    if dup_chars / (len(text) - text.count("\n")) > char_duplicates_ratio:
        return False, "char_dup_ratio"
    words = split_into_words(text, language)
    if text.count("\n") / len(words) > new_line_ratio:
        return False, "list_ratio"
    return True


def engines_available() -> List[str]:
    """The engines importable here, reference first."""
    return ["reference", "core"] if compiled_module() is not None else ["reference"]


__all__ = [
    "get_n_grams", "find_duplicates", "find_top_duplicate", "find_all_duplicate",
    "gopher_repetition_filter", "gopher_quality_filter", "c4_quality_filter", "C4Result", "fineweb_quality_filter",
    "STOP_WORDS", "END_PUNCTUATION", "ELLIPSIS", "POLICY_SUBSTRINGS", "CITATION_REGEX", "default_engine",
    "engines_available", "compiled_module",
]

