// The least target of a whole test; the per-instruction minima are rules of each operation (Validate.cpp).
#include "litmus/Target.hpp"

#include <map>

#include "ptx/Ops.hpp"

namespace ptxmm::litmus {

using ptx::Target;

ptx::Target requiredTarget(const Test& test) {
  Target t{70, 60, false};
  for (const auto& th : test.threads)
    for (const auto& s : th.code)
      if (s.instr) t = ptx::combine(t, requiredTarget(*s.instr));
  std::map<int, int> ctasPerCluster;
  for (const auto& th : test.threads) ctasPerCluster[th.where.cluster] += 0;
  std::map<int, int> clusterOfCta;
  for (const auto& th : test.threads) clusterOfCta[th.where.cta] = th.where.cluster;
  for (const auto& [cta, cluster] : clusterOfCta) ++ctasPerCluster[cluster];
  for (const auto& [cluster, n] : ctasPerCluster)
    if (n > 1) t = ptx::combine(t, Target{90, 78, false});
  if (!test.clcPending.empty()) t = ptx::combine(t, Target{100, 86, false});
  return t;
}

}  // namespace ptxmm::litmus
