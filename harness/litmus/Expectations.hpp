// Expected verdicts of a litmus test per model: the `<test>.expect` file beside `<test>.litmus`
// (format: litmus/README.md, "Expected verdicts").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/Diagnostic.hpp"

namespace ptxmm::litmus {

/// One line of an .expect file: `<model>: <Always|Sometimes|Never> [+flag ...] | <reason>`.
struct Expectation {
  /// herd's observation of the final condition over all executions.
  enum Observation { Always, Sometimes, Never };
  std::string model;               ///< model file name under models/ without `.cat`
  Observation verdict = Never;     ///< expected observation
  std::vector<std::string> flags;  ///< flags that must be raised, without the '+' ("data-race", ...)
  std::string reason;              ///< mandatory one-line justification (PTX ISA section / shape)
  SourceLoc src;                   ///< where the line is
};

/// "Always", "Sometimes" or "Never".
[[nodiscard]] std::string_view toString(Expectation::Observation o);

/// Parse "Always"/"Sometimes"/"Never" (exact spelling).
[[nodiscard]] std::optional<Expectation::Observation> parseObservation(std::string_view s);

/// Parse the text of an .expect file; throws DiagnosticError (missing reason, bad verdict, ...).
[[nodiscard]] std::vector<Expectation> parseExpectations(std::string_view text, const std::string& file);

/// Read and parse an .expect file; throws DiagnosticError (also if it cannot be read).
[[nodiscard]] std::vector<Expectation> parseExpectationFile(const std::string& path);

/// `dir/name.litmus` → `dir/name.expect`.
[[nodiscard]] std::string expectationPathFor(const std::string& litmusPath);

/// The expectation for `model`, or nullptr.
[[nodiscard]] const Expectation* findExpectation(const std::vector<Expectation>& all, std::string_view model);

}  // namespace ptxmm::litmus
