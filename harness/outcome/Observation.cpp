#include "outcome/Observation.hpp"

namespace ptxmm::outcome {

std::string toString(Observation o) {
  switch (o) {
    case Observation::Always: return "Always";
    case Observation::Sometimes: return "Sometimes";
    case Observation::Never: return "Never";
  }
  return "?";
}

std::optional<Observation> parseObservation(std::string_view s) {
  if (s == "Always") return Observation::Always;
  if (s == "Sometimes") return Observation::Sometimes;
  if (s == "Never") return Observation::Never;
  return std::nullopt;
}

Observation observe(uint64_t positive, uint64_t negative) {
  return positive == 0 ? Observation::Never : negative == 0 ? Observation::Always : Observation::Sometimes;
}

bool validated(litmus::Condition::Quant quant, uint64_t positive, uint64_t negative) {
  switch (quant) {
    case litmus::Condition::Quant::Exists: return positive > 0;
    case litmus::Condition::Quant::NotExists: return positive == 0;
    case litmus::Condition::Quant::Forall: return negative == 0;
  }
  return false;
}

}  // namespace ptxmm::outcome
