// The options `ptxmm run` and `ptxmm-hw` share.
#include "cli/RunOptions.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "runner/StressParams.hpp"

namespace ptxmm::cli {

void addRunOptions(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("paths", o.paths, "litmus files or directories")->required();
  cmd->add_option("--params", o.paramsFile,
                  "stress parameters (JSON, see docs/hardware/README.md); the options below override them");
  for (const runner::ParamInfo& info : runner::paramTable()) {
    const std::string key = info.name;
    CLI::Validator inRange(
        [key](std::string& s) -> std::string {
          const auto value = nlohmann::json::parse(s, nullptr, false);
          try {
            runner::StressParams scratch;
            runner::setParam(scratch, key, value.is_discarded() ? nlohmann::json(s) : value);
          } catch (const std::runtime_error& e) {
            return e.what();
          }
          return "";
        },
        "");
    cmd->add_option_function<std::string>(
           runner::paramOption(key),
           [&o, key](const std::string& s) { o.overrides.emplace_back(key, nlohmann::json::parse(s)); },
           std::string(info.doc) + " (" + key + ", default " + std::to_string(info.def) + ")")
        ->type_name("INT")
        ->check(inRange)
        ->group(kStressGroup);
  }
  cmd->add_option("--json", o.json, "write JSON results here");
  cmd->add_option("--arch", o.arch, "force the target (sm_90a / sm_100a)")->check(CLI::IsMember({"sm_90a", "sm_100a"}));
  cmd->add_option("--kernel-ptx", o.kernelPtx,
                  "diagnosing the stress kernel: run this PTX module instead of the generated one (start from "
                  "`ptxmm gen`'s output of the one test given; the log and the JSON say so)")
      ->check(CLI::ExistingFile);
}

report::CampaignOptions campaignOptions(const RunOptions& o) {
  report::CampaignOptions opt;
  opt.inputs = o.paths;
  const std::string where = o.paramsFile.empty() ? "stress options" : o.paramsFile;
  try {
    if (!o.paramsFile.empty()) {
      std::ifstream f(o.paramsFile);
      if (!f) throw std::runtime_error("cannot read stress parameters");
      opt.params = runner::paramsFromJson(nlohmann::json::parse(f));
    }
    for (const auto& [key, value] : o.overrides) runner::setParam(opt.params, key, value);
    runner::checkParams(opt.params);
  } catch (const std::exception& e) {
    throw std::runtime_error(where + ": error: " + e.what());
  }
  opt.jsonOut = o.json;
  opt.archOverride = o.arch;
  if (!o.kernelPtx.empty()) {
    std::ifstream f(o.kernelPtx);
    std::ostringstream text;
    text << f.rdbuf();
    if (!f) throw std::runtime_error(o.kernelPtx + ": error: cannot read the PTX module");
    opt.kernelPtxFile = o.kernelPtx;
    opt.kernelPtx = text.str();
  }
  return opt;
}

}  // namespace ptxmm::cli
