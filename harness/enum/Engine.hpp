// The explicit engine: for each path choice (one path per thread), enumerate the candidate executions
// (rf × co × sc), resolve the values, run the cat model with the concrete bit-matrix algebra on each
// candidate, and collect the final states of the allowed ones with their flags and a witness.
// Candidates are built by a depth-first search, decision by decision (a write's place in co, a read's
// source, the sc order); a partial candidate is not extended when its resolved values contradict a path
// guard or when one of the model's own checks fails on it in a way no completion can repair
// (cat::MonotoneAlgebra: the check's relation only grows with rf, co and sc). The search assumes nothing
// about the model beyond what that evaluation shows, and every complete candidate is evaluated exactly.
// Unless executions are counted, a partial candidate whose final state is already recorded with every
// flag its completions could add is not extended either.
#pragma once

#include <atomic>
#include <cstdint>

#include "cat/Model.hpp"
#include "events/EventProgram.hpp"
#include "outcome/Result.hpp"
#include "outcome/State.hpp"

namespace ptxmm::enumeration {

/// Options of the explicit engine.
struct EnumOptions {
  bool witnesses = true;       ///< keep one witness execution per state
  uint64_t maxCandidates = 0;  ///< 0 = unlimited; more → Status::Unknown
  uint64_t maxNodes = 0;       ///< 0 = unlimited; more search nodes (partial executions) → Status::Unknown
  size_t maxStates = 0;        ///< 0 = unlimited; more distinct final states → Status::Unknown
  /// Search nodes the first decision order of a path choice may spend, before any complete candidate and
  /// without reaching a deeper decision, before it is abandoned for the next order (docs/design.md "The
  /// enum engine's search"; doubled after each round of the three orders).
  uint64_t orderNodeBudget = 1000;
  /// The first decision order's budget instead, at most orderNodeBudget, in a path choice in which a thread
  /// blocks, where refuteByLocations is tried each time an order stalls: most such path choices are
  /// infeasible, and one or two locations' decisions alone often refute them sooner than an order does.
  uint64_t blockedFirstBudget = 100;
  /// Count every allowed execution of each state, as herd7 does. Otherwise a subtree of the search whose
  /// final state is decided, already recorded and cannot gain a flag is left out (docs/design.md "States,
  /// not executions"), and each state counts 1 (EngineResult::countsAreExecutions false).
  bool countExecutions = false;
  /// Explain why a partial execution fails by the locations whose decisions it needs, and skip the other
  /// alternatives of a decision whose location is not among the reasons (conflict-directed backjumping,
  /// docs/design.md "The enum engine's search"). Off: every alternative is searched (for tests).
  bool backjump = true;
  /// Each time a decision order of a path choice in which a thread blocks stalls, search the decisions of
  /// each deciding location alone, then of pairs of locations, not yet searched, for a refutation of the
  /// whole path choice (docs/design.md "The enum engine's search"). Off: only the
  /// decision orders (for tests).
  bool refuteByLocations = true;
  /// Record each failure the model explains by fewer than all locations with the rf and co pairs of those
  /// locations (a no-good), and fail a later node of the path choice that has those pairs, complete
  /// candidates included, without running the model (docs/design.md "The enum engine's search"). Off: the
  /// model decides every node (for tests).
  bool noGoods = true;
  /// Take a core (a few rf and co pairs checked alone) that an earlier path choice of the test found open,
  /// for the same events, as open without the model (docs/design.md "The enum engine's search"). Off: every
  /// path choice checks its cores (for tests).
  bool shareOpenCores = true;
  /// Leave out the model's check on a node reached by a decision with one alternative (a read with one
  /// possible source left, the last write of a location to place that is no RMW's): the next node's
  /// check, or the complete candidate's exact evaluation, fails where it would, a failure being for good
  /// (docs/design.md "The enum engine's search"). Off: every node is checked (for tests).
  bool skipForcedChecks = true;
  /// Skip the second order of two interchangeable arrivals (two threads' i-th RMWs of one location with the
  /// same update and unused read values, such as two consumers' arrivals on one mbarrier) when everything
  /// the search found below the first order also holds with the two swapped: every failure there fails
  /// swapped, and every partial execution left out is left out swapped (docs/design.md "Interchangeable
  /// arrivals"). Off: both orders are searched (for tests).
  bool swapArrivals = true;
  /// Keep each flag bound of a path choice (the model's flags on a partial execution's bounds, computed for
  /// the left-out nodes and their images under interchangeable arrivals) by what it was computed from (the
  /// decided rf and co pairs, the placed writes, the resolved reads and their values), and reuse it for a
  /// node with the same (docs/design.md "Interchangeable arrivals"). Off: every bound is computed (for tests).
  bool reuseFlagBounds = true;
  /// For tests: on each reuse, compute the bound's inputs again and fail (std::logic_error) unless they are
  /// those it was computed from.
  bool checkReusedFlagBounds = false;
  /// Threads the path choices are searched on (docs/design.md "Path choices in batches"); 0: one per
  /// hardware thread; 1: the calling thread only. The result, witnesses included, is the same whatever
  /// the number.
  int threads = 1;
  double timeoutSeconds = 0;                  ///< 0 = none; exceeded → Status::Timeout
  const std::atomic<bool>* cancel = nullptr;  ///< set by the caller to stop early (→ Unknown)
};

/// Runs the explicit engine on a lowered test against a loaded model. Never throws for bad input:
/// model evaluation errors become Status::Error with the message.
[[nodiscard]] outcome::EngineResult runEnum(const events::EventProgram& program, const cat::Model& model,
                                            const outcome::StateSpec& spec, const EnumOptions& options = {});

}  // namespace ptxmm::enumeration
