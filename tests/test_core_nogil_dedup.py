"""2.3.1's deduplication cache in C (cython_core/nogil_dedup.pxi): ``core.CLRUCache`` against
the reference's ``deduplication.LRUCache``, and the nogil transaction the GIL-free sequence is
to count in (``core.nogil_lru_txn(cache, keys, commit, why)``: the increments of ``keys`` in one
transaction inside ``with nogil``; ``core.LruTxnHook``: one transaction step by step).

* the Python API: thousands of random operation sequences (get, put of ints, big ints, bools,
  floats, None, str; increment, including over values max(v, 0) + 1 refuses; clear; maxsize
  lowered and raised, 0, negative, fractional, inf) on both classes over a small key space and a
  small maxsize: every return value (type and value), every exception type, and the ordered
  contents after every operation are the same;
* ValueError below 1, __bool__, maxsize, pickling and copies (equal contents and maxsize, the
  reference's state shape), TypeError for non-str keys (a documented difference);
* the transaction: on random caches (Python values, counts at LONG_MAX and lowered maxsize
  included), the increments of one page then commit == the same increments on the reference
  class (previous counts and final contents), abort changes nothing, and NEED_PYTHON only where
  a Python value is read or evicted or a count is at LONG_MAX (counted by cause);
* other threads' changes between steps: a committed transaction is exactly its increments run
  at the commit point after those changes; a "conflict" only when an answer changed; no conflict
  when the changes touch other keys;
* corpus pages: the keys and previous counts duplicate_test saw in the reference extraction with
  datatrove's options (favor_precision, no comments, deduplicate), one transaction per page,
  give the same answers; NEED_PYTHON counted by cause (none expected);
* allocation failures: MemoryError, the cache unchanged; threads hammering one cache (Python
  calls and nogil transactions): no crash, committed counts add up.
"""

from __future__ import annotations

import collections
import copy
import pickle
import random
import sys
import threading
from pathlib import Path
from typing import Any, Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[1]
for _p in (str(ROOT / "reference"), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from trafila.v2_3_1 import deduplication as ref_dedup  # noqa: E402

from ._helpers import needs_corpora, sample_pages  # noqa: E402

core = pytest.importorskip("trafila._core")
if not hasattr(core, "CLRUCache"):
    pytest.skip("the core has no CLRUCache", allow_module_level=True)

LONG_MAX = (1 << 63) - 1
KEYS = ["a", "b", "c", "d", "e", "é", "\ud800", "x y", "", "日本"]
VALUES = [0, 1, 2, 3, -1, -5, 7, LONG_MAX, LONG_MAX - 1, -LONG_MAX - 1, 1 << 70, True, False, 2.5, None, "s"]
MAXSIZES = [0, -1, 1, 2, 3, 5, 2.5, float("inf")]


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _contents(cache: Any) -> List[tuple]:
    if isinstance(cache, core.CLRUCache):
        return cache.items()
    return list(cache.cache.items())


def _same_contents(a: Any, b: Any) -> bool:
    x, y = _contents(a), _contents(b)
    return len(x) == len(y) and all(k1 == k2 and _same(v1, v2) for (k1, v1), (k2, v2) in zip(x, y))


def _call(cache: Any, op: str, *args: Any) -> Any:
    try:
        if op == "maxsize":
            cache.maxsize = args[0]
            return None
        return ("ok", getattr(cache, op)(*args))
    except Exception as exc:  # noqa: BLE001 - the exception type is compared
        return ("raised", type(exc).__name__)


def _random_op(rng: random.Random, values: List[Any] = VALUES) -> tuple:
    r = rng.random()
    key = rng.choice(KEYS[: rng.randint(2, len(KEYS))])
    if r < 0.40:
        return ("increment", key)
    if r < 0.62:
        return ("get", key)
    if r < 0.92:
        return ("put", key, rng.choice(values) if rng.random() < 0.5 else rng.randint(-3, 4))
    if r < 0.97:
        return ("maxsize", rng.choice(MAXSIZES) if rng.random() < 0.3 else rng.randint(1, 6))
    return ("clear",)


def _pair(maxsize: int) -> tuple:
    return ref_dedup.LRUCache(maxsize), core.CLRUCache(maxsize)


def test_differential_random_operations() -> None:
    "Every return value, exception and the ordered contents after every operation are the reference's."
    rng = random.Random(231)
    ops = 0
    kinds = collections.Counter()
    for _ in range(3000):
        ref, ours = _pair(rng.randint(1, 5))
        for _ in range(rng.randint(1, 40)):
            op = _random_op(rng)
            expected, got = _call(ref, *op), _call(ours, *op)
            assert (expected is None and got is None) or (expected[0] == got[0] and _same(expected[1], got[1])), (op, expected, got)
            assert _same_contents(ref, ours), (op, _contents(ref), _contents(ours))
            assert _same(ref.maxsize, ours.maxsize)
            ops += 1
            kinds[op[0] if expected is None or expected[0] == "ok" else op[0] + "-raised"] += 1
    assert ops > 50000 and kinds["increment-raised"] > 100 and kinds["get"] > 10000, kinds


def test_api_surface() -> None:
    for bad in (0, -1, 0.5, False):
        with pytest.raises(ValueError):
            ref_dedup.LRUCache(bad)
        with pytest.raises(ValueError):
            core.CLRUCache(bad)
    with pytest.raises(TypeError):
        core.CLRUCache("4")
    cache = core.CLRUCache()
    assert cache.maxsize == 128 and bool(cache) is True and cache.get("a") == -1
    assert core.CLRUCache(maxsize=7).maxsize == 7
    # differences from the reference's class (keys are str), both outside duplicate_test's use
    with pytest.raises(TypeError):
        cache.put(1, 1)
    with pytest.raises(TypeError):
        cache.increment(b"a")
    assert cache.get(1) == -1
    with pytest.raises(TypeError):
        cache.get([])
    cache.increment("a")
    assert cache.cache == collections.OrderedDict([("a", 1)])
    # re-running __init__ empties it, as the reference's makes a new OrderedDict
    cache.__init__(3)
    assert cache.items() == [] and cache.maxsize == 3


def test_pickling_and_copies() -> None:
    rng = random.Random(7)
    for trial in range(200):
        ref, ours = _pair(rng.randint(1, 6))
        for _ in range(rng.randint(0, 30)):
            op = _random_op(rng, [v for v in VALUES if v is not None] + [None])
            _call(ref, *op)
            _call(ours, *op)
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            back = pickle.loads(pickle.dumps(ours, protocol))
            assert type(back) is core.CLRUCache and _same_contents(back, ours) and _same(back.maxsize, ours.maxsize)
            ref_back = pickle.loads(pickle.dumps(ref, protocol))
            # and behaves the same afterwards
            for key in KEYS[:4]:
                assert _call(back, "increment", key) == _call(ref_back, "increment", key)
            assert _same_contents(back, ref_back)
        for dup in (copy.copy(ours), copy.deepcopy(ours)):
            assert _same_contents(dup, ours) and dup is not ours
        state, ref_state = ours.__getstate__(), ref.__getstate__()
        assert set(state) == set(ref_state) == {"maxsize", "cache"}
        assert list(state["cache"].items()) == list(ref_state["cache"].items())
        fresh = core.CLRUCache()
        fresh.__setstate__(ref_state)      # a reference state loads as it is (nothing evicted)
        assert _same_contents(fresh, ref)
    # the original is not affected by changes to its copy
    cache = core.CLRUCache(4)
    cache.increment("k")
    dup = copy.copy(cache)
    dup.increment("k")
    assert cache.items() == [("k", 1)] and dup.items() == [("k", 2)]


# -- the transaction -------------------------------------------------------------------------

def _txn_reference(ref: Any, keys: List[str]) -> List[Any]:
    return [ref.increment(k) for k in keys]


def test_txn_equals_increments() -> None:
    """One page's increments in a nogil transaction then commit == the same increments on the
    reference class; abort leaves the cache as it was; NEED_PYTHON only where it must."""
    rng = random.Random(13)
    why: List[str] = []
    committed = aborted = 0
    for trial in range(3000):
        ref, ours = _pair(rng.randint(1, 6))
        python_values = rng.random() < 0.15
        values = VALUES if python_values else [0, 1, 2, 3, 5, -2]
        for _ in range(rng.randint(0, 12)):
            op = _random_op(rng, values)
            _call(ref, *op)
            _call(ours, *op)
        keys = [rng.choice(KEYS[:rng.randint(2, 8)]) for _ in range(rng.randint(0, 30))]
        before = _contents(ours)
        mirror = copy.deepcopy(ref)
        try:
            expected = _txn_reference(mirror, keys)
            raised = False
        except TypeError:
            raised = True
        # a value the C cannot count on: a Python object, or a count reaching LONG_MAX in the page
        python_valued = any(type(v) is not int or not -LONG_MAX - 1 <= v < LONG_MAX - len(keys) for _, v in before)
        n_why = len(why)
        got = core.nogil_lru_txn(ours, keys, trial % 5 != 0, why)
        if got is None:
            # nothing applied, and only where a Python value is read or evicted or a count overflows
            assert why[n_why] in ("object-value", "overflow") and python_valued
            assert _contents(ours) == before
            continue
        if trial % 5 == 0:
            assert not raised and got == expected and _contents(ours) == before
            aborted += 1
            continue
        assert not raised
        assert got == expected, (before, keys, got, expected)
        assert _same_contents(ours, mirror)
        committed += 1
    counts = collections.Counter(why)
    print(f"\n{committed} committed, {aborted} aborted, NEED_PYTHON {dict(counts)}")
    assert committed > 2000 and counts["object-value"] > 20 and set(counts) <= {"object-value", "overflow"}


def test_txn_need_python_causes() -> None:
    cache = core.CLRUCache(3)
    cache.put("o", "text")
    why: List[str] = []
    assert core.nogil_lru_txn(cache, ["a", "o"], True, why) is None and why == ["object-value"]
    assert cache.items() == [("o", "text")]
    # a Python value evicted by the page's increments
    assert core.nogil_lru_txn(cache, ["a", "b", "c"], True, why) is None and why[-1] == "object-value"
    assert core.nogil_lru_txn(cache, ["a", "b"], True, why) == [-1, -1]
    cache.put("m", LONG_MAX)
    assert core.nogil_lru_txn(cache, ["m"], True, why) is None and why[-1] == "overflow"
    assert cache.increment("m") == LONG_MAX and cache.get("m") == LONG_MAX + 1
    cache.put("m", LONG_MAX - 1)
    assert core.nogil_lru_txn(cache, ["m", "m"], True, why) is None and why[-1] == "overflow"
    assert core.nogil_lru_txn(cache, ["m"], True, why) == [LONG_MAX - 1] and cache.get("m") == LONG_MAX


def test_txn_sees_its_own_increments_and_evictions() -> None:
    cache = core.CLRUCache(2)
    ref = ref_dedup.LRUCache(2)
    for c in (cache, ref):
        c.increment("a")
        c.increment("a")
        c.increment("b")
    keys = ["a", "c", "a", "b", "b", "d", "a", "c", "c", "c"]
    assert core.nogil_lru_txn(cache, keys) == _txn_reference(ref, keys)
    assert _same_contents(cache, ref)
    # maxsize lowered under the count: every increment evicts one
    for c in (cache, ref):
        c.maxsize = 6
        for k in "pqrs":
            c.put(k, 0)
        for k in "tu":
            c.put(k, 2)
        c.maxsize = 1
    assert len(cache.items()) == 6
    keys = ["q", "u", "q", "z", "u"]
    assert core.nogil_lru_txn(cache, keys) == _txn_reference(ref, keys)
    assert _same_contents(cache, ref)


def test_txn_other_threads_between_steps() -> None:
    """Changes by others between a transaction's steps: a commit is its increments run at the
    commit point; "conflict" only when an answer given would now differ."""
    rng = random.Random(99)
    outcomes = collections.Counter()
    for trial in range(2500):
        maxsize = rng.randint(1, 6)
        ref, ours = _pair(maxsize)
        for _ in range(rng.randint(0, 8)):
            k = rng.choice(KEYS[:6])
            ref.increment(k)
            ours.increment(k)
        keys = [rng.choice(KEYS[:6]) for _ in range(rng.randint(1, 12))]
        hook = core.LruTxnHook(ours)
        answers: List[Any] = []
        others = []
        for k in keys:
            if rng.random() < 0.3:
                other = rng.choice(KEYS[:6])
                op = rng.choice(["increment", "increment", "get", "put"])
                args = (other, rng.randint(0, 3)) if op == "put" else (other,)
                getattr(ours, op)(*args)
                getattr(ref, op)(*args)
                others.append((op, args))
            answers.append(hook.increment(k))
            if answers[-1] is None:
                break
        if answers[-1] is None:
            assert hook.cause == "conflict"
            hook.abort()
            assert _same_contents(ours, ref)
            outcomes["conflict-step"] += 1
            continue
        if rng.random() < 0.3:
            other = rng.choice(KEYS[:6])
            ours.increment(other)
            ref.increment(other)
            others.append(("increment", (other,)))
        at_commit = copy.deepcopy(ref)
        serial = _txn_reference(at_commit, keys)
        if hook.commit():
            assert answers == serial
            assert _same_contents(ours, at_commit)
            outcomes["committed-after-changes" if others else "committed"] += 1
        else:
            assert hook.cause == "conflict" and answers != serial
            assert _same_contents(ours, ref)
            outcomes["conflict-commit"] += 1
    print(f"\n{dict(outcomes)}")
    assert all(outcomes[k] > 50 for k in ("conflict-step", "conflict-commit", "committed-after-changes", "committed"))


def test_txn_no_conflict_on_other_keys() -> None:
    cache = core.CLRUCache(1000)
    ref = ref_dedup.LRUCache(1000)
    hook = core.LruTxnHook(cache)
    answers = []
    for i in range(50):
        cache.increment(f"other{i % 7}")
        ref.increment(f"other{i % 7}")
        answers.append(hook.increment(f"mine{i % 5}"))
    assert hook.commit() is True
    assert answers == _txn_reference(ref, [f"mine{i % 5}" for i in range(50)])
    assert _same_contents(cache, ref)


# -- corpus pages: the keys duplicate_test counts in the reference extraction -------------------

class _Recorder(ref_dedup.LRUCache):
    "The reference's cache, recording each page's increments (key, previous)."

    def __init__(self, maxsize: int) -> None:
        super().__init__(maxsize)
        self.calls: List[tuple] = []

    def increment(self, key: str) -> int:
        previous = super().increment(key)
        self.calls.append((key, previous))
        return previous


@needs_corpora
def test_corpus_pages() -> None:
    """Datatrove's call (favor_precision, no comments, deduplicate) in the reference on corpus
    pages, one cache for all: a transaction per page on a CLRUCache gives every previous count the
    reference's duplicate_test saw, and the same cache contents."""
    from trafila.v2_3_1 import core as ref_core

    for maxsize in (64, 4096):
        recorder = _Recorder(maxsize)
        ours = core.CLRUCache(maxsize)
        why: List[str] = []
        pages = calls = repeated = 0
        for k, (_name, page) in enumerate(sample_pages(["cleaneval", "commoncrawl", "fundus"], 9)):
            if page.html is None:
                continue
            recorder.calls = []
            ref_core.extract(page.html, favor_precision=True, include_comments=False, deduplicate=recorder)
            if not recorder.calls:
                continue
            pages += 1
            calls += len(recorder.calls)
            repeated += sum(prev > 2 for _, prev in recorder.calls)
            got = core.nogil_lru_txn(ours, [key for key, _ in recorder.calls], True, why)
            assert got == [prev for _, prev in recorder.calls], page.id
            if pages % 10 == 0:
                assert _same_contents(ours, recorder)
            if pages >= 50:
                break
        assert _same_contents(ours, recorder)
        print(f"\nmaxsize {maxsize}: {pages} pages, {calls} duplicate_test calls ({repeated} with previous > 2), "
              f"NEED_PYTHON {collections.Counter(why)}")
        assert pages >= 20 and repeated > 0 and not why


# -- memory and threads ----------------------------------------------------------------------

def test_allocation_failures() -> None:
    "An allocation failing anywhere is a MemoryError, the cache as it was."
    errors = collections.Counter()
    for n in range(0, 60):
        ref = ref_dedup.LRUCache(4)
        ours = core.CLRUCache(4)
        for k in ("a", "b", "a", "c"):
            ref.increment(k)
            ours.increment(k)
        keys = ["a", "d", "e", "a", "f", "g", "h", "d"] * 3
        for what in ("new", "put", "increment", "txn", "txn-abort"):
            before = _contents(ours)
            core._fail_allocations_after(n)
            try:
                if what == "new":
                    res = core.CLRUCache(3)
                elif what == "put":
                    res = ours.put("p", 1)
                elif what == "increment":
                    res = ours.increment("r")
                else:
                    res = core.nogil_lru_txn(ours, keys, what == "txn")
            except MemoryError:
                errors[what] += 1
                res = MemoryError
            finally:
                core._fail_allocations_after(-1)
            if res is MemoryError:
                assert _contents(ours) == before, (n, what)
                continue
            if what == "new":
                assert res.items() == [] and res.maxsize == 3
            elif what == "put":
                ref.put("p", 1)
            elif what == "increment":
                assert res == ref.increment("r")
            elif what == "txn":
                assert res == _txn_reference(ref, keys)
            assert _same_contents(ours, ref), (n, what)
    print(f"\nMemoryErrors {dict(errors)}")
    assert all(errors[w] > 0 for w in ("new", "put", "increment", "txn", "txn-abort"))


def test_threads_hammering() -> None:
    "Python calls and nogil transactions from threads on one cache: no crash, the counts add up."
    cache = core.CLRUCache(10000)
    small = core.CLRUCache(3)
    committed: Dict[str, int] = collections.Counter()
    lock = threading.Lock()
    conflicts = []
    errors = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        mine = collections.Counter()
        try:
            for _ in range(150):
                keys = [f"k{rng.randint(0, 20)}" for _ in range(rng.randint(1, 150))]
                if rng.random() < 0.3:
                    for k in keys:
                        cache.increment(k)
                    mine.update(keys)
                else:
                    why: List[str] = []
                    if core.nogil_lru_txn(cache, keys, True, why) is None:
                        conflicts.append(why[0])
                    else:
                        mine.update(keys)
                core.nogil_lru_txn(small, keys, True, [])
                small.increment(keys[0])
                small.get(keys[-1])
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
        with lock:
            committed.update(mine)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(6)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)      # more interleaving of the Python calls with the nogil runs
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors
    assert dict(cache.items()) == dict(committed)
    assert len(small.items()) <= 3
    assert set(conflicts) <= {"conflict"}
    print(f"\n{sum(committed.values())} increments committed, {len(conflicts)} transactions in conflict")
