"""``python -m harness.<module>``: a subcommand run by its module's name.

Each subcommand module of ``python -m harness`` (harness/cli.py's MODULE_COMMANDS) defines
``add_arguments(parser)`` and ``run(args, argv)``; :func:`standalone` parses the words with
them alone, so that running the module directly is the same command without the module
importing the command line (which imports every subcommand).
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType
from typing import List, Optional


def standalone(module: ModuleType, argv: Optional[List[str]] = None) -> int:
    """Parse ``argv`` (default: the process's) with ``module.add_arguments`` and return
    ``module.run(args, argv)``'s exit code."""
    spec = getattr(module, "__spec__", None)
    name = spec.name if spec is not None else module.__name__
    parser = argparse.ArgumentParser(prog=f"python -m {name}", description=module.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(parser)
    words = list(sys.argv[1:] if argv is None else argv)
    return module.run(parser.parse_args(words), words) or 0
