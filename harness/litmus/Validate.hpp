// Semantic rules of one parsed instruction (internal to litmus/): the PTX ISA's constraints on
// qualifiers, operands and their combinations, the PTX defaults made explicit, and the Dat3M dialect
// forms read with their meaning (litmus/README.md "Dat3M dialect forms"). The parser (Parser.cpp) reads
// the syntax and calls these once per instruction. One switch per rule set lists every ptx::OpId (no
// `default:`; litmus compiles with -Werror=switch), so a new row of PtxOps.def names the rules it needs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "litmus/Ast.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::litmus {

/// Where each qualifier group of an instruction was written (errors point at the qualifier).
struct QualLocs {
  std::map<std::string, SourceLoc> byGroup;  ///< group name → location of its qualifier
  SourceLoc mnemonic;                        ///< the instruction's mnemonic
  [[nodiscard]] const SourceLoc& at(const std::string& group) const {
    auto it = byGroup.find(group);
    return it == byGroup.end() ? mnemonic : it->second;
  }
};

/// What the rules need to know about the instruction beyond its Instr.
struct InstrContext {
  QualLocs quals;
  std::string mnemonicSpelling;  ///< the base mnemonic or alias as written (`bar.cta.sync`, `barrier.sync`)
  bool bareAddresses = false;    ///< a location operand is written bare (the Dat3M spelling)
  bool blockLayout = false;      ///< the test uses the block layout (PTX spelling) rather than columns
  std::vector<Diagnostic>* warnings = nullptr;  ///< where dialect readings are reported
  std::vector<Instr>* before = nullptr;  ///< instructions inserted before this one (the fence of a Dat3M `.sc` access)
};

/// Reads the Dat3M forms that PTX forbids with the dialect's meaning, with a warning each (only in the
/// Dat3M spelling: bare location operands, no type, no state space; in the PTX spelling validate()
/// rejects them), and the Dat3M barrier operands `K{, ID{, N}}`. May change `in.op` (a `red.acquire` is
/// read as an `atom` into a sink) and append to `*cx.before`.
void readDialectForms(Instr& in, InstrContext& cx);

/// Checks `in` against the PTX ISA's rules for its operation and fills in the PTX defaults (semantics,
/// scope, `.tile`). Throws DiagnosticError at the offending qualifier or operand.
void validate(Instr& in, const InstrContext& cx);

}  // namespace ptxmm::litmus
