// The litmus front end: splits a litmus file (herd/Dat3M column layout or real-PTX block layout),
// parses instructions of either spelling against the operations table (ptx/PtxOps.def), validates
// qualifier combinations and references, and produces a litmus::Test. Grammar: litmus/README.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "litmus/Ast.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::litmus {

/// Outcome of a non-throwing parse: the test, or the diagnostics that prevented it.
struct ParseResult {
  std::optional<Test> test;             ///< set iff parsing succeeded
  std::vector<Diagnostic> diagnostics;  ///< errors (empty on success)
  /// True if a test was produced.
  [[nodiscard]] bool ok() const { return test.has_value(); }
};

/// Parse a litmus test from `text`; `file` is used in source locations. Throws DiagnosticError.
[[nodiscard]] Test parseTest(std::string_view text, const std::string& file);

/// Variant of parseTest that returns the diagnostics instead of throwing them. The one exception it lets
/// through is BudgetExceeded, when a budget installed by the caller is spent (support/Budget.hpp).
[[nodiscard]] ParseResult tryParseTest(std::string_view text, const std::string& file);

/// Read and parse a litmus file. Throws DiagnosticError (also when the file cannot be read).
[[nodiscard]] Test parseFile(const std::string& path);

/// Variant of parseFile that returns the diagnostics (BudgetExceeded passes through, as in tryParseTest).
[[nodiscard]] ParseResult tryParseFile(const std::string& path);

/// Parse one instruction (either spelling; optional guard, optional trailing ';') with the given
/// declared location names (identifiers in address positions must be among them). Throws
/// DiagnosticError. Used by tests and tools; labels are not checked.
[[nodiscard]] Instr parseInstruction(std::string_view text, const std::vector<std::string>& locations = {},
                                     const std::string& file = "");

}  // namespace ptxmm::litmus
