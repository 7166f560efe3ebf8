// Diagnostics with source spans: the error channel for bad input (litmus files, cat models, options).
// Library code never exits or prints; it returns or throws a DiagnosticError that the caller (cli/)
// turns into "file:line:col: error: message" and an exit code.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ptxmm {

/// A position in a source text: 1-based line and column; file may be empty for in-memory text.
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;

  /// "file:line:col" (omits parts that are unknown).
  [[nodiscard]] std::string str() const;
  auto operator<=>(const SourceLoc&) const = default;
};

enum class Severity { Error, Warning, Note };

/// One message about the input, anchored at a source location.
struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;

  /// "file:line:col: error: message", the format of compilers and herd7.
  [[nodiscard]] std::string str() const;
};

/// Thrown inside a parser or interpreter for bad input; caught at the stage boundary.
class DiagnosticError : public std::runtime_error {
 public:
  explicit DiagnosticError(Diagnostic d) : std::runtime_error(d.str()), diag_(std::move(d)) {}
  DiagnosticError(SourceLoc loc, const std::string& message)
      : DiagnosticError(Diagnostic{Severity::Error, std::move(loc), message}) {}
  [[nodiscard]] const Diagnostic& diagnostic() const { return diag_; }

 private:
  Diagnostic diag_;
};

/// Closest candidate to `word` by edit distance ("" if none is within a third of its length + 2).
[[nodiscard]] std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates);

/// Levenshtein distance (used for "did you mean" suggestions).
[[nodiscard]] int editDistance(const std::string& a, const std::string& b);

}  // namespace ptxmm
