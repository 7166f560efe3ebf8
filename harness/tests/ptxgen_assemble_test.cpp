// ptxgen: generated kernels assemble with ptxas (no GPU needed): the classic shapes, TMA, cp.async,
// multicast (sm_90a), try_cancel (sm_100a), and every test of the suite that parses.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "litmus/Parser.hpp"
#include "ptxgen/Assemble.hpp"
#include "ptxgen/Kernel.hpp"

using namespace ptxmm;

namespace {

bool havePtxas() {
  static const bool have = ptxgen::findCudaTool("ptxas").has_value();
  return have;
}

void assembles(const std::string& text, const std::string& arch = "", int bankConflictLanes = 0) {
  auto test = litmus::parseTest(text, "inline.litmus");
  ptxgen::GenOptions o;
  o.arch = arch.empty() ? ptxgen::requiredArch(test) : arch;
  o.bankConflictLanes = bankConflictLanes;
  auto k = ptxgen::generate(test, o);
  if (!havePtxas()) {
    WARN("ptxas not found: skipping the assembly of " << test.name);
    return;
  }
  auto r = ptxgen::assemble(k.ptx, o.arch);
  INFO(test.name << " (" << o.arch << "):\n" << r.diagnostics);
  CHECK(r.ok);
}

/// The sm_90a kernel of `text` (read as file `file`), which must assemble.
ptxgen::Kernel assembledFor90(const std::string& text, const std::string& file) {
  assembles(text, "sm_90a");
  ptxgen::GenOptions o;
  o.arch = "sm_90a";
  return ptxgen::generate(litmus::parseTest(text, file), o);
}

/// The reasons a suite test cannot run on hardware, from its own text (independent of the generator):
/// a proxy fence of the mixed-proxy model (no PTX encoding), a constant-proxy read; empty if it can.
std::set<std::string> expectedSkips(const litmus::Test& t) {
  std::set<std::string> reasons;
  for (const auto& th : t.threads)
    for (const auto& st : th.code) {
      if (!st.instr) continue;
      if (st.instr->op == ptx::OpId::FenceProxyKind && !st.instr->hasFlag("alias")) reasons.insert("no PTX encoding");
      if (st.instr->op == ptx::OpId::Cold) reasons.insert("constant proxy (ld.const)");
      if (st.instr->dialect) reasons.insert("a Dat3M form with no PTX counterpart");
      if (st.instr->op == ptx::OpId::BarSync || st.instr->op == ptx::OpId::BarArrive)
        for (const auto& o : st.instr->operands)
          if (o.kind != litmus::Operand::Kind::Imm) reasons.insert("a register barrier id or thread count");
    }
  return reasons;
}

bool uses(const litmus::Test& t, ptx::OpId op) {
  for (const auto& th : t.threads)
    for (const auto& st : th.code)
      if (st.instr && st.instr->op == op) return true;
  return false;
}

}  // namespace

TEST_CASE("classic shapes assemble for sm_90a", "[ptxgen][ptxas]") {
  assembles(R"(PTX MP
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r0, y  ;
 st.weak y, 1   | ld.weak r1, x  ;
exists (1:r0 == 1 /\ 1:r1 == 0))");
  assembles(R"(PTX SB
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;
 fence.sc.gpu   | fence.sc.gpu   ;
 ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;
exists (0:r0 == 0 /\ 1:r1 == 0))");
  assembles(R"(PTX LB
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 ld.weak r0, x  | ld.weak r1, y  ;
 st.weak y, 1   | st.weak x, 1   ;
exists (0:r0 == 1 /\ 1:r1 == 1))");
  assembles(R"(PTX CoRR
{ x = 0; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 st.weak x, 1   | ld.weak r0, x  ;
                | ld.weak r1, x  ;
exists (1:r0 == 1 /\ 1:r1 == 0))");
  assembles(R"(PTX 2+2W
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | st.weak y, 1   ;
 st.weak y, 2   | st.weak x, 2   ;
exists (x == 1 /\ y == 1))");
}

TEST_CASE("async-proxy kernels assemble: TMA, cp.async, multicast (sm_90a), try_cancel (sm_100a)", "[ptxgen][ptxas]") {
  assembles(R"(PTX TMA-MP
{ x = 0; .shared s = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    st.weak.global.u32 [x], 1;
    fence.proxy.async.global;
    mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 st, [bar], 16;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [x], 16, [bar];
LOOP:
    mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;
    @!p bra LOOP;
    ld.weak.shared::cta.u32 r0, [s];
exists (0:r0 == 0))");
  assembles(R"(PTX CPASYNC
{ x = 1; .shared s = 0; }
P0@cta 0,cluster 0,gpu 0:
    cp.async.ca.shared.global [s], [x], 4;
    cp.async.wait_all;
    ld.shared.u32 r0, [s];
exists (0:r0 == 0))");
  assembles(R"(PTX MULTICAST
{ x = 1; .shared s = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 st, [bar], 16;
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s], [x], 16, [bar], 3;
L0:
    mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;
    @!p bra L0;
    ld.shared.u32 r0, [s];
P1@cta 1,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 st, [bar], 16;
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
L1:
    mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;
    @!p bra L1;
    ld.shared.u32 r0, [s];
exists (0:r0 == 0 \/ 1:r0 == 0))",
            "sm_90a");
  assembles(R"(PTX CLC-basic
{ .shared resp = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.relaxed.cta.shared::cta.b64 st, [bar], 16;
    clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
L:
    mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;
    @!p bra L;
    ld.shared.b128 h, [resp];
    clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 c, h;
    @c clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {r1, _, _, _}, h;
exists (0:c == 1))",
            "sm_100a");
}

TEST_CASE("st.async and red.async assemble for sm_90a and sm_100a", "[ptxgen][ptxas][st.async]") {
  // Every modelled type and operation, immediates and registers (a 32-bit value is converted first),
  // generic addressing (written with .shared::cluster).
  const std::string text = R"(PTX ASYNC-STORE
{ .shared X = 0; .shared Y = 0; .shared C = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    ld.shared.u32 r1, [X];
    st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [X@cta1], r1, [bar@cta1];
    st.async.mbarrier::complete_tx::bytes.b64 [Y@cta1], r1, [bar@cta1];
    st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [X@cta1], 1, [bar@cta1];
    st.async.shared::cluster.mbarrier::complete_tx::bytes.s64 [Y@cta1], 2, [bar@cta1];
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [C@cta1], r1, [bar@cta1];
    red.async.relaxed.cluster.shared::cluster.add.u64 [C@cta1], 1, [bar@cta1];
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [C@cta1], 5, [bar@cta1];
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32 [C@cta1], 5, [bar@cta1];
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.xor.b32 [C@cta1], 5, [bar@cta1];
P1@cta 1,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.shared::cta.b64 st, [bar], 44;
L:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra L;
    ld.shared.u32 r0, [C];
exists (1:r0 == 0))";
  assembles(text, "sm_90a");
  assembles(text, "sm_100a");
}

TEST_CASE("wgmma with scale-d 1 assembles for sm_90a; that kernel is marked not runnable", "[ptxgen][ptxas][wgmma]") {
  // Both scale-d forms, a same-shape chain after a wait, the 4-operand form; descriptors built from the
  // registers holding the shared addresses.
  const std::string text = R"(PTX WGMMA
{ .shared A = 2; .shared B = 3; }
P0@cta 0,cluster 0,gpu 0:
    st.shared.u32 [A], 2;
    fence.proxy.async.shared::cta;
    mov.u64 da, A;
    mov.u64 db, B;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 0, 1, 1, 0, 0;
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 1;
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
exists (0:acc == 0))";
  assembles(text, "sm_90a");
  auto k = ptxgen::generate(litmus::parseTest(text, "inline.litmus"), ptxgen::GenOptions{});
  CHECK(k.ptx.find("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%wf0_acc_0, %wf0_acc_1, %wf0_acc_2, "
                   "%wf0_acc_3}, %y6, %y7, 1, 1, 1, 0, 0;") != std::string::npos);
  CHECK(k.ptx.find("mul.f32 %wfs, %wf0_acc_0, 0f57800000;\n  cvt.rzi.s64.f32 %v0_acc, %wfs;") != std::string::npos);
  CHECK(k.ptx.find("cvt.rn.f32.s64 %wf0_acc_0, %v0_acc;\n  mul.f32 %wf0_acc_0, %wf0_acc_0, 0f27800000;") !=
        std::string::npos);
  CHECK_THAT(k.notRunnable, Catch::Contains("scale-d 1") && Catch::Contains("9.7.15.7.1"));
  // wait_group N > 0 with an accumulator to write back is refused at the instruction
  const std::string partial = R"(PTX WGMMA-PARTIAL
{ .shared A = 2; .shared B = 3; }
P0@cta 0,cluster 0,gpu 0:
    mov.u64 da, A;
    mov.u64 db, B;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 0;
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 1;
    wgmma.wait_group.sync.aligned 0;
exists (0:acc == 0))";
  CHECK_THROWS_WITH(ptxgen::generate(litmus::parseTest(partial, "inline.litmus"), ptxgen::GenOptions{}),
                    Catch::Contains("inline.litmus:9:") && Catch::Contains("wait_group 1"));
}

TEST_CASE("tcgen05 assembles for sm_100a; the kernel is marked not runnable", "[ptxgen][ptxas][tcgen05]") {
  const std::string text = R"(PTX TCGEN05
{ .shared A = 2; .shared B = 3; .shared S = 1; .tmem D = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    mov.u64 da, A;
    mov.u64 db, B;
    mov.u64 ds, S;
    tcgen05.cp.cta_group::1.128x256b [D], ds;
    tcgen05.mma.cta_group::1.kind::f16 [D], da, db, 0, 1;
    tcgen05.fence::before_thread_sync;
    tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];
L:
    mbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [bar], 0;
    @!p bra L;
    tcgen05.fence::after_thread_sync;
    tcgen05.ld.sync.aligned.32x32b.x1.b32 {r0}, [D];
    tcgen05.wait::ld.sync.aligned;
    tcgen05.st.sync.aligned.32x32b.x1.b32 [D], {r0};
    tcgen05.wait::st.sync.aligned;
exists (0:r0 == 0))";
  assembles(text, "sm_100a");
  auto test = litmus::parseTest(text, "inline.litmus");
  CHECK(ptxgen::requiredArch(test) == "sm_100a");
  ptxgen::GenOptions o;
  o.arch = "sm_100a";
  auto k = ptxgen::generate(test, o);
  CHECK_THAT(k.notRunnable, Catch::Contains("tensor memory"));
  o.arch = "sm_90a";
  CHECK_THROWS_WITH(ptxgen::generate(test, o), Catch::Contains("needs sm_100a"));
}

TEST_CASE("warp-level helpers assemble: bar.warp.sync, elect.sync, mapa (sm_90a, sm_100a)", "[ptxgen][ptxas][warp]") {
  // Two and three lanes in a warp (lane strides 16 and 8), a sink and a register destination of elect.sync,
  // mapa in both spellings with an access through the mapped register.
  const std::string text = R"(PTX WARP
{ .shared X = 0; .shared Y = 0; }
P0@cta 0,cluster 0,gpu 0,warp 0:
    st.shared::cta.u32 [X], 1;
    bar.warp.sync 0xffffffff;
    elect.sync r1|p, 0x7;
    @p st.shared::cta.u32 [Y], 2;
    mapa.shared::cluster.u32 r2, X, 1;
    st.relaxed.cluster.shared::cluster.u32 [r2], 3;
    mapa.u64 r3, Y, 1;
    ld.relaxed.cluster.u32 r4, [r3];
P1@cta 0,cluster 0,gpu 0,warp 0:
    bar.warp.sync 0xffffffff;
    elect.sync _|q, 0x7;
    ld.shared::cta.u32 r0, [X];
P2@cta 0,cluster 0,gpu 0,warp 0:
    elect.sync r1|p, 0x7;
    bar.warp.sync 0x4;
P3@cta 1,cluster 0,gpu 0:
    ld.relaxed.cluster.shared::cta.u32 r0, [X];
exists (1:r0 == 0))";
  assembles(text, "sm_90a");
  assembles(text, "sm_100a");
  // The membermask is spread over the instance's kernel lanes (lane stride 8 for three lanes: bits 0, 8, 16).
  auto test = litmus::parseTest(text, "inline.litmus");
  ptxgen::GenOptions o;
  o.arch = "sm_90a";
  auto k = ptxgen::generate(test, o);
  CHECK(k.ptx.find("mov.b32 %x7, 65793;") != std::string::npos);  // 0x7 -> 1 | 1 << 8 | 1 << 16
  CHECK(k.ptx.find("bar.warp.sync %x7;") != std::string::npos);
  CHECK(k.ptx.find("elect.sync %x5|") != std::string::npos);
  CHECK(k.ptx.find("mapa.shared::cluster.u32 %x5,") != std::string::npos);
  CHECK(k.ptx.find("mapa.u64 ") != std::string::npos);
}

TEST_CASE("griddepcontrol: the grid-1 threads run in a dependent kernel of the same module", "[ptxgen][ptxas][warp]") {
  const std::string text = R"(PTX GDC
{ data = 0; }
P0@cta 0:
    st.relaxed.gpu.global.u32 [data], 7;
    griddepcontrol.launch_dependents;
P1@cta 2,grid 1:
    griddepcontrol.wait;
    ld.relaxed.gpu.global.u32 r1, [data];
exists (1:r1 == 0))";
  const auto k = assembledFor90(text, "gdc.litmus");
  ptxgen::GenOptions o;
  o.arch = "sm_90a";
  CHECK(k.notRunnable.empty());
  CHECK(k.entry == "ptxmm_test");
  CHECK(k.dependentEntry == "ptxmm_dependent");
  CHECK(k.roles == 2);
  CHECK(k.primaryRoles == 1);
  CHECK(k.slotsPerCta == 1);  // one instance per CTA: a CTA's first launch_dependents triggers it
  CHECK(k.counterWords() == 3);
  REQUIRE(k.ptx.find(".visible .entry ptxmm_dependent(") != std::string::npos);
  const size_t dep = k.ptx.find("// The stress kernel of the dependent grid");
  REQUIRE(dep != std::string::npos);
  const std::string primary = k.ptx.substr(0, dep), dependent = k.ptx.substr(dep);
  // The primary kernel runs P0 (role 0) and launches its dependents; the dependent kernel runs P1 (role 1),
  // waits in its code and again before its epilogue, and aligns its threads on its own start counter.
  CHECK(primary.find("$T0:") != std::string::npos);
  CHECK(primary.find("$T1:") == std::string::npos);
  CHECK(primary.find("  griddepcontrol.launch_dependents;\n") != std::string::npos);
  CHECK(primary.find("griddepcontrol.wait") == std::string::npos);
  CHECK(dependent.find("$T1:") != std::string::npos);
  CHECK(dependent.find("$T0:") == std::string::npos);
  CHECK(dependent.find("rem.u32 %role, %gcl, 1;\n  div.u32 %qraw, %gcl, 1;\n  add.u32 %role, %role, 1;") !=
        std::string::npos);
  CHECK(dependent.find("  griddepcontrol.wait;\n  ld.relaxed.gpu.global.u32") != std::string::npos);
  CHECK(dependent.find("$EPI:\n  griddepcontrol.wait;") != std::string::npos);
  CHECK(dependent.find("add.u64 %rd1, %inst, %N;\n  add.u64 %rd1, %rd1, %N;") != std::string::npos);
  CHECK(primary.find("shl.b64 %rd1, %inst, 2;\n  add.u64 %rd1, %rd1, %ctr;") != std::string::npos);
  // Each kernel's start barrier waits for its own grid's litmus threads only (one each here).
  CHECK(primary.find("setp.ge.u32 %p1, %r1, 1;") != std::string::npos);
  CHECK(dependent.find("setp.ge.u32 %p1, %r1, 1;") != std::string::npos);
  // The done counter waits for both grids' threads.
  CHECK(dependent.find("setp.ne.u32 %p1, %r1, 1;\n  @%p1 bra $EXIT;") != std::string::npos);

  // Threads of grid 0 only: one kernel, launch_dependents as spelled (no dependent: no effect).
  auto alone = litmus::parseTest(R"(PTX GDC1
{ data = 0; }
P0@cta 0:
    st.relaxed.gpu.global.u32 [data], 7;
    griddepcontrol.launch_dependents;
    griddepcontrol.wait;
P1@cta 1:
    ld.relaxed.gpu.global.u32 r1, [data];
exists (1:r1 == 0))",
                                 "gdc1.litmus");
  auto k1 = ptxgen::generate(alone, o);
  CHECK(k1.dependentEntry.empty());
  CHECK(k1.counterWords() == 2);
  CHECK(k1.slotsPerCta > 1);
  CHECK(k1.ptx.find("griddepcontrol.launch_dependents;") != std::string::npos);

  // A named barrier counts whole warps, not one lane per litmus thread: refused at the barrier.
  const std::string bar = R"(PTX GDC-BAR
{ data = 0; }
P0@cta 0:
    st.relaxed.gpu.global.u32 [data], 7;
    bar.sync 0;
    griddepcontrol.launch_dependents;
P1@cta 0:
    bar.sync 0;
P2@cta 2,grid 1:
    ld.relaxed.gpu.global.u32 r1, [data];
exists (2:r1 == 0))";
  CHECK_THROWS_WITH(ptxgen::generate(litmus::parseTest(bar, "bar.litmus"), o),
                    Catch::Contains("bar.litmus:5:5") && Catch::Contains("in a test with a dependent grid"));
}

TEST_CASE("mapa with a register CTA rank: the run-time address names the peer's copy", "[ptxgen][ptxas][warp]") {
  const std::string text = R"(PTX MAPA
{ .shared x = 0; .shared y = 0; }
P0@cta 0,cluster 0:
    mov.u32 r5, %cluster_ctarank;
    xor.b32 r5, r5, 1;
    mapa.shared::cluster.u32 r1, x, r5;
    st.shared::cluster.u32 [r1+4], 1;
    mapa.u64 r2, y, r5;
    ld.relaxed.cluster.u32 r3, [r2];
P1@cta 1,cluster 0:
    ld.shared::cta.u32 r0, [x];
exists (1:r0 == 0))";
  const auto k = assembledFor90(text, "mapa.litmus");
  ptxgen::GenOptions o;
  o.arch = "sm_90a";
  CHECK(k.clustered);
  // The rank is the register's value; accesses through the destination use its value as the address.
  CHECK(
      k.ptx.find("cvt.u32.u64 %x0, %v0_r5;\n  mapa.shared::cluster.u32 %x5, %sa0, %x0;\n  cvt.u64.u32 %v0_r1, %x5;") !=
      std::string::npos);
  CHECK(k.ptx.find("cvt.u32.u64 %dm0_r1, %v0_r1;\n  st.weak.shared::cluster.u32 [%dm0_r1+4], 1;") != std::string::npos);
  CHECK(k.ptx.find("mapa.u64 %v0_r2, %y5, %x0;") != std::string::npos);
  CHECK(k.ptx.find("ld.relaxed.cluster.u32 %x7, [%v0_r2];") != std::string::npos);
  // A special-register rank is known to the kernel: the static mapping of the prologue, as for an integer.
  auto special = litmus::parseTest(R"(PTX MAPA-S
{ .shared x = 0; }
P0@cta 0,cluster 0:
    mapa.shared::cluster.u32 r1, x, %cluster_ctarank;
    st.shared::cluster.u32 [r1], 1;
P1@cta 1,cluster 0:
    ld.shared::cta.u32 r0, [x];
exists (1:r0 == 0))",
                                   "mapa-s.litmus");
  auto ks = ptxgen::generate(special, o);
  CHECK(ks.ptx.find("st.weak.shared::cluster.u32 [%sa0], 1;") != std::string::npos);
  // A .shared::cluster address accessed in another state space is refused at the access.
  auto wrong = litmus::parseTest(R"(PTX MAPA-W
{ .shared x = 0; }
P0@cta 0,cluster 0:
    mov.u32 r5, 1;
    mapa.shared::cluster.u32 r1, x, r5;
    st.shared::cta.u32 [r1], 1;
P1@cta 1,cluster 0:
    ld.shared::cta.u32 r0, [x];
exists (1:r0 == 0))",
                                 "mapa-w.litmus");
  CHECK_THROWS_WITH(ptxgen::generate(wrong, o),
                    Catch::Contains("mapa-w.litmus:6:24") && Catch::Contains(".shared::cluster address"));
}

TEST_CASE("tensor-map updates and tensormap proxy fences assemble for sm_90a", "[ptxgen][ptxas][tensormap]") {
  assembles(R"(PTX TMAP-UPDATE
{ tmap = 1; flag = 0; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.global_address.global.b1024.b64 [tmap], 2;
    tensormap.replace.tile.global_stride.global.b1024.b64 [tmap], 0, r2;
    tensormap.replace.tile.box_dim.b1024.b32 [tmap], 1, 8;
    tensormap.replace.tile.rank.global.b1024.b32 [tmap], 1;
    tensormap.replace.tile.fill_mode.global.b1024.b32 [tmap], 1;
    fence.proxy.tensormap::generic.release.gpu;
    st.release.gpu.global.u32 [flag], 1;
P1@cta 1,cluster 1,gpu 0:
    ld.acquire.gpu.global.u32 r0, [flag];
    fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;
    fence.proxy.tensormap::generic.acquire.sys [tmap], 128;
exists (1:r0 == 1))",
            "sm_90a");
}

TEST_CASE("tensor copies through runner-encoded maps assemble for sm_90a", "[ptxgen][ptxas][tensormap]") {
  // Ranks 1 to 5, the .shared::cta destination (PTX 8.6), multicast with a cache hint, a descriptor
  // written by st and one installed by tensormap.replace, an acquire of the map.
  assembles(R"(PTX TENSOR-FORMS
{ .global t1 = 1; .global t2 = 1; .global t5 = 1; .shared X = 0; .shared Y = 0; .shared Z = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.global_address.global.b1024.b64 [t1], 2;
    st.global.u64 [t2], 3;
    fence.proxy.tensormap::generic.release.gpu;
    fence.proxy.tensormap::generic.acquire.gpu [t1], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 48;
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], [t1, {0}], [bar];
    cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [Y], [t2, {0, 0}], [bar];
    cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [Z], [t5, {0, 0, 0, 0, 0}], [bar], 3, r9;
L0:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra L0;
    ld.shared.u32 r1, [X];
    ld.shared.u32 r2, [Y];
P1@cta 1,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 16;
    barrier.cluster.arrive.release;
    barrier.cluster.wait.acquire;
L1:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra L1;
    ld.shared.u32 r3, [Z];
exists (0:r1 == 1 /\ 0:r2 == 1 /\ 1:r3 == 1))",
            "sm_90a");
}

TEST_CASE("a tensor copy alone assembles: the map's acquire in the prologue raises the PTX version",
          "[ptxgen][ptxas][tensormap]") {
  const std::string text = R"(PTX TENSOR-ONLY
{ .global tmap = 1; .shared X = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 16;
    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], [tmap, {0}], [bar];
L:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra L;
    ld.shared.u32 r1, [X];
exists (0:r1 == 1))";
  auto k = ptxgen::generate(litmus::parseTest(text, "inline.litmus"));
  CHECK(k.ptxVersion >= 83);
  assembles(text, "sm_90a");
}

TEST_CASE("bulk reductions, DSMEM bulk copies, prefetches and tensormap.cp_fenceproxy assemble for sm_90a",
          "[ptxgen][ptxas][bulk]") {
  // cp.reduce.async.bulk into global (bulk group) and into another CTA's shared memory (mbarrier), every
  // operation; the DSMEM bulk copy; the L2 prefetch; the fused tensor-map copy and release proxy fence.
  assembles(R"(PTX BULK-REST
{ g = 1; h = 0; tmap = 1; .shared X = 0; .shared Y = 0; .shared S = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    st.shared::cta.u32 [X], 5;
    fence.proxy.async.shared::cta;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [g], [X], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [g], [X], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u64 [h], [X], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [g], [X], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b64 [h], [X], 16;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
    cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [Y@cta1], [X], 16, [bar@cta1];
    cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.and.b32 [Y@cta1], [X], 16, [bar@cta1];
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [Y@cta1], [X], 16, [bar@cta1];
    cp.async.bulk.prefetch.L2.global [g], 16;
    tensormap.replace.tile.global_address.shared::cta.b1024.b64 [S], 2;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [tmap], [S], 128;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned [tmap], [S], 128;
    fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;
P1@cta 1,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.shared::cta.b64 st, [bar], 48;
L:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra L;
    ld.shared.u32 r0, [Y];
exists (1:r0 == 0))",
            "sm_90a");
}

TEST_CASE("32-bit register operands are converted before the instruction that uses them", "[ptxgen][ptxas]") {
  // red, mbarrier.init/expect_tx and the tensormap acquire fence take a 32-bit value: the conversion
  // of the 64-bit litmus register is its own instruction, written before the line that uses it.
  const std::string text = R"(PTX REG-OPERANDS
{ x = 0; tmap = 1; .shared bar = 0; }
P0@cta 0,cluster 0,gpu 0:
    ld.relaxed.gpu.global.u32 r1, [x];
    red.relaxed.gpu.global.add.u32 [x], r1;
    mbarrier.init.shared::cta.b64 [bar], r1;
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], r1;
    fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;
exists (x == 1))";
  auto test = litmus::parseTest(text, "inline.litmus");
  ptxgen::GenOptions o;
  o.arch = "sm_90a";
  auto k = ptxgen::generate(test, o);
  for (const char* op : {"red.relaxed.gpu.global.add.u32", "mbarrier.init.shared::cta.b64",
                         "mbarrier.expect_tx.relaxed.cta.shared::cta.b64"}) {
    const size_t at = k.ptx.find(op);
    REQUIRE(at != std::string::npos);
    const std::string line = k.ptx.substr(at, k.ptx.find('\n', at) - at);
    INFO(line);
    CHECK(line.find("cvt") == std::string::npos);
    CHECK(line.back() == ';');
  }
  assembles(text, "sm_90a");
}

TEST_CASE("ptxas diagnostics are returned for bad PTX", "[ptxgen][ptxas]") {
  if (!havePtxas()) {
    WARN("ptxas not found: skipped");
    return;
  }
  auto r =
      ptxgen::assemble(".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() { bogus.op; }\n", "sm_90a");
  CHECK_FALSE(r.ok);
  CHECK(r.diagnostics.find("error") != std::string::npos);
}

TEST_CASE("bank-conflict stress and surface/texture kernels assemble for sm_90a", "[ptxgen][ptxas]") {
  const char* shared = R"(PTX MPs
{ .shared x = 0; .shared y = 0; }
 P0@cta 0,gpu 0      | P1@cta 0,gpu 0 ;
 st.weak x, 1        | ld.acquire.cta r0, y ;
 st.release.cta y, 1 | ld.weak r1, x ;
exists (1:r0 == 1 /\ 1:r1 == 0))";
  assembles(shared, "sm_90a", 1);
  assembles(shared, "sm_90a", 8);
  assembles(shared, "sm_90a", 32);
  assembles(R"(PTX SURTEX
{ flag = 0; x = 0; s @ surface aliases x; t @ texture aliases x }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 1,gpu 0 ;
 sust.weak s, 42          | ld.acquire.gpu r0, flag  ;
 st.release.gpu flag, 1   | bne r0, 1, L0            ;
                          | tld.weak r1, t           ;
                          | @p suld.weak r2, s       ;
                          | L0:                      ;
exists (1:r0 == 1 /\ 1:r1 != 42))",
            "sm_90a", 8);
}

TEST_CASE("every suite test that parses and can run on hardware assembles", "[ptxgen][ptxas][suite]") {
  if (!havePtxas()) {
    WARN("ptxas not found: skipped");
    return;
  }
  namespace fs = std::filesystem;
  const fs::path root = fs::path(PTXMM_SOURCE_DIR) / "litmus";
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().extension() == ".litmus") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  int parsed = 0, assembled = 0, assembledBank = 0, aliasRun = 0, aliasSurface = 0, aliasTexture = 0, tensor = 0,
      dependent = 0;
  std::map<std::string, int> skipped;  // expected reason -> tests
  std::vector<std::string> failures;
  for (const auto& f : files) {
    auto pr = litmus::tryParseFile(f);
    if (!pr.ok()) continue;
    ++parsed;
    const litmus::Test& test = *pr.test;
    bool proxyAliases = false;
    for (const auto& d : test.locations) proxyAliases |= !d.aliasOf.empty() && d.aliasProxy != ptx::Proxy::Generic;
    const std::set<std::string> expected = expectedSkips(test);
    ptxgen::GenOptions o;
    o.arch = ptxgen::requiredArch(test);
    ptxgen::Kernel k;
    try {
      k = ptxgen::generate(test, o);
    } catch (const DiagnosticError& e) {
      // Only the hardware limits that the test's text shows are acceptable reasons, located in the file.
      const std::string msg = e.diagnostic().str();
      std::string why;
      for (const auto& r : expected)
        if (msg.find(r) != std::string::npos) why = r;
      if (why.empty() || msg.find(f + ":") != 0)
        failures.push_back(f + ": unexpected generator error: " + msg);
      else
        ++skipped[why];
      continue;
    }
    if (!expected.empty()) failures.push_back(f + ": generated, but it should be skipped (" + *expected.begin() + ")");
    // The aliases are real: a surface access is a sust/suld on a bound surface, a texture read a tex.
    const bool sur = uses(test, ptx::OpId::Sust) || uses(test, ptx::OpId::Suld);
    const bool tex = uses(test, ptx::OpId::Tld);
    if (sur && (!k.surfaceMap || k.ptx.find(".b.2d.b32.trap") == std::string::npos))
      failures.push_back(f + ": surface accesses without a surface binding");
    if (tex && k.ptx.find("tex.1d.v4.u32.s32") == std::string::npos)
      failures.push_back(f + ": texture reads without a texture fetch");
    if (proxyAliases) {
      ++aliasRun;
      aliasSurface += sur ? 1 : 0;
      aliasTexture += tex ? 1 : 0;
    }
    // Threads in both grids: a primary and a dependent kernel (programmatic dependent launch).
    bool grid0 = false, grid1 = false;
    for (const auto& th : test.threads) (th.where.grid > 0 ? grid1 : grid0) = true;
    if ((grid0 && grid1) != !k.dependentEntry.empty() ||
        (grid0 && grid1 && k.ptx.find(".visible .entry ptxmm_dependent(") == std::string::npos))
      failures.push_back(f + ": threads in both grids need a dependent kernel, and only they");
    dependent += grid0 && grid1 ? 1 : 0;
    // A tensor copy reads a map the runner encodes: the kernel describes it (Kernel::tensorMaps).
    if (uses(test, ptx::OpId::CpAsyncBulkTensor)) {
      ++tensor;
      if (k.tensorMaps.empty() || k.ptx.find("cp.async.bulk.tensor.") == std::string::npos)
        failures.push_back(f + ": a tensor copy without a tensor map");
    }
    auto r = ptxgen::assemble(k.ptx, o.arch);
    if (r.ok)
      ++assembled;
    else
      failures.push_back(f + " (" + o.arch + "):\n" + r.diagnostics);
    // Tests with shared locations also assemble with bank-conflict lanes (and the thread skew).
    o.bankConflictLanes = 8;
    o.threadSkewNs = 1000;
    auto kb = ptxgen::generate(test, o);
    if (kb.bankConflictLanes == 0) continue;
    auto rb = ptxgen::assemble(kb.ptx, o.arch);
    if (rb.ok)
      ++assembledBank;
    else
      failures.push_back(f + " (" + o.arch + ", bankConflictLanes 8, threadSkewNs 1000):\n" + rb.diagnostics);
  }
  std::cout << "ptxgen suite: " << files.size() << " files, " << parsed << " parse, " << assembled << " assemble ("
            << assembledBank << " also with bank-conflict lanes; " << aliasRun
            << " with surface/texture/constant aliases: " << aliasSurface << " use a surface, " << aliasTexture
            << " a texture; " << tensor << " with tensor copies; " << dependent << " with a dependent kernel)";
  for (const auto& [why, n] : skipped) std::cout << ", " << n << " skipped: " << why;
  std::cout << ", " << failures.size() << " failures\n";
  for (const auto& f : failures) std::cout << "  FAIL " << f << "\n";
  CHECK(failures.empty());
  CHECK(assembled > 0);
  CHECK(assembledBank > 0);
  CHECK(aliasSurface > 0);
  CHECK(aliasTexture > 0);
  CHECK(tensor > 0);
  CHECK(dependent > 0);
}

namespace {

/// The lines of `ptx` from the line containing `from` to the next line starting with `to` (exclusive).
std::vector<std::string> linesBetween(const std::string& ptx, const std::string& from, const std::string& to) {
  std::vector<std::string> out;
  std::istringstream in(ptx);
  std::string line;
  bool on = false;
  while (std::getline(in, line)) {
    if (on && line.rfind(to, 0) == 0) break;
    if (!on && line.find(from) != std::string::npos) on = true;
    if (on) out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("wgmma tests run on a warpgroup kernel: shape, tiles, descriptors, convergence", "[ptxgen][ptxas][wgmma]") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(PTXMM_SOURCE_DIR) / "litmus/tensorcore"))
    if (e.path().extension() == ".litmus" && e.path().filename().string().rfind("W0", 0) == 0)
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 9);
  for (const auto& f : files) {
    INFO(f.string());
    auto test = litmus::parseFile(f.string());
    ptxgen::GenOptions o;  // 4 groups, 2 stress warps
    auto k = ptxgen::generate(test, o);
    CHECK(k.notRunnable.empty());
    // One instance per warpgroup: 4 warpgroups (16 warps) + 2 stress warps; every shared cell a 2048-byte tile.
    CHECK(k.litmusThreadWidth == 128);
    CHECK(k.slotsPerCta == 4);
    CHECK(k.blockDim == 32 * (4 * 4 + 2));
    const auto sharedLocs = std::count_if(test.locations.begin(), test.locations.end(), [](const auto& d) {
      return d.isMbarrier || d.space == ptx::Space::SharedCta || d.space == ptx::Space::SharedCluster;
    });
    CHECK(k.sharedBytes == static_cast<int>(sharedLocs) * 4 * ptxgen::wgmma::kTileBytes);
    CHECK(k.ptx.find(".shared .align 128 .b8 smem[") != std::string::npos);
    CHECK(k.ptx.find("mad.lo.u32 %sa0, %rawSlot, 2048, %sbase;") != std::string::npos);
    // The warpgroup of warps 4w..4w+3 runs the instance; its thread 0 is the leader.
    CHECK(k.ptx.find("shr.u32 %r2, %warp, 2;") != std::string::npos);
    CHECK(k.ptx.find("and.b32 %r1, %mytid, 127;\n  setp.eq.u32 %plead, %r1, 0;") != std::string::npos);
    // The litmus thread's code: every wgmma instruction unguarded and outside the leader-only regions;
    // every write, copy and arrival inside one.
    const auto code = linesBetween(k.ptx, "$T0:", "$T0_end:");
    REQUIRE(!code.empty());
    bool inLeader = false;
    std::string leaderEnd;
    int wgmmaLines = 0, leaderWrites = 0;
    for (const auto& line : code) {
      if (!inLeader && line.find("@!%plead bra ") != std::string::npos) {
        inLeader = true;
        leaderEnd = line.substr(line.find("bra ") + 4);
        leaderEnd = leaderEnd.substr(0, leaderEnd.find(';')) + ":";
        continue;
      }
      if (inLeader && line == leaderEnd) {
        inLeader = false;
        continue;
      }
      if (line.find("wgmma.") != std::string::npos) {
        ++wgmmaLines;
        CHECK_FALSE(inLeader);
        CHECK(line.rfind("  wgmma.", 0) == 0);  // no predicate: the whole warpgroup executes it
        CHECK(line.find(".sync.aligned") != std::string::npos);
      }
      const bool write = line.rfind("  st.", 0) == 0 || line.find("cp.async.bulk") != std::string::npos ||
                         line.find("mbarrier.arrive") != std::string::npos;
      if (write) {
        ++leaderWrites;
        CHECK(inLeader);
      }
    }
    CHECK_FALSE(inLeader);
    CHECK(wgmmaLines >= 3);
    const bool testWrites = f.filename().string().rfind("W04", 0) != 0;  // W04 writes nothing
    CHECK((leaderWrites >= 1) == testWrites);
    // Descriptors: (address & 0x3FFFF) >> 4, LBO 128 >> 4 in bits 16-29, SBO 256 >> 4 in bits 32-45, no swizzle.
    const uint64_t fields = (uint64_t{ptxgen::wgmma::kLeadingByteOffset >> 4} << 16) |
                            (uint64_t{ptxgen::wgmma::kStrideByteOffset >> 4} << 32);
    CHECK(fields == 0x1000080000ull);
    for (const std::string reg : {"%y6", "%y7"}) {
      const std::string src = reg == "%y6" ? "%v0_da" : "%v0_db";
      CHECK(k.ptx.find("and.b64 " + reg + ", " + src + ", 262143;\n  shr.u64 " + reg + ", " + reg + ", 4;\n  or.b64 " +
                       reg + ", " + reg + ", " + std::to_string(fields) + ";") != std::string::npos);
    }
    // D[0][0] = a*b*2^-48 is written back scaled by 2^48 (the register the model calls acc).
    CHECK(k.ptx.find("mul.f32 %wfs, %wf0_acc_0, 0f57800000;\n  cvt.rzi.s64.f32 %v0_acc, %wfs;") != std::string::npos);
    // An accumulator read before the wait reads the .f32 accumulator (W04-before-wait), not a stale register.
    const bool readBefore = f.filename().string().rfind("W04-wgmma-result-before-wait", 0) == 0;
    CHECK((k.ptx.find("mul.f32 %wfs, %wf0_acc_0, 0f57800000;  // read before the wait\n  cvt.rzi.s64.f32 %v0_acc, "
                      "%wfs;\n  add.u64 %v0_r1, %v0_acc, 1;") != std::string::npos) == readBefore);
    // Only the leader reports; a timed-out spin falls through (no thread leaves the warpgroup early).
    CHECK(k.ptx.find("@!%plead mov.s32 %lt, -1;") != std::string::npos);
    CHECK(k.ptx.find("bra $T0_timeout;") == std::string::npos);
    if (havePtxas()) {
      auto r = ptxgen::assemble(k.ptx, "sm_90a");
      INFO(r.diagnostics);
      CHECK(r.ok);
    }
  }
}

TEST_CASE("wgmma tile encoding: a litmus word's low half read as f16 is the value times 2^-24", "[ptxgen][wgmma]") {
  // A small integer's low 16 bits read as f16: the subnormal v * 2^-24 (v < 1024) or the normal
  // 2^(e-15) (1 + m/1024) = v * 2^-24 (1024 <= v < 2048); the product of two is a*b*2^-48.
  auto f16 = [](uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    return e == 0 ? std::ldexp(static_cast<double>(m), -24) : std::ldexp(1.0 + m / 1024.0, e - 15);
  };
  for (int v : {0, 1, 2, 3, 5, 15, 1023, 1024, 1500, ptxgen::wgmma::kExactBound - 1})
    CHECK(f16(static_cast<uint16_t>(v)) == std::ldexp(static_cast<double>(v), -24));
  CHECK(f16(static_cast<uint16_t>(ptxgen::wgmma::kExactBound + 1)) !=
        std::ldexp(ptxgen::wgmma::kExactBound + 1.0, -24));
  CHECK(std::string(ptxgen::wgmma::kScaleToInt) == "0f57800000");    // 2^48: exponent 48 + 127 = 0xAF
  CHECK(std::string(ptxgen::wgmma::kScaleFromInt) == "0f27800000");  // 2^-48: exponent -48 + 127 = 0x4F
}

TEST_CASE("a warpgroup kernel refuses to run what it does not translate", "[ptxgen][wgmma]") {
  auto k = ptxgen::generate(litmus::parseTest(R"(PTX WGMMA-BAR
{ .shared A = 2; .shared B = 3; }
P0@cta 0,cluster 0,gpu 0:
    mov.u64 da, A;
    mov.u64 db, B;
    bar.sync 1, 128;
    wgmma.fence.sync.aligned;
    wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {acc, _, _, _}, da, db, 0, 1, 1, 0, 0;
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
exists (0:acc == 0))",
                                              "inline.litmus"));
  CHECK_THAT(k.notRunnable, Catch::Contains("bar.sync") && Catch::Contains("warpgroup"));
}
