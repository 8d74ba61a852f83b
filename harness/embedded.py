"""The embedded corpus: small synthetic pages the project generates and commits.

``python -m harness make-embedded`` writes ``corpora/embedded/synthetic.jsonl.gz``
(same record format as the shared bundles) from a fixed seed, so the harness
and CI run on a machine without ../shared. The pages are written for this
project (no third-party content): article-like documents with the structures
trafilatura's extractor branches on (navigation, comments sections, tables,
lists, quotes, code, link farms, teasers, JSON-LD, forms) and parser edge
cases (no html/body tags, entities, NUL and CR, unclosed tags, XML
declaration, BOM, a non-UTF-8 page).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import random
from pathlib import Path
from typing import Iterator, List

from .corpora import EMBEDDED_DIR

SEED = 20261130
WORDS = (
    "river harbour lantern quiet measure orchard signal copper meadow voyage letter window garden "
    "morning winter station market village engine silver thunder answer bridge paper forest "
    "question ribbon candle mirror castle valley figure island shadow pocket rhythm canvas "
    "harvest journey needle feather marble pattern whisper anchor planet ladder kettle"
).split()
CLASSES_NAV = ["nav", "menu", "sidebar", "footer", "header", "share", "social", "related", "ad-slot", "cookie-banner"]
CLASSES_MAIN = ["content", "article-body", "entry-content", "post", "story", "main-text", "text"]


def sentence(rng: random.Random, n: int = 0) -> str:
    n = n or rng.randint(6, 18)
    words = [rng.choice(WORDS) for _ in range(n)]
    return words[0].capitalize() + " " + " ".join(words[1:]) + rng.choice([".", ".", ".", "!", "?"])


def paragraph(rng: random.Random, k: int = 0) -> str:
    return " ".join(sentence(rng) for _ in range(k or rng.randint(2, 6)))


def inline(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    for _ in range(rng.randint(0, 3)):
        i = rng.randrange(len(words))
        tag = rng.choice(["b", "i", "em", "strong", "a", "span", "code"])
        attrs = ' href="/w/%s"' % words[i].strip(".!?") if tag == "a" else ""
        words[i] = f"<{tag}{attrs}>{words[i]}</{tag}>"
    return " ".join(words)


def nav_block(rng: random.Random) -> str:
    cls = rng.choice(CLASSES_NAV)
    links = "".join(f'<li><a href="/{w}">{w.capitalize()}</a></li>' for w in rng.sample(WORDS, 6))
    return f'<div class="{cls}"><ul>{links}</ul></div>'


def table(rng: random.Random) -> str:
    rows = []
    cols = rng.randint(2, 4)
    rows.append("<tr>" + "".join(f"<th>{rng.choice(WORDS)}</th>" for _ in range(cols)) + "</tr>")
    for _ in range(rng.randint(2, 5)):
        cells = []
        for _ in range(cols):
            span = ' colspan="2"' if rng.random() < 0.1 else ""
            cells.append(f"<td{span}>{sentence(rng, 4)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"


def article(rng: random.Random, i: int) -> str:
    parts: List[str] = []
    title = sentence(rng, 5).rstrip(".!?")
    for _ in range(rng.randint(3, 9)):
        r = rng.random()
        if r < 0.55:
            parts.append(f"<p>{inline(rng, paragraph(rng))}</p>")
        elif r < 0.65:
            parts.append(f"<h2>{sentence(rng, 4)}</h2>")
        elif r < 0.72:
            parts.append("<ul>" + "".join(f"<li>{sentence(rng)}</li>" for _ in range(rng.randint(2, 5))) + "</ul>")
        elif r < 0.78:
            parts.append(f"<blockquote><p>{paragraph(rng, 2)}</p></blockquote>")
        elif r < 0.83:
            parts.append(f"<pre><code>def f{i}(x):\n    return x &lt; {i}\n</code></pre>")
        elif r < 0.90:
            parts.append(table(rng))
        elif r < 0.95:
            parts.append(f'<div class="teaser"><a href="/more">{sentence(rng, 5)}</a></div>')
        else:
            parts.append(f"<p>{paragraph(rng)}<br>{sentence(rng)}<br/>{sentence(rng)}</p>")
    main_cls = rng.choice(CLASSES_MAIN)
    comments = ""
    if rng.random() < 0.4:
        items = "".join(f'<div class="comment"><p>{paragraph(rng, 2)}</p></div>' for _ in range(rng.randint(1, 4)))
        comments = f'<section id="comments"><h3>Comments</h3>{items}</section>'
    head_extra = ""
    if rng.random() < 0.2:
        head_extra = ('<script type="application/ld+json">{"@type": "NewsArticle", "headline": "%s"}</script>' % title)
    body = (
        f"<header>{nav_block(rng)}</header>"
        + (nav_block(rng) if rng.random() < 0.5 else "")
        + f'<article class="{main_cls}"><h1>{title}</h1>' + "".join(parts) + "</article>"
        + comments
        + f'<footer class="footer"><p>{sentence(rng, 6)}</p>{nav_block(rng)}</footer>'
    )
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>{head_extra}</head>\n'
        f"<body>{body}</body></html>\n"
    )


def edge_cases(rng: random.Random) -> Iterator[tuple]:
    """(label, raw bytes, is_utf8) for parser and loader edge cases."""
    text = paragraph(rng, 5)
    yield "no-html-tags", f"<p>{text}</p><div><p>{paragraph(rng, 4)}</p></div>".encode(), True
    yield "entities", f"<html><body><article><p>Fish &amp chips &copy2024 &notit; &#x80; &#0; &lt;tag&gt; {text}</p></article></body></html>".encode(), True
    yield "nul-cr", f"<html><body><article><p>A\x00B\r\nC\rD {text}</p></article></body></html>".encode(), True
    yield "unclosed", f"<html><body><div><p>{text}<p>{paragraph(rng, 4)}<li>x<li>y<table><tr><td>{sentence(rng)}</table>".encode(), True
    yield "xml-declaration", f'<?xml version="1.0" encoding="utf-8"?>\n<html><body><article><p>{text}</p></article></body></html>'.encode(), True
    yield "bom", ("\ufeff" + f"<html><body><main><p>{text}</p><p>{paragraph(rng, 4)}</p></main></body></html>").encode(), True
    yield "xhtml-doctype", (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
        f'<html xmlns="http://www.w3.org/1999/xhtml"><body><div id="content"><p>{text}</p></div></body></html>'
    ).encode(), True
    yield "non-ascii", f"<html><body><article><p>Café naïve Ünïcödé — ½ {text} 日本語のテキスト。</p></article></body></html>".encode(), True
    yield "latin-1", f"<html><head><meta charset=iso-8859-1></head><body><article><p>Caf\u00e9 cr\u00e8me {text}</p></article></body></html>".encode("latin-1"), False
    yield "deep-nesting", ("<html><body>" + "<div>" * 300 + f"<p>{text}</p>" + "</div>" * 300 + "</body></html>").encode(), True
    yield "script-style", f"<html><head><style>p {{ color: red }} </style></head><body><script>if (a < b) {{ x = '</div>' }}</script><article><p>{text}</p></article></body></html>".encode(), True
    yield "form-heavy", f"<html><body><form><p>{text}</p><input name=q><textarea>{sentence(rng)}</textarea></form></body></html>".encode(), True
    yield "text-after-html", f"<html><body><article><p>{text}</p></article></body></html><p>{sentence(rng)}</p>".encode(), True
    yield "empty", b"", True
    yield "only-lt", b"<" * 200, True
    yield "only-amp", b"&" * 200, True


def records() -> Iterator[dict]:
    rng = random.Random(SEED)
    pages = [(f"article-{i:03d}", article(rng, i).encode("utf-8"), True) for i in range(48)]
    pages += list(edge_cases(rng))
    for label, raw, is_utf8 in pages:
        sha = hashlib.sha256(raw).hexdigest()
        rec = {
            "id": f"synthetic/{label}", "source": "trafila (generated by harness/embedded.py)", "path": label,
            "commit": None, "url": f"https://example.org/{label}", "encoding_hint": None if is_utf8 else "iso-8859-1",
            "html": raw.decode("utf-8") if is_utf8 else None, "html_b64": None if is_utf8 else base64.b64encode(raw).decode(),
            "sha256": sha, "bytes": len(raw),
        }
        yield rec


def write(out_dir: Path = EMBEDDED_DIR) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "synthetic.jsonl.gz"
    with gzip.GzipFile(path, "wb", mtime=0) as fh:
        for rec in records():
            fh.write((json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
    return path
