"""The oracle cache: trafilatura's results per (page, form, option set).

``python -m harness oracle --mode 2.3.1`` runs the installed trafilatura (in
its own tox env: ``tox -e oracle`` / ``tox -e oracle-1.11``) over every
bundle and writes ``corpora/oracle/<mode>/<bundle>.json.gz``, keyed by the
bundle's sha256 and the oracle's versions. A parity run refuses a cache that
is missing or stale (other bundle, other versions, other option set).
"""

from __future__ import annotations

import gzip
import json
import platform
import time
import unicodedata
from pathlib import Path
from typing import Dict, List, Optional

from .candidates import Candidate, HarnessTimeout, call_timeout
from .corpora import CORPORA_DIR, Page, bundle_name, bundle_paths, load_pages, sha256_file
from .matrix import OptionSet, option_sets
from .results import error_entry, raised_entry, result_entry

ORACLE_DIR = CORPORA_DIR / "oracle"


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
        "unicodedata": unicodedata.unidata_version,
        "python": platform.python_version(),
    }


#: the versions that must match for a cache to be valid (python's patch level may vary)
KEY_VERSIONS = ("trafilatura", "lxml", "libxml2", "justext", "unicodedata")


def cache_path(mode: str, bundle: str, base: Path = ORACLE_DIR) -> Path:
    return base / mode / f"{bundle}.json.gz"


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
                 previous: Optional[dict] = None) -> dict:
    """The cache for one bundle. With ``previous`` (a cache valid for this
    bundle and these versions), only the option sets it lacks are run; the
    sets it has, and still defines the same way, are kept as they are."""
    errors: list = []
    pages = load_pages(path, errors)
    keys = [page_key(p) for p in pages]
    if len(set(keys)) != len(keys):
        raise RuntimeError(f"{path.name}: duplicate page ids")
    results: Dict[str, Dict[str, Dict[str, object]]] = {k: {f: {} for f in p.forms()} for k, p in zip(keys, pages)}
    timing: Dict[str, Dict[str, list]] = {}
    kept = _reusable_sets(previous, sets) if previous is not None else set()
    for name in sorted(kept):
        timing[name] = previous["timing"].get(name, {})
        for key, forms in results.items():
            for form, cell in forms.items():
                cell[name] = previous["results"][key][form][name]
    sets_to_run = [o for o in sets if o.name not in kept]
    if kept:
        log(f"  {bundle_name(path)}: kept {', '.join(sorted(kept))}; running {', '.join(o.name for o in sets_to_run)}")
    for opt in sets_to_run:
        for form in ("str", "bytes"):
            todo = [p for p in pages if form in p.forms()]
            if opt.dedup:
                cand.reset_dedup(mode)
            total = 0.0
            for page in todo:
                entry, secs = run_call(cand, opt, page, form, mode, timeout)
                total += secs
                results[page_key(page)][form][opt.name] = entry
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
    tmp = out.with_suffix(".tmp")
    with gzip.GzipFile(tmp, "wb", mtime=0) as fh:
        fh.write(json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    tmp.replace(out)


def read_cache(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)


class StaleCache(Exception):
    """The cache is missing or was made for other inputs, versions or options."""


def check_cache(data: Optional[dict], path: Path, bundle_file: Path, sets: List[OptionSet], versions: Optional[Dict[str, str]] = None) -> None:
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
        for k in KEY_VERSIONS:
            if data["oracle"].get(k) != versions.get(k):
                raise StaleCache(f"oracle cache {path.name} was made with {k} {data['oracle'].get(k)}, expected {versions.get(k)}")


def _same_inputs(previous: dict, bundle_file: Path) -> bool:
    """Whether a cache was made for this bundle file and the installed oracle's key versions."""
    if previous.get("sha256") != sha256_file(bundle_file):
        return False
    versions = oracle_versions()
    return all(previous.get("oracle", {}).get(k) == versions.get(k) for k in KEY_VERSIONS)


def build(mode: str, bundles: Optional[List[str]] = None, *, embedded: Optional[bool] = None, timeout: float = 300.0,
          skip_existing: bool = False, base: Path = ORACLE_DIR) -> int:
    from .candidates import TrafilaturaCandidate

    cand = TrafilaturaCandidate()
    cand.check_mode(mode)
    sets = option_sets(mode)
    for path in bundle_paths(bundles, embedded=embedded):
        out = cache_path(mode, bundle_name(path), base)
        previous = None
        if skip_existing and out.exists():
            previous = read_cache(out)
            try:
                check_cache(previous, out, path, sets, oracle_versions())
                print(f"{out.name}: up to date", flush=True)
                continue
            except StaleCache as err:
                print(f"{out.name}: {err}", flush=True)
            if not _same_inputs(previous, path):
                previous = None  # another bundle or other versions: everything runs again
        t0 = time.time()
        print(f"oracle {mode}: {path.name}", flush=True)
        data = build_bundle(cand, mode, path, sets, timeout, log=lambda m: print(m, flush=True), previous=previous)
        write_cache(data, out)
        print(f"wrote {out} in {time.time() - t0:.0f} s", flush=True)
    return 0
