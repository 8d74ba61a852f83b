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

On the compiled core's trees (:func:`trafila._backend.core_of`) the
combinators run the tag filter in C and, for a predicate registered with
:func:`register_prefilter`, a C necessary condition over the raw attribute
bytes first (``trafila._core.select_candidates``): only the nodes it lets
through meet the Python predicate, so the node list is the same.
"""

from __future__ import annotations

import functools
import re
try:  # the regex parser the prefilters read literals from: re._parser since 3.11, sre_parse before
    import re._parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse  # type: ignore[no-redef]
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple

from ._backend import core_of
from .v2_3_1._tree import desc_list, iter_desc

if TYPE_CHECKING:
    from .dom import Element

__all__ = [
    "Selector", "Predicate", "attr", "first_attr", "rx", "alt", "tagset", "contains_any",
    "select", "select_first", "select_first_per_parent", "all_of", "first_of", "select_tags",
    "register_prefilter", "core_candidates", "attribute_memo", "present", "contains", "folded", "regex", "regex_literals", "PREFILTER_SPECS",
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
    if not value:
        # a missing attribute reads as '': only an empty needle is in it (no scan of the needles)
        return "" in needles
    return any(n in value for n in needles)


def attribute_memo(pred: Predicate) -> Predicate:
    """``pred`` with its verdict remembered per attribute list (names and values in
    order): only for a predicate that reads nothing but the element's attributes, whose
    verdict is then a function of that list. Pages repeat their class and id values, and
    a predicate testing dozens of literals costs more than building the key."""
    cache: Dict[Tuple[Tuple[str, str], ...], Any] = {}

    @functools.wraps(pred)
    def remembered(el: Any) -> Any:
        key = tuple(el.attrib.items())
        try:
            return cache[key]
        except KeyError:
            pass
        verdict = pred(el)
        if len(cache) >= 4096:
            cache.clear()
        cache[key] = verdict
        return verdict

    return remembered


# -- prefilters on core trees ----------------------------------------------------------------

#: a term of a prefilter spec: (attribute names, kind, literals); see trafila._core.Prefilter
Term = Tuple[Tuple[str, ...], str, Tuple[str, ...]]

#: predicate -> (terms, pass_tags): the registered necessary conditions
PREFILTER_SPECS: Dict[Any, Tuple[Tuple[Term, ...], FrozenSet[str]]] = {}
#: predicate -> the core's compiled Prefilter (made on first use)
_COMPILED: Dict[Any, Any] = {}
#: tests switch the prefilters off (the tag filter in C stays) to compare both ways
USE_PREFILTERS = True


def _names(attrs: Any) -> Tuple[str, ...]:
    return (attrs,) if isinstance(attrs, str) else tuple(attrs)


def present(attrs: Any) -> Term:
    "The attribute is present (``@a``, ``el.get(a) is not None``)."
    return (_names(attrs), "present", ())


def contains(attrs: Any, *literals: str) -> Term:
    "Some of the attributes' values contains one of the literals (also for ``=``/``starts-with``)."
    return (_names(attrs), "contains", tuple(literals))


def folded(attrs: Any, *literals: str) -> Term:
    "``contains(translate(@a, <ASCII upper>, <lower>), lit)``: ASCII case-insensitive containment."
    return (_names(attrs), "fold", tuple(literals))


def _max_len(options: Tuple[str, ...]) -> Tuple[int, int]:
    return (min(len(o) for o in options), -len(options))


def _required(items: Any) -> Optional[Tuple[str, ...]]:
    """Literals one of which every match of the parsed sequence ``items``
    contains (None when none can be named)."""
    best: Optional[Tuple[str, ...]] = None
    run: List[str] = []

    def consider(options: Optional[Tuple[str, ...]]) -> None:
        nonlocal best
        if options and all(options) and (best is None or _max_len(options) > _max_len(best)):
            best = options

    for op, av in list(items) + [(None, None)]:
        if op is _sre_parse.LITERAL:
            run.append(chr(av))
            continue
        if run:
            consider(("".join(run),))
            run = []
        if op is _sre_parse.SUBPATTERN:
            if not av[1] and not av[2]:  # a group with its own flags ((?i:...)) is skipped
                consider(_required(av[3]))
        elif op is _sre_parse.BRANCH:
            alternatives = [_required(branch) for branch in av[1]]
            if all(a is not None for a in alternatives):
                consider(tuple(dict.fromkeys(lit for a in alternatives for lit in a)))  # type: ignore[union-attr]
        elif op in (_sre_parse.MAX_REPEAT, _sre_parse.MIN_REPEAT) and av[0] >= 1:
            consider(_required(av[2]))
        # anything else (IN, AT, ASSERT*, ANY, CATEGORY, optional repeats...) breaks the run
    return best


def regex_literals(pattern: str, flags: int = 0) -> Optional[Tuple[str, ...]]:
    "Literals one of which every match of ``pattern`` contains (None when none can be named)."
    return _required(_sre_parse.parse(pattern, flags))


def regex(attrs: Any, search: Callable[[str], Any]) -> Optional[Term]:
    """``re:test(@a, pattern)`` for an :func:`rx` search: the pattern's required literals,
    derived from the compiled pattern itself (None when none can be derived)."""
    compiled = search.__self__  # type: ignore[attr-defined]
    literals = regex_literals(compiled.pattern, compiled.flags)
    if literals is None:
        return None
    if compiled.flags & re.IGNORECASE:
        if not all(lit.isascii() for lit in literals):
            return None
        return (_names(attrs), "fold_ic", literals)
    return (_names(attrs), "contains", literals)


def register_prefilter(pred: Predicate, *terms: Optional[Term], pass_tags: Iterable[str] = ()) -> None:
    """Register ``pred``'s necessary condition: ``pred(el)`` implies the tag of ``el`` is in
    ``pass_tags`` or one of the terms holds. A None term (nothing derivable) registers nothing."""
    if any(t is None for t in terms) or not terms:
        PREFILTER_SPECS.pop(pred, None)
        return
    PREFILTER_SPECS[pred] = (tuple(terms), frozenset(pass_tags))  # type: ignore[arg-type]
    _COMPILED.pop(pred, None)


def compiled_prefilter(core: Any, pred: Predicate) -> Any:
    "The core's Prefilter of ``pred`` (None when none is registered)."
    pf = _COMPILED.get(pred)
    if pf is None:
        spec = PREFILTER_SPECS.get(pred)
        if spec is None:
            return None
        terms, pass_tags = spec
        pf = core.Prefilter([(name, kind, lits) for names, kind, lits in terms for name in names],
                            sorted(pass_tags))
        _COMPILED[pred] = pf
    return pf


def _candidates(core: Any, ctx: Any, tags: Tags, pred: Predicate) -> List[Any]:
    return core.select_candidates(ctx, tags, compiled_prefilter(core, pred) if USE_PREFILTERS else None)


def core_candidates(ctx: Element, tags: Tags, pred: Predicate) -> Optional[List[Any]]:
    """On a core tree, the descendants of ``ctx`` with these tags that ``pred``'s prefilter
    lets through (a superset of the matches, in document order); None on other trees."""
    core = core_of(ctx)
    if core is None:
        return None
    return _candidates(core, ctx, tags, pred)


# -- the combinators --------------------------------------------------------------------------

def select_tags(ctx: Element, tags: FrozenSet[str]) -> List[Any]:
    "``.//t1|.//t2...``: the descendants with these tags, in document order."
    core = core_of(ctx)
    if core is not None:
        return core.descendants(ctx, tags)
    return [el for el in desc_list(ctx) if el.tag in tags]


def select(ctx: Element, tags: Tags, pred: Predicate) -> List[Any]:
    "``.//*[self::t1 or ...][pred]`` (all tags when ``tags`` is None)."
    core = core_of(ctx)
    if core is not None:
        return [el for el in _candidates(core, ctx, tags, pred) if pred(el)]
    if tags is None:
        return [el for el in desc_list(ctx) if pred(el)]
    return [el for el in desc_list(ctx) if el.tag in tags and pred(el)]


def select_first(ctx: Element, tags: Tags, pred: Predicate) -> List[Any]:
    "``(.//*[...][pred])[1]``: the first match in document order."
    core = core_of(ctx)
    if core is not None:
        for el in _candidates(core, ctx, tags, pred):
            if pred(el):
                return [el]
        return []
    for el in iter_desc(ctx):
        if (tags is None or el.tag in tags) and pred(el):
            return [el]
    return []


def select_first_per_parent(ctx: Element, tags: FrozenSet[str], pred: Predicate) -> List[Any]:
    "``.//*[...][pred][1]``: per parent, the first matching child (document order)."
    core = core_of(ctx)
    if core is not None:
        # parents by node index (a parent proxy made here may die, and its id() be reused)
        seen_index = set()
        found = []
        for el in _candidates(core, ctx, tags, pred):
            if pred(el):
                index = el.getparent().node_index
                if index not in seen_index:
                    seen_index.add(index)
                    found.append(el)
        return found
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
