"""The startup hook of ``trafila run`` for the Python processes a program starts.

``trafila run`` puts this folder first on ``PYTHONPATH`` and sets
``TRAFILA_RUN_PATCH`` (and ``TRAFILA_RUN_COMPAT``), so a new interpreter started
from the program (``multiprocessing``'s spawn or forkserver, ``subprocess``)
imports this module at startup (Python's ``site`` imports ``sitecustomize``).
It first runs the ``sitecustomize`` it shadows, if there is one, then applies
``trafila.patch``. It never stops the interpreter from starting: a failure is
one line on standard error.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _same_folder(entry: str) -> bool:
    try:
        return os.path.abspath(entry or os.curdir) == _HERE
    except (TypeError, ValueError):
        return False


def _run_shadowed() -> None:
    """Import the next ``sitecustomize`` on sys.path (the one this module hides)."""
    ours = sys.modules.pop(__name__, None)
    positions = [i for i, entry in enumerate(sys.path) if isinstance(entry, str) and _same_folder(entry)]
    for i in reversed(positions):
        del sys.path[i]
    try:
        import sitecustomize  # noqa: F401 - the shadowed one, run for its side effects
    except ImportError as error:
        if getattr(error, "name", None) != "sitecustomize":
            print(f"Error in sitecustomize: {error}", file=sys.stderr)
    except Exception as error:  # noqa: BLE001 - as site.py: a failing sitecustomize does not stop Python
        print(f"Error in sitecustomize: {type(error).__name__}: {error}", file=sys.stderr)
    finally:
        for i in positions:
            sys.path.insert(i, _HERE)
        if ours is not None:
            sys.modules[__name__] = ours


def _apply_patch() -> None:
    target = os.environ.get("TRAFILA_RUN_PATCH")
    if not target:
        return
    try:
        try:
            import trafila
        except ImportError:  # trafila found by the parent through its own sys.path: it is three folders up
            sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))))
            import trafila
        import warnings

        with warnings.catch_warnings():
            # the parent already said which release the shims reproduce
            warnings.simplefilter("ignore", trafila.PatchWarning)
            trafila.patch(target, compat=os.environ.get("TRAFILA_RUN_COMPAT") or None)
    except Exception as error:  # noqa: BLE001 - never stop the child from starting
        print(f"trafila run: the startup hook could not patch {target}: {type(error).__name__}: {error}", file=sys.stderr)


_run_shadowed()
_apply_patch()
