"""Check an installed trafila (a wheel or an sdist install), from outside any source tree.

Run with the interpreter of the environment it is installed in:

    python tools/check_install.py [--expect-core]

It checks that ``trafila`` is the installed package (not a checkout's), that its version is
the distribution's, that its data files and ``py.typed`` are there, that ``trafila --version``
runs, and that every built engine extracts the same text in both modes. With
``--expect-core`` the compiled core must be among the engines (exit 1 otherwise): what
cibuildwheel's test-command and ``tox -e dist`` ask of a wheel. Exit 0 when all holds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import List

#: a page both modes extract natively, long enough for the main extractor
PAGE = (
    "<html><head><title>A page</title></head><body><nav><a href='/'>Home</a> | <a href='/a'>About</a></nav>"
    "<article><h1>The heading</h1>"
    + "".join(f"<p>Paragraph {i}: a sentence long enough to be kept as main text by the extractor, "
              f"with <b>some</b> words and a <a href='/l{i}'>link</a>.</p>" for i in range(12))
    + "</article><footer>Footer text, copyright and so on.</footer></body></html>"
)


def check(expect_core: bool) -> List[str]:
    """The problems found (empty when the installation is right)."""
    problems: List[str] = []
    # a checkout on sys.path (the current folder, PYTHONPATH) would shadow the installed package
    sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
    import trafila

    where = Path(trafila.__file__).resolve().parent
    print(f"trafila {trafila.__version__} from {where}")
    if (where.parent / "setup.py").exists() or (where.parent.parent / "setup.py").exists():
        problems.append(f"trafila is imported from a source tree ({where}), not from the installation")
    installed = metadata.version("trafila")
    if installed != trafila.__version__:
        problems.append(f"trafila.__version__ is {trafila.__version__}, the installed distribution {installed}")
    for name in ("py.typed", "data/justext-stoplists.txt.gz"):
        if not (where / name).is_file():
            problems.append(f"{name} is missing from the installed package")
    built = trafila.engines_built()
    print(f"engines built: {built}")
    if expect_core and built != ("reference", "core"):
        problems.append(f"engines_built() is {built}, expected ('reference', 'core'): the core is missing")
    script = Path(sys.executable).parent / "trafila"
    done = subprocess.run([str(script) if script.exists() else "trafila", "--version"],
                          capture_output=True, text=True, check=False)
    print(done.stdout, end="")
    if done.returncode != 0 or not done.stdout.startswith(f"trafila {trafila.__version__} "):
        problems.append(f"trafila --version: status {done.returncode}, {done.stdout!r} {done.stderr[-500:]!r}")
    elif "core" in built and "engines built: reference, core\n" not in done.stdout:
        problems.append("trafila --version does not list the core")
    for mode in trafila.TRAFILATURA_VERSIONS:
        texts = {name: trafila.engine(name).extract(PAGE, compat=mode) for name in built}
        print(f"mode {mode}: " + ", ".join(f"{name} {len(text or '')} characters" for name, text in texts.items()))
        if not texts["reference"] or "Paragraph 11" not in texts["reference"]:
            problems.append(f"mode {mode}: the reference extracted {texts['reference']!r}")
        if len(set(texts.values())) != 1:
            problems.append(f"mode {mode}: the engines disagree: {texts!r}")
    return problems


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expect-core", action="store_true", help="fail unless trafila._core is built and imports")
    args = parser.parse_args(argv)
    problems = check(args.expect_core)
    for problem in problems:
        print(f"check_install: {problem}", file=sys.stderr)
    print("check_install: " + ("FAILED" if problems else "ok"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
