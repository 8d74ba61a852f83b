"""trafila.readability_2_3_1 against trafilatura 2.3.1's readability fork on real pages.

Each sampled page is parsed with trafilatura's ``load_html`` (lxml) and bridged
into trafila (``harness.lxml_bridge.from_lxml``) before either side mutates it.
The real ``Document(tree, min_text_length=25).summary()`` runs with its module's
``tostring`` wrapped so that the element it serialises is captured; the port's
``Document(...).summary_tree()`` must give the same tree (canonical dump: tag,
attributes in order, text, tail, children -- the root's tail included, since
``tostring`` writes it).  An exception must happen on both sides or neither.
The serialised string (``trafila.html.serialize.tostring``) and the re-parsed
tree (``fromstring_bytes``) are compared too.

pytest runs a small sample (``TRAFILA_RD_BUNDLES``, ``TRAFILA_RD_STEP``); the full
measurement is a command:

    PYTHONPATH=reference:. python tests/test_readability_corpus.py \\
        --bundles trafilatura,cleaneval,dragnet,warc-misc --step 5
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "reference"):  # also run as a script
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from tests._helpers import corpus_arguments, needs_corpora, real_summary, run_corpus, trafila_tree  # noqa: E402

DEFAULT_BUNDLES = os.environ.get("TRAFILA_RD_BUNDLES", "trafilatura,cleaneval").split(",")
DEFAULT_STEP = int(os.environ.get("TRAFILA_RD_STEP", "40"))


def compare_page(page, parser: str = "lxml") -> Optional[str]:
    """None when the port agrees with the fork on this page, else the difference."""
    from trafilatura.utils import fromstring_bytes, load_html

    from harness.lxml_bridge import from_lxml
    from harness.treedump import dump_element, first_difference
    from trafila import readability_2_3_1 as rd
    from trafila.html.serialize import tostring

    if parser == "trafila" and page.html is None:
        return "skip"  # trafila's load_html delegates charset detection for non-UTF-8 bytes
    form = "str" if page.html is not None else "bytes"
    lxml_tree = load_html(page.input(form))
    if lxml_tree is None:
        return "skip"
    try:
        tree = from_lxml(lxml_tree) if parser == "lxml" else trafila_tree(page, form)
    except ValueError as err:
        if parser == "lxml":
            return f"bridge-error {err}"  # harness.lxml_bridge could not copy the tree
        raise
    if tree is None:
        return "trafila's load_html gave None, lxml's a tree"

    try:
        real_dump, real_markup = real_summary(lxml_tree)
        real_error = None
    except Exception as err:
        real_error = err
    try:
        port_node = rd.Document(tree, min_text_length=25).summary_tree()
        port_error = None
    except Exception as err:
        port_error = err
    if real_error is not None or port_error is not None:
        if (real_error is None) != (port_error is None):
            return f"exception: port {port_error!r}, fork {real_error!r}"
        return "both-raised"

    port_dump = dump_element(port_node, with_tail=True)
    if port_dump != real_dump:
        return f"summary tree: {first_difference(port_dump, real_dump)}"

    port_markup = tostring(port_node, encoding=str, method="xml")
    if port_markup != real_markup:
        at = next((i for i, (x, y) in enumerate(zip(port_markup, real_markup)) if x != y),
                  min(len(port_markup), len(real_markup)))
        return f"serialised summary differs at {at}: {port_markup[at-40:at+40]!r} != {real_markup[at-40:at+40]!r}"
    real_back = fromstring_bytes(real_markup)
    port_back = rd.reparse_summary(port_markup)
    if (real_back is None) != (port_back is None):
        return f"re-parse: port {port_back!r}, fork {real_back!r}"
    if real_back is not None:
        a, b = dump_element(port_back), dump_element(real_back)
        if a != b:
            return f"re-parsed summary: {first_difference(a, b)}"
    return None


VIA_STATS = {"calls": 0, "raised": 0, "try_compared": 0}
BRIDGE_ERRORS: List[str] = []


def compare_via_extract(page) -> Optional[str]:
    """Run ``trafilatura.extract`` (2.3.1 defaults, fallbacks on) with its
    ``try_readability`` wrapped: every tree it hands to readability is bridged
    into trafila first, and the port's summary tree must equal the fork's."""
    from trafilatura import external, extract

    from harness.lxml_bridge import from_lxml
    from harness.treedump import dump_element, first_difference
    from trafila import readability_2_3_1 as rd

    differences: List[str] = []
    calls = [0]
    original = external.try_readability

    def wrapped(htmlinput):
        from lxml.etree import tostring as lxml_tostring
        from trafilatura import readability_lxml

        calls[0] += 1
        try:
            tree = from_lxml(htmlinput)  # before the fork mutates it
            tree_for_try = from_lxml(htmlinput)
        except Exception as err:  # trafilatura would mask it: record it
            differences.append(f"call {calls[0]}: bridge raised {err!r}")
            return original(htmlinput)
        captured = []

        def capturing_tostring(node, *args, **kwargs):
            captured.append(dump_element(node, with_tail=True))
            return lxml_tostring(node, *args, **kwargs)

        readability_lxml.tostring = capturing_tostring
        try:
            result = original(htmlinput)  # catches the fork's exceptions itself
        finally:
            readability_lxml.tostring = lxml_tostring
        real_dump = captured[0] if captured else "raised"
        VIA_STATS["calls"] += 1
        VIA_STATS["raised"] += real_dump == "raised"
        try:
            port_dump = dump_element(rd.Document(tree, min_text_length=25).summary_tree())
        except Exception:
            port_dump = "raised"
        if port_dump != real_dump:
            if isinstance(port_dump, str) or isinstance(real_dump, str):
                differences.append(f"call {calls[0]}: port {str(port_dump)[:80]}, fork {str(real_dump)[:80]}")
            else:
                differences.append(f"call {calls[0]}: {first_difference(port_dump, real_dump)}")
        if tree_for_try is not None:
            # the whole try_readability: serialise, re-parse (or the HtmlElement fallback)
            VIA_STATS["try_compared"] += 1
            try:
                port_result = dump_element(rd.try_readability(tree_for_try))
            except Exception as err:
                port_result = f"raised {err!r}"
            if port_result != dump_element(result):
                differences.append(f"call {calls[0]}: try_readability result differs "
                                   f"{first_difference(port_result, dump_element(result)) if not isinstance(port_result, str) else port_result}")
        return result

    external.try_readability = wrapped
    try:
        form = "str" if page.html is not None else "bytes"
        extract(page.input(form), url=page.url)
    finally:
        external.try_readability = original
    if differences:
        return "; ".join(differences)
    return "no-call" if calls[0] == 0 else None


def run(bundles: List[str], step: int, verbose: bool = False, via_extract: bool = False, parser: str = "lxml"):
    """(pages compared, skipped, raised on both sides, failures)."""
    compare = compare_via_extract if via_extract else (lambda page: compare_page(page, parser=parser))
    return run_corpus(bundles, step, compare, BRIDGE_ERRORS, verbose)


@needs_corpora
def test_readability_port_equals_fork_on_corpus_sample():
    pytest.importorskip("trafilatura")
    pages, skipped, both_raised, failures = run(DEFAULT_BUNDLES, DEFAULT_STEP)
    assert pages > 0
    assert failures == []


def main(argv=None) -> int:
    import time

    args = corpus_arguments("compare trafila's readability port with trafilatura's fork", "readability",
                            DEFAULT_BUNDLES).parse_args(argv)
    start = time.time()
    pages, skipped, both_raised, failures = run(args.bundles.split(","), args.step, verbose=True,
                                                via_extract=args.via_extract, parser=args.parser)
    print(f"bundles={args.bundles} step={args.step} via_extract={args.via_extract} parser={args.parser}: {pages} pages compared, {len(failures)} differing, "
          f"{both_raised} raised on both sides, {skipped} skipped (no tree / no readability call), "
          f"{len(BRIDGE_ERRORS)} not bridged (lxml_bridge error), "
          f"{VIA_STATS['calls']} readability calls ({VIA_STATS['raised']} raised, "
          f"{VIA_STATS['try_compared']} whole try_readability compared) inside extract, "
          f"{time.time() - start:.0f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
