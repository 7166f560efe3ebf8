// The generic part of the event lowering: tags, the run of a whole test, operands, event creation and
// the bookkeeping of asynchronous operations (see lower/Lowerer.hpp).
#include "events/lower/Lowerer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "support/Budget.hpp"

namespace ptxmm::events::lowering {

// ---------------------------------------------------------------------------------------------------
// Tags
// ---------------------------------------------------------------------------------------------------

void addTag(Event& e, Builtin t) {
  const std::string_view name = builtinName(t);
  if (std::find(e.tags.begin(), e.tags.end(), name) == e.tags.end()) e.tags.emplace_back(name);
}

Builtin proxyTag(Proxy p) {
  switch (p) {
    case Proxy::Generic: return Builtin::GEN;
    case Proxy::Async: return Builtin::ASYNC;
    case Proxy::Tensormap: return Builtin::TMAP;
    case Proxy::Surface: return Builtin::SUR;
    case Proxy::Texture: return Builtin::TEX;
    case Proxy::Constant: return Builtin::CON;
  }
  return Builtin::GEN;
}

void addSemTags(Event& e) {
  switch (e.sem) {
    case Sem::None: break;
    case Sem::Weak: addTag(e, Builtin::WEAK); break;
    case Sem::Relaxed: addTag(e, Builtin::RLX); break;
    case Sem::Acquire: addTag(e, Builtin::ACQ); break;
    case Sem::Release: addTag(e, Builtin::REL); break;
    case Sem::AcqRel: addTag(e, Builtin::ACQ_REL); break;
    case Sem::Sc: addTag(e, Builtin::SC); break;
    case Sem::Volatile: addTag(e, Builtin::VOL); break;
    case Sem::Mmio:
      addTag(e, Builtin::RLX);
      addTag(e, Builtin::MMIO);
      break;
  }
  switch (e.scope) {
    case Scope::None: break;
    case Scope::Cta: addTag(e, Builtin::CTA); break;
    case Scope::Cluster: addTag(e, Builtin::CLUSTER); break;
    case Scope::Gpu: addTag(e, Builtin::GPU); break;
    case Scope::Sys: addTag(e, Builtin::SYS); break;
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

EventProgram Lowerer::run() {
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
                         stmt.instr->op == OpId::BarrierClusterArrive || stmt.instr->op == OpId::BarrierClusterWait ||
                         stmt.instr->op == OpId::BarWarpSync || stmt.instr->op == OpId::ElectSync ||
                         stmt.instr->op == OpId::GriddepWait))
        hasExecBarriers_ = true;
  for (size_t t = 0; t < test_.threads.size(); ++t) lowerThread(static_cast<int>(t));
  addBarrierBlockedPaths();
  finishAsyncRelations();
  finishSyncRelations();
  for (auto& [name, pairs] : rels_) prog_.relations[name] = PairList(pairs.begin(), pairs.end());
  for (const auto& r : builtinNames(BuiltinKind::ProgramRelation)) prog_.relations[r];  // present even when empty
  return std::move(prog_);
}

EventId Lowerer::push(Event e) {
  if (opt_.maxEvents > 0 && prog_.events.size() >= static_cast<size_t>(opt_.maxEvents))
    throw SizeLimit(
        fmt::format("more than {} events (all paths of all threads so far); the size limit is --max-events {}",
                    opt_.maxEvents, opt_.maxEvents));
  e.id = static_cast<EventId>(prog_.events.size());
  prog_.events.push_back(std::move(e));
  return prog_.events.back().id;
}

[[noreturn]] void Lowerer::fail(const SourceLoc& at, const std::string& msg) const { throw DiagnosticError(at, msg); }

const Operand& Lowerer::operand(const Instr& in, size_t i, const char* what) const {
  if (i >= in.operands.size())
    fail(in.src, fmt::format("'{}' is missing its {} operand", ptx::opInfo(in.op).mnemonic, what));
  return in.operands[i];
}

int64_t Lowerer::specialValue(int t, const Operand& o) const {
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
  if (n == "laneid") return laneOf(t);  // the thread's position among its warp's litmus threads
  if (n == "cluster_ctaid.x" || n == "cluster_ctarank") return clusterRank(w.cta);
  if (n == "clusterid.x" || n == "clusterid") return w.cluster;
  if (n == "cluster_nctarank" || n == "cluster_nctaid.x") return static_cast<int64_t>(ctasOfCluster(w.cluster).size());
  fail(o.src, fmt::format("unsupported special register '{}'", o.name));
}

ExprId Lowerer::value(PathState& st, const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::Imm: return prog_.exprs.constant(o.imm);
    case Operand::Kind::Reg: {
      wgmmaRegisterAccess(st, o, "read");
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

void Lowerer::setReg(PathState& st, const Operand& d, ExprId v) {
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
  wgmmaRegisterAccess(st, d, "written");
  st.regs[d.name] = v;
  st.addrRegs.erase(d.name);
  st.regsSinceWgmmaFence.insert(d.name);
}

void Lowerer::wgmmaRegisterAccess(PathState& st, const Operand& r, const char* how) {
  if (!st.wgmmaPending.count(r.name)) return;
  // PTX ISA 9.2 §9.7.15.7.3: "Accessing the accumulator register ... of a wgmma.mma_async instruction
  // without first performing a wgmma.wait_group instruction that waits on a wgmma-group including that
  // wgmma.mma_async instruction is undefined behavior."
  st.undefinedIf.push_back({prog_.exprs.constant(1),
                            fmt::format("accumulator register '{}' {} before the wgmma.wait_group that waits for its "
                                        "wgmma.mma_async (PTX ISA 9.2 §9.7.15.7.3)",
                                        r.name, how)});
}

Event Lowerer::memEvent(EventType type, const Instr& in, const Access& a, Proxy opProxy, Sem sem, Scope scope) {
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
  addTag(e, type == EventType::Read ? Builtin::R : Builtin::W);
  addTag(e, Builtin::M);
  addTag(e, proxyTag(e.proxy));
  // Tensor memory (`.tmem`) is its own state space, accessed only by tcgen05 (PTX ISA 9.2 §9.7.16).
  const bool tmem = prog_.locations[static_cast<size_t>(a.loc)].isTmem;
  const bool tcgen05 = ptx::opInfo(in.op).family == ptx::OpFamily::Tcgen05;
  if (tmem && !tcgen05)
    fail(in.src, fmt::format("'{}' is tensor memory: only tcgen05.mma/cp/ld/st access it (PTX ISA 9.2 §9.7.16)",
                             vName(a.vaddr)));
  addTag(e, tmem ? Builtin::TMEM : a.shared ? Builtin::SHARED : Builtin::GLOBAL);
  if (isStrongSem(sem)) addTag(e, Builtin::STRONG);
  addSemTags(e);
  if (prog_.locations[static_cast<size_t>(a.loc)].isMbarrier) addTag(e, Builtin::MBAR);
  return e;
}

Event Lowerer::fenceEvent(const Instr& in, Sem sem, Scope scope) {
  Event e;
  e.type = EventType::Fence;
  e.src = in.src;
  e.op = in.op;
  e.sem = sem;
  e.scope = scope;
  addTag(e, Builtin::F);
  addSemTags(e);
  return e;
}

EventId Lowerer::emit(PathState& st, Event e) {
  e.thread = curThread_;
  e.instr = static_cast<int>(st.pc);
  EventId id = push(std::move(e));
  for (EventId r : st.ctrlReads) rel(Builtin::ctrl).insert({r, id});
  st.events.push_back(id);
  return id;
}

void Lowerer::dataDeps(EventId w, ExprId v, EventId except) {
  std::vector<EventId> reads;
  prog_.exprs.collectReads(v, reads);
  for (EventId r : reads)
    if (r != except && prog_.events[static_cast<size_t>(r)].asyncOp < 0 &&
        prog_.events[static_cast<size_t>(r)].thread == curThread_)
      rel(Builtin::data).insert({r, w});
}

EventId Lowerer::emitRead(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem, Scope scope,
                          const std::string& what) {
  Event r = memEvent(EventType::Read, in, a, proxy, sem, scope);
  r.label = fmt::format("R{}{} {}", what, semLabel(sem, scope), vName(a.vaddr));
  EventId id = emit(st, std::move(r));
  prog_.events[static_cast<size_t>(id)].value = prog_.exprs.readVal(id);
  if (responseLocs_.count(a.loc)) st.observedResponses.push_back(prog_.exprs.readVal(id));
  return id;
}

EventId Lowerer::emitWrite(PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem, Scope scope, ExprId v,
                           const std::string& what) {
  Event w = memEvent(EventType::Write, in, a, proxy, sem, scope);
  w.value = v;
  w.label = fmt::format("W{}{} {}={}", what, semLabel(sem, scope), vName(a.vaddr), prog_.exprs.str(v));
  EventId id = emit(st, std::move(w));
  dataDeps(id, v);
  return id;
}

EventId Lowerer::emitFence(PathState& st, Event f, const std::string& label) {
  f.label = label;
  return emit(st, std::move(f));
}

ExprId reductionNext(Lowerer& L, std::string_view op, ExprId old, ExprId b) {
  auto& X = L.prog_.exprs;
  if (op == "add") return X.make(ExprOp::Add, {old, b});
  if (op == "and") return X.make(ExprOp::And, {old, b});
  if (op == "or") return X.make(ExprOp::Or, {old, b});
  if (op == "xor") return X.make(ExprOp::Xor, {old, b});
  if (op == "min") return X.make(ExprOp::Ite, {X.make(ExprOp::Lt, {b, old}), b, old});
  if (op == "max") return X.make(ExprOp::Ite, {X.make(ExprOp::Lt, {old, b}), b, old});
  if (op == "inc")
    return X.make(ExprOp::Ite,
                  {X.make(ExprOp::Le, {b, old}), X.constant(0), X.make(ExprOp::Add, {old, X.constant(1)})});
  if (op == "dec")
    return X.make(ExprOp::Ite,
                  {X.make(ExprOp::LOr, {X.make(ExprOp::Eq, {old, X.constant(0)}), X.make(ExprOp::Lt, {b, old})}), b,
                   X.make(ExprOp::Sub, {old, X.constant(1)})});
  return -1;
}

std::string reductionOp(const Instr& in) {
  for (const char* f : {"add", "inc", "dec", "min", "max", "and", "or", "xor"})
    if (in.hasFlag(f)) return f;
  return "";
}

EventId Lowerer::emitMarker(PathState& st, const Instr& in, Builtin familyTag) {
  Event f = fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::ISSUE);
  addTag(f, familyTag);
  return emitFence(st, std::move(f), fmt::format("ISSUE {}", ptx::opInfo(in.op).mnemonic));
}

int Lowerer::newInstance(EventId marker) {
  Instance inst;
  inst.marker = marker;
  instances_.push_back(inst);
  return static_cast<int>(instances_.size()) - 1;
}

int Lowerer::newAsyncOp(int instance, OpId op, int placeCta, const char* suffix) {
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

EventId Lowerer::emitAsync(PathState& st, int op, Event e) {
  auto& a = prog_.asyncOps[static_cast<size_t>(op)];
  e.thread = a.thread;
  e.asyncOp = op;
  e.instr = static_cast<int>(st.pc);
  addTag(e, Builtin::ASYNC_OP);
  EventId id = push(std::move(e));
  prog_.asyncOps[static_cast<size_t>(op)].events.push_back(id);
  st.asyncEvents.push_back(id);
  return id;
}

EventId Lowerer::asyncRead(PathState& st, int op, const Instr& in, const Access& a, Proxy p, Sem sem, Scope sc,
                           Builtin fam) {
  Event r = memEvent(EventType::Read, in, a, p, sem, sc);
  addTag(r, fam);
  r.label = fmt::format("R{} {} ({})", semLabel(sem, sc), vName(a.vaddr), ptx::toString(r.proxy));
  EventId id = emitAsync(st, op, std::move(r));
  prog_.events[static_cast<size_t>(id)].value = prog_.exprs.readVal(id);
  return id;
}

EventId Lowerer::asyncWrite(PathState& st, int op, const Instr& in, const Access& a, Proxy p, Sem sem, Scope sc,
                            ExprId v, Builtin fam) {
  Event w = memEvent(EventType::Write, in, a, p, sem, sc);
  addTag(w, fam);
  w.value = v;
  w.label =
      fmt::format("W{} {}={} ({})", semLabel(sem, sc), vName(a.vaddr), prog_.exprs.str(v), ptx::toString(w.proxy));
  return emitAsync(st, op, std::move(w));
}

EventId Lowerer::implicitProxyFence(PathState& st, int op, const Instr& in, Builtin fam) {
  Event f = fenceEvent(in, Sem::None, Scope::None);
  addTag(f, Builtin::PF_ASYNC_IMPLICIT);
  addTag(f, fam);
  f.label = "F.proxy.async (implicit)";
  return emitAsync(st, op, std::move(f));
}

std::pair<EventId, EventId> Lowerer::asyncCompleteTx(PathState& st, int op, const Instr& in, const Access& bar,
                                                     ExprId bytes, Builtin fam) {
  ExprId neg = prog_.exprs.make(ExprOp::Sub, {prog_.exprs.constant(0), bytes});
  ExprId exp = prog_.exprs.constant(expectedCount(bar.loc));
  return emitRmw(
      st, in, bar, Proxy::Generic, Sem::Release, Scope::Cluster, {Builtin::MB_COMPLETE_TX, fam}, ".complete_tx",
      [&](ExprId old) {
        return prog_.exprs.make(ExprOp::MbTx, {old, neg, exp});
      },
      op);
}

void Lowerer::finishAsyncRelations() {
  for (const auto& inst : instances_) {
    std::vector<EventId> all;
    for (int op : inst.ops)
      for (EventId e : prog_.asyncOps[static_cast<size_t>(op)].events) all.push_back(e);
    for (EventId e : all) rel(Builtin::issue).insert({inst.marker, e});
    for (EventId a : all)
      for (EventId b : all) rel(Builtin::same_async).insert({a, b});
    for (int op : inst.ops) {
      const auto& ev = prog_.asyncOps[static_cast<size_t>(op)].events;
      for (size_t i = 0; i < ev.size(); ++i)
        for (size_t j = i + 1; j < ev.size(); ++j) rel(Builtin::aso).insert({ev[i], ev[j]});
    }
    if (inst.sourceOp >= 0)
      for (EventId s : prog_.asyncOps[static_cast<size_t>(inst.sourceOp)].events)
        for (int op : inst.ops)
          if (op != inst.sourceOp)
            for (EventId e : prog_.asyncOps[static_cast<size_t>(op)].events) rel(Builtin::aso).insert({s, e});
  }
}

void Lowerer::asyncComplete(int op, EventId waiter, bool readsOnly) {
  auto& a = prog_.asyncOps[static_cast<size_t>(op)];
  for (EventId e : a.events)
    if (!readsOnly || prog_.events[static_cast<size_t>(e)].type == EventType::Read)
      rel(Builtin::async_complete).insert({e, waiter});
  if (std::find(a.completions.begin(), a.completions.end(), waiter) == a.completions.end())
    a.completions.push_back(waiter);
}

void Lowerer::unsupported(const Instr& in, const std::string& why) const {
  fail(in.src, fmt::format("'{}' is not supported by the event lowering: {}", ptx::opInfo(in.op).mnemonic, why));
}

Flow lowerFrom(std::span<const OpLowering> table, Lowerer& L, PathState& st, const Instr& in, Work& work) {
  for (const OpLowering& e : table)
    if (e.op == in.op) return e.lower(L, st, in, work);
  throw std::logic_error("events: " + std::string(ptx::opInfo(in.op).name) + " was dispatched to a family table " +
                         "that does not list it");
}

}  // namespace ptxmm::events::lowering
