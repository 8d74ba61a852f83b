"""Fuzzing the compiled core under AddressSanitizer and UBSan (issue 19).

``tox -e core-asan`` builds ``trafila._core`` with
``-fsanitize=address,undefined -fno-omit-frame-pointer`` (setup.py,
``TRAFILA_CORE_ASAN=1``) and runs this command. The parent process is plain
Python; every input runs in a child process started with the sanitizer runtime
``LD_PRELOAD``ed (found with ``ldd`` from the module itself), ``detect_leaks=0``
(CPython's own allocations are not leaks) and ``halt_on_error=1``, so that a
sanitizer report ends the child: the parent notes the input (the child writes
the index of the input it is working on before each one), keeps the report,
and starts a new child after that input.

``python -m harness fuzz-native run --campaign NAME --n N --seed S [--extract-every K] [--compare-every M]``
    generated documents (:mod:`harness.strategies`) and mutated dev pages
    (:mod:`harness.mutate`), in chunks of ``--chunk`` inputs. Every input goes
    through the parser's entry points (``parse_document``,
    ``document_fromstring``, ``fromstring`` and their ``CElement`` views,
    walking the trees they give); every ``K``-th also through the extraction of
    each mode the core runs (``_core.MODES``), cycling over the option sets
    without deduplication; every ``M``-th extracted one also through the
    reference engine, whose result must be the same. Results are compared as
    parity compares them (through the harness's candidates: bare_extraction's
    trees as XML). An exception of a bug-like type (``BUG_TYPES``) raised by
    the core is a bug unless the reference raises the same type on that input
    (trafilatura 1.11.0's bare_extraction raises AttributeError on some pages:
    counted as ``...:as-reference``). State lives in
    ``.cache/fuzz-native/<campaign>/``: a run stopped (killed, deadline) keeps
    its checkpoints (every 500 inputs) and the same command resumes it.

``python -m harness fuzz-native atheris --campaign NAME --runs N [--max-time S]``
    coverage-guided: atheris (libFuzzer) drives the same entry points with the
    bytes it mutates (the first byte picks str or bytes and whether to
    extract). With a core built by clang with ``TRAFILA_CORE_FUZZ=1``
    (``-fsanitize=fuzzer-no-link``) libFuzzer sees the C code's edges; with the
    gcc build it sees the Python edges of the extraction stages only
    (``atheris.instrument_imports``); the report says which.

``python -m harness fuzz-native report``
    merges every campaign's checkpoints into ``reports/fuzz-native.{md,json}``
    (``run`` and ``atheris`` write it too when they end).

Crashes, sanitizer reports, unraisable exceptions (a boundscheck error in a
``noexcept`` function), unexpected exception types (``SystemError``) and
differences are counted; their inputs are kept under
``.cache/fuzz-native/<campaign>/crashes/`` and become regression tests
(tests/test_core_regressions.py).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from .provenance import build_info, c_source_id, write_report_json, write_report_text

Html = Union[str, bytes]
ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / ".cache" / "fuzz-native"
REPORTS = ROOT / "reports"

#: option sets cycled over by the extraction (no deduplication: a result must not depend on history)
SETS = ("default", "fast", "recall", "fast-precision", "no-comments-tables", "bare", "links", "formatting",
        "markdown", "images", "bare-fast", "no_fallback", "datatrove-nodedup")
# 1.11.0's C sequence (nogil_sequence_1_11_0.pxi) runs no_fallback, default, recall, no-comments-tables,
# datatrove-nodedup (compare_extraction: readability, jusText, sanitize_tree), links, formatting,
# markdown and images
#: exception types that are a bug whatever the input
BUG_TYPES = ("SystemError", "AssertionError", "RecursionError", "UnboundLocalError", "NameError",
             "AttributeError", "TypeError", "IndexError", "KeyError", "ZeroDivisionError", "OverflowError")
CHECKPOINT = 500


# --------------------------------------------------------------------------- inputs


class Inputs:
    """Input ``k`` of chunk ``(seed, chunk)``: generated or a mutated dev page, the same every time."""

    def __init__(self, mutant_share: float = 0.2, page_every: int = 10, max_page: int = 200_000):
        self.mutant_share = mutant_share
        self._pages: Optional[List[Html]] = None
        self.page_every = page_every
        self.max_page = max_page

    def pages(self) -> List[Html]:
        if self._pages is None:
            from .corpora import bundle_paths, iter_pages

            pages: List[Html] = []
            for path in bundle_paths(["trafilatura"]):
                if path.exists():
                    for i, p in enumerate(iter_pages(path)):
                        if i % self.page_every == 0:
                            forms = p.forms()
                            html = p.input("str" if "str" in forms else "bytes")
                            if len(html) <= self.max_page:
                                pages.append(html)
            self._pages = pages
        return self._pages

    def chunk(self, seed: int, chunk: int, size: int) -> Iterator[Tuple[str, Html]]:
        from . import strategies
        from .mutate import mutations

        rng = random.Random(f"fuzz-native:{seed}:{chunk}")
        for k in range(size):
            r = rng.random()
            if r < self.mutant_share and self.pages():
                label, html = next(mutations(self.pages(), rng.randrange(1 << 30), 1))
                yield f"mutant:{label}", html
            elif r < self.mutant_share + 0.15:
                yield "bytes", strategies.random_bytes(rng)
            elif r < self.mutant_share + 0.3:
                yield "article", strategies.random_article(rng)
            else:
                yield "html", strategies.random_html(rng)


# --------------------------------------------------------------------------- one input


class Exerciser:
    """Runs one input through the core's entry points; counts outcomes."""

    def __init__(self, extract_sets=SETS, compare: bool = True):
        import trafila
        from trafila import _engine

        from .matrix import option_sets

        from .candidates import make_candidate

        self.core = _engine.core_module()
        self.modes = tuple(self.core.MODES)
        self.engine = trafila.engine("core")
        # calls go through the harness's candidates, as parity's do: bare_extraction's trees
        # come back as XML (an element compared by its class name, Element against CElement,
        # would differ on every page); the reference answers every compared call and every
        # call where the core raises a bug-like type (upstream raising it too is upstream's)
        self.core_candidate = make_candidate("core")
        self.reference = make_candidate("reference")
        self.compare = compare
        self.sets = {m: option_sets(m, [s for s in extract_sets if s in {o.name for o in option_sets(m)}])
                     for m in self.modes}
        self.counts: Counter = Counter()
        self.diffs: List[dict] = []
        self.bugs: List[dict] = []
        self._n_extract = 0

    def _note_raise(self, where: str, exc: BaseException, label: str, index: int, as_reference: bool = False) -> None:
        name = type(exc).__name__
        self.counts[f"{where}:raise:{name}"] += 1
        if as_reference:
            # the reference (upstream's behaviour, proven by parity) raises the same type here
            self.counts[f"{where}:raise:{name}:as-reference"] += 1
            return
        if name in BUG_TYPES or "Cython" in str(exc):
            self.counts["bug"] += 1
            if len(self.bugs) < 20:
                self.bugs.append({"index": index, "label": label, "where": where, "raise": name, "message": str(exc)[:300]})

    def parse(self, html: Html, label: str, index: int) -> None:
        core = self.core
        self.counts["parsed"] += 1
        for name in ("parse_document", "document_fromstring", "fromstring"):
            try:
                doc = getattr(core, name)(html)
                if name == "parse_document":
                    doc.dump()
            except Exception as exc:  # noqa: BLE001 - an exception is an outcome; its type is counted
                self._note_raise(f"parse:{name}", exc, label, index)
        for name in ("parse_document_view", "fromstring_view"):
            try:
                obj = getattr(core, name)(html)
                root = obj.getroot() if hasattr(obj, "getroot") else obj
                if root is not None:
                    n = 0
                    for el in root.iter():
                        n += 1
                        _ = (el.tag, el.text, el.tail, dict(el.attrib))
                        if n > 5000:
                            break
            except Exception as exc:  # noqa: BLE001
                self._note_raise(f"parse:{name}", exc, label, index)

    def extract(self, html: Html, label: str, index: int, compare: bool) -> None:
        from .results import raised_entry, result_entry, same

        for mode in self.modes:
            sets = self.sets[mode]
            if not sets:
                continue
            opt = sets[self._n_extract % len(sets)]
            self._n_extract += 1
            raised: Optional[BaseException] = None
            try:
                got = result_entry(self.core_candidate.call(opt.function, html, dict(opt.options), mode))
            except Exception as exc:  # noqa: BLE001
                raised = exc
                got = raised_entry(exc)
            self.counts[f"extracted:{mode}"] += 1
            suspect = raised is not None and (type(raised).__name__ in BUG_TYPES or "Cython" in str(raised))
            want = None
            if (compare and self.compare) or suspect:
                try:
                    want = result_entry(self.reference.call(opt.function, html, dict(opt.options), mode))
                except Exception as exc:  # noqa: BLE001
                    want = raised_entry(exc)
            if raised is not None:
                self._note_raise(f"extract:{mode}", raised, label, index, as_reference=want is not None and same(want, got))
            if compare and self.compare:
                self.counts[f"compared:{mode}"] += 1
                if not same(want, got):
                    self.counts[f"different:{mode}"] += 1
                    if len(self.diffs) < 20:
                        self.diffs.append({"index": index, "label": label, "mode": mode, "set": opt.name})


# --------------------------------------------------------------------------- the child


def _child(args: argparse.Namespace) -> int:
    import faulthandler

    faulthandler.enable()
    state = Path(args.state)
    unraisable: List[str] = []

    def hook(u):  # a boundscheck error in a noexcept function, say
        unraisable.append(f"{type(u.exc_value).__name__}: {u.exc_value} in {u.object!r}"[:300])

    sys.unraisablehook = hook
    ex = Exerciser(compare=args.compare_every > 0)
    inputs = Inputs(args.mutant_share)
    seg = state / f"seg-{args.seed}-{args.chunk_index:05d}-{args.start:06d}.json"
    pos_fd = os.open(state / "pos", os.O_WRONLY | os.O_CREAT, 0o644)
    crash_inputs = state / "crashes"
    t0 = time.time()
    last_unraisable = 0

    def checkpoint(end: int) -> None:
        data = {"seed": args.seed, "chunk": args.chunk_index, "start": args.start, "end": end,
                "seconds": round(time.time() - t0, 2), "counts": dict(ex.counts), "diffs": ex.diffs,
                "bugs": ex.bugs, "unraisable": unraisable[:20], "n_unraisable": len(unraisable)}
        tmp = seg.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, seg)

    end = args.start
    for k, (label, html) in enumerate(inputs.chunk(args.seed, args.chunk_index, args.size)):
        if k < args.start:
            continue
        os.pwrite(pos_fd, f"{k:09d}\n".encode(), 0)
        ex.parse(html, label, k)
        if args.extract_every and k % args.extract_every == 0:
            compare = args.compare_every > 0 and (k // args.extract_every) % args.compare_every == 0
            ex.extract(html, label, k, compare)
        if len(unraisable) > last_unraisable or len(ex.diffs) + len(ex.bugs) > ex.counts.get("_kept", 0):
            crash_inputs.mkdir(exist_ok=True)
            data = html if isinstance(html, bytes) else html.encode("utf-8", "surrogatepass")
            (crash_inputs / f"{args.seed}-{args.chunk_index}-{k}.html").write_bytes(data)
            ex.counts["_kept"] = len(ex.diffs) + len(ex.bugs)
            last_unraisable = len(unraisable)
        end = k + 1
        if end % CHECKPOINT == 0:
            checkpoint(end)
    checkpoint(end)
    return 0


# --------------------------------------------------------------------------- the parent


def sanitizer_runtime(module_file: str) -> Tuple[Optional[str], str]:
    """(the library to preload, the compiler) for the core at ``module_file``, from ``ldd``."""
    out = subprocess.run(["ldd", module_file], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.search(r"(libasan\.so[.0-9]*|libclang_rt\.asan[-\w.]*\.so)\s*=>\s*(\S+)", line)
        if m:
            path = m.group(2)
            if not os.path.exists(path):  # clang's runtime is not on the loader's path: ask the compiler
                for cc in ("clang-14", "clang"):
                    try:
                        found = subprocess.run([cc, f"-print-file-name={m.group(1)}"], capture_output=True,
                                               text=True).stdout.strip()
                    except OSError:
                        continue
                    if os.path.exists(found):
                        path = found
                        break
            return path, ("clang" if "clang_rt" in m.group(1) else "gcc")
    nm = subprocess.run(["nm", "-D", "--undefined-only", module_file], capture_output=True, text=True).stdout
    if "__asan_init" in nm:  # clang: the runtime is not linked in, it must be preloaded
        for cc in ("clang-14", "clang"):
            try:
                found = subprocess.run([cc, "-print-file-name=libclang_rt.asan-x86_64.so"], capture_output=True,
                                       text=True).stdout.strip()
            except OSError:
                continue
            if os.path.exists(found):
                return found, "clang"
    return None, "none"


def has_sancov(module_file: str) -> bool:
    out = subprocess.run(["nm", "-D", "--undefined-only", module_file], capture_output=True, text=True).stdout
    return "__sanitizer_cov" in out


def core_file() -> str:
    """The core module the children will load (asked of a child interpreter: the parent may not preload)."""
    code = "from trafila import _engine; print(_engine.core_module().__file__)"
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    # the import may need the runtime; find the file without importing
    code = ("import importlib.util as u; s = u.find_spec('trafila._core'); print(s.origin if s else '')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stdout.strip()
    if not out:
        raise SystemExit("trafila._core is not built")
    return out


def child_env(state: Path, preload: Optional[str], extra_preload: Optional[str] = None) -> Dict[str, str]:
    env = dict(os.environ)
    san = state / "san"
    san.mkdir(parents=True, exist_ok=True)
    if extra_preload or preload:
        env["LD_PRELOAD"] = extra_preload or preload
    env["ASAN_OPTIONS"] = f"detect_leaks=0:halt_on_error=1:abort_on_error=0:print_summary=1:log_path={san}/asan"
    env["UBSAN_OPTIONS"] = f"halt_on_error=1:print_stacktrace=1:log_path={san}/ubsan"
    env["PYTHONFAULTHANDLER"] = "1"
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _segments(state: Path) -> List[dict]:
    segs = []
    for p in sorted(state.glob("seg-*.json")):
        try:
            segs.append(json.loads(p.read_text()))
        except (OSError, ValueError):
            pass
    return segs


def _done_upto(state: Path, seed: int, chunk: int) -> int:
    """How many inputs of a chunk are behind us: the end of its last segment (crashed inputs are skipped)."""
    ends = [s["end"] for s in _segments(state) if s["seed"] == seed and s["chunk"] == chunk]
    crashed = [c["index"] + 1 for c in _crashes(state) if c["seed"] == seed and c["chunk"] == chunk]
    return max(ends + crashed + [0])


def _crashes(state: Path) -> List[dict]:
    p = state / "crashes.json"
    return json.loads(p.read_text()) if p.exists() else []


def run_campaign(args: argparse.Namespace, argv: List[str]) -> int:
    state = STATE / args.campaign
    state.mkdir(parents=True, exist_ok=True)
    module = core_file()
    preload, compiler = sanitizer_runtime(module)
    if preload is None and not args.allow_plain:
        raise SystemExit(f"{module} is not a sanitizer build (tox -e core-asan builds one); --allow-plain runs it anyway")
    meta = {"campaign": args.campaign, "kind": "generated", "seed": args.seed, "n": args.n, "chunk": args.chunk,
            "extract_every": args.extract_every, "compare_every": args.compare_every, "mutant_share": args.mutant_share,
            "command": "python -m harness fuzz-native " + " ".join(argv), "compiler": compiler,
            "preload": os.path.basename(preload or ""), "c_source": c_source_id()}
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
                cmd = [sys.executable, "-m", "harness.fuzz_native", "_child", "--state", str(state),
                       "--seed", str(args.seed), "--chunk-index", str(c), "--size", str(size), "--start", str(start),
                       "--extract-every", str(args.extract_every), "--compare-every", str(args.compare_every),
                       "--mutant-share", str(args.mutant_share)]
                before = set(glob.glob(str(state / "san" / "*")))
                timeout = None if not deadline else max(1.0, deadline - time.time())
                try:
                    proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
                except subprocess.TimeoutExpired:
                    break  # the deadline: the checkpoints keep what was done
                if proc.returncode == 0:
                    continue
                pos = int((state / "pos").read_text().strip() or 0)
                logs = sorted(set(glob.glob(str(state / "san" / "*"))) - before)
                _record_crash(state, args, c, size, pos, proc, logs)
            print(f"{args.campaign}: chunk {c + 1}/{chunks}: {_summary_line(state)}", flush=True)
            if deadline and time.time() > deadline:
                print(f"{args.campaign}: --max-time reached; the same command resumes", flush=True)
                break
    finally:
        write_report()
    return 0


def classify_crash(report: str, logs: List[str], stderr: Optional[str]) -> Tuple[str, str]:
    """A dead child's kind (``asan``, ``ubsan`` or ``crash``: from the sanitizer's report, else
    from its log files' names) and the line that says what happened (300 characters at most)."""
    kind = ("asan" if "AddressSanitizer" in report else "ubsan" if "runtime error" in report
            else "asan" if any("/asan" in p for p in logs) else "ubsan" if any("/ubsan" in p for p in logs) else "crash")
    err = (stderr or "").strip()
    first = next((ln for ln in report.splitlines() if "ERROR" in ln or "runtime error" in ln),
                 err.splitlines()[-1] if err else "")
    return kind, first[:300]


def _record_crash(state: Path, args, chunk: int, size: int, pos: int, proc, logs: List[str]) -> None:
    inputs = Inputs(args.mutant_share)
    label, html = next((lab, h) for k, (lab, h) in enumerate(inputs.chunk(args.seed, chunk, size)) if k == pos)
    out = state / "crashes"
    out.mkdir(exist_ok=True)
    name = f"{args.seed}-{chunk}-{pos}"
    data = html if isinstance(html, bytes) else html.encode("utf-8", "surrogatepass")
    (out / f"{name}.html").write_bytes(data)
    report = "".join(Path(p).read_text(errors="replace") for p in logs)
    (out / f"{name}.log").write_text(report + "\n--- stderr ---\n" + proc.stderr[-20000:])
    crashes = _crashes(state)
    kind, first_line = classify_crash(report, logs, proc.stderr)
    crashes.append({"seed": args.seed, "chunk": chunk, "index": pos, "label": label, "kind": kind,
                    "returncode": proc.returncode, "form": "bytes" if isinstance(html, bytes) else "str",
                    "first_line": first_line})
    (state / "crashes.json").write_text(json.dumps(crashes, indent=1))
    print(f"CRASH ({kind}) at input {pos} of chunk {chunk}: {crashes[-1]['first_line']} -> {out / name}.html", flush=True)


def _summary_line(state: Path) -> str:
    t = totals(state)
    c = t["counts"]
    ext = ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in c.items() if k.startswith("extracted:"))
    cmp_ = sum(v for k, v in c.items() if k.startswith("compared:"))
    diff = sum(v for k, v in c.items() if k.startswith("different:"))
    return (f"{c.get('parsed', 0)} parsed, extracted {ext or 0}, {cmp_} compared, {diff} different, "
            f"{t['crashes']} crashes, {c.get('bug', 0)} bugs, {t['unraisable']} unraisable, {t['seconds']:.0f} s")


def totals(state: Path) -> dict:
    counts: Counter = Counter()
    secs = 0.0
    unraisable = 0
    diffs: List[dict] = []
    bugs: List[dict] = []
    extra = {}
    for s in _segments(state):
        counts.update({k: v for k, v in s["counts"].items() if not k.startswith("_")})
        secs += s["seconds"]
        unraisable += s.get("n_unraisable", 0)
        diffs += s.get("diffs", [])
        bugs += s.get("bugs", [])
    if (state / "atheris.json").exists():
        extra = json.loads((state / "atheris.json").read_text())
        secs += extra.get("seconds", 0)
        counts.update(extra.get("counts", {}))
        unraisable += extra.get("n_unraisable", 0)
        diffs += extra.get("diffs", [])
        bugs += extra.get("bugs", [])
    return {"counts": dict(sorted(counts.items())), "seconds": round(secs, 1), "unraisable": unraisable,
            "crashes": len(_crashes(state)), "crash_list": _crashes(state), "diffs": diffs[:20], "bugs": bugs[:20],
            "atheris": extra or None}


# --------------------------------------------------------------------------- atheris


def _atheris_html(flags: int, body: bytes) -> Html:
    """The document an atheris input stands for: bytes, or (flags & 1) str decoded from UTF-8, with lone
    surrogates kept (flags & 4) when the bytes are UTF-8 with them, invalid bytes replaced otherwise."""
    if not flags & 1:
        return body
    if flags & 4:
        try:
            return body.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:  # (raised out of the target: atheris ended its sessions with "fuzz target exited")
            pass
    return body.decode("utf-8", "replace")


def _atheris_child(args: argparse.Namespace) -> int:
    import atheris

    state = Path(args.state)
    import contextlib

    # with the C code's edges (a fuzzer-no-link build) the Python ones are left out: they cost 10x in speed
    ctx = contextlib.nullcontext() if args.sancov else atheris.instrument_imports(include=["trafila"])
    with ctx:
        import trafila  # noqa: F401
        from trafila import _engine

        _engine.core_module()
        ex = Exerciser(compare=True)
        # the stages are imported on first use: one extraction of each option set here instruments them
        warm = "<html><body><article><p>" + "A few words of a warm-up paragraph. " * 8 + "</p></article></body></html>"
        for _ in SETS:
            ex.extract(warm, "warm-up", -1, compare=True)
        ex.counts.clear()
    unraisable: List[str] = []
    sys.unraisablehook = lambda u: unraisable.append(f"{type(u.exc_value).__name__}: {u.exc_value}"[:300])
    t0 = time.time()
    n = [0]
    stats = state / "atheris-current.json"
    kept = state / "crashes"

    def save() -> None:
        data = {"seconds": round(time.time() - t0, 1), "inputs": n[0], "counts": dict(ex.counts),
                "diffs": ex.diffs, "bugs": ex.bugs, "unraisable": unraisable[:20], "n_unraisable": len(unraisable),
                "sancov": args.sancov}
        tmp = stats.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, stats)

    def one(data: bytes) -> None:
        n[0] += 1
        if not data:
            return
        flags, body = data[0], data[1:]
        html: Html = _atheris_html(flags, body)
        before = len(ex.diffs) + len(ex.bugs) + len(unraisable)
        ex.parse(html, "atheris", n[0])
        if flags & 2:
            ex.extract(html, "atheris", n[0], compare=bool(flags & 8))
        if len(ex.diffs) + len(ex.bugs) + len(unraisable) > before:
            kept.mkdir(exist_ok=True)
            (kept / f"atheris-{n[0]}.bin").write_bytes(data)
        if n[0] % 100 == 0:
            save()

    import atexit

    atexit.register(save)
    # -timeout: atheris checks it from a SIGALRM handler; with 60 the interpreter died of SIGALRM (rc -14)
    # under load, with 0 the first slow input counted as a timeout ("fuzz target exited"): a day, so
    # never; hangs are measured by `harness pathological` instead
    argv = [sys.argv[0], f"-runs={args.runs}", "-timeout=86400", "-rss_limit_mb=6000", "-max_len=200000",
            "-print_final_stats=1", f"-artifact_prefix={kept}/"]
    if args.max_time:
        argv.append(f"-max_total_time={int(args.max_time)}")
    kept.mkdir(exist_ok=True)
    argv.append(str(state / "corpus"))
    atheris.Setup(argv, one)
    try:
        atheris.Fuzz()
    finally:
        save()
    return 0


def _seed_corpus(corpus: Path, n: int = 300) -> None:
    from . import strategies

    corpus.mkdir(parents=True, exist_ok=True)
    if any(corpus.iterdir()):
        return
    rng = random.Random(19)
    for i in range(n):
        doc = strategies.random_article(rng) if i % 3 == 0 else strategies.random_html(rng)
        flags = rng.choice((1, 3, 11, 0, 2))
        body = doc.encode("utf-8", "surrogatepass")
        (corpus / f"seed-{i:04d}").write_bytes(bytes([flags]) + body)


def run_atheris(args: argparse.Namespace, argv: List[str]) -> int:
    import importlib.util

    state = STATE / args.campaign
    state.mkdir(parents=True, exist_ok=True)
    spec = importlib.util.find_spec("atheris")
    if spec is None:
        raise SystemExit("atheris is not installed (tox -e core-asan brings it)")
    module = core_file()
    preload, compiler = sanitizer_runtime(module)
    sancov = has_sancov(module)
    atheris_dir = os.path.dirname(spec.origin)
    # atheris.path(): the directory above the package, where a source build puts its sanitizer runtimes
    combined = next((c for c in (os.path.join(d, "asan_with_fuzzer.so") for d in (atheris_dir, os.path.dirname(atheris_dir)))
                     if os.path.exists(c)), "")
    extra = combined if sancov and os.path.exists(combined) else None
    if sancov and not extra:
        raise SystemExit("the core has libFuzzer's coverage hooks but atheris has no asan_with_fuzzer.so "
                         "(build atheris from source with the same clang)")
    _seed_corpus(state / "corpus")
    meta = {"campaign": args.campaign, "kind": "atheris", "runs": args.runs, "max_time": args.max_time,
            "command": "python -m harness fuzz-native " + " ".join(argv), "compiler": compiler,
            "preload": os.path.basename(extra or preload or ""), "sancov": sancov, "c_source": c_source_id()}
    (state / "meta.json").write_text(json.dumps(meta, indent=1))
    env = child_env(state, preload, extra)
    cmd = [sys.executable, "-m", "harness.fuzz_native", "_atheris", "--state", str(state), "--runs", str(args.runs),
           "--max-time", str(args.max_time or 0)] + (["--sancov"] if sancov else [])
    before = set(glob.glob(str(state / "san" / "*")))
    proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    (state / "atheris.log").write_text(proc.stderr[-200000:])
    done = re.findall(r"Done (\d+) runs in (\d+) second", proc.stderr)
    cur_path = state / "atheris-current.json"
    cur = json.loads(cur_path.read_text()) if cur_path.exists() else {}
    cov = re.findall(r"cov: (\d+) ft: (\d+)", proc.stderr)
    total_path = state / "atheris.json"
    st = json.loads(total_path.read_text()) if total_path.exists() else {"runs": []}
    st["runs"].append({"libfuzzer_runs": int(done[-1][0]) if done else None, "returncode": proc.returncode,
                       "seconds": cur.get("seconds", 0), "coverage": {"cov": int(cov[-1][0]), "ft": int(cov[-1][1])} if cov else None})
    counts: Counter = Counter(st.get("counts", {}))
    counts.update(cur.get("counts", {}))
    st.update(counts=dict(counts), seconds=round(sum(r["seconds"] for r in st["runs"]), 1),
              libfuzzer_runs=sum(r["libfuzzer_runs"] or 0 for r in st["runs"]), coverage=st["runs"][-1]["coverage"],
              n_unraisable=st.get("n_unraisable", 0) + cur.get("n_unraisable", 0),
              diffs=(st.get("diffs", []) + cur.get("diffs", []))[:20], bugs=(st.get("bugs", []) + cur.get("bugs", []))[:20],
              sancov=sancov)
    total_path.write_text(json.dumps(st))
    cur_path.unlink(missing_ok=True)
    logs = sorted(set(glob.glob(str(state / "san" / "*"))) - before)
    if proc.returncode != 0:
        crashes = _crashes(state)
        report = "".join(Path(p).read_text(errors="replace") for p in logs) + proc.stderr[-5000:]
        kind = ("asan" if "AddressSanitizer" in report else "ubsan" if "runtime error" in report
                else "libfuzzer-exit" if "libFuzzer: fuzz target exited" in report else "crash")
        crashes.append({"seed": "atheris", "chunk": 0, "index": st.get("inputs"), "label": "atheris",
                        "kind": kind, "returncode": proc.returncode,
                        "first_line": next((ln for ln in report.splitlines() if "ERROR" in ln or "runtime error" in ln
                                            or "Uncaught" in ln), "")[:300]})
        (state / "crashes.json").write_text(json.dumps(crashes, indent=1))
    print(f"{args.campaign}: {_summary_line(state)}; libFuzzer runs {st.get('libfuzzer_runs')}, rc {proc.returncode}")
    write_report()
    return 0


# --------------------------------------------------------------------------- the report


def _sanitizer_report(crash: dict) -> bool:
    """A crash record that is an ASan/UBSan finding (not libFuzzer's own exit, printed to the same log)."""
    return crash["kind"] in ("asan", "ubsan") and "libFuzzer: fuzz target exited" not in crash.get("first_line", "")


def _campaign_c_source(meta: dict, report_commit: Optional[str]) -> Optional[str]:
    """The C a campaign ran on: recorded in its meta, or (campaigns from before it was recorded) the C of
    the commit its report was written at, which is the C it ran on when none changed in between."""
    return meta.get("c_source") or (c_source_id(report_commit) if report_commit else None)


def _carried_campaigns(previous: Path, have: set) -> Dict[str, dict]:
    """The campaigns of the report at ``previous`` that ran on the C that is built now (same
    ``c_source_id``) and whose checkpoints are not on this machine: their figures are still this C's, so
    the report keeps them (marked as carried, with the commit whose report they come from) instead of
    dropping them with the checkpoints. A campaign on other C, or any campaign when the C has
    uncommitted changes, is not carried."""
    now = c_source_id()
    if now is None or not previous.exists():
        return {}
    try:
        old = json.loads(previous.read_text())
    except ValueError:
        return {}
    out = {}
    for name, c in old.get("campaigns", {}).items():
        if name in have:
            continue
        meta = dict(c["meta"])
        if _campaign_c_source(meta, meta.get("carried_from") or old.get("commit")) != now:
            continue
        meta.setdefault("carried_from", old.get("commit"))
        meta["c_source"] = now
        out[name] = dict(c, meta=meta)
    return out


def write_report(out_dir: Path = REPORTS) -> dict:
    import datetime as dt
    import platform

    from .parity import _git_commit

    campaigns = {}
    for d in sorted(STATE.glob("*/meta.json")):
        meta = json.loads(d.read_text())
        campaigns[meta["campaign"]] = dict(meta=meta, **totals(d.parent))
    carried = _carried_campaigns(out_dir / "fuzz-native.json", set(campaigns))
    campaigns.update(carried)
    build = {}
    try:
        build = build_info(core_file())
    except Exception as exc:  # noqa: BLE001 - a report without the build info still says what ran
        build = {"error": str(exc)}
    data = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "commit": _git_commit(),
            "python": platform.python_version(), "build": {k: v for k, v in build.items() if k != "producers"},
            "sanitize_flags": sorted({f for p in build.get("producers", []) for f in p.split() if f.startswith("-fsan")}),
            "campaigns": campaigns}
    out_dir.mkdir(exist_ok=True)
    write_report_json(out_dir / "fuzz-native.json", data)

    def tot(c, prefix):
        return sum(v for k, v in c.items() if k.startswith(prefix))

    lines = ["# The compiled core under AddressSanitizer and UBSan", "",
             "Written by `python -m harness fuzz-native` (never by hand; `tox -e core-asan` builds the core and runs it). "
             "Every input runs in a child process with the sanitizer runtime preloaded and `halt_on_error=1`: "
             "a sanitizer report ends the child and is counted as a crash.", "",
             f"- written {data['date']}, commit {data['commit']}, Python {data['python']}",
             f"- core on the path when written (each campaign names the build it ran on): `{build.get('file')}`, optimisation {build.get('optimisation')}, "
             f"sanitizers {' '.join(data['sanitize_flags']) or 'none'}", "",
             "| campaign | kind | inputs parsed | extractions (per mode) | compared with the reference | different "
             "| crashes | sanitizer reports | unexpected exceptions | unraisable | CPU-bound seconds |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    grand = Counter()
    for name, c in campaigns.items():
        counts = c["counts"]
        ext = "; ".join(f"{k.split(':', 1)[1]}: {v:,}" for k, v in counts.items() if k.startswith("extracted:")) or "0"
        san = sum(1 for x in c["crash_list"] if _sanitizer_report(x))
        lines.append(f"| {name} | {c['meta']['kind']} | {counts.get('parsed', 0):,} | {ext} | {tot(counts, 'compared:'):,} "
                     f"| {tot(counts, 'different:'):,} | {c['crashes']} | {san} | {counts.get('bug', 0)} | {c['unraisable']} "
                     f"| {c['seconds']:,.0f} |")
        grand["parsed"] += counts.get("parsed", 0)
        grand["compared"] += tot(counts, "compared:")
        grand["different"] += tot(counts, "different:")
        grand["crashes"] += c["crashes"]
        grand["sanitizer"] += san
        for k, v in counts.items():
            if k.startswith("extracted:"):
                grand[k] += v
    ext = "; ".join(f"{k.split(':', 1)[1]}: {v:,}" for k, v in grand.items() if k.startswith("extracted:")) or "0"
    lines += [f"| **all** | | **{grand['parsed']:,}** | **{ext}** | **{grand['compared']:,}** | **{grand['different']:,}** "
              f"| **{grand['crashes']}** | **{grand['sanitizer']}** | | | |", ""]
    for name, c in campaigns.items():
        m = c["meta"]
        lines += [f"## {name}", "", f"- command: `{m['command']}`", f"- runtime preloaded: `{m.get('preload')}` ({m.get('compiler')} build)"]
        if m.get("carried_from"):
            lines.append(f"- carried over from the report written at {m['carried_from']} (its checkpoints are not on this "
                         f"machine): the same C, sources `cython_core/` + `setup.py` {m['c_source']}")
        elif m.get("c_source"):
            lines.append(f"- C sources `cython_core/` + `setup.py` {m['c_source']}")
        if m["kind"] == "generated":
            lines.append(f"- seed {m['seed']}, target {m['n']:,} inputs in chunks of {m['chunk']:,}; every input parsed "
                         f"(5 entry points), every {m['extract_every']}th extracted"
                         + (f", every {m['compare_every']}th extraction compared with the reference engine" if m['compare_every'] else "")
                         + f"; mutated dev pages {m['mutant_share']:.0%} of inputs")
        else:
            a = c.get("atheris") or {}
            lines.append(f"- libFuzzer runs {a.get('libfuzzer_runs')} in {len(a.get('runs', []))} sessions (the corpus in "
                         f"`.cache/fuzz-native/{name}/corpus` carries over), last coverage {a.get('coverage')}, "
                         + ("C edges of the core instrumented (`-fsanitize=fuzzer-no-link`)" if m.get("sancov")
                            else "only the Python edges of trafila instrumented (the core is a gcc build without coverage hooks)"))
        raises = {k: v for k, v in c["counts"].items() if ":raise:" in k}
        if raises:
            lines.append("- exceptions raised (an outcome, also the reference's): "
                         + ", ".join(f"{k} {v:,}" for k, v in raises.items()))
        for x in c["crash_list"]:
            kind = x["kind"] if _sanitizer_report(x) or x["kind"] not in ("asan", "ubsan") else "libFuzzer exit, no sanitizer finding"
            lines.append(f"- **crash** ({kind}) seed {x['seed']} chunk {x['chunk']} input {x['index']} ({x['label'][:80]}): "
                         f"{x['first_line']}" + (f"; replayed in a new sanitizer child (`fuzz-native replay`): {x['replay']}"
                                                 if x.get("replay") else ""))
        for x in c["bugs"]:
            lines.append(f"- **unexpected exception** {x['raise']} in {x['where']} at input {x['index']}: {x['message'][:120]}")
        for x in c["diffs"]:
            lines.append(f"- **difference** mode {x['mode']} set {x['set']} at input {x['index']} ({x['label'][:80]})")
        lines.append("")
    write_report_text(out_dir / "fuzz-native.md", "\n".join(lines))
    return data


# --------------------------------------------------------------------------- simhash target


def run_simhash(args: argparse.Namespace) -> int:
    """``fuzz-native simhash --n N --seed S``: generated texts (whitespace and punctuation of
    several scripts, astral characters, lone surrogates, long runs) through simhash.pxi's
    ``simhash_sample_tokens`` (both releases) and ``simhash_votes``, each against the Python
    twins (reference/trafila/simhash.py), in one child with the sanitizer runtime preloaded
    (``halt_on_error=1``: a sanitizer report ends it). Exit 1 on a difference or a report."""
    state = STATE / "simhash"
    if os.environ.get("TRAFILA_FUZZ_SIMHASH_CHILD") != "1":
        state.mkdir(parents=True, exist_ok=True)
        preload, compiler = sanitizer_runtime(core_file())
        if preload is None and not args.allow_plain:
            raise SystemExit("trafila._core is not a sanitizer build (tox -e core-asan builds one); --allow-plain runs it anyway")
        env = child_env(state, preload)
        env["TRAFILA_FUZZ_SIMHASH_CHILD"] = "1"
        before = set(glob.glob(str(state / "san" / "*")))
        cmd = [sys.executable, "-m", "harness.fuzz_native", "simhash", "--n", str(args.n), "--seed", str(args.seed)]
        proc = subprocess.run(cmd + ["--allow-plain"] * args.allow_plain, env=env, cwd=ROOT, capture_output=True,
                              text=True)
        logs = sorted(set(glob.glob(str(state / "san" / "*"))) - before)
        report = "".join(Path(p).read_text(errors="replace") for p in logs)
        kind, first = classify_crash(report, logs, proc.stderr) if proc.returncode or logs else ("clean", "")
        print(proc.stdout.strip())
        print(f"simhash: {compiler} sanitizer build, preload {os.path.basename(preload or '')}: child rc "
              f"{proc.returncode}, {kind}{': ' + first if first else ''}")
        return 0 if proc.returncode == 0 and not logs else 1
    from trafila import _engine, simhash

    core = _engine.core_module()
    rng = random.Random(f"fuzz-native-simhash:{args.seed}")
    pools = [" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u3000",
             "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", "。、，！？«»¡¿—–‘’“”…·・「」『』¶§†‡•،؛؟।॥፡",
             "abcdefXYZ0123456789éßñ", "中文字東京大阪ΣΊΣΥΦΟΣабв٣४²½Ⅻ", "\U0001d7d9\U00010000\U0001e95e\U0001f600",
             "\ud800\udfff\x00\x01\u0301\u200b\ufeff"]
    counts: Counter = Counter()
    for k in range(args.n):
        parts = []
        for _ in range(rng.randrange(0, 40)):
            pool = rng.choice(pools)
            parts.append("".join(rng.choice(pool) for _ in range(rng.choice((1, 1, 2, 5, 12, 300)))))
        text = "".join(parts)
        length = rng.choice((64, 64, 64, 32, 8, 1, 0, -1, 1 << 40))
        for release in (False, True):
            want = simhash.sample_tokens_1_11_0(text, length) if release else simhash.sample_tokens(text, length)
            got = core.simhash_sample_tokens(text, length, release)
            counts["compared"] += 1
            if got != want:
                counts["different"] += 1
                print(f"DIFFERENT sample_tokens (1.11.0 {release}) at input {k}: {text!r:.200}", flush=True)
            if all(not ("\ud800" <= ch <= "\udfff") for t in want for ch in t):
                bits = 64 if length > 64 or length < 0 else length
                counts["votes"] += 1
                if core.simhash_votes(got, bits) != simhash._votes_hash(want, bits, None):
                    counts["different"] += 1
                    print(f"DIFFERENT votes at input {k}: {text!r:.200}", flush=True)
    print(f"simhash: {args.n} texts, {counts['compared']} samplings compared, {counts['votes']} tallies, "
          f"{counts['different']} different", flush=True)
    return 1 if counts["different"] else 0


# --------------------------------------------------------------------------- command line


def add_arguments(ap: argparse.ArgumentParser) -> None:
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("run", help="generated and mutated documents, in resumable chunks")
    p.add_argument("--campaign", default="generated")
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=19)
    p.add_argument("--chunk", type=int, default=20_000)
    p.add_argument("--extract-every", type=int, default=1, help="extract every Kth input (0: parse only)")
    p.add_argument("--compare-every", type=int, default=10, help="compare every Mth extraction with the reference (0: never)")
    p.add_argument("--mutant-share", type=float, default=0.2)
    p.add_argument("--max-time", type=float, default=0, help="stop after this many seconds (resumable)")
    p.add_argument("--allow-plain", action="store_true", help="run even if the core is not a sanitizer build")
    p = sub.add_parser("atheris", help="coverage-guided fuzzing with atheris")
    p.add_argument("--campaign", default="atheris")
    p.add_argument("--runs", type=int, default=100_000)
    p.add_argument("--max-time", type=float, default=0)
    sub.add_parser("report", help="merge the campaigns into reports/fuzz-native.md")
    p = sub.add_parser("replay", help="run each crash input of a campaign again in a sanitizer child; "
                       "the outcome is kept with the crash (and shown in the report)")
    p.add_argument("--campaign", required=True)
    p = sub.add_parser("_replay")
    p.add_argument("--file", required=True)
    p.add_argument("--atheris-bytes", action="store_true")
    sub.add_parser("build-info", help="how the core on the path was built and which runtime a child preloads "
                   "(without importing it: that needs the runtime); fails unless it is a sanitizer build")
    p = sub.add_parser("simhash", help="generated texts through simhash.pxi (token sampling, votes) against the "
                       "Python twins, in a sanitizer child")
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--allow-plain", action="store_true", help="run even if the core is not a sanitizer build")
    p = sub.add_parser("_child")
    for name in ("--state", "--seed", "--chunk-index", "--size", "--start", "--extract-every", "--compare-every"):
        p.add_argument(name, type=str if name == "--state" else int, required=True)
    p.add_argument("--mutant-share", type=float, default=0.2)
    p = sub.add_parser("_atheris")
    p.add_argument("--state", required=True)
    p.add_argument("--runs", type=int, required=True)
    p.add_argument("--max-time", type=float, default=0)
    p.add_argument("--sancov", action="store_true")


def run(args: argparse.Namespace, argv: Optional[List[str]] = None) -> int:
    argv = list(argv or [])
    if args.what == "run":
        return run_campaign(args, argv)
    if args.what == "atheris":
        return run_atheris(args, argv)
    if args.what == "_child":
        return _child(args)
    if args.what == "simhash":
        return run_simhash(args)
    if args.what == "_atheris":
        return _atheris_child(args)
    if args.what == "_replay":
        data = Path(args.file).read_bytes()
        if args.atheris_bytes:
            flags, body = (data[0], data[1:]) if data else (0, b"")
            html: Html = _atheris_html(flags, body)
            extract, compare = bool(flags & 2), bool(flags & 8)
        else:
            html, extract, compare = data.decode("utf-8", "surrogatepass"), True, True
        ex = Exerciser(compare=True)
        ex.parse(html, "replay", 0)
        if extract:
            ex.extract(html, "replay", 0, compare)
        print(json.dumps({"counts": dict(ex.counts), "bugs": ex.bugs, "diffs": ex.diffs}))
        return 0
    if args.what == "replay":
        state = STATE / args.campaign
        preload, _ = sanitizer_runtime(core_file())
        meta = json.loads((state / "meta.json").read_text())
        if meta.get("sancov"):
            import importlib.util

            adir = os.path.dirname(importlib.util.find_spec("atheris").origin)
            preload = next((c for c in (os.path.join(d, "asan_with_fuzzer.so") for d in (adir, os.path.dirname(adir)))
                            if os.path.exists(c)), preload)
        crashes = _crashes(state)
        for c in crashes:
            files = sorted((state / "crashes").glob("crash-*")) if c["seed"] == "atheris" else \
                [state / "crashes" / f"{c['seed']}-{c['chunk']}-{c['index']}.html"]
            outs = []
            for f in files:
                cmd = [sys.executable, "-m", "harness.fuzz_native", "_replay", "--file", str(f)]
                if c["seed"] == "atheris":
                    cmd.append("--atheris-bytes")
                proc = subprocess.run(cmd, env=child_env(state, preload), cwd=ROOT, capture_output=True, text=True)
                outs.append("clean" if proc.returncode == 0 and '"bugs": []' in proc.stdout and '"diffs": []' in proc.stdout
                            else f"fails again (rc {proc.returncode})")
            c["replay"] = ", ".join(outs) or "no input kept"
            print(f"{c['seed']} {c['chunk']} {c['index']}: {c['replay']}")
        (state / "crashes.json").write_text(json.dumps(crashes, indent=1))
        write_report()
        return 0
    if args.what == "build-info":
        module = core_file()
        preload, compiler = sanitizer_runtime(module)
        info = {k: v for k, v in build_info(module).items() if k != "producers"}
        info.update(preload=preload, compiler=compiler, sancov=has_sancov(module))
        print(json.dumps(info, indent=1))
        return 0 if preload else 1
    data = write_report()
    print(f"reports/fuzz-native.md: {len(data['campaigns'])} campaigns")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.fuzz_native")
    add_arguments(ap)
    argv = sys.argv[1:] if argv is None else argv
    args = ap.parse_args(argv)
    return run(args, argv[1:])


if __name__ == "__main__":
    sys.exit(main())
