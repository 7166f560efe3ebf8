// ptxmm-hw: the hardware half of ptxmm as a standalone executable (no checker, no Z3, no CLI11), for
// GPU machines that lack the full build's dependencies. Usage:
//   ptxmm-hw [--iterations N] [--params FILE.json] [--json OUT] [--arch sm_90a|sm_100a]
//            [--emit-ptx DIR] [--model-states FILE.jsonl] TEST|DIR...
// --model-states: the JSON lines of `ptxmm check --json` (computed where Z3 is available); a test's
// allowed states are looked up by its hash and compared with the hardware histogram. The hash (herd7's,
// litmus::testHash) digests the initial state, the code, the placement and the observed locations,
// which determine the allowed states; tests that share it (same program, other name or condition)
// share their allowed states too.
// Prints the litmus7-style log of every test (report::runCampaign); exit codes as `ptxmm run`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "ptxgen/Kernel.hpp"
#include "report/HwReport.hpp"

int main(int argc, char** argv) {
  ptxmm::report::CampaignOptions opt;
  std::string emitDir;
  bool iterationsGiven = false;
  uint64_t iterations = 0;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error("missing value after " + a);
        return argv[++i];
      };
      if (a == "--iterations") {
        iterations = std::stoull(next());
        iterationsGiven = true;
      } else if (a == "--params") {
        std::ifstream f(next());
        if (!f) throw std::runtime_error("cannot read the --params file");
        opt.params = ptxmm::runner::paramsFromJson(nlohmann::json::parse(f));
      } else if (a == "--json") {
        opt.jsonOut = next();
      } else if (a == "--arch") {
        opt.archOverride = next();
      } else if (a == "--model-states") {
        std::ifstream f(next());
        if (!f) throw std::runtime_error("cannot read the --model-states file");
        auto table = std::make_shared<std::map<std::string, ptxmm::report::ModelStates>>();
        std::string line;
        while (std::getline(f, line)) {
          if (line.empty() || line[0] != '{') continue;
          auto j = nlohmann::json::parse(line, nullptr, false);
          if (j.is_discarded() || !j.contains("hash") || !j.contains("states")) continue;
          if (j.value("status", std::string("done")) != "done") continue;
          ptxmm::report::ModelStates ms;
          ms.model = j.value("model", std::string("model"));
          for (const auto& st : j["states"]) ms.allowed.insert(st.value("state", std::string()));
          (*table)[j["hash"].get<std::string>()] = ms;
        }
        opt.oracle = [table](const ptxmm::litmus::Test& t,
                             std::string& error) -> std::optional<ptxmm::report::ModelStates> {
          auto it = table->find(ptxmm::litmus::testHash(t));
          if (it == table->end()) {
            error = "no model states for this test's hash in --model-states";
            return std::nullopt;
          }
          return it->second;
        };
      } else if (a == "--emit-ptx") {
        emitDir = next();
      } else if (!a.empty() && a[0] == '-') {
        throw std::runtime_error("unknown option " + a);
      } else {
        opt.inputs.push_back(a);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "ptxmm-hw: error: " << e.what() << "\n";
    return 2;
  }
  if (iterationsGiven) opt.params.iterations = iterations;
  if (!emitDir.empty()) {
    std::filesystem::create_directories(emitDir);
    for (const auto& file : ptxmm::report::collectLitmusFiles(opt.inputs)) {
      auto pr = ptxmm::litmus::tryParseFile(file);
      if (!pr.ok()) continue;
      try {
        auto k = ptxmm::ptxgen::generate(
            *pr.test,
            ptxmm::runner::kernelShape(
                opt.params, opt.archOverride.empty() ? ptxmm::ptxgen::requiredArch(*pr.test) : opt.archOverride));
        std::ofstream(emitDir + "/" + pr.test->name + ".ptx") << k.ptx;
      } catch (const std::exception& e) {
        std::cerr << e.what() << "\n";
      }
    }
    return 0;
  }
  return ptxmm::report::runCampaign(opt, std::cout, std::cerr);
}
