"""trafila.readability_2_3_1 against trafilatura 2.3.1's fork on generated documents.

Documents come from the harness grammar (``harness.strategies``: parser-stress
soups and article-like pages using trafilatura's class/id vocabulary), are parsed
with lxml (trafilatura's parser settings) and bridged into trafila; the summary
trees must be equal, for ``min_text_length`` 25 (trafilatura's) and 1.

    PYTHONPATH=reference:. python tests/test_readability_generated.py 2000
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "reference"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

pytest.importorskip("trafilatura")
lxml_html = pytest.importorskip("lxml.html")

HTML_PARSER = lxml_html.HTMLParser(
    collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True, remove_pis=True
)


def documents(seed: int, count: int):
    from harness.strategies import random_article, random_html

    rng = random.Random(seed)
    for i in range(count):
        yield (random_article if i % 2 == 0 else random_html)(rng)


def compare_markup(markup: str, min_text_length: int = 25) -> Optional[str]:
    import copy

    from harness.lxml_bridge import from_lxml
    from harness.treedump import dump_element, first_difference
    from tests.test_readability_corpus import real_summary
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
    for i, markup in enumerate(documents(seed, count)):
        for length in (25, 1):
            outcome = compare_markup(markup, length)
            if outcome not in (None, "skip"):
                failures.append(f"seed {seed} doc {i} min_text_length {length}: {outcome}")
    return failures


def test_generated_documents_seed_1():
    assert run(1, 200) == []


def main(argv=None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    count = int(args[0]) if args else 1000
    seed = int(args[1]) if len(args) > 1 else 7
    failures = run(seed, count)
    for line in failures[:20]:
        print(line)
    print(f"seed {seed}: {count} documents x 2 min_text_length, {len(failures)} differing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
