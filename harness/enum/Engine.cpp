// The explicit engine: rf × co × sc enumeration per skeleton, concrete model evaluation.
#include "enum/Engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "cat/BitAlgebra.hpp"
#include "cat/Interpreter.hpp"
#include "cat/IntervalAlgebra.hpp"
#include "cat/MonotoneAlgebra.hpp"
#include "concrete/Concrete.hpp"
#include "events/Builtins.hpp"
#include "events/Skeleton.hpp"
#include "support/Budget.hpp"
#include "support/Parallel.hpp"

namespace ptxmm::enumeration {

namespace {

using Clock = std::chrono::steady_clock;

// Thrown internally to stop the enumeration (timeout, candidate limit, cancel).
struct Stop {
  outcome::Status status;  // Timeout or Unknown
  std::string why;
};

using States = std::map<std::string, outcome::StateResult>;

// The rank each model check is evaluated at (cat::RunOptions::checkRank): most failures first, ties in the
// model's order.
std::vector<uint32_t> rankByFails(const std::vector<uint64_t>& fails) {
  std::vector<uint32_t> byFails(fails.size()), rank(fails.size());
  std::iota(byFails.begin(), byFails.end(), 0);
  std::stable_sort(byFails.begin(), byFails.end(), [&](uint32_t a, uint32_t b) { return fails[a] > fails[b]; });
  for (size_t k = 0; k < byFails.size(); ++k) rank[byFails[k]] = static_cast<uint32_t>(k);
  return rank;
}

// What one path choice added to what it started from (merged in path-choice order: runPathChoices).
struct Found {
  States states;  // the states it reached (an inherited one with its flags and witness, executions its own)
  std::unordered_set<uint64_t> openCores;
  bool byState = true;
  std::vector<uint64_t> checkFails;  // the failures it added, per check
  uint64_t openRuns = 0;
};

// What every path choice of a batch starts from (runPathChoices): what the batches before it found, merged
// (mergeFound: their states, the cores found open, whether the ByState order is still tried, the model
// checks' failure counts), and the checks' rank from those counts. Each path choice of the batch starts from
// the same, so that its result, its witnesses included, depends neither on the thread that runs it nor on
// what that thread ran before.
struct Inherited : Found {
  std::vector<uint32_t> checkRank;
};

class Enumerator {
 public:
  Enumerator(const events::EventProgram& prog, const cat::Model& model, const outcome::StateSpec& spec,
             const EnumOptions& opts, Clock::time_point t0 = Clock::now(), const std::atomic<bool>* stopAll = nullptr)
      : prog_(prog),
        spec_(spec),
        opts_(opts),
        interp_(model, concrete::engineInterpreterOptions()),
        pinterp_(model, concrete::engineInterpreterOptions()),
        iinterp_(model, concrete::engineInterpreterOptions()),
        ev_(prog.exprs),
        fev_(prog.exprs),
        t0_(t0),
        stopAll_(stopAll),
        byState_(!opts.countExecutions) {
    const auto& names = interp_.builtinNames();
    useSc_ = std::find(names.begin(), names.end(), events::builtinName(events::Builtin::sc)) != names.end();
    // Interesting values for guessing thin-air cycles: every constant of the program.
    std::set<int64_t> cs{0};
    for (size_t i = 0; i < prog.exprs.size(); ++i)
      if (prog.exprs.node(static_cast<events::ExprId>(i)).op == events::ExprOp::Const)
        cs.insert(prog.exprs.node(static_cast<events::ExprId>(i)).value);
    guessDomain_.assign(cs.begin(), cs.end());
    if (guessDomain_.size() > 32) guessDomain_.resize(32);
  }

  // One path choice (runPathChoices), from what `from` holds; what it found.
  Found runChoiceFrom(const std::vector<int>& choice, const Inherited& from) {
    base_ = &from;
    states_.clear();
    openCores_.clear();
    statesFound_ = 0;
    byState_ = from.byState;
    checkFails_ = from.checkFails;
    checkRank_ = from.checkRank;
    openRuns_ = from.openRuns;
    runChoice(choice);
    base_ = nullptr;
    Found f;
    f.states = std::move(states_);
    states_.clear();
    f.openCores = std::move(openCores_);
    openCores_.clear();
    f.byState = byState_;
    f.checkFails = checkFails_;
    for (size_t c = 0; c < f.checkFails.size() && c < from.checkFails.size(); ++c)
      f.checkFails[c] -= from.checkFails[c];
    f.openRuns = openRuns_ - from.openRuns;
    return f;
  }

  [[nodiscard]] uint64_t candidates() const { return candidates_; }

  // PTXMM_ENUM_STATS: the counts of the search (docs/performance.md).
  void printStats(size_t states, std::string_view who) const {
    if (std::getenv("PTXMM_ENUM_STATS") == nullptr) return;
    fmt::print(
        stderr,
        "enum stats{}: {} path choices, {} search nodes (largest path choice: {} events, {} nodes), {} searches "
        "abandoned for the other order, {} core checks, {} candidates, {} states, {} partial candidates "
        "of a recorded state left out ({} flag bounds computed at a node), {} path choices refuted by one or two "
        "locations' decisions (in {} search nodes), {} model runs explaining a failure, {} backjumps, {} model runs "
        "replayed, {} failures recognised without the model, {} cores taken as open from an earlier path choice, "
        "{} nodes reached by a decision with one alternative not checked, {} orders of interchangeable arrivals "
        "skipped ({} checks of swapped failures and bounds), {} flag bounds known from an earlier node\n",
        who, skeletons_, nodes_, maxSkeletonEvents_, maxSkeletonNodes_, abandoned_, coreEvals_, candidates_, states,
        leftOut_, flagBounds_, projRefuted_, projNodes_, explainEvals_, jumps_, replayed_, noGoodHits_, coresShared_,
        forcedSkipped_, swapSkips_, swapChecks_, boundsReused_);
  }

 private:
  // One path choice: its skeleton searched (runSkeleton).
  void runChoice(const std::vector<int>& choice) {
    const uint64_t n0 = nodes_;
    const auto tc0 = Clock::now();
    const uint64_t c0 = candidates_, a0 = abandoned_, l0 = leftOut_;
    runSkeleton(events::buildSkeleton(prog_, choice));
    ++skeletons_;
    if (statsPerChoice_) {  // PTXMM_ENUM_STATS=2: one line per path choice
      std::string d;
      for (size_t t = 0; t < choice.size(); ++t) {
        const events::Path& p = prog_.paths[t][static_cast<size_t>(choice[t])];
        d += fmt::format(" P{}:{}{}", t, choice[t],
                         p.end == events::PathEnd::Normal    ? ""
                         : p.end == events::PathEnd::Blocked ? "(blocked)"
                                                             : "(cut)");
      }
      fmt::print(stderr,
                 "enum path choice{}: {} events, {} search nodes, {} candidates, {} searches abandoned, {} left "
                 "out, {:.3f} s\n",
                 d, n_, nodes_ - n0, candidates_ - c0, abandoned_ - a0, leftOut_ - l0,
                 std::chrono::duration<double>(Clock::now() - tc0).count());
    }
    if (nodes_ - n0 > maxSkeletonNodes_) {
      maxSkeletonNodes_ = nodes_ - n0;
      maxSkeletonEvents_ = n_;
    }
  }

  void tick() {
    ++candidates_;
    budget();
  }

  // Stops the search when the budget is spent (checked every 256 candidates or search nodes).
  void budget() {
    pollBudget("enum engine");
    if (((candidates_ + nodes_) & 255) != 0) return;
    if (opts_.cancel && opts_.cancel->load()) throw Stop{outcome::Status::Unknown, "cancelled"};
    if (stopAll_ && stopAll_->load()) throw Stop{outcome::Status::Unknown, "another thread of the engine stopped"};
    if (opts_.maxCandidates && candidates_ > opts_.maxCandidates)
      throw Stop{outcome::Status::Unknown, fmt::format("more than {} candidate executions", opts_.maxCandidates)};
    if (opts_.maxNodes && nodes_ > opts_.maxNodes)
      throw Stop{outcome::Status::Unknown, fmt::format("more than {} search nodes", opts_.maxNodes)};
    if (opts_.timeoutSeconds > 0 && std::chrono::duration<double>(Clock::now() - t0_).count() > opts_.timeoutSeconds)
      throw Stop{outcome::Status::Timeout, fmt::format("timeout after {:.0f} ms ({} candidates examined)",
                                                       opts_.timeoutSeconds * 1000, candidates_)};
  }

  void runSkeleton(const events::Skeleton& sk) {
    sk_ = &sk;
    n_ = sk.size();
    alg_.emplace(n_);
    ialg_.reset();  // bound on first use (possibleFlags)
    bounds_.clear();
    cache_.clear();
    concrete::bindStatic(*alg_, sk);
    valueSets_ = concrete::hasValueSets(sk);
    // Bound once if no event may be in a value-dependent set; else per candidate (evaluateCandidate).
    if (!valueSets_) concrete::bindEmptyValueSets(*alg_, sk);
    // Reads and their possible sources.
    reads_.clear();
    sources_.clear();
    for (size_t i = 0; i < n_; ++i) {
      const events::Event& e = sk.event(i);
      if (e.type != events::EventType::Read) continue;
      reads_.push_back(static_cast<int>(i));
      sources_.push_back(sk.writesByLoc.at(static_cast<size_t>(e.loc)));
      if (sources_.back().empty())
        throw DiagnosticError(e.src, fmt::format("read e{} has no write to read from", e.id));
    }
    // Value dependencies of every write.
    readIndex_.assign(n_, -1);
    for (size_t k = 0; k < reads_.size(); ++k) readIndex_[static_cast<size_t>(reads_[k])] = static_cast<int>(k);
    // The reads each value-dependent set member's condition depends on (-1: a read of no event here).
    dynReads_.clear();
    for (const auto& [name, members] : sk.dynamicSets) {
      dynReads_.emplace_back();
      for (const auto& [i, cond] : members) {
        std::vector<events::EventId> deps;
        prog_.exprs.collectReads(cond, deps);
        std::vector<int> ks;
        for (events::EventId d : deps) {
          const int di = sk.indexOf(d);
          ks.push_back(di < 0 ? -1 : readIndex_[static_cast<size_t>(di)]);
        }
        dynReads_.back().push_back(std::move(ks));
      }
    }
    writeDeps_.assign(n_, {});
    for (size_t i = 0; i < n_; ++i) {
      const events::Event& e = sk.event(i);
      if (e.type != events::EventType::Write || e.value < 0) continue;
      std::vector<events::EventId> deps;
      prog_.exprs.collectReads(e.value, deps);
      for (events::EventId d : deps) {
        int di = sk.indexOf(d);
        if (di < 0) throw DiagnosticError(e.src, fmt::format("write e{} depends on inactive read e{}", e.id, d));
        writeDeps_[i].push_back(readIndex_[static_cast<size_t>(di)]);
      }
    }
    // The events sc orders (its total orders are generated one at a time at each leaf; co orders are
    // built write by write during the search).
    scItems_.clear();
    if (useSc_ && sk.sets.count(events::nameOf(events::Builtin::F_SC)))
      sk.set(events::nameOf(events::Builtin::F_SC)).forEach([&](size_t i) { scItems_.push_back(static_cast<int>(i)); });
    // The reads each guard depends on (a guard is tested as soon as they are all resolved).
    guardReads_.clear();
    for (events::ExprId g : sk.guards) {
      std::vector<events::EventId> deps;
      prog_.exprs.collectReads(g, deps);
      std::vector<int> ks;
      for (events::EventId d : deps) ks.push_back(readIndex_[static_cast<size_t>(sk.indexOf(d))]);
      guardReads_.push_back(std::move(ks));
    }
    // What the final state is made of: the reads its registers' values use and the locations it names.
    stateRead_.assign(reads_.size(), 0);
    stateLocs_.clear();
    bool stateOfReads = true;  // every register of the state is computed from reads of this path choice
    for (const auto& t : spec_.terms) {
      if (!t.isReg()) {
        stateLocs_.push_back(static_cast<size_t>(t.loc));
        continue;
      }
      const auto& regs = sk.finalRegs.at(static_cast<size_t>(t.term.thread));
      auto it = regs.find(t.term.reg);
      if (it == regs.end()) continue;  // its initial value
      std::vector<events::EventId> deps;
      prog_.exprs.collectReads(it->second, deps);
      for (events::EventId d : deps) {
        const int di = sk.indexOf(d);
        if (di < 0 || readIndex_[static_cast<size_t>(di)] < 0)
          stateOfReads = false;
        else
          stateRead_[static_cast<size_t>(readIndex_[static_cast<size_t>(di)])] = 1;
      }
    }
    readGuards_.assign(reads_.size(), {});
    for (size_t g = 0; g < guardReads_.size(); ++g)
      for (int k : guardReads_[g])
        if (k >= 0 && (readGuards_[static_cast<size_t>(k)].empty() || readGuards_[static_cast<size_t>(k)].back() != g))
          readGuards_[static_cast<size_t>(k)].push_back(g);
    // The decisions (docs/design.md "The enum engine's search"): each location's co order is built as a
    // prefix, one write appended at a time (with the source of its read for an RMW whose read and write
    // access one location), and every other read gets its source.
    rmwRead_.assign(n_, -1);
    rmwPaired_.assign(reads_.size(), 0);
    blocked_.assign(reads_.size(), 0);
    for (int r : sk.readsFinal)
      if (r >= 0 && readIndex_[static_cast<size_t>(r)] >= 0)
        blocked_[static_cast<size_t>(readIndex_[static_cast<size_t>(r)])] = 1;
    const BitMatrix& rmw = sk.relation(events::nameOf(events::Builtin::rmw));
    for (size_t k = 0; k < reads_.size(); ++k) {
      const auto r = static_cast<size_t>(reads_[k]);
      const BitSet ws = rmw.row(r);
      if (ws.count() != 1) continue;
      size_t w = 0;
      ws.forEach([&](size_t x) { w = x; });
      if (sk.event(w).loc != sk.event(r).loc || rmw.column(w).count() != 1) continue;
      rmwRead_[w] = static_cast<int>(k);
      rmwPaired_[k] = 1;
    }
    if (prune_) {
      palg_.emplace(n_);
      pcache_.clear();
      for (const auto& [name, bits] : sk.sets) palg_->setSet(name, bits, cat::Direction::Static);
      for (const auto& [name, bits] : sk.relations) palg_->setRel(name, bits, cat::Direction::Static);
      // Not known before the execution is complete: they may gain and lose members.
      palg_->setSet(events::nameOf(events::Builtin::FW), BitSet(n_), cat::Direction::Unknown);
      for (const auto& [name, members] : sk.dynamicSets) palg_->setSet(name, BitSet(n_), cat::Direction::Unknown);
    }
    readVals_.assign(prog_.events.size(), 0);
    initCo_ = BitMatrix(n_);
    for (const auto& ws : sk.writesByLoc)  // an init write precedes every other write of its location
      if (!ws.empty() && sk.event(static_cast<size_t>(ws[0])).isInit)
        for (size_t j = 1; j < ws.size(); ++j) initCo_.set(static_cast<size_t>(ws[0]), static_cast<size_t>(ws[j]));
    cores_.clear();
    coBase_ = initCo_;
    nLocs_ = sk.writesByLoc.size();
    allLocs_ = BitSet::full(nLocs_);
    lastWhy_.assign(nLocs_, BitSet());
    noGoods_.clear();
    noGoodsByEvent_.assign(n_, {});
    noGoodPairs_ = 0;
    pairHits_.assign(nLocs_ * nLocs_, 0);
    for (auto& log : replay_) log.clear();
    decisionLocs_.clear();
    resetSearch();
    leaveOut_ = !opts_.countExecutions && stateOfReads;
    requiredKnown_ = false;
    // Three decision orders (orderSteps); none is best on every test. The search starts with one and a
    // node budget; while it has evaluated no complete candidate (so that nothing was recorded yet), a
    // search that spends its budget without reaching a deeper decision is abandoned for the next order,
    // with the budget doubled after each round of the three. Once a candidate was evaluated the search
    // runs to its end. While states rather than executions are sought, a fourth order, ByState, comes
    // first until it is abandoned once in this test.
    uint64_t limit = std::max<uint64_t>(1, opts_.orderNodeBudget);
    const bool stateFirst =
        leaveOut_ && byState_ && std::find(stateRead_.begin(), stateRead_.end(), 1) != stateRead_.end() && pathFlags();
    if (stateFirst && byState_) {
      // Reads decided before co (ByState) are checked against the co pairs every allowed execution has:
      // two writes of a location one order of which fails a check for good by itself (the core of
      // placing the one before the other) are in the other order. ByLocation and ByNeighbour learn
      // this as they append.
      for (const auto& ws : sk.writesByLoc)
        for (int a : ws)
          for (int b : ws) {
            const auto wa = static_cast<size_t>(a), wb = static_cast<size_t>(b);
            if (a != b && !sk.event(wa).isInit && !sk.event(wb).isInit &&
                coreDead(coreKey(1, wb, wa, 0), {}, {{wb, wa}}))
              coBase_.set(wa, wb);
          }
      co_ = coBase_;
    }
    findSwaps();
    // refutedAlone is tried each time an order stalls in a path choice in which a thread blocks.
    const bool refuting = prune_ && sk.blocked && opts_.refuteByLocations;
    projTried_.clear();
    projSpent_ = 0;
    for (int attempt = 0;;) {
      const Order ord = stateFirst && byState_ ? Order::ByState
                        : attempt % 3 == 0     ? Order::ByNeighbour
                        : attempt % 3 == 1     ? Order::ByLocation
                                               : Order::ByDepth;
      orderSteps(ord);
      byStateTry_ = ord == Order::ByState;
      // A path choice with a blocked thread is mostly refuted, often by one or two locations alone
      // (refutedAlone): its first try gets a small budget, so that those are searched early.
      startTry(refuting && attempt == 0 ? std::min(limit, opts_.blockedFirstBudget) : limit);
      attemptOrder_ = ord;
      attemptModelRuns_ = 0;
      attemptCandidates_ = candidates_ + leftOut_;
      if (recordedState(nodeKnown_)) {  // every execution of the path choice (docs/design.md)
        ++leftOut_;
        return;
      }
      try {
        (void)descend(0);
        return;
      } catch (const Abandon&) {
        ++abandoned_;
        if (refuting && ord != Order::ByState && refutedAlone()) return;
        if (ord == Order::ByState) {
          byState_ = false;  // for the rest of the test
        } else {
          if (attempt % 3 == 2) limit *= 2;
          ++attempt;
        }
      }
    }
  }

  // Whether the decisions of one location, or of two, alone (their co orders and their reads' sources)
  // already fail in every way they can be taken, which refutes the path choice: every execution takes
  // them one way, and what fails for good on a partial execution fails on all its completions. Each time a
  // decision order of a path choice with a blocked thread stalls (the first one after
  // EnumOptions::blockedFirstBudget nodes), the groups not searched yet in this path choice are searched
  // so, each with a node budget (all of them, over the path choice, within kProjectionTotal): each location
  // that decides something (a blocked wait's, or one whose reads a path guard depends on) alone, then the
  // pairs of locations that explained the most failed nodes of the stalled searches together; then the
  // next order. The searches so far pick the pairs, so a pair missed after a short first try is still
  // found after a later one. A thread of a pipeline that blocks at a wait while the others run to the end
  // is often refuted by one barrier's chain (a wait that could only read a stale phase, which coherence
  // forbids) or two (a causality cycle through a full and an empty barrier), which the orders reach only
  // after other locations' choices (docs/design.md "The enum engine's search").
  bool refutedAlone() {
    const events::Skeleton& sk = *sk_;
    std::vector<char> sync(nLocs_, 0);
    auto mark = [&](int k) {
      if (k >= 0) sync[static_cast<size_t>(sk.event(static_cast<size_t>(reads_[static_cast<size_t>(k)])).loc)] = 1;
    };
    for (const auto& ks : guardReads_) std::for_each(ks.begin(), ks.end(), mark);
    for (int r : sk.readsFinal)
      if (r >= 0) mark(readIndex_[static_cast<size_t>(r)]);
    std::vector<size_t> locs;
    for (size_t loc = 0; loc < nLocs_; ++loc)
      if (sync[loc]) locs.push_back(loc);
    std::vector<BitSet> groups;  // each location, then each pair
    auto tried = [&](size_t a, size_t b) {
      return std::find(projTried_.begin(), projTried_.end(), std::make_pair(a, b)) != projTried_.end();
    };
    for (size_t a : locs)
      if (!tried(a, a)) groups.push_back(BitSet(nLocs_)), groups.back().set(a), projTried_.emplace_back(a, a);
    // Pairs: those that failed nodes of the stalled search together most often, the most first.
    std::vector<std::pair<uint64_t, size_t>> pairs;
    for (size_t x = 0; x < pairHits_.size(); ++x)
      if (pairHits_[x] > 0 && !tried(x / nLocs_, x % nLocs_)) pairs.emplace_back(pairHits_[x], x);
    std::sort(pairs.begin(), pairs.end(), std::greater<>());
    if (pairs.size() > kProjectionPairs) pairs.resize(kProjectionPairs);
    for (const auto& [hits, x] : pairs) {
      projTried_.emplace_back(x / nLocs_, x % nLocs_);
      groups.push_back(BitSet(nLocs_));
      groups.back().set(x / nLocs_);
      groups.back().set(x % nLocs_);
    }
    const std::vector<Step> all = steps_;
    bool refuted = false;
    projecting_ = true;
    // The groups' nodes together are bounded too (a test with many deciding locations).
    for (size_t g = 0; g < groups.size() && !refuted && projSpent_ < kProjectionTotal; ++g) {
      steps_.clear();
      for (const Step& st : all)
        if (st.kind != Step::Sc && groups[g].test(st.loc)) steps_.push_back(st);
      steps_.push_back({Step::Sc, 0, 0});
      startTry(kProjectionBudget);
      try {
        (void)descend(0);
        refuted = true;
      } catch (const ProjectionOpen&) {
      } catch (const Abandon&) {
      }
      projSpent_ += attemptNodes_;
      projNodes_ += attemptNodes_;
    }
    projecting_ = false;
    steps_ = all;
    if (refuted) ++projRefuted_;
    return refuted;
  }

  // Counts the pairs of locations among the reasons `why` of a failed node (refutedAlone's pairs), where
  // they are few.
  void notePairs(const BitSet& why) {
    if (projecting_) return;
    std::vector<size_t> ls;
    why.forEach([&](size_t l) { ls.push_back(l); });
    if (ls.size() < 2 || ls.size() > 3) return;
    for (size_t a = 0; a < ls.size(); ++a)
      for (size_t b = a + 1; b < ls.size(); ++b) ++pairHits_[ls[a] * nLocs_ + ls[b]];
  }

  // The root of a try of steps_ with the node budget `limit` (viable): nothing decided, the values known
  // there resolved.
  void startTry(uint64_t limit) {
    resetSearch();
    tracking_ = 0;
    active_.clear();
    attemptNodes_ = 0;
    attemptDepth_ = 0;
    attemptDepthAt_ = 0;
    attemptLimit_ = limit;
    stepDone_.assign(steps_.size(), 0);
    forced_.assign(steps_.size(), 0);
    nodeKnown_.assign(reads_.size(), 0);
    ev_.reset();
    propagate(nodeKnown_);
  }

  // The root of the search: nothing decided but the init writes' place in co.
  void resetSearch() {
    order_.assign(sk_->writesByLoc.size(), {});
    clearDecisions(coBase_);
    decisionLocs_.clear();  // an abandoned search leaves its path
  }

  // No rf pair, no write placed in co but the init writes, and the co pairs `co`.
  void clearDecisions(const BitMatrix& co) {
    placed_.assign(n_, 0);
    for (const auto& ws : sk_->writesByLoc)
      if (!ws.empty() && sk_->event(static_cast<size_t>(ws[0])).isInit) placed_[static_cast<size_t>(ws[0])] = 1;
    src_.assign(reads_.size(), -1);
    rf_ = BitMatrix(n_);
    co_ = co;
  }

  // Thrown by viable() when the current decision order spent its node budget without going deeper, before
  // any candidate.
  struct Abandon {};
  struct ProjectionOpen {};  // refutedAlone's locations' decisions alone leave the partial execution open
  enum class Order {
    ByState,      // the reads the final state is made of first, then as ByLocation
    ByLocation,   // location by location (blocked waits' first, most RMW reads, most reads): appends, then reads
    ByNeighbour,  // the same, each location next to those before it in program order
    ByDepth,      // every decision by the depth of its event, locations whose reads decide values first
  };              // ByDepth stays last: replay_ has one log per order

  // The steps_ of one decision order. ByLocation settles one location before the next, which keeps the
  // choices of unrelated locations (the stages of a pipeline) from multiplying; ByNeighbour does too, but
  // takes next the location closest in program order to those settled (one stage's barriers and buffer
  // together, not every stage's full barrier first, whose chains wait on the empty barriers); ByDepth interleaves the
  // locations: first those some read of which decides something by its value (a path guard, a blocked
  // wait, a written value) or is an RMW's (the synchronisation), then the others, each decision in the
  // order of how late its event can happen (the longest chain of program order, issue, async order, RMW
  // and async-completion edges before it), so that the choices of early accesses, which decide the values
  // later ones see, are taken first (one mbarrier's RMW chain is then constrained by the waits on another
  // as it grows). ByState, used while states rather than executions are sought, decides first the reads
  // whose values make the final state (then ByLocation): a subtree whose state is already recorded is
  // then left out near its root (recordedState), instead of at its leaves.
  void orderSteps(Order ord) {
    const events::Skeleton& sk = *sk_;
    BitMatrix later(n_);
    for (events::Builtin b : {events::Builtin::po, events::Builtin::issue, events::Builtin::aso, events::Builtin::rmw,
                              events::Builtin::async_complete})
      if (auto it = sk.relations.find(events::nameOf(b)); it != sk.relations.end()) later |= it->second;
    std::vector<size_t> depth(n_, 0);
    for (bool changed = true; changed;) {  // longest path (bounded by n_ should the edges form a cycle)
      changed = false;
      later.forEach([&](size_t a, size_t b) {
        if (depth[b] < depth[a] + 1 && depth[a] < n_) {
          depth[b] = depth[a] + 1;
          changed = true;
        }
      });
    }
    std::vector<size_t> rank(sk.writesByLoc.size(), 0);  // per location: its group (ByDepth) or place (ByLocation)
    if (ord == Order::ByDepth) {
      for (size_t loc = 0; loc < rank.size(); ++loc) rank[loc] = 1;
      auto early = [&](int k) {
        if (k >= 0) rank[static_cast<size_t>(sk.event(static_cast<size_t>(reads_[static_cast<size_t>(k)])).loc)] = 0;
      };
      for (const auto& ks : guardReads_) std::for_each(ks.begin(), ks.end(), early);
      for (const auto& ks : writeDeps_) std::for_each(ks.begin(), ks.end(), early);
      for (int r : sk.readsFinal)
        if (r >= 0) early(readIndex_[static_cast<size_t>(r)]);
      for (size_t k = 0; k < reads_.size(); ++k)
        if (rmwPaired_[k]) early(static_cast<int>(k));
    } else {
      // The locations of blocked waits first (a path that blocks at a wait needs its location's co-last
      // write to leave the wait unsatisfied, which refutes most such path choices), then most RMW reads,
      // then most reads.
      std::vector<char> blockedLoc(rank.size(), 0);
      for (int r : sk.readsFinal)
        if (r >= 0) blockedLoc[static_cast<size_t>(sk.event(static_cast<size_t>(r)).loc)] = 1;
      const BitSet rmwReads = sk.relation(events::nameOf(events::Builtin::rmw)).domain();
      std::vector<std::tuple<char, size_t, size_t, size_t>> locs;  // (not blocked, -RMW reads, -reads, location)
      for (size_t loc = 0; loc < rank.size(); ++loc) {
        size_t rmws = 0;
        for (int r : sk.readsByLoc[loc]) rmws += rmwReads.test(static_cast<size_t>(r)) ? 1 : 0;
        locs.emplace_back(!blockedLoc[loc], SIZE_MAX - rmws, SIZE_MAX - sk.readsByLoc[loc].size(), loc);
      }
      std::sort(locs.begin(), locs.end());
      for (size_t i = 0; i < locs.size(); ++i) rank[std::get<3>(locs[i])] = i;
    }
    if (ord == Order::ByNeighbour) {
      // The first location of ByLocation, then location after location, each the one closest in program
      // order to those already ordered: `near[a][b]` counts the accesses to b whose nearest earlier access
      // (by the depth of the chains above) is to a, or the reverse. A pipeline's full barrier, buffer and
      // empty barrier of one stage are then taken together, so that the waits on each constrain the
      // others' chains as they grow, instead of every stage's full barrier first.
      std::vector<std::vector<size_t>> near(rank.size(), std::vector<size_t>(rank.size(), 0));
      for (size_t b = 0; b < n_; ++b) {
        const events::Event& eb = sk.event(b);
        if (eb.loc < 0 || eb.isInit) continue;
        size_t best = 0;
        std::vector<size_t> preds;
        for (size_t a = 0; a < n_; ++a) {
          const events::Event& ea = sk.event(a);
          if (!later.test(a, b) || ea.loc < 0 || ea.loc == eb.loc) continue;
          if (depth[a] > best) preds.clear();
          if (depth[a] >= best) {
            best = depth[a];
            preds.push_back(a);
          }
        }
        for (size_t a : preds) {
          ++near[static_cast<size_t>(sk.event(a).loc)][static_cast<size_t>(eb.loc)];
          ++near[static_cast<size_t>(eb.loc)][static_cast<size_t>(sk.event(a).loc)];
        }
      }
      std::vector<size_t> byLoc(rank.size());  // locations in ByLocation's order
      for (size_t loc = 0; loc < rank.size(); ++loc) byLoc[rank[loc]] = loc;
      std::vector<char> taken(rank.size(), 0);
      std::vector<size_t> weight(rank.size(), 0);
      for (size_t i = 0; i < rank.size(); ++i) {
        size_t pick = SIZE_MAX;
        for (size_t loc : byLoc)  // the heaviest, the first in ByLocation's order among equals
          if (!taken[loc] && (pick == SIZE_MAX || weight[loc] > weight[pick])) pick = loc;
        taken[pick] = 1;
        rank[pick] = i;
        for (size_t loc = 0; loc < rank.size(); ++loc) weight[loc] += near[pick][loc];
      }
    }
    // ByState: the reads the state is made of and, transitively, those the values of their possible
    // sources are computed from (a TMA copy's data from its tensor-map read).
    std::vector<char> stateDeps = stateRead_;
    for (bool grew = ord == Order::ByState; grew;) {
      grew = false;
      for (size_t k = 0; k < reads_.size(); ++k)
        if (stateDeps[k])
          for (int w : sources_[k])
            for (int d : writeDeps_[static_cast<size_t>(w)])
              if (d >= 0 && !stateDeps[static_cast<size_t>(d)]) stateDeps[static_cast<size_t>(d)] = grew = true;
    }
    // ByLocation: a location's appends (by depth), then its reads (by depth).
    auto key = [&](size_t e, size_t loc) {
      const bool read = sk.event(e).type == events::EventType::Read;
      if (ord == Order::ByState && read && stateDeps[static_cast<size_t>(readIndex_[e])]) return depth[e];
      const size_t readLater = ord != Order::ByDepth && read ? n_ : 0;
      return (ord == Order::ByState ? n_ : 0) + rank[loc] * 2 * n_ + readLater + depth[e];
    };
    std::vector<std::tuple<size_t, size_t, Step>> items;  // (key, event, step)
    for (size_t loc = 0; loc < sk.writesByLoc.size(); ++loc)
      for (int w : sk.writesByLoc[loc])
        if (!sk.event(static_cast<size_t>(w)).isInit)
          items.emplace_back(key(static_cast<size_t>(w), loc), static_cast<size_t>(w), Step{Step::Append, 0, loc});
    for (size_t k = 0; k < reads_.size(); ++k)
      if (!rmwPaired_[k]) {
        const auto r = static_cast<size_t>(reads_[k]);
        const auto loc = static_cast<size_t>(sk.event(r).loc);
        items.emplace_back(key(r, loc), r, Step{Step::Rf, k, loc});
      }
    std::sort(items.begin(), items.end(), [](const auto& x, const auto& y) {
      return std::tie(std::get<0>(x), std::get<1>(x)) < std::tie(std::get<0>(y), std::get<1>(y));
    });
    steps_.clear();
    for (const auto& it : items) steps_.push_back(std::get<2>(it));
    steps_.push_back({Step::Sc, 0, 0});
  }

  // Depth-first search over the decisions: co order of a location, source of a read, sc order. After
  // each decision the partial execution is checked (values and guards resolved so far, blocked waits,
  // and the model's checks on it when a failure there is final: MonotoneAlgebra); a failing one is not
  // extended. Every complete execution is evaluated exactly (evaluateLeaf).
  //
  // It returns why no allowed execution extends the node: the locations whose decisions (co among its
  // writes, the sources of its reads) every execution that agrees with the node on them fails by
  // (allLocs_ where some execution was evaluated or left out). A decision whose location is not among
  // the reasons of its subtree's failure needs no other alternative: they would all fail alike
  // (conflict-directed backjumping; docs/design.md "The enum engine's search").
  BitSet descend(size_t i) {
    if (projecting_ && i + 1 == steps_.size()) throw ProjectionOpen{};
    if (i == steps_.size()) return allLocs_;
    BitSet why(nLocs_);
    const size_t pick = pickStep(why);
    if (pick == SIZE_MAX) {  // a read none of whose sources can be completed
      if (regionsOpen()) ++nonRobust_;
      return why;
    }
    stepDone_[pick] = 1;
    forced_[i] = forcedPick_ && opts_.skipForcedChecks;
    decisionLocs_.push_back(steps_[pick].loc);
    why = descendStep(i, pick);
    decisionLocs_.pop_back();
    stepDone_[pick] = 0;
    return why;
  }

  // The next decision: a read left with one possible source, or none (then the node is dead:
  // SIZE_MAX), is decided first; otherwise the first step of the order not taken yet.
  // (`why`: the reasons of the dead read's sources).
  size_t pickStep(BitSet& why) {
    forcedPick_ = false;
    size_t first = SIZE_MAX;
    for (size_t s = 0; s < steps_.size(); ++s) {
      if (stepDone_[s]) continue;
      if (first == SIZE_MAX) first = s;
      if (steps_[s].kind != Step::Rf) continue;
      const int left = sourcesLeft(steps_[s].index, 2, &why);
      if (left == 0) return SIZE_MAX;
      if (left == 1) {
        forcedPick_ = true;
        return s;
      }
    }
    return first;
  }

  // How many sources of read k (up to `cap`) survive the checks the decision would fail at once: its
  // core, a blocked wait's source with a co successor, a path guard that the source's value decides.
  // The locations those checks depend on are added to `why` when none survives.
  int sourcesLeft(size_t k, int cap, BitSet* why) {
    const auto r = static_cast<size_t>(reads_[k]);
    const auto id = static_cast<size_t>(sk_->event(r).id);
    const auto loc = static_cast<size_t>(sk_->event(r).loc);
    BitSet reasons(nLocs_);
    reasons.set(loc);
    int left = 0;
    for (int wi : sources_[k]) {
      const auto w = static_cast<size_t>(wi);
      if (coreDead(coreKey(4, r, w, 0), {{w, r}}, {})) continue;
      if (blocked_[k] && co_.row(w).any()) continue;
      if (!readGuards_[k].empty()) {
        bool ready = true;
        for (int d : writeDeps_[w])
          if (d >= 0 && !nodeKnown_[static_cast<size_t>(d)]) ready = false;
        if (ready) {
          fev_.reset();
          const events::Event& we = sk_->event(w);
          const int64_t v = we.value >= 0 ? fev_.eval(we.value, readVals_) : 0;
          const int64_t saved = readVals_[id];
          readVals_[id] = v;
          fev_.reset();
          bool holds = true;
          for (size_t g : readGuards_[k]) {
            bool gready = true;
            for (int d : guardReads_[g])
              if (d >= 0 && static_cast<size_t>(d) != k && !nodeKnown_[static_cast<size_t>(d)]) gready = false;
            if (gready && fev_.eval(sk_->guards[g], readVals_) == 0) {
              holds = false;
              if (why != nullptr) {
                for (int d : writeDeps_[w])
                  if (d >= 0) addCone(static_cast<size_t>(d), reasons);
                for (int d : guardReads_[g])
                  if (d >= 0 && static_cast<size_t>(d) != k) addCone(static_cast<size_t>(d), reasons);
              }
              break;
            }
          }
          readVals_[id] = saved;
          if (!holds) continue;
        }
      }
      if (++left >= cap) return left;
    }
    if (left == 0 && why != nullptr) *why = reasons;
    return left;
  }

  // Adds to `out` the locations of read k and of the reads its value is computed from (through the sources
  // decided so far).
  void addCone(size_t k, BitSet& out) {
    std::vector<size_t> todo{k};
    std::vector<char> seen(reads_.size(), 0);
    seen[k] = 1;
    while (!todo.empty()) {
      const size_t x = todo.back();
      todo.pop_back();
      out.set(static_cast<size_t>(sk_->event(static_cast<size_t>(reads_[x])).loc));
      if (src_[x] < 0) continue;
      for (int d : writeDeps_[static_cast<size_t>(src_[x])])
        if (d >= 0 && !seen[static_cast<size_t>(d)]) {
          seen[static_cast<size_t>(d)] = 1;
          todo.push_back(static_cast<size_t>(d));
        }
    }
  }

  // One decision and its subtrees; returns why they all failed (descend), after the first subtree whose
  // reasons do not include the decision's location.
  BitSet descendStep(size_t i, size_t pick) {
    const Step& st = steps_[pick];
    BitSet why(nLocs_);  // the union of the alternatives' reasons
    BitSet sub(nLocs_);
    // Whether the search goes on with the next alternative after one whose reasons are `sub`.
    auto next = [&]() {
      if (!sub.test(st.loc)) {
        ++jumps_;
        return false;
      }
      why |= sub;
      return true;
    };
    // A failure is explained only while no alternative was found to hold every location among its reasons
    // (then the union is every location whatever the others say).
    auto child = [&]() {
      if (viable(i, st.loc, why.count() < nLocs_, sub))
        sub = descend(i + 1);
      else
        notePairs(sub);
    };
    switch (st.kind) {
      case Step::Append: {
        // The next write of the location's co order: any write not placed yet. It follows every placed
        // write (init first) and precedes every write not placed yet: pairs every completion has.
        const size_t loc = st.loc;
        const auto& ws = sk_->writesByLoc[loc];
        std::vector<int>& order = order_[loc];
        if (opts_.skipForcedChecks) {  // the last write to place, unless an RMW's (whose read has sources)
          auto unplaced = [&](int wi) { return !placed_[static_cast<size_t>(wi)]; };
          auto it = std::find_if(ws.begin(), ws.end(), unplaced);
          forced_[i] = it != ws.end() && std::find_if(std::next(it), ws.end(), unplaced) == ws.end() &&
                       rmwRead_[static_cast<size_t>(*it)] < 0;
        }
        std::vector<size_t> swapSkip;  // writes whose order with a swapped partner was covered by its subtree
        for (int wi : ws) {
          const auto w = static_cast<size_t>(wi);
          if (placed_[w]) continue;  // placed before, or the init write
          if (std::find(swapSkip.begin(), swapSkip.end(), w) != swapSkip.end()) {
            ++swapSkips_;
            continue;
          }
          int tracked = -1;
          size_t partner = 0;
          uint64_t nr0 = 0, innerNr0Saved = 0;
          if (swapOf_[w] >= 0 && !projecting_) {
            const Swap& sw = swaps_[static_cast<size_t>(swapOf_[w])];
            partner = w == sw.a ? sw.b : sw.a;
            if (!placed_[partner] && swapInvariant(sw)) {
              tracked = swapOf_[w];
              ++tracking_;
              active_.push_back(tracked);
              nr0 = nonRobust_;
              innerNr0Saved = innerNr0_;
              innerNr0_ = nr0;
            }
          }
          placed_[w] = 1;
          order.push_back(wi);
          bool dead = false;
          std::vector<size_t> added;  // pairs (w, u) not already known (a blocked wait's source is known last)
          for (int ui : ws) {
            const auto u = static_cast<size_t>(ui);
            if (placed_[u]) continue;
            if (!co_.test(w, u)) {
              co_.set(w, u);
              added.push_back(u);
            }
            dead = dead || coreDead(coreKey(1, w, u, 0), {}, {{w, u}});
          }
          bool goOn = true;
          if (dead) {
            // some write not placed yet cannot follow w: a reason of this location alone
            why.set(loc);
            if (regionsOpen() && !appendDeadClosed(w, loc)) ++nonRobust_;
          } else if (rmwRead_[w] < 0) {
            decided_ = {wi, -1};
            child();
            goOn = next();
          } else {
            // The source of the RMW's read, the co predecessor first.
            const auto k = static_cast<size_t>(rmwRead_[w]);
            const auto r = static_cast<size_t>(reads_[k]);
            const int pred = order.size() >= 2 ? order[order.size() - 2] : ws[0];
            auto tryFrom = [&](int src) {
              // The core of reading src: src placed before w (then the write it precedes in co, up to w,
              // lies between them) or after it.
              const auto sc = static_cast<size_t>(src);
              if (sc == w) {
                // its own write: left to the model
              } else if (placed_[sc]) {
                auto pos = std::find(order.begin(), order.end(), src);
                const auto nx = static_cast<size_t>(pos == order.end() ? order.front() : *std::next(pos));
                if (nx != w && coreDead(coreKey(2, r, sc, nx), {{sc, r}}, {{sc, nx}, {nx, w}})) {
                  why.set(loc);
                  if (regionsOpen() && !coreClosed(2, {r, sc, nx}, {{sc, r}}, {{sc, nx}, {nx, w}})) ++nonRobust_;
                  return true;
                }
              } else if (coreDead(coreKey(3, r, sc, w), {{sc, r}}, {{w, sc}})) {
                why.set(loc);
                if (regionsOpen() && !coreClosed(3, {r, sc, w}, {{sc, r}}, {{w, sc}})) ++nonRobust_;
                return true;
              }
              src_[k] = src;
              rf_.set(static_cast<size_t>(src), r);
              decided_ = {wi, static_cast<int>(r)};
              child();
              rf_.reset(static_cast<size_t>(src), r);
              return next();
            };
            if (std::find(sources_[k].begin(), sources_[k].end(), pred) != sources_[k].end()) goOn = tryFrom(pred);
            for (int src : sources_[k])
              if (goOn && src != pred) goOn = tryFrom(src);
            src_[k] = -1;
          }
          for (size_t u : added) co_.reset(w, u);
          order.pop_back();
          placed_[w] = 0;
          if (tracked >= 0) {
            --tracking_;
            active_.pop_back();
            innerNr0_ = innerNr0Saved;
            if (nonRobust_ == nr0) swapSkip.push_back(partner);
          }
          if (!goOn) return sub;
        }
        break;
      }
      case Step::Rf: {
        const size_t k = st.index;
        const size_t r = static_cast<size_t>(reads_[k]);
        for (int w : sources_[k]) {
          if (coreDead(coreKey(4, r, static_cast<size_t>(w), 0), {{static_cast<size_t>(w), r}}, {})) {
            why.set(st.loc);
            if (regionsOpen() && !coreClosed(4, {r, static_cast<size_t>(w)}, {{static_cast<size_t>(w), r}}, {}))
              ++nonRobust_;
            continue;
          }
          src_[k] = w;
          rf_.set(static_cast<size_t>(w), r);
          // A blocked wait reads the co-last write: a source not placed yet follows every other write.
          std::vector<size_t> added;
          if (blocked_[k] && !placed_[static_cast<size_t>(w)])
            for (int vi : sk_->writesByLoc[st.loc]) {
              const auto v = static_cast<size_t>(vi);
              if (vi != w && !co_.test(v, static_cast<size_t>(w))) {
                co_.set(v, static_cast<size_t>(w));
                added.push_back(v);
              }
            }
          decided_ = {static_cast<int>(r), -1};
          child();
          for (size_t v : added) co_.reset(v, static_cast<size_t>(w));
          rf_.reset(static_cast<size_t>(w), r);
          if (!next()) {
            src_[k] = -1;
            return sub;
          }
        }
        src_[k] = -1;
        break;
      }
      case Step::Sc: {
        if (scItems_.empty()) return leaf();
        // Every strict total order of the sc events, generated lazily (k! of them: the budget is polled
        // between two).
        if (regionsOpen()) ++nonRobust_;
        std::vector<int> perm = scItems_;
        do {
          BitMatrix sc(n_);
          for (size_t a = 0; a < perm.size(); ++a)
            for (size_t b = a + 1; b < perm.size(); ++b)
              sc.set(static_cast<size_t>(perm[a]), static_cast<size_t>(perm[b]));
          evaluateLeaf(sc);
          budget();
        } while (std::next_permutation(perm.begin(), perm.end()));
        return allLocs_;
      }
    }
    return why;
  }

  // The one complete candidate of the decisions taken (no sc order to choose), evaluated exactly. A candidate
  // the model rejects is explained as a failed node is (explainClosed) and recorded (recordNoGood), so that
  // the next candidate with the same pairs on those locations is rejected before it is evaluated, and the
  // search backjumps over it as over a failed node.
  BitSet leaf() {
    leafAllowed_ = false;
    evaluateLeaf(BitMatrix(n_));
    budget();
    if (leafAllowed_ || !prune_ || !opts_.backjump || decisionLocs_.size() < 2) {
      if (regionsOpen()) ++nonRobust_;
      return allLocs_;
    }
    // decisionLocs_ ends with this step's (the sc step has none): the last decision is the one before.
    const size_t scLoc = decisionLocs_.back();
    decisionLocs_.pop_back();
    BitSet why = allLocs_;
    // `why` is left as is if the plain checks hold
    if (modelOpenOrWhy(decisionLocs_.back(), true, why) && regionsOpen()) ++nonRobust_;
    decisionLocs_.push_back(scLoc);
    return why;
  }

  // Whether the partial execution after decision `step` may still be completed into an allowed one. After
  // the last rf / co decision with no sc order to choose, the model is left to the exact evaluation of the
  // complete candidate (evaluateLeaf).
  // When it may not, `why` gets the reasons (descend); `loc` is the location of the last decision.
  bool viable(size_t step, size_t loc, bool explain, BitSet& why) {
    ++nodes_;
    budget();
    // The try is abandoned when it spent its budget without reaching a deeper decision than before (and
    // evaluated no complete candidate nor left out a recorded state's): a search still going deeper is kept.
    if (++attemptNodes_, step + 1 > attemptDepth_) {
      attemptDepth_ = step + 1;
      attemptDepthAt_ = attemptNodes_;
    }
    // The ByState try counts all its nodes: it is only worth it where the states come quickly.
    if (projecting_) {
      if (attemptNodes_ > attemptLimit_) throw Abandon{};
    } else if (attemptNodes_ - (byStateTry_ ? 0 : attemptDepthAt_) > attemptLimit_ &&
               candidates_ + leftOut_ == attemptCandidates_) {
      throw Abandon{};
    }
    // Values resolved so far and the guards they decide.
    std::vector<char>& known = nodeKnown_;
    known.assign(reads_.size(), 0);
    ev_.reset();
    propagate(known);
    for (size_t g = 0; g < guardReads_.size(); ++g) {
      bool ready = true;
      for (int k : guardReads_[g]) ready = ready && k >= 0 && known[static_cast<size_t>(k)];
      if (ready && ev_.eval(sk_->guards[g], readVals_) == 0) {
        why = BitSet(nLocs_);  // the reads the guard's value comes from
        for (int k : guardReads_[g]) addCone(static_cast<size_t>(k), why);
        return false;
      }
    }
    // A blocked wait reads the co-last write of its location: not a write with a co successor.
    for (int r : sk_->readsFinal) {
      int k = r >= 0 ? readIndex_[static_cast<size_t>(r)] : -1;
      if (k < 0 || src_[static_cast<size_t>(k)] < 0) continue;
      if (co_.row(static_cast<size_t>(src_[static_cast<size_t>(k)])).any()) {
        why = BitSet(nLocs_);
        why.set(static_cast<size_t>(sk_->event(static_cast<size_t>(r)).loc));
        return false;
      }
    }
    if (projecting_) return modelOpenOrWhy(loc, explain, why);
    if (recordedState(known)) {
      ++leftOut_;
      why = allLocs_;
      if (regionsOpen() && !leftOutClosed(known)) ++nonRobust_;
      return false;
    }
    if (!prune_) return true;
    if (step + 2 == steps_.size() && scItems_.empty()) {
      // The complete candidate is evaluated exactly (evaluateLeaf), unless a recorded failure rejects it.
      if (const NoGood* g = matchNoGood()) {
        why = g->why;
        if (tracking_ > 0) noteModelFailure(why, SIZE_MAX);
        return false;
      }
      return true;
    }
    // A decision with one alternative: the next node's check (or the complete candidate's evaluation)
    // covers this one, a failure being for good (EnumOptions::skipForcedChecks).
    if (forced_[step]) {
      ++forcedSkipped_;
      return true;
    }
    // A search restarted in an order it was abandoned in retraces the same nodes first (nothing it depends
    // on changed: states are recorded only by a search that runs to its end): their model results and
    // explanations are taken from its log.
    std::vector<std::pair<bool, BitSet>>& log = replay_[static_cast<size_t>(attemptOrder_)];
    if (const size_t k = attemptModelRuns_++; k < log.size()) {
      ++replayed_;
      if (!log[k].first) why = log[k].second;
      if (!log[k].first && tracking_ > 0) noteModelFailure(why, SIZE_MAX);
      return log[k].first;
    }
    const bool open = modelOpenOrWhy(loc, explain, why);
    log.emplace_back(open, open ? BitSet() : why);
    return open;
  }

  // A failure found by the model (explainClosed) and the rf and co pairs of its locations it was found with:
  // every partial execution of the path choice that has those pairs fails the same check for good (the
  // check fails for good on them alone, with coBase_, which every search of the path choice starts from).
  struct NoGood {
    BitSet why;
    std::vector<std::pair<uint32_t, uint32_t>> rf, co;
  };

  // Interchangeable arrivals (docs/design.md "Interchangeable arrivals"). Two threads' i-th RMWs of one
  // location with the same update and unused read values (a swap) come in either order. When the search
  // places one of them first while the other is unplaced and nothing decided tells them apart
  // (swapInvariant), it tracks the subtree below (a region): every failure and every left-out node found
  // there is checked to hold too with the active swaps applied in every combination (closed). If all are,
  // the other order is skipped: each of its executions is the image of one below the first order, whose
  // failure or left-out node holds for it. Anything not closed (a candidate evaluated, a failure with too many
  // swaps among its pairs, ...) counts in nonRobust_ and keeps the other order.
  struct Swap {
    size_t a, b, ra, rb, loc;  // the two RMW writes, their reads (skeleton indices), their location
  };
  std::vector<Swap> swaps_;
  std::vector<int> swapOf_;  // per event: its swap, -1
  uint64_t nonRobust_ = 0;   // events of the search not closed under the swaps
  int tracking_ = 0;         // order decisions above the node whose other order may be skipped
  std::vector<int> active_;  // their swaps
  uint64_t innerNr0_ = 0;    // nonRobust_ when the innermost of them began
  // Whether the regions of the active swaps can still turn out closed: nothing failed to be closed since the
  // innermost began (it lies inside the others).
  bool regionsOpen() const { return tracking_ > 0 && nonRobust_ == innerNr0_; }
  uint64_t swapSkips_ = 0, swapChecks_ = 0;
  static constexpr size_t kMaxSwapPairs = 4;      // a failure with more swaps among its pairs is not checked
  static constexpr size_t kMaxLeftOutSwaps = 10;  // a left-out node: 2^10 - 1 flag bounds at most

  // The interchangeable pairs of the path choice: two RMW writes of one location by two threads, the i-th of
  // each, with the same update and reads whose values nothing uses (only value-dependent sets of their own
  // event, which move with the swap).
  void findSwaps() {
    swaps_.clear();
    swapOf_.assign(n_, -1);
    if (!opts_.swapArrivals || !prune_ || !opts_.backjump || opts_.countExecutions) return;
    std::vector<char> used(reads_.size(), 0);
    for (const auto& ks : guardReads_)
      for (int k : ks)
        if (k >= 0) used[static_cast<size_t>(k)] = 1;
    for (size_t w = 0; w < n_; ++w)
      for (int k : writeDeps_[w])
        if (k >= 0 && rmwRead_[w] != k) used[static_cast<size_t>(k)] = 1;
    for (size_t k = 0; k < reads_.size(); ++k)
      if (stateRead_[k]) used[k] = 1;
    {
      size_t si = 0;
      for (const auto& [name, members] : sk_->dynamicSets) {
        for (size_t mi = 0; mi < members.size(); ++mi) {
          const auto ii = static_cast<size_t>(members[mi].first);
          for (int k : dynReads_[si][mi])
            if (k >= 0 && !(ii < n_ && (rmwRead_[ii] == k || readIndex_[ii] == k))) used[static_cast<size_t>(k)] = 1;
        }
        ++si;
      }
    }
    auto rank = [&](size_t w, const std::vector<int>& ws) {
      size_t c = 0;
      for (int v : ws) {
        const auto& ev = sk_->event(static_cast<size_t>(v));
        if (ev.thread == sk_->event(w).thread && rmwRead_[static_cast<size_t>(v)] >= 0 && ev.id < sk_->event(w).id) ++c;
      }
      return c;
    };
    for (size_t loc = 0; loc < sk_->writesByLoc.size(); ++loc) {
      if (std::find(stateLocs_.begin(), stateLocs_.end(), loc) != stateLocs_.end()) continue;
      const auto& ws = sk_->writesByLoc[loc];
      for (size_t x = 0; x < ws.size(); ++x)
        for (size_t y = x + 1; y < ws.size(); ++y) {
          const auto a = static_cast<size_t>(ws[x]), b = static_cast<size_t>(ws[y]);
          if (swapOf_[a] >= 0 || swapOf_[b] >= 0 || rmwRead_[a] < 0 || rmwRead_[b] < 0) continue;
          if (sk_->event(a).thread == sk_->event(b).thread || rank(a, ws) != rank(b, ws)) continue;
          // Real threads' arrivals only: an async operation's completions are ordered with its own data.
          if (prog_.threads[static_cast<size_t>(sk_->event(a).thread)].isAsync ||
              prog_.threads[static_cast<size_t>(sk_->event(b).thread)].isAsync)
            continue;
          const auto ka = static_cast<size_t>(rmwRead_[a]), kb = static_cast<size_t>(rmwRead_[b]);
          if (used[ka] || used[kb]) continue;
          const auto& na = prog_.exprs.node(sk_->event(a).value);
          const auto& nb = prog_.exprs.node(sk_->event(b).value);
          if (na.op != nb.op || na.args.size() != nb.args.size() || na.args.empty()) continue;
          auto ownRead = [&](events::ExprId e, size_t k) {
            const auto& nd = prog_.exprs.node(e);
            return nd.op == events::ExprOp::ReadVal && nd.event == sk_->event(static_cast<size_t>(reads_[k])).id;
          };
          if (!ownRead(na.args[0], ka) || !ownRead(nb.args[0], kb)) continue;
          if (!std::equal(na.args.begin() + 1, na.args.end(), nb.args.begin() + 1)) continue;
          const size_t ra = static_cast<size_t>(reads_[ka]), rb = static_cast<size_t>(reads_[kb]);
          // The pairs every search starts from must not tell them apart.
          bool sym = !coBase_.test(a, b) && !coBase_.test(b, a);
          for (size_t z = 0; sym && z < n_; ++z)
            if (z != a && z != b)
              sym = coBase_.test(z, a) == coBase_.test(z, b) && coBase_.test(a, z) == coBase_.test(b, z);
          if (!sym) continue;
          swapOf_[a] = swapOf_[b] = static_cast<int>(swaps_.size());
          swaps_.push_back({a, b, ra, rb, loc});
        }
    }
  }

  // Adds to idx the active swap of event x (one of its writes, or one of their reads), if any.
  void noteActiveSwap(size_t x, std::vector<int>& idx) const {
    int sw = swapOf_[x];
    for (size_t i = 0; sw < 0 && i < swaps_.size(); ++i)
      if (x == swaps_[i].ra || x == swaps_[i].rb) sw = static_cast<int>(i);
    if (sw >= 0 && std::find(active_.begin(), active_.end(), sw) != active_.end() &&
        std::find(idx.begin(), idx.end(), sw) == idx.end())
      idx.push_back(sw);
  }

  // The active swaps of the events ev and of the ends of the pairs rfP and coP (noteActiveSwap).
  std::vector<int> activeSwapsOf(const std::vector<size_t>& ev, const std::vector<std::pair<size_t, size_t>>& rfP,
                                 const std::vector<std::pair<size_t, size_t>>& coP) const {
    std::vector<int> idx;
    for (size_t e : ev) noteActiveSwap(e, idx);
    for (auto [x, y] : rfP) noteActiveSwap(x, idx), noteActiveSwap(y, idx);
    for (auto [x, y] : coP) noteActiveSwap(x, idx), noteActiveSwap(y, idx);
    return idx;
  }

  // The event that swaps `set` (bits over swaps_) maps x to.
  size_t swapped(size_t x, uint32_t set, const std::vector<int>& idx) const {
    const int s = swapOf_[x];
    if (s < 0) {  // x may be a swapped write's read
      for (size_t i = 0; i < idx.size(); ++i)
        if ((set >> i) & 1) {
          const Swap& w = swaps_[static_cast<size_t>(idx[i])];
          if (x == w.ra) return w.rb;
          if (x == w.rb) return w.ra;
        }
      return x;
    }
    for (size_t i = 0; i < idx.size(); ++i)
      if (((set >> i) & 1) && idx[i] == s) {
        const Swap& w = swaps_[static_cast<size_t>(s)];
        return x == w.a ? w.b : w.a;
      }
    return x;
  }

  // The relation m with the swaps `set` of idx applied to its events.
  BitMatrix swappedMatrix(const BitMatrix& m, uint32_t set, const std::vector<int>& idx) const {
    BitMatrix r(n_);
    m.forEach([&](size_t x, size_t y) { r.set(swapped(x, set, idx), swapped(y, set, idx)); });
    return r;
  }

  // Whether the image of the whole node (rf_, co_) under the swaps `set` of idx fails the model's plain
  // checks for good.
  bool nodeImageFails(uint32_t set, const std::vector<int>& idx) {
    ++swapChecks_;
    return !modelOpen(swappedMatrix(rf_, set, idx), swappedMatrix(co_, set, idx));
  }

  // Whether a failure with the pairs (rf, co) of its reasons fails the model's checks also under every
  // combination of the swaps among those pairs (then every swapped image of it fails too). `rank`: the
  // checks to evaluate.
  bool closedUnderSwaps(const std::vector<std::pair<size_t, size_t>>& rfP,
                        const std::vector<std::pair<size_t, size_t>>& coP, const std::vector<uint32_t>* rank) {
    const std::vector<int> idx = activeSwapsOf({}, rfP, coP);
    if (idx.empty()) return true;
    if (idx.size() > kMaxSwapPairs) return false;
    for (uint32_t set = 1; set < (uint32_t{1} << idx.size()); ++set) {
      BitMatrix rf(n_), co = coBase_;
      for (auto [x, y] : rfP) rf.set(swapped(x, set, idx), swapped(y, set, idx));
      for (auto [x, y] : coP) co.set(swapped(x, set, idx), swapped(y, set, idx));
      ++swapChecks_;
      if (modelOpen(rf, co, rank) && !nodeImageFails(set, idx)) return false;
    }
    return true;
  }

  // The node's rf and co pairs of the locations `why` (co pairs not in coBase_): a no-good's, or a failure's
  // to check under the swaps.
  template <class Pair>
  void pairsOf(const BitSet& why, std::vector<Pair>& rfP, std::vector<Pair>& coP) const {
    rf_.forEach([&](size_t a, size_t b) {
      if (why.test(static_cast<size_t>(sk_->event(b).loc))) rfP.emplace_back(a, b);
    });
    co_.forEach([&](size_t a, size_t b) {
      if (why.test(static_cast<size_t>(sk_->event(a).loc)) && !coBase_.test(a, b)) coP.emplace_back(a, b);
    });
  }

  // A failure of the model explained by `why` at a node inside a tracked order: counted if not closed.
  void noteModelFailure(const BitSet& why, size_t failedCheck) {
    if (!regionsOpen()) return;
    std::vector<std::pair<size_t, size_t>> rfP, coP;
    pairsOf(why, rfP, coP);
    std::vector<uint32_t> only(pinterp_.checks().size(), cat::RunOptions::kSkipCheck);
    if (failedCheck < only.size()) only[failedCheck] = 0;
    if (!closedUnderSwaps(rfP, coP, failedCheck < only.size() ? &only : nullptr)) ++nonRobust_;
  }

  // Whether the node's decisions are the same under swap s (neither write read, co symmetric in them).
  bool swapInvariant(const Swap& w) const {
    for (size_t k = 0; k < reads_.size(); ++k)
      if (src_[k] == static_cast<int>(w.a) || src_[k] == static_cast<int>(w.b)) return false;
    if (co_.test(w.a, w.b) || co_.test(w.b, w.a)) return false;
    for (size_t z = 0; z < n_; ++z)
      if (z != w.a && z != w.b && (co_.test(z, w.a) != co_.test(z, w.b) || co_.test(w.a, z) != co_.test(w.b, z)))
        return false;
    return true;
  }

  // Whether a core that fails (coreDead: kind and key events, its rf and co pairs) fails under every
  // combination of the swaps of its events too.
  bool coreClosed(uint64_t kind, std::vector<size_t> keyEv, std::vector<std::pair<size_t, size_t>> rfP,
                  std::vector<std::pair<size_t, size_t>> coP) {
    const std::vector<int> idx = activeSwapsOf(keyEv, rfP, coP);
    if (idx.empty()) return true;
    if (idx.size() > kMaxSwapPairs) return false;
    for (uint32_t set = 1; set < (uint32_t{1} << idx.size()); ++set) {
      std::vector<size_t> k(3, 0);
      for (size_t i = 0; i < keyEv.size(); ++i) k[i] = swapped(keyEv[i], set, idx);
      std::vector<std::pair<size_t, size_t>> r2, c2;
      for (auto [x, y] : rfP) r2.emplace_back(swapped(x, set, idx), swapped(y, set, idx));
      for (auto [x, y] : coP) c2.emplace_back(swapped(x, set, idx), swapped(y, set, idx));
      ++swapChecks_;
      if (!coreDeadV(coreKey(kind, k[0], k[1], k[2]), r2, c2)) return false;
    }
    return true;
  }

  // Whether appending w to location loc's co order, dead because some unplaced write of loc cannot follow
  // it, is dead under every combination of the active swaps of loc too (some unplaced write then cannot
  // follow w's image).
  bool appendDeadClosed(size_t w, size_t loc) {
    std::vector<int> idx;
    for (int sw : active_)
      if (swaps_[static_cast<size_t>(sw)].loc == loc) idx.push_back(sw);
    if (idx.empty()) return true;
    if (idx.size() > kMaxSwapPairs) return false;
    const auto& ws = sk_->writesByLoc[loc];
    for (uint32_t set = 1; set < (uint32_t{1} << idx.size()); ++set) {
      const size_t w2 = swapped(w, set, idx);
      bool dead = false;
      for (int ui : ws) {
        const auto u = static_cast<size_t>(ui);
        if (placed_[u] || u == w) continue;
        const size_t u2 = swapped(u, set, idx);
        ++swapChecks_;
        if (coreDead(coreKey(1, w2, u2, 0), {}, {{w2, u2}})) {
          dead = true;
          break;
        }
      }
      if (!dead && !nodeImageFails(set, idx)) return false;
    }
    return true;
  }

  // A left-out node inside a region: whether each combination of the active swaps leaves its image out too:
  // the same state (no value the state uses moves), and the flag bound of the image (possibleFlags on the
  // swapped rf, co, placed writes, sources and read values) within the recorded state's flags.
  bool leftOutClosed(const std::vector<char>& known) {
    const std::vector<int>& idx = active_;
    if (idx.empty()) return true;
    if (idx.size() > kMaxLeftOutSwaps) return false;
    const outcome::StateResult* st = findState(spec_.key(stateValues(co_)));
    if (st == nullptr) return false;
    const std::vector<char> placed0 = placed_;
    const std::vector<int> src0 = src_;
    const BitMatrix rf0 = rf_, co0 = co_;
    const std::vector<int64_t> vals0 = readVals_;
    bool closed = true;
    for (uint32_t set = 1; closed && set < (uint32_t{1} << idx.size()); ++set) {
      rf_ = swappedMatrix(rf0, set, idx);
      co_ = swappedMatrix(co0, set, idx);
      std::vector<char> kn = known;
      for (size_t x = 0; x < n_; ++x) placed_[swapped(x, set, idx)] = placed0[x];
      for (size_t k = 0; k < reads_.size(); ++k) {
        const size_t r = static_cast<size_t>(reads_[k]);
        const size_t r2 = swapped(r, set, idx);
        const int k2 = readIndex_[r2];
        src_[static_cast<size_t>(k2)] =
            src0[k] < 0 ? -1 : static_cast<int>(swapped(static_cast<size_t>(src0[k]), set, idx));
        kn[static_cast<size_t>(k2)] = known[k];
        readVals_[static_cast<size_t>(sk_->event(r2).id)] = vals0[static_cast<size_t>(sk_->event(r).id)];
      }
      ev_.reset();
      std::vector<std::string> here;
      ++swapChecks_;
      closed = possibleFlags(here, &kn) &&
               std::all_of(here.begin(), here.end(), [&](const std::string& f) { return st->flags.count(f) != 0; });
    }
    placed_ = placed0;
    src_ = src0;
    rf_ = rf0;
    co_ = co0;
    readVals_ = vals0;
    ev_.reset();
    return closed;
  }

  // The model's verdict on the node (modelOpen), or a recorded failure (matchNoGood) that its decisions
  // contain; `why` as in viable. A failure the model explains by fewer than all locations is recorded.
  bool modelOpenOrWhy(size_t loc, bool explain, BitSet& why) {
    if (const NoGood* g = matchNoGood()) {
      why = g->why;
      if (tracking_ > 0) noteModelFailure(why, SIZE_MAX);
      return false;
    }
    const bool open = modelOpen(rf_, co_);
    if (!open) {
      const size_t failed = lastFailed_;
      why = explain || regionsOpen() ? explainClosed(loc) : allLocs_;
      if ((explain || regionsOpen()) && why.count() < nLocs_) recordNoGood(why);
      if (tracking_ > 0) noteModelFailure(why, failed);
    }
    return open;
  }

  // A recorded failure that the node's decisions contain. Only failures with a pair the last decision added
  // can be new here (the parent matched none: it was open, or checked); they are found through that
  // decision's events (decided_): a read's rf pairs, a write's co pairs with the writes after it.
  const NoGood* matchNoGood() {
    if (!opts_.backjump || !opts_.noGoods) return nullptr;
    for (int e : decided_) {
      if (e < 0) continue;
      const auto& ids = noGoodsByEvent_[static_cast<size_t>(e)];
      // The latest first: siblings fail alike.
      const auto stop =
          ids.size() > kNoGoodScan ? ids.rend() - static_cast<std::ptrdiff_t>(ids.size() - kNoGoodScan) : ids.rend();
      for (auto it = ids.rbegin(); it != stop; ++it) {
        const NoGood& g = noGoods_[*it];
        bool all = true;
        for (size_t k = 0; all && k < g.rf.size(); ++k) all = rf_.test(g.rf[k].first, g.rf[k].second);
        for (size_t k = 0; all && k < g.co.size(); ++k) all = co_.test(g.co[k].first, g.co[k].second);
        if (all) {
          ++noGoodHits_;
          return &g;
        }
      }
    }
    return nullptr;
  }

  void recordNoGood(const BitSet& why) {
    if (!opts_.noGoods || noGoodPairs_ > kNoGoodPairs) return;
    NoGood g;
    g.why = why;
    pairsOf(why, g.rf, g.co);
    noGoodPairs_ += g.rf.size() + g.co.size() + 1;
    const auto id = static_cast<uint32_t>(noGoods_.size());
    std::vector<uint32_t> events;
    for (auto [a, b] : g.rf) events.push_back(b);
    for (auto [a, b] : g.co) events.push_back(a);
    std::sort(events.begin(), events.end());
    events.erase(std::unique(events.begin(), events.end()), events.end());
    for (uint32_t e : events) noGoodsByEvent_[e].push_back(id);
    noGoods_.push_back(std::move(g));
  }

  // The locations whose decisions alone already fail one of the model's checks for good, the node's
  // decisions failing one (modelOpen): `loc`, the last decision's (the node's parent was open), and those
  // of the other decided locations the failure needs. The last such set found for `loc` is tried first
  // (siblings fail alike); otherwise each decided location is left out in turn, the most recently decided
  // first, and kept out if the decisions left still fail. Decisions of the locations left out may then be
  // changed without reopening the node.
  BitSet explainClosed(size_t loc) {
    if (!opts_.backjump) return allLocs_;
    BitSet decided(nLocs_);
    for (size_t l : decisionLocs_) decided.set(l);
    decided.set(loc);
    auto fails = [&](const BitSet& c) {
      ++explainEvals_;
      BitMatrix rf(n_), co = coBase_;
      rf_.forEach([&](size_t a, size_t b) {
        if (c.test(static_cast<size_t>(sk_->event(b).loc))) rf.set(a, b);
      });
      co_.forEach([&](size_t a, size_t b) {
        if (c.test(static_cast<size_t>(sk_->event(a).loc))) co.set(a, b);
      });
      return !modelOpen(rf, co, &onlyFailed_);
    };
    // Only the check that failed the node is evaluated on fewer decisions (another failing would do, but
    // the runs that stay open then cost one check instead of the model).
    onlyFailed_.assign(pinterp_.checks().size(), cat::RunOptions::kSkipCheck);
    if (lastFailed_ < onlyFailed_.size()) onlyFailed_[lastFailed_] = 0;
    BitSet& last = lastWhy_[loc];
    if (last.size() == nLocs_) {
      BitSet c = last & decided;
      if (fails(c)) return c;
    }
    BitSet why = decided;
    std::vector<char> tried(nLocs_, 0);
    tried[loc] = 1;
    for (auto it = decisionLocs_.rbegin(); it != decisionLocs_.rend(); ++it) {
      const size_t l = *it;
      if (tried[l]) continue;
      tried[l] = 1;
      why.reset(l);
      if (!fails(why)) why.set(l);
    }
    last = why;
    return why;
  }

  // The values of the state's terms with the co order `co` and the read values readVals_ (ev_ reset for
  // them).
  std::vector<int64_t> stateValues(const BitMatrix& co) {
    return concrete::finalValues(
        spec_, *sk_, co,
        [&](int w) {
          const events::Event& e = sk_->event(static_cast<size_t>(w));
          return e.value >= 0 ? ev_.eval(e.value, readVals_) : int64_t{0};
        },
        [&](events::ExprId x) { return ev_.eval(x, readVals_); });
  }

  // Whether every completion of the partial execution can be left out, executions not being counted: its
  // final state is decided (the reads it is made of resolved, the locations it names with every write
  // placed in co) and already recorded with every flag an execution of this path choice may raise
  // (required_). Such a completion, if allowed, adds nothing to the result.
  bool recordedState(const std::vector<char>& known) {
    if (!leaveOut_ || (states_.empty() && (base_ == nullptr || base_->states.empty())))
      return false;  // (leaveOut_ may still turn false: pathFlags)
    for (size_t k = 0; k < reads_.size(); ++k)
      if (stateRead_[k] && !known[k]) return false;
    for (size_t loc : stateLocs_)
      for (int wi : sk_->writesByLoc[loc]) {
        const auto w = static_cast<size_t>(wi);
        if (!placed_[w]) return false;
        if (co_.row(w).none())  // the co-last write: its value must be known
          for (int d : writeDeps_[w])
            if (d >= 0 && !known[static_cast<size_t>(d)]) return false;
      }
    const outcome::StateResult* st = findState(spec_.key(stateValues(co_)));
    if (st == nullptr || !pathFlags()) return false;
    auto recorded = [&](const std::string& f) { return st->flags.count(f) != 0; };
    if (std::all_of(required_.begin(), required_.end(), recorded)) return true;
    // The path choice's bound names a flag the state lacks (ptx.cat's data-race before the barriers'
    // waits have their sources): the node's own bound, tighter with what is decided, may rule it out.
    ++flagBounds_;
    std::vector<std::string> here;
    return possibleFlags(here, &known) && std::all_of(here.begin(), here.end(), recorded);
  }

  // The recorded state of key `key`: this path choice's, or else the inherited one; nullptr if none.
  const outcome::StateResult* findState(const std::string& key) const {
    if (auto it = states_.find(key); it != states_.end()) return &it->second;
    if (base_ != nullptr)
      if (auto it = base_->states.find(key); it != base_->states.end()) return &it->second;
    return nullptr;
  }

  // The entry of state `key` to record an execution in (`fresh`: the state was not recorded before). An
  // inherited state is copied with its flags and witness, and no execution of its own.
  outcome::StateResult& stateEntry(const std::string& key, const std::vector<int64_t>& vals, bool& fresh) {
    if (base_ != nullptr && states_.count(key) == 0)
      if (auto it = base_->states.find(key); it != base_->states.end()) {
        outcome::StateResult& st = states_.emplace(key, it->second).first->second;
        st.executions = 0;
        fresh = false;
        return st;
      }
    outcome::StateResult& st = concrete::stateEntry(states_, key, vals, spec_, fresh);
    if (fresh) ++statesFound_;
    return st;
  }

  // Whether partial candidates of a recorded state may be left out in this path choice, with required_
  // set: the flags an execution of the path choice may raise (possibleFlags on the partial execution with
  // nothing decided). Computed when first needed: most path choices of a pipeline block and record no
  // state (a bound costs a run of the model).
  bool pathFlags() {
    if (requiredKnown_) return leaveOut_;
    requiredKnown_ = true;
    std::vector<char> placed = placed_;
    std::vector<int> src = src_;
    BitMatrix rf = rf_, co = co_;
    clearDecisions(initCo_);
    leaveOut_ = leaveOut_ && possibleFlags(required_);
    placed_ = std::move(placed);
    src_ = std::move(src);
    rf_ = std::move(rf);
    co_ = std::move(co);
    return leaveOut_;
  }

  // The flags an allowed completion of the partial execution may raise, into `out`: the path choice's own
  // (cut; deadlock, or else completes), undefined for an undefined condition of its paths, and every flag
  // and undefined_unless check of the model that the bounds of cat::IntervalAlgebra do not rule out. The
  // bounds: rf, co and sc from what is decided to what may still be added (every source left to an
  // undecided read, both orders of two unplaced writes, any sc order), fr from theirs, FW from the co-last
  // writes of the locations placed in full to those and the unplaced writes, the value-dependent sets
  // from the members `known` decides (their conditions' reads resolved; none without `known`) to those
  // and the undecided listed members. False when the model cannot be evaluated so.
  bool possibleFlags(std::vector<std::string>& out, const std::vector<char>* known = nullptr) {
    const events::Skeleton& sk = *sk_;
    out.clear();
    if (sk.cut) out.emplace_back(outcome::kCutFlag);
    out.emplace_back(sk.blocked ? "deadlock" : "completes");
    if (!sk.undefinedIf.empty()) out.emplace_back("undefined");
    // The model's part depends only on the decisions (rf, co, the placed writes) and on the values of the
    // reads `known` resolves. It is kept per path choice under those: the images of the left-out nodes of
    // interchangeable arrivals repeat (a node below the partner's order is often an image of one below the
    // first order, whose images are then the same; ringmc-K4-N9: 4,096 of 4,599).
    auto add = [&](const std::string& name) {
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    };
    std::vector<uint64_t> key;
    if (opts_.reuseFlagBounds) {
      key = boundKey(known);
      if (auto it = bounds_.find(key); it != bounds_.end()) {
        ++boundsReused_;
        if (opts_.checkReusedFlagBounds && !(*it->second.inputs == boundInputs(known)))
          throw std::logic_error("enum engine: a flag bound reused for other inputs");
        std::for_each(it->second.flags.begin(), it->second.flags.end(), add);
        return it->second.evaluated;
      }
    }
    BoundInputs in = boundInputs(known);
    ModelBound b;
    const bool evaluated = b.evaluated = modelFlags(in, b.flags);
    std::for_each(b.flags.begin(), b.flags.end(), add);
    if (opts_.reuseFlagBounds && bounds_.size() < kMaxBounds) {
      if (opts_.checkReusedFlagBounds) b.inputs = std::move(in);
      bounds_.emplace(std::move(key), std::move(b));
    }
    return evaluated;
  }

  // The inputs of modelFlags beyond the path choice: rf's pairs, co's rows, the placed writes, the reads
  // `known` resolves and their values.
  std::vector<uint64_t> boundKey(const std::vector<char>* known) const {
    std::vector<uint64_t> key;
    rf_.forEach([&](size_t w, size_t r) { key.push_back(uint64_t{w} << 32 | r); });
    key.push_back(~uint64_t{0});
    for (size_t w = 0; w < n_; ++w) {
      const uint64_t* row = co_.rowWords(w);
      if (std::none_of(row, row + co_.stride(), [](uint64_t x) { return x != 0; })) continue;
      key.push_back(w);
      key.insert(key.end(), row, row + co_.stride());
    }
    key.push_back(~uint64_t{0});
    for (size_t w = 0; w < n_; w += 64) {
      uint64_t bits = 0;
      for (size_t i = w; i < std::min(n_, w + 64); ++i) bits |= uint64_t{placed_[i] != 0} << (i - w);
      key.push_back(bits);
    }
    if (known != nullptr)
      for (size_t k = 0; k < reads_.size(); ++k)
        if ((*known)[k]) {
          key.push_back(k);
          key.push_back(
              static_cast<uint64_t>(readVals_[static_cast<size_t>(sk_->event(static_cast<size_t>(reads_[k])).id)]));
        }
    return key;
  }

  // What modelFlags binds beyond the path choice: the bounds of rf, co, sc, FW and the value-dependent sets.
  struct BoundInputs {
    BitMatrix rfLo, rfHi, coLo, coHi, scHi;
    BitSet fwLo, fwHi;
    std::vector<std::pair<BitSet, BitSet>> dynamic;  // per value-dependent set: lo, hi
    bool operator==(const BoundInputs&) const = default;
  };
  BoundInputs boundInputs(const std::vector<char>* known) {
    const events::Skeleton& sk = *sk_;
    BoundInputs in{rf_, rf_, co_, co_, BitMatrix(n_), BitSet(n_), BitSet(n_), {}};
    BitMatrix &rfHi = in.rfHi, &coHi = in.coHi, &scHi = in.scHi;
    BitSet &fwLo = in.fwLo, &fwHi = in.fwHi;
    for (size_t k = 0; k < reads_.size(); ++k)
      if (src_[k] < 0)
        for (int w : sources_[k]) rfHi.set(static_cast<size_t>(w), static_cast<size_t>(reads_[k]));
    for (const auto& ws : sk.writesByLoc) {
      bool complete = true;
      for (int a : ws) {
        const auto wa = static_cast<size_t>(a);
        if (placed_[wa]) continue;
        complete = false;
        fwHi.set(wa);
        for (int b : ws)
          if (b != a && !placed_[static_cast<size_t>(b)]) coHi.set(wa, static_cast<size_t>(b));
      }
      for (int a : ws)
        if (complete && co_.row(static_cast<size_t>(a)).none()) fwLo.set(static_cast<size_t>(a));
    }
    fwHi |= fwLo;
    for (int a : scItems_)
      for (int b : scItems_)
        if (a != b) scHi.set(static_cast<size_t>(a), static_cast<size_t>(b));
    // A value-dependent set holds at most its listed members; those whose condition's reads are all
    // resolved (`known`, with ev_'s values) are decided.
    size_t set = 0;
    for (const auto& entry : sk.dynamicSets) {
      const auto& members = entry.second;
      BitSet lo(n_), hi(n_);
      for (size_t j = 0; j < members.size(); ++j) {
        const auto i = static_cast<size_t>(members[j].first);
        const std::vector<int>& ks = dynReads_[set][j];
        const bool decided = known != nullptr && std::all_of(ks.begin(), ks.end(), [&](int k) {
                               return k >= 0 && (*known)[static_cast<size_t>(k)];
                             });
        if (!decided) {
          hi.set(i);
        } else if (ev_.eval(members[j].second, readVals_) != 0) {
          lo.set(i);
          hi.set(i);
        }
      }
      in.dynamic.emplace_back(std::move(lo), std::move(hi));
      ++set;
    }
    return in;
  }

  // possibleFlags' part of the model: the flags and undefined_unless checks that the bounds of
  // cat::IntervalAlgebra (with `in`) do not rule out, into `names`; false when the model cannot be evaluated so.
  bool modelFlags(const BoundInputs& in, std::vector<std::string>& names) {
    const events::Skeleton& sk = *sk_;
    if (!ialg_) {
      ialg_.emplace(n_);
      icache_.clear();
      for (const auto& [name, bits] : sk.sets) ialg_->setSet(name, bits, bits);
      for (const auto& [name, bits] : sk.relations) ialg_->setRel(name, bits, bits);
    }
    ialg_->setRel(events::nameOf(events::Builtin::rf), in.rfLo, in.rfHi);
    ialg_->setRel(events::nameOf(events::Builtin::co), in.coLo, in.coHi);
    ialg_->setRel(events::nameOf(events::Builtin::fr), in.rfLo.inverseCompose(in.coLo),
                  in.rfHi.inverseCompose(in.coHi));
    ialg_->setRel(events::nameOf(events::Builtin::sc), BitMatrix(n_), in.scHi);
    ialg_->setSet(events::nameOf(events::Builtin::FW), in.fwLo, in.fwHi);
    size_t d = 0;
    for (const auto& entry : sk.dynamicSets) {
      ialg_->setSet(entry.first, in.dynamic[d].first, in.dynamic[d].second);
      ++d;
    }
    try {
      // Only flags and undefined_unless checks make the bound: the plain checks (ranked kSkipCheck) are not
      // evaluated, nor what only they use.
      if (flagsOnly_.size() != iinterp_.checks().size())
        flagsOnly_.assign(iinterp_.checks().size(), cat::RunOptions::kSkipCheck);
      cat::RunOptions ro;
      ro.checkRank = &flagsOnly_;
      cat::ModelResult<cat::IntervalAlgebra> r = iinterp_.run(*ialg_, ro, &icache_);
      for (const auto& o : r.outcomes)
        for (const auto& c : o.checks) {
          std::string name;
          if (c.info->kind == cat::CheckKind::Flag && c.value.canHold) name = c.info->name;
          if (c.info->kind == cat::CheckKind::Undefined && c.value.canFail) name = "undefined";
          if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    } catch (const DiagnosticError&) {
      return false;  // evaluated on complete executions only: every execution is visited
    }
    return true;
  }

  // Whether the model's plain checks leave the partial execution (rf, co) open: none fails for good.
  // `rank`: the checks' order (cat::RunOptions::checkRank) instead of the most-failing-first one.
  bool modelOpen(const BitMatrix& rf, const BitMatrix& co, const std::vector<uint32_t>* rank = nullptr) {
    palg_->setRel(events::nameOf(events::Builtin::rf), rf, cat::Direction::Grows);
    palg_->setRel(events::nameOf(events::Builtin::co), co, cat::Direction::Grows);
    palg_->setRel(events::nameOf(events::Builtin::fr), rf.inverseCompose(co), cat::Direction::Grows);
    palg_->setRel(events::nameOf(events::Builtin::sc), BitMatrix(n_), cat::Direction::Grows);
    try {
      cat::RunOptions ro;
      ro.plainChecksOnly = true;  // flags and undefined behaviour never reject an execution
      // The checks that failed most often so far first: a failing run stops at its first failure.
      const auto& checks = pinterp_.checks();
      if (checkFails_.size() != checks.size()) {
        checkFails_.assign(checks.size(), 0);
        checkRank_ = rankByFails(checkFails_);
      }
      if ((++openRuns_ & 255) == 0) checkRank_ = rankByFails(checkFails_);
      ro.checkRank = rank != nullptr ? rank : &checkRank_;
      cat::ModelResult<cat::MonotoneAlgebra> r = pinterp_.run(*palg_, ro, &pcache_);
      bool anyOpen = false;
      for (const auto& o : r.outcomes) {
        bool open = true;
        for (const auto& c : o.checks)
          if (c.info->kind == cat::CheckKind::Check && c.value.failsForGood()) {
            open = false;
            lastFailed_ = static_cast<size_t>(c.info - checks.data());
            ++checkFails_[lastFailed_];
          }
        anyOpen = anyOpen || open;
      }
      return anyOpen;
    } catch (const DiagnosticError&) {
      // The model cannot be evaluated on partial executions (a condition on the execution, `with`, ...):
      // evaluate complete executions only.
      prune_ = false;
      return true;
    }
  }

  // Whether a few rf and co pairs (with the init writes' co pairs, which every execution has) already fail
  // one of the model's checks for good: then so does every partial execution that contains them. The
  // answer is computed once per skeleton and pattern (`key`), so that a decision whose core fails is
  // dropped without evaluating the model on the whole partial execution.
  //
  // A core found open in an earlier path choice of the test (the same events by their ids) is taken as open
  // without the model: a failing core is only a shortcut (the node that contains it fails on the whole
  // partial execution anyway), so taking a core as open never changes a result, at worst a path choice
  // whose static relations make it fail searches a little longer. Failing cores are computed in every
  // path choice.
  bool coreDead(uint64_t key, std::initializer_list<std::pair<size_t, size_t>> rfPairs,
                std::initializer_list<std::pair<size_t, size_t>> coPairs) {
    return coreDeadV(key, std::vector<std::pair<size_t, size_t>>(rfPairs),
                     std::vector<std::pair<size_t, size_t>>(coPairs));
  }
  bool coreDeadV(uint64_t key, const std::vector<std::pair<size_t, size_t>>& rfPairs,
                 const std::vector<std::pair<size_t, size_t>>& coPairs) {
    if (!prune_) return false;
    auto [it, fresh] = cores_.try_emplace(key, false);
    if (!fresh) return it->second;
    const uint64_t global = globalCoreKey(key);
    if (opts_.shareOpenCores &&
        (openCores_.count(global) != 0 || (base_ != nullptr && base_->openCores.count(global) != 0))) {
      ++coresShared_;
      return false;
    }
    ++coreEvals_;
    BitMatrix rf(n_), co = initCo_;
    for (auto [a, b] : rfPairs) rf.set(a, b);
    for (auto [a, b] : coPairs) co.set(a, b);
    it->second = !modelOpen(rf, co);
    if (!it->second) openCores_.insert(global);
    return it->second;
  }
  // A core's key with the events' ids in place of their indices in the path choice.
  uint64_t globalCoreKey(uint64_t key) const {
    auto id = [&](uint64_t i) { return static_cast<uint64_t>(sk_->event(static_cast<size_t>(i)).id); };
    constexpr uint64_t kMask = (uint64_t{1} << 20) - 1;
    return coreKey(key >> 60, id((key >> 40) & kMask), id((key >> 20) & kMask), id(key & kMask));
  }
  static uint64_t coreKey(uint64_t kind, size_t a, size_t b, size_t c) {
    return (kind << 60) | (uint64_t{a} << 40) | (uint64_t{b} << 20) | uint64_t{c};
  }

  // Evaluates the complete execution (rf_, co_ and `sc`): values (guessing thin-air cycles), guards,
  // then the model.
  void evaluateLeaf(const BitMatrix& sc) {
    std::vector<char> known(reads_.size(), 0);
    ev_.reset();
    solutions_.clear();
    solved_ = false;
    if (propagate(known)) {
      if (!guardsHold()) return;
      solutions_.push_back(readVals_);
      solved_ = true;
    }
    known_ = std::move(known);
    evaluateCandidate(co_, sc);
  }

  // Resolves every assigned read whose source value is computable; true if all reads are resolved.
  bool propagate(std::vector<char>& known) {
    bool progress = true;
    while (progress) {
      progress = false;
      for (size_t k = 0; k < reads_.size(); ++k) {
        if (known[k] || src_[k] < 0) continue;
        size_t w = static_cast<size_t>(src_[k]);
        bool ready = true;
        for (int d : writeDeps_[w])
          if (d >= 0 && !known[static_cast<size_t>(d)]) ready = false;
        if (!ready) continue;
        const events::Event& we = sk_->event(w);
        readVals_[static_cast<size_t>(sk_->event(static_cast<size_t>(reads_[k])).id)] =
            we.value >= 0 ? ev_.eval(we.value, readVals_) : 0;
        known[k] = 1;
        progress = true;
      }
    }
    return std::find(known.begin(), known.end(), 0) == known.end();
  }

  bool guardsHold() {
    for (events::ExprId g : sk_->guards)
      if (ev_.eval(g, readVals_) == 0) return false;
    return true;
  }

  // Solves a cyclic candidate by guessing (on demand, once per candidate).
  void solveCyclic() {
    solved_ = true;
    std::vector<std::pair<size_t, int64_t>> guesses;
    guess(known_, guesses);
  }

  void guess(const std::vector<char>& known0, std::vector<std::pair<size_t, int64_t>>& guesses) {
    std::vector<char> known = known0;
    ev_.reset();
    if (propagate(known)) {
      for (auto [k, v] : guesses) {
        const events::Event& we = sk_->event(static_cast<size_t>(src_[k]));
        if ((we.value >= 0 ? ev_.eval(we.value, readVals_) : 0) != v) return;
      }
      if (guardsHold()) solutions_.push_back(readVals_);
      return;
    }
    if (guesses.size() >= 3)
      throw Stop{outcome::Status::Unknown, "value dependency cycle of an allowed candidate too large to solve"};
    // Guess a read that lies on a cycle: follow unknown dependencies until one repeats.
    size_t k = static_cast<size_t>(std::find(known.begin(), known.end(), 0) - known.begin());
    std::vector<char> seen(reads_.size(), 0);
    while (!seen[k]) {
      seen[k] = 1;
      for (int d : writeDeps_[static_cast<size_t>(src_[k])])
        if (d >= 0 && !known[static_cast<size_t>(d)]) {
          k = static_cast<size_t>(d);
          break;
        }
    }
    for (int64_t v : guessDomain_) {
      std::vector<char> kn = known;
      kn[k] = 1;
      readVals_[static_cast<size_t>(sk_->event(static_cast<size_t>(reads_[k])).id)] = v;
      guesses.emplace_back(k, v);
      guess(kn, guesses);
      guesses.pop_back();
    }
  }

  void evaluateCandidate(const BitMatrix& co, const BitMatrix& sc) {
    tick();
    concrete::Dynamic d{rf_, co, sc};
    concrete::bindDynamic(*alg_, *sk_, d);
    if (valueSets_) {
      // The model reads value-dependent sets: one run per consistent assignment of read values. A
      // value-cyclic candidate is first run with those sets empty and dropped if not allowed, before the
      // (costly, size-limited) guessing; exact when the sets only feed flags / undefined_unless checks
      // (ptx.cat), an approximation if an allowing check depends on them (docs/design.md "Dynamic tags").
      if (!solved_) {
        concrete::bindEmptyValueSets(*alg_, *sk_);
        cat::ModelResult<cat::BitAlgebra> pre = interp_.run(*alg_, {}, &cache_);
        bool anyAllowed = false;
        for (const auto& o : pre.outcomes) anyAllowed = anyAllowed || cat::isAllowed(o);
        if (!anyAllowed) return;
        solveCyclic();
      }
      for (const auto& sol : solutions_) {
        readVals_ = sol;
        ev_.reset();
        concrete::bindValueSets(*alg_, *sk_, ev_, readVals_);
        cat::ModelResult<cat::BitAlgebra> r = interp_.run(*alg_, {}, &cache_);
        recordSolution(r, d, co);
      }
      return;
    }
    cat::ModelResult<cat::BitAlgebra> r = interp_.run(*alg_, {}, &cache_);
    bool anyAllowed = false;
    for (const auto& o : r.outcomes) anyAllowed = anyAllowed || cat::isAllowed(o);
    if (!anyAllowed) return;
    if (!solved_) solveCyclic();
    for (const auto& sol : solutions_) {
      readVals_ = sol;
      ev_.reset();
      recordSolution(r, d, co);
    }
  }

  // Records the allowed outcomes of model result `r` for the candidate `d` with read values readVals_
  // (ev_ reset for them).
  void recordSolution(const cat::ModelResult<cat::BitAlgebra>& r, const concrete::Dynamic& d, const BitMatrix& co) {
    bool undefined = false;
    for (const auto& [e, why] : sk_->undefinedIf)
      if (ev_.eval(e, readVals_) != 0) undefined = true;
    for (const auto& o : r.outcomes) {
      if (!cat::isAllowed(o)) continue;
      leafAllowed_ = true;
      std::vector<int64_t> vals = stateValues(co);
      bool fresh = false;
      outcome::StateResult& st = stateEntry(spec_.key(vals), vals, fresh);
      if (fresh && opts_.maxStates && statesFound_ + (base_ != nullptr ? base_->states.size() : 0) > opts_.maxStates)
        throw Stop{outcome::Status::Unknown, fmt::format("more than {} distinct final states", opts_.maxStates)};
      ++st.executions;
      const size_t flagsBefore = st.flags.size();
      concrete::addExecutionFlags(st, o, *sk_, undefined);
      // The witness of a state is its first execution, or the first that raises a flag the state did not
      // have yet (so that every flag of the state has its finding in the witness).
      if (opts_.witnesses && (fresh || st.flags.size() > flagsBefore)) {
        cat::RunOptions ro;
        ro.collectShows = true;
        auto shown = interp_.run(*alg_, ro, &cache_);
        std::vector<concrete::Shown> shows;
        if (!shown.outcomes.empty()) shows = concrete::shownRelations(shown.outcomes.front());
        outcome::replaceWitness(st, concrete::makeWitness(*sk_, d, readVals_, ev_, shows));
      }
    }
  }

  const events::EventProgram& prog_;
  const outcome::StateSpec& spec_;
  const EnumOptions& opts_;
  cat::Interpreter<cat::BitAlgebra> interp_;
  cat::Interpreter<cat::MonotoneAlgebra> pinterp_;  // the model on partial executions
  cat::Interpreter<cat::IntervalAlgebra> iinterp_;  // bounds of the model's values (possibleFlags)
  concrete::Evaluator ev_;
  concrete::Evaluator fev_;  // sourcesLeft's evaluator (ev_ keeps the node's values)
  Clock::time_point t0_;
  const std::atomic<bool>* stopAll_;  // set when another thread of the run stopped (runPathChoices)
  const Inherited* base_ = nullptr;   // what the current path choice starts from (runChoiceFrom)
  size_t statesFound_ = 0;            // states the current path choice recorded fresh (not inherited)
  bool useSc_ = false;
  std::vector<int64_t> guessDomain_;
  uint64_t candidates_ = 0;   // complete executions evaluated
  uint64_t nodes_ = 0;        // partial executions checked
  bool leafAllowed_ = false;  // the complete candidate evaluated last had an allowed outcome
  // Counts for PTXMM_ENUM_STATS (docs/performance.md).
  uint64_t skeletons_ = 0, maxSkeletonNodes_ = 0, coreEvals_ = 0, abandoned_ = 0, leftOut_ = 0, flagBounds_ = 0;
  size_t maxSkeletonEvents_ = 0;
  bool statsPerChoice_ =
      std::getenv("PTXMM_ENUM_STATS") != nullptr && std::string(std::getenv("PTXMM_ENUM_STATS")) == "2";
  std::vector<uint64_t> pairHits_;  // per pair of locations (a * nLocs_ + b, a < b): failed nodes they explain
  static constexpr size_t kProjectionPairs = 8;        // new pairs refutedAlone tries each time
  std::vector<std::pair<size_t, size_t>> projTried_;   // the groups refutedAlone searched in this path choice
  uint64_t projSpent_ = 0;                             // their search nodes
  bool projecting_ = false;                            // refutedAlone's search: one or two locations' decisions only
  static constexpr uint64_t kProjectionBudget = 1000;  // search nodes per location or pair (refutedAlone)
  static constexpr uint64_t kProjectionTotal = 16 * kProjectionBudget;  // per path choice (refutedAlone)
  uint64_t projNodes_ = 0;                                              // search nodes refutedAlone spent
  uint64_t projRefuted_ = 0;                                            // path choices refutedAlone refuted
  bool prune_ = true;        // partial executions are checked against the model (MonotoneAlgebra)
  bool byState_;             // the ByState order is tried first (until it is abandoned once in this test)
  bool byStateTry_ = false;  // the current search is in the ByState order
  uint64_t explainEvals_ = 0, jumps_ = 0, replayed_ = 0;
  // Per model check (cat::Interpreter::checks()): how often it failed a partial execution, and the rank
  // modelOpen evaluates it at (most failures first, recomputed every 256 runs).
  std::vector<uint64_t> checkFails_;
  std::vector<uint32_t> checkRank_;
  uint64_t openRuns_ = 0;
  size_t lastFailed_ = SIZE_MAX;      // the check the last failing modelOpen run stopped at
  std::vector<uint32_t> onlyFailed_;  // explainClosed's ranks: that check alone
  std::vector<uint32_t> flagsOnly_;   // possibleFlags' ranks: every plain check skipped
  std::map<std::string, outcome::StateResult> states_;

  // Per skeleton.
  const events::Skeleton* sk_ = nullptr;
  size_t n_ = 0;
  size_t nLocs_ = 0;
  BitSet allLocs_;                                     // every location: the reasons of a subtree not known to fail
  std::vector<size_t> decisionLocs_;                   // the locations of the decisions on the current search path
  std::vector<NoGood> noGoods_;                        // of the path choice
  std::vector<std::vector<uint32_t>> noGoodsByEvent_;  // per event: the no-goods with an rf pair into it or a
                                                       // co pair from it
  std::array<int, 2> decided_{-1, -1};                 // the events of the last decision (matchNoGood)
  size_t noGoodPairs_ = 0;                             // pairs held by noGoods_ (bounded: kNoGoodPairs)
  static constexpr size_t kNoGoodPairs = size_t{1} << 22;
  static constexpr size_t kNoGoodScan = 256;  // no-goods of an event matchNoGood tries
  uint64_t noGoodHits_ = 0;
  std::vector<BitSet> lastWhy_;  // per location: the last explainClosed result for it
  std::optional<cat::BitAlgebra> alg_;
  cat::RunCache<cat::BitAlgebra> cache_;                 // the model's static definitions, for this skeleton
  std::vector<std::vector<std::vector<int>>> dynReads_;  // per dynamic set and member: its condition's reads
  bool valueSets_ = false;  // the skeleton has value-dependent set members (Skeleton::dynamicSets)
  std::vector<int> reads_;
  std::vector<std::vector<int>> sources_;
  std::vector<int> readIndex_;               // compact index -> index in reads_ (-1: not a read)
  std::vector<std::vector<int>> writeDeps_;  // per write: indices in reads_ of the reads its value uses
  std::vector<std::vector<int>> order_;      // per location: co order of the writes placed so far (init excluded)
  std::vector<char> placed_;                 // per event: a write placed in its location's co order
  std::vector<char> rmwPaired_;              // per read (index in reads_): decided with its RMW's write
  std::vector<char> blocked_;                // per read (index in reads_): a blocked wait (Skeleton::readsFinal)
  uint64_t attemptNodes_ = 0, attemptCandidates_ = 0, attemptLimit_ = 0;  // the current decision order's try
  uint64_t attemptDepth_ = 0, attemptDepthAt_ = 0;  // its deepest decision so far, and the node that reached it
  Order attemptOrder_ = Order::ByState;
  size_t attemptModelRuns_ = 0;  // viable()'s model runs in the current try (its index into replay_)
  // Per decision order: what viable()'s model runs gave (open, or the explanation of the failure), in the
  // order of the tries in that order in this path choice.
  std::array<std::vector<std::pair<bool, BitSet>>, static_cast<size_t>(Order::ByDepth) + 1> replay_;
  std::vector<int> rmwRead_;                  // per write: index in reads_ of its RMW's read (decided with it), or -1
  std::vector<int> scItems_;                  // sorted
  std::vector<std::vector<int>> guardReads_;  // per guard of sk_: the reads (indices in reads_) it uses
  std::vector<std::vector<size_t>> readGuards_;  // per read (index in reads_): the guards that use it
  std::vector<char> stepDone_;                   // per step of steps_: taken on the current search path
  std::vector<char> forced_;           // per depth of the current search path: its decision had one alternative
  bool forcedPick_ = false;            // pickStep's last pick was a read with one source left
  uint64_t forcedSkipped_ = 0;         // model runs left out after such a decision (EnumOptions::skipForcedChecks)
  std::vector<char> nodeKnown_;        // per read: value resolved at the current search node
  std::vector<char> stateRead_;        // per read: its value is part of the final state
  std::vector<size_t> stateLocs_;      // the locations the final state names
  bool leaveOut_ = false;              // partial candidates of a recorded state are left out (recordedState)
  std::vector<std::string> required_;  // the flags an execution of this path choice may raise (pathFlags)
  bool requiredKnown_ = false;         // pathFlags has computed required_
  // One decision of the search: the place of a write in co, the source of a read, or the sc order.
  struct Step {
    enum Kind { Append, Rf, Sc } kind;
    size_t index;  ///< Rf: the read (index in reads_)
    size_t loc;    ///< Append, Rf: the location
  };
  std::vector<Step> steps_;
  std::optional<cat::MonotoneAlgebra> palg_;  // the model on partial executions
  std::optional<cat::IntervalAlgebra> ialg_;  // the flags completions may raise (possibleFlags)
  cat::RunCache<cat::IntervalAlgebra> icache_;
  // possibleFlags' model part by its inputs (boundKey), per path choice.
  struct ModelBound {
    bool evaluated = false;
    std::vector<std::string> flags;
    std::optional<BoundInputs> inputs;  // EnumOptions::checkReusedFlagBounds
  };
  struct KeyHash {
    size_t operator()(const std::vector<uint64_t>& k) const {
      return std::hash<std::string_view>{}(
          std::string_view(reinterpret_cast<const char*>(k.data()), k.size() * sizeof(uint64_t)));
    }
  };
  std::unordered_map<std::vector<uint64_t>, ModelBound, KeyHash> bounds_;
  static constexpr size_t kMaxBounds = 4096;  // bounds kept per path choice
  uint64_t boundsReused_ = 0;                 // possibleFlags answered from bounds_
  cat::RunCache<cat::MonotoneAlgebra> pcache_;
  // Per candidate.
  std::vector<int> src_;
  std::vector<int64_t> readVals_;
  BitMatrix rf_, co_;  // the decisions taken so far
  BitMatrix initCo_;   // the co pairs of the init writes
  BitMatrix coBase_;   // the co pairs every search of the path choice starts with (initCo_, maybe more)
  std::unordered_map<uint64_t, bool> cores_;  // per skeleton: whether a core (coreDead) fails for good
  std::unordered_set<uint64_t> openCores_;    // per test: cores (by event ids) found open in a path choice
  uint64_t coresShared_ = 0;
  std::vector<char> known_;                      // reads resolved without guessing
  bool solved_ = false;                          // solutions_ computed for this candidate
  std::vector<std::vector<int64_t>> solutions_;  // read values (by EventId) of the consistent solutions
};

// Adds what a path choice found (runChoiceFrom) to what the path choices before it found, as an execution
// is recorded (Enumerator::recordSolution): a new state as it is; for a state recorded before, its
// executions, and its flags with the witness that raised the new ones.
void mergeFound(Inherited& into, Found&& f) {
  for (auto& [key, st] : f.states) {
    auto [it, inserted] = into.states.try_emplace(key);
    if (inserted) {
      it->second = std::move(st);
      continue;
    }
    outcome::StateResult& to = it->second;
    to.executions += st.executions;
    const bool more =
        std::any_of(st.flags.begin(), st.flags.end(), [&](const std::string& x) { return to.flags.count(x) == 0; });
    if (!more) continue;
    to.flags.insert(st.flags.begin(), st.flags.end());
    for (auto& [check, w] : st.flagWitness) to.flagWitness.try_emplace(check, std::move(w));
    if (st.witness) outcome::replaceWitness(to, std::move(*st.witness));
  }
  into.openCores.insert(f.openCores.begin(), f.openCores.end());
  into.byState = into.byState && f.byState;
  if (into.checkFails.size() < f.checkFails.size()) into.checkFails.resize(f.checkFails.size(), 0);
  for (size_t c = 0; c < f.checkFails.size(); ++c) into.checkFails[c] += f.checkFails[c];
  into.openRuns += f.openRuns;
}

// The path choices, on `threads` threads (docs/design.md "Path choices in batches"): in batches of 1, 2,
// 4, ... up to kBatch path choices, each path choice searched by one thread's Enumerator from what the
// batches before found (Inherited), the largest (most events) first; what they found is merged in
// path-choice order after the batch. The result, witnesses included, is the same whatever the number of
// threads and their timing.
outcome::EngineResult runPathChoices(const events::EventProgram& program, const cat::Model& model,
                                     const outcome::StateSpec& spec, const EnumOptions& options, int threads) {
  constexpr size_t kBatch = 1024;
  size_t batchSize = 1;  // doubles after each batch, up to kBatch
  const auto t0 = Clock::now();
  std::atomic<bool> stopAll{false};
  Budget* budget = currentBudget();  // shared: its counts are atomic
  std::vector<std::unique_ptr<Enumerator>> workers(static_cast<size_t>(threads));
  Inherited done;
  done.byState = !options.countExecutions;
  std::vector<std::vector<int>> batch;
  auto flush = [&] {
    std::vector<size_t> order(batch.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<size_t> weight(batch.size(), 0);
    for (size_t i = 0; i < batch.size(); ++i)
      for (size_t t = 0; t < batch[i].size(); ++t)
        weight[i] += program.paths[t][static_cast<size_t>(batch[i][t])].events.size();
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return weight[a] > weight[b]; });
    std::vector<Found> found(batch.size());
    // The first failure is the run's (a timeout, a limit, bad input); the threads it stops then throw too,
    // after it is kept.
    std::mutex firstMu;
    std::exception_ptr first;
    try {
      parallelFor(batch.size(), threads, [&](size_t j, int w) {
        std::optional<BudgetScope> scope;
        if (budget != nullptr && currentBudget() != budget) scope.emplace(*budget);
        try {
          auto& e = workers[static_cast<size_t>(w)];
          if (!e) e = std::make_unique<Enumerator>(program, model, spec, options, t0, &stopAll);
          found[order[j]] = e->runChoiceFrom(batch[order[j]], done);
        } catch (...) {
          {
            std::lock_guard lock(firstMu);
            if (!first) first = std::current_exception();
          }
          stopAll = true;
          throw;
        }
      });
    } catch (...) {
      if (first) std::rethrow_exception(first);
      throw;
    }
    for (Found& f : found) mergeFound(done, std::move(f));
    if (options.maxStates && done.states.size() > options.maxStates)
      throw Stop{outcome::Status::Unknown, fmt::format("more than {} distinct final states", options.maxStates)};
    // The checks' rank from their failures so far (Enumerator::modelOpen), for the next batch.
    done.checkRank = rankByFails(done.checkFails);
    batch.clear();
    batchSize = std::min(kBatch, batchSize * 2);
  };
  outcome::EngineResult res;
  auto candidates = [&] {
    uint64_t n = 0;
    for (const auto& e : workers) n += e ? e->candidates() : 0;
    return n;
  };
  try {
    events::forEachPathChoice(program, [&](const std::vector<int>& choice) {
      batch.push_back(choice);
      if (batch.size() == batchSize) flush();
      return true;
    });
    flush();
  } catch (const Stop& s) {
    res.status = s.status;
    res.message = s.why;
  } catch (const BudgetExceeded& e) {
    res.status = outcome::budgetStatus(e);
    res.message = fmt::format("{} ({} candidates examined)", e.what(), candidates());
  }
  for (auto& [key, st] : done.states) {
    if (!options.countExecutions) st.executions = 1;
    res.states.push_back(std::move(st));
  }
  res.countsAreExecutions = options.countExecutions;
  res.candidates = candidates();
  for (size_t w = 0; w < workers.size(); ++w)
    if (workers[w]) workers[w]->printStats(res.states.size(), fmt::format(" (thread {})", w));
  return res;
}

}  // namespace

outcome::EngineResult runEnum(const events::EventProgram& program, const cat::Model& model,
                              const outcome::StateSpec& spec, const EnumOptions& options) {
  try {
    return runPathChoices(program, model, spec, options,
                          workerCount(events::countPathChoices(program), options.threads));
  } catch (const DiagnosticError& e) {
    outcome::EngineResult r;
    r.status = outcome::Status::Error;
    r.message = e.what();
    return r;
  }
}

}  // namespace ptxmm::enumeration
