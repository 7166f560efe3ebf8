// Skeletons: one control-flow path chosen per real thread of an EventProgram, with its active events
// renumbered 0..n-1 (init writes first) and every static built-in cat set and relation materialised as
// BitSet / BitMatrix over those indices. The enum and smt engines evaluate models on skeletons.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "events/EventProgram.hpp"
#include "support/BitMatrix.hpp"

namespace ptxmm::events {

/// The static part of a candidate execution: one path per real thread.
///
/// Sets (by cat name): every built-in of kind Tag (events/Builtins.def: R W M F IW RMW, proxies, semantics,
/// scopes, ...), each present even if empty. Relations: every ProgramRelation (from EventProgram::relations,
/// restricted to active events) and DerivedRelation (loc vloc vsyn int ext id scta scluster sgpu sr;
/// docs/lowering.md gives their exact definitions) of the registry, each present even if empty.
struct Skeleton {
  const EventProgram* program = nullptr;
  std::vector<int> choice;                    ///< path index per real thread
  std::vector<EventId> events;                ///< compact index -> EventId; init writes come first
  std::vector<int> compact;                   ///< EventId -> compact index, -1 if the event is not active
  size_t numInit = 0;                         ///< number of init writes (compact indices 0..numInit-1)
  std::vector<std::vector<int>> writesByLoc;  ///< per physical location: compact indices of its writes (init first)
  std::vector<std::vector<int>> readsByLoc;   ///< per physical location: compact indices of its reads
  std::vector<ExprId> guards;                 ///< all guards of the chosen paths (each must be non-0)
  std::vector<std::map<std::string, ExprId>> finalRegs;  ///< per real thread: register values at path end
  std::vector<PathEnd> ends;                             ///< per real thread: how its path ends
  std::vector<int> readsFinal;                           ///< compact indices of reads that must read the co-last write
  std::vector<std::pair<ExprId, std::string>> undefinedIf;  ///< UB conditions of the chosen paths
  bool cut = false;                              ///< some chosen path ends with PathEnd::Cut (not in a spin iteration)
  bool blocked = false;                          ///< some chosen path ends with PathEnd::Blocked
  std::unordered_map<std::string, BitSet> sets;  ///< built-in sets by cat name
  std::unordered_map<std::string, BitMatrix> relations;  ///< static built-in relations by cat name
  /// Value-dependent built-in sets by cat name (every name of allDynamicTags() (events/Builtins.hpp), present even if
  /// empty): the members that may belong, as (compact index, condition); an event is in the set of an execution iff its
  /// condition evaluates non-0 with that execution's read values (Event::dynamicTags).
  std::map<std::string, std::vector<std::pair<int, ExprId>>> dynamicSets;

  /// Number of active events.
  [[nodiscard]] size_t size() const { return events.size(); }
  /// The program event at compact index i.
  [[nodiscard]] const Event& event(size_t i) const { return program->events[static_cast<size_t>(events[i])]; }
  /// Compact index of a program event (-1 if inactive).
  [[nodiscard]] int indexOf(EventId e) const { return compact[static_cast<size_t>(e)]; }
  /// A set by name; throws std::out_of_range for an unknown name.
  [[nodiscard]] const BitSet& set(const std::string& name) const { return sets.at(name); }
  /// A relation by name; throws std::out_of_range for an unknown name.
  [[nodiscard]] const BitMatrix& relation(const std::string& name) const { return relations.at(name); }
};

/// Build the skeleton of one path choice (`choice[t]` indexes program.paths[t]). Throws std::out_of_range
/// for a bad choice.
[[nodiscard]] Skeleton buildSkeleton(const EventProgram& program, const std::vector<int>& choice);

/// The union skeleton of a set of paths per real thread (`paths[t]` indexes program.paths[t]): the init
/// writes and every event of those paths active at once, with the sets and relations built as for one
/// path choice (a static relation holds between two events whenever it holds in the executions where both
/// occur). The per-path fields (choice, guards, finalRegs, ends, readsFinal, undefinedIf, cut, blocked)
/// stay empty: an engine encoding several path choices at once reads them from program.paths.
[[nodiscard]] Skeleton buildUnionSkeleton(const EventProgram& program, const std::vector<std::vector<int>>& paths);

/// Number of path combinations (product of the per-thread path counts, saturating at SIZE_MAX). An upper
/// bound of the combinations forEachPathChoice visits (it skips those barriersConsistent rejects).
[[nodiscard]] size_t countPathChoices(const EventProgram& program);

/// Whether the execution barriers agree with a path choice (docs/lowering.md "Execution barriers"): every
/// barrier generation a chosen path passes is complete, and every generation a chosen path is blocked at
/// is not. A generation completes when every participant reaches it or exits (its path ends `Normal`), or,
/// for a barrier with a thread count, when that many participants reach it.
[[nodiscard]] bool barriersConsistent(const EventProgram& program, const std::vector<int>& choice);

/// Call `f` with every path combination that barriersConsistent accepts, in lexicographic order (thread 0
/// slowest); stop early when `f` returns false. Returns false iff stopped early.
bool forEachPathChoice(const EventProgram& program, const std::function<bool(const std::vector<int>&)>& f);

}  // namespace ptxmm::events
