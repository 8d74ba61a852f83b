"""trafila.justext against jusText 3.0.2 on real pages, as trafilatura 2.3.1 calls it.

Each sampled page is parsed with trafilatura's own ``load_html`` (lxml), cleaned
with trafilatura's ``basic_cleaning`` (the tree ``justext_rescue`` hands to
``try_justext``), then bridged into trafila (``harness.lxml_bridge.from_lxml``).
Real jusText and the port then run on the two copies and every paragraph is
compared: dom path, xpath, text nodes, link characters, tag count, text, length,
words, link density, context-free class, final class, heading flag -- with the
union stoplist and with the English one -- and so is ``try_justext``'s output.

pytest runs a small sample (``TRAFILA_JT_BUNDLES``, ``TRAFILA_JT_STEP``); the
full measurement is a command:

    PYTHONPATH=reference:. python tests/test_justext_corpus.py \\
        --bundles trafilatura,cleaneval,dragnet,warc-misc --step 5
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "reference"):  # also run as a script
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from tests._helpers import (corpus_arguments, needs_corpora, paragraph_record, run_corpus,  # noqa: E402
                            trafila_tree)

DEFAULT_BUNDLES = os.environ.get("TRAFILA_JT_BUNDLES", "trafilatura,cleaneval").split(",")
DEFAULT_STEP = int(os.environ.get("TRAFILA_JT_STEP", "40"))


def compare_page(page, parser: str = "lxml") -> Optional[str]:
    """None when the port agrees with jusText on this page, else the first difference."""
    from justext.core import ParagraphMaker, classify_paragraphs, revise_paragraph_classification
    from justext.utils import get_stoplist
    from trafilatura import external
    from trafilatura.baseline import basic_cleaning
    from trafilatura.utils import load_html

    from harness.lxml_bridge import from_lxml
    from trafila import justext as tj
    from trafila.v2_3_1 import external as t231_external

    if parser == "trafila" and page.html is None:
        return "skip"  # trafila's load_html delegates charset detection for non-UTF-8 bytes
    form = "str" if page.html is not None else "bytes"
    lxml_tree = load_html(page.input(form))
    if lxml_tree is None:
        return "skip"
    lxml_tree = basic_cleaning(lxml_tree)
    if parser == "lxml":
        try:
            tree = from_lxml(lxml_tree)
        except ValueError as err:
            return f"bridge-error {err}"  # harness.lxml_bridge could not copy the tree
    else:
        from trafila.v2_3_1.baseline import basic_cleaning as trafila_basic_cleaning

        tree = trafila_tree(page, form)
        if tree is None:
            return "trafila's load_html gave None, lxml's a tree"
        tree = trafila_basic_cleaning(tree)

    union = external.JT_STOPLIST or external.jt_stoplist_init()
    for label, real_list, port_list in (
        ("union", union, tj.all_stoplists()),
        ("English", get_stoplist("English"), tj.get_stoplist("English")),
    ):
        real = ParagraphMaker.make_paragraphs(lxml_tree)
        classify_paragraphs(real, real_list, 50, 150, 0.1, 0.2, 0.25, True)
        revise_paragraph_classification(real, 150)
        port = t231_external.justext_paragraphs(tree, port_list)
        if len(real) != len(port):
            return f"{label}: {len(port)} paragraphs, jusText {len(real)}"
        for i, (a, b) in enumerate(zip(port, real)):
            ra, rb = paragraph_record(a), paragraph_record(b)
            if ra != rb:
                fields = [k for k, (x, y) in enumerate(zip(ra, rb)) if x != y]
                return f"{label}: paragraph {i} fields {fields}: {ra!r} != {rb!r}"[:2000]

    real_body = external.try_justext(lxml_tree, None, None)
    port_body = t231_external.try_justext(tree, None, None)
    real_texts = [p.text for p in real_body]
    port_texts = [p.text for p in port_body]
    if real_texts != port_texts:
        return f"try_justext: {port_texts[:3]!r} != {real_texts[:3]!r}"
    return None


VIA_STATS = {"calls": 0, "paragraphs": 0}
BRIDGE_ERRORS: List[str] = []


def compare_via_extract(page) -> Optional[str]:
    """Run ``trafilatura.extract`` (2.3.1 defaults, fallbacks on) with its
    ``try_justext`` wrapped: every tree it hands to jusText is bridged into
    trafila, and the paragraphs and the returned body must be the same."""
    from justext.core import ParagraphMaker, classify_paragraphs, revise_paragraph_classification
    from justext.utils import get_stoplist
    from trafilatura import external, extract

    from harness.lxml_bridge import from_lxml
    from trafila import justext as tj
    from trafila.v2_3_1 import external as t231_external

    differences: List[str] = []
    original = external.try_justext

    def wrapped(tree, url, target_language):
        VIA_STATS["calls"] += 1
        # trafilatura catches exceptions around this call: record ours instead of raising
        try:
            port_tree = from_lxml(tree)
            real = ParagraphMaker.make_paragraphs(tree)  # read-only on the tree
            real_list = (
                get_stoplist(external.JUSTEXT_LANGUAGES[target_language])
                if target_language in external.JUSTEXT_LANGUAGES
                else external.JT_STOPLIST or external.jt_stoplist_init()
            )
            classify_paragraphs(real, real_list, 50, 150, 0.1, 0.2, 0.25, True)
            revise_paragraph_classification(real, 150)
            port = t231_external.justext_paragraphs(port_tree, t231_external.choose_stoplist(target_language))
            VIA_STATS["paragraphs"] += len(real)
            if [paragraph_record(p) for p in port] != [paragraph_record(p) for p in real]:
                differences.append(f"call {VIA_STATS['calls']}: paragraphs differ")
        except Exception as err:
            differences.append(f"call {VIA_STATS['calls']}: comparison raised {err!r}")
            port_tree = None
        result = original(tree, url, target_language)
        if port_tree is not None:
            mine = t231_external.try_justext(port_tree, url, target_language)
            if [p.text for p in mine] != [p.text for p in result] or mine.tag != result.tag:
                differences.append(f"call {VIA_STATS['calls']}: try_justext body differs")
        return result

    external.try_justext = wrapped
    calls_before = VIA_STATS["calls"]
    try:
        form = "str" if page.html is not None else "bytes"
        extract(page.input(form), url=page.url)
    finally:
        external.try_justext = original
    if differences:
        return "; ".join(differences)
    return "no-call" if VIA_STATS["calls"] == calls_before else None


def run(bundles: List[str], step: int, verbose: bool = False, via_extract: bool = False,
        parser: str = "lxml") -> Tuple[int, int, int, List[str]]:
    """(pages compared, skipped, differing, failures)."""
    compare = compare_via_extract if via_extract else (lambda page: compare_page(page, parser=parser))
    pages, skipped, _, failures = run_corpus(bundles, step, compare, BRIDGE_ERRORS, verbose)
    return pages, skipped, len(failures), failures


@needs_corpora
def test_justext_port_equals_justext_on_corpus_sample():
    pytest.importorskip("trafilatura")
    pages, skipped, differing, failures = run(DEFAULT_BUNDLES, DEFAULT_STEP)
    assert pages > 0
    assert failures == []


def main(argv=None) -> int:
    import time

    args = corpus_arguments("compare trafila.justext with jusText on corpus pages", "jusText",
                            DEFAULT_BUNDLES).parse_args(argv)
    start = time.time()
    pages, skipped, differing, failures = run(args.bundles.split(","), args.step, verbose=True,
                                              via_extract=args.via_extract, parser=args.parser)
    print(f"bundles={args.bundles} step={args.step} via_extract={args.via_extract} parser={args.parser}: {pages} pages compared, "
          f"{differing} differing, {skipped} skipped (no tree / no jusText call), "
          f"{len(BRIDGE_ERRORS)} not bridged (lxml_bridge error), "
          f"{VIA_STATS['calls']} try_justext calls ({VIA_STATS['paragraphs']} paragraphs) inside extract, "
          f"{time.time() - start:.0f}s")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
