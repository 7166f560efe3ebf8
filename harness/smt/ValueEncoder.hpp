// Encoding of event-program values (events::Expr) as 64-bit z3 bit-vectors, following
// events::evalOp exactly (two's complement arithmetic, division by 0 gives 0, shifts out of range
// give 0, comparisons signed with 0/1 results, the mbarrier state word of docs/design.md).
#pragma once

#include <z3++.h>

#include <functional>
#include <optional>
#include <vector>

#include "events/Expr.hpp"

namespace ptxmm::smt {

/// Encodes expressions of one pool; read values come from a callback (one bit-vector per read).
class ValueEncoder {
 public:
  /// An encoder over `pool`; `readValue(e)` gives the 64-bit term of read event e.
  ValueEncoder(z3::context& ctx, const events::ExprPool& pool, std::function<z3::expr(events::EventId)> readValue);
  /// The 64-bit term of expression `id` (memoised).
  z3::expr encode(events::ExprId id);
  /// The Boolean "expression `id` is non-zero".
  z3::expr nonZero(events::ExprId id);
  /// A 64-bit constant.
  z3::expr constant(int64_t v);

 private:
  z3::expr apply(events::ExprOp op, const std::vector<z3::expr>& a);
  z3::context& ctx_;
  const events::ExprPool& pool_;
  std::function<z3::expr(events::EventId)> readValue_;
  std::vector<std::optional<z3::expr>> memo_;
};

}  // namespace ptxmm::smt
