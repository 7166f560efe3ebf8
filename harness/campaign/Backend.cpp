// The CUDA and fake backends.
#include "campaign/Backend.hpp"

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "litmus/Parser.hpp"
#include "ptxgen/Kernel.hpp"
#include "runner/Launch.hpp"
#include "support/Diagnostic.hpp"

namespace ptxmm::campaign {

using nlohmann::json;

uint64_t fnv1a(const std::string& s, uint64_t h) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

namespace {

double unit(uint64_t h) { return static_cast<double>(h >> 11) / 9007199254740992.0; }

/// Runs a test in this process: parse, generate the kernel, run it (runner::runKernel). Called in the
/// device session's child, which keeps its CUDA context from one test to the next.
Execution runHere(const TestRow& t, const runner::StressParams& params) {
  Execution ex;
  auto pr = litmus::tryParseTest(t.text, t.file);
  if (!pr.ok()) {
    ex.result.status = runner::RunResult::Status::Error;
    ex.result.reason = pr.diagnostics.empty() ? "parse error" : pr.diagnostics.front().str();
    return ex;
  }
  try {
    const std::string arch = t.arch.empty() ? ptxgen::requiredArch(*pr.test) : t.arch;
    ptxgen::Kernel kernel = ptxgen::generate(*pr.test, runner::kernelShape(params, arch));
    std::vector<std::string> extra;
    if (t.allowed) extra.assign(t.allowed->begin(), t.allowed->end());
    auto candidates = runner::candidateValues(*pr.test, kernel, extra);
    ex.result = runner::runKernel(kernel, params, candidates);
  } catch (const DiagnosticError& e) {
    ex.result.status = runner::RunResult::Status::Skipped;
    ex.result.reason = e.diagnostic().str();
  } catch (const std::exception& e) {
    ex.result.status = runner::RunResult::Status::Error;
    ex.result.reason = e.what();
  }
  return ex;
}

/// The CUDA device: every test runs in one long-lived child process (runner::DeviceSession), which
/// pays the driver's initialisation and the context once per worker instead of once per test. A run
/// that times out or fails ends the child (its context may be unusable); the next run starts another.
class CudaBackend : public Backend {
 public:
  CudaBackend()
      : session_([](const json& req) {
          TestRow t;
          t.text = req.at("text").get<std::string>();
          t.file = req.at("file").get<std::string>();
          t.arch = req.at("arch").get<std::string>();
          if (req.contains("allowed")) t.allowed = req.at("allowed").get<std::set<std::string>>();
          static const runner::DeviceInfo device = runner::queryDevice();
          const Execution ex = runHere(t, runner::paramsFromJson(req.at("params")));
          return json{{"device", device.toJson()}, {"result", runner::toJson(ex.result)}};
        }) {}

  Execution run(const TestRow& t, const runner::StressParams& params) override {
    json req{{"text", t.text}, {"file", t.file}, {"arch", t.arch}, {"params", runner::toJson(params)}};
    if (t.allowed) req["allowed"] = *t.allowed;
    Execution ex;
    std::string why;
    auto reply = session_.call(req, runner::quietBoundMs(params), why);
    if (!reply) {
      ex.result.status = runner::RunResult::Status::TimedOut;
      ex.result.reason = why;
      return ex;
    }
    if (reply->contains("error")) {
      ex.result.status = runner::RunResult::Status::Error;
      ex.result.reason = "device session: " + reply->at("error").get<std::string>();
      session_.restart();
      return ex;
    }
    ex.device = runner::deviceInfoFromJson(reply->at("device"));
    ex.result = runner::runResultFromJson(reply->at("result"));
    using S = runner::RunResult::Status;
    if (ex.result.status == S::TimedOut || ex.result.status == S::Error) session_.restart();
    return ex;
  }

 private:
  runner::DeviceSession session_;
};

/// Deterministic histograms over the allowed states. Each state gets a rarity from the hash of the
/// test and the state; a test is sensitive to a few stress parameters (chosen by its hash) with an
/// optimum per parameter, and the closer the parameters are, the more of its rare states appear.
/// Stress costs time: heavier stress means fewer instances per second.
class FakeBackend : public Backend {
 public:
  FakeBackend(int gpu, FakeSpec spec) : gpu_(gpu), spec_(std::move(spec)) {}

  Execution run(const TestRow& t, const runner::StressParams& p) override {
    if (spec_.dieAfter >= 0 && runs_ >= spec_.dieAfter && (spec_.dieGpu < 0 || spec_.dieGpu == gpu_)) raise(SIGKILL);
    ++runs_;
    if (spec_.slowMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(spec_.slowMs));
    Execution ex;
    ex.device.available = true;
    ex.device.name = "fake GPU " + std::to_string(gpu_);
    ex.device.smMajor = 9;
    ex.device.smMinor = 0;
    ex.device.smCount = 132;
    ex.device.ptxas = "fake backend (no ptxas)";
    auto& r = ex.result;
    auto has = [&](const std::string& s) { return !s.empty() && t.name.find(s) != std::string::npos; };
    if (t.arch == "sm_100a") {
      r.status = runner::RunResult::Status::Skipped;
      r.reason = "test needs sm_100a but the device is sm_90";
      return ex;
    }
    if (has(spec_.hang)) {
      r.status = runner::RunResult::Status::TimedOut;
      r.reason = "watchdog: a batch of 16 launch(es) did not finish within " + std::to_string(p.launchTimeoutMs) +
                 " ms (fake: injected hang)";
      return ex;
    }
    if (has(spec_.error)) {
      r.status = runner::RunResult::Status::Error;
      r.reason = "kernel execution: CUDA_ERROR_ILLEGAL_ADDRESS (fake: injected fault)";
      return ex;
    }
    if (!t.allowed || t.allowed->empty()) {
      r.status = runner::RunResult::Status::Skipped;
      r.reason = "the fake backend draws histograms over the model's allowed states, and this test has none" +
                 (t.modelError.empty() ? std::string() : " (" + t.modelError + ")");
      return ex;
    }
    // How well the parameters suit this test: a product of bell curves (in log2) around per-test
    // optima of the parameters it is sensitive to.
    struct Knob {
      const char* name;
      double value, best;
    };
    const uint64_t th = fnv1a(t.hash + t.name);
    const double lanes = p.bankConflictLanes;
    std::vector<Knob> knobs = {
        {"memStressIterations", p.memStressPct > 0 ? static_cast<double>(p.memStressIterations) : 0, 256},
        {"stressLineSize", static_cast<double>(p.stressLineSize), 16},
        {"memStride", static_cast<double>(p.memStride), 256},
        {"bankConflictLanes", lanes, 8},
        {"preStressIterations", p.preStressPct > 0 ? static_cast<double>(p.preStressIterations) : 0, 32},
        {"stressWarpsPerBlock", static_cast<double>(p.stressWarpsPerBlock), 4},
    };
    double fit = 1;
    for (size_t k = 0; k < knobs.size(); ++k) {
      if (((th >> (k * 3)) & 3) == 0) continue;  // insensitive to this knob
      const double d = std::log2(knobs[k].value + 1) - std::log2(knobs[k].best + 1);
      fit *= std::exp(-d * d / 18.0);
    }
    if (p.memStressPattern == static_cast<int>(th % 4)) fit = std::min(1.0, fit * 1.15);
    std::mt19937_64 rng(fnv1a(runner::toJson(p).dump(), th) ^ p.seed);
    const uint64_t n = p.iterations;
    std::vector<std::string> states(t.allowed->begin(), t.allowed->end());
    // The most common state: the lowest hash.
    size_t common = 0;
    for (size_t i = 1; i < states.size(); ++i)
      if (fnv1a(states[i], th) < fnv1a(states[common], th)) common = i;
    uint64_t rest = n;
    for (size_t i = 0; i < states.size(); ++i) {
      if (i == common) continue;
      const double u = unit(fnv1a(states[i], th));
      const double rarity = 0.5 + 7.5 * u * u;  // log10 of 1 / probability at the best parameters
      const double prob = std::pow(10.0, -rarity * (1.6 - fit) / 0.6);
      const double mean = prob * static_cast<double>(n);
      uint64_t c = 0;
      if (mean > 1e6) {
        std::normal_distribution<double> nd(mean, std::sqrt(mean));
        c = static_cast<uint64_t>(std::max(0.0, nd(rng)));
      } else if (mean > 0) {
        std::poisson_distribution<uint64_t> pd(mean);
        c = pd(rng);
      }
      c = std::min(c, rest);
      rest -= c;
      if (c > 0) r.histogram.states[states[i]] = c;
    }
    if (rest > 0) r.histogram.states[states[common]] += rest;
    if (has(spec_.forbidden)) {
      std::string key = states.front();
      const auto eq = key.find('=');
      if (eq != std::string::npos) key = key.substr(0, eq) + "=99;";
      r.histogram.states[key] += 3;
    }
    const double cost = 1 + 0.05 * p.stressWarpsPerBlock + (p.memStressPct / 100.0) * p.memStressIterations / 512.0 +
                        lanes / 64.0 + (p.preStressPct / 100.0) * p.preStressIterations / 128.0;
    r.status = runner::RunResult::Status::Ok;
    r.instances = n;
    r.columns = 264;
    r.launches = (n + 264 * 16 - 1) / (264 * 16);
    r.seconds = static_cast<double>(n) * cost / 5e8;
    return ex;
  }

 private:
  int gpu_;
  FakeSpec spec_;
  int runs_ = 0;
};

}  // namespace

FakeSpec fakeSpec(const std::string& spec) {
  FakeSpec f;
  const char* env = std::getenv("PTXMM_FAKE");
  std::string all = std::string(env != nullptr ? env : "") + "," + spec;
  std::stringstream ss(all);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    try {
      if (key == "slow")
        f.slowMs = std::stoi(value);
      else if (key == "hang")
        f.hang = value;
      else if (key == "error")
        f.error = value;
      else if (key == "forbidden")
        f.forbidden = value;
      else if (key == "die-after")
        f.dieAfter = std::stoi(value);
      else if (key == "die-gpu")
        f.dieGpu = std::stoi(value);
      else if (key == "gpus")
        f.gpus = std::stoi(value);
      else
        throw std::runtime_error("unknown item");
    } catch (const std::exception&) {
      throw std::runtime_error("fake device: bad item '" + item +
                               "' (slow=MS, hang=TEXT, error=TEXT, forbidden=TEXT, die-after=N, die-gpu=G, gpus=N)");
    }
  }
  return f;
}

std::unique_ptr<Backend> makeBackend(const std::string& name, int gpu, const std::string& fake) {
  if (name == "cuda") return std::make_unique<CudaBackend>();
  if (name == "fake") return std::make_unique<FakeBackend>(gpu, fakeSpec(fake));
  throw std::runtime_error("unknown backend '" + name + "' (cuda or fake)");
}

int deviceCount(const std::string& backend, const std::string& fake) {
  if (backend == "fake") return fakeSpec(fake).gpus;
  return runner::deviceCount();
}

}  // namespace ptxmm::campaign
