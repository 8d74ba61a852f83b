# jusText 3.0.2's ParagraphMaker over a core tree (trafila/justext/core.py):
# the lxml.sax event walk and the handler's state machine in one pass over the
# C document, with normalize_whitespace done on the UTF-8 bytes. The Python
# side builds the Paragraph objects from the parts.

from cpython.unicode cimport Py_UNICODE_ISSPACE, PyUnicode_FromKindAndData, PyUnicode_4BYTE_KIND


cdef inline Py_UCS4 _cp_at(const uchar* s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t* width) noexcept nogil:
    """The code point starting at byte ``i`` (the arenas hold valid UTF-8; a
    truncated sequence counts as one byte)."""
    cdef uchar c = s[i]
    if c < 0x80:
        width[0] = 1
        return c
    if c >= 0xF0 and i + 3 < n:
        width[0] = 4
        return ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F)
    if c >= 0xE0 and i + 2 < n:
        width[0] = 3
        return ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
    if c >= 0xC0 and i + 1 < n:
        width[0] = 2
        return ((c & 0x1F) << 6) | (s[i + 1] & 0x3F)
    width[0] = 1
    return c


cdef object _jt_normalized(const uchar* s, Py_ssize_t n, Py_ssize_t* length):
    """jusText's normalize_whitespace of the slice, or None when it is blank
    (``is_blank``); ``length`` gets the result's length in code points.

    A run of Python whitespace (``re``'s ``\\s``: Py_UNICODE_ISSPACE) becomes
    "\\n" when it holds a "\\n" or "\\r", else " "."""
    cdef Py_ssize_t i = 0, w = 0, out_len = 0, cps = 0
    cdef Py_UCS4 cp
    cdef bint blank = True, in_run = False, run_break = False
    cdef bytearray out
    cdef uchar* o
    if n <= 0:
        return None
    out = bytearray(n)
    o = <uchar*>(<char*>out)
    while i < n:
        cp = _cp_at(s, n, i, &w)
        if Py_UNICODE_ISSPACE(cp):
            if not in_run:
                in_run = True
                run_break = False
            if cp == 10 or cp == 13:
                run_break = True
        else:
            if in_run:
                o[out_len] = 10 if run_break else 32
                out_len += 1
                cps += 1
                in_run = False
            blank = False
            memcpy(o + out_len, s + i, <size_t>w)
            out_len += w
            cps += 1
        i += w
    if blank:
        return None
    if in_run:
        o[out_len] = 10 if run_break else 32
        out_len += 1
        cps += 1
    length[0] = cps
    return utf8_str(o, out_len)


cdef class _JtParagraph:
    cdef public str dom
    cdef public str xpath
    cdef public list texts
    cdef public Py_ssize_t links
    cdef public Py_ssize_t tags
    cdef public bint real    # some characters() text (not only a <br>'s " ")


cdef class _JtMaker:
    cdef list doms       # per open element: its dom path and xpath (jusText's PathInfo steps)
    cdef list xpaths
    cdef list counts     # per open element: {child name: count}
    cdef list out
    cdef _JtParagraph par
    cdef bint link
    cdef bint br
    cdef frozenset paragraph_tags

    cdef str _dom(self):
        return self.doms[len(self.doms) - 1] if self.doms else ""

    cdef str _xpath(self):
        return self.xpaths[len(self.xpaths) - 1] if self.xpaths else "/"

    cdef void new_paragraph(self):
        cdef _JtParagraph p = self.par
        if p is not None and p.real:
            self.out.append((p.dom, p.xpath, p.texts, p.links, p.tags))
        p = _JtParagraph.__new__(_JtParagraph)
        p.dom = self._dom()
        p.xpath = self._xpath()
        p.texts = []
        p.links = 0
        p.tags = 0
        p.real = False
        self.par = p

    cdef void start(self, str name):
        cdef dict parent_counts
        cdef int order
        if self.counts:
            parent_counts = self.counts[len(self.counts) - 1]
        else:
            parent_counts = {}  # the top level keeps no counter (a fresh dict each time)
        order = parent_counts.get(name, 0) + 1
        parent_counts[name] = order
        if self.doms:
            self.doms.append(self.doms[len(self.doms) - 1] + "." + name)
            self.xpaths.append("%s/%s[%d]" % (self.xpaths[len(self.xpaths) - 1], name, order))
        else:
            self.doms.append(name)
            self.xpaths.append("/%s[%d]" % (name, order))
        self.counts.append({})
        if name in self.paragraph_tags or (name == "br" and self.br):
            if name == "br":
                self.par.tags -= 1
            self.new_paragraph()
        else:
            self.br = name == "br"
            if self.br:
                self.par.texts.append(" ")
            elif name == "a":
                self.link = True
            self.par.tags += 1

    cdef void end(self, str name):
        self.doms.pop()
        self.xpaths.pop()
        self.counts.pop()
        if name in self.paragraph_tags:
            self.new_paragraph()
        if name == "a":
            self.link = False

    cdef void characters(self, DocData* d, int32_t off, int32_t n):
        cdef Py_ssize_t length = 0
        text = _jt_normalized(d.text.data + off, n, &length)
        if text is None:
            return
        self.par.texts.append(text)
        self.par.real = True
        if self.link:
            self.par.links += length
        self.br = False


cdef str _jt_local(CDocument doc, int32_t nid):
    cdef str tag = doc.name_str(nid)
    if tag[:1] == "{":
        return tag.split("}", 1)[1]
    return tag


def justext_paragraph_parts(CElement root, frozenset paragraph_tags):
    """``ParagraphMaker.make_paragraphs(root)``'s paragraphs as parts, in
    order: (dom_path, xpath, text_nodes, chars_count_in_links, tags_count)."""
    cdef CDocument doc = root.doc
    cdef DocData* d = &doc.d
    cdef int32_t top = root.idx, i
    cdef _JtMaker m = _JtMaker.__new__(_JtMaker)
    doc._check(top)
    m.doms, m.xpaths, m.counts, m.out = [], [], [], []
    m.link = m.br = False
    m.paragraph_tags = paragraph_tags
    m.par = None
    m.new_paragraph()
    # lxml.sax order: start, text, children, end, tail -- the root's tail too
    i = top
    while True:
        m.start(_jt_local(doc, d.nodes[i].tag))
        if d.nodes[i].text_off >= 0 and d.nodes[i].text_len > 0:
            m.characters(d, d.nodes[i].text_off, d.nodes[i].text_len)
        if d.nodes[i].first >= 0:
            i = d.nodes[i].first
            continue
        while True:
            m.end(_jt_local(doc, d.nodes[i].tag))
            if d.nodes[i].tail_off >= 0 and d.nodes[i].tail_len > 0:
                m.characters(d, d.nodes[i].tail_off, d.nodes[i].tail_len)
            if i == top:
                m.new_paragraph()
                return m.out
            if d.nodes[i].next >= 0:
                i = d.nodes[i].next
                break
            i = d.nodes[i].parent


def stopwords_density(str text, frozenset stopwords):
    """jusText's ``Paragraph.stopwords_density``: the share of ``text.split()``'s words
    whose ``lower()`` is a stopword (0 for no words). The words and their lower case are
    str's own methods; only the generator and the sum leave Python."""
    cdef list words = text.split()
    cdef Py_ssize_t n = len(words), k = 0
    cdef object word
    if n == 0:
        return 0
    for word in words:
        if (<str>word).lower() in stopwords:
            k += 1
    # k and n are exact as doubles (< 2**53): one IEEE division is Python's int / int
    return <double>k / <double>n


def jt_paragraph_text(list text_nodes):
    """``normalize_whitespace("".join(text_nodes).strip())``, jusText's paragraph text, in
    one pass: the ends' whitespace dropped, each inner run of Python whitespace
    (Py_UNICODE_ISSPACE, which is both ``str.strip()``'s and ``re``'s ``\\s``) made "\\n"
    when it holds a "\\n" or "\\r", else " ". (Normalising first and stripping after gives
    the same string: an end run becomes one character, which the strip drops.)"""
    cdef Py_ssize_t total = 0, out_len = 0
    cdef object node
    cdef Py_UCS4 ch
    cdef Py_UCS4* buf
    cdef bint started = False, in_run = False, run_break = False
    for node in text_nodes:
        if type(node) is not str:
            raise TypeError("text nodes are str")
        total += len(<str>node)
    if total == 0:
        return ""
    buf = <Py_UCS4*>malloc(<size_t>total * sizeof(Py_UCS4))
    if buf == NULL:
        raise MemoryError()
    try:
        for node in text_nodes:
            for ch in <str>node:
                if Py_UNICODE_ISSPACE(ch):
                    if started:
                        if not in_run:
                            in_run = True
                            run_break = False
                        if ch == 10 or ch == 13:
                            run_break = True
                    continue
                if in_run:
                    buf[out_len] = 10 if run_break else 32
                    out_len += 1
                    in_run = False
                started = True
                buf[out_len] = ch
                out_len += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, out_len)
    finally:
        free(buf)
