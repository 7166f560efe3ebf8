// The PTX operations table (generated from PtxOps.def) and its lookup functions.
#pragma once

#include <span>
#include <string_view>

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

}  // namespace ptxmm::ptx
