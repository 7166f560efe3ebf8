// cp.async multistage pipeline, the sm_80 idiom (CUDA Programming Guide, "Asynchronous data copies using
// cp.async" / pipeline primitives; PTX ISA 9.2 §9.7.9.25.3.1 cp.async, §9.7.9.25.3.2 cp.async.commit_group and
// §9.7.9.25.3.3 cp.async.wait_group), compiled for sm_90a, with inline PTX.
//
// STAGES shared-memory buffers; each thread copies one 16-byte chunk of every k-tile (cp.async.cg) and
// commits one group per k-tile (an empty group when nothing is left to load, so the group count stays
// uniform). The prologue puts STAGES-1 tiles in flight. At k-tile kt a thread waits until at most STAGES-2
// of its own groups are pending (its copy of tile kt is complete), then __syncthreads() makes every
// thread's completed copies visible to the whole CTA (cp.async completion is per thread: PTX ISA
// §9.7.9.25.3.3) and also guarantees that every thread has finished reading the stage consumed at kt-1,
// which this iteration refills. Each thread then reads a chunk copied by *another* thread.
//
// Bug switches (the correct kernel is the build without any):
//   PTXMM_BUG_WAIT_TOO_LARGE  cp.async.wait_group STAGES-1: with STAGES-1 groups in flight nothing is
//                             waited for, and tile kt is read while its copy may still be writing.
//   PTXMM_BUG_NO_BARRIER      the __syncthreads() is removed: the read of another thread's chunk is not
//                             ordered after that thread's wait, and the refill of the previous stage is
//                             not ordered after the other threads' reads of it.
#include <cstdint>

constexpr int STAGES = 3;
constexpr int K_TILES = 2 * STAGES;
constexpr int THREADS = 64;
constexpr int CHUNK_FLOATS = 4;  // 16 bytes per thread and k-tile
constexpr int TILE_FLOATS = THREADS * CHUNK_FLOATS;

#if defined(PTXMM_BUG_WAIT_TOO_LARGE)
constexpr int WAIT_PENDING = STAGES - 1;
#else
constexpr int WAIT_PENDING = STAGES - 2;
#endif

__global__ void __launch_bounds__(THREADS)
    cp_async_pipeline(const float* __restrict__ a, float* __restrict__ out) {
  __shared__ alignas(16) float buf[STAGES][TILE_FLOATS];
  const int tid = threadIdx.x;
  const float* src = a + static_cast<size_t>(blockIdx.x) * K_TILES * TILE_FLOATS + tid * CHUNK_FLOATS;

  // Prologue: tiles 0 .. STAGES-2 in flight, one group each.
  for (int s = 0; s < STAGES - 1; ++s) {
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&buf[s][tid * CHUNK_FLOATS]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src + s * TILE_FLOATS) : "memory");  // ptxmm-expect: PTXMM_BUG_WAIT_TOO_LARGE, PTXMM_BUG_NO_BARRIER
    asm volatile("cp.async.commit_group;" ::: "memory");
  }

  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int kt = 0; kt < K_TILES; ++kt) {
    asm volatile("cp.async.wait_group %0;" ::"n"(WAIT_PENDING) : "memory");
#if !defined(PTXMM_BUG_NO_BARRIER)
    __syncthreads();
#endif
    // Refill the stage consumed at kt-1 with tile kt+STAGES-1.
    const int next = kt + STAGES - 1;
    if (next < K_TILES) {
      const int s = next % STAGES;
      const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(&buf[s][tid * CHUNK_FLOATS]));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src + next * TILE_FLOATS) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    // Consume tile kt: the chunk the neighbouring thread copied.
    const float4 v = *reinterpret_cast<const float4*>(&buf[kt % STAGES][((tid + 1) % THREADS) * CHUNK_FLOATS]);  // ptxmm-expect: PTXMM_BUG_WAIT_TOO_LARGE, PTXMM_BUG_NO_BARRIER
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
  reinterpret_cast<float4*>(out)[blockIdx.x * THREADS + tid] = acc;
}
