"""Combinators for the hand-translated XPaths of both ports (v2_3_1/xpaths.py,
v1_11_0/xpaths.py).

A selector takes a context element and returns the node list lxml's XPath
returns: descendants of the context in document order, computed before the
caller mutates anything. XPath string rules kept here:

* a missing attribute compares as '' (:func:`attr`; ``@a='x'`` is then false,
  ``starts-with(@a, '')`` true);
* ``@id|@class`` (a node-set) converts to the value of the attribute that comes
  first in source order, the other one is ignored (:func:`first_attr`);
* EXSLT ``re:test(s, pattern[, 'i'])`` is ``re.search(pattern, s)`` (plus
  IGNORECASE for 'i'); lxml compiles patterns with ``re.UNICODE`` (:func:`rx`);
* ``translate(s, 'CM', 'cm')`` maps characters one to one (``str.translate``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, FrozenSet, Iterable, List, Optional

from .v2_3_1._tree import desc_list, iter_desc

if TYPE_CHECKING:
    from .dom import Element

__all__ = [
    "Selector", "Predicate", "attr", "first_attr", "rx", "alt", "tagset", "contains_any",
    "select", "select_first", "select_first_per_parent", "all_of", "first_of",
]

Selector = Callable[[Any], List[Any]]
Predicate = Callable[[Any], bool]
Tags = Optional[FrozenSet[str]]


def attr(el: Element, name: str) -> str:
    "XPath string of ``@name``: '' when the attribute is missing."
    value = el.get(name)
    return "" if value is None else value


def first_attr(el: Element, names: Iterable[str]) -> str:
    "XPath string of ``@a|@b``: the first of those attributes in source order."
    for key, value in el.attrib.items():
        if key in names:
            return value
    return ""


def rx(pattern: str, flags: int = 0) -> Callable[[str], Optional[Any]]:
    "``re:test(s, pattern)`` as a search function (``flags=re.IGNORECASE`` for 'i')."
    return re.compile(pattern, re.UNICODE | flags).search


def alt(tokens: Iterable[str]) -> str:
    "A regex alternation of ``tokens`` (as upstream writes them, joined by '|')."
    return "|".join(tokens)


def tagset(*names: str) -> FrozenSet[str]:
    "The tags of ``*[self::t1 or self::t2 ...]``."
    return frozenset(names)


def contains_any(value: str, needles: Iterable[str]) -> bool:
    "``contains(s, 'a') or contains(s, 'b') ...``"
    return any(n in value for n in needles)


def select(ctx: Element, tags: Tags, pred: Predicate) -> List[Any]:
    "``.//*[self::t1 or ...][pred]`` (all tags when ``tags`` is None)."
    if tags is None:
        return [el for el in desc_list(ctx) if pred(el)]
    return [el for el in desc_list(ctx) if el.tag in tags and pred(el)]


def select_first(ctx: Element, tags: Tags, pred: Predicate) -> List[Any]:
    "``(.//*[...][pred])[1]``: the first match in document order."
    for el in iter_desc(ctx):
        if (tags is None or el.tag in tags) and pred(el):
            return [el]
    return []


def select_first_per_parent(ctx: Element, tags: FrozenSet[str], pred: Predicate) -> List[Any]:
    "``.//*[...][pred][1]``: per parent, the first matching child (document order)."
    seen_parents = set()
    out = []
    for el in desc_list(ctx):
        if el.tag in tags and pred(el):
            key = id(el.getparent())
            if key in seen_parents:
                continue
            seen_parents.add(key)
            out.append(el)
    return out


def all_of(tags: Tags, pred: Predicate) -> Selector:
    "The selector :func:`select` with these tags and predicate."
    return lambda ctx: select(ctx, tags, pred)


def first_of(tags: Tags, pred: Predicate) -> Selector:
    "The selector :func:`select_first` with these tags and predicate."
    return lambda ctx: select_first(ctx, tags, pred)
