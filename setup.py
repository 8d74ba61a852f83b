"""Build hook: compile the Cython core, trafila._core, from cython_core/_core.pyx (and its
``.pxi`` includes), and each FineWeb twin ``cython_core/fineweb/NAME.pyx`` as ``trafila._NAME``.

Everything else lives in pyproject.toml. The sources are cythonized when ``build_ext`` runs
(not when setup.py is read), so making an sdist needs neither Cython nor a compiler; the sdist
carries the ``.pyx``/``.pxi``/``.pxd`` sources and no generated C (MANIFEST.in), and Cython is a
build requirement, so every wheel built from it compiles the core from the same sources.

* ``TRAFILA_NO_EXTENSIONS=1``: skip the core; the package installs pure.
* ``TRAFILA_REQUIRE_EXTENSIONS=1``: a core that fails to build (no Cython, no sources, a Cython
  or C error) is an error: ``setup.py build_ext`` and ``pip install`` exit non-zero.
* otherwise a failed build prints a visible warning and the package installs pure (the first
  extraction then says so once, see ``trafila._engine``).
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
from setuptools.command.sdist import sdist

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
    sys.stderr.write(f"\n{bar}\nWARNING: {msg}\ntrafila installs without it and runs its pure-Python code "
                     f"instead (TRAFILA_REQUIRE_EXTENSIONS=1 makes this an error).\n{bar}\n\n")


def _build_flags():
    """(extra_compile_args, extra_link_args, Cython directives) of this build."""
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
    return compile_args, link_args, directives


def _pxi_depends(directory):
    """The .pxi/.pxd files beside a .pyx: a change to one of them rebuilds it."""
    full = os.path.join(HERE, directory)
    return sorted(os.path.join(directory, n) for n in os.listdir(full) if n.endswith((".pxi", ".pxd")))


def core_extensions():
    """The extensions to build, with their .pyx sources (cythonized by build_ext)."""
    if _flag("TRAFILA_NO_EXTENSIONS"):
        return []
    if not os.path.exists(os.path.join(HERE, CORE_PYX)):
        # an sdist or copy without the Cython sources: never a silent pure wheel
        if REQUIRE:
            raise SystemExit(f"TRAFILA_REQUIRE_EXTENSIONS=1 but {CORE_PYX} is missing")
        _warn(f"{CORE_PYX} is missing from this source tree; trafila._core is not built.")
        return []
    from setuptools import Extension

    compile_args, link_args, _ = _build_flags()
    exts = [Extension("trafila._core", [CORE_PYX], depends=_pxi_depends("cython_core"),
                      extra_compile_args=compile_args, extra_link_args=link_args)]
    fineweb = os.path.join(HERE, FINEWEB_DIR)
    for name in sorted(os.listdir(fineweb)) if os.path.isdir(fineweb) else ():
        if name.endswith(".pyx"):
            exts.append(Extension(f"trafila._{name[:-4]}", [os.path.join(FINEWEB_DIR, name)],
                                  depends=_pxi_depends(FINEWEB_DIR),
                                  extra_compile_args=compile_args, extra_link_args=link_args))
    return exts


class OptionalBuildExt(build_ext):
    """Cythonizes the extensions, then builds them; a failure is a warning (the package
    installs pure) unless TRAFILA_REQUIRE_EXTENSIONS=1, where it is an error."""

    def run(self):
        # one extension at a time: a FineWeb twin that fails to cythonize costs only itself
        for ext in list(self.extensions):
            try:
                _cythonize([ext])
            except BaseException as err:  # no Cython, or a Cython compile error (CompileError, SystemExit)
                if REQUIRE or isinstance(err, KeyboardInterrupt):
                    raise
                _warn(f"cythonizing {' '.join(ext.sources)} failed ({err!r}); {ext.name} is not built.")
                self.extensions.remove(ext)
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


def _cythonize(exts):
    """Turn the .pyx sources of ``exts`` into C, in place: the Extension objects stay the ones
    build_ext finalized (cythonize's copies lack setuptools' attributes), only their sources change."""
    pyx = [e for e in exts if any(s.endswith(".pyx") for s in e.sources)]
    if not pyx:
        return
    try:
        from Cython.Build import cythonize
    except ImportError as err:
        raise RuntimeError(f"Cython is not available ({err}); it is a build requirement (pip install 'Cython>=3')") from err
    _, _, directives = _build_flags()
    done = {e.name: e for e in cythonize(pyx, compiler_directives=directives)}
    for ext in pyx:
        ext.sources = list(done[ext.name].sources)


class SourcesSdist(sdist):
    """The sdist without generated C: a ``NAME.c`` beside a ``NAME.pyx`` is Cython's output
    (left by an in-place build), never a source; a hand-written C file would ship."""

    def make_distribution(self):
        files = set(self.filelist.files)
        self.filelist.files = [f for f in self.filelist.files
                               if not (f.endswith((".c", ".cpp")) and os.path.splitext(f)[0] + ".pyx" in files)]
        super().make_distribution()


setup(ext_modules=core_extensions(), cmdclass={"build_ext": OptionalBuildExt, "sdist": SourcesSdist})
