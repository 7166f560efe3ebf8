// TMA-store epilogue (CUDA Programming Guide, "Using TMA to transfer multi-dimensional arrays": writing
// shared memory to global memory with a tensor store; PTX ISA 9.2 §9.7.9.25.5.2 cp.async.bulk.tensor,
// §9.7.9.25.6 cp.async.bulk.commit_group / wait_group, §9.7.13.4 fence.proxy.async), written with inline
// PTX as a hand-tuned epilogue would be.
//
// Each CTA writes N_TILES output tiles through one shared-memory staging buffer. Every thread computes its
// element and stores it to the buffer (generic proxy); each thread's fence.proxy.async.shared::cta makes
// its generic writes visible to the async proxy, bar.sync gathers all writes before thread 0; thread 0
// issues the tensor store (the TMA unit reads the buffer through the async proxy), commits the bulk group
// and waits with wait_group.read 0 until the store has finished *reading* the buffer; the second bar.sync
// keeps the other threads from overwriting the buffer for the next tile before that.
//
// Bug switches (the correct kernel is the build without any):
//   PTXMM_BUG_NO_PROXY_FENCE  the writers' fence.proxy.async is removed: bar.sync orders the generic
//                             writes before thread 0's issue but not before the async-proxy reads of the
//                             tensor store (PTX ISA §8.9.5 proxy-preserved causality; CUDA Programming
//                             Guide, TMA: every writer fences its writes to the async proxy first).
//   PTXMM_BUG_NO_WAIT_READ    the wait_group.read 0 before the buffer is reused is removed: the next tile's
//                             st.shared races with the previous tensor store's reads of the buffer.
#include <cuda.h>  // CUtensorMap
#include <cstdint>

constexpr int TILE_ROWS = 8;  // TMA box: TILE_ROWS x TILE_COLS floats, one element per thread
constexpr int TILE_COLS = 16;
constexpr int THREADS = TILE_ROWS * TILE_COLS;
constexpr int N_TILES = 2;  // tiles per CTA, through the one staging buffer

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __launch_bounds__(THREADS)
    tma_store_epilogue(const __grid_constant__ CUtensorMap c_map, const float* __restrict__ acc, float alpha) {
  __shared__ alignas(128) float stage[TILE_ROWS][TILE_COLS];
  const int r = threadIdx.x / TILE_COLS;
  const int c = threadIdx.x % TILE_COLS;

  for (int t = 0; t < N_TILES; ++t) {
    const int tile = blockIdx.x * N_TILES + t;
    const float v = alpha * acc[tile * THREADS + threadIdx.x];
    stage[r][c] = v;  // ptxmm-expect: PTXMM_BUG_NO_PROXY_FENCE, PTXMM_BUG_NO_WAIT_READ
#if !defined(PTXMM_BUG_NO_PROXY_FENCE)
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
    __syncthreads();
    if (threadIdx.x == 0) {
      const uint32_t buf = smem_addr(&stage[0][0]);
      const int32_t col0 = 0, row0 = tile * TILE_ROWS;
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&c_map), "r"(col0), "r"(row0), "r"(buf) : "memory");  // ptxmm-expect: PTXMM_BUG_NO_PROXY_FENCE, PTXMM_BUG_NO_WAIT_READ
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#if !defined(PTXMM_BUG_NO_WAIT_READ)
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
    }
    __syncthreads();
  }
  // The global writes must be complete before the kernel ends.
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
