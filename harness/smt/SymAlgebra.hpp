// The symbolic cat algebra of the smt engine: event sets are vectors and relations n×n matrices of
// Boolean entries, each entry a tri-state literal (constant false / constant true / a z3 term), so
// that the encoding only contains what can vary between executions of one skeleton. Terms are
// hash-consed in a TermTable; and/or/not simplify constants away. Closures are computed Warshall-style
// over the possible entries (one conjunction and one disjunction per (i, k, j) step); `acyclic`
// introduces bit-vector clock variables (r(i,j) → c_i < c_j, unsigned, as wide as the largest component
// needs) restricted to the non-trivial strongly connected components of the relation's possible edges. With a Frame,
// one algebra covers several path choices at once (sets and relations are read given that their events execute).
#pragma once

#include <z3++.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cat/Algebra.hpp"
#include "support/BitMatrix.hpp"

namespace ptxmm::smt {

/// A tri-state Boolean: 0 = constant false, 1 = constant true, k ≥ 2 = term k of a TermTable.
using Lit = int32_t;
/// Constant false.
inline constexpr Lit kFalse = 0;
/// Constant true.
inline constexpr Lit kTrue = 1;

/// Hash-consed Boolean terms over one z3::context, with constant folding.
class TermTable {
 public:
  /// A table creating its terms in `ctx`.
  explicit TermTable(z3::context& ctx);
  /// The context.
  z3::context& ctx() { return ctx_; }
  /// A fresh Boolean variable named `name` (made unique).
  Lit var(const std::string& name);
  /// Wraps a z3 Boolean expression (constants are folded).
  Lit fromExpr(const z3::expr& e);
  /// The z3 expression of a literal.
  z3::expr expr(Lit l) const;
  /// a ∧ b.
  Lit mkAnd(Lit a, Lit b) {
    // Constants inline: most entries of the model's dense relations are constant.
    if (a == kFalse || b == kFalse) return kFalse;
    if (a == kTrue) return b;
    if (b == kTrue) return a;
    return mkAndTerms(a, b);
  }
  /// a ∨ b.
  Lit mkOr(Lit a, Lit b) {
    if (a == kTrue || b == kTrue) return kTrue;
    if (a == kFalse) return b;
    if (b == kFalse) return a;
    return mkOrTerms(a, b);
  }
  /// ¬a.
  Lit mkNot(Lit a) {
    if (a == kFalse) return kTrue;
    if (a == kTrue) return kFalse;
    return mkNotTerm(a);
  }
  /// a → b.
  Lit mkImplies(Lit a, Lit b) { return mkOr(mkNot(a), b); }
  /// ⋀ ls.
  Lit mkAndN(const std::vector<Lit>& ls);
  /// ⋁ ls.
  Lit mkOrN(const std::vector<Lit>& ls);
  /// Whether `part` is `whole` or, recursively, one of the disjuncts of the disjunction `whole` (so
  /// `part` implies `whole`; kTrue contains every literal).
  [[nodiscard]] bool hasDisjunct(Lit whole, Lit part) const;
  /// Number of terms created (a size measure of the encoding).
  [[nodiscard]] size_t numTerms() const { return terms_.size(); }

 private:
  Lit add(const z3::expr& e);
  Lit mkAndTerms(Lit a, Lit b);  // mkAnd of two terms
  Lit mkOrTerms(Lit a, Lit b);   // mkOr of two terms
  Lit mkNotTerm(Lit a);          // mkNot of a term
  z3::context& ctx_;
  std::vector<z3::expr> terms_;  // terms_[k - 2] is term k
  std::vector<Lit> neg_;         // neg_[k - 2]: cached negation (0 = none yet)
  std::unordered_map<uint64_t, Lit> andCache_, orCache_;
  std::unordered_map<unsigned, Lit> exprIndex_;       // z3 AST id → literal
  std::unordered_map<Lit, std::vector<Lit>> orArgs_;  // disjunctions built by mkOr / mkOrN: their arguments
  std::unordered_multimap<uint64_t, Lit> orNCache_;   // mkOrN of three or more: hash of the arguments → term
  int fresh_ = 0;
};

/// A symbolic event set.
struct SymSet {
  std::vector<Lit> v;  ///< membership per event
};

/// A symbolic relation (row-major n×n).
struct SymRel {
  std::vector<Lit> m;  ///< m[i*n+j]: (i, j) in the relation
};

/// A symbolic check value. `acyclicOf` ≥ 0 marks the clock encoding of `acyclic r` (only valid in
/// positive positions); notB re-encodes it exactly through the closure.
struct SymBool {
  Lit lit = kTrue;     ///< the value
  int acyclicOf = -1;  ///< index of r in the algebra's acyclic store, or -1
};

/// Which events execute, for an encoding of several path choices at once (one per real thread, chosen
/// by selector variables). Every set and relation of a SymAlgebra with a frame is read *given that its
/// events execute*: entry i of a set is "i ∈ S, if i executes", entry (i, j) of a relation "(i, j) ∈ r, if
/// i and j execute". Static built-ins therefore stay constants; the algebra adds `exec` literals where a
/// value depends on other events (the middle event of `;`, the other end in domain/range) and in the checks.
struct Frame {
  std::vector<Lit> exec;  ///< per event: when it executes (kTrue: in every execution)
  /// implied(k, i): whenever event i executes, event k does (k on every path through i, or always executed);
  /// implied(i, i) holds.
  BitMatrix implied;
  /// cooc(i, j): i and j may execute together. Entries outside it are never read, and kept kFalse.
  BitMatrix cooc;
};

/// Symbolic algebra over n events (see cat/Algebra.hpp for the meaning of each member).
class SymAlgebra {
 public:
  using Set = SymSet;    ///< an event set
  using Rel = SymRel;    ///< a relation
  using Bool = SymBool;  ///< a check value

  /// An algebra over n events building terms in `terms`; `prefix` names clock variables. Without a
  /// frame every event executes.
  SymAlgebra(TermTable& terms, size_t n, std::string prefix = "", std::optional<Frame> frame = std::nullopt);

  /// Binds (or rebinds) a built-in set.
  void setSet(std::string name, SymSet s);
  /// Binds (or rebinds) a built-in relation.
  void setRel(std::string name, SymRel r);
  /// A constant set from bits.
  [[nodiscard]] SymSet constSet(const BitSet& s) const;
  /// A constant relation from bits (pairs that never execute together left out).
  [[nodiscard]] SymRel constRel(const BitMatrix& r) const;
  /// The term table.
  TermTable& terms() { return t_; }
  /// Entry (i, j) of r.
  [[nodiscard]] Lit at(const SymRel& r, size_t i, size_t j) const { return r.m[i * n_ + j]; }

  /// Number of events.
  [[nodiscard]] size_t numEvents() const { return n_; }
  /// {}.
  Set emptySet() const { return {std::vector<Lit>(n_, kFalse)}; }
  /// All events.
  Set fullSet() const { return {std::vector<Lit>(n_, kTrue)}; }
  /// 0.
  Rel emptyRel() const { return {relStorage(kFalse)}; }
  /// All pairs.
  Rel fullRel() const { return masked({relStorage(kTrue)}); }
  /// id.
  Rel identity() const;
  /// a | b.
  Set setUnion(const Set& a, const Set& b);
  /// a & b.
  Set setInter(const Set& a, const Set& b);
  /// a \ b.
  Set setDiff(const Set& a, const Set& b);
  /// ~a.
  Set setComplement(const Set& a);
  /// r | s.
  Rel relUnion(const Rel& a, const Rel& b);
  /// r & s.
  Rel relInter(const Rel& a, const Rel& b);
  /// r \ s.
  Rel relDiff(const Rel& a, const Rel& b);
  /// ~r.
  Rel relComplement(const Rel& a);
  /// r ; s.
  Rel seq(const Rel& a, const Rel& b);
  /// S * T.
  Rel cross(const Set& a, const Set& b);
  /// [S].
  Rel diag(const Set& a);
  /// r^-1.
  Rel inverse(const Rel& a);
  /// r+ (Warshall over the possible entries).
  Rel plus(const Rel& a);
  /// r*.
  Rel star(const Rel& a);
  /// r?.
  Rel opt(const Rel& a);
  /// domain(r).
  Set domain(const Rel& a);
  /// range(r).
  Set range(const Rel& a);
  /// acyclic r (bit-vector clock variables).
  Bool acyclic(const Rel& a);
  /// irreflexive r.
  Bool irreflexive(const Rel& a);
  /// empty S.
  Bool isEmptySet(const Set& a);
  /// empty r.
  Bool isEmptyRel(const Rel& a);
  /// Negation (exact also for acyclic).
  Bool notB(const Bool& b);
  /// Structural set equality.
  bool sameSet(const Set& a, const Set& b) const { return a.v == b.v; }
  /// Structural relation equality.
  bool sameRel(const Rel& a, const Rel& b) const { return a.m == b.m; }
  /// Built-in set by name.
  std::optional<Set> builtinSet(std::string_view name) const;
  /// Built-in relation by name.
  std::optional<Rel> builtinRel(std::string_view name) const;
  /// Constant value of a check if it is constant.
  std::optional<bool> knownBool(const Bool& b) const;
  /// Structural fixpoints are exact after n+1 iterations (closure-like definitions).
  static constexpr bool kBoundedFixpointIsExact = true;

  // ---- elements and choices (herd7's set primitives, `with x from S`) ----------------------------------
  /// Members of a constant set (throws DiagnosticError if a membership depends on the execution).
  std::vector<size_t> setElements(const Set& s) const;
  /// Pairs of a constant relation (throws DiagnosticError if an entry depends on the execution).
  std::vector<std::pair<size_t, size_t>> relPairs(const Rel& r) const;
  /// {e}.
  Set singletonSet(size_t e) const;
  /// {(a, b)} (empty if a and b never execute together).
  Rel singletonRel(size_t a, size_t b) const;
  /// classes-loc(S): S split by the built-in `loc` (the classes of loc that S may meet).
  std::vector<Set> classesLoc(const Set& s);
  /// `with` merges its choices into one outcome (cat::HasChoices).
  static constexpr bool kMergeWithChoices = true;
  /// k fresh literals of which exactly one holds in every model (chained: c_j = b_1 ∧ … ∧ b_{j-1} ∧ ¬b_j).
  std::vector<Bool> choiceSelectors(size_t k);
  /// A constant.
  Bool constB(bool v) const { return {v ? kTrue : kFalse, -1}; }
  /// a ∧ b (for positive positions, like the checks they come from).
  Bool andB(const Bool& a, const Bool& b) { return {t_.mkAnd(a.lit, b.lit), -1}; }
  /// a → b.
  Bool impliesB(const Bool& a, const Bool& b) { return {t_.mkImplies(a.lit, b.lit), -1}; }

  /// The relation of an `acyclic` check value (nullptr if b is not one), for the engine's check that the
  /// model forbids value-dependency cycles (smt/ValueLayout.hpp).
  [[nodiscard]] const SymRel* acyclicRelation(const SymBool& b) const {
    return b.acyclicOf >= 0 ? &acyclicStore_[static_cast<size_t>(b.acyclicOf)] : nullptr;
  }

  /// Declares `r` transitive on the events that execute (the engine asserts it: co, sc). A closure step
  /// through entries that are still r's own adds nothing r does not already say, and is skipped.
  void markTransitive(const SymRel& r) { transitive_.push_back(r); }

  /// Size of one non-constant closure (`plus`): its possible entries before and after, and the terms its
  /// Warshall steps created (docs/performance.md "Where the time goes").
  struct ClosureSize {
    size_t entriesIn = 0, entriesOut = 0, terms = 0;
  };
  /// Every non-constant closure built so far, in order.
  [[nodiscard]] const std::vector<ClosureSize>& closureSizes() const { return closureSizes_; }

 private:
  // n×n entries all `fill`, after the test's budget is polled and the memory reserved.
  [[nodiscard]] std::vector<Lit> relStorage(Lit fill) const;
  BitMatrix mayMatrix(const Rel& a) const;
  // exec(k), unless k's execution follows from that of i or j (then kTrue).
  Lit execUnless(size_t k, size_t i, size_t j) const {
    if (!frame_ || frame_->implied.test(k, i) || frame_->implied.test(k, j)) return kTrue;
    return frame_->exec[k];
  }
  // exec(i) (kTrue without a frame).
  Lit exec(size_t i) const { return frame_ ? frame_->exec[i] : kTrue; }
  // Whether i and j may execute together.
  bool cooc(size_t i, size_t j) const { return !frame_ || frame_->cooc.test(i, j); }
  // r with the entries of pairs that never execute together set to kFalse.
  Rel masked(Rel r) const;
  // Buffers of seq(), kept between calls so that a product allocates only its result.
  struct SeqScratch {
    std::vector<size_t> rowStart;
    std::vector<uint32_t> cols, touched;
    std::vector<std::vector<Lit>> acc;
    std::vector<char> isTrue, seen;
  };
  size_t n_;
  SeqScratch seqScratch_;
  std::optional<Frame> frame_;
  TermTable& t_;
  std::string prefix_;
  int clocks_ = 0;
  std::vector<Rel> acyclicStore_;
  std::vector<ClosureSize> closureSizes_;
  std::vector<SymRel> transitive_;  // markTransitive
  std::unordered_map<std::string, SymSet> sets_;
  std::unordered_map<std::string, SymRel> rels_;
};

static_assert(cat::Algebra<SymAlgebra>);
static_assert(cat::HasKnownBool<SymAlgebra> && cat::HasElements<SymAlgebra> && cat::HasClassesLoc<SymAlgebra> &&
              cat::HasChoices<SymAlgebra>);

}  // namespace ptxmm::smt
