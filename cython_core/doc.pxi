# The C document: nodes, attributes and text in malloc'd growable arrays.
#
# Every node is a struct in one array; links are int32 indices (-1: none).
# Text, tails, attribute values and the names of unknown tags/attributes are
# (offset, length) slices into UTF-8 byte arenas owned by the document. Node
# index order is creation order, which is document order until fromstring's
# body/head merging moves nodes (then ``reordered`` is set).
#
# Every builder primitive is ``noexcept nogil`` and checks its allocations: a
# failed malloc/realloc sets ``d.error`` and the primitive returns a failure
# value; the Python boundary turns the flag into MemoryError.

from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memcmp, memchr, memmove, memset
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t, uint8_t
from cpython.object cimport PyObject

ctypedef unsigned char uchar

cdef enum:
    # arenas and arrays stay below 2**31 - 1 so that int32 offsets hold
    MAX_ARENA = 0x7FFFFFF0
    ERR_NONE = 0
    ERR_MEMORY = 1
    ERR_TOO_LARGE = 2
    # attribute value kinds
    AV_VALUE = 0      # a value was written (slice into vals)
    AV_NO_VALUE = 1   # written without a value: reads as '' (trafila.dom.NO_VALUE)
    AV_OWN_NAME = 2   # a valueless boolean attribute: its value is its own name


cdef struct Buf:
    uchar* data
    Py_ssize_t len
    Py_ssize_t cap
    # NULL: ``data`` is this buffer's own; else the count of buffers sharing it (buf_share),
    # which only read it: the first write to one of them copies it (buf_unshare)
    Py_ssize_t* refs


cdef struct Node:
    int32_t tag          # name id: < N_KNOWN a known name, else an interned one
    int32_t parent
    int32_t first
    int32_t last
    int32_t next
    int32_t prev
    int32_t text_off     # -1: None
    int32_t text_len
    int32_t tail_off     # -1: None
    int32_t tail_len
    int32_t attr_start
    int32_t attr_count


cdef struct Attr:
    int32_t name         # name id
    int32_t kind         # AV_*
    int32_t val_off
    int32_t val_len


cdef struct DocData:
    Node* nodes
    int32_t n_nodes
    int32_t cap_nodes
    Attr* attrs
    int32_t n_attrs
    int32_t cap_attrs
    int32_t* roots       # top-level nodes in order
    int32_t n_roots
    int32_t cap_roots
    Buf text             # text and tails
    Buf vals             # attribute values, doctype strings
    Buf names            # bytes of interned (unknown) names
    int32_t* name_off    # per interned name
    int32_t* name_len
    int32_t n_names
    int32_t cap_names
    int32_t* slots       # open addressing table of interned names (-1 empty)
    int32_t slot_cap
    # NULL: name_off, name_len and slots are this document's own; else the count of the
    # documents sharing them (share_names), copied by the first to intern a new name
    Py_ssize_t* names_refs
    int has_doctype
    int32_t dt_name_off  # -1: None
    int32_t dt_name_len
    int32_t dt_pub_off
    int32_t dt_pub_len
    int32_t dt_sys_off
    int32_t dt_sys_len
    int reordered
    int error


# -- allocation failure injection (tests only) ---------------------------------

# -1: off; else the number of allocations that still succeed (see _fail_allocations_after)
cdef Py_ssize_t FAIL_AFTER = -1


cdef inline bint alloc_fails() noexcept nogil:
    global FAIL_AFTER
    if FAIL_AFTER < 0:
        return False
    if FAIL_AFTER == 0:
        return True
    FAIL_AFTER -= 1
    return False


def _fail_allocations_after(Py_ssize_t n):
    """Tests only: make every allocation after the next ``n`` fail (-1: off). Not thread-safe."""
    global FAIL_AFTER
    FAIL_AFTER = n


# -- byte buffers -------------------------------------------------------------

cdef extern from *:
    """
    /* the shared arenas' counts: documents of one arena may be freed on different threads */
    static inline Py_ssize_t trafila_refs_add(Py_ssize_t* p, Py_ssize_t v) {
        return __atomic_add_fetch(p, v, __ATOMIC_ACQ_REL);
    }
    static inline Py_ssize_t trafila_refs_load(Py_ssize_t* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    """
    Py_ssize_t trafila_refs_add(Py_ssize_t* p, Py_ssize_t v) nogil
    Py_ssize_t trafila_refs_load(Py_ssize_t* p) nogil


cdef extern from *:
    """
    /* A thread's freed blocks of 32 MiB or more, kept for its next big allocation while an
       extraction runs on it (trafila_big_enter/exit around the call). glibc maps each such
       block afresh (above its largest mmap threshold) and the kernel zeroes every page of it
       again: on a 100 MB page that fault-in cost more than the copies themselves, and it made
       10 times the input cost 12-15 times the time. Only glibc's malloc_usable_size tells a
       block's size here; elsewhere nothing is kept. */
    #include <stdlib.h>
    #include <string.h>
    #if defined(__GLIBC__)
    #include <malloc.h>
    #define TRAFILA_BIG_KEEP 4
    #define TRAFILA_BIG_MIN ((size_t)32 << 20)
    static __thread void* trafila_big_slots[TRAFILA_BIG_KEEP];
    static __thread int trafila_big_n = 0;
    static __thread int trafila_big_depth = 0;
    static void trafila_big_free(void* p) {
        if (p == NULL) return;
        if (trafila_big_depth > 0 && trafila_big_n < TRAFILA_BIG_KEEP && malloc_usable_size(p) >= TRAFILA_BIG_MIN) {
            trafila_big_slots[trafila_big_n++] = p;
            return;
        }
        free(p);
    }
    /* realloc(old, size), keeping the first `keep` bytes of old, from a kept block when one
       is big enough (the smallest such) */
    static void* trafila_big_realloc(void* old, size_t keep, size_t size) {
        int k, best = -1;
        size_t best_size = 0, u;
        void* p;
        if (size >= TRAFILA_BIG_MIN && trafila_big_n > 0) {
            for (k = 0; k < trafila_big_n; k++) {
                u = malloc_usable_size(trafila_big_slots[k]);
                if (u >= size && (best < 0 || u < best_size)) { best = k; best_size = u; }
            }
            if (best >= 0) {
                p = trafila_big_slots[best];
                trafila_big_slots[best] = trafila_big_slots[--trafila_big_n];
                if (keep) memcpy(p, old, keep);
                trafila_big_free(old);
                return p;
            }
        }
        return realloc(old, size);
    }
    static void trafila_big_enter(void) { trafila_big_depth++; }
    static void trafila_big_exit(void) {
        if (trafila_big_depth > 0 && --trafila_big_depth == 0) {
            while (trafila_big_n > 0) free(trafila_big_slots[--trafila_big_n]);
        }
    }
    static int trafila_big_kept(void) { return trafila_big_n; }
    #else
    static void trafila_big_free(void* p) { free(p); }
    static void* trafila_big_realloc(void* old, size_t keep, size_t size) { (void)keep; return realloc(old, size); }
    static void trafila_big_enter(void) {}
    static void trafila_big_exit(void) {}
    static int trafila_big_kept(void) { return 0; }
    #endif
    """
    void trafila_big_free(void* p) nogil
    void* trafila_big_realloc(void* old, size_t keep, size_t size) nogil
    void trafila_big_enter() nogil
    void trafila_big_exit() nogil
    int trafila_big_kept() nogil


def _big_blocks_enter() -> None:
    """Around one extraction on this thread: freed arenas of 32 MiB or more are kept for its
    next big allocation (nested calls count)."""
    trafila_big_enter()


def _big_blocks_exit() -> None:
    """The end of ``_big_blocks_enter``'s extraction: at the outermost, the kept blocks are freed."""
    trafila_big_exit()


def _big_blocks_kept() -> int:
    """Tests only: how many freed big blocks this thread keeps now."""
    return trafila_big_kept()


cdef inline void _drop_buf_share(Buf* b) noexcept nogil:
    "Drop ``b``'s count on its shared arena, freeing it with the last (``data`` left as it is)."
    if trafila_refs_add(b.refs, -1) == 0:
        free(b.refs)
        trafila_big_free(b.data)
    b.refs = NULL


cdef inline void _buf_release_shared(Buf* b) noexcept nogil:
    """Drop ``b``'s share of its arena (freed with the last share); ``b`` is left empty."""
    _drop_buf_share(b)
    b.data = NULL
    b.len = 0
    b.cap = 0


cdef bint buf_share(Buf* src, Buf* dst) noexcept nogil:
    """Make the empty ``dst`` read ``src``'s bytes without copying them (a deep copy of a page
    keeps every slice of the original, and most copies are never written to); False when the
    count cannot be allocated (nothing changes: the caller copies instead)."""
    cdef Py_ssize_t* refs
    if src.refs == NULL:
        refs = NULL if alloc_fails() else <Py_ssize_t*>malloc(sizeof(Py_ssize_t))
        if refs == NULL:
            return False
        refs[0] = 1
        src.refs = refs
    trafila_refs_add(src.refs, 1)
    if dst.refs != NULL:
        _buf_release_shared(dst)
    elif dst.data != NULL:
        free(dst.data)
    dst.data = src.data
    dst.len = src.len
    dst.cap = src.cap
    dst.refs = src.refs
    return True


cdef bint buf_unshare(Buf* b, Py_ssize_t need, int* err) noexcept nogil:
    """Give ``b`` an arena of its own of at least ``need`` bytes holding its bytes (the
    shared one is kept by the others); False (and *err set) when it cannot be had."""
    cdef Py_ssize_t cap
    cdef uchar* p
    if trafila_refs_load(b.refs) == 1:
        # the last share: the arena is this buffer's own again
        free(b.refs)
        b.refs = NULL
        return True
    cap = need if need > 256 else 256
    p = NULL if alloc_fails() else <uchar*>trafila_big_realloc(NULL, 0, <size_t>cap)
    if p == NULL:
        err[0] = ERR_MEMORY
        return False
    if b.len:
        memcpy(p, b.data, <size_t>b.len)
    _drop_buf_share(b)  # the last share when the others let go meanwhile
    b.data = p
    b.cap = cap
    return True


cdef inline bint buf_reserve(Buf* b, Py_ssize_t extra, int* err) noexcept nogil:
    """Room for ``extra`` more bytes; False (and *err set) when it cannot be had."""
    cdef Py_ssize_t need, cap
    cdef uchar* p
    if extra < 0 or extra > MAX_ARENA:
        err[0] = ERR_TOO_LARGE
        return False
    need = b.len + extra
    if need > MAX_ARENA:
        err[0] = ERR_TOO_LARGE
        return False
    # every write to an arena reserves first: a shared one is copied here
    if b.refs != NULL and not buf_unshare(b, need, err):
        return False
    if need <= b.cap:
        return True
    cap = b.cap * 2
    if cap < need:
        cap = need
    if cap < 256:
        cap = 256
    if cap > MAX_ARENA:
        cap = MAX_ARENA
    p = NULL if alloc_fails() else <uchar*>trafila_big_realloc(b.data, <size_t>b.len, <size_t>cap)
    if p == NULL:
        err[0] = ERR_MEMORY
        return False
    b.data = p
    b.cap = cap
    return True


cdef inline bint buf_append(Buf* b, const uchar* s, Py_ssize_t n, int* err) noexcept nogil:
    if n <= 0:
        return True
    if not buf_reserve(b, n, err):
        return False
    memcpy(b.data + b.len, s, <size_t>n)
    b.len += n
    return True


cdef inline void buf_free(Buf* b) noexcept nogil:
    if b.refs != NULL:
        _buf_release_shared(b)
        return
    if b.data != NULL:
        trafila_big_free(b.data)
    b.data = NULL
    b.len = 0
    b.cap = 0


cdef inline bint grow_array(void** arr, int32_t* cap, int32_t need, size_t item, int* err) noexcept nogil:
    """Make ``*arr`` hold at least ``need`` items of ``item`` bytes."""
    cdef int64_t c
    cdef void* p
    if need <= cap[0]:
        return True
    c = <int64_t>cap[0] * 2
    if c < need:
        c = need
    if c < 64:
        c = 64
    if c * <int64_t>item > MAX_ARENA:
        c = MAX_ARENA // <int64_t>item
        if c < need:
            err[0] = ERR_TOO_LARGE
            return False
    p = NULL if alloc_fails() else trafila_big_realloc(arr[0], <size_t>(<int64_t>cap[0] * <int64_t>item),
                                                       <size_t>(c * <int64_t>item))
    if p == NULL:
        err[0] = ERR_MEMORY
        return False
    arr[0] = p
    cap[0] = <int32_t>c
    return True


# -- names ----------------------------------------------------------------------

cdef int32_t KNOWN_SLOT_CAP = 512
cdef int32_t KNOWN_SLOTS[512]


cdef extern from *:
    """
    /* The names table's hash: eight bytes a step (the last step zero-padded), each step a
       multiply and a fold of the high half into the low bits the tables index by. */
    #include <stdint.h>
    #include <string.h>
    static inline uint32_t trafila_name_hash(const uint8_t* s, Py_ssize_t n) {
        uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n, w;
        Py_ssize_t i = 0;
        for (; i + 8 <= n; i += 8) {
            memcpy(&w, s + i, 8);
            h = (h ^ w) * 0xFF51AFD7ED558CCDull;
            h ^= h >> 32;
        }
        if (i < n) {
            int k;
            w = 0;
            for (k = 0; i + k < n; k++) w |= (uint64_t)s[i + k] << (8 * k);
            h = (h ^ w) * 0xFF51AFD7ED558CCDull;
            h ^= h >> 32;
        }
        return (uint32_t)h;
    }
    /* the same hash of a name of n < 16 bytes, 16 bytes being readable at s (on a
       little-endian machine, as x86-64 is; elsewhere the byte loop above) */
    static inline uint32_t trafila_name_hash16(const uint8_t* s, Py_ssize_t n) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n, w;
        memcpy(&w, s, 8);
        if (n < 8) w &= (1ull << (8 * n)) - 1ull;
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
        if (n > 8) {
            memcpy(&w, s + 8, 8);
            w &= (1ull << (8 * (n - 8))) - 1ull;
            h = (h ^ w) * 0xFF51AFD7ED558CCDull;
            h ^= h >> 32;
        }
        return (uint32_t)h;
    #else
        return trafila_name_hash(s, n);
    #endif
    }
    """
    uint32_t trafila_name_hash(const uchar* s, Py_ssize_t n) nogil
    uint32_t trafila_name_hash16(const uchar* s, Py_ssize_t n) nogil


cdef inline uint32_t name_hash(const uchar* s, Py_ssize_t n) noexcept nogil:
    return trafila_name_hash(s, n)


cdef void init_known_names() noexcept nogil:
    cdef int32_t i, slot, off, ln
    cdef uint32_t mask = <uint32_t>(KNOWN_SLOT_CAP - 1)
    for i in range(KNOWN_SLOT_CAP):
        KNOWN_SLOTS[i] = -1
    for i in range(N_KNOWN):
        off = CORE_KNOWN_OFF[i]
        ln = CORE_KNOWN_OFF[i + 1] - off
        slot = <int32_t>(name_hash(<const uchar*>CORE_KNOWN_BLOB + off, ln) & mask)
        while KNOWN_SLOTS[slot] >= 0:
            slot = (slot + 1) & mask
        KNOWN_SLOTS[slot] = i


init_known_names()


cdef inline int32_t known_id(const uchar* s, Py_ssize_t n, uint32_t h) noexcept nogil:
    cdef uint32_t mask = <uint32_t>(KNOWN_SLOT_CAP - 1)
    cdef int32_t slot = <int32_t>(h & mask)
    cdef int32_t i, off
    while True:
        i = KNOWN_SLOTS[slot]
        if i < 0:
            return -1
        off = CORE_KNOWN_OFF[i]
        if CORE_KNOWN_OFF[i + 1] - off == n and same_bytes(<const uchar*>CORE_KNOWN_BLOB + off, s, n):
            return i
        slot = (slot + 1) & mask


cdef inline bint name_equals(DocData* d, int32_t idx, const uchar* s, Py_ssize_t n) noexcept nogil:
    return d.name_len[idx] == n and same_bytes(d.names.data + d.name_off[idx], s, n)


cdef bint rehash_names(DocData* d) noexcept nogil:
    return rehash_names_to(d, d.slot_cap * 2 if d.slot_cap else 64)


cdef bint rehash_names_to(DocData* d, int32_t cap) noexcept nogil:
    "The slot table rebuilt with ``cap`` slots (a power of two above twice the names)."
    cdef int32_t* slots = NULL if alloc_fails() else <int32_t*>malloc(<size_t>cap * sizeof(int32_t))
    cdef int32_t i, slot
    cdef uint32_t mask = <uint32_t>(cap - 1)
    if slots == NULL:
        d.error = ERR_MEMORY
        return False
    for i in range(cap):
        slots[i] = -1
    for i in range(d.n_names):
        slot = <int32_t>(name_hash(d.names.data + d.name_off[i], d.name_len[i]) & mask)
        while slots[slot] >= 0:
            slot = (slot + 1) & mask
        slots[slot] = i
    if d.slots != NULL:
        free(d.slots)
    d.slots = slots
    d.slot_cap = cap
    return True


cdef void reserve_names(DocData* d, int32_t extra, Py_ssize_t extra_bytes) noexcept nogil:
    """Room for ``extra`` more names of ``extra_bytes`` in all, made at once: a copy that
    brings a million new names would otherwise rebuild the slot table and move the arrays at
    every doubling. Best effort: a failure (or a shared table) leaves ``d`` as it was and the
    names are then interned as they come."""
    cdef int saved_error = d.error
    cdef int64_t need = <int64_t>d.n_names + extra
    cdef int64_t cap = d.slot_cap if d.slot_cap else 64
    cdef int32_t cap_off = d.cap_names, cap_len = d.cap_names
    if extra <= 0 or d.names_refs != NULL or need > (1 << 28):
        return
    while need * 2 > cap:
        cap *= 2
    if cap > d.slot_cap and not rehash_names_to(d, <int32_t>cap):
        d.error = saved_error
        return
    if need > d.cap_names:
        if (grow_array(<void**>&d.name_off, &cap_off, <int32_t>need, sizeof(int32_t), &d.error)
                and grow_array(<void**>&d.name_len, &cap_len, <int32_t>need, sizeof(int32_t), &d.error)):
            pass
        d.cap_names = cap_off if cap_off < cap_len else cap_len
    buf_reserve(&d.names, extra_bytes, &d.error)
    d.error = saved_error


cdef void _drop_names_share(DocData* d) noexcept nogil:
    "Drop ``d``'s count on its shared name arrays, freeing them with the last (pointers left as they are)."
    if trafila_refs_add(d.names_refs, -1) == 0:
        free(d.names_refs)
        trafila_big_free(d.name_off)
        trafila_big_free(d.name_len)
        trafila_big_free(d.slots)
    d.names_refs = NULL


cdef void _release_shared_names(DocData* d) noexcept nogil:
    "Drop ``d``'s share of its name arrays (freed with the last share); ``d`` is left with no names."
    _drop_names_share(d)
    d.name_off = NULL
    d.name_len = NULL
    d.slots = NULL
    d.cap_names = 0
    d.slot_cap = 0
    d.n_names = 0


cdef bint share_names(DocData* src, DocData* dst) noexcept nogil:
    """Make ``dst`` (with no names) use ``src``'s name arrays and names arena without copying
    them; False when a count cannot be allocated (nothing changes: the caller copies)."""
    cdef Py_ssize_t* refs
    if src.names_refs == NULL:
        refs = NULL if alloc_fails() else <Py_ssize_t*>malloc(sizeof(Py_ssize_t))
        if refs == NULL:
            return False
        refs[0] = 1
        src.names_refs = refs
    if not buf_share(&src.names, &dst.names):
        return False
    trafila_refs_add(src.names_refs, 1)
    if dst.names_refs != NULL:
        _release_shared_names(dst)
    else:
        if dst.name_off != NULL:
            free(dst.name_off)
        if dst.name_len != NULL:
            free(dst.name_len)
        if dst.slots != NULL:
            free(dst.slots)
    dst.name_off = src.name_off
    dst.name_len = src.name_len
    dst.cap_names = src.cap_names
    dst.n_names = src.n_names
    dst.slots = src.slots
    dst.slot_cap = src.slot_cap
    dst.names_refs = src.names_refs
    return True


cdef bint unshare_names(DocData* d) noexcept nogil:
    """Give ``d`` name arrays of its own (before it interns a name); False (d.error set) when
    they cannot be had, ``d`` unchanged."""
    cdef int32_t* off
    cdef int32_t* ln
    cdef int32_t* slots
    cdef int32_t cap = d.cap_names if d.cap_names > 0 else 1
    if trafila_refs_load(d.names_refs) == 1:
        free(d.names_refs)
        d.names_refs = NULL
        return True
    off = NULL if alloc_fails() else <int32_t*>malloc(<size_t>cap * sizeof(int32_t))
    ln = NULL if alloc_fails() else <int32_t*>malloc(<size_t>cap * sizeof(int32_t))
    slots = NULL if alloc_fails() else <int32_t*>malloc(<size_t>(d.slot_cap if d.slot_cap > 0 else 1) * sizeof(int32_t))
    if off == NULL or ln == NULL or slots == NULL:
        free(off)
        free(ln)
        free(slots)
        d.error = ERR_MEMORY
        return False
    memcpy(off, d.name_off, <size_t>d.n_names * sizeof(int32_t))
    memcpy(ln, d.name_len, <size_t>d.n_names * sizeof(int32_t))
    memcpy(slots, d.slots, <size_t>d.slot_cap * sizeof(int32_t))
    _drop_names_share(d)
    d.name_off = off
    d.name_len = ln
    d.slots = slots
    d.cap_names = cap
    return True


cdef inline bint same_bytes(const uchar* a, const uchar* b, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    if n > 16:
        return memcmp(a, b, <size_t>n) == 0
    for i in range(n):
        if a[i] != b[i]:
            return False
    return True


cdef inline int32_t intern_name(DocData* d, const uchar* s, Py_ssize_t n) noexcept nogil:
    """The id of the name ``s[:n]`` (known names have fixed ids); -1 on memory failure."""
    return intern_name_h(d, s, n, name_hash(s, n))


cdef int32_t intern_name_h(DocData* d, const uchar* s, Py_ssize_t n, uint32_t h) noexcept nogil:
    """intern_name with the name's hash (name_hash) already computed."""
    cdef int32_t k = known_id(s, n, h)
    cdef int32_t slot, idx, cap_off, cap_len
    cdef uint32_t mask
    if k >= 0:
        return k
    if d.slot_cap:
        mask = <uint32_t>(d.slot_cap - 1)
        slot = <int32_t>(h & mask)
        while True:
            idx = d.slots[slot]
            if idx < 0:
                break
            if name_equals(d, idx, s, n):
                return N_KNOWN + idx
            slot = (slot + 1) & mask
    # a new name
    if d.names_refs != NULL and not unshare_names(d):
        return -1
    if (d.n_names + 1) * 2 > d.slot_cap:
        if not rehash_names(d):
            return -1
    if d.n_names + 1 > d.cap_names:
        # both arrays grow from the same capacity to the same capacity
        cap_off = d.cap_names
        cap_len = d.cap_names
        if not grow_array(<void**>&d.name_off, &cap_off, d.n_names + 1, sizeof(int32_t), &d.error):
            return -1
        if not grow_array(<void**>&d.name_len, &cap_len, d.n_names + 1, sizeof(int32_t), &d.error):
            return -1
        d.cap_names = cap_off if cap_off < cap_len else cap_len
    if not buf_append(&d.names, s, n, &d.error):
        return -1
    idx = d.n_names
    d.name_off[idx] = <int32_t>(d.names.len - n)
    d.name_len[idx] = <int32_t>n
    d.n_names += 1
    mask = <uint32_t>(d.slot_cap - 1)
    slot = <int32_t>(h & mask)
    while d.slots[slot] >= 0:
        slot = (slot + 1) & mask
    d.slots[slot] = idx
    return N_KNOWN + idx


cdef inline const uchar* name_bytes(DocData* d, int32_t nid, Py_ssize_t* n) noexcept nogil:
    cdef int32_t off
    if nid < N_KNOWN:
        off = CORE_KNOWN_OFF[nid]
        n[0] = CORE_KNOWN_OFF[nid + 1] - off
        return <const uchar*>CORE_KNOWN_BLOB + off
    nid -= N_KNOWN
    n[0] = d.name_len[nid]
    return d.names.data + d.name_off[nid]


cdef inline int known_flags(int32_t nid) noexcept nogil:
    return CORE_KNOWN_FLAGS[nid] if 0 <= nid < N_KNOWN else 0


# -- nodes ------------------------------------------------------------------------

cdef int32_t new_node(DocData* d, int32_t tag, int32_t parent, int32_t attr_start, int32_t attr_count) noexcept nogil:
    """A new element, the last child of ``parent`` (a new top-level node if -1); -1 on failure."""
    cdef int32_t i = d.n_nodes
    cdef Node* nd
    cdef Node* par
    if not grow_array(<void**>&d.nodes, &d.cap_nodes, i + 1, sizeof(Node), &d.error):
        return -1
    if parent < 0:
        if not grow_array(<void**>&d.roots, &d.cap_roots, d.n_roots + 1, sizeof(int32_t), &d.error):
            return -1
    nd = &d.nodes[i]
    nd.tag = tag
    nd.parent = parent
    nd.first = -1
    nd.last = -1
    nd.next = -1
    nd.text_off = -1
    nd.text_len = 0
    nd.tail_off = -1
    nd.tail_len = 0
    nd.attr_start = attr_start
    nd.attr_count = attr_count
    if parent >= 0:
        par = &d.nodes[parent]
        nd.prev = par.last
        if par.last >= 0:
            d.nodes[par.last].next = i
        else:
            par.first = i
        par.last = i
    else:
        nd.prev = d.roots[d.n_roots - 1] if d.n_roots else -1
        if d.n_roots:
            d.nodes[d.roots[d.n_roots - 1]].next = i
        d.roots[d.n_roots] = i
        d.n_roots += 1
    d.n_nodes = i + 1
    return i


cdef void unlink_node(DocData* d, int32_t i) noexcept nogil:
    """Take node ``i`` (not top-level) out of its parent's children; its tail stays on it."""
    cdef Node* nd = &d.nodes[i]
    cdef int32_t par = nd.parent
    if par < 0:
        return
    if nd.prev >= 0:
        d.nodes[nd.prev].next = nd.next
    else:
        d.nodes[par].first = nd.next
    if nd.next >= 0:
        d.nodes[nd.next].prev = nd.prev
    else:
        d.nodes[par].last = nd.prev
    nd.parent = -1
    nd.prev = -1
    nd.next = -1
    d.reordered = 1


cdef void append_child(DocData* d, int32_t parent, int32_t i) noexcept nogil:
    """Move node ``i`` (with its tail) to the end of ``parent``'s children."""
    cdef Node* par
    unlink_node(d, i)
    par = &d.nodes[parent]
    d.nodes[i].parent = parent
    d.nodes[i].prev = par.last
    d.nodes[i].next = -1
    if par.last >= 0:
        d.nodes[par.last].next = i
    else:
        par.first = i
    par.last = i


cdef void doc_free(DocData* d) noexcept nogil:
    if d.nodes != NULL:
        trafila_big_free(d.nodes)
    if d.attrs != NULL:
        trafila_big_free(d.attrs)
    if d.roots != NULL:
        free(d.roots)
    if d.names_refs != NULL:
        _release_shared_names(d)
    else:
        trafila_big_free(d.name_off)
        trafila_big_free(d.name_len)
        trafila_big_free(d.slots)
    buf_free(&d.text)
    buf_free(&d.vals)
    buf_free(&d.names)
    memset(d, 0, sizeof(DocData))


# -- the Python side ------------------------------------------------------------

cdef inline object utf8_str(const uchar* s, Py_ssize_t n):
    return PyUnicode_DecodeUTF8(<const char*>s, n, NULL)


cdef inline object slice_str(Buf* b, int32_t off, int32_t n):
    if off < 0:
        return None
    return PyUnicode_DecodeUTF8(<const char*>(b.data + off), n, NULL)


@cython.final
cdef class CDocument:
    """A parsed document in C arrays (see doc.pxi). Read it with dump(),
    to_reference() or the accessors; ``root_index`` is the element
    fromstring chose (-1 for a plain parse_document)."""

    cdef DocData d
    cdef public int32_t root_index
    cdef list _name_cache
    # the view (view.pxi): one borrowed pointer per node to its live CElement
    # proxy (NULL: none); a proxy clears its slot when it dies and holds a
    # reference to this document, so no slot outlives its proxy
    cdef PyObject** proxies
    cdef int32_t cap_proxies
    #: libxml2's document type (HTML for parsed documents, XML for Element())
    cdef public bint is_html
    cdef object _docinfo

    def __cinit__(self):
        memset(&self.d, 0, sizeof(DocData))
        self.proxies = NULL
        self.cap_proxies = 0
        self.is_html = True
        self._docinfo = None
        self.d.dt_name_off = -1
        self.d.dt_pub_off = -1
        self.d.dt_sys_off = -1
        self.root_index = -1
        self._name_cache = None

    def __dealloc__(self):
        doc_free(&self.d)
        if self.proxies != NULL:
            free(self.proxies)
            self.proxies = NULL

    # -- the reference Document's API (trafila.dom.Document), over proxies ---
    def getroot(self):
        """The first top-level element (lxml's ``getroot()``), a CElement proxy."""
        return _proxy(self, self.d.roots[0]) if self.d.n_roots else None

    @property
    def children(self):
        """The top-level elements, as CElement proxies."""
        return [_proxy(self, self.d.roots[k]) for k in range(self.d.n_roots)]

    @property
    def docinfo(self):
        if self._docinfo is None:
            dt = self.doctype()
            self._docinfo = DocInfo() if dt is None else DocInfo(*dt)
        return self._docinfo

    def getroottree(self):
        return self

    def iter(self, tag=None, *tags):
        root = self.getroot()
        return iter(()) if root is None else root.iter(tag, *tags)

    def find(self, path):
        root = self.getroot()
        if root is None:
            return None
        return root.find("." + path if path[:1] == "/" else path)

    def findall(self, path):
        root = self.getroot()
        if root is None:
            return []
        return root.findall("." + path if path[:1] == "/" else path)

    def iterfind(self, path):
        root = self.getroot()
        if root is None:
            return iter(())
        return root.iterfind("." + path if path[:1] == "/" else path)

    def element(self, int32_t i):
        """The CElement proxy of node ``i``."""
        self._check(i)
        return _proxy(self, i)

    cdef object name_str(self, int32_t nid):
        cdef Py_ssize_t n
        cdef const uchar* s
        cdef object v
        cdef Py_ssize_t have, want
        # sized by the ids asked for, not by the table: a page of ten million attribute
        # names would otherwise give every document that is asked for one tag an 80 MB list
        if self._name_cache is None:
            self._name_cache = [None] * (N_KNOWN if nid < N_KNOWN else nid + 1)
        have = len(self._name_cache)
        if nid >= have:
            want = have * 2
            if want > N_KNOWN + self.d.n_names:
                want = N_KNOWN + self.d.n_names
            if want <= nid:
                want = nid + 1
            self._name_cache.extend([None] * (want - have))
        v = self._name_cache[nid]
        if v is None:
            s = name_bytes(&self.d, nid, &n)
            v = utf8_str(s, n)
            self._name_cache[nid] = v
        return v

    cdef object attr_value(self, Attr* a, bint reference):
        if a.kind == AV_VALUE:
            return slice_str(&self.d.vals, a.val_off, a.val_len)
        if a.kind == AV_OWN_NAME:
            return self.name_str(a.name)
        return NO_VALUE if reference else ""

    # -- introspection ----------------------------------------------------
    @property
    def node_count(self):
        return self.d.n_nodes

    @property
    def roots(self):
        return [self.d.roots[i] for i in range(self.d.n_roots)]

    def tag(self, int32_t i):
        self._check(i)
        return self.name_str(self.d.nodes[i].tag)

    def text(self, int32_t i):
        self._check(i)
        return slice_str(&self.d.text, self.d.nodes[i].text_off, self.d.nodes[i].text_len)

    def tail(self, int32_t i):
        self._check(i)
        return slice_str(&self.d.text, self.d.nodes[i].tail_off, self.d.nodes[i].tail_len)

    def attrib(self, int32_t i):
        self._check(i)
        cdef Node* nd = &self.d.nodes[i]
        cdef int32_t k
        return [(self.name_str(self.d.attrs[k].name), self.attr_value(&self.d.attrs[k], False))
                for k in range(nd.attr_start, nd.attr_start + nd.attr_count)]

    def child_indices(self, int32_t i):
        self._check(i)
        out = []
        cdef int32_t c = self.d.nodes[i].first
        while c >= 0:
            out.append(c)
            c = self.d.nodes[c].next
        return out

    def parent(self, int32_t i):
        self._check(i)
        return self.d.nodes[i].parent

    cdef _check(self, int32_t i):
        if i < 0 or i >= self.d.n_nodes:
            raise IndexError(i)

    def doctype(self):
        """(name, public_id, system_url) as the reference's DocInfo holds them, or None."""
        if not self.d.has_doctype:
            return None
        name = slice_str(&self.d.vals, self.d.dt_name_off, self.d.dt_name_len)
        return (name if name is not None else "",
                slice_str(&self.d.vals, self.d.dt_pub_off, self.d.dt_pub_len),
                slice_str(&self.d.vals, self.d.dt_sys_off, self.d.dt_sys_len))

    # -- canonical dump (trafila.html._debug's format) ----------------------
    def dump(self):
        """All top-level nodes in trafila.html._debug.dump_document's format."""
        out = []
        dt = self.doctype()
        if dt is not None:
            out.append(["dtd", dt[0] or "", dt[1] or "", dt[2] or ""])
        cdef int32_t i
        for i in range(self.d.n_roots):
            out.append(self.dump_element(self.d.roots[i]))
        return out

    def dump_root(self):
        """dump_element of ``root_index`` (the element fromstring/document_fromstring chose)."""
        if self.root_index < 0:
            raise ValueError("no root chosen: use fromstring() or document_fromstring()")
        return self.dump_element(self.root_index)

    def dump_element(self, int32_t top):
        """One element and its subtree (no tail), as _debug.dump_element gives it."""
        self._check(top)
        cdef int32_t i, c
        cdef Node* nd
        cdef list stack
        cdef list out
        cdef list res = None
        # explicit stack: (node, its list) for nodes whose children are still to write
        stack = []
        i = top
        nd = &self.d.nodes[i]
        res = self._dump_head(i)
        stack.append((i, res))
        while stack:
            i, out = stack.pop()
            c = self.d.nodes[i].first
            pending = []
            while c >= 0:
                nd = &self.d.nodes[c]
                child = self._dump_head(c)
                out.append(child)
                if nd.tail_off >= 0:
                    out.append(["t", slice_str(&self.d.text, nd.tail_off, nd.tail_len)])
                if nd.first >= 0:
                    pending.append((c, child))
                c = nd.next
            stack.extend(pending)
        return res

    cdef list _dump_head(self, int32_t i):
        cdef Node* nd = &self.d.nodes[i]
        cdef int32_t k
        out = ["e", self.name_str(nd.tag),
               [[self.name_str(self.d.attrs[k].name), self.attr_value(&self.d.attrs[k], False)]
                for k in range(nd.attr_start, nd.attr_start + nd.attr_count)]]
        if nd.text_off >= 0:
            out.append(["t", slice_str(&self.d.text, nd.text_off, nd.text_len)])
        return out

    # -- the reference element model ------------------------------------------
    def to_reference(self):
        """The equivalent trafila.dom.Document (built as trafila.html.treebuilder builds it)."""
        return self._to_reference(None)

    cdef object _to_reference(self, list by_index):
        doc = Document()
        cdef int32_t r, i, c
        cdef Node* nd
        for r in range(self.d.n_roots):
            i = self.d.roots[r]
            el = self._new_element(i, None)
            doc.append_root(el)
            if by_index is not None:
                by_index[i] = el
            stack = [(i, el)]
            while stack:
                i, parent = stack.pop()
                c = self.d.nodes[i].first
                while c >= 0:
                    child = self._new_element(c, parent)
                    if by_index is not None:
                        by_index[c] = child
                    if self.d.nodes[c].first >= 0:
                        stack.append((c, child))
                    c = self.d.nodes[c].next
        if self.d.has_doctype:
            doc.docinfo = DocInfo(*self.doctype())
        return doc

    cdef object _new_element(self, int32_t i, object parent):
        cdef Node* nd = &self.d.nodes[i]
        cdef int32_t k
        el = _new_reference_element(Element)
        el.tag = self.name_str(nd.tag)
        el.attrib = {self.name_str(self.d.attrs[k].name): self.attr_value(&self.d.attrs[k], True)
                     for k in range(nd.attr_start, nd.attr_start + nd.attr_count)}
        el.text = slice_str(&self.d.text, nd.text_off, nd.text_len)
        el.tail = slice_str(&self.d.text, nd.tail_off, nd.tail_len)
        el._children = []
        el._doc = None
        if parent is None:
            el._parent = None
            el._pos = 0
        else:
            el._parent = parent
            children = parent._children
            el._pos = len(children)
            children.append(el)
        return el

    def reference_element(self):
        """The trafila.dom Element standing for ``root_index`` (None if unset), in a full reference document."""
        if self.root_index < 0:
            return None
        by_index = [None] * self.d.n_nodes
        self._to_reference(by_index)
        return by_index[self.root_index]
