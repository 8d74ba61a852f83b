"""pytest plugin that records trafilatura's extraction calls made by its own test suite.

Loaded with ``-p harness.replay.recorder`` (see :mod:`harness.replay.record`).
It wraps ``extract``, ``bare_extraction`` and ``extract_with_metadata``
everywhere a module holds a reference to them (trafilatura's modules and the
test modules), and writes one JSON line per OUTERMOST call, in call order:

``seq``, ``test`` (node id), ``function``, ``input`` (form and sha256 of the
blob, or the type of an input that cannot be replayed), ``options`` (the bound
keyword arguments, encoded by :func:`encode_value`), ``config`` (the effective
``MIN_*``/``MAX_*`` values and their difference from a fresh ``settings.cfg``),
``lru`` (the module dedup cache's size), ``replayable``/``reason`` and
``result`` (hashed as :mod:`harness.results` does; the text itself goes to the
blob store).

Environment: ``TRAFILA_REPLAY_OUT`` (the JSON Lines file), ``TRAFILA_REPLAY_BLOBS``
(the sha256 blob store directory).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

FUNCTIONS = ("extract", "bare_extraction", "extract_with_metadata")
#: the settings that decide extraction results
CONFIG_PREFIXES = ("MIN_", "MAX_")
CONFIG_KEYS = ("EXTENSIVE_DATE_SEARCH",)


# --------------------------------------------------------------------------- blob store and encoding


class BlobStore:
    """Content-addressed files: ``<dir>/<sha[:2]>/<sha>``."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def put(self, data: bytes) -> str:
        sha = hashlib.sha256(data).hexdigest()
        target = self.path / sha[:2] / sha
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(".tmp%d" % os.getpid())
            tmp.write_bytes(data)
            tmp.replace(target)
        return sha

    def get(self, sha: str) -> bytes:
        return (self.path / sha[:2] / sha).read_bytes()


class NotReplayable(Exception):
    """An argument value that cannot be written down and rebuilt."""


def encode_value(value: Any) -> Any:
    """A JSON form of an option value (sets and tuples tagged); raises NotReplayable."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (set, frozenset)):
        return {"__set__": sorted(encode_value(v) for v in value)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode_value(v) for v in value]}
    if isinstance(value, list):
        return [encode_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"__dict__": {k: encode_value(v) for k, v in value.items()}}
    raise NotReplayable(type(value).__name__)


def decode_value(value: Any) -> Any:
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if isinstance(value, dict):
        if "__set__" in value:
            return set(decode_value(v) for v in value["__set__"])
        if "__tuple__" in value:
            return tuple(decode_value(v) for v in value["__tuple__"])
        if "__dict__" in value:
            return {k: decode_value(v) for k, v in value["__dict__"].items()}
    return value


def config_values(config: Any) -> Dict[str, str]:
    """The extraction-relevant values of a ConfigParser's DEFAULT section."""
    out: Dict[str, str] = {}
    try:
        items = config["DEFAULT"].items()
    except Exception:
        return out
    for key, value in items:
        key = key.upper()
        if key.startswith(CONFIG_PREFIXES) or key in CONFIG_KEYS:
            out[key] = value
    return dict(sorted(out.items()))


#: Extractor attribute -> settings.cfg key
EXTRACTOR_CONFIG = {"min_extracted_size": "MIN_EXTRACTED_SIZE", "min_output_size": "MIN_OUTPUT_SIZE",
                    "min_output_comm_size": "MIN_OUTPUT_COMM_SIZE", "min_duplcheck_size": "MIN_DUPLCHECK_SIZE",
                    "max_repetitions": "MAX_REPETITIONS", "max_file_size": "MAX_FILE_SIZE",
                    "min_file_size": "MIN_FILE_SIZE", "max_tree_size": "MAX_TREE_SIZE"}


def extractor_config_values(opts: Any) -> Dict[str, str]:
    """The size settings an Extractor holds (a test may have changed them after construction)."""
    out = {}
    for attr, key in EXTRACTOR_CONFIG.items():
        if hasattr(opts, attr):
            value = getattr(opts, attr)
            out[key] = "" if value is None else str(value)
    return out


def extractor_arguments(opts: Any) -> Dict[str, Any]:
    """Keyword arguments of extract/bare_extraction that rebuild an equivalent Extractor."""
    g = lambda name, default=None: getattr(opts, name, default)  # noqa: E731
    return {
        "url": g("url") or g("source"),
        "fast": g("fast", False),
        "favor_precision": g("focus") == "precision",
        "favor_recall": g("focus") == "recall",
        "include_comments": g("comments", True),
        "output_format": g("format", "txt"),
        "tei_validation": g("tei_validation", False),
        "target_language": g("lang"),
        "include_tables": g("tables", True),
        "include_images": g("images", False),
        "include_formatting": g("formatting"),
        "include_links": g("links", False),
        "deduplicate": g("dedup", False),
        "date_extraction_params": g("date_params"),
        "with_metadata": g("with_metadata", False),
        "only_with_metadata": g("only_with_metadata", False),
        "url_blacklist": g("url_blacklist") or None,
        "author_blacklist": g("author_blacklist") or None,
    }


# --------------------------------------------------------------------------- results


def plain_result(function: str, result: Any) -> Any:
    """The candidate interface's plain result (see harness.candidates)."""
    if function == "extract":
        return result
    if result is None:
        return None
    from ..candidates import _lxml_xml
    from ..matrix import BARE_FIELDS

    get = result.get if isinstance(result, dict) else (lambda k: getattr(result, k, None))
    out = {}
    for field in BARE_FIELDS:
        value = get(field)
        if field in ("body", "commentsbody"):
            value = _lxml_xml(value) if value is not None and not isinstance(value, str) else value
        out[field] = value
    return out


# --------------------------------------------------------------------------- the recorder


class Recorder:
    def __init__(self, out: Path, blobs: Path, child: bool = False) -> None:
        self.out_path = Path(out)
        self.out_path.parent.mkdir(parents=True, exist_ok=True)
        self.child = child
        if not child:
            self.out_path.write_text("")
        # append mode: processes started by the tests write to the same file, in time order
        self.fh = open(self.out_path, "a", encoding="utf-8")
        self.blobs = BlobStore(blobs)
        self.local = threading.local()
        self.seq = 0
        self.test: Optional[str] = None
        self.originals: Dict[str, Any] = {}
        self.wrappers: Dict[int, Any] = {}
        self.signatures: Dict[str, inspect.Signature] = {}
        self.fresh: Dict[str, str] = {}
        self.default_lru: Optional[int] = None
        self.scanned: set = set()

    # -- setup
    def install(self) -> None:
        import trafilatura
        import trafilatura.core as core
        from trafilatura import settings

        self.fresh = config_values(settings.use_config())
        try:
            from trafilatura import deduplication

            self.default_lru = getattr(deduplication.LRU_TEST, "maxsize", None)
        except ImportError:
            pass
        for name in FUNCTIONS:
            orig = getattr(core, name, None) or getattr(trafilatura, name, None)
            if orig is None:
                continue
            self.originals[name] = orig
            self.signatures[name] = inspect.signature(orig)
            self.wrappers[id(orig)] = self.wrap(name, orig)
        if not self.child:
            self.write({"header": True, "trafilatura": trafilatura.__version__, "trafilatura_file": trafilatura.__file__,
                    "functions": sorted(self.originals), "fresh_config": self.fresh,
                        "default_lru_maxsize": self.default_lru, "python": sys.version.split()[0]})
        self.patch_modules()

    def patch_modules(self, only_new: bool = False) -> int:
        """Point every module-level reference to an original at its wrapper
        (``only_new``: in modules not scanned before)."""
        n = 0
        for key, mod in list(sys.modules.items()):
            if only_new and key in self.scanned:
                continue
            self.scanned.add(key)
            name = getattr(mod, "__name__", "") or ""
            if mod is None or name.startswith("harness"):
                continue
            try:
                items = list(vars(mod).items())
            except TypeError:
                continue
            for attr, value in items:
                wrapper = self.wrappers.get(id(value))
                if wrapper is not None and value is self.originals.get(getattr(wrapper, "_replay_name", "")):
                    setattr(mod, attr, wrapper)
                    n += 1
        return n

    def write(self, record: dict) -> None:
        self.fh.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()

    # -- one call
    def wrap(self, name: str, orig: Any) -> Any:
        recorder = self

        @functools.wraps(orig)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(recorder.local, "depth", 0)
            if depth:
                recorder.local.depth = depth + 1
                try:
                    return orig(*args, **kwargs)
                finally:
                    recorder.local.depth = depth
            recorder.local.depth = 1
            try:
                record = recorder.describe_call(name, args, kwargs)
            except Exception as err:  # never break the test because of the recorder
                record = {"function": name, "replayable": False, "reason": f"recorder error: {type(err).__name__}: {err}"}
            try:
                result = orig(*args, **kwargs)
            except BaseException as exc:
                record["result"] = {"raise": type(exc).__name__}
                recorder.finish(record)
                raise
            finally:
                recorder.local.depth = 0
            try:
                recorder.store_result(record, name, result)
            except Exception as err:
                record["result"] = {"error": f"recorder could not store the result: {type(err).__name__}: {err}"}
                record["replayable"] = False
                record["reason"] = "result not storable"
            recorder.finish(record)
            return result

        wrapper._replay_name = name  # type: ignore[attr-defined]
        return wrapper

    def finish(self, record: dict) -> None:
        self.seq += 1
        record["seq"] = self.seq
        record["test"] = self.test
        if self.child:
            record["subprocess"] = " ".join(sys.argv)[:200]
        self.write(record)

    def describe_call(self, name: str, args: Tuple, kwargs: Dict[str, Any]) -> dict:
        sig = self.signatures[name]
        bound = sig.bind(*args, **kwargs)
        arguments = dict(bound.arguments)
        record: Dict[str, Any] = {"function": name, "replayable": True}
        reasons = []
        # the input
        first = next(iter(sig.parameters))
        html = arguments.pop(first, None)
        if isinstance(html, str):
            record["input"] = {"form": "str", "sha256": self.blobs.put(html.encode("utf-8", "surrogatepass")), "len": len(html)}
        elif isinstance(html, (bytes, bytearray)):
            record["input"] = {"form": "bytes", "sha256": self.blobs.put(bytes(html)), "len": len(html)}
        else:
            kind = type(html).__name__
            record["input"] = {"form": kind}
            reasons.append("element input" if hasattr(html, "tag") else f"{kind} input")
        # the configuration in effect
        config = None
        opts = arguments.get("options")
        if opts is not None and hasattr(opts, "config"):
            config = opts.config
        elif arguments.get("settingsfile"):
            from trafilatura.settings import use_config

            config = use_config(arguments["settingsfile"])
        elif "config" in arguments:
            config = arguments["config"]
        elif "config" in sig.parameters:
            config = sig.parameters["config"].default
        values = config_values(config) if config is not None else {}
        if opts is not None and hasattr(opts, "focus"):
            values.update(extractor_config_values(opts))
        record["config"] = {"values": values, "changed": {k: v for k, v in values.items() if self.fresh.get(k) != v}}
        for key in ("config", "settingsfile"):
            arguments.pop(key, None)
        # the other options
        options: Dict[str, Any] = {}
        if opts is not None:
            # an Extractor overrides every keyword: replay its values as keywords
            if hasattr(opts, "focus"):
                arguments = extractor_arguments(opts)
                if "fast" not in sig.parameters and "no_fallback" in sig.parameters:  # 1.11 names it no_fallback
                    arguments["no_fallback"] = arguments.pop("fast")
                arguments = {k: v for k, v in arguments.items() if k in sig.parameters}
                record["options_from"] = "Extractor"
            else:
                arguments = {"options": opts}
        for key, value in arguments.items():
            if key == "options" and value is not None:
                reasons.append("Extractor options object")
                options[key] = {"__unreplayable__": type(value).__name__}
                continue
            if key == "deduplicate" and value not in (True, False):
                reasons.append("scoped LRUCache")
                options[key] = {"__unreplayable__": type(value).__name__}
                continue
            if key == "kwargs" and isinstance(value, dict):  # 1.11: **kwargs (deprecated names)
                for k, v in value.items():
                    options[k] = encode_value(v)
                continue
            try:
                options[key] = encode_value(value)
            except NotReplayable as err:
                reasons.append(f"{key} is a {err}")
                options[key] = {"__unreplayable__": str(err)}
        record["options"] = options
        if options.get("deduplicate") is True:
            try:
                from trafilatura import deduplication

                record["lru"] = getattr(deduplication.LRU_TEST, "maxsize", None)
            except ImportError:
                pass
        if reasons:
            record["replayable"] = False
            record["reason"] = "; ".join(reasons)
        return record

    def store_result(self, record: dict, name: str, result: Any) -> None:
        from ..results import result_entry

        plain = plain_result(name, result) if name != "extract_with_metadata" else plain_result("bare_extraction", result)
        record["result"] = result_entry(plain)
        texts = {}
        if isinstance(plain, str):
            texts["text"] = self.blobs.put(plain.encode("utf-8", "surrogatepass"))
        elif isinstance(plain, dict):
            for k, v in plain.items():
                if isinstance(v, str):
                    texts[k] = self.blobs.put(v.encode("utf-8", "surrogatepass"))
        if texts:
            record["result_blobs"] = texts


# --------------------------------------------------------------------------- subprocesses


def start_child() -> None:
    """Record the calls of a process started by a test (see site/sitecustomize.py)."""
    import atexit

    rec = Recorder(Path(os.environ["TRAFILA_REPLAY_OUT"]), Path(os.environ["TRAFILA_REPLAY_BLOBS"]), child=True)
    rec.test = os.environ.get("TRAFILA_REPLAY_TEST")
    rec.install()
    atexit.register(rec.close)


# --------------------------------------------------------------------------- pytest hooks

_RECORDER: Optional[Recorder] = None


def pytest_configure(config: Any) -> None:
    global _RECORDER
    out = os.environ.get("TRAFILA_REPLAY_OUT")
    blobs = os.environ.get("TRAFILA_REPLAY_BLOBS")
    if not out or not blobs:
        raise RuntimeError("harness.replay.recorder needs TRAFILA_REPLAY_OUT and TRAFILA_REPLAY_BLOBS")
    _RECORDER = Recorder(Path(out), Path(blobs))
    _RECORDER.install()
    # processes the tests start record into the same file (harness/replay/site/sitecustomize.py)
    os.environ["TRAFILA_REPLAY_SUBPROCESS"] = "1"


def pytest_collection_finish(session: Any) -> None:
    # the test modules are imported now: patch their `from trafilatura import extract`
    if _RECORDER is not None:
        n = _RECORDER.patch_modules()
        _RECORDER.write({"header": True, "patched_references": n})


def pytest_runtest_setup(item: Any) -> None:
    if _RECORDER is not None:
        _RECORDER.test = item.nodeid
        os.environ["TRAFILA_REPLAY_TEST"] = item.nodeid
        # a test may import trafilatura modules late: patch what appeared since
        _RECORDER.patch_modules(only_new=True)


def pytest_unconfigure(config: Any) -> None:
    if _RECORDER is not None:
        _RECORDER.close()
