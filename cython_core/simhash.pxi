# trafilatura's text fingerprint (deduplication.Simhash) in C: the sampled tokens' 64-bit
# blake2b values tallied per bit in one array, where upstream (and reference/trafila/simhash.py)
# adds a 64-entry list of +1/-1 per token. The sampling stays in the reference (it has
# 2.3.1's and 1.11.0's rules); every output format but txt and markdown computes one per page.
# tests: test_core_simhash.py

from hashlib import blake2b as _sh_blake2b


# upstream: trafilatura.deduplication.Simhash.create_hash
def simhash_votes(list tokens, int length):
    """Charikar's hash of already sampled ``tokens``: bit i is set when the tokens' votes for
    bit i (+1 where the token's 64-bit blake2b value, read big-endian, has bit i, else -1) sum
    to >= 0. ``length`` from 0 to 64 (a longer hash: the reference)."""
    cdef long long totals[64]
    cdef unsigned long long value, result = 0
    cdef const unsigned char* raw
    cdef bytes digest
    cdef int bit, k
    if length < 0 or length > 64:
        raise ValueError("simhash_votes: length from 0 to 64")
    for bit in range(64):
        totals[bit] = 0
    for token in tokens:
        digest = _sh_blake2b((<str?>token).encode(), digest_size=8).digest()
        if len(digest) != 8:
            raise ValueError("simhash_votes: an 8-byte digest expected")
        raw = <const unsigned char*>digest
        value = 0
        for k in range(8):
            value = (value << 8) | raw[k]
        for bit in range(length):
            if (value >> bit) & 1:
                totals[bit] += 1
            else:
                totals[bit] -= 1
    for bit in range(length):
        if totals[bit] >= 0:
            result |= (<unsigned long long>1) << bit
    return result
