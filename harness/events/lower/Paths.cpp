// Path exploration of the event lowering: the per-thread DFS over control-flow paths, forks on symbolic
// conditions, loops and liveness (docs/lowering.md "Control flow", "Loops and liveness") and the paths
// blocked at execution barriers ("Execution barriers", "Thread exit").
#include <fmt/format.h>

#include <algorithm>

#include "events/lower/Lowerer.hpp"
#include "support/Budget.hpp"

namespace ptxmm::events::lowering {

void Lowerer::finishSyncRelations() {
  for (const auto& a : bars_)
    for (const auto& b : bars_)
      if (b.isSync && a.orders && b.orders && a.thread != b.thread && a.barrier == b.barrier && a.gen == b.gen)
        rel(Builtin::bar_sync).insert({a.ev, b.ev});
  for (const auto& a : clusterArrives_)
    for (const auto& w : clusterWaits_)
      if (a.group == w.group && a.gen == w.gen) rel(Builtin::cluster_sync).insert({a.ev, w.ev});
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
        if (w.isSync && w.count < 0 && w.thread != x.thread && w.barrier == static_cast<int>(b) && w.gen >= from)
          rel(Builtin::exit_sync).insert({x.ev, w.ev});
    }
  // grid-start: the primary grid's launch_dependents -> every event of the dependent grid (its start).
  for (EventId l : gridLaunches_)
    for (size_t e = 0; e < prog_.events.size(); ++e) {
      const int th = prog_.events[e].thread;
      if (th >= 0 && prog_.threads[static_cast<size_t>(th)].where.grid == 1)
        rel(Builtin::grid_start).insert({l, static_cast<EventId>(e)});
    }
}

void Lowerer::lowerThread(int t) {
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

void Lowerer::addGuard(PathState& st, ExprId g) {
  st.guards.push_back(g);
  addCtrlReads(st, g);
}

void Lowerer::addCtrlReads(PathState& st, ExprId g) {
  std::vector<EventId> reads;
  prog_.exprs.collectReads(g, reads);
  for (EventId r : reads)
    if (std::find(st.ctrlReads.begin(), st.ctrlReads.end(), r) == st.ctrlReads.end()) st.ctrlReads.push_back(r);
}

std::optional<bool> Lowerer::known(const PathState& st, ExprId c) const {
  if (auto k = knownIn(st, c)) return k;
  const ExprNode& n = prog_.exprs.node(c);
  if (n.op == ExprOp::LNot)
    if (auto k = knownIn(st, n.args[0])) return !*k;
  return std::nullopt;
}

void Lowerer::assume(PathState& st, ExprId c, bool v) const {
  st.known[c] = v;
  const ExprNode& n = prog_.exprs.node(c);
  if (n.op == ExprOp::LNot) st.known[n.args[0]] = !v;
}

bool Lowerer::isBoolean(ExprId x) const {
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

void Lowerer::pushWork(Work& work, PathState st) {
  if (static_cast<int>(work.size() + 2 + prog_.paths[static_cast<size_t>(curThread_)].size()) > opt_.maxPaths)
    fail(thread(curThread_).src,
         fmt::format("thread {} has more than {} control-flow paths", thread(curThread_).name, opt_.maxPaths));
  work.push_back(std::move(st));
}

void Lowerer::checkPathLimit(int t, size_t extra) const {
  if (prog_.paths[static_cast<size_t>(t)].size() + extra > static_cast<size_t>(opt_.maxPaths))
    fail(thread(t).src, fmt::format("thread {} has more than {} control-flow paths", thread(t).name, opt_.maxPaths));
}

Path Lowerer::makePath(const PathState& st, PathEnd end) {
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
    for (size_t j = i + 1; j < st.events.size(); ++j) rel(Builtin::po).insert({st.events[i], st.events[j]});
  return p;
}

void Lowerer::finishPath(PathState& st, PathEnd end) {
  checkPathLimit(curThread_, 1);
  if (end == PathEnd::Normal && !st.wgmmaPending.empty())
    // The final registers are observed: an accumulator not waited for is accessed (§9.7.15.7.3).
    st.undefinedIf.push_back({prog_.exprs.constant(1),
                              fmt::format("the thread ends before the wgmma.wait_group of the wgmma.mma_async writing "
                                          "accumulator register '{}': its value is undefined (PTX ISA 9.2 §9.7.15.7.3)",
                                          st.wgmmaPending.begin()->first)});
  if (end == PathEnd::Normal && hasExecBarriers_) emitExit(st);
  const bool spin = end == PathEnd::Cut && emitLoopCut(st);
  prog_.paths[static_cast<size_t>(curThread_)].push_back(makePath(st, end));
  prog_.paths[static_cast<size_t>(curThread_)].back().spin = spin;
}

bool Lowerer::emitLoopCut(PathState& st) {
  const auto mark = st.iterStart.find(st.pc);
  const bool spin = mark != st.iterStart.end() && isSpinIteration(st, mark->second);
  const size_t first = spin ? mark->second.events : st.events.size();
  const auto& code = thread(curThread_).code;
  Event e;
  e.type = EventType::Fence;
  e.op = code[st.pc].instr->op;
  e.src = code[st.pc].instr->src;
  addTag(e, Builtin::LOOP_CUT);
  if (spin) addTag(e, Builtin::SPIN_CUT);
  e.label = spin ? "SPIN" : "CUT";
  const size_t last = st.events.size();
  const EventId m = emit(st, std::move(e));
  for (size_t k = first; k < last; ++k)
    if (prog_.events[static_cast<size_t>(st.events[k])].type == EventType::Read)
      rel(Builtin::spin_iter).insert({m, st.events[k]});
  return spin;
}

bool Lowerer::isSpinIteration(const PathState& st, const PathState::IterMark& m) const {
  if (st.asyncEvents.size() != m.asyncEvents) return false;
  for (size_t k = m.events; k < st.events.size(); ++k) {
    const Event& e = prog_.events[static_cast<size_t>(st.events[k])];
    if (e.type == EventType::Write) return false;
    if (e.type == EventType::Fence &&
        (ptx::opInfo(e.op).family == ptx::OpFamily::Barrier || ptx::opInfo(e.op).family == ptx::OpFamily::WarpSync ||
         ptx::opInfo(e.op).family == ptx::OpFamily::GridDep))
      return false;
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

void Lowerer::emitExit(PathState& st) {
  Event e;
  e.type = EventType::Fence;
  e.op = OpId::Exit;
  const auto& code = thread(curThread_).code;
  e.src = st.pc < code.size() && code[st.pc].instr ? code[st.pc].instr->src : thread(curThread_).src;
  addTag(e, Builtin::EXIT);
  e.label = "EXIT";
  ExitRecord x{emit(st, std::move(e)), curThread_, {}};
  for (const auto& [b, use] : st.barUse) x.arrived[b] = use.arrived;
  exits_.push_back(std::move(x));
}

int Lowerer::barrierOf(bool cluster, int group, int64_t id) {
  auto key = std::make_tuple(cluster, group, id);
  auto it = barrierIndex_.find(key);
  if (it == barrierIndex_.end()) {
    ExecBarrier b;
    b.cluster = cluster;
    b.kind = cluster ? BarrierKind::Cluster : BarrierKind::Named;
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

int Lowerer::barrierNamed(BarrierKind kind, const std::string& name, int group, const std::vector<int>& participants) {
  auto it = namedBarrierIndex_.find(name);
  if (it == namedBarrierIndex_.end()) {
    ExecBarrier b;
    b.kind = kind;
    b.group = group;
    b.id = static_cast<int64_t>(namedBarrierIndex_.size());
    b.name = name;
    b.participants = participants;
    it = namedBarrierIndex_.emplace(name, static_cast<int>(prog_.barriers.size())).first;
    prog_.barriers.push_back(std::move(b));
  }
  return it->second;
}

std::vector<int> Lowerer::warpThreads(int t) const {
  const auto& me = thread(t).where;
  if (me.warp < 0) return {t};
  std::vector<int> out;
  for (size_t u = 0; u < test_.threads.size(); ++u) {
    const auto& w = thread(static_cast<int>(u)).where;
    if (w.cta == me.cta && w.warp == me.warp) out.push_back(static_cast<int>(u));
  }
  return out;
}

int Lowerer::laneOf(int t) const {
  const std::vector<int> w = warpThreads(t);
  return static_cast<int>(std::find(w.begin(), w.end(), t) - w.begin());
}

BarrierUse& Lowerer::barrierUse(PathState& st, int b) {
  BarrierUse& u = st.barUse[b];
  u.barrier = b;
  return u;
}

void Lowerer::waitAtBarrier(PathState& st, int b, int gen, EventId e) {
  PathState blocked = st;
  barrierUse(blocked, b).blockedGen = gen;
  Path p = makePath(blocked, PathEnd::Blocked);
  p.blockedAt = e;
  barrierCandidates_[static_cast<size_t>(curThread_)].push_back(std::move(p));
  barrierUse(st, b).passed.push_back(gen);
}

bool Lowerer::mayStayIncomplete(int b, int gen, int t, const Path& waiting) const {
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

void Lowerer::addBarrierBlockedPaths() {
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

int Lowerer::labelTarget(const Operand& o) const {
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

bool Lowerer::jump(PathState& st, size_t from, int target) {
  if (static_cast<size_t>(target) <= from) {
    int& n = st.backCount[from];
    if (n >= opt_.unroll) return false;
    ++n;
    st.iterStart[from] = {st.events.size(), st.asyncEvents.size(), st.trace.size()};
  }
  st.pc = static_cast<size_t>(target);
  return true;
}

void Lowerer::runPath(PathState& st, Work& work) {
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

}  // namespace ptxmm::events::lowering
