"""harness.strategies, harness.mutate and harness.fuzz: coverage, determinism, and that the fuzzer finds differences."""

from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from harness import fuzz, mutate, strategies
from harness.strategies import (ARTICLE_FEATURES, CONTENT_CLASSES, STRESS_FEATURES, HypothesisChooser, StressGrammar,
                                article_classes, features_of)

# No shrink phase: documents are made of hundreds of draws and shrinking them can
# take minutes; a failing document is printed as found (harness.minimise shrinks
# markup far better than Hypothesis can).
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
FAST = settings(max_examples=40, deadline=None, derandomize=True, phases=NO_SHRINK,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_bulk_stress_documents_hit_every_grammar_feature():
    rng = random.Random(2024)
    seen = set()
    for _ in range(600):
        seen |= features_of(strategies.random_html(rng))
    assert set(STRESS_FEATURES) - seen == set()


def test_bulk_generation_is_deterministic_by_seed():
    a = list(strategies.generate("html", 7, 20))
    b = list(strategies.generate("html", 7, 20))
    c = list(strategies.generate("html", 8, 20))
    assert a == b
    assert a != c


def test_feature_detectors_are_not_vacuous():
    assert features_of("<p>plain</p>") <= {"implied_html"}
    assert "entity_legacy_nosemi" in features_of("a &copy2024 b")
    assert "entity_legacy_nosemi" not in features_of("a &copy; b")
    assert "comment_bang" in features_of("<!-- x --!>")
    assert "misnest_div_td" in features_of("<td>a</div>")
    assert "deep_nesting" in features_of("<div>" * 250)


@st.composite
def _stress_with_features(draw):
    g = StressGrammar(HypothesisChooser(draw))
    return g.document(), g.features


#: features whose emission always leaves this mark in the text
_CERTAIN = {"script": "<script", "nul": "\x00", "crlf": "\r\n", "comment_bang": "--!>", "doctype": None,
            "deep_nesting": "<div>", "autoclose_li": "<li>", "misnest_b_div": "<b>", "plaintext": "<plaintext>"}


@FAST
@given(_stress_with_features())
def test_hypothesis_stress_documents_carry_the_features_they_claim(pair):
    doc, feats = pair
    assert isinstance(doc, str)
    for feat in feats & set(_CERTAIN):
        mark = _CERTAIN[feat]
        if mark is None:
            assert re.search(r"<!doctype", doc, re.I)
        elif feat == "deep_nesting":
            assert features_of(doc) >= {"deep_nesting"}
        else:
            assert mark in doc, feat


@FAST
@given(strategies.html_documents())
def test_lxml_parses_every_stress_document(doc):
    import lxml.html

    parser = fuzz.lxml_parser()
    try:
        lxml.html.fromstring(doc, parser=parser)
    except (ValueError, lxml.etree.ParserError):
        # <?xml encoding?> str input and empty documents: what trafilatura also meets
        pass


@settings(max_examples=15, deadline=None, derandomize=True, phases=NO_SHRINK,
          suppress_health_check=[HealthCheck.too_slow])
@given(strategies.article_documents())
def test_article_documents_have_text_and_xpath_vocabulary(doc):
    text = re.sub(r"<[^>]*>", "", doc)
    assert len(text) > 250
    # trafilatura's expressions test contains(@class/@id, 'word'): a substring is enough
    values = article_classes(doc)
    assert any(word in value for value in values for word in CONTENT_CLASSES)
    assert features_of(doc) >= {"doctype"} or not doc.startswith("<!DOCTYPE")


def test_articles_are_extracted_by_trafilatura():
    import trafilatura

    rng = random.Random(11)
    docs = [strategies.random_article(rng) for _ in range(30)]
    long_enough = sum(1 for d in docs if len(trafilatura.extract(d, fast=True) or "") > 250)
    assert long_enough >= 27
    seen = set()
    for d in docs:
        seen |= features_of(d)
    assert seen >= set(ARTICLE_FEATURES)


@settings(max_examples=20, deadline=None, derandomize=True, phases=NO_SHRINK,
          suppress_health_check=[HealthCheck.too_slow])
@given(strategies.html_bytes())
def test_bytes_strategy_gives_bytes(data):
    assert isinstance(data, bytes)


def test_bytes_variant_covers_encodings():
    rng = random.Random(3)
    feats: set = set()
    for _ in range(300):
        assert isinstance(strategies.random_bytes(rng, feats), bytes)
    assert {"bytes_cp1252", "bytes_bom", "bytes_invalid_utf8", "bytes_utf16"} <= feats


# --------------------------------------------------------------------------- mutate

PAGES = ["<html><body><p>" + "abc " * 50 + "</p></body></html>", "<div class=content><p>one</p><p>two</p></div>" * 5,
         b"<p>caf\xc3\xa9</p>" * 10]


def test_mutations_are_deterministic_by_seed():
    a = list(mutate.mutations(PAGES, 5, 50))
    assert a == list(mutate.mutations(PAGES, 5, 50))
    assert a != list(mutate.mutations(PAGES, 6, 50))
    assert len(a) == 50


def test_mutations_keep_the_input_form_and_use_every_mutator():
    kinds = set()
    for label, html in mutate.mutations(PAGES, 1, 300):
        kinds.add(label.split("@")[0].split(":")[0])
        assert isinstance(html, (str, bytes))
        if label.endswith(":2") and not label.startswith("splice"):
            assert isinstance(html, bytes)
    assert kinds == {"cut", "splice", "junk"}


def test_junk_puts_lone_surrogates_only_in_str_form():
    rng = random.Random(0)
    strs = [mutate.insert_junk(rng, "<p>x</p>" * 20, 20)[1] for _ in range(30)]
    assert any(re.search("[\ud800-\udfff]", s) for s in strs)
    data = [mutate.insert_junk(rng, b"<p>x</p>" * 20, 20)[1] for _ in range(30)]
    assert all(isinstance(d, bytes) for d in data)
    assert any(b"\xff" in d or b"\xed\xa0\x80" in d or b"\x80" in d or b"\xc3" in d for d in data)


def test_cut_and_splice():
    rng = random.Random(1)
    label, out = mutate.cut(rng, "abcdef")
    assert "abcdef".startswith(out) and label == f"cut@{len(out)}"
    label, out = mutate.splice(rng, "AAAA", b"BBBB")
    assert isinstance(out, str) and set(out) <= {"A", "B"}


# --------------------------------------------------------------------------- fuzz


def test_text_fuzz_trafilatura_against_itself_is_all_equal(tmp_path):
    s = fuzz.run_text("trafilatura", "2.3.1", "fast", 30, 1, tmp_path, source="both", every=40, log=lambda m: None)
    assert s["counts"]["compared"] == 30
    assert s["counts"]["equal"] == 30
    assert s["written"] == []


def test_text_fuzz_finds_a_mutant_and_writes_inputs(tmp_path):
    s = fuzz.run_text("mutant:drop-last-line", "2.3.1", "fast", 20, 1, tmp_path, keep=3, source="articles",
                      log=lambda m: None)
    assert s["counts"]["different"] >= 15
    assert len(s["written"]) == 3
    assert (tmp_path / "000.json").exists() and (tmp_path / "000.html").stat().st_size > 250


def _lxml_parsers(broken=False):
    import lxml.etree as etree
    import lxml.html

    parser = fuzz.lxml_parser()

    def doc(html):
        return etree.fromstring(html, parser)

    def frag(html):
        el = lxml.html.fromstring(html, parser=parser)
        if broken and len(el):
            el.remove(el[-1])
        return el

    return doc, frag


def test_tree_fuzz_lxml_against_itself_is_all_equal(tmp_path):
    s = fuzz.run_tree(60, 3, tmp_path, parsers=_lxml_parsers(), log=lambda m: None)
    assert s["counts"]["compared"] == 60
    assert s["counts"]["document:equal"] == 60 and s["counts"]["fromstring:equal"] == 60


def test_tree_fuzz_finds_a_broken_parser(tmp_path):
    s = fuzz.run_tree(60, 3, tmp_path, keep=2, parsers=_lxml_parsers(broken=True), log=lambda m: None)
    assert s["counts"].get("fromstring:different", 0) >= 10
    assert len(s["written"]) == 2


def test_fuzz_command_line_prints_seed_and_counts(tmp_path, capsys):
    rc = fuzz.main(["text", "--candidate", "trafilatura", "--set", "fast", "--n", "5", "--seed", "12",
                    "--source", "articles", "--bytes-share", "0.5", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "seed 12" in out and "compared 5, " in out and "equal 5" in out
    # per kind: generated str and bytes documents, as --bytes-share asks
    assert "compared:article 3, compared:article-bytes 2" in out
