"""Delta debugging of a page whose result differs between a candidate and trafilatura.

``python -m harness.minimise --candidate X --mode 2.3.1 --set fast --bundle B --page ID``
runs the candidate and the installed trafilatura (in process) on the page, and
shrinks its markup while the difference persists: ddmin over lines, then over
tags and text runs, then over characters (for small enough inputs). It writes
``repros/<page>-<set>.html`` with a header comment giving the command, and
prints it. ``--file PATH`` minimises a file instead (e.g. a fuzz finding), and
``--target tree`` minimises a difference between trafila's parser and lxml.

By default the *kind* of difference must persist as well (e.g. "oracle gives
text, candidate raises KeyError"), so that shrinking does not wander off to an
unrelated difference; ``--any-difference`` drops that requirement.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .standalone import standalone


Html = Union[str, bytes]
ROOT = Path(__file__).resolve().parent.parent
REPROS = ROOT / "repros"


class Budget(Exception):
    """The test budget (count or time) is spent."""


class Tester:
    """Memoised predicate with a budget of tests and seconds."""

    def __init__(self, predicate: Callable[[Html], bool], max_tests: int = 20000, max_seconds: float = 600.0) -> None:
        self.predicate = predicate
        self.max_tests = max_tests
        self.deadline = time.time() + max_seconds
        self.cache: Dict[str, bool] = {}
        self.tests = 0

    def __call__(self, html: Html) -> bool:
        data = html.encode("utf-8", "surrogatepass") if isinstance(html, str) else html
        key = hashlib.sha256(data).hexdigest()
        if key in self.cache:
            return self.cache[key]
        if self.tests >= self.max_tests or time.time() > self.deadline:
            raise Budget()
        self.tests += 1
        ok = bool(self.predicate(html))
        self.cache[key] = ok
        return ok


def _join(parts: Sequence[Html], like: Html) -> Html:
    return (b"" if isinstance(like, bytes) else "").join(parts)


def ddmin(parts: List[Html], test: Callable[[List[Html]], bool]) -> List[Html]:
    """Zeller's ddmin: a 1-minimal sublist of ``parts`` for which ``test`` holds
    (``test(parts)`` is assumed true). Stops early, keeping the best so far,
    when the tester's budget runs out."""
    n = 2
    try:
        while len(parts) >= 2:
            size = len(parts) / n
            chunks = [parts[int(i * size):int((i + 1) * size)] for i in range(n)]
            reduced = False
            for i, chunk in enumerate(chunks):  # one chunk alone
                if chunk and len(chunk) < len(parts) and test(chunk):
                    parts, n, reduced = chunk, 2, True
                    break
            if not reduced:
                for i in range(n):  # a complement
                    comp = [p for j, c in enumerate(chunks) if j != i for p in c]
                    if comp and len(comp) < len(parts) and test(comp):
                        parts, n, reduced = comp, max(n - 1, 2), True
                        break
            if not reduced:
                if n >= len(parts):
                    break
                n = min(len(parts), n * 2)
    except Budget:
        pass
    return parts


_LINE_RE = {str: re.compile(r"[^\n]*\n|[^\n]+"), bytes: re.compile(rb"[^\n]*\n|[^\n]+")}
_TOKEN_RE = {str: re.compile(r"<[^<>]*>?|[^<]+|<"), bytes: re.compile(rb"<[^<>]*>?|[^<]+|<")}


def split_lines(html: Html) -> List[Html]:
    return _LINE_RE[type(html)].findall(html)


def split_tokens(html: Html) -> List[Html]:
    """Tags (or tag-like runs) and the text between them."""
    return _TOKEN_RE[type(html)].findall(html)


def split_chars(html: Html) -> List[Html]:
    return [html[i:i + 1] for i in range(len(html))]


def minimise(html: Html, predicate: Callable[[Html], bool], *, max_tests: int = 20000, max_seconds: float = 600.0,
             char_limit: int = 4000, log: Callable[[str], None] = lambda m: None) -> Tuple[Html, dict]:
    """Shrink ``html`` while ``predicate`` holds: lines, then tokens, then characters.

    Returns the result and statistics. Raises ``ValueError`` when the
    predicate does not hold for ``html`` itself."""
    tester = Tester(predicate, max_tests, max_seconds)
    if not tester(html):
        raise ValueError("the predicate does not hold for the input")
    best = html
    stats = {"start": len(html)}
    for name, split, limit in (("lines", split_lines, None), ("tokens", split_tokens, None),
                               ("lines", split_lines, None), ("chars", split_chars, char_limit)):
        if limit is not None and len(best) > limit:
            continue
        parts = split(best)
        if len(parts) < 2:
            continue
        reduced = ddmin(parts, lambda ps: tester(_join(ps, best)))
        best = _join(reduced, best)
        stats[name] = len(best)
        log(f"  after {name}: {len(best)} chars ({tester.tests} tests)")
    stats.update(end=len(best), tests=tester.tests, budget_spent=tester.tests >= max_tests or time.time() > tester.deadline)
    return best, stats


# --------------------------------------------------------------------------- predicates


def _entry(cand: Any, opt: Any, html: Html, mode: str, timeout: float):
    from .candidates import call_entry

    if opt.dedup:  # each probe of the page starts from an empty cache
        cand.reset_dedup(mode)
    return call_entry(cand, opt.function, html, opt.options, mode, timeout)


def kind(entry: Any) -> str:
    """What sort of result an entry is: None, text, empty text, raise X, fields."""
    if entry is None:
        return "None"
    if isinstance(entry, list):
        return "text" if entry[1] else "empty text"
    if "raise" in entry:
        return "raise " + entry["raise"]
    if "error" in entry:
        return "error"
    if "fields" in entry:
        return "fields"
    return "other"


def text_predicate(candidate: Any, oracle: Any, opt: Any, mode: str, *, same_kind: Optional[Tuple[str, str]] = None,
                   timeout: float = 60.0) -> Callable[[Html], bool]:
    """True while the candidate's result differs from the oracle's (and, with
    ``same_kind``, the kinds of the two results stay the same)."""
    from .results import differing_fields, same

    def differs(html: Html) -> bool:
        want = _entry(oracle, opt, html, mode, timeout)
        got = _entry(candidate, opt, html, mode, timeout)
        if same(want, got):
            return False
        if same_kind is not None:
            if (kind(want), kind(got)) != same_kind[:2]:
                return False
            if len(same_kind) > 2 and differing_fields(want, got) != same_kind[2]:
                return False
        return True

    return differs


def difference_kind(candidate: Any, oracle: Any, opt: Any, mode: str, html: Html, timeout: float = 60.0):
    from .results import describe, differing_fields

    want = _entry(oracle, opt, html, mode, timeout)
    got = _entry(candidate, opt, html, mode, timeout)
    sig: tuple = (kind(want), kind(got))
    fields = differing_fields(want, got)
    if fields:
        sig = sig + (fields,)
    return sig, describe(want), describe(got)


def tree_predicate(timeout: float = 60.0) -> Callable[[Html], bool]:
    """True while trafila's parser and lxml give different trees."""
    import lxml.html

    from .fuzz import _outcome, lxml_document_dump, lxml_parser, trafila_document_dump, trafila_parsers
    from .treedump import dump_element

    parse_document, t_fromstring = trafila_parsers()
    parser = lxml_parser()

    def differs(html: Html) -> bool:
        a = _outcome(lambda: lxml_document_dump(html, parser), timeout)
        b = _outcome(lambda: trafila_document_dump(parse_document(html)), timeout)
        if a != b:
            return True
        a = _outcome(lambda: dump_element(lxml.html.fromstring(html, parser=parser)), timeout)
        b = _outcome(lambda: dump_element(t_fromstring(html)), timeout)
        return a != b

    return differs


# --------------------------------------------------------------------------- repro files


def _header(command: str, note: str) -> str:
    # only "-->" and "--!>" end a comment for libxml2 2.14
    clean = lambda s: s.replace("-->", "- ->").replace("--!>", "- -!>")  # noqa: E731
    return f"<!-- repro: {clean(command)}\n     {clean(note)} -->\n"


def write_repro(path: Path, html: Html, command: str, note: str, predicate: Callable[[Html], bool]) -> Tuple[Html, str]:
    """Write the repro with its header comment where the difference survives it
    (top, else bottom); else write the bare markup and the command next to it."""
    header = _header(command, note)
    head: Html = header if isinstance(html, str) else header.encode("utf-8")
    for where, content in (("top", head + html), ("bottom", html + (b"\n" if isinstance(html, bytes) else "\n") + head)):
        if predicate(content):
            break
    else:
        where, content = "none", html
        path.with_suffix(".cmd").write_text(header)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    return content, where


def find_page(bundle: str, page_id: str, embedded: Optional[bool] = None):
    from .corpora import bundle_paths, iter_pages

    for path in bundle_paths([bundle], embedded=embedded):
        for page in iter_pages(path):
            if page.id == page_id:
                return page
    raise SystemExit(f"page {page_id!r} not found in bundle {bundle!r}")


def _safe_name(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s)[:120]


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The command's arguments (parsed by harness/cli.py, the one command line)."""
    ap.add_argument("--target", choices=("text", "tree"), default="text")
    ap.add_argument("--candidate", default="reference")
    ap.add_argument("--mode", default="2.3.1")
    ap.add_argument("--set", default="default", help="option set of harness.matrix")
    ap.add_argument("--bundle")
    ap.add_argument("--page")
    ap.add_argument("--embedded", action="store_true", default=None)
    ap.add_argument("--file", type=Path, help="minimise this file instead of a corpus page")
    ap.add_argument("--forms", dest="form", choices=("str", "bytes"), default=None, help="the input form (default: str when UTF-8)")
    ap.add_argument("--out", type=Path, help="default repros/<page>-<set>.html")
    ap.add_argument("--any-difference", action="store_true", help="do not require the same kind of difference")
    ap.add_argument("--max-tests", type=int, default=20000)
    ap.add_argument("--max-seconds", type=float, default=900.0)
    ap.add_argument("--char-limit", type=int, default=4000, help="character-level pass only below this size")
    ap.add_argument("--timeout", type=float, default=60.0, help="per call")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    """Run the command with parsed ``args`` (``argv``: the words, for the report)."""

    if args.file:
        raw = args.file.read_bytes()
        name = args.file.stem
    elif args.bundle and args.page:
        page = find_page(args.bundle, args.page, args.embedded)
        raw = page.raw
        name = page.id
    else:
        raise SystemExit("minimise: give --bundle and --page, or --file")
    form = args.form or "str"
    if form == "str":
        try:
            html: Html = raw.decode("utf-8") if not args.file else raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            if args.form == "str":
                raise SystemExit("the page is not UTF-8: it has no str form")
            html, form = raw, "bytes"
    else:
        html = raw

    command = "python -m harness.minimise " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    if args.target == "tree":
        predicate = tree_predicate(args.timeout)
        note = "trafila's parser and lxml give different trees"
        set_name = "tree"
    else:
        from .candidates import TrafilaturaCandidate, make_candidate
        from .matrix import option_sets

        (opt,) = option_sets(args.mode, [args.set])
        oracle = TrafilaturaCandidate()
        oracle.check_mode(args.mode)
        cand = make_candidate(args.candidate)
        sig, want, got = difference_kind(cand, oracle, opt, args.mode, html, args.timeout)
        print(f"difference: trafilatura {want}; {args.candidate} {got}", flush=True)
        predicate = text_predicate(cand, oracle, opt, args.mode, same_kind=None if args.any_difference else sig,
                                   timeout=args.timeout)
        set_name = args.set
    t0 = time.time()
    try:
        small, stats = minimise(html, predicate, max_tests=args.max_tests, max_seconds=args.max_seconds,
                                char_limit=args.char_limit, log=lambda m: print(m, flush=True))
    except ValueError as err:
        raise SystemExit(f"no difference to minimise: {err}")
    if args.target == "text":
        _, want, got = difference_kind(cand, oracle, opt, args.mode, small, args.timeout)
        note = f"{args.candidate} vs trafilatura {args.mode}, set {set_name}, {form} input: trafilatura {want}; candidate {got}"
    out = args.out or REPROS / f"{_safe_name(name)}-{set_name}.html"
    content, where = write_repro(out, small, command, note, predicate)
    print(f"{stats['start']} -> {stats['end']} chars in {stats['tests']} tests, {time.time() - t0:.0f} s"
          f"{' (budget spent)' if stats['budget_spent'] else ''}; header {where}; wrote {out}")
    print("-" * 60)
    text = content if isinstance(content, str) else content.decode("utf-8", "replace")
    print(text)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m harness.minimise``: the same command as ``python -m harness minimise``."""
    return standalone(sys.modules[__name__], argv)


if __name__ == "__main__":
    sys.exit(main())
