"""HTML5 named character references as libxml2 2.14.6 resolves them.

libxml2 2.14's ``html5ent.inc`` holds the 2,231 names of the WHATWG table,
which is exactly Python's ``html.entities.html5`` (checked against lxml), so
the table is derived from it at import time instead of being copied.

libxml2: htmlFindEntityPrefix -- the longest entity name that is a prefix of
the text after ``&`` wins. A name listed without ``;`` in the table (a
"legacy" name such as ``amp``, ``copy``, ``not``) also matches without the
semicolon, except in an attribute value when the next character is an ASCII
letter, digit or ``=``.
"""

from __future__ import annotations

import re
from html.entities import html5 as _HTML5
from typing import Optional, Tuple

#: name (without ';') -> replacement, for every name of the table
ENTITIES = {name[:-1] if name.endswith(";") else name: value for name, value in _HTML5.items()}
#: names that match without a terminating ';'
LEGACY = frozenset(name for name in _HTML5 if not name.endswith(";"))
#: longest name, in characters (``CounterClockwiseContourIntegral``)
MAX_NAME = max(len(n) for n in ENTITIES)

_NAME_RUN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def find_entity_prefix(s: str, pos: int, is_attr: bool) -> Optional[Tuple[str, int]]:
    """Resolve the named reference starting at ``s[pos]`` (just after ``&``).

    Returns ``(replacement, end)`` with ``end`` the index after the name (and
    its ``;``), or None when nothing matches (the ``&`` stays literal).
    # libxml2: htmlFindEntityPrefix
    """
    m = _NAME_RUN.match(s, pos, pos + MAX_NAME + 1)
    if m is None:
        return None
    run = m.group()
    for k in range(len(run), 1, -1):
        name = run[:k]
        value = ENTITIES.get(name)
        if value is None:
            continue
        end = pos + k
        term = s[end] if end < len(s) else ""
        if term == ";":
            return value, end + 1
        if name in LEGACY and (not is_attr or (term not in _ALNUM and term != "=")):
            return value, end
    return None
