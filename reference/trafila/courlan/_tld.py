"""The Public Suffix List lookup of tld 0.13.2 (``get_tld(url, as_object=True,
fail_silently=True)``, public and private sections), which courlan's
``extract_domain`` falls back on when its fast pattern finds no domain.

The rules are the ones tld ships (``tld/res/effective_tld_names.dat.txt``), as tld
reads them, in ``trafila/data/tld-psl.txt.gz`` (made by ``tools/gen_psl.py``)."""

from __future__ import annotations

import gzip
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

__all__ = ["get_tld_parts", "load_rules"]

DATA = Path(__file__).resolve().parent.parent / "data" / "tld-psl.txt.gz"
MAGIC = "trafila-tld-psl 1"
PRIVATE_MARK = "#private"


class _Node:
    "One label of the suffix trie (labels stored right to left)."

    __slots__ = ("children", "exception", "leaf")

    def __init__(self) -> None:
        self.children: Optional[Dict[str, "_Node"]] = None
        self.exception: Optional[str] = None
        self.leaf = False


_ROOT: Optional[_Node] = None
_LOCK = threading.Lock()


def load_rules() -> List[str]:
    "The rules in tld's order (the private ones follow the PRIVATE_MARK line)."
    with gzip.open(DATA, "rt", encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    if lines[0] != MAGIC:
        raise ValueError(f"{DATA}: not a {MAGIC} file")
    return [line for line in lines[1:] if line and not line.startswith("# ")]


def _build() -> _Node:
    root = _Node()
    for rule in load_rules():
        if rule == PRIVATE_MARK:
            continue
        node = root
        for label in reversed(rule.split(".")):
            if label.startswith("!"):
                # tld keeps one exception per node, and the node it sits on becomes a leaf
                node.exception = label[1:]
                break
            if node.children is None:
                node.children = {}
            child = node.children.get(label)
            if child is None:
                child = node.children[label] = _Node()
            node = child
        node.leaf = True
    return root


def _root() -> _Node:
    global _ROOT
    if _ROOT is None:
        with _LOCK:
            if _ROOT is None:
                _ROOT = _build()
    return _ROOT


def get_tld_parts(url: Any) -> Optional[Tuple[str, str]]:
    """(domain, fld) as tld's Result gives them for the URL, None where tld fails
    silently (no host, no suffix found, a URL urlsplit rejects)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return None
    if not host:
        return None
    # tld strips trailing dots ("github.com.........")
    host = host.lower().rstrip(".") if host.endswith(".") else host.lower()
    labels = host.split(".")
    node = _root()
    depth = 0
    suffix_len = 0
    matched = False
    for label in reversed(labels):
        if node.children is None or label == node.exception:
            break
        child = node.children.get(label)
        if child is None:
            child = node.children.get("*")
            if child is None:
                break
        depth += 1
        node = child
        if node.leaf:
            suffix_len = depth
            matched = True
    if not matched:
        return None
    if len(labels) == suffix_len:
        # the host is a suffix itself: domain and fld are the hostname
        return host_of(parts), host_of(parts)
    start = max(1, len(labels) - suffix_len)
    tld = ".".join(labels[start:])
    domain = labels[start - 1]
    return (domain, f"{domain}.{tld}") if domain else (tld, tld)


def host_of(parts: Any) -> str:
    "urllib's hostname (lower-cased), as tld uses it for a host that is all suffix."
    return parts.hostname  # type: ignore[no-any-return]
