"""Text fingerprints as trafilatura 2.3.1 computes them (deduplication.py):
``sample_tokens``, ``generate_bow_hash``, ``Simhash`` and ``content_fingerprint``;
and 1.11.0's ``sample_tokens`` and ``content_fingerprint`` (``*_1_11_0``), which
differ from 2.3.1's only for texts without an ASCII-punctuated alphanumeric token.

Pure Python, no lxml. Results equal trafilatura 2.3.1's for every string
(tests/test_api_utils.py checks them on random text with Hypothesis).
"""

from __future__ import annotations

import string
import unicodedata
from functools import lru_cache
from hashlib import blake2b
from typing import Any, List, Optional, Union

__all__ = ["sample_tokens", "generate_bow_hash", "Simhash", "content_fingerprint", "sample_tokens_1_11_0",
           "content_fingerprint_1_11_0", "page_fingerprint"]


def _punctuation_to_space(text: str) -> str:
    "Every character of a Unicode P* category becomes a space (upstream builds a table over all of Unicode)."
    return "".join(" " if unicodedata.category(ch)[0] == "P" else ch for ch in text)


def _alnum_tokens(inputstring: str) -> List[str]:
    "The whitespace-separated tokens that are alphanumeric once ASCII punctuation is stripped at their ends."
    tokens = []
    for token in inputstring.split():
        stripped = token.strip(string.punctuation)
        if stripped.isalnum():
            tokens.append(stripped)
    return tokens


def _longest_class(tokens: List[str], length: int) -> List[str]:
    "The tokens longer than 4, 3, 2 or 1 characters, the first class with ``length / 2`` of them; else all."
    for min_len in (4, 3, 2, 1):
        sample = [t for t in tokens if len(t) > min_len]
        if len(sample) >= length / 2:
            return sample
    return tokens


def sample_tokens(inputstring: str, length: int = 64) -> List[str]:
    """The alphanumeric tokens of ``inputstring`` (ASCII punctuation stripped at
    their ends); the longest length class that still gives ``length / 2`` tokens."""
    tokens = _alnum_tokens(inputstring)
    if not tokens:
        # scripts whose punctuation is not ASCII (e.g. "。"): split on any punctuation
        tokens = [t for t in _punctuation_to_space(inputstring).split() if t.isalnum()]
    return _longest_class(tokens, length)


def sample_tokens_1_11_0(inputstring: str, length: int = 64) -> List[str]:
    """trafilatura 1.11.0's sample_tokens: 2.3.1's without the split on non-ASCII
    punctuation, so a text such as "中文。字" has no token (its fingerprint is all ones)."""
    return _longest_class(_alnum_tokens(inputstring), length)


def generate_bow_hash(inputstring: str, length: int = 24) -> bytes:
    "blake2b digest (``length`` bytes) of the sampled tokens joined by spaces."
    return blake2b(" ".join(sample_tokens(inputstring)).encode(), digest_size=length).digest()


@lru_cache(maxsize=2**14)
def _token_votes(token: str, length: int) -> tuple:
    "+1/-1 per bit of the token's 64-bit blake2b hash, lowest bit first."
    value = int.from_bytes(blake2b(token.encode(), digest_size=8).digest(), "big")
    return tuple(1 if (value >> bit) & 1 else -1 for bit in range(length))


def _votes_hash(tokens: List[str], length: int, core: Any = None) -> int:
    """Charikar's hash of the tokens: bit i is set when their votes for bit i sum to >= 0 (no
    token: every bit). ``core``: the compiled core, whose C tally (simhash.pxi) gives the same."""
    c_votes = getattr(core, "simhash_votes", None)
    if c_votes is not None and 0 <= length <= 64:
        return c_votes(tokens, length)  # type: ignore[no-any-return]
    totals = [0] * length
    for token in tokens:
        for bit, vote in enumerate(_token_votes(token, length)):
            totals[bit] += vote
    return sum(1 << bit for bit in range(length) if totals[bit] >= 0)


class Simhash:
    """Charikar simhash of a text (trafilatura.deduplication.Simhash).

    ``existing_hash`` (an int, a hex string, or an 18–22 digit decimal string)
    is used when valid and non-zero; otherwise the hash of ``inputstring``.
    """

    __slots__ = ("hash", "length")

    def __init__(self, inputstring: str = "", length: int = 64, existing_hash: Optional[Union[int, str]] = None) -> None:
        self.length = length
        # a valid hash of 0 is falsy, so it is recomputed from the text (as upstream)
        self.hash = self.validate(existing_hash) or self.create_hash(inputstring)

    def create_hash(self, inputstring: str) -> int:
        "The simhash: bit i is set when the tokens' votes for bit i sum to >= 0."
        return _votes_hash(sample_tokens(inputstring, self.length), self.length)

    def to_hex(self) -> str:
        "The hash in lowercase hexadecimal, no prefix."
        return format(self.hash, "x")

    def validate(self, inputhash: Optional[Union[int, str]]) -> Optional[int]:
        "The hash as an int when it fits in ``length`` bits, else None."
        if isinstance(inputhash, str):
            if inputhash.isdecimal() and 18 <= len(inputhash) <= 22:
                inputhash = int(inputhash)
            else:
                try:
                    inputhash = int(inputhash, 16)
                except ValueError:
                    return None
        # exactly int: bool is refused
        if type(inputhash) is int and 0 <= inputhash < (1 << self.length):
            return inputhash
        return None

    def hamming_distance(self, other_hash: "Simhash") -> int:
        "Number of differing bits (a trafila addition; upstream only has similarity)."
        return bin(self.hash ^ other_hash.hash).count("1")

    def similarity(self, other_hash: "Simhash") -> float:
        "1 - hamming distance / length, from 0.0 to 1.0."
        return (self.length - self.hamming_distance(other_hash)) / self.length


def content_fingerprint(content: str) -> str:
    "Hex simhash of the content (trafilatura.deduplication.content_fingerprint)."
    return page_fingerprint(content)


def _sampled(content: str, length: int, core: Any, release_1_11_0: bool) -> List[str]:
    """sample_tokens (``release_1_11_0``: sample_tokens_1_11_0) of ``content``; ``core``: the
    compiled core, whose C pass over the str (simhash.pxi) gives the same tokens."""
    c_sample = getattr(core, "simhash_sample_tokens", None)
    if c_sample is not None and type(content) is str and type(length) is int:
        return c_sample(content, length, release_1_11_0)  # type: ignore[no-any-return]
    return sample_tokens_1_11_0(content, length) if release_1_11_0 else sample_tokens(content, length)


def content_fingerprint_1_11_0(content: str, core: Any = None) -> str:
    "Hex simhash of the content as trafilatura 1.11.0 computes it (its sample_tokens)."
    return format(_votes_hash(_sampled(content, 64, core, True), 64, core), "x")


def page_fingerprint(content: str, core: Any = None) -> str:
    """``content_fingerprint(content)`` as the extraction computes it: on the core's backend
    (``core``, the compiled module) the tokens are sampled and their votes tallied in C."""
    return format(_votes_hash(_sampled(content, 64, core, False), 64, core), "x")


def reset_caches() -> None:
    _token_votes.cache_clear()
