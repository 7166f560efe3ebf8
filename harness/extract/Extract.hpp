// `ptxmm extract`: from a PTX module (Module.hpp) to litmus tests in ptxmm's block layout, one per kernel,
// whose threads are the kernel's synchronisation roles (docs/kernels.md).
//
// Every thread of the kernel's CTAs (blockDim from `.reqntid`/`.maxntid` or the options, CTA ranks of a
// cluster from `.reqnctapercluster`) is executed with concrete special registers and kernel parameters;
// values read from memory are unknown. A branch on a known value is followed, so loops are unrolled as the
// kernel runs them; a branch on the result of an mbarrier try_wait/test_wait that retries the wait is a
// wait loop and stays a loop in the litmus test (docs/lowering.md "Loops and liveness"); any other branch
// on an unknown value is refused with its PTX line. Each thread records the instructions ptxmm models
// (ptx/PtxOps.def: memory accesses, fences, barriers, mbarriers, async copies) with their addresses
// resolved to (symbol, offset); threads with the same record form one role, and each role of each CTA
// becomes a litmus thread. Shared-memory addresses become named locations: one per mbarrier object, one per
// stage of a buffer that async copies fill or drain (the stage stride is the distance between successive
// copies of one instruction), one per buffer otherwise; kernel pointer parameters are global locations and
// tensor-map parameters tensor maps. mbarrier arrival counts and bar.sync thread counts are rescaled to the
// litmus threads (a role stands for all the kernel threads that share it), and expect_tx byte counts to the
// model's bytes per copy. What cannot be resolved is a located error naming the PTX line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "extract/Module.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::extract {

/// Options of extraction (the command's `--kernel`, `--roles`, `--iterations`, `--param`, `--block`, `--cluster`).
struct ExtractOptions {
  std::string kernel;                     ///< only this entry ("" = every entry)
  std::vector<int> roles;                 ///< CTA-local thread ids whose roles become litmus threads ("" = all)
  int iterations = 0;                     ///< value of integer kernel parameters (0: two laps of the stage count)
  std::map<std::string, int64_t> params;  ///< kernel parameter (name or index) → value
  int block = 0;                          ///< threads per CTA (0: `.reqntid`/`.maxntid`, else 128)
  int cluster = 0;                        ///< CTAs per cluster (0: `.reqnctapercluster`, else 1)
  size_t maxSteps = 1000000;              ///< instructions executed per thread
  size_t maxTotalSteps = 50000000;        ///< instructions executed by all threads of a kernel
  size_t maxForks = 64;                   ///< branches on loaded predicates followed both ways, per thread
  size_t maxKept = 400;                   ///< modelled instructions per thread
  size_t maxThreads = 8;                  ///< litmus threads per test
  int maxCallDepth = 32;
};

/// A PTX instruction a litmus line stands for.
struct Site {
  int ptxLine = 0;
  std::string instruction;          ///< its PTX text
  std::optional<SourcePos> source;  ///< `.loc` in force
};

/// The litmus test of one kernel.
struct ExtractedTest {
  std::string name;                ///< litmus test name
  std::string text;                ///< litmus source (block layout, PTX spelling)
  std::map<int, Site> sites;       ///< litmus line → the PTX instruction it comes from
  std::vector<std::string> roles;  ///< one line per litmus thread: which kernel threads it stands for
  /// Litmus line → location → what the kernel threads of the line's role touch there: the 4-byte words of a
  /// plain access ("base+word"), the coordinates of a tensor-map op's tensor ("c:x,y"). A litmus location is
  /// a whole buffer stage, so two accesses whose footprints are known and disjoint are not a conflict in the
  /// kernel (check-kernel drops such race pairs, docs/kernels.md).
  std::map<int, std::map<std::string, std::set<std::string>>> footprint;
  /// The condition's terms ("1:%r4"): registers of consumer loads from buffers that only async copies of known
  /// source values write, each with the litmus line of its load; the condition asks whether one of them can
  /// read anything but the copied value (1).
  std::map<std::string, int> observed;
  /// True if the accesses of litmus lines `a` and `b` to `location` are known to touch disjoint bytes.
  [[nodiscard]] bool disjoint(int a, int b, const std::string& location) const;
  /// Litmus line of each thread's instruction → PTX line (for inserting repairs "after" a PTX line).
  [[nodiscard]] const Site* site(int litmusLine) const;
};

/// The result for one kernel: a test, or the located reason there is none.
struct KernelExtract {
  std::string name;  ///< mangled entry name
  std::optional<ExtractedTest> test;
  std::optional<Diagnostic> error;
};

/// Extracts every entry of `module` (or the one `options.kernel` names: an unknown name is an error of
/// the result's single entry). Never throws for bad input: errors are per kernel.
[[nodiscard]] std::vector<KernelExtract> extractModule(const PtxModule& module, const ExtractOptions& options);

}  // namespace ptxmm::extract
