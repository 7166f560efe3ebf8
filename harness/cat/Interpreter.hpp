// The cat interpreter, generic over a relation algebra (cat/Algebra.hpp).
//
//   cat::Model m = cat::loadModel("models/ptx.cat");
//   cat::Interpreter<cat::BitAlgebra> interp(m);         // compile once (names -> slots)
//   cat::BitAlgebra alg(n); alg.setRel("po", po); ...     // per candidate execution
//   cat::ModelResult<cat::BitAlgebra> r = interp.run(alg);
//   for (const auto& o : r.outcomes) if (cat::isAllowed(o)) ...
//
// Speed: names are resolved to frame slots when the Interpreter is built; `let` bindings are lazy
// (as in herd: an unused definition is never evaluated, and its errors never raised). For many
// runs over the same static built-ins (one skeleton, many rf/co/sc choices), pass a RunCache:
//   cat::RunCache<cat::BitAlgebra> cache;                // per skeleton (or cache.clear())
//   interp.run(alg, {}, &cache);
// top-level definitions that depend on no InterpreterOptions::dynamicNames (default rf co fr sc FW)
// and no `with` variable are then computed once and reused (ptx.cat at 16 events: ~45 us/run
// instead of ~130 us).
//
// Semantics of the result (herd7 7.58):
//   * run() evaluates the model once; every `with x from S` forks the rest of the model for each
//     element of S. Each complete evaluation path is one Outcome (no `with`: exactly one Outcome;
//     `with` over an empty set: no Outcome at all, i.e. the candidate has no allowed execution).
//   * Each evaluated check gives one CheckResult with `value` = "the written test holds", the `~`
//     included. So for `acyclic r as X` value = acyclic(r); for `flag ~empty race as data-race`
//     value = race is non-empty = the flag is RAISED. By kind:
//       Check:     the outcome is allowed only if value is true;
//       Flag:      value true = flag raised;
//       Undefined: value false = the outcome is undefined behaviour (herd "Flag *undef*");
//       Assert:    value false = the model asserts (run() throws if the algebra knows it is false).
//   * Checks inside `forall` bodies and procedures are reported once per evaluation, under the
//     check's name. Skipped checks (InterpreterOptions::skipChecks) are not evaluated at all.
//   * With RunOptions::stopAtFailedCheck (default) and an algebra that can decide Bools (knownBool),
//     evaluation of an outcome stops at the first failing plain check: the outcome is then marked
//     `cut` and its last CheckResult is that failing check.
// Errors (type errors, unknown names, non-converging let rec, ...) are thrown as DiagnosticError
// with the file:line:col of the offending expression. run() is const and thread-safe: one
// Interpreter can serve several threads, each with its own algebra.
#pragma once

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cat/Algebra.hpp"
#include "cat/Compiled.hpp"
#include "cat/Model.hpp"
#include "support/Budget.hpp"

namespace ptxmm::cat {

/// The value of one check in one outcome.
template <class A>
struct CheckResult {
  const CheckInfo* info;   ///< static description (kept alive by the enclosing Outcome)
  typename A::Bool value;  ///< the written test holds (`~` included): see the file comment
};

/// A relation or set recorded by `show`, or the tested value of a `flag` / `undefined_unless` check (only
/// with RunOptions::collectShows): what a witness shows of the execution.
template <class A>
struct ShowResult {
  std::string name;                    ///< shown name, or the check's name
  std::optional<typename A::Rel> rel;  ///< if the value is a relation
  std::optional<typename A::Set> set;  ///< if the value is an event set
  std::optional<CheckKind> check;      ///< Flag / Undefined: the value a check tested (the racing pairs, the
                                       ///< events with undefined behaviour); nullopt for `show`
};

/// One complete evaluation path of the model (one choice for every `with`).
template <class A>
struct Outcome {
  std::vector<CheckResult<A>> checks;  ///< in evaluation order
  std::vector<ShowResult<A>> shows;    ///< `show`n values (if collected)
  bool cut = false;                    ///< stopped at a failing plain check (see file comment)
  std::shared_ptr<const void> owner;   ///< keeps the CheckInfo of `checks` alive after the Interpreter
};

/// Result of one run of the model.
template <class A>
struct ModelResult {
  std::vector<Outcome<A>> outcomes;  ///< one per `with` choice path (exactly one if no `with`)
};

/// Options of one run.
struct RunOptions {
  bool stopAtFailedCheck = true;  ///< cut an outcome at its first known-false plain check (or, with an
                                  ///< algebra that has failsForGood, one that fails for good)
  bool collectShows = false;      ///< evaluate `show` instructions into Outcome::shows
  bool plainChecksOnly = false;   ///< skip flags and undefined_unless (their definitions are not evaluated)
  /// When set (one rank per check of checks()): the plain checks of the model's top level are evaluated
  /// after its other top-level instructions (before a `with`, and at the end), in increasing rank, so
  /// that with stopAtFailedCheck a check likely to fail is tried before costly ones. Bindings are never
  /// overwritten, so a check sees the same values later; what changes is the order of Outcome::checks
  /// and, with stopAtFailedCheck, which failing check cuts the outcome. A check ranked kSkipCheck is not
  /// evaluated (Outcome::checks lacks it).
  const std::vector<uint32_t>* checkRank = nullptr;
  static constexpr uint32_t kSkipCheck = UINT32_MAX;
};

/// Whether an outcome of a concrete run is allowed (every plain check holds).
template <class A>
requires std::same_as<typename A::Bool, bool>
bool isAllowed(const Outcome<A>& o) {
  for (const auto& c : o.checks)
    if (c.info->kind == CheckKind::Check && !c.value) return false;
  return true;
}

/// Whether an outcome of a concrete run has undefined behaviour (an undefined_unless failed).
template <class A>
requires std::same_as<typename A::Bool, bool>
bool isUndefined(const Outcome<A>& o) {
  for (const auto& c : o.checks)
    if (c.info->kind == CheckKind::Undefined && !c.value) return true;
  return false;
}

/// Names of the flags raised in an outcome of a concrete run (in order, without duplicates).
template <class A>
requires std::same_as<typename A::Bool, bool> std::vector<std::string> raisedFlags(const Outcome<A>& o) {
  std::vector<std::string> out;
  for (const auto& c : o.checks)
    if (c.info->kind == CheckKind::Flag && c.value) {
      bool seen = false;
      for (const auto& s : out) seen = seen || s == c.info->name;
      if (!seen) out.push_back(c.info->name);
    }
  return out;
}

namespace detail {

/// Kinds of run-time values.
enum class VK : uint8_t { Empty, Universe, Set, Rel, Tag, ValSet, Tuple, Closure, Proc, Prim, Event, Pair, Guarded };

template <class A>
struct Frame;

/// A run-time value: kind, small payload (tag/prim id, event, pair) or a shared heap payload.
template <class A>
struct Value {
  VK k = VK::Empty;
  size_t a = 0, b = 0;
  std::shared_ptr<const void> p;
};

/// A set of values whose elements exist only under a condition on the execution (`generate_cos`,
/// `linearisations` over a relation that depends on it, in a symbolic algebra): only `with` ranges over it.
template <class A>
struct GuardedVals {
  std::vector<Value<A>> elems;
  std::vector<typename A::Bool> guards;  ///< guards[k]: elems[k] is an element
};

/// A closure or procedure with its defining frame.
template <class A>
struct ClosureData {
  const CFun* fun = nullptr;
  const CProc* proc = nullptr;
  std::shared_ptr<Frame<A>> env;
};

/// One variable slot: a value, or a pending lazy right-hand side.
template <class A>
struct Slot {
  Value<A> v;
  const CExpr* thunk = nullptr;
  uint8_t st = 0;  ///< 0 unset, 1 thunk, 2 evaluating, 3 done
};

/// An activation frame (top level, function call, procedure call, forall iteration).
template <class A>
struct Frame {
  std::vector<Slot<A>> slots;
  std::shared_ptr<Frame> parent;
};

}  // namespace detail

/// Values of the static part of a model (top-level definitions and built-ins that do not depend on
/// InterpreterOptions::dynamicNames), kept between runs. Valid while the static built-ins the
/// algebra returns stay the same (e.g. one skeleton of the enum engine): call clear() when they
/// change. Not thread-safe: one cache per thread. Use with one Interpreter only.
template <class A>
class RunCache {
 public:
  /// Forgets every cached value.
  void clear() {
    slots_.clear();
    builtins_.clear();
    exprs_.clear();
  }

 private:
  template <Algebra>
  friend class Interpreter;
  std::vector<std::optional<detail::Value<A>>> slots_;
  std::vector<std::optional<detail::Value<A>>> builtins_;
  std::vector<std::optional<detail::Value<A>>> exprs_;  // CExpr::cacheId -> value
  std::vector<char> missing_;
};

/// Evaluates a compiled cat model against an algebra (see the file comment).
template <Algebra A>
class Interpreter {
 public:
  using Set = typename A::Set;    ///< event set
  using Rel = typename A::Rel;    ///< relation
  using Bool = typename A::Bool;  ///< check value

  /// Compiles `model` (names resolved, variants decided); throws DiagnosticError on static errors.
  explicit Interpreter(const Model& model, const InterpreterOptions& opts = {})
      : cm_(detail::compileModelShared(model, opts)) {}

  /// Runs the model once; throws DiagnosticError on evaluation errors (see the file comment).
  /// With a cache, static definitions computed by an earlier run with the same cache are reused.
  ModelResult<A> run(A& alg, const RunOptions& ro = {}, RunCache<A>* cache = nullptr) const {
    if (ro.checkRank && ro.checkRank->size() != cm_->checks.size())
      throw std::logic_error("internal error: RunOptions::checkRank has " + std::to_string(ro.checkRank->size()) +
                             " ranks for " + std::to_string(cm_->checks.size()) + " checks");
    Ctx cx{alg, ro,    std::vector<std::optional<V>>(cm_->builtinNames.size()), {}, {}, {}, {}, {},
           {},  cache, std::vector<char>(cm_->builtinNames.size(), 0)};
    if (cache && (cache->slots_.size() != static_cast<size_t>(cm_->topSlots) ||
                  cache->builtins_.size() != cm_->builtinNames.size())) {
      cache->slots_.assign(static_cast<size_t>(cm_->topSlots), std::nullopt);
      cache->builtins_.assign(cm_->builtinNames.size(), std::nullopt);
      cache->missing_.assign(cm_->builtinNames.size(), 0);
    }
    if (cache && cache->exprs_.size() != static_cast<size_t>(cm_->cachedExprs))
      cache->exprs_.assign(static_cast<size_t>(cm_->cachedExprs), std::nullopt);
    // Closures stored in frames point back to their frames: clear every frame at the end of the
    // run (also on errors) to break those reference cycles.
    struct Clear {
      Ctx& cx;
      ~Clear() {
        for (auto& fr : cx.frames) fr->slots.clear();
      }
    } clear{cx};
    auto top = newFrame(cm_->topSlots, nullptr, cx);
    ModelResult<A> res;
    cx.result = &res;
    Outcome<A> first;
    first.owner = cm_;
    execTop(cm_->top, 0, top, std::move(first), cx);
    return res;
  }

  /// The checks of the model, in program order (CheckResult::info points into this vector).
  [[nodiscard]] const std::vector<CheckInfo>& checks() const { return cm_->checks; }
  /// Names the model leaves to the algebra (built-in sets/relations it may ask for).
  [[nodiscard]] const std::vector<std::string>& builtinNames() const { return cm_->builtinNames; }

 private:
  using V = detail::Value<A>;
  using VK = detail::VK;
  using Frame = detail::Frame<A>;
  using FramePtr = std::shared_ptr<Frame>;
  using CExpr = detail::CExpr;
  using CInstr = detail::CInstr;
  using Op = detail::Op;
  using IOp = detail::IOp;

  struct Ctx {
    A& alg;
    const RunOptions& ro;
    std::vector<std::optional<V>> builtins;
    std::shared_ptr<const Set> emptySet, fullSet;
    std::shared_ptr<const Rel> emptyRel, fullRel;
    ModelResult<A>* result = nullptr;
    std::vector<FramePtr> frames;  ///< every frame of the run (cleared at the end)
    RunCache<A>* cache = nullptr;
    std::vector<char> missing;  ///< builtin index -> the algebra does not know it
    int depth = 0;              ///< function call depth
  };

  static constexpr int kMaxCallDepth = 400;  ///< bound on nested function calls (no stack overflow, also under ASan)

  FramePtr newFrame(int nslots, FramePtr parent, Ctx& cx) const {
    auto fr = std::make_shared<Frame>();
    fr->slots.resize(static_cast<size_t>(nslots));
    fr->parent = std::move(parent);
    cx.frames.push_back(fr);
    return fr;
  }

  std::shared_ptr<const detail::CompiledModel> cm_;

  // ---- values ----------------------------------------------------------------------------------

  static V mkSet(Set s) { return V{VK::Set, 0, 0, std::make_shared<const Set>(std::move(s))}; }
  static V mkRel(Rel r) { return V{VK::Rel, 0, 0, std::make_shared<const Rel>(std::move(r))}; }
  static V mkVec(VK k, std::vector<V> v) { return V{k, 0, 0, std::make_shared<const std::vector<V>>(std::move(v))}; }
  static const Set& setOf(const V& v) { return *static_cast<const Set*>(v.p.get()); }
  static const Rel& relOf(const V& v) { return *static_cast<const Rel*>(v.p.get()); }
  static const std::vector<V>& vecOf(const V& v) { return *static_cast<const std::vector<V>*>(v.p.get()); }
  static const detail::ClosureData<A>& cloOf(const V& v) {
    return *static_cast<const detail::ClosureData<A>*>(v.p.get());
  }

  static const char* kindName(VK k) {
    switch (k) {
      case VK::Empty: return "{}";
      case VK::Universe: return "_";
      case VK::Set: return "an event set";
      case VK::Rel: return "a relation";
      case VK::Tag: return "a tag";
      case VK::ValSet: return "a set of values";
      case VK::Tuple: return "a tuple";
      case VK::Closure: return "a function";
      case VK::Proc: return "a procedure";
      case VK::Prim: return "a primitive function";
      case VK::Event: return "an event";
      case VK::Pair: return "an event pair";
      case VK::Guarded: return "a set of values that depends on the execution";
    }
    return "a value";
  }

  [[noreturn]] static void fail(const SourceLoc& loc, const std::string& msg) { throw DiagnosticError(loc, msg); }

  std::shared_ptr<const Set> sharedEmptySet(Ctx& cx) const {
    if (!cx.emptySet) cx.emptySet = std::make_shared<const Set>(cx.alg.emptySet());
    return cx.emptySet;
  }
  std::shared_ptr<const Set> sharedFullSet(Ctx& cx) const {
    if (!cx.fullSet) cx.fullSet = std::make_shared<const Set>(cx.alg.fullSet());
    return cx.fullSet;
  }
  std::shared_ptr<const Rel> sharedEmptyRel(Ctx& cx) const {
    if (!cx.emptyRel) cx.emptyRel = std::make_shared<const Rel>(cx.alg.emptyRel());
    return cx.emptyRel;
  }
  std::shared_ptr<const Rel> sharedFullRel(Ctx& cx) const {
    if (!cx.fullRel) cx.fullRel = std::make_shared<const Rel>(cx.alg.fullRel());
    return cx.fullRel;
  }

  /// The value as an event set (promoting {}, _ and events), or a type error at loc.
  std::shared_ptr<const Set> asSet(const V& v, const SourceLoc& loc, Ctx& cx, const char* what) const {
    switch (v.k) {
      case VK::Set: return std::static_pointer_cast<const Set>(v.p);
      case VK::Empty: return sharedEmptySet(cx);
      case VK::Universe: return sharedFullSet(cx);
      case VK::Event:
        if constexpr (HasElements<A>) return std::make_shared<const Set>(cx.alg.singletonSet(v.a));
        [[fallthrough]];
      default:
        fail(loc, std::string(what) + " expects an event set, got " + kindName(v.k) +
                      (v.k == VK::Rel ? " (relation used where a set is expected)" : ""));
    }
  }
  /// The value as a relation (promoting {}, _ and pairs), or a type error at loc.
  std::shared_ptr<const Rel> asRel(const V& v, const SourceLoc& loc, Ctx& cx, const char* what) const {
    switch (v.k) {
      case VK::Rel: return std::static_pointer_cast<const Rel>(v.p);
      case VK::Empty: return sharedEmptyRel(cx);
      case VK::Universe: return sharedFullRel(cx);
      case VK::Pair:
        if constexpr (HasElements<A>) return std::make_shared<const Rel>(cx.alg.singletonRel(v.a, v.b));
        [[fallthrough]];
      default:
        fail(loc, std::string(what) + " expects a relation, got " + kindName(v.k) +
                      (v.k == VK::Set ? " (set used where a relation is expected)" : ""));
    }
  }

  /// Whether v is a relation (or {}) that is empty in every execution it stands for (HasEmptyForGood): the
  /// operations whose result it decides are skipped (the enum engine's model runs, where most of a model's
  /// relations are empty for a given test: tensor cores, tensor maps, cluster launch control, ...).
  bool emptyForGood(const V& v, Ctx& cx) const {
    if (v.k == VK::Empty) return true;
    if constexpr (HasEmptyForGood<A>)
      if (v.k == VK::Rel) return cx.alg.relEmptyForGood(relOf(v));
    return false;
  }

  static bool isSetLike(const V& v) { return v.k == VK::Set || v.k == VK::Event; }
  static bool isRelLike(const V& v) { return v.k == VK::Rel || v.k == VK::Pair; }

  bool valueEqual(const V& x, const V& y, Ctx& cx, const SourceLoc& loc) const {
    if (x.k == VK::Empty || y.k == VK::Empty) {
      const V& o = x.k == VK::Empty ? y : x;
      if (o.k == VK::Empty) return true;
      if (o.k == VK::ValSet) return vecOf(o).empty();
      if (o.k == VK::Set) return cx.alg.sameSet(setOf(o), *sharedEmptySet(cx));
      if (o.k == VK::Rel) return cx.alg.sameRel(relOf(o), *sharedEmptyRel(cx));
      return false;
    }
    if (isSetLike(x) && isSetLike(y)) {
      if (x.k == VK::Event && y.k == VK::Event) return x.a == y.a;
      return cx.alg.sameSet(*asSet(x, loc, cx, "="), *asSet(y, loc, cx, "="));
    }
    if (isRelLike(x) && isRelLike(y)) {
      if (x.k == VK::Pair && y.k == VK::Pair) return x.a == y.a && x.b == y.b;
      return cx.alg.sameRel(*asRel(x, loc, cx, "="), *asRel(y, loc, cx, "="));
    }
    if (x.k != y.k) return false;
    switch (x.k) {
      case VK::Universe: return true;
      case VK::Tag:
      case VK::Prim: return x.a == y.a;
      case VK::Tuple: {
        const auto &a = vecOf(x), &b = vecOf(y);
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
          if (!valueEqual(a[i], b[i], cx, loc)) return false;
        return true;
      }
      case VK::ValSet: {
        const auto &a = vecOf(x), &b = vecOf(y);
        if (a.size() != b.size()) return false;
        for (const auto& e : a)
          if (!memberOf(e, b, cx, loc)) return false;
        return true;
      }
      default: return x.p == y.p;
    }
  }
  bool memberOf(const V& e, const std::vector<V>& s, Ctx& cx, const SourceLoc& loc) const {
    for (const auto& x : s)
      if (valueEqual(e, x, cx, loc)) return true;
    return false;
  }
  void addUnique(std::vector<V>& s, const V& e, Ctx& cx, const SourceLoc& loc) const {
    if (!memberOf(e, s, cx, loc)) s.push_back(e);
  }

  /// Elements of a collection value: value sets, event sets (events), relations (pairs).
  std::vector<V> elementsOf(const V& v, const SourceLoc& loc, Ctx& cx, const char* what) const {
    switch (v.k) {
      case VK::Empty: return {};
      case VK::ValSet: return vecOf(v);
      case VK::Set:
      case VK::Rel:
      case VK::Universe:
        if constexpr (HasElements<A>) {
          std::vector<V> out;
          try {
            if (v.k == VK::Rel) {
              for (auto [x, y] : cx.alg.relPairs(relOf(v))) out.push_back(V{VK::Pair, x, y, nullptr});
            } else {
              for (size_t e : cx.alg.setElements(*asSet(v, loc, cx, what))) out.push_back(V{VK::Event, e, 0, nullptr});
            }
          } catch (const DiagnosticError& ex) {
            if (ex.diagnostic().loc.line > 0) throw;
            fail(loc, std::string(what) + ": " + ex.diagnostic().message);
          }
          return out;
        } else {
          fail(loc, std::string(what) + " over events is not supported by this (symbolic) algebra");
        }
      case VK::Guarded:
        fail(loc, std::string(what) +
                      " over a set of values that depends on the execution is not supported by this (symbolic) "
                      "algebra: only 'with x from' can range over it");
      default: fail(loc, std::string(what) + " expects a set, got " + kindName(v.k));
    }
  }

  /// A set of values from elements and their guards: a plain set of values when every guard is known
  /// (the false ones left out), else a guarded one.
  V guardedSet(std::vector<V> elems, std::vector<Bool> guards, Ctx& cx) const {
    bool allKnown = true;
    std::vector<V> kept;
    for (size_t k = 0; k < elems.size(); ++k) {
      std::optional<bool> g;
      if constexpr (HasKnownBool<A>) g = cx.alg.knownBool(guards[k]);
      if (!g) {
        allKnown = false;
        break;
      }
      if (*g) kept.push_back(elems[k]);
    }
    if (allKnown) return mkVec(VK::ValSet, std::move(kept));
    auto g = std::make_shared<detail::GuardedVals<A>>();
    g->elems = std::move(elems);
    g->guards = std::move(guards);
    return V{VK::Guarded, 0, 0, std::move(g)};
  }

  // ---- variables -------------------------------------------------------------------------------

  V lookup(const CExpr& e, const FramePtr& f, Ctx& cx) const {
    Frame* fr = f.get();
    FramePtr owner = f;
    for (int d = 0; d < e.depth; ++d) {
      owner = fr->parent;
      fr = owner.get();
    }
    const auto slot = static_cast<size_t>(e.slot);
    auto& s = fr->slots[slot];
    if (s.st == 3) return s.v;
    if (s.st == 1) {
      const bool cacheable = cx.cache && !fr->parent && cm_->staticSlot[slot];
      if (cacheable && cx.cache->slots_[slot]) {
        s.v = *cx.cache->slots_[slot];
        s.st = 3;
        return s.v;
      }
      s.st = 2;
      try {
        V v = eval(*s.thunk, owner, cx);
        auto& s2 = fr->slots[slot];
        s2.v = v;
        s2.st = 3;
        if (cacheable && v.k != VK::Closure && v.k != VK::Proc) cx.cache->slots_[slot] = v;
        return v;
      } catch (...) {
        fr->slots[static_cast<size_t>(e.slot)].st = 1;
        throw;
      }
    }
    if (s.st == 2) fail(e.loc, "'" + e.name + "' is defined in terms of itself (use 'let rec')");
    fail(e.loc, "'" + e.name + "' is used before it is defined");
  }

  /// The algebra's value for a free name, or nullopt if it does not know it (cached per run and,
  /// for static names, in the RunCache).
  const std::optional<V>& tryBuiltin(const CExpr& e, Ctx& cx) const {
    const auto id = static_cast<size_t>(e.id);
    auto& slot = cx.builtins[id];
    if (slot || cx.missing[id]) return slot;
    const bool cacheable = cx.cache && !cm_->dynamicBuiltin[id];
    if (cacheable && (cx.cache->builtins_[id] || cx.cache->missing_[id])) {
      slot = cx.cache->builtins_[id];
      cx.missing[id] = cx.cache->missing_[id];
      return slot;
    }
    const std::string& name = cm_->builtinNames[id];
    if (auto s = cx.alg.builtinSet(name)) {
      slot = mkSet(std::move(*s));
    } else if (auto r = cx.alg.builtinRel(name)) {
      slot = mkRel(std::move(*r));
    } else if (const CExpr* fb = cm_->builtinFallback[id]) {
      // herd7's name, defined over ptxmm's built-ins (cat/HerdLib.hpp)
      try {
        slot = eval(*fb, newFrame(cm_->builtinFallbackSlots[id], nullptr, cx), cx);
      } catch (const DiagnosticError&) {
        cx.missing[id] = 1;
      }
      if (slot && (slot->k == VK::Closure || slot->k == VK::Proc)) return slot;  // frames die with the run
    } else {
      cx.missing[id] = 1;
    }
    if (cacheable) {
      cx.cache->builtins_[id] = slot;
      cx.cache->missing_[id] = cx.missing[id];
    }
    return slot;
  }

  V builtin(const CExpr& e, Ctx& cx) const {
    const auto& v = tryBuiltin(e, cx);
    if (!v) {
      const std::string& name = cm_->builtinNames[static_cast<size_t>(e.id)];
      std::string best;
      int bestD = std::max<int>(1, static_cast<int>(name.size()) / 3) + 1;
      for (const auto& c : cm_->boundNames) {
        int d = editDistance(name, c);
        if (d < bestD || (d == bestD && !best.empty() && c.size() == name.size() && best.size() != name.size())) {
          best = c;
          bestD = d;
        }
      }
      fail(e.loc, "unknown name '" + name + "'" + (best.empty() ? "" : " (did you mean '" + best + "'?)"));
    }
    return *v;
  }

  static void setSlot(Frame& f, int slot, V v) {
    if (slot < 0) return;
    auto& s = f.slots[static_cast<size_t>(slot)];
    s.v = std::move(v);
    s.st = 3;
    s.thunk = nullptr;
  }

  void bindPattern(Frame& f, const std::vector<int>& slots, bool tuple, const V& v, const SourceLoc& loc,
                   const std::string& what) const {
    if (!tuple) {
      setSlot(f, slots[0], v);
      return;
    }
    size_t have = v.k == VK::Tuple ? vecOf(v).size() : (v.k == VK::Empty ? 0 : 1);
    if (v.k == VK::Pair && slots.size() == 2) {
      setSlot(f, slots[0], V{VK::Event, v.a, 0, nullptr});
      setSlot(f, slots[1], V{VK::Event, v.b, 0, nullptr});
      return;
    }
    if ((v.k != VK::Tuple && !(v.k == VK::Empty && slots.empty())) || have != slots.size())
      fail(loc, what + " expects " + std::to_string(slots.size()) + " argument" + (slots.size() == 1 ? "" : "s") +
                    ", got " + std::to_string(have));
    for (size_t i = 0; i < slots.size(); ++i) setSlot(f, slots[i], vecOf(v)[i]);
  }

  void bindLet(const std::vector<detail::CBind>& binds, const FramePtr& f, Ctx& cx) const {
    // simultaneous: evaluate eager right-hand sides first (lazy ones read the frame as it is now,
    // which is correct because their names were resolved before the new bindings)
    for (const auto& b : binds) {
      if (b.isFun) {
        setSlot(*f, b.slots[0], eval(*b.expr, f, cx));
      } else if (b.tuple) {
        V v = eval(*b.expr, f, cx);
        bindPattern(*f, b.slots, true, v, b.loc, "pattern");
      } else if (b.slots[0] >= 0) {
        auto& s = f->slots[static_cast<size_t>(b.slots[0])];
        s.thunk = b.expr;
        s.st = 1;
        s.v = V{};
      }
    }
  }

  void bindLetRec(const std::vector<detail::CBind>& binds, const FramePtr& f, Ctx& cx) const {
    size_t nonFun = 0;
    for (const auto& b : binds) {
      if (b.isFun)
        setSlot(*f, b.slots[0], eval(*b.expr, f, cx));
      else {
        setSlot(*f, b.slots[0], V{});
        ++nonFun;
      }
    }
    if (nonFun == 0) return;
    const bool cacheable = cx.cache && !f->parent && std::all_of(binds.begin(), binds.end(), [&](const auto& b) {
                             return b.isFun || cm_->staticSlot[static_cast<size_t>(b.slots[0])];
                           });
    if (cacheable && std::all_of(binds.begin(), binds.end(), [&](const auto& b) {
          return b.isFun || cx.cache->slots_[static_cast<size_t>(b.slots[0])].has_value();
        })) {
      for (const auto& b : binds)
        if (!b.isFun) setSlot(*f, b.slots[0], *cx.cache->slots_[static_cast<size_t>(b.slots[0])]);
      return;
    }
    const size_t cap = nonFun * (static_cast<size_t>(cx.alg.numEvents()) + 1) + 1;
    std::vector<V> next(binds.size());
    for (size_t iter = 0;; ++iter) {
      for (size_t i = 0; i < binds.size(); ++i)
        if (!binds[i].isFun) next[i] = eval(*binds[i].expr, f, cx);
      bool same = true;
      for (size_t i = 0; i < binds.size() && same; ++i)
        if (!binds[i].isFun)
          same = valueEqual(next[i], f->slots[static_cast<size_t>(binds[i].slots[0])].v, cx, binds[i].loc);
      for (size_t i = 0; i < binds.size(); ++i)
        if (!binds[i].isFun) setSlot(*f, binds[i].slots[0], next[i]);
      if (same) {
        if (cacheable)
          for (size_t i = 0; i < binds.size(); ++i)
            if (!binds[i].isFun && next[i].k != VK::Closure && next[i].k != VK::Proc)
              cx.cache->slots_[static_cast<size_t>(binds[i].slots[0])] = next[i];
        return;
      }
      if (iter + 1 >= cap) {
        if constexpr (boundedFixpointIsExact<A>()) return;
        fail(binds[0].loc, "'let rec' definition of '" + binds[0].name + "' does not converge after " +
                               std::to_string(cap) + " iterations (non-monotone definition?)");
      }
    }
  }

  // ---- expressions -----------------------------------------------------------------------------

  [[noreturn]] void typeMismatch(const char* op, const V& x, const V& y, const SourceLoc& loc, Ctx& cx) const {
    std::string msg = std::string("type error: ") + op + " of " + kindName(x.k) + " and " + kindName(y.k);
    const bool zero = (x.k == VK::Rel && x.p == cx.emptyRel) || (y.k == VK::Rel && y.p == cx.emptyRel);
    if (zero && (x.k == VK::Set || y.k == VK::Set)) msg += " ('0' is the empty relation; the empty set is {})";
    fail(loc, msg);
  }

  // Whether v is a relation that no other value holds (a temporary of the expression being evaluated, not a
  // definition's value, a cached one or a built-in): the in-place operations may reuse it.
  static bool owned(const V& v) { return v.k == VK::Rel && v.p.use_count() == 1; }

  V unionV(const V& x, const V& y, const SourceLoc& loc, Ctx& cx) const {
    if (x.k == VK::Empty) return y;
    if (y.k == VK::Empty) return x;
    if (x.k == VK::Universe || y.k == VK::Universe) return V{VK::Universe, 0, 0, nullptr};
    if (isSetLike(x) && isSetLike(y)) return mkSet(cx.alg.setUnion(*asSet(x, loc, cx, "|"), *asSet(y, loc, cx, "|")));
    if (isRelLike(x) && isRelLike(y)) {
      if (emptyForGood(x, cx)) return y;
      if (emptyForGood(y, cx)) return x;
      if constexpr (HasInPlace<A>)
        if (owned(x)) {  // a temporary: its storage becomes the result
          cx.alg.relUnionInPlace(const_cast<Rel&>(relOf(x)), *asRel(y, loc, cx, "|"));
          return x;
        }
      return mkRel(cx.alg.relUnion(*asRel(x, loc, cx, "|"), *asRel(y, loc, cx, "|")));
    }
    if (x.k == VK::ValSet && y.k == VK::ValSet) {
      std::vector<V> out = vecOf(x);
      for (const auto& e : vecOf(y)) addUnique(out, e, cx, loc);
      return mkVec(VK::ValSet, std::move(out));
    }
    typeMismatch("'|'", x, y, loc, cx);
  }
  V interV(const V& x, const V& y, const SourceLoc& loc, Ctx& cx) const {
    if (x.k == VK::Empty || y.k == VK::Empty) return V{};
    if (x.k == VK::Universe) return y;
    if (y.k == VK::Universe) return x;
    if (isSetLike(x) && isSetLike(y)) return mkSet(cx.alg.setInter(*asSet(x, loc, cx, "&"), *asSet(y, loc, cx, "&")));
    if (isRelLike(x) && isRelLike(y)) {
      if (emptyForGood(x, cx)) return x;
      if (emptyForGood(y, cx)) return y;
      if constexpr (HasInPlace<A>) {
        if (owned(x)) {
          cx.alg.relInterInPlace(const_cast<Rel&>(relOf(x)), *asRel(y, loc, cx, "&"));
          return x;
        }
        if (owned(y)) {
          cx.alg.relInterInPlace(const_cast<Rel&>(relOf(y)), *asRel(x, loc, cx, "&"));
          return y;
        }
      }
      return mkRel(cx.alg.relInter(*asRel(x, loc, cx, "&"), *asRel(y, loc, cx, "&")));
    }
    if (x.k == VK::ValSet && y.k == VK::ValSet) {
      std::vector<V> out;
      for (const auto& e : vecOf(x))
        if (memberOf(e, vecOf(y), cx, loc)) out.push_back(e);
      return mkVec(VK::ValSet, std::move(out));
    }
    typeMismatch("'&'", x, y, loc, cx);
  }
  V diffV(const V& x, const V& y, const SourceLoc& loc, Ctx& cx) const {
    if (x.k == VK::Empty) return V{};
    if (y.k == VK::Empty) return x;
    if (y.k == VK::Universe) return V{};
    if (x.k == VK::Universe) return complV(y, loc, cx);
    if (isSetLike(x) && isSetLike(y)) return mkSet(cx.alg.setDiff(*asSet(x, loc, cx, "\\"), *asSet(y, loc, cx, "\\")));
    if (isRelLike(x) && isRelLike(y)) {
      if (emptyForGood(x, cx) || emptyForGood(y, cx)) return x;
      return mkRel(cx.alg.relDiff(*asRel(x, loc, cx, "\\"), *asRel(y, loc, cx, "\\")));
    }
    if (x.k == VK::ValSet && y.k == VK::ValSet) {
      std::vector<V> out;
      for (const auto& e : vecOf(x))
        if (!memberOf(e, vecOf(y), cx, loc)) out.push_back(e);
      return mkVec(VK::ValSet, std::move(out));
    }
    typeMismatch("'\\'", x, y, loc, cx);
  }
  V complV(const V& x, const SourceLoc& loc, Ctx& cx) const {
    switch (x.k) {
      case VK::Empty: return V{VK::Universe, 0, 0, nullptr};
      case VK::Universe: return V{};
      case VK::Set:
      case VK::Event: return mkSet(cx.alg.setComplement(*asSet(x, loc, cx, "~")));
      case VK::Rel:
      case VK::Pair: return mkRel(cx.alg.relComplement(*asRel(x, loc, cx, "~")));
      case VK::ValSet: {
        const auto& v = vecOf(x);
        if (v.empty() || v[0].k != VK::Tag) fail(loc, "'~' on a set of values needs a non-empty set of tags");
        int en = cm_->tagEnum[v[0].a];
        if (en < 0) fail(loc, "'~': tag '" + cm_->tagNames[v[0].a] + "' is not declared by an enum");
        std::vector<V> out;
        for (int t : cm_->enums[static_cast<size_t>(en)]) {
          V tv{VK::Tag, static_cast<size_t>(t), 0, nullptr};
          if (!memberOf(tv, v, cx, loc)) out.push_back(tv);
        }
        return mkVec(VK::ValSet, std::move(out));
      }
      default: fail(loc, std::string("'~' cannot complement ") + kindName(x.k));
    }
  }

  // r1 ; ... ; rk with an algebra that restricts (HasRestrict): an operand `[S]` restricts the range of the
  // composition before it, or the domain of the relation after it, instead of being composed as a partial
  // identity. Every operand is evaluated (and type-checked); the compositions are skipped when one relation
  // operand is empty for good, which makes the sequence so.
  V seqRestricting(const CExpr& e, const FramePtr& f, Ctx& cx) const {
    struct Item {
      std::shared_ptr<const Rel> rel;  // a relation operand
      std::shared_ptr<const Set> set;  // a `[S]` operand (all events for `[_]`, the identity)
    };
    std::vector<Item> items;
    items.reserve(e.args.size());
    bool empty = false;
    for (const auto& a : e.args) {
      if (a->op == Op::Diag || a->diagArg) {
        // `[S]`, or a name of the top frame for a static `let x = [S]` (evaluated there)
        const CExpr& arg = a->diagArg ? *a->diagArg : *a->args[0];
        V x = eval(arg, f, cx);
        items.push_back({nullptr, asSet(x, arg.loc, cx, "'[...]'")});
        empty = empty || cx.alg.setEmptyForGood(*items.back().set);
        continue;
      }
      V v = eval(*a, f, cx);
      empty = empty || emptyForGood(v, cx);
      items.push_back({asRel(v, a->loc, cx, "';'"), nullptr});
    }
    if (empty) return V{VK::Rel, 0, 0, sharedEmptyRel(cx)};
    // The composition so far is [dom] ; cur ; [range] (restrictions not applied yet: one pass for both).
    std::shared_ptr<const Rel> cur;
    std::shared_ptr<const Set> dom, range;
    auto narrow = [&](std::shared_ptr<const Set>& to, const std::shared_ptr<const Set>& s) {
      to = to ? std::make_shared<const Set>(cx.alg.setInter(*to, *s)) : s;
    };
    auto applied = [&]() {
      if (dom || range)
        cur = std::make_shared<const Rel>(
            cx.alg.restrict(dom ? *dom : *sharedFullSet(cx), *cur, range ? *range : *sharedFullSet(cx)));
      dom.reset();
      range.reset();
      return cur;
    };
    for (const Item& it : items) {
      if (it.set)
        narrow(cur ? range : dom, it.set);
      else if (cur)
        cur = std::make_shared<const Rel>(cx.alg.seq(*applied(), *it.rel));
      else
        cur = it.rel;
    }
    if (!cur) return mkRel(cx.alg.diag(*dom));
    return V{VK::Rel, 0, 0, applied()};
  }

  V eval(const CExpr& e, const FramePtr& f, Ctx& cx) const {
    if (e.cacheId >= 0 && cx.cache) {  // a static subexpression (CExpr::cacheId)
      auto& c = cx.cache->exprs_[static_cast<size_t>(e.cacheId)];
      if (c) return *c;
      V v = evalOp(e, f, cx);
      if (v.k == VK::Set || v.k == VK::Rel) c = v;
      return v;
    }
    return evalOp(e, f, cx);
  }

  V evalOp(const CExpr& e, const FramePtr& f, Ctx& cx) const {
    switch (e.op) {
      case Op::EmptySet: return V{};
      case Op::Zero: return V{VK::Rel, 0, 0, sharedEmptyRel(cx)};
      case Op::Universe: return V{VK::Universe, 0, 0, nullptr};
      case Op::Local: return lookup(e, f, cx);
      case Op::Builtin: return builtin(e, cx);
      case Op::Prim: return V{VK::Prim, static_cast<size_t>(e.id), 0, nullptr};
      case Op::Tag: return V{VK::Tag, static_cast<size_t>(e.id), 0, nullptr};
      case Op::Str: fail(e.loc, "a string is not a value here");
      case Op::Union: {
        V acc = eval(*e.args[0], f, cx);
        for (size_t i = 1; i < e.args.size(); ++i) {
          V next = eval(*e.args[i], f, cx);
          if (acc.k == VK::Rel && owned(next) && !owned(acc)) std::swap(acc, next);  // unite into the temporary
          acc = unionV(acc, next, e.args[i]->loc, cx);
        }
        return acc;
      }
      case Op::Inter: return interV(eval(*e.args[0], f, cx), eval(*e.args[1], f, cx), e.args[1]->loc, cx);
      case Op::Diff: return diffV(eval(*e.args[0], f, cx), eval(*e.args[1], f, cx), e.args[1]->loc, cx);
      case Op::Seq: {
        if constexpr (HasRestrict<A>) return seqRestricting(e, f, cx);
        // Every operand is evaluated (and type-checked); the compositions are skipped when one operand is
        // empty for good, which makes the sequence so.
        std::vector<std::shared_ptr<const Rel>> rels;
        rels.reserve(e.args.size());
        bool empty = false;
        for (const auto& a : e.args) {
          V v = eval(*a, f, cx);
          empty = empty || emptyForGood(v, cx);
          rels.push_back(asRel(v, a->loc, cx, "';'"));
        }
        if (empty) return V{VK::Rel, 0, 0, sharedEmptyRel(cx)};
        Rel cur = cx.alg.seq(*rels[0], *rels[1]);
        for (size_t i = 2; i < rels.size(); ++i) cur = cx.alg.seq(cur, *rels[i]);
        return mkRel(std::move(cur));
      }
      case Op::Cross: {
        V x = eval(*e.args[0], f, cx), y = eval(*e.args[1], f, cx);
        return mkRel(cx.alg.cross(*asSet(x, e.args[0]->loc, cx, "'*'"), *asSet(y, e.args[1]->loc, cx, "'*'")));
      }
      case Op::Add: {
        V x = eval(*e.args[0], f, cx), s = eval(*e.args[1], f, cx);
        if (s.k == VK::Empty || s.k == VK::ValSet) {
          if (s.k == VK::Empty && x.k == VK::Event) return unionV(x, V{}, e.loc, cx);
          std::vector<V> out = s.k == VK::Empty ? std::vector<V>{} : vecOf(s);
          addUnique(out, x, cx, e.loc);
          return mkVec(VK::ValSet, std::move(out));
        }
        if (s.k == VK::Set && x.k == VK::Event) return unionV(s, x, e.loc, cx);
        if (s.k == VK::Rel && x.k == VK::Pair) return unionV(s, x, e.loc, cx);
        fail(e.args[1]->loc, std::string("'++' expects a set, got ") + kindName(s.k));
      }
      case Op::Star: return mkRel(cx.alg.star(*asRel(eval(*e.args[0], f, cx), e.args[0]->loc, cx, "'*'")));
      case Op::Plus: {
        V x = eval(*e.args[0], f, cx);
        std::shared_ptr<const Rel> r = asRel(x, e.args[0]->loc, cx, "'+'");
        if (emptyForGood(x, cx)) return V{VK::Rel, 0, 0, r};
        return mkRel(cx.alg.plus(*r));
      }
      case Op::Opt: return mkRel(cx.alg.opt(*asRel(eval(*e.args[0], f, cx), e.args[0]->loc, cx, "'?'")));
      case Op::Compl: return complV(eval(*e.args[0], f, cx), e.args[0]->loc, cx);
      case Op::Inv: {
        V x = eval(*e.args[0], f, cx);
        if (x.k == VK::Pair) return V{VK::Pair, x.b, x.a, nullptr};
        return mkRel(cx.alg.inverse(*asRel(x, e.args[0]->loc, cx, "'^-1'")));
      }
      case Op::Diag: {
        V x = eval(*e.args[0], f, cx);
        if (x.k == VK::Universe) return mkRel(cx.alg.identity());
        return mkRel(cx.alg.diag(*asSet(x, e.args[0]->loc, cx, "'[...]'")));
      }
      case Op::App: return apply(eval(*e.args[0], f, cx), eval(*e.args[1], f, cx), e, cx);
      case Op::Tuple: {
        std::vector<V> out;
        out.reserve(e.args.size());
        for (const auto* a : e.args) out.push_back(eval(*a, f, cx));
        return mkVec(VK::Tuple, std::move(out));
      }
      case Op::ExplicitSet: {
        std::vector<V> out;
        bool events = true, pairs = true;
        for (const auto* a : e.args) {
          V v = eval(*a, f, cx);
          events = events && v.k == VK::Event;
          pairs = pairs && v.k == VK::Pair;
          addUnique(out, v, cx, a->loc);
        }
        if (events || pairs) {
          V acc{};
          for (const auto& v : out) acc = unionV(acc, v, e.loc, cx);
          return acc;
        }
        return mkVec(VK::ValSet, std::move(out));
      }
      case Op::Fun: {
        auto c = std::make_shared<detail::ClosureData<A>>();
        c->fun = e.fun;
        c->env = f;
        return V{VK::Closure, 0, 0, std::move(c)};
      }
      case Op::Proc: {
        auto c = std::make_shared<detail::ClosureData<A>>();
        c->proc = e.proc;
        c->env = f;
        return V{VK::Proc, 0, 0, std::move(c)};
      }
      case Op::Let: bindLet(e.binds, f, cx); return eval(*e.args[0], f, cx);
      case Op::LetRec: bindLetRec(e.binds, f, cx); return eval(*e.args[0], f, cx);
      case Op::MatchTag: {
        V x = eval(*e.args[0], f, cx);
        if (x.k != VK::Tag) fail(e.args[0]->loc, std::string("match on tags expects a tag, got ") + kindName(x.k));
        for (const auto& arm : e.arms)
          if (arm.tag < 0 || static_cast<size_t>(arm.tag) == x.a) return eval(*arm.body, f, cx);
        fail(e.loc, "no match case for tag '" + cm_->tagNames[x.a] + "'");
      }
      case Op::MatchSet: {
        V x = eval(*e.args[0], f, cx);
        std::vector<V> elems = elementsOf(x, e.args[0]->loc, cx, "match");
        for (const auto& arm : e.arms) {
          if (arm.emptyArm) {
            if (elems.empty()) return eval(*arm.body, f, cx);
            continue;
          }
          if (arm.elemSlot < 0) return eval(*arm.body, f, cx);  // default
          if (elems.empty()) continue;
          setSlot(*f, arm.belowSlot, V{});
          setSlot(*f, arm.elemSlot, elems[0]);
          V rest{};
          if (x.k == VK::ValSet) {
            rest = mkVec(VK::ValSet, std::vector<V>(elems.begin() + 1, elems.end()));
          } else {
            for (size_t i = 1; i < elems.size(); ++i) rest = unionV(rest, elems[i], e.loc, cx);
          }
          setSlot(*f, arm.restSlot, rest);
          return eval(*arm.body, f, cx);
        }
        fail(e.loc, "no match case for this set");
      }
      case Op::If: return evalCond(*e.cond, f, cx) ? eval(*e.args[0], f, cx) : eval(*e.args[1], f, cx);
      case Op::Try: {
        if (e.args[0]->op == Op::Builtin) {  // fast path for `try knob with default`: no exception
          const auto& v = tryBuiltin(*e.args[0], cx);
          return v ? *v : eval(*e.args[1], f, cx);
        }
        try {
          return eval(*e.args[0], f, cx);
        } catch (const DiagnosticError&) {
          return eval(*e.args[1], f, cx);
        }
      }
    }
    fail(e.loc, "internal error: unknown opcode");
  }

  bool knownTrue(const Bool& b, const SourceLoc& loc, Ctx& cx) const {
    if constexpr (HasKnownBool<A>) {
      if (auto k = cx.alg.knownBool(b)) return *k;
      fail(loc, "condition depends on the execution: not supported by this (symbolic) algebra");
    } else {
      fail(loc, "condition depends on the execution: not supported by this (symbolic) algebra");
    }
  }

  bool evalCond(const detail::CCond& c, const FramePtr& f, Ctx& cx) const {
    switch (c.kind) {
      case Cond::Kind::Variant: return c.variantValue;
      case Cond::Kind::Not: return !evalCond(*c.sub[0], f, cx);
      case Cond::Kind::And: return evalCond(*c.sub[0], f, cx) && evalCond(*c.sub[1], f, cx);
      case Cond::Kind::Or: return evalCond(*c.sub[0], f, cx) || evalCond(*c.sub[1], f, cx);
      case Cond::Kind::Eq: {
        V x = eval(*c.lhs, f, cx), y = eval(*c.rhs, f, cx);
        if constexpr (HasDecidedEquality<A>) {
          // An algebra whose values may still change (partial executions) decides the condition only
          // when the comparison cannot change.
          std::optional<bool> known = true;
          auto setOrEmpty = [](const V& v) { return v.k == VK::Set || v.k == VK::Empty; };
          auto relOrEmpty = [](const V& v) { return v.k == VK::Rel || v.k == VK::Empty; };
          if ((x.k == VK::Set && setOrEmpty(y)) || (y.k == VK::Set && setOrEmpty(x)))
            known = cx.alg.decidedSameSet(*asSet(x, c.loc, cx, "="), *asSet(y, c.loc, cx, "="));
          else if ((x.k == VK::Rel && relOrEmpty(y)) || (y.k == VK::Rel && relOrEmpty(x)))
            known = cx.alg.decidedSameRel(*asRel(x, c.loc, cx, "="), *asRel(y, c.loc, cx, "="));
          if (!known) fail(c.loc, "condition depends on the execution: not supported by this (partial) algebra");
        }
        return valueEqual(x, y, cx, c.loc);
      }
      case Cond::Kind::Subset: {
        V x = eval(*c.lhs, f, cx), y = eval(*c.rhs, f, cx);
        if (x.k == VK::Empty) return true;
        if (x.k == VK::ValSet || y.k == VK::ValSet) {
          for (const auto& e : elementsOf(x, c.loc, cx, "subset"))
            if (y.k != VK::ValSet || !memberOf(e, vecOf(y), cx, c.loc)) return false;
          return true;
        }
        V d = diffV(x, y, c.loc, cx);
        if (d.k == VK::Empty) return true;
        if (isSetLike(d)) return knownTrue(cx.alg.isEmptySet(*asSet(d, c.loc, cx, "subset")), c.loc, cx);
        return knownTrue(cx.alg.isEmptyRel(*asRel(d, c.loc, cx, "subset")), c.loc, cx);
      }
      case Cond::Kind::In: {
        V x = eval(*c.lhs, f, cx), s = eval(*c.rhs, f, cx);
        return memberOf(x, elementsOf(s, c.rhs->loc, cx, "in"), cx, c.loc);
      }
    }
    return false;
  }

  V apply(const V& fn, const V& arg, const CExpr& at, Ctx& cx) const {
    const SourceLoc& loc = at.loc;
    if (fn.k == VK::Closure) {
      const auto& c = cloOf(fn);
      if (cx.depth >= kMaxCallDepth)
        fail(loc, "recursion deeper than " + std::to_string(kMaxCallDepth) + " calls (non-terminating function?)");
      struct Depth {
        int& d;
        explicit Depth(int& d) : d(++d) {}
        ~Depth() { --d; }
      } depth(cx.depth);
      auto fr = newFrame(c.fun->nslots, c.env, cx);
      bindPattern(*fr, c.fun->params, c.fun->tuple, arg, at.loc, "function '" + c.fun->name + "'");
      return eval(*c.fun->body, fr, cx);
    }
    if (fn.k != VK::Prim) fail(at.args[0]->loc, std::string("not a function: ") + kindName(fn.k));
    switch (static_cast<detail::Prim>(fn.a)) {
      case detail::Prim::Domain:
        if (arg.k == VK::Empty) return V{};
        if (arg.k == VK::Pair) return V{VK::Event, arg.a, 0, nullptr};
        return mkSet(cx.alg.domain(*asRel(arg, at.args[1]->loc, cx, "domain")));
      case detail::Prim::Range:
        if (arg.k == VK::Empty) return V{};
        if (arg.k == VK::Pair) return V{VK::Event, arg.b, 0, nullptr};
        return mkSet(cx.alg.range(*asRel(arg, at.args[1]->loc, cx, "range")));
      case detail::Prim::ClassesLoc:
        if constexpr (HasClassesLoc<A>) {
          std::vector<V> out;
          for (auto& s : cx.alg.classesLoc(*asSet(arg, at.args[1]->loc, cx, "classes-loc")))
            out.push_back(mkSet(std::move(s)));
          return mkVec(VK::ValSet, std::move(out));
        } else {
          fail(loc, "classes-loc is not supported by this (symbolic) algebra");
        }
      case detail::Prim::Linearisations:
        if constexpr (!HasLinearisations<A> && HasElements<A>) {
          if (arg.k != VK::Tuple || vecOf(arg).size() != 2)
            fail(at.args[1]->loc, "linearisations expects 2 arguments (S, r)");
          return guardedLinearisations(*asSet(vecOf(arg)[0], at.args[1]->loc, cx, "linearisations"),
                                       *asRel(vecOf(arg)[1], at.args[1]->loc, cx, "linearisations"), loc, cx);
        } else if constexpr (HasLinearisations<A>) {
          if (arg.k != VK::Tuple || vecOf(arg).size() != 2)
            fail(at.args[1]->loc, "linearisations expects 2 arguments (S, r)");
          const auto& t = vecOf(arg);
          std::vector<V> out;
          std::vector<Rel> lins;
          try {
            lins = cx.alg.linearisations(*asSet(t[0], at.args[1]->loc, cx, "linearisations"),
                                         *asRel(t[1], at.args[1]->loc, cx, "linearisations"));
          } catch (const DiagnosticError& ex) {
            if (ex.diagnostic().loc.line > 0) throw;
            fail(loc, ex.diagnostic().message);
          }
          for (auto& r : lins) out.push_back(mkRel(std::move(r)));
          return mkVec(VK::ValSet, std::move(out));
        } else {
          fail(loc, "linearisations is not supported by this (symbolic) algebra");
        }
      case detail::Prim::Fail: fail(loc, "model called 'fail'");
      case detail::Prim::Classes: return classes(*asRel(arg, at.args[1]->loc, cx, "classes"), loc, cx);
      case detail::Prim::Tag2Scope: {
        if (arg.k != VK::Tag) fail(at.args[1]->loc, std::string("tag2scope expects a tag, got ") + kindName(arg.k));
        const std::string& t = cm_->tagNames[arg.a];
        // the scope-tree relation of that name (herd), ptxmm's same-scope relation, or all pairs for the system
        for (const std::string& n : {t, "s" + t})
          if (auto r = cx.alg.builtinRel(n)) return mkRel(std::move(*r));
        if (t == "sys" || t == "system") return V{VK::Universe, 0, 0, nullptr};
        fail(loc, "tag2scope: no scope relation for '" + t + "' (ptxmm knows cta, cluster, gpu, sys)");
      }
      case detail::Prim::Tag2Events: {
        if (arg.k != VK::Tag) fail(at.args[1]->loc, std::string("tag2events expects a tag, got ") + kindName(arg.k));
        const std::string& t = cm_->tagNames[arg.a];
        // herd's annotation set is named by the tag with its first letter upper-cased; ptxmm's are upper case
        std::string cap = t, upper = t;
        if (!cap.empty()) cap[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(cap[0])));
        for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        for (const std::string& n : {t, cap, upper})
          if (auto st = cx.alg.builtinSet(n)) return mkSet(std::move(*st));
        fail(loc, "tag2events: no event set for tag '" + t + "'");
      }
      case detail::Prim::Bisimulation: {
        if (arg.k != VK::Tuple || vecOf(arg).size() != 2)
          fail(at.args[1]->loc, "bisimulation expects 2 arguments (t, e)");
        return bisimulation(*asRel(vecOf(arg)[0], at.args[1]->loc, cx, "bisimulation"),
                            *asRel(vecOf(arg)[1], at.args[1]->loc, cx, "bisimulation"), loc, cx);
      }
      case detail::Prim::GenerateOrders: {
        if (arg.k != VK::Tuple || vecOf(arg).size() != 2)
          fail(at.args[1]->loc, "generate_orders expects 2 arguments (S, r)");
        return generateOrders(*asSet(vecOf(arg)[0], at.args[1]->loc, cx, "generate_orders"),
                              *asRel(vecOf(arg)[1], at.args[1]->loc, cx, "generate_orders"), loc, cx);
      }
      case detail::Prim::GenerateCos: {
        auto w = cx.alg.builtinSet("W");
        if (!w) fail(loc, "generate_cos: the engine has no set W");
        return generateOrders(*w, *asRel(arg, at.args[1]->loc, cx, "generate_cos"), loc, cx);
      }
    }
    fail(loc, "internal error: unknown primitive");
  }

  // ---- herd7 primitives over elements ------------------------------------------------------------

  /// generate_orders(S, r) (cat/HerdLib.hpp): the engine's co restricted to S when S holds writes only (an
  /// element exactly when it extends r between same-location events of S), {0} for an empty S.
  V generateOrders(const Set& s, const Rel& r, const SourceLoc& loc, Ctx& cx) const {
    auto w = cx.alg.builtinSet("W");
    auto co = cx.alg.builtinRel("co");
    auto sameLoc = cx.alg.builtinRel("loc");
    if (!w || !co || !sameLoc) fail(loc, "generate_orders: the engine has no W, co or loc");
    auto known = [&](const Bool& b) -> std::optional<bool> {
      if constexpr (HasKnownBool<A>)
        return cx.alg.knownBool(b);
      else
        return std::nullopt;
    };
    if (known(cx.alg.isEmptySet(s)) == std::optional<bool>(true))
      return mkVec(VK::ValSet, {V{VK::Rel, 0, 0, sharedEmptyRel(cx)}});
    if (known(cx.alg.isEmptySet(cx.alg.setDiff(s, *w))) != std::optional<bool>(true))
      fail(loc,
           "generate_orders over events that are not all writes is not supported: ptxmm's engines choose co over "
           "the writes");
    Rel ss = cx.alg.cross(s, s);
    Rel order = cx.alg.relInter(*co, ss);
    Rel need = cx.alg.relDiff(cx.alg.relInter(cx.alg.relInter(r, ss), *sameLoc), cx.alg.identity());
    return guardedSet({mkRel(order)}, {cx.alg.isEmptyRel(cx.alg.relDiff(need, order))}, cx);
  }

  /// linearisations(S, r) for an algebra without its own: every total order of S's (constant) events, each an
  /// element when it contains r restricted to S.
  V guardedLinearisations(const Set& s, const Rel& r, const SourceLoc& loc, Ctx& cx) const {
    if constexpr (HasElements<A>) {
      std::vector<size_t> es;
      try {
        es = cx.alg.setElements(s);
      } catch (const DiagnosticError& ex) {
        fail(loc, "linearisations: " + ex.diagnostic().message);
      }
      if (es.size() > 8) fail(loc, "linearisations over more than 8 events is not supported by this algebra");
      std::sort(es.begin(), es.end());
      Rel need = cx.alg.relDiff(cx.alg.relInter(r, cx.alg.cross(s, s)), cx.alg.identity());
      std::vector<V> elems;
      std::vector<Bool> guards;
      do {
        pollBudget("cat interpreter (linearisations)");
        Rel o = cx.alg.emptyRel();
        for (size_t i = 0; i < es.size(); ++i)
          for (size_t j = i + 1; j < es.size(); ++j) o = cx.alg.relUnion(o, cx.alg.singletonRel(es[i], es[j]));
        guards.push_back(cx.alg.isEmptyRel(cx.alg.relDiff(need, o)));
        elems.push_back(mkRel(std::move(o)));
      } while (std::next_permutation(es.begin(), es.end()));
      return guardedSet(std::move(elems), std::move(guards), cx);
    } else {
      fail(loc, "linearisations is not supported by this algebra");
    }
  }

  /// classes r: the equivalence classes of r (over the events it relates).
  V classes(const Rel& r, const SourceLoc& loc, Ctx& cx) const {
    if constexpr (HasElements<A>) {
      std::vector<std::pair<size_t, size_t>> ps;
      try {
        ps = cx.alg.relPairs(r);
      } catch (const DiagnosticError& ex) {
        fail(loc, "classes: " + ex.diagnostic().message);
      }
      std::vector<size_t> done;
      std::vector<V> out;
      for (const auto& [a, b0] : ps) {
        (void)b0;
        if (std::find(done.begin(), done.end(), a) != done.end()) continue;
        Set cls = cx.alg.singletonSet(a);
        done.push_back(a);
        for (const auto& [x, y] : ps)
          if (x == a && y != a) {
            cls = cx.alg.setUnion(cls, cx.alg.singletonSet(y));
            done.push_back(y);
          }
        out.push_back(mkSet(std::move(cls)));
      }
      return mkVec(VK::ValSet, std::move(out));
    } else {
      fail(loc, "classes is not supported by this (symbolic) algebra");
    }
  }

  /// bisimulation(t, e): the largest relation within e such that each step of t from one side is matched by a
  /// step of t from the other side into the relation.
  V bisimulation(const Rel& t, const Rel& e, const SourceLoc& loc, Ctx& cx) const {
    if constexpr (HasElements<A>) {
      std::vector<std::pair<size_t, size_t>> steps, rel;
      try {
        steps = cx.alg.relPairs(t);
        rel = cx.alg.relPairs(e);
      } catch (const DiagnosticError& ex) {
        fail(loc, "bisimulation: " + ex.diagnostic().message);
      }
      auto in = [](const std::vector<std::pair<size_t, size_t>>& v, size_t a, size_t b) {
        return std::find(v.begin(), v.end(), std::make_pair(a, b)) != v.end();
      };
      // each step x -> x2 is matched by some y -> y2 with (x2, y2) in the relation
      auto matched = [&](size_t x, size_t y, bool flip) {
        for (const auto& [a, a2] : steps) {
          if (a != x) continue;
          bool found = false;
          for (const auto& [b, b2] : steps)
            if (b == y && (flip ? in(rel, b2, a2) : in(rel, a2, b2))) found = true;
          if (!found) return false;
        }
        return true;
      };
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t k = 0; k < rel.size(); ++k) {
          auto [x, y] = rel[k];
          if (!matched(x, y, false) || !matched(y, x, true)) {
            rel.erase(rel.begin() + static_cast<std::ptrdiff_t>(k));
            changed = true;
            break;
          }
        }
      }
      Rel out = cx.alg.emptyRel();
      for (const auto& [x, y] : rel) out = cx.alg.relUnion(out, cx.alg.singletonRel(x, y));
      return mkRel(std::move(out));
    } else {
      fail(loc, "bisimulation is not supported by this (symbolic) algebra");
    }
  }

  // ---- instructions ----------------------------------------------------------------------------

  Bool testValue(const CheckInfo& info, const V& v, const SourceLoc& loc, Ctx& cx) const {
    switch (info.test) {
      case CheckTest::Acyclic: return cx.alg.acyclic(*asRel(v, loc, cx, "acyclic"));
      case CheckTest::Irreflexive: return cx.alg.irreflexive(*asRel(v, loc, cx, "irreflexive"));
      case CheckTest::Empty:
        if (isSetLike(v) || v.k == VK::Universe) return cx.alg.isEmptySet(*asSet(v, loc, cx, "empty"));
        if (isRelLike(v) || v.k == VK::Empty) return cx.alg.isEmptyRel(*asRel(v, loc, cx, "empty"));
        if (v.k == VK::ValSet) {
          Bool t = cx.alg.isEmptyRel(*sharedEmptyRel(cx));
          return vecOf(v).empty() ? t : cx.alg.notB(t);
        }
        fail(loc, std::string("empty expects a set or a relation, got ") + kindName(v.k));
    }
    fail(loc, "internal error: unknown check");
  }

  /// Executes body instructions (procedures, forall, conditionals); false = outcome cut.
  bool execBody(const std::vector<CInstr>& instrs, const FramePtr& f, Outcome<A>& out, Ctx& cx) const {
    for (const auto& in : instrs)
      if (!execOne(in, f, out, cx)) return false;
    return true;
  }

  bool execOne(const CInstr& in, const FramePtr& f, Outcome<A>& out, Ctx& cx) const {
    pollBudget("cat interpreter");
    switch (in.op) {
      case IOp::Let: bindLet(in.binds, f, cx); return true;
      case IOp::LetRec: bindLetRec(in.binds, f, cx); return true;
      case IOp::Check: {
        const CheckInfo& info = cm_->checks[static_cast<size_t>(in.check)];
        if (cx.ro.plainChecksOnly && (info.kind == CheckKind::Flag || info.kind == CheckKind::Undefined)) return true;
        V v = eval(*in.expr, f, cx);
        Bool b = testValue(info, v, in.expr->loc, cx);
        if (info.negated) b = cx.alg.notB(b);
        if (cx.ro.collectShows && (info.kind == CheckKind::Flag || info.kind == CheckKind::Undefined)) {
          ShowResult<A> s{info.name, std::nullopt, std::nullopt, info.kind};
          if (isRelLike(v))
            s.rel = *asRel(v, in.expr->loc, cx, "flag");
          else if (isSetLike(v))
            s.set = *asSet(v, in.expr->loc, cx, "flag");
          if (s.rel || s.set) out.shows.push_back(std::move(s));
        }
        if constexpr (HasKnownBool<A>) {
          if (info.kind == CheckKind::Assert) {
            auto k = cx.alg.knownBool(b);
            if (k && !*k) fail(info.loc, "assertion failed: " + info.name);
          }
          if (info.kind == CheckKind::Check && cx.ro.stopAtFailedCheck) {
            auto k = cx.alg.knownBool(b);
            bool failed = k && !*k;
            if constexpr (HasFinalFailure<A>) failed = failed || cx.alg.failsForGood(b);
            if (failed) {
              out.checks.push_back(CheckResult<A>{&info, std::move(b)});
              out.cut = true;
              return false;
            }
          }
        }
        out.checks.push_back(CheckResult<A>{&info, std::move(b)});
        return true;
      }
      case IOp::Show:
        if (cx.ro.collectShows) {
          for (const auto& [name, ex] : in.shows) {
            try {
              V v = eval(*ex, f, cx);
              ShowResult<A> s{name, std::nullopt, std::nullopt, std::nullopt};
              if (isRelLike(v))
                s.rel = *asRel(v, ex->loc, cx, "show");
              else if (isSetLike(v))
                s.set = *asSet(v, ex->loc, cx, "show");
              else
                continue;
              out.shows.push_back(std::move(s));
            } catch (const DiagnosticError&) {
              // shows have no semantic effect: an unknown shown name is ignored
            }
          }
        }
        return true;
      case IOp::Call: {
        V p = eval(*in.callee, f, cx);
        if (p.k != VK::Proc) fail(in.callee->loc, "'" + in.callee->name + "' is not a procedure");
        V arg = eval(*in.expr, f, cx);
        const auto& c = cloOf(p);
        auto fr = newFrame(c.proc->nslots, c.env, cx);
        bindPattern(*fr, c.proc->params, c.proc->tuple, arg, in.expr->loc, "procedure '" + c.proc->name + "'");
        return execBody(c.proc->body, fr, out, cx);
      }
      case IOp::Forall: {
        V s = eval(*in.expr, f, cx);
        for (const auto& e : elementsOf(s, in.expr->loc, cx, "forall")) {
          auto fr = newFrame(in.nslots, f, cx);
          setSlot(*fr, in.varSlot, e);
          if (!execBody(in.body, fr, out, cx)) return false;
        }
        return true;
      }
      case IOp::Match: {
        V x = eval(*in.expr, f, cx);
        if (x.k != VK::Tag) fail(in.expr->loc, std::string("match on tags expects a tag, got ") + kindName(x.k));
        for (size_t k = 0; k < in.armTags.size(); ++k)
          if (in.armTags[k] < 0 || static_cast<size_t>(in.armTags[k]) == x.a)
            return execBody(in.armBodies[k], f, out, cx);
        fail(in.loc, "no match case for tag '" + cm_->tagNames[x.a] + "'");
      }
      case IOp::If: return execBody(evalCond(*in.cond, f, cx) ? in.body : in.elseBody, f, out, cx);
      case IOp::With: fail(in.loc, "'with' is only supported at the top level of a model");
    }
    return true;
  }

  /// Executes top-level instructions from index i, forking at `with`; records finished outcomes.
  void execTop(const std::vector<CInstr>& instrs, size_t i, const FramePtr& f, Outcome<A> out, Ctx& cx) const {
    std::vector<const CInstr*> deferred;  // plain checks, with RunOptions::checkRank
    // Evaluates the deferred checks by rank; false if one cut the outcome.
    auto flush = [&]() {
      std::stable_sort(deferred.begin(), deferred.end(), [&](const CInstr* a, const CInstr* b) {
        return (*cx.ro.checkRank)[static_cast<size_t>(a->check)] < (*cx.ro.checkRank)[static_cast<size_t>(b->check)];
      });
      bool open = true;
      for (size_t k = 0; open && k < deferred.size(); ++k)
        if ((*cx.ro.checkRank)[static_cast<size_t>(deferred[k]->check)] != RunOptions::kSkipCheck)
          open = execOne(*deferred[k], f, out, cx);
      deferred.clear();
      return open;
    };
    for (; i < instrs.size(); ++i) {
      const CInstr& in = instrs[i];
      if (cx.ro.checkRank && &instrs == &cm_->top && in.op == IOp::Check &&
          cm_->checks[static_cast<size_t>(in.check)].kind == CheckKind::Check) {
        deferred.push_back(&in);
        continue;
      }
      if (in.op == IOp::With) {
        if (!flush()) break;  // the deferred checks before it, by rank
        V s = eval(*in.expr, f, cx);
        if constexpr (HasChoices<A>) {
          mergeWith(instrs, i, f, std::move(out), s, cx);
          return;
        }
        std::vector<V> elems = elementsOf(s, in.expr->loc, cx, "with");
        for (size_t k = 0; k < elems.size(); ++k) {
          pollBudget("cat interpreter (with ... from)");
          auto fr = std::make_shared<Frame>(*f);
          cx.frames.push_back(fr);
          setSlot(*fr, in.varSlot, elems[k]);
          if (k + 1 == elems.size())
            execTop(instrs, i + 1, fr, std::move(out), cx);
          else
            execTop(instrs, i + 1, fr, out, cx);
        }
        return;
      }
      if (!execOne(in, f, out, cx)) {
        deferred.clear();  // the outcome is cut
        break;
      }
    }
    if (!deferred.empty()) (void)flush();
    cx.result->outcomes.push_back(std::move(out));
  }

  /// `with x from S` for an algebra that merges choices (HasChoices): the rest of the model is run once per
  /// element k, and the outcomes are merged into one whose checks hold under k's selector (flags: are raised
  /// under it); the With's own check says that the chosen element exists (its guard).
  void mergeWith(const std::vector<CInstr>& instrs, size_t i, const FramePtr& f, Outcome<A> out, const V& s,
                 Ctx& cx) const {
    if constexpr (HasChoices<A>) {
      const CInstr& in = instrs[i];
      std::vector<V> elems;
      std::vector<Bool> guards;
      if (s.k == VK::Guarded) {
        const auto& g = *static_cast<const detail::GuardedVals<A>*>(s.p.get());
        elems = g.elems;
        guards = g.guards;
      } else {
        elems = elementsOf(s, in.expr->loc, cx, "with");
        guards.assign(elems.size(), cx.alg.constB(true));
      }
      const CheckInfo& choice = cm_->checks[static_cast<size_t>(in.check)];
      std::vector<Bool> sel = cx.alg.choiceSelectors(elems.size());
      ModelResult<A>* outer = cx.result;
      bool allCut = true;
      for (size_t k = 0; k < elems.size(); ++k) {
        pollBudget("cat interpreter (with ... from)");
        auto fr = std::make_shared<Frame>(*f);
        cx.frames.push_back(fr);
        setSlot(*fr, in.varSlot, elems[k]);
        ModelResult<A> branch;
        cx.result = &branch;
        Outcome<A> start;
        start.owner = out.owner;
        execTop(instrs, i + 1, fr, std::move(start), cx);
        cx.result = outer;
        out.checks.push_back(CheckResult<A>{&choice, cx.alg.impliesB(sel[k], guards[k])});
        for (auto& o : branch.outcomes) {
          allCut = allCut && o.cut;
          for (auto& c : o.checks) {
            Bool v = c.info->kind == CheckKind::Flag ? cx.alg.andB(sel[k], c.value) : cx.alg.impliesB(sel[k], c.value);
            out.checks.push_back(CheckResult<A>{c.info, std::move(v)});
          }
          for (auto& sh : o.shows) out.shows.push_back(std::move(sh));
        }
      }
      if (elems.empty()) out.checks.push_back(CheckResult<A>{&choice, cx.alg.constB(false)});
      out.cut = allCut;
      cx.result->outcomes.push_back(std::move(out));
    }
  }
};

}  // namespace ptxmm::cat
