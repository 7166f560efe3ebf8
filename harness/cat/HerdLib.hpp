// herd7 compatibility: the names of herd7's standard environment that ptxmm's engines do not bind, and
// the library files that `include` always resolves to ptxmm's own versions.
//
// A free name of a model is looked up in the engine first (its sets and relations), then in this table.
// Each entry is a cat expression over ptxmm's built-ins: either a translation (`co0`, `amo`, `I`, ...),
// or, where PTX has no counterpart (Arm barriers, Linux-kernel lock events, register events, ...), the
// empty set / relation of the right type ("bound empty"). cat::loadModel prints one note per model that
// names the bound-empty entries it uses. The table is documented in models/README.md ("herd7's cat
// library").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxmm::cat {

/// One name of herd7's environment, with its ptxmm definition.
struct HerdName {
  std::string name;        ///< as written in cat
  std::string definition;  ///< cat expression over ptxmm's built-ins (and other entries)
  bool empty = false;      ///< no PTX counterpart: the empty set / relation (or a function returning one)
};

/// Every entry, in documentation order.
[[nodiscard]] const std::vector<HerdName>& herdNames();

/// The entry for `name`, or null.
[[nodiscard]] const HerdName* findHerdName(std::string_view name);

/// The text of a library file that `include "NAME"` resolves to whatever file of that name lies next to the
/// including model: `filters.cat` and `cross.cat` (whose `generate_orders` / `generate_cos` are primitives
/// that do not enumerate co a second time). nullopt for other names (`stdlib.cat` and `cos.cat` are ptxmm's
/// files in the library directory; see cat/Model.hpp).
[[nodiscard]] std::optional<std::string_view> builtinLibraryFile(std::string_view name);

}  // namespace ptxmm::cat
