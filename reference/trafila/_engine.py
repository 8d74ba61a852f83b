"""The one switch between engines.

``TRAFILA_ENGINE=reference`` selects the pure-Python reference;
``TRAFILA_ENGINE=core`` the compiled core (an error if it was not built);
unset, the core when it is built, the reference otherwise. Both can be loaded
in one process (the tests and the harness run them side by side).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

ENGINES = ("reference", "core")
#: per mode, the module that implements extract/bare_extraction in the reference engine
_REFERENCE_MODULES = {"2.3.1": "trafila.v2_3_1.core", "1.11.0": "trafila.v1_11_0.core"}


def core_available() -> bool:
    """True when the compiled core was built and imports."""
    try:
        importlib.import_module("trafila._core")
    except ImportError:
        return False
    return True


def _initial_engine() -> str:
    wanted = os.environ.get("TRAFILA_ENGINE", "").strip().lower()
    if wanted in ("", "auto"):
        return "core" if core_available() else "reference"
    if wanted not in ENGINES:
        raise ImportError(f"TRAFILA_ENGINE={wanted!r}: choose one of {', '.join(ENGINES)}")
    if wanted == "core" and not core_available():
        raise ImportError("TRAFILA_ENGINE=core but the compiled core (trafila._core) is not built")
    return wanted


ENGINE = _initial_engine()


def set_engine(name: str) -> None:
    """Switch the engine for this process."""
    global ENGINE
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}; engines: {', '.join(ENGINES)}")
    if name == "core" and not core_available():
        raise ImportError("the compiled core (trafila._core) is not built")
    ENGINE = name


def implementation(mode: str) -> ModuleType:
    """The module that runs ``mode`` in the selected engine."""
    if mode not in _REFERENCE_MODULES:
        raise ValueError(f"unsupported compat mode {mode!r}; supported: {', '.join(sorted(_REFERENCE_MODULES, reverse=True))}")
    if ENGINE == "core":
        core = importlib.import_module("trafila._core")
        return core.implementation(mode)
    return importlib.import_module(_REFERENCE_MODULES[mode])
