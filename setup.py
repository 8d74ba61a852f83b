"""Build hook: compile the Cython core when cython_core/ has sources.

Everything else lives in pyproject.toml. With cython_core/ empty the package is
the pure-Python reference alone, and the build still succeeds.
"""
import os
from glob import glob

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))


def core_extensions():
    sources = sorted(glob(os.path.join("cython_core", "*.pyx")))
    if not sources or os.environ.get("TRAFILA_NO_EXTENSIONS"):
        return []
    from Cython.Build import cythonize
    from setuptools import Extension

    exts = [
        Extension("trafila._core." + os.path.splitext(os.path.basename(src))[0], [src])
        for src in sources
    ]
    return cythonize(exts, language_level=3, compiler_directives={"boundscheck": False})


setup(ext_modules=core_extensions())
