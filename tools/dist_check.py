"""``tox -e dist``: build trafila's sdist and wheel as a packager would, and install each as a user would.

1. a clean copy of the checkout (git's tracked and unignored files, as a clean clone has
   them, uncommitted edits included) in WORK/src;
2. ``python -m build`` there (the sdist, then the wheel built from the sdist, in isolated
   build environments, with ``TRAFILA_REQUIRE_EXTENSIONS=1``), then ``twine check --strict``;
3. the sdist carries every ``.pyx``/``.pxi``/``.pxd`` of ``cython_core/`` and no generated C;
   the wheel carries ``trafila._core`` and one ``trafila._NAME`` per ``cython_core/fineweb/NAME.pyx``;
4. the wheel installed in a fresh venv with ``CC=false`` (no compiler can run) and the
   ``[trafilatura,charset]`` extras: ``tools/check_install.py --expect-core`` (``engines_built()``
   is ``('reference', 'core')``, both engines agree in both modes, ``trafila --version``), then
   the quick parity (``python -m harness quick``, as ``tox -e parity-quick`` runs it) against
   the installed package;
5. the sdist installed in another fresh venv (the core compiled there): the same checks and the
   same quick parity (``--parity wheel`` runs it after the wheel only);
6. for every other supported CPython present here (python3.10 ... python3.13 on PATH or under
   pyenv; ``--pythons current`` skips them): a wheel built from the sdist with that interpreter
   (``pip wheel``, isolated), ``twine check``, installed in a fresh venv with ``CC=false`` and
   checked by ``tools/check_install.py --expect-core`` (cibuildwheel does the same for the
   manylinux and macOS wheels of a release).

Exit 0 when everything holds; each step prints its time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
#: what a copy never takes when there is no git to ask
IGNORED = (".git", ".tox", ".cache", "build", "dist", "*.egg-info", "__pycache__", "*.so", ".hypothesis",
           ".pytest_cache", ".venv")
EXTRAS = "trafilatura,charset"


def step(title: str) -> float:
    print(f"\n== dist: {title}", flush=True)
    return time.perf_counter()


def done(started: float) -> None:
    print(f"   ({time.perf_counter() - started:.0f} s)", flush=True)


def run(command: Sequence[str], *, cwd: Optional[Path] = None, env: Optional[Dict[str, str]] = None) -> None:
    print("   $ " + " ".join(str(c) for c in command), flush=True)
    subprocess.run([str(c) for c in command], cwd=cwd, env=env, check=True)


def clean_copy(dest: Path) -> None:
    """The checkout's files as a clean clone has them (tracked and unignored; a NAME.c beside a
    NAME.pyx never: it is Cython's output)."""
    if dest.exists():
        shutil.rmtree(dest)
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(*IGNORED))
        return
    for name in filter(None, listed):
        source = ROOT / name
        if not source.is_file():  # deleted in the work tree, not yet in the index
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def cython_sources(src: Path) -> List[str]:
    return sorted(str(p.relative_to(src)) for p in (src / "cython_core").rglob("*")
                  if p.suffix in (".pyx", ".pxi", ".pxd"))


def check_sdist(sdist: Path, src: Path) -> List[str]:
    problems = []
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        pkg_info = tar.extractfile(next(m for m in tar.getmembers() if m.name.endswith("/PKG-INFO")
                                        and m.name.count("/") == 1)).read().decode()
    missing = [n for n in cython_sources(src) if n not in names]
    if missing:
        problems.append(f"the sdist lacks {', '.join(missing)}")
    generated = [n for n in names if n.endswith(".c") and n[:-2] + ".pyx" in names]
    if generated:
        problems.append(f"the sdist carries generated C: {', '.join(generated)}")
    if "License-Expression: Apache-2.0" not in pkg_info:
        problems.append("the sdist's PKG-INFO has no License-Expression: Apache-2.0")
    print(f"   sdist: {len(names)} files, {len(cython_sources(src)) - len(missing)} of "
          f"{len(cython_sources(src))} Cython sources of cython_core/")
    return problems


def check_wheel(wheel: Path, src: Path) -> List[str]:
    problems = []
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        metadata = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    extras = {line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Provides-Extra:")}
    for extra in ("trafilatura", "charset", "datatrove", "fineweb", "lxml", "warc", "progress", "test"):
        if extra not in extras:
            problems.append(f"the wheel's metadata has no extra [{extra}]")
    if "License-Expression: Apache-2.0" not in metadata:
        problems.append("the wheel's METADATA has no License-Expression: Apache-2.0")
    expected = ["_core"] + sorted(p.stem for p in (src / "cython_core" / "fineweb").glob("*.pyx"))
    for stem in expected:
        module = "trafila/_" + stem.lstrip("_")
        if not any(n.startswith(module + ".") and n.endswith((".so", ".pyd")) for n in names):
            problems.append(f"the wheel lacks the compiled {module.replace('/', '.')}")
    for name in ("trafila/py.typed", "trafila/data/justext-stoplists.txt.gz"):
        if name not in names:
            problems.append(f"the wheel lacks {name}")
    if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
        problems.append("the wheel lacks its LICENSE (dist-info/licenses)")
    if wheel.name.endswith("-none-any.whl"):
        problems.append(f"{wheel.name} is a pure wheel")
    print(f"   wheel: {wheel.name}, {len(names)} files, compiled: {', '.join('trafila._' + s.lstrip('_') for s in expected)}")
    return problems


SUPPORTED = ("3.10", "3.11", "3.12", "3.13")


def other_pythons() -> List[Tuple[str, str]]:
    """(version, interpreter) of each supported CPython found here other than this one
    (pythonX.Y on PATH when it runs, else the newest pyenv install of X.Y)."""
    found = []
    current = f"{sys.version_info.major}.{sys.version_info.minor}"
    for version in SUPPORTED:
        if version == current:
            continue
        candidates = [shutil.which(f"python{version}") or ""]
        root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
        candidates += sorted(str(p) for p in Path(root, "versions").glob(f"{version}.*/bin/python{version}"))[::-1]
        for candidate in filter(None, candidates):
            if subprocess.run([candidate, "-c", ""], capture_output=True, check=False).returncode == 0:
                found.append((version, candidate))
                break
        else:
            print(f"   CPython {version}: not found here")
    return found


def venv(path: Path, interpreter: str = sys.executable) -> Path:
    if path.exists():
        shutil.rmtree(path)
    run([interpreter, "-m", "venv", path])
    python = path / "bin" / "python"
    run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"])
    return python


def check_installed(python: Path, work: Path, parity: bool) -> None:
    # from a folder outside any checkout: the installed package is the one imported
    run([python, str(ROOT / "tools" / "check_install.py"), "--expect-core"], cwd=work)
    if parity:
        # as tox -e parity-quick runs it: the harness of this checkout, trafila the installed one
        # (the checkout's root has no trafila package; reference/ is not on the path)
        run([python, "-c", "import trafila, sys; print('parity against', trafila.__file__); "
                           "sys.exit('site-packages' not in trafila.__file__)"], cwd=ROOT)
        env = dict(os.environ, PYTHONHASHSEED="0")
        env.pop("PYTHONPATH", None)
        run([python, "-m", "harness", "quick"], cwd=ROOT, env=env)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=ROOT / ".tox" / "dist-work", help="the working folder (emptied)")
    parser.add_argument("--parity", choices=("both", "wheel", "none"), default="both",
                        help="after which installs the quick parity runs (default: both)")
    parser.add_argument("--pythons", choices=("all", "current"), default="all",
                        help="wheels for every supported CPython present here (default), or this one's only")
    args = parser.parse_args(argv)
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    started_all = time.perf_counter()
    problems: List[str] = []

    started = step(f"a clean copy of {ROOT} in {work / 'src'}")
    src = work / "src"
    clean_copy(src)
    done(started)

    started = step("python -m build (the sdist, then the wheel from the sdist)")
    out = work / "dist"
    shutil.rmtree(out, ignore_errors=True)
    build_env = dict(os.environ, TRAFILA_REQUIRE_EXTENSIONS="1")
    build_env.pop("TRAFILA_NO_EXTENSIONS", None)
    run([sys.executable, "-m", "build", "--outdir", out, src], env=build_env)
    sdist = next(out.glob("trafila-*.tar.gz"))
    wheel = next(out.glob("trafila-*.whl"))
    wheel_names = [wheel.name]
    done(started)

    started = step("twine check --strict, and what the archives carry")
    run([sys.executable, "-m", "twine", "check", "--strict", sdist, wheel])
    problems += check_sdist(sdist, src) + check_wheel(wheel, src)
    done(started)

    started = step("the wheel in a fresh venv, CC=false (no compiler)")
    python = venv(work / "venv-wheel")
    env = dict(os.environ, CC="false", CXX="false")
    run([python, "-m", "pip", "install", "-q", "--only-binary", ":all:", f"{wheel}[{EXTRAS}]"], env=env)
    check_installed(python, work, args.parity in ("both", "wheel"))
    done(started)

    started = step("the sdist in a fresh venv (the core compiled from it)")
    python = venv(work / "venv-sdist")
    run([python, "-m", "pip", "install", "-q", f"trafila[{EXTRAS}] @ {sdist.as_uri()}"], env=build_env)
    check_installed(python, work, args.parity == "both")
    done(started)

    if args.pythons == "all":
        for version, interpreter in other_pythons():
            started = step(f"CPython {version} ({interpreter}): a wheel from the sdist, installed with CC=false")
            wheels = work / f"dist-{version}"
            shutil.rmtree(wheels, ignore_errors=True)
            run([interpreter, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, sdist], env=build_env)
            built = next(wheels.glob("trafila-*.whl"))
            run([sys.executable, "-m", "twine", "check", "--strict", built])
            problems += check_wheel(built, src)
            python = venv(work / f"venv-wheel-{version}", interpreter)
            run([python, "-m", "pip", "install", "-q", built], env=env)
            run([python, str(ROOT / "tools" / "check_install.py"), "--expect-core"], cwd=work)
            wheel_names.append(built.name)
            done(started)

    for problem in problems:
        print(f"dist: {problem}", file=sys.stderr)
    print(f"\ndist: {'FAILED' if problems else 'ok'} ({time.perf_counter() - started_all:.0f} s): "
          f"{sdist.name}, {', '.join(wheel_names)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
