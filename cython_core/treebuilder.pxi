# Tree construction (trafila.html.treebuilder.TreeBuilder): libxml2 2.14.6's
# element stack rules plus the SAX2 builder, on the C document.
#
# Pending characters (not yet linked into .text/.tail) are the bytes of the
# text arena after ``p.pend``: nothing else is written to that arena while
# characters are pending, so a flush usually only sets a slice.

cdef enum:
    INSERT_INITIAL = 1
    INSERT_IN_HEAD = 3
    INSERT_IN_BODY = 10
    MAX_DEPTH = 256
    STACK_CAP = 264       # names can hold one more than nodes (the halting push)
    NAME_BUFFER = 100


cdef struct Parser:
    const uchar* s
    Py_ssize_t n
    Py_ssize_t pos
    int mode              # libxml2: ctxt->endCheckState
    DocData* d
    int32_t names[STACK_CAP]
    int32_t nodes[STACK_CAP]
    int n_names
    int n_nodes
    int insert_mode
    int depth
    int stopped
    Py_ssize_t pend       # start of the pending characters in d.text
    Buf scratch           # decoded text of html/head/no element (split before it is added)
    int has_doctype
    int32_t dt_name_off
    int32_t dt_name_len
    int32_t dt_pub_off
    int32_t dt_pub_len
    int32_t dt_sys_off
    int32_t dt_sys_len


cdef inline int32_t cur_name(Parser* p) noexcept nogil:
    return p.names[p.n_names - 1] if p.n_names else -1


cdef inline bint names_contain(Parser* p, int32_t name) noexcept nogil:
    cdef int i
    for i in range(p.n_names):
        if p.names[i] == name:
            return True
    return False


cdef inline int end_priority(int32_t nid) noexcept nogil:
    return CORE_KNOWN_PRIO[nid] if 0 <= nid < N_KNOWN else 100


cdef void flush_text(Parser* p) noexcept nogil:
    """Link pending characters: into the current node's text or its last child's tail."""
    cdef DocData* d = p.d
    cdef Py_ssize_t n = d.text.len - p.pend
    cdef Node* nd
    cdef int32_t* off
    cdef int32_t* ln
    cdef int32_t old_off, old_len
    if n <= 0 or p.n_nodes == 0:
        return
    nd = &d.nodes[p.nodes[p.n_nodes - 1]]
    if nd.last >= 0:
        nd = &d.nodes[nd.last]
        off = &nd.tail_off
        ln = &nd.tail_len
    else:
        off = &nd.text_off
        ln = &nd.text_len
    if off[0] < 0:
        off[0] = <int32_t>p.pend
        ln[0] = <int32_t>n
    elif off[0] + ln[0] == p.pend:
        ln[0] += <int32_t>n
    else:
        # the slot's text is elsewhere: write old + pending anew at the end
        old_off = off[0]
        old_len = ln[0]
        if not buf_reserve(&d.text, old_len + n, &d.error):
            p.stopped = 1
            return
        memcpy(d.text.data + d.text.len, d.text.data + old_off, <size_t>old_len)
        memcpy(d.text.data + d.text.len + old_len, d.text.data + p.pend, <size_t>n)
        off[0] = <int32_t>d.text.len
        ln[0] = <int32_t>(old_len + n)
        d.text.len += old_len + n
    p.pend = d.text.len


cdef inline void characters(Parser* p, const uchar* s, Py_ssize_t n) noexcept nogil:
    # libxml2: xmlSAX2Text -- dropped when no element is open
    if n > 0 and p.n_nodes and not p.stopped:
        if not buf_append(&p.d.text, s, n, &p.d.error):
            p.stopped = 1


cdef void start_element(Parser* p, int32_t name, int32_t attr_start, int32_t attr_count) noexcept nogil:
    """Push ``name`` and link a new element (libxml2: htmlnamePush + xmlSAX2StartHtmlElement)."""
    cdef DocData* d = p.d
    cdef int32_t i, parent
    cdef Attr* a
    if d.text.len > p.pend:
        flush_text(p)
    if name == ID_HEAD and p.insert_mode < INSERT_IN_HEAD:
        p.insert_mode = INSERT_IN_HEAD
    elif name == ID_BODY and p.insert_mode < INSERT_IN_BODY:
        p.insert_mode = INSERT_IN_BODY
    if p.n_names >= STACK_CAP:
        p.stopped = 1  # unreachable: nodes stop at MAX_DEPTH first
        return
    p.names[p.n_names] = name
    p.n_names += 1
    if p.n_nodes >= MAX_DEPTH:
        # libxml2: nodePush fails -> xmlHaltParser; lxml keeps the tree so far
        p.stopped = 1
        return
    # libxml2: xmlSAX2HtmlAttribute -- a valueless boolean attribute gets its name
    for i in range(attr_start, attr_start + attr_count):
        a = &d.attrs[i]
        if a.kind == AV_NO_VALUE and (known_flags(a.name) & F_BOOLEAN_ATTR):
            a.kind = AV_OWN_NAME
    parent = p.nodes[p.n_nodes - 1] if p.n_nodes else -1
    i = new_node(d, name, parent, attr_start, attr_count)
    if i < 0:
        p.stopped = 1
        return
    p.nodes[p.n_nodes] = i
    p.n_nodes += 1


cdef inline void end_element(Parser* p) noexcept nogil:
    """Pop the current element (libxml2: endElement + htmlnamePop)."""
    if p.d.text.len > p.pend:
        flush_text(p)
    if p.n_names:
        p.n_names -= 1
    if p.n_nodes:
        p.n_nodes -= 1


cdef inline void auto_close(Parser* p, int32_t newtag) noexcept nogil:
    """Pop while the new start tag closes the current element (libxml2: htmlAutoClose)."""
    cdef int32_t top
    if newtag < 0 or newtag >= N_KNOWN:
        return
    while p.n_names:
        top = p.names[p.n_names - 1]
        if top >= N_KNOWN or not CORE_START_CLOSE[newtag * N_KNOWN + top]:
            return
        end_element(p)


cdef void auto_close_on_close(Parser* p, int32_t newtag) noexcept nogil:
    """libxml2: htmlAutoCloseOnClose"""
    cdef int priority = end_priority(newtag)
    cdef int i = p.n_names - 1
    while i >= 0:
        if p.names[i] == newtag:
            break
        if end_priority(p.names[i]) > priority:
            return
        i -= 1
    if i < 0:
        return
    while p.n_names and p.names[p.n_names - 1] != newtag:
        end_element(p)


cdef inline void auto_close_on_end(Parser* p) noexcept nogil:
    while p.n_names:
        end_element(p)


cdef void check_implied(Parser* p, int32_t newtag) noexcept nogil:
    """Open the html/head/body a new tag (or text) needs (libxml2: htmlCheckImplied)."""
    cdef int f
    if newtag == ID_HTML:
        return
    if not p.n_names:
        start_element(p, ID_HTML, p.d.n_attrs, 0)
    if newtag == ID_BODY or newtag == ID_HEAD:
        return
    f = known_flags(newtag)
    if p.n_names <= 1 and (f & F_HEAD_ONLY):
        if p.insert_mode >= INSERT_IN_HEAD:
            return
        start_element(p, ID_HEAD, p.d.n_attrs, 0)
    elif not (f & F_NO_IMPLIED_BODY):
        if p.insert_mode >= INSERT_IN_BODY:
            return
        if names_contain(p, ID_BODY) or names_contain(p, ID_HEAD):
            return
        start_element(p, ID_BODY, p.d.n_attrs, 0)


cdef inline void start_char_data(Parser* p) noexcept nogil:
    """Before non-blank text: close a current head, imply html/body (libxml2: htmlStartCharData)."""
    if p.n_names and p.names[p.n_names - 1] == ID_HEAD:
        auto_close(p, ID_P)
    check_implied(p, ID_P)


cdef inline bint is_ws(uchar c) noexcept nogil:
    # libxml2: IS_WS_HTML (no vertical tab)
    return c == 0x20 or c == 0x09 or c == 0x0A or c == 0x0C or c == 0x0D


cdef void char_data_split(Parser* p, const uchar* t, Py_ssize_t n) noexcept nogil:
    """htmlCharDataSAXCallback for text arriving with html/head/no element current:
    leading whitespace stays there, the rest implies what it needs."""
    cdef Py_ssize_t k = 0
    while k < n and is_ws(t[k]):
        k += 1
    if k:
        characters(p, t, k)
    if k == n:
        return
    start_char_data(p)
    if p.stopped:
        return
    characters(p, t + k, n - k)
