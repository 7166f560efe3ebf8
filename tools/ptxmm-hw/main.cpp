// ptxmm-hw: the hardware half of ptxmm as a standalone executable (no checker, no Z3), for GPU
// machines that lack the full build's dependencies. It takes the options of `ptxmm run` (parsed by
// the same code, cli/RunOptions.cpp) less --model / --no-model, plus:
//   --model-states FILE.jsonl  the JSON lines of `ptxmm check --json` (computed where Z3 is
//       available); a test's allowed states are looked up by its hash and compared with the hardware
//       histogram. The hash (herd7's, litmus::testHash) digests the initial state, the code, the
//       placement and the observed locations, which determine the allowed states; tests that share it
//       (same program, other name or condition) share their allowed states too.
//   --emit-ptx DIR  write each test's kernel to DIR/NAME.ptx instead of running.
// `ptxmm-hw campaign ...` is `ptxmm campaign ...` (cli/CampaignCli.cpp: the durable store, resume,
// workers per GPU, tune, coverage, compare, merge, report) without the checker: allowed states come
// from --model-states or from a store planned by `ptxmm campaign run --plan-only --mutants`.
// Prints the litmus7-style log of every test (report::runCampaign); exit codes as `ptxmm run`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "cli/CampaignCli.hpp"
#include "cli/Commands.hpp"
#include "cli/RunOptions.hpp"
#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "ptxgen/Kernel.hpp"
#include "report/HwReport.hpp"

namespace {

using namespace ptxmm;

/// --emit-ptx: every test's kernel as DIR/NAME.ptx.
void emitPtx(const report::CampaignOptions& opt, const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (const auto& file : report::collectLitmusFiles(opt.inputs)) {
    auto pr = litmus::tryParseFile(file);
    if (!pr.ok()) continue;
    try {
      auto k = ptxgen::generate(
          *pr.test, runner::kernelShape(opt.params,
                                        opt.archOverride.empty() ? ptxgen::requiredArch(*pr.test) : opt.archOverride));
      std::ofstream(dir + "/" + pr.test->name + ".ptx") << k.ptx;
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "campaign") {
    CLI::App app{"ptxmm-hw campaign: hardware campaigns on a durable store, without the checker"};
    app.require_subcommand(1);
    int exitCode = cli::kOk;
    cli::CampaignHooks hooks;
    hooks.tool = "ptxmm-hw";
    cli::addCampaignCommand(app, exitCode, hooks);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e) == 0 ? 0 : cli::kUserError;
    }
    return exitCode;
  }
  CLI::App app{"ptxmm-hw: run litmus tests on the GPU as stress kernels (litmus7-style logs), without the checker"};
  cli::RunOptions run;
  std::string modelStates, emitDir;
  cli::addRunOptions(&app, run);
  app.add_option("--model-states", modelStates,
                 "allowed states per test hash: the JSON lines of `ptxmm check --json` (the model comparison)");
  app.add_option("--emit-ptx", emitDir, "write each test's kernel to DIR/NAME.ptx instead of running");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : cli::kUserError;
  }
  report::CampaignOptions opt;
  try {
    opt = cli::campaignOptions(run);
    if (!modelStates.empty()) {
      opt.oracle = cli::modelStatesOracle(modelStates);
    }
  } catch (const std::runtime_error& e) {
    std::cerr << e.what() << "\n";
    return cli::kUserError;
  }
  if (!emitDir.empty()) {
    emitPtx(opt, emitDir);
    return 0;
  }
  return report::runCampaign(opt, std::cout, std::cerr);
}
