"""``trafila run``: a Python program run with ``trafila.patch`` applied first.

``trafila run [-p trafilatura] [--compat X] (SCRIPT | -m MODULE) [ARGS...]``
patches this interpreter, then runs the program as ``python SCRIPT ARGS`` or
``python -m MODULE ARGS`` would (:mod:`runpy`, ``__name__ == "__main__"``,
``sys.argv`` and ``sys.path[0]`` as Python sets them), so code that imports
trafilatura -- at any point after the start -- gets trafila's shims.

Child processes: a forked child (``multiprocessing``'s ``fork`` start method,
``os.fork``) is a copy of the patched interpreter and is patched. A new
interpreter -- ``multiprocessing``'s ``spawn`` and ``forkserver`` start methods,
``subprocess`` running Python -- starts unpatched, so ``trafila run`` also puts
a small startup hook on ``PYTHONPATH`` (a ``sitecustomize`` module, which then
runs the one it shadows, if any) and says in ``TRAFILA_RUN_PATCH`` what to
patch: every Python started from the program with this environment patches
itself before it runs anything. ``--no-children`` leaves the environment
alone (spawned children then get the real trafilatura).
"""

from __future__ import annotations

import os
import runpy
import sys
import warnings
from typing import List, Optional, Sequence

__all__ = ["RunRequest", "parse_run_args", "run_program", "HOOK_DIR", "PATCH_ENV", "COMPAT_ENV"]

#: the folder holding the startup hook (``sitecustomize.py``)
HOOK_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_hook")
#: what the hook patches (``trafilatura``); unset or empty: nothing
PATCH_ENV = "TRAFILA_RUN_PATCH"
#: the mode the hook's patch reproduces (empty: the installed release's)
COMPAT_ENV = "TRAFILA_RUN_COMPAT"

USAGE = "trafila run [-h] [-p trafilatura] [--compat VERSION] [--no-children] (SCRIPT | -m MODULE) [ARGS ...]"


class UsageError(Exception):
    """The command line of ``trafila run`` is wrong (exit status 2)."""


class RunRequest:
    """What ``trafila run`` was asked to run."""

    def __init__(self) -> None:
        self.target = "trafilatura"
        self.compat: Optional[str] = None
        self.children = True
        self.script: Optional[str] = None
        self.module: Optional[str] = None
        self.args: List[str] = []
        self.help = False


def parse_run_args(argv: Sequence[str]) -> RunRequest:
    """Split ``trafila run``'s own options from the program and its arguments:
    everything after SCRIPT (or ``-m MODULE``) is the program's, as with ``python``."""
    request = RunRequest()
    args = list(argv)
    i = 0

    def value(option: str) -> str:
        nonlocal i
        if i + 1 >= len(args):
            raise UsageError(f"{option} needs a value")
        i += 1
        return args[i]

    while i < len(args):
        arg = args[i]
        if arg in ("-h", "--help"):
            request.help = True
            return request
        if arg in ("-p", "--patch"):
            request.target = value(arg)
        elif arg.startswith("--patch="):
            request.target = arg.partition("=")[2]
        elif arg.startswith("-p") and len(arg) > 2:
            request.target = arg[2:]
        elif arg == "--compat":
            request.compat = value(arg)
        elif arg.startswith("--compat="):
            request.compat = arg.partition("=")[2]
        elif arg == "--no-children":
            request.children = False
        elif arg == "-m":
            request.module = value(arg)
            request.args = args[i + 1:]
            break
        elif arg.startswith("-m") and len(arg) > 2:
            request.module = arg[2:]
            request.args = args[i + 1:]
            break
        elif arg == "--":
            if i + 1 >= len(args):
                raise UsageError("a SCRIPT or -m MODULE is needed")
            request.script = args[i + 1]
            request.args = args[i + 2:]
            break
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unknown option {arg} (the program's own options go after SCRIPT or -m MODULE)")
        else:
            request.script = arg
            request.args = args[i + 1:]
            break
        i += 1
    if request.target != "trafilatura":
        raise UsageError(f"-p: only 'trafilatura' can be patched, not {request.target!r}")
    import trafila  # noqa: PLC0415

    if request.compat is not None and request.compat not in trafila.TRAFILATURA_VERSIONS:
        raise UsageError(f"--compat must be one of {', '.join(trafila.TRAFILATURA_VERSIONS)}, not {request.compat!r}")
    if request.script is None and request.module is None:
        raise UsageError("a SCRIPT or -m MODULE is needed")
    if request.module == "":
        raise UsageError("-m needs a module name")
    return request


def child_environment(environ: "os._Environ[str] | dict", request: RunRequest) -> None:
    """Put the startup hook in ``environ`` (PYTHONPATH first, the patch to apply)."""
    current = environ.get("PYTHONPATH", "")
    parts = [p for p in current.split(os.pathsep) if p] if current else []
    if HOOK_DIR not in parts:
        parts.insert(0, HOOK_DIR)
    environ["PYTHONPATH"] = os.pathsep.join(parts)
    environ[PATCH_ENV] = request.target
    environ[COMPAT_ENV] = request.compat or ""


def run_program(request: RunRequest) -> int:
    """Patch, then run the program in this interpreter. Returns the exit status
    for a program that ends normally; SystemExit from the program passes through,
    and so does any exception it raises (its own traceback, as ``python`` shows)."""
    import trafila  # noqa: PLC0415

    if request.script is not None and not os.path.exists(request.script):
        print(f"trafila run: can't open file {request.script!r}: no such file", file=sys.stderr)
        return 2
    if request.script is not None and os.path.isdir(request.script) \
            and not os.path.exists(os.path.join(request.script, "__main__.py")):
        print(f"trafila run: can't find '__main__' module in {request.script!r}", file=sys.stderr)
        return 2
    if request.children:
        child_environment(os.environ, request)
    with warnings.catch_warnings():
        # a PatchWarning (another trafilatura installed) is shown once, pointing at this line, not raised
        warnings.simplefilter("default", trafila.PatchWarning)
        trafila.patch(request.target, compat=request.compat)
    if request.module is not None:
        sys.path[0:1] = [os.getcwd()]  # as python -m does
        if not _module_found(request.module):
            print(f"trafila run: No module named {request.module}", file=sys.stderr)
            return 1
        sys.argv = [request.module, *request.args]  # run_module puts the module's file name in argv[0]
        runpy.run_module(request.module, run_name="__main__", alter_sys=True)
    else:
        script = request.script or ""
        sys.argv = [script, *request.args]
        # as python does: the script's folder (symlinks resolved), or the folder run as a script
        sys.path[0:1] = [script if os.path.isdir(script) else os.path.dirname(os.path.realpath(script))]
        runpy.run_path(script, run_name="__main__")
    return 0


def _module_found(module: str) -> bool:
    """Whether ``module`` can be imported (its parent packages are imported to know, as python -m does)."""
    import importlib.util  # noqa: PLC0415

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
