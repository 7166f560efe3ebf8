// The Z3 engine: one encoding per test (path selectors), all final states by incremental solving.
#include "smt/Engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <thread>
#include <unordered_set>

#include "cat/BitAlgebra.hpp"
#include "cat/Interpreter.hpp"
#include "concrete/Concrete.hpp"
#include "events/Builtins.hpp"
#include "events/Skeleton.hpp"
#include "smt/SymAlgebra.hpp"
#include "smt/ValueEncoder.hpp"
#include "smt/ValueLayout.hpp"
#include "support/Budget.hpp"

namespace ptxmm::smt {

namespace {

// Thrown internally when the solver gives up or a limit is hit.
struct GiveUp {
  outcome::Status status;  // Timeout or Unknown
  std::string why;
};

// Thrown internally when the narrow value layout turns out not to apply (the model does not forbid value
// cycles): the test is encoded again in 64 bits.
struct Widen {};

// Thrown internally for engine bugs found by self-checks.
struct InternalBug {
  std::string why;
};

std::string sanitize(const std::string& s) {
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return r;
}

// Where the time goes (docs/performance.md): per-phase wall time and counts, printed to stderr at the end
// of a test when PTXMM_SMT_STATS is set in the environment. Off by default; costs a clock read per phase.
struct Stats {
  bool on = std::getenv("PTXMM_SMT_STATS") != nullptr;
  std::string query = "check";  // label of the solver calls being made
  std::map<std::string, std::pair<double, int>> phases;
  std::vector<std::string> notes;
  void note(std::string s) {
    if (on) notes.push_back(std::move(s));
  }
  void print(const std::string& test) const {
    if (!on) return;
    std::string out = fmt::format("smt stats {}:", test);
    for (const auto& n : notes) out += " " + n + ";";
    for (const auto& [k, v] : phases) out += fmt::format(" {} {:.1f} ms x{};", k, v.first * 1e3, v.second);
    fmt::print(stderr, "{}\n", out);
  }
};

std::atomic<uint64_t> solverMemoryLimit{0};  // limitSolverMemory

std::string solverMemoryMessage(uint64_t used, uint64_t limit) {
  return fmt::format(
      "Z3's memory reached {}, over the {} the solvers of all workers may use together (--memory and a solver context "
      "per worker)",
      formatBytes(used), formatBytes(limit));
}

// Why a run of runSmt was stopped from outside.
enum Stopped : int { kNotStopped, kDeadline, kMemory };

// One thread for the whole process reads Z3's memory count (Z3_get_estimated_alloc_size, all contexts
// together) every 10 ms while runs are registered and a limit is set (limitSolverMemory). Over the limit,
// each run's test budget is failed (the engine's next poll throws) and its context interrupted, again at
// every look, so that a solver call begun after an interrupt found Z3 idle is stopped too. One thread
// rather than one per run: a suite of small tests would pay for starting it every time.
class MemoryWatch {
 public:
  struct Run {
    z3::context* ctx;
    Budget* budget;  // the test's, or null
    std::atomic<int>* stopped;
    std::atomic<uint64_t>* overAt;
  };
  // Watches `run` for its lifetime; once it is destroyed the run is no longer touched.
  class Registration {
   public:
    explicit Registration(Run& run) : run_(run) { instance().add(&run_); }
    ~Registration() { instance().remove(&run_); }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

   private:
    Run& run_;
  };

 private:
  static MemoryWatch& instance() {
    static MemoryWatch w;
    return w;
  }
  void add(Run* r) {
    std::lock_guard lock(mu_);
    runs_.insert(r);
    if (!thread_) thread_.emplace([this](std::stop_token stop) { loop(stop); });
  }
  void remove(Run* r) {
    std::lock_guard lock(mu_);
    runs_.erase(r);
  }
  void loop(std::stop_token stop) {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait_for(lock, stop, std::chrono::milliseconds(10), [] { return false; });
      if (stop.stop_requested()) return;
      const uint64_t limit = solverMemoryLimit.load();
      if (limit == 0 || runs_.empty()) continue;
      const uint64_t used = Z3_get_estimated_alloc_size();
      if (used <= limit) continue;
      for (Run* r : runs_) {
        int expected = kNotStopped;
        if (r->stopped->compare_exchange_strong(expected, kMemory)) {
          *r->overAt = used;
          if (r->budget) r->budget->fail(BudgetExceeded::Memory, solverMemoryMessage(used, limit));
        }
        if (*r->stopped == kMemory) r->ctx->interrupt();
      }
    }
  }

  std::mutex mu_;
  std::condition_variable_any cv_;
  std::set<Run*> runs_;
  std::optional<std::jthread> thread_;  // last: stopped and joined first
};

// Adds the wall time of its lifetime to a phase of Stats.
class StatTimer {
 public:
  StatTimer(Stats& s, std::string phase) : s_(s), phase_(std::move(phase)) {}
  StatTimer(const StatTimer&) = delete;
  StatTimer& operator=(const StatTimer&) = delete;
  ~StatTimer() {
    if (!s_.on) return;
    auto& [t, k] = s_.phases[phase_];
    t += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    ++k;
  }

 private:
  Stats& s_;
  std::string phase_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

class SmtRunner {
 public:
  SmtRunner(Workspace& ws, const events::EventProgram& prog, const cat::Model& model, const outcome::StateSpec& spec,
            const SmtOptions& opts)
      : ws_(ws),
        ctx_(ws.ctx()),
        prog_(prog),
        spec_(spec),
        opts_(opts),
        interp_(model, concrete::engineInterpreterOptions()),
        concrete_(model, concrete::engineInterpreterOptions()) {
    const auto& names = interp_.builtinNames();
    useSc_ = std::find(names.begin(), names.end(), events::builtinName(events::Builtin::sc)) != names.end();
  }

  outcome::EngineResult run() {
    outcome::EngineResult res;
    res.countsAreExecutions = opts_.countExecutions;
    try {
      std::optional<PathChoices> pc = pathChoices();
      if (pc) {
        try {
          solve(*pc, opts_.narrowValues);
        } catch (const Widen&) {
          solve(*pc, false);
        }
      }
    } catch (const GiveUp& g) {
      res.status = g.status;
      res.message = g.why;
    } catch (const BudgetExceeded& e) {  // the test's time or memory budget (support/Budget.hpp)
      res.status = outcome::budgetStatus(e);
      res.message = e.what();
    } catch (const InternalBug& b) {
      res.status = outcome::Status::Error;
      res.message = "internal error: " + b.why;
    }
    bool reachable = false;
    for (auto& [key, st] : states_) {
      reachable = reachable || targetHolds(st.values);
      res.states.push_back(std::move(st));
    }
    if (!reachable && opts_.explain) res.forbiddenBy.assign(core_.begin(), core_.end());
    res.candidates = solverCalls_;
    stats_.print(prog_.test->name);
    return res;
  }

 private:
  // The path choices to encode: per real thread the paths that take part in some combination the
  // execution barriers accept, and the combinations they reject (blocked by clauses).
  struct PathChoices {
    std::vector<std::vector<int>> used;      // per real thread: path indices
    std::vector<std::vector<int>> rejected;  // combinations of used paths the barriers reject
  };

  std::optional<PathChoices> pathChoices() const {
    const size_t nt = prog_.paths.size();
    PathChoices pc;
    pc.used.resize(nt);
    for (const auto& ps : prog_.paths)
      if (ps.empty()) return std::nullopt;  // a thread with no path: no execution
    if (prog_.barriers.empty()) {
      for (size_t t = 0; t < nt; ++t)
        for (size_t p = 0; p < prog_.paths[t].size(); ++p) pc.used[t].push_back(static_cast<int>(p));
      return pc;
    }
    if (events::countPathChoices(prog_) > kMaxPathChoices)
      throw GiveUp{outcome::Status::Unknown,
                   fmt::format("more than {} path combinations with execution barriers", kMaxPathChoices)};
    std::vector<std::set<int>> used(nt);
    events::forEachPathChoice(prog_, [&](const std::vector<int>& choice) {
      for (size_t t = 0; t < nt; ++t) used[t].insert(choice[t]);
      return true;
    });
    for (const auto& u : used)
      if (u.empty()) return std::nullopt;
    for (size_t t = 0; t < nt; ++t) pc.used[t].assign(used[t].begin(), used[t].end());
    // Combinations of used paths that the barriers reject.
    std::vector<size_t> pick(nt, 0);
    for (;;) {
      pollBudget("path combinations");
      std::vector<int> choice(nt);
      for (size_t t = 0; t < nt; ++t) choice[t] = pc.used[t][pick[t]];
      if (!events::barriersConsistent(prog_, choice)) pc.rejected.push_back(choice);
      size_t t = 0;
      while (t < nt && ++pick[t] == pc.used[t].size()) pick[t++] = 0;
      if (t == nt) break;
    }
    return pc;
  }

  // Adds `e` to the solver before its next check (check() adds them, polling the test's budget: adding a
  // large term makes Z3 simplify it). Held back until then because Z3 4.8 simplifies a term added to a
  // solver that has taken in earlier terms while the encoding was still being built far more slowly than
  // the same terms added in the same order once the encoding is complete (ring-K1-N10: SCPerLocation's
  // axiom 72 s against 0.01 s; docs/performance.md).
  void assertIn(const z3::expr& e) { pending_.push_back(e); }
  // Marks the end of a large part of the encoding (a check of the model): under a deadline, Z3 takes in
  // what was added up to here before the next part is added.
  void endOfPart() { partEnds_.push_back(pending_.size()); }
  // Adds the queued assertions. Z3 4.8.12 takes an encoding in (internalises it) at the next check without
  // looking at its limits, and that takes seconds on a large encoding (ring-K1-N14: 6.3 s): under a
  // deadline, each part of the encoding is taken in by a check that is unsat at once (an assumption whose
  // negation is asserted), and the deadline is checked between parts, so that it is overrun by at most the
  // largest part (ring-K1-N14: 1.4 s, Causality's axiom). Without a deadline nothing is taken in early: the
  // first check's search comes out up to a third slower on some tests when it is (docs/performance.md).
  void flushPending(z3::solver& s) {
    const bool parts = opts_.timeoutMs > 0 && !partEnds_.empty();
    const z3::expr takeIn = ctx_.bool_const("take_in");
    if (parts) s.add(!takeIn);
    size_t nextPart = 0;
    for (size_t k = 0; k < pending_.size(); ++k) {
      if (parts && nextPart < partEnds_.size() && partEnds_[nextPart] == k) {
        ++nextPart;
        setDeadline(s);
        z3::expr_vector a(ctx_);
        a.push_back(takeIn);
        (void)s.check(a);
      }
      pollBudget("smt solver set-up");
      s.add(pending_[k]);
    }
    pending_.clear();
    partEnds_.clear();
  }
  // Z3 takes the encoding in without looking at its interrupt, so the memory it will need is estimated
  // before: about half a kilobyte per term (0.49–0.79 KB measured after the first check of the scaling
  // members of bench/gen-pipelines.py), refused if that would take Z3 over limitSolverMemory's limit.
  void checkSolverMemory() {
    const uint64_t limit = solverMemoryLimit.load();
    if (limit == 0 || !held_) return;
    constexpr uint64_t kBytesPerTerm = 512;
    const size_t fresh = held_->terms.numTerms() - held_->termsTakenIn;
    const uint64_t need = static_cast<uint64_t>(fresh) * kBytesPerTerm;
    const uint64_t used = Z3_get_estimated_alloc_size();
    if (used + need > limit)
      throw BudgetExceeded(
          BudgetExceeded::Memory,
          fmt::format(
              "taking in {} more terms of the encoding needs about {} of Z3's memory while it holds {}: over the {} "
              "the solvers of all workers may use together (--memory and a solver context per worker)",
              fresh, formatBytes(need), formatBytes(used), formatBytes(limit)));
    held_->termsTakenIn = held_->terms.numTerms();
  }

  // The budget is per test: each query gets what is left of it.
  void setDeadline(z3::solver& s) {
    if (!opts_.timeoutMs) return;
    auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0_).count();
    if (spent >= static_cast<long long>(opts_.timeoutMs))
      throw GiveUp{outcome::Status::Timeout,
                   fmt::format("solver timeout: the {} ms left of the test's time budget are spent", opts_.timeoutMs)};
    z3::params p(ctx_);
    p.set("timeout", static_cast<unsigned>(opts_.timeoutMs - static_cast<unsigned>(spent)));
    s.set(p);
  }

  // The outcome of interest: the proposition, negated for forall.
  bool targetHolds(const std::vector<int64_t>& vals) const {
    bool p = spec_.satisfies(vals);
    return prog_.test->condition.quant == litmus::Condition::Quant::Forall ? !p : p;
  }

  z3::expr propExpr(const outcome::ResolvedProp& p, const std::vector<z3::expr>& terms) {
    using K = litmus::Prop::Kind;
    // term == term, term == constant (false if the layout cannot represent the constant), constant == constant.
    auto eq = [&]() -> z3::expr {
      if (p.lhs >= 0 && p.rhs >= 0) return terms[static_cast<size_t>(p.lhs)] == terms[static_cast<size_t>(p.rhs)];
      if (p.lhs < 0 && p.rhs < 0) return ctx_.bool_val(p.lhsConst == p.rhsConst);
      const size_t t = static_cast<size_t>(p.lhs >= 0 ? p.lhs : p.rhs);
      z3::expr c = valueConst(termKind_[t], p.lhs >= 0 ? p.rhsConst : p.lhsConst);
      return c.is_bool() ? c : terms[t] == c;
    };
    switch (p.kind) {
      case K::True: return ctx_.bool_val(true);
      case K::False: return ctx_.bool_val(false);
      case K::Eq: return eq();
      case K::Ne: return !eq();
      case K::Not: return !propExpr(p.kids.at(0), terms);
      case K::And: return propExpr(p.kids.at(0), terms) && propExpr(p.kids.at(1), terms);
      case K::Or: return propExpr(p.kids.at(0), terms) || propExpr(p.kids.at(1), terms);
      case K::Implies: return z3::implies(propExpr(p.kids.at(0), terms), propExpr(p.kids.at(1), terms));
    }
    return ctx_.bool_val(false);
  }

  // Value v of kind k as a bit-vector of the layout, or the constant false if the layout cannot represent it.
  z3::expr valueConst(ValueKind k, int64_t v) {
    std::optional<uint64_t> b = layout_.encode(k, v);
    return b ? ctx_.bv_val(*b, layout_.bits(k)) : ctx_.bool_val(false);
  }
  // term != v for a value v of kind k (true if the layout cannot represent v).
  z3::expr differs(const z3::expr& term, ValueKind k, int64_t v) {
    z3::expr c = valueConst(k, v);
    return c.is_bool() ? ctx_.bool_val(true) : term != c;
  }
  // The value of `term` (of kind k) in model m.
  int64_t valueIn(const z3::model& m, const z3::expr& term, ValueKind k) const {
    return layout_.decode(k, m.eval(term, true).get_numeral_uint64());
  }

  // `base` with `extra` appended, as a new vector (copying a z3::expr_vector shares the vector).
  z3::expr_vector plus(const z3::expr_vector& base, const z3::expr& extra) {
    z3::expr_vector r(ctx_);
    for (unsigned i = 0; i < base.size(); ++i) r.push_back(base[i]);
    r.push_back(extra);
    return r;
  }

  z3::check_result check(const z3::expr_vector& assumptions) {
    z3::solver& s = held_->solver();
    ++solverCalls_;
    if (!pending_.empty()) {
      StatTimer at(stats_, "assert");
      checkSolverMemory();
      flushPending(s);
    }
    StatTimer st(stats_, solverCalls_ == 1 ? "check (first)" : stats_.query);
    pollBudget("smt solver");
    setDeadline(s);
    z3::check_result r = s.check(assumptions);
    if (stats_.on && solverCalls_ == 1) {  // how much search the first (internalising) query needed
      z3::stats zs = s.statistics();
      std::string o;
      for (unsigned i = 0; i < zs.size(); ++i) {
        const std::string k = zs.key(i);
        if (k == "conflicts" || k == "decisions" || k == "propagations" || k == "mk clause" || k == "memory")
          o +=
              fmt::format(" {} {}", k,
                          zs.is_uint(i) ? std::to_string(zs.uint_value(i)) : fmt::format("{:.0f}", zs.double_value(i)));
      }
      stats_.note("z3 first check:" + o);
    }
    if (r == z3::unknown) {
      std::string why = s.reason_unknown();
      if (why.find("timeout") != std::string::npos || why.find("canceled") != std::string::npos ||
          why.find("interrupted") != std::string::npos)
        throw GiveUp{
            outcome::Status::Timeout,
            fmt::format("solver timeout: the {} ms left of the test's time budget are spent", opts_.timeoutMs)};
      throw GiveUp{outcome::Status::Unknown, "solver returned unknown: " + why};
    }
    return r;
  }

  // Path selectors and the execution frame of the union skeleton.
  struct Selection {
    std::vector<std::vector<Lit>> sel;  // per real thread, per used path (same order as PathChoices::used)
    Frame frame;
  };

  Selection select(const events::Skeleton& u, const PathChoices& pc, TermTable& terms) {
    const size_t n = u.size();
    const size_t nt = pc.used.size();
    Selection out;
    out.sel.resize(nt);
    std::vector<size_t> offset(nt + 1, 0);
    for (size_t t = 0; t < nt; ++t) {
      offset[t + 1] = offset[t] + pc.used[t].size();
      if (pc.used[t].size() == 1) {
        out.sel[t].push_back(kTrue);
        continue;
      }
      z3::expr_vector lits(ctx_);
      for (int p : pc.used[t]) {
        Lit l = terms.var(fmt::format("path_t{}_p{}", t, p));
        out.sel[t].push_back(l);
        lits.push_back(terms.expr(l));
      }
      assertIn(z3::mk_or(lits));
      assertIn(z3::atmost(lits, 1));
    }
    for (const auto& choice : pc.rejected) {
      z3::expr_vector cl(ctx_);
      for (size_t t = 0; t < nt; ++t) {
        size_t k = static_cast<size_t>(std::find(pc.used[t].begin(), pc.used[t].end(), choice[t]) - pc.used[t].begin());
        cl.push_back(terms.expr(terms.mkNot(out.sel[t][k])));
      }
      assertIn(z3::mk_or(cl));
    }
    // Which used paths contain each event.
    std::vector<BitSet> on(n, BitSet(offset[nt]));
    std::vector<int> owner(n, -1);
    for (size_t t = 0; t < nt; ++t)
      for (size_t k = 0; k < pc.used[t].size(); ++k)
        for (events::EventId e : prog_.paths[t][static_cast<size_t>(pc.used[t][k])].events) {
          size_t i = static_cast<size_t>(u.indexOf(e));
          on[i].set(offset[t] + k);
          owner[i] = static_cast<int>(t);
        }
    Frame& f = out.frame;
    f.exec.assign(n, kTrue);
    for (size_t i = 0; i < n; ++i) {
      if (owner[i] < 0) continue;  // init write
      size_t t = static_cast<size_t>(owner[i]);
      std::vector<Lit> ls;
      for (size_t k = 0; k < pc.used[t].size(); ++k)
        if (on[i].test(offset[t] + k)) ls.push_back(out.sel[t][k]);
      f.exec[i] = terms.mkOrN(ls);
    }
    f.implied = BitMatrix(n);
    f.cooc = BitMatrix(n);
    for (size_t k = 0; k < n; ++k) {
      pollBudget("smt encoding (execution frame)");
      for (size_t i = 0; i < n; ++i) {
        bool sameOwner = owner[i] >= 0 && owner[i] == owner[k];
        if (f.exec[k] == kTrue || (sameOwner && on[i].subsetOf(on[k]))) f.implied.set(k, i);
        if (!sameOwner || on[i].intersects(on[k])) f.cooc.set(k, i);
      }
    }
    return out;
  }

  // The value layout of the union skeleton (smt/ValueLayout.hpp), and the kind of each final-state term.
  void chooseLayout(const events::Skeleton& u, const PathChoices& pc, bool narrow) {
    layout_ = ValueLayout{};
    termKind_.assign(spec_.terms.size(), ValueKind::Plain);
    if (!narrow) return;
    LayoutInput in;
    in.writesByLoc.resize(u.writesByLoc.size());
    for (size_t l = 0; l < u.writesByLoc.size(); ++l)
      for (int w : u.writesByLoc[l]) in.writesByLoc[l].push_back(u.event(static_cast<size_t>(w)).value);
    in.readLoc.assign(prog_.events.size(), -1);
    for (size_t i = 0; i < u.size(); ++i)
      if (u.event(i).type == events::EventType::Read) in.readLoc[static_cast<size_t>(u.event(i).id)] = u.event(i).loc;
    for (size_t t = 0; t < pc.used.size(); ++t)
      for (int k : pc.used[t]) {
        const events::Path& p = prog_.paths[t][static_cast<size_t>(k)];
        in.others.insert(in.others.end(), p.guards.begin(), p.guards.end());
        for (const auto& [e, why] : p.undefinedIf) in.others.push_back(e);
      }
    for (const auto& [name, members] : u.dynamicSets)
      for (const auto& [i, cond] : members) in.others.push_back(cond);
    std::vector<std::optional<size_t>> group(spec_.terms.size());
    for (size_t i = 0; i < spec_.terms.size(); ++i) {
      const auto& t = spec_.terms[i];
      if (!t.isReg()) continue;
      const size_t th = static_cast<size_t>(t.term.thread);
      std::vector<events::ExprId> g;
      for (int k : pc.used[th]) {
        const auto& regs = prog_.paths[th][static_cast<size_t>(k)].finalRegs;
        if (auto it = regs.find(t.term.reg); it != regs.end()) g.push_back(it->second);
      }
      group[i] = in.sameKind.size();
      in.sameKind.push_back(std::move(g));
      in.plainConstants.push_back(concrete::initialRegister(*prog_.test, t.term.thread, t.term.reg));
    }
    collectConstants(spec_.prop, in.plainConstants);
    ValueLayout l = computeLayout(prog_.exprs, in);
    if (!l.narrow) return;
    std::vector<ValueKind> kinds(spec_.terms.size(), ValueKind::Plain);
    for (size_t i = 0; i < spec_.terms.size(); ++i) {
      const auto& t = spec_.terms[i];
      if (!t.isReg()) {
        kinds[i] = l.locKind.at(static_cast<size_t>(t.loc));
        continue;
      }
      for (events::ExprId e : in.sameKind[*group[i]])
        if (!prog_.exprs.isConst(e)) kinds[i] = l.kindOf(prog_.exprs, e);
      // The register's initial value, and every constant final value, must be representable in its kind.
      std::vector<int64_t> consts{concrete::initialRegister(*prog_.test, t.term.thread, t.term.reg)};
      for (events::ExprId e : in.sameKind[*group[i]])
        if (prog_.exprs.isConst(e)) consts.push_back(prog_.exprs.node(e).value);
      for (int64_t c : consts)
        if (!l.encode(kinds[i], c)) return;
    }
    layout_ = std::move(l);
    termKind_ = std::move(kinds);
  }

  static void collectConstants(const outcome::ResolvedProp& p, std::vector<int64_t>& out) {
    if (p.lhs < 0) out.push_back(p.lhsConst);
    if (p.rhs < 0) out.push_back(p.rhsConst);
    for (const auto& k : p.kids) collectConstants(k, out);
  }

  // Whether an asserted `acyclic` check of the model contains every value dependency of the encoding: each
  // possible rf edge, and each read -> write whose value expression uses the read (as a constant entry).
  // Then no allowed execution has a value-dependency cycle, which the narrow layout relies on.
  bool forbidsValueCycles(const cat::Outcome<SymAlgebra>& o, const SymAlgebra& alg, const TermTable& terms,
                          const events::Skeleton& u, const SymRel& rf, const Frame& frame) const {
    const size_t n = u.size();
    std::vector<std::pair<size_t, size_t>> deps;
    for (size_t w = 0; w < n; ++w) {
      const events::Event& e = u.event(w);
      if (e.type != events::EventType::Write || e.value < 0) continue;
      std::vector<events::EventId> rs;
      prog_.exprs.collectReads(e.value, rs);
      for (events::EventId r : rs) {
        const int ri = u.indexOf(r);
        if (ri >= 0 && frame.cooc.test(static_cast<size_t>(ri), w)) deps.emplace_back(static_cast<size_t>(ri), w);
      }
    }
    for (const auto& c : o.checks) {
      if (c.info->kind != cat::CheckKind::Check && c.info->kind != cat::CheckKind::Assert) continue;
      const SymRel* r = alg.acyclicRelation(c.value);
      if (!r) continue;
      bool covers = true;
      for (size_t k = 0; k < n * n && covers; ++k)
        if (rf.m[k] != kFalse) covers = terms.hasDisjunct(r->m[k], rf.m[k]);
      for (const auto& [a, b] : deps)
        if (covers) covers = r->m[a * n + b] == kTrue;
      if (covers) return true;
    }
    return false;
  }

  void solve(const PathChoices& pc, bool narrow) {
    std::optional<StatTimer> phase(std::in_place, stats_, "skeleton");
    const events::Skeleton u = events::buildUnionSkeleton(prog_, pc.used);
    const size_t n = u.size();
    const size_t nt = pc.used.size();
    phase.emplace(stats_, "value layout");
    chooseLayout(u, pc, narrow);
    stats_.note("values: " + layout_.describe());
    phase.emplace(stats_, "skeleton");
    held_.reset();  // a narrower try's (Widen), before this one builds its own
    held_ = std::make_unique<Held>(ws_);
    TermTable& terms = held_->terms;
    pending_.clear();
    partEnds_.clear();
    phase.emplace(stats_, "frame");
    Selection selection = select(u, pc, terms);
    phase.emplace(stats_, "rf/co encoding");
    const Frame& frame = selection.frame;
    auto exec = [&](size_t i) { return frame.exec[i]; };
    SymAlgebra alg(terms, n, "", frame);
    for (const auto& [name, bits] : u.sets) alg.setSet(name, alg.constSet(bits));
    for (const auto& [name, bits] : u.relations) alg.setRel(name, alg.constRel(bits));

    // Read values and the value encoder.
    std::map<events::EventId, z3::expr> readVal;
    std::vector<int> reads;
    for (size_t i = 0; i < n; ++i) {
      const events::Event& e = u.event(i);
      if (e.type != events::EventType::Read) continue;
      reads.push_back(static_cast<int>(i));
      readVal.emplace(e.id, ctx_.bv_const(fmt::format("val_e{}", e.id).c_str(), layout_.bits(locKind(e.loc))));
    }
    ValueEncoder enc(
        ctx_, prog_.exprs,
        [&](events::EventId e) -> z3::expr {
          auto it = readVal.find(e);
          if (it == readVal.end()) throw InternalBug{fmt::format("value uses read e{} of no encoded path", e)};
          return it->second;
        },
        layout_);
    // Value-dependent sets: member i iff value(cond) != 0, the other events never.
    for (const auto& [name, members] : u.dynamicSets) {
      SymSet set = alg.emptySet();
      for (const auto& [i, cond] : members) set.v[static_cast<size_t>(i)] = terms.fromExpr(enc.nonZero(cond));
      alg.setSet(name, std::move(set));
    }
    auto writeValue = [&](int w) {
      const events::Event& e = u.event(static_cast<size_t>(w));
      return e.value >= 0 ? enc.encodeAs(e.value, locKind(e.loc)) : enc.constant(locKind(e.loc), 0);
    };

    // rf: an executed read has exactly one same-location source that executes with it, and returns
    // its value.
    SymRel rf = alg.emptyRel();
    std::vector<Lit> decision;  // what identifies an execution (for counting)
    for (const auto& ls : selection.sel)
      for (Lit l : ls)
        if (l != kTrue) decision.push_back(l);
    for (int r : reads) {
      const size_t ri = static_cast<size_t>(r);
      const events::Event& re = u.event(ri);
      std::vector<int> ws;
      for (int w : u.writesByLoc.at(static_cast<size_t>(re.loc)))
        if (frame.cooc.test(static_cast<size_t>(w), ri)) ws.push_back(w);
      if (ws.empty()) throw InternalBug{fmt::format("read e{} has no write to read from", re.id)};
      const z3::expr& v = readVal.at(re.id);
      if (ws.size() == 1 && exec(static_cast<size_t>(ws[0])) == kTrue) {
        rf.m[static_cast<size_t>(ws[0]) * n + ri] = kTrue;
        assertIn(z3::implies(terms.expr(exec(ri)), v == writeValue(ws[0])));
        continue;
      }
      z3::expr_vector lits(ctx_);
      for (int w : ws) {
        const size_t wi = static_cast<size_t>(w);
        Lit l = terms.var(fmt::format("rf_e{}_e{}", u.event(wi).id, re.id));
        rf.m[wi * n + ri] = l;
        decision.push_back(l);
        lits.push_back(terms.expr(l));
        assertIn(z3::implies(terms.expr(l), terms.expr(terms.mkAnd(exec(wi), exec(ri)))));
        assertIn(z3::implies(terms.expr(l), v == writeValue(w)));
      }
      assertIn(z3::implies(terms.expr(exec(ri)), z3::mk_or(lits)));
      assertIn(z3::atmost(lits, 1));
    }

    // A strict total order over `items` (first: an element ordered before all, or -1); as a relation it
    // is read given that both ends execute, so the order of events that do not is irrelevant.
    auto totalOrder = [&](SymRel& rel, const std::vector<int>& items, int first, const char* what) {
      for (int w : items)
        if (first >= 0) rel.m[static_cast<size_t>(first) * n + static_cast<size_t>(w)] = kTrue;
      for (size_t a = 0; a < items.size(); ++a)
        for (size_t b = a + 1; b < items.size(); ++b) {
          size_t ia = static_cast<size_t>(items[a]), ib = static_cast<size_t>(items[b]);
          if (!frame.cooc.test(ia, ib)) continue;
          Lit l = terms.var(fmt::format("{}_e{}_e{}", what, u.events[ia], u.events[ib]));
          decision.push_back(terms.mkAnd(l, terms.mkAnd(exec(ia), exec(ib))));
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
            // Pairs that never execute together have no order: no constraint through them.
            if (ab == kFalse || bc == kFalse || !frame.cooc.test(static_cast<size_t>(a), static_cast<size_t>(c)))
              continue;
            assertIn(z3::implies(terms.expr(terms.mkAnd(ab, bc)),
                                 terms.expr(terms.mkImplies(terms.mkAnd(exec(static_cast<size_t>(a)),
                                                                        terms.mkAnd(exec(static_cast<size_t>(b)),
                                                                                    exec(static_cast<size_t>(c)))),
                                                            ac))));
          }
    };
    SymRel co = alg.emptyRel();
    SymSet fw = alg.emptySet();
    for (const auto& ws : u.writesByLoc) {
      if (ws.empty()) continue;
      int init = u.event(static_cast<size_t>(ws[0])).isInit ? ws[0] : -1;
      std::vector<int> rest(ws.begin() + (init >= 0 ? 1 : 0), ws.end());
      totalOrder(co, rest, init, "co");
      for (int w : ws) {
        std::vector<Lit> notBefore;
        for (int w2 : ws)
          if (w2 != w)
            notBefore.push_back(
                terms.mkImplies(exec(static_cast<size_t>(w2)),
                                terms.mkNot(co.m[static_cast<size_t>(w) * n + static_cast<size_t>(w2)])));
        fw.v[static_cast<size_t>(w)] = terms.mkAndN(notBefore);
      }
    }
    SymRel sc = alg.emptyRel();
    if (useSc_ && u.sets.count(events::nameOf(events::Builtin::F_SC))) {
      std::vector<int> fs;
      u.set(events::nameOf(events::Builtin::F_SC)).forEach([&](size_t i) { fs.push_back(static_cast<int>(i)); });
      totalOrder(sc, fs, -1, "sc");
    }
    alg.setRel(events::nameOf(events::Builtin::rf), rf);
    alg.setRel(events::nameOf(events::Builtin::co), co);
    alg.setRel(events::nameOf(events::Builtin::fr), alg.seq(alg.inverse(rf), co));
    alg.setRel(events::nameOf(events::Builtin::sc), sc);
    // co and sc are strict total orders on the executed events (asserted above): closures skip steps
    // through their own entries.
    alg.markTransitive(co);
    alg.markTransitive(sc);
    alg.setSet(events::nameOf(events::Builtin::FW), fw);

    // Program constraints of each path: guards, blocked waits; UB conditions, cut and blocked paths.
    std::map<std::string, std::vector<Lit>> flagParts;
    std::vector<Lit> cutPaths, blockedPaths;
    for (size_t t = 0; t < nt; ++t)
      for (size_t k = 0; k < pc.used[t].size(); ++k) {
        const events::Path& p = prog_.paths[t][static_cast<size_t>(pc.used[t][k])];
        const Lit sel = selection.sel[t][k];
        const z3::expr selE = terms.expr(sel);
        for (events::ExprId g : p.guards) assertIn(z3::implies(selE, enc.nonZero(g)));
        for (events::EventId re : p.readsFinal) {
          size_t r = static_cast<size_t>(u.indexOf(re));
          for (int w : u.writesByLoc.at(static_cast<size_t>(u.event(r).loc))) {
            Lit l = rf.m[static_cast<size_t>(w) * n + r];
            if (l != kFalse) assertIn(z3::implies(selE && terms.expr(l), terms.expr(fw.v[static_cast<size_t>(w)])));
          }
        }
        for (const auto& [e, why] : p.undefinedIf)
          flagParts["undefined"].push_back(terms.mkAnd(sel, terms.fromExpr(enc.nonZero(e))));
        if (p.end == events::PathEnd::Cut && !p.spin) cutPaths.push_back(sel);
        if (p.end == events::PathEnd::Blocked) blockedPaths.push_back(sel);
      }

    // The model: plain checks as tracked assertions, flags recorded.
    phase.emplace(stats_, "model encoding");
    const size_t termsBeforeModel = terms.numTerms();
    cat::ModelResult<SymAlgebra> mr = interp_.run(alg);
    phase.reset();
    if (layout_.narrow && mr.outcomes.size() == 1 && !mr.outcomes.front().cut &&
        !forbidsValueCycles(mr.outcomes.front(), alg, terms, u, rf, frame))
      throw Widen{};
    if (stats_.on) {
      auto cs = alg.closureSizes();
      std::sort(cs.begin(), cs.end(), [](const auto& a, const auto& b) { return a.terms > b.terms; });
      size_t total = 0;
      for (const auto& c : cs) total += c.terms;
      std::string top;
      for (size_t i = 0; i < std::min<size_t>(3, cs.size()); ++i)
        top += fmt::format(" {}->{} entries {} terms,", cs[i].entriesIn, cs[i].entriesOut, cs[i].terms);
      stats_.note(fmt::format("{} closures, {} terms, largest:{}", cs.size(), total, top));
    }
    if (stats_.on) {
      size_t paths = 0;
      for (const auto& p : pc.used) paths += p.size();
      stats_.note(fmt::format("events {}, threads {}, paths {}, terms {} (rf/co and frame {}, model {})", n, nt, paths,
                              terms.numTerms(), termsBeforeModel, terms.numTerms() - termsBeforeModel));
    }
    if (mr.outcomes.size() != 1)
      throw InternalBug{fmt::format("model evaluation gave {} outcomes (`with` is not supported by the smt engine)",
                                    mr.outcomes.size())};
    const auto& outcome = mr.outcomes.front();
    if (outcome.cut) {
      // A plain check is false for every execution.
      if (!outcome.checks.empty()) core_.insert(outcome.checks.back().info->name);
      return;
    }
    std::map<std::string, z3::expr> axioms;
    for (const auto& c : outcome.checks) {
      const std::string& name = c.info->name;
      switch (c.info->kind) {
        case cat::CheckKind::Check: {
          endOfPart();
          auto it = axioms.find(name);
          if (it == axioms.end())
            it = axioms.emplace(name, ctx_.bool_const(fmt::format("ax_{}", sanitize(name)).c_str())).first;
          assertIn(z3::implies(it->second, terms.expr(c.value.lit)));
          break;
        }
        case cat::CheckKind::Assert: assertIn(terms.expr(c.value.lit)); break;
        case cat::CheckKind::Flag: flagParts[name].push_back(c.value.lit); break;
        case cat::CheckKind::Undefined: flagParts["undefined"].push_back(terms.mkNot(c.value.lit)); break;
      }
    }
    std::map<std::string, Lit> flags;
    for (const auto& [name, parts] : flagParts) flags[name] = terms.mkOrN(parts);
    if (!cutPaths.empty()) flags["cut"] = terms.mkOrN(cutPaths);
    if (!blockedPaths.empty()) flags["deadlock"] = terms.mkOrN(blockedPaths);
    if (flags.count("deadlock") || flags.count("livelock")) {
      // Internal flag (check/ strips it): an execution in which no thread blocks or spins forever.
      std::vector<Lit> hang;
      for (const char* f : {"deadlock", "livelock"})
        if (auto it = flags.find(f); it != flags.end()) hang.push_back(it->second);
      flags["completes"] = terms.mkNot(terms.mkOrN(hang));
    }
    z3::expr_vector assumptions(ctx_);
    std::map<unsigned, std::string> axiomOf;
    for (const auto& [name, lit] : axioms) {
      assumptions.push_back(lit);
      axiomOf[lit.id()] = name;
    }

    // Final-state terms: a register's value at the end of the chosen path of its thread.
    std::vector<z3::expr> termExprs;
    for (const auto& t : spec_.terms) {
      if (t.isReg()) {
        const size_t th = static_cast<size_t>(t.term.thread);
        const ValueKind kind = termKind_[termExprs.size()];
        z3::expr initial = enc.constant(kind, concrete::initialRegister(*prog_.test, t.term.thread, t.term.reg));
        auto valueOn = [&](size_t k) {
          const auto& regs = prog_.paths[th][static_cast<size_t>(pc.used[th][k])].finalRegs;
          auto it = regs.find(t.term.reg);
          return it != regs.end() ? enc.encodeAs(it->second, kind) : initial;
        };
        z3::expr v = valueOn(pc.used[th].size() - 1);
        for (size_t k = pc.used[th].size() - 1; k-- > 0;) v = z3::ite(terms.expr(selection.sel[th][k]), valueOn(k), v);
        termExprs.push_back(v);
      } else {
        z3::expr fin = ctx_.bv_const(fmt::format("final_{}", sanitize(t.label)).c_str(), layout_.bits(locKind(t.loc)));
        for (int w : u.writesByLoc.at(static_cast<size_t>(t.loc)))
          assertIn(z3::implies(terms.expr(terms.mkAnd(exec(static_cast<size_t>(w)), fw.v[static_cast<size_t>(w)])),
                               fin == writeValue(w)));
        termExprs.push_back(fin);
      }
    }

    // All states: block each found state until unsat. The blocking clauses live under an activation
    // literal rather than a push/pop scope: popping makes Z3 undo, and the next query redo, the
    // internalisation of the whole encoding.
    struct Found {
      std::vector<int64_t> vals;
      std::string key;
    };
    std::vector<Found> found;
    // "The final state is not `vals`".
    auto stateDiffers = [&](const std::vector<int64_t>& vals) {
      z3::expr_vector diff(ctx_);
      for (size_t i = 0; i < termExprs.size(); ++i) diff.push_back(differs(termExprs[i], termKind_[i], vals[i]));
      return z3::mk_or(diff);
    };
    concrete::Evaluator ev(prog_.exprs);
    std::optional<std::set<std::string>> noExecutionCore;
    z3::expr blockAct = ctx_.bool_const("block_states");
    const z3::expr_vector stateAssumptions = plus(assumptions, blockAct);
    stats_.query = "check (states)";
    for (;;) {
      if (check(stateAssumptions) != z3::sat) {
        if (found.empty()) {
          // No allowed execution at all: the core of this query already explains the outcome.
          noExecutionCore.emplace();
          z3::expr_vector core = held_->solver().unsat_core();
          for (unsigned i = 0; i < core.size(); ++i)
            if (auto it = axiomOf.find(core[i].id()); it != axiomOf.end()) noExecutionCore->insert(it->second);
        }
        break;
      }
      z3::model m = held_->solver().get_model();
      std::vector<int64_t> vals;
      z3::expr_vector diff(ctx_);
      for (const auto& te : termExprs) {
        z3::expr v = m.eval(te, true);
        vals.push_back(layout_.decode(termKind_[vals.size()], v.get_numeral_uint64()));
        diff.push_back(te != v);
      }
      std::string key = spec_.key(vals);
      {
        StatTimer rt(stats_, "record state");
        recordState(u, pc, selection, terms, m, rf, co, sc, readVal, vals, key, ev);
      }
      found.push_back({vals, key});
      if (states_.size() > opts_.maxStates)
        throw GiveUp{outcome::Status::Unknown, fmt::format("more than {} distinct final states", opts_.maxStates)};
      assertIn(z3::implies(blockAct, z3::mk_or(diff)));
      // A neighbour whose state is new costs a run of the concrete model, cheap next to a solver query on a
      // small skeleton; on a large one the neighbours are explored once the solver has found a few states.
      std::vector<std::pair<std::vector<int64_t>, std::string>> more;
      if (found.size() >= (n <= kSmallSkeleton ? 1 : kExploreAfterStates)) {
        StatTimer nt(stats_, "neighbours");
        more = exploreNeighbours(ev);
      }
      for (auto& [nvals, nkey] : more) {
        assertIn(z3::implies(blockAct, stateDiffers(nvals)));
        found.push_back({std::move(nvals), std::move(nkey)});
      }
    }
    stats_.note(
        fmt::format("states {}, state queries {}, neighbour checks {}", found.size(), solverCalls_, neighbourChecks_));
    assertIn(!blockAct);

    // Flags: for each flag, the states reachable by an allowed execution raising it (states already
    // known to raise it from their witness are blocked from the start).
    // The flags to search: not constant, and not raised already in every reachable state (all are known).
    std::vector<std::pair<std::string, Lit>> toSearch;
    for (const auto& [name, l] : flags) {
      if (l == kFalse || found.empty()) continue;
      if (l == kTrue) {
        for (const auto& f : found) states_.at(f.key).flags.insert(name);
        continue;
      }
      if (!std::all_of(found.begin(), found.end(),
                       [&](const Found& f) { return states_.at(f.key).flags.count(name) > 0; }))
        toSearch.emplace_back(name, l);
    }
    // Most flags are raised by no execution: one query over all of them, unsat, spares a query each.
    if (toSearch.size() >= 2) {
      stats_.query = "check (flags)";
      z3::expr anyAct = ctx_.bool_const("flags_any");
      z3::expr_vector some(ctx_);
      for (const auto& [name, l] : toSearch) {
        z3::expr_vector raised(ctx_);
        raised.push_back(terms.expr(l));
        for (const auto& f : found)
          if (states_.at(f.key).flags.count(name)) raised.push_back(stateDiffers(f.vals));
        some.push_back(z3::mk_and(raised));
      }
      assertIn(z3::implies(anyAct, z3::mk_or(some)));
      if (check(plus(assumptions, anyAct)) == z3::unsat) toSearch.clear();
      assertIn(!anyAct);
    }
    for (const auto& [name, l] : toSearch) {
      stats_.query = "check (flag " + name + ")";
      z3::expr flagAct = ctx_.bool_const(fmt::format("flag_{}", sanitize(name)).c_str());
      assertIn(z3::implies(flagAct, terms.expr(l)));
      const z3::expr_vector flagAssumptions = plus(assumptions, flagAct);
      auto block = [&](const std::vector<int64_t>& vals) { assertIn(z3::implies(flagAct, stateDiffers(vals))); };
      for (const auto& f : found)
        if (states_.at(f.key).flags.count(name)) block(f.vals);
      while (check(flagAssumptions) == z3::sat) {
        z3::model m = held_->solver().get_model();
        std::vector<int64_t> vals;
        for (size_t i = 0; i < termExprs.size(); ++i) vals.push_back(valueIn(m, termExprs[i], termKind_[i]));
        auto it = states_.find(spec_.key(vals));
        if (it == states_.end())
          throw InternalBug{
              fmt::format("flag {} raised in state '{}' that the state enumeration missed", name, spec_.key(vals))};
        // The execution's witness keeps the finding of the flag (and re-checks the execution concretely).
        recordState(u, pc, selection, terms, m, rf, co, sc, readVal, vals, it->first, ev);
        it->second.flags.insert(name);
        block(vals);
      }
      assertIn(!flagAct);
    }
    // Execution counts.
    for (size_t k = 0; k < found.size(); ++k) {
      outcome::StateResult& st = states_.at(found[k].key);
      if (!opts_.countExecutions) {
        st.executions += 1;
        continue;
      }
      z3::expr stLit = ctx_.bool_const(fmt::format("state_{}", k).c_str());
      z3::expr_vector eqs(ctx_);
      for (size_t i = 0; i < termExprs.size(); ++i)
        eqs.push_back(!differs(termExprs[i], termKind_[i], found[k].vals[i]));
      assertIn(z3::implies(stLit, z3::mk_and(eqs)));
      st.executions += countExecutions(assumptions, stLit, terms, decision);
    }

    // Which axioms forbid the outcome of interest, if no execution reaches it.
    bool reachable = false;
    for (const auto& f : found) reachable = reachable || targetHolds(f.vals);
    if (noExecutionCore) {
      core_.insert(noExecutionCore->begin(), noExecutionCore->end());
    } else if (!reachable && opts_.explain) {
      stats_.query = "check (core)";
      z3::expr tl = ctx_.bool_const("outcome");
      z3::expr target = propExpr(spec_.prop, termExprs);
      if (prog_.test->condition.quant == litmus::Condition::Quant::Forall) target = !target;
      assertIn(z3::implies(tl, target));
      if (check(plus(assumptions, tl)) == z3::unsat) {
        z3::expr_vector core = held_->solver().unsat_core();
        for (unsigned i = 0; i < core.size(); ++i) {
          auto it = axiomOf.find(core[i].id());
          if (it != axiomOf.end()) core_.insert(it->second);
        }
      }
    }
  }

  uint64_t countExecutions(const z3::expr_vector& assumptions, const z3::expr& stLit, TermTable& terms,
                           const std::vector<Lit>& decision) {
    uint64_t count = 0;
    z3::expr countAct = ctx_.bool_const(fmt::format("count_{}", stLit.to_string()).c_str());
    const z3::expr_vector as = plus(plus(assumptions, stLit), countAct);
    while (check(as) == z3::sat) {
      ++count;
      z3::model m = held_->solver().get_model();
      z3::expr_vector diff(ctx_);
      for (Lit l : decision) {
        z3::expr e = terms.expr(l);
        diff.push_back(m.eval(e, true).is_true() ? !e : e);
      }
      if (diff.empty()) break;
      assertIn(z3::implies(countAct, z3::mk_or(diff)));
    }
    assertIn(!countAct);
    return count;
  }

  // Records a state found in a model: the chosen paths' skeleton, the witness, and a concrete re-check
  // of the execution.
  void recordState(const events::Skeleton& u, const PathChoices& pc, const Selection& selection, TermTable& terms,
                   const z3::model& m, const SymRel& rf, const SymRel& co, const SymRel& sc,
                   const std::map<events::EventId, z3::expr>& readVal, const std::vector<int64_t>& vals,
                   const std::string& key, concrete::Evaluator& ev) {
    auto isTrue = [&](Lit l) {
      if (l == kTrue) return true;
      if (l == kFalse) return false;
      return m.eval(terms.expr(l), true).is_true();
    };
    std::vector<int> choice(pc.used.size(), -1);
    for (size_t t = 0; t < pc.used.size(); ++t)
      for (size_t k = 0; k < pc.used[t].size(); ++k)
        if (isTrue(selection.sel[t][k])) choice[t] = pc.used[t][k];
    for (int c : choice)
      if (c < 0) throw InternalBug{fmt::format("smt execution reaching state '{}' selects no path", key)};
    // The skeleton of the selected paths, its bound algebra and the cache of the model's static part are
    // kept from the previous state when the choice is the same (always, for tests without branches).
    if (!concreteSk_ || concreteSk_->choice != choice) {
      concreteSk_.emplace(events::buildSkeleton(prog_, choice));
      concreteAlg_.emplace(concreteSk_->size());
      concrete::bindStatic(*concreteAlg_, *concreteSk_);
      concreteCache_.clear();
      writeDeps_.clear();
      triedNeighbours_.clear();
    }
    const events::Skeleton& sk = *concreteSk_;
    const size_t n = sk.size(), un = u.size();
    std::vector<size_t> ui(n);
    for (size_t i = 0; i < n; ++i) ui[i] = static_cast<size_t>(u.indexOf(sk.events[i]));
    concrete::Dynamic d{BitMatrix(n), BitMatrix(n), BitMatrix(n)};
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) {
        const size_t k = ui[i] * un + ui[j];
        if (isTrue(rf.m[k])) d.rf.set(i, j);
        if (isTrue(co.m[k])) d.co.set(i, j);
        if (isTrue(sc.m[k])) d.sc.set(i, j);
      }
    std::vector<int64_t> reads(prog_.events.size(), 0);
    for (size_t i = 0; i < n; ++i) {
      const events::Event& e = sk.event(i);
      if (e.type == events::EventType::Read)
        reads[static_cast<size_t>(e.id)] = valueIn(m, readVal.at(e.id), locKind(e.loc));
    }
    if (!recordExecution(d, reads, vals, key, ev))
      throw InternalBug{
          fmt::format("smt execution reaching state '{}' is not allowed by the concrete model evaluation", key)};
    lastExecution_.emplace(Execution{std::move(d), std::move(reads)});
  }

  // One execution of the skeleton concreteSk_ (compact indices): rf, co, sc and the read values.
  struct Execution {
    concrete::Dynamic d;
    std::vector<int64_t> reads;  // by EventId
  };

  // Evaluates execution (d, reads) of concreteSk_ with the concrete model and, if it is allowed, adds it to
  // state `key` (values `vals`): its flags and, with witnesses, its witness. Returns whether it is allowed.
  // `candidate`: a neighbour that is likely forbidden; a first run evaluates only the plain checks.
  bool recordExecution(const concrete::Dynamic& d, const std::vector<int64_t>& reads, const std::vector<int64_t>& vals,
                       const std::string& key, concrete::Evaluator& ev, bool candidate = false) {
    const events::Skeleton& sk = *concreteSk_;
    ev.reset();
    cat::BitAlgebra& alg = *concreteAlg_;
    concrete::bindDynamic(alg, sk, d);
    concrete::bindValueSets(alg, sk, ev, reads);
    if (candidate) {
      cat::RunOptions plain;
      plain.plainChecksOnly = true;
      auto pr = concrete_.run(alg, plain, &concreteCache_);
      if (std::none_of(pr.outcomes.begin(), pr.outcomes.end(), [](const auto& o) { return cat::isAllowed(o); }))
        return false;
    }
    cat::RunOptions ro;
    ro.collectShows = opts_.witnesses;
    auto cr = concrete_.run(alg, ro, &concreteCache_);
    const cat::Outcome<cat::BitAlgebra>* allowed = nullptr;
    for (const auto& o : cr.outcomes)
      if (cat::isAllowed(o)) allowed = &o;
    if (!allowed) return false;
    for (events::ExprId g : sk.guards)
      if (ev.eval(g, reads) == 0)
        throw InternalBug{fmt::format("smt execution reaching state '{}' violates a path guard", key)};
    bool fresh = false;
    outcome::StateResult& st = concrete::stateEntry(states_, key, vals, spec_, fresh);
    bool undefinedByPath = false;
    for (const auto& [e, why] : sk.undefinedIf) undefinedByPath = undefinedByPath || ev.eval(e, reads) != 0;
    const size_t flagsBefore = st.flags.size();
    concrete::addExecutionFlags(st, *allowed, sk, undefinedByPath);
    if (opts_.witnesses && (!st.witness || st.flags.size() > flagsBefore))
      outcome::replaceWitness(st, concrete::makeWitness(sk, d, reads, ev, concrete::shownRelations(*allowed)));
    return true;
  }

  // Many final states (docs/performance.md "Many final states"): the executions next to an allowed one
  // that differ from it in the source of one read, on the same paths and with the same co and sc, are
  // checked with the concrete model, which is the reference semantics (the enum engine decides with it),
  // instead of a solver call each. Only candidates reaching a state not found yet are checked; each
  // allowed one is explored in turn. Candidates whose read values cannot be computed without guessing
  // (a dependency cycle), that violate a path guard or that let a blocked wait read a write that is not
  // co-last are left to the solver. Returns the states found, in order; the caller blocks them in the
  // solver, whose final unsat query still proves that no state is missing.
  std::vector<std::pair<std::vector<int64_t>, std::string>> exploreNeighbours(concrete::Evaluator& ev) {
    std::vector<std::pair<std::vector<int64_t>, std::string>> out;
    if (!lastExecution_) return out;
    const events::Skeleton& sk = *concreteSk_;
    const size_t n = sk.size();
    // Per write: the reads its value depends on (compact indices), once per skeleton.
    if (writeDeps_.size() != n) {
      writeDeps_.assign(n, {});
      for (size_t w = 0; w < n; ++w) {
        const events::Event& e = sk.event(w);
        if (e.type != events::EventType::Write || e.value < 0) continue;
        std::vector<events::ExprId> todo{e.value};
        std::set<events::ExprId> seen;
        while (!todo.empty()) {
          events::ExprId x = todo.back();
          todo.pop_back();
          if (!seen.insert(x).second) continue;
          const events::ExprNode& node = prog_.exprs.node(x);
          if (node.op == events::ExprOp::ReadVal) {
            int c = sk.indexOf(node.event);
            writeDeps_[w].push_back(c);  // -1: a read of no chosen path (never resolved)
          }
          for (events::ExprId a : node.args) todo.push_back(a);
        }
      }
    }
    std::vector<size_t> readIdx;
    for (size_t i = 0; i < n; ++i)
      if (sk.event(i).type == events::EventType::Read) readIdx.push_back(i);
    std::vector<Execution> work{*lastExecution_};
    lastExecution_.reset();
    std::vector<int> src(n, -1);
    std::vector<char> known(n, 0);
    while (!work.empty()) {
      Execution x = std::move(work.back());
      work.pop_back();
      for (size_t r : readIdx) {
        const auto& ws = sk.writesByLoc.at(static_cast<size_t>(sk.event(r).loc));
        int cur = -1;
        for (int w : ws)
          if (x.d.rf.test(static_cast<size_t>(w), r)) cur = w;
        for (int w : ws) {
          if (w == cur) continue;
          pollBudget("smt state enumeration (neighbours)");
          Execution y{x.d, x.reads};
          if (cur >= 0) y.d.rf.reset(static_cast<size_t>(cur), r);
          y.d.rf.set(static_cast<size_t>(w), r);
          // Read values from the sources, in dependency order.
          for (size_t k : readIdx) {
            known[k] = 0;
            src[k] = -1;
            for (int v : sk.writesByLoc.at(static_cast<size_t>(sk.event(k).loc)))
              if (y.d.rf.test(static_cast<size_t>(v), k)) src[k] = v;
          }
          ev.reset();
          bool progress = true, all = false;
          while (progress && !all) {
            progress = false;
            all = true;
            for (size_t k : readIdx) {
              if (known[k]) continue;
              if (src[k] < 0) {
                all = false;
                continue;
              }
              const size_t sw = static_cast<size_t>(src[k]);
              bool ready = true;
              for (int dep : writeDeps_[sw])
                if (dep < 0 || !known[static_cast<size_t>(dep)]) ready = false;
              if (!ready) {
                all = false;
                continue;
              }
              const events::Event& we = sk.event(sw);
              y.reads[static_cast<size_t>(sk.event(k).id)] = we.value >= 0 ? ev.eval(we.value, y.reads) : 0;
              known[k] = 1;
              progress = true;
              ev.reset();  // a read value changed: memoised values that use it are stale
            }
          }
          if (!all) continue;
          ev.reset();
          bool ok = true;
          for (events::ExprId g : sk.guards) ok = ok && ev.eval(g, y.reads) != 0;
          for (int rfin : sk.readsFinal) {
            int s0 = -1;
            for (int v : sk.writesByLoc.at(static_cast<size_t>(sk.event(static_cast<size_t>(rfin)).loc)))
              if (y.d.rf.test(static_cast<size_t>(v), static_cast<size_t>(rfin))) s0 = v;
            ok = ok && s0 >= 0 && y.d.co.row(static_cast<size_t>(s0)).none();
          }
          if (!ok) continue;
          std::vector<int64_t> vals = concrete::finalValues(
              spec_, sk, y.d.co,
              [&](int wi) {
                const events::Event& e = sk.event(static_cast<size_t>(wi));
                return e.value >= 0 ? ev.eval(e.value, y.reads) : int64_t{0};
              },
              [&](events::ExprId e) { return ev.eval(e, y.reads); });
          std::string key = spec_.key(vals);
          if (states_.count(key)) continue;
          // Each candidate is checked once (a hash collision only skips one: the solver still finds its state).
          const size_t h =
              y.d.rf.hash() ^ (y.d.co.hash() * 0x9e3779b97f4a7c15ULL) ^ (y.d.sc.hash() * 0xc2b2ae3d27d4eb4fULL);
          if (!triedNeighbours_.insert(h).second) continue;
          ++neighbourChecks_;
          StatTimer nt(stats_, "neighbour check");
          if (!recordExecution(y.d, y.reads, vals, key, ev, true)) continue;
          out.emplace_back(vals, key);
          if (states_.size() > opts_.maxStates)
            throw GiveUp{outcome::Status::Unknown, fmt::format("more than {} distinct final states", opts_.maxStates)};
          work.push_back(std::move(y));
        }
      }
    }
    return out;
  }

  // The kind of the values of location l.
  ValueKind locKind(int l) const {
    return layout_.narrow ? layout_.locKind.at(static_cast<size_t>(l)) : ValueKind::Plain;
  }

  static constexpr size_t kMaxPathChoices = size_t{1} << 20;
  // exploreNeighbours: the solver states found first, on a skeleton of more than kSmallSkeleton events.
  static constexpr size_t kExploreAfterStates = 4;
  static constexpr size_t kSmallSkeleton = 64;
  // The largest encoding checked in the workspace's shared solver (Held::solver). A solver with a scope pushed
  // searches more slowly: ring-K8-N17 1.1 s -> 1.6-1.8 s, cow-W3-R1 +15 % instructions. A new solver costs
  // about 4 million instructions (0.5 ms), which only the small encodings notice (docs/performance.md "A
  // solver per worker"); 530 of the suite's 595 tests have at most 300 terms.
  static constexpr size_t kSharedSolverTerms = 300;

  Workspace& ws_;
  z3::context& ctx_;
  const events::EventProgram& prog_;
  const outcome::StateSpec& spec_;
  const SmtOptions& opts_;
  cat::Interpreter<SymAlgebra> interp_;
  cat::Interpreter<cat::BitAlgebra> concrete_;
  ValueLayout layout_;                          // of the encoding (chooseLayout)
  std::vector<ValueKind> termKind_;             // per final-state term
  std::optional<events::Skeleton> concreteSk_;  // skeleton of the last state's paths (recordState)
  std::optional<cat::BitAlgebra> concreteAlg_;  // its static built-ins bound
  cat::RunCache<cat::BitAlgebra> concreteCache_;
  std::optional<Execution> lastExecution_;      // the execution recordState last checked
  std::vector<std::vector<int>> writeDeps_;     // exploreNeighbours: per write of concreteSk_, its reads
  uint64_t neighbourChecks_ = 0;                // candidates exploreNeighbours checked
  std::unordered_set<size_t> triedNeighbours_;  // hashes of the candidates exploreNeighbours checked
  bool useSc_ = false;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  uint64_t solverCalls_ = 0;
  Stats stats_;
  std::vector<z3::expr> pending_;  // added to the solver by its next check (assertIn)
  std::vector<size_t> partEnds_;   // positions in pending_ where a part of the encoding ends (endOfPart)
  std::map<std::string, outcome::StateResult> states_;
  std::set<std::string> core_;

 public:
  // The encoding and the solver that took it in: a member rather than locals of solve(), so that giving up
  // (a spent budget) does not free them while unwinding, and the caller may free them after reporting
  // (SmtOptions::releaseLater): Z3 takes about half a second to free an encoding of 800,000 terms.
  struct Held {
    explicit Held(Workspace& w) : ws(w), terms(w.ctx()) {}
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    ~Held() {
      if (!scoped) return;
      try {
        owned->pop();  // the test's scope: the encoding leaves the workspace's solver
      } catch (const z3::exception&) {
        ws.dropSolver();  // its scopes are not known: the next test gets a new one
      }
    }
    // The solver, taken at the first check, once the encoding is built: the workspace's, in a scope of this
    // test's own, for an encoding of at most kSharedSolverTerms terms; else a new one.
    z3::solver& solver() {
      if (!owned) owned = ws.takeSolver(terms.numTerms() <= kSharedSolverTerms, scoped);
      return *owned;
    }
    Workspace& ws;
    TermTable terms;
    std::shared_ptr<z3::solver> owned;
    bool scoped = false;      // owned is the workspace's solver, with a scope pushed for this test
    size_t termsTakenIn = 0;  // terms the solver was given (checkSolverMemory)
  };
  std::unique_ptr<Held> takeHeld() { return std::move(held_); }

 private:
  std::unique_ptr<Held> held_;
};

}  // namespace

void limitSolverMemory(uint64_t bytes) { solverMemoryLimit = bytes; }

void setRandomSeed(unsigned seed) { z3::set_param("smt.random_seed", static_cast<int>(seed)); }

std::shared_ptr<z3::solver> Workspace::takeSolver(bool small, bool& scoped) {
  scoped = small && (!solver_ || solver_.use_count() == 1);
  if (!scoped) return std::make_shared<z3::solver>(ctx_, z3::solver::simple());
  if (solver_) {
    z3::params p(ctx_);
    p.set("timeout", std::numeric_limits<unsigned>::max());  // an earlier test's deadline (setDeadline)
    solver_->set(p);
  } else {
    solver_ = std::make_shared<z3::solver>(ctx_, z3::solver::simple());
  }
  solver_->push();
  return solver_;
}

outcome::EngineResult runSmt(Workspace& ws, const events::EventProgram& program, const cat::Model& model,
                             const outcome::StateSpec& spec, const SmtOptions& options) {
  z3::context& ctx = ws.ctx();
  // Relevancy filtering does not pay off on these encodings (measured: about 25% faster without).
  static std::once_flag once;
  std::call_once(once, [] { z3::set_param("smt.relevancy", 0); });
  // Z3 checks its timeout only inside solver calls; simplifying a large term on assertion can run far
  // past it. A watchdog interrupts the context at the deadline. Z3's memory is outside the test's budget
  // (support/Budget.hpp counts this program's allocations): the run is registered with MemoryWatch while
  // a limit is set. An interrupt leaves the context cancelled until its next solver check, so after one a
  // trivial check clears it before the caller reuses the context.
  std::atomic<int> stopped{kNotStopped};
  std::atomic<uint64_t> overAt{0};  // Z3's memory when the watch found it over the limit
  const uint64_t memLimit = solverMemoryLimit.load();
  MemoryWatch::Run run{&ctx, currentBudget(), &stopped, &overAt};
  std::optional<MemoryWatch::Registration> watched;
  if (memLimit > 0) watched.emplace(run);
  std::optional<std::jthread> watchdog;
  if (options.timeoutMs > 0)
    watchdog.emplace([&ctx, &stopped, ms = options.timeoutMs](std::stop_token stop) {
      std::mutex mu;
      std::condition_variable_any cv;
      std::unique_lock lock(mu);
      if (!cv.wait_for(lock, stop, std::chrono::milliseconds(ms), [] { return false; }) && !stop.stop_requested()) {
        int expected = kNotStopped;
        if (stopped.compare_exchange_strong(expected, kDeadline)) ctx.interrupt();
      }
    });
  std::unique_ptr<SmtRunner::Held> held;
  auto attempt = [&]() -> outcome::EngineResult {
    outcome::EngineResult r;
    try {
      SmtRunner runner(ws, program, model, spec, options);
      r = runner.run();
      held = runner.takeHeld();
      return r;
    } catch (const DiagnosticError& e) {
      r.status = outcome::Status::Error;
      r.message = e.what();
    } catch (const z3::exception& e) {
      r.status = outcome::Status::Error;
      r.message = std::string("z3: ") + e.msg();
    } catch (const std::out_of_range& e) {
      r.status = outcome::Status::Error;
      r.message = std::string("internal error: ") + e.what();
    }
    return r;
  };
  outcome::EngineResult r = attempt();
  watchdog.reset();  // stops and joins: no interrupt after this point
  watched.reset();   // likewise for the memory watch
  if (stopped != kNotStopped) {
    z3::solver clear(ctx);
    (void)clear.check();
    // A limit was reached, and whatever Z3 answered after the interrupt is suspect.
    const bool memory = stopped == kMemory;
    if (!(memory && r.status == outcome::Status::MemoryLimit)) {  // else the engine's own message says it
      r = outcome::EngineResult{};
      r.status = memory ? outcome::Status::MemoryLimit : outcome::Status::Timeout;
      r.message = memory ? solverMemoryMessage(overAt, memLimit)
                         : fmt::format(
                               "solver timeout: the {} ms left of the test's time budget are spent (Z3 "
                               "interrupted)",
                               options.timeoutMs);
    }
  }
  // Only a solver whose last test ended normally is kept for the next one: after an interrupt, a limit or an
  // error its state is not known.
  if (r.status != outcome::Status::Ok) ws.dropSolver();
  if (options.releaseLater) *options.releaseLater = std::move(held);
  return r;
}

}  // namespace ptxmm::smt
