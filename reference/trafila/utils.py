"""trafilatura 2.3.1's text utilities, public in trafila: ``trim``, ``sanitize``,
``line_processing``, ``duplicate_test`` and the simhash helpers.

The first three are the 2.3.1 port's own (trafila.v2_3_1.utils); duplicate_test
is trafila.v2_3_1.deduplication's, so it counts in the same caches as extraction.
"""

from __future__ import annotations

from .simhash import Simhash, content_fingerprint, generate_bow_hash, sample_tokens
from .v2_3_1.deduplication import duplicate_test
from .v2_3_1.utils import line_processing, normalize_unicode, remove_control_characters, sanitize, trim

__all__ = [
    "trim", "sanitize", "line_processing", "normalize_unicode", "remove_control_characters",
    "duplicate_test", "Simhash", "content_fingerprint", "generate_bow_hash", "sample_tokens",
]
