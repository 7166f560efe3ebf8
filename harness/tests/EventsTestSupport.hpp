// Helpers shared by the events_*_test.cpp files: lower litmus text and query the event program.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "events/Lower.hpp"
#include "litmus/Parser.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::events::testing {

/// A parsed test and its lowering (the program points into the test, so they live together).
struct Lowered {
  litmus::Test test;
  EventProgram prog;
};

/// Parses `text` as file `file` and lowers it.
inline std::unique_ptr<Lowered> lowerText(const std::string& text, LowerOptions opt = {},
                                          const std::string& file = "t.litmus") {
  auto l = std::make_unique<Lowered>();
  l->test = litmus::parseTest(text, file);
  l->prog = lower(l->test, opt);
  return l;
}

/// The located error of lowering `text` as file `file` ("<no error>" if it lowers).
inline std::string lowerError(const std::string& text, const std::string& file = "t.litmus") {
  try {
    (void)lowerText(text, {}, file);
  } catch (const DiagnosticError& e) {
    return e.what();
  }
  return "<no error>";
}

/// True if the event carries the cat tag `t`.
inline bool hasTag(const Event& e, const std::string& t) {
  return std::find(e.tags.begin(), e.tags.end(), t) != e.tags.end();
}

/// The events carrying the cat tag `t`, in id order.
inline std::vector<EventId> tagged(const EventProgram& p, const std::string& t) {
  std::vector<EventId> out;
  for (const auto& e : p.events)
    if (hasTag(e, t)) out.push_back(e.id);
  return out;
}

/// True if the static relation `rel` holds the pair (a, b); false if the relation is absent.
inline bool hasPair(const EventProgram& p, const std::string& rel, EventId a, EventId b) {
  auto it = p.relations.find(rel);
  if (it == p.relations.end()) return false;
  return std::find(it->second.begin(), it->second.end(), std::make_pair(a, b)) != it->second.end();
}

/// The events of thread `thread`, in id order.
inline std::vector<EventId> eventsOf(const EventProgram& p, int thread) {
  std::vector<EventId> out;
  for (const auto& e : p.events)
    if (e.thread == thread) out.push_back(e.id);
  return out;
}

/// The value of an expression that must be a constant.
inline int64_t constOf(const EventProgram& p, ExprId x) {
  REQUIRE(p.exprs.isConst(x));
  return p.exprs.node(x).value;
}

/// One thread: expect-tx arrive, a cp.async.bulk global->shared completing on the mbarrier, a blocking
/// parity wait, then a read of the destination.
inline constexpr const char* kTmaWait = R"(PTX tma
{ .global g = 42; .shared s = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 16;
    cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [s], [g], 16, [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra WAIT;
    ld.shared.u32 r0, [s];
exists (0:r0 == 0)
)";

}  // namespace ptxmm::events::testing
