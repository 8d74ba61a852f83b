"""The extraction settings both releases read from a ConfigParser on every call.

trafilatura's ``Extractor.__init__`` reads eight to ten values with
``config.getint("DEFAULT", ...)``; each read goes through ConfigParser's lookup
chain and interpolation, about 70 to 90 µs a call in all, a few per cent of a
compiled extraction. :func:`read_defaults` gives the same values and remembers
the last answer for one config object, reused only while nothing that decides
the values can have changed:

- the config is a plain ``configparser.ConfigParser`` with ``BasicInterpolation``
  and no method replaced on the instance (anything else is read every time);
- the DEFAULT section's raw items and ``optionxform`` are the ones the answer was
  computed from (compared on every call: a tuple of a dozen pairs).

For the DEFAULT section ConfigParser looks only at those raw items (there are no
other sections in its lookup chain and no ``vars`` here), and BasicInterpolation
only substitutes other DEFAULT items, so equal snapshots give equal values. A read
that raises is never remembered: the next call raises again, as upstream's would.
"""

from __future__ import annotations

from configparser import BasicInterpolation, ConfigParser
from typing import Any, Dict, Tuple

# (kind, option): kind is "int" (getint), "bool" (getboolean) or "optional_int"
# (trafilatura 2.3.1's reading of MAX_TREE_SIZE: an all-digit value, else None)
Reads = Tuple[Tuple[str, str], ...]

_INSTANCE_OVERRIDES = frozenset(["get", "getint", "getboolean", "_get", "_get_conv", "_unify_values", "items"])

# per reads tuple (one per release): (config, snapshot, values) of the last remembered read
_last: Dict[Reads, Tuple[Any, Any, Tuple[Any, ...]]] = {}


def _read(config: ConfigParser, reads: Reads) -> Tuple[Any, ...]:
    values = []
    for kind, option in reads:
        if kind == "int":
            values.append(config.getint("DEFAULT", option))
        elif kind == "bool":
            values.append(config.getboolean("DEFAULT", option))
        else:
            value = config.get("DEFAULT", option, fallback="").strip()
            values.append(int(value) if value.isdigit() else None)
    return tuple(values)


def _snapshot(config: Any) -> Any:
    """What the DEFAULT values are a function of, or None when that cannot be told."""
    if type(config) is not ConfigParser or type(getattr(config, "_interpolation", None)) is not BasicInterpolation:
        return None
    if not _INSTANCE_OVERRIDES.isdisjoint(vars(config)):
        return None
    defaults = getattr(config, "_defaults", None)
    if type(defaults) is not dict:
        return None
    return (config.optionxform, tuple(defaults.items()))


def read_defaults(config: ConfigParser, reads: Reads) -> Tuple[Any, ...]:
    """The values of ``reads`` in the config's DEFAULT section, as ConfigParser gives them."""
    snapshot = _snapshot(config)
    if snapshot is None:
        return _read(config, reads)
    last = _last.get(reads)
    if last is not None and last[0] is config and last[1] == snapshot:
        return last[2]
    values = _read(config, reads)
    _last[reads] = (config, snapshot, values)  # one assignment: other threads see old or new
    return values
