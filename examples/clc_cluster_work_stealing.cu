// Cluster work stealing with cluster launch control (CUDA Programming Guide, "Work stealing with cluster
// launch control": cluster launch control for thread block clusters; PTX ISA 9.2 §9.7.13.17
// clusterlaunchcontrol.try_cancel .multicast::cluster::all, §9.7.13.4 fence.proxy, §9.7.13.3
// barrier.cluster), with cuda::ptx and cooperative groups. Compile for sm_100a.
//
// One thread of the cluster cancels a whole not-yet-started cluster; the response is multicast into the
// `result` slot of every CTA of the cluster and completes each CTA's own mbarrier, which each CTA's
// thread 0 arms (arrive.expect_tx at cluster scope). Every thread waits on its CTA's barrier at cluster
// scope, decodes the response and adds its CTA's rank in the cluster. Reuse of the slots across
// iterations: every thread's release proxy fence after its read, the cluster barrier at the top of the
// loop (cluster.sync(), which also guarantees every CTA of the cluster is running before the first
// request), and the issuer's acquire proxy fence at cluster scope before the next multicast write.
//
// Bug switch (the correct kernel is the build without it):
//   PTXMM_BUG_NO_ACQUIRE_FENCE  the issuer's acquire proxy fence is removed: a .release proxy fence only
//                               synchronizes with an acquire pattern that contains a matching .acquire
//                               proxy fence (PTX ISA §9.7.13.4), so the next multicast write into the
//                               other CTA's slot races with that CTA's read of the previous response.
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cstdint>

namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

constexpr int THREADS = 128;
constexpr int CLUSTER = 2;

__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS)
    clc_cluster_work_stealing(float* data, int n, float alpha) {
  __shared__ longlong2 result;  // this CTA's copy of the multicast response
  __shared__ uint64_t bar;      // completes when this CTA's copy has been written
  uint32_t phase = 0;
  cg::cluster_group cluster = cg::this_cluster();
  cg::thread_block block = cg::this_thread_block();

  if (block.thread_rank() == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // the init is seen cluster-wide
  }

  int bx = blockIdx.x;
  while (true) {
    // Protects the slots from the next write; at the first iteration every CTA of the cluster has started.
    cluster.sync();

    if (cluster.thread_rank() == 0) {
#if !defined(PTXMM_BUG_NO_ACQUIRE_FENCE)
      // Acquire every CTA's released reads of its slot before the async multicast write.
      ptx::fence_proxy_async_generic_sync_restrict(ptx::sem_acquire, ptx::space_cluster, ptx::scope_cluster);
#endif
      ptx::clusterlaunchcontrol_try_cancel_multicast(&result, &bar);  // ptxmm-expect: PTXMM_BUG_NO_ACQUIRE_FENCE
    }
    if (block.thread_rank() == 0)
      ptx::mbarrier_arrive_expect_tx(ptx::sem_relaxed, ptx::scope_cluster, ptx::space_shared, &bar, sizeof(result));

    const int i = bx * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= alpha;

    while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, phase)) {
    }
    phase ^= 1;

    const longlong2 response = result;  // ptxmm-expect: PTXMM_BUG_NO_ACQUIRE_FENCE
    if (!ptx::clusterlaunchcontrol_query_cancel_is_canceled(response)) break;
    bx = ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<int>(response) + cluster.block_index().x;

    // Release this thread's generic read of the slot to the async proxy.
    ptx::fence_proxy_async_generic_sync_restrict(ptx::sem_release, ptx::space_shared, ptx::scope_cluster);
  }
}
