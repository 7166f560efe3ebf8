// Canonical form: parse(print(t)) prints identically, over the hand-written corpus and every
// litmus/**/*.litmus file found at test time; hashes identify tests up to spelling.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"

namespace ptxmm::testing {
std::vector<std::pair<std::string, std::string>> handWrittenTests();
}

using namespace ptxmm;
using namespace ptxmm::litmus;

namespace {

void checkFixedPoint(const std::string& name, const Test& t) {
  INFO("test " << name);
  std::string once = printCanonical(t);
  ParseResult again = tryParseTest(once, name + " (canonical)");
  if (!again.ok()) FAIL("canonical form does not re-parse: " << again.diagnostics.at(0).str() << "\n" << once);
  std::string twice = printCanonical(*again.test);
  CHECK(once == twice);
  CHECK(testHash(t) == testHash(*again.test));
  CHECK(testHash(t).size() == 32);
  // Structure survives: same threads and statement counts.
  REQUIRE(again.test->threads.size() == t.threads.size());
  for (size_t i = 0; i < t.threads.size(); ++i) {
    CHECK(again.test->threads[i].code.size() == t.threads[i].code.size());
    CHECK(again.test->threads[i].where == t.threads[i].where);
  }
  CHECK(again.test->locations.size() == t.locations.size());
  CHECK(again.test->clcPending == t.clcPending);
  CHECK(again.test->blockLayout);
}

}  // namespace

TEST_CASE("canonical form is a fixed point on the hand-written corpus", "[printer]") {
  auto corpus = ptxmm::testing::handWrittenTests();
  REQUIRE(corpus.size() >= 8);
  for (const auto& [name, text] : corpus) {
    ParseResult r = tryParseTest(text, name);
    if (!r.ok()) FAIL(name << ": " << r.diagnostics.at(0).str());
    checkFixedPoint(name, *r.test);
  }
}

TEST_CASE("canonical form is a fixed point on every suite file", "[printer][suite]") {
  namespace fs = std::filesystem;
  fs::path root = fs::path(PTXMM_SOURCE_DIR) / "litmus";
  REQUIRE(fs::exists(root));
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".litmus") continue;
    ++n;
    ParseResult r = tryParseFile(e.path().string());
    if (!r.ok()) {
      FAIL_CHECK("suite file does not parse: " << r.diagnostics.at(0).str());
      continue;
    }
    checkFixedPoint(e.path().string(), *r.test);
  }
  // litmus/seeds/ is written by the front end's owner and must be there.
  CHECK(n >= 6);
}

TEST_CASE("Dat3M and PTX spellings of one test have one canonical form", "[printer]") {
  const char* dat3m = R"(PTX MP
{ x = 0; y = 0; }
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0         ;
 st.weak x, 1        | ld.acquire.gpu r0, y   ;
 st.release.gpu y, 1 | ld.weak r1, x          ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)";
  const char* ptxSpelling = R"(PTX MP
{
  .global x = 0x0;
  y;
}
P0@cta 0,cluster 0,gpu 0:
  st [x], 1;     // plain st is .weak
  st.gpu.release [y], 1;
P1@cta 1,cluster 1,gpu 0:
  ld.gpu.acquire r0, [y];
  ld.weak r1, [x];
exists (P1:r0 = 1 /\ P1:r1 = 0)
)";
  Test a = parseTest(dat3m, "a");
  Test b = parseTest(ptxSpelling, "b");
  CHECK(printCanonical(a) == printCanonical(b));
  CHECK(testHash(a) == testHash(b));
  CHECK_FALSE(a.blockLayout);
  CHECK(b.blockLayout);
}

TEST_CASE("the hash changes with the test", "[printer]") {
  const char* base = R"(PTX T
{ x = 0; }
P0@cta 0,cluster 0,gpu 0:
    st.relaxed.gpu.global.u32 [x], 1;
exists (x=1)
)";
  std::string h = testHash(parseTest(base, "t"));
  std::string variant = base;
  variant.replace(variant.find(".gpu"), 4, ".sys");
  CHECK(testHash(parseTest(variant, "t")) != h);
  std::string init = base;
  init.replace(init.find("x = 0"), 5, "x = 3");
  CHECK(testHash(parseTest(init, "t")) != h);
  // herd7's hash (lib/testHash.ml) digests the condition's locations, not its values or quantifier.
  std::string cond = base;
  cond.replace(cond.find("x=1"), 3, "x=0");
  CHECK(testHash(parseTest(cond, "t")) == h);
  std::string observed = base;
  observed.replace(observed.find("x=1"), 3, "x=1 /\\ 0:r0=0");
  CHECK(testHash(parseTest(observed, "t")) != h);
  // Comments and spacing do not matter.
  std::string spaced = base;
  spaced.replace(spaced.find("st.relaxed"), 10, "  st.relaxed");
  spaced += "// trailing comment\n";
  CHECK(testHash(parseTest(spaced, "t")) == h);
}

TEST_CASE("printInstr writes qualifiers in canonical order", "[printer]") {
  auto canon = [](const char* s, std::vector<std::string> locs = {"bar", "mbar", "addr", "x", "dst", "src"}) {
    return printInstr(parseInstruction(s, locs));
  };
  CHECK(canon("mbarrier.try_wait.cluster.acquire.shared::cta.b64 complete, [mbar], state") ==
        "mbarrier.try_wait.acquire.cluster.shared::cta.b64 complete, [mbar], state");
  CHECK(canon("mbarrier.arrive.expect_tx.cluster.relaxed.shared::cta.b64 state, [mbar], 16") ==
        "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cta.b64 state, [mbar], 16");
  CHECK(canon("setp.u32.eq p0, %r0, 0x0") == "setp.eq.u32 p0, %r0, 0");
  CHECK(canon("ld.global.u32.relaxed.gpu r, [x]") == "ld.relaxed.gpu.global.u32 r, [x]");
  CHECK(canon("atom.add r, x, 1") == "atom.relaxed.gpu.add r, [x], 1");
  CHECK(canon("bar.cta.sync 0") == "bar.sync 0");
  CHECK(canon("barrier.cluster.arrive") == "barrier.cluster.arrive.release");
  CHECK(canon("mbarrier.arrive.shared.b64 s, [bar]") == "mbarrier.arrive.release.cta.shared::cta.b64 s, [bar]");
  CHECK(canon("@!p clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 "
              "[addr], [mbar]") ==
        "@!p clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 "
        "[addr], [mbar]");
  CHECK(canon("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src+16], 16, [mbar]") ==
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src+16], 16, [mbar]");
  CHECK(canon("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster") ==
        "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster");
  CHECK(canon("fence.cluster.sync_restrict::shared::cluster.acquire") ==
        "fence.acquire.sync_restrict::shared::cluster.cluster");
  CHECK(canon("st.mmio.relaxed.sys.global.u32 [x], 1") == "st.mmio.relaxed.sys.global.u32 [x], 1");
  CHECK(canon("membar.gl") == "membar.gl");
  CHECK(canon("barrier.sync.aligned 0") == "barrier.sync.aligned 0");
  CHECK(canon("barrier.cta.sync 1, 64") == "bar.sync 1, 64");
}
