// Canonical form of a litmus test: block layout, PTX spelling with every qualifier written out in
// the operations table's canonical order, normalised spacing and condition. The canonical form is a
// fixed point of parse∘print. The test's hash (`Hash=` in logs) follows herd7's recipe
// (herdtools7 lib/testHash.ml): digests of the initial state, the code and the observed locations, not
// of the name, the doc strings or the condition's quantifier and values (litmus/README.md).
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

/// How a proposition is parenthesised. Both spell `/\`, `\/`, `~`, `=>`, `=`, `!=` and terms alike
/// and drop the parentheses that precedence makes redundant (`=>` < `\/` < `/\` < `~`); they differ
/// in a right operand of the same operator: `a /\ (b /\ c)`.
enum class PropStyle {
  /// The canonical form: the tree is kept (the parser reads `/\` and `\/` left-associatively), so a
  /// right operand of the same operator keeps its parentheses (print∘parse is the identity).
  Canonical,
  /// herd7's logs (`Condition` line, check/): `/\` and `\/` printed flat, as herd7 prints them.
  Herd,
};

/// Spelling of a proposition in `style`.
[[nodiscard]] std::string printProp(const Prop& p, PropStyle style);

/// Spelling of the final condition in `style` (`exists (...)`, `~exists (...)`, `forall (...)`).
[[nodiscard]] std::string printCondition(const Condition& c, PropStyle style);

/// The canonical form of a whole test (ends with a newline).
[[nodiscard]] std::string printCanonical(const Test& t);

/// The texts herd7's test hash digests (herdtools7 lib/testHash.ml, `digest`), in ptxmm's spelling.
struct HashInput {
  /// Digested meta-data: herd digests only its MemoryType/MT keys (none here); ptxmm adds
  /// `placement=P0@cta 0,cluster 0,gpu 0 | P1@...` unless every thread Pn sits where a bare `Pn`
  /// header puts it (CTA n, cluster n, GPU 0, no warp). Empty: no digest (herd's "backward
  /// compatibility" case).
  std::string info;
  /// Initial state (`digest_init`): items `loc=v` sorted by location (registers by thread and name,
  /// then the rest by name) and joined by "; ": `0:r1=x; x=0; y=0`. ptxmm's own items use herd's
  /// typed form `T loc=v`: `.shared s=0`, `.shared s@cta1=0`, `.mbarrier bar=2`, `@generic y=x`
  /// (an alias); `.clc_pending=4,6` sorts between registers and memory locations. Values in decimal.
  std::string init;
  /// Code (`digest_code`): the threads as columns of herd's `Misc.string_of_prog` table, each cell
  /// ` <text padded to the column width> `, cells joined by `|`, rows ended by `;` and a newline; a
  /// cell is an instruction in canonical spelling (printInstr) or a label `L00:`, labels being renamed
  /// L00, L01, ... in the order of their original names.
  std::string code;
  /// Observed locations (`digest_observed`): the registers and locations of `locations [...]` and of
  /// the condition, sorted as in `init`, joined by "; ": `1:r0; 1:r1; x`.
  std::string observed;
};

/// The texts the hash digests.
[[nodiscard]] HashInput hashInput(const Test& t);

/// herd7's test hash: MD5 over the concatenated 16-byte MD5 digests of HashInput's info (when not
/// empty), init, code and observed texts, as 32 lower-case hex digits. Spelling (Dat3M or PTX),
/// layout, name, doc strings and the condition's quantifier and values do not enter it.
[[nodiscard]] std::string testHash(const Test& t);

}  // namespace ptxmm::litmus
