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
from typing import Any, Dict, List, Optional, Tuple

FUNCTIONS = ("extract", "bare_extraction", "extract_with_metadata")
#: the settings that decide extraction results
CONFIG_PREFIXES = ("MIN_", "MAX_")
CONFIG_KEYS = ("EXTENSIVE_DATE_SEARCH",)
#: trafilatura.settings' element lists, documented as changeable in place (trafilatura #746)
SETTINGS_LISTS = ("MANUALLY_CLEANED", "MANUALLY_STRIPPED", "CUT_EMPTY_ELEMS")


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


def rebuild_element(data: bytes, path: str, html_element: bool) -> Any:
    """The lxml element recorded by :meth:`Recorder.element_input`: its whole
    document re-parsed from XML (HtmlElement classes when the original was an
    lxml.html element) and the element found again by its path."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, huge_tree=True, strip_cdata=False, remove_blank_text=False)
    if html_element:
        from lxml import html as lxml_html

        parser.set_element_class_lookup(lxml_html.HtmlElementClassLookup())
    root = etree.fromstring(data, parser=parser)
    found = root.getroottree().xpath(path)
    if len(found) != 1:
        raise ValueError(f"path {path!r} finds {len(found)} elements")
    return found[0]


def element_nodes(root: Any) -> List[list]:
    """A tree as a flat list in document order, ``[depth, kind, tag, attributes,
    text, tail]`` (kind: element, comment or pi), walked without recursion: the
    form for trees an XML parser refuses to read back (libxml2 caps nesting)."""
    from lxml import etree

    out: List[list] = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if node.tag is etree.Comment:
            out.append([depth, "comment", None, [], node.text, node.tail])
        elif node.tag is etree.ProcessingInstruction:
            out.append([depth, "pi", node.target, [], node.text, node.tail])
        else:
            out.append([depth, "element", node.tag, list(node.attrib.items()), node.text, node.tail])
        stack.extend((child, depth + 1) for child in reversed(node))
    return out


def rebuild_from_nodes(nodes: List[list], html_element: bool, doctype: Optional[list] = None) -> Any:
    "The root of a tree written by :func:`element_nodes` (with its DOCTYPE's public and system ids)."
    from lxml import etree

    make_root = etree.Element
    if html_element:
        from lxml import html as lxml_html

        parser = etree.XMLParser()
        parser.set_element_class_lookup(lxml_html.HtmlElementClassLookup())
        make_root = parser.makeelement
    stack: List[Any] = []
    root = None
    for depth, kind, tag, attributes, text, tail in nodes:
        del stack[depth:]
        if kind == "comment":
            node = etree.Comment(text)
        elif kind == "pi":
            node = etree.ProcessingInstruction(tag, text)
        else:
            node = make_root(tag) if not stack else stack[-1].makeelement(tag)  # children take the root's lookup
            for key, value in attributes:
                node.set(key, value)
            node.text = text
        node.tail = tail
        if stack:
            stack[-1].append(node)
        else:
            root = node
        stack.append(node)
    if doctype and root is not None:
        info = root.getroottree().docinfo
        info.public_id, info.system_url = doctype
    return root


def lru_state(cache: Any) -> str:
    """A hash of a trafilatura LRUCache's entries in order (to notice a test changing it between calls)."""
    root = getattr(cache, "root", None)
    if isinstance(root, list) and len(root) == 4:  # 1.11.0: a circular doubly linked list [prev, next, key, value]
        entries, link = [], root[1]
        while link is not root and len(entries) <= len(cache.cache):
            entries.append((link[2], link[3]))
            link = link[1]
    else:
        entries = list(getattr(cache, "cache", {}).items())
    return hashlib.sha256(json.dumps(entries, default=str).encode("utf-8", "surrogatepass")).hexdigest()[:16]


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
    from ..candidates import TrafilaturaCandidate, plain_document
    from ..matrix import BARE_FIELDS, METADATA_FIELDS

    fields = METADATA_FIELDS if function == "extract_with_metadata" else BARE_FIELDS
    return plain_document(result, fields, TrafilaturaCandidate._tree)


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
        self.fresh_lists: Dict[str, Any] = {}
        self.scanned: set = set()
        # scoped LRUCache objects seen: id -> (label, the object (kept alive so ids stay unique), state after the last call)
        self.caches: Dict[int, list] = {}
        # the module cache (LRU_TEST) after the last recorded call that used it; replay starts from an empty one
        self.module_after: Optional[str] = None
        self.module_empty: Optional[str] = None

    # -- setup
    def install(self) -> None:
        import trafilatura
        import trafilatura.core as core
        from trafilatura import settings

        self.fresh = config_values(settings.use_config())
        self.fresh_lists = {name: encode_value(getattr(settings, name)) for name in SETTINGS_LISTS
                            if hasattr(settings, name)}
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
        if record.get("module_cache"):
            try:
                from trafilatura import deduplication

                self.module_after = lru_state(deduplication.LRU_TEST)
            except ImportError:
                pass
        for label in record.get("scoped_caches", ()):
            for seen in self.caches.values():
                if seen[0] == label:
                    seen[2] = lru_state(seen[1])
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
        elif html is None:
            record["input"] = {"form": "none"}
        elif hasattr(html, "tag") and hasattr(html, "getroottree"):
            record["input"], reason = self.element_input(html)
            if reason:
                reasons.append(reason)
        elif isinstance(getattr(html, "data", None), bytes) and type(html).__module__.startswith("trafilatura"):
            # trafilatura's own Response: its bytes, status and URL rebuild it
            record["input"] = {"form": "response", "sha256": self.blobs.put(html.data), "len": len(html.data),
                               "status": getattr(html, "status", None), "url": getattr(html, "url", None)}
        else:
            kind = type(html).__name__
            record["input"] = {"form": kind}
            reasons.append(f"{kind} input")
        # the configuration in effect
        config = None
        opts = arguments.get("options")
        if opts is not None and hasattr(opts, "config"):
            config = opts.config
        elif arguments.get("settingsfile"):
            from trafilatura.settings import use_config

            try:
                config = use_config(arguments["settingsfile"])
            except Exception:  # noqa: BLE001 - e.g. a missing file: the call raises it, and so must the replay
                config = None
                record["settingsfile_unreadable"] = True
        elif "config" in arguments:
            config = arguments["config"]
        elif "config" in sig.parameters:
            config = sig.parameters["config"].default
        values = config_values(config) if config is not None else {}
        if opts is not None and hasattr(opts, "focus"):
            values.update(extractor_config_values(opts))
        record["config"] = {"values": values, "changed": {k: v for k, v in values.items() if self.fresh.get(k) != v}}
        for key in ("config", "settingsfile"):
            if key == "settingsfile" and record.get("settingsfile_unreadable"):
                continue  # replayed as given
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
                options[key], reason = self.scoped_cache(value, record)
                if reason:
                    reasons.append(reason)
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
        changed_lists = self.changed_settings_lists()
        if changed_lists:
            record["settings_lists"] = changed_lists
        if options.get("deduplicate") is True or (options.get("deduplicate") and "fast" not in sig.parameters):
            try:
                from trafilatura import deduplication

                module_cache = deduplication.LRU_TEST
            except ImportError:
                module_cache = None
            if module_cache is not None:
                record["lru"] = getattr(module_cache, "maxsize", None)
                reason = self.module_cache_before(module_cache, record)
                if reason:
                    reasons.append(reason)
        if reasons:
            record["replayable"] = False
            record["reason"] = "; ".join(reasons)
        return record

    def changed_settings_lists(self) -> Dict[str, Any]:
        """The element lists of trafilatura.settings the test changed in place (their values now)."""
        settings = sys.modules.get("trafilatura.settings")
        out = {}
        for name, fresh in self.fresh_lists.items():
            now = encode_value(getattr(settings, name, None))
            if now != fresh:
                out[name] = now
        return out

    def element_input(self, el: Any) -> Tuple[dict, Optional[str]]:
        """An lxml element as input: its whole document as XML (XPath like ``//p``
        in trafilatura searches from the document, not from the element) and the
        element's path; checked to rebuild to the same tree."""
        try:
            from lxml import etree
            from lxml import html as lxml_html
        except ImportError:
            return {"form": type(el).__name__}, "element input"
        if not isinstance(el, etree._Element):
            return {"form": type(el).__name__}, "element input (not lxml)"
        tree = el.getroottree()
        data = etree.tostring(tree, encoding="utf-8")
        path = tree.getpath(el)
        html_element = isinstance(el, lxml_html.HtmlElement)
        entry = {"form": "element", "sha256": self.blobs.put(data), "len": len(data), "path": path,
                 "html_element": html_element}
        try:
            again = rebuild_element(data, path, html_element)
            same = (etree.tostring(again.getroottree(), encoding="utf-8") == data
                    and etree.tostring(again, encoding="utf-8") == etree.tostring(el, encoding="utf-8")
                    and type(again) is type(el))
        except Exception as err:  # e.g. nesting deeper than libxml2 reads back
            why = f"element input not rebuildable from XML ({type(err).__name__})"
            same = False
        else:
            why = "element input not rebuildable from XML (tree differs)"
        if same:
            return entry, None
        # the node list form, for a lone element tree (no doctype, no siblings of the root)
        root = tree.getroot()
        if el is not root or root.getprevious() is not None or root.getnext() is not None:
            return entry, why
        nodes = element_nodes(root)
        doctype = [tree.docinfo.public_id, tree.docinfo.system_url] if tree.docinfo.doctype else None
        blob = json.dumps(nodes, ensure_ascii=False).encode("utf-8", "surrogatepass")
        entry = {"form": "element", "format": "nodes", "sha256": self.blobs.put(blob), "len": len(blob), "path": path,
                 "html_element": html_element, "doctype": doctype}
        again = rebuild_from_nodes(nodes, html_element, doctype)
        if (element_nodes(again) != nodes or type(again) is not type(el)
                or again.getroottree().docinfo.doctype != tree.docinfo.doctype):
            return entry, why
        return entry, None

    def module_cache_before(self, cache: Any, record: dict) -> Optional[str]:
        """The module dedup cache before a call that uses it: as the recorded calls
        left it, or emptied by the test (``reset_caches()``: replayed as a reset)."""
        if self.module_empty is None:
            self.module_empty = lru_state(type(cache)(getattr(cache, "maxsize", 4096)))
        if self.module_after is None:
            self.module_after = self.module_empty
        state = lru_state(cache)
        record["module_cache"] = True
        if state == self.module_after:
            return None
        if state == self.module_empty:
            record["reset_before"] = True
            return None
        return "module dedup cache changed by the test outside the recorded calls"

    def scoped_cache(self, cache: Any, record: dict) -> Tuple[Any, Optional[str]]:
        """A ``deduplicate=`` cache object: replayed as a fresh cache of the same
        size, one per object, as long as only the recorded calls change it."""
        maxsize = getattr(cache, "maxsize", None)
        if not isinstance(maxsize, int) or not hasattr(cache, "cache"):
            return {"__unreplayable__": type(cache).__name__}, "deduplicate is a " + type(cache).__name__
        state = lru_state(cache)
        seen = self.caches.get(id(cache))
        if seen is None:
            seen = self.caches[id(cache)] = [f"lru{len(self.caches) + 1}", cache, lru_state(type(cache)(maxsize))]
        record.setdefault("scoped_caches", []).append(seen[0])
        value = {"__lru__": seen[0], "maxsize": maxsize}
        if state != seen[2]:
            return value, "scoped LRUCache changed outside the recorded calls"
        return value, None

    def store_result(self, record: dict, name: str, result: Any) -> None:
        from ..results import result_entry

        plain = plain_result(name, result)
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
