// Symbolic values of an event program: a hash-consed DAG of integer expressions over the values
// returned by read events. Evaluated concretely by the enum engine and encoded as 64-bit
// bit-vectors by the smt engine; both must follow evalOp() in Expr.cpp exactly.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxmm::events {

using ExprId = int32_t;
using EventId = int32_t;

enum class ExprOp : uint8_t {
  Const,    ///< value
  ReadVal,  ///< the value returned by read event `event`
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  And,
  Or,
  Xor,
  Shl,
  Shr,  ///< 64-bit two's complement; Div/Rem by 0 give 0
  Eq,
  Ne,
  Lt,
  Le,  ///< signed comparisons, result 0/1
  LNot,
  LAnd,
  LOr,  ///< logical on 0 / non-0, result 0/1
  Ite,  ///< a ? b : c
  // mbarrier state word (layout in docs/lowering.md: bits 0-23 tx, 24-43 pending, 44-55 phase,
  // 56-63 dropped arrivals)
  MbArrive,      ///< (state, arrivals, txBytes, expectedCount) -> next state
  MbTx,          ///< (state, txDelta, expectedCount) -> next state (expect_tx: +n, complete_tx: -n)
  MbPhase,       ///< (state) -> current phase number
  MbArriveDrop,  ///< (state, arrivals, txBytes, expectedCount) -> next state; also drops `arrivals` from
                 ///< the expected count of every later phase (mbarrier.arrive_drop)
};

struct ExprNode {
  ExprOp op = ExprOp::Const;
  int64_t value = 0;   ///< Const
  EventId event = -1;  ///< ReadVal
  std::vector<ExprId> args;
  bool operator==(const ExprNode&) const = default;
};

/// Owns all expression nodes of one event program; structurally equal nodes share an id.
class ExprPool {
 public:
  /// Node for the constant `v`.
  ExprId constant(int64_t v);
  /// Node for the value returned by read event `e`.
  ExprId readVal(EventId e);
  /// Node for `op(args)`; folds to a constant when every argument is constant (and `ite` with a
  /// constant condition to the chosen branch). Throws std::logic_error on a wrong arity.
  ExprId make(ExprOp op, std::vector<ExprId> args);
  /// True if `id` is a Const node.
  [[nodiscard]] bool isConst(ExprId id) const;
  /// Appends (without duplicates) the read events whose ReadVal occurs in `id`.
  void collectReads(ExprId id, std::vector<EventId>& out) const;
  /// The node of `id`.
  [[nodiscard]] const ExprNode& node(ExprId id) const { return nodes_[static_cast<size_t>(id)]; }
  /// Number of nodes.
  [[nodiscard]] size_t size() const { return nodes_.size(); }
  /// Human-readable form, e.g. "(r@e3 + 1)".
  [[nodiscard]] std::string str(ExprId id) const;

 private:
  std::vector<ExprNode> nodes_;
  std::unordered_map<std::string, ExprId> index_;
};

/// Concrete semantics of one operator applied to argument values (the reference for both engines).
[[nodiscard]] int64_t evalOp(ExprOp op, const std::vector<int64_t>& args);

/// Encode an mbarrier state word from its fields (tx-count two's complement in 24 bits, pending 20 bits,
/// phase 12 bits, dropped arrivals 8 bits; each wrapped to its width).
[[nodiscard]] int64_t mbarrierState(int64_t txCount, int64_t pending, int64_t phase, int64_t dropped = 0);
/// tx-count field of a state word (sign-extended).
[[nodiscard]] int64_t mbarrierTxCount(int64_t state);
/// pending-arrivals field of a state word.
[[nodiscard]] int64_t mbarrierPending(int64_t state);
/// phase field of a state word.
[[nodiscard]] int64_t mbarrierPhase(int64_t state);
/// dropped-arrivals field of a state word: how much arrive_drop lowered the expected count since the
/// last mbarrier.init (the next phase re-arms with `expectedCount - dropped`).
[[nodiscard]] int64_t mbarrierDropped(int64_t state);

/// Evaluate `id` given the value returned by each read event (indexed by EventId).
[[nodiscard]] int64_t evaluate(const ExprPool& pool, ExprId id, const std::vector<int64_t>& readValues);

}  // namespace ptxmm::events
