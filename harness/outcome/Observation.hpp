// What the final condition comes to over a set of executions (model) or of test instances
// (hardware): herd7's Observation and validation, from the counts of those satisfying the condition's
// proposition and of those not satisfying it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "litmus/Ast.hpp"

namespace ptxmm::outcome {

/// How often the condition's proposition holds (herd7 `Observation` line, herdtools7
/// herd/top_herd.ml): Never (nothing satisfies it), Always (everything does), else Sometimes, whatever
/// the quantifier (for `forall` as for `exists`).
enum class Observation { Always, Sometimes, Never };

/// Name of an observation: "Always", "Sometimes", "Never".
[[nodiscard]] std::string toString(Observation o);

/// Parses "Always" / "Sometimes" / "Never" (exact spelling).
[[nodiscard]] std::optional<Observation> parseObservation(std::string_view s);

/// The observation of `positive` cases satisfying the proposition and `negative` ones not.
[[nodiscard]] Observation observe(uint64_t positive, uint64_t negative);

/// Whether the quantified condition is validated (herd7 `Ok`, herd/top_herd.ml check_cond): exists
/// positive > 0, ~exists positive = 0, forall negative = 0.
[[nodiscard]] bool validated(litmus::Condition::Quant quant, uint64_t positive, uint64_t negative);

}  // namespace ptxmm::outcome
