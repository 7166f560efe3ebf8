#include "events/Lower.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "support/Budget.hpp"

namespace ptxmm::events {
namespace {

using litmus::Instr;
using litmus::LocRef;
using litmus::Operand;
using ptx::OpId;
using ptx::Proxy;
using ptx::Scope;
using ptx::Sem;
using ptx::Space;

constexpr int64_t kClcSuccessBase = 0x100000;
// Bytes of the box of a litmus cp.async.bulk.tensor (one 16-byte cell): its complete-tx count.
constexpr int64_t kTensorBoxBytes = 16;

// ---------------------------------------------------------------------------------------------------
// Tags
// ---------------------------------------------------------------------------------------------------

void addTag(Event& e, const std::string& t) {
  if (std::find(e.tags.begin(), e.tags.end(), t) == e.tags.end()) e.tags.push_back(t);
}

const char* proxyTag(Proxy p) {
  switch (p) {
    case Proxy::Generic: return "GEN";
    case Proxy::Async: return "ASYNC";
    case Proxy::Tensormap: return "TMAP";
    case Proxy::Surface: return "SUR";
    case Proxy::Texture: return "TEX";
    case Proxy::Constant: return "CON";
  }
  return "GEN";
}

void addSemTags(Event& e) {
  switch (e.sem) {
    case Sem::None: break;
    case Sem::Weak: addTag(e, "WEAK"); break;
    case Sem::Relaxed: addTag(e, "RLX"); break;
    case Sem::Acquire: addTag(e, "ACQ"); break;
    case Sem::Release: addTag(e, "REL"); break;
    case Sem::AcqRel: addTag(e, "ACQ_REL"); break;
    case Sem::Sc: addTag(e, "SC"); break;
    case Sem::Volatile: addTag(e, "VOL"); break;
    case Sem::Mmio:
      addTag(e, "RLX");
      addTag(e, "MMIO");
      break;
  }
  switch (e.scope) {
    case Scope::None: break;
    case Scope::Cta: addTag(e, "CTA"); break;
    case Scope::Cluster: addTag(e, "CLUSTER"); break;
    case Scope::Gpu: addTag(e, "GPU"); break;
    case Scope::Sys: addTag(e, "SYS"); break;
  }
}

std::string semLabel(Sem s, Scope sc) {
  std::string out;
  switch (s) {
    case Sem::None: break;
    case Sem::Weak: out = ".weak"; break;
    case Sem::Relaxed: out = ".rlx"; break;
    case Sem::Acquire: out = ".acq"; break;
    case Sem::Release: out = ".rel"; break;
    case Sem::AcqRel: out = ".acq_rel"; break;
    case Sem::Sc: out = ".sc"; break;
    case Sem::Volatile: out = ".vol"; break;
    case Sem::Mmio: out = ".mmio"; break;
  }
  if (sc != Scope::None) out += std::string(ptx::toString(sc)).insert(0, ".");
  return out;
}

bool isStrongSem(Sem s) { return s != Sem::None && s != Sem::Weak; }

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
  std::vector<ExprId> observedResponses;  // values of try_cancel responses read so far
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
  bool isSync;     // bar.sync / cluster wait
  int count = -1;  // thread count of a named-barrier use (-1: all participants)
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

class Lowerer {
 public:
  Lowerer(const litmus::Test& test, const LowerOptions& opt) : test_(test), opt_(opt) {
    prog_.test = &test;
    prog_.unrollBound = opt.unroll;
  }

  EventProgram run() {
    if (opt_.unroll < 0) throw DiagnosticError(SourceLoc{test_.file, 0, 0}, "--unroll must be >= 0");
    collectCtas();
    buildLocations();
    buildInitWrites();
    for (size_t t = 0; t < test_.threads.size(); ++t) {
      ThreadInfo ti;
      ti.name = test_.threads[t].name;
      ti.where = test_.threads[t].where;
      prog_.threads.push_back(ti);
    }
    prog_.paths.resize(test_.threads.size());
    barrierCandidates_.resize(test_.threads.size());
    for (const auto& th : test_.threads)
      for (const auto& stmt : th.code)
        if (stmt.instr && (stmt.instr->op == OpId::BarSync || stmt.instr->op == OpId::BarArrive ||
                           stmt.instr->op == OpId::BarrierClusterArrive || stmt.instr->op == OpId::BarrierClusterWait))
          hasExecBarriers_ = true;
    for (size_t t = 0; t < test_.threads.size(); ++t) lowerThread(static_cast<int>(t));
    addBarrierBlockedPaths();
    finishAsyncRelations();
    finishSyncRelations();
    for (auto& [name, pairs] : rels_) prog_.relations[name] = PairList(pairs.begin(), pairs.end());
    for (const char* r : {"po", "addr", "data", "ctrl", "rmw", "bar-sync", "cluster-sync", "exit-sync", "issue", "aso",
                          "async-complete", "same-async", "spin-iter"})
      prog_.relations[r];  // present even when empty
    return std::move(prog_);
  }

 private:
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
  bool hasExecBarriers_ = false;  // the test uses bar.sync/bar.arrive/barrier.cluster: paths end with EXIT
  std::vector<Instance> instances_;
  std::map<std::tuple<bool, int, int64_t>, int> barrierIndex_;  // (cluster?, CTA/cluster, id) -> barrier
  std::vector<std::vector<Path>> barrierCandidates_;            // per thread: paths blocked at a barrier wait (maybe)
  int curThread_ = -1;
  std::map<std::string, int> labels_;

  // ----- setup --------------------------------------------------------------------------------------

  const litmus::Thread& thread(int t) const { return test_.threads[static_cast<size_t>(t)]; }

  void noteCta(int c) {
    if (c >= 0 && !ctaPlace_.count(c)) {
      litmus::Placement p;
      p.cta = c;
      p.cluster = c;  // README: missing cluster = the cluster whose id equals the CTA id
      p.gpu = 0;
      ctaPlace_[c] = p;
    }
  }

  void collectCtas() {
    for (const auto& th : test_.threads)
      if (!ctaPlace_.count(th.where.cta)) ctaPlace_[th.where.cta] = th.where;
    for (const auto& d : test_.locations) noteCta(d.ownerCta);
    for (const auto& ri : test_.regInits)
      if (ri.addressOf) noteCta(ri.addressOf->cta);
    for (const auto& th : test_.threads)
      for (const auto& st : th.code)
        if (st.instr)
          for (const auto& op : st.instr->operands)
            if (op.kind == Operand::Kind::Addr || op.kind == Operand::Kind::Loc) noteCta(op.loc.cta);
    for (auto& [c, p] : ctaPlace_) ctas_.push_back(c);
  }

  std::vector<int> ctasOfCluster(int cluster) const {
    std::vector<int> out;
    for (int c : ctas_)
      if (ctaPlace_.at(c).cluster == cluster) out.push_back(c);
    return out;
  }

  int clusterRank(int cta) const {
    auto v = ctasOfCluster(ctaPlace_.at(cta).cluster);
    return static_cast<int>(std::find(v.begin(), v.end(), cta) - v.begin());
  }

  bool perCta(const litmus::LocationDecl& d) const { return d.space != Space::Global && d.ownerCta < 0; }

  void buildLocations() {
    for (const auto& d : test_.locations) {
      if (decls_.count(d.name)) throw DiagnosticError(d.src, fmt::format("location '{}' declared twice", d.name));
      decls_[d.name] = &d;
    }
    auto addLoc = [&](const litmus::LocationDecl& d, int cta) {
      Location l;
      l.name = cta >= 0 ? fmt::format("{}@cta{}", d.name, cta) : d.name;
      l.space = d.space == Space::Global ? Space::Global : Space::SharedCta;
      l.ownerCta = cta;
      l.init = d.init;
      l.isMbarrier = d.isMbarrier;
      l.mbarCount = d.mbarCount;
      if (d.isMbarrier) l.init = mbarrierState(0, d.mbarCount, 0);
      int id = static_cast<int>(prog_.locations.size());
      prog_.locations.push_back(l);
      locIndex_[{d.name, d.space == Space::Global ? -1 : cta}] = id;
      VirtualAddress va;
      va.name = l.name;
      va.loc = id;
      va.synonymOf = static_cast<int>(prog_.vaddrs.size());
      vaddrIndex_[{d.name, d.space == Space::Global ? -1 : cta}] = static_cast<int>(prog_.vaddrs.size());
      prog_.vaddrs.push_back(va);
    };
    for (const auto& d : test_.locations) {
      if (!d.aliasOf.empty()) continue;
      if (d.space == Space::Global)
        addLoc(d, -1);
      else if (d.ownerCta >= 0)
        addLoc(d, d.ownerCta);
      else
        for (int c : ctas_) addLoc(d, c);
    }
    for (const auto& d : test_.locations) {
      if (d.aliasOf.empty()) continue;
      const litmus::LocationDecl* target = aliasTarget(d);
      for (const auto& [key, id] : std::map(locIndex_)) {
        if (key.first != target->name) continue;
        VirtualAddress va;
        va.name = key.second >= 0 ? fmt::format("{}@cta{}", d.name, key.second) : d.name;
        va.loc = id;
        va.proxy = d.aliasProxy;
        vaddrIndex_[{d.name, key.second}] = static_cast<int>(prog_.vaddrs.size());
        prog_.vaddrs.push_back(va);
      }
    }
    // Synonym bases: a surface/texture/constant name is a synonym of the name it aliases, followed
    // through further non-generic names; a generic name (declared or generic alias) is its own base.
    for (const auto& d : test_.locations) {
      if (d.aliasOf.empty()) continue;
      const litmus::LocationDecl* base = &d;
      while (!base->aliasDirect.empty() && base->aliasProxy != Proxy::Generic) base = decls_.at(base->aliasDirect);
      for (const auto& [key, va] : vaddrIndex_)
        if (key.first == d.name)
          prog_.vaddrs[static_cast<size_t>(va)].synonymOf = vaddrIndex_.at({base->name, key.second});
    }
    // mbarrier.init on undeclared-mbarrier locations, try_cancel responses, the hidden queue.
    for (size_t t = 0; t < test_.threads.size(); ++t) {
      for (const auto& st : thread(static_cast<int>(t)).code) {
        if (!st.instr) continue;
        const Instr& in = *st.instr;
        auto info = ptx::opInfo(in.op);
        if (info.family == ptx::OpFamily::Mbarrier || in.op == OpId::CpAsyncBulk || in.op == OpId::CpAsyncBulkTensor ||
            in.op == OpId::ClcTryCancel) {
          int mbarIdx = mbarOperandIndex(in);
          if (mbarIdx >= 0 && static_cast<size_t>(mbarIdx) < in.operands.size()) {
            bool all = in.hasFlag("multicast::cluster") || in.hasFlag("multicast::cluster::all");
            for (int l : prescanLocs(static_cast<int>(t), in.operands[static_cast<size_t>(mbarIdx)], all)) {
              auto& L = prog_.locations[static_cast<size_t>(l)];
              L.isMbarrier = true;
              if (in.op == OpId::MbarrierInit && in.operands.size() > 1 && in.operands[1].kind == Operand::Kind::Imm &&
                  !declaredMbarrier(l))
                L.mbarCount = static_cast<int>(in.operands[1].imm);
            }
          }
        }
        if (in.op == OpId::ClcTryCancel) {
          if (clcQueue_ < 0) {
            Location q;
            q.name = "%clc_queue";
            q.space = Space::Global;
            q.hidden = true;
            clcQueue_ = static_cast<int>(prog_.locations.size());
            prog_.locations.push_back(q);
            VirtualAddress va;
            va.name = q.name;
            va.loc = clcQueue_;
            va.synonymOf = static_cast<int>(prog_.vaddrs.size());
            prog_.vaddrs.push_back(va);
          }
          if (!in.operands.empty())
            for (int l : prescanLocs(static_cast<int>(t), in.operands[0], in.hasFlag("multicast::cluster::all")))
              responseLocs_.insert(l);
        }
      }
    }
  }

  bool declaredMbarrier(int loc) const {
    const std::string& n = prog_.locations[static_cast<size_t>(loc)].name;
    for (const auto& d : test_.locations)
      if (d.isMbarrier && (n == d.name || n.rfind(d.name + "@cta", 0) == 0)) return true;
    return false;
  }

  static int mbarOperandIndex(const Instr& in) {
    switch (in.op) {
      case OpId::MbarrierInit:
      case OpId::MbarrierInval:
      case OpId::MbarrierExpectTx:
      case OpId::MbarrierCompleteTx:
      case OpId::CpAsyncMbarArrive: return firstAddr(in);
      case OpId::MbarrierArrive:
      case OpId::MbarrierArriveDrop:
      case OpId::MbarrierTestWait:
      case OpId::MbarrierTryWait: return firstAddr(in);
      case OpId::CpAsyncBulk: return in.hasFlag("mbarrier::complete_tx::bytes") ? nthAddr(in, 2) : -1;
      case OpId::CpAsyncBulkTensor: return nthAddr(in, 2);
      case OpId::ClcTryCancel: return nthAddr(in, 1);
      default: return -1;
    }
  }

  static bool isAddrLike(const Operand& o) { return o.kind == Operand::Kind::Addr || o.kind == Operand::Kind::Loc; }
  static int firstAddr(const Instr& in) { return nthAddr(in, 0); }
  static int nthAddr(const Instr& in, int n) {
    for (size_t i = 0; i < in.operands.size(); ++i)
      if (isAddrLike(in.operands[i]) && n-- == 0) return static_cast<int>(i);
    return -1;
  }

  // All locations an operand may name (prescan: per-CTA name without @cta in a multicast names every copy).
  std::vector<int> prescanLocs(int t, const Operand& o, bool allCopies) {
    std::vector<int> out;
    if (!isAddrLike(o) || !o.baseReg.empty()) return out;
    auto it = decls_.find(o.loc.name);
    if (it == decls_.end()) return out;
    const litmus::LocationDecl* d = aliasTarget(*it->second);
    int want = o.loc.cta >= 0 ? o.loc.cta : (allCopies ? -2 : thread(t).where.cta);
    for (const auto& [key, id] : locIndex_)
      if (key.first == d->name && (want == -2 || key.second == want || key.second < 0 || d->ownerCta >= 0))
        out.push_back(id);
    return out;
  }

  const litmus::LocationDecl* aliasTarget(const litmus::LocationDecl& d) const {
    const litmus::LocationDecl* cur = &d;
    for (int i = 0; i < 16 && !cur->aliasOf.empty(); ++i) {
      auto it = decls_.find(cur->aliasOf);
      if (it == decls_.end())
        throw DiagnosticError(d.src, fmt::format("'{}' aliases unknown location '{}'", d.name, cur->aliasOf));
      cur = it->second;
    }
    if (!cur->aliasOf.empty()) throw DiagnosticError(d.src, fmt::format("alias cycle through '{}'", d.name));
    return cur;
  }

  void buildInitWrites() {
    for (size_t l = 0; l < prog_.locations.size(); ++l) {
      const Location& L = prog_.locations[l];
      Event e;
      e.type = EventType::Write;
      e.isInit = true;
      e.loc = static_cast<int>(l);
      e.vloc = vaddrOfLoc(static_cast<int>(l));
      e.space = L.space;
      e.value = prog_.exprs.constant(L.init);
      for (const char* t : {"W", "M", "IW", "GEN"}) addTag(e, t);
      addTag(e, L.space == Space::Global ? "GLOBAL" : "SHARED");
      if (L.isMbarrier) addTag(e, "MBAR");
      e.label = fmt::format("W {}={} (init)", L.name, L.init);
      prog_.initWrites.push_back(push(std::move(e)));
    }
  }

  int vaddrOfLoc(int l) const {
    for (size_t v = 0; v < prog_.vaddrs.size(); ++v)
      if (prog_.vaddrs[v].loc == l && prog_.vaddrs[v].name == prog_.locations[static_cast<size_t>(l)].name)
        return static_cast<int>(v);
    return -1;
  }

  EventId push(Event e) {
    if (opt_.maxEvents > 0 && prog_.events.size() >= static_cast<size_t>(opt_.maxEvents))
      throw SizeLimit(
          fmt::format("more than {} events (all paths of all threads so far); the size limit is --max-events {}",
                      opt_.maxEvents, opt_.maxEvents));
    e.id = static_cast<EventId>(prog_.events.size());
    prog_.events.push_back(std::move(e));
    return prog_.events.back().id;
  }

  // ----- errors and operands ----------------------------------------------------------------------------

  [[noreturn]] void fail(const SourceLoc& at, const std::string& msg) const { throw DiagnosticError(at, msg); }

  const Operand& operand(const Instr& in, size_t i, const char* what) const {
    if (i >= in.operands.size())
      fail(in.src, fmt::format("'{}' is missing its {} operand", ptx::opInfo(in.op).mnemonic, what));
    return in.operands[i];
  }

  int64_t specialValue(int t, const Operand& o) const {
    std::string n = o.name;
    if (!n.empty() && n[0] == '%') n.erase(0, 1);
    const auto& w = thread(t).where;
    if (n == "tid.x" || n == "tid") {
      int rank = 0;
      for (int u = 0; u < t; ++u)
        if (thread(u).where.cta == w.cta) ++rank;
      return rank;
    }
    if (n == "tid.y" || n == "tid.z" || n == "ctaid.y" || n == "ctaid.z" || n == "cluster_ctaid.y" ||
        n == "cluster_ctaid.z" || n == "clusterid.y" || n == "clusterid.z")
      return 0;
    if (n == "ctaid.x" || n == "ctaid") return w.cta;
    if (n == "cluster_ctaid.x" || n == "cluster_ctarank") return clusterRank(w.cta);
    if (n == "clusterid.x" || n == "clusterid") return w.cluster;
    if (n == "cluster_nctarank" || n == "cluster_nctaid.x")
      return static_cast<int64_t>(ctasOfCluster(w.cluster).size());
    fail(o.src, fmt::format("unsupported special register '{}'", o.name));
  }

  ExprId value(PathState& st, const Operand& o) {
    switch (o.kind) {
      case Operand::Kind::Imm: return prog_.exprs.constant(o.imm);
      case Operand::Kind::Reg: {
        if (st.addrRegs.count(o.name))
          fail(o.src, fmt::format("register '{}' holds an address and is used as a value (unsupported)", o.name));
        auto it = st.regs.find(o.name);
        return it == st.regs.end() ? prog_.exprs.constant(0) : it->second;
      }
      case Operand::Kind::Special: return prog_.exprs.constant(specialValue(curThread_, o));
      case Operand::Kind::Sink: return prog_.exprs.constant(0);
      case Operand::Kind::Vector:
        if (!o.elems.empty()) return value(st, o.elems[0]);
        return prog_.exprs.constant(0);
      default: fail(o.src, "expected a register or an immediate value");
    }
  }

  /// The value of `v` on this path among lo..hi (`is(k)`: the condition "v reads as k"): a constant is
  /// taken as is; otherwise the path forks (the alternative re-executes the instruction knowing
  /// `is(k)` false). nullopt: v is none of them on this path.
  template <class Is>
  std::optional<int64_t> pickValue(PathState& st, ExprId v, std::vector<PathState>& work, Is is, int64_t lo,
                                   int64_t hi) {
    if (prog_.exprs.isConst(v)) {
      for (int64_t k = lo; k <= hi; ++k)
        if (prog_.exprs.node(is(k)).value != 0) return k;
      return std::nullopt;
    }
    for (int64_t k = lo; k <= hi; ++k)
      if (decide(st, is(k), work, [](PathState&) {})) return k;
    return std::nullopt;
  }

  size_t threadsOfCta(int cta) const {
    size_t n = 0;
    for (const auto& th : test_.threads) n += th.where.cta == cta ? 1 : 0;
    return n;
  }

  static std::string printInstrShort(const Instr& in) { return std::string(ptx::opInfo(in.op).mnemonic); }

  int64_t constValue(PathState& st, const Operand& o, const char* what) {
    ExprId v = value(st, o);
    if (!prog_.exprs.isConst(v)) fail(o.src, fmt::format("{} must be a constant", what));
    return prog_.exprs.node(v).value;
  }

  void setReg(PathState& st, const Operand& d, ExprId v) {
    if (d.kind == Operand::Kind::Sink) return;
    if (d.kind == Operand::Kind::Vector) {
      bool first = true;
      for (const auto& el : d.elems) {
        if (el.kind == Operand::Kind::Reg) {
          st.regs[el.name] = first ? v : prog_.exprs.constant(0);
          st.addrRegs.erase(el.name);
        }
        first = false;
      }
      return;
    }
    if (d.kind != Operand::Kind::Reg) fail(d.src, "expected a destination register");
    st.regs[d.name] = v;
    st.addrRegs.erase(d.name);
  }

  /// Resolve a memory operand for thread t. `space` is the instruction's state space for this operand.
  Access resolve(PathState& st, const Operand& o, Space space, const Instr& in) {
    LocRef ref;
    if (o.kind == Operand::Kind::Reg && st.addrRegs.count(o.name)) {
      ref = st.addrRegs.at(o.name);
    } else if (o.kind == Operand::Kind::Addr && !o.baseReg.empty()) {
      auto it = st.addrRegs.find(o.baseReg);
      if (it == st.addrRegs.end())
        fail(o.src, fmt::format("register '{}' used as an address does not hold a location's address", o.baseReg));
      ref = it->second;
    } else if (isAddrLike(o)) {
      ref = o.loc;
    } else {
      fail(o.src, "expected a memory operand");
    }
    if (o.kind == Operand::Kind::Addr && o.imm != 0)
      fail(o.src, "address offsets are not supported (every location is one cell)");
    return resolveRef(ref, space, o.src);
  }

  Access resolveRef(const LocRef& ref, Space space, const SourceLoc& at) {
    auto it = decls_.find(ref.name);
    if (it == decls_.end()) {
      std::vector<std::string> names;
      for (const auto& [n, d] : decls_) names.push_back(n);
      std::string hint = closestMatch(ref.name, names);
      fail(at, fmt::format("unknown location '{}'{}", ref.name, hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    const litmus::LocationDecl* target = aliasTarget(*it->second);
    const auto& me = thread(curThread_).where;
    int cta = -1;
    if (target->space != Space::Global) {
      if (target->ownerCta >= 0) {
        if (ref.cta >= 0 && ref.cta != target->ownerCta)
          fail(at, fmt::format("'{}' exists only in CTA {}", ref.name, target->ownerCta));
        cta = target->ownerCta;
      } else {
        cta = ref.cta >= 0 ? ref.cta : me.cta;
      }
    } else if (ref.cta >= 0) {
      fail(at, fmt::format("'{}' is a global location: '@cta{}' is meaningless", ref.name, ref.cta));
    }
    Access a;
    auto li = locIndex_.find({target->name, cta});
    if (li == locIndex_.end()) fail(at, fmt::format("no copy of '{}' in CTA {}", ref.name, cta));
    a.loc = li->second;
    auto vi = vaddrIndex_.find({ref.name, cta});
    a.vaddr = vi == vaddrIndex_.end() ? vaddrOfLoc(a.loc) : vi->second;
    a.vproxy = prog_.vaddrs[static_cast<size_t>(a.vaddr)].proxy;
    a.shared = target->space != Space::Global;
    a.cta = cta;
    if (a.shared) {
      if (ctaPlace_.at(cta).cluster != me.cluster)
        fail(at, fmt::format("'{}' is shared memory of CTA {}, outside the accessing thread's cluster", ref.name, cta));
      if (space == Space::Global) fail(at, fmt::format("'{}' is shared memory, accessed with .global", ref.name));
      if (space == Space::SharedCta && cta != me.cta)
        fail(at, fmt::format("'{}' is in CTA {}: a .shared::cta access can only name its own CTA's shared memory "
                             "(use .shared::cluster)",
                             ref.name, cta));
      a.space = space == Space::Generic ? (cta == me.cta ? Space::SharedCta : Space::SharedCluster) : space;
    } else {
      if (space == Space::SharedCta || space == Space::SharedCluster)
        fail(at, fmt::format("'{}' is a global location, accessed with {}", ref.name, ptx::toString(space)));
      a.space = Space::Global;
    }
    return a;
  }

  // ----- event construction ------------------------------------------------------------------------

  Event memEvent(EventType type, const Instr& in, const Access& a, Proxy opProxy, Sem sem, Scope scope) {
    Event e;
    e.type = type;
    e.src = in.src;
    e.op = in.op;
    e.sem = sem;
    e.scope = scope;
    e.proxy = opProxy != Proxy::Generic ? opProxy : a.vproxy;
    e.space = a.space;
    e.loc = a.loc;
    e.vloc = a.vaddr;
    addTag(e, type == EventType::Read ? "R" : "W");
    addTag(e, "M");
    addTag(e, proxyTag(e.proxy));
    addTag(e, a.shared ? "SHARED" : "GLOBAL");
    if (isStrongSem(sem)) addTag(e, "STRONG");
    addSemTags(e);
    if (prog_.locations[static_cast<size_t>(a.loc)].isMbarrier) addTag(e, "MBAR");
    return e;
  }

  Event fenceEvent(const Instr& in, Sem sem, Scope scope) {
    Event e;
    e.type = EventType::Fence;
    e.src = in.src;
    e.op = in.op;
    e.sem = sem;
    e.scope = scope;
    addTag(e, "F");
    addSemTags(e);
    return e;
  }

  std::string locName(int l) const { return prog_.locations[static_cast<size_t>(l)].name; }
  std::string vName(int v) const { return prog_.vaddrs[static_cast<size_t>(v)].name; }

  /// Adds a real-thread event at the end of the path (ctrl edges from the path's control reads).
  EventId emit(PathState& st, Event e) {
    e.thread = curThread_;
    e.instr = static_cast<int>(st.pc);
    EventId id = push(std::move(e));
    for (EventId r : st.ctrlReads) rels_["ctrl"].insert({r, id});
    st.events.push_back(id);
    return id;
  }

  /// data edges into `w` from the program-order reads its value depends on (except `except`).
  void dataDeps(EventId w, ExprId v, EventId except = -1) {
    std::vector<EventId> reads;
    prog_.exprs.collectReads(v, reads);
    for (EventId r : reads)
      if (r != except && prog_.events[static_cast<size_t>(r)].asyncOp < 0 &&
          prog_.events[static_cast<size_t>(r)].thread == curThread_)
        rels_["data"].insert({r, w});
  }

  /// Read + Write linked by rmw; returns {read, write}. `next(old)` gives the written value.
  template <class F>
  std::pair<EventId, EventId> emitRmw(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem,
                                      Scope scope, const std::vector<std::string>& tags, const std::string& what,
                                      F next, int asyncOp = -1) {
    Event r = memEvent(EventType::Read, in, a, proxy, sem, scope);
    Event w = memEvent(EventType::Write, in, a, proxy, sem, scope);
    for (const auto& t : tags) {
      addTag(r, t);
      addTag(w, t);
    }
    addTag(r, "RMW");
    addTag(w, "RMW");
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
    rels_["rmw"].insert({rid, wid});
    // Dynamic tag MB_PHASE_DONE (docs/lowering.md "Dynamic tags"): an mbarrier arrive / expect_tx /
    // complete_tx / increment write completes a phase iff the phase it writes differs from the one it read.
    if (std::any_of(tags.begin(), tags.end(), [](const std::string& t) {
          return t == "MB_ARRIVE" || t == "MB_EXPECT_TX" || t == "MB_COMPLETE_TX" || t == "MB_INC";
        }))
      prog_.events[static_cast<size_t>(wid)].dynamicTags.push_back(
          {"MB_PHASE_DONE", prog_.exprs.make(ExprOp::Ne, {prog_.exprs.make(ExprOp::MbPhase, {nv}),
                                                          prog_.exprs.make(ExprOp::MbPhase, {old})})});
    return {rid, wid};
  }

  EventId emitRead(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem, Scope scope,
                   const std::string& what = "") {
    Event r = memEvent(EventType::Read, in, a, proxy, sem, scope);
    r.label = fmt::format("R{}{} {}", what, semLabel(sem, scope), vName(a.vaddr));
    EventId id = emit(st, std::move(r));
    prog_.events[static_cast<size_t>(id)].value = prog_.exprs.readVal(id);
    if (responseLocs_.count(a.loc)) st.observedResponses.push_back(prog_.exprs.readVal(id));
    return id;
  }

  EventId emitWrite(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem, Scope scope, ExprId v,
                    const std::string& what = "") {
    Event w = memEvent(EventType::Write, in, a, proxy, sem, scope);
    w.value = v;
    w.label = fmt::format("W{}{} {}={}", what, semLabel(sem, scope), vName(a.vaddr), prog_.exprs.str(v));
    EventId id = emit(st, std::move(w));
    dataDeps(id, v);
    return id;
  }

  EventId emitFence(PathState& st, Event f, const std::string& label) {
    f.label = label;
    return emit(st, std::move(f));
  }

  // ----- async operations ----------------------------------------------------------------------------

  EventId emitMarker(PathState& st, const Instr& in, const char* familyTag) {
    Event f = fenceEvent(in, Sem::None, Scope::None);
    addTag(f, "ISSUE");
    addTag(f, familyTag);
    return emitFence(st, std::move(f), fmt::format("ISSUE {}", ptx::opInfo(in.op).mnemonic));
  }

  int newInstance(EventId marker) {
    Instance inst;
    inst.marker = marker;
    instances_.push_back(inst);
    return static_cast<int>(instances_.size()) - 1;
  }

  int newAsyncOp(int instance, OpId op, int placeCta, const char* suffix = "") {
    AsyncOp a;
    a.op = op;
    a.issuer = instances_[static_cast<size_t>(instance)].marker;
    a.instance = instance;
    a.thread = static_cast<int>(prog_.threads.size());
    ThreadInfo ti;
    int n = 0;
    for (const auto& x : prog_.asyncOps)
      n += x.op == op && prog_.threads[static_cast<size_t>(x.thread)].issuer == curThread_;
    ti.name = fmt::format("{}.{}#{}{}", thread(curThread_).name, ptx::opInfo(op).mnemonic, n + 1, suffix);
    ti.where = ctaPlace_.at(placeCta);
    ti.where.warp = -1;
    ti.isAsync = true;
    ti.issuer = curThread_;
    prog_.threads.push_back(ti);
    int id = static_cast<int>(prog_.asyncOps.size());
    prog_.asyncOps.push_back(a);
    instances_[static_cast<size_t>(instance)].ops.push_back(id);
    return id;
  }

  EventId emitAsync(PathState& st, int op, Event e) {
    auto& a = prog_.asyncOps[static_cast<size_t>(op)];
    e.thread = a.thread;
    e.asyncOp = op;
    e.instr = static_cast<int>(st.pc);
    addTag(e, "ASYNC_OP");
    EventId id = push(std::move(e));
    prog_.asyncOps[static_cast<size_t>(op)].events.push_back(id);
    st.asyncEvents.push_back(id);
    return id;
  }

  EventId asyncRead(PathState& st, int op, const Instr& in, const Access& a, Proxy p, Sem sem, Scope sc,
                    const char* fam) {
    Event r = memEvent(EventType::Read, in, a, p, sem, sc);
    addTag(r, fam);
    r.label = fmt::format("R{} {} ({})", semLabel(sem, sc), vName(a.vaddr), ptx::toString(r.proxy));
    EventId id = emitAsync(st, op, std::move(r));
    prog_.events[static_cast<size_t>(id)].value = prog_.exprs.readVal(id);
    return id;
  }

  EventId asyncWrite(PathState& st, int op, const Instr& in, const Access& a, Proxy p, Sem sem, Scope sc, ExprId v,
                     const char* fam) {
    Event w = memEvent(EventType::Write, in, a, p, sem, sc);
    addTag(w, fam);
    w.value = v;
    w.label =
        fmt::format("W{} {}={} ({})", semLabel(sem, sc), vName(a.vaddr), prog_.exprs.str(v), ptx::toString(w.proxy));
    return emitAsync(st, op, std::move(w));
  }

  EventId implicitProxyFence(PathState& st, int op, const Instr& in, const char* fam) {
    Event f = fenceEvent(in, Sem::None, Scope::None);
    addTag(f, "PF_ASYNC_IMPLICIT");
    addTag(f, fam);
    f.label = "F.proxy.async (implicit)";
    return emitAsync(st, op, std::move(f));
  }

  int expectedCount(int loc) const { return prog_.locations[static_cast<size_t>(loc)].mbarCount; }

  /// complete-tx RMW of an async op on an mbarrier (generic proxy, .release.cluster).
  std::pair<EventId, EventId> asyncCompleteTx(PathState& st, int op, const Instr& in, const Access& bar, ExprId bytes,
                                              const char* fam) {
    ExprId neg = prog_.exprs.make(ExprOp::Sub, {prog_.exprs.constant(0), bytes});
    ExprId exp = prog_.exprs.constant(expectedCount(bar.loc));
    return emitRmw(
        st, in, bar, Proxy::Generic, Sem::Release, Scope::Cluster, {"MB_COMPLETE_TX", fam}, ".complete_tx",
        [&](ExprId old) {
          return prog_.exprs.make(ExprOp::MbTx, {old, neg, exp});
        },
        op);
  }

  void finishAsyncRelations() {
    for (const auto& inst : instances_) {
      std::vector<EventId> all;
      for (int op : inst.ops)
        for (EventId e : prog_.asyncOps[static_cast<size_t>(op)].events) all.push_back(e);
      for (EventId e : all) rels_["issue"].insert({inst.marker, e});
      for (EventId a : all)
        for (EventId b : all) rels_["same-async"].insert({a, b});
      for (int op : inst.ops) {
        const auto& ev = prog_.asyncOps[static_cast<size_t>(op)].events;
        for (size_t i = 0; i < ev.size(); ++i)
          for (size_t j = i + 1; j < ev.size(); ++j) rels_["aso"].insert({ev[i], ev[j]});
      }
      if (inst.sourceOp >= 0)
        for (EventId s : prog_.asyncOps[static_cast<size_t>(inst.sourceOp)].events)
          for (int op : inst.ops)
            if (op != inst.sourceOp)
              for (EventId e : prog_.asyncOps[static_cast<size_t>(op)].events) rels_["aso"].insert({s, e});
    }
  }

  void asyncComplete(int op, EventId waiter, bool readsOnly) {
    auto& a = prog_.asyncOps[static_cast<size_t>(op)];
    for (EventId e : a.events)
      if (!readsOnly || prog_.events[static_cast<size_t>(e)].type == EventType::Read)
        rels_["async-complete"].insert({e, waiter});
    if (std::find(a.completions.begin(), a.completions.end(), waiter) == a.completions.end())
      a.completions.push_back(waiter);
  }

  void finishSyncRelations() {
    for (const auto& a : bars_)
      for (const auto& b : bars_)
        if (b.isSync && a.thread != b.thread && a.group == b.group && a.id == b.id && a.gen == b.gen)
          rels_["bar-sync"].insert({a.ev, b.ev});
    for (const auto& a : clusterArrives_)
      for (const auto& w : clusterWaits_)
        if (a.group == w.group && a.gen == w.gen) rels_["cluster-sync"].insert({a.ev, w.ev});
    // exit-sync: a thread that has exited counts as arrived at every later generation of the barriers
    // that wait for all participants (docs/lowering.md "Thread exit"), so the waits of those
    // generations cannot complete before its EXIT.
    for (const auto& x : exits_)
      for (size_t b = 0; b < prog_.barriers.size(); ++b) {
        const ExecBarrier& B = prog_.barriers[b];
        if (std::find(B.participants.begin(), B.participants.end(), x.thread) == B.participants.end()) continue;
        auto it = x.arrived.find(static_cast<int>(b));
        const int from = it == x.arrived.end() ? 0 : it->second;
        for (const auto& w : B.cluster ? clusterWaits_ : bars_)
          if (w.isSync && w.count < 0 && w.thread != x.thread && w.group == B.group && w.id == B.id && w.gen >= from)
            rels_["exit-sync"].insert({x.ev, w.ev});
      }
  }

  // ----- thread lowering ---------------------------------------------------------------------------

  void lowerThread(int t) {
    curThread_ = t;
    const auto& code = thread(t).code;
    labels_.clear();
    for (size_t i = 0; i < code.size(); ++i)
      if (!code[i].label.empty()) labels_[code[i].label] = static_cast<int>(i);
    PathState init;
    for (const auto& ri : test_.regInits) {
      if (ri.thread != t) continue;
      if (ri.addressOf) {
        resolveRef(*ri.addressOf, Space::Generic, ri.src);  // validate
        init.addrRegs[ri.reg] = *ri.addressOf;
      } else {
        init.regs[ri.reg] = prog_.exprs.constant(ri.value);
      }
    }
    std::vector<PathState> work{std::move(init)};
    while (!work.empty()) {
      pollBudget("lowering (path exploration)");
      PathState st = std::move(work.back());
      work.pop_back();
      runPath(st, work);
    }
  }

  void addGuard(PathState& st, ExprId g) {
    st.guards.push_back(g);
    addCtrlReads(st, g);
  }

  /// Later events of the path are control-dependent on the reads `g` depends on.
  void addCtrlReads(PathState& st, ExprId g) {
    std::vector<EventId> reads;
    prog_.exprs.collectReads(g, reads);
    for (EventId r : reads)
      if (std::find(st.ctrlReads.begin(), st.ctrlReads.end(), r) == st.ctrlReads.end()) st.ctrlReads.push_back(r);
  }

  /// Decide `cond`: returns +1 (true on this path), 0 (false on this path). A symbolic condition forks: the
  /// current path takes it as true, a copy (pushed to `work`) takes it as false with `onFalse` applied.
  template <class F>
  bool decide(PathState& st, ExprId cond, std::vector<PathState>& work, F onFalse) {
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
  std::optional<bool> known(const PathState& st, ExprId c) const {
    if (auto k = knownIn(st, c)) return k;
    const ExprNode& n = prog_.exprs.node(c);
    if (n.op == ExprOp::LNot)
      if (auto k = knownIn(st, n.args[0])) return !*k;
    return std::nullopt;
  }
  void assume(PathState& st, ExprId c, bool v) const {
    st.known[c] = v;
    const ExprNode& n = prog_.exprs.node(c);
    if (n.op == ExprOp::LNot) st.known[n.args[0]] = !v;
  }

  bool isBoolean(ExprId x) const {
    switch (prog_.exprs.node(x).op) {
      case ExprOp::Eq:
      case ExprOp::Ne:
      case ExprOp::Lt:
      case ExprOp::Le:
      case ExprOp::LNot:
      case ExprOp::LAnd:
      case ExprOp::LOr: return true;
      default: return false;
    }
  }

  void pushWork(std::vector<PathState>& work, PathState st) {
    if (static_cast<int>(work.size() + 2 + prog_.paths[static_cast<size_t>(curThread_)].size()) > opt_.maxPaths)
      fail(thread(curThread_).src,
           fmt::format("thread {} has more than {} control-flow paths", thread(curThread_).name, opt_.maxPaths));
    work.push_back(std::move(st));
  }

  void checkPathLimit(int t, size_t extra) const {
    if (prog_.paths[static_cast<size_t>(t)].size() + extra > static_cast<size_t>(opt_.maxPaths))
      fail(thread(t).src, fmt::format("thread {} has more than {} control-flow paths", thread(t).name, opt_.maxPaths));
  }

  /// The path of state `st` ending now with `end` (adds its po pairs).
  Path makePath(const PathState& st, PathEnd end) {
    Path p;
    p.events = st.events;
    p.events.insert(p.events.end(), st.asyncEvents.begin(), st.asyncEvents.end());
    p.guards = st.guards;
    for (const auto& [r, v] : st.regs) p.finalRegs[r] = v;
    p.end = end;
    p.readsFinal = st.readsFinal;
    p.undefinedIf = st.undefinedIf;
    for (const auto& [b, use] : st.barUse) p.barriers.push_back(use);
    for (size_t i = 0; i < st.events.size(); ++i)
      for (size_t j = i + 1; j < st.events.size(); ++j) rels_["po"].insert({st.events[i], st.events[j]});
    return p;
  }

  void finishPath(PathState& st, PathEnd end) {
    checkPathLimit(curThread_, 1);
    if (end == PathEnd::Normal && hasExecBarriers_) emitExit(st);
    const bool spin = end == PathEnd::Cut && emitLoopCut(st);
    prog_.paths[static_cast<size_t>(curThread_)].push_back(makePath(st, end));
    prog_.paths[static_cast<size_t>(curThread_)].back().spin = spin;
  }

  // ----- loops and liveness ------------------------------------------------------------------------

  /// The end of a path cut at the unroll bound (st.pc: the backward branch): a marker event tagged
  /// LOOP_CUT; when the iteration the branch would repeat is a spin iteration, also SPIN_CUT, with
  /// `spin-iter` edges to that iteration's reads (the model's fairness and livelock rules, docs/lowering.md
  /// "Loops and liveness"). Returns whether it is a spin iteration.
  bool emitLoopCut(PathState& st) {
    const auto mark = st.iterStart.find(st.pc);
    const bool spin = mark != st.iterStart.end() && isSpinIteration(st, mark->second);
    const size_t first = spin ? mark->second.events : st.events.size();
    const auto& code = thread(curThread_).code;
    Event e;
    e.type = EventType::Fence;
    e.op = code[st.pc].instr->op;
    e.src = code[st.pc].instr->src;
    addTag(e, "LOOP_CUT");
    if (spin) addTag(e, "SPIN_CUT");
    e.label = spin ? "SPIN" : "CUT";
    const size_t last = st.events.size();
    const EventId m = emit(st, std::move(e));
    for (size_t k = first; k < last; ++k)
      if (prog_.events[static_cast<size_t>(st.events[k])].type == EventType::Read)
        rels_["spin-iter"].insert({m, st.events[k]});
    return spin;
  }

  /// Whether the iteration that began at `m` (and ends at the backward branch st.pc) is a spin iteration:
  /// it writes nothing, issues no async operation, uses no execution barrier, and reads no register before
  /// writing it that it also writes (so a repetition that reads the same values does the same thing).
  bool isSpinIteration(const PathState& st, const PathState::IterMark& m) const {
    if (st.asyncEvents.size() != m.asyncEvents) return false;
    for (size_t k = m.events; k < st.events.size(); ++k) {
      const Event& e = prog_.events[static_cast<size_t>(st.events[k])];
      if (e.type == EventType::Write) return false;
      if (e.type == EventType::Fence && ptx::opInfo(e.op).family == ptx::OpFamily::Barrier) return false;
    }
    const auto& code = thread(curThread_).code;
    std::set<std::string> defined, written, usedFirst;
    for (size_t k = m.trace; k < st.trace.size(); ++k) {
      const Instr& in = *code[st.trace[k]].instr;
      auto use = [&](const std::string& r) {
        if (!defined.count(r)) usedFirst.insert(r);
      };
      if (in.guard) use(in.guard->pred);
      const std::vector<std::string_view> sig = ptx::operandSignature(ptx::opInfo(in.op));
      std::vector<std::string> defs;
      for (size_t i = 0; i < in.operands.size(); ++i) {
        const Operand& o = in.operands[i];
        const bool isDef = i < sig.size() && (sig[i][0] == 'd' || sig[i][0] == 'p' || sig[i][0] == 'v');
        if (!o.baseReg.empty()) use(o.baseReg);
        std::vector<const Operand*> regs;
        if (o.kind == Operand::Kind::Reg) regs.push_back(&o);
        for (const Operand& el : o.elems)
          if (el.kind == Operand::Kind::Reg) regs.push_back(&el);
        for (const Operand* r : regs) {
          if (isDef)
            defs.push_back(r->name);
          else
            use(r->name);
        }
      }
      // A guarded instruction may not run: its results do not define the registers for later uses.
      if (!in.guard) defined.insert(defs.begin(), defs.end());
      written.insert(defs.begin(), defs.end());
    }
    for (const auto& r : usedFirst)
      if (written.count(r)) return false;
    return true;
  }

  // ----- execution barriers ------------------------------------------------------------------------

  /// The thread's exit at the end of a normally ending path (ret, exit, or the end of its code): an
  /// event without memory effect (tag EXIT, not in F) that later barrier generations wait for.
  void emitExit(PathState& st) {
    Event e;
    e.type = EventType::Fence;
    e.op = OpId::Exit;
    const auto& code = thread(curThread_).code;
    e.src = st.pc < code.size() && code[st.pc].instr ? code[st.pc].instr->src : thread(curThread_).src;
    addTag(e, "EXIT");
    e.label = "EXIT";
    ExitRecord x{emit(st, std::move(e)), curThread_, {}};
    for (const auto& [b, use] : st.barUse) x.arrived[b] = use.arrived;
    exits_.push_back(std::move(x));
  }

  /// The execution barrier (cluster barrier of `group`, or named barrier `id` of CTA `group`) used by
  /// `in`.
  int barrierOf(bool cluster, int group, int64_t id) {
    auto key = std::make_tuple(cluster, group, id);
    auto it = barrierIndex_.find(key);
    if (it == barrierIndex_.end()) {
      ExecBarrier b;
      b.cluster = cluster;
      b.group = group;
      b.id = id;
      b.name = cluster ? fmt::format("barrier.cluster @cluster{}", group) : fmt::format("bar {} @cta{}", id, group);
      for (size_t t = 0; t < test_.threads.size(); ++t) {
        const auto& w = thread(static_cast<int>(t)).where;
        if ((cluster ? w.cluster : w.cta) == group) b.participants.push_back(static_cast<int>(t));
      }
      it = barrierIndex_.emplace(key, static_cast<int>(prog_.barriers.size())).first;
      prog_.barriers.push_back(std::move(b));
    }
    return it->second;
  }

  BarrierUse& barrierUse(PathState& st, int b) {
    BarrierUse& u = st.barUse[b];
    u.barrier = b;
    return u;
  }

  /// The path waits at generation `gen` of barrier `b` (its wait event `e` is emitted): remember the
  /// alternative where it blocks there (materialised by addBarrierBlockedPaths), then let it pass.
  void waitAtBarrier(PathState& st, int b, int gen, EventId e) {
    PathState blocked = st;
    barrierUse(blocked, b).blockedGen = gen;
    Path p = makePath(blocked, PathEnd::Blocked);
    p.blockedAt = e;
    barrierCandidates_[static_cast<size_t>(curThread_)].push_back(std::move(p));
    barrierUse(st, b).passed.push_back(gen);
  }

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
  bool mayStayIncomplete(int b, int gen, int t, const Path& waiting) const {
    const ExecBarrier& B = prog_.barriers[static_cast<size_t>(b)];
    const BarrierUse* own = useOf(waiting, b);
    auto c = own ? own->counts.find(gen) : std::map<int, int>::const_iterator{};
    const int expected = own && c != own->counts.end() ? c->second : -1;
    if (expected < 0) {
      for (int u : B.participants) {
        if (u == t) {
          if (arrivals(waiting, b) <= gen) return true;  // waits without having arrived
          continue;
        }
        for (const Path& q : prog_.paths[static_cast<size_t>(u)])
          if (q.end != PathEnd::Normal && arrivals(q, b) <= gen) return true;
      }
      return false;
    }
    int surely = arrivals(waiting, b) > gen ? 1 : 0;
    for (int u : B.participants) {
      if (u == t) continue;
      bool all = true;
      for (const Path& q : prog_.paths[static_cast<size_t>(u)]) all = all && arrivals(q, b) > gen;
      surely += all ? 1 : 0;
    }
    return surely < expected;
  }

  /// Adds the paths blocked at a barrier wait whose generation may stay incomplete, to a fixpoint (a new
  /// blocked path is one more way for its thread not to arrive at later barriers).
  /// Greatest fixpoint: every candidate first (waits may stay incomplete because the other threads
  /// block too, e.g. two threads waiting on different barriers), then candidates whose generation
  /// completes whatever the other threads' paths are dropped until none changes. barriersConsistent
  /// then keeps exactly the consistent combinations.
  void addBarrierBlockedPaths() {
    std::vector<size_t> base(barrierCandidates_.size());
    for (size_t t = 0; t < barrierCandidates_.size(); ++t) {
      base[t] = prog_.paths[t].size();
      checkPathLimit(static_cast<int>(t), barrierCandidates_[t].size());
      for (const Path& c : barrierCandidates_[t]) prog_.paths[t].push_back(c);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t t = 0; t < barrierCandidates_.size(); ++t)
        for (size_t k = base[t]; k < prog_.paths[t].size();) {
          pollBudget("lowering (barrier fixpoint)");
          const Path& c = prog_.paths[t][k];
          const BarrierUse* u = nullptr;
          for (const auto& x : c.barriers)
            if (x.blockedGen >= 0) u = &x;
          if (u && mayStayIncomplete(u->barrier, u->blockedGen, static_cast<int>(t), c)) {
            ++k;
            continue;
          }
          prog_.paths[t].erase(prog_.paths[t].begin() + static_cast<std::ptrdiff_t>(k));
          changed = true;
        }
    }
  }

  int labelTarget(const Operand& o) const {
    if (o.kind != Operand::Kind::Label && o.kind != Operand::Kind::Reg && o.kind != Operand::Kind::Loc)
      fail(o.src, "expected a label");
    std::string n = o.kind == Operand::Kind::Loc ? o.loc.name : o.name;
    auto it = labels_.find(n);
    if (it == labels_.end()) {
      std::vector<std::string> names;
      for (const auto& [l, i] : labels_) names.push_back(l);
      std::string hint = closestMatch(n, names);
      fail(o.src, fmt::format("unknown label '{}'{}", n, hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    return it->second;
  }

  /// Jump to statement `target` from statement `from`; returns false if the path is cut.
  bool jump(PathState& st, size_t from, int target) {
    if (static_cast<size_t>(target) <= from) {
      int& n = st.backCount[from];
      if (n >= opt_.unroll) return false;
      ++n;
      st.iterStart[from] = {st.events.size(), st.asyncEvents.size(), st.trace.size()};
    }
    st.pc = static_cast<size_t>(target);
    return true;
  }

  void runPath(PathState& st, std::vector<PathState>& work) {
    const auto& code = thread(curThread_).code;
    while (true) {
      pollBudget("lowering (path exploration)");
      if (st.pc >= code.size()) return finishPath(st, PathEnd::Normal);
      const auto& stmt = code[st.pc];
      if (!stmt.instr) {
        ++st.pc;
        continue;
      }
      if (++st.steps > opt_.maxSteps)
        fail(stmt.instr->src, fmt::format("more than {} instructions executed on one path", opt_.maxSteps));
      st.trace.push_back(static_cast<uint32_t>(st.pc));
      const Instr& in = *stmt.instr;
      // A guarded branch/ret/exit makes everything after it control-dependent on the predicate's reads;
      // any other guarded instruction is a conditional instruction: only its own events are (the paths
      // rejoin after it, docs/lowering.md "Predicated instructions").
      std::optional<std::vector<EventId>> ctrlAfter;
      if (in.guard) {
        auto it = st.regs.find(in.guard->pred);
        ExprId p = it == st.regs.end() ? prog_.exprs.constant(0) : it->second;
        if (in.guard->negated) p = prog_.exprs.make(ExprOp::LNot, {p});
        const bool transfer = ptx::opInfo(in.op).family == ptx::OpFamily::Branch;
        if (!transfer) ctrlAfter = st.ctrlReads;
        const bool taken = decide(st, p, work, [&](PathState& o) {
          ++o.pc;
          if (ctrlAfter) o.ctrlReads = *ctrlAfter;
        });
        if (!taken) {
          if (ctrlAfter)
            st.ctrlReads = std::move(*ctrlAfter);
          else
            addCtrlReads(st, p);
          ++st.pc;
          continue;
        }
        addCtrlReads(st, p);  // also when the predicate was decided earlier on this path
      }
      const Flow flow = step(st, in, work);
      if (ctrlAfter) st.ctrlReads = std::move(*ctrlAfter);
      switch (flow) {
        case Flow::Next: ++st.pc; break;
        case Flow::Jumped: break;
        case Flow::Ended: return finishPath(st, PathEnd::Normal);
        case Flow::Cut: return finishPath(st, PathEnd::Cut);
        case Flow::Blocked: return finishPath(st, PathEnd::Blocked);
      }
    }
  }

  enum class Flow { Next, Jumped, Ended, Cut, Blocked };

  // ----- spin-loop recognition ---------------------------------------------------------------------

  size_t nextInstr(size_t i, bool allowLabels) const {
    const auto& code = thread(curThread_).code;
    for (size_t j = i + 1; j < code.size(); ++j) {
      if (code[j].instr) return j;
      if (!allowLabels) return code.size();
    }
    return code.size();
  }

  /// Whether instruction `in` (at statement i) jumps to `targetSet` exactly when predicate `p` is `when`.
  bool branchesOn(const Instr& in, const std::string& p, bool when, const std::set<int>& targets, int* target) const {
    auto lbl = [&](const Operand& o) -> int {
      std::string n = o.kind == Operand::Kind::Loc ? o.loc.name : o.name;
      auto it = labels_.find(n);
      return it == labels_.end() ? -1 : it->second;
    };
    int tgt = -1;
    if (in.op == OpId::Bra && in.guard && in.guard->pred == p && in.guard->negated == !when && !in.operands.empty()) {
      tgt = lbl(in.operands[0]);
    } else if ((in.op == OpId::Beq || in.op == OpId::Bne) && !in.guard && in.operands.size() == 3 &&
               in.operands[0].kind == Operand::Kind::Reg && in.operands[0].name == p &&
               in.operands[1].kind == Operand::Kind::Imm && (in.operands[1].imm == 0 || in.operands[1].imm == 1)) {
      // beq p, 1 / bne p, 0: jump when p true; beq p, 0 / bne p, 1: jump when p false.
      bool jumpsWhenTrue = (in.op == OpId::Beq) == (in.operands[1].imm == 1);
      if (jumpsWhenTrue == when) tgt = lbl(in.operands[2]);
    }
    if (tgt < 0) return false;
    if (!targets.empty() && !targets.count(tgt)) return false;
    if (target) *target = tgt;
    return true;
  }

  /// If the wait at statement i is the body of a spin loop, the statement where the loop exits.
  std::optional<size_t> spinLoopExit(size_t i, const Instr& wait) const {
    const auto& code = thread(curThread_).code;
    if (wait.guard || wait.operands.empty() || wait.operands[0].kind != Operand::Kind::Reg) return std::nullopt;
    const std::string& p = wait.operands[0].name;
    std::set<int> loopLabels;
    for (size_t k = i; k-- > 0 && !code[k].instr;) loopLabels.insert(static_cast<int>(k));
    if (loopLabels.empty()) return std::nullopt;
    size_t j = nextInstr(i, false);
    if (j >= code.size()) return std::nullopt;
    const Instr& b = *code[j].instr;
    if (branchesOn(b, p, false, loopLabels, nullptr)) return j + 1;  // @!p bra L
    int out = -1;
    if (branchesOn(b, p, true, {}, &out)) {  // @p bra X; bra L; X:
      size_t k = nextInstr(j, false);
      if (k >= code.size()) return std::nullopt;
      const Instr& back = *code[k].instr;
      if ((back.op == OpId::Bra || back.op == OpId::Goto) && !back.guard && !back.operands.empty()) {
        std::string n = back.operands[0].kind == Operand::Kind::Loc ? back.operands[0].loc.name : back.operands[0].name;
        auto it = labels_.find(n);
        if (it != labels_.end() && loopLabels.count(it->second)) return static_cast<size_t>(out);
      }
    }
    return std::nullopt;
  }

  // ----- instructions ------------------------------------------------------------------------------

  static Sem accessSem(Sem s) { return s == Sem::None ? Sem::Weak : s; }
  static Scope accessScope(Sem s, Scope sc) {
    if (s == Sem::None || s == Sem::Weak) return Scope::None;
    if (sc != Scope::None) return sc;
    if (s == Sem::Volatile || s == Sem::Mmio) return Scope::Sys;
    return Scope::Gpu;
  }

  std::string atomOp(const Instr& in) const {
    for (const char* f : {"add", "inc", "dec", "min", "max", "and", "or", "xor", "exch", "cas", "sub", "mul", "div"})
      if (in.hasFlag(f)) return f;
    fail(in.src, "atom/red without an operation (.add, .cas, .exch, ...)");
  }

  ExprId atomNext(const std::string& op, ExprId old, ExprId b, ExprId c) {
    auto& X = prog_.exprs;
    if (op == "add") return X.make(ExprOp::Add, {old, b});
    // Dat3M operations (no PTX counterpart; the parser warned): sub = add of the negation.
    if (op == "sub") return X.make(ExprOp::Sub, {old, b});
    if (op == "mul") return X.make(ExprOp::Mul, {old, b});
    if (op == "div") return X.make(ExprOp::Div, {old, b});
    if (op == "and") return X.make(ExprOp::And, {old, b});
    if (op == "or") return X.make(ExprOp::Or, {old, b});
    if (op == "xor") return X.make(ExprOp::Xor, {old, b});
    if (op == "exch") return b;
    if (op == "min") return X.make(ExprOp::Ite, {X.make(ExprOp::Lt, {b, old}), b, old});
    if (op == "max") return X.make(ExprOp::Ite, {X.make(ExprOp::Lt, {old, b}), b, old});
    if (op == "inc")
      return X.make(ExprOp::Ite,
                    {X.make(ExprOp::Le, {b, old}), X.constant(0), X.make(ExprOp::Add, {old, X.constant(1)})});
    if (op == "dec")
      return X.make(ExprOp::Ite,
                    {X.make(ExprOp::LOr, {X.make(ExprOp::Eq, {old, X.constant(0)}), X.make(ExprOp::Lt, {b, old})}), b,
                     X.make(ExprOp::Sub, {old, X.constant(1)})});
    return old;
  }

  ExprId binop(OpId op, ExprId a, ExprId b) {
    ExprOp e = ExprOp::Add;
    switch (op) {
      case OpId::Add: e = ExprOp::Add; break;
      case OpId::Sub: e = ExprOp::Sub; break;
      case OpId::Mul: e = ExprOp::Mul; break;
      case OpId::Div: e = ExprOp::Div; break;
      case OpId::And: e = ExprOp::And; break;
      case OpId::Or: e = ExprOp::Or; break;
      case OpId::Xor: e = ExprOp::Xor; break;
      default: break;
    }
    return prog_.exprs.make(e, {a, b});
  }

  ExprId compare(const Instr& in, ExprId a, ExprId b) {
    auto& X = prog_.exprs;
    for (const auto& f : in.flags) {
      if (f == "eq") return X.make(ExprOp::Eq, {a, b});
      if (f == "ne") return X.make(ExprOp::Ne, {a, b});
      if (f == "lt" || f == "lo") return X.make(ExprOp::Lt, {a, b});
      if (f == "le" || f == "ls") return X.make(ExprOp::Le, {a, b});
      if (f == "gt" || f == "hi") return X.make(ExprOp::Lt, {b, a});
      if (f == "ge" || f == "hs") return X.make(ExprOp::Le, {b, a});
    }
    fail(in.src, "setp without a supported comparison (.eq .ne .lt .le .gt .ge .lo .ls .hi .hs)");
  }

  void unsupported(const Instr& in, const std::string& why) const {
    fail(in.src, fmt::format("'{}' is not supported by the event lowering: {}", ptx::opInfo(in.op).mnemonic, why));
  }

  Flow step(PathState& st, const Instr& in, std::vector<PathState>& work) {
    auto& X = prog_.exprs;
    const auto& info = ptx::opInfo(in.op);
    switch (in.op) {
      // ---- plain accesses ----
      case OpId::Ld:
      case OpId::Tld:
      case OpId::Suld:
      case OpId::Cold: {
        Access a = resolve(st, operand(in, 1, "address"), in.space, in);
        Sem s = accessSem(in.sem);
        if (s == Sem::Release || s == Sem::AcqRel) fail(in.src, "a load cannot have .release semantics");
        EventId r = emitRead(st, in, a, info.proxy, s, accessScope(s, in.scope));
        setReg(st, operand(in, 0, "destination"), X.readVal(r));
        return Flow::Next;
      }
      case OpId::St:
      case OpId::Sust: {
        Access a = resolve(st, operand(in, 0, "address"), in.space, in);
        Sem s = accessSem(in.sem);
        if (s == Sem::Acquire || s == Sem::AcqRel) fail(in.src, "a store cannot have .acquire semantics");
        ExprId v = value(st, operand(in, 1, "value"));
        emitWrite(st, in, a, info.proxy, s, accessScope(s, in.scope), v);
        return Flow::Next;
      }
      case OpId::Atom:
      case OpId::Red:
      case OpId::Suatom:
      case OpId::Sured: {
        bool isRed = in.op == OpId::Red || in.op == OpId::Sured;
        size_t ai = isRed ? 0 : 1;
        Access a = resolve(st, operand(in, ai, "address"), in.space, in);
        Sem s = in.sem == Sem::None ? Sem::Relaxed : in.sem;
        // `.weak`: the Dat3M weak read-modify-write (atomic, not morally strong), no scope.
        if (s == Sem::Weak && !in.dialect) fail(in.src, "atomic operations cannot be .weak");
        Scope sc = s == Sem::Weak ? Scope::None : in.scope == Scope::None ? Scope::Gpu : in.scope;
        std::string op = atomOp(in);
        ExprId b = value(st, operand(in, ai + 1, "source"));
        ExprId c = op == "cas" ? value(st, operand(in, ai + 2, "new value")) : X.constant(0);
        std::vector<std::string> tags;
        if (isRed) tags.push_back("RED");
        if (op == "cas") {
          if (isRed) unsupported(in, "red has no .cas form");
          return lowerCas(st, in, a, info.proxy, s, sc, b, c, work);
        }
        auto [r, w] =
            emitRmw(st, in, a, info.proxy, s, sc, tags, "." + op, [&](ExprId old) { return atomNext(op, old, b, c); });
        if (!isRed) setReg(st, operand(in, 0, "destination"), X.readVal(r));
        return Flow::Next;
      }

      // ---- fences ----
      case OpId::Fence: {
        Sem s = in.sem == Sem::None ? Sem::AcqRel : in.sem;
        Scope sc = in.scope == Scope::None ? Scope::Gpu : in.scope;
        Event f = fenceEvent(in, s, sc);
        switch (s) {
          case Sem::Sc: addTag(f, "F_SC"); break;
          case Sem::AcqRel: addTag(f, "F_ACQ_REL"); break;
          case Sem::Acquire: addTag(f, "F_ACQ"); break;
          case Sem::Release: addTag(f, "F_REL"); break;
          default: fail(in.src, "fence semantics must be .sc, .acq_rel, .acquire or .release");
        }
        addRestrictTags(f, in);
        emitFence(st, std::move(f), "F" + semLabel(s, sc));
        return Flow::Next;
      }
      case OpId::Membar: {
        Scope sc = Scope::Gpu;
        if (in.hasFlag("cta")) sc = Scope::Cta;
        if (in.hasFlag("sys")) sc = Scope::Sys;
        Event f = fenceEvent(in, Sem::Sc, sc);
        addTag(f, "F_SC");
        emitFence(st, std::move(f), "F" + semLabel(Sem::Sc, sc));
        return Flow::Next;
      }
      case OpId::FenceProxyAlias: {
        Event f = fenceEvent(in, Sem::None, Scope::None);
        addTag(f, "PF_ALIAS");
        emitFence(st, std::move(f), "F.proxy.alias");
        return Flow::Next;
      }
      case OpId::FenceProxyKind: {
        Event f = fenceEvent(in, Sem::None, Scope::None);
        std::string kind;
        for (const char* k : {"surface", "texture", "constant", "generic", "alias", "async"})
          if (in.hasFlag(k)) kind = k;
        if (kind == "surface")
          addTag(f, "PF_SURFACE");
        else if (kind == "texture")
          addTag(f, "PF_TEXTURE");
        else if (kind == "constant")
          addTag(f, "PF_CONSTANT");
        else if (kind == "generic")
          addTag(f, "PF_GENERIC");
        else if (kind == "alias")
          addTag(f, "PF_ALIAS");
        else if (kind == "async") {
          addTag(f, "PF_ASYNC");
          addSpaceTags(f, in.space);
        } else
          fail(in.src, "fence.proxy needs a proxy kind (.alias .async .surface .texture .constant .generic)");
        emitFence(st, std::move(f), "F.proxy." + kind);
        return Flow::Next;
      }
      case OpId::FenceProxyAsync: {
        Event f = fenceEvent(in, Sem::None, Scope::None);
        addTag(f, "PF_ASYNC");
        addSpaceTags(f, in.space);
        emitFence(st, std::move(f), fmt::format("F.proxy.async{}", ptx::toString(in.space)));
        return Flow::Next;
      }
      case OpId::FenceProxyAsyncGen: {
        if (in.sem != Sem::Release && in.sem != Sem::Acquire)
          fail(in.src, "fence.proxy.async::generic needs .release or .acquire");
        Scope sc = in.scope == Scope::None ? Scope::Cluster : in.scope;
        Event f = fenceEvent(in, in.sem, sc);
        addTag(f, in.sem == Sem::Release ? "PF_ASYNC_REL" : "PF_ASYNC_ACQ");
        addRestrictTags(f, in);
        emitFence(st, std::move(f), fmt::format("F.proxy.async::generic{}", semLabel(in.sem, sc)));
        return Flow::Next;
      }
      case OpId::FenceProxyTmap: {
        if (in.sem != Sem::Release && in.sem != Sem::Acquire)
          fail(in.src, "fence.proxy.tensormap::generic needs .release or .acquire");
        Scope sc = in.scope == Scope::None ? Scope::Gpu : in.scope;
        Event f = fenceEvent(in, in.sem, sc);
        addTag(f, in.sem == Sem::Release ? "PF_TMAP_REL" : "PF_TMAP_ACQ");
        std::string range;
        if (in.sem == Sem::Acquire && !in.operands.empty()) {
          // The acquire orders the tensormap accesses of [addr, addr+size-1] (§9.7.13.4; one litmus location
          // is one tensor-map object): the fence carries the virtual address of its operand, so `vloc`
          // relates it to those accesses (docs/lowering.md "Tensor maps").
          Access a = resolve(st, in.operands[0], Space::Generic, in);
          if (a.shared)
            fail(in.operands[0].src,
                 "fence.proxy.tensormap::generic.acquire: the address must be in .global (PTX ISA 9.2 §9.7.13.4)");
          f.vloc = a.vaddr;
          range = " [" + vName(a.vaddr) + "]";
        }
        emitFence(st, std::move(f), fmt::format("F.proxy.tensormap::generic{}{}", semLabel(in.sem, sc), range));
        return Flow::Next;
      }
      case OpId::FenceMbarrierInit: {
        Scope sc = in.scope == Scope::None ? Scope::Cluster : in.scope;
        Event f = fenceEvent(in, Sem::Release, sc);
        addTag(f, "INIT_FENCE");
        emitFence(st, std::move(f), "F.mbarrier_init" + semLabel(Sem::Release, sc));
        return Flow::Next;
      }

      // ---- execution barriers ----
      case OpId::BarSync:
      case OpId::BarArrive: {
        // The barrier id and the thread count may be registers whose value the execution decides: the
        // path forks over their possible values (ids 0..15; counts 1..the CTA's threads), so barriers
        // pair only when their runtime ids are equal (PTX ISA 9.2 §9.7.13.1).
        const int cta = thread(curThread_).where.cta;
        const ExprId idv = value(st, operand(in, 0, "barrier id"));
        std::optional<int64_t> idk = pickValue(
            st, idv, work,
            [&](int64_t k) {
              return X.make(ExprOp::Eq, {idv, X.constant(k)});
            },
            0, 15);
        if (!idk) {
          st.undefinedIf.push_back({X.constant(1), fmt::format("{}: barrier id outside 0..15 (PTX ISA 9.2 §9.7.13.1)",
                                                               printInstrShort(in))});
          return Flow::Next;
        }
        const int64_t id = *idk;
        bool sync = in.op == OpId::BarSync;
        int count = -1;
        if (in.operands.size() > 1) {
          // A litmus thread stands for a warp: a PTX count (a multiple of the warp size) counts warps;
          // a smaller count is read as litmus threads directly (`bar.sync 1, 2`).
          const ExprId nv = value(st, in.operands[1]);
          const int ctaThreads = static_cast<int>(threadsOfCta(cta));
          std::optional<int64_t> nk = pickValue(
              st, nv, work,
              [&](int64_t k) {
                return X.make(ExprOp::LOr,
                              {X.make(ExprOp::Eq, {nv, X.constant(k)}), X.make(ExprOp::Eq, {nv, X.constant(32 * k)})});
              },
              1, ctaThreads);
          if (!nk) {
            ExprId nonPositive = X.make(ExprOp::Le, {nv, X.constant(0)});
            if (decide(st, nonPositive, work, [](PathState&) {})) {
              if (prog_.exprs.isConst(nv)) fail(in.operands[1].src, "the thread count must be positive");
              st.undefinedIf.push_back(
                  {X.constant(1),
                   fmt::format("{}: thread count not positive (PTX ISA 9.2 §9.7.13.1)", printInstrShort(in))});
              return Flow::Next;
            }
            nk = ctaThreads + 1;  // more threads than the CTA has: the barrier never completes
          }
          count = static_cast<int>(*nk);
        }
        int b = barrierOf(false, cta, id);
        Event f = fenceEvent(in, sync ? Sem::AcqRel : Sem::Release, Scope::Cta);
        addTag(f, sync ? "BAR_SYNC" : "BAR_ARRIVE");
        addTag(f, sync ? "F_ACQ_REL" : "F_REL");
        int gen = barrierUse(st, b).arrived++;
        if (count >= 0) barrierUse(st, b).counts[gen] = count;
        EventId e = emitFence(st, std::move(f), fmt::format("{} {}", sync ? "bar.sync" : "bar.arrive", id));
        bars_.push_back({e, curThread_, cta, id, gen, sync, count});
        if (sync) waitAtBarrier(st, b, gen, e);
        return Flow::Next;
      }
      case OpId::BarrierClusterArrive: {
        bool relaxed = in.sem == Sem::Relaxed;
        if (in.sem != Sem::None && in.sem != Sem::Relaxed && in.sem != Sem::Release)
          fail(in.src, "barrier.cluster.arrive semantics must be .release or .relaxed");
        Event f = fenceEvent(in, relaxed ? Sem::Relaxed : Sem::Release, Scope::Cluster);
        addTag(f, "CLUSTER_ARRIVE");
        if (!relaxed) addTag(f, "F_REL");
        EventId e = emitFence(st, std::move(f), relaxed ? "barrier.cluster.arrive.relaxed" : "barrier.cluster.arrive");
        const int cluster = thread(curThread_).where.cluster;
        ++barrierUse(st, barrierOf(true, cluster, 0)).arrived;
        clusterArrives_.push_back({e, curThread_, cluster, 0, st.clusterArriveGen++, false});
        return Flow::Next;
      }
      case OpId::BarrierClusterWait: {
        Event f = fenceEvent(in, Sem::Acquire, Scope::Cluster);
        addTag(f, "CLUSTER_WAIT");
        addTag(f, "F_ACQ");
        EventId e = emitFence(st, std::move(f), "barrier.cluster.wait");
        const int cluster = thread(curThread_).where.cluster;
        int gen = st.clusterWaitGen++;
        clusterWaits_.push_back({e, curThread_, cluster, 0, gen, true});
        waitAtBarrier(st, barrierOf(true, cluster, 0), gen, e);
        return Flow::Next;
      }

      // ---- mbarrier ----
      case OpId::MbarrierInit: {
        Access a = resolve(st, operand(in, 0, "address"), in.space, in);
        ExprId count = value(st, operand(in, 1, "count"));
        ExprId v = X.make(ExprOp::Shl, {count, X.constant(24)});
        EventId w = emitWrite(st, in, a, Proxy::Generic, Sem::Weak, Scope::None, v, ".mbarrier_init");
        addTag(prog_.events[static_cast<size_t>(w)], "MB_INIT");
        return Flow::Next;
      }
      case OpId::MbarrierInval: {
        Access a = resolve(st, operand(in, 0, "address"), in.space, in);
        EventId w = emitWrite(st, in, a, Proxy::Generic, Sem::Weak, Scope::None, X.constant(0), ".mbarrier_inval");
        addTag(prog_.events[static_cast<size_t>(w)], "MB_INVAL");
        return Flow::Next;
      }
      case OpId::MbarrierExpectTx:
      case OpId::MbarrierCompleteTx: {
        bool expect = in.op == OpId::MbarrierExpectTx;
        Access a = resolve(st, operand(in, 0, "address"), in.space, in);
        ExprId n = value(st, operand(in, 1, "tx count"));
        if (!expect) n = X.make(ExprOp::Sub, {X.constant(0), n});
        Sem s = in.sem == Sem::None ? Sem::Relaxed : in.sem;
        Scope sc = in.scope == Scope::None ? Scope::Cta : in.scope;
        ExprId exp = X.constant(expectedCount(a.loc));
        emitRmw(st, in, a, Proxy::Generic, s, sc, {expect ? "MB_EXPECT_TX" : "MB_COMPLETE_TX"},
                expect ? ".expect_tx" : ".complete_tx", [&](ExprId old) {
                  return X.make(ExprOp::MbTx, {old, n, exp});
                });
        return Flow::Next;
      }
      case OpId::MbarrierArrive:
      case OpId::MbarrierArriveDrop: {
        int ai = firstAddr(in);
        if (ai < 0) fail(in.src, "mbarrier.arrive needs an address operand");
        Access a = resolve(st, in.operands[static_cast<size_t>(ai)], in.space, in);
        ExprId count = X.constant(1), tx = X.constant(0);
        std::vector<const Operand*> rest;
        for (size_t i = static_cast<size_t>(ai) + 1; i < in.operands.size(); ++i) rest.push_back(&in.operands[i]);
        if (in.hasFlag("expect_tx")) {
          if (rest.empty()) fail(in.src, "mbarrier.arrive.expect_tx needs a tx count");
          tx = value(st, *rest[0]);
          if (rest.size() > 1) count = value(st, *rest[1]);
        } else if (!rest.empty()) {
          count = value(st, *rest[0]);
        }
        Sem s = in.sem == Sem::None ? Sem::Release : in.sem;
        Scope sc = in.scope == Scope::None ? Scope::Cta : in.scope;
        ExprId exp = X.constant(expectedCount(a.loc));
        std::vector<std::string> tags{"MB_ARRIVE"};
        if (in.op == OpId::MbarrierArriveDrop) tags.push_back("MB_DROP");
        if (in.hasFlag("expect_tx")) tags.push_back("MB_EXPECT_TX");
        auto [r, w] = emitRmw(st, in, a, Proxy::Generic, s, sc, tags,
                              in.op == OpId::MbarrierArriveDrop ? ".arrive_drop" : ".arrive", [&](ExprId old) {
                                // arrive_drop also lowers the expected count of every later phase
                                // (PTX 9.7.13.15.14): the state word counts the dropped arrivals.
                                ExprOp op = in.op == OpId::MbarrierArriveDrop ? ExprOp::MbArriveDrop : ExprOp::MbArrive;
                                return X.make(op, {old, count, tx, exp});
                              });
        if (ai > 0) setReg(st, in.operands[0], X.readVal(r));
        return Flow::Next;
      }
      case OpId::MbarrierTestWait:
      case OpId::MbarrierTryWait: {
        Access a = resolve(st, operand(in, 1, "address"), in.space, in);
        const Operand& pOp = operand(in, 0, "predicate");
        ExprId token = value(st, operand(in, 2, in.hasFlag("parity") ? "phase parity" : "state"));
        Sem s = in.sem == Sem::None ? Sem::Acquire : in.sem;
        if (s != Sem::Acquire && s != Sem::Relaxed) fail(in.src, "mbarrier waits must be .acquire or .relaxed");
        Scope sc = in.scope == Scope::None ? Scope::Cta : in.scope;
        EventId r =
            emitRead(st, in, a, Proxy::Generic, s, sc, in.op == OpId::MbarrierTryWait ? ".try_wait" : ".test_wait");
        addTag(prog_.events[static_cast<size_t>(r)], "MB_WAIT");
        ExprId phase = X.make(ExprOp::MbPhase, {X.readVal(r)});
        ExprId ok;
        if (in.hasFlag("parity"))
          ok = X.make(ExprOp::Eq,
                      {X.make(ExprOp::Rem, {X.make(ExprOp::Add, {phase, X.make(ExprOp::And, {token, X.constant(1)})}),
                                            X.constant(2)}),
                       X.constant(1)});
        else
          ok = X.make(ExprOp::Ne, {phase, X.make(ExprOp::MbPhase, {token})});
        // Dynamic tag MB_WAIT_OK: the wait returns True in the execution (docs/lowering.md "Dynamic tags").
        prog_.events[static_cast<size_t>(r)].dynamicTags.push_back({"MB_WAIT_OK", ok});
        if (auto exit = spinLoopExit(st.pc, in)) {
          // Blocking wait: the path continues after the loop if the wait succeeds; the alternative path
          // blocks forever (the read must read the co-last write of the mbarrier).
          PathState blocked = st;
          addGuard(blocked, X.make(ExprOp::LNot, {ok}));
          blocked.readsFinal.push_back(r);
          setReg(blocked, pOp, X.constant(0));
          finishPath(blocked, PathEnd::Blocked);
          addGuard(st, ok);
          setReg(st, pOp, X.constant(1));
          st.pc = *exit;
          return Flow::Jumped;
        }
        setReg(st, pOp, ok);
        return Flow::Next;
      }

      // ---- cp.async ----
      case OpId::CpAsync: {
        EventId m = emitMarker(st, in, "CP_ASYNC");
        Access dst =
            resolve(st, operand(in, 0, "destination"), in.space == Space::Generic ? Space::SharedCta : in.space, in);
        Access src =
            resolve(st, operand(in, 1, "source"), in.srcSpace == Space::Generic ? Space::Global : in.srcSpace, in);
        int inst = newInstance(m);
        int op = newAsyncOp(inst, in.op, dst.cta >= 0 ? dst.cta : thread(curThread_).where.cta);
        EventId r = asyncRead(st, op, in, src, Proxy::Generic, Sem::Weak, Scope::None, "CP_ASYNC");
        asyncWrite(st, op, in, dst, Proxy::Generic, Sem::Weak, Scope::None, X.readVal(r), "CP_ASYNC");
        st.cpUncommitted.push_back(op);
        st.cpAll.push_back(op);
        return Flow::Next;
      }
      case OpId::CpAsyncCommit:
      case OpId::CpAsyncBulkCommit: {
        auto& unc = in.op == OpId::CpAsyncCommit ? st.cpUncommitted : st.bulkUncommitted;
        auto& groups = in.op == OpId::CpAsyncCommit ? st.cpGroups : st.bulkGroups;
        groups.push_back(unc);
        unc.clear();
        Event f = fenceEvent(in, Sem::None, Scope::None);
        addTag(f, "COMMIT");
        addTag(f, in.op == OpId::CpAsyncCommit ? "CP_ASYNC" : "CP_BULK");
        emitFence(st, std::move(f), std::string(info.mnemonic));
        return Flow::Next;
      }
      case OpId::CpAsyncWaitGroup:
      case OpId::CpAsyncWaitAll:
      case OpId::CpAsyncBulkWait: {
        bool bulk = in.op == OpId::CpAsyncBulkWait;
        int64_t n = 0;
        if (in.op != OpId::CpAsyncWaitAll) n = constValue(st, operand(in, 0, "group count"), "the group count");
        if (n < 0) fail(in.src, "the group count must be >= 0");
        Event f = fenceEvent(in, Sem::None, Scope::None);
        addTag(f, "WAIT");
        addTag(f, bulk ? "CP_BULK" : "CP_ASYNC");
        bool readsOnly = bulk && in.hasFlag("read");
        EventId w = emitFence(st, std::move(f),
                              in.op == OpId::CpAsyncWaitAll
                                  ? "cp.async.wait_all"
                                  : fmt::format("{}{} {}", info.mnemonic, readsOnly ? ".read" : "", n));
        auto& groups = bulk ? st.bulkGroups : st.cpGroups;
        if (in.op == OpId::CpAsyncWaitAll) {
          groups.push_back(st.cpUncommitted);
          st.cpUncommitted.clear();
        }
        size_t covered = groups.size() > static_cast<size_t>(n) ? groups.size() - static_cast<size_t>(n) : 0;
        for (size_t g = 0; g < covered; ++g)
          for (int x : groups[g]) {
            if (bulk) {
              for (int op : instances_[static_cast<size_t>(x)].ops) asyncComplete(op, w, readsOnly);
            } else {
              asyncComplete(x, w, false);
            }
          }
        if (!readsOnly) groups.erase(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(covered));
        return Flow::Next;
      }
      case OpId::CpAsyncMbarArrive: {
        Access bar = resolve(st, operand(in, 0, "mbarrier"), in.space, in);
        ExprId exp = X.constant(expectedCount(bar.loc));
        EventId m = emitMarker(st, in, "CP_ASYNC");
        bool noinc = in.hasFlag("noinc");
        if (!noinc) {
          // Without .noinc the pending count is incremented (in program order) before the async arrive.
          emitRmw(st, in, bar, Proxy::Generic, Sem::Relaxed, Scope::Cta, {"MB_INC", "CP_ASYNC"}, ".inc",
                  [&](ExprId old) {
                    return X.make(ExprOp::MbArrive, {old, X.constant(-1), X.constant(0), exp});
                  });
        }
        int inst = newInstance(m);
        int op = newAsyncOp(inst, in.op, bar.cta >= 0 ? bar.cta : thread(curThread_).where.cta);
        auto [r, w] = emitRmw(
            st, in, bar, Proxy::Generic, Sem::Release, Scope::Cta, {"MB_ARRIVE", "CP_ASYNC"}, ".arrive",
            [&](ExprId old) {
              return X.make(ExprOp::MbArrive, {old, X.constant(1), X.constant(0), exp});
            },
            op);
        for (int prior : st.cpAll) {
          asyncComplete(prior, r, false);
          asyncComplete(prior, w, false);
        }
        return Flow::Next;
      }

      // ---- bulk copies ----
      case OpId::CpAsyncBulk:
      case OpId::CpAsyncBulkTensor: return lowerBulk(st, in);
      case OpId::TensormapReplace: {
        // §9.7.9.26: "treated as a weak memory operation, on the entire 1024-bit opaque tensor-map object": a
        // weak generic-proxy write of the map; its value is new_val, the new descriptor version
        // (docs/lowering.md "Tensor maps").
        Access a = resolve(st, operand(in, 0, "address"), in.space, in);
        if (a.space == Space::SharedCluster)
          fail(in.operands[0].src,
               "tensormap.replace: the address must be in .global or the executing CTA's .shared::cta (PTX ISA 9.2 "
               "§9.7.9.26: otherwise the behavior is undefined)");
        emitWrite(st, in, a, Proxy::Generic, Sem::Weak, Scope::None, value(st, in.operands.back()),
                  ".tensormap.replace");
        return Flow::Next;
      }

      // ---- cluster launch control ----
      case OpId::ClcTryCancel: return lowerTryCancel(st, in);
      case OpId::ClcQueryCancel: {
        const Operand& d = operand(in, 0, "destination");
        ExprId h = value(st, operand(in, 1, "response"));
        if (in.hasFlag("is_canceled")) {
          setReg(st, d, X.make(ExprOp::Le, {X.constant(kClcSuccessBase), h}));
          return Flow::Next;
        }
        bool first = false;
        for (const auto& f : in.flags) first = first || f.rfind("get_first_ctaid", 0) == 0;
        if (!first) unsupported(in, "unknown query (expected is_canceled or get_first_ctaid)");
        st.undefinedIf.push_back({X.make(ExprOp::Lt, {h, X.constant(kClcSuccessBase)}),
                                  fmt::format("{}: get_first_ctaid of a failed try_cancel response", in.src.str())});
        bool yz = in.hasFlag("get_first_ctaid::y") || in.hasFlag("get_first_ctaid::z");
        setReg(st, d, yz ? X.constant(0) : X.make(ExprOp::Sub, {h, X.constant(kClcSuccessBase)}));
        return Flow::Next;
      }

      // ---- register-only ----
      case OpId::Mov: {
        const Operand& d = operand(in, 0, "destination");
        const Operand& s = operand(in, 1, "source");
        if (s.kind == Operand::Kind::Loc || (s.kind == Operand::Kind::Addr && s.baseReg.empty())) {
          resolveRef(s.loc, Space::Generic, s.src);
          if (d.kind != Operand::Kind::Reg) fail(d.src, "expected a destination register");
          st.addrRegs[d.name] = s.loc;
          st.regs.erase(d.name);
        } else if (s.kind == Operand::Kind::Reg && st.addrRegs.count(s.name)) {
          if (d.kind != Operand::Kind::Reg) fail(d.src, "expected a destination register");
          st.addrRegs[d.name] = st.addrRegs.at(s.name);
          st.regs.erase(d.name);
        } else {
          setReg(st, d, value(st, s));
        }
        return Flow::Next;
      }
      case OpId::Add:
      case OpId::Sub:
      case OpId::Mul:
      case OpId::Div:
      case OpId::And:
      case OpId::Or:
      case OpId::Xor: {
        ExprId a = value(st, operand(in, 1, "source"));
        ExprId b = value(st, operand(in, 2, "source"));
        setReg(st, operand(in, 0, "destination"), binop(in.op, a, b));
        return Flow::Next;
      }
      case OpId::Setp: {
        ExprId a = value(st, operand(in, 1, "source"));
        ExprId b = value(st, operand(in, 2, "source"));
        setReg(st, operand(in, 0, "destination"), compare(in, a, b));
        return Flow::Next;
      }
      case OpId::Selp: {
        ExprId a = value(st, operand(in, 1, "source"));
        ExprId b = value(st, operand(in, 2, "source"));
        ExprId c = value(st, operand(in, 3, "predicate"));
        setReg(st, operand(in, 0, "destination"), X.make(ExprOp::Ite, {c, a, b}));
        return Flow::Next;
      }

      // ---- control flow ----
      case OpId::Bra:
      case OpId::Goto: {
        int t = labelTarget(operand(in, 0, "label"));
        return jump(st, st.pc, t) ? Flow::Jumped : Flow::Cut;
      }
      case OpId::Beq:
      case OpId::Bne:
      case OpId::Bge:
      case OpId::Ble:
      case OpId::Bgt:
      case OpId::Blt: {
        ExprId a = value(st, operand(in, 0, "source"));
        ExprId b = value(st, operand(in, 1, "source"));
        int t = labelTarget(operand(in, 2, "label"));
        ExprId c = in.op == OpId::Beq   ? X.make(ExprOp::Eq, {a, b})
                   : in.op == OpId::Bne ? X.make(ExprOp::Ne, {a, b})
                   : in.op == OpId::Bge ? X.make(ExprOp::Le, {b, a})
                   : in.op == OpId::Ble ? X.make(ExprOp::Le, {a, b})
                   : in.op == OpId::Bgt ? X.make(ExprOp::Lt, {b, a})
                                        : X.make(ExprOp::Lt, {a, b});
        if (!decide(st, c, work, [](PathState& o) { ++o.pc; })) return Flow::Next;
        return jump(st, st.pc, t) ? Flow::Jumped : Flow::Cut;
      }
      case OpId::Ret:
      case OpId::Exit: return Flow::Ended;
      default: break;
    }
    unsupported(in, "no lowering rule");
    return Flow::Next;
  }

  /// atom.cas as a path fork (PTX 9.7.13.5: a failed compare-and-swap performs only the read). The
  /// success path gets an RMW (Read + Write `c`, guard `old == b`); the failure path, pushed to `work`,
  /// a lone Read tagged `CAS_FAIL` (no `RMW`, no write, guard `old != b`). Both reads keep the
  /// instruction's semantics and scope; each path has its own read event. The success write gets ctrl
  /// edges from the reads of `b` (its existence depends on them).
  Flow lowerCas(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem, Scope scope, ExprId b, ExprId c,
                std::vector<PathState>& work) {
    auto& X = prog_.exprs;
    const Operand& dst = operand(in, 0, "destination");
    PathState failed = st;
    EventId fr = emitRead(failed, in, a, proxy, sem, scope, ".cas.fail");
    addTag(prog_.events[static_cast<size_t>(fr)], "CAS_FAIL");
    addGuard(failed, X.make(ExprOp::Ne, {X.readVal(fr), b}));
    setReg(failed, dst, X.readVal(fr));
    ++failed.pc;
    pushWork(work, std::move(failed));
    auto [r, w] = emitRmw(st, in, a, proxy, sem, scope, {}, ".cas", [&](ExprId) { return c; });
    // The write exists only if the comparison holds: ctrl from the reads of the compare value (the
    // cas's own read is linked by rmw).
    std::vector<EventId> cmpReads;
    X.collectReads(b, cmpReads);
    for (EventId x : cmpReads) rels_["ctrl"].insert({x, w});
    addGuard(st, X.make(ExprOp::Eq, {X.readVal(r), b}));
    setReg(st, dst, X.readVal(r));
    return Flow::Next;
  }

  void addRestrictTags(Event& f, const Instr& in) const {
    if (in.hasFlag("sync_restrict::shared::cta")) {
      addTag(f, "RESTRICT_SHARED_CTA");
      addTag(f, "PF_SPACE_SHARED_CTA");
    }
    if (in.hasFlag("sync_restrict::shared::cluster")) {
      addTag(f, "RESTRICT_SHARED_CLUSTER");
      addTag(f, "PF_SPACE_SHARED_CLUSTER");
    }
    if (in.hasFlag("sync_restrict::shared::cluster::read")) {
      addTag(f, "RESTRICT_SHARED_CLUSTER");
      addTag(f, "RESTRICT_READ");
      addTag(f, "PF_SPACE_SHARED_CLUSTER");
    }
  }

  static void addSpaceTags(Event& f, Space s) {
    if (s == Space::Global || s == Space::Generic) addTag(f, "PF_SPACE_GLOBAL");
    if (s == Space::SharedCta || s == Space::Generic) addTag(f, "PF_SPACE_SHARED_CTA");
    if (s == Space::SharedCluster || s == Space::Generic) addTag(f, "PF_SPACE_SHARED_CLUSTER");
  }

  /// cp.async.bulk and cp.async.bulk.tensor. The tensor copy is the same async operation whose source
  /// read is the read of the tensor map through the tensormap proxy (§9.7.9.25.5.2 "The tensorMap is
  /// accessed in tensormap proxy"): the copied value is the map's value, the descriptor version, and the
  /// box is one cell of kTensorBoxBytes (docs/lowering.md "Tensor maps").
  Flow lowerBulk(PathState& st, const Instr& in) {
    auto& X = prog_.exprs;
    bool toShared = in.space == Space::SharedCta || in.space == Space::SharedCluster;
    const bool tensor = in.op == OpId::CpAsyncBulkTensor;
    const Proxy srcProxy = tensor ? Proxy::Tensormap : Proxy::Async;
    const size_t barIdx = tensor ? 2 : 3;  // [dst], [src], size, [bar], ctaMask / [dst], [tmap, {..}], [bar], ctaMask
    auto source = [&](Space srcSpace) {
      Access src =
          resolve(st, operand(in, 1, tensor ? "tensor map" : "source"), tensor ? Space::Generic : srcSpace, in);
      if (tensor && src.shared)
        fail(in.operands[1].src,
             "the tensor map of cp.async.bulk.tensor must be a global location (PTX ISA 9.2 §9.7.9.25.5.2: .param, "
             ".const or .global; .global is modelled)");
      return src;
    };
    if (in.hasFlag("bulk_group")) {
      if (tensor) unsupported(in, "the tensor store form (.bulk_group) has no litmus abstraction");
      EventId m = emitMarker(st, in, "CP_BULK");
      Access dst = resolve(st, operand(in, 0, "destination"), in.space, in);
      Access src = resolve(st, operand(in, 1, "source"), in.srcSpace, in);
      int inst = newInstance(m);
      int op = newAsyncOp(inst, in.op, dst.cta >= 0 ? dst.cta : thread(curThread_).where.cta);
      EventId r = asyncRead(st, op, in, src, Proxy::Async, Sem::Weak, Scope::None, "CP_BULK");
      asyncWrite(st, op, in, dst, Proxy::Async, Sem::Weak, Scope::None, X.readVal(r), "CP_BULK");
      implicitProxyFence(st, op, in, "CP_BULK");
      st.bulkUncommitted.push_back(inst);
      return Flow::Next;
    }
    if (!in.hasFlag("mbarrier::complete_tx::bytes"))
      unsupported(in, "needs .mbarrier::complete_tx::bytes or .bulk_group completion");
    if (!toShared) unsupported(in, "mbarrier completion needs a shared-memory destination");
    EventId m = emitMarker(st, in, "CP_BULK");
    ExprId bytes = tensor ? X.constant(kTensorBoxBytes) : value(st, operand(in, 2, "size"));
    const Operand& dstOp = operand(in, 0, "destination");
    const Operand& barOp = operand(in, barIdx, "mbarrier");
    Space srcSpace = in.srcSpace == Space::Generic ? Space::Global : in.srcSpace;
    if (in.hasFlag("multicast::cluster")) {
      int64_t mask = constValue(st, operand(in, barIdx + 1, "ctaMask"), "the multicast ctaMask");
      auto members = ctasOfCluster(thread(curThread_).where.cluster);
      std::vector<int> dests;
      for (int bit = 0; bit < 16; ++bit) {
        if (!((mask >> bit) & 1)) continue;
        if (static_cast<size_t>(bit) >= members.size())
          fail(in.operands[barIdx + 1].src,
               fmt::format("ctaMask bit {} names no CTA of the cluster ({} CTAs)", bit, members.size()));
        dests.push_back(members[static_cast<size_t>(bit)]);
      }
      if (dests.empty()) fail(in.operands[barIdx + 1].src, "empty multicast ctaMask");
      Access src = source(srcSpace);
      int inst = newInstance(m);
      int srcOp = newAsyncOp(inst, in.op, thread(curThread_).where.cta, ".src");
      instances_[static_cast<size_t>(inst)].sourceOp = srcOp;
      EventId r = asyncRead(st, srcOp, in, src, srcProxy, Sem::Weak, Scope::None, "CP_BULK");
      for (int c : dests) {
        LocRef dref = dstOp.loc, bref = barOp.loc;
        if (!dstOp.baseReg.empty() || !barOp.baseReg.empty())
          unsupported(in, "multicast destinations must be named locations");
        dref.cta = c;
        bref.cta = c;
        Access dst = resolveRef(dref, Space::SharedCluster, dstOp.src);
        Access bar = resolveRef(bref, Space::SharedCluster, barOp.src);
        int op = newAsyncOp(inst, in.op, c, fmt::format(".cta{}", c).c_str());
        asyncWrite(st, op, in, dst, Proxy::Async, Sem::Weak, Scope::None, X.readVal(r), "CP_BULK");
        implicitProxyFence(st, op, in, "CP_BULK");
        auto [cr, cw] = asyncCompleteTx(st, op, in, bar, bytes, "CP_BULK");
        prog_.asyncOps[static_cast<size_t>(op)].completions.push_back(cr);
        prog_.asyncOps[static_cast<size_t>(srcOp)].completions.push_back(cr);
      }
      return Flow::Next;
    }
    Access dst = resolve(st, dstOp, in.space, in);
    Access src = source(srcSpace);
    Access bar = resolve(st, barOp, in.space == Space::SharedCta ? Space::SharedCta : Space::Generic, in);
    if (bar.cta != dst.cta) fail(barOp.src, "the mbarrier must be in the destination CTA's shared memory");
    int inst = newInstance(m);
    int op = newAsyncOp(inst, in.op, dst.cta);
    EventId r = asyncRead(st, op, in, src, srcProxy, Sem::Weak, Scope::None, "CP_BULK");
    asyncWrite(st, op, in, dst, Proxy::Async, Sem::Weak, Scope::None, X.readVal(r), "CP_BULK");
    implicitProxyFence(st, op, in, "CP_BULK");
    auto [cr, cw] = asyncCompleteTx(st, op, in, bar, bytes, "CP_BULK");
    prog_.asyncOps[static_cast<size_t>(op)].completions.push_back(cr);
    return Flow::Next;
  }

  Flow lowerTryCancel(PathState& st, const Instr& in) {
    auto& X = prog_.exprs;
    const Operand& respOp = operand(in, 0, "response address");
    const Operand& barOp = operand(in, 1, "mbarrier");
    const auto& me = thread(curThread_).where;
    if (!st.observedResponses.empty()) {
      ExprId anyFail = X.constant(0);
      for (ExprId v : st.observedResponses)
        anyFail = X.make(ExprOp::LOr, {anyFail, X.make(ExprOp::Eq, {v, X.constant(1)})});
      st.undefinedIf.push_back(
          {anyFail,
           fmt::format("{}: clusterlaunchcontrol.try_cancel issued after observing a failed response", in.src.str())});
    }
    EventId m = emitMarker(st, in, "CLC");
    int inst = newInstance(m);
    bool multicast = in.hasFlag("multicast::cluster::all");
    std::vector<int> targets = multicast ? ctasOfCluster(me.cluster) : std::vector<int>{me.cta};
    int srcOp = newAsyncOp(inst, in.op, me.cta, multicast ? ".src" : "");
    if (multicast) instances_[static_cast<size_t>(inst)].sourceOp = srcOp;
    // The launch queue: its value counts the clusters taken so far.
    Access q;
    q.loc = clcQueue_;
    q.vaddr = vaddrOfLoc(clcQueue_);
    q.space = Space::Global;
    auto n = static_cast<int64_t>(test_.clcPending.size());
    ExprId qOld = -1;
    emitRmw(
        st, in, q, Proxy::Generic, Sem::Relaxed, Scope::Gpu, {"CLC", "CLC_QUEUE"}, ".take",
        [&](ExprId old) {
          qOld = old;
          return X.make(ExprOp::Ite,
                        {X.make(ExprOp::Lt, {old, X.constant(n)}), X.make(ExprOp::Add, {old, X.constant(1)}), old});
        },
        srcOp);
    ExprId resp = X.constant(1);
    for (int64_t k = n - 1; k >= 0; --k)
      resp = X.make(ExprOp::Ite, {X.make(ExprOp::Eq, {qOld, X.constant(k)}),
                                  X.constant(kClcSuccessBase + test_.clcPending[static_cast<size_t>(k)]), resp});
    for (int c : targets) {
      Access dst, bar;
      if (multicast) {
        if (!respOp.baseReg.empty() || !barOp.baseReg.empty())
          unsupported(in, "multicast response and mbarrier operands must be named locations");
        LocRef dref = respOp.loc, bref = barOp.loc;
        dref.cta = c;
        bref.cta = c;
        dst = resolveRef(dref, Space::SharedCluster, respOp.src);
        bar = resolveRef(bref, Space::SharedCluster, barOp.src);
      } else {
        dst = resolve(st, respOp, in.space, in);
        bar = resolve(st, barOp, in.space, in);
      }
      int op = multicast ? newAsyncOp(inst, in.op, c, fmt::format(".cta{}", c).c_str()) : srcOp;
      asyncWrite(st, op, in, dst, Proxy::Async, Sem::Weak, Scope::None, resp, "CLC");
      auto [cr, cw] = asyncCompleteTx(st, op, in, bar, X.constant(16), "CLC");
      prog_.asyncOps[static_cast<size_t>(op)].completions.push_back(cr);
      if (op != srcOp) prog_.asyncOps[static_cast<size_t>(srcOp)].completions.push_back(cr);
    }
    return Flow::Next;
  }
};

}  // namespace

EventProgram lower(const litmus::Test& test, const LowerOptions& options) { return Lowerer(test, options).run(); }

std::optional<int> findLocation(const EventProgram& program, const litmus::LocRef& ref) {
  if (ref.cta >= 0) {
    std::string n = fmt::format("{}@cta{}", ref.name, ref.cta);
    for (size_t l = 0; l < program.locations.size(); ++l)
      if (program.locations[l].name == n) return static_cast<int>(l);
    return std::nullopt;
  }
  std::optional<int> found;
  int matches = 0;
  for (size_t l = 0; l < program.locations.size(); ++l) {
    const auto& L = program.locations[l];
    if (L.name == ref.name) return static_cast<int>(l);
    if (L.name.rfind(ref.name + "@cta", 0) == 0) {
      found = static_cast<int>(l);
      ++matches;
    }
  }
  return matches == 1 ? found : std::nullopt;
}

const std::vector<std::string>& allEventTags() {
  static const std::vector<std::string> tags = {"R",
                                                "W",
                                                "M",
                                                "F",
                                                "IW",
                                                "RMW",
                                                "GEN",
                                                "ASYNC",
                                                "TMAP",
                                                "SUR",
                                                "TEX",
                                                "CON",
                                                "WEAK",
                                                "RLX",
                                                "ACQ",
                                                "REL",
                                                "ACQ_REL",
                                                "SC",
                                                "VOL",
                                                "MMIO",
                                                "CTA",
                                                "CLUSTER",
                                                "GPU",
                                                "SYS",
                                                "GLOBAL",
                                                "SHARED",
                                                "STRONG",
                                                "F_SC",
                                                "F_ACQ_REL",
                                                "F_ACQ",
                                                "F_REL",
                                                "PF_ALIAS",
                                                "PF_ASYNC",
                                                "PF_SURFACE",
                                                "PF_TEXTURE",
                                                "PF_CONSTANT",
                                                "PF_GENERIC",
                                                "PF_ASYNC_REL",
                                                "PF_ASYNC_ACQ",
                                                "PF_TMAP_REL",
                                                "PF_TMAP_ACQ",
                                                "PF_ASYNC_IMPLICIT",
                                                "RESTRICT_SHARED_CTA",
                                                "RESTRICT_SHARED_CLUSTER",
                                                "RESTRICT_READ",
                                                "PF_SPACE_GLOBAL",
                                                "PF_SPACE_SHARED_CTA",
                                                "PF_SPACE_SHARED_CLUSTER",
                                                "BAR_SYNC",
                                                "BAR_ARRIVE",
                                                "CLUSTER_ARRIVE",
                                                "CLUSTER_WAIT",
                                                "MBAR",
                                                "MB_INIT",
                                                "MB_INVAL",
                                                "MB_ARRIVE",
                                                "MB_DROP",
                                                "MB_INC",
                                                "MB_EXPECT_TX",
                                                "MB_COMPLETE_TX",
                                                "MB_WAIT",
                                                "ASYNC_OP",
                                                "ISSUE",
                                                "WAIT",
                                                "COMMIT",
                                                "CP_ASYNC",
                                                "CP_BULK",
                                                "CLC",
                                                "CLC_QUEUE",
                                                "RED",
                                                "INIT_FENCE",
                                                "CAS_FAIL",
                                                "EXIT",
                                                "LOOP_CUT",
                                                "SPIN_CUT"};
  return tags;
}

std::optional<std::pair<int, size_t>> instructionAt(const litmus::Test& test, const SourceLoc& src) {
  for (size_t t = 0; t < test.threads.size(); ++t) {
    const auto& code = test.threads[t].code;
    for (size_t k = 0; k < code.size(); ++k)
      if (code[k].instr && code[k].instr->src.line == src.line && code[k].instr->src.col == src.col &&
          code[k].instr->src.file == src.file)
        return std::make_pair(static_cast<int>(t), k);
  }
  return std::nullopt;
}

}  // namespace ptxmm::events
