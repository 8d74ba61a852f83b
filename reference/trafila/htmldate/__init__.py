"""htmldate 1.11.0's date extraction, as trafilatura calls it, on trafila's trees.

``find_date(tree, **date_params)`` answers what ``htmldate.find_date`` answers on
the lxml tree of the same page (``harness/dates.py`` measures it). Modules follow
htmldate's: :mod:`.core` (find_date and the page searches), :mod:`.extractors`
(parsers, element searches), :mod:`.validators` (bounds, formats, the clock),
:mod:`.utils` (input, cleaning), :mod:`.settings`; :mod:`._tables` is generated
data (tools/gen_htmldate_tables.py).
"""

from .core import find_date
from .validators import set_clock

__all__ = ["find_date", "set_clock"]
