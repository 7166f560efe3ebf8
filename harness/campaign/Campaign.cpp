// Planning and running a campaign from the store.
#include "campaign/Campaign.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <mutex>
#include <sstream>
#include <thread>

#include "litmus/Parser.hpp"
#include "litmus/Printer.hpp"
#include "ptxgen/Kernel.hpp"

namespace ptxmm::campaign {

using nlohmann::json;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The configuration's JSON as stored: every parameter but the iteration count (a run's own column).
json configJson(const runner::StressParams& p) {
  json j = runner::toJson(p);
  j.erase("iterations");
  return j;
}

std::string duration(double s) {
  std::ostringstream os;
  const auto t = static_cast<int64_t>(s);
  if (t >= 3600)
    os << t / 3600 << "h" << (t % 3600) / 60 << "m";
  else if (t >= 60)
    os << t / 60 << "m" << t % 60 << "s";
  else
    os << t << "s";
  return os.str();
}

}  // namespace

bool plan(Store& store, const PlanOptions& o, std::ostream& err) {
  bool good = true;
  const auto files = report::collectLitmusFiles(o.inputs);
  runner::StressParams p = o.params;
  const int64_t config = store.addConfig(configJson(p), "run");
  std::vector<TestRow> known = store.tests("test");
  int index = -1;
  for (const auto& file : files) {
    ++index;
    if (o.shards > 1 && index % o.shards != o.shard) continue;
    const std::string text = readFile(file);
    litmus::ParseResult pr = litmus::tryParseTest(text, file);
    if (!pr.ok()) {
      for (const auto& d : pr.diagnostics) err << d.str() << "\n";
      good = false;
      continue;
    }
    const litmus::Test& test = *pr.test;
    TestRow row;
    row.kind = "test";
    row.name = test.name;
    row.file = file;
    row.text = text;
    row.hash = litmus::testHash(test);
    bool stored = false;
    for (const auto& k : known)
      if (k.name == row.name && k.text == row.text) {
        row = k;
        stored = true;
      }
    if (stored && row.allowed && !row.hanging && o.oracle) {
      // A test stored before the hanging states were recorded (schema version 1): the model gives them now.
      std::string error;
      if (auto ms = o.oracle(test, error); ms && ms->allowed == *row.allowed) store.setHanging(row.id, ms->hanging);
    }
    if (!stored) {
      try {
        row.arch = o.arch.empty() ? ptxgen::requiredArch(test) : o.arch;
      } catch (const std::exception& e) {
        row.arch = "";
      }
      if (o.oracle) {
        std::string error;
        if (auto ms = o.oracle(test, error)) {
          row.allowed = ms->allowed;
          row.hanging = ms->hanging;
          row.model = ms->model;
        } else {
          row.model = o.modelName;
          row.modelError = error;
        }
      }
      row.id = store.addTest(row);
    }
    store.addRun(row.id, config, p.iterations, "campaign");
  }
  return good;
}

int planStored(Store& store, const runner::StressParams& params) {
  const int64_t config = store.addConfig(configJson(params), "run");
  const auto before = store.progress("campaign");
  for (const auto& t : store.tests("test")) store.addRun(t.id, config, params.iterations, "campaign");
  const auto after = store.progress("campaign");
  return static_cast<int>((after.first + after.second) - (before.first + before.second));
}

runner::StressParams runParams(const ConfigRow& config, uint64_t iterations) {
  runner::StressParams p = runner::paramsFromJson(config.params);
  p.iterations = iterations;
  return p;
}

void recordExecution(RunRow& run, const TestRow& test, const Execution& ex) {
  const auto& r = ex.result;
  run.status = runner::statusName(r.status);
  run.reason = r.reason;
  run.device = ex.device.toJson();
  run.states = r.histogram.states;
  run.other = r.histogram.other;
  run.timedOut = r.histogram.timedOut;
  run.instances = r.instances;
  run.launches = r.launches;
  run.columns = r.columns;
  run.seconds = r.seconds;
  run.finished = now();
  run.forbiddenSeen = run.allowedSeen = run.allowedTotal = run.targetSeen = 0;
  if (test.allowed) {
    report::Comparison c = report::compare(r.histogram, *test.allowed);
    run.forbiddenSeen = static_cast<int64_t>(c.forbiddenSeen);
    run.allowedTotal = static_cast<int64_t>(test.allowed->size());
    run.allowedSeen = run.allowedTotal - static_cast<int64_t>(c.allowedNeverSeen);
  }
  if (!test.target.empty()) {
    auto it = r.histogram.states.find(test.target);
    run.targetSeen = it == r.histogram.states.end() ? 0 : static_cast<int64_t>(it->second);
  }
}

RunRow executeClaimed(Store& store, Backend& backend, RunRow run, double leaseSeconds) {
  const TestRow test = store.test(run.test);
  const ConfigRow config = store.config(run.config);
  // The lease is renewed from a second connection while the test runs (a long run keeps its claim;
  // a dead worker stops renewing and its run is claimed again when the lease expires).
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread renewer([&] {
    Store second(store.path());
    std::unique_lock<std::mutex> lock(m);
    while (!cv.wait_for(lock, std::chrono::duration<double>(std::max(0.05, leaseSeconds / 4)), [&] { return done; })) {
      try {
        second.renew(run.id, run.worker, leaseSeconds);
      } catch (const std::exception&) {
        // A busy store: the next renewal tries again.
      }
    }
  });
  Execution ex;
  try {
    ex = backend.run(test, runParams(config, run.iterations));
  } catch (const std::exception& e) {
    ex.result.status = runner::RunResult::Status::Error;
    ex.result.reason = e.what();
  }
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_all();
  renewer.join();
  recordExecution(run, test, ex);
  if (!store.finish(run)) run.status = "lost";
  return run;
}

std::set<int64_t> notRunnableMutants(Store& store) {
  // Skipped under one configuration is not enough: some refusals depend on the parameters (more testing groups
  // per CTA need more named barriers than the hardware has), and a run elsewhere shows the device can run it.
  std::set<int64_t> skipped, ran;
  for (const auto& r : store.runs("tune")) {
    if (r.status == "skipped") skipped.insert(r.test);
    if (isFinished(r.status) && r.status != "skipped") ran.insert(r.test);  // ok, or ended by the watchdog / a fault
  }
  std::set<int64_t> out;
  std::set_difference(skipped.begin(), skipped.end(), ran.begin(), ran.end(), std::inserter(out, out.begin()));
  return out;
}

int runWorker(const WorkerOptions& o, std::ostream& err) {
  Store store(o.db);
  auto backend = makeBackend(o.backend, o.gpu, o.fake);
  const std::string me = workerName();
  int finished = 0;
  const double t0 = now();
  const int64_t done0 = store.progress("campaign").second;
  while (true) {
    auto run = store.claim("campaign", me, o.leaseSeconds, o.maxAttempts);
    if (!run) {
      // Nothing to claim: done unless another worker still holds a run (it may die and its run come back).
      if (store.progress("campaign").first == 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    RunRow r = executeClaimed(store, *backend, *run, o.leaseSeconds);
    ++finished;
    if (r.forbiddenSeen > 0)
      err << (o.progress ? "\n" : "") << "!!! " << store.test(r.test).name << ": " << r.forbiddenSeen
          << " state(s) FORBIDDEN by the model were SEEN !!!\n";
    if (o.progress) err << "\r" << progressLine(store, "campaign", t0, done0) << "\033[K" << std::flush;
  }
  if (o.progress) err << "\n";
  return finished;
}

int runWorkers(const WorkerOptions& o, const std::vector<int>& gpus, const std::string& exe, std::ostream& err) {
  std::vector<pid_t> pids;
  for (int g : gpus) {
    std::vector<std::string> args = {exe,
                                     "campaign",
                                     "worker",
                                     "--db",
                                     o.db,
                                     "--gpu",
                                     std::to_string(g),
                                     "--backend",
                                     o.backend,
                                     "--lease",
                                     std::to_string(o.leaseSeconds),
                                     "--max-attempts",
                                     std::to_string(o.maxAttempts)};
    if (!o.fake.empty()) {
      args.push_back("--fake");
      args.push_back(o.fake);
    }
    fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
      err << "campaign: error: cannot start a worker: " << strerror(errno) << "\n";
      continue;
    }
    if (pid == 0) {
      setenv("CUDA_VISIBLE_DEVICES", std::to_string(g).c_str(), 1);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(exe.c_str(), argv.data());
      _exit(127);
    }
    pids.push_back(pid);
  }
  int failed = 0;
  Store store(o.db);
  const double t0 = now();
  const int64_t done0 = store.progress("campaign").second;
  size_t alive = pids.size();
  while (alive > 0) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (size_t i = 0; i < pids.size(); ++i)
        if (pids[i] == pid) {
          --alive;
          if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            ++failed;
            err << (o.progress ? "\n" : "") << "campaign: worker of GPU " << gpus[i] << " (pid " << pid << ") "
                << (WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                        : "exited with status " + std::to_string(WEXITSTATUS(status)))
                << "; its claimed run returns to the others when its lease expires\n";
          }
        }
      continue;
    }
    if (o.progress) err << "\r" << progressLine(store, "campaign", t0, done0) << "\033[K" << std::flush;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (o.progress) err << "\n";
  return failed;
}

std::vector<int> parseGpus(const std::string& text, const std::string& backend, const std::string& fake) {
  std::vector<int> out;
  if (text == "all") {
    const int n = deviceCount(backend, fake);
    if (n <= 0) throw std::runtime_error("--gpus all: no GPU found");
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    int g = -1;
    try {
      g = std::stoi(item, &used);
    } catch (const std::exception&) {
    }
    if (g < 0 || used != item.size())
      throw std::runtime_error("--gpus: '" + item + "' is not a GPU index (all or 0,2,...)");
    out.push_back(g);
  }
  if (out.empty()) throw std::runtime_error("--gpus: no GPU given");
  return out;
}

std::string progressLine(Store& store, const std::string& batch, double startedAt, int64_t doneAtStart) {
  auto [left, done] = store.progress(batch);
  double instances = 0;
  {
    Stmt s(store.handle(), "SELECT COALESCE(SUM(instances), 0) FROM runs WHERE batch = ? AND finished >= ?");
    s.bind(1, batch).bind(2, startedAt);
    if (s.step()) instances = s.f64(0);
  }
  const double elapsed = std::max(1e-3, now() - startedAt);
  const int64_t doneHere = done - doneAtStart;
  std::ostringstream os;
  os << batch << ": " << done << "/" << (left + done) << " runs, " << std::scientific << std::setprecision(2)
     << instances / elapsed << " instances/s";
  if (doneHere > 0 && left > 0)
    os << ", ETA " << duration(elapsed / static_cast<double>(doneHere) * static_cast<double>(left));
  return os.str();
}

}  // namespace ptxmm::campaign
