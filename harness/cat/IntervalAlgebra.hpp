// A concrete cat algebra over *intervals*: every value is a pair of bounds (lo, hi) such that, on every
// execution the engine still considers, the value lies between them (lo ⊆ value ⊆ hi). An engine binds
// each built-in with the least and the most any such execution can have (rf: the sources decided so far,
// and those plus every source still possible; a static relation: the same set twice), and the model's
// definitions get bounds by the usual interval rules: union, intersection, `;`, closures, inverse,
// domain and range are monotone in both operands (lo from the lows, hi from the highs); `a \ b` is
// (lo a \ hi b, hi a \ lo b) and the complement swaps the bounds. A check holds on some execution only
// if it holds on lo (`empty`, `acyclic`, `irreflexive` stay false once lo breaks them) and fails on
// some only if it fails on hi.
//
// Unlike cat::MonotoneAlgebra, which follows one binding and the direction its values change in, this
// one also bounds what a value can become from above, through differences: ptx.cat's
// `data-race = conflict-pairs \ (ms | cause | cause^-1)` is bounded above by subtracting the *least*
// causality, so a test whose conflicting accesses are all morally strong is known never to race before
// any rf is chosen. The enum engine uses it to tell which flags the executions of a path choice may
// raise (docs/design.md "States, not executions"). Conditions on undecided values (`if`) and element
// access are not offered, as in MonotoneAlgebra.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "cat/Algebra.hpp"
#include "cat/BitAlgebra.hpp"

namespace ptxmm::cat {

/// A set known to lie between two bounds.
struct ISet {
  BitSet lo;  ///< members of every execution's value
  BitSet hi;  ///< every member an execution's value may have
};

/// A relation known to lie between two bounds.
struct IRel {
  BitMatrix lo;  ///< pairs of every execution's value
  BitMatrix hi;  ///< every pair an execution's value may have
};

/// What a check can come to on the executions the bounds describe.
struct IBool {
  bool canHold = true;  ///< holds (as written) on some execution, as far as the bounds tell
  bool canFail = true;  ///< fails on some execution, as far as the bounds tell
};

/// Concrete algebra of bounds (see the file comment and Algebra.hpp for every member).
class IntervalAlgebra {
 public:
  using Set = ISet;    ///< an event set
  using Rel = IRel;    ///< a relation
  using Bool = IBool;  ///< a check value

  /// An algebra over events 0..n-1 with no built-in names yet.
  explicit IntervalAlgebra(size_t n) : b_(n) {}

  /// Binds (or rebinds) the built-in set `name` to the bounds lo ⊆ hi.
  void setSet(std::string name, BitSet lo, BitSet hi) {
    env_.bindSet(std::move(name), ISet{std::move(lo), std::move(hi)});
  }
  /// Binds (or rebinds) the built-in relation `name` to the bounds lo ⊆ hi.
  void setRel(std::string name, BitMatrix lo, BitMatrix hi) {
    env_.bindRel(std::move(name), IRel{std::move(lo), std::move(hi)});
  }

  /// Number of events.
  [[nodiscard]] size_t numEvents() const { return b_.numEvents(); }
  /// {}.
  Set emptySet() const { return exact(b_.emptySet()); }
  /// All events.
  Set fullSet() const { return exact(b_.fullSet()); }
  /// 0.
  Rel emptyRel() const { return exact(b_.emptyRel()); }
  /// All pairs.
  Rel fullRel() const { return exact(b_.fullRel()); }
  /// id.
  Rel identity() const { return exact(b_.identity()); }
  /// a | b.
  Set setUnion(const Set& a, const Set& b) const { return {a.lo | b.lo, a.hi | b.hi}; }
  /// a & b.
  Set setInter(const Set& a, const Set& b) const { return {a.lo & b.lo, a.hi & b.hi}; }
  /// a \ b: least when b is largest.
  Set setDiff(const Set& a, const Set& b) const { return {a.lo - b.hi, a.hi - b.lo}; }
  /// ~a.
  Set setComplement(const Set& a) const { return {a.hi.complement(), a.lo.complement()}; }
  /// r | s.
  Rel relUnion(const Rel& a, const Rel& b) const { return {a.lo | b.lo, a.hi | b.hi}; }
  /// r & s.
  Rel relInter(const Rel& a, const Rel& b) const { return {a.lo & b.lo, a.hi & b.hi}; }
  /// r \ s: least when s is largest.
  Rel relDiff(const Rel& a, const Rel& b) const { return {a.lo - b.hi, a.hi - b.lo}; }
  /// ~r.
  Rel relComplement(const Rel& a) const { return {a.hi.complement(), a.lo.complement()}; }
  /// r ; s.
  Rel seq(const Rel& a, const Rel& b) const { return {a.lo.compose(b.lo), a.hi.compose(b.hi)}; }
  /// S * T.
  Rel cross(const Set& a, const Set& b) const { return {BitMatrix::cross(a.lo, b.lo), BitMatrix::cross(a.hi, b.hi)}; }
  /// [S].
  Rel diag(const Set& a) const { return {BitMatrix::diag(a.lo), BitMatrix::diag(a.hi)}; }
  /// [a] ; r ; [b], and whether S is empty in every execution (HasRestrict).
  Rel restrict(const Set& a, const Rel& r, const Set& b) const {
    return {r.lo.restrict(a.lo, b.lo), r.hi.restrict(a.hi, b.hi)};
  }
  bool setEmptyForGood(const Set& s) const { return s.hi.none(); }
  /// r = r | s and r = r & s (HasInPlace).
  void relUnionInPlace(Rel& r, const Rel& s) const {
    r.lo |= s.lo;
    r.hi |= s.hi;
  }
  void relInterInPlace(Rel& r, const Rel& s) const {
    r.lo &= s.lo;
    r.hi &= s.hi;
  }
  /// r^-1.
  Rel inverse(const Rel& a) const { return {a.lo.transpose(), a.hi.transpose()}; }
  /// r+.
  Rel plus(const Rel& a) const { return {a.lo.transitiveClosure(), a.hi.transitiveClosure()}; }
  /// r*.
  Rel star(const Rel& a) const { return {a.lo.reflexiveTransitiveClosure(), a.hi.reflexiveTransitiveClosure()}; }
  /// r?.
  Rel opt(const Rel& a) const { return {a.lo.reflexive(), a.hi.reflexive()}; }
  /// domain(r).
  Set domain(const Rel& a) const { return {a.lo.domain(), a.hi.domain()}; }
  /// range(r).
  Set range(const Rel& a) const { return {a.lo.range(), a.hi.range()}; }
  /// acyclic r: a cycle of lo is in every execution's value; hi acyclic means every value is.
  Bool acyclic(const Rel& a) const { return {a.lo.acyclic(), !a.hi.acyclic()}; }
  /// irreflexive r.
  Bool irreflexive(const Rel& a) const { return {a.lo.irreflexive(), !a.hi.irreflexive()}; }
  /// empty S.
  Bool isEmptySet(const Set& a) const { return {a.lo.none(), a.hi.any()}; }
  /// empty r.
  Bool isEmptyRel(const Rel& a) const { return {a.lo.none(), a.hi.any()}; }
  /// Whether r is empty in every execution of the bounds (HasEmptyForGood).
  bool relEmptyForGood(const Rel& r) const { return r.hi.none(); }
  /// Negation.
  Bool notB(const Bool& b) const { return {b.canFail, b.canHold}; }
  /// Exact equality of the bounds (`let rec` convergence).
  bool sameSet(const Set& a, const Set& b) const { return a.lo == b.lo && a.hi == b.hi; }
  /// Exact equality of the bounds.
  bool sameRel(const Rel& a, const Rel& b) const { return a.lo == b.lo && a.hi == b.hi; }
  /// The built-in set `name`, if bound.
  std::optional<Set> builtinSet(std::string_view name) const { return env_.set(name); }
  /// The built-in relation `name`, if bound.
  std::optional<Rel> builtinRel(std::string_view name) const { return env_.rel(name); }
  /// The value of a check that is the same on every execution (for `if` and the early cut).
  std::optional<bool> knownBool(const Bool& b) const {
    if (b.canHold == b.canFail) return std::nullopt;
    return b.canHold;
  }
  /// Whether a check fails on every execution.
  bool failsForGood(const Bool& b) const { return !b.canHold; }
  /// An equality condition, when the bounds decide it.
  std::optional<bool> decidedSameSet(const Set& a, const Set& b) const {
    if (a.lo == a.hi && b.lo == b.hi) return a.lo == b.lo;
    if (!a.lo.subsetOf(b.hi) || !b.lo.subsetOf(a.hi)) return false;
    return std::nullopt;
  }
  /// An equality condition on relations, when the bounds decide it.
  std::optional<bool> decidedSameRel(const Rel& a, const Rel& b) const {
    if (a.lo == a.hi && b.lo == b.hi) return a.lo == b.lo;
    if (!a.lo.subsetOf(b.hi) || !b.lo.subsetOf(a.hi)) return false;
    return std::nullopt;
  }

 private:
  static Set exact(const BitSet& s) { return {s, s}; }
  static Rel exact(const BitMatrix& r) { return {r, r}; }
  BitAlgebra b_;
  BuiltinTable<ISet, IRel> env_;
};

static_assert(Algebra<IntervalAlgebra>);
static_assert(HasEmptyForGood<IntervalAlgebra>);
static_assert(HasKnownBool<IntervalAlgebra> && HasDecidedEquality<IntervalAlgebra> && HasFinalFailure<IntervalAlgebra>);

}  // namespace ptxmm::cat
