"""datatrove 0.10.1's quality filters against trafila's (trafila.fineweb.quality and
trafila.integrations.datatrove_quality), for both engines: hand-written texts that hit every
drop reason, generated texts, real texts from the dev corpora, whole runs (statistics and
exclusion writer), signatures, pickling, and the text utilities with their cache.

Skipped without datatrove and spacy. The compiled engine is skipped when trafila._quality is
not built, except under TRAFILA_REQUIRE_EXTENSIONS=1, where that fails.
"""

from __future__ import annotations

import copy
import inspect
import os
import pickle
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("datatrove")
pytest.importorskip("spacy")

from datatrove.data import Document  # noqa: E402
from datatrove.pipeline import filters as stock_filters  # noqa: E402
from datatrove.pipeline.filters.base_filter import BaseFilter  # noqa: E402
from datatrove.pipeline.filters import gopher_repetition_filter as stock_rep  # noqa: E402
from datatrove.utils import text as stock_text  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from harness.filters import _warm_up, compare_step, step_ok, text_strategy  # noqa: E402
from trafila.fineweb import quality, text  # noqa: E402
from trafila.integrations import datatrove_quality as ours  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
STEP_NAMES = ("GopherRepetitionFilter", "GopherQualityFilter", "C4QualityFilter", "FineWebQualityFilter")
REQUIRE = os.environ.get("TRAFILA_REQUIRE_EXTENSIONS", "").strip() not in ("", "0", "false", "no")


def _engines():
    out = [pytest.param("reference", id="reference")]
    if quality.compiled_module() is None and not REQUIRE:
        out.append(pytest.param("core", id="core", marks=pytest.mark.skip(reason="trafila._quality is not built")))
    else:
        out.append(pytest.param("core", id="core"))
    return out


ENGINES = _engines()


@pytest.fixture(scope="module", autouse=True)
def warm_tokenizers():
    """Every tokenizer past its first IS_ALPHA (see harness.filters._warm_up): the answers then
    do not depend on which side saw such a text first."""
    _warm_up()


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    if request.param == "core" and quality.compiled_module() is None:
        pytest.fail("TRAFILA_REQUIRE_EXTENSIONS=1 but trafila._quality is not built")
    monkeypatch.setenv("TRAFILA_ENGINE", request.param)
    return request.param


# --------------------------------------------------------------------------- comparing one text

#: (label, step class name, constructor arguments)
CONFIGS = [
    ("rep", "GopherRepetitionFilter", {}),
    ("quality", "GopherQualityFilter", {}),
    ("c4-fineweb", "C4QualityFilter", {"filter_no_terminal_punct": False}),
    ("c4", "C4QualityFilter", {}),
    ("fineweb", "FineWebQualityFilter", {}),
]


def outcome(step, doc_text):
    """What one step's filter does to a document: result, the statistics it writes, the text left."""
    step.stats.stats.clear()
    doc = Document(text=doc_text, id="t")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's mean of an empty slice
        try:
            result = step.filter(doc)
        except ZeroDivisionError:
            result = "ZeroDivisionError"
    result = (bool(result[0]), result[1]) if isinstance(result, tuple) else bool(result) if result != "ZeroDivisionError" else result
    return result, {k: (v.total, v.n) for k, v in step.stats.stats.items()}, doc.text


def assert_same(doc_text, configs=CONFIGS):
    for label, name, kwargs in configs:
        a = outcome(getattr(stock_filters, name)(**kwargs), doc_text)
        b = outcome(getattr(ours, name)(**kwargs), doc_text)
        assert a == b, (label, doc_text[:300])


# --------------------------------------------------------------------------- every drop reason

PROSE = ("The river runs through the old city and people walk with their dogs in the morning light. "
         "It is said that the garden was planted by the first family to have lived there. ")
GOOD = """Early in the morning the fishermen pushed their boats into the grey water of the bay.
Gulls followed them out past the harbour wall, calling loudly over the noise of the engines.
By noon the wind had turned, and the first boats were already heading back with their catch.
The market opened at two o'clock, when buyers from three towns crowded around the tables.
Prices were lower than last year because the season had been unusually good for everyone.
Children ran between the stalls while their parents argued about the weight of each crate.
In the evening the square emptied slowly and the lamps came on along the narrow streets.
Nobody expected the storm that arrived later that night, tearing nets from their hooks.
Next morning the whole village gathered at the shore to count what the sea had taken."""
LONG = (PROSE * 6).strip()
LINES = "\n".join(f"Line number {i} says that the town is quiet and warm today." for i in range(12))

HAND = {
    # GopherRepetitionFilter
    "empty": "",
    "dup_para_frac": "Same paragraph here.\n\nSame paragraph here.\n\nSame paragraph here.\n\nOther one.",
    "dup_para_char_frac": "A long repeated paragraph of text is here.\n\nShort.\n\nB.\n\nC.\n\nA long repeated paragraph of text is here.",
    "dup_line_frac": "one\ntwo\none\none\nthree",
    "dup_line_char_frac": "a repeated line that is long enough\nb\nc\nd\ne\nf\ng\na repeated line that is long enough",
    "top_2_gram": "alpha beta alpha beta alpha beta gamma delta epsilon zeta eta theta iota kappa",
    "top_3_gram": " ".join(f"w{i}" for i in range(40)) + " x y z x y z x y z x y z",
    "duplicated_5_n_grams": " ".join(f"u{i}" for i in range(30)) + " a b c d e " + " ".join(f"v{i}" for i in range(30)) + " a b c d e",
    # GopherQualityFilter
    "gopher_short_doc": "Too short a text.",
    "gopher_long_doc": "word " * 100001,
    "gopher_below_avg_threshold": "a b c d e f g h i j " * 10 + "the be",
    "gopher_above_avg_threshold": "extraordinarily incomprehensibilities " * 40 + "the and",
    "gopher_too_many_hashes": LONG + " #" * 40,
    "gopher_too_many_ellipsis": LONG + " ... … " * 12,
    "gopher_too_many_bullets": "\n".join("• " + PROSE for _ in range(10)),
    "gopher_too_many_end_ellipsis": "\n".join(PROSE + "..." for _ in range(4)) + "\n" + PROSE,
    "gopher_below_alpha_threshold": LONG + " 1 2 3 4 5 6 7 8 9 10 " * 10,
    "gopher_enough_stop_words": "Rivers run across cities while people walk dogs in morning light daily " * 6,
    # C4QualityFilter
    "lorem_ipsum": LINES + "\nLorem ipsum dolor sit amet, consectetur.",
    "curly_bracket": LINES + "\nThis line has a { curly bracket.",
    "too_few_sentences": "One line only here.\nAnother line here.",
    "c4_lines": (LINES + "\nEnable JavaScript to see this page.\nRead our privacy policy please now.\nshort\n"
                 "no terminal punctuation here\nending with an ellipsis here...\n" + "x" * 1001 + " long word.\n"
                 "A citation here.[1] And [edit] and [citation needed] done.\nThe end of it [12]."),
    # FineWebQualityFilter
    "line_punct_ratio": "\n".join(f"a line without punctuation number {i} here" for i in range(10)),
    "short_line_ratio": "\n".join(f"Short {i}." for i in range(10)),
    "char_dup_ratio": LINES + "\n" + "Line number 3 says that the town is quiet and warm today.",
    "list_ratio": "\n\n\n".join(f"Supercalifragilisticexpialidocious{i} antidisestablishmentarianism." for i in range(8)),
    "kept": LONG + "\n" + LINES,
    "passes_all": GOOD,
    "passes_all_crlf": GOOD.replace("\n", "\r\n") + "\n\n" + GOOD.replace("the", "a"),
    "crlf": LONG.replace(". ", ".\r\n") + "\u2028" + LINES.replace("\n", "\x85"),
}


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_written(engine, name):
    assert_same(HAND[name])


def test_hand_written_cover_every_reason():
    """The hand-written texts make datatrove's steps give every drop reason (so the tests above
    compare them all)."""
    seen = set()
    for t in HAND.values():
        for _, name, kwargs in CONFIGS:
            result, stats, _ = outcome(getattr(stock_filters, name)(**kwargs), t)
            if isinstance(result, tuple):
                seen.add(result[1])
            seen.update(k for k in stats if k.startswith("line-filter-"))
    wanted = {"empty", "dup_para_frac", "dup_para_char_frac", "dup_line_frac", "dup_line_char_frac", "top_2_gram",
              "top_3_gram", "duplicated_5_n_grams", "gopher_short_doc", "gopher_long_doc",
              "gopher_below_avg_threshold", "gopher_above_avg_threshold", "gopher_too_many_hashes",
              "gopher_too_many_ellipsis", "gopher_too_many_bullets", "gopher_too_many_end_ellipsis",
              "gopher_below_alpha_threshold", "gopher_enough_stop_words", "lorem_ipsum", "curly_bracket",
              "too_few_sentences", "line_punct_ratio", "short_line_ratio", "char_dup_ratio", "list_ratio",
              "line-filter-too_long_word", "line-filter-no_terminal_punc", "line-filter-too_few_words",
              "line-filter-javascript", "line-filter-policy"}
    assert wanted <= seen, sorted(wanted - seen)


@pytest.mark.parametrize("kwargs", [
    {"min_doc_words": None}, {"min_doc_words": 0, "max_symbol_word_ratio": None}, {"stop_words": ["river", "x"]},
    {"max_bullet_lines_ratio": None, "max_ellipsis_lines_ratio": None, "min_stop_words": 5},
])
@pytest.mark.parametrize("doc", ["", "...", "# ## ###", "… …\n...", PROSE, HAND["gopher_too_many_bullets"]])
def test_gopher_quality_parameters(engine, kwargs, doc):
    """Unusual parameters: the empty mean (NaN), a division by zero, other stop words."""
    assert_same(doc, [("q", "GopherQualityFilter", kwargs)])


@pytest.mark.parametrize("kwargs", [
    {"split_paragraph": False}, {"min_num_sentences": -1}, {"min_words_per_line": -1, "max_word_length": -1},
    {"remove_citations": False, "filter_policy": False, "filter_javascript": False, "filter_curly_bracket": False,
     "filter_lorem_ipsum": False},
])
@pytest.mark.parametrize("doc", ["c4_lines", "lorem_ipsum", "curly_bracket", "kept", "crlf"])
def test_c4_parameters(engine, kwargs, doc):
    assert_same(HAND[doc], [("c4", "C4QualityFilter", kwargs)])


@pytest.mark.parametrize("kwargs", [
    {"stop_chars": (".", "!")}, {"stop_chars": ("e.", "?!", "")}, {"stop_chars": ()},
    {"short_line_length": 30.5}, {"line_punct_exclude_zero": True}, {"line_punct_thr": 0.5, "new_line_ratio": 0.01},
])
@pytest.mark.parametrize("doc", ["line_punct_ratio", "short_line_ratio", "list_ratio", "kept", "crlf"])
def test_fineweb_parameters(engine, kwargs, doc):
    assert_same(HAND[doc], [("fw", "FineWebQualityFilter", kwargs)])


@pytest.mark.parametrize("kwargs", [
    {"top_n_grams": ((1, 0.1), (2, 0.05)), "dup_n_grams": ((1, 0.05), (3, 0.01))},
    {"dup_line_frac": None, "dup_para_frac": None, "dup_line_char_frac": None, "dup_para_char_frac": None},
])
@pytest.mark.parametrize("doc", ["top_2_gram", "top_3_gram", "duplicated_5_n_grams", "kept", "dup_line_frac"])
def test_gopher_repetition_parameters(engine, kwargs, doc):
    assert_same(HAND[doc], [("rep", "GopherRepetitionFilter", kwargs)])


# --------------------------------------------------------------------------- generated texts


@settings(max_examples=int(os.environ.get("TRAFILA_FINEWEB_EXAMPLES", "200")), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(doc=text_strategy())
def test_generated(doc):
    for eng in ("reference", "core") if quality.compiled_module() is not None else ("reference",):
        os.environ["TRAFILA_ENGINE"] = eng
        try:
            assert_same(doc)
        finally:
            del os.environ["TRAFILA_ENGINE"]


SMALL_WORDS = st.lists(st.sampled_from(["a", "b", "ab", "ba", "", "c", "aa", "é", "😀", " ", "a b", "b a", "a "]),
                       max_size=40)


@settings(max_examples=300, deadline=None)
@given(words=SMALL_WORDS, n=st.integers(1, 6))
def test_ngram_counts(words, n):
    """The compiled n-gram statistics (hashed word runs) against datatrove's helpers: ties
    (Counter.most_common(1) keeps the first seen), concatenations ("ab"+"a" == "a"+"ba") and words
    holding spaces (["a b", "c"] and ["a", "b c"] join to one n-gram)."""
    grams = stock_rep.get_n_grams(words, n)
    top = stock_rep.find_top_duplicate(grams) if grams else -1
    alldup = stock_rep.find_all_duplicate(words, n)
    assert quality.NGramCounts(words).top(n) == top
    assert quality.NGramCounts(words).all_duplicate(n) == alldup
    assert quality.find_all_duplicate(words, n) == alldup
    assert quality.get_n_grams(words, n) == grams
    if grams:
        assert quality.find_top_duplicate(grams) == top
    assert quality.find_duplicates(grams) == stock_rep.find_duplicates(grams)
    compiled = quality.compiled_module()
    if compiled is not None:
        assert compiled.NGramCounts(words).top(n) == top
        assert compiled.NGramCounts(words).all_duplicate(n) == alldup
        assert compiled.find_duplicates(grams) == stock_rep.find_duplicates(grams)


SEPARATED = st.text(st.sampled_from(list("ab .…-•#\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029\t\u00a0!?")), max_size=60)


@settings(max_examples=400, deadline=None)
@given(doc=SEPARATED, length=st.integers(0, 6))
def test_compiled_loops(doc, length):
    """The compiled line loops against the reference's over every line separator and whitespace."""
    compiled = quality.compiled_module()
    if compiled is None:
        if REQUIRE:
            pytest.fail("TRAFILA_REQUIRE_EXTENSIONS=1 but trafila._quality is not built")
        pytest.skip("trafila._quality is not built")
    assert compiled.repetition_counts(doc) == quality.repetition_counts(doc)
    assert compiled.line_marks(doc) == quality.line_marks(doc)
    for stop in (tuple(text.TERMINAL_PUNCTUATION), (".", "…"), ("a.", "")):
        assert compiled.fineweb_counts(doc, stop, length) == quality.fineweb_counts(doc, stop, length)
    words = doc.split()
    stop_words = {"a", "b."}
    assert compiled.word_counts(words, stop_words) == quality.word_counts(words, stop_words)
    lines = doc.splitlines()
    for args in [(True, True, 3, 1000, True, True, True, True), (False, False, -1, 2, False, False, False, False),
                 (True, False, length, length, True, True, True, True)]:
        assert compiled.c4_lines(lines, *args) == quality.c4_lines(lines, *args)


# --------------------------------------------------------------------------- real texts


def _real_texts(limit_per_bundle=25):
    import trafila
    from harness.corpora import bundle_paths, iter_pages

    out = []
    for path in bundle_paths():
        for page in iter_pages(path):
            if page.index >= limit_per_bundle:
                break
            got = trafila.extract(page.raw, favor_precision=True, include_comments=False, deduplicate=False)
            if got:
                out.append((page.id, got))
    return out


@pytest.fixture(scope="module")
def real_texts():
    texts = _real_texts()
    assert texts
    return texts


def test_real_texts(engine, real_texts):
    for _, doc in real_texts:
        assert_same(doc)


@pytest.mark.parametrize("step", ["gopher-repetition", "gopher-quality", "c4", "fineweb"])
def test_run_statistics_and_exclusions(engine, real_texts, tmp_path, step):
    """datatrove's run(): every statistic of every document, the step's statistics, the forwarded
    texts and the exclusion writer's files, byte for byte."""
    docs = real_texts + [(f"g{i}", t) for i, t in enumerate(HAND.values())]
    r = compare_step(step, docs, tmp_path)
    assert step_ok(r), r
    assert r["dropped"] and r["dropped"] < r["documents"]


def test_pipeline_executor(real_texts, tmp_path):
    """The four steps in a LocalPipelineExecutor, as datatrove's FineWeb example chains them:
    same documents out, same statistics (timings aside)."""
    import json

    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.writers import JsonlWriter

    def run(module, name):
        docs = [Document(text=t, id=i) for i, t in real_texts + sorted(HAND.items())]
        pipeline = [docs, module.GopherRepetitionFilter(), module.GopherQualityFilter(),
                    module.C4QualityFilter(filter_no_terminal_punct=False), module.FineWebQualityFilter(),
                    JsonlWriter(str(tmp_path / name / "out"), compression=None)]
        LocalPipelineExecutor(pipeline, tasks=1, logging_dir=str(tmp_path / name / "logs")).run()
        stats = json.loads((tmp_path / name / "logs" / "stats.json").read_text())
        for s in stats:
            s.pop("time_stats", None)
        return "".join(p.read_text() for p in sorted((tmp_path / name / "out").glob("*"))), stats

    stock_out, stock_stats = run(stock_filters, "stock")
    our_out, our_stats = run(ours, "trafila")
    assert stock_out == our_out
    assert stock_stats == our_stats
    assert stock_out.count("\n") > 0


# --------------------------------------------------------------------------- the steps themselves


@pytest.mark.parametrize("name", STEP_NAMES)
def test_signatures_names_types(name):
    a, b = getattr(stock_filters, name), getattr(ours, name)
    assert inspect.signature(a.__init__) == inspect.signature(b.__init__)
    assert (a.name, a.type) == (b.name, b.type)
    assert issubclass(b, BaseFilter)
    sa, sb = a(), b()
    attrs_a = {k: v for k, v in vars(sa).items() if k not in ("stats", "stop_chars")}
    attrs_b = {k: v for k, v in vars(sb).items() if k not in ("stats", "stop_chars")}
    assert attrs_a == attrs_b
    if name == "FineWebQualityFilter":
        assert set(sa.stop_chars) == set(sb.stop_chars)


@pytest.mark.parametrize("name", STEP_NAMES)
@pytest.mark.parametrize("dumper", ["pickle", "dill", "cloudpickle"])
def test_pickling(name, dumper):
    module = pytest.importorskip(dumper) if dumper != "pickle" else pickle
    step = getattr(ours, name)(language="eng")
    again = module.loads(module.dumps(step))
    assert type(again) is type(step)
    assert outcome(again, HAND["kept"]) == outcome(copy.deepcopy(step), HAND["kept"])


# --------------------------------------------------------------------------- text utilities


def test_tables():
    assert text.PUNCTUATION == stock_text.PUNCTUATION
    assert text.TERMINAL_PUNCTUATION == stock_text.TERMINAL_PUNCTUATION
    assert text.PUNCTUATION_SET == stock_text.PUNCTUATION_SET
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_datatrove_text_tables.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("doc", [HAND["kept"], HAND["crlf"], "", "  \n\n a\n\n\nb  \n", "One. Two! Three?\nFour"])
def test_split_functions(doc):
    for fn in ("split_into_words", "split_into_sentences", "split_into_paragraphs"):
        assert getattr(text, fn)(doc) == getattr(stock_text, fn)(doc), fn
    assert text.split_into_parts(doc) == stock_text.split_into_parts(doc)


def test_cache_and_stock_tokenizer(monkeypatch):
    """lru_cache(5) keyed by (text, mode, language): a text's words are made once while it stays
    among the last five; another language runs datatrove's tokenizer, counted."""
    from trafila.fineweb import tokenizer

    calls = Counter()
    tok = tokenizer.english_tokenizer()
    real = tok.word_tokenize

    def counted(t):
        calls[t] += 1
        return real(t)

    monkeypatch.setattr(tok, "word_tokenize", counted)
    text.split_into_parts.cache_clear()
    assert text.split_into_parts.cache_info().maxsize == 5
    docs = [f"Text number {i}." for i in range(7)]
    for d in docs[:5]:
        text.split_into_words(d)
    text.split_into_words(docs[0])
    assert calls[docs[0]] == 1
    text.split_into_words(docs[5])
    text.split_into_words(docs[6])  # evicts docs[1] (docs[0] was used again)
    text.split_into_words(docs[1])
    assert calls[docs[1]] == 2 and calls[docs[0]] == 1
    before = text.STOCK_TOKENIZER_CALLS
    assert text.split_into_words("Le chat est là.", "fra") == stock_text.split_into_words("Le chat est là.", "fra")
    assert text.STOCK_TOKENIZER_CALLS == before + 1
