// The outcome of running one kernel, and its JSON form (the isolated child's report to the parent).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "runner/Histogram.hpp"

namespace ptxmm::runner {

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

/// Name of a status: "ok", "skipped", "timed-out", "error" (logs, JSON, the campaign store).
[[nodiscard]] std::string statusName(RunResult::Status s);

/// RunResult as JSON (and back), used between the isolated child and the parent.
[[nodiscard]] nlohmann::json toJson(const RunResult& r);
/// Inverse of toJson(RunResult).
[[nodiscard]] RunResult runResultFromJson(const nlohmann::json& j);

}  // namespace ptxmm::runner
