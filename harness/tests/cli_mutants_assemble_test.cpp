// What the analyses make of a suite test is still a valid kernel: every weakened mutant of `ptxmm fences`
// (an mbarrier arrive/wait or a cluster arrive made .relaxed) of the async, CLC, bug and seed tests that
// run on hardware generates and assembles with ptxas, as the tests themselves do (ptxgen_assemble_test.cpp). Removal
// mutants only delete instructions. The repairs of `ptxmm fences --repair` are assembled in
// cli_repair_test.cpp.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/FenceNecessity.hpp"
#include "litmus/Parser.hpp"
#include "ptxgen/Assemble.hpp"
#include "ptxgen/Kernel.hpp"

using namespace ptxmm;
namespace fs = std::filesystem;

TEST_CASE("every weakened fences mutant of the async-proxy tests assembles", "[cli][fences][ptxas]") {
  if (!ptxgen::findCudaTool("ptxas")) {
    WARN("ptxas not found: skipped");
    return;
  }
  std::vector<std::string> files;
  for (const char* dir : {"async", "clc", "bugs", "seeds"})
    for (const auto& e : fs::directory_iterator(fs::path(PTXMM_SOURCE_DIR) / "litmus" / dir))
      if (e.path().extension() == ".litmus") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  int mutants = 0;
  std::vector<std::string> failures;
  for (const auto& f : files) {
    auto pr = litmus::tryParseFile(f);
    if (!pr.ok()) continue;
    try {  // a test that cannot run on hardware (tensor maps, mixed-proxy fences) has no kernel to mutate
      ptxgen::GenOptions o;
      o.arch = ptxgen::requiredArch(*pr.test);
      (void)ptxgen::generate(*pr.test, o);
    } catch (const DiagnosticError&) {
      continue;
    }
    for (const auto& site : analysis::findSyncSites(*pr.test)) {
      if (site.kind != analysis::MutationKind::WeakenToRelaxed) continue;
      litmus::Test m = analysis::applyMutation(*pr.test, site);
      ptxgen::GenOptions o;
      o.arch = ptxgen::requiredArch(m);
      ptxgen::Kernel k;
      try {
        k = ptxgen::generate(m, o);
      } catch (const DiagnosticError& e) {
        failures.push_back(f + " " + site.label + ": " + e.diagnostic().str());
        continue;
      }
      auto r = ptxgen::assemble(k.ptx, o.arch);
      ++mutants;
      if (!r.ok) failures.push_back(f + " " + site.label + ": " + r.diagnostics);
    }
  }
  INFO(mutants << " weakened mutants");
  for (const auto& fl : failures) UNSCOPED_INFO(fl);
  CHECK(failures.empty());
  CHECK(mutants > 20);
}
