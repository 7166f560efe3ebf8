// The Z3 engine: one encoding per skeleton, all final states by incremental solving.
#include "smt/Engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "cat/BitAlgebra.hpp"
#include "cat/Interpreter.hpp"
#include "enum/Concrete.hpp"
#include "events/Skeleton.hpp"
#include "smt/SymAlgebra.hpp"
#include "smt/ValueEncoder.hpp"

namespace ptxmm::smt {

namespace {

// Thrown internally when the solver gives up or a limit is hit.
struct GiveUp {
  std::string why;
};

// Thrown internally for engine bugs found by self-checks.
struct InternalBug {
  std::string why;
};

std::string sanitize(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return r;
}

class SmtRunner {
 public:
  SmtRunner(z3::context& ctx, const events::EventProgram& prog, const cat::Model& model, const check::StateSpec& spec,
            const SmtOptions& opts)
      : ctx_(ctx),
        prog_(prog),
        spec_(spec),
        opts_(opts),
        interp_(model, enumeration::engineInterpreterOptions()),
        concrete_(model, enumeration::engineInterpreterOptions()) {
    const auto& names = interp_.builtinNames();
    useSc_ = std::find(names.begin(), names.end(), "sc") != names.end();
  }

  check::EngineResult run() {
    check::EngineResult res;
    res.countsAreExecutions = opts_.countExecutions;
    try {
      events::forEachPathChoice(prog_, [&](const std::vector<int>& choice) {
        solveSkeleton(events::buildSkeleton(prog_, choice));
        return true;
      });
    } catch (const GiveUp& g) {
      res.status = check::Status::Unknown;
      res.message = g.why;
    } catch (const InternalBug& b) {
      res.status = check::Status::Error;
      res.message = "internal error: " + b.why;
    }
    bool reachable = false;
    for (auto& [key, st] : states_) {
      reachable = reachable || targetHolds(st.values);
      res.states.push_back(std::move(st));
    }
    if (!reachable && opts_.explain) res.forbiddenBy.assign(core_.begin(), core_.end());
    res.candidates = solverCalls_;
    return res;
  }

 private:
  // The outcome of interest: the proposition, negated for forall.
  bool targetHolds(const std::vector<int64_t>& vals) const {
    bool p = spec_.satisfies(vals);
    return prog_.test->condition.quant == litmus::Condition::Quant::Forall ? !p : p;
  }

  z3::expr propExpr(const check::ResolvedProp& p, const std::vector<z3::expr>& terms) {
    using K = litmus::Prop::Kind;
    auto val = [&](int idx, int64_t c) {
      return idx >= 0 ? terms[static_cast<size_t>(idx)] : ctx_.bv_val(static_cast<uint64_t>(c), 64);
    };
    switch (p.kind) {
      case K::True: return ctx_.bool_val(true);
      case K::False: return ctx_.bool_val(false);
      case K::Eq: return val(p.lhs, p.lhsConst) == val(p.rhs, p.rhsConst);
      case K::Ne: return val(p.lhs, p.lhsConst) != val(p.rhs, p.rhsConst);
      case K::Not: return !propExpr(p.kids.at(0), terms);
      case K::And: return propExpr(p.kids.at(0), terms) && propExpr(p.kids.at(1), terms);
      case K::Or: return propExpr(p.kids.at(0), terms) || propExpr(p.kids.at(1), terms);
      case K::Implies: return z3::implies(propExpr(p.kids.at(0), terms), propExpr(p.kids.at(1), terms));
    }
    return ctx_.bool_val(false);
  }

  z3::check_result check(z3::solver& s, const z3::expr_vector& assumptions) {
    ++solverCalls_;
    if (opts_.timeoutMs) {
      // The budget is per test: each query gets what is left of it.
      auto spent =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0_).count();
      if (spent >= static_cast<long long>(opts_.timeoutMs))
        throw GiveUp{fmt::format("solver timeout: the test's budget of {} ms is spent", opts_.timeoutMs)};
      z3::params p(ctx_);
      p.set("timeout", static_cast<unsigned>(opts_.timeoutMs - static_cast<unsigned>(spent)));
      s.set(p);
    }
    z3::check_result r = s.check(assumptions);
    if (r == z3::unknown) {
      std::string why = s.reason_unknown();
      if (why.find("timeout") != std::string::npos || why.find("canceled") != std::string::npos)
        throw GiveUp{fmt::format("solver timeout: the test's budget of {} ms is spent", opts_.timeoutMs)};
      throw GiveUp{"solver returned unknown: " + why};
    }
    return r;
  }

  void solveSkeleton(const events::Skeleton& sk) {
    const size_t n = sk.size();
    const int skIndex = skeletons_++;
    TermTable terms(ctx_);
    SymAlgebra alg(terms, n, fmt::format("s{}_", skIndex));
    for (const auto& [name, bits] : sk.sets) alg.setSet(name, alg.constSet(bits));
    for (const auto& [name, bits] : sk.relations) alg.setRel(name, alg.constRel(bits));
    z3::solver s(ctx_, z3::solver::simple());

    // Read values and the value encoder.
    std::map<events::EventId, z3::expr> readVal;
    std::vector<int> reads;
    for (size_t i = 0; i < n; ++i) {
      const events::Event& e = sk.event(i);
      if (e.type != events::EventType::Read) continue;
      reads.push_back(static_cast<int>(i));
      readVal.emplace(e.id, ctx_.bv_const(fmt::format("s{}_val_e{}", skIndex, e.id).c_str(), 64));
    }
    ValueEncoder enc(ctx_, prog_.exprs, [&](events::EventId e) -> z3::expr {
      auto it = readVal.find(e);
      if (it == readVal.end()) throw InternalBug{fmt::format("value uses inactive read e{}", e)};
      return it->second;
    });
    // Value-dependent sets: member i iff value(cond) != 0, the other events never.
    for (const auto& [name, members] : sk.dynamicSets) {
      SymSet set = alg.emptySet();
      for (const auto& [i, cond] : members) set.v[static_cast<size_t>(i)] = terms.fromExpr(enc.nonZero(cond));
      alg.setSet(name, std::move(set));
    }
    auto writeValue = [&](int w) {
      const events::Event& e = sk.event(static_cast<size_t>(w));
      return e.value >= 0 ? enc.encode(e.value) : enc.constant(0);
    };

    // rf: exactly one same-location source per read; the read returns the source's value.
    SymRel rf = alg.emptyRel();
    std::vector<Lit> decision;  // rf / co / sc variables (execution identity, for counting)
    for (int r : reads) {
      const events::Event& re = sk.event(static_cast<size_t>(r));
      const auto& ws = sk.writesByLoc.at(static_cast<size_t>(re.loc));
      if (ws.empty()) throw InternalBug{fmt::format("read e{} has no write to read from", re.id)};
      const z3::expr& v = readVal.at(re.id);
      if (ws.size() == 1) {
        rf.m[static_cast<size_t>(ws[0]) * n + static_cast<size_t>(r)] = kTrue;
        s.add(v == writeValue(ws[0]));
        continue;
      }
      z3::expr_vector lits(ctx_);
      for (int w : ws) {
        Lit l = terms.var(fmt::format("s{}_rf_e{}_e{}", skIndex, sk.event(static_cast<size_t>(w)).id, re.id));
        rf.m[static_cast<size_t>(w) * n + static_cast<size_t>(r)] = l;
        decision.push_back(l);
        lits.push_back(terms.expr(l));
        s.add(z3::implies(terms.expr(l), v == writeValue(w)));
      }
      s.add(z3::mk_or(lits));
      s.add(z3::atmost(lits, 1));
    }

    // A strict total order over `items` (first: an element ordered before all, or -1).
    auto totalOrder = [&](SymRel& rel, const std::vector<int>& items, int first, const char* what) {
      for (int w : items)
        if (first >= 0) rel.m[static_cast<size_t>(first) * n + static_cast<size_t>(w)] = kTrue;
      for (size_t a = 0; a < items.size(); ++a)
        for (size_t b = a + 1; b < items.size(); ++b) {
          size_t ia = static_cast<size_t>(items[a]), ib = static_cast<size_t>(items[b]);
          Lit l = terms.var(fmt::format("s{}_{}_e{}_e{}", skIndex, what, sk.events[ia], sk.events[ib]));
          decision.push_back(l);
          rel.m[ia * n + ib] = l;
          rel.m[ib * n + ia] = terms.mkNot(l);
        }
      for (int a : items)
        for (int b : items)
          for (int c : items) {
            if (a == b || b == c || a == c) continue;
            Lit ab = rel.m[static_cast<size_t>(a) * n + static_cast<size_t>(b)];
            Lit bc = rel.m[static_cast<size_t>(b) * n + static_cast<size_t>(c)];
            Lit ac = rel.m[static_cast<size_t>(a) * n + static_cast<size_t>(c)];
            s.add(z3::implies(terms.expr(ab) && terms.expr(bc), terms.expr(ac)));
          }
    };
    SymRel co = alg.emptyRel();
    SymSet fw = alg.emptySet();
    for (const auto& ws : sk.writesByLoc) {
      if (ws.empty()) continue;
      int init = sk.event(static_cast<size_t>(ws[0])).isInit ? ws[0] : -1;
      std::vector<int> rest(ws.begin() + (init >= 0 ? 1 : 0), ws.end());
      totalOrder(co, rest, init, "co");
      for (int w : ws) {
        std::vector<Lit> notBefore;
        for (int w2 : ws)
          if (w2 != w) notBefore.push_back(terms.mkNot(co.m[static_cast<size_t>(w) * n + static_cast<size_t>(w2)]));
        fw.v[static_cast<size_t>(w)] = terms.mkAndN(notBefore);
      }
    }
    SymRel sc = alg.emptyRel();
    if (useSc_ && sk.sets.count("F_SC")) {
      std::vector<int> fs;
      sk.set("F_SC").forEach([&](size_t i) { fs.push_back(static_cast<int>(i)); });
      totalOrder(sc, fs, -1, "sc");
    }
    alg.setRel("rf", rf);
    alg.setRel("co", co);
    alg.setRel("fr", alg.seq(alg.inverse(rf), co));
    alg.setRel("sc", sc);
    alg.setSet("FW", fw);

    // Program constraints: guards, blocked waits.
    for (events::ExprId g : sk.guards) s.add(enc.nonZero(g));
    for (int r : sk.readsFinal) {
      if (r < 0) continue;
      for (int w : sk.writesByLoc.at(static_cast<size_t>(sk.event(static_cast<size_t>(r)).loc))) {
        Lit l = rf.m[static_cast<size_t>(w) * n + static_cast<size_t>(r)];
        s.add(z3::implies(terms.expr(l), terms.expr(fw.v[static_cast<size_t>(w)])));
      }
    }

    // The model: plain checks as tracked assertions, flags recorded.
    cat::ModelResult<SymAlgebra> mr = interp_.run(alg);
    if (mr.outcomes.size() != 1)
      throw InternalBug{fmt::format("model evaluation gave {} outcomes (`with` is not supported by the smt engine)",
                                    mr.outcomes.size())};
    const auto& outcome = mr.outcomes.front();
    if (outcome.cut) {
      // A plain check is false for every execution of this skeleton.
      if (!outcome.checks.empty()) core_.insert(outcome.checks.back().info->name);
      return;
    }
    std::map<std::string, z3::expr> axioms;
    std::map<std::string, std::vector<Lit>> flagParts;
    for (const auto& c : outcome.checks) {
      const std::string& name = c.info->name;
      switch (c.info->kind) {
        case cat::CheckKind::Check: {
          auto it = axioms.find(name);
          if (it == axioms.end())
            it = axioms.emplace(name, ctx_.bool_const(fmt::format("s{}_ax_{}", skIndex, sanitize(name)).c_str())).first;
          s.add(z3::implies(it->second, terms.expr(c.value.lit)));
          break;
        }
        case cat::CheckKind::Assert: s.add(terms.expr(c.value.lit)); break;
        case cat::CheckKind::Flag: flagParts[name].push_back(c.value.lit); break;
        case cat::CheckKind::Undefined: flagParts["undefined"].push_back(terms.mkNot(c.value.lit)); break;
      }
    }
    for (const auto& [e, why] : sk.undefinedIf) flagParts["undefined"].push_back(terms.fromExpr(enc.nonZero(e)));
    std::map<std::string, Lit> flags;
    for (const auto& [name, parts] : flagParts) flags[name] = terms.mkOrN(parts);
    if (sk.cut) flags["cut"] = kTrue;
    if (sk.blocked) flags["deadlock"] = kTrue;
    z3::expr_vector assumptions(ctx_);
    std::map<unsigned, std::string> axiomOf;
    for (const auto& [name, lit] : axioms) {
      assumptions.push_back(lit);
      axiomOf[lit.id()] = name;
    }

    // Final-state terms.
    std::vector<z3::expr> termExprs;
    for (const auto& t : spec_.terms) {
      if (t.isReg) {
        const auto& regs = sk.finalRegs.at(static_cast<size_t>(t.thread));
        auto it = regs.find(t.reg);
        termExprs.push_back(it != regs.end()
                                ? enc.encode(it->second)
                                : enc.constant(enumeration::initialRegister(*prog_.test, t.thread, t.reg)));
      } else {
        z3::expr fin = ctx_.bv_const(fmt::format("s{}_final_{}", skIndex, sanitize(t.name)).c_str(), 64);
        for (int w : sk.writesByLoc.at(static_cast<size_t>(t.loc)))
          s.add(z3::implies(terms.expr(fw.v[static_cast<size_t>(w)]), fin == writeValue(w)));
        termExprs.push_back(fin);
      }
    }

    // All states: block each found state until unsat.
    struct Found {
      std::vector<int64_t> vals;
      std::string key;
    };
    std::vector<Found> found;
    enumeration::Evaluator ev(prog_.exprs);
    std::optional<std::set<std::string>> noExecutionCore;
    s.push();
    for (;;) {
      if (check(s, assumptions) != z3::sat) {
        if (found.empty()) {
          // No allowed execution at all: the core of this query already explains the outcome.
          noExecutionCore.emplace();
          z3::expr_vector core = s.unsat_core();
          for (unsigned i = 0; i < core.size(); ++i)
            if (auto it = axiomOf.find(core[i].id()); it != axiomOf.end()) noExecutionCore->insert(it->second);
        }
        break;
      }
      z3::model m = s.get_model();
      std::vector<int64_t> vals;
      z3::expr_vector diff(ctx_);
      for (const auto& te : termExprs) {
        z3::expr v = m.eval(te, true);
        vals.push_back(static_cast<int64_t>(v.get_numeral_uint64()));
        diff.push_back(te != v);
      }
      std::string key = spec_.key(vals);
      recordState(sk, terms, m, rf, co, sc, readVal, vals, key, ev);
      found.push_back({vals, key});
      if (states_.size() > opts_.maxStates)
        throw GiveUp{fmt::format("more than {} distinct final states", opts_.maxStates)};
      s.add(z3::mk_or(diff));
    }
    s.pop();

    // Flags: for each flag, the states reachable by an allowed execution raising it (states already
    // known to raise it from their witness are blocked from the start).
    for (const auto& [name, l] : flags) {
      if (l == kFalse) continue;
      if (l == kTrue) {
        for (const auto& f : found) states_.at(f.key).flags.insert(name);
        continue;
      }
      s.push();
      s.add(terms.expr(l));
      auto block = [&](const std::vector<int64_t>& vals) {
        z3::expr_vector diff(ctx_);
        for (size_t i = 0; i < termExprs.size(); ++i)
          diff.push_back(termExprs[i] != ctx_.bv_val(static_cast<uint64_t>(vals[i]), 64));
        s.add(z3::mk_or(diff));
      };
      for (const auto& f : found)
        if (states_.at(f.key).flags.count(name)) block(f.vals);
      while (check(s, assumptions) == z3::sat) {
        z3::model m = s.get_model();
        std::vector<int64_t> vals;
        for (const auto& te : termExprs) vals.push_back(static_cast<int64_t>(m.eval(te, true).get_numeral_uint64()));
        auto it = states_.find(spec_.key(vals));
        if (it == states_.end())
          throw InternalBug{
              fmt::format("flag {} raised in state '{}' that the state enumeration missed", name, spec_.key(vals))};
        it->second.flags.insert(name);
        block(vals);
      }
      s.pop();
    }
    // Execution counts.
    for (size_t k = 0; k < found.size(); ++k) {
      check::StateResult& st = states_.at(found[k].key);
      if (!opts_.countExecutions) {
        st.executions += 1;
        continue;
      }
      z3::expr stLit = ctx_.bool_const(fmt::format("s{}_state_{}", skIndex, k).c_str());
      z3::expr_vector eqs(ctx_);
      for (size_t i = 0; i < termExprs.size(); ++i)
        eqs.push_back(termExprs[i] == ctx_.bv_val(static_cast<uint64_t>(found[k].vals[i]), 64));
      s.add(z3::implies(stLit, z3::mk_and(eqs)));
      st.executions += countExecutions(s, assumptions, stLit, terms, decision);
    }

    // Which axioms forbid the outcome of interest, if this skeleton cannot reach it.
    bool reachable = false;
    for (const auto& f : found) reachable = reachable || targetHolds(f.vals);
    if (noExecutionCore) {
      core_.insert(noExecutionCore->begin(), noExecutionCore->end());
    } else if (!reachable && opts_.explain) {
      z3::expr tl = ctx_.bool_const(fmt::format("s{}_outcome", skIndex).c_str());
      z3::expr target = propExpr(spec_.prop, termExprs);
      if (prog_.test->condition.quant == litmus::Condition::Quant::Forall) target = !target;
      s.add(z3::implies(tl, target));
      z3::expr_vector as = assumptions;
      as.push_back(tl);
      if (check(s, as) == z3::unsat) {
        z3::expr_vector core = s.unsat_core();
        for (unsigned i = 0; i < core.size(); ++i) {
          auto it = axiomOf.find(core[i].id());
          if (it != axiomOf.end()) core_.insert(it->second);
        }
      }
    }
  }

  uint64_t countExecutions(z3::solver& s, const z3::expr_vector& assumptions, const z3::expr& stLit, TermTable& terms,
                           const std::vector<Lit>& decision) {
    uint64_t count = 0;
    s.push();
    s.add(stLit);
    while (check(s, assumptions) == z3::sat) {
      ++count;
      z3::model m = s.get_model();
      z3::expr_vector diff(ctx_);
      for (Lit l : decision) {
        z3::expr e = terms.expr(l);
        diff.push_back(m.eval(e, true).is_true() ? !e : e);
      }
      if (diff.empty()) break;
      s.add(z3::mk_or(diff));
    }
    s.pop();
    return count;
  }

  // Records a state found in a model: witness, and a concrete re-check of the execution.
  void recordState(const events::Skeleton& sk, TermTable& terms, const z3::model& m, const SymRel& rf, const SymRel& co,
                   const SymRel& sc, const std::map<events::EventId, z3::expr>& readVal,
                   const std::vector<int64_t>& vals, const std::string& key, enumeration::Evaluator& ev) {
    size_t n = sk.size();
    auto isTrue = [&](Lit l) {
      if (l == kTrue) return true;
      if (l == kFalse) return false;
      return m.eval(terms.expr(l), true).is_true();
    };
    enumeration::Dynamic d{BitMatrix(n), BitMatrix(n), BitMatrix(n)};
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        if (isTrue(rf.m[i * n + j])) d.rf.set(i, j);
        if (isTrue(co.m[i * n + j])) d.co.set(i, j);
        if (isTrue(sc.m[i * n + j])) d.sc.set(i, j);
      }
    std::vector<int64_t> reads(prog_.events.size(), 0);
    for (const auto& [e, v] : readVal)
      reads[static_cast<size_t>(e)] = static_cast<int64_t>(m.eval(v, true).get_numeral_uint64());
    ev.reset();
    // Self-check: the execution must be allowed by the concrete evaluation of the model.
    cat::BitAlgebra alg(n);
    enumeration::bindStatic(alg, sk);
    enumeration::bindDynamic(alg, sk, d);
    enumeration::bindValueSets(alg, sk, ev, reads);
    cat::RunOptions ro;
    ro.collectShows = opts_.witnesses;
    auto cr = concrete_.run(alg, ro);
    const cat::Outcome<cat::BitAlgebra>* allowed = nullptr;
    for (const auto& o : cr.outcomes)
      if (cat::isAllowed(o)) allowed = &o;
    if (!allowed)
      throw InternalBug{
          fmt::format("smt execution reaching state '{}' is not allowed by the concrete model evaluation", key)};
    auto [it, fresh] = states_.try_emplace(key);
    check::StateResult& st = it->second;
    if (fresh) {
      st.key = key;
      st.values = vals;
      st.satisfies = spec_.satisfies(vals);
    }
    for (auto& f : cat::raisedFlags(*allowed)) st.flags.insert(f);
    if (cat::isUndefined(*allowed)) st.flags.insert("undefined");
    for (const auto& [e, why] : sk.undefinedIf)
      if (ev.eval(e, reads) != 0) st.flags.insert("undefined");
    if (opts_.witnesses && !st.witness)
      st.witness = enumeration::makeWitness(sk, d, reads, ev, enumeration::shownRelations(*allowed));
  }

  z3::context& ctx_;
  const events::EventProgram& prog_;
  const check::StateSpec& spec_;
  const SmtOptions& opts_;
  cat::Interpreter<SymAlgebra> interp_;
  cat::Interpreter<cat::BitAlgebra> concrete_;
  bool useSc_ = false;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  int skeletons_ = 0;
  uint64_t solverCalls_ = 0;
  std::map<std::string, check::StateResult> states_;
  std::set<std::string> core_;
};

}  // namespace

check::EngineResult runSmt(z3::context& ctx, const events::EventProgram& program, const cat::Model& model,
                           const check::StateSpec& spec, const SmtOptions& options) {
  check::EngineResult r;
  // Relevancy filtering does not pay off on these encodings (measured: about 25% faster without).
  static std::once_flag once;
  std::call_once(once, [] { z3::set_param("smt.relevancy", 0); });
  try {
    SmtRunner runner(ctx, program, model, spec, options);
    return runner.run();
  } catch (const DiagnosticError& e) {
    r.status = check::Status::Error;
    r.message = e.what();
  } catch (const z3::exception& e) {
    r.status = check::Status::Error;
    r.message = std::string("z3: ") + e.msg();
  } catch (const std::out_of_range& e) {
    r.status = check::Status::Error;
    r.message = std::string("internal error: ") + e.what();
  }
  return r;
}

}  // namespace ptxmm::smt
