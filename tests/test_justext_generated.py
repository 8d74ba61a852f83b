"""trafila.justext against jusText 3.0.2 on generated documents.

Documents come from the harness grammar (``harness.strategies``), are parsed with
lxml (trafilatura's parser settings) and bridged into trafila; every paragraph
record must be equal under trafilatura 2.3.1's and jusText's default parameters.

    PYTHONPATH=reference:. python tests/test_justext_generated.py 2000
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "reference"):  # also run as a script
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from tests._helpers import (generated_documents, generated_main, paragraph_record,  # noqa: E402
                            trafilatura_html_parser)

justext = pytest.importorskip("justext")
lxml_html = pytest.importorskip("lxml.html")

HTML_PARSER = trafilatura_html_parser()

PARAMETER_SETS = [
    ((50, 150, 0.1, 0.2, 0.25, True), 150),  # trafilatura 2.3.1
    ((70, 200, 0.30, 0.32, 0.2, False), 200),  # jusText defaults
]


def compare_markup(markup: str) -> Optional[str]:
    from justext.core import ParagraphMaker, classify_paragraphs, revise_paragraph_classification
    from justext.utils import get_stoplist

    from harness.lxml_bridge import from_lxml
    from trafila import justext as tj

    try:
        lxml_tree = lxml_html.fromstring(markup, parser=HTML_PARSER)
        tree = from_lxml(lxml_tree)
    except Exception:
        return "skip"
    for params, distance in PARAMETER_SETS:
        real = ParagraphMaker.make_paragraphs(lxml_tree)
        classify_paragraphs(real, get_stoplist("English"), *params)
        revise_paragraph_classification(real, distance)
        port = tj.ParagraphMaker.make_paragraphs(tree)
        tj.classify_paragraphs(port, tj.get_stoplist("English"), *params)
        tj.revise_paragraph_classification(port, distance)
        a = [paragraph_record(p) for p in port]
        b = [paragraph_record(p) for p in real]
        if a != b:
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            return f"{params}: paragraph {first}: {a[first:first + 1]!r} != {b[first:first + 1]!r}"
    return None


def run(seed: int, count: int) -> List[str]:
    failures = []
    for i, markup in enumerate(generated_documents(seed, count)):
        outcome = compare_markup(markup)
        if outcome not in (None, "skip"):
            failures.append(f"seed {seed} doc {i}: {outcome}"[:1500])
    return failures


def test_generated_documents_seed_1():
    assert run(1, 200) == []


def main(argv=None) -> int:
    return generated_main(run, f"{len(PARAMETER_SETS)} parameter sets", argv)


if __name__ == "__main__":
    sys.exit(main())
