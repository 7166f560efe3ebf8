// A concrete cat algebra that also tracks how every value depends on *growing* inputs, so that a model
// can be evaluated on a partial candidate execution and a failed check be known to fail on every
// completion of it.
//
// Each built-in is bound with a direction: Static (fixed), Grows (every completion of the partial
// execution contains the partial value: rf, co, fr and sc built from the decisions taken so far), or
// Unknown (may gain and lose members: FW, value-dependent sets whose values are not known yet). Every
// operator combines the directions of its operands (union, intersection, `;`, `*`, closures, inverse,
// domain, range are monotone; `\` and complement reverse the direction of what they subtract or
// complement). A check on a relation that can only grow keeps failing once it fails (`acyclic`,
// `irreflexive`, `empty`: a cycle, a reflexive pair or a member stays); a negated one keeps failing if
// its relation can only shrink. MBool::failsForGood says so.
//
// Conditions on non-static values (`if`) and element access (`with x from S`, `forall`) are not
// offered: the interpreter reports them as unsupported, and an engine then evaluates only complete
// executions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "cat/Algebra.hpp"
#include "cat/BitAlgebra.hpp"

namespace ptxmm::cat {

/// How a value depends on the growing inputs (bit flags).
enum class Direction : uint8_t {
  Static = 0,   ///< does not depend on them
  Grows = 1,    ///< may only gain members as they grow
  Shrinks = 2,  ///< may only lose members as they grow
  Unknown = 3,  ///< may do both
};

/// The direction of a value computed monotonically from values of directions a and b.
constexpr Direction join(Direction a, Direction b) {
  return static_cast<Direction>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}
/// The reversed direction (complement, right operand of `\`).
constexpr Direction reversed(Direction d) {
  uint8_t v = static_cast<uint8_t>(d);
  return static_cast<Direction>(((v & 1) << 1) | ((v & 2) >> 1));
}

/// A set with its direction.
struct MSet {
  BitSet bits;                        ///< members on the partial execution
  Direction dir = Direction::Static;  ///< how the members change on completions
};

/// A relation with its direction.
struct MRel {
  BitMatrix bits;                     ///< pairs on the partial execution
  Direction dir = Direction::Static;  ///< how the pairs change on completions
};

/// A check value on the partial execution and whether it stays so on every completion.
struct MBool {
  bool value = true;          ///< the check (as written) holds on the partial execution
  bool keepsFailing = false;  ///< if it fails here, it fails on every completion
  bool keepsHolding = false;  ///< if it holds here, it holds on every completion

  /// Fails on the partial execution and on every completion of it.
  [[nodiscard]] bool failsForGood() const { return !value && keepsFailing; }
};

/// Concrete algebra with directions (see the file comment and Algebra.hpp for every member).
class MonotoneAlgebra {
 public:
  using Set = MSet;    ///< an event set
  using Rel = MRel;    ///< a relation
  using Bool = MBool;  ///< a check value

  /// An algebra over events 0..n-1 with no built-in names yet.
  explicit MonotoneAlgebra(size_t n) : b_(n) {}

  /// Binds (or rebinds) the built-in set `name`.
  void setSet(std::string name, BitSet s, Direction d) { env_.bindSet(std::move(name), MSet{std::move(s), d}); }
  /// Binds (or rebinds) the built-in relation `name`.
  void setRel(std::string name, BitMatrix r, Direction d) { env_.bindRel(std::move(name), MRel{std::move(r), d}); }

  /// Number of events.
  [[nodiscard]] size_t numEvents() const { return b_.numEvents(); }
  /// {}.
  Set emptySet() const { return {b_.emptySet(), Direction::Static}; }
  /// All events.
  Set fullSet() const { return {b_.fullSet(), Direction::Static}; }
  /// 0.
  Rel emptyRel() const { return {b_.emptyRel(), Direction::Static}; }
  /// All pairs.
  Rel fullRel() const { return {b_.fullRel(), Direction::Static}; }
  /// id.
  Rel identity() const { return {b_.identity(), Direction::Static}; }
  /// a | b.
  Set setUnion(const Set& a, const Set& b) const { return {a.bits | b.bits, join(a.dir, b.dir)}; }
  /// a & b.
  Set setInter(const Set& a, const Set& b) const { return {a.bits & b.bits, join(a.dir, b.dir)}; }
  /// a \ b.
  Set setDiff(const Set& a, const Set& b) const { return {a.bits - b.bits, join(a.dir, reversed(b.dir))}; }
  /// ~a.
  Set setComplement(const Set& a) const { return {a.bits.complement(), reversed(a.dir)}; }
  /// r | s.
  Rel relUnion(const Rel& a, const Rel& b) const { return {a.bits | b.bits, join(a.dir, b.dir)}; }
  /// r & s.
  Rel relInter(const Rel& a, const Rel& b) const { return {a.bits & b.bits, join(a.dir, b.dir)}; }
  /// r = r | s (HasInPlace).
  void relUnionInPlace(Rel& r, const Rel& s) const {
    r.bits |= s.bits;
    r.dir = join(r.dir, s.dir);
  }
  /// r = r & s (HasInPlace).
  void relInterInPlace(Rel& r, const Rel& s) const {
    r.bits &= s.bits;
    r.dir = join(r.dir, s.dir);
  }
  /// r \ s.
  Rel relDiff(const Rel& a, const Rel& b) const { return {a.bits - b.bits, join(a.dir, reversed(b.dir))}; }
  /// ~r.
  Rel relComplement(const Rel& a) const { return {a.bits.complement(), reversed(a.dir)}; }
  /// r ; s.
  Rel seq(const Rel& a, const Rel& b) const { return {a.bits.compose(b.bits), join(a.dir, b.dir)}; }
  /// S * T.
  Rel cross(const Set& a, const Set& b) const { return {BitMatrix::cross(a.bits, b.bits), join(a.dir, b.dir)}; }
  /// [S].
  Rel diag(const Set& a) const { return {BitMatrix::diag(a.bits), a.dir}; }
  /// [a] ; r ; [b] (HasRestrict).
  Rel restrict(const Set& a, const Rel& r, const Set& b) const {
    return {r.bits.restrict(a.bits, b.bits), join(join(a.dir, r.dir), b.dir)};
  }
  /// r^-1.
  Rel inverse(const Rel& a) const { return {a.bits.transpose(), a.dir}; }
  /// r+.
  Rel plus(const Rel& a) const { return {a.bits.transitiveClosure(), a.dir}; }
  /// r*.
  Rel star(const Rel& a) const { return {a.bits.reflexiveTransitiveClosure(), a.dir}; }
  /// r?.
  Rel opt(const Rel& a) const { return {a.bits.reflexive(), a.dir}; }
  /// domain(r).
  Set domain(const Rel& a) const { return {a.bits.domain(), a.dir}; }
  /// range(r).
  Set range(const Rel& a) const { return {a.bits.range(), a.dir}; }
  /// acyclic r: a cycle stays if r can only grow; acyclicity stays if r can only shrink.
  Bool acyclic(const Rel& a) const { return check(a.bits.acyclic(), a.dir); }
  /// irreflexive r.
  Bool irreflexive(const Rel& a) const { return check(a.bits.irreflexive(), a.dir); }
  /// empty S.
  Bool isEmptySet(const Set& a) const { return check(a.bits.none(), a.dir); }
  /// empty r.
  Bool isEmptyRel(const Rel& a) const { return check(a.bits.none(), a.dir); }
  /// Whether r is empty on the partial execution and every completion (HasEmptyForGood).
  bool relEmptyForGood(const Rel& r) const {
    return (static_cast<uint8_t>(r.dir) & static_cast<uint8_t>(Direction::Grows)) == 0 && r.bits.none();
  }
  /// Whether S is empty on the partial execution and every completion (HasRestrict).
  bool setEmptyForGood(const Set& s) const {
    return (static_cast<uint8_t>(s.dir) & static_cast<uint8_t>(Direction::Grows)) == 0 && s.bits.none();
  }
  /// Negation.
  Bool notB(const Bool& b) const { return {!b.value, b.keepsHolding, b.keepsFailing}; }
  /// Exact set equality (members and direction; `let rec` convergence).
  bool sameSet(const Set& a, const Set& b) const { return a.bits == b.bits && a.dir == b.dir; }
  /// Exact relation equality.
  bool sameRel(const Rel& a, const Rel& b) const { return a.bits == b.bits && a.dir == b.dir; }
  /// The built-in set `name`, if bound.
  std::optional<Set> builtinSet(std::string_view name) const { return env_.set(name); }
  /// The built-in relation `name`, if bound.
  std::optional<Rel> builtinRel(std::string_view name) const { return env_.rel(name); }
  /// The value of a check that no completion can change (for `if` and the early cut).
  std::optional<bool> knownBool(const Bool& b) const {
    if (b.keepsFailing && b.keepsHolding) return b.value;
    return std::nullopt;
  }
  /// Whether a check fails on the partial execution and on every completion of it.
  bool failsForGood(const Bool& b) const { return b.failsForGood(); }
  /// An equality condition, when no completion can change it (both values static).
  std::optional<bool> decidedSameSet(const Set& a, const Set& b) const {
    if (a.dir != Direction::Static || b.dir != Direction::Static) return std::nullopt;
    return a.bits == b.bits;
  }
  /// An equality condition on relations, when no completion can change it.
  std::optional<bool> decidedSameRel(const Rel& a, const Rel& b) const {
    if (a.dir != Direction::Static || b.dir != Direction::Static) return std::nullopt;
    return a.bits == b.bits;
  }

 private:
  // A check "no cycle / no reflexive pair / no member" on a value of direction d.
  static Bool check(bool holds, Direction d) {
    const auto v = static_cast<uint8_t>(d);
    return {holds, (v & static_cast<uint8_t>(Direction::Shrinks)) == 0,
            (v & static_cast<uint8_t>(Direction::Grows)) == 0};
  }
  BitAlgebra b_;
  BuiltinTable<MSet, MRel> env_;
};

static_assert(Algebra<MonotoneAlgebra>);
static_assert(HasEmptyForGood<MonotoneAlgebra>);
static_assert(HasKnownBool<MonotoneAlgebra> && HasDecidedEquality<MonotoneAlgebra> && HasFinalFailure<MonotoneAlgebra>);

}  // namespace ptxmm::cat
