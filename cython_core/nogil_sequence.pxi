# main_extractor's _extract, extract_content,
# recover_wild_text and extract_comments, and core.trafilatura_sequence for 2.3.1's `fast`
# option set, without the GIL, over NgCtx (nogil_frame.pxi). Everything runs on a copy of the
# page made inside its own document: on NS_NEED_PYTHON the caller runs the reference sequence on
# the untouched tree, which gives the page's result by construction.

# -- growable UTF-8 strings (temp_text, the dedup buffers) --------------------------------

cdef struct NgStr:
    uchar* p
    Py_ssize_t n
    Py_ssize_t cap


cdef inline void ngs_init(NgStr* s) noexcept nogil:
    s.p = NULL
    s.n = 0
    s.cap = 0


cdef inline void ngs_free(NgStr* s) noexcept nogil:
    free(s.p)
    ngs_init(s)


cdef int ngs_reserve(NgStr* s, Py_ssize_t extra) noexcept nogil:
    cdef Py_ssize_t cap
    cdef uchar* p
    if s.n + extra <= s.cap:
        return NS_OK
    cap = s.cap * 2 if s.cap else 64
    while cap < s.n + extra:
        cap *= 2
    p = NULL if alloc_fails() else <uchar*>realloc(s.p, <size_t>cap)
    if p == NULL:
        return NS_ERROR
    s.p = p
    s.cap = cap
    return NS_OK


cdef int ngs_append(NgStr* s, const uchar* p, Py_ssize_t n) noexcept nogil:
    if n <= 0:
        return NS_OK
    if ngs_reserve(s, n) != NS_OK:
        return NS_ERROR
    memcpy(s.p + s.n, p, <size_t>n)
    s.n += n
    return NS_OK


cdef inline Py_ssize_t ngs_code_points(const uchar* p, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, k = 0
    for i in range(n):
        if (p[i] & 0xC0) != 0x80:
            k += 1
    return k


cdef bint ngs_contains(const uchar* hay, Py_ssize_t hn, const uchar* needle, Py_ssize_t nn) noexcept nogil:
    """``needle in hay`` for str: on valid UTF-8 a code-point substring is a byte substring
    starting at a character boundary, and every byte match starts at one."""
    cdef Py_ssize_t i
    cdef const uchar* q
    if nn == 0:
        return True
    if nn > hn:
        return False
    i = 0
    while i + nn <= hn:
        q = <const uchar*>memchr(hay + i, needle[0], <size_t>(hn - nn - i + 1))
        if q == NULL:
            return False
        i = q - hay
        if memcmp(q, needle, <size_t>nn) == 0:
            return True
        i += 1
    return False


cdef void _sq_strip(NgStr* s) noexcept nogil:
    "str.strip() in place (Py_UNICODE_ISSPACE at both ends)."
    cdef Py_ssize_t start = 0, end = 0, i = 0, w
    while start < s.n:
        w = _space_at(s.p, start, s.n)
        if w == 0:
            break
        start += w
    if start >= s.n:
        s.n = 0
        return
    # the end of the last non-space character
    i = start
    while i < s.n:
        w = _space_at(s.p, i, s.n)
        if w:
            i += w
            continue
        i += 1
        while i < s.n and (s.p[i] & 0xC0) == 0x80:
            i += 1
        end = i
    if start:
        memmove(s.p, s.p + start, <size_t>(end - start))
    s.n = end - start


cdef struct SqJoin:
    NgStr* s
    bint started


cdef int _sq_join_piece(void* state, const uchar* p, int32_t n) noexcept nogil:
    cdef SqJoin* j = <SqJoin*>state
    if j.started:
        if ngs_append(j.s, <const uchar*>" ", 1) != NS_OK:
            return NS_ERROR
    j.started = True
    # the arena may not move under us: s is a separate buffer
    return ngs_append(j.s, p, n)


# upstream: none (an itertext join shared by the stages)
cdef int ng_itertext_join_strip(DocData* d, int32_t top, NgStr* out) noexcept nogil:
    """``" ".join(top.itertext()).strip()`` as UTF-8 into ``out`` (emptied first)."""
    cdef SqJoin j
    cdef int r
    out.n = 0
    j.s = out
    j.started = False
    r = ng_itertext_pieces(d, top, _sq_join_piece, &j)
    if r == NS_OK:
        _sq_strip(out)
    return r


cdef int ng_elem_text(DocData* d, int32_t top, NgStr* out) noexcept nogil:
    """main_extractor._elem_text: ``trim("".join(top.itertext()))`` into ``out`` (also the
    accelerator's, extract_elem_text)."""
    cdef Py_ssize_t n = ng_trim_itertext(d, top, False, False, NULL)
    out.n = 0
    if n == 0:
        return NS_OK
    if ngs_reserve(out, n) != NS_OK:
        return NS_ERROR
    out.n = ng_trim_itertext(d, top, False, False, out.p)
    return NS_OK


# -- small tree helpers ----------------------------------------------------------------

cdef inline int32_t _sq_root_of(DocData* d, int32_t i) noexcept nogil:
    while d.nodes[i].parent >= 0:
        i = d.nodes[i].parent
    return i


cdef inline bint _sq_text_chars(DocData* d, int32_t off, int32_t n) noexcept nogil:
    "text.text_chars_test of a slot: not None, not empty, not all whitespace."
    cdef Slot s
    s.off = off
    s.len = n
    return off >= 0 and n > 0 and not _slot_blank(d, s)


cdef int32_t _sq_n_children(DocData* d, int32_t i) noexcept nogil:
    cdef int32_t c = d.nodes[i].first, k = 0
    while c >= 0:
        k += 1
        c = d.nodes[c].next
    return k


cdef int32_t _sq_child_at(DocData* d, int32_t i, int32_t k) noexcept nogil:
    cdef int32_t c = d.nodes[i].first
    while c >= 0 and k > 0:
        k -= 1
        c = d.nodes[c].next
    return c


cdef int _sq_new_p_with(NgCtx* c, DocData* d, int32_t off, int32_t n, int32_t* out) noexcept nogil:
    """``p = Element("p"); p.text = xml_text(value); process_node(p)``: out the p or -1."""
    cdef int32_t p = ng_new_element(c, NG_P, -1)
    cdef int r
    out[0] = -1
    if p < 0:
        return NS_ERROR
    r = ng_set_slot(d, p, False, d.text.data + off if off >= 0 else NULL, n if off >= 0 else 0, off < 0)
    if r != NS_OK:
        return r
    return ng_process_node(c, p, out)


cdef int _sq_vec_of_descendants(NgCtx* c, int32_t top, uint64_t tags, NsVec* out) noexcept nogil:
    "The descendants of ``top`` whose tag is in ``tags`` (NG_* bits), in document order."
    cdef DocData* d = c.d
    cdef int32_t i = dom_preorder_next(d, top, top)
    while i >= 0:
        if ng_in(tags, c, i):
            if nsv_push(out, i) < 0:
                return NS_ERROR
        i = dom_preorder_next(d, i, top)
    return NS_OK


cdef Py_ssize_t ng_p_text_length(NgCtx* c, int32_t top) noexcept nogil:
    """xpaths.p_text_length: the code points of the text inside the <p> elements of ``top``'s
    subtree (``top`` included), a nested <p> counted once (the accelerator's walk,
    tag_text_length)."""
    return _tag_text_chars(c.d, top, c.name[NG_P])


# -- main_extractor._extract ------------------------------------------------------------

cdef enum:
    # TAG_CATALOG as NG_* bits, and the sets _extract reads
    SQ_TAG_CATALOG = ((1 << NG_CODE) | (1 << NG_DEL) | (1 << NG_HEAD) | (1 << NG_HI) | (1 << NG_LB)
                      | (1 << NG_LIST) | (1 << NG_P) | (1 << NG_QUOTE))
    SQ_INLINE_FORMATTABLE_LB = (1 << NG_HI) | (1 << NG_REF) | (1 << NG_DEL) | (1 << NG_CODE) | (1 << NG_LB)
    SQ_REBUILT_BLOCKS = (1 << NG_CODE) | (1 << NG_QUOTE) | (1 << NG_LIST) | (1 << NG_TABLE)
    SQ_NOT_AT_THE_END = (1 << NG_HEAD) | (1 << NG_REF)

# _DISPATCHED: the tags handle_textelem does more for than return None
cdef uint64_t SQ_DISPATCHED = (ng_bit(NG_LIST) | ng_bit(NG_CODE) | ng_bit(NG_QUOTE) | ng_bit(NG_HEAD) | ng_bit(NG_P)
                               | ng_bit(NG_LB) | ng_bit(NG_HI) | ng_bit(NG_REF) | ng_bit(NG_DEL) | ng_bit(NG_TABLE)
                               | ng_bit(NG_GRAPHIC) | ng_bit(NG_DIV))
cdef Py_ssize_t SQ_MIN_DUPLICATE_LENGTH = 50      # settings.MIN_DUPLICATE_LENGTH (tests check it)
cdef Py_ssize_t SQ_DEDUPE_SCAN_CAP = 200000       # settings.DEDUPE_SCAN_CAP (tests check it)


cdef int _sq_desc_kinds(NgCtx* c, int32_t top, uint64_t* kinds, bint* others) noexcept nogil:
    """``{e.tag for e in desc_list(top)}`` as NG_* bits, ``others`` when some tag is none of
    them."""
    cdef int32_t i = dom_preorder_next(c.d, top, top)
    cdef int k
    kinds[0] = 0
    others[0] = False
    while i >= 0:
        k = ng_kind(c, i)
        if k < 0:
            others[0] = True
        else:
            kinds[0] |= ng_bit(k)
        i = dom_preorder_next(c.d, i, top)
    return NS_OK


cdef int _sq_dispatched(NgCtx* c, int32_t top, bint skip_divs, bint skip_graphics, NsVec* out,
                        uint64_t tags=SQ_DISPATCHED) noexcept nogil:
    """_extract's subelems (also the accelerator's, extract_dispatched): the descendants with a
    ``tags`` tag (_DISPATCHED), less the elements handle_textelem would give None for with no
    change whatever happens before: divs without "w3-code" in their class when "div" is not a
    potential tag, and graphics when "graphic" is not."""
    cdef DocData* d = c.d
    cdef int32_t i = dom_preorder_next(d, top, top), class_id, k
    cdef int kind
    cdef Attr* a
    class_id = dom_lookup_name(d, <const uchar*>"class", 5)
    while i >= 0:
        kind = ng_kind(c, i)
        if kind >= 0 and (tags >> kind) & 1:
            if kind == NG_GRAPHIC and skip_graphics:
                pass
            elif kind == NG_DIV and skip_divs:
                k = dom_attr_find(d, i, class_id) if class_id >= 0 else -1
                if k >= 0:
                    a = &d.attrs[k]
                    if a.kind == AV_VALUE and _contains_bytes(d.vals.data + a.val_off, a.val_len,
                                                              <const uchar*>"w3-code", 7, False):
                        if nsv_push(out, i) < 0:
                            return NS_ERROR
            elif nsv_push(out, i) < 0:
                return NS_ERROR
        i = dom_preorder_next(d, i, top)
    return NS_OK


cdef int _sq_step(NgCtx* c, int32_t elem, int32_t body, uint64_t potential) noexcept nogil:
    "_extract's step(elem): the handler's result appended, the element marked, a rebuilt block's tail."
    cdef DocData* d = c.d
    cdef int kind = ng_kind(c, elem)
    cdef int32_t tail_off = d.nodes[elem].tail_off, tail_len = d.nodes[elem].tail_len
    cdef int32_t processed = -1, tail_elem, kept
    cdef int r
    r = ng_handle_textelem(c, elem, potential, &processed)
    if r != NS_OK:
        return r
    if processed >= 0:
        if ng_append(d, body, processed) != NS_OK:
            return NS_ERROR
        if _sq_root_of(d, elem) != body:
            d.nodes[elem].tag = c.name[NG_DONE]
    if (kind >= 0 and (SQ_REBUILT_BLOCKS >> kind) & 1 and _sq_text_chars(d, tail_off, tail_len)
            and (processed < 0 or d.nodes[processed].tail_off < 0)):
        tail_elem = ng_new_element(c, NG_P, -1)
        if tail_elem < 0:
            return NS_ERROR
        r = ng_set_slot(d, tail_elem, False, d.text.data + tail_off, tail_len, False)
        if r != NS_OK:
            return r
        r = ng_process_node(c, tail_elem, &kept)
        if r != NS_OK:
            return r
        if kept >= 0 and ng_append(d, body, tail_elem) != NS_OK:
            return NS_ERROR
    return NS_OK


cdef int ng__extract(NgCtx* c, const NgSelectors* s, int32_t tree, int32_t* body_out, NgStr* temp_text,
                     uint64_t* potential_out) noexcept nogil:
    """main_extractor._extract: the result body (a new detached <body>), temp_text, and the
    potential tags it ended with."""
    cdef DocData* d = c.d
    cdef uint64_t potential = SQ_TAG_CATALOG, kinds
    cdef int32_t body, subtree, lead, start, k, i, last, n_other
    cdef Py_ssize_t plen
    cdef int r, factor, kind
    cdef bint others, single
    cdef NsVec subelems
    cdef Py_ssize_t j
    if c.o.tables:
        potential |= ng_bit(NG_TABLE) | ng_bit(NG_TD) | ng_bit(NG_TH) | ng_bit(NG_TR)
    if c.o.images:
        potential |= ng_bit(NG_GRAPHIC)
    if c.o.links:
        potential |= ng_bit(NG_REF)
    body = ng_new_element(c, NG_BODY, -1)
    if body < 0:
        return NS_ERROR
    body_out[0] = body
    nsv_init(&subelems)
    r = NS_OK
    for k in range(5):          # BODY_XPATH
        r = ng_first_body_match(c, s, k, tree, &subtree)
        if r != NS_OK:
            break
        if subtree < 0:
            continue
        r = ng_prune_unwanted_sections(c, s, subtree, potential, False)
        if r != NS_OK:
            break
        if d.nodes[subtree].first < 0:
            continue
        plen = ng_p_text_length(c, tree)
        factor = 1 if c.o.focus == NG_PRECISION else 3
        if plen == 0:
            r = ns_p_has_text_nodes(d, tree, c.name[NG_P])
            if r < 0:
                r = NS_ERROR
                break
            if r == 0:
                potential |= ng_bit(NG_DIV)
            r = NS_OK
        if plen < <Py_ssize_t>c.o.min_extracted_size * factor:
            potential |= ng_bit(NG_DIV)
        _sq_desc_kinds(c, subtree, &kinds, &others)
        single = not others and (kinds == ng_bit(NG_LB) or (
            ng_is(c, subtree, NG_DIV) and (potential >> NG_DIV) & 1 and (kinds & ~(<uint64_t>SQ_INLINE_FORMATTABLE_LB)) == 0))
        subelems.len = 0
        if single:
            if nsv_push(&subelems, subtree) < 0:
                r = NS_ERROR
                break
        else:
            r = _sq_dispatched(c, subtree, not (potential >> NG_DIV) & 1, not (potential >> NG_GRAPHIC) & 1, &subelems)
            if r != NS_OK:
                break
        lead = -1
        start = _sq_n_children(d, body)
        if not single and _sq_text_chars(d, d.nodes[subtree].text_off, d.nodes[subtree].text_len):
            r = _sq_new_p_with(c, d, d.nodes[subtree].text_off, d.nodes[subtree].text_len, &lead)
            if r != NS_OK:
                break
        for j in range(subelems.len):
            i = subelems.data[j]
            # moved into the body along with an emitted ancestor: visited already
            if _sq_root_of(d, i) == body:
                continue
            r = _sq_step(c, i, body, potential)
            if r != NS_OK:
                break
        if r != NS_OK:
            break
        while True:
            last = d.nodes[body].last
            if last < 0:
                break
            kind = ng_kind(c, last)
            if kind < 0 or not (SQ_NOT_AT_THE_END >> kind) & 1:
                break
            unlink_node(d, last)
        n_other = 0
        i = d.nodes[body].first
        while i >= 0:
            if not ng_is(c, i, NG_GRAPHIC):
                n_other += 1
            i = d.nodes[i].next
        if n_other > 1:
            if lead >= 0:
                dom_link_before(d, body, lead, _sq_child_at(d, body, start))
            break
    nsv_free(&subelems)
    if r != NS_OK:
        return r
    potential_out[0] = potential
    return ng_itertext_join_strip(d, body, temp_text)


# -- recover_wild_text, extract_content ---------------------------------------------------

cdef struct SqInline:
    # the inline selections of the sequence, resolved once per page with the GIL (after
    # ng_init interned the extraction's names, so that later elements keep resolving)
    NsInline wild
    NsInline wild_recall


cdef struct SqTexts:
    # recover_wild_text's dedup state: `existing` ("\n"-joined) and `existing_elems` (a list
    # of the texts, each as (offset, length) into `elems`)
    NgStr existing
    Py_ssize_t existing_cp
    NgStr elems
    NsVec spans           # pairs: offset, length


cdef bint _sq_in_elems(SqTexts* t, const uchar* p, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(0, t.spans.len, 2):
        # n 0: the empty text (memcmp must not see the NULL of an empty buffer)
        if t.spans.data[k + 1] == n and (n == 0 or memcmp(t.elems.p + t.spans.data[k], p, <size_t>n) == 0):
            return True
    return False


cdef int _sq_add_elem(SqTexts* t, const uchar* p, Py_ssize_t n) noexcept nogil:
    if _sq_in_elems(t, p, n):
        return NS_OK
    if n > 0x7FFFFFFF or t.elems.n > 0x7FFFFFFF - n:
        return NS_ERROR
    if nsv_push(&t.spans, <int32_t>t.elems.n) < 0 or nsv_push(&t.spans, <int32_t>n) < 0:
        return NS_ERROR
    return ngs_append(&t.elems, p, n)


cdef inline bint _sq_src_of(DocData* d, int32_t g, int32_t src_id, const uchar** v, Py_ssize_t* n) noexcept nogil:
    "``g.get('src')`` of trafilatura.main_extractor.recover_wild_text's image test: False for None, else True with the value's bytes."
    cdef int32_t k = dom_attr_find(d, g, src_id) if src_id >= 0 else -1
    if k < 0:
        return False
    _nx_attr_bytes(d, &d.attrs[k], v, n)
    return True


cdef int _sq_graphics_only_known(NgCtx* c, int32_t processed, int32_t body, bint* skip) noexcept nogil:
    """trafilatura.main_extractor.recover_wild_text's image-only test, asked when the text is empty:
    ``images = {img.get("src") for img in processed.iter("graphic")}``, ``skip`` = ``images and
    images <= {g.get("src") for g in result_body.iter("graphic")}`` (the live body; None a
    value like the others), compared as bytes."""
    cdef DocData* d = c.d
    cdef int32_t src_id = dom_lookup_name(d, <const uchar*>"src", 3)
    cdef int32_t i = processed, j
    cdef const uchar* v = NULL
    cdef const uchar* w = NULL
    cdef Py_ssize_t n = 0, m = 0
    cdef bint has, has2, found, any_graphic = False
    skip[0] = False
    while i >= 0:
        if ng_is(c, i, NG_GRAPHIC):
            any_graphic = True
            has = _sq_src_of(d, i, src_id, &v, &n)
            found = False
            j = body
            while j >= 0 and not found:
                if ng_is(c, j, NG_GRAPHIC):
                    has2 = _sq_src_of(d, j, src_id, &w, &m)
                    found = has2 == has and (not has or (m == n and (n == 0 or memcmp(v, w, <size_t>n) == 0)))
                j = dom_preorder_next(d, j, body)
            if not found:
                return NS_OK
        i = dom_preorder_next(d, i, processed)
    skip[0] = any_graphic
    return NS_OK


cdef int ng_recover_wild_text(NgCtx* c, const NgSelectors* s, SqInline* inl, int32_t tree, int32_t body,
                              uint64_t potential, const uint8_t* consumed, int32_t n_consumed) noexcept nogil:
    "main_extractor.recover_wild_text (``consumed``: a mark per node index below n_consumed)."
    cdef DocData* d = c.d
    cdef bint recall = c.o.focus == NG_RECALL, skip, dup, handled_anc, under_cap
    cdef NsVec subelems, handled
    cdef SqTexts t
    cdef NgStr text, frag
    cdef ExCollapse col
    cdef int32_t sub, processed, a, ch
    cdef Py_ssize_t k, m, text_cp
    cdef int r = NS_OK
    if recall:
        potential |= ng_bit(NG_DIV) | ng_bit(NG_LB)
    r = ng_prune_unwanted_sections(c, s, tree, potential, c.o.fast)
    if r != NS_OK:
        return r
    nsv_init(&subelems)
    nsv_init(&handled)
    ngs_init(&t.existing)
    ngs_init(&t.elems)
    nsv_init(&t.spans)
    t.existing_cp = 0
    ngs_init(&text)
    ngs_init(&frag)
    r = ns_select_inline(d, tree, &inl.wild_recall if recall else &inl.wild, &subelems)
    # the texts of what the main pass took
    ch = d.nodes[body].first if r == NS_OK else -1
    while ch >= 0:
        r = ng_elem_text(d, ch, &text)
        if r != NS_OK:
            break
        if text.n:
            if t.existing.n and ngs_append(&t.existing, <const uchar*>"\n", 1) != NS_OK:
                r = NS_ERROR
                break
            if ngs_append(&t.existing, text.p, text.n) != NS_OK:
                r = NS_ERROR
                break
        r = _sq_add_elem(&t, text.p, text.n)
        if r != NS_OK:
            break
        ch = d.nodes[ch].next
    t.existing_cp = ngs_code_points(t.existing.p, t.existing.n) if r == NS_OK else 0
    for k in range(subelems.len if r == NS_OK else 0):
        sub = subelems.data[k]
        if ng_is(c, sub, NG_DONE):
            continue
        if sub < n_consumed and consumed[sub]:
            continue
        if handled.len:
            handled_anc = False
            a = d.nodes[sub].parent
            while a >= 0 and not handled_anc:
                for m in range(handled.len):
                    if handled.data[m] == a:
                        handled_anc = True
                        break
                a = d.nodes[a].parent
            if handled_anc:
                continue
        r = ng_handle_textelem(c, sub, potential, &processed)
        if r != NS_OK:
            break
        if processed < 0:
            continue
        if processed == sub and nsv_push(&handled, sub) < 0:
            r = NS_ERROR
            break
        r = ng_elem_text(d, processed, &text)
        if r != NS_OK:
            break
        if text.n == 0:
            r = _sq_graphics_only_known(c, processed, body, &skip)
            if r != NS_OK:
                break
            if skip:
                continue
        # fragment = trim(text + (processed.tail or "")) when the tail has text
        frag.n = 0
        if _sq_text_chars(d, d.nodes[processed].tail_off, d.nodes[processed].tail_len):
            col.out = NULL
            col.len = 0
            col.pending = False
            col.started = False
            _ex_collapse_feed(&col, text.p, text.n)
            _ex_collapse_feed(&col, d.text.data + d.nodes[processed].tail_off, d.nodes[processed].tail_len)
            if ngs_reserve(&frag, col.len) != NS_OK:
                r = NS_ERROR
                break
            col.out = frag.p
            col.len = 0
            col.pending = False
            col.started = False
            _ex_collapse_feed(&col, text.p, text.n)
            _ex_collapse_feed(&col, d.text.data + d.nodes[processed].tail_off, d.nodes[processed].tail_len)
            frag.n = col.len
        under_cap = t.existing_cp <= SQ_DEDUPE_SCAN_CAP
        if text.n:
            text_cp = ngs_code_points(text.p, text.n)
            dup = _sq_in_elems(&t, text.p, text.n) or (under_cap and (
                (text_cp > SQ_MIN_DUPLICATE_LENGTH and ngs_contains(t.existing.p, t.existing.n, text.p, text.n))
                or (frag.n > 0 and ngs_contains(t.existing.p, t.existing.n, frag.p, frag.n))))
            if dup:
                continue
        if ng_append(d, body, processed) != NS_OK:
            r = NS_ERROR
            break
        if under_cap:
            if ngs_append(&t.existing, <const uchar*>"\n", 1) != NS_OK:
                r = NS_ERROR
                break
            if frag.n:
                r = ngs_append(&t.existing, frag.p, frag.n)
                t.existing_cp += 1 + ngs_code_points(frag.p, frag.n)
            else:
                r = ngs_append(&t.existing, text.p, text.n)
                t.existing_cp += 1 + ngs_code_points(text.p, text.n)
            if r != NS_OK:
                break
        r = _sq_add_elem(&t, text.p, text.n)
        if r != NS_OK:
            break
    nsv_free(&subelems)
    nsv_free(&handled)
    ngs_free(&t.existing)
    ngs_free(&t.elems)
    nsv_free(&t.spans)
    ngs_free(&text)
    ngs_free(&frag)
    return r


cdef int _sq_drop_repeats(DocData* d, int32_t body, Py_ssize_t min_length=SQ_MIN_DUPLICATE_LENGTH) noexcept nogil:
    """extract_content's adjacent-duplicate pass (also the accelerator's, extract_drop_repeats):
    each child whose _elem_text is non-empty, longer than ``min_length`` code points and equal
    to the previous kept child's leaves with its tail."""
    cdef NgStr prev, cur, tmp
    cdef bint have_prev = False
    cdef int32_t ch = d.nodes[body].first, nxt
    cdef int r = NS_OK
    ngs_init(&prev)
    ngs_init(&cur)
    while ch >= 0:
        nxt = d.nodes[ch].next
        r = ng_elem_text(d, ch, &cur)
        if r != NS_OK:
            break
        if (cur.n > 0 and have_prev and cur.n == prev.n and memcmp(cur.p, prev.p, <size_t>cur.n) == 0
                and ngs_code_points(cur.p, cur.n) > min_length):
            unlink_node(d, ch)
        else:
            tmp = prev
            prev = cur
            cur = tmp
            have_prev = True
        ch = nxt
    ngs_free(&prev)
    ngs_free(&cur)
    return r


cdef void _sq_lb_tails(NgCtx* c, int32_t top) noexcept nogil:
    """extract_content's last pass (also the accelerator's, extract_lb_tails): the tail of each
    <lb> in ``top`` (and ``top`` itself) that is whitespace only (not empty) is set to None
    unless an ancestor is a <code> or <pre>."""
    cdef DocData* d = c.d
    cdef int32_t i = top, a
    cdef Slot tl
    cdef bint protected
    while i >= 0:
        if ng_is(c, i, NG_LB):
            tl = _slot_of(d, i, True)
            if _slot_truthy(tl) and _slot_blank(d, tl):
                protected = False
                a = d.nodes[i].parent
                while a >= 0:
                    if ng_is(c, a, NG_CODE) or ng_is(c, a, NG_PRE):
                        protected = True
                        break
                    a = d.nodes[a].parent
                if not protected:
                    d.nodes[i].tail_off = -1
                    d.nodes[i].tail_len = 0
        i = dom_preorder_next(d, i, top)


cdef int ng_extract_content(NgCtx* c, const NgSelectors* s, SqInline* inl, int32_t cleaned, int32_t* body_out,
                            NgStr* temp_text) noexcept nogil:
    "main_extractor.extract_content: the result body and temp_text."
    cdef DocData* d = c.d
    cdef int32_t backup, body, i, j
    cdef uint64_t potential
    cdef NsVec order
    cdef uint8_t* consumed = NULL
    cdef int32_t n_consumed
    cdef Py_ssize_t k
    cdef int r
    backup = ng_copy_subtree(d, cleaned, True)
    if backup < 0:
        return NS_ERROR
    nsv_init(&order)
    i = cleaned
    while i >= 0:
        if nsv_push(&order, i) < 0:
            nsv_free(&order)
            return NS_ERROR
        i = dom_preorder_next(d, i, cleaned)
    r = ng__extract(c, s, cleaned, &body, temp_text, &potential)
    body_out[0] = body
    if r == NS_OK and (d.nodes[body].first < 0
                       or ngs_code_points(temp_text.p, temp_text.n) < c.o.min_extracted_size):
        n_consumed = d.n_nodes
        consumed = NULL if alloc_fails() else <uint8_t*>calloc(<size_t>n_consumed + 1, 1)
        if consumed == NULL:
            r = NS_ERROR
        else:
            j = backup
            k = 0
            while j >= 0 and k < order.len:
                if d.nodes[order.data[k]].tag == c.name[NG_DONE]:
                    consumed[j] = 1
                k += 1
                j = dom_preorder_next(d, j, backup)
            r = ng_recover_wild_text(c, s, inl, backup, body, potential, consumed, n_consumed)
            if r == NS_OK:
                r = ng_itertext_join_strip(d, body, temp_text)
    free(consumed)
    nsv_free(&order)
    if r != NS_OK:
        return r
    r = _sq_drop_repeats(d, body)
    if r != NS_OK:
        return r
    r = ng_strip_elements(c, body, ng_bit(NG_DONE), True)
    if r != NS_OK:
        return r
    r = ng_strip_tags(c, body, ng_bit(NG_DIV))
    if r != NS_OK:
        return r
    _sq_lb_tails(c, body)
    return NS_OK


# -- extract_comments ---------------------------------------------------------------------

cdef int ng_extract_comments(NgCtx* c, const NgSelectors* s, int32_t tree, int32_t* body_out,
                             NgStr* temp_comments) noexcept nogil:
    """main_extractor.extract_comments: the comments body (a new detached <body>) and its
    text; the comment section it took leaves the tree."""
    cdef DocData* d = c.d
    cdef int32_t body, subtree, el, processed
    cdef NsVec elems
    cdef Py_ssize_t j
    cdef int k, r = NS_OK
    body = ng_new_element(c, NG_BODY, -1)
    if body < 0:
        return NS_ERROR
    body_out[0] = body
    nsv_init(&elems)
    for k in range(4):          # COMMENTS_XPATH
        r = ng_first_comments_match(c, s, k, tree, &subtree)
        if r != NS_OK:
            break
        if subtree < 0:
            continue
        r = ng_prune_unwanted_nodes(c, s, NGL_COMMENTS_DISCARD, subtree, False)
        if r != NS_OK:
            break
        r = ng_strip_tags(c, subtree, ng_bit(NG_REF) | ng_bit(NG_SPAN))
        if r != NS_OK:
            break
        # the snapshot filtered first: no handle_textnode call renames an element not yet visited
        elems.len = 0
        r = _sq_vec_of_descendants(c, subtree, SQ_TAG_CATALOG, &elems)
        if r != NS_OK:
            break
        for j in range(elems.len):
            el = elems.data[j]
            if not ng_in(SQ_TAG_CATALOG, c, el):
                continue
            r = ng_handle_textnode(c, el, True, False, &processed)
            if r != NS_OK:
                break
            if processed < 0:
                continue
            d.nodes[processed].attr_count = 0
            if ng_append(d, body, processed) != NS_OK:
                r = NS_ERROR
                break
        if r != NS_OK:
            break
        if d.nodes[body].first >= 0:
            r = ng_delete(d, subtree, False)
            break
    nsv_free(&elems)
    if r != NS_OK:
        return r
    return ng_itertext_join_strip(d, body, temp_comments)


# -- external.compare_extraction -------------------------------------------------------------

cdef enum:
    SQ_SANITIZED_N = 20
    SQ_HEADINGS_N = 3

# external._SANITIZED_TAGS: a body holding one of these is "unclean", and jusText is tried
cdef const char* SQ_SANITIZED_NAMES[SQ_SANITIZED_N]
SQ_SANITIZED_NAMES[:] = [b"aside", b"audio", b"button", b"fencedframe", b"fieldset", b"figure", b"footer",
                         b"iframe", b"input", b"label", b"link", b"nav", b"noindex", b"noscript", b"object",
                         b"option", b"select", b"source", b"svg", b"time"]
# the headings _prefer_readability looks for in readability's output (recall)
cdef const char* SQ_HEADING_NAMES[SQ_HEADINGS_N]
SQ_HEADING_NAMES[:] = [b"h2", b"h3", b"h4"]

# what the body the sequence gives is, for the Python objects made of it
cdef enum:
    SQ_BODY_OWN = 0            # a new element: the root of an XML document of its own
    SQ_BODY_REPARSED = 1       # readability's: a node of its re-parsed HTML document
    SQ_BODY_REPARSED_COPY = 2  # tree_cleaning's recall copy of readability's: an HTML document's root

cdef Py_ssize_t SQ_JUSTEXT_OVERRIDE_RATIO = 3    # external.JUSTEXT_OVERRIDE_RATIO
cdef double SQ_ESCALATION_JUSTEXT_RATIO = 2.0   # core.ESCALATION_JUSTEXT_RATIO


# -- core.trafilatura_sequence ---------------------------------------------------------------

cdef enum:
    # where a page left the C sequence (sequence_stats)
    SQ_AT_FORUM = 0
    SQ_AT_RAW_PRUNE
    SQ_AT_CLEANING
    SQ_AT_CONVERSION
    SQ_AT_COMMENTS
    SQ_AT_EXTRACTION
    SQ_AT_BASELINE
    SQ_AT_HTML2TXT
    SQ_AT_RETRY
    SQ_AT_SALVAGE
    SQ_AT_COMMENTS_PRUNE
    SQ_AT_COMPARE
    SQ_AT_READABILITY
    SQ_AT_JUSTEXT
    SQ_AT_SANITIZE
    SQ_AT_DEDUP            # the deduplication cache (LRU_CAUSES: conflict, object value, overflow)
    SQ_AT_N

cdef Py_ssize_t SQ_NEED[SQ_AT_N]
cdef Py_ssize_t SQ_DONE = 0
cdef Py_ssize_t SQ_DEDUP_NEED[4]  # pages the cache handed back, by LRU_CAUSE_*
cdef const char* SQ_AT_NAMES[SQ_AT_N]
SQ_AT_NAMES[:] = [b"forum test", b"raw prune", b"cleaning", b"conversion", b"comments", b"extraction",
                  b"baseline", b"html2txt", b"recall retry", b"forum salvage", b"comments prune",
                  b"compare_extraction", b"readability", b"justext", b"sanitize_tree", b"deduplication"]

cdef double SQ_ESCALATION_PAGE_SHARE = 0.2     # core.ESCALATION_PAGE_SHARE
cdef Py_ssize_t SQ_ESCALATION_MAX_LENGTH = 3000 # core.ESCALATION_MAX_LENGTH
cdef double SQ_ESCALATION_ACCEPT_RATIO = 1.5   # core.ESCALATION_ACCEPT_RATIO


cdef struct SqOut:
    int32_t postbody
    int postbody_kind      # SQ_BODY_*
    int32_t commentsbody
    NgStr temp_text
    NgStr temp_comments
    int at                 # SQ_AT_* of a status other than NS_OK


cdef struct SqResolved:
    # what the sequence resolved with the GIL before its nogil part
    NgSelectors sel
    SqInline inl
    int32_t sanitized[SQ_SANITIZED_N]
    int32_t headings[SQ_HEADINGS_N]


cdef int _sq_resolve(CDocument doc, SqResolved* res) except -1:
    "The selectors of the sequence for this page (after ng_init interned the extraction's names)."
    ng_selectors_resolve(doc, &res.sel)
    _ni_resolve(doc, NI_WILD, &res.inl.wild)
    _ni_resolve(doc, NI_WILD_RECALL, &res.inl.wild_recall)
    return 0


cdef void _sq_release(SqResolved* res):
    ng_selectors_free(&res.sel)


# -- external.compare_extraction: the verdicts --------------------------------------------

cdef bint _sq_has_desc_in(DocData* d, int32_t top, const int32_t* ids, int n) noexcept nogil:
    "``any(e.tag in names for e in desc_list(top))``, the names as ids."
    cdef int32_t i = _preorder_next(d, top, top)
    cdef int k
    while i >= 0:
        for k in range(n):
            if d.nodes[i].tag == ids[k]:
                return True
        i = _preorder_next(d, i, top)
    return False


cdef bint _sq_has_text_piece(DocData* d, int32_t p) noexcept nogil:
    """``any(t is not None for t in p.itertext())``: a text slot of p or of a descendant, or a
    descendant's tail, that is not None (an empty one counts, as in itertext)."""
    cdef int32_t i
    if d.nodes[p].text_off >= 0:
        return True
    i = _preorder_next(d, p, p)
    while i >= 0:
        if d.nodes[i].text_off >= 0 or d.nodes[i].tail_off >= 0:
            return True
        i = _preorder_next(d, i, p)
    return False


cdef int _sq_trim_content_tail(DocData* d, int32_t top, NgStr* out) noexcept nogil:
    """``trim("".join(top.itertext()) + (top.tail or ""))`` into ``out`` (external's
    _text_serialisation, lxml's method="text", then utils.trim)."""
    cdef Py_ssize_t n = ng_trim_itertext(d, top, False, True, NULL)
    out.n = 0
    if n == 0:
        return NS_OK
    if ngs_reserve(out, n) != NS_OK:
        return NS_ERROR
    out.n = ng_trim_itertext(d, top, False, True, out.p)
    return NS_OK


cdef bint ng_prefer_readability(NgCtx* c, SqResolved* res, int32_t body, int32_t algo, const NgStr* algo_text,
                                Py_ssize_t len_text, Py_ssize_t len_algo) noexcept nogil:
    "external._prefer_readability: whether readability's output replaces the own extraction."
    cdef DocData* d = c.d
    cdef bint brace = algo_text.n > 0 and algo_text.p[0] == 123     # algo_text.startswith("{")
    cdef bint p_text = False
    cdef Py_ssize_t n_p = 0, n_tables = 0
    cdef int32_t i
    if len_algo == 0 or len_algo == len_text:
        return False
    if len_text > 2 * len_algo:
        return False
    if len_text == 0:
        return True
    if len_algo > 2 * len_text and not brace:
        return True
    if len_algo > <Py_ssize_t>c.o.min_extracted_size * 2:
        i = _preorder_next(d, body, body)
        while i >= 0:
            if d.nodes[i].tag == c.name[NG_P]:
                n_p += 1
                if not p_text:
                    p_text = _sq_has_text_piece(d, i)
            elif d.nodes[i].tag == c.name[NG_TABLE]:
                n_tables += 1
            i = _preorder_next(d, i, body)
        if not p_text or n_tables > n_p:
            return True
    if c.o.focus == NG_RECALL and <double>len_algo > 1.5 * <double>len_text and not brace:
        return True
    if (c.o.focus == NG_RECALL and len_algo > len_text
            and not _sq_has_desc_in(d, body, &c.name[NG_HEAD], 1)
            and (d.nodes[algo].tag == res.headings[0] or d.nodes[algo].tag == res.headings[1]
                 or d.nodes[algo].tag == res.headings[2]
                 or _sq_has_desc_in(d, algo, res.headings, SQ_HEADINGS_N))):
        return True
    return False


cdef int ng_compare_extraction(NgCtx* c, SqResolved* res, const NgJtStoplist* sl, int32_t backup, int32_t raw,
                               int32_t* body, int* body_kind, NgStr* text, int* at) noexcept nogil:
    """external.compare_extraction(backup, raw, body, text, options): the own extraction
    (``body``, ``text``) against readability's on ``raw`` (a copy of the page), then jusText
    on ``backup`` for an unclean or short result. ``body``/``text`` are replaced in place,
    ``body_kind`` (SQ_BODY_*) says what the body is."""
    cdef DocData* d = c.d
    cdef Py_ssize_t len_text = ngs_code_points(text.p, text.n), len_algo, len2 = 0
    cdef int32_t algo = -1, body2 = -1, sane = -1
    cdef NgStr algo_text
    cdef Buf buf
    cdef bint use, unclean, accept
    cdef int r
    if c.o.focus == NG_RECALL and len_text > <Py_ssize_t>c.o.min_extracted_size * 10:
        return NS_OK
    if c.o.focus == NG_PRECISION:
        at[0] = SQ_AT_COMPARE
        r = ng_prune_unwanted_nodes(c, &res.sel, NGL_OVERALL_DISCARD, raw, False)
        if r != NS_OK:
            return r
    at[0] = SQ_AT_READABILITY
    r = ng_try_readability(c, raw, &algo)
    if r != NS_OK:
        return r
    at[0] = SQ_AT_COMPARE
    ngs_init(&algo_text)
    if _sq_trim_content_tail(d, algo, &algo_text) != NS_OK:
        ngs_free(&algo_text)
        return NS_ERROR
    len_algo = ngs_code_points(algo_text.p, algo_text.n)
    use = ng_prefer_readability(c, res, body[0], algo, &algo_text, len_text, len_algo)
    if use:
        body[0] = algo
        body_kind[0] = SQ_BODY_REPARSED
        ngs_free(text)
        text[0] = algo_text
        ngs_init(&algo_text)
        len_text = len_algo
    ngs_free(&algo_text)

    unclean = _sq_has_desc_in(d, body[0], res.sanitized, SQ_SANITIZED_N)
    if unclean or len_text < c.o.min_extracted_size:
        at[0] = SQ_AT_JUSTEXT
        memset(&buf, 0, sizeof(Buf))
        r = ng_justext_rescue(c, sl, backup, &body2, &buf, &len2)
        if r == NS_OK:
            if unclean:
                accept = len_text <= SQ_JUSTEXT_OVERRIDE_RATIO * len2 and (
                    len2 > len_text or not c.o.images
                    or not _sq_has_desc_in(d, body[0], &c.name[NG_GRAPHIC], 1))
            else:
                accept = len_text < len2
            if buf.len and accept:
                body[0] = body2
                body_kind[0] = SQ_BODY_OWN
                text.n = 0
                r = ngs_append(text, buf.data, buf.len)
                use = False
        buf_free(&buf)
        if r != NS_OK:
            return r

    if use:
        at[0] = SQ_AT_SANITIZE
        memset(&buf, 0, sizeof(Buf))
        r = ng_sanitize_tree(c, body[0], &sane, &buf, &len2)
        if r == NS_OK:
            if sane != body[0]:
                body_kind[0] = SQ_BODY_REPARSED_COPY
            body[0] = sane
            text.n = 0
            r = ngs_append(text, buf.data, buf.len)
        buf_free(&buf)
        return r
    return NS_OK


cdef int _sq_prepare(NgCtx* c, SqResolved* res, int32_t tree, int32_t* cleaned, int32_t* backup,
                     bint need_backup, int* at) noexcept nogil:
    "core._prepare_tree: a cleaned and converted copy, and the backup taken between the two."
    cdef int r
    cdef int32_t copy = ng_copy_subtree(c.d, tree, True)
    backup[0] = -1
    if copy < 0:
        return NS_ERROR
    at[0] = SQ_AT_CLEANING
    r = ng_tree_cleaning(c, copy)
    cleaned[0] = copy
    if r != NS_OK:
        return r
    if need_backup:
        backup[0] = ng_copy_subtree(c.d, cleaned[0], True)
        if backup[0] < 0:
            return NS_ERROR
    at[0] = SQ_AT_CONVERSION
    return ng_convert_tags(c, cleaned[0], c.o.base_url)


cdef int _sq_extract_and_compare(NgCtx* c, SqResolved* res, const NgJtStoplist* sl, int32_t cleaned,
                                 int32_t backup, int32_t tree, int32_t* body, int* body_kind, NgStr* text,
                                 int* at) noexcept nogil:
    "core._extract_and_compare: extract_content, then (not fast) compare_extraction on a copy of ``tree``."
    cdef int r
    cdef int32_t raw
    at[0] = SQ_AT_EXTRACTION
    body_kind[0] = SQ_BODY_OWN
    r = ng_extract_content(c, &res.sel, &res.inl, cleaned, body, text)
    if r != NS_OK or c.o.fast:
        return r
    raw = ng_copy_subtree(c.d, tree, True)
    if raw < 0:
        return NS_ERROR
    return ng_compare_extraction(c, res, sl, backup, raw, body, body_kind, text, at)


cdef int ng_trafilatura_sequence(NgCtx* c, SqResolved* res, const NgJtStoplist* sl, int32_t tree,
                                 SqOut* out) noexcept nogil:
    """core.trafilatura_sequence on ``tree``, a private copy of the page (changed in place as
    the reference changes its tree), with the options of ``c.o`` (formatting, links and images
    off: the caller checks) and deduplication in ``c.lru`` (or off: NULL). ``sl``: jusText's stoplist for the options'
    language (only read when not fast)."""
    cdef DocData* d = c.d
    cdef int32_t work, cleaned, backup, forum_posts = -1, esc, r_body = -1, b_body = -1, j_body = -1
    cdef int32_t ch, nxt
    cdef bint is_forum = False, salvaged
    cdef int r_kind = SQ_BODY_OWN
    cdef Py_ssize_t len_text, b_len = 0, page_len = 0, r_len, j_len = 0
    cdef NgStr r_text, existing, t
    cdef Buf b_text, j_text
    cdef int r, focus
    out.postbody = -1
    out.postbody_kind = SQ_BODY_OWN
    out.commentsbody = -1
    ngs_init(&r_text)
    ngs_init(&existing)
    ngs_init(&t)
    work = tree     # the caller's private copy: trafilatura_sequence prunes its tree in place
    out.at = SQ_AT_FORUM
    r = ng_forum_thread_page(c, work, &is_forum)
    if r != NS_OK:
        return r
    out.at = SQ_AT_RAW_PRUNE
    r = ng_prune_unwanted_nodes(c, &res.sel, NGL_RAW_TREE_PRUNE, work, False)
    if r != NS_OK:
        return r
    if not c.o.comments and (c.o.focus == NG_PRECISION or not is_forum):
        out.at = SQ_AT_COMMENTS_PRUNE
        r = ng_prune_unwanted_nodes(c, &res.sel, NGL_REMOVE_COMMENTS_AND_LISTS, work, False)
        if r != NS_OK:
            return r
    r = _sq_prepare(c, res, work, &cleaned, &backup, not c.o.fast or (c.o.comments and is_forum), &out.at)
    if r != NS_OK:
        return r
    if c.o.comments:
        out.at = SQ_AT_COMMENTS
        r = ng_extract_comments(c, &res.sel, cleaned, &out.commentsbody, &out.temp_comments)
        if r != NS_OK:
            return r
        if out.temp_comments.n and is_forum:
            forum_posts = out.commentsbody
            out.commentsbody = -1
            out.temp_comments.n = 0
            cleaned = ng_copy_subtree(d, backup, True)
            if cleaned < 0:
                return NS_ERROR
            out.at = SQ_AT_CONVERSION
            r = ng_convert_tags(c, cleaned, c.o.base_url)
            if r != NS_OK:
                return r
    if out.commentsbody < 0:
        out.commentsbody = ng_new_element(c, NG_BODY, -1)
        if out.commentsbody < 0:
            return NS_ERROR
    if c.o.focus == NG_PRECISION and not is_forum:
        out.at = SQ_AT_COMMENTS_PRUNE
        r = ng_prune_unwanted_nodes(c, &res.sel, NGL_REMOVE_COMMENTS, cleaned, False)
        if r != NS_OK:
            return r
    r = _sq_extract_and_compare(c, res, sl, cleaned, backup, work, &out.postbody, &out.postbody_kind,
                                &out.temp_text, &out.at)
    if r != NS_OK:
        return r
    len_text = ngs_code_points(out.temp_text.p, out.temp_text.n)

    # baseline rescue on the raw tree
    if len_text < c.o.min_extracted_size and c.o.focus != NG_PRECISION:
        out.at = SQ_AT_BASELINE
        memset(&b_text, 0, sizeof(Buf))
        r = ng_baseline(c, work, &b_body, &b_text, &b_len)
        if r == NS_OK and b_len > len_text:
            out.postbody = b_body
            out.postbody_kind = SQ_BODY_OWN
            out.temp_text.n = 0
            r = ngs_append(&out.temp_text, b_text.data, b_text.len)
            len_text = b_len
            forum_posts = -1
        buf_free(&b_text)
        if r != NS_OK:
            return r

    # recall escalation
    if c.o.focus == NG_BALANCED and 0 < len_text < SQ_ESCALATION_MAX_LENGTH:
        out.at = SQ_AT_HTML2TXT
        r = ng_html2txt_len(c, work, True, &page_len)
        if r != NS_OK:
            return r
    if (c.o.focus == NG_BALANCED and 0 < len_text < SQ_ESCALATION_MAX_LENGTH
            and <double>len_text < SQ_ESCALATION_PAGE_SHARE * <double>page_len):
        out.at = SQ_AT_RETRY
        if is_forum or not c.o.comments:
            esc = work
        else:
            esc = ng_copy_subtree(d, work, True)
            if esc < 0:
                return NS_ERROR
            r = ng_prune_unwanted_nodes(c, &res.sel, NGL_REMOVE_COMMENTS_AND_LISTS if out.temp_comments.n
                                        else NGL_REMOVE_COMMENTS, esc, False)
            if r != NS_OK:
                return r
        focus = c.o.focus
        c.o.focus = NG_RECALL
        r = _sq_prepare(c, res, esc, &cleaned, &backup, not c.o.fast, &out.at)
        if r == NS_OK:
            r = _sq_extract_and_compare(c, res, sl, cleaned, backup, esc, &r_body, &r_kind, &r_text, &out.at)
        c.o.focus = focus
        if r != NS_OK:
            ngs_free(&r_text)
            return r
        r_len = ngs_code_points(r_text.p, r_text.n)
        # jusText reaches div-buried content the retry misses (not fast)
        memset(&j_text, 0, sizeof(Buf))
        if not c.o.fast:
            out.at = SQ_AT_JUSTEXT
            esc = ng_copy_subtree(d, esc, True)
            r = NS_ERROR if esc < 0 else ng_justext_rescue(c, sl, esc, &j_body, &j_text, &j_len)
            if r != NS_OK:
                buf_free(&j_text)
                ngs_free(&r_text)
                return r
        if j_len > r_len and <double>j_len > SQ_ESCALATION_JUSTEXT_RATIO * <double>len_text:
            out.postbody = j_body
            out.postbody_kind = SQ_BODY_OWN
            out.temp_text.n = 0
            r = ngs_append(&out.temp_text, j_text.data, j_text.len)
            forum_posts = -1
        elif r_len >= c.o.min_extracted_size and <double>r_len > SQ_ESCALATION_ACCEPT_RATIO * <double>len_text:
            out.postbody = r_body
            out.postbody_kind = r_kind
            ngs_free(&out.temp_text)
            out.temp_text = r_text
            ngs_init(&r_text)
            forum_posts = -1
        buf_free(&j_text)
        ngs_free(&r_text)
        if r != NS_OK:
            return r

    # forum posts the cascade kept out: the ones missing from the body are appended
    if forum_posts >= 0:
        out.at = SQ_AT_SALVAGE
        ch = d.nodes[out.postbody].first
        r = NS_OK
        while ch >= 0 and r == NS_OK:
            r = ng_elem_text(d, ch, &t)
            if r == NS_OK and t.n:
                if existing.n:
                    r = ngs_append(&existing, <const uchar*>"\n", 1)
                if r == NS_OK:
                    r = ngs_append(&existing, t.p, t.n)
            ch = d.nodes[ch].next
        salvaged = False
        ch = d.nodes[forum_posts].first
        while ch >= 0 and r == NS_OK:
            nxt = d.nodes[ch].next
            r = ng_elem_text(d, ch, &t)
            if r == NS_OK and t.n and not ngs_contains(existing.p, existing.n, t.p, t.n):
                r = ng_append(d, out.postbody, ch)
                salvaged = True
            ch = nxt
        if r == NS_OK and salvaged:
            r = ng_itertext_join_strip(d, out.postbody, &out.temp_text)
        ngs_free(&existing)
        ngs_free(&t)
        if r != NS_OK:
            return r
    return NS_OK


cdef object _sq_own_document(CDocument src, int32_t i, bint is_html=False):
    """The body ``i`` as the reference has it: the root of a new document of its own
    (``Element("body")``: XML; a copy_tree of an HTML document's node: HTML), its content
    copied there."""
    cdef CDocument doc = CDocument()
    cdef int32_t j
    doc.is_html = is_html
    with nogil:
        j = dom_copy_subtree(&src.d, i, &doc.d, True)
    if j < 0 or not dom_add_root(&doc.d, j):
        _raise_doc_error(doc)
    return _proxy(doc, j)


cdef object _sq_reparsed_document(CDocument src, int32_t i):
    """readability's body ``i`` as the reference has it: a node of the HTML document its
    summary was re-parsed into, ancestors, siblings and tail included (xmltotxt renders the
    tail; the Document's body keeps its parents)."""
    cdef CDocument doc = CDocument()
    cdef int32_t top = i, j, k = 0, s
    doc.is_html = True
    while src.d.nodes[top].parent >= 0:
        top = src.d.nodes[top].parent
    s = top
    while s != i:
        s = _preorder_next(&src.d, s, top)
        k += 1
    with nogil:
        j = dom_copy_subtree(&src.d, top, &doc.d, True)
    if j < 0 or not dom_add_root(&doc.d, j):
        _raise_doc_error(doc)
    # the copy has the same shape: i's place in the preorder finds its twin
    s = j
    while k:
        s = _preorder_next(&doc.d, s, j)
        k -= 1
    return _proxy(doc, s)


cdef inline object _sq_str(NgStr* s):
    return utf8_str(s.p, s.n) if s.n else ""


cdef SqResolved* _SQ_TEMPLATE = NULL
cdef CDocument _SQ_TEMPLATE_DOC = None


cdef SqResolved* _sq_template() except NULL:
    """The selectors resolved once per process, against a document holding only names: every
    name the extraction and the selectors use, interned first. A page's working copy starts
    from that name table (share_names), so the ids resolved here are its ids too, and no
    page pays for a resolve (the Python objects behind it, with the GIL)."""
    global _SQ_TEMPLATE, _SQ_TEMPLATE_DOC
    cdef CDocument doc
    cdef SqResolved* res
    cdef int32_t ids[NG_N]
    if _SQ_TEMPLATE != NULL:
        return _SQ_TEMPLATE
    doc = CDocument()
    res = <SqResolved*>calloc(1, sizeof(SqResolved))
    if res == NULL:
        raise MemoryError()
    if (ng_intern_names(&doc.d, NG_NAMES, NG_N, ids) != NS_OK
            or ng_intern_names(&doc.d, SQ_SANITIZED_NAMES, SQ_SANITIZED_N, res.sanitized) != NS_OK
            or ng_intern_names(&doc.d, SQ_HEADING_NAMES, SQ_HEADINGS_N, res.headings) != NS_OK):
        free(res)
        _raise_doc_error(doc)
    try:
        _sq_resolve(doc, res)
    except BaseException:
        _sq_release(res)
        free(res)
        raise
    if _SQ_TEMPLATE != NULL:
        # another thread made one while the resolve ran Python (the GIL can change hands
        # there): keep the first, so that every page pairs the same names with the same ids
        _sq_release(res)
        free(res)
        return _SQ_TEMPLATE
    _SQ_TEMPLATE_DOC = doc
    _SQ_TEMPLATE = res
    return res


cdef dict _SQ_FOCUS = {"balanced": NG_BALANCED, "precision": NG_PRECISION, "recall": NG_RECALL}


def sequence_231(CElement tree not None, options, bint with_output=False, dedup_cache=None):
    """core.trafilatura_sequence(tree, options) for 2.3.1, run without the GIL:
    ``(postbody, temp_text, commentsbody, temp_comments)`` as the reference gives them, or
    NotImplemented when the C met something only the reference decides exactly, or for
    options it has no C for (links with a URL whose base URL is not empty, images with a URL,
    both counted at the conversion; a fast, comments, tables, formatting, links or images
    option that is no bool,
    a size option that is no int32; deduplication with a ``dedup_cache`` that
    is no CLRUCache or a min_duplcheck_size / max_repetitions that is no C long). This is the
    one place that decides (core.py's _native_sequence only picks the cache). The C works on a
    copy of the page in a document of its own: ``tree`` is never changed (the reference then
    runs on it). Deduplication: ``dedup_cache`` is the cache duplicate_test would count in
    (deduplication.cache_of); the page's counts go there in one transaction, committed when the
    C answers, dropped when it hands the page back (the reference then counts it), a conflict
    with another thread's counts handing it back too. ``with_output``: a fifth item, the txt
    output of the two bodies (determine_returnstring for txt or markdown, the markdown walk
    with formatting on), or None where the C output hands back (NFC, a tree the Python walk
    renders)."""
    cdef CDocument doc = tree.doc
    cdef SqResolved* res
    cdef const NgJtStoplist* sl = NULL
    cdef CDocument work
    cdef NgCtx c
    cdef NgOpts o
    cdef SqOut out
    cdef Buf text
    cdef LruTxn txn
    cdef LruTxn* lru = NULL
    cdef long min_dupl = 0, max_rep = 0
    cdef int32_t root = -1
    cdef int r, ro = NS_NEED_PYTHON
    global SQ_DONE
    doc._check(tree.idx)
    focus = _SQ_FOCUS.get(options.focus) if type(options.focus) is str else None
    if (focus is None or type(options.fast) is not bool or type(options.comments) is not bool
            or type(options.tables) is not bool or type(options.formatting) is not bool
            or type(options.links) is not bool or type(options.images) is not bool):
        return NotImplemented
    if (options.images or options.links) and options.url is not None:
        from trafila.v2_3_1.core import sequence_url_reason
        if sequence_url_reason(options.links, options.images, options.url) is not None:
            # counted at the conversion, where the URL would be read
            SQ_NEED[SQ_AT_CONVERSION] += 1
            return NotImplemented
    for v in (options.min_extracted_size, options.min_output_size, options.min_output_comm_size):
        if type(v) is not int or not 0 <= v < 2**31:
            return NotImplemented
    if options.dedup:
        if type(dedup_cache) is not CLRUCache:
            return NotImplemented
        for v in (options.min_duplcheck_size, options.max_repetitions):
            if type(v) is not int or not -LONG_MAX <= v <= LONG_MAX:
                return NotImplemented
        min_dupl = options.min_duplcheck_size
        max_rep = options.max_repetitions
    memset(&o, 0, sizeof(NgOpts))
    o.focus = focus
    o.fast = options.fast
    o.comments = options.comments
    o.tables = options.tables
    o.formatting = options.formatting
    o.links = options.links
    o.images = options.images
    o.has_url = options.url is not None
    o.min_extracted_size = options.min_extracted_size
    o.min_output_size = options.min_output_size
    o.min_output_comm_size = options.min_output_comm_size
    res = _sq_template()
    if not o.fast:
        sl = ng_jt_stoplist(options.lang)
    work = CDocument()
    memset(&text, 0, sizeof(Buf))
    memset(&c, 0, sizeof(NgCtx))
    memset(&txn, 0, sizeof(LruTxn))
    ngs_init(&out.temp_text)
    ngs_init(&out.temp_comments)
    out.at = SQ_AT_FORUM
    work.is_html = doc.is_html
    # shared with the GIL held: the template's counts are set up once, not raced for
    if not share_names(&_SQ_TEMPLATE_DOC.d, &work.d):
        raise MemoryError()
    try:
        if options.dedup:
            lru_txn_begin(&txn, <CLRUCache>dedup_cache)
            lru = &txn
            o.dedup = True
        with nogil:
            root = dom_copy_subtree(&doc.d, tree.idx, &work.d, True)
            if root < 0 or not dom_add_root(&work.d, root):
                r = NS_ERROR
            else:
                r = ng_init(&c, &work.d)
                c.o = o
                c.lru = lru
                c.min_duplcheck_size = min_dupl
                c.max_repetitions = max_rep
                r = ng_trafilatura_sequence(&c, res, sl, root, &out) if r == NS_OK else r
                if lru != NULL:
                    # the counts go in only with the page's answer: a page handed back is counted
                    # by the reference's rerun instead
                    if r == NS_OK:
                        r = lru_txn_commit(lru)
                    else:
                        lru_txn_abort(lru)
                    if r == NS_NEED_PYTHON and lru.cause != LRU_CAUSE_NONE:
                        out.at = SQ_AT_DEDUP
                if r == NS_OK and with_output:
                    ro = ng_determine_returnstring(&c, out.postbody, out.commentsbody, &text)
        if r == NS_OK:
            SQ_DONE += 1
            if ro == NS_ERROR:
                _raise_doc_error(work)
            if out.postbody_kind == SQ_BODY_REPARSED:
                postbody = _sq_reparsed_document(work, out.postbody)
            else:
                postbody = _sq_own_document(work, out.postbody, out.postbody_kind == SQ_BODY_REPARSED_COPY)
            result = (postbody, _sq_str(&out.temp_text),
                      _sq_own_document(work, out.commentsbody), _sq_str(&out.temp_comments))
            if with_output:
                result += ((utf8_str(text.data, text.len) if text.len else "") if ro == NS_OK else None,)
            return result
        if r == NS_ERROR and work.d.error:
            _raise_doc_error(work)
        SQ_NEED[out.at] += 1
        if out.at == SQ_AT_DEDUP and 0 <= txn.cause < 4:
            SQ_DEDUP_NEED[txn.cause] += 1
        return NotImplemented
    finally:
        if lru != NULL:
            lru_txn_end(lru)
        ng_free(&c)
        buf_free(&text)
        ngs_free(&out.temp_text)
        ngs_free(&out.temp_comments)


def sequence_stats(bint reset=False, str mode="2.3.1"):
    """``{"done": pages the C sequence gave, "need_python": {stage: pages it handed back},
    "deduplication": {cause: pages the cache handed back (stage "deduplication")}}`` since the
    last reset (this process); ``mode="1.11.0"``: sequence_1_11_0's (no deduplication entry)."""
    global SQ_DONE
    cdef int k
    if mode == "1.11.0":
        return _sequence_stats_1_11_0(reset)
    stats = {"done": SQ_DONE, "need_python": {SQ_AT_NAMES[k].decode(): SQ_NEED[k] for k in range(SQ_AT_N)},
             "deduplication": {LRU_CAUSES[k]: SQ_DEDUP_NEED[k] for k in range(1, 4)}}
    if reset:
        SQ_DONE = 0
        for k in range(SQ_AT_N):
            SQ_NEED[k] = 0
        for k in range(4):
            SQ_DEDUP_NEED[k] = 0
    return stats


def sequence_tables():
    "The tables and constants the C sequence carries (tests compare them with the reference's)."
    cdef int k
    return {
        "sanitized": frozenset(SQ_SANITIZED_NAMES[k].decode() for k in range(SQ_SANITIZED_N)),
        "headings": tuple(SQ_HEADING_NAMES[k].decode() for k in range(SQ_HEADINGS_N)),
        "JUSTEXT_OVERRIDE_RATIO": SQ_JUSTEXT_OVERRIDE_RATIO,
        "ESCALATION_JUSTEXT_RATIO": SQ_ESCALATION_JUSTEXT_RATIO,
        "ESCALATION_PAGE_SHARE": SQ_ESCALATION_PAGE_SHARE,
        "ESCALATION_MAX_LENGTH": SQ_ESCALATION_MAX_LENGTH,
        "ESCALATION_ACCEPT_RATIO": SQ_ESCALATION_ACCEPT_RATIO,
    }
