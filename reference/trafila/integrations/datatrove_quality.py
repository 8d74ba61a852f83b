"""datatrove 0.10.1's quality filters, run by trafila: drop-in steps.

``from trafila.integrations.datatrove_quality import GopherRepetitionFilter`` (and
``GopherQualityFilter``, ``C4QualityFilter``, ``FineWebQualityFilter``) replaces the
import from ``datatrove.pipeline.filters`` and nothing else changes: the same constructor
signatures and defaults, attributes, ``name`` and ``type``; each subclasses datatrove's own
``BaseFilter``, so ``run`` (batching, the ``total``/``forwarded``/``dropped``/``dropped_<reason>``
statistics, ``doc_len``, the exclusion writer and its ``filter_reason``) is datatrove's code.
Each ``filter(doc)`` gives what datatrove's gives -- the same result and reason, C4's line
statistics (one ``stat_update`` per label, in datatrove's order) and the text it leaves in
``doc.text`` -- from :mod:`trafila.fineweb.quality` (its compiled twin when built).

English words and sentences come from trafila's tokenizer (datatrove's ``SpaCyTokenizer("en")``
reproduced); for another ``language`` datatrove's own tokenizer runs (counted in
``trafila.fineweb.text.STOCK_TOKENIZER_CALLS``).

``C4BadWordsFilter`` is not here: it downloads its word lists when it first runs, so an
offline drop-in could not be shown to match it; use datatrove's.
"""

# no ``from __future__ import annotations``: the signatures' annotations must be the very
# objects datatrove's are (a test compares inspect.signature)

import re

from trafila.integrations import needs_datatrove

with needs_datatrove(__name__, "fineweb"):
    from datatrove.data import Document
    from datatrove.pipeline.filters.base_filter import BaseFilter
    from datatrove.pipeline.writers.disk_base import DiskWriter
    from datatrove.utils.typeshelper import Languages

from trafila.fineweb import quality as _quality
from trafila.fineweb.text import TERMINAL_PUNCTUATION

__all__ = ["GopherRepetitionFilter", "GopherQualityFilter", "C4QualityFilter", "FineWebQualityFilter"]


class GopherRepetitionFilter(BaseFilter):
    """datatrove's ``GopherRepetitionFilter``: duplicate paragraphs, lines and n-grams (Gopher, Table A1)."""

    name = "👯 Gopher Repetition"

    def __init__(
        self,
        dup_line_frac: float | None = 0.3,
        dup_para_frac: float | None = 0.3,
        dup_line_char_frac: float | None = 0.2,
        dup_para_char_frac: float | None = 0.2,
        top_n_grams: tuple[tuple[int, float]] = ((2, 0.2), (3, 0.18), (4, 0.16)),
        dup_n_grams: tuple[tuple[int, float]] = ((5, 0.15), (6, 0.14), (7, 0.13), (8, 0.12), (9, 0.11), (10, 0.10)),
        exclusion_writer: DiskWriter = None,
        language: str = Languages.english,
    ):
        super().__init__(exclusion_writer)
        self.dup_line_frac = dup_line_frac
        self.dup_para_frac = dup_para_frac
        self.dup_line_char_frac = dup_line_char_frac
        self.dup_para_char_frac = dup_para_char_frac
        self.top_n_grams = top_n_grams
        self.dup_n_grams = dup_n_grams
        self.paragraph_exp = re.compile(r"\n{2,}")
        self._line_splitter = re.compile("\n+")
        self.language = language

    def filter(self, doc: Document) -> bool | tuple[bool, str]:
        """True to keep ``doc``, ``(False, reason)`` to drop it."""
        return _quality.gopher_repetition_filter(
            doc.text, self.dup_line_frac, self.dup_para_frac, self.dup_line_char_frac, self.dup_para_char_frac,
            self.top_n_grams, self.dup_n_grams, self.language)


class GopherQualityFilter(BaseFilter):
    """datatrove's ``GopherQualityFilter``: Gopher's quality heuristics (word counts and lengths,
    symbols, bullets, ellipses, alphabetic words, stop words)."""

    name = "🥇 Gopher Quality"

    def __init__(
        self,
        min_doc_words: int | None = 50,
        max_doc_words: int | None = 100000,
        min_avg_word_length: int | None = 3,
        max_avg_word_length: int | None = 10,
        max_symbol_word_ratio: float | None = 0.1,
        max_bullet_lines_ratio: float | None = 0.9,
        max_ellipsis_lines_ratio: float | None = 0.3,
        max_non_alpha_words_ratio: float | None = 0.8,
        min_stop_words: int | None = 2,
        stop_words: list[str] | None = None,
        exclusion_writer: DiskWriter = None,
        language: str = Languages.english,
    ):
        super().__init__(exclusion_writer)
        self.min_doc_words = min_doc_words
        self.max_doc_words = max_doc_words
        self.min_avg_word_length = min_avg_word_length
        self.max_avg_word_length = max_avg_word_length
        self.max_symbol_word_ratio = max_symbol_word_ratio
        self.max_bullet_lines_ratio = max_bullet_lines_ratio
        self.max_ellipsis_lines_ratio = max_ellipsis_lines_ratio
        self.max_non_alpha_words_ratio = max_non_alpha_words_ratio
        self.min_stop_words = min_stop_words
        self.stop_words = set(_quality.STOP_WORDS if stop_words is None else stop_words)
        self.language = language

    def filter(self, doc: Document) -> bool | tuple[bool, str]:
        """True to keep ``doc``, ``(False, reason)`` to drop it."""
        return _quality.gopher_quality_filter(
            doc.text, self.min_doc_words, self.max_doc_words, self.min_avg_word_length, self.max_avg_word_length,
            self.max_symbol_word_ratio, self.max_bullet_lines_ratio, self.max_ellipsis_lines_ratio,
            self.max_non_alpha_words_ratio, self.min_stop_words, self.stop_words, self.language)


class C4QualityFilter(BaseFilter):
    """datatrove's ``C4QualityFilter``: C4's line and document heuristics; keeps the lines that
    pass in ``doc.text`` and counts each line in ``line-total`` and one of ``line-kept`` /
    ``line-filter-*``."""

    name = "⛰ C4 Quality"

    def __init__(
        self,
        exclusion_writer: DiskWriter = None,
        split_paragraph: bool = True,
        remove_citations: bool = True,
        filter_no_terminal_punct: bool = True,
        min_num_sentences: int = 5,
        min_words_per_line: int = 3,
        max_word_length: int = 1000,
        filter_lorem_ipsum: bool = True,
        filter_javascript: bool = True,
        filter_curly_bracket: bool = True,
        filter_policy: bool = True,
        language: str = Languages.english,
    ):
        super().__init__(exclusion_writer)
        self.split_paragraph = split_paragraph
        self.remove_citations = remove_citations
        self.filter_no_terminal_punct = filter_no_terminal_punct
        self.min_num_sentences = min_num_sentences
        self.min_words_per_line = min_words_per_line
        self.max_word_length = max_word_length
        self.filter_lorem_ipsum = filter_lorem_ipsum
        self.filter_javascript = filter_javascript
        self.filter_curly_bracket = filter_curly_bracket
        self.filter_policy = filter_policy
        self.language = language

    def filter(self, doc: Document) -> bool | tuple[bool, str]:
        """True to keep ``doc`` (its text then the kept lines), ``(False, reason)`` to drop it."""
        res = _quality.c4_quality_filter(
            doc.text, self.split_paragraph, self.remove_citations, self.filter_no_terminal_punct,
            self.min_num_sentences, self.min_words_per_line, self.max_word_length, self.filter_lorem_ipsum,
            self.filter_javascript, self.filter_curly_bracket, self.filter_policy, self.language)
        for label in res.line_stats:
            self.stat_update(label)
        if res.text is not None:
            doc.text = res.text
        return res.result


class FineWebQualityFilter(BaseFilter):
    """datatrove's ``FineWebQualityFilter``: terminal punctuation, short lines, duplicate lines
    and newlines per word."""

    name = "🍷 FineWeb Quality"

    def __init__(
        self,
        exclusion_writer: DiskWriter | None = None,
        line_punct_thr: float = 0.12,
        line_punct_exclude_zero: bool = False,
        stop_chars: tuple[str, ...] | None = None,
        short_line_thr: float = 0.67,
        short_line_length: int = 30,
        char_duplicates_ratio: float = 0.01,
        new_line_ratio: float = 0.3,
        language: str = Languages.english,
    ):
        super().__init__(exclusion_writer)
        self.line_punct_thr = line_punct_thr
        self.line_punct_exclude_zero = line_punct_exclude_zero
        self.stop_chars = stop_chars if stop_chars is not None else tuple(TERMINAL_PUNCTUATION)
        self.short_line_threshold = short_line_thr
        self.short_line_length = short_line_length
        self.char_duplicates_ratio = char_duplicates_ratio
        self.new_line_ratio = new_line_ratio
        self.language = language

    def filter(self, doc) -> bool | tuple[bool, str]:
        """True to keep ``doc``, ``(False, reason)`` to drop it."""
        return _quality.fineweb_quality_filter(
            doc.text, self.line_punct_thr, self.line_punct_exclude_zero, self.stop_chars, self.short_line_threshold,
            self.short_line_length, self.char_duplicates_ratio, self.new_line_ratio, self.language)
