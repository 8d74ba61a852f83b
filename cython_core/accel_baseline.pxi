# 2.3.1 baseline's html2txt without its copy and its deletions
# (trafila/v2_3_1/baseline.py): ``_spaced_text_readonly(basic_cleaning(copy))``
# read off the uncleaned tree. basic_cleaning deletes the selected elements in
# document order with lxml's drop_tree: each deleted element's tail joins the
# tail of its nearest previous sibling still there, or its parent's text. So
# the walk skips the deleted subtrees and reads each kept slot as its own
# string followed by the tails that would have joined it. A join lxml's setter
# would refuse (a refused character in the tail or in the slot it joins), a
# selection out of document order or outside the element: NotImplemented,
# and the caller copies and deletes as upstream does.

cdef inline bint _bl_refused(const uchar* s, Py_ssize_t n) noexcept nogil:
    """lxml's text check would refuse the UTF-8 slice: C0 controls other than TAB/LF/CR,
    U+FFFE, U+FFFF, a surrogate."""
    cdef Py_ssize_t i
    cdef uchar b
    for i in range(n):
        b = s[i]
        if b < 0x20:
            if b != 9 and b != 10 and b != 13:
                return True
        elif b == 0xEF and i + 2 < n and s[i + 1] == 0xBF and (s[i + 2] == 0xBE or s[i + 2] == 0xBF):
            return True
        elif b == 0xED and i + 1 < n and s[i + 1] >= 0xA0:
            return True
    return False


cdef inline bint _bl_slot_refused(DocData* d, int32_t off, int32_t n) noexcept nogil:
    return off >= 0 and n > 0 and _bl_refused(d.text.data + off, n)


# byte classes. _BL_WS: 1 ASCII whitespace (Py_UNICODE_ISSPACE), 2 a lead byte that can
# start a non-ASCII whitespace character (U+0085, U+00A0, U+1680, U+2000-U+3000: C2,
# E1-E3), 0 otherwise. _BL_SCAN: 1 a byte xml_text refuses after remove_control_characters
# (\x0b, \x0c, \x1c-\x1f), 2 one remove_control_characters drops from an ASCII string
# (\x00-\x08, \x0e-\x1b, \x7f), 4 not ASCII.
cdef uint8_t _BL_WS[256]
cdef uint8_t _BL_SCAN[256]


cdef void _bl_init_tables() noexcept nogil:
    cdef int i
    for i in range(256):
        _BL_WS[i] = 0
        _BL_SCAN[i] = 0
        if i == 32 or (9 <= i <= 13) or (28 <= i <= 31):
            _BL_WS[i] = 1
        if i == 0xC2 or (0xE1 <= i <= 0xE3):
            _BL_WS[i] = 2
        if i == 0x0B or i == 0x0C or (0x1C <= i <= 0x1F):
            _BL_SCAN[i] |= 1
        if i <= 0x08 or (0x0E <= i <= 0x1B) or i == 0x7F:
            _BL_SCAN[i] |= 2
        if i >= 0x80:
            _BL_SCAN[i] |= 4


_bl_init_tables()


cdef extern from "Python.h":
    # the running interpreter's Unicode database (str.isprintable / str.isspace), no GIL needed
    bint _bl_isprintable "Py_UNICODE_ISPRINTABLE" (Py_UCS4 ch) noexcept nogil
    bint _bl_isspace "Py_UNICODE_ISSPACE" (Py_UCS4 ch) noexcept nogil


cdef void _bl_feed_printables(Collapse* c, const uchar* s, Py_ssize_t n) noexcept nogil:
    """remove_control_characters then the feed: the characters neither printable nor
    whitespace dropped (for each character, what ``return_printables_and_spaces`` keeps;
    a printable string keeps them all, so this is the function's result either way)."""
    cdef Py_ssize_t i = 0, start = 0, w = 0
    cdef Py_UCS4 cp
    while i < n:
        cp = _cp_at(s, n, i, &w)
        if not (_bl_isprintable(cp) or _bl_isspace(cp)):
            _bl_feed(c, s + start, i - start)
            start = i + w
        i += w
    _bl_feed(c, s + start, n - start)


cdef inline uint8_t _bl_scan(const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint8_t acc = 0
    for i in range(n):
        acc |= _BL_SCAN[s[i]]
    return acc


cdef void _bl_feed(Collapse* c, const uchar* s, Py_ssize_t n) noexcept nogil:
    """``" ".join(text.split())``'s share of the UTF-8 slice: the words copied a run at a
    time, one space between words (whitespace is Py_UNICODE_ISSPACE's, as _collapse_feed)."""
    cdef Py_ssize_t i = 0, j, out
    cdef uint8_t k
    cdef uchar* o
    if n <= 0:
        return
    # each word gets at most one space, which needs a whitespace byte before it or the
    # pending one of an earlier slice: n + 1 bytes hold the output
    if not buf_reserve(&c.out, n + 1, &c.err):
        return
    o = c.out.data
    out = c.out.len
    while i < n:
        k = _BL_WS[s[i]]
        if k == 1:
            c.pending = True
            i += 1
            continue
        if k == 2:
            j = _ws_len(s, i, n)
            if j:
                c.pending = True
                i += j
                continue
        if c.pending and out > 0:
            o[out] = 32
            out += 1
        c.pending = False
        j = i + 1
        while j < n:
            k = _BL_WS[s[j]]
            if k == 1 or (k == 2 and _ws_len(s, j, n)):
                break
            j += 1
        memcpy(o + out, s + i, <size_t>(j - i))
        out += j - i
        i = j
    c.out.len = out


cdef void _bl_feed_ascii_printables(Collapse* c, const uchar* s, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, start = 0
    for i in range(n):
        if _BL_SCAN[s[i]] & 2:
            _bl_feed(c, s + start, i - start)
            start = i + 1
    _bl_feed(c, s + start, n - start)


cdef int _bl_piece(Collapse* c, DocData* d, int32_t off, int32_t n, bint block, bint first, object rcc,
                   object xml_text) except -1:
    """One piece of a kept slot. Plain slots feed their bytes. A block slot is
    ``xml_text(" " + remove_control_characters(s))`` (" " when None or empty): its first
    piece brings the space and, holding a character xml_text refuses after rcc (\x0b,
    \x0c, \x1c-\x1f: the refused characters rcc keeps, as whitespace), is handed to the
    reference functions to raise their error (as _block_part); the tails joined to it
    hold none lxml refuses. Then rcc in C (_bl_feed_printables)."""
    cdef const uchar* s
    cdef bytes b
    cdef uint8_t scan
    if block and first:
        _bl_feed(c, <const uchar*>b" ", 1)
    if off < 0 or n <= 0:
        return 0
    s = d.text.data + off
    if not block:
        _bl_feed(c, s, n)
        return 0
    scan = _bl_scan(s, n)
    if scan == 0:
        _bl_feed(c, s, n)
    elif first and (scan & 1):
        value = xml_text(" " + rcc(slice_str(&d.text, off, n)))  # raises ValueError
        b = (<str>value).encode("utf-8")
        _bl_feed(c, <const uchar*><const char*>b, len(b))
    elif not (scan & 4):
        _bl_feed_ascii_printables(c, s, n)
    else:
        _bl_feed_printables(c, s, n)
    return 0


cdef int _bl_text_slot(Collapse* c, DocData* d, int32_t s, const uint8_t* doomed, bint block, object rcc,
                       object xml_text) except -1:
    """s.text, then the tails of the deleted children before its first kept child."""
    cdef int32_t k
    _bl_piece(c, d, d.nodes[s].text_off, d.nodes[s].text_len, block, True, rcc, xml_text)
    k = d.nodes[s].first
    while doomed != NULL and k >= 0 and doomed[k]:
        _bl_piece(c, d, d.nodes[k].tail_off, d.nodes[k].tail_len, block, False, rcc, xml_text)
        k = d.nodes[k].next
    return 0


cdef int _bl_tail_slot(Collapse* c, DocData* d, int32_t s, const uint8_t* doomed, bint block, object rcc,
                       object xml_text) except -1:
    """s.tail, then the tails of the deleted siblings up to the next kept one."""
    cdef int32_t k
    _bl_piece(c, d, d.nodes[s].tail_off, d.nodes[s].tail_len, block, True, rcc, xml_text)
    k = d.nodes[s].next
    while doomed != NULL and k >= 0 and doomed[k]:
        _bl_piece(c, d, d.nodes[k].tail_off, d.nodes[k].tail_len, block, False, rcc, xml_text)
        k = d.nodes[k].next
    return 0


cdef inline bint _bl_block(const uint8_t* blk, int32_t nb, int32_t tag) noexcept nogil:
    return 0 <= tag < nb and blk[tag] != 0


cdef inline int32_t _bl_kept(DocData* d, int32_t k, const uint8_t* doomed) noexcept nogil:
    while doomed != NULL and k >= 0 and doomed[k]:
        k = d.nodes[k].next
    return k


def spaced_text_cleaned(CElement el not None, list deleted, object block_names, object rcc, object xml_text):
    """``_spaced_text_readonly`` of ``el`` as it would be once each element of ``deleted``
    (``basic_clean_xpath(el)``, in document order) were deleted with delete_element;
    ``el``'s tree is not changed. NotImplemented: see the comment above."""
    cdef CDocument doc = el.doc
    cdef DocData* d = &doc.d
    cdef int32_t top = el.idx, s, k, t, nid, last_pos = 0, n = d.n_nodes, counter = 0
    cdef int32_t nb = N_KNOWN + d.n_names
    cdef uint8_t* blk = NULL     # per name id: a block name
    cdef uint8_t* doomed = NULL
    cdef int32_t* pos = NULL
    cdef Collapse c
    cdef CElement e
    doc._check(top)
    if not isinstance(block_names, (set, frozenset, tuple, list)):
        block_names = tuple(block_names)
    memset(&c, 0, sizeof(Collapse))
    try:
        blk = NULL if alloc_fails() else <uint8_t*>calloc(<size_t>nb + 1, 1)
        if blk == NULL:
            raise MemoryError()
        if deleted:
            # (nothing deleted: no per-node arrays, doomed stays NULL)
            doomed = NULL if alloc_fails() else <uint8_t*>calloc(<size_t>n + 1, 1)
            pos = NULL if alloc_fails() else <int32_t*>calloc(<size_t>n + 1, sizeof(int32_t))
            if doomed == NULL or pos == NULL:
                raise MemoryError()
        for name in block_names:
            if not isinstance(name, str):
                continue  # equal to no tag (and _lookup would take bytes)
            nid = _lookup(doc, name)  # a name the document never saw: no node has it
            if 0 <= nid < nb:
                blk[nid] = 1
        if deleted:
            # preorder positions in el's subtree (0: not in it; el is 1)
            with nogil:
                s = top
                while True:
                    counter += 1
                    pos[s] = counter
                    if d.nodes[s].first >= 0:
                        s = d.nodes[s].first
                        continue
                    while s != top and d.nodes[s].next < 0:
                        s = d.nodes[s].parent
                    if s == top:
                        break
                    s = d.nodes[s].next
            for item in deleted:
                if type(item) is not CElement:
                    return NotImplemented
                e = <CElement>item
                if e.doc is not doc or e.idx < 0 or e.idx >= n or pos[e.idx] <= last_pos or pos[e.idx] <= 1:
                    return NotImplemented
                last_pos = pos[e.idx]
                doomed[e.idx] = 1
            # every join lxml's setter checks must pass: the tail and the slot it joins
            for item in deleted:
                k = (<CElement>item).idx
                if d.nodes[k].tail_off < 0 or d.nodes[k].tail_len <= 0:
                    continue
                if _bl_slot_refused(d, d.nodes[k].tail_off, d.nodes[k].tail_len):
                    return NotImplemented
                t = d.nodes[k].prev
                while t >= 0 and doomed[t]:
                    t = d.nodes[t].prev
                if t >= 0:
                    if _bl_slot_refused(d, d.nodes[t].tail_off, d.nodes[t].tail_len):
                        return NotImplemented
                else:
                    t = d.nodes[k].parent
                    if t < 0 or _bl_slot_refused(d, d.nodes[t].text_off, d.nodes[t].text_len):
                        return NotImplemented
        # the root's tail is only checked (upstream writes it, text_content leaves it out)
        if (_bl_block(blk, nb, d.nodes[top].tag) and d.nodes[top].tail_off >= 0 and d.nodes[top].tail_len > 0
                and _xml_refused_after_rcc(d.text.data + d.nodes[top].tail_off, d.nodes[top].tail_len)):
            xml_text(" " + rcc(slice_str(&d.text, d.nodes[top].tail_off, d.nodes[top].tail_len)))
        s = top
        _bl_text_slot(&c, d, s, doomed, _bl_block(blk, nb, d.nodes[s].tag), rcc, xml_text)
        while True:
            if c.err:
                _raise_doc_error_code(c.err)
            k = _bl_kept(d, d.nodes[s].first, doomed)
            if k >= 0:
                s = k
                _bl_text_slot(&c, d, s, doomed, _bl_block(blk, nb, d.nodes[s].tag), rcc, xml_text)
                continue
            while True:
                if s == top:
                    break
                _bl_tail_slot(&c, d, s, doomed, _bl_block(blk, nb, d.nodes[s].tag), rcc, xml_text)
                k = _bl_kept(d, d.nodes[s].next, doomed)
                if k >= 0:
                    s = k
                    _bl_text_slot(&c, d, s, doomed, _bl_block(blk, nb, d.nodes[s].tag), rcc, xml_text)
                    break
                s = d.nodes[s].parent
            if s == top:
                break
        if c.err:
            _raise_doc_error_code(c.err)
        return PyUnicode_DecodeUTF8(<const char*>c.out.data, c.out.len, NULL)
    finally:
        free(blk)
        free(doomed)
        free(pos)
        buf_free(&c.out)
