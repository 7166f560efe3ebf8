// The generic machinery of the event lowering, internal to events/ (docs/lowering.md "Where an
// instruction lives"): the location layout (lower/Layout.cpp), operand evaluation, event creation and
// the async / barrier bookkeeping (lower/Lowerer.cpp), path exploration, loops and execution-barrier
// blocking (lower/Paths.cpp). What each instruction means is in the family files lower/<Family>.cpp
// (one per group of families of ptx/PtxOps.def's family column, as ptxgen/emit/ is): each family F
// defines
//   Flow lowerF(Lowerer&, PathState&, const Instr&, Work&)   the instruction's events on one path;
//   int mbarrierOperandF(const Instr&)                        the operand naming the mbarrier the
//                                                             instruction uses (-1: none), for the layout.
// Lower.cpp dispatches an OpId to its family with switches generated from PtxOps.def (no `default:`;
// events compiles with -Werror=switch); each family routes its ops through a table of OpLowering whose
// coverage of the family's rows is a static_assert.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "events/Builtins.hpp"
#include "events/Lower.hpp"
#include "ptx/Ops.hpp"

namespace ptxmm::events::lowering {

using litmus::Instr;
using litmus::LocRef;
using litmus::Operand;
using ptx::OpId;
using ptx::Proxy;
using ptx::Scope;
using ptx::Sem;
using ptx::Space;

// ---------------------------------------------------------------------------------------------------
// Tags
// ---------------------------------------------------------------------------------------------------

/// Adds built-in tag `t` to `e` (once).
void addTag(Event& e, Builtin t);
/// The tag of an access through proxy `p`.
[[nodiscard]] Builtin proxyTag(Proxy p);
/// The semantics and scope tags of `e`.
void addSemTags(Event& e);
/// ".rel.gpu"-style label text.
[[nodiscard]] std::string semLabel(Sem s, Scope sc);
[[nodiscard]] bool isStrongSem(Sem s);

// ---------------------------------------------------------------------------------------------------
// Per-path interpreter state
// ---------------------------------------------------------------------------------------------------

struct PathState {
  size_t pc = 0;
  std::map<std::string, ExprId> regs;
  std::map<std::string, LocRef> addrRegs;  // registers holding a location's address (static)
  std::vector<ExprId> guards;
  std::vector<EventId> events;       // real-thread events in program order
  std::vector<EventId> asyncEvents;  // events of async ops issued on this path
  std::vector<EventId> ctrlReads;    // reads the path's control flow so far depends on
  std::map<size_t, int> backCount;   // backward branch statement -> times taken
  std::map<int, BarrierUse> barUse;  // execution barrier index -> what the path did there
  int clusterArriveGen = 0;
  int clusterWaitGen = 0;
  std::vector<int> cpUncommitted;          // async op ids
  std::vector<std::vector<int>> cpGroups;  // committed, not yet waited
  std::vector<int> cpAll;                  // every cp.async issued (for cp.async.mbarrier.arrive)
  std::vector<int> bulkUncommitted;        // async instance ids
  std::vector<std::vector<int>> bulkGroups;
  // Tensor cores (lower/Wgmma.cpp, lower/Tcgen05.cpp).
  bool wgmmaFenced = false;                   // a wgmma.fence was executed on this path
  std::set<std::string> regsSinceWgmmaFence;  // registers written since the last wgmma.fence
  std::map<std::string, int> wgmmaPending;    // accumulator register -> its wgmma async op, until waited for
  std::vector<int> wgmmaUncommitted;          // async op ids
  std::vector<std::vector<int>> wgmmaGroups;  // committed, not yet waited
  std::vector<int> tcMbarOps;                 // tcgen05.mma / .cp async ops issued (tracked by tcgen05.commit)
  std::vector<int> tcLdOps, tcStOps;          // tcgen05.ld / .st async ops not yet waited for
  std::vector<ExprId> observedResponses;      // values of try_cancel responses read so far
  std::vector<std::pair<ExprId, std::string>> undefinedIf;
  std::vector<EventId> readsFinal;
  std::map<ExprId, bool> known;  // truth of conditions already decided on this path
  int steps = 0;
  std::vector<uint32_t> trace;  // statements executed on this path, in order (for spin iterations)
  /// Backward branch statement -> where the iteration it last started began (liveness, docs/lowering.md
  /// "Loops and liveness").
  struct IterMark {
    size_t events = 0, asyncEvents = 0, trace = 0;
  };
  std::map<size_t, IterMark> iterStart;
};

/// A resolved memory operand.
struct Access {
  int loc = -1;
  int vaddr = -1;
  Proxy vproxy = Proxy::Generic;
  Space space = Space::Generic;  // effective state space of the access
  bool shared = false;
  int cta = -1;  // owner CTA of a shared location
};

struct SyncRecord {
  EventId ev;
  int thread;
  int group;   // CTA (bar) or cluster (cluster barrier)
  int64_t id;  // barrier id (bar) or 0
  int gen;
  bool isSync;         // bar.sync / cluster wait
  int count = -1;      // thread count of a named-barrier use (-1: all participants)
  int barrier = -1;    // index into EventProgram::barriers
  bool orders = true;  // pairs of this barrier's records are in bar-sync (not elect.sync, griddepcontrol.wait)
};

/// The EXIT event of a path that ends normally, with its arrivals per execution barrier.
struct ExitRecord {
  EventId ev;
  int thread;
  std::map<int, int> arrived;  // execution barrier index -> arrivals of the path
};

/// An async instruction instance (one or more AsyncOps).
struct Instance {
  EventId marker = -1;
  int sourceOp = -1;  // op whose events precede all other ops' events (multicast / try_cancel source)
  std::vector<int> ops;
};

/// How a path goes on after an instruction.
enum class Flow { Next, Jumped, Ended, Cut, Blocked };

/// The paths still to explore (DFS stack of the thread being lowered).
using Work = std::vector<PathState>;

/// The lowering of one test. Its members are public: the family files (lower/<Family>.cpp) are its other
/// half and use them directly.
class Lowerer {
 public:
  Lowerer(const litmus::Test& test, const LowerOptions& opt) : test_(test), opt_(opt) {
    prog_.test = &test;
    prog_.unrollBound = opt.unroll;
  }

  const litmus::Test& test_;
  LowerOptions opt_;
  EventProgram prog_;

  std::vector<int> ctas_;  // sorted CTA ids of the test
  std::map<int, litmus::Placement> ctaPlace_;
  std::map<std::string, const litmus::LocationDecl*> decls_;
  std::map<std::pair<std::string, int>, int> locIndex_;    // (decl name, cta or -1) -> loc
  std::map<std::pair<std::string, int>, int> vaddrIndex_;  // (accessed name, cta or -1) -> vaddr
  int clcQueue_ = -1;
  std::set<int> responseLocs_;
  std::map<std::string, std::set<std::pair<EventId, EventId>>> rels_;
  std::vector<SyncRecord> bars_, clusterArrives_, clusterWaits_;
  std::vector<ExitRecord> exits_;
  std::vector<EventId> gridLaunches_;  // griddepcontrol.launch_dependents of the primary grid (grid-start)
  bool hasExecBarriers_ = false;       // the test uses bar.sync/bar.arrive/barrier.cluster: paths end with EXIT
  std::vector<Instance> instances_;
  std::map<std::tuple<bool, int, int64_t>, int> barrierIndex_;  // (cluster?, CTA/cluster, id) -> barrier
  std::map<std::string, int> namedBarrierIndex_;                // barrierNamed: name -> barrier
  std::vector<std::vector<Path>> barrierCandidates_;            // per thread: paths blocked at a barrier wait (maybe)
  int curThread_ = -1;
  std::map<std::string, int> labels_;

  /// Litmus thread t.
  const litmus::Thread& thread(int t) const { return test_.threads[static_cast<size_t>(t)]; }
  /// The pairs of program relation `r` found so far.
  std::set<std::pair<EventId, EventId>>& rel(Builtin r) { return rels_[std::string(builtinName(r))]; }

  /// Lowers the whole test.
  EventProgram run();
  /// Runs one instruction on a path (Lower.cpp: to its family's lowerF).
  Flow step(PathState& st, const Instr& in, Work& work);
  /// The mbarrier operand of `in` (Lower.cpp: its family's mbarrierOperandF), -1 if none.
  static int mbarOperandIndex(const Instr& in);
  /// Throws a DiagnosticError at `at`.
  [[noreturn]] void fail(const SourceLoc& at, const std::string& msg) const;
  /// Throws why the lowering has no rule for `in`.
  void unsupported(const Instr& in, const std::string& why) const;

  // ----- location layout (Layout.cpp) -----------------------------------------------------------------

  void collectCtas();
  void noteCta(int c);
  std::vector<int> ctasOfCluster(int cluster) const;
  int clusterRank(int cta) const;
  bool perCta(const litmus::LocationDecl& d) const { return d.space != Space::Global && d.ownerCta < 0; }
  void buildLocations();
  bool declaredMbarrier(int loc) const;
  static bool isAddrLike(const Operand& o) { return o.kind == Operand::Kind::Addr || o.kind == Operand::Kind::Loc; }
  /// Index of the first / n-th memory operand of `in`, -1 if none.
  static int firstAddr(const Instr& in) { return nthAddr(in, 0); }
  static int nthAddr(const Instr& in, int n);
  // All locations an operand may name (prescan: per-CTA name without @cta in a multicast names every copy).
  std::vector<int> prescanLocs(int t, const Operand& o, bool allCopies);
  const litmus::LocationDecl* aliasTarget(const litmus::LocationDecl& d) const;
  void buildInitWrites();
  int vaddrOfLoc(int l) const;
  /// Resolve a memory operand for thread t. `space` is the instruction's state space for this operand.
  Access resolve(PathState& st, const Operand& o, Space space, const Instr& in);
  Access resolveRef(const LocRef& ref, Space space, const SourceLoc& at);
  /// wgmma / tcgen05: the shared location that matrix-descriptor operand `i` (`what`) names — a register
  /// holding the address of a `.shared` location of the executing CTA (not an mbarrier, not tensor memory).
  Access matrixOperand(PathState& st, const Instr& in, size_t i, const char* what);
  std::string locName(int l) const { return prog_.locations[static_cast<size_t>(l)].name; }
  std::string vName(int v) const { return prog_.vaddrs[static_cast<size_t>(v)].name; }
  /// The expected arrival count of mbarrier location `loc` (docs/lowering.md "Locations and addresses").
  int expectedCount(int loc) const { return prog_.locations[static_cast<size_t>(loc)].mbarCount; }

  // ----- operands (Lowerer.cpp) -----------------------------------------------------------------------

  /// Operand `i` of `in`; throws naming `what` if it is missing.
  const Operand& operand(const Instr& in, size_t i, const char* what) const;
  int64_t specialValue(int t, const Operand& o) const;
  /// The value of a source operand on this path.
  ExprId value(PathState& st, const Operand& o);
  /// The value of `v` on this path among lo..hi (`is(k)`: the condition "v reads as k"): a constant is
  /// taken as is; otherwise the path forks (the alternative re-executes the instruction knowing
  /// `is(k)` false). nullopt: v is none of them on this path.
  template <class Is>
  std::optional<int64_t> pickValue(PathState& st, ExprId v, Work& work, Is is, int64_t lo, int64_t hi) {
    if (prog_.exprs.isConst(v)) {
      for (int64_t k = lo; k <= hi; ++k)
        if (prog_.exprs.node(is(k)).value != 0) return k;
      return std::nullopt;
    }
    for (int64_t k = lo; k <= hi; ++k)
      if (decide(st, is(k), work, [](PathState&) {})) return k;
    return std::nullopt;
  }
  /// Writes destination operand `d` (a register, a vector's first element, or the sink).
  void setReg(PathState& st, const Operand& d, ExprId v);
  /// Undefined behaviour if register `r` is the accumulator of a wgmma.mma_async not yet waited for.
  void wgmmaRegisterAccess(PathState& st, const Operand& r, const char* how);

  // ----- events (Lowerer.cpp) -------------------------------------------------------------------------

  /// Adds an event to the program (SizeLimit past LowerOptions::maxEvents).
  EventId push(Event e);
  Event memEvent(EventType type, const Instr& in, const Access& a, Proxy opProxy, Sem sem, Scope scope);
  Event fenceEvent(const Instr& in, Sem sem, Scope scope);
  /// Adds a real-thread event at the end of the path (ctrl edges from the path's control reads).
  EventId emit(PathState& st, Event e);
  /// data edges into `w` from the program-order reads its value depends on (except `except`).
  void dataDeps(EventId w, ExprId v, EventId except = -1);
  /// Read + Write linked by rmw; returns {read, write}. `next(old)` gives the written value.
  template <class F>
  std::pair<EventId, EventId> emitRmw(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem,
                                      Scope scope, const std::vector<Builtin>& tags, const std::string& what, F next,
                                      int asyncOp = -1) {
    Event r = memEvent(EventType::Read, in, a, proxy, sem, scope);
    Event w = memEvent(EventType::Write, in, a, proxy, sem, scope);
    for (const auto& t : tags) {
      addTag(r, t);
      addTag(w, t);
    }
    addTag(r, Builtin::RMW);
    addTag(w, Builtin::RMW);
    EventId rid, wid;
    if (asyncOp < 0) {
      rid = emit(st, std::move(r));
    } else {
      rid = emitAsync(st, asyncOp, std::move(r));
    }
    ExprId old = prog_.exprs.readVal(rid);
    prog_.events[static_cast<size_t>(rid)].value = old;
    ExprId nv = next(old);
    w.value = nv;
    if (asyncOp < 0) {
      wid = emit(st, std::move(w));
      dataDeps(wid, nv, rid);
    } else {
      wid = emitAsync(st, asyncOp, std::move(w));
    }
    std::string sl = semLabel(sem, scope);
    prog_.events[static_cast<size_t>(rid)].label = fmt::format("R{}{} {}", what, sl, vName(a.vaddr));
    prog_.events[static_cast<size_t>(wid)].label =
        fmt::format("W{}{} {}={}", what, sl, vName(a.vaddr), prog_.exprs.str(nv));
    rel(Builtin::rmw).insert({rid, wid});
    // Dynamic tag MB_PHASE_DONE (docs/lowering.md "Dynamic tags"): an mbarrier arrive / expect_tx /
    // complete_tx / increment write completes a phase iff the phase it writes differs from the one it read.
    if (std::any_of(tags.begin(), tags.end(), [](Builtin t) {
          return t == Builtin::MB_ARRIVE || t == Builtin::MB_EXPECT_TX || t == Builtin::MB_COMPLETE_TX ||
                 t == Builtin::MB_INC;
        }))
      prog_.events[static_cast<size_t>(wid)].dynamicTags.push_back(
          {std::string(builtinName(Builtin::MB_PHASE_DONE)),
           prog_.exprs.make(ExprOp::Ne,
                            {prog_.exprs.make(ExprOp::MbPhase, {nv}), prog_.exprs.make(ExprOp::MbPhase, {old})})});
    return {rid, wid};
  }
  EventId emitRead(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem, Scope scope,
                   const std::string& what = "");
  EventId emitWrite(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem, Scope scope, ExprId v,
                    const std::string& what = "");
  EventId emitFence(PathState& st, Event f, const std::string& label);

  // ----- asynchronous operations (Lowerer.cpp) --------------------------------------------------------

  /// The ISSUE marker of an async instruction, tagged `familyTag`.
  EventId emitMarker(PathState& st, const Instr& in, Builtin familyTag);
  int newInstance(EventId marker);
  /// A new async pseudo-thread of `instance`, placed in CTA `placeCta`.
  int newAsyncOp(int instance, OpId op, int placeCta, const char* suffix = "");
  EventId emitAsync(PathState& st, int op, Event e);
  EventId asyncRead(PathState& st, int op, const Instr& in, const Access& a, Proxy p, Sem sem, Scope sc, Builtin fam);
  EventId asyncWrite(PathState& st, int op, const Instr& in, const Access& a, Proxy p, Sem sem, Scope sc, ExprId v,
                     Builtin fam);
  EventId implicitProxyFence(PathState& st, int op, const Instr& in, Builtin fam);
  /// complete-tx RMW of an async op on an mbarrier (generic proxy, .release.cluster).
  std::pair<EventId, EventId> asyncCompleteTx(PathState& st, int op, const Instr& in, const Access& bar, ExprId bytes,
                                              Builtin fam);
  /// async-complete edges from the events of async op `op` (its reads only if `readsOnly`) to `waiter`.
  void asyncComplete(int op, EventId waiter, bool readsOnly);
  void finishAsyncRelations();

  // ----- tensor maps (Layout.cpp; docs/lowering.md "Tensor maps") -------------------------------------

  /// The tensor-map operand `i` of `in` (`[tensorMap, {coords}]`): a global location.
  Access tensorMapAccess(PathState& st, const Instr& in, size_t i);
  /// The tensor that the map named by operand `i` of `in` locates: the global location `<map>_tensor`.
  Access tensorOfMap(const Instr& in, size_t i);

  // ----- paths (Paths.cpp) ----------------------------------------------------------------------------

  void lowerThread(int t);
  void runPath(PathState& st, Work& work);
  void addGuard(PathState& st, ExprId g);
  /// Later events of the path are control-dependent on the reads `g` depends on.
  void addCtrlReads(PathState& st, ExprId g);
  /// Decide `cond`: returns +1 (true on this path), 0 (false on this path). A symbolic condition forks: the
  /// current path takes it as true, a copy (pushed to `work`) takes it as false with `onFalse` applied.
  template <class F>
  bool decide(PathState& st, ExprId cond, Work& work, F onFalse) {
    if (prog_.exprs.isConst(cond)) return prog_.exprs.node(cond).value != 0;
    if (auto k = known(st, cond)) return *k;  // decided earlier on this path (e.g. @p then @!p)
    PathState other = st;
    addGuard(other, prog_.exprs.make(ExprOp::LNot, {cond}));
    assume(other, cond, false);
    onFalse(other);
    assume(st, cond, true);
    pushWork(work, std::move(other));
    addGuard(st, isBoolean(cond) ? cond : prog_.exprs.make(ExprOp::Ne, {cond, prog_.exprs.constant(0)}));
    return true;
  }
  static std::optional<bool> knownIn(const PathState& st, ExprId c) {
    auto it = st.known.find(c);
    if (it == st.known.end()) return std::nullopt;
    return it->second;
  }
  std::optional<bool> known(const PathState& st, ExprId c) const;
  void assume(PathState& st, ExprId c, bool v) const;
  bool isBoolean(ExprId x) const;
  void pushWork(Work& work, PathState st);
  void checkPathLimit(int t, size_t extra) const;
  /// The path of state `st` ending now with `end` (adds its po pairs).
  Path makePath(const PathState& st, PathEnd end);
  void finishPath(PathState& st, PathEnd end);
  /// The statement of label operand `o`.
  int labelTarget(const Operand& o) const;
  /// Jump to statement `target` from statement `from`; returns false if the path is cut.
  bool jump(PathState& st, size_t from, int target);

  // ----- loops and liveness (Paths.cpp) ---------------------------------------------------------------

  /// The end of a path cut at the unroll bound (st.pc: the backward branch): a marker event tagged
  /// LOOP_CUT; when the iteration the branch would repeat is a spin iteration, also SPIN_CUT, with
  /// `spin-iter` edges to that iteration's reads (the model's fairness and livelock rules, docs/lowering.md
  /// "Loops and liveness"). Returns whether it is a spin iteration.
  bool emitLoopCut(PathState& st);
  /// Whether the iteration that began at `m` (and ends at the backward branch st.pc) is a spin iteration:
  /// it writes nothing, issues no async operation, uses no execution barrier, and reads no register before
  /// writing it that it also writes (so a repetition that reads the same values does the same thing).
  bool isSpinIteration(const PathState& st, const PathState::IterMark& m) const;

  // ----- execution barriers and thread exit (Paths.cpp) -----------------------------------------------

  /// The thread's exit at the end of a normally ending path (ret, exit, or the end of its code): an
  /// event without memory effect (tag EXIT, not in F) that later barrier generations wait for.
  void emitExit(PathState& st);
  /// The execution barrier (cluster barrier of `group`, or named barrier `id` of CTA `group`) used by
  /// `in`.
  int barrierOf(bool cluster, int group, int64_t id);
  /// The execution barrier named `name` (warp barriers, elect.sync, griddepcontrol.wait) of `kind`, with
  /// `participants` (created on first use).
  int barrierNamed(BarrierKind kind, const std::string& name, int group, const std::vector<int>& participants);
  /// The litmus threads of thread t's warp (same CTA and `warp W`; a thread without a warp is alone in
  /// its own), in header order: a thread's lane is its position there (litmus/README.md "Warps").
  std::vector<int> warpThreads(int t) const;
  int laneOf(int t) const;
  BarrierUse& barrierUse(PathState& st, int b);
  /// The path waits at generation `gen` of barrier `b` (its wait event `e` is emitted): remember the
  /// alternative where it blocks there (materialised by addBarrierBlockedPaths), then let it pass.
  void waitAtBarrier(PathState& st, int b, int gen, EventId e);
  static const BarrierUse* useOf(const Path& p, int b) {
    for (const auto& u : p.barriers)
      if (u.barrier == b) return &u;
    return nullptr;
  }
  static int arrivals(const Path& p, int b) {
    const BarrierUse* u = useOf(p, b);
    return u ? u->arrived : 0;
  }
  /// Whether generation `gen` of barrier `b` may stay incomplete while thread `t` waits for it on path
  /// `waiting`: some participant may neither reach the generation nor exit (or, with a thread count,
  /// fewer threads than the count may reach it) on one of its paths known so far.
  bool mayStayIncomplete(int b, int gen, int t, const Path& waiting) const;
  /// Adds the paths blocked at a barrier wait whose generation may stay incomplete, to a fixpoint (a new
  /// blocked path is one more way for its thread not to arrive at later barriers).
  /// Greatest fixpoint: every candidate first (waits may stay incomplete because the other threads
  /// block too, e.g. two threads waiting on different barriers), then candidates whose generation
  /// completes whatever the other threads' paths are dropped until none changes. barriersConsistent
  /// then keeps exactly the consistent combinations.
  void addBarrierBlockedPaths();
  /// bar-sync, cluster-sync, exit-sync from the barrier uses of all paths; grid-start.
  void finishSyncRelations();
};

/// The value a PTX reduction `op` (.add .and .or .xor .min .max .inc .dec: atom, red, red.async,
/// cp.reduce.async.bulk) writes over `old` with operand `b` (PTX ISA 9.2 §9.7.13.5); "" if `op` is none of them.
[[nodiscard]] ExprId reductionNext(Lowerer& L, std::string_view op, ExprId old, ExprId b);
/// The reduction operation flag of `in` (.add .inc .dec .min .max .and .or .xor), "" if none.
[[nodiscard]] std::string reductionOp(const Instr& in);

// ---------------------------------------------------------------------------------------------------
// The families (one pair per PTX_FAMILY row of PtxOps.def, defined in lower/<file>.cpp)
// ---------------------------------------------------------------------------------------------------

#define PTX_FAMILY(Name, file, role, doc)                                   \
  Flow lower##Name(Lowerer& L, PathState& st, const Instr& in, Work& work); \
  int mbarrierOperand##Name(const Instr& in);
#include "ptx/PtxOps.def"
#undef PTX_FAMILY

// ---------------------------------------------------------------------------------------------------
// A family's table of lowerings
// ---------------------------------------------------------------------------------------------------

/// The lowering of one op in its family's table.
struct OpLowering {
  OpId op;
  Flow (*lower)(Lowerer& L, PathState& st, const Instr& in, Work& work);
};

/// True if `table` lists every row of `family` exactly once and no row of another family (ptx/Ops.hpp).
consteval bool coversFamily(std::span<const OpLowering> table, ptx::OpFamily family) {
  return ptx::coversFamily<OpLowering>(table, family);
}

/// Runs the lowering of `in.op` in `table` (a family's table, checked with coversFamily).
Flow lowerFrom(std::span<const OpLowering> table, Lowerer& L, PathState& st, const Instr& in, Work& work);

}  // namespace ptxmm::events::lowering
