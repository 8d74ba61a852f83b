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
# The terms are merged per attribute name (one scan of a value per name, a
# lowered-byte-pair bitmap skipping the positions that start no literal): the
# verdict is the same OR of the terms.
# A missing attribute reads as '': no term on it holds (the literals are
# never empty; an empty literal would pass every value).

cdef enum:
    PF_PRESENT = 0
    PF_CONTAINS = 1
    PF_FOLD = 2
    PF_FOLD_IC = 3
    MAX_PF_TERMS = 64
    PG_PRESENT = 1     # a group flag: a 'present' term on the name
    PG_FOLD_IC = 2     # a group flag: a 'fold_ic' term on the name


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
    'contains', 'fold', 'fold_ic'; ``pass_tags`` tags that always pass.

    The terms are merged per attribute name into one group, scanned once per
    value: the OR of the group's terms is the OR of (a 'present' term: always;
    a 'fold_ic' term on a value with a non-ASCII byte: always; else) some
    literal occurring, each literal compared as its own term does (exactly for
    'contains', ASCII-folded for 'fold'/'fold_ic'). Literals are bucketed by
    their ASCII-lowered first byte, the value's bytes looked up lowered."""
    cdef list attr_names      # per group, the attribute name (str)
    cdef int32_t kinds[MAX_PF_TERMS]      # per group, PG_* flags
    cdef int32_t lit_start[MAX_PF_TERMS]
    cdef int32_t lit_end[MAX_PF_TERMS]
    cdef int n_terms          # the number of groups
    cdef bytes lit_blob
    cdef list lit_offsets     # per literal, (offset, length) into lit_blob
    cdef int32_t* lit_off
    cdef int32_t* lit_len     # per literal, its length; its mode in lit_fold
    cdef int32_t* lit_fold    # per literal, 1: compared ASCII-folded (the literal is lower-case)
    # per group, 257 literal indices: the literals of the group whose lowered
    # first byte is c are [buckets[257 * g + c], buckets[257 * g + c + 1])
    cdef int32_t* buckets
    # per group, 8192 bytes: bit (a * 256 + b) set when some literal of the group starts with the
    # lowered bytes a, b (a literal of one byte a: every b); positions whose lowered byte pair is
    # not set start no literal (the last position pairs with b = 0)
    cdef bytes bigrams
    cdef tuple pass_tags
    cdef readonly object spec

    def __cinit__(self):
        self.lit_off = NULL
        self.lit_len = NULL
        self.lit_fold = NULL
        self.buckets = NULL

    def __dealloc__(self):
        free(self.lit_off)
        free(self.lit_len)
        free(self.lit_fold)
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
        groups = {}               # name -> [flags, [(key byte, fold, literal bytes)]]
        for name, kind, literals in terms:
            if not isinstance(name, str):
                raise TypeError("attribute name must be a str")
            kd = kinds[kind]
            group = groups.setdefault(name, [0, []])
            if kd == PF_PRESENT:
                if literals:
                    raise ValueError("a 'present' term has no literals")
                group[0] |= PG_PRESENT
                continue
            if not literals:
                raise ValueError("a value term needs literals")
            if kd == PF_FOLD_IC:
                group[0] |= PG_FOLD_IC
            for lit in literals:
                if not isinstance(lit, str) or not lit:
                    raise ValueError("literals are non-empty str")
                if kd != PF_CONTAINS:
                    if not lit.isascii():
                        raise ValueError("folded literals are ASCII")
                    lit = lit.lower()
                e = lit.encode("utf-8")
                first = e[0] + 32 if 65 <= e[0] <= 90 else e[0]
                group[1].append((first, 0 if kd == PF_CONTAINS else 1, e))
        self.attr_names = []
        blob = bytearray()
        lits = []
        folds = []
        bucket_list = []
        bigram_blob = bytearray()
        for name, (flags, group_lits) in groups.items():
            self.attr_names.append(name)
            self.kinds[k] = flags
            self.lit_start[k] = n_lits
            # by lowered first byte (the group holds when any of them occurs: their order is free)
            group_lits.sort(key=lambda e: e[0])
            for _key, fold, e in group_lits:
                lits.append((len(blob), len(e)))
                folds.append(fold)
                blob += e
                n_lits += 1
            self.lit_end[k] = n_lits
            bits = bytearray(8192)
            for _key, fold, e in group_lits:
                a0 = e[0] + 32 if 65 <= e[0] <= 90 else e[0]
                if len(e) == 1:
                    for b1 in range(256):
                        bits[(a0 * 256 + b1) >> 3] |= 1 << ((a0 * 256 + b1) & 7)
                else:
                    b1 = e[1] + 32 if 65 <= e[1] <= 90 else e[1]
                    bits[(a0 * 256 + b1) >> 3] |= 1 << ((a0 * 256 + b1) & 7)
            bigram_blob += bits
            j = self.lit_start[k]
            for c in range(257):
                while j < n_lits and group_lits[j - self.lit_start[k]][0] < c:
                    j += 1
                bucket_list.append(j)
            k += 1
        self.n_terms = k
        self.bigrams = bytes(bigram_blob) + b"\x00"
        self.lit_blob = bytes(blob)
        self.lit_offsets = lits
        self.lit_off = <int32_t*>malloc((n_lits + 1) * sizeof(int32_t))
        self.lit_len = <int32_t*>malloc((n_lits + 1) * sizeof(int32_t))
        self.lit_fold = <int32_t*>malloc((n_lits + 1) * sizeof(int32_t))
        self.buckets = <int32_t*>malloc((k * 257 + 1) * sizeof(int32_t))
        if self.lit_off == NULL or self.lit_len == NULL or self.lit_fold == NULL or self.buckets == NULL:
            raise MemoryError("out of memory")
        for j in range(n_lits):
            self.lit_off[j] = lits[j][0]
            self.lit_len[j] = lits[j][1]
            self.lit_fold[j] = folds[j]
        for t in range(k * 257):
            self.buckets[t] = bucket_list[t]
        self.pass_tags = tuple(pass_tags)

    cdef int resolve(self, CDocument doc, PFTerm* out, int32_t* tag_ids, int* n_tags) except -2:
        """This prefilter's groups with ``doc``'s name ids (groups on names the
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


cdef uchar _SEL_LOWER[256]
cdef int _sel_k
for _sel_k in range(256):
    _SEL_LOWER[_sel_k] = <uchar>(_sel_k + 32 if 65 <= _sel_k <= 90 else _sel_k)


cdef bint _pf_group(const uchar* s, Py_ssize_t n, int32_t flags, const uchar* blob, const int32_t* lit_off,
                   const int32_t* lit_len, const int32_t* lit_fold, const int32_t* bucket,
                   const uchar* bigram) noexcept nogil:
    """The OR of a group's terms on the value ``s[:n]``: at each position whose lowered
    byte pair is in ``bigram``, the literals whose lowered first byte is the lowered
    byte there (``bucket``: the group's 257 bounds) are compared, each exactly or
    folded as its term says. A 'fold_ic' term holds on any value with a non-ASCII
    byte: met anywhere in the scan, the OR is True."""
    cdef int32_t j, m, k
    cdef Py_ssize_t i
    cdef const uchar* lit
    cdef uint32_t c, c1, key
    cdef bint fold_ic = (flags & PG_FOLD_IC) != 0
    if flags & PG_PRESENT:
        return True
    if n <= 0:
        return False
    c1 = _SEL_LOWER[s[0]]
    for i in range(n):
        c = c1
        if fold_ic and s[i] >= 0x80:
            return True
        c1 = _SEL_LOWER[s[i + 1]] if i + 1 < n else 0
        key = (c << 8) | c1
        if not (bigram[key >> 3] >> (key & 7)) & 1:
            continue
        for j in range(bucket[c], bucket[c + 1]):
            m = lit_len[j]
            if m > n - i:
                continue
            lit = blob + lit_off[j]
            if lit_fold[j]:
                k = 1
                while k < m and _SEL_LOWER[s[i + k]] == lit[k]:
                    k += 1
            else:
                k = 0
                while k < m and s[i + k] == lit[k]:
                    k += 1
            if k == m:
                return True
    return False


cdef struct PFData:
    const uchar* blob
    const int32_t* lit_off
    const int32_t* lit_len
    const int32_t* lit_fold
    const int32_t* buckets
    const uchar* bigrams


cdef inline void _pf_data(Prefilter pf, PFData* out) noexcept:
    out.blob = <const uchar*><const char*>pf.lit_blob
    out.lit_off = pf.lit_off
    out.lit_len = pf.lit_len
    out.lit_fold = pf.lit_fold
    out.buckets = pf.buckets
    out.bigrams = <const uchar*><const char*>pf.bigrams


cdef bint _pf_node(DocData* d, int32_t i, const PFTerm* terms, int n_terms, const int32_t* tag_ids, int n_tags,
                   const PFData* pd) noexcept nogil:
    """The prefilter on node ``i``: False only when the predicate is certainly False
    (per attribute, its name's group of terms, ``terms`` one per name)."""
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
            if _pf_group(s, n, terms[t].kind, pd.blob, pd.lit_off, pd.lit_len, pd.lit_fold,
                         pd.buckets + 257 * terms[t].term, pd.bigrams + 8192 * terms[t].term):
                return True
            break
    return False


def select_candidates(CElement top not None, object names, Prefilter pf):
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
    cdef PFData pd
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
        _pf_data(pf, &pd)
    i = d.nodes[root].first
    while i >= 0:
        if (all_names or _id_in(d.nodes[i].tag, ids, n)) and (
                pf is None or _pf_node(d, i, terms, n_terms, tag_ids, n_tags, &pd)):
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


def prefilter_passes(CElement el not None, Prefilter pf):
    """``pf`` on one element (tests: it must hold wherever the predicate does)."""
    cdef CDocument doc = el.doc
    cdef int32_t tag_ids[MAX_NAME_SET]
    cdef PFTerm terms[MAX_PF_TERMS]
    cdef PFData pd
    cdef int n_terms, n_tags = 0
    doc._check(el.idx)
    n_terms = pf.resolve(doc, terms, tag_ids, &n_tags)
    _pf_data(pf, &pd)
    return _pf_node(&doc.d, el.idx, terms, n_terms, tag_ids, n_tags, &pd)


# -- len("".join(tree.xpath('//p//text()'))) ---------------------------------------------------

cdef inline Py_ssize_t _slot_chars(DocData* d, int32_t off, int32_t n) noexcept nogil:
    if off < 0 or n <= 0 or <Py_ssize_t>off + n > d.text.len:
        return 0
    return ngs_code_points(d.text.data + off, n)


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


def tag_text_length(CElement root not None, str tag):
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


# -- exact matchers: a predicate's whole verdict in C ------------------------------------------
#
# A ``Matcher`` is a predicate written as a disjunction of exact terms (built
# by trafila.xpathlib from the predicate's registered spec, and proved equal to
# it by tests/test_core_accel_selectors.py). A term reads one attribute value as
# the reference does (``el.get(name)``: the first attribute of that name; or,
# for ``@a|@b``, the first attribute in source order whose name is one of the
# set), '' when missing, and tests it:
#   MT_TRUE      always (a term restricted to some tags: true by tag alone);
#   MT_PRESENT   the attribute is present;
#   MT_EQ / MT_STARTS / MT_CONTAINS   the value (after the term's translate()
#                map, which maps ASCII bytes to ASCII bytes only, so mapping
#                UTF-8 bytes is str.translate) equals / starts with / contains
#                one of the literals (UTF-8 bytes: exact for str semantics);
#   MT_REGEX     re.search of a pattern compiled by xpathlib.compile_regex into
#                a small backtracking program (existence of a match only).
# A term may hold only on (or only off) a set of tags. A missing attribute
# never holds a value term: literals are non-empty and patterns that match ''
# are refused when the spec is built. A verdict is 1, 0, or -1 (unknown: a
# pattern that needs character semantics meets a non-ASCII value, an
# inconsistent node, a budget exceeded): the caller then runs the Python
# predicate on that node.

cdef enum:
    MT_TRUE = 0
    MT_PRESENT = 1
    MT_EQ = 2
    MT_STARTS = 3
    MT_CONTAINS = 4
    MT_REGEX = 5
    MAX_MT_TERMS = 48
    MT_MAX_NAMES = 4
    MT_MAX_TAGS = 16
    RX_CHAR = 0
    RX_CHAR_I = 1
    RX_CLASS = 2
    RX_SPLIT = 3
    RX_JMP = 4
    RX_MATCH = 5
    RX_BOL = 6
    RX_EOL = 7
    RX_EOS = 8
    RX_NOTAHEAD = 9
    RX_AHEAD = 10
    RX_STACK = 64
    RX_BUDGET = 20000
    RX_DEPTH = 4


cdef struct MTerm:
    int32_t kind
    int32_t first        # 1: @a|@b (first attribute in source order among the names)
    int32_t tr           # offset of the term's 256-byte translate map in maps, -1: none
    int32_t lit_start    # literals [lit_start, lit_end)
    int32_t lit_end
    int32_t bucket       # offset of the term's 257 first-byte bounds in buckets (MT_CONTAINS), -1
    int32_t rx           # the regex index (MT_REGEX), -1
    int32_t has_tags     # 0: no tag restriction; 1: only on the tags; 2: only off them
    int32_t never        # resolved: cannot hold in this document
    int32_t n_names
    int32_t names[MT_MAX_NAMES]
    int32_t n_tags
    int32_t tags[MT_MAX_TAGS]


cdef struct MRegex:
    int32_t need_ascii   # a non-ASCII value gives -1 (classes, \s, re.I: character semantics)
    int32_t bucket       # offset of 257 bounds into rx_alts by first byte
    int32_t any_start    # alternatives tried at every position: rx_alts[any_start:any_end]
    int32_t any_end


cdef struct MData:
    const uchar* blob
    const int32_t* lit_off
    const int32_t* lit_len
    const int32_t* buckets
    const uchar* maps
    const int32_t* prog
    const uint32_t* classes
    const int32_t* rx_alts
    const int32_t* rx_buckets
    const MRegex* rx


cdef int32_t* _i32_array(object values) except NULL:
    cdef Py_ssize_t n = len(values), k
    cdef int32_t* out = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    if out == NULL:
        raise MemoryError("out of memory")
    for k in range(n):
        out[k] = <int32_t>values[k]
    return out


cdef int _rx_run(const MData* m, int32_t pc, const uchar* s, Py_ssize_t n, Py_ssize_t pos,
                 int* budget, int depth) noexcept nogil:
    """The program from ``pc`` matches ``s`` at ``pos`` (anchored there): 1, 0, or
    -1 (stack, depth or step budget exceeded)."""
    cdef int32_t stack_pc[RX_STACK]
    cdef Py_ssize_t stack_pos[RX_STACK]
    cdef int sp = 0, r
    cdef int32_t op, a, b
    cdef uchar c
    cdef bint ok
    cdef const int32_t* prog = m.prog
    while True:
        budget[0] -= 1
        if budget[0] < 0:
            return -1
        op = prog[3 * pc]
        a = prog[3 * pc + 1]
        b = prog[3 * pc + 2]
        ok = True
        if op == RX_CHAR:
            if pos < n and s[pos] == a:
                pos += 1
                pc += 1
            else:
                ok = False
        elif op == RX_CHAR_I:
            if pos < n and _ascii_lower(s[pos]) == a:
                pos += 1
                pc += 1
            else:
                ok = False
        elif op == RX_CLASS:
            if pos < n:
                c = s[pos]
            if pos < n and c < 128 and (m.classes[4 * a + (c >> 5)] >> (c & 31)) & 1:
                pos += 1
                pc += 1
            else:
                ok = False
        elif op == RX_SPLIT:
            if sp >= RX_STACK:
                return -1
            stack_pc[sp] = b
            stack_pos[sp] = pos
            sp += 1
            pc = a
        elif op == RX_JMP:
            pc = a
        elif op == RX_MATCH:
            return 1
        elif op == RX_BOL:
            ok = pos == 0
            pc += 1
        elif op == RX_EOL:
            ok = pos == n or (pos == n - 1 and s[pos] == 10)
            pc += 1
        elif op == RX_EOS:
            ok = pos == n
            pc += 1
        elif op == RX_NOTAHEAD or op == RX_AHEAD:
            if depth >= RX_DEPTH:
                return -1
            r = _rx_run(m, a, s, n, pos, budget, depth + 1)
            if r < 0:
                return -1
            ok = (r == 0) if op == RX_NOTAHEAD else (r == 1)
            pc = b
        else:
            return -1
        if not ok:
            if sp == 0:
                return 0
            sp -= 1
            pc = stack_pc[sp]
            pos = stack_pos[sp]


cdef int _rx_search(const MData* m, int32_t rx, const uchar* s, Py_ssize_t n) noexcept nogil:
    "re.search(pattern, value) is not None: 1, 0, or -1 (unknown)."
    cdef const MRegex* r = &m.rx[rx]
    cdef const int32_t* bk = m.rx_buckets + r.bucket
    cdef int budget = RX_BUDGET, v
    cdef Py_ssize_t i
    cdef int32_t j
    if r.need_ascii and _has_non_ascii(s, n):
        return -1
    for i in range(n + 1):
        if i < n:
            for j in range(bk[s[i]], bk[s[i] + 1]):
                v = _rx_run(m, m.rx_alts[j], s, n, i, &budget, 0)
                if v != 0:
                    return v
        for j in range(r.any_start, r.any_end):
            v = _rx_run(m, m.rx_alts[j], s, n, i, &budget, 0)
            if v != 0:
                return v
    return 0


cdef inline uchar _mapped(const uchar* mp, uchar c) noexcept nogil:
    return mp[c] if mp != NULL else c


cdef int _mt_value(const MData* m, const MTerm* t, const uchar* s, Py_ssize_t n) noexcept nogil:
    "The term's test on the value ``s[:n]``: 1, 0 or -1."
    cdef const uchar* mp = m.maps + t.tr if t.tr >= 0 else NULL
    cdef int32_t j, len_, k
    cdef Py_ssize_t i
    cdef const uchar* lit
    cdef const int32_t* bk
    cdef uchar c
    if t.kind == MT_REGEX:
        return _rx_search(m, t.rx, s, n)
    if t.kind == MT_EQ or t.kind == MT_STARTS:
        for j in range(t.lit_start, t.lit_end):
            len_ = m.lit_len[j]
            if len_ > n or (t.kind == MT_EQ and len_ != n):
                continue
            lit = m.blob + m.lit_off[j]
            k = 0
            while k < len_ and _mapped(mp, s[k]) == lit[k]:
                k += 1
            if k == len_:
                return 1
        return 0
    if t.kind == MT_CONTAINS:
        bk = m.buckets + t.bucket
        for i in range(n):
            c = _mapped(mp, s[i])
            for j in range(bk[c], bk[c + 1]):
                len_ = m.lit_len[j]
                if len_ > n - i:
                    continue
                lit = m.blob + m.lit_off[j]
                k = 1
                while k < len_ and _mapped(mp, s[i + k]) == lit[k]:
                    k += 1
                if k == len_:
                    return 1
        return 0
    return -1


cdef int _mt_node(DocData* d, int32_t i, const MTerm* terms, int n_terms, const MData* m) noexcept nogil:
    "The predicate's verdict on node ``i``: 1, 0, or -1 (unknown: run the Python predicate)."
    cdef Node* nd = &d.nodes[i]
    cdef int32_t k, end, found
    cdef int t, r
    cdef bint unknown = False, inside
    cdef const MTerm* tm
    cdef const uchar* s
    cdef Py_ssize_t n
    end = nd.attr_start + nd.attr_count
    if nd.attr_count < 0 or (nd.attr_count > 0 and (nd.attr_start < 0 or end > d.n_attrs)):
        return -1
    for t in range(n_terms):
        tm = &terms[t]
        if tm.never:
            continue
        if tm.has_tags:
            inside = _id_in(nd.tag, tm.tags, tm.n_tags)
            if inside != (tm.has_tags == 1):
                continue
        if tm.kind == MT_TRUE:
            return 1
        found = -1
        for k in range(nd.attr_start, end):
            if _id_in(d.attrs[k].name, tm.names, tm.n_names):
                found = k
                break
        if found < 0:
            continue
        if tm.kind == MT_PRESENT:
            return 1
        if not _pf_value(d, &d.attrs[found], &s, &n):
            unknown = True
            continue
        r = _mt_value(m, tm, s, n)
        if r == 1:
            return 1
        if r < 0:
            unknown = True
    return -1 if unknown else 0


@cython.final
cdef class Matcher:
    """A predicate's exact verdict (see above). ``terms``: a sequence of
    (kind, names, first, literals, translate map (256 bytes or None), regex
    index (-1), tags, tag mode (0/1/2)); ``regexes``: per regex, (need_ascii,
    program triples, class bitmaps (4 words each), alternatives as (start pc,
    first bytes, anywhere))."""
    cdef MTerm tmpl[MAX_MT_TERMS]
    cdef int n_terms
    cdef list term_names      # per term, the attribute names (tuple of str)
    cdef list term_tags       # per term, the tag names (tuple of str)
    cdef bytes blob_b, maps_b
    cdef int32_t* lit_off
    cdef int32_t* lit_len
    cdef int32_t* buckets
    cdef int32_t* prog
    cdef uint32_t* classes
    cdef int32_t* rx_alts
    cdef int32_t* rx_buckets
    cdef MRegex* rx
    cdef MData data
    cdef readonly object spec

    def __cinit__(self):
        self.lit_off = self.lit_len = self.buckets = self.prog = self.rx_alts = self.rx_buckets = NULL
        self.classes = NULL
        self.rx = NULL

    def __dealloc__(self):
        free(self.lit_off)
        free(self.lit_len)
        free(self.buckets)
        free(self.prog)
        free(self.classes)
        free(self.rx_alts)
        free(self.rx_buckets)
        free(self.rx)

    def __init__(self, terms, regexes=()):
        kinds = {"true": MT_TRUE, "present": MT_PRESENT, "eq": MT_EQ, "starts": MT_STARTS,
                 "contains": MT_CONTAINS, "regex": MT_REGEX}
        cdef int k = 0, t, c, r
        cdef MTerm* tm
        cdef MRegex* rg
        terms = list(terms)
        regexes = list(regexes)
        if len(terms) > MAX_MT_TERMS:
            raise ValueError(f"a matcher has at most {MAX_MT_TERMS} terms")
        self.spec = (tuple(terms), tuple(regexes))
        blob = bytearray()
        maps = bytearray()
        lit_off, lit_len, buckets = [], [], []
        self.term_names = []
        self.term_tags = []
        for kind, names, first, literals, trmap, rx_index, tags, tag_mode in terms:
            kd = kinds[kind]
            tm = &self.tmpl[k]
            memset(tm, 0, sizeof(MTerm))
            tm.kind = kd
            tm.first = 1 if first else 0
            names = tuple(names)
            tags = tuple(tags)
            if kd != MT_TRUE and not (1 <= len(names) <= MT_MAX_NAMES):
                raise ValueError("a term reads 1 to 4 attributes")
            if not first and len(names) > 1:
                raise ValueError("several names need first=True (@a|@b)")
            if len(tags) > MT_MAX_TAGS or tag_mode not in (0, 1, 2) or (tag_mode == 0) != (not tags):
                raise ValueError("bad tag restriction")
            if kd == MT_TRUE and tag_mode != 1:
                raise ValueError("a 'true' term needs tags")
            tm.has_tags = tag_mode
            self.term_names.append(names)
            self.term_tags.append(tags)
            tm.tr = -1
            if trmap is not None:
                trmap = bytes(trmap)
                if len(trmap) != 256 or any(trmap[b] != b for b in range(128, 256)) or any(v >= 128 for v in trmap[:128]):
                    raise ValueError("a translate map maps ASCII to ASCII only")
                tm.tr = len(maps)
                maps += trmap
            tm.rx = -1
            tm.bucket = -1
            tm.lit_start = len(lit_off)
            if kd in (MT_EQ, MT_STARTS, MT_CONTAINS):
                encoded = []
                for lit in literals:
                    if not isinstance(lit, str) or not lit:
                        raise ValueError("literals are non-empty str")
                    encoded.append(lit.encode("utf-8"))
                if not encoded:
                    raise ValueError("a value term needs literals")
                encoded.sort(key=lambda e: e[0])
                for e in encoded:
                    lit_off.append(len(blob))
                    lit_len.append(len(e))
                    blob += e
                if kd == MT_CONTAINS:
                    tm.bucket = len(buckets)
                    j = 0
                    for c in range(257):
                        while j < len(encoded) and encoded[j][0] < c:
                            j += 1
                        buckets.append(tm.lit_start + j)
            elif kd == MT_REGEX:
                if not (0 <= rx_index < len(regexes)):
                    raise ValueError("bad regex index")
                tm.rx = rx_index
            elif literals:
                raise ValueError("this term has no literals")
            tm.lit_end = len(lit_off)
            k += 1
        self.n_terms = k
        prog, classes, alts, rx_buckets, rx_info = [], [], [], [], []
        for need_ascii, triples, bitmaps, alternatives in regexes:
            base = len(prog) // 3
            cbase = len(classes) // 4
            n_ins = len(triples)
            for op, a, b in triples:
                if op in (RX_SPLIT, RX_JMP):
                    if not (0 <= a < n_ins and 0 <= b < n_ins):
                        raise ValueError("jump out of the program")
                    a += base
                    b += base
                elif op in (RX_NOTAHEAD, RX_AHEAD):
                    if not (0 <= a < n_ins and 0 <= b < n_ins):
                        raise ValueError("jump out of the program")
                    a += base
                    b += base
                elif op == RX_CLASS:
                    if not (0 <= a < len(bitmaps)):
                        raise ValueError("bad class")
                    a += cbase
                elif op in (RX_CHAR, RX_CHAR_I):
                    if not (0 <= a < 128):
                        raise ValueError("characters are ASCII")
                elif op in (RX_MATCH, RX_BOL, RX_EOL, RX_EOS):
                    pass
                else:
                    raise ValueError("bad opcode")
                prog.extend((op, a, b))
            if not triples or triples[len(triples) - 1][0] not in (RX_MATCH, RX_JMP):
                raise ValueError("a program ends with MATCH")
            for bits in bitmaps:
                bits = int(bits)
                if bits < 0 or bits >> 128:
                    raise ValueError("class bitmaps are 128 bits")
                classes.extend(((bits >> (32 * w)) & 0xFFFFFFFF) for w in range(4))
            by_byte = []
            anywhere = []
            for start, firsts, any_pos in alternatives:
                if not (0 <= start < n_ins):
                    raise ValueError("bad alternative")
                if any_pos:
                    anywhere.append(start + base)
                for f in firsts:
                    if not (0 <= f < 128):
                        raise ValueError("first bytes are ASCII")
                    by_byte.append((f, start + base))
            by_byte.sort()
            bucket = len(rx_buckets)
            alt_base = len(alts)
            alts.extend(pc for _f, pc in by_byte)
            j = 0
            for c in range(257):
                while j < len(by_byte) and by_byte[j][0] < c:
                    j += 1
                rx_buckets.append(alt_base + j)
            any_start = len(alts)
            alts.extend(anywhere)
            rx_info.append((1 if need_ascii else 0, bucket, any_start, len(alts)))
        self.blob_b = bytes(blob)
        self.maps_b = bytes(maps)
        self.lit_off = _i32_array(lit_off)
        self.lit_len = _i32_array(lit_len)
        self.buckets = _i32_array(buckets)
        self.prog = _i32_array(prog)
        self.classes = <uint32_t*>malloc((len(classes) + 1) * sizeof(uint32_t))
        if self.classes == NULL:
            raise MemoryError("out of memory")
        for t in range(len(classes)):
            self.classes[t] = <uint32_t>classes[t]
        self.rx_alts = _i32_array(alts)
        self.rx_buckets = _i32_array(rx_buckets)
        self.rx = <MRegex*>malloc((len(rx_info) + 1) * sizeof(MRegex))
        if self.rx == NULL:
            raise MemoryError("out of memory")
        for r in range(len(rx_info)):
            rg = &self.rx[r]
            rg.need_ascii, rg.bucket, rg.any_start, rg.any_end = rx_info[r]
        self.data.blob = <const uchar*><const char*>self.blob_b
        self.data.maps = <const uchar*><const char*>self.maps_b
        self.data.lit_off = self.lit_off
        self.data.lit_len = self.lit_len
        self.data.buckets = self.buckets
        self.data.prog = self.prog
        self.data.classes = self.classes
        self.data.rx_alts = self.rx_alts
        self.data.rx_buckets = self.rx_buckets
        self.data.rx = self.rx

    cdef int resolve(self, CDocument doc, MTerm* out) except -2:
        "The terms with ``doc``'s name ids (into ``out``); their count."
        cdef int k, n
        cdef int32_t nid
        cdef MTerm* tm
        for k in range(self.n_terms):
            tm = &out[k]
            memcpy(tm, &self.tmpl[k], sizeof(MTerm))
            n = 0
            for name in self.term_names[k]:
                nid = _lookup(doc, name)
                if nid >= 0:
                    tm.names[n] = nid
                    n += 1
            tm.n_names = n
            tm.never = 1 if (tm.kind != MT_TRUE and n == 0) else 0
            n = 0
            for name in self.term_tags[k]:
                nid = _lookup(doc, name)
                if nid >= 0:
                    tm.tags[n] = nid
                    n += 1
            tm.n_tags = n
            if tm.has_tags == 1 and n == 0:
                tm.never = 1
            elif tm.has_tags == 2 and n == 0:
                tm.has_tags = 0
        return self.n_terms

    def value_verdict(self, int k, str value):
        """Term ``k``'s test on ``value`` as an attribute value (tests): 1, 0 or -1."""
        cdef bytes b = value.encode("utf-8", "surrogatepass")
        if not (0 <= k < self.n_terms):
            raise IndexError(k)
        if self.tmpl[k].kind in (MT_TRUE, MT_PRESENT):
            return 1
        return _mt_value(&self.data, &self.tmpl[k], <const uchar*><const char*>b, len(b))


def matcher_verdict(CElement el not None, Matcher m):
    """``m`` on one element (tests): 1, 0 or -1 (unknown)."""
    cdef CDocument doc = el.doc
    cdef MTerm terms[MAX_MT_TERMS]
    cdef int n_terms
    doc._check(el.idx)
    n_terms = m.resolve(doc, terms)
    return _mt_node(&doc.d, el.idx, terms, n_terms, &m.data)


def select_matches(CElement top not None, object names, Matcher m, object pred, int mode, Prefilter pf=None):
    """``.//*[names][pred]`` with ``m`` as ``pred``'s verdict (``pred`` itself
    only where ``m`` says unknown): the matching descendants of ``top`` in
    document order (mode 0); the first only (mode 1); per parent the first
    (mode 2: ``.//*[...][1]``). ``pf``, ``pred``'s prefilter (a necessary
    condition, cheaper than ``m``), rejects first when given."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int32_t ids[MAX_NAME_SET]
    cdef MTerm terms[MAX_MT_TERMS]
    cdef int32_t tag_ids[MAX_NAME_SET]
    cdef PFTerm pf_terms[MAX_PF_TERMS]
    cdef int pf_n_terms = 0, pf_n_tags = 0
    cdef PFData pd
    cdef int n = 0, n_terms, v
    cdef bint all_names = names is None
    cdef int32_t root = top.idx, i, parent
    cdef list out = []
    cdef set parents = None
    doc._check(root)
    if not all_names:
        if not isinstance(names, (set, frozenset, tuple, list)):
            names = tuple(names)
        n = _name_ids(doc, names, ids)
        if n == 0:
            return out
        if n < 0:
            raise ValueError("too many tag names")
    n_terms = m.resolve(doc, terms)
    if pf is not None:
        pf_n_terms = pf.resolve(doc, pf_terms, tag_ids, &pf_n_tags)
        _pf_data(pf, &pd)
    if mode == 2:
        parents = set()
    i = d.nodes[root].first
    while i >= 0:
        if (all_names or _id_in(d.nodes[i].tag, ids, n)) and (
                pf is None or _pf_node(d, i, pf_terms, pf_n_terms, tag_ids, pf_n_tags, &pd)):
            v = _mt_node(d, i, terms, n_terms, &m.data)
            if v < 0:
                v = 1 if pred(_proxy(doc, i)) else 0
            if v:
                if mode == 2:
                    parent = d.nodes[i].parent
                    if parent not in parents:
                        parents.add(parent)
                        out.append(_proxy(doc, i))
                else:
                    out.append(_proxy(doc, i))
                    if mode == 1:
                        return out
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while i != root and d.nodes[i].next < 0:
            i = d.nodes[i].parent
        if i == root:
            break
        i = d.nodes[i].next
    return out
