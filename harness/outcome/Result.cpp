#include "outcome/Result.hpp"

namespace ptxmm::outcome {

void replaceWitness(StateResult& st, Witness w) {
  if (st.witness)
    for (const auto& f : st.witness->findings)
      if (!st.flagWitness.count(f.check)) st.flagWitness.emplace(f.check, *st.witness);
  st.witness = std::move(w);
}

const char* statusName(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::Error: return "error";
    case Status::Timeout: return "timeout";
    case Status::MemoryLimit: return "memory";
    case Status::Unknown: return "unknown";
  }
  return "?";
}

std::optional<Status> parseStatus(const std::string& s) {
  for (Status st : {Status::Ok, Status::Error, Status::Timeout, Status::MemoryLimit, Status::Unknown})
    if (s == statusName(st)) return st;
  return std::nullopt;
}

}  // namespace ptxmm::outcome
