// Encoding of event-program values (events::Expr) as z3 bit-vectors, following events::evalOp exactly
// (two's complement arithmetic, division by 0 gives 0, shifts out of range give 0, comparisons signed with
// 0/1 results, the mbarrier state word of docs/design.md), in the widths of a ValueLayout: 64 bits, or the
// narrower widths that are exact for the test (smt/ValueLayout.hpp).
#pragma once

#include <z3++.h>

#include <functional>
#include <optional>
#include <vector>

#include "events/Expr.hpp"
#include "smt/ValueLayout.hpp"

namespace ptxmm::smt {

/// Encodes expressions of one pool; read values come from a callback (one bit-vector per read).
class ValueEncoder {
 public:
  /// An encoder over `pool` in `layout`; `readValue(e)` gives the term of read event e (of its location's kind).
  ValueEncoder(z3::context& ctx, const events::ExprPool& pool, std::function<z3::expr(events::EventId)> readValue,
               ValueLayout layout = {});
  /// The term of expression `id` (memoised), of the node's kind (a constant: plain).
  z3::expr encode(events::ExprId id);
  /// The term of expression `id` as a value of kind k (a non-constant node must be of kind k).
  z3::expr encodeAs(events::ExprId id, ValueKind k);
  /// The Boolean "expression `id` is non-zero".
  z3::expr nonZero(events::ExprId id);
  /// A plain constant.
  z3::expr constant(int64_t v) { return constant(ValueKind::Plain, v); }
  /// A constant of kind k (throws std::logic_error if the layout cannot represent it).
  z3::expr constant(ValueKind k, int64_t v);
  /// The layout.
  [[nodiscard]] const ValueLayout& layout() const { return layout_; }

 private:
  z3::expr apply(events::ExprId x, const std::vector<z3::expr>& a);
  z3::expr mbStep(const z3::expr& s, const z3::expr& arrivals, const z3::expr& dTx, const z3::expr& expected,
                  const z3::expr& drop);
  z3::expr fit(const z3::expr& plain, unsigned bits) const;
  z3::context& ctx_;
  const events::ExprPool& pool_;
  std::function<z3::expr(events::EventId)> readValue_;
  std::vector<std::optional<z3::expr>> memo_;
  ValueLayout layout_;
};

}  // namespace ptxmm::smt
