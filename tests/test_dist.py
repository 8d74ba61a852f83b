"""The release path (issue 41), as far as it is quick to check: the version and ``trafila
--version``, the one-time message when the compiled core is missing, an import failure of the
installed trafilatura reported as itself, the packaging metadata (extras, licence), and the
sdist's manifest (built here with ``setup.py sdist``: about a second, no Cython, no compiler).
Building and installing the wheel and the sdist is ``tox -e dist`` (tools/dist_check.py)."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import warnings
from pathlib import Path
from typing import Any, Dict, List

import pytest

import trafila
from trafila import _engine
from trafila.cli import main as cli_main

ROOT = Path(__file__).resolve().parent.parent

PAGE = ("<html><body><article>"
        + "".join(f"<p>Paragraph {i}: a sentence long enough to be kept as main text, with several words.</p>"
                  for i in range(8))
        + "</article></body></html>")


def _pyproject() -> Dict[str, Any]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


# --- the version --------------------------------------------------------------------------

def test_version_is_pep440_and_the_changelog_has_it():
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", trafila.__version__)
    project = _pyproject()["project"]
    # one place for the version: pyproject reads trafila.__version__
    assert "version" in project["dynamic"] and "version" not in project
    assert _pyproject()["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "trafila.__version__"}
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## (\S+)", changelog, re.M)
    assert first is not None and first.group(1) == trafila.__version__


def test_cli_version_names_engine_modes_and_pinned_releases(capsys):
    assert cli_main(["--version"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith(f"trafila {trafila.__version__} (Python ")
    assert lines[1].startswith(f"engines built: {', '.join(trafila.engines_built())}")
    for mode in trafila.TRAFILATURA_VERSIONS:
        line = next(line for line in lines if line.startswith(f"mode {mode}"))
        assert f"engine {_engine.default_engine(mode)};" in line
        for name, version in trafila.REPRODUCED_VERSIONS[mode].items():
            assert f"{name} {version}" in line
    assert "mode 2.3.1 (default):" in out
    assert out == trafila.about() + "\n"


# --- the compiled core missing ------------------------------------------------------------

@pytest.fixture
def core_missing(monkeypatch):
    """trafila as installed without trafila._core: the default engines not yet chosen."""
    def missing():
        raise _engine.EngineUnavailable("the compiled core (trafila._core) is not built")

    monkeypatch.setattr(_engine, "core_module", missing)
    monkeypatch.setattr(_engine, "_defaults", {})
    monkeypatch.setattr(_engine, "_core_missing_told", False)
    monkeypatch.delenv("TRAFILA_ENGINE", raising=False)


def _core_warnings(caught: List[warnings.WarningMessage]) -> List[warnings.WarningMessage]:
    return [w for w in caught if issubclass(w.category, trafila.CoreMissingWarning)]


def test_first_call_without_the_core_says_so_once(core_missing):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = trafila.extract(PAGE)
        trafila.extract(PAGE)
        trafila.extract(PAGE, compat="1.11.0")
    told = _core_warnings(caught)
    assert len(told) == 1
    message = str(told[0].message)
    # the engine, why, and how to get the core
    assert "pure-Python reference engine" in message
    assert "the compiled core (trafila._core) is not built" in message
    assert "wheel" in message and "TRAFILA_REQUIRE_EXTENSIONS=1" in message
    assert told[0].filename == __file__  # it points at the caller's line
    assert first is not None and "Paragraph 7" in first
    assert trafila.engines_built() == ("reference",)


def test_cli_version_without_the_core_says_why_and_how(core_missing, capsys):
    assert cli_main(["--version"]) == 0
    out = capsys.readouterr().out
    assert "engines built: reference (no core: the compiled core (trafila._core) is not built)" in out
    assert "mode 2.3.1 (default): engine reference;" in out
    assert "to get the core: install trafila's binary wheel" in out


def test_choosing_the_reference_is_not_told(core_missing, monkeypatch):
    monkeypatch.setenv("TRAFILA_ENGINE", "reference")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trafila.extract(PAGE)
    assert _core_warnings(caught) == []


# --- handing over to the installed trafilatura ------------------------------------------------

def test_a_broken_trafilatura_import_is_reported_as_itself(tmp_path, monkeypatch):
    """trafilatura installed but failing to import (lxml_html_clean missing, say): that
    ImportError, not a TrafilaError saying trafilatura is not installed."""
    package = tmp_path / "trafilatura"
    package.mkdir()
    (package / "__init__.py").write_text("import trafila_test_missing_dependency\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "trafilatura", raising=False)
    with pytest.raises(ModuleNotFoundError) as err:
        trafila.extract(PAGE, prune_xpath="//div//footer")
    assert err.value.name == "trafila_test_missing_dependency"
    if sys.version_info >= (3, 11):
        assert any("pip install 'trafila[trafilatura]'" in note for note in err.value.__notes__)


def test_trafilatura_missing_says_which_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "trafilatura", None)
    with pytest.raises(trafila.TrafilaError) as err:
        trafila.extract(PAGE, prune_xpath="//div//footer")
    assert str(err.value) == ("extract: prune_xpath: an XPath trafila does not evaluate needs trafilatura==2.3.1 installed "
                              "(pip install 'trafila[trafilatura]')")


# --- packaging metadata ------------------------------------------------------------------

def test_licence_is_an_spdx_expression_without_the_deprecated_classifier():
    project = _pyproject()["project"]
    assert project["license"] == "Apache-2.0"
    assert set(project["license-files"]) == {"LICENSE", "NOTICE"}
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    assert "Typing :: Typed" in project["classifiers"]
    assert (ROOT / "reference" / "trafila" / "py.typed").is_file()


def _pins(requirements: List[str]) -> Dict[str, str]:
    out = {}
    for requirement in requirements:
        name, _, version = requirement.partition("==")
        out[re.sub(r"[-_.]+", "-", name.strip().lower())] = version.strip()
    return out


def test_trafilatura_extra_is_the_oracle_tox_installs():
    """pip install 'trafila[trafilatura]' gives the trafilatura the 2.3.1 oracle runs (an
    importable one: lxml_html_clean pinned)."""
    extras = _pyproject()["project"]["optional-dependencies"]
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    oracle = [line for line in tox["oracle231"]["deps"].splitlines() if line.strip()]
    assert _pins(extras["trafilatura"]) == _pins(oracle)
    assert _pins(extras["trafilatura"])["lxml-html-clean"] == "0.4.6"


def test_extras_bring_what_their_examples_import():
    extras = _pyproject()["project"]["optional-dependencies"]
    assert any(r.startswith("orjson") for r in extras["datatrove"])
    fineweb = _pins(extras["fineweb"])
    assert fineweb["datatrove[processing]"] == "0.10.1" and fineweb["spacy"] == "3.8.18"
    assert {"warcio", "faust-cchardet", "python-magic", "tldextract", "pyahocorasick", "orjson"} <= set(fineweb)
    assert all(fineweb.values()), "every FineWeb dependency is pinned"


def test_cibuildwheel_builds_the_supported_interpreters():
    config = _pyproject()["tool"]["cibuildwheel"]
    assert config["build"] == ["cp310-*", "cp311-*", "cp312-*", "cp313-*", "cp313t-*"]
    assert config["environment"]["TRAFILA_REQUIRE_EXTENSIONS"] == "1"
    assert "check_install.py --expect-core" in config["test-command"]
    assert (ROOT / "tools" / "check_install.py").is_file()


# --- the sdist ----------------------------------------------------------------------------

def _setuptools_for_sdist() -> None:
    setuptools = pytest.importorskip("setuptools")
    if tuple(int(p) for p in setuptools.__version__.split(".")[:2]) < (77, 0):
        pytest.skip(f"the sdist needs setuptools>=77 (SPDX licence), this is {setuptools.__version__}")


def _source_copy(dest: Path) -> None:
    """The files an sdist is made from (not the corpora, reports or tests)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info", "*.c", "build")
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "CHANGELOG.md", "LICENSE", "NOTICE",
                 "UPSTREAM.md"):
        shutil.copy2(ROOT / name, dest / name)
    for folder in ("cython_core", "reference", "tools"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=ignore)


def test_sdist_carries_every_cython_source_and_no_generated_c(tmp_path):
    """Every .pyx/.pxi/.pxd under cython_core/ (the core's and the FineWeb twins'), with no
    Cython-generated C beside them (a stale NAME.c is planted: it must not ship)."""
    _setuptools_for_sdist()
    src = tmp_path / "src"
    src.mkdir()
    _source_copy(src)
    (src / "cython_core" / "_core.c").write_text("/* stale Cython output */\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "dist")], cwd=src,
                          capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    (sdist,) = (tmp_path / "dist").glob("trafila-*.tar.gz")
    assert sdist.name == f"trafila-{trafila.__version__}.tar.gz"
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
        pkg_info = tar.extractfile(f"trafila-{trafila.__version__}/PKG-INFO").read().decode()
    sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "cython_core").rglob("*")
                     if p.suffix in (".pyx", ".pxi", ".pxd"))
    assert "cython_core/_core.pyx" in sources and len(sources) > 30
    assert [s for s in sources if s not in names] == []
    assert [n for n in names if n.endswith(".c")] == []
    for name in ("setup.py", "pyproject.toml", "LICENSE", "NOTICE", "CHANGELOG.md", "reference/trafila/py.typed",
                 "reference/trafila/data/justext-stoplists.txt.gz", "tools/gen_core_tables.py"):
        assert name in names
    assert "License-Expression: Apache-2.0" in pkg_info and "Classifier: License ::" not in pkg_info


_WITHOUT_CYTHON = """
import runpy, sys
class NoCython:
    def find_spec(self, name, path=None, target=None):
        if name == "Cython" or name.startswith("Cython."):
            raise ImportError(f"No module named {name!r} (hidden by the test)")
sys.meta_path.insert(0, NoCython())
for name in [m for m in sys.modules if m == "Cython" or m.startswith("Cython.")]:
    del sys.modules[name]
sys.argv = ["setup.py", "-q", "build_ext", "--build-temp", "tmp-build", "--build-lib", "tmp-lib"]
runpy.run_path("setup.py", run_name="__main__")
"""


@pytest.mark.parametrize("require", [True, False], ids=["required", "optional"])
def test_build_ext_without_cython(tmp_path, require):
    """setup.py build_ext with no Cython: exit non-zero under TRAFILA_REQUIRE_EXTENSIONS=1,
    else a visible warning and no core (exit 0)."""
    _setuptools_for_sdist()
    src = tmp_path / "src"
    src.mkdir()
    _source_copy(src)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRAFILA_")}
    if require:
        env["TRAFILA_REQUIRE_EXTENSIONS"] = "1"
    done = subprocess.run([sys.executable, "-c", _WITHOUT_CYTHON], cwd=src, capture_output=True, text=True,
                          env=env, check=False)
    assert "Cython is not available" in done.stderr, done.stderr[-3000:]
    if require:
        assert done.returncode != 0
    else:
        assert done.returncode == 0, done.stderr[-3000:]
        assert "WARNING: cythonizing cython_core/_core.pyx failed" in done.stderr and "trafila._core is not built" in done.stderr
        assert not list((src / "tmp-lib").rglob("_core*"))
