# Selector accelerators: trafila.xpathlib's combinators on core trees.
#
# A selector is ``.//*[tags][pred]``: the tag filter runs here on name ids,
# and a per-predicate NECESSARY-CONDITION prefilter (a ``Prefilter``, built
# by trafila.xpathlib from the predicate's registered spec) runs over the
# node's raw attribute bytes: it says False only when the Python predicate
# is certainly False. Only the survivors become proxies and meet the Python
# predicate, so the node list is exactly the reference's.
#
# A prefilter is a disjunction of terms, each on one attribute name:
#   PF_PRESENT   the attribute is present (any value);
#   PF_CONTAINS  its value contains one of the literals (UTF-8 bytes; a str
#                contains a literal iff its UTF-8 bytes contain the literal's);
#   PF_FOLD      ... contains one, ASCII letters compared case-insensitively:
#                a superset of translate(@a, 'ABC', 'abc') containment for any
#                value (UTF-8 continuation and lead bytes are >= 0x80, never an
#                ASCII letter);
#   PF_FOLD_IC   re.IGNORECASE: as PF_FOLD when the value is all ASCII; a value
#                with any non-ASCII byte passes (Unicode case folding maps
#                e.g. U+017F to 's' and U+212A to 'k').
# plus a set of tags that always pass (predicates true by tag alone).
# A missing attribute reads as '': no term on it holds (the literals are
# never empty; an empty literal would pass every value).

cdef enum:
    PF_PRESENT = 0
    PF_CONTAINS = 1
    PF_FOLD = 2
    PF_FOLD_IC = 3
    MAX_PF_TERMS = 64


cdef struct PFTerm:
    int32_t attr       # the document's name id of the attribute
    int32_t kind       # PF_*
    int32_t lit_start  # literals [lit_start, lit_end) of the Prefilter
    int32_t lit_end
    int32_t term       # the term's index in the Prefilter (its first-byte buckets)


cdef inline bint _has_non_ascii(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if s[i] >= 0x80:
            return True
    return False


cdef bint _contains_bytes(const uchar* s, Py_ssize_t n, const uchar* lit, Py_ssize_t m, bint fold) noexcept nogil:
    """``lit`` occurs in ``s`` (with ``fold``: ASCII letters of ``s`` lowered;
    ``lit`` is lower-case then)."""
    cdef Py_ssize_t i, j
    cdef uchar c0
    if m <= 0:
        return True
    if m > n:
        return False
    c0 = lit[0]
    for i in range(n - m + 1):
        if (_ascii_lower(s[i]) if fold else s[i]) != c0:
            continue
        j = 1
        while j < m and (_ascii_lower(s[i + j]) if fold else s[i + j]) == lit[j]:
            j += 1
        if j == m:
            return True
    return False


@cython.final
cdef class Prefilter:
    """A predicate's necessary condition (see the file comment): ``terms`` a
    sequence of (attribute name, kind, literals), ``kind`` one of 'present',
    'contains', 'fold', 'fold_ic'; ``pass_tags`` tags that always pass."""
    cdef list attr_names      # per term, the attribute name (str)
    cdef int32_t kinds[MAX_PF_TERMS]
    cdef int32_t lit_start[MAX_PF_TERMS]
    cdef int32_t lit_end[MAX_PF_TERMS]
    cdef int n_terms
    cdef bytes lit_blob
    cdef list lit_offsets     # per literal, (offset, length) into lit_blob
    cdef int32_t* lit_off
    cdef int32_t* lit_len
    # per term, 257 literal indices: the literals of the term whose first byte
    # is c are [buckets[257 * term + c], buckets[257 * term + c + 1]) (each
    # term's literals are sorted by first byte)
    cdef int32_t* buckets
    cdef tuple pass_tags
    cdef readonly object spec

    def __cinit__(self):
        self.lit_off = NULL
        self.lit_len = NULL
        self.buckets = NULL

    def __dealloc__(self):
        if self.lit_off != NULL:
            free(self.lit_off)
        if self.lit_len != NULL:
            free(self.lit_len)
        if self.buckets != NULL:
            free(self.buckets)

    def __init__(self, terms, pass_tags=()):
        cdef int k = 0
        cdef int32_t n_lits = 0, j
        cdef int t, c
        kinds = {"present": PF_PRESENT, "contains": PF_CONTAINS, "fold": PF_FOLD, "fold_ic": PF_FOLD_IC}
        terms = list(terms)
        if len(terms) > MAX_PF_TERMS:
            raise ValueError(f"a prefilter has at most {MAX_PF_TERMS} terms")
        self.spec = (tuple(terms), tuple(pass_tags))
        self.attr_names = []
        blob = bytearray()
        lits = []
        for name, kind, literals in terms:
            if not isinstance(name, str):
                raise TypeError("attribute name must be a str")
            kd = kinds[kind]
            self.attr_names.append(name)
            self.kinds[k] = kd
            self.lit_start[k] = n_lits
            if kd == PF_PRESENT:
                if literals:
                    raise ValueError("a 'present' term has no literals")
            else:
                if not literals:
                    raise ValueError("a value term needs literals")
                encoded = []
                for lit in literals:
                    if not isinstance(lit, str) or not lit:
                        raise ValueError("literals are non-empty str")
                    if kd != PF_CONTAINS:
                        if not lit.isascii():
                            raise ValueError("folded literals are ASCII")
                        lit = lit.lower()
                    encoded.append(lit.encode("utf-8"))
                # by first byte (the term holds when any of them occurs: their order is free)
                encoded.sort(key=lambda e: e[0])
                for b in encoded:
                    lits.append((len(blob), len(b)))
                    blob += b
                    n_lits += 1
            self.lit_end[k] = n_lits
            k += 1
        self.n_terms = k
        self.lit_blob = bytes(blob)
        self.lit_offsets = lits
        self.lit_off = <int32_t*>malloc((n_lits + 1) * sizeof(int32_t))
        self.lit_len = <int32_t*>malloc((n_lits + 1) * sizeof(int32_t))
        if self.lit_off == NULL or self.lit_len == NULL:
            raise MemoryError("out of memory")
        for j in range(n_lits):
            self.lit_off[j] = lits[j][0]
            self.lit_len[j] = lits[j][1]
        self.buckets = <int32_t*>malloc((k * 257 + 1) * sizeof(int32_t))
        if self.buckets == NULL:
            raise MemoryError("out of memory")
        for t in range(k):
            j = self.lit_start[t]
            for c in range(257):
                while j < self.lit_end[t] and blob[lits[j][0]] < c:
                    j += 1
                self.buckets[257 * t + c] = j
        self.pass_tags = tuple(pass_tags)

    cdef int resolve(self, CDocument doc, PFTerm* out, int32_t* tag_ids, int* n_tags) except -2:
        """This prefilter's terms with ``doc``'s name ids (terms on names the
        document never saw cannot hold and are left out); their count. The
        pass tags' ids into ``tag_ids`` (their count in ``n_tags``, -1 when
        too many: the caller then lets every node through)."""
        cdef int k, n = 0
        cdef int32_t nid
        for k in range(self.n_terms):
            nid = _lookup(doc, self.attr_names[k])
            if nid < 0:
                continue
            out[n].attr = nid
            out[n].kind = self.kinds[k]
            out[n].lit_start = self.lit_start[k]
            out[n].lit_end = self.lit_end[k]
            out[n].term = k
            n += 1
        n_tags[0] = _name_ids(doc, self.pass_tags, tag_ids) if self.pass_tags else 0
        return n


cdef bint _pf_value(DocData* d, Attr* a, const uchar** s, Py_ssize_t* n) noexcept nogil:
    """The value bytes of ``a`` as the reference reads them (el.get); False
    when the slice is outside the arena (the caller then lets the node pass)."""
    if a.kind == AV_VALUE:
        if a.val_len <= 0:
            s[0] = NULL
            n[0] = 0
            return True
        if a.val_off < 0 or <Py_ssize_t>a.val_off + a.val_len > d.vals.len:
            return False
        s[0] = d.vals.data + a.val_off
        n[0] = a.val_len
        return True
    if a.kind == AV_OWN_NAME:
        s[0] = name_bytes(d, a.name, n)
        return True
    s[0] = NULL        # AV_NO_VALUE reads as ''
    n[0] = 0
    return True


cdef bint _pf_term(const uchar* s, Py_ssize_t n, int32_t kind, const uchar* blob,
                   const int32_t* lit_off, const int32_t* lit_len, const int32_t* bucket) noexcept nogil:
    """Some literal of the term occurs in ``s``: at each position, only the
    literals starting with that byte (``bucket``: the term's 257 bounds) are compared."""
    cdef int32_t j, m, k
    cdef Py_ssize_t i
    cdef const uchar* lit
    cdef uchar c
    cdef bint fold
    if kind == PF_PRESENT:
        return True
    if kind == PF_FOLD_IC and _has_non_ascii(s, n):
        return True
    fold = kind != PF_CONTAINS
    for i in range(n):
        c = _ascii_lower(s[i]) if fold else s[i]
        for j in range(bucket[c], bucket[c + 1]):
            m = lit_len[j]
            if m > n - i:
                continue
            lit = blob + lit_off[j]
            k = 1
            if fold:
                while k < m and _ascii_lower(s[i + k]) == lit[k]:
                    k += 1
            else:
                while k < m and s[i + k] == lit[k]:
                    k += 1
            if k == m:
                return True
    return False


cdef bint _pf_node(DocData* d, int32_t i, const PFTerm* terms, int n_terms, const int32_t* tag_ids, int n_tags,
                   const uchar* blob, const int32_t* lit_off, const int32_t* lit_len,
                   const int32_t* buckets) noexcept nogil:
    """The prefilter on node ``i``: False only when the predicate is certainly False."""
    cdef Node* nd = &d.nodes[i]
    cdef int32_t k, end
    cdef int t
    cdef Attr* a
    cdef const uchar* s
    cdef Py_ssize_t n
    if n_tags < 0 or (n_tags > 0 and _id_in(nd.tag, tag_ids, n_tags)):
        return True
    end = nd.attr_start + nd.attr_count
    if nd.attr_count <= 0 or nd.attr_start < 0 or end > d.n_attrs:
        return nd.attr_count > 0    # no attributes: no term holds (an inconsistent node passes)
    for k in range(nd.attr_start, end):
        a = &d.attrs[k]
        for t in range(n_terms):
            if terms[t].attr != a.name:
                continue
            if not _pf_value(d, a, &s, &n):
                return True
            if _pf_term(s, n, terms[t].kind, blob, lit_off, lit_len, buckets + 257 * terms[t].term):
                return True
    return False


def select_candidates(CElement top, object names, Prefilter pf):
    """The descendants of ``top`` in document order (a snapshot of proxies)
    whose tag is in ``names`` (all when None) and that pass ``pf`` (all when
    None): the candidates the reference's predicate is then run on."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[MAX_NAME_SET]
    cdef int32_t tag_ids[MAX_NAME_SET]
    cdef PFTerm terms[MAX_PF_TERMS]
    cdef int n = 0, n_terms = 0, n_tags = 0
    cdef bint all_names = names is None
    cdef int32_t root = top.idx, i
    cdef const uchar* blob = NULL
    cdef list out = []
    doc._check(root)
    if not all_names:
        if not isinstance(names, (set, frozenset, tuple, list)):
            names = tuple(names)
        n = _name_ids(doc, names, ids)
        if n == 0:
            return out
        if n < 0:
            return [e for e in select_candidates(top, None, pf) if e.tag in names]
    if pf is not None:
        n_terms = pf.resolve(doc, terms, tag_ids, &n_tags)
        blob = <const uchar*><const char*>pf.lit_blob
    i = d.nodes[root].first
    while i >= 0:
        if (all_names or _id_in(d.nodes[i].tag, ids, n)) and (
                pf is None or _pf_node(d, i, terms, n_terms, tag_ids, n_tags, blob, pf.lit_off, pf.lit_len,
                                              pf.buckets)):
            out.append(_proxy(doc, i))
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            break
        i = d.nodes[i].next
    return out


def prefilter_passes(CElement el, Prefilter pf):
    """``pf`` on one element (tests: it must hold wherever the predicate does)."""
    cdef CDocument doc = el.doc
    cdef int32_t tag_ids[MAX_NAME_SET]
    cdef PFTerm terms[MAX_PF_TERMS]
    cdef int n_terms, n_tags = 0
    doc._check(el.idx)
    n_terms = pf.resolve(doc, terms, tag_ids, &n_tags)
    return _pf_node(&doc.d, el.idx, terms, n_terms, tag_ids, n_tags,
                    <const uchar*><const char*>pf.lit_blob, pf.lit_off, pf.lit_len, pf.buckets)


# -- len("".join(tree.xpath('//p//text()'))) ---------------------------------------------------

cdef inline Py_ssize_t _utf8_chars(const uchar* s, Py_ssize_t n) noexcept nogil:
    """Code points in the UTF-8 bytes ``s[:n]`` (the arenas hold valid UTF-8:
    every slice decodes strictly), i.e. len() of the str."""
    cdef Py_ssize_t i, count = 0
    for i in range(n):
        if (s[i] & 0xC0) != 0x80:
            count += 1
    return count


cdef inline Py_ssize_t _slot_chars(DocData* d, int32_t off, int32_t n) noexcept nogil:
    if off < 0 or n <= 0 or <Py_ssize_t>off + n > d.text.len:
        return 0
    return _utf8_chars(d.text.data + off, n)


cdef Py_ssize_t _subtree_text_chars(DocData* d, int32_t top) noexcept nogil:
    "len() of the text of ``top``'s itertext(): its text, its descendants' texts and tails."
    cdef Py_ssize_t total = _slot_chars(d, d.nodes[top].text_off, d.nodes[top].text_len)
    cdef int32_t i = d.nodes[top].first
    while i >= 0:
        total += _slot_chars(d, d.nodes[i].text_off, d.nodes[i].text_len)
        total += _slot_chars(d, d.nodes[i].tail_off, d.nodes[i].tail_len)
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != top and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == top:
            break
        i = d.nodes[i].next
    return total


cdef Py_ssize_t _tag_text_chars(DocData* d, int32_t root, int32_t tag) noexcept nogil:
    """The text length inside the ``tag`` elements of ``root``'s subtree
    (``root`` included), nested ones counted once."""
    cdef Py_ssize_t total = 0
    cdef int32_t i = root
    while True:
        if d.nodes[i].tag == tag:
            total += _subtree_text_chars(d, i)
        elif d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        # the next node after i's subtree, within root
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            return total
        i = d.nodes[i].next


def tag_text_length(CElement root, str tag):
    """``len("".join(root.xpath('//tag//text()')))`` over ``root``'s subtree
    (trafila.v2_3_1.xpaths.p_text_length): the itertext() length of every
    ``tag`` element, nested ones counted once."""
    cdef CDocument doc = root.doc
    cdef int32_t nid
    cdef Py_ssize_t total
    doc._check(root.idx)
    nid = _lookup(doc, tag)
    if nid < 0:
        return 0
    with nogil:
        total = _tag_text_chars(&doc.d, root.idx, nid)
    return total
