"""The compiled core's C document against its own reference-model form.

The core parses into a C document; ``to_reference()`` and ``fromstring_reference`` give the
same parse as :mod:`trafila.dom` trees, the form the tree harness compares with lxml. The
checks here hold the C side to that form: :func:`c_model_difference` is the ``c-model`` check
of ``python -m harness tree --engine core``, and :class:`harness.core_tree.CoreTreeChecker`
(the core against the reference parser) uses the same comparisons.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple


def outcome(fn: Callable[[], Any]) -> Tuple[str, Any]:
    """``("ok", fn())``, or ``("raise", exception class name)``: two outcomes are equal only
    when both return equal values or both raise the same class."""
    try:
        return ("ok", fn())
    except Exception as err:
        return ("raise", type(err).__name__)


def mark(d: Any) -> Any:
    """A reference-model dump with lxml's "no value" attributes marked ``<NO_VALUE>``."""
    from trafila.dom import NO_VALUE

    if isinstance(d, list):
        if len(d) == 2 and d[1] is NO_VALUE:
            return [d[0], "<NO_VALUE>"]
        return [mark(x) for x in d]
    return d


def unmark(d: Any) -> Any:
    """A marked dump as the C document dumps it (a "no value" attribute is empty there)."""
    if isinstance(d, list):
        if len(d) == 2 and d[1] == "<NO_VALUE>":
            return [d[0], ""]
        return [unmark(x) for x in d]
    return d


def core_root_dump(core: Any, src: Any) -> Any:
    """The C dump of the element the core's fromstring chooses for ``src``."""
    doc = core.fromstring(src)
    return doc.dump_element(doc.root_index)


def c_document_difference(core, dbg, src, want, describe) -> Optional[str]:
    """The C document's dump of ``src`` (``CDocument.dump()``) and its
    ``to_reference()`` against ``want``, the outcome of a marked reference-model
    document dump (:mod:`trafila.html._debug`); None when both agree."""
    got = outcome(lambda: core.parse_document(src).dump())
    got_ref = outcome(lambda: mark(dbg.dump_document(core.parse_document(src).to_reference())))
    plain_want = (want[0], unmark(want[1])) if want[0] == "ok" else want
    if got != plain_want:
        return describe(plain_want, got)
    if got_ref != want:
        return "to_reference: " + describe(want, got_ref)
    return None


def c_root_difference(core, src, want, describe) -> Optional[str]:
    """The C fromstring root's dump against ``want`` (a marked element dump outcome)."""
    c = outcome(lambda: core_root_dump(core, src))
    plain = (want[0], unmark(want[1])) if want[0] == "ok" else want
    return None if c == plain else "C dump: " + describe(plain, c)


def c_model_difference(src) -> Optional[str]:
    """``tree --engine core``'s c-model check: the C document and the C fromstring
    root of ``src`` agree with the core's reference-model forms (the ones the
    tree harness compares with lxml); None when they do."""
    from trafila import _core
    from trafila.html import _debug

    def describe(a, b):
        if a[0] != "ok" or b[0] != "ok":
            return f"reference model {a[0]} {a[1] if a[0] != 'ok' else ''} / C {b[0]} {b[1] if b[0] != 'ok' else ''}"
        return _debug.first_difference(a[1], b[1]) or "differs"

    want = outcome(lambda: mark(_debug.dump_document(_core.parse_document_reference(src))))
    diff = c_document_difference(_core, _debug, src, want, describe)
    if diff:
        return "document: " + diff
    root = outcome(lambda: _core.fromstring_reference(src))
    if root[0] != "ok":
        c = outcome(lambda: core_root_dump(_core, src))
        return None if c == root else "fromstring: " + describe(root, c)
    diff = c_root_difference(_core, src, ("ok", mark(_debug.dump_element(root[1]))), describe)
    return "fromstring: " + diff if diff else None
