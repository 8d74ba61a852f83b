"""English word and sentence splitting exactly as datatrove 0.10.1 does it.

datatrove's filters split English text with ``SpaCyTokenizer("en")``: spaCy's
``blank("en")`` pipeline (the rule-based :class:`spacy.tokenizer.Tokenizer`
with the English tokenizer exceptions and affix rules) plus the
``sentencizer`` pipe. This module is a readable port of both, as spaCy 3.8
runs them, and of datatrove's three wrappers (``word_tokenize``,
``sent_tokenize``, ``span_tokenize``). The rules (affix regular expressions,
``url_match``, tokenizer exceptions, sentence punctuation) are data generated
from the installed spaCy by ``tools/gen_spacy_en_tables.py`` (``data/spacy_en.json``).

Facts the port relies on (read in spaCy 3.8's tokenizer.pyx, vocab.pyx):

* datatrove tokenizes inside ``memory_zone()``, where the tokenizer saves
  nothing in its chunk cache, and the cache is empty after construction (it is
  filled while ``max_cache_size`` is still 0). So each whitespace-separated
  chunk is tokenized afresh, as a pure function of the chunk; only the final
  special-case matcher pass looks across chunks.
* The text ``IS_ALPHA`` is spaCy's symbol 1, a reserved key of the lexeme hash
  table: the first such token in a process works, later ones read a freed
  lexeme and raise (datatrove then retries with every ``IS_ALPHA`` removed).
  Texts with such a token run the stock spaCy (:func:`stock_calls` counts them),
  one stock pipeline per :class:`EnglishTokenizer`, so that what it saw before
  is what datatrove's own tokenizer would have seen in a process using only it.
  Without spaCy the twin follows that behaviour itself (first works, later raise).
* A lone surrogate makes spaCy raise UnicodeEncodeError (it hashes each chunk's
  UTF-8 bytes): the twin raises it too, through the stock spaCy when installed.
* A text of 2**30 characters or more is refused (ValueError, spaCy's E025).

:class:`EnglishTokenizer` uses the compiled twin ``trafila._tokenizer_en``
when it is built (unless ``TRAFILA_ENGINE=reference``), this module otherwise.
"""

from __future__ import annotations

import json
import os
import re
import threading
import unicodedata
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

_DATA_PATH = Path(__file__).resolve().parent / "data" / "spacy_en.json"
with open(_DATA_PATH, encoding="utf-8") as _fh:
    _DATA: Dict[str, Any] = json.load(_fh)

#: the spaCy version the rules were generated from
SPACY_VERSION: str = _DATA["spacy_version"]
#: spaCy's Tokenizer refuses texts this long (Errors.E025)
MAX_LENGTH: int = _DATA["max_length_limit"]
#: the token text that breaks spaCy's vocabulary (see the module docstring)
IS_ALPHA = "IS_ALPHA"


def _compiled(entry: Optional[Dict[str, Any]]):
    if entry is None:
        return None
    return getattr(re.compile(entry["pattern"], entry["flags"]), entry["method"])


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_encodable(string: str) -> None:
    """Raise the UnicodeEncodeError spaCy raises for a text with a lone
    surrogate (it hashes each chunk's UTF-8 bytes): the error of the first
    chunk that holds one."""
    match = _SURROGATE.search(string)
    if match is None:
        return
    start = end = match.start()
    while start > 0 and not string[start - 1].isspace():
        start -= 1
    while end < len(string) and not string[end].isspace():
        end += 1
    string[start:end].encode("utf-8")


def is_punct(text: str) -> bool:
    """spaCy's lexical attribute ``IS_PUNCT`` (spacy.lang.lex_attrs.is_punct):
    every character is in a Unicode punctuation category."""
    for char in text:
        if not unicodedata.category(char).startswith("P"):
            return False
    return True


@dataclass
class Tokens:
    """A tokenized text: token texts, their start offsets, whether a single
    space follows each (spaCy's ``whitespace_``), and the token indices where
    sentences start (the sentencizer's ``sent_start``)."""

    texts: List[str]
    idx: List[int]
    spaces: List[bool]
    sent_starts: List[int]

    def sentence_spans(self) -> List[Tuple[int, int]]:
        """(start_char, end_char) of each sentence (spaCy's ``Doc.sents``)."""
        bounds = self.sent_starts + [len(self.texts)]
        return [(self.idx[a], self.idx[b - 1] + len(self.texts[b - 1])) for a, b in zip(bounds, bounds[1:])]


class EnglishRules:
    """spaCy's English Tokenizer (``spacy.tokenizer.Tokenizer``) with the
    generated rules, and the sentencizer: the reference algorithm."""

    def __init__(self, data: Dict[str, Any] = _DATA) -> None:
        self.prefix_search = _compiled(data["prefix_search"])
        self.suffix_search = _compiled(data["suffix_search"])
        self.infix_finditer = _compiled(data["infix_finditer"])
        self.token_match = _compiled(data["token_match"])
        self.url_match = _compiled(data["url_match"])
        self.faster_heuristics: bool = data["faster_heuristics"]
        self.punct_chars = frozenset(data["punct_chars"])
        #: the special cases (tokenizer exceptions): chunk -> its ORTH pieces
        self.specials: Dict[str, Tuple[str, ...]] = {k: tuple(v) for k, v in data["rules"].items()}
        #: the special-case matcher's patterns, as a trie of token texts; None marks an end
        self.matcher_trie: Dict[Any, Any] = {}
        self._load_special_cases()

    # -- construction: Tokenizer._load_special_cases / add_special_case -------------------

    def _load_special_cases(self) -> None:
        """Tokenizer._load_special_cases: the matcher gets, for each rule that
        the affix rules would split (or that holds a space), the rule's
        tokenization without special cases as a phrase pattern."""
        for chunk in sorted(self.specials):
            if (not self.faster_heuristics or self.find_prefix(chunk) or self.find_infix(chunk)
                    or self.find_suffix(chunk) or " " in chunk):
                pattern, _ = self._tokenize_affixes(chunk, False)
                if not pattern:  # PhraseMatcher.add skips empty patterns
                    continue
                node = self.matcher_trie
                for text in pattern:
                    node = node.setdefault(text, {})
                node.setdefault(None, set()).add(chunk)

    # -- the affix rules: Tokenizer.find_prefix / find_suffix / find_infix ------------------

    def find_prefix(self, string: str) -> int:
        """Tokenizer.find_prefix: length of the prefix to split off, 0 for none."""
        if self.prefix_search is None:
            return 0
        match = self.prefix_search(string)
        return (match.end() - match.start()) if match is not None else 0

    def find_suffix(self, string: str) -> int:
        """Tokenizer.find_suffix: length of the suffix to split off, 0 for none."""
        if self.suffix_search is None:
            return 0
        match = self.suffix_search(string)
        return (match.end() - match.start()) if match is not None else 0

    def find_infix(self, string: str) -> list:
        """Tokenizer.find_infix: the infix matches (a list, empty for none)."""
        if self.infix_finditer is None:
            return []
        return list(self.infix_finditer(string))

    # -- one chunk: Tokenizer._try_specials_and_cache / _tokenize / _split_affixes / _attach_tokens

    def tokenize_chunk(self, span: str, with_special_cases: bool = True) -> Tuple[str, ...]:
        """The token texts of one chunk (a run of non-space or of space
        characters): Tokenizer._try_specials_and_cache then Tokenizer._tokenize.
        A pure function of the chunk (spaCy's chunk cache is off in memory zones)."""
        if with_special_cases:
            special = self.specials.get(span)
            if special is not None:
                return special
        return self._tokenize(span, with_special_cases)

    def _tokenize(self, span: str, with_special_cases: bool) -> Tuple[str, ...]:
        """Tokenizer._tokenize: split the affixes, then attach the pieces."""
        prefixes: List[str] = []
        suffixes: List[str] = []
        core = self._split_affixes(span, prefixes, suffixes, with_special_cases)
        return self._attach_tokens(core, prefixes, suffixes, with_special_cases)

    def _split_affixes(self, string: str, prefixes: List[str], suffixes: List[str],
                       with_special_cases: bool) -> str:
        """Tokenizer._split_affixes: strip prefixes and suffixes off ``string``
        until neither applies, a special case remains, or token_match holds."""
        specials = self.specials if with_special_cases else {}
        last_size = 0
        while string and len(string) != last_size:
            if self.token_match and self.token_match(string):
                break
            if string in specials:
                break
            last_size = len(string)
            pre_len = self.find_prefix(string)
            if pre_len != 0:
                prefix = string[:pre_len]
                minus_pre = string[pre_len:]
                if minus_pre and minus_pre in specials:
                    string = minus_pre
                    prefixes.append(prefix)
                    break
            suf_len = self.find_suffix(string[pre_len:])
            if suf_len != 0:
                # spaCy slices the suffix off the end of the whole string (with the prefix)
                suffix = string[-suf_len:]
                minus_suf = string[:-suf_len]
                if minus_suf and minus_suf in specials:
                    string = minus_suf
                    suffixes.append(suffix)
                    break
            if pre_len and suf_len and (pre_len + suf_len) <= len(string):
                string = string[pre_len:-suf_len]
                prefixes.append(prefix)
                suffixes.append(suffix)
            elif pre_len:
                string = minus_pre
                prefixes.append(prefix)
            elif suf_len:
                string = minus_suf
                suffixes.append(suffix)
        return string

    def _attach_tokens(self, string: str, prefixes: List[str], suffixes: List[str],
                       with_special_cases: bool) -> Tuple[str, ...]:
        """Tokenizer._attach_tokens: prefixes, the core (a special case, a
        token_match / url_match token, or split at the infixes), suffixes reversed."""
        tokens = list(prefixes)
        if string:
            special = self.specials.get(string) if with_special_cases else None
            if special is not None:
                tokens.extend(special)
            elif (self.token_match and self.token_match(string)) or (self.url_match and self.url_match(string)):
                tokens.append(string)
            else:
                matches = self.find_infix(string)
                if not matches:
                    tokens.append(string)
                else:
                    start = 0
                    start_before_infixes = start
                    for match in matches:
                        infix_start = match.start()
                        infix_end = match.end()
                        # an infix at the very start is not split off (it stays on the next piece)
                        if infix_start == start_before_infixes:
                            continue
                        if infix_start != start:
                            tokens.append(string[start:infix_start])
                        if infix_start != infix_end:
                            tokens.append(string[infix_start:infix_end])
                        start = infix_end
                    if string[start:]:
                        tokens.append(string[start:])
        tokens.extend(reversed(suffixes))
        return tuple(tokens)

    # -- the whole text: Tokenizer._tokenize_affixes ------------------------------------------

    def _tokenize_affixes(self, string: str, with_special_cases: bool) -> Tuple[List[str], List[bool]]:
        """Tokenizer._tokenize_affixes: cut the text into runs of space and
        non-space characters and tokenize each; a run of spaces that starts with
        one ' ' gives that space to the token before (its trailing-space flag)."""
        if len(string) >= MAX_LENGTH:
            raise ValueError(f"[E025] String is too long: {len(string)} characters. Max is 2**30.")
        check_encodable(string)
        texts: List[str] = []
        spaces: List[bool] = []
        if not string:
            return texts, spaces
        start = 0
        in_ws = string[0].isspace()
        i = 0
        for uc in string:
            if uc.isspace() != in_ws:
                if start < i:
                    pieces = self.tokenize_chunk(string[start:i], with_special_cases)
                    texts.extend(pieces)
                    spaces.extend([False] * len(pieces))
                if uc == " ":
                    spaces[-1] = True
                    start = i + 1
                else:
                    start = i
                in_ws = not in_ws
            i += 1
        if start < i:
            pieces = self.tokenize_chunk(string[start:], with_special_cases)
            texts.extend(pieces)
            spaces.extend([False] * len(pieces))
            spaces[-1] = string[-1] == " " and not in_ws
        return texts, spaces

    # -- the special-case pass: Tokenizer._apply_special_cases ----------------------------------

    def find_matches(self, texts: Sequence[str]) -> List[Tuple[int, int]]:
        """PhraseMatcher.find_matches over the token texts: every (start, end)
        where a special case's pattern occurs, overlaps included."""
        matches: List[Tuple[int, int]] = []
        trie = self.matcher_trie
        n = len(texts)
        for start in range(n):
            node = trie.get(texts[start])
            end = start + 1
            while node is not None:
                ends = node.get(None)
                if ends:
                    matches.extend((start, end) for _ in ends)
                if end >= n:
                    break
                node = node.get(texts[end])
                end += 1
        return matches

    @staticmethod
    def _filter_special_spans(matches: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
        """Tokenizer._filter_special_spans: longest first (then leftmost), keep a
        span unless its first or last token was covered by a span seen before
        (kept or not), in text order."""
        ordered = sorted(matches, key=lambda m: (-(m[1] - m[0]), m[0]))
        seen: set = set()
        kept = []
        for start, end in ordered:
            if start not in seen and (end - 1) not in seen:
                kept.append((start, end))
            seen.update(range(start, end))
        kept.sort()
        return kept

    def _apply_special_cases(self, texts: List[str], spaces: List[bool]) -> Tuple[List[str], List[bool]]:
        """Tokenizer._apply_special_cases with _prepare_special_spans and
        _retokenize_special_spans: replace each kept matched span whose text is a
        special case by the special case's pieces (last one keeps the span's
        trailing space); a span whose text is no rule (it had a space inside) stays."""
        matches = self.find_matches(texts)
        if not matches:
            return texts, spaces
        span_data = {start: end for start, end in self._filter_special_spans(matches)}
        out_texts: List[str] = []
        out_spaces: List[bool] = []
        i = 0
        n = len(texts)
        while i < n:
            end = span_data.get(i)
            if end is None:
                out_texts.append(texts[i])
                out_spaces.append(spaces[i])
                i += 1
                continue
            span_text = "".join(t + (" " if s else "") for t, s in zip(texts[i:end - 1], spaces[i:end - 1])) + texts[end - 1]
            special = self.specials.get(span_text)
            if special is None:
                out_texts.extend(texts[i:end])
                out_spaces.extend(spaces[i:end])
            else:
                out_texts.extend(special)
                out_spaces.extend([False] * (len(special) - 1))
                out_spaces.append(spaces[end - 1])
            i = end
        return out_texts, out_spaces

    # -- the sentencizer: spacy.pipeline.Sentencizer.predict ------------------------------------

    def sentencizer(self, texts: Sequence[str]) -> List[int]:
        """Sentencizer.predict: a sentence starts at the first token, and at the
        first token after a sentence punctuation token that is neither
        punctuation nor sentence punctuation. Returns the start indices."""
        if not texts:
            return []
        starts = [0]
        seen_period = False
        for i, text in enumerate(texts):
            is_in_punct_chars = text in self.punct_chars
            if seen_period and not is_in_punct_chars and not is_punct(text):
                starts.append(i)
                seen_period = False
            elif is_in_punct_chars:
                seen_period = True
        return starts

    # -- Tokenizer.__call__ + the pipeline -------------------------------------------------------

    def __call__(self, string: str) -> Tokens:
        """``nlp(string)``: Tokenizer.__call__ (_tokenize_affixes then
        _apply_special_cases), offsets as Doc.push_back gives them, then the
        sentencizer."""
        texts, spaces = self._tokenize_affixes(string, True)
        texts, spaces = self._apply_special_cases(texts, spaces)
        idx = []
        pos = 0
        for text, space in zip(texts, spaces):
            idx.append(pos)
            pos += len(text) + space
        return Tokens(texts, idx, spaces, self.sentencizer(texts))


# -- what can start a match (the compiled twin skips a regex that cannot match) --------------------

#: a first-character set that could be anything (the analysis gave up)
ANY_CHAR = None


def regex_first_chars(pattern: str, flags: int) -> Tuple[Optional[List[Tuple[int, int]]], Optional[List[Tuple[int, int]]]]:
    """The characters that can begin a (non-empty) match of ``pattern``, from
    its parse tree: ``(unguarded, digit_guarded)``, each a list of code point
    ranges, or ANY_CHAR when it cannot say (a category, a negated set, an
    empty match...). ``digit_guarded`` holds the first characters of the
    alternatives behind a lookbehind on ASCII digits (they need a digit before
    them). A string without any of these characters (and, for the second,
    without an ASCII digit) gives no match."""
    try:
        import re._parser as sre_parse  # Python 3.11+
        import re._constants as sre_constants
    except ImportError:  # pragma: no cover
        import sre_constants  # type: ignore[no-redef]
        import sre_parse  # type: ignore[no-redef]
    c = sre_constants
    digits = [(48, 57)]
    unguarded: List[Tuple[int, int]] = []
    guarded: List[Tuple[int, int]] = []

    class GiveUp(Exception):
        pass

    def charset(op, av) -> List[Tuple[int, int]]:
        if op is c.LITERAL:
            return [(av, av)]
        if op is c.IN:
            out = []
            for o, a in av:
                if o is c.LITERAL:
                    out.append((a, a))
                elif o is c.RANGE:
                    out.append((a[0], a[1]))
                else:  # NEGATE, CATEGORY, ...
                    raise GiveUp
            return out
        raise GiveUp

    def within(ranges, outer) -> bool:
        return all(any(lo <= a and b <= hi for lo, hi in outer) for a, b in ranges)

    def first(items, guard_digit: bool) -> bool:
        """Add the first characters of the sequence ``items``; True when it can match empty."""
        for op, av in items:
            if op is c.ASSERT and av[0] < 0:  # a lookbehind: consumes nothing
                body = list(av[1])
                if len(body) == 1 and within(charset(*body[0]), digits):
                    guard_digit = True
                continue
            if op in (c.ASSERT, c.ASSERT_NOT, c.AT):  # zero width
                continue
            if op in (c.LITERAL, c.IN):
                (guarded if guard_digit else unguarded).extend(charset(op, av))
                return False
            if op is c.SUBPATTERN:
                if av[1] or av[2]:  # flags changed inside the group
                    raise GiveUp
                if not first(list(av[3]), guard_digit):
                    return False
                continue
            if op in (c.MAX_REPEAT, c.MIN_REPEAT):
                empty = first(list(av[2]), guard_digit)
                if av[0] > 0 and not empty:
                    return False
                continue
            if op is c.BRANCH:
                empty = False
                for branch in av[1]:
                    empty = first(list(branch), guard_digit) or empty
                if not empty:
                    return False
                continue
            raise GiveUp
        return True

    try:
        if first(list(sre_parse.parse(pattern, flags)), False):
            return ANY_CHAR, ANY_CHAR  # some alternative can match the empty string
    except GiveUp:
        return ANY_CHAR, ANY_CHAR
    return sorted(unguarded), sorted(guarded)


def regex_anchored(pattern: str, flags: int) -> bool:
    """True when every match of ``pattern`` starts at the string's start (its
    parse begins with ``^`` / ``\\A``, or each alternative does), MULTILINE off."""
    try:
        import re._parser as sre_parse  # Python 3.11+
        import re._constants as sre_constants
    except ImportError:  # pragma: no cover
        import sre_constants  # type: ignore[no-redef]
        import sre_parse  # type: ignore[no-redef]
    c = sre_constants
    if flags & re.MULTILINE:
        return False

    def starts_anchored(items) -> bool:
        items = list(items)
        if not items:
            return False
        op, av = items[0]
        if op is c.AT:
            return av in (c.AT_BEGINNING, c.AT_BEGINNING_STRING)
        if op is c.BRANCH:
            return all(starts_anchored(branch) for branch in av[1])
        if op is c.SUBPATTERN and not (av[1] or av[2]):
            return starts_anchored(av[3])
        return False

    return starts_anchored(sre_parse.parse(pattern, flags))


def regex_suffix_reach(pattern: str, flags: int) -> Optional[Tuple[int, str]]:
    """How far back from a string's end a match of the end-anchored ``pattern``
    can start: ``(width, run_chars)`` -- no match is wider than ``width``
    characters, except the alternatives "a run of one character c (at least k
    times) at the end" for each c in ``run_chars``, which start where that
    trailing run starts. None when the pattern is not of that shape (a top-level
    alternation, or one sequence, each ending with ``$``, MULTILINE off).

    So on a string not ending with a newline (``$`` is then the very end), the
    leftmost match of ``search`` starts no earlier than ``len - max(width, run)``
    (``run``: the longest trailing run of a ``run_chars`` character), and
    ``search(string, that)`` finds the same match: lookbehinds still see the
    characters before the start position."""
    try:
        import re._parser as sre_parse  # Python 3.11+
        import re._constants as sre_constants
    except ImportError:  # pragma: no cover
        import sre_constants  # type: ignore[no-redef]
        import sre_parse  # type: ignore[no-redef]
    c = sre_constants
    if flags & re.MULTILINE:
        return None
    tree = list(sre_parse.parse(pattern, flags))
    if len(tree) == 1 and tree[0][0] is c.BRANCH:
        alternatives = [list(b) for b in tree[0][1][1]]
    else:
        alternatives = [tree]
    width = 0
    run_chars = set()
    for alt in alternatives:
        if not alt or alt[-1] != (c.AT, c.AT_END):
            return None
        lo, hi = sre_parse.SubPattern(sre_parse.State(), alt).getwidth()
        if hi < c.MAXREPEAT:
            width = max(width, hi)
            continue
        # the one unbounded shape allowed: literals c..., then c{k,}, then $
        body = alt[:-1]
        if not (body and body[-1][0] is c.MAX_REPEAT and body[-1][1][1] is c.MAXREPEAT
                and list(body[-1][1][2]) and len(body[-1][1][2]) == 1 and body[-1][1][2][0][0] is c.LITERAL):
            return None
        ch = body[-1][1][2][0][1]
        if any(item != (c.LITERAL, ch) for item in body[:-1]):
            return None
        run_chars.add(chr(ch))
    return width, "".join(sorted(run_chars))


def regex_required_chars(pattern: str, flags: int) -> str:
    """Characters every match of ``pattern`` consumes (each of them, at least once), read off its
    parse tree: a literal in a sequence, in every alternative of a branch, in a repeat taken at
    least once. "" when it finds none (or IGNORECASE is on). A string without one of them gives no
    match."""
    try:
        import re._parser as sre_parse  # Python 3.11+
        import re._constants as sre_constants
    except ImportError:  # pragma: no cover
        import sre_constants  # type: ignore[no-redef]
        import sre_parse  # type: ignore[no-redef]
    c = sre_constants
    if flags & re.IGNORECASE:
        return ""

    def required(items) -> set:
        out: set = set()
        for op, av in items:
            if op is c.LITERAL:
                out.add(av)
            elif op is c.IN and len(av) == 1 and av[0][0] is c.LITERAL:
                out.add(av[0][1])
            elif op is c.SUBPATTERN:
                if not (av[1] or av[2]):  # no flags changed inside the group
                    out |= required(av[3])
            elif op is c.BRANCH:
                sets = [required(branch) for branch in av[1]]
                out |= set.intersection(*sets) if sets else set()
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] >= 1:
                out |= required(av[2])
        return out

    tree = sre_parse.parse(pattern, flags)
    if tree.state.flags & re.IGNORECASE:
        return ""
    return "".join(sorted(chr(k) for k in required(tree)))


def regex_lookbehind_reach(pattern: str, flags: int) -> Optional[int]:
    """How many characters before a position a match of ``pattern`` tried there can read: the
    widest lookbehind (0 without one). None when a match also depends on where the string
    starts or on more than its characters (``^``, ``\\b``, ``\\B``, backreferences,
    unbounded lookbehinds). So, with reach L, ``search(s, p)`` gives the match that
    ``search(s[q:], p - q)`` gives shifted by q, for any q with ``p - L <= q``, q >= 0."""
    try:
        import re._parser as sre_parse  # Python 3.11+
        import re._constants as sre_constants
    except ImportError:  # pragma: no cover
        import sre_constants  # type: ignore[no-redef]
        import sre_parse  # type: ignore[no-redef]
    c = sre_constants
    widest = 0

    class GiveUp(Exception):
        pass

    def walk(items) -> None:
        nonlocal widest
        for op, av in items:
            if op in (c.ASSERT, c.ASSERT_NOT):
                direction, body = av
                if direction < 0:
                    hi = body.getwidth()[1]
                    if hi >= c.MAXREPEAT:
                        raise GiveUp
                    widest = max(widest, hi)
                walk(body)
            elif op is c.AT:
                if av not in (c.AT_END, c.AT_END_STRING):
                    raise GiveUp
            elif op is c.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op is c.SUBPATTERN:
                walk(av[3])
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
                walk(av[2])
            elif op in (c.LITERAL, c.NOT_LITERAL, c.IN, c.ANY):
                continue
            else:  # backreferences, conditionals, anything else
                raise GiveUp

    try:
        walk(sre_parse.parse(pattern, flags))
    except GiveUp:
        return None
    return widest


def strip_strings(els: Sequence[str]) -> List[str]:
    """datatrove.utils.word_tokenizers.strip_strings: strip each, drop the empty ones."""
    return [el.strip() for el in els if len(el.strip()) > 0]


# -- the stock path ------------------------------------------------------------------------------

_stock_lock = threading.Lock()
_stock_calls = 0
_version_warned = False


def stock_calls() -> int:
    """How many calls ran the stock spaCy (texts the twin does not do itself)."""
    return _stock_calls


def _count_stock() -> None:
    global _stock_calls
    with _stock_lock:
        _stock_calls += 1


def installed_spacy_version() -> Optional[str]:
    """The installed spaCy's version (without importing it), None when absent."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return None
    try:
        return version("spacy")
    except PackageNotFoundError:
        return None


class StockEnglish:
    """datatrove's SpaCyTokenizer("en") over the installed spaCy: ``spacy.blank("en")``
    plus the sentencizer, each call in a memory zone with the IS_ALPHA retry."""

    def __init__(self) -> None:
        import spacy

        self.nlp = spacy.blank("en")
        self.nlp.add_pipe("sentencizer")

    def _do_tokenize(self, text: str):
        self.nlp.max_length = len(text)
        try:
            return self.nlp(text, disable=["parser", "tagger", "ner"])
        except Exception:
            if IS_ALPHA in text:
                return self.nlp(text.replace(IS_ALPHA, ""), disable=["parser", "tagger", "ner"])
            raise

    def tokenize(self, text: str) -> Tokens:
        with self.nlp.memory_zone():
            self.nlp.max_length = len(text) + 10
            doc = self._do_tokenize(text)
            return Tokens([t.text for t in doc], [t.idx for t in doc], [bool(t.whitespace_) for t in doc],
                          [s.start for s in doc.sents] if len(doc) else [])

    def word_tokenize(self, text: str) -> List[str]:
        with self.nlp.memory_zone():
            self.nlp.max_length = len(text) + 10
            return strip_strings([t.text for t in self._do_tokenize(text)])

    def sent_tokenize(self, text: str) -> List[str]:
        with self.nlp.memory_zone():
            self.nlp.max_length = len(text) + 10
            return strip_strings([s.text for s in self._do_tokenize(text).sents])

    def span_tokenize(self, text: str) -> List[Tuple[int, int]]:
        with self.nlp.memory_zone():
            return [(s.start_char, s.end_char) for s in self._do_tokenize(text).sents]


class _NeedsStock(Exception):
    """The twin cannot give this text's result itself."""


class EnglishTokenizer:
    """datatrove's ``SpaCyTokenizer("en")``, exactly: ``word_tokenize``,
    ``sent_tokenize``, ``span_tokenize`` give its results. ``engine`` is
    ``"compiled"`` (trafila._tokenizer_en, ImportError when not built),
    ``"reference"`` or None: TRAFILA_ENGINE=reference gives the reference,
    TRAFILA_ENGINE=core the compiled twin, otherwise the compiled twin when built."""

    def __init__(self, engine: Optional[str] = None, max_cache: Optional[int] = None) -> None:
        """``max_cache``: chunks the compiled twin keeps (default 100,000, about
        30 MB; more is faster on large, varied corpora)."""
        self.rules = EnglishRules()
        if engine is None:
            # the project's engine switch: reference, core (the compiled twin, required) or auto
            wanted = os.environ.get("TRAFILA_ENGINE", "").strip().lower()
            engine = {"reference": "reference", "core": "compiled"}.get(wanted, "auto")
        self._compiled = None
        if engine in ("compiled", "auto"):
            try:
                from trafila import _tokenizer_en
            except ImportError:
                if engine == "compiled":
                    raise
            else:
                if max_cache is None:
                    self._compiled = _tokenizer_en.CompiledEnglish(self.rules)
                else:
                    self._compiled = _tokenizer_en.CompiledEnglish(self.rules, max_cache=max_cache)
        self.engine = "compiled" if self._compiled is not None else "reference"
        installed = installed_spacy_version()
        self._spacy_installed = installed is not None
        self._use_stock_always = installed is not None and installed != SPACY_VERSION
        self._stock: Optional[StockEnglish] = None
        #: without spaCy: whether an IS_ALPHA lexeme was made (the next one raises)
        self._is_alpha_seen = False

    # -- the stock path

    def stock(self) -> StockEnglish:
        """The stock spaCy tokenizer (built on first use)."""
        global _version_warned
        if self._stock is None:
            if self._use_stock_always and not _version_warned:
                _version_warned = True
                warnings.warn(f"spaCy {installed_spacy_version()} is installed but trafila's English rules come "
                              f"from spaCy {SPACY_VERSION}: every text runs the stock spaCy", RuntimeWarning)
            self._stock = StockEnglish()
        return self._stock

    def _twin(self, text: str) -> Tokens:
        """The twin's tokenization, or _NeedsStock (spaCy installed) / spaCy's
        exception (not installed) where spaCy raises."""
        if len(text) >= MAX_LENGTH:
            if self._spacy_installed:
                raise _NeedsStock
            raise ValueError(f"[E025] String is too long: {len(text)} characters. Max is 2**30.")
        try:
            tokens = self._compiled.tokenize(text) if self._compiled is not None else self.rules(text)
        except UnicodeEncodeError:
            if self._spacy_installed:
                raise _NeedsStock from None
            raise
        if IS_ALPHA in text and IS_ALPHA in tokens.texts:
            if self._spacy_installed:
                raise _NeedsStock
            # the first IS_ALPHA lexeme of a vocabulary works, every later one raises
            if self._is_alpha_seen:
                raise AssertionError()
            self._is_alpha_seen = True
        return tokens

    def _do_tokenize(self, text: str) -> Tuple[Tokens, str]:
        """datatrove's SpaCyTokenizer._do_tokenize: on an exception, retry once
        without the IS_ALPHA strings. Returns the tokens and the text they cover."""
        try:
            return self._twin(text), text
        except _NeedsStock:
            raise
        except Exception:
            if IS_ALPHA in text:
                text = text.replace(IS_ALPHA, "")
                return self._twin(text), text
            raise

    def _run(self, method: str, text: str):
        if self._use_stock_always:
            _count_stock()
            return getattr(self.stock(), method)(text)
        try:
            result = self._twin_result(method, text)
        except _NeedsStock:
            result = _NeedsStock
        if result is _NeedsStock:
            _count_stock()
            return getattr(self.stock(), method)(text)
        return result

    def _twin_result(self, method: str, text: str):
        """``method``'s result from the twin (raises _NeedsStock where it cannot)."""
        if self._compiled is not None and method != "tokenize" and not (IS_ALPHA in text or len(text) >= MAX_LENGTH):
            try:
                return getattr(self._compiled, method)(text)
            except UnicodeEncodeError:
                if self._spacy_installed:
                    raise _NeedsStock from None
                raise
        tokens, text = self._do_tokenize(text)
        if method == "tokenize":
            return tokens
        if method == "word_tokenize":
            return strip_strings(tokens.texts)
        spans = tokens.sentence_spans()
        if method == "span_tokenize":
            return spans
        return strip_strings([text[a:b] for a, b in spans])

    def tokenize(self, text: str) -> Tokens:
        """The tokens (texts, offsets, trailing-space flags) and sentence starts
        of ``text`` (of the text without IS_ALPHA where datatrove retries)."""
        return self._run("tokenize", text)

    def word_tokenize(self, text: str) -> List[str]:
        """SpaCyTokenizer("en").word_tokenize: the token texts, stripped, empties dropped."""
        return self._run("word_tokenize", text)

    def sent_tokenize(self, text: str) -> List[str]:
        """SpaCyTokenizer("en").sent_tokenize: the sentence texts, stripped, empties dropped."""
        return self._run("sent_tokenize", text)

    def span_tokenize(self, text: str) -> List[Tuple[int, int]]:
        """SpaCyTokenizer("en").span_tokenize: (start_char, end_char) of each sentence."""
        return self._run("span_tokenize", text)


_instance: Optional[EnglishTokenizer] = None
_instance_lock = threading.Lock()


def english_tokenizer() -> EnglishTokenizer:
    """The process-wide :class:`EnglishTokenizer`."""
    global _instance
    if _instance is None:
        with _instance_lock:
            if _instance is None:
                _instance = EnglishTokenizer()
    return _instance
