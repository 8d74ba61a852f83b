"""datatrove 0.10.1's text utilities that the quality filters use (``datatrove.utils.text``).

- the punctuation tables ``PUNCTUATION``, ``TERMINAL_PUNCTUATION`` and ``PUNCTUATION_SET``
  (generated from the installed datatrove by ``tools/gen_datatrove_text_tables.py`` into
  ``data/datatrove-text-tables.json``; datatrove is Apache-2.0);
- :func:`split_into_parts` with :func:`split_into_words`, :func:`split_into_sentences` and
  :func:`split_into_paragraphs`: the same parts, behind the same per-text cache
  (``functools.lru_cache(5)`` keyed by ``(text, mode, language)``, the keywords as datatrove
  passes them), so filters run one after another on one text share one tokenization.

Words and sentences of English -- every ``language`` key datatrove maps to
``SpaCyTokenizer("en")``, its default ``Languages.english`` ("eng") among them -- come from
:func:`trafila.fineweb.tokenizer.english_tokenizer`. Any other language (or a ``WordTokenizer``
passed as the language) goes to datatrove's own ``load_word_tokenizer``: those calls are
counted in :data:`STOCK_TOKENIZER_CALLS`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, FrozenSet, List

_TABLES: Dict[str, Any] = json.loads(
    (Path(__file__).resolve().parent / "data" / "datatrove-text-tables.json").read_text(encoding="ascii"))

#: datatrove's PUNCTUATION string (its order kept)
PUNCTUATION: str = _TABLES["PUNCTUATION"]
#: datatrove's TERMINAL_PUNCTUATION (a set there too)
TERMINAL_PUNCTUATION: FrozenSet[str] = frozenset(_TABLES["TERMINAL_PUNCTUATION"])
#: PUNCTUATION's characters and TERMINAL_PUNCTUATION
PUNCTUATION_SET: FrozenSet[str] = frozenset(PUNCTUATION) | TERMINAL_PUNCTUATION
#: ``Languages.english``: the filters' default ``language``
ENGLISH: str = _TABLES["ENGLISH_DEFAULT"]
#: the ``language`` keys datatrove's load_word_tokenizer maps to SpaCyTokenizer("en")
SPACY_EN_LANGUAGES: FrozenSet[str] = frozenset(_TABLES["SPACY_EN_LANGUAGES"])

SPLIT_TEXT_DOCUMENTS = "DOCUMENT"
SPLIT_TEXT_SENTENCES = "SENTENCE"
SPLIT_TEXT_PARAGRAPHS = "PARAGRAPH"
SPLIT_TEXT_WORDS = "WORDS"

#: how many times a word or sentence split went to datatrove's own tokenizer (not English)
STOCK_TOKENIZER_CALLS = 0


def is_english(language: Any) -> bool:
    """True when datatrove would tokenize ``language`` with ``SpaCyTokenizer("en")``."""
    return isinstance(language, str) and language in SPACY_EN_LANGUAGES


def word_tokenizer(language: Any) -> Any:
    """The tokenizer of ``language``: trafila's English tokenizer for English, datatrove's
    ``load_word_tokenizer(language)`` otherwise (counted in :data:`STOCK_TOKENIZER_CALLS`)."""
    global STOCK_TOKENIZER_CALLS
    if is_english(language):
        from .tokenizer import english_tokenizer

        return english_tokenizer()
    from datatrove.utils.word_tokenizers import load_word_tokenizer

    STOCK_TOKENIZER_CALLS += 1
    return load_word_tokenizer(language)


@lru_cache(5)
def split_into_parts(text: str, mode: str = SPLIT_TEXT_DOCUMENTS, language: Any = ENGLISH) -> List[str]:
    """``text`` split into documents, sentences, words or paragraphs, as datatrove splits it.

    Sentences are the text between consecutive sentence ends of ``span_tokenize`` (the first
    starts at 0, the last runs to the end: whitespace between sentences stays with the
    sentence before; no span at all gives ``[""]`` for an empty text). Paragraphs are
    ``splitlines`` lines, each blank line joined to the line before it with its ``"\\n"``.
    """
    if mode == SPLIT_TEXT_DOCUMENTS:
        return [text]
    if mode == SPLIT_TEXT_SENTENCES:
        ends = [end for _, end in word_tokenizer(language).span_tokenize(text)]
        starts = [0] + ends[:-1]
        stops = ends[:-1] + [len(text)]
        return [text[a:b] for a, b in zip(starts, stops)]
    if mode == SPLIT_TEXT_WORDS:
        return word_tokenizer(language).word_tokenize(text)
    if mode == SPLIT_TEXT_PARAGRAPHS:
        return _paragraphs(text)
    raise ValueError(f"Unknown {mode=}")


def _paragraphs(text: str) -> List[str]:
    lines = text.splitlines()
    last = len(lines) - 1
    out: List[str] = []
    current: List[str] = []
    for i, line in enumerate(lines):
        if line.strip() and current:
            out.append("".join(current))
            current = []
        current.append(line)
        if i != last:
            current.append("\n")
    if current:
        out.append("".join(current))
    return out


def split_into_words(text: str, language: Any = ENGLISH) -> List[str]:
    """The words of ``text`` (tokens stripped, empty ones left out); cached with split_into_parts."""
    return split_into_parts(text, mode=SPLIT_TEXT_WORDS, language=language)


def split_into_sentences(text: str, language: Any = ENGLISH) -> List[str]:
    """The sentences of ``text`` (see :func:`split_into_parts`); cached."""
    return split_into_parts(text, mode=SPLIT_TEXT_SENTENCES, language=language)


def split_into_paragraphs(text: str, language: Any = ENGLISH) -> List[str]:
    """The paragraphs of ``text`` (see :func:`split_into_parts`); cached."""
    return split_into_parts(text, mode=SPLIT_TEXT_PARAGRAPHS, language=language)
