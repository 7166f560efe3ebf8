// Warp-level helpers (docs/lowering.md "Warp-level helpers"): family WarpSync (bar.warp.sync, elect.sync),
// family GridDep (griddepcontrol, programmatic dependent launch) and family Mapa (mapa). A litmus thread
// of a warp is one lane: its lane is its position among the litmus threads of its warp
// (Lowerer::warpThreads); membermask bits of lanes without a litmus thread name no thread.
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

/// The participants of `in`'s membermask (its last operand) in the executing thread's warp, or nullopt
/// when the executing thread is not in it (undefined behaviour, recorded on the path). The mask must be
/// known when the test is lowered (an immediate, or a register holding a constant).
std::optional<std::vector<int>> members(Lowerer& L, PathState& st, const Instr& in, uint64_t& mask) {
  const std::string mn(ptx::opInfo(in.op).mnemonic);
  const std::string sec = "PTX ISA 9.2 §" + std::string(ptx::opInfo(in.op).isaSection);
  const Operand& m = L.operand(in, in.operands.size() - 1, "membermask");
  const ExprId v = L.value(st, m);
  if (!L.prog_.exprs.isConst(v))
    L.fail(m.src, fmt::format("the membermask of `{}` must be known when the test is lowered (an integer, or a "
                              "register holding one)",
                              mn));
  mask = static_cast<uint64_t>(L.prog_.exprs.node(v).value) & 0xffffffffULL;
  const int t = L.curThread_;
  const int lane = L.laneOf(t);
  if (((mask >> lane) & 1) == 0) {
    st.undefinedIf.push_back(
        {L.prog_.exprs.constant(1),
         fmt::format("{}: the executing thread (lane {}) is not in membermask {:#x} ({})", mn, lane, mask, sec)});
    return std::nullopt;
  }
  std::vector<int> out;
  const std::vector<int> warp = L.warpThreads(t);
  for (size_t l = 0; l < warp.size() && l < 32; ++l)
    if ((mask >> l) & 1) out.push_back(warp[l]);
  return out;
}

/// "cta C warp W" (a thread without a warp: its own, named after it).
std::string warpName(Lowerer& L, int t) {
  const auto& w = L.thread(t).where;
  return w.warp >= 0 ? fmt::format("@cta{} warp{}", w.cta, w.warp) : fmt::format("@cta{} {}", w.cta, L.thread(t).name);
}

/// The execution barrier of `in` (its mnemonic, the warp, the effective membermask: the lanes of the warp's
/// litmus threads in it) and its participants; nullopt when the executing lane is not in the mask.
std::optional<std::pair<int, std::vector<int>>> warpBarrier(Lowerer& L, PathState& st, const Instr& in,
                                                            BarrierKind kind) {
  uint64_t mask = 0;
  auto parts = members(L, st, in, mask);
  if (!parts) return std::nullopt;
  uint64_t eff = 0;
  for (int u : *parts) eff |= 1ULL << L.laneOf(u);
  const int t = L.curThread_;
  const std::string name = fmt::format("{} {:#x} {}", ptx::opInfo(in.op).mnemonic, eff, warpName(L, t));
  return std::make_pair(L.barrierNamed(kind, name, L.thread(t).where.cta, *parts), std::move(*parts));
}

/// The thread arrives at barrier `b` (a fence-type event tagged `tag`, labelled `label`) and waits for the
/// generation of its arrival; `orders`: the generation's pairs go into bar-sync.
void arriveAndWait(Lowerer& L, PathState& st, const Instr& in, int b, Builtin tag, const std::string& label,
                   bool orders) {
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, tag);
  const int gen = L.barrierUse(st, b).arrived++;
  const int t = L.curThread_;
  EventId e = L.emitFence(st, std::move(f), label);
  L.bars_.push_back({e, t, L.thread(t).where.cta, 0, gen, true, -1, b, orders});
  L.waitAtBarrier(st, b, gen, e);
}

/// bar.warp.sync membermask (PTX ISA 9.2 §9.7.13.2): "wait until all threads corresponding to membermask
/// have executed a bar.warp.sync with the same membermask value", and it "also guarantee[s] memory
/// ordering among threads participating in barrier". One execution barrier per (warp, membermask) whose
/// generations pair in bar-sync, like a CTA barrier restricted to the participants.
Flow lowerBarWarpSync(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const auto wb = warpBarrier(L, st, in, BarrierKind::Warp);
  if (!wb) return Flow::Next;
  arriveAndWait(L, st, in, wb->first, Builtin::WARP_SYNC, L.prog_.barriers[static_cast<size_t>(wb->first)].name, true);
  return Flow::Next;
}

/// elect.sync d|p, membermask (PTX ISA 9.2 §9.7.13.14): waits until all threads of membermask execute it,
/// then exactly one of them, the leader, gets p = 1 and every one d = the leader's lane. Which one the ISA
/// does not say ("Election of a leader thread happens deterministically, i.e. the same leader thread is
/// elected for the same membermask every time"): the path forks over the participants, the leader is one
/// per membermask for all generations, and barriersConsistent keeps the paths that agree. No memory ordering.
Flow lowerElect(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  const auto wb = warpBarrier(L, st, in, BarrierKind::Elect);
  if (!wb) return Flow::Next;
  const auto& [b, parts] = *wb;
  if (L.barrierUse(st, b).leader < 0) {
    for (size_t k = 1; k < parts.size(); ++k) {
      PathState other = st;
      L.barrierUse(other, b).leader = parts[k];
      L.pushWork(work, std::move(other));  // re-executes the instruction with that leader
    }
    L.barrierUse(st, b).leader = parts.front();
  }
  const int leader = L.barrierUse(st, b).leader;
  arriveAndWait(L, st, in, b, Builtin::ELECT,
                fmt::format("{} (leader {})", L.prog_.barriers[static_cast<size_t>(b)].name, L.thread(leader).name),
                false);
  L.setReg(st, L.operand(in, 0, "destination d"), L.prog_.exprs.constant(L.laneOf(leader)));
  L.setReg(st, L.operand(in, 1, "predicate p"), L.prog_.exprs.constant(leader == L.curThread_ ? 1 : 0));
  return Flow::Next;
}

constexpr OpLowering kWarpSync[] = {
    {OpId::BarWarpSync, lowerBarWarpSync},
    {OpId::ElectSync, lowerElect},
};
static_assert(coversFamily(kWarpSync, ptx::OpFamily::WarpSync));

/// griddepcontrol.launch_dependents (PTX ISA 9.2 §9.7.13.13): lets the dependent grid be scheduled; a
/// marker event. In the primary grid it starts `grid-start` edges to every event of the dependent grid,
/// which the model uses only for a release fence of scope .gpu/.sys before it (models/ptx.cat
/// "Programmatic dependent launch").
Flow lowerGriddepLaunch(Lowerer& L, PathState& st, const Instr& in, Work&) {
  Event f = L.fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::GDC_LAUNCH);
  EventId e = L.emitFence(st, std::move(f), "griddepcontrol.launch_dependents");
  if (L.thread(L.curThread_).where.grid == 0) L.gridLaunches_.push_back(e);
  return Flow::Next;
}

/// griddepcontrol.wait (PTX ISA 9.2 §9.7.13.13): "wait until all prerequisite grids in flight have
/// completed and all the memory operations from the prerequisite grids are performed and made visible to
/// the current grid". In the dependent grid: an execution barrier whose other participants are the
/// primary grid's threads, which never arrive: it completes when they have all exited (their EXIT events
/// reach it through exit-sync, which the model turns into synchronisation). In the primary grid there is
/// no prerequisite grid: it returns at once.
Flow lowerGriddepWait(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const int t = L.curThread_;
  if (L.thread(t).where.grid == 0) {
    Event f = L.fenceEvent(in, Sem::None, Scope::None);
    addTag(f, Builtin::GDC_WAIT);
    L.emitFence(st, std::move(f), "griddepcontrol.wait");
    return Flow::Next;
  }
  std::vector<int> parts;
  for (size_t u = 0; u < L.test_.threads.size(); ++u)
    if (L.thread(static_cast<int>(u)).where.grid == 0) parts.push_back(static_cast<int>(u));
  parts.push_back(t);
  const int b = L.barrierNamed(BarrierKind::GridDep, fmt::format("griddepcontrol.wait {}", L.thread(t).name), t, parts);
  arriveAndWait(L, st, in, b, Builtin::GDC_WAIT, "griddepcontrol.wait", false);
  return Flow::Next;
}

constexpr OpLowering kGridDep[] = {
    {OpId::GriddepLaunch, lowerGriddepLaunch},
    {OpId::GriddepWait, lowerGriddepWait},
};
static_assert(coversFamily(kGridDep, ptx::OpFamily::GridDep));

/// mapa{.shared::cluster}.type d, a, b (PTX ISA 9.2 §9.7.9.23): "Get address in the CTA specified by
/// operand b which corresponds to the address specified by operand a." Addresses are static (docs/lowering.md
/// "Locations and addresses"): d holds the copy of a's shared variable in the CTA of rank b of the
/// executing thread's cluster, the location `[x@ctaN]` names. A rank register forks over the ranks of the
/// cluster; a rank outside it is undefined behaviour, and the path ends there.
Flow lowerMapaOp(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  const std::string sec = "PTX ISA 9.2 §9.7.9.23";
  const Operand& d = L.operand(in, 0, "destination");
  const Operand& a = L.operand(in, 1, "source address");
  LocRef ref;
  if (a.kind == Operand::Kind::Loc) {
    ref = a.loc;
  } else if (a.kind == Operand::Kind::Reg && st.addrRegs.count(a.name)) {
    ref = st.addrRegs.at(a.name);
  } else {
    L.fail(a.src, fmt::format("`mapa`: '{}' does not hold a shared variable's address ({})", a.name, sec));
  }
  const Access from = L.resolveRef(ref, Space::Generic, a.src);
  if (!from.shared)
    L.fail(a.src, fmt::format("`mapa` maps shared memory; '{}' is a global location ({})", ref.name, sec));
  auto& X = L.prog_.exprs;
  const std::vector<int> ctas = L.ctasOfCluster(L.thread(L.curThread_).where.cluster);
  const ExprId bv = L.value(st, L.operand(in, 2, "CTA rank"));
  std::optional<int64_t> rank = L.pickValue(
      st, bv, work,
      [&](int64_t k) {
        return X.make(ExprOp::Eq, {bv, X.constant(k)});
      },
      0, static_cast<int64_t>(ctas.size()) - 1);
  if (!rank) {
    // d would hold no address of the test: the path ends here (its behaviour is undefined anyway).
    st.undefinedIf.push_back({X.constant(1), fmt::format("mapa: CTA rank outside the cluster ({})", sec)});
    return Flow::Ended;
  }
  ref.cta = ctas[static_cast<size_t>(*rank)];
  L.resolveRef(ref, Space::SharedCluster, in.src);  // the copy exists (an owner-only variable has one)
  st.addrRegs[d.name] = ref;
  st.regs.erase(d.name);
  return Flow::Next;
}

constexpr OpLowering kMapa[] = {{OpId::Mapa, lowerMapaOp}};
static_assert(coversFamily(kMapa, ptx::OpFamily::Mapa));

}  // namespace

Flow lowerWarpSync(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kWarpSync, L, st, in, work);
}
int mbarrierOperandWarpSync(const Instr&) { return -1; }

Flow lowerGridDep(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kGridDep, L, st, in, work);
}
int mbarrierOperandGridDep(const Instr&) { return -1; }

Flow lowerMapa(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kMapa, L, st, in, work); }
int mbarrierOperandMapa(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
