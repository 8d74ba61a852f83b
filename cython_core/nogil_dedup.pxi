# 2.3.1's deduplication cache (deduplication.LRUCache) in C, for the GIL-free sequence.
#
# CLRUCache has LRUCache's Python API and behaviour (get, put, increment, clear, __bool__,
# maxsize, pickling, a reentrant lock as the reference's RLock); its entries live in C (a hash
# table over a doubly linked list, oldest first), so C code can count in it without the GIL
# through a transaction (LruTxn, below). Keys are str, stored as UTF-8 with surrogatepass
# (equal bytes iff equal str); values are C longs, or a Python object (a reference held by the
# entry) for anything that is not an exact int fitting a long, so put() takes any value as the
# reference does. Differences from the Python class, all outside what trafilatura does with it:
# put/increment of a key that is not a str is a TypeError; ``cache`` is a snapshot (an
# OrderedDict copy), not the live dict; ``items()`` (tests) lists the entries oldest first.
#
# The transaction (nogil, for one page): lru_txn_begin (GIL: takes a reference to the cache);
# lru_txn_increment, as many as the page makes, each answering the previous count the Python
# class's increment would give after the page's earlier increments, read through the shared
# cache plus the transaction's journal and simulating the evictions those increments would
# cause, without changing the shared cache; then lru_txn_commit (apply the journal's
# increments in order, under the lock: the cache then equals what calling increment for each
# key in order would have made) or lru_txn_abort (drop the journal: the page reruns in Python,
# which counts for itself); lru_txn_end (GIL: frees, drops the reference).
#
# Threads. One thread: commit == the same increments on the Python class, exactly. Several
# threads: the journal records the previous value every increment answered; whenever the cache
# changed since the transaction last looked (a version number bumped by every change: another
# thread's commit or Python call), the transaction replays its journal against the cache as it
# now is and compares. lru_txn_commit replays under the lock before applying, so a commit
# happens only when every answer the page got equals what the increments would answer if the
# whole page ran at the commit point: each committed page is then exactly a serial run of its
# increments at its commit (as the reference under threads is a serial run of single increments
# in no defined order, never losing a count). Otherwise the answer is NEED_PYTHON ("conflict":
# nothing was applied; the page reruns in Python). An increment whose cached value is a Python
# object (put() of a non-int, or a count at LONG_MAX: Python's max(v, 0) + 1 decides) or a
# simulated eviction of such an entry (its reference is dropped only with the GIL) is
# NEED_PYTHON too. The lock is never held while acquiring the GIL (the Python methods take it
# without blocking, else wait for it with the GIL released).
#
# Wired into the sequence (how, and where the reference calls duplicate_test):
# * Call sites of duplicate_test in the 2.3.1 extraction (reference/trafila/v2_3_1):
#   htmlprocessing.py handle_textnode (after the trims, when the element has text or textfilter
#   is false) and process_node (when it has text or tail and textfilter is false); core.py's
#   bare_extraction (the whole postbody once the size checks passed; True discards the page;
#   after trafilatura_sequence, in Python, through the cache's Python API). handle_textnode is
#   reached from main_extractor.py's process_nested_elements, handle_other_elements,
#   handle_paragraphs' children, _fill_cell_child and extract_comments; process_node from
#   handle_titles, handle_formatting, handle_lists, handle_paragraphs, _fill_cell,
#   handle_textelem and _extract's lead and tail elements. Each call counts (duplicate or not).
#   The C handlers (nogil_extract.pxi ng_process_node, ng_handle_textnode) call
#   ng_duplicate_test (below) at those same points when the NgCtx carries a transaction
#   (c.lru); every nogil handler reaches them as the reference's handlers do (none inlines
#   them), so the calls come in the reference's order; nogil_tables.pxi no longer hands a
#   dedup page back.
# * The key: trim(" ".join(element.itertext())): the element's text, its descendants' texts and
#   tails in order (not its own tail), joined by one space, whitespace runs (str.split's: the
#   Unicode whitespace Py_UNICODE_ISSPACE knows) collapsed to one space, stripped; built as UTF-8
#   by ng_itertext_pieces and accel_extract.pxi's collapse, handed to lru_txn_increment. The
#   verdict: len(teststring) > options.min_duplcheck_size (code points: UTF-8 lead bytes) and
#   previous > options.max_repetitions, both resolved by sequence_231 with the GIL (a value that
#   is no int fitting a C long: the page stays in Python).
# * Which cache: deduplication.cache_of(options): options.dedup if it is one of
#   deduplication.CACHE_TYPES (LRUCache, and CLRUCache, which trafila/_core_impl.py registers),
#   else the module cache deduplication.LRU_TEST, which the core's 2.3.1 Implementation makes a
#   CLRUCache holding the reference cache's entries (deduplication.set_module_cache; a cache a
#   user put there that is not the reference's class stays: trafila.patch's shim). sequence_231
#   takes a CLRUCache only (its exact type): a reference LRUCache or any other object keeps the
#   page in Python.
# * sequence_231, with the GIL: lru_txn_begin; in the nogil run every duplicate_test is
#   lru_txn_increment; the page's NS_OK commits (lru_txn_commit: a conflict there is
#   NEED_PYTHON like any other, nothing applied), any NEED_PYTHON / NS_ERROR aborts; lru_txn_end
#   with the GIL. Aborting before the Python rerun is what keeps the counts exact: the rerun
#   counts the page once. Pages the cache hands back are counted under the stage
#   "deduplication" of sequence_stats(), by cause.

import collections as _lru_collections
import copyreg as _lru_copyreg
import math as _lru_math

from libc.limits cimport LONG_MAX
from cpython.pyport cimport PY_SSIZE_T_MAX
from cpython.ref cimport Py_INCREF, Py_XDECREF

cdef extern from "pythread.h":
    ctypedef void* PyThread_type_lock
    PyThread_type_lock PyThread_allocate_lock() nogil
    void PyThread_free_lock(PyThread_type_lock) nogil
    int PyThread_acquire_lock(PyThread_type_lock, int) nogil
    void PyThread_release_lock(PyThread_type_lock) nogil
    unsigned long PyThread_get_thread_ident() nogil

cdef extern from *:
    """
    static inline unsigned long trafila_lru_owner(unsigned long* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline void trafila_lru_set_owner(unsigned long* p, unsigned long v) {
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    """
    unsigned long trafila_lru_owner(unsigned long* p) nogil
    void trafila_lru_set_owner(unsigned long* p, unsigned long v) nogil


cdef enum:
    LRU_CAUSE_NONE = 0
    LRU_CAUSE_OBJECT = 1      # a Python-object value read or evicted
    LRU_CAUSE_OVERFLOW = 2    # a count at LONG_MAX: the next one is a Python int
    LRU_CAUSE_CONFLICT = 3    # another thread changed what the page read
    LRU_CAUSE_RELEASE = 4     # 1.11.0: a count below -1 (put_in_cache adds one; 2.3.1 restarts at 1)

LRU_CAUSES = ("none", "object-value", "overflow", "conflict", "release")


ctypedef struct LruEntry:
    LruEntry* older
    LruEntry* newer
    LruEntry* chain
    uint64_t hash
    uint64_t seq          # increases along the list, oldest first
    Py_ssize_t klen
    long value
    PyObject* obj         # NULL: the value is ``value``
    uchar* key


ctypedef struct LruCore:
    PyThread_type_lock lock
    unsigned long owner
    Py_ssize_t depth
    LruEntry** buckets
    Py_ssize_t mask
    Py_ssize_t count
    Py_ssize_t limit      # evict while count > limit (maxsize floored, clamped)
    LruEntry* oldest
    LruEntry* newest
    uint64_t seq
    uint64_t version      # bumped by every change of entries, order or limit


cdef inline uint64_t lru_hash(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef uint64_t h = 1469598103934665603ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * 1099511628211ULL
    h ^= h >> 29
    h *= 0xbf58476d1ce4e5b9ULL
    return h ^ (h >> 32)


cdef inline void lru_lock(LruCore* k) noexcept nogil:
    cdef unsigned long me = PyThread_get_thread_ident()
    if trafila_lru_owner(&k.owner) == me:
        k.depth += 1
        return
    PyThread_acquire_lock(k.lock, 1)
    trafila_lru_set_owner(&k.owner, me)
    k.depth = 1


cdef void lru_lock_gil(LruCore* k):
    "The lock, from code holding the GIL: waits with the GIL released."
    cdef unsigned long me = PyThread_get_thread_ident()
    if trafila_lru_owner(&k.owner) == me:
        k.depth += 1
        return
    if not PyThread_acquire_lock(k.lock, 0):
        with nogil:
            PyThread_acquire_lock(k.lock, 1)
    trafila_lru_set_owner(&k.owner, me)
    k.depth = 1


cdef inline void lru_unlock(LruCore* k) noexcept nogil:
    k.depth -= 1
    if k.depth == 0:
        trafila_lru_set_owner(&k.owner, 0)
        PyThread_release_lock(k.lock)


cdef LruEntry* lru_find(LruCore* k, const uchar* key, Py_ssize_t n, uint64_t h) noexcept nogil:
    cdef LruEntry* e = k.buckets[h & <uint64_t>k.mask]
    while e != NULL:
        if e.hash == h and e.klen == n and memcmp(e.key, key, <size_t>n) == 0:
            return e
        e = e.chain
    return NULL


cdef LruEntry* lru_entry_new(const uchar* key, Py_ssize_t n, uint64_t h) noexcept nogil:
    cdef LruEntry* e = NULL if alloc_fails() else <LruEntry*>malloc(sizeof(LruEntry) + <size_t>n + 1)
    if e == NULL:
        return NULL
    memset(e, 0, sizeof(LruEntry))
    e.key = <uchar*>e + sizeof(LruEntry)
    if n > 0:
        memcpy(e.key, key, <size_t>n)
    e.key[n] = 0
    e.klen = n
    e.hash = h
    return e


cdef inline void lru_append(LruCore* k, LruEntry* e) noexcept nogil:
    e.older = k.newest
    e.newer = NULL
    if k.newest != NULL:
        k.newest.newer = e
    else:
        k.oldest = e
    k.newest = e
    k.seq += 1
    e.seq = k.seq


cdef inline void lru_unlist(LruCore* k, LruEntry* e) noexcept nogil:
    if e.older != NULL:
        e.older.newer = e.newer
    else:
        k.oldest = e.newer
    if e.newer != NULL:
        e.newer.older = e.older
    else:
        k.newest = e.older
    e.older = e.newer = NULL


cdef void lru_grow(LruCore* k) noexcept nogil:
    # a table that cannot grow stays as it is: the chains only get longer
    cdef Py_ssize_t n = (k.mask + 1) * 2, i
    cdef LruEntry** nb = NULL if alloc_fails() else <LruEntry**>calloc(<size_t>n, sizeof(LruEntry*))
    cdef LruEntry* e
    cdef LruEntry* nx
    if nb == NULL:
        return
    for i in range(k.mask + 1):
        e = k.buckets[i]
        while e != NULL:
            nx = e.chain
            e.chain = nb[e.hash & <uint64_t>(n - 1)]
            nb[e.hash & <uint64_t>(n - 1)] = e
            e = nx
    free(k.buckets)
    k.buckets = nb
    k.mask = n - 1


cdef void lru_link(LruCore* k, LruEntry* e) noexcept nogil:
    cdef Py_ssize_t slot = <Py_ssize_t>(e.hash & <uint64_t>k.mask)
    e.chain = k.buckets[slot]
    k.buckets[slot] = e
    lru_append(k, e)
    k.count += 1
    if k.count > k.mask + 1:
        lru_grow(k)


cdef void lru_remove(LruCore* k, LruEntry* e) noexcept nogil:
    cdef LruEntry** p = &k.buckets[e.hash & <uint64_t>k.mask]
    while p[0] != NULL and p[0] != e:
        p = &p[0].chain
    if p[0] == e:
        p[0] = e.chain
    lru_unlist(k, e)
    k.count -= 1


cdef PyObject* lru_pop_oldest(LruCore* k) noexcept nogil:
    "popitem(last=False): the evicted entry's object (a reference to drop with the GIL) or NULL."
    cdef LruEntry* e = k.oldest
    cdef PyObject* obj
    if e == NULL:
        return NULL
    lru_remove(k, e)
    obj = e.obj
    free(e)
    return obj


cdef int lru_put_c(LruCore* k, const uchar* key, Py_ssize_t n, uint64_t h, long v, PyObject* obj,
                   PyObject** drop1, PyObject** drop2) noexcept nogil:
    """put(key, value) under the lock: ``obj`` (a reference, stolen on success) or the long ``v``.
    The references the cache let go of are left in drop1/drop2. -1: no memory (nothing changed)."""
    cdef LruEntry* e = lru_find(k, key, n, h)
    if e != NULL:
        drop1[0] = e.obj
        lru_unlist(k, e)
        lru_append(k, e)
    else:
        e = lru_entry_new(key, n, h)
        if e == NULL:
            return -1
        lru_link(k, e)
    e.obj = obj
    e.value = v
    if k.count > k.limit:
        drop2[0] = lru_pop_oldest(k)
    k.version += 1
    return 0


cdef void lru_core_free(LruCore* k) noexcept nogil:
    "Frees every entry (their objects must have been taken), the table, the lock and ``k``."
    cdef LruEntry* e = k.oldest
    cdef LruEntry* nx
    while e != NULL:
        nx = e.newer
        free(e)
        e = nx
    free(k.buckets)
    if k.lock != NULL:
        PyThread_free_lock(k.lock)
    free(k)


cdef Py_ssize_t _lru_limit(object m) except? -2:
    "The largest count len > maxsize lets stay (len is an int: len > m iff len > floor(m))."
    if isinstance(m, float):
        if m != m or m == float("inf"):
            return PY_SSIZE_T_MAX
        if m == float("-inf"):
            return -1
    if not isinstance(m, int):
        m = _lru_math.floor(m)
    m = int(m)
    if m >= PY_SSIZE_T_MAX:
        return PY_SSIZE_T_MAX
    if m < -1:
        return -1
    return m


cdef bytes _lru_key(object key):
    if not isinstance(key, str):
        raise TypeError(f"CLRUCache keys are str, not {type(key).__name__}")
    return (<str>key).encode("utf-8", "surrogatepass")


cdef class CLRUCache:
    """deduplication.LRUCache of trafilatura 2.3.1 with its entries in C: a least recently used
    cache of counts (see cython_core/nogil_dedup.pxi)."""

    cdef LruCore* core
    cdef object _maxsize
    cdef object __weakref__     # the delegation keeps a trafilatura twin per cache (_delegation._TWINS)

    def __cinit__(self, *args, **kwargs):
        cdef LruCore* k = NULL if alloc_fails() else <LruCore*>calloc(1, sizeof(LruCore))
        if k == NULL:
            raise MemoryError("out of memory")
        k.buckets = NULL if alloc_fails() else <LruEntry**>calloc(16, sizeof(LruEntry*))
        k.lock = PyThread_allocate_lock()
        if k.buckets == NULL or k.lock == NULL:
            lru_core_free(k)
            raise MemoryError("out of memory")
        k.mask = 15
        k.limit = 128
        self.core = k
        self._maxsize = 128

    def __init__(self, maxsize=128):
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.clear()
        self.maxsize = maxsize

    def __dealloc__(self):
        cdef LruEntry* e
        if self.core == NULL:
            return
        e = self.core.oldest
        while e != NULL:
            Py_XDECREF(e.obj)
            e.obj = NULL
            e = e.newer
        lru_core_free(self.core)
        self.core = NULL

    @property
    def maxsize(self):
        return self._maxsize

    @maxsize.setter
    def maxsize(self, value):
        cdef Py_ssize_t limit = _lru_limit(value)
        lru_lock_gil(self.core)
        self._maxsize = value
        self.core.limit = limit
        self.core.version += 1
        lru_unlock(self.core)

    def __bool__(self):
        # an instance passed as the dedup option turns deduplication on, even empty
        return True

    def get(self, key):
        cdef bytes b
        cdef LruEntry* e
        if not isinstance(key, str):
            hash(key)
            return -1
        b = _lru_key(key)
        lru_lock_gil(self.core)
        try:
            e = lru_find(self.core, <const uchar*><char*>b, len(b), lru_hash(<const uchar*><char*>b, len(b)))
            if e == NULL:
                return -1
            lru_unlist(self.core, e)
            lru_append(self.core, e)
            self.core.version += 1
            return <object>e.obj if e.obj != NULL else e.value
        finally:
            lru_unlock(self.core)

    cdef int _put(self, bytes b, object value) except -1:
        "put() with the lock taken here; the references let go of are dropped after unlocking."
        cdef long v = 0
        cdef PyObject* obj = NULL
        cdef PyObject* drop1 = NULL
        cdef PyObject* drop2 = NULL
        cdef int r
        if type(value) is int and -LONG_MAX - 1 <= value <= LONG_MAX:
            v = value
        else:
            Py_INCREF(value)
            obj = <PyObject*>value
        lru_lock_gil(self.core)
        r = lru_put_c(self.core, <const uchar*><char*>b, len(b), lru_hash(<const uchar*><char*>b, len(b)),
                      v, obj, &drop1, &drop2)
        lru_unlock(self.core)
        Py_XDECREF(drop1)
        Py_XDECREF(drop2)
        if r < 0:
            Py_XDECREF(obj)
            raise MemoryError("out of memory")
        return 0

    def put(self, key, value):
        self._put(_lru_key(key), value)

    def increment(self, key):
        "Count one more occurrence; return the previous count or -1."
        cdef bytes b = _lru_key(key)
        cdef const uchar* s = <const uchar*><char*>b
        cdef Py_ssize_t n = len(b)
        cdef uint64_t h = lru_hash(s, n)
        cdef LruCore* k = self.core
        cdef LruEntry* e
        cdef PyObject* drop = NULL
        cdef long prev
        lru_lock_gil(k)
        try:
            e = lru_find(k, s, n, h)
            if e == NULL:
                self._put(b, 1)
                return -1
            if e.obj == NULL and e.value < LONG_MAX:
                # pop, then put max(previous, 0) + 1 at the end
                prev = e.value
                e.value = (prev if prev > 0 else 0) + 1
                lru_unlist(k, e)
                lru_append(k, e)
                if k.count > k.limit:
                    drop = lru_pop_oldest(k)
                k.version += 1
                return prev
            # the Python value (or a count at LONG_MAX): popped first, as the reference does,
            # so an error in max(previous, 0) + 1 leaves the key out
            previous = <object>e.obj if e.obj != NULL else e.value
            lru_remove(k, e)
            drop = e.obj
            free(e)
            k.version += 1
            self._put(b, max(previous, 0) + 1)
            return previous
        finally:
            lru_unlock(k)
            Py_XDECREF(drop)

    def clear(self):
        cdef LruCore* k = self.core
        cdef LruEntry* e
        cdef LruEntry* nx
        lru_lock_gil(k)
        e = k.oldest
        k.oldest = k.newest = NULL
        k.count = 0
        memset(k.buckets, 0, <size_t>(k.mask + 1) * sizeof(LruEntry*))
        k.version += 1
        lru_unlock(k)
        while e != NULL:
            nx = e.newer
            Py_XDECREF(e.obj)
            free(e)
            e = nx

    def items(self):
        "Tests: the entries (key, value), oldest first."
        cdef LruEntry* e
        out = []
        lru_lock_gil(self.core)
        try:
            e = self.core.oldest
            while e != NULL:
                out.append(((<char*>e.key)[:e.klen].decode("utf-8", "surrogatepass"),
                            <object>e.obj if e.obj != NULL else e.value))
                e = e.newer
        finally:
            lru_unlock(self.core)
        return out

    @property
    def cache(self):
        "A snapshot of the entries (an OrderedDict, oldest first; the reference's is live)."
        return _lru_collections.OrderedDict(self.items())

    @cache.setter
    def cache(self, entries):
        # the reference's ``cache = OrderedDict(...)`` (the delegation's hand-over): these
        # entries in this order, none evicted
        self.__setstate__({"cache": entries})

    @property
    def lock(self):
        "The cache's reentrant lock as a context manager (the reference's RLock attribute)."
        return _CLRULock(self)

    def __getstate__(self):
        return {"maxsize": self._maxsize, "cache": self.cache}

    def __setstate__(self, state):
        entries = list(state.get("cache", {}).items())
        keys = [_lru_key(key) for key, _ in entries]
        self.clear()
        if "maxsize" in state:
            self.maxsize = state["maxsize"]
        # as the reference's __dict__.update: the entries as they are, none evicted
        saved = self.core.limit
        self.core.limit = PY_SSIZE_T_MAX
        try:
            for b, (_, value) in zip(keys, entries):
                self._put(b, value)
        finally:
            self.core.limit = saved

    def __reduce__(self):
        return (_lru_copyreg.__newobj__, (type(self),), self.__getstate__())


cdef class _CLRULock:
    "CLRUCache.lock: acquire/release and ``with`` on the cache's reentrant lock."

    cdef CLRUCache cache

    def __cinit__(self, CLRUCache cache not None):
        self.cache = cache

    def acquire(self, blocking=True, timeout=-1):
        "Reentrant; ``blocking`` false: True only if taken at once (a timeout is not supported: waits)."
        cdef LruCore* k = self.cache.core
        cdef unsigned long me = PyThread_get_thread_ident()
        if blocking or trafila_lru_owner(&k.owner) == me:
            lru_lock_gil(k)
            return True
        if not PyThread_acquire_lock(k.lock, 0):
            return False
        trafila_lru_set_owner(&k.owner, me)
        k.depth = 1
        return True

    def release(self):
        cdef LruCore* k = self.cache.core
        if trafila_lru_owner(&k.owner) != PyThread_get_thread_ident():
            raise RuntimeError("cannot release un-acquired lock")
        lru_unlock(k)

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


# -- the transaction (nogil) ------------------------------------------------------------------

ctypedef struct LruVNode:   # a key the transaction counted, in its view of the cache
    LruVNode* chain
    LruVNode* older          # the view's order among the keys it counted (present ones)
    LruVNode* newer
    uint64_t hash
    Py_ssize_t klen
    uchar* key
    long value
    int state                # 0: as in the shared cache, 1: present with ``value``, 2: absent


ctypedef struct LruStep:
    LruVNode* node
    long previous
    int present


ctypedef struct LruTxn:
    PyObject* owner          # the CLRUCache (a reference)
    LruCore* k
    LruVNode** buckets
    Py_ssize_t mask
    Py_ssize_t nnodes
    LruStep* steps
    Py_ssize_t nsteps
    Py_ssize_t cap
    # the view: the shared entries from ``cursor`` on (minus the counted keys), then the counted
    # present keys oldest first; valid while the cache's version is ``version``
    LruEntry* cursor
    Py_ssize_t vlen
    LruVNode* t_oldest
    LruVNode* t_newest
    uint64_t version
    int synced
    int cause


cdef int lru_txn_begin(LruTxn* t, CLRUCache cache) except -1:
    "With the GIL: an empty transaction on ``cache`` (a reference taken); MemoryError."
    memset(t, 0, sizeof(LruTxn))
    t.buckets = NULL if alloc_fails() else <LruVNode**>calloc(16, sizeof(LruVNode*))
    if t.buckets == NULL:
        raise MemoryError("out of memory")
    t.mask = 15
    Py_INCREF(cache)
    t.owner = <PyObject*>cache
    t.k = cache.core
    return 0


cdef void _lru_txn_drop(LruTxn* t) noexcept nogil:
    cdef Py_ssize_t i
    cdef LruVNode* v
    cdef LruVNode* nx
    if t.buckets != NULL:
        for i in range(t.mask + 1):
            v = t.buckets[i]
            while v != NULL:
                nx = v.chain
                free(v)
                v = nx
            t.buckets[i] = NULL
    t.nnodes = 0
    free(t.steps)
    t.steps = NULL
    t.nsteps = t.cap = 0
    t.t_oldest = t.t_newest = NULL
    t.cursor = NULL
    t.synced = 0


cdef void lru_txn_abort(LruTxn* t) noexcept nogil:
    "Drops the journal; the shared cache is left as it is."
    _lru_txn_drop(t)


cdef void lru_txn_end(LruTxn* t):
    "With the GIL: frees the transaction and drops its reference to the cache."
    _lru_txn_drop(t)
    free(t.buckets)
    t.buckets = NULL
    Py_XDECREF(t.owner)
    t.owner = NULL
    t.k = NULL


cdef LruVNode* _lru_vfind(LruTxn* t, const uchar* key, Py_ssize_t n, uint64_t h) noexcept nogil:
    cdef LruVNode* v = t.buckets[h & <uint64_t>t.mask]
    while v != NULL:
        if v.hash == h and v.klen == n and memcmp(v.key, key, <size_t>n) == 0:
            return v
        v = v.chain
    return NULL


cdef LruVNode* _lru_vadd(LruTxn* t, const uchar* key, Py_ssize_t n, uint64_t h) noexcept nogil:
    cdef LruVNode* v = NULL if alloc_fails() else <LruVNode*>malloc(sizeof(LruVNode) + <size_t>n + 1)
    cdef Py_ssize_t i, m
    cdef LruVNode** nb
    cdef LruVNode* w
    cdef LruVNode* nx
    if v == NULL:
        return NULL
    memset(v, 0, sizeof(LruVNode))
    v.key = <uchar*>v + sizeof(LruVNode)
    if n > 0:
        memcpy(v.key, key, <size_t>n)
    v.key[n] = 0
    v.klen = n
    v.hash = h
    v.chain = t.buckets[h & <uint64_t>t.mask]
    t.buckets[h & <uint64_t>t.mask] = v
    t.nnodes += 1
    if t.nnodes > t.mask + 1:
        m = (t.mask + 1) * 2
        nb = NULL if alloc_fails() else <LruVNode**>calloc(<size_t>m, sizeof(LruVNode*))
        if nb != NULL:
            for i in range(t.mask + 1):
                w = t.buckets[i]
                while w != NULL:
                    nx = w.chain
                    w.chain = nb[w.hash & <uint64_t>(m - 1)]
                    nb[w.hash & <uint64_t>(m - 1)] = w
                    w = nx
            free(t.buckets)
            t.buckets = nb
            t.mask = m - 1
    return v


cdef inline void _lru_vunlist(LruTxn* t, LruVNode* v) noexcept nogil:
    if v.older != NULL:
        v.older.newer = v.newer
    else:
        t.t_oldest = v.newer
    if v.newer != NULL:
        v.newer.older = v.older
    else:
        t.t_newest = v.older
    v.older = v.newer = NULL


cdef inline void _lru_vappend(LruTxn* t, LruVNode* v) noexcept nogil:
    v.older = t.t_newest
    v.newer = NULL
    if t.t_newest != NULL:
        t.t_newest.newer = v
    else:
        t.t_oldest = v
    t.t_newest = v


cdef inline bint _lru_counted(LruTxn* t, LruEntry* e) noexcept nogil:
    cdef LruVNode* v = _lru_vfind(t, e.key, e.klen, e.hash)
    return v != NULL and v.state != 0


cdef void _lru_view_reset(LruTxn* t) noexcept nogil:
    cdef Py_ssize_t i
    cdef LruVNode* v
    for i in range(t.mask + 1):
        v = t.buckets[i]
        while v != NULL:
            v.state = 0
            v.older = v.newer = NULL
            v = v.chain
    t.t_oldest = t.t_newest = NULL
    t.cursor = t.k.oldest
    t.vlen = t.k.count
    t.version = t.k.version
    t.synced = 1


cdef int _lru_view_step(LruTxn* t, const uchar* key, Py_ssize_t n, uint64_t h, long* previous,
                        int* present, LruVNode** node) noexcept nogil:
    """One increment in the view (the lock held): the previous count (-1: absent), whether the
    key was present; NS_NEED_PYTHON (t.cause) or NS_ERROR (the view unchanged)."""
    cdef LruCore* k = t.k
    cdef LruVNode* v = _lru_vfind(t, key, n, h)
    cdef LruVNode* victim
    cdef LruEntry* e
    cdef bint pres
    cdef long val = -1
    if v != NULL and v.state != 0:
        pres = v.state == 1
        val = v.value
    else:
        e = lru_find(k, key, n, h)
        # the shared entries before the cursor have left the view (counted ones are in it as nodes)
        pres = e != NULL and t.cursor != NULL and e.seq >= t.cursor.seq
        if pres:
            if e.obj != NULL:
                t.cause = LRU_CAUSE_OBJECT
                return NS_NEED_PYTHON
            val = e.value
    if pres and val == LONG_MAX:
        t.cause = LRU_CAUSE_OVERFLOW
        return NS_NEED_PYTHON
    if not pres:
        val = -1
    if v == NULL:
        v = _lru_vadd(t, key, n, h)
        if v == NULL:
            return NS_ERROR
    if v.state == 1:
        _lru_vunlist(t, v)
    v.state = 1
    v.value = (val if val > 0 else 0) + 1
    _lru_vappend(t, v)
    if not pres:
        t.vlen += 1
    if t.vlen > k.limit:
        # the oldest in the view: the first shared entry not counted, else the oldest counted key
        while t.cursor != NULL and _lru_counted(t, t.cursor):
            t.cursor = t.cursor.newer
        if t.cursor != NULL:
            if t.cursor.obj != NULL:
                t.cause = LRU_CAUSE_OBJECT
                return NS_NEED_PYTHON
            t.cursor = t.cursor.newer
        else:
            victim = t.t_oldest
            _lru_vunlist(t, victim)
            victim.state = 2
        t.vlen -= 1
    previous[0] = val
    present[0] = pres
    node[0] = v
    return NS_OK


cdef int _lru_view_sync(LruTxn* t) noexcept nogil:
    """The lock held: if the cache changed since the view was built, rebuild it and replay the
    journal, NS_NEED_PYTHON ("conflict") when an answer given would now be different."""
    cdef Py_ssize_t i
    cdef long p
    cdef int pres, r
    cdef LruVNode* v
    cdef LruVNode* node
    if t.synced and t.version == t.k.version:
        return NS_OK
    _lru_view_reset(t)
    for i in range(t.nsteps):
        v = t.steps[i].node
        r = _lru_view_step(t, v.key, v.klen, v.hash, &p, &pres, &node)
        if r != NS_OK:
            t.synced = 0
            return r
        if p != t.steps[i].previous:
            t.synced = 0
            t.cause = LRU_CAUSE_CONFLICT
            return NS_NEED_PYTHON
        t.steps[i].present = pres
    return NS_OK


cdef int lru_txn_increment(LruTxn* t, const uchar* key, Py_ssize_t n, long* previous) noexcept nogil:
    """The page's next duplicate_test count of ``key`` (UTF-8, ``n`` bytes): ``previous`` as
    LRUCache.increment would answer after the page's earlier increments, the shared cache
    unchanged. NS_OK, NS_NEED_PYTHON (t.cause) or NS_ERROR; after either, abort."""
    cdef uint64_t h = lru_hash(key, n)
    cdef LruStep* grown
    cdef LruVNode* node = NULL
    cdef int r, pres = 0
    cdef Py_ssize_t cap
    if t.nsteps == t.cap:
        cap = t.cap * 2 + 16
        grown = NULL if alloc_fails() else <LruStep*>realloc(t.steps, <size_t>cap * sizeof(LruStep))
        if grown == NULL:
            return NS_ERROR
        t.steps = grown
        t.cap = cap
    lru_lock(t.k)
    r = _lru_view_sync(t)
    if r == NS_OK:
        r = _lru_view_step(t, key, n, h, previous, &pres, &node)
        if r != NS_OK:
            t.synced = 0   # the view may be half-stepped: rebuilt on the next call
    lru_unlock(t.k)
    if r == NS_OK:
        t.steps[t.nsteps].node = node
        t.steps[t.nsteps].previous = previous[0]
        t.steps[t.nsteps].present = pres
        t.nsteps += 1
    return r


cdef int lru_txn_commit(LruTxn* t) noexcept nogil:
    """Applies the journal's increments to the cache in order, under the lock, when every answer
    given still holds (see the header): NS_OK; NS_NEED_PYTHON (t.cause, nothing applied);
    NS_ERROR (no memory, nothing applied). The journal is dropped in every case."""
    cdef LruCore* k = t.k
    cdef LruEntry** fresh = NULL
    cdef LruEntry* e
    cdef LruVNode* v
    cdef Py_ssize_t i, j = 0, nfresh = 0
    cdef int r
    if t.nsteps == 0:
        _lru_txn_drop(t)
        return NS_OK
    lru_lock(k)
    r = _lru_view_sync(t)
    if r == NS_OK:
        for i in range(t.nsteps):
            if not t.steps[i].present:
                nfresh += 1
        if nfresh > 0:
            fresh = NULL if alloc_fails() else <LruEntry**>calloc(<size_t>nfresh, sizeof(LruEntry*))
            if fresh == NULL:
                r = NS_ERROR
            else:
                for i in range(t.nsteps):
                    if not t.steps[i].present:
                        v = t.steps[i].node
                        fresh[j] = lru_entry_new(v.key, v.klen, v.hash)
                        if fresh[j] == NULL:
                            r = NS_ERROR
                            break
                        j += 1
    if r == NS_OK:
        j = 0
        for i in range(t.nsteps):
            v = t.steps[i].node
            e = lru_find(k, v.key, v.klen, v.hash)
            if e != NULL:
                e.value = (e.value if e.value > 0 else 0) + 1
                lru_unlist(k, e)
                lru_append(k, e)
            elif j < nfresh:
                e = fresh[j]
                fresh[j] = NULL
                j += 1
                e.value = 1
                lru_link(k, e)
            if k.count > k.limit:
                # the view checked that no Python value is evicted: nothing to drop
                lru_pop_oldest(k)
        k.version += 1
    lru_unlock(k)
    if fresh != NULL:
        for i in range(nfresh):
            free(fresh[i])
        free(fresh)
    _lru_txn_drop(t)
    return r


# -- duplicate_test in the GIL-free handlers ---------------------------------------------------

cdef int _lru_element_key(DocData* d, int32_t i, uchar** key, Py_ssize_t* n) noexcept nogil:
    """duplicate_test's key, trim(" ".join(i.itertext())), as a new UTF-8 string in key/n (the
    caller frees it): nogil_text.pxi's ng_trim_itertext, measured then written. NS_OK,
    NS_NEED_PYTHON (the two passes disagreed) or NS_ERROR."""
    n[0] = ng_trim_itertext(d, i, True, False, NULL)
    key[0] = NULL if alloc_fails() else <uchar*>malloc(<size_t>n[0] + 1)
    if key[0] == NULL:
        return NS_ERROR
    if ng_trim_itertext(d, i, True, False, key[0]) != n[0]:
        free(key[0])
        key[0] = NULL
        return NS_NEED_PYTHON
    return NS_OK


def dedup_key(CElement el not None):
    """``trim(" ".join(el.itertext()))``, duplicate_test's key (both releases), or None where
    the C cannot tell (the caller then builds it in Python)."""
    cdef uchar* key = NULL
    cdef Py_ssize_t n = 0
    cdef int r
    el.doc._check(el.idx)
    with nogil:
        r = _lru_element_key(&el.doc.d, el.idx, &key, &n)
    if r == NS_ERROR:
        raise MemoryError()
    if r != NS_OK:
        return None
    try:
        return utf8_str(key, n)
    finally:
        free(key)


cdef int ng_duplicate_test(NgCtx* c, int32_t i, bint* duplicate) noexcept nogil:
    """deduplication.duplicate_test(i) in the page's transaction (c.lru): the key
    trim(" ".join(i.itertext())) counted by lru_txn_increment (every call counts); ``duplicate``:
    longer than min_duplcheck_size code points and seen more than max_repetitions times before.
    NS_OK, NS_NEED_PYTHON (the transaction's cause) or NS_ERROR."""
    cdef LruTxn* t = <LruTxn*>c.lru
    cdef uchar* key = NULL
    cdef Py_ssize_t n = 0, cps
    cdef long previous = -1
    cdef int r
    duplicate[0] = False
    if t == NULL:
        return NS_OK
    r = _lru_element_key(c.d, i, &key, &n)
    if r != NS_OK:
        return r
    cps = ngs_code_points(key, n)
    r = lru_txn_increment(t, key, n, &previous)
    free(key)
    if r != NS_OK:
        return r
    # 1.11.0's duplicate_test (get, then put of get + 1, or 1 for -1) counts as increment()
    # does and answers the same, but for a count below -1 a user put in the cache
    if c.o.release == NG_REL_111 and previous < -1:
        t.cause = LRU_CAUSE_RELEASE
        return NS_NEED_PYTHON
    duplicate[0] = cps > c.min_duplcheck_size and previous > c.max_repetitions
    return NS_OK


# -- test hooks (tests/test_core_nogil_dedup.py) ------------------------------------------------

def nogil_lru_txn(CLRUCache cache not None, list keys, bint commit=True, list why=None):
    """The increments of ``keys`` (str) in one transaction on ``cache`` run inside ``with nogil``,
    then lru_txn_commit (``commit``) or lru_txn_abort: the previous counts, or None for
    NEED_PYTHON (its cause, a name of LRU_CAUSES, appended to ``why``); MemoryError."""
    cdef LruTxn t
    cdef Py_ssize_t i, n = len(keys)
    cdef const uchar** ptrs = NULL
    cdef Py_ssize_t* lens = NULL
    cdef long* prevs = NULL
    cdef int r = NS_OK
    encoded = [_lru_key(key) for key in keys]
    ptrs = <const uchar**>malloc(<size_t>(n + 1) * sizeof(uchar*))
    lens = <Py_ssize_t*>malloc(<size_t>(n + 1) * sizeof(Py_ssize_t))
    prevs = <long*>malloc(<size_t>(n + 1) * sizeof(long))
    try:
        if ptrs == NULL or lens == NULL or prevs == NULL:
            raise MemoryError("out of memory")
        for i in range(n):
            ptrs[i] = <const uchar*><char*>encoded[i]
            lens[i] = len(encoded[i])
        lru_txn_begin(&t, cache)
        with nogil:
            for i in range(n):
                r = lru_txn_increment(&t, ptrs[i], lens[i], &prevs[i])
                if r != NS_OK:
                    break
            if r == NS_OK and commit:
                r = lru_txn_commit(&t)
            else:
                lru_txn_abort(&t)
        cause = LRU_CAUSES[t.cause]
        lru_txn_end(&t)
        if r == NS_ERROR:
            raise MemoryError("out of memory")
        if r != NS_OK:
            if why is not None:
                why.append(cause)
            return None
        return [prevs[i] for i in range(n)]
    finally:
        free(ptrs)
        free(lens)
        free(prevs)


cdef class LruTxnHook:
    """Tests: one transaction on a CLRUCache, step by step (each step inside ``with nogil``), for
    interleaving other threads' changes. ``increment(key)``: the previous count or None
    (NEED_PYTHON: ``cause``); ``commit()``: True or None; ``abort()``."""

    cdef LruTxn t
    cdef bint open
    cdef public str cause

    def __cinit__(self, CLRUCache cache not None):
        lru_txn_begin(&self.t, cache)
        self.open = True
        self.cause = None

    def __dealloc__(self):
        if self.open:
            lru_txn_end(&self.t)

    def increment(self, key):
        cdef bytes b = _lru_key(key)
        cdef const uchar* s = <const uchar*><char*>b
        cdef Py_ssize_t n = len(b)
        cdef long prev = 0
        cdef int r
        if not self.open:
            raise ValueError("transaction ended")
        with nogil:
            r = lru_txn_increment(&self.t, s, n, &prev)
        if r == NS_ERROR:
            raise MemoryError("out of memory")
        if r != NS_OK:
            self.cause = LRU_CAUSES[self.t.cause]
            return None
        return prev

    def commit(self):
        cdef int r
        if not self.open:
            raise ValueError("transaction ended")
        with nogil:
            r = lru_txn_commit(&self.t)
        self.cause = LRU_CAUSES[self.t.cause] if r == NS_NEED_PYTHON else None
        lru_txn_end(&self.t)
        self.open = False
        if r == NS_ERROR:
            raise MemoryError("out of memory")
        return True if r == NS_OK else None

    def abort(self):
        if self.open:
            with nogil:
                lru_txn_abort(&self.t)
            lru_txn_end(&self.t)
            self.open = False
