// Device backends of a campaign: the CUDA runner (runner::DeviceSession, one long-lived child process
// per worker that keeps its CUDA context, restarted after a hang or a fault) and a CPU-only fake
// device for CI. The fake draws deterministic pseudo-random histograms over the model's allowed
// states, with rates that depend on the stress parameters (so that tuning has something to find), and
// can inject faults:
//   PTXMM_FAKE (or --fake) = comma-separated items
//     slow=MS        sleep MS wall-clock milliseconds per run
//     hang=TEXT      tests whose name contains TEXT time out (the watchdog's result)
//     error=TEXT     tests whose name contains TEXT end in a device error
//     forbidden=TEXT tests whose name contains TEXT see a state the model forbids
//     die-after=N    the worker process SIGKILLs itself while running its (N+1)-th test
//     die-gpu=G      only the worker of fake GPU G dies (with die-after)
//     gpus=N         the number of fake GPUs `--gpus all` finds (default 2)
#pragma once

#include <memory>
#include <string>

#include "campaign/Store.hpp"
#include "runner/Runner.hpp"

namespace ptxmm::campaign {

/// What one run produced.
struct Execution {
  runner::RunResult result;
  runner::DeviceInfo device;
};

/// A device that runs tests.
class Backend {
 public:
  virtual ~Backend() = default;
  /// Runs `test` (its text, arch and allowed states) under `params` (iterations included).
  virtual Execution run(const TestRow& test, const runner::StressParams& params) = 0;
};

/// The fake device's fault injection (see the file comment).
struct FakeSpec {
  int slowMs = 0;
  std::string hang, error, forbidden;
  int dieAfter = -1;
  int dieGpu = -1;
  int gpus = 2;
};

/// Parses PTXMM_FAKE followed by `spec` (later items win). Throws std::runtime_error for an unknown item.
[[nodiscard]] FakeSpec fakeSpec(const std::string& spec);

/// "cuda" or "fake"; `gpu` is the worker's GPU index (fake: its name and die-gpu; cuda: the process
/// already sees only that GPU through CUDA_VISIBLE_DEVICES). Throws std::runtime_error for another name.
[[nodiscard]] std::unique_ptr<Backend> makeBackend(const std::string& name, int gpu, const std::string& fake = "");

/// GPUs `--gpus all` means: the CUDA device count, or the fake spec's gpus.
[[nodiscard]] int deviceCount(const std::string& backend, const std::string& fake = "");

/// FNV-1a 64 (stable across machines: the fake's draws depend on nothing else).
[[nodiscard]] uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ULL);

}  // namespace ptxmm::campaign
