// check-kernel's repairs (ptxmm check-kernel, docs/kernels.md): which findings of a verdict hold in the kernel,
// and the search of a verified edit of the extracted test that removes them, applied at every litmus
// occurrence of the PTX lines it names.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "check/Verdict.hpp"
#include "extract/Extract.hpp"

namespace ptxmm::analysis {

/// The location a witness event accesses ("W stage=1" → "stage"; "" for fences).
[[nodiscard]] std::string eventLocation(const check::WitnessEvent& e);

/// The findings that hold in the kernel: race pairs between accesses whose kernel footprints are known to be
/// disjoint (two threads' own elements of one buffer stage, two tensor boxes) are dropped, and a finding left
/// without pairs with them. `original` maps a line of the checked text to the extracted test's line.
[[nodiscard]] std::vector<check::FindingReport> kernelFindings(const check::Verdict& v, const extract::ExtractedTest& t,
                                                               const std::function<int(int)>& original);

/// A verdict is clean for the kernel: no finding survives and no other flag is raised.
[[nodiscard]] bool kernelClean(const check::Verdict& v, const extract::ExtractedTest& t,
                               const std::function<int(int)>& original);

/// One PTX line a kernel repair applies to, and the instruction added or written there.
struct RepairSite {
  const extract::Site* site = nullptr;
  std::string instruction;
  const extract::Site* to = nullptr;  ///< a move: the PTX line the instruction goes after
};

/// A repair of the kernel: one edit applied at every litmus occurrence of one PTX line (a PTX instruction
/// stands for all the loop iterations the test unrolls), verified by re-checking the patched test.
struct KernelRepair {
  std::string kind;      ///< "fence", "parity", "wait", "move" or "barrier" (docs/kernels.md)
  std::string edit;      ///< "insert", "replace" or "move"
  std::string position;  ///< "after" / "before" the site (insert), "at" (replace), "after" `to` (move)
  std::string cuda;      ///< the CUDA source spelling of the instruction, when it has one
  std::vector<RepairSite> sites;
};

/// The cheapest verified repair of the findings `found` of extracted test `t` (the costs of Repair.hpp): a proxy
/// fence after a finding's site (1), a flipped parity of a wait (1), an acq_rel fence after a site (2), a wait
/// (3: a smaller cp.async.wait_group count, cp.async.wait_all, cp.async.bulk.wait_group[.read] 0 after the commit
/// of a racing bulk copy, an mbarrier try_wait loop on the barrier a racing copy completes on), an mbarrier
/// arrival moved after the access it released too early, a CTA barrier (4). A PTX instruction stands for all the
/// loop iterations the test unrolls, and one CUDA source line for all the copies nvcc unrolled it into: a
/// candidate is applied at every litmus occurrence of every PTX line of its source line (the same instruction),
/// and re-checked under `model` (clean: no finding survives, the bad outcome is unreachable). The returned
/// sites point into `t`.
[[nodiscard]] std::optional<KernelRepair> searchKernelRepair(const extract::ExtractedTest& t,
                                                             const std::vector<check::FindingReport>& found,
                                                             const cat::Model& model, const std::string& modelName,
                                                             const check::CheckOptions& co);

}  // namespace ptxmm::analysis
