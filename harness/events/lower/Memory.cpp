// Memory accesses, families Read, Write and Rmw: ld / st / atom / red, their surface / texture /
// constant-proxy forms and tensormap.replace (docs/lowering.md "Events and tags", "Tensor maps").
#include "events/lower/Lowerer.hpp"

namespace ptxmm::events::lowering {
namespace {

Sem accessSem(Sem s) { return s == Sem::None ? Sem::Weak : s; }

Scope accessScope(Sem s, Scope sc) {
  if (s == Sem::None || s == Sem::Weak) return Scope::None;
  if (sc != Scope::None) return sc;
  if (s == Sem::Volatile || s == Sem::Mmio) return Scope::Sys;
  return Scope::Gpu;
}

std::string atomOp(Lowerer& L, const Instr& in) {
  for (const char* f : {"add", "inc", "dec", "min", "max", "and", "or", "xor", "exch", "cas", "sub", "mul", "div"})
    if (in.hasFlag(f)) return f;
  L.fail(in.src, "atom/red without an operation (.add, .cas, .exch, ...)");
}

ExprId atomNext(Lowerer& L, const std::string& op, ExprId old, ExprId b, ExprId c) {
  auto& X = L.prog_.exprs;
  // Dat3M operations (no PTX counterpart; the parser warned): sub = add of the negation.
  if (op == "sub") return X.make(ExprOp::Sub, {old, b});
  if (op == "mul") return X.make(ExprOp::Mul, {old, b});
  if (op == "div") return X.make(ExprOp::Div, {old, b});
  if (op == "exch") return b;
  if (ExprId v = reductionNext(L, op, old, b); v >= 0) return v;
  return old;
}

/// atom.cas as a path fork (PTX 9.7.13.5: a failed compare-and-swap performs only the read). The
/// success path gets an RMW (Read + Write `c`, guard `old == b`); the failure path, pushed to `work`,
/// a lone Read tagged `CAS_FAIL` (no `RMW`, no write, guard `old != b`). Both reads keep the
/// instruction's semantics and scope; each path has its own read event. The success write gets ctrl
/// edges from the reads of `b` (its existence depends on them).
Flow lowerCas(Lowerer& L, PathState& st, const Instr& in, const Access& a, Proxy proxy, Sem sem, Scope scope, ExprId b,
              ExprId c, Work& work) {
  auto& X = L.prog_.exprs;
  const Operand& dst = L.operand(in, 0, "destination");
  PathState failed = st;
  EventId fr = L.emitRead(failed, in, a, proxy, sem, scope, ".cas.fail");
  addTag(L.prog_.events[static_cast<size_t>(fr)], Builtin::CAS_FAIL);
  L.addGuard(failed, X.make(ExprOp::Ne, {X.readVal(fr), b}));
  L.setReg(failed, dst, X.readVal(fr));
  ++failed.pc;
  L.pushWork(work, std::move(failed));
  auto [r, w] = L.emitRmw(st, in, a, proxy, sem, scope, {}, ".cas", [&](ExprId) { return c; });
  // The write exists only if the comparison holds: ctrl from the reads of the compare value (the
  // cas's own read is linked by rmw).
  std::vector<EventId> cmpReads;
  X.collectReads(b, cmpReads);
  for (EventId x : cmpReads) L.rel(Builtin::ctrl).insert({x, w});
  L.addGuard(st, X.make(ExprOp::Eq, {X.readVal(r), b}));
  L.setReg(st, dst, X.readVal(r));
  return Flow::Next;
}

Flow lowerLoad(Lowerer& L, PathState& st, const Instr& in, Work&) {
  auto& X = L.prog_.exprs;
  const auto& info = ptx::opInfo(in.op);
  Access a = L.resolve(st, L.operand(in, 1, "address"), in.space, in);
  Sem s = accessSem(in.sem);
  if (s == Sem::Release || s == Sem::AcqRel) L.fail(in.src, "a load cannot have .release semantics");
  EventId r = L.emitRead(st, in, a, info.proxy, s, accessScope(s, in.scope));
  L.setReg(st, L.operand(in, 0, "destination"), X.readVal(r));
  return Flow::Next;
}

Flow lowerStore(Lowerer& L, PathState& st, const Instr& in, Work&) {
  const auto& info = ptx::opInfo(in.op);
  Access a = L.resolve(st, L.operand(in, 0, "address"), in.space, in);
  Sem s = accessSem(in.sem);
  if (s == Sem::Acquire || s == Sem::AcqRel) L.fail(in.src, "a store cannot have .acquire semantics");
  ExprId v = L.value(st, L.operand(in, 1, "value"));
  L.emitWrite(st, in, a, info.proxy, s, accessScope(s, in.scope), v);
  return Flow::Next;
}

Flow lowerAtomic(Lowerer& L, PathState& st, const Instr& in, Work& work) {
  auto& X = L.prog_.exprs;
  const auto& info = ptx::opInfo(in.op);
  bool isRed = in.op == OpId::Red || in.op == OpId::Sured;
  size_t ai = isRed ? 0 : 1;
  Access a = L.resolve(st, L.operand(in, ai, "address"), in.space, in);
  Sem s = in.sem == Sem::None ? Sem::Relaxed : in.sem;
  // `.weak`: the Dat3M weak read-modify-write (atomic, not morally strong), no scope.
  if (s == Sem::Weak && !in.dialect) L.fail(in.src, "atomic operations cannot be .weak");
  Scope sc = s == Sem::Weak ? Scope::None : in.scope == Scope::None ? Scope::Gpu : in.scope;
  std::string op = atomOp(L, in);
  ExprId b = L.value(st, L.operand(in, ai + 1, "source"));
  ExprId c = op == "cas" ? L.value(st, L.operand(in, ai + 2, "new value")) : X.constant(0);
  std::vector<Builtin> tags;
  if (isRed) tags.push_back(Builtin::RED);
  if (op == "cas") {
    if (isRed) L.unsupported(in, "red has no .cas form");
    return lowerCas(L, st, in, a, info.proxy, s, sc, b, c, work);
  }
  auto [r, w] =
      L.emitRmw(st, in, a, info.proxy, s, sc, tags, "." + op, [&](ExprId old) { return atomNext(L, op, old, b, c); });
  if (!isRed) L.setReg(st, L.operand(in, 0, "destination"), X.readVal(r));
  return Flow::Next;
}

Flow lowerTensormapReplace(Lowerer& L, PathState& st, const Instr& in, Work&) {
  // §9.7.9.26: "treated as a weak memory operation, on the entire 1024-bit opaque tensor-map object": a
  // weak generic-proxy write of the map; its value is new_val, the new descriptor version
  // (docs/lowering.md "Tensor maps").
  Access a = L.resolve(st, L.operand(in, 0, "address"), in.space, in);
  if (a.space == Space::SharedCluster)
    L.fail(in.operands[0].src,
           "tensormap.replace: the address must be in .global or the executing CTA's .shared::cta (PTX ISA 9.2 "
           "§9.7.9.26: otherwise the behavior is undefined)");
  L.emitWrite(st, in, a, Proxy::Generic, Sem::Weak, Scope::None, L.value(st, in.operands.back()), ".tensormap.replace");
  return Flow::Next;
}

constexpr OpLowering kRead[] = {
    {OpId::Ld, lowerLoad},
    {OpId::Tld, lowerLoad},
    {OpId::Suld, lowerLoad},
    {OpId::Cold, lowerLoad},
};
static_assert(coversFamily(kRead, ptx::OpFamily::Read));

constexpr OpLowering kWrite[] = {
    {OpId::St, lowerStore},
    {OpId::Sust, lowerStore},
    {OpId::TensormapReplace, lowerTensormapReplace},
};
static_assert(coversFamily(kWrite, ptx::OpFamily::Write));

constexpr OpLowering kRmw[] = {
    {OpId::Atom, lowerAtomic},
    {OpId::Red, lowerAtomic},
    {OpId::Suatom, lowerAtomic},
    {OpId::Sured, lowerAtomic},
};
static_assert(coversFamily(kRmw, ptx::OpFamily::Rmw));

}  // namespace

Flow lowerRead(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kRead, L, st, in, work); }

int mbarrierOperandRead(const Instr&) { return -1; }

Flow lowerWrite(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kWrite, L, st, in, work); }

int mbarrierOperandWrite(const Instr&) { return -1; }

Flow lowerRmw(Lowerer& L, PathState& st, const Instr& in, Work& work) { return lowerFrom(kRmw, L, st, in, work); }

int mbarrierOperandRmw(const Instr&) { return -1; }

}  // namespace ptxmm::events::lowering
