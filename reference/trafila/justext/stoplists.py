"""jusText 3.0.2's stoplists, read from trafila's data file.

The data file (``trafila/data/justext-stoplists.txt.gz``) is generated from the
installed justext 3.0.2 by ``tools/gen_stoplists.py``; its format is described
there.  jusText is BSD-2-Clause (see ``trafila/data/README.md``).

Only set membership matters to the classifier, so every list is a ``frozenset``.
"""

from __future__ import annotations

import gzip
import threading
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "justext-stoplists.txt.gz"
_MAGIC = "trafila-justext-stoplists 2"

_lock = threading.RLock()  # all_stoplists() loads the table while holding it
# (language names in file order, {name: (first line, count)}, lines, (first word line, end))
_table: Optional[Tuple[List[str], Dict[str, Tuple[int, int]], List[str], Tuple[int, int]]] = None
_words: Dict[str, FrozenSet[str]] = {}
_union: Optional[FrozenSet[str]] = None


def _load_table() -> Tuple[List[str], Dict[str, Tuple[int, int]], List[str], Tuple[int, int]]:
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                with gzip.open(DATA_FILE, "rb") as fh:
                    # split on "\n" only: a word may hold other line-breaking characters
                    lines = fh.read().decode("utf-8").split("\n")
                if lines[0] != _MAGIC:
                    raise ValueError(f"{DATA_FILE}: not a trafila stoplist file")
                pos = 1
                while lines[pos].startswith("#"):
                    pos += 1
                count = int(lines[pos].split(" ")[1])
                names = []
                spans = {}
                first = start = pos + 1 + count
                for line in lines[pos + 1 : pos + 1 + count]:
                    name, size = line.rsplit(" ", 1)
                    names.append(name)
                    spans[name] = (start, int(size))
                    start += int(size)
                _table = (names, spans, lines, (first, start))
    return _table


def get_stoplists() -> FrozenSet[str]:
    """The names of the built-in stoplists (jusText ``justext.utils.get_stoplists``)."""
    return frozenset(_load_table()[0])


def get_stoplist(language: str) -> FrozenSet[str]:
    """One built-in stoplist, lower-cased (jusText ``justext.utils.get_stoplist``)."""
    words = _words.get(language)
    if words is None:
        names, spans, lines, _ = _load_table()
        if language not in spans:
            raise ValueError(
                "Stoplist for language '%s' is missing. "
                "Please use function 'get_stoplists' for complete list of stoplists "
                "and feel free to contribute by your own stoplist." % language
            )
        start, count = spans[language]
        words = frozenset(lines[start : start + count])
        _words[language] = words
    return words


def all_stoplists() -> FrozenSet[str]:
    """The union of every stoplist, built once (trafilatura 2.3.1 ``jt_stoplist_init``).

    trafilatura keeps the union as a tuple and jusText's ``define_stoplist``
    lower-cases it into a frozenset; lower-casing word by word commutes with the
    union, so the frozenset built here is the set the classifier sees
    (154,484 words for jusText 3.0.2). The data file's words are their own
    ``lower()`` (its generator checks that), so the union is every word line at once.
    """
    global _union
    if _union is None:
        with _lock:
            if _union is None:
                _, _, lines, (first, end) = _load_table()
                union = frozenset(lines[first:end])
                _remember(union, union)
                _union = union
    return _union


@lru_cache(maxsize=128)
def _define_stoplist_cached(stoplist: FrozenSet[str]) -> FrozenSet[str]:
    return frozenset(word.lower() for word in stoplist)


# results already known for these exact objects: a cache hit in lru_cache costs an
# equality test of the whole set when the argument is an equal but distinct object
_defined_by_identity: Dict[int, Tuple[object, FrozenSet[str]]] = {}


def _remember(stoplist: object, defined: FrozenSet[str]) -> None:
    _defined_by_identity[id(stoplist)] = (stoplist, defined)


def define_stoplist(stoplist: Iterable[str]) -> FrozenSet[str]:
    """Lower-case all words into a frozenset (jusText ``define_stoplist``).

    jusText caches this with ``lru_cache`` keyed by the stoplist itself, which
    requires a hashable argument; a list or set raises TypeError there, so it
    does here too.
    """
    known = _defined_by_identity.get(id(stoplist))
    if known is not None and known[0] is stoplist:
        return known[1]
    defined = _define_stoplist_cached(stoplist)  # type: ignore[arg-type]
    if len(_defined_by_identity) < 256:
        _remember(stoplist, defined)
        _remember(defined, _define_stoplist_cached(defined))
    return defined
