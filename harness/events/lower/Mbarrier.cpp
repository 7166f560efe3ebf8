// mbarrier, family Mbarrier: mbarrier.* and cp.async.mbarrier.arrive, and the recognition of the spin
// loops around a wait (docs/lowering.md "Mbarrier instructions", "Control flow").
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

size_t nextInstr(Lowerer& L, size_t i, bool allowLabels) {
  const auto& code = L.thread(L.curThread_).code;
  for (size_t j = i + 1; j < code.size(); ++j) {
    if (code[j].instr) return j;
    if (!allowLabels) return code.size();
  }
  return code.size();
}

/// Whether instruction `in` (at statement i) jumps to `targetSet` exactly when predicate `p` is `when`.
bool branchesOn(Lowerer& L, const Instr& in, const std::string& p, bool when, const std::set<int>& targets,
                int* target) {
  auto lbl = [&](const Operand& o) -> int {
    std::string n = o.kind == Operand::Kind::Loc ? o.loc.name : o.name;
    auto it = L.labels_.find(n);
    return it == L.labels_.end() ? -1 : it->second;
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
std::optional<size_t> spinLoopExit(Lowerer& L, size_t i, const Instr& wait) {
  const auto& code = L.thread(L.curThread_).code;
  if (wait.guard || wait.operands.empty() || wait.operands[0].kind != Operand::Kind::Reg) return std::nullopt;
  const std::string& p = wait.operands[0].name;
  std::set<int> loopLabels;
  for (size_t k = i; k-- > 0 && !code[k].instr;) loopLabels.insert(static_cast<int>(k));
  if (loopLabels.empty()) return std::nullopt;
  size_t j = nextInstr(L, i, false);
  if (j >= code.size()) return std::nullopt;
  const Instr& b = *code[j].instr;
  if (branchesOn(L, b, p, false, loopLabels, nullptr)) return j + 1;  // @!p bra L
  int out = -1;
  if (branchesOn(L, b, p, true, {}, &out)) {  // @p bra X; bra L; X:
    size_t k = nextInstr(L, j, false);
    if (k >= code.size()) return std::nullopt;
    const Instr& back = *code[k].instr;
    if ((back.op == OpId::Bra || back.op == OpId::Goto) && !back.guard && !back.operands.empty()) {
      std::string n = back.operands[0].kind == Operand::Kind::Loc ? back.operands[0].loc.name : back.operands[0].name;
      auto it = L.labels_.find(n);
      if (it != L.labels_.end() && loopLabels.count(it->second)) return static_cast<size_t>(out);
    }
  }
  return std::nullopt;
}

Flow lowerInit(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  Access a = L.resolve(st, L.operand(in, 0, "address"), in.space, in);
  ExprId count = L.value(st, L.operand(in, 1, "count"));
  ExprId v = X.make(ExprOp::Shl, {count, X.constant(24)});
  EventId w = L.emitWrite(st, in, a, Proxy::Generic, Sem::Weak, Scope::None, v, ".mbarrier_init");
  addTag(L.prog_.events[static_cast<size_t>(w)], Builtin::MB_INIT);
  return Flow::Next;
}

Flow lowerInval(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  Access a = L.resolve(st, L.operand(in, 0, "address"), in.space, in);
  EventId w = L.emitWrite(st, in, a, Proxy::Generic, Sem::Weak, Scope::None, X.constant(0), ".mbarrier_inval");
  addTag(L.prog_.events[static_cast<size_t>(w)], Builtin::MB_INVAL);
  return Flow::Next;
}

Flow lowerTx(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  bool expect = in.op == OpId::MbarrierExpectTx;
  Access a = L.resolve(st, L.operand(in, 0, "address"), in.space, in);
  ExprId n = L.value(st, L.operand(in, 1, "tx count"));
  if (!expect) n = X.make(ExprOp::Sub, {X.constant(0), n});
  Sem s = in.sem == Sem::None ? Sem::Relaxed : in.sem;
  Scope sc = in.scope == Scope::None ? Scope::Cta : in.scope;
  ExprId exp = X.constant(L.expectedCount(a.loc));
  L.emitRmw(st, in, a, Proxy::Generic, s, sc, {expect ? Builtin::MB_EXPECT_TX : Builtin::MB_COMPLETE_TX},
            expect ? ".expect_tx" : ".complete_tx", [&](ExprId old) {
              return X.make(ExprOp::MbTx, {old, n, exp});
            });
  return Flow::Next;
}

Flow lowerArrive(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  int ai = L.firstAddr(in);
  if (ai < 0) L.fail(in.src, "mbarrier.arrive needs an address operand");
  Access a = L.resolve(st, in.operands[static_cast<size_t>(ai)], in.space, in);
  ExprId count = X.constant(1), tx = X.constant(0);
  std::vector<const Operand*> rest;
  for (size_t i = static_cast<size_t>(ai) + 1; i < in.operands.size(); ++i) rest.push_back(&in.operands[i]);
  if (in.hasFlag("expect_tx")) {
    if (rest.empty()) L.fail(in.src, "mbarrier.arrive.expect_tx needs a tx count");
    tx = L.value(st, *rest[0]);
    if (rest.size() > 1) count = L.value(st, *rest[1]);
  } else if (!rest.empty()) {
    count = L.value(st, *rest[0]);
  }
  Sem s = in.sem == Sem::None ? Sem::Release : in.sem;
  Scope sc = in.scope == Scope::None ? Scope::Cta : in.scope;
  ExprId exp = X.constant(L.expectedCount(a.loc));
  std::vector<Builtin> tags{Builtin::MB_ARRIVE};
  if (in.op == OpId::MbarrierArriveDrop) tags.push_back(Builtin::MB_DROP);
  if (in.hasFlag("expect_tx")) tags.push_back(Builtin::MB_EXPECT_TX);
  auto [r, w] = L.emitRmw(st, in, a, Proxy::Generic, s, sc, tags,
                          in.op == OpId::MbarrierArriveDrop ? ".arrive_drop" : ".arrive", [&](ExprId old) {
                            // arrive_drop also lowers the expected count of every later phase
                            // (PTX 9.7.13.15.14): the state word counts the dropped arrivals.
                            ExprOp op = in.op == OpId::MbarrierArriveDrop ? ExprOp::MbArriveDrop : ExprOp::MbArrive;
                            return X.make(op, {old, count, tx, exp});
                          });
  if (ai > 0) L.setReg(st, in.operands[0], X.readVal(r));
  return Flow::Next;
}

Flow lowerWait(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  Access a = L.resolve(st, L.operand(in, 1, "address"), in.space, in);
  const Operand& pOp = L.operand(in, 0, "predicate");
  ExprId token = L.value(st, L.operand(in, 2, in.hasFlag("parity") ? "phase parity" : "state"));
  Sem s = in.sem == Sem::None ? Sem::Acquire : in.sem;
  if (s != Sem::Acquire && s != Sem::Relaxed) L.fail(in.src, "mbarrier waits must be .acquire or .relaxed");
  Scope sc = in.scope == Scope::None ? Scope::Cta : in.scope;
  EventId r = L.emitRead(st, in, a, Proxy::Generic, s, sc, in.op == OpId::MbarrierTryWait ? ".try_wait" : ".test_wait");
  addTag(L.prog_.events[static_cast<size_t>(r)], Builtin::MB_WAIT);
  ExprId phase = X.make(ExprOp::MbPhase, {X.readVal(r)});
  ExprId ok;
  if (in.hasFlag("parity"))
    ok = X.make(ExprOp::Eq,
                {X.make(ExprOp::Rem,
                        {X.make(ExprOp::Add, {phase, X.make(ExprOp::And, {token, X.constant(1)})}), X.constant(2)}),
                 X.constant(1)});
  else
    ok = X.make(ExprOp::Ne, {phase, X.make(ExprOp::MbPhase, {token})});
  // Dynamic tag MB_WAIT_OK: the wait returns True in the execution (docs/lowering.md "Dynamic tags").
  L.prog_.events[static_cast<size_t>(r)].dynamicTags.push_back({std::string(builtinName(Builtin::MB_WAIT_OK)), ok});
  if (auto exit = spinLoopExit(L, st.pc, in)) {
    // Blocking wait: the path continues after the loop if the wait succeeds; the alternative path
    // blocks forever (the read must read the co-last write of the mbarrier).
    PathState blocked = st;
    L.addGuard(blocked, X.make(ExprOp::LNot, {ok}));
    blocked.readsFinal.push_back(r);
    L.setReg(blocked, pOp, X.constant(0));
    L.finishPath(blocked, PathEnd::Blocked);
    L.addGuard(st, ok);
    L.setReg(st, pOp, X.constant(1));
    st.pc = *exit;
    return Flow::Jumped;
  }
  L.setReg(st, pOp, ok);
  return Flow::Next;
}

Flow lowerCpAsyncMbarArrive(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  Access bar = L.resolve(st, L.operand(in, 0, "mbarrier"), in.space, in);
  ExprId exp = X.constant(L.expectedCount(bar.loc));
  EventId m = L.emitMarker(st, in, Builtin::CP_ASYNC);
  bool noinc = in.hasFlag("noinc");
  if (!noinc) {
    // Without .noinc the pending count is incremented (in program order) before the async arrive.
    L.emitRmw(st, in, bar, Proxy::Generic, Sem::Relaxed, Scope::Cta, {Builtin::MB_INC, Builtin::CP_ASYNC}, ".inc",
              [&](ExprId old) {
                return X.make(ExprOp::MbArrive, {old, X.constant(-1), X.constant(0), exp});
              });
  }
  int inst = L.newInstance(m);
  int op = L.newAsyncOp(inst, in.op, bar.cta >= 0 ? bar.cta : L.thread(L.curThread_).where.cta);
  auto [r, w] = L.emitRmw(
      st, in, bar, Proxy::Generic, Sem::Release, Scope::Cta, {Builtin::MB_ARRIVE, Builtin::CP_ASYNC}, ".arrive",
      [&](ExprId old) {
        return X.make(ExprOp::MbArrive, {old, X.constant(1), X.constant(0), exp});
      },
      op);
  for (int prior : st.cpAll) {
    L.asyncComplete(prior, r, false);
    L.asyncComplete(prior, w, false);
  }
  return Flow::Next;
}

constexpr OpLowering kMbarrier[] = {
    {OpId::MbarrierInit, lowerInit},
    {OpId::MbarrierInval, lowerInval},
    {OpId::MbarrierExpectTx, lowerTx},
    {OpId::MbarrierCompleteTx, lowerTx},
    {OpId::MbarrierArrive, lowerArrive},
    {OpId::MbarrierArriveDrop, lowerArrive},
    {OpId::MbarrierTestWait, lowerWait},
    {OpId::MbarrierTryWait, lowerWait},
    {OpId::CpAsyncMbarArrive, lowerCpAsyncMbarArrive},
};
static_assert(coversFamily(kMbarrier, ptx::OpFamily::Mbarrier));

}  // namespace

Flow lowerMbarrier(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  return lowerFrom(kMbarrier, L, st, in, work);
}

int mbarrierOperandMbarrier(const Instr& in) { return Lowerer::firstAddr(in); }

}  // namespace ptxmm::events::lowering
