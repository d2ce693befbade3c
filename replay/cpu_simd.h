/* cpu_simd.h: what the cpu backend's hand-written x86 vector loops share (cpu_pool.c's max
 * pools, cpu_bn.c's batch norm + ReLU (+ pool)): the target attributes of their always-inline
 * helpers, how far ahead they prefetch, and the packing of window positions into bytes. Private
 * to the cpu backend; included after cpu_internal.h. Where CPU_SIMD_X86 is 0 (not x86-64 GCC or
 * Clang) nothing else is defined and the files run their scalar loops or the library's.
 */
#ifndef TTA_REPLAY_CPU_SIMD_H
#define TTA_REPLAY_CPU_SIMD_H

#include "replay/cpu_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <stdint.h>
#define CPU_SIMD_X86 1

/* Reads are prefetched this many bytes ahead of each stream: the hardware's prefetch alone left
 * a one-thread pool1 forward (data out of cache) at 8 GB/s; 2,048 bytes ahead gave 3.7-4.0 ->
 * 2.7-3.4 ms with 8-float vectors, 2.8-3.1 -> 2.6-2.7 ms with 16 (1,024 to 4,096 measured alike). */
enum { CPU_PF_AHEAD = 2048 };

#define AVX2_INLINE static inline __attribute__((always_inline)) CPU_TARGET_AVX2
#define AVX512_INLINE static inline __attribute__((always_inline)) CPU_TARGET_AVX512

/* Stores the 8 int32 lanes of v (each 0..255: a window position) as 8 bytes at p. */
AVX2_INLINE void cpu_store_pos8(uint8_t *p, __m256i v) {
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1,
                                          -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, pick), _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1));
    _mm_storel_epi64((__m128i *)p, _mm256_castsi256_si128(b));
}
#else
#define CPU_SIMD_X86 0
#endif

#endif
