// runner: stress parameters, configuration buffer (permutations are bijections), candidate values,
// histogram decoding, and the no-GPU path (runs are skipped cleanly, never crash).
#include <catch2/catch.hpp>
#include <set>

#include "litmus/Parser.hpp"
#include "runner/Runner.hpp"

using namespace ptxmm;

namespace {

const char* kMP = R"(PTX MP
{ x = 0; y = 5; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r0, y  ;
 st.weak y, 2   | ld.weak r1, x  ;
exists (1:r0 == 2 /\ 1:r1 == 0)
)";

}  // namespace

TEST_CASE("stress parameters from JSON", "[runner]") {
  auto p =
      runner::paramsFromJson(nlohmann::json::parse(R"({"iterations": 123, "memStride": 128, "stressTargetLines": 3})"));
  CHECK(p.iterations == 123);
  CHECK(p.memStride == 128);
  CHECK(p.stressTargetLines == 3);
  CHECK(runner::paramsFromJson(runner::toJson(p)).memStride == 128);
  CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json::parse(R"({"iterationz": 1})")),
                    Catch::Contains("iterationz"));
  CHECK_THROWS(runner::paramsFromJson(nlohmann::json::parse(R"({"stressTargetLines": 40})")));
}

TEST_CASE("configuration: instance and location permutations are bijections", "[runner]") {
  auto test = litmus::parseTest(kMP, "MP.litmus");
  auto k = ptxgen::generate(test);
  auto cand = runner::candidateValues(test, k);
  runner::StressParams p;
  std::mt19937_64 rng(7);
  const uint64_t columns = 10;
  for (int round = 0; round < 5; ++round) {
    auto c = runner::buildConfig(k, p, columns, cand, rng);
    namespace cfg = ptxgen::cfg;
    const uint64_t n = columns * static_cast<uint64_t>(k.slotsPerCta);
    REQUIRE(c[cfg::kInstances] == n);
    // The device's instance formula, per role: every instance is hosted exactly once.
    for (int role = 0; role < k.roles; ++role) {
      std::set<uint64_t> seen;
      for (uint64_t q = 0; q < columns; ++q)
        for (uint64_t s = 0; s < static_cast<uint64_t>(k.slotsPerCta); ++s) {
          uint64_t col = (q * c[cfg::kRolePerm + 2 * role] + c[cfg::kRolePerm + 2 * role + 1]) % columns;
          uint64_t slot = (s + c[cfg::kSlotOff + role]) % static_cast<uint64_t>(k.slotsPerCta);
          seen.insert(col * static_cast<uint64_t>(k.slotsPerCta) + slot);
        }
      CHECK(seen.size() == n);
    }
    for (size_t l = 0; l < k.globals.size(); ++l) {
      std::set<uint64_t> cells;
      for (uint64_t i = 0; i < n; ++i) cells.insert((i * c[cfg::kLocPerm + 3 * l] + c[cfg::kLocPerm + 3 * l + 1]) % n);
      CHECK(cells.size() == n);
    }
    CHECK(c[cfg::kStride] % 4 == 0);
    CHECK(c[cfg::kOtherBucket] == runner::bucketCount(cand) - 2);
  }
}

TEST_CASE("candidate values and histogram decoding", "[runner]") {
  auto test = litmus::parseTest(kMP, "MP.litmus");
  auto k = ptxgen::generate(test);
  auto cand = runner::candidateValues(test, k, {"1:r0=7; 1:r1=0;"});
  REQUIRE(cand.size() == 2);
  CHECK(cand[0] == std::vector<int64_t>{0, 1, 2, 5, 7});  // init 5, stored 1 and 2, condition 2, model state 7
  CHECK(cand[1] == std::vector<int64_t>{0, 1, 2, 5});
  const uint64_t states = runner::bucketCount(cand) - 2;
  CHECK(states == 20);
  std::vector<uint64_t> buckets(states + 2, 0);
  buckets[2 * 4 + 0] = 11;  // r0 = cand[0][2] = 2, r1 = cand[1][0] = 0
  buckets[1 * 4 + 1] = 5;   // r0 = 1, r1 = 1
  buckets[states] = 3;      // other
  buckets[states + 1] = 2;  // timed out
  std::vector<uint64_t> samples = {1, 9, 9};
  auto h = runner::decodeHistogram(k, cand, buckets, samples);
  CHECK(h.states.size() == 2);
  CHECK(h.states.at("1:r0=2; 1:r1=0;") == 11);
  CHECK(h.states.at("1:r0=1; 1:r1=1;") == 5);
  CHECK(h.other == 3);
  CHECK(h.timedOut == 2);
  CHECK(h.total() == 21);
  CHECK(h.otherSamples == std::vector<std::string>{"1:r0=9; 1:r1=9;"});
}

TEST_CASE("run results round-trip through JSON (isolated child protocol)", "[runner]") {
  runner::RunResult r;
  r.status = runner::RunResult::Status::TimedOut;
  r.reason = "watchdog";
  r.histogram.states["1:r0=1;"] = 4;
  r.histogram.timedOut = 2;
  r.instances = 6;
  r.seconds = 0.5;
  auto back = runner::runResultFromJson(runner::toJson(r));
  CHECK(back.status == r.status);
  CHECK(back.reason == "watchdog");
  CHECK(back.histogram.states == r.histogram.states);
  CHECK(back.histogram.timedOut == 2);
  CHECK(back.instances == 6);
}

TEST_CASE("without a usable GPU, runs are skipped with a reason", "[runner]") {
  auto info = runner::queryDevice();
  if (info.available) {
    WARN("a GPU is available (" << info.name << "): the no-GPU path is not exercised");
    return;
  }
  CHECK_FALSE(info.error.empty());
  auto test = litmus::parseTest(kMP, "MP.litmus");
  auto k = ptxgen::generate(test);
  auto cand = runner::candidateValues(test, k);
  runner::StressParams p;
  p.iterations = 10;
  auto r = runner::runKernel(k, p, cand);
  CHECK(r.status == runner::RunResult::Status::Skipped);
  CHECK_FALSE(r.reason.empty());
  runner::DeviceInfo d;
  auto ri = runner::runKernelIsolated(k, p, cand, d);
  CHECK(ri.status == runner::RunResult::Status::Skipped);
}
