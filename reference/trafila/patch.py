"""``trafila.patch("trafilatura")``: code that imports trafilatura gets trafila.

Shims replace ``trafilatura``, ``trafilatura.core``, ``trafilatura.deduplication``
and ``trafilatura.meta`` in ``sys.modules``. Their extract / bare_extraction /
extract_with_metadata carry the installed trafilatura's exact signatures and
route to trafila in the mode of that release (2.3.1 or 1.11.0; ``compat=`` to
choose); LRUCache, LRU_TEST (the module cache), duplicate_test (the mode's
three), reset_caches and, in 2.3.1 mode, baseline, html2txt, Simhash and
content_fingerprint are trafila's; every other attribute is the real module's,
for reading and for writing (an assignment or a ``monkeypatch.setattr`` on a
shim reaches the real module, as it would unpatched). trafilatura's own
DEFAULT_CONFIG object is read as any config (changes made to it in place count),
except when the installed release is not the one reproduced: it then stands
for the mode's defaults.

What trafilatura's users and its own test suite do to these modules keeps its effect:

* ``trafilatura.deduplication.LRU_TEST = cache`` makes ``cache`` the module
  cache of the mode in every engine that runs it *and* of the real
  trafilatura.deduplication, so native calls, handed-over calls and the real
  module's own code all count in it (``unpatch()`` puts the original caches back);
* ``trafilatura.meta.reset_caches()`` empties trafila's caches and then runs
  the real ``reset_caches`` (utils' trim / line_processing caches, jusText's
  stoplists, htmldate, courlan, ...), which handed-over calls fill;
* while ``trafilatura.core.Extractor`` is replaced (a spy or a subclass, by
  assignment or ``monkeypatch``), extract / bare_extraction /
  extract_with_metadata are handed over to the real trafilatura (reason
  ``trafilatura.core.Extractor replaced``): native calls build no trafilatura
  Extractor, so only the real module can apply the replacement.

``unpatch()`` puts the real modules back.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types
import warnings
from typing import Any, Callable, Dict, List, Optional

__all__ = ["patch", "unpatch", "PatchWarning"]

_SHIMMED = ("trafilatura", "trafilatura.core", "trafilatura.deduplication", "trafilatura.meta")
_FUNCTIONS = ("extract", "bare_extraction", "extract_with_metadata")

#: the FallbackWarning reason of the calls handed over while trafilatura.core.Extractor is replaced
EXTRACTOR_REPLACED = "trafilatura.core.Extractor replaced"

#: while patched: (owner, its module cache at patch time) for the reference's deduplication module,
#: each engine's Implementation of the mode and the real trafilatura.deduplication, for unpatch()
_SAVED_CACHES: List[Any] = []


class PatchWarning(UserWarning):
    """trafila.patch() found a trafilatura release other than the one its shims reproduce."""


def _extractor_replaced(real_core: Optional[types.ModuleType], real_settings: Optional[types.ModuleType]) -> bool:
    """Whether the real trafilatura.core's ``Extractor`` is no longer trafilatura.settings' class."""
    if real_core is None or real_settings is None:
        return False
    return real_core.__dict__.get("Extractor") is not getattr(real_settings, "Extractor", None)


def _route(name: str, real_function: Optional[Callable[..., Any]], same_release: bool,
           compat: Optional[str] = None, real_core: Optional[types.ModuleType] = None,
           real_settings: Optional[types.ModuleType] = None) -> Callable[..., Any]:
    """The shim of trafila's ``name`` with ``real_function``'s signature.

    trafilatura's DEFAULT_CONFIG (the real signature's default): with
    ``same_release`` (the installed release is the one reproduced) it is passed
    to trafila as any config, also when the call leaves ``config`` out, so that
    changes made to it in place count as in trafilatura (its 1.11.0 tests set
    MIN_* to 0 there); with another release it stands for the mode's defaults.
    With ``real_core``, calls are handed over while its Extractor is replaced."""
    import trafila  # noqa: PLC0415

    ours = getattr(trafila, name)
    mode = {"compat": compat} if compat is not None else {}
    signature = inspect.signature(real_function) if real_function is not None else None
    if signature is None:
        params = [p for p in inspect.signature(ours).parameters.values() if p.name != "compat"]
        signature = inspect.Signature(params, return_annotation=inspect.signature(ours).return_annotation)
    config_param = signature.parameters.get("config") if real_function is not None else None
    real_default_config = config_param.default if config_param is not None else None

    def shim(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        arguments = dict(bound.arguments)
        for param_name, param in signature.parameters.items():
            if param.kind is param.VAR_KEYWORD:  # 1.11.0's extract(**kwargs): passed on as keywords
                arguments.update(arguments.pop(param_name, {}))
        if real_default_config is not None:
            if same_release:
                arguments.setdefault("config", real_default_config)
            elif arguments.get("config") is real_default_config:
                arguments["config"] = trafila.DEFAULT_CONFIG
        if _extractor_replaced(real_core, real_settings):
            # the replacement sees the call only in the real module (native calls build no Extractor)
            return trafila._delegate(name, EXTRACTOR_REPLACED, compat or trafila.DEFAULT_MODE, arguments)
        return ours(**arguments, **mode)

    shim.__name__ = shim.__qualname__ = name
    shim.__doc__ = ours.__doc__
    shim.__module__ = getattr(real_function, "__module__", "trafilatura.core")
    shim.__signature__ = signature  # type: ignore[attr-defined]
    shim.__wrapped_trafila__ = ours  # type: ignore[attr-defined]
    return shim


_ABSENT = object()


class _ShimModule(types.ModuleType):
    """A module whose own attributes are trafila's and whose others are the real
    module's: read from it, and assigned there too. An own attribute with a
    setter (``_trafila_setters``) passes an assignment on to it.

    Deleting an attribute that was assigned through the shim puts the real
    module's previous value back (deletes it only if it had none): what
    ``monkeypatch.setattr`` and ``mock.patch.object`` do to undo themselves on
    a proxy (they see no entry in its ``__dict__`` and delete).
    """

    def __init__(self, name: str, real: Optional[types.ModuleType]) -> None:
        super().__init__(name, getattr(real, "__doc__", None))
        self.__dict__["_trafila_real"] = real
        self.__dict__["_trafila_setters"] = {}
        #: attributes assigned through the shim on the real module: their previous value there
        self.__dict__["_trafila_overridden"] = {}
        if real is not None:
            for attr in ("__file__", "__path__", "__package__", "__spec__", "__version__"):
                if hasattr(real, attr):
                    self.__dict__[attr] = getattr(real, attr)

    def __getattr__(self, attr: str) -> Any:
        real = self.__dict__.get("_trafila_real")
        if real is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r} (trafilatura is not installed)")
        return getattr(real, attr)

    def __setattr__(self, attr: str, value: Any) -> None:
        setter = self.__dict__["_trafila_setters"].get(attr)
        if setter is not None:
            setter(value)
        real = self.__dict__.get("_trafila_real")
        if attr in self.__dict__ or real is None:
            self.__dict__[attr] = value
            return
        overridden = self.__dict__["_trafila_overridden"]
        previous = overridden.setdefault(attr, real.__dict__.get(attr, _ABSENT))
        if value is previous:
            del overridden[attr]  # set back to what it was
        setattr(real, attr, value)

    def __delattr__(self, attr: str) -> None:
        real = self.__dict__.get("_trafila_real")
        if attr in self.__dict__ or real is None:
            del self.__dict__[attr]
            return
        previous = self.__dict__["_trafila_overridden"].pop(attr, _ABSENT)
        if previous is _ABSENT:
            delattr(real, attr)
        else:
            setattr(real, attr, previous)


def _reference_dedup_module(mode: str) -> types.ModuleType:
    from . import _engine  # noqa: PLC0415

    return importlib.import_module(f"{_engine._REFERENCE_PACKAGES[mode]}.deduplication")


def _set_module_cache(impl: Any, cache: Any, reference_cache: Any) -> None:
    """Make ``cache`` the module cache (LRU_TEST) of one engine's implementation:
    through its ``set_module_cache`` when it has one, else through the reference's
    deduplication module when it is the reference or shares the reference's module
    cache (``reference_cache``, as the core's Implementation does)."""
    setter = getattr(impl, "set_module_cache", None)
    if setter is None and (impl.engine == "reference" or impl.LRU_TEST is reference_cache):
        setter = _reference_dedup_module(impl.mode).set_module_cache
    if setter is None:
        warnings.warn(f"trafila.patch(): engine {impl.engine!r} cannot take a replaced module cache (LRU_TEST); "
                      f"it keeps its own", PatchWarning, stacklevel=3)
        return
    setter(cache)
    impl.LRU_TEST = cache


def _mode_implementations(mode: str) -> List[Any]:
    """The Implementation of ``mode`` in every engine that runs it."""
    from . import _engine  # noqa: PLC0415

    return [_engine.implementation(mode, e) for e in _engine.ENGINES if mode in _engine.modes_of(e)]


def _module_cache_setter(mode: str, real_dedup: Optional[types.ModuleType]) -> Callable[[Any], None]:
    """What ``trafilatura.deduplication.LRU_TEST = cache`` does under the patch: the
    mode's module cache in every engine that runs the mode, and the real module's."""

    def set_module_cache(cache: Any) -> None:
        reference_cache = _reference_dedup_module(mode).LRU_TEST
        for impl in _mode_implementations(mode):
            _set_module_cache(impl, cache, reference_cache)
        if real_dedup is not None:
            real_dedup.LRU_TEST = cache

    return set_module_cache


def _reset_caches_shim(real_reset: Optional[Callable[[], None]]) -> Callable[[], None]:
    """``trafilatura.meta.reset_caches`` under the patch: trafila's caches, then the real ones."""
    import trafila  # noqa: PLC0415

    def reset_caches() -> None:
        trafila.reset_caches()
        if real_reset is not None:
            real_reset()

    reset_caches.__doc__ = (getattr(real_reset, "__doc__", None) or trafila.reset_caches.__doc__)
    reset_caches.__module__ = "trafilatura.meta"
    reset_caches.__wrapped_trafila__ = trafila.reset_caches  # type: ignore[attr-defined]
    return reset_caches


def _import_real() -> Dict[str, Optional[types.ModuleType]]:
    import importlib  # noqa: PLC0415

    out: Dict[str, Optional[types.ModuleType]] = {}
    for name in _SHIMMED:
        try:
            out[name] = importlib.import_module(name)
        except ImportError:
            out[name] = None
    return out


def patch(target: str = "trafilatura", compat: Optional[str] = None) -> None:
    """Install the trafilatura shims in sys.modules (idempotent).

    The shims reproduce ``compat``, by default the installed release when trafila
    has a mode for it (2.3.1 or 1.11.0: a stock datatrove 0.10.1 environment gets
    1.11.0's text), else 2.3.1. A PatchWarning when the installed trafilatura is
    not the release reproduced; without trafilatura the shims still route the
    three functions to trafila.
    """
    import trafila  # noqa: PLC0415

    from . import _delegation as api  # noqa: PLC0415

    if target != "trafilatura":
        raise ValueError(f"trafila.patch() only replaces 'trafilatura', not {target!r}")
    if api._REAL_MODULES:
        return
    real = _import_real()
    top = real["trafilatura"]
    version = getattr(top, "__version__", None)
    if compat is None:
        compat = version if version in trafila.TRAFILATURA_VERSIONS else trafila.DEFAULT_MODE
    elif compat not in trafila.TRAFILATURA_VERSIONS:
        raise ValueError(f"compat must be one of {', '.join(trafila.TRAFILATURA_VERSIONS)}, not {compat!r}")
    if top is not None and version != compat:
        warnings.warn(
            f"trafila.patch(): trafilatura {version} is installed; the shims reproduce {compat}",
            PatchWarning,
            stacklevel=2,
        )
    real_settings = sys.modules.get("trafilatura.settings")
    same_release = top is not None and version == compat
    real_core = real["trafilatura.core"]
    shims = {name: _ShimModule(name, real[name]) for name in _SHIMMED}
    for name in _FUNCTIONS:
        real_fn = getattr(real_core, name, None)
        if real_fn is None and top is not None and name == "extract_with_metadata":
            continue  # a release without it: keep the real module's absence
        fn = _route(name, real_fn, same_release, compat, real_core, real_settings)
        shims["trafilatura"].__dict__[name] = fn
        shims["trafilatura.core"].__dict__[name] = fn
    # trafila's baseline and html2txt are 2.3.1's: in 1.11.0 mode the real ones stay
    for name in ("baseline", "html2txt") if compat == "2.3.1" else ():
        real_fn = getattr(top, name, None)
        if top is None or real_fn is not None:
            shims["trafilatura"].__dict__[name] = _route(name, real_fn, same_release)
    dedup = shims["trafilatura.deduplication"].__dict__
    impl = trafila._engine.implementation(compat)
    # the mode's class, duplicate_test and module cache (1.11.0's are its own)
    module_cache = impl.LRU_TEST
    dedup.update(LRUCache=impl.LRUCache, LRU_TEST=module_cache, duplicate_test=impl.duplicate_test)
    if compat == "2.3.1":  # trafila's Simhash is 2.3.1's (1.11.0's validates existing hashes otherwise)
        dedup.update(Simhash=trafila.Simhash, content_fingerprint=trafila.content_fingerprint)
    reference_dedup = _reference_dedup_module(compat)
    _SAVED_CACHES[:] = [(reference_dedup, reference_dedup.LRU_TEST)] + [
        (i, i.LRU_TEST) for i in _mode_implementations(compat)]
    real_dedup = real["trafilatura.deduplication"]
    if real_dedup is not None:
        _SAVED_CACHES.append((real_dedup, real_dedup.LRU_TEST))
    dedup["_trafila_setters"]["LRU_TEST"] = _module_cache_setter(compat, real_dedup)
    shims["trafilatura.core"].__dict__["LRUCache"] = impl.LRUCache
    real_meta = real["trafilatura.meta"]
    shims["trafilatura.meta"].__dict__["reset_caches"] = _reset_caches_shim(getattr(real_meta, "reset_caches", None))
    shims["trafilatura.meta"].__dict__["LRU_TEST"] = module_cache
    for name in _SHIMMED:
        api._REAL_MODULES[name] = real[name]
    for name in _SHIMMED:
        sys.modules[name] = shims[name]
        parent, _, child = name.rpartition(".")
        if parent:
            shims[parent].__dict__[child] = shims[name]


def unpatch() -> None:
    """Put the real trafilatura modules back (or remove the shims when it is not installed)."""
    from . import _delegation as api  # noqa: PLC0415

    if not api._REAL_MODULES:
        return
    # the module caches replaced through the shim (trafilatura.deduplication.LRU_TEST = ...) go back
    for owner, cache in _SAVED_CACHES:
        if owner.LRU_TEST is cache:
            continue
        if isinstance(owner, types.ModuleType):  # the real module, the reference's deduplication module
            owner.LRU_TEST = cache
            continue
        setter = getattr(owner, "set_module_cache", None)
        if setter is not None:
            setter(cache)
        owner.LRU_TEST = cache
    _SAVED_CACHES.clear()
    for name in _SHIMMED:
        real = api._REAL_MODULES.get(name)
        if real is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = real
    api._REAL_MODULES.clear()


def is_patched() -> bool:
    from . import _delegation as api  # noqa: PLC0415

    return bool(api._REAL_MODULES)
