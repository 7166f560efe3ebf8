// Expected verdicts of a litmus test per model: the `<test>.expect` file beside `<test>.litmus`
// (format: litmus/README.md, "Expected verdicts"), and their comparison with what a check observed.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "outcome/Observation.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::outcome {

/// The expected verdict of a test for one model: one line of an .expect file,
/// `<model>: <Always|Sometimes|Never> [+flag ...] | <reason>`.
struct Expectation {
  std::string model;                             ///< model file name under models/ without `.cat`
  Observation observation = Observation::Never;  ///< expected observation of the condition
  /// Flags that must be raised (and no others), without the '+' ("data-race", ...), as written: a
  /// set, compared whatever the order.
  std::vector<std::string> flags;
  std::string reason;  ///< mandatory one-line justification (PTX ISA section / shape)
  SourceLoc src;       ///< where the line is
};

/// Why a check that observed `observation` and raised `flags` does not meet `e` ("" if it does):
/// "expected Never but the model gives Sometimes; expected no flags but the model raises +data-race".
[[nodiscard]] std::string expectationMismatch(const Expectation& e, Observation observation,
                                              const std::set<std::string>& flags);

/// Parse the text of an .expect file; throws DiagnosticError (missing reason, bad verdict, ...).
[[nodiscard]] std::vector<Expectation> parseExpectations(std::string_view text, const std::string& file);

/// The bytes of an .expect file; throws DiagnosticError if it cannot be read.
[[nodiscard]] std::string readExpectationText(const std::string& path);

/// Read and parse an .expect file; throws DiagnosticError (also if it cannot be read).
[[nodiscard]] std::vector<Expectation> parseExpectationFile(const std::string& path);

/// `dir/name.litmus` → `dir/name.expect`.
[[nodiscard]] std::string expectationPathFor(const std::string& litmusPath);

/// The expectation for `model`, or nullptr.
[[nodiscard]] const Expectation* findExpectation(const std::vector<Expectation>& all, std::string_view model);

/// The reason `ptxmm check --bless` writes for a verdict nobody has justified yet.
inline constexpr std::string_view kTodoReason = "TODO: explain this verdict (written by ptxmm check --bless)";

/// Whether `reason` is still a placeholder (starts with "TODO:").
[[nodiscard]] bool isTodoReason(std::string_view reason);

/// The text of `e` as one .expect line, without the newline: `<model>: <verdict>[ +flag ...] | <reason>`
/// (parseExpectations reads it back).
[[nodiscard]] std::string formatExpectation(const Expectation& e);

/// What blessExpectations did to an .expect text.
struct Blessed {
  enum Action { Created, Updated, Unchanged };
  Action action = Unchanged;
  std::string text;  ///< the new text of the file (the old text, byte for byte, when Unchanged)
  std::string was;   ///< Updated: the old verdict and flags ("Sometimes +data-race")
};

/// `text` (the .expect file `file`; nullopt: there is none yet) with the line of `model` set to
/// `verdict` and `flags`. A line that already says so (same verdict, same set of flags) is left as it is;
/// a line that says otherwise gets the new verdict and flags and the reason kTodoReason followed by
/// `(was: <old verdict and flags>: <old reason>)`; a missing line is appended with kTodoReason. Other
/// lines, comments and blank lines are kept byte for byte, in order. Throws DiagnosticError where
/// parseExpectations does.
[[nodiscard]] Blessed blessExpectations(const std::optional<std::string>& text, const std::string& file,
                                        const std::string& model, Observation verdict,
                                        const std::vector<std::string>& flags);

/// Writes `text` to `path` atomically: to a new file in the same directory, then renamed over `path` (a
/// symbolic link is written through to its target; an existing file keeps its permissions). Throws
/// DiagnosticError if it cannot (`path` is then untouched).
void writeExpectationFile(const std::string& path, std::string_view text);

}  // namespace ptxmm::outcome
