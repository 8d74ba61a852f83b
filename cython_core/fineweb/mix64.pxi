# One 64-bit finaliser for the FineWeb twins' open-addressing tables (the tokenizer's chunk
# cache, the n-gram counts): MurmurHash3's fmix64, so neighbouring hashes land far apart.


cdef inline uint64_t mix64(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h
