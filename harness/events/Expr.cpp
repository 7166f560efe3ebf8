#include "events/Expr.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace ptxmm::events {
namespace {

// mbarrier state word layout (docs/lowering.md): bits 0-23 tx-count (two's complement), bits 24-43 pending
// arrivals, bits 44-55 phase, bits 56-63 dropped arrivals (arrive_drop since the last init).
constexpr uint64_t kTxMask = (uint64_t{1} << 24) - 1;
constexpr uint64_t kField20 = (uint64_t{1} << 20) - 1;
constexpr uint64_t kPhaseMask = (uint64_t{1} << 12) - 1;
constexpr uint64_t kDropMask = (uint64_t{1} << 8) - 1;

int64_t mbTx(uint64_t s) {
  uint64_t t = s & kTxMask;
  if (t & (uint64_t{1} << 23)) t |= ~kTxMask;  // sign-extend
  return static_cast<int64_t>(t);
}
int64_t mbPending(uint64_t s) { return static_cast<int64_t>((s >> 24) & kField20); }
int64_t mbPhase(uint64_t s) { return static_cast<int64_t>((s >> 44) & kPhaseMask); }
int64_t mbDropped(uint64_t s) { return static_cast<int64_t>((s >> 56) & kDropMask); }

int64_t mbEncode(int64_t tx, int64_t pending, int64_t phase, int64_t dropped) {
  uint64_t v = (static_cast<uint64_t>(tx) & kTxMask) | ((static_cast<uint64_t>(pending) & kField20) << 24) |
               ((static_cast<uint64_t>(phase) & kPhaseMask) << 44) |
               ((static_cast<uint64_t>(dropped) & kDropMask) << 56);
  return static_cast<int64_t>(v);
}

// Apply "dropped += drop; tx += dTx; pending -= arrivals" then the phase-completion rule, on the wrapped
// field values. A completed phase re-arms with `expected - dropped` pending arrivals.
int64_t mbStep(int64_t state, int64_t arrivals, int64_t dTx, int64_t expected, int64_t drop) {
  auto s = static_cast<uint64_t>(state);
  // Field arithmetic wraps (two's complement), so add/subtract as unsigned to stay defined behaviour.
  auto wrapAdd = [](int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  };
  auto wrapSub = [](int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  };
  int64_t tx = mbTx(static_cast<uint64_t>(mbEncode(wrapAdd(mbTx(s), dTx), 0, 0, 0)));  // wrap to 24 bits
  int64_t pending = wrapSub(mbPending(s), arrivals) & static_cast<int64_t>(kField20);
  int64_t phase = mbPhase(s);
  int64_t dropped = wrapAdd(mbDropped(s), drop) & static_cast<int64_t>(kDropMask);
  if (pending == 0 && tx == 0) {
    phase = wrapAdd(phase, 1) & static_cast<int64_t>(kPhaseMask);
    pending = wrapSub(expected, dropped) & static_cast<int64_t>(kField20);
    tx = 0;
  }
  return mbEncode(tx, pending, phase, dropped);
}

uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }

size_t arity(ExprOp op) {
  switch (op) {
    case ExprOp::Const:
    case ExprOp::ReadVal: return 0;
    case ExprOp::LNot:
    case ExprOp::MbPhase: return 1;
    case ExprOp::Ite:
    case ExprOp::MbTx: return 3;
    case ExprOp::MbArrive:
    case ExprOp::MbArriveDrop: return 4;
    default: return 2;
  }
}

const char* infix(ExprOp op) {
  switch (op) {
    case ExprOp::Add: return "+";
    case ExprOp::Sub: return "-";
    case ExprOp::Mul: return "*";
    case ExprOp::Div: return "/";
    case ExprOp::Rem: return "%";
    case ExprOp::And: return "&";
    case ExprOp::Or: return "|";
    case ExprOp::Xor: return "^";
    case ExprOp::Shl: return "<<";
    case ExprOp::Shr: return ">>";
    case ExprOp::Eq: return "==";
    case ExprOp::Ne: return "!=";
    case ExprOp::Lt: return "<";
    case ExprOp::Le: return "<=";
    case ExprOp::LAnd: return "&&";
    case ExprOp::LOr: return "||";
    default: return nullptr;
  }
}

const char* funcName(ExprOp op) {
  switch (op) {
    case ExprOp::LNot: return "!";
    case ExprOp::Ite: return "ite";
    case ExprOp::MbArrive: return "MbArrive";
    case ExprOp::MbTx: return "MbTx";
    case ExprOp::MbPhase: return "MbPhase";
    case ExprOp::MbArriveDrop: return "MbArriveDrop";
    default: return "?";
  }
}

}  // namespace

int64_t evalOp(ExprOp op, const std::vector<int64_t>& a) {
  if (a.size() < arity(op)) throw std::logic_error("evalOp: wrong number of arguments");
  switch (op) {
    case ExprOp::Const:
    case ExprOp::ReadVal: throw std::logic_error("evalOp: leaf operator");
    case ExprOp::Add: return static_cast<int64_t>(u(a[0]) + u(a[1]));
    case ExprOp::Sub: return static_cast<int64_t>(u(a[0]) - u(a[1]));
    case ExprOp::Mul: return static_cast<int64_t>(u(a[0]) * u(a[1]));
    case ExprOp::Div:
      if (a[1] == 0) return 0;
      if (a[0] == INT64_MIN && a[1] == -1) return INT64_MIN;
      return a[0] / a[1];
    case ExprOp::Rem:
      if (a[1] == 0) return 0;
      if (a[1] == -1) return 0;
      return a[0] % a[1];
    case ExprOp::And: return a[0] & a[1];
    case ExprOp::Or: return a[0] | a[1];
    case ExprOp::Xor: return a[0] ^ a[1];
    case ExprOp::Shl: return (a[1] < 0 || a[1] > 63) ? 0 : static_cast<int64_t>(u(a[0]) << a[1]);
    case ExprOp::Shr: return (a[1] < 0 || a[1] > 63) ? 0 : static_cast<int64_t>(u(a[0]) >> a[1]);
    case ExprOp::Eq: return a[0] == a[1];
    case ExprOp::Ne: return a[0] != a[1];
    case ExprOp::Lt: return a[0] < a[1];
    case ExprOp::Le: return a[0] <= a[1];
    case ExprOp::LNot: return a[0] == 0;
    case ExprOp::LAnd: return a[0] != 0 && a[1] != 0;
    case ExprOp::LOr: return a[0] != 0 || a[1] != 0;
    case ExprOp::Ite: return a[0] != 0 ? a[1] : a[2];
    case ExprOp::MbArrive: return mbStep(a[0], a[1], a[2], a[3], 0);
    case ExprOp::MbTx: return mbStep(a[0], 0, a[1], a[2], 0);
    case ExprOp::MbPhase: return mbPhase(u(a[0]));
    case ExprOp::MbArriveDrop: return mbStep(a[0], a[1], a[2], a[3], a[1]);
  }
  throw std::logic_error("evalOp: unknown operator");
}

int64_t mbarrierState(int64_t txCount, int64_t pending, int64_t phase, int64_t dropped) {
  return mbEncode(txCount, pending, phase, dropped);
}
int64_t mbarrierTxCount(int64_t state) { return mbTx(u(state)); }
int64_t mbarrierPending(int64_t state) { return mbPending(u(state)); }
int64_t mbarrierPhase(int64_t state) { return mbPhase(u(state)); }
int64_t mbarrierDropped(int64_t state) { return mbDropped(u(state)); }

ExprId ExprPool::constant(int64_t v) {
  ExprNode n;
  n.op = ExprOp::Const;
  n.value = v;
  std::string key = fmt::format("c{}", v);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  auto id = static_cast<ExprId>(nodes_.size());
  nodes_.push_back(std::move(n));
  index_.emplace(std::move(key), id);
  return id;
}

ExprId ExprPool::readVal(EventId e) {
  std::string key = fmt::format("r{}", e);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  ExprNode n;
  n.op = ExprOp::ReadVal;
  n.event = e;
  auto id = static_cast<ExprId>(nodes_.size());
  nodes_.push_back(std::move(n));
  index_.emplace(std::move(key), id);
  return id;
}

ExprId ExprPool::make(ExprOp op, std::vector<ExprId> args) {
  if (op == ExprOp::Const || op == ExprOp::ReadVal) throw std::logic_error("ExprPool::make: use constant/readVal");
  if (args.size() != arity(op)) throw std::logic_error("ExprPool::make: wrong number of arguments");
  for (ExprId a : args)
    if (a < 0 || static_cast<size_t>(a) >= nodes_.size()) throw std::logic_error("ExprPool::make: bad argument id");
  // Constant folding (keeps the DAG small and lets the lowering decide constant branches statically).
  bool allConst = true;
  for (ExprId a : args) allConst = allConst && nodes_[static_cast<size_t>(a)].op == ExprOp::Const;
  if (allConst) {
    std::vector<int64_t> vals;
    for (ExprId a : args) vals.push_back(nodes_[static_cast<size_t>(a)].value);
    return constant(evalOp(op, vals));
  }
  if (op == ExprOp::Ite && nodes_[static_cast<size_t>(args[0])].op == ExprOp::Const)
    return nodes_[static_cast<size_t>(args[0])].value != 0 ? args[1] : args[2];
  std::string key = fmt::format("o{}", static_cast<int>(op));
  for (ExprId a : args) key += fmt::format(",{}", a);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  ExprNode n;
  n.op = op;
  n.args = std::move(args);
  auto id = static_cast<ExprId>(nodes_.size());
  nodes_.push_back(std::move(n));
  index_.emplace(std::move(key), id);
  return id;
}

bool ExprPool::isConst(ExprId id) const { return node(id).op == ExprOp::Const; }

void ExprPool::collectReads(ExprId id, std::vector<EventId>& out) const {
  std::vector<ExprId> stack{id};
  std::vector<bool> seen(nodes_.size(), false);
  while (!stack.empty()) {
    ExprId x = stack.back();
    stack.pop_back();
    if (seen[static_cast<size_t>(x)]) continue;
    seen[static_cast<size_t>(x)] = true;
    const ExprNode& n = node(x);
    if (n.op == ExprOp::ReadVal) {
      bool dup = false;
      for (EventId e : out) dup = dup || e == n.event;
      if (!dup) out.push_back(n.event);
    }
    for (ExprId a : n.args) stack.push_back(a);
  }
}

std::string ExprPool::str(ExprId id) const {
  const ExprNode& n = node(id);
  switch (n.op) {
    case ExprOp::Const: return std::to_string(n.value);
    case ExprOp::ReadVal: return fmt::format("r@e{}", n.event);
    default: break;
  }
  if (const char* op = infix(n.op)) return fmt::format("({} {} {})", str(n.args[0]), op, str(n.args[1]));
  if (n.op == ExprOp::LNot) return fmt::format("!{}", str(n.args[0]));
  std::string s = std::string(funcName(n.op)) + "(";
  for (size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + str(n.args[i]);
  return s + ")";
}

int64_t evaluate(const ExprPool& pool, ExprId id, const std::vector<int64_t>& readValues) {
  // Iterative post-order evaluation with memoisation (expressions are DAGs and may be deep).
  std::unordered_map<ExprId, int64_t> memo;
  std::vector<std::pair<ExprId, bool>> stack{{id, false}};
  while (!stack.empty()) {
    auto [x, expanded] = stack.back();
    stack.pop_back();
    if (memo.count(x)) continue;
    const ExprNode& n = pool.node(x);
    if (n.op == ExprOp::Const) {
      memo[x] = n.value;
      continue;
    }
    if (n.op == ExprOp::ReadVal) {
      if (n.event < 0 || static_cast<size_t>(n.event) >= readValues.size())
        throw std::out_of_range(fmt::format("evaluate: no value for read event e{}", n.event));
      memo[x] = readValues[static_cast<size_t>(n.event)];
      continue;
    }
    if (!expanded) {
      stack.push_back({x, true});
      for (ExprId a : n.args)
        if (!memo.count(a)) stack.push_back({a, false});
      continue;
    }
    std::vector<int64_t> vals;
    vals.reserve(n.args.size());
    for (ExprId a : n.args) vals.push_back(memo.at(a));
    memo[x] = evalOp(n.op, vals);
  }
  return memo.at(id);
}

}  // namespace ptxmm::events
