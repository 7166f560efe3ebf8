// The built-in names of the cat models (generated from events/Builtins.def): the event sets and
// relations that the lowering, the skeletons and the engines define. Header-only, so that the cat
// tests can check the models against it without linking the events stage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxmm::events {

/// Which part of the pipeline defines a built-in name (see Builtins.def).
enum class BuiltinKind : uint8_t {
  Tag,                ///< static event set: Event::tags, Skeleton::sets
  DynamicTag,         ///< value-dependent event set: Event::dynamicTags, Skeleton::dynamicSets
  ProgramRelation,    ///< static relation built by the lowering: EventProgram::relations
  DerivedRelation,    ///< static relation derived by the Skeleton from the events' attributes
  ExecutionRelation,  ///< relation chosen per candidate execution by the engines (rf co fr sc)
  ExecutionSet        ///< set chosen per candidate execution by the engines (FW)
};

/// One enumerator per row of Builtins.def. The lowering names tags and relations with these, so a
/// misspelt name does not compile.
enum class Builtin : uint16_t {
#define BUILTIN(Id, name, kind, doc, section) Id,
#include "events/Builtins.def"
#undef BUILTIN
  Count_
};

/// A row of Builtins.def.
struct BuiltinInfo {
  Builtin id;
  std::string_view name;  ///< the cat name ("bar-sync")
  BuiltinKind kind;
  std::string_view doc;      ///< one line: what it holds
  std::string_view section;  ///< where it is documented: "<file in docs/>#<section>"

  /// An event set (tag, dynamic tag or execution set) rather than a relation.
  [[nodiscard]] constexpr bool isSet() const {
    return kind == BuiltinKind::Tag || kind == BuiltinKind::DynamicTag || kind == BuiltinKind::ExecutionSet;
  }
};

/// All rows, in table order.
inline constexpr BuiltinInfo kBuiltins[] = {
#define BUILTIN(Id, name, kind, doc, section) {Builtin::Id, name, BuiltinKind::kind, doc, section},
#include "events/Builtins.def"
#undef BUILTIN
};
static_assert(std::size(kBuiltins) == static_cast<size_t>(Builtin::Count_));

/// All rows, in table order.
[[nodiscard]] inline std::span<const BuiltinInfo> allBuiltins() { return kBuiltins; }

/// The row of a built-in.
[[nodiscard]] constexpr const BuiltinInfo& builtinInfo(Builtin b) { return kBuiltins[static_cast<size_t>(b)]; }

/// The cat name of a built-in.
[[nodiscard]] constexpr std::string_view builtinName(Builtin b) { return builtinInfo(b).name; }

/// The cat name of a built-in, as the algebras' setSet / setRel take it.
[[nodiscard]] inline std::string nameOf(Builtin b) { return std::string(builtinName(b)); }

/// Exact lookup by cat name; nullptr if `name` is not a built-in.
[[nodiscard]] inline const BuiltinInfo* findBuiltin(std::string_view name) {
  for (const BuiltinInfo& b : kBuiltins)
    if (b.name == name) return &b;
  return nullptr;
}

/// The names of one kind, in table order.
[[nodiscard]] inline std::vector<std::string> builtinNames(BuiltinKind kind) {
  std::vector<std::string> out;
  for (const BuiltinInfo& b : kBuiltins)
    if (b.kind == kind) out.emplace_back(b.name);
  return out;
}

/// Cat tag names the lowering may put on events (kind Tag). The skeletons define every one as a set,
/// empty if no event carries it.
[[nodiscard]] inline const std::vector<std::string>& allEventTags() {
  static const std::vector<std::string> names = builtinNames(BuiltinKind::Tag);
  return names;
}

/// Names of the value-dependent sets the lowering may put on events (kind DynamicTag, Event::dynamicTags,
/// docs/design.md "Dynamic tags"). Skeletons list every one (Skeleton::dynamicSets) and the engines define
/// each as a built-in set, empty if no event carries it.
[[nodiscard]] inline const std::vector<std::string>& allDynamicTags() {
  static const std::vector<std::string> names = builtinNames(BuiltinKind::DynamicTag);
  return names;
}

/// The static relations a skeleton provides: those the lowering builds, then those the skeleton derives.
[[nodiscard]] inline const std::vector<std::string>& skeletonRelationNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = builtinNames(BuiltinKind::ProgramRelation);
    for (auto& n : builtinNames(BuiltinKind::DerivedRelation)) out.push_back(std::move(n));
    return out;
  }();
  return names;
}

/// The names the engines choose per candidate execution (rf co fr sc FW) and the dynamic tags: the
/// names the engines declare dynamic to the cat interpreter (cat::InterpreterOptions::dynamicNames).
[[nodiscard]] inline const std::vector<std::string>& executionDependentNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const BuiltinInfo& b : kBuiltins)
      if (b.kind == BuiltinKind::ExecutionRelation || b.kind == BuiltinKind::ExecutionSet) out.emplace_back(b.name);
    for (const auto& n : allDynamicTags()) out.push_back(n);
    return out;
  }();
  return names;
}

}  // namespace ptxmm::events
