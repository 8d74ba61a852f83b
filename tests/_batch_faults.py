"""Faults on marked pages for the tests of extract_batch's worker processes.

A test names this module in ``TRAFILA_BATCH_WORKER_IMPORT``; each worker then
imports it after trafila, and its engines' extract:

* raises :class:`BatchFault` for a page containing ``MARK-FAULT`` (in every
  process where :func:`install` ran: the test installs it in its own process
  too, so that the page it runs again raises the same);
* ends the worker at once (``os._exit``) on a page containing ``MARK-CRASH``;
* sleeps for :data:`SLOW_SECONDS` on a page containing ``MARK-SLOW``.

The last two act only in a worker: in the calling process those pages are extracted as usual.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable

from trafila import _engine, _workers

SLOW_SECONDS = 30.0


class BatchFault(Exception):
    """The exception a MARK-FAULT page raises."""


def faulty(real: Callable[..., Any]) -> Callable[..., Any]:
    def extract(**args: Any) -> Any:
        page = args.get("filecontent")
        if isinstance(page, str):
            if "MARK-FAULT" in page:
                raise BatchFault(page[page.index("MARK-FAULT"):][:16])
            if _workers.IN_WORKER and "MARK-CRASH" in page:
                os._exit(3)
            if _workers.IN_WORKER and "MARK-SLOW" in page:
                time.sleep(SLOW_SECONDS)
        return real(**args)

    return extract


def install() -> None:
    """Every built engine's extract, in every mode it runs, made faulty."""
    for engine in _engine.engines_built():
        for mode in _engine.modes_of(engine):
            impl = _engine.implementation(mode, engine)
            impl.extract = faulty(impl.extract)


if _workers.IN_WORKER:
    install()
