"""Character-level tag-soup fuzzing of trafila.html against lxml (pytest and bulk runs).

Draws documents from a small alphabet of the characters and fragments that
steer libxml2's tokenizer and tree builder (``<``, ``</``, ``<!--``, ``-->``,
``&`` references, quotes, ``=``, ``/``, CR, NUL, non-ASCII, known and unknown
tag names, raw-text elements), in str and bytes form, and compares whole
documents and fromstring()'s element.

    pytest tests/test_parser_fuzz.py                       # 4 seeds x 1000 documents
    PYTHONPATH=reference:. python tests/test_parser_fuzz.py --n 20000 --seed 1
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    sys.path[:0] = [str(ROOT / "reference"), str(ROOT)]

from trafila.html import fromstring, parse_document  # noqa: E402
from trafila.html._debug import dump_document, dump_element, dump_lxml, first_difference  # noqa: E402

TAGS = ["html", "head", "body", "p", "div", "b", "i", "a", "table", "tr", "td", "th", "tbody", "li", "ul", "ol",
        "dd", "dt", "dl", "form", "h1", "span", "br", "img", "hr", "input", "meta", "link", "title", "script",
        "style", "textarea", "xmp", "iframe", "noembed", "noframes", "plaintext", "noscript", "select", "option",
        "frameset", "frame", "section", "x-y", "font", "center", "pre", "caption", "col", "colgroup", "base",
        "SCRIPT", "Title", "BODY", "HTML", "Head", "svg", "source", "embed", "object", "param", "label"]
ATTRS = ["class", "id", "href", "checked", "selected", "x", "CLASS", "data-a", "=", "a<b", "nowrap"]
ENTS = ["&amp;", "&amp", "&ampx", "&copy2024", "&notit;", "&notin", "&#65;", "&#x41", "&#0;", "&#128;", "&#xD800;",
        "&#99999999999;", "&#;", "&#x;", "&lt", "&nbsp", "&NotNestedGreaterGreater;", "&", "&=", "&copy="]
PIECES = ["<", ">", "</", "/>", "<!--", "-->", "--!>", "<!-->", "<!", "<?", "?>", "<!DOCTYPE html>", "<!doctype x>",
          "<![CDATA[", "]]>", "=", "\"", "'", " ", "\t", "\n", "\r", "\r\n", "\x00", "\x0b", "\x0c", "é", "€", "😀",
          "\ufeff", "/", "-", "text", "a b", "\u0100", "\x85", "<!-", "--", "-->",
          "<script>", "</script>", "</script ", "</SCRIPT/", "<!--<script>", "<script >", "</scriptx>", "<title>",
          "</title>", "<textarea>", "</textarea >", "<style>", "</style>", "<plaintext>", "<xmp>", "</xmp>",
          "\ud800", "\udc00", "\U0001F600", "&#x80;", "&#150;", "&#13;", "&#x0D;", "\x01", "\x1f"]


def random_doc(rng: random.Random) -> str:
    out = []
    if rng.random() < 0.05:
        # deep nesting around libxml2's 256-node limit
        depth = rng.randint(240, 270)
        out.append("".join(f"<{rng.choice(['div', 'span', 'b', 'section'])}>" for _ in range(depth)))
    if rng.random() < 0.05:
        out.append("x" * rng.choice([1990, 1995, 1998, 1999, 2000, 998, 999, 1000]))
    for _ in range(rng.randint(1, 60)):
        r = rng.random()
        if r < 0.3:
            tag = rng.choice(TAGS)
            attrs = ""
            for _ in range(rng.choice([0, 0, 1, 2])):
                a = rng.choice(ATTRS)
                q = rng.choice(["", "=v", "='v w'", '="x&amp;y"', "=" + rng.choice(ENTS), '="unterminated', "=a/b"])
                attrs += rng.choice([" ", "/", "\n", "  "]) + a + q
            out.append(f"<{tag}{attrs}{rng.choice(['>', '>', '>', '/>', ' >', ''])}")
        elif r < 0.5:
            out.append(f"</{rng.choice(TAGS)}{rng.choice(['>', '>', ' x>', '/>', ''])}")
        elif r < 0.65:
            out.append(rng.choice(ENTS))
        elif r < 0.9:
            out.append(rng.choice(PIECES))
        else:
            out.append(rng.choice(["hello", " world ", "x", "  ", "\n\n"]))
    return "".join(out)


def outcome(fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except Exception as err:
        return type(err).__name__


def draw_source(rng: random.Random):  # type: ignore[no-untyped-def]
    """One document, as str (70%) or as bytes (30%, a third of them with invalid UTF-8 bytes)."""
    text = random_doc(rng)
    src = text.encode("utf-8", "surrogatepass") if rng.random() < 0.3 else text
    if isinstance(src, bytes) and rng.random() < 0.3:
        b = bytearray(src)
        for _ in range(rng.randint(1, 3)):
            b.insert(rng.randint(0, len(b)), rng.choice([0x80, 0xC3, 0xE2, 0xF0, 0xFF, 0xED]))
        src = bytes(b)
    return src


def compare(src, parser):  # type: ignore[no-untyped-def]
    """None when trafila and lxml agree on the document and on fromstring(), else where they differ."""
    import lxml.etree as etree
    import lxml.html

    def lxml_doc():  # type: ignore[no-untyped-def]
        root = etree.fromstring(src, parser)
        return [] if root is None else dump_lxml(root)

    def our_doc():  # type: ignore[no-untyped-def]
        doc = parse_document(src)
        return [] if doc.getroot() is None else dump_document(doc)

    want, got = outcome(lxml_doc), outcome(our_doc)
    if want != got:
        return first_difference(got, want) if isinstance(want, list) and isinstance(got, list) else (got, want)
    w2 = outcome(lambda: dump_element(lxml.html.fromstring(src, parser=parser)))
    g2 = outcome(lambda: dump_element(fromstring(src)))
    if w2 != g2:
        return ("fromstring", first_difference(g2, w2) if isinstance(w2, list) and isinstance(g2, list) else (g2, w2))
    return None


def lxml_parser():  # type: ignore[no-untyped-def]
    import lxml.html

    return lxml.html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                                remove_comments=True, remove_pis=True)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_tag_soup_matches_lxml(seed):
    pytest.importorskip("lxml.html")
    parser = lxml_parser()
    rng = random.Random(seed)
    bad = []
    for i in range(1000):
        src = draw_source(rng)
        diff = compare(src, parser)
        if diff is not None:
            bad.append((i, src[:200], diff))
    assert bad == []


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=10)
    args = ap.parse_args()
    parser = lxml_parser()
    rng = random.Random(args.seed)
    diffs = 0
    t0 = time.time()
    for i in range(args.n):
        src = draw_source(rng)
        diff = compare(src, parser)
        if diff is not None:
            diffs += 1
            if diffs <= args.show:
                print(f"#{i} {src!r:.300}\n    {diff}")
    print(f"seed {args.seed}: {args.n} docs, {diffs} different, {time.time() - t0:.1f}s")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())


# -- Hypothesis: the harness's parser-stress grammar (failures shrink) ----------
hypothesis = pytest.importorskip("hypothesis")


def _hypothesis_strategies():  # type: ignore[no-untyped-def]
    from harness.strategies import html_bytes, html_documents

    return html_documents(), html_bytes()


@hypothesis.settings(max_examples=300, deadline=None,
                     suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(data=hypothesis.strategies.data())
def test_stress_grammar_matches_lxml(data):
    pytest.importorskip("lxml.html")
    documents, as_bytes = _hypothesis_strategies()
    src = data.draw(documents if data.draw(hypothesis.strategies.booleans()) else as_bytes)
    assert compare(src, lxml_parser()) is None
