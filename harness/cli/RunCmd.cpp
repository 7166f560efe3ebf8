// ptxmm run: run litmus tests as PTX stress kernels on the GPU; litmus7-style logs, JSON results and
// the model-vs-hardware comparison (allowed states from the checker).
#include <filesystem>
#include <iostream>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "cli/Commands.hpp"
#include "cli/RunOptions.hpp"
#include "report/HwReport.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::cli {

namespace {

struct RunArgs {
  RunOptions run;
  std::string model = "ptx";
  bool noModel = false;
};

int runRun(const RunArgs& a) {
  report::CampaignOptions opt;
  try {
    opt = campaignOptions(a.run);
  } catch (const std::runtime_error& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
  if (!a.noModel) {
    std::string error;
    opt.oracle = checkerOracle(a.model, error);
    if (!opt.oracle) {
      std::cerr << "ptxmm run: " << error << "\n";
      return kUserError;
    }
    opt.modelName = cat::findModel(a.model).stem().string();
  }
  return report::runCampaign(opt, std::cout, std::cerr);
}

}  // namespace

void addRunCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "run litmus tests on the GPU as stress kernels (litmus7-style logs)");
  addRunOptions(cmd, args->run);
  cmd->add_option("--model", args->model,
                  "cat model for the model-vs-hardware comparison: a file or a shipped model by name (default ptx)");
  cmd->add_flag("--no-model", args->noModel, "skip the model comparison");
  cmd->callback([args, &exitCode] { exitCode = runRun(*args); });
}

}  // namespace ptxmm::cli
