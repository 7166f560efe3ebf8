// Event lowering of asynchronous operations (cp.async, cp.async.bulk, try_cancel), mbarriers and
// blocking waits.
#include <algorithm>
#include <catch2/catch.hpp>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

TEST_CASE("cp.async: generic-proxy async thread, wait_group completion", "[events][async][cp.async]") {
  auto l = lowerText(R"(PTX cpasync
{ .global g = 1; .global h = 2; .shared s = 0; .shared t = 0; }
P0@cta 0,gpu 0:
    cp.async.ca.shared.global [s], [g], 4;
    cp.async.commit_group;
    cp.async.ca.shared.global [t], [h], 4;
    cp.async.commit_group;
    cp.async.wait_group 1;
    ld.shared.u32 r0, [s];
    cp.async.wait_all;
    ld.shared.u32 r1, [t];
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 2);
  REQUIRE(p.threads.size() == 3);
  CHECK(p.threads[1].isAsync);
  CHECK(p.threads[1].issuer == 0);
  CHECK(p.threads[1].where.cta == 0);
  const AsyncOp& a = p.asyncOps[0];
  REQUIRE(a.events.size() == 2);
  const Event& r = p.events[a.events[0]];
  const Event& w = p.events[a.events[1]];
  CHECK(r.type == EventType::Read);
  CHECK(w.type == EventType::Write);
  CHECK(r.proxy == ptx::Proxy::Generic);
  CHECK(w.proxy == ptx::Proxy::Generic);
  CHECK(hasTag(r, "ASYNC_OP"));
  CHECK(hasTag(w, "CP_ASYNC"));
  CHECK(hasTag(r, "WEAK"));
  CHECK(p.locations[r.loc].name == "g");
  CHECK(p.locations[w.loc].name == "s@cta0");
  CHECK(w.value == p.exprs.readVal(r.id));
  CHECK(hasTag(p.events[a.issuer], "ISSUE"));
  CHECK(p.events[a.issuer].type == EventType::Fence);
  CHECK(p.events[a.issuer].thread == 0);
  CHECK(hasPair(p, "issue", a.issuer, r.id));
  CHECK(hasPair(p, "issue", a.issuer, w.id));
  CHECK(hasPair(p, "aso", r.id, w.id));
  CHECK_FALSE(hasPair(p, "aso", w.id, r.id));
  CHECK(hasPair(p, "same-async", w.id, r.id));
  CHECK_FALSE(hasPair(p, "same-async", w.id, p.asyncOps[1].events[0]));
  // po never contains async events
  for (const auto& [x, y] : p.relations.at("po")) {
    CHECK(p.events[x].asyncOp < 0);
    CHECK(p.events[y].asyncOp < 0);
  }
  auto waits = tagged(p, "WAIT");
  REQUIRE(waits.size() == 2);
  // wait_group 1 completes only the first group; wait_all completes the second
  CHECK(hasPair(p, "async-complete", w.id, waits[0]));
  CHECK_FALSE(hasPair(p, "async-complete", p.asyncOps[1].events[1], waits[0]));
  CHECK(hasPair(p, "async-complete", p.asyncOps[1].events[1], waits[1]));
  CHECK(std::find(a.completions.begin(), a.completions.end(), waits[0]) != a.completions.end());
  // the path lists real events then the async events
  const Path& path = p.paths[0][0];
  CHECK(path.events.size() == 8 + 4);
  CHECK(p.events[path.events.back()].asyncOp >= 0);
  CHECK(p.events[path.events.front()].asyncOp < 0);
}

TEST_CASE("cp.async.mbarrier.arrive: async arrive after prior cp.async", "[events][async][cp.async]") {
  auto l = lowerText(R"(PTX cpmbar
{ .global g = 1; .shared s = 0; .mbarrier bar = 1; }
P0@cta 0,gpu 0:
    cp.async.ca.shared.global [s], [g], 4;
    cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
    cp.async.ca.shared.global [s], [g], 4;
    cp.async.mbarrier.arrive.shared.b64 [bar];
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 4);
  const AsyncOp& arr = p.asyncOps[1];
  REQUIRE(arr.events.size() == 2);
  const Event& ar = p.events[arr.events[0]];
  CHECK(hasTag(ar, "MB_ARRIVE"));
  CHECK(hasTag(ar, "MBAR"));
  CHECK(ar.proxy == ptx::Proxy::Generic);
  CHECK(hasPair(p, "rmw", arr.events[0], arr.events[1]));
  CHECK(hasPair(p, "async-complete", p.asyncOps[0].events[1], arr.events[0]));
  // the second arrive covers both cp.async
  CHECK(hasPair(p, "async-complete", p.asyncOps[0].events[1], p.asyncOps[3].events[0]));
  CHECK(hasPair(p, "async-complete", p.asyncOps[2].events[1], p.asyncOps[3].events[0]));
  // without .noinc: a pending-count increment RMW in program order
  auto incs = tagged(p, "MB_INC");
  REQUIRE(incs.size() == 2);
  CHECK(p.events[incs[0]].asyncOp < 0);
  // state arithmetic: increment then async arrive is net zero on pending
  std::vector<int64_t> rv(p.events.size(), 0);
  int64_t init = mbarrierState(0, 1, 0);
  rv[incs[0]] = init;
  int64_t afterInc = evaluate(p.exprs, p.events[incs[1]].value, rv);
  CHECK(mbarrierPending(afterInc) == 2);
  rv[p.asyncOps[3].events[0]] = afterInc;
  int64_t afterArrive = evaluate(p.exprs, p.events[p.asyncOps[3].events[1]].value, rv);
  CHECK(mbarrierPending(afterArrive) == 1);
  CHECK(mbarrierPhase(afterArrive) == 0);
}

TEST_CASE("cp.async.bulk global->shared with mbarrier and a blocking wait", "[events][async][bulk][mbarrier]") {
  auto l = lowerText(kTmaWait);
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 1);
  const AsyncOp& a = p.asyncOps[0];
  REQUIRE(a.events.size() == 5);  // R src, W dst, implicit proxy fence, complete-tx RMW (R, W)
  const Event& r = p.events[a.events[0]];
  const Event& w = p.events[a.events[1]];
  const Event& f = p.events[a.events[2]];
  const Event& cr = p.events[a.events[3]];
  const Event& cw = p.events[a.events[4]];
  CHECK(r.proxy == ptx::Proxy::Async);
  CHECK(hasTag(r, "ASYNC"));
  CHECK(w.proxy == ptx::Proxy::Async);
  CHECK(hasTag(w, "WEAK"));
  CHECK(f.type == EventType::Fence);
  CHECK(hasTag(f, "PF_ASYNC_IMPLICIT"));
  CHECK(cr.proxy == ptx::Proxy::Generic);
  CHECK(cr.sem == ptx::Sem::Release);
  CHECK(cr.scope == ptx::Scope::Cluster);
  CHECK(hasTag(cr, "MB_COMPLETE_TX"));
  CHECK(hasPair(p, "rmw", cr.id, cw.id));
  CHECK(hasPair(p, "aso", r.id, cw.id));
  CHECK(hasPair(p, "aso", f.id, cr.id));
  CHECK(std::find(a.completions.begin(), a.completions.end(), cr.id) != a.completions.end());
  // The arrive: release.cta RMW returning the state
  auto arrives = tagged(p, "MB_ARRIVE");
  REQUIRE(arrives.size() == 2);
  CHECK(p.events[arrives[0]].sem == ptx::Sem::Release);
  CHECK(p.events[arrives[0]].scope == ptx::Scope::Cta);
  // blocking wait: two paths, one Blocked with readsFinal, one that continues with the success guard
  REQUIRE(p.paths[0].size() == 2);
  const Path* ok = nullptr;
  const Path* blocked = nullptr;
  for (const auto& path : p.paths[0]) (path.end == PathEnd::Blocked ? blocked : ok) = &path;
  REQUIRE(ok);
  REQUIRE(blocked);
  CHECK(ok->end == PathEnd::Normal);
  auto waits = tagged(p, "MB_WAIT");
  REQUIRE(waits.size() == 1);  // one read, not unrolled
  CHECK(p.events[waits[0]].sem == ptx::Sem::Acquire);
  CHECK(blocked->readsFinal == std::vector<EventId>{waits[0]});
  CHECK(ok->readsFinal.empty());
  REQUIRE(ok->guards.size() == 1);
  REQUIRE(blocked->guards.size() == 1);
  CHECK(std::find(ok->events.begin(), ok->events.end(), waits[0]) != ok->events.end());
  CHECK(constOf(p, ok->finalRegs.at("p")) == 1);
  // guard semantics: phase 1 completed -> parity 0 wait succeeds
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[waits[0]] = mbarrierState(0, 1, 1);
  CHECK(evaluate(p.exprs, ok->guards[0], rv) == 1);
  CHECK(evaluate(p.exprs, blocked->guards[0], rv) == 0);
  rv[waits[0]] = mbarrierState(16, 0, 0);
  CHECK(evaluate(p.exprs, ok->guards[0], rv) == 0);
  CHECK(evaluate(p.exprs, blocked->guards[0], rv) == 1);
  // the load after the loop is ctrl-dependent on the wait
  EventId ld = ok->events[ok->events.size() - 6];
  CHECK(p.events[ld].loc == w.loc);
  CHECK(hasPair(p, "ctrl", waits[0], ld));
  // full protocol evaluation: arrive.expect_tx then complete_tx completes phase 0
  rv[arrives[0]] = p.locations[p.events[arrives[0]].loc].init;
  int64_t s1 = evaluate(p.exprs, p.events[arrives[1]].value, rv);
  rv[cr.id] = s1;
  int64_t s2 = evaluate(p.exprs, cw.value, rv);
  CHECK(mbarrierPhase(s1) == 0);
  CHECK(mbarrierPhase(s2) == 1);
}

TEST_CASE("spin loop variants: @p bra out; bra loop and Dat3M beq", "[events][async][mbarrier]") {
  auto l = lowerText(R"(PTX spin
{ .mbarrier bar = 1; }
P0@cta 0,gpu 0:
    mbarrier.arrive.shared.b64 st, [bar];
L:
    mbarrier.test_wait.shared.b64 p, [bar], st;
    @p bra DONE;
    bra L;
DONE:
    mov.u32 r0, 1;
exists (0:r0 == 1)
)");
  auto& p = l->prog;
  REQUIRE(p.paths[0].size() == 2);
  int blocked = 0;
  for (const auto& path : p.paths[0]) {
    if (path.end == PathEnd::Blocked) {
      ++blocked;
      CHECK(path.finalRegs.count("r0") == 0);
    } else {
      CHECK(constOf(p, path.finalRegs.at("r0")) == 1);
    }
  }
  CHECK(blocked == 1);
  // token wait: succeeds iff the phase differs from the token's
  auto waits = tagged(p, "MB_WAIT");
  REQUIRE(waits.size() == 1);
  auto arr = tagged(p, "MB_ARRIVE");
  const Path& ok = p.paths[0][0].end == PathEnd::Normal ? p.paths[0][0] : p.paths[0][1];
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[arr[0]] = mbarrierState(0, 2, 3);
  rv[waits[0]] = mbarrierState(0, 1, 3);
  CHECK(evaluate(p.exprs, ok.guards[0], rv) == 0);
  rv[waits[0]] = mbarrierState(0, 2, 4);
  CHECK(evaluate(p.exprs, ok.guards[0], rv) == 1);

  // A loop whose body is not a lone wait is unrolled (and cut).
  auto u = lowerText(R"(PTX spin2
{ .mbarrier bar = 1; x = 0; }
P0@cta 0,gpu 0:
L:
    mbarrier.try_wait.parity.shared.b64 p, [bar], 0;
    ld.weak r1, [x];
    @!p bra L;
exists (0:r1 == 1)
)");
  int cut = 0;
  for (const auto& path : u->prog.paths[0]) cut += path.end == PathEnd::Cut;
  CHECK(cut == 1);
  CHECK(tagged(u->prog, "MB_WAIT").size() == 3);
}

TEST_CASE("multicast cp.async.bulk: one write and complete-tx per destination CTA", "[events][async][bulk]") {
  auto l = lowerText(R"(PTX mc
{ .global g = 7; .shared s = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s], [g], 16, [bar], 5;
P1@cta 1,cluster 0,gpu 0:
    mov.u32 r0, 0;
P2@cta 2,cluster 0,gpu 0:
    mov.u32 r0, 0;
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  // mask 0b101 -> cluster ranks 0 and 2 -> CTAs 0 and 2
  auto writes = tagged(p, "CP_BULK");
  std::vector<std::string> dst, bars;
  int reads = 0;
  for (EventId e : writes) {
    const Event& ev = p.events[e];
    if (ev.type == EventType::Write && !hasTag(ev, "MBAR")) dst.push_back(p.locations[ev.loc].name);
    if (ev.type == EventType::Write && hasTag(ev, "MB_COMPLETE_TX")) bars.push_back(p.locations[ev.loc].name);
    if (ev.type == EventType::Read && !hasTag(ev, "MBAR")) ++reads;
  }
  CHECK(reads == 1);
  CHECK(dst == std::vector<std::string>{"s@cta0", "s@cta2"});
  CHECK(bars == std::vector<std::string>{"bar@cta0", "bar@cta2"});
  CHECK(tagged(p, "PF_ASYNC_IMPLICIT").size() == 2);
  // source op + one op per destination, all one instance, placed in their destination CTA
  REQUIRE(p.asyncOps.size() == 3);
  CHECK(p.asyncOps[0].instance == p.asyncOps[2].instance);
  CHECK(p.threads[p.asyncOps[2].thread].where.cta == 2);
  EventId src = p.asyncOps[0].events[0];
  for (EventId e : p.asyncOps[2].events) {
    CHECK(hasPair(p, "aso", src, e));
    CHECK(hasPair(p, "same-async", src, e));
    CHECK(hasPair(p, "issue", p.asyncOps[0].issuer, e));
  }
  CHECK_FALSE(hasPair(p, "aso", p.asyncOps[1].events[0], p.asyncOps[2].events[0]));

  std::string err;
  try {
    (void)lowerText(R"(PTX mc2
{ .global g = 7; .shared s = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s], [g], 16, [bar], 4;
exists (0:r0 == 0)
)",
                    {}, "a.litmus");
  } catch (const DiagnosticError& e) {
    err = e.what();
  }
  CHECK(err.find("a.litmus:4:") != std::string::npos);
  CHECK(err.find("ctaMask") != std::string::npos);
}

TEST_CASE("cp.async.bulk shared->global bulk_group and wait_group.read", "[events][async][bulk]") {
  auto l = lowerText(R"(PTX store
{ .global g = 0; .shared s = 5; }
P0@cta 0,gpu 0:
    cp.async.bulk.global.shared::cta.bulk_group [g], [s], 16;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
    cp.async.bulk.wait_group 0;
exists (g == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.asyncOps.size() == 1);
  const auto& ev = p.asyncOps[0].events;
  REQUIRE(ev.size() == 3);
  CHECK(p.events[ev[0]].proxy == ptx::Proxy::Async);
  CHECK(p.locations[p.events[ev[0]].loc].name == "s@cta0");
  CHECK(p.locations[p.events[ev[1]].loc].name == "g");
  CHECK(hasTag(p.events[ev[2]], "PF_ASYNC_IMPLICIT"));
  auto waits = tagged(p, "WAIT");
  REQUIRE(waits.size() == 2);
  CHECK(hasPair(p, "async-complete", ev[0], waits[0]));
  CHECK_FALSE(hasPair(p, "async-complete", ev[1], waits[0]));  // .read: only the source read
  CHECK(hasPair(p, "async-complete", ev[1], waits[1]));
  CHECK(hasPair(p, "async-complete", ev[2], waits[1]));
}

TEST_CASE("try_cancel: queue RMW, responses, complete-tx and UB", "[events][async][clc]") {
  auto l = lowerText(R"(PTX clc
{ .shared handle = 0; .mbarrier bar = 1; .clc_pending 4, 6; }
P0@cta 0,cluster 0,gpu 0:
    clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [handle], [bar];
    ld.shared.b128 h, [handle];
    clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 q, h;
    clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 c, h;
    clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [handle], [bar];
P1@cta 1,cluster 0,gpu 0:
    ld.shared.b128 h, [handle];
exists (0:q == 1)
)");
  auto& p = l->prog;
  auto q = findLocation(p, litmus::LocRef{"%clc_queue", -1});
  REQUIRE(q.has_value());
  CHECK(p.locations[*q].hidden);
  auto queue = tagged(p, "CLC_QUEUE");
  REQUIRE(queue.size() == 4);  // two try_cancel, one RMW each
  CHECK(hasPair(p, "rmw", queue[0], queue[1]));
  auto resp = [&](EventId e) {
    return p.events[e].type == EventType::Write && hasTag(p.events[e], "CLC") && hasTag(p.events[e], "ASYNC");
  };
  std::vector<EventId> responses;
  for (const auto& e : p.events)
    if (resp(e.id)) responses.push_back(e.id);
  REQUIRE(responses.size() == 3);  // multicast to CTAs 0 and 1, then a unicast to CTA 0
  CHECK(p.locations[p.events[responses[0]].loc].name == "handle@cta0");
  CHECK(p.locations[p.events[responses[1]].loc].name == "handle@cta1");
  CHECK(p.locations[p.events[responses[2]].loc].name == "handle@cta0");
  CHECK(p.events[responses[0]].sem == ptx::Sem::Weak);
  // values: queue value 0 -> first pending cluster (4), 1 -> 6, 2 -> failure
  std::vector<int64_t> rv(p.events.size(), 0);
  const int64_t base = 0x100000;
  rv[queue[0]] = 0;
  CHECK(evaluate(p.exprs, p.events[responses[0]].value, rv) == base + 4);
  CHECK(evaluate(p.exprs, p.events[queue[1]].value, rv) == 1);
  rv[queue[0]] = 1;
  CHECK(evaluate(p.exprs, p.events[responses[1]].value, rv) == base + 6);
  rv[queue[0]] = 2;
  CHECK(evaluate(p.exprs, p.events[responses[0]].value, rv) == 1);
  CHECK(evaluate(p.exprs, p.events[queue[1]].value, rv) == 2);  // queue unchanged on failure
  // complete-tx(16) on each target CTA's mbarrier
  std::vector<std::string> bars;
  for (const auto& e : p.events)
    if (hasTag(e, "CLC") && hasTag(e, "MB_COMPLETE_TX") && e.type == EventType::Write) {
      bars.push_back(p.locations[e.loc].name);
      rv[e.id - 1] = mbarrierState(16, 0, 0);
      CHECK(mbarrierPhase(evaluate(p.exprs, e.value, rv)) == 1);
    }
  CHECK(bars == std::vector<std::string>{"bar@cta0", "bar@cta1", "bar@cta0"});
  // query_cancel decoding and UB
  const Path& path = p.paths[0][0];
  EventId ld = -1;
  for (EventId e : path.events)
    if (p.events[e].type == EventType::Read && p.events[e].asyncOp < 0) ld = e;
  REQUIRE(ld >= 0);
  rv[ld] = base + 6;
  CHECK(evaluate(p.exprs, path.finalRegs.at("q"), rv) == 1);
  CHECK(evaluate(p.exprs, path.finalRegs.at("c"), rv) == 6);
  REQUIRE(path.undefinedIf.size() == 2);  // get_first_ctaid on failure, try_cancel after failure
  CHECK(evaluate(p.exprs, path.undefinedIf[0].first, rv) == 0);
  CHECK(evaluate(p.exprs, path.undefinedIf[1].first, rv) == 0);
  rv[ld] = 1;
  CHECK(evaluate(p.exprs, path.finalRegs.at("q"), rv) == 0);
  CHECK(evaluate(p.exprs, path.undefinedIf[0].first, rv) == 1);
  CHECK(evaluate(p.exprs, path.undefinedIf[1].first, rv) == 1);
  CHECK(path.undefinedIf[1].second.find("failed response") != std::string::npos);
  // async ops placed in their destination CTA
  for (const auto& a : p.asyncOps)
    for (EventId e : a.events)
      if (p.events[e].loc >= 0 && p.locations[p.events[e].loc].ownerCta >= 0)
        CHECK(p.threads[a.thread].where.cta == p.locations[p.events[e].loc].ownerCta);
}

TEST_CASE("mbarrier ops: defaults, remote arrive, expect/complete_tx", "[events][mbarrier]") {
  auto l = lowerText(R"(PTX mb
{ .shared bar = 0; }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.init.shared::cta.b64 [bar], 2;
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 8;
    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 8;
    mbarrier.arrive.release.cluster.shared::cluster.b64 _, [bar@cta1];
    mbarrier.arrive_drop.shared::cta.b64 s2, [bar], 2;
P1@cta 1,cluster 0,gpu 0:
    mbarrier.init.shared::cta.b64 [bar], 1;
exists (0:s2 == 0)
)");
  auto& p = l->prog;
  auto t0 = eventsOf(p, 0);
  REQUIRE(t0.size() == 9);
  const Event& init = p.events[t0[0]];
  CHECK(init.type == EventType::Write);
  CHECK(hasTag(init, "MB_INIT"));
  CHECK(hasTag(init, "MBAR"));
  CHECK(constOf(p, init.value) == mbarrierState(0, 2, 0));
  CHECK(p.locations[init.loc].isMbarrier);
  CHECK(p.locations[init.loc].mbarCount == 2);
  CHECK(hasTag(p.events[t0[1]], "MB_EXPECT_TX"));
  CHECK(hasTag(p.events[t0[3]], "MB_COMPLETE_TX"));
  CHECK(p.events[t0[1]].sem == ptx::Sem::Relaxed);
  const Event& remote = p.events[t0[5]];
  CHECK(p.locations[remote.loc].name == "bar@cta1");
  CHECK(remote.space == ptx::Space::SharedCluster);
  CHECK(remote.scope == ptx::Scope::Cluster);
  CHECK(hasTag(p.events[t0[7]], "MB_DROP"));
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[t0[1]] = mbarrierState(0, 2, 0);
  int64_t s = evaluate(p.exprs, p.events[t0[2]].value, rv);
  CHECK(mbarrierTxCount(s) == 8);
  rv[t0[3]] = s;
  CHECK(mbarrierTxCount(evaluate(p.exprs, p.events[t0[4]].value, rv)) == 0);
  rv[t0[7]] = mbarrierState(0, 2, 0);
  int64_t d = evaluate(p.exprs, p.events[t0[8]].value, rv);  // arrive_drop with count 2 completes
  CHECK(mbarrierPhase(d) == 1);
  CHECK(p.paths[0][0].finalRegs.at("s2") == p.exprs.readVal(t0[7]));
}

TEST_CASE("arrive_drop: the phase after the drop completes with fewer arrivals", "[events][mbarrier][drop]") {
  auto l = lowerText(R"(PTX drop
{ .mbarrier bar = 2 }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive_drop.shared::cta.b64 s0, [bar];
P1@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.shared::cta.b64 s1, [bar];
    mbarrier.arrive.shared::cta.b64 s2, [bar];
exists (1:s2 == 0)
)");
  auto& p = l->prog;
  auto t0 = eventsOf(p, 0), t1 = eventsOf(p, 1);
  REQUIRE(t0.size() == 2);
  REQUIRE(t1.size() == 4);
  CHECK(hasTag(p.events[t0[0]], "MB_DROP"));
  CHECK(p.exprs.node(p.events[t0[1]].value).op == ExprOp::MbArriveDrop);
  CHECK(p.exprs.node(p.events[t1[1]].value).op == ExprOp::MbArrive);
  // coherence order: init, drop, P1's first arrive, P1's second arrive
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[t0[0]] = p.locations[p.events[t0[0]].loc].init;
  int64_t afterDrop = evaluate(p.exprs, p.events[t0[1]].value, rv);
  CHECK(mbarrierPhase(afterDrop) == 0);
  rv[t1[0]] = afterDrop;
  int64_t afterFirst = evaluate(p.exprs, p.events[t1[1]].value, rv);
  CHECK(mbarrierPhase(afterFirst) == 1);  // phase 0: the drop's arrival + P1's
  rv[t1[2]] = afterFirst;
  int64_t afterSecond = evaluate(p.exprs, p.events[t1[3]].value, rv);
  CHECK(mbarrierPhase(afterSecond) == 2);  // phase 1 expects one arrival only
  // the same arrivals without the drop leave phase 1 incomplete
  int64_t plain = evalOp(ExprOp::MbArrive, {mbarrierState(0, 2, 0), 1, 0, 2});
  plain = evalOp(ExprOp::MbArrive, {plain, 1, 0, 2});
  CHECK(mbarrierPhase(evalOp(ExprOp::MbArrive, {plain, 1, 0, 2})) == 1);
  // a re-init resets the dropped count
  CHECK(mbarrierDropped(p.locations[p.events[t0[0]].loc].init) == 0);
}
