"""None where a compiled function of the core takes an element (``CElement``) or a cache
(``CLRUCache``) is a TypeError,
never a crash: Cython lets None through a typed argument unless it says ``not None``, and the
functions read the element's document at once. Every ``def`` of cython_core/*.pxi with a
``CElement`` parameter is called with None for each of its arguments; the process surviving
and a TypeError is the test (a function missing ``not None`` would take the test run down)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Tuple

import pytest

core = pytest.importorskip("trafila._core")

_SOURCES = Path(__file__).resolve().parent.parent / "cython_core"
_DEF = re.compile(r"^def (\w+)\((.*?)\)\s*(->[^:]*)?:", re.S | re.M)


def _element_functions() -> List[Tuple[str, int]]:
    """(name, number of parameters) of the module-level defs taking a CElement or a CLRUCache."""
    found = []
    for path in sorted(_SOURCES.glob("*.pxi")):
        for m in _DEF.finditer(path.read_text()):
            params = [p.strip() for p in m.group(2).replace("\n", " ").split(",") if p.strip()]
            params = [p for p in params if not p.startswith("*")]
            if any(re.match(r"(CElement|CLRUCache) \w+", p) for p in params):
                found.append((m.group(1), len(params)))
    return found


FUNCTIONS = _element_functions()


def test_the_functions_are_found() -> None:
    # the accelerators and the nogil stages' hooks: about a hundred
    assert len(FUNCTIONS) > 80
    assert all(hasattr(core, name) for name, _ in FUNCTIONS), [n for n, _ in FUNCTIONS if not hasattr(core, n)]


@pytest.mark.parametrize("name,n", FUNCTIONS, ids=[name for name, _ in FUNCTIONS])
def test_none_for_an_element_is_a_type_error(name: str, n: int) -> None:
    with pytest.raises(TypeError):
        getattr(core, name)(*([None] * n))


def test_a_method_taking_an_element() -> None:
    tree = core.dom.fromstring("<div><p>x</p></div>")
    with pytest.raises(TypeError):
        tree.append(None)


def test_classes_taking_an_element_or_a_cache() -> None:
    with pytest.raises(TypeError):
        core.LruTxnHook(None)
