"""Write docs/TWINS.md: for each upstream function, the reference and the C that implement it.

The map is read from the code, never kept by hand:

- the **reference**: every function and method of the modules that port an upstream module
  (``reference/trafila/v2_3_1/``, ``v1_11_0/``, the readability forks, ``justext/``,
  ``htmldate/``, ``courlan/``), each under the upstream name it ports;
- the **C twins**: every function of ``cython_core/*.pxi`` that implements an upstream function.
  Its upstream function is the one named by an ``# upstream: module.function`` comment on the
  lines right above its definition, or else, for a ``ng_NAME`` function of the GIL-free sequence,
  the single upstream function called NAME or _NAME (a name two upstream modules share needs
  the tag). A reference module also holds the private helpers its port splits a long upstream
  function into: those are listed under the name the reference gives them.
  ``# upstream: none`` marks a function of the C's own machinery (no upstream counterpart);
- the **tests** of each C twin: the test files that name it or its ``nogil_`` test wrapper, else
  those of its file (``tests/test_core_<file>.py``, or named on a ``# tests:`` header line);
- the **FineWeb steps** (``cython_core/fineweb/*.pyx``, datatrove's filters and spaCy's English
  tokenizer): every function or method tagged ``# upstream:``, with the function of the same
  name in the reference module it twins (``reference/trafila/fineweb/``).

``python tools/gen_twins.py`` rewrites the file; ``--check`` exits 1 when it is out of date or
when a GIL-free stage (``ng_*``/``ng111_*``) has no upstream function (tests/test_twins.py runs it).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference" / "trafila"
CORE = ROOT / "cython_core"
TESTS = ROOT / "tests"
OUTPUT = ROOT / "docs" / "TWINS.md"

#: reference module (relative to reference/trafila) -> (upstream module, releases it ports)
def _reference_modules() -> Iterator[Tuple[Path, str, str]]:
    for release, folder in (("2.3.1", "v2_3_1"), ("1.11.0", "v1_11_0")):
        for path in sorted((REFERENCE / folder).glob("*.py")):
            if not path.stem.startswith("_"):
                yield path, f"trafilatura.{path.stem}", release
    yield REFERENCE / "readability_2_3_1.py", "trafilatura.readability_lxml", "2.3.1"
    yield REFERENCE / "readability_1_11_0.py", "trafilatura.readability_lxml", "1.11.0"
    yield REFERENCE / "simhash.py", "trafilatura.deduplication", "2.3.1"  # Simhash, content_fingerprint
    for package, upstream, release in (("justext", "justext", "jusText 3.0.2"),
                                       ("htmldate", "htmldate", "htmldate 1.11.0"),
                                       ("courlan", "courlan", "courlan 1.4.0")):
        for path in sorted((REFERENCE / package).glob("*.py")):
            if not path.stem.startswith("_"):
                yield path, f"{upstream}.{path.stem}", release


@dataclass
class Upstream:
    name: str                                              # module.function (or module.Class.method)
    reference: Dict[str, str] = field(default_factory=dict)  # release -> path:line
    c: List[str] = field(default_factory=list)             # `function` (file; its tests)


def _definitions(path: Path) -> Iterator[Tuple[str, int]]:
    "(qualified name, line) of the module's functions and its classes' methods."
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{node.name}.{item.name}", item.lineno


_C_DEF = re.compile(r"^(?:cdef|cpdef|def)\b[^(=]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_TAG = re.compile(r"^\s*#\s*upstream:\s*(\S+)")
#: the GIL-free sequence's stages: ng_ (shared, 2.3.1's) and ng111_ (1.11.0's own)
_STAGE = re.compile(r"ng(?:111)?_")


def _c_functions(path: Path) -> Iterator[Tuple[str, int, List[str]]]:
    "(name, line, upstream tags) of the file's top-level functions."
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        match = _C_DEF.match(line)
        if not match or line.startswith(("cdef struct", "cdef class", "cdef enum", "cdef extern")):
            continue
        yield match.group(1), number + 1, _tags_above(lines, number, _TAG)


def _tags_above(lines: List[str], number: int, pattern: "re.Pattern[str]") -> List[str]:
    "The ``pattern`` tags of the comment lines right above line ``number`` (0-based), in file order."
    tags = []
    k = number - 1
    while k >= 0 and lines[k].lstrip().startswith("#"):
        tag = pattern.match(lines[k])
        if tag:
            tags.append(tag.group(1).strip())
        k -= 1
    return tags[::-1]


def _test_words() -> Dict[str, set]:
    "The words of each test file (this map's own test names stages only as examples)."
    return {p.name: set(re.findall(r"\w+", p.read_text(encoding="utf-8")))
            for p in sorted(TESTS.glob("test_*.py")) if p.name != "test_twins.py"}


_TESTS_LINE = re.compile(r"^#\s*tests:\s*(.+)$", re.M)


def _file_tests(path: Path, test_words: Dict[str, set]) -> List[str]:
    """The test files of a .pxi as a whole: ``test_core_<stem>.py``, and those its header names
    on a ``# tests: test_a.py test_b.py`` line."""
    named = [f"test_core_{path.stem}.py"]
    header = path.read_text(encoding="utf-8")[:4000]
    for line in _TESTS_LINE.findall(header):
        named += [Path(word).name for word in line.replace(",", " ").split()]
    return [t for t in dict.fromkeys(named) if t in test_words]


def build() -> Tuple[Dict[str, Upstream], List[str]]:
    "The map, and the GIL-free stages without an upstream function (what --check refuses)."
    upstream: Dict[str, Upstream] = {}
    by_short: Dict[str, List[str]] = {}
    for path, module, release in _reference_modules():
        for qualname, line in _definitions(path):
            name = f"{module}.{qualname}"
            entry = upstream.setdefault(name, Upstream(name))
            entry.reference[release] = str(path.relative_to(REFERENCE))
            short = qualname.rsplit(".", 1)[-1]
            if module.startswith("trafilatura.") and name not in by_short.get(short, []):
                by_short.setdefault(short, []).append(name)
    test_words = _test_words()
    untagged: List[str] = []
    for path in sorted(CORE.glob("*.pxi")):
        for name, line, tags in _c_functions(path):
            where = f"{path.relative_to(ROOT)}:{line} `{name}`"
            targets = [t for t in tags if t != "none"]
            stage = _STAGE.match(name)
            if not tags and stage:
                short = name[stage.end():]
                candidates = by_short.get(short, []) or by_short.get("_" + short, [])
                if len(candidates) == 1:
                    targets = candidates
                else:
                    untagged.append(where + (f" (could be {', '.join(candidates)})" if candidates else ""))
            for target in targets:
                entry = upstream.get(target)
                if entry is None:
                    untagged.append(f"{where}: tag names {target}, which no reference module ports")
                    continue
                wrapper = "nogil_" + name[stage.end():] if stage else name
                tests = [t for t, words in test_words.items() if wrapper in words or name in words] \
                    or [t + " (the file's)" for t in _file_tests(path, test_words)]
                entry.c.append(f"`{name}` ({path.name}; {', '.join(tests) or 'parity only'})")
    return upstream, untagged


#: compiled FineWeb module -> the reference module it twins
FINEWEB_TWINS = {"quality.pyx": "quality.py", "tokenizer_en.pyx": "tokenizer.py"}
#: a FineWeb tag may name a fused loop in words ("a.f + b.g", "a.f (its outcome for ...)")
_TAG_LINE = re.compile(r"^\s*#\s*upstream:\s*(.+)$")
_C_CLASS = re.compile(r"^cdef class ([A-Za-z_][A-Za-z0-9_]*)")
_C_METHOD = re.compile(r"^\s+(?:cdef|cpdef|def)\b[^(=]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _fineweb_twins() -> List[Tuple[str, str, str, str]]:
    """(upstream function, C function with its file, reference twin or '', tests) of every tagged
    function and method of cython_core/fineweb/*.pyx."""
    folder = CORE / "fineweb"
    if not folder.is_dir():
        return []
    test_words = _test_words()
    rows = []
    for path in sorted(folder.glob("*.pyx")):
        reference = REFERENCE / "fineweb" / FINEWEB_TWINS.get(path.name, path.stem + ".py")
        ref_defs = dict(_definitions(reference)) if reference.exists() else {}
        ref_short: Dict[str, List[str]] = {}
        for qualname in ref_defs:
            ref_short.setdefault(qualname.rsplit(".", 1)[-1], []).append(qualname)
        lines = path.read_text(encoding="utf-8").splitlines()
        owner = None
        for number, line in enumerate(lines):
            klass = _C_CLASS.match(line)
            if klass:
                owner = klass.group(1)
            elif line[:1] not in ("", " ", "#"):
                owner = None
            match = _C_DEF.match(line) or (_C_METHOD.match(line) if owner else None)
            if not match or line.startswith(("cdef struct", "cdef class", "cdef enum", "cdef extern")):
                continue
            tags = _tags_above(lines, number, _TAG_LINE)
            if not tags:
                continue
            name = match.group(1)
            qualname = f"{owner}.{name}" if line[:1] == " " and owner else name
            twin = qualname if qualname in ref_defs else (ref_short.get(name, [""]) if len(ref_short.get(name, [])) == 1 else [""])[0]
            tests = [t for t, words in test_words.items() if name in words and path.stem in words] \
                or [t for t, words in test_words.items() if name in words]
            where = f"{reference.relative_to(REFERENCE)}: `{twin}`" if twin else ""
            for tag in tags:
                rows.append((tag, f"`{qualname}` ({path.name}; {', '.join(tests[:3]) or 'parity only'})", where))
    return rows


def render(upstream: Dict[str, Upstream]) -> str:
    out = ["# The twin map: each upstream function, its reference and its C",
           "",
           "Generated by `python tools/gen_twins.py` from the code (do not edit; tests/test_twins.py",
           "checks it is current). A C function names the upstream function it implements with an",
           "`# upstream: module.function` comment above its definition, or, for a `ng_NAME` stage of",
           "the GIL-free sequence, by its name. Only upstream functions with a C twin are listed; the",
           "reference (paths under reference/trafila/) ports every function of its modules, and also",
           "holds the helpers its port splits a long upstream function into, listed under its names.",
           "The parity harness (`tox -e parity`) holds the whole chain equal; the tests named here hold",
           "each twin to its reference.",
           ""]
    modules: Dict[str, List[Upstream]] = {}
    for entry in upstream.values():
        if entry.c:
            modules.setdefault(entry.name.split(".")[0] + "." + entry.name.split(".")[1], []).append(entry)
    total = 0
    for module in sorted(modules):
        out += [f"## {module}", "", "| upstream function | reference | C (file; tests) |", "|---|---|---|"]
        for entry in sorted(modules[module], key=lambda e: e.name):
            reference = "<br>".join(f"{release}: `{where}`" for release, where in sorted(entry.reference.items()))
            out.append(f"| `{entry.name[len(module) + 1:]}` | {reference} | {'<br>'.join(entry.c)} |")
            total += 1
        out.append("")
    fineweb = _fineweb_twins()
    if fineweb:
        out += ["## The FineWeb steps (datatrove 0.10.1, spaCy 3.8's English tokenizer)", "",
                "`cython_core/fineweb/`: each tagged function or method, the upstream function it implements",
                "(several for a fused loop) and its reference twin, compared by `python -m harness filters`.", "",
                "| upstream function | reference | C (file; tests) |", "|---|---|---|"]
        out += [f"| `{tag}` | {where} | {c} |" for tag, c, where in fineweb]
        out.append("")
    out.insert(11, f"{total} upstream functions have a C twin in the extraction's core"
                   + (f"; {len(fineweb)} FineWeb rows." if fineweb else "."))
    out.insert(12, "")
    return "\n".join(out)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/TWINS.md is stale or a stage is untagged")
    args = parser.parse_args(argv)
    upstream, untagged = build()
    text = render(upstream)
    status = 0
    for where in untagged:
        print(f"no upstream function: {where}", file=sys.stderr)
        status = 1
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text(encoding="utf-8") != text:
            print("docs/TWINS.md is out of date: run python tools/gen_twins.py", file=sys.stderr)
            status = 1
        return status
    OUTPUT.write_text(text, encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
