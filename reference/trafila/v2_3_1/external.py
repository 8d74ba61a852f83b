"""External fallbacks of trafilatura 2.3.1 (external.py).

NOT YET PORTED on this path: readability (``try_readability``) and jusText
(``justext_rescue``/``try_justext``) live in trafila.readability_2_3_1 and
trafila.justext, owned elsewhere. These entry points are only reached when
``fast`` is off, and raise NotImplementedError until they are wired.
"""

from __future__ import annotations

from typing import Any, Tuple


def compare_extraction(tree: Any, backup_tree: Any, body: Any, text: str, options: Any) -> Tuple[Any, str]:
    "Readability/jusText comparison (non-fast path) -- not yet ported here."
    raise NotImplementedError("delegate: compare_extraction (readability/jusText fallback, fast=False)")


def justext_rescue(tree: Any, options: Any) -> Tuple[Any, str]:
    "jusText candidate of the recall escalation (non-fast path) -- not yet ported here."
    raise NotImplementedError("delegate: justext_rescue (fast=False)")
