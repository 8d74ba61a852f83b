"""The core's XML serialiser (``_core.tostring_xml``) against the reference's
``trafila.html.serialize.tostring(el, encoding="unicode")`` on the same trees:
parsed pages, the shared vectors, generated documents, and trees changed by the
element operations."""

from __future__ import annotations

import random

import pytest
from tests._helpers import NO_CORPORA
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.corpora import bundle_paths, iter_pages
from harness.strategies import random_html
from tests.conftest import _built_engine
from trafila.html.serialize import tostring


@pytest.fixture(scope="module")
def models():
    return _built_engine("reference").dom, _built_engine("core").dom


def _core():
    from trafila import _engine

    return _engine.core_module()


def _pairs(ref_root, core_root, rng, extra=12):
    """(reference element, core element) pairs: the root, every element down to
    depth 3 and ``extra`` random others (the two trees walk in the same order)."""
    refs, cores = list(ref_root.iter()), list(core_root.iter())
    assert len(refs) == len(cores)
    picked = [i for i, e in enumerate(refs) if _depth(e, ref_root) <= 3]
    picked += rng.sample(range(len(refs)), min(extra, len(refs)))
    return [(refs[i], cores[i]) for i in sorted(set(picked))]


def _depth(el, root):
    d = 0
    while el is not root:
        el = el.getparent()
        d += 1
    return d


def _same_serialisations(models, src, rng):
    ref_model, core_model = models
    try:
        ref_root = ref_model.fromstring(src)
    except Exception as err:  # the parse raises alike (the tree tests check it): nothing to serialise
        with pytest.raises(type(err)):
            core_model.fromstring(src)
        return 0
    core_root = core_model.fromstring(src)
    n = 0
    for ref_el, core_el in _pairs(ref_root, core_root, rng):
        for with_tail in (True, False):
            assert _core().tostring_xml(core_el, with_tail) == tostring(ref_el, encoding="unicode", with_tail=with_tail)
            n += 1
    return n


def test_embedded_corpus(models):
    rng = random.Random(7)
    n = 0
    for path in bundle_paths(embedded=True):
        for page in iter_pages(path):
            for form in page.forms():
                n += _same_serialisations(models, page.input(form), rng)
    assert n > 1000


def test_dev_bundles_sample(models):
    """Every 25th page of each dev bundle, both forms (skipped without the corpora)."""
    from harness.corpora import corpora_path

    if not corpora_path().is_dir():
        pytest.skip(NO_CORPORA)
    rng = random.Random(11)
    n = 0
    for path in bundle_paths():
        if not path.exists():
            continue
        for page in iter_pages(path):
            if page.index % 25 == 0:
                for form in page.forms():
                    n += _same_serialisations(models, page.input(form), rng)
    assert n > 1000


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_generated_documents(models, seed):
    rng = random.Random(seed)
    _same_serialisations(models, random_html(rng), rng)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_after_element_operations(models, seed):
    """strip_tags, text/tail and attribute edits, moves: the core serialises the changed tree as the reference does."""
    rng = random.Random(seed)
    src = random_html(rng)
    trees = []
    for model in models:
        try:
            trees.append((model, model.fromstring(src)))
        except Exception:
            return
    ops_rng = [random.Random(seed ^ 0x5F), random.Random(seed ^ 0x5F)]
    for (model, root), r in zip(trees, ops_rng):
        els = list(root.iter())
        for _ in range(6):
            el = els[r.randrange(len(els))]
            op = r.randrange(5)
            if op == 0:
                model.strip_tags(el, "b", "i", "p")
            elif op == 1:
                el.text = r.choice([None, "", "a & b <c>\r\x02", "x"])
            elif op == 2:
                el.tail = r.choice([None, "t\"ail\n", "\t"])
            elif op == 3:
                el.set(r.choice(["class", "data-x"]), r.choice(["", "q\"'<&>\t\n"]))
            elif op == 4 and el is not root and el.getparent() is not None:
                root.append(el)
            els = list(root.iter())
    (_, ref_root), (_, core_root) = trees
    assert _core().tostring_xml(core_root) == tostring(ref_root, encoding="unicode")
