// Parser for cat models: herd7 7.58 grammar and operator precedence (cat-language.md §2–§5).
// Includes are left unresolved (Instr::included == nullptr); cat/Model resolves them.
#pragma once

#include <string>
#include <string_view>

#include "cat/Ast.hpp"

namespace ptxmm::cat {

/// Parses one cat file; throws DiagnosticError with file:line:col on a syntax error.
[[nodiscard]] ModelFile parseCatFile(std::string_view text, const std::string& file);

/// Parses a single expression (for tests and tools); throws DiagnosticError on a syntax error.
[[nodiscard]] ExprPtr parseCatExpr(std::string_view text, const std::string& file = "<expr>");

/// Prints an expression fully parenthesised, e.g. "((po & loc) ; x)" (for tests and debugging).
[[nodiscard]] std::string exprToString(const Expr& e);

}  // namespace ptxmm::cat
