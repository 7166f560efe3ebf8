// runner: stress parameters, configuration buffer (permutations are bijections), candidate values,
// histogram decoding, and the no-GPU path (runs are skipped cleanly, never crash).
#include <algorithm>
#include <catch2/catch.hpp>
#include <climits>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include "HwTestSupport.hpp"
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
  CHECK_THROWS_WITH(
      runner::paramsFromJson(nlohmann::json::parse(R"({"stressLineSize": 100, "scratchMemorySize": 64})")),
      Catch::Contains("stressLineSize") && Catch::Contains("scratchMemorySize"));
  CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json::parse("[1]")), Catch::Contains("JSON object"));
}

namespace {

/// An in-range value of `info` other than its default.
uint64_t otherValue(const runner::ParamInfo& info) { return info.def < info.max ? info.def + 1 : info.def - 1; }

}  // namespace

TEST_CASE("stress parameters: every row of StressParams.def round-trips through JSON", "[runner]") {
  const auto& table = runner::paramTable();
  REQUIRE(table.size() == runner::toJson(runner::StressParams{}).size());  // one key per row
  nlohmann::json j = nlohmann::json::object();
  for (const auto& info : table) {
    INFO(info.name);
    CHECK(runner::toJson(runner::StressParams{}).at(info.name).get<uint64_t>() == info.def);
    CHECK(info.min <= info.def);
    CHECK(info.def <= info.max);
    j[info.name] = otherValue(info);
  }
  auto p = runner::paramsFromJson(j);
  CHECK(runner::toJson(p) == j);
  CHECK(runner::toJson(runner::paramsFromJson(runner::toJson(p))) == j);
}

TEST_CASE("stress parameters: unknown keys, wrong types and out-of-range values are errors naming the key",
          "[runner]") {
  for (const auto& info : runner::paramTable()) {
    const std::string key = info.name;
    INFO(key);
    for (const char* bad : {R"("12")", "1.5", "true", "null", "[1]", "{}"})
      CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json{{key, nlohmann::json::parse(bad)}}),
                        Catch::Contains("'" + key + "'") && Catch::Contains("expected an integer"));
    const int64_t below = static_cast<int64_t>(info.min) - 1;  // -1 for a minimum of 0
    CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json{{key, below}}),
                      Catch::Contains("'" + key + "'") && Catch::Contains("out of range"));
    if (info.max < (info.isUnsigned ? UINT64_MAX : static_cast<uint64_t>(INT_MAX)))
      CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json{{key, info.max + 1}}),
                        Catch::Contains("'" + key + "'") && Catch::Contains("out of range"));
    else if (!info.isUnsigned)  // beyond int
      CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json{{key, uint64_t{1} << 40}}),
                        Catch::Contains("'" + key + "'") && Catch::Contains("out of range"));
    CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json{{key + "s", 1}}),
                      Catch::Contains("unknown key '" + key + "s'"));
    CHECK(runner::paramOption(key).rfind("--", 0) == 0);
  }
  CHECK(runner::paramOption("memStressPct") == "--mem-stress-pct");
}

TEST_CASE("stress parameters: the configuration words of StressParams.def are the kernel's (ptxgen::cfg)", "[runner]") {
  auto test = litmus::parseTest(hwtesting::kSharedMP, "MPs.litmus");
  runner::StressParams base;
  base.bankConflictLanes = 4;  // the kernel has bank-conflict lanes: their percentage draws
  auto k = ptxgen::generate(test, runner::kernelShape(base, "sm_90a"));
  REQUIRE(k.bankConflictLanes == 4);
  auto cand = runner::candidateValues(test, k);
  for (const auto& info : runner::paramTable()) {
    if (info.word < 0) continue;
    INFO(info.name);
    CHECK(info.word < ptxgen::cfg::kOtherBucket);  // a scalar word of the buffer
    auto fill = [&](uint64_t v) {
      auto j = runner::toJson(base);
      j[info.name] = v;
      std::mt19937_64 rng(7);
      return runner::buildConfig(k, runner::paramsFromJson(j), 4, cand, rng)[static_cast<size_t>(info.word)];
    };
    if (info.kind == runner::ParamKind::Percent) {  // every other percentage at its default, 100
      CHECK(fill(100) == 1);
      CHECK(fill(0) == 0);
    } else {
      CHECK(fill(info.def) == info.def);
      CHECK(fill(otherValue(info)) == otherValue(info));
    }
  }
  // A gated value is 0 on launches whose percentage did not draw.
  auto j = runner::toJson(base);
  j["memStressPct"] = 0;
  j["preStressPct"] = 0;
  j["bankConflictPct"] = 0;
  std::mt19937_64 rng(7);
  auto c = runner::buildConfig(k, runner::paramsFromJson(j), 4, cand, rng);
  CHECK(c[ptxgen::cfg::kMemIters] == 0);
  CHECK(c[ptxgen::cfg::kPreIters] == 0);
  CHECK(c[ptxgen::cfg::kBankIters] == 0);
  CHECK(c[ptxgen::cfg::kMemPattern] == static_cast<uint64_t>(base.memStressPattern));
}

TEST_CASE("stress parameters: the stored hardware results load", "[runner]") {
  namespace fs = std::filesystem;
  int loaded = 0;
  for (const auto& e : fs::directory_iterator(fs::path(PTXMM_SOURCE_DIR) / "docs" / "hardware")) {
    if (e.path().extension() != ".json") continue;
    INFO(e.path().string());
    std::ifstream f(e.path());
    auto j = nlohmann::json::parse(f);
    const bool paramsFile = e.path().stem().string().ends_with("-params");
    REQUIRE((paramsFile || j.contains("params")));
    const auto& stored = paramsFile ? j : j.at("params");
    auto p = runner::toJson(runner::paramsFromJson(stored));
    for (const auto& [key, value] : stored.items()) CHECK(p.at(key) == value);
    ++loaded;
  }
  CHECK(loaded > 0);
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

namespace {

using ptxmm::hwtesting::kSharedMP;

const char* kSurface = R"(PTX SUR
{ flag = 0; x = 0; s @ surface aliases x }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0 ;
 sust.weak s, 42        | ld.acquire.gpu r0, flag ;
 st.release.gpu flag, 1 | ld.weak r1, x ;
exists (1:r0 == 1 /\ 1:r1 != 42)
)";

}  // namespace

TEST_CASE("bank-conflict parameters: JSON, validation, kernel shape, configuration buffer", "[runner]") {
  auto p = runner::paramsFromJson(nlohmann::json::parse(
      R"({"bankConflictLanes": 8, "bankConflictPct": 50, "bankConflictIterations": 200, "bankConflictPattern": 2})"));
  CHECK(p.bankConflictLanes == 8);
  CHECK(p.bankConflictPct == 50);
  CHECK(p.bankConflictIterations == 200);
  CHECK(p.bankConflictPattern == 2);
  auto back = runner::paramsFromJson(runner::toJson(p));  // recorded in the JSON results as is
  CHECK(back.bankConflictLanes == 8);
  CHECK(back.bankConflictPct == 50);
  CHECK(back.bankConflictIterations == 200);
  CHECK(back.bankConflictPattern == 2);
  runner::StressParams defaults;
  CHECK(defaults.bankConflictLanes == 0);  // off unless asked for
  CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json::parse(R"({"bankConflictLanes": 33})")),
                    Catch::Contains("bankConflictLanes"));
  CHECK_THROWS_WITH(runner::paramsFromJson(nlohmann::json::parse(R"({"bankConflictPattern": 4})")),
                    Catch::Contains("bankConflictPattern"));

  auto shape = runner::kernelShape(p, "sm_90a");
  CHECK(shape.bankConflictLanes == 8);
  CHECK(shape.arch == "sm_90a");
  auto test = litmus::parseTest(kSharedMP, "MPs.litmus");
  auto k = ptxgen::generate(test, shape);
  REQUIRE(k.bankConflictLanes == 8);
  auto cand = runner::candidateValues(test, k);
  namespace cfg = ptxgen::cfg;
  std::mt19937_64 rng(3);
  int on = 0, offLaunches = 0;
  for (int i = 0; i < 200; ++i) {
    auto c = runner::buildConfig(k, p, 4, cand, rng);
    CHECK(c[cfg::kBankPattern] == 2);
    if (c[cfg::kBankIters] == 200)
      ++on;
    else if (c[cfg::kBankIters] == 0)
      ++offLaunches;
  }
  CHECK(on + offLaunches == 200);
  CHECK(on > 50);  // bankConflictPct 50: about half of the launches
  CHECK(offLaunches > 50);

  // Without bank-conflict lanes in the kernel the percentage draws nothing: same shuffles as before.
  auto plain = ptxgen::generate(test);
  runner::StressParams q;
  runner::StressParams q2 = q;
  q2.bankConflictPct = 0;
  std::mt19937_64 r1(9), r2(9);
  auto c1 = runner::buildConfig(plain, q, 4, cand, r1);
  auto c2 = runner::buildConfig(plain, q2, 4, cand, r2);
  CHECK(c1 == c2);
  CHECK(c1[cfg::kBankIters] == 0);
}

TEST_CASE("regions of surface-bound locations are whole surface arrays", "[runner]") {
  auto test = litmus::parseTest(kSurface, "SUR.litmus");
  auto k = ptxgen::generate(test);
  REQUIRE(k.surfaceMap);
  runner::StressParams p;
  const uint64_t stride = runner::cellStride(k, p);
  CHECK(stride == 64);
  const uint64_t n = 67584;
  const uint64_t region = runner::regionBytes(k, n, stride);
  CHECK(region % ptxgen::surf::kRegionAlign == 0);
  CHECK(region >= n * stride);
  CHECK(region < n * stride + ptxgen::surf::kRegionAlign);
  CHECK(region / (ptxgen::surf::kArrayWidth * 4) % ptxgen::surf::kRowAlign == 0);
  auto plain = ptxgen::generate(litmus::parseTest(kMP, "MP.litmus"));
  CHECK(runner::regionBytes(plain, 10, 64) == 4096);
  // buildConfig places location l at l * region.
  auto cand = runner::candidateValues(test, k);
  std::mt19937_64 rng(1);
  auto c = runner::buildConfig(k, p, n / static_cast<uint64_t>(k.slotsPerCta), cand, rng);
  CHECK(c[ptxgen::cfg::kLocPerm + 3 * 1 + 2] == runner::regionBytes(k, c[ptxgen::cfg::kInstances], stride));
}

TEST_CASE("surface map: coordinates of each cell from the array's discovered layout", "[runner]") {
  const uint64_t width = ptxgen::surf::kArrayWidth;
  const uint64_t rows = 4, elements = width * rows;
  // A block-linear-like layout: 16-byte chunks of a row scattered (a fixed permutation of the chunks).
  std::vector<uint32_t> chunkOrder(elements / 4);
  std::iota(chunkOrder.begin(), chunkOrder.end(), 0u);
  std::shuffle(chunkOrder.begin(), chunkOrder.end(), std::mt19937(5));
  std::vector<uint32_t> layout(elements);
  for (uint64_t chunk = 0; chunk < elements / 4; ++chunk)
    for (uint64_t i = 0; i < 4; ++i) layout[chunkOrder[chunk] * 4 + i] = static_cast<uint32_t>(chunk * 4 + i + 1);
  const uint64_t n = 100, stride = 64;
  std::string error;
  auto map = runner::surfaceMap(layout, n, stride, error);
  INFO(error);
  REQUIRE(map.size() == 2 * n);
  for (uint64_t c = 0; c < n; ++c) {
    const uint32_t x = map[2 * c], y = map[2 * c + 1];
    CHECK(x % 4 == 0);
    CHECK(x / 4 < width);
    CHECK(y < rows);
    // The element at (x, y) is the one stored at the cell's word.
    CHECK(layout[c * stride / 4] == y * width + x / 4 + 1);
  }
  // Not a bijection: a word no element maps to, or an element stored twice; cells beyond the array.
  auto hole = layout;
  hole[7] = 0;
  CHECK(runner::surfaceMap(hole, n, stride, error).empty());
  CHECK_THAT(error, Catch::Contains("word 7 holds no array element"));
  auto twice = layout;
  twice[9] = twice[8];
  CHECK(runner::surfaceMap(twice, n, stride, error).empty());
  CHECK_THAT(error, Catch::Contains("repeats element"));
  CHECK(runner::surfaceMap(layout, elements, stride, error).empty());
  CHECK_THAT(error, Catch::Contains("fewer than"));
}

TEST_CASE("tensor maps: cuTensorMapEncodeTiled arguments of each rank meet the driver's requirements",
          "[runner][tensormap]") {
  for (int rank = 1; rank <= 5; ++rank) {
    INFO("rank " << rank);
    ptxgen::TensorMapSpec spec{0, rank, {1, 2}, 0};
    const auto a = runner::encodeArgs(spec, 0x7f0000001230);
    CHECK(a.rank == static_cast<uint32_t>(rank));
    CHECK(a.globalAddress == 0x7f0000001230);
    CHECK(a.elementBytes == 4);
    // One box: 4 u32 elements in dimension 0, 1 in the others, packed 16-byte rows.
    CHECK(a.globalDim[0] == 4);
    CHECK(a.boxDim[0] == 4);
    uint64_t boxBytes = a.boxDim[0] * a.elementBytes;
    for (int d = 1; d < rank; ++d) {
      CHECK(a.globalDim[static_cast<size_t>(d)] == 1);
      CHECK(a.boxDim[static_cast<size_t>(d)] == 1);
      CHECK(a.globalStrides[static_cast<size_t>(d - 1)] == 16);
      boxBytes *= a.boxDim[static_cast<size_t>(d)];
    }
    for (int d = 0; d < rank; ++d) CHECK(a.elementStrides[static_cast<size_t>(d)] == 1);
    CHECK(boxBytes == static_cast<uint64_t>(ptxgen::tmap::kBoxBytes));  // the litmus complete-tx count
    CHECK(runner::checkEncodeArgs(a).empty());
  }
}

TEST_CASE("tensor maps: each broken requirement of cuTensorMapEncodeTiled is named", "[runner][tensormap]") {
  const ptxgen::TensorMapSpec spec{0, 2, {1}, 0};
  const auto good = runner::encodeArgs(spec, 4096);
  auto broken = [&](auto edit) {
    auto a = good;
    edit(a);
    return runner::checkEncodeArgs(a);
  };
  using Catch::Contains;
  using A = runner::TensorEncodeArgs;
  CHECK_THAT(broken([](A& a) { a.rank = 0; }), Contains("tensorRank 0 is not in 1..5"));
  CHECK_THAT(broken([](A& a) { a.rank = 6; }), Contains("tensorRank 6"));
  CHECK_THAT(broken([](A& a) { a.globalAddress += 8; }), Contains("not 16-byte aligned"));
  CHECK_THAT(broken([](A& a) { a.globalDim[1] = 0; }), Contains("globalDim[1] = 0 is not in 1..2^32"));
  CHECK_THAT(broken([](A& a) { a.globalDim[1] = (uint64_t{1} << 32) + 1; }), Contains("globalDim[1]"));
  CHECK_THAT(broken([](A& a) { a.globalStrides[0] = 24; }), Contains("globalStrides[0] = 24 is not a multiple of 16"));
  CHECK_THAT(broken([](A& a) { a.globalStrides[0] = uint64_t{1} << 40; }), Contains("is not below 2^40"));
  CHECK_THAT(broken([](A& a) { a.globalDim[0] = 8; }), Contains("globalStrides[0] = 16 is smaller than dimension 0"));
  CHECK_THAT(broken([](A& a) { a.boxDim[1] = 0; }), Contains("boxDim[1] = 0 is not in 1..256"));
  CHECK_THAT(broken([](A& a) {
               a.globalDim[0] = 1024;
               a.globalStrides[0] = 4096;
               a.boxDim[0] = 257;
             }),
             Contains("boxDim[0] = 257 is not in 1..256"));
  CHECK_THAT(broken([](A& a) { a.boxDim[0] = 5; }), Contains("exceeds globalDim[0]"));
  CHECK_THAT(broken([](A& a) { a.boxDim[0] = 2; }), Contains("not a multiple of 16"));
  CHECK_THAT(broken([](A& a) { a.elementStrides[1] = 9; }), Contains("elementStrides[1] = 9 is not in 1..8"));
  CHECK_THAT(broken([](A& a) { a.elementStrides[0] = 0; }), Contains("elementStrides[0] = 0"));
}

TEST_CASE("tensor maps: the tensor buffer holds each version's box at the record layout of ptxgen::tmap",
          "[runner][tensormap]") {
  auto test = litmus::parseTest(R"(PTX TB
{ .global a = 1; .global b = 5; .shared X = 0; .shared Y = 0; .mbarrier bar = 1; }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.global_address.global.b1024.b64 [a], 300;
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 32;
    cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [X], [a, {0}], [bar];
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [Y], [b, {0, 0}], [bar];
exists (X == 1)
)",
                                "TB.litmus");
  auto k = ptxgen::generate(test);
  REQUIRE(k.tensorMaps.size() == 2);
  CHECK(k.tensorMaps[0].versions == std::vector<int64_t>{1, 300});
  CHECK(k.tensorMaps[1].versions == std::vector<int64_t>{5});
  CHECK(k.tensorMaps[1].firstSlot == 2);
  CHECK(k.tensorMaps[1].rank == 2);
  REQUIRE(k.tensorSlots == 3);
  const uint64_t rec = ptxgen::tmap::recordBytes(3);
  CHECK(rec % 128 == 0);
  const auto image = runner::tensorBufferImage(k, 4);
  REQUIRE(image.size() == 4 * rec);
  auto word = [&](uint64_t at) {
    uint64_t v = 0;
    for (int b = 7; b >= 0; --b) v = v << 8 | image[at + static_cast<uint64_t>(b)];
    return v;
  };
  for (uint64_t c = 0; c < 4; ++c) {
    CHECK(word(c * rec + ptxgen::tmap::boxOffset(3, 0)) == 1);
    CHECK(word(c * rec + ptxgen::tmap::boxOffset(3, 1)) == 300);
    CHECK(word(c * rec + ptxgen::tmap::boxOffset(3, 2)) == 5);
    CHECK(word(c * rec + ptxgen::tmap::boxOffset(3, 2) + 8) == 0);
    CHECK(word(c * rec + ptxgen::tmap::mapOffset(0)) == 0);  // maps: encoded on the device machine
  }
  // Every map of every cell is 64-byte aligned and every box 16-byte aligned at an aligned base.
  const uint64_t base = 1 << 20;
  for (uint64_t c = 0; c < 4; ++c)
    for (int slot = 0; slot < 3; ++slot) {
      CHECK((base + c * rec + ptxgen::tmap::mapOffset(slot)) % ptxgen::tmap::kMapAlign == 0);
      const uint64_t box = runner::boxAddress(k, base, c, slot);
      CHECK(box % 16 == 0);
      CHECK(runner::checkEncodeArgs(runner::encodeArgs(k.tensorMaps[slot < 2 ? 0 : 1], box)).empty());
    }
  const auto j = runner::tensorMapsJson(k);
  REQUIRE(j.size() == 2);
  CHECK(j[0]["location"] == "a");
  CHECK(j[0]["versions"] == nlohmann::json::array({1, 300}));
  CHECK(j[1]["globalDim"] == nlohmann::json::array({4, 1}));
  CHECK(j[1]["boxDim"] == nlohmann::json::array({4, 1}));
  CHECK(j[1]["elementType"] == "u32");
}

TEST_CASE("tensor maps: a map written through locates its tensor location's cell of the same index",
          "[runner][tensormap]") {
  auto test = litmus::parseTest(R"(PTX TW
{ .shared X = 0; .global tmap = 1; .global other = 0; .global tmap_tensor = 0 }
P0@cta 0,cluster 0,gpu 0:
    st.shared::cta.u32 [X], 1;
    fence.proxy.async.shared::cta;
    cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [tmap, {0}], [X];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
    ld.global.u32 r0, [tmap_tensor];
    st.global.u32 [other], 1;
exists (0:r0 == 0)
)",
                                "TW.litmus");
  auto k = ptxgen::generate(test);
  REQUIRE(k.tensorMaps.size() == 1);
  const auto& spec = k.tensorMaps[0];
  REQUIRE(spec.tensorLoc == 2);
  runner::StressParams p;  // shuffled locations by default
  std::mt19937_64 rng(7);
  const uint64_t columns = 9;
  for (int launch = 0; launch < 20; ++launch) {
    const auto c = runner::buildConfig(k, p, columns, runner::candidateValues(test, k), rng);
    using ptxgen::cfg::kLocPerm;
    CHECK(c[kLocPerm + 3 * 2] == c[kLocPerm + 3 * spec.globalLoc]);
    CHECK(c[kLocPerm + 3 * 2 + 1] == c[kLocPerm + 3 * spec.globalLoc + 1]);
    CHECK(c[kLocPerm + 3 * 2 + 2] == 2 * c[kLocPerm + 3 * 1 + 2]);  // its own region
  }
  const runner::CellLayout layout{1 << 20, 1 << 16, 128};
  CHECK(runner::mapTarget(k, spec, spec.firstSlot, 5, 1 << 24, layout) == (1 << 20) + 2 * (1 << 16) + 5 * 128);
  CHECK(runner::checkEncodeArgs(runner::encodeArgs(spec, runner::mapTarget(k, spec, 0, 5, 1 << 24, layout))).empty());
  CHECK(runner::tensorMapsJson(k)[0]["tensor"] == "tmap_tensor");
}

TEST_CASE("programmatic dependent launch: the two grids of a launch and their counters", "[runner][warp]") {
  // Grid 0: a cluster of two CTAs and a lone CTA; grid 1: one CTA.
  auto test = litmus::parseTest(R"(PTX GDC
{ x = 0; }
P0@cta 0,cluster 0:
    st.relaxed.gpu.global.u32 [x], 1;
    griddepcontrol.launch_dependents;
P1@cta 1,cluster 0:
    ld.relaxed.gpu.global.u32 r0, [x];
P2@cta 2,cluster 2:
    ld.relaxed.gpu.global.u32 r0, [x];
P3@cta 3,cluster 3,grid 1:
    griddepcontrol.wait;
    ld.relaxed.gpu.global.u32 r0, [x];
exists (3:r0 == 0)
)",
                                "GDC.litmus");
  auto k = ptxgen::generate(test);
  REQUIRE(k.dependentEntry == "ptxmm_dependent");
  REQUIRE(k.roles == 3);
  REQUIRE(k.primaryRoles == 2);
  REQUIRE(k.clustered);
  REQUIRE(k.clusterDim == 2);
  REQUIRE(k.slotsPerCta == 1);
  const uint64_t columns = 7;
  const auto g = runner::launchGrids(k, columns);
  CHECK(g.primaryCtas == columns * 2 * 2);    // two roles, clusters of two CTAs
  CHECK(g.dependentCtas == columns * 1 * 2);  // one role (same cluster shape)
  CHECK(g.counterWords == 3 * columns);       // start, done, dependent start per instance
  // Each kernel's GPU clusters cover each of its roles' columns exactly once (role = base + gcl % count).
  for (int grid = 0; grid < 2; ++grid) {
    const uint64_t base = grid == 0 ? 0 : static_cast<uint64_t>(k.primaryRoles);
    const uint64_t count = grid == 0 ? static_cast<uint64_t>(k.primaryRoles) : k.roles - base;
    std::set<std::pair<uint64_t, uint64_t>> seen;
    for (uint64_t gcl = 0; gcl < (grid == 0 ? g.primaryCtas : g.dependentCtas) / 2; ++gcl)
      seen.insert({base + gcl % count, gcl / count});
    CHECK(seen.size() == count * columns);
    for (const auto& [role, q] : seen) CHECK(q < columns);
  }
  // Without a dependent grid: one kernel, every role, two counters per instance.
  auto mp = ptxgen::generate(litmus::parseTest(kMP, "MP.litmus"));
  const auto g1 = runner::launchGrids(mp, columns);
  CHECK(mp.dependentEntry.empty());
  CHECK(g1.primaryCtas == columns * 2);
  CHECK(g1.dependentCtas == 0);
  CHECK(g1.counterWords == 2 * columns * static_cast<uint64_t>(mp.slotsPerCta));
}

TEST_CASE("tensor maps: the shared source of tensormap.cp_fenceproxy has its own version's map and box",
          "[runner][tensormap]") {
  auto test = litmus::parseTest(R"(PTX CPF
{ .global tmap = 1; .shared S = 0; .shared X = 0; .mbarrier bar = 1 }
P0@cta 0,cluster 0,gpu 0:
    tensormap.replace.tile.global_address.shared::cta.b1024.b64 [S], 2;
    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned [tmap], [S], 128;
    fence.proxy.tensormap::generic.acquire.cta [tmap], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], 16;
    cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes [X], [tmap, {0}], [bar];
exists (X == 1)
)",
                                "CPF.litmus");
  auto k = ptxgen::generate(test);
  REQUIRE(k.tensorMaps.size() == 1);
  REQUIRE(k.tensorMaps[0].versions == std::vector<int64_t>{1, 0, 2});
  const uint64_t rec = ptxgen::tmap::recordBytes(k.tensorSlots);
  const auto image = runner::tensorBufferImage(k, 3);
  auto word = [&](uint64_t at) {
    uint64_t v = 0;
    for (int b = 7; b >= 0; --b) v = v << 8 | image[at + static_cast<uint64_t>(b)];
    return v;
  };
  for (uint64_t c = 0; c < 3; ++c)
    for (int slot = 0; slot < 3; ++slot) {
      CHECK(word(c * rec + ptxgen::tmap::boxOffset(3, slot)) == static_cast<uint64_t>(k.tensorMaps[0].versions[slot]));
      CHECK(runner::checkEncodeArgs(runner::encodeArgs(k.tensorMaps[0], runner::boxAddress(k, 1 << 20, c, slot)))
                .empty());
    }
  CHECK(runner::tensorMapsJson(k)[0]["sharedSources"] == nlohmann::json::array({"S"}));
}
