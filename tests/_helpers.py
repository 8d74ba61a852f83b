"""Helpers several test modules share (the fixtures stay in conftest.py).

The corpus and generated-document modules also run as scripts; they put the
checkout on ``sys.path`` themselves before importing this module.
"""

from __future__ import annotations

import argparse
import random
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

import pytest

from harness.corpora import corpora_path

#: trafilatura's ``utils.HTML_PARSER`` options (lxml.html.HTMLParser)
TRAFILATURA_PARSER_OPTIONS = dict(
    collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True, remove_pis=True
)


def trafilatura_html_parser() -> Any:
    """An lxml.html.HTMLParser with trafilatura's options."""
    from lxml import html

    return html.HTMLParser(**TRAFILATURA_PARSER_OPTIONS)


def delete_element(el: Any, keep_tail: bool = True) -> None:
    """trafilatura 2.3.1's ``xml.delete_element``, written against the element API
    (runs on lxml and trafila.dom elements alike)."""
    parent = el.getparent()
    if parent is None:
        return
    if keep_tail and el.tail:
        previous = el.getprevious()
        if previous is None:
            parent.text = (parent.text or "") + el.tail
        else:
            previous.tail = (previous.tail or "") + el.tail
    parent.remove(el)


def dumped(el: Any) -> Any:
    """A structural dump for comparing two trees: ``[tag, sorted attributes, text, [(child's dump,
    child's tail), ...]]``, built without recursion (deep trees)."""
    def head(e: Any) -> list:
        return [e.tag, sorted(e.attrib.items()), e.text, []]
    top = head(el)
    stack = [(el, top)]
    while stack:
        e, out = stack.pop()
        for child in e[:]:
            d = head(child)
            out[3].append((d, child.tail))
            stack.append((child, d))
    return top


def element_iterator(el: Any, how: str, tags: Sequence[str]) -> Iterator[Any]:
    """One of the element iterators by name: ``children`` (iter(el)),
    ``reversed``, or the method ``how`` with the tag filter."""
    if how == "children":
        return iter(el)
    if how == "reversed":
        return reversed(el)
    return getattr(el, how)(*tags)


def mutate_while_iterating(it: Iterator[Any], action: str, target: Any, model: Any,
                           on_new: Optional[Callable[[Any], None]] = None, limit: int = 60) -> List[Any]:
    """Apply ``action`` to each element ``it`` yields (at most ``limit`` + 2):
    what was visited, and the class name of each exception raised on the way.
    ``model`` gives ``strip_tags``, ``strip_elements`` and ``Element`` (lxml.etree
    or an engine's dom); ``on_new`` sees each element ``append_new`` makes."""
    seen: List[Any] = []
    for count, e in enumerate(it):
        seen.append(e)
        if count > limit:
            break
        try:
            if action == "delete":
                delete_element(e)
            elif action == "drop_tree":
                if e.getparent() is not None:
                    e.drop_tree()
            elif action == "rename":
                e.tag = "b" if e.tag != "b" else "p"
            elif action == "move":
                target.append(e)
            elif action == "strip":
                model.strip_tags(e, "a", "b")
            elif action == "strip_elements":
                model.strip_elements(e, "a", with_tail=False)
            elif action == "remove_next":
                nx = e.getnext()
                if nx is not None:
                    e.getparent().remove(nx)
            elif action == "drop_tag":
                if e.getparent() is not None:
                    e.drop_tag()
            elif action == "delete_parent":
                if e.getparent() is not None:
                    delete_element(e.getparent(), keep_tail=False)
            elif action == "append_new":
                new = model.Element("a")
                new.tail = "n"
                e.append(new)
                if on_new is not None:
                    on_new(new)
        except Exception as err:  # noqa: BLE001 - the exception class is part of what is compared
            seen.append(type(err).__name__)
    return seen


@contextmanager
def bridged_v1_11_0_parser() -> Iterator[None]:
    """trafila.v1_11_0 parsing with lxml (trafilatura's parser options) and the
    bridge, so only the extraction logic is compared; the module dedup cache is
    cleared before and after."""
    lxml_html = pytest.importorskip("lxml.html")
    from harness.lxml_bridge import from_lxml
    from trafila.v1_11_0 import deduplication, utils

    parser = trafilatura_html_parser()
    utils.set_parser(lambda s: from_lxml(lxml_html.fromstring(s, parser=parser)))
    deduplication.LRU_TEST.clear()
    try:
        yield
    finally:
        utils.set_parser(None)
        deduplication.LRU_TEST.clear()


# -- the corpus comparisons (test_justext_corpus, test_readability_corpus) -----

# -- why a test is skipped: one wording, each saying how to run it ---------------------

NO_CORPORA = "needs the shared corpora: put them at ../shared/corpora or set TRAFILA_CORPORA"
NO_VECTORS = "needs the shared parser vectors: ../shared/vectors (beside the corpora) or TRAFILA_VECTORS"
NO_CORE = ("needs the compiled core: pip install . with a C compiler and Cython "
           "(TRAFILA_REQUIRE_EXTENSIONS=1 turns its absence into a failure)")
NEEDS_231 = "needs trafilatura 2.3.1 installed: run it in tox -e tests"
NEEDS_111 = "needs trafilatura 1.11.0 installed: run it in tox -e parity-quick-1.11"


def vector_params(vectors: list) -> list:
    """``vectors`` for parametrize, or one skipped placeholder saying how to get them
    (pytest's own "got empty parameter set" says nothing useful)."""
    return vectors or [pytest.param(None, marks=pytest.mark.skip(reason=NO_VECTORS))]


needs_corpora = pytest.mark.skipif(not corpora_path().is_dir(), reason=NO_CORPORA)


def sample_pages(bundles: Sequence[str], step: int) -> Iterator[Tuple[str, Any]]:
    """(bundle name, page) for every ``step``-th page of the bundles that exist."""
    from harness.corpora import bundle_name, bundle_paths, iter_pages

    for path in bundle_paths(list(bundles)):
        if not path.exists():
            continue
        for page in iter_pages(path):
            if page.index % step == 0:
                yield bundle_name(path), page


def with_failing_allocations(after: int, run: Callable[[], Any]) -> Tuple[bool, Any]:
    """``run()`` with the core's allocations failing from the ``after``-th on (working again
    afterwards): (True, None) when it raised MemoryError, else (False, what it returned)."""
    import trafila._core as core

    core._fail_allocations_after(after)
    try:
        return False, run()
    except MemoryError:
        return True, None
    finally:
        core._fail_allocations_after(-1)


def need_cause(why: List[str]) -> str:
    """The cause a nogil test wrapper appended last to ``why`` with its NEED_PYTHON answer
    ("?" when it named none)."""
    return why[-1] if why else "?"


def sampled_html_pages(bundles: Sequence[str], step: int) -> Iterator[Tuple[int, Any]]:
    """(k, page) for the pages of sample_pages(bundles, step) that have HTML; k counts every
    sampled page, those without HTML too (tests choose a variant by it)."""
    for k, (_name, page) in enumerate(sample_pages(bundles, step)):
        if page.html is not None:
            yield k, page


@contextmanager
def core_switched_off(modules: Sequence[Any]) -> Iterator[None]:
    """The modules' stages see no core (``core_of`` answers None): the reference code runs
    over the core's elements, for a C path to be compared with on the same tree."""
    saved = [(m, m.core_of) for m in modules if hasattr(m, "core_of")]
    for m, _ in saved:
        m.core_of = lambda el: None
    try:
        yield
    finally:
        for m, fn in saved:
            m.core_of = fn


def trafila_tree(page: Any, form: str) -> Any:
    """The page parsed by trafila itself (trafila.v2_3_1.utils.load_html on trafila.html)."""
    from trafila.v2_3_1.utils import load_html

    return load_html(page.input(form))


def run_corpus(bundles: Sequence[str], step: int, compare: Callable[[Any], Optional[str]],
               bridge_errors: List[str], verbose: bool = False) -> Tuple[int, int, int, List[str]]:
    """``compare`` on the sampled pages: (pages compared, skipped, raised on both
    sides, failures). ``compare`` returns None (equal), "skip"/"no-call", a
    "bridge-error ..." (the page is listed in ``bridge_errors``), "both-raised",
    or the difference."""
    pages = skipped = both_raised = 0
    failures: List[str] = []
    for _name, page in sample_pages(bundles, step):
        try:
            outcome = compare(page)
        except Exception as err:  # a crash is a difference too
            outcome = f"error {type(err).__name__}: {err}"
        if outcome in ("skip", "no-call"):
            skipped += 1
            continue
        if outcome is not None and outcome.startswith("bridge-error"):
            bridge_errors.append(page.id)
            continue
        pages += 1
        if outcome == "both-raised":
            both_raised += 1
            continue
        if outcome is not None:
            failures.append(f"{page.id}: {outcome}"[:3000])
            if verbose:
                print(failures[-1], flush=True)
    return pages, skipped, both_raised, failures


def corpus_arguments(description: str, fallback: str, default_bundles: Sequence[str]) -> argparse.ArgumentParser:
    """The command line of a corpus comparison run as a script."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--bundles", default=",".join(default_bundles))
    parser.add_argument("--step", type=int, default=5, help="every STEP-th page of each bundle")
    parser.add_argument("--parser", choices=("lxml", "trafila"), default="lxml",
                        help="the port's tree: lxml's bridged (default) or trafila's own parse (and basic_cleaning)")
    parser.add_argument("--via-extract", action="store_true",
                        help=f"capture {fallback}'s input inside trafilatura.extract instead of the tree "
                             "load_html gives")
    return parser


def paragraph_record(p: Any) -> tuple:
    """Every field of a jusText paragraph (jusText's or the port's) the port must reproduce."""
    return (
        p.dom_path, p.xpath, tuple(p.text_nodes), p.chars_count_in_links, p.tags_count,
        p.text, len(p), p.words_count, p.links_density(), p.cf_class, p.class_type, p.heading,
    )


def real_summary(lxml_tree: Any, min_text_length: int = 25) -> Tuple[Any, str]:
    """trafilatura's readability fork on an lxml tree: (dump of the element
    ``summary()`` serialises, the string it returns); raises what the fork raises."""
    from lxml.etree import tostring as lxml_tostring
    from trafilatura import readability_lxml

    from harness.treedump import dump_element

    captured = []

    def capturing_tostring(node, *args, **kwargs):
        captured.append(dump_element(node, with_tail=True))
        return lxml_tostring(node, *args, **kwargs)

    saved = readability_lxml.tostring
    readability_lxml.tostring = capturing_tostring
    try:
        markup = readability_lxml.Document(lxml_tree, min_text_length=min_text_length).summary()
    finally:
        readability_lxml.tostring = saved
    return captured[0], markup


# -- generated documents (test_justext_generated, test_readability_generated) --

def generated_documents(seed: int, count: int) -> Iterator[str]:
    """The harness grammar's documents: article-like pages and parser-stress soups in turn."""
    from harness.strategies import random_article, random_html

    rng = random.Random(seed)
    for i in range(count):
        yield (random_article if i % 2 == 0 else random_html)(rng)


def with_characters_spliced(html: str, rng: random.Random, chars: Sequence[str], times: int) -> str:
    """``html`` with ``times`` characters drawn from ``chars`` put right after a ``>`` (at the
    start of some text or tail), the place drawn anew each time."""
    pieces = html.split(">")
    for _ in range(times):
        j = rng.randrange(1, len(pieces)) if len(pieces) > 1 else 0
        pieces[j] = rng.choice(chars) + pieces[j]
    return ">".join(pieces)


def generated_main(run: Callable[[int, int], List[str]], what: str, argv: Optional[List[str]] = None) -> int:
    """``script.py [COUNT [SEED]]``: run, print the first differences and a summary line."""
    args = argv if argv is not None else sys.argv[1:]
    count = int(args[0]) if args else 1000
    seed = int(args[1]) if len(args) > 1 else 7
    failures = run(seed, count)
    for line in failures[:20]:
        print(line)
    print(f"seed {seed}: {count} documents x {what}, {len(failures)} differing")
    return 1 if failures else 0


#: a paragraph text over MIN_DUPLCHECK_SIZE (100) characters, for the dedup handler tests
DEDUP_TEXT = "some text long enough to be counted as a duplicate " * 3


def dedup_handler_runs(monkeypatch: Any, core: Any, core_name: str, handler: Callable[..., Any],
                       core_tree: Callable[[str], Any], options: Any) -> List[Any]:
    """``handler`` (a release's handle_textnode or process_node) on four fresh paragraphs of
    DEDUP_TEXT with ``options``, the core's C version ``core_name`` spied: it must run every time."""
    calls: List[Any] = []
    real = getattr(core, core_name)
    monkeypatch.setattr(core, core_name, lambda el, *args: calls.append(el) or real(el, *args))
    results = [handler(core_tree(f"<p> {DEDUP_TEXT} </p>"), options) for _ in range(4)]
    assert len(calls) == 4
    return results


def extract_on_threads(pages: Sequence[Any], extract: Callable[[Any], Any], threads: int = 4) -> List[Any]:
    """``extract(page)`` for every page, ``threads`` threads at once (thread k takes the pages k,
    k + threads, …), in page order: a test compares it with one thread's list."""
    import threading

    got: dict = {}

    def work(offset: int) -> None:
        for k in range(offset, len(pages), threads):
            got[k] = extract(pages[k])

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return [got.get(k, "<not run>") for k in range(len(pages))]
