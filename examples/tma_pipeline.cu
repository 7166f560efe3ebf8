// TMA load -> consumer pipeline with STAGES shared-memory stages (CUDA Programming Guide, "Using TMA to
// transfer multi-dimensional arrays" and "Asynchronous barriers"; PTX ISA 9.2 §9.7.9.25.5.2
// cp.async.bulk.tensor, §9.7.13.15 mbarrier).
//
// Warp 0 is the producer: its lane 0 waits until the consumers have released stage s (empty[s]), arms
// full[s] with the byte count of one tile (arrive.expect_tx) and issues the TMA load of the next k-tile
// into stage s; the copy's complete-tx completes full[s]'s phase. Warps 1..4 (one warpgroup) are the
// consumers: every thread waits on full[s] for the phase of this round (parity (kt / STAGES) & 1), reads
// the tile from shared memory, orders that generic read before the async proxy with
// fence.proxy.async.shared::cta and arrives on empty[s], which lets the producer overwrite the stage by TMA.
//
// Bug switches (the correct kernel is the build without any):
//   PTXMM_BUG_WRONG_PARITY  the consumer waits on full[s] with the parity of the previous round; the wait
//                           of round 0 returns at once (PTX ISA §9.7.13.15.16: try_wait.parity tests the
//                           completion of the phase *before* the current one when the parity differs), so
//                           the tile is read before the TMA write has completed.
//   PTXMM_BUG_EARLY_RELEASE the consumer arrives on empty[s] before it reads the stage: the producer may
//                           issue the next TMA load into the same stage while it is still being read.
//   PTXMM_BUG_MISSING_WAIT  the consumer does not wait on full[s] at all.
//   PTXMM_BUG_NO_PROXY_FENCE the consumer's proxy fence is removed: the empty-barrier handshake is
//                           generic-proxy synchronization only (PTX ISA §8.9.5), so the read and the
//                           next TMA write of the stage (async proxy) are a cross-proxy write-after-read race.
#include <cuda.h>  // CUtensorMap
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

constexpr int STAGES = 2;
constexpr int K_TILES = 2 * STAGES;  // k-tiles per CTA: every stage is reused once
constexpr int TILE_ROWS = 8;         // TMA box: TILE_ROWS x TILE_COLS floats
constexpr int TILE_COLS = 32;
constexpr uint32_t STAGE_BYTES = TILE_ROWS * TILE_COLS * sizeof(float);
constexpr int CONSUMER_THREADS = 128;  // one warpgroup
constexpr int THREADS = 32 + CONSUMER_THREADS;

__global__ void __launch_bounds__(THREADS, 1)
    tma_pipeline(const __grid_constant__ CUtensorMap a_map, float* __restrict__ out) {
  __shared__ alignas(128) float tile[STAGES][TILE_ROWS][TILE_COLS];
  __shared__ uint64_t full[STAGES];   // TMA bytes landed in stage s
  __shared__ uint64_t empty[STAGES];  // consumers are done with stage s

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int row0 = blockIdx.x * TILE_ROWS;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&empty[s], CONSUMER_THREADS);
    }
    // Make the initialized barriers visible to the async proxy (the TMA unit's complete-tx).
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();

  if (warp == 0) {
    if (lane == 0) {  // producer
      for (int kt = 0; kt < K_TILES; ++kt) {
        const int s = kt % STAGES;
        const uint32_t phase = (kt / STAGES) & 1;
        // Round 0 waits on parity 1, the phase before the first one: it returns at once.
        while (!ptx::mbarrier_try_wait_parity(&empty[s], phase ^ 1)) {
        }
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s],
                                       uint32_t{STAGE_BYTES});
        const int32_t coords[2] = {kt * TILE_COLS, row0};
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, &tile[s][0][0], &a_map, coords, &full[s]);  // ptxmm-expect: PTXMM_BUG_WRONG_PARITY, PTXMM_BUG_EARLY_RELEASE, PTXMM_BUG_MISSING_WAIT, PTXMM_BUG_NO_PROXY_FENCE
      }
    }
    return;
  }

  // consumers
  const int c = threadIdx.x - 32;
  float acc = 0.0f;
  for (int kt = 0; kt < K_TILES; ++kt) {
    const int s = kt % STAGES;
    const uint32_t phase = (kt / STAGES) & 1;
#if defined(PTXMM_BUG_WRONG_PARITY)
    while (!ptx::mbarrier_try_wait_parity(&full[s], phase ^ 1)) {
    }
#elif !defined(PTXMM_BUG_MISSING_WAIT)
    while (!ptx::mbarrier_try_wait_parity(&full[s], phase)) {
    }
#endif
#if defined(PTXMM_BUG_EARLY_RELEASE)
    ptx::mbarrier_arrive(&empty[s]);
#endif
    const float v = tile[s][c / TILE_COLS * 2][c % TILE_COLS];  // ptxmm-expect: PTXMM_BUG_WRONG_PARITY, PTXMM_BUG_EARLY_RELEASE, PTXMM_BUG_MISSING_WAIT, PTXMM_BUG_NO_PROXY_FENCE
    acc += v;
#if !defined(PTXMM_BUG_NO_PROXY_FENCE)
    ptx::fence_proxy_async(ptx::space_shared);  // the read above before the refill's async-proxy write
#endif
#if !defined(PTXMM_BUG_EARLY_RELEASE)
    ptx::mbarrier_arrive(&empty[s]);
#endif
  }
  out[blockIdx.x * CONSUMER_THREADS + c] = acc;
}
