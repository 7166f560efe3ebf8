// The interface between the cat interpreter and the engines: a relation *algebra*.
//
// cat::Interpreter<A> (cat/Interpreter.hpp) evaluates a parsed model against any type A that
// satisfies the concept cat::Algebra below. The interpreter never looks inside A::Set, A::Rel or
// A::Bool: every set/relation operation and every check goes through A. Two algebras exist:
//   * cat::BitAlgebra (cat/BitAlgebra.hpp): Set = BitSet, Rel = BitMatrix, Bool = bool (enum engine);
//   * the smt engine's symbolic algebra: matrices of z3::expr, Bool = z3::expr.
//
// Events are numbered 0 .. numEvents()-1. "All events" (the universe `_`, complement, identity of
// `r*` and `r?`) means all of them, init writes and fences included (herd7 7.58).
//
// Required members (A is used through a non-const reference, so they may cache or allocate):
//
//   using Set; using Rel; using Bool;          copyable; need NOT be default-constructible
//   size_t numEvents()
//   Set emptySet();  Set fullSet();
//   Rel emptyRel();  Rel fullRel();  Rel identity();
//   Set setUnion(const Set&, const Set&);   Set setInter(...);  Set setDiff(a, b) /* a \ b */;
//   Set setComplement(const Set&);
//   Rel relUnion(const Rel&, const Rel&);   Rel relInter(...);  Rel relDiff(a, b) /* a \ b */;
//   Rel relComplement(const Rel&);
//   Rel seq(const Rel&, const Rel&)          r ; s
//   Rel cross(const Set&, const Set&)        S * T
//   Rel diag(const Set&)                     [S]
//   Rel inverse(const Rel&)                  r^-1
//   Rel plus(const Rel&)                     r+
//   Rel star(const Rel&)                     r*  = r+ ∪ id
//   Rel opt(const Rel&)                      r?  = r ∪ id
//   Set domain(const Rel&);  Set range(const Rel&);
//   Bool acyclic(const Rel&);  Bool irreflexive(const Rel&);
//   Bool isEmptySet(const Set&);  Bool isEmptyRel(const Rel&);
//   Bool notB(const Bool&);
//   bool sameSet(const Set&, const Set&);  bool sameRel(const Rel&, const Rel&);
//        exact equality for a concrete algebra; structural identity is acceptable for a symbolic
//        one. Used for `let rec` convergence and for `if e1 = e2` conditions.
//   std::optional<Set> builtinSet(std::string_view name);
//   std::optional<Rel> builtinRel(std::string_view name);
//        the engine's environment: R W M F IW FW RMW po rf co fr sc loc vloc int ext id rmw addr
//        data ctrl ... and every PTX tag set / relation of docs/design.md. The interpreter asks
//        for a name only if the model does not bind it, at most once per run() (then caches it;
//        with a cat::RunCache, names not in InterpreterOptions::dynamicNames are asked once per
//        cache lifetime), builtinSet first, then builtinRel. std::nullopt for both = "unknown name
//        'x'" error (catchable by `try ... with`, which is how models read optional knobs).
//
// Optional members (detected with `requires`; without them the corresponding feature raises a
// clear "not supported by this algebra" error at the place it is used):
//
//   bool relEmptyForGood(const Rel&)
//        whether a relation is empty in every execution the value stands for (HasEmptyForGood below).
//   Rel restrict(const Set& a, const Rel& r, const Set& b);  bool setEmptyForGood(const Set&)
//        [a] ; r ; [b], and whether a set is empty in every execution (HasRestrict below).
//   void relUnionInPlace(Rel& r, const Rel& s);  void relInterInPlace(Rel& r, const Rel& s)
//        r = r | s and r = r & s (HasInPlace below).
//   std::optional<bool> knownBool(const Bool&)
//        the value of a Bool if it is a constant. Enables the early cut of a run on a failed plain
//        check (RunOptions::stopAtFailedCheck) and `if` conditions built from `subset`/`in`.
//   std::vector<size_t> setElements(const Set&);  std::vector<std::pair<size_t,size_t>> relPairs(const Rel&);
//   Set singletonSet(size_t e);  Rel singletonRel(size_t from, size_t to);
//        element access (concrete algebras only): set matching `x ++ rest`, `forall x in S`,
//        `with x from S` over event sets, events as values.
//   std::vector<Set> classesLoc(const Set&)
//        `classes-loc S`: partition of S by (physical) location.
//   std::vector<Rel> linearisations(const Set& s, const Rel& r)
//        `linearisations(S, r)`: every strict total order on S that contains r restricted to S.
//   static constexpr bool kBoundedFixpointIsExact = true;
//        for a symbolic algebra whose sameRel is only structural: a `let rec` that has not
//        converged structurally after numEvents()+1 Kleene iterations is accepted with the value of
//        the last iteration (exact for the usual monotone closure-like definitions, since every
//        path in a relation on n events has length ≤ n). Without it, non-convergence is an error.
#pragma once

#include <concepts>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxmm::cat {

/// The operations the cat interpreter needs from a relation algebra (see the file comment).
template <class A>
concept Algebra = requires(A& a, const typename A::Set& s, const typename A::Rel& r, const typename A::Bool& b,
                           std::string_view name) {
  typename A::Set;
  typename A::Rel;
  typename A::Bool;
  { a.numEvents() } -> std::convertible_to<size_t>;
  { a.emptySet() } -> std::same_as<typename A::Set>;
  { a.fullSet() } -> std::same_as<typename A::Set>;
  { a.emptyRel() } -> std::same_as<typename A::Rel>;
  { a.fullRel() } -> std::same_as<typename A::Rel>;
  { a.identity() } -> std::same_as<typename A::Rel>;
  { a.setUnion(s, s) } -> std::same_as<typename A::Set>;
  { a.setInter(s, s) } -> std::same_as<typename A::Set>;
  { a.setDiff(s, s) } -> std::same_as<typename A::Set>;
  { a.setComplement(s) } -> std::same_as<typename A::Set>;
  { a.relUnion(r, r) } -> std::same_as<typename A::Rel>;
  { a.relInter(r, r) } -> std::same_as<typename A::Rel>;
  { a.relDiff(r, r) } -> std::same_as<typename A::Rel>;
  { a.relComplement(r) } -> std::same_as<typename A::Rel>;
  { a.seq(r, r) } -> std::same_as<typename A::Rel>;
  { a.cross(s, s) } -> std::same_as<typename A::Rel>;
  { a.diag(s) } -> std::same_as<typename A::Rel>;
  { a.inverse(r) } -> std::same_as<typename A::Rel>;
  { a.plus(r) } -> std::same_as<typename A::Rel>;
  { a.star(r) } -> std::same_as<typename A::Rel>;
  { a.opt(r) } -> std::same_as<typename A::Rel>;
  { a.domain(r) } -> std::same_as<typename A::Set>;
  { a.range(r) } -> std::same_as<typename A::Set>;
  { a.acyclic(r) } -> std::same_as<typename A::Bool>;
  { a.irreflexive(r) } -> std::same_as<typename A::Bool>;
  { a.isEmptySet(s) } -> std::same_as<typename A::Bool>;
  { a.isEmptyRel(r) } -> std::same_as<typename A::Bool>;
  { a.notB(b) } -> std::same_as<typename A::Bool>;
  { a.sameSet(s, s) } -> std::convertible_to<bool>;
  { a.sameRel(r, r) } -> std::convertible_to<bool>;
  { a.builtinSet(name) } -> std::same_as<std::optional<typename A::Set>>;
  { a.builtinRel(name) } -> std::same_as<std::optional<typename A::Rel>>;
};

/// Whether A can tell a relation that is empty and stays so (optional member relEmptyForGood: true only for
/// a relation with no pair in any execution the value stands for, e.g. a static empty one). The interpreter
/// then skips the operations whose result it decides: a sequence through it is it, a union with it is the
/// other operand.
template <class A>
concept HasEmptyForGood = requires(const A& a, const typename A::Rel& r) {
  { a.relEmptyForGood(r) } -> std::same_as<bool>;
};

/// Whether A restricts a relation to a domain and a range directly (optional member `Rel restrict(a, r, b)`:
/// [a] ; r ; [b]). The interpreter then takes the `[S]` operands of a sequence as restrictions of their
/// neighbours instead of composing with a partial identity (a pass over the relation instead of a product).
template <class A>
concept HasRestrict = requires(A& a, const typename A::Set& s, const typename A::Rel& r) {
  { a.restrict(s, r, s) } -> std::same_as<typename A::Rel>;
  { a.setEmptyForGood(s) } -> std::same_as<bool>;
};

/// Whether A unites and intersects relations in place (optional members `relUnionInPlace(r, s)`: r = r | s,
/// `relInterInPlace(r, s)`: r = r & s). The interpreter then reuses the storage of an operand no other value
/// holds (a temporary: `a | b | c` builds one relation, not two).
template <class A>
concept HasInPlace = requires(A& a, typename A::Rel& r, const typename A::Rel& c) {
  a.relUnionInPlace(r, c);
  a.relInterInPlace(r, c);
};

/// Whether A can tell the constant value of a Bool (optional member knownBool).
template <class A>
concept HasKnownBool = requires(A& a, const typename A::Bool& b) {
  { a.knownBool(b) } -> std::same_as<std::optional<bool>>;
};

/// Whether A tells when an equality of two sets / relations is decided (optional members
/// `std::optional<bool> decidedSameSet(a, b)` / `decidedSameRel(a, b)`: nullopt when the values may still
/// change). With them, an `if e1 = e2` on undecided values is an evaluation error rather than a guess.
template <class A>
concept HasDecidedEquality = requires(A& a, const typename A::Set& s, const typename A::Rel& r) {
  { a.decidedSameSet(s, s) } -> std::same_as<std::optional<bool>>;
  { a.decidedSameRel(r, r) } -> std::same_as<std::optional<bool>>;
};

/// Whether A can tell that a failed check stays failed whatever is added to the execution (optional member
/// `bool failsForGood(const Bool&)`, for partial executions): RunOptions::stopAtFailedCheck then cuts there.
template <class A>
concept HasFinalFailure = requires(A& a, const typename A::Bool& b) {
  { a.failsForGood(b) } -> std::convertible_to<bool>;
};

/// Whether A gives access to individual events and pairs (optional element members).
template <class A>
concept HasElements = requires(A& a, const typename A::Set& s, const typename A::Rel& r, size_t e) {
  { a.setElements(s) } -> std::same_as<std::vector<size_t>>;
  { a.relPairs(r) } -> std::same_as<std::vector<std::pair<size_t, size_t>>>;
  { a.singletonSet(e) } -> std::same_as<typename A::Set>;
  { a.singletonRel(e, e) } -> std::same_as<typename A::Rel>;
};

/// Whether A implements `classes-loc`.
template <class A>
concept HasClassesLoc = requires(A& a, const typename A::Set& s) {
  { a.classesLoc(s) } -> std::same_as<std::vector<typename A::Set>>;
};

/// Whether A implements `linearisations(S, r)`.
template <class A>
concept HasLinearisations = requires(A& a, const typename A::Set& s, const typename A::Rel& r) {
  { a.linearisations(s, r) } -> std::same_as<std::vector<typename A::Rel>>;
};

/// Whether A merges the choices of `with x from S` into one outcome instead of forking (a symbolic algebra,
/// whose engine wants one encoding): `static constexpr bool kMergeWithChoices = true;` and
///   std::vector<Bool> choiceSelectors(size_t k)   k literals of which exactly one holds in every model;
///   Bool constB(bool);  Bool andB(const Bool&, const Bool&);  Bool impliesB(const Bool&, const Bool&).
/// Choice k's checks then hold only under its selector (Interpreter.hpp, execTop).
template <class A>
concept HasChoices = requires(A& a, const typename A::Bool& b, size_t k) {
  requires A::kMergeWithChoices;
  { a.choiceSelectors(k) } -> std::same_as<std::vector<typename A::Bool>>;
  { a.constB(true) } -> std::same_as<typename A::Bool>;
  { a.andB(b, b) } -> std::same_as<typename A::Bool>;
  { a.impliesB(b, b) } -> std::same_as<typename A::Bool>;
};

/// Whether a non-converged `let rec` may be accepted after numEvents()+1 iterations (see file comment).
template <class A>
constexpr bool boundedFixpointIsExact() {
  if constexpr (requires { A::kBoundedFixpointIsExact; })
    return A::kBoundedFixpointIsExact;
  else
    return false;
}

}  // namespace ptxmm::cat
