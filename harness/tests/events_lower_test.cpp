// Event lowering of plain accesses, control flow, aliases and errors (litmus text -> EventProgram).
#include <algorithm>
#include <catch2/catch.hpp>

#include "EventsTestSupport.hpp"
#include "events/Lower.hpp"
#include "litmus/Parser.hpp"

using namespace ptxmm;
using namespace ptxmm::events;
using namespace ptxmm::events::testing;

namespace {

std::string errorOf(const std::string& text) {
  try {
    auto l = lowerText(text);
  } catch (const DiagnosticError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("MP lowers to 2 init writes and 4 events", "[events][lower]") {
  auto l = lowerText(R"(PTX MP
{ x = 0; y = 0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0         ;
 st.weak x, 1        | ld.acquire.gpu r0, y   ;
 st.release.gpu y, 1 | ld.weak r1, x          ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.locations.size() == 2);
  REQUIRE(p.initWrites.size() == 2);
  REQUIRE(p.events.size() == 6);
  REQUIRE(p.threads.size() == 2);
  for (EventId i : p.initWrites) {
    CHECK(p.events[i].isInit);
    CHECK(hasTag(p.events[i], "IW"));
    CHECK(constOf(p, p.events[i].value) == 0);
  }
  auto t0 = eventsOf(p, 0), t1 = eventsOf(p, 1);
  REQUIRE(t0.size() == 2);
  REQUIRE(t1.size() == 2);
  const Event& wx = p.events[t0[0]];
  const Event& wy = p.events[t0[1]];
  CHECK(wx.type == EventType::Write);
  CHECK(hasTag(wx, "WEAK"));
  CHECK_FALSE(hasTag(wx, "STRONG"));
  CHECK(constOf(p, wx.value) == 1);
  CHECK(hasTag(wy, "REL"));
  CHECK(hasTag(wy, "GPU"));
  CHECK(hasTag(wy, "STRONG"));
  CHECK(wy.sem == ptx::Sem::Release);
  const Event& ry = p.events[t1[0]];
  CHECK(ry.type == EventType::Read);
  CHECK(hasTag(ry, "ACQ"));
  CHECK(p.locations[ry.loc].name == "y");
  CHECK(hasPair(p, "po", t0[0], t0[1]));
  CHECK(hasPair(p, "po", t1[0], t1[1]));
  CHECK_FALSE(hasPair(p, "po", t0[1], t0[0]));
  CHECK(p.relations.at("po").size() == 2);
  REQUIRE(p.paths[1].size() == 1);
  const Path& path = p.paths[1][0];
  CHECK(path.end == PathEnd::Normal);
  CHECK(path.finalRegs.at("r0") == p.exprs.readVal(t1[0]));
  CHECK(path.finalRegs.at("r1") == p.exprs.readVal(t1[1]));
  CHECK(p.relations.at("rmw").empty());
}

TEST_CASE("SB and CoRR", "[events][lower]") {
  auto sb = lowerText(R"(PTX SB
{ x = 0; y = 0; }
 P0@cta 0,gpu 0   | P1@cta 1,gpu 0 ;
 st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;
 fence.sc.gpu     | fence.sc.gpu ;
 ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x ;
exists (0:r0 == 0 /\ 1:r0 == 0)
)");
  const auto& p = sb->prog;
  CHECK(p.events.size() == 2 + 6);
  auto t0 = eventsOf(p, 0);
  REQUIRE(t0.size() == 3);
  CHECK(p.events[t0[1]].type == EventType::Fence);
  CHECK(hasTag(p.events[t0[1]], "F_SC"));
  CHECK(hasTag(p.events[t0[1]], "SC"));
  CHECK(p.relations.at("po").size() == 6);  // 3 pairs per thread (transitive)
  CHECK(hasPair(p, "po", t0[0], t0[2]));

  auto corr = lowerText(R"(PTX CoRR
{ x = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;
 st.relaxed.gpu x, 2 | ld.relaxed.gpu r1, x ;
exists (1:r0 == 2 /\ 1:r1 == 1)
)");
  const auto& q = corr->prog;
  CHECK(q.events.size() == 5);
  for (const auto& e : q.events) CHECK(e.loc == 0);
  auto w = eventsOf(q, 0);
  CHECK(constOf(q, q.events[w[0]].value) == 1);
  CHECK(constOf(q, q.events[w[1]].value) == 2);
}

TEST_CASE("atom and red are Read+Write pairs linked by rmw", "[events][lower][rmw]") {
  auto l = lowerText(R"(PTX atoms
{ x = 0; y = 0; }
P0@cta 0,gpu 0:
    atom.acq_rel.gpu.global.add.u32 r0, [x], 2;
    red.release.gpu.global.max.s32 [x], 5;
    atom.global.exch.b32 r2, [x], 9;
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  auto t0 = eventsOf(p, 0);
  REQUIRE(t0.size() == 6);
  REQUIRE(p.paths[0].size() == 1);
  const auto& rmw = p.relations.at("rmw");
  CHECK(rmw.size() == 3);
  for (size_t i = 0; i < 6; i += 2) {
    CHECK(hasPair(p, "rmw", t0[i], t0[i + 1]));
    CHECK(p.events[t0[i]].type == EventType::Read);
    CHECK(p.events[t0[i + 1]].type == EventType::Write);
    CHECK(hasTag(p.events[t0[i]], "RMW"));
    CHECK(hasTag(p.events[t0[i + 1]], "RMW"));
  }
  // Values: evaluate the write expressions with chosen read values.
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[t0[0]] = 10;  // old x
  CHECK(evaluate(p.exprs, p.events[t0[1]].value, rv) == 12);
  rv[t0[2]] = 2;
  CHECK(evaluate(p.exprs, p.events[t0[3]].value, rv) == 5);
  rv[t0[2]] = 8;
  CHECK(evaluate(p.exprs, p.events[t0[3]].value, rv) == 8);
  CHECK(hasTag(p.events[t0[2]], "RED"));
  CHECK(hasTag(p.events[t0[3]], "REL"));
  CHECK(hasTag(p.events[t0[0]], "ACQ_REL"));
  CHECK(hasTag(p.events[t0[1]], "ACQ_REL"));
  CHECK(evaluate(p.exprs, p.events[t0[5]].value, rv) == 9);
  // atom without .sem: relaxed, .gpu
  CHECK(p.events[t0[4]].sem == ptx::Sem::Relaxed);
  CHECK(p.events[t0[4]].scope == ptx::Scope::Gpu);
  CHECK(p.paths[0][0].finalRegs.at("r2") == p.exprs.readVal(t0[4]));
}

TEST_CASE("atom.cas forks: success is an RMW, failure a lone read", "[events][lower][rmw][cas]") {
  auto l = lowerText(R"(PTX cas
{ x = 0; y = 0; }
P0@cta 0,gpu 0:
    atom.acq_rel.gpu.global.add.u32 r0, [x], 2;
    atom.acquire.gpu.global.cas.b32 r1, [y], r0, 7;
    st.relaxed.gpu.global.u32 [x], r1;
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.paths[0].size() == 2);
  const Path* ok = nullptr;
  const Path* bad = nullptr;
  for (const auto& path : p.paths[0]) {
    bool writesY = false;
    for (EventId e : path.events)
      writesY = writesY || (p.events[e].type == EventType::Write && p.locations[p.events[e].loc].name == "y");
    (writesY ? ok : bad) = &path;
  }
  REQUIRE(ok);
  REQUIRE(bad);
  REQUIRE(ok->events.size() == 5);         // add R W, cas R W, st
  REQUIRE(bad->events.size() == 4);        // add R W, cas R, st
  CHECK(ok->events[0] == bad->events[0]);  // the prefix before the fork is shared
  CHECK(ok->events[1] == bad->events[1]);
  const EventId addR = ok->events[0];
  // success: Read + Write(7) linked by rmw, both tagged RMW with the instruction's semantics
  const Event& sr = p.events[ok->events[2]];
  const Event& sw = p.events[ok->events[3]];
  CHECK(sr.type == EventType::Read);
  CHECK(sw.type == EventType::Write);
  CHECK(hasPair(p, "rmw", sr.id, sw.id));
  CHECK(hasTag(sr, "RMW"));
  CHECK(hasTag(sw, "RMW"));
  CHECK_FALSE(hasTag(sr, "CAS_FAIL"));
  CHECK(sr.sem == ptx::Sem::Acquire);
  CHECK(constOf(p, sw.value) == 7);
  // failure: one Read, no write, no rmw pair, no RMW tag; same semantics and scope
  const Event& fr = p.events[bad->events[2]];
  CHECK(fr.type == EventType::Read);
  CHECK(fr.id != sr.id);
  CHECK(hasTag(fr, "CAS_FAIL"));
  CHECK_FALSE(hasTag(fr, "RMW"));
  CHECK(hasTag(fr, "ACQ"));
  CHECK(fr.scope == ptx::Scope::Gpu);
  for (const auto& [a, b] : p.relations.at("rmw")) CHECK(a != fr.id);
  CHECK(p.relations.at("rmw").size() == 2);  // the add's and the successful cas's
  // guards: old == compare value on success, old != compare value on failure (evaluate both)
  std::vector<int64_t> rv(p.events.size(), 0);
  auto holds = [&](const Path& path) {
    for (ExprId g : path.guards)
      if (evaluate(p.exprs, g, rv) == 0) return false;
    return true;
  };
  REQUIRE(ok->guards.size() == 1);
  REQUIRE(bad->guards.size() == 1);
  rv[addR] = 3;  // r0 = 3
  rv[sr.id] = 3;
  rv[fr.id] = 3;
  CHECK(holds(*ok));
  CHECK_FALSE(holds(*bad));
  rv[sr.id] = 4;
  rv[fr.id] = 4;
  CHECK_FALSE(holds(*ok));
  CHECK(holds(*bad));
  // the destination is the path's own read; later events depend on the comparison (ctrl)
  CHECK(ok->finalRegs.at("r1") == p.exprs.readVal(sr.id));
  CHECK(bad->finalRegs.at("r1") == p.exprs.readVal(fr.id));
  CHECK(hasPair(p, "ctrl", sr.id, ok->events[4]));
  CHECK(hasPair(p, "ctrl", fr.id, bad->events[3]));
  CHECK(hasPair(p, "data", fr.id, bad->events[3]));
  // the add's read (r0) is compared, not written: a ctrl edge (not data) into the successful write
  CHECK_FALSE(hasPair(p, "data", addR, sw.id));
  CHECK(hasPair(p, "ctrl", addR, sw.id));
  CHECK_FALSE(hasPair(p, "ctrl", sr.id, sw.id));
}

TEST_CASE("cas new value: data edge from the reads it uses", "[events][lower][rmw][cas]") {
  auto l = lowerText(R"(PTX casdata
{ x = 0; y = 0; }
P0@cta 0,gpu 0:
    ld.relaxed.gpu.global.u32 r0, [x];
    atom.relaxed.gpu.global.cas.b32 r1, [y], 0, r0;
exists (0:r1 == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.paths[0].size() == 2);
  for (const auto& path : p.paths[0]) {
    if (path.events.size() != 3) continue;
    CHECK(hasPair(p, "data", path.events[0], path.events[2]));
    CHECK_FALSE(hasPair(p, "data", path.events[1], path.events[2]));
    std::vector<int64_t> rv(p.events.size(), 0);
    rv[path.events[0]] = 5;
    CHECK(evaluate(p.exprs, p.events[path.events[2]].value, rv) == 5);
  }
}

TEST_CASE("aliases share the physical location but not the virtual address", "[events][lower][alias]") {
  auto l = lowerText(R"(PTX alias
{ x = 0; y @ generic aliases x; s @ surface aliases x; }
P0@cta 0,gpu 0:
    st.weak [x], 1;
    fence.proxy.alias;
    ld.weak r0, [y];
    sust.weak s, 2;
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  CHECK(p.locations.size() == 1);
  CHECK(p.vaddrs.size() == 3);
  auto t0 = eventsOf(p, 0);
  REQUIRE(t0.size() == 4);
  const Event& w = p.events[t0[0]];
  const Event& r = p.events[t0[2]];
  const Event& s = p.events[t0[3]];
  CHECK(w.loc == r.loc);
  CHECK(w.vloc != r.vloc);
  CHECK(s.loc == w.loc);
  CHECK(s.vloc != w.vloc);
  CHECK(s.vloc != r.vloc);
  CHECK(s.proxy == ptx::Proxy::Surface);
  CHECK(hasTag(s, "SUR"));
  CHECK(hasTag(r, "GEN"));
  CHECK(hasTag(p.events[t0[1]], "PF_ALIAS"));
  CHECK(p.vaddrs[r.vloc].name == "y");
}

TEST_CASE("proxy synonyms keep the virtual address they are a synonym of", "[events][lower][alias]") {
  // sx, sx2: synonyms of x; sy: a synonym of y, itself a generic alias (another virtual address) of x.
  auto l = lowerText(R"(PTX synonyms
{ x = 0; y @ generic aliases x; sx @ surface aliases x; sx2 @ texture aliases x; sy @ surface aliases y; }
P0@cta 0,gpu 0:
    sust.weak sx, 1;
    tld.weak r0, sx2;
    suld.weak r1, sy;
    ld.weak r2, [y];
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  REQUIRE(p.vaddrs.size() == 5);
  auto base = [&](EventId e) { return p.vaddrs[static_cast<size_t>(p.events[e].vloc)].synonymOf; };
  auto t0 = eventsOf(p, 0);
  REQUIRE(t0.size() == 4);
  const int x = base(p.initWrites[0]);
  CHECK(p.vaddrs[static_cast<size_t>(x)].name == "x");
  CHECK(base(t0[0]) == x);  // sx
  CHECK(base(t0[1]) == x);  // sx2
  CHECK(base(t0[2]) != x);  // sy: y's address
  CHECK(base(t0[2]) == base(t0[3]));
  CHECK(p.vaddrs[static_cast<size_t>(base(t0[2]))].name == "y");
  // The canonical form keeps the name a synonym was declared of.
  CHECK(l->test.locations[4].aliasDirect == "y");
  CHECK(l->test.locations[4].aliasOf == "x");
}

TEST_CASE("per-CTA shared copies and DSMEM", "[events][lower][shared]") {
  auto l = lowerText(R"(PTX dsmem
{ .shared s = 0; .shared t@cta1 = 3; }
P0@cta 0,cluster 0,gpu 0:
    st.shared::cta.u32 [s], 1;
    st.relaxed.cluster.shared::cluster.u32 [s@cta1], 2;
    ld.shared::cluster.u32 r0, [t];
P1@cta 1,cluster 0,gpu 0:
    ld.shared::cta.u32 r0, [s];
exists (1:r0 == 0)
)");
  auto& p = l->prog;
  std::vector<std::string> names;
  for (const auto& L : p.locations) names.push_back(L.name);
  CHECK(names == std::vector<std::string>{"s@cta0", "s@cta1", "t@cta1"});
  CHECK(p.locations[2].init == 3);
  auto t0 = eventsOf(p, 0), t1 = eventsOf(p, 1);
  CHECK(p.locations[p.events[t0[0]].loc].name == "s@cta0");
  CHECK(p.locations[p.events[t0[1]].loc].name == "s@cta1");
  CHECK(p.events[t0[1]].space == ptx::Space::SharedCluster);
  CHECK(p.locations[p.events[t0[2]].loc].name == "t@cta1");
  CHECK(p.locations[p.events[t1[0]].loc].name == "s@cta1");
  CHECK(hasTag(p.events[t1[0]], "SHARED"));
  CHECK(findLocation(p, litmus::LocRef{"s", 1}) == 1);
  CHECK(findLocation(p, litmus::LocRef{"t", -1}) == 2);
  CHECK_FALSE(findLocation(p, litmus::LocRef{"s", -1}).has_value());
}

TEST_CASE("guards fork paths with symbolic guards and ctrl edges", "[events][lower][cf]") {
  auto l = lowerText(R"(PTX guard
{ x = 0; y = 0; }
P0@cta 0,gpu 0:
    ld.relaxed.gpu.global.u32 r0, [x];
    setp.eq.u32 p, r0, 1;
    @p st.relaxed.gpu.global.u32 [y], 1;
    @!p st.relaxed.gpu.global.u32 [y], 2;
    mov.u32 r1, %ctaid.x;
    setp.eq.u32 q, r1, 3;
    @q st.relaxed.gpu.global.u32 [x], 9;
P1@cta 3,gpu 0:
    mov.u32 r1, %ctaid.x;
    setp.eq.u32 q, r1, 3;
    @q st.relaxed.gpu.global.u32 [x], 9;
exists (0:r0 == 1)
)");
  auto& p = l->prog;
  REQUIRE(p.paths[0].size() == 2);  // constant guards (q) do not fork
  for (const auto& path : p.paths[0]) {
    CHECK(path.guards.size() == 1);  // @!p is decided by the earlier @p
    CHECK(path.events.size() == 2);
    CHECK(path.finalRegs.at("r1") == p.exprs.constant(0));
  }
  REQUIRE(p.paths[1].size() == 1);
  CHECK(p.paths[1][0].events.size() == 1);  // CTA 3 executes its store
  CHECK(p.paths[1][0].guards.empty());
  EventId rx = p.paths[0][0].events[0];
  EventId st0 = p.paths[0][0].events[1];
  EventId st1 = p.paths[0][1].events[1];
  CHECK(st0 != st1);
  CHECK(hasPair(p, "ctrl", rx, st0));
  CHECK(hasPair(p, "ctrl", rx, st1));
  // guards evaluate as expected
  std::vector<int64_t> rv(p.events.size(), 0);
  rv[rx] = 1;
  int taken = 0;
  for (const auto& path : p.paths[0]) {
    bool ok = true;
    for (ExprId g : path.guards) ok = ok && evaluate(p.exprs, g, rv) != 0;
    if (ok) {
      ++taken;
      CHECK(constOf(p, p.events[path.events[1]].value) == 1);
    }
  }
  CHECK(taken == 1);
}

TEST_CASE("only an iteration that reads and carries no register is a spin iteration", "[events][lower][cf]") {
  auto spinOfCut = [](const std::string& body) {
    auto l = lowerText("PTX t\n{ x = 0; y = 0; }\n P0@cta 0,gpu 0 ;\n" + body + "exists (0:r0 == 1)\n");
    for (const auto& p : l->prog.paths[0])
      if (p.end == PathEnd::Cut) return p.spin;
    FAIL("no cut path");
    return false;
  };
  // polls x: a spin iteration (r0 and p are written before they are read in each iteration)
  CHECK(spinOfCut(" LC00: ;\n ld.relaxed.gpu r0, x ;\n beq r0, 0, LC00 ;\n"));
  // counts in r1: the next iteration differs
  CHECK_FALSE(spinOfCut(" LC00: ;\n add r1, r1, 1 ;\n ld.relaxed.gpu r0, x ;\n bne r1, 9, LC00 ;\n"));
  // writes y in every iteration
  CHECK_FALSE(spinOfCut(" LC00: ;\n st.relaxed.gpu y, 1 ;\n ld.relaxed.gpu r0, x ;\n beq r0, 0, LC00 ;\n"));
  // a register written only under a guard does not define it for the read that follows
  CHECK_FALSE(
      spinOfCut(" LC00: ;\n ld.relaxed.gpu r0, x ;\n setp.eq.s32 p, r0, 0 ;\n @p add r2, r2, 1 ;\n"
                " beq r2, 0, LC00 ;\n"));
}

TEST_CASE("backward branches are unrolled and cut", "[events][lower][cf]") {
  const std::string text = R"(PTX loop
{ x = 0; }
 P0@cta 0,gpu 0   | P1@cta 1,gpu 0 ;
 LC00:            | st.relaxed.gpu x, 1 ;
 ld.relaxed.gpu r0, x |  ;
 beq r0, 0, LC00  |  ;
 st.relaxed.gpu x, 2 | ;
exists (0:r0 == 1)
)";
  for (int unroll : {0, 1, 2, 3}) {
    LowerOptions opt;
    opt.unroll = unroll;
    auto l = lowerText(text, opt);
    const auto& paths = l->prog.paths[0];
    int cut = 0, normal = 0;
    for (const auto& path : paths) {
      if (path.end == PathEnd::Cut) {
        ++cut;
        // unroll + 1 reads, then the LOOP_CUT marker; with a previous iteration to compare, the loop is a
        // spin loop (it only reads) and its last read is related to the marker by spin-iter.
        REQUIRE(path.events.size() == static_cast<size_t>(unroll + 2));
        const Event& m = l->prog.events[static_cast<size_t>(path.events.back())];
        CHECK(hasTag(m, "LOOP_CUT"));
        CHECK(hasTag(m, "SPIN_CUT") == (unroll > 0));
        CHECK(path.spin == (unroll > 0));
        const auto& spinIter = l->prog.relations.at("spin-iter");
        CHECK(spinIter.size() == (unroll > 0 ? 1u : 0u));
        if (unroll > 0) CHECK(spinIter.front() == std::make_pair(m.id, path.events[path.events.size() - 2]));
      } else {
        ++normal;
      }
    }
    CHECK(cut == 1);
    CHECK(normal == unroll + 1);
    CHECK(l->prog.unrollBound == unroll);
  }
}

TEST_CASE("special registers from placements", "[events][lower]") {
  auto l = lowerText(R"(PTX sregs
{ x = 0; }
P0@cta 2,cluster 1,gpu 0:
    mov.u32 a, %tid.x;
    mov.u32 b, %ctaid.x;
    mov.u32 c, %cluster_ctaid.x;
    mov.u32 d, %clusterid.x;
    mov.u32 e, %cluster_nctarank;
P1@cta 3,cluster 1,gpu 0:
    mov.u32 c, %cluster_ctaid.x;
P2@cta 3,cluster 1,gpu 0:
    mov.u32 a, %tid.x;
exists (0:a == 0)
)");
  auto& p = l->prog;
  const auto& r0 = p.paths[0][0].finalRegs;
  CHECK(constOf(p, r0.at("a")) == 0);
  CHECK(constOf(p, r0.at("b")) == 2);
  CHECK(constOf(p, r0.at("c")) == 0);
  CHECK(constOf(p, r0.at("d")) == 1);
  CHECK(constOf(p, r0.at("e")) == 2);
  CHECK(constOf(p, p.paths[1][0].finalRegs.at("c")) == 1);
  CHECK(constOf(p, p.paths[2][0].finalRegs.at("a")) == 1);
}

TEST_CASE("register-held addresses and initial registers", "[events][lower]") {
  auto l = lowerText(R"(PTX regaddr
{ x = 0; y = 0; P0:r1 = x; P0:r5 = 7; }
P0@cta 0,gpu 0:
    st.weak [r1], r5;
    mov.u64 r2, y;
    ld.weak r3, [r2];
exists (0:r3 == 0)
)");
  auto& p = l->prog;
  auto t0 = eventsOf(p, 0);
  REQUIRE(t0.size() == 2);
  CHECK(p.locations[p.events[t0[0]].loc].name == "x");
  CHECK(constOf(p, p.events[t0[0]].value) == 7);
  CHECK(p.locations[p.events[t0[1]].loc].name == "y");
}

TEST_CASE("bar.sync generations build bar-sync", "[events][lower][barrier]") {
  auto l = lowerText(R"(PTX bars
{ x = 0; }
P0@cta 0,gpu 0:
    bar.sync 0;
    bar.sync 1;
    bar.sync 0;
P1@cta 0,gpu 0:
    bar.sync 0;
    bar.arrive 1, 64;
    bar.sync 0;
P2@cta 1,gpu 0:
    bar.sync 0;
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  auto a = eventsOf(p, 0), b = eventsOf(p, 1), c = eventsOf(p, 2);
  CHECK(hasTag(p.events[a[0]], "BAR_SYNC"));
  CHECK(hasTag(p.events[b[1]], "BAR_ARRIVE"));
  CHECK(hasPair(p, "bar-sync", a[0], b[0]));
  CHECK(hasPair(p, "bar-sync", b[0], a[0]));
  CHECK(hasPair(p, "bar-sync", a[2], b[2]));
  CHECK_FALSE(hasPair(p, "bar-sync", a[0], b[2]));  // different generation
  CHECK(hasPair(p, "bar-sync", b[1], a[1]));        // arrive -> sync on barrier 1
  CHECK_FALSE(hasPair(p, "bar-sync", a[1], b[1]));  // nothing synchronises into an arrive
  CHECK_FALSE(hasPair(p, "bar-sync", a[0], c[0]));  // other CTA
  CHECK(p.relations.at("bar-sync").size() == 5);
}

TEST_CASE("barrier.cluster arrive/wait build cluster-sync", "[events][lower][barrier]") {
  auto l = lowerText(R"(PTX cl
{ x = 0; }
P0@cta 0,cluster 0,gpu 0:
    barrier.cluster.arrive.relaxed;
    barrier.cluster.wait;
P1@cta 1,cluster 0,gpu 0:
    barrier.cluster.arrive;
    barrier.cluster.wait;
P2@cta 2,cluster 2,gpu 0:
    barrier.cluster.arrive;
    barrier.cluster.wait;
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  auto a = eventsOf(p, 0), b = eventsOf(p, 1), c = eventsOf(p, 2);
  CHECK(hasTag(p.events[a[0]], "RLX"));
  CHECK_FALSE(hasTag(p.events[a[0]], "REL"));
  CHECK_FALSE(hasTag(p.events[a[0]], "F_REL"));
  CHECK(hasTag(p.events[b[0]], "REL"));
  CHECK(hasTag(p.events[b[0]], "CLUSTER_ARRIVE"));
  CHECK(hasTag(p.events[a[1]], "ACQ"));
  CHECK(hasTag(p.events[a[1]], "CLUSTER_WAIT"));
  CHECK(hasPair(p, "cluster-sync", a[0], b[1]));
  CHECK(hasPair(p, "cluster-sync", b[0], a[1]));
  CHECK(hasPair(p, "cluster-sync", a[0], a[1]));
  CHECK_FALSE(hasPair(p, "cluster-sync", a[0], c[1]));
  CHECK(p.relations.at("cluster-sync").size() == 5);
}

TEST_CASE("fence tags", "[events][lower][fence]") {
  auto l = lowerText(R"(PTX fences
{ x = 0; }
P0@cta 0,cluster 0,gpu 0:
    fence.acq_rel.gpu;
    membar.cta;
    fence.proxy.async;
    fence.proxy.async.global;
    fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;
    fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;
    fence.acquire.sync_restrict::shared::cluster.cluster;
    fence.proxy.surface;
    fence.mbarrier_init.release.cluster;
    fence.proxy.tensormap::generic.release.gpu;
exists (0:r0 == 0)
)");
  auto& p = l->prog;
  auto f = eventsOf(p, 0);
  REQUIRE(f.size() == 10);
  CHECK(hasTag(p.events[f[0]], "F_ACQ_REL"));
  CHECK(hasTag(p.events[f[1]], "F_SC"));
  CHECK(p.events[f[1]].scope == ptx::Scope::Cta);
  CHECK(hasTag(p.events[f[2]], "PF_ASYNC"));
  CHECK(hasTag(p.events[f[2]], "PF_SPACE_GLOBAL"));
  CHECK(hasTag(p.events[f[2]], "PF_SPACE_SHARED_CTA"));
  CHECK(hasTag(p.events[f[3]], "PF_SPACE_GLOBAL"));
  CHECK_FALSE(hasTag(p.events[f[3]], "PF_SPACE_SHARED_CTA"));
  CHECK(hasTag(p.events[f[4]], "PF_ASYNC_REL"));
  CHECK(hasTag(p.events[f[4]], "RESTRICT_SHARED_CTA"));
  CHECK(hasTag(p.events[f[5]], "PF_ASYNC_ACQ"));
  CHECK(hasTag(p.events[f[5]], "RESTRICT_SHARED_CLUSTER"));
  CHECK(hasTag(p.events[f[6]], "F_ACQ"));
  CHECK(hasTag(p.events[f[6]], "RESTRICT_SHARED_CLUSTER"));
  CHECK(hasTag(p.events[f[7]], "PF_SURFACE"));
  CHECK(hasTag(p.events[f[8]], "INIT_FENCE"));
  CHECK(hasTag(p.events[f[9]], "PF_TMAP_REL"));
  for (EventId e : f) CHECK(p.events[e].type == EventType::Fence);
}

TEST_CASE("errors carry the instruction's source location", "[events][lower][errors]") {
  // unknown label is caught by the parser or the lowering; both must report file:line:col
  std::string e1 = errorOf(R"(PTX bad
{ x = 0; }
P0@cta 0,gpu 0:
    ld.weak r0, [x+4];
exists (0:r0 == 0)
)");
  CHECK(e1.find("t.litmus:4:") != std::string::npos);
  CHECK(e1.find("offset") != std::string::npos);

  std::string e2 = errorOf(R"(PTX bad2
{ .shared s = 0; }
P0@cta 0,cluster 0,gpu 0:
    st.shared::cta.u32 [s@cta1], 1;
P1@cta 1,cluster 0,gpu 0:
    st.shared::cta.u32 [s], 1;
exists (0:r0 == 0)
)");
  CHECK(e2.find("t.litmus:4:") != std::string::npos);
  CHECK(e2.find("shared::cluster") != std::string::npos);

  std::string e3 = errorOf(R"(PTX bad3
{ .shared s = 0; }
P0@cta 0,cluster 0,gpu 0:
    ld.shared::cluster.u32 r0, [s@cta1];
P1@cta 1,cluster 1,gpu 0:
    ld.shared::cta.u32 r0, [s];
exists (0:r0 == 0)
)");
  CHECK(e3.find("t.litmus:4:") != std::string::npos);
  CHECK(e3.find("outside") != std::string::npos);

  std::string e4 = errorOf(R"(PTX bad4
{ x = 0; }
P0@cta 0,gpu 0:
    bar.sync r9;
exists (0:r0 == 0)
)");
  // r9 is 0 by default: a constant barrier id; a loaded one forks over the ids 0..15 (below)
  CHECK(e4.empty());
  std::string e5 = errorOf(R"(PTX bad5
{ x = 0; }
P0@cta 0,gpu 0:
    ld.weak r9, [x];
    bar.sync r9;
exists (0:r0 == 0)
)");
  CHECK(e5.empty());

  std::string e6 = errorOf(R"(PTX bad6
{ x = 0; }
P0@cta 0,gpu 0:
    mov.u32 r0, %smid;
exists (0:r0 == 0)
)");
  CHECK(e6.find("t.litmus:4:") != std::string::npos);
  CHECK(e6.find("special register") != std::string::npos);

  LowerOptions opt;
  opt.maxPaths = 2;
  std::string msg;
  try {
    (void)lowerText(R"(PTX many
{ x = 0; }
P0@cta 0,gpu 0:
    ld.weak r0, [x];
    setp.eq.u32 p, r0, 1;
    @p st.weak [x], 1;
    @p st.weak [x], 2;
    ld.weak r1, [x];
    setp.eq.u32 q, r1, 1;
    @q st.weak [x], 1;
    @q st.weak [x], 2;
exists (0:r0 == 0)
)",
                    opt);
  } catch (const DiagnosticError& e) {
    msg = e.what();
  }
  CHECK(msg.find("paths") != std::string::npos);
}
