// Single-CTA work stealing with cluster launch control (CUDA Programming Guide, "Work stealing with
// cluster launch control": thread block cancellation steps; PTX ISA 9.2 §9.7.13.17
// clusterlaunchcontrol.try_cancel, §9.7.13.18 clusterlaunchcontrol.query_cancel, §9.7.13.4 fence.proxy),
// with cuda::ptx. Compile for sm_100a.
//
// A CTA processes block index bx, and meanwhile thread 0 asks the launch to cancel a CTA that has not
// started yet: try_cancel writes a 16-byte response into shared memory through the async proxy and
// completes the tx-count of an mbarrier. Every thread waits for that mbarrier phase, decodes the response
// (query_cancel) and, if a CTA was cancelled, processes its index in the next iteration. The response slot
// is reused every iteration, so the generic reads of iteration i must be ordered before the async write of
// iteration i+1: each thread's release proxy fence after its reads, __syncthreads() at the top of the
// loop, and the issuer's acquire proxy fence before try_cancel.
//
// Bug switches (the correct kernel is the build without any):
//   PTXMM_BUG_NO_PROXY_FENCE  both proxy fences removed (the guide's step 6): __syncthreads() orders
//                             generic accesses only (PTX ISA §8.9.5), so the next try_cancel's async
//                             write of the response races with this iteration's reads of it.
//   PTXMM_BUG_NO_WAIT         the mbarrier wait is removed: the response is read before the try_cancel
//                             has completed ("No other synchronization mechanisms ... can be used to
//                             guarantee the completion", PTX ISA §9.7.13.17).
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cstdint>

namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

constexpr int THREADS = 128;

__global__ void __launch_bounds__(THREADS) clc_work_stealing(float* data, int n, float alpha) {
  __shared__ longlong2 result;  // try_cancel response (16 bytes; query_cancel takes it as two b64 halves)
  __shared__ uint64_t bar;  // completes when the response has been written
  uint32_t phase = 0;

  if (cg::this_thread_block().thread_rank() == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();

  int bx = blockIdx.x;
  while (true) {
    // Protect the response slot from being overwritten while other threads still read it.
    __syncthreads();
    if (cg::this_thread_block().thread_rank() == 0) {
#if !defined(PTXMM_BUG_NO_PROXY_FENCE)
      // Acquire the other threads' generic reads of the slot before the async write of the response.
      ptx::fence_proxy_async_generic_sync_restrict(ptx::sem_acquire, ptx::space_cluster, ptx::scope_cluster);
#endif
      ptx::clusterlaunchcontrol_try_cancel(&result, &bar);  // ptxmm-expect: PTXMM_BUG_NO_PROXY_FENCE, PTXMM_BUG_NO_WAIT
      ptx::mbarrier_arrive_expect_tx(ptx::sem_relaxed, ptx::scope_cta, ptx::space_shared, &bar, sizeof(result));
    }

    const int i = bx * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= alpha;

#if !defined(PTXMM_BUG_NO_WAIT)
    while (!ptx::mbarrier_try_wait_parity(&bar, phase)) {
    }
#endif
    phase ^= 1;

    const longlong2 response = result;  // ptxmm-expect: PTXMM_BUG_NO_PROXY_FENCE, PTXMM_BUG_NO_WAIT
    if (!ptx::clusterlaunchcontrol_query_cancel_is_canceled(response)) break;
    bx = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<int>(response);

#if !defined(PTXMM_BUG_NO_PROXY_FENCE)
    // Release this thread's generic read of the slot to the async proxy.
    ptx::fence_proxy_async_generic_sync_restrict(ptx::sem_release, ptx::space_shared, ptx::scope_cluster);
#endif
  }
}
