/* hash.h: a fast 64-bit content hash for deciding whether a file changed since it was ingested.
 * Not cryptographic: it guards against accidental change, not an adversary. */
#ifndef TTA_COMMON_HASH_H
#define TTA_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Hash of n bytes at p with the given seed; processes 32 bytes per round (four lanes). */
uint64_t tta_hash64(const void *p, size_t n, uint64_t seed);
/* Writes the hash as 16 lowercase hex digits and a NUL into out[17]. */
void tta_hash_hex(uint64_t h, char out[17]);

#endif
