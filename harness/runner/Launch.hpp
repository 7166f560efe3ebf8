// Running a generated kernel on the GPU: allocation, per-launch configuration, launches in batches
// under a wall-clock watchdog, and the same in a child process that is killed when it hangs.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
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

/// How long an isolated child may stay quiet (no heartbeat): launchTimeoutMs per batch of launches, and
/// 30 s more for the module load (JIT) and the first batch.
[[nodiscard]] int64_t quietBoundMs(const StressParams& params);

/// A child process that keeps its CUDA context across many runs: one fork serves a whole campaign
/// worker, so the driver's initialisation, the context and the device query are paid once, not per
/// test (runKernelIsolated pays them every time). Each call sends a JSON request to the child, which
/// answers with `serve(request)`; runKernel calls inside `serve` write a heartbeat per finished batch
/// of launches. A child that stays quiet longer than the bound, or dies, is killed and the call
/// returns nullopt; the next call starts a fresh child. The parent never touches CUDA.
class DeviceSession {
 public:
  using Serve = std::function<nlohmann::json(const nlohmann::json& request)>;
  explicit DeviceSession(Serve serve);
  ~DeviceSession();
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  /// The reply, or nullopt (the reason in `why`) when the child died or made no progress for `quietMs`.
  [[nodiscard]] std::optional<nlohmann::json> call(const nlohmann::json& request, int64_t quietMs, std::string& why);
  /// Ends the child; the next call starts a new one (after a run that may have left the context unusable).
  void restart();
  /// Children started so far (1 for a session that never had to restart).
  [[nodiscard]] int started() const { return started_; }

 private:
  bool start(std::string& why);
  Serve serve_;
  pid_t pid_ = -1;
  int fd_ = -1;  ///< the parent's end of the socket pair
  int started_ = 0;
};

/// In a DeviceSession child: keep device 0's primary context alive between runKernel calls (each of
/// which retains and releases it; the last release would destroy it).
void holdPrimaryContext();

}  // namespace ptxmm::runner
