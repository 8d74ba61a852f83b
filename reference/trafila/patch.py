"""``trafila.patch("trafilatura")``: code that imports trafilatura gets trafila.

Shims replace ``trafilatura``, ``trafilatura.core``, ``trafilatura.deduplication``
and ``trafilatura.meta`` in ``sys.modules``. Their extract / bare_extraction /
extract_with_metadata carry the installed trafilatura's exact signatures and
route to trafila in the mode of that release (2.3.1 or 1.11.0; ``compat=`` to
choose); LRUCache, LRU_TEST (the mode's module cache), duplicate_test, Simhash,
content_fingerprint and reset_caches are trafila's; every other attribute is the
real module's. ``unpatch()`` puts the real modules back.
"""

from __future__ import annotations

import inspect
import sys
import types
import warnings
from typing import Any, Callable, Dict, Optional

__all__ = ["patch", "unpatch", "PatchWarning"]

_SHIMMED = ("trafilatura", "trafilatura.core", "trafilatura.deduplication", "trafilatura.meta")
_FUNCTIONS = ("extract", "bare_extraction", "extract_with_metadata")


class PatchWarning(UserWarning):
    """trafila.patch() found a trafilatura release other than the one its shims reproduce."""


def _route(name: str, real_function: Optional[Callable[..., Any]], real_default_config: Any,
           compat: Optional[str] = None) -> Callable[..., Any]:
    import trafila  # noqa: PLC0415

    ours = getattr(trafila, name)
    mode = {"compat": compat} if compat is not None else {}
    signature = inspect.signature(real_function) if real_function is not None else None
    if signature is None:
        params = [p for p in inspect.signature(ours).parameters.values() if p.name != "compat"]
        signature = inspect.Signature(params, return_annotation=inspect.signature(ours).return_annotation)

    def shim(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        arguments = dict(bound.arguments)
        for name, param in signature.parameters.items():
            if param.kind is param.VAR_KEYWORD:  # 1.11.0's extract(**kwargs): passed on as keywords
                arguments.update(arguments.pop(name, {}))
        if real_default_config is not None and arguments.get("config") is real_default_config:
            # trafilatura's own default config object stands for "the defaults"
            arguments["config"] = trafila.DEFAULT_CONFIG
        return ours(**arguments, **mode)

    shim.__name__ = shim.__qualname__ = name
    shim.__doc__ = ours.__doc__
    shim.__module__ = getattr(real_function, "__module__", "trafilatura.core")
    shim.__signature__ = signature  # type: ignore[attr-defined]
    shim.__wrapped_trafila__ = ours  # type: ignore[attr-defined]
    return shim


class _ShimModule(types.ModuleType):
    """A module whose own attributes are trafila's and whose others are the real module's."""

    def __init__(self, name: str, real: Optional[types.ModuleType]) -> None:
        super().__init__(name, getattr(real, "__doc__", None))
        self.__dict__["_trafila_real"] = real
        if real is not None:
            for attr in ("__file__", "__path__", "__package__", "__spec__", "__version__"):
                if hasattr(real, attr):
                    self.__dict__[attr] = getattr(real, attr)

    def __getattr__(self, attr: str) -> Any:
        real = self.__dict__.get("_trafila_real")
        if real is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r} (trafilatura is not installed)")
        return getattr(real, attr)


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
    real_default = getattr(real_settings, "DEFAULT_CONFIG", None)
    shims = {name: _ShimModule(name, real[name]) for name in _SHIMMED}
    for name in _FUNCTIONS:
        real_fn = getattr(real["trafilatura.core"], name, None)
        if real_fn is None and top is not None and name == "extract_with_metadata":
            continue  # a release without it: keep the real module's absence
        fn = _route(name, real_fn, real_default, compat)
        shims["trafilatura"].__dict__[name] = fn
        shims["trafilatura.core"].__dict__[name] = fn
    for name in ("baseline", "html2txt"):
        real_fn = getattr(top, name, None)
        if top is None or real_fn is not None:
            shims["trafilatura"].__dict__[name] = _route(name, real_fn, real_default)
    dedup = shims["trafilatura.deduplication"].__dict__
    # the module cache of the mode's default engine (1.11.0's is its own)
    module_cache = trafila._engine.implementation(compat).LRU_TEST
    dedup.update(
        LRUCache=trafila.LRUCache, LRU_TEST=module_cache, duplicate_test=trafila.duplicate_test,
        Simhash=trafila.Simhash, content_fingerprint=trafila.content_fingerprint,
    )
    shims["trafilatura.core"].__dict__["LRUCache"] = trafila.LRUCache
    shims["trafilatura.meta"].__dict__["reset_caches"] = trafila.reset_caches
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
