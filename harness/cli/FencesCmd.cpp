// ptxmm fences: fence-necessity analysis of litmus tests (which fences, proxy fences, barriers and
// waits are necessary under each model), and with --axiom-coverage the model mutation check (which
// tests change verdict when a named check or proxy-fence rule is removed from the model).

#include <algorithm>
#include <fstream>
#include <iostream>
#include <mutex>

#include "analysis/FenceNecessity.hpp"
#include "analysis/ModelMutation.hpp"
#include "analysis/Repair.hpp"
#include "cat/Model.hpp"
#include "check/Checker.hpp"
#include "check/Suite.hpp"
#include "cli/Commands.hpp"
#include "cli/Options.hpp"
#include "litmus/Parser.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::cli {

namespace {

struct FencesArgs {
  std::vector<std::string> models;
  std::string engine = "smt";
  int unroll = 2;
  BudgetArgs budget;
  int maxEvents = 1000;
  std::string dotDir;
  std::string pictureBase;
  bool markdown = false;
  bool axiomCoverage = false;
  bool repair = false;
  int maxEdits = 2;
  int maxCost = 8;
  size_t maxChecks = 5000;
  std::string repairDir;
  std::vector<std::string> prefixes;
  std::vector<std::string> only;
  int perRule = 5;
  int maxTries = 0;
  int jobs = 1;
  std::string output;
  std::vector<std::string> paths;
};

/// The per-check options both modes share (engine, unrolling, budget, size limit).
check::CheckOptions checkOptions(const FencesArgs& a) {
  check::CheckOptions c;
  c.engine = *check::parseEngine(a.engine);
  c.unroll = a.unroll;
  c.timeoutMs = a.budget.timeoutMs;
  c.memoryBytes = a.budget.memoryLimit(a.jobs);
  a.budget.limitSolverMemory(a.jobs);
  c.maxEvents = a.maxEvents;
  return c;
}

/// The test at `path`, or its diagnostics printed to stderr (then the result is not ok()).
litmus::ParseResult parseOrReport(const std::filesystem::path& path) {
  auto parsed = litmus::tryParseFile(path.string());
  if (!parsed.ok()) {
    for (const auto& d : parsed.diagnostics) std::cerr << d.str() << "\n";
    if (parsed.diagnostics.empty()) std::cerr << path.string() << ": error: cannot parse\n";
  }
  return parsed;
}

/// The models given (default: ptx and every shipped variant); false after printing why they cannot be loaded.
bool loadModels(const FencesArgs& a, std::vector<analysis::NamedModel>& models) {
  try {
    std::vector<std::filesystem::path> modelPaths;
    for (const auto& m : a.models) modelPaths.push_back(cat::findModel(m));
    if (modelPaths.empty()) modelPaths = analysis::defaultModelPaths(cat::findModel("ptx").parent_path());
    models = analysis::loadModels(modelPaths);
    return true;
  } catch (const DiagnosticError& e) {
    std::cerr << "ptxmm fences: " << e.what() << "\n";
    return false;
  }
}

int runFences(const FencesArgs& a, std::ostream& out) {
  std::vector<analysis::NamedModel> models;
  if (!loadModels(a, models)) return kUserError;
  analysis::FenceOptions fo;
  fo.check = checkOptions(a);
  fo.jobs = a.jobs;
  int rc = kOk;
  check::Checker checker;  // one context for every test
  for (const auto& path : check::collectTests(a.paths)) {
    auto parsed = parseOrReport(path);
    if (!parsed.ok()) {
      rc = kUserError;
      continue;
    }
    analysis::FenceReport rep = analysis::fenceNecessity(*parsed.test, models, fo, &checker);
    // A check that could not be decided (timeout, memory, a cap) leaves the analysis incomplete: a failure.
    for (const auto& m : rep.models) {
      if (m.original.status != check::Status::Ok) rc = std::max(rc, static_cast<int>(kMismatch));
      if (m.original.internalError) rc = kInternal;
      for (const auto& s : m.sites) {
        if (s.mutant.status != check::Status::Ok) rc = std::max(rc, static_cast<int>(kMismatch));
        if (s.mutant.internalError) rc = kInternal;
      }
    }
    analysis::WitnessFiles files;
    if (!a.dotDir.empty()) {
      try {
        files = analysis::writeWitnesses(rep, a.dotDir, /*svg=*/true, /*firstModelOnly=*/a.markdown);
        for (const auto& e : files.errors) std::cerr << "ptxmm fences: warning: " << e << "\n";
      } catch (const std::runtime_error& e) {
        std::cerr << "ptxmm fences: error: " << e.what() << "\n";
        return kUserError;
      }
    }
    if (a.markdown)
      analysis::printMarkdown(rep, out, a.dotDir.empty() ? nullptr : &files,
                              a.pictureBase.empty() ? a.dotDir : a.pictureBase);
    else
      analysis::printText(rep, out, a.dotDir.empty() ? nullptr : &files);
    out.flush();
  }
  return rc;
}

/// The file a repaired test is written to: DIR/<test>.repair<N>.litmus.
std::filesystem::path repairFile(const std::string& dir, const std::string& test, size_t n) {
  std::string safe;
  for (char c : test)
    safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return std::filesystem::path(dir) / (safe + ".repair" + std::to_string(n) + ".litmus");
}

int runRepair(const FencesArgs& a, std::ostream& out) {
  std::vector<analysis::NamedModel> models;
  if (!loadModels(a, models)) return kUserError;
  analysis::RepairOptions ro;
  ro.check = checkOptions(a);
  ro.jobs = a.jobs;
  ro.maxEdits = a.maxEdits;
  ro.maxCost = a.maxCost;
  ro.maxChecks = a.maxChecks;
  if (!a.repairDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.repairDir, ec);
    if (ec) {
      std::cerr << "ptxmm fences: error: cannot create '" << a.repairDir << "': " << ec.message() << "\n";
      return kUserError;
    }
  }
  int rc = kOk;
  bool first = true;
  for (const auto& path : check::collectTests(a.paths)) {
    auto parsed = parseOrReport(path);
    if (!parsed.ok()) {
      rc = kUserError;
      continue;
    }
    analysis::RepairReport rep = analysis::repairTest(*parsed.test, models, ro);
    if (!first) out << "\n";
    first = false;
    analysis::printRepairText(rep, out);
    out.flush();
    if (!rep.error.empty()) {
      rc = rep.original.internalError ? kInternal : std::max(rc, static_cast<int>(kUserError));
      continue;
    }
    // A test left broken (no repair within the limits) is a mismatch, like a failing suite test.
    if (!rep.clean && rep.repairs.empty()) rc = std::max(rc, static_cast<int>(kMismatch));
    for (size_t k = 0; k < rep.repairs.size() && !a.repairDir.empty(); ++k) {
      auto file = repairFile(a.repairDir, rep.testName, k + 1);
      std::ofstream f(file);
      f << rep.repairs[k].text;
      if (!f) {
        std::cerr << "ptxmm fences: error: cannot write '" << file.string() << "'\n";
        return kUserError;
      }
    }
  }
  return rc;
}

int runCoverage(const FencesArgs& a, std::ostream& out) {
  if (a.models.size() > 1) std::cerr << "ptxmm fences: note: --axiom-coverage uses only the first --model\n";
  std::string modelPath;
  cat::Model model;
  try {
    modelPath = cat::findModel(a.models.empty() ? std::string("ptx") : a.models.front()).string();
    auto ms = analysis::loadModels({modelPath});
    model = ms.front().model;
  } catch (const DiagnosticError& e) {
    std::cerr << "ptxmm fences: " << e.what() << "\n";
    return kUserError;
  }
  std::vector<std::filesystem::path> tests;
  for (const auto& p : check::collectTests(a.paths)) tests.push_back(p);
  analysis::CoverageOptions co;
  co.check = checkOptions(a);
  co.testsPerRule = a.perRule;
  co.maxTries = a.maxTries;
  co.jobs = a.jobs;
  co.only = a.only;
  if (!a.prefixes.empty()) co.prefixes = a.prefixes;
  std::mutex errMutex;
  co.progress = [&](const std::string& rule, int n) {
    std::lock_guard lock(errMutex);
    std::cerr << "\r" << rule << ": " << n << " tests tried      " << std::flush;
  };
  std::vector<analysis::RuleCoverage> cov;
  try {
    cov = analysis::ruleCoverage(model, std::filesystem::path(modelPath).stem().string(), tests, co);
  } catch (const DiagnosticError& e) {
    std::cerr << "\n" << e.what() << "\n";
    return kUserError;
  }
  std::cerr << "\n";
  if (a.markdown)
    analysis::printCoverageMarkdown(cov, modelPath, out);
  else
    analysis::printCoverageText(cov, out);
  for (const auto& c : cov)
    if (c.tests.empty()) return kMismatch;  // a dead or untested rule
  return kOk;
}

}  // namespace

void addFencesCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<FencesArgs>();
  auto* cmd = app.add_subcommand(
      "fences",
      "fence-necessity analysis: which fences, proxy fences, barriers and waits of each test are necessary "
      "(removing or weakening one at a time), per model; --axiom-coverage: which tests need each model rule");
  cmd->add_option(
         "--model", args->models,
         "cat model: a file or a shipped model by name (repeatable; default: ptx and every shipped ptx-* variant)")
      ->allow_extra_args(false);
  cmd->add_option("--engine", args->engine, "engine: smt, enum or both")->check(CLI::IsMember({"smt", "enum", "both"}));
  cmd->add_option("--unroll", args->unroll, "loop unrolling bound")->check(CLI::Range(0, 64));
  addBudgetOptions(cmd, args->budget, "check");
  cmd->add_option("--max-events", args->maxEvents, "refuse tests with more events than this");
  cmd->add_option("--dot", args->dotDir, "write witness graphs (DOT, and SVG when dot is installed) into DIR");
  cmd->add_option("--picture-base", args->pictureBase,
                  "path of the --dot directory as linked from the Markdown output (default: DIR)");
  cmd->add_flag("--markdown", args->markdown, "Markdown output (for docs/)");
  cmd->add_flag("--axiom-coverage", args->axiomCoverage,
                "model mutation check: for each named check and proxy-fence rule, the tests whose verdict "
                "changes without it (exit 1 if a rule changes none)");
  cmd->add_flag("--repair", args->repair,
                "repair search: for a test that races, has undefined behaviour or reaches its bad outcome, the "
                "cheapest verified sets of inserted fences, proxy fences, waits and barriers, strengthened or "
                "widened instructions and parity flips that make it clean under the first model, each as a diff "
                "(exit 1 if a test has no repair within the limits)");
  cmd->add_option("--max-edits", args->maxEdits, "--repair: most edits in one repair")->check(CLI::Range(1, 4));
  cmd->add_option("--max-cost", args->maxCost,
                  "--repair: most total cost (proxy fence or parity 1, release/acquire, scope or acq_rel fence 2, "
                  "sc fence or wait 3, barrier 4)")
      ->check(CLI::Range(1, 32));
  cmd->add_option("--max-checks", args->maxChecks, "--repair: most candidate checks per test")
      ->check(CLI::Range(1, 10000000));
  cmd->add_option("--repair-dir", args->repairDir, "--repair: write each repaired test to DIR/<test>.repair<N>.litmus");
  cmd->add_option("--rule-prefix", args->prefixes,
                  "--axiom-coverage: definition-name prefix of proxy-fence rules (repeatable; default pf-)")
      ->allow_extra_args(false);
  // Repeatable options take one value per occurrence; otherwise CLI11 lets them swallow the test paths.
  cmd->add_option("--rule", args->only, "--axiom-coverage: only this rule (repeatable)")->allow_extra_args(false);
  cmd->add_option("--per-rule", args->perRule, "--axiom-coverage: tests listed per rule")->check(CLI::Range(1, 1000));
  cmd->add_option("--max-tries", args->maxTries, "--axiom-coverage: tests tried per rule (0 = all)");
  cmd->add_option("-j,--jobs", args->jobs, "parallel checks (mutants; with --axiom-coverage: rules)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("-o,--output", args->output, "write the report to FILE instead of stdout");
  cmd->add_option("paths", args->paths, "litmus files or directories (searched recursively for *.litmus)")->required();
  cmd->callback([args, &exitCode] {
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (!args->output.empty()) {
      file.open(args->output);
      if (!file) {
        std::cerr << "ptxmm fences: error: cannot write '" << args->output << "'\n";
        exitCode = kUserError;
        return;
      }
      out = &file;
    }
    if (args->axiomCoverage && args->repair) {
      std::cerr << "ptxmm fences: error: --repair and --axiom-coverage are separate analyses; give one\n";
      exitCode = kUserError;
      return;
    }
    exitCode = args->axiomCoverage ? runCoverage(*args, *out)
               : args->repair      ? runRepair(*args, *out)
                                   : runFences(*args, *out);
  });
}

}  // namespace ptxmm::cli
