// RunResult as JSON.
#include "runner/Results.hpp"

namespace ptxmm::runner {

using nlohmann::json;

std::string statusName(RunResult::Status s) {
  switch (s) {
    case RunResult::Status::Ok: return "ok";
    case RunResult::Status::Skipped: return "skipped";
    case RunResult::Status::TimedOut: return "timed-out";
    case RunResult::Status::Error: return "error";
  }
  return "error";
}

json toJson(const RunResult& r) {
  json states = json::object();
  for (const auto& [k, v] : r.histogram.states) states[k] = v;
  return json{{"status", static_cast<int>(r.status)},
              {"reason", r.reason},
              {"states", states},
              {"other", r.histogram.other},
              {"timedOut", r.histogram.timedOut},
              {"samples", r.histogram.otherSamples},
              {"instances", r.instances},
              {"launches", r.launches},
              {"seconds", r.seconds},
              {"columns", r.columns}};
}

RunResult runResultFromJson(const json& j) {
  RunResult r;
  r.status = static_cast<RunResult::Status>(j.at("status").get<int>());
  r.reason = j.at("reason").get<std::string>();
  for (const auto& [k, v] : j.at("states").items()) r.histogram.states[k] = v.get<uint64_t>();
  r.histogram.other = j.at("other").get<uint64_t>();
  r.histogram.timedOut = j.at("timedOut").get<uint64_t>();
  r.histogram.otherSamples = j.at("samples").get<std::vector<std::string>>();
  r.instances = j.at("instances").get<uint64_t>();
  r.launches = j.at("launches").get<uint64_t>();
  r.seconds = j.at("seconds").get<double>();
  r.columns = j.at("columns").get<uint64_t>();
  return r;
}

}  // namespace ptxmm::runner
