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
    std::shared_ptr<cat::Model> model;
    std::filesystem::path modelPath;
    try {
      modelPath = cat::findModel(a.model);
      model = std::make_shared<cat::Model>(cat::loadModel(modelPath));
    } catch (const DiagnosticError& e) {
      std::cerr << "ptxmm run: " << e.what() << "\n";
      return kUserError;
    }
    const std::string name = modelPath.stem().string();
    opt.modelName = name;
    opt.oracle = [model, name](const litmus::Test& test, std::string& error) -> std::optional<report::ModelStates> {
      check::CheckOptions co;
      co.witnesses = false;
      check::Verdict v = check::checkTest(test, *model, name, co);
      if (v.status != check::Status::Ok) {
        error = v.message.empty() ? "the checker could not decide the test" : v.message;
        return std::nullopt;
      }
      report::ModelStates ms;
      ms.model = name;
      for (const auto& s : v.states) ms.allowed.insert(s.key);
      return ms;
    };
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
