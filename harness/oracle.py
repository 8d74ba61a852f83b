"""The oracle cache: trafilatura's results per (page, form, option set).

``python -m harness oracle --mode 2.3.1`` runs the installed trafilatura (in
its own tox env: ``tox -e oracle`` / ``tox -e oracle-1.11``) over every
bundle and writes ``<mode>/<bundle>.json.gz``, keyed by the bundle's sha256
and the oracle's versions. A parity run refuses a cache that is missing or
stale (other bundle, other versions, other option set).

The committed caches (``corpora/oracle/``) are made under CPython 3.11, whose
Unicode tables are unicodedata :data:`COMMITTED_UNICODEDATA`; trafilatura's
text depends on them (``str.isalpha``, ``\\w``, normalisation). On an
interpreter with other tables a committed cache that is right in every other
respect is replaced by one made for this interpreter, kept in
:data:`LOCAL_ORACLE_DIR` (ignored by git): made on the spot by the installed
trafilatura for a small bundle (the embedded corpus, CI's quick subset), by
``tox -e pyXY-oracle`` for the others (:func:`resolve_cache`).
"""

from __future__ import annotations

import gzip
import json
import os
import platform
import sys
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from .candidates import Candidate, HarnessTimeout, call_timeout
from .corpora import CORPORA_DIR, ROOT, Page, bundle_name, bundle_paths, load_pages, sha256_file
from .matrix import OptionSet, option_sets
from .results import error_entry, raised_entry, result_entry

ORACLE_DIR = CORPORA_DIR / "oracle"
#: caches made for an interpreter other than the committed caches' (ignored by git)
LOCAL_ORACLE_DIR = ROOT / ".cache" / "oracle"
#: the Unicode tables the committed caches were made with (CPython 3.11)
COMMITTED_UNICODEDATA = "14.0.0"
COMMITTED_PYTHON = "3.11"
#: the key versions that come with the interpreter, not with the oracle's packages
INTERPRETER_KEYS = ("unicodedata",)
#: a bundle whose cache for this interpreter is estimated to take at most this long is made on the spot
LIVE_SECONDS = 120.0
#: the live oracle's time per MB of gzipped bundle per option set, measured on the 2-core dev machine
#: (trafilatura 2.3.1, CPython 3.11: goose3 and cleanportaleval, 2.2 MB, 18 option sets, 46 s)
SECONDS_PER_MB_AND_SET = 1.2


def oracle_versions() -> Dict[str, str]:
    """Versions of everything that decides the oracle's output."""
    from importlib.metadata import version

    import lxml.etree as etree
    import trafilatura

    def v(dist: str) -> Optional[str]:
        try:
            return version(dist)
        except Exception:
            return None

    return {
        "trafilatura": trafilatura.__version__,
        "lxml": ".".join(map(str, etree.LXML_VERSION[:3])),
        "libxml2": ".".join(map(str, etree.LIBXML_VERSION)),
        "justext": v("justext"),
        "lxml_html_clean": v("lxml_html_clean"),
        "charset_normalizer": v("charset_normalizer"),
        "cchardet": v("faust-cchardet") or v("cchardet"),
        "unicodedata": unicodedata.unidata_version,
        "python": platform.python_version(),
    }


#: the versions that must match for a cache to be valid (python's patch level may vary)
KEY_VERSIONS = ("trafilatura", "lxml", "libxml2", "justext", "unicodedata")


def cache_path(mode: str, bundle: str, base: Optional[Path] = None) -> Path:
    """Where the committed cache of ``bundle`` is (or, with ``base``, a cache under that directory)."""
    return (base or ORACLE_DIR) / mode / f"{bundle}.json.gz"


def interpreter_tag() -> str:
    """The name of this interpreter's directory of local caches: its Unicode tables."""
    return f"unicodedata-{unicodedata.unidata_version}"


def local_cache_path(mode: str, bundle: str, base: Optional[Path] = None) -> Path:
    """Where a cache made for this interpreter goes (``.cache/oracle/unicodedata-X/<mode>/``)."""
    return cache_path(mode, bundle, (base or LOCAL_ORACLE_DIR) / interpreter_tag())


def committed_interpreter() -> bool:
    """Whether this interpreter has the committed caches' Unicode tables."""
    return unicodedata.unidata_version == COMMITTED_UNICODEDATA


def oracle_env(mode: str) -> str:
    """The tox env that makes the caches of ``mode`` with this interpreter."""
    suffix = "" if mode == "2.3.1" else "-" + ".".join(mode.split(".")[:2])
    if committed_interpreter():
        return f"oracle{suffix}"
    return f"py{sys.version_info[0]}{sys.version_info[1]}-oracle{suffix}"


def estimated_seconds(bundle_file: Path, n_sets: int) -> float:
    """Roughly how long the live oracle takes on a bundle for ``n_sets`` option sets."""
    try:
        size = bundle_file.stat().st_size
    except OSError:
        return float("inf")
    return size / 1e6 * SECONDS_PER_MB_AND_SET * n_sets


def _about(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(5, round(seconds / 5) * 5):.0f} s"
    if seconds < 5400:
        return f"about {round(seconds / 60):.0f} min"
    return f"about {seconds / 3600:.1f} h"


def page_key(page: Page) -> str:
    return page.id


def run_call(cand: Candidate, opt: OptionSet, page: Page, form: str, mode: str, timeout: float):
    """One call: (entry, seconds). Never raises for what the candidate does."""
    t0 = time.perf_counter()
    try:
        with call_timeout(timeout):
            result = cand.call(opt.function, page.input(form), dict(opt.options), mode)
        entry = result_entry(result)
    except HarnessTimeout as exc:
        entry = error_entry(f"timeout: {exc}")
    except Exception as exc:  # what the implementation raises is its result
        from .candidates import CandidateRaised

        entry = {"raise": exc.type_name} if isinstance(exc, CandidateRaised) else raised_entry(exc)
    return entry, time.perf_counter() - t0


def build_bundle(cand: Candidate, mode: str, path: Path, sets: List[OptionSet], timeout: float, log=print,
                 previous: Optional[dict] = None, decoded_only: Sequence[str] = ()) -> dict:
    """The cache for one bundle. With ``previous`` (a cache valid for this
    bundle and these versions), only the option sets it lacks are run; the
    sets it has, and still defines the same way, are kept as they are. The sets
    named in ``decoded_only`` that ``previous`` has are kept but for the bytes form
    of the pages trafilatura decodes itself (not UTF-8), which run again."""
    errors: list = []
    pages = load_pages(path, errors)
    keys = [page_key(p) for p in pages]
    if len(set(keys)) != len(keys):
        raise RuntimeError(f"{path.name}: duplicate page ids")
    results: Dict[str, Dict[str, Dict[str, object]]] = {k: {f: {} for f in p.forms()} for k, p in zip(keys, pages)}
    timing: Dict[str, Dict[str, list]] = {}
    kept = _reusable_sets(previous, sets) if previous is not None else set()
    partial = kept & set(decoded_only)
    for name in sorted(kept):
        timing[name] = previous["timing"].get(name, {})
        for key, forms in results.items():
            for form, cell in forms.items():
                cell[name] = previous["results"][key][form][name]
    sets_to_run = [o for o in sets if o.name not in kept or o.name in partial]
    if kept:
        log(f"  {bundle_name(path)}: kept {', '.join(sorted(kept))}; running {', '.join(o.name for o in sets_to_run)}"
            + (f" (the bytes of non-UTF-8 pages only: {', '.join(sorted(partial))})" if partial else ""))
    for opt in sets_to_run:
        for form in ("str", "bytes"):
            todo = [p for p in pages if form in p.forms()]
            if opt.name in partial:
                if form == "str":
                    continue
                todo = [p for p in todo if p.decoded_by_trafilatura()]
            if opt.dedup:
                cand.reset_dedup(mode)
            total = 0.0
            for page in todo:
                entry, secs = run_call(cand, opt, page, form, mode, timeout)
                total += secs
                results[page_key(page)][form][opt.name] = entry
            if opt.name in partial:
                continue  # the timing of the whole form stays the one measured
            timing.setdefault(opt.name, {})[form] = [len(todo), round(total, 3)]
            log(f"  {bundle_name(path)} {opt.name} {form}: {len(todo)} pages, {total:.1f} s")
    return {
        "bundle": bundle_name(path),
        "file": path.name,
        "sha256": sha256_file(path),
        "mode": mode,
        "oracle": oracle_versions(),
        "option_sets": {o.name: {"function": o.function, "options": o.options, "key": o.key()} for o in sets},
        "corrupt_records": errors,
        "timing": timing,
        "results": results,
    }


def _reusable_sets(previous: dict, sets: List[OptionSet]) -> set:
    """The option sets of ``previous`` still defined as they were when it was made."""
    have = previous.get("option_sets", {})
    return {o.name for o in sets if have.get(o.name, {}).get("key") == o.key()}


def write_cache(data: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")  # runs in other envs may write the same cache
    with gzip.GzipFile(tmp, "wb", mtime=0) as fh:
        fh.write(json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    tmp.replace(out)


def read_cache(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


class StaleCache(Exception):
    """The cache is missing or was made for other inputs, versions or options."""


def check_cache(data: Optional[dict], path: Path, bundle_file: Path, sets: List[OptionSet],
                versions: Optional[Dict[str, str]] = None, keys: Sequence[str] = KEY_VERSIONS) -> None:
    """Raise :class:`StaleCache` unless ``data`` is the cache of ``bundle_file`` as it is, with every
    option set of ``sets`` as defined now, made with ``versions`` (when given) in each of ``keys``."""
    if data is None:
        raise StaleCache(f"no oracle cache for {bundle_file.name} ({path}); run the oracle env for this mode")
    sha = sha256_file(bundle_file)
    if data.get("sha256") != sha:
        raise StaleCache(f"oracle cache {path.name} was made for another {bundle_file.name} (sha256 {data.get('sha256', '?')[:12]} != {sha[:12]})")
    have = data.get("option_sets", {})
    for opt in sets:
        if opt.name not in have or have[opt.name].get("key") != opt.key():
            raise StaleCache(f"oracle cache {path.name} lacks option set {opt.name!r} as defined now; regenerate it")
    if versions:
        for k in keys:
            if data["oracle"].get(k) != versions.get(k):
                raise StaleCache(f"oracle cache {path.name} was made with {k} {data['oracle'].get(k)}, expected {versions.get(k)}")


class OtherInterpreter(StaleCache):
    """The committed cache is right but was made with other Unicode tables, and no cache for this
    interpreter is here. ``seconds``: roughly how long making one takes."""

    def __init__(self, message: str, bundle: str, seconds: float) -> None:
        super().__init__(message)
        self.bundle = bundle
        self.seconds = seconds


@dataclass
class CacheChoice:
    """The cache a parity run compares with, and where it came from."""

    data: dict
    path: Path
    #: "committed" (corpora/oracle), "local" (made for this interpreter before), "live" (made now)
    source: str
    seconds: float = 0.0  # the time it took to make it now


def _live_oracle(mode: str):
    """The installed trafilatura as oracle candidate, or None when it is not this mode's release."""
    try:
        from .candidates import TrafilaturaCandidate

        cand = TrafilaturaCandidate()
    except Exception:
        return None
    return cand if cand.version == mode else None


def resolve_cache(mode: str, bundle_file: Path, sets: List[OptionSet], versions: Optional[Dict[str, str]] = None,
                  *, live: Optional[bool] = None, timeout: float = 300.0,
                  log: Callable[[str], None] = print) -> CacheChoice:
    """The oracle cache to compare ``bundle_file`` with, for this interpreter.

    The committed cache when it is valid (:func:`check_cache` with ``versions``) and was made with this
    interpreter's Unicode tables; when it is valid but for other tables, a cache for this interpreter
    from :data:`LOCAL_ORACLE_DIR`, or one made now by the installed trafilatura (when it is ``mode``'s
    release) if ``live`` is true or, with ``live`` None, if that is estimated to take at most
    :data:`LIVE_SECONDS`. Raises :class:`StaleCache` (:class:`OtherInterpreter` when only a cache for
    this interpreter is missing).
    """
    bname = bundle_name(bundle_file)
    cpath = cache_path(mode, bname)
    if not bundle_file.exists():
        from .corpora import BundleError

        raise BundleError(f"bundle missing: {bundle_file}")
    data = read_cache(cpath) if cpath.exists() else None
    others = tuple(k for k in KEY_VERSIONS if k not in INTERPRETER_KEYS)
    check_cache(data, cpath, bundle_file, sets, versions, keys=others)
    assert data is not None
    here = {"unicodedata": unicodedata.unidata_version}
    made = {k: data["oracle"].get(k) for k in INTERPRETER_KEYS}
    if made == {k: here[k] for k in INTERPRETER_KEYS}:
        return CacheChoice(data, cpath, "committed")
    mine = dict(versions or {}, **here)
    lpath = local_cache_path(mode, bname)
    local = read_cache(lpath) if lpath.exists() else None
    if local is not None:
        try:
            check_cache(local, lpath, bundle_file, sets, mine, keys=KEY_VERSIONS if versions else INTERPRETER_KEYS)
            return CacheChoice(local, lpath, "local")
        except StaleCache:
            pass
    seconds = estimated_seconds(bundle_file, len(sets))
    oracle = _live_oracle(mode)
    if live is None:
        live = seconds <= LIVE_SECONDS
    made_with = f"made with unicodedata {made['unicodedata']} (CPython {data['oracle'].get('python', '?')})"
    if live and oracle is not None:
        log(f"{bname}: the committed oracle cache was {made_with}, this is CPython {platform.python_version()} "
            f"(unicodedata {here['unicodedata']}): making one for this interpreter with the installed "
            f"trafilatura {mode} ({_about(seconds)}) in {_rel(lpath)}")
        t0 = time.time()
        previous = local if local is not None and _same_inputs(local, bundle_file) else None
        if previous is not None:
            # keep the sets it has; run the ones asked for that it lacks, and keep its others
            wanted = {o.name for o in sets}
            sets = sets + [o for o in _defined_sets(previous, mode) if o.name not in wanted]
        fresh = build_bundle(oracle, mode, bundle_file, sets, timeout, log=lambda m: None, previous=previous)
        write_cache(fresh, lpath)
        return CacheChoice(fresh, lpath, "live", time.time() - t0)
    why = ("" if oracle is not None else
           f"; this environment has no trafilatura {mode} to make one now (tox envs have it)")
    raise OtherInterpreter(
        f"oracle cache {cpath.name} was {made_with}; this is CPython {platform.python_version()} "
        f"(unicodedata {here['unicodedata']}), whose Unicode tables can change the text{why}",
        bname, seconds)


def _rel(path: Path) -> str:
    """``path`` relative to the checkout when it is inside it."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _defined_sets(cache: dict, mode: str) -> List[OptionSet]:
    """The option sets of the matrix that ``cache`` holds as defined now."""
    return [o for o in option_sets(mode) if cache.get("option_sets", {}).get(o.name, {}).get("key") == o.key()]


def remedy(mode: str, seconds: float) -> str:
    """The sentence telling how to make the caches this interpreter lacks."""
    return (f"make them for this interpreter with `tox -e {oracle_env(mode)}` ({_about(seconds)} on a 2-core "
            f"machine; they go to {_rel(LOCAL_ORACLE_DIR / interpreter_tag())}/, ignored by git), "
            f"or run under CPython {COMMITTED_PYTHON}, whose caches are committed")


def _same_inputs(previous: dict, bundle_file: Path) -> bool:
    """Whether a cache was made for this bundle file and the installed oracle's key versions."""
    if previous.get("sha256") != sha256_file(bundle_file):
        return False
    versions = oracle_versions()
    return all(previous.get("oracle", {}).get(k) == versions.get(k) for k in KEY_VERSIONS)


def _decoder_refusal() -> Optional[str]:
    """Why this environment cannot be an oracle: trafilatura decodes bytes with cchardet whenever
    it is importable, so its bytes results differ from the pinned oracle envs', which lack it."""
    import importlib.util

    if importlib.util.find_spec("cchardet") is not None:
        return ("cchardet is importable here (a datatrove env?): trafilatura then decodes bytes with it, "
                "unlike the pinned oracle envs (tox -e oracle / oracle-1.11); run the oracle there")
    return None


def build(mode: str, bundles: Optional[List[str]] = None, *, embedded: Optional[bool] = None, timeout: float = 300.0,
          skip_existing: bool = False, base: Optional[Path] = None, rerun: Sequence[str] = (),
          rerun_decoded: bool = False) -> int:
    """Make the caches of ``mode`` with the installed trafilatura: under ``base`` when given, else in
    corpora/oracle/ on the committed caches' interpreter and in this interpreter's
    :data:`LOCAL_ORACLE_DIR` on any other (the committed caches stay as they are). With
    ``skip_existing``, a valid cache keeps its option sets except those named in ``rerun``; with
    ``rerun_decoded`` too, those sets run again only for the bytes of the non-UTF-8 pages (what an
    oracle env with another decoder got wrong)."""
    from .candidates import TrafilaturaCandidate

    refusal = _decoder_refusal()
    if refusal:
        raise SystemExit(f"oracle {mode}: {refusal}")
    cand = TrafilaturaCandidate()
    cand.check_mode(mode)
    sets = option_sets(mode)
    unknown = set(rerun) - {o.name for o in sets}
    if unknown:
        raise SystemExit(f"oracle {mode}: --rerun names unknown option set(s): {', '.join(sorted(unknown))}")
    if base is None and not committed_interpreter():
        base = LOCAL_ORACLE_DIR / interpreter_tag()
        print(f"oracle {mode}: this is CPython {platform.python_version()} (unicodedata {unicodedata.unidata_version}), "
              f"not the committed caches' CPython {COMMITTED_PYTHON} (unicodedata {COMMITTED_UNICODEDATA}): "
              f"writing caches for this interpreter to {base} (ignored by git)", flush=True)
    for path in bundle_paths(bundles, embedded=embedded):
        out = cache_path(mode, bundle_name(path), base)
        previous = None
        decoded_only: Sequence[str] = ()
        if skip_existing and out.exists():
            previous = read_cache(out)
            decoded_only = tuple(rerun) if rerun_decoded else ()
            for name in () if rerun_decoded else rerun:
                previous.get("option_sets", {}).pop(name, None)
            try:
                if decoded_only:
                    raise StaleCache(f"running the bytes of non-UTF-8 pages again for {', '.join(decoded_only)}")
                check_cache(previous, out, path, sets, oracle_versions())
                print(f"{out.name}: up to date", flush=True)
                continue
            except StaleCache as err:
                print(f"{out.name}: {err}", flush=True)
            if not _same_inputs(previous, path):
                previous = None  # another bundle or other versions: everything runs again
        t0 = time.time()
        print(f"oracle {mode}: {path.name}", flush=True)
        data = build_bundle(cand, mode, path, sets, timeout, log=lambda m: print(m, flush=True), previous=previous,
                            decoded_only=decoded_only if previous is not None else ())
        write_cache(data, out)
        print(f"wrote {out} in {time.time() - t0:.0f} s", flush=True)
    return 0
