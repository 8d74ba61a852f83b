"""harness.minimise: ddmin, and shrinking a real difference between a candidate and trafilatura."""

from __future__ import annotations

import random

import pytest

from harness import minimise as mm
from harness import strategies
from harness.candidates import make_candidate
from harness.matrix import option_sets


def test_ddmin_finds_a_one_minimal_subset():
    parts = list("abcdefghijklmnop")
    calls = []

    def test(ps):
        calls.append(1)
        return "c" in ps and "k" in ps

    assert mm.ddmin(parts, test) == ["c", "k"]
    assert len(calls) < 100


def test_minimise_shrinks_markup_by_lines_tokens_and_chars():
    html = "<html>\n<head><title>x</title></head>\n<body>\n<div><p>keep <b>this</b></p></div>\n<p>noise</p>\n</body></html>\n"
    small, stats = mm.minimise(html, lambda h: "<b>" in h and "is" in h)
    assert small == "<b>is" or (len(small) <= 6 and "<b>" in small)
    assert stats["start"] == len(html) and stats["end"] == len(small)


def test_minimise_refuses_an_input_without_difference():
    with pytest.raises(ValueError):
        mm.minimise("<p>x</p>", lambda h: False)


def test_minimise_keeps_the_bytes_form():
    small, _ = mm.minimise(b"<p>a</p>\n<p>\xff</p>\n", lambda h: b"\xff" in h)
    assert small == b"\xff"


def test_a_real_difference_is_minimised_and_still_differs(tmp_path):
    cand = make_candidate("mutant:drop-last-line")
    oracle = make_candidate("trafilatura")
    (opt,) = option_sets("2.3.1", ["fast"])
    html = strategies.random_article(random.Random(4))
    sig, want, got = mm.difference_kind(cand, oracle, opt, "2.3.1", html)
    assert sig[:2] == ("text", "text")
    pred = mm.text_predicate(cand, oracle, opt, "2.3.1", same_kind=sig)
    small, stats = mm.minimise(html, pred, max_tests=3000)
    assert len(small) < len(html) / 10
    assert pred(small)
    content, where = mm.write_repro(tmp_path / "r.html", small, "python -m harness.minimise --file x", "note", pred)
    assert where in ("top", "bottom")
    assert (tmp_path / "r.html").read_text() == content and pred(content)


def test_command_line_writes_a_repro(tmp_path, capsys):
    src = tmp_path / "page.html"
    src.write_text(strategies.random_article(random.Random(9)))
    out = tmp_path / "repro.html"
    rc = mm.main(["--candidate", "mutant:drop-last-line", "--set", "fast", "--file", str(src), "--out", str(out)])
    assert rc == 0
    text = out.read_text()
    assert "<!-- repro: python -m harness.minimise" in text
    assert len(text) < len(src.read_text())
    assert "wrote" in capsys.readouterr().out


def test_tree_target_minimises_a_parser_difference(monkeypatch):
    import lxml.etree as etree
    import lxml.html

    from harness import fuzz

    parser = fuzz.lxml_parser()

    def broken_fromstring(html):
        # a parser that loses the text of <em> elements
        el = lxml.html.fromstring(html, parser=parser)
        for em in el.iter("em"):
            em.text = None
        return el

    monkeypatch.setattr(fuzz, "trafila_parsers", lambda: (lambda h: etree.fromstring(h, parser), broken_fromstring))
    pred = mm.tree_predicate()
    html = "<html><body>\n<div><p>a <b>b</b></p>\n<p>c <em>d</em> e</p>\n</div>\n</body></html>"
    assert pred(html) and not pred("<p>no em here</p>")
    small, _ = mm.minimise(html, pred)
    assert small == "<em>d" or (len(small) <= 6 and "<em>" in small)
