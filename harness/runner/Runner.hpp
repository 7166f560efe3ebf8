// GPU runner: stress parameters, the host half of the kernel's configuration buffer, histogram
// decoding, the device fingerprint, and (with PTXMM_HAVE_CUDA) launching a generated kernel many
// times through the CUDA driver API under a wall-clock watchdog.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "litmus/Ast.hpp"
#include "ptxgen/Kernel.hpp"

namespace ptxmm::runner {

/// Stress parameters (the names GPUHarbor and MC Mutants use).
struct StressParams {
  uint64_t iterations = 1000000;  ///< test instances to run in total (rounded up to whole launches)
  uint64_t columns = 0;           ///< GPU-cluster columns per launch (0: fill the GPU)
  int groupsPerBlock = 4;         ///< testing warp groups per CTA (kernel shape)
  int stressWarpsPerBlock = 2;    ///< memory-stress warps per CTA (kernel shape)
  int memStressPct = 100;         ///< % of launches whose stress warps stress memory
  int memStressIterations = 64;   ///< stress loop iterations
  int memStressPattern = 0;       ///< 0 ld;ld, 1 st;ld, 2 ld;st, 3 st;st
  int preStressPct = 100;         ///< % of launches with pre-stress by testing threads
  int preStressIterations = 8;
  int preStressPattern = 3;
  int stressLineSize = 64;           ///< words per stress line
  int stressTargetLines = 4;         ///< lines stressed (1..16)
  int scratchMemorySize = 65536;     ///< scratch words
  int stressAssignmentStrategy = 0;  ///< 0 round-robin (per warp), 1 chunking (per CTA)
  int memStride = 64;                ///< bytes between consecutive instances' cells of one location
  int bankConflictLanes = 0;         ///< lanes per stress warp doing bank-conflict stress (kernel shape; 0 = off)
  int bankConflictPct = 100;         ///< % of launches whose bank-conflict lanes run
  int bankConflictIterations = 64;   ///< bank-conflict loop iterations
  int bankConflictPattern = 1;       ///< as memStressPattern (0 ld;ld, 1 st;ld, 2 ld;st, 3 st;st), on shared rows
  int shufflePct = 100;              ///< % of launches with shuffled instance placement
  int barrierPct = 100;              ///< % of launches with the per-instance start barrier
  uint64_t spinBound = 200000;       ///< bound of every device spin
  int launchTimeoutMs = 10000;       ///< watchdog: wall-clock bound of one batch of launches
  int launchesPerBatch = 16;         ///< launches queued before the host polls
  uint64_t seed = 1;                 ///< PRNG seed (every launch's shuffle derives from it)
};

/// Parse stress parameters from JSON (unknown keys are an error); missing keys keep defaults.
[[nodiscard]] StressParams paramsFromJson(const nlohmann::json& j);
/// Stress parameters as JSON.
[[nodiscard]] nlohmann::json toJson(const StressParams& p);

/// The compile-time kernel shape that `p` asks for (groups, stress warps, bank-conflict lanes).
[[nodiscard]] ptxgen::GenOptions kernelShape(const StressParams& p, const std::string& arch);

/// Bytes between consecutive instances' cells: memStride rounded up to whole cells.
[[nodiscard]] uint64_t cellStride(const ptxgen::Kernel& kernel, const StressParams& p);

/// Bytes of one global location's region (its cells for `instances` instances, `stride` apart),
/// 4 KiB aligned; with surface bindings a whole surface array (ptxgen::surf::kRegionAlign granules).
[[nodiscard]] uint64_t regionBytes(const ptxgen::Kernel& kernel, uint64_t instances, uint64_t stride);

/// The surface map of a region: `layout[w]` is 1 + the element index (y * surf::kArrayWidth + x) of
/// the surface-array element stored at 32-bit word w of the region (what a copy of 1, 2, 3, ... into
/// the array leaves in its memory); the result holds {x in bytes, y} for each instance's cell
/// (cell c at word c * stride / 4). Empty, with `error` set, unless `layout` is a bijection between
/// the region's words and the array's elements.
[[nodiscard]] std::vector<uint32_t> surfaceMap(const std::vector<uint32_t>& layout, uint64_t instances, uint64_t stride,
                                               std::string& error);

/// Candidate values of each observed term (what the histogram counts); values outside land in
/// "other". Default: 0, 1, init values and every immediate of the test and the condition.
[[nodiscard]] std::vector<std::vector<int64_t>> candidateValues(const litmus::Test& test, const ptxgen::Kernel& kernel,
                                                                const std::vector<std::string>& extraStates = {});

/// Number of histogram buckets (product of candidate counts, then "other", then "timed out").
[[nodiscard]] uint64_t bucketCount(const std::vector<std::vector<int64_t>>& candidates);

/// Fill one launch's configuration buffer (cfg:: layout). `instances` = columns * slotsPerCta.
[[nodiscard]] std::vector<uint64_t> buildConfig(const ptxgen::Kernel& kernel, const StressParams& params,
                                                uint64_t columns, const std::vector<std::vector<int64_t>>& candidates,
                                                std::mt19937_64& rng);

/// A decoded histogram: counts per canonical state key.
struct Histogram {
  std::map<std::string, uint64_t> states;  ///< state key → count
  uint64_t other = 0;                      ///< instances whose state had a value outside the candidates
  uint64_t timedOut = 0;                   ///< instances that exceeded a spin bound
  std::vector<std::string> otherSamples;   ///< raw state keys of some "other" instances
  /// Total instances counted.
  [[nodiscard]] uint64_t total() const;
};

/// State key ("0:r1=1; x=2;", outcome::stateKey) of a value vector in kernel term order.
[[nodiscard]] std::string stateKey(const ptxgen::Kernel& kernel, const std::vector<int64_t>& values);

/// Decode raw bucket counts (and raw samples: count then records) into a Histogram.
[[nodiscard]] Histogram decodeHistogram(const ptxgen::Kernel& kernel,
                                        const std::vector<std::vector<int64_t>>& candidates,
                                        const std::vector<uint64_t>& buckets, const std::vector<uint64_t>& samples);

/// Device fingerprint.
struct DeviceInfo {
  bool available = false;
  std::string error;  ///< why no device is available
  std::string name;
  int smMajor = 0, smMinor = 0, smCount = 0;
  int driverVersion = 0;                ///< cuDriverGetVersion
  int cudaVersion = 0;                  ///< CUDA_VERSION of the toolkit headers
  std::string ptxas;                    ///< ptxas --version
  int smClockMHz = 0, memClockMHz = 0;  ///< NVML current clocks (0 if unreadable)
  int maxSmClockMHz = 0;
  [[nodiscard]] nlohmann::json toJson() const;
};

/// Outcome of running one kernel.
struct RunResult {
  enum class Status { Ok, Skipped, TimedOut, Error } status = Status::Error;
  std::string reason;  ///< Skipped / TimedOut / Error: why
  Histogram histogram;
  uint64_t instances = 0;
  uint64_t launches = 0;
  double seconds = 0;    ///< wall time of the launches (module load excluded)
  uint64_t columns = 0;  ///< columns per launch used
};

/// Query the first GPU (never throws; `available` false without CUDA or a device).
[[nodiscard]] DeviceInfo queryDevice();

/// Load `kernel` (JIT from PTX) and run it until `params.iterations` instances have run. A batch
/// of launches that exceeds `launchTimeoutMs` is abandoned: the context is reset and the result is
/// TimedOut. Tests needing a newer SM than the device are Skipped.
[[nodiscard]] RunResult runKernel(const ptxgen::Kernel& kernel, const StressParams& params,
                                  const std::vector<std::vector<int64_t>>& candidates);

/// runKernel in a child process (fork): a kernel that hangs beyond the watchdog is ended by killing
/// the child, which tears its CUDA context down; the parent never touches CUDA, so the campaign
/// always continues. `device` receives the child's fingerprint. Without fork support = runKernel.
[[nodiscard]] RunResult runKernelIsolated(const ptxgen::Kernel& kernel, const StressParams& params,
                                          const std::vector<std::vector<int64_t>>& candidates, DeviceInfo& device);

/// RunResult as JSON (and back), used between the isolated child and the parent.
[[nodiscard]] nlohmann::json toJson(const RunResult& r);
/// Inverse of toJson(RunResult).
[[nodiscard]] RunResult runResultFromJson(const nlohmann::json& j);
/// Inverse of DeviceInfo::toJson.
[[nodiscard]] DeviceInfo deviceInfoFromJson(const nlohmann::json& j);

}  // namespace ptxmm::runner
