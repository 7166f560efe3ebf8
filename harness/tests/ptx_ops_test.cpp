// The operations table: every qualifier group and operand code it uses is known, mnemonics and
// aliases are unique and resolve, attributes round-trip.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "ptx/Attributes.hpp"
#include "ptx/Ops.hpp"

using namespace ptxmm::ptx;

TEST_CASE("every qualifier group of PtxOps.def is defined", "[ptx]") {
  for (const auto& op : allOps()) {
    INFO(op.mnemonic);
    std::set<std::string_view> seen;
    for (auto g : qualifierGroups(op)) {
      CHECK_FALSE(qualifierGroupValues(g).empty());
      CHECK(seen.insert(g).second);  // no group twice in one row
    }
    for (auto code : operandSignature(op)) {
      REQUIRE_FALSE(code.empty());
      CHECK(std::string_view("dpvasilh").find(code[0]) != std::string_view::npos);
      CHECK((code.size() == 1 || (code.size() == 2 && code[1] == '?')));
    }
    CHECK_FALSE(op.isaSection.empty());
    CHECK(op.minTarget.sm >= 70);
  }
}

TEST_CASE("mnemonics and aliases are unique and resolve", "[ptx]") {
  std::set<std::string> names;
  for (const auto& s : allSpellings()) CHECK(names.insert(s).second);
  for (const auto& op : allOps()) CHECK(findOp(op.mnemonic) == &op);
  REQUIRE(findAlias("bar.cta.sync") != nullptr);
  CHECK(findAlias("bar.cta.sync")->id == OpId::BarSync);
  CHECK(findAlias("barrier.arrive")->id == OpId::BarArrive);
  CHECK(findAlias("bar.sync") == nullptr);  // a mnemonic, not an alias
  CHECK(findOp("fence.proxy.async::generic")->id == OpId::FenceProxyAsyncGen);
  CHECK(findOp("nope") == nullptr);
}

TEST_CASE("group membership", "[ptx]") {
  CHECK(groupAccepts("sem", "acq_rel"));
  CHECK_FALSE(groupAccepts("sem", "gpu"));
  CHECK(groupAccepts("sync_restrict", "sync_restrict::shared::cta"));
  CHECK(groupAccepts("multicast_all", "multicast::cluster::all"));
  CHECK_FALSE(groupAccepts("multicast", "multicast::cluster::all"));
  CHECK(groupAccepts("query", "get_first_ctaid::x"));
  CHECK(qualifierGroupValues("no-such-group").empty());
}

TEST_CASE("attributes parse and print", "[ptx]") {
  CHECK(parseSem("acquire") == Sem::Acquire);
  CHECK(parseScope("cluster") == Scope::Cluster);
  CHECK(parseSpace("shared") == Space::SharedCta);
  CHECK(toString(Space::SharedCluster) == ".shared::cluster");
  CHECK(byteWidth(DataType::B128) == 16);
  CHECK(scopeIncludes(Scope::Gpu, Scope::Cta));
  CHECK_FALSE(scopeIncludes(Scope::Cta, Scope::Gpu));
  Target t = combine(Target{90, 80, false}, Target{100, 78, true});
  CHECK(t == Target{100, 80, true});
  CHECK(toString(t) == "sm_100a, PTX ISA 8.0");
}
