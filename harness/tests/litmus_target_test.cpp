// Minimum targets from the operations table and qualifiers.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "litmus/Parser.hpp"
#include "litmus/Target.hpp"

namespace ptxmm::testing {
std::vector<std::pair<std::string, std::string>> handWrittenTests();
}

using namespace ptxmm;
using namespace ptxmm::litmus;
using ptx::Target;

namespace {
Target tgt(const char* s) { return requiredTarget(parseInstruction(s, {"x", "a", "m", "d", "g"})); }
}  // namespace

TEST_CASE("instruction targets", "[target]") {
  CHECK(tgt("ld.weak r, [x]") == Target{70, 60, false});
  CHECK(tgt("ld.relaxed.cluster.global.u32 r, [x]") == Target{90, 78, false});
  CHECK(
      tgt("clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [a], [m]") ==
      Target{100, 86, true});
  CHECK(tgt("clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [a], [m]") ==
        Target{100, 86, false});
  CHECK(tgt("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster") == Target{90, 86, false});
  CHECK(tgt("fence.release.sync_restrict::shared::cta.cluster") == Target{90, 86, false});
  CHECK(tgt("fence.sc.gpu") == Target{70, 60, false});
  CHECK(tgt("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [d], [g], 16, [m]") ==
        Target{90, 80, false});
  CHECK(tgt("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [d], [g], 16, [m]") ==
        Target{90, 86, false});
  CHECK(tgt("cp.async.ca.shared.global [d], [g], 4").sm == 80);
  CHECK(tgt("mbarrier.try_wait.relaxed.cta.shared::cta.b64 p, [m], s").ptx == 86);
  CHECK(tgt("fence.proxy.tensormap::generic.release.gpu") == Target{90, 83, false});
  // PTX ISA 9.2 §9.7.9.25.5.2 / §9.7.9.26
  CHECK(tgt("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [d], [g, {0}], [m]") ==
        Target{90, 80, false});
  CHECK(tgt("cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [d], [g, {0}], [m]") ==
        Target{90, 86, false});
  CHECK(tgt("tensormap.replace.tile.global_address.global.b1024.b64 [g], 2") == Target{90, 83, true});
  CHECK(tgt("tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 [g], 1") == Target{100, 86, true});
  CHECK(tgt("tensormap.replace.tile.elemtype.global.b1024.b32 [g], 13") == Target{100, 87, true});
  CHECK(tgt("tensormap.replace.tile.swizzle_mode.global.b1024.b32 [g], 4") == Target{103, 88, true});
}

TEST_CASE("test targets", "[target]") {
  Test plain =
      parseTest("PTX t\n{ x = 0; }\n P0@cta 0 | P1@cta 1 ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (x=0)\n", "t");
  CHECK(requiredTarget(plain) == Target{70, 60, false});
  Test cluster = parseTest(
      "PTX t\n{ x = 0; }\n P0@cta 0,cluster 0 | P1@cta 1,cluster 0 ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (x=0)\n",
      "t");
  CHECK(requiredTarget(cluster) == Target{90, 78, false});
  for (const auto& [name, text] : ptxmm::testing::handWrittenTests())
    if (name == "clc-ptx") CHECK(requiredTarget(parseTest(text, name)) == Target{100, 86, true});
}
