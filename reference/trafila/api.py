"""The API boundary of trafila's 2.3.1 mode: the Document result, the choice
between the native engine and the installed trafilatura, and the deduplication
cache shared by both.

Kept apart from ``trafila/__init__.py`` so that importing trafila stays cheap:
nothing here imports trafilatura or lxml before a call needs them.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Optional, Tuple

__all__ = ["Document", "document_class", "wrap_document", "boundary_reason", "to_lxml", "real_trafilatura"]

#: trafilatura 2.3.1's Document fields, in its order (as_dict keeps it)
DOCUMENT_FIELDS = (
    "title", "author", "url", "hostname", "description", "sitename", "date",
    "categories", "tags", "fingerprint", "id", "license", "body", "comments",
    "commentsbody", "raw_text", "text", "language", "image", "pagetype", "filedate",
)
#: constructor keywords that differ from the field names (as upstream)
_KEYWORD_OF = {"id": "idval", "license": "license_val"}
_TREE_FIELDS = ("body", "commentsbody")

# --- the installed trafilatura -------------------------------------------------------

#: the real modules while trafila.patch() has shims in sys.modules
_REAL_MODULES: Dict[str, Any] = {}


def real_trafilatura() -> Any:
    """The installed trafilatura package (not trafila's shim); ImportError without it."""
    if "trafilatura" in _REAL_MODULES:
        return _REAL_MODULES["trafilatura"]
    import trafilatura  # noqa: PLC0415 - only when a call needs it

    return trafilatura


def _installed_version() -> Optional[str]:
    try:
        return real_trafilatura().__version__
    except ImportError:
        return None


def _real_submodule(name: str) -> Any:
    full = f"trafilatura.{name}"
    if full in _REAL_MODULES:
        return _REAL_MODULES[full]
    real_trafilatura()
    return importlib.import_module(full)


# --- element trees ------------------------------------------------------------------

def _is_lxml(obj: Any) -> bool:
    return type(obj).__module__.startswith("lxml")


_FOUND: Dict[str, bool] = {}


def _installed(module: str) -> bool:
    "Whether a top-level module can be imported (looked up once per process)."
    if module not in _FOUND:
        _FOUND[module] = importlib.util.find_spec(module) is not None
    return _FOUND[module]


def lxml_available() -> bool:
    return _installed("lxml")


def to_lxml(el: Any) -> Any:
    """An lxml.etree copy of a trafila element subtree (tag, attributes, text,
    tails; the root's tail too), the root of a new XML document."""
    from .lxmlconvert import to_lxml as convert  # noqa: PLC0415

    return convert(el, html=False)


def _to_tuples(el: Any) -> tuple:
    "A picklable (tag, attributes, text, tail, children) copy of either element model."
    def node(e: Any) -> list:
        return [e.tag, list(e.attrib.items()), e.text, e.tail, []]

    root = node(el)
    stack = [(el, root)]
    while stack:
        src, dst = stack.pop()
        for child in src:
            if not isinstance(child.tag, str):  # lxml comments/PIs: trafilatura's parser drops them
                continue
            new = node(child)
            dst[4].append(new)
            stack.append((child, new))
    return _freeze(root)


def _freeze(root: list) -> tuple:
    out: Dict[int, tuple] = {}
    order = [root]
    i = 0
    while i < len(order):
        order.extend(order[i][4])
        i += 1
    for n in reversed(order):
        out[id(n)] = (n[0], tuple(n[1]), n[2], n[3], tuple(out[id(c)] for c in n[4]))
    return out[id(root)]


def _from_tuples(data: tuple) -> Any:
    "A trafila element tree from _to_tuples' output."
    from .dom import Element  # noqa: PLC0415

    def make(n: tuple) -> Any:
        e = Element(n[0], dict(n[1]) if n[1] else None)
        e.text, e.tail = n[2], n[3]
        return e

    root = make(data)
    stack = [(data, root)]
    while stack:
        src, dst = stack.pop()
        for child in src[4]:
            new = make(child)
            dst.append(new)
            new.tail = child[3]
            stack.append((child, new))
    return root


def _public_tree(value: Any) -> Any:
    "What a reader of Document.body gets: lxml when installed, else the XML string."
    if value is None or isinstance(value, str) or _is_lxml(value):
        return value
    if lxml_available():
        return to_lxml(value)
    from .html.serialize import tostring  # noqa: PLC0415

    return tostring(value, encoding="unicode")


# --- Document --------------------------------------------------------------------

def _empty_body() -> Any:
    "An empty <body>, as trafilatura's Document() starts with."
    if lxml_available():
        from lxml.etree import Element  # noqa: PLC0415

        return Element("body")
    return "<body/>"


class _PlainDocument:
    """trafilatura 2.3.1's Document without trafilatura (the base when it is absent)."""

    __slots__ = DOCUMENT_FIELDS

    def __init__(self, **fields: Any) -> None:
        allowed = {_KEYWORD_OF.get(f, f): f for f in DOCUMENT_FIELDS}
        for key in fields:
            if key not in allowed:
                raise TypeError(f"Document() got an unexpected keyword argument {key!r}")
        for keyword, field in allowed.items():
            value = fields.get(keyword)
            if value is None and field in _TREE_FIELDS:
                value = _empty_body()
            setattr(self, field, value)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> Any:
        doc = cls()
        for key, value in data.items():
            setattr(doc, key, value)
        return doc

    def clean_and_trim(self) -> None:
        "Cap string fields at 10,000 characters, unescape HTML entities, clean each as one line."
        from html import unescape  # noqa: PLC0415

        from .v2_3_1.utils import line_processing  # noqa: PLC0415

        for field in DOCUMENT_FIELDS:
            value = getattr(self, field)
            if isinstance(value, str):
                if len(value) > 10000:
                    value = value[:9999] + "…"
                setattr(self, field, line_processing(unescape(value)))

    def as_dict(self) -> Dict[str, Any]:
        return {field: getattr(self, field, None) for field in DOCUMENT_FIELDS}


_UNSET = object()
_class_lock = threading.Lock()
_DOCUMENT_CLASS: Optional[type] = None


def _tree_property(field: str, slot: Any) -> property:
    pending_name = f"_pending_{field}"

    def get(self: Any) -> Any:
        pending = getattr(self, pending_name, _UNSET)
        if pending is not _UNSET:
            # built on first read, then kept (as lxml keeps one tree per document)
            slot.__set__(self, _public_tree(pending))
            object.__setattr__(self, pending_name, _UNSET)
        return slot.__get__(self, type(self))

    def set_(self: Any, value: Any) -> None:
        object.__setattr__(self, pending_name, _UNSET)
        slot.__set__(self, value)

    return property(get, set_, doc=f"the {field} tree: an lxml element (an XML string without lxml)")


def _restore_document(cls_name: str, state: Dict[str, Any]) -> Any:
    "Unpickling: trees come back as trafila elements, converted again on first read."
    doc = document_class().__new__(document_class())
    for field in DOCUMENT_FIELDS:
        value = state.get(field)
        if field in _TREE_FIELDS and isinstance(value, tuple):
            doc.set_native_tree(field, _from_tuples(value))
        else:
            setattr(doc, field, value)
    return doc


def document_class() -> type:
    """trafila's Document class: a subclass of trafilatura.settings.Document
    when trafilatura 2.3.1 is installed (imported here, on first use), else of
    a standalone copy of it."""
    global _DOCUMENT_CLASS
    if _DOCUMENT_CLASS is not None:
        return _DOCUMENT_CLASS
    with _class_lock:
        if _DOCUMENT_CLASS is not None:
            return _DOCUMENT_CLASS
        base: type = _PlainDocument
        if _installed_version() == "2.3.1":
            base = _real_submodule("settings").Document
        namespace: Dict[str, Any] = {
            "__slots__": ("_pending_body", "_pending_commentsbody"),
            "__module__": __name__,
            "__qualname__": "Document",
            "__doc__": (
                "Extracted text and trees (trafilatura.settings.Document's fields; metadata fields None).\n\n"
                "``body``/``commentsbody`` are lxml elements built on first read (XML strings without lxml)."
            ),
        }
        for field in _TREE_FIELDS:
            namespace[field] = _tree_property(field, getattr(base, field))

        def set_native_tree(self: Any, field: str, tree: Any) -> None:
            "Store a trafila element tree, converted only when the field is read."
            if field not in _TREE_FIELDS:
                raise ValueError(field)
            getattr(base, field).__set__(self, None)
            object.__setattr__(self, f"_pending_{field}", tree)

        def native_tree(self: Any, field: str) -> Any:
            "The tree as the engine built it (no conversion), or the public value once read."
            pending = getattr(self, f"_pending_{field}", _UNSET)
            return getattr(self, field) if pending is _UNSET else pending

        def reduce(self: Any) -> Any:
            state = {}
            for field in DOCUMENT_FIELDS:
                value = native_tree(self, field) if field in _TREE_FIELDS else getattr(self, field, None)
                if field in _TREE_FIELDS and value is not None and not isinstance(value, str):
                    value = _to_tuples(value)
                state[field] = value
            return (_restore_document, ("Document", state))

        namespace.update(set_native_tree=set_native_tree, native_tree=native_tree, __reduce__=reduce)
        cls = type("Document", (base,), namespace)
        # as_dict/clean_and_trim (and readers such as the harness) walk __slots__: show trafilatura's fields only
        cls.__slots__ = list(DOCUMENT_FIELDS)
        _DOCUMENT_CLASS = cls
        return cls


def wrap_document(engine_doc: Any) -> Any:
    """The public Document for what v2_3_1.core.bare_extraction returned
    (None and dicts pass through: as_dict=True is handled by the caller)."""
    if engine_doc is None:
        return None
    cls = document_class()
    doc = cls.__new__(cls)
    for field in DOCUMENT_FIELDS:
        value = getattr(engine_doc, field, None)
        if field in _TREE_FIELDS and value is not None and not isinstance(value, str) and not _is_lxml(value):
            doc.set_native_tree(field, value)
        else:
            setattr(doc, field, value)
    return doc


def adopt_document(result: Any) -> Any:
    """A trafilatura Document returned by a delegated call, as a trafila Document
    (same field values; its trees are already lxml), so results have one type and pickle."""
    if result is None or not isinstance(result, _real_submodule("settings").Document):
        return result
    cls = document_class()
    if isinstance(result, cls):
        return result
    doc = cls.__new__(cls)
    for field in DOCUMENT_FIELDS:
        setattr(doc, field, getattr(result, field, None))
    return doc


# --- the native/delegated decision -------------------------------------------------

_SIZE_SETTINGS = (
    "MIN_EXTRACTED_SIZE", "MIN_OUTPUT_SIZE", "MIN_OUTPUT_COMM_SIZE", "MIN_DUPLCHECK_SIZE",
    "MAX_REPETITIONS", "MAX_FILE_SIZE", "MIN_FILE_SIZE",
)
_GZIP_MAGIC = b"\x1f\x8b\x08"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
CPYTHON_INT_DIGITS = 4300


def _bytes_reason(raw: bytes) -> Optional[str]:
    if raw[:3] == _GZIP_MAGIC or raw[:4] == _ZSTD_MAGIC:
        return "compressed bytes"
    # a zlib header (CM=8, FCHECK): trafilatura inflates speculatively
    if len(raw) >= 2 and raw[0] & 0x0F == 8 and (raw[0] * 256 + raw[1]) % 31 == 0:
        return "compressed bytes"
    if _installed("brotli"):
        import brotli  # noqa: PLC0415

        try:
            brotli.Decompressor().process(raw[:65536], output_buffer_limit=1)
            return "compressed bytes"
        except Exception:  # noqa: BLE001 - not brotli
            pass
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "non-UTF-8 bytes (charset detection)"
    return None


def _input_reason(filecontent: Any) -> Optional[str]:
    if isinstance(filecontent, str):
        return None
    if isinstance(filecontent, bytes):
        return _bytes_reason(filecontent)
    if _is_lxml(filecontent) and hasattr(filecontent, "tag"):
        return "lxml tree input"
    if hasattr(filecontent, "data"):
        return "HTTP response input"
    # anything else: the engine's load_html refuses it and the call gives None, as upstream
    return None


def _config_reason(config: Any) -> Optional[str]:
    if config is None or not hasattr(config, "get"):
        return None
    for key in _SIZE_SETTINGS:
        try:
            value = int(config.get("DEFAULT", key, fallback="0"))
        except (ValueError, TypeError):
            return None  # the engine raises what upstream raises
        if value < 0:
            return f"negative {key}"
    return None


def input_reason(filecontent: Any) -> Optional[str]:
    """Why an input alone must be delegated (lxml trees, responses, compressed or
    non-UTF-8 bytes, another int-digits limit), or None."""
    limit = getattr(sys, "get_int_max_str_digits", None)
    if limit is not None and limit() != CPYTHON_INT_DIGITS:
        return f"sys.set_int_max_str_digits({limit()})"
    return _input_reason(filecontent)


#: trafilatura.settings' element lists, which trafilatura documents as changeable in place (its issue #746)
_SETTINGS_LISTS = ("MANUALLY_CLEANED", "MANUALLY_STRIPPED", "CUT_EMPTY_ELEMS")


def _settings_reason() -> Optional[str]:
    """A user changed the installed trafilatura 2.3.1's element lists in place:
    its extraction changes with them, so the call goes to it."""
    theirs = sys.modules.get("trafilatura.settings")
    if theirs is None or _installed_version() != "2.3.1":
        return None
    from .v2_3_1 import settings as ours  # noqa: PLC0415

    for name in _SETTINGS_LISTS:
        value = getattr(theirs, name, None)
        if value is not None and value != getattr(ours, name):
            return f"trafilatura.settings.{name} changed in place"
    return None


def boundary_reason(function: str, args: Dict[str, Any], default_config: Any) -> Optional[str]:
    """Why this 2.3.1-mode call must go to the installed trafilatura, or None
    when the native engine serves it. Decided before the engine runs."""
    limit = getattr(sys, "get_int_max_str_digits", None)
    if limit is not None and limit() != CPYTHON_INT_DIGITS:
        return f"sys.set_int_max_str_digits({limit()})"
    options = args.get("options")
    if options is not None and type(options).__module__.startswith("trafilatura"):
        return "options= a trafilatura Extractor"
    fmt = args.get("output_format")
    if fmt not in ("txt", "python"):
        from .v2_3_1.settings import SUPPORTED_FORMATS  # noqa: PLC0415

        # an unknown format is the engine's (its Extractor raises as upstream's)
        if isinstance(fmt, str) and fmt in SUPPORTED_FORMATS:
            return f"output format {fmt}"
    for name, label in (("include_formatting", "include_formatting"), ("include_links", "include_links"),
                        ("include_images", "include_images"), ("with_metadata", "metadata extraction"),
                        ("only_with_metadata", "metadata extraction"), ("url_blacklist", "url_blacklist"),
                        ("author_blacklist", "author_blacklist"), ("target_language", "target_language")):
        if args.get(name):
            return label
    if args.get("prune_xpath") is not None:
        return "prune_xpath (user XPath)"
    dedup = args.get("deduplicate")
    if dedup is not None and type(dedup).__module__.startswith("trafilatura"):
        return "deduplicate= trafilatura's own LRUCache"
    reason = _input_reason(args.get("filecontent")) or _settings_reason()
    if reason:
        return reason
    config = args.get("config")
    if config is default_config:
        config = None
    if args.get("settingsfile"):
        try:
            from .v2_3_1.settings import use_config  # noqa: PLC0415

            config = use_config(args["settingsfile"])
        except Exception:  # noqa: BLE001 - the engine raises it
            config = None
    return _config_reason(config)


# --- one deduplication state across native and delegated calls --------------------

@contextmanager
def lend_cache(args: Dict[str, Any]) -> Iterator[None]:
    """Around a delegated call: a trafila LRUCache (or the module cache, for
    deduplicate=True) is copied into a trafilatura LRUCache, and the counts come
    back afterwards, so native and delegated calls count in one state.
    The trafila cache's lock is held for the whole call."""
    from .v2_3_1.deduplication import LRU_TEST, LRUCache  # noqa: PLC0415

    dedup = args.get("deduplicate")
    options = args.get("options")
    if not dedup or (options is not None and hasattr(options, "dedup")):
        yield
        return
    theirs_mod = _real_submodule("deduplication")
    if isinstance(dedup, LRUCache):
        ours = dedup
        theirs = theirs_mod.LRUCache(maxsize=ours.maxsize)
        with ours.lock:
            theirs.cache = OrderedDict(ours.cache)
            args["deduplicate"] = theirs
            try:
                yield
            finally:
                args["deduplicate"] = ours
                ours.cache = OrderedDict(theirs.cache)
        return
    if type(dedup).__module__.startswith("trafilatura"):
        yield
        return
    # deduplicate=True: both module caches hold the same counts during the call
    with _share_module_cache(LRU_TEST, theirs_mod.LRU_TEST):
        yield


@contextmanager
def lend_module_cache_1_11_0(args: Dict[str, Any]) -> Iterator[None]:
    """1.11.0 mode: any true ``deduplicate`` means the module cache (1.11.0 has
    no scoped caches), shared with trafilatura 1.11.0's during a delegated call."""
    if not args.get("deduplicate"):
        yield
        return
    from .v1_11_0.deduplication import LRU_TEST  # noqa: PLC0415

    theirs = _real_submodule("deduplication").LRU_TEST
    with LRU_TEST.lock, theirs.lock:
        saved = _linked_items(theirs)
        _load_linked(theirs, LRU_TEST.cache.items())
        try:
            yield
        finally:
            LRU_TEST.cache = OrderedDict(_linked_items(theirs))
            _load_linked(theirs, saved)


# trafilatura 1.11.0's LRUCache keeps its order in a circular linked list of
# [prev, next, key, result] links; its state moves in and out through put() in order.
def _linked_items(cache: Any) -> list:
    items, root = [], cache.root
    link = root[1]
    while link is not root:
        items.append((link[2], link[3]))
        link = link[1]
    return items


def _load_linked(cache: Any, items: Any) -> None:
    cache.clear()
    for key, value in items:
        cache.put(key, value)


@contextmanager
def _share_module_cache(ours: Any, theirs: Any) -> Iterator[None]:
    """trafilatura's module cache holds trafila's counts during the call; they come back after."""
    with ours.lock, theirs.lock:
        saved = theirs.cache
        theirs.cache = OrderedDict(ours.cache)
        try:
            yield
        finally:
            ours.cache = OrderedDict(theirs.cache)
            theirs.cache = saved


def __getattr__(name: str) -> Any:
    # trafila.api.Document is the class built on first use (pickling a class looks it up here)
    if name == "Document":
        return document_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
