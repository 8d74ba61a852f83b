"""Tree operations the ports need with lxml's exact semantics, written once.

* :func:`drop_tree` -- lxml.html ``HtmlMixin.drop_tree``, through lxml's
  validating setters (trafila.dom's ``Element.drop_tree`` joins the tail
  without the XML check; it should call this function);
* :func:`deletion_walk` -- ``for tag in tags: for el in tree.iter(tag)`` when
  the loop body deletes ``el``, without walking the tree once per tag.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Sequence, Tuple

from .xmlchars import xml_text

if TYPE_CHECKING:
    from .dom import Element

__all__ = ["drop_tree", "deletion_walk"]


def drop_tree(el: Element) -> None:
    """lxml.html ``drop_tree``: remove ``el`` and its subtree; its tail joins the
    previous sibling's tail or the parent's text, checked as lxml's setters
    check it (ValueError for a string lxml refuses).

    A parentless element fails the upstream ``assert`` (AssertionError)."""
    parent = el.getparent()
    assert parent is not None
    if el.tail:
        previous = el.getprevious()
        if previous is None:
            parent.text = xml_text((parent.text or "") + el.tail)
        else:
            previous.tail = xml_text((previous.tail or "") + el.tail)
    parent.remove(el)


def _under(el: Any, top: Any) -> bool:
    parent = el.getparent()
    while parent is not None:
        if parent is top:
            return True
        parent = parent.getparent()
    return False


def deletion_walk(
    tree: Any,
    tags: Sequence[str],
    descendants: Iterable[Any],
    live_iter: Callable[[Any, str], Iterable[Any]],
) -> Iterator[Tuple[str, Any]]:
    """``for tag in tags: for el in live_iter(tree, tag): yield tag, el``, when
    the loop body deletes ``el`` (speed only: the same elements in the same
    order). ``descendants`` is a snapshot of ``tree``'s descendants in document
    order, ``live_iter(tree, tag)`` lxml's ``tree.iter(tag)`` (the next match is
    fetched from the tree as it is when the current one is handed out).

    Deletions never add a tag, so one snapshot of the tree serves every tag;
    matches already cut off with an earlier subtree are skipped. When no match
    holds another one, lxml's walk meets exactly the remaining matches in
    document order; otherwise (nested matches: lxml's walk goes on inside the
    deleted subtree and then stops) the walk itself is replayed."""
    by_tag: Dict[str, List[Any]] = {}
    for el in descendants:
        by_tag.setdefault(el.tag, []).append(el)
    for tag in tags:
        if tree.tag == tag:
            # the root itself matches: replay the walk
            for el in live_iter(tree, tag):
                yield tag, el
            continue
        # still inside the tree (the tree may itself sit under a parent)
        cands = [e for e in by_tag.get(tag, ()) if _under(e, tree)]
        if not cands:
            continue
        cset = set(cands)
        if any(a in cset for e in cands for a in e.iterancestors()):
            for el in live_iter(tree, tag):
                yield tag, el
        else:
            for el in cands:
                yield tag, el
