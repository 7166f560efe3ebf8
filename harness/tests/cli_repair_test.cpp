// `ptxmm fences --repair`: the report names the instructions behind each flag, and every repair it prints
// is a diff whose patched test checks clean (re-checked here through the written files, with `ptxmm check`).
// The tests are the suite's CUTLASS-style TMA ring (missing proxy fence, missing full-barrier wait, wrong
// wait parity) and the broken try_cancel seed.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "CliTestSupport.hpp"
#include "ptxgen/Assemble.hpp"

namespace fs = std::filesystem;
using cli_test::Run;
using cli_test::Scratch;

namespace {

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

/// `ptxmm check` of a repaired file under ptx: the bad outcome never happens and no flag is raised; and its
/// stress kernel still assembles (when ptxas is installed).
void requireClean(const Scratch& s, const fs::path& file) {
  REQUIRE(fs::exists(file));
  Run c = s.ptxmm("check --model ptx " + file.string());
  INFO(c.out << c.err);
  CHECK(has(c.out, " Never "));
  CHECK_FALSE(has(c.out, "Flag "));
  if (ptxmm::ptxgen::findCudaTool("ptxas")) {
    Run g = s.ptxmm("gen --check -o " + (s.dir / "kernel.ptx").string() + " " + file.string());
    INFO(g.out << g.err);
    CHECK(g.rc == 0);
  }
}

/// The repair section of repair number n ("repair n (" up to the next "repair " header or the end).
std::string section(const std::string& out, int n) {
  auto start = out.find("\nrepair " + std::to_string(n) + " (");
  if (start == std::string::npos) return "";
  auto end = out.find("\nrepair " + std::to_string(n + 1) + " (", start + 1);
  return out.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

TEST_CASE("repair: the CUTLASS-style ring without a proxy fence gets a one-fence repair", "[cli][repair]") {
  Scratch s("repair-ring");
  Run r = s.ptxmm("fences --repair --model ptx --repair-dir " + (s.dir / "fixed").string() +
                  " litmus/async/cutlass-ring-refill-no-proxy-fence.litmus");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  // The racing pair, located in the test.
  CHECK(has(r.out,
            "data-race: P0 l.11 `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], "
            "[g1], 16, [full]` and P1 l.16 `ld.weak.shared::cta.u32 r0, [buf]`"));
  // Cost 1, and the consumer-side fence (CUTLASS's placement) is among the repairs.
  std::string first = section(r.out, 1);
  CHECK(has(first, "(cost 1: proxy fence)"));
  bool consumerSide = false;
  for (int n = 1; !section(r.out, n).empty(); ++n) {
    std::string sec = section(r.out, n);
    CHECK(has(sec, "(cost 1: proxy fence)"));  // only the cheapest level is printed
    if (has(sec, "insert `fence.proxy.async.shared::cta;` in P1 before l.17")) {
      consumerSide = true;
      CHECK(has(sec, "@@ -14,6 +14,7 @@\n"));
      CHECK(has(sec,
                "     ld.shared.u32 r0, [buf];\n+    fence.proxy.async.shared::cta;\n"
                "     mbarrier.arrive.shared::cta.b64 s2, [empty];\n"));
    }
    requireClean(s, s.dir / "fixed" / ("cutlass-ring-refill-no-proxy-fence.repair" + std::to_string(n) + ".litmus"));
  }
  CHECK(consumerSide);
}

TEST_CASE("repair: a ring consumer that skips the second full-barrier wait gets the wait inserted", "[cli][repair]") {
  Scratch s("repair-wait");
  Run r = s.ptxmm("fences --repair --model ptx --repair-dir " + (s.dir / "fixed").string() +
                  " litmus/async/cutlass-ring-refill-missing-full-wait.litmus");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(has(r.out, "undefined (async-read-before-completion): P0 l.11 `cp.async.bulk"));
  CHECK(has(r.out, "and P1 l.19 `ld.weak.shared::cta.u32 r1, [buf]`"));
  std::string first = section(r.out, 1);
  CHECK(has(first, "(cost 3: wait)"));
  CHECK(has(first, "mbarrier.try_wait.parity.shared::cta.b64"));
  CHECK(has(first,
            "insert `wait_full1_l19: mbarrier.try_wait.parity.shared::cta.b64 p_full1_l19, [full], 1; "
            "@!p_full1_l19 bra wait_full1_l19;` in P1 before l.19"));
  requireClean(s, s.dir / "fixed" / "cutlass-ring-refill-missing-full-wait.repair1.litmus");
}

TEST_CASE("repair: a ring consumer waiting on the wrong parity gets the parity flipped", "[cli][repair]") {
  Scratch s("repair-parity");
  Run r = s.ptxmm("fences --repair --model ptx --repair-dir " + (s.dir / "fixed").string() +
                  " litmus/async/cutlass-ring-refill-wrong-parity.litmus");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(has(r.out, "and P1 l.22 `ld.weak.shared::cta.u32 r1, [buf]`"));
  CHECK(has(r.out, "; deadlock"));
  std::string first = section(r.out, 1);
  CHECK(has(first, "(cost 1: parity)"));
  CHECK(has(first, "P1 l.20: wait for parity 1 instead of 0"));
  CHECK(has(first,
            "-    mbarrier.try_wait.parity.shared::cta.b64 q1, [full], 0;\n"
            "+    mbarrier.try_wait.parity.shared::cta.b64 q1, [full], 1;\n"));
  requireClean(s, s.dir / "fixed" / "cutlass-ring-refill-wrong-parity.repair1.litmus");
}

TEST_CASE("repair: the broken try_cancel seed gets the release its relaxed cluster arrive lacks", "[cli][repair]") {
  Scratch s("repair-seed");
  // One edit at a time keeps this check short; the seed's fix is a single strengthening.
  Run r = s.ptxmm("fences --repair --model ptx --max-edits 1 -j 2 --repair-dir " + (s.dir / "fixed").string() +
                  " litmus/seeds/clc-try-cancel-ptx-v1.litmus");
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(has(r.out, "and P1 l.55 `ld.weak.shared::cta.b128 handle, [addr]`"));
  bool release = false;
  for (int n = 1; !section(r.out, n).empty(); ++n) {
    std::string sec = section(r.out, n);
    CHECK(has(sec, "(cost 2: "));
    if (has(sec, "P1 l.60: `barrier.cluster.arrive.relaxed` → `barrier.cluster.arrive.release`")) release = true;
    requireClean(s, s.dir / "fixed" / ("clc-try-cancel-ptx-v1.repair" + std::to_string(n) + ".litmus"));
  }
  CHECK(release);
}

TEST_CASE("repair: clean tests, tests without a repair, outcome-only repairs and bad options", "[cli][repair]") {
  Scratch s("repair-misc");
  Run clean = s.ptxmm("fences --repair --model ptx litmus/async/cutlass-ring-refill-consumer-fence.litmus");
  CHECK(clean.rc == 0);
  CHECK(has(clean.out, "clean: the bad outcome is unreachable and no flag is raised; nothing to repair"));

  // SB with relaxed accesses needs an sc fence in both threads (cost 6): out of reach at --max-cost 4.
  auto sb = s.write("sb.litmus", R"(PTX SB
{ x = 0; y = 0 }
P0@cta 0,cluster 0,gpu 0:
    st.relaxed.gpu.global.u32 [x], 1;
    ld.relaxed.gpu.global.u32 r0, [y];
P1@cta 1,cluster 1,gpu 0:
    st.relaxed.gpu.global.u32 [y], 1;
    ld.relaxed.gpu.global.u32 r0, [x];
exists (0:r0 == 0 /\ 1:r0 == 0)
)");
  Run none = s.ptxmm("fences --repair --model ptx --max-cost 4 " + sb.string());
  INFO(none.out << none.err);
  CHECK(none.rc == 1);
  CHECK(has(none.out, "no repair of at most 2 edits and cost 4"));
  Run sc = s.ptxmm("fences --repair --model ptx " + sb.string());
  INFO(sc.out << sc.err);
  CHECK(sc.rc == 0);
  CHECK(has(section(sc.out, 1), "(cost 6: sc fence + sc fence)"));
  CHECK(has(section(sc.out, 1), "insert `fence.sc.gpu;` in P0 before l.5"));

  // MP whose data read is unconditional: release/acquire removes the outcome, the race on x stays.
  Run mp = s.ptxmm("fences --repair --model ptx litmus/base/MP+rel+acq.gpu-in-sys.litmus");
  INFO(mp.out << mp.err);
  CHECK(mp.rc == 0);
  CHECK(has(mp.out, "(diffs are against the test's canonical form"));
  CHECK(has(section(mp.out, 1), "(cost 4: scope + scope), outcome only"));
  CHECK(has(section(mp.out, 1), "flags of the original remain"));
  CHECK(has(section(mp.out, 1), "+    st.release.sys [y], 1;"));

  Run both = s.ptxmm("fences --repair --axiom-coverage litmus/async/cutlass-ring-refill-consumer-fence.litmus");
  CHECK(both.rc == 2);
  CHECK(has(both.err, "--repair and --axiom-coverage are separate analyses"));
}
