// Running a generated kernel on the GPU: allocation, per-launch configuration, launches in batches
// under a wall-clock watchdog, and the same in a child process that is killed when it hangs.
#pragma once

#include <cstdint>
#include <vector>

#include "ptxgen/Kernel.hpp"
#include "runner/Device.hpp"
#include "runner/Results.hpp"
#include "runner/StressParams.hpp"

namespace ptxmm::runner {

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

}  // namespace ptxmm::runner
