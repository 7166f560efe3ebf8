// `ptxmm campaign ...` / `ptxmm-hw campaign ...`: hardware campaigns on the durable store.
#include "cli/CampaignCli.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "campaign/Backend.hpp"
#include "campaign/Campaign.hpp"
#include "campaign/Coverage.hpp"
#include "campaign/Report.hpp"
#include "campaign/Tune.hpp"
#include "cli/Commands.hpp"
#include "cli/RunOptions.hpp"
#include "litmus/Printer.hpp"

namespace ptxmm::cli {

namespace {

using campaign::Store;

/// The store of a command that reads one: a missing file is an error, never a new empty campaign.
Store existingStore(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw std::runtime_error(path + ": error: no campaign store (`ptxmm campaign run --db " + path + "` creates one)");
  return Store(path);
}

struct Args {
  std::string db;
  RunOptions run;  // paths, --params, stress options, --arch (--json unused)
  std::string gpus, backend, fake, model = "ptx", modelStates, shard, outFile, python;
  bool noModel = false, mutants = false, planOnly = false, noProgress = false, tuned = false, evaluate = false;
  double lease = 600, budget = 60;
  int maxAttempts = 3, gpu = 0;
  uint64_t iterations = 0, tuneIterations = 100000, seed = 1;
  std::vector<std::string> stores;
};

std::string selfExe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("ptxmm") : p.string();
}

/// Runs the pending campaign runs (in this process, or one worker per GPU) and prints the coverage.
int execute(Store& store, const Args& a, const std::string& backend, std::ostream& out, std::ostream& err) {
  campaign::WorkerOptions wo;
  wo.db = a.db;
  wo.backend = backend;
  wo.fake = a.fake;
  wo.leaseSeconds = a.lease;
  wo.maxAttempts = a.maxAttempts;
  wo.progress = !a.noProgress && isatty(2) != 0;
  const int released = store.releaseDeadLocalClaims();
  if (released > 0)
    err << "campaign: " << released << " run(s) claimed by dead workers of this host return to the queue\n";
  int failedWorkers = 0;
  if (a.gpus.empty()) {
    campaign::runWorker(wo, err);
  } else {
    failedWorkers = campaign::runWorkers(wo, campaign::parseGpus(a.gpus, backend, a.fake), selfExe(), err);
    // Every worker gone with runs left (all of them died): finish them here.
    if (store.progress("campaign").first > 0) {
      err << "campaign: runs left after the workers ended; running them in this process\n";
      campaign::runWorker(wo, err);
    }
  }
  auto cov = campaign::coverage(store);
  campaign::printCoverage(cov, out, false);
  if (cov.forbiddenSeen > 0) return kMismatch;
  if (failedWorkers > 0) err << "campaign: " << failedWorkers << " worker(s) died; their runs were retried\n";
  bool anyOk = false;
  for (const auto& t : cov.tests) anyOk = anyOk || t.status == "ok";
  return anyOk ? kOk : kSkipped;
}

std::string backendOf(Store& store, const std::string& given) {
  if (!given.empty()) return given;
  return store.meta("backend").value_or("cuda");
}

int cmdRun(const Args& a, const CampaignHooks& hooks) {
  try {
    Store store(a.db);
    campaign::PlanOptions po;
    RunOptions ro = a.run;
    auto co = campaignOptions(ro);
    po.inputs = co.inputs;
    po.params = co.params;
    if (a.iterations > 0) po.params.iterations = a.iterations;
    po.arch = co.archOverride;
    if (!a.shard.empty()) {
      const auto slash = a.shard.find('/');
      po.shard = std::stoi(a.shard.substr(0, slash));
      po.shards = std::stoi(a.shard.substr(slash + 1));
      if (po.shards < 1 || po.shard < 0 || po.shard >= po.shards) throw std::runtime_error("--shard I/N: 0 <= I < N");
    }
    if (!a.noModel) {
      if (!a.modelStates.empty()) {
        po.oracle = modelStatesOracle(a.modelStates);
        po.modelName = "model-states";
      } else if (hooks.oracle) {
        std::string error;
        po.oracle = hooks.oracle(a.model, error);
        if (!po.oracle) {
          std::cerr << hooks.tool << " campaign: " << error << "\n";
          return kUserError;
        }
        po.modelName = a.model;
      }
    }
    const std::string backend = a.backend.empty() ? store.meta("backend").value_or("cuda") : a.backend;
    store.setMeta("backend", backend);
    const bool good = campaign::plan(store, po, std::cerr);
    if (a.mutants) {
      if (!hooks.mutants) {
        std::cerr << hooks.tool << " campaign: --mutants needs the checker (ptxmm, not ptxmm-hw)\n";
        return kUserError;
      }
      if (int rc = hooks.mutants(store, a.model, std::cout, std::cerr); rc != 0) return rc;
    }
    if (a.planOnly) return good ? kOk : kUserError;
    const int rc = execute(store, a, backend, std::cout, std::cerr);
    return rc == kOk && !good ? kUserError : rc;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

int cmdResume(const Args& a) {
  try {
    Store store = existingStore(a.db);
    return execute(store, a, backendOf(store, a.backend), std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

int cmdRerun(const Args& a) {
  try {
    Store store = existingStore(a.db);
    runner::StressParams p;
    if (a.tuned) {
      auto best = store.meta("tune.best");
      if (!best) throw std::runtime_error(a.db + ": error: --tuned: no tuning run in this store");
      p = runner::paramsFromJson(store.config(std::stoll(*best)).params);
      // The campaign's own iteration count (the largest of its runs) unless --iterations is given.
      p.iterations = 0;
      for (const auto& r : store.runs("campaign")) p.iterations = std::max<uint64_t>(p.iterations, r.iterations);
      if (p.iterations == 0) p.iterations = runner::StressParams{}.iterations;
    } else {
      RunOptions ro = a.run;
      ro.paths = {"-"};
      p = campaignOptions(ro).params;
    }
    if (a.iterations > 0) p.iterations = a.iterations;
    std::cerr << "campaign: " << campaign::planStored(store, p) << " run(s) added\n";
    return execute(store, a, backendOf(store, a.backend), std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

int cmdWorker(const Args& a) {
  try {
    campaign::WorkerOptions wo;
    wo.db = a.db;
    wo.backend = a.backend.empty() ? "cuda" : a.backend;
    wo.fake = a.fake;
    wo.gpu = a.gpu;
    wo.leaseSeconds = a.lease;
    wo.maxAttempts = a.maxAttempts;
    campaign::runWorker(wo, std::cerr);
    return kOk;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

int cmdTune(const Args& a, const CampaignHooks& hooks) {
  try {
    Store store = existingStore(a.db);
    if (store.tests("mutant").empty() && hooks.mutants)
      if (int rc = hooks.mutants(store, a.model, std::cout, std::cerr); rc != 0) return rc;
    campaign::TuneOptions to;
    to.budgetSeconds = a.budget;
    to.iterations = a.tuneIterations;
    to.seed = a.seed;
    to.out = a.outFile;
    to.evaluateOnly = a.evaluate;
    RunOptions ro = a.run;
    ro.paths = {"-"};
    to.base = campaignOptions(ro).params;
    auto backend = campaign::makeBackend(backendOf(store, a.backend), 0, a.fake);
    return campaign::tune(store, *backend, to, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

int cmdCoverage(const Args& a) {
  try {
    Store store = existingStore(a.db);
    auto cov = campaign::coverage(store);
    campaign::printCoverage(cov, std::cout, true);
    if (store.meta("tune.best")) campaign::printTuneSummary(store, std::cout);  // the mutation score
    return cov.forbiddenSeen > 0 ? kMismatch : kOk;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

int cmdCompare(const Args& a) {
  try {
    if (a.stores.size() != 2) throw std::runtime_error("campaign compare: give two stores");
    Store x = existingStore(a.stores[0]);
    Store y = existingStore(a.stores[1]);
    campaign::compareStores(x, y, std::cout);
    return kOk;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

int cmdMerge(const Args& a) {
  try {
    if (a.stores.size() < 2) throw std::runtime_error("campaign merge: give OUT and at least one IN store");
    Store out(a.stores[0]);
    for (size_t i = 1; i < a.stores.size(); ++i) {
      if (!std::filesystem::exists(a.stores[i])) throw std::runtime_error(a.stores[i] + ": error: no such store");
      Store in = existingStore(a.stores[i]);
      std::cout << a.stores[i] << ": " << campaign::mergeStore(out, in) << " finished run(s) merged\n";
    }
    return kOk;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

int cmdReport(const Args& a) {
  try {
    Store store = existingStore(a.db);
    campaign::HtmlOptions ho;
    ho.out = a.outFile;
    ho.python = a.python;
    if (!campaign::writeHtml(store, ho, std::cerr)) return kUserError;
    auto cov = campaign::coverage(store);
    std::cout << "report written to " << a.outFile << "\n";
    campaign::printCoverage(cov, std::cout, false);
    return cov.forbiddenSeen > 0 ? kMismatch : kOk;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return kUserError;
  }
}

void addExecOptions(CLI::App* c, Args& a) {
  c->add_option("--gpus", a.gpus, "one worker process per GPU: all, or indexes 0,2 (default: this process, GPU 0)");
  c->add_option("--backend", a.backend, "cuda (default) or fake (CPU-only, for CI; faults via --fake / PTXMM_FAKE)")
      ->check(CLI::IsMember({"cuda", "fake"}));
  c->add_option("--fake", a.fake,
                "fake device faults: slow=MS,hang=TEXT,error=TEXT,forbidden=TEXT,die-after=N,die-gpu=G,gpus=N");
  c->add_option("--lease", a.lease, "seconds a claim lasts without renewal (a dead worker's run is retried after it)")
      ->check(CLI::PositiveNumber);
  c->add_option("--max-attempts", a.maxAttempts, "claims of one run before it is marked error (default 3)")
      ->check(CLI::PositiveNumber);
  c->add_flag("--no-progress", a.noProgress, "no progress line (shown only when stderr is a terminal)");
}

}  // namespace

report::ModelOracle modelStatesOracle(const std::string& path) {
  auto table = std::make_shared<const std::map<std::string, report::ModelStates>>(report::readModelStatesFile(path));
  return [table](const litmus::Test& t, std::string& error) -> std::optional<report::ModelStates> {
    auto it = table->find(litmus::testHash(t));
    if (it == table->end()) {
      error = "no model states for this test's hash in --model-states";
      return std::nullopt;
    }
    return it->second;
  };
}

void addCampaignCommand(CLI::App& app, int& exitCode, const CampaignHooks& hooks) {
  auto a = std::make_shared<Args>();
  auto* top = app.add_subcommand("campaign", "hardware campaigns on a durable SQLite store (docs/hardware/README.md)");
  top->require_subcommand(1);

  auto* run = top->add_subcommand("run", "add tests to the store and run every pending one (re-running is a no-op)");
  run->add_option("--db", a->db, "the campaign store (SQLite; created if missing)")->required();
  addRunOptions(run, a->run);
  run->add_option("--model", a->model, "cat model of the allowed states (default ptx)");
  run->add_flag("--no-model", a->noModel, "no model comparison");
  run->add_option("--model-states", a->modelStates,
                  "allowed states per test hash: the JSON lines of `ptxmm check --json`");
  run->add_flag("--mutants", a->mutants, "also generate the suite's mutants (for `campaign tune`)");
  run->add_flag("--plan-only", a->planOnly, "store the tests and pending runs, run nothing (e.g. for another machine)");
  run->add_option("--shard", a->shard, "only tests I, I+N, ... of the inputs (I/N: a Slurm array task)");
  addExecOptions(run, *a);
  run->callback([a, &exitCode, hooks] { exitCode = cmdRun(*a, hooks); });

  auto* resume = top->add_subcommand("resume", "continue a campaign where it stopped");
  resume->add_option("db", a->db, "the campaign store")->required();
  addExecOptions(resume, *a);
  resume->callback([a, &exitCode] { exitCode = cmdResume(*a); });

  auto* rerun = top->add_subcommand("rerun", "run every stored test again under other stress parameters (e.g. tuned)");
  rerun->add_option("db", a->db, "the campaign store")->required();
  rerun->add_option("--params", a->run.paramsFile, "the stress parameters (JSON, e.g. from `campaign tune --out`)");
  rerun->add_flag("--tuned", a->tuned, "the best parameters of the store's tuning run (instead of --params)");
  rerun->add_option("--iterations", a->iterations, "instances per test (default: the parameters' iterations)");
  addExecOptions(rerun, *a);
  rerun->callback([a, &exitCode] { exitCode = cmdRerun(*a); });

  auto* worker = top->add_subcommand("worker", "(internal) one GPU's worker of `--gpus`");
  worker->group("");
  worker->add_option("--db", a->db)->required();
  worker->add_option("--gpu", a->gpu);
  addExecOptions(worker, *a);
  worker->callback([a, &exitCode] { exitCode = cmdWorker(*a); });

  auto* tune = top->add_subcommand("tune", "search the stress parameters that kill the most mutants");
  tune->add_option("--db", a->db, "the campaign store (its mutants)")->required();
  tune->add_option("--budget", a->budget, "seconds: max(wall time, device time of the runs)")->required();
  tune->add_option("--iterations", a->tuneIterations, "instances per mutant run (default 100000)");
  tune->add_option("--seed", a->seed, "seed of the search");
  tune->add_option("--out", a->outFile, "write the best parameters here (JSON for --params)");
  tune->add_option("--params", a->run.paramsFile, "the parameters the search starts from");
  tune->add_option("--model", a->model, "cat model of the mutants (default ptx)");
  tune->add_flag("--evaluate", a->evaluate,
                 "no search: run the --params configuration at --iterations on every mutant it has not killed yet "
                 "(its score counts a kill by any of its runs)");
  addExecOptions(tune, *a);
  tune->callback([a, &exitCode, hooks] { exitCode = cmdTune(*a, hooks); });

  auto* cov = top->add_subcommand(
      "coverage",
      "allowed-state coverage, forbidden-and-seen, unseen states with reasons; the mutation score of a tuned store");
  cov->add_option("db", a->db, "the campaign store")->required();
  cov->callback([a, &exitCode] { exitCode = cmdCoverage(*a); });

  auto* cmp = top->add_subcommand("compare", "two stores' counts per test and state side by side");
  cmp->add_option("stores", a->stores, "A B")->required()->expected(2);
  cmp->callback([a, &exitCode] { exitCode = cmdCompare(*a); });

  auto* merge = top->add_subcommand("merge", "merge stores (Slurm tasks, machines) into OUT");
  merge->add_option("stores", a->stores, "OUT IN...")->required()->expected(2, 1000);
  merge->callback([a, &exitCode] { exitCode = cmdMerge(*a); });

  auto* rep = top->add_subcommand("report",
                                  "one self-contained HTML page: coverage, forbidden-and-seen, mutation score, plots");
  rep->add_option("db", a->db, "the campaign store")->required();
  rep->add_option("--html", a->outFile, "the HTML file")->required();
  rep->add_option("--python", a->python, "the Python with matplotlib (default /usr/bin/python3, else python3)");
  rep->callback([a, &exitCode] { exitCode = cmdReport(*a); });
}

}  // namespace ptxmm::cli
