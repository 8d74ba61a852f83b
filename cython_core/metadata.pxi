# trafilatura's metadata extraction over the C document (reference/trafila/v*/metadata.py
# calls these through trafila._backend.core_of when the tree is the core's; the
# Python there stays the specification and runs on every other tree).
#
# * ``select_matches_each``: several ``//*[tags][pred]`` selections in one walk of the
#   document, each predicate decided by its exact Matcher (accel_selectors.pxi), the
#   Python predicate called only where a Matcher cannot decide.

cdef enum:
    MD_MAX_SPECS = 16
    MD_MAX_GATE = 64


cdef int _md_gate(const MTerm* terms, int n, int32_t* gate) noexcept nogil:
    """When every term holds only on some tags, those tags (the union) into ``gate``:
    a node with another tag fails every term (its Matcher says 0). -1 when a term may
    hold on any tag, or the union is too large to be worth it."""
    cdef int t, k, g = 0
    for t in range(n):
        if terms[t].never:
            continue
        if terms[t].has_tags != 1:
            return -1
        for k in range(terms[t].n_tags):
            if g == MD_MAX_GATE:
                return -1
            gate[g] = terms[t].tags[k]
            g += 1
    return g


# upstream: trafilatura.metadata.extract_catstags (the CATEGORIES_XPATHS / TAGS_XPATHS selections)
def select_matches_each(CElement top not None, list specs, bint include_top):
    """``[select_matches(top, names, m, pred, 0) for names, m, pred in specs]``, with ``top``
    itself tested first in each when ``include_top`` (XPath's ``//*`` from the root):
    the matches of every spec in document order, in one walk (each is ``tree.xpath(expression)``
    of one of the container expressions)."""
    cdef CDocument doc = top.doc
    cdef DocData* d = &doc.d
    cdef int n_specs = len(specs), s, v
    cdef int32_t* ids = NULL
    cdef int n_ids[MD_MAX_SPECS]
    cdef bint all_names[MD_MAX_SPECS]
    cdef int n_terms[MD_MAX_SPECS]
    cdef int n_gate[MD_MAX_SPECS]      # -1: no gate; else the count of gate tag ids
    cdef int32_t gate[MD_MAX_SPECS * MD_MAX_GATE]
    cdef MTerm* terms = NULL
    cdef const MData* data[MD_MAX_SPECS]
    cdef int32_t root = top.idx, i
    cdef Matcher m
    cdef list out = [[] for _ in range(n_specs)]
    cdef list preds = []
    doc._check(root)
    if n_specs > MD_MAX_SPECS:
        raise ValueError(f"at most {MD_MAX_SPECS} selections in one walk")
    if n_specs == 0:
        return out
    ids = <int32_t*>malloc(sizeof(int32_t) * MAX_NAME_SET * n_specs)
    terms = <MTerm*>malloc(sizeof(MTerm) * MAX_MT_TERMS * n_specs)
    if ids == NULL or terms == NULL:
        free(ids)
        free(terms)
        raise MemoryError()
    try:
        for s in range(n_specs):
            names, m, pred = specs[s]
            preds.append(pred)
            all_names[s] = names is None
            n_ids[s] = 0
            if names is not None:
                n_ids[s] = _name_ids(doc, names, &ids[s * MAX_NAME_SET])
                if n_ids[s] < 0:
                    raise ValueError("too many tag names")
            n_terms[s] = m.resolve(doc, &terms[s * MAX_MT_TERMS])
            n_gate[s] = _md_gate(&terms[s * MAX_MT_TERMS], n_terms[s], &gate[s * MD_MAX_GATE])
            data[s] = &m.data
        i = root if include_top else d.nodes[root].first
        while i >= 0:
            for s in range(n_specs):
                if not all_names[s] and not _id_in(d.nodes[i].tag, &ids[s * MAX_NAME_SET], n_ids[s]):
                    continue
                if n_gate[s] >= 0 and not _id_in(d.nodes[i].tag, &gate[s * MD_MAX_GATE], n_gate[s]):
                    continue
                v = _mt_node(d, i, &terms[s * MAX_MT_TERMS], n_terms[s], data[s])
                if v < 0:
                    v = 1 if preds[s](_proxy(doc, i)) else 0
                if v:
                    (<list>out[s]).append(_proxy(doc, i))
            # the next node in document order below root (root's own subtree only)
            if d.nodes[i].first >= 0:
                i = d.nodes[i].first
                continue
            while i != root and d.nodes[i].next < 0:
                i = d.nodes[i].parent
            if i == root:
                break
            i = d.nodes[i].next
    finally:
        free(ids)
        free(terms)
    return out
