// ptxgen: PTX spelling of instructions (operations table driven) and the structure of generated
// stress kernels (placement, layout, observed terms, errors for tests that cannot run).
#include <catch2/catch.hpp>

#include "HwTestSupport.hpp"
#include "litmus/Parser.hpp"
#include "ptxgen/Kernel.hpp"

using namespace ptxmm;

namespace {

const char* kMP = R"(PTX MP
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)";

const char* kDsmem = R"(PTX DSMEM
{ .shared s = 0; }
P0@cta 0,cluster 0,gpu 0:
    st.relaxed.cluster.shared::cluster.u32 [s@cta1], 1;
P1@cta 1,cluster 0,gpu 0:
    ld.relaxed.cluster.shared::cta.u32 r0, [s];
exists (1:r0 == 0 /\ s@cta1 == 1)
)";

bool contains(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

}  // namespace

TEST_CASE("spell writes every qualifier out, defaults included", "[ptxgen]") {
  const std::vector<std::string> locs = {"x", "y", "bar"};
  auto sp = [&](const char* text, ptx::Space space = ptx::Space::Generic) {
    return ptxgen::spell(litmus::parseInstruction(text, locs), space);
  };
  CHECK(sp("ld.weak r0, x", ptx::Space::Global) == "ld.weak.global.b32");
  CHECK(sp("ld.acquire.gpu r0, x", ptx::Space::Global) == "ld.acquire.gpu.global.b32");
  CHECK(sp("st.release.gpu.global.u32 [x], 1;") == "st.release.gpu.global.u32");
  CHECK(sp("atom.relaxed.gpu.add r1, x, 1", ptx::Space::Global) == "atom.relaxed.gpu.global.add.u32");
  CHECK(sp("fence.sc.cta") == "fence.sc.cta");
  CHECK(sp("fence.proxy.async.shared::cta;") == "fence.proxy.async.shared::cta");
  CHECK(sp("mbarrier.arrive.shared::cta.b64 st, [bar];") == "mbarrier.arrive.release.cta.shared::cta.b64");
  CHECK(sp("mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;") ==
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64");
  CHECK(sp("mbarrier.expect_tx.shared::cta.b64 [bar], 16;") == "mbarrier.expect_tx.relaxed.cta.shared::cta.b64");
}

TEST_CASE("minimum PTX version follows the qualifiers", "[ptxgen]") {
  const std::vector<std::string> locs = {"x", "bar"};
  CHECK(ptxgen::minPtxVersion(litmus::parseInstruction("ld.weak r0, x", locs)) == 80);
  CHECK(ptxgen::minPtxVersion(
            litmus::parseInstruction("mbarrier.arrive.relaxed.cta.shared::cta.b64 st, [bar];", locs)) == 86);
}

TEST_CASE("MP kernel: two roles, global locations, observed registers", "[ptxgen]") {
  auto test = litmus::parseTest(kMP, "MP.litmus");
  auto k = ptxgen::generate(test);
  CHECK(k.arch == "sm_90a");
  CHECK(contains(k.ptx, ".version 8.0\n.target sm_90a\n.address_size 64"));
  CHECK(contains(k.ptx, ".visible .entry ptxmm_test("));
  CHECK(contains(k.ptx, ".visible .entry ptxmm_init("));
  CHECK(contains(k.ptx, "ld.acquire.gpu.global.b32"));
  CHECK(contains(k.ptx, "st.release.gpu.global.b32"));
  CHECK_FALSE(contains(k.ptx, ".explicitcluster"));
  CHECK(k.roles == 2);  // one CTA per cluster: two clusters
  CHECK_FALSE(k.clustered);
  REQUIRE(k.terms.size() == 2);
  CHECK(k.terms[0].label == "1:r0");
  CHECK(k.terms[1].label == "1:r1");
  CHECK(k.globals.size() == 2);
  CHECK(k.reporters == 2);
  CHECK(k.resultWords == 3);
  CHECK(k.blockDim == 32 * (4 + 2));
  CHECK(k.slotsPerCta == 4 * 32);
}

TEST_CASE("cluster test: explicit cluster, mapa for a remote copy, owner publishes shared values", "[ptxgen]") {
  auto test = litmus::parseTest(kDsmem, "DSMEM.litmus");
  auto k = ptxgen::generate(test);
  CHECK(k.clustered);
  CHECK(k.clusterDim == 2);
  CHECK(k.roles == 1);
  CHECK(contains(k.ptx, ".reqnctapercluster 2, 1, 1"));
  CHECK(contains(k.ptx, "mapa.shared::cluster.u32"));
  CHECK(contains(k.ptx, "st.relaxed.cluster.shared::cluster.u32"));
  CHECK(contains(k.ptx, "barrier.cluster.arrive.release"));
  REQUIRE(k.terms.size() == 2);
  CHECK(k.terms[1].label == "s@cta1");
  CHECK(k.terms[1].source == ptxgen::TermSource::SharedLoc);
}

TEST_CASE("mbarrier tests initialise per instance and bound their waits", "[ptxgen]") {
  auto test = litmus::parseTest(R"(PTX W
{ .mbarrier bar = 2; }
P0@cta 0,cluster 0,gpu 0:
    mbarrier.arrive.release.cta.shared::cta.b64 st, [bar];
LOOP:
    mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0;
    @!p bra LOOP;
exists (0:p == 1)
)",
                                "W.litmus");
  auto k = ptxgen::generate(test);
  CHECK(contains(k.ptx, "mbarrier.init.shared::cta.b64 [%r2], 2;"));
  CHECK(contains(k.ptx, "fence.mbarrier_init.release.cluster;"));
  CHECK(contains(k.ptx, "setp.gt.u32 %pspin, %spin, %r7;"));  // bounded backward branch
  CHECK(contains(k.ptx, "_timeout"));
}

TEST_CASE("tests that cannot run on hardware get a located diagnostic", "[ptxgen]") {
  auto clc = litmus::parseTest(R"(PTX CLC
{ .shared resp = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [resp], [bar];
exists (true)
)",
                               "CLC.litmus");
  CHECK(ptxgen::requiredArch(clc) == "sm_100a");
  CHECK_THROWS_WITH(ptxgen::generate(clc), Catch::Contains("CLC.litmus:4:") && Catch::Contains("sm_100a"));
  ptxgen::GenOptions o;
  o.arch = "sm_100a";
  auto k = ptxgen::generate(clc, o);
  CHECK(contains(k.ptx, ".target sm_100a"));
  CHECK(k.ptxVersion >= 86);

  auto sur = litmus::parseTest(R"(PTX SUR
{ x = 0; s @ surface aliases x; }
 P0@cta 0,gpu 0 ;
 sust.weak s, 1 ;
exists (x == 1)
)",
                               "SUR.litmus");
  // The final value of a surface-written location cannot be read back in the same launch.
  CHECK_THROWS_WITH(ptxgen::generate(sur), Catch::Contains("SUR.litmus:4:") && Catch::Contains("observed") &&
                                               Catch::Contains("surface proxy"));
  o.arch = "sm_80";
  CHECK_THROWS_WITH(ptxgen::generate(litmus::parseTest(kMP, "MP.litmus"), o), Catch::Contains("unsupported --arch"));
}

TEST_CASE("tensor maps: a TMA tensor copy reads a CUtensorMap that the runner encodes per cell",
          "[ptxgen][tensormap]") {
  auto tma = litmus::parseTest(R"(PTX TMA
{ .global tmap = 1; .shared X = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.global_address.global.b1024.b64 [tmap], 2;
    fence.proxy.tensormap::generic.release.gpu;
    fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 16;
    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], [tmap, {0}], [bar];
    st.global.u64 [tmap], 7;
exists (X == 1)
)",
                               "TMA.litmus");
  auto k = ptxgen::generate(tma);
  // The description the runner encodes from: the map location, its rank, its versions in slot order.
  REQUIRE(k.tensorMaps.size() == 1);
  const auto& spec = k.tensorMaps[0];
  CHECK(k.globals.at(static_cast<size_t>(spec.globalLoc)).name == "tmap");
  CHECK(k.globals.at(static_cast<size_t>(spec.globalLoc)).cellBytes == 128);
  CHECK(spec.rank == 1);
  CHECK(spec.versions == std::vector<int64_t>{1, 2, 7});
  CHECK(spec.firstSlot == 0);
  CHECK(k.tensorSlots == 3);
  CHECK(spec.slotOf(2) == 1);
  CHECK(spec.slotOf(5) == -1);
  CHECK(ptxgen::tmap::recordBytes(3) == 512);  // 3 maps + 3 boxes = 432 bytes, rounded to 128
  CHECK(ptxgen::tmap::boxOffset(3, 1) == 3 * 128 + 16);
  // Both entries take the tensor buffer; ptxmm_init copies the initial map of each cell.
  CHECK(contains(k.ptx, ".entry ptxmm_init(.param .u64 p_mem, .param .u64 p_cfg, .param .u64 p_tmap)"));
  CHECK(contains(k.ptx, ", .param .u64 p_tmap)\n  .maxntid"));
  CHECK(contains(k.ptx, "mad.lo.u64 %rd9, %rd3, 512, %rd10;"));
  CHECK(contains(k.ptx, "st.global.v2.u64 [%rd8+112], {%rd12, %rd13};"));
  // The thread's record, its acquire of the initial map, the copy through the map's generic address.
  CHECK(contains(k.ptx, "mad.lo.u64 %tr0, %y5, 512, %tbuf;"));
  CHECK(contains(k.ptx, "cvta.global.u64 %y6, %ga0;\n  fence.proxy.tensormap::generic.acquire.gpu [%y6], 128;"));
  CHECK(contains(k.ptx,
                 "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%sa0], "
                 "[%y6, {0}], [%sa1];"));
  CHECK(contains(k.ptx, ".shared .align 128 .b8 smem["));
  // Version 2: the address of its box (slot 1); version 7: its map (slot 2) copied into the cell.
  CHECK(contains(k.ptx,
                 "add.u64 %y6, %tr0, 400;\n  tensormap.replace.tile.global_address.global.b1024.b64 [%ga0], %y6;"));
  CHECK(contains(
      k.ptx, "add.u64 %y6, %tr0, 256;\n  ld.v2.u64 {%y1, %y2}, [%y6+0];\n  st.global.v2.u64 [%ga0+0], {%y1, %y2};"));
  CHECK(contains(k.ptx, "st.global.v2.u64 [%ga0+112], {%y1, %y2};"));
  CHECK_FALSE(contains(k.ptx, "st.global.u64 [%ga0], 7"));
}

TEST_CASE("tensor maps: uses that have no device form are refused at the instruction", "[ptxgen][tensormap]") {
  auto refused = [](const std::string& body, const std::string& cond = "exists (X == 1)") {
    return litmus::parseTest(
        "PTX T\n{ .global tmap = 1; .global y = 0; .shared X = 0; .mbarrier bar = 1; }\n"
        "P0@cta 0,cluster 0,gpu 0:\n"
        "    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[X], [tmap, {0}], [bar];\n" +
            body + cond + "\n",
        "T.litmus");
  };
  CHECK_THROWS_WITH(ptxgen::generate(refused("    tensormap.replace.tile.box_dim.global.b1024.b32 [tmap], 0, 8;\n")),
                    Catch::Contains("T.litmus:5:") && Catch::Contains("only tensormap.replace.tile.global_address"));
  CHECK_THROWS_WITH(
      ptxgen::generate(refused("    tensormap.replace.tile.global_address.global.b1024.b64 [tmap], r1;\n")),
      Catch::Contains("T.litmus:5:") && Catch::Contains("the version must be an integer"));
  CHECK_THROWS_WITH(ptxgen::generate(refused("    st.release.gpu.global.u64 [tmap], 2;\n")),
                    Catch::Contains("T.litmus:5:") && Catch::Contains("only a weak st"));
  CHECK_THROWS_WITH(ptxgen::generate(refused("    ld.global.u64 r1, [tmap];\n")),
                    Catch::Contains("T.litmus:5:") && Catch::Contains("holds a tensor map"));
  CHECK_THROWS_WITH(ptxgen::generate(refused("", "exists (tmap == 1)")),
                    Catch::Contains("T.litmus:1:") && Catch::Contains("not the model's descriptor versions"));
  auto coord = litmus::parseTest(R"(PTX C
{ .global tmap = 1; .shared X = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], [tmap, {0, 1}], [bar];
exists (X == 1)
)",
                                 "C.litmus");
  CHECK_THROWS_WITH(ptxgen::generate(coord), Catch::Contains("C.litmus:4:") && Catch::Contains("coordinate 0"));
  auto shared = litmus::parseTest(R"(PTX S
{ .shared tmap = 1; .shared X = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], [tmap, {0}], [bar];
exists (X == 1)
)",
                                  "S.litmus");
  CHECK_THROWS_WITH(ptxgen::generate(shared), Catch::Contains("S.litmus:4:") && Catch::Contains(".global space"));
}

TEST_CASE("tensor maps: tensormap.cp_fenceproxy copies a shared descriptor that the prologue fills",
          "[ptxgen][tensormap]") {
  // B06's shape: P0 installs version 2 in its shared descriptor S and copies it into tmap (version 1 at
  // first); P1 loads through tmap, so its copy delivers the version the TMA used.
  const std::string text = R"(PTX CPF
{ .global tmap = 1; .global flag = 0; .shared S = 0; .shared X = 0; .mbarrier bar = 1 }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.global_address.shared::cta.b1024.b64 [S], 2;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned [tmap], [S], 128;
    st.release.cluster.global.u32 [flag], 1;
P1@cta 1,cluster 0,gpu 0:
    ld.acquire.cluster.global.u32 r0, [flag];
    fence.proxy.tensormap::generic.acquire.cluster [tmap], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 16;
    cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [X], [tmap, {0}], [bar];
w0:
    mbarrier.try_wait.parity.shared::cta.b64 p, [bar], 0;
    @!p bra w0;
    ld.shared::cta.u32 r1, [X];
exists (1:r0 == 1 /\ 1:r1 == 1)
)";
  auto k = ptxgen::generate(litmus::parseTest(text, "CPF.litmus"));
  CHECK(k.notRunnable.empty());
  REQUIRE(k.tensorMaps.size() == 1);
  const auto& spec = k.tensorMaps[0];
  // The map's initial version, S's initial version (its cells' first map), the version installed in S.
  CHECK(spec.versions == std::vector<int64_t>{1, 0, 2});
  CHECK(spec.sharedSources == std::vector<std::string>{"S"});
  CHECK(k.tensorSlots == 3);
  // Prologue: every slot's cell of S gets the encoded map of version 0 from the record of its instance's
  // cell of tmap (the same record as the thread's %tr0), before the CTA/cluster barrier.
  const size_t init = k.ptx.find("// 'S' starts with the CUtensorMap of version 0 of 'tmap'");
  REQUIRE(init != std::string::npos);
  CHECK(init < k.ptx.find("barrier.cluster.arrive.release;\n  barrier.cluster.wait.acquire;\n  setp.ge.u32"));
  CHECK(contains(k.ptx,
                 "rem.u64 %rd5, %rd5, %N;\n  mad.lo.u64 %rd5, %rd5, 512, %tbuf;\n"
                 "  ld.v2.u64 {%rd12, %rd13}, [%rd5+128];\n  st.shared::cta.v2.u64 [%r2+0], {%rd12, %rd13};"));
  CHECK(contains(k.ptx, "ld.v2.u64 {%rd12, %rd13}, [%rd5+240];\n  st.shared::cta.v2.u64 [%r2+112], {%rd12, %rd13};"));
  // P0: version 2 is the address of its box (slot 2) in the instance's record; the warp's 32 instances
  // reconverge before the .aligned copy into tmap's cell, and copy their maps one lane at a time with that lane's
  // operands (ptxas splits one execution's 128 bytes over the lanes: per-lane operands copied 4 bytes of each map).
  CHECK(contains(k.ptx, "mad.lo.u64 %tr0, %y5, 512, %tbuf;"));
  CHECK(contains(k.ptx,
                 "add.u64 %y6, %tr0, 416;\n  tensormap.replace.tile.global_address.shared::cta.b1024.b64 "
                 "[%sa0], %y6;\n  bar.warp.sync -1;"));
  CHECK(contains(k.ptx,
                 "  mov.u32 %x0, 0;\n$cpfp0_1:\n  shfl.sync.idx.b32 %x1, %sa0, %x0, 31, -1;\n"
                 "  mov.b64 {%x2, %x3}, %ga0;\n  shfl.sync.idx.b32 %x2, %x2, %x0, 31, -1;\n"
                 "  shfl.sync.idx.b32 %x3, %x3, %x0, 31, -1;\n  mov.b64 %rd12, {%x2, %x3};\n"
                 "  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned "
                 "[%rd12], [%x1], 128;\n  add.u32 %x0, %x0, 1;\n  setp.lt.u32 %q0_cpfp, %x0, 32;\n"
                 "  @%q0_cpfp bra.uni $cpfp0_1;\n  st.release.cluster.global.u32"));
  CHECK_FALSE(contains(k.ptx, "[%ga0], [%sa0], 128;"));
  CHECK(contains(k.ptx, ".shared .align 128 .b8 smem["));

  // The shared descriptor's other uses have no device form.
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return litmus::parseTest(t, "CPF.litmus");
  };
  CHECK_THROWS_WITH(
      ptxgen::generate(with("    st.release.cluster.global.u32 [flag], 1;\n",
                            "    st.release.cluster.global.u32 [flag], 1;\n    ld.shared::cta.u32 r2, [S];\n")),
      Catch::Contains("CPF.litmus:7:") && Catch::Contains("only tensormap.replace.tile.global_address"));
  CHECK_THROWS_WITH(ptxgen::generate(with("[S], 2;", "[S], r3;")),
                    Catch::Contains("CPF.litmus:4:") && Catch::Contains("the version must be an integer"));
  CHECK_THROWS_WITH(ptxgen::generate(with("[tmap], [S], 128;", "[tmap], [S+16], 128;")),
                    Catch::Contains("CPF.litmus:5:") && Catch::Contains("its source must name a shared variable"));
  CHECK_THROWS_WITH(ptxgen::generate(with("exists (1:r0 == 1 /\\ 1:r1 == 1)", "exists (S == 2)")),
                    Catch::Contains("not the model's descriptor versions"));
}

TEST_CASE("tensor maps: a tensor store or reduction writes through a map encoded over <map>_tensor",
          "[ptxgen][tensormap]") {
  auto test = litmus::parseTest(R"(PTX TS
{ .shared X = 0; .global tmap = 1; .global tmap_tensor = 0 }
P0@cta 0,cluster 0,gpu 0:
    st.shared::cta.u32 [X], 1;
    fence.proxy.async.shared::cta;
    cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tmap, {0}], [X];
    cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [tmap, {0}], [X];
    cp.async.bulk.prefetch.tensor.1d.L2.global [tmap, {0}];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
    ld.global.u32 r0, [tmap_tensor];
exists (0:r0 == 0)
)",
                                "TS.litmus");
  auto k = ptxgen::generate(test);
  REQUIRE(k.tensorMaps.size() == 1);
  CHECK(k.globals.at(static_cast<size_t>(k.tensorMaps[0].tensorLoc)).name == "tmap_tensor");
  CHECK(k.tensorMaps[0].versions == std::vector<int64_t>{1});
  CHECK(contains(k.ptx, "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%y6, {0}], [%sa0];"));
  CHECK(contains(k.ptx, "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%y6, {0}], [%sa0];"));
  CHECK(contains(k.ptx, "cp.async.bulk.prefetch.tensor.1d.L2.global.tile [%y6, {0}];"));
  CHECK(contains(k.ptx, "fence.proxy.tensormap::generic.acquire.gpu [%y6], 128;"));
  // Refused: no tensor location, a map both loaded and written through, a new descriptor in a written map.
  auto bad = [](const std::string& decl, const std::string& body) {
    return litmus::parseTest("PTX B\n{ .shared X = 0; .mbarrier bar = 1; .global tmap = 1" + decl +
                                 " }\nP0@cta 0,cluster 0,gpu 0:\n"
                                 "    cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tmap, {0}], [X];\n" +
                                 body + "exists (X == 0)\n",
                             "B.litmus");
  };
  CHECK_THROWS_WITH(ptxgen::generate(bad("", "")), Catch::Contains("B.litmus:4:") && Catch::Contains("'tmap_tensor'") &&
                                                       Catch::Contains("does not declare"));
  CHECK_THROWS_WITH(
      ptxgen::generate(bad("; .global tmap_tensor = 0",
                           "    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], "
                           "[tmap, {0}], [bar];\n")),
      Catch::Contains("B.litmus:5:") && Catch::Contains("loaded through"));
  CHECK_THROWS_WITH(ptxgen::generate(bad("; .global tmap_tensor = 0",
                                         "    tensormap.replace.tile.global_address.global.b1024.b64 [tmap], 2;\n")),
                    Catch::Contains("B.litmus:5:") && Catch::Contains("over 'tmap_tensor' only"));
}

TEST_CASE("tensor maps: tensormap.replace without a tensor copy is emitted as written", "[ptxgen][tensormap]") {
  auto upd = litmus::parseTest(R"(PTX UPD
{ .global tmap = 1; .global flag = 0; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.global_address.global.b1024.b64 [tmap], r1;
    tensormap.replace.tile.box_dim.global.b1024.b32 [tmap], 1, 8;
    tensormap.replace.tile.swizzle_mode.b1024.b32 [tmap], 3;
    fence.proxy.tensormap::generic.release.gpu;
    st.release.gpu.global.u32 [flag], 1;
P1@cta 1,cluster 1,gpu 0:
    ld.acquire.gpu.global.u32 r0, [flag];
    fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;
exists (1:r0 == 1)
)",
                               "UPD.litmus");
  CHECK(ptxgen::requiredArch(upd) == "sm_90a");
  auto k = ptxgen::generate(upd);
  CHECK(k.ptxVersion >= 83);
  CHECK(contains(k.ptx, "tensormap.replace.tile.global_address.global.b1024.b64 [%ga"));
  CHECK(contains(k.ptx, "tensormap.replace.tile.box_dim.global.b1024.b32 [%ga"));
  CHECK(contains(k.ptx, "], 1, 8;"));
  CHECK(contains(k.ptx, "tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%ga"));
  // generic addressing (PTX ISA 9.2 §9.7.13.4: "Generic Addressing is used unconditionally")
  CHECK(contains(k.ptx, "cvta.global.u64 %y6, %ga0;\n  fence.proxy.tensormap::generic.acquire.gpu [%y6], 128;"));
  CHECK(k.tensorMaps.empty());  // no tensor copy: the location's cells hold the litmus values
  CHECK_FALSE(contains(k.ptx, "p_tmap"));
  REQUIRE_FALSE(k.globals.empty());
  CHECK(k.globals[0].cellBytes == 128);  // a tensor-map object is 1024 bits
  CHECK_FALSE(k.notes.empty());
  // a form that needs sm_100a is refused for sm_90a, with its location
  auto wide = litmus::parseTest(R"(PTX SWZ
{ .global tmap = 1; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [tmap], 1;
exists (tmap == 1)
)",
                                "SWZ.litmus");
  CHECK(ptxgen::requiredArch(wide) == "sm_100a");
  CHECK_THROWS_WITH(ptxgen::generate(wide), Catch::Contains("SWZ.litmus:4:") && Catch::Contains("sm_100a"));
}

namespace {

using ptxmm::hwtesting::kSharedMP;

/// ISCA'22 MP_gpu09 shape: surface store of x, flag, texture load of x (different CTAs).
const char* kSurTex = R"(PTX SURTEX
{ flag = 0; x = 0; s @ surface aliases x; t @ texture aliases x; cx @ constant aliases x }
 P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 1,gpu 0 ;
 sust.weak s, 42          | ld.acquire.gpu r0, flag  ;
 st.release.gpu flag, 1   | bne r0, 1, L0            ;
                          | tld.weak r1, t           ;
                          | suld.weak r2, s          ;
                          | L0:                      ;
exists (1:r0 == 1 /\ 1:r1 != 42)
)";

ptxgen::GenOptions withLanes(int lanes) {
  ptxgen::GenOptions o;
  o.bankConflictLanes = lanes;
  return o;
}

}  // namespace

TEST_CASE("thread skew: one pseudo-random nanosleep per litmus thread, uniform in its warp, only when enabled",
          "[ptxgen]") {
  auto test = litmus::parseTest(kSharedMP, "MPs.litmus");
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count(ptxgen::generate(test).ptx, "nanosleep") == 0);
  ptxgen::GenOptions o;
  o.threadSkewNs = 500;
  const auto on = ptxgen::generate(test, o);
  CHECK(count(on.ptx, "nanosleep.u32 %r1;") == test.threads.size());
  CHECK(contains(on.ptx, "rem.u64 %rd1, %rd1, 501;"));                      // 0..500 ns
  CHECK(contains(on.ptx, "mov.u32 %r2, %tid.x;\n  shr.u32 %r2, %r2, 5;"));  // the warp, not the lane
  // The launch's draw: the first role's column multiplier.
  CHECK(contains(on.ptx, "ld.global.u64 %rd2, [%cfg+" + std::to_string(ptxgen::cfg::kRolePerm * 8) + "];"));
  // Every litmus thread draws its own delay.
  CHECK(contains(on.ptx, "add.u64 %rd1, %rd1, 1000003;"));
  CHECK(contains(on.ptx, "add.u64 %rd1, %rd1, 2000006;"));
}

TEST_CASE("bank-conflict lanes: loop generated only when enabled, rows 128-aligned after the cells", "[ptxgen]") {
  auto test = litmus::parseTest(kSharedMP, "MPs.litmus");
  auto off = ptxgen::generate(test);
  CHECK(off.bankConflictLanes == 0);
  CHECK(off.bankConflictOffset == -1);
  CHECK_FALSE(contains(off.ptx, "bank-conflict stress"));
  CHECK_FALSE(contains(off.ptx, "%bRow"));
  CHECK_FALSE(contains(off.ptx, "$MEMSTRESS"));

  auto on = ptxgen::generate(test, withLanes(8));
  CHECK(on.bankConflictLanes == 8);
  CHECK(contains(on.ptx, "// bank-conflict stress: 8 lane(s) per stress warp"));
  CHECK(contains(on.ptx, "setp.ge.u32 %p1, %lane, 8;\n  @%p1 bra $MEMSTRESS;"));  // lanes 8..31: memory stress
  // Iterations and pattern come from the configuration buffer.
  CHECK(contains(on.ptx, "ld.global.u64 %bIt, [%cfg+" + std::to_string(ptxgen::cfg::kBankIters * 8) + "];"));
  CHECK(contains(on.ptx, "ld.global.u64 %bPat, [%cfg+" + std::to_string(ptxgen::cfg::kBankPattern * 8) + "];"));
  // Lane j's row, then word (cell index * cell size) mod 128 bytes: the bank of that test cell.
  CHECK(contains(on.ptx, "mad.lo.u32 %bRow, %lane, 128, %sbase;"));
  CHECK(contains(on.ptx, "and.b32 %r1, %r1, 127;"));
  CHECK(contains(on.ptx, "@%pb1 st.volatile.shared::cta.u32 [%bA], %r1;"));
  CHECK(contains(on.ptx, "@!%pb2 ld.volatile.shared::cta.u32 %r2, [%bA];"));
  // Rows after the 2 shared locations' cells, 128-aligned; 8 rows of 128 bytes.
  const int cells = 2 * on.slotsPerCta * 16;
  CHECK(on.bankConflictOffset == (cells + 127) / 128 * 128);
  CHECK(on.bankConflictOffset % 128 == 0);
  CHECK(on.sharedBytes == on.bankConflictOffset + 8 * 128);
  CHECK(contains(on.ptx, "add.u32 %bRow, %bRow, " + std::to_string(on.bankConflictOffset) + ";"));
  CHECK(contains(on.ptx, "rem.u32 %r1, %r1, " + std::to_string(2 * on.slotsPerCta) + ";"));
  CHECK(on.blockDim == off.blockDim);  // the stress warps host the lanes: same kernel shape

  auto all = ptxgen::generate(test, withLanes(32));
  CHECK(all.sharedBytes == all.bankConflictOffset + 32 * 128);

  // No shared location: nothing to conflict with, nothing generated, and a note says so.
  auto global = ptxgen::generate(litmus::parseTest(kMP, "MP.litmus"), withLanes(8));
  CHECK(global.bankConflictLanes == 0);
  CHECK_FALSE(contains(global.ptx, "bank-conflict stress"));
  REQUIRE(global.notes.size() == 1);
  CHECK(contains(global.notes[0], "no shared-memory location"));

  CHECK_THROWS_WITH(ptxgen::generate(test, withLanes(33)), Catch::Contains("bankConflictLanes must be in 0..32"));
}

TEST_CASE("surface and texture aliases: sust/suld on a 2D surface, tex.1d on a linear texture, handles as params",
          "[ptxgen]") {
  auto k = ptxgen::generate(litmus::parseTest(kSurTex, "SURTEX.litmus"));
  // x is global 1 (flag is 0); its surface and texture objects are bound, the unused constant alias is not.
  REQUIRE(k.globals.size() == 2);
  CHECK(k.globals[1].name == "x");
  REQUIRE(k.bindings.size() == 2);
  CHECK(k.bindings[0].proxy == ptx::Proxy::Surface);
  CHECK(k.bindings[0].globalLoc == 1);
  CHECK(k.bindings[0].param == "p_sur1");
  CHECK(k.bindings[1].proxy == ptx::Proxy::Texture);
  CHECK(k.bindings[1].param == "p_tex1");
  CHECK(k.surfaceMap);
  CHECK(contains(k.ptx, ".param .u64 p_scratch, .param .u64 p_sur1, .param .u64 p_tex1, .param .u64 p_surmap)"));
  CHECK(contains(k.ptx, "ld.param.u64 %hs1, [p_sur1];"));
  CHECK(contains(k.ptx, "ld.param.u64 %ht1, [p_tex1];"));
  // Cell coordinates: surface map entry of the permuted cell index; texture element = cell offset / 4.
  CHECK(contains(k.ptx, "mad.lo.u64 %y6, %y5, 8, %smap;\n  ld.global.v2.u32 {%sx1, %sy1}, [%y6];"));
  CHECK(contains(k.ptx, "mul.lo.u64 %y6, %y5, %y4;\n  shr.u64 %y6, %y6, 2;\n  cvt.u32.u64 %ti1, %y6;"));
  CHECK(contains(k.ptx, "mov.b32 %x6, 42;\n  sust.b.2d.b32.trap [%hs1, {%sx1, %sy1}], {%x6};"));
  CHECK(contains(k.ptx, "tex.1d.v4.u32.s32 {%x7, %x4, %x5, %x6}, [%ht1, {%ti1}];\n  cvt.u64.u32 %v1_r1, %x7;"));
  CHECK(contains(k.ptx, "suld.b.2d.b32.trap {%x7}, [%hs1, {%sx1, %sy1}];\n  cvt.u64.u32 %v1_r2, %x7;"));
  CHECK(k.notes.empty());

  // Declared but unused proxy aliases need no binding: a plain MP runs as before.
  auto plain = ptxgen::generate(litmus::parseTest(R"(PTX MPdecl
{ flag = 0; x = 0; s @ surface aliases x; t @ texture aliases x }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0 ;
 st.weak x, 42          | ld.acquire.gpu r0, flag ;
 st.release.gpu flag, 1 | ld.weak r1, x ;
exists (1:r0 == 1 /\ 1:r1 != 42)
)",
                                                  "MPdecl.litmus"));
  CHECK(plain.bindings.empty());
  CHECK_FALSE(plain.surfaceMap);
  CHECK_FALSE(contains(plain.ptx, "p_surmap"));
}

TEST_CASE("proxy accesses that cannot run on hardware are rejected with the reason", "[ptxgen]") {
  auto reject = [](const std::string& body, const std::string& file) {
    return litmus::parseTest(
        "PTX T\n{ flag = 0; x = 0; y @ generic aliases x; s @ surface aliases x; "
        "t @ texture aliases x; cx @ constant aliases x }\n" +
            body,
        file);
  };
  // Constant proxy: .const is read-only, host-initialised memory; the writer is named.
  CHECK_THROWS_WITH(ptxgen::generate(reject(R"( P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 st.weak y, 42  | cold.weak r1, cx ;
exists (1:r1 != 42)
)",
                                            "CON.litmus")),
                    Catch::Contains("CON.litmus:4:") && Catch::Contains("constant proxy (ld.const)") &&
                        Catch::Contains("read-only") && Catch::Contains("writes with st at CON.litmus:4:"));
  // Proxy fences of the mixed-proxy model have no PTX encoding.
  CHECK_THROWS_WITH(
      ptxgen::generate(reject(R"( P0@cta 0,gpu 0 ;
 sust.weak s, 1 ;
 fence.proxy.surface ;
 suld.weak r0, s ;
exists (0:r0 != 1)
)",
                              "FEN.litmus")),
      Catch::Contains("FEN.litmus:5:") && Catch::Contains("fence.proxy.surface") && Catch::Contains("no PTX encoding"));
  // A surface alias is not a generic address.
  CHECK_THROWS_WITH(
      ptxgen::generate(reject(R"( P0@cta 0,gpu 0 ;
 ld.weak r0, s ;
exists (0:r0 != 0)
)",
                              "GEN.litmus")),
      Catch::Contains("GEN.litmus:4:") && Catch::Contains("surface-proxy alias") && Catch::Contains("sust/suld"));
  // The proxy instruction must name an alias of its own proxy.
  CHECK_THROWS_WITH(
      ptxgen::generate(reject(R"( P0@cta 0,gpu 0 ;
 tld.weak r0, s ;
exists (0:r0 != 0)
)",
                              "TLD.litmus")),
      Catch::Contains("TLD.litmus:4:") && Catch::Contains("texture proxy") && Catch::Contains("`@ texture aliases`"));
  // Surface elements are 32-bit: neither a narrower access nor a test with 64-bit cells can use them.
  CHECK_THROWS_WITH(ptxgen::generate(reject(R"( P0@cta 0,gpu 0 ;
 suld.weak.b16 r0, s ;
exists (0:r0 != 0)
)",
                                            "B16.litmus")),
                    Catch::Contains("B16.litmus:4:") && Catch::Contains("32-bit surface/texture elements only"));
  CHECK_THROWS_WITH(ptxgen::generate(reject(R"( P0@cta 0,gpu 0 ;
 st.weak.b64 flag, 1 ;
 suld.weak r0, s ;
exists (0:r0 != 0)
)",
                                            "WIDE.litmus")),
                    Catch::Contains("32-bit location cells") && Catch::Contains("8-byte"));
}
