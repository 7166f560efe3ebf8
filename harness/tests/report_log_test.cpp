// report: litmus7-style logs, condition counts, model-vs-hardware comparison, campaign exit codes.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "report/HwReport.hpp"

using namespace ptxmm;

namespace {

const char* kMP = R"(PTX MP
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r0, y  ;
 st.weak y, 1   | ld.weak r1, x  ;
exists (1:r0 == 1 /\ 1:r1 == 0)
)";

runner::RunResult sample() {
  runner::RunResult r;
  r.status = runner::RunResult::Status::Ok;
  r.histogram.states = {{"1:r0=0; 1:r1=0;", 500}, {"1:r0=1; 1:r1=0;", 40}, {"1:r0=1; 1:r1=1;", 460}};
  r.instances = 1000;
  r.seconds = 0.25;
  return r;
}

}  // namespace

TEST_CASE("litmus7 log format", "[report]") {
  auto test = litmus::parseTest(kMP, "MP.litmus");
  std::ostringstream os;
  report::printLog(os, test, sample());
  const std::string log = os.str();
  CHECK(log.find("Test MP Allowed\nHistogram (3 states)\n") == 0);
  CHECK(log.find("40    *>1:r0=1; 1:r1=0;\n") != std::string::npos);
  CHECK(log.find("500   :>1:r0=0; 1:r1=0;\n") != std::string::npos);
  CHECK(log.find("\nOk\n\nWitnesses\nPositive: 40, Negative: 960\n") != std::string::npos);
  CHECK(log.find("is validated\n") != std::string::npos);
  CHECK(log.find("Hash=" + litmus::testHash(test) + "\n") != std::string::npos);
  CHECK(log.find("Observation MP Sometimes 40 960\n") != std::string::npos);
  CHECK(log.find("Time MP 0.25\n") != std::string::npos);
}

TEST_CASE("condition counts follow litmus7 for exists, ~exists and forall", "[report]") {
  auto test = litmus::parseTest(kMP, "MP.litmus");
  auto c = report::conditionCounts(test, sample().histogram);
  CHECK(c.ok);
  CHECK(c.observation == "Sometimes");
  test.condition.quant = litmus::Condition::Quant::NotExists;
  CHECK_FALSE(report::conditionCounts(test, sample().histogram).ok);
  test.condition.quant = litmus::Condition::Quant::Forall;
  CHECK_FALSE(report::conditionCounts(test, sample().histogram).ok);
  runner::Histogram never;
  never.states["1:r0=0; 1:r1=0;"] = 10;
  test.condition.quant = litmus::Condition::Quant::Exists;
  auto n = report::conditionCounts(test, never);
  CHECK_FALSE(n.ok);
  CHECK(n.observation == "Never");
}

TEST_CASE("model comparison flags forbidden-and-seen states loudly", "[report]") {
  auto h = sample().histogram;
  std::set<std::string> allowed = {"1:r0=0; 1:r1=0;", "1:r0=1; 1:r1=1;", "1:r0=0; 1:r1=1;"};
  auto c = report::compare(h, allowed);
  CHECK(c.forbiddenSeen == 1);
  CHECK(c.allowedNeverSeen == 1);
  CHECK(c.rows.size() == 4);
  std::ostringstream os;
  report::printComparison(os, "MP", "ptx", c);
  CHECK(os.str().find("FORBIDDEN & SEEN") != std::string::npos);
  CHECK(os.str().find("allowed & never seen") != std::string::npos);
  allowed.insert("1:r0=1; 1:r1=0;");
  CHECK(report::compare(h, allowed).forbiddenSeen == 0);
}

TEST_CASE("campaign: bad input is exit 2, no GPU is exit 4 with JSON written", "[report]") {
  std::ostringstream out, err;
  report::CampaignOptions opt;
  opt.inputs = {"/nonexistent/file.litmus"};
  CHECK(report::runCampaign(opt, out, err) == 2);
  CHECK(err.str().find("file.litmus") != std::string::npos);

  auto info = runner::queryDevice();
  if (info.available) {
    WARN("a GPU is available: the no-GPU campaign path is not exercised");
    return;
  }
  const auto dir = std::filesystem::temp_directory_path() / "ptxmm_report_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "MP.litmus") << kMP;
  report::CampaignOptions o2;
  o2.inputs = {dir.string()};
  o2.jsonOut = (dir / "out.json").string();
  o2.params.iterations = 10;
  std::ostringstream out2, err2;
  CHECK(report::runCampaign(o2, out2, err2) == 4);
  CHECK(out2.str().find("Test MP skipped") != std::string::npos);
  std::ifstream j(o2.jsonOut);
  auto doc = nlohmann::json::parse(j);
  CHECK(doc["results"][0]["status"] == "skipped");
  CHECK(doc["results"][0]["hash"].get<std::string>().size() == 32);
  std::filesystem::remove_all(dir);
}
