# Steps 5a-5b of docs/nogil-fast-inventory.md: main_extractor's handlers (2.3.1) without the GIL,
# over NgCtx (nogil_frame.pxi). Each ``ng_<upstream name>`` gives a status (NS_*) and its result
# through ``out`` (a node index, -1 for the reference's None).
#
# Until the handlers land, every one answers NS_NEED_PYTHON (nothing changed).

cdef int ng_process_node(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "htmlprocessing.process_node (no deduplication): ``out`` = i or -1."
    out[0] = -1
    return NS_NEED_PYTHON


cdef int ng_handle_textnode(NgCtx* c, int32_t i, bint comments_fix, bint preserve_spaces, int32_t* out) noexcept nogil:
    "htmlprocessing.handle_textnode (no deduplication): ``out`` = i or -1."
    out[0] = -1
    return NS_NEED_PYTHON


cdef int ng_is_text_element(NgCtx* c, int32_t i, bint* out) noexcept nogil:
    "main_extractor.is_text_element (i >= 0)."
    out[0] = False
    return NS_NEED_PYTHON


cdef int ng_define_newelem(NgCtx* c, int32_t processed, int32_t orig, bint keep_children) noexcept nogil:
    "main_extractor.define_newelem (processed -1: None)."
    return NS_NEED_PYTHON


cdef int ng_append_block(NgCtx* c, int32_t parent, int32_t processed, int32_t source) noexcept nogil:
    "main_extractor._append_block (processed -1: None)."
    return NS_NEED_PYTHON


cdef int ng_handle_lists(NgCtx* c, int32_t i, int32_t* out) noexcept nogil:
    "main_extractor.handle_lists."
    out[0] = -1
    return NS_NEED_PYTHON


cdef int ng_handle_textelem(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    "main_extractor.handle_textelem with ``potential_tags`` as NG_* bits."
    out[0] = -1
    return NS_NEED_PYTHON
