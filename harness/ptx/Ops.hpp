// The PTX operations table (generated from PtxOps.def) and its lookup functions.
#pragma once

#include <cstddef>
#include <iterator>
#include <span>
#include <string_view>
#include <vector>

#include "ptx/Attributes.hpp"

namespace ptxmm::ptx {

/// An instruction family (PtxOps.def's PTX_FAMILY rows): one home per stage each.
enum class OpFamily : uint8_t {
#define PTX_FAMILY(Name, file, role, doc) Name,
#include "ptx/PtxOps.def"
#undef PTX_FAMILY
};

/// What the analyses make of a family (PtxOps.def's role column).
enum class FamilyRole : uint8_t {
  Access,   ///< touches memory
  Fence,    ///< a thread or proxy fence
  Wait,     ///< commits and waits of async groups
  Sync,     ///< barriers and mbarriers
  Local,    ///< registers only
  Control,  ///< branches
};

/// The role of `family`.
[[nodiscard]] constexpr FamilyRole roleOf(OpFamily family) {
  switch (family) {
#define PTX_FAMILY(Name, file, role, doc) \
  case OpFamily::Name:                    \
    return FamilyRole::role;
#include "ptx/PtxOps.def"
#undef PTX_FAMILY
  }
  return FamilyRole::Access;
}

/// One enumerator per row of PtxOps.def.
enum class OpId : uint16_t {
#define PTX_OP(Id, mnemonic, family, proxy, minSm, minPtx, quals, operands, section) Id,
#include "ptx/PtxOps.def"
#undef PTX_OP
  Count_
};

/// The family of every row of PtxOps.def, by OpId.
inline constexpr OpFamily kFamilyOf[] = {
#define PTX_OP(Id, mnemonic, family, ...) OpFamily::family,
#include "ptx/PtxOps.def"
#undef PTX_OP
};
static_assert(std::size(kFamilyOf) == static_cast<size_t>(OpId::Count_));

/// True if `table` (entries with a member `op`: a stage's per-op table of one family) lists every row of
/// `family` exactly once and no row of another family. Each stage static_asserts it of its tables, so a
/// new row of PtxOps.def that a family file does not handle fails to compile.
template <class Entry>
consteval bool coversFamily(std::span<const Entry> table, OpFamily family) {
  for (size_t id = 0; id < std::size(kFamilyOf); ++id) {
    int listed = 0;
    for (const Entry& e : table) listed += static_cast<size_t>(e.op) == id ? 1 : 0;
    if (listed != (kFamilyOf[id] == family ? 1 : 0)) return false;
  }
  return true;
}

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

/// The operand signature of an op split at ',' and '|' ("d", "a", "s?", ...).
[[nodiscard]] std::vector<std::string_view> operandSignature(const OpInfo& op);

/// Per operand of the signature, the separator written before it: ' ' for the first, ',' or '|'
/// (`elect.sync d|p, membermask`).
[[nodiscard]] std::vector<char> operandSeparators(const OpInfo& op);

}  // namespace ptxmm::ptx
