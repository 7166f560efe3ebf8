// Final states of a litmus test, the one definition both sides share: the observed terms (registers
// and locations named in the condition or in `locations [...]`, herd convention) in canonical key
// order, the state key "0:r1=1; 1:r2=0; x=2;" (one writer, one parser), and the condition's
// proposition evaluated over a state. The engines (enum/, smt/) key the states they find with it, the
// generated kernels (ptxgen/) observe the same terms in the same order, the runner (runner/) keys its
// histograms with it, and report/ evaluates hardware states with it, so model and hardware keys match.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "litmus/Ast.hpp"

namespace ptxmm::outcome {

/// The observed terms of `test` in canonical key order: registers by (thread, name), then locations
/// by label; those named in the condition (in order of appearance) and in `locations [...]`, each
/// label once. Constants are not terms.
[[nodiscard]] std::vector<litmus::Term> observedTerms(const litmus::Test& test);

/// The state key of `values` for terms labelled `labels` (litmus::printTerm: "0:r1", "x", "s@cta1"),
/// in that order: "0:r1=1; x=-2;" (decimal values; pairs up to the shorter of the two).
[[nodiscard]] std::string stateKey(std::span<const std::string> labels, std::span<const int64_t> values);

/// The items of a state key, label → value (inverse of stateKey; a value may also be written in hex,
/// "0x10"). Items that do not parse are skipped: keys come from the model or from ptxmm's own
/// histograms.
[[nodiscard]] std::map<std::string, int64_t> parseStateKey(const std::string& key);

/// The condition's proposition with terms resolved to indices into StateSpec::terms.
struct ResolvedProp {
  litmus::Prop::Kind kind = litmus::Prop::Kind::True;
  int lhs = -1, rhs = -1;              ///< Eq/Ne: term index, or -1 for a constant
  int64_t lhsConst = 0, rhsConst = 0;  ///< constants of Eq/Ne
  std::vector<ResolvedProp> kids;      ///< Not/And/Or/Implies
};

/// One observed term of a final state.
struct ObservedTerm {
  litmus::Term term;  ///< a register (Reg) or a location's final value (Loc)
  std::string label;  ///< its spelling in state keys (litmus::printTerm)
  /// Loc: the location's index in the lowered program (events::EventProgram::locations), when the spec
  /// was made with a locator; else -1.
  int loc = -1;
  [[nodiscard]] bool isReg() const { return term.kind == litmus::Term::Kind::Reg; }
};

/// Observed terms in key order, and the proposition of interest.
struct StateSpec {
  std::vector<ObservedTerm> terms;
  std::vector<std::string> labels;  ///< terms[i].label
  ResolvedProp prop;                ///< the condition's proposition (not negated, also for forall)

  /// The state key of the term values (stateKey).
  [[nodiscard]] std::string key(const std::vector<int64_t>& values) const { return stateKey(labels, values); }

  /// The term values of a state key (parseStateKey), in key order; a term the key does not name is 0.
  [[nodiscard]] std::vector<int64_t> values(const std::string& key) const;

  /// Whether the proposition holds for these values.
  [[nodiscard]] bool satisfies(const std::vector<int64_t>& values) const { return eval(prop, values); }

  /// Concrete evaluation of a resolved proposition.
  [[nodiscard]] static bool eval(const ResolvedProp& p, const std::vector<int64_t>& values);
};

/// Finds the lowered program's location of a location term (events::findLocation), or nullopt.
using Locator = std::function<std::optional<int>(const litmus::LocRef&)>;

/// The state spec of `test`. With `locate`, each location term gets its index (ObservedTerm::loc).
/// Throws DiagnosticError naming the test file for a condition term that names no thread of the test
/// or (with `locate`) a location it cannot find.
[[nodiscard]] StateSpec makeStateSpec(const litmus::Test& test, const Locator& locate = nullptr);

}  // namespace ptxmm::outcome
