# Step 5c of docs/nogil-fast-inventory.md: main_extractor.handle_table (2.3.1) without the GIL.
#
# Until it lands, it answers NS_NEED_PYTHON (nothing changed).

cdef int ng_handle_table(NgCtx* c, int32_t i, uint64_t potential, int32_t* out) noexcept nogil:
    "main_extractor.handle_table with ``potential_tags`` as NG_* bits: ``out`` = the new table or -1."
    out[0] = -1
    return NS_NEED_PYTHON
