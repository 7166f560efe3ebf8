// Concrete evaluation of candidate executions, shared by both engines (header-only): a fast memoised
// evaluator of event-program expressions, the concrete algebra of a skeleton with chosen rf/co/sc,
// final-state values and entries, and witness construction. The enum engine evaluates every
// candidate with them; the smt engine rebuilds and re-checks its witnesses with them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cat/BitAlgebra.hpp"
#include "cat/Interpreter.hpp"
#include "events/Builtins.hpp"
#include "events/Lower.hpp"
#include "events/Skeleton.hpp"
#include "litmus/Printer.hpp"
#include "outcome/Result.hpp"
#include "outcome/State.hpp"

namespace ptxmm::concrete {

/// Memoised evaluator of one ExprPool; reset() invalidates the memo in O(1).
class Evaluator {
 public:
  /// An evaluator over `pool`.
  explicit Evaluator(const events::ExprPool& pool) : pool_(pool), memo_(pool.size()), stamp_(pool.size(), 0) {}
  /// Forget all memoised values (read values changed).
  void reset() { ++gen_; }
  /// Value of `id` with read values indexed by EventId.
  int64_t eval(events::ExprId id, const std::vector<int64_t>& reads) {
    auto ix = static_cast<size_t>(id);
    if (stamp_[ix] == gen_) return memo_[ix];
    const events::ExprNode& n = pool_.node(id);
    int64_t v;
    switch (n.op) {
      case events::ExprOp::Const: v = n.value; break;
      case events::ExprOp::ReadVal: v = reads[static_cast<size_t>(n.event)]; break;
      default: {
        std::vector<int64_t> a;
        a.reserve(n.args.size());
        for (events::ExprId x : n.args) a.push_back(eval(x, reads));
        v = events::evalOp(n.op, a);
      }
    }
    stamp_[ix] = gen_;
    memo_[ix] = v;
    return v;
  }

 private:
  const events::ExprPool& pool_;
  std::vector<int64_t> memo_;
  std::vector<uint32_t> stamp_;
  uint32_t gen_ = 1;
};

/// Initial value of register `reg` of thread `t` from the test's init block (0 if not given).
inline int64_t initialRegister(const litmus::Test& test, int t, const std::string& reg) {
  for (const auto& ri : test.regInits)
    if (ri.thread == t && ri.reg == reg && !ri.addressOf) return ri.value;
  return 0;
}

/// Binds every static built-in set and relation of `sk` in `alg`.
inline void bindStatic(cat::BitAlgebra& alg, const events::Skeleton& sk) {
  for (const auto& [name, s] : sk.sets) alg.setSet(name, s);
  for (const auto& [name, r] : sk.relations) alg.setRel(name, r);
}

/// The dynamic part of a candidate execution over skeleton indices.
struct Dynamic {
  BitMatrix rf, co, sc;
};

/// Binds rf, co, fr, sc and FW (co-last writes) in `alg`.
inline void bindDynamic(cat::BitAlgebra& alg, const events::Skeleton& sk, const Dynamic& d) {
  size_t n = sk.size();
  BitSet fw(n);
  for (const auto& ws : sk.writesByLoc)
    for (int w : ws)
      if (d.co.row(static_cast<size_t>(w)).none()) fw.set(static_cast<size_t>(w));
  alg.setSet(events::nameOf(events::Builtin::FW), fw);
  alg.setRel(events::nameOf(events::Builtin::rf), d.rf);
  alg.setRel(events::nameOf(events::Builtin::co), d.co);
  alg.setRel(events::nameOf(events::Builtin::fr), d.rf.inverseCompose(d.co));
  alg.setRel(events::nameOf(events::Builtin::sc), d.sc);
}

/// Binds the value-dependent sets of `sk` (Skeleton::dynamicSets): an event is a member iff its condition
/// is non-0 with read values `reads` (indexed by EventId). `ev` must have been reset for `reads`.
inline void bindValueSets(cat::BitAlgebra& alg, const events::Skeleton& sk, Evaluator& ev,
                          const std::vector<int64_t>& reads) {
  for (const auto& [name, members] : sk.dynamicSets) {
    BitSet s(sk.size());
    for (const auto& [i, cond] : members)
      if (ev.eval(cond, reads) != 0) s.set(static_cast<size_t>(i));
    alg.setSet(name, std::move(s));
  }
}

/// Binds every value-dependent set of `sk` to the empty set.
inline void bindEmptyValueSets(cat::BitAlgebra& alg, const events::Skeleton& sk) {
  for (const auto& [name, members] : sk.dynamicSets) alg.setSet(name, BitSet(sk.size()));
}

/// Whether some value-dependent set of `sk` may be non-empty (then the model depends on read values).
inline bool hasValueSets(const events::Skeleton& sk) {
  for (const auto& [name, members] : sk.dynamicSets)
    if (!members.empty()) return true;
  return false;
}

/// Names the engines declare dynamic to the cat interpreter (InterpreterOptions::dynamicNames): the
/// candidate's rf co fr sc FW plus the value-dependent sets (events::executionDependentNames()).
inline std::vector<std::string> dynamicBuiltinNames() { return events::executionDependentNames(); }

/// Interpreter options of both engines (dynamicBuiltinNames()).
inline cat::InterpreterOptions engineInterpreterOptions() {
  cat::InterpreterOptions o;
  o.dynamicNames = dynamicBuiltinNames();
  return o;
}

/// Final values of the observed terms: registers from the skeleton's final register expressions,
/// locations from the co-last write (`writeValue` by compact index). `spec` was made with a locator
/// (ObservedTerm::loc).
template <class WriteValue, class RegValue>
std::vector<int64_t> finalValues(const outcome::StateSpec& spec, const events::Skeleton& sk, const BitMatrix& co,
                                 WriteValue&& writeValue, RegValue&& regValue) {
  std::vector<int64_t> out;
  out.reserve(spec.terms.size());
  for (const auto& t : spec.terms) {
    if (t.isReg()) {
      const auto& regs = sk.finalRegs.at(static_cast<size_t>(t.term.thread));
      auto it = regs.find(t.term.reg);
      out.push_back(it != regs.end() ? regValue(it->second)
                                     : initialRegister(*sk.program->test, t.term.thread, t.term.reg));
    } else {
      int64_t v = 0;
      for (int w : sk.writesByLoc.at(static_cast<size_t>(t.loc)))
        if (co.row(static_cast<size_t>(w)).none()) v = writeValue(w);
      out.push_back(v);
    }
  }
  return out;
}

/// The entry of state `key` in `states`, created with its values on first use (`fresh` says whether).
inline outcome::StateResult& stateEntry(std::map<std::string, outcome::StateResult>& states, const std::string& key,
                                        const std::vector<int64_t>& vals, const outcome::StateSpec& spec, bool& fresh) {
  auto [it, inserted] = states.try_emplace(key);
  fresh = inserted;
  outcome::StateResult& st = it->second;
  if (inserted) {
    st.key = key;
    st.values = vals;
    st.satisfies = spec.satisfies(vals);
  }
  return st;
}

/// Adds the flags of one allowed execution to its state: the model's flags and undefined behaviour, the
/// undefined conditions of its paths (`undefinedByPath`), and cut / blocked paths.
inline void addExecutionFlags(outcome::StateResult& st, const cat::Outcome<cat::BitAlgebra>& o,
                              const events::Skeleton& sk, bool undefinedByPath) {
  const std::vector<std::string> raised = cat::raisedFlags(o);
  for (auto& f : raised) st.flags.insert(f);
  if (undefinedByPath || cat::isUndefined(o)) st.flags.insert("undefined");
  if (sk.cut) st.flags.insert("cut");
  // "completes" is internal (check/ strips it): an execution in which no thread blocks or spins forever.
  if (sk.blocked)
    st.flags.insert("deadlock");
  else if (std::find(raised.begin(), raised.end(), "livelock") == raised.end())
    st.flags.insert("completes");
}

/// Immediate pairs of a transitive relation (r \ r;r), for readable graphs.
inline BitMatrix immediate(const BitMatrix& r) { return r - r.compose(r); }

/// A value a concrete run of the model shows: a `show`n relation, or the value of a flag /
/// undefined_unless check (relation, or set as its diagonal).
struct Shown {
  std::string name;
  BitMatrix value;
  std::optional<cat::CheckKind> check;  ///< Flag / Undefined for a check's value
  bool isSet = false;                   ///< value is the diagonal of a set
};

/// Builds the witness of one execution: events with values and their instructions, po (immediate), rf,
/// co (immediate), fr, sc (immediate), non-empty async relations, the model's shown relations and the
/// findings of its raised flags and undefined_unless checks.
inline outcome::Witness makeWitness(const events::Skeleton& sk, const Dynamic& d, const std::vector<int64_t>& reads,
                                    Evaluator& ev, const std::vector<Shown>& shows) {
  outcome::Witness w;
  const auto& prog = *sk.program;
  for (size_t i = 0; i < sk.size(); ++i) {
    const events::Event& e = sk.event(i);
    outcome::WitnessEvent we;
    we.id = e.id;
    we.thread = e.isInit ? -1 : e.thread;
    we.isInit = e.isInit;
    we.label = e.label;
    we.kind = e.type == events::EventType::Read ? "R" : e.type == events::EventType::Write ? "W" : "F";
    if (e.type == events::EventType::Read)
      we.value = reads[static_cast<size_t>(e.id)];
    else if (e.type == events::EventType::Write && e.value >= 0)
      we.value = ev.eval(e.value, reads);
    for (const auto& tag : e.tags)
      if (tag.rfind("PF_", 0) == 0) we.proxyFence = true;
    if (!e.isInit && prog.test != nullptr)
      if (auto at = events::instructionAt(*prog.test, e.src)) {
        we.line = e.src.line;
        we.srcThread = at->first;
        we.instr = litmus::printInstr(*prog.test->threads[static_cast<size_t>(at->first)].code[at->second].instr);
      }
    w.events.push_back(std::move(we));
  }
  auto pairsOf = [&](const BitMatrix& m) {
    std::vector<std::pair<int, int>> v;
    m.forEach([&](size_t a, size_t b) { v.emplace_back(sk.events[a], sk.events[b]); });
    return v;
  };
  auto add = [&](const std::string& name, const BitMatrix& m) {
    auto v = pairsOf(m);
    if (!v.empty()) w.relations[name] = std::move(v);
  };
  if (auto it = sk.relations.find(events::nameOf(events::Builtin::po)); it != sk.relations.end())
    add(events::nameOf(events::Builtin::po), immediate(it->second));
  add(events::nameOf(events::Builtin::rf), d.rf);
  add(events::nameOf(events::Builtin::co), immediate(d.co));
  add(events::nameOf(events::Builtin::fr), d.rf.inverseCompose(d.co));
  add(events::nameOf(events::Builtin::sc), immediate(d.sc));
  for (const char* r : {"issue", "aso", "async-complete", "bar-sync", "cluster-sync", "exit-sync"})
    if (auto it = sk.relations.find(r); it != sk.relations.end()) add(r, it->second);
  for (const auto& s : shows) {
    if (s.check) {
      outcome::Finding f;
      f.check = s.name;
      f.flag = *s.check == cat::CheckKind::Undefined ? "undefined" : s.name;
      if (s.isSet)
        for (const auto& [a, b] : pairsOf(s.value)) f.events.push_back(a);
      else
        f.pairs = pairsOf(s.value);
      if (!f.pairs.empty() || !f.events.empty()) w.findings.push_back(std::move(f));
      if (s.isSet) continue;  // a racing pair is drawn; a set of events is only listed
    }
    if (!w.relations.count(s.name)) add(s.name, s.value);
  }
  // Deadlock: where each blocked thread waits (its bar.sync / cluster wait, or its mbarrier wait).
  if (sk.blocked && sk.choice.size() == prog.paths.size()) {
    outcome::Finding f;
    f.flag = f.check = "deadlock";
    for (size_t t = 0; t < sk.choice.size(); ++t) {
      const events::Path& p = prog.paths[t][static_cast<size_t>(sk.choice[t])];
      if (p.end != events::PathEnd::Blocked) continue;
      const events::EventId at = p.blockedAt >= 0 ? p.blockedAt : p.readsFinal.empty() ? -1 : p.readsFinal.back();
      if (at >= 0) f.events.push_back(at);
    }
    if (!f.events.empty()) w.findings.push_back(std::move(f));
  }
  return w;
}

/// Shown values of a concrete run (RunOptions::collectShows): relations, and the values of flag and
/// undefined_unless checks (sets as their diagonal).
inline std::vector<Shown> shownRelations(const cat::Outcome<cat::BitAlgebra>& o) {
  std::vector<Shown> out;
  for (const auto& s : o.shows) {
    if (s.rel) {
      out.push_back({s.name, *s.rel, s.check, false});
    } else if (s.set && s.check) {
      BitMatrix m(s.set->size());
      s.set->forEach([&](size_t i) { m.set(i, i); });
      out.push_back({s.name, std::move(m), s.check, true});
    }
  }
  return out;
}

}  // namespace ptxmm::concrete
