"""Mutations of real pages, deterministic given a seed.

* ``cut``: the page up to a random offset (tags, comments, references and
  UTF-8 sequences cut in the middle);
* ``splice``: the head of one page followed by the tail of another;
* ``junk``: random tags, unclosed tags, stray ``<``/``&``, NUL and, in the
  ``str`` form, lone surrogates inserted at random offsets.

Pages are ``str`` or ``bytes`` (or :class:`harness.corpora.Page`, whose
``str`` form is used when it has one); a mutant has the type of its page
(splicing a ``str`` with a ``bytes`` page encodes the ``str`` as UTF-8).
"""

from __future__ import annotations

import random
from typing import Iterator, List, Sequence, Tuple, Union

Html = Union[str, bytes]

JUNK = (
    "<div>", "</div>", "<p>", "</p>", "<b>", "</b>", "<table>", "<td>", "</tr>", "<li>", "<ul>", "</ul>",
    "<script>", "</script>", "<style>", "<textarea>", "<title>", "<!--", "-->", "<![CDATA[", "<?x", "</", "<",
    "&", "&amp", "&#", "&#x", "&copy", ">", '"', "'", "=", "\x00", "\r", "\r\n", "<br/>", "<body>", "</body>",
    "<html>", "</html>", "<head>", "<div class=", "<a href='", "<p class=\"content\">", "<plaintext>", "\ufffd",
    "<xmp>", "</xmp>", "<select>", "<option>", "<dd>", "<dt>", "</td></tr></table>",
)
SURROGATES = ("\ud800", "\udbff", "\udc00", "\udfff")


def _text(page) -> Html:
    if isinstance(page, (str, bytes)):
        return page
    html = getattr(page, "html", None)
    return html if html is not None else page.raw


def _name(page, index: int) -> str:
    return str(getattr(page, "id", index))


def _as(like: Html, value: Html) -> Html:
    """``value`` in the type of ``like``."""
    if isinstance(like, bytes) and isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(like, str) and isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def cut(rng: random.Random, html: Html) -> Tuple[str, Html]:
    """The page cut at a random offset."""
    at = rng.randint(0, len(html))
    return f"cut@{at}", html[:at]


def splice(rng: random.Random, a: Html, b: Html) -> Tuple[str, Html]:
    """The head of ``a`` followed by the tail of ``b``."""
    i = rng.randint(0, len(a))
    j = rng.randint(0, len(b))
    return f"splice@{i}+{j}", a[:i] + _as(a, b[j:])


def insert_junk(rng: random.Random, html: Html, count: int = 0) -> Tuple[str, Html]:
    """``count`` (1..8 when 0) junk pieces at random offsets."""
    count = count or rng.randint(1, 8)
    out = html
    labels: List[str] = []
    for _ in range(count):
        at = rng.randint(0, len(out))
        if isinstance(out, str) and rng.random() < 0.1:
            piece: Html = rng.choice(SURROGATES)
            labels.append("surrogate")
        elif isinstance(out, bytes) and rng.random() < 0.1:
            piece = rng.choice((b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80"))
            labels.append("badbyte")
        else:
            piece = rng.choice(JUNK)
            labels.append("tag" if piece.startswith("<") else "char")
        out = out[:at] + _as(out, piece) + out[at:]
    return "junk:" + ",".join(sorted(set(labels))) + f"x{count}", out


def mutations(pages: Sequence, seed: int, n: int) -> Iterator[Tuple[str, Html]]:
    """``n`` mutants of ``pages`` as ``(label, html)``; the same seed gives the same mutants."""
    if not pages:
        return
    rng = random.Random(seed)
    for _ in range(n):
        i = rng.randrange(len(pages))
        page = _text(pages[i])
        kind = rng.choice(("cut", "splice", "junk", "junk"))
        if kind == "cut":
            label, html = cut(rng, page)
        elif kind == "splice":
            k = rng.randrange(len(pages))
            label, html = splice(rng, page, _text(pages[k]))
            label += f":{_name(pages[k], k)}"
        else:
            label, html = insert_junk(rng, page)
        yield f"{label}:{_name(pages[i], i)}", html
