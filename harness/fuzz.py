"""Live differential fuzzing.

``python -m harness.fuzz tree --n N --seed S [--engine reference|core]``
    parses generated documents (:mod:`harness.strategies`) with trafila's
    parser (the reference's, or the compiled core's in the reference element
    model) and with lxml as trafilatura drives it, and compares the trees
    (the whole document, and what ``lxml.html.fromstring`` returns).

``python -m harness.fuzz text --candidate reference --set fast --n N --seed S``
    runs a candidate and the installed trafilatura (in process) on generated
    article documents and on mutated real pages (:mod:`harness.mutate`), and
    compares the results as :mod:`harness.results` does.

Both print the seed and counts and write the first ``--keep`` differing
inputs to ``--out`` (default ``.cache/fuzz/``). Documents come from a seeded
``random.Random``; the same seed gives the same documents. ``--report`` writes
``reports/fuzz-<kind>.{md,json}`` (kind ``tree``, ``tree-core``, ``text-<mode>-<set>``);
with ``--merge`` the run is added to that report's runs (a run of the same seed
replaces the old one) and the totals are summed, so a long measurement can be
made in chunks with different seeds.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Tuple, Union

from . import strategies
from .provenance import utc_now, write_report_json, write_report_text
from .candidates import HarnessTimeout, call_timeout
from .standalone import standalone

Html = Union[str, bytes]
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / ".cache" / "fuzz"


# --------------------------------------------------------------------------- parsers


def lxml_parser():
    try:
        from trafilatura.utils import HTML_PARSER

        return HTML_PARSER
    except ImportError:
        import lxml.html

        return lxml.html.HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8",
                                    remove_comments=True, remove_pis=True)


def trafila_parsers(engine: str = "reference") -> Tuple[Callable, Callable]:
    """(parse_document, fromstring) of ``engine``'s parser, in the reference element model."""
    from trafila import _engine

    p = _engine.parser(engine)
    return p.parse_document, p.fromstring


def lxml_document_dump(html: Html, parser: Any) -> dict:
    """The whole lxml document; a document without any element (all comment,
    say) has no root to reach it by, so it dumps as empty."""
    import lxml.etree as etree

    from .treedump import dump_lxml_document

    root = etree.fromstring(html, parser)
    if root is None:
        return {"doctype": None, "nodes": []}
    return dump_lxml_document(root)


def trafila_document_dump(doc: Any) -> dict:
    """The dump of a trafila Document, with the doctype hidden when there are no
    nodes (lxml cannot show a doctype without a root)."""
    from .treedump import dump_document

    if doc is None:  # (an lxml stand-in for trafila: no root)
        return {"doctype": None, "nodes": []}
    d = dump_document(doc)
    return {"doctype": None, "nodes": []} if not d["nodes"] else d


def _outcome(fn: Callable[[], Any], timeout: float) -> Tuple[str, Any]:
    """``("ok", dump)``, or ``("raise", exception type name)``, or ``("timeout", "")``."""
    try:
        with call_timeout(timeout):
            return "ok", fn()
    except HarnessTimeout:
        return "timeout", ""
    except Exception as exc:
        # lxml raises its own classes; trafila must raise a class of the same name
        return "raise", type(exc).__name__


def _describe_outcome(o: Tuple[str, Any]) -> str:
    return "a tree" if o[0] == "ok" else f"{o[0]} {o[1]}".strip()


def tree_inputs(seed: int, n: int, bytes_share: float = 0.2) -> Iterator[Tuple[str, Html]]:
    rng = random.Random(seed)
    for i in range(n):
        if rng.random() < bytes_share:
            yield f"bytes#{i}", strategies.random_bytes(rng)
        elif rng.random() < 0.1:
            yield f"article#{i}", strategies.random_article(rng)
        else:
            yield f"html#{i}", strategies.random_html(rng)


def _clear_cases(out: Path) -> None:
    """Remove the cases an earlier run with the same seed left in ``out``."""
    if out.is_dir():
        for p in list(out.glob("[0-9][0-9][0-9].html")) + list(out.glob("[0-9][0-9][0-9].json")):
            p.unlink()


def _progress(counts: Counter, t0: float, log) -> None:
    if counts["compared"] % 10000 == 0:
        diffs = sum(v for k, v in counts.items() if k.endswith("different"))
        log(f"  {counts['compared']} compared, {diffs} different, {time.time() - t0:.0f} s")


def _write_case(out: Path, index: int, label: str, html: Html, info: dict) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{index:03d}"
    data = html if isinstance(html, bytes) else html.encode("utf-8", "surrogatepass")
    path = stem.with_suffix(".html")
    path.write_bytes(data)
    info = dict(info, label=label, form="bytes" if isinstance(html, bytes) else "str", file=path.name)
    stem.with_suffix(".json").write_text(json.dumps(info, indent=1, ensure_ascii=False) + "\n")
    return path


def run_tree(n: int, seed: int, out: Path, keep: int = 5, timeout: float = 30.0, bytes_share: float = 0.2,
             log=print, parsers: Optional[Tuple[Callable, Callable]] = None) -> dict:
    """Compare trafila's parser (or ``parsers`` = (parse_document, fromstring)) with lxml."""
    if parsers is None:
        parsers = trafila_parsers()
    parse_document, t_fromstring = parsers
    import lxml.html

    from .treedump import dump_element, first_difference

    parser = lxml_parser()
    _clear_cases(out)
    counts: Counter = Counter()
    written: List[str] = []
    t0 = time.time()
    for label, html in tree_inputs(seed, n, bytes_share):
        counts["compared"] += 1
        _progress(counts, t0, log)
        kind = label.split("#")[0]
        for what, ours, theirs in (
            ("document", lambda: trafila_document_dump(parse_document(html)),
             lambda: lxml_document_dump(html, parser)),
            ("fromstring", lambda: dump_element(t_fromstring(html)),
             lambda: dump_element(lxml.html.fromstring(html, parser=parser))),
        ):
            want = _outcome(theirs, timeout)
            got = _outcome(ours, timeout)
            if want[0] != "ok":
                counts[f"{what}:lxml-{want[0]}:{want[1]}".rstrip(":")] += 1
            if want == got:
                counts[f"{what}:equal"] += 1
                continue
            counts[f"{what}:different"] += 1
            counts[f"{what}:different:{kind}"] += 1
            if len(written) < keep:
                if want[0] == got[0] == "ok":
                    diff = first_difference(want[1], got[1]) or "differ"
                else:
                    diff = f"lxml gives {_describe_outcome(want)}, trafila {_describe_outcome(got)}"
                path = _write_case(out, len(written), label, html, {"seed": seed, "compare": what, "difference": diff})
                written.append(str(path))
                log(f"  {label} {what}: {diff.splitlines()[0]} -> {path}")
    secs = time.time() - t0
    return {"mode": "tree", "seed": seed, "n": n, "seconds": round(secs, 1), "counts": dict(sorted(counts.items())),
            "written": written}


# --------------------------------------------------------------------------- text


def text_inputs(seed: int, n: int, bundles: Optional[List[str]], every: int, source: str,
                bytes_share: float = 0.0, mutant_share: float = 0.5) -> Iterator[Tuple[str, Html]]:
    rng = random.Random(seed)
    pages: List[Any] = []
    if source in ("mutants", "both"):
        from .corpora import bundle_paths, iter_pages
        from .mutate import mutations

        for path in bundle_paths(bundles or ["trafilatura"]):
            pages.extend(p for i, p in enumerate(iter_pages(path)) if i % every == 0)
        mutants = mutations(pages, seed, n)
    for i in range(n):
        if source == "articles" or (source == "both" and (not pages or rng.random() < 1.0 - mutant_share)):
            doc = strategies.random_article(rng)
            if bytes_share and rng.random() < bytes_share:
                yield f"article-bytes#{i}", strategies.encode_document(strategies.RandomChooser(rng), doc)
            else:
                yield f"article#{i}", doc
        else:
            label, html = next(mutants)
            yield f"mutant#{i}:{label}", html


def run_text(candidate: str, mode: str, set_name: str, n: int, seed: int, out: Path, keep: int = 5,
             bundles: Optional[List[str]] = None, every: int = 10, source: str = "both", timeout: float = 60.0,
             log=print, bytes_share: float = 0.0, mutant_share: float = 0.5) -> dict:
    from .candidates import TrafilaturaCandidate, call_entry, make_candidate
    from .matrix import option_sets
    from .results import describe, differing_fields, same

    (opt,) = option_sets(mode, [set_name])
    oracle = TrafilaturaCandidate()
    oracle.check_mode(mode)
    try:
        cand = make_candidate(candidate)
    except Exception as err:
        raise SystemExit(f"candidate {candidate!r} cannot be made: {type(err).__name__}: {err}")
    if opt.dedup:
        oracle.reset_dedup(mode)
        cand.reset_dedup(mode)
    counts: Counter = Counter()
    written: List[str] = []
    _clear_cases(out)
    t0 = time.time()
    try:
        for label, html in text_inputs(seed, n, bundles, every, source, bytes_share, mutant_share):
            kind = label.split("#")[0]
            want = call_entry(oracle, opt.function, html, opt.options, mode, timeout)
            got = call_entry(cand, opt.function, html, opt.options, mode, timeout)
            counts["compared"] += 1
            counts[f"compared:{kind}"] += 1
            _progress(counts, t0, log)
            if counts["compared"] == 1 and isinstance(got, dict) and got.get("raise") in ("AttributeError", "ImportError", "ModuleNotFoundError", "NotImplementedError") and not (isinstance(want, dict) and "raise" in want):
                try:  # once more, for the message
                    cand.call(opt.function, html, dict(opt.options), mode)
                    why = ""
                except Exception as exc:
                    why = f": {exc}"
                raise SystemExit(f"candidate {candidate!r} raised {got['raise']} on the first input{why} "
                                 f"(a broken candidate or harness adapter)")
            if same(want, got):
                counts["equal"] += 1
                continue
            counts["different"] += 1
            counts[f"different:{kind}"] += 1
            if len(written) < keep:
                fields = differing_fields(want, got)
                info = {"seed": seed, "candidate": candidate, "mode": mode, "set": set_name,
                        "expected": describe(want), "got": describe(got), "fields": fields}
                path = _write_case(out, len(written), label, html, info)
                written.append(str(path))
                log(f"  {label}: expected {describe(want)[:70]}, got {describe(got)[:70]} -> {path}")
    finally:
        cand.close()
    secs = time.time() - t0
    return {"mode": "text", "seed": seed, "n": n, "candidate": candidate, "trafilatura_mode": mode, "set": set_name,
            "seconds": round(secs, 1), "counts": dict(sorted(counts.items())), "written": written}


# --------------------------------------------------------------------------- command line


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The command's arguments (parsed by harness/cli.py, the one command line)."""
    sub = ap.add_subparsers(dest="what", required=True)
    for name in ("tree", "text"):
        p = sub.add_parser(name)
        p.add_argument("--n", type=int, default=1000)
        p.add_argument("--seed", type=int, default=None, help="default: random (printed)")
        p.add_argument("--out", type=Path, default=None,
                       help="where differing inputs go (default .cache/fuzz/tree-<seed> or text-<candidate>-<mode>-<set>-<seed>)")
        p.add_argument("--keep", type=int, default=5, help="how many differing inputs to write")
        p.add_argument("--timeout", type=float, default=60.0)
        p.add_argument("--json", action="store_true", help="print the summary as JSON")
        p.add_argument("--report", action="store_true", help="write reports/fuzz-<tree|text-…>.md and .json")
        p.add_argument("--bytes-share", type=float, default=0.2 if name == "tree" else 0.0,
                       help="share of generated documents given as bytes")
        p.add_argument("--merge", action="store_true",
                       help="with --report: add this run to the report's runs (summing the totals) instead of replacing it")
        if name == "tree":
            p.add_argument("--engine", default="reference", choices=["reference", "core"],
                           help="whose parser (default: the reference)")
        if name == "text":
            p.add_argument("--candidate", default="reference")
            p.add_argument("--mode", default="2.3.1")
            p.add_argument("--set", default="fast")
            p.add_argument("--bundle", action="append", dest="bundles", help="bundles whose pages are mutated (default: trafilatura)")
            p.add_argument("--every", type=int, default=10, help="use every k-th page of the bundles")
            p.add_argument("--source", choices=("both", "articles", "mutants"), default="both")
            p.add_argument("--mutant-share", type=float, default=0.5,
                           help="with --source both: the share of mutated real pages (the rest are generated)")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    """Run the command with parsed ``args`` (``argv``: the words, for the report)."""
    from .parity import _git_commit

    commit = _git_commit()  # the code this run loads (HEAD may move while it runs)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    if args.what == "tree":
        name = f"tree-{seed}" if args.engine == "reference" else f"tree-{args.engine}-{seed}"
    else:
        name = "text-" + re.sub(r"[^A-Za-z0-9._-]+", "_", f"{args.candidate}-{args.mode}-{args.set}-{seed}")[:100]
    out = args.out or DEFAULT_OUT / name
    print(f"fuzz {args.what}: seed {seed}, n {args.n}", flush=True)
    if args.what == "tree":
        summary = run_tree(args.n, seed, out, args.keep, args.timeout, args.bytes_share,
                           parsers=trafila_parsers(args.engine))
        summary["engine"] = args.engine
    else:
        summary = run_text(args.candidate, args.mode, args.set, args.n, seed, out, args.keep, args.bundles,
                           args.every, args.source, args.timeout, bytes_share=args.bytes_share,
                           mutant_share=args.mutant_share)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"seed {seed}: " + ", ".join(f"{k} {v}" for k, v in summary["counts"].items()) + f" in {summary['seconds']} s")
        if summary["written"]:
            print(f"first differing inputs in {out}/")
    diffs = sum(v for k, v in summary["counts"].items() if k.endswith("different"))
    if args.report:
        write_report(args, seed, summary, argv, commit)
    return 1 if diffs else 0


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m harness.fuzz``: the same command as ``python -m harness fuzz``."""
    return standalone(sys.modules[__name__], argv)


def report_kind(args) -> str:
    if args.what == "tree":
        return "tree" if getattr(args, "engine", "reference") == "reference" else f"tree-{args.engine}"
    candidate = getattr(args, "candidate", "reference") or "reference"
    # the reference's reports keep their names; another candidate's get its own
    return f"text-{args.mode}-{args.set}" if candidate == "reference" else f"text-{candidate}-{args.mode}-{args.set}"


def write_report(args, seed: int, summary: dict, argv, commit: Optional[str] = None,
                 out_dir: Optional[Path] = None) -> None:
    """reports/fuzz-<kind>.{json,md}: the seed, the counts, the command (written by the harness only);
    with ``args.merge``, this run joins the runs already in the report."""

    from .corpora import ROOT
    from .parity import _git_commit

    kind = report_kind(args)
    out_dir = out_dir or ROOT / "reports"
    out_dir.mkdir(exist_ok=True)
    command = "python -m harness fuzz " + " ".join(sys.argv[1:] if argv is None else argv)
    run = {"seed": seed, "n": args.n, "counts": summary["counts"], "seconds": summary["seconds"],
           "date": utc_now(), "commit": commit or _git_commit(),
           "command": command}
    runs = [run]
    path = out_dir / f"fuzz-{kind}.json"
    if getattr(args, "merge", False) and path.exists():
        old = json.loads(path.read_text())
        if old.get("kind") == kind:
            earlier = old.get("runs") or [{k: old[k] for k in ("seed", "n", "counts", "seconds", "date", "commit", "command")
                                           if k in old}]
            runs = [r for r in earlier if r.get("seed") != seed] + [run]
    counts: Counter = Counter()
    for r in runs:
        counts.update(r["counts"])
    data = {"kind": kind, "seed": seed if len(runs) == 1 else [r["seed"] for r in runs],
            "n": sum(r["n"] for r in runs), "counts": dict(sorted(counts.items())),
            "seconds": round(sum(r["seconds"] for r in runs), 1), "date": run["date"], "commit": run["commit"],
            "command": command, "runs": runs}
    write_report_json(path, data)
    lines = [f"# Fuzz report: {kind}", "", "Written by `python -m harness fuzz … --report` (never by hand).", ""]
    if len(runs) == 1:
        lines += [f"- run: {run['date']}, commit {run['commit']}, `{command}`",
                  f"- seed **{seed}**, {args.n} documents, {summary['seconds']} s"]
    else:
        lines += [f"- **{data['n']} documents** in {len(runs)} runs (`--merge`), {data['seconds']} s in all; "
                  f"last run {run['date']}, commit {run['commit']}"]
    lines += ["", "| outcome | count |", "|---|---:|"] + [f"| {k} | {v} |" for k, v in data["counts"].items()]
    if len(runs) > 1:
        lines += ["", "## Runs", "", "| seed | documents | differences | seconds | date | commit | command |",
                  "|---:|---:|---:|---:|---|---|---|"]
        for r in runs:
            diffs = sum(v for k, v in r["counts"].items() if k.endswith("different"))
            lines.append(f"| {r['seed']} | {r['n']} | {diffs} | {r['seconds']} | {r['date']} | {r['commit']} | `{r['command']}` |")
    write_report_text(out_dir / f"fuzz-{kind}.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
