// Canonical form of a litmus test: block layout, PTX spelling with every qualifier written out in
// the operations table's canonical order, normalised spacing and condition. The canonical form is a
// fixed point of parse∘print, and its MD5 is the test's hash (`Hash=` in logs).
#pragma once

#include <string>

#include "litmus/Ast.hpp"

namespace ptxmm::litmus {

/// Canonical PTX spelling of one instruction (guard, mnemonic with qualifiers, operands; no ';').
[[nodiscard]] std::string printInstr(const Instr& in);

/// Canonical spelling of an operand (`[x]`, `[s@cta1]`, `[r2+8]`, `{a, _}`, `%ctaid.x`, `42`).
[[nodiscard]] std::string printOperand(const Operand& o);

/// Canonical spelling of a condition term (`1:r0`, `x`, `s@cta1`, `42`).
[[nodiscard]] std::string printTerm(const Term& t);

/// Canonical spelling of a proposition (minimal parentheses, `/\`, `\/`, `~`, `=>`, `=`, `!=`).
[[nodiscard]] std::string printProp(const Prop& p);

/// Canonical spelling of the final condition (`exists (...)`, `~exists (...)`, `forall (...)`).
[[nodiscard]] std::string printCondition(const Condition& c);

/// The canonical form of a whole test (ends with a newline).
[[nodiscard]] std::string printCanonical(const Test& t);

/// MD5 of the canonical form (32 lower-case hex digits).
[[nodiscard]] std::string testHash(const Test& t);

}  // namespace ptxmm::litmus
