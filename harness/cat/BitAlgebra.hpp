// The concrete cat algebra: event sets are BitSets, relations BitMatrices, checks plain bools.
// Used by the enum engine (one run of the interpreter per candidate execution). Built-in names are
// looked up in the maps the algebra is given; the engine typically builds one BitAlgebra per
// skeleton with the static sets/relations and then, per candidate, overwrites the dynamic ones
// (rf, co, fr, sc, FW) with setRel/setSet before calling Interpreter::run.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cat/Algebra.hpp"
#include "support/BitMatrix.hpp"

namespace ptxmm::cat {

/// Transparent string hash so builtin lookups by string_view do not allocate.
struct StringHash {
  using is_transparent = void;  ///< enables heterogeneous lookup
  /// Hash of the characters.
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// The built-in sets and relations an engine binds, by name: the environment of the algebras over
/// partial executions (MonotoneAlgebra, IntervalAlgebra), whose values are Set and Rel.
template <class Set, class Rel>
class BuiltinTable {
 public:
  /// Binds (or rebinds) the set `name`.
  void bindSet(std::string name, Set s) { sets_[std::move(name)] = std::move(s); }
  /// Binds (or rebinds) the relation `name`.
  void bindRel(std::string name, Rel r) { rels_[std::move(name)] = std::move(r); }
  /// The set `name`, if bound.
  std::optional<Set> set(std::string_view name) const {
    auto it = sets_.find(name);
    if (it == sets_.end()) return std::nullopt;
    return it->second;
  }
  /// The relation `name`, if bound.
  std::optional<Rel> rel(std::string_view name) const {
    auto it = rels_.find(name);
    if (it == rels_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::unordered_map<std::string, Set, StringHash, std::equal_to<>> sets_;
  std::unordered_map<std::string, Rel, StringHash, std::equal_to<>> rels_;
};

/// Concrete algebra over n events (see Algebra.hpp for the meaning of every member).
class BitAlgebra {
 public:
  using Set = BitSet;     ///< an event set
  using Rel = BitMatrix;  ///< a relation on events
  using Bool = bool;      ///< a check value

  /// An algebra over events 0..n-1 with no built-in names yet.
  explicit BitAlgebra(size_t n) : n_(n) {}

  /// Binds (or rebinds) the built-in set `name`; its size must be numEvents().
  void setSet(std::string name, BitSet s);
  /// Binds (or rebinds) the built-in relation `name`; its size must be numEvents().
  void setRel(std::string name, BitMatrix r);
  /// Removes a built-in name (set or relation).
  void erase(std::string_view name);

  /// Number of events.
  [[nodiscard]] size_t numEvents() const { return n_; }
  /// {}.
  Set emptySet() const { return BitSet(n_); }
  /// All events.
  Set fullSet() const { return BitSet::full(n_); }
  /// 0.
  Rel emptyRel() const { return BitMatrix(n_); }
  /// All pairs.
  Rel fullRel() const { return BitMatrix::full(n_); }
  /// id on all events.
  Rel identity() const { return BitMatrix::identity(n_); }
  /// a | b.
  Set setUnion(const Set& a, const Set& b) const { return a | b; }
  /// a & b.
  Set setInter(const Set& a, const Set& b) const { return a & b; }
  /// a \ b.
  Set setDiff(const Set& a, const Set& b) const { return a - b; }
  /// ~a.
  Set setComplement(const Set& a) const { return a.complement(); }
  /// r | s.
  Rel relUnion(const Rel& a, const Rel& b) const { return a | b; }
  /// r & s.
  Rel relInter(const Rel& a, const Rel& b) const { return a & b; }
  /// r \ s.
  Rel relDiff(const Rel& a, const Rel& b) const { return a - b; }
  /// ~r.
  Rel relComplement(const Rel& a) const { return a.complement(); }
  /// r ; s.
  Rel seq(const Rel& a, const Rel& b) const { return a.compose(b); }
  /// S * T.
  Rel cross(const Set& a, const Set& b) const { return BitMatrix::cross(a, b); }
  /// [S].
  Rel diag(const Set& a) const { return BitMatrix::diag(a); }
  /// [a] ; r ; [b], and whether S is empty (HasRestrict).
  Rel restrict(const Set& a, const Rel& r, const Set& b) const { return r.restrict(a, b); }
  bool setEmptyForGood(const Set& s) const { return s.none(); }
  /// r = r | s and r = r & s (HasInPlace).
  void relUnionInPlace(Rel& r, const Rel& s) const { r |= s; }
  void relInterInPlace(Rel& r, const Rel& s) const { r &= s; }
  /// r^-1.
  Rel inverse(const Rel& a) const { return a.transpose(); }
  /// r+.
  Rel plus(const Rel& a) const { return a.transitiveClosure(); }
  /// r*.
  Rel star(const Rel& a) const { return a.reflexiveTransitiveClosure(); }
  /// r?.
  Rel opt(const Rel& a) const { return a.reflexive(); }
  /// domain(r).
  Set domain(const Rel& a) const { return a.domain(); }
  /// range(r).
  Set range(const Rel& a) const { return a.range(); }
  /// acyclic r.
  Bool acyclic(const Rel& a) const { return a.acyclic(); }
  /// irreflexive r.
  Bool irreflexive(const Rel& a) const { return a.irreflexive(); }
  /// empty S.
  Bool isEmptySet(const Set& a) const { return a.none(); }
  /// empty r.
  Bool isEmptyRel(const Rel& a) const { return a.none(); }
  /// Whether r is empty (HasEmptyForGood: a concrete relation stands for itself only).
  bool relEmptyForGood(const Rel& r) const { return r.none(); }
  /// Negation.
  Bool notB(const Bool& b) const { return !b; }
  /// Exact set equality.
  bool sameSet(const Set& a, const Set& b) const { return a == b; }
  /// Exact relation equality.
  bool sameRel(const Rel& a, const Rel& b) const { return a == b; }
  /// The built-in set `name`, if bound.
  std::optional<Set> builtinSet(std::string_view name) const;
  /// The built-in relation `name`, if bound.
  std::optional<Rel> builtinRel(std::string_view name) const;

  /// Constant value of a check (always known).
  std::optional<bool> knownBool(const Bool& b) const { return b; }
  /// Members of a set.
  std::vector<size_t> setElements(const Set& s) const { return s.elements(); }
  /// Pairs of a relation.
  std::vector<std::pair<size_t, size_t>> relPairs(const Rel& r) const { return r.pairs(); }
  /// {e}.
  Set singletonSet(size_t e) const;
  /// {(a, b)}.
  Rel singletonRel(size_t a, size_t b) const;
  /// classes-loc(S): partition of S by the built-in relation `loc` (error if `loc` is unbound:
  /// returns the partition into singletons then).
  std::vector<Set> classesLoc(const Set& s) const;
  /// linearisations(S, r): all strict total orders of S containing r restricted to S (none if that
  /// restriction is cyclic). Throws DiagnosticError (without location) beyond 10^6 orders.
  std::vector<Rel> linearisations(const Set& s, const Rel& r) const;

 private:
  size_t n_;
  std::unordered_map<std::string, BitSet, StringHash, std::equal_to<>> sets_;
  std::unordered_map<std::string, BitMatrix, StringHash, std::equal_to<>> rels_;
};

static_assert(Algebra<BitAlgebra>);
static_assert(HasEmptyForGood<BitAlgebra>);
static_assert(HasKnownBool<BitAlgebra> && HasElements<BitAlgebra> && HasClassesLoc<BitAlgebra> &&
              HasLinearisations<BitAlgebra>);

}  // namespace ptxmm::cat
