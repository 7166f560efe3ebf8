// Hand-written litmus tests covering every instruction family of ptx/PtxOps.def, both layouts and
// both spellings. Shared by the printer (fixed point), fuzz and target tests, so they are meaningful
// even before the suite under litmus/ exists.
#include <string>
#include <utility>
#include <vector>

namespace ptxmm::testing {

/// (name, text) pairs.
std::vector<std::pair<std::string, std::string>> handWrittenTests() {
  return {
      {"mp-dat3m", R"(PTX MP+rel+acq
"message passing, release/acquire at .gpu scope"
{ x = 0; y = 0; P1:r0 = 0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0         ;
 st.weak x, 1        | ld.acquire.gpu r0, y   ;
 st.release.gpu y, 1 | ld.weak r1, x          ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)"},
      {"rmw-dat3m", R"(PTX SB+atoms (* atom, red, fences and Dat3M branches *)
{ x = 0; y = 0; }
 P0@cta 0,gpu 0                | P1@cta 1,cluster 1,gpu 0         ;
 atom.relaxed.gpu.add r0, x, 1 | atom.relaxed.gpu.cas r1, y, 0, 1 ;
 fence.sc.gpu                  | fence.acq_rel.gpu                ;
 red.release.gpu.add y, 1      | ld.relaxed.gpu r2, x             ;
 beq r0, 1, LC00               | bne r2, 0, LC01                  ;
 add r3, r0, 1                 | goto LC01                        ;
 atom.acq_rel.sys.exch r4, y, 3 | atom.gpu.global.add.u32 r5, [x], 2 ;
 LC00:                         | LC01:                            ;
 sub r6, r0, 1                 | mul r7, r1, 2                    ;
exists (0:r0=0 /\ 1:r2=0 \/ ~(x=3) => x != 1)
)"},
      {"mixedproxy-dat3m", R"(PTX alias+surface+texture+constant
{ x = 0; y @ generic aliases x; s @ surface aliases x; t @ texture aliases x; c @ constant aliases x; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0      ;
 st.weak x, 1          | ld.weak r0, y       ;
 fence.proxy.alias     | fence.proxy.surface ;
 sust.weak s, 2        | suld.weak r1, s     ;
 fence.proxy.texture   | tld.weak r2, t      ;
 fence.proxy.constant  | cold.weak r3, c     ;
 fence.proxy.generic   | membar.gl           ;
locations [x; y;]
~exists (1:r0=1 /\ 1:r1=0)
)"},
      {"bar-dat3m", R"(PTX bar+membar
{ x = 0; .shared s = 0; }
 P0@cta 0,gpu 0,warp 0 | P1@cta 0,gpu 0,warp 1 ;
 st.weak s, 1          | bar.cta.arrive 0, 2    ;
 bar.cta.sync 0        | ld.weak r0, s          ;
 membar.cta            | membar.sys             ;
forall (1:r0 = 0 \/ 1:r0 = 1)
)"},
      {"dialect-dat3m",
       R"(PTX dat3m-dialect (* every Dat3M form: local ld, arithmetic, atom ops, sc/weak, branches, bar K, ID, N *)
{ x = 0; y = 0; s @ surface aliases x; P0:r1 = &y; P1:r9 = 3; }
 P0@cta 0,gpu 0                 | P1@cta 0,gpu 1                  | P2@cta 0,gpu 1        ;
 ld r0, 1                       | ld r2, r9                       | bar.cta.sync 3, r9, 2 ;
 sub r3, r0, 4                  | mul r4, 2, r2                   | bar.cta.arrive 4, 1   ;
 atom.acq_rel.gpu.sub r5, x, 1  | atom.weak.mul r6, x, 2          | bar.cta.arrive 5      ;
 red.acquire.gpu.add x, r3      | atom.sc.sys.div r7, x, 2        | tld r8, 5             ;
 ld.sc.gpu r10, x               | st.sc.sys y, 1                  |                       ;
 suatom.relaxed.gpu.exch r11, s, 2 | sured.relaxed.gpu.xor s, 1  |                       ;
 bge r0, 1, LC00                | blt r2, 1, LC01                 |                       ;
 bgt r0, 1, LC00                | ble r2, 1, LC01                 |                       ;
 LC00:                          | bar.cta.sync 6, 3, 2            |                       ;
 bar.cta.sync 2                 | LC01:                           |                       ;
exists (0:r5 == 0 /\ 2:r8 == 5)
Hash=0123456789abcdef0123456789abcdef
)"},
      {"mbarrier-ptx", R"(PTX mbarrier-family
"every mbarrier instruction, PTX spelling, block layout"
{
  .shared data = 0;
  .mbarrier bar = 2;
  .shared raw = 0;
}
P0@cta 0,cluster 0,gpu 0:
    mbarrier.init.shared::cta.b64 [raw], 1;
    fence.mbarrier_init.release.cluster;
    st.relaxed.cta.shared::cta.u32 [data], 1;
    mbarrier.arrive.release.cta.shared::cta.b64 st0, [bar];
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 16;
    mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 16;
    mbarrier.arrive_drop.shared.b64 _, [bar];
    mbarrier.inval.shared::cta.b64 [raw];
P1@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.release.cluster.shared::cta.b64 state, [bar], 16;
waitLoop:
    mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;
    @!p bra waitLoop;
    mbarrier.test_wait.shared::cta.b64 q, [bar], state;
    mbarrier.try_wait.relaxed.cluster.shared::cta.b64 q2, [bar], state, 1000;
    ld.shared.u32 r0, [data];
exists (1:r0=0)
)"},
      {"bulk-ptx", R"(PTX cp-async-bulk-family
{
  src = 7;
  out = 0;
  .shared dst = 0;
  .shared buf = 0;
  .mbarrier bar = 1;
}
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 state, [bar], 32;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], 16, [bar];
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [dst], [src], 16, [bar], 3;
    cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [buf], [src], 16, [bar];
wait:
    mbarrier.try_wait.shared::cta.b64 done, [bar], state;
    @!done bra wait;
    ld.shared::cta.u32 r0, [dst];
    st.shared::cta.u32 [buf], 5;
    fence.proxy.async.shared::cta;
    cp.async.bulk.global.shared::cta.bulk_group [out], [buf], 16;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
    cp.async.bulk.wait_group 0;
    fence.proxy.async;
    fence.proxy.async.global;
    fence.proxy.async.shared::cluster;
P1@cta 1,cluster 0,gpu 0:
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.aligned;
    ld.relaxed.cluster.shared::cluster.u32 r1, [dst@cta0];
    st.shared::cluster.u32 [buf@cta0+4], 1;
exists (0:r0=0 \/ out=0)
)"},
      {"cp-async-ptx", R"(PTX cp-async-family
{ g = 3; .shared s = 0; .shared s2 = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    cp.async.ca.shared.global [s], [g], 4;
    cp.async.cg.shared::cta.global.L2::128B [s2], [g], 16;
    cp.async.commit_group;
    cp.async.wait_group 0;
    cp.async.wait_all;
    cp.async.ca.shared.global [s], [g], 4, 2;
    cp.async.mbarrier.arrive.shared::cta.b64 [bar];
    cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
    ld.shared.u32 r0, [s];
exists (0:r0=0)
)"},
      {"clc-ptx", R"(PTX clc-family
"try_cancel, query_cancel in all forms, guards, special registers"
{
  .shared resp = 0;
  .mbarrier mbar = 1;
  .clc_pending 4, 6;
}
P0@cta 0,cluster 0,gpu 0:
    mov.b32 xctaid, %ctaid.x;
    mov.u32 %r0, %tid.x;
    mov.u32 rank, %cluster_ctaid.x;
    mov.u32 nr, %cluster_nctarank;
    setp.u32.eq p0, %r0, 0x0;
    setp.ne.s32 p1, rank, 1;
    @p0 clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [resp], [mbar];
    clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [resp], [mbar];
    mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 _, [mbar], 16;
w:
    mbarrier.try_wait.parity.cluster.acquire.shared::cta.b64 ok, [mbar], 0;
    @!ok bra w;
    ld.shared.b128 handle, [resp];
    clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, handle;
    @!p ret;
    @p clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {xctaid, _, _, _}, handle;
    clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 bx, handle;
    clusterlaunchcontrol.query_cancel.get_first_ctaid::y.b32.b128 by, handle;
    fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;
    fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;
    fence.release.sync_restrict::shared::cta.cluster;
    fence.acquire.sync_restrict::shared::cluster.cluster;
    exit;
P1@cta 1,cluster 0,gpu 0:
    barrier.cluster.arrive.relaxed;
    barrier.cluster.wait.acquire;
    ret.uni;
locations [0:bx; 0:xctaid;]
exists (0:bx=4 /\ 0:xctaid=4)
)"},
      {"fences-ptx", R"(PTX fences-and-locals
// every fence form and the register-only instructions
{
  x = 0;
  tmap = 0;
  .shared s@cta1 = 5;
  P0:ra = x;
  1:rb = s@cta1;
  P0:rc = -3;
}
P0@cta 0,cluster 0,gpu 0:
    fence.sc.cta; fence.acq_rel.cluster; fence.gpu; fence.acquire.sys;
    fence.proxy.tensormap::generic.release.gpu;
    fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;
    membar.sys;
    st.volatile.global.u32 [x], 1;
    st.mmio.relaxed.sys.global.u32 [x], 2;
    ld.volatile.u32 r9, [x];
    ld.relaxed.gpu.global.u32 r1, [ra];
    ld.relaxed.gpu.global.u32 r2, [ra+4];
    st.relaxed.sys.u64 [ra-8], 0xff;
    and.b32 r3, r1, 1;
    or.b32 r4, r1, 2;
    xor.b32 r5, r1, 3;
    div.u32 r6, r1, 2;
    mul.lo.u32 r7, r1, r2;
    selp.b32 r8, 1, 0, p;
    setp.ge.u32 p, r1, r2;
    bra.uni end;
end:
P1@cta 1,cluster 1,gpu 0:
    bar.sync 0;
    barrier.sync 1;
    barrier.cta.sync 2, 1;
    barrier.arrive 3, 2;
    barrier.cta.arrive 3, 2;
    bar.arrive 3, 2;
    ld.shared::cta.u32 r0, [rb];
    red.relaxed.cta.shared::cta.add.u32 [s], 1;
    red.gpu.global.or.b32 [x], 1;
    atom.acquire.cta.global.max.s32 r1, [x], 5;
exists ((0:r1 = 1 /\ (0:r2 = 2 \/ true)) => ~false /\ x != 0 /\ s@cta1 = 6)
)"},
  };
}

}  // namespace ptxmm::testing
