// 64-bit bit-vector semantics of events::ExprOp (mirror of events::evalOp).
#include "smt/ValueEncoder.hpp"

#include <stdexcept>

namespace ptxmm::smt {

using events::ExprOp;

ValueEncoder::ValueEncoder(z3::context& ctx, const events::ExprPool& pool,
                           std::function<z3::expr(events::EventId)> readValue)
    : ctx_(ctx), pool_(pool), readValue_(std::move(readValue)) {}

z3::expr ValueEncoder::constant(int64_t v) { return ctx_.bv_val(static_cast<uint64_t>(v), 64); }

z3::expr ValueEncoder::nonZero(events::ExprId id) { return encode(id) != constant(0); }

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
    for (events::ExprId a : n.args) args.push_back(*memo_[static_cast<size_t>(a)]);
    memo_[static_cast<size_t>(x)] = apply(n.op, args);
  }
  return *memo_[static_cast<size_t>(id)];
}

namespace {

// One step of the mbarrier state machine on the state word `s` (events/Expr.cpp mbStep): bits 0-23
// tx-count, 24-43 pending arrivals, 44-55 phase, 56-63 dropped arrivals.
z3::expr mbStep(const z3::expr& s, const z3::expr& arrivals, const z3::expr& dTx, const z3::expr& expected,
                const z3::expr& drop) {
  z3::context& c = s.ctx();
  z3::expr tx = s.extract(23, 0) + dTx.extract(23, 0);
  z3::expr pending = s.extract(43, 24) - arrivals.extract(19, 0);
  z3::expr phase = s.extract(55, 44);
  z3::expr dropped = s.extract(63, 56) + drop.extract(7, 0);
  z3::expr done = pending == c.bv_val(0, 20) && tx == c.bv_val(0, 24);
  z3::expr rearm = expected.extract(19, 0) - z3::zext(dropped, 12);
  z3::expr completed = z3::concat(z3::concat(dropped, phase + c.bv_val(1, 12)), z3::concat(rearm, c.bv_val(0, 24)));
  z3::expr ongoing = z3::concat(z3::concat(dropped, phase), z3::concat(pending, tx));
  return z3::ite(done, completed, ongoing);
}

}  // namespace

z3::expr ValueEncoder::apply(ExprOp op, const std::vector<z3::expr>& a) {
  z3::expr zero = constant(0), one = constant(1);
  auto b2v = [&](const z3::expr& b) { return z3::ite(b, one, zero); };
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
    case ExprOp::Shl: return z3::shl(a[0], a[1]);
    case ExprOp::Shr: return z3::lshr(a[0], a[1]);
    case ExprOp::Eq: return b2v(a[0] == a[1]);
    case ExprOp::Ne: return b2v(a[0] != a[1]);
    case ExprOp::Lt: return b2v(a[0] < a[1]);
    case ExprOp::Le: return b2v(a[0] <= a[1]);
    case ExprOp::LNot: return b2v(a[0] == zero);
    case ExprOp::LAnd: return b2v(a[0] != zero && a[1] != zero);
    case ExprOp::LOr: return b2v(a[0] != zero || a[1] != zero);
    case ExprOp::Ite: return z3::ite(a[0] != zero, a[1], a[2]);
    case ExprOp::MbArrive: return mbStep(a[0], a[1], a[2], a[3], zero);
    case ExprOp::MbTx: return mbStep(a[0], zero, a[1], a[2], zero);
    case ExprOp::MbPhase: return z3::zext(a[0].extract(55, 44), 52);
    case ExprOp::MbArriveDrop: return mbStep(a[0], a[1], a[2], a[3], a[1]);
  }
  throw std::logic_error("ValueEncoder: leaf or unknown operator");
}

}  // namespace ptxmm::smt
