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
    "register_exact", "EXACT_SPECS", "compile_regex", "first_attrs", "x_true", "x_present", "x_eq", "x_starts",
    "x_contains", "x_regex", "compiled_matcher",
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
    _MATCHER_PAIRS.pop(pred, None)


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


# -- exact matchers on core trees -------------------------------------------------------------
# A predicate that reads nothing but its element's tag and attributes can also be registered as a
# disjunction of exact terms (register_exact): on core trees the selectors then take the verdict
# from C (trafila._core.Matcher, select_matches) and call the predicate only on the nodes the C
# matcher cannot decide (a pattern with character semantics meeting a non-ASCII value). The
# tests prove each registered spec equal to its predicate on corpus pages and generated trees.

class first_attrs(tuple):
    "``@a|@b``: the first of these attributes in source order (as :func:`first_attr`)."

    def __new__(cls, names: Iterable[str]) -> "first_attrs":
        return super().__new__(cls, tuple(names))


#: an exact term: (kind, names, first, literals, translate map or None, regex or None, tags, tag mode)
XTerm = Tuple[str, Tuple[str, ...], bool, Tuple[str, ...], Optional[bytes], Any, Tuple[str, ...], int]

#: predicate -> its exact terms
EXACT_SPECS: Dict[Any, Tuple[XTerm, ...]] = {}
#: predicate -> the core's Matcher (made on first use)
_COMPILED_EXACT: Dict[Any, Any] = {}
#: tests switch the exact matchers off (the prefilters then decide who meets the predicate)
USE_EXACT = True


def _tags_mode(tags: Iterable[str], not_tags: Iterable[str]) -> Tuple[Tuple[str, ...], int]:
    tags, not_tags = tuple(tags), tuple(not_tags)
    if tags and not_tags:
        raise ValueError("tags or not_tags, not both")
    if tags:
        return tags, 1
    if not_tags:
        return not_tags, 2
    return (), 0


def _target(attrs: Any) -> Tuple[Tuple[str, ...], bool]:
    if isinstance(attrs, first_attrs):
        return tuple(attrs), True
    if not isinstance(attrs, str):
        raise TypeError("an attribute name (str) or first_attrs(...)")
    return (attrs,), False


def _tr_map(table: Optional[Dict[int, Any]]) -> Optional[bytes]:
    "A str.maketrans table as a 256-byte map (ASCII to ASCII only)."
    if table is None:
        return None
    out = bytearray(range(256))
    for key, value in table.items():
        if isinstance(value, str) and len(value) == 1:
            value = ord(value)
        if not (isinstance(key, int) and isinstance(value, int) and key < 128 and value < 128):
            raise ValueError("an exact translate map maps ASCII to ASCII")
        out[key] = value
    return bytes(out)


def x_true(*tags: str) -> XTerm:
    "True by tag alone (on these tags)."
    return ("true", (), False, (), None, None, tuple(tags), 1)


def x_present(attrs: Any, tags: Iterable[str] = (), not_tags: Iterable[str] = ()) -> XTerm:
    "``@a`` (present, any value)."
    names, first = _target(attrs)
    return ("present", names, first, (), None, None, *_tags_mode(tags, not_tags))


def _x_lits(kind: str, attrs: Any, literals: Tuple[str, ...], tr: Any, tags: Iterable[str],
            not_tags: Iterable[str]) -> XTerm:
    names, first = _target(attrs)
    if not literals or not all(isinstance(lit, str) and lit for lit in literals):
        raise ValueError("non-empty literals")
    return (kind, names, first, tuple(literals), _tr_map(tr), None, *_tags_mode(tags, not_tags))


def x_eq(attrs: Any, *literals: str, tr: Any = None, tags: Iterable[str] = (), not_tags: Iterable[str] = ()) -> XTerm:
    "``@a='L1' or @a='L2'...`` (on ``translate(@a, ...)`` with ``tr``, a str.maketrans table)."
    return _x_lits("eq", attrs, literals, tr, tags, not_tags)


def x_starts(attrs: Any, *literals: str, tr: Any = None, tags: Iterable[str] = (),
             not_tags: Iterable[str] = ()) -> XTerm:
    "``starts-with(@a, 'L1') or ...``"
    return _x_lits("starts", attrs, literals, tr, tags, not_tags)


def x_contains(attrs: Any, *literals: str, tr: Any = None, tags: Iterable[str] = (),
               not_tags: Iterable[str] = ()) -> XTerm:
    "``contains(@a, 'L1') or ...``"
    return _x_lits("contains", attrs, literals, tr, tags, not_tags)


def x_regex(attrs: Any, search: Callable[[str], Any], tags: Iterable[str] = (),
            not_tags: Iterable[str] = ()) -> Optional[XTerm]:
    "``re:test(@a, pattern)`` for an :func:`rx` search (None when the pattern cannot be compiled)."
    names, first = _target(attrs)
    compiled = search.__self__  # type: ignore[attr-defined]
    if compile_regex(compiled) is None:
        return None
    return ("regex", names, first, (), None, compiled, *_tags_mode(tags, not_tags))


# regex program opcodes (cython_core/accel_selectors.pxi RX_*)
RX_CHAR, RX_CHAR_I, RX_CLASS, RX_SPLIT, RX_JMP, RX_MATCH, RX_BOL, RX_EOL, RX_EOS, RX_NOTAHEAD, RX_AHEAD = range(11)
_ASCII = (1 << 128) - 1


class _Unsupported(Exception):
    pass


def _category_bits(cat: Any) -> int:
    c = _sre_parse
    tests = {
        c.CATEGORY_SPACE: str.isspace, c.CATEGORY_DIGIT: str.isdecimal,
        c.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
    }
    negated = {c.CATEGORY_NOT_SPACE: c.CATEGORY_SPACE, c.CATEGORY_NOT_DIGIT: c.CATEGORY_DIGIT,
               c.CATEGORY_NOT_WORD: c.CATEGORY_WORD}
    if cat in tests:
        return sum(1 << b for b in range(128) if tests[cat](chr(b)))
    if cat in negated:
        return _ASCII & ~_category_bits(negated[cat])
    raise _Unsupported(cat)


@functools.lru_cache(maxsize=None)
def compile_regex(compiled: "re.Pattern[str]") -> Optional[Tuple[int, Tuple[Tuple[int, int, int], ...], Tuple[int, ...],
                                                                  Tuple[Tuple[int, Tuple[int, ...], bool], ...]]]:
    """``compiled`` as the core's regex program: (need_ascii, instruction triples, class
    bitmaps, alternatives as (start pc, first bytes, tried at every position)); None when the
    pattern has anything the program does not model exactly (other flags, non-ASCII
    literals, unbounded repeats, backreferences, lookbehinds, case-insensitive classes with
    letters) or matches the empty string (a missing attribute is '')."""
    flags = compiled.flags
    if not isinstance(compiled.pattern, str) or flags & ~(re.UNICODE | re.IGNORECASE):
        return None
    if compiled.search("") is not None:
        return None
    icase = bool(flags & re.IGNORECASE)
    c = _sre_parse
    prog: List[List[int]] = []
    classes: List[int] = []
    need_ascii = [icase]

    def emit(op: int, a: int = 0, b: int = 0) -> int:
        prog.append([op, a, b])
        return len(prog) - 1

    def klass(bits: int) -> None:
        if icase and any(bits >> b & 1 for b in list(range(65, 91)) + list(range(97, 123))):
            raise _Unsupported("case-insensitive class with letters")
        classes.append(bits)
        emit(RX_CLASS, len(classes) - 1)

    def seq(items: Any) -> None:
        for op, av in items:
            node(op, av)

    def node(op: Any, av: Any) -> None:
        if op is c.LITERAL:
            if av >= 128:
                raise _Unsupported("non-ASCII literal")
            ch = chr(av)
            if icase and ch.isalpha():
                emit(RX_CHAR_I, ord(ch.lower()))
            else:
                emit(RX_CHAR, av)
        elif op is c.NOT_LITERAL:
            need_ascii[0] = True
            klass(_ASCII & ~(1 << av) if av < 128 else _ASCII)
        elif op is c.ANY:
            need_ascii[0] = True
            klass(_ASCII & ~(1 << 10))
        elif op is c.IN:
            bits, negate = 0, False
            for iop, iav in av:
                if iop is c.NEGATE:
                    negate = True
                elif iop is c.LITERAL:
                    if iav < 128:
                        bits |= 1 << iav
                    else:
                        need_ascii[0] = True  # never met: the subject is ASCII then
                elif iop is c.RANGE:
                    lo, hi = iav
                    if hi >= 128:
                        need_ascii[0] = True
                    bits |= sum(1 << b for b in range(lo, min(hi, 127) + 1))
                elif iop is c.CATEGORY:
                    need_ascii[0] = True
                    bits |= _category_bits(iav)
                else:
                    raise _Unsupported(iop)
            if negate:
                need_ascii[0] = True
                bits = _ASCII & ~bits
            klass(bits)
        elif op is c.BRANCH:
            alternatives = av[1]
            jumps = []
            for k, alternative in enumerate(alternatives):
                if k < len(alternatives) - 1:
                    split = emit(RX_SPLIT, len(prog) + 1)
                    seq(alternative)
                    jumps.append(emit(RX_JMP))
                    prog[split][2] = len(prog)
                else:
                    seq(alternative)
            for j in jumps:
                prog[j][1] = len(prog)
        elif op is c.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            if add_flags or del_flags:
                raise _Unsupported("inline flags")
            seq(sub)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            lo, hi, sub = av
            if hi is c.MAXREPEAT or hi > 8 or lo > hi:
                raise _Unsupported("unbounded repeat")
            for _ in range(lo):
                seq(sub)
            for _ in range(hi - lo):
                split = emit(RX_SPLIT, len(prog) + 1)
                seq(sub)
                prog[split][2] = len(prog)
        elif op is c.AT:
            if av in (c.AT_BEGINNING, c.AT_BEGINNING_STRING):
                emit(RX_BOL)
            elif av is c.AT_END:
                emit(RX_EOL)
            elif av is c.AT_END_STRING:
                emit(RX_EOS)
            else:
                raise _Unsupported(av)
        elif op in (c.ASSERT_NOT, c.ASSERT):
            direction, sub = av
            if direction != 1:
                raise _Unsupported("lookbehind")
            at = emit(RX_NOTAHEAD if op is c.ASSERT_NOT else RX_AHEAD, len(prog) + 1)
            seq(sub)
            emit(RX_MATCH)
            prog[at][2] = len(prog)
        else:
            raise _Unsupported(op)

    try:
        tree = _sre_parse.parse(compiled.pattern, flags)
        items = list(tree)
        if len(items) == 1 and items[0][0] is c.BRANCH:
            parts = items[0][1][1]
        else:
            parts = [items]
        starts = []
        for part in parts:
            starts.append(len(prog))
            seq(part)
            emit(RX_MATCH)
    except _Unsupported:
        return None

    def firsts(pc0: int) -> Tuple[Tuple[int, ...], bool]:
        seen, chars, anywhere, stack = set(), set(), False, [pc0]
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            op, a, b = prog[pc]
            if op == RX_CHAR:
                chars.add(a)
            elif op == RX_CHAR_I:
                chars.add(a)
                chars.add(ord(chr(a).upper()))
            elif op == RX_CLASS:
                chars.update(x for x in range(128) if classes[a] >> x & 1)
            elif op == RX_SPLIT:
                stack.extend((a, b))
            elif op == RX_JMP:
                stack.append(a)
            elif op == RX_MATCH:
                anywhere = True
            elif op in (RX_BOL, RX_EOL, RX_EOS):
                stack.append(pc + 1)
            elif op in (RX_NOTAHEAD, RX_AHEAD):
                stack.append(b)
        return tuple(sorted(chars)), anywhere

    alternatives = []
    for start in starts:
        chars, anywhere = firsts(start)
        if anywhere:
            need_ascii[0] = True  # tried at every byte offset: only where bytes are characters
        alternatives.append((start, chars, anywhere))
    return (int(need_ascii[0]), tuple(tuple(t) for t in prog), tuple(classes), tuple(alternatives))


def register_exact(pred: Predicate, *terms: Optional[XTerm]) -> None:
    """Register ``pred`` as the disjunction of these exact terms (a None term, a pattern the
    core cannot run exactly, registers nothing: the prefilter path stays)."""
    if not terms or any(t is None for t in terms):
        EXACT_SPECS.pop(pred, None)
        return
    EXACT_SPECS[pred] = tuple(terms)  # type: ignore[arg-type]
    _COMPILED_EXACT.pop(pred, None)
    _MATCHER_PAIRS.pop(pred, None)


def compiled_matcher(core: Any, pred: Predicate) -> Any:
    "The core's Matcher of ``pred`` (None when none is registered)."
    m = _COMPILED_EXACT.get(pred)
    if m is None:
        spec = EXACT_SPECS.get(pred)
        if spec is None:
            return None
        regexes: List[Any] = []
        terms = []
        for kind, names, first, literals, trmap, pattern, tags, mode in spec:
            index = -1
            if pattern is not None:
                program = compile_regex(pattern)
                if program is None:  # pragma: no cover - x_regex refuses these
                    return None
                index = len(regexes)
                regexes.append(program)
            terms.append((kind, names, first, literals, trmap, index, tags, mode))
        m = core.Matcher(terms, regexes)
        _COMPILED_EXACT[pred] = m
    return m


#: predicate -> (Matcher, the Prefilter run before it or None): a prefilter's literal scan is
#: cheaper than a regex program or several scans of one value (its terms are merged per
#: attribute), but only repeats the one scan per value of a simple matcher
_MATCHER_PAIRS: Dict[Any, Tuple[Any, Any]] = {}


def _matcher(core: Any, pred: Predicate) -> Optional[Tuple[Any, Any]]:
    if not (USE_EXACT and USE_PREFILTERS):
        return None
    pair = _MATCHER_PAIRS.get(pred)
    if pair is None:
        m = compiled_matcher(core, pred)
        if m is None:
            return None
        spec = EXACT_SPECS[pred]
        # a prefilter pays before patterns, or before several scans of one attribute's value
        scans = [name for term in spec if term[0] not in ("true", "present") for name in term[1]]
        costly = any(term[5] is not None for term in spec) or len(scans) > len(set(scans))
        pair = (m, compiled_prefilter(core, pred) if costly else None)
        _MATCHER_PAIRS[pred] = pair
    return pair


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
        pair = _matcher(core, pred)
        if pair is not None:
            return core.select_matches(ctx, tags, pair[0], pred, 0, pair[1])
        return [el for el in _candidates(core, ctx, tags, pred) if pred(el)]
    if tags is None:
        return [el for el in desc_list(ctx) if pred(el)]
    return [el for el in desc_list(ctx) if el.tag in tags and pred(el)]


def select_first(ctx: Element, tags: Tags, pred: Predicate) -> List[Any]:
    "``(.//*[...][pred])[1]``: the first match in document order."
    core = core_of(ctx)
    if core is not None:
        pair = _matcher(core, pred)
        if pair is not None:
            return core.select_matches(ctx, tags, pair[0], pred, 1, pair[1])
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
        pair = _matcher(core, pred)
        if pair is not None:
            return core.select_matches(ctx, tags, pair[0], pred, 2, pair[1])
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
