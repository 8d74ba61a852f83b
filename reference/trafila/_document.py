"""The Document a native bare_extraction returns: trafilatura 2.3.1's
``trafilatura.settings.Document`` (subclassed when it is installed, a copy of
it otherwise) whose trees are converted to lxml on first read."""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional

from ._delegation import _installed_version, _real_submodule
from . import _trees
from ._trees import _from_tuples, _is_lxml, _to_tuples

__all__ = ["DOCUMENT_FIELDS", "document_class", "wrap_document", "adopt_document"]

#: trafilatura 2.3.1's Document fields, in its order (as_dict keeps it)
DOCUMENT_FIELDS = (
    "title", "author", "url", "hostname", "description", "sitename", "date",
    "categories", "tags", "fingerprint", "id", "license", "body", "comments",
    "commentsbody", "raw_text", "text", "language", "image", "pagetype", "filedate",
)
#: constructor keywords that differ from the field names (as upstream)
_KEYWORD_OF = {"id": "idval", "license": "license_val"}
_TREE_FIELDS = ("body", "commentsbody")


def _empty_body() -> Any:
    "An empty <body>, as trafilatura's Document() starts with."
    if _trees.lxml_available():
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
            slot.__set__(self, _trees._public_tree(pending))
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




def __getattr__(name: str) -> Any:
    # trafila._document.Document is the class built on first use (pickling a class looks it up here)
    if name == "Document":
        return document_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
