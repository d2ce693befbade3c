/* kernels_host_emu.h: just enough of CUDA's execution model, in host C++, to run kernels.cu on
 * a machine without a GPU (test_kernels_host.cpp). Not a simulator: it has no device memory
 * (pointers are host pointers), no streams (every launch runs to completion before it
 * returns) and no warps; it gives each launch its grid of blocks and threads and
 * __syncthreads, which is all kernels.cu relies on.
 *
 * replay/CMakeLists.txt generates the emulated source from kernels.cu at configure time: it
 * includes this header after cuda_internal.h and rewrites each launch
 * `k<<<grid, THREADS, 0, s>>>(args)` into EMU_LAUNCH(k, grid, THREADS, args) (or
 * EMU_LAUNCH_SYNC for the kernels that call __syncthreads), so the kernel bodies compiled
 * here are exactly those nvcc compiles.
 */
#ifndef TTA_REPLAY_CUDA_KERNELS_HOST_EMU_H
#define TTA_REPLAY_CUDA_KERNELS_HOST_EMU_H

#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

#undef __global__
#undef __device__
#undef __shared__
#define __global__
#define __device__
/* per block: blocks run one after the other, so one static array serves each block in turn */
#define __shared__ static

struct emu_dim {
    unsigned x = 0, y = 0, z = 0;
};
inline thread_local emu_dim threadIdx, blockIdx;
inline emu_dim blockDim, gridDim;
inline std::barrier<> *emu_block_barrier;

inline void __syncthreads() { emu_block_barrier->arrive_and_wait(); }

/* Float arithmetic rounded at each operation, as on the device (the host build contracts
 * nothing: no FMA target). */
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }

/* Runs kernel f over grid x block threads one thread after the other: correct for kernels
 * whose threads do not wait for each other (no __syncthreads). */
template <class F, class... A> void emu_launch(unsigned grid, unsigned block, F f, A... a) {
    gridDim.x = grid;
    blockDim.x = block;
    for (unsigned b = 0; b < grid; b++)
        for (unsigned t = 0; t < block; t++) {
            blockIdx.x = b;
            threadIdx.x = t;
            f(a...);
        }
}

/* Runs each block's threads as real threads meeting at a barrier (__syncthreads), one block
 * after the other. */
template <class F, class... A> void emu_launch_sync(unsigned grid, unsigned block, F f, A... a) {
    gridDim.x = grid;
    blockDim.x = block;
    for (unsigned b = 0; b < grid; b++) {
        std::barrier<> bar(block);
        emu_block_barrier = &bar;
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; t++)
            threads.emplace_back([=] {
                blockIdx.x = b;
                threadIdx.x = t;
                f(a...);
            });
        for (auto &th : threads) th.join();
    }
}

#define EMU_LAUNCH(k, grid, block, ...) emu_launch(grid, block, k, __VA_ARGS__)
#define EMU_LAUNCH_SYNC(k, grid, block, ...) emu_launch_sync(grid, block, k, __VA_ARGS__)

/* The two runtime calls kernels.cu makes, on host memory (this header is included by one
 * translation unit: the emulated kernels). */
extern "C" cudaError_t cudaGetLastError(void) { return cudaSuccess; }
extern "C" cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) {
    std::memset(p, v, n);
    return cudaSuccess;
}

#endif
