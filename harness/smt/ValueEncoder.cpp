// Bit-vector semantics of events::ExprOp (mirror of events::evalOp) in the widths of a ValueLayout.
#include "smt/ValueEncoder.hpp"

#include <stdexcept>

namespace ptxmm::smt {

using events::ExprOp;

namespace {

// x (an unsigned field of `from` bits) as `to` bits: zero-extended, or its low bits.
z3::expr resizeUnsigned(const z3::expr& x, unsigned from, unsigned to) {
  if (to == from) return x;
  return to > from ? z3::zext(x, to - from) : x.extract(to - 1, 0);
}

}  // namespace

ValueEncoder::ValueEncoder(z3::context& ctx, const events::ExprPool& pool,
                           std::function<z3::expr(events::EventId)> readValue, ValueLayout layout)
    : ctx_(ctx), pool_(pool), readValue_(std::move(readValue)), layout_(std::move(layout)) {}

z3::expr ValueEncoder::constant(ValueKind k, int64_t v) {
  std::optional<uint64_t> b = layout_.encode(k, v);
  if (!b) throw std::logic_error("ValueEncoder: a constant outside the value layout");
  return ctx_.bv_val(*b, layout_.bits(k));
}

z3::expr ValueEncoder::nonZero(events::ExprId id) {
  if (pool_.isConst(id)) return ctx_.bool_val(pool_.node(id).value != 0);
  const ValueKind k = layout_.kindOf(pool_, id);
  return encode(id) != constant(k, 0);
}

z3::expr ValueEncoder::encodeAs(events::ExprId id, ValueKind k) {
  if (pool_.isConst(id)) return constant(k, pool_.node(id).value);
  return encode(id);
}

z3::expr ValueEncoder::encode(events::ExprId id) {
  if (memo_.size() < pool_.size()) memo_.resize(pool_.size());
  // Iterative post-order: expressions can be deep (long unrolled chains).
  std::vector<std::pair<events::ExprId, bool>> stack{{id, false}};
  while (!stack.empty()) {
    auto [x, expanded] = stack.back();
    stack.pop_back();
    auto& slot = memo_[static_cast<size_t>(x)];
    if (slot) continue;
    const events::ExprNode& n = pool_.node(x);
    if (n.op == ExprOp::Const) {
      slot = constant(n.value);
      continue;
    }
    if (n.op == ExprOp::ReadVal) {
      slot = readValue_(n.event);
      continue;
    }
    if (!expanded) {
      stack.push_back({x, true});
      for (events::ExprId a : n.args)
        if (!memo_[static_cast<size_t>(a)]) stack.push_back({a, false});
      continue;
    }
    std::vector<z3::expr> args;
    for (size_t i = 0; i < n.args.size(); ++i) {
      const events::ExprId a = n.args[i];
      const ValueKind k = layout_.argKind(pool_, x, i);
      args.push_back(pool_.isConst(a) ? constant(k, pool_.node(a).value) : *memo_[static_cast<size_t>(a)]);
    }
    memo_[static_cast<size_t>(x)] = apply(x, args);
  }
  return *memo_[static_cast<size_t>(id)];
}

z3::expr ValueEncoder::fit(const z3::expr& plain, unsigned bits) const {
  // A plain value is two's complement: its low bits, or sign-extended.
  const unsigned w = layout_.plain;
  if (w == bits) return plain;
  return w > bits ? plain.extract(bits - 1, 0) : z3::sext(plain, bits - w);
}

// One step of the mbarrier state machine on the state word `s` (events/Expr.cpp mbStep): fields from bit
// 0 up tx-count, pending arrivals, phase, dropped arrivals (64-bit layout: 24, 20, 12, 8 bits).
z3::expr ValueEncoder::mbStep(const z3::expr& s, const z3::expr& arrivals, const z3::expr& dTx,
                              const z3::expr& expected, const z3::expr& drop) {
  const unsigned T = layout_.tx, P = layout_.pending, H = layout_.phase, D = layout_.dropped;
  z3::expr tx = s.extract(T - 1, 0) + fit(dTx, T);
  z3::expr pending = s.extract(T + P - 1, T) - fit(arrivals, P);
  z3::expr phase = s.extract(T + P + H - 1, T + P);
  z3::expr dropped = s.extract(T + P + H + D - 1, T + P + H) + fit(drop, D);
  z3::expr done = pending == ctx_.bv_val(0, P) && tx == ctx_.bv_val(0, T);
  z3::expr rearm = fit(expected, P) - resizeUnsigned(dropped, D, P);
  z3::expr completed = z3::concat(z3::concat(dropped, phase + ctx_.bv_val(1, H)), z3::concat(rearm, ctx_.bv_val(0, T)));
  z3::expr ongoing = z3::concat(z3::concat(dropped, phase), z3::concat(pending, tx));
  return z3::ite(done, completed, ongoing);
}

z3::expr ValueEncoder::apply(events::ExprId x, const std::vector<z3::expr>& a) {
  const ExprOp op = pool_.node(x).op;
  z3::expr zero = constant(0), one = constant(1);
  auto b2v = [&](const z3::expr& b) { return z3::ite(b, one, zero); };
  auto nz = [&](size_t i) { return a[i] != constant(layout_.argKind(pool_, x, i), 0); };
  switch (op) {
    case ExprOp::Const:
    case ExprOp::ReadVal: break;
    case ExprOp::Add: return a[0] + a[1];
    case ExprOp::Sub: return a[0] - a[1];
    case ExprOp::Mul: return a[0] * a[1];
    case ExprOp::Div:
      // bvsdiv wraps INT64_MIN / -1 to INT64_MIN like evalOp; only division by 0 differs.
      return z3::ite(a[1] == zero, zero, a[0] / a[1]);
    case ExprOp::Rem: return z3::ite(a[1] == zero || a[1] == constant(-1), zero, z3::srem(a[0], a[1]));
    case ExprOp::And: return a[0] & a[1];
    case ExprOp::Or: return a[0] | a[1];
    case ExprOp::Xor: return a[0] ^ a[1];
    // bvshl/bvlshr give 0 for shift amounts ≥ 64 (negative amounts are ≥ 64 unsigned), as evalOp.
    case ExprOp::Shl:
      if (layout_.kindOf(pool_, x) == ValueKind::Mbarrier) {  // count << 24: the state word of mbarrier.init
        return z3::concat(ctx_.bv_val(0, layout_.dropped + layout_.phase),
                          z3::concat(fit(a[0], layout_.pending), ctx_.bv_val(0, layout_.tx)));
      }
      return z3::shl(a[0], a[1]);
    case ExprOp::Shr: return z3::lshr(a[0], a[1]);
    case ExprOp::Eq: return b2v(a[0] == a[1]);
    case ExprOp::Ne: return b2v(a[0] != a[1]);
    case ExprOp::Lt: return b2v(a[0] < a[1]);
    case ExprOp::Le: return b2v(a[0] <= a[1]);
    case ExprOp::LNot: return b2v(a[0] == constant(layout_.argKind(pool_, x, 0), 0));
    case ExprOp::LAnd: return b2v(nz(0) && nz(1));
    case ExprOp::LOr: return b2v(nz(0) || nz(1));
    case ExprOp::Ite: return z3::ite(nz(0), a[1], a[2]);
    case ExprOp::MbArrive: return mbStep(a[0], a[1], a[2], a[3], zero);
    case ExprOp::MbTx: return mbStep(a[0], zero, a[1], a[2], zero);
    case ExprOp::MbPhase: {
      const unsigned at = layout_.tx + layout_.pending;
      return resizeUnsigned(a[0].extract(at + layout_.phase - 1, at), layout_.phase, layout_.plain);
    }
    case ExprOp::MbArriveDrop: return mbStep(a[0], a[1], a[2], a[3], a[1]);
  }
  throw std::logic_error("ValueEncoder: leaf or unknown operator");
}

}  // namespace ptxmm::smt
