"""Steps that put trafila into data-processing frameworks.

- :mod:`trafila.integrations.datatrove`: ``Trafilatura``, a drop-in for
  datatrove 0.10.1's ``datatrove.pipeline.extractors.Trafilatura``
  (``pip install 'trafila[datatrove]'``), and the FineWeb example's other steps
  (``pip install 'trafila[fineweb]'``).

Nothing here is imported by ``import trafila``; each module needs its framework.
"""

from contextlib import contextmanager
from typing import Iterator


@contextmanager
def needs_datatrove(module: str, extra: str) -> Iterator[None]:
    """Around a module's datatrove imports: without datatrove, an ImportError naming the module
    and the extra that brings it (any other ImportError propagates as it is)."""
    try:
        yield
    except ImportError as err:
        if not (err.name or "").startswith("datatrove"):
            raise
        raise ImportError(f"{module} needs datatrove, which is not installed: pip install 'trafila[{extra}]' "
                          "(datatrove 0.10.1)", name="datatrove") from err
