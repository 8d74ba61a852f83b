"""The ``prune_xpath`` strings trafila evaluates itself (both releases).

trafilatura compiles each string with lxml's ``XPath`` and deletes the nodes it selects on
the whole page before the extraction. trafila accepts a small, exactly reproduced subset:
a union (``|``) of absolute descendant steps

    //NAME        //*        //NAME[PRED]        //*[PRED]

where PRED is one of ``@a``, ``@a='v'``, ``contains(@a,'v')``, ``starts-with(@a,'v')``
(NAME and ``a`` ASCII names without a prefix, ``v`` a quoted literal, no blanks inside a
step). Every other string, and a step that would select the root element itself, raises
``NotNative``: the call then goes to the installed trafilatura.

XPath rules kept: ``//`` starts at the document, so it reaches every element of the page;
``*`` selects elements only (not comments); a comparison with a missing attribute is false
(an empty node-set: ``@a=''`` is false where ``a`` is missing), while ``contains`` and
``starts-with`` read it as '' (so ``contains(@a,'')`` is true); a union lists each node
once, in document order.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ._engine import NotNative
from .xpathlib import select

_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_LITERAL = r"'[^']*'|\"[^\"]*\""
_STEP = re.compile(
    rf"//(?P<name>{_NAME}|\*)"
    rf"(?:\[(?:@(?P<has>{_NAME})"
    rf"|@(?P<eq>{_NAME})=(?P<eqv>{_LITERAL})"
    rf"|(?P<fn>contains|starts-with)\(@(?P<fa>{_NAME}),(?P<fv>{_LITERAL})\))\])?"
)

Step = Tuple[Optional[str], Callable[[Any], bool]]


def _predicate(match: "re.Match[str]") -> Callable[[Any], bool]:
    "The element test of one step (name test aside)."
    if match["has"]:
        name = match["has"]
        return lambda el: el.get(name) is not None
    if match["eq"]:
        name, value = match["eq"], match["eqv"][1:-1]
        return lambda el: el.get(name) == value  # None (missing) never equals
    if match["fn"]:
        name, value = match["fa"], match["fv"][1:-1]
        if match["fn"] == "contains":
            return lambda el: value in (el.get(name) or "")
        return lambda el: (el.get(name) or "").startswith(value)
    return lambda el: True


def _parse(expression: str) -> List[Step]:
    "The steps of one union, or NotNative for a string outside the subset."
    steps: List[Step] = []
    for part in expression.split("|"):
        match = _STEP.fullmatch(part)
        if match is None:
            raise NotNative("prune_xpath: an XPath trafila does not evaluate")
        name = None if match["name"] == "*" else match["name"]
        steps.append((name, _predicate(match)))
    return steps


_CACHE: Dict[str, List[Step]] = {}


def compile_prune_xpath(prune_xpath: Any) -> List[Callable[[Any], List[Any]]]:
    """trafilatura's ``prune_xpath`` (a string or a list of strings) as selectors for
    prune_unwanted_nodes, one per string; NotNative for anything outside the subset."""
    expressions: Sequence[Any] = [prune_xpath] if isinstance(prune_xpath, str) else prune_xpath
    if not isinstance(expressions, (list, tuple)) or not all(isinstance(x, str) for x in expressions):
        raise NotNative("prune_xpath: not a string or a list of strings")
    selectors = []
    for expression in expressions:
        steps = _CACHE.get(expression)
        if steps is None:
            steps = _CACHE.setdefault(expression, _parse(expression))
        selectors.append(_selector(steps))
    return selectors


def _selector(steps: List[Step]) -> Callable[[Any], List[Any]]:
    def evaluate(root: Any) -> List[Any]:
        for name, test in steps:
            if (name is None or root.tag == name) and isinstance(root.tag, str) and test(root):
                raise NotNative("prune_xpath: selects the root element")
        if len(steps) == 1:
            name, test = steps[0]
            return select(root, None if name is None else frozenset([name]), _element_test(test))
        # a union is each node once, in document order: the elements any step selects
        names = None if any(n is None for n, _ in steps) else frozenset(n for n, _ in steps)
        return select(root, names, _element_test(
            lambda el: any((n is None or el.tag == n) and t(el) for n, t in steps)))

    return evaluate


def _element_test(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    # '*' and names select elements only: comments and processing instructions have no str tag
    return lambda el: isinstance(el.tag, str) and test(el)
