"""The harness's modules import one another without a circle.

The graph is read from the source with ``ast``, so it does not depend on what a run happens to
import: an edge is any ``import``/``from ... import`` of a harness module anywhere in a file (at
module level or inside a function: an import deferred into a function is still a dependency),
and ``importlib.import_module`` of a harness module named by a string in the same file (the
command line loads its subcommands' modules that way). A circle is reported as the chain of
modules that closes it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Optional, Set

HARNESS = Path(__file__).resolve().parent.parent / "harness"


def module_names(root: Path = HARNESS) -> Dict[str, Path]:
    """Dotted name (``harness.bench``, ``harness.replay.cli``) -> file, for every .py under ``root``."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = ("harness",) + path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _resolve(target: str, known: Set[str]) -> Optional[str]:
    """The harness module ``target`` names, or the package holding it (``harness.x.y`` where
    ``y`` is a function of ``harness.x``), None outside the harness."""
    while target:
        if target in known:
            return target
        target = target.rpartition(".")[0]
    return None


def imports_of(name: str, path: Path, known: Set[str]) -> Dict[str, int]:
    """The harness modules ``name`` imports -> the line of the first such import."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = _package_of(name, path)
    found: Dict[str, int] = {}
    uses_import_module = any(isinstance(node, ast.Attribute) and node.attr == "import_module"
                             or isinstance(node, ast.Name) and node.id == "import_module"
                             for node in ast.walk(tree))

    def add(target: str, line: int) -> None:
        hit = _resolve(target, known)
        if hit is not None and hit != name and hit != "harness":
            found.setdefault(hit, line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:  # `from . import fuzz` imports the module harness.fuzz
                full = f"{base}.{alias.name}"
                add(full if full in known else base, node.lineno)
        elif (uses_import_module and isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value in known):
            add(node.value, node.lineno)
    return found


def import_graph(root: Path = HARNESS) -> Dict[str, Dict[str, int]]:
    """Every harness module -> the harness modules it imports (with the line)."""
    names = module_names(root)
    known = set(names)
    return {name: imports_of(name, path, known) for name, path in names.items()}


def cycle_groups(graph: Dict[str, Dict[str, int]]) -> List[List[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted: the
    modules of a group all reach one another through imports."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    groups: List[List[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return groups


def find_cycles(graph: Dict[str, Dict[str, int]]) -> List[List[str]]:
    """One circle per strongly connected group, as the chain of modules that closes it
    (first module repeated at the end)."""
    return [_chain(graph, group) for group in cycle_groups(graph)]


def _chain(graph: Dict[str, Dict[str, int]], group: List[str]) -> List[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    return paths[node] + [start]
                if nxt in members and nxt not in paths:
                    paths[nxt] = paths[node] + [nxt]
                    following.append(nxt)
        frontier = following
    return group + [start]


def describe(graph: Dict[str, Dict[str, int]], chain: List[str]) -> str:
    """``a (line 3) -> b (line 9) -> a``: each step with the line of the import that makes it."""
    steps = [f"{a} (line {graph[a][b]})" for a, b in zip(chain, chain[1:])]
    return " -> ".join(steps + [chain[-1]])


def test_the_graph_is_read():
    graph = import_graph()
    # a module-level import and one inside a function are both edges
    assert "harness.corpora" in graph["harness.parity"]
    assert "harness.parity" in graph["harness.quick"]
    # the command line loads its subcommands by name
    assert "harness.fuzz" in graph["harness.cli"]


def test_find_cycles_names_the_circle():
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert describe(graph, ["a", "b", "c", "a"]) == "a (line 1) -> b (line 2) -> c (line 3) -> a"
    assert find_cycles({"a": {"b": 1}, "b": {}}) == []


def test_no_import_cycle_in_the_harness():
    graph = import_graph()
    groups = cycle_groups(graph)
    assert not groups, "import cycles in harness/:\n" + "\n".join(
        f"{describe(graph, _chain(graph, group))}\n  (all of {', '.join(group)} reach one another)" for group in groups)
