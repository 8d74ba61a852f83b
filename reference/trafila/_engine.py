"""The engine seam: which implementation runs a release mode.

Two engines implement trafila: ``reference`` (the pure-Python packages
``trafila.v2_3_1`` / ``trafila.v1_11_0``, the specification) and ``core`` (the
compiled module ``trafila._core``). Both can be used side by side in one
process: nothing here is switched globally. :func:`implementation` gives the
:class:`Implementation` of one (engine, mode); ``trafila.engine(name)`` gives
the public API bound to one engine.

The default engine of a mode is the core when it is built and implements that
mode, the reference otherwise; ``TRAFILA_ENGINE=reference|core`` (read when a
default is first needed) forces one.

The core's contract (what ``trafila._core`` must export):

* ``ENGINE_API`` -- ``1``, the version of this contract;
* ``MODES`` -- the release modes whose extraction it runs (a tuple, may be empty);
* ``implementation(mode)`` -- for each mode in ``MODES``, an object with the
  attributes of :data:`IMPLEMENTATION_ATTRIBUTES` (same meaning as the
  reference's, see :func:`_reference_implementation`);
* optionally, on an implementation, ``releases_gil`` -- True when its
  ``extract`` may run in several threads at once (without deduplication) with
  the results it gives in one, and releases the GIL for most of the work, so
  that ``trafila.extract_batch`` gains by running pages on threads; missing
  means False (:data:`OPTIONAL_IMPLEMENTATION_ATTRIBUTES`). The reference
  declares False: pure Python holds the GIL, so its batches run the loop;
* optionally, ``releases_gil_for(kwargs)`` -- the same promise for ``extract``
  called with these keyword arguments only (an engine that runs some option
  sets without the GIL: ``extract_batch`` then runs them on threads where it
  cannot start worker processes); missing means ``releases_gil`` for every call;
* ``parse_document(src)`` -- the HTML parser into the core's own document
  (``document_fromstring`` and ``fromstring`` likewise);
* ``dom`` -- its element model with :mod:`trafila.dom`'s names (``Element``,
  ``SubElement``, ``strip_tags``, ``strip_elements``, ``iselement``,
  ``text_nodes``, ``NO_VALUE``) and parsers giving that model (``fromstring``,
  ``document_fromstring``, ``parse_document``): lazy proxies over the C
  document, so the :mod:`trafila.html` tests and the tree harness run unchanged
  over the core; ``ParserError`` is trafila.html's;
* ``parse_document_reference(src)`` (and the other two) -- the same parse
  converted to the reference element model.

An engine raises :class:`NotNative` for a call it does not serve itself; the
public API then hands the call to the installed trafilatura of that release.
"""

from __future__ import annotations

import importlib
import os
import threading
from types import ModuleType, SimpleNamespace
from typing import Any, Dict, Optional, Tuple

ENGINES = ("reference", "core")
MODES = ("2.3.1", "1.11.0")
CORE_MODULE = "trafila._core"
ENGINE_API = 1

#: what an Implementation of one (engine, mode) provides
IMPLEMENTATION_ATTRIBUTES = (
    "engine", "mode", "extract", "bare_extraction", "baseline", "html2txt", "DEFAULT_CONFIG",
    "LRUCache", "LRU_TEST", "duplicate_test", "trim", "sanitize", "reset_caches",
)

#: what an Implementation may provide, with the value a missing one stands for
OPTIONAL_IMPLEMENTATION_ATTRIBUTES: Dict[str, Any] = {"releases_gil": False, "releases_gil_for": None,
                                                    "extract_metadata": None, "extract_with_metadata": None}

#: the reference engine's modules, per mode
_REFERENCE_PACKAGES = {"2.3.1": "trafila.v2_3_1", "1.11.0": "trafila.v1_11_0"}


class NotNative(NotImplementedError):
    """Raised by an engine for a call it does not serve natively; ``reason``
    names what (it is the FallbackWarning's text)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class EngineUnavailable(ImportError):
    """The engine asked for is not built here, or does not implement the mode."""


#: an Implementation: a namespace with IMPLEMENTATION_ATTRIBUTES
Implementation = SimpleNamespace

_lock = threading.Lock()
_implementations: Dict[Tuple[str, str], Implementation] = {}
_defaults: Dict[str, str] = {}


def check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unsupported compat mode {mode!r}; supported: {', '.join(MODES)}")


def check_engine(name: str) -> None:
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; engines: {', '.join(ENGINES)}")


def core_module() -> ModuleType:
    """The compiled core; :class:`EngineUnavailable` when it is not built (or
    does not follow this contract). An ImportError raised *inside* a built
    core is not hidden."""
    try:
        core = importlib.import_module(CORE_MODULE)
    except ModuleNotFoundError as err:
        if err.name != CORE_MODULE:
            raise
        raise EngineUnavailable("the compiled core (trafila._core) is not built") from None
    if getattr(core, "ENGINE_API", None) != ENGINE_API:
        raise EngineUnavailable(f"trafila._core speaks engine API {getattr(core, 'ENGINE_API', None)!r}, expected {ENGINE_API}")
    return core


def core_built() -> bool:
    """True when the compiled core is built and imports."""
    return core_problem() is None


def core_problem() -> Optional[str]:
    """Why the compiled core cannot be used here, or None when it can."""
    try:
        core_module()
    except EngineUnavailable as err:
        return str(err)
    return None


class CoreMissingWarning(UserWarning):
    """The compiled core is not there, so extraction runs on the slower pure-Python
    reference engine (given once per process, on the first call that picks a default
    engine; ``TRAFILA_ENGINE=reference`` chooses the reference and silences it)."""

    __module__ = "trafila"


#: how to get the core, in the one-time message
CORE_HOWTO = (
    "install trafila's binary wheel for this platform, which has the core inside and needs no compiler "
    "(pip install --only-binary=trafila trafila, or a trafila-*.whl built by `python -m build` or cibuildwheel), "
    "or build it from source with a C compiler and the Python headers: "
    "TRAFILA_REQUIRE_EXTENSIONS=1 pip install --no-binary=trafila --force-reinstall trafila "
    "(from a clone: TRAFILA_REQUIRE_EXTENSIONS=1 pip install .), which fails loudly if it cannot"
)

_core_missing_told = False


def core_missing_message(problem: str) -> str:
    """The one-time message when the default engine is the reference because the core is missing."""
    return (f"trafila: {problem}, so extraction runs on the pure-Python reference engine: the same text, "
            f"at 0.6-0.8x trafilatura's speed instead of many times it. Get the core with trafila's binary wheel "
            f"for this platform (no compiler needed), or build it: TRAFILA_REQUIRE_EXTENSIONS=1 pip install "
            f"--no-binary=trafila --force-reinstall trafila (a C compiler and the Python headers; from a clone: "
            f"TRAFILA_REQUIRE_EXTENSIONS=1 pip install .). `trafila --version` shows the engines; "
            f"TRAFILA_ENGINE=reference chooses the reference and silences this.")


def _tell_core_missing(problem: str) -> None:
    global _core_missing_told
    if _core_missing_told:
        return
    _core_missing_told = True
    from ._delegation import user_stacklevel  # noqa: PLC0415

    import warnings  # noqa: PLC0415

    warnings.warn(core_missing_message(problem), CoreMissingWarning, stacklevel=user_stacklevel())


def engines_built() -> Tuple[str, ...]:
    """The engines importable here, reference first."""
    return ("reference", "core") if core_built() else ("reference",)


def modes_of(engine: str) -> Tuple[str, ...]:
    """The modes whose extraction ``engine`` runs (the core may not run every mode yet)."""
    check_engine(engine)
    if engine == "reference":
        return MODES
    if not core_built():
        return ()
    return tuple(m for m in core_module().MODES if m in MODES)


def default_engine(mode: str) -> str:
    """The engine the public API uses for ``mode`` (see the module docstring)."""
    check_mode(mode)
    name = _defaults.get(mode)
    if name is None:
        wanted = os.environ.get("TRAFILA_ENGINE", "").strip().lower()
        if wanted in ("", "auto"):
            name = "core" if mode in modes_of("core") else "reference"
            problem = core_problem() if name == "reference" else None
            if problem is not None:
                _tell_core_missing(problem)
        else:
            check_engine(wanted)
            if mode not in modes_of(wanted):
                raise EngineUnavailable(f"TRAFILA_ENGINE={wanted} but that engine does not run mode {mode} here")
            name = wanted
        _defaults[mode] = name
    return name


def implementation(mode: str, engine: Optional[str] = None) -> Implementation:
    """The :class:`Implementation` of ``mode`` in ``engine`` (default: :func:`default_engine`)."""
    check_mode(mode)
    if engine is None:
        engine = default_engine(mode)
    check_engine(engine)
    key = (engine, mode)
    impl = _implementations.get(key)
    if impl is None:
        with _lock:
            impl = _implementations.get(key)
            if impl is None:
                impl = _load(engine, mode)
                _implementations[key] = impl
    return impl


def loaded_implementations() -> Tuple[Implementation, ...]:
    """The implementations built so far in this process (what reset_caches must reach)."""
    return tuple(_implementations.values())


def parser(engine: Optional[str] = None) -> Any:
    """The HTML parser of ``engine`` with :mod:`trafila.html`'s interface:
    ``parse_document``, ``document_fromstring``, ``fromstring`` (reference
    element model) and ``ParserError`` (default: the reference's)."""
    html = importlib.import_module("trafila.html")
    if engine is None or engine == "reference":
        return html
    check_engine(engine)
    model = dom(engine)
    return SimpleNamespace(
        engine=engine, ParserError=html.ParserError, parse_document=model.parse_document,
        document_fromstring=model.document_fromstring, fromstring=model.fromstring,
    )


#: what an engine's element model provides (trafila.dom's names)
DOM_ATTRIBUTES = ("Element", "SubElement", "strip_tags", "strip_elements", "iselement", "text_nodes", "NO_VALUE",
                  "fromstring", "document_fromstring", "parse_document")


def dom(engine: Optional[str] = None) -> Any:
    """The element model of ``engine`` (DOM_ATTRIBUTES): trafila.dom with
    trafila.html's parsers for the reference, the core's proxies for the core."""
    if engine is None or engine == "reference":
        html = importlib.import_module("trafila.html")
        ref = importlib.import_module("trafila.dom")
        fields = {a: getattr(ref, a) for a in DOM_ATTRIBUTES[:7]}
        fields.update(fromstring=html.fromstring, document_fromstring=html.document_fromstring,
                      parse_document=html.parse_document, element_type=ref.Element, engine="reference")
        return SimpleNamespace(**fields)
    check_engine(engine)
    model = core_module().dom
    fields = {a: getattr(model, a) for a in DOM_ATTRIBUTES}
    fields.update(element_type=model.CElement, engine=engine)
    return SimpleNamespace(**fields)


def _load(engine: str, mode: str) -> Implementation:
    if engine == "reference":
        impl = _reference_implementation(mode)
    else:
        core = core_module()
        if mode not in modes_of("core"):
            raise EngineUnavailable(f"the compiled core does not run mode {mode} yet (it runs: {', '.join(core.MODES) or 'none'})")
        impl = core.implementation(mode)
    missing = [a for a in IMPLEMENTATION_ATTRIBUTES if not hasattr(impl, a)]
    if missing:
        raise EngineUnavailable(f"engine {engine!r} mode {mode}: the implementation lacks {', '.join(missing)}")
    # extract as loaded: extract_batch's worker processes load their own, so a batch uses
    # them only while this process's is still this one (a test or a tool may replace it)
    impl.extract_as_loaded = impl.extract
    return impl


def _reference_implementation(mode: str) -> Implementation:
    package = _REFERENCE_PACKAGES[mode]
    core = importlib.import_module(f"{package}.core")
    baseline = importlib.import_module(f"{package}.baseline")
    dedup = importlib.import_module(f"{package}.deduplication")
    utils = importlib.import_module(f"{package}.utils")
    settings = importlib.import_module(f"{package}.settings")
    metadata = importlib.import_module(f"{package}.metadata")

    def reset_caches() -> None:
        dedup.LRU_TEST.clear()
        for name in ("trim", "line_processing", "return_printables_and_spaces"):
            fn = getattr(utils, name, None)
            if hasattr(fn, "cache_clear"):
                fn.cache_clear()

    return Implementation(
        engine="reference", mode=mode,
        extract=core.extract, bare_extraction=core.bare_extraction,
        baseline=baseline.baseline, html2txt=getattr(baseline, "html2txt", None),
        DEFAULT_CONFIG=settings.DEFAULT_CONFIG,
        LRUCache=getattr(dedup, "LRUCache", None), LRU_TEST=dedup.LRU_TEST, duplicate_test=dedup.duplicate_test,
        trim=utils.trim, sanitize=utils.sanitize, reset_caches=reset_caches,
        releases_gil=False, extract_metadata=metadata.extract_metadata,
        extract_with_metadata=getattr(core, "extract_with_metadata", None),
    )
