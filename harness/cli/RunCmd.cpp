// ptxmm run: run litmus tests as PTX stress kernels on the GPU; litmus7-style logs, JSON results and
// the model-vs-hardware comparison (allowed states from the checker).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cat/Model.hpp"
#include "check/Check.hpp"
#include "cli/Commands.hpp"
#include "report/HwReport.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::cli {

namespace {

struct RunArgs {
  std::vector<std::string> paths;
  uint64_t iterations = 0;
  std::string params;
  std::string json;
  std::string model = "ptx";
  std::string arch;
  bool noModel = false;
};

int runRun(const RunArgs& a) {
  report::CampaignOptions opt;
  opt.inputs = a.paths;
  if (!a.params.empty()) {
    std::ifstream f(a.params);
    if (!f) {
      std::cerr << a.params << ": error: cannot read stress parameters\n";
      return kUserError;
    }
    try {
      opt.params = runner::paramsFromJson(nlohmann::json::parse(f));
    } catch (const std::exception& e) {
      std::cerr << a.params << ": error: " << e.what() << "\n";
      return kUserError;
    }
  }
  if (a.iterations > 0) opt.params.iterations = a.iterations;
  opt.jsonOut = a.json;
  opt.archOverride = a.arch;
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
  cmd->add_option("paths", args->paths, "litmus files or directories")->required();
  cmd->add_option("--iterations", args->iterations, "test instances per test (default: params file, else 1e6)");
  cmd->add_option("--params", args->params, "stress parameters (JSON, see docs/hardware/README.md)");
  cmd->add_option("--json", args->json, "write JSON results here");
  cmd->add_option("--model", args->model,
                  "cat model for the model-vs-hardware comparison: a file or a shipped model by name (default ptx)");
  cmd->add_flag("--no-model", args->noModel, "skip the model comparison");
  cmd->add_option("--arch", args->arch, "force the target (sm_90a / sm_100a)")
      ->check(CLI::IsMember({"sm_90a", "sm_100a"}));
  cmd->callback([args, &exitCode] { exitCode = runRun(*args); });
}

}  // namespace ptxmm::cli
