"""trafila.readability_2_3_1 against trafilatura 2.3.1's fork on generated documents.

Documents come from the harness grammar (``harness.strategies``: parser-stress
soups and article-like pages using trafilatura's class/id vocabulary), are parsed
with lxml (trafilatura's parser settings) and bridged into trafila; the summary
trees must be equal, for ``min_text_length`` 25 (trafilatura's) and 1.

    PYTHONPATH=reference:. python tests/test_readability_generated.py 2000
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

from tests._helpers import generated_documents, generated_main, real_summary, trafilatura_html_parser  # noqa: E402

pytest.importorskip("trafilatura")
lxml_html = pytest.importorskip("lxml.html")

HTML_PARSER = trafilatura_html_parser()


def compare_markup(markup: str, min_text_length: int = 25) -> Optional[str]:
    import copy

    from harness.lxml_bridge import from_lxml
    from harness.treedump import dump_element, first_difference
    from trafila import readability_2_3_1 as rd

    try:
        lxml_tree = lxml_html.fromstring(markup, parser=HTML_PARSER)
    except Exception:
        return "skip"
    # trafilatura hands readability a copy (a parentless root); do the same on both sides
    lxml_tree = copy.copy(lxml_tree)
    try:
        tree = copy.copy(from_lxml(lxml_tree))
    except ValueError:
        return "skip"
    try:
        real = real_summary(lxml_tree, min_text_length)[0]
    except Exception as err:
        real = f"raised {type(err).__name__}"
    try:
        port = dump_element(rd.Document(tree, min_text_length=min_text_length).summary_tree())
    except Exception as err:
        port = f"raised {type(err).__name__}"
    if port == real:
        return None
    if isinstance(port, str) or isinstance(real, str):
        return f"port {str(port)[:100]} / fork {str(real)[:100]}"
    return first_difference(port, real)


def run(seed: int, count: int) -> List[str]:
    failures = []
    for i, markup in enumerate(generated_documents(seed, count)):
        for length in (25, 1):
            outcome = compare_markup(markup, length)
            if outcome not in (None, "skip"):
                failures.append(f"seed {seed} doc {i} min_text_length {length}: {outcome}")
    return failures


def test_generated_documents_seed_1():
    assert run(1, 200) == []


def main(argv=None) -> int:
    return generated_main(run, "2 min_text_length", argv)


if __name__ == "__main__":
    sys.exit(main())
