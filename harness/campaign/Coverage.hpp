// Coverage of a campaign, per test and per suite: forbidden-and-seen states (must be none), the
// allowed states seen over the allowed states, the mutants killed, and for every allowed state never
// seen a reason category backed by evidence from the store (the test's architecture, scopes and
// placement, what the other tests saw) — "unexplained" when there is none.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "campaign/Store.hpp"
#include "litmus/Ast.hpp"

namespace ptxmm::campaign {

/// Reason categories of an allowed state never seen.
inline constexpr const char* kNeedsArch = "needs sm_100a";
inline constexpr const char* kNotRun = "not run (refused, error or timeout)";
inline constexpr const char* kScope = "scope stronger on this device";
inline constexpr const char* kPlacement = "placement one GPU cannot realise (gpu-in-sys)";
inline constexpr const char* kCoherence = "one location's coherence order reversed (the device keeps it)";
inline constexpr const char* kMergedLoads = "ptxas may merge the loads (check --sass)";
inline constexpr const char* kOneCta = "threads of one CTA (one SM, one L1)";
inline constexpr const char* kManyStates = "rare state of a many-state test";
inline constexpr const char* kNoneFinished = "no instance finished (deadlock or livelock)";
inline constexpr const char* kHangs = "a state of executions that hang (their instances record none)";
inline constexpr const char* kValueNeverSeen = "a value it needs never appeared";
inline constexpr const char* kSiblingSeen = "its instructions decide it (a sibling test shows it)";
inline constexpr const char* kNoModel = "no model states";
inline constexpr const char* kUnexplained = "unexplained";

/// One allowed state never seen, with its reason.
struct UnseenState {
  std::string state;
  std::string category;  ///< one of the k* categories above
  std::string evidence;  ///< what in the store supports it
};

/// The reason a test that ran on the device never showed `state`, from the test alone (no other test
/// compared): kPlacement, kScope ("scope cta-in-gpu"), kCoherence, kMergedLoads or kOneCta with its evidence;
/// an empty category when none applies. `narrow`/`wide` receive the scope mismatch for kScope.
[[nodiscard]] UnseenState staticReason(const litmus::Test& t, const std::string& state, ptx::Scope& narrow,
                                       ptx::Scope& wide);

/// How `state` has one thread see a location's values against their coherence order, as far as the test
/// fixes that order by itself: after reading or writing value a of a physical location (aliases and
/// surface names resolved) through one proxy, the thread reads value b through the same proxy, b being the
/// location's initial value or written before a by one thread in program order (each value written once).
/// "" when the state has no such pair. The model may allow it (weak accesses, virtual aliases or surface
/// synonyms without their proxy fence).
[[nodiscard]] std::string coherenceReversal(const litmus::Test& t, const std::string& state);

/// "1:r0=1": a register or location value of `state` that no seen state has and that at least one other
/// allowed state needs too (an event the device never produced in this test that several outcomes wait for,
/// e.g. a flag never seen set), or "". A value only this state has is the outcome itself, not a reason.
[[nodiscard]] std::string valueNeverSeen(const std::string& state, const std::map<std::string, uint64_t>& seen,
                                         const std::set<std::string>& allowed);

/// Tests (and mutants) by shape: their threads' placements and final condition. Tests of one shape differ
/// only in their instructions (synchronisation, access kinds), so a state one of them shows is one the
/// stress kernel can produce for those threads, and a test of the shape that never shows it is decided by
/// its own instructions on the device.
class ShapeIndex {
 public:
  /// Adds the states `name` (test `t`) showed in `instances` instances (added to what it showed before).
  void add(const litmus::Test& t, const std::string& name, const std::map<std::string, uint64_t>& seen,
           uint64_t instances);
  /// "seen N times in X (M instances), whose threads and condition are the same": of the entries of t's
  /// shape other than `self` that showed `state`, the one sharing the most instructions with `t` (then
  /// the one that showed it most often); "" if none did.
  [[nodiscard]] std::string seenElsewhere(const litmus::Test& t, const std::string& self,
                                          const std::string& state) const;
  /// "nor did the N other test(s) of its threads and condition (M instances)": for a state none of them showed
  /// (seenElsewhere empty); "" when the shape has no other test that ran.
  [[nodiscard]] std::string unseenElsewhere(const litmus::Test& t, const std::string& self) const;

 private:
  struct Entry {
    std::map<std::string, uint64_t> seen;
    uint64_t instances = 0;
    std::multiset<std::string> instrs;
  };
  static std::string key(const litmus::Test& t);
  static std::multiset<std::string> instructions(const litmus::Test& t);
  std::map<std::string, std::map<std::string, Entry>> byKey_;  // shape -> name -> entry
};

/// The reason test (or mutant) `t`, named `name`, never showed its allowed `state`, from what its runs showed
/// (`seen`, with its `allowed` states), the other tests of its shape (`shapes`) and the test itself, the first
/// that applies: kValueNeverSeen, kSiblingSeen (it overrides staticReason's categories but kPlacement), then
/// staticReason's; an empty category when none does. The evidence leaves out the instance count.
[[nodiscard]] UnseenState observedReason(const litmus::Test& t, const std::string& name, const std::string& state,
                                         const std::map<std::string, uint64_t>& seen,
                                         const std::set<std::string>& allowed, const ShapeIndex& shapes,
                                         ptx::Scope& narrow, ptx::Scope& wide);

/// The coverage of one test (the union of its campaign runs).
struct TestCoverage {
  int64_t id = 0;
  std::string name, file, arch, status;  ///< status: "ok" if any run was, else the last run's
  std::string reason;                    ///< the last failing run's reason
  bool hasModel = false;
  uint64_t instances = 0;
  uint64_t timedOut = 0;  ///< instances that hit the spin bound (they end in no final state)
  double seconds = 0;
  uint64_t weak = 0;  ///< instances whose state satisfies the condition's proposition
  std::set<std::string> allowed;
  std::set<std::string> hanging;  ///< the allowed states some execution of which hangs (TestRow::hanging)
  std::map<std::string, uint64_t> seen;
  std::map<std::string, uint64_t> forbiddenSeen;
  std::vector<UnseenState> unseen;
  int mutants = 0, mutantsKilled = 0;
  [[nodiscard]] size_t allowedSeen() const { return allowed.size() - unseen.size(); }
};

/// The suite's coverage.
struct SuiteCoverage {
  std::vector<TestCoverage> tests;
  size_t allowed = 0, allowedSeen = 0, forbiddenSeen = 0;  ///< forbiddenSeen: states
  int mutants = 0, mutantsKilled = 0;
  std::map<std::string, int> categories;  ///< unseen states per category
};

/// Coverage of the store's campaign runs (every configuration together).
[[nodiscard]] SuiteCoverage coverage(Store& store);

/// Per-test lines, the unseen states with their reasons, and the suite's totals; the
/// forbidden-and-seen states loudly ("!!!").
void printCoverage(const SuiteCoverage& c, std::ostream& os, bool perState = true);

}  // namespace ptxmm::campaign
