"""cython_core/README.md is the map of the compiled core: it names every file the build
compiles or includes, so a new file cannot go unlisted and a removed one cannot stay listed."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "cython_core"


def test_the_core_map_names_every_source_file() -> None:
    sources = {p.name for p in CORE.rglob("*") if p.suffix in (".pxi", ".pyx", ".pxd")}
    named = set(re.findall(r"`([\w.]+\.(?:pxi|pyx|pxd))`", (CORE / "README.md").read_text(encoding="utf-8")))
    assert sources - named == set(), "files the map does not name"
    assert named - sources == set(), "files the map names that do not exist"


def test_every_included_file_exists() -> None:
    included = re.findall(r'^include "([^"]+)"', (CORE / "_core.pyx").read_text(encoding="utf-8"), re.M)
    assert included, "_core.pyx includes nothing: the pattern is wrong"
    assert [name for name in included if not (CORE / name).exists()] == []
