"""Fuzzing the FineWeb twins under AddressSanitizer and UBSan.

``tox -e fineweb-asan`` builds ``trafila._tokenizer_en`` and ``trafila._quality`` with
``TRAFILA_CORE_ASAN=1`` (setup.py: ``-O1 -g -fno-omit-frame-pointer
-fsanitize=address,undefined``, boundscheck on) and runs this command. As in
:mod:`harness.fuzz_native`, the parent is plain Python and every batch of inputs runs in a
child process with the sanitizer runtime ``LD_PRELOAD``ed (found with ``ldd`` from the
module), ``detect_leaks=0`` and ``halt_on_error=1``: a sanitizer report or a crash ends the
child, the parent keeps the input the child was on (the child writes each input to
``current.txt`` before running it) and starts a new child after it.

``python -m harness fuzz-fineweb [run] --n N --seed S [--texts FILE.jsonl.gz ...]``
    generated texts (:func:`harness.filters.text_strategy`, a pool drawn per chunk) and
    mutated ones (random slices, splices, characters of every Unicode category inserted or
    repeated, lone surrogates included, very long words, huge repetition, empty and
    whitespace-only texts, ``\\r\\n``/``\\x0b``/``\\x1c``-``\\x1e``/``\\u2028`` separators, the
    ``IS_ALPHA`` token, soups of spaCy's special cases). Each input goes through

    - the compiled tokenizer ``CompiledEnglish``: ``tokenize``, ``word_tokenize``,
      ``span_tokenize``, ``sent_tokenize``, each compared with the reference
      ``EnglishRules`` (the same rules object) and datatrove's wrappers over its tokens;
      every ``--api-every``-th input also the public ``EnglishTokenizer`` with
      ``engine="compiled"`` against ``engine="reference"``;
    - every function of the compiled ``trafila._quality`` (``repetition_counts``,
      ``line_marks``, ``fineweb_counts``, ``word_counts``, ``c4_lines``, ``NGramCounts``'
      ``top``/``all_duplicate``, ``find_duplicates``, ``find_top_duplicate``,
      ``find_all_duplicate``, ``get_n_grams``) against the reference module's, with the
      default arguments and random ones, on the text's words and on adversarial word lists;
    - every ``--filters-every``-th input the four filters of ``trafila.fineweb.quality`` with
      ``engine="core"`` against ``engine="reference"``.

    A result is compared as a value, an exception as its type and message. State lives in
    ``.cache/fuzz-fineweb/<campaign>/`` (checkpoints every 500 inputs): a run stopped
    (killed, ``--max-time``) is resumed by the same command.

``python -m harness fuzz-fineweb tests [FILE ...]``
    pytest (default: ``tests/test_fineweb_tokenizer.py tests/test_fineweb_quality.py``) in a
    child with the same runtime and options; fails on a failed test or any sanitizer report.

``python -m harness fuzz-fineweb report``
    merges the campaigns into ``reports/fuzz-fineweb.{md,json}`` (``run`` writes it too).

Differences and crashes: the input is saved under ``repros/fuzz-fineweb/`` (git-ignored, as
UTF-8 with surrogates passed through) and printed; sanitizer logs are kept beside it.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import random
import re
import subprocess
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from .fuzz_native import _crashes, _segments, child_env, classify_crash, sanitizer_runtime
from .provenance import (build_info, c_source_id, portable_command, portable_path, stamped, write_report_json,
                         write_report_text)

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / ".cache" / "fuzz-fineweb"
REPORTS = ROOT / "reports"
REPROS = ROOT / "repros" / "fuzz-fineweb"
MODULES = ("trafila._tokenizer_en", "trafila._quality")
CHECKPOINT = 500
MAX_TEXT = 150_000
SMALL_TEXT = 4_000

# --------------------------------------------------------------------------- inputs

SEPARATORS = ("\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\n", "\n\n",
              "\t", "\u00a0", "\u3000", "\u200b", " \r\n ")
WHITESPACE = tuple(chr(c) for c in range(0x3001) if chr(c).isspace()) + ("\u200b", "\ufeff", "\u180e")
_CATEGORIES: Dict[str, List[int]] = {}


def categories() -> Dict[str, List[int]]:
    """Code points by Unicode general category (every category, Cs and Cn included)."""
    if not _CATEGORIES:
        for cp in range(0x110000):
            _CATEGORIES.setdefault(unicodedata.category(chr(cp)), []).append(cp)
    return _CATEGORIES


def random_char(rng: random.Random) -> str:
    cats = categories()
    if rng.random() < 0.3:  # the ASCII range, where the rules' character classes bite
        return chr(rng.randrange(0x80))
    cat = rng.choice(sorted(cats))
    return chr(rng.choice(cats[cat]))


class Inputs:
    """Input ``k`` of chunk ``(seed, chunk)``: a generated text or a mutation of one (or of a real
    text from ``texts``); the same every time for the same Hypothesis version and texts."""

    def __init__(self, texts: List[str], pool_size: int = 150, real_every: int = 25, max_real: int = 60_000,
                 big_share: float = 0.02):
        self.paths = texts
        self.big_share = big_share
        self.pool_size = pool_size
        self.real_every = real_every
        self.max_real = max_real
        self._real: Optional[List[str]] = None
        self._specials: Optional[List[str]] = None

    def real(self) -> List[str]:
        if self._real is None:
            out: List[str] = []
            for path in self.paths:
                with gzip.open(path, "rt", encoding="utf-8") as fh:
                    for i, line in enumerate(fh):
                        if i % self.real_every == 0:
                            text = json.loads(line).get("text") or ""
                            if len(text) <= self.max_real:
                                out.append(text)
            self._real = out
        return self._real

    def specials(self) -> List[str]:
        if self._specials is None:
            from trafila.fineweb.tokenizer import EnglishRules

            self._specials = sorted(EnglishRules().specials)
        return self._specials

    def chunk(self, seed: int, chunk: int, size: int):
        from .filters import WORDS, generated_texts

        pool = [t for _, t in generated_texts(self.pool_size, seed * 100_003 + chunk)] or ["A text."]
        rng = random.Random(f"fuzz-fineweb:{seed}:{chunk}")
        for _ in range(size):
            r = rng.random()
            if r < 0.2:
                yield "generated", rng.choice(pool)[:SMALL_TEXT]
                continue
            real = self.real()
            base = rng.choice(real) if real and r < 0.45 else rng.choice(pool)
            # most inputs small (the reference's pure Python answers each one); a few huge
            big = rng.random() < self.big_share
            limit = MAX_TEXT if big else SMALL_TEXT
            if len(base) > limit // 2:
                a = rng.randint(0, len(base) - limit // 2)
                base = base[a:a + limit // 2]
            labels = ["big"] if big else []
            text = base
            for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
                name, text = self.mutate(rng, text, pool, WORDS, big)
                labels.append(name)
                if len(text) > limit:
                    text = text[:limit]
            yield ("real:" if real and r < 0.45 else "generated:") + "+".join(labels), text

    def mutate(self, rng: random.Random, text: str, pool: List[str], words, big: bool = False) -> Tuple[str, str]:
        """One mutation of ``text``: (its name, the text); ``big``: with the huge sizes."""
        size = (lambda small, huge: rng.choice(small + huge)) if big else (lambda small, huge: rng.choice(small))
        n = len(text)
        kind = rng.randrange(14)
        pos = rng.randint(0, n)
        if kind == 0:
            a = rng.randint(0, n)
            b = rng.randint(a, n)
            return "slice", text[a:b]
        if kind == 1:
            chars = list(text)
            for _ in range(rng.choice((1, 3, 20, 200))):
                chars.insert(rng.randint(0, len(chars)), random_char(rng))
            return "insert-chars", "".join(chars)
        if kind == 2:
            ch = text[pos - 1] if pos and rng.random() < 0.5 else random_char(rng)
            return "dup-char", text[:pos] + ch * size((2, 10, 300, 2000), (5000, 60_000)) + text[pos:]
        if kind == 3:
            length = size((100, 1001, 3000), (5000, 40_000, 120_000))
            alphabet = rng.choice(("x", "ab", "a.", "a-", "a'", "1,", "http://a.b/", "😀", "日本",
                                   "".join(random_char(rng) for _ in range(5))))
            word = (alphabet * (length // len(alphabet) + 1))[:length]
            return "long-word", text[:pos] + " " + word + " " + text[pos:]
        if kind == 4:
            a = rng.randint(0, n)
            piece = text[a:a + rng.choice((1, 10, 80, 400))] or "x"
            times = max(1, min(size((10, 100, 1000), (20_000,)), (MAX_TEXT if big else SMALL_TEXT) // len(piece)))
            return "repeat", text[:pos] + piece * times + text[pos:]
        if kind == 5:
            return "empty", ""
        if kind == 6:
            return "whitespace", "".join(rng.choice(WHITESPACE) for _ in range(size((1, 2, 5, 50), (2000, 100_000))))
        if kind == 7:
            out = re.sub(r"[ \n]", lambda m: rng.choice(SEPARATORS) if rng.random() < 0.3 else m.group(), text)
            return "separators", out
        if kind == 8:
            tok = rng.choice(("IS_ALPHA", " IS_ALPHA ", "IS_ALPHA.", "(IS_ALPHA)", "IS_ALPHAIS_ALPHA", "\nIS_ALPHA\n",
                              "IS_ALPHA's", "IS_ALPH", "is_alpha"))
            return "is-alpha", text[:pos] + tok + text[pos:]
        if kind == 9:
            other = rng.choice(pool)
            c = rng.randint(0, len(other))
            return "splice", text[:pos] + other[c:]
        if kind == 10:
            specials = self.specials()
            joiners = (" ", " ", "", "\n", "  ", "\t", "-", ".", "'", "\u2028")
            soup = "".join(rng.choice(specials) + rng.choice(joiners) for _ in range(size((3, 30, 100), (300, 3000))))
            return "specials", text[:pos] + soup + text[pos:]
        if kind == 11:
            soup = "".join(rng.choice(words) + rng.choice((" ", "", "\n", "..."))
                           for _ in range(size((5, 50, 200), (500, 5000))))
            return "word-soup", text[:pos] + soup + text[pos:]
        if kind == 12:
            surrogate = chr(rng.randrange(0xD800, 0xE000))
            return "surrogate", text[:pos] + surrogate + text[pos:]
        soup = "".join(random_char(rng) for _ in range(size((1, 10, 100), (1000, 20_000))))
        return "unicode-soup", text[:pos] + soup + text[pos:]


# --------------------------------------------------------------------------- one input


def _outcome(fn: Callable[[], Any]) -> Tuple[str, Any]:
    try:
        return "ok", fn()
    except Exception as exc:  # noqa: BLE001 - an exception is an outcome, compared by type and message
        return "raise", f"{type(exc).__name__}: {exc}"


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


class Exerciser:
    """Runs one text through the compiled twins and the reference; counts the comparisons."""

    def __init__(self, api_every: int = 10, filters_every: int = 1):
        from trafila import _quality, _tokenizer_en
        from trafila.fineweb import quality, text as fw_text, tokenizer

        self.ref_tok = tokenizer
        self.rules = tokenizer.EnglishRules()
        self.compiled = _tokenizer_en.CompiledEnglish(self.rules)
        # a cache of 64 chunks: its two C tables turn over every 32 new chunks
        self.compiled_small = _tokenizer_en.CompiledEnglish(self.rules, max_cache=64)
        self.ctok = _tokenizer_en
        self.api = {"compiled": tokenizer.EnglishTokenizer(engine="compiled"),
                    "reference": tokenizer.EnglishTokenizer(engine="reference")}
        self.cq = _quality
        self.rq = quality
        self.stop = set(quality.STOP_WORDS)
        self.terminal = tuple(fw_text.TERMINAL_PUNCTUATION)
        self.api_every = api_every
        self.filters_every = filters_every
        self.counts: Counter = Counter()
        self.diffs: List[dict] = []
        self.new_diffs: List[dict] = []

    def compare(self, name: str, got: Tuple[str, Any], want: Tuple[str, Any], index: int, label: str) -> None:
        self.counts["comparisons"] += 1
        self.counts[f"compared:{name}"] += 1
        if got[0] == "raise":
            self.counts[f"raise:{name}:{got[1].split(':', 1)[0]}"] += 1
        if got != want:
            self.counts["differences"] += 1
            self.counts[f"different:{name}"] += 1
            d = {"index": index, "label": label, "function": name, "compiled": _short(got), "reference": _short(want)}
            self.new_diffs.append(d)
            if len(self.diffs) < 20:
                self.diffs.append(d)

    def run(self, text: str, index: int, label: str, rng: random.Random) -> None:
        self.counts["inputs"] += 1
        cmp = lambda name, got, want: self.compare(name, got, want, index, label)  # noqa: E731
        tok = self.ref_tok
        # --- the tokenizer: the twin against the reference rules and datatrove's wrappers over them
        ref = _outcome(lambda: self.rules(text))
        cmp("tokenize", _outcome(lambda: self.compiled.tokenize(text)), ref)

        def derived(f):
            return ref if ref[0] == "raise" else _outcome(lambda: f(ref[1]))

        cmp("word_tokenize", _outcome(lambda: self.compiled.word_tokenize(text)),
            derived(lambda t: tok.strip_strings(t.texts)))
        cmp("span_tokenize", _outcome(lambda: self.compiled.span_tokenize(text)), derived(lambda t: t.sentence_spans()))
        cmp("sent_tokenize", _outcome(lambda: self.compiled.sent_tokenize(text)),
            derived(lambda t: tok.strip_strings([text[a:b] for a, b in t.sentence_spans()])))
        cmp("tokenize:small_cache", _outcome(lambda: self.compiled_small.tokenize(text)), ref)
        # the affix loop's pieces on some of the text's chunks: the compiled loop (suffix start,
        # memo, url pre-check), the letters fast path, is_punct, against the reference
        ct = self.ctok
        for chunk in [ch for ch in text.split() if ch][:12]:
            want = _outcome(lambda: self.rules.tokenize_chunk(chunk))
            cmp("affix_tokenize_chunk", _outcome(lambda: ct.affix_tokenize_chunk(self.rules, chunk)), want)
            fast = _outcome(lambda: ct.alpha_chunk_tokens(self.rules, chunk))
            if fast != ("ok", None):
                cmp("alpha_chunk_tokens", fast, want)
            cmp("is_punct", _outcome(lambda: ct.is_punct(chunk)), _outcome(lambda: tok.is_punct(chunk)))
        if self.api_every and index % self.api_every == 0:
            for method in ("tokenize", "word_tokenize", "span_tokenize", "sent_tokenize"):
                cmp(f"EnglishTokenizer.{method}", _outcome(lambda: getattr(self.api["compiled"], method)(text)),
                    _outcome(lambda: getattr(self.api["reference"], method)(text)))

        # --- the quality loops, each function of the compiled module against the reference's
        words = tok.strip_strings(ref[1].texts) if ref[0] == "ok" else text.split()
        odd_words = text.split(" ")[:3000]  # empty strings, newlines and tabs inside words
        lines = text.split("\n")
        c, r = self.cq, self.rq
        both = lambda name, f: cmp(name, _outcome(lambda: f(c)), _outcome(lambda: f(r)))  # noqa: E731
        both("repetition_counts", lambda m: m.repetition_counts(text))
        both("line_marks", lambda m: m.line_marks(text))
        both("fineweb_counts", lambda m: m.fineweb_counts(text, self.terminal, 30))
        stop_chars = rng.choice((self.terminal, (".",), ("",), (), ("..", "!"), tuple(text[:3]), ("\n",)))
        short = rng.choice((-1, 0, 1, 30, 200, 30.0, 2 ** 40))
        both("fineweb_counts:random", lambda m: m.fineweb_counts(text, stop_chars, short))
        both("word_counts", lambda m: m.word_counts(words, self.stop))
        both("word_counts:odd", lambda m: m.word_counts(odd_words, set(odd_words[::7])))
        splitlines = text.splitlines()
        both("c4_lines", lambda m: m.c4_lines(splitlines, True, False, 3, 1000, True, True, True, True))
        flags = [rng.random() < 0.5 for _ in range(6)]
        min_words = rng.choice((0, 1, 3, 5, -1))
        max_len = rng.choice((-1, 0, 1, 5, 1000))
        both("c4_lines:random", lambda m: m.c4_lines(lines, flags[0], flags[1], min_words, max_len, *flags[2:]))
        for wname, wl in (("words", words), ("odd", odd_words)):
            counts_c = _outcome(lambda: c.NGramCounts(wl))
            counts_r = _outcome(lambda: r.NGramCounts(wl))
            ns = [2, 3, 4, rng.randint(-1, 12)]
            for n in ns:
                cmp(f"NGramCounts.top:{wname}",
                    _outcome(lambda: counts_c[1].top(n)) if counts_c[0] == "ok" else counts_c,
                    _outcome(lambda: counts_r[1].top(n)) if counts_r[0] == "ok" else counts_r)
            # n < 1: datatrove's find_all_duplicate never ends (its window does not move), in both engines
            for n in (5, 6, 7, 8, 9, 10, rng.randint(1, 12)):
                cmp(f"NGramCounts.all_duplicate:{wname}",
                    _outcome(lambda: counts_c[1].all_duplicate(n)) if counts_c[0] == "ok" else counts_c,
                    _outcome(lambda: counts_r[1].all_duplicate(n)) if counts_r[0] == "ok" else counts_r)
        both("find_duplicates", lambda m: m.find_duplicates(lines))
        n = rng.randint(1, 4)
        both("find_top_duplicate", lambda m: m.find_top_duplicate(r.get_n_grams(words, n)))
        n2 = rng.randint(1, 11)
        both("find_all_duplicate", lambda m: m.find_all_duplicate(list(words), n2))
        both("find_all_duplicate:odd", lambda m: m.find_all_duplicate(list(odd_words), n2))
        n3 = rng.randint(-1, 6)
        both("get_n_grams", lambda m: m.get_n_grams(list(words[:2000]), n3))

        # --- the filters, engine="core" against engine="reference"
        if self.filters_every and index % self.filters_every == 0:
            for name, f in (("gopher_repetition_filter", r.gopher_repetition_filter),
                            ("gopher_quality_filter", r.gopher_quality_filter),
                            ("fineweb_quality_filter", r.fineweb_quality_filter)):
                cmp(name, _outcome(lambda: f(text, engine="core")), _outcome(lambda: f(text, engine="reference")))
            for punct in (True, False):
                cmp(f"c4_quality_filter:terminal={punct}",
                    _outcome(lambda: r.c4_quality_filter(text, filter_no_terminal_punct=punct, engine="core")),
                    _outcome(lambda: r.c4_quality_filter(text, filter_no_terminal_punct=punct, engine="reference")))


# --------------------------------------------------------------------------- the child


def save_repro(text: str, name: str) -> Path:
    """Keep an input under repros/fuzz-fineweb/ (UTF-8, lone surrogates passed through)."""
    REPROS.mkdir(parents=True, exist_ok=True)
    path = REPROS / f"{name}.txt"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def _child(args: argparse.Namespace) -> int:
    import faulthandler

    faulthandler.enable()
    state = Path(args.state)
    unraisable: List[str] = []

    def hook(u):  # an error in a noexcept function: printed and swallowed by Cython
        unraisable.append(f"{type(u.exc_value).__name__}: {u.exc_value} in {u.object!r}"[:300])

    sys.unraisablehook = hook
    ex = Exerciser(api_every=args.api_every, filters_every=args.filters_every)
    inputs = Inputs(args.texts or [])
    seg = state / f"seg-{args.seed}-{args.chunk_index:05d}-{args.start:06d}.json"
    cur_fd = os.open(state / "current.txt", os.O_WRONLY | os.O_CREAT, 0o644)
    t0 = time.time()
    last_unraisable = 0

    def checkpoint(end: int) -> None:
        data = {"seed": args.seed, "chunk": args.chunk_index, "start": args.start, "end": end,
                "seconds": round(time.time() - t0, 2), "counts": dict(ex.counts), "diffs": ex.diffs,
                "unraisable": unraisable[:20], "n_unraisable": len(unraisable)}
        tmp = seg.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, seg)

    end = args.start
    skip = set(args.skip or [])
    for k, (label, text) in enumerate(inputs.chunk(args.seed, args.chunk_index, args.size)):
        if k < args.start:
            continue
        if k in skip:  # it crashed a child before: counted once, in the crash list
            ex.counts["inputs"] += 1
            ex.counts["crashed_inputs"] += 1
            end = k + 1
            continue
        data = f"{k:09d}\n{label}\n".encode() + text.encode("utf-8", "surrogatepass")
        os.ftruncate(cur_fd, 0)
        os.pwrite(cur_fd, data, 0)
        rng = random.Random(f"fuzz-fineweb-args:{args.seed}:{args.chunk_index}:{k}")
        ex.run(text, k, label, rng)
        if ex.new_diffs or len(unraisable) > last_unraisable:
            name = f"{args.campaign}-{args.seed}-{args.chunk_index}-{k}"
            path = save_repro(text, name)
            for d in ex.new_diffs:
                print(f"DIFFERENCE in {d['function']} at input {k} ({label}): compiled {d['compiled']} "
                      f"reference {d['reference']}\n  input {_short(text, 500)} -> {portable_path(path)}", flush=True)
            for u in unraisable[last_unraisable:]:
                print(f"UNRAISABLE at input {k} ({label}): {u}\n  input {_short(text, 500)} -> {portable_path(path)}",
                      flush=True)
            ex.new_diffs = []
            last_unraisable = len(unraisable)
        end = k + 1
        if end % CHECKPOINT == 0:
            checkpoint(end)
    checkpoint(end)
    return 0


# --------------------------------------------------------------------------- the parent


def module_files() -> Dict[str, str]:
    """The compiled modules the children will load, found without importing them (that needs the runtime)."""
    code = ("import importlib.util as u, json; "
            f"print(json.dumps({{m: (u.find_spec(m).origin if u.find_spec(m) else '') for m in {MODULES!r}}}))")
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    files = json.loads(out.stdout.strip() or "{}")
    missing = [m for m in MODULES if not files.get(m)]
    if missing:
        raise SystemExit(f"not built: {', '.join(missing)} ({out.stderr.strip()[-300:]})")
    return files


def _done_upto(state: Path, seed: int, chunk: int) -> int:
    """Where a chunk resumes: the end of its last checkpoint. After a crash the inputs between that
    checkpoint and the crash run again (their counts died with the child), the crashed ones skipped."""
    ends = [s["end"] for s in _segments(state) if s["seed"] == seed and s["chunk"] == chunk]
    return max(ends + [0])


def _crashed(state: Path, seed: int, chunk: int) -> List[int]:
    return sorted(c["index"] for c in _crashes(state) if c["seed"] == seed and c["chunk"] == chunk)


def run_campaign(args: argparse.Namespace, argv: List[str]) -> int:

    state = STATE / args.campaign
    state.mkdir(parents=True, exist_ok=True)
    files = module_files()
    preload, compiler = sanitizer_runtime(files["trafila._tokenizer_en"])
    other, _ = sanitizer_runtime(files["trafila._quality"])
    if (preload is None or other is None) and not args.allow_plain:
        raise SystemExit("the FineWeb twins are not a sanitizer build (tox -e fineweb-asan builds one); "
                         "--allow-plain runs them anyway")
    texts = [os.path.abspath(t) for t in args.texts or []]
    meta = {"campaign": args.campaign, "seed": args.seed, "n": args.n, "chunk": args.chunk,
            "api_every": args.api_every, "filters_every": args.filters_every,
            "texts": [portable_path(t) for t in texts],
            "command": portable_command(["python", "-m", "harness", "fuzz-fineweb", *argv]),
            "compiler": compiler, "preload": os.path.basename(preload or ""), "c_source": c_source_id()}
    (state / "meta.json").write_text(json.dumps(meta, indent=1))
    env = child_env(state, preload)
    chunks = (args.n + args.chunk - 1) // args.chunk
    deadline = time.time() + args.max_time if args.max_time else None
    try:
        for c in range(chunks):
            size = min(args.chunk, args.n - c * args.chunk)
            while True:
                start = _done_upto(state, args.seed, c)
                if start >= size or (deadline and time.time() > deadline):
                    break
                cmd = [sys.executable, "-m", "harness.fuzz_fineweb", "_child", "--state", str(state),
                       "--campaign", args.campaign, "--seed", str(args.seed), "--chunk-index", str(c),
                       "--size", str(size), "--start", str(start), "--api-every", str(args.api_every),
                       "--filters-every", str(args.filters_every)]
                for t in texts:
                    cmd += ["--texts", t]
                for k in _crashed(state, args.seed, c):
                    if k >= start:
                        cmd += ["--skip", str(k)]
                before = set(glob.glob(str(state / "san" / "*")))
                timeout = None if not deadline else max(1.0, deadline - time.time())
                try:
                    proc = subprocess.run(cmd, env=env, cwd=ROOT, stdout=None, stderr=subprocess.PIPE, text=True,
                                          timeout=timeout)
                except subprocess.TimeoutExpired:
                    break  # the deadline: the checkpoints keep what was done
                logs = sorted(set(glob.glob(str(state / "san" / "*"))) - before)
                if proc.returncode == 0 and not logs:
                    continue
                pos = int((state / "current.txt").read_bytes().split(b"\n", 1)[0] or 0)
                if pos in _crashed(state, args.seed, c):  # a child that dies before its first input, say
                    print((proc.stderr or "")[-5000:], file=sys.stderr)
                    raise SystemExit(f"a child failed again at input {pos} of chunk {c}, which it skips: "
                                     f"not an input's crash (rc {proc.returncode}); stopping")
                _record_crash(state, args, c, proc, logs)
                if proc.returncode == 0:
                    continue
            print(f"{args.campaign}: chunk {c + 1}/{chunks}: {_summary_line(state)}", flush=True)
            if deadline and time.time() > deadline:
                print(f"{args.campaign}: --max-time reached; the same command resumes", flush=True)
                break
    finally:
        write_report()
    return 0


def _record_crash(state: Path, args, chunk: int, proc, logs: List[str]) -> None:
    raw = (state / "current.txt").read_bytes()
    head, label, body = raw.split(b"\n", 2)
    pos = int(head)
    text = body.decode("utf-8", "surrogatepass")
    name = f"{args.campaign}-{args.seed}-{chunk}-{pos}"
    path = save_repro(text, name)
    report = "".join(Path(p).read_text(errors="replace") for p in logs)
    (path.with_suffix(".log")).write_text(report + "\n--- stderr ---\n" + (proc.stderr or "")[-20000:])
    kind, first_line = classify_crash(report, logs, proc.stderr)
    crashes = _crashes(state)
    crashes.append({"seed": args.seed, "chunk": chunk, "index": pos, "label": label.decode(), "kind": kind,
                    "returncode": proc.returncode, "repro": portable_path(path), "first_line": first_line})
    (state / "crashes.json").write_text(json.dumps(crashes, indent=1))
    print(f"CRASH ({kind}, rc {proc.returncode}) at input {pos} of chunk {chunk} ({label.decode()}): "
          f"{crashes[-1]['first_line']}\n  input {_short(text, 500)} -> {portable_path(path)}", flush=True)


def totals(state: Path) -> dict:
    counts: Counter = Counter()
    secs = 0.0
    unraisable = 0
    diffs: List[dict] = []
    for s in _segments(state):
        counts.update(s["counts"])
        secs += s["seconds"]
        unraisable += s.get("n_unraisable", 0)
        diffs += s.get("diffs", [])
    crashes = _crashes(state)
    return {"counts": dict(sorted(counts.items())), "seconds": round(secs, 1), "unraisable": unraisable,
            "crashes": len(crashes), "sanitizer_reports": sum(1 for c in crashes if c["kind"] in ("asan", "ubsan")),
            "crash_list": crashes, "diffs": diffs[:20]}


def _summary_line(state: Path) -> str:
    t = totals(state)
    c = t["counts"]
    return (f"{c.get('inputs', 0):,} inputs, {c.get('comparisons', 0):,} comparisons, {c.get('differences', 0)} "
            f"differences, {t['sanitizer_reports']} sanitizer reports, {t['crashes']} crashes, "
            f"{t['unraisable']} unraisable, {t['seconds']:.0f} s")


def _every(k: int) -> str:
    return "no input" if k <= 0 else "every input" if k == 1 else f"every {k}th input"


def write_report(out_dir: Path = REPORTS) -> dict:
    campaigns = {}
    for d in sorted(STATE.glob("*/meta.json")):
        meta = json.loads(d.read_text())
        campaigns[meta["campaign"]] = dict(meta=meta, **totals(d.parent))
    build: Dict[str, Any] = {}
    try:
        for mod, f in module_files().items():
            info = build_info(f)
            build[mod] = {"file": portable_path(f), "optimisation": info.get("optimisation"),
                          "sanitize_flags": sorted({x for p in info.get("producers", []) for x in p.split()
                                                    if x.startswith("-fsan")})}
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a report without the build info still says what ran
        build = {"error": str(exc)[:300]}
    grand: Counter = Counter()
    for c in campaigns.values():
        for key in ("inputs", "comparisons", "differences"):
            grand[key] += c["counts"].get(key, 0)
        grand["sanitizer_reports"] += c["sanitizer_reports"]
        grand["crashes"] += c["crashes"]
        grand["unraisable"] += c["unraisable"]
    data = stamped({"build": build, "totals": dict(grand), "campaigns": campaigns},
                   command="python -m harness fuzz-fineweb")
    out_dir.mkdir(exist_ok=True)
    write_report_json(out_dir / "fuzz-fineweb.json", data)
    lines = ["# The FineWeb twins under AddressSanitizer and UBSan", "",
             "Written by `python -m harness fuzz-fineweb` (never by hand; `tox -e fineweb-asan` builds "
             "`trafila._tokenizer_en` and `trafila._quality` with `TRAFILA_CORE_ASAN=1` and runs it). Every batch "
             "runs in a child process with the sanitizer runtime preloaded, `detect_leaks=0`, `halt_on_error=1`: "
             "a sanitizer report ends the child and is counted. Each input goes through the compiled tokenizer "
             "(`tokenize`, `word_tokenize`, `span_tokenize`, `sent_tokenize`, and the public `EnglishTokenizer`) and "
             "every compiled quality function and filter, each result compared with the reference engine's.", "",
             f"- written {data['date']}, commit {data['commit']}, Python {data['python']}"]
    for mod, b in build.items():
        if isinstance(b, dict):
            lines.append(f"- `{mod}`: `{b['file']}`, optimisation {b['optimisation']}, "
                         f"sanitizers {' '.join(b['sanitize_flags']) or 'none'}")
    lines += ["", "| campaign | inputs | comparisons | differences | sanitizer reports | crashes | unraisable "
              "| CPU-bound seconds |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, c in campaigns.items():
        k = c["counts"]
        lines.append(f"| {name} | {k.get('inputs', 0):,} | {k.get('comparisons', 0):,} | {k.get('differences', 0):,} "
                     f"| {c['sanitizer_reports']} | {c['crashes']} | {c['unraisable']} | {c['seconds']:,.0f} |")
    lines += [f"| **all** | **{grand['inputs']:,}** | **{grand['comparisons']:,}** | **{grand['differences']:,}** "
              f"| **{grand['sanitizer_reports']}** | **{grand['crashes']}** | **{grand['unraisable']}** | |", ""]
    for name, c in campaigns.items():
        m = c["meta"]
        lines += [f"## {name}", "", f"- command: `{m['command']}`",
                  f"- runtime preloaded: `{m.get('preload')}` ({m.get('compiler')} build); C sources "
                  f"`cython_core/` + `setup.py` {m.get('c_source') or '(uncommitted changes)'}",
                  f"- seed {m['seed']}, target {m['n']:,} inputs in chunks of {m['chunk']:,}; the public "
                  f"EnglishTokenizer on {_every(m['api_every'])}, the four filters on {_every(m['filters_every'])}; "
                  f"real texts mutated: {', '.join(m['texts']) or 'none'}"]
        per_fn = {k.split(":", 1)[1]: v for k, v in c["counts"].items() if k.startswith("compared:")}
        lines.append("- comparisons by function: " + ", ".join(f"{k} {v:,}" for k, v in sorted(per_fn.items())))
        raises = {k[len("raise:"):]: v for k, v in c["counts"].items() if k.startswith("raise:")}
        if raises:
            lines.append("- exceptions the compiled side raised (the reference raised the same unless counted "
                         "as a difference): " + ", ".join(f"{k} {v:,}" for k, v in sorted(raises.items())))
        for x in c["crash_list"]:
            lines.append(f"- **crash** ({x['kind']}, rc {x['returncode']}) chunk {x['chunk']} input {x['index']} "
                         f"({x['label'][:80]}): {x['first_line']} (`{x['repro']}`)")
        for x in c["diffs"]:
            lines.append(f"- **difference** in {x['function']} at input {x['index']} ({x['label'][:80]}): "
                         f"compiled {x['compiled'][:150]}, reference {x['reference'][:150]}")
        lines.append("")
    write_report_text(out_dir / "fuzz-fineweb.md", "\n".join(lines))
    return data


# --------------------------------------------------------------------------- command line


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("what", nargs="?", default="run", choices=("run", "report", "tests", "_child"),
                    help="run (default): the campaign, resumable; report: rewrite reports/fuzz-fineweb.md; "
                         "tests [FILE ...]: pytest under the sanitizer runtime (default: the FineWeb twins' tests)")
    ap.add_argument("files", nargs="*", help="tests: the test files")
    ap.add_argument("--campaign", default="generated")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=43)
    ap.add_argument("--chunk", type=int, default=5_000)
    ap.add_argument("--texts", action="append", help="a .jsonl.gz of {'text': ...} whose texts are mutated too")
    ap.add_argument("--api-every", type=int, default=10, help="the public EnglishTokenizer every Kth input (0: never)")
    ap.add_argument("--filters-every", type=int, default=1, help="the four filters every Kth input (0: never)")
    ap.add_argument("--max-time", type=float, default=0, help="stop after this many seconds (resumable)")
    ap.add_argument("--allow-plain", action="store_true", help="run even if the twins are not a sanitizer build")
    ap.add_argument("--state")
    ap.add_argument("--chunk-index", type=int)
    ap.add_argument("--size", type=int)
    ap.add_argument("--start", type=int)
    ap.add_argument("--skip", type=int, action="append", help="(child) inputs that crashed a child before")


def run_tests(files: List[str]) -> int:
    """pytest on ``files`` in a child with the sanitizer runtime preloaded (as the fuzzing children):
    fails on a failed test or on any sanitizer report (their logs are printed)."""

    state = STATE / "_tests"
    preload, _ = sanitizer_runtime(module_files()["trafila._tokenizer_en"])
    if preload is None:
        raise SystemExit("the FineWeb twins are not a sanitizer build (tox -e fineweb-asan builds one)")
    env = child_env(state, preload)
    before = set(glob.glob(str(state / "san" / "*")))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files], env=env, cwd=ROOT)
    logs = sorted(set(glob.glob(str(state / "san" / "*"))) - before)
    for p in logs:
        print(Path(p).read_text(errors="replace")[-5000:])
    print(f"pytest under {os.path.basename(preload)}: rc {proc.returncode}, {len(logs)} sanitizer reports", flush=True)
    return 1 if proc.returncode or logs else 0


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    if args.what == "_child":
        return _child(args)
    if args.what == "tests":
        return run_tests(args.files or ["tests/test_fineweb_tokenizer.py", "tests/test_fineweb_quality.py"])
    if args.what == "report":
        data = write_report()
        print(f"reports/fuzz-fineweb.md: {data['totals']}")
        return 0
    return run_campaign(args, list(argv or []))


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.fuzz_fineweb")
    add_arguments(ap)
    argv = sys.argv[1:] if argv is None else argv
    return run(ap.parse_args(argv), argv)


if __name__ == "__main__":
    sys.exit(main())
