// The PTX operations table (generated from PtxOps.def) and its lookup functions.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ptx/Attributes.hpp"

namespace ptxmm::ptx {

/// What the event lowering makes of an instruction.
enum class OpFamily : uint8_t {
  Read,
  Write,
  Rmw,
  Fence,
  ProxyFence,
  Barrier,
  Mbarrier,
  AsyncCopy,
  AsyncGroup,
  Clc,
  Local,
  Branch
};

/// One enumerator per row of PtxOps.def.
enum class OpId : uint16_t {
#define PTX_OP(Id, mnemonic, family, proxy, minSm, minPtx, quals, operands, section) Id,
#include "ptx/PtxOps.def"
#undef PTX_OP
  Count_
};

/// A row of PtxOps.def.
struct OpInfo {
  OpId id;
  std::string_view name;      ///< enumerator name ("CpAsyncBulk")
  std::string_view mnemonic;  ///< base mnemonic ("cp.async.bulk")
  OpFamily family;
  Proxy proxy;
  Target minTarget;             ///< of the base form
  std::string_view qualifiers;  ///< qualifier groups, see PtxOps.def
  std::string_view operands;    ///< operand signature, see PtxOps.def
  std::string_view isaSection;  ///< PTX ISA 9.2 section
};

/// All rows, in table order.
[[nodiscard]] std::span<const OpInfo> allOps();
/// The row of an op.
[[nodiscard]] const OpInfo& opInfo(OpId id);
/// Exact lookup by base mnemonic ("fence.proxy.async"); nullptr if unknown.
[[nodiscard]] const OpInfo* findOp(std::string_view mnemonic);

/// Exact lookup of an alternative spelling of a base mnemonic ("bar.cta.sync", "barrier.arrive");
/// nullptr if `spelling` is not an alias.
[[nodiscard]] const OpInfo* findAlias(std::string_view spelling);

/// Every accepted base spelling: the table's mnemonics followed by the aliases (for suggestions).
[[nodiscard]] std::vector<std::string> allSpellings();

/// The qualifier groups of an op, in canonical order ("sem", "scope", "space", "type", ...).
[[nodiscard]] std::vector<std::string_view> qualifierGroups(const OpInfo& op);

/// The qualifiers (without the leading dot) a group accepts; empty for an unknown group name.
[[nodiscard]] std::span<const std::string_view> qualifierGroupValues(std::string_view group);

/// True if `group` accepts the qualifier `q` (without the leading dot).
[[nodiscard]] bool groupAccepts(std::string_view group, std::string_view q);

/// The operand signature of an op split at ',' ("d", "a", "s?", ...).
[[nodiscard]] std::vector<std::string_view> operandSignature(const OpInfo& op);

}  // namespace ptxmm::ptx
