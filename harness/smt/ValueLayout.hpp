// The bit-vector layout of the smt engine's values (docs/design.md "Narrow values in the smt engine"):
// 64-bit two's complement words and packed 64-bit mbarrier state words (events::evalOp), or, for a test
// whose values provably fit fewer bits in every execution without a value-dependency cycle, plain values
// as w-bit two's complement words and mbarrier states as narrower packed fields (tx-count, pending
// arrivals, phase, dropped arrivals). Both layouts are exact images of the 64-bit semantics on the values
// that occur: equalities, comparisons, arithmetic and the mbarrier state machine give the same results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "events/Expr.hpp"

namespace ptxmm::smt {

/// What a value is: a plain integer or an mbarrier state word.
enum class ValueKind : uint8_t { Plain, Mbarrier };

/// Widths of the encoding of one test.
struct ValueLayout {
  bool narrow = false;    ///< false: every value a 64-bit word (the reference layout)
  unsigned plain = 64;    ///< bits of a plain value (two's complement)
  unsigned tx = 24;       ///< mbarrier fields, low to high: tx-count (two's complement)
  unsigned pending = 20;  ///< pending arrivals (two's complement)
  unsigned phase = 12;    ///< phase (unsigned)
  unsigned dropped = 8;   ///< dropped arrivals (unsigned)
  /// Narrow layout: the kind of every non-constant expression node (by ExprId) and of every location.
  std::vector<ValueKind> nodeKind, locKind;

  /// Bits of a value of kind k.
  [[nodiscard]] unsigned bits(ValueKind k) const {
    return k == ValueKind::Plain ? plain : tx + pending + phase + dropped;
  }
  /// Kind of node `id` (constants: Plain; use argKind for a constant argument).
  [[nodiscard]] ValueKind kindOf(const events::ExprPool& pool, events::ExprId id) const;
  /// Kind of argument i of node `id` as the operator reads it.
  [[nodiscard]] ValueKind argKind(const events::ExprPool& pool, events::ExprId id, size_t i) const;
  /// The encoding of 64-bit value v as a value of kind k (the low bits(k) bits), or nullopt if this layout
  /// cannot represent it.
  [[nodiscard]] std::optional<uint64_t> encode(ValueKind k, int64_t v) const;
  /// The 64-bit value of an encoding of kind k (inverse of encode).
  [[nodiscard]] int64_t decode(ValueKind k, uint64_t bits) const;
  /// "plain 9 bits, mbarrier 6+4+3+1 bits" or "64 bits".
  [[nodiscard]] std::string describe() const;
};

/// What the layout analysis needs of one encoding: the value expression of each write per location (-1:
/// the write stores 0), the location of each read event (by EventId; -1 for events that are not reads of
/// the encoding), every other expression the encoding evaluates (guards, UB conditions, value-dependent
/// set conditions, final register values), groups of expressions that must have one kind (the final values
/// of one register over the paths), and the constants the condition compares terms with.
struct LayoutInput {
  std::vector<std::vector<events::ExprId>> writesByLoc;
  std::vector<int> readLoc;
  std::vector<events::ExprId> others;
  std::vector<std::vector<events::ExprId>> sameKind;
  std::vector<int64_t> plainConstants;
};

/// The narrowest exact layout for `in`, valid for every execution whose value dependencies (each read's
/// value is that of the write it reads from, a write's value a function of the reads in its expression)
/// form no cycle: the value ranges are those reached after as many rounds of interval propagation as there
/// are reads. The 64-bit layout when a value may need 64 bits, an operator has no exact narrow form on the
/// ranges found (a logical shift of a negative value, a shift by an amount outside 0..63, ordered
/// comparisons or arithmetic on mbarrier states), or one value is used both as a plain integer and as an
/// mbarrier state.
[[nodiscard]] ValueLayout computeLayout(const events::ExprPool& pool, const LayoutInput& in);

}  // namespace ptxmm::smt
