// ptxmm check: check litmus tests (files or directories) against a cat model with the enum engine,
// the smt engine or both, compare with the `.expect` files (or, with --bless, write them) and print
// herd7-format logs.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cat/Model.hpp"
#include "check/Suite.hpp"
#include "cli/Commands.hpp"
#include "cli/Options.hpp"
#include "smt/Engine.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::cli {

namespace {

struct CheckArgs {
  std::string engine = "smt";
  std::string model = "ptx";
  int unroll = 2;
  BudgetArgs budget;
  bool json = false;
  std::string dotDir;
  int jobs = 0;
  int maxEvents = 1000;
  size_t maxStates = 4096;
  unsigned enumBudgetMs = 20000;
  bool noTime = false;
  bool liveness = false;
  bool count = false;
  bool bless = false;
  unsigned smtSeed = 0;
  std::string junit;
  std::string sarif;
  std::vector<std::string> paths;
};

}  // namespace

void addCheckCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand("check", "check litmus tests against a cat model (herd7-format verdicts)");
  cmd->add_option("--engine", args->engine, "engine: smt, enum or both (both: cross-check)")
      ->check(CLI::IsMember({"smt", "enum", "both"}));
  cmd->add_option("--model", args->model,
                  "cat model: a file, or a shipped model by name (ptx, ptx-cta-proxy-fence, ...; default ptx); its "
                  "stem names the .expect line");
  cmd->add_option("--unroll", args->unroll, "loop unrolling bound")->check(CLI::Range(0, 64));
  addBudgetOptions(cmd, args->budget, "test");
  cmd->add_flag("--json", args->json, "JSON Lines instead of herd7 logs (one object per test, then the summary)");
  cmd->add_option("--junit", args->junit, "also write a JUnit XML report to FILE (one testcase per test)");
  cmd->add_option("--sarif", args->sarif,
                  "also write a SARIF 2.1.0 log to FILE (races, UB, deadlocks, wrong and undecided verdicts)");
  cmd->add_option("--dot", args->dotDir, "write Graphviz witness graphs into DIR");
  cmd->add_option(
         "-j,--jobs", args->jobs,
         "parallel workers (default: all cores); those no other test needs search a test's path choices (enum)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--max-events", args->maxEvents, "refuse tests with more events than this (status unknown)");
  cmd->add_option("--max-states", args->maxStates,
                  "give up (status unknown) on a test with more distinct final states than this (either engine)")
      ->check(CLI::Range(size_t{1}, size_t{1} << 40));
  addDurationOption(cmd, "--enum-budget", args->enumBudgetMs,
                    "both: time the enum engine may spend per test before the smt verdict is used unchecked "
                    "(default 20 s)");
  cmd->add_flag("--no-time", args->noTime, "print 'Time NAME 0.00' (reproducible logs)");
  cmd->add_flag("--liveness", args->liveness,
                "report whether every thread terminates under fair scheduling ('# Liveness:' line); a test that "
                "may deadlock or spin forever fails unless its expectation names it");
  cmd->add_flag("--count,--smt-count", args->count,
                "count every allowed execution of each state, as herd7 does (slower); else each state counts 1");
  cmd->add_option("--smt-seed", args->smtSeed,
                  "random seed of the smt engine's solver (Z3's smt.random_seed, default 0): verdicts do not depend "
                  "on it, witnesses and times may")
      ->check(CLI::Range(0u, 1000000u));
  cmd->add_flag("--bless", args->bless,
                "write each decided verdict into the test's .expect line for the model (new or changed lines get a "
                "TODO reason; tests that error, time out or stay unknown are not written)");
  cmd->add_option("paths", args->paths, "litmus files or directories (searched recursively for *.litmus)")->required();
  cmd->callback([args, &exitCode] {
    check::SuiteOptions opts;
    opts.check.engine = *check::parseEngine(args->engine);
    opts.check.unroll = args->unroll;
    opts.check.timeoutMs = args->budget.timeoutMs;
    opts.check.memoryBytes = args->budget.memoryLimit(args->jobs);
    args->budget.limitSolverMemory(args->jobs);
    if (args->smtSeed != 0) smt::setRandomSeed(args->smtSeed);
    opts.check.maxEvents = args->maxEvents;
    opts.check.maxStates = args->maxStates;
    opts.check.countExecutions = args->count;
    opts.check.enumBudgetMs = args->enumBudgetMs;
    opts.check.witnesses = true;
    try {
      opts.modelPath = cat::findModel(args->model);
    } catch (const DiagnosticError& e) {
      std::cerr << "ptxmm check: " << e.what() << "\n";
      exitCode = kUserError;
      return;
    }
    opts.jobs = args->jobs;
    opts.json = args->json;
    opts.dotDir = args->dotDir;
    opts.junitPath = args->junit;
    opts.sarifPath = args->sarif;
    opts.toolVersion = PTXMM_VERSION;
    opts.printTime = !args->noTime;
    opts.liveness = args->liveness;
    opts.bless = args->bless;
    opts.progress = isatty(STDERR_FILENO) != 0;
    try {
      check::SuiteSummary s = check::runSuite(args->paths, opts, std::cout, std::cerr);
      if (s.internalErrors > 0)
        exitCode = kInternal;
      else if (s.errors > 0 || s.noTests)
        exitCode = kUserError;
      else if (s.failed > 0)
        exitCode = kMismatch;
      else
        exitCode = kOk;
      if (s.workers) {
        // Everything is printed and written: exit now rather than wait for a worker still freeing a large
        // encoding or running a check abandoned at its deadline (--timeout bounds the whole process).
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        std::_Exit(exitCode);
      }
    } catch (const DiagnosticError& e) {
      std::cerr << e.what() << "\n";
      exitCode = kUserError;
    }
  });
}

}  // namespace ptxmm::cli
