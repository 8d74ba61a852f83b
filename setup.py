"""Build hook: compile the Cython core, trafila._core, from cython_core/_core.pyx.

Everything else lives in pyproject.toml.

* ``TRAFILA_NO_EXTENSIONS=1``: skip the core; the package installs pure.
* ``TRAFILA_REQUIRE_EXTENSIONS=1``: a core that fails to build is an error.
* otherwise a failed build prints a visible warning and the package installs pure.
* ``TRAFILA_CORE_DEBUG=1``: boundscheck on, ``-O0 -g``; with ``TRAFILA_CORE_ASAN=1`` also
  ``-fsanitize=address`` (run Python with the ASan runtime preloaded).
* ``TRAFILA_CORE_ASAN=1`` alone: the sanitizer build for fuzzing (``tox -e core-asan``):
  boundscheck on, ``-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined``;
  with ``TRAFILA_CORE_FUZZ=1`` and ``CC=clang…`` also ``-fsanitize=fuzzer-no-link``
  (libFuzzer's coverage counters, for atheris; the runtime is preloaded, not linked).
  ``python -m harness fuzz-native`` runs it with the sanitizer runtime preloaded.
"""
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
CORE_PYX = os.path.join("cython_core", "_core.pyx")
#: the FineWeb steps' compiled twins (trafila.fineweb): one extension per .pyx file there,
#: named trafila._<file name>, each built with the core's flags
FINEWEB_DIR = os.path.join("cython_core", "fineweb")


def _flag(name):
    return os.environ.get(name, "").strip() not in ("", "0", "false", "no")


REQUIRE = _flag("TRAFILA_REQUIRE_EXTENSIONS")
DEBUG = _flag("TRAFILA_CORE_DEBUG")
ASAN = _flag("TRAFILA_CORE_ASAN")
FUZZ = _flag("TRAFILA_CORE_FUZZ")


def _warn(msg):
    bar = "*" * 78
    sys.stderr.write(f"\n{bar}\nWARNING: {msg}\nThe pure-Python reference is installed without trafila._core.\n{bar}\n\n")


def core_extensions():
    if _flag("TRAFILA_NO_EXTENSIONS"):
        return []
    if not os.path.exists(os.path.join(HERE, CORE_PYX)):
        if REQUIRE:
            raise SystemExit(f"TRAFILA_REQUIRE_EXTENSIONS=1 but {CORE_PYX} is missing")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError as err:
        if REQUIRE:
            raise
        _warn(f"Cython is not available ({err}); trafila._core is not built.")
        return []
    from setuptools import Extension

    compile_args = ["-O2", "-ffp-contract=off"]
    link_args = []
    directives = {
        "language_level": 3,
        "boundscheck": False,
        "wraparound": False,
        "initializedcheck": False,
        "cdivision": True,
    }
    if DEBUG:
        directives["boundscheck"] = True
        compile_args = ["-O0", "-g", "-ffp-contract=off"]
        if ASAN:
            compile_args.append("-fsanitize=address")
            link_args.append("-fsanitize=address")
    elif ASAN:
        directives["boundscheck"] = True
        sanitizers = "address,undefined"
        compile_args = ["-O1", "-g", "-fno-omit-frame-pointer", "-ffp-contract=off"]
        if "clang" in os.path.basename(os.environ.get("CC", "").split(" ")[0]):
            # clang links no sanitizer runtime into a shared object: the preloaded one (clang's
            # libclang_rt.asan, or atheris' asan_with_fuzzer.so) provides it at load time
            if FUZZ:
                compile_args.append("-fsanitize=fuzzer-no-link")
        compile_args.append(f"-fsanitize={sanitizers}")
        link_args.append(f"-fsanitize={sanitizers}")
    exts = [Extension("trafila._core", [CORE_PYX], extra_compile_args=compile_args, extra_link_args=link_args)]
    fineweb = os.path.join(HERE, FINEWEB_DIR)
    for name in sorted(os.listdir(fineweb)) if os.path.isdir(fineweb) else ():
        if name.endswith(".pyx"):
            exts.append(Extension(f"trafila._{name[:-4]}", [os.path.join(FINEWEB_DIR, name)],
                                  extra_compile_args=compile_args, extra_link_args=link_args))
    try:
        return cythonize(exts, compiler_directives=directives)
    except Exception as err:  # a Cython compile error
        if REQUIRE:
            raise
        _warn(f"cythonizing {CORE_PYX} failed ({err}).")
        return []


class OptionalBuildExt(build_ext):
    """A C compile/link failure of the core is a warning unless TRAFILA_REQUIRE_EXTENSIONS=1."""

    def run(self):
        try:
            super().run()
        except Exception as err:
            if REQUIRE:
                raise
            _warn(f"building trafila._core failed ({err}).")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as err:
            if REQUIRE:
                raise
            _warn(f"building {ext.name} failed ({err}).")


setup(ext_modules=core_extensions(), cmdclass={"build_ext": OptionalBuildExt})
