# Pages handed to extract_batch's worker processes (trafila/_workers.py) as their PEP 393
# code units: the calling process copies a str's buffer into the memory it shares with the
# worker as it is, and the worker makes an equal str from it. Neither side encodes: UTF-8
# was the calling process's main cost (most of the corpora's non-ASCII pages are UCS-2).

# (PyUnicode_FromKindAndData: cimported from cpython.unicode in accel.pxi)


def put_str_units(str page, unsigned char[::1] into not None, Py_ssize_t offset, Py_ssize_t end):
    """Copy ``page``'s code units (``len(page) * kind`` bytes) into ``into[offset:end]``
    from ``offset``; returns the kind (1, 2 or 4), or 0 when they do not fit there or
    ``offset`` is not a multiple of the kind (the worker reads them as C units in place)."""
    cdef int kind = PyUnicode_KIND(page)
    cdef Py_ssize_t length = PyUnicode_GET_LENGTH(page)
    if offset < 0 or end > into.shape[0] or offset > end or length > (end - offset) // kind or offset % kind:
        return 0
    cdef unsigned char* target = &into[offset] if length else NULL
    cdef const void* units = PyUnicode_DATA(page)
    if length * kind >= 65536:  # the calling thread reads the workers' results meanwhile
        with nogil:
            memcpy(target, units, <size_t>(length * kind))
    elif length:
        memcpy(target, units, <size_t>(length * kind))
    return kind


def take_str_units(const unsigned char[::1] source not None, Py_ssize_t offset, int kind, Py_ssize_t length):
    """The str whose ``length`` code units of ``kind`` bytes :func:`put_str_units` wrote at
    ``offset`` (the narrowest kind that holds them, as every str; surrogates kept)."""
    if kind != 1 and kind != 2 and kind != 4:
        raise ValueError(f"not a PEP 393 kind: {kind}")
    if offset < 0 or length < 0 or offset > source.shape[0] or length > (source.shape[0] - offset) // kind:
        raise ValueError("code units outside the shared memory")
    if offset % kind:
        raise ValueError("code units not aligned for their kind")
    if length == 0:
        return ""
    return PyUnicode_FromKindAndData(kind, &source[offset], length)
