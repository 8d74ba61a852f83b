"""``python -m harness filters``: datatrove 0.10.1's quality filters, stock against trafila's.

For each step -- ``GopherRepetitionFilter``, ``GopherQualityFilter``, ``C4QualityFilter`` (as
datatrove's FineWeb example builds it, ``filter_no_terminal_punct=False``, and with its
defaults), ``FineWebQualityFilter`` -- datatrove's own step and trafila's
(``trafila.integrations.datatrove_quality``) each ``run()`` over the same documents, in one
process, with a ``JsonlWriter`` as exclusion writer. Compared, per document: the decision
(forwarded, or dropped and why), the statistics the step writes for it (every ``stat_update``,
its label, value and unit, in order: C4's line statistics, ``doc_len``, ...) and the text it
forwards (C4 rewrites it); per step: the statistics (timings aside) and the exclusion writer's
files, byte for byte. Timed: the step's own time statistic (its ``filter`` calls), stock over
trafila (> 1: trafila is faster).

The documents: (a) the text trafila's extraction gives for every dev page in each mode
(``trafila.extract(page, favor_precision=True, include_comments=False, deduplicate=False,
compat=MODE)``, datatrove's call; pages whose extraction is empty or raises are left out),
made once and cached under ``.cache/filters/``; (b) ``--generated N`` texts drawn by
Hypothesis (:func:`text_strategy`: lines, blank lines, bullets, ellipses, ``#``, URLs,
contractions, numbers, repeated lines, paragraphs and n-grams, every Unicode category but
surrogates, every ``splitlines`` separator). When ``trafila.fineweb.tokenizer`` exists, the
English tokenizer alone is compared too (words and sentence spans against datatrove's
``SpaCyTokenizer("en")``). The stock fall-backs counted: calls of datatrove's tokenizer for
non-English languages (``trafila.fineweb.text.STOCK_TOKENIZER_CALLS``) and texts the
tokenizer hands to the stock spaCy (``trafila.fineweb.tokenizer.stock_calls()``).

Exit status 1 on any difference. ``reports/filters.md`` and ``.json`` (``--no-report``: none).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from .provenance import loadavg, portable_command, stamped, write_report_json, write_report_text

ROOT = Path(__file__).resolve().parent.parent
REPORTS_DIR = ROOT / "reports"
CACHE_DIR = ROOT / ".cache" / "filters"
MODES = ("2.3.1", "1.11.0")

#: the steps compared: name -> (datatrove class name, constructor arguments)
STEPS: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "gopher-repetition": ("GopherRepetitionFilter", {}),
    "gopher-quality": ("GopherQualityFilter", {}),
    "c4": ("C4QualityFilter", {"filter_no_terminal_punct": False}),
    "c4-default": ("C4QualityFilter", {}),
    "fineweb": ("FineWebQualityFilter", {}),
}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--step", action="append", dest="steps", choices=sorted(STEPS),
                    help="a step to compare (repeatable; default: all)")
    ap.add_argument("--mode", action="append", dest="modes", choices=MODES,
                    help="the extraction mode whose texts are used (repeatable; default: both)")
    ap.add_argument("--generated", type=int, default=2000, help="Hypothesis-generated texts (default 2000)")
    ap.add_argument("--seed", type=int, default=0, help="the generator's seed (default 0)")
    ap.add_argument("--every", type=int, default=1, help="every K-th dev text (default 1)")
    ap.add_argument("--limit", type=int, default=None, help="at most N dev texts per mode")
    ap.add_argument("--quick", action="store_true",
                    help="a quick check: every 20th dev text, 200 generated texts, no tokenizer pass")
    ap.add_argument("--texts", action="append", type=Path, default=None,
                    help="read the dev texts from this JSON Lines file ({id, text} per line, gzip or not) "
                         "instead of extracting them (repeatable; replaces --mode)")
    ap.add_argument("--no-tokenizer", dest="tokenizer", action="store_false", help="skip the tokenizer pass")
    ap.add_argument("--no-report", dest="report", action="store_false", help="do not write reports/")
    ap.add_argument("--report-dir", type=Path, default=REPORTS_DIR)
    ap.add_argument("--bundle", action="append", dest="bundles", help="bundle name (repeatable); default: all")
    ap.add_argument("--embedded", action="store_true", default=None, help="use the committed embedded corpus")


# --------------------------------------------------------------------------- the texts


#: what the extraction is made of: these paths in the checkout, the FineWeb steps' own code aside
_EXTRACTION_PATHS = ("reference/trafila", "cython_core", "setup.py")
_NOT_EXTRACTION = ("reference/trafila/fineweb", "reference/trafila/integrations", "cython_core/fineweb")


def extraction_source_id() -> str:
    """The git object ids of the extraction's code (trafila's packages and the core's sources,
    the FineWeb steps aside), and whether those files have uncommitted changes and the core is
    built: the texts cached for one id are the texts the extraction gives."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout

    listing = git("ls-tree", "-r", "HEAD", "--", *_EXTRACTION_PATHS).splitlines()
    kept = [line for line in listing if not line.split("\t", 1)[-1].startswith(_NOT_EXTRACTION)]
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", *_EXTRACTION_PATHS,
                *(f":!{p}" for p in _NOT_EXTRACTION))
    from trafila import _engine

    return hashlib.sha256(("\n".join(kept) + "\n" + dirty + "\n" + ",".join(_engine.engines_built()))
                          .encode()).hexdigest()[:16]


def _cache_key(mode: str, bundles: Optional[List[str]], embedded: Optional[bool]) -> str:
    from .corpora import bundle_paths, load_pins

    pins = load_pins()
    parts = [mode, extraction_source_id()]
    for path in bundle_paths(bundles, embedded=embedded):
        name = path.name[: -len(".jsonl.gz")]
        parts.append(f"{name}:{pins.get(name, {}).get('sha256') or (path.stat().st_size if path.exists() else '-')}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def extracted_texts(mode: str, bundles: Optional[List[str]] = None, embedded: Optional[bool] = None,
                    progress: bool = True) -> Tuple[List[Tuple[str, str]], Dict[str, Any]]:
    """(id, text) of every dev page whose extraction in ``mode`` is not empty, in corpus order,
    and how they were made; cached in ``.cache/filters/`` by mode, commit and bundle pins."""
    from .corpora import bundle_name, bundle_paths, iter_pages

    path = CACHE_DIR / f"texts-{mode}-{_cache_key(mode, bundles, embedded)}.jsonl.gz"
    info: Dict[str, Any] = {"mode": mode, "cache": path.name}
    if path.exists():
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            head = json.loads(fh.readline())
            texts = [tuple(json.loads(line)) for line in fh]
        info.update(head, cached=True)
        return texts, info  # type: ignore[return-value]
    import trafila

    texts = []
    pages = failed = empty = 0
    names = []
    start = time.perf_counter()
    for bundle in bundle_paths(bundles, embedded=embedded):
        names.append(bundle_name(bundle))
        for page in iter_pages(bundle):
            pages += 1
            try:
                text = trafila.extract(page.raw, favor_precision=True, include_comments=False, deduplicate=False,
                                       compat=mode)
            except Exception:  # noqa: BLE001 - a page whose extraction raises has no text
                failed += 1
                continue
            if not text:
                empty += 1
                continue
            texts.append((page.id, text))
            if progress and pages % 1000 == 0:
                print(f"  extracted {pages} pages ({mode})", flush=True)
    head = {"pages": pages, "texts": len(texts), "empty": empty, "raised": failed, "bundles": names,
            "extract_seconds": round(time.perf_counter() - start, 1)}
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(head) + "\n")
        for item in texts:
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    info.update(head, cached=False)
    return texts, info


def read_texts(path: Path) -> List[Tuple[str, str]]:
    """(id, text) from a JSON Lines file of ``{"id", "text"}`` records (gzip when named .gz)."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
        return [(rec["id"], rec["text"]) for rec in map(json.loads, fh)]


#: words the generator strings together: stop words, contractions, numbers, URLs, symbols,
#: the phrases C4 looks for, citations, bullets, ellipses
WORDS = (
    "the", "be", "to", "of", "and", "that", "have", "with", "The", "a", "cat", "Dog", "running", "house", "x",
    "I'm", "don't", "can't", "we'll", "it's", "O'Neil", "U.S.", "e.g.", "etc.", "Mr.", "3.14", "1,000", "42",
    "2024", "-5", "10%", "$20", "https://example.com/path?q=1&b=2", "www.example.org", "user@example.com",
    "#", "#tag", "##", "...", "…", "-", "•", "—", "(", ")", '"', "'", "lorem", "ipsum", "Lorem ipsum",
    "javascript", "JavaScript", "privacy policy", "terms of use", "uses cookies", "{", "}", "[1]", "[edit]",
    "[citation needed]", "[]", "[12]", "!", "?", ".", ",", ";", ":", "extraordinarily", "ａｂｃ", "naïve",
    "Straße", "日本語", "😀", ":)", "a.b", "c'mon", "'s", "n't", "IS_ALPHA",
)
LINE_SEPARATORS = ("\n", "\n", "\n", "\n\n", "\n\n\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e",
                   "\x85", "\u2028", "\u2029", " \n ", "\t\n", "\n \n")
PREFIXES = ("", "", "", "• ", "- ", "  • ", "-", "\t- ", "# ", "## ", " ")
SUFFIXES = ("", ".", ".", "!", "?", "...", "…", '"', "'", ". ", "。", " [1]", ".[2]", "{", ":", "... ", "?!")
WORD_JOINERS = (" ", " ", " ", "  ", "\t", "\u00a0", "", " - ")


PROSE = ("the", "of", "and", "to", "with", "that", "have", "be", "people", "morning", "garden", "written",
         "across", "river", "quickly", "because", "different", "another", "through", "between", "important",
         "city", "would", "should", "about", "their", "there", "which", "first", "water", "little", "world",
         "in", "a", "is", "it", "for", "on", "was", "as", "by", "from", "this", "year", "said")
#: PROSE without GopherQualityFilter's stop words
PROSE_NO_STOP = tuple(w for w in PROSE if w not in ("the", "be", "to", "of", "and", "that", "have", "with"))


def text_strategy() -> Any:
    """A Hypothesis strategy of texts for the quality filters (see the module docstring): a few
    lines, repeated in some order with line separators between them, each a prefix (bullets,
    ``#``), words (prose, the tokens in WORDS, any characters but surrogates, numbers, a rare
    1,001-character word) and a suffix (terminal punctuation, ellipses, citations, ``{``)."""
    from hypothesis import strategies as st

    chars = st.characters(blacklist_categories=("Cs",))
    any_word = st.one_of(st.sampled_from(WORDS), st.sampled_from(WORDS), st.sampled_from(WORDS),
                         st.text(chars, min_size=1, max_size=8), st.integers(0, 10 ** 6).map(str))

    @st.composite
    def texts(draw: Any) -> str:
        prose = draw(st.integers(0, 9))  # in 10 parts: how many words come from PROSE
        vocabulary = draw(st.sampled_from((PROSE, PROSE, PROSE_NO_STOP)))
        long_words = draw(st.booleans()) and draw(st.booleans())
        words_per_line = draw(st.sampled_from((4, 12, 25)))

        def line() -> str:
            words = []
            for _ in range(draw(st.integers(0, words_per_line))):
                if long_words and draw(st.integers(0, 30)) == 0:
                    words.append(draw(st.sampled_from(("x" * 1001, "y" * 40, "z" * 12))))
                elif draw(st.integers(0, 9)) < prose:
                    words.append(draw(st.sampled_from(vocabulary)))
                else:
                    words.append(draw(any_word))
            return draw(st.sampled_from(PREFIXES)) + draw(st.sampled_from(WORD_JOINERS)).join(words) + draw(
                st.sampled_from(SUFFIXES))

        pool = [line() for _ in range(draw(st.integers(1, 10)))]
        n_lines = draw(st.integers(1, draw(st.sampled_from((5, 30, 80)))))
        out = [pool[draw(st.integers(0, len(pool) - 1))] + draw(st.sampled_from(LINE_SEPARATORS))
               for _ in range(n_lines)]
        if draw(st.booleans()):  # a block repeated: repeated paragraphs and n-grams
            out = out + out[: draw(st.integers(1, len(out)))]
        text = "".join(out)
        return draw(st.sampled_from(("", " ", "\n"))) + text if draw(st.booleans()) else text

    return texts()


def generated_texts(n: int, seed: int) -> List[Tuple[str, str]]:
    """``n`` texts drawn by :func:`text_strategy` with ``seed`` (fewer if Hypothesis runs out)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    out: List[str] = []

    @hseed(seed)
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(text_strategy())
    def collect(text: str) -> None:
        out.append(text)

    collect()
    return [(f"generated/{seed}/{i}", t) for i, t in enumerate(out[:n])]


# --------------------------------------------------------------------------- one step, both sides


def _make(side: str, step: str, exclusion_dir: Path) -> Any:
    from datatrove.pipeline.writers import JsonlWriter

    cls_name, kwargs = STEPS[step]
    if side == "stock":
        import datatrove.pipeline.filters as module
    else:
        import trafila.integrations.datatrove_quality as module  # type: ignore[no-redef]
    return getattr(module, cls_name)(exclusion_writer=JsonlWriter(str(exclusion_dir), compression=None), **kwargs)


#: the labels BaseFilter.run writes after a document's filter call
_AFTER = ("total", "forwarded", "dropped", "doc_len", "doc_len_tokens")


def run_side(side: str, step: str, docs: Sequence[Tuple[str, str]], work: Path) -> Dict[str, Any]:
    """Run one side's step over ``docs``; per document its statistics events and forwarded text."""
    from datatrove.data import Document

    folder = work / f"{side}-{step}"
    instance = _make(side, step, folder)
    events: List[Tuple[str, Any, Any]] = []
    original = instance.stat_update

    def record(*labels: str, value: int = 1, unit: Optional[str] = None) -> None:
        events.extend((label, value, unit) for label in labels)
        original(*labels, value=value, unit=unit)

    instance.stat_update = record  # the instance's, shadowing the method: both sides alike
    documents = [Document(text=text, id=doc_id) for doc_id, text in docs]
    start = time.perf_counter()
    out = [(d.id, d.text) for d in instance.run(iter(documents))]
    wall = time.perf_counter() - start
    per_doc: List[List[Tuple[str, Any, Any]]] = [[] for _ in docs]
    k = 0
    after = False
    for event in events:
        label = event[0]
        if after and (label == "total" or not (label in _AFTER or label.startswith("dropped_"))):
            k += 1
            after = False
        if label == "total":
            after = True
        per_doc[min(k, len(docs) - 1)].append(event)
    stats = instance.stats.to_dict()["stats"]
    files = {p.name: p.read_bytes() for p in sorted(folder.glob("*"))} if folder.exists() else {}
    return {"per_doc": per_doc, "forwarded": out, "stats": stats, "excluded": files,
            "seconds": instance.stats.time_stats.total, "wall": wall}


def _decision(events: List[Tuple[str, Any, Any]]) -> str:
    labels = [e[0] for e in events]
    if "forwarded" in labels:
        return "forwarded"
    reasons = [label for label in labels if label.startswith("dropped_")]
    return reasons[0] if reasons else ("dropped" if "dropped" in labels else "?")


def compare_step(step: str, docs: Sequence[Tuple[str, str]], work: Path) -> Dict[str, Any]:
    """Stock against trafila for one step over ``docs``: counts of differences and the times."""
    from trafila.fineweb import text as fw_text

    fallbacks_before = fw_text.STOCK_TOKENIZER_CALLS
    tok_before = _tokenizer_stock_calls()
    stock = run_side("stock", step, docs, work)
    ours = run_side("trafila", step, docs, work)
    decisions = statistics = 0
    examples: List[str] = []
    for (doc_id, _), a, b in zip(docs, stock["per_doc"], ours["per_doc"]):
        if _decision(a) != _decision(b):
            decisions += 1
            if len(examples) < 5:
                examples.append(f"{doc_id}: stock {_decision(a)}, trafila {_decision(b)}")
        elif a != b:
            statistics += 1
            if len(examples) < 5:
                examples.append(f"{doc_id}: statistics differ")
    forwarded_a = dict(stock["forwarded"])
    texts = sum(1 for doc_id, text in ours["forwarded"] if doc_id in forwarded_a and forwarded_a[doc_id] != text)
    order_equal = [i for i, _ in stock["forwarded"]] == [i for i, _ in ours["forwarded"]]
    dropped = sum(1 for events in stock["per_doc"] if _decision(events) != "forwarded")
    reasons: Dict[str, int] = {}
    for events in stock["per_doc"]:
        reasons[_decision(events)] = reasons.get(_decision(events), 0) + 1
    tok_after = _tokenizer_stock_calls()
    return {
        "step": step, "documents": len(docs), "dropped": dropped,
        "differing_decisions": decisions, "differing_statistics": statistics, "differing_texts": texts,
        "order_equal": order_equal, "step_statistics_equal": stock["stats"] == ours["stats"],
        "exclusion_files_equal": stock["excluded"] == ours["excluded"],
        "stock_fallbacks": (fw_text.STOCK_TOKENIZER_CALLS - fallbacks_before)
        + ((tok_after - tok_before) if tok_after is not None and tok_before is not None else 0),
        "stock_seconds": round(stock["seconds"], 3), "trafila_seconds": round(ours["seconds"], 3),
        "ratio": round(stock["seconds"] / ours["seconds"], 2) if ours["seconds"] else None,
        "examples": examples, "decisions": dict(sorted(reasons.items())),
    }


def _tokenizer_stock_calls() -> Optional[int]:
    try:
        from trafila.fineweb import tokenizer
    except ImportError:
        return None
    fn = getattr(tokenizer, "stock_calls", None)
    return fn() if callable(fn) else None


def step_ok(r: Dict[str, Any]) -> bool:
    return (not r["differing_decisions"] and not r["differing_statistics"] and not r["differing_texts"]
            and r["order_equal"] and r["step_statistics_equal"] and r["exclusion_files_equal"])


# --------------------------------------------------------------------------- the tokenizer alone


def compare_tokenizer(docs: Sequence[Tuple[str, str]]) -> Optional[Dict[str, Any]]:
    """Words and sentence spans of trafila's English tokenizer against datatrove's SpaCyTokenizer("en")."""
    try:
        from trafila.fineweb.tokenizer import english_tokenizer
    except ImportError:
        return None
    from datatrove.utils.word_tokenizers import load_word_tokenizer

    stock = load_word_tokenizer("en")  # SpaCyTokenizer("en"), warmed up by _warm_up
    ours = english_tokenizer()
    words = spans = 0
    examples: List[str] = []
    times = {"stock": 0.0, "trafila": 0.0}
    before = _tokenizer_stock_calls()
    for doc_id, text in docs:
        t0 = time.perf_counter()
        a = (stock.word_tokenize(text), stock.span_tokenize(text))
        t1 = time.perf_counter()
        b = (ours.word_tokenize(text), ours.span_tokenize(text))
        t2 = time.perf_counter()
        times["stock"] += t1 - t0
        times["trafila"] += t2 - t1
        if a[0] != b[0]:
            words += 1
        if list(map(tuple, a[1])) != list(map(tuple, b[1])):
            spans += 1
        if (a[0] != b[0] or list(map(tuple, a[1])) != list(map(tuple, b[1]))) and len(examples) < 5:
            examples.append(doc_id)
    after = _tokenizer_stock_calls()
    return {"documents": len(docs), "differing_words": words, "differing_spans": spans, "examples": examples,
            "stock_fallbacks": (after - before) if after is not None and before is not None else None,
            "stock_seconds": round(times["stock"], 3), "trafila_seconds": round(times["trafila"], 3),
            "ratio": round(times["stock"] / times["trafila"], 2) if times["trafila"] else None}


# --------------------------------------------------------------------------- the command


def _warm_up() -> None:
    # A spaCy pipeline reads a freed lexeme for the text IS_ALPHA after its first one: the first
    # such token a fresh tokenizer sees keeps its text, later ones make datatrove retry without
    # it (stock and trafila alike, each with its own pipeline). Two calls on each tokenizer put
    # both sides in that later state before either runs, so neither answers for a fresh pipeline.
    from datatrove.utils.word_tokenizers import load_word_tokenizer

    tokenizers = [load_word_tokenizer("en"), load_word_tokenizer("eng")]
    try:
        from trafila.fineweb.tokenizer import english_tokenizer

        tokenizers.append(english_tokenizer())
    except ImportError:
        pass
    for tok in tokenizers:
        for _ in range(2):
            for call in (tok.word_tokenize, tok.span_tokenize):
                try:
                    call("IS_ALPHA")
                except Exception:  # noqa: BLE001
                    pass


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    try:
        import datatrove  # noqa: F401
        import spacy  # noqa: F401
    except ImportError:
        print("filters: needs datatrove 0.10.1 and spacy (tox -e datatrove)")
        return 2
    from trafila.fineweb import quality

    steps = args.steps or list(STEPS)
    every, generated, tokenizer = args.every, args.generated, args.tokenizer
    if args.quick:
        every, generated, tokenizer = max(every, 20), min(generated, 200), False
    corpora: List[Tuple[str, List[Tuple[str, str]], Dict[str, Any]]] = []
    if args.texts:
        for path in args.texts:
            texts = read_texts(path)[::every][: args.limit]
            corpora.append((path.name, texts, {"file": path.name, "texts": len(texts)}))
    else:
        for mode in args.modes or MODES:
            texts, info = extracted_texts(mode, args.bundles, args.embedded)
            texts = texts[::every][: args.limit]
            corpora.append((f"extraction {mode}", texts, info))
    if generated:
        t0 = time.perf_counter()
        gen = generated_texts(generated, args.seed)
        corpora.append((f"generated (seed {args.seed})", gen,
                        {"texts": len(gen), "seed": args.seed, "seconds": round(time.perf_counter() - t0, 1)}))
    _warm_up()
    engine = quality.default_engine()
    print(f"filters: trafila engine {engine}; steps {', '.join(steps)}; "
          + "; ".join(f"{name}: {len(t)} texts" for name, t, _ in corpora), flush=True)
    results: List[Dict[str, Any]] = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="trafila-filters-") as tmp:
        for k, (name, texts, info) in enumerate(corpora):
            for step in steps:
                r = compare_step(step, texts, Path(tmp) / f"{k}")
                r["corpus"] = name
                results.append(r)
                ok = ok and step_ok(r)
                print(f"  {name:24s} {step:18s} {r['documents']:6d} docs ({r['dropped']} dropped): decisions "
                      f"{r['differing_decisions']}, statistics {r['differing_statistics']}, texts "
                      f"{r['differing_texts']}, step statistics equal {r['step_statistics_equal']}, exclusions "
                      f"equal {r['exclusion_files_equal']}, fall-backs {r['stock_fallbacks']}; stock "
                      f"{r['stock_seconds']} s, trafila {r['trafila_seconds']} s, x{r['ratio']}", flush=True)
                for example in r["examples"]:
                    print(f"      {example}")
    tok = None
    if tokenizer:
        tok = [dict(compare_tokenizer(texts) or {}, corpus=name) for name, texts, _ in corpora]
        tok = [t for t in tok if "documents" in t] or None
        for t in tok or ():
            ok = ok and not t["differing_words"] and not t["differing_spans"]
            print(f"  tokenizer {t['corpus']:24s} {t['documents']} docs: words {t['differing_words']}, spans "
                  f"{t['differing_spans']}; stock {t['stock_seconds']} s, trafila {t['trafila_seconds']} s, "
                  f"x{t['ratio']}", flush=True)
    if args.report:
        command = "python -m harness filters " + portable_command(argv or [])
        write_report({"engine": engine, "steps": steps, "corpora": [dict(info, name=name) for name, _, info in corpora],
                      "results": results, "tokenizer": tok, "ok": ok, "quick": args.quick,
                      "cpus": os.cpu_count(), "loadavg_after": loadavg()}, command, args.report_dir)
    print("filters: " + ("no differences" if ok else "DIFFERENCES"))
    return 0 if ok else 1


def write_report(result: Dict[str, Any], command: str, out_dir: Path = REPORTS_DIR) -> None:
    """reports/filters.json and .md."""
    result = stamped(result, command)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_report_json(out_dir / "filters.json", result, ensure_ascii=False)
    write_report_text(out_dir / "filters.md", "\n".join(_markdown(result)) + "\n")


def _markdown(r: Dict[str, Any]) -> Iterator[str]:
    yield "# filters: datatrove 0.10.1's quality filters, stock against trafila's"
    yield ""
    yield ("Written by `python -m harness filters` (never by hand). Each step, datatrove's own and "
           "`trafila.integrations.datatrove_quality`'s, `run()` over the same documents in one process with a "
           "`JsonlWriter` as exclusion writer; compared per document: decision (forwarded, or the drop reason), "
           "every statistic written for it (label, value, unit, in order), the forwarded text; per step: the "
           "statistics (timings aside) and the exclusion files, byte for byte. Time: the step's own time statistic "
           "(its `filter` calls); ratio = stock / trafila, > 1: trafila is faster. `c4` is the FineWeb example's "
           "`C4QualityFilter(filter_no_terminal_punct=False)`, `c4-default` datatrove's defaults.")
    yield ""
    yield (f"- run: {r['date']}, commit {r['commit']}, Python {r['python']}, `{r['command']}`; trafila engine "
           f"{r['engine']}; {r['cpus']} CPUs shared with other processes (load after: `{r['loadavg_after']}`)")
    for c in r["corpora"]:
        extra = ""
        if "pages" in c:
            extra = (f": {c['texts']} texts from {c['pages']} dev pages ({c['empty']} empty, {c['raised']} raised) of "
                     f"{', '.join(c['bundles'])}")
        yield f"- {c['name']}{extra or ': ' + str(c.get('texts')) + ' texts'}"
    yield f"- result: {'no differences' if r['ok'] else '**DIFFERENCES**'}"
    yield ""
    yield ("| texts | step | documents | dropped | differing decisions | differing statistics | differing texts | "
           "step statistics equal | exclusion files equal | stock fall-backs | stock s | trafila s | ratio |")
    yield "|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|"
    for x in r["results"]:
        yield (f"| {x['corpus']} | {x['step']} | {x['documents']} | {x['dropped']} | {x['differing_decisions']} | "
               f"{x['differing_statistics']} | {x['differing_texts']} | {'yes' if x['step_statistics_equal'] else '**no**'}"
               f" | {'yes' if x['exclusion_files_equal'] else '**no**'} | {x['stock_fallbacks']} | {x['stock_seconds']} "
               f"| {x['trafila_seconds']} | {x['ratio']} |")
    yield ""
    yield ("Stock fall-backs: inputs trafila's side handed to stock code (datatrove's tokenizer for a language other "
           "than English; the tokenizer's stock spaCy, e.g. for a text with the token `IS_ALPHA`, which spaCy "
           "handles by reading a freed lexeme). Every tokenizer is warmed past its first `IS_ALPHA` before the run.")
    yield ""
    yield "Each step over all the extraction's texts (both modes):"
    yield ""
    yield "| step | documents | stock s | trafila s | ratio |"
    yield "|---|---:|---:|---:|---:|"
    for step in r["steps"]:
        rows = [x for x in r["results"] if x["step"] == step and x["corpus"].startswith("extraction")]
        if rows:
            a, b = sum(x["stock_seconds"] for x in rows), sum(x["trafila_seconds"] for x in rows)
            yield (f"| {step} | {sum(x['documents'] for x in rows)} | {round(a, 1)} | {round(b, 1)} | "
                   f"{round(a / b, 2) if b else None} |")
    yield ""
    yield "What the stock steps decided (documents by decision):"
    yield ""
    for x in r["results"]:
        if x.get("decisions"):
            yield (f"- {x['corpus']}, {x['step']}: "
                   + ", ".join(f"{k} {v}" for k, v in sorted(x["decisions"].items(), key=lambda kv: -kv[1])))
    if r.get("tokenizer"):
        yield ""
        yield "The English tokenizer alone (`word_tokenize` and `span_tokenize` of each text):"
        yield ""
        yield "| texts | documents | differing words | differing spans | stock fall-backs | stock s | trafila s | ratio |"
        yield "|---|---:|---:|---:|---:|---:|---:|---:|"
        for t in r["tokenizer"]:
            yield (f"| {t['corpus']} | {t['documents']} | {t['differing_words']} | {t['differing_spans']} | "
                   f"{t['stock_fallbacks']} | {t['stock_seconds']} | {t['trafila_seconds']} | {t['ratio']} |")
